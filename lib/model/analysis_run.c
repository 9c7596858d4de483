/*
 * analysis_run.c — the wait analysis of a trace source in one thread
 * (analysis.h): the source's definitions classified, its events from the
 * start to the window end read once into one extractor (syncpt.h), the
 * records put into the canonical order and analysed as they come.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_impl.h"
#include "source.h"
#include "util/errmsg.h"

int vftr_syncdefs_from_source(struct vftr_syncdefs *d, const struct vftr_source *s)
{
    size_t n;
    const struct vftr_source_func *f = vftr_source_funcs(s, &n);
    const struct vftr_source_proc *p;
    const struct vftr_source_name *o;
    const struct vftr_source_comm *c;
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++)
        rc = vftr_syncdefs_add_func(d, f[i].token, f[i].name);
    o = vftr_source_collops(s, &n);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = vftr_syncdefs_add_collop(d, o[i].token, o[i].name);
    p = vftr_source_procs(s, &n);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = vftr_syncdefs_add_proc(d, p[i].token,
                                    vftr_source_rank_process((void *)s, p[i].token), p[i].rank,
                                    p[i].thread);
    c = vftr_source_comms(s, &n);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = vftr_syncdefs_add_comm(d, c[i].token, c[i].n, c[i].procs);
    d->peer_ranks = vftr_source_peer_ranks(s) != NULL;
    return rc;
}

void vftr_analysis_errmsg(const struct vftr_analysis *a, int rc, const char *when, char *err,
                          size_t errlen)
{
    const char *w = a ? vftr_analysis_why(a) : "";

    if (rc == -ENOMEM)
        vftr_errmsg(err, errlen, rc, "wait analysis: out of memory");
    else if (w[0])
        vftr_errmsg(err, errlen, rc, "wait analysis: %s", w);
    else {
        char e[64];

        snprintf(e, sizeof e, "%s", strerror(-rc));
        e[0] = (char)tolower((unsigned char)e[0]);      /* messages are lower-case */
        vftr_errmsg(err, errlen, rc, "wait analysis %s: %s", when, e);
    }
}

int vftr_analysis_run(struct vftr_source *s, const struct vftr_analysis_opts *opts,
                      struct vftr_analysis **out, char *err, size_t errlen)
{
    struct vftr_syncdefs defs = VFTR_SYNCDEFS_INIT;
    struct vftr_analysis *a = NULL;
    struct vftr_syncsort *sort = NULL;
    struct vftr_syncx *x = NULL;
    struct vftr_window_stats st = { 0 };
    uint64_t b = opts->b > opts->a ? opts->b : UINT64_MAX;
    /* a wait under way at b is known at its end: read on until the calls
     * open at b are over (the critical path is the one at b: no further) */
    int lookahead = b != UINT64_MAX &&
                    !(opts->what & (VFTR_ANALYSIS_CRITPATH | VFTR_ANALYSIS_SEGMENTS));
    int rc;

    *out = NULL;
    if ((rc = vftr_syncdefs_from_source(&defs, s)) < 0 ||
        !(a = vftr_analysis_new(&defs, opts)) ||
        !(sort = vftr_syncsort_new(vftr_analysis_feed, a))) {
        rc = -ENOMEM;
        goto fail;
    }
    struct vftr_syncx_opts xo = {
        opts->a, b, (opts->what & (VFTR_ANALYSIS_CRITPATH | VFTR_ANALYSIS_DELAYS |
                                   VFTR_ANALYSIS_SEGMENTS)) != 0,
        lookahead, 0, vftr_syncsort_push, sort,
    };
    if (!(x = vftr_syncx_new(vftr_analysis_defs(a), &xo)) ||
        vftr_analysis_add_stream(a, 0, vftr_syncx_pathdef, x) < 0) {
        rc = -ENOMEM;
        goto fail;
    }
    rc = vftr_source_read(s, 0, lookahead ? UINT64_MAX : b, NULL, VFTR_SOURCE_EVENTS_ONLY,
                          vftr_syncx_handler(x), &st, err, errlen);
    if (rc == VFTR_SYNCX_DONE)
        rc = 0;
    if (rc > 0)
        rc = -EIO;
    if (rc < 0) {
        if (err && errlen && !err[0])
            vftr_analysis_errmsg(a, rc, "reading the trace", err, errlen);
        goto out;
    }
    if ((rc = vftr_syncx_finish(x)) < 0 || (rc = vftr_syncsort_flush(sort)) < 0 ||
        (rc = vftr_analysis_finish(a)) < 0) {
        vftr_analysis_errmsg(a, rc, "at the trace's end", err, errlen);
        goto out;
    }
    *out = a;
    a = NULL;
    goto out;
fail:
    vftr_errmsg(err, errlen, rc, "out of memory");
out:
    vftr_syncdefs_release(&defs);
    vftr_syncx_free(x);
    vftr_syncsort_free(sort);
    vftr_analysis_free(a);
    return rc;
}
