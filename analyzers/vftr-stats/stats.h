/*
 * stats.h — what the parts of vftr-stats share: main.c (options, the
 * function profile, call paths, messages), analysis.c (the tables of the
 * wait analysis: --waits, --critical-path, --delays) and the analysis run,
 * run.c in vftr-stats and mpi/run_mpi.c in vftr-stats-mpi (the same tool
 * over MPI ranks).  Internal to the tool.
 */
#ifndef VFTR_STATS_H
#define VFTR_STATS_H

#include <stdint.h>
#include <stdio.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "model/analysis.h"
#include "model/source.h"
#include "util/opts.h"
#include "util/timespec.h"
#include "util/tracesel.h"

#define MAX_SORT_KEYS 8

enum { FMT_TEXT = 0, FMT_CSV = 1, FMT_JSON = 2 };
enum { VIEW_PROFILE = 0, VIEW_CALLPATH, VIEW_MESSAGES, VIEW_IO, VIEW_COUNTERS, VIEW_WAITS,
       VIEW_CRITPATH, VIEW_DELAYS };
enum colkind { COL_NAME, COL_COUNT, COL_SECONDS, COL_PERCENT, COL_RATIO };

struct column;

struct stats_args {
    struct vftr_tracesel sel;    /* --process, --time */
    const char *sort_spec;    /* --sort, resolved once the view is known */
    const struct column *sort[MAX_SORT_KEYS];   /* the profile's sort keys */
    size_t nsort;
    int reverse;
    long top;                 /* -1: all */
    const char *match;
    unsigned format;          /* FMT_* */
    unsigned view;            /* VIEW_* */
    int groups;               /* profile function groups, not functions */
    int fold;                 /* threads into ranks: 1 (the default) or -2 (--threads) */
    int verbose;              /* how the profile was made and what it read, on stderr */
    int quiet;                /* no progress line */
    unsigned jobs;            /* threads reading streams; 0: online CPUs */
    const char *plot;         /* --plot FILE.svg */
    int callpath;             /* --callpath (with --critical-path: per call path) */
    uint64_t rendezvous;      /* --rendezvous: Late Receiver's threshold in bytes */
};

/* Names by token (functions, function groups, collective operations). */
struct nametab {
    char **v;
    size_t n;
};

enum { NAME_FUNCTION = VFTR_SOURCE_NAME_FUNCTION, NAME_GROUP = VFTR_SOURCE_NAME_GROUP,
       NAME_COLLOP = VFTR_SOURCE_NAME_COLLOP };

struct names {
    const struct vftr_source *src;
    struct nametab unnamed[3];
};

/* The name of a token of the source, or "PREFIX-ID" for one it does not
 * define (kept in nm).  NULL when out of memory. */
const char *token_name(struct names *nm, int kind, uint32_t id);

void print_csv_string(FILE *out, const char *s);

/* analysis.c: checks args->sort_spec against the view's columns (0, or a
 * usage error already printed: VFTR_EXIT_USAGE). */
int stats_analysis_sort(const struct vftr_tool *tool, struct stats_args *args);

/*
 * analysis.c: runs the view's analysis (through stats_analysis_run) and
 * prints its table on stdout.  re/md: --match (may be NULL).  Returns an
 * exit code.
 */
int stats_analysis(const struct vftr_tool *tool, struct stats_args *args,
                   struct vftr_source *src, struct names *names,
                   const struct vftr_timerange *range, pcre2_code *re, pcre2_match_data *md);

/*
 * The analysis of a source (run.c: vftr_analysis_run in this thread;
 * mpi/run_mpi.c: spread over the MPI ranks).  *out is the finished
 * analysis on the process that prints (NULL on the others: *out NULL and
 * 0).  0 or -errno with err.
 */
int stats_analysis_run(struct vftr_source *src, const struct vftr_analysis_opts *o,
                       struct vftr_analysis **out, char *err, size_t errlen);

/*
 * How the trace's first pass is read (run.c: NULL, this process reads it
 * all; mpi/run_mpi.c: shared among the MPI ranks, each reading its share
 * of the .vfd files, lib/mpi/vfdshare.h).  Borrowed, valid until exit.
 */
const struct vftr_vfdconv_share *stats_source_share(void);

#endif /* VFTR_STATS_H */
