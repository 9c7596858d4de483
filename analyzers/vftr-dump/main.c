/*
 * vftr-dump — prints every record of an OTF trace, one line per record
 * (like the reference's otfprint), or counts them per record type.  Given
 * a .vfd file (capture's raw trace) it prints its header, definitions and
 * events instead (vfd.c).
 *
 * The tool only wires things together: options come from lib/util/opts, the
 * trace name, time base and process selection from lib/util/tracesel, and
 * the per-record printers are generated from the record table
 * (vftr_otf_print.h).  See share/man/man1/vftr-dump.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf.h"
#include "vftr_otf_print.h"

#include "model/check.h"
#include "model/source.h"
#include "util/errmsg.h"
#include "util/opts.h"
#include "util/proclist.h"
#include "util/timespec.h"
#include "util/tracesel.h"
#include "model.h"
#include "vfd.h"

#define ALL_KINDS (VFTR_OTF_PRINT_DEFS | VFTR_OTF_PRINT_EVENTS | VFTR_OTF_PRINT_SNAPS | \
                   VFTR_OTF_PRINT_STATS | VFTR_OTF_PRINT_MARKERS)

/* Output is line-at-a-time text, often millions of lines: a large buffer
 * turns them into few big writes. */
#define OUTPUT_BUFFER (1u << 20)

/* Files the OTF file manager may keep open at once (it suspends the rest). */
#define MAX_OPEN_FILES 256

struct dump_args {
    unsigned kinds;
    int count_only;
    int raw;                     /* ids only, no names after them */
    int check;
    struct vftr_tracesel sel;    /* --process, --time */
};

/* One section of the trace: which records, and how the reader reads them. */
struct section {
    unsigned kind;
    const char *what;                                   /* for messages */
    uint64_t (*read)(OTF_Reader *, OTF_HandlerArray *);
};

static uint64_t read_definitions(OTF_Reader *r, OTF_HandlerArray *h)
{
    return OTF_Reader_readDefinitions(r, h);
}

static uint64_t read_events(OTF_Reader *r, OTF_HandlerArray *h)
{
    return OTF_Reader_readEvents(r, h);
}

static uint64_t read_snapshots(OTF_Reader *r, OTF_HandlerArray *h)
{
    return OTF_Reader_readSnapshots(r, h);
}

static uint64_t read_statistics(OTF_Reader *r, OTF_HandlerArray *h)
{
    return OTF_Reader_readStatistics(r, h);
}

static uint64_t read_markers(OTF_Reader *r, OTF_HandlerArray *h)
{
    return OTF_Reader_readMarkers(r, h);
}

/* In trace order: definitions first, so that what follows can be read. */
static const struct section sections[] = {
    { VFTR_OTF_PRINT_DEFS,    "definitions", read_definitions },
    { VFTR_OTF_PRINT_EVENTS,  "events",      read_events },
    { VFTR_OTF_PRINT_SNAPS,   "snapshots",   read_snapshots },
    { VFTR_OTF_PRINT_STATS,   "statistics",  read_statistics },
    { VFTR_OTF_PRINT_MARKERS, "markers",     read_markers },
};

/*
 * Prints "<RecordName> <count>" for every record type that the section just
 * read added to `counts` (each type belongs to one section, so comparing
 * with the counts before the section finds them), in record-id order.
 * Adds them to *total.
 */
static void print_section_counts(FILE *out, const uint64_t *counts, const uint64_t *before,
                                 uint64_t *total)
{
    for (uint32_t type = 0; type < OTF_NRECORDS; type++) {
        const char *name;
        char unnamed[32];
        uint64_t n = counts[type] - before[type];

        if (n == 0)
            continue;
        name = vftr_otf_record_name(type);
        if (!name) {
            snprintf(unnamed, sizeof unnamed, "record-%" PRIu32, type);
            name = unnamed;
        }
        fprintf(out, "%-28s %" PRIu64 "\n", name, n);
        *total += n;
    }
}

/* Everything after the command line: returns the exit code. */
static int dump(const struct vftr_tool *tool, struct dump_args *args, const char *trace)
{
    static char outbuf[OUTPUT_BUFFER];
    uint64_t counts[OTF_NRECORDS] = { 0 }, before[OTF_NRECORDS], total = 0;
    char err[VFTR_ERRMSG_MAX], why[VFTR_ERRMSG_MAX];
    OTF_FileManager *manager = NULL;
    OTF_HandlerArray *handlers = NULL;
    OTF_Reader *reader = NULL;
    FILE *out = stdout;
    char *stub;
    int rc = VFTR_EXIT_ERROR;

    stub = vftr_trace_namestub(trace);
    if (!stub)
        return vftr_tool_fail(tool, stderr, "out of memory");
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

    manager = OTF_FileManager_open(MAX_OPEN_FILES);
    if (!manager) {
        rc = vftr_tool_fail(tool, stderr, "cannot create an OTF file manager (%s)",
                            vftr_trace_otf_reason(why, sizeof why));
        goto out;
    }
    reader = vftr_trace_open(stub, manager, err, sizeof err);
    if (!reader) {
        rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
        goto out;
    }

    {
        int src = vftr_tracesel_apply(&args->sel, stub, manager, reader, NULL, err,
                                      sizeof err);

        if (src == -EINVAL) {
            rc = vftr_tool_usage_fail(tool, stderr, "%s", err);
            goto out;
        }
        if (src < 0) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: %s", stub, err);
            goto out;
        }
    }

    /* --count formats nothing: the printers only count (out == NULL). */
    if (args->count_only)
        out = NULL;

    handlers = OTF_HandlerArray_open();
    if (!handlers || vftr_otf_print_install(handlers, out, args->kinds, counts) < 0) {
        rc = vftr_tool_fail(tool, stderr, "cannot set up the record printers");
        goto out;
    }

    /* names without --defs: the definitions are read first, unprinted, for
     * the names the other records refer to */
    if (out && (args->kinds & VFTR_OTF_PRINT_NAMES) && !(args->kinds & VFTR_OTF_PRINT_DEFS)) {
        vftr_otf_print_select(handlers, 0);
        if (read_definitions(reader, handlers) == OTF_READ_ERROR) {
            rc = vftr_tool_fail(tool, stderr, "%s.otf: cannot read definitions (%s)", stub,
                                vftr_trace_otf_reason(why, sizeof why));
            goto out;
        }
        vftr_otf_print_select(handlers, args->kinds);
    }
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (!(args->kinds & sections[i].kind))
            continue;
        memcpy(before, counts, sizeof before);
        if (sections[i].read(reader, handlers) == OTF_READ_ERROR) {
            fflush(stdout);
            rc = vftr_tool_fail(tool, stderr, "%s.otf: cannot read %s (%s)", stub,
                                sections[i].what, vftr_trace_otf_reason(why, sizeof why));
            goto out;
        }
        if (args->count_only)
            print_section_counts(stdout, counts, before, &total);
    }

    if (args->count_only)
        fprintf(stdout, "%-28s %" PRIu64 "\n", "total", total);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        rc = vftr_tool_fail(tool, stderr, "write error: %s", strerror(errno));
        goto out;
    }
    rc = VFTR_EXIT_OK;

out:
    if (handlers)
        OTF_HandlerArray_close(handlers);
    if (reader)
        OTF_Reader_close(reader);
    if (manager)
        OTF_FileManager_close(manager);
    free(stub);
    return rc;
}

/*
 * --check: the invariants of lib/model/check.h on the trace's events (any
 * input the trace source reads: an OTF trace, a run's .vfd files or its
 * directory).  Violations on stdout, then one line that sums up.
 */
static int check(const struct vftr_tool *tool, char *const *ops, int n)
{
    char err[VFTR_ERRMSG_MAX + 512];
    struct vftr_source_opts so = { stderr, tool->name, 0 };
    struct vftr_source *src;
    struct vftr_check_counts k;
    struct vftr_check_opts co = { stdout, tool->name, ops[0], 0 };
    int rc = vftr_source_open(&src, (const char *const *)ops, (size_t)n, &so, err, sizeof err);

    if (rc < 0)
        return rc == -EINVAL ? vftr_tool_usage_fail(tool, stderr, "%s", err)
                             : vftr_tool_fail(tool, stderr, "%s", err);
    co.name = vftr_source_info(src)->name;
    rc = vftr_check_source(src, &co, &k, err, sizeof err);
    if (rc < 0) {
        vftr_source_free(src);
        return vftr_tool_fail(tool, stderr, "%s", err);
    }
    if (k.violations)
        printf("%s: %s: %" PRIu64 " violation%s in %" PRIu64 " events of %" PRIu64
               " processes\n", tool->name, co.name, k.violations, k.violations == 1 ? "" : "s",
               k.events, k.processes);
    else
        printf("%s: %s: consistent: %" PRIu64 " events of %" PRIu64 " processes checked (%"
               PRIu64 " sends never received%s)\n", tool->name, co.name, k.events, k.processes,
               k.unreceived, k.unverified ? ", receives from ranks whose data ends early not "
                                            "checked" : "");
    vftr_source_free(src);
    if (fflush(stdout) != 0)
        return vftr_tool_fail(tool, stderr, "write error: %s", strerror(errno));
    return k.violations ? VFTR_EXIT_ERROR : VFTR_EXIT_OK;
}

int main(int argc, char **argv)
{
    struct dump_args args = { 0, 0, 0, 0, VFTR_TRACESEL_INIT };
    const struct vftr_opt opts[] = {
        { VFTR_OPT_BITS, "defs", 'd', NULL, "print definitions",
          &args.kinds, VFTR_OTF_PRINT_DEFS, NULL },
        { VFTR_OPT_BITS, "events", 'e', NULL, "print events",
          &args.kinds, VFTR_OTF_PRINT_EVENTS, NULL },
        { VFTR_OPT_BITS, "snaps", 0, NULL, "print snapshots",
          &args.kinds, VFTR_OTF_PRINT_SNAPS, NULL },
        { VFTR_OPT_BITS, "stats", 'S', NULL, "print statistics (summaries)",
          &args.kinds, VFTR_OTF_PRINT_STATS, NULL },
        { VFTR_OPT_BITS, "markers", 0, NULL, "print markers",
          &args.kinds, VFTR_OTF_PRINT_MARKERS, NULL },
        { VFTR_OPT_CALLBACK, "time", 't', "A:B",
          "only events, snapshots and statistics with\nA <= time < B (see TIMES below)",
          &args.sel, 0, vftr_tracesel_opt_time },
        { VFTR_OPT_CALLBACK, "process", 'p', "LIST",
          "only events, snapshots and statistics of these\nprocesses: rank 3, rank 3 thread 2 "
          "(from 0),\nor OTF tokens 1-4,9 (may be repeated)", &args.sel, 0, vftr_tracesel_opt_process },
        { VFTR_OPT_FLAG, "raw", 0, NULL,
          "OTF, OTF2: ids only, no definition names after\nthem (\"function=1\", not \"function=1 (main)\")",
          &args.raw, 1, NULL },
        { VFTR_OPT_FLAG, "count", 0, NULL, "print only the number of records per type",
          &args.count_only, 1, NULL },
        { VFTR_OPT_FLAG, "check", 0, NULL,
          "check the trace's invariants instead of printing\nit (see CHECKS below); "
          "exit 1 on a violation", &args.check, 1, NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_tool tool = {
        "vftr-dump", VFTR_VERSION, "[OPTION]... TRACE",
        "Print the records of the OTF trace TRACE (foo or foo.otf), of the .vfd\n"
        "file TRACE, or of the OTF2 archive TRACE (traces.otf2 or its directory),\n"
        "one per line.",
        "Without --defs, --events, --snaps, --stats or --markers everything is printed.\n"
        "A field that refers to a definition is followed by the definition's name:\n"
        "\"Enter function=1 (main)\", \"SendMsg receiver=2 (rank 1) group=1\n"
        "(MPI_COMM_WORLD)\" (--raw: the ids alone; the second column, the process,\n"
        "is always its token).\n"
        "\n"
        "TIMES are counted from the trace's first time stamp: a bare number is\n"
        "timer ticks (2500), a number with a unit s, ms, us or ns is converted\n"
        "with the trace's timer resolution (1.5ms).  Either side of A:B may be\n"
        "empty (1ms: means from 1 ms to the end).\n"
        "\n"
        "For a .vfd file, --defs prints the header and the definitions, --events\n"
        "the events; --process selects threads (vftr's thread numbers) and --time\n"
        "counts from the file's start.\n"
        "\n"
        "An OTF2 archive is printed as vftr reads it, in OTF's record lines (the\n"
        "lines of its OTF conversion): locations as processes, regions as\n"
        "functions, MPI events as messages and collectives, metrics as counters.\n"
        "\n"
        "CHECKS (--check, for any trace vftr reads, also a run's .vfd files or its\n"
        "directory): per process, time never goes back, every Leave closes the\n"
        "open call of its function, no call stays open, callees take no longer than\n"
        "their call, exclusive times add up to the time a call was open; every\n"
        "receive matches one earlier send; collective operations begin and end;\n"
        "no record of a .vfd capture needed repair.  One line per violation (the\n"
        "first 20), then a summary.\n"
        "\n"
        "Exit status: 0 ok, 1 the trace cannot be read (or --check found a\n"
        "violation), 2 bad command line.\n",
        opts,
    };
    int first, rc;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0) {
        vftr_tracesel_release(&args.sel);
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    }
    if (first >= argc) {
        rc = vftr_tool_usage_fail(&tool, stderr, "missing TRACE operand");
    } else if ((rc = vftr_source_check_operands(&tool, argv + first, argc - first,
                                                 VFTR_TAKES_ALL)) != 0) {
        /* said why */
    } else if (args.check) {
        if (args.kinds || args.count_only || args.sel.have_procs || args.sel.window)
            rc = vftr_tool_usage_fail(&tool, stderr, "--check takes no other option");
        else
            rc = check(&tool, argv + first, argc - first);
    } else if (argc - first > 1) {
        rc = vftr_tool_usage_fail(&tool, stderr, "extra operand '%s'", argv[first + 1]);
    } else {
        if (args.kinds == 0)
            args.kinds = ALL_KINDS;
        if (!args.raw)
            args.kinds |= VFTR_OTF_PRINT_NAMES;
        if (vftr_source_kind_of(argv[first]) == VFTR_SOURCE_OTF2) {
            struct vftr_dump_model_args ma = { args.kinds, args.count_only, &args.sel };

            rc = vftr_dump_model(&tool, &ma, argv[first]);
        } else if (vftr_dump_is_vfd(argv[first])) {
            struct vftr_dump_vfd_args va = {
                (args.kinds & VFTR_OTF_PRINT_DEFS) != 0, (args.kinds & VFTR_OTF_PRINT_DEFS) != 0,
                (args.kinds & VFTR_OTF_PRINT_EVENTS) != 0, args.count_only, &args.sel,
            };
            rc = vftr_dump_vfd(&tool, &va, argv[first]);
        } else {
            rc = dump(&tool, &args, argv[first]);
        }
    }
    vftr_tracesel_release(&args.sel);
    return rc;
}
