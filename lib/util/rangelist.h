/*
 * rangelist.h — sets of MPI ranks written as "all", "none" or a list such as
 * "0-3,7,15-23" (the rank lists of vftr's and Vftrace's configuration).
 *
 * Syntax: "all" or "none" (any case, blanks around them allowed), or a
 * comma-separated list of items, each a rank N or an inclusive range N-M,
 * numbers decimal and at most 2147483647 (INT_MAX, the largest MPI rank).
 * Blanks around items and numbers are ignored; duplicates and overlaps are
 * allowed and merged.  Errors: an empty list or item, a sign, anything that
 * is not a decimal number, a reversed range ("4-1"), a number too large.
 *
 * Rules of the structure: when `all` is true the set is every rank >= 0 and
 * `ranks` is empty.  Otherwise `ranks` holds the ranks as a process list of
 * proclist.h (sorted, disjoint, not adjacent ranges, so a set has one
 * representation; no ranges for "none").  A rank list is that engine with
 * "all" and "none" added and numbers bounded by INT_MAX.  The list owns its
 * ranges; release with vftr_rangelist_release().  Reading a list from several
 * threads at once is fine; modifying it is not.
 */
#ifndef VFTR_UTIL_RANGELIST_H
#define VFTR_UTIL_RANGELIST_H

#include <stdbool.h>
#include <stddef.h>

#include "proclist.h"

struct vftr_rangelist {
    bool all;
    struct vftr_proclist ranks;     /* empty when `all` */
};

#define VFTR_RANGELIST_INIT { false, VFTR_PROCLIST_INIT }

/* Makes `list` the empty set ("none"). */
void vftr_rangelist_init(struct vftr_rangelist *list);

/* Frees the ranges and leaves `list` empty.  NULL-safe. */
void vftr_rangelist_release(struct vftr_rangelist *list);

/*
 * Replaces the content of `list` with the set `spec` names.  Returns 0,
 * -EINVAL for a malformed spec, -ERANGE for a number above INT_MAX, -ENOMEM.
 * On error `list` is unchanged and, if err is not NULL, one lower-case line
 * such as "bad rank list '4-1': reversed range '4-1'" is written to it
 * (see errmsg.h).
 */
int vftr_rangelist_parse(struct vftr_rangelist *list, const char *spec, char *err, size_t errlen);

/* Adds first..last (inclusive) to the set.  0, -EINVAL if first > last or
 * first < 0, -ENOMEM (list unchanged).  Adding to an "all" set is a no-op. */
int vftr_rangelist_add(struct vftr_rangelist *list, int first, int last);

/* Makes dst a copy of src (dst's old content is released).  0 or -ENOMEM
 * (dst unchanged). */
int vftr_rangelist_copy(struct vftr_rangelist *dst, const struct vftr_rangelist *src);

/* Whether `rank` is in the set; a negative rank never is.  O(log n). */
bool vftr_rangelist_contains(const struct vftr_rangelist *list, int rank);

/* Whether the set is empty ("none"). */
bool vftr_rangelist_empty(const struct vftr_rangelist *list);

/*
 * Writes the set in canonical form ("all", "none", "0-3,7") to buf, always
 * NUL-terminated if size > 0.  Returns the length of the full text (like
 * snprintf: a value >= size means it was cut).
 */
size_t vftr_rangelist_format(const struct vftr_rangelist *list, char *buf, size_t size);

#endif /* VFTR_UTIL_RANGELIST_H */
