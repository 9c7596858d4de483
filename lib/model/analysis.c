/*
 * analysis.c — see analysis.h: the records in, the call paths, the
 * processes, message matching, collectives, OpenMP teams, the patterns and
 * the wait table.  The critical path is analysis_cp.c's, the delays
 * analysis_delay.c's; this file calls them at the points where a process
 * can be a cause (cp_freeze, d_cut) and where it ends a wait (cp_jump,
 * d_wait).
 *
 * Each wait is computed at the record where the waiting process's wait is
 * over and everything it depends on is known (records come in time order):
 *   Late Sender     at the end of the receiving call (the largest wait of
 *                   the receives it completed, Scalasca's rule for
 *                   MPI_Waitall and its kin);
 *   Late Receiver   at the end of the blocking send;
 *   collectives     at the member's end of it, completion times when the
 *                   last member ended; MPI_Finalize when the last process
 *                   entered it; MPI_Init completion when the last left it;
 *   OpenMP          at the end of the thread's barrier, at the begin of a
 *                   worker's implicit task (idle before it), at the end of
 *                   a lock or critical wait.
 */
#include "analysis_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

static const struct vftr_wait_pattern_info patterns[VFTR_WAIT_COUNT] = {
    [VFTR_WAIT_LATE_SENDER] = { "late_sender", "Late Sender",
        "a receive (or the wait that completed it) blocked before its send began", 1 },
    [VFTR_WAIT_LATE_SENDER_WO] = { "late_sender_wo", "Late Sender, wrong order",
        "the part of Late Sender where a message sent earlier was received later", 0 },
    [VFTR_WAIT_LATE_RECEIVER] = { "late_receiver", "Late Receiver",
        "a blocking send (synchronous, or of rendezvous size) waited for its receive", 1 },
    [VFTR_WAIT_BARRIER] = { "wait_barrier", "Wait at Barrier",
        "time in MPI_Barrier until the last process entered it", 1 },
    [VFTR_WAIT_BARRIER_COMPLETION] = { "barrier_completion", "Barrier Completion",
        "time in MPI_Barrier after the first process left it", 0 },
    [VFTR_WAIT_NXN] = { "wait_nxn", "Wait at N x N",
        "time in an all-to-all collective until the last process entered it", 1 },
    [VFTR_WAIT_NXN_COMPLETION] = { "nxn_completion", "N x N Completion",
        "time in an all-to-all collective after the first process left it", 0 },
    [VFTR_WAIT_LATE_BROADCAST] = { "late_broadcast", "Late Broadcast",
        "time in a 1-to-N collective before its root entered it", 1 },
    [VFTR_WAIT_EARLY_REDUCE] = { "early_reduce", "Early Reduce",
        "the root's time in an N-to-1 collective before any other process entered it", 1 },
    [VFTR_WAIT_EARLY_SCAN] = { "early_scan", "Early Scan",
        "time in MPI_Scan or MPI_Exscan until the last lower rank entered it", 1 },
    [VFTR_WAIT_FINALIZE] = { "wait_finalize", "Wait at MPI_Finalize",
        "time in MPI_Finalize until the last process entered it", 1 },
    [VFTR_WAIT_INIT_COMPLETION] = { "init_completion", "MPI_Init Completion",
        "time in MPI_Init after the first process left it", 0 },
    [VFTR_WAIT_OMP_BARRIER] = { "omp_barrier", "OpenMP barrier wait",
        "time in an implicit OpenMP barrier until the team's last thread entered it", 1 },
    [VFTR_WAIT_OMP_EBARRIER] = { "omp_explicit_barrier", "OpenMP explicit barrier wait",
        "time in an explicit OpenMP barrier until the team's last thread entered it", 1 },
    [VFTR_WAIT_OMP_IDLE] = { "omp_idle", "OpenMP idle threads",
        "a worker thread outside the implicit tasks while its process ran", 1 },
    [VFTR_WAIT_OMP_CRITICAL] = { "omp_critical_wait", "OpenMP critical contention",
        "time waiting to enter a critical section", 1 },
    [VFTR_WAIT_OMP_LOCK] = { "omp_lock_wait", "OpenMP lock contention",
        "time waiting in omp_set_lock for a lock held by another thread", 1 },
    [VFTR_WAIT_OMP_ORDERED] = { "omp_ordered_wait", "OpenMP ordered wait",
        "time waiting to enter an ordered region", 1 },
};

const struct vftr_wait_pattern_info *vftr_wait_pattern_info(unsigned pattern)
{
    return pattern < VFTR_WAIT_COUNT ? &patterns[pattern] : NULL;
}

double vftr_cp_imbalance(double cp, double avg)
{
    return cp > avg ? cp - avg : 0.0;
}

/* MPI_Init's end synchronises every rank with every other: its boundary
 * is kept among a process's collective ones under this key (analysis_impl.h). */
#define INIT_COMM ALL_COMM

/* Open collective instances kept per communicator before the oldest is
 * given up (a member that never takes part: a trace cut short). */
#define MAX_OPEN_COLLS 65536

/* ------------------------------------------------------------ call paths */

static uint32_t get_path(struct vftr_analysis *a, uint32_t parent, uint32_t function)
{
    uint64_t key = key2(parent, function);
    long i = vftr_u64map_get(&a->pathmap, key);

    if (i >= 0)
        return (uint32_t)i + 1;
    if (vftr_reserve((void **)&a->paths, &a->cappaths, a->npaths, sizeof *a->paths) < 0 ||
        vftr_u64map_put(&a->pathmap, key, (uint32_t)a->npaths) < 0)
        return 0;
    a->paths[a->npaths] = (struct vftr_analysis_path){
        parent, function, parent ? a->paths[parent - 1].depth + 1 : 1 };
    return (uint32_t)++a->npaths;
}

static uint32_t gpath_slow(struct vftr_analysis *a, uint16_t s, uint32_t local, int *rc);

/* Stream s's path `local` in the analysis's numbering (0 for 0); created
 * on first use, parents first.  *rc -ENOMEM or -EINVAL (unknown path). */
static inline uint32_t gpath(struct vftr_analysis *a, uint16_t s, uint32_t local, int *rc)
{
    if (local == 0)
        return 0;
    if (s < a->nstreams && local < a->streams[s].nmap && a->streams[s].map[local])
        return a->streams[s].map[local];
    return gpath_slow(a, s, local, rc);
}

static uint32_t gpath_slow(struct vftr_analysis *a, uint16_t s, uint32_t local, int *rc)
{
    struct stream *st;
    uint32_t chain[64], n = 0, g = 0;

    if (local == 0)
        return 0;
    if (s >= a->nstreams || !a->streams[s].used) {
        *rc = -EINVAL;
        return 0;
    }
    st = &a->streams[s];
    if (local < st->nmap && st->map[local])
        return st->map[local];
    /* up to an ancestor already known (or a root), at most 64 at a time */
    for (uint32_t l = local;;) {
        uint32_t parent, function;

        if (l < st->nmap && st->map[l]) {
            g = st->map[l];
            break;
        }
        if (n == 64) {              /* deep: map the ancestor first */
            g = gpath_slow(a, s, l, rc);
            if (!g)
                return 0;
            break;
        }
        chain[n++] = l;
        if (st->def(st->arg, l, &parent, &function) < 0) {
            *rc = -EINVAL;
            return 0;
        }
        if (parent == 0)
            break;
        l = parent;
    }
    while (n > 0) {
        uint32_t l = chain[--n], parent, function;

        st->def(st->arg, l, &parent, &function);
        g = get_path(a, g, function);
        if (!g) {
            *rc = -ENOMEM;
            return 0;
        }
        if (l >= st->nmap) {
            size_t m = st->nmap ? st->nmap : 64;
            uint32_t *p;

            while (m <= l)
                m *= 2;
            if (!(p = realloc(st->map, m * sizeof *p))) {
                *rc = -ENOMEM;
                return 0;
            }
            memset(p + st->nmap, 0, (m - st->nmap) * sizeof *p);
            st->map = p;
            st->nmap = m;
        }
        st->map[l] = g;
    }
    return g;
}

/*
 * The call path the delay analysis compares: a path inside an OpenMP
 * implicit task re-rooted at the outermost one.  A worker thread's calls
 * are rooted at its implicit task, the encountering thread's lie below
 * "omp parallel<main": the same work of a team compares on the re-rooted
 * path.  Cached per path; 0 stays 0 (and 0 on ENOMEM: booked as outside
 * calls, not lost).
 */
static uint32_t dpath_slow(struct vftr_analysis *a, uint32_t path);

static inline uint32_t dpath(struct vftr_analysis *a, uint32_t path)
{
    if (path && path <= a->ncanon && path <= a->npaths && a->canon[path - 1])
        return a->canon[path - 1];
    return dpath_slow(a, path);
}

static uint32_t dpath_slow(struct vftr_analysis *a, uint32_t path)
{
    uint32_t chain[256], n = 0, top = 0, g = 0;

    if (path == 0 || path > a->npaths)
        return path;
    for (uint32_t p = path; p && n < 256; p = a->paths[p - 1].parent) {
        chain[n++] = p;
        if (vftr_syncdefs_fclass(&a->defs, a->paths[p - 1].function) == VFTR_SYNC_F_OMP_ITASK)
            top = n;                    /* chain[top - 1]: the outermost so far */
    }
    if (top == 0 || a->paths[chain[top - 1] - 1].parent == 0) {
        g = path;
    } else {
        for (uint32_t k = top; k-- > 0;)
            if (!(g = get_path(a, g, a->paths[chain[k] - 1].function)))
                return 0;
    }
    if (path > a->ncanon) {
        size_t m = a->ncanon ? a->ncanon : 64;
        uint32_t *c;

        while (m < path || m < a->npaths)
            m *= 2;
        if (!(c = realloc(a->canon, m * sizeof *c)))
            return g;
        memset(c + a->ncanon, 0, (m - a->ncanon) * sizeof *c);
        a->canon = c;
        a->ncanon = m;
    }
    a->canon[path - 1] = g;
    return g;
}

int vftr_analysis_add_stream(struct vftr_analysis *a, uint16_t stream, vftr_syncpath_fn *def,
                             void *arg)
{
    if (stream >= a->nstreams) {
        struct stream *s = realloc(a->streams, ((size_t)stream + 1) * sizeof *s);

        if (!s)
            return -ENOMEM;
        memset(s + a->nstreams, 0, ((size_t)stream + 1 - a->nstreams) * sizeof *s);
        a->streams = s;
        a->nstreams = (size_t)stream + 1;
    }
    if (a->streams[stream].used)
        return -EINVAL;
    a->streams[stream] = (struct stream){ .used = true, .def = def, .arg = arg };
    return 0;
}

/* ------------------------------------------------------------ processes */

static struct aproc *proc_at(struct vftr_analysis *a, uint32_t i)
{
    return &a->procs[i];
}

#define DIRECT_PROCS 65536u

static long proc_index(struct vftr_analysis *a, uint32_t token)
{
    if (token < a->npdirect)
        return (long)a->pdirect[token] - 1;
    if (token < DIRECT_PROCS)
        return -1;
    return vftr_u64map_get(&a->procmap, token);
}

/* Token -> index, in the direct table for the small tokens (every record
 * asks), else in the map.  0 or -ENOMEM. */
static int proc_put(struct vftr_analysis *a, uint32_t token, uint32_t index)
{
    if (token >= DIRECT_PROCS)
        return vftr_u64map_put(&a->procmap, token, index);
    if (token >= a->npdirect) {
        size_t n = a->npdirect ? a->npdirect : 64;
        uint32_t *p;

        while (n <= token)
            n *= 2;
        if (!(p = realloc(a->pdirect, n * sizeof *p)))
            return -ENOMEM;
        memset(p + a->npdirect, 0, (n - a->npdirect) * sizeof *p);
        a->pdirect = p;
        a->npdirect = n;
    }
    a->pdirect[token] = index + 1;
    return 0;
}

/* The process of token, made for a token the definitions do not have. */
static struct aproc *proc_of_slow(struct vftr_analysis *a, uint32_t token);

static inline struct aproc *proc_of(struct vftr_analysis *a, uint32_t token)
{
    if (token < a->npdirect && a->pdirect[token])
        return &a->procs[a->pdirect[token] - 1];
    return proc_of_slow(a, token);
}

static struct aproc *proc_of_slow(struct vftr_analysis *a, uint32_t token)
{
    long i = proc_index(a, token);

    if (i >= 0)
        return &a->procs[i];
    if (vftr_reserve((void **)&a->procs, &a->capprocs, a->nprocs, sizeof *a->procs) < 0 ||
        proc_put(a, token, (uint32_t)a->nprocs) < 0)
        return NULL;
    a->procs[a->nprocs] = (struct aproc){ .token = token, .rankproc = token,
                                          .master = (uint32_t)a->nprocs,
                                          .p2p_bound = VFTR_TALLY_INIT,
                                          .coll_bound = VFTR_TALLY_INIT };
    return &a->procs[a->nprocs++];
}

static uint32_t pidx(const struct vftr_analysis *a, const struct aproc *p)
{
    return (uint32_t)(p - a->procs);
}

/* ------------------------------------------------------------ the table */

/* Adds v to call path `path`'s busy time (a dense array: paths are numbered
 * from 1, 0 is outside calls).  0 or -ENOMEM. */
static int busy_add(struct vftr_analysis *a, uint32_t path, int64_t v)
{
    if (path >= a->nbusy) {
        size_t n = a->nbusy ? a->nbusy : 64;
        int64_t *b;

        while (n <= path)
            n *= 2;
        if (!(b = realloc(a->busy, n * sizeof *b)))
            return -ENOMEM;
        memset(b + a->nbusy, 0, (n - a->nbusy) * sizeof *b);
        a->busy = b;
        a->nbusy = n;
    }
    a->busy[path] += v;
    return 0;
}

/*
 * Books a wait of `pattern` of process p on call path `path`: the part of
 * [start, end) inside the window.  Returns that part (0: none).
 */
static uint64_t book_here(struct vftr_analysis *a, unsigned pattern, struct aproc *p,
                          uint32_t path, uint64_t start, uint64_t end, uint32_t cause,
                          uint64_t cause_time, bool here);

static uint64_t book(struct vftr_analysis *a, unsigned pattern, struct aproc *p, uint32_t path,
                     uint64_t start, uint64_t end, uint32_t cause, uint64_t cause_time)
{
    return book_here(a, pattern, p, path, start, end, cause, cause_time, !p->foreign);
}

/* here: this analysis books it (a foreign process's Late Receiver is
 * booked by its receiver's rank: see rec_send) */
static uint64_t book_here(struct vftr_analysis *a, unsigned pattern, struct aproc *p,
                          uint32_t path, uint64_t start, uint64_t end, uint32_t cause,
                          uint64_t cause_time, bool here)
{
    uint64_t s = start > a->o.a ? start : a->o.a, e = end < a->o.b ? end : a->o.b, len;
    uint64_t key = key2(p->token, path);
    long i;
    struct vftr_wait_row *r;

    if (e <= s)
        return 0;
    len = e - s;
    if (!here)
        return len;         /* its rank books it */
    i = vftr_u64map_get(&a->rowmap[pattern], key);
    if (i < 0) {
        if (vftr_reserve((void **)&a->rows, &a->caprows, a->nrows, sizeof *a->rows) < 0 ||
            vftr_u64map_put(&a->rowmap[pattern], key, (uint32_t)a->nrows) < 0)
            return 0;       /* out of memory: the row is lost, the run goes on */
        a->rows[a->nrows] = (struct vftr_wait_row){ pattern, p->token, path, 0, 0, 0 };
        i = (long)a->nrows++;
    }
    r = &a->rows[i];
    r->time += len;
    r->count++;
    if (len > r->max)
        r->max = len;
    /* waiting is not busy: an idle worker's time is on its own path, which
     * its caller subtracts (the row names the encountering thread's) */
    if (patterns[pattern].caused && pattern != VFTR_WAIT_OMP_IDLE)
        busy_add(a, path, -(int64_t)len);
    if (a->o.on_wait) {
        struct vftr_wait_instance w = { pattern, p->token, path, s, e, cause, cause_time };

        a->o.on_wait(a->o.arg, &w);
    }
    return len;
}

/* ------------------------------------------------------------ messages */

static void on_match(void *arg, const struct vftr_msgmatch *m)
{
    struct vftr_analysis *a = arg;

    a->match_hit = true;
    a->match_slot = (uint32_t)(m->send_cookie ? m->send_cookie : 0);
    a->match_receiver = m->receiver;
}

/* The rank of a process for the matcher (vftr_messages_set_ranks): its
 * rank's process as the definitions give it, else itself. */
static uint32_t rank_of(void *arg, uint32_t token)
{
    struct vftr_analysis *a = arg;
    long i = proc_index(a, token);

    return i < 0 ? token : a->procs[i].rankproc;
}

static long msg_new(struct vftr_analysis *a)
{
    uint32_t i;

    if (a->free_msg) {
        i = a->free_msg - 1;
        a->free_msg = a->msgs[i].next_free;
    } else {
        if (a->nmsgs >= UINT32_MAX - 1 ||
            vftr_reserve((void **)&a->msgs, &a->capmsgs, a->nmsgs, sizeof *a->msgs) < 0)
            return -ENOMEM;
        i = (uint32_t)a->nmsgs++;
    }
    a->msgs[i] = (struct msg){ .used = true };
    return i;
}

static void msg_free(struct vftr_analysis *a, uint32_t i)
{
    struct msg *m = &a->msgs[i];

    if (!m->used)
        return;
    cp_unref(a, m->send_node);
    cp_unref(a, m->recv_node);
    d_unref(proc_at(a, m->sender), m->dfrom);
    d_unref(proc_at(a, m->sender), m->dto);
    d_unref(proc_at(a, m->receiver), m->recv_from);
    d_unref(proc_at(a, m->receiver), m->recv_bound);
    *m = (struct msg){ .next_free = a->free_msg };
    a->free_msg = i + 1;
}

/* ------------------------------------------------------------ MPI calls */

static bool receiving(uint8_t cls)
{
    return cls == VFTR_SYNC_F_MPI_RECV || cls == VFTR_SYNC_F_MPI_SENDRECV ||
           cls == VFTR_SYNC_F_MPI_WAIT;
}

static bool posts_blocking(uint8_t cls)
{
    return cls == VFTR_SYNC_F_MPI_RECV || cls == VFTR_SYNC_F_MPI_SENDRECV;
}

static void ls_clear(struct vftr_analysis *a, struct mcall *c)
{
    cp_unref(a, c->ls_node);
    if (c->ls_dfrom || c->ls_dto) {
        struct aproc *s = proc_at(a, c->ls_sender);

        d_unref(s, c->ls_dfrom);
        d_unref(s, c->ls_dto);
    }
    c->ls_idle = 0;
    c->ls_node = NULL;
    c->ls_dfrom = c->ls_dto = NULL;
}

/*
 * The Late Receiver decision of message m whose blocking send ends at
 * x_s (now: the record's order time).  The receive it waited for is the one
 * that matched it, or, not matched yet, the blocking receive its receiver
 * is in now (it must be that one if the send waited for it).
 */
static int lr_decide(struct vftr_analysis *a, uint32_t mi, uint64_t x_s, uint64_t now,
                     uint64_t *best, struct cpnode **cause, uint64_t *cause_at, uint32_t *cause_p,
                     struct dblock **dfrom, struct dblock **dto, uint32_t *path,
                     uint64_t *omega_out, struct msg *out)
{
    struct msg *m = &a->msgs[mi];
    struct aproc *w = proc_at(a, m->receiver);
    uint64_t e_r = 0;
    struct cpnode *node = NULL;
    struct dblock *bound = NULL, *from = NULL;
    int have = 0;

    (void)now;
    m->lr_done = true;
    if (m->matched) {
        if (m->recv_blocking) {
            e_r = m->recv_enter;
            node = m->recv_node;
            bound = m->recv_bound;
            from = m->recv_from;
            have = 1;
        }
    } else if (w->in_recv && w->recv_enter <= x_s) {
        e_r = w->recv_enter;
        node = w->recv_node;
        bound = w->recv_bound;
        have = 1;
    }
    if (have && e_r > m->send_enter && x_s >= e_r && e_r - m->send_enter > *best) {
        *best = e_r - m->send_enter;
        cp_unref(a, *cause);
        *cause = node ? cp_ref(node) : NULL;
        *cause_at = e_r;
        *cause_p = m->receiver;
        if (*dto)
            d_unref(w, *dto);
        if (*dfrom)
            d_unref(w, *dfrom);
        *dto = bound ? d_ref(bound) : NULL;
        *dfrom = !delays_on(a) ? NULL : from ? d_ref(from) : d_since(a, w, proc_at(a, m->sender));
        *path = m->send_path;
        *omega_out = e_r;
        *out = *m;
    }
    return 0;
}

/* The end of p's MPI call (at x, record order time now): its Late Sender
 * and Late Receiver waits, and its receives' synchronisation points. */
static int end_call(struct vftr_analysis *a, struct aproc *p, uint64_t x, uint64_t now)
{
    struct mcall *c = &p->call;
    int rc = 0;

    if (!c->open)
        return 0;
    if (c->ls_idle > 0) {
        struct aproc *s = proc_at(a, c->ls_sender);
        uint64_t omega = book(a, VFTR_WAIT_LATE_SENDER, p, c->path, c->enter,
                              c->enter + c->ls_idle, s->token, c->ls_cause_time);

        /* the instance for "wrong order": a ring of the latest */
        if (p->ls || (p->ls = malloc(LSWO_BUFFER * sizeof *p->ls))) {
            size_t at = (p->headls + p->nls) % LSWO_BUFFER;

            if (p->nls == LSWO_BUFFER) {
                p->headls = (p->headls + 1) % LSWO_BUFFER;
                p->nls--;
            }
            p->ls[at] = (struct lsent){ c->ls_send_t, c->enter, c->ls_idle, c->path };
            p->nls++;
            if (c->ls_send_t > p->ls_max)
                p->ls_max = c->ls_send_t;
        }
        if (cp_on(a) && c->ls_node)
            rc = cp_jump(a, p, c->ls_node, c->ls_cause_time, now, c->path);
        if (rc == 0 && delays_on(a)) {
            if (c->ls_dfrom) {
                struct dblock *wfrom = d_since(a, p, s);

                rc = d_wait(a, VFTR_WAIT_LATE_SENDER, p, dpath(a, c->path), omega, s, c->ls_dfrom,
                            c->ls_dto, wfrom, NULL, now > c->enter ? now - c->enter : 0);
                d_unref(p, wfrom);
            } else {
                rc = d_plain_wait(p, dpath(a, c->path), omega);
            }
        }
    }
    ls_clear(a, c);
    if (rc < 0)
        return rc;

    /* Late Receiver: the send of the call that waited longest */
    if (c->nsends) {
        uint64_t best = 0, cause_at = 0, unused = 0;
        struct cpnode *cause = NULL;
        struct dblock *dfrom = NULL, *dto = NULL;
        uint32_t cause_p = 0, path = 0;
        struct msg m = { 0 };

        for (size_t i = 0; i < c->nsends; i++)
            lr_decide(a, c->sends[i], x, now, &best, &cause, &cause_at, &cause_p, &dfrom, &dto,
                      &path, &unused, &m);
        if (best > 0) {
            struct aproc *w = proc_at(a, cause_p);
            uint64_t omega = book_here(a, VFTR_WAIT_LATE_RECEIVER, p, path, m.send_enter,
                                       cause_at, w->token, cause_at, true);

            if (cp_on(a) && cause)
                rc = cp_jump(a, p, cause, cause_at, now, path);
            if (rc == 0 && delays_on(a)) {
                if (dto && dfrom && m.dfrom)
                    rc = d_wait(a, VFTR_WAIT_LATE_RECEIVER, p, dpath(a, path), omega, w, dfrom,
                                dto, m.dfrom, m.dto, 0);
                else {
                    rc = d_plain_wait(p, dpath(a, path), omega);
                }
            }
        }
        cp_unref(a, cause);
        if (dto)
            d_unref(proc_at(a, cause_p), dto);
        if (dfrom)
            d_unref(proc_at(a, cause_p), dfrom);
        for (size_t i = 0; i < c->nsends; i++)
            if (a->msgs[c->sends[i]].recv_done)
                msg_free(a, c->sends[i]);
        c->nsends = 0;
        if (rc < 0)
            return rc;
    }

    /* its receives synchronised it with their senders */
    if (delays_on(a) && c->nfrom) {
        struct dblock *b = d_cut(p, now, now, 0);

        if (!b)
            return -ENOMEM;
        for (size_t i = 0; i < c->nfrom; i++)
            d_set_p2p(p, proc_at(a, c->from[i])->token, d_ref(b));
        d_unref(p, b);
    }
    c->nfrom = 0;
    c->open = false;
    return 0;
}

/* Makes r's call p's current one (ending a call p left without its end
 * record: a trace cut short).  A message outside any MPI call (function
 * 0: OTF allows SendMsg/RecvMsg anywhere) makes a call of its own that
 * ends with the message (rec_send, rec_recv): there is no call to wait
 * in, but it is a message for the matching, the critical path and the
 * delays, and its receive synchronises the two processes there. */
static int use_call(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                    uint32_t path)
{
    struct mcall *c = &p->call;
    int rc;

    if (c->open && c->enter == r->enter && c->path == path && c->function == r->function)
        return 0;
    if (c->open && (rc = end_call(a, p, r->time, r->time)) < 0)
        return rc;
    c->open = true;
    c->enter = r->enter;
    c->function = r->function;
    c->path = path;
    c->cls = (uint8_t)vftr_syncdefs_fclass(&a->defs, r->function);
    c->ls_idle = 0;
    c->nfrom = c->nsends = 0;
    a->serial++;
    return 0;
}

/* May a send of call class cls of `bytes` wait for its receive? */
static bool lr_capable(const struct vftr_analysis *a, uint8_t cls, uint64_t bytes)
{
    return cls == VFTR_SYNC_F_MPI_SSEND ||
           ((cls == VFTR_SYNC_F_MPI_SEND || cls == VFTR_SYNC_F_MPI_SENDRECV) &&
            bytes >= a->o.rendezvous);
}

bool an_lr_capable(const struct vftr_analysis *a, const struct vftr_syncrec *r)
{
    return r->kind == VFTR_SYNC_SEND && r->function &&
           lr_capable(a, (uint8_t)vftr_syncdefs_fclass(&a->defs, r->function), r->bytes);
}

static int rec_send(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                    uint32_t path, uint32_t top)
{
    struct aproc *w = proc_of(a, r->peer);
    long mi;
    struct msg *m;
    int rc;

    if (!w)
        return -ENOMEM;
    p = &a->procs[pidx(a, p)];          /* proc_of may have moved the array */
    if ((rc = use_call(a, p, r, path)) < 0)
        return rc;
    a->nsend_mine += !p->foreign;
    if (w->foreign) {
        /* its receiver's rank matches it and judges its Late Receiver
         * (the send and its call's end are sent there: an_lr_capable) */
        return r->function ? 0 : end_call(a, p, r->t2, r->time);
    }
    if ((mi = msg_new(a)) < 0)
        return (int)mi;
    m = &a->msgs[mi];
    m->sender = pidx(a, p);
    m->receiver = pidx(a, w);
    m->send_t = r->t2;
    m->send_enter = r->function ? r->enter : r->t2;
    m->send_path = path;
    m->send_cls = p->call.cls;
    m->bytes = r->bytes;
    m->send_call = a->serial;
    if (cp_on(a))
        m->send_node = cp_freeze(a, p, m->send_enter, r->time, top == path ? path : 0);
    if (delays_on(a)) {
        m->dfrom = d_since(a, p, w);
        m->dto = d_cut(p, m->send_enter, r->time, top == path ? dpath(a, path) : 0);
        if (!m->dto)
            return -ENOMEM;
        d_set_p2p(p, w->token, d_ref(m->dto));
    }
    if (lr_capable(a, m->send_cls, r->bytes)) {
        struct mcall *c = &p->call;

        if (vftr_reserve((void **)&c->sends, &c->capsends, c->nsends, sizeof *c->sends) < 0)
            return -ENOMEM;
        c->sends[c->nsends++] = (uint32_t)mi;
        m->lr_wait = true;
    }
    a->match_hit = false;
    rc = vftr_messages_send_cookie(a->matcher, r->t2, r->process, r->peer, r->comm, r->tag,
                                   r->bytes, (uint64_t)mi + 1);
    if (rc < 0)
        return rc;
    if (a->match_hit) {
        long ri = proc_index(a, a->match_receiver);

        a->nmatch_mine += !w->foreign;
        /* its receive came first (a clock that disagrees): handled there */
        m = &a->msgs[mi];
        if (ri >= 0)        /* the receive's own process: the peer may name only the rank */
            m->receiver = (uint32_t)ri;
        m->matched = m->recv_done = true;
        if (m->lr_wait)
            m->lr_done = true;
        else
            msg_free(a, (uint32_t)mi);
    }
    /* a message outside any MPI call: a call of no time of its own */
    return r->function ? 0 : end_call(a, p, r->t2, r->time);
}

/* Late Sender, wrong order: this receive's message was sent before the
 * late messages of earlier Late Sender instances. */
static void wrong_order(struct vftr_analysis *a, struct aproc *p, uint64_t send_t)
{
    size_t keep = 0;

    /* messages mostly come in order: none of the ring sent later */
    if (p->ls_max <= send_t)
        return;
    p->ls_max = 0;
    for (size_t i = 0; i < p->nls; i++) {
        struct lsent e = p->ls[(p->headls + i) % LSWO_BUFFER];

        if (e.send_t > send_t) {
            book(a, VFTR_WAIT_LATE_SENDER_WO, p, e.path, e.start, e.start + e.idle, 0, 0);
        } else {
            p->ls[(p->headls + keep++) % LSWO_BUFFER] = e;
            if (e.send_t > p->ls_max)
                p->ls_max = e.send_t;
        }
    }
    p->nls = keep;
}

static int rec_recv(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                    uint32_t path)
{
    struct aproc *s = proc_of(a, r->peer);
    struct mcall *c;
    uint64_t idle = 0, cause_t = 0, send_t = 0;
    struct cpnode *node = NULL;
    struct dblock *dfrom = NULL, *dto = NULL;
    int rc;

    if (!s)
        return -ENOMEM;
    p = &a->procs[pidx(a, p)];
    if ((rc = use_call(a, p, r, path)) < 0)
        return rc;
    c = &p->call;
    a->match_hit = false;
    rc = vftr_messages_recv_cookie(a->matcher, r->t2, r->process, r->peer, r->comm, r->tag,
                                   r->bytes, 0);
    if (rc < 0)
        return rc;
    if (vftr_reserve((void **)&c->from, &c->capfrom, c->nfrom, sizeof *c->from) < 0)
        return -ENOMEM;
    /* the sender it synchronised with: the send's own process when matched
     * (the record may name only the sender's rank) */
    c->from[c->nfrom++] = a->match_hit && a->match_slot ? a->msgs[a->match_slot - 1].sender
                                                         : pidx(a, s);
    a->nrecv_mine += !p->foreign;
    if (a->match_hit && a->match_slot) {
        uint32_t mi = a->match_slot - 1;
        struct msg *m = &a->msgs[mi];

        a->nmatch_mine += !p->foreign;
        /* the receiver is the process that received it, which its send
         * may have named only by its rank (messages.h) */
        m->receiver = pidx(a, p);
        m->matched = m->recv_done = true;
        if (posts_blocking(c->cls) && p->in_recv && p->recv_enter == c->enter) {
            m->recv_blocking = true;
            m->recv_enter = c->enter;
            m->recv_node = p->recv_node ? cp_ref(p->recv_node) : NULL;
            m->recv_bound = p->recv_bound ? d_ref(p->recv_bound) : NULL;
            /* the interval the receiver's late posting is judged on ends
             * here: its synchronisation with the sender moves at its end */
            if (delays_on(a) && m->lr_wait && !m->lr_done)
                m->recv_from = d_since(a, p, proc_at(a, m->sender));
        }
        send_t = m->send_t;
        if (receiving(c->cls) && r->function) {
            uint64_t until = m->send_enter < r->t2 ? m->send_enter : r->t2;

            if (until > c->enter) {
                idle = until - c->enter;
                cause_t = until;
                node = m->send_node;
                dfrom = m->dfrom;
                dto = m->dto;
            }
        }
        wrong_order(a, p, send_t);
        if (idle > c->ls_idle) {
            ls_clear(a, c);
            c->ls_idle = idle;
            c->ls_cause_time = cause_t;
            c->ls_send_t = send_t;
            c->ls_sender = m->sender;
            c->ls_node = node ? cp_ref(node) : NULL;
            c->ls_dfrom = dfrom ? d_ref(dfrom) : NULL;
            c->ls_dto = dto ? d_ref(dto) : NULL;
        }
        if (!m->lr_wait || m->lr_done)
            msg_free(a, mi);
        return r->function ? 0 : end_call(a, p, r->t2, r->time);
    }
    /* no send yet: its send comes later (a clock that disagrees), so the
     * receive waited for it all the time up to its completion */
    a->sum.early_recvs += !p->foreign;
    if (receiving(c->cls) && r->function && r->t2 > c->enter && r->t2 - c->enter > c->ls_idle) {
        ls_clear(a, c);
        c->ls_idle = r->t2 - c->enter;
        c->ls_cause_time = r->t2;
        c->ls_send_t = r->t2;
        c->ls_sender = pidx(a, s);
        if (cp_on(a) && s->begun)
            c->ls_node = cp_freeze(a, s, r->time, r->time, 0);
    }
    return r->function ? 0 : end_call(a, p, r->t2, r->time);
}

/* ------------------------------------------------------------ collectives */

static struct ccomm *comm_of(struct vftr_analysis *a, uint32_t token)
{
    long i = vftr_u64map_get(&a->commmap, token);
    const struct vftr_syncdefs_comm *d;
    struct ccomm *c;

    if (i >= 0)
        return &a->comms[i];
    d = vftr_syncdefs_comm(&a->defs, token);
    if (!d || d->n == 0)
        return NULL;
    if (vftr_reserve((void **)&a->comms, &a->capcomms, a->ncomms, sizeof *a->comms) < 0)
        return NULL;
    c = &a->comms[a->ncomms];
    *c = (struct ccomm){ .token = token };
    c->members = malloc(d->n * sizeof *c->members);
    c->count = calloc(d->n, sizeof *c->count);
    if (!c->members || !c->count)
        goto fail;
    /* members as rank processes; a member named twice counts once */
    for (uint32_t k = 0; k < d->n; k++) {
        const struct vftr_syncdefs_proc *dp = vftr_syncdefs_proc(&a->defs, d->procs[k]);
        uint32_t rp = dp ? dp->rankproc : d->procs[k];

        if (vftr_u64map_get(&c->idx, rp) >= 0)
            continue;
        if (vftr_u64map_put(&c->idx, rp, c->n) < 0)
            goto fail;
        c->members[c->n++] = rp;
    }
    if (vftr_u64map_put(&a->commmap, token, (uint32_t)a->ncomms) < 0)
        goto fail;
    a->ncomms++;
    return c;
fail:
    free(c->members);
    free(c->count);
    vftr_u64map_release(&c->idx);
    return NULL;
}

/* Does this analysis count c's instances (its first member is not
 * another rank's: in a distributed analysis each is counted once)? */
static bool comm_mine(struct vftr_analysis *a, const struct ccomm *c)
{
    long i;

    if (!a->distributed || c->n == 0)
        return true;
    i = proc_index(a, c->members[0]);
    return i < 0 || !a->procs[i].foreign;
}

bool an_comm_has(struct vftr_analysis *a, uint32_t comm, uint32_t rankproc)
{
    struct ccomm *c = comm_of(a, comm);

    return c && vftr_u64map_get(&c->idx, rankproc) >= 0;
}

static void member_release(struct vftr_analysis *a, struct cmember *m)
{
    if (m->state == 0)
        return;
    cp_unref(a, m->node);
    d_unref(proc_at(a, m->proc), m->dfrom);
    d_unref(proc_at(a, m->proc), m->dto);
    m->node = NULL;
    m->dfrom = m->dto = NULL;
}

static void inst_release(struct vftr_analysis *a, struct ccomm *c, struct cinst *in)
{
    if (!in->m)
        return;
    for (uint32_t i = 0; i < c->n; i++)
        member_release(a, &in->m[i]);
    free(in->m);
    in->m = NULL;
}

/* Instance k of c, made when new; NULL if k is no longer open or ENOMEM. */
static struct cinst *inst_of(struct vftr_analysis *a, struct ccomm *c, uint64_t k)
{
    if (k < c->k0)
        return NULL;
    while (k >= c->k0 + c->nopen) {
        if (c->nopen == MAX_OPEN_COLLS) {       /* give the oldest up */
            inst_release(a, c, &c->open[0]);
            memmove(c->open, c->open + 1, (c->nopen - 1) * sizeof *c->open);
            c->nopen--;
            c->k0++;
            a->sum.incomplete_colls += comm_mine(a, c);
            continue;
        }
        if (vftr_reserve((void **)&c->open, &c->capopen, c->nopen, sizeof *c->open) < 0)
            return NULL;
        c->open[c->nopen] = (struct cinst){ .k = c->k0 + c->nopen, .root = UINT32_MAX };
        c->nopen++;
    }
    struct cinst *in = &c->open[k - c->k0];
    if (!in->m && !(in->m = calloc(c->n, sizeof *in->m)))
        return NULL;
    return in;
}

/* Drops the finished instances at the front. */
static void inst_pop(struct vftr_analysis *a, struct ccomm *c)
{
    size_t n = 0;

    while (n < c->nopen && c->open[n].m && c->open[n].nended == c->n) {
        inst_release(a, c, &c->open[n]);
        n++;
    }
    if (n) {
        memmove(c->open, c->open + n, (c->nopen - n) * sizeof *c->open);
        c->nopen -= n;
        c->k0 += n;
    }
}

static int rec_coll_begin(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                          uint32_t path, uint32_t top)
{
    struct ccomm *c = comm_of(a, r->comm);
    long i;
    uint64_t k;
    struct cinst *in;
    struct cmember *m;
    uint64_t enter = r->function ? r->enter : r->t2;

    if (!c)
        return 0;
    p = &a->procs[pidx(a, p)];
    i = vftr_u64map_get(&c->idx, p->rankproc);
    if (i < 0)
        return 0;
    k = c->count[i]++;
    if (!(in = inst_of(a, c, k)))
        return 0;
    if (in->nbegun == 0) {
        const struct vftr_syncdefs_proc *rp = r->root ? vftr_syncdefs_proc(&a->defs, r->root) : NULL;
        long ri = r->root ? vftr_u64map_get(&c->idx, rp ? rp->rankproc : r->root) : -1;

        in->oclass = (uint8_t)vftr_syncdefs_oclass(&a->defs, r->op);
        in->root = ri < 0 ? UINT32_MAX : (uint32_t)ri;
    }
    m = &in->m[i];
    if (m->state != 0)
        return 0;                       /* cannot happen: k counts the member's begins */
    *m = (struct cmember){ .proc = pidx(a, p), .state = 1, .enter = enter, .path = path,
                           .blocking = vftr_syncdefs_fclass(&a->defs, r->function) ==
                                       VFTR_SYNC_F_MPI_COLL };
    in->nbegun++;
    if (cp_on(a))
        m->node = cp_freeze(a, p, enter, r->time, top == path ? path : 0);
    if (delays_on(a)) {
        m->dfrom = d_since_coll(p, c->token);
        m->dto = d_cut(p, enter, r->time, top == path ? dpath(a, path) : 0);
        if (!m->dto)
            return -ENOMEM;
    }
    if (vftr_reserve((void **)&p->oc, &p->capoc, p->noc, sizeof *p->oc) < 0)
        return -ENOMEM;
    p->oc[p->noc++] = (struct opencoll){ r->match, c->token, k };
    return 0;
}

/* The member whose enter ends member i's wait, by the instance's class
 * (UINT32_MAX: none, or no wait). */
static uint32_t coll_cause(const struct ccomm *c, const struct cinst *in, uint32_t i)
{
    uint32_t best = UINT32_MAX;

    switch (in->oclass) {
    case VFTR_SYNC_O_BARRIER:
    case VFTR_SYNC_O_NXN:
    case VFTR_SYNC_O_SCAN:
        for (uint32_t j = 0; j < (in->oclass == VFTR_SYNC_O_SCAN ? i + 1 : c->n); j++)
            if (in->m[j].state && (best == UINT32_MAX || in->m[j].enter > in->m[best].enter))
                best = j;
        return best;
    case VFTR_SYNC_O_1TON:
        return i != in->root && in->root != UINT32_MAX && in->m[in->root].state ? in->root
                                                                               : UINT32_MAX;
    case VFTR_SYNC_O_NTO1:
        if (i != in->root)
            return UINT32_MAX;
        for (uint32_t j = 0; j < c->n; j++)
            if (j != i && in->m[j].state &&
                (best == UINT32_MAX || in->m[j].enter < in->m[best].enter))
                best = j;
        return best;
    default:
        return UINT32_MAX;
    }
}

static const unsigned oclass_pattern[] = {
    [VFTR_SYNC_O_OTHER] = VFTR_WAIT_COUNT,
    [VFTR_SYNC_O_BARRIER] = VFTR_WAIT_BARRIER,
    [VFTR_SYNC_O_NXN] = VFTR_WAIT_NXN,
    [VFTR_SYNC_O_1TON] = VFTR_WAIT_LATE_BROADCAST,
    [VFTR_SYNC_O_NTO1] = VFTR_WAIT_EARLY_REDUCE,
    [VFTR_SYNC_O_SCAN] = VFTR_WAIT_EARLY_SCAN,
};

/* Completion times of a synchronising instance all of whose members ended. */
static void coll_completion(struct vftr_analysis *a, struct ccomm *c, struct cinst *in)
{
    uint64_t max_enter = 0, min_exit = UINT64_MAX, from;
    unsigned pattern = in->oclass == VFTR_SYNC_O_BARRIER ? VFTR_WAIT_BARRIER_COMPLETION
                                                         : VFTR_WAIT_NXN_COMPLETION;

    for (uint32_t j = 0; j < c->n; j++) {
        if (in->m[j].enter > max_enter)
            max_enter = in->m[j].enter;
        if (in->m[j].exit < min_exit)
            min_exit = in->m[j].exit;
    }
    from = min_exit > max_enter ? min_exit : max_enter;
    for (uint32_t j = 0; j < c->n; j++)
        if (in->m[j].blocking && in->m[j].exit > from)
            book(a, pattern, proc_at(a, in->m[j].proc), in->m[j].path, from, in->m[j].exit, 0, 0);
}

static int rec_coll_end(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r)
{
    struct ccomm *c = NULL;
    struct cinst *in;
    struct cmember *m;
    uint64_t k = 0;
    long i;
    size_t o;
    int rc = 0;

    for (o = 0; o < p->noc; o++)
        if (p->oc[o].match == r->match)
            break;
    if (o == p->noc)
        return 0;                       /* its begin was not taken */
    k = p->oc[o].k;
    c = comm_of(a, p->oc[o].comm);
    p->oc[o] = p->oc[--p->noc];
    if (!c || (i = vftr_u64map_get(&c->idx, p->rankproc)) < 0 || !(in = inst_of(a, c, k)))
        return 0;
    m = &in->m[i];
    if (m->state != 1)
        return 0;
    m->state = 2;
    m->exit = r->t2 > m->enter ? r->t2 : m->enter;
    in->nended++;
    if (m->blocking && oclass_pattern[in->oclass] != VFTR_WAIT_COUNT) {
        uint32_t j = coll_cause(c, in, (uint32_t)i);
        unsigned pattern = oclass_pattern[in->oclass];

        if (j != UINT32_MAX && in->m[j].enter > m->enter) {
            struct cmember *cm = &in->m[j];
            struct aproc *cause = proc_at(a, cm->proc);
            uint64_t until = cm->enter < m->exit ? cm->enter : m->exit;
            uint64_t omega = book(a, pattern, p, m->path, m->enter, until, cause->token,
                                  cm->enter);

            if (cp_on(a) && cm->node)
                rc = cp_jump(a, p, cm->node, until, r->time, m->path);
            if (rc == 0 && delays_on(a) && cm->dto && m->dto)
                rc = d_wait(a, pattern, p, dpath(a, m->path), omega, cause, cm->dfrom, cm->dto, m->dfrom,
                            m->dto, 0);
        }
    }
    if (rc == 0 && delays_on(a)) {
        struct dblock *b = d_cut(p, r->time, r->time, 0);

        if (!b)
            return -ENOMEM;
        d_set_coll(p, c->token, b);
    }
    if (in->nended == c->n) {
        if (in->oclass == VFTR_SYNC_O_BARRIER || in->oclass == VFTR_SYNC_O_NXN)
            coll_completion(a, c, in);
        inst_pop(a, c);
    }
    return rc;
}

/* ------------------------------------------------------------ MPI_Init, _Finalize */

static long rank_member(struct vftr_analysis *a, const struct aproc *p)
{
    return vftr_u64map_get(&a->rankidx, p->rankproc);
}

static int fin_begin(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                     uint32_t path, uint32_t top)
{
    long i = rank_member(a, p);
    struct cmember *m;

    if (i < 0 || !a->fin || a->fin[i].state)
        return 0;
    m = &a->fin[i];
    *m = (struct cmember){ .proc = pidx(a, p), .state = 1, .enter = r->enter, .path = path };
    if (cp_on(a))
        m->node = cp_freeze(a, p, r->enter, r->time, top == path ? path : 0);
    if (delays_on(a) && !(m->dto = d_cut(p, r->enter, r->time, top == path ? dpath(a, path) : 0)))
        return -ENOMEM;
    if (a->fin_begun == 0 || r->enter > a->fin_max) {
        a->fin_max = r->enter;
        a->fin_last = (uint32_t)i;
    }
    a->fin_begun++;
    return 0;
}

/*
 * p's end of MPI_Finalize (at x; or its last event inside it): its wait
 * for the last process to enter, as for a barrier over the ranks.  Nobody
 * leaves MPI_Finalize before all entered, so all have begun by now (if one
 * never does, a rank cut short, no wait is known).
 */
static int fin_end(struct vftr_analysis *a, struct aproc *p, uint64_t x, uint64_t now)
{
    long i = rank_member(a, p);
    struct cmember *w, *l;
    struct aproc *lp;
    uint64_t omega, until;
    int rc = 0;

    if (i < 0 || !a->fin || a->fin[i].state != 1)
        return 0;
    w = &a->fin[i];
    w->state = 2;
    w->exit = x;
    l = &a->fin[a->fin_last];
    if (a->fin_begun == a->nranks && w->enter < a->fin_max) {
        lp = proc_at(a, l->proc);
        until = a->fin_max < x ? a->fin_max : x;
        omega = book(a, VFTR_WAIT_FINALIZE, p, w->path, w->enter, until, lp->token, a->fin_max);
        if (cp_on(a) && l->node)
            rc = cp_jump(a, p, l->node, until, now, w->path);
        if (rc == 0 && delays_on(a) && l->dto && w->dto) {
            /* the interval: since the two last synchronised, up to their
             * entering MPI_Finalize (neither has synchronised since) */
            struct dblock *dfrom = d_since(a, lp, p), *wfrom = d_since(a, p, lp);

            rc = d_wait(a, VFTR_WAIT_FINALIZE, p, dpath(a, w->path), omega, lp, dfrom, l->dto,
                        wfrom, w->dto, 0);
            d_unref(lp, dfrom);
            d_unref(p, wfrom);
        }
    }
    if (++a->fin_ended == a->nranks)
        for (size_t j = 0; j < a->nranks; j++)
            member_release(a, &a->fin[j]);
    return rc;
}

static int init_end(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                    uint32_t path)
{
    long i = rank_member(a, p);
    uint64_t max_enter = 0, min_exit = UINT64_MAX, from;

    if (delays_on(a)) {
        struct dblock *b = d_cut(p, r->time, r->time, 0);

        if (!b)
            return -ENOMEM;
        d_set_coll(p, INIT_COMM, b);
    }
    if (i < 0 || !a->init || a->init[i].state)
        return 0;
    a->init[i] = (struct cmember){ .proc = pidx(a, p), .state = 2, .enter = r->enter,
                                   .exit = r->t2, .path = path };
    if (++a->init_ended < a->nranks)
        return 0;
    for (size_t j = 0; j < a->nranks; j++) {
        if (a->init[j].enter > max_enter)
            max_enter = a->init[j].enter;
        if (a->init[j].exit < min_exit)
            min_exit = a->init[j].exit;
    }
    from = min_exit > max_enter ? min_exit : max_enter;
    for (size_t j = 0; j < a->nranks; j++)
        if (a->init[j].exit > from)
            book(a, VFTR_WAIT_INIT_COMPLETION, proc_at(a, a->init[j].proc), a->init[j].path,
                 from, a->init[j].exit, 0, 0);
    return 0;
}

/* ------------------------------------------------------------ OpenMP */

static void team_unref(struct vftr_analysis *a, struct team *t)
{
    if (!t || --t->refs > 0)
        return;
    for (size_t i = 0; i < t->nbar; i++) {
        cp_unref(a, t->bar[i].max_node);
        if (t->bar[i].nbegun) {
            d_unref(proc_at(a, t->bar[i].max_proc), t->bar[i].max_from);
            d_unref(proc_at(a, t->bar[i].max_proc), t->bar[i].max_to);
        }
    }
    free(t->bar);
    cp_unref(a, t->fork_node);
    d_unref(proc_at(a, t->master), t->fork_from);
    d_unref(proc_at(a, t->master), t->fork_to);
    free(t);
}

static struct dblock *omp_since(struct aproc *p)
{
    struct dblock *b = p->omp_bound ? p->omp_bound : p->head;

    return b ? d_ref(b) : NULL;
}

static void omp_set(struct aproc *p, struct dblock *b)
{
    if (p->omp_bound)
        d_unref(p, p->omp_bound);
    p->omp_bound = b;
}

/*
 * Whether an "omp parallel" call of p is a worker's share of a region
 * rather than a fork: capture puts one around a worker's implicit task, at
 * the root of the worker's paths, named as the region (capture.md, "Names").
 * A fork is made inside a thread's code, never at its root; the process's
 * own thread forks from below main.
 */
static bool worker_share(struct vftr_analysis *a, struct aproc *p, uint32_t path)
{
    return pidx(a, p) != p->master && path > 0 && path <= a->npaths
           && a->paths[path - 1].parent == 0;
}

static int omp_parallel_begin(struct vftr_analysis *a, struct aproc *p,
                              const struct vftr_syncrec *r, uint32_t path, uint32_t top)
{
    struct aproc *mst = proc_at(a, p->master);
    struct team *t = calloc(1, sizeof *t);

    if (!t)
        return -ENOMEM;
    *t = (struct team){ .id = ++a->teams, .master = pidx(a, p), .fork = r->enter,
                        .fork_path = path, .refs = 1 };
    if (cp_on(a))
        t->fork_node = cp_freeze(a, p, r->enter, r->time, top == path ? path : 0);
    if (delays_on(a)) {
        t->fork_from = omp_since(p);
        if (!(t->fork_to = d_cut(p, r->enter, r->time, top == path ? dpath(a, path) : 0))) {
            team_unref(a, t);
            return -ENOMEM;
        }
        omp_set(p, d_ref(t->fork_to));  /* the fork synchronises it with the team */
    }
    if (p->npar < 8)
        p->par[p->npar] = t;
    else
        team_unref(a, t);               /* too deep: not followed */
    p->npar++;
    mst->nparallel++;
    mst->cur_team = mst->nparallel == 1 && p->npar <= 8 ? t : NULL;
    return 0;
}

static void omp_parallel_end(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r)
{
    struct aproc *mst = proc_at(a, p->master);
    struct team *t = p->npar > 0 && p->npar <= 8 ? p->par[p->npar - 1] : NULL;

    if (t) {
        t->ended = true;
        t->end = r->t2;
    }
    if (p->npar > 0)
        p->npar--;
    if (mst->nparallel > 0)
        mst->nparallel--;
    if (mst->cur_team == t || mst->nparallel == 0)
        mst->cur_team = NULL;
    team_unref(a, t);
}

static int omp_itask_begin(struct vftr_analysis *a, struct aproc *q, const struct vftr_syncrec *r)
{
    struct aproc *mst = proc_at(a, q->master);
    struct team *t = mst->nparallel == 1 ? mst->cur_team : NULL;
    int rc = 0;

    q->in_itask = true;
    q->omp_worker = true;
    q->in_barrier = false;
    q->barrier_k = 0;
    if (!t)
        return 0;
    q->team = t;
    t->refs++;
    t->members++;
    if (pidx(a, q) != t->master && q->idle_since < r->enter) {
        struct aproc *fp = proc_at(a, t->master);
        uint64_t omega = book(a, VFTR_WAIT_OMP_IDLE, q, t->fork_path, q->idle_since, r->enter,
                              fp->token, t->fork);

        busy_add(a, q->idle_path, -(int64_t)omega);
        if (cp_on(a) && t->fork_node && t->fork > q->idle_since)
            rc = cp_jump(a, q, t->fork_node, t->fork, r->time, 0);
        if (rc == 0 && delays_on(a) && t->fork_to) {
            struct dblock *wfrom = omp_since(q);

            rc = d_wait(a, VFTR_WAIT_OMP_IDLE, q, dpath(a, q->idle_path), omega, fp,
                        t->fork_from, t->fork_to, wfrom, NULL, r->time - q->idle_since);
            d_unref(q, wfrom);
        }
    }
    if (rc == 0 && delays_on(a) && pidx(a, q) != t->master) {
        struct dblock *b = d_cut(q, r->time, r->time, 0);   /* joined the team */

        if (!b)
            return -ENOMEM;
        omp_set(q, b);
    }
    return rc;
}

/*
 * The end of q's implicit task.  libomp keeps a worker in the implicit
 * barrier at the end of a region until it forks the next one (the end of
 * its last task comes at shutdown): the worker's time there after its
 * team's region ended is idle time, on the barrier's call path.
 */
static void omp_itask_end(struct vftr_analysis *a, struct aproc *q, const struct vftr_syncrec *r)
{
    struct team *t = q->team;

    q->in_itask = false;
    q->idle_since = r->t2;
    q->idle_path = 0;
    if (t && t->ended && t->end < r->t2 && pidx(a, q) != t->master) {
        q->idle_since = t->end;
        q->idle_path = q->barrier_exit > t->end ? q->barrier_path : 0;
    }
    if (q->in_barrier) {
        d_unref(q, q->bar_from);
        d_unref(q, q->bar_to);
        q->bar_from = q->bar_to = NULL;
        q->in_barrier = false;
    }
    team_unref(a, q->team);
    q->team = NULL;
}

/* Barrier k of team t, made when new; NULL when it is over or ENOMEM. */
static struct binst *team_bar(struct team *t, uint64_t k, bool make)
{
    if (k < t->k0)
        return NULL;
    while (make && k >= t->k0 + t->nbar) {
        if (vftr_reserve((void **)&t->bar, &t->capbar, t->nbar, sizeof *t->bar) < 0)
            return NULL;
        t->bar[t->nbar] = (struct binst){ .k = t->k0 + t->nbar };
        t->nbar++;
    }
    return k < t->k0 + t->nbar ? &t->bar[k - t->k0] : NULL;
}

static int omp_barrier_begin(struct vftr_analysis *a, struct aproc *q,
                             const struct vftr_syncrec *r, uint32_t path, uint32_t top)
{
    struct team *t = q->team;
    struct binst *bi;
    struct cpnode *node = NULL;

    if (!t || !q->in_itask)
        return 0;
    if (!(bi = team_bar(t, q->barrier_k++, true)))
        return -ENOMEM;
    q->in_barrier = true;
    q->barrier_enter = r->enter;
    q->barrier_path = path;
    if (cp_on(a))
        node = cp_freeze(a, q, r->enter, r->time, top == path ? path : 0);
    if (delays_on(a)) {
        q->bar_from = omp_since(q);
        if (!(q->bar_to = d_cut(q, r->enter, r->time, top == path ? dpath(a, path) : 0)))
            return -ENOMEM;
    }
    bi->nbegun++;
    if (bi->nbegun == 1 || r->enter > bi->max_enter) {
        cp_unref(a, bi->max_node);
        if (bi->nbegun > 1) {
            d_unref(proc_at(a, bi->max_proc), bi->max_from);
            d_unref(proc_at(a, bi->max_proc), bi->max_to);
        }
        bi->max_enter = r->enter;
        bi->max_proc = pidx(a, q);
        bi->max_node = node;
        bi->max_from = q->bar_from ? d_ref(q->bar_from) : NULL;
        bi->max_to = q->bar_to ? d_ref(q->bar_to) : NULL;
    } else {
        cp_unref(a, node);
    }
    return 0;
}

static int omp_barrier_end(struct vftr_analysis *a, struct aproc *q, const struct vftr_syncrec *r,
                           enum vftr_sync_fclass cls)
{
    struct team *t = q->team;
    struct binst *bi;
    int rc = 0;

    if (!t || !q->in_barrier)
        return 0;
    q->in_barrier = false;
    q->barrier_exit = r->t2;
    bi = team_bar(t, q->barrier_k - 1, false);
    if (bi && bi->max_enter > q->barrier_enter) {
        unsigned pattern = cls == VFTR_SYNC_F_OMP_EBARRIER ? VFTR_WAIT_OMP_EBARRIER
                                                          : VFTR_WAIT_OMP_BARRIER;
        struct aproc *cause = proc_at(a, bi->max_proc);
        uint64_t until = bi->max_enter < r->t2 ? bi->max_enter : r->t2;
        uint64_t omega = book(a, pattern, q, q->barrier_path, q->barrier_enter, until,
                              cause->token, bi->max_enter);

        if (cp_on(a) && bi->max_node)
            rc = cp_jump(a, q, bi->max_node, until, r->time, q->barrier_path);
        if (rc == 0 && delays_on(a) && bi->max_to && q->bar_to)
            rc = d_wait(a, pattern, q, dpath(a, q->barrier_path), omega, cause, bi->max_from, bi->max_to,
                        q->bar_from, q->bar_to, 0);
    }
    d_unref(q, q->bar_from);
    d_unref(q, q->bar_to);
    q->bar_from = q->bar_to = NULL;
    if (rc == 0 && delays_on(a)) {
        struct dblock *b = d_cut(q, r->time, r->time, 0);

        if (!b)
            return -ENOMEM;
        omp_set(q, b);
    }
    if (bi && ++bi->nended >= t->members) {
        size_t n = 0;

        while (n < t->nbar && t->bar[n].nended >= t->members && t->bar[n].nbegun > 0) {
            cp_unref(a, t->bar[n].max_node);
            d_unref(proc_at(a, t->bar[n].max_proc), t->bar[n].max_from);
            d_unref(proc_at(a, t->bar[n].max_proc), t->bar[n].max_to);
            n++;
        }
        if (n) {
            memmove(t->bar, t->bar + n, (t->nbar - n) * sizeof *t->bar);
            t->nbar -= n;
            t->k0 += n;
        }
    }
    return rc;
}

/* The end of a lock, critical or ordered wait; the thread that released
 * one last is taken as the one waited for. */
static int omp_mutex_wait(struct vftr_analysis *a, struct aproc *q, const struct vftr_syncrec *r,
                          uint32_t path, enum vftr_sync_fclass cls)
{
    struct aproc *mst = proc_at(a, q->master);
    unsigned pattern = cls == VFTR_SYNC_F_OMP_CRITICAL_WAIT ? VFTR_WAIT_OMP_CRITICAL
                       : cls == VFTR_SYNC_F_OMP_LOCK_WAIT   ? VFTR_WAIT_OMP_LOCK
                                                            : VFTR_WAIT_OMP_ORDERED;
    bool caused = mst->have_release && mst->release_proc != pidx(a, q) &&
                  mst->release_t >= r->enter && mst->release_t <= r->t2;
    uint64_t omega = book(a, pattern, q, path, r->enter, r->t2,
                          caused ? proc_at(a, mst->release_proc)->token : 0,
                          caused ? mst->release_t : 0);
    int rc = 0;

    if (cp_on(a) && caused && mst->release_node)
        rc = cp_jump(a, q, mst->release_node, mst->release_t, r->time, path);
    if (rc == 0 && delays_on(a))
        rc = d_plain_wait(q, dpath(a, path), omega);
    return rc;
}

static void omp_mutex_release(struct vftr_analysis *a, struct aproc *q, const struct vftr_syncrec *r)
{
    struct aproc *mst = proc_at(a, q->master);

    mst->have_release = true;
    mst->release_t = r->t2;
    mst->release_proc = pidx(a, q);
    if (cp_on(a)) {
        cp_unref(a, mst->release_node);
        mst->release_node = cp_freeze(a, q, r->t2, r->time, 0);
    }
}

/* ------------------------------------------------------------ records */

static int rec_call_begin(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                          uint32_t path, uint32_t top)
{
    enum vftr_sync_fclass c = vftr_syncdefs_fclass(&a->defs, r->function);
    int rc;

    switch (c) {
    case VFTR_SYNC_F_MPI_RECV:
    case VFTR_SYNC_F_MPI_SENDRECV:
        if ((rc = use_call(a, p, r, path)) < 0)
            return rc;
        cp_unref(a, p->recv_node);
        d_unref(p, p->recv_bound);
        p->in_recv = true;
        p->recv_enter = r->enter;
        p->recv_node = cp_on(a) ? cp_freeze(a, p, r->enter, r->time, top == path ? path : 0)
                                : NULL;
        p->recv_bound = NULL;
        if (delays_on(a) && !(p->recv_bound = d_cut(p, r->enter, r->time, top == path ? dpath(a, path) : 0)))
            return -ENOMEM;
        return 0;
    case VFTR_SYNC_F_MPI_FINALIZE:
        return fin_begin(a, p, r, path, top);
    case VFTR_SYNC_F_OMP_PARALLEL:
        return worker_share(a, p, path) ? 0 : omp_parallel_begin(a, p, r, path, top);
    case VFTR_SYNC_F_OMP_ITASK:
        return omp_itask_begin(a, p, r);
    case VFTR_SYNC_F_OMP_IDLE:
        p->idle_path = path;
        p->omp_worker = true;
        return 0;
    case VFTR_SYNC_F_OMP_BARRIER:
    case VFTR_SYNC_F_OMP_EBARRIER:
        return omp_barrier_begin(a, p, r, path, top);
    default:
        return 0;
    }
}

static int rec_call_end(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                        uint32_t path)
{
    enum vftr_sync_fclass c = vftr_syncdefs_fclass(&a->defs, r->function);
    int rc = 0;

    if (vftr_sync_fclass_mpi(c)) {
        if (p->call.open && p->call.enter == r->enter && p->call.path == path)
            rc = end_call(a, p, r->t2, r->time);
        if (c == VFTR_SYNC_F_MPI_FINALIZE && rc == 0)
            rc = fin_end(a, p, r->t2, r->time);
        if (c == VFTR_SYNC_F_MPI_RECV || c == VFTR_SYNC_F_MPI_SENDRECV) {
            p->in_recv = false;
            cp_unref(a, p->recv_node);
            d_unref(p, p->recv_bound);
            p->recv_node = NULL;
            p->recv_bound = NULL;
        } else if (c == VFTR_SYNC_F_MPI_INIT && rc == 0) {
            rc = init_end(a, p, r, path);
        }
        return rc;
    }
    switch (c) {
    case VFTR_SYNC_F_OMP_PARALLEL:
        if (!worker_share(a, p, path))
            omp_parallel_end(a, p, r);
        return 0;
    case VFTR_SYNC_F_OMP_ITASK:
        omp_itask_end(a, p, r);
        return 0;
    case VFTR_SYNC_F_OMP_BARRIER:
    case VFTR_SYNC_F_OMP_EBARRIER:
        return omp_barrier_end(a, p, r, c);
    case VFTR_SYNC_F_OMP_CRITICAL_WAIT:
    case VFTR_SYNC_F_OMP_LOCK_WAIT:
    case VFTR_SYNC_F_OMP_ORDERED_WAIT:
        return omp_mutex_wait(a, p, r, path, c);
    case VFTR_SYNC_F_OMP_CRITICAL:
    case VFTR_SYNC_F_OMP_LOCK:
    case VFTR_SYNC_F_OMP_ORDERED:
        omp_mutex_release(a, p, r);
        return 0;
    default:
        return 0;
    }
}

static void rec_proc_begin(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r)
{
    struct aproc *mst = proc_at(a, p->master);

    p->first = r->t2;
    p->idle_since = p != mst && mst->begun ? mst->first : r->t2;
}

/* The end of p's events; a rank's own process ends its workers' idle
 * time (booked on its outermost call). */
static int rec_proc_end(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncrec *r,
                        uint32_t outer)
{
    const struct mcall *c = &p->call;
    int rc = 0;

    /* A blocking receive under way at the window's end whose message has
     * not come by then waits at least up to there (Late Sender: its send
     * is entered later).  Without the look-ahead (the critical path reads
     * no further) its end is never known: its time in the window is
     * waiting all the same, not busy time, as the waits' view (which reads
     * on) books it. */
    if (c->open && a->o.b != UINT64_MAX && receiving(c->cls) && c->nfrom == 0 &&
        c->ls_idle == 0) {
        uint64_t s = c->enter > a->o.a ? c->enter : a->o.a, e = r->t2 < a->o.b ? r->t2 : a->o.b;

        if (e > s && (rc = busy_add(a, c->path, -(int64_t)(e - s))) < 0)
            return rc;
    }
    if (p->call.open)
        rc = end_call(a, p, r->t2, r->time);
    if (rc == 0)
        rc = fin_end(a, p, r->t2, r->time);     /* its trace ends inside MPI_Finalize */
    p->ended = true;
    p->end = r->t2;
    p->end_top = outer;
    if (p->thread != 0 || p->master != pidx(a, p))
        return rc;
    for (size_t i = 0; i < a->nprocs; i++) {
        struct aproc *q = &a->procs[i];
        uint64_t since = q->idle_since;
        uint32_t on = q->idle_path;

        /* a thread that never took part in an OpenMP region (one the
         * program started itself) is no worker of OpenMP's: not idle */
        if (q->master != pidx(a, p) || q == p || !q->begun || !q->omp_worker)
            continue;
        if (q->in_itask) {          /* still in the last region's join barrier */
            if (!q->team || !q->team->ended || pidx(a, q) == q->team->master)
                continue;
            since = q->team->end;
            on = q->in_barrier ? q->barrier_path : 0;
        }
        if (since < p->end) {
            uint64_t omega = book(a, VFTR_WAIT_OMP_IDLE, q, outer, since, p->end, p->token,
                                  p->end);

            busy_add(a, on, -(int64_t)omega);
        }
    }
    return rc;
}

/* Refuses r: -EINVAL, with what was wrong for vftr_analysis_why. */
static int refuse(struct vftr_analysis *a, const struct vftr_syncrec *r, const char *what)
{
    snprintf(a->why, sizeof a->why,
             "%s: process %" PRIu32 " at tick %" PRIu64 " (kind %u, stream %u, path %" PRIu32
             ")", what, r->process, r->time, (unsigned)r->kind, (unsigned)r->stream, r->path);
    return -EINVAL;
}

int vftr_analysis_feed(void *arg, const struct vftr_syncrec *r)
{
    struct vftr_analysis *a = arg;
    struct aproc *p;
    uint32_t path, top;
    int rc = 0;

    if (a->finished)
        return refuse(a, r, "a record after the analysis's end");
    if (a->have_last && vftr_syncrec_cmp(r, &a->last) <= 0) {
        snprintf(a->why, sizeof a->why,
                 "sync records out of order: process %" PRIu32 " at tick %" PRIu64
                 " (its record %" PRIu64 ") after process %" PRIu32 " at tick %" PRIu64
                 " (its record %" PRIu64 ")", r->process, r->time, r->seq,
                 a->last.process, a->last.time, a->last.seq);
        return -EINVAL;
    }
    /* the order check and the finish need only these */
    a->last.time = r->time;
    a->last.process = r->process;
    a->last.seq = r->seq;
    a->have_last = true;
    if (!(p = proc_of(a, r->process)))
        return -ENOMEM;
    a->sum.records += !p->foreign;
    path = gpath(a, r->stream, r->path, &rc);
    top = gpath(a, r->stream, r->top, &rc);
    if (rc == -EINVAL)
        return refuse(a, r, "a call path its stream does not define");
    if (rc < 0)
        return rc;
    if (!p->begun) {
        p->begun = true;
        p->first = r->time;
        a->sum.nprocs += !p->foreign;
        if (cp_on(a) && (rc = cp_begin(a, p, r->time)) < 0)
            return rc;
        if (delays_on(a) && (rc = d_begin(a, p, r->time)) < 0)
            return rc;
    }
    if (r->nseg && (cp_on(a) || delays_on(a))) {
        uint32_t gp[64];

        for (uint32_t i = 0; i < r->nseg; i += 64) {
            uint32_t n = r->nseg - i < 64 ? r->nseg - i : 64;

            for (uint32_t k = 0; k < n; k++) {
                gp[k] = gpath(a, r->stream, r->seg[i + k].path, &rc);
                if (rc == 0)
                    rc = busy_add(a, gp[k], (int64_t)r->seg[i + k].ticks);
            }
            if (rc == 0 && cp_on(a))
                rc = cp_add(a, p, r->seg + i, n, gp);
            if (rc == 0 && delays_on(a)) {
                uint32_t dp[64];

                for (uint32_t k = 0; k < n; k++)
                    dp[k] = dpath(a, gp[k]);
                rc = d_add(p, r->seg + i, n, dp);
            }
            if (rc < 0)
                return rc;
        }
    }
    switch (r->kind) {
    case VFTR_SYNC_PROC_BEGIN:
        rec_proc_begin(a, p, r);
        return 0;
    case VFTR_SYNC_CALL_BEGIN:
        return rec_call_begin(a, p, r, path, top);
    case VFTR_SYNC_CALL_END:
        return rec_call_end(a, p, r, path);
    case VFTR_SYNC_SEND:
        return rec_send(a, p, r, path, top);
    case VFTR_SYNC_RECV:
        return rec_recv(a, p, r, path);
    case VFTR_SYNC_COLL_BEGIN:
        return rec_coll_begin(a, p, r, path, top);
    case VFTR_SYNC_COLL_END:
        return rec_coll_end(a, p, r);
    case VFTR_SYNC_PROC_END:
        return rec_proc_end(a, p, r, path);
    default:
        return refuse(a, r, "a record of an unknown kind");
    }
}

const char *vftr_analysis_why(const struct vftr_analysis *a)
{
    return a->why;
}

/* ------------------------------------------------------------ new, finish, free */

struct vftr_analysis *vftr_analysis_new(struct vftr_syncdefs *defs,
                                        const struct vftr_analysis_opts *opts)
{
    struct vftr_analysis *a = calloc(1, sizeof *a);

    if (!a) {
        errno = ENOMEM;
        return NULL;
    }
    a->defs = *defs;
    memset(defs, 0, sizeof *defs);
    a->o = *opts;
    if (a->o.b <= a->o.a)
        a->o.b = UINT64_MAX;
    if (!a->o.rendezvous)
        a->o.rendezvous = VFTR_ANALYSIS_RENDEZVOUS;
    if (a->o.what & VFTR_ANALYSIS_SEGMENTS)
        a->o.what |= VFTR_ANALYSIS_CRITPATH;
    a->matcher = vftr_messages_new(on_match, a);
    if (!a->matcher ||
        vftr_messages_set_ranks(a->matcher, a->defs.peer_ranks ? rank_of : NULL, a) < 0)
        goto fail;
    /* the defined processes first, in definition order: each knows its
     * rank's own process */
    for (size_t i = 0; i < a->defs.nprocs; i++) {
        const struct vftr_syncdefs_proc *dp = &a->defs.procs[i];
        struct aproc *p = proc_of(a, dp->token);

        if (!p)
            goto fail;
        p->rankproc = dp->rankproc;
        p->thread = dp->thread;
    }
    for (size_t i = 0; i < a->nprocs; i++) {
        struct aproc *p = &a->procs[i];
        long m = proc_index(a, p->rankproc);

        p->master = m >= 0 ? (uint32_t)m : (uint32_t)i;
    }
    /* the rank processes: MPI_Init and MPI_Finalize take all of them */
    a->ranks = malloc((a->nprocs ? a->nprocs : 1) * sizeof *a->ranks);
    if (!a->ranks)
        goto fail;
    for (size_t i = 0; i < a->nprocs; i++)
        if (a->procs[i].rankproc == a->procs[i].token) {
            if (vftr_u64map_put(&a->rankidx, a->procs[i].token, (uint32_t)a->nranks) < 0)
                goto fail;
            a->ranks[a->nranks++] = (uint32_t)i;
        }
    a->fin = calloc(a->nranks ? a->nranks : 1, sizeof *a->fin);
    a->init = calloc(a->nranks ? a->nranks : 1, sizeof *a->init);
    if (!a->fin || !a->init)
        goto fail;
    return a;
fail:
    vftr_analysis_free(a);
    errno = ENOMEM;
    return NULL;
}

const struct vftr_syncdefs *vftr_analysis_defs(const struct vftr_analysis *a)
{
    return &a->defs;
}

int vftr_analysis_finish(struct vftr_analysis *a)
{
    const struct vftr_msg_counts *k;
    int rc;

    if (a->finished)
        return -EINVAL;
    for (size_t i = 0; i < a->nprocs; i++)
        if (a->procs[i].call.open && (rc = end_call(a, &a->procs[i], a->procs[i].end,
                                                    a->last.time)) < 0)
            return rc;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct aproc *p = &a->procs[i];
        uint64_t s = p->first > a->o.a ? p->first : a->o.a;
        uint64_t e = (p->ended ? p->end : a->last.time) < a->o.b ? (p->ended ? p->end : a->last.time)
                                                                 : a->o.b;

        if (p->begun && !p->foreign && e > s)
            a->sum.proc_time += e - s;
    }
    vftr_messages_finish(a->matcher);
    k = vftr_messages_counts(a->matcher);
    a->sum.unmatched_sends = k->unmatched_sends;
    a->sum.unmatched_recvs = k->unmatched_recvs;
    if (a->distributed) {
        /* each message is matched on its receiver's rank; a rank's share
         * of the unmatched ones (sends and receives of its own processes
         * less the matches it made) may be negative: the sum over the
         * ranks is the count */
        a->sum.unmatched_sends = a->nsend_mine - a->nmatch_mine;    /* modulo 2^64: */
        a->sum.unmatched_recvs = a->nrecv_mine - a->nmatch_mine;    /* summed on rank 0 */
    }
    for (size_t i = 0; i < a->ncomms; i++)
        for (size_t j = 0; j < a->comms[i].nopen; j++)
            a->sum.incomplete_colls += a->comms[i].open[j].nbegun > 0 && comm_mine(a, &a->comms[i]);
    a->finished = true;
    if (cp_on(a) && (rc = cp_finish(a)) < 0)
        return rc;
    if (delays_on(a) && (rc = d_finish(a)) < 0)
        return rc;
    return 0;
}

void vftr_analysis_free(struct vftr_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nmsgs; i++)
        msg_free(a, (uint32_t)i);
    for (size_t i = 0; i < a->ncomms; i++) {
        struct ccomm *c = &a->comms[i];

        for (size_t j = 0; j < c->nopen; j++)
            inst_release(a, c, &c->open[j]);
        free(c->open);
        free(c->members);
        free(c->count);
        vftr_u64map_release(&c->idx);
    }
    free(a->comms);
    for (size_t j = 0; j < a->nranks; j++) {
        if (a->fin)
            member_release(a, &a->fin[j]);
        if (a->init)
            member_release(a, &a->init[j]);
    }
    for (size_t i = 0; i < a->nprocs; i++) {
        struct aproc *p = &a->procs[i];

        ls_clear(a, &p->call);
        free(p->call.from);
        free(p->call.sends);
        free(p->ls);
        free(p->oc);
        cp_unref(a, p->recv_node);
        d_unref(p, p->recv_bound);
        if (p->in_barrier) {
            d_unref(p, p->bar_from);
            d_unref(p, p->bar_to);
        }
        for (int k = 0; k < p->npar && k < 8; k++)
            team_unref(a, p->par[k]);
        team_unref(a, p->team);
        cp_unref(a, p->release_node);
    }
    for (size_t i = 0; i < a->nprocs; i++)
        d_release_proc(&a->procs[i]);
    cp_release(a);
    free(a->procs);
    free(a->ranks);
    free(a->fin);
    free(a->init);
    free(a->msgs);
    for (size_t s = 0; s < a->nstreams; s++)
        free(a->streams[s].map);
    free(a->streams);
    free(a->paths);
    free(a->canon);
    free(a->rows);
    for (int i = 0; i < VFTR_WAIT_COUNT; i++) {
        vftr_u64map_release(&a->rowmap[i]);
        vftr_tally_release(&a->dshort[i]);
        vftr_tally_release(&a->dlong[i]);
    }
    free(a->busy);
    free(a->cprows);
    free(a->segs);
    free(a->drows);
    vftr_u64map_release(&a->pathmap);
    vftr_u64map_release(&a->procmap);
    free(a->pdirect);
    vftr_u64map_release(&a->rankidx);
    vftr_u64map_release(&a->commmap);
    vftr_messages_free(a->matcher);
    vftr_syncdefs_release(&a->defs);
    free(a);
}

/* ------------------------------------------------------------ results */

const struct vftr_wait_row *vftr_analysis_waits(const struct vftr_analysis *a, size_t *n)
{
    *n = a->nrows;
    return a->rows;
}

const struct vftr_cp_row *vftr_analysis_critpath(const struct vftr_analysis *a, size_t *n)
{
    *n = a->ncprows;
    return a->cprows;
}

const struct vftr_cp_segment *vftr_analysis_segments(const struct vftr_analysis *a, size_t *n)
{
    *n = a->nsegs;
    return a->segs;
}

const struct vftr_delay_row *vftr_analysis_delays(const struct vftr_analysis *a, size_t *n)
{
    *n = a->ndrows;
    return a->drows;
}

const struct vftr_analysis_path *vftr_analysis_paths(const struct vftr_analysis *a, size_t *n)
{
    *n = a->npaths;
    return a->paths;
}

const struct vftr_analysis_summary *vftr_analysis_summary(const struct vftr_analysis *a)
{
    return &a->sum;
}

uint64_t vftr_analysis_busy(const struct vftr_analysis *a, uint32_t path)
{
    int64_t v = path < a->nbusy ? a->busy[path] : 0;

    return v > 0 ? (uint64_t)v : 0;
}

/* ------------------------------------------------------------ distributed */

int an_set_foreign(struct vftr_analysis *a, uint32_t token)
{
    struct aproc *p = proc_of(a, token);

    if (!p)
        return -ENOMEM;
    p->foreign = true;
    a->distributed = true;
    return 0;
}

int an_import(struct vftr_analysis *a, const struct vftr_wait_row *rows, size_t nrows,
              const struct vftr_analysis_path *paths, size_t npaths,
              const struct vftr_analysis_summary *sum)
{
    uint32_t *map = malloc((npaths + 1) * sizeof *map);
    int rc = 0;

    if (!map)
        return -ENOMEM;
    map[0] = 0;
    /* a parent comes before its children (ids are given parents first) */
    for (size_t i = 0; i < npaths && rc == 0; i++) {
        if (paths[i].parent > i)
            rc = -EBADMSG;
        else if (!(map[i + 1] = get_path(a, map[paths[i].parent], paths[i].function)))
            rc = -ENOMEM;
    }
    for (size_t i = 0; i < nrows && rc == 0; i++) {
        if (rows[i].path > npaths || rows[i].pattern >= VFTR_WAIT_COUNT)
            rc = -EBADMSG;
        else if (vftr_reserve((void **)&a->rows, &a->caprows, a->nrows, sizeof *a->rows) < 0)
            rc = -ENOMEM;
        else {
            a->rows[a->nrows] = rows[i];
            a->rows[a->nrows++].path = map[rows[i].path];
        }
    }
    free(map);
    if (rc < 0)
        return rc;
    a->sum.records += sum->records;
    a->sum.nprocs += sum->nprocs;
    a->sum.proc_time += sum->proc_time;
    a->sum.early_recvs += sum->early_recvs;
    a->sum.unmatched_sends += sum->unmatched_sends;
    a->sum.unmatched_recvs += sum->unmatched_recvs;
    a->sum.incomplete_colls += sum->incomplete_colls;
    return 0;
}
