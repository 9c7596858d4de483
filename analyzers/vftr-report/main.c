/*
 * vftr-report — one self-contained HTML page about a trace (summary,
 * timeline, profile, call tree, imbalance, communication), and with --svg
 * each chart as a standalone SVG file.
 *
 * The tool only wires things together: options from lib/util/opts, the
 * figures and their drawing from lib/report (which takes everything from
 * lib/model: the numbers are vftr-stats's).  The page is written to a
 * temporary file beside the output and renamed at the end, so a failed run
 * leaves no half page.  See share/man/man1/vftr-report.1.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "util/errmsg.h"
#include "util/opts.h"
#include "util/tracesel.h"

struct report_args {
    struct vftr_tracesel sel;
    const char *output;
    const char *svgdir;
    int quiet;
    unsigned jobs;
    size_t cells;
};

/* A plain decimal number in [lo, hi]: 0 or -EINVAL. */
static int parse_number(const char *arg, unsigned long long lo, unsigned long long hi,
                        unsigned long long *n)
{
    char *end;

    if (!arg[0] || arg[0] == '-' || arg[0] == '+' || arg[0] == ' ')
        return -EINVAL;
    errno = 0;
    *n = strtoull(arg, &end, 10);
    return end == arg || *end || errno == ERANGE || *n < lo || *n > hi ? -EINVAL : 0;
}

static int parse_jobs(void *dest, const char *arg, char *err, size_t errlen)
{
    struct report_args *a = dest;
    unsigned long long n;

    if (parse_number(arg, 1, 1024, &n) < 0)
        return vftr_errmsg(err, errlen, -EINVAL, "bad --jobs '%.64s' (expected 1 to 1024)", arg);
    a->jobs = (unsigned)n;
    return 0;
}

static int parse_bins(void *dest, const char *arg, char *err, size_t errlen)
{
    struct report_args *a = dest;
    unsigned long long n;

    if (parse_number(arg, 1024, 1ull << 26, &n) < 0)
        return vftr_errmsg(err, errlen, -EINVAL, "bad --timeline-bins '%.64s' (expected 1024 "
                           "to 67108864)", arg);
    a->cells = (size_t)n;
    return 0;
}

/* Writes the page to path through path.tmp.PID.  0 or -errno (err says). */
static int write_page(const struct vftr_report *r, const char *path, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    FILE *f;
    int rc;

    if (strcmp(path, "-") == 0) {
        rc = vftr_report_write_html(r, stdout);
        return rc < 0 ? vftr_errmsg(err, errlen, rc, "write error: %s", strerror(errno)) : 0;
    }
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp)
        return vftr_errmsg(err, errlen, -ENAMETOOLONG, "%s: name too long", path);
    f = fopen(tmp, "w");
    if (!f)
        return vftr_errmsg(err, errlen, -errno, "%s: cannot write (%s)", path, strerror(errno));
    rc = vftr_report_write_html(r, f);
    if (fclose(f) != 0 && rc == 0)
        rc = -EIO;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc < 0) {
        int e = errno;

        unlink(tmp);
        return vftr_errmsg(err, errlen, rc, "%s: cannot write (%s)", path, strerror(e ? e : EIO));
    }
    return 0;
}

/* Every chart the report has, as DIR/NAME.svg.  0 or -errno. */
static int write_svgs(const struct vftr_report *r, const char *dir, int quiet, char *err,
                      size_t errlen)
{
    struct stat sb;

    if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)))
        return vftr_errmsg(err, errlen, -errno, "%s: cannot make the directory (%s)", dir,
                           strerror(errno));
    for (int c = 0; c < VFTR_REPORT_NCHARTS; c++) {
        char path[PATH_MAX];
        FILE *f;
        int rc;

        if ((size_t)snprintf(path, sizeof path, "%s/%s.svg", dir,
                             vftr_report_chart_name((enum vftr_report_chart)c)) >= sizeof path)
            return vftr_errmsg(err, errlen, -ENAMETOOLONG, "%s: name too long", dir);
        if (!(f = fopen(path, "w")))
            return vftr_errmsg(err, errlen, -errno, "%s: cannot write (%s)", path,
                               strerror(errno));
        rc = vftr_report_write_svg(r, (enum vftr_report_chart)c, f);
        if (fclose(f) != 0 && rc == 0)
            rc = -EIO;
        if (rc == -EINVAL) {                 /* not in this report (no timeline) */
            unlink(path);
            continue;
        }
        if (rc < 0)
            return vftr_errmsg(err, errlen, rc, "%s: cannot write (%s)", path, strerror(EIO));
        if (!quiet)
            fprintf(stderr, "vftr-report: wrote %s\n", path);
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct report_args args = { .sel = VFTR_TRACESEL_INIT };
    const struct vftr_opt opts[] = {
        { VFTR_OPT_STRING, "output", 'o', "FILE",
          "write the page to FILE (default report.html;\n- for standard output)", &args.output,
          0, NULL },
        { VFTR_OPT_STRING, "svg", 0, "DIR",
          "also write every chart as DIR/NAME.svg", &args.svgdir, 0, NULL },
        { VFTR_OPT_CALLBACK, "time", 't', "A:B",
          "report only the window A <= time < B (as\nvftr-stats --time)", &args.sel, 0,
          vftr_tracesel_opt_time },
        { VFTR_OPT_CALLBACK, "process", 'p', "LIST",
          "only these processes: rank 3, rank 3 thread 2\n(from 0; ranges 0-3), or OTF tokens 1-4,9", &args.sel, 0,
          vftr_tracesel_opt_process },
        { VFTR_OPT_CALLBACK, "jobs", 'j', "N",
          "read with N threads (default: the online CPUs)", &args, 0, parse_jobs },
        { VFTR_OPT_CALLBACK, "timeline-bins", 0, "N",
          "timeline detail: bins of its finest level over\nall processes (default 262144)",
          &args, 0, parse_bins },
        { VFTR_OPT_FLAG, "quiet", 'q', NULL, "print no warnings and no progress", &args.quiet,
          1, NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_tool tool = {
        "vftr-report", VFTR_VERSION, "[OPTION]... TRACE",
        "Write one self-contained HTML page about TRACE (an OTF or OTF2 trace, or a\n"
        "run's .vfd files or its directory): summary, timeline, profile, call tree,\n"
        "imbalance and communication, with the figures vftr-stats prints.",
        "The page needs nothing beside it (no network, no fonts or scripts from\n"
        "elsewhere): open it in any browser.  The same trace gives the same page.\n"
        "\n"
        "SVG charts (--svg): timeline, groups, profile, calltree, imbalance, ranks,\n"
        "messages, bytes, transfer, collectives (the matrices and the collectives\n"
        "only when the trace has messages and collectives).\n"
        "\n"
        "Exit status: 0 ok, 1 the trace cannot be read or the page not written,\n"
        "2 bad command line.\n",
        opts,
    };
    struct vftr_report_opts ro = { 0 };
    struct vftr_report *rep = NULL;
    char err[VFTR_ERRMSG_MAX + 512];
    int first, rc;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0) {
        vftr_tracesel_release(&args.sel);
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    }
    if (first >= argc) {
        vftr_tracesel_release(&args.sel);
        return vftr_tool_usage_fail(&tool, stderr, "missing TRACE operand");
    }
    if (!args.output)
        args.output = "report.html";
    ro.warn = args.quiet ? NULL : stderr;
    ro.prog = tool.name;
    ro.jobs = args.jobs;
    ro.window = args.sel.window;
    ro.procs = args.sel.have_procs ? &args.sel.procs : NULL;
    ro.cells = args.cells;
    rc = vftr_report_collect(&rep, (const char *const *)argv + first, (size_t)(argc - first), &ro,
                             err, sizeof err);
    if (rc < 0) {
        vftr_tracesel_release(&args.sel);
        return rc == -EINVAL ? vftr_tool_usage_fail(&tool, stderr, "%s", err)
                             : vftr_tool_fail(&tool, stderr, "%s", err);
    }
    rc = write_page(rep, args.output, err, sizeof err);
    if (rc == 0 && args.svgdir)
        rc = write_svgs(rep, args.svgdir, args.quiet, err, sizeof err);
    if (rc == 0 && !args.quiet && strcmp(args.output, "-") != 0)
        fprintf(stderr, "vftr-report: wrote %s (open it in a browser)\n", args.output);
    vftr_report_free(rep);
    vftr_tracesel_release(&args.sel);
    if (rc < 0)
        return vftr_tool_fail(&tool, stderr, "%s", err);
    return VFTR_EXIT_OK;
}
