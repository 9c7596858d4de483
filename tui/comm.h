/*
 * comm.h — the data of vftr-tui's communication view, without curses: the
 * sender x receiver matrix of the visible window (messages, bytes, transfer
 * time) and the messages in flight at the cursor, both from the one model
 * of message figures, lib/model/messages.h (a receive matches the oldest
 * unmatched send of its channel; bytes are the send's).
 *
 * What the window's matrix counts: the messages sent in [t0, t1) — their
 * number and bytes — and, of those received in [t0, t1) too, the transfer
 * time (receive - send) summed; receives of messages sent before t0 are
 * counted apart (vftr_msg_counts.unmatched_recvs), as are sends received
 * after t1 (unmatched_sends).  The lines at the cursor are the messages sent
 * and received in the window with send <= cursor < receive.
 *
 * Use: tui_comm_begin() for a new window, feed every send and receive of
 * [t0, t1) in any order between processes, tui_comm_finish(); then the
 * results stay until the next begin.  Errors: 0 or -errno (-ENOMEM).
 * Ownership: the object owns what it returns.  Threads: one thread.
 */
#ifndef VFTR_TUI_COMM_H
#define VFTR_TUI_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "model/messages.h"

/* Matches kept for the lines at the cursor: beyond this many in one
 * window the lines are left out (tui_comm_flights says so). */
#define TUI_COMM_MAX_KEPT (1u << 20)

struct tui_flight {
    uint32_t sender, receiver;
    uint64_t send, recv;        /* times */
};

struct tui_comm;

struct tui_comm *tui_comm_new(void);
void tui_comm_free(struct tui_comm *c);          /* NULL-safe */

/* Forgets the last window; starts a new one, matching with the trace's
 * rank relation (vftr_messages_set_ranks: rank_of, arg borrowed; NULL:
 * the peers are exact processes). */
int tui_comm_begin(struct tui_comm *c, vftr_msgrank_fn *rank_of, void *arg);
/* A message in flight at the window start (vftr_messages_open_send): the
 * window's receive of it is not paired with the channel's next send. */
int tui_comm_open_send(struct tui_comm *c, uint64_t time, uint32_t sender, uint32_t receiver,
                       uint32_t comm, uint32_t tag, uint32_t length);
int tui_comm_send(struct tui_comm *c, uint64_t time, uint32_t sender, uint32_t receiver,
                  uint32_t comm, uint32_t tag, uint32_t length);
int tui_comm_recv(struct tui_comm *c, uint64_t time, uint32_t receiver, uint32_t sender,
                  uint32_t comm, uint32_t tag, uint32_t length);
int tui_comm_finish(struct tui_comm *c);
/* 1 between a finish and the next begin. */
int tui_comm_valid(const struct tui_comm *c);

/* After finish: the pairs sorted by (sender, receiver), the counts. */
const struct vftr_msgpair *tui_comm_pairs(const struct tui_comm *c, size_t *n);
const struct vftr_msg_counts *tui_comm_counts(const struct tui_comm *c);
/* The pair (sender, receiver), NULL if they exchanged nothing. */
const struct vftr_msgpair *tui_comm_pair(const struct tui_comm *c, uint32_t sender,
                                         uint32_t receiver);

/* The messages in flight at time t (send <= t < receive) into out (at most
 * max, earliest send first); returns how many there are in all (which may
 * be more than max), or -1 when the window had more than TUI_COMM_MAX_KEPT
 * matches (none kept). */
long tui_comm_flights(const struct tui_comm *c, uint64_t t, struct tui_flight *out, size_t max);

#endif /* VFTR_TUI_COMM_H */
