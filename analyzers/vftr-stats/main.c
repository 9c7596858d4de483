/*
 * vftr-stats — the function profile of an OTF trace: calls, exclusive and
 * inclusive time, time per call, spread over processes and imbalance, as a
 * sorted table (text, CSV or JSON); or, with --callpath, the call-path tree,
 * or, with --messages, the message matrix and the collective operations,
 * or, with --io, the file I/O per file and per function (model/iostat.h);
 * --groups profiles function groups instead of functions.
 *
 * The tool only wires things together: options from lib/util/opts, the
 * time and process syntax from lib/util, and everything about the trace
 * from lib/model/source.h: one loader for every input (an OTF trace, a
 * run's .vfd files or directory) and one profile of a window, so that a
 * figure is the same whatever the input and whatever records it carries.  The columns are described once, in `columns[]`, which drives
 * --sort, the headers and all three output formats.  See
 * share/man/man1/vftr-stats.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/iostat.h"
#include "counters.h"
#include "model/messages.h"
#include "model/profile.h"
#include "model/replay.h"
#include "model/source.h"
#include "model/summary.h"
#include "model/vfdconv.h"
#include "report/report.h"
#include "stats.h"
#include "util/errmsg.h"
#include "util/json.h"
#include "util/number.h"
#include "util/opts.h"
#include "util/proclist.h"
#include "util/timespec.h"
#include "util/fmt.h"
#include "util/progress.h"
#include "util/tracesel.h"

/* ------------------------------------------------------------------ columns */

/* What the value getters see: one row and the table it belongs to. */
struct row {
    const char *name;
    const struct vftr_profile_row *p;
    int exact;               /* calls known (not a sampled capture's estimate) */
    int sampled;             /* a function of statistical call-stack samples */
};

struct table {
    struct row *rows;
    size_t nrows;
    double resolution;      /* ticks per second */
    double total;           /* ticks: 100 % */
};

struct column {
    const char *key;         /* --sort name, CSV header, JSON member */
    const char *header;      /* text header (COL_SECONDS: "[unit]" is added) */
    enum colkind kind;
    double (*value)(const struct row *, const struct table *);   /* NULL for the name */
    const char *help;
};

/* The unit of every time printed: seconds, or the trace's ticks when it
 * does not say how long a tick is (no DefTimerResolution) — then every
 * header says "ticks" and a warning says why, rather than ticks under
 * headers that say seconds.  Set once in stats(). */
static const char *time_unit = "s";

static double seconds(uint64_t ticks, const struct table *t)
{
    return (double)ticks / t->resolution;
}

/* A value below 0 is unknown: calls of a sampled capture's functions that
 * were not recorded on every call. */
static double v_calls(const struct row *r, const struct table *t)
{
    (void)t;
    return r->exact ? (double)r->p->calls : -1;
}
static double v_excl(const struct row *r, const struct table *t) { return seconds(r->p->excl, t); }
static double v_incl(const struct row *r, const struct table *t) { return seconds(r->p->incl, t); }
static double v_excl_pct(const struct row *r, const struct table *t)
{
    return t->total > 0 ? 100.0 * (double)r->p->excl / t->total : 0;
}
static double v_incl_pct(const struct row *r, const struct table *t)
{
    return t->total > 0 ? 100.0 * (double)r->p->incl / t->total : 0;
}
static double v_per_call(const struct row *r, const struct table *t)
{
    if (!r->exact)
        return -1;
    return r->p->calls ? seconds(r->p->incl, t) / (double)r->p->calls : 0;
}
static double v_min(const struct row *r, const struct table *t) { return seconds(r->p->excl_min, t); }
static double v_avg(const struct row *r, const struct table *t) { return r->p->excl_avg / t->resolution; }
static double v_max(const struct row *r, const struct table *t) { return seconds(r->p->excl_max, t); }
static double v_imbalance(const struct row *r, const struct table *t) { (void)t; return r->p->imbalance; }
static double v_procs(const struct row *r, const struct table *t) { (void)t; return r->p->nprocs; }

static const struct column columns[] = {
    { "calls",     "calls",      COL_COUNT,   v_calls,     "number of calls (enters in the window)" },
    { "excl",      "excl",       COL_SECONDS, v_excl,      "exclusive time, summed over processes" },
    { "excl_pct",  "excl%",      COL_PERCENT, v_excl_pct,  "exclusive time, % of the total" },
    { "incl",      "incl",       COL_SECONDS, v_incl,      "inclusive time, summed over processes" },
    { "incl_pct",  "incl%",      COL_PERCENT, v_incl_pct,  "inclusive time, % of the total" },
    { "per_call",  "incl/call",  COL_SECONDS, v_per_call, "inclusive time per call" },
    { "min",       "min",        COL_SECONDS, v_min,       "least exclusive time of one process" },
    { "avg",       "avg",        COL_SECONDS, v_avg,       "average exclusive time per process" },
    { "max",       "max",        COL_SECONDS, v_max,       "most exclusive time of one process" },
    { "imbalance", "imbalance",  COL_RATIO,   v_imbalance, "(max - avg) / max" },
    { "procs",     "procs",      COL_COUNT,   v_procs,     "processes that called the function" },
    { "function",  "function",   COL_NAME,    NULL,        "function name" },
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

static const struct column *find_column(const char *key, size_t len)
{
    for (size_t i = 0; i < NCOLUMNS; i++)
        if (strlen(columns[i].key) == len && strncmp(columns[i].key, key, len) == 0)
            return &columns[i];
    return NULL;
}

/* ------------------------------------------------------------------ options */

/* The profile's --sort keys from args->sort_spec: 0 or -EINVAL (err says why). */
static int parse_sort(struct stats_args *args, char *err, size_t errlen)
{
    const char *s = args->sort_spec;

    args->nsort = 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        const struct column *c = find_column(s, len);

        if (!c) {
            char names[256] = "";
            for (size_t i = 0; i < NCOLUMNS; i++) {
                if (i)
                    strncat(names, ", ", sizeof names - strlen(names) - 1);
                strncat(names, columns[i].key, sizeof names - strlen(names) - 1);
            }
            return vftr_errmsg(err, errlen, -EINVAL, "bad sort column '%.*s' (expected %s)",
                               (int)(len > 64 ? 64 : len), s, names);
        }
        if (args->nsort == MAX_SORT_KEYS)
            return vftr_errmsg(err, errlen, -EINVAL, "too many sort columns (at most %d)",
                               MAX_SORT_KEYS);
        args->sort[args->nsort++] = c;
        if (s[len] == '\0')
            return 0;
        s += len + 1;
    }
}

static int parse_top(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;
    uint64_t n;
    int rc = vftr_count_parse(arg, 0, LONG_MAX, "--top", &n, err, errlen);

    if (rc == 0)
        args->top = (long)n;
    return rc;
}

static int parse_rendezvous(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;
    uint64_t n;
    int rc = vftr_size_parse(arg, 0, UINT64_MAX, "--rendezvous", &n, err, errlen);

    if (rc == 0)
        args->rendezvous = n ? n : 1;    /* 0 bytes: every send may wait */
    return rc;
}

static int parse_jobs(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;
    uint64_t n;
    int rc = vftr_count_parse(arg, 1, 1024, "--jobs", &n, err, errlen);

    if (rc == 0)
        args->jobs = (unsigned)n;
    return rc;
}
/* ------------------------------------------------------------------ names */

/* Stores a copy of name under token id.  0 or -ENOMEM. */
static int nametab_set(struct nametab *t, uint32_t id, const char *name)
{
    if (id >= t->n) {
        size_t n = id + 1 > 2 * t->n ? (size_t)id + 1 : 2 * t->n;
        char **p = realloc(t->v, n * sizeof *p);

        if (!p)
            return -ENOMEM;
        memset(p + t->n, 0, (n - t->n) * sizeof *p);
        t->v = p;
        t->n = n;
    }
    free(t->v[id]);
    t->v[id] = strdup(name ? name : "");
    return t->v[id] ? 0 : -ENOMEM;
}

static void nametab_release(struct nametab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

/* What the tables name: a function, a function group or a collective
 * operation of the source, or "PREFIX-ID" (kept in `unnamed`, so the
 * pointer stays valid) for a token the trace does not define. */
const char *token_name(struct names *nm, int kind, uint32_t id)
{
    char buf[48];
    const char *name = vftr_source_token_name(nm->src, kind, id, buf, sizeof buf);

    if (name != buf)
        return name;
    if (id < nm->unnamed[kind].n && nm->unnamed[kind].v[id])
        return nm->unnamed[kind].v[id];
    return nametab_set(&nm->unnamed[kind], id, buf) == 0 ? nm->unnamed[kind].v[id] : NULL;
}

/* --groups: the token a function is booked under. */
static uint32_t group_token(void *arg, uint32_t function)
{
    const struct vftr_source_func *f = vftr_source_func(arg, function);

    return f ? f->group : 0;
}

/* Are the calls of token id known?  Always, unless the capture was sampled:
 * then only for a function recorded on every call. */
static int calls_exact(const struct vftr_source *src, int groups, uint32_t id)
{
    const struct vftr_source_func *f;

    if (vftr_source_info(src)->sample_interval <= 0)
        return 1;
    if (groups)
        return 0;
    f = vftr_source_func(src, id);
    return f && (f->flags & VFTR_SOURCE_FN_PRECISE);
}

/* Is function token f one found by statistical call-stack sampling (its
 * group is the one capture/sample.c's functions get, in any trace format)? */
static int fn_sampled(const struct vftr_source *src, uint32_t f)
{
    const struct vftr_source_func *fn = vftr_source_func(src, f);
    const char *g = fn ? vftr_source_group_name(src, fn->group) : NULL;

    return g && strcmp(g, VFTR_VFDCONV_SAMPLED_GROUP_NAME) == 0;
}

static int has_samples(const struct vftr_source *src)
{
    size_t n;
    const struct vftr_source_name *g = vftr_source_groups(src, &n);

    for (size_t i = 0; i < n; i++)
        if (g[i].name && strcmp(g[i].name, VFTR_VFDCONV_SAMPLED_GROUP_NAME) == 0)
            return 1;
    return 0;
}

/* The note above every table of a sampled capture, and of a trace with
 * statistical call-stack samples. */
static void print_sampled_note(FILE *out, const struct vftr_source *src, unsigned format)
{
    double iv = vftr_source_info(src)->sample_interval;

    if (format == 0 && has_samples(src))
        fprintf(out, "statistical profile: functions marked (sampled) were found in call-stack\n"
                "samples of the threads' CPU time: calls are samples, times samples x interval\n");
    if (iv <= 0 || format != 0)
        return;
    fprintf(out, "sampled capture: each thread's events were recorded at most every %g s "
            "(and every call of the precise functions): times are estimates within the "
            "sampling error, calls are known for the precise functions only (others: -)\n", iv);
}

/* ------------------------------------------------------------------ output */

static const struct stats_args *sort_args;   /* qsort has no context argument */
static const struct table *sort_table;

static int cmp_rows(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int d;

    for (size_t i = 0; i < sort_args->nsort; i++) {
        const struct column *c = sort_args->sort[i];

        if (c->kind == COL_NAME) {
            d = strcmp(x->name, y->name);          /* names ascend by default */
        } else {
            double u = c->value(x, sort_table), v = c->value(y, sort_table);
            d = u < v ? 1 : u > v ? -1 : 0;        /* numbers descend by default */
        }
        if (d)
            return sort_args->reverse ? -d : d;
    }
    d = strcmp(x->name, y->name);
    if (d)
        return d;
    /* equal names (two tokens, one name): by token, whatever the row order */
    return x->p->function < y->p->function ? -1 : x->p->function > y->p->function;
}

/* The cell's text; "" when the value is unknown (the caller writes the
 * format's own mark: "-" in text, an empty CSV field, JSON null). */
static void format_value(char *buf, size_t size, const struct column *c, const struct row *r,
                         const struct table *t)
{
    if (c->value && c->value(r, t) < 0) {
        buf[0] = '\0';
        return;
    }
    switch (c->kind) {
    case COL_NAME:    snprintf(buf, size, "%s", r->name); break;
    case COL_COUNT:   snprintf(buf, size, "%.0f", c->value(r, t)); break;
    case COL_SECONDS: snprintf(buf, size, "%.6f", c->value(r, t)); break;
    case COL_PERCENT: snprintf(buf, size, "%.2f", c->value(r, t)); break;
    case COL_RATIO:   snprintf(buf, size, "%.4f", c->value(r, t)); break;
    }
}

/* Text output fits 80 columns (util/fmt.h): times in the unit that fits,
 * percentages and the imbalance with one decimal, the name elided in the
 * middle when it is longer than what is left.  A trace without a timer
 * resolution gets whole ticks.  CSV and JSON keep every column. */
#define TEXT_WIDTH 80

static void text_time(double value, char *buf, size_t size)
{
    if (time_unit[0] == 's')
        vftr_fmt_seconds(value, buf, size);
    else
        snprintf(buf, size, "%.0f", value);
}

/* The columns of the text profile, in order; the name comes last. */
static const char *const text_columns[] = { "calls", "excl", "excl_pct", "incl", "imbalance" };
#define NTEXT (sizeof text_columns / sizeof text_columns[0])

static int text_width(const struct column *c)
{
    switch (c->kind) {
    case COL_COUNT:   return 10;
    case COL_SECONDS: return time_unit[0] == 's' ? VFTR_FMT_SECONDS_WIDTH + 1 : 14;
    default:          return VFTR_FMT_IMBALANCE_WIDTH + 1;
    }
}

static void text_cell(char *buf, size_t size, const struct column *c, const struct row *r,
                      const struct table *t)
{
    double v = c->value(r, t);

    if (v < 0)
        snprintf(buf, size, "-");
    else if (c->kind == COL_SECONDS)
        text_time(v, buf, size);
    else if (c->kind == COL_PERCENT)
        vftr_fmt_percent(v, buf, size);
    else if (c->kind == COL_RATIO)
        vftr_fmt_imbalance(v, buf, size);
    else
        snprintf(buf, size, "%.0f", v);
}

static void print_text(FILE *out, const struct table *t, size_t n)
{
    char buf[VFTR_FMT_MAX], name[TEXT_WIDTH + 1];
    const struct column *cols[NTEXT];
    int used = 2;

    for (size_t i = 0; i < NTEXT; i++) {
        cols[i] = find_column(text_columns[i], strlen(text_columns[i]));
        if (cols[i]->kind == COL_SECONDS && time_unit[0] != 's')
            snprintf(buf, sizeof buf, "%s[%s]", cols[i]->header, time_unit);
        else
            snprintf(buf, sizeof buf, "%s", cols[i]->kind == COL_RATIO ? "imbal" :
                     cols[i]->header);
        fprintf(out, "%*s", text_width(cols[i]), buf);
        used += text_width(cols[i]);
    }
    fputs("  function\n", out);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < NTEXT; i++) {
            text_cell(buf, sizeof buf, cols[i], &t->rows[k], t);
            fprintf(out, "%*s", text_width(cols[i]), buf);
        }
        if (t->rows[k].sampled) {   /* the mark stays whole: the name is elided */
            vftr_fmt_elide(t->rows[k].name, (size_t)(TEXT_WIDTH - used) - 10, name,
                           sizeof name);
            fprintf(out, "  %s (sampled)\n", name);
            continue;
        }
        vftr_fmt_elide(t->rows[k].name, (size_t)(TEXT_WIDTH - used), name, sizeof name);
        fprintf(out, "  %s\n", name);
    }
}

void print_csv_string(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_csv(FILE *out, const struct table *t, size_t n)
{
    char buf[64];

    for (size_t i = 0; i < NCOLUMNS; i++)
        fprintf(out, "%s%s", i ? "," : "", columns[i].key);
    fputc('\n', out);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < NCOLUMNS; i++) {
            if (i)
                fputc(',', out);
            if (columns[i].kind == COL_NAME) {
                print_csv_string(out, t->rows[k].name);
            } else {
                format_value(buf, sizeof buf, &columns[i], &t->rows[k], t);
                fputs(buf, out);
            }
        }
        fputc('\n', out);
    }
}

static void print_json(FILE *out, const struct table *t, size_t n, double sampled)
{
    char buf[64];

    fprintf(out, "{\"total_%s\":%.9g,", time_unit, t->total / t->resolution);
    if (sampled > 0)
        fprintf(out, "\"sample_interval_s\":%.9g,", sampled);
    fputs("\"functions\":[", out);
    for (size_t k = 0; k < n; k++) {
        fputs(k ? ",\n{" : "\n{", out);
        for (size_t i = 0; i < NCOLUMNS; i++) {
            fprintf(out, "%s\"%s\":", i ? "," : "", columns[i].key);
            if (columns[i].kind == COL_NAME) {
                vftr_json_string(out, t->rows[k].name);
            } else {
                format_value(buf, sizeof buf, &columns[i], &t->rows[k], t);
                fputs(buf[0] ? buf : "null", out);
            }
        }
        fputc('}', out);
    }
    fputs("\n]}\n", out);
}

/* ------------------------------------------------------------------ call paths */

struct pathrow {
    uint32_t id;
    const char *name;
    const struct vftr_pathstat *p;
    int exact;                /* calls known */
};

/* The call-path tree's one order (replay.h). */
static int cmp_siblings(const void *a, const void *b)
{
    const struct pathrow *x = a, *y = b;

    return vftr_pathstat_order(x->p, x->name, y->p, y->name);
}

static void print_path_row(FILE *out, unsigned format, const struct pathrow *r, double res,
                           int first)
{
    double excl = (double)r->p->excl / res, incl = (double)r->p->incl / res;
    char calls[24];

    snprintf(calls, sizeof calls, "%" PRIu64, r->p->calls);
    if (format == FMT_CSV) {
        fprintf(out, "%s,%.6f,%.6f,%" PRIu32 ",", r->exact ? calls : "", excl, incl,
                r->p->depth);
        print_csv_string(out, r->name);
        fputc('\n', out);
    } else if (format == FMT_JSON) {
        fprintf(out, "%s{\"calls\":%s,\"excl\":%.6f,\"incl\":%.6f,\"depth\":%" PRIu32
                ",\"function\":", first ? "\n" : ",\n", r->exact ? calls : "null", excl, incl,
                r->p->depth);
        vftr_json_string(out, r->name);
        fputc('}', out);
    } else {
        char e[VFTR_FMT_MAX], i[VFTR_FMT_MAX], name[TEXT_WIDTH + 1];
        int indent = (int)(2 * (r->p->depth - 1)), tw = time_unit[0] == 's' ? 11 : 14;
        int room = TEXT_WIDTH - (10 + 2 * tw + 2) - indent;

        text_time(excl, e, sizeof e);
        text_time(incl, i, sizeof i);
        /* deep paths keep at least 16 bytes of the name (the line grows) */
        vftr_fmt_elide(r->name, (size_t)(room < 16 ? 16 : room), name, sizeof name);
        fprintf(out, "%10s%*s%*s  %*s%s\n", r->exact ? calls : "-", tw, e, tw, i, indent, "",
                name);
    }
}

/*
 * The call-path tree, depth first, children ordered by cmp_siblings.  The
 * rows sorted by parent put every node's children in one run; an explicit
 * stack walks the tree (recursive traces make deep trees).  0 or -ENOMEM.
 */
static int print_paths(FILE *out, unsigned format, const struct vftr_replay *replay,
                       struct names *names, int kind, double res)
{
    size_t n, top = 0, nout = 0;
    const struct vftr_pathstat *ps = vftr_replay_paths(replay, &n);
    struct pathrow *rows = calloc(n ? n : 1, sizeof *rows);
    size_t *first = calloc(n + 2, sizeof *first);     /* first[parent]: its children's run */
    size_t *stack = calloc(n ? n : 1, sizeof *stack);
    int rc = -ENOMEM;

    if (!rows || !first || !stack)
        goto out;
    for (size_t i = 0; i < n; i++) {
        rows[i] = (struct pathrow){ (uint32_t)i + 1, token_name(names, kind, ps[i].function),
                                    &ps[i],
                                    calls_exact(names->src, kind == NAME_GROUP, ps[i].function) };
        if (!rows[i].name)
            goto out;
    }
    if (n)
        qsort(rows, n, sizeof *rows, cmp_siblings);
    for (size_t i = 0; i < n; i++)                    /* count children per parent */
        first[rows[i].p->parent + 1]++;
    for (size_t i = 1; i < n + 2; i++)                /* prefix sums: run of parent p */
        first[i] += first[i - 1];                     /* is [first[p], first[p + 1]) */

    if (format == FMT_CSV) {
        fputs("calls,excl,incl,depth,function\n", out);
    } else if (format == FMT_JSON) {
        fputs("{\"paths\":[", out);
    } else {
        int tw = time_unit[0] == 's' ? 11 : 14;

        fprintf(out, "%10s%*s%*s  call path\n", "calls", tw,
                time_unit[0] == 's' ? "excl" : "excl[ticks]", tw,
                time_unit[0] == 's' ? "incl" : "incl[ticks]");
    }
    for (size_t k = first[1]; k-- > first[0];)       /* roots, pushed last first */
        stack[top++] = k;
    while (top > 0) {
        size_t i = stack[--top];
        uint32_t id = rows[i].id;

        print_path_row(out, format, &rows[i], res, nout++ == 0);
        for (size_t k = first[id + 1]; k-- > first[id];)
            stack[top++] = k;
    }
    if (format == FMT_JSON)
        fputs("\n]}\n", out);
    rc = 0;
out:
    free(rows);
    free(first);
    free(stack);
    return rc;
}

/* ------------------------------------------------------------------ file I/O */

/* A row of the --io tables: a file (with its file group) or a function. */
struct iorow {
    const char *name, *group;
    const struct vftr_iostat_row *r;
};

/* Busiest first: time, then bytes, then operations, then the name. */
static int cmp_iorows(const void *a, const void *b)
{
    const struct iorow *x = a, *y = b;
    uint64_t bx = x->r->bytes_read + x->r->bytes_written;
    uint64_t by = y->r->bytes_read + y->r->bytes_written;
    int d;

    if (x->r->time != y->r->time)
        return x->r->time > y->r->time ? -1 : 1;
    if (bx != by)
        return bx > by ? -1 : 1;
    if (x->r->ops != y->r->ops)
        return x->r->ops > y->r->ops ? -1 : 1;
    d = strcmp(x->name, y->name);
    return d ? d : (x->r->key > y->r->key) - (x->r->key < y->r->key);
}

/* Bytes per second in MB/s of bytes moved in ticks; < 0 when no time. */
static double io_bw(uint64_t bytes, uint64_t ticks, double res)
{
    return ticks ? (double)bytes / 1e6 / ((double)ticks / res) : -1;
}

static void io_row(FILE *out, unsigned format, const char *table, const struct iorow *w,
                   double res, int first)
{
    const struct vftr_iostat_row *r = w->r;
    double rb = io_bw(r->bytes_read, r->read_time, res), wb = io_bw(r->bytes_written,
                                                                     r->write_time, res);
    char rbs[32] = "", wbs[32] = "";

    if (rb >= 0)
        snprintf(rbs, sizeof rbs, "%.3f", rb);
    if (wb >= 0)
        snprintf(wbs, sizeof wbs, "%.3f", wb);
    if (format == FMT_CSV) {
        fprintf(out, "%s,", table);
        print_csv_string(out, w->name);
        fputc(',', out);
        print_csv_string(out, w->group);
        fprintf(out, ",%" PRIu64, r->ops);
        for (int k = 0; k < VFTR_IOSTAT_NKINDS; k++)
            fprintf(out, ",%" PRIu64, r->kind[k]);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%s,%s\n", r->failed,
                r->bytes_read, r->bytes_written, (double)r->time / res, rbs, wbs);
    } else if (format == FMT_JSON) {
        fputs(first ? "\n{\"name\":" : ",\n{\"name\":", out);
        vftr_json_string(out, w->name);
        if (w->group[0]) {
            fputs(",\"group\":", out);
            vftr_json_string(out, w->group);
        }
        fprintf(out, ",\"ops\":%" PRIu64, r->ops);
        for (int k = 0; k < VFTR_IOSTAT_NKINDS; k++)
            fprintf(out, ",\"%s\":%" PRIu64, vftr_iostat_kind_name((enum vftr_iostat_kind)k),
                    r->kind[k]);
        fprintf(out, ",\"failed\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%"
                PRIu64 ",\"time\":%.6f,\"read_mbps\":%s,\"write_mbps\":%s}", r->failed,
                r->bytes_read, r->bytes_written, (double)r->time / res, rb >= 0 ? rbs : "null",
                wb >= 0 ? wbs : "null");
    } else {
        fprintf(out, "%9" PRIu64, r->ops);
        for (int k = 0; k < VFTR_IOSTAT_NKINDS; k++)
            fprintf(out, " %7" PRIu64, r->kind[k]);
        fprintf(out, " %6" PRIu64 " %14" PRIu64 " %14" PRIu64 " %12.6f %10s %10s  ", r->failed,
                r->bytes_read, r->bytes_written, (double)r->time / res, rb >= 0 ? rbs : "-",
                wb >= 0 ? wbs : "-");
        if (w->group[0])
            fprintf(out, "%s: ", w->group);
        fprintf(out, "%s\n", w->name);
    }
}

static void io_header(FILE *out, const char *what)
{
    fprintf(out, "%9s", "ops");
    for (int k = 0; k < VFTR_IOSTAT_NKINDS; k++)
        fprintf(out, " %7s", vftr_iostat_kind_name((enum vftr_iostat_kind)k));
    fprintf(out, " %6s %14s %14s %12s %10s %10s  %s\n", "failed", "read[B]", "written[B]",
            "time[s]", "read[MB/s]", "write[MB/s]", what);
}

/* The name a --io row of kind `table` gets. */
static const char *io_name(struct names *nm, int files, uint32_t key, const char **group)
{
    *group = "";
    if (files) {
        const struct vftr_source_file *f = vftr_source_file(nm->src, key);
        const char *g = f ? vftr_source_filegroup_name(nm->src, f->group) : NULL;

        *group = g ? g : "";
        return f ? f->name : "(undefined file)";
    }
    return key ? token_name(nm, NAME_FUNCTION, key) : "(no function)";
}

/*
 * --io: the file table and the function table of s, busiest first, each
 * cut to --top rows and filtered by --match (on the file's or the
 * function's name).  0 or -ENOMEM.
 */
static int print_io(FILE *out, const struct stats_args *args, const struct vftr_iostat *s,
                    struct names *nm, double res, const pcre2_code *re, pcre2_match_data *md)
{
    struct vftr_iostat_row total;
    int firstjson = 1;

    vftr_iostat_total(s, &total);
    if (args->format == FMT_CSV)
        fprintf(out, "table,name,group,ops,open,close,read,write,seek,sync,other,failed,"
                "bytes_read,bytes_written,time,read_mbps,write_mbps\n");
    else if (args->format == FMT_JSON)
        fprintf(out, "{\"ops\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%"
                PRIu64 ",\"time\":%.6f", total.ops, total.bytes_read, total.bytes_written,
                (double)total.time / res);
    else
        fprintf(out, "file I/O: %" PRIu64 " operations, %" PRIu64 " bytes read, %" PRIu64
                " bytes written, %.6f s in the operations\n", total.ops, total.bytes_read,
                total.bytes_written, (double)total.time / res);
    for (int files = 1; files >= 0; files--) {
        size_t n, kept = 0;
        const struct vftr_iostat_row *r = files ? vftr_iostat_files(s, &n)
                                                : vftr_iostat_functions(s, &n);
        struct iorow *rows = calloc(n ? n : 1, sizeof *rows);

        if (!rows)
            return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
            const char *group, *name = io_name(nm, files, r[i].key, &group);

            if (!name) {
                free(rows);
                return -ENOMEM;
            }
            if (re && pcre2_match(re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md,
                                  NULL) < 0)
                continue;
            rows[kept++] = (struct iorow){ name, group, &r[i] };
        }
        qsort(rows, kept, sizeof *rows, cmp_iorows);
        if (args->top >= 0 && (size_t)args->top < kept)
            kept = (size_t)args->top;
        if (args->format == FMT_JSON) {
            fprintf(out, ",\"%s\":[", files ? "files" : "functions");
            firstjson = 1;
        } else if (args->format == FMT_TEXT) {
            fprintf(out, "\n%s\n", files ? "per file:" : "per function (the call the "
                    "operation was made from):");
            io_header(out, files ? "file" : "function");
        }
        for (size_t i = 0; i < kept; i++) {
            io_row(out, args->format, files ? "file" : "function", &rows[i], res, firstjson);
            firstjson = 0;
        }
        if (args->format == FMT_JSON)
            fputs("\n]", out);
        free(rows);
    }
    if (args->format == FMT_JSON)
        fputs("}\n", out);
    return 0;
}

/* ------------------------------------------------------------------ messages */

/* A process as users know it ("rank 3 thread 2"); "process N" for a token
 * the trace does not define. */
static void proc_label(const struct vftr_source *src, uint32_t token, char *buf, size_t size)
{
    const struct vftr_source_proc *p = vftr_source_proc(src, token);

    if (p)
        vftr_fmt_process(p->rank, p->thread, buf, size);
    else
        snprintf(buf, size, "process %" PRIu32, token);
}

static int print_messages(FILE *out, unsigned format, const struct vftr_messages *m,
                          struct names *names, double res)
{
    size_t np, nc;
    const struct vftr_msgpair *p = vftr_messages_pairs(m, &np);
    const struct vftr_collstat *c = vftr_messages_collectives(m, &nc);
    const struct vftr_msg_counts *k = vftr_messages_counts(m);
    const char *name;

    if (format == FMT_CSV)
        fputs("sender,receiver,messages,bytes,matched,transfer\n", out);
    else if (format == FMT_JSON)
        fprintf(out, "{\"sends\":%" PRIu64 ",\"recvs\":%" PRIu64 ",\"matched\":%" PRIu64
                ",\"unmatched_sends\":%" PRIu64 ",\"unmatched_recvs\":%" PRIu64
                ",\"unmatched_begins\":%" PRIu64 ",\"unmatched_ends\":%" PRIu64
                ",\"recvs_sent_before\":%" PRIu64 ",\"pairs\":[",
                k->sends, k->recvs, k->matched, k->unmatched_sends, k->unmatched_recvs,
                k->unmatched_begins, k->unmatched_ends, k->recvs_open);
    else {
        fprintf(out, "point-to-point: %" PRIu64 " sent, %" PRIu64 " received, %" PRIu64
                " matched, %" PRIu64 " sends and %" PRIu64 " receives unmatched\n",
                k->sends, k->recvs, k->matched, k->unmatched_sends, k->unmatched_recvs);
        if (k->recvs_open)
            fprintf(out, "(%" PRIu64 " of the receives completed messages sent before the "
                    "window)\n", k->recvs_open);
        fprintf(out, "%-16s %-16s %9s %12s %8s %10s\n",
                "sender", "receiver", "messages", "bytes", "matched",
                time_unit[0] == 's' ? "transfer" : "transfer[ticks]");
    }
    for (size_t i = 0; i < np; i++) {
        double t = (double)p[i].transfer / res;

        if (format == FMT_CSV)
            fprintf(out, "%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f\n",
                    p[i].sender, p[i].receiver, p[i].messages, p[i].bytes, p[i].matched, t);
        else if (format == FMT_JSON)
            fprintf(out, "%s{\"sender\":%" PRIu32 ",\"receiver\":%" PRIu32 ",\"messages\":%"
                    PRIu64 ",\"bytes\":%" PRIu64 ",\"matched\":%" PRIu64 ",\"transfer\":%.6f}",
                    i ? ",\n" : "\n", p[i].sender, p[i].receiver, p[i].messages, p[i].bytes,
                    p[i].matched, t);
        else {
            char snd[VFTR_FMT_MAX], rcv[VFTR_FMT_MAX], tt[VFTR_FMT_MAX];

            proc_label(names->src, p[i].sender, snd, sizeof snd);
            proc_label(names->src, p[i].receiver, rcv, sizeof rcv);
            text_time(t, tt, sizeof tt);
            fprintf(out, "%-16s %-16s %9" PRIu64 " %12" PRIu64 " %8" PRIu64 " %10s\n", snd, rcv,
                    p[i].messages, p[i].bytes, p[i].matched, tt);
        }
    }

    if (format == FMT_CSV)
        fputs("\noperation,count,bytes,time\n", out);
    else if (format == FMT_JSON)
        fputs("\n],\"collectives\":[", out);
    else
        fprintf(out, "\ncollectives: %" PRIu64 " operations, %" PRIu64 " begins and %" PRIu64
                " ends unmatched\n%10s %14s %10s  %s\n", k->collops, k->unmatched_begins,
                k->unmatched_ends, "count", "bytes", time_unit[0] == 's' ? "time" : "time[ticks]",
                "operation");
    for (size_t i = 0; i < nc; i++) {
        if (!(name = token_name(names, NAME_COLLOP, c[i].op)))
            return -ENOMEM;
        if (format == FMT_CSV) {
            print_csv_string(out, name);
            fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.6f\n", c[i].count, c[i].bytes,
                    (double)c[i].time / res);
        } else if (format == FMT_JSON) {
            fputs(i ? ",\n{\"operation\":" : "\n{\"operation\":", out);
            vftr_json_string(out, name);
            fprintf(out, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"time\":%.6f}",
                    c[i].count, c[i].bytes, (double)c[i].time / res);
        } else {
            char tt[VFTR_FMT_MAX], nm[TEXT_WIDTH + 1];

            text_time((double)c[i].time / res, tt, sizeof tt);
            vftr_fmt_elide(name, TEXT_WIDTH - 38, nm, sizeof nm);
            fprintf(out, "%10" PRIu64 " %14" PRIu64 " %10s  %s\n", c[i].count, c[i].bytes, tt,
                    nm);
        }
    }
    if (format == FMT_JSON)
        fputs("\n]}\n", out);
    return 0;
}
/* ------------------------------------------------------------------ messages in */

static int m_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    return vftr_messages_send(arg, time, sender, receiver, comm, tag, length);
}

static int m_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    return vftr_messages_recv(arg, time, receiver, sender, comm, tag, length);
}

/* A message in flight at the window start: its receive in the window is
 * not a receive of the window's next send (messages.h). */
static int m_open_message(void *arg, uint64_t time, uint32_t sender, uint32_t receiver,
                          uint32_t comm, uint32_t tag, uint32_t length)
{
    return vftr_messages_open_send(arg, time, sender, receiver, comm, tag, length);
}

static int m_collop(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                    uint32_t root, uint64_t sent, uint64_t received, uint64_t duration)
{
    (void)time, (void)comm, (void)root;
    return vftr_messages_collop(arg, process, op, sent, received, duration);
}

static int m_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    (void)comm, (void)root;
    return vftr_messages_coll_begin(arg, time, process, op, id, sent, received);
}

static int m_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t id)
{
    return vftr_messages_coll_end(arg, time, process, id);
}

/* ------------------------------------------------------------------ --plot */

/*
 * The chart of the view, drawn by lib/report (vftr-report's drawing, from
 * the same window and processes): the profile's imbalance (min / avg / max
 * per function), the call tree as an icicle, time per rank by group, the
 * bytes matrix.  Written through FILE.tmp and renamed.
 */
static int plot(const struct vftr_tool *tool, const struct stats_args *args, char *const *ops,
                int nops)
{
    enum vftr_report_chart c = args->view == VIEW_CALLPATH ? VFTR_REPORT_CHART_CALLTREE
                               : args->view == VIEW_MESSAGES ? VFTR_REPORT_CHART_BYTES
                               : args->groups ? VFTR_REPORT_CHART_RANKS
                                              : VFTR_REPORT_CHART_IMBALANCE;
    struct vftr_report_opts ro = { NULL, tool->name, args->jobs, args->sel.window,
                                   args->sel.have_procs ? &args->sel.procs : NULL, 0, 1, 1 };
    struct vftr_report *rep = NULL;
    char err[VFTR_ERRMSG_MAX + 512], tmp[4096];
    FILE *f;
    int rc;

    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", args->plot) >= sizeof tmp)
        return vftr_tool_fail(tool, stderr, "%s: name too long", args->plot);
    rc = vftr_report_collect(&rep, (const char *const *)ops, (size_t)nops, &ro, err, sizeof err);
    if (rc < 0)
        return vftr_tool_fail(tool, stderr, "%s", err);
    if (!(f = fopen(tmp, "w"))) {
        rc = vftr_tool_fail(tool, stderr, "%s: cannot write (%s)", args->plot, strerror(errno));
        vftr_report_free(rep);
        return rc;
    }
    rc = vftr_report_write_svg(rep, c, f);
    if (fclose(f) != 0 && rc == 0)
        rc = -EIO;
    if (rc == 0 && rename(tmp, args->plot) != 0)
        rc = -errno;
    vftr_report_free(rep);
    if (rc < 0) {
        remove(tmp);
        return vftr_tool_fail(tool, stderr, "%s: cannot write (%s)", args->plot, strerror(-rc));
    }
    return VFTR_EXIT_OK;
}

/* ------------------------------------------------------------------ main job */

/* Exit code of a source error: -EINVAL is the command line's fault. */
static int source_fail(const struct vftr_tool *tool, int rc, const char *err)
{
    if (rc == -EINVAL)
        return vftr_tool_usage_fail(tool, stderr, "%s", err);
    return vftr_tool_fail(tool, stderr, "%s", err);
}

static int stats(const struct vftr_tool *tool, struct stats_args *args, char *const *ops,
                 int nops)
{
    char err[VFTR_ERRMSG_MAX + 512], why[VFTR_ERRMSG_MAX];
    struct vftr_source_opts so = { stderr, tool->name, args->jobs };
    struct vftr_source *src = NULL;
    const struct vftr_source_info *info;
    struct vftr_timerange range = { 0, UINT64_MAX };
    const struct vftr_proclist *procs = args->sel.have_procs ? &args->sel.procs : NULL;
    struct names names = { 0 };
    struct vftr_profq_result res = { 0 };
    struct vftr_progress line;
    struct vftr_profile prof = VFTR_PROFILE_INIT;
    struct vftr_messages *messages = NULL;
    struct table table = { 0 };
    pcre2_code *re = NULL;
    pcre2_match_data *md = NULL;
    int kind = args->groups ? NAME_GROUP : NAME_FUNCTION;
    int rc = VFTR_EXIT_ERROR;

    if (args->match) {
        int code;
        PCRE2_SIZE off;

        re = pcre2_compile((PCRE2_SPTR)args->match, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
        if (!re) {
            pcre2_get_error_message(code, (PCRE2_UCHAR *)why, sizeof why);
            return vftr_tool_usage_fail(tool, stderr, "bad --match '%s' at offset %zu: %s",
                                        args->match, (size_t)off, why);
        }
        md = pcre2_match_data_create_from_pattern(re, NULL);
        if (!md) {
            pcre2_code_free(re);
            return vftr_tool_fail(tool, stderr, "out of memory");
        }
    }

    rc = vftr_source_open_shared(&src, (const char *const *)ops, (size_t)nops, &so,
                                 stats_source_share(), err, sizeof err);
    if (rc < 0) {
        rc = source_fail(tool, rc, err);
        goto out;
    }
    info = vftr_source_info(src);
    names.src = src;
    if ((rc = vftr_source_resolve_names(src, &args->sel, err, sizeof err)) < 0) {
        rc = vftr_tool_fail(tool, stderr, "%s: %s", info->name, err);
        goto out;
    }
    if (args->sel.window) {
        struct vftr_timebase base = { info->resolution, info->first };

        if (vftr_timerange_parse(args->sel.window, &base, &range, err, sizeof err) < 0) {
            rc = vftr_tool_usage_fail(tool, stderr, "%s", err);
            goto out;
        }
    }
    if (procs) {
        size_t np, hit = 0;
        const struct vftr_source_proc *p = vftr_source_procs(src, &np);

        for (size_t i = 0; i < np; i++)
            hit += vftr_proclist_contains(procs, p[i].token);
        if (hit == 0) {
            char list[128];
            size_t len = vftr_proclist_format(procs, list, sizeof list);

            rc = vftr_tool_fail(tool, stderr, "%s: none of the processes %s%s is in the trace",
                                info->name, list, len >= sizeof list ? "..." : "");
            goto out;
        }
    }
    table.resolution = info->resolution ? (double)info->resolution : 1.0;
    if (!info->resolution) {
        time_unit = "ticks";
        fprintf(stderr, "%s: warning: %s: the trace does not give its timer resolution: times "
                "are in ticks, not seconds\n", tool->name, info->name);
    }

    if (args->view >= VIEW_WAITS) {
        rc = stats_analysis(tool, args, src, &names, &range, re, md);
        goto out;
    }

    if (args->view == VIEW_IO) {
        struct vftr_iostat *io = NULL;

        rc = vftr_iostat_read(src, range.start, range.end, procs, &io, err, sizeof err);
        if (rc < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s: %s", info->name,
                                err[0] ? err : strerror(-rc));
            goto out;
        }
        print_sampled_note(stdout, src, args->format);
        rc = print_io(stdout, args, io, &names, table.resolution, re, md);
        vftr_iostat_free(io);
        goto written;
    }

    if (args->view == VIEW_COUNTERS) {
        rc = stats_counters(stdout, src, range.start, range.end, procs, args->format == FMT_CSV,
                            err, sizeof err);
        if (rc < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s", err);
            goto out;
        }
        goto written;
    }
    if (args->view == VIEW_MESSAGES) {
        struct vftr_window_handler h = { .open_message = m_open_message, .send = m_send,
                                         .recv = m_recv, .collop = m_collop,
                                         .coll_begin = m_coll_begin, .coll_end = m_coll_end };
        struct vftr_window_stats st = { 0 };

        messages = vftr_messages_new(NULL, NULL);
        if (!messages ||
            vftr_messages_set_ranks(messages, vftr_source_peer_ranks(src), src) < 0) {
            rc = vftr_tool_fail(tool, stderr, "out of memory");
            goto out;
        }
        h.arg = messages;
        /* A window needs the messages in flight at its start (the state
         * at a); the whole run has none. */
        rc = vftr_source_read(src, range.start, range.end, procs,
                              args->sel.window ? 0 : VFTR_SOURCE_EVENTS_ONLY, &h, &st, err,
                              sizeof err);
        if (rc != 0) {
            rc = vftr_tool_fail(tool, stderr, "%s: %s", info->name,
                                rc < 0 && err[0] ? err : strerror(rc < 0 ? -rc : EIO));
            goto out;
        }
        vftr_messages_finish(messages);
        print_sampled_note(stdout, src, args->format);
        rc = print_messages(stdout, args->format, messages, &names, table.resolution);
        if (args->verbose)
            fprintf(stderr, "%s: %s: messages from the events%s; read %" PRIu64 " bytes\n",
                    tool->name, info->name, args->sel.window ? " of the window" : "",
                    st.bytes_read);
        goto written;
    }

    struct vftr_profq q = {
        range.start, range.end, procs, args->groups ? group_token : NULL,
        args->fold == -2 ? NULL : vftr_source_rank_process, src,
        (args->view == VIEW_CALLPATH ? VFTR_PROFQ_PATHS : 0) |
            (args->groups ? VFTR_PROFQ_INCL_ONCE : 0),
    };
    /* a progress line on a terminal while the events are read (.vfd, OTF,
     * OTF2; the source sets its total) */
    vftr_progress_init(&line, tool->name, stderr, 0, args->quiet);
    vftr_source_set_progress(src, &line);
    rc = vftr_source_profile(src, &q, &res, err, sizeof err);
    vftr_source_set_progress(src, NULL);
    vftr_progress_end(&line, line.total, res.delivered);
    if (rc < 0) {
        rc = vftr_tool_fail(tool, stderr, "%s", err[0] ? err : strerror(-rc));
        goto out;
    }
    print_sampled_note(stdout, src, args->format);
    if (args->view == VIEW_CALLPATH) {
        rc = print_paths(stdout, args->format, res.paths, &names, kind, table.resolution);
        goto written;
    }

    size_t nfs;
    const struct vftr_funcstat *fs = vftr_fsacc_result(res.acc, &nfs, NULL);
    if (!fs || vftr_profile_build(&prof, fs, nfs) < 0 ||
        !(table.rows = calloc(prof.nrows ? prof.nrows : 1, sizeof *table.rows))) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    table.total = (double)prof.total;     /* before --match: % of everything */
    for (size_t i = 0; i < prof.nrows; i++) {
        uint32_t f = prof.rows[i].function;
        const char *name = token_name(&names, kind, f);
        struct row *row = &table.rows[table.nrows];

        if (!name) {
            rc = vftr_tool_fail(tool, stderr, "out of memory");
            goto out;
        }
        if (re && pcre2_match(re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) < 0)
            continue;
        row->name = name;
        row->p = &prof.rows[i];
        row->exact = calls_exact(src, args->groups, f);
        row->sampled = !args->groups && fn_sampled(src, f);
        table.nrows++;
    }

    if (args->nsort == 0) {
        args->sort[0] = find_column("excl", 4);
        args->nsort = 1;
    }
    sort_args = args;
    sort_table = &table;
    qsort(table.rows, table.nrows, sizeof *table.rows, cmp_rows);

    size_t n = table.nrows;
    if (args->top >= 0 && (size_t)args->top < n)
        n = (size_t)args->top;
    if (args->format == FMT_CSV)
        print_csv(stdout, &table, n);
    else if (args->format == FMT_JSON)
        print_json(stdout, &table, n, info->sample_interval);
    else
        print_text(stdout, &table, n);
    rc = 0;
written:
    if (rc < 0) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        rc = vftr_tool_fail(tool, stderr, "write error: %s", strerror(errno));
        goto out;
    }
    rc = VFTR_EXIT_OK;
    if (args->verbose && args->view != VIEW_MESSAGES && args->view != VIEW_IO) {
        fprintf(stderr, "%s: %s: ", tool->name, info->name);
        if (strcmp(res.method, "summaries") == 0)
            fprintf(stderr, "window from summaries (%d summary reads, %d replays from "
                    "snapshots, %" PRIu64 " events replayed, %" PRIu64 " in replays)",
                    res.nsums, res.npieces, res.replayed, res.delivered);
        else if (strcmp(res.method, "snapshots") == 0)
            fprintf(stderr, "window from the nearest snapshot (%" PRIu64 " events replayed, %"
                    PRIu64 " in the window)", res.replayed, res.delivered);
        else if (info->kind == VFTR_SOURCE_VFD)
            fprintf(stderr, "profile from the events of %zu .vfd file(s)%s (%u thread(s))",
                    info->nfiles, args->sel.window ? ", window" : "", res.jobs);
        else
            fprintf(stderr, "profile from the events%s (%u stream(s), %u thread(s))",
                    args->sel.window ? " of the window" : "", res.streams, res.jobs);
        fprintf(stderr, "; read %" PRIu64 " bytes\n", res.bytes);
    }
out:
    vftr_profq_release(&res);
    free(table.rows);
    vftr_profile_release(&prof);
    vftr_messages_free(messages);
    for (int k = 0; k < 3; k++)
        nametab_release(&names.unnamed[k]);
    vftr_source_free(src);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc;
}

int main(int argc, char **argv)
{
    struct stats_args args = { .sel = VFTR_TRACESEL_INIT, .top = -1, .fold = 1 };
    int callpath = 0, messages = 0, io = 0, counters = 0, waits = 0, critpath = 0, delays = 0;
    char err[VFTR_ERRMSG_MAX];
    const struct vftr_opt opts[] = {
        { VFTR_OPT_STRING, "sort", 's', "COL[,COL]",
          "sort by these columns (see COLUMNS below);\nnumbers descend, names ascend",
          &args.sort_spec, 0, NULL },
        { VFTR_OPT_FLAG, "reverse", 'r', NULL, "reverse the order", &args.reverse, 1, NULL },
        { VFTR_OPT_CALLBACK, "top", 0, "N", "print only the first N functions", &args, 0, parse_top },
        { VFTR_OPT_STRING, "match", 'm', "REGEX",
          "only functions whose name matches REGEX (PCRE2);\npercentages stay of the total",
          &args.match, 0, NULL },
        { VFTR_OPT_CALLBACK, "time", 't', "A:B",
          "profile only the window A <= time < B\n(see TIMES below)", &args.sel, 0, vftr_tracesel_opt_time },
        { VFTR_OPT_CALLBACK, "process", 'p', "LIST",
          "only these processes: rank 3, rank 3 thread 2\n(from 0; ranges 0-3), or OTF tokens 1-4,9", &args.sel, 0, vftr_tracesel_opt_process },
        { VFTR_OPT_FLAG, "callpath", 'C', NULL,
          "print the call-path tree (calls, excl, incl per\npath) instead of the function profile",
          &callpath, 1, NULL },
        { VFTR_OPT_FLAG, "messages", 'M', NULL,
          "print the message matrix (per sender and receiver)\nand the collective operations",
          &messages, 1, NULL },
        { VFTR_OPT_FLAG, "io", 'I', NULL,
          "print the file I/O per file and per function:\noperations, bytes, time, bandwidth",
          &io, 1, NULL },
        { VFTR_OPT_FLAG, "counters", 'K', NULL,
          "print the performance counters per call path\n(inclusive and exclusive; capture's "
          "counters.events)", &counters, 1, NULL },
        { VFTR_OPT_FLAG, "waits", 0, NULL,
          "print the wait states (Scalasca's patterns) per\npattern, call path and process",
          &waits, 1, NULL },
        { VFTR_OPT_FLAG, "critical-path", 0, NULL,
          "print the critical path: each function's share\nof it and its imbalance (per call "
          "path with\n--callpath), and each process's share",
          &critpath, 1, NULL },
        { VFTR_OPT_FLAG, "delays", 0, NULL,
          "print the delay costs: the waits each call path\nof a late process caused, directly "
          "and through\nthe waits it caused in turn", &delays, 1, NULL },
        { VFTR_OPT_CALLBACK, "rendezvous", 0, "BYTES",
          "Late Receiver: a standard send of at least BYTES\nmay wait for its receive "
          "(default 4096;\nMPI_Ssend always may)", &args, 0, parse_rendezvous },
        { VFTR_OPT_FLAG, "groups", 'g', NULL,
          "profile function groups instead of functions\n(DefFunctionGroup)", &args.groups, 1,
          NULL },
        { VFTR_OPT_FLAG, "fold-threads", 'F', NULL,
          "book threads under their rank: a process under\nits outermost parent process (the default)",
          &args.fold, 1, NULL },
        { VFTR_OPT_FLAG, "threads", 'T', NULL,
          "keep threads apart, one process each", &args.fold, -2, NULL },
        { VFTR_OPT_FLAG, "verbose", 'v', NULL,
          "say on stderr how the profile was made (events,\nsummaries, snapshots) and the bytes read",
          &args.verbose, 1, NULL },
        { VFTR_OPT_CALLBACK, "jobs", 'j', "N",
          "read the trace's streams with N threads (default:\nthe online CPUs; at most one per stream)",
          &args, 0, parse_jobs },
        { VFTR_OPT_FLAG, "quiet", 'q', NULL,
          "no progress line (drawn only on a terminal, while\nthe events of a profile are read)",
          &args.quiet, 1, NULL },
        { VFTR_OPT_STRING, "plot", 0, "FILE.svg",
          "also draw the view as an SVG chart: imbalance\n(profile), icicle (--callpath), time per rank\n"
          "(--groups), bytes matrix (--messages)", &args.plot, 0, NULL },
        { VFTR_OPT_FLAG, "csv", 0, NULL, "print CSV", &args.format, FMT_CSV, NULL },
        { VFTR_OPT_FLAG, "json", 'J', NULL, "print JSON", &args.format, FMT_JSON, NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_tool tool = {
        "vftr-stats", VFTR_VERSION, "[OPTION]... TRACE",
        "Print the function profile of TRACE: an OTF trace (foo or foo.otf), or a\n"
        "run's .vfd files or its directory (the same profile as its conversion).",
        "COLUMNS: calls, excl, excl_pct, incl, incl_pct, per_call, min, avg, max,\n"
        "imbalance, procs, function.  The text fits 80 columns: calls, excl, excl%,\n"
        "incl, imbal and the function (long names elided in the middle), times in\n"
        "the unit that fits (1.23 ms); --csv and --json give every column, times in\n"
        "seconds.  Times are summed over processes;\n"
        "min, avg and max are a function's exclusive time over the processes that\n"
        "called it; imbalance is (max - avg) / max.  A function's inclusive time\n"
        "is summed over its calls (nested recursive calls too; a group counts\n"
        "once while it is on the stack).  Default order: excl, descending.\n"
        "\n"
        "TIMES are counted from the trace's first time stamp: a bare number is\n"
        "timer ticks (2500), a number with a unit s, ms, us or ns is converted\n"
        "with the trace's timer resolution (1.5ms).  Either side of A:B may be\n"
        "empty.  Calls cut by the window count with their time inside it; calls\n"
        "counts the enters inside the window.\n"
        "\n"
        "--callpath, --messages and --counters ignore --sort, --top and --match;\n"
        "--counters prints text or CSV.  Processes are\n"
        "named rank 3, rank 3 thread 2 (from 0) in --messages and --process.\n"
        "--io ignores --sort (busiest first: time, bytes, operations) and applies\n"
        "--top and --match to each of its tables (files, functions).  An operation\n"
        "counts at its end and is booked under the call on top of its process's\n"
        "stack when it began; bandwidth is bytes read (written) per second in\n"
        "reads (writes).\n"
        "\n"
        "--waits, --critical-path and --delays tell why the time goes (see\n"
        "vftr-stats(1) and share/doc/analysis.md).  Their COLUMNS: --waits: pattern,\n"
        "time, pct, count, max, process, callpath (default order: time);\n"
        "--critical-path: time, pct, imbalance, function (callpath with\n"
        "--callpath); --delays: pattern, short, long, total, pct, process,\n"
        "callpath (default order: total).  --time and --process choose the waits\n"
        "shown; the analysis reads the trace from its start.\n"
        "\n"
        "Exit status: 0 ok, 1 the trace cannot be read, 2 bad command line.\n",
        opts,
    };
    int first, rc;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0) {
        vftr_tracesel_release(&args.sel);
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    }
    args.view = waits ? VIEW_WAITS : critpath ? VIEW_CRITPATH : delays ? VIEW_DELAYS
              : io ? VIEW_IO : counters ? VIEW_COUNTERS : messages ? VIEW_MESSAGES : callpath ? VIEW_CALLPATH : VIEW_PROFILE;
    args.callpath = callpath;
    const struct { int on; const char *name; } views[] = {
        { callpath && !critpath, "--callpath" }, { messages, "--messages" }, { io, "--io" },
        { counters, "--counters" },
        { waits, "--waits" }, { critpath, "--critical-path" }, { delays, "--delays" },
    };
    const char *one = NULL, *two = NULL;

    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        if (views[i].on && !one)
            one = views[i].name;
        else if (views[i].on && !two)
            two = views[i].name;
    if (two)        /* names two of the views asked for; --callpath goes with --critical-path */
        rc = vftr_tool_usage_fail(&tool, stderr, "%s and %s exclude each other", one, two);
    else if (args.view >= VIEW_WAITS && (rc = stats_analysis_sort(&tool, &args)) != 0)
        ;
    else if (args.view < VIEW_WAITS && args.sort_spec &&
             parse_sort(&args, err, sizeof err) < 0)
        rc = vftr_tool_usage_fail(&tool, stderr, "%s", err);
    else if (first >= argc)
        rc = vftr_tool_usage_fail(&tool, stderr, "missing TRACE operand");
    else if (!(rc = vftr_source_check_operands(&tool, argv + first, argc - first,
                                                VFTR_TAKES_ALL)))
        rc = stats(&tool, &args, argv + first, argc - first);
    if (rc == VFTR_EXIT_OK && args.plot)
        rc = plot(&tool, &args, argv + first, argc - first);
    vftr_tracesel_release(&args.sel);
    return rc;
}
