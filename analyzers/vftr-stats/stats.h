/*
 * stats.h — the parts of vftr-stats that live in files of their own:
 * window profiles from summaries and snapshots (winprof.c) and .vfd input
 * (vfdin.c).  Internal to the tool; the model they use is in lib/model.
 */
#ifndef VFTR_STATS_STATS_H
#define VFTR_STATS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "otf.h"

#include "model/summary.h"
#include "util/tracesel.h"

/* How the tool names what it feeds the model: the replay token of a
 * function (itself, or its group under --groups) and the process figures
 * are booked under (the rank, when threads are folded). */
struct stats_map {
    uint32_t (*token)(void *arg, uint32_t function);
    vftr_procmap_fn *process;         /* NULL: processes as they are */
    void *arg;
};

struct winprof_in {
    const char *stub;
    OTF_FileManager *manager;
    const struct vftr_tracesel *sel;   /* --process */
    uint64_t a, b;                     /* the window [a, b), b UINT64_MAX: open */
    const uint64_t *sums, *snaps;      /* DefAuxSamplePoint times */
    size_t nsums, nsnaps;
    struct stats_map map;
};

struct winprof_out {
    struct vftr_winplan plan;
    uint64_t first, last;              /* the trace's event span */
    uint64_t bytes;                    /* read by the window reads */
    uint64_t replayed, delivered;      /* events read to reach an edge / inside pieces */
    uint64_t negative;                 /* figures that came out negative (clamped) */
};

/*
 * The window profile of [a, b) from summaries and snapshots (see
 * lib/model/summary.h) added to acc.  Returns 0; 1 when the trace has
 * neither summaries nor snapshots (nothing done: read the window's events);
 * -errno with err set.
 */
int stats_window_profile(const struct winprof_in *in, struct vftr_fsacc *acc,
                         struct winprof_out *out, char *err, size_t errlen);

/*
 * The call paths of the window [a, b) on a trace with snapshots: one replay
 * of [a, b) seeded with the call stacks at a (rebuilt from the latest
 * snapshot at or before a and the events from it up to a), so that calls
 * cut by the window start sit at their real paths.  Summaries hold no
 * paths, so this reads the window's events.  *replay (caller frees) is
 * finished.  Returns 0; 1 when the trace has no snapshots (nothing done);
 * -errno with err set.
 */
int stats_window_paths(const struct winprof_in *in, struct vftr_replay **replay,
                       struct winprof_out *out, char *err, size_t errlen);

struct winmsg_out {
    struct vftr_winplan plan;
    uint64_t bytes;                    /* read by the summary reads */
    uint64_t records;                  /* summary records read */
    uint64_t negative;                 /* figures that came out negative (clamped) */
};

/*
 * --messages of the window [a, b) from MessageSummary and CollopSummary
 * records, S(b) - S(a), when the trace has summaries exactly at both edges
 * (an edge at or before the first event is summary zero; an open end takes
 * the summary after the last event).  Adds to p2p one row per (process,
 * peer) — peer 0 when the summaries aggregate over peers, as otfaux's do —
 * and to coll one per (collective operation, 0), summed over processes and
 * communicators; values sent number, received number, sent bytes, received
 * bytes.  Returns 0; 1 when the edges have no summaries (nothing done: read
 * the window's events); -errno with err set.
 */
int stats_window_messages(const struct winprof_in *in, struct vftr_cntacc *p2p,
                          struct vftr_cntacc *coll, struct winmsg_out *out, char *err,
                          size_t errlen);

/* ------------------------------------------------------------ .vfd input */

#include "model/vfdfeed.h"
#include "util/timespec.h"

/* Does the operand name .vfd input (a *.vfd file or a directory)? */
int stats_is_vfd(const char *operand);

/*
 * Reads the .vfd files named by the operands (files, or directories whose
 * *.vfd files are taken in name order) into a new replay of the --time
 * window (times in ns from the earliest start of the files: the feed's
 * common clock); files of ranks outside --process (rank + 1) are skipped.
 * *replay (caller frees) is finished; *resolution gets 10^9.  Returns 0 or
 * -errno with err set ("FILE: ..."); -EINVAL for a bad --time.
 */
int stats_vfd_read(char *const *operands, int n, const struct vftr_tracesel *sel,
                   struct vftr_vfdfeed *feed, struct vftr_replay **replay,
                   uint64_t *resolution, char *err, size_t errlen);

#endif /* VFTR_STATS_STATS_H */
