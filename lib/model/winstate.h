/*
 * winstate.h — a window read for backends that can only read forward from
 * the trace start (a .vfd run, an OTF2 archive): fed every event in time
 * order, it keeps the call stacks and the messages in flight before the
 * window start a, hands them over at a (open_frame, open_message: window.h's
 * contract), then passes the events of [a, b) to the caller's handler and
 * says when to stop.
 *
 * Events come as the conversion engine's records (vfdconv.h's struct
 * vftr_vfdconv_event: Enter, Leave, sends, receives, collectives, file
 * operations; other types are passed over); a backend with events of other
 * kinds (counters)
 * asks vftr_winstate_gate() whether to deliver one and delivers it itself.
 *
 * Return values: 0 go on; VFTR_WINSTATE_STOP: the read is over (time >= b,
 * or a callback returned non-zero: its value is in ws->hrc); -ENOMEM.
 * Ownership: the state owns its stacks (vftr_winstate_release); h, procs and
 * stats are borrowed.  Threads: one thread at a time.
 */
#ifndef VFTR_MODEL_WINSTATE_H
#define VFTR_MODEL_WINSTATE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "u64map.h"
#include "vfdconv.h"
#include "window.h"
#include "util/proclist.h"

#define VFTR_WINSTATE_STOP (-ECANCELED)

struct vftr_winstate_call { uint32_t function; uint64_t enter; };
struct vftr_winstate_stack {
    uint32_t process;
    struct vftr_winstate_call *v;
    size_t n, cap;
};
struct vftr_winstate_msg { uint64_t time; uint32_t sender, receiver, comm, tag; uint64_t bytes; };

struct vftr_winstate {
    const struct vftr_window_handler *h;
    const struct vftr_proclist *procs;    /* NULL: every process */
    uint64_t a, b;
    int state;                        /* deliver the state at a */
    int started;                      /* the state was delivered (or is not wanted) */
    int hrc;                          /* a callback's non-zero value */
    struct vftr_winstate_stack *stacks;   /* per process, in order of first event */
    size_t nstacks, capstacks;
    struct vftr_u64map smap;          /* process -> stack index */
    struct vftr_winstate_msg *msgs;   /* sends before a not yet received */
    size_t nmsgs, capmsgs;
    struct vftr_window_stats *st;
    /* the rank of a process (its rank's own process; NULL: each process
     * is its own rank): set after init by a backend whose peers may name
     * only a rank (vftr_source_peer_ranks); arg borrowed */
    uint32_t (*rank_of)(void *arg, uint32_t process);
    void *rank_arg;
};

/* Sets up ws for the window [a, b) (state: deliver the state at a). */
void vftr_winstate_init(struct vftr_winstate *ws, const struct vftr_window_handler *h,
                        const struct vftr_proclist *procs, uint64_t a, uint64_t b, int state,
                        struct vftr_window_stats *st);

/* One event (time order over the processes read). */
int vftr_winstate_event(struct vftr_winstate *ws, const struct vftr_vfdconv_event *e);

/* An event the caller delivers itself: 1 deliver it now, 0 pass it over,
 * or VFTR_WINSTATE_STOP / -ENOMEM as above (the state at a is handed over
 * first when time is the window's first). */
int vftr_winstate_gate(struct vftr_winstate *ws, uint64_t time, uint32_t process);

/* A callback's value seen by the caller's own delivery: keeps it and
 * returns VFTR_WINSTATE_STOP (0 for 0). */
int vftr_winstate_verdict(struct vftr_winstate *ws, int rc);

/* The read reached the end of the trace: hands the state over when the
 * window lies after the last event.  0 or a callback's value. */
int vftr_winstate_finish(struct vftr_winstate *ws);

void vftr_winstate_release(struct vftr_winstate *ws);

#endif /* VFTR_MODEL_WINSTATE_H */
