/*
 * vftr-snap — adds snapshots and statistical summaries (and otfaux's
 * thumbnail) to OTF traces, in place or into a copy, for one trace or a
 * batch of them in parallel.  By default it writes what the reference's
 * otfaux writes for the same -n/-p/-t options.
 *
 * The tool parses options (lib/util/opts), builds jobs (job.h, script.h)
 * and runs them, -j at a time in child processes (a trace that makes one
 * job fail, or even crash, does not stop the others); SIGINT, SIGTERM and
 * SIGHUP stop every job cleanly (see on_signal).  The work is in
 * lib/model/snapshot.c.  See share/man/man1/vftr-snap.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/snapshot.h"
#include "model/source.h"
#include "model/vfdcache.h"
#include "util/errmsg.h"
#include "util/number.h"
#include "util/opts.h"
#include "util/regfile.h"
#include "util/timespec.h"

#include "job.h"
#include "script.h"

#define MAX_JOBS_PARALLEL 256
#define MAX_SCRIPT_BYTES (64u << 20)

struct args {
    struct snap_job job;       /* the defaults every job starts from */
    long parallel;             /* -j */
    const char *script;
    const char *cache_dir;     /* --cache-dir */
};

/*
 * A job on a run's .vfd files (a run directory or a .vfd file) runs on the
 * run's OTF trace, the one vfd2otf writes by default, made once and kept
 * (lib/model/vfdcache.h: beside the run, in the user's cache, or in
 * --cache-dir): with -o its copy goes there, without -o the snapshots are
 * written into that trace, and a line says where it is.  0, or an exit
 * status (the message printed).
 */
static int vfd_jobs(const struct vftr_tool *tool, struct snap_job *jobs, size_t njobs,
                    const char *cache_dir, int quiet)
{
    for (size_t i = 0; i < njobs; i++) {
        char stub[8192], err[VFTR_ERRMSG_MAX + 512], home[4096], *copy;
        const char *op = jobs[i].trace;
        struct vftr_vfdcache_opts co = {
            tool->name, stderr, !quiet && isatty(STDERR_FILENO), quiet, 0, cache_dir,
            vftr_vfdcache_user_dir(home, sizeof home),
        };

        if (!op || !vftr_source_is_vfd(op))
            continue;
        if (vftr_vfdcache_get(&op, 1, &co, stub, sizeof stub, NULL, err, sizeof err) < 0)
            return vftr_tool_fail(tool, stderr, "%s", err);
        if (!(copy = strdup(stub)))
            return vftr_tool_fail(tool, stderr, "out of memory");
        if (!jobs[i].output && !quiet)
            fprintf(stderr, "%s: %s: writing into its OTF trace %s.otf\n", tool->name, op, stub);
        free(jobs[i].trace);
        jobs[i].trace = copy;
    }
    return VFTR_EXIT_OK;
}

static int opt_n(void *dest, const char *arg, char *err, size_t errlen)
{
    return vftr_count_parse(arg, 1, VFTR_SNAP_MAX_BREAKS, "-n", &((struct args *)dest)->job.nbreaks,
                            err, errlen);
}

/* -t and -p are checked here, so that a malformed or overflowing value is a
 * usage error before any trace is opened; they are converted with the
 * trace's time base when the job runs. */
static int opt_t(void *dest, const char *arg, char *err, size_t errlen)
{
    int rc = vftr_time_check(arg, err, errlen);

    if (rc < 0)
        return rc;
    return snap_job_add_time(&((struct args *)dest)->job, arg) ? -ENOMEM : 0;
}

static int opt_p(void *dest, const char *arg, char *err, size_t errlen)
{
    struct args *a = dest;
    int rc = vftr_time_check(arg, err, errlen);

    if (rc < 0)
        return rc;
    free(a->job.period);
    a->job.period = strdup(arg);
    return a->job.period ? 0 : -ENOMEM;
}

static int opt_o(void *dest, const char *arg, char *err, size_t errlen)
{
    struct args *a = dest;
    if (!*arg)
        return vftr_errmsg(err, errlen, -EINVAL, "empty name stub for -o");
    free(a->job.output);
    a->job.output = strdup(arg);
    return a->job.output ? 0 : -ENOMEM;
}

static int opt_j(void *dest, const char *arg, char *err, size_t errlen)
{
    uint64_t v;
    int rc = vftr_count_parse(arg, 1, MAX_JOBS_PARALLEL, "--jobs", &v, err, errlen);
    if (!rc)
        ((struct args *)dest)->parallel = (long)v;
    return rc;
}

static int opt_samples(void *dest, const char *arg, char *err, size_t errlen)
{
    uint64_t v;
    int rc = vftr_count_parse(arg, 1, UINT32_MAX, "--thumbnail-samples", &v, err, errlen);
    if (!rc)
        ((struct args *)dest)->job.thumb_samples = (uint32_t)v;
    return rc;
}

/*
 * Signals.  SIGINT, SIGTERM and SIGHUP only set `caught` (and pass the
 * signal on to the jobs running in child processes); the job notices it at
 * its next event, removes its temporary files and returns -EINTR (job.h).
 * When all is cleaned up, main() dies of the signal with its default
 * action, as the shell that sent it expects.  A signal ignored when we
 * start (nohup, a script's background job) stays ignored.
 */
static volatile sig_atomic_t caught;
static pid_t children[MAX_JOBS_PARALLEL];    /* changed with the signals blocked */
static volatile sig_atomic_t nchildren;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
    int saved = errno;
    if (!caught)
        caught = sig;
    for (sig_atomic_t i = 0; i < nchildren; i++)
        kill(children[i], sig);
    errno = saved;
}

static void stop_signal_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
        sigaddset(set, stop_signals[i]);
}

static void catch_signals(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    stop_signal_set(&sa.sa_mask);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
        if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
}

/* A job's outcome: an exit status, or interrupted. */
enum { JOB_INTERRUPTED = 3 };

/* Runs one job and reports its failure; returns VFTR_EXIT_OK,
 * VFTR_EXIT_USAGE when the options do not fit the trace (more breaks than
 * it can hold, output past the limit), VFTR_EXIT_ERROR, or
 * JOB_INTERRUPTED. */
static int run_one(const struct vftr_tool *tool, const struct snap_job *job)
{
    char err[VFTR_ERRMSG_MAX + 256];
    int rc = snap_job_run(job, &caught, err, sizeof err);
    if (!rc)
        return VFTR_EXIT_OK;
    vftr_tool_fail(tool, stderr, "%s", err);
    if (rc == -EINTR)
        return JOB_INTERRUPTED;
    return rc == -ERANGE || rc == -EFBIG ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
}

struct outcome {
    size_t failed;         /* jobs that failed (interrupted ones included) */
    size_t unstarted;      /* left out after a signal */
    int status;            /* the worst exit status of a job: 2 above 1 above 0 */
};

static void count(struct outcome *o, int st)
{
    if (st == VFTR_EXIT_OK)
        return;
    o->failed++;
    if (st == VFTR_EXIT_USAGE || (st == VFTR_EXIT_ERROR && o->status == VFTR_EXIT_OK))
        o->status = st;
}

static void on_child(int sig)
{
    (void)sig;      /* only wakes reap()'s sigsuspend */
}

/*
 * Waits for a job to end, with the stop signals deliverable all the while:
 * polls with WNOHANG, and between polls sleeps in sigsuspend with SIGCHLD
 * and the stop signals unblocked, so a signal sent to this process is
 * handled (and passed on to every job) at once.  A plain wait() would do
 * the same on a kernel, but not under ThreadSanitizer, which runs a
 * handler only when the blocking call returns: after the first job ended,
 * too late for it.  Returns the job's pid, or -1 when none is left.
 */
static pid_t reap(int *status)
{
    sigset_t block, old, wake;
    struct sigaction sa, prev;
    pid_t pid;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &prev);
    stop_signal_set(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &old);
    wake = old;
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
        sigdelset(&wake, stop_signals[i]);
    sigdelset(&wake, SIGCHLD);
    while ((pid = waitpid(-1, status, WNOHANG)) == 0)
        sigsuspend(&wake);
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGCHLD, &prev, NULL);
    return pid;
}

/* Runs the jobs, at most `parallel` at a time. */
static struct outcome run_all(const struct vftr_tool *tool, const struct snap_job *jobs, size_t n,
                              long parallel)
{
    struct outcome o = { 0, 0, VFTR_EXIT_OK };
    size_t next = 0;
    if (parallel <= 1 || n == 1) {
        for (; next < n && !caught; next++)
            count(&o, run_one(tool, &jobs[next]));
        o.unstarted = n - next;
        return o;
    }
    sigset_t block, old;
    stop_signal_set(&block);
    long running = 0;
    fflush(NULL);
    while ((next < n && !caught) || running > 0) {
        while (next < n && running < parallel) {
            sigprocmask(SIG_BLOCK, &block, &old);
            if (caught) {
                sigprocmask(SIG_SETMASK, &old, NULL);
                break;
            }
            pid_t pid = fork();
            if (pid == 0) {
                nchildren = 0;          /* the child's jobs are its own */
                sigprocmask(SIG_SETMASK, &old, NULL);
                _exit(run_one(tool, &jobs[next]));
            }
            if (pid > 0)
                children[nchildren++] = pid;
            sigprocmask(SIG_SETMASK, &old, NULL);
            if (pid < 0) {
                /* no more processes: run it here */
                count(&o, run_one(tool, &jobs[next++]));
                continue;
            }
            next++;
            running++;
        }
        if (running == 0)
            break;
        int status;
        pid_t done = reap(&status);
        if (done < 0)
            break;
        sigprocmask(SIG_BLOCK, &block, &old);
        for (sig_atomic_t i = 0; i < nchildren; i++)
            if (children[i] == done) {
                children[i] = children[--nchildren];
                break;
            }
        sigprocmask(SIG_SETMASK, &old, NULL);
        running--;
        if (WIFEXITED(status)) {
            count(&o, WEXITSTATUS(status));
        } else {
            if (!caught)
                vftr_tool_fail(tool, stderr, "a job was killed by signal %d", WTERMSIG(status));
            count(&o, VFTR_EXIT_ERROR);
        }
    }
    o.unstarted = n - next;
    return o;
}

static int read_file(const char *path, char **text, size_t *len, const char **kind)
{
    FILE *f = vftr_fopen_regular(path, "rb", kind);     /* never waits on a FIFO */
    if (!f)
        return -errno;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            if (cap >= MAX_SCRIPT_BYTES) {
                rc = -EFBIG;
                break;
            }
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    if (!buf)
        rc = -ENOMEM;
    else if (ferror(f))
        rc = -EIO;
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return 0;
}

int main(int argc, char **argv)
{
    struct args a;
    memset(&a, 0, sizeof a);
    a.parallel = 1;
    int remove = 0, quiet = 0, progress = 0;
    const struct vftr_opt opts[] = {
        { VFTR_OPT_CALLBACK, "breaks", 'n', "N", "N breaks evenly spread over the trace\n"
          "(default 200 when neither --period nor --at is given)", &a, 0, opt_n },
        { VFTR_OPT_CALLBACK, "period", 0, "P", "a break every P: ticks, or a duration\n"
          "such as 10ms (with -n, the one giving more breaks wins)", &a, 0, opt_p },
        { VFTR_OPT_CALLBACK, "at", 0, "T", "a break at T (repeatable): a time from the\n"
          "trace's first time stamp (ticks, or 1.5s)", &a, 0, opt_t },
        { VFTR_OPT_BITS, "snapshots", 0, NULL, "write snapshots and the thumbnail (default)",
          &a.job.kinds, SNAP_KIND_SNAPSHOTS, NULL },
        { VFTR_OPT_BITS, "statistics", 0, NULL, "write summaries", &a.job.kinds,
          SNAP_KIND_STATISTICS, NULL },
        { VFTR_OPT_BITS, "all", 0, NULL, "write snapshots, thumbnail and summaries", &a.job.kinds,
          SNAP_KIND_SNAPSHOTS | SNAP_KIND_STATISTICS, NULL },
        { VFTR_OPT_CALLBACK, "output", 'o', "STUB", "write a copy of the trace named STUB instead\n"
          "of updating it in place (one trace only)", &a, 0, opt_o },
        { VFTR_OPT_FLAG, "remove", 0, NULL, "remove snapshots, summaries, the thumbnail\n"
          "and their definition records", &remove, 1, NULL },
        { VFTR_OPT_BITS, "funcgroups", 0, NULL, "function group summaries instead of function\n"
          "summaries", &a.job.flags, VFTR_SNAP_FUNCGROUPS, NULL },
        { VFTR_OPT_BITS, "filegroups", 0, NULL, "file group summaries instead of file summaries",
          &a.job.flags, VFTR_SNAP_FILEGROUPS, NULL },
        { VFTR_OPT_BITS, "detailed", 0, NULL, "message summaries per peer, communicator and tag,\n"
          "collective summaries per communicator, function\nand group summaries together",
          &a.job.flags, VFTR_SNAP_DETAILED, NULL },
        { VFTR_OPT_CALLBACK, "jobs", 'j', "N", "process N traces at a time (default 1)", &a, 0,
          opt_j },
        { VFTR_OPT_STRING, "script", 0, "FILE", "run the jobs listed in the JSON file FILE\n"
          "(see vftr-snap(1))", &a.script, 0, NULL },
        { VFTR_OPT_CALLBACK, "thumbnail-samples", 0, "N", "at most N samples per process in the\n"
          "thumbnail (default 4096)", &a, 0, opt_samples },
        { VFTR_OPT_STRING, "cache-dir", 0, "DIR", "keep the OTF trace of .vfd input in DIR\n"
          "(default: RUNDIR/vftr-otf/, else the user's cache)", &a.cache_dir, 0, NULL },
        { VFTR_OPT_FLAG, "force", 0, NULL, "write even when the output is estimated past\n"
          "its limit or the free space (see vftr-snap(1))", &a.job.force, 1, NULL },
        { VFTR_OPT_FLAG, "quiet", 'q', NULL, "no progress line (drawn on a terminal when one\n"
          "trace is processed at a time)", &quiet, 1, NULL },
        { VFTR_OPT_FLAG, "progress", 0, NULL, "the progress line also when standard error\n"
          "is no terminal", &progress, 1, NULL },
        VFTR_OPT_TABLE_END
    };
    const struct vftr_tool tool = {
        "vftr-snap", VFTR_VERSION, "[OPTION]... TRACE...",
        "Adds snapshots and statistical summaries to OTF traces.",
        "A TRACE may also be a run directory or a .vfd file: its OTF trace (what\n"
        "vfd2otf writes) is made once, kept in RUNDIR/vftr-otf/ (or, when RUNDIR\n"
        "cannot be written, in $XDG_CACHE_HOME/vftr/) and reused while the .vfd\n"
        "files are unchanged; without -o the snapshots go into that trace.\n"
        "\n"
        "Exit status: 0 when every trace succeeded, 1 when one failed, 2 for a bad\n"
        "command line or options a trace cannot honour (more breaks than it can\n"
        "hold, output past the size limit without --force).  SIGINT, SIGTERM and\n"
        "SIGHUP stop the run, remove its temporary files and leave every trace as\n"
        "it was.",
        opts,
    };
    int first = 0;
    int rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE) {
        snap_job_release(&a.job);
        return VFTR_EXIT_OK;
    }
    if (rc) {
        snap_job_release(&a.job);
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    }
    a.job.remove = remove;
    /* one line redrawn: only when one job runs at a time */
    a.job.progress = quiet || a.parallel > 1 ? 0 : progress ? 2 : 1;
    int ntraces = argc - first;
    struct snap_job *jobs = NULL;
    size_t njobs = 0;
    int status = VFTR_EXIT_OK;

    if (a.script) {
        char *text = NULL, err[VFTR_ERRMSG_MAX];
        size_t len = 0;
        if (ntraces > 0) {
            status = vftr_tool_usage_fail(&tool, stderr, "--script takes no TRACE operands");
            goto out;
        }
        const char *kind;
        rc = read_file(a.script, &text, &len, &kind);
        if (rc && kind) {
            status = vftr_tool_fail(&tool, stderr, "%s: is %s, expected a JSON script (a regular "
                                    "file)", a.script, kind);
            goto out;
        }
        if (rc) {
            status = vftr_tool_fail(&tool, stderr, "%s: cannot read (%s)", a.script, strerror(-rc));
            goto out;
        }
        rc = snap_script_parse(text, len, &a.job, &jobs, &njobs, err, sizeof err);
        free(text);
        if (rc) {
            status = vftr_tool_fail(&tool, stderr, "%s: %s", a.script, err);
            goto out;
        }
    } else {
        if (ntraces <= 0) {
            status = vftr_tool_usage_fail(&tool, stderr, "no TRACE given");
            goto out;
        }
        if (a.job.output && ntraces > 1) {
            status = vftr_tool_usage_fail(&tool, stderr, "-o takes one TRACE only");
            goto out;
        }
        /* snapshots and summaries are OTF records: a run's .vfd files get
         * them in the run's OTF trace (vfd_jobs), an OTF2 archive through
         * its conversion (the message says what to run) */
        if ((status = vftr_source_check_operands(&tool, argv + first, ntraces,
                                                 VFTR_TAKES_OTF | VFTR_TAKES_VFD)) != 0)
            goto out;
        jobs = calloc((size_t)ntraces, sizeof *jobs);
        if (!jobs) {
            status = vftr_tool_fail(&tool, stderr, "out of memory");
            goto out;
        }
        for (int i = 0; i < ntraces; i++) {
            if (snap_job_copy(&jobs[i], &a.job)) {
                status = vftr_tool_fail(&tool, stderr, "out of memory");
                goto out;
            }
            njobs++;
            jobs[i].trace = strdup(argv[first + i]);
            if (!jobs[i].trace) {
                status = vftr_tool_fail(&tool, stderr, "out of memory");
                goto out;
            }
        }
    }
    if ((status = vfd_jobs(&tool, jobs, njobs, a.cache_dir, quiet)) != VFTR_EXIT_OK)
        goto out;
    catch_signals();
    struct outcome o = run_all(&tool, jobs, njobs, a.parallel);
    if (caught && o.unstarted)
        vftr_tool_fail(&tool, stderr, "interrupted: %zu of %zu traces not started", o.unstarted,
                       njobs);
    else if (o.failed && njobs > 1)
        vftr_tool_fail(&tool, stderr, "%zu of %zu traces failed", o.failed, njobs);
    status = o.status;
out:
    snap_script_free(jobs, njobs);
    snap_job_release(&a.job);
    if (caught) {
        /* everything is cleaned up: die of the signal, as its sender expects */
        fflush(NULL);
        signal(caught, SIG_DFL);
        raise(caught);
        return 128 + caught;
    }
    return status;
}
