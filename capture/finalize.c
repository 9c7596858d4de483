/*
 * finalize.c — the end of a run (atexit, once, from whichever thread calls
 * exit): stop every thread's hooks, close the frames still open, write the
 * remaining buffers and definitions, rewrite the header, rename the
 * .tmpvfd to <basename>_<rank>.vfd and write the profile log for the ranks
 * the configuration names.
 *
 * Threads still running when exit() is called are stopped at their next
 * hook (see signals.c).  Each first applies the switches it has not seen
 * (phase.c: a thread that slept through a pause gets its exits at the
 * pause); then its open frames are closed at the end time, so the trace
 * stays balanced and the profile counts the time up to the end.  A process
 * that ends paused has had its frames ended at the pause.
 * Memory is not freed: other threads may still run (their hooks return at
 * once) and the process is about to end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "sample.h"
#include "ctl.h"
#include "ext.h"
#include "io.h"
#include "logfile.h"
#include "ompt.h"
#include "outdir.h"

VFTR_NI void vftr_run_info(struct vftr_run_info *run, int rank, const char *vfd,
                          uint64_t trace_bytes, uint64_t end_ns)
{
    memset(run, 0, sizeof *run);
    run->rank = rank;
    run->size = vftr_proc.size < 1 ? 1 : vftr_proc.size;
    run->pid = vftr_proc.pid;
    run->host = vftr_proc.host;
    run->exe = vftr_proc.exe[0] ? vftr_proc.exe : NULL;
    run->vfd_path = vfd;
    run->start.tv_sec = (time_t)(vftr_proc.start_ns / 1000000000u);
    run->start.tv_nsec = (long)(vftr_proc.start_ns % 1000000000u);
    run->end.tv_sec = (time_t)(end_ns / 1000000000u);
    run->end.tv_nsec = (long)(end_ns % 1000000000u);
    memcpy(run->run_id, vftr_proc.run_id, sizeof run->run_id);
    run->trace_bytes = trace_bytes;
    run->trace_events = atomic_load(&vftr_proc.events_written);
    run->trace_cap = atomic_load(&vftr_proc.cap_bytes);
    run->trace_job_cap = vftr_proc.set.max_job_bytes;
    run->trace_capped = atomic_load(&vftr_proc.cap_hit);
    run->trace_active = vfd != NULL && !atomic_load(&vftr_proc.trace_off);
    run->clock = vftr_clock_kind == VFTR_CLK_TSC ? "tsc"
                 : vftr_clock_kind == VFTR_CLK_TEST ? "test" : "monotonic";
    run->sample_interval = vftr_proc.cfg.trace_sample_interval;
}

VFTR_NI bool vftr_hooks_seen(void)
{
    const struct vftr_fn *f;

    /* regions and MPI functions are records of names; a record of an
     * address comes only from a compiler hook */
    for (f = atomic_load_explicit(&vftr_proc.fn_all, memory_order_acquire); f; f = f->all_next)
        if (!(f->flags & VFTR_FN_REGION))
            return true;
    return false;
}

VFTR_NI void vftr_region_calls(uint64_t *mpi, uint64_t *user)
{
    const struct vftr_thread *t;

    *mpi = *user = 0;
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        uint32_t i, n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        struct vftr_node_walk w = vftr_node_walk_first(t, n);

        for (i = 0; i < n; i++) {
            const struct vftr_node *nd = vftr_node_walk_next(&w);

            if (nd->fn == NULL || (nd->flags & (VFTR_FN_EXCLUDED | VFTR_FN_OMP))
                || !(nd->fn->flags & VFTR_FN_REGION))
                continue;
            *(nd->fn->flags & VFTR_FN_MPI ? mpi : user) += nd->calls;
        }
    }
}

/* Appends text to buf (size bytes, NUL-terminated) as far as it fits. */
static VFTR_NI void append(char *buf, size_t size, const char *text)
{
    size_t len = strlen(buf);

    if (len + 1 < size)
        snprintf(buf + len, size - len, "%s", text);
}

/*
 * The one message (rank 0) of a run in which no compiler hook ran: the
 * program was not built with -finstrument-functions, so the profile has no
 * functions of its own; say so and what was recorded instead, and where.
 * log and vfd: the files written ("" when none).
 */
static VFTR_NI void say_no_hooks(const char *log, const char *vfd)
{
    uint64_t mpi, user;
    uint32_t omp = vftr_ompt_parallel_regions();
    char what[256] = "", item[64], where[2900] = "";
    int items = 0, k;

    vftr_region_calls(&mpi, &user);
    for (k = 0; k < 3; k++) {
        uint64_t n = k == 0 ? mpi : k == 1 ? omp : user;
        const char *name = k == 0 ? "MPI calls" : k == 1 ? "OpenMP parallel regions"
                                                         : "vftr.h region calls";

        if (n == 0)
            continue;
        snprintf(item, sizeof item, "%s%s (%" PRIu64 ")", items == 0 ? "" : ", ", name, n);
        append(what, sizeof what, item);
        items++;
    }
    if (log[0] || vfd[0])
        snprintf(where, sizeof where, " in %s%s%s", log, log[0] && vfd[0] ? " and " : "", vfd);
    vftr_msg("%s has no compiler hooks (build it with -finstrument-functions to profile its "
             "functions): recorded %s%s%s", program_invocation_short_name,
             items ? "only its " : "", items ? what : "only the run's summary", where);
}

VFTR_NI int vftr_log_write(struct vftr_profile *prof, double tps, uint64_t end_ticks,
                           uint64_t end_ns, const char *vfd, const char *why, char *log, size_t len)
{
    struct vftr_run_info run;
    struct vftr_mpi_row *mpi = NULL;
    int rank = vftr_proc.rank < 0 ? 0 : vftr_proc.rank, rc;
    long nmpi;

    log[0] = '\0';
    prof->run_time = (double)(end_ticks - vftr_proc.start_ticks) / tps;
    /* the MPI table: the MPI library's statistics per call path, when the
     * run used MPI (-ENOTSUP otherwise) */
    nmpi = vftr_ext_mpi_paths(&mpi);
    if (nmpi >= 0) {
        prof->mpi = mpi;
        prof->nmpi = (size_t)nmpi;
        prof->has_mpi = true;
    }
    vftr_run_info(&run, rank, vfd, vfd ? vftr_trace_bytes() : 0, end_ns);
    /* sampled functions are profiled, hooks or not (sample.h) */
    run.no_hooks = !vftr_hooks_seen() && !vftr_sample_active();
    run.ticks_per_second = tps;
    if (vftr_throttled_count() > 0) {
        static char throttled[1024];

        vftr_throttle_describe(throttled, sizeof throttled);
        run.throttled = throttled;
    }
    {
        static char patched[400];
        uint64_t n, failed;
        bool on;

        uint64_t sleds, sleds_out;
        uint32_t counting, silenced;

        uint64_t thr_sites;
        uint32_t thr_fns;

        vftr_patch_stats(&n, &failed, &on);
        vftr_patch_throttle_stats(&thr_sites, &thr_fns);
        if (vftr_sled_refused()) {
            run.patched = "none: the system does not let code be made writable "
                          "(instrument.patchable)";
        } else if (vftr_sled_stats(&sleds, &sleds_out, &counting, &silenced) || sleds > 0) {
            int k = snprintf(patched, sizeof patched, "%" PRIu64 " function entr%s "
                             "(instrument.patchable), %" PRIu64 " of excluded functions left as "
                             "nops, %" PRIu32 " counted by stubs (throttled)", sleds,
                             sleds == 1 ? "y" : "ies", sleds_out, counting);

            if (silenced > 0 && k > 0 && (size_t)k < sizeof patched)
                snprintf(patched + k, sizeof patched - (size_t)k, ", %" PRIu32 " made nops "
                         "when throttled, their calls counted until then (throttle.count = "
                         "false)", silenced);
            run.patched = patched;
        } else if (n > 0 || on || thr_sites > 0) {
            int k = snprintf(patched, sizeof patched, "%" PRIu64 " hook call site%s of "
                             "excluded functions", n, n == 1 ? "" : "s");

            /* throttled functions (patch.c): redirected to counting stubs,
             * or jumped over (throttle.count = false) */
            if (thr_sites > 0 && k > 0 && (size_t)k < sizeof patched)
                k += snprintf(patched + k, sizeof patched - (size_t)k, ", %" PRIu64 " of "
                              "throttled functions (%" PRIu32 " function%s %s now)", thr_sites,
                              thr_fns, thr_fns == 1 ? "" : "s",
                              vftr_proc.cfg.throttle_count ? "counted by stubs"
                                                           : "no longer counted");
            if (k > 0 && (size_t)k < sizeof patched)
                snprintf(patched + k, sizeof patched - (size_t)k, "%s (filter.patch_excluded)",
                         on ? "" : ", then patching stopped");
            run.patched = patched;
        } else if (vftr_proc.cfg.filter_patch_excluded && failed > 0) {
            run.patched = "none: the system does not let code be made writable "
                          "(filter.patch_excluded)";
        }
    }
    if (why)
        run.trace_message = why;
    else if (run.trace_capped)
        run.trace_message = "the trace reached its size cap (trace.max_size, "
                            "trace.max_job_size)";
    else if (atomic_load(&vftr_proc.reserve_hit))
        run.trace_message = "its file system reached the free space the trace leaves to the "
                            "program (trace.keep_free); the profile went on";
    else if (vftr_proc.write_errno)
        run.trace_message = strerror(vftr_proc.write_errno);
    else if (!vftr_proc.cfg.trace_active)
        run.trace_message = "tracing off (trace.active = false)";

    if ((size_t)snprintf(log, len, "%s/%s_%d.log", vftr_proc.dir, vftr_proc.base, rank) >= len) {
        log[0] = '\0';
        rc = -ENAMETOOLONG;
    } else {
        (void)vftr_outdir_make_room(log);   /* an earlier run's log is kept (outdir.h) */
        rc = vftr_logfile_write(log, prof, &vftr_proc.cfg, &run);
        vftr_outdir_written(log);
        if (rc < 0) {
            vftr_msg("rank %d: cannot write the profile log %s: %s", rank, log, strerror(-rc));
            log[0] = '\0';
        } else if (vftr_ctr_count() > 0) {
            /* the counter table (counters.c) after the log's own sections */
            FILE *f = fopen(log, "a");
            bool bad = f == NULL;

            if (f) {
                bad |= vftr_ctr_log(f) < 0;
                bad |= fclose(f) != 0;
            }
            if (bad)
                vftr_msg("rank %d: cannot add the counter table to %s", rank, log);
        }
        if (rc >= 0 && vftr_sample_active()) {
            /* what the statistical rows of the profile are (sample.c) */
            FILE *f = fopen(log, "a");
            bool bad = f == NULL;

            if (f) {
                bad |= vftr_sample_log(f) < 0;
                bad |= fclose(f) != 0;
            }
            if (bad)
                vftr_msg("rank %d: cannot add the sampling section to %s", rank, log);
        }
    }
    prof->mpi = NULL;
    prof->nmpi = 0;
    free(mpi);
    return rc;
}

VFTR_NI void vftr_finalize(void)
{
    struct vftr_thread *self = vftr_tls, *t;
    struct vftr_profile prof;
    char vfd[1400] = "", log[1400];
    uint64_t end_ticks, end_ns;
    double tps;
    int rank, rc;
    bool no_hooks;

    /* capture's own work from here (sample.h: a sample in getpid's return
     * is walked to getpid only); never ended, the process is ending */
    vftr_sample_own_begin();
    if (atomic_exchange(&vftr_proc.finalized, 1))
        return;
    if (getpid() != vftr_proc.pid || !vftr_proc.recording)
        return;   /* a forked child, or capture was off */
    /* what this thread reads and writes from here on is capture's (the
     * control socket's unlink, the trace, the logs): never file I/O of the
     * program, also where the caller's address does not tell (a sanitizer's
     * interceptor between capture and the interposed call) */
    vftr_io_mute++;
    vftr_sample_finalize();   /* timers stopped, the last samples booked */
    vftr_ctl_shutdown();   /* no control event from here on; the module hears of the end */
    /* exit() called from inside a hook (an instrumented atexit handler of a
     * library, say): keep this thread out of its own hooks from now on */
    if (self)
        atomic_store(&self->guard, VFTR_GUARD_DONE);
    int busy = vftr_stop_world(VFTR_PHASE_STOPPED);
    end_ticks = vftr_clock_now();
    end_ns = vftr_clock_realtime_ns();
    /* every switch made, applied by every thread that is not stuck in a
     * hook or finished (a finished thread applied them at its end) */
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        int g = atomic_load_explicit(&t->guard, memory_order_acquire);

        if (g == VFTR_GUARD_FREE || t == self)
            vftr_phase_catch_up_all(t);
    }
    /* The open frames end now, innermost first, OpenMP regions among them
     * (a worker's last implicit task ends only when libomp shuts down,
     * after this: a worker waiting since its last region ended is idle from
     * there); then the regions still open that no frame holds. */
    vftr_ompt_idle_all(end_ticks);
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        if (t != self && atomic_load_explicit(&t->guard, memory_order_acquire) == VFTR_GUARD_IN_HOOK)
            continue;   /* stuck in a hook: leave it alone */
        vftr_trace_close_frames(t, end_ticks);
    }
    (void)vftr_ompt_close_all(vftr_ext_event_on, end_ticks);
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        if (t != self && atomic_load_explicit(&t->guard, memory_order_acquire) == VFTR_GUARD_IN_HOOK)
            continue;
        if (t->trace || (t->buf && vftr_trace_used(t)))
            vftr_trace_flush_thread(t, false);
    }
    /* one measurement of the clock's rate for the trace's header and the
     * log: two would differ by a few parts per million (a preemption
     * between the two clock reads of a measurement), and so would every
     * time of the log from the trace's */
    tps = vftr_clock_ticks_per_second(10);
    /* an MPI program that never called MPI_Init: the earlier run's files
     * move now, before this run's take their names (outdir.h) */
    vftr_outdir_keep_old_once();
    /* a thread stuck in a hook keeps the writer: it is not freed under it */
    rc = vftr_trace_close(vfd, sizeof vfd, busy > 0, tps);
    (void)rc;

    rank = vftr_proc.rank < 0 ? 0 : vftr_proc.rank;
    no_hooks = !vftr_hooks_seen() && !vftr_sample_active();
    log[0] = '\0';
    if (!vftr_rangelist_contains(&vftr_proc.cfg.logfile_for_ranks, rank))
        goto out;
    if (vftr_callpath_profile(&prof, tps, vftr_proc.hook_cost) < 0) {
        vftr_msg("rank %d: out of memory for the profile; no log written", rank);
        goto out;
    }
    (void)vftr_log_write(&prof, tps, end_ticks, end_ns, vfd[0] ? vfd : NULL, NULL, log,
                         sizeof log);
    vftr_callpath_profile_release(&prof);
out:
    if (no_hooks && vftr_proc.is_rank0)
        say_no_hooks(log, vfd);
}
