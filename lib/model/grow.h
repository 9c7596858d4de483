/*
 * grow.h — internal to vftr (lib/model and the tools built with it): the
 * one way vftr's model code grows an array that is appended to one element
 * at a time.  Not an installed header.
 *
 * Usage: `if (vftr_reserve((void **)&v, &cap, n, sizeof *v) < 0) fail;
 * v[n++] = x;` — after a 0 return the array has room for at least n + 1
 * elements.  The capacity doubles (16 first), so n appends cost O(n).
 *
 * Returns 0, or -ENOMEM with *arr and *cap unchanged (the old array stays
 * valid and owned by the caller).  Ownership: the caller owns *arr and frees
 * it with free().  Threads: none of its own.
 */
#ifndef VFTR_MODEL_GROW_H
#define VFTR_MODEL_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* The slow path: doubles the capacity.  Kept apart so that the check below
 * stays small enough to inline at every append. */
static inline int vftr_grow(void **arr, size_t *cap, size_t size)
{
    size_t ncap = *cap ? 2 * *cap : 16;
    void *p;

    if (ncap < *cap || (size && ncap > SIZE_MAX / size))
        return -ENOMEM;
    p = realloc(*arr, ncap * size);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Makes *arr (capacity *cap elements of `size` bytes) hold n + 1 elements. */
static inline int vftr_reserve(void **arr, size_t *cap, size_t n, size_t size)
{
    return n < *cap ? 0 : vftr_grow(arr, cap, size);
}

#endif /* VFTR_MODEL_GROW_H */
