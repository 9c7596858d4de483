/*
 * replay.h — call-stack replay: turns the Enter/Leave events of any number
 * of processes into exclusive and inclusive time per function (per process)
 * and per call path (summed over processes).  It reads no file: a tool's
 * event handlers (OTF, .vfd) call vftr_replay_enter()/_leave() in each
 * process's time order (processes may interleave freely), then
 * vftr_replay_finish() once.
 *
 * Definitions (all times in the trace's ticks):
 *   - calls:     the number of Enter events inside the window [start, end).
 *                A call that began before the window contributes its time
 *                inside the window but is not counted as a call.
 *   - exclusive: time inside the window during which the function was on
 *                top of its process's stack.
 *   - inclusive: time inside the window during which the function was on
 *                the stack at all.  Recursion is counted once: while f is
 *                already active, a nested f adds to f's calls and
 *                exclusive time but not again to its inclusive time
 *                (so inclusive never exceeds the process's wall time).
 *                Per call path every node is distinct (f/f is a path of its
 *                own), so path inclusive time is that of the node.
 *   - Events before start move only the process's stack (nothing is
 *     booked); the calls still open at start are then under way in the
 *     window, from start on, exactly as if vftr_replay_open_call() had
 *     put them there: not counted as calls, at their real call paths.  A
 *     call that spans the whole window (no event of its process inside it)
 *     gets the window's whole length.  Events at or after end are ignored.
 *     Both kinds are counted in counts.outside.  So a caller feeds the
 *     events from the trace start (or seeds the stacks at start with
 *     vftr_replay_open_call() and feeds from there) and gets the window's
 *     profile; feeding only the events inside [start, end) loses the calls
 *     that enclose the whole window.
 *   - A Leave with an empty stack (its Enter was before the window, or is
 *     missing) opens an implied frame that starts at the window start (or,
 *     without a window start, at the process's first event) and that
 *     encloses every call completed at the stack bottom since the last such
 *     frame, then closes it: a window that cuts calls in half gets the right
 *     exclusive times.  Counted in counts.implied_enters.  Implied frames sit
 *     at the root of the call-path tree (what called them is not known).
 *   - A Leave of a function that is not on top of the stack closes the
 *     frames above it at the same time (counts.mismatched); a Leave of a
 *     function not on the stack at all, while the stack is not empty, is
 *     ignored (counts.mismatched too).  A Leave with function 0 closes the
 *     top frame, whatever it is.
 *   - vftr_replay_finish() closes the calls still open at the window end
 *     (or, for a window open at its end, at each process's last event):
 *     counts.closed_at_end.
 *   - A time stamp smaller than the previous one of the same process is
 *     taken as equal to it (counts.backwards).
 *
 * Functions return 0 or -errno (-ENOMEM; -EINVAL after finish).  Ownership:
 * the replay owns everything it returns; pointers stay valid until the next
 * call that modifies it.  Threads: a replay is used by one thread at a time;
 * separate replays are independent (no globals).
 */
#ifndef VFTR_MODEL_REPLAY_H
#define VFTR_MODEL_REPLAY_H

#include <stddef.h>
#include <stdint.h>

/* One function on one process. */
struct vftr_funcstat {
    uint32_t process;
    uint32_t function;
    uint64_t calls;
    uint64_t excl;
    uint64_t incl;
};

/* One node of the call-path tree, summed over all processes.  Path ids
 * start at 1 (index + 1 in vftr_replay_paths()); parent 0 is the root. */
struct vftr_pathstat {
    uint32_t parent;
    uint32_t function;
    uint32_t depth;      /* 1 for a root-level call */
    uint64_t calls;
    uint64_t excl;
    uint64_t incl;
};

struct vftr_replay_counts {
    uint64_t enters, leaves;        /* events inside the window */
    uint64_t outside;               /* events ignored: outside the window */
    uint64_t implied_enters;        /* leaves without a matching enter */
    uint64_t mismatched;            /* leaves of a function not on top */
    uint64_t closed_at_end;         /* calls still open at the end */
    uint64_t backwards;             /* time stamps that went backwards */
};

struct vftr_replay;

/*
 * A replay of the window [start, end): start 0 and end UINT64_MAX for the
 * whole trace.  NULL + errno (EINVAL if end <= start, ENOMEM).
 */
struct vftr_replay *vftr_replay_new(uint64_t start, uint64_t end);
void vftr_replay_free(struct vftr_replay *r);     /* NULL-safe */

int vftr_replay_enter(struct vftr_replay *r, uint32_t process, uint32_t function, uint64_t time);
int vftr_replay_leave(struct vftr_replay *r, uint32_t process, uint32_t function, uint64_t time);

/*
 * Puts a call that was already under way at the window start on the stack
 * of `process` (from an EnterSnapshot record, or a stack rebuilt another
 * way), outermost first and before any event of that process.  Its time
 * counts from max(enter, window start); it is not counted as a call.
 * Returns 0, -ENOMEM, or -EINVAL after finish or once the process has had
 * an event (before the window too).
 */
int vftr_replay_open_call(struct vftr_replay *r, uint32_t process, uint32_t function,
                          uint64_t enter);

/*
 * Options, set before the first event (-EINVAL afterwards):
 *   VFTR_REPLAY_INCL_PER_CALL: inclusive time per function is the sum over
 *   its calls, so a nested f adds again (what OTF FunctionSummary records
 *   and otfaux hold); needed when a replay's figures are combined with
 *   summary records.  Call-path figures are unaffected.
 *   VFTR_REPLAY_NO_PATHS: keep no call paths (vftr_replay_paths() gives
 *   none): for callers that want the function figures alone, a little
 *   faster.
 * Returns 0 or -EINVAL.
 */
#define VFTR_REPLAY_INCL_PER_CALL 1u
#define VFTR_REPLAY_NO_PATHS 2u
int vftr_replay_set_flags(struct vftr_replay *r, unsigned flags);

/*
 * Figures per function group from the same replay (what the report shows
 * beside the function profile, without replaying every event a second
 * time with group tokens).  group(arg, function) names the token a
 * function is booked under; set it before the first event (-EINVAL
 * afterwards, -ENOMEM).  The replay then also keeps, per (process, group):
 *   calls:     the sum of the calls of the group's functions;
 *   exclusive: the sum of their exclusive times;
 *   inclusive: the time during which any function of the group was on the
 *              stack, counted once (nested calls of the group add
 *              nothing).
 * These are the figures of a replay of the same events with every function
 * replaced by its group (and inclusive time once) exactly when the two
 * stacks move alike: when every leave closed the frame on top and no event
 * came before the window start.  A leave matched by function is not always
 * one matched by group (a mismatched leave of f under g of f's group closes
 * g's frame only in the group replay), so vftr_replay_groups_exact() says
 * whether the figures can be used; when it says 0 the caller replays the
 * group tokens instead.  vftr_replay_merge() adds src's group figures to
 * dst's (when dst has a map; src without one makes dst's inexact).
 */
int vftr_replay_set_groups(struct vftr_replay *r, uint32_t (*group)(void *arg, uint32_t function),
                           void *arg);
/* Per (process, group) in order of first appearance; none without a map. */
const struct vftr_funcstat *vftr_replay_groupstats(const struct vftr_replay *r, size_t *n);
/* 1: the group figures equal a replay of the group tokens (see above);
 * 0: they may not (a mismatched leave, an implied enter, an event before
 * the window start), or no map was set. */
int vftr_replay_groups_exact(const struct vftr_replay *r);

/* Closes open calls (see above).  Afterwards enter/leave return -EINVAL. */
int vftr_replay_finish(struct vftr_replay *r);

/*
 * Adds the results of the finished replay src to the finished replay dst,
 * as if dst had replayed src's events too: figures per (process, function)
 * are added (rows new to dst are appended in src's order), call paths are
 * merged by (parent path, function) and their figures added (unless dst
 * keeps no paths), counts added,
 * processes united.  Meant for replays of disjoint sets of processes (e.g.
 * groups of OTF streams replayed by separate threads): the result is then
 * the replay of all of them, up to the order of rows and path ids.  src is
 * not changed.  Returns 0, -EINVAL (one of them not finished, or dst ==
 * src), or -ENOMEM (dst then holds part of src).
 */
int vftr_replay_merge(struct vftr_replay *dst, const struct vftr_replay *src);

/* Results: per (process, function) in order of first appearance. */
const struct vftr_funcstat *vftr_replay_funcstats(const struct vftr_replay *r, size_t *n);
const struct vftr_pathstat *vftr_replay_paths(const struct vftr_replay *r, size_t *n);
const struct vftr_replay_counts *vftr_replay_counts(const struct vftr_replay *r);

/* The one order of a call-path tree's rows (vftr-stats --callpath, the
 * report's tree): siblings together (by parent), the larger inclusive time
 * first, then by name, then by function token.  Path ids depend on the
 * order events were replayed and merged (--jobs), so they never decide.
 * Returns <0, 0 or >0 as for qsort. */
int vftr_pathstat_order(const struct vftr_pathstat *x, const char *xname,
                        const struct vftr_pathstat *y, const char *yname);

/* Number of processes that had at least one event inside the window (or
 * a call under way across it). */
size_t vftr_replay_nprocesses(const struct vftr_replay *r);

/*
 * The stack of a process as the replay holds it now, for callers that need
 * more than the figures (the wait analysis, analysis.h, asks which call an
 * MPI record happened in).  Frames before the window start are not kept as
 * frames until the window's first event of the process.
 */
struct vftr_replay_frame {
    uint32_t function;
    uint32_t path;        /* path id; 0 with VFTR_REPLAY_NO_PATHS */
    uint64_t enter;       /* its enter time (the window start for a call under way there) */
};

/* The depth of process's stack (0: empty, or no event yet) and, when it is
 * not empty and top is not NULL, its top frame in *top. */
size_t vftr_replay_top(const struct vftr_replay *r, uint32_t process,
                       struct vftr_replay_frame *top);

/* Frame i of process's stack, 0 the outermost: 0, or -ENOENT when i is not
 * below the depth. */
int vftr_replay_frame(const struct vftr_replay *r, uint32_t process, size_t i,
                      struct vftr_replay_frame *f);

#endif /* VFTR_MODEL_REPLAY_H */
