/*
 * otfreplay.c — see otfreplay.h.  The calling thread is worker 0 and keeps
 * the reader it opened to learn the streams; workers 1..n-1 run in threads
 * of their own.  Nothing is shared between workers while they read but the
 * options (read only) and the progress line's counters (atomic; one worker
 * draws at a time).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf.h"

#include "otfreplay.h"
#include "util/errmsg.h"
#include "util/progress.h"
#include "util/tracesel.h"

/* Open files per worker's manager: a worker reads few streams at a time. */
#define FILES_PER_WORKER 64

struct stream {
    uint32_t id;
    uint64_t bytes;                   /* size of its event file */
    unsigned worker;
};

/* The progress line shared by the workers: their bytes and events added
 * up, drawn by the one that gets the lock (the others read on). */
struct shared {
    struct vftr_progress *line;
    atomic_ullong bytes, events;
    pthread_mutex_t lock;
};

struct worker {
    const struct vftr_otfreplay_opts *o;
    struct shared *shared;
    uint64_t events, events_told;     /* Enter and Leave events replayed, and told */
    unsigned index;
    const struct stream *streams;     /* all of them; this worker's have .worker == index */
    size_t nstreams;
    OTF_FileManager *manager;
    OTF_Reader *reader;
    struct vftr_replay *replay;
    uint64_t bytes_read;
    int rc;                           /* 0 or -errno */
    int handler_rc;                   /* what a replay call returned */
    char err[VFTR_ERRMSG_MAX];
};

unsigned vftr_otfreplay_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n > 0 ? (unsigned)n : 1;
}

static uint32_t token(const struct vftr_otfreplay_opts *o, uint32_t function)
{
    return o->token ? o->token(o->arg, function) : function;
}

static int on_enter(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    struct worker *w = ud;

    (void)source, (void)kv;
    w->events++;
    w->handler_rc = vftr_replay_enter(w->replay, process, token(w->o, function), time);
    return w->handler_rc ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_leave(void *ud, uint64_t time, uint32_t function, uint32_t process,
                    uint32_t source, OTF_KeyValueList *kv)
{
    struct worker *w = ud;

    (void)source, (void)kv;
    w->events++;
    w->handler_rc = vftr_replay_leave(w->replay, process, token(w->o, function), time);
    return w->handler_rc ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

/* Handlers are stored as OTF_FunctionPointer; the detour through a
 * function pointer without parameters is the cast C allows silently. */
#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

static int fail_otf(struct worker *w, const char *what)
{
    char why[VFTR_ERRMSG_MAX];

    w->rc = vftr_errmsg(w->err, sizeof w->err, -EIO, "%s (%s)", what,
                        vftr_trace_otf_reason(why, sizeof why));
    return w->rc;
}

/* The manager's progress function (every few MB a worker's reader
 * delivers, in the worker's thread). */
static int on_progress(void *arg, uint64_t bytes)
{
    struct worker *w = arg;
    struct shared *sh = w->shared;

    atomic_fetch_add(&sh->bytes, bytes);
    atomic_fetch_add(&sh->events, w->events - w->events_told);
    w->events_told = w->events;
    if (pthread_mutex_trylock(&sh->lock) == 0) {
        vftr_progress_update(sh->line, atomic_load(&sh->bytes), atomic_load(&sh->events), 0);
        pthread_mutex_unlock(&sh->lock);
    }
    return 0;
}

/* Opens the worker's manager and reader unless it has them (worker 0). */
static int worker_open(struct worker *w)
{
    if (w->reader)
        return 0;
    w->manager = OTF_FileManager_open(FILES_PER_WORKER);
    if (!w->manager)
        return fail_otf(w, "cannot create an OTF file manager");
    w->reader = vftr_trace_open(w->o->namestub, w->manager, w->err, sizeof w->err);
    if (!w->reader)
        return w->rc = -EIO;
    return 0;
}

/* Enables the wanted processes of stream entry e. */
static int enable_entry(struct worker *w, const OTF_MapEntry *e)
{
    for (uint32_t k = 0; k < e->n; k++) {
        if (w->o->wanted && !w->o->wanted(w->o->arg, e->values[k]))
            continue;
        if (!OTF_Reader_setProcessStatus(w->reader, e->values[k], 1))
            return fail_otf(w, "cannot enable a process");
    }
    return 0;
}

/* Enables exactly the wanted processes of this worker's streams (of all
 * streams when it has no list). */
static int worker_select(struct worker *w)
{
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(w->reader);
    uint32_t n = mc ? OTF_MasterControl_getCount(mc) : 0;

    if (!mc || !OTF_Reader_setProcessStatusAll(w->reader, 0))
        return fail_otf(w, "cannot select processes");
    for (uint32_t i = 0; !w->streams && i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);

        if (e && enable_entry(w, e) < 0)
            return w->rc;
    }
    for (size_t i = 0; i < w->nstreams; i++) {
        OTF_MapEntry *e;

        if (w->streams[i].worker != w->index)
            continue;
        e = OTF_MasterControl_getEntry(mc, w->streams[i].id);
        if (e && enable_entry(w, e) < 0)
            return w->rc;
    }
    return 0;
}

/* Reads this worker's events into its replay and finishes it. */
static void *worker_run(void *arg)
{
    struct worker *w = arg;
    OTF_HandlerArray *h = NULL;
    uint64_t bytes0;

    if (worker_open(w) < 0)
        return NULL;
    bytes0 = vftr_otf_manager_bytes_read(w->manager);
    if (w->shared && w->shared->line)
        vftr_otf_manager_set_progress(w->manager, on_progress, w);
    if ((w->streams || w->o->wanted) && worker_select(w) < 0)
        goto out;
    /* from the trace start: the events before the window set the call
     * stacks at its start (replay.h), so calls that enclose it count */
    if (w->o->end < UINT64_MAX)
        OTF_Reader_setTimeInterval(w->reader, 0, w->o->end);
    w->replay = vftr_replay_new(w->o->start, w->o->end);
    h = OTF_HandlerArray_open();
    if (!w->replay || !h) {
        w->rc = vftr_errmsg(w->err, sizeof w->err, -ENOMEM, "out of memory");
        goto out;
    }
    w->rc = vftr_replay_set_flags(w->replay, w->o->replay_flags);
    if (w->rc < 0) {
        vftr_errmsg(w->err, sizeof w->err, w->rc, "bad replay flags");
        goto out;
    }
    OTF_HandlerArray_setHandler(h, HANDLER(on_enter), OTF_ENTER_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(h, w, OTF_ENTER_RECORD);
    OTF_HandlerArray_setHandler(h, HANDLER(on_leave), OTF_LEAVE_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(h, w, OTF_LEAVE_RECORD);
    if (OTF_Reader_readEventsUnsorted(w->reader, h) == OTF_READ_ERROR) {
        if (w->handler_rc)
            w->rc = vftr_errmsg(w->err, sizeof w->err, w->handler_rc, "%s",
                                strerror(-w->handler_rc));
        else
            fail_otf(w, "cannot read the trace");
        goto out;
    }
    w->rc = vftr_replay_finish(w->replay);
out:
    if (w->shared && w->shared->line) {
        vftr_otf_manager_set_progress(w->manager, NULL, NULL);
        atomic_fetch_add(&w->shared->events, w->events - w->events_told);
        w->events_told = w->events;
    }
    w->bytes_read = vftr_otf_manager_bytes_read(w->manager) - bytes0;
    if (h)
        OTF_HandlerArray_close(h);
    return NULL;
}

/* The size of stream id's event file (plain or compressed); 0 if unknown. */
static uint64_t event_bytes(const char *stub, uint32_t id)
{
    static const OTF_FileCompression kinds[] = { OTF_FILECOMPRESSION_UNCOMPRESSED,
                                                 OTF_FILECOMPRESSION_COMPRESSED };
    char name[4096];
    struct stat sb;

    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (OTF_getFilename(stub, id, OTF_FILETYPE_EVENT | kinds[i], sizeof name, name) &&
            stat(name, &sb) == 0)
            return (uint64_t)sb.st_size;
    return 0;
}

static int by_size(const void *a, const void *b)
{
    const struct stream *x = a, *y = b;

    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The streams with a wanted process, each given to a worker: largest first
 * to the least loaded.  Returns the number of streams (*streams: caller
 * frees), 0 when one worker must read everything (a process under several
 * streams), or -ENOMEM.
 */
static long plan_streams(const struct vftr_otfreplay_opts *o, OTF_Reader *reader,
                         unsigned jobs, struct stream **streams)
{
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(reader);
    uint32_t n = mc ? OTF_MasterControl_getCount(mc) : 0;
    struct stream *s = calloc(n ? n : 1, sizeof *s);
    uint64_t *load = calloc(jobs, sizeof *load);
    size_t ns = 0, nprocs = 0;

    *streams = NULL;
    if (!s || !load) {
        free(s);
        free(load);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        int any = 0;

        if (!e)
            continue;
        nprocs += e->n;
        for (uint32_t k = 0; k < e->n && !any; k++)
            any = !o->wanted || o->wanted(o->arg, e->values[k]);
        if (any)
            s[ns++] = (struct stream){ e->argument, event_bytes(o->namestub, e->argument), 0 };
    }
    /* The reverse map holds each process once: fewer entries than the
     * streams list means a process under several streams. */
    if (nprocs != OTF_MasterControl_getrCount(mc)) {
        free(s);
        free(load);
        return 0;
    }
    qsort(s, ns, sizeof *s, by_size);
    for (size_t i = 0; i < ns; i++) {
        unsigned best = 0;

        for (unsigned k = 1; k < jobs; k++)
            if (load[k] < load[best])
                best = k;
        s[i].worker = best;
        load[best] += s[i].bytes ? s[i].bytes : 1;
    }
    free(load);
    *streams = s;
    return (long)ns;
}

int vftr_otfreplay_run(const struct vftr_otfreplay_opts *o, struct vftr_replay **out,
                       struct vftr_otfreplay_stats *stats, char *err, size_t errlen)
{
    unsigned jobs = o->jobs ? o->jobs : vftr_otfreplay_default_jobs();
    struct worker *w = NULL;
    pthread_t *tid = NULL;
    struct stream *streams = NULL;
    struct shared shared = { o->line, 0, 0, PTHREAD_MUTEX_INITIALIZER };
    unsigned started = 0;
    long ns = 0;
    int rc = 0;

    *out = NULL;
    if (!o->namestub || o->end <= o->start)
        return vftr_errmsg(err, errlen, -EINVAL, "bad replay options");
    w = calloc(jobs, sizeof *w);
    if (!w)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    w[0] = (struct worker){ .o = o };
    if (worker_open(&w[0]) < 0) {
        rc = vftr_errmsg(err, errlen, w[0].rc, "%s", w[0].err);
        goto out;
    }
    if (jobs > 1) {
        ns = plan_streams(o, w[0].reader, jobs, &streams);
        if (ns < 0) {
            rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            goto out;
        }
        if (ns == 0)
            jobs = 1;
        else if ((unsigned long)ns < jobs)
            jobs = (unsigned)ns;
    }
    if (jobs == 1) {                  /* worker 0 reads every stream */
        free(streams);
        streams = NULL;
        ns = 0;
    }
    if (o->line) {
        o->line->total = 0;
        if (ns > 0) {
            for (long i = 0; i < ns; i++)
                o->line->total += streams[i].bytes;
        } else {
            OTF_MasterControl *mc = OTF_Reader_getMasterControl(w[0].reader);
            uint32_t n = mc ? OTF_MasterControl_getCount(mc) : 0;

            for (uint32_t i = 0; i < n; i++) {
                OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);

                if (e)
                    o->line->total += event_bytes(o->namestub, e->argument);
            }
        }
    }
    if (o->line)      /* the line from the start, also for a trace read in a blink */
        vftr_progress_update(o->line, 0, 0, 1);
    for (unsigned i = 0; i < jobs; i++) {
        w[i].o = o;
        w[i].shared = &shared;
        w[i].index = i;
        w[i].streams = streams;
        w[i].nstreams = (size_t)ns;
    }
    if (jobs > 1) {
        tid = calloc(jobs, sizeof *tid);
        if (!tid) {
            rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            goto out;
        }
        for (started = 1; started < jobs; started++)
            if (pthread_create(&tid[started], NULL, worker_run, &w[started]) != 0)
                break;
        for (unsigned i = started; i < jobs; i++)   /* threads refused: run here */
            worker_run(&w[i]);
    }
    worker_run(&w[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(tid[i], NULL);

    for (unsigned i = 0; i < jobs && rc == 0; i++)
        if (w[i].rc < 0)
            rc = vftr_errmsg(err, errlen, w[i].rc, "%s", w[i].err);
    for (unsigned i = 1; i < jobs && rc == 0; i++) {
        rc = vftr_replay_merge(w[0].replay, w[i].replay);
        if (rc < 0)
            vftr_errmsg(err, errlen, rc, "out of memory");
    }
    if (stats) {
        OTF_MasterControl *mc = OTF_Reader_getMasterControl(w[0].reader);

        *stats = (struct vftr_otfreplay_stats){ jobs, ns ? (uint32_t)ns :
                                                mc ? OTF_MasterControl_getCount(mc) : 0, 0 };
        for (unsigned i = 0; i < jobs; i++)
            stats->bytes_read += w[i].bytes_read;
    }
    if (rc == 0) {
        *out = w[0].replay;
        w[0].replay = NULL;
    }
out:
    for (unsigned i = 0; i < jobs; i++) {
        vftr_replay_free(w[i].replay);
        if (w[i].reader)
            OTF_Reader_close(w[i].reader);
        if (w[i].manager)
            OTF_FileManager_close(w[i].manager);
    }
    free(tid);
    free(streams);
    free(w);
    return rc;
}
