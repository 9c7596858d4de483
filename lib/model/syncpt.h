/*
 * syncpt.h — synchronisation points: the first half of the wait analysis
 * (analysis.h).  Each process's events are replayed on their own (its call
 * stack, replay.h) and turned into a short stream of sync records: the
 * points where it may have waited for another process or thread, or made
 * one wait — its messages and collectives with the MPI call they happened
 * in, the MPI and OpenMP calls around them that matter (a blocking receive,
 * MPI_Finalize, a barrier, a parallel region, a lock wait), its first and
 * its last event — and, between two records, the time it spent per call
 * path (its "segment").  Everything a record says comes from its own
 * process's events, so the records of any set of processes can be made
 * anywhere: one thread for the whole trace, or each MPI rank of a parallel
 * analysis for its share (the second half then merges the streams).
 *
 * Order.  Every record carries an order time, the time of the event that
 * produced it, and a sequence number within its process.  The canonical
 * order of records is (order time, process token, sequence): the sorter
 * (struct vftr_syncsort) puts one stream into it, and merging canonical
 * streams by the same key gives the canonical order of their union, so the
 * analysis sees the same sequence whatever way the processes were split.
 *
 * Call paths.  Records name call paths by the path ids of the extractor's
 * own replay (vftr_syncx_pathdef), stamped with the extractor's stream
 * number; the analysis translates them into its own numbering.
 *
 * Function classes.  Which calls matter is decided by name, by one table
 * (syncpt.c): MPI functions by their C names ("MPI_Recv"), the collective
 * operations by lib/vfd's names, OpenMP regions by vftr's names of them
 * ("omp barrier @heat.c:12", lib/vfd's kinds).
 *
 * Errors: 0 / -errno (-ENOMEM; a callback's non-zero value is passed on).
 * Ownership: the definitions own copies of what they are given; a record
 * handed to a callback is borrowed for the call.  Threads: one thread at a
 * time per object; no globals.
 */
#ifndef VFTR_MODEL_SYNCPT_H
#define VFTR_MODEL_SYNCPT_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"
#include "tally.h"
#include "u64map.h"
#include "window.h"

/* ------------------------------------------------------------ definitions */

/* What a function is to the analysis. */
enum vftr_sync_fclass {
    VFTR_SYNC_F_NONE = 0,       /* user code, anything unknown */
    VFTR_SYNC_F_MPI,            /* an MPI function without a role below */
    VFTR_SYNC_F_MPI_SEND,       /* MPI_Send: may wait for its receive (large messages) */
    VFTR_SYNC_F_MPI_SSEND,      /* MPI_Ssend: waits for its receive */
    VFTR_SYNC_F_MPI_XSEND,      /* MPI_Bsend, MPI_Rsend: never wait for the receive */
    VFTR_SYNC_F_MPI_RECV,       /* MPI_Recv */
    VFTR_SYNC_F_MPI_SENDRECV,   /* MPI_Sendrecv(_replace) */
    VFTR_SYNC_F_MPI_WAIT,       /* MPI_Wait, _Waitall, _Waitany, _Waitsome */
    VFTR_SYNC_F_MPI_TEST,       /* MPI_Test and its kin: never block */
    VFTR_SYNC_F_MPI_COLL,       /* a blocking collective */
    VFTR_SYNC_F_MPI_ICOLL,      /* the start of a nonblocking one */
    VFTR_SYNC_F_MPI_INIT,       /* MPI_Init, MPI_Init_thread */
    VFTR_SYNC_F_MPI_FINALIZE,
    VFTR_SYNC_F_OMP_PARALLEL,   /* "omp parallel": the encountering thread's region, or a
                                 * worker's share of it (a root of the worker's paths) */
    VFTR_SYNC_F_OMP_ITASK,      /* "omp implicit task" */
    VFTR_SYNC_F_OMP_BARRIER,    /* "omp barrier": implicit */
    VFTR_SYNC_F_OMP_EBARRIER,   /* "omp barrier (explicit)" */
    VFTR_SYNC_F_OMP_CRITICAL_WAIT,
    VFTR_SYNC_F_OMP_LOCK_WAIT,
    VFTR_SYNC_F_OMP_ORDERED_WAIT,
    VFTR_SYNC_F_OMP_CRITICAL,   /* held */
    VFTR_SYNC_F_OMP_LOCK,
    VFTR_SYNC_F_OMP_ORDERED,
    VFTR_SYNC_F_OMP_IDLE,       /* "omp idle": a worker waiting for work between regions */
    VFTR_SYNC_F_OMP,            /* other OpenMP regions */
    VFTR_SYNC_F_COUNT
};

/* Collective operations by what they synchronise (Scalasca's classes). */
enum vftr_sync_oclass {
    VFTR_SYNC_O_OTHER = 0,      /* unknown, or MPI_Alltoallv/w (not every pair talks) */
    VFTR_SYNC_O_BARRIER,        /* MPI_Barrier */
    VFTR_SYNC_O_NXN,            /* Allreduce, Allgather(v), Alltoall, Reduce_scatter(_block) */
    VFTR_SYNC_O_1TON,           /* Bcast, Scatter(v): from the root */
    VFTR_SYNC_O_NTO1,           /* Reduce, Gather(v): to the root */
    VFTR_SYNC_O_SCAN,           /* Scan, Exscan: from the lower ranks */
};

/* The classification of a trace's definitions, made once and read by both
 * halves of the analysis (on every rank of a parallel one alike). */
struct vftr_syncdefs {
    uint8_t *fdirect;           /* function token < nfdirect -> class */
    size_t nfdirect;
    struct vftr_u64map fmap;    /* larger tokens -> index into fbig */
    uint8_t *fbig;
    size_t nfbig, capfbig;
    struct vftr_u64map omap;    /* collective op token -> index into oclass */
    uint8_t *oclass;
    size_t noclass, capoclass;
    struct vftr_syncdefs_proc {
        uint32_t token, rankproc;   /* rankproc: the process of its rank (its own for a rank) */
        uint32_t rank, thread;
    } *procs;                   /* in order of definition */
    size_t nprocs, capprocs;
    struct vftr_u64map pmap;    /* token -> index */
    struct vftr_syncdefs_comm {
        uint32_t token, n;
        uint32_t *procs;        /* members' processes, in communicator rank order */
    } *comms;
    size_t ncomms, capcomms;
    struct vftr_u64map cmap;    /* token -> index */
    /* the messages' peers may name only a rank (vftr_source_peer_ranks):
     * the analysis matches them on ranks (vftr_messages_set_ranks) */
    int peer_ranks;
};

#define VFTR_SYNCDEFS_INIT { 0 }

/* Definitions: functions by name, collective operations by name
 * ("MPI_Allreduce"), processes with their rank's process, communicators
 * with their members.  A token given twice keeps the last.  0, -ENOMEM. */
int vftr_syncdefs_add_func(struct vftr_syncdefs *d, uint32_t token, const char *name);
int vftr_syncdefs_add_collop(struct vftr_syncdefs *d, uint32_t token, const char *name);
int vftr_syncdefs_add_proc(struct vftr_syncdefs *d, uint32_t token, uint32_t rankproc,
                           uint32_t rank, uint32_t thread);
int vftr_syncdefs_add_comm(struct vftr_syncdefs *d, uint32_t token, uint32_t n,
                           const uint32_t *procs);
void vftr_syncdefs_release(struct vftr_syncdefs *d);

/* The class of a function (VFTR_SYNC_F_NONE for one never defined), of a
 * name (the table), and of a collective operation (by token, or by the
 * name of the MPI call it happened in when the token is unknown). */
enum vftr_sync_fclass vftr_syncdefs_fclass(const struct vftr_syncdefs *d, uint32_t function);
enum vftr_sync_fclass vftr_sync_fclass_of_name(const char *name);
enum vftr_sync_oclass vftr_syncdefs_oclass(const struct vftr_syncdefs *d, uint32_t op);
enum vftr_sync_oclass vftr_sync_oclass_of_name(const char *name);
/* Is the class one of MPI's (VFTR_SYNC_F_MPI .. _FINALIZE)? */
int vftr_sync_fclass_mpi(enum vftr_sync_fclass c);

const struct vftr_syncdefs_proc *vftr_syncdefs_proc(const struct vftr_syncdefs *d,
                                                    uint32_t token);
const struct vftr_syncdefs_comm *vftr_syncdefs_comm(const struct vftr_syncdefs *d,
                                                    uint32_t token);

/* ------------------------------------------------------------ records */

enum vftr_sync_kind {
    VFTR_SYNC_PROC_BEGIN = 1,   /* the process's first event (t2 = its time) */
    VFTR_SYNC_CALL_BEGIN,       /* a call that matters began (function, path, enter) */
    VFTR_SYNC_CALL_END,         /* ... ended (t2 = its exit) */
    VFTR_SYNC_SEND,             /* a message sent: t2 the record's time, peer the receiver */
    VFTR_SYNC_RECV,             /* received (completed): peer the sender */
    VFTR_SYNC_COLL_BEGIN,       /* this process's part of a collective began */
    VFTR_SYNC_COLL_END,         /* ... ended (t2 = its completion) */
    VFTR_SYNC_PROC_END,         /* the end of the process's events (t2), at the reading's end;
                                   path: its outermost call then, or the last one that ended */
};

/* Time a process spent on one call path (exclusive) during a segment. */
struct vftr_syncseg {
    uint32_t path;              /* 0: no call on the stack */
    uint64_t ticks;
};

struct vftr_syncrec {
    uint64_t time;              /* order time (see above) */
    uint64_t seq;               /* within the process, from 0 */
    uint32_t process;
    uint16_t kind;              /* enum vftr_sync_kind */
    uint16_t stream;            /* the extractor's stream number */
    /* the call: for CALL_* the call itself; for SEND, RECV and COLL_* the
     * innermost MPI call around the event (function 0 when there is none:
     * enter is then the event's time) */
    uint32_t function, path;
    uint64_t enter;
    uint64_t t2;                /* see the kinds */
    uint32_t top;               /* the path on top of the stack at the record */
    /* SEND / RECV / COLL_BEGIN */
    uint32_t peer, comm, tag, op, root;   /* root: the root's process, 0 for none */
    uint64_t bytes, received;   /* SEND/RECV: length; COLL_BEGIN: sent, received */
    uint64_t match;             /* COLL_*: pairs a begin with its end in the process */
    /* the time the process spent per call path since its previous record
     * (only with vftr_syncx_opts.segments) */
    const struct vftr_syncseg *seg;
    uint32_t nseg;
};

typedef int vftr_syncrec_fn(void *arg, const struct vftr_syncrec *r);

/* The canonical order: <0, 0, >0. */
int vftr_syncrec_cmp(const struct vftr_syncrec *a, const struct vftr_syncrec *b);

/* ------------------------------------------------------------ extractor */

struct vftr_syncx_opts {
    uint64_t a, b;              /* the window: segments count only time in [a, b) */
    int segments;               /* fill vftr_syncrec.seg */
    /* read on past b until the calls a process may wait in (MPI calls,
     * OpenMP barriers and lock waits) that are open at b have ended: a
     * wait under way at b is known only at its end.  The handler then
     * returns VFTR_SYNCX_DONE, a positive value that ends the read. */
    int lookahead;
    uint16_t stream;
    vftr_syncrec_fn *emit;      /* each record, in each process's order */
    void *arg;
};

struct vftr_syncx;

/*
 * An extractor over the definitions d (borrowed: must outlive it).  Feed it
 * the events of [0, b) (a window read with VFTR_SOURCE_EVENTS_ONLY from the
 * trace start: enter, leave, send, recv, collop, coll_begin, coll_end) of
 * any set of processes, each process's in its time order, through
 * vftr_syncx_handler() — with lookahead, the events from 0 on until the
 * handler says VFTR_SYNCX_DONE (or the trace ends) — then
 * vftr_syncx_finish() once.  A process's end is b if it was inside a call
 * at b, else its last event before b.  NULL + errno.
 */
struct vftr_syncx *vftr_syncx_new(const struct vftr_syncdefs *d, const struct vftr_syncx_opts *o);
void vftr_syncx_free(struct vftr_syncx *x);      /* NULL-safe */

#define VFTR_SYNCX_DONE 1

/* The handler to read events into (its arg is x; borrowed). */
const struct vftr_window_handler *vftr_syncx_handler(struct vftr_syncx *x);

/* Emits PROC_END for every process seen (order time: the latest end).
 * Afterwards the handler returns -EINVAL. */
int vftr_syncx_finish(struct vftr_syncx *x);

/* For extractors that share a trace (a parallel analysis): the latest end
 * of this one's processes, and the finish with the order time of the
 * finishing records given — the latest end over all extractors, so that
 * the union of their streams is in the order one extractor would give. */
uint64_t vftr_syncx_last(const struct vftr_syncx *x);
int vftr_syncx_finish_at(struct vftr_syncx *x, uint64_t last);
/* Emits the records held back for the events to come, after the last event
 * (before the finish, which would emit them first): 0 or emit's value. */
int vftr_syncx_release(struct vftr_syncx *x);

/* Path `local` of the extractor's numbering: its parent path (0: a root)
 * and function.  0, or -ENOENT.  A vftr_syncpath_fn with x as argument. */
int vftr_syncx_pathdef(void *x, uint32_t local, uint32_t *parent, uint32_t *function);
typedef int vftr_syncpath_fn(void *arg, uint32_t local, uint32_t *parent, uint32_t *function);

/* Events read (enter, leave and the MPI records), records emitted. */
void vftr_syncx_counts(const struct vftr_syncx *x, uint64_t *events, uint64_t *records);

/* ------------------------------------------------------------ sorter */

/*
 * Puts a stream of records that is in non-decreasing order time (each
 * process's records in its order) into the canonical order: records of one
 * order time are held, sorted and handed on when the time moves on (or at
 * vftr_syncsort_flush).  It copies what it holds.  NULL + errno.
 */
struct vftr_syncsort;
struct vftr_syncsort *vftr_syncsort_new(vftr_syncrec_fn *out, void *arg);
void vftr_syncsort_free(struct vftr_syncsort *s);
int vftr_syncsort_push(void *s, const struct vftr_syncrec *r);   /* a vftr_syncrec_fn */
int vftr_syncsort_flush(struct vftr_syncsort *s);

#endif /* VFTR_MODEL_SYNCPT_H */
