/*
 * report.h — a trace's figures collected once through the trace model and
 * drawn: one self-contained HTML page (vftr-report), standalone SVG charts
 * (vftr-report --svg, vftr-stats --plot).
 *
 * Where the figures come from (lib/model, nothing computed a second way):
 *   - one window read of the trace (source.h, vftr_source_read) feeds,
 *     event by event,
 *       the function profile: the call-stack replay of vftr-stats's
 *         query (model/replay.h; threads folded into their rank, call
 *         paths kept), so the table, the imbalance chart and the call tree
 *         are vftr-stats's and vftr-stats --callpath's figures;
 *       the group profile: booked by the same replay beside the functions
 *         (vftr_replay_set_groups: the function's group as token,
 *         inclusive time once per group), which equals vftr-stats
 *         --groups's replay of the group tokens unless a leave did not
 *         close the frame on top; then it is taken as vftr-stats --groups
 *         takes it, by a read of its own;
 *       the messages and collectives: vftr_messages, fed as vftr-stats
 *         --messages feeds it;
 *       the timeline: per process the function on top of its stack, binned
 *         (below);
 *   - the largest waits: the wait analysis (model/analysis.h, a read of its
 *     own after the first) when the trace has MPI or OpenMP
 *     synchronisation, as vftr-stats --waits computes and orders them;
 *   - an OTF trace is read by several threads at once (opts.jobs), each
 *     with its own source and a share of the ranks, and their builds are
 *     merged (vftr_replay_merge, vftr_fsacc) — the result does not depend
 *     on the number of threads.
 *
 * Timeline (level of detail): the time span is cut into equal bins at a
 * few resolutions (levels, each four times finer than the last, the finest
 * within a budget of cells over all processes); a bin of a process holds
 * the function that was longest on top of its stack in it (0: mostly idle),
 * and consecutive equal bins are stored as one run.  The page draws the
 * level whose bins fit the visible range, so the report's size is bounded
 * by the budget, not by the trace's length.
 *
 * Charts (VFTR_REPORT_CHARTS below): each is drawn the same way inline in
 * the page and as a standalone SVG file.  Output is deterministic: the same
 * trace gives the same bytes (rows sorted with full tie-breaks, no clock,
 * no addresses), whatever the number of threads.
 *
 * Errors: 0 or -errno with one lower-case line in err (the trace's name and,
 * where it has one, the offset); -EINVAL for operands that do not make one
 * trace (as vftr_source_open), -ENOENT, -EIO, -ENOMEM.  Warnings (what the
 * source says at open, and what the read found: repaired records, sampled
 * capture, ranks cut short, unmatched messages) go to opts->warn as they
 * are found, and are listed in the report.
 *
 * Ownership: a report owns its data and the source it read (freed by
 * vftr_report_free).  Threads: a report is used by one thread at a time;
 * collection starts and joins its own threads.  No globals.
 */
#ifndef VFTR_REPORT_REPORT_H
#define VFTR_REPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/proclist.h"
#include "util/timespec.h"

struct vftr_report_opts {
    FILE *warn;                 /* warnings as found; NULL: none */
    const char *prog;           /* prefix of warnings ("vftr-report") */
    unsigned jobs;              /* reading threads; 0: the online CPUs */
    const char *window;         /* "A:B" as --time takes it (util/timespec.h); NULL: all */
    const struct vftr_proclist *procs;   /* NULL: every process */
    size_t cells;               /* timeline budget: bins of the finest level over
                                   all processes; 0: VFTR_REPORT_CELLS */
    int no_timeline;            /* 1: no timeline (vftr-stats --plot of another chart) */
    int no_waits;               /* 1: no wait analysis (a chart only: vftr-stats --plot) */
};

#define VFTR_REPORT_CELLS (1u << 18)

/* The charts, in the order of the page:
 *   X(id, file name of --svg, title) */
#define VFTR_REPORT_CHARTS(X)                                                           \
    X(TIMELINE, "timeline", "Timeline: the function on top of each stack, by group")   \
    X(GROUPS, "groups", "Time by function group")                                      \
    X(PROFILE, "profile", "Exclusive time of the top functions")                       \
    X(CALLTREE, "calltree", "Call tree (icicle: inclusive time per call path)")        \
    X(IMBALANCE, "imbalance", "Imbalance: exclusive time per rank, min / avg / max")   \
    X(RANKS, "ranks", "Time per rank by function group")                               \
    X(MESSAGES, "messages", "Messages sent, sender x receiver")                        \
    X(BYTES, "bytes", "Bytes sent, sender x receiver")                                 \
    X(TRANSFER, "transfer", "Transfer time of matched messages, sender x receiver")    \
    X(COLLECTIVES, "collectives", "Collective operations by kind")

enum vftr_report_chart {
#define VFTR_REPORT_CHART_ENUM(id, file, title) VFTR_REPORT_CHART_##id,
    VFTR_REPORT_CHARTS(VFTR_REPORT_CHART_ENUM)
#undef VFTR_REPORT_CHART_ENUM
    VFTR_REPORT_NCHARTS
};

/* The file name (without ".svg") and the title of a chart; NULL when out of
 * range.  Static strings. */
const char *vftr_report_chart_name(enum vftr_report_chart c);
const char *vftr_report_chart_title(enum vftr_report_chart c);

struct vftr_report;

/*
 * Opens the trace named by the n operands (any input source.h reads) and
 * collects everything above.  *out (free with vftr_report_free) or -errno
 * with err.
 */
int vftr_report_collect(struct vftr_report **out, const char *const *operands, size_t n,
                        const struct vftr_report_opts *opts, char *err, size_t errlen);
void vftr_report_free(struct vftr_report *r);     /* NULL-safe */

/* How many warnings the report lists (0: a clean trace). */
size_t vftr_report_nwarnings(const struct vftr_report *r);

/* Writes the page to out.  0, or -EIO when a write failed. */
int vftr_report_write_html(const struct vftr_report *r, FILE *out);

/* Writes chart c as a standalone SVG document.  0, -EINVAL (no such chart,
 * or the timeline of a report collected without it), -EIO. */
int vftr_report_write_svg(const struct vftr_report *r, enum vftr_report_chart c, FILE *out);

#endif /* VFTR_REPORT_REPORT_H */
