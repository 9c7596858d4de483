/*
 * proclist.c — parsing and querying of process token sets (see proclist.h).
 *
 * The set is kept as merged ranges rather than a bitmap or an array of
 * tokens: "1-4000000000" is a legitimate request and must not allocate
 * gigabytes.  Parsing collects the new ranges first and merges them into the
 * list only when the whole spec was valid, so an error leaves the caller's
 * list as it was.  The parser takes its words and bound from a struct
 * vftr_proclist_syntax, so that rangelist.c's rank lists share it.
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

int vftr_proclist_copy(struct vftr_proclist *dst, const struct vftr_proclist *src)
{
    struct vftr_procrange *r = NULL;

    if (src->nranges) {
        r = malloc(src->nranges * sizeof *r);
        if (!r)
            return -ENOMEM;
        memcpy(r, src->ranges, src->nranges * sizeof *r);
    }
    free(dst->ranges);
    dst->ranges = r;
    dst->nranges = src->nranges;
    return 0;
}

/* The words of vftr_proclist_parse(): OTF process tokens. */
static const struct vftr_proclist_syntax process_syntax = {
    .noun = "process list",
    .item = "process number",
    .items = "process tokens",
    .expected = "N or N-M, decimal",
    .empty_hint = "",
    .max = UINT32_MAX,
    .hex_hint = true,
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* One parse: the syntax and the whole spec, which messages quote. */
struct parse {
    const struct vftr_proclist_syntax *syn;
    const char *spec;
    int slen;               /* length of spec quoted in messages */
    char *err;
    size_t errlen;
};

/* Parses the decimal number in [s, e) (trimmed). */
static int parse_number(const struct parse *P, const char *s, const char *e, uint32_t *out)
{
    const struct vftr_proclist_syntax *syn = P->syn;
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
    uint64_t v = 0;

    if (s == e)
        return vftr_errmsg(P->err, P->errlen, -EINVAL,
                           "bad %s '%.*s': a range needs a number on both sides of '-'",
                           syn->noun, P->slen, P->spec);
    if (syn->hex_hint && e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return vftr_errmsg(P->err, P->errlen, -EINVAL,
                           "bad %s '%.*s': '%.*s' is hexadecimal; %s are given in decimal",
                           syn->noun, P->slen, P->spec, len, s, syn->items);
    for (const char *p = s; p < e; p++) {
        if (*p < '0' || *p > '9')
            return vftr_errmsg(P->err, P->errlen, -EINVAL,
                               "bad %s '%.*s': '%.*s' is not a %s (expected %s)", syn->noun,
                               P->slen, P->spec, len, s, syn->item, syn->expected);
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > syn->max)
            return vftr_errmsg(P->err, P->errlen, -ERANGE,
                               "bad %s '%.*s': '%.*s' is too large (%s are at most %" PRIu32 ")",
                               syn->noun, P->slen, P->spec, len, s, syn->items, syn->max);
    }
    *out = (uint32_t)v;
    return 0;
}

/* Parses one item "N" or "N-M" in [s, e) (trimmed) into *r. */
static int parse_item(const struct parse *P, const char *s, const char *e,
                      struct vftr_procrange *r)
{
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
    /* The separator is a '-' after the first character: a leading '-' is a
     * sign, which parse_number rejects as "not a number". */
    const char *dash = e - s > 1 ? memchr(s + 1, '-', (size_t)(e - s - 1)) : NULL;
    int rc;

    if (!dash) {
        if ((rc = parse_number(P, s, e, &r->first)) < 0)
            return rc;
        r->last = r->first;
        return 0;
    }

    const char *as = s, *ae = dash, *bs = dash + 1, *be = e;
    while (ae > as && is_blank(ae[-1]))
        ae--;
    while (bs < be && is_blank(*bs))
        bs++;
    if ((rc = parse_number(P, as, ae, &r->first)) < 0 ||
        (rc = parse_number(P, bs, be, &r->last)) < 0)
        return rc;
    if (r->first > r->last)
        return vftr_errmsg(P->err, P->errlen, -EINVAL,
                           "bad %s '%.*s': reversed range '%.*s' (did you mean "
                           "%" PRIu32 "-%" PRIu32 "?)", P->syn->noun, P->slen, P->spec, len, s,
                           r->last, r->first);
    return 0;
}

int vftr_proclist_parse_syntax(struct vftr_proclist *list, const struct vftr_proclist_syntax *syntax,
                               const char *spec, char *err, size_t errlen)
{
    struct parse P = { syntax, spec, 0, err, errlen };
    struct vftr_procrange *items;
    size_t nitems = 1, n = 0, index = 0;
    int rc = 0;

    if (!list || !spec)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s: none given", syntax->noun);
    P.slen = (int)strnlen(spec, QUOTE_MAX);

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
                rc = vftr_errmsg(err, errlen, -EINVAL, "bad %s '%.*s': empty%s", syntax->noun,
                                 P.slen, spec, syntax->empty_hint);
            else
                rc = vftr_errmsg(err, errlen, -EINVAL, "bad %s '%.*s': item %zu is empty",
                                 syntax->noun, P.slen, spec, index);
            break;
        }
        if ((rc = parse_item(&P, is, ie, &items[n])) < 0)
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

int vftr_proclist_parse(struct vftr_proclist *list, const char *spec, char *err, size_t errlen)
{
    return vftr_proclist_parse_syntax(list, &process_syntax, spec, err, errlen);
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
