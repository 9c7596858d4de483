/*
 * analysis.c — vftr-stats's tables of the wait analysis (lib/model/
 * analysis.h): --waits (pattern x call path x process), --critical-path
 * (each function's or call path's share of the path and its imbalance, and
 * each process's share) and --delays (the waits each call path of a late
 * process caused).  Every table is described by its columns, which drive
 * --sort and the three formats, as the profile's are.
 *
 * Rows are put in a total order (the sort keys, then name, process,
 * pattern, call path), so that the output does not depend on the order the
 * analysis handed them out in — vftr-stats-mpi prints what vftr-stats does,
 * byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util/errmsg.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/proclist.h"

/* Where a column's value comes from: a field, or v[index]. */
enum { SRC_PATTERN = -1, SRC_PROCESS = -2, SRC_NAME = -3 };

struct acolumn {
    const char *key;             /* --sort, CSV header, JSON member */
    const char *header;          /* text header (a time's gets "[ticks]" without a resolution) */
    enum colkind kind;
    int src;                     /* SRC_* or an index into arow.v */
};

struct arow {
    unsigned pattern;
    uint32_t process, path;
    const char *name;            /* the call path or function */
    double v[5];
};

static const struct acolumn wait_cols[] = {
    { "pattern", "pattern", COL_NAME, SRC_PATTERN },
    { "time", "time", COL_SECONDS, 0 },
    { "pct", "pct", COL_PERCENT, 1 },
    { "count", "count", COL_COUNT, 2 },
    { "max", "max", COL_SECONDS, 3 },
    { "process", "process", COL_COUNT, SRC_PROCESS },
    { "callpath", "call path", COL_NAME, SRC_NAME },
};

static const struct acolumn cp_cols[] = {
    { "time", "cp", COL_SECONDS, 0 },
    { "pct", "cp%", COL_PERCENT, 1 },
    { "imbalance", "imbalance", COL_SECONDS, 2 },
    { "function", "function", COL_NAME, SRC_NAME },
};

static const struct acolumn cp_path_cols[] = {
    { "time", "cp", COL_SECONDS, 0 },
    { "pct", "cp%", COL_PERCENT, 1 },
    { "imbalance", "imbalance", COL_SECONDS, 2 },
    { "callpath", "call path", COL_NAME, SRC_NAME },
};

static const struct acolumn cp_proc_cols[] = {
    { "process", "process", COL_COUNT, SRC_PROCESS },
    { "time", "cp", COL_SECONDS, 0 },
    { "pct", "cp%", COL_PERCENT, 1 },
};

static const struct acolumn delay_cols[] = {
    { "pattern", "caused", COL_NAME, SRC_PATTERN },
    { "short", "short", COL_SECONDS, 0 },
    { "long", "long", COL_SECONDS, 1 },
    { "total", "total", COL_SECONDS, 2 },
    { "pct", "pct", COL_PERCENT, 3 },
    { "process", "process", COL_COUNT, SRC_PROCESS },
    { "callpath", "call path", COL_NAME, SRC_NAME },
};

struct atable {
    const struct acolumn *cols;
    size_t ncols;
    struct arow *rows;
    size_t n;
};

#define NCOLS(c) (sizeof (c) / sizeof (c)[0])

static void view_columns(const struct stats_args *args, const struct acolumn **cols,
                         size_t *n, const char **dflt)
{
    switch (args->view) {
    case VIEW_WAITS:
        *cols = wait_cols, *n = NCOLS(wait_cols), *dflt = "time";
        return;
    case VIEW_CRITPATH:
        if (args->callpath)
            *cols = cp_path_cols, *n = NCOLS(cp_path_cols);
        else
            *cols = cp_cols, *n = NCOLS(cp_cols);
        *dflt = "time";
        return;
    default:
        *cols = delay_cols, *n = NCOLS(delay_cols), *dflt = "total";
        return;
    }
}

/* ------------------------------------------------------------ sorting */

static const struct acolumn *sort_keys[MAX_SORT_KEYS];
static size_t nsort_keys;
static int sort_reverse;

static const struct acolumn *find_acol(const struct acolumn *cols, size_t n, const char *key,
                                       size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(cols[i].key) == len && strncmp(cols[i].key, key, len) == 0)
            return &cols[i];
    return NULL;
}

int stats_analysis_sort(const struct vftr_tool *tool, struct stats_args *args)
{
    const struct acolumn *cols;
    size_t ncols;
    const char *dflt, *s;

    view_columns(args, &cols, &ncols, &dflt);
    sort_reverse = args->reverse;
    nsort_keys = 0;
    s = args->sort_spec ? args->sort_spec : dflt;
    for (;;) {
        size_t len = strcspn(s, ",");
        const struct acolumn *c = find_acol(cols, ncols, s, len);

        if (!c) {
            char names[256] = "";

            for (size_t i = 0; i < ncols; i++) {
                if (i)
                    strncat(names, ", ", sizeof names - strlen(names) - 1);
                strncat(names, cols[i].key, sizeof names - strlen(names) - 1);
            }
            return vftr_tool_usage_fail(tool, stderr, "bad sort column '%.*s' (expected %s)",
                                        (int)(len > 64 ? 64 : len), s, names);
        }
        if (nsort_keys == MAX_SORT_KEYS)
            return vftr_tool_usage_fail(tool, stderr, "too many sort columns (at most %d)",
                                        MAX_SORT_KEYS);
        sort_keys[nsort_keys++] = c;
        if (s[len] == '\0')
            return 0;
        s += len + 1;
    }
}

static double col_value(const struct acolumn *c, const struct arow *r)
{
    switch (c->src) {
    case SRC_PROCESS:
        return r->process;
    case SRC_PATTERN:
    case SRC_NAME:
        return 0;
    default:
        return r->v[c->src];
    }
}

static const char *col_text(const struct acolumn *c, const struct arow *r)
{
    return c->src == SRC_PATTERN ? vftr_wait_pattern_info(r->pattern)->key : r->name;
}

/* The total order: the sort keys, then name, process, pattern, path. */
static int cmp_keyed(const struct arow *x, const struct arow *y, const struct acolumn *const *keys,
                     size_t nkeys, int reverse)
{
    int d;

    for (size_t i = 0; i < nkeys; i++) {
        const struct acolumn *c = keys[i];

        if (c->kind == COL_NAME) {
            d = strcmp(col_text(c, x), col_text(c, y));
        } else {
            double u = col_value(c, x), v = col_value(c, y);

            d = u < v ? 1 : u > v ? -1 : 0;
        }
        if (d)
            return reverse ? -d : d;
    }
    if ((d = strcmp(x->name, y->name)))
        return d;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

static int cmp_sorted(const void *a, const void *b)
{
    return cmp_keyed(a, b, sort_keys, nsort_keys, sort_reverse);
}

/* By (pattern, process, path): to merge rows that fold into one. */
static int cmp_identity(const void *a, const void *b)
{
    const struct arow *x = a, *y = b;

    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

/* Sums rows of one identity (v[imax] is a maximum, not a sum; -1: none). */
static size_t merge_rows(struct arow *r, size_t n, int imax)
{
    size_t out = 0;

    if (n == 0)
        return 0;
    qsort(r, n, sizeof *r, cmp_identity);
    for (size_t i = 1; i < n; i++) {
        if (cmp_identity(&r[out], &r[i]) == 0) {
            for (int k = 0; k < 5; k++)
                if (k == imax)
                    r[out].v[k] = r[i].v[k] > r[out].v[k] ? r[i].v[k] : r[out].v[k];
                else
                    r[out].v[k] += r[i].v[k];
        } else {
            r[++out] = r[i];
        }
    }
    return out + 1;
}

/* ------------------------------------------------------------ names */

struct pathnames {
    struct names *names;
    const struct vftr_analysis_path *paths;
    size_t npaths;
    char **v;                    /* by path id; [0] for no call */
};

static const char *function_name(void *arg, uint32_t function)
{
    return token_name(arg, NAME_FUNCTION, function);
}

static const char *function_of(struct pathnames *pn, uint32_t path)
{
    if (path == 0 || path > pn->npaths)
        return VFTR_ANALYSIS_NO_CALL;
    return token_name(pn->names, NAME_FUNCTION, pn->paths[path - 1].function);
}

/* "function<caller<...<root" (vftr_analysis_path_name), kept per path. */
static const char *path_name(struct pathnames *pn, uint32_t path)
{
    if (path == 0 || path > pn->npaths)
        return VFTR_ANALYSIS_NO_CALL;
    if (!pn->v[path])
        pn->v[path] = vftr_analysis_path_name(pn->paths, pn->npaths, path, function_name,
                                              pn->names);
    return pn->v[path];
}

/* ------------------------------------------------------------ output */

/* Text output writes times as the profile does (util/fmt.h): in the unit
 * that fits, or, for a trace that does not give its timer resolution (the
 * values are then ticks), whole ticks under "[ticks]" headers.  CSV and
 * JSON keep plain numbers (seconds, or ticks without a resolution). */
static int in_ticks;
/* the trace whose processes the text tables name ("rank 3 thread 2", as
 * every vftr output does; CSV and JSON keep the OTF tokens) */
static const struct vftr_source *label_src;

/* A process of a text table's cell, as users know it. */
static const char *text_process(char *buf, size_t size, uint32_t token)
{
    const struct vftr_source_proc *p = label_src ? vftr_source_proc(label_src, token) : NULL;

    if (p)
        vftr_fmt_process(p->rank, p->thread, buf, size);
    else
        snprintf(buf, size, "process %" PRIu32, token);
    return buf;
}

#define TEXT_COL 12

/* A time of a table cell (no unit in ticks: the header has it). */
static void text_time(char *buf, size_t size, double v)
{
    if (in_ticks)
        snprintf(buf, size, "%.0f", v);
    else
        vftr_fmt_seconds(v, buf, size);
}

/* A time in a sentence: ticks at resolution res (0: unknown). */
static const char *say_time(char *buf, size_t size, uint64_t ticks, uint64_t res)
{
    vftr_fmt_ticks(ticks, res, buf, size);
    return buf;
}

static const char *say_seconds(char *buf, size_t size, double v)
{
    if (in_ticks)
        snprintf(buf, size, "%.0f ticks", v);
    else
        vftr_fmt_seconds(v, buf, size);
    return buf;
}

static const char *text_header(char *buf, size_t size, const struct acolumn *c)
{
    if (c->kind == COL_SECONDS && in_ticks)
        snprintf(buf, size, "%s[ticks]", c->header);
    else
        snprintf(buf, size, "%s", c->header);
    return buf;
}

static void format_cell(char *buf, size_t size, const struct acolumn *c, const struct arow *r)
{
    switch (c->kind) {
    case COL_NAME:    snprintf(buf, size, "%s", col_text(c, r)); break;
    case COL_COUNT:   snprintf(buf, size, "%.0f", col_value(c, r)); break;
    case COL_SECONDS: snprintf(buf, size, "%.6f", col_value(c, r)); break;
    case COL_PERCENT: snprintf(buf, size, "%.2f", col_value(c, r)); break;
    case COL_RATIO:   snprintf(buf, size, "%.4f", col_value(c, r)); break;
    }
}

static void print_table_text(FILE *out, const struct atable *t, size_t n)
{
    char buf[64];
    int *width = calloc(t->ncols, sizeof *width);

    if (!width)
        return;
    /* a name column that is not the last one is padded to its widest cell */
    for (size_t i = 0; i < t->ncols; i++) {
        width[i] = (int)strlen(text_header(buf, sizeof buf, &t->cols[i]));
        if (width[i] < TEXT_COL)
            width[i] = TEXT_COL;
        if (t->cols[i].kind == COL_NAME) {
            width[i] = (int)strlen(t->cols[i].header);
            for (size_t k = 0; k < n; k++) {
                int l = (int)strlen(col_text(&t->cols[i], &t->rows[k]));

                if (l > width[i])
                    width[i] = l;
            }
        }
        if (t->cols[i].src == SRC_PROCESS)
            for (size_t k = 0; k < n; k++) {
                int l = (int)strlen(text_process(buf, sizeof buf, t->rows[k].process));

                if (l > width[i])
                    width[i] = l;
            }
    }
    for (size_t i = 0; i < t->ncols; i++) {
        text_header(buf, sizeof buf, &t->cols[i]);
        if (t->cols[i].kind != COL_NAME)
            fprintf(out, "%s%*s", i ? " " : "", width[i], buf);
        else if (i + 1 == t->ncols)
            fprintf(out, "  %s", buf);
        else
            fprintf(out, "%s%-*s", i ? "  " : "", width[i], buf);
    }
    fputc('\n', out);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < t->ncols; i++) {
            const struct acolumn *c = &t->cols[i];

            if (c->kind == COL_SECONDS)
                text_time(buf, sizeof buf, col_value(c, &t->rows[k]));
            else if (c->src == SRC_PROCESS)
                text_process(buf, sizeof buf, t->rows[k].process);
            else
                format_cell(buf, sizeof buf, c, &t->rows[k]);
            if (c->kind != COL_NAME)
                fprintf(out, "%s%*s", i ? " " : "", width[i], buf);
            else if (i + 1 == t->ncols)
                fprintf(out, "  %s", col_text(c, &t->rows[k]));
            else
                fprintf(out, "%s%-*s", i ? "  " : "", width[i], col_text(c, &t->rows[k]));
        }
        fputc('\n', out);
    }
    free(width);
}

static void print_table_csv(FILE *out, const struct atable *t, size_t n)
{
    char buf[64];

    for (size_t i = 0; i < t->ncols; i++)
        fprintf(out, "%s%s", i ? "," : "", t->cols[i].key);
    fputc('\n', out);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < t->ncols; i++) {
            if (i)
                fputc(',', out);
            if (t->cols[i].kind == COL_NAME) {
                print_csv_string(out, col_text(&t->cols[i], &t->rows[k]));
            } else {
                format_cell(buf, sizeof buf, &t->cols[i], &t->rows[k]);
                fputs(buf, out);
            }
        }
        fputc('\n', out);
    }
}

/* "member":[{...},...] */
static void print_table_json(FILE *out, const char *member, const struct atable *t, size_t n)
{
    char buf[64];

    fprintf(out, "\"%s\":[", member);
    for (size_t k = 0; k < n; k++) {
        fputs(k ? ",\n{" : "\n{", out);
        for (size_t i = 0; i < t->ncols; i++) {
            fprintf(out, "%s\"%s\":", i ? "," : "", t->cols[i].key);
            if (t->cols[i].kind == COL_NAME) {
                vftr_json_string(out, col_text(&t->cols[i], &t->rows[k]));
            } else {
                format_cell(buf, sizeof buf, &t->cols[i], &t->rows[k]);
                fputs(buf, out);
            }
        }
        fputc('}', out);
    }
    fputs("\n]", out);
}

/* ------------------------------------------------------------ the views */

struct ctx {
    const struct stats_args *args;
    const struct vftr_source *src;
    const struct vftr_analysis *an;
    double res;                  /* ticks per second (1: not known) */
    uint64_t ures;               /* the trace's resolution (0: not known) */
    uint64_t first;              /* the trace's first time stamp */
    struct pathnames pn;
    pcre2_code *re;
    pcre2_match_data *md;
};

static uint32_t shown_process(const struct ctx *x, uint32_t process)
{
    return x->args->fold == -2 ? process : vftr_source_rank_process((void *)x->src, process);
}

static int wanted(const struct ctx *x, uint32_t process)
{
    return !x->args->sel.have_procs || vftr_proclist_contains(&x->args->sel.procs, process);
}

/* Names the rows and drops those --match does not take: the new count. */
static size_t name_rows(struct ctx *x, struct arow *r, size_t n, int by_function, int *oom)
{
    size_t out = 0;

    for (size_t i = 0; i < n; i++) {
        const char *name = by_function ? function_of(&x->pn, r[i].path)
                                       : path_name(&x->pn, r[i].path);

        if (!name) {
            *oom = 1;
            return 0;
        }
        if (x->re && pcre2_match(x->re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, x->md,
                                 NULL) < 0)
            continue;
        r[out] = r[i];
        r[out++].name = name;
    }
    return out;
}

static size_t sort_and_cut(const struct ctx *x, struct arow *r, size_t n)
{
    if (n)
        qsort(r, n, sizeof *r, cmp_sorted);
    if (x->args->top >= 0 && (size_t)x->args->top < n)
        n = (size_t)x->args->top;
    return n;
}

static int view_waits(struct ctx *x)
{
    size_t n;
    struct vftr_wait_row *w;
    const struct vftr_analysis_summary *sum = vftr_analysis_summary(x->an);
    struct arow *r;
    struct atable t = { wait_cols, NCOLS(wait_cols), NULL, 0 };
    uint64_t total_ticks;
    double total;
    size_t shown;
    int oom = 0;

    /* the rows as the report shows them too: one rule (waittable.c) */
    if (vftr_analysis_wait_table(x->an, (void *)x->src, x->args->sel.have_procs ? &x->args->sel.procs
                                                                          : NULL,
                                 x->args->fold != -2, &w, &n, &total_ticks) < 0)
        return -ENOMEM;
    if (!(r = calloc(n ? n : 1, sizeof *r))) {
        free(w);
        return -ENOMEM;
    }
    t.rows = r;
    total = (double)total_ticks / x->res;
    for (size_t i = 0; i < n; i++)
        r[i] = (struct arow){ w[i].pattern, w[i].process, w[i].path, NULL,
                              { (double)w[i].time / x->res,
                                sum->proc_time ? 100.0 * (double)w[i].time / (double)sum->proc_time
                                               : 0,
                                (double)w[i].count, (double)w[i].max / x->res, 0 } };
    free(w);
    n = name_rows(x, r, n, 0, &oom);
    if (oom) {
        free(r);
        return -ENOMEM;
    }
    t.n = n;
    shown = sort_and_cut(x, r, n);
    if (x->args->format == FMT_CSV) {
        print_table_csv(stdout, &t, shown);
    } else if (x->args->format == FMT_JSON) {
        fprintf(stdout, "{\"wait_s\":%.9g,\"process_time_s\":%.9g,", total,
                (double)sum->proc_time / x->res);
        print_table_json(stdout, "waits", &t, shown);
        fputs("}\n", stdout);
    } else {
        char a[VFTR_FMT_MAX], b[VFTR_FMT_MAX];

        fprintf(stdout, "waits: %s in all (%.2f %% of the processes' %s)%s\n",
                say_seconds(a, sizeof a, total),
                sum->proc_time ? 100.0 * total * x->res / (double)sum->proc_time : 0.0,
                say_time(b, sizeof b, sum->proc_time, x->ures),
                x->args->sel.window ? " in the window" : "");
        print_table_text(stdout, &t, shown);
    }
    free(r);
    return 0;
}

static int view_critpath(struct ctx *x)
{
    size_t nc, np, n = 0, nproc = 0;
    const struct vftr_cp_row *c = vftr_analysis_critpath(x->an, &nc);
    const struct vftr_analysis_summary *sum = vftr_analysis_summary(x->an);
    const struct vftr_analysis_path *paths = vftr_analysis_paths(x->an, &np);
    int byfn = !x->args->callpath, oom = 0;
    struct arow *r = calloc(nc + np + 1, sizeof *r), *pr = calloc(nc + 1, sizeof *pr);
    double len = (double)sum->cp_length / x->res, nprocs = sum->nprocs ? (double)sum->nprocs : 1;
    struct atable t = { byfn ? cp_cols : cp_path_cols, byfn ? NCOLS(cp_cols) : NCOLS(cp_path_cols),
                        r, 0 };
    struct atable tp = { cp_proc_cols, NCOLS(cp_proc_cols), pr, 0 };
    size_t shown;

    if (!r || !pr) {
        free(r);
        free(pr);
        return -ENOMEM;
    }
    /* the path's time per call path (or function), and per process */
    for (size_t i = 0; i < nc; i++) {
        uint32_t key = byfn && c[i].path ? paths[c[i].path - 1].function : c[i].path;

        if (!wanted(x, c[i].process))
            continue;
        r[n++] = (struct arow){ 0, 0, key, NULL, { (double)c[i].time / x->res, 0, 0, 0, 0 } };
        pr[nproc++] = (struct arow){ 0, shown_process(x, c[i].process), 0, "",
                                     { (double)c[i].time / x->res, 0, 0, 0, 0 } };
    }
    /* the average non-waiting time over the processes, of every call path */
    for (uint32_t p = 0; p <= np; p++) {
        uint64_t busy = vftr_analysis_busy(x->an, p);

        if (busy)
            r[n++] = (struct arow){ 0, 0, byfn && p ? paths[p - 1].function : p, NULL,
                                    { 0, 0, 0, (double)busy / x->res / nprocs, 0 } };
    }
    n = merge_rows(r, n, -1);
    {   /* rows only of what is on the path */
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
            if (r[i].v[0] > 0)
                r[k++] = r[i];
        n = k;
    }
    for (size_t i = 0; i < n; i++) {
        r[i].v[1] = len > 0 ? 100.0 * r[i].v[0] / len : 0;
        r[i].v[2] = vftr_cp_imbalance(r[i].v[0], r[i].v[3]);
    }
    if (byfn) {
        /* name by the function token kept in path */
        for (size_t i = 0; i < n; i++) {
            const char *name = r[i].path ? token_name(x->pn.names, NAME_FUNCTION, r[i].path)
                                         : VFTR_ANALYSIS_NO_CALL;

            if (!name) {
                oom = 1;
                break;
            }
            r[i].name = name;
        }
        if (!oom && x->re) {
            size_t k = 0;

            for (size_t i = 0; i < n; i++)
                if (pcre2_match(x->re, (PCRE2_SPTR)r[i].name, PCRE2_ZERO_TERMINATED, 0, 0, x->md,
                                NULL) >= 0)
                    r[k++] = r[i];
            n = k;
        }
    } else {
        n = name_rows(x, r, n, 0, &oom);
    }
    if (oom) {
        free(r);
        free(pr);
        return -ENOMEM;
    }
    t.n = n;
    shown = sort_and_cut(x, r, n);
    nproc = merge_rows(pr, nproc, -1);
    for (size_t i = 0; i < nproc; i++)
        pr[i].v[1] = len > 0 ? 100.0 * pr[i].v[0] / len : 0;
    {
        const struct acolumn *k[1] = { &cp_proc_cols[1] };

        /* processes by their share, the larger first */
        for (size_t i = 1; i < nproc; i++)
            for (size_t j = i; j > 0 && cmp_keyed(&pr[j - 1], &pr[j], k, 1, 0) > 0; j--) {
                struct arow tmp = pr[j];

                pr[j] = pr[j - 1];
                pr[j - 1] = tmp;
            }
    }
    tp.n = nproc;
    if (x->args->format == FMT_CSV) {
        print_table_csv(stdout, &t, shown);
        fputc('\n', stdout);
        print_table_csv(stdout, &tp, nproc);
    } else if (x->args->format == FMT_JSON) {
        fprintf(stdout, "{\"length_s\":%.9g,\"start_s\":%.9g,\"end_s\":%.9g,\"end_process\":%"
                PRIu32 ",", len, (double)(sum->cp_start - x->first) / x->res,
                (double)(sum->cp_end - x->first) / x->res, sum->cp_end_process);
        print_table_json(stdout, byfn ? "functions" : "callpaths", &t, shown);
        fputc(',', stdout);
        print_table_json(stdout, "processes", &tp, nproc);
        fputs("}\n", stdout);
    } else {
        char a[VFTR_FMT_MAX], b[VFTR_FMT_MAX], e[VFTR_FMT_MAX];

        char pl[VFTR_FMT_MAX];

        fprintf(stdout, "critical path: %s, from %s to %s, ending on %s\n",
                say_time(a, sizeof a, sum->cp_length, x->ures),
                say_time(b, sizeof b, sum->cp_length ? sum->cp_start - x->first : 0, x->ures),
                say_time(e, sizeof e, sum->cp_length ? sum->cp_end - x->first : 0, x->ures),
                text_process(pl, sizeof pl, sum->cp_end_process));
        print_table_text(stdout, &t, shown);
        fputc('\n', stdout);
        print_table_text(stdout, &tp, nproc);
    }
    free(r);
    free(pr);
    return 0;
}

static int view_delays(struct ctx *x)
{
    size_t nd, n = 0, shown;
    const struct vftr_delay_row *d = vftr_analysis_delays(x->an, &nd);
    struct arow *r = calloc(nd ? nd : 1, sizeof *r);
    struct atable t = { delay_cols, NCOLS(delay_cols), r, 0 };
    double total = 0;
    int oom = 0;

    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < nd; i++)
        total += (d[i].short_term + d[i].long_term) / x->res;
    for (size_t i = 0; i < nd; i++) {
        if (!wanted(x, d[i].process))
            continue;
        r[n++] = (struct arow){ d[i].pattern, shown_process(x, d[i].process), d[i].path, NULL,
                                { d[i].short_term / x->res, d[i].long_term / x->res, 0, 0, 0 } };
    }
    n = merge_rows(r, n, -1);
    for (size_t i = 0; i < n; i++) {
        r[i].v[2] = r[i].v[0] + r[i].v[1];
        r[i].v[3] = total > 0 ? 100.0 * r[i].v[2] / total : 0;
    }
    n = name_rows(x, r, n, 0, &oom);
    if (oom) {
        free(r);
        return -ENOMEM;
    }
    t.n = n;
    shown = sort_and_cut(x, r, n);
    if (x->args->format == FMT_CSV) {
        print_table_csv(stdout, &t, shown);
    } else if (x->args->format == FMT_JSON) {
        fprintf(stdout, "{\"total_s\":%.9g,", total);
        print_table_json(stdout, "delays", &t, shown);
        fputs("}\n", stdout);
    } else {
        char a[VFTR_FMT_MAX];

        fprintf(stdout, "delay costs: %s of waiting caused in all (short: directly, long: "
                "through the waits it caused)\n", say_seconds(a, sizeof a, total));
        print_table_text(stdout, &t, shown);
    }
    free(r);
    return 0;
}

int stats_analysis(const struct vftr_tool *tool, struct stats_args *args,
                   struct vftr_source *src, struct names *names,
                   const struct vftr_timerange *range, pcre2_code *re, pcre2_match_data *md)
{
    const struct vftr_source_info *info = vftr_source_info(src);
    struct vftr_analysis_opts o = {
        range->start, range->end,
        args->view == VIEW_WAITS      ? VFTR_ANALYSIS_WAITS
        : args->view == VIEW_CRITPATH ? VFTR_ANALYSIS_CRITPATH
                                      : VFTR_ANALYSIS_DELAYS,
        args->rendezvous, NULL, NULL,
    };
    struct vftr_analysis *an = NULL;
    char err[VFTR_ERRMSG_MAX + 512] = "";
    struct ctx x = { args, src, NULL, info->resolution ? (double)info->resolution : 1.0,
                     info->resolution, info->first, { names, NULL, 0, NULL }, re, md };
    int rc = stats_analysis_run(src, &o, &an, err, sizeof err);

    if (rc < 0) {
        rc = vftr_tool_fail(tool, stderr, "%s: %s", info->name, err[0] ? err : strerror(-rc));
        goto out;
    }
    in_ticks = !info->resolution;
    label_src = src;
    if (!an) {                          /* not the process that prints */
        rc = VFTR_EXIT_OK;
        goto out;
    }
    x.an = an;
    x.pn.paths = vftr_analysis_paths(an, &x.pn.npaths);
    if (!(x.pn.v = calloc(x.pn.npaths + 1, sizeof *x.pn.v))) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    rc = args->view == VIEW_WAITS      ? view_waits(&x)
         : args->view == VIEW_CRITPATH ? view_critpath(&x)
                                       : view_delays(&x);
    if (rc < 0) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        rc = vftr_tool_fail(tool, stderr, "write error: %s", strerror(errno));
        goto out;
    }
    if (args->verbose) {
        const struct vftr_analysis_summary *s = vftr_analysis_summary(an);

        fprintf(stderr, "%s: %s: analysed %" PRIu64 " sync records of %" PRIu64 " processes; "
                "%" PRIu64 " receives before their send, %" PRIu64 " sends and %" PRIu64
                " receives unmatched, %" PRIu64 " collectives incomplete, %" PRIu64
                " waits without a delay", tool->name, info->name, s->records, s->nprocs,
                s->early_recvs, s->unmatched_sends, s->unmatched_recvs, s->incomplete_colls,
                s->delay_unexplained);
        if (s->ranks > 1)
            fprintf(stderr, "; each of %" PRIu32 " ranks analysed its own processes", s->ranks);
        fputc('\n', stderr);
    }
    rc = VFTR_EXIT_OK;
out:
    if (x.pn.v)
        for (size_t i = 0; i <= x.pn.npaths; i++)
            free(x.pn.v[i]);
    free(x.pn.v);
    vftr_analysis_free(an);
    return rc;
}
