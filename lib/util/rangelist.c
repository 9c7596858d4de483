/*
 * rangelist.c — rank sets "all" / "none" / "0-3,7" (see rangelist.h).
 *
 * Kept as merged ranges, not a bitmap: "0-2000000000" is a legitimate way to
 * say "every rank of any job" and must not allocate.  A spec is parsed into
 * a scratch list first and moved into the caller's only when all of it was
 * valid, so an error leaves the caller's list untouched.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "rangelist.h"

/* Longest piece of user input quoted in a message. */
#define QUOTE_MAX 64

void vftr_rangelist_init(struct vftr_rangelist *list)
{
    list->all = false;
    list->ranges = NULL;
    list->n = 0;
}

void vftr_rangelist_release(struct vftr_rangelist *list)
{
    if (!list)
        return;
    free(list->ranges);
    vftr_rangelist_init(list);
}

bool vftr_rangelist_empty(const struct vftr_rangelist *list)
{
    return !list->all && list->n == 0;
}

static int cmp_range(const void *a, const void *b)
{
    const struct vftr_range *x = a, *y = b;

    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return (x->last > y->last) - (x->last < y->last);
}

int vftr_rangelist_add(struct vftr_rangelist *list, int first, int last)
{
    struct vftr_range *all;
    size_t n, out = 0;

    if (first < 0 || first > last)
        return -EINVAL;
    if (list->all)
        return 0;
    n = list->n + 1;
    all = malloc(n * sizeof *all);
    if (!all)
        return -ENOMEM;
    if (list->n)
        memcpy(all, list->ranges, list->n * sizeof *all);
    all[n - 1] = (struct vftr_range){ first, last };
    qsort(all, n, sizeof *all, cmp_range);

    /* Join overlapping and adjacent ranges; cur->last < INT_MAX is checked
     * before the +1 so that it cannot overflow. */
    for (size_t i = 1; i < n; i++) {
        struct vftr_range *cur = &all[out];
        if (all[i].first <= cur->last || (cur->last < INT_MAX && all[i].first == cur->last + 1)) {
            if (all[i].last > cur->last)
                cur->last = all[i].last;
        } else {
            all[++out] = all[i];
        }
    }
    free(list->ranges);
    list->ranges = all;
    list->n = out + 1;
    return 0;
}

int vftr_rangelist_copy(struct vftr_rangelist *dst, const struct vftr_rangelist *src)
{
    struct vftr_range *r = NULL;

    if (src->n) {
        r = malloc(src->n * sizeof *r);
        if (!r)
            return -ENOMEM;
        memcpy(r, src->ranges, src->n * sizeof *r);
    }
    free(dst->ranges);
    dst->all = src->all;
    dst->ranges = r;
    dst->n = src->n;
    return 0;
}

bool vftr_rangelist_contains(const struct vftr_rangelist *list, int rank)
{
    size_t lo = 0, hi;

    if (rank < 0)
        return false;
    if (list->all)
        return true;
    hi = list->n;
    while (lo < hi) {                  /* first range whose last >= rank */
        size_t mid = lo + (hi - lo) / 2;
        if (list->ranges[mid].last < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < list->n && list->ranges[lo].first <= rank;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* [s, e) with blanks trimmed on both sides. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && is_blank(**s))
        (*s)++;
    while (*e > *s && is_blank((*e)[-1]))
        (*e)--;
}

/* Parses the decimal rank in [s, e) (trimmed, non-empty). */
static int parse_rank(const char *spec, const char *s, const char *e, int *out,
                      char *err, size_t errlen)
{
    int slen = (int)strnlen(spec, QUOTE_MAX);
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
    long long v = 0;

    if (s == e)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad rank list '%.*s': a range needs a number on both sides of '-'",
                           slen, spec);
    for (const char *p = s; p < e; p++) {
        if (*p < '0' || *p > '9')
            return vftr_errmsg(err, errlen, -EINVAL,
                               "bad rank list '%.*s': '%.*s' is not a rank (expected \"all\", "
                               "\"none\" or items N or N-M, decimal, separated by commas)",
                               slen, spec, len, s);
        v = v * 10 + (*p - '0');
        if (v > INT_MAX)
            return vftr_errmsg(err, errlen, -ERANGE,
                               "bad rank list '%.*s': '%.*s' is too large (ranks are at most %d)",
                               slen, spec, len, s, INT_MAX);
    }
    *out = (int)v;
    return 0;
}

/* Parses one trimmed, non-empty item "N" or "N-M" in [s, e). */
static int parse_item(const char *spec, const char *s, const char *e, struct vftr_range *r,
                      char *err, size_t errlen)
{
    int slen = (int)strnlen(spec, QUOTE_MAX);
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
    /* A '-' in first position is a sign, which parse_rank rejects. */
    const char *dash = e - s > 1 ? memchr(s + 1, '-', (size_t)(e - s - 1)) : NULL;
    int rc;

    if (!dash) {
        if ((rc = parse_rank(spec, s, e, &r->first, err, errlen)) < 0)
            return rc;
        r->last = r->first;
        return 0;
    }
    const char *as = s, *ae = dash, *bs = dash + 1, *be = e;
    trim(&as, &ae);
    trim(&bs, &be);
    if ((rc = parse_rank(spec, as, ae, &r->first, err, errlen)) < 0 ||
        (rc = parse_rank(spec, bs, be, &r->last, err, errlen)) < 0)
        return rc;
    if (r->first > r->last)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad rank list '%.*s': reversed range '%.*s' (did you mean %d-%d?)",
                           slen, spec, len, s, r->last, r->first);
    return 0;
}

/* Whether [s, e) is `word`, ignoring case. */
static bool is_word(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - s) == n && strncasecmp(s, word, n) == 0;
}

int vftr_rangelist_parse(struct vftr_rangelist *list, const char *spec, char *err, size_t errlen)
{
    struct vftr_rangelist tmp = VFTR_RANGELIST_INIT;
    const char *s, *e;
    size_t index = 0;
    int slen, rc;

    if (!list || !spec)
        return vftr_errmsg(err, errlen, -EINVAL, "bad rank list: none given");
    slen = (int)strnlen(spec, QUOTE_MAX);
    s = spec;
    e = spec + strlen(spec);
    trim(&s, &e);
    if (is_word(s, e, "all")) {
        vftr_rangelist_release(list);
        list->all = true;
        return 0;
    }
    if (is_word(s, e, "none")) {
        vftr_rangelist_release(list);
        return 0;
    }
    if (s == e)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad rank list '%.*s': empty (expected \"all\", \"none\" or a list "
                           "such as \"0-3,7\")", slen, spec);

    s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        const char *is = s, *ie = comma ? comma : s + strlen(s);
        struct vftr_range r;

        index++;
        trim(&is, &ie);
        if (is == ie) {
            rc = vftr_errmsg(err, errlen, -EINVAL, "bad rank list '%.*s': item %zu is empty",
                             slen, spec, index);
            goto fail;
        }
        if ((rc = parse_item(spec, is, ie, &r, err, errlen)) < 0)
            goto fail;
        if ((rc = vftr_rangelist_add(&tmp, r.first, r.last)) < 0) {
            vftr_errmsg(err, errlen, rc, "out of memory");
            goto fail;
        }
        if (!comma)
            break;
        s = comma + 1;
    }
    vftr_rangelist_release(list);
    *list = tmp;
    return 0;
fail:
    vftr_rangelist_release(&tmp);
    return rc;
}

size_t vftr_rangelist_format(const struct vftr_rangelist *list, char *buf, size_t size)
{
    size_t len = 0;

    if (size)
        buf[0] = '\0';
    if (list->all || list->n == 0) {
        const char *w = list->all ? "all" : "none";
        if (size)
            snprintf(buf, size, "%s", w);
        return strlen(w);
    }
    for (size_t i = 0; i < list->n; i++) {
        const struct vftr_range *r = &list->ranges[i];
        char item[32];
        int k = r->first == r->last ? snprintf(item, sizeof item, "%s%d", i ? "," : "", r->first)
                                    : snprintf(item, sizeof item, "%s%d-%d", i ? "," : "",
                                               r->first, r->last);
        if (len + (size_t)k < size)
            memcpy(buf + len, item, (size_t)k + 1);
        else if (len < size) {
            memcpy(buf + len, item, size - len - 1);
            buf[size - 1] = '\0';
        }
        len += (size_t)k;
    }
    return len;
}
