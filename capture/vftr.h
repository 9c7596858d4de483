/*
 * vftr.h — the user API of libvftrcapture (installed as <vftr.h>).
 *
 * Purpose: let a program mark regions of its own and switch recording off
 * and on.  Regions appear in the profile log and in the trace like
 * functions, named by the string given; they nest with the instrumented
 * functions around and inside them.
 *
 * Linking: cc prog.c -lvftrcapture (or run under vftr-run, which preloads
 * the library: then the program still needs these symbols at link time,
 * so link it with -lvftrcapture as well).  When capture is switched off
 * (VFTR_OFF=1, or a configuration that switches it off) the calls do
 * nothing and cost a few nanoseconds.
 *
 * Ownership: `name` is borrowed for the duration of the call; the library
 * keeps a copy of every distinct region name.
 *
 * Threads: every function may be called from any thread.  Regions belong to
 * the calling thread's call stack; vftr_pause and vftr_resume act on the
 * whole process.
 *
 * Errors: none are reported; a call that cannot be honoured (NULL name,
 * vftr_region_end of a region that is not open, out of memory) is ignored.
 */
#ifndef VFTR_H
#define VFTR_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Opens the region `name` in the calling thread: like the entry of a
 * function called `name`.  Regions with equal names (compared by content)
 * are the same function.  Each vftr_region_begin needs a vftr_region_end
 * with the same name in the same thread.
 */
void vftr_region_begin(const char *name);

/*
 * Closes the region `name`: like the return of that function.  Ending a
 * region that is open further up the call stack also closes whatever was
 * entered inside it and is still open (as a longjmp would); ending one that
 * is not open is ignored.
 */
void vftr_region_end(const char *name);

/*
 * Stops recording in every thread until vftr_resume(): function calls made
 * meanwhile appear neither in the profile nor in the trace.  The calls
 * open at the pause, in every thread, end there (in the trace an exit at
 * the pause's time, then a PAUSE mark; their time stops), whatever the
 * function that pauses and whether they return before or after the
 * resume: capture still follows every call and return while paused.
 * Pausing twice is the same as once.
 */
void vftr_pause(void);

/*
 * Starts recording again after vftr_pause(); otherwise does nothing.  The
 * calls open at the resume, in every thread, begin again there (a RESUME
 * mark, then an enter at the resume's time; their time counts from there):
 * each counts one call more, as every reader of the trace counts an enter
 * as a call.
 *
 * vftr_pause and vftr_resume may be called from any function of any
 * thread, not from a signal handler (they take a lock).  A thread applies
 * the switch at its next instrumented call at the switch's time, so a
 * thread that sleeps meanwhile is paused and resumed all the same.
 */
void vftr_resume(void);

#ifdef __cplusplus
}
#endif

#endif /* VFTR_H */
