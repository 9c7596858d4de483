/*
 * check.c — see check.h.  One read of the whole trace (events only, no
 * state needed at its start), per-process stacks, per-channel FIFOs of
 * send times, per-process sets of open collectives.
 */
#include "check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "replay.h"
#include "u64map.h"
#include "util/errmsg.h"

struct cframe {
    uint32_t function;
    uint64_t enter, child;          /* child: inclusive time of completed callees */
};

struct cproc {
    uint32_t token;
    uint64_t last;
    struct cframe *st;
    size_t n, cap;
    uint64_t busy;                  /* time with a non-empty stack (completed root calls) */
    struct vftr_u64map colls;       /* open collective matching ids */
    size_t ncolls;
    struct vftr_u64map fileops;     /* open file operations' matching ids */
    size_t nfileops;
};

struct fifo {
    struct fent { uint64_t t; uint32_t self, peer; } *t;   /* the record's process, its peer */
    size_t head, n, cap;
};

/* Messages of one (comm, sender, receiver, tag); sender and receiver are
 * ranks (their processes) where the trace names peers by rank only
 * (vftr_source_peer_ranks, messages.h), so a thread's message is paired
 * with a receive that names the thread's rank. */
struct chan {
    uint32_t sender, receiver, comm, tag;
    struct fifo sends, recvs;       /* times of those not matched yet (one is empty) */
};

struct check {
    const struct vftr_check_opts *o;
    const struct vftr_source *s;
    struct vftr_check_counts *k;
    struct cproc *procs;
    size_t nprocs, capprocs;
    struct vftr_u64map pmap;
    struct chan *chans;
    size_t nchans, capchans;
    struct vftr_u64map cmap;
    struct vftr_u64map undef;       /* (kind, token) of undefined references reported */
    struct vftr_replay *replay;     /* the tools' arithmetic, checked against busy */
    unsigned reported;
};

static void violation(struct check *c, uint64_t time, uint32_t process, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void violation(struct check *c, uint64_t time, uint32_t process, const char *fmt, ...)
{
    unsigned most = c->o->max_reports ? c->o->max_reports : 20;
    va_list ap;

    c->k->violations++;
    if (!c->o->out || c->reported++ >= most)
        return;
    fprintf(c->o->out, "%s: %s: time %" PRIu64 ", process %" PRIu32 ": ", c->o->prog,
            c->o->name, time, process);
    va_start(ap, fmt);
    vfprintf(c->o->out, fmt, ap);
    va_end(ap);
    fputc('\n', c->o->out);
}

static const char *fname(const struct check *c, uint32_t f)
{
    const struct vftr_source_func *d = vftr_source_func(c->s, f);

    return d ? d->name : "(undefined)";
}

/* References to definitions, reported once per kind and token. */
enum ref { REF_PROCESS = 1, REF_FUNCTION, REF_COMM, REF_COLLOP, REF_FILE };

static const char *const ref_what[] = {
    [REF_PROCESS] = "process", [REF_FUNCTION] = "function",
    [REF_COMM] = "communicator", [REF_COLLOP] = "collective operation", [REF_FILE] = "file",
};

static int defined(const struct check *c, enum ref kind, uint32_t token)
{
    switch (kind) {
    case REF_PROCESS:  return vftr_source_proc(c->s, token) != NULL;
    case REF_FUNCTION: return vftr_source_func(c->s, token) != NULL;
    case REF_COMM:     return vftr_source_comm(c->s, token) != NULL;
    case REF_COLLOP:   return vftr_source_collop_name(c->s, token) != NULL;
    case REF_FILE:     return vftr_source_file(c->s, token) != NULL;
    }
    return 0;
}

/* An event at (time, process) names `token` of `kind`: a violation, the
 * first time, when the trace defines none.  Returns -ENOMEM or 0. */
static int ref(struct check *c, uint64_t time, uint32_t process, enum ref kind, uint32_t token)
{
    uint64_t key = (uint64_t)kind << 32 | token;

    if (defined(c, kind, token) || vftr_u64map_get(&c->undef, key) >= 0)
        return 0;
    violation(c, time, process, "%s %" PRIu32 " is not defined", ref_what[kind], token);
    return vftr_u64map_put(&c->undef, key, 1);
}

/* The process's state, created on first use; NULL on ENOMEM. */
static struct cproc *proc(struct check *c, uint32_t token)
{
    long i = vftr_u64map_get(&c->pmap, token);

    if (i >= 0)
        return &c->procs[i];
    if (vftr_reserve((void **)&c->procs, &c->capprocs, c->nprocs, sizeof *c->procs) < 0 ||
        vftr_u64map_put(&c->pmap, token, (uint32_t)c->nprocs) < 0 ||
        ref(c, 0, token, REF_PROCESS, token) < 0)
        return NULL;
    c->procs[c->nprocs] = (struct cproc){ .token = token };
    c->k->processes++;
    return &c->procs[c->nprocs++];
}

/* Every event of a process starts here: its state and the time order. */
static struct cproc *event(struct check *c, uint64_t time, uint32_t process)
{
    struct cproc *p = proc(c, process);

    if (!p)
        return NULL;
    c->k->events++;
    if (time < p->last)
        violation(c, time, process, "time goes back (the previous event was at %" PRIu64 ")",
                  p->last);
    else
        p->last = time;
    return p;
}

static int on_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct check *c = arg;
    struct cproc *p = event(c, time, process);

    if (!p || vftr_reserve((void **)&p->st, &p->cap, p->n, sizeof *p->st) < 0 ||
        ref(c, time, process, REF_FUNCTION, function) < 0)
        return -ENOMEM;
    p->st[p->n++] = (struct cframe){ function, time, 0 };
    return vftr_replay_enter(c->replay, process, function, time);
}

/* Closes the top frame at time t. */
static void pop(struct check *c, struct cproc *p, uint64_t t)
{
    struct cframe *f = &p->st[--p->n];
    uint64_t dur = t > f->enter ? t - f->enter : 0;

    if (f->child > dur)
        violation(c, t, p->token, "the callees of %s (entered at %" PRIu64 ") take %" PRIu64
                  " ticks, longer than the call (%" PRIu64 ")", fname(c, f->function), f->enter,
                  f->child, dur);
    if (p->n)
        p->st[p->n - 1].child += dur;
    else
        p->busy += dur;
}

static int on_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct check *c = arg;
    struct cproc *p = event(c, time, process);

    if (!p)
        return -ENOMEM;
    if (p->n == 0) {
        violation(c, time, process, "Leave of %s with no call open", fname(c, function));
        return 0;
    }
    if (vftr_replay_leave(c->replay, process, function, time) < 0)
        return -ENOMEM;
    if (function != 0 && p->st[p->n - 1].function != function) {
        size_t k = p->n;

        while (k > 0 && p->st[k - 1].function != function)
            k--;
        violation(c, time, process, "Leave of %s while %s (entered at %" PRIu64 ") is the "
                  "open call%s", fname(c, function), fname(c, p->st[p->n - 1].function),
                  p->st[p->n - 1].enter, k ? "" : "; it is not open at all");
        if (k == 0)
            return 0;
        while (p->n > k)        /* go on as the replay does: close the calls above it */
            pop(c, p, time);
    }
    pop(c, p, time);
    return 0;
}

static struct chan *chan(struct check *c, uint32_t sender, uint32_t receiver, uint32_t comm,
                         uint32_t tag)
{
    uint64_t h = ((uint64_t)sender * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)receiver << 32 | comm) ^
                 ((uint64_t)tag * 0xC2B2AE3D27D4EB4Full);

    for (;; h++) {
        long i = vftr_u64map_get(&c->cmap, h);

        if (i < 0)
            break;
        struct chan *x = &c->chans[i];

        if (x->sender == sender && x->receiver == receiver && x->comm == comm && x->tag == tag)
            return x;
    }
    if (vftr_reserve((void **)&c->chans, &c->capchans, c->nchans, sizeof *c->chans) < 0 ||
        vftr_u64map_put(&c->cmap, h, (uint32_t)c->nchans) < 0)
        return NULL;
    c->chans[c->nchans] = (struct chan){ sender, receiver, comm, tag, { 0 }, { 0 } };
    return &c->chans[c->nchans++];
}

/* The channel of a message as its record names it: of ranks where the
 * trace's peers may name only a rank. */
static struct chan *chan_of(struct check *c, uint32_t sender, uint32_t receiver, uint32_t comm,
                            uint32_t tag)
{
    vftr_procmap_fn *rank = vftr_source_peer_ranks(c->s);

    if (rank) {
        sender = rank((void *)c->s, sender);
        receiver = rank((void *)c->s, receiver);
    }
    return chan(c, sender, receiver, comm, tag);
}

static int fifo_push(struct fifo *f, uint64_t t, uint32_t self, uint32_t peer)
{
    if (f->head + f->n == f->cap) {             /* compact, then grow */
        if (f->n)
            memmove(f->t, f->t + f->head, f->n * sizeof *f->t);
        f->head = 0;
        if (vftr_reserve((void **)&f->t, &f->cap, f->n, sizeof *f->t) < 0)
            return -ENOMEM;
    }
    f->t[f->head + f->n++] = (struct fent){ t, self, peer };
    return 0;
}

static struct fent fifo_pop(struct fifo *f)
{
    f->n--;
    return f->t[f->head++];
}

/* Messages match in order per channel: a send meets the oldest receive
 * waiting for it (one that came first in time: received before it was
 * sent), else waits for one. */
static int on_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                   uint32_t tag, uint32_t length)
{
    struct check *c = arg;
    struct chan *x;

    (void)length;
    if (!event(c, time, sender) || !(x = chan_of(c, sender, receiver, comm, tag)) ||
        ref(c, time, sender, REF_PROCESS, receiver) < 0 || ref(c, time, sender, REF_COMM, comm) < 0)
        return -ENOMEM;
    if (x->recvs.n) {
        violation(c, time, sender, "message to %" PRIu32 " (communicator %" PRIu32 ", tag %"
                  PRIu32 ") received at %" PRIu64 ", before it was sent", receiver, comm, tag,
                  fifo_pop(&x->recvs).t);
        return 0;
    }
    return fifo_push(&x->sends, time, sender, receiver);
}

static int on_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                   uint32_t tag, uint32_t length)
{
    struct check *c = arg;
    struct chan *x;

    (void)length;
    if (!event(c, time, receiver) || !(x = chan_of(c, sender, receiver, comm, tag)) ||
        ref(c, time, receiver, REF_PROCESS, sender) < 0 ||
        ref(c, time, receiver, REF_COMM, comm) < 0)
        return -ENOMEM;
    if (x->sends.n) {
        fifo_pop(&x->sends);
        return 0;
    }
    return fifo_push(&x->recvs, time, receiver, sender);
}

static int on_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                         uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct check *c = arg;
    struct cproc *p = event(c, time, process);

    (void)sent, (void)received;
    if (!p || ref(c, time, process, REF_COLLOP, op) < 0 || ref(c, time, process, REF_COMM, comm) < 0 ||
        (root && ref(c, time, process, REF_PROCESS, root) < 0))
        return -ENOMEM;
    if (vftr_u64map_get(&p->colls, id) > 0) {
        violation(c, time, process, "collective operation %" PRIu64 " begins twice", id);
        return 0;
    }
    p->ncolls++;
    return vftr_u64map_put(&p->colls, id, 1);
}

static int on_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t id)
{
    struct check *c = arg;
    struct cproc *p = event(c, time, process);

    if (!p)
        return -ENOMEM;
    if (vftr_u64map_get(&p->colls, id) <= 0) {
        violation(c, time, process, "end of collective operation %" PRIu64 " that did not begin",
                  id);
        return 0;
    }
    p->ncolls--;
    return vftr_u64map_put(&p->colls, id, 0);
}

static int on_file_begin(void *arg, uint64_t time, uint32_t process,
                         const struct vftr_window_fileop *op)
{
    struct check *c = arg;
    struct cproc *p = event(c, time, process);

    if (!p)
        return -ENOMEM;
    if (op->file && ref(c, time, process, REF_FILE, op->file) < 0)
        return -ENOMEM;
    if (vftr_u64map_get(&p->fileops, op->matching_id) > 0) {
        violation(c, time, process, "file operation %" PRIu64 " begins twice", op->matching_id);
        return 0;
    }
    p->nfileops++;
    return vftr_u64map_put(&p->fileops, op->matching_id, 1);
}

static int on_file_end(void *arg, uint64_t time, uint32_t process,
                       const struct vftr_window_fileop *op)
{
    struct check *c = arg;
    struct cproc *p = event(c, time, process);

    if (!p)
        return -ENOMEM;
    if (ref(c, time, process, REF_FILE, op->file) < 0)
        return -ENOMEM;
    if (vftr_u64map_get(&p->fileops, op->matching_id) <= 0) {
        violation(c, time, process, "end of file operation %" PRIu64 " that did not begin",
                  op->matching_id);
        return 0;
    }
    p->nfileops--;
    return vftr_u64map_put(&p->fileops, op->matching_id, 0);
}

static int on_fileop(void *arg, uint64_t time, uint32_t process,
                     const struct vftr_window_fileop *op)
{
    struct check *c = arg;

    if (!event(c, time, process))
        return -ENOMEM;
    return ref(c, time, process, REF_FILE, op->file);
}

static int on_anomaly(void *arg, uint64_t time, uint32_t process, const char *what)
{
    violation(arg, time, process, "%s", what);
    return 0;
}

int vftr_check_source(struct vftr_source *s, const struct vftr_check_opts *o,
                      struct vftr_check_counts *k, char *err, size_t errlen)
{
    struct check c = { .o = o, .s = s, .k = k };
    struct vftr_window_handler h = { .arg = &c, .enter = on_enter, .leave = on_leave,
                                     .send = on_send, .recv = on_recv,
                                     .coll_begin = on_coll_begin, .coll_end = on_coll_end,
                                     .file_begin = on_file_begin, .file_end = on_file_end,
                                     .fileop = on_fileop, .anomaly = on_anomaly };
    int rc;

    *k = (struct vftr_check_counts){ 0 };
    c.replay = vftr_replay_new(0, UINT64_MAX);
    if (!c.replay || vftr_replay_set_flags(c.replay, VFTR_REPLAY_NO_PATHS) < 0) {
        vftr_replay_free(c.replay);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    rc = vftr_source_read(s, 0, UINT64_MAX, NULL, VFTR_SOURCE_EVENTS_ONLY, &h, NULL, err, errlen);
    if (rc > 0)
        rc = -EIO;
    if (rc < 0 && err && !err[0])
        vftr_errmsg(err, errlen, rc, "%s", strerror(-rc));
    /* the profile a tool computes (replay.h) against the stacks kept here:
     * per process, exclusive times add up to the time some call was open,
     * and no function's exclusive time exceeds its inclusive time */
    uint64_t *excl = calloc(c.nprocs ? c.nprocs : 1, sizeof *excl);

    if (rc == 0 && (!excl || vftr_replay_finish(c.replay) < 0))
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    if (rc == 0) {
        size_t n;
        const struct vftr_funcstat *fs = vftr_replay_funcstats(c.replay, &n);

        for (size_t i = 0; i < n; i++) {
            long pi = vftr_u64map_get(&c.pmap, fs[i].process);

            if (pi >= 0)
                excl[pi] += fs[i].excl;
            if (fs[i].excl > fs[i].incl)
                violation(&c, 0, fs[i].process, "%s: exclusive time %" PRIu64 " over its "
                          "inclusive time %" PRIu64, fname(&c, fs[i].function), fs[i].excl,
                          fs[i].incl);
        }
    }
    for (size_t i = 0; rc == 0 && i < c.nprocs; i++) {
        struct cproc *p = &c.procs[i];

        for (size_t f = 0; f < p->n; f++)
            violation(&c, p->last, p->token, "call of %s entered at %" PRIu64 " never left",
                      fname(&c, p->st[f].function), p->st[f].enter);
        if (p->n == 0 && excl[i] != p->busy)
            violation(&c, p->last, p->token, "exclusive times add up to %" PRIu64 " ticks, the "
                      "calls span %" PRIu64, excl[i], p->busy);
        if (p->ncolls)
            violation(&c, p->last, p->token, "%zu collective operation(s) begun and never ended",
                      p->ncolls);
        if (p->nfileops)
            violation(&c, p->last, p->token, "%zu file operation(s) begun and never ended",
                      p->nfileops);
    }
    for (size_t i = 0; i < c.nchans; i++) {
        struct chan *x = &c.chans[i];
        const struct vftr_source_proc *sp = vftr_source_proc(s, x->sender);

        k->unreceived += x->sends.n;
        /* a sender whose data ends early (a crashed or killed rank) may
         * have sent after its data ends: not the trace's fault */
        if (sp && (sp->flags & VFTR_SOURCE_PROC_INCOMPLETE)) {
            k->unverified += x->recvs.n;
            continue;
        }
        while (rc == 0 && x->recvs.n) {
            struct fent e = fifo_pop(&x->recvs);

            violation(&c, e.t, e.self, "receive from %" PRIu32 " (communicator %" PRIu32
                      ", tag %" PRIu32 ") without a matching send", e.peer, x->comm, x->tag);
        }
    }
    if (rc == 0 && o->out && c.reported > (o->max_reports ? o->max_reports : 20))
        fprintf(o->out, "%s: %s: ... and %u more violations\n", o->prog, o->name,
                c.reported - (o->max_reports ? o->max_reports : 20));
    for (size_t i = 0; i < c.nprocs; i++) {
        free(c.procs[i].st);
        vftr_u64map_release(&c.procs[i].colls);
        vftr_u64map_release(&c.procs[i].fileops);
    }
    for (size_t i = 0; i < c.nchans; i++) {
        free(c.chans[i].sends.t);
        free(c.chans[i].recvs.t);
    }
    free(excl);
    vftr_replay_free(c.replay);
    free(c.procs);
    free(c.chans);
    vftr_u64map_release(&c.pmap);
    vftr_u64map_release(&c.cmap);
    vftr_u64map_release(&c.undef);
    return rc;
}
