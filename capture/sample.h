/*
 * sample.h — statistical call-stack sampling (sample.interval, vftr-run
 * --sample): a profile of programs built without compiler hooks.
 *
 * Each sampled thread is sampled every interval of the CPU time it uses by
 * a task-clock event (perf_event_open) where the kernel allows one, else by
 * a POSIX timer on its CPU-time clock (CLOCK_THREAD_CPUTIME_ID,
 * SIGEV_THREAD_ID, SIGPROF; checked only at the kernel's tick, so coarser
 * on a loaded core; key sample.task_clock).  The event takes one of two
 * routes (key sample.ring): the ring route, where the kernel writes each
 * sample (count, registers, 8 KiB of user stack) into a ring mapped per
 * thread and the collector unwinds the copies (sample_unwind.h), no signal;
 * or the signal route, where the event sends the thread SIGPROF.  Each
 * sample weighs the thread's CPU time since its previous sample.  The
 * handler of the signal route unwinds the interrupted context (libunwind's
 * local unwinder, frame pointers where that finds nothing) into the
 * thread's ring of preallocated slots: no allocation, no lock, no stdio.
 * A collector thread empties the rings every few milliseconds: it resolves the
 * addresses with the ELF symbols (symbols.h, names.h) and books each
 * sample in a call tree of its own per sampled thread, a "sampled" thread
 * of the trace (struct vftr_thread, owned by the collector): one call per
 * frame and the sample's weight, and in its trace an ENTER/EXIT pair per
 * frame laid out over that time.  Those functions are flagged
 * VFTR_FN_SAMPLED (VFTR_VFD_FUNC_SAMPLED in the .vfd), so every tool
 * names them a statistical profile.
 *
 * A sample taken while the thread is inside a hook or an exactly recorded
 * call (an MPI call, a hooked function: the top of the thread's shadow
 * stack is one) is not booked: that time is recorded exactly already; nor
 * is one inside capture's own work (vftr_sample_own_begin, below).  On
 * the ring route, where no code of the thread runs at the sample, the
 * collector tells it from the stack: a frame of capture's libraries under
 * one of the program's (MPI calls, hooks; not a user region or a hooked
 * function, which leave no such frame).  The
 * work inside an OpenMP region (an OpenMP node on top) is sampled.  See share/doc/sampling.md.
 *
 * Threads: vftr_sample_setup once from initialization (the main thread);
 * vftr_sample_thread_begin / _end in each thread the program creates (the
 * pthread_create wrapper of preload/thread.c; under ThreadSanitizer, where
 * that wrapper registers nothing, the ring route's collector finds the
 * threads in /proc/self/task and opens their events itself); vftr_sample_finalize once
 * from finalization or before an exec.  None is async-signal-safe.
 */
#ifndef VFTR_CAPTURE_SAMPLE_H
#define VFTR_CAPTURE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct vftr_config;

/* Starts sampling when cfg->sample_interval > 0: the signal handler, the
 * collector, the calling thread's timer.  0, or -errno after one message
 * (sampling is then off, capture goes on). */
int vftr_sample_setup(const struct vftr_config *cfg);

/* The calling thread starts (ends): its event or timer and its ring (the
 * source stopped, the CPU time after the last sample counted, the ring
 * left to the collector).  Nothing when sampling is off. */
void vftr_sample_thread_begin(void);
void vftr_sample_thread_end(void);

/* The collector thread's start routine (the pthread_create wrapper gives
 * it no timer of its own). */
void *vftr_sample_collector_fn(void);

/* A thread of capture's own is never sampled: vftr_sample_own_thread marks
 * start as the start routine of one (the control server's; up to four, the
 * collector's always), before its pthread_create; vftr_sample_is_own_thread
 * tells the pthread_create wrapper, which then gives it no event, timer or
 * ring.  Async-signal-safe reads; marking is for initialization. */
void vftr_sample_own_thread(void *(*start)(void *));
bool vftr_sample_is_own_thread(void *(*start)(void *));

/* Capture's own work on the calling thread, between _begin and _end (its
 * start-up after the main thread's sampling began, the pthread_create
 * wrapper around the real call): a sample taken there on the signal route
 * is counted with those in exact calls (the log's "in exact calls",
 * capture's own work), never booked.  Needed because the handler walks
 * libc's code, where that work mostly runs, by frame pointers and often
 * sees no frame of capture's (the ring route tells it from the unwound
 * stack).  Nests; any thread, with or without a thread state (vftr_tls),
 * before or after sampling started; async-signal-safe. */
void vftr_sample_own_begin(void);
void vftr_sample_own_end(void);

/* Stops every timer and the collector and books the samples still in the
 * rings; sampling is over for the process.  Idempotent. */
void vftr_sample_finalize(void);

/* While held, the collector books nothing (it books only under the lock
 * these take): for a reader of every thread's call tree while the program
 * runs (vftr_ext_profile, the MPI collation at MPI_Finalize), whose
 * snapshot would otherwise race with the booking of samples into the
 * sampled threads.  Not async-signal-safe; not nested. */
void vftr_sample_quiet_begin(void);
void vftr_sample_quiet_end(void);

/* Whether sampling ran; the figures of the log's section. */
bool vftr_sample_active(void);

/* The log's section on sampling (after the profile): interval, source,
 * samples booked and their CPU time, inside exactly recorded regions,
 * refused by full rings, the time after the last samples.  0 or -EIO. */
int vftr_sample_log(FILE *f);

#endif /* VFTR_CAPTURE_SAMPLE_H */
