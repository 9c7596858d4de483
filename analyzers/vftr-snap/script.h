/*
 * script.h — vftr-snap's --script file: a JSON list of jobs, for scripted
 * snapshot generation over many traces.
 *
 *   { "jobs": [ { "trace": "run1.otf", "breaks": 100 },
 *               { "trace": "run2", "period": "10ms", "times": ["5ms", 123456],
 *                 "kinds": "all", "output": "run2-copy", "funcgroups": true } ] }
 *
 * (a bare array of jobs is accepted too).  Keys of a job: "trace" (string,
 * required), "output" (string), "breaks" (integer >= 1, like -n),
 * "period" (string or integer, like -p), "times" (array of strings or
 * integers, like -t), "kinds" ("snapshots", "statistics" or "all"),
 * "funcgroups", "filegroups", "detailed", "remove", "force" (booleans),
 * "thumbnail_samples" (integer >= 1).  A key a job does not give keeps the
 * value from the command line; unknown keys are errors.
 *
 * Ownership: the caller owns the returned jobs (snap_script_free()).
 * Threads: pure function of its arguments (cJSON's own allocator hooks are
 * left alone).
 */
#ifndef VFTR_SNAP_SCRIPT_H
#define VFTR_SNAP_SCRIPT_H

#include <stddef.h>

#include "job.h"

/*
 * Parses text[0..len) (need not be NUL-terminated).  On success returns 0
 * and stores a new array of *njobs jobs in *jobs.  Returns -EINVAL with a
 * message in err ("line 3, column 7: ..." or "job 2: ...") for bad input,
 * -ENOMEM when out of memory.
 */
int snap_script_parse(const char *text, size_t len, const struct snap_job *defaults,
                      struct snap_job **jobs, size_t *njobs, char *err, size_t errlen);

void snap_script_free(struct snap_job *jobs, size_t n);

#endif /* VFTR_SNAP_SCRIPT_H */
