/*
 * tally.h — internal to lib/model: sums by a 64-bit key.  A small
 * open-addressing map from keys to one 8-byte value, either integer ticks
 * (the _i functions) or a double (the _d functions); a map holds one kind,
 * chosen by its user.  Built for the many small maps of the wait analysis
 * (analysis.h): the time a process spent per call path between two
 * synchronisation points, a node of the critical path, a block of delay
 * accounting; most hold a handful of keys, a few grow large, and maps are
 * often added into one another.
 *
 * Key UINT64_MAX is reserved (it marks a free slot): the functions refuse it
 * with -EINVAL.  An empty map owns no memory (VFTR_TALLY_INIT).
 *
 * Iteration order is the slot order: it depends on the keys and on the
 * map's history, so a caller whose result must not depend on it (a sum of
 * doubles over keys, say) sorts first.  Sums per key are independent of it.
 *
 * Ownership: the map owns its slots (vftr_tally_release).  Threads: one
 * thread at a time per map; no globals.
 */
#ifndef VFTR_MODEL_TALLY_H
#define VFTR_MODEL_TALLY_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

union vftr_tally_val {
    int64_t i;
    double d;
};

struct vftr_tally_slot {
    uint64_t key;                 /* UINT64_MAX: free */
    union vftr_tally_val v;
};

struct vftr_tally {
    struct vftr_tally_slot *slots;
    uint32_t cap;                 /* power of two, or 0 */
    uint32_t used;
};

#define VFTR_TALLY_INIT { NULL, 0, 0 }
#define VFTR_TALLY_NOKEY UINT64_MAX

/* The slot holding key, or NULL.  Inline with the adds below: the
 * analysis looks keys up per record and per event, and most are found. */
static inline uint32_t vftr_tally_mix_(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185u;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44du;
    return (uint32_t)(x ^ (x >> 33));
}

static inline struct vftr_tally_slot *vftr_tally_find(const struct vftr_tally *t, uint64_t key)
{
    if (t->cap == 0 || key == VFTR_TALLY_NOKEY)
        return NULL;
    for (uint32_t i = vftr_tally_mix_(key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (t->slots[i].key == key)
            return &t->slots[i];
        if (t->slots[i].key == VFTR_TALLY_NOKEY)
            return NULL;
    }
}

/* The slot of a key that is not in t yet, made with value 0 (NULL on
 * ENOMEM); for the adds below. */
struct vftr_tally_slot *vftr_tally_insert_(struct vftr_tally *t, uint64_t key);

/* Adds delta to key's value (a missing key starts at 0).  0, -EINVAL
 * (reserved key), -ENOMEM (map unchanged). */
static inline int vftr_tally_add_i(struct vftr_tally *t, uint64_t key, int64_t delta)
{
    struct vftr_tally_slot *s;

    if (key == VFTR_TALLY_NOKEY)
        return -EINVAL;
    if (!(s = vftr_tally_find(t, key)) && !(s = vftr_tally_insert_(t, key)))
        return -ENOMEM;
    s->v.i += delta;
    return 0;
}

static inline int vftr_tally_add_d(struct vftr_tally *t, uint64_t key, double delta)
{
    struct vftr_tally_slot *s;

    if (key == VFTR_TALLY_NOKEY)
        return -EINVAL;
    if (!(s = vftr_tally_find(t, key)) && !(s = vftr_tally_insert_(t, key)))
        return -ENOMEM;
    s->v.d += delta;             /* a fresh slot's 0 is also +0.0 */
    return 0;
}

/* Sets key's value.  0, -EINVAL, -ENOMEM. */
int vftr_tally_set_i(struct vftr_tally *t, uint64_t key, int64_t value);

/* key's value, 0 when absent. */
static inline int64_t vftr_tally_get_i(const struct vftr_tally *t, uint64_t key)
{
    const struct vftr_tally_slot *s = vftr_tally_find(t, key);

    return s ? s->v.i : 0;
}

static inline double vftr_tally_get_d(const struct vftr_tally *t, uint64_t key)
{
    const struct vftr_tally_slot *s = vftr_tally_find(t, key);

    return s ? s->v.d : 0.0;
}

/*
 * Adds every entry of src, scaled by factor (1 for a plain sum), into dst.
 * _absorb_ does the same for src's sake and empties src, and works in time
 * of the smaller map: when src is the larger one, the two are swapped
 * first.  Integer maps take factor 1 only (the _i variants).  0 or -ENOMEM
 * (dst then holds part of src; src unchanged, except by the swap).
 */
int vftr_tally_merge_i(struct vftr_tally *dst, const struct vftr_tally *src);
int vftr_tally_merge_d(struct vftr_tally *dst, const struct vftr_tally *src, double factor);
int vftr_tally_absorb_i(struct vftr_tally *dst, struct vftr_tally *src);
int vftr_tally_absorb_d(struct vftr_tally *dst, struct vftr_tally *src);

/*
 * Iteration: `size_t pos = 0; const struct vftr_tally_slot *s;
 * while ((s = vftr_tally_next(t, &pos))) ...`.  Adding to the map while
 * iterating invalidates the iteration.
 */
const struct vftr_tally_slot *vftr_tally_next(const struct vftr_tally *t, size_t *pos);

/* Empties the map and keeps its slots for reuse. */
void vftr_tally_clear(struct vftr_tally *t);

/* Empties the map for reuse as a new one: its slots are kept only at the
 * first size (4), where a map fills and iterates exactly as a new one
 * does; a larger map's are freed.  For the analysis's recycled nodes and
 * blocks: no malloc for the common small map, and the same iteration
 * order as without the recycling. */
void vftr_tally_reset(struct vftr_tally *t);
void vftr_tally_release(struct vftr_tally *t);

#endif /* VFTR_MODEL_TALLY_H */
