/*
 * otf_u32map.h — a small open-addressing hash map from uint32_t keys to
 * pointers, used for process → stream and stream id → stream lookups on the
 * write path.  Key UINT32_MAX is reserved (never a valid process or stream).
 * The map owns its slot array, not the values.
 */
#ifndef VFTR_OTF_U32MAP_H
#define VFTR_OTF_U32MAP_H

#include <stdint.h>
#include <stdlib.h>

typedef struct vftr_otf_u32map {
    uint32_t* keys;
    void** vals;
    uint32_t cap;     /* power of two, or 0 */
    uint32_t count;
} vftr_otf_u32map;

static inline uint32_t vftr_otf_u32map_hash(uint32_t k)
{
    k ^= k >> 16;
    k *= 0x7feb352du;
    k ^= k >> 15;
    k *= 0x846ca68bu;
    k ^= k >> 16;
    return k;
}

static inline void* vftr_otf_u32map_get(const vftr_otf_u32map* m, uint32_t key)
{
    if (m->cap == 0)
        return NULL;
    uint32_t mask = m->cap - 1;
    for (uint32_t i = vftr_otf_u32map_hash(key) & mask;; i = (i + 1) & mask) {
        if (m->keys[i] == key)
            return m->vals[i];
        if (m->keys[i] == UINT32_MAX)
            return NULL;
    }
}

/* Inserts or replaces.  0 ok, -ENOMEM. */
int vftr_otf_u32map_put(vftr_otf_u32map* m, uint32_t key, void* val);
void vftr_otf_u32map_release(vftr_otf_u32map* m);

#endif /* VFTR_OTF_U32MAP_H */
