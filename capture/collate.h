/*
 * collate.h — the profile over the ranks of an MPI run (<basename>_all.log).
 *
 * At MPI_Finalize every rank hands rank 0 its call paths and MPI statistics
 * (capture/mpi/mpi_collate.c carries them as text); rank 0 turns them into
 * struct vftr_collate_in rows and vftr_collate() merges them into one
 * struct vftr_profile with nranks set, which logfile.c prints like a rank's
 * own profile, with the columns that only a profile over ranks has.
 *
 * A call path is named by its function names from the root, separated by
 * VFTR_COLLATE_SEP: "main\001solve\001MPI_Allreduce".  Call paths of
 * different ranks (and of different threads of a rank) with the same names
 * are the same call path; the call-path ids of the ranks play no part.
 *
 * Merging:
 *   - the rows of one rank with the same path (its threads) are summed
 *     first: a rank is one sample of the spread over ranks;
 *   - calls, exclusive, inclusive and overhead times are summed over the
 *     ranks; `ranks` counts the ranks with a profile row of the path, and
 *     excl_min / excl_max (with their ranks, the lowest on ties) and the
 *     imbalance, vftr_imbalance(max, avg) of lib/model/profile.h with avg =
 *     the sum / ranks, are over those ranks;
 *   - the call paths are numbered 1.. in the order of their names, so that
 *     a parent comes before its children and siblings follow each other in
 *     the byte order of their names (a pre-order of the merged call tree);
 *     that numbering is the STID of <basename>_all.log;
 *   - MPI rows (the messages of a call path of an MPI function) are summed
 *     over the ranks into one row per call path, whose calls and time are
 *     those of the merged profile row; a path with MPI rows but no profile
 *     row (it cannot happen with capture's own data) gets a row of its own
 *     with no calls;
 *   - run_time of the result is the ranks' run times summed;
 *   - counter rows (the per-rank logs' counter tables: a thread's counted
 *     calls and inclusive counts of a call path) are summed over a rank's
 *     threads, then over the ranks, with the smallest and largest rank's
 *     value per counter (their ranks, the lowest on ties), into one row per
 *     call path, numbered as the profile's; the counters' names come from
 *     the first names row (every rank has the same counters.events).
 *
 * Ownership: the input is borrowed (and reordered); the result owns its
 * rows, names and MPI rows until vftr_collated_release().  Pure: no global
 * state, thread-safe on distinct arguments.
 */
#ifndef VFTR_CAPTURE_COLLATE_H
#define VFTR_CAPTURE_COLLATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "logfile.h"

#define VFTR_COLLATE_SEP '\001'

enum vftr_collate_kind {
    VFTR_COLLATE_PROFILE = 'P',   /* calls, excl, incl, overhead */
    VFTR_COLLATE_MPI = 'M',       /* sends, recvs, sent_bytes, recv_bytes */
    VFTR_COLLATE_COUNTERS = 'C',  /* calls (counted), ctr[0..nctr) inclusive */
    VFTR_COLLATE_CTR_NAMES = 'K', /* path: the counters' names, comma-separated */
};

#define VFTR_COLLATE_MAXCTR 8

/* One call path of one rank (or one thread of a rank). */
struct vftr_collate_in {
    int kind;                     /* enum vftr_collate_kind */
    int rank;                     /* 0 .. nranks-1 */
    const char *path;             /* names from the root, VFTR_COLLATE_SEP between; borrowed */
    uint64_t calls;               /* PROFILE */
    double excl, incl, overhead;  /* PROFILE: seconds */
    uint64_t sends, recvs, sent_bytes, recv_bytes;   /* MPI (see struct vftr_mpi_row) */
    uint64_t ctr[VFTR_COLLATE_MAXCTR];                /* COUNTERS */
    unsigned nctr;
};

/* A call path's counters over the ranks (callpath_id: its profile row's). */
struct vftr_collate_ctr {
    uint32_t callpath_id;
    uint32_t ranks;               /* ranks with counted calls of the path */
    uint64_t calls;
    uint64_t sum[VFTR_COLLATE_MAXCTR], min[VFTR_COLLATE_MAXCTR], max[VFTR_COLLATE_MAXCTR];
    int rank_min[VFTR_COLLATE_MAXCTR], rank_max[VFTR_COLLATE_MAXCTR];
};

struct vftr_collated {
    struct vftr_profile prof;     /* nranks > 0; rows and mpi owned */
    struct vftr_profile_row *rows;
    struct vftr_mpi_row *mpi;
    char **names;                 /* owned copies of the function and caller names */
    size_t nnames;
    struct vftr_collate_ctr *ctr; /* nctr_rows rows, in call-path order; owned */
    size_t nctr_rows;
    unsigned nctr;                /* counters (0: none) */
    char *ctr_names[VFTR_COLLATE_MAXCTR];   /* owned */
};

/*
 * Merges in[0..n) (sorted in place) from nranks ranks into *c; run_times
 * has nranks entries (seconds; NULL: 0).  Rows whose rank is outside
 * [0, nranks) or whose path is empty are ignored.  0, -EINVAL (nranks < 1,
 * or in NULL with n > 0), or -ENOMEM (then *c is empty).
 */
int vftr_collate(struct vftr_collated *c, struct vftr_collate_in *in, size_t n, int nranks,
                 const double *run_times);

/* Appends the counter table over ranks of c to out (nothing without
 * counters).  0 or -EIO. */
int vftr_collate_print_counters(FILE *out, const struct vftr_collated *c);

/* Frees what c owns and zeroes it.  NULL-safe, idempotent. */
void vftr_collated_release(struct vftr_collated *c);

#endif /* VFTR_CAPTURE_COLLATE_H */
