/*
 * ompt.h — what the rest of capture may ask of the OpenMP tool (ompt.c).
 *
 * The tool keeps, per thread, a stack of the OpenMP regions it has begun
 * and not yet ended.  libomp reports the end of a worker's last implicit
 * task (and of the barrier before it) only when it shuts down, after
 * capture has finalized; vftr_ompt_close_all lets the finalizer end such
 * regions in the trace, as vftr_trace_close_frames ends open functions.
 *
 * Thread-safety: call vftr_ompt_close_all once the other threads have been
 * stopped (vftr_stop_world): a thread that is inside a tool callback at
 * that moment is skipped, and a thread's callbacks do nothing once the
 * phase is STOPPED.  Not async-signal-safe (it calls put, which may
 * allocate).  A callback holds capture's guard of its thread while it
 * works on the thread's stack.
 */
#ifndef VFTR_CAPTURE_OMPT_H
#define VFTR_CAPTURE_OMPT_H

#include <stdbool.h>
#include <stdint.h>

struct vftr_thread;

/* Appends an extended event (kind, payload of len bytes) at time to the
 * buffer of thread t; 0 or -errno.  The finalizer's way to write into
 * another thread's buffer. */
typedef int vftr_ompt_put_fn(struct vftr_thread *t, uint64_t time, uint32_t kind,
                             const void *payload, uint32_t len);

/* Ends, at time now, every OpenMP region still open on any thread (an
 * OMP_END event per region whose begin was recorded, innermost first,
 * through put) and empties the stacks.  Returns the number of END events
 * written.  A tool that never ran (or a build without <omp-tools.h>)
 * writes none.  It also ends the session that reads source lines for
 * region definitions (ompt_lines.h): regions defined later (a task created
 * after finalization) get no file:line. */
int vftr_ompt_close_all(vftr_ompt_put_fn *put, uint64_t now) __attribute__((no_instrument_function));

/*
 * The recording of thread t's events ends (on false) or begins again (on)
 * at time `when` (phase.c, when a thread applies a pause, resume, stop or
 * start; the finalizer's close of the frames).  The open OpenMP regions
 * that are on t's stack of frames (capture.h: OpenMP nodes) end and begin
 * in their places among the functions, as the frames are walked:
 *   vftr_ompt_trace_node(t, n, on, when) for the OpenMP node n of t's
 *     stack: the region it stands for ends (OMP_END, if its begin was
 *     recorded) or begins again (OMP_BEGIN);
 *   vftr_ompt_trace_switch(t, false, when), after the walk that ended the
 *     frames: the regions still recorded that the stack no longer holds (a
 *     function's exit closed their frames) end too;
 *   vftr_ompt_trace_switch(t, true, when), before the walk that begins the
 *     frames again: those regions are not begun again, and are no longer
 *     on the stack in the profile either when they end.
 * t's guard held by the caller; allocates nothing (async-signal-safe).
 */
void vftr_ompt_trace_switch(struct vftr_thread *t, bool on, uint64_t when)
    __attribute__((no_instrument_function));
struct vftr_node;
void vftr_ompt_trace_node(struct vftr_thread *t, const struct vftr_node *n, bool on,
                          uint64_t when) __attribute__((no_instrument_function));

/* A worker whose barrier at the end of a parallel region is still open
 * after the region ended (libomp ends it only when the worker is woken
 * again, or at shutdown) has it end at the region's end and is idle from
 * there ("omp idle"), for each thread not inside a callback; the
 * finalizer calls it, before it ends the open frames at now.  Threads as
 * for vftr_ompt_close_all. */
void vftr_ompt_idle_all(uint64_t now) __attribute__((no_instrument_function));

/* Whether the OpenMP runtime reports regions to the tool (it registered
 * its callbacks): their frames then stand for the outlined functions
 * (names.h).  Thread-safe (one atomic load). */
bool vftr_ompt_active(void) __attribute__((no_instrument_function));

/* Parallel regions the tool has seen begin so far (0 when it never ran).
 * Thread-safe, async-signal-safe (one atomic load). */
uint32_t vftr_ompt_parallel_regions(void) __attribute__((no_instrument_function));

/* Code at [lo, hi) was unmapped (dlclose): the regions defined for return
 * addresses there are no longer found by their address (a region of code
 * mapped there later gets a definition of its own, named anew), and the
 * line tables read so far are dropped (read again when asked).  Any
 * thread; takes the region map's lock. */
void vftr_ompt_forget(uintptr_t lo, uintptr_t hi) __attribute__((no_instrument_function));

#endif /* VFTR_CAPTURE_OMPT_H */
