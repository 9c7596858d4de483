/*
 * window.c — see window.h.
 *
 * A read of [a, b) has three phases:
 *   SNAP    the snapshot records at the latest snapshot time T <= a fill
 *           the per-process stacks and the list of messages in flight
 *           (one merged read of the snapshot files, through the handlers
 *           below, which look at w->phase);
 *   REPLAY  the events of [T, a) move that state forward to a: worker
 *           threads, each with its own file manager, read the streams on
 *           their own (see "replay");
 *   DELIVER the events of [a, b) go to the caller in time order: this
 *           thread positions every stream at a, decodes and merges their
 *           records while the replay runs (see "window"), hands over the
 *           state at a, then the events.
 * Records are decoded in batches by vftr_otf_scan_events (vftr_otf_scan.h)
 * instead of one handler call each: the replay and the window read are
 * most of a jump's time.  Every stream is positioned by the library's
 * binary time search, so nothing outside [T, b) is touched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "window.h"
#include "grow.h"
#include "vftr_otf_scan.h"
#include "otfreplay.h"
#include "u64map.h"

#include "vfdconv.h"
#include "util/errmsg.h"
#include "util/tracesel.h"

/* Window events merged ahead while the replay runs (56 bytes each), and
 * the batches of the streams: each gets WINDOW_BUFFER / streams records,
 * within [WINDOW_BATCH_MIN, WINDOW_BATCH_MAX]. */
#define WINDOW_BUFFER 131072
#define WINDOW_BATCH_MIN 256
#define WINDOW_BATCH_MAX 2048
/* Streams merged by a linear look instead of a heap. */
#define WINDOW_LINEAR 8

/* Records a replay worker decodes at a time. */
#define WORKER_BATCH 4096

#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

enum phase { PH_SNAP, PH_DELIVER, PH_PROBE, PH_SUMMARY, PH_SAMPLES };

struct frame {
    uint32_t function;
    uint64_t enter;
};

struct pstate {
    uint32_t process;
    uint32_t owner;          /* replay_plan(): 1 + the worker that reads it, 0 none */
    struct frame *stack;
    size_t depth, cap;
};

struct inflight {
    uint64_t time;
    uint32_t sender, receiver, comm, tag, length;
};

/*
 * Receive counts per channel (sender, receiver, communicator, tag) of one
 * replay, in an open-addressing table.  A replay that reads each stream on
 * its own cannot pair a receive with its send as it goes (they are in
 * different streams, maybe on different threads); it counts the receives
 * instead, and afterwards the oldest `count` messages of each channel are
 * the ones received (MPI's non-overtaking rule, as in the merged read).
 */
struct chan {
    uint32_t sender, receiver, comm, tag;
    uint64_t count;          /* receives; 0 marks a free slot */
    uint64_t taken;          /* messages already paired with them */
};

struct chantab {
    struct chan *slots;
    size_t cap, used;        /* cap: a power of two, or 0 */
};

/* One event stream of the window read (see "window" below). */
struct wkey;

struct wstream {
    OTF_RStream *s;
    OTF_RBuffer *b;          /* its event buffer, NULL: the stream has none */
    vftr_otf_ev *ev;         /* decoded records ev[i..n) not yet delivered */
    size_t cap, n, i;
    int done;                /* nothing more in [a, b) */
};

struct vftr_window {
    char *stub;
    OTF_FileManager *manager;
    int own_manager;
    OTF_Reader *reader;
    OTF_HandlerArray *handlers;
    struct vftr_window_info info;

    uint64_t *snaps, *sums;          /* sorted sample points (DefAuxSamplePoint) */
    size_t nsnaps, capsnaps, nsums, capsums;
    int have_range;
    uint32_t rma_key;                /* DefKeyValue of vftr's RMA matching id, 0: none */
    int rma_remote_is_target;        /* RMAEnd's remote is the target (vftr's old files) */

    /* per read */
    enum phase phase;
    const struct vftr_window_handler *h;
    struct vftr_window_stats *st;
    int cb_rc;                       /* a callback's value, or -ENOMEM */
    uint64_t probe_max;              /* PH_PROBE: latest time seen */
    int probe_found;

    struct pstate *procs;
    size_t nprocs, capprocs;
    struct vftr_u64map procmap;
    struct inflight *msgs;
    size_t nmsgs, capmsgs;

    /* the replay (see "replay" below) */
    struct worker *workers;          /* opened on the first replay, kept */
    size_t nworkers;
    unsigned threads;                /* vftr_window_set_threads; 0: automatic */
    int (*progress)(void *, uint64_t);  /* vftr_window_set_progress, for every manager */
    void *progress_arg;
    struct chantab recvs;            /* all workers' receive counts */
    uint32_t (*rank_of)(void *, uint32_t);  /* vftr_window_set_ranks; NULL: none */
    void *rank_arg;
    uint32_t *pdirect;               /* process id -> 1 + index in procs (small ids) */
    size_t npdirect;
    /* the window read: its own streams (opened on the first read, kept) */
    struct wstream *ws;
    size_t nws, capws;
    struct vftr_u64map wsmap;        /* stream id -> index in ws */
    size_t *wlist;                   /* this read's streams (indices in ws) */
    struct wkey *wheap;              /* the merge */
    size_t nwlist, capwlist, capwheap, nheap;
    vftr_otf_ev last;                /* window_take(): a record whose batch was refilled */
    uint8_t *pstat;                  /* process id -> 0 unknown, 1 disabled, 2 enabled */
    size_t npstat;
    vftr_otf_ev *merged;             /* the first WINDOW_BUFFER events of the merge */
    size_t nmerged;
};

/* ------------------------------------------------------------ state */

static struct pstate *proc_find(const struct vftr_window *w, uint32_t process)
{
    long i = vftr_u64map_get(&w->procmap, process);

    return i >= 0 ? &w->procs[i] : NULL;
}

static struct pstate *proc_of(struct vftr_window *w, uint32_t process)
{
    struct pstate *p = proc_find(w, process);

    if (p)
        return p;
    if (vftr_reserve((void **)&w->procs, &w->capprocs, w->nprocs, sizeof *w->procs) < 0 ||
        vftr_u64map_put(&w->procmap, process, (uint32_t)w->nprocs) < 0)
        return NULL;
    w->procs[w->nprocs] = (struct pstate){ .process = process };
    return &w->procs[w->nprocs++];
}

static void state_clear(struct vftr_window *w)
{
    for (size_t i = 0; i < w->nprocs; i++)
        w->procs[i].depth = 0;
    w->nmsgs = 0;
}

static int stack_push(struct pstate *p, uint32_t function, uint64_t enter, uint64_t *too_deep)
{
    if (p->depth >= VFTR_WINDOW_MAX_DEPTH) {
        (*too_deep)++;
        p->depth++;          /* keep the count so that leaves pair up */
        return 0;
    }
    if (vftr_reserve((void **)&p->stack, &p->cap, p->depth, sizeof *p->stack) < 0)
        return -ENOMEM;
    p->stack[p->depth++] = (struct frame){ function, enter };
    return 0;
}

/* Closes the frame of `function` (and those above it); see window.h. */
static void stack_pop(struct pstate *p, uint32_t function)
{
    if (p->depth == 0)
        return;
    if (p->depth > VFTR_WINDOW_MAX_DEPTH || function == 0 ||
        p->stack[p->depth - 1].function == function) {
        p->depth--;
        return;
    }
    for (size_t k = p->depth - 1; k-- > 0;) {
        if (p->stack[k].function == function) {
            p->depth = k;
            return;
        }
    }
}

static int push(struct vftr_window *w, uint32_t process, uint32_t function, uint64_t enter)
{
    struct pstate *p = proc_of(w, process);

    return p ? stack_push(p, function, enter, &w->st->too_deep) : -ENOMEM;
}

static int msg_append(struct inflight **v, size_t *n, size_t *cap, const struct inflight *m)
{
    if (vftr_reserve((void **)v, cap, *n, sizeof **v) < 0)
        return -ENOMEM;
    (*v)[(*n)++] = *m;
    return 0;
}

static int msg_add(struct vftr_window *w, uint64_t time, uint32_t sender, uint32_t receiver,
                   uint32_t comm, uint32_t tag, uint32_t length)
{
    struct inflight m = { time, sender, receiver, comm, tag, length };

    return msg_append(&w->msgs, &w->nmsgs, &w->capmsgs, &m);
}

/* ------------------------------------------------------------ channels */

static size_t chan_hash(uint32_t s, uint32_t r, uint32_t c, uint32_t t)
{
    uint64_t h = ((uint64_t)s << 32 | r) * 0x9e3779b97f4a7c15ull;

    h ^= ((uint64_t)c << 32 | t) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 31;
    h *= 0xff51afd7ed558ccdull;
    return (size_t)(h ^ (h >> 29));
}

static struct chan *chan_slot(struct chantab *t, uint32_t s, uint32_t r, uint32_t c,
                              uint32_t tag)
{
    size_t mask = t->cap - 1;

    for (size_t i = chan_hash(s, r, c, tag) & mask;; i = (i + 1) & mask) {
        struct chan *e = &t->slots[i];

        if (!e->count || (e->sender == s && e->receiver == r && e->comm == c && e->tag == tag))
            return e;
    }
}

/* Adds n receives to the channel; 0 or -ENOMEM. */
static int chan_add(struct chantab *t, uint32_t s, uint32_t r, uint32_t c, uint32_t tag,
                    uint64_t n)
{
    struct chan *e;

    if ((t->used + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 64;
        struct chantab nt = { calloc(ncap, sizeof *nt.slots), ncap, t->used };

        if (!nt.slots)
            return -ENOMEM;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].count)
                *chan_slot(&nt, t->slots[i].sender, t->slots[i].receiver, t->slots[i].comm,
                           t->slots[i].tag) = t->slots[i];
        free(t->slots);
        *t = nt;
    }
    e = chan_slot(t, s, r, c, tag);
    if (!e->count) {
        *e = (struct chan){ s, r, c, tag, 0, 0 };
        t->used++;
    }
    e->count += n;
    return 0;
}

/* The rank of a process (vftr_window_set_ranks), else the process. */
static uint32_t rank_of(const struct vftr_window *w, uint32_t process)
{
    return w->rank_of ? w->rank_of(w->rank_arg, process) : process;
}

/* The channel of a message, NULL when it had no receives. */
static struct chan *chan_get(const struct vftr_window *w, struct chantab *t,
                             const struct inflight *m)
{
    struct chan *e;

    if (!t->cap)
        return NULL;
    e = chan_slot(t, rank_of(w, m->sender), rank_of(w, m->receiver), m->comm, m->tag);
    return e->count ? e : NULL;
}

static void chan_clear(struct chantab *t)
{
    if (t->used)
        memset(t->slots, 0, t->cap * sizeof *t->slots);
    t->used = 0;
}

/* ------------------------------------------------------------ handlers */

/* Ends a handler: a failure or a callback's non-zero value stops the read. */
static int verdict(struct vftr_window *w, int rc)
{
    if (rc != 0 && w->cb_rc == 0)
        w->cb_rc = rc;
    return rc ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

/* Hands one event of the window to the caller's callback. */
static int event_call(const struct vftr_window *w, const vftr_otf_ev *e)
{
    const struct vftr_window_handler *h = w->h;

    switch (e->type) {
    case OTF_ENTER_RECORD:
        return h->enter ? h->enter(h->arg, e->time, e->process, e->u[0]) : 0;
    case OTF_LEAVE_RECORD:
        return h->leave ? h->leave(h->arg, e->time, e->process, e->u[0]) : 0;
    case OTF_SEND_RECORD:
        return h->send ? h->send(h->arg, e->time, e->process, e->u[0], e->u[1], e->u[2],
                                 e->u[3]) : 0;
    case OTF_RECEIVE_RECORD:
        return h->recv ? h->recv(h->arg, e->time, e->process, e->u[0], e->u[1], e->u[2],
                                 e->u[3]) : 0;
    case OTF_COLLOP_RECORD:
        return h->collop ? h->collop(h->arg, e->time, e->process, e->u[0], e->u[1], e->u[2],
                                     e->x[0], e->x[1], e->x[2]) : 0;
    case OTF_BEGINCOLLOP_RECORD:
        return h->coll_begin ? h->coll_begin(h->arg, e->time, e->process, e->u[0], e->x[0],
                                             e->u[1], e->u[2], e->x[1], e->x[2]) : 0;
    case OTF_ENDCOLLOP_RECORD:
        return h->coll_end ? h->coll_end(h->arg, e->time, e->process, e->x[0]) : 0;
    case OTF_COUNTER_RECORD:
        return h->counter ? h->counter(h->arg, e->time, e->process, e->u[0], e->x[0]) : 0;
    case OTF_FILEOPERATION_RECORD: {
        struct vftr_window_fileop op = { 0, e->u[0], e->u[1], e->x[0], e->x[1], e->x[2] };

        return h->fileop ? h->fileop(h->arg, e->time, e->process, &op) : 0;
    }
    case OTF_BEGINFILEOP_RECORD: {
        struct vftr_window_fileop op = { e->x[0], 0, 0, 0, 0, 0 };

        return h->file_begin ? h->file_begin(h->arg, e->time, e->process, &op) : 0;
    }
    case OTF_ENDFILEOP_RECORD: {
        struct vftr_window_fileop op = { e->x[0], e->u[0], e->u[1], e->x[1], e->x[2], 0 };

        return h->file_end ? h->file_end(h->arg, e->time, e->process, &op) : 0;
    }
    case OTF_RMAPUT_RECORD:
    case OTF_RMAPUTRE_RECORD:
    case OTF_RMAGET_RECORD:
    case OTF_RMAEND_RECORD: {
        struct vftr_window_rma r = {
            .kind = e->type == OTF_RMAPUT_RECORD     ? VFTR_WINDOW_RMA_PUT
                    : e->type == OTF_RMAPUTRE_RECORD ? VFTR_WINDOW_RMA_PUT_REMOTE_END
                    : e->type == OTF_RMAGET_RECORD   ? VFTR_WINDOW_RMA_GET
                                                     : VFTR_WINDOW_RMA_END,
            .origin = e->u[0], .target = e->u[1], .comm = e->u[2], .tag = e->u[3],
            .bytes = e->x[0], .match = e->x[1] };

        /* An RMAEnd's remote (u[1]) is, as OTF defines it, the process
         * whose transfers end, 0 for its own; the record names no target.
         * vftr's writers before the change of the key's description put
         * the target there instead (vfdconv.h). */
        if (e->type == OTF_RMAEND_RECORD && !w->rma_remote_is_target) {
            r.origin = e->u[1];
            r.target = 0;
        }

        return h->rma ? h->rma(h->arg, e->time, e->process, &r) : 0;
    }
    }
    return 0;
}

/* An event of a plain read (vftr_window_events) to the caller. */
static int emit(struct vftr_window *w, const vftr_otf_ev *e)
{
    w->st->delivered++;
    return verdict(w, event_call(w, e));
}

static int on_enter(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)source;
    (void)kv;
    if (w->phase == PH_PROBE) {
        w->probe_found = 1;
        return OTF_RETURN_ABORT;
    }
    return emit(w, &(vftr_otf_ev){ .time = time, .type = OTF_ENTER_RECORD, .process = process,
                                     .u = { function } });
}

static int on_leave(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)source;
    (void)kv;
    if (w->phase == PH_PROBE) {
        w->probe_found = 1;
        return OTF_RETURN_ABORT;
    }
    return emit(w, &(vftr_otf_ev){ .time = time, .type = OTF_LEAVE_RECORD, .process = process,
                                     .u = { function } });
}

static int on_send(void *ud, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_SEND_RECORD, .process = sender,
                                      .u = { receiver, comm, tag, length } });
}

static int on_recv(void *ud, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_RECEIVE_RECORD, .process = receiver,
                                      .u = { sender, comm, tag, length } });
}

static int on_collop(void *ud, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                     uint32_t root, uint32_t sent, uint32_t received, uint64_t duration,
                     uint32_t source, OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_COLLOP_RECORD, .process = process,
                                      .u = { op, comm, root }, .x = { sent, received, duration } });
}

static int on_coll_begin(void *ud, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                         uint32_t comm, uint32_t root, uint64_t sent, uint64_t received,
                         uint32_t scl, OTF_KeyValueList *kv)
{
    (void)scl;
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_BEGINCOLLOP_RECORD, .process = process,
                                      .u = { op, comm, root }, .x = { id, sent, received } });
}

static int on_coll_end(void *ud, uint64_t time, uint32_t process, uint64_t id,
                       OTF_KeyValueList *kv)
{
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_ENDCOLLOP_RECORD, .process = process,
                                      .x = { id } });
}

static int on_counter(void *ud, uint64_t time, uint32_t process, uint32_t counter,
                      uint64_t value, OTF_KeyValueList *kv)
{
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_COUNTER_RECORD, .process = process,
                                      .u = { counter }, .x = { value } });
}

static int on_fileop(void *ud, uint64_t time, uint32_t file, uint32_t process, uint64_t handle,
                     uint32_t operation, uint64_t bytes, uint64_t duration, uint32_t source,
                     OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_FILEOPERATION_RECORD,
                                      .process = process, .u = { file, operation },
                                      .x = { handle, bytes, duration } });
}

static int on_file_begin(void *ud, uint64_t time, uint32_t process, uint64_t id, uint32_t scl,
                         OTF_KeyValueList *kv)
{
    (void)scl;
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_BEGINFILEOP_RECORD,
                                      .process = process, .x = { id } });
}

static int on_file_end(void *ud, uint64_t time, uint32_t process, uint32_t file, uint64_t id,
                       uint64_t handle, uint32_t operation, uint64_t bytes, uint32_t scl,
                       OTF_KeyValueList *kv)
{
    (void)scl;
    (void)kv;
    return emit(ud, &(vftr_otf_ev){ .time = time, .type = OTF_ENDFILEOP_RECORD,
                                      .process = process, .u = { file, operation },
                                      .x = { id, handle, bytes } });
}

/* RMA records, as scan.c decodes them (vftr_otf_scan.h) */
static int on_rma(void *ud, uint32_t type, uint64_t time, uint32_t process, uint32_t origin,
                  uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                  OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;
    vftr_otf_ev ev = vftr_otf_rma_ev(type, time, process, origin, target, comm, tag, bytes, kv,
                                     w->rma_key);

    return emit(ud, &ev);
}

static int on_rma_put(void *ud, uint64_t time, uint32_t process, uint32_t origin,
                      uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                      uint32_t scl, OTF_KeyValueList *kv)
{
    (void)scl;
    return on_rma(ud, OTF_RMAPUT_RECORD, time, process, origin, target, comm, tag, bytes, kv);
}

static int on_rma_putre(void *ud, uint64_t time, uint32_t process, uint32_t origin,
                        uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                        uint32_t scl, OTF_KeyValueList *kv)
{
    (void)scl;
    return on_rma(ud, OTF_RMAPUTRE_RECORD, time, process, origin, target, comm, tag, bytes, kv);
}

static int on_rma_get(void *ud, uint64_t time, uint32_t process, uint32_t origin,
                      uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                      uint32_t scl, OTF_KeyValueList *kv)
{
    (void)scl;
    return on_rma(ud, OTF_RMAGET_RECORD, time, process, origin, target, comm, tag, bytes, kv);
}

static int on_rma_end(void *ud, uint64_t time, uint32_t process, uint32_t remote,
                      uint32_t comm, uint32_t tag, uint32_t scl, OTF_KeyValueList *kv)
{
    (void)scl;
    return on_rma(ud, OTF_RMAEND_RECORD, time, process, 0, remote, comm, tag, 0, kv);
}

static int on_enter_snap(void *ud, uint64_t time, uint64_t original, uint32_t function,
                         uint32_t process, uint32_t source, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)source;
    (void)kv;
    if (w->phase == PH_PROBE) {
        if (!w->probe_found || time > w->probe_max)
            w->probe_max = time;
        w->probe_found = 1;
        return OTF_RETURN_OK;
    }
    if (w->phase == PH_SAMPLES)
        return verdict(w, w->h->sample_frame
                              ? w->h->sample_frame(w->h->arg, time, process, function, original)
                              : 0);
    return verdict(w, push(w, process, function, original));
}

static int on_send_snap(void *ud, uint64_t time, uint64_t original, uint32_t sender,
                        uint32_t receiver, uint32_t comm, uint32_t tag, uint32_t length,
                        uint32_t source, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)source;
    (void)kv;
    if (w->phase == PH_PROBE) {
        if (!w->probe_found || time > w->probe_max)
            w->probe_max = time;
        w->probe_found = 1;
        return OTF_RETURN_OK;
    }
    if (w->phase == PH_SAMPLES)
        return OTF_RETURN_OK;
    return verdict(w, msg_add(w, original, sender, receiver, comm, tag, length));
}

static int on_func_summary(void *ud, uint64_t time, uint32_t function, uint32_t process,
                           uint64_t calls, uint64_t excl, uint64_t incl, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)kv;
    if (w->phase == PH_PROBE) {
        if (!w->probe_found || time > w->probe_max)
            w->probe_max = time;
        w->probe_found = 1;
        return OTF_RETURN_OK;
    }
    return verdict(w, w->h->function_summary
                          ? w->h->function_summary(w->h->arg, time, process, function, calls,
                                                   excl, incl) : 0);
}

/* Definitions: what open needs to know. */
static int on_timer(void *ud, uint32_t stream, uint64_t ticks, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)stream;
    (void)kv;
    if (!w->info.resolution)
        w->info.resolution = ticks;
    return OTF_RETURN_OK;
}

/* vftr's key of the RMA matching id (vfdconv.h), by its name; its
 * description tells the files that put RMAEnd's target in remote */
static int on_keyvalue(void *ud, uint32_t stream, uint32_t key, OTF_Type type, const char *name,
                       const char *description, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)stream, (void)kv;
    if (name && type == OTF_UINT64 && strcmp(name, VFTR_VFDCONV_KV_RMA_MATCH) == 0) {
        w->rma_key = key;
        w->rma_remote_is_target =
            description && strcmp(description, VFTR_VFDCONV_KV_RMA_MATCH_DESC_V1) == 0;
    }
    return OTF_RETURN_OK;
}

static int on_timerange(void *ud, uint32_t stream, uint64_t min, uint64_t max,
                        OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)stream;
    (void)kv;
    if (!w->have_range || min < w->info.first)
        w->info.first = min;
    if (!w->have_range || max > w->info.last)
        w->info.last = max;
    w->have_range = 1;
    return OTF_RETURN_OK;
}

static int on_samplepoint(void *ud, uint32_t stream, uint64_t time, OTF_AuxSamplePointType type,
                          OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;
    uint64_t **arr = type == OTF_AUX_SAMPLE_POINT_SUMMARY ? &w->sums : &w->snaps;
    size_t *n = type == OTF_AUX_SAMPLE_POINT_SUMMARY ? &w->nsums : &w->nsnaps;
    size_t *cap = type == OTF_AUX_SAMPLE_POINT_SUMMARY ? &w->capsums : &w->capsnaps;

    (void)stream;
    (void)kv;
    if (vftr_reserve((void **)arr, cap, *n, sizeof **arr) < 0)
        return verdict(w, -ENOMEM);
    (*arr)[(*n)++] = time;
    return OTF_RETURN_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Sorts and deduplicates a list of sample points. */
static size_t sort_unique(uint64_t *v, size_t n)
{
    size_t k = 0;

    if (n == 0)
        return 0;   /* v may be NULL: qsort must not see it */
    qsort(v, n, sizeof *v, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

/* ------------------------------------------------------------ replay */

/*
 * The replay from the snapshot time T to the window start a only has to
 * bring the call stacks and the messages in flight forward, and neither
 * needs the global time order: a stack belongs to one process, whose
 * events are in one stream, in time order; messages are paired by counting
 * receives per channel (see struct chan).  So the replay reads each stream
 * on its own, without the k-way merge, on up to w->nworkers threads, each
 * with its own reader and file manager (one OTF reader is not for several
 * threads) and a handler array with only the records the state needs.
 *
 * Sharing: before the threads start, every process of the streams read
 * gets its entry in w->procs (the snapshot may not have named it), so that
 * the threads only look the map up; each process belongs to one stream and
 * so to one thread, which alone touches its stack.  Sends and receive
 * counts go to per-worker lists, merged after the join.
 */
struct worker {
    struct vftr_window *w;
    uint32_t self;                   /* 1 + its index: the owner mark of its processes */
    OTF_FileManager *manager;
    OTF_HandlerArray *handlers;
    /* the streams it has opened (kept open between replays), by id */
    OTF_RStream **streams;
    size_t nstreams, capstreams;
    struct vftr_u64map streammap;    /* stream id -> index in streams */
    size_t *todo;                    /* this replay's streams (indices) */
    size_t ntodo, captodo;
    OTF_Reader *reader;              /* only for a merged replay (see replay_plan) */
    int merged;
    uint64_t lo, hi;                 /* the interval to replay */
    int stopped;                     /* a handler saw time >= hi */
    struct inflight *sends;          /* sends in [lo, hi), each stream in time order */
    size_t nsends, capsends;
    struct chantab recvs;            /* receives in [lo, hi) per channel */
    vftr_otf_ev *batch;              /* WORKER_BATCH records decoded at a time */
    uint32_t pid;                    /* wk_apply's last process ... */
    struct pstate *proc;             /* ... and its state (NULL: not its own) */
    struct chan *chan;               /* wk_apply's last channel */
    uint64_t replayed, too_deep, bytes0;
    int rc;                          /* 0, -ENOMEM, -EIO */
    char why[VFTR_ERRMSG_MAX];       /* the OTF library's reason for -EIO */
    int started;                     /* a thread runs it */
    pthread_t thread;
};

/*
 * What one record of [lo, hi) does to the state: a frame pushed or popped,
 * a send kept, a receive counted; collectives change nothing and are only
 * counted.  Records of processes the worker does not own (disabled ones)
 * are passed over.  0 or -ENOMEM.
 */
static struct pstate *wk_proc(struct worker *k, uint32_t process)
{
    const struct vftr_window *w = k->w;
    struct pstate *p = process < w->npdirect ? (w->pdirect[process]
                                                    ? &w->procs[w->pdirect[process] - 1] : NULL)
                                             : proc_find(w, process);

    return p && p->owner == k->self ? p : NULL;
}

/* Records come in runs of one process and one channel: the last process
 * and the last channel are kept at hand (k->pid/k->proc, k->chan; reset by
 * replay_start, the channel also when the table grows). */
static inline __attribute__((always_inline)) int wk_apply(struct worker *k, const vftr_otf_ev *e)
{
    struct pstate *p;
    struct inflight m;
    struct chan *c;

    if (e->process != k->pid || !k->proc) {
        k->pid = e->process;
        k->proc = wk_proc(k, e->process);
    }
    if (!(p = k->proc))
        return 0;
    k->replayed++;
    switch (e->type) {
    case OTF_ENTER_RECORD:
        if (p->depth < p->cap && p->depth < VFTR_WINDOW_MAX_DEPTH) {
            p->stack[p->depth++] = (struct frame){ e->u[0], e->time };
            return 0;
        }
        return stack_push(p, e->u[0], e->time, &k->too_deep);
    case OTF_LEAVE_RECORD:
        if (p->depth > 0 && p->depth <= VFTR_WINDOW_MAX_DEPTH &&
            p->stack[p->depth - 1].function == e->u[0])
            p->depth--;          /* the usual case of stack_pop */
        else
            stack_pop(p, e->u[0]);
        return 0;
    case OTF_SEND_RECORD:
        m = (struct inflight){ e->time, e->process, e->u[0], e->u[1], e->u[2], e->u[3] };
        return msg_append(&k->sends, &k->nsends, &k->capsends, &m);
    case OTF_RECEIVE_RECORD: {
        uint32_t from = rank_of(k->w, e->u[0]), to = rank_of(k->w, e->process);

        c = k->chan;
        if (c && c->sender == from && c->receiver == to && c->comm == e->u[1] &&
            c->tag == e->u[2]) {
            c->count++;
            return 0;
        }
        if (chan_add(&k->recvs, from, to, e->u[1], e->u[2], 1) < 0)
            return -ENOMEM;
        k->chan = chan_slot(&k->recvs, from, to, e->u[1], e->u[2]);
        return 0;
    }
    default:
        return 0;
    }
}

static int wk_fail(struct worker *k, int rc)
{
    if (!k->rc)
        k->rc = rc;
    return OTF_RETURN_ABORT;
}

/*
 * The merged replay (a process in several streams) goes through an
 * OTF_Reader and these handlers: each places the record (before lo — a
 * time search stops a little early — it is skipped, at or after hi the
 * read is done: the handler aborts it and says so in k->stopped), then
 * applies it like a scanned one.
 */
static int wk_handle(struct worker *k, const vftr_otf_ev *e)
{
    if (e->time < k->lo)
        return OTF_RETURN_OK;
    if (e->time >= k->hi) {
        k->stopped = 1;
        return OTF_RETURN_ABORT;
    }
    return wk_apply(k, e) < 0 ? wk_fail(k, -ENOMEM) : OTF_RETURN_OK;
}

static int wk_enter(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return wk_handle(ud, &(vftr_otf_ev){ .time = time, .type = OTF_ENTER_RECORD,
                                         .process = process, .u = { function } });
}

static int wk_leave(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return wk_handle(ud, &(vftr_otf_ev){ .time = time, .type = OTF_LEAVE_RECORD,
                                         .process = process, .u = { function } });
}

static int wk_send(void *ud, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return wk_handle(ud, &(vftr_otf_ev){ .time = time, .type = OTF_SEND_RECORD,
                                         .process = sender,
                                         .u = { receiver, comm, tag, length } });
}

static int wk_recv(void *ud, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    (void)source;
    (void)kv;
    return wk_handle(ud, &(vftr_otf_ev){ .time = time, .type = OTF_RECEIVE_RECORD,
                                         .process = receiver,
                                         .u = { sender, comm, tag, length } });
}

/* Collective records change no state; they are only counted (replayed). */
static int wk_collop(void *ud, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                     uint32_t root, uint32_t sent, uint32_t received, uint64_t duration,
                     uint32_t source, OTF_KeyValueList *kv)
{
    (void)op, (void)comm, (void)root, (void)sent, (void)received, (void)duration;
    (void)source, (void)kv;
    return wk_handle(ud, &(vftr_otf_ev){ .time = time, .type = OTF_COLLOP_RECORD,
                                         .process = process });
}

static int wk_coll_begin(void *ud, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                         uint32_t comm, uint32_t root, uint64_t sent, uint64_t received,
                         uint32_t scl, OTF_KeyValueList *kv)
{
    (void)op, (void)id, (void)comm, (void)root, (void)sent, (void)received, (void)scl;
    (void)kv;
    return wk_handle(ud, &(vftr_otf_ev){ .time = time, .type = OTF_BEGINCOLLOP_RECORD,
                                         .process = process });
}

static int wk_coll_end(void *ud, uint64_t time, uint32_t process, uint64_t id,
                       OTF_KeyValueList *kv)
{
    (void)id, (void)kv;
    return wk_handle(ud, &(vftr_otf_ev){ .time = time, .type = OTF_ENDCOLLOP_RECORD,
                                         .process = process });
}

static void worker_release(struct worker *k)
{
    for (size_t i = 0; i < k->nstreams; i++)
        OTF_RStream_close(k->streams[i]);
    free(k->streams);
    vftr_u64map_release(&k->streammap);
    free(k->todo);
    if (k->handlers)
        OTF_HandlerArray_close(k->handlers);
    if (k->reader)
        OTF_Reader_close(k->reader);
    if (k->manager)
        OTF_FileManager_close(k->manager);
    free(k->sends);
    free(k->recvs.slots);
    free(k->batch);
}

static int worker_init(struct worker *k, struct vftr_window *w, size_t index)
{
    struct { OTF_FunctionPointer *fn; uint32_t record; } const table[] = {
        { HANDLER(wk_enter), OTF_ENTER_RECORD },
        { HANDLER(wk_leave), OTF_LEAVE_RECORD },
        { HANDLER(wk_send), OTF_SEND_RECORD },
        { HANDLER(wk_recv), OTF_RECEIVE_RECORD },
        { HANDLER(wk_collop), OTF_COLLOP_RECORD },
        { HANDLER(wk_coll_begin), OTF_BEGINCOLLOP_RECORD },
        { HANDLER(wk_coll_end), OTF_ENDCOLLOP_RECORD },
    };

    *k = (struct worker){ .w = w, .self = (uint32_t)index + 1 };
    if (!(k->manager = OTF_FileManager_open(16)) || !(k->handlers = OTF_HandlerArray_open()) ||
        !(k->batch = malloc(WORKER_BATCH * sizeof *k->batch)))
        return -ENOMEM;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        OTF_HandlerArray_setHandler(k->handlers, table[i].fn, table[i].record);
        OTF_HandlerArray_setFirstHandlerArg(k->handlers, k, table[i].record);
    }
    vftr_otf_manager_set_progress(k->manager, w->progress, w->progress_arg);
    return 0;
}

/* Adds stream `id` to this replay's list, opening it the first time. */
static int worker_take(struct worker *k, uint32_t id)
{
    long i = vftr_u64map_get(&k->streammap, id);

    if (i < 0) {
        OTF_RStream *s;

        if (vftr_reserve((void **)&k->streams, &k->capstreams, k->nstreams,
                         sizeof *k->streams) < 0)
            return -ENOMEM;
        if (!(s = OTF_RStream_open(k->w->stub, id, k->manager)))
            return -EIO;
        if (vftr_u64map_put(&k->streammap, id, (uint32_t)k->nstreams) < 0) {
            OTF_RStream_close(s);
            return -ENOMEM;
        }
        i = (long)k->nstreams;
        k->streams[k->nstreams++] = s;
    }
    if (vftr_reserve((void **)&k->todo, &k->captodo, k->ntodo, sizeof *k->todo) < 0)
        return -ENOMEM;
    k->todo[k->ntodo++] = (size_t)i;
    return 0;
}

static void worker_io_error(struct worker *k)
{
    if (!k->rc) {
        k->rc = -EIO;
        vftr_trace_otf_reason(k->why, sizeof k->why);
    }
}

/* Reads the worker's streams one after the other: a time search to lo, then
 * the records of [lo, hi), decoded in batches (vftr_otf_scan_events). */
static void *worker_run(void *arg)
{
    struct worker *k = arg;

    if (k->merged) {
        OTF_Reader_setTimeInterval(k->reader, k->lo, k->hi);
        if (OTF_Reader_readEvents(k->reader, k->handlers) == OTF_READ_ERROR && !k->stopped)
            worker_io_error(k);
        return NULL;
    }
    for (size_t i = 0; i < k->ntodo && !k->rc; i++) {
        OTF_RStream *s = k->streams[k->todo[i]];
        OTF_RBuffer *b = OTF_RStream_getEventBuffer(s);

        if (!b)
            continue;            /* a stream without events */
        if (!OTF_RBuffer_searchTime(b, k->lo)) {
            worker_io_error(k);
            break;
        }
        for (int done = 0; !done && !k->rc;) {
            long n = vftr_otf_scan_events(b, k->lo, k->hi, k->w->rma_key, k->batch,
                                          WORKER_BATCH, &done);

            if (n < 0) {
                worker_io_error(k);
                break;
            }
            for (long j = 0; j < n; j++) {
                if (wk_apply(k, &k->batch[j]) < 0) {
                    wk_fail(k, -ENOMEM);
                    break;
                }
            }
        }
    }
    return NULL;
}

/* How many threads a replay may use: the caller's choice, else the CPUs. */
static size_t worker_limit(const struct vftr_window *w)
{
    unsigned n = w->threads ? w->threads : vftr_otfreplay_default_jobs();

    return n < VFTR_WINDOW_MAX_THREADS ? n : VFTR_WINDOW_MAX_THREADS;
}

/* Does stream entry e have a process enabled in the window's reader? */
static int stream_enabled(struct vftr_window *w, const OTF_MapEntry *e)
{
    for (uint32_t j = 0; j < e->n; j++)
        if (OTF_Reader_getProcessStatus(w->reader, e->values[j]))
            return 1;
    return 0;
}

/* The workers look processes up per event: ids below WINDOW_DIRECT_IDS go
 * through a plain table (built before the threads start, read-only while
 * they run), the others through the map. */
#define WINDOW_DIRECT_IDS 65536u

static int direct_index(struct vftr_window *w)
{
    size_t n = 0;

    for (size_t i = 0; i < w->nprocs; i++)
        if (w->procs[i].process < WINDOW_DIRECT_IDS && w->procs[i].process >= n)
            n = (size_t)w->procs[i].process + 1;
    if (n > w->npdirect) {
        uint32_t *t = realloc(w->pdirect, n * sizeof *t);

        if (!t)
            return -ENOMEM;
        w->pdirect = t;
        w->npdirect = n;
    }
    memset(w->pdirect, 0, w->npdirect * sizeof *w->pdirect);
    for (size_t i = 0; i < w->nprocs; i++)
        if (w->procs[i].process < w->npdirect)
            w->pdirect[w->procs[i].process] = (uint32_t)i + 1;
    return 0;
}

/*
 * Gives the enabled streams to workers (round robin; streams are similar
 * in size in the traces vftr writes) and makes sure every process they
 * hold has its state entry.  Returns the number of workers to run, or
 * -errno.
 */
static long replay_plan(struct vftr_window *w, char *err, size_t errlen)
{
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(w->reader);
    uint32_t n = mc ? OTF_MasterControl_getCount(mc) : 0;
    size_t nstreams = 0, nk, limit = worker_limit(w), j = 0;
    int shared = 0;

    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);

        if (e && stream_enabled(w, e))
            nstreams++;
    }
    nk = nstreams < limit ? nstreams : limit;
    if (nk == 0)
        return 0;
    if (nk > w->nworkers) {
        struct worker *nw = realloc(w->workers, nk * sizeof *nw);

        if (!nw)
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        w->workers = nw;
        for (; w->nworkers < nk; w->nworkers++) {
            if (worker_init(&w->workers[w->nworkers], w, w->nworkers) < 0) {
                worker_release(&w->workers[w->nworkers]);
                return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            }
        }
    }
    for (size_t q = 0; q < nk; q++) {
        w->workers[q].ntodo = 0;
        w->workers[q].merged = 0;
    }
    for (size_t i = 0; i < w->nprocs; i++)
        w->procs[i].owner = 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        struct worker *k;
        int rc;

        if (!e || !stream_enabled(w, e))
            continue;
        k = &w->workers[j++ % nk];
        for (uint32_t v = 0; v < e->n; v++) {
            struct pstate *p;

            if (!OTF_Reader_getProcessStatus(w->reader, e->values[v]))
                continue;
            if (!(p = proc_of(w, e->values[v])))
                return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            if (p->owner)
                shared = 1;      /* listed before, by this stream or another */
            p->owner = k->self;
        }
        if ((rc = worker_take(k, e->argument)) < 0) {
            char why[VFTR_ERRMSG_MAX];

            return rc == -ENOMEM ? vftr_errmsg(err, errlen, rc, "out of memory")
                                 : vftr_errmsg(err, errlen, rc, "cannot open stream %u (%s)",
                                               e->argument,
                                               vftr_trace_otf_reason(why, sizeof why));
        }
    }
    if (shared) {
        /* A process in several streams: its events are in time order only
         * in the merged read of all of them, so one worker reads them all
         * through a reader of its own. */
        struct worker *k = &w->workers[0];

        if (!k->reader && !(k->reader = OTF_Reader_open(w->stub, k->manager))) {
            char why[VFTR_ERRMSG_MAX];

            return vftr_errmsg(err, errlen, -EIO, "cannot open the trace again (%s)",
                               vftr_trace_otf_reason(why, sizeof why));
        }
        OTF_Reader_setProcessStatusAll(k->reader, 0);
        for (size_t i = 0; i < w->nprocs; i++) {
            if (w->procs[i].owner) {
                w->procs[i].owner = k->self;
                OTF_Reader_enableProcess(k->reader, w->procs[i].process);
            }
        }
        k->merged = 1;
        nk = 1;
    }
    if (direct_index(w) < 0)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    return (long)nk;
}

static int cmp_msg(const void *a, const void *b)
{
    const struct inflight *x = a, *y = b;

    if (x->time != y->time)
        return (x->time > y->time) - (x->time < y->time);
    if (x->sender != y->sender)
        return (x->sender > y->sender) - (x->sender < y->sender);
    return (x->receiver > y->receiver) - (x->receiver < y->receiver);
}

/* Drops from w->msgs[from..] the sends whose channel still has receives
 * to give (the oldest first, in list order) and packs the rest; returns
 * the new count. */
static size_t take_received(struct vftr_window *w, size_t from)
{
    size_t keep = from;

    for (size_t i = from; i < w->nmsgs; i++) {
        struct chan *c = chan_get(w, &w->recvs, &w->msgs[i]);

        if (c && c->taken < c->count)
            c->taken++;
        else
            w->msgs[keep++] = w->msgs[i];
    }
    return keep;
}

/*
 * The messages in flight at a: those of the snapshot, then the sends of the
 * replay, less the oldest `count` of each channel.  Without a rank relation
 * all sends of a channel come from one process, so each worker's list holds
 * them in time order, and the snapshot's are older than all of them; with
 * one a channel is a pair of ranks whose threads may lie in several
 * workers' lists, so the sends are taken in time order over all of them.
 */
static int replay_messages(struct vftr_window *w, size_t nk)
{
    size_t from;

    chan_clear(&w->recvs);
    for (size_t q = 0; q < nk; q++) {
        const struct chantab *t = &w->workers[q].recvs;

        for (size_t i = 0; i < t->cap; i++) {
            const struct chan *c = &t->slots[i];

            if (c->count && chan_add(&w->recvs, c->sender, c->receiver, c->comm, c->tag,
                                     c->count) < 0)
                return -ENOMEM;
        }
    }
    w->nmsgs = take_received(w, 0);
    from = w->nmsgs;
    for (size_t q = 0; q < nk; q++) {
        const struct worker *k = &w->workers[q];

        for (size_t i = 0; i < k->nsends; i++) {
            struct chan *c = w->rank_of ? NULL : chan_get(w, &w->recvs, &k->sends[i]);

            if (c && c->taken < c->count)
                c->taken++;
            else if (msg_append(&w->msgs, &w->nmsgs, &w->capmsgs, &k->sends[i]) < 0)
                return -ENOMEM;
        }
    }
    if (w->rank_of) {
        if (w->nmsgs > from)
            qsort(w->msgs + from, w->nmsgs - from, sizeof *w->msgs, cmp_msg);
        w->nmsgs = take_received(w, from);
    }
    if (w->nmsgs > 0)
        qsort(w->msgs, w->nmsgs, sizeof *w->msgs, cmp_msg);
    return 0;
}

/*
 * Starts the replay of [lo, hi) on the workers' threads (see above).
 * Returns the number of workers started (0: nothing to replay) or -errno.
 * Every worker that could not get a thread runs in replay_finish().
 */
static long replay_start(struct vftr_window *w, uint64_t lo, uint64_t hi, char *err,
                         size_t errlen)
{
    long nk = replay_plan(w, err, errlen);

    for (long q = 0; q < nk; q++) {
        struct worker *k = &w->workers[q];

        k->lo = lo;
        k->hi = hi;
        k->stopped = 0;
        k->nsends = 0;
        chan_clear(&k->recvs);
        k->chan = NULL;
        k->proc = NULL;
        k->replayed = k->too_deep = 0;
        k->rc = 0;
        k->why[0] = '\0';
        k->bytes0 = vftr_otf_manager_bytes_read(k->manager);
        k->started = pthread_create(&k->thread, NULL, worker_run, k) == 0;
    }
    return nk;
}

/* Waits for the nk workers, adds up what they found; 0 or -errno. */
static int replay_finish(struct vftr_window *w, long nk, char *err, size_t errlen)
{
    int rc = 0;

    for (long q = 0; q < nk; q++) {
        if (w->workers[q].started)
            pthread_join(w->workers[q].thread, NULL);
        else
            worker_run(&w->workers[q]);
    }
    for (long q = 0; q < nk; q++) {
        struct worker *k = &w->workers[q];

        w->st->replayed += k->replayed;
        w->st->too_deep += k->too_deep;
        w->st->bytes_read += vftr_otf_manager_bytes_read(k->manager) - k->bytes0;
        if (k->rc && !rc) {
            rc = k->rc == -ENOMEM
                     ? vftr_errmsg(err, errlen, -ENOMEM, "out of memory")
                     : vftr_errmsg(err, errlen, -EIO, "cannot read the events (%s)", k->why);
        }
    }
    if (rc == 0 && nk > 0 && replay_messages(w, (size_t)nk) < 0)
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    return rc;
}

void vftr_window_set_progress(struct vftr_window *w, int (*fn)(void *arg, uint64_t bytes),
                              void *arg)
{
    w->progress = fn;
    w->progress_arg = arg;
    vftr_otf_manager_set_progress(w->manager, fn, arg);
    for (size_t i = 0; i < w->nworkers; i++)
        vftr_otf_manager_set_progress(w->workers[i].manager, fn, arg);
}

void vftr_window_set_ranks(struct vftr_window *w, uint32_t (*fn)(void *arg, uint32_t process),
                           void *arg)
{
    w->rank_of = fn;
    w->rank_arg = arg;
}

int vftr_window_set_threads(struct vftr_window *w, unsigned threads)
{
    if (threads > VFTR_WINDOW_MAX_THREADS)
        return -EINVAL;
    w->threads = threads;
    return 0;
}

/* ------------------------------------------------------------ window */

/*
 * The events of [a, b) in time order, without the reader's merge of
 * records: every enabled stream is positioned by a time search to a and
 * decoded in batches (vftr_otf_scan_events), and a heap on (time, place in
 * the master control) merges the batches: time order, equal times in stream
 * order (the reader's own merge orders those as the reference OTF does).
 * window_open() does the searches and the first batch of every stream (while
 * the replay threads run); window_deliver() merges and hands the events over,
 * decoding more as the batches run out, so at most WINDOW_BUFFER records
 * wait in memory.
 */

/* Stream `id` of the window read, opened the first time; NULL + errno. */
static struct wstream *window_stream(struct vftr_window *w, uint32_t id)
{
    long i = vftr_u64map_get(&w->wsmap, id);
    OTF_RStream *s;

    if (i >= 0)
        return &w->ws[i];
    if (vftr_reserve((void **)&w->ws, &w->capws, w->nws, sizeof *w->ws) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    if (!(s = OTF_RStream_open(w->stub, id, w->manager))) {
        errno = EIO;
        return NULL;
    }
    if (vftr_u64map_put(&w->wsmap, id, (uint32_t)w->nws) < 0) {
        OTF_RStream_close(s);
        errno = ENOMEM;
        return NULL;
    }
    w->ws[w->nws] = (struct wstream){ .s = s, .b = OTF_RStream_getEventBuffer(s) };
    return &w->ws[w->nws++];
}

/* Decodes the next batch of stream x; 0 or -EIO. */
static int window_fill(const struct vftr_window *w, struct wstream *x, uint64_t a, uint64_t b)
{
    long n = vftr_otf_scan_events(x->b, a, b, w->rma_key, x->ev, x->cap, &x->done);

    x->i = 0;
    x->n = n > 0 ? (size_t)n : 0;
    if (n < 0) {
        x->done = 1;
        return -EIO;
    }
    return 0;
}

static int window_open(struct vftr_window *w, uint64_t a, uint64_t b, char *err,
                       size_t errlen)
{
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(w->reader);
    uint32_t n = mc ? OTF_MasterControl_getCount(mc) : 0;
    char why[VFTR_ERRMSG_MAX];
    size_t batch;

    w->nwlist = 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        struct wstream *x;

        if (!e || !stream_enabled(w, e))
            continue;
        if (!(x = window_stream(w, e->argument))) {
            if (errno == ENOMEM)
                return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            return vftr_errmsg(err, errlen, -EIO, "cannot open stream %u (%s)", e->argument,
                               vftr_trace_otf_reason(why, sizeof why));
        }
        if (!x->b)
            continue;            /* a stream without events */
        if (vftr_reserve((void **)&w->wlist, &w->capwlist, w->nwlist, sizeof *w->wlist) < 0)
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        w->wlist[w->nwlist++] = (size_t)(x - w->ws);
    }
    batch = w->nwlist ? WINDOW_BUFFER / w->nwlist : WINDOW_BUFFER;
    batch = batch < WINDOW_BATCH_MIN ? WINDOW_BATCH_MIN
                                     : batch > WINDOW_BATCH_MAX ? WINDOW_BATCH_MAX : batch;
    for (size_t j = 0; j < w->nwlist; j++) {
        struct wstream *x = &w->ws[w->wlist[j]];

        if (x->cap != batch) {
            vftr_otf_ev *ev = realloc(x->ev, batch * sizeof *ev);

            if (!ev)
                return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            x->ev = ev;
            x->cap = batch;
        }
        x->n = x->i = 0;
        x->done = 0;
        if (!OTF_RBuffer_searchTime(x->b, a) || window_fill(w, x, a, b) < 0)
            return vftr_errmsg(err, errlen, -EIO, "cannot read the events (%s)",
                               vftr_trace_otf_reason(why, sizeof why));
    }
    return 0;
}

/* The merge's heap: each stream by the time of its next record, equal
 * times by its place in the list. */
struct wkey {
    uint64_t time;
    size_t j;                /* index in w->wlist */
};

static inline int wkey_before(const struct wkey *x, const struct wkey *y)
{
    return x->time < y->time || (x->time == y->time && x->j < y->j);
}

static void window_sift(struct wkey *hp, size_t n, size_t i)
{
    struct wkey top = hp[i];

    for (;;) {
        size_t l = 2 * i + 1, m;

        if (l >= n)
            break;
        m = l + 1 < n && wkey_before(&hp[l + 1], &hp[l]) ? l + 1 : l;
        if (!wkey_before(&hp[m], &top))
            break;
        hp[i] = hp[m];
        i = m;
    }
    hp[i] = top;
}

/* Starts the merge of the streams' first batches (after window_open). */
static int window_merge_start(struct vftr_window *w, char *err, size_t errlen)
{
    struct wkey *hp;
    size_t ids = 0;

    if (w->nwlist > w->capwheap) {
        hp = realloc(w->wheap, w->nwlist * sizeof *hp);
        if (!hp)
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        w->wheap = hp;
        w->capwheap = w->nwlist;
    }
    /* the process filter's table: ids up to the largest the window's
     * processes have (below WINDOW_DIRECT_IDS), filled as they are met */
    for (size_t i = 0; i < w->nprocs; i++)
        if (w->procs[i].process < WINDOW_DIRECT_IDS && w->procs[i].process >= ids)
            ids = (size_t)w->procs[i].process + 1;
    if (ids > w->npstat) {
        uint8_t *t = realloc(w->pstat, ids);

        if (!t)
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        w->pstat = t;
        w->npstat = ids;
    }
    if (w->npstat)
        memset(w->pstat, 0, w->npstat);
    hp = w->wheap;
    w->nheap = 0;
    if (w->nwlist <= WINDOW_LINEAR) {
        /* few streams: every one keeps its place, UINT64_MAX when through
         * (no event of [a, b) has that time) */
        for (size_t j = 0; j < w->nwlist; j++) {
            const struct wstream *x = &w->ws[w->wlist[j]];

            hp[j] = (struct wkey){ x->n > 0 ? x->ev[0].time : UINT64_MAX, j };
        }
        w->nheap = w->nwlist;
        return 0;
    }
    for (size_t j = 0; j < w->nwlist; j++) {
        const struct wstream *x = &w->ws[w->wlist[j]];

        if (x->n > 0)
            hp[w->nheap++] = (struct wkey){ x->ev[0].time, j };
    }
    for (size_t i = w->nheap / 2; i-- > 0;)
        window_sift(hp, w->nheap, i);
    return 0;
}

/* Is the process of a window event enabled in the window's reader? */
static int window_wants_slow(struct vftr_window *w, uint32_t process)
{
    /* a read of every process starts with an empty table (no process state
     * yet): it grows to the ids met, so that an event costs a lookup, not
     * the reader's list walk */
    if (process >= w->npstat && process < WINDOW_DIRECT_IDS) {
        size_t ids = w->npstat ? w->npstat : 64;
        uint8_t *t;

        while (ids <= process)
            ids *= 2;
        if (ids > WINDOW_DIRECT_IDS)
            ids = WINDOW_DIRECT_IDS;
        if ((t = realloc(w->pstat, ids)) != NULL) {
            memset(t + w->npstat, 0, ids - w->npstat);
            w->pstat = t;
            w->npstat = ids;
        }
    }
    if (process < w->npstat) {
        if (!w->pstat[process])
            w->pstat[process] = OTF_Reader_getProcessStatus(w->reader, process) ? 2 : 1;
        return w->pstat[process] == 2;
    }
    return OTF_Reader_getProcessStatus(w->reader, process) != 0;
}

static inline int window_wants(struct vftr_window *w, uint32_t process)
{
    if (process < w->npstat && w->pstat[process])
        return w->pstat[process] == 2;
    return window_wants_slow(w, process);
}

/* window_take() for the last record of a batch: copies it to w->last,
 * refills the batch. */
static const vftr_otf_ev *window_take_last(struct vftr_window *w, struct wstream *x,
                                           const vftr_otf_ev *e, uint64_t a, uint64_t b,
                                           uint64_t *next, char *err, size_t errlen)
{
    w->last = *e;
    if (!x->done && window_fill(w, x, a, b) < 0) {
        char why[VFTR_ERRMSG_MAX];

        vftr_errmsg(err, errlen, -EIO, "cannot read the events (%s)",
                    vftr_trace_otf_reason(why, sizeof why));
        return NULL;
    }
    *next = x->i < x->n ? x->ev[x->i].time : UINT64_MAX;
    return &w->last;
}

/*
 * Takes the next record of stream x (its batch refilled when used up) and
 * returns it; *next gets the time of the one after it, UINT64_MAX when the
 * stream is through.  A record whose batch was refilled is copied to
 * w->last first.  NULL on a read error (err says why).
 */
static inline const vftr_otf_ev *window_take(struct vftr_window *w, struct wstream *x,
                                             uint64_t a, uint64_t b, uint64_t *next,
                                             char *err, size_t errlen)
{
    const vftr_otf_ev *e = &x->ev[x->i++];

    if (x->i < x->n) {
        *next = x->ev[x->i].time;
        return e;
    }
    return window_take_last(w, x, e, a, b, next, err, errlen);
}

/*
 * The next event of [a, b) in the merge (of an enabled process) in *out:
 * 1, 0 at the end, -errno.  The record stays valid until the next call.
 * Up to WINDOW_LINEAR streams the earliest is found by a look at each,
 * beyond through the heap.
 */
static inline __attribute__((always_inline)) int window_next(struct vftr_window *w, uint64_t a,
                                                          uint64_t b, const vftr_otf_ev **out,
                                                          char *err, size_t errlen)
{
    struct wkey *hp = w->wheap;
    const vftr_otf_ev *e;
    uint64_t next;

    if (w->nwlist <= WINDOW_LINEAR) {
        for (;;) {
            size_t j = 0;
            uint64_t t = UINT64_MAX;      /* no stream open: nothing (hp may be NULL) */

            for (size_t q = 0; q < w->nheap; q++) {
                if (hp[q].time < t) {     /* equal times: the earlier stream */
                    t = hp[q].time;
                    j = q;
                }
            }
            if (t == UINT64_MAX)
                return 0;
            if (!(e = window_take(w, &w->ws[w->wlist[j]], a, b, &next, err, errlen)))
                return -EIO;
            hp[j].time = next;
            if (window_wants(w, e->process)) {
                *out = e;
                return 1;
            }
        }
    }
    while (w->nheap > 0) {
        if (!(e = window_take(w, &w->ws[w->wlist[hp[0].j]], a, b, &next, err, errlen)))
            return -EIO;
        if (next == UINT64_MAX)       /* the stream is through */
            hp[0] = hp[--w->nheap];
        else
            hp[0].time = next;
        if (w->nheap > 1)
            window_sift(hp, w->nheap, 0);
        if (window_wants(w, e->process)) {
            *out = e;
            return 1;
        }
    }
    return 0;
}

/* While the replay runs: the first WINDOW_BUFFER events of the merge, in
 * order, into w->merged; 0 or -errno. */
static int window_premerge(struct vftr_window *w, uint64_t a, uint64_t b, char *err,
                           size_t errlen)
{
    const vftr_otf_ev *e;
    int rc;

    w->nmerged = 0;
    if (!w->merged && !(w->merged = malloc(WINDOW_BUFFER * sizeof *w->merged)))
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    while (w->nmerged < WINDOW_BUFFER && (rc = window_next(w, a, b, &e, err, errlen)) > 0)
        w->merged[w->nmerged++] = *e;
    return rc < 0 ? rc : 0;
}

/* Delivers [a, b): the premerged events, then the rest of the merge; 0, a
 * callback's value or -errno. */
static int window_deliver(struct vftr_window *w, uint64_t a, uint64_t b, char *err,
                          size_t errlen)
{
    const vftr_otf_ev *e;
    int rc;

    for (size_t i = 0; i < w->nmerged; i++) {
        w->st->delivered++;
        if ((rc = event_call(w, &w->merged[i])) != 0)
            return rc;
    }
    if (w->nmerged < WINDOW_BUFFER)
        return 0;
    while ((rc = window_next(w, a, b, &e, err, errlen)) > 0) {
        w->st->delivered++;
        if ((rc = event_call(w, e)) != 0)
            return rc;
    }
    return rc;
}

/* ------------------------------------------------------------ open */

/*
 * First and last event time from the event files' own properties (each
 * stream's buffer knows the first and last time stamp of its file: one
 * small read at each end), for traces without DefTimeRange.
 */
static void event_span(struct vftr_window *w)
{
    w->info.have_events =
        vftr_trace_event_span(w->stub, w->manager, w->reader, &w->info.first, &w->info.last);
}

struct vftr_window *vftr_window_open(const char *namestub, OTF_FileManager *manager, char *err,
                                     size_t errlen)
{
    struct vftr_window *w = calloc(1, sizeof *w);
    char why[VFTR_ERRMSG_MAX];
    int e = ENOMEM;

    if (!w || !(w->stub = strdup(namestub))) {
        vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto fail;
    }
    w->manager = manager;
    if (!manager) {
        w->manager = OTF_FileManager_open(64);
        w->own_manager = 1;
        if (!w->manager) {
            vftr_errmsg(err, errlen, -ENOMEM, "cannot create an OTF file manager");
            goto fail;
        }
    }
    w->reader = vftr_trace_open(namestub, w->manager, err, errlen);
    if (!w->reader) {
        char master[4096];
        struct stat sb;

        snprintf(master, sizeof master, "%s.otf", namestub);
        e = stat(master, &sb) < 0 ? ENOENT : EIO;
        goto fail;
    }
    w->handlers = OTF_HandlerArray_open();
    if (!w->handlers) {
        vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto fail;
    }
    struct { OTF_FunctionPointer *fn; uint32_t record; } const table[] = {
        { HANDLER(on_timer), OTF_DEFTIMERRESOLUTION_RECORD },
        { HANDLER(on_timerange), OTF_DEFTIMERANGE_RECORD },
        { HANDLER(on_keyvalue), OTF_DEFKEYVALUE_RECORD },
        { HANDLER(on_samplepoint), OTF_DEFAUXSAMPLEPOINT_RECORD },
        { HANDLER(on_enter), OTF_ENTER_RECORD },
        { HANDLER(on_leave), OTF_LEAVE_RECORD },
        { HANDLER(on_send), OTF_SEND_RECORD },
        { HANDLER(on_recv), OTF_RECEIVE_RECORD },
        { HANDLER(on_collop), OTF_COLLOP_RECORD },
        { HANDLER(on_coll_begin), OTF_BEGINCOLLOP_RECORD },
        { HANDLER(on_coll_end), OTF_ENDCOLLOP_RECORD },
        { HANDLER(on_counter), OTF_COUNTER_RECORD },
        { HANDLER(on_fileop), OTF_FILEOPERATION_RECORD },
        { HANDLER(on_file_begin), OTF_BEGINFILEOP_RECORD },
        { HANDLER(on_file_end), OTF_ENDFILEOP_RECORD },
        { HANDLER(on_rma_put), OTF_RMAPUT_RECORD },
        { HANDLER(on_rma_putre), OTF_RMAPUTRE_RECORD },
        { HANDLER(on_rma_get), OTF_RMAGET_RECORD },
        { HANDLER(on_rma_end), OTF_RMAEND_RECORD },
        { HANDLER(on_enter_snap), OTF_ENTERSNAPSHOT_RECORD },
        { HANDLER(on_send_snap), OTF_SENDSNAPSHOT_RECORD },
        { HANDLER(on_func_summary), OTF_FUNCTIONSUMMARY_RECORD },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        OTF_HandlerArray_setHandler(w->handlers, table[i].fn, table[i].record);
        OTF_HandlerArray_setFirstHandlerArg(w->handlers, w, table[i].record);
    }
    if (OTF_Reader_readDefinitions(w->reader, w->handlers) == OTF_READ_ERROR || w->cb_rc) {
        e = w->cb_rc == -ENOMEM ? ENOMEM : EIO;
        vftr_errmsg(err, errlen, -e, "cannot read the definitions (%s)",
                    w->cb_rc ? "out of memory" : vftr_trace_otf_reason(why, sizeof why));
        goto fail;
    }
    w->cb_rc = 0;
    w->nsnaps = sort_unique(w->snaps, w->nsnaps);
    w->nsums = sort_unique(w->sums, w->nsums);
    w->info.nsnapshots = w->nsnaps;
    w->info.nsummaries = w->nsums;
    {
        /* DefTimeRange may be wider than the events; the files decide
         * whether there are any. */
        uint64_t first = w->info.first, last = w->info.last;
        int have_range = w->have_range;

        event_span(w);
        if (have_range && w->info.have_events) {
            w->info.first = first;
            w->info.last = last;
        }
    }
    if (!w->info.have_events)
        w->info.first = w->info.last = 0;
    return w;
fail:
    vftr_window_free(w);
    errno = e;
    return NULL;
}

void vftr_window_free(struct vftr_window *w)
{
    if (!w)
        return;
    if (w->handlers)
        OTF_HandlerArray_close(w->handlers);
    if (w->reader)
        OTF_Reader_close(w->reader);
    if (w->own_manager && w->manager)
        OTF_FileManager_close(w->manager);
    for (size_t i = 0; i < w->nprocs; i++)
        free(w->procs[i].stack);
    free(w->procs);
    vftr_u64map_release(&w->procmap);
    for (size_t i = 0; i < w->nworkers; i++)
        worker_release(&w->workers[i]);
    free(w->workers);
    free(w->recvs.slots);
    for (size_t i = 0; i < w->nws; i++) {
        if (w->ws[i].s)
            OTF_RStream_close(w->ws[i].s);
        free(w->ws[i].ev);
    }
    free(w->ws);
    vftr_u64map_release(&w->wsmap);
    free(w->wlist);
    free(w->wheap);
    free(w->merged);
    free(w->pstat);
    free(w->pdirect);
    free(w->msgs);
    free(w->snaps);
    free(w->sums);
    free(w->stub);
    free(w);
}

const struct vftr_window_info *vftr_window_info(const struct vftr_window *w)
{
    return &w->info;
}

OTF_Reader *vftr_window_reader(struct vftr_window *w)
{
    return w->reader;
}

OTF_FileManager *vftr_window_manager(struct vftr_window *w)
{
    return w->manager;
}

/* ------------------------------------------------------------ reads */

static int read_failed(struct vftr_window *w, char *err, size_t errlen, const char *what)
{
    char why[VFTR_ERRMSG_MAX];

    if (w->cb_rc == -ENOMEM)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    if (w->cb_rc)
        return w->cb_rc;
    return vftr_errmsg(err, errlen, -EIO, "cannot read the %s (%s)", what,
                       vftr_trace_otf_reason(why, sizeof why));
}

typedef uint64_t (*reader_fn)(OTF_Reader *, OTF_HandlerArray *);

/* One merged read of [lo, hi) in `phase`; 0 or -errno. */
static int read_interval(struct vftr_window *w, reader_fn fn, enum phase phase, uint64_t lo,
                         uint64_t hi, char *err, size_t errlen, const char *what)
{
    uint64_t n;

    w->phase = phase;
    w->cb_rc = 0;
    OTF_Reader_setTimeInterval(w->reader, lo, hi);
    n = fn(w->reader, w->handlers);
    if (w->cb_rc || (n == OTF_READ_ERROR && !(phase == PH_PROBE && w->probe_found)))
        return read_failed(w, err, errlen, what);
    return 0;
}

/* The latest time <= t among `v` (sorted); 0 or -ENOENT. */
static int index_before(const uint64_t *v, size_t n, uint64_t t, uint64_t *out)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (v[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -ENOENT;
    *out = v[lo - 1];
    return 0;
}

/*
 * The latest record time <= t in the snapshot or statistics files, by
 * reads of [t - span, t] with a doubling span: each read is a binary search
 * plus the records of the span, so the total is about twice the distance
 * to the record found.
 */
static int search_before(struct vftr_window *w, reader_fn fn, uint64_t t, uint64_t *out,
                         char *err, size_t errlen, const char *what)
{
    uint64_t first = w->info.first;
    uint64_t span = w->info.last > first ? (w->info.last - first) / 512 : 1;
    uint64_t hi = t == UINT64_MAX ? t : t + 1;

    if (span == 0)
        span = 1;
    for (;;) {
        uint64_t lo = t > span ? t - span : 0;
        int rc;

        if (lo < first && first <= t)
            lo = 0;              /* the rest of the trace: anything at its start */
        w->probe_found = 0;
        rc = read_interval(w, fn, PH_PROBE, lo, hi, err, errlen, what);
        if (rc < 0)
            return rc;
        if (w->probe_found) {
            *out = w->probe_max;
            return 0;
        }
        if (lo == 0)
            return -ENOENT;
        span = span > UINT64_MAX / 2 ? UINT64_MAX : span * 2;
    }
}

int vftr_window_snapshot_before(struct vftr_window *w, uint64_t t, uint64_t *time, char *err,
                                size_t errlen)
{
    struct vftr_window_stats scratch = { 0 };

    if (!w->st)
        w->st = &scratch;
    int rc = w->nsnaps ? index_before(w->snaps, w->nsnaps, t, time)
                       : search_before(w, OTF_Reader_readSnapshots, t, time, err, errlen,
                                       "snapshots");
    if (w->st == &scratch)
        w->st = NULL;
    return rc;
}

static int cmp_frame_enter(const void *a, const void *b)
{
    const struct frame *x = a, *y = b;

    return (x->enter > y->enter) - (x->enter < y->enter);
}

static int cmp_proc(const void *a, const void *b)
{
    const struct pstate *x = a, *y = b;

    return (x->process > y->process) - (x->process < y->process);
}

/* Hands the state at a to the caller: open frames, then messages. */
static int deliver_state(struct vftr_window *w)
{
    const struct vftr_window_handler *h = w->h;

    /* Processes ascending: sort a copy, the map points into w->procs. */
    struct pstate *sorted = malloc((w->nprocs ? w->nprocs : 1) * sizeof *sorted);
    int rc = 0;

    if (!sorted)
        return -ENOMEM;
    if (w->nprocs > 0) {
        memcpy(sorted, w->procs, w->nprocs * sizeof *sorted);
        qsort(sorted, w->nprocs, sizeof *sorted, cmp_proc);
    }
    for (size_t i = 0; i < w->nprocs && rc == 0; i++) {
        const struct pstate *p = &sorted[i];
        size_t d = p->depth < VFTR_WINDOW_MAX_DEPTH ? p->depth : VFTR_WINDOW_MAX_DEPTH;

        for (size_t k = 0; k < d && rc == 0 && h->open_frame; k++)
            rc = h->open_frame(h->arg, p->process, p->stack[k].function, p->stack[k].enter,
                               (uint32_t)k + 1);
    }
    for (size_t i = 0; i < w->nmsgs && rc == 0 && h->open_message; i++) {
        const struct inflight *m = &w->msgs[i];

        rc = h->open_message(h->arg, m->time, m->sender, m->receiver, m->comm, m->tag,
                             m->length);
    }
    free(sorted);
    return rc;
}

int vftr_window_read(struct vftr_window *w, uint64_t a, uint64_t b,
                     const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                     char *err, size_t errlen)
{
    struct vftr_window_stats scratch;
    uint64_t bytes0 = vftr_otf_manager_bytes_read(w->manager);
    uint64_t t = 0;
    int rc;

    if (b <= a)
        return vftr_errmsg(err, errlen, -EINVAL, "empty window");
    if (!stats)
        stats = &scratch;
    *stats = (struct vftr_window_stats){ 0 };
    w->st = stats;
    w->h = h;
    state_clear(w);

    rc = vftr_window_snapshot_before(w, a, &t, err, errlen);
    if (rc == 0) {
        stats->from_snapshot = 1;
        stats->snapshot_time = t;
        rc = read_interval(w, OTF_Reader_readSnapshots, PH_SNAP, t, t + 1, err, errlen,
                           "snapshots");
        /* Snapshot records of a process come outermost first in every
         * writer known, but the original times say it for sure. */
        for (size_t i = 0; rc == 0 && i < w->nprocs; i++) {
            struct pstate *p = &w->procs[i];
            size_t d = p->depth < VFTR_WINDOW_MAX_DEPTH ? p->depth : VFTR_WINDOW_MAX_DEPTH;

            if (d > 1)
                qsort(p->stack, d, sizeof *p->stack, cmp_frame_enter);
        }
    } else if (rc == -ENOENT) {
        t = 0;
        stats->snapshot_time = w->info.first;
        rc = 0;
    }
    if (rc == 0) {
        /* The replay threads work out the state at a while this thread
         * positions the window's streams and merges their first records. */
        long nk = t < a ? replay_start(w, t, a, err, errlen) : 0;

        rc = nk < 0 ? (int)nk : window_open(w, a, b, err, errlen);
        if (rc == 0)
            rc = window_merge_start(w, err, errlen);
        if (rc == 0)
            rc = window_premerge(w, a, b, err, errlen);
        if (nk > 0) {
            int rc2 = replay_finish(w, nk, err, errlen);

            if (rc == 0)
                rc = rc2;
        }
    }
    if (rc == 0)
        rc = deliver_state(w);
    if (rc == 0)
        rc = window_deliver(w, a, b, err, errlen);
    stats->bytes_read += vftr_otf_manager_bytes_read(w->manager) - bytes0;
    w->st = NULL;
    w->h = NULL;
    return rc;
}

/* One read of [a, b) with no state: the events or the snapshot records. */
static int plain_read(struct vftr_window *w, reader_fn fn, enum phase phase, uint64_t a,
                      uint64_t b, const struct vftr_window_handler *h,
                      struct vftr_window_stats *stats, char *err, size_t errlen,
                      const char *what)
{
    struct vftr_window_stats scratch;
    uint64_t bytes0 = vftr_otf_manager_bytes_read(w->manager);
    int rc;

    if (b <= a)
        return vftr_errmsg(err, errlen, -EINVAL, "empty window");
    if (!stats)
        stats = &scratch;
    *stats = (struct vftr_window_stats){ 0 };
    stats->snapshot_time = a;
    w->st = stats;
    w->h = h;
    rc = read_interval(w, fn, phase, a, b, err, errlen, what);
    stats->bytes_read = vftr_otf_manager_bytes_read(w->manager) - bytes0;
    w->st = NULL;
    w->h = NULL;
    return rc;
}

int vftr_window_events(struct vftr_window *w, uint64_t a, uint64_t b,
                       const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                       char *err, size_t errlen)
{
    return plain_read(w, OTF_Reader_readEvents, PH_DELIVER, a, b, h, stats, err, errlen,
                      "events");
}

int vftr_window_summary(struct vftr_window *w, uint64_t t, const struct vftr_window_handler *h,
                        uint64_t *time, struct vftr_window_stats *stats, char *err,
                        size_t errlen)
{
    struct vftr_window_stats scratch;
    uint64_t bytes0 = vftr_otf_manager_bytes_read(w->manager);
    uint64_t s = 0;
    int rc;

    if (!stats)
        stats = &scratch;
    *stats = (struct vftr_window_stats){ 0 };
    w->st = stats;
    w->h = h;
    rc = w->nsums ? index_before(w->sums, w->nsums, t, &s)
                  : search_before(w, OTF_Reader_readStatistics, t, &s, err, errlen,
                                  "summaries");
    if (rc == 0) {
        *time = s;
        stats->snapshot_time = s;
        rc = read_interval(w, OTF_Reader_readStatistics, PH_SUMMARY, s, s + 1, err, errlen,
                           "summaries");
    }
    stats->bytes_read = vftr_otf_manager_bytes_read(w->manager) - bytes0;
    w->st = NULL;
    w->h = NULL;
    return rc;
}

int vftr_window_samples(struct vftr_window *w, uint64_t a, uint64_t b,
                        const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                        char *err, size_t errlen)
{
    return plain_read(w, OTF_Reader_readSnapshots, PH_SAMPLES, a, b, h, stats, err, errlen,
                      "snapshots");
}
