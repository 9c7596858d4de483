/* u32map.c — growth of the hash map in otf_u32map.h. */
#include <errno.h>
#include <string.h>

#include "otf_u32map.h"

static int grow(vftr_otf_u32map* m)
{
    uint32_t ncap = m->cap ? m->cap * 2 : 64;
    uint32_t* keys = malloc(sizeof *keys * ncap);
    void** vals = malloc(sizeof *vals * ncap);
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return -ENOMEM;
    }
    memset(keys, 0xff, sizeof *keys * ncap);
    uint32_t mask = ncap - 1;
    for (uint32_t j = 0; j < m->cap; j++) {
        if (m->keys[j] == UINT32_MAX)
            continue;
        uint32_t i = vftr_otf_u32map_hash(m->keys[j]) & mask;
        while (keys[i] != UINT32_MAX)
            i = (i + 1) & mask;
        keys[i] = m->keys[j];
        vals[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = ncap;
    return 0;
}

int vftr_otf_u32map_put(vftr_otf_u32map* m, uint32_t key, void* val)
{
    if (key == UINT32_MAX)
        return -EINVAL;
    if ((m->count + 1) * 2 > m->cap) {
        int rc = grow(m);
        if (rc)
            return rc;
    }
    uint32_t mask = m->cap - 1;
    uint32_t i = vftr_otf_u32map_hash(key) & mask;
    while (m->keys[i] != UINT32_MAX && m->keys[i] != key)
        i = (i + 1) & mask;
    if (m->keys[i] == UINT32_MAX) {
        m->keys[i] = key;
        m->count++;
    }
    m->vals[i] = val;
    return 0;
}

void vftr_otf_u32map_release(vftr_otf_u32map* m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
