/*
 * model.h — what vftr-tui shows, without any curses: the trace index
 * (processes, functions, time span, snapshots), the view (visible window
 * [t0, t1), cursor, mark, selected process, call depth, selected function,
 * sort order, search) and the data computed for it (timeline grid, profile
 * table, details at the cursor).  The screen layer (screen.h) draws it and
 * the key table (keys.h) changes it; unit tests drive it with no terminal.
 *
 * How it stays fast: every refresh reads only the visible window through
 * lib/model/window.h (binary time search + nearest snapshot).  A window that
 * spans more than TUI_SAMPLE_INTERVALS snapshot intervals is drawn from the
 * snapshots alone ("sampled": each column shows the state at the first
 * snapshot inside it, or at the latest one before it) and profiled from the
 * summaries at its edges (p(b) - p(a)) when the trace has them.  Smaller
 * windows are read event by event ("exact"): each column shows the function
 * active at the call depth at the column's start, or, if none, the first
 * one entered at that depth inside the column.
 *
 * Errors: 0 or -errno; messages go to the caller's buffer (errmsg.h style).
 * Ownership: the model owns everything it returns (valid until the next
 * call that changes it).  Threads: one thread.
 */
#ifndef VFTR_TUI_MODEL_H
#define VFTR_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "comm.h"
#include "model/profile.h"
#include "model/window.h"

#define TUI_SAMPLE_INTERVALS 8

struct vftr_source;

struct tui_proc {
    uint32_t id;
    char *name;
    char *label;                /* as shown: the name, with vftr's "Rank 3" and "Rank 3
                                   Thread 2" written "rank 3" and "rank 3 thread 2" */
    uint32_t parent;            /* DefProcess parent (a thread's rank), 0 none */
    int child;                  /* 1: shown under its parent (parent is in the trace) */
    int nchildren;              /* threads under it */
    int folded;                 /* its threads are hidden */
};

struct tui_func {
    uint32_t id;
    char *name;
    uint32_t group;             /* DefFunction's function group, 0 none */
};

struct tui_group {              /* DefFunctionGroup */
    uint32_t id;
    char *name;
};

struct tui_counter {            /* DefCounter */
    uint32_t id;
    char *name;
    char *unit;
};

/* A counter's value at the cursor (details): the latest Counter record of
 * the selected process at or before the cursor. */
struct tui_counter_value {
    uint32_t counter;
    int known;                  /* 0: no record found (see tui_model_refresh) */
    uint64_t time, value;
};

/* Columns of the profile table (sort keys), defined once in model.c. */
enum tui_col { TUI_COL_EXCL, TUI_COL_INCL, TUI_COL_CALLS, TUI_COL_IMBAL, TUI_COL_NAME, TUI_NCOLS };

struct tui_column {
    const char *key;       /* shown in the header and the status line */
    const char *header;
    int width;
};
extern const struct tui_column tui_columns[TUI_NCOLS];

struct tui_frame {
    uint32_t function;
    uint64_t enter;
};

struct tui_msg {
    uint64_t time;
    uint32_t sender, receiver, comm, tag, length;
};

/* What the communication matrix shows per sender and receiver (comm.h). */
enum tui_comm_unit { TUI_COMM_COUNT, TUI_COMM_BYTES, TUI_COMM_TIME, TUI_COMM_NUNITS };
extern const char *const tui_comm_unit_names[TUI_COMM_NUNITS];

struct tui_view {
    uint64_t t0, t1;            /* visible window [t0, t1) */
    uint64_t cursor;
    uint64_t mark;
    int have_mark;
    size_t proc_sel;            /* index into the process list */
    uint32_t depth;             /* 1 = outermost calls */
    uint32_t func_sel;          /* highlighted function, 0 none */
    enum tui_col sort;
    int reverse;
    size_t prof_sel;            /* selected row of the profile table */
    int show_messages;          /* mark cells with message events */
    int color_by_group;         /* timeline letters/colours and legend by function group */
    int comm;                   /* compute the communication view (tui_model_set_comm) */
    enum tui_comm_unit comm_unit;   /* what the matrix shows */
    size_t ctr_sel;             /* the counter the profile's counter column shows */
};

struct tui_data {
    /* timeline: nprocs rows x ncols cells, function ids (0 = nothing) */
    uint32_t *grid;
    uint8_t *marks;             /* bit 1: a message sent or received, bit 2: a collective */
    size_t ncols;
    int sampled;                /* 1: drawn from snapshots */
    /* profile of the visible window, sorted by view.sort */
    struct vftr_profile prof;
    size_t *order;              /* indices into prof.rows, sorted */
    int prof_from_summaries;    /* 1: p(S_b) - p(S_a) */
    /* the profile's counter columns: per row of prof (rows x ncounters, in
     * tui_model_counters order) the function's counts over its calls
     * that began and ended in the window (a recursive call counted once,
     * at its outermost frame), summed over the processes; NULL: the trace
     * has no counters, or the window was sampled (not computed) */
    uint64_t *prof_ctr;
    uint64_t prof_a, prof_b;    /* the summary times used */
    /* details: stack of the selected process at the cursor, messages */
    struct tui_frame *stack;
    size_t nstack;
    struct tui_msg *msgs;
    size_t nmsgs;
    /* counter values of the selected process at the cursor, one per
     * defined counter (tui_model_counters order) */
    struct tui_counter_value *counters;
    size_t ncounters;
    /* cost of the last refresh */
    uint64_t bytes_read;
    double seconds;
};

struct tui_model;

/* Opens the trace (foo or foo.otf).  NULL + errno, err filled. */
struct tui_model *tui_model_open(const char *trace, char *err, size_t errlen);
void tui_model_free(struct tui_model *m);

const struct tui_proc *tui_model_procs(const struct tui_model *m, size_t *n);
/* The visible rows of the timeline, top to bottom, as indices into the
 * process list: every process whose parent is not in the trace, each
 * followed by its threads unless it is folded.  Borrowed until the next
 * fold. */
const size_t *tui_model_rows(const struct tui_model *m, size_t *n);
/* Position of process index pi among the rows (its parent's when hidden). */
size_t tui_model_row_of(const struct tui_model *m, size_t pi);
/* Folds or unfolds the threads of process pi (of its parent if pi is a
 * thread); a selected hidden thread passes the selection to its parent.
 * -ENOENT when there are no threads to fold. */
int tui_model_fold(struct tui_model *m, size_t pi);
const struct tui_func *tui_model_funcs(const struct tui_model *m, size_t *n);
/* The name of a function id ("function N" if undefined; borrowed). */
const char *tui_model_func_name(struct tui_model *m, uint32_t id);
/* Function groups and counters as defined (sorted by id; borrowed). */
const struct tui_group *tui_model_groups(const struct tui_model *m, size_t *n);
const struct tui_counter *tui_model_counters(const struct tui_model *m, size_t *n);
/* The profile's counter column shows the next counter (view.ctr_sel). */
void tui_model_next_counter(struct tui_model *m);
/* Colouring ("paint") of the timeline: by function, or by function group
 * when view.color_by_group is set.  tui_model_paints() is the number of
 * paints (functions or groups); tui_model_paint() the paint of a function
 * id (its index among the functions or among the groups), -1 when it has
 * none (undefined function, or no group); tui_model_paint_name() its name
 * (borrowed). */
size_t tui_model_paints(const struct tui_model *m);
long tui_model_paint(const struct tui_model *m, uint32_t function);
const char *tui_model_paint_name(const struct tui_model *m, size_t paint);
const struct vftr_window_info *tui_model_info(const struct tui_model *m);
const char *tui_model_trace_name(const struct tui_model *m);
struct vftr_window *tui_model_window(struct tui_model *m);
/* The trace source the model reads (borrowed; for the wait analysis,
 * waits.h, which reads through the same window). */
struct vftr_source *tui_model_source(struct tui_model *m);

struct tui_view *tui_model_view(struct tui_model *m);
const struct tui_data *tui_model_data(const struct tui_model *m);

/* Sets the number of timeline columns (>= 1); the next refresh rebuilds. */
void tui_model_set_columns(struct tui_model *m, size_t ncols);

/* Marks what must be recomputed: the window changed (timeline + profile),
 * or only the cursor/selection (details).  Refresh does the work. */
void tui_model_invalidate(struct tui_model *m, int window);
int tui_model_refresh(struct tui_model *m, char *err, size_t errlen);
/* After a refresh that was stopped (the window's progress function,
 * window.h): shows nothing for the current view (an empty timeline,
 * profile and details, rather than what a part of the reads gave) and
 * counts it as refreshed, so that only a change of the view reads again. */
void tui_model_abandon(struct tui_model *m);

/* --- symbols and legend of the timeline ---
 * Each paint (function, or group: tui_model_paint) is drawn with one
 * symbol of TUI_SYMBOLS (never '*' or '#', the marks of messages and
 * collectives).  Up to 62 paints every paint keeps its symbol (its index);
 * beyond, the symbols go to the paints on screen, those covering the most
 * cells first, and when more than 62 are on screen the rest share
 * TUI_SYMBOL_OTHER.  A function without a paint (undefined, or without a
 * group in the group colouring) is TUI_SYMBOL_NONE.  Computed from the
 * last refresh's timeline. */
#define TUI_SYMBOLS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
#define TUI_NSYMBOLS 62
#define TUI_SYMBOL_OTHER '~'
#define TUI_SYMBOL_NONE '?'

/* The symbol of paint (-1: none); ' ' for a paint with no symbol now (not
 * on screen, beyond 62 paints). */
char tui_model_symbol(struct tui_model *m, long paint);
/* The legend: the paints on screen that have a symbol, in symbol order
 * (borrowed until the next refresh or colour change); *others the paints
 * on screen drawn TUI_SYMBOL_OTHER, *none whether TUI_SYMBOL_NONE is. */
size_t tui_model_legend(struct tui_model *m, const long **paints, size_t *others, int *none);

/* --- the communication view (comm.h) ---
 * On: the next refresh also builds the matrix of the visible window (and
 * every later one while on); in a sampled view that is a read of the
 * window's events of its own. */
void tui_model_set_comm(struct tui_model *m, int on);
/* The window's messages (valid after a refresh with the view on). */
const struct tui_comm *tui_model_comm(const struct tui_model *m);
/* The processes of the matrix: those that sent or received a message in
 * the window, as indices into the process list in the timeline's order
 * (threads after their rank, folded or not).  Borrowed until the next
 * refresh. */
size_t tui_model_comm_procs(struct tui_model *m, const size_t **procs);
/* The figure of one matrix cell in the view's unit: messages, bytes, or
 * transfer ticks; 0 when the pair exchanged nothing. */
uint64_t tui_model_comm_value(const struct tui_model *m, size_t sender_pi, size_t receiver_pi);

/* --- zoom and jump arithmetic (no reading) --- */
/* Zoom in (factor < 1) or out (> 1) around the cursor, keeping the cursor
 * at the same place on the screen; clamped to the trace and to one tick per
 * column. */
void tui_model_zoom(struct tui_model *m, double factor);
void tui_model_zoom_full(struct tui_model *m);
/* Zoom to [mark, cursor] (either order); -EINVAL without a mark. */
int tui_model_zoom_mark(struct tui_model *m);
/* Moves the cursor by n columns, panning when it leaves the window. */
void tui_model_move_cursor(struct tui_model *m, long n);
/* Pans the window by a fraction of its span (cursor moves along). */
void tui_model_pan(struct tui_model *m, double fraction);
/* Puts the cursor at t (clamped), centring the window on it if t is not
 * visible. */
void tui_model_jump(struct tui_model *m, uint64_t t);
/* The start time of column c of the current window. */
uint64_t tui_model_col_time(const struct tui_model *m, size_t c);
/* The column of time t (clamped to the window). */
size_t tui_model_time_col(const struct tui_model *m, uint64_t t);

/* Formats the duration `ticks` with the trace's resolution as util/fmt.h
 * writes times ("1.25 ms", "3.50 s", "120 ns"); "2500 ticks" when the
 * resolution is unknown.  Returns buf. */
char *tui_format_time(char *buf, size_t size, uint64_t ticks, uint64_t resolution);

/* Formats the time stamp t counted from the trace start, to the precision
 * of one column of the current view (vftr_fmt_seconds_at: "100.02 ms" when
 * zoomed in, "100 ms" on the whole trace), so that the status line, the
 * axis and the details tell apart what the timeline tells apart;
 * "2500 ticks" when the resolution is unknown.  Returns buf. */
char *tui_model_format_at(const struct tui_model *m, uint64_t t, char *buf, size_t size);

/* --- reading searches --- */
/* Next (dir > 0) or previous enter of the selected function on the
 * selected process after/before the cursor; jumps there.  0, -ENOENT (none),
 * -EINVAL (no function selected), -errno. */
int tui_model_find_event(struct tui_model *m, int dir, char *err, size_t errlen);

/* --- profile table --- */
void tui_model_sort_next(struct tui_model *m);
/* Sorts again after view.sort or view.reverse changed. */
void tui_model_resort(struct tui_model *m);
/* Compiles a PCRE2 pattern for n/N; -EINVAL with the error in err. */
int tui_model_search(struct tui_model *m, const char *pattern, char *err, size_t errlen);
/* Selects the next/previous profile row whose name matches, wrapping;
 * also selects its function.  -ENOENT when nothing matches. */
int tui_model_search_next(struct tui_model *m, int dir);
const char *tui_model_search_pattern(const struct tui_model *m);

#endif /* VFTR_TUI_MODEL_H */
