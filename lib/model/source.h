/*
 * source.h — one way into every trace vftr reads.  A source is a trace of
 * any supported format, opened once, that every tool reads the same way:
 * its definitions (processes with their rank and thread, functions with
 * their group, function groups, collective operations), what it says about
 * its own recording (resolution, time span, sampling), windows of its events
 * with the state at the window's start, and — through one function for
 * every format — the profile of any window.  Tools never read a format
 * themselves: two routes to one figure would drift apart.
 *
 * File I/O: the files a trace names (file tokens, each in a file group) and
 * its file operations, delivered as window events (window.h: file_begin,
 * file_end, fileop); io.h sums them per file and per function.
 *
 * One-sided communication (MPI RMA): puts, gets and their ends as window
 * events (window.h: rma), from a .vfd run's MPI_RMA records, OTF's RMA
 * records and OTF2's Rma* operation and completion records.
 *
 * Formats (one backend each, chosen by vftr_source_open from its operands):
 *   OTF 1.x   "foo" or "foo.otf" (lib/otf, lib/model/window.h);
 *   .vfd      capture's raw files: FILE.vfd operands or a run directory
 *             (vfdfiles.h says which files are taken), read through the
 *             conversion engine (vfdconv.h), so that a run's .vfd files give
 *             exactly what their OTF conversion gives: the same process and
 *             function tokens, Enter/Leave pairs (OpenMP regions included),
 *             matched messages, aligned clocks, times in ns from the run's
 *             first event;
 *   OTF2      "traces.otf2" (the anchor file) or the archive directory that
 *             holds one (libotf2, source_otf2.c): locations become
 *             processes, regions functions, MPI and metric events messages,
 *             collectives and counters (source_otf2.c says how).
 *
 * Times are the trace's ticks (vftr_source_info()->resolution per second);
 * a window [a, b) uses absolute tick values, b == UINT64_MAX for an open
 * end.  Process tokens are OTF's (for .vfd input those vfd2otf writes:
 * thread t of rank r is (t << 20) + r + 1).
 *
 * Errors: 0 / -errno with one lower-case line in err that names the file
 * (and the offset, where the format has one).  Warnings (a file skipped, a
 * rank cut short) go to opts->warn prefixed with opts->prog, once, at open.
 * Ownership: the source owns everything it returns (valid until
 * vftr_source_free).  Threads: a source is used by one thread at a time.
 */
#ifndef VFTR_MODEL_SOURCE_H
#define VFTR_MODEL_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"
#include "summary.h"
#include "window.h"
#include "util/proclist.h"

enum vftr_source_kind {
    VFTR_SOURCE_OTF = 1,
    VFTR_SOURCE_VFD = 2,
    VFTR_SOURCE_OTF2 = 3,
};

struct vftr_source_opts {
    FILE *warn;                 /* warnings; NULL: none */
    const char *prog;           /* prefix of messages and warnings, e.g. "vftr-stats" */
    unsigned jobs;              /* threads a read may use; 0: the online CPUs */
};

/* What the trace says about itself. */
struct vftr_source_info {
    enum vftr_source_kind kind;
    const char *name;           /* "run.otf", "run/" or "app_0.vfd": for messages */
    uint64_t resolution;        /* ticks per second (0: the trace does not say) */
    uint64_t first, last;       /* first and last event time stamps; 0, 0 without events */
    int have_events;
    /* Sampled recording: capture wrote an event only when this many
     * seconds had passed since the thread's last one (0: every event), and
     * every call of the functions flagged VFTR_SOURCE_FN_PRECISE. */
    double sample_interval;
    size_t nsummaries, nsnapshots;   /* OTF: summary and snapshot times known */
    size_t nfiles;              /* .vfd: files read */
    /* OTF2: event records of kinds the model has no place for (OpenMP
     * fork/join, locks, I/O, calling-context samples, records newer than
     * the library), passed over and counted, from the last read */
    uint64_t skipped;
};

/* Process.  rank and thread are numbered from 0; for a trace that does not
 * say (a third-party OTF trace), a process without parent is a rank, its
 * children are its threads from 1, both in token order. */
struct vftr_source_proc {
    uint32_t token, parent;     /* parent 0: none */
    uint32_t rank, thread;
    unsigned flags;             /* VFTR_SOURCE_PROC_* */
    const char *name;
};

enum {
    /* its data ends early (a .vfd of a rank that crashed or was killed):
     * what it did after that, a send say, is not in the trace */
    VFTR_SOURCE_PROC_INCOMPLETE = 1u << 0,
};

enum {
    VFTR_SOURCE_FN_PRECISE = 1u << 0,   /* sampled trace: every call recorded */
};

struct vftr_source_func {
    uint32_t token, group;      /* group: a function group token, 0 if none */
    unsigned flags;             /* VFTR_SOURCE_FN_* */
    const char *name;
    /* where it is in the source (an OpenMP region's pragma): NULL, 0 when
     * the trace does not say */
    const char *file;
    uint32_t line;
};

/* A communicator: the processes of its ranks in rank order (OTF's process
 * groups, the communicators of a .vfd run, OTF2's Comm definitions).  The
 * comm argument of messages and collectives is its token. */
struct vftr_source_comm {
    uint32_t token;
    const char *name;
    uint32_t n;
    const uint32_t *procs;
};

struct vftr_source_name {       /* function groups, collective operations */
    uint32_t token;
    const char *name;
};

/* A counter; properties: what its values are, in OTF's terms
 * (OTF_COUNTER_TYPE_* | OTF_COUNTER_SCOPE_*, OTF_Definitions.h): a .vfd
 * run's counts are ACC | START (accumulated since the thread's counters were
 * opened), an OTF trace's as its DefCounter says, an OTF2 trace's from its
 * metric mode (vftr_otf2_counter_props).  Sinks label the values with it. */
struct vftr_source_counter {
    uint32_t token;
    const char *name, *unit;
    uint32_t properties;
};

/* A file of file operations (OTF's DefFile, OTF2's IoHandle of a file, a
 * .vfd run's IO_FILES entries); group: a file group token (0 if none). */
struct vftr_source_file {
    uint32_t token, group;
    const char *name;
};

struct vftr_source;

/*
 * Opens the trace named by the n operands: one OTF or OTF2 trace, or any
 * number of .vfd files and run directories.  *out (free with
 * vftr_source_free) or -errno: -ENOENT (no such trace), -EINVAL (operands of
 * both kinds, several OTF traces, files of different runs, a rank given
 * twice), -EBADMSG/-EIO (unreadable), -ENOMEM.
 */
int vftr_source_open(struct vftr_source **out, const char *const *operands, size_t n,
                     const struct vftr_source_opts *opts, char *err, size_t errlen);
void vftr_source_free(struct vftr_source *s);     /* NULL-safe */

/*
 * vftr_source_open with the first pass of a .vfd run shared among
 * cooperating processes (struct vftr_vfdconv_share, lib/model/vfdconv.h;
 * borrowed for the call): each reads only the files share->mine accepts,
 * every one of them must make this call with the same operands, and all
 * end with the same definitions.  Other inputs ignore share; NULL: as
 * vftr_source_open.
 */
struct vftr_vfdconv_share;
int vftr_source_open_shared(struct vftr_source **out, const char *const *operands, size_t n,
                            const struct vftr_source_opts *opts,
                            const struct vftr_vfdconv_share *share, char *err, size_t errlen);

/*
 * A .vfd source over a conversion engine already open (vfd2otf-mpi's,
 * whose first pass its processes shared): borrowed, it must outlive the
 * source.  0 and *out, or -ENOMEM.
 */
struct vftr_vfdconv;
int vftr_source_open_vfdconv(struct vftr_source **out, struct vftr_vfdconv *conv,
                             const struct vftr_source_opts *opts, char *err, size_t errlen);

/* Is the operand a .vfd input (a .vfd or .tmpvfd file, or a directory)? */
int vftr_source_is_vfd(const char *operand);

const struct vftr_source_info *vftr_source_info(const struct vftr_source *s);

/* Definitions, in token order. */
const struct vftr_source_proc *vftr_source_procs(const struct vftr_source *s, size_t *n);
const struct vftr_source_func *vftr_source_funcs(const struct vftr_source *s, size_t *n);
const struct vftr_source_name *vftr_source_groups(const struct vftr_source *s, size_t *n);
const struct vftr_source_name *vftr_source_collops(const struct vftr_source *s, size_t *n);
const struct vftr_source_counter *vftr_source_counters(const struct vftr_source *s, size_t *n);
const struct vftr_source_comm *vftr_source_comms(const struct vftr_source *s, size_t *n);
const struct vftr_source_file *vftr_source_files(const struct vftr_source *s, size_t *n);
const struct vftr_source_name *vftr_source_filegroups(const struct vftr_source *s, size_t *n);

/* The window (window.h) of an OTF source, for the reads only OTF's records
 * offer (snapshot samples, summaries at a time); NULL for other formats.
 * Borrowed: valid until vftr_source_free. */
struct vftr_window *vftr_source_window(struct vftr_source *s);

/*
 * The functions' source locations numbered as OTF numbers them (DefSclFile,
 * DefScl): files 1, 2, ... in order of first use by the functions in token
 * order, locations (file, line) likewise; func_scl[i] is the location token
 * of function i of vftr_source_funcs (0: none).  Filled by
 * vftr_source_scls_init (0 or -ENOMEM), freed by _release; names borrowed
 * from the source.
 */
struct vftr_source_scls {
    const char **files;               /* files[k]: file token k + 1 */
    size_t nfiles;
    struct { uint32_t file, line; } *locs;   /* locs[k]: location token k + 1 */
    size_t nlocs;
    uint32_t *func_scl;
};
int vftr_source_scls_init(const struct vftr_source *s, struct vftr_source_scls *out);
void vftr_source_scls_release(struct vftr_source_scls *t);

/* Lookups by token: NULL when the trace defines none. */
const struct vftr_source_proc *vftr_source_proc(const struct vftr_source *s, uint32_t token);
const struct vftr_source_func *vftr_source_func(const struct vftr_source *s, uint32_t token);
const char *vftr_source_group_name(const struct vftr_source *s, uint32_t token);
const char *vftr_source_collop_name(const struct vftr_source *s, uint32_t token);

/*
 * A function, group or collective-operation token as every tool names it:
 * the trace's name, else "function-7", "group-7" or "collective-7" written
 * into buf (which is then returned; 48 bytes suffice).
 */
enum { VFTR_SOURCE_NAME_FUNCTION, VFTR_SOURCE_NAME_GROUP, VFTR_SOURCE_NAME_COLLOP };
const char *vftr_source_token_name(const struct vftr_source *s, int kind, uint32_t token,
                                   char *buf, size_t size);
const struct vftr_source_comm *vftr_source_comm(const struct vftr_source *s, uint32_t token);
const struct vftr_source_file *vftr_source_file(const struct vftr_source *s, uint32_t token);
const char *vftr_source_filegroup_name(const struct vftr_source *s, uint32_t token);

/* What kind of trace the operand names (without reading more than a
 * directory listing): VFTR_SOURCE_OTF2 for "*.otf2" or a directory that
 * holds one, VFTR_SOURCE_VFD for .vfd / .tmpvfd files and other
 * directories, VFTR_SOURCE_OTF otherwise. */
enum vftr_source_kind vftr_source_kind_of(const char *operand);

/* The kinds of operand a tool takes (bits), for vftr_source_check_operand. */
enum {
    VFTR_TAKES_OTF = 1u << 0,     /* an OTF trace: "foo" or "foo.otf" */
    VFTR_TAKES_OTF2 = 1u << 1,    /* an OTF2 archive: traces.otf2 or its directory */
    VFTR_TAKES_VFD = 1u << 2,     /* .vfd files and run directories */
    VFTR_TAKES_ALL = 7u,
};

/*
 * Checks, before it is opened, that `operand` is a kind of trace the tool
 * takes, from its name, a directory's listing or a file's first bytes.
 * Returns 0 when it is, or when that cannot be told here (a missing or
 * unreadable path: the opener's message names it); -EINVAL for a trace of
 * another kind, with what to run ("run/: a run directory of .vfd files of
 * vftr's capture, where an OTF trace (foo or foo.otf) was expected; convert
 * it first: vfd2otf -o TRACE run/"); -EBADMSG for something that is no trace
 * ("log.txt: a text file (its first line: '...'), not a trace: expected
 * ...").  The message starts with the operand.
 */
int vftr_source_check_operand(const char *operand, unsigned takes, char *err, size_t errlen);

/* The same for a tool's n operands: prints "<tool>: <message>" and returns
 * the exit status (VFTR_EXIT_USAGE for -EINVAL, VFTR_EXIT_ERROR for
 * -EBADMSG), or VFTR_EXIT_OK when every operand may be opened. */
struct vftr_tool;
int vftr_source_check_operands(const struct vftr_tool *tool, char *const *ops, int n,
                               unsigned takes);

/* The processes ordered by rank, thread and token (vfd2otf's order, which
 * OTF writers and printers follow): an array of pointers into the
 * source's processes, to free(); NULL on ENOMEM (n set either way). */
const struct vftr_source_proc **vftr_source_procs_by_rank(const struct vftr_source *s,
                                                           size_t *n);
/* The same order of any array of N processes (the OTF writer's, which is
 * given its processes without a source): pointers into PROCS, to free();
 * NULL on ENOMEM. */
const struct vftr_source_proc **vftr_source_order_by_rank(const struct vftr_source_proc *procs,
                                                           size_t n);

/* Resolves the rank names of a --process selection ("rank 3 thread 2",
 * util/tracesel.h) against the source's processes: 0, -ENOENT (a name
 * selects nothing; err says which and the ranks there are), -ENOMEM. */
struct vftr_tracesel;
int vftr_source_resolve_names(const struct vftr_source *s, struct vftr_tracesel *sel, char *err,
                              size_t errlen);

/* A progress line (util/progress.h, borrowed; NULL: none) that profiles
 * advance, its total set here: .vfd input by the bytes of the files read,
 * OTF by the bytes of the event files its replay reads (otfreplay.h),
 * OTF2 by the event records read of those the location definitions
 * announce.  The caller draws its end (vftr_progress_end).  A profile
 * taken from an OTF trace's summaries or snapshots reads little and draws
 * nothing. */
struct vftr_progress;
void vftr_source_set_progress(struct vftr_source *s, struct vftr_progress *p);

/* The process a thread is folded into: its outermost ancestor (the rank's
 * own process); a process without parent is itself.  A vftr_procmap_fn
 * (summary.h) with the source as its argument. */
uint32_t vftr_source_rank_process(void *source, uint32_t process);

/*
 * How the trace's messages name their other side, for the message matcher
 * (vftr_messages_set_ranks, messages.h; with the source as its argument):
 * vftr_source_rank_process for OTF and OTF2 traces, whose writers mostly
 * name only the peer's rank (its own process, or OTF2's rank in the
 * communicator) even when a thread sent or received; NULL for a .vfd run,
 * whose conversion engine matched every message between ranks in posting
 * order and names the exact thread of the other side.
 */
vftr_procmap_fn *vftr_source_peer_ranks(const struct vftr_source *s);

/*
 * The window [a, b) of the processes in procs (NULL: all), through h as
 * window.h describes it: the calls under way at a (open_frame) and the
 * messages in flight (open_message), then the events with a <= time < b in
 * time order.  With VFTR_SOURCE_EVENTS_ONLY the state at a is not
 * delivered (and not computed).  stats (may be NULL) says what it cost.
 * Returns 0, the first non-zero value of a callback, or -errno.
 */
#define VFTR_SOURCE_EVENTS_ONLY 1u
int vftr_source_read(struct vftr_source *s, uint64_t a, uint64_t b,
                     const struct vftr_proclist *procs, unsigned flags,
                     const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                     char *err, size_t errlen);

/*
 * The profile of a window: every tool's profile comes from here.
 *
 * The figures are those of a call-stack replay (replay.h) of the window's
 * events with the stacks at its start as they are (calls under way at a
 * count from a, calls still open at b end at b): per (process, function)
 * calls, exclusive and inclusive time, and, with VFTR_PROFQ_PATHS, the call
 * paths.  How they are computed is the backend's business and does not
 * change them: an OTF trace with summaries at or near the edges takes
 * p(b) - p(a) from them plus the events between a summary and an edge;
 * otherwise the events are replayed from the nearest snapshot before a, or
 * from the trace start.
 *
 * Inclusive time of a function is summed over its calls, nested recursive
 * calls too (VFTR_REPLAY_INCL_PER_CALL: what OTF's FunctionSummary records
 * hold, so summaries and events give one figure, and incl/calls is the
 * mean inclusive time of a call); per call path every node is distinct
 * anyway.  With VFTR_PROFQ_INCL_ONCE a token counts once while any of its
 * calls is active (the time it was on the stack: what a function group
 * needs); summaries cannot give that, so such a query replays events.
 */
#define VFTR_PROFQ_PATHS 1u          /* keep the call paths (res->paths) */
#define VFTR_PROFQ_INCL_ONCE 2u      /* inclusive time once per active token */
struct vftr_profq {
    uint64_t a, b;                   /* the window; 0, UINT64_MAX: all */
    const struct vftr_proclist *procs;    /* NULL: every process */
    /* the token figures are booked under: NULL for the function itself */
    uint32_t (*token)(void *arg, uint32_t function);
    vftr_procmap_fn *process;        /* NULL: every process on its own */
    void *arg;
    unsigned flags;                  /* VFTR_PROFQ_* */
};

struct vftr_profq_result {
    struct vftr_fsacc *acc;          /* per (mapped process, token): owned by the result */
    struct vftr_replay *paths;       /* VFTR_PROFQ_PATHS: finished replay (its paths) */
    const char *method;              /* "events", "summaries", "snapshots" */
    int nsums, npieces;              /* summary reads, replays from snapshots */
    uint64_t bytes;                  /* bytes read */
    uint64_t replayed;               /* events read to reach the window start */
    uint64_t delivered;              /* events inside the window */
    uint64_t negative;               /* summary differences that came out negative */
    unsigned jobs, streams;          /* threads and streams of an event replay */
};

/* Computes *res (released with vftr_profq_release).  0 or -errno. */
int vftr_source_profile(struct vftr_source *s, const struct vftr_profq *q,
                        struct vftr_profq_result *res, char *err, size_t errlen);
void vftr_profq_release(struct vftr_profq_result *res);

/*
 * The event route of vftr_source_profile, for a caller that reads the
 * window itself and wants its profile from the same read (vftr-tui draws
 * the timeline and takes the profile in one pass): feed it what a window
 * read delivers (open frames, then the events of [q->a, q->b) in each
 * process's time order), then vftr_profbuild_finish() fills *res exactly
 * as vftr_source_profile would.  q is copied (its procs and arg borrowed).
 * Functions return 0 or -errno; new returns NULL + errno.
 */
struct vftr_profbuild;
struct vftr_profbuild *vftr_profbuild_new(const struct vftr_profq *q);
void vftr_profbuild_free(struct vftr_profbuild *b);        /* NULL-safe */
int vftr_profbuild_open_frame(struct vftr_profbuild *b, uint32_t process, uint32_t function,
                              uint64_t enter);
int vftr_profbuild_enter(struct vftr_profbuild *b, uint64_t time, uint32_t process,
                         uint32_t function);
int vftr_profbuild_leave(struct vftr_profbuild *b, uint64_t time, uint32_t process,
                         uint32_t function);
/* *res (empty or released) gets the profile; b is spent (free it). */
int vftr_profbuild_finish(struct vftr_profbuild *b, struct vftr_profq_result *res);

#endif /* VFTR_MODEL_SOURCE_H */
