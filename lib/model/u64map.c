/* u64map.c — see u64map.h.  Linear probing; grown at 50 % load. */
#include <errno.h>
#include <stdlib.h>

#include "u64map.h"

/* A 64-bit mix (splitmix64's finaliser): keys are often small, dense ids. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    return x;
}

long vftr_u64map_get(const struct vftr_u64map *m, uint64_t key)
{
    if (m->cap == 0)
        return -1;
    for (size_t i = mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].value == 0)
            return -1;
        if (m->slots[i].key == key)
            return (long)m->slots[i].value - 1;
    }
}

static void insert(struct vftr_u64map_slot *slots, size_t cap, uint64_t key, uint32_t value)
{
    size_t i = mix(key) & (cap - 1);

    while (slots[i].value != 0 && slots[i].key != key)
        i = (i + 1) & (cap - 1);
    slots[i].key = key;
    slots[i].value = value;
}

int vftr_u64map_put(struct vftr_u64map *m, uint64_t key, uint32_t index)
{
    if (index >= UINT32_MAX)
        return -ERANGE;
    if (2 * (m->used + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        struct vftr_u64map_slot *slots = calloc(cap, sizeof *slots);

        if (!slots)
            return -ENOMEM;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].value != 0)
                insert(slots, cap, m->slots[i].key, m->slots[i].value);
        free(m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    if (vftr_u64map_get(m, key) < 0)
        m->used++;
    insert(m->slots, m->cap, key, index + 1);
    return 0;
}

void vftr_u64map_release(struct vftr_u64map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->used = 0;
}
