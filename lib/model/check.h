/*
 * check.h — the invariants a trace must hold for its figures to mean
 * anything, checked on the events of a source (source.h), whatever its
 * format.  vftr-dump --check offers it to users; the test suite runs it on
 * every trace its captures make.
 *
 * Per process, in its time order:
 *   - time stamps never go back;
 *   - every Leave closes the call on top of the stack (the same function),
 *     a Leave never comes with an empty stack, and no call is still open
 *     after the process's last event — so every Enter has its Leave, in
 *     order, and no call begins after its caller returned;
 *   - a call's callees take no longer than the call (inclusive >=
 *     exclusive >= 0), and the exclusive times of the process's calls add
 *     up to the time its stack was not empty (each tick counted once);
 *   - a collective operation's end matches a begin (by matching id) and
 *     every begin ends; so does a file operation's.
 * Every token an event names is defined: its process, the function it
 * enters, a message's peer and communicator, a collective's operation,
 * communicator and root, a file operation's file (reported once per
 * token).
 * Across processes: every receive matches one send (communicator, sender,
 * receiver, tag, in order), at most once, and no message is received
 * before it was sent.  Sends never received are counted, not violations
 * (a program may leave a buffered send unreceived, or cancel it); so are
 * receives from a process whose data ends early (VFTR_SOURCE_PROC_INCOMPLETE:
 * a crashed rank may have sent after its data ends).
 * A backend that repairs records on the way (a .vfd capture's record that
 * did not fit its thread's stack) reports each repair: a violation too.
 *
 * Each violation is printed as one line "PROG: NAME: time T, process P:
 * what" to `out` — the first max_reports of them (0: 20), then how many
 * more.  Returns 0 or -errno (the read failed: err says why); the counts
 * say whether the trace holds (violations == 0).  Memory: the stacks and
 * the messages in flight.  No globals.
 */
#ifndef VFTR_MODEL_CHECK_H
#define VFTR_MODEL_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "source.h"

struct vftr_check_opts {
    FILE *out;                  /* violation lines; NULL: none */
    const char *prog, *name;    /* message prefix */
    unsigned max_reports;       /* 0: 20 */
};

struct vftr_check_counts {
    uint64_t events;            /* Enter, Leave, messages, collective and file operation
                                 * begins and ends */
    uint64_t processes;         /* processes with events */
    uint64_t violations;
    uint64_t unreceived;        /* sends never received */
    uint64_t unverified;        /* receives from a process whose data ends early */
};

int vftr_check_source(struct vftr_source *s, const struct vftr_check_opts *opts,
                      struct vftr_check_counts *counts, char *err, size_t errlen);

#endif /* VFTR_MODEL_CHECK_H */
