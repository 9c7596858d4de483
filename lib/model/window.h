/*
 * window.h — reading one time window [a, b) of an OTF trace, and nothing
 * else of it.  The one place in vftr that turns "show me what happens
 * between a and b" into reads: a binary time search (OTF_Reader_
 * setTimeInterval) to the latest snapshot at or before a, that snapshot
 * (OTF_Reader_readSnapshots: EnterSnapshot = a frame open at the snapshot
 * time with its original enter time, SendSnapshot = a message in flight),
 * the events from the snapshot up to a (replayed here to bring the call
 * stacks and the messages in flight forward to a), then the events of
 * [a, b), handed to the caller.  A trace without snapshots (or with none at
 * or before a) is read forward from its start instead: correct, but it
 * reads everything before a.
 *
 * What the caller receives, through a struct vftr_window_handler, in order:
 *   1. open_frame for every call under way at a (entered before a, not left
 *      before a), per process outermost first, with its original enter time
 *      and its depth (1 = outermost); processes in ascending order;
 *   2. open_message for every message sent before a and not received before
 *      a (send time, sender, receiver, communicator, tag, length);
 *   3. the events with a <= time < b in time order, equal times in the
 *      order of the streams in the master control and, within a stream, of
 *      the file (the order of the OTF reader's merge): enter, leave, send,
 *      recv, collop (CollectiveOperation), coll_begin, coll_end, counter,
 *      file_begin, file_end, fileop (file operations: an operation under
 *      way at a comes as its end only).
 *      vftr_window_read() decodes them with vftr_otf_scan_events
 *      (vftr_otf_scan.h), vftr_window_events() through the reader.
 * Any callback may be NULL.  A callback returns 0 to go on; anything else
 * stops the read, and vftr_window_read() returns that value.
 *
 * Which processes: those enabled in the window's reader
 * (vftr_window_reader(); all of them after open) — enable or disable
 * processes there before a read.  Stack depth: frames deeper than
 * VFTR_WINDOW_MAX_DEPTH are counted (stats->too_deep) and dropped; a leave
 * whose function does not match the top of the stack closes the frames above
 * the matching one, a leave of a function not on the stack is ignored.
 *
 * Cost reporting: every read says how many bytes the OTF library read from
 * disk (or exposed from its memory maps) for it, through the file manager's
 * counter (vftr_otf_manager_bytes_read in OTF_FileManager.h), and which
 * snapshot it started from, so that tests and benchmarks can assert that a
 * window reads only the window.
 *
 * Summaries: vftr_window_summary() delivers the FunctionSummary records of
 * the latest summary time at or before t (cumulative from the trace start,
 * section 2.9 of the OTF specification), so that a profile of [a, b) can be
 * computed as p(b) - p(a) without the events in between.
 *
 * Errors: functions return 0 or -errno (NULL + errno for constructors) and,
 * when err is not NULL, describe the failure there as one lower-case line
 * (errmsg.h) without the trace name.  -EIO: the OTF library could not read
 * the trace; -ENOMEM; -EINVAL: bad arguments (b <= a).
 *
 * Ownership: a window owns its reader and, when open was given no manager,
 * its file manager; the caller owns a manager it passes in (it must outlive
 * the window).  Threads: a window is used by one thread at a time; separate
 * windows (each with its own manager) are independent.  No globals.
 */
#ifndef VFTR_MODEL_WINDOW_H
#define VFTR_MODEL_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "otf.h"

#define VFTR_WINDOW_MAX_DEPTH (1u << 20)   /* a bound against hostile traces */
#define VFTR_WINDOW_MAX_THREADS 8

/* A file operation as the handler's file callbacks get it.  operation is
 * OTF's word: OTF_FILEOP_* (the low five bits: 0 open, 1 close, 2 read, 3
 * write, 4 seek, 5 unlink, 6 rename, 7 dup, 8 sync, ..., 31 other) with the
 * flags OTF_IOFLAG_IOFAILED (32), _ASYNC (64), _COLL (128).  A begin
 * carries what its trace knows at the begin: a .vfd run and OTF2 all of it,
 * OTF only the matching id (file 0, the rest 0). */
struct vftr_window_fileop {
    uint64_t matching_id;       /* begin and end of one operation of a process: equal */
    uint32_t file;              /* a vftr_source_file token; 0: not known */
    uint32_t operation;
    uint64_t handle;            /* the open instance (per rank), 0 if none */
    uint64_t bytes;             /* bytes read or written */
    uint64_t duration;          /* fileop (OTF's complete FileOperation record) only */
};

/* One-sided communication (MPI RMA) as OTF 1.x records it: the origin
 * process starts a transfer (PUT: data from origin to target; GET: data
 * from target into origin's memory) and later records its end (END);
 * PUT_REMOTE_END is OTF's put whose end is recorded on the target.
 * origin, target: process tokens; comm: the window's communicator token;
 * tag: a number of the window, equal on all its members (a .vfd run: the
 * window id hashed to 32 bits; OTF2 input: the RmaWin definition's id).
 * END carries no bytes; it lies on the process (thread) that synchronised,
 * which may be another thread of the rank than its PUT / GET's: its origin
 * is the process that began the transfers it ends (0: the END's own), its
 * target the remote of that transfer, 0 when the input does not say (OTF
 * 1.x's RMAEnd names only whose transfers end: OTF input gives 0 here).
 * match, when not 0, names the transfer an END ends (equal on the PUT /
 * GET and its END, unique in the rank: a .vfd run's, OTF2 input's, and OTF
 * input's that carries vftr's key-value pair VFTR_VFDCONV_KV_RMA_MATCH);
 * 0: every open transfer of the origin on that window (and target, when
 * given) ends, as OTF 1.x defines it (OTF 1.x itself has no such id). */
enum vftr_window_rma_kind {
    VFTR_WINDOW_RMA_PUT = 1,
    VFTR_WINDOW_RMA_PUT_REMOTE_END,
    VFTR_WINDOW_RMA_GET,
    VFTR_WINDOW_RMA_END,
};

struct vftr_window_rma {
    uint32_t kind;              /* enum vftr_window_rma_kind */
    uint32_t origin, target;    /* END: whose transfers (0: its own), their remote
                                 * (0: not said) */
    uint32_t comm, tag;
    uint64_t bytes;
    uint64_t match;
};

struct vftr_window_handler {
    void *arg;            /* first argument of every callback */
    int (*open_frame)(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                      uint32_t depth);
    int (*open_message)(void *arg, uint64_t send_time, uint32_t sender, uint32_t receiver,
                        uint32_t comm, uint32_t tag, uint32_t length);
    int (*enter)(void *arg, uint64_t time, uint32_t process, uint32_t function);
    int (*leave)(void *arg, uint64_t time, uint32_t process, uint32_t function);
    int (*send)(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                uint32_t tag, uint32_t length);
    int (*recv)(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                uint32_t tag, uint32_t length);
    int (*collop)(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                  uint32_t root, uint64_t sent, uint64_t received, uint64_t duration);
    int (*coll_begin)(void *arg, uint64_t time, uint32_t process, uint32_t op,
                      uint64_t matching_id, uint32_t comm, uint32_t root, uint64_t sent,
                      uint64_t received);
    int (*coll_end)(void *arg, uint64_t time, uint32_t process, uint64_t matching_id);
    /* A Counter record (delivered with the events of [a, b)). */
    int (*counter)(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                   uint64_t value);
    /* File operations: BeginFileOperation at the operation's start,
     * EndFileOperation at its completion, and OTF's older FileOperation
     * record (complete, at its time: the time it ended, with its
     * duration).  The struct is borrowed for the call. */
    int (*file_begin)(void *arg, uint64_t time, uint32_t process,
                      const struct vftr_window_fileop *op);
    int (*file_end)(void *arg, uint64_t time, uint32_t process,
                    const struct vftr_window_fileop *op);
    int (*fileop)(void *arg, uint64_t time, uint32_t process,
                  const struct vftr_window_fileop *op);
    /* One-sided communication: process is the process the record is on
     * (the initiator).  The struct is borrowed for the call. */
    int (*rma)(void *arg, uint64_t time, uint32_t process, const struct vftr_window_rma *r);
    /* Only for vftr_window_samples(): one open frame of the snapshot at
     * `time` (the state just before it), outermost first per process. */
    int (*sample_frame)(void *arg, uint64_t time, uint32_t process, uint32_t function,
                        uint64_t enter);
    /* Only for vftr_window_summary(). */
    int (*function_summary)(void *arg, uint64_t time, uint32_t process, uint32_t function,
                            uint64_t calls, uint64_t excl, uint64_t incl);
    /* Sources whose records are turned into these events (a .vfd run,
     * source.h) report here a record that did not fit and was repaired;
     * an OTF trace's events come as they are. */
    int (*anomaly)(void *arg, uint64_t time, uint32_t process, const char *what);
};

/* What one read cost and where it started. */
struct vftr_window_stats {
    int from_snapshot;        /* 1: started at a snapshot; 0: read forward from the start */
    uint64_t snapshot_time;   /* the snapshot's time (or the trace start) */
    uint64_t bytes_read;      /* bytes the OTF library read for this call */
    uint64_t replayed;        /* events read between the start point and a */
    uint64_t delivered;       /* events delivered (a <= time < b) */
    uint64_t too_deep;        /* frames dropped beyond VFTR_WINDOW_MAX_DEPTH */
};

/* What the trace's definitions say about its time. */
struct vftr_window_info {
    uint64_t resolution;      /* ticks per second, 0 when the trace has no DefTimerResolution */
    uint64_t first, last;     /* first and last event time stamps; both 0 without events */
    int have_events;          /* 0: the trace has no events at all */
    size_t nsnapshots;        /* snapshot times known from DefAuxSamplePoint (0: unknown,
                                 found by searching) */
    size_t nsummaries;        /* summary times known from DefAuxSamplePoint */
};

struct vftr_window;

/*
 * Opens the trace `namestub` ("foo" for foo.otf) for window reads: reads its
 * definitions (timer resolution, DefTimeRange, DefAuxSamplePoint) and finds
 * the first and last event time by time search when there is no
 * DefTimeRange.  `manager` may be NULL (the window opens its own).  Returns
 * the window (free with vftr_window_free), or NULL with errno set and err
 * filled: ENOENT "cannot open trace (No such file or directory)", EIO for a
 * trace the library cannot read, ENOMEM.
 */
struct vftr_window *vftr_window_open(const char *namestub, OTF_FileManager *manager, char *err,
                                     size_t errlen);
void vftr_window_free(struct vftr_window *w);     /* NULL-safe */

/*
 * How many threads a read may use to bring the state from the snapshot
 * forward to the window start (each reads a subset of the streams with its
 * own reader and file manager): 1..VFTR_WINDOW_MAX_THREADS, or 0 (the
 * default) for the number of CPUs online, at most VFTR_WINDOW_MAX_THREADS.
 * Never more than the streams read.  0 or -EINVAL.
 */
int vftr_window_set_threads(struct vftr_window *w, unsigned threads);

/*
 * The rank of a process (its rank's own process), for the messages in
 * flight at a window start: with it, a receive completes a send of its
 * channel of ranks (sender's rank, receiver's rank, communicator, tag), as
 * MPI matches them and messages.h explains, so a send of a thread whose
 * receive names only its rank is not left in flight.  fn (NULL: each
 * process is its own rank, the default) is called from the replay threads
 * at once: it must only read; arg borrowed.
 */
void vftr_window_set_ranks(struct vftr_window *w, uint32_t (*fn)(void *arg, uint32_t process),
                           void *arg);

/*
 * Progress of the window's reads, and a way to stop them (a compressed
 * trace that inflates a thousandfold, a read from the start of a huge
 * trace): fn (NULL: none) is called every VFTR_OTF_PROGRESS_STEP bytes the
 * OTF library hands to the parser, in the thread that reads them — the
 * caller's and the replay threads', so at the same time from several
 * threads: it must be thread-safe — with the bytes since that thread's last
 * call.  Once it returns non-zero, the reads of that thread fail, and the
 * read in progress returns -EIO ("... reading was stopped"); the next
 * vftr_window_set_progress() lets reads go on again.  Applies to the
 * manager the window was given too.
 */
void vftr_window_set_progress(struct vftr_window *w, int (*fn)(void *arg, uint64_t bytes),
                              void *arg);

/* The trace's time facts (borrowed, valid until free). */
const struct vftr_window_info *vftr_window_info(const struct vftr_window *w);

/* The window's reader, to enable or disable processes (borrowed). */
OTF_Reader *vftr_window_reader(struct vftr_window *w);

/* The manager whose byte counter the window reports (borrowed). */
OTF_FileManager *vftr_window_manager(struct vftr_window *w);

/*
 * Reads the window [a, b) as described above (a may be before the first
 * event, b may be UINT64_MAX).  stats may be NULL.  Returns 0, the first
 * non-zero value a callback returned, or -errno (err says why).
 */
int vftr_window_read(struct vftr_window *w, uint64_t a, uint64_t b,
                     const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                     char *err, size_t errlen);

/*
 * The events of [a, b) only, in time order, through the same callbacks as
 * vftr_window_read() but without the state at a (no snapshot, no replay, no
 * open_frame/open_message): one time search and the window's records.
 * Returns 0, a callback's value, or -errno; stats (may be NULL) gets the
 * bytes read and the events delivered.
 */
int vftr_window_events(struct vftr_window *w, uint64_t a, uint64_t b,
                       const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                       char *err, size_t errlen);

/*
 * The latest snapshot time <= t in *time; 0, or -ENOENT when there is none
 * (then the window reads from the start), -EIO.  Found through the
 * DefAuxSamplePoint index when the trace has one, otherwise by time searches
 * over the snapshot files with doubling intervals.
 */
int vftr_window_snapshot_before(struct vftr_window *w, uint64_t t, uint64_t *time, char *err,
                                size_t errlen);

/*
 * Sampled state for zoomed-out views: delivers, through h->sample_frame, the
 * EnterSnapshot records of every snapshot with a <= time < b (reads the
 * snapshot files only, none of the events).  Returns 0, -EIO, or a
 * callback's value; stats (may be NULL) gets the bytes read.
 */
int vftr_window_samples(struct vftr_window *w, uint64_t a, uint64_t b,
                        const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                        char *err, size_t errlen);

/*
 * Delivers, through h->function_summary, the FunctionSummary records of the
 * latest summary time <= t (*time gets that time).  Returns 0, -ENOENT when
 * the trace has no summary at or before t, -EIO, or a callback's value.
 * stats (may be NULL) gets the bytes read.
 */
int vftr_window_summary(struct vftr_window *w, uint64_t t, const struct vftr_window_handler *h,
                        uint64_t *time, struct vftr_window_stats *stats, char *err,
                        size_t errlen);

#endif /* VFTR_MODEL_WINDOW_H */
