/* tally.c — see tally.h.  Linear probing, grown at 3/4 load; small maps
 * start at 4 slots since most of them stay that small. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

static void insert(struct vftr_tally_slot *slots, uint32_t cap, uint64_t key, union vftr_tally_val v)
{
    uint32_t i = vftr_tally_mix_(key) & (cap - 1);

    while (slots[i].key != VFTR_TALLY_NOKEY)
        i = (i + 1) & (cap - 1);
    slots[i].key = key;
    slots[i].v = v;
}

static int grow(struct vftr_tally *t)
{
    uint32_t cap = t->cap ? 2 * t->cap : 4;
    struct vftr_tally_slot *slots;

    if (cap < t->cap || cap > (1u << 30))
        return -ENOMEM;
    slots = malloc((size_t)cap * sizeof *slots);
    if (!slots)
        return -ENOMEM;
    for (uint32_t i = 0; i < cap; i++)
        slots[i].key = VFTR_TALLY_NOKEY;
    for (uint32_t i = 0; i < t->cap; i++)
        if (t->slots[i].key != VFTR_TALLY_NOKEY)
            insert(slots, cap, t->slots[i].key, t->slots[i].v);
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

struct vftr_tally_slot *vftr_tally_insert_(struct vftr_tally *t, uint64_t key)
{
    uint32_t i;

    if (4 * ((uint64_t)t->used + 1) > 3 * (uint64_t)t->cap && grow(t) < 0)
        return NULL;
    for (i = vftr_tally_mix_(key) & (t->cap - 1); t->slots[i].key != VFTR_TALLY_NOKEY;
         i = (i + 1) & (t->cap - 1))
        ;
    t->slots[i].key = key;
    t->slots[i].v.i = 0;
    t->used++;
    return &t->slots[i];
}

int vftr_tally_set_i(struct vftr_tally *t, uint64_t key, int64_t value)
{
    struct vftr_tally_slot *s;

    if (key == VFTR_TALLY_NOKEY)
        return -EINVAL;
    if (!(s = vftr_tally_find(t, key)) && !(s = vftr_tally_insert_(t, key)))
        return -ENOMEM;
    s->v.i = value;
    return 0;
}

int vftr_tally_merge_i(struct vftr_tally *dst, const struct vftr_tally *src)
{
    for (uint32_t i = 0; i < src->cap; i++)
        if (src->slots[i].key != VFTR_TALLY_NOKEY) {
            int rc = vftr_tally_add_i(dst, src->slots[i].key, src->slots[i].v.i);

            if (rc < 0)
                return rc;
        }
    return 0;
}

int vftr_tally_merge_d(struct vftr_tally *dst, const struct vftr_tally *src, double factor)
{
    for (uint32_t i = 0; i < src->cap; i++)
        if (src->slots[i].key != VFTR_TALLY_NOKEY) {
            int rc = vftr_tally_add_d(dst, src->slots[i].key, factor * src->slots[i].v.d);

            if (rc < 0)
                return rc;
        }
    return 0;
}

static void swap(struct vftr_tally *a, struct vftr_tally *b)
{
    struct vftr_tally t = *a;

    *a = *b;
    *b = t;
}

int vftr_tally_absorb_i(struct vftr_tally *dst, struct vftr_tally *src)
{
    int rc;

    if (src->used > dst->used)
        swap(dst, src);
    rc = vftr_tally_merge_i(dst, src);
    if (rc == 0)
        vftr_tally_clear(src);
    return rc;
}

int vftr_tally_absorb_d(struct vftr_tally *dst, struct vftr_tally *src)
{
    int rc;

    if (src->used > dst->used)
        swap(dst, src);
    rc = vftr_tally_merge_d(dst, src, 1.0);
    if (rc == 0)
        vftr_tally_clear(src);
    return rc;
}

const struct vftr_tally_slot *vftr_tally_next(const struct vftr_tally *t, size_t *pos)
{
    while (*pos < t->cap) {
        const struct vftr_tally_slot *s = &t->slots[(*pos)++];

        if (s->key != VFTR_TALLY_NOKEY)
            return s;
    }
    return NULL;
}

void vftr_tally_clear(struct vftr_tally *t)
{
    if (t->used == 0)                   /* no key is ever taken out alone: all free */
        return;
    for (uint32_t i = 0; i < t->cap; i++)
        t->slots[i].key = VFTR_TALLY_NOKEY;
    t->used = 0;
}

void vftr_tally_reset(struct vftr_tally *t)
{
    if (t->cap == 4)
        vftr_tally_clear(t);
    else
        vftr_tally_release(t);
}

void vftr_tally_release(struct vftr_tally *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}
