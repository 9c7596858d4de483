/*
 * html.c — the report as one self-contained page: the style, the script and
 * every chart inline, no request leaves the page (no font, no script, no
 * image from elsewhere), so it opens offline from a file share.
 *
 * The tables are written out in full in the HTML (the page reads without
 * its script; the script only sorts, filters, and draws the timeline from
 * the JSON block it is given).  Their cells show vftr-stats's figures as
 * its text output prints them (times in the unit that fits, percentages
 * and the imbalance with one decimal) and keep each figure in a data-v
 * attribute, whole (rep_exact; "-" where vftr-stats writes null): the
 * script sorts by it, and a test formats it as vftr-stats --json does and
 * compares the two as text (rep_td_num).
 */
#include "report_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/fmt.h"

/* ------------------------------------------------------------ numbers */

size_t rep_exact(double v, char *buf, size_t size)
{
    int n = 0;

    /* the fewest significant digits that read back as v: a figure of whole
     * ticks at a decimal resolution is short ("0.3"), any other exact */
    for (int digits = 15; digits <= 17; digits++) {
        n = snprintf(buf, size, "%.*g", digits, v);
        if (n < 0 || (size_t)n >= size || strtod(buf, NULL) == v)
            break;
    }
    return n < 0 ? 0 : (size_t)n;
}

void rep_td_num(FILE *out, const char *exact, const char *shown)
{
    fputs("<td data-v=\"", out);
    rep_put_escaped(out, exact);
    fputs("\">", out);
    rep_put_escaped(out, shown);
    fputs("</td>", out);
}

void rep_fmt_time(const struct vftr_report *r, double seconds, char *buf, size_t size)
{
    if (r->info->resolution)
        vftr_fmt_seconds(seconds, buf, size);
    else
        snprintf(buf, size, "%.0f ticks", seconds);
}

/* ------------------------------------------------------------ profile columns */

enum colkind { COL_NAME, COL_COUNT, COL_SECONDS, COL_PERCENT, COL_RATIO };

struct pcol {
    const char *key;          /* vftr-stats's column key (--sort, CSV, JSON) */
    const char *header;
    enum colkind kind;
    double (*value)(const struct rep_prow *, const struct rep_table *, double res);
    const char *help;
};

/* A value below 0 is unknown (calls of a sampled capture's functions). */
static double v_calls(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t, (void)res;
    return r->exact ? (double)r->p->calls : -1;
}
static double v_excl(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t;
    return (double)r->p->excl / res;
}
static double v_incl(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t;
    return (double)r->p->incl / res;
}
static double v_excl_pct(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)res;
    return t->prof.total ? 100.0 * (double)r->p->excl / (double)t->prof.total : 0;
}
static double v_incl_pct(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)res;
    return t->prof.total ? 100.0 * (double)r->p->incl / (double)t->prof.total : 0;
}
static double v_per_call(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t;
    if (!r->exact)
        return -1;
    return r->p->calls ? (double)r->p->incl / res / (double)r->p->calls : 0;
}
static double v_min(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t;
    return (double)r->p->excl_min / res;
}
static double v_avg(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t;
    return r->p->excl_avg / res;
}
static double v_max(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t;
    return (double)r->p->excl_max / res;
}
static double v_imbalance(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t, (void)res;
    return r->p->imbalance;
}
static double v_procs(const struct rep_prow *r, const struct rep_table *t, double res)
{
    (void)t, (void)res;
    return r->p->nprocs;
}

static const struct pcol pcols[] = {
    { "calls", "calls", COL_COUNT, v_calls, "number of calls (enters in the window)" },
    { "excl", "excl", COL_SECONDS, v_excl, "exclusive time, summed over processes" },
    { "excl_pct", "excl %", COL_PERCENT, v_excl_pct, "exclusive time, % of the total" },
    { "incl", "incl", COL_SECONDS, v_incl, "inclusive time, summed over processes" },
    { "incl_pct", "incl %", COL_PERCENT, v_incl_pct, "inclusive time, % of the total" },
    { "per_call", "incl/call", COL_SECONDS, v_per_call, "inclusive time per call" },
    { "min", "min", COL_SECONDS, v_min, "least exclusive time of one rank" },
    { "avg", "avg", COL_SECONDS, v_avg, "average exclusive time per rank" },
    { "max", "max", COL_SECONDS, v_max, "most exclusive time of one rank" },
    { "imbalance", "imbalance", COL_RATIO, v_imbalance, "(max - avg) / max" },
    { "procs", "ranks", COL_COUNT, v_procs, "ranks that called it" },
    { "function", "name", COL_NAME, NULL, "name" },
};
#define NPCOLS (sizeof pcols / sizeof pcols[0])

/* A profile cell: its figure (exact, rep_exact) and the text vftr-stats's
 * text output prints for it (shown). */
static void format_cell(char *exact, char *shown, size_t size, const struct pcol *c,
                        const struct rep_prow *row, const struct rep_table *t,
                        const struct vftr_report *r)
{
    double v = c->value(row, t, r->res);

    if (v < 0) {
        snprintf(exact, size, "-");
        snprintf(shown, size, "-");
        return;
    }
    rep_exact(v, exact, size);
    switch (c->kind) {
    case COL_COUNT: snprintf(shown, size, "%.0f", v); break;
    case COL_SECONDS: rep_fmt_time(r, v, shown, size); break;
    case COL_PERCENT: vftr_fmt_percent(v, shown, size); break;
    default: vftr_fmt_imbalance(v, shown, size); break;
    }
}

/* A sortable table header: data-type tells the script how to compare. */
void rep_th(FILE *out, const char *key, const char *text, int numeric, const char *help)
{
    fprintf(out, "<th scope=\"col\" data-key=\"%s\" data-type=\"%s\"", key,
            numeric ? "num" : "text");
    if (help) {
        fputs(" title=\"", out);
        rep_put_escaped(out, help);
        fputc('"', out);
    }
    fputs("><button type=\"button\">", out);
    rep_put_escaped(out, text);
    fputs("</button></th>", out);
}

static void profile_table(FILE *out, const struct vftr_report *r, const struct rep_table *t,
                          const char *id, const char *what)
{
    char exact[64], shown[64];

    fprintf(out, "<table class=\"sortable profile\" id=\"%s\">\n<thead><tr>", id);
    for (size_t i = 0; i < NPCOLS; i++) {
        const char *h = pcols[i].kind == COL_NAME ? what : pcols[i].header;

        rep_th(out, pcols[i].key, h, pcols[i].kind != COL_NAME, pcols[i].help);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t k = 0; k < t->prof.nrows; k++) {
        const struct rep_prow *row = &t->rows[k];

        fprintf(out, "<tr data-kind=\"%s\">", rep_kind_name(row->kind));
        for (size_t i = 0; i < NPCOLS; i++) {
            if (pcols[i].kind == COL_NAME) {
                fputs("<td class=\"name\">", out);
                rep_put_escaped(out, row->name);
                fputs("</td>", out);
                continue;
            }
            format_cell(exact, shown, sizeof exact, &pcols[i], row, t, r);
            rep_td_num(out, exact, shown);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

/* ------------------------------------------------------------ sections */

static void human_bytes(char *buf, size_t size, uint64_t b)
{
    if (b >= (1u << 30))
        snprintf(buf, size, "%.1f GiB", (double)b / (1u << 30));
    else if (b >= (1u << 20))
        snprintf(buf, size, "%.1f MiB", (double)b / (1u << 20));
    else if (b >= 1024)
        snprintf(buf, size, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, size, "%" PRIu64 " B", b);
}

static void fact(FILE *out, const char *key, const char *label, const char *value)
{
    fprintf(out, "<tr data-key=\"%s\"><th scope=\"row\">", key);
    rep_put_escaped(out, label);
    fputs("</th><td>", out);
    rep_put_escaped(out, value);
    fputs("</td></tr>\n", out);
}

/* A fact that is a figure: shown as people read it, exact in data-v. */
static void fact_num(FILE *out, const char *key, const char *label, const char *exact,
                     const char *shown)
{
    fprintf(out, "<tr data-key=\"%s\"><th scope=\"row\">", key);
    rep_put_escaped(out, label);
    fputs("</th>", out);
    rep_td_num(out, exact, shown);
    fputs("</tr>\n", out);
}

static const char *kind_format(enum vftr_source_kind k)
{
    return k == VFTR_SOURCE_OTF ? "OTF" : k == VFTR_SOURCE_OTF2 ? "OTF2" : ".vfd run";
}

static void section_summary(FILE *out, const struct vftr_report *r)
{
    const struct vftr_source_info *in = r->info;
    char v[256], b[64], x[64];
    double kind_excl[REP_NKINDS] = { 0 }, total = (double)r->groups.prof.total;
    size_t nthreads = 0;

    for (size_t i = 0; i < r->nranks; i++)
        if (r->ranks[i].nthreads > nthreads)
            nthreads = r->ranks[i].nthreads;
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"facts\" id=\"facts\">\n",
          out);
    fact(out, "trace", "trace", in->name);
    fact(out, "format", "format", kind_format(in->kind));
    snprintf(v, sizeof v, "%zu", r->nranks);
    fact(out, "ranks", "ranks", v);
    snprintf(v, sizeof v, "%zu (at most %zu per rank)", r->nprocs, nthreads);
    fact(out, "processes", "processes (ranks and their threads)", v);
    {   /* from the first event (or the window's start) to the last (or its end) */
        uint64_t end = r->b < in->last ? r->b : in->last;
        double d = in->have_events && end > r->t0 ? (double)(end - r->t0) / r->res : 0.0;

        rep_exact(d, x, sizeof x);
        rep_fmt_time(r, d, v, sizeof v);
    }
    fact_num(out, "duration", "duration", x, v);
    if (in->resolution)
        snprintf(v, sizeof v, "%" PRIu64 " ticks per second", in->resolution);
    else
        snprintf(v, sizeof v, "not given (times are ticks)");
    fact(out, "resolution", "timer resolution", v);
    snprintf(v, sizeof v, "%" PRIu64, r->events);
    fact(out, "events", "events read", v);
    human_bytes(b, sizeof b, r->trace_bytes);
    snprintf(v, sizeof v, "%s (%" PRIu64 " bytes)", b, r->trace_bytes);
    fact(out, "size", "trace size on disk", v);
    rep_exact((double)r->funcs.prof.total / r->res, x, sizeof x);
    rep_fmt_time(r, (double)r->funcs.prof.total / r->res, v, sizeof v);
    fact_num(out, "total", "total exclusive time (all processes)", x, v);
    if (in->sample_interval > 0) {
        snprintf(v, sizeof v, "%g s", in->sample_interval);
        fact(out, "sampled", "sampled capture, interval", v);
    }
    fputs("</table>\n", out);

    /* user / MPI / OpenMP / I/O: the group table's exclusive times by kind */
    for (size_t i = 0; i < r->groups.prof.nrows; i++)
        kind_excl[r->groups.rows[i].kind] += (double)r->groups.rows[i].p->excl;
    fputs("<h3>Where the time goes</h3>\n<table class=\"kinds\" id=\"kinds\"><thead><tr>"
          "<th scope=\"col\">kind</th><th scope=\"col\">exclusive</th>"
          "<th scope=\"col\">%</th></tr></thead><tbody>\n", out);
    for (int k = 0; k < REP_NKINDS; k++) {
        double pct = total > 0 ? 100.0 * kind_excl[k] / total : 0.0;

        if (k == REP_OTHER && kind_excl[k] == 0)
            continue;
        fprintf(out, "<tr data-kind=\"%s\"><td class=\"name\"><span class=\"swatch\" style=\"background:%s\">"
                "</span>%s</td>", rep_kind_name(k), rep_kind_colour(k), rep_kind_name(k));
        rep_exact(kind_excl[k] / r->res, x, sizeof x);
        rep_fmt_time(r, kind_excl[k] / r->res, b, sizeof b);
        rep_td_num(out, x, b);
        rep_exact(pct, x, sizeof x);
        vftr_fmt_percent(pct, b, sizeof b);
        rep_td_num(out, x, b);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n<h3>Function groups</h3>\n", out);
    profile_table(out, r, &r->groups, "groups-table", "group");
    rep_svg_chart(r, VFTR_REPORT_CHART_GROUPS, out, 0);

    fputs("<h3>Warnings</h3>\n", out);
    if (r->nwarnings == 0) {
        fputs("<p id=\"warnings\" class=\"ok\">none: the tools found nothing to warn about</p>\n",
              out);
    } else {
        fputs("<ul id=\"warnings\" class=\"warn\">\n", out);
        for (size_t i = 0; i < r->nwarnings; i++) {
            fputs("<li>", out);
            rep_put_escaped(out, r->warnings[i]);
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
    fputs("</section>\n", out);
}

/* The timeline's data for the script: rows, the functions it shows, their
 * groups, and the runs of every level. */
static int timeline_json(FILE *out, const struct vftr_report *r)
{
    size_t nf = 0, ng;
    const struct vftr_source_func *fs = vftr_source_funcs(r->src, &nf);
    const struct vftr_source_name *gs = vftr_source_groups(r->src, &ng);
    uint32_t *idx = calloc(nf ? nf : 1, sizeof *idx);    /* function index -> JSON index */
    uint32_t next = 1;
    char lab[64];

    if (!idx)
        return -ENOMEM;
    for (int L = 0; L < r->nlevels; L++)               /* the functions shown, by token */
        for (size_t i = 0; i < r->nprocs; i++)
            for (size_t j = 0; j < r->levels[L].rows[i].n; j++) {
                const struct vftr_source_func *f;
                uint32_t fn = r->levels[L].rows[i].v[j].fn;

                if (fn && (f = vftr_source_func(r->src, fn)))
                    idx[f - fs] = 1;
            }
    for (size_t i = 0; i < nf; i++)
        if (idx[i])
            idx[i] = next++;
    fprintf(out, "<script type=\"application/json\" id=\"vftr-timeline\">{\"t0\":%" PRIu64
            ",\"t1\":%" PRIu64 ",\"res\":%.17g,\"first\":%" PRIu64 ",\"rows\":[",
            r->t0, r->t1, r->res, r->info->first);
    for (size_t i = 0; i < r->nprocs; i++) {
        rep_proc_label(r->procs[i], lab, sizeof lab);
        if (i)
            fputc(',', out);
        rep_put_json_string(out, lab);
    }
    fputs("],\"groups\":[", out);
    for (size_t i = 0; i < ng; i++) {
        fputs(i ? ",[" : "[", out);
        rep_put_json_string(out, gs[i].name);
        fprintf(out, ",\"%s\"]", rep_group_colour(r, gs[i].token));
    }
    fputs("],\"funcs\":[null", out);
    for (size_t i = 0; i < nf; i++) {
        long g = -1;

        if (!idx[i])
            continue;
        for (size_t k = 0; k < ng; k++)
            if (gs[k].token == fs[i].group)
                g = (long)k;
        fputs(",[", out);
        rep_put_json_string(out, fs[i].name);
        fprintf(out, ",%ld]", g);
    }
    fputs("],\"levels\":[", out);
    for (int L = 0; L < r->nlevels; L++) {
        fprintf(out, "%s{\"n\":%" PRIu64 ",\"runs\":[", L ? "," : "", r->levels[L].nbins);
        for (size_t i = 0; i < r->nprocs; i++) {
            const struct rep_runs *rr = &r->levels[L].rows[i];

            fputs(i ? ",[" : "[", out);
            for (size_t j = 0; j < rr->n; j++) {
                const struct vftr_source_func *f = rr->v[j].fn ? vftr_source_func(r->src, rr->v[j].fn)
                                                               : NULL;

                fprintf(out, "%s%" PRIu32 ",%" PRIu32, j ? "," : "", rr->v[j].len,
                        f ? idx[f - fs] : 0);
            }
            fputc(']', out);
        }
        fputs("]}", out);
    }
    fputs("]}</script>\n", out);
    free(idx);
    return 0;
}

static int section_timeline(FILE *out, const struct vftr_report *r)
{
    int rc = 0;

    fputs("<section id=\"timeline\">\n<h2>Timeline</h2>\n", out);
    if (!r->have_timeline) {
        fputs("<p class=\"empty\">no events to draw</p>\n</section>\n", out);
        return 0;
    }
    fputs("<p class=\"hint\">Each row is a process (a rank, or one of its threads); the colour is "
          "the group of the function on top of its stack (the one longest there within each "
          "pixel).  Wheel or the buttons zoom, dragging pans, hovering names the function.</p>\n"
          "<div class=\"controls\" role=\"toolbar\" aria-label=\"timeline\">"
          "<button type=\"button\" id=\"tl-zoom-in\" title=\"zoom in\">zoom in</button>"
          "<button type=\"button\" id=\"tl-zoom-out\" title=\"zoom out\">zoom out</button>"
          "<button type=\"button\" id=\"tl-left\" title=\"pan left\">&#8592;</button>"
          "<button type=\"button\" id=\"tl-right\" title=\"pan right\">&#8594;</button>"
          "<button type=\"button\" id=\"tl-reset\" title=\"the whole run\">whole run</button>"
          "<span id=\"tl-range\" aria-live=\"polite\"></span></div>\n"
          "<div class=\"tl-wrap\"><canvas id=\"tl-canvas\" height=\"200\"></canvas>"
          "<div id=\"tl-tip\" role=\"tooltip\" hidden></div></div>\n"
          "<div id=\"tl-legend\" class=\"legend\"></div>\n", out);
    rc = timeline_json(out, r);
    fputs("</section>\n", out);
    return rc;
}

static void section_profile(FILE *out, const struct vftr_report *r)
{
    fputs("<section id=\"profile\">\n<h2>Profile</h2>\n<p class=\"hint\">vftr-stats's function "
          "profile: threads folded into their rank; click a column to sort (again to reverse); "
          "the filter takes a regular expression.</p>\n<p><label for=\"profile-filter\">filter "
          "by name </label><input type=\"search\" id=\"profile-filter\" "
          "data-table=\"profile-table\" placeholder=\"regular expression\" size=\"30\"> "
          "<span id=\"profile-count\"></span></p>\n", out);
    profile_table(out, r, &r->funcs, "profile-table", "function");
    rep_svg_chart(r, VFTR_REPORT_CHART_PROFILE, out, 0);
    fputs("</section>\n", out);
}

/* The call tree lists at most this many paths: the heaviest (by inclusive
 * time), each with its ancestors, in vftr-stats --callpath's order. */
#define MAX_TREE_NODES 4000

static int cmp_u64_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x < y) - (x > y);
}

/* Which of the tree's rows are listed: all of them, or those with at least
 * the inclusive time of the MAX_TREE_NODES-th heaviest whose parent is
 * listed, up to MAX_TREE_NODES.  *min_incl gets that bound (0: all). */
static unsigned char *tree_selection(const struct vftr_report *r, uint64_t *min_incl, size_t *n)
{
    size_t np;
    const struct vftr_pathstat *ps = vftr_replay_paths(r->paths, &np);
    unsigned char *sel = calloc(r->ntree ? r->ntree : 1, 1), *on = calloc(np + 1, 1);
    uint64_t *incl = NULL;

    *min_incl = 0;
    *n = 0;
    if (!sel || !on)
        goto fail;
    if (r->ntree > MAX_TREE_NODES) {
        if (!(incl = malloc(r->ntree * sizeof *incl)))
            goto fail;
        for (size_t i = 0; i < r->ntree; i++)
            incl[i] = r->tree[i].p->incl;
        qsort(incl, r->ntree, sizeof *incl, cmp_u64_desc);
        *min_incl = incl[MAX_TREE_NODES - 1];
        if (*min_incl == 0)
            *min_incl = 1;
        free(incl);
    }
    for (size_t i = 0; i < r->ntree && *n < MAX_TREE_NODES; i++) {
        const struct vftr_pathstat *p = r->tree[i].p;

        if (p->incl < *min_incl || (p->parent && !on[p->parent]))
            continue;
        sel[i] = 1;
        on[p - ps + 1] = 1;
        (*n)++;
    }
    free(on);
    return sel;
fail:
    free(sel);
    free(on);
    return NULL;
}

static int section_calltree(FILE *out, const struct vftr_report *r)
{
    size_t open = 0, shown, last = 0;
    uint64_t min_incl;
    unsigned char *sel = tree_selection(r, &min_incl, &shown);
    uint32_t *stack = calloc(r->ntree ? r->ntree : 1, sizeof *stack);   /* open depths */

    if (!sel || !stack) {
        free(sel);
        free(stack);
        return -ENOMEM;
    }
    fputs("<section id=\"calltree\">\n<h2>Call tree</h2>\n", out);
    rep_svg_chart(r, VFTR_REPORT_CHART_CALLTREE, out, 0);
    fputs("<p class=\"hint\">vftr-stats --callpath: calls, exclusive and inclusive time per call "
          "path, summed over processes; children by inclusive time.  Click a path to open or "
          "close it.</p>\n", out);
    if (shown < r->ntree) {
        char least[VFTR_FMT_MAX];

        rep_fmt_time(r, (double)min_incl / r->res, least, sizeof least);
        fprintf(out, "<p class=\"warn\">%zu of %zu call paths listed: those with at least %s "
                "inclusive time (and their callers).  vftr-stats --callpath prints them all.</p>\n",
                shown, r->ntree, least);
    }
    fprintf(out, "<div class=\"tree-head\"><span>calls</span><span>excl</span>"
            "<span>incl</span><span>call path</span></div>\n<ul class=\"tree\" id=\"tree\" "
            "data-paths=\"%zu\" data-listed=\"%zu\">\n", r->ntree, shown);
    for (size_t i = 0; i < r->ntree; i++)
        if (sel[i])
            last = i;
    for (size_t i = 0; i < r->ntree; i++) {
        const struct rep_path *t = &r->tree[i];
        const struct vftr_pathstat *p = t->p;
        const struct vftr_source_func *f;
        size_t next = i + 1;
        int parent;
        char calls[32], excl[VFTR_FMT_MAX], incl[VFTR_FMT_MAX], xe[32], xi[32];

        if (!sel[i])
            continue;
        while (next <= last && !sel[next])
            next++;
        parent = next <= last && r->tree[next].p->depth > p->depth;
        while (open && stack[open - 1] >= p->depth) {
            fputs("</ul></details></li>\n", out);
            open--;
        }
        f = vftr_source_func(r->src, p->function);
        if (t->exact)
            snprintf(calls, sizeof calls, "%" PRIu64, p->calls);
        else
            snprintf(calls, sizeof calls, "-");
        rep_fmt_time(r, (double)p->excl / r->res, excl, sizeof excl);
        rep_fmt_time(r, (double)p->incl / r->res, incl, sizeof incl);
        rep_exact((double)p->excl / r->res, xe, sizeof xe);
        rep_exact((double)p->incl / r->res, xi, sizeof xi);
        fprintf(out, "<li data-depth=\"%" PRIu32 "\">%s<span class=\"row\"><span class=\"c\">%s"
                "</span><span class=\"c\" data-v=\"%s\">%s</span><span class=\"c\" "
                "data-v=\"%s\">%s</span><span class=\"n\" style=\"border-color:%s;"
                "margin-left:%.1fem\">", p->depth,
                !parent ? "" : p->depth <= 2 ? "<details open><summary>" : "<details><summary>",
                calls, xe, excl, xi, incl,
                rep_group_colour(r, f ? f->group : 0),
                p->depth > 30 ? 36.0 : 1.2 * (p->depth - 1));
        rep_put_escaped(out, t->name);
        fputs("</span></span>", out);
        if (parent) {
            fputs("</summary><ul>\n", out);
            stack[open++] = p->depth;
        } else {
            fputs("</li>\n", out);
        }
    }
    while (open > 0) {
        fputs("</ul></details></li>\n", out);
        open--;
    }
    fputs("</ul>\n</section>\n", out);
    free(sel);
    free(stack);
    return 0;
}

static void section_imbalance(FILE *out, const struct vftr_report *r)
{
    fputs("<section id=\"imbalance\">\n<h2>Imbalance</h2>\n", out);
    rep_svg_chart(r, VFTR_REPORT_CHART_IMBALANCE, out, 0);
    rep_svg_chart(r, VFTR_REPORT_CHART_RANKS, out, 0);
    fputs("</section>\n", out);
}

static int section_communication(FILE *out, struct vftr_report *r)
{
    size_t np, nc;
    const struct vftr_msgpair *p = vftr_messages_pairs(r->msgs, &np);
    const struct vftr_collstat *c = vftr_messages_collectives(r->msgs, &nc);
    const struct vftr_msg_counts *k = vftr_messages_counts(r->msgs);

    fputs("<section id=\"communication\">\n<h2>Communication</h2>\n", out);
    fprintf(out, "<p id=\"msg-counts\" data-sends=\"%" PRIu64 "\" data-recvs=\"%" PRIu64
            "\" data-matched=\"%" PRIu64 "\" data-unmatched-sends=\"%" PRIu64
            "\" data-unmatched-recvs=\"%" PRIu64 "\" data-recvs-sent-before=\"%" PRIu64
            "\" data-collops=\"%" PRIu64 "\">"
            "point-to-point: %" PRIu64 " sent, %" PRIu64 " received, %" PRIu64 " matched, %"
            PRIu64 " sends and %" PRIu64 " receives unmatched", k->sends, k->recvs, k->matched,
            k->unmatched_sends, k->unmatched_recvs, k->recvs_open, k->collops, k->sends, k->recvs,
            k->matched, k->unmatched_sends, k->unmatched_recvs);
    if (k->recvs_open)      /* a window: receives of messages sent before it */
        fprintf(out, " (%" PRIu64 " of the receives completed messages sent before the "
                "window)", k->recvs_open);
    fprintf(out, "; %" PRIu64 " collective operations</p>\n", k->collops);
    if (np) {
        rep_svg_chart(r, VFTR_REPORT_CHART_MESSAGES, out, 0);
        rep_svg_chart(r, VFTR_REPORT_CHART_BYTES, out, 0);
        rep_svg_chart(r, VFTR_REPORT_CHART_TRANSFER, out, 0);
    }
    fputs("<h3>Messages per process pair</h3>\n<table class=\"sortable\" id=\"pairs-table\">"
          "<thead><tr>", out);
    rep_th(out, "sender", "sender", 1, "sending process (token)");
    rep_th(out, "receiver", "receiver", 1, "receiving process (token)");
    rep_th(out, "messages", "messages", 1, "sends");
    rep_th(out, "bytes", "bytes", 1, "bytes of those sends");
    rep_th(out, "matched", "matched", 1, "sends that found their receive");
    rep_th(out, "transfer", "transfer", 1, "sum of receive - send time over matched messages");
    fputs("</tr></thead><tbody>\n", out);
    for (size_t i = 0; i < np; i++) {
        char x[64], v[VFTR_FMT_MAX];

        fprintf(out, "<tr><td>%" PRIu32 "</td><td>%" PRIu32 "</td><td>%" PRIu64 "</td><td>%"
                PRIu64 "</td><td>%" PRIu64 "</td>", p[i].sender, p[i].receiver, p[i].messages,
                p[i].bytes, p[i].matched);
        rep_exact((double)p[i].transfer / r->res, x, sizeof x);
        rep_fmt_time(r, (double)p[i].transfer / r->res, v, sizeof v);
        rep_td_num(out, x, v);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n<h3>Collective operations</h3>\n", out);
    if (nc)
        rep_svg_chart(r, VFTR_REPORT_CHART_COLLECTIVES, out, 0);
    fputs("<table class=\"sortable\" id=\"collectives-table\"><thead><tr>", out);
    rep_th(out, "operation", "operation", 0, NULL);
    rep_th(out, "count", "count", 1, "per-process operations");
    rep_th(out, "bytes", "bytes", 1, "sent + received");
    rep_th(out, "time", "time", 1, "summed durations");
    fputs("</tr></thead><tbody>\n", out);
    for (size_t i = 0; i < nc; i++) {
        const char *name = rep_token_name(r, REP_NAME_COLLOP, c[i].op);
        char x[64], v[VFTR_FMT_MAX];

        if (!name)
            return -ENOMEM;
        fputs("<tr><td class=\"name\">", out);
        rep_put_escaped(out, name);
        fprintf(out, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td>", c[i].count, c[i].bytes);
        rep_exact((double)c[i].time / r->res, x, sizeof x);
        rep_fmt_time(r, (double)c[i].time / r->res, v, sizeof v);
        rep_td_num(out, x, v);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n</section>\n", out);
    return 0;
}

int vftr_report_write_html(const struct vftr_report *rc, FILE *out)
{
    struct vftr_report *r = (struct vftr_report *)rc;   /* names of unnamed tokens are kept */
    static const struct { const char *id, *title; } nav[] = {
        { "summary", "Summary" }, { "timeline", "Timeline" }, { "profile", "Profile" },
        { "calltree", "Call tree" }, { "imbalance", "Imbalance" },
        { "communication", "Communication" },
    };
    int waits;

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"vftr-report\">\n<title>vftr report: ", out);
    rep_put_escaped(out, r->info->name);
    fputs("</title>\n<style>\n", out);
    fputs(vftr_report_css, out);
    fputs("</style>\n</head>\n<body>\n<header>\n<h1>vftr report: <span class=\"trace\">", out);
    rep_put_escaped(out, r->info->name);
    fputs("</span></h1>\n<nav aria-label=\"sections\">", out);
    for (size_t i = 0; i < sizeof nav / sizeof nav[0]; i++) {
        fprintf(out, "<a href=\"#%s\">%s</a>", nav[i].id, nav[i].title);
        if (i == 0 && r->have_waits)        /* the section after the summary */
            fputs("<a href=\"#waits\">Waits</a>", out);
    }
    fputs("</nav>\n</header>\n<main>\n", out);
    section_summary(out, r);
    /* the wait analysis's section, when the trace synchronises (waits.c) */
    waits = rep_waits_html(r, out);
    if (waits < 0)
        return -EIO;
    if (section_timeline(out, r) < 0)
        return -ENOMEM;
    section_profile(out, r);
    if (section_calltree(out, r) < 0)
        return -ENOMEM;
    section_imbalance(out, r);
    if (section_communication(out, r) < 0)
        return -ENOMEM;
    fputs("</main>\n<footer><p>Written by vftr-report from the trace above; every figure is "
          "vftr-stats's on the same trace.</p></footer>\n<script>\n", out);
    fputs(vftr_report_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}
