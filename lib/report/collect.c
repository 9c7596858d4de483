/*
 * collect.c — one read of the trace feeding every figure of the report
 * (report.h says which model object makes which figure), with several
 * reading threads for an OTF trace.
 *
 * Why one read with a replay instead of vftr_source_profile: the report
 * needs the function profile, the group profile, the messages and the
 * timeline; separate queries would each read the whole trace.  The replay
 * is the one vftr_source_profile's event route runs for vftr-stats's query
 * (inclusive time per call, call paths kept; no token map, every process),
 * so one read gives vftr-stats's figures.  The group profile is booked by
 * the same replay (replay.h, vftr_replay_set_groups) rather than by a
 * second replay of every event with group tokens, which cost as much as
 * the first; where the two could differ (replay.h says when), it is taken
 * by vftr-stats --groups's query instead (make_tables).
 *
 * Why a source per thread: a source is used by one thread at a time, and an
 * OTF reader reads the streams of the processes it is given, so threads
 * that each open the trace and read a share of the ranks share the work the
 * way vftr-stats's replay does (otfreplay.h).  Ranks stay whole (a rank's
 * threads in one share) and a process is in one share only, so the merged
 * replays and profiles equal one thread's.  Messages cross shares: each
 * thread keeps its records and the matcher is fed share after share; its
 * FIFO per channel (the sends of a channel come from one process, its
 * receives from one other, each in time order) pairs them as one merged
 * read would.
 */
#include "report_impl.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/grow.h"
#include "model/summary.h"
#include "util/errmsg.h"

/* ------------------------------------------------------------ names */

const char *rep_token_name(struct vftr_report *r, int kind, uint32_t token)
{
    char buf[48], **v;
    /* vftr-stats's names (source.c), kept here for a token without one */
    const char *name = vftr_source_token_name(r->src, kind, token, buf, sizeof buf);

    if (name != buf)
        return name;
    for (size_t i = 0; i < r->nunnamed; i++)
        if (strcmp(r->unnamed[i], buf) == 0)
            return r->unnamed[i];
    v = realloc(r->unnamed, (r->nunnamed + 1) * sizeof *v);
    if (!v)
        return NULL;
    r->unnamed = v;
    if (!(v[r->nunnamed] = strdup(buf)))
        return NULL;
    return v[r->nunnamed++];
}

enum rep_kind rep_group_kind(const char *name)
{
    if (!name)
        return REP_OTHER;
    if (strcasestr(name, "mpi"))
        return REP_MPI;
    if (strcasestr(name, "openmp") || strcasestr(name, "omp"))
        return REP_OMP;
    if (strcasestr(name, "i/o") || strcasecmp(name, "io") == 0 || strcasestr(name, "posix") ||
        strcasestr(name, "file"))
        return REP_IO;
    if (strcasestr(name, "user") || strcasestr(name, "application") ||
        strcasecmp(name, "app") == 0)
        return REP_USER;
    return REP_OTHER;
}

enum rep_kind rep_function_kind(const struct vftr_report *r, uint32_t function)
{
    const struct vftr_source_func *f = vftr_source_func(r->src, function);

    if (!f || !f->group)
        return REP_OTHER;
    return rep_group_kind(vftr_source_group_name(r->src, f->group));
}

void rep_proc_label(const struct vftr_source_proc *p, char *buf, size_t size)
{
    if (p->thread)
        snprintf(buf, size, "rank %" PRIu32 " thread %" PRIu32, p->rank, p->thread);
    else
        snprintf(buf, size, "rank %" PRIu32, p->rank);
}

size_t rep_rank_index(const struct vftr_report *r, uint32_t token)
{
    const struct vftr_source_proc *p = vftr_source_proc(r->src, token);
    size_t lo = 0, hi = r->nranks;

    if (!p)
        return r->nranks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r->ranks[mid].rank == p->rank)
            return mid;
        if (r->ranks[mid].rank < p->rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return r->nranks;
}

/* ------------------------------------------------------------ warnings */

static int add_warning(struct vftr_report *r, FILE *warn, const char *prog, const char *fmt, ...)
    VFTR_PRINTF(4, 5);

static int add_warning(struct vftr_report *r, FILE *warn, const char *prog, const char *fmt, ...)
{
    char buf[VFTR_ERRMSG_MAX], **v;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (warn)
        fprintf(warn, "%s: %s: %s\n", prog, r->info->name, buf);
    v = realloc(r->warnings, (r->nwarnings + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    r->warnings = v;
    if (!(v[r->nwarnings] = strdup(buf)))
        return -ENOMEM;
    r->nwarnings++;
    return 0;
}

size_t vftr_report_nwarnings(const struct vftr_report *r)
{
    return r->nwarnings;
}

/* ------------------------------------------------------------ trace size */

/* Bytes of the regular files under path (directories to a small depth). */
static uint64_t tree_bytes(const char *path, int depth, const char *suffix1, const char *suffix2)
{
    struct stat sb;
    uint64_t sum = 0;
    DIR *d;
    struct dirent *e;

    if (stat(path, &sb) != 0)
        return 0;
    if (S_ISREG(sb.st_mode))
        return (uint64_t)sb.st_size;
    if (!S_ISDIR(sb.st_mode) || depth <= 0 || !(d = opendir(path)))
        return 0;
    while ((e = readdir(d)) != NULL) {
        char sub[4096];
        size_t l = strlen(e->d_name);

        if (e->d_name[0] == '.')
            continue;
        if (suffix1 && !(l > strlen(suffix1) && strcmp(e->d_name + l - strlen(suffix1), suffix1) == 0) &&
            !(suffix2 && l > strlen(suffix2) && strcmp(e->d_name + l - strlen(suffix2), suffix2) == 0))
            continue;
        if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= sizeof sub)
            continue;
        sum += tree_bytes(sub, depth - 1, NULL, NULL);
    }
    closedir(d);
    return sum;
}

/* An OTF trace's file: STUB.otf, STUB.thumb or STUB.<hex>.<kind>[.z]. */
static int otf_member(const char *name, const char *base)
{
    size_t l = strlen(base);
    const char *p;

    if (strncmp(name, base, l) != 0 || name[l] != '.')
        return 0;
    p = name + l + 1;
    if (strcmp(p, "otf") == 0 || strcmp(p, "thumb") == 0)
        return 1;
    if (!strchr("0123456789abcdefABCDEF", *p) || !*p)
        return 0;
    while (*p && strchr("0123456789abcdefABCDEF", *p))
        p++;
    return *p == '.' && p[1] != '\0';
}

static uint64_t trace_bytes(const struct vftr_source_info *info, const char *const *ops, size_t n)
{
    uint64_t sum = 0;

    if (info->kind == VFTR_SOURCE_VFD) {
        for (size_t i = 0; i < n; i++)
            sum += tree_bytes(ops[i], 1, ".vfd", ".tmpvfd");
        return sum;
    }
    if (info->kind == VFTR_SOURCE_OTF2) {
        char *dir = strdup(ops[0]);
        struct stat sb;

        if (!dir)
            return 0;
        if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
            char *slash = strrchr(dir, '/');

            if (slash)
                *slash = '\0';
            else
                strcpy(dir, ".");
        }
        sum = tree_bytes(dir, 4, NULL, NULL);
        free(dir);
        return sum;
    }
    /* OTF: the stub's files beside it */
    {
        char *stub = strdup(ops[0]), *slash, *base;
        const char *dir = ".";
        size_t l;
        DIR *d;
        struct dirent *e;

        if (!stub)
            return 0;
        l = strlen(stub);
        if (l > 4 && strcmp(stub + l - 4, ".otf") == 0)
            stub[l - 4] = '\0';
        slash = strrchr(stub, '/');
        if (slash) {
            *slash = '\0';
            dir = stub[0] ? stub : "/";
            base = slash + 1;
        } else {
            base = stub;
        }
        if ((d = opendir(dir)) != NULL) {
            while ((e = readdir(d)) != NULL) {
                char sub[4096];

                if (!otf_member(e->d_name, base) ||
                    (size_t)snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) >= sizeof sub)
                    continue;
                sum += tree_bytes(sub, 0, NULL, NULL);
            }
            closedir(d);
        }
        free(stub);
    }
    return sum;
}

/* ------------------------------------------------------------ timeline */

#define TL_CAND 6

/* The bin being filled at one level: its candidates (function, ticks). */
struct tl_bin {
    uint64_t bin;
    uint64_t end;               /* finest level: the bin's end tick */
    int n;
    uint32_t fn[TL_CAND];
    uint64_t t[TL_CAND];
};

struct tl_row {
    uint32_t *stack;
    size_t n, cap;
    uint64_t last;              /* binned up to here */
    struct tl_bin cur[REP_MAX_LEVELS];
};

typedef unsigned __int128 u128;

/* The first tick of bin k (k <= nbins) of level L: bin k holds the ticks t
 * with k <= (t - t0) * nbins / span < k + 1. */
static uint64_t bin_start(const struct vftr_report *r, int level, uint64_t k)
{
    uint64_t span = r->t1 - r->t0, nb = r->levels[level].nbins;

    return r->t0 + (uint64_t)(((u128)k * span + nb - 1) / nb);
}

static int put_run(struct rep_runs *rr, uint32_t fn, uint64_t len)
{
    while (len > 0) {
        uint32_t l = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;

        if (rr->n && rr->v[rr->n - 1].fn == fn && rr->v[rr->n - 1].len <= UINT32_MAX - l) {
            rr->v[rr->n - 1].len += l;
        } else {
            if (vftr_reserve((void **)&rr->v, &rr->cap, rr->n, sizeof *rr->v) < 0)
                return -ENOMEM;
            rr->v[rr->n++] = (struct rep_run){ l, fn };
        }
        len -= l;
    }
    return 0;
}

static void bin_add(struct tl_bin *b, uint32_t fn, uint64_t t)
{
    int lo = 0;

    for (int i = 0; i < b->n; i++)
        if (b->fn[i] == fn) {
            b->t[i] += t;
            return;
        }
    if (b->n < TL_CAND) {
        b->fn[b->n] = fn;
        b->t[b->n++] = t;
        return;
    }
    /* full: a newcomer replaces the least candidate only when it is longer */
    for (int i = 1; i < TL_CAND; i++)
        if (b->t[i] < b->t[lo])
            lo = i;
    if (t > b->t[lo]) {
        b->fn[lo] = fn;
        b->t[lo] = t;
    }
}

/*
 * Ends the bin of level L: its function is the longest on top (equal
 * times: the smaller token, idle first), appended to the level's runs; its
 * candidates go on to the bin of the next coarser level that holds it
 * (levels are four times apart, so bin k lies in bin k / 4 there), which is
 * ended first when it is another one.  So events are binned once, at the
 * finest level.
 */
static int flush_bin(struct vftr_report *r, size_t row, struct tl_row *tr, int L)
{
    struct tl_bin *b = &tr->cur[L];
    uint32_t best = 0;
    uint64_t bt = 0;

    for (int i = 0; i < b->n; i++)
        if (b->t[i] > bt || (b->t[i] == bt && b->fn[i] < best)) {
            bt = b->t[i];
            best = b->fn[i];
        }
    if (put_run(&r->levels[L].rows[row], best, 1) < 0)
        return -ENOMEM;
    if (L > 0) {
        struct tl_bin *up = &tr->cur[L - 1];

        if (up->bin != b->bin / 4) {
            if (up->n && flush_bin(r, row, tr, L - 1) < 0)
                return -ENOMEM;
            up->bin = b->bin / 4;
        }
        for (int i = 0; i < b->n; i++)
            bin_add(up, b->fn[i], b->t[i]);
    }
    b->n = 0;
    return 0;
}

/* [s, e) of row `row` showed fn: binned at the finest level. */
static int tl_span(struct vftr_report *r, size_t row, struct tl_row *tr, uint64_t s, uint64_t e,
                   uint32_t fn)
{
    int L = r->nlevels - 1;
    struct tl_bin *b = &tr->cur[L];

    while (s < e) {
        uint64_t take;

        if (s >= b->end) {                 /* time is contiguous: the next bin */
            if (flush_bin(r, row, tr, L) < 0)
                return -ENOMEM;
            b->bin++;
            b->end = bin_start(r, L, b->bin + 1);
        }
        take = (e < b->end ? e : b->end) - s;
        bin_add(b, fn, take);
        s += take;
    }
    return 0;
}

/* The row's last bins, at the end of the span: every level's. */
static int tl_finish(struct vftr_report *r, size_t row, struct tl_row *tr)
{
    for (int L = r->nlevels - 1; L >= 0; L--)
        if (tr->cur[L].n && flush_bin(r, row, tr, L) < 0)
            return -ENOMEM;
    return 0;
}

static void tl_row_init(const struct vftr_report *r, struct tl_row *tr)
{
    tr->last = r->t0;
    if (r->nlevels)
        tr->cur[r->nlevels - 1].end = bin_start(r, r->nlevels - 1, 1);
}

static uint64_t clamp_time(const struct vftr_report *r, uint64_t t)
{
    return t < r->t0 ? r->t0 : t > r->t1 ? r->t1 : t;
}

static int tl_advance_slow(struct vftr_report *r, size_t row, struct tl_row *tr, uint64_t t)
{
    t = clamp_time(r, t);
    if (t <= tr->last)
        return 0;
    if (tl_span(r, row, tr, tr->last, t, tr->n ? tr->stack[tr->n - 1] : 0) < 0)
        return -ENOMEM;
    tr->last = t;
    return 0;
}

/*
 * The row showed the function on top of its stack from tr->last to t.
 * Called at every enter and leave, so the usual case is kept short: the
 * span ends inside the finest bin being filled (bins hold many events), so
 * it is that bin's candidate and nothing else (what tl_span would do in
 * one step).  A time before the span's start is never after tr->last (the
 * row starts there).
 */
static inline int tl_advance(struct vftr_report *r, size_t row, struct tl_row *tr, uint64_t t)
{
    struct tl_bin *b = &tr->cur[r->nlevels - 1];
    uint64_t s = tr->last;

    if (t <= s)
        return 0;
    if (t <= b->end && s < b->end && t <= r->t1) {
        bin_add(b, tr->n ? tr->stack[tr->n - 1] : 0, t - s);
        tr->last = t;
        return 0;
    }
    return tl_advance_slow(r, row, tr, t);
}

static inline int tl_push(struct tl_row *tr, uint32_t fn)
{
    if (tr->n >= VFTR_WINDOW_MAX_DEPTH)
        return 0;
    if (vftr_reserve((void **)&tr->stack, &tr->cap, tr->n, sizeof *tr->stack) < 0)
        return -ENOMEM;
    tr->stack[tr->n++] = fn;
    return 0;
}

/* window.h's rule: a leave closes the frames above the matching one; one of
 * a function not on the stack is ignored; function 0 closes the top. */
static void tl_pop(struct tl_row *tr, uint32_t fn)
{
    if (fn == 0) {
        if (tr->n)
            tr->n--;
        return;
    }
    for (size_t i = tr->n; i-- > 0;)
        if (tr->stack[i] == fn) {
            tr->n = i;
            return;
        }
}

static int tl_setup(struct vftr_report *r, size_t cells)
{
    uint64_t span = r->t1 - r->t0, finest, c;
    int n = 1;

    if (!r->info->have_events || r->t1 <= r->t0 || r->nprocs == 0)
        return 0;
    finest = cells / r->nprocs;
    if (finest < 64)
        finest = 64;
    if (finest > (1u << 20))
        finest = 1u << 20;
    if (finest > span)
        finest = span;
    if (finest < 1)
        finest = 1;
    /* levels four times apart, the coarsest of at least 256 bins when the
     * budget allows: c, 4c, 16c, ... */
    c = finest;
    while (n < REP_MAX_LEVELS && c / 4 >= 256)
        c /= 4, n++;
    r->nlevels = n;
    for (int L = 0; L < n; L++) {
        r->levels[L].nbins = c << (2 * L);
        r->levels[L].rows = calloc(r->nprocs, sizeof *r->levels[L].rows);
        if (!r->levels[L].rows)
            return -ENOMEM;
    }
    r->have_timeline = 1;
    return 0;
}

/* ------------------------------------------------------------ reading shares */

enum { M_SEND, M_RECV, M_COLLOP, M_BEGIN, M_END };

struct mrec {
    uint64_t time, x, y, z;
    uint32_t p, q, comm, tag, op;
    uint8_t kind;
};

struct part {
    struct vftr_report *r;
    struct vftr_source *src;          /* r->src for the first share */
    struct vftr_proclist procs;
    int all;                          /* read every process (procs unused) */
    struct vftr_replay *rp;           /* functions, call paths and groups */
    struct vftr_messages *msgs;       /* one share: fed directly */
    struct mrec *recs;                /* several shares: kept */
    size_t nrecs, caprecs;
    struct tl_row *rows;              /* r->nprocs; only this share's are used */
    uint32_t last_token;              /* row_of's cache */
    size_t last_row;
    uint32_t *direct;                 /* token -> row + 1 for tokens < ndirect */
    size_t ndirect;
    struct vftr_window_stats st;
    uint64_t anomalies;
    char anomaly[128];
    int rc;
    char err[VFTR_ERRMSG_MAX + 256];
    const char *const *ops;
    size_t nops;
    const struct vftr_report_opts *opts;
};

/* row_of() for a token beyond the direct table. */
static size_t row_of_slow(const struct vftr_report *r, uint32_t token, struct part *pt)
{
    const struct vftr_source_proc *p;
    size_t lo = 0, hi = r->nprocs;

    if (token == pt->last_token && pt->last_row < r->nprocs)
        return pt->last_row;
    if (!(p = vftr_source_proc(pt->src, token)))
        return r->nprocs;
    pt->last_token = token;
    while (lo < hi) {             /* r->procs sorted by (rank, thread) */
        size_t mid = lo + (hi - lo) / 2;
        const struct vftr_source_proc *m = r->procs[mid];

        if (m->rank == p->rank && m->thread == p->thread)
            return pt->last_row = mid;
        if (m->rank < p->rank || (m->rank == p->rank && m->thread < p->thread))
            lo = mid + 1;
        else
            hi = mid;
    }
    return pt->last_row = r->nprocs;
}

/* The timeline row of a process; r->nprocs when it has none. */
static inline size_t row_of(const struct vftr_report *r, uint32_t token, struct part *pt)
{
    if (token < pt->ndirect)
        return pt->direct[token] ? pt->direct[token] - 1 : r->nprocs;
    return row_of_slow(r, token, pt);
}

static int keep(struct part *pt, struct mrec m)
{
    if (vftr_reserve((void **)&pt->recs, &pt->caprecs, pt->nrecs, sizeof *pt->recs) < 0)
        return -ENOMEM;
    pt->recs[pt->nrecs++] = m;
    return 0;
}

static int h_open(void *arg, uint32_t process, uint32_t function, uint64_t enter, uint32_t depth)
{
    struct part *pt = arg;
    size_t row;
    int rc;

    (void)depth;
    if ((rc = vftr_replay_open_call(pt->rp, process, function, enter)) < 0)
        return rc;
    if (pt->r->have_timeline && (row = row_of(pt->r, process, pt)) < pt->r->nprocs)
        return tl_push(&pt->rows[row], function);
    return 0;
}

static int h_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct part *pt = arg;
    size_t row;
    int rc;

    if ((rc = vftr_replay_enter(pt->rp, process, function, time)) < 0)
        return rc;
    if (pt->r->have_timeline && (row = row_of(pt->r, process, pt)) < pt->r->nprocs) {
        if (tl_advance(pt->r, row, &pt->rows[row], time) < 0)
            return -ENOMEM;
        return tl_push(&pt->rows[row], function);
    }
    return 0;
}

static int h_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct part *pt = arg;
    size_t row;
    int rc;

    if ((rc = vftr_replay_leave(pt->rp, process, function, time)) < 0)
        return rc;
    if (pt->r->have_timeline && (row = row_of(pt->r, process, pt)) < pt->r->nprocs) {
        if (tl_advance(pt->r, row, &pt->rows[row], time) < 0)
            return -ENOMEM;
        tl_pop(&pt->rows[row], function);
    }
    return 0;
}

static int h_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct part *pt = arg;

    if (pt->msgs)
        return vftr_messages_send(pt->msgs, time, sender, receiver, comm, tag, length);
    return keep(pt, (struct mrec){ .kind = M_SEND, .time = time, .p = sender, .q = receiver,
                                   .comm = comm, .tag = tag, .x = length });
}

/* A message in flight at the window start (messages.h): only a part that
 * reads every process of the report sees the channel from both ends; the
 * shares' in-flight messages are read once for all of them (in_flight). */
static int h_open_message(void *arg, uint64_t time, uint32_t sender, uint32_t receiver,
                          uint32_t comm, uint32_t tag, uint32_t length)
{
    struct part *pt = arg;

    if (pt->msgs)
        return vftr_messages_open_send(pt->msgs, time, sender, receiver, comm, tag, length);
    return 0;
}

static int h_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct part *pt = arg;

    if (pt->msgs)
        return vftr_messages_recv(pt->msgs, time, receiver, sender, comm, tag, length);
    return keep(pt, (struct mrec){ .kind = M_RECV, .time = time, .p = receiver, .q = sender,
                                   .comm = comm, .tag = tag, .x = length });
}

static int h_collop(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                    uint32_t root, uint64_t sent, uint64_t received, uint64_t duration)
{
    struct part *pt = arg;

    (void)comm, (void)root;
    if (pt->msgs)
        return vftr_messages_collop(pt->msgs, process, op, sent, received, duration);
    return keep(pt, (struct mrec){ .kind = M_COLLOP, .time = time, .p = process, .op = op,
                                   .x = sent, .y = received, .z = duration });
}

static int h_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                   uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct part *pt = arg;

    (void)comm, (void)root;
    if (pt->msgs)
        return vftr_messages_coll_begin(pt->msgs, time, process, op, id, sent, received);
    return keep(pt, (struct mrec){ .kind = M_BEGIN, .time = time, .p = process, .op = op,
                                   .x = id, .y = sent, .z = received });
}

static int h_end(void *arg, uint64_t time, uint32_t process, uint64_t id)
{
    struct part *pt = arg;

    if (pt->msgs)
        return vftr_messages_coll_end(pt->msgs, time, process, id);
    return keep(pt, (struct mrec){ .kind = M_END, .time = time, .p = process, .x = id });
}

static int h_anomaly(void *arg, uint64_t time, uint32_t process, const char *what)
{
    struct part *pt = arg;

    if (pt->anomalies++ == 0)
        snprintf(pt->anomaly, sizeof pt->anomaly, "process %" PRIu32 " at tick %" PRIu64 ": %s",
                 process, time, what ? what : "?");
    return 0;
}

/* The report's message matcher, matching as the trace's peers need. */
static struct vftr_messages *new_matcher(const struct vftr_report *r)
{
    struct vftr_messages *m = vftr_messages_new(NULL, NULL);

    if (m && vftr_messages_set_ranks(m, vftr_source_peer_ranks(r->src), r->src) < 0) {
        vftr_messages_free(m);
        return NULL;
    }
    return m;
}

static int feed_messages(struct vftr_messages *m, const struct mrec *v, size_t n)
{
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct mrec *x = &v[i];

        switch (x->kind) {
        case M_SEND: rc = vftr_messages_send(m, x->time, x->p, x->q, x->comm, x->tag, x->x); break;
        case M_RECV: rc = vftr_messages_recv(m, x->time, x->p, x->q, x->comm, x->tag, x->x); break;
        case M_COLLOP: rc = vftr_messages_collop(m, x->p, x->op, x->x, x->y, x->z); break;
        case M_BEGIN:
            rc = vftr_messages_coll_begin(m, x->time, x->p, x->op, x->x, x->y, x->z);
            break;
        default: rc = vftr_messages_coll_end(m, x->time, x->p, x->x); break;
        }
    }
    return rc;
}

/* --groups: the token a function is booked under (vftr-stats's). */
static uint32_t group_token(void *arg, uint32_t function)
{
    const struct vftr_source_func *f = vftr_source_func(arg, function);

    return f ? f->group : 0;
}

static int f_open_message(void *arg, uint64_t time, uint32_t sender, uint32_t receiver,
                          uint32_t comm, uint32_t tag, uint32_t length)
{
    return vftr_messages_open_send(arg, time, sender, receiver, comm, tag, length);
}

/*
 * The messages in flight at the window start, into m, for reports read in
 * shares: a share sees its own processes' sends but not whether another
 * share's process received them before a, so one read of the state at a
 * over all the report's processes says it (its events are not used).
 */
static int in_flight(struct vftr_report *r, int all, struct vftr_messages *m, char *err,
                     size_t errlen)
{
    struct vftr_window_handler h = { .arg = m, .open_message = f_open_message };
    struct vftr_proclist procs;
    int rc = 0;

    if (r->a <= r->info->first)
        return 0;                         /* nothing was sent before */
    vftr_proclist_init(&procs);
    for (size_t i = 0; !all && i < r->nprocs && rc == 0; i++)
        rc = vftr_proclist_add(&procs, r->procs[i]->token, r->procs[i]->token);
    if (rc == 0)
        rc = vftr_source_read(r->src, r->a, r->a + 1, all ? NULL : &procs, 0, &h, NULL, err,
                              errlen);
    vftr_proclist_release(&procs);
    if (rc > 0 || (rc < 0 && !err[0]))
        rc = vftr_errmsg(err, errlen, rc > 0 ? -EIO : rc, "%s", strerror(rc > 0 ? EIO : -rc));
    return rc;
}

/* One share: opens its own source (except the first), reads, finishes its
 * builds.  Result in pt->rc / pt->err. */
static void *run_part(void *arg)
{
    struct part *pt = arg;
    struct vftr_report *r = pt->r;
    struct vftr_window_handler h = {
        .arg = pt, .open_frame = h_open, .open_message = h_open_message, .enter = h_enter,
        .leave = h_leave, .send = h_send, .recv = h_recv, .collop = h_collop,
        .coll_begin = h_begin, .coll_end = h_end, .anomaly = h_anomaly,
    };
    int rc;

    if (!pt->src) {
        struct vftr_source_opts so = { NULL, pt->opts->prog, 1 };

        rc = vftr_source_open(&pt->src, pt->ops, pt->nops, &so, pt->err, sizeof pt->err);
        if (rc < 0)
            goto out;
    }
    /* vftr-stats's replay (vftr_source_profile's for its query: inclusive
     * time per call, call paths kept), with the groups booked beside */
    pt->rp = vftr_replay_new(r->a, r->b);
    pt->rows = calloc(r->nprocs ? r->nprocs : 1, sizeof *pt->rows);
    if (!pt->rp || !pt->rows || vftr_replay_set_flags(pt->rp, VFTR_REPLAY_INCL_PER_CALL) < 0 ||
        vftr_replay_set_groups(pt->rp, group_token, pt->src) < 0) {
        rc = vftr_errmsg(pt->err, sizeof pt->err, -ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < r->nprocs; i++)
        tl_row_init(r, &pt->rows[i]);
    /* the usual OTF tokens (1, 2, ...) find their row by index */
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i]->token < 65536 && r->procs[i]->token + 1 > pt->ndirect)
            pt->ndirect = r->procs[i]->token + 1;
    if (pt->ndirect && !(pt->direct = calloc(pt->ndirect, sizeof *pt->direct))) {
        rc = vftr_errmsg(pt->err, sizeof pt->err, -ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i]->token < pt->ndirect)
            pt->direct[r->procs[i]->token] = (uint32_t)i + 1;
    rc = vftr_source_read(pt->src, r->a, r->b, pt->all ? NULL : &pt->procs, 0, &h, &pt->st,
                          pt->err, sizeof pt->err);
    if (rc > 0 || (rc < 0 && !pt->err[0]))
        rc = vftr_errmsg(pt->err, sizeof pt->err, rc > 0 ? -EIO : rc, "%s",
                         strerror(rc > 0 ? EIO : -rc));
    if (rc < 0)
        goto out;
    if (r->have_timeline) {                  /* to the end of the span */
        for (size_t i = 0; i < r->nprocs && rc == 0; i++) {
            struct tl_row *tr = &pt->rows[i];

            if (!pt->all && !vftr_proclist_contains(&pt->procs, r->procs[i]->token))
                continue;
            rc = tl_advance(r, i, tr, r->t1);
            if (rc == 0)
                rc = tl_finish(r, i, tr);
        }
        if (rc < 0) {
            rc = vftr_errmsg(pt->err, sizeof pt->err, -ENOMEM, "out of memory");
            goto out;
        }
    }
    if ((rc = vftr_replay_finish(pt->rp)) < 0)
        vftr_errmsg(pt->err, sizeof pt->err, rc, "out of memory");
out:
    pt->rc = rc;
    return NULL;
}

static void part_release(struct part *pt, const struct vftr_report *r)
{
    vftr_replay_free(pt->rp);
    vftr_messages_free(pt->msgs);
    free(pt->recs);
    if (pt->rows)
        for (size_t i = 0; i < r->nprocs; i++)
            free(pt->rows[i].stack);
    free(pt->rows);
    free(pt->direct);
    vftr_proclist_release(&pt->procs);
    if (pt->src != r->src)
        vftr_source_free(pt->src);
}

/* ------------------------------------------------------------ tables */

static int cmp_prow(const void *a, const void *b)
{
    const struct rep_prow *x = a, *y = b;
    int d;

    if (x->p->excl != y->p->excl)
        return x->p->excl > y->p->excl ? -1 : 1;
    d = strcmp(x->name, y->name);
    if (d)
        return d;
    return (x->p->function > y->p->function) - (x->p->function < y->p->function);
}

static int cmp_per(const void *a, const void *b)
{
    const struct vftr_funcstat *x = a, *y = b;

    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return (x->function > y->function) - (x->function < y->function);
}

/* Are the calls of token id known (vftr-stats's rule)? */
static int calls_exact(const struct vftr_report *r, int groups, uint32_t id)
{
    const struct vftr_source_func *f;

    if (r->info->sample_interval <= 0)
        return 1;
    if (groups)
        return 0;
    f = vftr_source_func(r->src, id);
    return f && (f->flags & VFTR_SOURCE_FN_PRECISE);
}

/* The table of one merged accumulator. */
static int make_table(struct vftr_report *r, struct rep_table *t, struct vftr_fsacc *acc,
                      int groups)
{
    size_t n;
    const struct vftr_funcstat *fs = vftr_fsacc_result(acc, &n, NULL);

    if (!fs || vftr_profile_build(&t->prof, fs, n) < 0)
        return -ENOMEM;
    t->per = malloc((n ? n : 1) * sizeof *t->per);
    t->rows = calloc(t->prof.nrows ? t->prof.nrows : 1, sizeof *t->rows);
    if (!t->per || !t->rows)
        return -ENOMEM;
    memcpy(t->per, fs, n * sizeof *fs);
    t->nper = n;
    if (n)
        qsort(t->per, n, sizeof *t->per, cmp_per);
    for (size_t i = 0; i < t->prof.nrows; i++) {
        uint32_t tok = t->prof.rows[i].function;
        const char *name = rep_token_name(r, groups ? REP_NAME_GROUP : REP_NAME_FUNCTION, tok);

        if (!name)
            return -ENOMEM;
        t->rows[i] = (struct rep_prow){
            name, &t->prof.rows[i], calls_exact(r, groups, tok),
            groups ? (tok ? rep_group_kind(vftr_source_group_name(r->src, tok)) : REP_OTHER)
                   : rep_function_kind(r, tok),
        };
    }
    if (t->prof.nrows)
        qsort(t->rows, t->prof.nrows, sizeof *t->rows, cmp_prow);
    return 0;
}

/*
 * The function and group tables from the merged replay: per (process,
 * token) figures with threads folded into their rank, as
 * vftr_source_profile's queries fold them (vftr-stats, vftr-stats
 * --groups).  The group figures are the replay's own (booked beside the
 * functions', replay.h) when they equal a replay of the group tokens; on a
 * trace where they may not (a leave that did not close the frame on top)
 * the group profile is taken the way vftr-stats --groups takes it, by a
 * read of its own.  0 or -errno with err.
 */
static int make_tables(struct vftr_report *r, const struct vftr_proclist *procs, char *err,
                       size_t errlen)
{
    struct vftr_fsacc *facc = vftr_fsacc_new(), *gacc = vftr_fsacc_new();
    struct vftr_profq_result gres = { 0 };
    const struct vftr_funcstat *fs;
    size_t n;
    int rc = facc && gacc ? 0 : -ENOMEM;

    if (rc == 0) {
        fs = vftr_replay_funcstats(r->paths, &n);
        rc = vftr_fsacc_add_stats(facc, fs, n, +1, vftr_source_rank_process, r->src);
    }
    if (rc == 0 && vftr_replay_groups_exact(r->paths)) {
        fs = vftr_replay_groupstats(r->paths, &n);
        rc = vftr_fsacc_add_stats(gacc, fs, n, +1, vftr_source_rank_process, r->src);
    } else if (rc == 0) {
        struct vftr_profq gq = { r->a, r->b, procs, group_token, vftr_source_rank_process,
                                 r->src, VFTR_PROFQ_INCL_ONCE };

        rc = vftr_source_profile(r->src, &gq, &gres, err, errlen);
        if (rc == 0 && (fs = vftr_fsacc_result(gres.acc, &n, NULL)) != NULL)
            rc = vftr_fsacc_add_stats(gacc, fs, n, +1, NULL, NULL);
        else if (rc == 0)
            rc = -ENOMEM;
    }
    if (rc == 0)
        rc = make_table(r, &r->funcs, facc, 0);
    if (rc == 0)
        rc = make_table(r, &r->groups, gacc, 1);
    vftr_fsacc_free(facc);
    vftr_fsacc_free(gacc);
    vftr_profq_release(&gres);
    if (rc == -ENOMEM)
        vftr_errmsg(err, errlen, rc, "out of memory");
    return rc;
}

/* vftr-stats --callpath's order (replay.h). */
static int cmp_siblings(const void *a, const void *b)
{
    const struct rep_path *x = a, *y = b;

    return vftr_pathstat_order(x->p, x->name, y->p, y->name);
}

static int make_tree(struct vftr_report *r)
{
    size_t n, top = 0;
    const struct vftr_pathstat *ps = vftr_replay_paths(r->paths, &n);
    struct rep_path *rows = calloc(n ? n : 1, sizeof *rows);
    size_t *first = calloc(n + 2, sizeof *first), *stack = calloc(n ? n : 1, sizeof *stack);
    int rc = -ENOMEM;

    r->tree = calloc(n ? n : 1, sizeof *r->tree);
    if (!rows || !first || !stack || !r->tree)
        goto out;
    for (size_t i = 0; i < n; i++) {
        rows[i] = (struct rep_path){ rep_token_name(r, REP_NAME_FUNCTION, ps[i].function), &ps[i],
                                     calls_exact(r, 0, ps[i].function),
                                     rep_function_kind(r, ps[i].function) };
        if (!rows[i].name)
            goto out;
    }
    if (n)
        qsort(rows, n, sizeof *rows, cmp_siblings);
    for (size_t i = 0; i < n; i++)
        first[rows[i].p->parent + 1]++;
    for (size_t i = 1; i < n + 2; i++)
        first[i] += first[i - 1];
    for (size_t k = first[1]; k-- > first[0];)
        stack[top++] = k;
    while (top > 0) {
        size_t i = stack[--top];
        uint32_t id = (uint32_t)(rows[i].p - ps) + 1;

        r->tree[r->ntree++] = rows[i];
        for (size_t k = first[id + 1]; k-- > first[id];)
            stack[top++] = k;
    }
    rc = 0;
out:
    free(rows);
    free(first);
    free(stack);
    return rc;
}

/* ------------------------------------------------------------ processes */

static int cmp_procp(const void *a, const void *b)
{
    const struct vftr_source_proc *x = *(const struct vftr_source_proc *const *)a;
    const struct vftr_source_proc *y = *(const struct vftr_source_proc *const *)b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->token > y->token) - (x->token < y->token);
}

static int make_procs(struct vftr_report *r, const struct vftr_proclist *sel)
{
    size_t n;
    const struct vftr_source_proc *p = vftr_source_procs(r->src, &n);

    r->procs = calloc(n ? n : 1, sizeof *r->procs);
    r->ranks = calloc(n ? n : 1, sizeof *r->ranks);
    if (!r->procs || !r->ranks)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (!sel || vftr_proclist_contains(sel, p[i].token))
            r->procs[r->nprocs++] = &p[i];
    if (r->nprocs)
        qsort(r->procs, r->nprocs, sizeof *r->procs, cmp_procp);
    for (size_t i = 0; i < r->nprocs; i++) {
        const struct vftr_source_proc *q = r->procs[i];

        if (r->nranks && r->ranks[r->nranks - 1].rank == q->rank) {
            r->ranks[r->nranks - 1].nthreads++;
            continue;
        }
        r->ranks[r->nranks++] = (struct rep_rank){ vftr_source_rank_process(r->src, q->token),
                                                   q->rank, 1 };
    }
    return 0;
}

/* ------------------------------------------------------------ the report */

void vftr_report_free(struct vftr_report *r)
{
    if (!r)
        return;
    vftr_profile_release(&r->funcs.prof);
    free(r->funcs.rows);
    free(r->funcs.per);
    vftr_profile_release(&r->groups.prof);
    free(r->groups.rows);
    free(r->groups.per);
    vftr_replay_free(r->paths);
    free(r->tree);
    vftr_messages_free(r->msgs);
    rep_waits_free(r);
    for (int L = 0; L < r->nlevels; L++) {
        if (r->levels[L].rows)
            for (size_t i = 0; i < r->nprocs; i++)
                free(r->levels[L].rows[i].v);
        free(r->levels[L].rows);
    }
    for (size_t i = 0; i < r->nwarnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    for (size_t i = 0; i < r->nunnamed; i++)
        free(r->unnamed[i]);
    free(r->unnamed);
    free(r->procs);
    free(r->ranks);
    vftr_source_free(r->src);
    free(r);
}

/* Copies the lines the source wrote at open into the report's warnings. */
static int take_open_warnings(struct vftr_report *r, char *buf, size_t len, FILE *warn)
{
    char *line = buf;

    if (warn && len)
        fwrite(buf, 1, len, warn);
    while (line && *line) {
        char *nl = strchr(line, '\n'), **v;
        const char *text = line;
        size_t plen;

        if (nl)
            *nl = '\0';
        /* "prog: " is the tool's prefix, not part of the warning, nor is
         * "warning: " on a list of warnings */
        plen = strcspn(line, ":");
        if (line[plen] == ':' && line[plen + 1] == ' ')
            text = line + plen + 2;
        if (strncmp(text, "warning: ", 9) == 0)
            text += 9;
        if (*text) {
            v = realloc(r->warnings, (r->nwarnings + 1) * sizeof *v);
            if (!v)
                return -ENOMEM;
            r->warnings = v;
            if (!(v[r->nwarnings] = strdup(text)))
                return -ENOMEM;
            r->nwarnings++;
        }
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

static int collect_warnings(struct vftr_report *r, const struct vftr_report_opts *o,
                            const struct part *parts, unsigned nparts, uint64_t too_deep)
{
    FILE *w = o->warn;
    const char *prog = o->prog ? o->prog : "vftr-report";
    const struct vftr_msg_counts *k = vftr_messages_counts(r->msgs);
    const struct vftr_replay_counts *rc = vftr_replay_counts(r->paths);
    uint64_t anomalies = 0;
    const char *first = NULL;
    size_t incomplete = 0;
    int e = 0;

    if (r->info->sample_interval > 0)
        e |= add_warning(r, w, prog, "sampled capture: each thread's events were recorded at "
                         "most every %g s (and every call of the precise functions): times are "
                         "estimates, calls are known for the precise functions only",
                         r->info->sample_interval);
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i]->flags & VFTR_SOURCE_PROC_INCOMPLETE) {
            char lab[64];

            rep_proc_label(r->procs[i], lab, sizeof lab);
            if (incomplete++ < 16)
                e |= add_warning(r, w, prog, "%s: its data ends early (the rank crashed or was "
                                 "killed): what it did afterwards is not in the trace", lab);
        }
    if (incomplete > 16)
        e |= add_warning(r, w, prog, "%zu processes in all end early", incomplete);
    for (unsigned i = 0; i < nparts; i++) {
        anomalies += parts[i].anomalies;
        if (!first && parts[i].anomalies)
            first = parts[i].anomaly;
    }
    if (anomalies)
        e |= add_warning(r, w, prog, "%" PRIu64 " record(s) did not fit and were repaired "
                         "(first: %s)", anomalies, first);
    if (r->info->skipped)
        e |= add_warning(r, w, prog, "%" PRIu64 " event record(s) of kinds vftr does not model "
                         "were passed over", r->info->skipped);
    if (too_deep)
        e |= add_warning(r, w, prog, "%" PRIu64 " frame(s) deeper than %u were dropped", too_deep,
                         VFTR_WINDOW_MAX_DEPTH);
    if (rc->implied_enters)
        e |= add_warning(r, w, prog, "%" PRIu64 " leave(s) without their enter", rc->implied_enters);
    if (rc->mismatched)
        e |= add_warning(r, w, prog, "%" PRIu64 " leave(s) of a function not on top of the stack",
                         rc->mismatched);
    if (rc->backwards)
        e |= add_warning(r, w, prog, "%" PRIu64 " time stamp(s) went backwards", rc->backwards);
    if (k->unmatched_sends || k->unmatched_recvs)
        e |= add_warning(r, w, prog, "%" PRIu64 " send(s) and %" PRIu64 " receive(s) without "
                         "their partner", k->unmatched_sends, k->unmatched_recvs);
    if (k->unmatched_begins || k->unmatched_ends)
        e |= add_warning(r, w, prog, "%" PRIu64 " collective begin(s) and %" PRIu64 " end(s) "
                         "without their partner", k->unmatched_begins, k->unmatched_ends);
    return e ? -ENOMEM : 0;
}

int vftr_report_collect(struct vftr_report **out, const char *const *ops, size_t nops,
                        const struct vftr_report_opts *o, char *err, size_t errlen)
{
    struct vftr_report *r = calloc(1, sizeof *r);
    char *wbuf = NULL;
    size_t wlen = 0;
    FILE *wmem;
    struct vftr_source_opts so;
    struct part *parts = NULL;
    pthread_t *tids = NULL;
    unsigned nparts = 1, jobs;
    uint64_t too_deep = 0;
    int rc;

    *out = NULL;
    if (!r)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    /* the source's warnings at open: kept for the page, passed on */
    wmem = open_memstream(&wbuf, &wlen);
    so = (struct vftr_source_opts){ wmem, o->prog ? o->prog : "vftr-report", o->jobs };
    rc = vftr_source_open(&r->src, ops, nops, &so, err, errlen);
    if (wmem)
        fclose(wmem);
    if (rc < 0) {
        if (o->warn && wlen)
            fwrite(wbuf, 1, wlen, o->warn);
        free(wbuf);
        free(r);
        return rc;
    }
    r->info = vftr_source_info(r->src);
    rc = wbuf ? take_open_warnings(r, wbuf, wlen, o->warn) : 0;
    free(wbuf);
    if (rc < 0)
        goto nomem;
    r->a = 0;
    r->b = UINT64_MAX;
    if (o->window) {
        struct vftr_timebase base = { r->info->resolution, r->info->first };
        struct vftr_timerange range;

        rc = vftr_timerange_parse(o->window, &base, &range, err, errlen);
        if (rc == 0 && range.end <= range.start)
            rc = vftr_errmsg(err, errlen, -EINVAL, "empty time window '%s'", o->window);
        if (rc < 0) {
            vftr_report_free(r);
            return rc;
        }
        r->a = range.start;
        r->b = range.end;
    }
    r->res = r->info->resolution ? (double)r->info->resolution : 1.0;
    r->trace_bytes = trace_bytes(r->info, ops, nops);
    if ((rc = make_procs(r, o->procs)) < 0)
        goto nomem;
    if (o->procs && r->nprocs == 0) {
        vftr_report_free(r);
        return vftr_errmsg(err, errlen, -ENOENT, "%s: none of the processes asked for is in "
                           "the trace", ops[0]);
    }
    r->t0 = r->a > r->info->first ? r->a : r->info->first;
    r->t1 = r->info->last < UINT64_MAX ? r->info->last + 1 : UINT64_MAX;
    if (r->b < r->t1)
        r->t1 = r->b;
    if (!o->no_timeline && (rc = tl_setup(r, o->cells ? o->cells : VFTR_REPORT_CELLS)) < 0)
        goto nomem;

    /* shares: ranks split evenly over the threads of an OTF read */
    jobs = o->jobs ? o->jobs : (unsigned)(sysconf(_SC_NPROCESSORS_ONLN) > 0
                                          ? sysconf(_SC_NPROCESSORS_ONLN) : 1);
    if (r->info->kind == VFTR_SOURCE_OTF && jobs > 1 && r->nranks > 1)
        nparts = jobs < r->nranks ? jobs : (unsigned)r->nranks;
    parts = calloc(nparts, sizeof *parts);
    tids = calloc(nparts, sizeof *tids);
    if (!parts || !tids)
        goto nomem;
    for (unsigned k = 0, ri = 0; k < nparts; k++) {
        struct part *pt = &parts[k];
        size_t end = (size_t)(k + 1) * r->nranks / nparts;

        pt->r = r;
        pt->opts = o;
        pt->ops = ops;
        pt->nops = nops;
        pt->src = k == 0 ? r->src : NULL;
        pt->all = nparts == 1 && !o->procs;
        for (size_t i = 0; i < r->nprocs; i++) {
            size_t rk = rep_rank_index(r, r->procs[i]->token);

            if (rk >= ri && rk < end &&
                vftr_proclist_add(&pt->procs, r->procs[i]->token, r->procs[i]->token) < 0)
                goto nomem;
        }
        ri = (unsigned)end;
        if (nparts == 1 && !(pt->msgs = new_matcher(r)))
            goto nomem;
    }
    r->parts = nparts;
    for (unsigned k = 1; k < nparts; k++)
        if (pthread_create(&tids[k], NULL, run_part, &parts[k]) != 0) {
            parts[k].rc = vftr_errmsg(parts[k].err, sizeof parts[k].err, -EAGAIN,
                                      "cannot start a reading thread");
            tids[k] = 0;
            parts[k].src = NULL;
        }
    run_part(&parts[0]);
    for (unsigned k = 1; k < nparts; k++)
        if (tids[k])
            pthread_join(tids[k], NULL);
    for (unsigned k = 0; k < nparts; k++)
        if (parts[k].rc < 0) {
            rc = parts[k].rc;
            if (rc == -ENOMEM)
                goto nomem;
            vftr_errmsg(err, errlen, rc, "%s", parts[k].err);
            goto fail;
        }

    /* merge the shares: one replay, as if one thread had read them all */
    for (unsigned k = 0; k < nparts; k++) {
        if (k > 0 && vftr_replay_merge(parts[0].rp, parts[k].rp) < 0)
            goto nomem;
        too_deep += parts[k].st.too_deep;
        r->events += parts[k].st.delivered;
        r->bytes_read += parts[k].st.bytes_read;
    }
    r->paths = parts[0].rp;
    parts[0].rp = NULL;
    if ((rc = make_tables(r, o->procs, err, errlen)) < 0) {
        if (rc == -ENOMEM)
            goto nomem;
        goto fail;
    }
    if (make_tree(r) < 0)
        goto nomem;
    if (nparts == 1) {
        r->msgs = parts[0].msgs;
        parts[0].msgs = NULL;
    } else {
        if (!(r->msgs = new_matcher(r)))
            goto nomem;
        if ((rc = in_flight(r, !o->procs, r->msgs, err, errlen)) < 0)
            goto fail;
        for (unsigned k = 0; k < nparts; k++)
            if (feed_messages(r->msgs, parts[k].recs, parts[k].nrecs) < 0)
                goto nomem;
    }
    if (vftr_messages_finish(r->msgs) < 0)
        goto nomem;
    if (collect_warnings(r, o, parts, nparts, too_deep) < 0)
        goto nomem;
    for (unsigned k = 0; k < nparts; k++)
        part_release(&parts[k], r);
    free(parts);
    free(tids);
    /* the wait analysis: a read of its own, after the others (waits.c).
     * Where it fails on what the first read took (records it cannot
     * order), the page is still worth having: a warning, no section. */
    if (!o->no_waits && (rc = rep_waits_collect(r, o->procs, err, errlen)) < 0) {
        if (rc == -ENOMEM || add_warning(r, o->warn, o->prog ? o->prog : "vftr-report",
                                         "the wait analysis failed (%s): the page has no "
                                         "waits section", err) < 0)
            goto nomem_late;
        if (errlen)
            err[0] = '\0';
    }
    *out = r;
    return 0;
nomem_late:                     /* parts and tids are freed */
    parts = NULL;
    tids = NULL;
nomem:
    vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    rc = -ENOMEM;
fail:
    if (parts)
        for (unsigned k = 0; k < nparts; k++)
            part_release(&parts[k], r);
    free(parts);
    free(tids);
    vftr_report_free(r);
    return rc;
}
