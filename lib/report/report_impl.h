/*
 * report_impl.h — what the collector (collect.c) hands the renderers
 * (html.c, svg.c); not for tools.
 *
 * Rules of the structure: every array is sorted in the order it is shown
 * (functions and groups by exclusive time, descending, then name, then
 * token, as vftr-stats's default; processes by rank, then thread; ranks
 * ascending), so a renderer only walks it.  Names are borrowed from the
 * source (or from `unnamed`) and valid until vftr_report_free.
 */
#ifndef VFTR_REPORT_REPORT_IMPL_H
#define VFTR_REPORT_REPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "model/messages.h"
#include "model/profile.h"
#include "model/replay.h"
#include "model/source.h"

/* The kinds of function group, for colours: by the group's name. */
enum rep_kind { REP_USER, REP_MPI, REP_OMP, REP_IO, REP_OTHER, REP_NKINDS };

/* One row of a profile table (functions or groups): vftr-stats's row. */
struct rep_prow {
    const char *name;
    const struct vftr_profile_row *p;
    int exact;                  /* calls known (not a sampled capture's estimate) */
    enum rep_kind kind;         /* of the function's group, or of the group */
};

struct rep_table {
    struct vftr_profile prof;
    struct rep_prow *rows;      /* prof.nrows, sorted */
    /* per (rank process, token) figures, sorted by rank then row order */
    struct vftr_funcstat *per;
    size_t nper;
};

/* A call path, in vftr-stats --callpath's order (depth first, siblings by
 * inclusive time, then name, then token). */
struct rep_path {
    const char *name;
    const struct vftr_pathstat *p;
    int exact;
    enum rep_kind kind;
};

/* A timeline row: one process.  A run is `len` bins showing function `fn`
 * (a token; 0: idle). */
struct rep_run { uint32_t len, fn; };
struct rep_runs { struct rep_run *v; size_t n, cap; };

struct rep_level {
    uint64_t nbins;
    struct rep_runs *rows;      /* one per timeline row */
};

#define REP_MAX_LEVELS 6

struct rep_rank {               /* a rank: its own process and its threads */
    uint32_t token, rank;
    size_t nthreads;
};

/* A row of the waits table: vftr-stats --waits's (waits.c). */
struct rep_wait {
    unsigned pattern;
    uint32_t process;           /* the rank's process: threads folded */
    uint32_t path;              /* the analysis's call path id */
    double time, pct, count, max;   /* seconds, % of the processes' time */
    char *name;                 /* the call path, owned */
};

/* The waits table lists at most this many rows (the largest). */
#define REP_MAX_WAITS 100

struct vftr_report {
    struct vftr_source *src;
    const struct vftr_source_info *info;
    double res;                 /* ticks per second (1 when unknown) */
    uint64_t a, b;              /* the window asked for */
    uint64_t t0, t1;            /* the timeline's span [t0, t1) */

    const struct vftr_source_proc **procs;   /* by (rank, thread) */
    size_t nprocs;
    struct rep_rank *ranks;
    size_t nranks;

    struct rep_table funcs, groups;
    struct vftr_replay *paths;                /* finished, merged */
    struct rep_path *tree;                    /* depth first */
    size_t ntree;

    struct vftr_messages *msgs;               /* finished */

    int have_timeline;
    struct rep_level levels[REP_MAX_LEVELS];  /* coarsest first */
    int nlevels;

    int have_waits;             /* the analysis ran: the page has a waits section */
    struct rep_wait *waits;     /* in vftr-stats --waits's order */
    size_t nwaits;
    double wait_total;          /* seconds waited (Late Sender's wrong-order part once) */
    double wait_proc_time;      /* the processes' time in the window, seconds */

    char **warnings;
    size_t nwarnings;
    uint64_t events;            /* events delivered by the read */
    uint64_t bytes_read;        /* bytes the read cost */
    uint64_t trace_bytes;       /* the trace's files on disk */
    unsigned parts;             /* reading threads */

    char **unnamed;             /* "function-N" and the like, owned */
    size_t nunnamed;
};

/* The name vftr-stats gives a token: the source's, or "function-N",
 * "group-N", "collective-N" (kept in r->unnamed).  NULL only for -ENOMEM. */
enum { REP_NAME_FUNCTION = VFTR_SOURCE_NAME_FUNCTION, REP_NAME_GROUP = VFTR_SOURCE_NAME_GROUP,
       REP_NAME_COLLOP = VFTR_SOURCE_NAME_COLLOP };
const char *rep_token_name(struct vftr_report *r, int kind, uint32_t token);

enum rep_kind rep_group_kind(const char *group_name);
enum rep_kind rep_function_kind(const struct vftr_report *r, uint32_t function);
const char *rep_kind_name(enum rep_kind k);
const char *rep_kind_colour(enum rep_kind k);
/* A function group's colour (token 0: no group). */
const char *rep_group_colour(const struct vftr_report *r, uint32_t group);
/* A label for a process: "rank R" or "rank R thread T". */
void rep_proc_label(const struct vftr_source_proc *p, char *buf, size_t size);
/* The rank index (into r->ranks) of a process token; r->nranks if none. */
size_t rep_rank_index(const struct vftr_report *r, uint32_t token);

/* A sortable table's column header (html.c): data-type tells the page's
 * script how to compare ("num" or "text"); help (may be NULL) its tooltip. */
void rep_th(FILE *out, const char *key, const char *text, int numeric, const char *help);

/* Numbers in the page (html.c, waits.c): a cell shows a figure as
 * vftr-stats's text output does (util/fmt.h: "4.00 ms", "12.5%", counts
 * whole) and keeps the figure itself in data-v (rep_exact; "-" for
 * unknown): the page's script sorts by data-v (so 4.00 ms comes below
 * 1.00 s, and 12 ns below 45 ns), and a test formats it as vftr-stats
 * --json does and compares. */
void rep_td_num(FILE *out, const char *exact, const char *shown);
/* v as data-v keeps it: the fewest significant digits (15 to 17, "%g")
 * that read back as v exactly ("0.3", "0.076715686274509803").  Returns
 * the length, as snprintf. */
size_t rep_exact(double v, char *buf, size_t size);
/* A time as the cells show it: vftr_fmt_seconds, or whole ticks ("2500
 * ticks") for a trace without a timer resolution (its figures are ticks). */
void rep_fmt_time(const struct vftr_report *r, double seconds, char *buf, size_t size);

/* Text escaped for HTML and XML (both renderers): & < > " '. */
void rep_put_escaped(FILE *out, const char *s);
/* A JSON string (the page's data): quotes, and '<' as \u003c so that no
 * "</script>" ends the block early. */
void rep_put_json_string(FILE *out, const char *s);

/* svg.c: chart c as an <svg> element (standalone: with the XML prologue
 * and namespace).  0 or -EINVAL (chart not available). */
int rep_svg_chart(const struct vftr_report *r, enum vftr_report_chart c, FILE *out,
                  int standalone);
/* Is chart c drawn for this report (a trace without messages has no
 * matrix, a report without timeline no timeline)? */
int rep_chart_available(const struct vftr_report *r, enum vftr_report_chart c);

/* waits.c: the wait analysis (model/analysis.h) of the report's source
 * and window, for the processes in sel (NULL: all), when the trace has
 * synchronisation; fills have_waits and the rows.  Call after the read
 * (it reads the source again) and after the messages are finished.  0 or
 * -errno with err.  rep_waits_free releases the rows. */
int rep_waits_collect(struct vftr_report *r, const struct vftr_proclist *sel, char *err,
                      size_t errlen);
void rep_waits_free(struct vftr_report *r);
/* Writes the page's "Largest waits" section; returns 1 when it wrote one,
 * 0 when the report has none (no synchronisation in the trace), -EIO. */
int rep_waits_html(const struct vftr_report *r, FILE *out);

/* The page's style and script (assets generated from report.css and
 * report.js at build time, lib/report/embed.py). */
extern const char vftr_report_css[];
extern const char vftr_report_js[];

#endif /* VFTR_REPORT_REPORT_IMPL_H */
