/*
 * vftr-stats — the function profile of an OTF trace: calls, exclusive and
 * inclusive time, time per call, spread over processes and imbalance, as a
 * sorted table (text, CSV or JSON).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "otf.h"

#include "model/profile.h"
#include "model/replay.h"
#include "util/opts.h"
#include "util/proclist.h"
#include "util/timespec.h"
#include "util/tracesel.h"

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
    const char *window;
    struct vftr_proclist procs;
    int have_procs;
    const struct column *sort[MAX_SORT_KEYS];
    size_t nsort;
    int reverse;
    long top;                 /* -1: all */
    const char *match;
    unsigned format;          /* FMT_* */
};

enum { FMT_TEXT = 0, FMT_CSV = 1, FMT_JSON = 2 };

static int add_processes(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;
    int rc = vftr_proclist_parse(&args->procs, arg, err, errlen);

    if (rc == 0)
        args->have_procs = 1;
    return rc;
}

/* Syntax only; the conversion needs the trace's time base (see vftr-dump). */
static int check_window(void *dest, const char *arg, char *err, size_t errlen)
{
    static const struct vftr_timebase any = { 1000000000u, 0 };
    struct stats_args *args = dest;
    struct vftr_timerange range;
    int rc = vftr_timerange_parse(arg, &any, &range, err, errlen);

    if (rc == -ERANGE)
        rc = 0;
    if (rc == 0)
        args->window = arg;
    return rc;
}

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

static int parse_top(void *dest, const char *arg, char *err, size_t errlen)
{
    struct stats_args *args = dest;
    char *end;
    long n;

    errno = 0;
    n = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || n < 0 || errno == ERANGE || arg[0] == '-' || arg[0] == '+')
        return vftr_errmsg(err, errlen, -EINVAL, "bad --top '%.64s' (expected a number >= 0)", arg);
    args->top = n;
    return 0;
}

/* ------------------------------------------------------------------ reading */

struct reader_state {
    struct vftr_replay *replay;
    char **names;             /* by function token */
    size_t nnames;
    uint64_t resolution;
    int error;                /* -errno from the model */
};

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

    (void)stream, (void)group, (void)source, (void)kv;
    if (func >= st->nnames) {
        size_t n = func + 1 > 2 * st->nnames ? (size_t)func + 1 : 2 * st->nnames;
        char **p = realloc(st->names, n * sizeof *p);

        if (!p) {
            st->error = -ENOMEM;
            return OTF_RETURN_ABORT;
        }
        memset(p + st->nnames, 0, (n - st->nnames) * sizeof *p);
        st->names = p;
        st->nnames = n;
    }
    free(st->names[func]);
    st->names[func] = strdup(name ? name : "");
    if (!st->names[func]) {
        st->error = -ENOMEM;
        return OTF_RETURN_ABORT;
    }
    return OTF_RETURN_OK;
}

static int on_enter(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)source, (void)kv;
    st->error = vftr_replay_enter(st->replay, process, function, time);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_leave(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    struct reader_state *st = ud;

    (void)source, (void)kv;
    st->error = vftr_replay_leave(st->replay, process, function, time);
    return st->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

/* The OTF library's message as one line. */
static const char *otf_reason(char *buf, size_t size)
{
    size_t n = 0;

    for (const char *s = otf_strerr; *s && n + 1 < size; s++) {
        char c = (*s == '\n' || *s == '\t') ? ' ' : *s;
        if (c == ' ' && (n == 0 || buf[n - 1] == ' '))
            continue;
        buf[n++] = c;
    }
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    return n ? buf : "unknown error";
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

    for (size_t i = 0; i < sort_args->nsort; i++) {
        const struct column *c = sort_args->sort[i];
        int d;

        if (c->kind == COL_NAME) {
            d = strcmp(x->name, y->name);          /* names ascend by default */
        } else {
            double u = c->value(x, sort_table), v = c->value(y, sort_table);
            d = u < v ? 1 : u > v ? -1 : 0;        /* numbers descend by default */
        }
        if (d)
            return sort_args->reverse ? -d : d;
    }
    return strcmp(x->name, y->name);
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

/* ------------------------------------------------------------------ main job */

static int stats(const struct vftr_tool *tool, struct stats_args *args, const char *trace)
{
    char err[VFTR_ERRMSG_MAX], why[VFTR_ERRMSG_MAX], unnamed[32];
    struct reader_state st = { 0 };
    struct vftr_timerange range = { 0, UINT64_MAX };
    struct vftr_profile prof = VFTR_PROFILE_INIT;
    struct table table = { 0 };
    OTF_FileManager *manager = NULL;
    OTF_HandlerArray *handlers = NULL;
    OTF_Reader *reader = NULL;
    pcre2_code *re = NULL;
    pcre2_match_data *md = NULL;
    char *stub;
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

    stub = vftr_trace_namestub(trace);
    if (!stub) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    manager = OTF_FileManager_open(MAX_OPEN_FILES);
    if (!manager) {
        rc = vftr_tool_fail(tool, stderr, "cannot create an OTF file manager (%s)",
                            otf_reason(why, sizeof why));
        goto out;
    }
    reader = vftr_trace_open(stub, manager, err, sizeof err);
    if (!reader) {
        rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
        goto out;
    }
    if (args->window) {
        struct vftr_timebase base;

        if (vftr_trace_timebase(stub, manager, &base, err, sizeof err) < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
        if (vftr_timerange_parse(args->window, &base, &range, err, sizeof err) < 0) {
            rc = vftr_tool_usage_fail(tool, stderr, "%s", err);
            goto out;
        }
        OTF_Reader_setTimeInterval(reader, range.start, range.end);
    }
    if (args->have_procs) {
        long n = vftr_trace_select_processes(reader, &args->procs, err, sizeof err);
        if (n <= 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
    }

    st.replay = vftr_replay_new(range.start, range.end);
    handlers = OTF_HandlerArray_open();
    if (!st.replay || !handlers) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_timer), OTF_DEFTIMERRESOLUTION_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_DEFTIMERRESOLUTION_RECORD);
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_function), OTF_DEFFUNCTION_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_DEFFUNCTION_RECORD);
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_enter), OTF_ENTER_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_ENTER_RECORD);
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_leave), OTF_LEAVE_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &st, OTF_LEAVE_RECORD);

    if (OTF_Reader_readDefinitions(reader, handlers) == OTF_READ_ERROR ||
        OTF_Reader_readEvents(reader, handlers) == OTF_READ_ERROR) {
        if (st.error)
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, strerror(-st.error));
        else
            rc = vftr_tool_fail(tool, stderr, "%s.otf: cannot read the trace (%s)", stub,
                                otf_reason(why, sizeof why));
        goto out;
    }
    vftr_replay_finish(st.replay);

    size_t nfs;
    const struct vftr_funcstat *fs = vftr_replay_funcstats(st.replay, &nfs);
    if (vftr_profile_build(&prof, fs, nfs) < 0 ||
        !(table.rows = calloc(prof.nrows ? prof.nrows : 1, sizeof *table.rows))) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    table.resolution = st.resolution ? (double)st.resolution : 1.0;
    table.total = (double)prof.total;     /* before --match: % of everything */
    for (size_t i = 0; i < prof.nrows; i++) {
        uint32_t f = prof.rows[i].function;
        const char *name = f < st.nnames ? st.names[f] : NULL;
        struct row *row = &table.rows[table.nrows];

        if (!name) {
            snprintf(unnamed, sizeof unnamed, "function-%" PRIu32, f);
            /* Unnamed functions are rare: keep the text in the names table. */
            if (f >= st.nnames && on_function(&st, 0, f, unnamed, 0, 0, NULL) != OTF_RETURN_OK) {
                rc = vftr_tool_fail(tool, stderr, "out of memory");
                goto out;
            }
            if (!st.names[f] && !(st.names[f] = strdup(unnamed))) {
                rc = vftr_tool_fail(tool, stderr, "out of memory");
                goto out;
            }
            name = st.names[f];
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
    if (fflush(stdout) != 0 || ferror(stdout)) {
        rc = vftr_tool_fail(tool, stderr, "write error: %s", strerror(errno));
        goto out;
    }
    rc = VFTR_EXIT_OK;

out:
    free(table.rows);
    vftr_profile_release(&prof);
    vftr_replay_free(st.replay);
    for (size_t i = 0; i < st.nnames; i++)
        free(st.names[i]);
    free(st.names);
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
    struct stats_args args = { .procs = VFTR_PROCLIST_INIT, .top = -1 };
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
          "profile only the window A <= time < B\n(see TIMES below)", &args, 0, check_window },
        { VFTR_OPT_CALLBACK, "process", 'p', "LIST",
          "only these processes, e.g. 1-4,9 (decimal;\nmay be repeated)", &args, 0, add_processes },
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
        "Exit status: 0 ok, 1 the trace cannot be read, 2 bad command line.\n",
        opts,
    };
    int first, rc;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0) {
        vftr_proclist_release(&args.procs);
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    }
    if (first >= argc)
        rc = vftr_tool_usage_fail(&tool, stderr, "missing TRACE operand");
    else if (argc - first > 1)
        rc = vftr_tool_usage_fail(&tool, stderr, "extra operand '%s'", argv[first + 1]);
    else
        rc = stats(&tool, &args, argv[first]);
    vftr_proclist_release(&args.procs);
    return rc;
}
