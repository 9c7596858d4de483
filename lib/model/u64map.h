/*
 * u64map.h — internal to lib/model: an open-addressing hash map from 64-bit
 * keys to 32-bit indices (into an array the caller owns).  Not a public
 * header of the library.
 *
 * Ownership: the map owns its slots; release with vftr_u64map_release().
 * Threads: none of its own; a map is used by one thread at a time.
 */
#ifndef VFTR_MODEL_U64MAP_H
#define VFTR_MODEL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct vftr_u64map_slot {
    uint64_t key;
    uint32_t value;     /* index + 1; 0 marks a free slot */
};

struct vftr_u64map {
    struct vftr_u64map_slot *slots;
    size_t cap;         /* power of two, or 0 */
    size_t used;
};

#define VFTR_U64MAP_INIT { NULL, 0, 0 }

/* The index stored for key, or -1 when the key is absent. */
long vftr_u64map_get(const struct vftr_u64map *m, uint64_t key);

/* Stores key -> index (index < UINT32_MAX).  0 or -ENOMEM (map unchanged). */
int vftr_u64map_put(struct vftr_u64map *m, uint64_t key, uint32_t index);

void vftr_u64map_release(struct vftr_u64map *m);

#endif /* VFTR_MODEL_U64MAP_H */
