/*
 * analysis_par.c — the wait analysis spread over the ranks of a parallel
 * job (analysis.h, vftr_analysis_run_par).  The first half of the analysis
 * (syncpt.h: each process's events replayed into sync records) is the one
 * that reads the trace and costs per event; it needs nothing of other
 * processes, so every rank makes it for a share of the processes (all
 * threads of a rank together, rank processes dealt out round-robin),
 * reading only those.
 *
 * The waits alone are then analysed where the processes are (run_dist,
 * "distributed" below).  The critical path and the delays (and the waits
 * when a rank refused a record) are merged on rank 0: ranks 1 .. size-1
 * as workers, rank 0 in a thread of its own (a worker whose messages go
 * through two short queues).  Rank 0 merges the canonical streams by the
 * canonical key and runs the second half (matching, the patterns, the
 * critical path, the delays) on the merged sequence: the sequence one
 * extractor over the whole trace gives, so the output is the serial one.
 *
 * The merge's protocol (the caller's transport carries opaque byte messages and keeps
 * a bounded number in flight, which keeps the workers close to rank 0's
 * merge point and bounds the memory):
 *   DATA  worker -> 0: the call paths the worker's extractor defined since
 *         its last message, then records (each with its segments);
 *   DONE  worker -> 0: its events are read; the latest end of its processes;
 *   GO    0 -> worker: the latest end over all workers, the order time of
 *         the records that finish the processes (syncx_finish_at);
 *   END   worker -> 0: those records (a DATA), the last message.
 * Rank 0 takes a message from a worker when it needs that worker's next
 * record.  A worker's finishing records come only after GO, so once a
 * worker is DONE with nothing queued rank 0 takes in the other workers'
 * remaining records (the trace's tail) until all are DONE, then sends GO.
 *
 * The message's framing travels in the host's byte order (the ranks of one
 * job share it), a worker rank's records as varints (put_rec), those of
 * rank 0's own thread as they are in memory (RAW).  A worker lets the
 * transport move its messages on while it makes records (poll).  An error
 * is told as the serial run tells it (vftr_analysis_errmsg).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_impl.h"
#include "grow.h"
#include "source.h"
#include "util/errmsg.h"
#include "util/proclist.h"

enum { TAG_DATA = 1, TAG_DONE, TAG_GO, TAG_END };

#define CHUNK (1u << 20)          /* bytes of records per message */

/*
 * How share k's records travel: rank 0's own share (k 0) hands them to
 * rank 0 as they are in memory, through its queue; the worker ranks as
 * varints (put_rec), a fifth of the bytes, for a transport that costs per
 * byte.  Encoding and decoding cost rank 0's merge more than anything else
 * it does, so the copy that crosses no process boundary skips them.
 */
#define RAW(k) ((k) == 0)

#define POLL_EVERY 2048           /* records between two transport polls (a power of 2) */

/* ------------------------------------------------------------ encoding */

struct wbuf {
    uint8_t *p;
    size_t len, cap;
};

static int put(struct wbuf *b, const void *v, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        uint8_t *q;

        while (cap < b->len + n)
            cap *= 2;
        if (!(q = realloc(b->p, cap)))
            return -ENOMEM;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, v, n);
    b->len += n;
    return 0;
}

#define PUT(b, v) put((b), &(v), sizeof(v))

struct rbuf {
    const uint8_t *p;
    size_t len, pos;
};

static int get(struct rbuf *b, void *v, size_t n)
{
    if (b->len - b->pos < n)
        return -EBADMSG;
    memcpy(v, b->p + b->pos, n);
    b->pos += n;
    return 0;
}

#define GET(b, v) get((b), &(v), sizeof(v))

/*
 * A record on the wire: most of its fields are 0 or small, and its time is
 * close to the one before it, so it goes as varints (7 bits a byte) behind
 * its kind and a mask of the fields that are not 0: about a fifth of its
 * size in memory.  Times: the record's as the difference to the previous
 * record's in the message, enter and t2 as their difference to the
 * record's own (zigzag: either sign).
 */
enum {
    F_ENTER = 1 << 0, F_T2 = 1 << 1, F_BYTES = 1 << 2, F_RECEIVED = 1 << 3, F_MATCH = 1 << 4,
    F_FUNCTION = 1 << 5, F_PATH = 1 << 6, F_TOP = 1 << 7, F_PEER = 1 << 8, F_COMM = 1 << 9,
    F_TAG = 1 << 10, F_OP = 1 << 11, F_ROOT = 1 << 12, F_NSEG = 1 << 13,
};

#define VARINT_MAX 10

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t zigzag(uint64_t a, uint64_t b)     /* a - b, either sign */
{
    int64_t d = (int64_t)(a - b);

    return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static inline uint64_t unzigzag(uint64_t base, uint64_t z)
{
    return base + (uint64_t)((int64_t)(z >> 1) ^ -(int64_t)(z & 1));
}

static int put_rec(struct wbuf *b, const struct vftr_syncrec *r, uint64_t *prev)
{
    size_t most = 3 + 17 * VARINT_MAX + (size_t)r->nseg * 2 * VARINT_MAX;
    unsigned mask = (r->enter != r->time ? F_ENTER : 0) | (r->t2 != r->time ? F_T2 : 0) |
                    (r->bytes ? F_BYTES : 0) | (r->received ? F_RECEIVED : 0) |
                    (r->match ? F_MATCH : 0) | (r->function ? F_FUNCTION : 0) |
                    (r->path ? F_PATH : 0) | (r->top ? F_TOP : 0) | (r->peer ? F_PEER : 0) |
                    (r->comm ? F_COMM : 0) | (r->tag ? F_TAG : 0) | (r->op ? F_OP : 0) |
                    (r->root ? F_ROOT : 0) | (r->nseg ? F_NSEG : 0);
    uint8_t *p;

    if (b->len + most > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        uint8_t *q;

        while (cap < b->len + most)
            cap *= 2;
        if (!(q = realloc(b->p, cap)))
            return -ENOMEM;
        b->p = q;
        b->cap = cap;
    }
    p = b->p + b->len;
    *p++ = (uint8_t)r->kind;
    *p++ = (uint8_t)mask;
    *p++ = (uint8_t)(mask >> 8);
    p = put_varint(p, zigzag(r->time, *prev));
    *prev = r->time;
    p = put_varint(p, r->seq);
    p = put_varint(p, r->process);
    if (mask & F_ENTER)
        p = put_varint(p, zigzag(r->enter, r->time));
    if (mask & F_T2)
        p = put_varint(p, zigzag(r->t2, r->time));
    if (mask & F_BYTES)
        p = put_varint(p, r->bytes);
    if (mask & F_RECEIVED)
        p = put_varint(p, r->received);
    if (mask & F_MATCH)
        p = put_varint(p, r->match);
    if (mask & F_FUNCTION)
        p = put_varint(p, r->function);
    if (mask & F_PATH)
        p = put_varint(p, r->path);
    if (mask & F_TOP)
        p = put_varint(p, r->top);
    if (mask & F_PEER)
        p = put_varint(p, r->peer);
    if (mask & F_COMM)
        p = put_varint(p, r->comm);
    if (mask & F_TAG)
        p = put_varint(p, r->tag);
    if (mask & F_OP)
        p = put_varint(p, r->op);
    if (mask & F_ROOT)
        p = put_varint(p, r->root);
    if (mask & F_NSEG)
        p = put_varint(p, r->nseg);
    for (uint32_t i = 0; i < r->nseg; i++) {
        p = put_varint(p, r->seg[i].path);
        p = put_varint(p, r->seg[i].ticks);
    }
    b->len = (size_t)(p - b->p);
    return 0;
}

/* A varint of at most `bits` bits.  0 or -EBADMSG.  Most are one byte. */
static int get_varint_slow(struct rbuf *b, uint64_t *v, unsigned bits);

static inline int get_varint(struct rbuf *b, uint64_t *v, unsigned bits)
{
    if (b->pos < b->len && b->p[b->pos] < 0x80) {
        *v = b->p[b->pos++];
        return 0;
    }
    return get_varint_slow(b, v, bits);
}

static int get_varint_slow(struct rbuf *b, uint64_t *v, unsigned bits)
{
    uint64_t x = 0;

    for (unsigned shift = 0; shift < 70; shift += 7) {
        uint8_t c;

        if (b->pos == b->len)
            return -EBADMSG;
        c = b->p[b->pos++];
        if (shift == 63 && c > 1)
            return -EBADMSG;
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            if (bits < 64 && x >> bits)
                return -EBADMSG;
            *v = x;
            return 0;
        }
    }
    return -EBADMSG;
}

static inline int get_u32(struct rbuf *b, uint32_t *v)
{
    uint64_t x = 0;
    int rc = get_varint(b, &x, 32);

    *v = (uint32_t)x;
    return rc;
}

/* One record (its segments to be read by the caller: r->nseg of them). */
static inline int get_rec(struct rbuf *b, struct vftr_syncrec *r, uint64_t *prev)
{
    uint64_t z;
    unsigned mask;
    int rc;

    if (b->len - b->pos < 3)
        return -EBADMSG;
    *r = (struct vftr_syncrec){ .kind = b->p[b->pos] };
    mask = b->p[b->pos + 1] | (unsigned)b->p[b->pos + 2] << 8;
    b->pos += 3;
    if ((rc = get_varint(b, &z, 64)) < 0)
        return rc;
    r->time = unzigzag(*prev, z);
    *prev = r->time;
    r->enter = r->t2 = r->time;
    if ((rc = get_varint(b, &r->seq, 64)) < 0 || (rc = get_u32(b, &r->process)) < 0)
        return rc;
    if ((mask & F_ENTER) && (rc = get_varint(b, &z, 64)) == 0)
        r->enter = unzigzag(r->time, z);
    if (rc == 0 && (mask & F_T2) && (rc = get_varint(b, &z, 64)) == 0)
        r->t2 = unzigzag(r->time, z);
    if (rc == 0 && (mask & F_BYTES))
        rc = get_varint(b, &r->bytes, 64);
    if (rc == 0 && (mask & F_RECEIVED))
        rc = get_varint(b, &r->received, 64);
    if (rc == 0 && (mask & F_MATCH))
        rc = get_varint(b, &r->match, 64);
    if (rc == 0 && (mask & F_FUNCTION))
        rc = get_u32(b, &r->function);
    if (rc == 0 && (mask & F_PATH))
        rc = get_u32(b, &r->path);
    if (rc == 0 && (mask & F_TOP))
        rc = get_u32(b, &r->top);
    if (rc == 0 && (mask & F_PEER))
        rc = get_u32(b, &r->peer);
    if (rc == 0 && (mask & F_COMM))
        rc = get_u32(b, &r->comm);
    if (rc == 0 && (mask & F_TAG))
        rc = get_u32(b, &r->tag);
    if (rc == 0 && (mask & F_OP))
        rc = get_u32(b, &r->op);
    if (rc == 0 && (mask & F_ROOT))
        rc = get_u32(b, &r->root);
    if (rc == 0 && (mask & F_NSEG))
        rc = get_u32(b, &r->nseg);
    return rc;
}

/* ------------------------------------------------------------ workers */

struct worker {
    const struct vftr_analysis_transport *t;
    struct vftr_syncx *x;
    bool raw;                     /* records as they are in memory (see RAW) */
    struct wbuf recs, segs;       /* segs: raw only */
    uint32_t nrec, nseg;
    uint32_t paths_sent;          /* the extractor's paths 1..paths_sent went out */
    uint64_t prev;                /* the time of the last record put in recs */
    struct wbuf msg;
};

/* Sends what is gathered, with the paths defined since the last message. */
static int ship(struct worker *w, int tag)
{
    uint32_t first = w->paths_sent + 1, n = 0, parent, function;
    int rc;

    w->msg.len = 0;
    while (vftr_syncx_pathdef(w->x, first + n, &parent, &function) == 0)
        n++;
    rc = PUT(&w->msg, first);
    if (rc == 0)
        rc = PUT(&w->msg, n);
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        vftr_syncx_pathdef(w->x, first + i, &parent, &function);
        rc = PUT(&w->msg, parent);
        if (rc == 0)
            rc = PUT(&w->msg, function);
    }
    if (rc == 0)
        rc = PUT(&w->msg, w->nrec);
    if (rc == 0 && w->raw)
        rc = PUT(&w->msg, w->nseg);
    if (rc == 0 && w->recs.len)
        rc = put(&w->msg, w->recs.p, w->recs.len);
    if (rc == 0 && w->segs.len)
        rc = put(&w->msg, w->segs.p, w->segs.len);
    if (rc == 0)
        rc = w->t->send(w->t->ctx, 0, tag, w->msg.p, w->msg.len);
    w->paths_sent += n;
    w->recs.len = w->segs.len = 0;
    w->prev = 0;
    w->nrec = w->nseg = 0;
    return rc;
}

static int worker_emit(void *arg, const struct vftr_syncrec *r)
{
    struct worker *w = arg;
    int rc;

    if (w->raw) {
        struct vftr_syncrec c = *r;

        c.seg = NULL;           /* the segments follow the records */
        rc = PUT(&w->recs, c);
        if (rc == 0 && r->nseg)
            rc = put(&w->segs, r->seg, r->nseg * sizeof *r->seg);
        w->nseg += r->nseg;
    } else {
        rc = put_rec(&w->recs, r, &w->prev);
    }
    if (rc == 0)
        w->nrec++;
    if (rc == 0 && w->recs.len + w->segs.len >= CHUNK)
        rc = ship(w, TAG_DATA);
    /* what is in flight moves on while this worker makes records, not
     * only when it sends the next message: rank 0 waits for it */
    else if (rc == 0 && w->t->poll && (w->nrec & (POLL_EVERY - 1)) == 0)
        rc = w->t->poll(w->t->ctx);
    return rc;
}

/* The processes of share k (0..nw - 1): the rank processes in token order
 * dealt out round-robin, each with its threads. */
static int share(const struct vftr_source *s, int k, int nw, struct vftr_proclist *pl,
                 size_t *count)
{
    size_t n, nrank = 0;
    const struct vftr_source_proc *p = vftr_source_procs(s, &n);
    uint32_t *ranks = malloc((n ? n : 1) * sizeof *ranks);
    int rc = 0;

    *count = 0;
    if (!ranks)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        uint32_t rp = vftr_source_rank_process((void *)s, p[i].token);

        if (rp == p[i].token)
            ranks[nrank++] = rp;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint32_t rp = vftr_source_rank_process((void *)s, p[i].token);
        size_t j = 0;

        while (j < nrank && ranks[j] != rp)
            j++;
        /* a process whose rank process is not defined goes by its own index */
        if ((j < nrank ? j : nrank + i) % (size_t)nw == (size_t)k) {
            rc = vftr_proclist_add(pl, p[i].token, p[i].token);
            (*count)++;
        }
    }
    free(ranks);
    return rc;
}

/* Extracts share k of nshares as stream k + 1 and sends it to rank 0
 * through t (a worker rank's MPI, or rank 0's own thread's queue). */
static int run_worker(struct vftr_source *s, const struct vftr_analysis_opts *opts,
                      const struct vftr_analysis_transport *t, int k, int nshares, char *err,
                      size_t errlen)
{
    struct vftr_syncdefs defs = VFTR_SYNCDEFS_INIT;
    struct vftr_syncsort *sort = NULL;
    struct worker w = { .t = t, .raw = RAW(k) };
    struct vftr_proclist pl;
    struct vftr_window_stats st = { 0 };
    uint64_t b = opts->b > opts->a ? opts->b : UINT64_MAX, last, go = 0;
    int lookahead = b != UINT64_MAX &&
                    !(opts->what & (VFTR_ANALYSIS_CRITPATH | VFTR_ANALYSIS_SEGMENTS));
    size_t mine = 0, len = 0;
    void *reply = NULL;
    int rc, tag = 0;

    vftr_proclist_init(&pl);
    if ((rc = vftr_syncdefs_from_source(&defs, s)) < 0 ||
        (rc = share(s, k, nshares, &pl, &mine)) < 0 ||
        !(sort = vftr_syncsort_new(worker_emit, &w))) {
        rc = -ENOMEM;
        goto fail;
    }
    struct vftr_syncx_opts xo = {
        opts->a, b, (opts->what & (VFTR_ANALYSIS_CRITPATH | VFTR_ANALYSIS_DELAYS |
                                   VFTR_ANALYSIS_SEGMENTS)) != 0,
        lookahead, (uint16_t)(k + 1), vftr_syncsort_push, sort,
    };
    if (!(w.x = vftr_syncx_new(&defs, &xo))) {
        rc = -ENOMEM;
        goto fail;
    }
    if (mine) {
        rc = vftr_source_read(s, 0, lookahead ? UINT64_MAX : b, &pl, VFTR_SOURCE_EVENTS_ONLY,
                              vftr_syncx_handler(w.x), &st, err, errlen);
        if (rc == VFTR_SYNCX_DONE)
            rc = 0;
        if (rc > 0)
            rc = -EIO;
        if (rc < 0)
            goto fail;
    }
    /* what the sorter holds has the latest time read: it may sort among the
     * finishing records, so it stays until they come */
    last = vftr_syncx_last(w.x);
    if ((rc = ship(&w, TAG_DATA)) < 0 ||
        (rc = t->send(t->ctx, 0, TAG_DONE, &last, sizeof last)) < 0 ||
        (rc = t->recv(t->ctx, 0, &tag, &reply, &len)) < 0)
        goto fail;
    if (tag != TAG_GO || len != sizeof go) {
        rc = -EPROTO;
        goto fail;
    }
    memcpy(&go, reply, sizeof go);
    if ((rc = vftr_syncx_finish_at(w.x, go)) < 0 || (rc = vftr_syncsort_flush(sort)) < 0 ||
        (rc = ship(&w, TAG_END)) < 0)
        goto fail;
    goto out;
fail:
    if (err && errlen && !err[0])
        vftr_errmsg(err, errlen, rc, "rank %d: %s", t->rank,
                    rc == -ENOMEM ? "out of memory" : strerror(-rc));
out:
    free(reply);
    free(w.recs.p);
    free(w.segs.p);
    free(w.msg.p);
    vftr_syncx_free(w.x);
    vftr_syncsort_free(sort);
    vftr_syncdefs_release(&defs);
    vftr_proclist_release(&pl);
    return rc;
}

/* ------------------------------------------------------------ rank 0's share */

/*
 * Rank 0 extracts a share too, in a thread of its own (it calls no MPI):
 * a worker like the others, whose messages go through two short queues
 * instead of MPI.  Either side that fails closes them, so that the other
 * one's waits end.
 */
#define LOCAL_WINDOW 16

struct lqueue {
    struct lmsg {
        int tag;
        void *msg;
        size_t len;
    } v[LOCAL_WINDOW];
    int head, n;
};

struct local {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct lqueue up, down;           /* thread -> rank 0, rank 0 -> thread */
    bool closed;
    struct lend {
        struct local *l;
        bool root;
    } thread_end, root_end;
    struct vftr_analysis_transport wt, rt;   /* the thread's side, rank 0's */
    struct vftr_source *s;
    const struct vftr_analysis_opts *opts;
    int nshares, rc;
    char err[512];
};

static int lsend(void *ctx, int to, int tag, const void *msg, size_t len)
{
    struct lend *e = ctx;
    struct local *l = e->l;
    struct lqueue *q = e->root ? &l->down : &l->up;
    void *copy = malloc(len ? len : 1);

    (void)to;
    if (!copy)
        return -ENOMEM;
    memcpy(copy, msg, len);
    pthread_mutex_lock(&l->mu);
    while (!l->closed && q->n == LOCAL_WINDOW)
        pthread_cond_wait(&l->cv, &l->mu);
    if (l->closed) {
        pthread_mutex_unlock(&l->mu);
        free(copy);
        return -EPIPE;
    }
    q->v[(q->head + q->n) % LOCAL_WINDOW] = (struct lmsg){ tag, copy, len };
    q->n++;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    return 0;
}

static int lrecv(void *ctx, int from, int *tag, void **msg, size_t *len)
{
    struct lend *e = ctx;
    struct local *l = e->l;
    struct lqueue *q = e->root ? &l->up : &l->down;

    (void)from;
    pthread_mutex_lock(&l->mu);
    while (!l->closed && q->n == 0)
        pthread_cond_wait(&l->cv, &l->mu);
    if (q->n == 0) {
        pthread_mutex_unlock(&l->mu);
        return -EPIPE;
    }
    *tag = q->v[q->head].tag;
    *msg = q->v[q->head].msg;
    *len = q->v[q->head].len;
    q->head = (q->head + 1) % LOCAL_WINDOW;
    q->n--;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    return 0;
}

static void local_close(struct local *l)
{
    pthread_mutex_lock(&l->mu);
    l->closed = true;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

static void *local_main(void *arg)
{
    struct local *l = arg;

    l->rc = run_worker(l->s, l->opts, &l->wt, 0, l->nshares, l->err, sizeof l->err);
    if (l->rc < 0)
        local_close(l);
    return NULL;
}

static void local_release(struct local *l)
{
    for (int d = 0; d < 2; d++) {
        struct lqueue *q = d ? &l->down : &l->up;

        for (int i = 0; i < q->n; i++)
            free(q->v[(q->head + i) % LOCAL_WINDOW].msg);
        q->n = 0;
    }
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
}

/* ------------------------------------------------------------ rank 0 */

enum { S_ACTIVE, S_DONE, S_GO, S_ENDED };

struct rstream {
    uint32_t *ppar, *pfun;        /* the worker's paths: local id - 1 */
    size_t npaths, cappar, capfun;
    struct vftr_syncrec *q;       /* records queued, from qhead */
    size_t *segoff;               /* their segments' offsets in segs */
    size_t qn, qhead, qcap;
    struct vftr_syncseg *segs;
    size_t nsegs, capsegs;
    int state;
    uint64_t last;
};

static int stream_pathdef(void *arg, uint32_t local, uint32_t *parent, uint32_t *function)
{
    const struct rstream *s = arg;

    if (local == 0 || local > s->npaths)
        return -ENOENT;
    *parent = s->ppar[local - 1];
    *function = s->pfun[local - 1];
    return 0;
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 64;
    void *n;

    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    if (!(n = realloc(*v, c * size)))
        return -ENOMEM;
    *v = n;
    *cap = c;
    return 0;
}


/* Room for n more records in s: the queue and its segment offsets, which
 * grow together.  0, or -ENOMEM (s is then only fit to be freed). */
static int reserve_records(struct rstream *s, size_t n)
{
    size_t cap = s->qcap;
    int rc;

    if ((rc = grow((void **)&s->q, &s->qcap, s->qn + n, sizeof *s->q)) < 0)
        return rc;
    if (s->qcap != cap) {
        size_t *o = realloc(s->segoff, s->qcap * sizeof *o);

        if (!o)
            return -ENOMEM;
        s->segoff = o;
    }
    return 0;
}
/* The records of a raw message (after its count nrec): the segment
 * count, the records, their segments.  Only the pointers are the
 * receiver's own; the rest is checked by the analysis as for any record. */
static int decode_raw(struct rstream *s, struct rbuf *b, uint32_t nrec)
{
    uint32_t nseg;
    size_t at;
    int rc;

    if ((rc = GET(b, nseg)) < 0)
        return rc;
    if ((b->len - b->pos) / sizeof *s->q < nrec ||
        b->len - b->pos - (size_t)nrec * sizeof *s->q != (size_t)nseg * sizeof *s->segs)
        return -EBADMSG;
    if ((rc = reserve_records(s, nrec)) < 0)
        return rc;
    if ((rc = grow((void **)&s->segs, &s->capsegs, s->nsegs + nseg, sizeof *s->segs)) < 0)
        return rc;
    memcpy(s->q + s->qn, b->p + b->pos, (size_t)nrec * sizeof *s->q);
    b->pos += (size_t)nrec * sizeof *s->q;
    if (nseg)
        memcpy(s->segs + s->nsegs, b->p + b->pos, (size_t)nseg * sizeof *s->segs);
    b->pos += (size_t)nseg * sizeof *s->segs;
    at = s->nsegs;
    for (uint32_t i = 0; i < nrec; i++) {
        s->q[s->qn + i].seg = NULL;
        if (s->q[s->qn + i].nseg > s->nsegs + nseg - at)
            return -EBADMSG;
        s->segoff[s->qn + i] = at;
        at += s->q[s->qn + i].nseg;
    }
    if (at != s->nsegs + nseg)
        return -EBADMSG;
    s->qn += nrec;
    s->nsegs += nseg;
    return 0;
}

/* Appends a DATA/END message's paths and records to stream s (raw: the
 * records as they are in memory, see RAW). */
static int decode(struct rstream *s, const void *msg, size_t len, bool raw)
{
    struct rbuf b = { msg, len, 0 };
    uint32_t first, n, nrec;
    uint64_t prev = 0;
    int rc;

    if (s->qhead == s->qn)              /* all taken: start over */
        s->qhead = s->qn = s->nsegs = 0;
    if ((rc = GET(&b, first)) < 0 || (rc = GET(&b, n)) < 0)
        return rc;
    if (first != s->npaths + 1)
        return -EBADMSG;
    if ((rc = grow((void **)&s->ppar, &s->cappar, s->npaths + n, sizeof *s->ppar)) < 0 ||
        (rc = grow((void **)&s->pfun, &s->capfun, s->npaths + n, sizeof *s->pfun)) < 0)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = GET(&b, s->ppar[s->npaths])) < 0 || (rc = GET(&b, s->pfun[s->npaths])) < 0)
            return rc;
        s->npaths++;
    }
    if ((rc = GET(&b, nrec)) < 0)
        return rc;
    if (raw)
        return decode_raw(s, &b, nrec);
    for (uint32_t i = 0; i < nrec; i++) {
        struct vftr_syncrec *r;

        if ((rc = reserve_records(s, 1)) < 0)
            return rc;
        r = &s->q[s->qn];
        if ((rc = get_rec(&b, r, &prev)) < 0)
            return rc;
        if (r->nseg > (b.len - b.pos) / 2)
            return -EBADMSG;
        if ((rc = grow((void **)&s->segs, &s->capsegs, s->nsegs + r->nseg, sizeof *s->segs)) < 0)
            return rc;
        s->segoff[s->qn] = s->nsegs;
        for (uint32_t j = 0; j < r->nseg; j++) {
            if ((rc = get_u32(&b, &s->segs[s->nsegs].path)) < 0 ||
                (rc = get_varint(&b, &s->segs[s->nsegs].ticks, 64)) < 0)
                return rc;
            s->nsegs++;
        }
        s->qn++;
    }
    return b.pos == b.len ? 0 : -EBADMSG;
}

/* Takes worker k's next message into s. */
static int take(const struct vftr_analysis_transport *t, int k, struct rstream *s, bool raw)
{
    void *msg = NULL;
    size_t len = 0;
    int tag = 0, rc = t->recv(t->ctx, k, &tag, &msg, &len);

    if (rc < 0)
        return rc;
    switch (tag) {
    case TAG_DATA:
    case TAG_END:
        if (s->state != (tag == TAG_DATA ? S_ACTIVE : S_GO))
            rc = -EPROTO;
        else if ((rc = decode(s, msg, len, raw)) == 0 && tag == TAG_END)
            s->state = S_ENDED;
        break;
    case TAG_DONE:
        if (s->state != S_ACTIVE || len != sizeof s->last)
            rc = -EPROTO;
        else {
            memcpy(&s->last, msg, sizeof s->last);
            s->state = S_DONE;
        }
        break;
    default:
        rc = -EPROTO;
    }
    free(msg);
    return rc;
}

/* Stream k's transport and peer: rank 0's own thread for 0, worker rank k
 * for the others. */
#define VIA(k) ((k) == 0 ? lt : t), ((k) == 0 ? 0 : (k))
#define TAKE(k) take(VIA(k), &s[k], RAW(k))

static int run_root(struct vftr_analysis *a, const struct vftr_analysis_transport *t,
                    const struct vftr_analysis_transport *lt)
{
    int nw = t->size, rc = 0;
    struct rstream *s = calloc((size_t)nw, sizeof *s);

    if (!s)
        return -ENOMEM;
    for (int k = 0; k < nw && rc == 0; k++)
        rc = vftr_analysis_add_stream(a, (uint16_t)(k + 1), stream_pathdef, &s[k]);
    while (rc == 0) {
        int best = -1, stuck = 0;

        /* every worker with nothing queued gives its next message */
        for (int k = 0; k < nw && rc == 0; k++)
            while (rc == 0 && s[k].qhead == s[k].qn && s[k].state == S_ACTIVE)
                rc = TAKE(k);
        for (int k = 0; k < nw; k++)
            if (s[k].qhead == s[k].qn && s[k].state == S_DONE)
                stuck = 1;
        if (rc == 0 && stuck) {
            /* its next records wait for the latest end: take in every
             * worker's rest, then say it */
            uint64_t last = 0;

            for (int k = 0; k < nw && rc == 0; k++)
                while (rc == 0 && s[k].state == S_ACTIVE)
                    rc = TAKE(k);
            for (int k = 0; k < nw; k++)
                if (s[k].last > last)
                    last = s[k].last;
            for (int k = 0; k < nw && rc == 0; k++) {
                const struct vftr_analysis_transport *via = k == 0 ? lt : t;

                rc = via->send(via->ctx, k, TAG_GO, &last, sizeof last);
                s[k].state = S_GO;
            }
            for (int k = 0; k < nw && rc == 0; k++)
                while (rc == 0 && s[k].state == S_GO)
                    rc = TAKE(k);
            continue;
        }
        if (rc < 0)
            break;
        for (int k = 0; k < nw; k++)
            if (s[k].qhead < s[k].qn &&
                (best < 0 || vftr_syncrec_cmp(&s[k].q[s[k].qhead], &s[best].q[s[best].qhead]) < 0))
                best = k;
        if (best < 0)
            break;                      /* every worker ended, all taken */
        {
            struct rstream *b = &s[best];
            struct vftr_syncrec r = b->q[b->qhead];

            r.stream = (uint16_t)(best + 1);
            r.seg = b->segs + b->segoff[b->qhead];
            b->qhead++;
            rc = vftr_analysis_feed(a, &r);
        }
    }
    if (rc == 0)
        rc = vftr_analysis_finish(a);
    for (int k = 0; k < nw; k++) {
        free(s[k].ppar);
        free(s[k].pfun);
        free(s[k].q);
        free(s[k].segoff);
        free(s[k].segs);
    }
    free(s);
    return rc;
}

/* ------------------------------------------------------------ distributed --waits */

/*
 * The waits analysed where the processes are (Scalasca's parallel replay).
 * Every rank runs the analysis on its own processes' records and on the
 * few records of other ranks' processes that its processes' waits depend
 * on ("ghost" records, forwarded by their owner as it makes them):
 *   - a message between the two: its send (Late Sender needs the send's
 *     enter) and its receive (Late Receiver needs the receive's enter);
 *   - the calls of a blocking receive (MPI_Recv, MPI_Sendrecv: a send that
 *     waited for its receive may end before the receive's record), of
 *     MPI_Init and of MPI_Finalize (which synchronise all ranks);
 *   - a collective's begin and end on a communicator with a member of the
 *     rank's own (its members' enter and exit times).
 * A foreign process's records then leave the analysis's state of the
 * rank's own processes as one reader of the whole trace leaves it: each
 * message channel touching them is complete, each shared communicator's
 * instances are, and the blocking receives a Late Receiver is judged on.
 * Its own waits and counts are left to its rank (an_set_foreign).
 *
 * The records go in rounds, through the transport's alltoall: a rank
 * enters the next round when it has made ROUND records since the last one
 * (or has read all), sending each other rank the ghost records it made for
 * it, the call paths they name, and how far it has read (all its later
 * records have an order time >= its progress).  Then every rank feeds the
 * records below the least progress, its own and the ghosts, in the
 * canonical order, and keeps the rest for the next round: the analysis
 * sees what one reader would give it, filtered.  Once every rank has read
 * all, the latest end over all is known and the records that finish the
 * processes go in one last round.  Memory: a round's records, plus what a
 * rank made ahead of the slowest.
 *
 * Every message begins with a status: a rank whose analysis refused a
 * record says so in the next round and all ranks give up together; the
 * caller then runs the rank-0 merge, which tells the refusal as the serial
 * run does.  Finally each rank sends rank 0 its rows, the call paths they
 * name and its summary's counts (an_import): rows of different processes
 * never merge, and their times are integers, so the sums are exact.
 */
#define ROUND (1u << 16)          /* records a rank makes between two rounds */
#define DIST_GIVE_UP 0x7fff0001   /* a status: some rank refused a record */

struct dopen {                    /* a collective of this rank's, begun and not ended */
    uint32_t process, comm;
    uint64_t match;
};

struct dlr {                      /* a call with sends that may wait, of a process here */
    uint32_t process, function, path;
    uint64_t enter;
    uint8_t *to;                  /* [rank]: one of its receivers is that rank's */
};

struct dpeer {
    struct wbuf out;              /* ghost records for it, this round */
    uint32_t nout;
    uint64_t prev;
    uint32_t paths_sent;
    struct rstream in;            /* its ghost records for this rank, and its paths */
    uint64_t progress, last;
    bool done;
};

struct dist {
    const struct vftr_analysis_transport *t;
    struct vftr_analysis *a;
    struct vftr_syncx *x;
    struct vftr_syncsort *sort;
    struct vftr_u64map owner;     /* process token -> rank (share) */
    struct vftr_u64map comm;      /* communicator token -> row of commown */
    uint8_t *commown;             /* [row * size + rank]: a member is the rank's */
    struct dopen *open;
    size_t nopen, capopen;
    struct dlr *lr;
    size_t nlr, caplr;
    struct dpeer *peer;           /* [size]; [me].in holds this rank's own records */
    size_t fresh;                 /* records made since the last round */
    uint64_t latest;              /* the latest order time made */
    bool done, final;
    uint64_t last;                /* done: the latest end of this rank's processes */
    int failed;                   /* a refusal to say in the next round */
};

static int owner_of(const struct dist *d, uint32_t token)
{
    long o = vftr_u64map_get(&d->owner, token);

    return o < 0 ? -1 : (int)o;
}

/* The call of a process of this rank that holds sends which may wait for
 * their receives on other ranks: its end goes there too. */
static struct dlr *lr_call(struct dist *d, uint32_t process)
{
    for (size_t i = 0; i < d->nlr; i++)
        if (d->lr[i].process == process)
            return &d->lr[i];
    return NULL;
}

/* Notes r (a send that may wait for its receive, on rank `to`): its call's
 * end must go there.  0, -ENOMEM. */
static int lr_note(struct dist *d, const struct vftr_syncrec *r, int to)
{
    struct dlr *c = lr_call(d, r->process);

    if (c && (c->function != r->function || c->path != r->path || c->enter != r->enter))
        memset(c->to, 0, (size_t)d->t->size);   /* a call of its that ended unseen */
    if (!c) {
        if (vftr_reserve((void **)&d->lr, &d->caplr, d->nlr, sizeof *d->lr) < 0)
            return -ENOMEM;
        c = &d->lr[d->nlr];
        *c = (struct dlr){ .process = r->process };
        if (!(c->to = calloc((size_t)d->t->size, 1)))
            return -ENOMEM;
        d->nlr++;
    }
    c->function = r->function;
    c->path = r->path;
    c->enter = r->enter;
    c->to[to] = 1;
    return 0;
}

/* Does rank `to` need record r of this rank's process (a ghost there)?
 * See "distributed" above; crow: the collective's communicator row, lr:
 * the process's call with sends that may wait, if r ends it. */
static bool ghost_for(struct dist *d, const struct vftr_syncrec *r, int to, long crow,
                      const struct dlr *lr)
{
    switch (r->kind) {
    case VFTR_SYNC_SEND:
        return owner_of(d, r->peer) == to;
    case VFTR_SYNC_CALL_BEGIN:
    case VFTR_SYNC_CALL_END:
        if (lr && lr->to[to])
            return true;
        switch (vftr_syncdefs_fclass(vftr_analysis_defs(d->a), r->function)) {
        case VFTR_SYNC_F_MPI_INIT:
            return r->kind == VFTR_SYNC_CALL_END;
        case VFTR_SYNC_F_MPI_FINALIZE:
            return true;
        default:
            return false;
        }
    case VFTR_SYNC_COLL_BEGIN:
    case VFTR_SYNC_COLL_END:
        return crow >= 0 && d->commown[(size_t)crow * (size_t)d->t->size + (size_t)to];
    case VFTR_SYNC_PROC_END:
        return true;            /* it ends the calls open then */
    default:
        return false;
    }
}

/* The communicator row of a collective record (its end by its begin's
 * match id), -1 for none. */
static long coll_row(struct dist *d, const struct vftr_syncrec *r)
{
    long row = -1;

    if (r->kind == VFTR_SYNC_COLL_BEGIN) {
        row = vftr_u64map_get(&d->comm, r->comm);
        if (row >= 0) {
            if (vftr_reserve((void **)&d->open, &d->capopen, d->nopen, sizeof *d->open) < 0)
                return -2;
            d->open[d->nopen++] = (struct dopen){ r->process, (uint32_t)row, r->match };
        }
    } else if (r->kind == VFTR_SYNC_COLL_END) {
        for (size_t i = d->nopen; i-- > 0;)
            if (d->open[i].process == r->process && d->open[i].match == r->match) {
                row = d->open[i].comm;
                d->open[i] = d->open[--d->nopen];
                break;
            }
    }
    return row;
}

static int dist_round(struct dist *d);

/*
 * Puts the record just queued in s into its canonical place.  A rank that
 * has read all hands over what its sorter held (see run_dist), and the
 * records that finish its processes come later: they may share that time
 * and sort before.  Only records of one time move (as the sorter sorts
 * them): a stream out of time order stays so, for the analysis to refuse.
 */
static void keep_order(struct rstream *s)
{
    for (size_t i = s->qn - 1; i > s->qhead && s->q[i].time == s->q[i - 1].time &&
                               vftr_syncrec_cmp(&s->q[i], &s->q[i - 1]) < 0; i--) {
        struct vftr_syncrec t = s->q[i];

        s->q[i] = s->q[i - 1];
        s->q[i - 1] = t;
    }
}

/* The sorter's output: this rank's records, in the canonical order. */
static int dist_emit(void *arg, const struct vftr_syncrec *r)
{
    struct dist *d = arg;
    struct rstream *own = &d->peer[d->t->rank].in;
    long crow = coll_row(d, r);
    struct dlr *lr = NULL;
    int rc;

    if (crow == -2 || (rc = reserve_records(own, 1)) < 0)
        return -ENOMEM;
    if (an_lr_capable(d->a, r)) {
        int to = owner_of(d, r->peer);

        if (to >= 0 && to != d->t->rank && (rc = lr_note(d, r, to)) < 0)
            return rc;
    } else if (r->kind == VFTR_SYNC_CALL_END || r->kind == VFTR_SYNC_PROC_END) {
        lr = lr_call(d, r->process);
        if (lr && r->kind == VFTR_SYNC_CALL_END &&
            (lr->function != r->function || lr->path != r->path || lr->enter != r->enter))
            lr = NULL;
    }
    own->q[own->qn] = *r;
    own->q[own->qn].seg = NULL;
    own->q[own->qn++].nseg = 0;           /* waits: no segments */
    keep_order(own);
    for (int k = 0; k < d->t->size; k++) {
        struct dpeer *p = &d->peer[k];

        if (k == d->t->rank || !ghost_for(d, r, k, crow, lr))
            continue;
        struct vftr_syncrec g = *r;

        g.nseg = 0;
        if ((rc = put_rec(&p->out, &g, &p->prev)) < 0)
            return rc;
        p->nout++;
    }
    if (lr)
        memset(lr->to, 0, (size_t)d->t->size);  /* the call is over */
    if (++d->fresh >= ROUND && !d->done)
        return dist_round(d);
    return 0;
}

/* The extractor's output: notes how far this rank has read — after the
 * push, whose flush of the records before may start a round: the records
 * of the time being flushed are not all out yet then. */
static int dist_push(void *arg, const struct vftr_syncrec *r)
{
    struct dist *d = arg;
    int rc = vftr_syncsort_push(d->sort, r);

    if (r->time > d->latest)
        d->latest = r->time;
    return rc;
}

/* Feeds the records below `upto` (own and ghosts, canonical order). */
static int dist_feed(struct dist *d, uint64_t upto)
{
    int n = d->t->size, rc = 0;

    for (;;) {
        int best = -1;

        for (int k = 0; k < n; k++) {
            struct rstream *s = &d->peer[k].in;

            if (s->qhead < s->qn && s->q[s->qhead].time < upto &&
                (best < 0 || vftr_syncrec_cmp(&s->q[s->qhead],
                                              &d->peer[best].in.q[d->peer[best].in.qhead]) < 0))
                best = k;
        }
        if (best < 0)
            break;
        struct rstream *s = &d->peer[best].in;
        struct vftr_syncrec r = s->q[s->qhead++];

        r.stream = (uint16_t)(best + 1);
        if ((rc = vftr_analysis_feed(d->a, &r)) < 0)
            return rc;
    }
    /* keep what is left at the front */
    for (int k = 0; k < n; k++) {
        struct rstream *s = &d->peer[k].in;

        if (s->qhead) {
            memmove(s->q, s->q + s->qhead, (s->qn - s->qhead) * sizeof *s->q);
            s->qn -= s->qhead;
            s->qhead = 0;
        }
    }
    return rc;
}

/* One message's header and paths for rank k: status, done, progress,
 * last, the paths this rank's extractor defined since the last one. */
static int dist_header(struct dist *d, struct wbuf *b, int k, int32_t status)
{
    uint8_t done = d->done;
    uint64_t progress = d->final ? UINT64_MAX : d->done ? UINT64_MAX - 1 : d->latest;
    uint32_t first = d->peer[k].paths_sent + 1, n = 0, parent, function;
    int rc;

    b->len = 0;
    if ((rc = PUT(b, status)) < 0 || (rc = PUT(b, done)) < 0 || (rc = PUT(b, progress)) < 0 ||
        (rc = PUT(b, d->last)) < 0)
        return rc;
    if (status != 0)
        return 0;
    while (vftr_syncx_pathdef(d->x, first + n, &parent, &function) == 0)
        n++;
    if ((rc = PUT(b, first)) < 0 || (rc = PUT(b, n)) < 0)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        vftr_syncx_pathdef(d->x, first + i, &parent, &function);
        if ((rc = PUT(b, parent)) < 0 || (rc = PUT(b, function)) < 0)
            return rc;
    }
    d->peer[k].paths_sent += n;
    return PUT(b, d->peer[k].nout);
}

/* Reads rank k's message from b into its peer state (records appended to
 * its queue).  *status: what it said. */
static int dist_take(struct dist *d, int k, struct rbuf *b, int32_t *status)
{
    struct dpeer *p = &d->peer[k];
    struct rstream *s = &p->in;
    uint8_t done;
    uint32_t first, n, nrec;
    uint64_t prev = 0;
    int rc;

    if ((rc = GET(b, *status)) < 0 || (rc = GET(b, done)) < 0 || (rc = GET(b, p->progress)) < 0 ||
        (rc = GET(b, p->last)) < 0)
        return rc;
    p->done = done;
    if (*status != 0)
        return 0;
    if ((rc = GET(b, first)) < 0 || (rc = GET(b, n)) < 0)
        return rc;
    if (first != s->npaths + 1 || n > (b->len - b->pos) / 8)
        return -EBADMSG;
    if ((rc = grow((void **)&s->ppar, &s->cappar, s->npaths + n, sizeof *s->ppar)) < 0 ||
        (rc = grow((void **)&s->pfun, &s->capfun, s->npaths + n, sizeof *s->pfun)) < 0)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = GET(b, s->ppar[s->npaths])) < 0 || (rc = GET(b, s->pfun[s->npaths])) < 0)
            return rc;
        s->npaths++;
    }
    if ((rc = GET(b, nrec)) < 0)
        return rc;
    if (nrec > (b->len - b->pos) / 3)
        return -EBADMSG;
    if ((rc = reserve_records(s, nrec)) < 0)
        return rc;
    for (uint32_t i = 0; i < nrec; i++) {
        struct vftr_syncrec *r = &s->q[s->qn];

        if ((rc = get_rec(b, r, &prev)) < 0)
            return rc;
        if (r->nseg || owner_of(d, r->process) != k)
            return -EBADMSG;
        s->qn++;
        keep_order(s);
    }
    return 0;
}

/*
 * A round: the ghost records out, the others' in, and the records below
 * the least progress fed.  -ECANCELED when a rank gave up (this one's
 * refusal included: it says so here first).
 */
static int dist_round(struct dist *d)
{
    int n = d->t->size, me = d->t->rank, rc = 0;
    const void **out = calloc((size_t)n, sizeof *out);
    size_t *outlen = calloc((size_t)n, sizeof *outlen);
    struct wbuf *msgs = calloc((size_t)n, sizeof *msgs);
    void *in = NULL;
    size_t inlen = 0;
    int32_t status = d->failed ? DIST_GIVE_UP : 0;
    bool gave_up = d->failed != 0, all_done = d->done;
    uint64_t upto;

    if (!out || !outlen || !msgs) {
        rc = -ENOMEM;
        goto out;
    }
    for (int k = 0; k < n && rc == 0; k++) {
        if (k == me)
            continue;
        if ((rc = dist_header(d, &msgs[k], k, status)) == 0 && status == 0 && d->peer[k].out.len)
            rc = put(&msgs[k], d->peer[k].out.p, d->peer[k].out.len);
        out[k] = msgs[k].p;
        outlen[k] = msgs[k].len;
        d->peer[k].out.len = 0;
        d->peer[k].nout = 0;
        d->peer[k].prev = 0;
    }
    /* out of memory here leaves the others in the collective: the caller
     * ends the job (the transport's alltoall agrees on failures itself) */
    if (rc < 0)
        goto out;
    if ((rc = d->t->alltoall(d->t->ctx, out, outlen, &in, &inlen)) < 0)
        goto out;
    {
        struct rbuf b = { in, inlen, 0 };

        for (int k = 0; k < n && rc == 0; k++) {
            int32_t st = 0;

            if (k == me)
                continue;
            rc = dist_take(d, k, &b, &st);
            if (st != 0)
                gave_up = true;
            all_done = all_done && d->peer[k].done;
        }
        if (rc == 0 && b.pos != b.len)
            rc = -EBADMSG;
    }
    if (rc < 0)
        goto out;
    if (gave_up) {
        rc = -ECANCELED;
        goto out;
    }
    upto = d->final ? UINT64_MAX : d->done ? UINT64_MAX - 1 : d->latest;
    for (int k = 0; k < n; k++)
        if (k != me && d->peer[k].progress < upto)
            upto = d->peer[k].progress;
    d->fresh = 0;
    if ((rc = dist_feed(d, upto)) == -EINVAL)
        d->failed = 1;          /* said in the next round */
    if (rc == 0 && all_done && !d->final) {
        /* every rank has read all: the order time of the finishing records */
        for (int k = 0; k < n; k++)
            if (k != me && d->peer[k].last > d->last)
                d->last = d->peer[k].last;
        d->final = true;
    }
out:
    for (int k = 0; msgs && k < n; k++)
        free(msgs[k].p);
    free(msgs);
    free(out);
    free(outlen);
    free(in);
    return rc;
}

/* The processes' owners (share() for every share) and the communicators'
 * member ranks; every process not this rank's is foreign to its analysis. */
static int dist_owners(struct dist *d, struct vftr_source *s)
{
    const struct vftr_syncdefs *defs = vftr_analysis_defs(d->a);
    size_t n = (size_t)d->t->size, np;
    const struct vftr_source_proc *procs = vftr_source_procs(s, &np);
    int rc = 0;

    for (int k = 0; k < d->t->size && rc == 0; k++) {
        struct vftr_proclist pl;
        size_t count = 0;

        vftr_proclist_init(&pl);
        rc = share(s, k, d->t->size, &pl, &count);
        for (size_t i = 0; rc == 0 && i < np; i++)
            if (vftr_proclist_contains(&pl, procs[i].token) &&
                vftr_u64map_put(&d->owner, procs[i].token, (uint32_t)k) < 0)
                rc = -ENOMEM;
        vftr_proclist_release(&pl);
    }
    if (rc < 0)
        return rc;
    if (!(d->commown = calloc(defs->ncomms ? defs->ncomms * n : 1, 1)))
        return -ENOMEM;
    for (size_t c = 0; c < defs->ncomms; c++) {
        if (vftr_u64map_put(&d->comm, defs->comms[c].token, (uint32_t)c) < 0)
            return -ENOMEM;
        for (uint32_t m = 0; m < defs->comms[c].n; m++) {
            const struct vftr_syncdefs_proc *dp = vftr_syncdefs_proc(defs, defs->comms[c].procs[m]);
            int o = owner_of(d, dp ? dp->rankproc : defs->comms[c].procs[m]);

            if (o >= 0)
                d->commown[c * n + (size_t)o] = 1;
        }
    }
    for (size_t i = 0; i < defs->nprocs; i++)
        if (owner_of(d, defs->procs[i].token) != d->t->rank &&
            (rc = an_set_foreign(d->a, defs->procs[i].token)) < 0)
            return rc;
    return 0;
}

/* The results to rank 0: the rows, their paths, the summary. */
static int dist_reduce(struct dist *d)
{
    int n = d->t->size, me = d->t->rank, rc = 0;
    const void **out = calloc((size_t)n, sizeof *out);
    size_t *outlen = calloc((size_t)n, sizeof *outlen);
    struct wbuf msg = { 0 };
    void *in = NULL;
    size_t inlen = 0, nrows = 0, npaths = 0;
    int32_t status = d->failed ? DIST_GIVE_UP : 0;
    const struct vftr_wait_row *rows = vftr_analysis_waits(d->a, &nrows);
    const struct vftr_analysis_path *paths = vftr_analysis_paths(d->a, &npaths);
    uint64_t nr = nrows, np = npaths;

    if (!out || !outlen) {
        rc = -ENOMEM;
        goto out;
    }
    /* every rank gets the status; rank 0 the results */
    rc = PUT(&msg, status);
    if (rc == 0 && me != 0 && status == 0) {
        rc = PUT(&msg, *vftr_analysis_summary(d->a));
        if (rc == 0 && (rc = PUT(&msg, nr)) == 0 && nrows)
            rc = put(&msg, rows, nrows * sizeof *rows);
        if (rc == 0 && (rc = PUT(&msg, np)) == 0 && npaths)
            rc = put(&msg, paths, npaths * sizeof *paths);
    }
    if (rc < 0)
        goto out;
    for (int k = 0; k < n; k++)
        if (k != me) {
            out[k] = msg.p;
            outlen[k] = k == 0 ? msg.len : sizeof status;
        }
    if ((rc = d->t->alltoall(d->t->ctx, out, outlen, &in, &inlen)) < 0)
        goto out;
    {
        struct rbuf b = { in, inlen, 0 };
        bool gave_up = status != 0;

        for (int k = 0; k < n && rc == 0; k++) {
            int32_t st;
            struct vftr_analysis_summary sum;
            uint64_t kr, kp;

            if (k == me)
                continue;
            if ((rc = GET(&b, st)) < 0)
                break;
            if (st != 0)
                gave_up = true;
            if (me != 0 || st != 0)
                continue;
            if ((rc = GET(&b, sum)) < 0 || (rc = GET(&b, kr)) < 0)
                break;
            if (kr > (b.len - b.pos) / sizeof *rows) {
                rc = -EBADMSG;
                break;
            }
            size_t at = b.pos;

            b.pos += kr * sizeof *rows;
            if ((rc = GET(&b, kp)) < 0)
                break;
            if (kp > (b.len - b.pos) / sizeof *paths) {
                rc = -EBADMSG;
                break;
            }
            /* the rows lie at any offset of the buffer: copied out aligned */
            struct vftr_wait_row *rv = malloc((kr ? kr : 1) * sizeof *rv);
            struct vftr_analysis_path *pv = malloc((kp ? kp : 1) * sizeof *pv);

            if (!rv || !pv)
                rc = -ENOMEM;
            else {
                memcpy(rv, b.p + at, kr * sizeof *rv);
                memcpy(pv, b.p + b.pos, kp * sizeof *pv);
                rc = an_import(d->a, rv, kr, pv, kp, &sum);
            }
            b.pos += kp * sizeof *paths;
            free(rv);
            free(pv);
        }
        if (rc == 0 && b.pos != b.len)
            rc = -EBADMSG;
        if (rc == 0 && gave_up)
            rc = -ECANCELED;
    }
out:
    free(msg.p);
    free(out);
    free(outlen);
    free(in);
    return rc;
}

static void dist_release(struct dist *d)
{
    for (int k = 0; d->peer && k < d->t->size; k++) {
        struct rstream *s = &d->peer[k].in;

        free(d->peer[k].out.p);
        free(s->ppar);
        free(s->pfun);
        free(s->q);
        free(s->segoff);
        free(s->segs);
    }
    free(d->peer);
    free(d->open);
    for (size_t i = 0; i < d->nlr; i++)
        free(d->lr[i].to);
    free(d->lr);
    free(d->commown);
    vftr_u64map_release(&d->owner);
    vftr_u64map_release(&d->comm);
    vftr_syncx_free(d->x);
    vftr_syncsort_free(d->sort);
}

/*
 * The distributed waits: 0 with *out on rank 0; -ECANCELED when some rank
 * refused a record (every rank returns it: the caller runs the merge);
 * another -errno with err filled (the caller ends the job).
 */
static int run_dist(struct vftr_source *s, const struct vftr_analysis_opts *opts,
                    const struct vftr_analysis_transport *t, struct vftr_analysis **out,
                    char *err, size_t errlen)
{
    struct vftr_syncdefs defs = VFTR_SYNCDEFS_INIT;
    struct dist d = { .t = t };
    struct vftr_proclist pl;
    struct vftr_window_stats st = { 0 };
    uint64_t b = opts->b > opts->a ? opts->b : UINT64_MAX;
    int lookahead = b != UINT64_MAX;
    size_t mine = 0;
    int rc;

    vftr_proclist_init(&pl);
    if ((rc = vftr_syncdefs_from_source(&defs, s)) < 0 || !(d.a = vftr_analysis_new(&defs, opts)) ||
        !(d.sort = vftr_syncsort_new(dist_emit, &d)) ||
        !(d.peer = calloc((size_t)t->size, sizeof *d.peer))) {
        rc = -ENOMEM;
        goto fail;
    }
    if ((rc = share(s, t->rank, t->size, &pl, &mine)) < 0 || (rc = dist_owners(&d, s)) < 0)
        goto fail;
    struct vftr_syncx_opts xo = { opts->a, b, 0, lookahead, (uint16_t)(t->rank + 1), dist_push,
                                  &d };
    if (!(d.x = vftr_syncx_new(vftr_analysis_defs(d.a), &xo))) {
        rc = -ENOMEM;
        goto fail;
    }
    for (int k = 0; k < t->size && rc == 0; k++)
        rc = k == t->rank
                 ? vftr_analysis_add_stream(d.a, (uint16_t)(k + 1), vftr_syncx_pathdef, d.x)
                 : vftr_analysis_add_stream(d.a, (uint16_t)(k + 1), stream_pathdef, &d.peer[k].in);
    if (rc < 0)
        goto fail;
    if (mine) {
        rc = vftr_source_read(s, 0, lookahead ? UINT64_MAX : b, &pl, VFTR_SOURCE_EVENTS_ONLY,
                              vftr_syncx_handler(d.x), &st, err, errlen);
        if (rc == VFTR_SYNCX_DONE)
            rc = 0;
        if (rc > 0)
            rc = -EIO;
        if (rc == -ECANCELED)
            goto out;
        if (rc == -EINVAL && d.failed) {
            err[0] = '\0';
            rc = 0;     /* refused in a round's feed: say it in the next */
        }
        if (rc < 0)
            goto fail;
    }
    /* Read all: only the records that finish the processes are to come,
     * at the latest end over all ranks, which no record of any rank's comes
     * after (vftr_syncx_last); this rank's progress is that from now on.
     * What the extractor and the sorter hold goes to the queue now
     * (keep_order puts the finishing records among them where they tie). */
    d.done = true;
    d.last = vftr_syncx_last(d.x);
    if ((rc = vftr_syncx_release(d.x)) < 0 || (rc = vftr_syncsort_flush(d.sort)) < 0)
        goto fail;
    while (!d.final && !d.failed && (rc = dist_round(&d)) == 0)
        ;
    if (d.failed)
        rc = dist_round(&d);                    /* -ECANCELED: all give up */
    if (rc < 0)
        goto done;
    if ((rc = vftr_syncx_finish_at(d.x, d.last)) < 0 || (rc = vftr_syncsort_flush(d.sort)) < 0)
        goto fail;
    rc = dist_round(&d);                        /* the finishing records, all fed */
    if (rc == -EINVAL && d.failed)
        rc = dist_reduce(&d);                   /* says the refusal: -ECANCELED */
    else if (rc == 0) {
        if ((rc = vftr_analysis_finish(d.a)) == -EINVAL)
            d.failed = 1;
        if (rc == 0 || d.failed)
            rc = dist_reduce(&d);
    }
done:
    if (rc == -ECANCELED)
        goto out;
    if (rc < 0)
        goto fail;
    if (t->rank == 0) {
        d.a->sum.ranks = (uint32_t)t->size;
        *out = d.a;
        d.a = NULL;
    }
    goto out;
fail:
    if (err && errlen && !err[0]) {
        if (rc == -EBADMSG || rc == -EPROTO)
            vftr_errmsg(err, errlen, rc, "wait analysis: bad message from another rank");
        else
            vftr_errmsg(err, errlen, rc, "rank %d: %s", t->rank,
                        rc == -ENOMEM ? "out of memory" : strerror(-rc));
    }
out:
    dist_release(&d);
    vftr_analysis_free(d.a);
    vftr_syncdefs_release(&defs);
    vftr_proclist_release(&pl);
    return rc;
}

int vftr_analysis_run_par(struct vftr_source *s, const struct vftr_analysis_opts *opts,
                          const struct vftr_analysis_transport *t, struct vftr_analysis **out,
                          char *err, size_t errlen)
{
    struct vftr_syncdefs defs = VFTR_SYNCDEFS_INIT;
    struct vftr_analysis *a = NULL;
    int rc;

    *out = NULL;
    if (!t || t->size <= 1)
        return vftr_analysis_run(s, opts, out, err, errlen);
    if (t->alltoall && opts->what == VFTR_ANALYSIS_WAITS && !opts->on_wait) {
        rc = run_dist(s, opts, t, out, err, errlen);
        if (rc != -ECANCELED)
            return rc < 0 ? rc : 0;
        /* a rank refused a record: the merge tells it as the serial run */
        if (err && errlen)
            err[0] = '\0';
    }
    if (t->rank != 0)
        return run_worker(s, opts, t, t->rank, t->size, err, errlen);
    if ((rc = vftr_syncdefs_from_source(&defs, s)) < 0 || !(a = vftr_analysis_new(&defs, opts))) {
        vftr_syncdefs_release(&defs);
        vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        return -ENOMEM;
    }
    vftr_syncdefs_release(&defs);

    struct local *l = calloc(1, sizeof *l);
    pthread_t th;

    if (!l) {
        vftr_analysis_free(a);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    l->thread_end = (struct lend){ l, false };
    l->root_end = (struct lend){ l, true };
    l->wt = (struct vftr_analysis_transport){ 0, t->size, lsend, lrecv, &l->thread_end, NULL, NULL };
    l->rt = (struct vftr_analysis_transport){ 0, t->size, lsend, lrecv, &l->root_end, NULL, NULL };
    l->s = s;
    l->opts = opts;
    l->nshares = t->size;
    if ((rc = pthread_create(&th, NULL, local_main, l)) != 0) {
        local_release(l);
        free(l);
        vftr_analysis_free(a);
        return vftr_errmsg(err, errlen, -rc, "cannot start a thread: %s", strerror(rc));
    }
    rc = run_root(a, t, &l->rt);
    if (rc < 0)
        local_close(l);
    pthread_join(th, NULL);
    if (rc < 0) {
        /* rank 0's own thread failing closes its queue (-EPIPE here); the
         * analysis refusing a record closes it for the thread (-EPIPE
         * there): the first failure is the one to tell */
        if (rc == -EPIPE && l->rc < 0 && l->err[0])
            vftr_errmsg(err, errlen, l->rc, "%s", l->err);
        else if (rc == -EBADMSG || rc == -EPROTO)
            vftr_errmsg(err, errlen, rc, "wait analysis: bad message from a worker rank");
        else
            vftr_analysis_errmsg(a, rc, "merging the ranks' records", err, errlen);
        vftr_analysis_free(a);
    } else {
        *out = a;
    }
    local_release(l);
    free(l);
    return rc < 0 ? rc : 0;
}
