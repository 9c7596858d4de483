/*
 * proclist.h — sets of OTF process tokens given on the command line.
 *
 * Syntax: a comma-separated list of items, each a process token N or an
 * inclusive range N-M, all numbers decimal (the numbers OTF tools print, not
 * the hex of the trace files): "1-4,9", "3", "0-7, 16-23".  Blanks around
 * items and numbers are ignored; duplicates and overlaps are allowed and
 * merged.  Errors: an empty list or item, anything that is not a decimal
 * number (including "0x10", "-3", "1-"), a reversed range ("4-1"), a number
 * above 4294967295.
 *
 * Rules of the structure: `ranges` holds `nranges` ranges sorted by
 * `first`, pairwise disjoint and not adjacent (1-4 and 5-9 are stored as
 * 1-9), so the set has exactly one representation.  `ranges` is NULL when
 * the set is empty.  The list owns `ranges`; release with
 * vftr_proclist_release().  A list is not shared between threads while it
 * is modified; reading it from several threads is fine.
 *
 * This is vftr's one engine for sets of sorted disjoint ranges: other set
 * syntaxes (the rank lists of rangelist.h) describe their words and bound in
 * a struct vftr_proclist_syntax and parse through
 * vftr_proclist_parse_syntax() instead of writing the parser again.
 */
#ifndef VFTR_UTIL_PROCLIST_H
#define VFTR_UTIL_PROCLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vftr_procrange {
    uint32_t first;
    uint32_t last;      /* inclusive */
};

struct vftr_proclist {
    struct vftr_procrange *ranges;
    size_t nranges;
};

#define VFTR_PROCLIST_INIT { NULL, 0 }

/* Makes `list` the empty set. */
void vftr_proclist_init(struct vftr_proclist *list);

/* Frees the ranges and leaves `list` empty (initialised).  NULL-safe. */
void vftr_proclist_release(struct vftr_proclist *list);

/*
 * Adds the processes that `spec` names (syntax above) to `list`, so that
 * repeated options accumulate.  Returns 0; -EINVAL for a malformed spec,
 * -ERANGE for a number above 4294967295, -ENOMEM.  On error `list` is
 * unchanged and, if err is not NULL, a message such as
 * "bad process list '4-1': reversed range '4-1' (did you mean 1-4?)" is
 * written to it (see errmsg.h).
 */
int vftr_proclist_parse(struct vftr_proclist *list, const char *spec, char *err, size_t errlen);

/*
 * The vocabulary of one range-list syntax: the words its messages use and the
 * largest number it allows.  The grammar (items N or N-M, decimal, separated
 * by commas, blanks ignored) is the same for all.  Strings are static text,
 * borrowed for as long as the syntax is used.
 */
struct vftr_proclist_syntax {
    const char *noun;       /* "process list": "bad process list '...': ..." */
    const char *item;       /* "process number": "'x' is not a process number" */
    const char *items;      /* "process tokens": "(process tokens are at most N)" */
    const char *expected;   /* "N or N-M, decimal": "(expected ...)" after a bad item */
    const char *empty_hint; /* follows "empty" for a blank spec: "" or " (expected ...)" */
    uint32_t max;           /* largest number; above it -ERANGE */
    bool hex_hint;          /* "0x10" is told "is hexadecimal; <items> are given in decimal" */
};

/*
 * vftr_proclist_parse() for another syntax: the same grammar, merging and
 * error rules, with the words and bound of `syntax` (not NULL).
 */
int vftr_proclist_parse_syntax(struct vftr_proclist *list, const struct vftr_proclist_syntax *syntax,
                               const char *spec, char *err, size_t errlen);

/* Adds the range first..last (inclusive).  Returns 0, -EINVAL if
 * first > last, -ENOMEM (list unchanged). */
int vftr_proclist_add(struct vftr_proclist *list, uint32_t first, uint32_t last);

/* Makes dst a copy of src (dst's old ranges are released).  0 or -ENOMEM
 * (dst unchanged). */
int vftr_proclist_copy(struct vftr_proclist *dst, const struct vftr_proclist *src);

/* Whether `process` is in the set.  O(log nranges). */
bool vftr_proclist_contains(const struct vftr_proclist *list, uint32_t process);

/* Number of processes in the set (up to 2^32). */
uint64_t vftr_proclist_count(const struct vftr_proclist *list);

/*
 * Writes the set in canonical form ("1-4,9"; "" for the empty set) to buf,
 * always NUL-terminated if size > 0.  Returns the length of the full text
 * (like snprintf: a value >= size means it was cut).
 */
size_t vftr_proclist_format(const struct vftr_proclist *list, char *buf, size_t size);

#endif /* VFTR_UTIL_PROCLIST_H */
