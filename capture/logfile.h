/*
 * logfile.h — the profile log of libvftrcapture, <basename>_<rank>.log.
 *
 * Purpose: at finalization the core hands over a flat snapshot of the
 * call-path profile (struct vftr_profile) and what it knows about the run
 * (struct vftr_run_info); this module turns them into the text log: a run
 * summary, the configuration in use, the profile table (sortable columns,
 * widths fitted to the content), optionally the list of call paths and a
 * table grouped by function name.
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
 * (the core numbers them from one atomic counter), 0 is "no parent". */
struct vftr_profile_row {
    uint32_t callpath_id, parent_id;   /* parent 0 = root */
    uint32_t thread;                   /* 0 = main thread */
    const char *function, *caller;     /* names, borrowed; caller NULL or "" at a root */
    uint64_t calls;
    double time_excl, time_incl, overhead;   /* seconds */
};

struct vftr_profile {
    struct vftr_profile_row *rows;     /* n rows, any order; borrowed */
    size_t n;
    double run_time;                   /* seconds, the base of the % column */
    uint32_t nthreads;                 /* threads that ran hooks (0: count them from the rows) */
};

/* What the core knows about the run at finalization.  Strings may be NULL
 * (printed as "-"). */
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
    uint64_t trace_cap;                /* configured cap in bytes (0: none) */
    bool trace_active;                 /* the trace was still on at the end */
    bool trace_capped;                 /* the cap was reached and tracing stopped */
    const char *trace_message;         /* why the trace stopped or switched off (NULL: it did not) */
    const char *clock;                 /* clock name ("tsc", "monotonic"), NULL if unknown */
    bool no_hooks;                     /* no compiler hook ran: no function was instrumented */
    double sample_interval;            /* seconds, 0 = every event */
};

/* The run section's "functions" line when no compiler hook ran (also
 * written by the crash log, crashlog.h). */
#define VFTR_LOG_NO_HOOKS "none instrumented (no compiler hook ran: compile with -finstrument-functions)"

/* What vftr_logfile_print() prints.  vftr_logfile_opts_default() gives
 * Vftrace's defaults: table on, sorted by time_excl descending, no overhead
 * column, no call-path column, stack list on, no name-grouped table, no
 * configuration. */
struct vftr_logfile_opts {
    bool show_table;
    enum vftr_sort_column sort_column;
    bool sort_ascending;
    bool show_overhead;            /* overhead column */
    bool show_callpath;            /* full call path as the last column */
    bool show_stacklist;           /* list of call paths after the table */
    bool show_grouped;             /* table grouped by function name */
    enum vftr_sort_column grouped_sort_column;   /* TIME_EXCL, TIME_INCL, CALLS or NONE
                                                    (others sort as their profile column) */
    bool grouped_sort_ascending;
    unsigned grouped_max_stack_ids;              /* ids listed per name (0: none) */
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

/* Prints the whole log onto out.  0, or -errno (-ENOMEM, -EIO on a stream
 * error). */
int vftr_logfile_print(FILE *out, const struct vftr_profile *p, const struct vftr_run_info *run,
                       const struct vftr_logfile_opts *opts);

/* Fills opts from the configuration (profile_table_*, stacklist_*,
 * name_grouped_profile_table_*, print_config).  cfg NULL: the defaults. */
void vftr_logfile_opts_from_config(struct vftr_logfile_opts *opts, const struct vftr_config *cfg);

/* Writes the log to path (created or truncated, mode 0644 less umask),
 * choosing what to print from cfg (NULL: the defaults).  0 or -errno; on an
 * error the partial file is removed. */
int vftr_logfile_write(const char *path, const struct vftr_profile *p, const struct vftr_config *cfg,
                       const struct vftr_run_info *run);

#endif
