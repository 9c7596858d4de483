/*
 * source_vfd.c — the .vfd backend of source.h: a run's files (vfdfiles.h)
 * read through the conversion engine (vfdconv.h), whose event stream is
 * exactly what vfd2otf writes, so every figure of the .vfd route is the
 * figure of the OTF route.
 *
 * A window read replays the selected ranks from the run's start (a .vfd
 * has no snapshots): before a it keeps the call stacks and the messages in
 * flight, at a it hands them over, then it delivers the events up to b and
 * stops.  A profile replays groups of ranks in parallel threads, each into
 * its own replay (replay.h, fed from the start so that calls enclosing the
 * window count), merged at the end.
 */
#include "source_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "vfdconv.h"
#include "vfdmodel.h"
#include "vfdfiles.h"
#include "winstate.h"
#include "util/errmsg.h"
#include "util/progress.h"
#include "vfd/vftr_vfd_ext.h"
#include "OTF_Definitions.h"

struct vfd_impl {
    struct vftr_vfdconv *conv;
    int borrowed;                     /* conv is the caller's (vftr_source_open_vfdconv) */
    struct vftr_vfdfiles files;
    uint32_t *ranks;                  /* rank numbers in index order (vfdconv's) */
    size_t nranks;
};

static struct vfd_impl *impl(const struct vftr_source *s)
{
    return s->impl;
}

static void vfd_free(struct vftr_source *s)
{
    struct vfd_impl *v = impl(s);

    if (!v)
        return;
    if (!v->borrowed)
        vftr_vfdconv_free(v->conv);
    vftr_vfdfiles_release(&v->files);
    free(v->ranks);
    free(v);
    s->impl = NULL;
}

/* Rank indices (vftr_vfdconv_replay's) with a process in procs (NULL: all):
 * *out malloc'ed, *n of them.  0 or -ENOMEM. */
static int select_ranks(const struct vftr_source *s, const struct vftr_proclist *procs,
                        uint32_t **out, size_t *n)
{
    const struct vfd_impl *v = impl(s);
    uint32_t *r = malloc((v->nranks ? v->nranks : 1) * sizeof *r);

    *n = 0;
    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < v->nranks; i++) {
        int want = procs == NULL;

        for (size_t k = 0; !want && k < s->nprocs; k++)
            want = s->procs[k].rank == v->ranks[i] &&
                   vftr_proclist_contains(procs, s->procs[k].token);
        if (want)
            r[(*n)++] = (uint32_t)i;
    }
    *out = r;
    return 0;
}

/* ------------------------------------------------------------ window reads */

/* The engine stops on a negative value: winstate's STOP is one. */
#define STOP VFTR_WINSTATE_STOP

static int wread_event(void *ctx, const struct vftr_vfdconv_event *e)
{
    return vftr_winstate_event(ctx, e);
}

static int wread_anomaly(void *ctx, uint64_t time, uint32_t process, const char *what)
{
    struct vftr_winstate *w = ctx;

    if (time >= w->b || (w->procs && !vftr_proclist_contains(w->procs, process)) ||
        !w->h->anomaly)
        return 0;
    return vftr_winstate_verdict(w, w->h->anomaly(w->h->arg, time, process, what));
}

static void wread_progress(void *ctx, uint64_t bytes)
{
    struct vftr_winstate *w = ctx;

    w->st->bytes_read = bytes;
}

static int vfd_read(struct vftr_source *s, uint64_t a, uint64_t b,
                    const struct vftr_proclist *procs, unsigned flags,
                    const struct vftr_window_handler *h, struct vftr_window_stats *st, char *err,
                    size_t errlen)
{
    struct vfd_impl *v = impl(s);
    struct vftr_winstate w;
    struct vftr_vfdconv_consumer cons = {
        .event = wread_event, .progress = wread_progress,
        .ctx = &w, .anomaly = wread_anomaly,
    };
    uint32_t *ranks = NULL;
    size_t nr;
    int rc;

    *st = (struct vftr_window_stats){ 0 };
    vftr_winstate_init(&w, h, procs, a, b, !(flags & VFTR_SOURCE_EVENTS_ONLY), st);
    rc = select_ranks(s, procs, &ranks, &nr);
    if (rc < 0)
        return vftr_errmsg(err, errlen, rc, "out of memory");
    if (nr == 0 && procs) {
        free(ranks);
        return vftr_errmsg(err, errlen, -ENOENT, "none of the selected processes is in the run");
    }
    rc = vftr_vfdconv_replay(v->conv, ranks, nr, &cons, NULL, err, errlen);
    if (rc == STOP)
        rc = w.hrc;
    else if (rc == 0)
        rc = vftr_winstate_finish(&w);     /* the window lies after the last event */
    if (rc == -ENOMEM && err && !err[0])
        vftr_errmsg(err, errlen, rc, "out of memory");
    vftr_winstate_release(&w);
    free(ranks);
    return rc;
}

/* ------------------------------------------------------------ profiles */

/* The progress line of a profile read by several threads: their bytes and
 * events added up, drawn by whichever thread gets the lock. */
struct pshared {
    struct vftr_progress *line;       /* NULL: none */
    atomic_ullong bytes, events;
    pthread_mutex_t lock;
};

struct pjob {
    const struct vftr_source *s;
    const struct vftr_profq *q;
    const uint32_t *ranks;
    size_t nranks;
    struct vftr_replay *replay;
    uint64_t bytes;
    int rc;
    char err[VFTR_ERRMSG_MAX];
    struct pshared *shared;
    uint64_t events, events_told;
};

static int pjob_event(void *ctx, const struct vftr_vfdconv_event *e)
{
    struct pjob *j = ctx;
    const struct vftr_profq *q = j->q;
    uint32_t f;

    if (e->time >= q->b)
        return STOP;
    if (e->type != VFTR_VFDCONV_ENTER && e->type != VFTR_VFDCONV_LEAVE)
        return 0;
    j->events++;
    if (q->procs && !vftr_proclist_contains(q->procs, e->process))
        return 0;
    f = q->token ? q->token(q->arg, e->function) : e->function;
    return e->type == VFTR_VFDCONV_ENTER ? vftr_replay_enter(j->replay, e->process, f, e->time)
                                         : vftr_replay_leave(j->replay, e->process, f, e->time);
}

static void pjob_progress(void *ctx, uint64_t bytes)
{
    struct pjob *j = ctx;
    struct pshared *sh = j->shared;

    if (sh->line) {
        atomic_fetch_add(&sh->bytes, bytes - j->bytes);
        atomic_fetch_add(&sh->events, j->events - j->events_told);
        j->events_told = j->events;
        if (pthread_mutex_trylock(&sh->lock) == 0) {
            vftr_progress_update(sh->line, atomic_load(&sh->bytes), atomic_load(&sh->events), 0);
            pthread_mutex_unlock(&sh->lock);
        }
    }
    j->bytes = bytes;
}

static void *pjob_run(void *arg)
{
    struct pjob *j = arg;
    struct vftr_vfdconv_consumer cons = {
        .event = pjob_event, .progress = pjob_progress,
        .ctx = j,
    };
    const struct vfd_impl *v = impl(j->s);

    j->rc = vftr_vfdconv_replay(v->conv, j->ranks, j->nranks, &cons, NULL, j->err,
                                sizeof j->err);
    if (j->rc == STOP)
        j->rc = 0;
    if (j->rc == 0)
        j->rc = vftr_replay_finish(j->replay);
    return NULL;
}

static int vfd_profile(struct vftr_source *s, const struct vftr_profq *q,
                       struct vftr_profq_result *res, char *err, size_t errlen)
{
    uint32_t *ranks = NULL;
    size_t nr;
    unsigned jobs = vftr_source_jobs(s);
    struct pjob *job = NULL;
    pthread_t *tid = NULL;
    unsigned started = 0;
    struct pshared shared = { s->progress, 0, 0, PTHREAD_MUTEX_INITIALIZER };
    int rc = select_ranks(s, q->procs, &ranks, &nr);

    if (rc < 0)
        return vftr_errmsg(err, errlen, rc, "out of memory");
    if (nr == 0 && q->procs) {
        free(ranks);
        return vftr_errmsg(err, errlen, -ENOENT, "none of the selected processes is in the run");
    }
    if (jobs > nr)
        jobs = nr ? (unsigned)nr : 1;
    job = calloc(jobs, sizeof *job);
    tid = calloc(jobs, sizeof *tid);
    if (!job || !tid) {
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto out;
    }
    if (shared.line) {
        const struct vfd_impl *v = impl(s);

        shared.line->total = 0;
        for (size_t i = 0; i < nr; i++)
            shared.line->total += vftr_vfdconv_rank_bytes(v->conv, ranks[i]);
    }
    /* contiguous groups of ranks: each thread replays its own */
    for (unsigned i = 0; i < jobs; i++) {
        size_t lo = nr * i / jobs, hi = nr * (i + 1) / jobs;

        job[i] = (struct pjob){ s, q, ranks + lo, hi - lo, vftr_replay_new(q->a, q->b), 0, 0, "",
                                &shared, 0, 0 };
        if (!job[i].replay ||
            vftr_replay_set_flags(job[i].replay, vftr_profq_replay_flags(q)) < 0) {
            rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            goto out;
        }
    }
    for (started = 1; started < jobs; started++)
        if (pthread_create(&tid[started], NULL, pjob_run, &job[started]) != 0)
            break;
    pjob_run(&job[0]);
    for (unsigned i = started; i < jobs; i++)      /* threads refused: run here */
        pjob_run(&job[i]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    for (unsigned i = 0; i < jobs; i++) {
        res->bytes += job[i].bytes;
        if (job[i].rc < 0 && rc == 0)
            rc = vftr_errmsg(err, errlen, job[i].rc, "%s",
                             job[i].err[0] ? job[i].err : strerror(-job[i].rc));
    }
    for (unsigned i = 1; i < jobs && rc == 0; i++)
        if ((rc = vftr_replay_merge(job[0].replay, job[i].replay)) < 0)
            vftr_errmsg(err, errlen, rc, "out of memory");
    if (rc == 0) {
        size_t n;
        const struct vftr_funcstat *fs = vftr_replay_funcstats(job[0].replay, &n);
        const struct vftr_replay_counts *k = vftr_replay_counts(job[0].replay);

        res->delivered = k->enters + k->leaves;
        res->jobs = jobs;
        res->method = "events";
        rc = vftr_fsacc_add_stats(res->acc, fs, n, +1, q->process, q->arg);
        if (rc < 0)
            vftr_errmsg(err, errlen, rc, "out of memory");
    }
    if (rc == 0 && (q->flags & VFTR_PROFQ_PATHS)) {
        res->paths = job[0].replay;
        job[0].replay = NULL;
    }
out:
    for (unsigned i = 0; job && i < jobs; i++)
        vftr_replay_free(job[i].replay);
    free(job);
    free(tid);
    free(ranks);
    return rc;
}

static const struct vftr_source_ops vfd_ops = { vfd_free, vfd_read, vfd_profile, NULL };

static int fill(struct vftr_source *s, struct vfd_impl *v, char *err, size_t errlen);

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

int vftr_source_open_vfd(struct vftr_source *s, const char *const *ops, size_t n, char *err,
                         size_t errlen)
{
    struct vfd_impl *v = calloc(1, sizeof *v);
    struct vftr_vfdconv_opts co = { s->opts.warn, s->opts.prog, 0, vftr_source_jobs(s),
                                    s->share };
    int rc;

    if (!v)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    s->impl = v;
    s->ops = &vfd_ops;
    s->info.kind = VFTR_SOURCE_VFD;
    rc = vftr_vfdfiles_collect(&v->files, ops, n, s->opts.warn, s->opts.prog, err, errlen);
    if (rc < 0)
        return rc;
    rc = vftr_vfdconv_open(&v->conv, (const char *const *)v->files.path, v->files.n, &co, err,
                           errlen);
    if (rc < 0)
        return rc;
    return fill(s, v, err, errlen);
}

int vftr_source_open_vfdconv(struct vftr_source **out, struct vftr_vfdconv *conv,
                             const struct vftr_source_opts *opts, char *err, size_t errlen)
{
    struct vftr_source *s = calloc(1, sizeof *s);
    struct vfd_impl *v = calloc(1, sizeof *v);
    int rc;

    *out = NULL;
    if (!s || !v || !(s->name = strdup(vftr_vfdconv_path(conv, 0) ? vftr_vfdconv_path(conv, 0)
                                                                   : "run"))) {
        free(v);
        if (s)
            free(s->name);
        free(s);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    if (opts)
        s->opts = *opts;
    if (!s->opts.prog)
        s->opts.prog = "vftr";
    s->info.name = s->name;
    s->impl = v;
    s->ops = &vfd_ops;
    s->info.kind = VFTR_SOURCE_VFD;
    v->conv = conv;
    v->borrowed = 1;
    rc = fill(s, v, err, errlen);
    if (rc == 0 && (rc = vftr_source_defs_done(s)) < 0)
        vftr_errmsg(err, errlen, rc, "out of memory");
    if (rc < 0) {
        vftr_source_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* The definitions (vfdmodel.h: as vfd2otf writes them) and facts of the
 * engine's run. */
static int fill(struct vftr_source *s, struct vfd_impl *v, char *err, size_t errlen)
{
    struct vftr_vfdmodel m;
    int rc = 0;

    s->ranks_known = 1;
    if (vftr_vfdmodel_init(&m, v->conv) < 0)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    v->ranks = malloc((m.nprocs ? m.nprocs : 1) * sizeof *v->ranks);
    if (!v->ranks)
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < m.nprocs; i++) {
        const struct vftr_source_proc *p = &m.procs[i];

        rc = vftr_source_add_proc(s, p->token, p->parent, p->rank, p->thread, p->flags, p->name);
        if (p->thread == 0)
            v->ranks[v->nranks++] = p->rank;
    }
    /* the engine numbers ranks by index in ascending rank order */
    if (rc == 0 && v->nranks)
        qsort(v->ranks, v->nranks, sizeof *v->ranks, cmp_u32);
    for (size_t i = 0; rc == 0 && i < m.nfuncs; i++)
        rc = vftr_source_add_func(s, m.funcs[i].token, m.funcs[i].group, m.funcs[i].flags,
                                  m.funcs[i].name);
    for (size_t i = 0; rc == 0 && i < m.nfuncs; i++)
        if (m.funcs[i].file)
            rc = vftr_source_set_func_location(s, m.funcs[i].token, m.funcs[i].file,
                                               m.funcs[i].line);
    for (size_t i = 0; rc == 0 && i < m.ncomms; i++)
        rc = vftr_source_add_comm(s, m.comms[i].token, m.comms[i].name, m.comms[i].n,
                                  m.comms[i].procs);
    for (size_t i = 0; rc == 0 && i < m.ngroups; i++)
        rc = vftr_source_add_group(s, m.groups[i].token, m.groups[i].name);
    for (size_t i = 0; rc == 0 && i < m.nfilegroups; i++)
        rc = vftr_source_add_filegroup(s, m.filegroups[i].token, m.filegroups[i].name);
    for (size_t i = 0; rc == 0 && i < m.nfiles; i++)
        rc = vftr_source_add_file(s, m.files[i].token, m.files[i].group, m.files[i].name);
    for (size_t i = 0; rc == 0 && i < m.ncounters; i++)
        rc = vftr_source_add_counter(s, m.counters[i].token, m.counters[i].name,
                                     m.counters[i].unit, m.counters[i].properties);
    for (size_t i = 0; rc == 0 && i < m.ncollops; i++)
        rc = vftr_source_add_collop(s, m.collops[i].token, m.collops[i].name);
    vftr_vfdmodel_release(&m);
    if (rc < 0)
        return vftr_errmsg(err, errlen, rc, "out of memory");
    s->info.resolution = 1000000000u;
    vftr_vfdconv_time_range(v->conv, &s->info.first, &s->info.last);
    s->info.have_events = 0;
    for (size_t r = 0; r < v->nranks; r++)
        if (vftr_vfdconv_rank_events(v->conv, v->ranks[r]))
            s->info.have_events = 1;
    s->info.sample_interval = vftr_vfdconv_sample_interval(v->conv);
    s->info.nfiles = v->files.n;
    return 0;
}
