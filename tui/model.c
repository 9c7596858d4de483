/*
 * model.c — see model.h.  The trace is a lib/model source (source.h): its
 * definitions come from there, the timeline from its window reads, and the
 * profile of the visible window from the source's one profile route
 * (vftr_source_profile, or its event route fed by the timeline's own read,
 * vftr_profbuild), folded into ranks as vftr-stats folds it: vftr-tui's
 * numbers are vftr-stats' numbers for the same window.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "model/ctrpaths.h"
#include "model/grow.h"
#include "model/replay.h"
#include "model/source.h"
#include "util/errmsg.h"
#include "util/fmt.h"
#include "util/tracesel.h"

#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

const struct tui_column tui_columns[TUI_NCOLS] = {
    /* times and the imbalance as util/fmt.h writes them ("1.23 ms",
     * "37.5%"); the first column also holds the selection mark */
    [TUI_COL_EXCL] = { "excl", "excl", 1 + VFTR_FMT_SECONDS_WIDTH },
    [TUI_COL_INCL] = { "incl", "incl", VFTR_FMT_SECONDS_WIDTH },
    [TUI_COL_CALLS] = { "calls", "calls", 9 },
    [TUI_COL_IMBAL] = { "imbalance", "imbal", VFTR_FMT_IMBALANCE_WIDTH },
    [TUI_COL_NAME] = { "function", "function", 0 },
};

struct tui_model {
    char *stub;
    struct vftr_source *src;
    struct vftr_window *win;    /* the source's (borrowed) */
    struct tui_proc *procs;
    size_t nprocs, capprocs;
    size_t *rows;               /* visible processes in display order */
    size_t nrows;
    struct tui_func *funcs;
    size_t nfuncs, capfuncs;
    struct tui_group *groups;   /* DefFunctionGroup, sorted by id */
    size_t ngroups, capgroups;
    struct tui_counter *counters;  /* DefCounter, sorted by id */
    size_t ncounters, capcounters;
    char namebuf[32];
    struct tui_view view;
    struct tui_data data;
    int dirty_window, dirty_details;
    pcre2_code *re;
    pcre2_match_data *md;
    char *pattern;
    /* scratch of one refresh */
    struct vftr_profbuild *replay;   /* the profile fed by the window read */
    uint32_t *depth_of;         /* per process index: current stack depth */
    uint32_t **stacks;          /* per process index: functions by depth (for the grid) */
    size_t *next_col;
    uint64_t *colt;             /* start time of each column of the refresh (ncols) */
    size_t capcolt;
    /* details captured during an exact window read (see capture_details) */
    uint32_t sel_id;
    int capturing, captured;
    size_t capstack, capmsgs;
    /* symbols and legend (see tui_model_symbol), recomputed when the grid
     * or the colouring changed */
    unsigned grid_gen, sym_gen;
    int sym_mode;               /* view.color_by_group they were made for; -1 none */
    char *sym;                  /* per paint */
    long *legend;               /* paints with a symbol on screen, in symbol order */
    size_t nlegend, others, capsym;
    int sym_none;
    /* the communication view */
    struct tui_comm *comm;
    int comm_feed;              /* the window read feeds it */
    size_t *comm_procs, ncomm_procs;
};


/* ------------------------------------------------------------ definitions */

static int cmp_group(const void *a, const void *b)
{
    const struct tui_group *x = a, *y = b;

    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_counter(const void *a, const void *b)
{
    const struct tui_counter *x = a, *y = b;

    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_proc(const void *a, const void *b)
{
    const struct tui_proc *x = a, *y = b;

    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_func(const void *a, const void *b)
{
    const struct tui_func *x = a, *y = b;

    return (x->id > y->id) - (x->id < y->id);
}

static int index_threads(struct tui_model *m);

/*
 * The name a process is shown by: vftr's own "Rank 3" and "Rank 3 Thread 2"
 * (numbers from 0) become "rank 3" and "rank 3 thread 2", as the other
 * tools print them; any other name stays as the trace has it.  Caller
 * frees; NULL when out of memory.
 */
static char *display_name(const char *name)
{
    unsigned long rank, thread;
    char word[8], word2[8], rest;
    int n = sscanf(name, "%7s %lu %7s %lu %c", word, &rank, word2, &thread, &rest);
    char buf[64];

    if (n == 2 && strcasecmp(word, "rank") == 0)
        snprintf(buf, sizeof buf, "rank %lu", rank);
    else if (n == 4 && strcasecmp(word, "rank") == 0 && strcasecmp(word2, "thread") == 0)
        snprintf(buf, sizeof buf, "rank %lu thread %lu", rank, thread);
    else
        return strdup(name);
    return strdup(buf);
}

/* The source's definitions, copied into the model's own tables (which
 * carry the timeline's state beside them). */
static int read_names(struct tui_model *m, char *err, size_t errlen)
{
    size_t n;
    const struct vftr_source_proc *p = vftr_source_procs(m->src, &n);
    const struct vftr_source_func *f;
    const struct vftr_source_name *g;
    const struct vftr_source_counter *c;

    for (size_t i = 0; i < n; i++) {
        if (vftr_reserve((void **)&m->procs, &m->capprocs, m->nprocs, sizeof *m->procs) < 0)
            goto nomem;
        m->procs[m->nprocs] = (struct tui_proc){ p[i].token, strdup(p[i].name),
                                                 display_name(p[i].name), p[i].parent, 0, 0, 0 };
        m->nprocs++;
        if (!m->procs[m->nprocs - 1].name || !m->procs[m->nprocs - 1].label)
            goto nomem;
    }
    f = vftr_source_funcs(m->src, &n);
    for (size_t i = 0; i < n; i++) {
        if (vftr_reserve((void **)&m->funcs, &m->capfuncs, m->nfuncs, sizeof *m->funcs) < 0)
            goto nomem;
        m->funcs[m->nfuncs] = (struct tui_func){ f[i].token, strdup(f[i].name), f[i].group };
        if (!m->funcs[m->nfuncs++].name)
            goto nomem;
    }
    g = vftr_source_groups(m->src, &n);
    for (size_t i = 0; i < n; i++) {
        if (vftr_reserve((void **)&m->groups, &m->capgroups, m->ngroups, sizeof *m->groups) < 0)
            goto nomem;
        m->groups[m->ngroups] = (struct tui_group){ g[i].token, strdup(g[i].name) };
        if (!m->groups[m->ngroups++].name)
            goto nomem;
    }
    c = vftr_source_counters(m->src, &n);
    for (size_t i = 0; i < n; i++) {
        if (vftr_reserve((void **)&m->counters, &m->capcounters, m->ncounters,
                         sizeof *m->counters) < 0)
            goto nomem;
        m->counters[m->ncounters] = (struct tui_counter){ c[i].token, strdup(c[i].name),
                                                         strdup(c[i].unit) };
        m->ncounters++;
        if (!m->counters[m->ncounters - 1].name || !m->counters[m->ncounters - 1].unit)
            goto nomem;
    }
    /* qsort must not see the NULL of an empty list */
    if (m->nprocs)
        qsort(m->procs, m->nprocs, sizeof *m->procs, cmp_proc);
    if (m->nfuncs)
        qsort(m->funcs, m->nfuncs, sizeof *m->funcs, cmp_func);
    if (m->ngroups)
        qsort(m->groups, m->ngroups, sizeof *m->groups, cmp_group);
    if (m->ncounters)
        qsort(m->counters, m->ncounters, sizeof *m->counters, cmp_counter);
    m->data.counters = calloc(m->ncounters ? m->ncounters : 1, sizeof *m->data.counters);
    if (!m->data.counters || index_threads(m) < 0)
        goto nomem;
    return 0;
nomem:
    return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
}

static long proc_index(const struct tui_model *m, uint32_t id);

/* Display order: top-level processes by id, each followed by its threads. */
static void build_rows(struct tui_model *m)
{
    m->nrows = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        if (m->procs[i].child)
            continue;
        m->rows[m->nrows++] = i;
        if (m->procs[i].folded)
            continue;
        for (size_t k = 0; k < m->nprocs; k++)
            if (m->procs[k].child && m->procs[k].parent == m->procs[i].id)
                m->rows[m->nrows++] = k;
    }
}

static int index_threads(struct tui_model *m)
{
    /* One level: a process goes under its parent when that parent is a
     * top-level process of the trace; deeper chains and cycles stay on
     * top. */
    for (size_t i = 0; i < m->nprocs; i++) {
        struct tui_proc *p = &m->procs[i];
        long pi = p->parent && p->parent != p->id ? proc_index(m, p->parent) : -1;

        if (pi < 0)
            continue;
        const struct tui_proc *q = &m->procs[pi];

        if (q->parent == 0 || q->parent == q->id || proc_index(m, q->parent) < 0) {
            p->child = 1;
            m->procs[pi].nchildren++;
        }
    }
    m->rows = malloc((m->nprocs ? m->nprocs : 1) * sizeof *m->rows);
    if (!m->rows)
        return -ENOMEM;
    build_rows(m);
    return 0;
}

const size_t *tui_model_rows(const struct tui_model *m, size_t *n)
{
    *n = m->nrows;
    return m->rows;
}

size_t tui_model_row_of(const struct tui_model *m, size_t pi)
{
    if (pi < m->nprocs && m->procs[pi].child) {
        long parent = proc_index(m, m->procs[pi].parent);

        if (parent >= 0 && m->procs[parent].folded)
            pi = (size_t)parent;
    }
    for (size_t r = 0; r < m->nrows; r++)
        if (m->rows[r] == pi)
            return r;
    return 0;
}

int tui_model_fold(struct tui_model *m, size_t pi)
{
    long top = (long)pi;

    if (pi >= m->nprocs)
        return -EINVAL;
    if (m->procs[pi].child)
        top = proc_index(m, m->procs[pi].parent);
    if (top < 0 || m->procs[top].nchildren == 0)
        return -ENOENT;
    m->procs[top].folded = !m->procs[top].folded;
    build_rows(m);
    if (m->procs[top].folded && m->procs[m->view.proc_sel].child &&
        m->procs[m->view.proc_sel].parent == m->procs[top].id) {
        m->view.proc_sel = (size_t)top;
        m->dirty_details = 1;
    }
    return 0;
}

/* Index of process id in m->procs, or -1. */
static long proc_index(const struct tui_model *m, uint32_t id)
{
    size_t lo = 0, hi = m->nprocs;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (m->procs[mid].id == id)
            return (long)mid;
        if (m->procs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

const char *tui_model_func_name(struct tui_model *m, uint32_t id)
{
    size_t lo = 0, hi = m->nfuncs;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (m->funcs[mid].id == id)
            return m->funcs[mid].name;
        if (m->funcs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    snprintf(m->namebuf, sizeof m->namebuf, "function %u", (unsigned)id);
    return m->namebuf;
}

/* Index of id in a table sorted by id (id the first member), or -1. */
#define FIND_BY_ID(table, n, key)                                                         \
    do {                                                                                  \
        size_t lo_ = 0, hi_ = (n);                                                        \
        while (lo_ < hi_) {                                                               \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;                                          \
            if ((table)[mid_].id == (key))                                                \
                return (long)mid_;                                                        \
            if ((table)[mid_].id < (key))                                                 \
                lo_ = mid_ + 1;                                                           \
            else                                                                          \
                hi_ = mid_;                                                               \
        }                                                                                 \
        return -1;                                                                        \
    } while (0)

static long func_find(const struct tui_model *m, uint32_t id)
{
    FIND_BY_ID(m->funcs, m->nfuncs, id);
}

static long group_find(const struct tui_model *m, uint32_t id)
{
    FIND_BY_ID(m->groups, m->ngroups, id);
}

const struct tui_group *tui_model_groups(const struct tui_model *m, size_t *n)
{
    *n = m->ngroups;
    return m->groups;
}

const struct tui_counter *tui_model_counters(const struct tui_model *m, size_t *n)
{
    *n = m->ncounters;
    return m->counters;
}

size_t tui_model_paints(const struct tui_model *m)
{
    return m->view.color_by_group ? m->ngroups : m->nfuncs;
}

long tui_model_paint(const struct tui_model *m, uint32_t function)
{
    long f = func_find(m, function);

    if (f < 0 || !m->view.color_by_group)
        return f;
    return group_find(m, m->funcs[f].group);
}

const char *tui_model_paint_name(const struct tui_model *m, size_t paint)
{
    if (m->view.color_by_group)
        return paint < m->ngroups ? m->groups[paint].name : "";
    return paint < m->nfuncs ? m->funcs[paint].name : "";
}

/* ------------------------------------------------------------ lifecycle */

struct tui_model *tui_model_open(const char *trace, char *err, size_t errlen)
{
    struct tui_model *m = calloc(1, sizeof *m);
    const struct vftr_window_info *info;
    int e = ENOMEM;

    struct vftr_source_opts so = { NULL, "vftr-tui", 0 };
    int rc;

    if (!m || !(m->stub = vftr_trace_namestub(trace))) {
        vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto fail;
    }
    rc = vftr_source_open(&m->src, &trace, 1, &so, err, errlen);
    if (rc < 0) {
        e = -rc;
        goto fail;
    }
    m->win = vftr_source_window(m->src);
    if (!m->win) {
        e = EINVAL;
        vftr_errmsg(err, errlen, -EINVAL, "%s: vftr-tui reads OTF traces (convert .vfd files "
                    "with vfd2otf first)", trace);
        goto fail;
    }
    if (read_names(m, err, errlen) < 0) {
        e = EIO;
        goto fail;
    }
    info = vftr_window_info(m->win);
    if (!info->have_events) {
        e = ENODATA;
        vftr_errmsg(err, errlen, -ENODATA, "%s: the trace has no events", trace);
        goto fail;
    }
    if (m->nprocs == 0) {
        e = ENODATA;
        vftr_errmsg(err, errlen, -ENODATA, "%s: the trace defines no processes", trace);
        goto fail;
    }
    m->depth_of = calloc(m->nprocs, sizeof *m->depth_of);
    m->next_col = calloc(m->nprocs, sizeof *m->next_col);
    m->stacks = calloc(m->nprocs, sizeof *m->stacks);
    if (!m->depth_of || !m->next_col || !m->stacks) {
        vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto fail;
    }
    m->view.t0 = info->first;
    m->view.t1 = info->last + 1;
    m->view.cursor = info->first;
    m->view.depth = 1;
    m->view.sort = TUI_COL_EXCL;
    m->sym_mode = -1;
    m->data.ncols = 1;
    m->dirty_window = m->dirty_details = 1;
    return m;
fail:
    tui_model_free(m);
    errno = e;
    return NULL;
}

void tui_model_free(struct tui_model *m)
{
    if (!m)
        return;
    vftr_source_free(m->src);
    for (size_t i = 0; i < m->nprocs; i++) {
        free(m->procs[i].name);
        free(m->procs[i].label);
        if (m->stacks)
            free(m->stacks[i]);
    }
    for (size_t i = 0; i < m->nfuncs; i++)
        free(m->funcs[i].name);
    for (size_t i = 0; i < m->ngroups; i++)
        free(m->groups[i].name);
    for (size_t i = 0; i < m->ncounters; i++) {
        free(m->counters[i].name);
        free(m->counters[i].unit);
    }
    free(m->groups);
    free(m->counters);
    free(m->data.counters);
    free(m->procs);
    free(m->rows);
    free(m->funcs);
    free(m->data.grid);
    free(m->data.marks);
    vftr_profile_release(&m->data.prof);
    free(m->data.prof_ctr);
    free(m->data.order);
    free(m->data.stack);
    free(m->data.msgs);
    free(m->depth_of);
    free(m->stacks);
    free(m->next_col);
    free(m->colt);
    pcre2_match_data_free(m->md);
    pcre2_code_free(m->re);
    free(m->pattern);
    vftr_profbuild_free(m->replay);
    free(m->sym);
    free(m->legend);
    tui_comm_free(m->comm);
    free(m->comm_procs);
    free(m->stub);
    free(m);
}

const struct tui_proc *tui_model_procs(const struct tui_model *m, size_t *n)
{
    *n = m->nprocs;
    return m->procs;
}

const struct tui_func *tui_model_funcs(const struct tui_model *m, size_t *n)
{
    *n = m->nfuncs;
    return m->funcs;
}

const struct vftr_window_info *tui_model_info(const struct tui_model *m)
{
    return vftr_window_info(m->win);
}

const char *tui_model_trace_name(const struct tui_model *m)
{
    return m->stub;
}

struct vftr_window *tui_model_window(struct tui_model *m)
{
    return m->win;
}

struct vftr_source *tui_model_source(struct tui_model *m)
{
    return m->src;
}

struct tui_view *tui_model_view(struct tui_model *m)
{
    return &m->view;
}

const struct tui_data *tui_model_data(const struct tui_model *m)
{
    return &m->data;
}

void tui_model_set_columns(struct tui_model *m, size_t ncols)
{
    if (ncols < 1)
        ncols = 1;
    if (ncols != m->data.ncols) {
        m->data.ncols = ncols;
        m->dirty_window = 1;
    }
}

void tui_model_invalidate(struct tui_model *m, int window)
{
    if (window)
        m->dirty_window = 1;
    m->dirty_details = 1;
}

/* ------------------------------------------------------------ arithmetic */

uint64_t tui_model_col_time(const struct tui_model *m, size_t c)
{
    unsigned __int128 span = m->view.t1 - m->view.t0;

    return m->view.t0 + (uint64_t)(span * c / m->data.ncols);
}

size_t tui_model_time_col(const struct tui_model *m, uint64_t t)
{
    unsigned __int128 span = m->view.t1 - m->view.t0;

    if (t <= m->view.t0)
        return 0;
    if (t >= m->view.t1)
        return m->data.ncols - 1;
    /* the last column whose start is <= t */
    size_t c = (size_t)(((unsigned __int128)(t - m->view.t0) * m->data.ncols) / span);

    while (c + 1 < m->data.ncols && tui_model_col_time(m, c + 1) <= t)
        c++;
    while (c > 0 && tui_model_col_time(m, c) > t)
        c--;
    return c;
}

/* The trace's end (exclusive) and start. */
static uint64_t trace_lo(const struct tui_model *m) { return tui_model_info(m)->first; }
static uint64_t trace_hi(const struct tui_model *m) { return tui_model_info(m)->last + 1; }

/* Puts [t0, t0 + span) inside the trace, span at least one tick per column. */
static void set_window(struct tui_model *m, uint64_t t0, uint64_t span)
{
    uint64_t lo = trace_lo(m), hi = trace_hi(m);

    if (span < m->data.ncols)
        span = m->data.ncols;
    if (span > hi - lo)
        span = hi - lo;
    if (t0 < lo)
        t0 = lo;
    if (t0 > hi - span)
        t0 = hi - span;
    if (m->view.t0 != t0 || m->view.t1 != t0 + span)
        m->dirty_window = 1;
    m->view.t0 = t0;
    m->view.t1 = t0 + span;
    if (m->view.cursor < m->view.t0)
        m->view.cursor = m->view.t0;
    if (m->view.cursor >= m->view.t1)
        m->view.cursor = m->view.t1 - 1;
    m->dirty_details = 1;
}

void tui_model_zoom(struct tui_model *m, double factor)
{
    uint64_t span = m->view.t1 - m->view.t0, cur = m->view.cursor;
    double nspan = (double)span * factor;
    uint64_t ns = nspan < 1 ? 1 : nspan > 1.8e19 ? UINT64_MAX : (uint64_t)nspan;
    /* keep the cursor's position on the screen: same fraction of the window */
    double frac = span ? (double)(cur - m->view.t0) / (double)span : 0;
    uint64_t left = (uint64_t)(frac * (double)(ns < m->data.ncols ? m->data.ncols : ns));

    set_window(m, cur > left ? cur - left : 0, ns);
}

void tui_model_zoom_full(struct tui_model *m)
{
    set_window(m, trace_lo(m), trace_hi(m) - trace_lo(m));
}

int tui_model_zoom_mark(struct tui_model *m)
{
    uint64_t a = m->view.mark, b = m->view.cursor;

    if (!m->view.have_mark)
        return -EINVAL;
    if (a > b) {
        uint64_t t = a;

        a = b;
        b = t;
    }
    set_window(m, a, b - a + 1);
    return 0;
}

void tui_model_move_cursor(struct tui_model *m, long n)
{
    size_t c = tui_model_time_col(m, m->view.cursor);
    long nc = (long)c + n;
    uint64_t span = m->view.t1 - m->view.t0;

    if (nc < 0 || nc >= (long)m->data.ncols) {
        /* pan by the overshoot, in columns */
        double shift = (double)span * (double)(nc < 0 ? nc : nc - (long)m->data.ncols + 1) /
                       (double)m->data.ncols;
        int64_t s = (int64_t)shift;
        uint64_t t0 = m->view.t0;

        if (s < 0)
            t0 = (uint64_t)-s > t0 ? 0 : t0 - (uint64_t)-s;
        else
            t0 += (uint64_t)s;
        set_window(m, t0, span);
        nc = nc < 0 ? 0 : (long)m->data.ncols - 1;
    }
    m->view.cursor = tui_model_col_time(m, (size_t)nc);
    m->dirty_details = 1;
}

void tui_model_pan(struct tui_model *m, double fraction)
{
    uint64_t span = m->view.t1 - m->view.t0;
    double d = (double)span * fraction;
    uint64_t t0 = m->view.t0, cur = m->view.cursor;

    if (d < 0) {
        uint64_t s = (uint64_t)-d;

        t0 = s > t0 ? 0 : t0 - s;
        cur = s > cur ? 0 : cur - s;
    } else {
        t0 += (uint64_t)d;
        cur += (uint64_t)d;
    }
    set_window(m, t0, span);
    tui_model_jump(m, cur);
}

void tui_model_jump(struct tui_model *m, uint64_t t)
{
    uint64_t span = m->view.t1 - m->view.t0;

    if (t < trace_lo(m))
        t = trace_lo(m);
    if (t >= trace_hi(m))
        t = trace_hi(m) - 1;
    if (t < m->view.t0 || t >= m->view.t1)
        set_window(m, t > span / 2 ? t - span / 2 : 0, span);
    m->view.cursor = t;
    m->dirty_details = 1;
}

char *tui_format_time(char *buf, size_t size, uint64_t ticks, uint64_t resolution)
{
    vftr_fmt_ticks(ticks, resolution, buf, size);
    return buf;
}

char *tui_model_format_at(const struct tui_model *m, uint64_t t, char *buf, size_t size)
{
    const struct vftr_window_info *info = tui_model_info(m);
    uint64_t rel = t >= info->first ? t - info->first : 0;
    double step;

    if (!info->resolution) {
        vftr_fmt_ticks(rel, 0, buf, size);
        return buf;
    }
    /* a column spans one tick at least (set_window) */
    step = (double)(m->view.t1 - m->view.t0) / (double)(m->data.ncols ? m->data.ncols : 1);
    if (step < 1)
        step = 1;
    vftr_fmt_seconds_at((double)rel / (double)info->resolution, step / (double)info->resolution,
                        buf, size);
    return buf;
}

/* ------------------------------------------------------------ timeline */

static int set_stack(struct tui_model *m, size_t pi, uint32_t depth, uint32_t function)
{
    /* stacks[pi] holds functions at depth 1..view.depth only */
    if (depth <= m->view.depth)
        m->stacks[pi][depth - 1] = function;
    return 0;
}

/* The refresh's column start times (m->colt), so that the per-event work
 * below needs no 128-bit division: 0 or -ENOMEM. */
static int columns_prepare(struct tui_model *m)
{
    size_t n = m->data.ncols;

    if (n > m->capcolt) {
        uint64_t *t = realloc(m->colt, n * sizeof *t);

        if (!t)
            return -ENOMEM;
        m->colt = t;
        m->capcolt = n;
    }
    for (size_t c = 0; c < n; c++)
        m->colt[c] = tui_model_col_time(m, c);
    return 0;
}

/* tui_model_time_col() during a refresh: the last column whose start is
 * <= t (0 before the window, the last one after it), searched from the
 * column the grid of process pi has reached (events of a process come in
 * time order, so that is at most a step or two away). */
static size_t column_of(const struct tui_model *m, size_t pi, uint64_t t)
{
    size_t n = m->data.ncols, c = m->next_col[pi];

    if (n == 0)
        return 0;
    if (c >= n)
        c = n - 1;
    while (c > 0 && m->colt[c] > t)
        c--;
    while (c + 1 < n && m->colt[c + 1] <= t)
        c++;
    return c;
}

/* Finalizes the columns of process pi that start before t. */
static void fill_until(struct tui_model *m, size_t pi, uint64_t t)
{
    struct tui_data *d = &m->data;
    size_t c = m->next_col[pi];
    uint32_t f = m->depth_of[pi] >= m->view.depth ? m->stacks[pi][m->view.depth - 1] : 0;

    while (c < d->ncols && m->colt[c] < t) {
        d->grid[pi * d->ncols + c] = f;
        c++;
    }
    m->next_col[pi] = c;
}

/*
 * Details of the selected process (stack, messages in flight just after the
 * cursor) taken from the window read that draws the timeline, so that a
 * jump reads the trace once: frames and messages are tracked until the
 * first event after the cursor.
 */
static void capture_until(struct tui_model *m, uint64_t t)
{
    if (m->capturing && !m->captured && t > m->view.cursor)
        m->captured = 1;
}

static int cap_push(struct tui_model *m, uint32_t process, uint32_t function, uint64_t enter)
{
    struct tui_data *d = &m->data;

    if (!m->capturing || m->captured || process != m->sel_id)
        return 0;
    if (vftr_reserve((void **)&d->stack, &m->capstack, d->nstack, sizeof *d->stack) < 0)
        return -ENOMEM;
    d->stack[d->nstack++] = (struct tui_frame){ function, enter };
    return 0;
}

static void cap_pop(struct tui_model *m, uint32_t process, uint32_t function)
{
    struct tui_data *d = &m->data;

    if (!m->capturing || m->captured || process != m->sel_id || d->nstack == 0)
        return;
    /* as the window's own replay: close up to the matching frame */
    for (size_t k = d->nstack; k-- > 0;) {
        if (function == 0 || d->stack[k].function == function) {
            d->nstack = k;
            return;
        }
    }
}

static int cap_msg(struct tui_model *m, uint64_t time, uint32_t sender, uint32_t receiver,
                   uint32_t comm, uint32_t tag, uint32_t length)
{
    struct tui_data *d = &m->data;

    if (!m->capturing || m->captured || (sender != m->sel_id && receiver != m->sel_id))
        return 0;
    if (vftr_reserve((void **)&d->msgs, &m->capmsgs, d->nmsgs, sizeof *d->msgs) < 0)
        return -ENOMEM;
    d->msgs[d->nmsgs++] = (struct tui_msg){ time, sender, receiver, comm, tag, length };
    return 0;
}

/* A receive completes the oldest message of its channel (sender, receiver,
 * communicator, tag: MPI's non-overtaking rule; sender and receiver ranks
 * where the trace names peers by rank, messages.h). */
static void cap_recv(struct tui_model *m, uint32_t receiver, uint32_t sender, uint32_t comm,
                     uint32_t tag)
{
    struct tui_data *d = &m->data;

    if (!m->capturing || m->captured)
        return;
    for (size_t i = 0; i < d->nmsgs; i++) {
        if (d->msgs[i].comm == comm && d->msgs[i].tag == tag &&
            vftr_messages_admits(vftr_source_peer_ranks(m->src), m->src, d->msgs[i].receiver,
                                 receiver) &&
            vftr_messages_admits(vftr_source_peer_ranks(m->src), m->src, sender,
                                 d->msgs[i].sender)) {
            memmove(&d->msgs[i], &d->msgs[i + 1], (d->nmsgs - i - 1) * sizeof *d->msgs);
            d->nmsgs--;
            return;
        }
    }
}

static int g_open_message(void *arg, uint64_t time, uint32_t sender, uint32_t receiver,
                          uint32_t comm, uint32_t tag, uint32_t length)
{
    struct tui_model *m = arg;

    if (m->comm_feed) {
        int rc = tui_comm_open_send(m->comm, time, sender, receiver, comm, tag, length);

        if (rc < 0)
            return rc;
    }
    return cap_msg(m, time, sender, receiver, comm, tag, length);
}

static int g_open_frame(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                        uint32_t depth)
{
    struct tui_model *m = arg;
    long pi = proc_index(m, process);

    if (cap_push(m, process, function, enter) < 0)
        return -ENOMEM;

    if (m->replay) {
        int rc = vftr_profbuild_open_frame(m->replay, process, function, enter);

        if (rc < 0)
            return rc;
    }
    if (pi < 0)
        return 0;
    m->depth_of[pi] = depth;
    return set_stack(m, (size_t)pi, depth, function);
}

static int g_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct tui_model *m = arg;
    long pi = proc_index(m, process);

    capture_until(m, time);
    if (cap_push(m, process, function, time) < 0)
        return -ENOMEM;

    if (m->replay) {
        int rc = vftr_profbuild_enter(m->replay, time, process, function);

        if (rc < 0)
            return rc;
    }
    if (pi < 0 || !m->data.grid)
        return 0;
    fill_until(m, (size_t)pi, time);
    m->depth_of[pi]++;
    set_stack(m, (size_t)pi, m->depth_of[pi], function);
    if (m->depth_of[pi] == m->view.depth) {
        size_t c = column_of(m, (size_t)pi, time);
        uint32_t *cell = &m->data.grid[(size_t)pi * m->data.ncols + c];

        if (c < m->next_col[pi] && *cell == 0)
            *cell = function;
    }
    return 0;
}

static int g_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct tui_model *m = arg;
    long pi = proc_index(m, process);

    capture_until(m, time);
    cap_pop(m, process, function);

    if (m->replay) {
        int rc = vftr_profbuild_leave(m->replay, time, process, function);

        if (rc < 0)
            return rc;
    }
    if (pi < 0 || !m->data.grid)
        return 0;
    fill_until(m, (size_t)pi, time);
    if (m->depth_of[pi] > 0)
        m->depth_of[pi]--;
    return 0;
}

/* Marks: 1 a message was sent or received in the cell, 2 a collective. */
static void mark_cell(struct tui_model *m, uint64_t time, uint32_t process, uint8_t what)
{
    long pi = proc_index(m, process);

    if (pi >= 0 && m->data.marks)
        m->data.marks[(size_t)pi * m->data.ncols + column_of(m, (size_t)pi, time)] |= what;
}

static void mark_msg(struct tui_model *m, uint64_t time, uint32_t process)
{
    mark_cell(m, time, process, 1);
}

static int g_collop(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                    uint32_t root, uint64_t sent, uint64_t received, uint64_t duration)
{
    (void)op;
    (void)comm;
    (void)root;
    (void)sent;
    (void)received;
    (void)duration;
    mark_cell(arg, time, process, 2);
    return 0;
}

static int g_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    (void)op;
    (void)id;
    (void)comm;
    (void)root;
    (void)sent;
    (void)received;
    mark_cell(arg, time, process, 2);
    return 0;
}

static int g_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct tui_model *m = arg;

    capture_until(m, time);
    mark_msg(m, time, sender);
    if (m->comm_feed) {
        int rc = tui_comm_send(m->comm, time, sender, receiver, comm, tag, length);

        if (rc < 0)
            return rc;
    }
    return cap_msg(m, time, sender, receiver, comm, tag, length);
}

static int g_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct tui_model *m = arg;

    capture_until(m, time);
    cap_recv(m, receiver, sender, comm, tag);
    mark_msg(m, time, receiver);
    return m->comm_feed ? tui_comm_recv(m->comm, time, receiver, sender, comm, tag, length) : 0;
}

/* Sampled grid: column of a snapshot time, claimed by its first snapshot. */
struct sample_ctx {
    struct tui_model *m;
    uint64_t *claim;            /* per column: the snapshot time it shows, or UINT64_MAX */
    uint64_t *last_time;        /* per process: time of the snapshot being read */
    uint32_t *depth;            /* per process: frames seen of that snapshot */
    uint32_t *carry;            /* per process: function at depth of the last snapshot before t0 */
};

static int g_sample(void *arg, uint64_t time, uint32_t process, uint32_t function,
                    uint64_t enter)
{
    struct sample_ctx *s = arg;
    struct tui_model *m = s->m;
    long pi = proc_index(m, process);
    size_t c;

    (void)enter;
    if (pi < 0)
        return 0;
    if (s->last_time[pi] != time) {
        s->last_time[pi] = time;
        s->depth[pi] = 0;
        if (time < m->view.t0)
            s->carry[pi] = 0;
    }
    s->depth[pi]++;
    if (s->depth[pi] != m->view.depth)
        return 0;
    if (time < m->view.t0) {
        s->carry[pi] = function;
        return 0;
    }
    c = tui_model_time_col(m, time);
    if (s->claim[c] == UINT64_MAX)
        s->claim[c] = time;
    if (s->claim[c] == time)
        m->data.grid[(size_t)pi * m->data.ncols + c] = function;
    return 0;
}

static int build_sampled(struct tui_model *m, struct vftr_window_stats *st, char *err,
                         size_t errlen)
{
    struct tui_data *d = &m->data;
    struct sample_ctx s = { m, NULL, NULL, NULL, NULL };
    struct vftr_window_handler h = { .arg = &s, .sample_frame = g_sample };
    uint64_t from = m->view.t0;
    int rc = -ENOMEM;

    s.claim = malloc(d->ncols * sizeof *s.claim);
    s.last_time = malloc(m->nprocs * sizeof *s.last_time);
    s.depth = calloc(m->nprocs, sizeof *s.depth);
    s.carry = calloc(m->nprocs, sizeof *s.carry);
    if (!s.claim || !s.last_time || !s.depth || !s.carry)
        goto out;
    for (size_t c = 0; c < d->ncols; c++)
        s.claim[c] = UINT64_MAX;
    for (size_t i = 0; i < m->nprocs; i++)
        s.last_time[i] = UINT64_MAX;
    if (vftr_window_snapshot_before(m->win, m->view.t0, &from, NULL, 0) < 0)
        from = m->view.t0;
    rc = vftr_window_samples(m->win, from, m->view.t1, &h, st, err, errlen);
    if (rc < 0)
        goto out;
    /* Columns without a snapshot of their own show the latest one before. */
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        uint32_t cur = s.carry[pi];

        for (size_t c = 0; c < d->ncols; c++) {
            if (s.claim[c] == UINT64_MAX)
                d->grid[pi * d->ncols + c] = cur;
            else
                cur = d->grid[pi * d->ncols + c];
        }
    }
    rc = 0;
out:
    if (rc == -ENOMEM)
        vftr_errmsg(err, errlen, rc, "out of memory");
    free(s.claim);
    free(s.last_time);
    free(s.depth);
    free(s.carry);
    return rc;
}

/* ------------------------------------------------------------ profile */

/* The profile query of the visible window: every process, threads folded
 * into their rank (as vftr-stats does by default). */
static struct vftr_profq window_query(const struct tui_model *m)
{
    return (struct vftr_profq){ m->view.t0, m->view.t1, NULL, NULL, vftr_source_rank_process,
                                m->src, 0 };
}

/* The profile of the window from its result: rows into data.prof. */
static int take_profile(struct tui_model *m, struct vftr_profq_result *res)
{
    size_t n;
    const struct vftr_funcstat *fs = vftr_fsacc_result(res->acc, &n, NULL);
    int rc = fs ? vftr_profile_build(&m->data.prof, fs, n) : -ENOMEM;

    m->data.prof_from_summaries = res->method && strcmp(res->method, "summaries") == 0;
    m->data.prof_a = m->view.t0;
    m->data.prof_b = m->view.t1;
    return rc;
}

/* Row of function f in rows sorted by function (pairs: function, row). */
static int cmp_pair(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;

    return (x[0] > y[0]) - (x[0] < y[0]);
}

/*
 * The profile's counter columns (data.prof_ctr): one more read of the
 * window through lib/model/ctrpaths (what vftr-stats --counters sums), its
 * call paths folded into the profile's functions: a path adds its counts
 * to its function unless a path above it has the same function (the
 * outermost frame of a recursion has them all).
 */
static int profile_counters(struct tui_model *m, char *err, size_t errlen)
{
    struct tui_data *d = &m->data;
    size_t nc = m->ncounters < VFTR_CTRPATHS_MAX ? m->ncounters : VFTR_CTRPATHS_MAX, np = 0;
    uint32_t tok[VFTR_CTRPATHS_MAX], *pairs = NULL;
    struct vftr_ctrpaths *c = NULL;
    const struct vftr_ctrpath *p;
    struct vftr_window_handler h;
    struct vftr_window_stats st;
    int rc = -ENOMEM;

    free(d->prof_ctr);
    d->prof_ctr = NULL;
    if (nc == 0)
        return 0;
    for (size_t i = 0; i < nc; i++)
        tok[i] = m->counters[i].id;
    d->prof_ctr = calloc((d->prof.nrows ? d->prof.nrows : 1) * nc, sizeof *d->prof_ctr);
    pairs = malloc((d->prof.nrows ? d->prof.nrows : 1) * 2 * sizeof *pairs);
    if (!d->prof_ctr || !pairs || (c = vftr_ctrpaths_new(tok, nc)) == NULL)
        goto out;
    h = vftr_ctrpaths_handler(c);
    rc = vftr_window_read(m->win, m->view.t0, m->view.t1, &h, &st, err, errlen);
    if (rc < 0)
        goto out;
    d->bytes_read += st.bytes_read;
    rc = -ENOMEM;
    if ((p = vftr_ctrpaths_result(c, &np)) == NULL && np)
        goto out;
    for (size_t i = 0; i < d->prof.nrows; i++) {
        pairs[2 * i] = d->prof.rows[i].function;
        pairs[2 * i + 1] = (uint32_t)i;
    }
    qsort(pairs, d->prof.nrows, 2 * sizeof *pairs, cmp_pair);
    for (size_t i = 0; i < np; i++) {
        uint32_t key[2] = { p[i].function, 0 }, *row;
        bool outer = true;

        for (uint32_t up = p[i].parent, hops = 0; up && up <= np && hops < np;
             up = p[up - 1].parent, hops++)
            if (p[up - 1].function == p[i].function) {
                outer = false;
                break;
            }
        row = outer ? bsearch(key, pairs, d->prof.nrows, 2 * sizeof *pairs, cmp_pair) : NULL;
        for (size_t k = 0; row && k < nc; k++)
            d->prof_ctr[(size_t)row[1] * nc + k] += p[i].incl[k];
    }
    rc = 0;
out:
    if (rc < 0) {
        free(d->prof_ctr);
        d->prof_ctr = NULL;
        if (rc == -ENOMEM)
            vftr_errmsg(err, errlen, rc, "out of memory");
    }
    vftr_ctrpaths_free(c);
    free(pairs);
    return rc;
}

void tui_model_next_counter(struct tui_model *m)
{
    if (m->ncounters)
        m->view.ctr_sel = (m->view.ctr_sel + 1) % m->ncounters;
}

static const struct tui_model *sort_model;   /* qsort has no context argument */

static double col_value(const struct vftr_profile_row *r, enum tui_col c)
{
    switch (c) {
    case TUI_COL_EXCL: return (double)r->excl;
    case TUI_COL_INCL: return (double)r->incl;
    case TUI_COL_CALLS: return (double)r->calls;
    case TUI_COL_IMBAL: return r->imbalance;
    default: return 0;
    }
}

static int cmp_order(const void *a, const void *b)
{
    struct tui_model *m = (struct tui_model *)sort_model;
    const struct vftr_profile_row *x = &m->data.prof.rows[*(const size_t *)a];
    const struct vftr_profile_row *y = &m->data.prof.rows[*(const size_t *)b];
    int d;

    if (m->view.sort == TUI_COL_NAME) {
        char xn[256];       /* the second lookup may reuse the name buffer */

        snprintf(xn, sizeof xn, "%s", tui_model_func_name(m, x->function));
        d = strcmp(xn, tui_model_func_name(m, y->function));
    } else {
        double u = col_value(x, m->view.sort), v = col_value(y, m->view.sort);

        d = u < v ? 1 : u > v ? -1 : 0;        /* numbers descend */
    }
    if (d == 0)
        d = (x->function > y->function) - (x->function < y->function);
    return m->view.reverse ? -d : d;
}

/* Sorts the table; the selected function keeps its selection. */
static int sort_profile(struct tui_model *m)
{
    struct tui_data *d = &m->data;

    free(d->order);
    d->order = malloc((d->prof.nrows ? d->prof.nrows : 1) * sizeof *d->order);
    if (!d->order)
        return -ENOMEM;
    for (size_t i = 0; i < d->prof.nrows; i++)
        d->order[i] = i;
    sort_model = m;
    qsort(d->order, d->prof.nrows, sizeof *d->order, cmp_order);
    sort_model = NULL;
    if (m->view.func_sel) {
        for (size_t i = 0; i < d->prof.nrows; i++)
            if (d->prof.rows[d->order[i]].function == m->view.func_sel)
                m->view.prof_sel = i;
    }
    if (m->view.prof_sel >= d->prof.nrows)
        m->view.prof_sel = d->prof.nrows ? d->prof.nrows - 1 : 0;
    return 0;
}

void tui_model_resort(struct tui_model *m)
{
    sort_profile(m);
}

void tui_model_sort_next(struct tui_model *m)
{
    m->view.sort = (enum tui_col)((m->view.sort + 1) % TUI_NCOLS);
    sort_profile(m);
}

/* ------------------------------------------------------------ refresh */

/* Is the visible window wide enough to be drawn from snapshots alone? */
static int want_sampled(const struct tui_model *m)
{
    const struct vftr_window_info *info = tui_model_info(m);
    uint64_t interval;

    if (info->nsnapshots == 0)
        return 0;
    interval = (info->last - info->first) / (info->nsnapshots + 1);
    return m->view.t1 - m->view.t0 > (uint64_t)TUI_SAMPLE_INTERVALS * (interval ? interval : 1);
}

static void details_reset(struct tui_model *m);
static int comm_start(struct tui_model *m);
static int comm_read(struct tui_model *m, char *err, size_t errlen);
static int comm_end(struct tui_model *m);

static int refresh_window(struct tui_model *m, char *err, size_t errlen)
{
    struct tui_data *d = &m->data;
    struct vftr_window_stats st;
    size_t n = m->nprocs * d->ncols;
    int sampled = want_sampled(m);
    int rc;

    free(d->grid);
    free(d->marks);
    vftr_profile_release(&d->prof);
    free(d->prof_ctr);
    d->prof_ctr = NULL;
    d->grid = calloc(n ? n : 1, sizeof *d->grid);
    d->marks = calloc(n ? n : 1, 1);
    d->prof_from_summaries = 0;
    if (!d->grid || !d->marks || columns_prepare(m) < 0)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    for (size_t i = 0; i < m->nprocs; i++) {
        free(m->stacks[i]);
        m->stacks[i] = calloc(m->view.depth, sizeof **m->stacks);
        if (!m->stacks[i])
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        m->depth_of[i] = 0;
        m->next_col[i] = 0;
    }
    d->sampled = sampled;
    m->captured = 0;
    m->grid_gen++;
    if ((rc = comm_start(m)) < 0)
        return vftr_errmsg(err, errlen, rc, "out of memory");
    if (sampled) {
        struct vftr_profq q = window_query(m);
        struct vftr_profq_result res;

        rc = build_sampled(m, &st, err, errlen);
        if (rc < 0)
            return rc;
        d->bytes_read += st.bytes_read;
        /* the source's one profile route: summaries where they help */
        rc = vftr_source_profile(m->src, &q, &res, err, errlen);
        if (rc == 0) {
            d->bytes_read += res.bytes;
            rc = take_profile(m, &res);
        }
        vftr_profq_release(&res);
        if (rc == 0)
            rc = comm_read(m, err, errlen);
    } else {
        struct vftr_window_handler h = { .arg = m, .open_frame = g_open_frame,
                                         .open_message = g_open_message,
                                         .enter = g_enter, .leave = g_leave,
                                         .send = g_send, .recv = g_recv,
                                         .collop = g_collop, .coll_begin = g_coll_begin };
        struct vftr_profq q = window_query(m);

        /* one read for the timeline and the profile (vftr_profbuild: the
         * event route of vftr_source_profile) */
        m->replay = vftr_profbuild_new(&q);
        if (!m->replay)
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        details_reset(m);
        m->capturing = m->view.cursor >= m->view.t0 && m->view.cursor < m->view.t1;
        m->comm_feed = m->view.comm;
        rc = vftr_window_read(m->win, m->view.t0, m->view.t1, &h, &st, err, errlen);
        m->comm_feed = 0;
        if (m->capturing && rc == 0)
            m->captured = 1;            /* no event after the cursor: the end state */
        m->capturing = 0;
        d->bytes_read += st.bytes_read;
        for (size_t i = 0; rc == 0 && i < m->nprocs; i++)
            fill_until(m, i, UINT64_MAX);
        if (rc == 0) {
            struct vftr_profq_result res = { 0 };

            rc = vftr_profbuild_finish(m->replay, &res);
            if (rc == 0)
                rc = take_profile(m, &res);
            vftr_profq_release(&res);
        }
        vftr_profbuild_free(m->replay);
        m->replay = NULL;
        if (rc == 0)
            rc = profile_counters(m, err, errlen);
    }
    if (rc == 0)
        rc = comm_end(m);
    if (rc == -ENOMEM)
        return vftr_errmsg(err, errlen, rc, "out of memory");
    if (rc < 0)
        return rc;
    return sort_profile(m);
}

static void details_reset(struct tui_model *m)
{
    struct tui_data *d = &m->data;

    free(d->stack);
    free(d->msgs);
    d->stack = NULL;
    d->msgs = NULL;
    d->nstack = d->nmsgs = 0;
    m->capstack = m->capmsgs = 0;
    m->sel_id = m->procs[m->view.proc_sel].id;
}

struct details_ctx {
    struct tui_model *m;
    uint32_t process;
    size_t capstack, capmsgs;
};

static int d_open_frame(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                        uint32_t depth)
{
    struct details_ctx *c = arg;
    struct tui_data *d = &c->m->data;

    (void)depth;
    if (process != c->process)
        return 0;
    if (vftr_reserve((void **)&d->stack, &c->capstack, d->nstack, sizeof *d->stack) < 0)
        return -ENOMEM;
    d->stack[d->nstack++] = (struct tui_frame){ function, enter };
    return 0;
}

static int d_open_message(void *arg, uint64_t time, uint32_t sender, uint32_t receiver,
                          uint32_t comm, uint32_t tag, uint32_t length)
{
    struct details_ctx *c = arg;
    struct tui_data *d = &c->m->data;

    (void)comm;
    if (sender != c->process && receiver != c->process)
        return 0;
    if (vftr_reserve((void **)&d->msgs, &c->capmsgs, d->nmsgs, sizeof *d->msgs) < 0)
        return -ENOMEM;
    d->msgs[d->nmsgs++] = (struct tui_msg){ time, sender, receiver, comm, tag, length };
    return 0;
}

struct counter_ctx {
    struct tui_model *m;
    uint32_t process;
    uint64_t upto;              /* records at or before it count */
};

/* Keeps the latest value of each counter of the selected process. */
static int c_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value)
{
    struct counter_ctx *c = arg;
    struct tui_model *m = c->m;
    long i;

    if (process != c->process || time > c->upto)
        return 0;
    i = -1;
    for (size_t k = 0; k < m->ncounters && i < 0; k++)   /* few counters */
        if (m->counters[k].id == counter)
            i = (long)k;
    if (i >= 0 && (!m->data.counters[i].known || time >= m->data.counters[i].time))
        m->data.counters[i] = (struct tui_counter_value){ counter, 1, time, value };
    return 0;
}

/*
 * Counter values at the cursor: OTF has no snapshot record for counters, so
 * they are searched backwards from the cursor in event windows of doubling
 * length (one snapshot interval first), until every counter has a value or
 * the search has read TUI_COUNTER_BYTES (so a counter that is never
 * recorded costs a bounded read, not the whole trace); a counter with no
 * record in that reach stays unknown.
 */
#define TUI_COUNTER_BYTES (4u << 20)

static int refresh_counters(struct tui_model *m, uint64_t cursor, char *err, size_t errlen)
{
    const struct vftr_window_info *info = vftr_window_info(m->win);
    struct tui_data *d = &m->data;
    struct counter_ctx c = { m, m->procs[m->view.proc_sel].id, cursor };
    struct vftr_window_handler h = { .arg = &c, .counter = c_counter };
    uint64_t whole = info->last - info->first + 1;
    uint64_t span = info->nsnapshots ? whole / (info->nsnapshots + 1) : whole / 200;
    uint64_t hi = cursor + 1, spent = 0;

    d->ncounters = m->ncounters;
    for (size_t i = 0; i < m->ncounters; i++)
        d->counters[i] = (struct tui_counter_value){ m->counters[i].id, 0, 0, 0 };
    if (!m->ncounters || !info->have_events)
        return 0;
    if (span == 0)
        span = 1;
    for (;;) {
        uint64_t lo = hi - info->first > span ? hi - span : info->first;
        struct vftr_window_stats st;
        size_t missing = 0;
        int rc;

        if (lo < hi) {
            rc = vftr_window_events(m->win, lo, hi, &h, &st, err, errlen);
            d->bytes_read += st.bytes_read;
            spent += st.bytes_read;
            if (rc < 0)
                return rc;
        }
        for (size_t i = 0; i < d->ncounters; i++)
            missing += !d->counters[i].known;
        if (!missing || lo <= info->first || spent >= TUI_COUNTER_BYTES)
            return 0;
        hi = lo;
        span = span > UINT64_MAX / 2 ? UINT64_MAX : span * 2;
    }
}

/* The state just after the cursor: frames open at cursor + 1. */
static int refresh_details(struct tui_model *m, char *err, size_t errlen)
{
    struct details_ctx c = { m, m->procs[m->view.proc_sel].id, 0, 0 };
    struct vftr_window_handler h = { .arg = &c, .open_frame = d_open_frame,
                                     .open_message = d_open_message };
    struct tui_data *d = &m->data;
    struct vftr_window_stats st;
    uint64_t t = m->view.cursor + 1;
    int rc;

    details_reset(m);
    rc = vftr_window_read(m->win, t, t + 1, &h, &st, err, errlen);
    d->bytes_read += st.bytes_read;
    if (rc == -ENOMEM)
        return vftr_errmsg(err, errlen, rc, "out of memory");
    if (rc == 0)
        rc = refresh_counters(m, m->view.cursor, err, errlen);
    return rc;
}

int tui_model_refresh(struct tui_model *m, char *err, size_t errlen)
{
    struct timespec a, b;
    int rc = 0;

    if (m->view.proc_sel >= m->nprocs)
        m->view.proc_sel = m->nprocs - 1;
    if (!m->dirty_window && !m->dirty_details)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    m->data.bytes_read = 0;
    if (m->dirty_window)
        rc = refresh_window(m, err, errlen);
    if (rc == 0 && !m->captured)
        rc = refresh_details(m, err, errlen);
    else if (rc == 0)
        rc = refresh_counters(m, m->view.cursor, err, errlen);
    m->captured = 0;
    if (rc == 0)
        m->dirty_window = m->dirty_details = 0;
    clock_gettime(CLOCK_MONOTONIC, &b);
    m->data.seconds = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    return rc;
}

void tui_model_abandon(struct tui_model *m)
{
    struct tui_data *d = &m->data;

    if (d->grid)
        memset(d->grid, 0, m->nprocs * d->ncols * sizeof *d->grid);
    if (d->marks)
        memset(d->marks, 0, m->nprocs * d->ncols);
    vftr_profile_release(&d->prof);
    free(d->prof_ctr);
    d->prof_ctr = NULL;
    d->prof_from_summaries = 0;
    details_reset(m);
    for (size_t i = 0; i < d->ncounters; i++)
        d->counters[i].known = 0;
    m->captured = m->capturing = 0;
    m->dirty_window = m->dirty_details = 0;
}

/* ------------------------------------------------------------ finding */

struct find_ctx {
    uint32_t process, function;
    int dir;
    uint64_t after;             /* forward: first enter with time > after */
    uint64_t found;
    int have;
};

static int f_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct find_ctx *f = arg;

    if (process != f->process || function != f->function)
        return 0;
    if (f->dir > 0) {
        if (time <= f->after)
            return 0;
        f->found = time;
        f->have = 1;
        return 1;               /* stop: the first one is the one */
    }
    f->found = time;            /* backward: the last one of the window */
    f->have = 1;
    return 0;
}

int tui_model_find_event(struct tui_model *m, int dir, char *err, size_t errlen)
{
    struct find_ctx f = { m->procs[m->view.proc_sel].id, m->view.func_sel, dir,
                          m->view.cursor, 0, 0 };
    struct vftr_window_handler h = { .arg = &f, .enter = f_enter };
    uint64_t lo = trace_lo(m), hi = trace_hi(m);
    uint64_t span = (m->view.t1 - m->view.t0) / 4 + 1;

    if (!f.function)
        return vftr_errmsg(err, errlen, -EINVAL, "no function selected (Enter on a profile row)");
    /* Windows of doubling size from the cursor outwards: a near event costs
     * a small read, a far one about twice the distance. */
    for (;;) {
        uint64_t a, b;
        int rc;

        if (dir > 0) {
            a = m->view.cursor + 1;
            if (a >= hi)
                return -ENOENT;
            b = hi - a > span ? a + span : hi;
        } else {
            b = m->view.cursor;
            if (b <= lo)
                return -ENOENT;
            a = b - lo > span ? b - span : lo;
        }
        rc = vftr_window_read(m->win, a, b, &h, NULL, err, errlen);
        if (rc < 0)
            return rc;
        if (f.have) {
            tui_model_jump(m, f.found);
            return 0;
        }
        if ((dir > 0 && b == hi) || (dir < 0 && a == lo))
            return -ENOENT;
        span = span > UINT64_MAX / 2 ? UINT64_MAX : span * 2;
    }
}

/* ------------------------------------------------------------ search */

int tui_model_search(struct tui_model *m, const char *pattern, char *err, size_t errlen)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off,
                                   NULL);
    pcre2_match_data *md;
    char *copy;

    if (!re) {
        char why[256];

        pcre2_get_error_message(code, (PCRE2_UCHAR *)why, sizeof why);
        return vftr_errmsg(err, errlen, -EINVAL, "bad pattern '%s' at offset %zu: %s", pattern,
                           (size_t)off, why);
    }
    md = pcre2_match_data_create_from_pattern(re, NULL);
    copy = strdup(pattern);
    if (!md || !copy) {
        pcre2_code_free(re);
        pcre2_match_data_free(md);
        free(copy);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    pcre2_code_free(m->re);
    pcre2_match_data_free(m->md);
    free(m->pattern);
    m->re = re;
    m->md = md;
    m->pattern = copy;
    return 0;
}

const char *tui_model_search_pattern(const struct tui_model *m)
{
    return m->pattern;
}

int tui_model_search_next(struct tui_model *m, int dir)
{
    const struct tui_data *d = &m->data;
    size_t n = d->prof.nrows;

    if (!m->re || n == 0)
        return -ENOENT;
    for (size_t k = 1; k <= n; k++) {
        size_t i = dir > 0 ? (m->view.prof_sel + k) % n : (m->view.prof_sel + n - k % n) % n;
        uint32_t f = d->prof.rows[d->order[i]].function;
        const char *name = tui_model_func_name(m, f);

        if (pcre2_match(m->re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, m->md, NULL) >= 0) {
            m->view.prof_sel = i;
            m->view.func_sel = f;
            return 0;
        }
    }
    return -ENOENT;
}

/* ------------------------------------------------------------ symbols */

struct cellcount {
    long paint;
    size_t cells;
};

static int by_cells(const void *a, const void *b)
{
    const struct cellcount *x = a, *y = b;

    if (x->cells != y->cells)
        return x->cells < y->cells ? 1 : -1;        /* most cells first */
    return (x->paint > y->paint) - (x->paint < y->paint);
}

/* The symbols of the paints and the legend, for the grid of the last
 * refresh and the current colouring (see model.h).  0 or -ENOMEM. */
static int symbols_update(struct tui_model *m)
{
    const struct tui_data *d = &m->data;
    size_t np = tui_model_paints(m), cells = d->grid ? m->nprocs * d->ncols : 0;
    struct cellcount *cc;
    size_t on = 0;

    if (m->sym_gen == m->grid_gen && m->sym_mode == m->view.color_by_group && m->sym)
        return 0;
    if (np + 1 > m->capsym) {
        char *sym = realloc(m->sym, np + 1);
        long *legend = realloc(m->legend, (np + 1) * sizeof *legend);

        if (sym)
            m->sym = sym;
        if (legend)
            m->legend = legend;
        if (!sym || !legend)
            return -ENOMEM;
        m->capsym = np + 1;
    }
    cc = calloc(np + 1, sizeof *cc);
    if (!cc)
        return -ENOMEM;
    m->sym_none = 0;
    /* the cells each paint covers on screen */
    for (size_t k = 0; k < cells; k++) {
        long p;

        if (!d->grid[k])
            continue;
        p = tui_model_paint(m, d->grid[k]);
        if (p < 0)
            m->sym_none = 1;
        else
            cc[p].cells++;
    }
    memset(m->sym, ' ', np);
    m->nlegend = m->others = 0;
    for (size_t p = 0; p < np; p++) {
        cc[p].paint = (long)p;
        on += cc[p].cells > 0;
    }
    if (np <= TUI_NSYMBOLS) {
        /* every paint its own symbol, the legend in paint order */
        for (size_t p = 0; p < np; p++) {
            m->sym[p] = TUI_SYMBOLS[p];
            if (cc[p].cells)
                m->legend[m->nlegend++] = (long)p;
        }
    } else {
        size_t with = on <= TUI_NSYMBOLS ? on : TUI_NSYMBOLS - 1;

        qsort(cc, np, sizeof *cc, by_cells);
        for (size_t i = 0; i < on; i++) {
            if (i < with) {
                m->sym[cc[i].paint] = TUI_SYMBOLS[i];
                m->legend[m->nlegend++] = cc[i].paint;
            } else {
                m->sym[cc[i].paint] = TUI_SYMBOL_OTHER;
                m->others++;
            }
        }
    }
    free(cc);
    m->sym_gen = m->grid_gen;
    m->sym_mode = m->view.color_by_group;
    return 0;
}

char tui_model_symbol(struct tui_model *m, long paint)
{
    if (paint < 0)
        return TUI_SYMBOL_NONE;
    if (symbols_update(m) < 0 || (size_t)paint >= tui_model_paints(m))
        return ' ';
    return m->sym[paint];
}

size_t tui_model_legend(struct tui_model *m, const long **paints, size_t *others, int *none)
{
    if (symbols_update(m) < 0) {
        *paints = NULL;
        *others = 0;
        *none = 0;
        return 0;
    }
    *paints = m->legend;
    *others = m->others;
    *none = m->sym_none;
    return m->nlegend;
}

/* ------------------------------------------------------------ communication */

const char *const tui_comm_unit_names[TUI_COMM_NUNITS] = {
    [TUI_COMM_COUNT] = "messages", [TUI_COMM_BYTES] = "bytes", [TUI_COMM_TIME] = "time",
};

void tui_model_set_comm(struct tui_model *m, int on)
{
    if (on && !m->view.comm)
        m->dirty_window = m->dirty_details = 1;     /* the matrix needs the window's read */
    m->view.comm = on != 0;
}

const struct tui_comm *tui_model_comm(const struct tui_model *m)
{
    return m->view.comm && tui_comm_valid(m->comm) ? m->comm : NULL;
}

/* Before the window read: a fresh matrix when the view is on. */
static int comm_start(struct tui_model *m)
{
    m->ncomm_procs = 0;
    if (!m->view.comm)
        return 0;
    if (!m->comm && !(m->comm = tui_comm_new()))
        return -ENOMEM;
    return tui_comm_begin(m->comm, vftr_source_peer_ranks(m->src), m->src);
}

static int c_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    return tui_comm_send(arg, time, sender, receiver, comm, tag, length);
}

static int c_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    return tui_comm_recv(arg, time, receiver, sender, comm, tag, length);
}

static int c_open_message(void *arg, uint64_t time, uint32_t sender, uint32_t receiver,
                          uint32_t comm, uint32_t tag, uint32_t length)
{
    return tui_comm_open_send(arg, time, sender, receiver, comm, tag, length);
}

/* A sampled view has read no event: the matrix reads the window's own
 * messages of [t0, t1), with the messages in flight at t0 so that a receive
 * of one of them is not paired with a later send (messages.h). */
static int comm_read(struct tui_model *m, char *err, size_t errlen)
{
    struct vftr_window_handler h = { .arg = m->comm, .open_message = c_open_message,
                                     .send = c_send, .recv = c_recv };
    struct vftr_window_stats st;
    int rc;

    if (!m->view.comm)
        return 0;
    rc = vftr_window_read(m->win, m->view.t0, m->view.t1, &h, &st, err, errlen);
    m->data.bytes_read += st.bytes_read;
    return rc;
}

static int comm_cmp_rows(const void *a, const void *b, void *arg)
{
    const size_t *order = arg;
    size_t x = order[*(const size_t *)a], y = order[*(const size_t *)b];

    return (x > y) - (x < y);
}

/* After the read: the matrix and its processes in timeline order. */
static int comm_end(struct tui_model *m)
{
    size_t n, *order;
    const struct vftr_msgpair *p;
    unsigned char *in;
    int rc;

    if (!m->view.comm)
        return 0;
    if ((rc = tui_comm_finish(m->comm)) < 0)
        return rc;
    p = tui_comm_pairs(m->comm, &n);
    free(m->comm_procs);
    m->comm_procs = malloc((m->nprocs ? m->nprocs : 1) * sizeof *m->comm_procs);
    order = malloc((m->nprocs ? m->nprocs : 1) * sizeof *order);
    in = calloc(m->nprocs ? m->nprocs : 1, 1);
    if (!m->comm_procs || !order || !in) {
        free(order);
        free(in);
        return -ENOMEM;
    }
    /* the timeline's order with every thread shown: each top-level
     * process, then its threads */
    {
        size_t k = 0;

        for (size_t i = 0; i < m->nprocs; i++) {
            if (m->procs[i].child)
                continue;
            order[i] = k++;
            for (size_t c = 0; c < m->nprocs; c++)
                if (m->procs[c].child && m->procs[c].parent == m->procs[i].id)
                    order[c] = k++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        long s = proc_index(m, p[i].sender), r = proc_index(m, p[i].receiver);

        if (s >= 0)
            in[s] = 1;
        if (r >= 0)
            in[r] = 1;
    }
    m->ncomm_procs = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        if (in[i])
            m->comm_procs[m->ncomm_procs++] = i;
    qsort_r(m->comm_procs, m->ncomm_procs, sizeof *m->comm_procs, comm_cmp_rows, order);
    free(order);
    free(in);
    return 0;
}

size_t tui_model_comm_procs(struct tui_model *m, const size_t **procs)
{
    *procs = m->comm_procs;
    return tui_model_comm(m) ? m->ncomm_procs : 0;
}

uint64_t tui_model_comm_value(const struct tui_model *m, size_t sender_pi, size_t receiver_pi)
{
    const struct tui_comm *c = tui_model_comm(m);
    const struct vftr_msgpair *p;

    if (!c || sender_pi >= m->nprocs || receiver_pi >= m->nprocs)
        return 0;
    p = tui_comm_pair(c, m->procs[sender_pi].id, m->procs[receiver_pi].id);
    if (!p)
        return 0;
    switch (m->view.comm_unit) {
    case TUI_COMM_BYTES: return p->bytes;
    case TUI_COMM_TIME: return p->transfer;
    default: return p->messages;
    }
}
