/*
 * vfdconv.h — the conversion engine behind vfd2otf: a run's .vfd files (one
 * per rank) turned into one time-ordered stream of trace events per set of
 * ranks, with global definitions, matched messages and aligned clocks.  It
 * writes nothing: a consumer (struct vftr_vfdconv_consumer) receives the
 * events; vfd2otf's consumer writes OTF, another one (vftr-snap's engine)
 * can be plugged in the same way.
 *
 * Two phases:
 *  1. vftr_vfdconv_open() reads every file once: headers, run ids, ranks,
 *     definitions (functions, call paths, threads, communicators, OpenMP
 *     regions, clock offsets); it counts the MPI records and notes per
 *     events chunk their earliest start, then matches the messages
 *     (communicator, sender, receiver, tag, in posting order) in one
 *     streaming pass over the files' MPI records, keeping only the matched
 *     peers that are not the peer rank's main thread.  Neither Enter/Leave
 *     nor MPI records are kept: memory grows with the number of threads,
 *     definitions and event chunks, not with the number of calls, messages
 *     or collectives (except messages whose other side is not the peer's
 *     main thread, MPI_THREAD_MULTIPLE programs: 16 bytes each).
 *     Files may be read by several threads (opts.jobs) or shared out among
 *     processes (opts.share); the result, numbering and warnings included,
 *     is that of one serial read in the order the files were given.
 *  2. vftr_vfdconv_replay() streams the events of some ranks (all threads
 *     of each), merged into one time order, to a consumer.  Each call reads
 *     the files again with its own readers (two mappings per file: the
 *     events, and a look-ahead that places sends and collective begins at
 *     their start), so calls for disjoint ranks may run in parallel
 *     threads.  Each thread's chunks are read from a position of its own,
 *     so memory does not depend on how the threads' chunks interleave in a
 *     file either (an idle thread holds nothing of the others' events).
 *
 * Tokens (OTF's numbering, documented in share/doc/vfd2otf.md):
 *   process of rank r, thread t:  (t << 20) + r + 1   (t = 0: the rank itself)
 *   function groups: 1 user code, 2 MPI, 3 OpenMP
 *   process groups: 1 MPI_COMM_WORLD, then the other communicators
 *   collective operations: enum vftr_vfd_coll_op
 *   files: 1, 2, ... per (name, interface) in order of first sight; file
 *   groups: the interfaces (enum vftr_vfd_io_iface)
 * Times are nanoseconds since the earliest start of any rank, on rank 0's
 * clock (each rank's clock is mapped through the offsets measured at
 * MPI_Init and MPI_Finalize, linear in between).
 *
 * Errors: 0 / -errno, with a message "FILE: offset N: ..." in err.
 * Ownership: the engine owns all definitions it returns (valid until
 * vftr_vfdconv_free).  Threads: after open, the object is read-only and
 * replay() may be called from several threads at once.  Warnings go to the
 * FILE given in the options (NULL: none); no globals.
 */
#ifndef VFTR_MODEL_VFDCONV_H
#define VFTR_MODEL_VFDCONV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VFTR_VFDCONV_MAX_RANKS   (1u << 20)
#define VFTR_VFDCONV_MAX_THREADS (1u << 11)

/* Process token of thread t of rank r (see above). */
static inline uint32_t vftr_vfdconv_process(uint32_t rank, uint32_t thread)
{
    return (thread << 20) + rank + 1;
}

enum vftr_vfdconv_fgroup {
    VFTR_VFDCONV_GROUP_USER = 1,
    VFTR_VFDCONV_GROUP_MPI = 2,
    VFTR_VFDCONV_GROUP_OMP = 3,
    VFTR_VFDCONV_GROUP_SAMPLED = 4, /* frames of statistical samples (VFTR_VFD_FUNC_SAMPLED) */
};

/* The name of VFTR_VFDCONV_GROUP_SAMPLED: the function group by which
 * every tool knows (also in a converted OTF or OTF2 trace) that a call
 * path's figures are statistical (samples, samples x interval). */
#define VFTR_VFDCONV_SAMPLED_GROUP_NAME "sampled (statistical)"

enum vftr_vfdconv_type {
    VFTR_VFDCONV_ENTER = 1,
    VFTR_VFDCONV_LEAVE,
    VFTR_VFDCONV_SEND,          /* at the send's start */
    VFTR_VFDCONV_RECV,          /* at the receive's completion */
    VFTR_VFDCONV_COLL_BEGIN,    /* at the collective's start */
    VFTR_VFDCONV_COLL_END,      /* at its completion */
    VFTR_VFDCONV_BEGIN_PROCESS,
    VFTR_VFDCONV_END_PROCESS,
    VFTR_VFDCONV_FILE_BEGIN,    /* a file operation, at its start */
    VFTR_VFDCONV_FILE_END,      /* ... and at its completion */
    VFTR_VFDCONV_COUNTER,       /* op: counter token, bytes: its value (vftr_vfdconv_counters) */
    VFTR_VFDCONV_RMA_PUT,       /* one-sided data to peer (the target): bytes, group, tag */
    VFTR_VFDCONV_RMA_GET,       /* one-sided data from peer into this process's memory */
    VFTR_VFDCONV_RMA_END,       /* the end of a transfer begun (peer, group, tag) */
};
/* RMA_PUT / RMA_GET come from one MPI_RMA record of the .vfd, at its time
 * (the return of the call that started the transfer): a PUT for what the
 * call sent (put and accumulate always, the others when they sent bytes),
 * a GET for what it received (get always, the others when they received
 * bytes).  Each gets an END at the MPI_RMA_SYNC record that completes it
 * (the fence, complete, unlock, flush or wait: vftr_vfd_ext.h), on the
 * thread of that record, whichever thread of the rank began the transfer
 * (MPI completes the process's transfers on the window), in the order the
 * transfers began; or, when none does, at the end of the rank's last
 * thread.  A record without VFTR_VFD_RMA_ENDS_AT_SYNC (an older capture) is
 * ended at once.  group is the window's communicator, tag a number of the
 * window (its id hashed to 32 bits: equal on all members), match numbers
 * the rank's transfers (an END's is its PUT's / GET's, unique over the
 * rank's threads). */

struct vftr_vfdconv_event {
    uint64_t time;              /* ns, aligned */
    uint32_t type;              /* enum vftr_vfdconv_type */
    uint32_t process;           /* token of the thread it happened on */
    uint32_t function;          /* ENTER/LEAVE: function token */
    uint32_t scl;               /* ENTER/LEAVE: source location token or 0 */
    uint32_t peer;              /* SEND: receiver, RECV: sender (process tokens) */
    uint32_t group;             /* SEND/RECV/COLL_BEGIN: process group (communicator) */
    uint32_t tag;               /* SEND/RECV */
    uint32_t op;                /* COLL_BEGIN: collective operation token */
    uint32_t root;              /* COLL_BEGIN: root process token, 0 if none;
                                 * RMA_END: the thread (process token) that began
                                 * the transfer it ends, 0: not known */
    uint32_t file;              /* FILE_BEGIN/END: file token (vftr_vfdconv_files) */
    uint64_t bytes;             /* SEND/RECV: length; COLL_BEGIN: sent; FILE_*: bytes moved */
    uint64_t received;          /* COLL_BEGIN; FILE_*: the handle (per rank) */
    uint64_t match;             /* COLL_BEGIN/END, FILE_BEGIN/END: matching id (per
                                 * process); RMA_*: per rank (an RMA_END's is its
                                 * PUT's / GET's, maybe of another thread; 0: not
                                 * known) */
};
/* FILE_BEGIN and FILE_END carry the same file, op, bytes, handle (in
 * `received`) and matching id; op is OTF's operation word (OTF_FILEOP_* with
 * OTF_IOFLAG_IOFAILED / _ASYNC / _COLL: vftr_vfd_io_otf_operation). */

/* The consumer: called once per event, in time order over the ranks of the
 * replay.  Returns 0 or -errno (stops the replay with that value). */
struct vftr_vfdconv_consumer {
    int (*event)(void *ctx, const struct vftr_vfdconv_event *ev);
    /* Optional: called now and then with the bytes of .vfd read so far
     * by this replay (for a progress bar). */
    void (*progress)(void *ctx, uint64_t bytes);
    void *ctx;
    /* Optional: called instead of event() with runs of n events (in time
     * order, contiguous) where the engine has them at hand; same return. */
    int (*events)(void *ctx, const struct vftr_vfdconv_event *ev, size_t n);
    /* Optional: a record of an exact (not sampled) capture that does not
     * fit the thread's stack and was repaired (what says how), at the
     * record's time on the thread `process`.  Returns 0 or -errno. */
    int (*anomaly)(void *ctx, uint64_t time, uint32_t process, const char *what);
};

/* Definitions, as the engine numbered them. */
struct vftr_vfdconv_proc {
    uint32_t token, parent;     /* parent 0 for a rank */
    uint32_t rank, thread;
    int incomplete;             /* its rank's file ends early (a crash, a kill) */
    char *name;                 /* "Rank 3" / "Rank 3 Thread 2" */
};
#define VFTR_VFDCONV_FUNC_PRECISE 1u   /* every call recorded in a sampled capture */

/* How an OTF trace written from a sampled capture says so (vfd2otf writes,
 * lib/model/source_otf.c reads): DefKeyValue records of these names (and
 * tokens), the interval in ns in the key-value list of DefTimerResolution,
 * the value 1 under the second key in that of each precise DefFunction. */
#define VFTR_VFDCONV_KV_INTERVAL "vftr.sample_interval_ns"   /* OTF_UINT64 */
#define VFTR_VFDCONV_KV_PRECISE "vftr.precise"               /* OTF_UINT8 */
#define VFTR_VFDCONV_KEY_INTERVAL 1u
#define VFTR_VFDCONV_KEY_PRECISE 2u
/* How an OTF trace names the transfer an RMAEnd ends (OTF 1.x's RMAEnd has
 * no such field; its remote, communicator and tag say only whose
 * transfers on which window end): the same uint64 under this key in the key-value lists of
 * the RMAPut / RMAGet and of its RMAEnd, vftr's match (per rank; vfd2otf
 * and vftr-convert write it, lib/model/window.c reads it; the reference
 * tools print it as any key-value pair). */
#define VFTR_VFDCONV_KV_RMA_MATCH "vftr.rma_match"           /* OTF_UINT64 */
/* The key's description.  vftr wrote the first (until late 2026) with the
 * RMAEnd's remote field holding the transfer's target; OTF defines remote
 * as the process whose transfers end (0: the record's own), as VampirTrace
 * wrote it (always 0), and vftr writes it so since, with the second.  The
 * reader tells the two apart by it (lib/model/window.c). */
#define VFTR_VFDCONV_KV_RMA_MATCH_DESC_V1 "the one-sided transfer an RMAEnd ends (per rank)"
#define VFTR_VFDCONV_KV_RMA_MATCH_DESC \
    "the one-sided transfer an RMAEnd ends (per rank; remote: whose, 0 its own)"
#define VFTR_VFDCONV_KEY_RMA_MATCH 3u
struct vftr_vfdconv_func {
    uint32_t token, group, scl;
    uint32_t flags;             /* VFTR_VFDCONV_FUNC_* */
    char *name;
};
struct vftr_vfdconv_group {     /* a communicator */
    uint32_t token;
    uint64_t comm;              /* vftr's communicator id */
    char *name;                 /* the last name the first file to define it gives it */
    size_t named_by;            /* 1 + index of that file; 0: none (yet) */
    uint32_t n;
    uint32_t *procs;            /* process tokens of its ranks' main threads */
};
/* A file of file I/O records: one per name and interface (group). */
struct vftr_vfdconv_file {
    uint32_t token;
    uint32_t group;             /* file group token: enum vftr_vfd_io_iface (1 POSIX I/O,
                                 * 2 ISO C I/O, 3 MPI-IO) */
    char *name;
};
struct vftr_vfdconv_sclfile {
    uint32_t token;
    char *name;
};
struct vftr_vfdconv_scl {
    uint32_t token, file, line;
};

/* The first pass spread over cooperating processes (vfd2otf-mpi): each
 * process reads the files mine() accepts (every file must be accepted by
 * exactly one process); exchange() must give every process the
 * concatenation of the buffers all processes pass in (an MPI_Allgatherv),
 * in *all (malloc'ed; the engine frees it) and *alllen, and return 0 or
 * -errno.  Every process then holds the same engine state.  The buffers are
 * native bytes: the processes must run one binary on one kind of machine. */
struct vftr_vfdconv;

struct vftr_vfdconv_share {
    int (*mine)(void *ctx, size_t file);
    int (*exchange)(void *ctx, const void *buf, size_t len, void **all, size_t *alllen);
    void *ctx;
    /* Optional (all four or none; without them the process that reads
     * file 0 matches, reading every file's MPI records): matching spread
     * over the processes, each reading only its own files' MPI records.
     * The processes are numbered 0 .. nprocs - 1, this one `me`;
     * owner(ctx, file) is the process whose mine() takes the file.  Each
     * process matches the receives of its files, against the sends to
     * them, which their senders' readers hand it through alltoall(ctx,
     * out, outlen, in, inlen): out[p] (outlen[p] bytes, NULL if 0) goes to
     * process p, and *in (malloc'ed, freed by the engine) is what every
     * process sent this one, in process order, *inlen bytes; 0 or -errno,
     * collective, called once by every process even after an error.  The
     * counts and exceptions are then exchanged (exchange above). */
    int nprocs, me;
    int (*owner)(void *ctx, size_t file);
    int (*alltoall)(void *ctx, const void *const *out, const size_t *outlen, void **in,
                    size_t *inlen);
};

struct vftr_vfdconv_opts {
    FILE *warn;                 /* warnings ("vfd2otf: ..." prefixed by prog); NULL: none */
    const char *prog;           /* message prefix, e.g. "vfd2otf" */
    int no_align;               /* 1: ignore CLOCK_OFFSETS */
    unsigned jobs;              /* threads reading files in the first pass (0, 1: serial) */
    const struct vftr_vfdconv_share *share;     /* NULL: this process reads every file */
};

/* Counts over the run, filled by open (messages, clocks) and by replays
 * (events: per replay, see replay's `events` out-parameter). */
struct vftr_vfdconv_stats {
    uint64_t sends, recvs, matched, unsent_recvs, unreceived_sends;
    uint64_t recv_before_send;  /* matched messages whose receive still precedes its send */
    uint64_t colls;
    uint64_t bytes;             /* total .vfd bytes */
    unsigned truncated;         /* ranks whose file ends early */
    double max_offset_ns;       /* largest clock correction applied */
};

struct vftr_vfdconv;

/* Reads the n files (paths borrowed for the call; copied).  Files must be
 * of one run (equal RUN_ID chunks, or equal header run ids) and name each
 * rank once.  Returns 0 and *out (free with vftr_vfdconv_free), or -errno
 * with a message in err: -EINVAL for mixed runs / duplicate ranks,
 * -EBADMSG for unreadable files, -ENOMEM. */
int vftr_vfdconv_open(struct vftr_vfdconv **out, const char *const *paths, size_t n,
                      const struct vftr_vfdconv_opts *opts, char *err, size_t errlen);
void vftr_vfdconv_free(struct vftr_vfdconv *c);

/* The definitions (arrays owned by the engine). */
size_t vftr_vfdconv_ranks(const struct vftr_vfdconv *c);
const struct vftr_vfdconv_proc *vftr_vfdconv_procs(const struct vftr_vfdconv *c, size_t *n);
const struct vftr_vfdconv_func *vftr_vfdconv_funcs(const struct vftr_vfdconv *c, size_t *n);
/* The last function group the trace needs: VFTR_VFDCONV_GROUP_SAMPLED when
 * it holds statistical samples, else VFTR_VFDCONV_GROUP_OMP (groups 1 to it
 * are written, so that a trace without samples converts as before). */
uint32_t vftr_vfdconv_last_group(const struct vftr_vfdconv *c);
const struct vftr_vfdconv_group *vftr_vfdconv_groups(const struct vftr_vfdconv *c, size_t *n);
const struct vftr_vfdconv_sclfile *vftr_vfdconv_sclfiles(const struct vftr_vfdconv *c, size_t *n);
const struct vftr_vfdconv_scl *vftr_vfdconv_scls(const struct vftr_vfdconv *c, size_t *n);
/* Files of the run's file I/O records, and the file groups they use
 * (tokens in order of first use; names from vftr_vfdconv_filegroup_name:
 * "POSIX I/O", "ISO C I/O", "MPI-IO"; NULL for another token). */
const struct vftr_vfdconv_file *vftr_vfdconv_files(const struct vftr_vfdconv *c, size_t *n);
const uint32_t *vftr_vfdconv_filegroups(const struct vftr_vfdconv *c, size_t *n);
const char *vftr_vfdconv_filegroup_name(uint32_t group);
/* Performance counters of the run (COUNTERS chunks; one token per name
 * over the ranks, from 1).  Their events are COUNTER events after the
 * Enter or Leave of the boundary they were read at, one per counter, the
 * thread's count since its counters were opened. */
struct vftr_vfdconv_counter {
    uint32_t token;
    char *name, *unit;
};
const struct vftr_vfdconv_counter *vftr_vfdconv_counters(const struct vftr_vfdconv *c,
                                                        size_t *n);
/* Collective operations used by the run: tokens (enum vftr_vfd_coll_op). */
const uint32_t *vftr_vfdconv_collops(const struct vftr_vfdconv *c, size_t *n);
/* "run 0123...ef: ./heat on host, 4 ranks" */
const char *vftr_vfdconv_comment(const struct vftr_vfdconv *c);
const struct vftr_vfdconv_stats *vftr_vfdconv_stats(const struct vftr_vfdconv *c);
/* Rank of file i in open order / path of rank r. */
const char *vftr_vfdconv_path(const struct vftr_vfdconv *c, uint32_t rank);
uint64_t vftr_vfdconv_rank_bytes(const struct vftr_vfdconv *c, uint32_t rank);
uint64_t vftr_vfdconv_rank_events(const struct vftr_vfdconv *c, uint32_t rank);

/* The sampling interval of the capture in seconds (the largest of the
 * ranks'), 0 when every event was recorded. */
double vftr_vfdconv_sample_interval(const struct vftr_vfdconv *c);
/* Whether a rank's file has one-sided transfers (MPI_RMA records). */
int vftr_vfdconv_has_rma(const struct vftr_vfdconv *c);

/* The name of function group token g ("user code", "MPI", "OpenMP"), NULL
 * for another token. */
const char *vftr_vfdconv_group_name(uint32_t group);

/* The time of the first and the last event a replay of all ranks gives
 * (BeginProcess of the earliest thread, EndProcess of the latest), known
 * from the first pass: what a tool needs before the replay to place
 * snapshot breaks.  An empty run gives 0, 0. */
void vftr_vfdconv_time_range(const struct vftr_vfdconv *c, uint64_t *first, uint64_t *last);

/* Streams the events of the n ranks (indices 0..ranks-1, each once) to the
 * consumer in time order.  *events (if not NULL) receives the count.
 * Returns 0, the consumer's error, or -errno with a message in err. */
int vftr_vfdconv_replay(const struct vftr_vfdconv *c, const uint32_t *ranks, size_t n,
                        const struct vftr_vfdconv_consumer *consumer, uint64_t *events,
                        char *err, size_t errlen);

#endif /* VFTR_MODEL_VFDCONV_H */
