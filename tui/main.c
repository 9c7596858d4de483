/*
 * vftr-tui — a terminal browser for OTF traces of any size.  main() parses
 * the options (lib/util/opts.h), opens the model (model.h) and runs the one
 * event loop: refresh the model, draw, read a key, run its action from the
 * key table (keys.h).  --bench runs the same model without a terminal and
 * prints timings, for `make bench-tui`.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "index.h"
#include "keys.h"
#include "model.h"
#include "screen.h"
#include "model/source.h"
#include "model/vfdcache.h"
#include "util/errmsg.h"
#include "util/number.h"
#include "util/opts.h"
#include "util/timespec.h"

struct tui_args {
    const char *window;       /* --time A:B */
    const char *bench;        /* --bench N */
    const char *bench_span;   /* --bench-span FRACTION */
    int keys, keys_man;
    int bench_waits;          /* --bench-waits */
    int index, no_index;      /* --index, --no-index */
    const char *cache_dir;    /* --cache-dir DIR */
};

/*
 * Opens the trace for browsing: a trace without snapshots whose events are
 * large enough that reading from its start would be felt on every key
 * (index.h) is indexed first (vftr-snap --all in place, its progress on
 * stderr), then opened again.  When the index cannot be made the trace is
 * browsed without it and *note says why.  NULL + err as tui_model_open.
 */
static struct tui_model *open_indexed(const struct tui_args *args, const char *trace,
                                      char *note, size_t notelen, char *err, size_t errlen)
{
    struct tui_model *m = tui_model_open(trace, err, errlen);
    enum tui_index_mode mode = args->no_index ? TUI_INDEX_NEVER
                             : args->index ? TUI_INDEX_ALWAYS : TUI_INDEX_AUTO;
    char why[VFTR_ERRMSG_MAX + 64], *stub;
    int rc;

    note[0] = '\0';
    if (!m || !tui_index_wanted(mode, tui_model_info(m)->nsnapshots,
                                tui_index_event_bytes(tui_model_trace_name(m))))
        return m;
    if (!(stub = strdup(tui_model_trace_name(m))))
        return m;
    tui_model_free(m);
    rc = tui_index_otf(stub, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "vftr-tui: %s.otf: not indexed: %s\n", stub, why);
        snprintf(note, notelen, "not indexed (%.400s): views read from the trace start", why);
    }
    m = tui_model_open(stub, err, errlen);
    free(stub);
    return m;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Applies --time to the model's view. */
static int apply_window(const struct vftr_tool *tool, struct tui_model *m, const char *spec)
{
    const struct vftr_window_info *info = tui_model_info(m);
    struct vftr_timebase base = { info->resolution, info->first };
    struct vftr_timerange r;
    struct tui_view *v = tui_model_view(m);
    char err[VFTR_ERRMSG_MAX];

    if (vftr_timerange_parse(spec, &base, &r, err, sizeof err) < 0)
        return vftr_tool_usage_fail(tool, stderr, "%s", err);
    if (r.start < info->first)
        r.start = info->first;
    if (r.end > info->last + 1)
        r.end = info->last + 1;
    if (r.end <= r.start)
        return vftr_tool_usage_fail(tool, stderr, "the window %s is outside the trace", spec);
    v->t0 = r.start;
    v->t1 = r.end;
    v->cursor = r.start;
    tui_model_invalidate(m, 1);
    return 0;
}

/* CPU time of the process (the replay threads included): on a shared
 * machine the wall time of a jump also measures the other programs; both
 * are reported. */
static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/*
 * The benchmark: time from open to the first complete frame (80 columns,
 * whole trace), then `n` jumps to pseudo-random times with a window of
 * `span` of the trace, each timed from the key to the refreshed model.
 */
/*
 * What the wait analysis costs (--bench-waits): the waits and the critical
 * path of the window left by the jumps, then the waits of the whole trace,
 * each computed afresh as the first w, P or W of a session computes them.
 */
static int bench_waits(struct tui_model *m, char *err, size_t errlen)
{
    const struct tui_view *v = tui_model_view(m);
    const struct vftr_window_info *info = tui_model_info(m);
    struct {
        const char *name;
        unsigned kind;
        uint64_t a, b;
    } runs[] = {
        { "waits_window", TUI_WAITS_WAITS, v->t0, v->t1 },
        { "critpath_window", TUI_WAITS_CRITPATH, v->t0, v->t1 },
        { "waits_full", TUI_WAITS_WAITS, info->first, info->last + 1 },
    };

    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        struct tui_waits *w = tui_waits_new();
        double a = now(), ca = cpu_now();
        size_t nrows;
        int rc;

        if (!w)
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        rc = tui_waits_update(w, m, runs[i].kind, runs[i].a, runs[i].b, err, errlen);
        tui_waits_rows(w, &nrows);
        printf("%s_ms %.3f\n%s_cpu_ms %.3f\n%s_rows %zu\n", runs[i].name, (now() - a) * 1e3,
               runs[i].name, (cpu_now() - ca) * 1e3, runs[i].name, nrows);
        tui_waits_free(w);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int bench(const struct vftr_tool *tool, const char *trace, long n, double span,
                 int waits)
{
    char err[VFTR_ERRMSG_MAX];
    double t0 = now(), c0 = cpu_now(), first, first_cpu, *jumps, *cpu;
    struct tui_model *m = tui_model_open(trace, err, sizeof err);
    const struct vftr_window_info *info;
    uint64_t bytes_first, bytes_max = 0, x = 88172645463325252ull;
    struct rusage ru;

    if (!m)     /* the message names the trace */
        return vftr_tool_fail(tool, stderr, "%s", err);
    tui_model_set_columns(m, 70);
    if (tui_model_refresh(m, err, sizeof err) < 0) {
        tui_model_free(m);
        return vftr_tool_fail(tool, stderr, "%s: %s", trace, err);
    }
    first = now() - t0;
    first_cpu = cpu_now() - c0;
    bytes_first = tui_model_data(m)->bytes_read;
    printf("first_frame_ms %.3f\nfirst_frame_cpu_ms %.3f\nfirst_frame_bytes %llu\n"
           "first_frame_sampled %d\n",
           first * 1e3, first_cpu * 1e3, (unsigned long long)bytes_first,
           tui_model_data(m)->sampled);
    info = tui_model_info(m);
    tui_model_zoom(m, span);
    if (tui_model_refresh(m, err, sizeof err) < 0) {
        tui_model_free(m);
        return vftr_tool_fail(tool, stderr, "%s: %s", trace, err);
    }
    jumps = calloc((size_t)(n > 0 ? n : 1), sizeof *jumps);
    cpu = calloc((size_t)(n > 0 ? n : 1), sizeof *cpu);
    if (!jumps || !cpu) {
        free(jumps);
        free(cpu);
        tui_model_free(m);
        return vftr_tool_fail(tool, stderr, "out of memory");
    }
    for (long i = 0; i < n; i++) {
        double a, ca;

        x ^= x << 13;                 /* xorshift: reproducible "arbitrary" times */
        x ^= x >> 7;
        x ^= x << 17;
        a = now();
        ca = cpu_now();
        tui_model_jump(m, info->first + x % (info->last - info->first + 1));
        tui_model_invalidate(m, 1);
        if (tui_model_refresh(m, err, sizeof err) < 0) {
            free(jumps);
            free(cpu);
            tui_model_free(m);
            return vftr_tool_fail(tool, stderr, "%s: %s", trace, err);
        }
        jumps[i] = now() - a;
        cpu[i] = cpu_now() - ca;
        if (tui_model_data(m)->bytes_read > bytes_max)
            bytes_max = tui_model_data(m)->bytes_read;
    }
    if (waits && bench_waits(m, err, sizeof err) < 0) {
        free(jumps);
        free(cpu);
        tui_model_free(m);
        return vftr_tool_fail(tool, stderr, "%s: %s", trace, err);
    }
    qsort(jumps, (size_t)n, sizeof *jumps, cmp_double);
    qsort(cpu, (size_t)n, sizeof *cpu, cmp_double);
    getrusage(RUSAGE_SELF, &ru);
    printf("jumps %ld\njump_ms_median %.3f\njump_ms_max %.3f\njump_cpu_ms_median %.3f\n"
           "jump_cpu_ms_max %.3f\njump_bytes_max %llu\njump_sampled %d\npeak_rss_kb %ld\n",
           n, n ? jumps[n / 2] * 1e3 : 0.0, n ? jumps[n - 1] * 1e3 : 0.0,
           n ? cpu[n / 2] * 1e3 : 0.0, n ? cpu[n - 1] * 1e3 : 0.0,
           (unsigned long long)bytes_max, tui_model_data(m)->sampled, ru.ru_maxrss);
    free(jumps);
    free(cpu);
    tui_model_free(m);
    return VFTR_EXIT_OK;
}

/*
 * One refresh of the model with its reads shown and stoppable (the screen's
 * progress function on the model's window): 0, -errno (err says why), or
 * 1 when Escape stopped the reads (the view is left empty, app->message
 * says so) and 2 when q or a signal did (quit).
 */
static int refresh(struct tui_app *app, char *err, size_t errlen)
{
    struct tui_model *m = app->model;
    uint64_t bytes;
    int rc, stop;

    tui_screen_progress_reset();
    vftr_window_set_progress(tui_model_window(m), tui_screen_progress, NULL);
    rc = tui_model_refresh(m, err, errlen);
    stop = tui_screen_progress_stopped(&bytes);
    vftr_window_set_progress(tui_model_window(m), NULL, NULL);
    if (rc < 0 && stop) {
        tui_model_abandon(m);
        snprintf(app->message, sizeof app->message, "stopped reading after %.1f MB: the view "
                 "is left empty (zoom in, or move, to read a smaller part)", (double)bytes / 1e6);
        return stop;
    }
    return rc < 0 ? rc : 0;
}

/*
 * The wait analysis of the visible window, when a view that shows it is
 * on and it is not known yet (waits.h): announced on the message line
 * (it reads the trace from its start), shown and stoppable as the other
 * reads; then the line at the cursor.  A stopped analysis switches its
 * views off, so that moving on does not start it again; a failed one says
 * why in the message line.  Returns 2 when q or a signal stopped it.
 */
static int refresh_waits(struct tui_app *app)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    unsigned kinds = (app->wait_overlay || app->pane == TUI_PANE_WAITS ? TUI_WAITS_WAITS : 0) |
                     (app->critpath ? TUI_WAITS_CRITPATH : 0);
    char err[VFTR_ERRMSG_MAX];
    int rc = 0, stop = 0;

    app->wait_cursor = NULL;
    if (!kinds || !app->waits)
        return 0;
    if (tui_waits_missing(app->waits, kinds, v->t0, v->t1)) {
        uint64_t bytes;
        double t = now();

        snprintf(app->message, sizeof app->message, "computing the wait analysis of the "
                 "window (reads the trace from its start) ... Esc stops");
        tui_screen_status(NULL, app);
        tui_screen_progress_reset();
        vftr_window_set_progress(tui_model_window(m), tui_screen_progress, NULL);
        rc = tui_waits_update(app->waits, m, kinds, v->t0, v->t1, err, sizeof err);
        stop = tui_screen_progress_stopped(&bytes);
        vftr_window_set_progress(tui_model_window(m), NULL, NULL);
        if (rc < 0 && stop) {
            app->wait_overlay = app->critpath = 0;
            if (app->pane == TUI_PANE_WAITS)
                app->pane = TUI_PANE_PROFILE;
            if (app->focus == TUI_FOCUS_WAITS)
                app->focus = TUI_FOCUS_PROFILE;
            snprintf(app->message, sizeof app->message, "stopped the wait analysis after "
                     "%.1f MB: its views (w, P, W) are off", (double)bytes / 1e6);
            return stop;
        }
        if (rc < 0) {
            snprintf(app->message, sizeof app->message, "wait analysis: %s", err);
            return 0;
        }
        snprintf(app->message, sizeof app->message, "wait analysis of the window: %.2f s "
                 "(kept for this window)", now() - t);
    } else if ((rc = tui_waits_update(app->waits, m, kinds, v->t0, v->t1, err,
                                      sizeof err)) < 0) {
        snprintf(app->message, sizeof app->message, "wait analysis: %s", err);
        return 0;
    }
    if (app->wait_overlay || app->critpath) {
        size_t np, cur = tui_model_time_col(m, v->cursor);
        const struct tui_proc *procs = tui_model_procs(m, &np);

        if (tui_waits_cursor(app->waits, m, procs[v->proc_sel].id, tui_model_col_time(m, cur),
                             tui_model_col_time(m, cur + 1), &app->wait_cursor, err,
                             sizeof err) < 0)
            snprintf(app->message, sizeof app->message, "wait analysis: %s", err);
    }
    return 0;
}

static int run(const struct vftr_tool *tool, const struct tui_args *args, const char *trace)
{
    char err[VFTR_ERRMSG_MAX], note[512];
    struct tui_model *m = open_indexed(args, trace, note, sizeof note, err, sizeof err);
    struct tui_app app = { 0 };
    int rc = VFTR_EXIT_OK;

    if (!m)     /* the message names the trace */
        return vftr_tool_fail(tool, stderr, "%s", err);
    if (args->window && (rc = apply_window(tool, m, args->window)) != 0) {
        tui_model_free(m);
        return rc;
    }
    if (tui_screen_open(err, sizeof err) < 0) {
        tui_model_free(m);
        return vftr_tool_fail(tool, stderr, "%s", err);
    }
    app.model = m;
    if (!(app.waits = tui_waits_new())) {
        tui_screen_close();
        tui_model_free(m);
        return vftr_tool_fail(tool, stderr, "out of memory");
    }
    app.prompt = tui_screen_prompt;
    app.status = tui_screen_status;
    if (note[0])
        snprintf(app.message, sizeof app.message, "%s", note);
    else if (!tui_model_info(m)->resolution)
        snprintf(app.message, sizeof app.message, "the trace does not give its timer "
                 "resolution: times are in ticks (t), not seconds");
    else if (!tui_model_info(m)->nsnapshots)
        snprintf(app.message, sizeof app.message,
                 "no snapshots, views read from the start: press S to run vftr-snap --all %s",
                 tui_model_trace_name(m));
    tui_model_set_columns(m, tui_screen_layout(&app));
    /* A trace whose first view cannot be read is reported on exit, with
     * the terminal restored; later failures (a damaged part of the trace)
     * are shown in the message line, and the exit status says so.  Reads
     * that take long show their progress and stop on Escape (the view is
     * then left empty) or q (quit). */
    tui_screen_draw(&app);
    int first = refresh(&app, err, sizeof err);
    if (first < 0) {
        tui_screen_close();
        tui_model_free(m);
        tui_waits_free(app.waits);
        return vftr_tool_fail(tool, stderr, "%s: %s", trace, err);
    }
    while (first != 2) {
        enum tui_result res;
        int key, r;

        rc = VFTR_EXIT_OK;
        m = app.model;           /* an action may have reopened the trace */
        r = refresh(&app, err, sizeof err);
        if (r == 2 || (r == 0 && refresh_waits(&app) == 2))
            break;
        if (r < 0) {
            snprintf(app.message, sizeof app.message, "cannot read the trace: %s", err);
            rc = VFTR_EXIT_ERROR;
        }
        tui_screen_draw(&app);
        do {
            key = tui_screen_getkey();
        } while (key < 0 && !tui_screen_interrupted());
        if (tui_screen_interrupted())
            break;
        if (app.help && key != TUI_KEY_RESIZE) {
            size_t page = tui_screen_help_page();

            /* the help pages up and down; any other key closes it */
            if (key == TUI_KEY_PGDN || key == ' ')
                app.help_top += page;
            else if (key == TUI_KEY_DOWN || key == 'j')
                app.help_top++;
            else if (key == TUI_KEY_PGUP)
                app.help_top = app.help_top > page ? app.help_top - page : 0;
            else if (key == TUI_KEY_UP || key == 'k')
                app.help_top -= app.help_top > 0;
            else
                app.help = 0;
            continue;
        }
        app.message[0] = '\0';
        res = tui_key_dispatch(&app, key);
        if (res == TUI_QUIT)
            break;
        if (key == TUI_KEY_RESIZE)
            tui_model_set_columns(app.model, tui_screen_layout(&app));
        else
            tui_screen_layout(&app);
    }
    tui_screen_close();
    tui_model_free(app.model);
    tui_waits_free(app.waits);
    if (tui_screen_interrupted()) {
        /* die of the signal after the terminal is restored, so that the
         * parent sees what happened */
        int sig = tui_screen_interrupted();

        signal(sig, SIG_DFL);
        raise(sig);
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct tui_args args = { 0 };
    const struct vftr_opt opts[] = {
        { VFTR_OPT_STRING, "time", 't', "A:B",
          "start with the window A <= time < B (times from\nthe trace start: 2500, 1.5ms)",
          &args.window, 0, NULL },
        { VFTR_OPT_FLAG, "index", 0, NULL, "a trace without snapshots: add them first\n"
          "(vftr-snap --all, in place), whatever its size", &args.index, 1, NULL },
        { VFTR_OPT_FLAG, "no-index", 0, NULL, "never add snapshots to a trace (by default\n"
          "one whose events take 16 MiB or more gets them)", &args.no_index, 1, NULL },
        { VFTR_OPT_STRING, "cache-dir", 0, "DIR", "keep the OTF trace of .vfd input in DIR\n"
          "(default: RUNDIR/vftr-otf/, else the user's cache)", &args.cache_dir, 0, NULL },
        { VFTR_OPT_FLAG, "keys", 'k', NULL, "print the key bindings and exit", &args.keys, 1,
          NULL },
        { VFTR_OPT_FLAG, "keys-man", 0, NULL, "print the key bindings as man(7) source",
          &args.keys_man, 1, NULL },
        { VFTR_OPT_STRING, "bench", 0, "N",
          "no terminal: time the first frame and N jumps,\nprint the timings and peak RSS",
          &args.bench, 0, NULL },
        { VFTR_OPT_STRING, "bench-span", 0, "FRACTION",
          "window of the --bench jumps, as a fraction of the\ntrace (default 0.001)",
          &args.bench_span, 0, NULL },
        { VFTR_OPT_FLAG, "bench-waits", 0, NULL, "with --bench: also time the wait analysis "
          "of the\nlast jump's window and of the whole trace", &args.bench_waits, 1, NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_tool tool = {
        "vftr-tui", VFTR_VERSION, "[OPTION]... TRACE | FILE.vfd... | RUNDIR",
        "Browse the OTF trace TRACE (foo or foo.otf), OTF2 archive (traces.otf2\n"
        "or its directory) or a run's .vfd files (or its directory) in the terminal.",
        "Each view reads only the time window it shows, starting from the nearest\n"
        "snapshot (vfd2otf, vftr-snap or otfaux write them; a trace without them\n"
        "whose events take 16 MiB or more gets them first, kept beside it).  Press\n"
        "? inside for the keys.\n"
        "An OTF2 archive is converted once into an OTF trace with snapshots and\n"
        "summaries, kept in its directory (vftr-tui/) and reused.  A run's .vfd files\n"
        "are converted once into the trace vfd2otf writes (with snapshots and\n"
        "summaries), kept in RUNDIR/vftr-otf/ (or, when RUNDIR cannot be written,\n"
        "in $XDG_CACHE_HOME/vftr/) and reused while the .vfd files are unchanged.\n"
        "\n"
        "Exit status: 0 ok, 1 the trace cannot be read, 2 bad command line.\n",
        opts,
    };
    int first, rc;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0)
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    if (args.keys || args.keys_man) {
        char line[256];

        if (args.keys_man) {
            tui_keys_print_man(stdout);
            return VFTR_EXIT_OK;
        }
        for (size_t i = 0; i < tui_keys_help_lines(); i++) {
            tui_keys_help_line(i, line, sizeof line);
            puts(line);
        }
        return VFTR_EXIT_OK;
    }
    if (first >= argc)
        return vftr_tool_usage_fail(&tool, stderr, "missing TRACE operand");
    /* several operands only for a run's .vfd files (one per rank) */
    for (int i = first + 1; i < argc; i++)
        if (!vftr_source_is_vfd(argv[first]) || !vftr_source_is_vfd(argv[i]))
            return vftr_tool_usage_fail(&tool, stderr, "extra operand '%s' (several operands "
                                        "only for .vfd files)", argv[i]);
    if (args.index && args.no_index)
        return vftr_tool_usage_fail(&tool, stderr, "--index and --no-index exclude each other");
    if ((rc = vftr_source_check_operands(&tool, argv + first, argc - first,
                                         VFTR_TAKES_ALL)) != 0)
        return rc;
    if (vftr_source_is_vfd(argv[first])) {
        static char stub[8192];
        char err[VFTR_ERRMSG_MAX + 512], home[4096];
        struct vftr_vfdcache_opts co = {
            "vftr-tui", stderr, isatty(STDERR_FILENO), 0, 0, args.cache_dir,
            vftr_vfdcache_user_dir(home, sizeof home),
        };

        /* the screen is not open yet: the conversion's notes and progress
         * go to stderr */
        if (vftr_vfdcache_get((const char *const *)argv + first, (size_t)(argc - first), &co,
                              stub, sizeof stub, NULL, err, sizeof err) < 0)
            return vftr_tool_fail(&tool, stderr, "%s", err);
        argv[first] = stub;
        argc = first + 1;
    }
    if (vftr_source_kind_of(argv[first]) == VFTR_SOURCE_OTF2) {
        static char stub[4400];
        char err[VFTR_ERRMSG_MAX + 512];

        if (tui_index_otf2(argv[first], stub, sizeof stub, err, sizeof err) < 0)
            return vftr_tool_fail(&tool, stderr, "%s", err);
        argv[first] = stub;
    }
    if (args.bench) {
        char msg[VFTR_ERRMSG_MAX], *end = NULL;
        uint64_t n;
        double span = 0.001;

        if (vftr_count_parse(args.bench, 0, 1000000, "--bench", &n, msg, sizeof msg) < 0)
            return vftr_tool_usage_fail(&tool, stderr, "%s", msg);
        if (args.bench_span)
            span = strtod(args.bench_span, &end);
        if (args.bench_span && (end == args.bench_span || *end || !(span > 0 && span <= 1)))
            return vftr_tool_usage_fail(&tool, stderr, "bad --bench-span '%.64s': expected a "
                                        "fraction of the trace, above 0 and at most 1",
                                        args.bench_span);
        return bench(&tool, argv[first], (long)n, span, args.bench_waits);
    }
    return run(&tool, &args, argv[first]);
}
