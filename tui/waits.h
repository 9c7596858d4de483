/*
 * waits.h — vftr-tui's view of the wait analysis (lib/model/analysis.h,
 * share/doc/analysis.md), without curses: for the visible window [a, b),
 *   - the waits: every instance (pattern, waiting process and call path,
 *     [start, end) inside the window, the late partner and when it
 *     arrived), for the timeline's overlay and the line at the cursor, and
 *     the pattern table (pattern x call path x process: time, count,
 *     largest), the figures `vftr-stats --waits --threads --time A:B`
 *     prints for the same window;
 *   - the critical path leading to b (`vftr-stats --critical-path --time
 *     A:B`), piece by piece (which process runs it when), for the
 *     critical-path mode.
 *
 * Nothing is computed when the trace is opened or a view moves: the
 * analysis reads the trace from its start to the window's end (a wait
 * depends on what happened before), so it runs only when a view that
 * needs it is on (tui_waits_update from the event loop, which shows its
 * progress and lets Escape stop it), for the visible window, and each
 * result is kept: the last TUI_WAITS_CACHE windows of each kind are
 * answered without reading again.
 *
 * Processes are the trace's process tokens (threads apart); times are
 * ticks.  Errors: 0 / -errno with err filled.  Ownership: the object owns
 * everything it returns, valid until the next tui_waits_update or
 * tui_waits_free.  Threads: one thread.
 */
#ifndef VFTR_TUI_WAITS_H
#define VFTR_TUI_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "model/analysis.h"

#define TUI_WAITS_WAITS    1u   /* the wait instances and the pattern table */
#define TUI_WAITS_CRITPATH 2u   /* the critical path's pieces */

#define TUI_WAITS_CACHE 4       /* results kept per kind */
/* Instances kept for the overlay: beyond this many in one window the
 * overlay is left out (the table is not: it counts them all). */
#define TUI_WAITS_MAX_KEPT (1u << 22)

/* One row of the pattern table; callpath "f<caller<...<main" (borrowed). */
struct tui_wait_row {
    unsigned pattern;
    uint32_t process, path;
    const char *callpath;
    uint64_t time, count, max;
};

/* What the line at the cursor shows (tui_waits_cursor). */
struct tui_wait_cursor {
    int wait;                   /* 1: the process waits at the cursor */
    struct vftr_wait_instance w;    /* that wait (the largest one there) */
    const char *path;           /* its call path (borrowed) */
    char partner_path[512];     /* the late partner's call path when it arrived
                                   ("" if none is known) */
    int on_cp;                  /* 1: a critical path is known and passes the cursor */
    uint32_t cp_process;        /* the process that runs it there */
};

struct tui_waits;

struct tui_waits *tui_waits_new(void);
void tui_waits_free(struct tui_waits *w);      /* NULL-safe */

/* The kinds (TUI_WAITS_*) of `kinds` that are not known for [a, b): what
 * tui_waits_update would have to read the trace for. */
unsigned tui_waits_missing(const struct tui_waits *w, unsigned kinds, uint64_t a, uint64_t b);

/*
 * Makes the results of `kinds` for [a, b) of the model's trace current:
 * from the cache, or by running the analysis (reads the trace from its
 * start through the model's window, whose progress function applies: a
 * stopped read fails with -EIO).  The results of other kinds stay as they
 * were.  0 or -errno.
 */
int tui_waits_update(struct tui_waits *w, struct tui_model *m, unsigned kinds, uint64_t a,
                     uint64_t b, char *err, size_t errlen);

/* Whether the current result of `kind` is the one of [a, b). */
int tui_waits_have(const struct tui_waits *w, unsigned kind, uint64_t a, uint64_t b);

/* The pattern table of the current waits: sorted by time, largest first,
 * ties as vftr-stats orders them (call path, process, pattern). */
const struct tui_wait_row *tui_waits_rows(const struct tui_waits *w, size_t *n);
/* The waits in all (Late Sender / wrong order left out: it is a part of
 * Late Sender) and the processes' time inside the window, in ticks. */
uint64_t tui_waits_total(const struct tui_waits *w);
uint64_t tui_waits_proc_time(const struct tui_waits *w);
/* 1 when the window had more than TUI_WAITS_MAX_KEPT instances (no overlay). */
int tui_waits_overflow(const struct tui_waits *w);

/* The timeline's cell [t0, t1) of `process`: the pattern (+ 1) of the wait
 * that covers most of it, 0 if it does not wait there. */
unsigned tui_waits_cell(const struct tui_waits *w, uint32_t process, uint64_t t0, uint64_t t1);
/* 1 when the critical path runs on `process` in [t0, t1). */
int tui_waits_cp_cell(const struct tui_waits *w, uint32_t process, uint64_t t0, uint64_t t1);
/* The length of the current critical path inside its window (ticks). */
uint64_t tui_waits_cp_length(const struct tui_waits *w);

/*
 * The line at the cursor, whose cell is [t0, t1): the wait of `process`
 * that covers most of the cell (the one its mark shows), its late
 * partner's call path at the moment it arrived (read from the model's
 * window: the calls open just after that moment), and the process the
 * critical path runs on for most of the cell.  Borrowed until the next
 * call; 0 or -errno.
 */
int tui_waits_cursor(struct tui_waits *w, struct tui_model *m, uint32_t process, uint64_t t0,
                     uint64_t t1, const struct tui_wait_cursor **out, char *err, size_t errlen);

/* The character of a pattern's cells in the overlay (by its kind:
 * point-to-point, collective, OpenMP), and what the kinds are called. */
char tui_waits_symbol(unsigned pattern);
struct tui_waits_kind {
    char symbol;
    const char *name;
};
extern const struct tui_waits_kind tui_waits_kinds[];    /* ends with symbol 0 */

#endif /* VFTR_TUI_WAITS_H */
