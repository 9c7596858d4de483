/*
 * messages.h — point-to-point message matching and collective-operation
 * statistics: the communication half of the trace model.  Like the replay
 * (replay.h) it reads no file: a tool's handlers feed it the send, receive
 * and collective records, then call vftr_messages_finish() once.
 *
 * Matching: a receive matches the oldest unmatched send with the same
 * sender, receiver, communicator and tag (MPI's non-overtaking rule: FIFO
 * per channel); messages of other tags or communicators between the same
 * processes do not disturb each other.  Records may come in any order
 * between processes (a merged OTF stream is sorted by time, and a receive
 * may even be read before its send): a receive that finds no send waits,
 * and the next send of its channel matches it.  What is left at the finish
 * is counted as unmatched (sends whose receive lies outside the window or
 * was never recorded, and the reverse).  Byte counts are taken from the
 * send; a receive's length is only used for receive-only traffic.
 *
 * Ranks and threads: MPI matches messages between ranks, not threads, and
 * most writers name the other side of a record only by its rank: an OTF2
 * MpiSend names a rank of the communicator, VampirTrace a rank's process,
 * so a message a thread sent reads "rank 0's process to rank 1's process"
 * on one side and "thread 1 of rank 0 to rank 1's process" on the other.
 * Given the relation of processes to ranks (vftr_messages_set_ranks), the
 * channel is MPI's — (sender's rank, receiver's rank, communicator, tag),
 * FIFO — and a record's named peer is a constraint on its partner: a
 * rank's own process stands for any process of that rank, a thread for
 * that thread alone (only a writer that knows it names a thread: vftr's
 * .vfd conversion, whose peers are exact).  A receive then matches the
 * oldest send of its channel that it and the send admit.  Without the
 * relation every process is a rank of its own: the peer is the exact
 * process, as vftr's .vfd runs give it (vftr_source_peer_ranks, source.h,
 * says which a trace needs).  Either way the matched message names the
 * processes that really sent and received it: the send's own process and
 * the receive's own process.
 *
 * The pairs (the matrix): a matched message counts for (its sender, its
 * receiver) as above, an unmatched send for (its process, the receiver it
 * names), an unmatched receive for (the sender it names, its process).
 *
 * Collectives: a CollectiveOperation record (one process's part of one
 * operation, with its duration) counts once for its operation; so does a
 * Begin/EndCollectiveOperation pair of one process, matched by (process,
 * matching id), its time being end − begin.  Bytes are sent + received.
 * A begin without end (or an end without begin) is counted, not used; a
 * second begin of the same (process, matching id) before its end makes the
 * first one unmatched.
 *
 * Functions return 0 or -errno (-ENOMEM; -EINVAL after finish).  Ownership:
 * the object owns everything it returns; pointers stay valid until the next
 * call that modifies it.  Threads: one thread at a time per object; no
 * globals.
 */
#ifndef VFTR_MODEL_MESSAGES_H
#define VFTR_MODEL_MESSAGES_H

#include <stddef.h>
#include <stdint.h>

/* One matched message, as handed to the match callback. */
struct vftr_msgmatch {
    uint32_t sender, receiver, comm, tag;
    uint64_t send_time, recv_time;
    uint64_t bytes;            /* the send's length */
    uint64_t send_cookie, recv_cookie;   /* the callers' (vftr_messages_*_cookie), else 0 */
};

/* Traffic from one process to another (one cell of the matrix). */
struct vftr_msgpair {
    uint32_t sender, receiver;
    uint64_t messages;         /* sends */
    uint64_t bytes;            /* bytes of those sends */
    uint64_t matched;          /* sends that found their receive */
    uint64_t recvs_only;       /* receives that found no send */
    uint64_t transfer;         /* ticks: sum of recv_time - send_time over matched */
};

/* One collective operation (OTF collective token), over all processes. */
struct vftr_collstat {
    uint32_t op;
    uint64_t count;            /* per-process operations */
    uint64_t bytes;            /* sent + received */
    uint64_t time;             /* ticks: durations, or end - begin */
};

struct vftr_msg_counts {
    uint64_t sends, recvs, matched;
    uint64_t open_sends;       /* in flight at the window start (vftr_messages_open_send) */
    uint64_t recvs_open;       /* receives that completed one of those */
    uint64_t unmatched_sends, unmatched_recvs;     /* known after finish */
    uint64_t collops;                              /* collective operations counted */
    uint64_t unmatched_begins, unmatched_ends;     /* begins known after finish */
};

typedef void vftr_msgmatch_fn(void *arg, const struct vftr_msgmatch *m);

struct vftr_messages;

/*
 * A new, empty matcher.  on_match (may be NULL) is called with arg for every
 * match, in the order matches are made.  NULL + errno (ENOMEM).
 */
struct vftr_messages *vftr_messages_new(vftr_msgmatch_fn *on_match, void *arg);
void vftr_messages_free(struct vftr_messages *m);     /* NULL-safe */

/*
 * The rank of a process, as the token of the rank's own process (a rank's
 * process gives itself; a thread its rank's process).  The type of
 * vftr_source_rank_process (source.h) and vftr_procmap_fn (summary.h).
 */
typedef uint32_t vftr_msgrank_fn(void *arg, uint32_t process);

/*
 * Match on ranks (see "Ranks and threads" above): rank_of (with arg,
 * borrowed: it must outlive the matcher; NULL: every process is its own
 * rank, the default) is asked for the rank of every record's processes.
 * Call it before the first record: -EINVAL afterwards.
 */
int vftr_messages_set_ranks(struct vftr_messages *m, vftr_msgrank_fn *rank_of, void *arg);

/*
 * The rule itself, for a reader that pairs messages of its own (the
 * messages in flight at a window start, winstate.h): does a record that
 * names `named` as its other side admit `actual` there?  The same process
 * always; with rank_of (NULL: exact processes) a rank's own process admits
 * every process of that rank.
 */
static inline int vftr_messages_admits(vftr_msgrank_fn *rank_of, void *arg, uint32_t named,
                                       uint32_t actual)
{
    uint32_t r;

    return named == actual ||
           (rank_of && (r = rank_of(arg, named)) == named && rank_of(arg, actual) == r);
}

int vftr_messages_send(struct vftr_messages *m, uint64_t time, uint32_t sender, uint32_t receiver,
                       uint32_t comm, uint32_t tag, uint64_t bytes);
int vftr_messages_recv(struct vftr_messages *m, uint64_t time, uint32_t receiver, uint32_t sender,
                       uint32_t comm, uint32_t tag, uint64_t bytes);

/* The same, with a value of the caller's that the match callback gets
 * back with the message (the wait analysis keys what it knows of each side
 * by it, analysis.h): matching is the same as above. */
int vftr_messages_send_cookie(struct vftr_messages *m, uint64_t time, uint32_t sender,
                              uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes,
                              uint64_t cookie);
int vftr_messages_recv_cookie(struct vftr_messages *m, uint64_t time, uint32_t receiver,
                              uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes,
                              uint64_t cookie);

/*
 * A message sent before the window and not received before its start (a
 * window reader's open_message, window.h): it is not a send of the window
 * (not counted in sends, pairs or bytes, and not unmatched if its receive
 * lies after the window), but it stands first in its channel's queue, so
 * that the window's receive of it completes it instead of taking the next
 * send of the channel — which would pair the wrong messages and leave the
 * right receive unmatched.  Feed all of them before the window's records;
 * a receive completing one counts in recvs and recvs_open, not in matched,
 * and on_match is not called for it.
 */
int vftr_messages_open_send(struct vftr_messages *m, uint64_t time, uint32_t sender,
                            uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes);

/* A complete collective operation of one process (OTF CollectiveOperation). */
int vftr_messages_collop(struct vftr_messages *m, uint32_t process, uint32_t op, uint64_t sent,
                         uint64_t received, uint64_t duration);
/* Begin/EndCollectiveOperation of one process. */
int vftr_messages_coll_begin(struct vftr_messages *m, uint64_t time, uint32_t process, uint32_t op,
                             uint64_t matching_id, uint64_t sent, uint64_t received);
int vftr_messages_coll_end(struct vftr_messages *m, uint64_t time, uint32_t process,
                           uint64_t matching_id);

/* Counts what is left unmatched and sorts the results; afterwards the
 * feeding functions return -EINVAL. */
int vftr_messages_finish(struct vftr_messages *m);

/* Results, after finish: pairs sorted by (sender, receiver), collectives by op. */
const struct vftr_msgpair *vftr_messages_pairs(const struct vftr_messages *m, size_t *n);
const struct vftr_collstat *vftr_messages_collectives(const struct vftr_messages *m, size_t *n);
const struct vftr_msg_counts *vftr_messages_counts(const struct vftr_messages *m);

#endif /* VFTR_MODEL_MESSAGES_H */
