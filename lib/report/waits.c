/*
 * waits.c — the page's "Largest waits" section: the wait analysis of
 * lib/model/analysis.h (Scalasca's patterns: late sender, wait at barrier
 * and N x N, OpenMP barrier waiting, ...) run over the report's source and
 * window, shown as vftr-stats --waits shows it.
 *
 * The rows are vftr-stats --waits's rows by its rules (analyzers/vftr-stats/
 * analysis.c): the processes the report was asked for, threads folded into
 * their rank's process, one row per (pattern, process, call path) with
 * time and count summed and the largest instance kept, pct of the
 * processes' time, call paths named "function<caller<...<root", and the
 * total order time (descending), call path, process, pattern, path id.
 * report_figures.py compares them cell by cell with vftr-stats --waits
 * --json, so that the two cannot drift apart unnoticed.
 *
 * Why the analysis runs only when the trace has synchronisation (an MPI or
 * OpenMP function the analysis classifies, or a message or collective):
 * without one there can be no wait, and a serial trace should not pay a
 * second read.  Such a page has no waits section (and no link to one); a
 * trace with synchronisation but no wait gets a section saying so.
 */
#include "report_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis.h"
#include "util/fmt.h"
#include "model/syncpt.h"

/* Does the trace synchronise anything the analysis looks at? */
static int has_sync(const struct vftr_report *r)
{
    size_t n;
    const struct vftr_source_func *f = vftr_source_funcs(r->src, &n);
    const struct vftr_msg_counts *k = r->msgs ? vftr_messages_counts(r->msgs) : NULL;

    if (k && (k->sends || k->recvs || k->collops))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (f[i].name && vftr_sync_fclass_of_name(f[i].name) != VFTR_SYNC_F_NONE)
            return 1;
    return 0;
}

/* Call paths are named by vftr_analysis_path_name, as vftr-stats names them. */
static const char *function_name(void *arg, uint32_t function)
{
    return rep_token_name(arg, REP_NAME_FUNCTION, function);
}

static int cmp_shown(const void *a, const void *b)
{
    const struct rep_wait *x = a, *y = b;
    int d;

    if (x->time != y->time)
        return x->time < y->time ? 1 : -1;
    if ((d = strcmp(x->name, y->name)))
        return d;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    return (x->path > y->path) - (x->path < y->path);
}

int rep_waits_collect(struct vftr_report *r, const struct vftr_proclist *sel, char *err,
                      size_t errlen)
{
    struct vftr_analysis_opts o = { r->a, r->b, VFTR_ANALYSIS_WAITS, 0, NULL, NULL };
    struct vftr_analysis *an = NULL;
    struct vftr_wait_row *w;
    const struct vftr_analysis_path *paths;
    size_t n, npaths;
    uint64_t total, proc_time;
    struct rep_wait *v;
    int rc;

    if (!has_sync(r))
        return 0;
    if ((rc = vftr_analysis_run(r->src, &o, &an, err, errlen)) < 0)
        return rc;
    paths = vftr_analysis_paths(an, &npaths);
    proc_time = vftr_analysis_summary(an)->proc_time;
    /* the rows of vftr-stats --waits (threads folded into their rank):
     * one rule for both, waittable.c */
    if ((rc = vftr_analysis_wait_table(an, r->src, sel, 1, &w, &n, &total)) < 0) {
        vftr_analysis_free(an);
        return rc;
    }
    if (!(v = calloc(n ? n : 1, sizeof *v))) {
        free(w);
        vftr_analysis_free(an);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (struct rep_wait){ w[i].pattern, w[i].process, w[i].path,
                                  (double)w[i].time / r->res,
                                  proc_time ? 100.0 * (double)w[i].time / (double)proc_time : 0,
                                  (double)w[i].count, (double)w[i].max / r->res, NULL };
    free(w);
    r->wait_proc_time = (double)proc_time / r->res;
    r->wait_total = (double)total / r->res;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].name = vftr_analysis_path_name(paths, npaths, v[i].path, function_name, r))) {
            r->waits = v, r->nwaits = i;      /* freed with the report */
            vftr_analysis_free(an);
            return -ENOMEM;
        }
    }
    vftr_analysis_free(an);
    if (n)
        qsort(v, n, sizeof *v, cmp_shown);
    r->waits = v;
    r->nwaits = n;
    r->have_waits = 1;
    return 0;
}

void rep_waits_free(struct vftr_report *r)
{
    for (size_t i = 0; i < r->nwaits; i++)
        free(r->waits[i].name);
    free(r->waits);
    r->waits = NULL;
    r->nwaits = 0;
}

int rep_waits_html(const struct vftr_report *r, FILE *out)
{
    size_t shown = r->nwaits < REP_MAX_WAITS ? r->nwaits : REP_MAX_WAITS;
    char wt[VFTR_FMT_MAX], pt[VFTR_FMT_MAX], pc[VFTR_FMT_MAX], x[64];

    if (!r->have_waits)
        return 0;
    fputs("<section id=\"waits\">\n<h2>Largest waits</h2>\n", out);
    rep_fmt_time(r, r->wait_total, wt, sizeof wt);
    rep_fmt_time(r, r->wait_proc_time, pt, sizeof pt);
    vftr_fmt_percent(r->wait_proc_time > 0 ? 100.0 * r->wait_total / r->wait_proc_time : 0.0,
                     pc, sizeof pc);
    fprintf(out, "<p id=\"wait-total\" data-wait-s=\"%.9g\" data-process-time-s=\"%.9g\">"
            "waits: %s in all (%s of the processes' %s)%s</p>\n", r->wait_total,
            r->wait_proc_time, wt, pc, pt,
            r->a != 0 || r->b != UINT64_MAX ? " in the window" : "");
    if (r->nwaits == 0) {
        fputs("<p id=\"waits-none\" class=\"ok\">none: no process waited for another "
              "(vftr-stats --waits finds no wait state)</p>\n</section>\n", out);
        return ferror(out) ? -EIO : 1;
    }
    fprintf(out, "<p class=\"hint\">vftr-stats --waits: the wait states (Scalasca's patterns, "
            "see vftr-stats(1)) per pattern, call path and rank, threads folded into their "
            "rank; %s%zu of %zu rows, the largest first; click a column to sort.</p>\n",
            shown < r->nwaits ? "the " : "all ", shown, r->nwaits);
    fprintf(out, "<table class=\"sortable\" id=\"waits-table\" data-listed=\"%zu\" "
            "data-rows=\"%zu\">\n<thead><tr>", shown, r->nwaits);
    rep_th(out, "pattern", "pattern", 0, "the wait state (pattern key)");
    rep_th(out, "time", "time", 1, "time waited, summed over the rank's threads");
    rep_th(out, "pct", "pct", 1, "% of the processes' time");
    rep_th(out, "count", "count", 1, "waits (instances)");
    rep_th(out, "max", "max", 1, "the longest single wait");
    rep_th(out, "process", "process", 1, "the rank's process (token)");
    rep_th(out, "callpath", "call path", 0, "where it waited: function<caller<...<root");
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < shown; i++) {
        const struct rep_wait *w = &r->waits[i];
        const struct vftr_wait_pattern_info *pi = vftr_wait_pattern_info(w->pattern);
        const struct vftr_source_proc *p = vftr_source_proc(r->src, w->process);
        char lab[64] = "";

        if (p)
            rep_proc_label(p, lab, sizeof lab);
        fputs("<tr><td class=\"name\" title=\"", out);
        rep_put_escaped(out, pi->name);
        fputs(": ", out);
        rep_put_escaped(out, pi->help);
        fputs("\">", out);
        rep_put_escaped(out, pi->key);
        fputs("</td>", out);
        rep_exact(w->time, x, sizeof x);
        rep_fmt_time(r, w->time, wt, sizeof wt);
        rep_td_num(out, x, wt);
        rep_exact(w->pct, x, sizeof x);
        vftr_fmt_percent(w->pct, pc, sizeof pc);
        rep_td_num(out, x, pc);
        fprintf(out, "<td>%.0f</td>", w->count);
        rep_exact(w->max, x, sizeof x);
        rep_fmt_time(r, w->max, wt, sizeof wt);
        rep_td_num(out, x, wt);
        fprintf(out, "<td title=\"%s\">%" PRIu32 "</td><td class=\"name\">", lab, w->process);
        rep_put_escaped(out, w->name);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n</section>\n", out);
    return ferror(out) ? -EIO : 1;
}
