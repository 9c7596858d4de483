/*
 * rangelist.c — rank sets "all" / "none" / "0-3,7" (see rangelist.h).
 *
 * A thin layer over proclist.c, which parses, merges, looks up and formats
 * the ranges: this file adds the words "all" and "none", the INT_MAX bound
 * and the int interface of MPI ranks.  A spec is parsed into a scratch list
 * first and moved into the caller's only when all of it was valid, so an
 * error leaves the caller's list untouched.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "rangelist.h"

/* A rank list speaks of ranks, ends at the largest MPI rank, and names its
 * keywords wherever it says what it expected. */
static const struct vftr_proclist_syntax rank_syntax = {
    .noun = "rank list",
    .item = "rank",
    .items = "ranks",
    .expected = "\"all\", \"none\" or items N or N-M, decimal, separated by commas",
    .empty_hint = " (expected \"all\", \"none\" or a list such as \"0-3,7\")",
    .max = INT_MAX,
    .hex_hint = false,
};

void vftr_rangelist_init(struct vftr_rangelist *list)
{
    list->all = false;
    vftr_proclist_init(&list->ranks);
}

void vftr_rangelist_release(struct vftr_rangelist *list)
{
    if (!list)
        return;
    vftr_proclist_release(&list->ranks);
    list->all = false;
}

bool vftr_rangelist_empty(const struct vftr_rangelist *list)
{
    return !list->all && list->ranks.nranges == 0;
}

int vftr_rangelist_add(struct vftr_rangelist *list, int first, int last)
{
    if (first < 0 || first > last)
        return -EINVAL;
    if (list->all)
        return 0;
    return vftr_proclist_add(&list->ranks, (uint32_t)first, (uint32_t)last);
}

int vftr_rangelist_copy(struct vftr_rangelist *dst, const struct vftr_rangelist *src)
{
    int rc = vftr_proclist_copy(&dst->ranks, &src->ranks);

    if (rc == 0)
        dst->all = src->all;
    return rc;
}

bool vftr_rangelist_contains(const struct vftr_rangelist *list, int rank)
{
    if (rank < 0)
        return false;
    return list->all || vftr_proclist_contains(&list->ranks, (uint32_t)rank);
}

/* Whether spec is `word` with optional blanks around it, ignoring case. */
static bool is_keyword(const char *spec, const char *word)
{
    size_t n = strlen(word);

    spec += strspn(spec, " \t");
    if (strncasecmp(spec, word, n) != 0)
        return false;
    return spec[n + strspn(spec + n, " \t")] == '\0';
}

int vftr_rangelist_parse(struct vftr_rangelist *list, const char *spec, char *err, size_t errlen)
{
    struct vftr_proclist ranks = VFTR_PROCLIST_INIT;
    int rc;

    if (!list || !spec)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s: none given", rank_syntax.noun);
    if (is_keyword(spec, "all")) {
        vftr_rangelist_release(list);
        list->all = true;
        return 0;
    }
    if (is_keyword(spec, "none")) {
        vftr_rangelist_release(list);
        return 0;
    }
    if ((rc = vftr_proclist_parse_syntax(&ranks, &rank_syntax, spec, err, errlen)) < 0)
        return rc;
    vftr_rangelist_release(list);
    list->ranks = ranks;
    return 0;
}

size_t vftr_rangelist_format(const struct vftr_rangelist *list, char *buf, size_t size)
{
    if (list->all || list->ranks.nranges == 0) {
        const char *w = list->all ? "all" : "none";
        if (size)
            snprintf(buf, size, "%s", w);
        return strlen(w);
    }
    return vftr_proclist_format(&list->ranks, buf, size);
}
