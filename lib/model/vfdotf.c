/*
 * vfdotf.c — see vfdotf.h.  The OTF calls are the only place that knows
 * OTF; the order of events comes from vfdconv's replay.
 */
#include "model/vfdotf.h"
#include "util/progress.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/snap_otf.h"
#include "model/vfdconv.h"
#include "model/u64map.h"
#include "model/window.h"
#include "otf.h"
#include "util/errmsg.h"
#include "util/regfile.h"
#include "util/tracesel.h"
#include "vfd/vftr_vfd_ext.h"

#define MAX_OPEN_FILES 64
#define OTF_BUFFER (1u << 20)

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

OTF_KeyValueList *vftr_vfdotf_timer_defs(OTF_WStream *ws, uint64_t resolution, double interval,
                                         int *ok)
{
    OTF_KeyValueList *kv = interval > 0 ? OTF_KeyValueList_new() : NULL;

    if (!kv) {
        *ok &= OTF_WStream_writeDefTimerResolution(ws, resolution) == 1;
        return NULL;
    }
    *ok &= OTF_WStream_writeDefKeyValue(ws, VFTR_VFDCONV_KEY_INTERVAL, OTF_UINT64,
                                        VFTR_VFDCONV_KV_INTERVAL,
                                        "capture sampling interval in ns") == 1;
    *ok &= OTF_WStream_writeDefKeyValue(ws, VFTR_VFDCONV_KEY_PRECISE, OTF_UINT8,
                                        VFTR_VFDCONV_KV_PRECISE,
                                        "every call of the function was recorded") == 1;
    OTF_KeyValueList_appendUint64(kv, VFTR_VFDCONV_KEY_INTERVAL,
                                  (uint64_t)llround(interval * 1e9));
    *ok &= OTF_WStream_writeDefTimerResolutionKV(ws, resolution, kv) == 1;
    return kv;
}

uint32_t vftr_vfdotf_nstreams(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o)
{
    size_t r = vftr_vfdconv_ranks(c);

    if (o->streams == 0 || o->streams > r)
        return (uint32_t)r;
    return o->streams;
}

static uint32_t stream_of(size_t rank_index, size_t ranks, uint32_t m)
{
    return (uint32_t)((uint64_t)rank_index * m / ranks) + 1;
}

/* What the snapshot options need to know of the run before its pass.
 * Every event of the replay comes from one record of the first pass
 * (a collective from one record gives two, its begin and its end), and
 * each thread adds a BeginProcess and an EndProcess: so the run has at
 * most 2 records + 2 threads distinct event times. */
static void trace_info(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o,
                       struct vftr_snap_traceinfo *t)
{
    size_t n, nr = vftr_vfdconv_ranks(c);
    const struct vftr_vfdconv_func *f = vftr_vfdconv_funcs(c, &n);
    uint64_t records = 0;

    memset(t, 0, sizeof *t);
    t->resolution = 1000000000u;
    vftr_vfdconv_time_range(c, &t->first, &t->last);
    t->functions = n;
    {
        struct vftr_u64map groups;

        memset(&groups, 0, sizeof groups);
        for (size_t i = 0; i < n; i++)
            if (vftr_u64map_get(&groups, f[i].group) < 0 &&
                vftr_u64map_put(&groups, f[i].group, 0) == 0)
                t->funcgroups++;
        vftr_u64map_release(&groups);
    }
    vftr_vfdconv_collops(c, &n);
    t->collops = n;
    vftr_vfdconv_files(c, &n);
    t->files = n;
    vftr_vfdconv_filegroups(c, &n);
    t->filegroups = n;
    vftr_vfdconv_procs(c, &n);
    t->processes = n;
    for (size_t i = 0; i < nr; i++)
        records += vftr_vfdconv_rank_events(c, (uint32_t)i);
    t->max_times = 2 * records + 2 * (uint64_t)n;
    t->bytes = vftr_vfdconv_stats(c)->bytes;
    t->compressed = o->compress > 0;
}

/* The snapshot options' request; outdir NULL: no free-space check. */
static struct vftr_snap_request snap_request(const struct vftr_vfdotf_opts *o, const char *outdir,
                                             int force)
{
    struct vftr_snap_request rq = { o->snap_breaks, o->snap_flags, o->thumb_samples, force,
                                    outdir };

    return rq;
}

/* The breaks of the snapshot options (caller frees *breaks). */
static int snap_breaks(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, uint64_t *first,
                       uint64_t *last, uint64_t **breaks, size_t *n, char *err, size_t errlen)
{
    struct vftr_snap_traceinfo t;

    trace_info(c, o, &t);
    *first = t.first;
    *last = t.last;
    return vftr_snap_place_breaks(&o->snap_breaks, &t, breaks, n, err, errlen);
}

int vftr_vfdotf_snap_check(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, char *err,
                      size_t errlen)
{
    struct vftr_snap_traceinfo t;
    struct vftr_snap_plan plan;
    struct vftr_snap_request rq;
    char dir[4096];
    const char *slash = strrchr(o->stub, '/');
    int rc;

    if (!o->snap_flags)
        return 0;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == o->stub ? 1 : (int)(slash - o->stub), o->stub);
    trace_info(c, o, &t);
    /* the events are written beside the records */
    t.copy_bytes = t.bytes;
    rq = snap_request(o, dir, o->snap_force);
    rc = vftr_snap_plan_make(&rq, &t, &plan, err, errlen);
    vftr_snap_plan_release(&plan);
    return rc;
}

int vftr_vfdotf_rma_key(OTF_WStream *def)
{
    return OTF_WStream_writeDefKeyValue(def, VFTR_VFDCONV_KEY_RMA_MATCH, OTF_UINT64,
                                        VFTR_VFDCONV_KV_RMA_MATCH,
                                        "the one-sided transfer an RMAEnd ends (per rank)") == 1;
}

int vftr_vfdotf_rma(OTF_WStream *ws, uint64_t time, uint32_t process,
                    const struct vftr_window_rma *r)
{
    OTF_KeyValueList *kv = NULL;
    int ok;

    /* a list per record: transfers are few beside the calls around them */
    if (r->match) {
        if (!(kv = OTF_KeyValueList_new()) ||
            OTF_KeyValueList_appendUint64(kv, VFTR_VFDCONV_KEY_RMA_MATCH, r->match) != 0) {
            if (kv)
                OTF_KeyValueList_close(kv);
            return 0;
        }
    }
    switch (r->kind) {
    case VFTR_WINDOW_RMA_PUT:
        ok = OTF_WStream_writeRMAPutKV(ws, time, process, r->origin, r->target, r->comm, r->tag,
                                       r->bytes, 0, kv);
        break;
    case VFTR_WINDOW_RMA_PUT_REMOTE_END:
        ok = OTF_WStream_writeRMAPutRemoteEndKV(ws, time, process, r->origin, r->target, r->comm,
                                                r->tag, r->bytes, 0, kv);
        break;
    case VFTR_WINDOW_RMA_GET:
        ok = OTF_WStream_writeRMAGetKV(ws, time, process, r->origin, r->target, r->comm, r->tag,
                                       r->bytes, 0, kv);
        break;
    case VFTR_WINDOW_RMA_END:
        ok = OTF_WStream_writeRMAEndKV(ws, time, process, r->target, r->comm, r->tag, 0, kv);
        break;
    default:
        ok = 1;
        break;
    }
    if (kv)
        OTF_KeyValueList_close(kv);
    return ok == 1;
}

static void setup(OTF_WStream *ws, const struct vftr_vfdotf_opts *o)
{
    OTF_WStream_setBufferSizes(ws, OTF_BUFFER);
    if (o->compress > 0) {
        OTF_WStream_setCompression(ws, (OTF_FileCompression)o->compress);
        OTF_WStream_setZBufferSizes(ws, OTF_BUFFER);
    }
    if (o->long_format)
        OTF_WStream_setFormat(ws, OTF_WSTREAM_FORMAT_LONG);
}

int vftr_vfdotf_definitions(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, char *err,
                       size_t errlen)
{
    OTF_FileManager *fm = OTF_FileManager_open(MAX_OPEN_FILES);
    OTF_WStream *ws = NULL;
    OTF_MasterControl *mc = NULL;
    size_t n, nr = vftr_vfdconv_ranks(c);
    uint32_t m = vftr_vfdotf_nstreams(c, o);
    int ok = 1;

    if (!fm) {
        set_err(err, errlen, "cannot create an OTF file manager");
        return -ENOMEM;
    }
    ws = OTF_WStream_open(o->stub, 0, fm);
    if (!ws) {
        set_err(err, errlen, "%s.0.def: cannot open for writing", o->stub);
        OTF_FileManager_close(fm);
        return -EIO;
    }
    setup(ws, o);
    ok &= OTF_WStream_writeDefCreator(ws, "vftr vfd2otf " VFTR_VERSION) == 1;
    ok &= OTF_WStream_writeDefinitionComment(ws, vftr_vfdconv_comment(c)) == 1;
    OTF_KeyValueList *kv = vftr_vfdotf_timer_defs(ws, 1000000000u,
                                                  vftr_vfdconv_sample_interval(c), &ok);

    const struct vftr_vfdconv_proc *p = vftr_vfdconv_procs(c, &n);
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefProcess(ws, p[i].token, p[i].name, p[i].parent) == 1;
    const struct vftr_vfdconv_group *g = vftr_vfdconv_groups(c, &n);
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefProcessGroup(ws, g[i].token, g[i].name, g[i].n, g[i].procs) == 1;
    for (uint32_t i = 1; i <= vftr_vfdconv_last_group(c); i++)
        ok &= OTF_WStream_writeDefFunctionGroup(ws, i, vftr_vfdconv_group_name(i)) == 1;
    const struct vftr_vfdconv_sclfile *sf = vftr_vfdconv_sclfiles(c, &n);
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefSclFile(ws, sf[i].token, sf[i].name) == 1;
    const struct vftr_vfdconv_scl *sc = vftr_vfdconv_scls(c, &n);
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefScl(ws, sc[i].token, sc[i].file, sc[i].line) == 1;
    const struct vftr_vfdconv_func *f = vftr_vfdconv_funcs(c, &n);
    for (size_t i = 0; i < n; i++) {
        /* a sampled capture's precise functions are marked (source_otf.c
         * reads the mark): every call of theirs is in the trace */
        if (kv && (f[i].flags & VFTR_VFDCONV_FUNC_PRECISE)) {
            OTF_KeyValueList_appendUint8(kv, VFTR_VFDCONV_KEY_PRECISE, 1);
            ok &= OTF_WStream_writeDefFunctionKV(ws, f[i].token, f[i].name, f[i].group,
                                                 f[i].scl, kv) == 1;
        } else {
            ok &= OTF_WStream_writeDefFunction(ws, f[i].token, f[i].name, f[i].group,
                                               f[i].scl) == 1;
        }
    }
    if (kv)
        OTF_KeyValueList_close(kv);
    if (vftr_vfdconv_has_rma(c))
        ok &= vftr_vfdotf_rma_key(ws);
    const uint32_t *ops = vftr_vfdconv_collops(c, &n);
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefCollectiveOperation(ws, ops[i], vftr_vfd_coll_name(ops[i]),
                                                      vftr_vfd_coll_class(ops[i])) == 1;
    /* files of the file I/O records, grouped by interface */
    const uint32_t *fg = vftr_vfdconv_filegroups(c, &n);
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefFileGroup(ws, fg[i], vftr_vfdconv_filegroup_name(fg[i])) == 1;
    const struct vftr_vfdconv_file *fl = vftr_vfdconv_files(c, &n);
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefFile(ws, fl[i].token, fl[i].name, fl[i].group) == 1;
    /* performance counters: a thread's count since its counters were
     * opened, read at region boundaries (accumulated from the start) */
    const struct vftr_vfdconv_counter *ctr = vftr_vfdconv_counters(c, &n);
    if (n)
        ok &= OTF_WStream_writeDefCounterGroup(ws, 1, "counters") == 1;
    for (size_t i = 0; i < n; i++)
        ok &= OTF_WStream_writeDefCounter(ws, ctr[i].token, ctr[i].name,
                                          OTF_COUNTER_TYPE_ACC | OTF_COUNTER_SCOPE_START, 1,
                                          ctr[i].unit) == 1;
    if (ok && o->snap_flags) {
        uint64_t first, last, *b = NULL;
        size_t nb = 0;
        int rc = snap_breaks(c, o, &first, &last, &b, &nb, err, errlen);

        if (rc < 0) {
            OTF_WStream_close(ws);
            OTF_FileManager_close(fm);
            return rc;
        }
        ok &= vftr_snap_write_points(ws, first, last, b, nb, o->snap_flags) == 0;
        free(b);
    }
    if (OTF_WStream_close(ws) != 1)
        ok = 0;
    if (!ok) {
        set_err(err, errlen, "%s.0.def: cannot write the definitions", o->stub);
        OTF_FileManager_close(fm);
        return -EIO;
    }

    mc = OTF_MasterControl_new(fm);
    if (!mc) {
        OTF_FileManager_close(fm);
        set_err(err, errlen, "out of memory");
        return -ENOMEM;
    }
    p = vftr_vfdconv_procs(c, &n);
    {
        /* procs are in rank order: find each one's rank index */
        size_t ri = 0;
        uint32_t last_rank = p && n ? p[0].rank : 0;

        for (size_t i = 0; i < n; i++) {
            if (p[i].rank != last_rank) {
                ri++;
                last_rank = p[i].rank;
            }
            ok &= OTF_MasterControl_append(mc, stream_of(ri, nr, m), p[i].token) == 1;
        }
    }
    if (!ok || OTF_MasterControl_write(mc, o->stub) != 1) {
        char why[VFTR_ERRMSG_MAX];

        set_err(err, errlen, "%s.otf: cannot write the master file (%s)", o->stub,
                vftr_trace_otf_reason(why, sizeof why));
        ok = 0;
    }
    OTF_MasterControl_close(mc);
    OTF_FileManager_close(fm);
    return ok ? 0 : -EIO;
}

/* ------------------------------------------------------------ streams */

struct job {
    const struct vftr_vfdconv *c;
    const struct vftr_vfdotf_opts *o;
    uint32_t first, step, m;
    atomic_uint next;           /* next stream slot to take */
    atomic_ullong events;
    atomic_ullong bytes;        /* progress: .vfd bytes done */
    uint64_t total;
    pthread_mutex_t lock;       /* error message, progress drawing */
    atomic_int rc;
    char *err;
    size_t errlen;
    struct vftr_progress progress;   /* lib/util/progress.h: bytes of .vfd read */
};

struct sink {
    OTF_WStream *ws;
    struct job *job;
    uint64_t reported;          /* this stream's bytes already added to job->bytes */
};

static inline int put_event(OTF_WStream *ws, const struct vftr_vfdconv_event *e)
{
    uint32_t len = e->bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)e->bytes;
    int ok;

    switch (e->type) {
    case VFTR_VFDCONV_ENTER:
        ok = OTF_WStream_writeEnter(ws, e->time, e->function, e->process, e->scl);
        break;
    case VFTR_VFDCONV_LEAVE:
        ok = OTF_WStream_writeLeave(ws, e->time, e->function, e->process, e->scl);
        break;
    case VFTR_VFDCONV_SEND:
        ok = OTF_WStream_writeSendMsg(ws, e->time, e->process, e->peer, e->group, e->tag, len, 0);
        break;
    case VFTR_VFDCONV_RECV:
        ok = OTF_WStream_writeRecvMsg(ws, e->time, e->process, e->peer, e->group, e->tag, len, 0);
        break;
    case VFTR_VFDCONV_COLL_BEGIN:
        ok = OTF_WStream_writeBeginCollectiveOperation(ws, e->time, e->process, e->op, e->match,
                                                       e->group, e->root, e->bytes, e->received,
                                                       0);
        break;
    case VFTR_VFDCONV_COLL_END:
        ok = OTF_WStream_writeEndCollectiveOperation(ws, e->time, e->process, e->match);
        break;
    case VFTR_VFDCONV_BEGIN_PROCESS:
        ok = OTF_WStream_writeBeginProcess(ws, e->time, e->process);
        break;
    case VFTR_VFDCONV_END_PROCESS:
        ok = OTF_WStream_writeEndProcess(ws, e->time, e->process);
        break;
    case VFTR_VFDCONV_FILE_BEGIN:
        ok = OTF_WStream_writeBeginFileOperation(ws, e->time, e->process, e->match, 0);
        break;
    case VFTR_VFDCONV_FILE_END:
        ok = OTF_WStream_writeEndFileOperation(ws, e->time, e->process, e->file, e->match,
                                               e->received, e->op, e->bytes, 0);
        break;
    case VFTR_VFDCONV_COUNTER:
        ok = OTF_WStream_writeCounter(ws, e->time, e->process, e->op, e->bytes);
        break;
    case VFTR_VFDCONV_RMA_PUT:
    case VFTR_VFDCONV_RMA_GET:
    case VFTR_VFDCONV_RMA_END: {
        struct vftr_window_rma r = {
            .kind = e->type == VFTR_VFDCONV_RMA_PUT   ? VFTR_WINDOW_RMA_PUT
                    : e->type == VFTR_VFDCONV_RMA_GET ? VFTR_WINDOW_RMA_GET
                                                      : VFTR_WINDOW_RMA_END,
            .origin = e->type == VFTR_VFDCONV_RMA_END ? 0 : e->process, .target = e->peer,
            .comm = e->group, .tag = e->tag, .bytes = e->bytes, .match = e->match };

        ok = vftr_vfdotf_rma(ws, e->time, e->process, &r);
        break;
    }
    default:
        ok = 1;
        break;
    }
    return ok == 1 ? 0 : -EIO;
}

static int write_event(void *ctx, const struct vftr_vfdconv_event *e)
{
    return put_event(((struct sink *)ctx)->ws, e);
}

static int write_events(void *ctx, const struct vftr_vfdconv_event *e, size_t n)
{
    OTF_WStream *ws = ((struct sink *)ctx)->ws;

    for (size_t i = 0; i < n; i++)
        if (put_event(ws, &e[i]) < 0)
            return -EIO;
    return 0;
}

/* The progress line (lib/util/progress.h), started once the total is
 * known; o->progress says whether to draw at all (a terminal, no -q). */
static void progress_start(struct job *j)
{
    vftr_progress_init(&j->progress, "vfd2otf", stderr, j->total, !j->o->progress);
}

static void draw(struct job *j)
{
    vftr_progress_update(&j->progress, atomic_load(&j->bytes), atomic_load(&j->events), 0);
}

static void on_progress(void *ctx, uint64_t bytes)
{
    struct sink *s = ctx;

    if (bytes > s->reported) {
        atomic_fetch_add(&s->job->bytes, bytes - s->reported);
        s->reported = bytes;
    }
    if (s->job->o->progress && pthread_mutex_trylock(&s->job->lock) == 0) {
        draw(s->job);
        pthread_mutex_unlock(&s->job->lock);
    }
}

static int convert_stream(struct job *j, OTF_FileManager *fm, uint32_t stream)
{
    size_t nr = vftr_vfdconv_ranks(j->c), n = 0;
    uint32_t *ranks = malloc((nr + 1) * sizeof *ranks);
    struct sink sink = { NULL, j, 0 };
    struct vftr_vfdconv_consumer cons = {
        .event = write_event, .progress = on_progress,
        .ctx = &sink, .events = write_events,
    };
    uint64_t events = 0;
    char err[512] = "";
    int rc;

    if (!ranks)
        return -ENOMEM;
    for (size_t i = 0; i < nr; i++)
        if (stream_of(i, nr, j->m) == stream)
            ranks[n++] = (uint32_t)i;
    sink.ws = OTF_WStream_open(j->o->stub, stream, fm);
    if (!sink.ws) {
        free(ranks);
        snprintf(err, sizeof err, "%s.%x.events: cannot open for writing", j->o->stub, stream);
        rc = -EIO;
        goto fail;
    }
    setup(sink.ws, j->o);
    rc = vftr_vfdconv_replay(j->c, ranks, n, &cons, &events, err, sizeof err);
    free(ranks);
    if (rc == -EIO && !err[0])
        snprintf(err, sizeof err, "%s.%x.events: write error", j->o->stub, stream);
    if (OTF_WStream_close(sink.ws) != 1 && rc == 0) {
        rc = -EIO;
        snprintf(err, sizeof err, "%s.%x.events: cannot finish writing", j->o->stub, stream);
    }
    atomic_fetch_add(&j->events, events);
    if (rc == 0)
        return 0;
fail:
    pthread_mutex_lock(&j->lock);
    if (atomic_load(&j->rc) == 0) {
        atomic_store(&j->rc, rc);
        snprintf(j->err, j->errlen, "%s", err);
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

static void *worker(void *arg)
{
    struct job *j = arg;
    OTF_FileManager *fm = OTF_FileManager_open(MAX_OPEN_FILES);

    if (!fm) {
        pthread_mutex_lock(&j->lock);
        if (atomic_load(&j->rc) == 0) {
            atomic_store(&j->rc, -ENOMEM);
            snprintf(j->err, j->errlen, "cannot create an OTF file manager");
        }
        pthread_mutex_unlock(&j->lock);
        return NULL;
    }
    for (;;) {
        unsigned k = atomic_fetch_add(&j->next, 1);
        uint64_t stream = j->first + (uint64_t)k * j->step;

        if (stream > j->m || atomic_load(&j->rc))
            break;
        if (convert_stream(j, fm, (uint32_t)stream) < 0)
            break;
    }
    OTF_FileManager_close(fm);
    return NULL;
}

int vftr_vfdotf_streams(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, uint32_t first,
                   uint32_t step, uint64_t *events, char *err, size_t errlen)
{
    struct job j;
    int jobs = o->jobs < 1 ? 1 : o->jobs;
    pthread_t *th;
    int started = 0;
    size_t nr = vftr_vfdconv_ranks(c);

    memset(&j, 0, sizeof j);
    j.c = c;
    j.o = o;
    j.first = first ? first : 1;
    j.step = step ? step : 1;
    j.m = vftr_vfdotf_nstreams(c, o);
    j.err = err;
    j.errlen = errlen;
    for (size_t i = 0; i < nr; i++)
        if ((stream_of(i, nr, j.m) - j.first) % j.step == 0 && stream_of(i, nr, j.m) >= j.first)
            j.total += vftr_vfdconv_rank_bytes(c, (uint32_t)i);
    progress_start(&j);
    pthread_mutex_init(&j.lock, NULL);
    th = calloc((size_t)jobs, sizeof *th);
    if (!th) {
        pthread_mutex_destroy(&j.lock);
        return -ENOMEM;
    }
    if (jobs == 1) {
        worker(&j);
    } else {
        for (int i = 0; i < jobs; i++)
            if (pthread_create(&th[i], NULL, worker, &j) == 0)
                started++;
        if (started == 0)
            worker(&j);
        for (int i = 0; i < started; i++)
            pthread_join(th[i], NULL);
    }
    free(th);
    vftr_progress_end(&j.progress, atomic_load(&j.bytes), atomic_load(&j.events));
    pthread_mutex_destroy(&j.lock);
    *events = atomic_load(&j.events);
    return atomic_load(&j.rc);
}

/* ------------------------------------------------- snapshots, one pass */

struct snappass {
    const struct vftr_vfdotf_opts *o;
    OTF_WStream **ws;           /* stream s at ws[s - 1] */
    struct vftr_u64map pmap;    /* process token -> stream - 1 */
    struct vftr_snap *snap;
    struct job *job;            /* progress */
    struct sink progress;
    uint64_t seen_first, seen_last, count;
};

static OTF_WStream *stream_of_process(struct snappass *p, uint32_t process)
{
    long i = vftr_u64map_get(&p->pmap, process);

    return i < 0 ? NULL : p->ws[i];
}

/* The engine's records, to the stream of their process. */
static int snap_sink(void *arg, const struct vftr_snaprec *r)
{
    OTF_WStream *ws = stream_of_process(arg, r->process);

    return ws ? vftr_snap_write_wstream(ws, r) : -EIO;
}

/* What the engine hears of an event (otfaux's view: Begin/EndProcess
 * play no part). */
static int feed(struct vftr_snap *s, const struct vftr_vfdconv_event *e)
{
    uint32_t len = e->bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)e->bytes;

    switch (e->type) {
    case VFTR_VFDCONV_ENTER:
        return vftr_snap_enter_scl(s, e->time, e->process, e->function, e->scl);
    case VFTR_VFDCONV_LEAVE:
        return vftr_snap_leave(s, e->time, e->process, e->function);
    case VFTR_VFDCONV_SEND:
        return vftr_snap_send(s, e->time, e->process, e->peer, e->group, e->tag, len);
    case VFTR_VFDCONV_RECV:
        return vftr_snap_recv(s, e->time, e->process, e->peer, e->group, e->tag, len);
    case VFTR_VFDCONV_COLL_BEGIN:
        return vftr_snap_collop_begin(s, e->time, e->process, e->op, e->match, e->group, e->root,
                                      e->bytes, e->received);
    case VFTR_VFDCONV_COLL_END:
        return vftr_snap_collop_end(s, e->time, e->process, e->match);
    case VFTR_VFDCONV_FILE_BEGIN:
        return vftr_snap_fileop_begin(s, e->time, e->process, e->match);
    case VFTR_VFDCONV_FILE_END:
        return vftr_snap_fileop_end(s, e->time, e->process, e->file, e->match, e->received, e->op,
                                    e->bytes);
    default:
        return 0;
    }
}

static int snap_event(void *ctx, const struct vftr_vfdconv_event *e)
{
    struct snappass *p = ctx;
    struct sink one = { stream_of_process(p, e->process), p->job, 0 };
    int rc;

    if (!one.ws)
        return -EIO;
    if (p->count++ == 0)
        p->seen_first = e->time;
    p->seen_last = e->time;
    rc = write_event(&one, e);
    if (rc == 0)
        rc = feed(p->snap, e);
    return rc;
}

static void snap_progress(void *ctx, uint64_t bytes)
{
    atomic_store(&((struct snappass *)ctx)->job->events, ((struct snappass *)ctx)->count);
    on_progress(&((struct snappass *)ctx)->progress, bytes);
}

static int write_thumb(const struct vftr_snap *s, const char *stub, char *err, size_t errlen)
{
    char path[4200];
    const char *kind;
    FILE *f;
    int rc;

    snprintf(path, sizeof path, "%s.thumb", stub);
    f = vftr_fopen_regular(path, "w", &kind);           /* never waits on a FIFO */
    if (!f) {
        rc = -errno;
        if (kind)
            set_err(err, errlen, "%s: cannot open for writing: it is %s, expected a regular file",
                    path, kind);
        else
            set_err(err, errlen, "%s: cannot open for writing (%s)", path, strerror(-rc));
        return rc;
    }
    rc = vftr_snap_write_thumb(s, f);
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    if (rc < 0)
        set_err(err, errlen, "%s: cannot write the thumbnail", path);
    return rc;
}

int vftr_vfdotf_snap_pass(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o,
                     uint64_t *events, char *err, size_t errlen)
{
    struct snappass p;
    struct job j;
    OTF_FileManager *fm = NULL;
    struct vftr_snap_traceinfo t;
    struct vftr_snap_plan plan;
    struct vftr_snap_request rq = snap_request(o, NULL, o->snap_force);
    uint64_t first, last;
    size_t np = 0, nr = vftr_vfdconv_ranks(c);
    uint32_t m = vftr_vfdotf_nstreams(c, o), *ranks = NULL;
    const struct vftr_vfdconv_proc *procs = vftr_vfdconv_procs(c, &np);
    int rc;

    memset(&p, 0, sizeof p);
    memset(&j, 0, sizeof j);
    *events = 0;
    j.o = o;
    j.m = m;
    for (size_t i = 0; i < nr; i++)
        j.total += vftr_vfdconv_rank_bytes(c, (uint32_t)i);
    progress_start(&j);
    pthread_mutex_init(&j.lock, NULL);
    p.o = o;
    p.job = &j;
    p.progress.job = &j;
    memset(&plan, 0, sizeof plan);
    trace_info(c, o, &t);
    first = t.first;
    last = t.last;
    /* (the free space was checked by vftr_vfdotf_snap_check) */
    rc = vftr_snap_plan_make(&rq, &t, &plan, err, errlen);
    if (rc < 0)
        goto out;
    {
        struct vftr_snap_config cfg = {
            o->snap_flags, plan.breaks, first == last ? 0 : plan.nbreaks, last + 1, plan.samples,
            plan.nsamples, snap_sink, &p, NULL, plan.max_records,
        };
        p.snap = vftr_snap_new(&cfg);
        if (!p.snap) {
            rc = -errno;
            set_err(err, errlen, "cannot start the snapshot engine (%s)", strerror(-rc));
            goto out;
        }
    }
    {
        size_t n;
        const struct vftr_vfdconv_func *f = vftr_vfdconv_funcs(c, &n);
        const uint32_t *ops;

        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = vftr_snap_def_function(p.snap, f[i].token, f[i].group);
        ops = vftr_vfdconv_collops(c, &n);
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = vftr_snap_def_collop(p.snap, ops[i], (uint32_t)vftr_vfd_coll_class(ops[i]));
        const struct vftr_vfdconv_file *fl = vftr_vfdconv_files(c, &n);
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = vftr_snap_def_file(p.snap, fl[i].token, fl[i].group);
        if (rc < 0)
            goto nomem;
    }
    /* process -> stream, as the master file says (procs are in rank order) */
    {
        size_t ri = 0;
        uint32_t last_rank = np ? procs[0].rank : 0;

        for (size_t i = 0; i < np; i++) {
            if (procs[i].rank != last_rank) {
                ri++;
                last_rank = procs[i].rank;
            }
            if ((rc = vftr_u64map_put(&p.pmap, procs[i].token, stream_of(ri, nr, m) - 1)) < 0)
                goto nomem;
        }
    }
    fm = OTF_FileManager_open(MAX_OPEN_FILES);
    p.ws = calloc(m ? m : 1, sizeof *p.ws);
    ranks = malloc((nr ? nr : 1) * sizeof *ranks);
    if (!fm || !p.ws || !ranks)
        goto nomem;
    for (uint32_t s = 1; s <= m; s++) {
        p.ws[s - 1] = OTF_WStream_open(o->stub, s, fm);
        if (!p.ws[s - 1]) {
            set_err(err, errlen, "%s.%x.events: cannot open for writing", o->stub, s);
            rc = -EIO;
            goto out;
        }
        setup(p.ws[s - 1], o);
    }
    for (size_t i = 0; i < nr; i++)
        ranks[i] = (uint32_t)i;
    {
        struct vftr_vfdconv_consumer cons = {
            .event = snap_event, .progress = snap_progress,
            .ctx = &p,
        };

        rc = vftr_vfdconv_replay(c, ranks, nr, &cons, events, err, errlen);
    }
    if (rc == 0)
        rc = vftr_snap_finish(p.snap);
    if (rc == -EFBIG)
        vftr_snap_plan_overflow(&plan, err, errlen);
    if (rc == 0 && p.count && (p.seen_first != first || p.seen_last != last)) {
        /* the breaks were placed on a time range the replay did not keep */
        set_err(err, errlen, "internal error: events span %" PRIu64 "..%" PRIu64
                ", expected %" PRIu64 "..%" PRIu64, p.seen_first, p.seen_last, first, last);
        rc = -EPROTO;
    }
    if (rc == -EIO && !err[0])
        set_err(err, errlen, "%s: write error", o->stub);
    for (uint32_t s = 1; s <= m; s++)
        if (p.ws[s - 1] && OTF_WStream_close(p.ws[s - 1]) != 1 && rc == 0) {
            set_err(err, errlen, "%s.%x.events: cannot finish writing", o->stub, s);
            rc = -EIO;
        }
    free(p.ws);
    p.ws = NULL;
    if (rc == 0 && (o->snap_flags & VFTR_SNAP_SNAPSHOTS) && plan.nsamples > 0)
        rc = write_thumb(p.snap, o->stub, err, errlen);
    vftr_progress_end(&j.progress, atomic_load(&j.bytes), *events);
    goto out;
nomem:
    rc = -ENOMEM;
    set_err(err, errlen, "out of memory");
out:
    if (p.ws)
        for (uint32_t s = 1; s <= m; s++)
            if (p.ws[s - 1])
                OTF_WStream_close(p.ws[s - 1]);
    free(p.ws);
    if (fm)
        OTF_FileManager_close(fm);
    vftr_snap_free(p.snap);
    vftr_u64map_release(&p.pmap);
    free(ranks);
    vftr_snap_plan_release(&plan);
    pthread_mutex_destroy(&j.lock);
    return rc;
}
