/*
 * snapshot.h — snapshots and statistical summaries of a trace (sections 2.8
 * and 2.9 of the OTF specification), computed in one streaming pass.
 *
 * The engine reads no file.  A tool (vftr-snap reading OTF, vfd2otf while
 * it converts) feeds it the events of all processes in non-decreasing time
 * order (the order an OTF_Reader delivers; processes interleave freely) and
 * hands it the sorted list of break times up front.  At each break b it
 * produces, through the sink callbacks:
 *
 *   - the snapshot at b: the state just before b (events at b itself are
 *     not included) — EnterSnapshot for every active call (original time =
 *     its enter), SendSnapshot for every message sent before b and received
 *     at or after b, OpenFileSnapshot, BeginCollopSnapshot and
 *     BeginFileOpSnapshot for operations under way, CollopCountSnapshot per
 *     communicator, CounterSnapshot with each counter's last value;
 *   - the summaries at b, cumulative from the trace start: FunctionSummary
 *     (or FunctionGroupSummary), MessageSummary, CollopSummary,
 *     FileOperationSummary (or FileGroupOperationSummary).
 *
 * Defaults follow the reference's otfaux (OTF 1.12.5), found by running it:
 *   - inclusive time is summed per call, so a recursive function counts
 *     the nested call's time again (exclusive time never does);
 *   - a call still open at b counts as one call and contributes its time
 *     up to b;
 *   - message summaries aggregate over peers, communicators and tags (peer,
 *     comm and tag 0); collective summaries aggregate over communicators
 *     (comm 0) per operation; a collective counts as sent / received by its
 *     type: barrier sent only, one-to-all received (and sent by the root),
 *     all-to-one sent (and received by the root), all-to-all both, unknown
 *     neither; its bytes always count;
 *   - a Begin/EndCollectiveOperation or Begin/EndFileOperation pair counts
 *     at its end; a file opened by an EndFileOperation has that end as its
 *     original time; files are tracked by handle;
 *   - a message never received appears in no snapshot (its send is in the
 *     summary);
 *   - records of a kind are written only when non-zero (no MessageSummary
 *     for a process without messages, no CollopCountSnapshot of 0).
 * VFTR_SNAP_DETAILED goes beyond: MessageSummary per peer, communicator and
 * tag, CollopSummary per communicator, function and group summaries
 * together, file and file group summaries together.
 *
 * Message matching: a receive matches the oldest unmatched send of its
 * (sender, receiver, communicator, tag).  Whether a send pending at b is
 * ever received is only known later, so a break's snapshot is held back
 * (its records kept in memory) until every send pending at it is resolved
 * or the feed ends; summaries are never held back.  Snapshots and summaries
 * are each emitted in break order; within a break, process by process in
 * order of first appearance.
 *
 * The thumbnail (what otfaux writes to <trace>.thumb): the function on top
 * of each process's stack (0 if none) at given sample times, after the
 * events at the sample time (unlike breaks).
 *
 * Memory: the state of the processes (stacks, open files, counters, one
 * entry per (process, function) pair), messages in flight and held-back
 * snapshots — independent of the trace's length.
 *
 * Functions return 0 or -errno (-ENOMEM; -EINVAL for bad arguments or a
 * call after finish; -EINTR and -EFBIG, see struct vftr_snap_config); an
 * error from a sink callback is returned as is and stops the engine (later
 * calls return it again).  Ownership: the engine
 * copies what it is given; records passed to a sink are borrowed for the
 * call.  Threads: one thread at a time per engine; no globals.
 */
#ifndef VFTR_MODEL_SNAPSHOT_H
#define VFTR_MODEL_SNAPSHOT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The records the engine produces, with the meaning of the generic fields
 * of struct vftr_snaprec.  One table, used by the engine, the OTF glue
 * (snap_otf.h) and the tests:
 *   X(kind, OTF record name, what id / a / b / c / v[] hold)
 */
#define VFTR_SNAPREC_KINDS(X)                                                              \
    X(ENTER, EnterSnapshot, "id function, a source location, orig enter time")                              \
    X(SEND, SendSnapshot, "id receiver, a comm, b tag, v0 length, orig send time")       \
    X(OPENFILE, OpenFileSnapshot, "id file, v0 handle, orig open time")                  \
    X(BEGINCOLLOP, BeginCollopSnapshot,                                                   \
      "id op, a comm, b root, v0 matching id, v1 sent, v2 received, orig begin")          \
    X(BEGINFILEOP, BeginFileOpSnapshot, "v0 matching id, orig begin")                     \
    X(COLLOPCOUNT, CollopCountSnapshot, "id comm, v0 count")                              \
    X(COUNTER, CounterSnapshot, "id counter, v0 value, orig time of the value")           \
    X(FUNCTION, FunctionSummary, "id function, v0 calls, v1 excl, v2 incl")               \
    X(FUNCGROUP, FunctionGroupSummary, "id group, v0 calls, v1 excl, v2 incl")            \
    X(MESSAGE, MessageSummary,                                                            \
      "id peer, a comm, b tag, v0 sent, v1 received, v2 bytes sent, v3 bytes received")   \
    X(COLLOP, CollopSummary,                                                              \
      "id op, a comm, v0 sent, v1 received, v2 bytes sent, v3 bytes received")            \
    X(FILEOP, FileOperationSummary,                                                       \
      "id file, v0 open, v1 close, v2 read, v3 write, v4 seek, v5 bytes read, v6 written") \
    X(FILEGROUP, FileGroupOperationSummary, "id group, v0..v6 as FILEOP")

enum vftr_snaprec_kind {
#define VFTR_SNAPREC_ENUM(kind, name, fields) VFTR_SNAPREC_##kind,
    VFTR_SNAPREC_KINDS(VFTR_SNAPREC_ENUM)
#undef VFTR_SNAPREC_ENUM
    VFTR_SNAPREC_NKINDS
};

/* True for the snapshot kinds, false for the summaries. */
static inline int vftr_snaprec_is_snapshot(enum vftr_snaprec_kind k)
{
    return k <= VFTR_SNAPREC_COUNTER;
}

struct vftr_snaprec {
    enum vftr_snaprec_kind kind;
    uint64_t time;        /* the break */
    uint32_t process;
    uint32_t id, a, b;    /* see the table */
    uint64_t orig;        /* original time (snapshots) */
    uint64_t v[7];
};

/* Receives one record; returns 0 or -errno (which stops the engine). */
typedef int vftr_snap_record_fn(void *arg, const struct vftr_snaprec *r);

/* Options (VFTR_SNAP_*). */
enum {
    VFTR_SNAP_SNAPSHOTS = 1u << 0,    /* produce snapshots */
    VFTR_SNAP_SUMMARIES = 1u << 1,    /* produce summaries */
    VFTR_SNAP_FUNCGROUPS = 1u << 2,   /* group summaries instead of function summaries */
    VFTR_SNAP_FILEGROUPS = 1u << 3,   /* file group summaries instead of file summaries */
    VFTR_SNAP_DETAILED = 1u << 4,     /* see above */
};

struct vftr_snap_config {
    unsigned flags;              /* VFTR_SNAP_* */
    const uint64_t *breaks;      /* sorted, distinct; copied */
    size_t nbreaks;
    /* Breaks at or after this time get summaries but no snapshot (otfaux
     * writes none at its final break, one tick after the last event);
     * UINT64_MAX for none. */
    uint64_t snapshot_limit;
    const uint64_t *samples;     /* thumbnail sample times, sorted; copied; may be NULL */
    size_t nsamples;
    vftr_snap_record_fn *on_record;
    void *arg;
    /* Optional.  When *stop becomes non-zero (a signal handler's flag,
     * borrowed for the engine's life), the engine stops at the next break
     * or record with -EINTR.  After max_records records (0: no bound) it
     * stops with -EFBIG: the backstop behind the size estimate below. */
    const volatile sig_atomic_t *stop;
    uint64_t max_records;
};

struct vftr_snap;

/* A new engine.  NULL + errno (EINVAL: unsorted breaks or no callback; ENOMEM). */
struct vftr_snap *vftr_snap_new(const struct vftr_snap_config *cfg);

/*
 * The rank of a process (its rank's own process; fn NULL, the default:
 * every process is its own rank), for a trace whose messages may name
 * their other side only by its rank (messages.h): the messages in flight
 * at a break are then those of the channels of ranks (sender's rank,
 * receiver's rank, communicator, tag), first in, first out.  Before the
 * first record; arg borrowed for the engine's life.
 */
void vftr_snap_set_ranks(struct vftr_snap *s, uint32_t (*fn)(void *arg, uint32_t process),
                         void *arg);
void vftr_snap_free(struct vftr_snap *s);     /* NULL-safe */

/* Definitions the summaries need (before the events; later ones win). */
int vftr_snap_def_function(struct vftr_snap *s, uint32_t function, uint32_t group);
int vftr_snap_def_file(struct vftr_snap *s, uint32_t file, uint32_t group);
/* OTF_COLLECTIVE_TYPE_* of a collective operation (unknown if not given). */
int vftr_snap_def_collop(struct vftr_snap *s, uint32_t op, uint32_t type);

/* The events, in non-decreasing time order. */
int vftr_snap_enter(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t function);
/* The same with the Enter's source location, which its EnterSnapshots
 * carry (as otfaux writes them); vftr_snap_enter gives 0. */
int vftr_snap_enter_scl(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t function,
                        uint32_t scl);
int vftr_snap_leave(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t function);
int vftr_snap_send(struct vftr_snap *s, uint64_t time, uint32_t sender, uint32_t receiver,
                   uint32_t comm, uint32_t tag, uint64_t length);
int vftr_snap_recv(struct vftr_snap *s, uint64_t time, uint32_t receiver, uint32_t sender,
                   uint32_t comm, uint32_t tag, uint64_t length);
int vftr_snap_collop(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t op,
                     uint32_t comm, uint32_t root, uint64_t sent, uint64_t received);
int vftr_snap_collop_begin(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t op,
                           uint64_t matching_id, uint32_t comm, uint32_t root, uint64_t sent,
                           uint64_t received);
int vftr_snap_collop_end(struct vftr_snap *s, uint64_t time, uint32_t process,
                         uint64_t matching_id);
/* operation: OTF_FILEOP_* (the low bits are used). */
int vftr_snap_fileop(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t file,
                     uint64_t handle, uint32_t operation, uint64_t bytes);
int vftr_snap_fileop_begin(struct vftr_snap *s, uint64_t time, uint32_t process,
                           uint64_t matching_id);
int vftr_snap_fileop_end(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t file,
                         uint64_t matching_id, uint64_t handle, uint32_t operation,
                         uint64_t bytes);
int vftr_snap_counter(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t counter,
                      uint64_t value);

/* Produces the remaining breaks and samples and every held-back snapshot
 * (sends never received are left out).  Afterwards the feeding functions
 * return -EINVAL. */
int vftr_snap_finish(struct vftr_snap *s);

/*
 * The thumbnail after finish: the processes that had events, in order of
 * first appearance (*n of them), and for process index i its nsamples
 * values (function ids, 0 = none).  Borrowed until vftr_snap_free().
 */
const uint32_t *vftr_snap_thumb_processes(const struct vftr_snap *s, size_t *n);
const uint32_t *vftr_snap_thumb_values(const struct vftr_snap *s, size_t i);

/* Sends seen that were never received (known after finish). */
uint64_t vftr_snap_unreceived(const struct vftr_snap *s);

/*
 * -- Where the breaks go (shared by vftr-snap and vfd2otf) ----------------
 *
 * otfaux's rules, found by running it (share/doc/snap.md): with first and
 * last the first and last event times and end = last + 1,
 *   - -n N: (end - first) / N added up N times in doubles, each sum rounded
 *     down;
 *   - --period P: first + kP while before end;
 *   - with both, the one giving more breaks wins; neither and no --at: -n 200;
 *   - --at adds breaks, counted from first like every time vftr's tools
 *     take (lib/util/timespec.h; otfaux's -t counts bare ticks from 0);
 *   - end is always a break; the list is sorted and distinct.
 *
 * Bounds.  Every break between two consecutive event times shows the same
 * stacks, files and counts (only the open calls' times grow), so breaks
 * beyond the trace's distinct event times add output and nothing else: the breaks asked for (-n, --period and --at together) may not be
 * more than vftr_snap_max_breaks() — the ticks from the first event to
 * one past the last, and the distinct event times the tool can vouch for
 * before its pass (struct vftr_snap_traceinfo.max_times).  Asking for more
 * is refused, with the maximum in the message: the breaks otfaux's rules
 * place cannot be kept one per tick beyond that, and fewer breaks than
 * asked, silently, would misplace every break a script expects.  The
 * default (-n 200) is never refused.  A period shorter than one tick is
 * refused the same way; --at times that fall on one tick are one break.
 */
#define VFTR_SNAP_DEFAULT_BREAKS 200u
#define VFTR_SNAP_THUMB_SAMPLES 4096u      /* otfaux's thumbnail bound */
#define VFTR_SNAP_MAX_BREAKS 100000000u    /* the break list must fit memory */

struct vftr_snap_breakspec {
    uint64_t n;                   /* -n (0: not given) */
    const char *period;           /* --period TICKS or a duration; NULL: not given */
    const char *const *times;     /* --at values (borrowed) */
    size_t ntimes;
};

/* What a tool knows of a trace before its pass, all of it cheap to learn:
 * for the bound on breaks and the size estimate. */
struct vftr_snap_traceinfo {
    uint64_t resolution;          /* ticks per second (0: unknown) */
    uint64_t first, last;         /* first and last event time stamps */
    /* At most this many distinct event times (0: not known; the span
     * still bounds them).  vftr-snap: a quarter of the bytes of
     * uncompressed event files (a new time is a line of hex digits, and
     * a record follows it: 4 bytes at least); vfd2otf: two per record
     * its first pass counted and two per thread. */
    uint64_t max_times;
    uint64_t bytes;               /* the trace's size: its event files / .vfd files */
    uint64_t copy_bytes;          /* written beside the records (-o: the events) */
    uint64_t processes;           /* processes that may have events */
    uint64_t functions, funcgroups, files, filegroups, collops, counters;  /* definitions */
    int compressed;               /* the records are written compressed */
};

/* The most breaks one may ask for (>= 1; see "Bounds" above). */
uint64_t vftr_snap_max_breaks(const struct vftr_snap_traceinfo *t);

/* Places the breaks for the trace t (resolution, first, last, max_times).
 * Returns 0 and *breaks (caller owns, free()) with *nbreaks entries; or,
 * with a message in err: -ERANGE for more breaks than the bound or a
 * period shorter than a tick, -EINVAL for a bad --period or --at, -EBADMSG when
 * last < first, -ENOMEM. */
int vftr_snap_place_breaks(const struct vftr_snap_breakspec *spec,
                           const struct vftr_snap_traceinfo *t, uint64_t **breaks, size_t *nbreaks,
                           char *err, size_t errlen);

/*
 * The size estimate.  Per break and process: one summary per function
 * (group), file (group), collective operation and message summary, as
 * flags ask; a snapshot of a stack of (at most) 8 frames, the open files,
 * the counters and a collective count — records of some 24 (summaries)
 * and 13 (snapshots) bytes, half that compressed (measured on
 * test/snap/snapgen's traces; share/doc/snap.md).  An estimate, not a
 * bound: processes touch fewer functions than the trace defines, and
 * messages in flight or deep stacks are unknown before the pass — the
 * engine's max_records is the backstop.
 */
struct vftr_snap_estimate {
    uint64_t records;             /* snapshot and summary records */
    uint64_t bytes;               /* their size on disk, thumbnail included */
    uint64_t per_break;           /* records at a break with snapshot and summaries */
};

void vftr_snap_estimate(const struct vftr_snap_traceinfo *t, unsigned flags,
                        const uint64_t *breaks, size_t nbreaks, size_t nsamples,
                        struct vftr_snap_estimate *e);

/* Output beyond max(VFTR_SNAP_LIMIT_FLOOR, VFTR_SNAP_LIMIT_RATIO x the
 * trace's bytes) needs --force: generous for otfaux's defaults on any
 * trace, far below what a runaway -n writes. */
#define VFTR_SNAP_LIMIT_FLOOR (256ull << 20)
#define VFTR_SNAP_LIMIT_RATIO 32u
uint64_t vftr_snap_output_limit(uint64_t trace_bytes);

/* What a tool wants written (the options of vftr-snap and vfd2otf). */
struct vftr_snap_request {
    struct vftr_snap_breakspec breaks;
    unsigned flags;               /* VFTR_SNAP_*: snapshots, summaries, groups, detailed */
    uint64_t thumb_samples;       /* bound (0: VFTR_SNAP_THUMB_SAMPLES); with snapshots only */
    int force;                    /* --force: no size limit, no free-space check */
    const char *outdir;           /* where the output goes (free space); NULL: unchecked */
};

/* Everything decided before the pass. */
struct vftr_snap_plan {
    uint64_t *breaks;             /* owned (vftr_snap_plan_release) */
    size_t nbreaks;
    uint64_t *samples;            /* owned; NULL when nsamples is 0 */
    size_t nsamples;
    struct vftr_snap_estimate estimate;
    uint64_t max_records;         /* for vftr_snap_config.max_records (0 with force) */
};

/*
 * Places the breaks (bound included) and the thumbnail samples, estimates
 * the output and, without force, refuses it past vftr_snap_output_limit()
 * (-EFBIG) or beyond the free space of rq->outdir (-ENOSPC, statvfs), with
 * a message giving the estimate.  Returns 0 and fills *p, or the errors of
 * vftr_snap_place_breaks, -EFBIG, -ENOSPC, -ENOMEM (message in err; *p is
 * then empty).
 */
int vftr_snap_plan_make(const struct vftr_snap_request *rq, const struct vftr_snap_traceinfo *t,
                        struct vftr_snap_plan *p, char *err, size_t errlen);
void vftr_snap_plan_release(struct vftr_snap_plan *p);

/* The message for an engine that stopped with -EFBIG (its max_records
 * passed).  Returns -EFBIG. */
int vftr_snap_plan_overflow(const struct vftr_snap_plan *p, char *err, size_t errlen);

/* The thumbnail's sample times: min(limit, last - first) of them (limit 0:
 * VFTR_SNAP_THUMB_SAMPLES), equally spaced from first.  0 and *samples
 * (caller owns; NULL when *n is 0) or -ENOMEM. */
int vftr_snap_place_samples(uint64_t first, uint64_t last, uint64_t limit, uint64_t **samples,
                            size_t *n);

/* Writes the thumbnail (after finish) in otfaux's .thumb format:
 * "0:<samples>,<processes>" then "<process>:<function>,...," per process,
 * all hex.  0 or -EIO. */
int vftr_snap_write_thumb(const struct vftr_snap *s, FILE *f);

#endif /* VFTR_MODEL_SNAPSHOT_H */
