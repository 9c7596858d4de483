/*
 * proclist.c — parsing and querying of process token sets (see proclist.h).
 *
 * The set is kept as merged ranges rather than a bitmap or an array of
 * tokens: "1-4000000000" is a legitimate request and must not allocate
 * gigabytes.  Parsing collects the new ranges first and merges them into the
 * list only when the whole spec was valid, so an error leaves the caller's
 * list as it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "proclist.h"

#define QUOTE_MAX 64

void vftr_proclist_init(struct vftr_proclist *list)
{
    list->ranges = NULL;
    list->nranges = 0;
}

void vftr_proclist_release(struct vftr_proclist *list)
{
    if (!list)
        return;
    free(list->ranges);
    vftr_proclist_init(list);
}

static int cmp_range(const void *a, const void *b)
{
    const struct vftr_procrange *x = a, *y = b;

    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return (x->last > y->last) - (x->last < y->last);
}

/*
 * Replaces list's ranges by the union of list and add[0..nadd-1].  Builds
 * the result in a new array so that a failed allocation changes nothing.
 */
static int merge_into(struct vftr_proclist *list, const struct vftr_procrange *add, size_t nadd)
{
    size_t n = list->nranges + nadd, out = 0;
    struct vftr_procrange *all;

    if (nadd == 0)
        return 0;
    all = malloc(n * sizeof *all);
    if (!all)
        return -ENOMEM;
    if (list->nranges)
        memcpy(all, list->ranges, list->nranges * sizeof *all);
    memcpy(all + list->nranges, add, nadd * sizeof *all);
    qsort(all, n, sizeof *all, cmp_range);

    for (size_t i = 1; i < n; i++) {
        struct vftr_procrange *cur = &all[out];
        /* Overlapping or adjacent: extend.  The adjacency test is written
         * so that last == UINT32_MAX cannot wrap. */
        if (all[i].first <= cur->last || all[i].first - 1 == cur->last) {
            if (all[i].last > cur->last)
                cur->last = all[i].last;
        } else {
            all[++out] = all[i];
        }
    }
    n = out + 1;

    /* Shrinking never fails in practice; if it does, the larger block is as good. */
    struct vftr_procrange *fit = realloc(all, n * sizeof *all);
    free(list->ranges);
    list->ranges = fit ? fit : all;
    list->nranges = n;
    return 0;
}

int vftr_proclist_add(struct vftr_proclist *list, uint32_t first, uint32_t last)
{
    struct vftr_procrange r = { first, last };

    if (first > last)
        return -EINVAL;
    return merge_into(list, &r, 1);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/*
 * Parses the decimal process token in [s, e) (trimmed).  `spec` is the whole
 * list and only serves the message.
 */
static int parse_token(const char *spec, const char *s, const char *e, uint32_t *out,
                       char *err, size_t errlen)
{
    int slen = (int)strnlen(spec, QUOTE_MAX);
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
    uint64_t v = 0;

    if (s == e)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad process list '%.*s': a range needs a number on both sides of '-'",
                           slen, spec);
    if (e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad process list '%.*s': '%.*s' is hexadecimal; process tokens "
                           "are given in decimal", slen, spec, len, s);
    for (const char *p = s; p < e; p++) {
        if (*p < '0' || *p > '9')
            return vftr_errmsg(err, errlen, -EINVAL,
                               "bad process list '%.*s': '%.*s' is not a process number "
                               "(expected N or N-M, decimal)", slen, spec, len, s);
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > UINT32_MAX)
            return vftr_errmsg(err, errlen, -ERANGE,
                               "bad process list '%.*s': '%.*s' is too large (process tokens "
                               "are at most %" PRIu32 ")", slen, spec, len, s, UINT32_MAX);
    }
    *out = (uint32_t)v;
    return 0;
}

/* Parses one item "N" or "N-M" in [s, e) (trimmed) into *r. */
static int parse_item(const char *spec, const char *s, const char *e, struct vftr_procrange *r,
                      char *err, size_t errlen)
{
    int slen = (int)strnlen(spec, QUOTE_MAX);
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
    /* The separator is a '-' after the first character: a leading '-' is a
     * sign, which parse_token rejects as "not a process number". */
    const char *dash = e - s > 1 ? memchr(s + 1, '-', (size_t)(e - s - 1)) : NULL;
    int rc;

    if (!dash) {
        if ((rc = parse_token(spec, s, e, &r->first, err, errlen)) < 0)
            return rc;
        r->last = r->first;
        return 0;
    }

    const char *as = s, *ae = dash, *bs = dash + 1, *be = e;
    while (ae > as && is_blank(ae[-1]))
        ae--;
    while (bs < be && is_blank(*bs))
        bs++;
    if ((rc = parse_token(spec, as, ae, &r->first, err, errlen)) < 0 ||
        (rc = parse_token(spec, bs, be, &r->last, err, errlen)) < 0)
        return rc;
    if (r->first > r->last)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad process list '%.*s': reversed range '%.*s' (did you mean "
                           "%" PRIu32 "-%" PRIu32 "?)", slen, spec, len, s, r->last, r->first);
    return 0;
}

int vftr_proclist_parse(struct vftr_proclist *list, const char *spec, char *err, size_t errlen)
{
    struct vftr_procrange *items;
    size_t nitems = 1, n = 0, index = 0;
    int slen, rc = 0;

    if (!list || !spec)
        return vftr_errmsg(err, errlen, -EINVAL, "bad process list: none given");
    slen = (int)strnlen(spec, QUOTE_MAX);

    for (const char *p = spec; *p; p++)
        nitems += *p == ',';
    items = malloc(nitems * sizeof *items);
    if (!items)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");

    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        const char *e = comma ? comma : s + strlen(s);
        const char *is = s, *ie = e;

        index++;
        while (is < ie && is_blank(*is))
            is++;
        while (ie > is && is_blank(ie[-1]))
            ie--;
        if (is == ie) {
            if (nitems == 1)
                rc = vftr_errmsg(err, errlen, -EINVAL, "bad process list '%.*s': empty",
                                 slen, spec);
            else
                rc = vftr_errmsg(err, errlen, -EINVAL,
                                 "bad process list '%.*s': item %zu is empty", slen, spec, index);
            break;
        }
        if ((rc = parse_item(spec, is, ie, &items[n], err, errlen)) < 0)
            break;
        n++;
        if (!comma)
            break;
        s = comma + 1;
    }

    if (rc == 0 && (rc = merge_into(list, items, n)) < 0)
        vftr_errmsg(err, errlen, rc, "out of memory");
    free(items);
    return rc;
}

bool vftr_proclist_contains(const struct vftr_proclist *list, uint32_t process)
{
    size_t lo = 0, hi = list->nranges;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (process < list->ranges[mid].first)
            hi = mid;
        else if (process > list->ranges[mid].last)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

uint64_t vftr_proclist_count(const struct vftr_proclist *list)
{
    uint64_t n = 0;

    for (size_t i = 0; i < list->nranges; i++)
        n += (uint64_t)list->ranges[i].last - list->ranges[i].first + 1;
    return n;
}

size_t vftr_proclist_format(const struct vftr_proclist *list, char *buf, size_t size)
{
    size_t total = 0;

    if (size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < list->nranges; i++) {
        const struct vftr_procrange *r = &list->ranges[i];
        char item[32];
        int len;

        if (r->first == r->last)
            len = snprintf(item, sizeof item, "%s%" PRIu32, i ? "," : "", r->first);
        else
            len = snprintf(item, sizeof item, "%s%" PRIu32 "-%" PRIu32, i ? "," : "",
                           r->first, r->last);
        /* Copy what still fits; keep counting the full length regardless. */
        if (total + 1 < size) {
            size_t room = size - 1 - total;
            size_t take = (size_t)len < room ? (size_t)len : room;
            memcpy(buf + total, item, take);
            buf[total + take] = '\0';
        }
        total += (size_t)len;
    }
    return total;
}
