/*
 * profile.h — the function profile across processes, aggregated from the
 * per-process statistics of a call-stack replay (replay.h), and the one
 * imbalance figure every vftr tool and log shows.
 *
 * Imbalance of a function: (max − avg) / max of its exclusive time over
 * the processes that called it (the definition Score-P's and Vftrace's
 * "imbalance" reports use), a number in [0, 1): 0 means every process spent
 * the same time, 0.75 that the slowest process spent four times the
 * average.  0 when max is 0.  Processes that never ran the function are not
 * counted (nprocs says how many did); a function run by one process only has
 * imbalance 0.
 *
 * Ownership: a profile owns its rows; release with vftr_profile_release().
 * Threads: pure functions of their arguments; no globals.
 */
#ifndef VFTR_MODEL_PROFILE_H
#define VFTR_MODEL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

struct vftr_profile_row {
    uint32_t function;
    uint32_t nprocs;          /* processes with this function */
    uint64_t calls;           /* summed over processes */
    uint64_t excl, incl;      /* ticks, summed over processes */
    uint64_t excl_min, excl_max;   /* over the nprocs processes */
    double excl_avg;          /* excl / nprocs */
    double imbalance;         /* vftr_imbalance(excl_max, excl_avg) */
};

struct vftr_profile {
    struct vftr_profile_row *rows;   /* one per function, in order of first appearance */
    size_t nrows;
    uint64_t total;           /* sum of all exclusive time: the 100 % of a table */
    size_t nprocs;            /* processes with at least one function */
};

#define VFTR_PROFILE_INIT { NULL, 0, 0, 0 }

/* (max − avg) / max, 0 if max is 0 (see above). */
double vftr_imbalance(double max, double avg);

/*
 * Aggregates n per-process statistics (any order; a (process, function)
 * pair at most once) into *p (which must be empty or released).  0 or
 * -ENOMEM (then *p is empty).
 */
int vftr_profile_build(struct vftr_profile *p, const struct vftr_funcstat *fs, size_t n);

void vftr_profile_release(struct vftr_profile *p);

#endif /* VFTR_MODEL_PROFILE_H */
