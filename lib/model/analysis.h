/*
 * analysis.h — why the time goes: the wait states of a run (Scalasca's
 * patterns, vftr's definitions in share/doc/analysis.md), its critical
 * path, and the delays that caused the waits, with their costs.
 *
 * The analysis is the second half of a two-step replay.  The first half
 * (syncpt.h) turns each process's events into sync records; this half reads
 * the records of all processes in the canonical order (syncpt.h) and
 *   - matches messages (messages.h's matcher, per channel in order) and
 *     groups collectives (the k-th collective of every member of a
 *     communicator) and OpenMP barriers (the k-th barrier of every thread
 *     of a team), and computes each wait as the pattern defines it, booked
 *     per (pattern, process, call path), clipped to the window [a, b);
 *   - follows the critical path forward: every process carries the path
 *     that leads to its present (a chain of nodes holding time per process
 *     and call path); where it waited, its chain continues the chain of the
 *     process it waited for, from the moment that one arrived.  The chain
 *     of the process that ends last (a rank's own, not a worker thread idle
 *     at the end) is the critical path.  Nodes no chain needs are freed and
 *     chains are folded where they do not branch, so memory depends on the
 *     processes and call paths, not on the length of the trace;
 *   - attributes each wait to the delays that caused it (Böhme et al.): the
 *     time the late process spent per call path since the two last
 *     synchronised, beyond what the waiting one spent on the same path
 *     (short-term costs), and the waits it suffered in that interval, whose
 *     costs flow on to their own causes (long-term costs).  Computed in the
 *     same forward pass: each wait carries the distribution of its causes.
 * The records of a trace come in time order, so everything a wait depends
 * on is known when it ends.
 *
 * Use: vftr_analysis_run() for a trace source in one thread (analysis_run.c);
 * vftr_analysis_run_par() over the ranks of a parallel job (analysis_par.c:
 * the records are made on the workers and fed here with
 * vftr_analysis_add_stream() and vftr_analysis_feed()).  A viewer gets
 * each wait as it is found through opts.on_wait, and the critical path's
 * pieces with VFTR_ANALYSIS_SEGMENTS.
 *
 * Errors: 0 / -errno (-ENOMEM; -EINVAL for records out of order or after
 * the finish).  Ownership: the analysis owns its results (valid until
 * vftr_analysis_free) and the definitions given to it.  Threads: one
 * thread at a time; no globals.
 */
#ifndef VFTR_MODEL_ANALYSIS_H
#define VFTR_MODEL_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "syncpt.h"

/* The patterns, in the order of share/doc/analysis.md. */
enum vftr_wait_pattern {
    VFTR_WAIT_LATE_SENDER = 0,
    VFTR_WAIT_LATE_SENDER_WO,      /* the part of Late Sender in wrong order */
    VFTR_WAIT_LATE_RECEIVER,
    VFTR_WAIT_BARRIER,
    VFTR_WAIT_BARRIER_COMPLETION,
    VFTR_WAIT_NXN,
    VFTR_WAIT_NXN_COMPLETION,
    VFTR_WAIT_LATE_BROADCAST,
    VFTR_WAIT_EARLY_REDUCE,
    VFTR_WAIT_EARLY_SCAN,
    VFTR_WAIT_FINALIZE,
    VFTR_WAIT_INIT_COMPLETION,
    VFTR_WAIT_OMP_BARRIER,
    VFTR_WAIT_OMP_EBARRIER,
    VFTR_WAIT_OMP_IDLE,
    VFTR_WAIT_OMP_CRITICAL,
    VFTR_WAIT_OMP_LOCK,
    VFTR_WAIT_OMP_ORDERED,
    VFTR_WAIT_COUNT
};

struct vftr_wait_pattern_info {
    const char *key;            /* "late_sender": tables, CSV, JSON */
    const char *name;           /* "Late Sender" */
    const char *help;           /* one line */
    int caused;                 /* a wait for another process (the critical path and the
                                   delays follow it); 0: completion and contention times */
};

/* The table of patterns (NULL for a value out of range). */
const struct vftr_wait_pattern_info *vftr_wait_pattern_info(unsigned pattern);

#define VFTR_ANALYSIS_WAITS     1u
#define VFTR_ANALYSIS_CRITPATH  2u
#define VFTR_ANALYSIS_DELAYS    4u
#define VFTR_ANALYSIS_SEGMENTS  8u   /* keep the critical path's pieces (memory grows with them) */

/* A standard send of at least this many bytes may wait for its receive
 * (the rendezvous protocol); smaller ones are taken as buffered (eager).
 * MPI_Ssend always waits, MPI_Bsend and MPI_Rsend never. */
#define VFTR_ANALYSIS_RENDEZVOUS 4096u

/* One wait as found (opts.on_wait): the waiting process and its call path
 * (this analysis's path ids), the wait [start, end) inside the window, and
 * the process waited for and when it arrived (cause 0: none known). */
struct vftr_wait_instance {
    unsigned pattern;
    uint32_t process, path;
    uint64_t start, end;
    uint32_t cause;
    uint64_t cause_time;
};
typedef void vftr_wait_fn(void *arg, const struct vftr_wait_instance *w);

struct vftr_analysis_opts {
    uint64_t a, b;              /* the window; 0, UINT64_MAX: all */
    unsigned what;              /* VFTR_ANALYSIS_*; waits are always found */
    uint64_t rendezvous;        /* 0: VFTR_ANALYSIS_RENDEZVOUS */
    vftr_wait_fn *on_wait;      /* may be NULL */
    void *arg;
};

/* Results. */
struct vftr_wait_row {
    unsigned pattern;
    uint32_t process, path;
    uint64_t time;              /* ticks, inside the window */
    uint64_t count;             /* instances with a wait inside the window */
    uint64_t max;               /* the largest instance */
};

struct vftr_cp_row {            /* time of one process on one call path on the critical path */
    uint32_t process, path;
    uint64_t time;
};

struct vftr_cp_segment {        /* VFTR_ANALYSIS_SEGMENTS: the path, piece by piece, in time order */
    uint32_t process;
    uint64_t start, end;
};

struct vftr_delay_row {         /* what a call path of a process cost others in waits */
    unsigned pattern;           /* the kind of wait it caused */
    uint32_t process, path;
    double short_term, long_term;   /* ticks */
};

struct vftr_analysis_path {     /* a call path: ids from 1, parent 0 for a root */
    uint32_t parent, function, depth;
};

struct vftr_analysis_summary {
    uint64_t records;           /* sync records read */
    uint64_t cp_length;         /* ticks on the critical path (inside the window) */
    uint64_t cp_start, cp_end;  /* where it begins and ends */
    uint32_t cp_end_process;
    uint64_t nprocs;            /* processes with events */
    uint64_t proc_time;         /* their time inside the window, summed */
    /* what did not fit: receives found before their send (their wait runs
     * to the receive; no delay is attributed), messages left unmatched,
     * collectives and barriers some member never finished */
    uint64_t early_recvs, unmatched_sends, unmatched_recvs, incomplete_colls;
    uint64_t delay_unexplained; /* waits whose late side shows no delay and no wait */
    uint32_t ranks;             /* vftr_analysis_run_par: the ranks that each analysed
                                   their own processes (0: one analysis saw all records) */
};

struct vftr_analysis;

/*
 * A new analysis.  It takes the definitions over (*defs is emptied) and
 * copies opts.  NULL + errno.
 */
struct vftr_analysis *vftr_analysis_new(struct vftr_syncdefs *defs,
                                        const struct vftr_analysis_opts *opts);
void vftr_analysis_free(struct vftr_analysis *a);     /* NULL-safe */

/* The definitions (for extractors made for this analysis). */
const struct vftr_syncdefs *vftr_analysis_defs(const struct vftr_analysis *a);

/* Stream `stream`'s path numbering: def answers (parent, function) for its
 * local path ids.  def and arg must stay valid until the finish.  0,
 * -EINVAL (stream taken), -ENOMEM. */
int vftr_analysis_add_stream(struct vftr_analysis *a, uint16_t stream, vftr_syncpath_fn *def,
                             void *arg);

/* One record, in the canonical order (a vftr_syncrec_fn with a as arg).
 * -EINVAL for a record it cannot take (out of order, an unknown stream or
 * path, after the finish): vftr_analysis_why() says which. */
int vftr_analysis_feed(void *a, const struct vftr_syncrec *r);

/* What the latest refused record was and why, as one lower-case line
 * ("" if none); borrowed until the next feed or the free. */
const char *vftr_analysis_why(const struct vftr_analysis *a);

/* After the last record: the critical path, the unfinished leftovers. */
int vftr_analysis_finish(struct vftr_analysis *a);

/* Results after the finish; rows in no particular order (sort them). */
const struct vftr_wait_row *vftr_analysis_waits(const struct vftr_analysis *a, size_t *n);

/*
 * The wait rows as vftr-stats --waits and the report show them
 * (waittable.c): the rows of the processes sel takes (NULL: all), with
 * fold each process replaced by its rank's process (vftr_source_rank_process:
 * the threads folded into their rank), rows of one (pattern, process, path)
 * merged — times and counts summed, max the largest — in (pattern, process,
 * path) order.  *rows is the caller's to free(); *total is the time of all
 * rows but Late Sender / wrong order's (a part of Late Sender).  0 or
 * -ENOMEM.
 */
struct vftr_source;
struct vftr_proclist;
int vftr_analysis_wait_table(const struct vftr_analysis *a, struct vftr_source *src,
                             const struct vftr_proclist *sel, int fold,
                             struct vftr_wait_row **rows, size_t *n, uint64_t *total);

/*
 * The name of call path `path` of paths[0..npaths) (ids from 1) as the
 * tools show it: "function<caller<...<root", each function named by
 * fname(arg, token); path 0 (or out of range) is VFTR_ANALYSIS_NO_CALL.
 * A malloc'd string for the caller to free(); NULL when out of memory or
 * fname returned NULL (errno ENOMEM or EINVAL).
 */
#define VFTR_ANALYSIS_NO_CALL "(outside calls)"
char *vftr_analysis_path_name(const struct vftr_analysis_path *paths, size_t npaths,
                              uint32_t path, const char *(*fname)(void *arg, uint32_t function),
                              void *arg);
const struct vftr_cp_row *vftr_analysis_critpath(const struct vftr_analysis *a, size_t *n);
const struct vftr_cp_segment *vftr_analysis_segments(const struct vftr_analysis *a, size_t *n);
const struct vftr_delay_row *vftr_analysis_delays(const struct vftr_analysis *a, size_t *n);
const struct vftr_analysis_path *vftr_analysis_paths(const struct vftr_analysis *a, size_t *n);
const struct vftr_analysis_summary *vftr_analysis_summary(const struct vftr_analysis *a);

/*
 * Non-waiting time of call path `path`, summed over the processes: its
 * exclusive time inside the window less the waits booked on it (known
 * with VFTR_ANALYSIS_CRITPATH or _DELAYS; 0 otherwise).  The critical-path
 * imbalance of a call path is vftr_cp_imbalance(cp time, busy / nprocs).
 */
uint64_t vftr_analysis_busy(const struct vftr_analysis *a, uint32_t path);

/* Scalasca's critical-path imbalance: the time on the critical path beyond
 * the average over the processes, max(0, cp - avg). */
double vftr_cp_imbalance(double cp, double avg);

/*
 * The whole analysis of a trace source in this thread: reads its events
 * from the start (a wait depends on the partners and on the collectives
 * before the window) to opts->b, and on until the calls open at b are over
 * (a wait under way at b is known at its end; not with the critical path,
 * which is the path up to b), and analyses them.  *out (free with
 * vftr_analysis_free) or -errno with err filled.
 */
struct vftr_source;
int vftr_analysis_run(struct vftr_source *s, const struct vftr_analysis_opts *opts,
                      struct vftr_analysis **out, char *err, size_t errlen);

/*
 * The same over the ranks of a parallel job (analysis_par.c): every rank
 * reads a share of the processes (a rank with its threads) and makes their
 * sync records.  The waits alone (opts->what VFTR_ANALYSIS_WAITS, no
 * on_wait) with a transport that has alltoall: every rank analyses its own
 * processes, given the records of other ranks' processes they depend on
 * (their messages with them, the collectives they share, MPI_Init and
 * MPI_Finalize), exchanged in rounds; the tables are summed on rank 0.
 * Otherwise (and to tell a refused record as the serial run does) rank 0
 * merges all records in the canonical order and analyses them (rank 0's
 * share made in a thread of its own, which calls nothing of the
 * transport).  Either way rank 0's result prints as vftr_analysis_run's.  Every rank calls it with the
 * same source and opts; *out is the analysis on rank 0, NULL on the others.
 * The transport moves byte messages between rank 0 and a worker (MPI in
 * vftr-stats-mpi): send copies the message or keeps it until the receiver
 * took it, and may return before that, but it keeps a bounded number of
 * messages in flight (so memory stays bounded); recv gives the next message
 * from `from` in order (*msg to free()).  Both return 0 or -errno, and are
 * called from the calling thread only.  size <= 1 is vftr_analysis_run.  An
 * error leaves the other ranks waiting: the caller ends the job (MPI_Abort).
 */
struct vftr_analysis_transport {
    int rank, size;
    int (*send)(void *ctx, int to, int tag, const void *msg, size_t len);
    int (*recv)(void *ctx, int from, int *tag, void **msg, size_t *len);
    void *ctx;
    /* Optional (NULL: none): moves the messages in flight on without
     * waiting, for a transport whose sends advance only inside its calls
     * (MPI without a single-copy mechanism): a worker calls it every few
     * thousand records it makes.  0 or -errno. */
    int (*poll)(void *ctx);
    /* Optional (NULL: --waits too is merged on rank 0): every rank sends
     * out[p] (outlen[p] bytes) to rank p and gets what every rank sent it,
     * in rank order, in *in (malloc'ed, *inlen bytes, the caller frees);
     * collective: called by every rank alike, 0 or -errno on every rank
     * alike.  With it, --waits is analysed by every rank for its own
     * processes (analysis_par.c, "distributed"). */
    int (*alltoall)(void *ctx, const void *const *out, const size_t *outlen, void **in,
                    size_t *inlen);
};
int vftr_analysis_run_par(struct vftr_source *s, const struct vftr_analysis_opts *opts,
                          const struct vftr_analysis_transport *t, struct vftr_analysis **out,
                          char *err, size_t errlen);

/* The definitions of a source as the analysis needs them.  0, -ENOMEM. */
int vftr_syncdefs_from_source(struct vftr_syncdefs *d, const struct vftr_source *s);

#endif /* VFTR_MODEL_ANALYSIS_H */
