/*
 * vftr-convert — any trace vftr reads to any format it writes: one source
 * (lib/model/source.h: OTF, OTF2, a run's .vfd files) through one model to
 * one sink (lib/model/sink.h: OTF, OTF2, Perfetto, Chrome JSON, folded
 * stacks).  The options it shares with vfd2otf mean the same.  See
 * share/man/man1/vftr-convert.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/sink.h"
#include "model/source.h"
#include "util/errmsg.h"
#include "util/opts.h"
#include "util/proclist.h"
#include "util/timespec.h"
#include "util/progress.h"
#include "util/tracesel.h"

/* OTF's own default compression level, as vfd2otf's. */
#define DEFAULT_LEVEL "4"

struct args {
    const char *out, *to, *compress, *jobs;
    int quiet, per_process, calls, list;
    struct vftr_tracesel sel;
};

struct progress {
    uint64_t first, last;
    struct vftr_progress line;   /* lib/util/progress.h */
    struct timespec t0;
};

/* An interrupted conversion leaves nothing half-written: a signal sets a
 * flag, the progress callback stops the feed, and the sink is aborted. */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int draw(void *arg, uint64_t time, uint64_t events)
{
    struct progress *p = arg;

    if (stop)
        return -EINTR;
    vftr_progress_update(&p->line, time > p->first ? time - p->first : 0, events, 0);
    return 0;
}

static void list_formats(void)
{
    for (size_t i = 0; vftr_sink_formats[i]; i++) {
        const struct vftr_sink_format *f = vftr_sink_formats[i];

        printf("%-9s", f->name);
        for (const char *const *e = f->ends; *e; e++)
            printf("%s%s", e == f->ends ? " " : ",", *e);
        printf("\n          %s\n", f->help);
    }
}

int main(int argc, char **argv)
{
    struct args a = { .sel = VFTR_TRACESEL_INIT };
    const struct vftr_opt opts[] = {
        { VFTR_OPT_STRING, "output", 'o', "OUT", "write OUT (required)", &a.out, 0, NULL },
        { VFTR_OPT_STRING, "to", 0, "FORMAT",
          "otf, otf2, perfetto, json or folded (default: from\nOUT's ending; --formats lists them)",
          &a.to, 0, NULL },
        { VFTR_OPT_STRING, "compress", 'z', "LEVEL",
          "compress with zlib level 1-9 (otf: its streams;\nperfetto: packet bundles); "
          "--compress alone: level " DEFAULT_LEVEL, &a.compress, 0, NULL },
        { VFTR_OPT_STRING, "jobs", 'j', "N", "read .vfd input in N threads (default 1)",
          &a.jobs, 0, NULL },
        { VFTR_OPT_FLAG, "quiet", 'q', NULL, "no progress bar and no summary", &a.quiet, 1, NULL },
        { VFTR_OPT_CALLBACK, "time", 't', "A:B",
          "only [A, B): calls under way at A begin at A, calls\nopen at B end there "
          "(times as for vftr-dump)", &a.sel, 0, vftr_tracesel_opt_time },
        { VFTR_OPT_CALLBACK, "process", 'p', "LIST",
          "only these processes: rank 3, rank 3 thread 2,\nor OTF tokens 1-4,9", &a.sel, 0, vftr_tracesel_opt_process },
        { VFTR_OPT_FLAG, "per-process", 0, NULL,
          "folded: a stack per process (default: merged)", &a.per_process, 1, NULL },
        { VFTR_OPT_FLAG, "calls", 0, NULL,
          "folded: weigh by calls (default: exclusive ns)", &a.calls, 1, NULL },
        { VFTR_OPT_FLAG, "formats", 0, NULL, "list the output formats and exit", &a.list, 1,
          NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_tool tool = {
        "vftr-convert", VFTR_VERSION, "[OPTION]... -o OUT TRACE...",
        "Convert a trace vftr reads (OTF, OTF2, a run's .vfd files or directory)\n"
        "into OTF, OTF2, Perfetto, Chrome JSON or folded stacks.",
        "TRACE is an OTF trace (foo or foo.otf), an OTF2 archive (traces.otf2 or\n"
        "its directory), or .vfd files / run directories, as for vftr-stats.\n"
        "OUT's ending chooses the format unless --to does: .otf, .otf2 (a\n"
        "directory that gets traces.otf2), .perfetto-trace or .pftrace, .json,\n"
        ".folded.\n"
        "\n"
        "Exit status: 0 ok, 1 the trace cannot be read or OUT written, 2 bad\n"
        "command line.\n",
        opts,
    };
    char **argv2 = calloc((size_t)argc + 1, sizeof *argv2);
    char err[VFTR_ERRMSG_MAX + 512];
    struct vftr_source *src = NULL;
    struct vftr_sink *sink = NULL;
    const struct vftr_sink_format *fmt;
    struct vftr_sink_opts so = { .warn = stderr, .prog = "vftr-convert" };
    struct vftr_timerange range = { 0, UINT64_MAX };
    struct progress pr = { 0 };
    uint64_t events = 0;
    unsigned long jobs = 1;
    int first, rc;

    if (!argv2)
        return vftr_tool_fail(&tool, stderr, "out of memory");
    /* --compress takes an optional level (as vfd2otf's) */
    for (int i = 0; i < argc; i++) {
        int bare = strcmp(argv[i], "--compress") == 0 || strcmp(argv[i], "-z") == 0;

        argv2[i] = bare ? (char *)"--compress=" DEFAULT_LEVEL : argv[i];
        if (strcmp(argv[i], "--") == 0) {
            for (int k = i + 1; k < argc; k++)
                argv2[k] = argv[k];
            break;
        }
    }
    rc = vftr_opts_parse(&tool, argc, argv2, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE || (rc == 0 && a.list)) {
        if (a.list)
            list_formats();
        rc = VFTR_EXIT_OK;
        goto out;
    }
    if (rc < 0) {
        rc = rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
        goto out;
    }
    if (!a.out || !*a.out) {
        rc = vftr_tool_usage_fail(&tool, stderr, "missing -o OUT");
        goto out;
    }
    if (first >= argc) {
        rc = vftr_tool_usage_fail(&tool, stderr, "missing TRACE operand");
        goto out;
    }
    if ((rc = vftr_source_check_operands(&tool, argv2 + first, argc - first,
                                         VFTR_TAKES_ALL)) != 0)
        goto out;
    fmt = a.to ? vftr_sink_format_named(a.to) : vftr_sink_format_for(a.out);
    if (!fmt) {
        rc = a.to ? vftr_tool_usage_fail(&tool, stderr, "--to: unknown format '%s' (expected "
                                         "otf, otf2, perfetto, json or folded)", a.to)
                  : vftr_tool_usage_fail(&tool, stderr, "%s: no format for this name: give "
                                         "--to (or end it in .otf, .otf2, .perfetto-trace, "
                                         ".json, .folded)", a.out);
        goto out;
    }
    if (a.compress) {
        char *end;
        long v = strtol(a.compress, &end, 10);

        if (!*a.compress || *end || v < 0 || v > 9) {
            rc = vftr_tool_usage_fail(&tool, stderr, "--compress: '%s' is not a level 0-9",
                                      a.compress);
            goto out;
        }
        if (v && strcmp(fmt->name, "otf") != 0 && strcmp(fmt->name, "perfetto") != 0) {
            rc = vftr_tool_usage_fail(&tool, stderr, "--compress: the %s format is written "
                                      "uncompressed", fmt->name);
            goto out;
        }
        so.compress = (int)v;
    }
    if (a.jobs) {
        char *end;

        errno = 0;
        jobs = strtoul(a.jobs, &end, 10);
        if (!*a.jobs || *a.jobs == '-' || *end || errno || jobs == 0 || jobs > 1024) {
            rc = vftr_tool_usage_fail(&tool, stderr, "--jobs: '%s' is not a number from 1 to "
                                      "1024", a.jobs);
            goto out;
        }
    }
    if ((a.per_process || a.calls) && strcmp(fmt->name, "folded") != 0) {
        rc = vftr_tool_usage_fail(&tool, stderr, "--per-process and --calls are for folded "
                                  "stacks");
        goto out;
    }
    so.per_process = a.per_process;
    so.weight_calls = a.calls;
    {
        struct vftr_source_opts o = { stderr, tool.name, (unsigned)jobs };

        rc = vftr_source_open(&src, (const char *const *)argv2 + first, (size_t)(argc - first),
                              &o, err, sizeof err);
        if (rc < 0) {
            rc = rc == -EINVAL ? vftr_tool_usage_fail(&tool, stderr, "%s", err)
                               : vftr_tool_fail(&tool, stderr, "%s", err);
            goto out;
        }
        if ((rc = vftr_source_resolve_names(src, &a.sel, err, sizeof err)) < 0) {
            rc = vftr_tool_fail(&tool, stderr, "%s: %s", vftr_source_info(src)->name, err);
            goto out;
        }
    }
    {
        const struct vftr_source_info *si = vftr_source_info(src);
        struct vftr_timebase base = { si->resolution, si->first };

        if (a.sel.window &&
            vftr_timerange_parse(a.sel.window, &base, &range, err, sizeof err) < 0) {
            rc = vftr_tool_usage_fail(&tool, stderr, "%s", err);
            goto out;
        }
        pr.first = range.start > si->first ? range.start : si->first;
        pr.last = range.end < si->last ? range.end : si->last;
        vftr_progress_init(&pr.line, "vftr-convert", stderr,
                           pr.last > pr.first ? pr.last - pr.first : 0, a.quiet);
    }
    rc = vftr_sink_open(&sink, fmt, a.out, src, &so, err, sizeof err);
    if (rc < 0) {
        rc = vftr_tool_fail(&tool, stderr, "%s", err);
        goto out;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    clock_gettime(CLOCK_MONOTONIC, &pr.t0);
    rc = vftr_sink_feed(sink, src, range.start, range.end,
                        a.sel.have_procs ? &a.sel.procs : NULL, draw, &pr, &events, err,
                        sizeof err);
    vftr_progress_end(&pr.line, pr.last - pr.first, events);
    if (stop)
        rc = vftr_errmsg(err, sizeof err, -EINTR, "%s: interrupted", a.out);
    if (rc < 0) {
        vftr_sink_abort(sink);
        rc = vftr_tool_fail(&tool, stderr, "%s", err);
        goto out;
    }
    rc = vftr_sink_close(sink, err, sizeof err);
    if (rc < 0) {
        rc = vftr_tool_fail(&tool, stderr, "%s", err);
        goto out;
    }
    if (!a.quiet) {
        struct timespec t1;
        double s;
        const struct vftr_source_info *si = vftr_source_info(src);

        clock_gettime(CLOCK_MONOTONIC, &t1);
        s = (double)(t1.tv_sec - pr.t0.tv_sec) + (double)(t1.tv_nsec - pr.t0.tv_nsec) * 1e-9;
        printf("%s: %s: %" PRIu64 " events written as %s in %.3f s", tool.name, a.out, events,
               fmt->name, s);
        if (si->skipped)
            printf(" (%" PRIu64 " records of kinds the model does not keep passed over)",
                   si->skipped);
        printf("\n");
    }
    rc = VFTR_EXIT_OK;
out:
    vftr_source_free(src);
    vftr_tracesel_release(&a.sel);
    free(argv2);
    return rc;
}
