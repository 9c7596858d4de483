/*
 * filter.c — what capture leaves out: the Score-P filter file
 * (filter.file) and TAU's throttling (throttle.*).
 *
 * Filters decide once per function address, when its record is made
 * (hooks.c: classify); the hooks find an excluded function in the thread's
 * skip cache (callpath.c: skip_remember) and return before anything else.
 * The file rules need the function's source file, which the debug
 * information gives (libdw, names.h): read then, once per address, never
 * on the hooks' path.
 *
 * Throttling decides per call path, out of line: each time a thread's
 * buffer is flushed its call paths are looked at, and one with more than
 * throttle.calls calls whose mean inclusive time per call is below
 * throttle.per_call becomes "pending": its ENTER tag is cleared, so that
 * the hooks' fast path hands its next event to the general recorder
 * (vftr_record), which settles it there.  A node is active at most once
 * at a time in its thread, so the next event decides cleanly: an ENTER
 * (the node is not on the stack) throttles it at once and is dropped; an
 * EXIT (its ENTER is in the trace) is written, then the node is
 * throttled.  Either way the trace stays balanced, and a THROTTLE event
 * naming the call path marks the moment.  Calls go on being counted: the
 * profile never notices.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "names.h"
#include "util/scorepfilter.h"

static struct vftr_scorep_filter *scorep;
static bool file_rules;   /* scorep has SCOREP_FILE_NAMES rules */
static bool say_file;     /* a missing libdw is still to be said (rank 0) */
static uint64_t throttle_calls;
static double throttle_per_call;
static bool throttle_on;
static _Atomic uint32_t throttled_count;
/* vftr-ctl unthrottles so far: each thread applies them at its next event
 * of a throttled node (vftr_thread.thr_gen says how many it has) */
_Atomic uint64_t vftr_unthrottle_gen;

VFTR_NI int vftr_filter_setup(const struct vftr_config *cfg, bool say)
{
    char err[512];

    throttle_on = cfg->throttle_active;
    throttle_calls = cfg->throttle_calls;
    throttle_per_call = cfg->throttle_per_call;
    if (cfg->filter_file == NULL)
        return 0;
    scorep = vftr_scorep_filter_load(cfg->filter_file, err, sizeof err);
    if (scorep == NULL) {
        /* the configuration checked the file; it changed since */
        if (say)
            vftr_msg("error: filter.file: %s; no filter file applied", err);
        return -errno;
    }
    file_rules = vftr_scorep_filter_file_rules(scorep) > 0;
    say_file = say;
    return 0;
}

/*
 * Score-P's rule: a region is out when its name is or its source file is
 * (SCOREP_Filter_Match: the file rules or the region rules).  The region
 * rules are asked first, since they need no debug information; the file
 * is looked up only when they keep the function, through libdw
 * (names.h), once per function address: the caller caches the decision
 * (callpath.c: the function record and the skip cache).  A function whose
 * file is unknown (no -g, stripped, no libdw) is left to the region rules,
 * as Score-P leaves a region without a file name.
 */
VFTR_NI bool vftr_filter_excludes(const char *name, const char *mangled, uintptr_t addr)
{
    const char *file;
    int why = 0;

    if (scorep == NULL)
        return false;
    if (vftr_scorep_filter_excludes(scorep, name, mangled, NULL))
        return true;
    if (!file_rules || addr == 0)
        return false;
    file = vftr_names_source_file(addr, &why);
    if (file == NULL && why == -ENOTSUP && say_file) {
        say_file = false;
        vftr_msg("warning: %s: SCOREP_FILE_NAMES rules are not applied (this library was built "
                 "without libdw, which reads the source files of functions); the region rules "
                 "are", vftr_proc.cfg.filter_file);
    }
    return file != NULL && vftr_scorep_filter_excludes(scorep, name, mangled, file);
}

/* Whether node n may be throttled at all: a function of the program's (not
 * an MPI function, a vftr.h region, an OpenMP region or capture's own) on
 * the trace. */
static VFTR_NI bool throttleable(const struct vftr_node *n)
{
    return n->parent != NULL && n->id != 0 && n->fn != NULL
           && !(n->fn->flags & (VFTR_FN_REGION | VFTR_FN_MPI | VFTR_FN_OMP | VFTR_FN_PRECISE))
           && !(n->flags & (VFTR_FN_THROTTLED | VFTR_FN_THROTTLE_PENDING | VFTR_FN_EXCLUDED));
}

/*
 * Near the size cap (VFTR_NEAR_CAP of it) the trace keeps only what must
 * stay, MPI, OpenMP and vftr.h region events (what vftr-score -g never
 * filters), so that what the run does last is in the trace in outline
 * rather than cut off: every call path that may be throttled is, from the
 * first flush past the mark on.  Rank 0 says so once.
 */
#define VFTR_NEAR_CAP 0.9
static _Atomic int near_cap_said;

static VFTR_NI bool near_cap(void)
{
    uint64_t cap = atomic_load_explicit(&vftr_proc.cap_bytes, memory_order_relaxed);

    if (cap == 0 || (double)vftr_trace_bytes() < VFTR_NEAR_CAP * (double)cap)
        return false;
    if (!atomic_exchange(&near_cap_said, 1) && vftr_proc.is_rank0)
        vftr_msg("trace %s is near its size cap (%s = %" PRIu64 " bytes): from here on only MPI, "
                 "OpenMP and vftr.h region events are traced; the profile goes on",
                 vftr_trace_path(), cap == vftr_proc.set.max_bytes
                                    ? "trace.max_size" : "this rank's share of trace.max_job_size",
                 cap);
    return true;
}

VFTR_NI void vftr_throttle_scan(struct vftr_thread *t)
{
    uint32_t n;
    double tps, limit;
    struct vftr_node_walk w;
    bool near;

    if (!t->trace)
        return;
    near = near_cap();
    if (!throttle_on && !near)
        return;
    n = atomic_load_explicit(&t->nnodes, memory_order_relaxed);
    tps = vftr_clock_ticks_per_second(0);
    if (n == 0 || !(tps > 0))
        return;
    limit = throttle_per_call * tps;
    w = vftr_node_walk_first(t, n);
    for (uint32_t i = 0; i < n; i++) {
        struct vftr_node *nd = vftr_node_walk_next(&w);

        uint64_t calls = nd->calls - nd->thr_calls;

        if (!throttleable(nd) || (!near && (!throttle_on || calls <= throttle_calls)))
            continue;
        if (near || (double)(nd->time_incl - nd->thr_time) < limit * (double)calls) {
            nd->flags |= VFTR_FN_THROTTLE_PENDING;
            nd->enc = 0;   /* the fast path leaves its events to vftr_record */
        }
    }
}

/* The THROTTLE event of node n: its call path id as a varint. */
static VFTR_NI void mark(struct vftr_thread *t, struct vftr_node *n, uint64_t now)
{
    uint8_t payload[8];
    uint32_t len = 0, id = n->id;

    n->flags = (n->flags & ~(uint32_t)VFTR_FN_THROTTLE_PENDING) | VFTR_FN_THROTTLED;
    n->enc = VFTR_ENC_THROTTLED;   /* the hooks drop its events from now on */
    do {
        payload[len++] = (uint8_t)((id & 0x7f) | (id > 0x7f ? 0x80 : 0));
        id >>= 7;
    } while (id);
    (void)vftr_trace_put_ext(t, now, VFTR_VFD_THROTTLE, payload, len);
    atomic_fetch_add_explicit(&throttled_count, 1, memory_order_relaxed);
    /* a program traced through its sleds: the function's calls go to a
     * counting stub, no hook (sled.c); one built with
     * -finstrument-functions: its hook call sites are redirected to such a
     * stub as they come (patch.c) */
    if (n->fn != NULL && !vftr_sled_throttled(n->fn->addr))
        vftr_patch_throttle(n->fn->addr);
}

/* Node n traced again, its throttling counts starting over now. */
static VFTR_NI void release(struct vftr_node *n)
{
    if (n->flags & VFTR_FN_THROTTLED)
        atomic_fetch_sub_explicit(&throttled_count, 1, memory_order_relaxed);
    n->flags &= ~(uint32_t)(VFTR_FN_THROTTLED | VFTR_FN_THROTTLE_PENDING
                            | VFTR_FN_UNTHROTTLE_AT_EXIT);
    n->enc = vftr_node_enc(n->id);
    n->thr_calls = n->calls;
    n->thr_time = n->time_incl;
}

/* Applies an unthrottle to thread t (its own guard held): its throttled
 * nodes are released, except those on its stack, whose ENTER is not in
 * the trace: they are released at their exit. */
static VFTR_NI void apply_unthrottle(struct vftr_thread *t)
{
    uint32_t nn = atomic_load_explicit(&t->nnodes, memory_order_relaxed);
    struct vftr_node_walk w = vftr_node_walk_first(t, nn);

    for (struct vftr_node *o = t->cur; o && o->parent; o = o->parent)
        if (o->flags & VFTR_FN_THROTTLED) {
            o->flags |= VFTR_FN_UNTHROTTLE_AT_EXIT;
            o->enc = 0;   /* its exit comes to vftr_throttle_event */
        }
    for (uint32_t i = 0; i < nn; i++) {
        struct vftr_node *nd = vftr_node_walk_next(&w);

        if ((nd->flags & (VFTR_FN_THROTTLED | VFTR_FN_THROTTLE_PENDING))
            && !(nd->flags & VFTR_FN_UNTHROTTLE_AT_EXIT))
            release(nd);
    }
}

VFTR_NI uint32_t vftr_throttle_release_all(void)
{
    atomic_fetch_add_explicit(&vftr_unthrottle_gen, 1, memory_order_release);
    (void)vftr_sled_unthrottle_all();   /* the stubs' functions come to the hooks again */
    (void)vftr_patch_unthrottle_all();  /* and their hook call sites call the hooks again */
    return atomic_load_explicit(&throttled_count, memory_order_relaxed);
}

VFTR_NI bool vftr_throttle_event(struct vftr_thread *t, struct vftr_node *n, uint64_t now,
                                 uint32_t kind)
{
    uint64_t gen = atomic_load_explicit(&vftr_unthrottle_gen, memory_order_acquire);

    if (VFTR_UNLIKELY(gen != t->thr_gen)) {
        t->thr_gen = gen;
        apply_unthrottle(t);
        if (!(n->flags & (VFTR_FN_THROTTLED | VFTR_FN_THROTTLE_PENDING)))
            return true;   /* released: this event is recorded */
    }
    if (n->flags & VFTR_FN_UNTHROTTLE_AT_EXIT) {
        if (kind == VFTR_VFD_EXIT)
            release(n);   /* its ENTER was not written: nor is its EXIT */
        return false;
    }
    if (n->flags & VFTR_FN_THROTTLED)
        return false;
    /* pending: settled by this event */
    if (kind == VFTR_VFD_EXIT)
        vftr_trace_put(t, now, kind, n->id);
    mark(t, n, now);
    return false;
}

VFTR_NI uint32_t vftr_throttled_count(void)
{
    return atomic_load_explicit(&throttled_count, memory_order_relaxed);
}

VFTR_NI void vftr_throttle_describe(char *buf, size_t len)
{
    size_t k;
    int ids = 0;

    k = (size_t)snprintf(buf, len, "%" PRIu32 " call path%s, no longer traced after "
                         "throttle.calls = %" PRIu64 " calls of less than throttle.per_call = "
                         "%g s each (STID", vftr_throttled_count(),
                         vftr_throttled_count() == 1 ? "" : "s", throttle_calls, throttle_per_call);
    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t && k < len; t = t->next) {
        uint32_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        struct vftr_node_walk w = vftr_node_walk_first(t, n);

        for (uint32_t i = 0; i < n && k < len; i++) {
            const struct vftr_node *nd = vftr_node_walk_next(&w);

            if (nd->flags & VFTR_FN_THROTTLED) {
                if (ids++ == 8) {
                    k += (size_t)snprintf(buf + k, len - k, " ...");
                    t = NULL;
                    break;
                }
                k += (size_t)snprintf(buf + k, len - k, "%s %" PRIu32, ids > 1 ? "," : "", nd->id);
            }
        }
        if (t == NULL)
            break;
    }
    if (k < len)
        snprintf(buf + k, len - k, ")%s", atomic_load(&near_cap_said)
                 ? "; near the size cap also every other function of the program's" : "");
}

/* ------------------------------------------------- filter.min_duration */

VFTR_NI void vftr_mindur_record(struct vftr_thread *t, struct vftr_node *n, uint64_t now,
                                uint32_t kind)
{
    if (kind == VFTR_VFD_ENTER) {
        n->md_gen = (uint32_t)(t->flush_gen + 1);
        n->md_ph = (uint32_t)t->ph_seen;
        n->md_pos = (uint32_t)vftr_trace_used(t);
        n->md_count = t->count;
        n->md_time = t->last_time;
        vftr_trace_put(t, now, kind, n->id);
        if (n->md_gen != (uint32_t)(t->flush_gen + 1)) {
            /* the buffer was flushed before the ENTER went in: it is the
             * new buffer's first event */
            n->md_gen = (uint32_t)(t->flush_gen + 1);
            n->md_pos = 0;
            n->md_count = 0;
        }
        return;
    }
    if (kind == VFTR_VFD_EXIT) {
        /* the ENTER of this very activation, in this buffer, with no
         * switch (pause, stop) applied since: every event after it is of
         * calls it made */
        bool back = n->md_gen == (uint32_t)(t->flush_gen + 1) && n->md_ph == (uint32_t)t->ph_seen
                    && now - n->t_enter < t->min_ticks && vftr_trace_used(t) >= n->md_pos;

        n->md_gen = 0;
        if (back) {
            t->count = n->md_count;
            t->last_time = n->md_time;
            atomic_store_explicit(&t->pos, t->buf + VFTR_VFD_CHUNK_HEADER_SIZE + n->md_pos,
                                  memory_order_release);
            return;
        }
    }
    vftr_trace_put(t, now, kind, n->id);
}
