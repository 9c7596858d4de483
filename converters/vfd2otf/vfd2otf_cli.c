/*
 * vfd2otf_cli.c — see vfd2otf_cli.h.
 */
#include "vfd2otf_cli.h"

#include "model/source.h"
#include "model/vfdfiles.h"
#include "util/number.h"
#include "util/timespec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* OTF's own default compression level (OTF_FILECOMPRESSION_COMPRESSED). */
#define DEFAULT_LEVEL "4"

/* -t is repeatable: the values are collected (borrowed from argv). */
static int add_time(void *dest, const char *arg, char *err, size_t errlen)
{
    struct vfd2otf_cli *cli = dest;
    const char **v;
    int rc = vftr_time_check(arg, err, errlen);

    if (rc < 0)
        return rc;
    v = realloc(cli->times, (cli->ntimes + 1) * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    v[cli->ntimes++] = arg;
    cli->times = v;
    return 0;
}

int vfd2otf_cli_parse(struct vfd2otf_cli *cli, const char *name, int default_snap, int argc,
                      char **argv)
{
    const struct vftr_opt opts[] = {
        { VFTR_OPT_STRING, "output", 'o', "STUB",
          "write STUB.otf and its files (required)", &cli->stub, 0, NULL },
        { VFTR_OPT_STRING, "streams", 0, "M",
          "write M event streams (default: one per rank;\na rank's threads stay in its stream)",
          &cli->streams, 0, NULL },
        { VFTR_OPT_STRING, "compress", 'z', "LEVEL",
          "compress the streams with zlib level 1-9\n(--compress alone: level " DEFAULT_LEVEL ")",
          &cli->compress, 0, NULL },
        { VFTR_OPT_FLAG, "long", 0, NULL, "write OTF's long (keyword) format",
          &cli->out.long_format, 1, NULL },
        { VFTR_OPT_STRING, "jobs", 'j', "N", "read files and convert streams in N threads (default 1)",
          &cli->jobs, 0, NULL },
        { VFTR_OPT_FLAG, "quiet", 'q', NULL, "no progress bar and no summary",
          &cli->quiet, 1, NULL },
        { VFTR_OPT_FLAG, "no-align", 0, NULL,
          "do not align clocks (ignore CLOCK_OFFSETS)", &cli->no_align, 1, NULL },
        { VFTR_OPT_BITS, "snapshots", 0, NULL,
          "write snapshots and the thumbnail, in the\nsame pass (as vftr-snap / otfaux)",
          &cli->out.snap_flags, VFTR_SNAP_SNAPSHOTS, NULL },
        { VFTR_OPT_BITS, "statistics", 0, NULL, "write summaries, in the same pass",
          &cli->out.snap_flags, VFTR_SNAP_SUMMARIES, NULL },
        { VFTR_OPT_BITS, "all", 0, NULL, "--snapshots and --statistics",
          &cli->out.snap_flags, VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES, NULL },
        { VFTR_OPT_FLAG, "events-only", 0, NULL,
          "no snapshots, summaries or thumbnail (vfd2otf\nwrites them by default)",
          &cli->events_only, 1, NULL },
        { VFTR_OPT_STRING, "breaks", 'n', "N",
          "N breaks evenly spread over the run (default 200\nwhen neither --period nor --at is given)",
          &cli->breaks, 0, NULL },
        { VFTR_OPT_STRING, "period", 0, "P",
          "a break every P: ns, or a duration such as 10ms", &cli->out.snap_breaks.period, 0,
          NULL },
        { VFTR_OPT_CALLBACK, "at", 0, "T",
          "a break at T (repeatable): a time from the run's\nfirst event (ns, or 1.5s)", cli, 0, add_time },
        { VFTR_OPT_BITS, "funcgroups", 0, NULL, "function group summaries instead of functions",
          &cli->out.snap_flags, VFTR_SNAP_FUNCGROUPS, NULL },
        { VFTR_OPT_BITS, "detailed", 0, NULL,
          "summaries per peer, communicator and tag, and\nfunctions and groups together",
          &cli->out.snap_flags, VFTR_SNAP_DETAILED, NULL },
        { VFTR_OPT_STRING, "thumbnail-samples", 0, "N",
          "at most N thumbnail samples per process\n(default 4096)", &cli->thumb, 0, NULL },
        { VFTR_OPT_FLAG, "force", 0, NULL,
          "write snapshots and summaries even when their\nestimated size passes the limit or "
          "the free space", &cli->out.snap_force, 1, NULL },
        VFTR_OPT_TABLE_END,
    };
    int first, rc;
    uint64_t n_streams = 0, n_compress = 0, n_jobs = 0, n_breaks = 0, n_thumb = 0;

    memset(cli, 0, sizeof *cli);
    memcpy(cli->opts, opts, sizeof opts);
    /* the one paragraph that differs between vfd2otf and vfd2otf-mpi */
    static const char by_default[] =
        "Snapshots, summaries and a thumbnail (as vftr-snap --all writes them) are\n"
        "written by default, in the same pass, so that vftr-tui and the window\n"
        "reads of vftr-stats start from the nearest snapshot; --events-only leaves\n"
        "them out (the conversion is then cheaper, and runs -j streams at a time).\n";
    static const char on_request[] =
        "Snapshots and summaries are written on request only (they need one pass\n"
        "over all ranks: rank 0 alone); vftr-tui adds them when it first opens the\n"
        "trace.\n";
    static char epilog[2048];

    snprintf(epilog, sizeof epilog,
             "A DIR operand stands for the *.vfd files in it, and the *.tmpvfd files of\n"
             "the same run (processes that did not end normally: read up to their last\n"
             "whole chunk, with a warning).  Files of different runs,\n"
             "or two files of one rank, are refused.  Process tokens: rank r is r+1,\n"
             "its thread t is (t << 20) + r + 1 (share/doc/vfd2otf.md).\n"
             "\n"
             "%s"
             "-n, --period, --at, --funcgroups or --detailed alone imply --snapshots (as\n"
             "for vftr-snap); the snapshot options make the conversion one pass over\n"
             "all ranks in one time order.\n"
             "\n"
             "Exit status: 0 ok, 1 a file cannot be read or written, 2 bad command line\n"
             "(snapshot options too: more breaks than the run can hold, or output\n"
             "estimated past its limit without --force).\n",
             default_snap ? by_default : on_request);
    cli->tool = (struct vftr_tool){
        name, VFTR_VERSION, "[OPTION]... -o STUB FILE.vfd|DIR...",
        "Convert the .vfd files of one run (one per rank) into one OTF trace STUB.otf.",
        epilog, cli->opts,
    };
    cli->out.jobs = 1;
    /* --compress takes an optional level: the option table knows only
     * required arguments, so a bare --compress becomes --compress=LEVEL. */
    cli->argv_copy = calloc((size_t)argc + 1, sizeof *cli->argv_copy);
    if (!cli->argv_copy)
        return vftr_tool_fail(&cli->tool, stderr, "out of memory");
    for (int i = 0; i < argc; i++) {
        int bare = strcmp(argv[i], "--compress") == 0 || strcmp(argv[i], "-z") == 0;

        cli->argv_copy[i] = bare ? (char *)"--compress=" DEFAULT_LEVEL : argv[i];
        if (strcmp(argv[i], "--") == 0) {
            for (int k = i + 1; k < argc; k++)
                cli->argv_copy[k] = argv[k];
            break;
        }
    }
    rc = vftr_opts_parse(&cli->tool, argc, cli->argv_copy, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0)
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    if (!cli->stub || !*cli->stub)
        return vftr_tool_usage_fail(&cli->tool, stderr, "missing -o STUB");
    if (first >= argc)
        return vftr_tool_usage_fail(&cli->tool, stderr, "missing FILE.vfd operand");
    if ((rc = vftr_source_check_operands(&cli->tool, cli->argv_copy + first, argc - first,
                                         VFTR_TAKES_VFD)) != 0)
        return rc;
    cli->out.stub = cli->stub;
    {
        /* "trace.otf" names the same trace as "trace" */
        size_t l = strlen(cli->stub);

        if (l > 4 && strcmp(cli->stub + l - 4, ".otf") == 0) {
            static char stub[4096];

            snprintf(stub, sizeof stub, "%.*s", (int)(l - 4), cli->stub);
            cli->out.stub = stub;
        }
    }
    {
        /* the numeric options, each checked against its range (lib/util/number.h) */
        const struct {
            const char *arg, *what;
            uint64_t min, max;
            uint64_t *out;
        } nums[] = {
            { cli->streams, "--streams", 1, 1u << 20, &n_streams },
            { cli->compress, "--compress", 0, 9, &n_compress },
            { cli->jobs, "--jobs", 1, 1024, &n_jobs },
            { cli->breaks, "-n", 1, VFTR_SNAP_MAX_BREAKS, &n_breaks },
            { cli->thumb, "--thumbnail-samples", 1, 1u << 24, &n_thumb },
        };
        char msg[VFTR_ERRMSG_MAX];

        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
            if (nums[i].arg && vftr_count_parse(nums[i].arg, nums[i].min, nums[i].max,
                                                nums[i].what, nums[i].out, msg, sizeof msg) < 0)
                return vftr_tool_usage_fail(&cli->tool, stderr, "%s", msg);
        if (cli->out.snap_breaks.period &&
            vftr_time_check(cli->out.snap_breaks.period, msg, sizeof msg) < 0)
            return vftr_tool_usage_fail(&cli->tool, stderr, "-p: %s", msg);
    }
    if (cli->streams)
        cli->out.streams = (uint32_t)n_streams;
    if (cli->compress)
        cli->out.compress = (int)n_compress;
    if (cli->jobs)
        cli->out.jobs = (int)n_jobs;
    if (cli->breaks)
        cli->out.snap_breaks.n = n_breaks;
    if (cli->thumb)
        cli->out.thumb_samples = n_thumb;
    cli->out.snap_breaks.times = cli->times;
    cli->out.snap_breaks.ntimes = cli->ntimes;
    {
        int asked = cli->breaks || cli->out.snap_breaks.period || cli->ntimes ||
                    cli->out.snap_flags || cli->thumb;

        if (asked && cli->events_only)
            return vftr_tool_usage_fail(&cli->tool, stderr, "--events-only excludes the "
                                        "snapshot options (--snapshots, --statistics, --all, "
                                        "-n, -p, -t, ...)");
        if (asked && !(cli->out.snap_flags & (VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES)))
            cli->out.snap_flags |= VFTR_SNAP_SNAPSHOTS;
        /* the default: otfaux's --all with its 200 breaks */
        if (!asked && !cli->events_only && default_snap) {
            cli->out.snap_flags = VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES;
            cli->snap_default = 1;
        }
    }
    cli->out.progress = !cli->quiet && isatty(STDERR_FILENO);

    {
        /* the one rule for what .vfd operands stand for (lib/model/vfdfiles.h) */
        struct vftr_vfdfiles files = VFTR_VFDFILES_INIT;
        char err[1024];
        int frc = vftr_vfdfiles_collect(&files, (const char *const *)cli->argv_copy + first,
                                        (size_t)(argc - first), stderr, cli->tool.name, err,
                                        sizeof err);

        if (frc < 0) {
            vftr_vfdfiles_release(&files);
            return vftr_tool_fail(&cli->tool, stderr, "%s", err);
        }
        cli->files = files.path;        /* taken over; vfd2otf_cli_release frees them */
        cli->nfiles = files.n;
    }
    return VFD2OTF_CLI_GO;
}

int vfd2otf_cli_open_shared(struct vfd2otf_cli *cli, struct vftr_vfdconv **conv,
                            const struct vftr_vfdconv_share *share, int loud)
{
    struct vftr_vfdconv_opts o = { loud ? stderr : NULL, cli->tool.name, cli->no_align,
                                   (unsigned)cli->out.jobs, share };
    char err[1024] = "";
    int rc = vftr_vfdconv_open(conv, (const char *const *)cli->files, cli->nfiles, &o, err,
                               sizeof err);

    if (rc < 0)
        return loud ? vftr_tool_fail(&cli->tool, stderr, "%s", err[0] ? err : strerror(-rc))
                    : VFTR_EXIT_ERROR;
    return VFTR_EXIT_OK;
}

int vfd2otf_cli_open(struct vfd2otf_cli *cli, struct vftr_vfdconv **conv)
{
    return vfd2otf_cli_open_shared(cli, conv, NULL, 1);
}

int vfd2otf_cli_snap_check(struct vfd2otf_cli *cli, const struct vftr_vfdconv *conv)
{
    char err[VFTR_ERRMSG_MAX];
    int rc = vftr_vfdotf_snap_check(conv, &cli->out, err, sizeof err);

    if (rc == 0)
        return VFTR_EXIT_OK;
    if (cli->snap_default && rc != -ENOMEM) {
        /* not asked for: the conversion goes on without them */
        fprintf(stderr, "%s: warning: no snapshots and summaries in %s.otf: %s (vftr-tui "
                "adds them when it opens the trace; --all --force writes them anyway)\n",
                cli->tool.name, cli->out.stub, err);
        cli->out.snap_flags = 0;
        cli->snap_default = 0;
        return VFTR_EXIT_OK;
    }
    vftr_tool_fail(&cli->tool, stderr, "%s", err);
    return rc == -ERANGE || rc == -EFBIG ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
}

int vfd2otf_cli_report(const struct vfd2otf_cli *cli, const struct vftr_vfdconv *conv,
                       uint64_t events)
{
    const struct vftr_vfdconv_stats *s = vftr_vfdconv_stats(conv);
    size_t np;

    vftr_vfdconv_procs(conv, &np);
    if (s->recv_before_send)
        fprintf(stderr, "%s: warning: %" PRIu64 " receive%s still precede%s their send after "
                "clock alignment\n", cli->tool.name, s->recv_before_send,
                s->recv_before_send == 1 ? "" : "s", s->recv_before_send == 1 ? "s" : "");
    if (s->unreceived_sends || s->unsent_recvs)
        fprintf(stderr, "%s: warning: %" PRIu64 " send%s without receive, %" PRIu64
                " receive%s without send\n", cli->tool.name, s->unreceived_sends,
                s->unreceived_sends == 1 ? "" : "s", s->unsent_recvs,
                s->unsent_recvs == 1 ? "" : "s");
    if (!cli->quiet && strlen(cli->stub) > 5 && strcmp(cli->stub + strlen(cli->stub) - 5, ".otf2") == 0)
        printf("%s: %s: %zu rank%s, %zu processes, %" PRIu64 " events, %" PRIu64
               " messages matched, %" PRIu64 " collectives\n", cli->tool.name, cli->stub,
               vftr_vfdconv_ranks(conv), vftr_vfdconv_ranks(conv) == 1 ? "" : "s", np, events,
               s->matched, s->colls);
    else if (!cli->quiet)
        printf("%s: %s.otf: %zu rank%s, %zu processes, %u stream%s, %" PRIu64 " events, %"
               PRIu64 " messages matched, %" PRIu64 " receives before their send, %" PRIu64
               " collectives, largest clock correction %.3f us\n",
               cli->tool.name, cli->out.stub, vftr_vfdconv_ranks(conv),
               vftr_vfdconv_ranks(conv) == 1 ? "" : "s", np, vftr_vfdotf_nstreams(conv, &cli->out),
               vftr_vfdotf_nstreams(conv, &cli->out) == 1 ? "" : "s", events, s->matched,
               s->recv_before_send, s->colls, s->max_offset_ns / 1e3);
    return VFTR_EXIT_OK;
}

void vfd2otf_cli_release(struct vfd2otf_cli *cli)
{
    for (size_t i = 0; i < cli->nfiles; i++)
        free(cli->files[i]);
    free(cli->files);
    free(cli->argv_copy);
    free(cli->times);
    cli->times = NULL;
    cli->ntimes = 0;
    cli->files = NULL;
    cli->argv_copy = NULL;
    cli->nfiles = 0;
}
