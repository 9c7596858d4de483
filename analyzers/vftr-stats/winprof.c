/*
 * winprof.c — vftr-stats's window profile from summary and snapshot
 * records: lib/model/summary.h plans which summaries to take and which
 * stretches of events to replay, lib/model/window.h reads them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/replay.h"
#include "model/window.h"
#include "util/errmsg.h"
#include "stats.h"

struct piece_state {
    struct vftr_replay *replay;
    const struct stats_map *map;
};

static int on_open_frame(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                         uint32_t depth)
{
    struct piece_state *ps = arg;

    (void)depth;
    return vftr_replay_open_call(ps->replay, process, ps->map->token(ps->map->arg, function),
                                 enter);
}

static int on_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct piece_state *ps = arg;

    return vftr_replay_enter(ps->replay, process, ps->map->token(ps->map->arg, function), time);
}

static int on_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct piece_state *ps = arg;

    return vftr_replay_leave(ps->replay, process, ps->map->token(ps->map->arg, function), time);
}

struct sum_state {
    struct vftr_fsacc *acc;
    const struct stats_map *map;
    int sign;
    uint64_t records;
};

static int on_summary(void *arg, uint64_t time, uint32_t process, uint32_t function,
                      uint64_t calls, uint64_t excl, uint64_t incl)
{
    struct sum_state *ss = arg;
    const struct stats_map *m = ss->map;
    uint32_t p = m->process ? m->process(m->arg, process) : process;

    (void)time;
    ss->records++;
    return vftr_fsacc_add(ss->acc, p, m->token(m->arg, function), ss->sign, calls, excl, incl);
}

/* The replay of one piece [start, end) added to acc with sign. */
static int run_piece(struct vftr_window *w, const struct vftr_winpiece *pc, unsigned flags,
                     const struct stats_map *map, struct vftr_fsacc *acc,
                     struct winprof_out *out, char *err, size_t errlen)
{
    struct piece_state ps = { vftr_replay_new(pc->start, pc->end), map };
    struct vftr_window_handler h = { .arg = &ps, .open_frame = on_open_frame,
                                     .enter = on_enter, .leave = on_leave };
    struct vftr_window_stats st;
    const struct vftr_funcstat *fs;
    size_t n;
    int rc;

    if (!ps.replay)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    rc = vftr_replay_set_flags(ps.replay, flags);
    if (rc == 0)
        rc = vftr_window_read(w, pc->start, pc->end, &h, &st, err, errlen);
    if (rc > 0 || (rc < 0 && err && !err[0]))
        rc = vftr_errmsg(err, errlen, rc > 0 ? -EIO : rc, "%s", strerror(rc > 0 ? EIO : -rc));
    out->bytes += st.bytes_read;
    out->replayed += st.replayed;
    out->delivered += st.delivered;
    if (rc == 0)
        rc = vftr_replay_finish(ps.replay);
    if (rc == 0) {
        fs = vftr_replay_funcstats(ps.replay, &n);
        rc = vftr_fsacc_add_stats(acc, fs, n, pc->sign, map->process, map->arg);
        if (rc < 0)
            vftr_errmsg(err, errlen, rc, "out of memory");
    }
    vftr_replay_free(ps.replay);
    return rc;
}

int stats_window_paths(const struct winprof_in *in, struct vftr_replay **replay,
                       struct winprof_out *out, char *err, size_t errlen)
{
    struct piece_state ps = { NULL, &in->map };
    struct vftr_window_handler h = { .arg = &ps, .open_frame = on_open_frame,
                                     .enter = on_enter, .leave = on_leave };
    struct vftr_window_stats st = { 0 };
    struct vftr_window *w;
    int rc;

    *out = (struct winprof_out){ 0 };
    *replay = NULL;
    if (in->nsnaps == 0)
        return 1;
    w = vftr_window_open(in->stub, in->manager, err, errlen);
    if (!w)
        return -errno;
    out->first = vftr_window_info(w)->first;
    out->last = vftr_window_info(w)->last;
    if (in->sel->have_procs &&
        vftr_trace_select_processes(vftr_window_reader(w), &in->sel->procs, err, errlen) <= 0) {
        rc = -EIO;
        goto out;
    }
    ps.replay = vftr_replay_new(in->a, in->b);
    if (!ps.replay) {
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto out;
    }
    rc = vftr_window_read(w, in->a, in->b, &h, &st, err, errlen);
    if (rc > 0 || (rc < 0 && err && !err[0]))
        rc = vftr_errmsg(err, errlen, rc > 0 ? -EIO : rc, "%s", strerror(rc > 0 ? EIO : -rc));
    out->bytes = st.bytes_read;
    out->replayed = st.replayed;
    out->delivered = st.delivered;
    out->plan.npieces = 1;
    if (rc == 0)
        rc = vftr_replay_finish(ps.replay);
    if (rc == 0) {
        *replay = ps.replay;
        ps.replay = NULL;
    }
out:
    vftr_replay_free(ps.replay);
    vftr_window_free(w);
    return rc;
}

int stats_window_profile(const struct winprof_in *in, struct vftr_fsacc *acc,
                         struct winprof_out *out, char *err, size_t errlen)
{
    struct vftr_window *w;
    const struct vftr_window_info *info;
    struct vftr_auxpoints aux;
    struct vftr_winplan *plan = &out->plan;
    int rc;

    *out = (struct winprof_out){ 0 };
    if (in->nsums == 0 && in->nsnaps == 0)
        return 1;
    w = vftr_window_open(in->stub, in->manager, err, errlen);
    if (!w)
        return -errno;
    info = vftr_window_info(w);
    out->first = info->first;
    out->last = info->last;
    aux = (struct vftr_auxpoints){ in->sums, in->nsums, in->snaps, in->nsnaps, info->first,
                                   info->last };
    rc = vftr_winplan_make(&aux, in->a, in->b, plan);
    if (rc < 0) {
        rc = vftr_errmsg(err, errlen, rc, "empty time window");
        goto out;
    }
    if (plan->exact_events) {
        rc = 1;
        goto out;
    }
    if (in->sel->have_procs &&
        vftr_trace_select_processes(vftr_window_reader(w), &in->sel->procs, err, errlen) <= 0) {
        rc = -EIO;
        goto out;
    }

    for (int i = 0; i < plan->nsums; i++) {
        struct sum_state ss = { acc, &in->map, i == 0 ? +1 : -1, 0 };
        struct vftr_window_handler h = { .arg = &ss, .function_summary = on_summary };
        struct vftr_window_stats st;
        uint64_t t = plan->sum_at[i], found = 0;

        if (t <= info->first)
            continue;                          /* nothing before: zero */
        rc = vftr_window_summary(w, t, &h, &found, &st, err, errlen);
        out->bytes += st.bytes_read;
        if (rc == 0 && found != t)
            rc = vftr_errmsg(err, errlen, -EIO, "no summary records at time %llu "
                             "(DefAuxSamplePoint lists one)", (unsigned long long)t);
        if (rc != 0)
            goto out;
    }
    /* Both edges replayed from the same point: one read of [a, b) from
     * that snapshot gives their difference directly. */
    if (plan->npieces == 2 && plan->piece[0].start == plan->piece[1].start) {
        plan->piece[0].start = in->a;
        plan->npieces = 1;
    }
    for (int i = 0; i < plan->npieces; i++) {
        rc = run_piece(w, &plan->piece[i], plan->nsums ? VFTR_REPLAY_INCL_PER_CALL : 0,
                       &in->map, acc, out, err, errlen);
        if (rc != 0)
            goto out;
    }
    vftr_fsacc_result(acc, &(size_t){ 0 }, &out->negative);
out:
    vftr_window_free(w);
    return rc;
}

/* ------------------------------------------------------------ messages */

struct msgsum_state {
    struct vftr_cntacc *p2p, *coll;
    const struct stats_map *map;
    int sign;
    int error;
    uint64_t records;
};

static uint32_t mapped(const struct stats_map *m, uint32_t process)
{
    return m->process ? m->process(m->arg, process) : process;
}

static int on_msgsum(void *ud, uint64_t time, uint32_t process, uint32_t peer, uint32_t comm,
                     uint32_t type, uint64_t sent, uint64_t received, uint64_t bsent,
                     uint64_t breceived, OTF_KeyValueList *kv)
{
    struct msgsum_state *ms = ud;
    const uint64_t v[VFTR_CNTACC_NVALUES] = { sent, received, bsent, breceived };

    (void)time, (void)comm, (void)type, (void)kv;
    ms->records++;
    ms->error = vftr_cntacc_add(ms->p2p, mapped(ms->map, process),
                                peer ? mapped(ms->map, peer) : 0, ms->sign, v);
    return ms->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

static int on_collsum(void *ud, uint64_t time, uint32_t process, uint32_t comm, uint32_t op,
                      uint64_t sent, uint64_t received, uint64_t bsent, uint64_t breceived,
                      OTF_KeyValueList *kv)
{
    struct msgsum_state *ms = ud;
    const uint64_t v[VFTR_CNTACC_NVALUES] = { sent, received, bsent, breceived };

    (void)time, (void)process, (void)comm, (void)kv;
    ms->records++;
    ms->error = vftr_cntacc_add(ms->coll, op, 0, ms->sign, v);
    return ms->error ? OTF_RETURN_ABORT : OTF_RETURN_OK;
}

#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

/* The message and collective summaries at exactly time t, added with sign. */
static int read_msgsums(const struct winprof_in *in, uint64_t t, struct msgsum_state *ms,
                        char *err, size_t errlen)
{
    OTF_Reader *r = vftr_trace_open(in->stub, in->manager, err, errlen);
    OTF_HandlerArray *h = OTF_HandlerArray_open();
    char why[VFTR_ERRMSG_MAX];
    int rc = 0;

    if (!r || !h) {
        rc = r ? vftr_errmsg(err, errlen, -ENOMEM, "out of memory") : -EIO;
        goto out;
    }
    if (in->sel->have_procs &&
        vftr_trace_select_processes(r, &in->sel->procs, err, errlen) <= 0) {
        rc = -EIO;
        goto out;
    }
    OTF_Reader_setTimeInterval(r, t, t + 1);
    OTF_HandlerArray_setHandler(h, HANDLER(on_msgsum), OTF_MESSAGESUMMARY_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(h, ms, OTF_MESSAGESUMMARY_RECORD);
    OTF_HandlerArray_setHandler(h, HANDLER(on_collsum), OTF_COLLOPSUMMARY_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(h, ms, OTF_COLLOPSUMMARY_RECORD);
    if (OTF_Reader_readStatistics(r, h) == OTF_READ_ERROR)
        rc = ms->error ? vftr_errmsg(err, errlen, ms->error, "out of memory")
                       : vftr_errmsg(err, errlen, -EIO, "cannot read the summaries at %llu (%s)",
                                     (unsigned long long)t, vftr_trace_otf_reason(why, sizeof why));
out:
    if (h)
        OTF_HandlerArray_close(h);
    if (r)
        OTF_Reader_close(r);
    return rc;
}

int stats_window_messages(const struct winprof_in *in, struct vftr_cntacc *p2p,
                          struct vftr_cntacc *coll, struct winmsg_out *out, char *err,
                          size_t errlen)
{
    struct vftr_window *w;
    const struct vftr_window_info *info;
    struct vftr_auxpoints aux;
    uint64_t first, bytes0 = vftr_otf_manager_bytes_read(in->manager);
    int rc;

    *out = (struct winmsg_out){ 0 };
    if (in->nsums == 0)
        return 1;
    w = vftr_window_open(in->stub, in->manager, err, errlen);
    if (!w)
        return -errno;
    info = vftr_window_info(w);
    first = info->first;
    /* Summaries only: snapshots would mean replaying message events. */
    aux = (struct vftr_auxpoints){ in->sums, in->nsums, NULL, 0, info->first, info->last };
    rc = vftr_winplan_make(&aux, in->a, in->b, &out->plan);
    vftr_window_free(w);
    if (rc < 0)
        return vftr_errmsg(err, errlen, rc, "empty time window");
    if (out->plan.exact_events || out->plan.nsums != 2 || out->plan.npieces != 0)
        return 1;
    for (int i = 0; i < 2; i++) {
        struct msgsum_state ms = { p2p, coll, &in->map, i == 0 ? +1 : -1, 0, 0 };
        uint64_t t = out->plan.sum_at[i];

        if (t <= first)
            continue;                          /* nothing before: zero */
        rc = read_msgsums(in, t, &ms, err, errlen);
        out->records += ms.records;
        if (rc < 0)
            return rc;
    }
    out->bytes = vftr_otf_manager_bytes_read(in->manager) - bytes0;
    {
        uint64_t neg = 0;

        vftr_cntacc_result(p2p, &(size_t){ 0 }, &out->negative);
        vftr_cntacc_result(coll, &(size_t){ 0 }, &neg);
        out->negative += neg;
    }
    return 0;
}
