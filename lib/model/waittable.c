/*
 * waittable.c — the wait rows as the tools show them (analysis.h,
 * vftr_analysis_wait_table): one rule for vftr-stats --waits and the
 * report's "Largest waits", so that the two cannot drift apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "source.h"
#include "util/proclist.h"

/* By (pattern, process, path): rows of one identity are merged. */
static int cmp_identity(const void *a, const void *b)
{
    const struct vftr_wait_row *x = a, *y = b;

    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return (x->path > y->path) - (x->path < y->path);
}

int vftr_analysis_wait_table(const struct vftr_analysis *a, struct vftr_source *src,
                             const struct vftr_proclist *sel, int fold,
                             struct vftr_wait_row **rows, size_t *n, uint64_t *total)
{
    size_t nw, k = 0;
    const struct vftr_wait_row *w = vftr_analysis_waits(a, &nw);
    struct vftr_wait_row *v = malloc((nw ? nw : 1) * sizeof *v);

    *rows = NULL;
    *n = 0;
    *total = 0;
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < nw; i++) {
        if (sel && !vftr_proclist_contains(sel, w[i].process))
            continue;
        v[k] = w[i];
        if (fold)
            v[k].process = vftr_source_rank_process(src, w[i].process);
        k++;
    }
    if (k) {
        size_t out = 0;

        qsort(v, k, sizeof *v, cmp_identity);
        for (size_t i = 1; i < k; i++) {
            if (cmp_identity(&v[out], &v[i]) == 0) {
                v[out].time += v[i].time;
                v[out].count += v[i].count;
                if (v[i].max > v[out].max)
                    v[out].max = v[i].max;
            } else {
                v[++out] = v[i];
            }
        }
        k = out + 1;
    }
    for (size_t i = 0; i < k; i++)
        if (v[i].pattern != VFTR_WAIT_LATE_SENDER_WO)     /* a part of Late Sender */
            *total += v[i].time;
    *rows = v;
    *n = k;
    return 0;
}

char *vftr_analysis_path_name(const struct vftr_analysis_path *paths, size_t npaths,
                              uint32_t path, const char *(*fname)(void *arg, uint32_t function),
                              void *arg)
{
    size_t len = 1, at = 0;
    char *s;

    if (path == 0 || path > npaths) {
        if (!(s = strdup(VFTR_ANALYSIS_NO_CALL)))
            errno = ENOMEM;
        return s;
    }
    /* depth bounds the walk: a parent id that loops cannot hang it */
    for (uint32_t p = path, k = 0; p && p <= npaths && k <= npaths; p = paths[p - 1].parent, k++) {
        const char *f = fname(arg, paths[p - 1].function);

        if (!f) {
            errno = EINVAL;
            return NULL;
        }
        len += strlen(f) + 1;
    }
    if (!(s = malloc(len))) {
        errno = ENOMEM;
        return NULL;
    }
    for (uint32_t p = path, k = 0; p && p <= npaths && k <= npaths; p = paths[p - 1].parent, k++) {
        const char *f = fname(arg, paths[p - 1].function);
        size_t fl = strlen(f);

        if (at)
            s[at++] = '<';
        memcpy(s + at, f, fl);
        at += fl;
    }
    s[at] = '\0';
    return s;
}
