/*
 * waits.c — see waits.h.  The figures are lib/model/analysis.h's: the
 * table is its rows as they are, the overlay its instances (opts.on_wait)
 * and the critical path its pieces (VFTR_ANALYSIS_SEGMENTS); this file
 * keeps them per window, sorts them per process and answers the screen's
 * questions about a cell.
 *
 * Waits and the critical path are two runs: a wait under way at the
 * window's end is followed to its end (the lookahead), the critical path
 * is the one leading to the window's end and reads no further
 * (analysis_run.c), so one run cannot give both as vftr-stats gives them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "waits.h"
#include "model/grow.h"
#include "model/source.h"
#include "util/errmsg.h"

/* The overlay's characters: one per kind of pattern, none of them a
 * function symbol (TUI_SYMBOLS) or a mark ('*', '#', '~', '?') or a
 * message line's ('@', '|', '/', '\'). */
const struct tui_waits_kind tui_waits_kinds[] = {
    { '=', "MPI p2p" },
    { '%', "MPI collective" },
    { '&', "OpenMP" },
    { 0, NULL },
};

char tui_waits_symbol(unsigned pattern)
{
    if (pattern <= VFTR_WAIT_LATE_RECEIVER)
        return tui_waits_kinds[0].symbol;
    if (pattern < VFTR_WAIT_OMP_BARRIER)
        return tui_waits_kinds[1].symbol;
    return tui_waits_kinds[2].symbol;
}

/* Intervals of one process sorted by start, with the largest end of each
 * prefix, so that those overlapping a cell are found by one binary search
 * and a walk back that stops where no earlier one reaches the cell. */
struct ivals {
    uint64_t *start, *end, *maxend;
    unsigned *pattern;          /* waits: the pattern; the critical path: unused */
    size_t *src;                /* index into the result's instances */
};

struct result {
    unsigned kind;              /* TUI_WAITS_WAITS or _CRITPATH */
    uint64_t a, b;
    unsigned long used;         /* last use (the cache drops the oldest) */
    /* waits */
    struct vftr_wait_instance *inst;
    size_t ninst, capinst;
    int overflow;
    struct tui_wait_row *rows;
    size_t nrows;
    uint64_t total, proc_time;
    char **names;               /* call path names by path id, [0] outside calls */
    size_t npaths;
    /* the critical path */
    struct vftr_cp_segment *segs;   /* in time order */
    size_t nsegs;
    uint64_t cp_length;
    /* both: per process (sorted by token) the intervals */
    uint32_t *procs;
    struct ivals *iv;
    size_t *niv;
    size_t nprocs;
};

struct tui_waits {
    struct result *cache[2][TUI_WAITS_CACHE];  /* [kind - 1]: 0 waits, 1 critical path */
    struct result *cur[2];
    unsigned long clock;
    struct tui_wait_cursor cursor;
    /* the partner path read last (the window is read once per wait) */
    uint32_t pp_process;
    uint64_t pp_time;
    int pp_have;
    char pp_path[512];
};

static int slot(unsigned kind)
{
    return kind == TUI_WAITS_CRITPATH;
}

static void result_free(struct result *r)
{
    if (!r)
        return;
    free(r->inst);
    free(r->rows);
    if (r->names)
        for (size_t i = 0; i <= r->npaths; i++)
            free(r->names[i]);
    free(r->names);
    free(r->segs);
    for (size_t i = 0; i < r->nprocs; i++) {
        free(r->iv[i].start);
        free(r->iv[i].end);
        free(r->iv[i].maxend);
        free(r->iv[i].pattern);
        free(r->iv[i].src);
    }
    free(r->procs);
    free(r->iv);
    free(r->niv);
    free(r);
}

struct tui_waits *tui_waits_new(void)
{
    return calloc(1, sizeof(struct tui_waits));
}

void tui_waits_free(struct tui_waits *w)
{
    if (!w)
        return;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < TUI_WAITS_CACHE; i++)
            result_free(w->cache[k][i]);
    free(w);
}

static struct result *cached(const struct tui_waits *w, unsigned kind, uint64_t a, uint64_t b)
{
    for (int i = 0; i < TUI_WAITS_CACHE; i++) {
        struct result *r = w->cache[slot(kind)][i];

        if (r && r->a == a && r->b == b)
            return r;
    }
    return NULL;
}

unsigned tui_waits_missing(const struct tui_waits *w, unsigned kinds, uint64_t a, uint64_t b)
{
    unsigned miss = 0;

    for (unsigned k = TUI_WAITS_WAITS; k <= TUI_WAITS_CRITPATH; k <<= 1)
        if ((kinds & k) && !cached(w, k, a, b))
            miss |= k;
    return miss;
}

int tui_waits_have(const struct tui_waits *w, unsigned kind, uint64_t a, uint64_t b)
{
    const struct result *r = w->cur[slot(kind)];

    return r && r->a == a && r->b == b;
}

/* ------------------------------------------------------------ computing */

static void on_wait(void *arg, const struct vftr_wait_instance *wi)
{
    struct result *r = arg;

    if (r->overflow)
        return;
    if (r->ninst == TUI_WAITS_MAX_KEPT ||
        vftr_reserve((void **)&r->inst, &r->capinst, r->ninst, sizeof *r->inst) < 0) {
        /* too many (or no memory for them): no overlay, the table stands */
        r->overflow = 1;
        free(r->inst);
        r->inst = NULL;
        r->ninst = r->capinst = 0;
        return;
    }
    r->inst[r->ninst++] = *wi;
}

/* "f<caller<...<root" for every call path of the analysis, as vftr-stats
 * names them. */
static int name_paths(struct result *r, const struct vftr_analysis *an, struct tui_model *m)
{
    size_t np;
    const struct vftr_analysis_path *paths = vftr_analysis_paths(an, &np);

    r->npaths = np;
    if (!(r->names = calloc(np + 1, sizeof *r->names)) ||
        !(r->names[0] = strdup("(outside calls)")))
        return -ENOMEM;
    for (size_t p = 1; p <= np; p++) {
        size_t len = 1;
        char *s;

        for (uint32_t q = (uint32_t)p; q && q <= np; q = paths[q - 1].parent)
            len += strlen(tui_model_func_name(m, paths[q - 1].function)) + 1;
        if (!(s = malloc(len)))
            return -ENOMEM;
        s[0] = '\0';
        for (uint32_t q = (uint32_t)p; q && q <= np; q = paths[q - 1].parent) {
            if (s[0])
                strcat(s, "<");
            strcat(s, tui_model_func_name(m, paths[q - 1].function));
        }
        r->names[p] = s;
    }
    return 0;
}

static const char *path_name(const struct result *r, uint32_t path)
{
    return path <= r->npaths ? r->names[path] : r->names[0];
}

/* vftr-stats's order of its wait table: time (largest first), then call
 * path, process, pattern, path id. */
static int cmp_row(const void *x, const void *y)
{
    const struct tui_wait_row *a = x, *b = y;
    int d;

    if (a->time != b->time)
        return a->time > b->time ? -1 : 1;
    if ((d = strcmp(a->callpath, b->callpath)))
        return d;
    if (a->process != b->process)
        return a->process < b->process ? -1 : 1;
    if (a->pattern != b->pattern)
        return a->pattern < b->pattern ? -1 : 1;
    return (a->path > b->path) - (a->path < b->path);
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

    return (a > b) - (a < b);
}

static long proc_slot(const struct result *r, uint32_t process)
{
    size_t lo = 0, hi = r->nprocs;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r->procs[mid] == process)
            return (long)mid;
        if (r->procs[mid] < process)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* One interval to be sorted: for the qsort of a process's intervals. */
struct ival1 {
    uint64_t start, end;
    unsigned pattern;
    size_t src;
};

static int cmp_ival(const void *x, const void *y)
{
    const struct ival1 *a = x, *b = y;

    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return (a->pattern > b->pattern) - (a->pattern < b->pattern);
}

/* Sorts n intervals (process, start, end, pattern) into the per-process
 * tables; get(i) gives interval i. */
static int index_intervals(struct result *r, size_t n,
                           void (*get)(const struct result *, size_t, uint32_t *, struct ival1 *))
{
    uint32_t *tok = malloc((n ? n : 1) * sizeof *tok);
    struct ival1 *all = malloc((n ? n : 1) * sizeof *all);
    size_t *fill = NULL;
    int rc = -ENOMEM;

    if (!tok || !all)
        goto out;
    for (size_t i = 0; i < n; i++)
        get(r, i, &tok[i], &all[i]);
    /* the processes, once each */
    uint32_t *u = malloc((n ? n : 1) * sizeof *u);

    if (!u)
        goto out;
    memcpy(u, tok, n * sizeof *u);
    qsort(u, n, sizeof *u, cmp_u32);
    size_t nu = 0;

    for (size_t i = 0; i < n; i++)
        if (nu == 0 || u[nu - 1] != u[i])
            u[nu++] = u[i];
    r->procs = u;
    r->nprocs = nu;
    r->iv = calloc(nu ? nu : 1, sizeof *r->iv);
    r->niv = calloc(nu ? nu : 1, sizeof *r->niv);
    fill = calloc(nu ? nu : 1, sizeof *fill);
    if (!r->iv || !r->niv || !fill)
        goto out;
    for (size_t i = 0; i < n; i++)
        r->niv[proc_slot(r, tok[i])]++;
    for (size_t p = 0; p < nu; p++) {
        size_t k = r->niv[p];
        struct ivals *v = &r->iv[p];

        v->start = malloc(k * sizeof *v->start);
        v->end = malloc(k * sizeof *v->end);
        v->maxend = malloc(k * sizeof *v->maxend);
        v->pattern = malloc(k * sizeof *v->pattern);
        v->src = malloc(k * sizeof *v->src);
        if (!v->start || !v->end || !v->maxend || !v->pattern || !v->src)
            goto out;
    }
    /* group by process (stable), then sort each group */
    struct ival1 *grouped = malloc((n ? n : 1) * sizeof *grouped);
    size_t *base = calloc(nu + 1, sizeof *base);

    if (!grouped || !base) {
        free(grouped);
        free(base);
        goto out;
    }
    for (size_t p = 0; p < nu; p++)
        base[p + 1] = base[p] + r->niv[p];
    for (size_t i = 0; i < n; i++) {
        size_t p = (size_t)proc_slot(r, tok[i]);

        grouped[base[p] + fill[p]++] = all[i];
    }
    for (size_t p = 0; p < nu; p++) {
        struct ival1 *g = grouped + base[p];
        struct ivals *v = &r->iv[p];

        qsort(g, r->niv[p], sizeof *g, cmp_ival);
        for (size_t i = 0; i < r->niv[p]; i++) {
            v->start[i] = g[i].start;
            v->end[i] = g[i].end;
            v->pattern[i] = g[i].pattern;
            v->src[i] = g[i].src;
            v->maxend[i] = i && v->maxend[i - 1] > g[i].end ? v->maxend[i - 1] : g[i].end;
        }
    }
    free(grouped);
    free(base);
    rc = 0;
out:
    free(tok);
    free(all);
    free(fill);
    return rc;
}

static void get_inst(const struct result *r, size_t i, uint32_t *process, struct ival1 *v)
{
    const struct vftr_wait_instance *w = &r->inst[i];

    *process = w->process;
    *v = (struct ival1){ w->start, w->end, w->pattern, i };
}

static void get_seg(const struct result *r, size_t i, uint32_t *process, struct ival1 *v)
{
    const struct vftr_cp_segment *s = &r->segs[i];

    *process = s->process;
    *v = (struct ival1){ s->start, s->end, 0, i };
}

static int take_waits(struct result *r, const struct vftr_analysis *an, struct tui_model *m)
{
    size_t n;
    const struct vftr_wait_row *w = vftr_analysis_waits(an, &n);
    int rc;

    if ((rc = name_paths(r, an, m)) < 0)
        return rc;
    if (!(r->rows = malloc((n ? n : 1) * sizeof *r->rows)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        r->rows[i] = (struct tui_wait_row){ w[i].pattern, w[i].process, w[i].path,
                                            path_name(r, w[i].path), w[i].time, w[i].count,
                                            w[i].max };
        if (w[i].pattern != VFTR_WAIT_LATE_SENDER_WO)
            r->total += w[i].time;
    }
    r->nrows = n;
    qsort(r->rows, n, sizeof *r->rows, cmp_row);
    r->proc_time = vftr_analysis_summary(an)->proc_time;
    return index_intervals(r, r->ninst, get_inst);
}

static int take_critpath(struct result *r, const struct vftr_analysis *an)
{
    size_t n;
    const struct vftr_cp_segment *s = vftr_analysis_segments(an, &n);

    r->cp_length = vftr_analysis_summary(an)->cp_length;
    if (!(r->segs = malloc((n ? n : 1) * sizeof *r->segs)))
        return -ENOMEM;
    memcpy(r->segs, s, n * sizeof *s);
    r->nsegs = n;
    return index_intervals(r, n, get_seg);
}

static int compute(struct result *r, struct tui_model *m, char *err, size_t errlen)
{
    struct vftr_analysis_opts o = {
        r->a, r->b,
        r->kind == TUI_WAITS_WAITS ? VFTR_ANALYSIS_WAITS
                                   : VFTR_ANALYSIS_CRITPATH | VFTR_ANALYSIS_SEGMENTS,
        0, r->kind == TUI_WAITS_WAITS ? on_wait : NULL, r,
    };
    struct vftr_analysis *an = NULL;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    rc = vftr_analysis_run(tui_model_source(m), &o, &an, err, errlen);
    if (rc < 0) {
        if (err && errlen && !err[0])
            vftr_errmsg(err, errlen, rc, "%s", strerror(-rc));
        return rc;
    }
    rc = r->kind == TUI_WAITS_WAITS ? take_waits(r, an, m) : take_critpath(r, an);
    vftr_analysis_free(an);
    if (rc < 0)
        vftr_errmsg(err, errlen, rc, "out of memory");
    return rc;
}

int tui_waits_update(struct tui_waits *w, struct tui_model *m, unsigned kinds, uint64_t a,
                     uint64_t b, char *err, size_t errlen)
{
    for (unsigned k = TUI_WAITS_WAITS; k <= TUI_WAITS_CRITPATH; k <<= 1) {
        struct result *r;
        int s = slot(k), rc;

        if (!(kinds & k))
            continue;
        if (!(r = cached(w, k, a, b))) {
            int victim = 0;

            if (!(r = calloc(1, sizeof *r)))
                return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            r->kind = k;
            r->a = a;
            r->b = b;
            if ((rc = compute(r, m, err, errlen)) < 0) {
                result_free(r);
                return rc;
            }
            for (int i = 0; i < TUI_WAITS_CACHE; i++) {
                if (!w->cache[s][i]) {
                    victim = i;
                    break;
                }
                if (w->cache[s][i]->used < w->cache[s][victim]->used)
                    victim = i;
            }
            if (w->cur[s] == w->cache[s][victim])
                w->cur[s] = NULL;
            result_free(w->cache[s][victim]);
            w->cache[s][victim] = r;
        }
        r->used = ++w->clock;
        w->cur[s] = r;
    }
    return 0;
}

/* ------------------------------------------------------------ answers */

const struct tui_wait_row *tui_waits_rows(const struct tui_waits *w, size_t *n)
{
    const struct result *r = w->cur[0];

    *n = r ? r->nrows : 0;
    return r ? r->rows : NULL;
}

uint64_t tui_waits_total(const struct tui_waits *w)
{
    return w->cur[0] ? w->cur[0]->total : 0;
}

uint64_t tui_waits_proc_time(const struct tui_waits *w)
{
    return w->cur[0] ? w->cur[0]->proc_time : 0;
}

int tui_waits_overflow(const struct tui_waits *w)
{
    return w->cur[0] && w->cur[0]->overflow;
}

uint64_t tui_waits_cp_length(const struct tui_waits *w)
{
    return w->cur[1] ? w->cur[1]->cp_length : 0;
}

/*
 * Of `process`'s intervals in r, the one overlapping [t0, t1) the most
 * (ties: the earlier pattern, then the earlier interval); -1 if none.
 * *over gets the overlap.
 */
static long best_overlap(const struct result *r, uint32_t process, uint64_t t0, uint64_t t1,
                         uint64_t *over)
{
    long p = r ? proc_slot(r, process) : -1;
    long best = -1;
    uint64_t bo = 0;

    if (p < 0 || t1 <= t0)
        return -1;
    const struct ivals *v = &r->iv[p];
    size_t lo = 0, hi = r->niv[p];

    /* the first interval starting at or after t1 */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (v->start[mid] < t1)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0 && v->maxend[i] > t0;) {
        uint64_t s = v->start[i] > t0 ? v->start[i] : t0;
        uint64_t e = v->end[i] < t1 ? v->end[i] : t1;

        if (e <= s)
            continue;
        if (best < 0 || e - s > bo || (e - s == bo && v->pattern[i] <= v->pattern[best])) {
            best = (long)i;
            bo = e - s;
        }
    }
    if (over)
        *over = bo;
    return best;
}

unsigned tui_waits_cell(const struct tui_waits *w, uint32_t process, uint64_t t0, uint64_t t1)
{
    const struct result *r = w->cur[0];
    long i = best_overlap(r, process, t0, t1, NULL);

    return i < 0 ? 0 : r->iv[proc_slot(r, process)].pattern[i] + 1;
}

int tui_waits_cp_cell(const struct tui_waits *w, uint32_t process, uint64_t t0, uint64_t t1)
{
    return best_overlap(w->cur[1], process, t0, t1, NULL) >= 0;
}

/* The calls of the process open just after t (those it entered at t
 * included: the call it arrived in), innermost first, "<" between. */
struct stack_ctx {
    uint32_t process;
    struct tui_frame f[VFTR_WINDOW_MAX_DEPTH + 1];
    uint32_t depth[VFTR_WINDOW_MAX_DEPTH + 1];
    size_t n;
};

static int s_open_frame(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                        uint32_t depth)
{
    struct stack_ctx *c = arg;

    if (process == c->process && c->n < sizeof c->f / sizeof c->f[0]) {
        c->f[c->n] = (struct tui_frame){ function, enter };
        c->depth[c->n++] = depth;
    }
    return 0;
}

static int partner_path(struct tui_waits *w, struct tui_model *m, uint32_t process, uint64_t t,
                        char *err, size_t errlen)
{
    struct stack_ctx *c;
    struct vftr_window_handler h = { .open_frame = s_open_frame };
    int rc;

    if (w->pp_have && w->pp_process == process && w->pp_time == t)
        return 0;
    if (!(c = calloc(1, sizeof *c)))
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    c->process = process;
    h.arg = c;
    rc = vftr_window_read(tui_model_window(m), t + 1, t + 2, &h, NULL, err, errlen);
    if (rc == 0) {
        size_t len = 0;

        w->pp_path[0] = '\0';
        /* innermost first: the deepest frame first */
        for (size_t k = 0; k < c->n; k++) {
            size_t deepest = 0;
            int found = 0;

            for (size_t i = 0; i < c->n; i++)
                if (c->depth[i] != UINT32_MAX && (!found || c->depth[i] > c->depth[deepest])) {
                    deepest = i;
                    found = 1;
                }
            len += (size_t)snprintf(w->pp_path + len, len < sizeof w->pp_path
                                    ? sizeof w->pp_path - len : 0, "%s%s", k ? "<" : "",
                                    tui_model_func_name(m, c->f[deepest].function));
            c->depth[deepest] = UINT32_MAX;
            if (len >= sizeof w->pp_path)
                break;
        }
        if (c->n == 0)
            snprintf(w->pp_path, sizeof w->pp_path, "(outside calls)");
        w->pp_have = 1;
        w->pp_process = process;
        w->pp_time = t;
    }
    free(c);
    return rc;
}

int tui_waits_cursor(struct tui_waits *w, struct tui_model *m, uint32_t process, uint64_t t0,
                     uint64_t t1, const struct tui_wait_cursor **out, char *err, size_t errlen)
{
    struct tui_wait_cursor *c = &w->cursor;
    const struct result *r = w->cur[0], *cp = w->cur[1];
    long i = best_overlap(r, process, t0, t1, NULL);
    int rc = 0;

    memset(c, 0, sizeof *c);
    *out = c;
    if (i >= 0) {
        c->wait = 1;
        c->w = r->inst[r->iv[proc_slot(r, process)].src[i]];
        c->path = path_name(r, c->w.path);
        if (c->w.cause && (rc = partner_path(w, m, c->w.cause, c->w.cause_time, err,
                                             errlen)) == 0)
            snprintf(c->partner_path, sizeof c->partner_path, "%s", w->pp_path);
    }
    /* the process the critical path runs on for most of the cell */
    if (cp) {
        uint64_t best = 0, over;

        for (size_t p = 0; p < cp->nprocs; p++)
            if (best_overlap(cp, cp->procs[p], t0, t1, &over) >= 0 && over > best) {
                best = over;
                c->on_cp = 1;
                c->cp_process = cp->procs[p];
            }
    }
    return rc;
}
