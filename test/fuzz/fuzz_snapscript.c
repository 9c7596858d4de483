/*
 * fuzz_snapscript.c — libFuzzer target for vftr-snap's --script parser
 * (analyzers/vftr-snap/script.c).
 *
 * Any input either parses into jobs that each name a trace and copy
 * cleanly, or fails with a one-line message; a crash, hang, leak or
 * sanitizer report is a bug.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct snap_job defaults, *jobs = NULL;
    size_t n = 0;
    char err[512];

    memset(&defaults, 0, sizeof defaults);
    defaults.nbreaks = 7;
    if (snap_job_add_time(&defaults, "1ms") != 0)
        return 0;
    int rc = snap_script_parse((const char *)data, size, &defaults, &jobs, &n, err, sizeof err);
    if (rc == 0) {
        if (n == 0 || !jobs)
            abort();
        for (size_t i = 0; i < n; i++) {
            struct snap_job copy;
            if (!jobs[i].trace || !jobs[i].trace[0])
                abort();
            if (snap_job_copy(&copy, &jobs[i]) == 0)
                snap_job_release(&copy);
        }
    } else if (rc != -EINVAL && rc != -ENOMEM) {
        abort();
    } else if (jobs || n || strlen(err) == 0 || strchr(err, '\n')) {
        abort();
    }
    snap_script_free(jobs, n);
    snap_job_release(&defaults);
    return 0;
}
