/*
 * signals.c — crash safety: stopping every thread's hooks, flushing from a
 * signal handler, fork.
 *
 * Stopping the world.  The hooks take their thread's guard with plain
 * (relaxed) stores and read the phase word with a plain load — no fence on
 * the hot path.  The stopping side stores the phase, then issues
 * membarrier(PRIVATE_EXPEDITED), which runs a full barrier on every CPU
 * running one of our threads: afterwards, a thread that has not yet taken
 * its guard will see the new phase, and a thread that took it shows
 * IN_HOOK.  The stopper then waits (bounded) until no other thread is
 * IN_HOOK; a hook leaves with a release store, so everything the thread did
 * is visible to the stopper's acquire load.  Without membarrier (old
 * kernel, seccomp) the short wait stands in for it.
 *
 * Signals.  SIGSEGV, SIGBUS, SIGABRT, SIGTERM and SIGINT: the handler stops
 * the world, writes every thread's buffered events and pending definitions
 * with the async-signal-safe encoders into the emergency buffer, rewrites
 * the header (complete = 0, abandoned = 1), gives the file its final name
 * <base>_<rank>.vfd when the signal is going to end the program, writes the
 * profile log as it stands, marked incomplete (crashlog.h), then lets
 * the signal take its course: the program's previous handler if it had one (capture resumes
 * first, since that handler may recover), otherwise the default action
 * (re-raised).  A signal ignored by the program (SIG_IGN) is left alone.
 *
 * fork.  The child inherits the parent's trace file descriptor; writing to
 * it would interleave with the parent's chunks.  The child therefore stays
 * silent: the atfork handler stops capture in the child, and neither the
 * finalizer nor the signal handler does anything in a process whose pid is
 * not the one that initialized.  (A child that execs an instrumented
 * program starts a capture of its own.)
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "capture.h"
#include "crashlog.h"

static const int handled[] = { SIGSEGV, SIGBUS, SIGABRT, SIGTERM, SIGINT };
#define NHANDLED (sizeof handled / sizeof handled[0])

static struct sigaction previous[NHANDLED];
static _Atomic int handling;
static int membarrier_cmd;   /* 0: none */

VFTR_NI void vftr_membarrier_setup(void)
{
#ifdef SYS_membarrier
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

    if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED)
        && syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
        membarrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
    else if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL))
        membarrier_cmd = MEMBARRIER_CMD_GLOBAL;
#endif
}

static VFTR_NI void pause_ns(long ns)
{
    struct timespec ts = { 0, ns };

    nanosleep(&ts, NULL);
}

VFTR_NI int vftr_stop_world(int phase)
{
    struct vftr_thread *self = vftr_tls, *t;
    uint64_t w = atomic_load(&vftr_proc.phase);
    int busy = 0;

    /* the count of switches stays: the finalizer and the signal handler
     * bring the threads up to date with it */
    while (!atomic_compare_exchange_weak(&vftr_proc.phase, &w,
                                         (w & ~(uint64_t)VFTR_PHASE_MASK) | (uint64_t)phase))
        ;
#ifdef SYS_membarrier
    if (membarrier_cmd)
        syscall(SYS_membarrier, membarrier_cmd, 0, 0);
    else
#endif
        pause_ns(1000000);
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        int spins;

        if (t == self)
            continue;
        /* A hook lasts nanoseconds; a slow path (a new function: symbol
         * lookup; a full buffer: a write) milliseconds at worst.  Give up
         * on a thread after about half a second. */
        for (spins = 0; spins < 5000; spins++) {
            if (atomic_load_explicit(&t->guard, memory_order_acquire) != VFTR_GUARD_IN_HOOK)
                break;
            pause_ns(100000);
        }
        if (spins == 5000)
            busy++;
    }
    return busy;
}

/* May thread t be read and flushed by the stopper?  Not while it is in a
 * hook or lent to a control event. */
static VFTR_NI bool readable(const struct vftr_thread *t, const struct vftr_thread *self)
{
    int g;

    if (t == self)
        return !t->flushing;
    g = atomic_load_explicit(&t->guard, memory_order_acquire);
    return g == VFTR_GUARD_FREE || g == VFTR_GUARD_DONE;
}

/* Flushes every readable thread through the emergency buffer, after it
 * applied the switches it had not seen (a thread that slept through a
 * pause gets its exits at the pause; not one that is finished, nor the
 * handler's own thread when the signal came inside one of its hooks). */
static VFTR_NI void flush_all_from_signal(bool end)
{
    struct vftr_thread *self = vftr_tls, *t;
    uint64_t now = vftr_clock_now();

    if (vftr_proc.writer == NULL || vftr_proc.emergency == NULL)
        return;
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        bool free_ = atomic_load_explicit(&t->guard, memory_order_acquire) == VFTR_GUARD_FREE;

        if (!readable(t, self))
            continue;
        if (free_)
            vftr_phase_catch_up_all(t);
        vftr_trace_flush_thread(t, true);
        /* The run ends here: the open calls end now, in the trace (EXITs
         * at the signal's time, into the buffer just emptied, then flushed
         * too) and in the profile that the crash log prints, so that the
         * two agree as at a normal end.  Not for a thread caught inside a
         * hook (its stack is half updated): the log counts its open calls
         * up to now, the trace up to its last event. */
        if (end && free_) {
            vftr_trace_close_frames(t, now);
            vftr_trace_flush_thread(t, true);
        }
    }
}

static VFTR_NI int handled_index(int sig)
{
    size_t i;

    for (i = 0; i < NHANDLED; i++)
        if (handled[i] == sig)
            return (int)i;
    return -1;
}

static VFTR_NI void on_signal(int sig, siginfo_t *info, void *uctx)
{
    int saved_errno = errno, i = handled_index(sig);
    bool chained = i >= 0 && (previous[i].sa_flags & SA_SIGINFO
                                  ? previous[i].sa_sigaction != NULL
                                  : (previous[i].sa_handler != SIG_DFL
                                     && previous[i].sa_handler != SIG_IGN));

    if (getpid() == vftr_proc.pid && !atomic_load(&vftr_proc.finalized)
        && !atomic_exchange(&handling, 1)) {
        uint64_t old;

        if (!chained) {
            if (vftr_phase_of(atomic_load(&vftr_proc.phase)) != VFTR_PHASE_STOPPED) {
                vftr_stop_world(VFTR_PHASE_STOPPED);
                flush_all_from_signal(true);
                vftr_trace_abandon(sig, true);
                (void)vftr_crashlog_write(sig);   /* the log too, marked incomplete */
            }
        } else if (vftr_phase_hold(&old, true) >= 0) {
            /* the program's handler may recover: the other threads' hooks
             * wait meanwhile (none is lost), then recording goes on */
            flush_all_from_signal(false);
            vftr_trace_abandon(sig, false);
            (void)vftr_crashlog_write(sig);   /* the log too, marked incomplete */
            vftr_phase_unhold(old);
        }
        atomic_store(&handling, 0);
    }
    errno = saved_errno;
    if (i < 0)
        return;
    if (chained) {
        if (previous[i].sa_flags & SA_SIGINFO)
            previous[i].sa_sigaction(sig, info, uctx);
        else
            previous[i].sa_handler(sig);
        return;
    }
    /* The default action: restore it and raise again.  The signal is
     * blocked while this handler runs, so it is delivered on return (for a
     * fault, the faulting instruction would fault again anyway). */
    {
        struct sigaction dfl;

        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        raise(sig);
    }
}

static VFTR_NI void atfork_child(void)
{
    atomic_store(&vftr_proc.phase, VFTR_PHASE_STOPPED);
}

VFTR_NI int vftr_signals_setup(void)
{
    struct sigaction sa;
    size_t i;
    int rc = 0;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < NHANDLED; i++) {
        struct sigaction cur;

        if (sigaction(handled[i], NULL, &cur) != 0)
            continue;
        if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
            continue;   /* ignored on purpose (nohup, a launcher): leave it */
        if (sigaction(handled[i], &sa, &previous[i]) != 0)
            rc = -errno;
    }
    if (pthread_atfork(NULL, NULL, atfork_child) != 0)
        rc = rc ? rc : -ENOMEM;
    return rc;
}
