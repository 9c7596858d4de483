/*
 * vfdotf.c — see vfdotf.h.  The OTF calls are the only place that knows
 * OTF; the order of events comes from vfdconv's replay.
 */
#include "model/vfdotf.h"
#include "util/progress.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/otfout.h"
#include "model/snap_otf.h"
#include "model/vfdconv.h"
#include "model/vfdmodel.h"
#include "model/u64map.h"
#include "model/window.h"
#include "otf.h"
#include "util/errmsg.h"
#include "util/regfile.h"
#include "util/tracesel.h"
#include "vfd/vftr_vfd_ext.h"

#define MAX_OPEN_FILES 64

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

uint32_t vftr_vfdotf_nstreams(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o)
{
    size_t r = vftr_vfdconv_ranks(c);

    if (o->streams == 0 || o->streams > r)
        return (uint32_t)r;
    return o->streams;
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

static void setup(OTF_WStream *ws, const struct vftr_vfdotf_opts *o)
{
    vftr_otfout_setup(ws, o->compress, o->long_format);
}

/*
 * The engine's definitions as the OTF record writers take them (otfout.h),
 * and each process's stream in stream[]: view_init returns 0 or -ENOMEM;
 * view_release frees (also after a failed init).
 */
struct view {
    struct vftr_vfdmodel m;
    struct vftr_otfout_defs d;
    uint32_t *stream;
};

static void view_release(struct view *v)
{
    vftr_vfdmodel_release(&v->m);
    free(v->stream);
    v->stream = NULL;
}

static int view_init(struct view *v, const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o)
{
    const struct vftr_vfdmodel *m = &v->m;

    memset(v, 0, sizeof *v);
    if (vftr_vfdmodel_init(&v->m, c) < 0)
        return -ENOMEM;
    v->stream = calloc(m->nprocs ? m->nprocs : 1, sizeof *v->stream);
    if (!v->stream)
        return -ENOMEM;
    v->d = (struct vftr_otfout_defs){
        .creator = "vftr vfd2otf " VFTR_VERSION,
        .comment = vftr_vfdconv_comment(c),
        .resolution = 1000000000u,
        .interval = vftr_vfdconv_sample_interval(c),
        .procs = m->procs, .nprocs = m->nprocs,
        .comms = m->comms, .ncomms = m->ncomms,
        .groups = m->groups, .ngroups = m->ngroups,
        .scls = &m->scls,
        .funcs = m->funcs, .nfuncs = m->nfuncs,
        .collops = m->collops, .ncollops = m->ncollops,
        .filegroups = m->filegroups, .nfilegroups = m->nfilegroups,
        .files = m->files, .nfiles = m->nfiles,
        .counters = m->counters, .ncounters = m->ncounters,
        .rma_key = vftr_vfdconv_has_rma(c),
    };
    vftr_otfout_streams(m->procs, m->nprocs, vftr_vfdconv_ranks(c), vftr_vfdotf_nstreams(c, o),
                        v->stream);
    return 0;
}

int vftr_vfdotf_definitions(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, char *err,
                       size_t errlen)
{
    OTF_FileManager *fm = OTF_FileManager_open(MAX_OPEN_FILES);
    OTF_WStream *ws = NULL;
    OTF_MasterControl *mc = NULL;
    struct view v;
    int ok = 1;

    if (!fm) {
        set_err(err, errlen, "cannot create an OTF file manager");
        return -ENOMEM;
    }
    if (view_init(&v, c, o) < 0) {
        view_release(&v);
        OTF_FileManager_close(fm);
        set_err(err, errlen, "out of memory");
        return -ENOMEM;
    }
    ws = OTF_WStream_open(o->stub, 0, fm);
    if (!ws) {
        set_err(err, errlen, "%s.0.def: cannot open for writing", o->stub);
        view_release(&v);
        OTF_FileManager_close(fm);
        return -EIO;
    }
    setup(ws, o);
    ok &= vftr_otfout_defs(ws, &v.d) == 0;
    if (ok && o->snap_flags) {
        uint64_t first, last, *b = NULL;
        size_t nb = 0;
        int rc = snap_breaks(c, o, &first, &last, &b, &nb, err, errlen);

        if (rc < 0) {
            OTF_WStream_close(ws);
            view_release(&v);
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
        view_release(&v);
        OTF_FileManager_close(fm);
        return -EIO;
    }

    mc = OTF_MasterControl_new(fm);
    if (!mc) {
        view_release(&v);
        OTF_FileManager_close(fm);
        set_err(err, errlen, "out of memory");
        return -ENOMEM;
    }
    ok &= vftr_otfout_master(mc, v.m.procs, v.m.nprocs, v.stream) == 0;
    if (!ok || OTF_MasterControl_write(mc, o->stub) != 1) {
        char why[VFTR_ERRMSG_MAX];

        set_err(err, errlen, "%s.otf: cannot write the master file (%s)", o->stub,
                vftr_trace_otf_reason(why, sizeof why));
        ok = 0;
    }
    OTF_MasterControl_close(mc);
    OTF_FileManager_close(fm);
    view_release(&v);
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

/* The records whose fields the engine's event carries under other names,
 * out of line: put_event, which every Enter and Leave goes through, stays
 * small. */
static __attribute__((noinline)) int put_file_end(OTF_WStream *ws,
                                                  const struct vftr_vfdconv_event *e)
{
    const struct vftr_window_fileop op = {
        .matching_id = e->match, .file = e->file, .operation = e->op,
        .handle = e->received, .bytes = e->bytes,
    };

    return vftr_otfout_file_end(ws, e->time, e->process, &op);
}

/* The engine's transfers start at the process that records them; an end
 * names the thread that began its transfer (root) and its remote (peer). */
static __attribute__((noinline)) int put_rma(OTF_WStream *ws, const struct vftr_vfdconv_event *e)
{
    const struct vftr_window_rma r = {
        .kind = e->type == VFTR_VFDCONV_RMA_PUT ? VFTR_WINDOW_RMA_PUT
                : e->type == VFTR_VFDCONV_RMA_GET ? VFTR_WINDOW_RMA_GET
                                                  : VFTR_WINDOW_RMA_END,
        .origin = e->type == VFTR_VFDCONV_RMA_END && e->root ? e->root : e->process,
        .target = e->peer, .comm = e->group, .tag = e->tag, .bytes = e->bytes,
        .match = e->match,
    };

    return vftr_otfout_rma(ws, e->time, e->process, &r);
}

/* One event of the engine as its OTF record (otfout.h); the records
 * vftr-convert's OTF sink writes too go through the same writers. */
static inline int put_event(OTF_WStream *ws, const struct vftr_vfdconv_event *e)
{
    uint32_t len = e->bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)e->bytes;

    switch (e->type) {
    case VFTR_VFDCONV_ENTER:
        return vftr_otfout_enter(ws, e->time, e->process, e->function, e->scl);
    case VFTR_VFDCONV_LEAVE:
        return vftr_otfout_leave(ws, e->time, e->process, e->function, e->scl);
    case VFTR_VFDCONV_SEND:
        return vftr_otfout_send(ws, e->time, e->process, e->peer, e->group, e->tag, len);
    case VFTR_VFDCONV_RECV:
        return vftr_otfout_recv(ws, e->time, e->process, e->peer, e->group, e->tag, len);
    case VFTR_VFDCONV_COLL_BEGIN:
        return vftr_otfout_coll_begin(ws, e->time, e->process, e->op, e->match, e->group,
                                      e->root, e->bytes, e->received);
    case VFTR_VFDCONV_COLL_END:
        return vftr_otfout_coll_end(ws, e->time, e->process, e->match);
    case VFTR_VFDCONV_BEGIN_PROCESS:
        return OTF_WStream_writeBeginProcess(ws, e->time, e->process) == 1 ? 0 : -EIO;
    case VFTR_VFDCONV_END_PROCESS:
        return OTF_WStream_writeEndProcess(ws, e->time, e->process) == 1 ? 0 : -EIO;
    case VFTR_VFDCONV_FILE_BEGIN:
        return vftr_otfout_file_begin(ws, e->time, e->process, e->match);
    case VFTR_VFDCONV_FILE_END:
        return put_file_end(ws, e);
    case VFTR_VFDCONV_COUNTER:
        return vftr_otfout_counter(ws, e->time, e->process, e->op, e->bytes);
    case VFTR_VFDCONV_RMA_PUT:
    case VFTR_VFDCONV_RMA_GET:
    case VFTR_VFDCONV_RMA_END:
        return put_rma(ws, e);
    default:
        return 0;
    }
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
        if (vftr_otfout_stream_of(i, nr, j->m) == stream)
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
    for (size_t i = 0; i < nr; i++) {
        uint32_t s = vftr_otfout_stream_of(i, nr, j.m);

        if ((s - j.first) % j.step == 0 && s >= j.first)
            j.total += vftr_vfdconv_rank_bytes(c, (uint32_t)i);
    }
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
    size_t nr = vftr_vfdconv_ranks(c);
    uint32_t m = vftr_vfdotf_nstreams(c, o), *ranks = NULL;
    struct view v;
    int rc;

    memset(&v, 0, sizeof v);
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
    /* process -> stream, as the master file says */
    if (view_init(&v, c, o) < 0)
        goto nomem;
    for (size_t i = 0; i < v.m.nprocs; i++)
        if ((rc = vftr_u64map_put(&p.pmap, v.m.procs[i].token, v.stream[i] - 1)) < 0)
            goto nomem;
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
    view_release(&v);
    free(ranks);
    vftr_snap_plan_release(&plan);
    pthread_mutex_destroy(&j.lock);
    return rc;
}
