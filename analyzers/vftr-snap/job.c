/*
 * job.c — runs one vftr-snap job: reads the trace once through the OTF
 * library, feeds the snapshot engine (lib/model/snapshot.h) and writes
 * what it produces with an OTF_Writer under a temporary name stub beside
 * the trace; only when all of it is written are the new files renamed over
 * the old ones (each rename is atomic, the event files are never touched,
 * SIGINT, SIGTERM and SIGHUP wait until the renames are done), so an
 * interrupted run leaves the trace as it was; every way out removes the
 * temporary files, a signal's included (job.h).  Before anything is
 * written, the breaks and the estimated output are checked against the
 * trace (lib/model/snapshot.h, vftr_snap_plan_make).
 *
 * Break placement and the thumbnail follow the reference's otfaux (learnt
 * by running it; share/doc/snap.md has the details): with first and last
 * the trace's first and last event times and end = last + 1,
 *   -n N   first + (end - first) / N added up N times in doubles, each
 *          sum rounded down
 *   -p P   first + k * P for k = 1, 2, ... while before end
 *          (with both, the one giving more breaks wins)
 *   -t T   additional breaks
 *   and always end itself, which gets summaries but no snapshot;
 * without -n, -p and -t, -n 200.  The thumbnail samples the function on
 * top of each stack at min(4096, last - first) evenly spread times.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "otf.h"
#include "OTF_CopyHandler.h"

#include "model/snap_otf.h"
#include "model/snapshot.h"
#include "util/progress.h"
#include "util/errmsg.h"
#include "util/regfile.h"
#include "util/timespec.h"
#include "util/tracesel.h"

#include "job.h"

#define MAX_OPEN_FILES 256

void snap_job_release(struct snap_job *job)
{
    free(job->trace);
    free(job->output);
    free(job->period);
    for (size_t i = 0; i < job->ntimes; i++)
        free(job->times[i]);
    free(job->times);
    memset(job, 0, sizeof *job);
}

static int dup_str(char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = strdup(src);
    return *dst ? 0 : -ENOMEM;
}

int snap_job_add_time(struct snap_job *job, const char *t)
{
    char **v = realloc(job->times, (job->ntimes + 1) * sizeof *v);
    if (!v)
        return -ENOMEM;
    job->times = v;
    if (dup_str(&v[job->ntimes], t))
        return -ENOMEM;
    job->ntimes++;
    return 0;
}

int snap_job_copy(struct snap_job *dst, const struct snap_job *src)
{
    *dst = *src;
    dst->times = NULL;
    dst->ntimes = 0;
    dst->trace = dst->output = dst->period = NULL;
    int rc = dup_str(&dst->trace, src->trace);
    if (!rc)
        rc = dup_str(&dst->output, src->output);
    if (!rc)
        rc = dup_str(&dst->period, src->period);
    for (size_t i = 0; !rc && i < src->ntimes; i++)
        rc = snap_job_add_time(dst, src->times[i]);
    if (rc)
        snap_job_release(dst);
    return rc;
}

/* ---- the run ---------------------------------------------------------- */

struct idpair {
    uint32_t id, value;
};

struct run {
    const struct snap_job *job;
    const volatile sig_atomic_t *stop;    /* the signal that asks us to stop, or 0 */
    unsigned kinds;
    unsigned flags;               /* VFTR_SNAP_*, from the kinds and the job (start()) */
    char *err;
    size_t errlen;
    int rc;                       /* first error */
    OTF_Reader *reader;
    OTF_Writer *writer;
    struct vftr_snap *snap;
    int copy_events;              /* -o: the events go to the copy too */
    struct vftr_progress progress;   /* the line on a terminal; off until start() */
    uint64_t nevents;
    uint64_t resolution;
    struct idpair *funcs, *files, *colls, *procs;   /* procs: process, parent */
    size_t nfuncs, nfiles, ncolls, ncounters, nprocs;
    int started;
    uint64_t first, last;
    struct vftr_snap_traceinfo info;      /* what start() needs beyond the definitions */
    const char *outdir;
    struct vftr_snap_plan plan;
};

static int fail(struct run *r, int rc, const char *fmt, ...) VFTR_PRINTF(3, 4);

static int fail(struct run *r, int rc, const char *fmt, ...)
{
    if (r->rc)
        return r->rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    r->rc = rc;
    return rc;
}

static int add_pair(struct idpair **v, size_t *n, uint32_t id, uint32_t value)
{
    struct idpair *p = realloc(*v, (*n + 1) * sizeof *p);
    if (!p)
        return -ENOMEM;
    p[*n].id = id;
    p[*n].value = value;
    *v = p;
    (*n)++;
    return 0;
}

/* -- definitions: remembered for the engine, copied to the new def file -- */

static int def_timer(void *u, uint32_t stream, uint64_t ticks, OTF_KeyValueList *kv)
{
    struct run *r = u;
    r->resolution = ticks;
    return OTF_CopyHandler_DefTimerResolution(r->writer, stream, ticks, kv);
}

static int def_function(void *u, uint32_t stream, uint32_t func, const char *name, uint32_t group,
                        uint32_t source, OTF_KeyValueList *kv)
{
    struct run *r = u;
    if (add_pair(&r->funcs, &r->nfuncs, func, group))
        return fail(r, -ENOMEM, "out of memory"), OTF_RETURN_ABORT;
    return OTF_CopyHandler_DefFunction(r->writer, stream, func, name, group, source, kv);
}

static int def_process(void *u, uint32_t stream, uint32_t process, const char *name,
                       uint32_t parent, OTF_KeyValueList *kv)
{
    struct run *r = u;
    if (add_pair(&r->procs, &r->nprocs, process, parent))
        return fail(r, -ENOMEM, "out of memory"), OTF_RETURN_ABORT;
    return OTF_CopyHandler_DefProcess(r->writer, stream, process, name, parent, kv);
}

static int cmp_idpair(const void *a, const void *b)
{
    const struct idpair *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The rank of a process for the engine (vftr_snap_config.rank_of): its
 * outermost parent, as every vftr tool folds threads (OTF's messages may
 * name only a rank's process: messages.h).  r->procs is sorted by id. */
static uint32_t rank_of(void *u, uint32_t process)
{
    const struct run *r = u;
    for (size_t hops = 0; hops < r->nprocs; hops++) {
        struct idpair key = { process, 0 };
        const struct idpair *p = bsearch(&key, r->procs, r->nprocs, sizeof *p, cmp_idpair);
        if (!p || !p->value || p->value == process)
            break;
        process = p->value;
    }
    return process;
}

static int def_file(void *u, uint32_t stream, uint32_t token, const char *name, uint32_t group,
                    OTF_KeyValueList *kv)
{
    struct run *r = u;
    if (add_pair(&r->files, &r->nfiles, token, group))
        return fail(r, -ENOMEM, "out of memory"), OTF_RETURN_ABORT;
    return OTF_CopyHandler_DefFile(r->writer, stream, token, name, group, kv);
}

static int def_collop(void *u, uint32_t stream, uint32_t op, const char *name, uint32_t type,
                      OTF_KeyValueList *kv)
{
    struct run *r = u;
    if (add_pair(&r->colls, &r->ncolls, op, type))
        return fail(r, -ENOMEM, "out of memory"), OTF_RETURN_ABORT;
    return OTF_CopyHandler_DefCollectiveOperation(r->writer, stream, op, name, type, kv);
}

/* The old time range is replaced (a new one is written at the end). */
static int def_timerange(void *u, uint32_t stream, uint64_t a, uint64_t b, OTF_KeyValueList *kv)
{
    struct run *r = u;
    if (!r->job->remove)
        return OTF_RETURN_OK;
    return OTF_CopyHandler_DefTimeRange(r->writer, stream, a, b, kv);
}

/* Sample points of the kinds being rewritten (or removed) go; the others
 * still describe files that stay. */
static int def_auxpoint(void *u, uint32_t stream, uint64_t time, OTF_AuxSamplePointType type,
                        OTF_KeyValueList *kv)
{
    struct run *r = u;
    unsigned kind = type == OTF_AUX_SAMPLE_POINT_SNAPSHOT ? SNAP_KIND_SNAPSHOTS
                  : type == OTF_AUX_SAMPLE_POINT_SUMMARY ? SNAP_KIND_STATISTICS : 0;
    if (r->job->remove || (kind & r->kinds))
        return OTF_RETURN_OK;
    return OTF_CopyHandler_DefAuxSamplePoint(r->writer, stream, time, type, kv);
}

static int def_counter(void *u, uint32_t stream, uint32_t counter, const char *name,
                       uint32_t properties, uint32_t group, const char *unit, OTF_KeyValueList *kv)
{
    struct run *r = u;
    r->ncounters++;
    return OTF_CopyHandler_DefCounter(r->writer, stream, counter, name, properties, group, unit, kv);
}

static int def_ignore(void *u, uint32_t stream, uint64_t v, OTF_KeyValueList *kv)
{
    (void)u, (void)stream, (void)v, (void)kv;
    return OTF_RETURN_OK;
}

/* -- the first event: the time range, the breaks, the engine ------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* How many groups the definitions name (0 when out of memory: the
 * estimate then counts one). */
static uint64_t distinct_values(const struct idpair *v, size_t n)
{
    uint32_t *g = n ? malloc(n * sizeof *g) : NULL;
    uint64_t k = 0;
    if (!g)
        return 0;
    for (size_t i = 0; i < n; i++)
        g[i] = v[i].value;
    qsort(g, n, sizeof *g, cmp_u32);
    for (size_t i = 0; i < n; i++)
        k += i == 0 || g[i] != g[i - 1];
    free(g);
    return k;
}

static int start(struct run *r)
{
    r->started = 1;
    uint64_t mn = 0, cur = 0, mx = 0;
    /* the range comes from the ends of the event files: a file whose end
     * cannot be read is reported here, before anything is written */
    otf_errno = OTF_NO_ERROR;
    if (!OTF_Reader_eventTimeProgress(r->reader, &mn, &cur, &mx) || otf_errno != OTF_NO_ERROR)
        return fail(r, -EIO, "cannot find the time range of the events (%s)",
                    otf_errno != OTF_NO_ERROR ? otf_strerr : "no progress information");
    if (mx < mn)
        return fail(r, -EIO, "cannot find the time range of the events (last %" PRIu64
                    " before first %" PRIu64 ")", mx, mn);
    r->first = mn;
    r->last = mx;
    vftr_progress_init(&r->progress, "vftr-snap", stderr, mx - mn,
                       r->job->progress == 2 ? VFTR_PROGRESS_ALWAYS : !r->job->progress);
    struct vftr_snap_traceinfo *t = &r->info;
    t->resolution = r->resolution;
    t->first = r->first;
    t->last = r->last;
    t->functions = r->nfuncs;
    t->funcgroups = distinct_values(r->funcs, r->nfuncs);
    t->files = r->nfiles;
    t->filegroups = distinct_values(r->files, r->nfiles);
    t->collops = r->ncolls;
    t->counters = r->ncounters;
    unsigned flags = r->job->flags;
    if (r->kinds & SNAP_KIND_SNAPSHOTS)
        flags |= VFTR_SNAP_SNAPSHOTS;
    if (r->kinds & SNAP_KIND_STATISTICS)
        flags |= VFTR_SNAP_SUMMARIES;
    r->flags = flags;
    struct vftr_snap_request rq = {
        { r->job->nbreaks, r->job->period, (const char *const *)r->job->times, r->job->ntimes },
        flags, r->job->thumb_samples, r->job->force, r->outdir,
    };
    char msg[VFTR_ERRMSG_MAX];
    int prc = vftr_snap_plan_make(&rq, t, &r->plan, msg, sizeof msg);
    if (prc)
        return fail(r, prc, "%s", msg);
    /* A trace whose events all have one time stamp gets the definitions
     * but no records (as from otfaux): the engine runs without breaks. */
    int flat = r->last == r->first;
    struct vftr_snap_config cfg = {
        flags, r->plan.breaks, flat ? 0 : r->plan.nbreaks, r->last + 1, r->plan.samples,
        r->plan.nsamples, vftr_snap_otf_sink, r->writer, r->stop, r->plan.max_records,
    };
    r->snap = vftr_snap_new(&cfg);
    if (!r->snap)
        return fail(r, -errno, "cannot start the snapshot engine (%s)", strerror(errno));
    if (r->nprocs)
        qsort(r->procs, r->nprocs, sizeof *r->procs, cmp_idpair);
    vftr_snap_set_ranks(r->snap, rank_of, r);
    int rc = 0;
    for (size_t i = 0; !rc && i < r->nfuncs; i++)
        rc = vftr_snap_def_function(r->snap, r->funcs[i].id, r->funcs[i].value);
    for (size_t i = 0; !rc && i < r->nfiles; i++)
        rc = vftr_snap_def_file(r->snap, r->files[i].id, r->files[i].value);
    for (size_t i = 0; !rc && i < r->ncolls; i++)
        rc = vftr_snap_def_collop(r->snap, r->colls[i].id, r->colls[i].value);
    if (rc)
        return fail(r, rc, "out of memory");
    return 0;
}

/* Every event handler: start on the first event, then check what the
 * engine (or the copy) said. */
static int feed_ok(struct run *r, int rc)
{
    if (rc == -EINTR)
        return fail(r, rc, "interrupted"), OTF_RETURN_ABORT;
    if (rc == -EFBIG) {
        char msg[VFTR_ERRMSG_MAX];
        vftr_snap_plan_overflow(&r->plan, msg, sizeof msg);
        return fail(r, rc, "%s", msg), OTF_RETURN_ABORT;
    }
    if (rc == -EIO)
        return fail(r, rc, "cannot write the new files (%s)", otf_strerr), OTF_RETURN_ABORT;
    if (rc)
        return fail(r, rc, "%s", strerror(-rc)), OTF_RETURN_ABORT;
    return OTF_RETURN_OK;
}

#define BEGIN_EVENT(r)                                                   \
    do {                                                                 \
        if (!(r)->started && start(r))                                   \
            return OTF_RETURN_ABORT;                                     \
        if ((r)->rc)                                                     \
            return OTF_RETURN_ABORT;                                     \
        if (*(r)->stop)                                                  \
            return fail(r, -EINTR, "interrupted"), OTF_RETURN_ABORT;     \
        /* every handler's time stamp is t */                            \
        vftr_progress_update(&(r)->progress, t - (r)->first,             \
                             ++(r)->nevents, 0);                         \
    } while (0)

static int copy_ok(int ok)
{
    return ok == OTF_RETURN_OK ? 0 : -EIO;
}

static int ev_enter(void *u, uint64_t t, uint32_t f, uint32_t p, uint32_t src, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_enter_scl(r->snap, t, p, f, src);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_Enter(r->writer, t, f, p, src, kv));
    return feed_ok(r, rc);
}

static int ev_leave(void *u, uint64_t t, uint32_t f, uint32_t p, uint32_t src, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_leave(r->snap, t, p, f);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_Leave(r->writer, t, f, p, src, kv));
    return feed_ok(r, rc);
}

static int ev_send(void *u, uint64_t t, uint32_t from, uint32_t to, uint32_t g, uint32_t tag,
                   uint32_t len, uint32_t src, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_send(r->snap, t, from, to, g, tag, len);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_SendMsg(r->writer, t, from, to, g, tag, len, src, kv));
    return feed_ok(r, rc);
}

static int ev_recv(void *u, uint64_t t, uint32_t to, uint32_t from, uint32_t g, uint32_t tag,
                   uint32_t len, uint32_t src, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_recv(r->snap, t, to, from, g, tag, len);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_RecvMsg(r->writer, t, to, from, g, tag, len, src, kv));
    return feed_ok(r, rc);
}

static int ev_counter(void *u, uint64_t t, uint32_t p, uint32_t c, uint64_t v, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_counter(r->snap, t, p, c, v);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_Counter(r->writer, t, p, c, v, kv));
    return feed_ok(r, rc);
}

static int ev_collop(void *u, uint64_t t, uint32_t p, uint32_t op, uint32_t g, uint32_t root,
                     uint32_t sent, uint32_t recvd, uint64_t dur, uint32_t src, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_collop(r->snap, t, p, op, g, root, sent, recvd);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_CollectiveOperation(r->writer, t, p, op, g, root, sent, recvd, dur,
                                                         src, kv));
    return feed_ok(r, rc);
}

static int ev_bcollop(void *u, uint64_t t, uint32_t p, uint32_t op, uint64_t id, uint32_t g,
                      uint32_t root, uint64_t sent, uint64_t recvd, uint32_t scl, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_collop_begin(r->snap, t, p, op, id, g, root, sent, recvd);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_BeginCollectiveOperation(r->writer, t, p, op, id, g, root, sent,
                                                              recvd, scl, kv));
    return feed_ok(r, rc);
}

static int ev_ecollop(void *u, uint64_t t, uint32_t p, uint64_t id, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_collop_end(r->snap, t, p, id);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_EndCollectiveOperation(r->writer, t, p, id, kv));
    return feed_ok(r, rc);
}

static int ev_fileop(void *u, uint64_t t, uint32_t file, uint32_t p, uint64_t h, uint32_t op,
                     uint64_t bytes, uint64_t dur, uint32_t src, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_fileop(r->snap, t, p, file, h, op, bytes);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_FileOperation(r->writer, t, file, p, h, op, bytes, dur, src, kv));
    return feed_ok(r, rc);
}

static int ev_bfileop(void *u, uint64_t t, uint32_t p, uint64_t id, uint32_t scl, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_fileop_begin(r->snap, t, p, id);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_BeginFileOperation(r->writer, t, p, id, scl, kv));
    return feed_ok(r, rc);
}

static int ev_efileop(void *u, uint64_t t, uint32_t p, uint32_t file, uint64_t id, uint64_t h,
                      uint32_t op, uint64_t bytes, uint32_t scl, OTF_KeyValueList *kv)
{
    struct run *r = u;
    BEGIN_EVENT(r);
    int rc = vftr_snap_fileop_end(r->snap, t, p, file, id, h, op, bytes);
    if (!rc && r->copy_events)
        rc = copy_ok(OTF_CopyHandler_EndFileOperation(r->writer, t, p, file, id, h, op, bytes, scl, kv));
    return feed_ok(r, rc);
}

/* Events the engine does not look at still start it (their time stamps
 * are part of the range) — the copy handlers see them as they are. */

/* Handlers are stored as OTF_FunctionPointer; the detour through a plain
 * function pointer type keeps -Wcast-function-type quiet. */
#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

struct handler {
    OTF_FunctionPointer *fn;
    uint32_t record;
};

/* Definitions the run looks at (the others are copied as they are). */
static const struct handler def_handlers[] = {
    { HANDLER(def_timer), OTF_DEFTIMERRESOLUTION_RECORD },
    { HANDLER(def_function), OTF_DEFFUNCTION_RECORD },
    { HANDLER(def_process), OTF_DEFPROCESS_RECORD },
    { HANDLER(def_file), OTF_DEFFILE_RECORD },
    { HANDLER(def_collop), OTF_DEFCOLLOP_RECORD },
    { HANDLER(def_counter), OTF_DEFCOUNTER_RECORD },
    { HANDLER(def_timerange), OTF_DEFTIMERANGE_RECORD },
    { HANDLER(def_auxpoint), OTF_DEFAUXSAMPLEPOINT_RECORD },
    /* the writer writes its own version and identifier lines */
    { HANDLER(def_ignore), OTF_DEFUNIQUEID_RECORD },
};

/* Events the engine is fed with. */
static const struct handler event_handlers[] = {
    { HANDLER(ev_enter), OTF_ENTER_RECORD },
    { HANDLER(ev_leave), OTF_LEAVE_RECORD },
    { HANDLER(ev_send), OTF_SEND_RECORD },
    { HANDLER(ev_recv), OTF_RECEIVE_RECORD },
    { HANDLER(ev_counter), OTF_COUNTER_RECORD },
    { HANDLER(ev_collop), OTF_COLLOP_RECORD },
    { HANDLER(ev_bcollop), OTF_BEGINCOLLOP_RECORD },
    { HANDLER(ev_ecollop), OTF_ENDCOLLOP_RECORD },
    { HANDLER(ev_fileop), OTF_FILEOPERATION_RECORD },
    { HANDLER(ev_bfileop), OTF_BEGINFILEOP_RECORD },
    { HANDLER(ev_efileop), OTF_ENDFILEOP_RECORD },
};

static void set_all(OTF_HandlerArray *h, const struct handler *t, size_t n, void *arg)
{
    for (size_t i = 0; i < n; i++) {
        OTF_HandlerArray_setHandler(h, t[i].fn, t[i].record);
        OTF_HandlerArray_setFirstHandlerArg(h, arg, t[i].record);
    }
}

/* -- files ---------------------------------------------------------------- */

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Does the trace keep its files compressed?  Its definitions decide
 * (every trace has them); without them, stream 1's events. */
static int trace_compressed(const char *stub)
{
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s.0.def", stub);
    snprintf(b, sizeof b, "%s.0.def.z", stub);
    if (exists(a) || exists(b))
        return !exists(a);
    snprintf(b, sizeof b, "%s.1.events.z", stub);
    return exists(b);
}

/* Splits "dir/base" into a directory ("." if none) and the base. */
static void split_path(const char *stub, char *dir, size_t dirlen, const char **base)
{
    const char *slash = strrchr(stub, '/');
    if (!slash) {
        snprintf(dir, dirlen, ".");
        *base = stub;
    } else {
        snprintf(dir, dirlen, "%.*s", (int)(slash - stub) ? (int)(slash - stub) : 1, stub);
        *base = slash + 1;
    }
}

/*
 * Calls fn(arg, suffix) for every file "<tmp>.<suffix>" in tmp's
 * directory.  Returns the first non-zero return of fn, or 0.
 */
static int each_tmp_file(const char *tmp, int (*fn)(void *, const char *), void *arg)
{
    char dir[4096];
    const char *base;
    split_path(tmp, dir, sizeof dir, &base);
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    size_t len = strlen(base);
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, base, len) == 0 && e->d_name[len] == '.')
            rc = fn(arg, e->d_name + len + 1);
    closedir(d);
    return rc;
}

struct finish {
    const char *tmp, *target;
    int in_place;
    char *err;
    size_t errlen;
};

static int unlink_tmp(void *arg, const char *suffix)
{
    const struct finish *f = arg;
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", f->tmp, suffix);
    unlink(path);
    return 0;
}

/* Renames "<tmp>.<suffix>" to "<target>.<suffix>" and removes the other
 * compression variant of the target, so that readers see the new file. */
static int rename_tmp(void *arg, const char *suffix)
{
    const struct finish *f = arg;
    if (f->in_place && strcmp(suffix, "otf") == 0)
        return 0;               /* the trace's own master file stays */
    char from[4096], to[4096], other[4200];
    snprintf(from, sizeof from, "%s.%s", f->tmp, suffix);
    snprintf(to, sizeof to, "%s.%s", f->target, suffix);
    size_t n = strlen(to);
    if (n > 2 && strcmp(to + n - 2, ".z") == 0)
        snprintf(other, sizeof other, "%.*s", (int)(n - 2), to);
    else
        snprintf(other, sizeof other, "%s.z", to);
    if (rename(from, to) != 0)
        return vftr_errmsg(f->err, f->errlen, -errno, "%s: cannot rename to %s (%s)", from, to,
                           strerror(errno));
    unlink(other);
    return 0;
}

/* Files left by an earlier run that was killed: "<stub>.vftr-snap-<pid>.*"
 * of a process that no longer exists. */
static void remove_stale(const char *stub)
{
    char dir[4096], prefix[512];
    const char *base;
    split_path(stub, dir, sizeof dir, &base);
    snprintf(prefix, sizeof prefix, "%s.vftr-snap-", base);
    size_t len = strlen(prefix);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, len) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + len, &end, 10);
        if (pid <= 0 || *end != '.' || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;           /* alive (or not ours to judge) */
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* Removes "<stub>.<id>.<ext>" and its .z variant. */
static void remove_variants(const char *stub, uint32_t id, const char *ext)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%" PRIx32 ".%s", stub, id, ext);
    unlink(path);
    strncat(path, ".z", sizeof path - strlen(path) - 1);
    unlink(path);
}

/* The thumbnail, in otfaux's format (see snapshot.h). */
static int write_thumb(const struct run *r, const char *path)
{
    FILE *f = vftr_fopen_regular(path, "w", NULL);      /* never waits on a FIFO */
    if (!f)
        return -errno;
    int rc = r->snap ? vftr_snap_write_thumb(r->snap, f) : 0;
    if (fclose(f) != 0 && !rc)
        rc = -errno;
    return rc;
}

/* -- the job ---------------------------------------------------------------- */

static int read_trace(struct run *r, const char *stub)
{
    OTF_HandlerArray *h = OTF_HandlerArray_open();
    if (!h)
        return fail(r, -ENOMEM, "out of memory");
    OTF_HandlerArray_getCopyHandler(h, r->writer);
    set_all(h, def_handlers, sizeof def_handlers / sizeof def_handlers[0], r);
    if (OTF_Reader_readDefinitions(r->reader, h) == OTF_READ_ERROR && !r->rc)
        fail(r, -EIO, "%s.otf: cannot read the definitions (%s)", stub, otf_strerr);
    if (!r->rc && !r->job->remove) {
        if (!r->copy_events) {
            /* in place only the engine listens: other events are skipped */
            OTF_HandlerArray_close(h);
            h = OTF_HandlerArray_open();
            if (!h)
                return fail(r, -ENOMEM, "out of memory");
        }
        set_all(h, event_handlers, sizeof event_handlers / sizeof event_handlers[0], r);
        if (OTF_Reader_readEvents(r->reader, h) == OTF_READ_ERROR && !r->rc)
            fail(r, -EIO, "%s.otf: cannot read the events (%s)", stub, otf_strerr);
        if (!r->rc && r->copy_events) {
            OTF_HandlerArray_close(h);
            h = OTF_HandlerArray_open();
            if (!h)
                return fail(r, -ENOMEM, "out of memory");
            OTF_HandlerArray_getCopyHandler(h, r->writer);
            if (OTF_Reader_readMarkers(r->reader, h) == OTF_READ_ERROR)
                fail(r, -EIO, "%s.otf: cannot read the markers (%s)", stub, otf_strerr);
        }
    }
    OTF_HandlerArray_close(h);
    vftr_progress_end(&r->progress, r->last - r->first, r->nevents);
    if (!r->rc && r->snap) {
        int rc = vftr_snap_finish(r->snap);
        if (rc)
            feed_ok(r, rc);
    }
    return r->rc;
}

/* The time range and the sample points, as vfd2otf writes them (snap_otf.h),
 * to stream 0's definitions; OTF_Writer_writeOtfVersion makes sure the
 * header heads them, as any OTF_Writer_writeDef* call would. */
static int write_points(struct run *r)
{
    if (!r->started || r->job->remove)
        return 0;
    OTF_WStream *def = OTF_Writer_writeOtfVersion(r->writer, 0) ? OTF_Writer_getStream(r->writer, 0)
                                                                : NULL;
    if (!def || vftr_snap_write_points(def, r->first, r->last, r->plan.breaks, r->plan.nbreaks,
                                       r->flags) < 0)
        return fail(r, -EIO, "cannot write the definitions (%s)", otf_strerr);
    return 0;
}

/* What the size estimate needs from the files: the processes the master
 * file assigns, the event files' bytes and whether they are compressed.
 * In an uncompressed file every new time stamp is a line of its own (hex
 * digits and a newline, 2 bytes at least) followed by a record (2 bytes at
 * least), so it holds at most a quarter of its bytes in distinct times;
 * a compressed one could inflate a thousandfold: it vouches for nothing. */
static void trace_files(struct run *r, const char *stub, OTF_MasterControl *mc, uint32_t nstreams)
{
    struct vftr_snap_traceinfo *t = &r->info;
    int bounded = 1;
    for (uint32_t i = 0; i < nstreams; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        if (!e)
            continue;
        t->processes += e->n;
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s.%" PRIx32 ".events", stub, e->argument);
        if (stat(path, &st) == 0) {
            t->bytes += (uint64_t)st.st_size;
            t->max_times += (uint64_t)st.st_size / 4;
            continue;
        }
        strncat(path, ".z", sizeof path - strlen(path) - 1);
        if (stat(path, &st) == 0) {
            t->bytes += (uint64_t)st.st_size;
            t->compressed = 1;
            bounded = 0;
        }
    }
    if (!bounded)
        t->max_times = 0;
    else if (t->max_times == 0)
        t->max_times = 1;       /* no event file: no event time but the trace's range */
    if (r->copy_events)
        t->copy_bytes = t->bytes;
}

/* Renames the new files over the old ones.  SIGINT, SIGTERM and SIGHUP
 * wait meanwhile: stopping half way would leave the old definitions with
 * new files or the other way round.  Returns 0 or -errno. */
static int commit(struct run *r, const char *stub, int in_place, OTF_MasterControl *mc,
                  uint32_t nstreams, struct finish *f)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    int rc = 0;
    if (*r->stop) {
        /* the last moment a signal still cancels the run */
        rc = fail(r, -EINTR, "interrupted");
        goto out;
    }
    /* the stale files of the rewritten kinds go and the new ones take
     * their names */
    for (uint32_t i = 0; i < nstreams && in_place; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        if (!e)
            continue;
        if (r->kinds & SNAP_KIND_SNAPSHOTS)
            remove_variants(stub, e->argument, "snaps");
        if (r->kinds & SNAP_KIND_STATISTICS)
            remove_variants(stub, e->argument, "stats");
    }
    if (in_place && r->job->remove) {
        char path[4200];
        snprintf(path, sizeof path, "%s.thumb", stub);
        unlink(path);
    }
    rc = each_tmp_file(f->tmp, rename_tmp, f);
    if (rc)
        r->rc = rc;
out:
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static const char *signame(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

/* Whatever is left under the temporary name (all of it on failure). */
static void remove_tmp(const char *tmp)
{
    struct finish g = { tmp, tmp, 0, NULL, 0 };
    each_tmp_file(tmp, unlink_tmp, &g);
}

int snap_job_run(const struct snap_job *job, const volatile sig_atomic_t *stop, char *err,
                 size_t errlen)
{
    static const volatile sig_atomic_t never;
    struct run r;
    memset(&r, 0, sizeof r);
    r.job = job;
    r.stop = stop ? stop : &never;
    r.err = err;
    r.errlen = errlen;
    r.kinds = job->remove ? SNAP_KIND_SNAPSHOTS | SNAP_KIND_STATISTICS
            : job->kinds ? job->kinds : SNAP_KIND_SNAPSHOTS;
    r.copy_events = job->output != NULL;

    char *stub = vftr_trace_namestub(job->trace);
    char *out = job->output ? vftr_trace_namestub(job->output) : NULL;
    char tmp[4096] = "", outdir[4096];
    OTF_FileManager *fm = NULL;
    if (!stub || (job->output && !out)) {
        fail(&r, -ENOMEM, "out of memory");
        goto done;
    }
    const char *target = out ? out : stub, *base;
    remove_stale(target);
    split_path(target, outdir, sizeof outdir, &base);
    r.outdir = outdir;
    snprintf(tmp, sizeof tmp, "%s.vftr-snap-%ld", target, (long)getpid());
    fm = OTF_FileManager_open(MAX_OPEN_FILES);
    if (!fm) {
        fail(&r, -ENOMEM, "cannot create an OTF file manager");
        goto done;
    }
    char msg[VFTR_ERRMSG_MAX];
    r.reader = vftr_trace_open(stub, fm, msg, sizeof msg);
    if (!r.reader) {
        fail(&r, -EIO, "%s.otf: %s", stub, msg);
        goto done;
    }
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(r.reader);
    uint32_t nstreams = mc ? OTF_MasterControl_getCount(mc) : 0;
    trace_files(&r, stub, mc, nstreams);
    r.writer = OTF_Writer_open(tmp, nstreams ? nstreams : 1, fm);
    if (!r.writer) {
        fail(&r, -EIO, "%s: cannot write beside the trace (%s)", tmp, otf_strerr);
        goto done;
    }
    if (trace_compressed(stub))
        OTF_Writer_setCompression(r.writer, OTF_FILECOMPRESSION_COMPRESSED);
    /* the same processes on the same streams as the trace */
    for (uint32_t i = 0; i < nstreams; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        for (uint32_t k = 0; e && k < e->n; k++)
            OTF_Writer_assignProcess(r.writer, e->values[k], e->argument);
    }
    if (read_trace(&r, stub) == 0)
        write_points(&r);
    if (!OTF_Writer_close(r.writer) && !r.rc)
        fail(&r, -EIO, "%s: cannot write the new files (%s)", tmp, otf_strerr);
    r.writer = NULL;
    if (!r.rc && (r.kinds & SNAP_KIND_SNAPSHOTS) && !job->remove && r.plan.nsamples > 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s.thumb", tmp);
        int rc = write_thumb(&r, path);
        if (rc)
            fail(&r, rc, "%s: cannot write the thumbnail (%s)", path, strerror(-rc));
    }
    struct finish f = { tmp, target, out == NULL, err, errlen };
    if (!r.rc)
        commit(&r, stub, out == NULL, mc, nstreams, &f);
done:
    if (r.writer)
        OTF_Writer_close(r.writer);
    if (tmp[0])
        remove_tmp(tmp);
    if (r.reader)
        OTF_Reader_close(r.reader);
    if (fm)
        OTF_FileManager_close(fm);
    if (r.rc == -EINTR)
        snprintf(err, errlen, "%s.otf: interrupted by %s; the trace is as it was, and the "
                 "temporary files are removed", stub ? stub : job->trace, signame(*r.stop));
    else if (r.rc && stub && !(strncmp(err, stub, strlen(stub)) == 0 && err[strlen(stub)] == '.') &&
             strncmp(err, "out of", 6) != 0) {
        /* every message names the trace */
        char bare[1024];
        snprintf(bare, sizeof bare, "%s", err);
        snprintf(err, errlen, "%s.otf: %s", stub, bare);
    }
    vftr_snap_free(r.snap);
    vftr_snap_plan_release(&r.plan);
    free(r.funcs);
    free(r.files);
    free(r.colls);
    free(r.procs);
    free(stub);
    free(out);
    return r.rc;
}
