/*
 * summary.h — window profiles from OTF summary records (sections 2.8 and
 * 2.9 of the OTF specification): the arithmetic, not the reading.
 *
 * A FunctionSummary record at time t holds, per process and function, the
 * figures cumulated from the start of the trace up to t, not including the
 * events at t itself (otfaux's records, and vftr-snap's, which copy them):
 * calls = enters before t; exclusive and inclusive time inside [start, t),
 * calls still under way at t counted up to t; inclusive time summed over
 * calls (a nested f adds again).  So for any window [a, b)
 *
 *     p([a, b)) = S(b) − S(a)
 *
 * and when there is no summary exactly at an edge e, the nearest earlier
 * point s that has a snapshot (the stack at s) gives p([s, e)) from the
 * events between s and e alone:
 *
 *     p([a, b)) = S(sb) − S(sa) + P([sb, b)) − P([sa, a))
 *
 * where P is a call-stack replay (replay.h, VFTR_REPLAY_INCL_PER_CALL)
 * seeded with the snapshot.  With sa == sb the summaries cancel: that is the
 * snapshot-only case, P([s, b)) − P([s, a)).  The trace start (any time at
 * or before the first event) is a free point: summary zero, empty stack.
 *
 * vftr_winplan_make() chooses sa and sb so that the fewest ticks of events
 * are read; vftr_fsacc adds and subtracts the figures (summaries and
 * replays alike) per (process, function).
 *
 * Functions return 0 or -errno; constructors NULL + errno.  Ownership: an
 * accumulator owns its rows (valid until the next add or free).  Threads:
 * one thread at a time per object; no globals.
 */
#ifndef VFTR_MODEL_SUMMARY_H
#define VFTR_MODEL_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

/* ------------------------------------------------------------ accumulator */

struct vftr_fsacc;

struct vftr_fsacc *vftr_fsacc_new(void);
void vftr_fsacc_free(struct vftr_fsacc *a);     /* NULL-safe */

/* Adds (sign > 0) or subtracts (sign < 0) one process's figures of one
 * function.  0 or -ENOMEM. */
int vftr_fsacc_add(struct vftr_fsacc *a, uint32_t process, uint32_t function, int sign,
                   uint64_t calls, uint64_t excl, uint64_t incl);

/* The same for n replay statistics; map (may be NULL) renames processes
 * first, e.g. to fold threads into their rank. */
typedef uint32_t vftr_procmap_fn(void *arg, uint32_t process);
int vftr_fsacc_add_stats(struct vftr_fsacc *a, const struct vftr_funcstat *fs, size_t n,
                         int sign, vftr_procmap_fn *map, void *arg);

/*
 * The result as replay statistics, in order of first appearance: rows whose
 * calls and times are all zero are left out (a function seen only outside
 * the window); a figure that came out negative (inconsistent input: the
 * summaries do not belong to these events) is clamped to 0 and counted in
 * *negative (may be NULL).  Borrowed until the next call on a.
 */
const struct vftr_funcstat *vftr_fsacc_result(struct vftr_fsacc *a, size_t *n,
                                              uint64_t *negative);

/* ------------------------------------------------ counters of other summaries */

/*
 * The same arithmetic for the message and collective summaries: four
 * counters (sent and received number, sent and received bytes, in that
 * order) per key pair (process and peer for MessageSummary, collective
 * operation and 0 for CollopSummary, as the caller chooses).
 */
#define VFTR_CNTACC_NVALUES 4

struct vftr_cntrow {
    uint32_t a, b;
    uint64_t v[VFTR_CNTACC_NVALUES];
};

struct vftr_cntacc;

struct vftr_cntacc *vftr_cntacc_new(void);
void vftr_cntacc_free(struct vftr_cntacc *c);     /* NULL-safe */

/* Adds (sign > 0) or subtracts (sign < 0) v to the row (a, b).  0 or
 * -ENOMEM. */
int vftr_cntacc_add(struct vftr_cntacc *c, uint32_t a, uint32_t b, int sign,
                    const uint64_t v[VFTR_CNTACC_NVALUES]);

/* The rows sorted by (a, b), all-zero rows left out, negative values
 * clamped to 0 and counted in *negative (may be NULL).  Borrowed until the
 * next call on c; NULL + ENOMEM. */
const struct vftr_cntrow *vftr_cntacc_result(struct vftr_cntacc *c, size_t *n,
                                             uint64_t *negative);

/* ------------------------------------------------------------ window plan */

/* What the trace offers: the times of its summaries and snapshots (any
 * order, duplicates allowed; borrowed) and its event time range. */
struct vftr_auxpoints {
    const uint64_t *summaries;
    size_t nsummaries;
    const uint64_t *snapshots;
    size_t nsnapshots;
    uint64_t first, last;     /* first and last event time stamp */
};

/* One replay: P([start, end)) seeded by the snapshot at start (none when
 * start is at or before the first event), added with sign. */
struct vftr_winpiece {
    uint64_t start, end;      /* end UINT64_MAX: to the end of the trace */
    int sign;
    int snapshot;             /* read the snapshot at start */
};

struct vftr_winplan {
    int exact_events;         /* no auxiliary records help: read [a, b) alone */
    int nsums;                /* summary reads: 0 or 2 */
    uint64_t sum_at[2];       /* S(sum_at[0]) is added, S(sum_at[1]) subtracted;
                                 a time at or before the first event reads nothing */
    struct vftr_winpiece piece[2];
    int npieces;
    uint64_t cost;            /* ticks of events to read */
};

/*
 * Plans the window [a, b) (b UINT64_MAX: open) on a trace with `aux`.  When
 * the trace has neither summaries nor snapshots, plan->exact_events is set
 * and nothing else: the caller reads the window's events as before.  An
 * open end is taken exactly from the first summary after the last event (as
 * otfaux writes one): calls never left are then counted up to that time.
 * Returns 0, or -EINVAL when b <= a.
 */
int vftr_winplan_make(const struct vftr_auxpoints *aux, uint64_t a, uint64_t b,
                      struct vftr_winplan *plan);

#endif /* VFTR_MODEL_SUMMARY_H */
