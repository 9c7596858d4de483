/*
 * ctl.h — external control inside libvftrcapture (internal, not installed).
 *
 * Purpose: the capture side of vftr_ec.h.  ctl.c loads the External Control
 * module named by the configuration (or the built-in default module of
 * ctlsrv.c), hands it one callback per event, applies the events to the
 * capture core and answers the live queries; ctlproto.c is the line
 * protocol of the default module and vftr-ctl (pure functions, fuzzed);
 * ctldir.c finds and checks the per-user endpoint directory.
 *
 * How an event takes effect.  The hooks read the phase word on every call
 * (capture.h: vftr_guard_take); control adds nothing to the hot path.
 * Pause, resume, stop and start (attach, detach) are switches of the
 * process (phase.c): logged with their time and applied by every thread at
 * its next hook, so they never stop the program.  An event that works on
 * thread state (flush, dump, outdir) "holds the world" (vftr_phase_hold):
 * it moves the phase from RUNNING or PAUSED to HELD with a
 * compare-and-swap, waits (vftr_stop_world) until no thread is inside a
 * hook, lends each thread's state with a compare-and-swap of its guard
 * FREE -> LENT (so that a thread exiting meanwhile does not flush itself
 * under our feet, and the signal handler skips it), does its work, gives
 * the guards back and swaps the phase back.  Hooks that come meanwhile
 * wait until the hold is over (they are not lost: a lost enter or exit
 * would leave a shadow stack wrong).  One mutex serializes events;
 * finalization takes it too (vftr_ctl_shutdown), so an event never
 * overlaps the end of the run.
 *
 * Live queries (status, stacks, profile) never hold the world: they read
 * the published parts of the thread states.  Nodes never move and are never
 * freed, a node's parent chain never changes, and a thread publishes its
 * node count with a release store after initializing the node; a stack is
 * read from the thread's current node pointer (checked against the
 * published nodes before use), a profile from the counters of the published
 * nodes.  The counters are read while their thread updates them (relaxed
 * atomic loads of aligned 64-bit words): a row may be one call behind, and
 * the exclusive time of a node whose child just returned is clamped at 0.
 * A query takes no lock the hooks take and sends no signal: it costs the
 * program's threads only the cache lines it reads, and the module's thread
 * a few microseconds (share/doc/control.md, "What a query costs").
 *
 * Threads: vftr_ctl_setup and vftr_ctl_shutdown run on the initializing
 * and the finalizing thread; vftr_ctl_event and vftr_ctl_query on any
 * thread (the module's).  Nothing here runs in a signal handler.
 */
#ifndef VFTR_CAPTURE_CTL_H
#define VFTR_CAPTURE_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include "vftr_ec.h"

/* The module's entry points (a loaded shared object's, or the default
 * module's). */
struct vftr_ec_module {
    const char *name;          /* for messages: a path or "default" */
    int (*init)(const struct vftr_ec_host *host);
    int (*register_callback)(enum vftr_ec_event event, vftr_ec_callback_fn *callback);
    void (*process_shutdown)(void);
    void (*message)(const char *text);
};

/* The built-in default module (ctlsrv.c). */
extern const struct vftr_ec_module vftr_ctl_default_module;

/*
 * Loads and initializes the module of the configuration (control.*), once,
 * at the end of capture's initialization.  A module that cannot be loaded
 * or refuses to initialize gives one message; capture goes on without it.
 * 0 or -errno.
 */
int vftr_ctl_setup(void) __attribute__((no_instrument_function));

/*
 * Finalization: waits for a running event, tells the module that the
 * process ends (vftr_ec_process_shutdown) and refuses events from then on.
 * Idempotent.
 */
void vftr_ctl_shutdown(void) __attribute__((no_instrument_function));

/* The callback every module gets (see vftr_ec_callback_fn). */
int vftr_ctl_event(enum vftr_ec_event event, const char *arg, char *reply, size_t len)
    __attribute__((no_instrument_function));

/* The query function of struct vftr_ec_host (see vftr_ec_query_fn). */
int vftr_ctl_query(enum vftr_ec_query q, vftr_ec_emit_fn *emit, void *arg)
    __attribute__((no_instrument_function));

/* Test hook: installs module m as if the configuration named it (m and its
 * strings borrowed until vftr_ctl_shutdown).  Same results as setup. */
int vftr_ctl_setup_module(const struct vftr_ec_module *m, const char *options)
    __attribute__((no_instrument_function));

#endif /* VFTR_CAPTURE_CTL_H */
