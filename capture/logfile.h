/*
 * logfile.h — the profile logs of libvftrcapture: a rank's own,
 * <basename>_<rank>.log, and the one over all ranks of an MPI run,
 * <basename>_all.log (its rows come from capture/collate.h).
 *
 * Purpose: at finalization the core hands over a flat snapshot of the
 * call-path profile (struct vftr_profile, with the MPI statistics of the
 * call paths of MPI functions when the run used MPI) and what it knows about
 * the run (struct vftr_run_info); this module turns them into the text log:
 * a run summary, the profile table (sortable columns, widths fitted to the
 * content), over ranks the min/max summary, optionally a table grouped by
 * function name, the MPI table, the list of call paths and the configuration
 * in use.  With `separate` the name-grouped table, the min/max summary and
 * the MPI table go into files of their own beside the log.
 *
 * Layers:
 *   vftr_logfile_write()   opens the file and prints everything, choosing
 *                          what to print from struct vftr_config.
 *   vftr_logfile_print()   the same onto a FILE *, choosing from a
 *                          struct vftr_logfile_opts (no configuration
 *                          needed: this is what the unit tests drive).
 *   vftr_logfile_sort() is a pure function.
 *
 * Ownership: every pointer handed in is borrowed for the duration of the
 * call; nothing is kept.  Strings in the structs are borrowed too (the core
 * keeps them alive until the call returns).
 *
 * Threads: the functions share no state; they run at finalization, not on
 * the hot path, and may allocate and use stdio.  They are not
 * async-signal-safe.
 *
 * Errors: 0 or -errno (never exit or abort).  A profile row whose parent id
 * names no row is printed as a call path that ends at that row.
 */
#ifndef VFTR_CAPTURE_LOGFILE_H
#define VFTR_CAPTURE_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "config.h"   /* struct vftr_config, enum vftr_sort_column */

/* One call path of one thread.  Call-path ids are unique in the process
 * (the core numbers them from one atomic counter), 0 is "no parent".
 * In a profile over ranks (nranks > 0) a row is a call path summed over the
 * ranks and threads that ran it, and the fields after `overhead` say how its
 * exclusive time spread over those ranks; in a process's own profile they
 * are 0. */
struct vftr_profile_row {
    uint32_t callpath_id, parent_id;   /* parent 0 = root */
    uint32_t thread;                   /* 0 = main thread */
    const char *function, *caller;     /* names, borrowed; caller NULL or "" at a root */
    uint64_t calls;
    double time_excl, time_incl, overhead;   /* seconds */
    uint32_t ranks;                    /* over ranks: ranks that ran the path */
    int rank_min, rank_max;            /* the ranks of excl_min and excl_max (the lowest
                                          rank where several have the same time) */
    double excl_min, excl_max;         /* exclusive seconds of one rank */
    double imbalance;                  /* vftr_imbalance(excl_max, time_excl / ranks) of
                                          lib/model/profile.h: (max - avg) / max, in [0, 1) */
};

/*
 * The messages of one call path of an MPI function: the profile row with
 * the same callpath_id names the function and its callers and has its calls
 * and its time (inclusive: the time in the calls).  A message is a
 * point-to-point message this process sent or received, and a collective
 * call counts as one message in each direction it moved data at this
 * process (sent bytes > 0: one sent, received bytes > 0: one received).
 * Over ranks: summed.
 */
struct vftr_mpi_row {
    uint32_t callpath_id;
    uint64_t sends, recvs;             /* messages */
    uint64_t sent_bytes, recv_bytes;
};

struct vftr_profile {
    struct vftr_profile_row *rows;     /* n rows, any order; borrowed */
    size_t n;
    double run_time;                   /* seconds, the base of the % column (over ranks:
                                          the ranks' run times summed) */
    uint32_t nthreads;                 /* threads that ran hooks (0: count them from the rows) */
    uint32_t nranks;                   /* 0: one process's profile; N: over N ranks */
    const struct vftr_mpi_row *mpi;    /* nmpi rows, any order; borrowed */
    size_t nmpi;
    bool has_mpi;                      /* the run used MPI: an MPI table is printed when asked
                                          for, even an empty one; false: none */
};

/* What the core knows about the run at finalization.  Strings may be NULL
 * (printed as "-").  For a profile over ranks only exe, host, run_id, start,
 * end and clock are printed (rank 0's). */
struct vftr_run_info {
    int rank, size;                    /* 0 and 1 without MPI */
    int64_t pid;
    const char *host;
    const char *exe;                   /* program path */
    const char *vfd_path;              /* trace file, NULL when no trace was written
                                          (trace_message then says why, if known) */
    struct timespec start, end;        /* wall clock (CLOCK_REALTIME) */
    uint8_t run_id[16];
    uint64_t trace_bytes;              /* bytes of the .vfd written */
    uint64_t trace_events;             /* events written to it */
    uint64_t trace_cap;                /* the rank's cap in bytes (0: none) */
    uint64_t trace_job_cap;            /* trace.max_job_size (0: none or not known) */
    uint64_t job_trace_bytes;          /* log over ranks: the ranks' .vfd bytes summed at
                                          MPI_Finalize (0: not known) */
    uint64_t job_trace_max;            /* ... the largest rank's, and that rank */
    int job_trace_max_rank;
    bool trace_active;                 /* the trace was still on at the end */
    bool trace_capped;                 /* the cap was reached and tracing stopped */
    const char *trace_message;         /* why the trace stopped or switched off (NULL: it did not) */
    const char *clock;                 /* clock name ("tsc", "monotonic"), NULL if unknown */
    bool no_hooks;                     /* no compiler hook ran: no function was instrumented */
    double sample_interval;            /* seconds, 0 = every event */
    double ticks_per_second;           /* of the clock; 0: not printed */
    const char *throttled;             /* call paths throttled (capture/filter.c), NULL: none */
    const char *patched;               /* hook calls of excluded functions patched out
                                          (capture/patch.c), NULL: patching off */
};

/* The run section's "functions" line when no compiler hook ran (also
 * written by the crash log, crashlog.h). */
#define VFTR_LOG_NO_HOOKS "none instrumented (no compiler hook ran: compile with -finstrument-functions)"

/* What vftr_logfile_print() prints.  vftr_logfile_opts_default() gives
 * the defaults of the configuration keys: table on, sorted by time_excl
 * descending, no overhead column, no call-path column, over ranks the
 * imbalance columns and the min/max summary, stack list on, no name-grouped
 * table, the MPI table sorted by none without call paths, no configuration,
 * not separate. */
struct vftr_logfile_opts {
    bool show_table;
    enum vftr_sort_column sort_column;
    bool sort_ascending;
    bool show_overhead;            /* overhead column */
    bool show_callpath;            /* full call path as the last column */
    bool show_imbalances;          /* over ranks: imbalance and its rank */
    bool show_minmax;              /* over ranks: min/max summary table */
    bool show_stacklist;           /* list of call paths after the table */
    bool show_grouped;             /* table grouped by function name */
    enum vftr_sort_column grouped_sort_column;   /* TIME_EXCL, TIME_INCL, CALLS or NONE
                                                    (others sort as their profile column) */
    bool grouped_sort_ascending;
    unsigned grouped_max_stack_ids;              /* ids listed per name (0: none) */
    bool show_mpi;                 /* MPI table (when the profile has_mpi) */
    enum vftr_sort_column mpi_sort_column;       /* an MPI column, STACK_ID or NONE */
    bool mpi_sort_ascending;
    bool mpi_show_callpath;        /* full call path as the MPI table's last column */
    bool separate;                 /* vftr_logfile_write: the name-grouped table, the
                                      min/max summary and the MPI table in files of
                                      their own (vftr_logfile_print ignores it) */
    const struct vftr_config *config;            /* printed as JSON when non-NULL */
};

void vftr_logfile_opts_default(struct vftr_logfile_opts *opts);

/* Orders order[0..n) (indices into rows) by col, ascending or descending;
 * ties (and VFTR_SORT_NONE) keep the order of the indices as given, so the
 * result is deterministic.  The columns of the profile tables are
 * understood (time_excl, time_incl, calls, stack_id, overhead); any other
 * (none, the MPI columns) leaves the index order.  Pure. */
void vftr_logfile_sort(const struct vftr_profile_row *rows, size_t *order, size_t n,
                       enum vftr_sort_column col, bool ascending);

/* The same for the MPI rows of p (order[] indexes p->mpi): messages (sends
 * + recvs), send_size and recv_size (bytes per message, 0 without
 * messages), send_bw and recv_bw (bytes per second in the calls, 0 without
 * time), comm_time (seconds in the calls), stack_id; none orders by
 * call-path id, ascending whatever `ascending` says.  The time in the calls
 * is the inclusive time of the profile row of the same call path (0
 * without one).  Ties keep the index order.  0, or -ENOMEM (the order is
 * then as given). */
int vftr_logfile_sort_mpi(const struct vftr_profile *p, size_t *order, size_t n,
                          enum vftr_sort_column col, bool ascending);

/*
 * Prints the whole log onto out, the sections in this order: run summary
 * (when run is not NULL), profile table, min/max summary (over ranks), table
 * grouped by function name, MPI table (rows that moved data: messages or
 * bytes), list of call paths, configuration.  0, or -errno (-ENOMEM, -EIO on
 * a stream error).
 */
int vftr_logfile_print(FILE *out, const struct vftr_profile *p, const struct vftr_run_info *run,
                       const struct vftr_logfile_opts *opts);

/* Fills opts from the configuration (profile_table_*, stacklist_*,
 * name_grouped_profile_table_*, mpi_show_table, mpi_show_callpath,
 * mpi_sort_table_*, print_config).  cfg NULL: the defaults. */
void vftr_logfile_opts_from_config(struct vftr_logfile_opts *opts, const struct vftr_config *cfg);

/*
 * Writes the log to path (created or truncated, mode 0644 less umask),
 * choosing what to print from cfg (NULL: the defaults).  With
 * profile_table.separate the name-grouped table, the min/max summary and the
 * MPI table, where printed, go to <stem>_namegroup.log, <stem>_minmax.log
 * and <stem>_mpi.log (<stem>: path without a final ".log"), each opening
 * with a line that names the log, and the log names the file in their
 * place.  0 or -errno; on an error every file this call made is removed.
 */
int vftr_logfile_write(const char *path, const struct vftr_profile *p, const struct vftr_config *cfg,
                       const struct vftr_run_info *run);

#endif
