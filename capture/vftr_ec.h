/*
 * vftr_ec.h — the External Control module interface of libvftrcapture,
 * version 1 (public, installed).
 *
 * An External Control module bridges a front-end (a debugger, a job
 * monitor, vftr-ctl) and the capture library inside a running program.  It
 * is a shared object named by the configuration key control.module (vftr's
 * own default module is built into the library and serves vftr-ctl over a
 * Unix domain socket; control.active = false switches control off).  The
 * capture library loads the module during its initialization and talks to
 * it through four entry points the module exports (the pattern of the
 * Martini External Control interface):
 *
 *   vftr_ec_init               called once during capture's initialization,
 *                              on the program's first instrumented call.  The
 *                              module sets up its channel to the front-end.
 *                              A non-zero return: capture prints one message,
 *                              unloads the module and the program runs on.
 *   vftr_ec_register_callback  called once per control event capture accepts,
 *                              right after vftr_ec_init (in the order of
 *                              enum vftr_ec_event), handing the module the
 *                              function that delivers that event.  A module
 *                              thread started by init may already run: the
 *                              module guards the pointers it keeps (atomics
 *                              or a lock).
 *   vftr_ec_process_shutdown   called once just before the process ends
 *                              (capture's finalization), before the trace is
 *                              closed.  The module must stop its threads and
 *                              must not call a callback any more.
 *   vftr_ec_message            called when an error condition occurs in
 *                              capture (a control event failed, the trace
 *                              stopped): one line of text, for the front-end.
 *
 * and the module exports `const unsigned vftr_ec_module_version`, which must
 * equal VFTR_EC_VERSION (capture refuses other versions with a message).
 *
 * Events.  A module delivers an event by calling the callback registered
 * for it.  Every callback is thread-safe and may be called from any thread
 * the module owns, at any time between vftr_ec_init and
 * vftr_ec_process_shutdown, but never from a signal handler.  START, STOP,
 * PAUSE and RESUME (and ATTACH and DETACH, which may start or stop) are
 * made at once for the whole process, with the time of the call, and each
 * thread applies them at its next instrumented call at that time: they
 * never stop the program.  FLUSH, DUMP and OUTDIR work on every thread's
 * state: capture stops the hooks of every thread for the microseconds the
 * event needs (the phase word every hook reads anyway); a hook that comes
 * meanwhile waits until it is over (no call is lost).  The call returns
 * when the event has taken effect.  Meanings:
 *
 *   START    the trace records again (the frames on each thread's stack get
 *            Enter records at this moment, outermost first, so the trace
 *            stays balanced)
 *   STOP     the trace stops recording (open frames get Exit records at
 *            this moment); the profile goes on
 *   PAUSE    as vftr_pause(): nothing is recorded, neither trace nor
 *            profile; the frames open on every thread end at this moment
 *            (Exit records, then a PAUSE marker); capture keeps following
 *            calls and returns, so RESUME finds the real stacks
 *   RESUME   as vftr_resume(): a RESUME marker, then the frames open on
 *            every thread begin again (Enter records, one call more each)
 *   ATTACH   a front-end joins: if the trace is stopped, START
 *   DETACH   a front-end leaves: when the last one leaves and
 *            control.detach_stops is set, STOP; otherwise capture goes on
 *   FLUSH    every thread's buffered events are written to the trace file
 *   DUMP     the profile so far is written as a log,
 *            <outdir>/<basename>_<rank>.dump<N>.log (the reply names it)
 *   OUTDIR   arg is a directory (absolute path): the trace file moves there
 *            now and the final .vfd and the log go there at the end.  It
 *            must be an existing writable directory on the file system of
 *            the trace.
 *   CUSTOM   arg is free text: passed to the handler the program set with
 *            vftr_ec_set_custom_handler(); -ENOSYS when it set none
 *
 * Queries.  vftr_ec_init receives a struct vftr_ec_host whose query
 * function answers, without stopping the program, with lines of text handed
 * to an emit callback (formats: share/man/man3/vftr_ec.3):
 *   STATUS    one line of key=value pairs (phase, trace, pid, rank, ...)
 *   STACKS    the current call stack of every thread
 *   PROFILE   the call-path profile so far
 *   MESSAGES  MPI message counts so far (-ENOTSUP until the MPI wrappers
 *             publish them)
 *
 * Ownership: every pointer capture hands to the module (host, strings,
 * lines) is borrowed: host and its strings live until
 * vftr_ec_process_shutdown returns; a line only during the emit call.
 * Replies are written into the caller's buffer.
 *
 * Errors: functions return 0 or -errno.  Nothing here exits or aborts.
 */
#ifndef VFTR_EC_H
#define VFTR_EC_H

#include <stddef.h>
#include <sys/types.h>

#define VFTR_EC_VERSION 1u

/* The control events, in the order the protocol and vftr-ctl list them. */
enum vftr_ec_event {
    VFTR_EC_START = 0,
    VFTR_EC_STOP,
    VFTR_EC_PAUSE,
    VFTR_EC_RESUME,
    VFTR_EC_ATTACH,
    VFTR_EC_DETACH,
    VFTR_EC_FLUSH,
    VFTR_EC_DUMP,
    VFTR_EC_OUTDIR,
    VFTR_EC_CUSTOM,
    VFTR_EC_UNTHROTTLE,        /* throttled call paths are traced again (capture/filter.c) */
    VFTR_EC_NEVENTS
};

/*
 * Delivers `event` to capture.  arg: the directory for OUTDIR, the text for
 * CUSTOM, ignored (may be NULL) otherwise.  reply: len bytes that receive
 * one line of text saying what happened (or why not), always terminated
 * when len > 0; may be NULL when len is 0.  Returns 0, or -errno: -EAGAIN
 * capture is stopped (finalized, off), -EINVAL a bad argument, -ENOSYS no
 * custom handler, -EXDEV (OUTDIR) another file system, others from the
 * system.
 */
typedef int vftr_ec_callback_fn(enum vftr_ec_event event, const char *arg, char *reply,
                                size_t len);

enum vftr_ec_query {
    VFTR_EC_Q_STATUS = 0,
    VFTR_EC_Q_STACKS,
    VFTR_EC_Q_PROFILE,
    VFTR_EC_Q_MESSAGES,
    VFTR_EC_Q_THROTTLED,       /* the call paths throttling stopped tracing */
};

/* Receives one line of a query's answer (no newline; borrowed for the
 * call).  Return 0 to go on, non-zero to stop the query early. */
typedef int vftr_ec_emit_fn(void *arg, const char *line);

/* Answers query q line by line through emit.  0, -ENOTSUP (not available),
 * -EAGAIN (capture stopped), -ENOMEM, or the emit callback's non-zero value
 * negated when it stopped early.  Thread-safe; never stops the program's
 * threads. */
typedef int vftr_ec_query_fn(enum vftr_ec_query q, vftr_ec_emit_fn *emit, void *arg);

/* What capture tells the module at initialization (borrowed, see above). */
struct vftr_ec_host {
    unsigned version;          /* VFTR_EC_VERSION of the capture library */
    const char *options;       /* control.options ("" when unset) */
    const char *socket_dir;    /* control.socket_dir ("" when unset: module's choice) */
    pid_t pid;
    int rank, size;            /* from the launcher; -1 when unknown */
    const char *job;           /* job id from the launcher's environment ("" if none) */
    const char *host;          /* host name */
    const char *exe;           /* program path */
    vftr_ec_query_fn *query;
};

/* ------------------------------------------------ what a module exports */

extern const unsigned vftr_ec_module_version;
int vftr_ec_init(const struct vftr_ec_host *host);
int vftr_ec_register_callback(enum vftr_ec_event event, vftr_ec_callback_fn *callback);
void vftr_ec_process_shutdown(void);
void vftr_ec_message(const char *text);

/* ------------------------------------ what the program may set (exported) */

/*
 * The handler of CUSTOM events: command is the front-end's text, reply
 * receives one line (len > 0).  Returns 0 or -errno.  Runs on the module's
 * thread, not the program's: it must be thread-safe.  fn NULL removes it.
 * Returns 0.  Exported by libvftrcapture.
 */
typedef int vftr_ec_custom_fn(void *arg, const char *command, char *reply, size_t len);
int vftr_ec_set_custom_handler(vftr_ec_custom_fn *fn, void *arg);

/* The event's name as the protocol spells it ("start", "outdir"), or NULL. */
const char *vftr_ec_event_name(enum vftr_ec_event event);

#endif /* VFTR_EC_H */
