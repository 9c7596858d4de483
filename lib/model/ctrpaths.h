/*
 * ctrpaths.h — performance counters per call path, from the Counter
 * records of a trace (vftr-stats --counters).
 *
 * Capture reads a thread's counters at the enter and the exit of a
 * measured function and writes the values right after the Enter or Leave
 * (lib/vfd/vftr_vfd_counters.h; OTF: Counter records of the same time and
 * process).  Fed a process's events in time order, this keeps its call
 * stack: counter values that follow an Enter (same process, nothing in
 * between) are the start of that call, values that follow a Leave its end;
 * the difference is added to the call path's inclusive sum.  A call whose
 * start or end has no value (counters filtered, a sampled trace, a window
 * that cut it) adds nothing and is not counted.  The exclusive sum of a
 * path is its inclusive one minus the inclusive sums of its children —
 * the same rule as the counter table of capture's log, so the two agree.
 *
 * Paths are summed over processes; path ids from 1 (index + 1), parent 0
 * is the root.  Errors: 0 / -errno (-ENOMEM).  Ownership: the object owns
 * its rows; free with vftr_ctrpaths_free.  One thread at a time.
 */
#ifndef VFTR_MODEL_CTRPATHS_H
#define VFTR_MODEL_CTRPATHS_H

#include <stddef.h>
#include <stdint.h>

#include "window.h"

struct vftr_ctrpaths;

/* n counters (at most VFTR_CTRPATHS_MAX, else NULL + EINVAL) with tokens
 * tok[0..n) (the columns, in that order). */
#define VFTR_CTRPATHS_MAX 31
struct vftr_ctrpaths *vftr_ctrpaths_new(const uint32_t *tok, size_t n);
void vftr_ctrpaths_free(struct vftr_ctrpaths *c);

/* The handler to read the trace's events into (enter, leave, counter). */
struct vftr_window_handler vftr_ctrpaths_handler(struct vftr_ctrpaths *c);

struct vftr_ctrpath {
    uint32_t parent;            /* path id, 0: root */
    uint32_t function;
    uint64_t calls;             /* calls with counter values at both ends */
    const uint64_t *incl;       /* n values */
    const int64_t *excl;
};

/* Computes the exclusive sums (after the last event): the paths, *n of
 * them, borrowed until free.  NULL + errno (ENOMEM). */
const struct vftr_ctrpath *vftr_ctrpaths_result(struct vftr_ctrpaths *c, size_t *n);

#endif /* VFTR_MODEL_CTRPATHS_H */
