/*
 * job.h — one vftr-snap job: a trace, where to break it, what to write.
 * A job comes from the command line or from a --script file (script.h);
 * snap_job_run() does the work through lib/model/snapshot.h.
 *
 * Ownership: a job's strings are owned by it (snap_job_release() frees
 * them).  Threads: a job runs in one thread (vftr-snap runs parallel jobs
 * in separate processes).
 */
#ifndef VFTR_SNAP_JOB_H
#define VFTR_SNAP_JOB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* What to write (kinds). */
enum {
    SNAP_KIND_SNAPSHOTS = 1u << 0,   /* snapshots and the thumbnail */
    SNAP_KIND_STATISTICS = 1u << 1,  /* summaries */
};

struct snap_job {
    char *trace;           /* as given: "foo" or "foo.otf" */
    char *output;          /* -o: name stub of a copy; NULL = in place */
    unsigned kinds;        /* SNAP_KIND_*; 0 = the default (snapshots) */
    unsigned flags;        /* VFTR_SNAP_FUNCGROUPS / _FILEGROUPS / _DETAILED */
    int remove;            /* --remove: take snapshots and summaries away */
    uint64_t nbreaks;      /* -n (0: not given) */
    char *period;          /* --period TICKS or a duration ("10ms"); NULL: not given */
    char **times;          /* --at, each TICKS or a duration with a unit, from the
                            * trace's first event */
    size_t ntimes;
    uint32_t thumb_samples;    /* upper bound, 0 = otfaux's 4096 */
    int force;             /* --force: write past the size estimate's limit */
    int progress;          /* draw the progress line on stderr (lib/util/progress.h)
                            * when it is a terminal: one job at a time, no -q */
};

void snap_job_release(struct snap_job *job);

/* Deep copy of src into *dst (all strings duplicated).  0 or -ENOMEM. */
int snap_job_copy(struct snap_job *dst, const struct snap_job *src);

/* Appends an --at value (duplicated).  0 or -ENOMEM. */
int snap_job_add_time(struct snap_job *job, const char *t);

/*
 * Runs the job.  Returns 0, or -errno with a one-line message in err
 * naming the file ("foo.otf: cannot open trace (...)"); nothing else is
 * printed.  New files are written beside the target under a temporary
 * name and renamed over the old ones only when everything succeeded; on
 * every failure the temporary files are removed and the trace is left as
 * it was.  Errors that the options cause (lib/model/snapshot.h): -ERANGE
 * more breaks than the trace can hold, -EFBIG output past the size limit
 * (job->force lifts it), -ENOSPC more than the free space; -EINVAL for a
 * bad --period or --at.
 *
 * stop (may be NULL) is a signal handler's flag, the signal's number:
 * once non-zero, the run stops at the next event or record and returns
 * -EINTR after removing its temporary files.  The renames at the end are
 * not interrupted: SIGINT, SIGTERM and SIGHUP are blocked meanwhile.
 */
int snap_job_run(const struct snap_job *job, const volatile sig_atomic_t *stop, char *err,
                 size_t errlen);

#endif /* VFTR_SNAP_JOB_H */
