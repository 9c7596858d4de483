/*
 * exec.c — the end of the program image at exec (capture.h: vftr_exec_begin,
 * vftr_exec_failed; the exec family is interposed by capture/preload/exec.c).
 *
 * exec replaces the image without running atexit handlers: the finalizer
 * never runs, the buffered events and the log are lost, and the trace keeps
 * its temporary name.  So before the real exec the run of this image ends
 * as a run ends, except that nothing is torn down, because the exec may
 * fail and the program go on:
 *   - a STOP switch (phase.c) ends every thread's open frames in the trace
 *     (an EXIT each, an OMP_END for OpenMP regions), as vftr-ctl stop does;
 *     the profile and the shadow stacks are left as they are;
 *   - with the world held, every thread that can lend its state applies the
 *     switch and writes its buffer, and the profile is taken with the open
 *     calls counted up to now (as vftr-ctl dump does);
 *   - the trace's header is rewritten final (complete, the end now) and the
 *     file takes its final name, staying open (O_CLOEXEC closes it at the
 *     exec);
 *   - the profile log is written as at the end of a run, its "trace
 *     stopped" line naming the exec.
 * When the exec succeeds, that is the run.  When it fails, capture goes on
 * where it was: a START switch begins the open frames again in the trace
 * (each thread at its next hook), the header says again that the file is
 * being written (under its final name from now on), and the finalizer
 * writes the trace and the log over at the real end.  The profile of the
 * whole run counts every call; the trace has a gap between the exec and
 * its failure.  A trace stopped by vftr-ctl before the exec stays stopped.
 *
 * A thread inside a hook while this runs (the hold gave up on it) keeps its
 * buffered events; in a process that was not the one capture started in (a
 * forked child; a vfork child shares the parent's memory and must touch
 * nothing) or after the end of the run, nothing is done.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "sample.h"
#include "io.h"

/* Tokens of vftr_exec_begin: what vftr_exec_failed must undo. */
enum { EXEC_NOTHING = 0, EXEC_DONE = 1, EXEC_RESTART = 2 };

static VFTR_NI void nap(void)
{
    const struct timespec ts = { 0, 100000 };

    nanosleep(&ts, NULL);
}

/* Holds the world (a control event may hold it for a moment: wait, at most
 * about 5 s).  0, or -EAGAIN when capture stopped or the wait gave up. */
static VFTR_NI int hold(uint64_t *prev)
{
    for (int tries = 0; tries < 50000; tries++) {
        int rc = vftr_phase_hold(prev, false);
        uint64_t w;

        if (rc >= 0)
            return 0;
        w = atomic_load_explicit(&vftr_proc.phase, memory_order_acquire);
        if (vftr_phase_of(w) != VFTR_PHASE_HELD)
            return -EAGAIN;
        nap();
    }
    return -EAGAIN;
}

/* Snapshot of the profile with every thread's buffer written: the threads
 * that can lend their state apply the switches (the STOP: their open frames
 * end in the trace) and flush, then the counters are read with the open
 * calls counted up to *now.  Everything is allocated before the world is
 * held (a thread waiting in its hook may hold the allocator's lock), and
 * again with more room when threads outgrew it.  0 or -errno. */
static VFTR_NI int flush_and_profile(struct vftr_profile *prof, double tps, uint64_t *now)
{
    int rc = -ENOSPC;

    for (int tries = 0; rc == -ENOSPC && tries < 8; tries++) {
        struct vftr_profile_space sp;
        struct vftr_thread **lent, *t;
        size_t cap = 16, n = 0;
        uint64_t prev;

        for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next)
            cap++;
        if ((lent = malloc(cap * sizeof *lent)) == NULL)
            return -ENOMEM;
        if ((rc = vftr_callpath_space_reserve(&sp, 256u << tries)) < 0) {
            free(lent);
            return rc;
        }
        if ((rc = hold(&prev)) < 0) {
            vftr_callpath_space_release(&sp);
            free(lent);
            return rc;
        }
        for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t && n < cap;
             t = t->next) {
            if (!vftr_thread_borrow(t))
                continue;   /* inside a hook, or finished (flushed at its end) */
            vftr_phase_catch_up_all(t);
            if (t->buf && vftr_trace_used(t))
                (void)vftr_trace_flush_thread(t, false);
            lent[n++] = t;
        }
        *now = vftr_clock_now();
        rc = vftr_callpath_profile_in(prof, &sp, tps, vftr_proc.hook_cost, *now);
        for (size_t i = 0; i < n; i++)
            vftr_thread_give_back(lent[i]);
        vftr_phase_unhold(prev);
        vftr_callpath_space_release(&sp);
        free(lent);
    }
    return rc == -ENOSPC ? -ENOMEM : rc;
}

VFTR_NI int vftr_exec_begin(const char *what)
{
    struct vftr_thread *self = vftr_tls;
    struct vftr_profile prof;
    char vfd[1400] = "", log[1400], why[1200];
    uint64_t now, end_ns;
    double tps;
    int rank = vftr_proc.rank < 0 ? 0 : vftr_proc.rank, token = EXEC_DONE, rc;

    if (getpid() != vftr_proc.pid || !vftr_proc.recording || atomic_load(&vftr_proc.finalized))
        return EXEC_NOTHING;
    /* no sampling timer may fire into the new image (SIGPROF's default
     * kills it): every one stops here, for good (sample.h) */
    vftr_sample_finalize();
    /* a signal handler that interrupted one of capture's hooks: the
     * thread's state is half updated, capture's locks may be held */
    if (self != NULL && atomic_load_explicit(&self->guard, memory_order_acquire)
                            != VFTR_GUARD_FREE)
        return EXEC_NOTHING;
    rc = vftr_phase_switch(VFTR_SWITCH_STOP);
    if (rc == -EAGAIN)
        return EXEC_NOTHING;   /* capture stopped */
    if (rc == 1)
        token = EXEC_RESTART;
    /* the clock's rate for the header and the log alike (finalize.c) */
    tps = vftr_clock_ticks_per_second(10);
    rc = flush_and_profile(&prof, tps, &now);
    end_ns = vftr_clock_realtime_ns();
    (void)vftr_trace_checkpoint(vfd, sizeof vfd, tps);
    if (rc < 0) {
        vftr_msg("rank %d: exec: no profile (%s); the trace is kept", rank, strerror(-rc));
        return token;
    }
    if (vftr_rangelist_contains(&vftr_proc.cfg.logfile_for_ranks, rank)) {
        /* a trace that had stopped before (cap, full disk, off) keeps its
         * own reason in the log */
        bool ran = vfd[0] && !atomic_load(&vftr_proc.trace_off);

        snprintf(why, sizeof why, "at the exec of %s, which replaced the program",
                 what ? what : "(null)");
        /* the log is capture's file, never the program's I/O (io.h), also
         * where a sanitizer's interceptor hides the caller's address */
        vftr_io_mute++;
        (void)vftr_log_write(&prof, tps, now, end_ns, vfd[0] ? vfd : NULL, ran ? why : NULL,
                             log, sizeof log);
        vftr_io_mute--;
    }
    vftr_callpath_profile_release(&prof);
    return token;
}

VFTR_NI void vftr_exec_failed(int token)
{
    if (token == EXEC_NOTHING)
        return;
    vftr_trace_reopen();
    if (token == EXEC_RESTART)
        (void)vftr_phase_switch(VFTR_SWITCH_START);
}
