/*
 * window.c — see window.h.
 *
 * A read has three phases, all through one handler array whose handlers
 * look at w->phase:
 *   SNAP    the snapshot records at time T fill the per-process stacks and
 *           the list of messages in flight;
 *   REPLAY  the events of [T, a) move that state forward to a;
 *   DELIVER the events of [a, b) go to the caller.
 * Between REPLAY and DELIVER the state at a is handed over (open frames,
 * messages in flight).  Each phase is one OTF_Reader_setTimeInterval and
 * one merged read, so the library's binary search positions every stream
 * and nothing outside [T, b) is touched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "window.h"
#include "u64map.h"

#include "util/errmsg.h"
#include "util/tracesel.h"

#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

enum phase { PH_SNAP, PH_REPLAY, PH_DELIVER, PH_PROBE, PH_SUMMARY, PH_SAMPLES };

struct frame {
    uint32_t function;
    uint64_t enter;
};

struct pstate {
    uint32_t process;
    struct frame *stack;
    size_t depth, cap;
};

struct inflight {
    uint64_t time;
    uint32_t sender, receiver, comm, tag, length;
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
};

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, ncap * size);

    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* ------------------------------------------------------------ state */

static struct pstate *proc_of(struct vftr_window *w, uint32_t process)
{
    long i = vftr_u64map_get(&w->procmap, process);

    if (i >= 0)
        return &w->procs[i];
    if (grow((void **)&w->procs, &w->capprocs, w->nprocs, sizeof *w->procs) < 0 ||
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

static int push(struct vftr_window *w, uint32_t process, uint32_t function, uint64_t enter)
{
    struct pstate *p = proc_of(w, process);

    if (!p)
        return -ENOMEM;
    if (p->depth >= VFTR_WINDOW_MAX_DEPTH) {
        w->st->too_deep++;
        p->depth++;          /* keep the count so that leaves pair up */
        return 0;
    }
    if (grow((void **)&p->stack, &p->cap, p->depth, sizeof *p->stack) < 0)
        return -ENOMEM;
    p->stack[p->depth++] = (struct frame){ function, enter };
    return 0;
}

/* Closes the frame of `function` (and those above it); see window.h. */
static void pop(struct vftr_window *w, uint32_t process, uint32_t function)
{
    long i = vftr_u64map_get(&w->procmap, process);
    struct pstate *p;

    if (i < 0)
        return;
    p = &w->procs[i];
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

static int msg_add(struct vftr_window *w, uint64_t time, uint32_t sender, uint32_t receiver,
                   uint32_t comm, uint32_t tag, uint32_t length)
{
    if (grow((void **)&w->msgs, &w->capmsgs, w->nmsgs, sizeof *w->msgs) < 0)
        return -ENOMEM;
    w->msgs[w->nmsgs++] = (struct inflight){ time, sender, receiver, comm, tag, length };
    return 0;
}

/* A receive ends the oldest message of its channel (MPI's FIFO rule). */
static void msg_remove(struct vftr_window *w, uint32_t receiver, uint32_t sender, uint32_t comm,
                       uint32_t tag)
{
    for (size_t i = 0; i < w->nmsgs; i++) {
        struct inflight *m = &w->msgs[i];

        if (m->sender == sender && m->receiver == receiver && m->comm == comm && m->tag == tag) {
            memmove(m, m + 1, (w->nmsgs - i - 1) * sizeof *m);
            w->nmsgs--;
            return;
        }
    }
}

/* ------------------------------------------------------------ handlers */

/* Ends a handler: a failure or a callback's non-zero value stops the read. */
static int verdict(struct vftr_window *w, int rc)
{
    if (rc != 0 && w->cb_rc == 0)
        w->cb_rc = rc;
    return rc ? OTF_RETURN_ABORT : OTF_RETURN_OK;
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
    if (w->phase == PH_REPLAY) {
        w->st->replayed++;
        return verdict(w, push(w, process, function, time));
    }
    w->st->delivered++;
    return verdict(w, w->h->enter ? w->h->enter(w->h->arg, time, process, function) : 0);
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
    if (w->phase == PH_REPLAY) {
        w->st->replayed++;
        pop(w, process, function);
        return OTF_RETURN_OK;
    }
    w->st->delivered++;
    return verdict(w, w->h->leave ? w->h->leave(w->h->arg, time, process, function) : 0);
}

static int on_send(void *ud, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)source;
    (void)kv;
    if (w->phase == PH_REPLAY) {
        w->st->replayed++;
        return verdict(w, msg_add(w, time, sender, receiver, comm, tag, length));
    }
    w->st->delivered++;
    return verdict(w, w->h->send ? w->h->send(w->h->arg, time, sender, receiver, comm, tag,
                                              length) : 0);
}

static int on_recv(void *ud, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                   uint32_t tag, uint32_t length, uint32_t source, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)source;
    (void)kv;
    if (w->phase == PH_REPLAY) {
        w->st->replayed++;
        msg_remove(w, receiver, sender, comm, tag);
        return OTF_RETURN_OK;
    }
    w->st->delivered++;
    return verdict(w, w->h->recv ? w->h->recv(w->h->arg, time, receiver, sender, comm, tag,
                                              length) : 0);
}

static int on_collop(void *ud, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                     uint32_t root, uint32_t sent, uint32_t received, uint64_t duration,
                     uint32_t source, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)source;
    (void)kv;
    if (w->phase == PH_REPLAY) {
        w->st->replayed++;
        return OTF_RETURN_OK;
    }
    w->st->delivered++;
    return verdict(w, w->h->collop ? w->h->collop(w->h->arg, time, process, op, comm, root,
                                                  sent, received, duration) : 0);
}

static int on_coll_begin(void *ud, uint64_t time, uint32_t process, uint32_t op, uint64_t id,
                         uint32_t comm, uint32_t root, uint64_t sent, uint64_t received,
                         uint32_t scl, OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)scl;
    (void)kv;
    if (w->phase == PH_REPLAY) {
        w->st->replayed++;
        return OTF_RETURN_OK;
    }
    w->st->delivered++;
    return verdict(w, w->h->coll_begin ? w->h->coll_begin(w->h->arg, time, process, op, id,
                                                          comm, root, sent, received) : 0);
}

static int on_coll_end(void *ud, uint64_t time, uint32_t process, uint64_t id,
                       OTF_KeyValueList *kv)
{
    struct vftr_window *w = ud;

    (void)kv;
    if (w->phase == PH_REPLAY) {
        w->st->replayed++;
        return OTF_RETURN_OK;
    }
    w->st->delivered++;
    return verdict(w, w->h->coll_end ? w->h->coll_end(w->h->arg, time, process, id) : 0);
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
    if (grow((void **)arr, cap, *n, sizeof **arr) < 0)
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

    qsort(v, n, sizeof *v, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

/* ------------------------------------------------------------ open */

/*
 * First and last event time from the event files' own properties (each
 * stream's buffer knows the first and last time stamp of its file: one
 * small read at each end), for traces without DefTimeRange.
 */
static void event_span(struct vftr_window *w)
{
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(w->reader);
    uint32_t n = mc ? OTF_MasterControl_getCount(mc) : 0;

    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        OTF_RStream *s;
        OTF_RBuffer *b;

        if (!e || !(s = OTF_RStream_open(w->stub, e->argument, w->manager)))
            continue;
        b = OTF_RStream_getEventBuffer(s);
        if (b && OTF_RBuffer_getFileProperties(b)) {
            if (!w->info.have_events || b->firstTime < w->info.first)
                w->info.first = b->firstTime;
            if (!w->info.have_events || b->lastTime > w->info.last)
                w->info.last = b->lastTime;
            w->info.have_events = 1;
        }
        OTF_RStream_close(s);
    }
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
        { HANDLER(on_samplepoint), OTF_DEFAUXSAMPLEPOINT_RECORD },
        { HANDLER(on_enter), OTF_ENTER_RECORD },
        { HANDLER(on_leave), OTF_LEAVE_RECORD },
        { HANDLER(on_send), OTF_SEND_RECORD },
        { HANDLER(on_recv), OTF_RECEIVE_RECORD },
        { HANDLER(on_collop), OTF_COLLOP_RECORD },
        { HANDLER(on_coll_begin), OTF_BEGINCOLLOP_RECORD },
        { HANDLER(on_coll_end), OTF_ENDCOLLOP_RECORD },
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
    memcpy(sorted, w->procs, w->nprocs * sizeof *sorted);
    qsort(sorted, w->nprocs, sizeof *sorted, cmp_proc);
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
    if (rc == 0 && t < a)
        rc = read_interval(w, OTF_Reader_readEvents, PH_REPLAY, t, a, err, errlen, "events");
    if (rc == 0)
        rc = deliver_state(w);
    if (rc == 0)
        rc = read_interval(w, OTF_Reader_readEvents, PH_DELIVER, a, b, err, errlen, "events");
    stats->bytes_read = vftr_otf_manager_bytes_read(w->manager) - bytes0;
    w->st = NULL;
    w->h = NULL;
    return rc;
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
    struct vftr_window_stats scratch;
    uint64_t bytes0 = vftr_otf_manager_bytes_read(w->manager);
    int rc;

    if (b <= a)
        return vftr_errmsg(err, errlen, -EINVAL, "empty window");
    if (!stats)
        stats = &scratch;
    *stats = (struct vftr_window_stats){ 0 };
    w->st = stats;
    w->h = h;
    rc = read_interval(w, OTF_Reader_readSnapshots, PH_SAMPLES, a, b, err, errlen,
                       "snapshots");
    stats->bytes_read = vftr_otf_manager_bytes_read(w->manager) - bytes0;
    w->st = NULL;
    w->h = NULL;
    return rc;
}
