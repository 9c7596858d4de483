/*
 * vftr-stats — the function profile of an OTF trace: calls, exclusive and
 * inclusive time, time per call, spread over processes and imbalance, as a
 * sorted table (text, CSV or JSON); or, with --callpath, the call-path tree,
 * or, with --messages, the message matrix and the collective operations;
 * --groups profiles function groups instead of functions.
 *
 * The tool only wires things together: options from lib/util/opts, trace
 * name, time window and process selection from lib/util/tracesel, the
 * call-stack replay and the aggregation (and the imbalance figure) from
 * lib/model.  The columns are described once, in `columns[]`, which drives
 * --sort, the headers and all three output formats.  See
 * share/man/man1/vftr-stats.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "otf.h"

#include "model/messages.h"
#include "model/otfreplay.h"
#include "model/profile.h"
#include "model/replay.h"
#include "model/summary.h"
#include "util/opts.h"
#include "util/proclist.h"
#include "util/timespec.h"
#include "util/tracesel.h"
#include "stats.h"

#define MAX_OPEN_FILES 256
#define MAX_SORT_KEYS 8

/* ------------------------------------------------------------------ columns */

/* What the value getters see: one row and the table it belongs to. */
struct row {
    const char *name;
    const struct vftr_profile_row *p;
};

struct table {
    struct row *rows;
    size_t nrows;
    double resolution;      /* ticks per second */
    double total;           /* ticks: 100 % */
};

enum colkind { COL_NAME, COL_COUNT, COL_SECONDS, COL_PERCENT, COL_RATIO };

struct column {
    const char *key;         /* --sort name, CSV header, JSON member */
    const char *header;      /* text header */
    enum colkind kind;
    double (*value)(const struct row *, const struct table *);   /* NULL for the name */
    const char *help;
};

static double seconds(uint64_t ticks, const struct table *t)
{
    return (double)ticks / t->resolution;
}

static double v_calls(const struct row *r, const struct table *t) { (void)t; return (double)r->p->calls; }
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
    return r->p->calls ? seconds(r->p->incl, t) / (double)r->p->calls : 0;
}
static double v_min(const struct row *r, const struct table *t) { return seconds(r->p->excl_min, t); }
static double v_avg(const struct row *r, const struct table *t) { return r->p->excl_avg / t->resolution; }
static double v_max(const struct row *r, const struct table *t) { return seconds(r->p->excl_max, t); }
static double v_imbalance(const struct row *r, const struct table *t) { (void)t; return r->p->imbalance; }
static double v_procs(const struct row *r, const struct table *t) { (void)t; return r->p->nprocs; }

static const struct column columns[] = {
    { "calls",     "calls",      COL_COUNT,   v_calls,     "number of calls (enters in the window)" },
    { "excl",      "excl[s]",    COL_SECONDS, v_excl,      "exclusive time, summed over processes" },
    { "excl_pct",  "excl%",      COL_PERCENT, v_excl_pct,  "exclusive time, % of the total" },
    { "incl",      "incl[s]",    COL_SECONDS, v_incl,      "inclusive time, summed over processes" },
    { "incl_pct",  "incl%",      COL_PERCENT, v_incl_pct,  "inclusive time, % of the total" },
    { "per_call",  "incl/call[s]", COL_SECONDS, v_per_call, "inclusive time per call" },
    { "min",       "min[s]",     COL_SECONDS, v_min,       "least exclusive time of one process" },
    { "avg",       "avg[s]",     COL_SECONDS, v_avg,       "average exclusive time per process" },
    { "max",       "max[s]",     COL_SECONDS, v_max,       "most exclusive time of one process" },
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

struct stats_args {
    struct vftr_tracesel sel;    /* --process, --time */
    const struct column *sort[MAX_SORT_KEYS];
    size_t nsort;
    int reverse;
    long top;                 /* -1: all */
    const char *match;
    unsigned format;          /* FMT_* */
    unsigned view;            /* VIEW_* */
    int groups;               /* profile function groups, not functions */
    int fold;                 /* threads into ranks: 1 yes, 0 no, -1 the input's default */
    int verbose;              /* how the profile was made and what it read, on stderr */
    unsigned jobs;            /* threads reading streams; 0: online CPUs */
};

enum { FMT_TEXT = 0, FMT_CSV = 1, FMT_JSON = 2 };
enum { VIEW_PROFILE = 0, VIEW_CALLPATH = 1, VIEW_MESSAGES = 2 };

static int parse_sort(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;
    const char *s = arg;

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

/* A plain decimal number in [lo, hi] (no sign, no spaces): 0 or -EINVAL. */
static int parse_count(const char *arg, long lo, long hi, long *n)
{
    char *end;

    errno = 0;
    *n = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || errno == ERANGE || arg[0] == '-' || arg[0] == '+' ||
        *n < lo || *n > hi)
        return -EINVAL;
    return 0;
}

static int parse_top(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;

    if (parse_count(arg, 0, LONG_MAX, &args->top) < 0)
        return vftr_errmsg(err, errlen, -EINVAL, "bad --top '%.64s' (expected a number >= 0)", arg);
    return 0;
}

static int parse_jobs(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;
    long n;

    if (parse_count(arg, 1, 1024, &n) < 0)
        return vftr_errmsg(err, errlen, -EINVAL, "bad --jobs '%.64s' (expected 1 to 1024)", arg);
    args->jobs = (unsigned)n;
    return 0;
}

/* ------------------------------------------------------------------ reading */

/* Names by OTF token (functions, function groups, collective operations). */
struct nametab {
    char **v;
    size_t n;
};

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

/* The name of token id, or "PREFIX-ID" (kept in the table) when the trace
 * defines none.  NULL when out of memory. */
static const char *nametab_get(struct nametab *t, uint32_t id, const char *prefix)
{
    char unnamed[48];

    if (id < t->n && t->v[id])
        return t->v[id];
    snprintf(unnamed, sizeof unnamed, "%s-%" PRIu32, prefix, id);
    return nametab_set(t, id, unnamed) == 0 ? t->v[id] : NULL;
}

static void nametab_release(struct nametab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

struct reader_state {
    struct vftr_replay *replay;
    struct vftr_messages *messages;   /* --messages only */
    struct nametab names;     /* by function token */
    struct nametab gnames;    /* by function group token */
    struct nametab opnames;   /* by collective operation token */
    uint32_t *group_of;       /* function token -> group token */
    size_t ngroup_of;
    uint32_t *parent_of;      /* process token -> parent process token (0: none) */
    size_t nparent_of;
    uint64_t *auxtimes[2];    /* DefAuxSamplePoint: [0] summaries, [1] snapshots */
    size_t naux[2], capaux[2];
    int groups;               /* feed the replay group tokens */
    const struct vftr_proclist *procs;   /* --process */
    uint64_t resolution;
    int error;                /* -errno from the model */
};

/* The token the replay sees for a function: itself, or its group. */
static uint32_t replay_id(const struct reader_state *st, uint32_t function)
{
    if (!st->groups || function == 0)
        return function;
    return function < st->ngroup_of ? st->group_of[function] : 0;
}

static uint32_t token_of(void *ud, uint32_t function)
{
    return replay_id(ud, function);
}

/* --fold-threads: a process is booked under its outermost ancestor (OTF
 * writers give a thread the process of its rank as parent). */
static uint32_t fold_process(void *ud, uint32_t process)
{
    const struct reader_state *st = ud;

    for (unsigned hops = 0; hops < 64 && process < st->nparent_of && st->parent_of[process];
         hops++)
        process = st->parent_of[process];
    return process;
}

/* Sets v[id] = value in a growing array of uint32_t.  0 or -ENOMEM. */
static int u32tab_set(uint32_t **v, size_t *n, uint32_t id, uint32_t value)
{
    if (id >= *n) {
        size_t m = id + 1 > 2 * *n ? (size_t)id + 1 : 2 * *n;
        uint32_t *p = realloc(*v, m * sizeof *p);

        if (!p)
            return -ENOMEM;
        memset(p + *n, 0, (m - *n) * sizeof *p);
        *v = p;
        *n = m;
    }
    (*v)[id] = value;
    return 0;
}

static int on_process(void *ud, uint32_t stream, uint32_t process, const char *name,
                      uint32_t parent, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)stream, (void)name, (void)kv;
    st->error = parent == process ? 0 : u32tab_set(&st->parent_of, &st->nparent_of, process, parent);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_samplepoint(void *ud, uint32_t stream, uint64_t time, OTF_AuxSamplePointType type,
                          OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;
    int k = type == OTF_AUX_SAMPLE_POINT_SUMMARY ? 0 : type == OTF_AUX_SAMPLE_POINT_SNAPSHOT ? 1 : -1;

    (void)stream, (void)kv;
    if (k < 0)
        return OTF_RETURN_OK;
    if (st->naux[k] == st->capaux[k]) {
        size_t cap = st->capaux[k] ? 2 * st->capaux[k] : 16;
        uint64_t *p = realloc(st->auxtimes[k], cap * sizeof *p);

        if (!p) {
            st->error = -ENOMEM;
            return OTF_RETURN_ABORT;
        }
        st->auxtimes[k] = p;
        st->capaux[k] = cap;
    }
    st->auxtimes[k][st->naux[k]++] = time;
    return OTF_RETURN_OK;
}

/* .vfd input: threads are booked under their rank's process token. */
static uint32_t fold_vfd(void *ud, uint32_t process)
{
    (void)ud;
    return vftr_vfdfeed_rank_process(process);
}

static int on_timer(void *ud, uint32_t stream, uint64_t ticks, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)stream, (void)kv;
    st->resolution = ticks;
    return OTF_RETURN_OK;
}

static int on_function(void *ud, uint32_t stream, uint32_t func, const char *name,
                       uint32_t group, uint32_t source, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)stream, (void)source, (void)kv;
    st->error = u32tab_set(&st->group_of, &st->ngroup_of, func, group);
    if (st->error == 0)
        st->error = nametab_set(&st->names, func, name);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_group(void *ud, uint32_t stream, uint32_t group, const char *name,
                    OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)stream, (void)kv;
    st->error = nametab_set(&st->gnames, group, name);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_collop_def(void *ud, uint32_t stream, uint32_t op, const char *name, uint32_t type,
                         OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)stream, (void)type, (void)kv;
    st->error = nametab_set(&st->opnames, op, name);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_send(void *ud, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)source, (void)kv;
    st->error = vftr_messages_send(st->messages, time, sender, receiver, comm, tag, length);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_recv(void *ud, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)source, (void)kv;
    st->error = vftr_messages_recv(st->messages, time, receiver, sender, comm, tag, length);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_collop(void *ud, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                     uint32_t root, uint32_t sent, uint32_t received, uint64_t duration,
                     uint32_t source, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)time, (void)comm, (void)root, (void)source, (void)kv;
    st->error = vftr_messages_collop(st->messages, process, op, sent, received, duration);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_coll_begin(void *ud, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                         uint32_t comm, uint32_t root, uint64_t sent, uint64_t received,
                         uint32_t scl, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)comm, (void)root, (void)scl, (void)kv;
    st->error = vftr_messages_coll_begin(st->messages, time, process, op, id, sent, received);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_coll_end(void *ud, uint64_t time, uint32_t process, uint64_t id,
                       OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)kv;
    st->error = vftr_messages_coll_end(st->messages, time, process, id);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

/* --process for the replay's readers: called from one thread. */
static int wanted_process(void *ud, uint32_t process)
{
    const struct reader_state *st = ud;

    return vftr_proclist_contains(st->procs, process);
}

/* Handlers are stored as OTF_FunctionPointer; the detour through a
 * function pointer without parameters is the cast C allows silently. */
#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

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

static void format_value(char *buf, size_t size, const struct column *c, const struct row *r,
                         const struct table *t)
{
    switch (c->kind) {
    case COL_NAME:    snprintf(buf, size, "%s", r->name); break;
    case COL_COUNT:   snprintf(buf, size, "%.0f", c->value(r, t)); break;
    case COL_SECONDS: snprintf(buf, size, "%.6f", c->value(r, t)); break;
    case COL_PERCENT: snprintf(buf, size, "%.2f", c->value(r, t)); break;
    case COL_RATIO:   snprintf(buf, size, "%.4f", c->value(r, t)); break;
    }
}

static void print_text(FILE *out, const struct table *t, size_t n)
{
    char buf[64];

    for (size_t i = 0; i < NCOLUMNS; i++) {
        if (columns[i].kind == COL_NAME)
            fprintf(out, "  %s", columns[i].header);
        else
            fprintf(out, "%s%*s", i ? " " : "", 12, columns[i].header);
    }
    fputc('\n', out);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < NCOLUMNS; i++) {
            if (columns[i].kind == COL_NAME) {
                fprintf(out, "  %s", t->rows[k].name);
                continue;
            }
            format_value(buf, sizeof buf, &columns[i], &t->rows[k], t);
            fprintf(out, "%s%*s", i ? " " : "", 12, buf);
        }
        fputc('\n', out);
    }
}

static void print_csv_string(FILE *out, const char *s)
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

static void print_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void print_json(FILE *out, const struct table *t, size_t n)
{
    char buf[64];

    fprintf(out, "{\"total_s\":%.9g,\"functions\":[", t->total / t->resolution);
    for (size_t k = 0; k < n; k++) {
        fputs(k ? ",\n{" : "\n{", out);
        for (size_t i = 0; i < NCOLUMNS; i++) {
            fprintf(out, "%s\"%s\":", i ? "," : "", columns[i].key);
            if (columns[i].kind == COL_NAME) {
                print_json_string(out, t->rows[k].name);
            } else {
                format_value(buf, sizeof buf, &columns[i], &t->rows[k], t);
                fputs(buf, out);
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
};

/* Siblings together (by parent), the larger inclusive time first, then by
 * name, then by function token (deterministic). */
static int cmp_siblings(const void *a, const void *b)
{
    const struct pathrow *x = a, *y = b;
    int d;

    if (x->p->parent != y->p->parent)
        return x->p->parent < y->p->parent ? -1 : 1;
    if (x->p->incl != y->p->incl)
        return x->p->incl > y->p->incl ? -1 : 1;
    d = strcmp(x->name, y->name);
    if (d)
        return d;
    /* siblings differ in function: an order independent of path ids,
     * which depend on the order events were replayed and merged (--jobs) */
    return x->p->function < y->p->function ? -1 : x->p->function > y->p->function;
}

static void print_path_row(FILE *out, unsigned format, const struct pathrow *r, double res,
                           int first)
{
    double excl = (double)r->p->excl / res, incl = (double)r->p->incl / res;

    if (format == FMT_CSV) {
        fprintf(out, "%" PRIu64 ",%.6f,%.6f,%" PRIu32 ",", r->p->calls, excl, incl, r->p->depth);
        print_csv_string(out, r->name);
        fputc('\n', out);
    } else if (format == FMT_JSON) {
        fprintf(out, "%s{\"calls\":%" PRIu64 ",\"excl\":%.6f,\"incl\":%.6f,\"depth\":%" PRIu32
                ",\"function\":", first ? "\n" : ",\n", r->p->calls, excl, incl, r->p->depth);
        print_json_string(out, r->name);
        fputc('}', out);
    } else {
        fprintf(out, "%12" PRIu64 " %12.6f %12.6f  %*s%s\n", r->p->calls, excl, incl,
                (int)(2 * (r->p->depth - 1)), "", r->name);
    }
}

/*
 * The call-path tree, depth first, children ordered by cmp_siblings.  The
 * rows sorted by parent put every node's children in one run; an explicit
 * stack walks the tree (recursive traces make deep trees).  0 or -ENOMEM.
 */
static int print_paths(FILE *out, unsigned format, const struct vftr_replay *replay,
                       struct nametab *names, const char *prefix, double res)
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
        rows[i] = (struct pathrow){ (uint32_t)i + 1, nametab_get(names, ps[i].function, prefix),
                                    &ps[i] };
        if (!rows[i].name)
            goto out;
    }
    if (n)
        qsort(rows, n, sizeof *rows, cmp_siblings);
    for (size_t i = 0; i < n; i++)                    /* count children per parent */
        first[rows[i].p->parent + 1]++;
    for (size_t i = 1; i < n + 2; i++)                /* prefix sums: run of parent p */
        first[i] += first[i - 1];                     /* is [first[p], first[p + 1]) */

    if (format == FMT_CSV)
        fputs("calls,excl,incl,depth,function\n", out);
    else if (format == FMT_JSON)
        fputs("{\"paths\":[", out);
    else
        fprintf(out, "%12s %12s %12s  call path\n", "calls", "excl[s]", "incl[s]");
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

/* ------------------------------------------------------------------ messages */

static int print_messages(FILE *out, unsigned format, const struct vftr_messages *m,
                          struct nametab *opnames, double res)
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
                ",\"unmatched_begins\":%" PRIu64 ",\"unmatched_ends\":%" PRIu64 ",\"pairs\":[",
                k->sends, k->recvs, k->matched, k->unmatched_sends, k->unmatched_recvs,
                k->unmatched_begins, k->unmatched_ends);
    else
        fprintf(out, "point-to-point: %" PRIu64 " sent, %" PRIu64 " received, %" PRIu64
                " matched, %" PRIu64 " sends and %" PRIu64 " receives unmatched\n"
                "%12s %12s %12s %12s %12s %12s\n",
                k->sends, k->recvs, k->matched, k->unmatched_sends, k->unmatched_recvs,
                "sender", "receiver", "messages", "bytes", "matched", "transfer[s]");
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
        else
            fprintf(out, "%12" PRIu32 " %12" PRIu32 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
                    " %12.6f\n", p[i].sender, p[i].receiver, p[i].messages, p[i].bytes,
                    p[i].matched, t);
    }

    if (format == FMT_CSV)
        fputs("\noperation,count,bytes,time\n", out);
    else if (format == FMT_JSON)
        fputs("\n],\"collectives\":[", out);
    else
        fprintf(out, "\ncollectives: %" PRIu64 " operations, %" PRIu64 " begins and %" PRIu64
                " ends unmatched\n%12s %12s %12s  %s\n", k->collops, k->unmatched_begins,
                k->unmatched_ends, "count", "bytes", "time[s]", "operation");
    for (size_t i = 0; i < nc; i++) {
        if (!(name = nametab_get(opnames, c[i].op, "collective")))
            return -ENOMEM;
        if (format == FMT_CSV) {
            print_csv_string(out, name);
            fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.6f\n", c[i].count, c[i].bytes,
                    (double)c[i].time / res);
        } else if (format == FMT_JSON) {
            fputs(i ? ",\n{\"operation\":" : "\n{\"operation\":", out);
            print_json_string(out, name);
            fprintf(out, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"time\":%.6f}",
                    c[i].count, c[i].bytes, (double)c[i].time / res);
        } else {
            fprintf(out, "%12" PRIu64 " %12" PRIu64 " %12.6f  %s\n", c[i].count, c[i].bytes,
                    (double)c[i].time / res, name);
        }
    }
    if (format == FMT_JSON)
        fputs("\n]}\n", out);
    return 0;
}

/*
 * --messages of a window from summary records: per process and peer (0:
 * all peers) and per collective operation, the numbers and bytes sent and
 * received inside the window (S(b) - S(a)).  Matching and transfer times
 * are not in summaries.
 */
static int print_msgsums(FILE *out, unsigned format, struct vftr_cntacc *p2p,
                         struct vftr_cntacc *coll, struct nametab *opnames)
{
    size_t np, nc;
    const struct vftr_cntrow *p = vftr_cntacc_result(p2p, &np, NULL);
    const struct vftr_cntrow *c = p ? vftr_cntacc_result(coll, &nc, NULL) : NULL;
    const char *name;

    if (!p || !c)
        return -ENOMEM;
    if (format == FMT_CSV)
        fputs("process,peer,sent,received,bytes_sent,bytes_received\n", out);
    else if (format == FMT_JSON)
        fputs("{\"from\":\"summaries\",\"processes\":[", out);
    else
        fprintf(out, "point-to-point (from summaries; peer 0: all peers)\n"
                "%12s %12s %12s %12s %12s %14s\n", "process", "peer", "sent", "received",
                "bytes_sent", "bytes_received");
    for (size_t i = 0; i < np; i++) {
        if (format == FMT_CSV)
            fprintf(out, "%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                    "\n", p[i].a, p[i].b, p[i].v[0], p[i].v[1], p[i].v[2], p[i].v[3]);
        else if (format == FMT_JSON)
            fprintf(out, "%s{\"process\":%" PRIu32 ",\"peer\":%" PRIu32 ",\"sent\":%" PRIu64
                    ",\"received\":%" PRIu64 ",\"bytes_sent\":%" PRIu64 ",\"bytes_received\":%"
                    PRIu64 "}", i ? ",\n" : "\n", p[i].a, p[i].b, p[i].v[0], p[i].v[1], p[i].v[2],
                    p[i].v[3]);
        else
            fprintf(out, "%12" PRIu32 " %12" PRIu32 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
                    " %14" PRIu64 "\n", p[i].a, p[i].b, p[i].v[0], p[i].v[1], p[i].v[2],
                    p[i].v[3]);
    }
    if (format == FMT_CSV)
        fputs("\noperation,sent,received,bytes_sent,bytes_received\n", out);
    else if (format == FMT_JSON)
        fputs("\n],\"collectives\":[", out);
    else
        fprintf(out, "\ncollectives (from summaries)\n%12s %12s %12s %14s  %s\n", "sent",
                "received", "bytes_sent", "bytes_received", "operation");
    for (size_t i = 0; i < nc; i++) {
        if (!(name = nametab_get(opnames, c[i].a, "collective")))
            return -ENOMEM;
        if (format == FMT_CSV) {
            print_csv_string(out, name);
            fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", c[i].v[0],
                    c[i].v[1], c[i].v[2], c[i].v[3]);
        } else if (format == FMT_JSON) {
            fputs(i ? ",\n{\"operation\":" : "\n{\"operation\":", out);
            print_json_string(out, name);
            fprintf(out, ",\"sent\":%" PRIu64 ",\"received\":%" PRIu64 ",\"bytes_sent\":%"
                    PRIu64 ",\"bytes_received\":%" PRIu64 "}", c[i].v[0], c[i].v[1], c[i].v[2],
                    c[i].v[3]);
        } else {
            fprintf(out, "%12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRIu64 "  %s\n",
                    c[i].v[0], c[i].v[1], c[i].v[2], c[i].v[3], name);
        }
    }
    if (format == FMT_JSON)
        fputs("\n]}\n", out);
    return 0;
}

/* ------------------------------------------------------------------ main job */

static int stats(const struct vftr_tool *tool, struct stats_args *args, char *const *ops,
                 int nops)
{
    const char *trace = ops[0];
    struct vftr_vfdfeed *feed = NULL;
    char err[VFTR_ERRMSG_MAX], why[VFTR_ERRMSG_MAX];
    struct reader_state st = { 0 };
    struct vftr_timerange range = { 0, UINT64_MAX };
    struct vftr_profile prof = VFTR_PROFILE_INIT;
    struct table table = { 0 };
    OTF_FileManager *manager = NULL;
    OTF_HandlerArray *handlers = NULL;
    OTF_Reader *reader = NULL;
    pcre2_code *re = NULL;
    pcre2_match_data *md = NULL;
    struct vftr_fsacc *acc = NULL;
    struct stats_map map;
    struct winprof_out wout = { 0 };
    const char *method = NULL;
    struct vftr_otfreplay_stats rstats = { 0 };
    struct vftr_cntacc *p2p = NULL, *coll = NULL;
    struct winmsg_out mout = { 0 };
    int replayed = 0;             /* st.replay is finished */
    uint64_t bytes0 = 0;
    char *stub = NULL;
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

    if (stats_is_vfd(trace)) {
        uint64_t res = 0;

        if (args->view == VIEW_MESSAGES || args->groups) {
            rc = vftr_tool_usage_fail(tool, stderr, "%s: --messages and --groups need an OTF trace",
                                      trace);
            goto out;
        }
        if (!(feed = vftr_vfdfeed_new()) || !(acc = vftr_fsacc_new())) {
            rc = vftr_tool_fail(tool, stderr, "out of memory");
            goto out;
        }
        rc = stats_vfd_read(ops, nops, &args->sel, feed, &st.replay, &res, err, sizeof err);
        if (rc == -EINVAL) {
            rc = vftr_tool_usage_fail(tool, stderr, "%s", err);
            goto out;
        }
        if (rc < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s", err);
            goto out;
        }
        for (uint32_t id = 1; id <= vftr_vfdfeed_nfunctions(feed); id++)
            if (nametab_set(&st.names, id, vftr_vfdfeed_name(feed, id)) < 0) {
                rc = vftr_tool_fail(tool, stderr, "out of memory");
                goto out;
            }
        st.resolution = res;
        map = (struct stats_map){ token_of, args->fold != -2 ? fold_vfd : NULL, &st };
        if (args->view == VIEW_PROFILE) {
            size_t nrs;
            const struct vftr_funcstat *rs = vftr_replay_funcstats(st.replay, &nrs);

            if (vftr_fsacc_add_stats(acc, rs, nrs, +1, map.process, map.arg) < 0) {
                rc = vftr_tool_fail(tool, stderr, "out of memory");
                goto out;
            }
        }
        method = "vfd";
        goto output;
    }
    if (nops > 1) {
        rc = vftr_tool_usage_fail(tool, stderr, "extra operand '%s' (several operands only "
                                  "for .vfd files)", ops[1]);
        goto out;
    }
    stub = vftr_trace_namestub(trace);
    if (!stub) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    manager = OTF_FileManager_open(MAX_OPEN_FILES);
    if (!manager) {
        rc = vftr_tool_fail(tool, stderr, "cannot create an OTF file manager (%s)",
                            vftr_trace_otf_reason(why, sizeof why));
        goto out;
    }
    bytes0 = vftr_otf_manager_bytes_read(manager);
    reader = vftr_trace_open(stub, manager, err, sizeof err);
    if (!reader) {
        rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
        goto out;
    }
    {
        int src = vftr_tracesel_apply(&args->sel, stub, manager, reader, &range, err,
                                      sizeof err);

        if (src == -EINVAL) {
            rc = vftr_tool_usage_fail(tool, stderr, "%s", err);
            goto out;
        }
        if (src < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
    }

    st.groups = args->groups;
    if (args->view == VIEW_MESSAGES)
        st.messages = vftr_messages_new(NULL, NULL);
    else
        st.replay = vftr_replay_new(range.start, range.end);
    handlers = OTF_HandlerArray_open();
    if ((!st.replay && !st.messages) || !handlers) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    struct { OTF_FunctionPointer *fn; uint32_t record; } const wanted[] = {
        { HANDLER(on_group), OTF_DEFFUNCTIONGROUP_RECORD },
        { HANDLER(on_collop_def), OTF_DEFCOLLOP_RECORD },
        { HANDLER(on_send), OTF_SEND_RECORD },
        { HANDLER(on_recv), OTF_RECEIVE_RECORD },
        { HANDLER(on_collop), OTF_COLLOP_RECORD },
        { HANDLER(on_coll_begin), OTF_BEGINCOLLOP_RECORD },
        { HANDLER(on_coll_end), OTF_ENDCOLLOP_RECORD },
    };
    /* Message records only for --messages; the replay's for the rest. */
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        if (!st.messages && i >= 2)
            break;
        OTF_HandlerArray_setHandler(handlers, wanted[i].fn, wanted[i].record);
        OTF_HandlerArray_setFirstHandlerArg(handlers, &st, wanted[i].record);
    }
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_timer), OTF_DEFTIMERRESOLUTION_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_DEFTIMERRESOLUTION_RECORD);
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_function), OTF_DEFFUNCTION_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_DEFFUNCTION_RECORD);
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_process), OTF_DEFPROCESS_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_DEFPROCESS_RECORD);
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_samplepoint), OTF_DEFAUXSAMPLEPOINT_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_DEFAUXSAMPLEPOINT_RECORD);

    if (OTF_Reader_readDefinitions(reader, handlers) == OTF_READ_ERROR)
        goto read_error;
    if (!(acc = vftr_fsacc_new())) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    map = (struct stats_map){ token_of, args->fold > 0 ? fold_process : NULL, &st };
    /* A window profile: from summaries and snapshots when the trace has
     * them (without reading the events in between), else from its events. */
    if (args->view == VIEW_MESSAGES && args->sel.window) {
        struct winprof_in in = { stub, manager, &args->sel, range.start, range.end,
                                 st.auxtimes[0], st.auxtimes[1], st.naux[0], st.naux[1], map };
        int mrc;

        if (!(p2p = vftr_cntacc_new()) || !(coll = vftr_cntacc_new())) {
            rc = vftr_tool_fail(tool, stderr, "out of memory");
            goto out;
        }
        mrc = stats_window_messages(&in, p2p, coll, &mout, err, sizeof err);
        if (mrc < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
        if (mrc == 0) {
            method = "summaries";
            rc = print_msgsums(stdout, args->format, p2p, coll, &st.opnames);
            goto written;
        }
    }
    if (args->view == VIEW_CALLPATH && args->sel.window) {
        struct winprof_in in = { stub, manager, &args->sel, range.start, range.end,
                                 st.auxtimes[0], st.auxtimes[1], st.naux[0], st.naux[1], map };
        struct vftr_replay *seeded;
        int prc = stats_window_paths(&in, &seeded, &wout, err, sizeof err);

        if (prc < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
        if (prc == 0) {
            vftr_replay_free(st.replay);
            st.replay = seeded;
            method = "snapshot";
            goto profile;
        }
    }
    if (args->view == VIEW_PROFILE && args->sel.window) {
        struct winprof_in in = { stub, manager, &args->sel, range.start, range.end,
                                 st.auxtimes[0], st.auxtimes[1], st.naux[0], st.naux[1], map };
        int wrc = stats_window_profile(&in, acc, &wout, err, sizeof err);

        if (wrc < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
        if (wrc == 0) {
            method = wout.plan.nsums ? "summaries" : "snapshot";
            goto profile;
        }
    }
    if (st.messages) {
        if (OTF_Reader_readEvents(reader, handlers) == OTF_READ_ERROR)
            goto read_error;
    } else {
        /* The replay: streams read by --jobs threads, merged. */
        struct vftr_otfreplay_opts ro = {
            stub, args->jobs, range.start, range.end,
            args->view == VIEW_CALLPATH ? 0 : VFTR_REPLAY_NO_PATHS,
            args->sel.have_procs ? wanted_process : NULL, st.groups ? token_of : NULL, &st,
        };
        struct vftr_replay *merged;
        int prc;

        st.procs = &args->sel.procs;
        prc = vftr_otfreplay_run(&ro, &merged, &rstats, err, sizeof err);
        if (prc < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
        vftr_replay_free(st.replay);
        st.replay = merged;
        replayed = 1;
    }
profile:
    table.resolution = st.resolution ? (double)st.resolution : 1.0;
    if (st.messages) {
        vftr_messages_finish(st.messages);
        rc = print_messages(stdout, args->format, st.messages, &st.opnames, table.resolution);
        goto written;
    }
output:
    table.resolution = st.resolution ? (double)st.resolution : 1.0;
    if (!method && !wout.plan.nsums && !wout.plan.npieces) {
        if (!replayed)
            vftr_replay_finish(st.replay);
        if (args->view == VIEW_PROFILE) {
            size_t nrs;
            const struct vftr_funcstat *rs = vftr_replay_funcstats(st.replay, &nrs);

            if (vftr_fsacc_add_stats(acc, rs, nrs, +1, map.process, map.arg) < 0) {
                rc = vftr_tool_fail(tool, stderr, "out of memory");
                goto out;
            }
        }
    }
    if (args->view == VIEW_CALLPATH) {
        rc = print_paths(stdout, args->format, st.replay, st.groups ? &st.gnames : &st.names,
                         st.groups ? "group" : "function", table.resolution);
        goto written;
    }

    size_t nfs;
    const struct vftr_funcstat *fs = vftr_fsacc_result(acc, &nfs, NULL);
    if (!fs || vftr_profile_build(&prof, fs, nfs) < 0 ||
        !(table.rows = calloc(prof.nrows ? prof.nrows : 1, sizeof *table.rows))) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    table.total = (double)prof.total;     /* before --match: % of everything */
    for (size_t i = 0; i < prof.nrows; i++) {
        uint32_t f = prof.rows[i].function;
        const char *name = args->groups ? nametab_get(&st.gnames, f, "group")
                                        : nametab_get(&st.names, f, "function");
        struct row *row = &table.rows[table.nrows];

        if (!name) {
            rc = vftr_tool_fail(tool, stderr, "out of memory");
            goto out;
        }
        if (re && pcre2_match(re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) < 0)
            continue;
        row->name = name;
        row->p = &prof.rows[i];
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
        print_json(stdout, &table, n);
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
    if (args->verbose && feed) {
        const struct vftr_replay_counts *k = vftr_replay_counts(st.replay);

        fprintf(stderr, "vftr-stats: %d .vfd operand(s): %" PRIu64 " enters, %" PRIu64
                " exits replayed\n", nops, k->enters, k->leaves);
    } else if (args->verbose) {
        fprintf(stderr, "vftr-stats: %s.otf: ", stub);
        if (method && args->view == VIEW_MESSAGES)
            fprintf(stderr, "messages of the window from summaries (2 summary reads, "
                    "%" PRIu64 " records)", mout.records);
        else if (method)
            fprintf(stderr, "window from %s (%d summary reads, %d replays from snapshots, "
                    "%" PRIu64 " events replayed, %" PRIu64 " in replays)",
                    method, wout.plan.nsums, wout.plan.npieces, wout.replayed, wout.delivered);
        else
            fprintf(stderr, "profile from the events%s (%u stream(s), %u thread(s))",
                    args->sel.window ? " of the window" : "", rstats.streams, rstats.jobs);
        /* a window read's replay threads have file managers of their own:
         * their bytes are in wout.bytes, the caller's manager has the rest */
        uint64_t own = vftr_otf_manager_bytes_read(manager) - bytes0;
        fprintf(stderr, "; read %" PRIu64 " bytes\n",
                method ? (wout.bytes > own ? wout.bytes : own) : own + rstats.bytes_read);
    }
    goto out;

read_error:
    if (st.error)
        rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, strerror(-st.error));
    else
        rc = vftr_tool_fail(tool, stderr, "%s.otf: cannot read the trace (%s)", stub,
                            vftr_trace_otf_reason(why, sizeof why));
out:
    vftr_cntacc_free(p2p);
    vftr_cntacc_free(coll);
    vftr_fsacc_free(acc);
    vftr_vfdfeed_free(feed);
    free(st.parent_of);
    free(st.auxtimes[0]);
    free(st.auxtimes[1]);
    free(table.rows);
    vftr_profile_release(&prof);
    vftr_replay_free(st.replay);
    vftr_messages_free(st.messages);
    nametab_release(&st.names);
    nametab_release(&st.gnames);
    nametab_release(&st.opnames);
    free(st.group_of);
    if (handlers)
        OTF_HandlerArray_close(handlers);
    if (reader)
        OTF_Reader_close(reader);
    if (manager)
        OTF_FileManager_close(manager);
    free(stub);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc;
}

int main(int argc, char **argv)
{
    struct stats_args args = { .sel = VFTR_TRACESEL_INIT, .top = -1, .fold = -1 };
    int callpath = 0, messages = 0;
    const struct vftr_opt opts[] = {
        { VFTR_OPT_CALLBACK, "sort", 's', "COL[,COL]",
          "sort by these columns (see COLUMNS below);\nnumbers descend, names ascend",
          &args, 0, parse_sort },
        { VFTR_OPT_FLAG, "reverse", 'r', NULL, "reverse the order", &args.reverse, 1, NULL },
        { VFTR_OPT_CALLBACK, "top", 'n', "N", "print only the first N functions", &args, 0, parse_top },
        { VFTR_OPT_STRING, "match", 'm', "REGEX",
          "only functions whose name matches REGEX (PCRE2);\npercentages stay of the total",
          &args.match, 0, NULL },
        { VFTR_OPT_CALLBACK, "time", 't', "A:B",
          "profile only the window A <= time < B\n(see TIMES below)", &args.sel, 0, vftr_tracesel_opt_time },
        { VFTR_OPT_CALLBACK, "process", 'p', "LIST",
          "only these processes, e.g. 1-4,9 (decimal;\nmay be repeated)", &args.sel, 0, vftr_tracesel_opt_process },
        { VFTR_OPT_FLAG, "callpath", 'C', NULL,
          "print the call-path tree (calls, excl, incl per\npath) instead of the function profile",
          &callpath, 1, NULL },
        { VFTR_OPT_FLAG, "messages", 'M', NULL,
          "print the message matrix (per sender and receiver)\nand the collective operations",
          &messages, 1, NULL },
        { VFTR_OPT_FLAG, "groups", 'g', NULL,
          "profile function groups instead of functions\n(DefFunctionGroup)", &args.groups, 1,
          NULL },
        { VFTR_OPT_FLAG, "fold-threads", 'F', NULL,
          "book threads under their rank: OTF processes\nunder their outermost parent process\n"
          "(default for .vfd input)", &args.fold, 1, NULL },
        { VFTR_OPT_FLAG, "threads", 'T', NULL,
          "keep threads apart, one process each (default\nfor OTF input)", &args.fold, -2, NULL },
        { VFTR_OPT_FLAG, "verbose", 'v', NULL,
          "say on stderr how the profile was made (events,\nsummaries, snapshots) and the bytes read",
          &args.verbose, 1, NULL },
        { VFTR_OPT_CALLBACK, "jobs", 'J', "N",
          "read the trace's streams with N threads (default:\nthe online CPUs; at most one per stream)",
          &args, 0, parse_jobs },
        { VFTR_OPT_FLAG, "csv", 'c', NULL, "print CSV", &args.format, FMT_CSV, NULL },
        { VFTR_OPT_FLAG, "json", 'j', NULL, "print JSON", &args.format, FMT_JSON, NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_tool tool = {
        "vftr-stats", VFTR_VERSION, "[OPTION]... TRACE",
        "Print the function profile of the OTF trace TRACE (foo or foo.otf).",
        "COLUMNS: calls, excl, excl_pct, incl, incl_pct, per_call, min, avg, max,\n"
        "imbalance, procs, function.  Times are in seconds, summed over processes;\n"
        "min, avg and max are a function's exclusive time over the processes that\n"
        "called it; imbalance is (max - avg) / max.  Recursion counts once in\n"
        "inclusive time.  Default order: excl, descending.\n"
        "\n"
        "TIMES are counted from the trace's first time stamp: a bare number is\n"
        "timer ticks (2500), a number with a unit s, ms, us or ns is converted\n"
        "with the trace's timer resolution (1.5ms).  Either side of A:B may be\n"
        "empty.  Calls cut by the window count with their time inside it; calls\n"
        "counts the enters inside the window.\n"
        "\n"
        "--callpath and --messages ignore --sort, --top and --match.\n"
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
    args.view = messages ? VIEW_MESSAGES : callpath ? VIEW_CALLPATH : VIEW_PROFILE;
    if (callpath && messages)
        rc = vftr_tool_usage_fail(&tool, stderr, "--callpath and --messages exclude each other");
    else if (first >= argc)
        rc = vftr_tool_usage_fail(&tool, stderr, "missing TRACE operand");
    else
        rc = stats(&tool, &args, argv + first, argc - first);
    vftr_tracesel_release(&args.sel);
    return rc;
}
