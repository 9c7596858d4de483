/*
 * svg.c — the report's charts as SVG, the same drawing inline in the page
 * and in the standalone files.
 *
 * Colours: the Okabe-Ito palette (distinguishable with every common colour
 * vision deficiency) for function groups, viridis for the heat maps (its
 * lightness rises monotonically, so it reads in grey too); every mark also
 * carries its value as text or as a <title> tooltip, so no figure is told
 * by colour alone.  Coordinates are printed with one decimal: the same
 * report gives the same bytes.
 */
#include "report_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/fmt.h"

#define W 960.0            /* chart width */
#define LABEL 220.0        /* left gutter for names */

static const char *const chart_names[] = {
#define VFTR_REPORT_CHART_NAME(id, file, title) file,
    VFTR_REPORT_CHARTS(VFTR_REPORT_CHART_NAME)
#undef VFTR_REPORT_CHART_NAME
};
static const char *const chart_titles[] = {
#define VFTR_REPORT_CHART_TITLE(id, file, title) title,
    VFTR_REPORT_CHARTS(VFTR_REPORT_CHART_TITLE)
#undef VFTR_REPORT_CHART_TITLE
};

const char *vftr_report_chart_name(enum vftr_report_chart c)
{
    return (unsigned)c < VFTR_REPORT_NCHARTS ? chart_names[c] : NULL;
}

const char *vftr_report_chart_title(enum vftr_report_chart c)
{
    return (unsigned)c < VFTR_REPORT_NCHARTS ? chart_titles[c] : NULL;
}

/* ------------------------------------------------------------ colours */

static const char *const kind_names[REP_NKINDS] = { "user code", "MPI", "OpenMP", "I/O", "other" };
static const char *const kind_colours[REP_NKINDS] = {
    "#0072B2",   /* blue */
    "#D55E00",   /* vermillion */
    "#009E73",   /* bluish green */
    "#E69F00",   /* orange */
    "#CC79A7",   /* reddish purple */
};
/* groups of no known kind, in token order */
static const char *const other_colours[] = { "#CC79A7", "#56B4E9", "#F0E442", "#999999",
                                             "#000000" };
static const char *const viridis[] = { "#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c",
                                       "#28ae80", "#5ec962", "#addc30", "#fde725" };

const char *rep_kind_name(enum rep_kind k)
{
    return kind_names[k < REP_NKINDS ? k : REP_OTHER];
}

const char *rep_kind_colour(enum rep_kind k)
{
    return kind_colours[k < REP_NKINDS ? k : REP_OTHER];
}

/* A group's colour: its kind's, or for a group of no known kind one of
 * other_colours by its place among such groups. */
const char *rep_group_colour(const struct vftr_report *r, uint32_t group)
{
    size_t n, k = 0;
    const struct vftr_source_name *g = vftr_source_groups(r->src, &n);
    enum rep_kind kind = group ? rep_group_kind(vftr_source_group_name(r->src, group)) : REP_OTHER;

    if (kind != REP_OTHER)
        return rep_kind_colour(kind);
    for (size_t i = 0; i < n && g[i].token < group; i++)
        k += rep_group_kind(g[i].name) == REP_OTHER;
    if (!group)
        return "#999999";
    return other_colours[k % (sizeof other_colours / sizeof other_colours[0])];
}

static const char *function_colour(const struct vftr_report *r, uint32_t function)
{
    const struct vftr_source_func *f = vftr_source_func(r->src, function);

    return rep_group_colour(r, f ? f->group : 0);
}

/* ------------------------------------------------------------ helpers */

void rep_put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                fputc('?', out);
            else
                fputc(*s, out);
        }
    }
}

void rep_put_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void fmt_count(char *buf, size_t size, double v)
{
    if (v >= 1e9)
        snprintf(buf, size, "%.3gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, size, "%.3gM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, size, "%.3gk", v / 1e3);
    else
        snprintf(buf, size, "%.0f", v);
}

static void svg_open(FILE *out, double w, double h, const char *id, enum vftr_report_chart c,
                     int standalone)
{
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n<title>", id, w, h, w, h);
    rep_put_escaped(out, vftr_report_chart_title(c));
    fputs("</title>\n", out);
    fprintf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", w, h);
    fputs("<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", out);
    rep_put_escaped(out, vftr_report_chart_title(c));
    fputs("</text>\n", out);
}

static void svg_close(FILE *out)
{
    fputs("</svg>\n", out);
}

/* A name cut to fit the gutter (characters, not pixels: no font metrics). */
static void put_label(FILE *out, double x, double y, const char *anchor, const char *s,
                      size_t max)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
    if (strlen(s) <= max) {
        rep_put_escaped(out, s);
    } else {
        char buf[256];
        size_t n = max - 1 < sizeof buf - 4 ? max - 1 : sizeof buf - 4;

        memcpy(buf, s, n);
        strcpy(buf + n, "...");
        rep_put_escaped(out, buf);
    }
    fputs("</text>\n", out);
}

/* A horizontal bar with a tooltip. */
static void bar(FILE *out, double x, double y, double w, double h, const char *fill,
                const char *tip)
{
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", x, y,
            w < 0 ? 0 : w, h, fill);
    if (tip) {
        fputs("<title>", out);
        rep_put_escaped(out, tip);
        fputs("</title>", out);
    }
    fputs("</rect>\n", out);
}

/* A legend of the function groups (those in the group table). */
static double legend(FILE *out, const struct vftr_report *r, double y)
{
    double x = 8;

    for (size_t i = 0; i < r->groups.prof.nrows; i++) {
        const struct rep_prow *g = &r->groups.rows[i];

        if (x > W - 160) {
            x = 8;
            y += 18;
        }
        bar(out, x, y - 10, 12, 12, rep_group_colour(r, g->p->function), NULL);
        put_label(out, x + 16, y, "start", g->name, 24);
        x += 30 + 7.0 * (double)(strlen(g->name) < 24 ? strlen(g->name) : 24);
    }
    return y + 18;
}

/* ------------------------------------------------------------ charts */

static int chart_timeline(const struct vftr_report *r, FILE *out, int standalone)
{
    const struct rep_level *lv = &r->levels[0];
    double rh = r->nprocs ? 560.0 / (double)r->nprocs : 16, plot = W - LABEL - 10, y0 = 56, h;
    double span = (double)(r->t1 - r->t0) / r->res;
    char buf[64], tip[512], lab[64];

    if (rh > 16)
        rh = 16;
    if (rh < 1)
        rh = 1;
    h = y0 + rh * (double)r->nprocs + 60;
    svg_open(out, W, h, "svg-timeline", VFTR_REPORT_CHART_TIMELINE, standalone);
    for (int k = 0; k <= 4; k++) {           /* time axis */
        double x = LABEL + plot * k / 4;

        rep_fmt_time(r, span * k / 4, buf, sizeof buf);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#bbbbbb\"/>\n",
                x, y0 - 6, x, y0 + rh * (double)r->nprocs);
        put_label(out, x, y0 - 10, k == 0 ? "start" : k == 4 ? "end" : "middle", buf, 16);
    }
    for (size_t i = 0; i < r->nprocs; i++) {
        const struct rep_runs *rr = &lv->rows[i];
        double y = y0 + rh * (double)i;
        uint64_t pos = 0;

        rep_proc_label(r->procs[i], lab, sizeof lab);
        if (rh >= 9)
            put_label(out, LABEL - 6, y + rh - 2, "end", lab, 30);
        for (size_t j = 0; j < rr->n; j++) {
            const struct rep_run *ru = &rr->v[j];
            double x = LABEL + plot * (double)pos / (double)lv->nbins;
            double w = plot * (double)ru->len / (double)lv->nbins;

            pos += ru->len;
            if (!ru->fn)
                continue;
            snprintf(tip, sizeof tip, "%s: %s", lab,
                     rep_token_name((struct vftr_report *)r, REP_NAME_FUNCTION, ru->fn));
            bar(out, x, y, w, rh > 2 ? rh - 1 : rh, function_colour(r, ru->fn), w >= 3 ? tip : NULL);
        }
    }
    legend(out, r, y0 + rh * (double)r->nprocs + 24);
    svg_close(out);
    return 0;
}

/* Horizontal bars of a profile table's exclusive time (functions or groups). */
static int chart_bars(const struct vftr_report *r, FILE *out, int standalone,
                      const struct rep_table *t, size_t max, enum vftr_report_chart c,
                      const char *id, int groups)
{
    size_t n = t->prof.nrows < max ? t->prof.nrows : max;
    double plot = W - LABEL - 150, top = 0, h = 40 + 20.0 * (double)n + 10;
    char v[64], pc[VFTR_FMT_MAX], tip[512];

    for (size_t i = 0; i < n; i++)
        if ((double)t->rows[i].p->excl > top)
            top = (double)t->rows[i].p->excl;
    svg_open(out, W, h, id, c, standalone);
    for (size_t i = 0; i < n; i++) {
        const struct rep_prow *row = &t->rows[i];
        double y = 36 + 20.0 * (double)i, w = top > 0 ? plot * (double)row->p->excl / top : 0;
        double pct = t->prof.total ? 100.0 * (double)row->p->excl / (double)t->prof.total : 0;

        rep_fmt_time(r, (double)row->p->excl / r->res, v, sizeof v);
        vftr_fmt_percent(pct, pc, sizeof pc);
        snprintf(tip, sizeof tip, "%s: %s exclusive (%s)", row->name, v, pc);
        put_label(out, LABEL - 6, y + 13, "end", row->name, 30);
        bar(out, LABEL, y, w, 16,
            groups ? rep_group_colour(r, row->p->function) : function_colour(r, row->p->function),
            tip);
        snprintf(tip, sizeof tip, "%s (%s)", v, pc);
        put_label(out, LABEL + w + 4, y + 13, "start", tip, 40);
    }
    if (n == 0)
        put_label(out, 8, 50, "start", "no functions in this trace", 60);
    svg_close(out);
    return 0;
}

static int chart_calltree(const struct vftr_report *r, FILE *out, int standalone)
{
    size_t n;
    const struct vftr_pathstat *ps = vftr_replay_paths(r->paths, &n);
    double *x = calloc(n ? n : 1, sizeof *x), *cur = calloc(n ? n : 1, sizeof *cur);
    double total = 0, rowh = 18, y0 = 34, maxdepth = 0, rootx = LABEL * 0 + 8;
    double plot = W - 16;
    char v[64], tip[512];

    if (!x || !cur) {
        free(x);
        free(cur);
        return -ENOMEM;
    }
    for (size_t i = 0; i < r->ntree; i++) {
        const struct vftr_pathstat *p = r->tree[i].p;

        if (p->parent == 0)
            total += (double)p->incl;
        if (p->depth > maxdepth && p->depth <= 40)
            maxdepth = p->depth;
    }
    svg_open(out, W, y0 + rowh * maxdepth + 10, "svg-calltree", VFTR_REPORT_CHART_CALLTREE,
             standalone);
    for (size_t i = 0; i < r->ntree && total > 0; i++) {
        const struct rep_path *t = &r->tree[i];
        const struct vftr_pathstat *p = t->p;
        size_t id = (size_t)(p - ps);
        double w = plot * (double)p->incl / total, px;

        if (p->parent == 0) {
            px = rootx;
            rootx += w;
        } else {
            px = cur[p->parent - 1];
            cur[p->parent - 1] += w;
        }
        x[id] = px;
        cur[id] = px;
        if (w < 0.5 || p->depth > 40)
            continue;
        rep_fmt_time(r, (double)p->incl / r->res, v, sizeof v);
        snprintf(tip, sizeof tip, "%s: %s inclusive, depth %" PRIu32, t->name, v, p->depth);
        bar(out, px, y0 + rowh * (p->depth - 1), w > 1 ? w - 0.5 : w, rowh - 1,
            function_colour(r, p->function), tip);
        if (w > 40)
            put_label(out, px + 3, y0 + rowh * (p->depth - 1) + 13, "start", t->name,
                      (size_t)(w / 7.5));
    }
    if (total <= 0)
        put_label(out, 8, 50, "start", "no calls in this trace", 60);
    free(x);
    free(cur);
    svg_close(out);
    return 0;
}

static int chart_imbalance(const struct vftr_report *r, FILE *out, int standalone)
{
    size_t n = r->funcs.prof.nrows < 20 ? r->funcs.prof.nrows : 20;
    double plot = W - LABEL - 230, top = 0, h = 40 + 22.0 * (double)n + 30;
    char a[VFTR_FMT_MAX], b[VFTR_FMT_MAX], c[VFTR_FMT_MAX], im[VFTR_FMT_MAX], tip[512];

    for (size_t i = 0; i < n; i++)
        if ((double)r->funcs.rows[i].p->excl_max > top)
            top = (double)r->funcs.rows[i].p->excl_max;
    svg_open(out, W, h, "svg-imbalance", VFTR_REPORT_CHART_IMBALANCE, standalone);
    for (size_t i = 0; i < n; i++) {
        const struct rep_prow *row = &r->funcs.rows[i];
        const struct vftr_profile_row *p = row->p;
        double y = 36 + 22.0 * (double)i, s = top > 0 ? plot / top : 0;
        double xmin = LABEL + s * (double)p->excl_min, xmax = LABEL + s * (double)p->excl_max;

        rep_fmt_time(r, (double)p->excl_min / r->res, a, sizeof a);
        rep_fmt_time(r, p->excl_avg / r->res, b, sizeof b);
        rep_fmt_time(r, (double)p->excl_max / r->res, c, sizeof c);
        vftr_fmt_imbalance(p->imbalance, im, sizeof im);
        snprintf(tip, sizeof tip, "%s over %" PRIu32 " rank(s): min %s, avg %s, max %s, "
                 "imbalance %s", row->name, p->nprocs, a, b, c, im);
        put_label(out, LABEL - 6, y + 14, "end", row->name, 30);
        bar(out, LABEL, y + 2, s * p->excl_avg, 14, function_colour(r, p->function), tip);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\" "
                "stroke-width=\"1.5\"/>\n", xmin, y + 9, xmax, y + 9);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>\n",
                xmin, y + 3, xmin, y + 15);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>\n",
                xmax, y + 3, xmax, y + 15);
        snprintf(tip, sizeof tip, "%s / %s / %s  (%s)", a, b, c, im);
        put_label(out, xmax + 6, y + 14, "start", tip, 48);
    }
    put_label(out, 8, h - 10, "start", "bar: average exclusive time over the ranks that called "
              "the function; whisker: min to max; (imbalance = (max - avg) / max)", 140);
    if (n == 0)
        put_label(out, 8, 50, "start", "no functions in this trace", 60);
    svg_close(out);
    return 0;
}

static int chart_ranks(const struct vftr_report *r, FILE *out, int standalone)
{
    double bh = r->nranks ? 560.0 / (double)r->nranks : 16, plot = W - LABEL - 130, top = 0;
    double y0 = 36, h;
    size_t j = 0;
    char v[64], tip[512], lab[32];

    if (bh > 20)
        bh = 20;
    if (bh < 2)
        bh = 2;
    for (size_t i = 0; i < r->groups.nper; i++) {       /* largest rank total */
        double sum = 0;
        uint32_t p = r->groups.per[i].process;

        if (i && r->groups.per[i - 1].process == p)
            continue;
        for (size_t k = i; k < r->groups.nper && r->groups.per[k].process == p; k++)
            sum += (double)r->groups.per[k].excl;
        if (sum > top)
            top = sum;
    }
    h = y0 + bh * (double)r->nranks + 50;
    svg_open(out, W, h, "svg-ranks", VFTR_REPORT_CHART_RANKS, standalone);
    for (size_t i = 0; i < r->nranks; i++) {
        double y = y0 + bh * (double)i, x = LABEL, sum = 0;

        snprintf(lab, sizeof lab, "rank %" PRIu32, r->ranks[i].rank);
        if (bh >= 9)
            put_label(out, LABEL - 6, y + bh - 3, "end", lab, 20);
        /* the rank's rows: per is sorted by process token, ranks by rank */
        {
            size_t lo = 0, hi = r->groups.nper;

            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (r->groups.per[mid].process < r->ranks[i].token)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            j = lo;
        }
        /* the groups in the table's order, so the stacks line up */
        for (size_t g = 0; g < r->groups.prof.nrows; g++) {
            uint32_t tok = r->groups.rows[g].p->function;

            for (size_t k = j; k < r->groups.nper && r->groups.per[k].process == r->ranks[i].token;
                 k++) {
                const struct vftr_funcstat *f = &r->groups.per[k];
                double w = top > 0 ? plot * (double)f->excl / top : 0;

                if (f->function != tok)
                    continue;
                rep_fmt_time(r, (double)f->excl / r->res, v, sizeof v);
                snprintf(tip, sizeof tip, "%s: %s %s", lab, r->groups.rows[g].name, v);
                bar(out, x, y, w, bh > 3 ? bh - 1 : bh, rep_group_colour(r, tok), tip);
                x += w;
                sum += (double)f->excl;
            }
        }
        if (bh >= 9) {
            rep_fmt_time(r, sum / r->res, v, sizeof v);
            put_label(out, x + 4, y + bh - 3, "start", v, 20);
        }
    }
    legend(out, r, y0 + bh * (double)r->nranks + 24);
    svg_close(out);
    return 0;
}

/* The rank x rank matrix of one message figure, ranks binned into at most
 * 64 blocks. */
static int chart_matrix(const struct vftr_report *r, FILE *out, int standalone,
                        enum vftr_report_chart c)
{
    size_t np, nb = r->nranks < 64 ? r->nranks : 64;
    const struct vftr_msgpair *p = vftr_messages_pairs(r->msgs, &np);
    double *m = calloc(nb ? nb * nb : 1, sizeof *m), top = 0, cell, x0 = 90, y0 = 70;
    const char *id = c == VFTR_REPORT_CHART_MESSAGES ? "svg-messages"
                     : c == VFTR_REPORT_CHART_BYTES ? "svg-bytes" : "svg-transfer";
    char v[64], tip[256], lab[64];

    if (!m)
        return -ENOMEM;
    for (size_t i = 0; i < np; i++) {
        size_t a = rep_rank_index(r, p[i].sender), b = rep_rank_index(r, p[i].receiver);
        double val = c == VFTR_REPORT_CHART_MESSAGES ? (double)p[i].messages
                     : c == VFTR_REPORT_CHART_BYTES ? (double)p[i].bytes
                                                    : (double)p[i].transfer / r->res;

        if (a >= r->nranks || b >= r->nranks)
            continue;
        a = a * nb / r->nranks;
        b = b * nb / r->nranks;
        m[a * nb + b] += val;
    }
    for (size_t i = 0; i < nb * nb; i++)
        if (m[i] > top)
            top = m[i];
    cell = nb ? (W - x0 - 40) / (double)nb : 0;
    if (cell > 48)
        cell = 48;
    svg_open(out, W, y0 + cell * (double)nb + 60, id, c, standalone);
    put_label(out, x0, y0 - 30, "start", "receiver rank \xe2\x86\x92", 40);
    put_label(out, 8, y0 - 12, "start", "sender \xe2\x86\x93", 40);
    for (size_t a = 0; a < nb; a++) {
        size_t lo = r->ranks[a * r->nranks / nb].rank;
        size_t hi = r->ranks[((a + 1) * r->nranks / nb) - 1].rank;

        if (lo == hi)
            snprintf(lab, sizeof lab, "%zu", lo);
        else
            snprintf(lab, sizeof lab, "%zu-%zu", lo, hi);
        if (cell >= 10 || a % 8 == 0) {
            put_label(out, x0 - 6, y0 + cell * ((double)a + 0.5) + 4, "end", lab, 12);
            put_label(out, x0 + cell * ((double)a + 0.5), y0 - 6, "middle", lab, 12);
        }
        for (size_t b = 0; b < nb; b++) {
            double val = m[a * nb + b];
            int step = top > 0 && val > 0 ? (int)(8.0 * sqrt(val / top) + 0.5) : 0;
            const char *fill = val > 0 ? viridis[step < 0 ? 0 : step > 8 ? 8 : step] : "#f2f2f2";

            if (c == VFTR_REPORT_CHART_TRANSFER)
                rep_fmt_time(r, val, v, sizeof v);
            else
                fmt_count(v, sizeof v, val);
            {
                char rl[32];
                size_t blo = r->ranks[b * r->nranks / nb].rank;
                size_t bhi = r->ranks[((b + 1) * r->nranks / nb) - 1].rank;

                if (blo == bhi)
                    snprintf(rl, sizeof rl, "%zu", blo);
                else
                    snprintf(rl, sizeof rl, "%zu-%zu", blo, bhi);
                snprintf(tip, sizeof tip, "sender %s, receiver %s: %s", lab, rl, v);
            }
            bar(out, x0 + cell * (double)b, y0 + cell * (double)a, cell - 1, cell - 1, fill, tip);
            if (cell >= 36 && val > 0)
                fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" "
                        "fill=\"%s\">%s</text>\n", x0 + cell * ((double)b + 0.5),
                        y0 + cell * ((double)a + 0.5) + 4, step >= 5 ? "#000000" : "#ffffff", v);
        }
    }
    {                                        /* scale */
        double sy = y0 + cell * (double)nb + 20;

        for (int k = 0; k <= 8; k++)
            bar(out, x0 + 24.0 * k, sy, 24, 12, viridis[k], NULL);
        if (c == VFTR_REPORT_CHART_TRANSFER)
            rep_fmt_time(r, top, v, sizeof v);
        else
            fmt_count(v, sizeof v, top);
        snprintf(tip, sizeof tip, "0 .. %s (square-root scale; grey: none)", v);
        put_label(out, x0 + 24.0 * 9 + 8, sy + 11, "start", tip, 60);
    }
    if (nb == 0 || top <= 0)
        put_label(out, 8, 50, "start", "no point-to-point messages", 60);
    free(m);
    svg_close(out);
    return 0;
}

static int chart_collectives(const struct vftr_report *r, FILE *out, int standalone)
{
    size_t n;
    const struct vftr_collstat *c = vftr_messages_collectives(r->msgs, &n);
    double plot = W - LABEL - 250, top = 0, h = 40 + 20.0 * (double)n + 10;
    char v[64], cnt[32], by[32], tip[512];

    for (size_t i = 0; i < n; i++)
        if ((double)c[i].time > top)
            top = (double)c[i].time;
    svg_open(out, W, h, "svg-collectives", VFTR_REPORT_CHART_COLLECTIVES, standalone);
    for (size_t i = 0; i < n; i++) {
        const char *name = rep_token_name((struct vftr_report *)r, REP_NAME_COLLOP, c[i].op);
        double y = 36 + 20.0 * (double)i, w = top > 0 ? plot * (double)c[i].time / top : 0;

        if (!name)
            return -ENOMEM;
        rep_fmt_time(r, (double)c[i].time / r->res, v, sizeof v);
        fmt_count(cnt, sizeof cnt, (double)c[i].count);
        fmt_count(by, sizeof by, (double)c[i].bytes);
        snprintf(tip, sizeof tip, "%s: %" PRIu64 " operations, %" PRIu64 " bytes, %s", name,
                 c[i].count, c[i].bytes, v);
        put_label(out, LABEL - 6, y + 13, "end", name, 30);
        bar(out, LABEL, y, w, 16, rep_kind_colour(REP_MPI), tip);
        snprintf(tip, sizeof tip, "%s, %s ops, %s B", v, cnt, by);
        put_label(out, LABEL + w + 4, y + 13, "start", tip, 40);
    }
    if (n == 0)
        put_label(out, 8, 50, "start", "no collective operations", 60);
    svg_close(out);
    return 0;
}

int rep_chart_available(const struct vftr_report *r, enum vftr_report_chart c)
{
    size_t n;

    switch (c) {
    case VFTR_REPORT_CHART_TIMELINE:
        return r->have_timeline;
    case VFTR_REPORT_CHART_MESSAGES:
    case VFTR_REPORT_CHART_BYTES:
    case VFTR_REPORT_CHART_TRANSFER:
        vftr_messages_pairs(r->msgs, &n);
        return n > 0;
    case VFTR_REPORT_CHART_COLLECTIVES:
        vftr_messages_collectives(r->msgs, &n);
        return n > 0;
    default:
        return (unsigned)c < VFTR_REPORT_NCHARTS;
    }
}

int rep_svg_chart(const struct vftr_report *r, enum vftr_report_chart c, FILE *out,
                  int standalone)
{
    switch (c) {
    case VFTR_REPORT_CHART_TIMELINE:
        return r->have_timeline ? chart_timeline(r, out, standalone) : -EINVAL;
    case VFTR_REPORT_CHART_GROUPS:
        return chart_bars(r, out, standalone, &r->groups, 16, c, "svg-groups", 1);
    case VFTR_REPORT_CHART_PROFILE:
        return chart_bars(r, out, standalone, &r->funcs, 25, c, "svg-profile", 0);
    case VFTR_REPORT_CHART_CALLTREE:
        return chart_calltree(r, out, standalone);
    case VFTR_REPORT_CHART_IMBALANCE:
        return chart_imbalance(r, out, standalone);
    case VFTR_REPORT_CHART_RANKS:
        return chart_ranks(r, out, standalone);
    case VFTR_REPORT_CHART_MESSAGES:
    case VFTR_REPORT_CHART_BYTES:
    case VFTR_REPORT_CHART_TRANSFER:
        return chart_matrix(r, out, standalone, c);
    case VFTR_REPORT_CHART_COLLECTIVES:
        return chart_collectives(r, out, standalone);
    default:
        return -EINVAL;
    }
}

int vftr_report_write_svg(const struct vftr_report *r, enum vftr_report_chart c, FILE *out)
{
    int rc;

    if ((unsigned)c >= VFTR_REPORT_NCHARTS)
        return -EINVAL;
    rc = rep_svg_chart(r, c, out, 1);
    if (rc < 0)
        return rc;
    return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}
