/*
 * source_otf.c — the OTF 1.x backend of source.h.  Definitions come from
 * one read of the definition records; windows from window.h; profiles from
 * summaries and snapshots where they help (summary.h's plan), else from a
 * parallel replay of the streams (otfreplay.h).
 *
 * vftr's marks in a trace (written by vfd2otf, all optional): the
 * DefKeyValue "vftr.sample_interval_ns" (uint64) in the key-value list of
 * DefTimerResolution says the capture was sampled with that interval, and
 * "vftr.precise" (uint8 1) in the list of a DefFunction that every call of
 * it was recorded.
 */
#include "source_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "otf.h"

#include "grow.h"
#include "otfreplay.h"
#include "vfdconv.h"
#include "util/errmsg.h"
#include "util/tracesel.h"

#define MAX_OPEN_FILES 256
#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

struct otf_impl {
    char *stub;
    OTF_FileManager *manager;
    struct vftr_window *win;
    uint64_t *aux[2];                /* [0] summary times, [1] snapshot times */
    size_t naux[2], capaux[2];
    uint32_t key_interval, key_precise;   /* 0: the trace defines no such key */
    int error;                       /* -errno of a definition handler */
};

/* ------------------------------------------------------------ definitions */

/* A source-code location met in the definitions, resolved when all are
 * read (DefFunction may come before its DefScl). */
struct sclref { uint32_t token, a, b; };   /* function: scl; scl: file, line */

struct defs {
    struct vftr_source *s;
    struct otf_impl *o;
    uint64_t resolution;
    uint64_t interval_ns;
    struct sclref *fscl, *scl;          /* functions with a location, DefScl records */
    size_t nfscl, capfscl, nscl, capscl;
    struct vftr_source_name *files;     /* DefSclFile records */
    size_t nfiles, capfiles;
};

static int add_ref(struct sclref **v, size_t *n, size_t *cap, uint32_t token, uint32_t a,
                   uint32_t b)
{
    if (vftr_reserve((void **)v, cap, *n, sizeof **v) < 0)
        return -ENOMEM;
    (*v)[(*n)++] = (struct sclref){ token, a, b };
    return 0;
}

static int on_timer(void *ud, uint32_t stream, uint64_t ticks, OTF_KeyValueList *kv)
{
    struct defs *d = ud;
    uint64_t v;

    (void)stream;
    d->resolution = ticks;
    if (d->o->key_interval && OTF_KeyValueList_getUint64(kv, d->o->key_interval, &v) == 0)
        d->interval_ns = v;
    return OTF_RETURN_OK;
}

static int on_key(void *ud, uint32_t stream, uint32_t key, OTF_Type type, const char *name,
                  const char *description, OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)description, (void)kv;
    if (!name)
        return OTF_RETURN_OK;
    if (strcmp(name, VFTR_VFDCONV_KV_INTERVAL) == 0 && type == OTF_UINT64)
        d->o->key_interval = key;
    else if (strcmp(name, VFTR_VFDCONV_KV_PRECISE) == 0 && type == OTF_UINT8)
        d->o->key_precise = key;
    return OTF_RETURN_OK;
}

static int fail(struct defs *d, int rc)
{
    d->o->error = rc;
    return rc ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_process(void *ud, uint32_t stream, uint32_t process, const char *name,
                      uint32_t parent, OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)kv;
    return fail(d, vftr_source_add_proc(d->s, process, parent, 0, 0, 0, name));
}

static int on_function(void *ud, uint32_t stream, uint32_t func, const char *name,
                       uint32_t group, uint32_t source, OTF_KeyValueList *kv)
{
    struct defs *d = ud;
    uint8_t precise = 0;

    (void)stream, (void)source;
    if (d->o->key_precise)
        (void)OTF_KeyValueList_getUint8(kv, d->o->key_precise, &precise);
    if (source && add_ref(&d->fscl, &d->nfscl, &d->capfscl, func, source, 0) < 0)
        return fail(d, -ENOMEM);
    return fail(d, vftr_source_add_func(d->s, func, group, precise ? VFTR_SOURCE_FN_PRECISE : 0,
                                        name));
}

static int on_scl(void *ud, uint32_t stream, uint32_t source, uint32_t file, uint32_t line,
                  OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)kv;
    return fail(d, add_ref(&d->scl, &d->nscl, &d->capscl, source, file, line));
}

static int on_sclfile(void *ud, uint32_t stream, uint32_t file, const char *name,
                      OTF_KeyValueList *kv)
{
    struct defs *d = ud;
    char *copy = strdup(name ? name : "");

    (void)stream, (void)kv;
    if (!copy || vftr_reserve((void **)&d->files, &d->capfiles, d->nfiles, sizeof *d->files) < 0) {
        free(copy);
        return fail(d, -ENOMEM);
    }
    d->files[d->nfiles++] = (struct vftr_source_name){ file, copy };
    return OTF_RETURN_OK;
}

static int on_pgroup(void *ud, uint32_t stream, uint32_t group, const char *name, uint32_t n,
                     const uint32_t *procs, OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)kv;
    return fail(d, vftr_source_add_comm(d->s, group, name, n, procs));
}

/* The functions' source locations, now that every DefScl and DefSclFile is
 * known (of a token defined twice, the later definition counts). */
static int resolve_scls(struct defs *d)
{
    struct vftr_u64map scl = VFTR_U64MAP_INIT, file = VFTR_U64MAP_INIT;
    int rc = 0;

    for (size_t k = 0; k < d->nscl && rc == 0; k++)
        rc = vftr_u64map_put(&scl, d->scl[k].token, (uint32_t)k);
    for (size_t k = 0; k < d->nfiles && rc == 0; k++)
        rc = vftr_u64map_put(&file, d->files[k].token, (uint32_t)k);
    for (size_t i = 0; i < d->nfscl && rc == 0; i++) {
        long si = vftr_u64map_get(&scl, d->fscl[i].a), fi;

        if (si < 0 || (fi = vftr_u64map_get(&file, d->scl[si].a)) < 0)
            continue;
        if (vftr_source_set_func_location(d->s, d->fscl[i].token, d->files[fi].name,
                                          d->scl[si].b) == -ENOMEM)
            rc = -ENOMEM;
    }
    vftr_u64map_release(&scl);
    vftr_u64map_release(&file);
    return rc;
}

static int on_group(void *ud, uint32_t stream, uint32_t group, const char *name,
                    OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)kv;
    return fail(d, vftr_source_add_group(d->s, group, name));
}

static int on_collop(void *ud, uint32_t stream, uint32_t op, const char *name, uint32_t type,
                     OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)type, (void)kv;
    return fail(d, vftr_source_add_collop(d->s, op, name));
}

static int on_counter(void *ud, uint32_t stream, uint32_t counter, const char *name,
                      uint32_t properties, uint32_t group, const char *unit, OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)group, (void)kv;
    return fail(d, vftr_source_add_counter(d->s, counter, name, unit, properties));
}

static int on_file(void *ud, uint32_t stream, uint32_t token, const char *name, uint32_t group,
                   OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)kv;
    return fail(d, vftr_source_add_file(d->s, token, group, name));
}

static int on_filegroup(void *ud, uint32_t stream, uint32_t token, const char *name,
                        OTF_KeyValueList *kv)
{
    struct defs *d = ud;

    (void)stream, (void)kv;
    return fail(d, vftr_source_add_filegroup(d->s, token, name));
}

static int on_samplepoint(void *ud, uint32_t stream, uint64_t time, OTF_AuxSamplePointType type,
                          OTF_KeyValueList *kv)
{
    struct defs *d = ud;
    struct otf_impl *o = d->o;
    int k = type == OTF_AUX_SAMPLE_POINT_SUMMARY ? 0 : type == OTF_AUX_SAMPLE_POINT_SNAPSHOT ? 1 : -1;

    (void)stream, (void)kv;
    if (k < 0)
        return OTF_RETURN_OK;
    if (vftr_reserve((void **)&o->aux[k], &o->capaux[k], o->naux[k], sizeof *o->aux[k]) < 0)
        return fail(d, -ENOMEM);
    o->aux[k][o->naux[k]++] = time;
    return OTF_RETURN_OK;
}

static int read_defs(struct vftr_source *s, struct otf_impl *o, char *err, size_t errlen)
{
    struct defs d = { .s = s, .o = o };
    char msg[VFTR_ERRMSG_MAX], why[VFTR_ERRMSG_MAX];
    OTF_Reader *r = vftr_trace_open(o->stub, o->manager, msg, sizeof msg);
    OTF_HandlerArray *h = OTF_HandlerArray_open();
    const struct { OTF_FunctionPointer *fn; uint32_t record; } table[] = {
        { HANDLER(on_timer), OTF_DEFTIMERRESOLUTION_RECORD },
        { HANDLER(on_key), OTF_DEFKEYVALUE_RECORD },
        { HANDLER(on_process), OTF_DEFPROCESS_RECORD },
        { HANDLER(on_function), OTF_DEFFUNCTION_RECORD },
        { HANDLER(on_group), OTF_DEFFUNCTIONGROUP_RECORD },
        { HANDLER(on_collop), OTF_DEFCOLLOP_RECORD },
        { HANDLER(on_counter), OTF_DEFCOUNTER_RECORD },
        { HANDLER(on_samplepoint), OTF_DEFAUXSAMPLEPOINT_RECORD },
        { HANDLER(on_scl), OTF_DEFSCL_RECORD },
        { HANDLER(on_sclfile), OTF_DEFSCLFILE_RECORD },
        { HANDLER(on_pgroup), OTF_DEFPROCESSGROUP_RECORD },
        { HANDLER(on_file), OTF_DEFFILE_RECORD },
        { HANDLER(on_filegroup), OTF_DEFFILEGROUP_RECORD },
    };
    int rc = 0;

    if (!r || !h) {
        rc = r ? vftr_errmsg(err, errlen, -ENOMEM, "out of memory")
               : vftr_errmsg(err, errlen, -EIO, "%s.otf: %s", o->stub, msg);
        goto out;
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        OTF_HandlerArray_setHandler(h, table[i].fn, table[i].record);
        OTF_HandlerArray_setFirstHandlerArg(h, &d, table[i].record);
    }
    if (OTF_Reader_readDefinitions(r, h) == OTF_READ_ERROR) {
        rc = o->error ? vftr_errmsg(err, errlen, o->error, "out of memory")
                      : vftr_errmsg(err, errlen, -EIO, "%s.otf: cannot read the definitions "
                                    "(%s)", o->stub, vftr_trace_otf_reason(why, sizeof why));
        goto out;
    }
    if (d.resolution && d.interval_ns)
        s->info.sample_interval = (double)d.interval_ns * 1e-9;
    if (resolve_scls(&d) < 0)
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
out:
    free(d.fscl);
    free(d.scl);
    for (size_t i = 0; i < d.nfiles; i++)
        free((char *)d.files[i].name);
    free(d.files);
    if (h)
        OTF_HandlerArray_close(h);
    if (r)
        OTF_Reader_close(r);
    return rc;
}

/* ------------------------------------------------------------ reading */

static struct otf_impl *impl(const struct vftr_source *s)
{
    return s->impl;
}

static void otf_free(struct vftr_source *s)
{
    struct otf_impl *o = impl(s);

    if (!o)
        return;
    vftr_window_free(o->win);
    if (o->manager)
        OTF_FileManager_close(o->manager);
    free(o->aux[0]);
    free(o->aux[1]);
    free(o->stub);
    free(o);
    s->impl = NULL;
}

/* Enables the processes of procs (all of them for NULL) in the window's
 * reader.  0, or -errno with err ("none of the processes ..."). */
static int select_procs(struct otf_impl *o, const struct vftr_proclist *procs, char *err,
                        size_t errlen)
{
    OTF_Reader *r = vftr_window_reader(o->win);
    long n;

    if (!procs)
        return OTF_Reader_setProcessStatusAll(r, 1) ? 0
               : vftr_errmsg(err, errlen, -EIO, "cannot select processes");
    n = vftr_trace_select_processes(r, procs, err, errlen);
    return n < 0 ? (int)n : n == 0 ? -ENOENT : 0;
}

static int otf_read(struct vftr_source *s, uint64_t a, uint64_t b,
                    const struct vftr_proclist *procs, unsigned flags,
                    const struct vftr_window_handler *h, struct vftr_window_stats *st, char *err,
                    size_t errlen)
{
    struct otf_impl *o = impl(s);
    int rc = select_procs(o, procs, err, errlen);

    if (rc < 0)
        return rc;
    if (flags & VFTR_SOURCE_EVENTS_ONLY)
        return vftr_window_events(o->win, a, b, h, st, err, errlen);
    return vftr_window_read(o->win, a, b, h, st, err, errlen);
}

/* ------------------------------------------------------------ profiles */

struct piece_state {
    struct vftr_replay *replay;
    const struct vftr_profq *q;
};

static uint32_t qtoken(const struct vftr_profq *q, uint32_t function)
{
    return q->token ? q->token(q->arg, function) : function;
}

static int piece_open(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                      uint32_t depth)
{
    struct piece_state *ps = arg;

    (void)depth;
    return vftr_replay_open_call(ps->replay, process, qtoken(ps->q, function), enter);
}

static int piece_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct piece_state *ps = arg;

    return vftr_replay_enter(ps->replay, process, qtoken(ps->q, function), time);
}

static int piece_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct piece_state *ps = arg;

    return vftr_replay_leave(ps->replay, process, qtoken(ps->q, function), time);
}

/* The replay of one piece [start, end), seeded at start, added with sign. */
static int run_piece(struct otf_impl *o, const struct vftr_winpiece *pc,
                     const struct vftr_profq *q, struct vftr_profq_result *res, char *err,
                     size_t errlen)
{
    struct piece_state ps = { vftr_replay_new(pc->start, pc->end), q };
    struct vftr_window_handler h = { .arg = &ps, .open_frame = piece_open,
                                     .enter = piece_enter, .leave = piece_leave };
    struct vftr_window_stats st = { 0 };
    const struct vftr_funcstat *fs;
    size_t n;
    int rc;

    if (!ps.replay)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    rc = vftr_replay_set_flags(ps.replay, VFTR_REPLAY_INCL_PER_CALL | VFTR_REPLAY_NO_PATHS);
    if (rc == 0)
        rc = vftr_window_read(o->win, pc->start, pc->end, &h, &st, err, errlen);
    if (rc > 0 || (rc < 0 && err && !err[0]))
        rc = vftr_errmsg(err, errlen, rc > 0 ? -EIO : rc, "%s", strerror(rc > 0 ? EIO : -rc));
    res->bytes += st.bytes_read;
    res->replayed += st.replayed;
    res->delivered += st.delivered;
    if (rc == 0)
        rc = vftr_replay_finish(ps.replay);
    if (rc == 0) {
        fs = vftr_replay_funcstats(ps.replay, &n);
        rc = vftr_fsacc_add_stats(res->acc, fs, n, pc->sign, q->process, q->arg);
        if (rc < 0)
            vftr_errmsg(err, errlen, rc, "out of memory");
    }
    vftr_replay_free(ps.replay);
    return rc;
}

struct sum_state {
    const struct vftr_profq *q;
    struct vftr_fsacc *acc;
    int sign;
};

static int on_summary(void *arg, uint64_t time, uint32_t process, uint32_t function,
                      uint64_t calls, uint64_t excl, uint64_t incl)
{
    struct sum_state *ss = arg;
    const struct vftr_profq *q = ss->q;

    (void)time;
    if (q->procs && !vftr_proclist_contains(q->procs, process))
        return 0;
    return vftr_fsacc_add(ss->acc, q->process ? q->process(q->arg, process) : process,
                          qtoken(q, function), ss->sign, calls, excl, incl);
}

/*
 * p([a, b)) from summaries and snapshots (summary.h).  0, 1 when they do
 * not help (no plan but the window's events), -errno.
 */
static int profile_from_summaries(struct vftr_source *s, const struct vftr_profq *q,
                                  struct vftr_profq_result *res, char *err, size_t errlen)
{
    struct otf_impl *o = impl(s);
    struct vftr_auxpoints aux = { o->aux[0], o->naux[0], o->aux[1], o->naux[1], s->info.first,
                                  s->info.last };
    struct vftr_winplan plan;
    int rc = vftr_winplan_make(&aux, q->a, q->b, &plan);

    if (rc < 0)
        return vftr_errmsg(err, errlen, rc, "empty time window");
    if (plan.exact_events || plan.nsums == 0)
        return 1;                       /* snapshots alone: the window read does it */
    rc = select_procs(o, q->procs, err, errlen);
    if (rc < 0)
        return rc;
    for (int i = 0; i < plan.nsums; i++) {
        struct sum_state ss = { q, res->acc, i == 0 ? +1 : -1 };
        struct vftr_window_handler h = { .arg = &ss, .function_summary = on_summary };
        struct vftr_window_stats st = { 0 };
        uint64_t t = plan.sum_at[i], found = 0;

        if (t <= s->info.first)
            continue;                   /* nothing before: zero */
        rc = vftr_window_summary(o->win, t, &h, &found, &st, err, errlen);
        res->bytes += st.bytes_read;
        if (rc == 0 && found != t)
            rc = vftr_errmsg(err, errlen, -EIO, "no summary records at time %llu "
                             "(DefAuxSamplePoint lists one)", (unsigned long long)t);
        if (rc > 0)
            rc = vftr_errmsg(err, errlen, rc == -ENOMEM ? -ENOMEM : -EIO, "reading summaries");
        if (rc != 0)
            return rc;
        res->nsums++;
    }
    /* both edges replayed from one snapshot: one read of [a, b) gives their
     * difference directly */
    if (plan.npieces == 2 && plan.piece[0].start == plan.piece[1].start) {
        plan.piece[0].start = q->a;
        plan.npieces = 1;
    }
    for (int i = 0; i < plan.npieces; i++) {
        rc = run_piece(o, &plan.piece[i], q, res, err, errlen);
        if (rc != 0)
            return rc;
        res->npieces++;
    }
    res->method = "summaries";
    return 0;
}

static int wanted(void *arg, uint32_t process)
{
    const struct vftr_profq *q = arg;

    return vftr_proclist_contains(q->procs, process);
}

static uint32_t token_cb(void *arg, uint32_t function)
{
    const struct vftr_profq *q = arg;

    return q->token(q->arg, function);
}

/* The replay of the events from the trace start to b, streams shared out
 * over threads. */
static int profile_replay(struct vftr_source *s, const struct vftr_profq *q,
                          struct vftr_profq_result *res, char *err, size_t errlen)
{
    struct otf_impl *o = impl(s);
    struct vftr_otfreplay_opts ro = {
        o->stub, vftr_source_jobs(s), q->a, q->b, vftr_profq_replay_flags(q),
        q->procs ? wanted : NULL, q->token ? token_cb : NULL, (void *)q, s->progress,
    };
    struct vftr_otfreplay_stats st = { 0 };
    struct vftr_replay *r;
    const struct vftr_funcstat *fs;
    size_t n;
    int rc = vftr_otfreplay_run(&ro, &r, &st, err, errlen);

    if (rc < 0) {
        char why[VFTR_ERRMSG_MAX];

        snprintf(why, sizeof why, "%s", err ? err : "");
        return vftr_errmsg(err, errlen, rc, "%s.otf: %s", o->stub, why);
    }
    res->bytes += st.bytes_read;
    res->jobs = st.jobs;
    res->streams = st.streams;
    res->method = "events";
    fs = vftr_replay_funcstats(r, &n);
    res->delivered += vftr_replay_counts(r)->enters + vftr_replay_counts(r)->leaves;
    rc = vftr_fsacc_add_stats(res->acc, fs, n, +1, q->process, q->arg);
    if (rc == 0 && (q->flags & VFTR_PROFQ_PATHS)) {
        res->paths = r;
        r = NULL;
    }
    vftr_replay_free(r);
    return rc < 0 ? vftr_errmsg(err, errlen, rc, "out of memory") : 0;
}

static int otf_profile(struct vftr_source *s, const struct vftr_profq *q,
                       struct vftr_profq_result *res, char *err, size_t errlen)
{
    struct otf_impl *o = impl(s);
    int window = q->a > s->info.first || (q->b != UINT64_MAX && q->b <= s->info.last);

    /* summaries help whole traces too: the one after the last event */
    if (o->naux[0] && !(q->flags & (VFTR_PROFQ_PATHS | VFTR_PROFQ_INCL_ONCE))) {
        int rc = profile_from_summaries(s, q, res, err, errlen);

        if (rc != 1)
            return rc;
    }
    if (window && o->naux[1])
        return 1;                       /* from the nearest snapshot: the window read */
    return profile_replay(s, q, res, err, errlen);
}

static struct vftr_window *otf_window(struct vftr_source *s)
{
    return impl(s)->win;
}

static const struct vftr_source_ops otf_ops = { otf_free, otf_read, otf_profile, otf_window };

int vftr_source_open_otf(struct vftr_source *s, const char *operand, char *err, size_t errlen)
{
    struct otf_impl *o = calloc(1, sizeof *o);
    const struct vftr_window_info *wi;
    char why[VFTR_ERRMSG_MAX], msg[VFTR_ERRMSG_MAX];
    int rc;

    if (!o)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    s->impl = o;
    s->ops = &otf_ops;
    s->info.kind = VFTR_SOURCE_OTF;
    o->stub = vftr_trace_namestub(operand);
    if (!o->stub)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    o->manager = OTF_FileManager_open(MAX_OPEN_FILES);
    if (!o->manager)
        return vftr_errmsg(err, errlen, -EIO, "cannot create an OTF file manager (%s)",
                           vftr_trace_otf_reason(why, sizeof why));
    o->win = vftr_window_open(o->stub, o->manager, msg, sizeof msg);
    if (!o->win) {
        rc = errno == ENOENT ? -ENOENT : errno == ENOMEM ? -ENOMEM : -EIO;
        return vftr_errmsg(err, errlen, rc, "%s.otf: %s", o->stub, msg);
    }
    rc = read_defs(s, o, err, errlen);
    if (rc < 0)
        return rc;
    vftr_window_set_ranks(o->win, vftr_source_peer_ranks(s), s);
    wi = vftr_window_info(o->win);
    s->info.resolution = wi->resolution;
    s->info.first = wi->first;
    s->info.last = wi->last;
    s->info.have_events = wi->have_events;
    s->info.nsummaries = o->naux[0];
    s->info.nsnapshots = o->naux[1];
    s->info.nfiles = 1;
    return 0;
}
