/*
 * vftr-ctl — steers running captured processes and looks inside them:
 * the front-end of vftr's default External Control module (ctlsrv.c),
 * speaking the line protocol of capture/ctlproto.h over the per-user
 * endpoint directory.  See share/man/man1/vftr-ctl.1.
 *
 * Addressing: --pid PID (one process), --job ID (every rank of a job on
 * this node; --rank R narrows it to one), or nothing when exactly one
 * captured process of the user runs.  For a job the tool is the node's
 * master: it fans the command out to every rank and aggregates the answers
 * (a profile across ranks with min / avg / max and imbalance,
 * lib/model/profile.h's vftr_imbalance).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cjson/cJSON.h>

#include "ctlproto.h"
#include "model/profile.h"
#include "util/opts.h"

#define TOOL "vftr-ctl"

/* ------------------------------------------------------------ options */

static const char *opt_pid, *opt_job, *opt_rank, *opt_dir, *opt_timeout = "5", *opt_interval = "1",
                  *opt_count, *opt_lines = "20";
static int opt_json;

static const struct vftr_opt opts[] = {
    { VFTR_OPT_STRING, "pid", 'p', "PID", "the captured process PID", &opt_pid, 0, NULL },
    { VFTR_OPT_STRING, "job", 'j', "ID", "every rank of job ID on this node (see list)",
      &opt_job, 0, NULL },
    { VFTR_OPT_STRING, "rank", 'r', "R", "with --job: only rank R", &opt_rank, 0, NULL },
    { VFTR_OPT_FLAG, "json", 'J', NULL, "print JSON (one document) instead of text", &opt_json, 1,
      NULL },
    { VFTR_OPT_STRING, "timeout", 't', "SEC", "seconds to wait for each answer (default 5)",
      &opt_timeout, 0, NULL },
    { VFTR_OPT_STRING, "socket-dir", 'd', "DIR",
      "endpoint directory (default: control.socket_dir's default,\n$XDG_RUNTIME_DIR/vftr or "
      "/tmp/vftr-<uid>)", &opt_dir, 0, NULL },
    { VFTR_OPT_STRING, "interval", 'i', "SEC", "top: seconds between refreshes (default 1)",
      &opt_interval, 0, NULL },
    { VFTR_OPT_STRING, "count", 'n', "N", "top: stop after N refreshes", &opt_count, 0, NULL },
    { VFTR_OPT_STRING, "lines", 'l', "N", "profile, top: rows shown (default 20, 0: all)",
      &opt_lines, 0, NULL },
    VFTR_OPT_TABLE_END
};

static const struct vftr_tool tool = {
    TOOL, VFTR_VERSION, "[OPTION]... COMMAND [ARG]",
    "Steers a running vftr capture and shows its live stacks and profile.",
    "Commands: list, status, stacks, profile, messages, top, start, stop, pause,\n"
    "resume, attach, detach, flush, dump, outdir DIR, custom TEXT.\n"
    "Exit status: 0 every process answered OK, 1 an error or a timeout, 2 usage.",
    opts,
};

static int timeout_ms = 5000;

/* ------------------------------------------------------------ client */

struct reply {
    char **lines;          /* data lines without "* " */
    size_t n, cap;
    bool ok;
    char *text;            /* after "OK " / "ERR " */
};

static void reply_release(struct reply *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->lines[i]);
    free(r->lines);
    free(r->text);
    memset(r, 0, sizeof *r);
}

struct conn {
    int fd;
    char buf[1 << 16];
    size_t len;
};

/* Next line from c (without newline) into a malloc'ed string; NULL with
 * *err on timeout, EOF or error. */
static char *read_line(struct conn *c, const char **err)
{
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);

        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            char *s = malloc(n + 1);

            if (s == NULL) {
                *err = "out of memory";
                return NULL;
            }
            memcpy(s, c->buf, n);
            s[n] = '\0';
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return s;
        }
        if (c->len == sizeof c->buf) {
            *err = "answer line too long";
            return NULL;
        }
        struct pollfd p = { c->fd, POLLIN, 0 };
        int rc = poll(&p, 1, timeout_ms);

        if (rc == 0) {
            *err = "timed out waiting for the answer";
            return NULL;
        }
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            *err = strerror(errno);
            return NULL;
        }
        ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);

        if (n == 0) {
            *err = "connection closed (the process ended?)";
            return NULL;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *err = strerror(errno);
            return NULL;
        }
        c->len += (size_t)n;
    }
}

/* Connects to path and reads the banner.  0, or -1 with *err. */
static int conn_open(struct conn *c, const char *path, const char **err)
{
    struct sockaddr_un sa;
    char *banner;

    c->len = 0;
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        *err = strerror(errno);
        return -1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        *err = strerror(errno);
        close(c->fd);
        return -1;
    }
    banner = read_line(c, err);
    if (banner == NULL || strncmp(banner, "VFTR-CTL ", 9) != 0) {
        if (banner && strncmp(banner, "ERR ", 4) == 0) {
            static char why[256];

            snprintf(why, sizeof why, "%s", banner + 4);
            *err = why;
        } else if (banner) {
            *err = "not a vftr control endpoint";
        }
        free(banner);
        close(c->fd);
        return -1;
    }
    if (atoi(banner + 9) != VFTR_CTL_PROTO_VERSION) {
        *err = "protocol version differs from this vftr-ctl's";
        free(banner);
        close(c->fd);
        return -1;
    }
    free(banner);
    return 0;
}

/* Sends one request and reads its answer.  0, or -1 with *err (the reply
 * itself may be an ERR: r->ok). */
static int conn_request(struct conn *c, const char *req, struct reply *r, const char **err)
{
    char line[VFTR_CTL_LINE_MAX + 1];
    size_t len = (size_t)snprintf(line, sizeof line, "%s\n", req), off = 0;

    memset(r, 0, sizeof *r);
    if (len >= sizeof line) {
        *err = "request too long";
        return -1;
    }
    while (off < len) {
        ssize_t n = send(c->fd, line + off, len - off, MSG_NOSIGNAL);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            *err = strerror(errno);
            return -1;
        }
        off += (size_t)n;
    }
    for (;;) {
        char *s = read_line(c, err);

        if (s == NULL)
            return -1;
        if (strncmp(s, "* ", 2) == 0) {
            if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 64;
                char **p = realloc(r->lines, cap * sizeof *p);

                if (p == NULL) {
                    free(s);
                    *err = "out of memory";
                    return -1;
                }
                r->lines = p;
                r->cap = cap;
            }
            memmove(s, s + 2, strlen(s + 2) + 1);
            r->lines[r->n++] = s;
            continue;
        }
        if (strcmp(s, "OK") == 0 || strncmp(s, "OK ", 3) == 0 || strncmp(s, "ERR ", 4) == 0
            || strcmp(s, "BYE exit") == 0) {
            r->ok = s[0] == 'O';
            r->text = strdup(s[0] == 'O' ? (s[2] ? s + 3 : "") : s[0] == 'E' ? s + 4
                                                                : "the process is ending");
            free(s);
            return 0;
        }
        free(s);   /* a line of a later protocol version: skipped */
    }
}

/* ---------------------------------------------------------- endpoints */

struct proc {
    pid_t pid;
    int rank, size;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char job[128], phase[16], trace[16], exe[512];
};

static char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];

/* Value of key in "k=v k=v" (into out). */
static void kv(const char *line, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);

    out[0] = '\0';
    for (const char *p = line; p && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = strcspn(p + kl + 1, " ");

            snprintf(out, len, "%.*s", (int)n, p + kl + 1);
            return;
        }
    }
}

/* Fills p from the process's status; false when it does not answer (a
 * stale endpoint of a dead process is removed). */
static bool probe(struct proc *p, const char **why)
{
    struct conn c;
    struct reply r;
    const char *err = NULL;
    char v[64];

    if (conn_open(&c, p->path, &err) < 0) {
        if (kill(p->pid, 0) != 0 && errno == ESRCH)
            unlink(p->path);   /* stale: its process is gone */
        *why = err;
        return false;
    }
    if (conn_request(&c, "status", &r, &err) < 0 || !r.ok || r.n == 0) {
        if (err == NULL) {
            err = "status refused";
            reply_release(&r);
        }
        *why = err;
        close(c.fd);
        return false;
    }
    kv(r.lines[0], "rank", v, sizeof v);
    p->rank = atoi(v);
    kv(r.lines[0], "size", v, sizeof v);
    p->size = atoi(v);
    kv(r.lines[0], "job", p->job, sizeof p->job);
    kv(r.lines[0], "phase", p->phase, sizeof p->phase);
    kv(r.lines[0], "trace", p->trace, sizeof p->trace);
    for (size_t i = 1; i < r.n; i++)
        if (strncmp(r.lines[i], "exe=", 4) == 0)
            snprintf(p->exe, sizeof p->exe, "%s", r.lines[i] + 4);
    reply_release(&r);
    close(c.fd);
    return true;
}

static int by_rank(const void *a, const void *b)
{
    const struct proc *x = a, *y = b;

    return x->rank != y->rank ? (x->rank > y->rank) - (x->rank < y->rank)
                              : (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every live captured process of the user, ordered by rank. */
static struct proc *scan(size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct proc *v = NULL;
    size_t cap = 0;

    *n = 0;
    if (d == NULL)
        return NULL;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = vftr_ctl_endpoint_pid(e->d_name);
        struct proc p;
        const char *why;

        if (pid <= 0)
            continue;
        memset(&p, 0, sizeof p);
        p.pid = pid;
        if (vftr_ctl_endpoint(p.path, sizeof p.path, dir, pid) < 0 || !probe(&p, &why))
            continue;
        if (*n == cap) {
            struct proc *q = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *q);

            if (q == NULL)
                break;
            v = q;
        }
        v[(*n)++] = p;
    }
    closedir(d);
    if (*n)
        qsort(v, *n, sizeof *v, by_rank);
    return v;
}

/* ----------------------------------------------------------- printing */

static cJSON *json_root;

static void print_list(const struct proc *v, size_t n)
{
    if (opt_json) {
        cJSON *a = cJSON_AddArrayToObject(json_root, "processes");

        for (size_t i = 0; i < n; i++) {
            cJSON *o = cJSON_CreateObject();

            cJSON_AddNumberToObject(o, "pid", v[i].pid);
            cJSON_AddStringToObject(o, "job", v[i].job);
            cJSON_AddNumberToObject(o, "rank", v[i].rank);
            cJSON_AddNumberToObject(o, "size", v[i].size);
            cJSON_AddStringToObject(o, "phase", v[i].phase);
            cJSON_AddStringToObject(o, "trace", v[i].trace);
            cJSON_AddStringToObject(o, "exe", v[i].exe);
            cJSON_AddItemToArray(a, o);
        }
        return;
    }
    printf("%-8s %-16s %5s %5s %-8s %-8s %s\n", "PID", "JOB", "RANK", "SIZE", "PHASE", "TRACE",
           "PROGRAM");
    for (size_t i = 0; i < n; i++)
        printf("%-8ld %-16s %5d %5d %-8s %-8s %s\n", (long)v[i].pid, v[i].job, v[i].rank,
               v[i].size, v[i].phase, v[i].trace, v[i].exe);
}

/* Splits a tab-separated line into at most max fields (in place). */
static size_t fields(char *s, char **f, size_t max)
{
    size_t n = 0;

    while (n < max) {
        f[n++] = s;
        s = strchr(s, '\t');
        if (s == NULL)
            break;
        *s++ = '\0';
    }
    return n;
}

/* One row of a profile: per (function, caller), summed over threads. */
struct agg {
    char *function, *caller;
    unsigned long long calls;
    double incl, excl;               /* this process */
    double excl_min, excl_max, excl_sum, incl_sum;   /* over processes */
    unsigned nprocs;
};

struct aggv {
    struct agg *v;
    size_t n, cap;
};

static struct agg *agg_find(struct aggv *a, const char *fn, const char *caller)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].function, fn) == 0 && strcmp(a->v[i].caller, caller) == 0)
            return &a->v[i];
    if (a->n == a->cap) {
        struct agg *p = realloc(a->v, (a->cap = a->cap ? a->cap * 2 : 64) * sizeof *p);

        if (p == NULL)
            return NULL;
        a->v = p;
    }
    memset(&a->v[a->n], 0, sizeof a->v[0]);
    a->v[a->n].function = strdup(fn);
    a->v[a->n].caller = strdup(caller);
    a->v[a->n].excl_min = -1;
    return &a->v[a->n++];
}

static void aggv_release(struct aggv *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].function);
        free(a->v[i].caller);
    }
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* Adds one process's profile reply to the job's rows. */
static void agg_add(struct aggv *job, const struct reply *r)
{
    struct aggv one = { 0 };

    for (size_t i = 0; i < r->n; i++) {
        char buf[2048], *f[10];
        struct agg *g;

        snprintf(buf, sizeof buf, "%s", r->lines[i]);
        if (fields(buf, f, 10) < 9 || strcmp(f[0], "row") != 0)
            continue;
        if ((g = agg_find(&one, f[7], f[8])) == NULL)
            continue;
        g->calls += strtoull(f[4], NULL, 10);
        g->incl += strtod(f[5], NULL);
        g->excl += strtod(f[6], NULL);
    }
    for (size_t i = 0; i < one.n; i++) {
        struct agg *g = agg_find(job, one.v[i].function, one.v[i].caller);

        if (g == NULL)
            continue;
        g->calls += one.v[i].calls;
        g->incl_sum += one.v[i].incl;
        g->excl_sum += one.v[i].excl;
        if (g->excl_min < 0 || one.v[i].excl < g->excl_min)
            g->excl_min = one.v[i].excl;
        if (one.v[i].excl > g->excl_max)
            g->excl_max = one.v[i].excl;
        g->nprocs++;
    }
    aggv_release(&one);
}

static int by_excl(const void *a, const void *b)
{
    const struct agg *x = a, *y = b;

    return (x->excl_sum < y->excl_sum) - (x->excl_sum > y->excl_sum);
}

static void print_profile(struct aggv *a, size_t nprocs, const char *who)
{
    size_t lim = (size_t)strtoul(opt_lines, NULL, 10), shown;

    qsort(a->v, a->n, sizeof a->v[0], by_excl);
    shown = lim && lim < a->n ? lim : a->n;
    if (opt_json) {
        cJSON *arr = cJSON_AddArrayToObject(json_root, "profile");

        for (size_t i = 0; i < shown; i++) {
            const struct agg *g = &a->v[i];
            cJSON *o = cJSON_CreateObject();
            double avg = g->excl_sum / g->nprocs;

            cJSON_AddStringToObject(o, "function", g->function);
            cJSON_AddStringToObject(o, "caller", g->caller);
            cJSON_AddNumberToObject(o, "calls", (double)g->calls);
            cJSON_AddNumberToObject(o, "incl", g->incl_sum);
            cJSON_AddNumberToObject(o, "excl", g->excl_sum);
            cJSON_AddNumberToObject(o, "processes", g->nprocs);
            cJSON_AddNumberToObject(o, "excl_min", g->excl_min);
            cJSON_AddNumberToObject(o, "excl_avg", avg);
            cJSON_AddNumberToObject(o, "excl_max", g->excl_max);
            cJSON_AddNumberToObject(o, "imbalance", vftr_imbalance(g->excl_max, avg));
            cJSON_AddItemToArray(arr, o);
        }
        return;
    }
    printf("profile of %s (%zu process%s)\n", who, nprocs, nprocs == 1 ? "" : "es");
    if (nprocs > 1)
        printf("%12s %12s %12s %12s %12s %6s  %s <- %s\n", "calls", "excl[s]", "min", "avg", "max",
               "imbal", "function", "caller");
    else
        printf("%12s %12s %12s  %s <- %s\n", "calls", "excl[s]", "incl[s]", "function", "caller");
    for (size_t i = 0; i < shown; i++) {
        const struct agg *g = &a->v[i];
        double avg = g->excl_sum / g->nprocs;

        if (nprocs > 1)
            printf("%12llu %12.6f %12.6f %12.6f %12.6f %6.3f  %s <- %s\n", g->calls, g->excl_sum,
                   g->excl_min, avg, g->excl_max, vftr_imbalance(g->excl_max, avg), g->function,
                   g->caller[0] ? g->caller : "-");
        else
            printf("%12llu %12.6f %12.6f  %s <- %s\n", g->calls, g->excl_sum, g->incl_sum,
                   g->function, g->caller[0] ? g->caller : "-");
    }
}

static void print_stacks(const struct proc *p, const struct reply *r)
{
    cJSON *threads = NULL, *frames = NULL;

    if (opt_json) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNumberToObject(o, "pid", p->pid);
        cJSON_AddNumberToObject(o, "rank", p->rank);
        threads = cJSON_AddArrayToObject(o, "threads");
        cJSON_AddItemToArray(cJSON_GetObjectItem(json_root, "stacks"), o);
    } else {
        printf("pid %ld rank %d\n", (long)p->pid, p->rank);
    }
    for (size_t i = 0; i < r->n; i++) {
        char buf[2048], *f[6];
        size_t nf;

        snprintf(buf, sizeof buf, "%s", r->lines[i]);
        nf = fields(buf, f, 6);
        if (strcmp(f[0], "thread") == 0 && nf >= 4) {
            if (opt_json) {
                cJSON *t = cJSON_CreateObject();

                cJSON_AddNumberToObject(t, "thread", atoi(f[1]));
                cJSON_AddNumberToObject(t, "tid", atoi(f[2]));
                cJSON_AddBoolToObject(t, "finished", nf >= 5);
                frames = cJSON_AddArrayToObject(t, "frames");
                cJSON_AddItemToArray(threads, t);
            } else {
                printf("  thread %s (tid %s)%s:", f[1], f[2], nf >= 5 ? " finished" : "");
                if (atoi(f[3]) == 0)
                    printf(" idle");
            }
        } else if (strcmp(f[0], "frame") == 0 && nf >= 5) {
            if (opt_json)
                cJSON_AddItemToArray(frames, cJSON_CreateString(f[4]));
            else
                printf("%s%s", atoi(f[2]) == 0 ? " " : " > ", f[4]);
        }
        if (!opt_json && (i + 1 == r->n || strncmp(r->lines[i + 1], "thread", 6) == 0))
            printf("\n");
    }
}

/* ------------------------------------------------------------ commands */

/* Sends req to every process of v and prints per command.  Returns the
 * exit status. */
static int run(const char *name, const char *req, struct proc *v, size_t n)
{
    const struct vftr_ctl_command *cmd = vftr_ctlproto_find(name);
    struct aggv job = { 0 };
    size_t answered = 0;
    int status = VFTR_EXIT_OK;
    cJSON *results = NULL;

    if (opt_json && cmd->kind == VFTR_CTL_KIND_QUERY && cmd->code == 1)
        cJSON_AddArrayToObject(json_root, "stacks");
    else if (opt_json)
        results = cJSON_AddArrayToObject(json_root, "results");
    for (size_t i = 0; i < n; i++) {
        struct conn c;
        struct reply r;
        const char *err = NULL;

        if (conn_open(&c, v[i].path, &err) < 0 || (conn_request(&c, req, &r, &err) < 0
                                                   && (close(c.fd), 1))) {
            fprintf(stderr, TOOL ": pid %ld: %s: %s\n", (long)v[i].pid, v[i].path, err);
            status = VFTR_EXIT_ERROR;
            continue;
        }
        close(c.fd);
        if (!r.ok) {
            fprintf(stderr, TOOL ": pid %ld rank %d: %s: %s\n", (long)v[i].pid, v[i].rank, name,
                    r.text);
            status = VFTR_EXIT_ERROR;
        } else if (strcmp(name, "profile") == 0) {
            agg_add(&job, &r);
            answered++;
        } else if (strcmp(name, "stacks") == 0) {
            print_stacks(&v[i], &r);
        } else if (opt_json) {
            cJSON *o = cJSON_CreateObject(), *lines = cJSON_AddArrayToObject(o, "lines");

            cJSON_AddNumberToObject(o, "pid", v[i].pid);
            cJSON_AddNumberToObject(o, "rank", v[i].rank);
            cJSON_AddStringToObject(o, "reply", r.text);
            for (size_t k = 0; k < r.n; k++)
                cJSON_AddItemToArray(lines, cJSON_CreateString(r.lines[k]));
            cJSON_AddItemToArray(results, o);
        } else {
            printf("pid %ld rank %d: OK%s%s\n", (long)v[i].pid, v[i].rank, r.text[0] ? " " : "",
                   r.text);
            for (size_t k = 0; k < r.n; k++)
                printf("  %s\n", r.lines[k]);
        }
        reply_release(&r);
    }
    if (strcmp(name, "profile") == 0 && answered) {
        char who[160];

        if (n == 1)
            snprintf(who, sizeof who, "pid %ld", (long)v[0].pid);
        else
            snprintf(who, sizeof who, "job %s", opt_job ? opt_job : "-");
        print_profile(&job, answered, who);
    }
    aggv_release(&job);
    return status;
}

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int top(struct proc *v, size_t n)
{
    long count = opt_count ? strtol(opt_count, NULL, 10) : -1;
    double every = strtod(opt_interval, NULL);
    int status = VFTR_EXIT_OK;

    signal(SIGINT, on_int);
    for (long k = 0; !interrupted && (count < 0 || k < count); k++) {
        if (isatty(STDOUT_FILENO))
            printf("\033[H\033[2J");
        printf("vftr-ctl top: %zu process%s, refresh %d\n", n, n == 1 ? "" : "es", (int)k + 1);
        status |= run("profile", "profile", v, n);
        status |= run("stacks", "stacks", v, n);
        fflush(stdout);
        if (count >= 0 && k + 1 >= count)
            break;
        struct timespec ts = { (time_t)every, (long)((every - (double)(time_t)every) * 1e9) };

        nanosleep(&ts, NULL);
    }
    return status ? VFTR_EXIT_ERROR : VFTR_EXIT_OK;
}

int main(int argc, char **argv)
{
    char err[512], req[VFTR_CTL_LINE_MAX];
    const char *name;
    struct proc *v, *sel;
    size_t n, nsel = 0;
    int first, rc;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0)
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    if (first >= argc)
        return vftr_tool_usage_fail(&tool, stderr, "missing COMMAND");
    name = argv[first];
    if (strcmp(name, "list") != 0 && strcmp(name, "top") != 0) {
        const struct vftr_ctl_command *cmd = vftr_ctlproto_find(name);

        if (cmd == NULL || cmd->kind == VFTR_CTL_KIND_VERSION || cmd->kind == VFTR_CTL_KIND_QUIT)
            return vftr_tool_usage_fail(&tool, stderr, "unknown command '%s'", name);
        if (cmd->takes_arg != (first + 1 < argc) || first + 2 < argc)
            return vftr_tool_usage_fail(&tool, stderr, cmd->takes_arg
                                        ? "%s needs one argument" : "%s takes no argument", name);
        if ((size_t)snprintf(req, sizeof req, "%s%s%s", name, cmd->takes_arg ? " " : "",
                             cmd->takes_arg ? argv[first + 1] : "") >= sizeof req - 1)
            return vftr_tool_usage_fail(&tool, stderr, "argument too long");
        if (cmd->takes_arg && strchr(argv[first + 1], '\n'))
            return vftr_tool_usage_fail(&tool, stderr, "argument contains a newline");
    } else if (first + 1 < argc) {
        return vftr_tool_usage_fail(&tool, stderr, "%s takes no argument", name);
    }
    if (opt_json && strcmp(name, "top") == 0)
        return vftr_tool_usage_fail(&tool, stderr, "top has no --json form (use profile and stacks)");
    {
        const char *nums[] = { opt_lines, opt_count, opt_interval };
        const char *what[] = { "--lines", "--count", "--interval" };

        for (int i = 0; i < 3; i++) {
            char *end;

            if (nums[i] && (strtod(nums[i], &end) < (i == 2 ? 0.01 : 0) || *end || end == nums[i]))
                return vftr_tool_usage_fail(&tool, stderr, "%s: expected a number, got '%s'",
                                            what[i], nums[i]);
        }
    }
    if (opt_rank && !opt_job)
        return vftr_tool_usage_fail(&tool, stderr, "--rank needs --job");
    if (opt_pid && opt_job)
        return vftr_tool_usage_fail(&tool, stderr, "--pid and --job exclude each other");
    {
        char *end;
        double t = strtod(opt_timeout, &end);

        if (*end || t <= 0 || t > 86400)
            return vftr_tool_usage_fail(&tool, stderr, "--timeout: expected seconds, got '%s'",
                                        opt_timeout);
        timeout_ms = (int)(t * 1000);
    }
    rc = vftr_ctl_dir(dir, sizeof dir, opt_dir, getenv("XDG_RUNTIME_DIR"), false, err, sizeof err);
    if (rc == -ENOENT && strcmp(name, "list") == 0 && !opt_json) {
        print_list(NULL, 0);   /* no directory yet: no process has run */
        return VFTR_EXIT_OK;
    }
    if (rc < 0)
        return vftr_tool_fail(&tool, stderr, "%s", err);
    if (opt_pid) {
        /* one process: asked directly, so that a silent one times out
         * with a message instead of being left out of the scan */
        struct proc p;
        const char *why = "no such endpoint";
        char *end;
        long pid = strtol(opt_pid, &end, 10);

        if (*end || pid <= 0 || pid > 0x3fffffff)
            return vftr_tool_usage_fail(&tool, stderr, "--pid: expected a process id, got '%s'",
                                        opt_pid);
        memset(&p, 0, sizeof p);
        p.pid = (pid_t)pid;
        if (vftr_ctl_endpoint(p.path, sizeof p.path, dir, p.pid) < 0 || !probe(&p, &why))
            return vftr_tool_fail(&tool, stderr, "pid %ld: %s: %s", pid, p.path, why);
    }
    json_root = opt_json ? cJSON_CreateObject() : NULL;
    v = scan(&n);
    sel = calloc(n ? n : 1, sizeof *sel);
    for (size_t i = 0; sel && i < n; i++) {
        if (opt_pid && strtol(opt_pid, NULL, 10) != (long)v[i].pid)
            continue;
        if (opt_job && strcmp(opt_job, v[i].job) != 0)
            continue;
        if (opt_rank && strtol(opt_rank, NULL, 10) != v[i].rank)
            continue;
        sel[nsel++] = v[i];
    }
    if (strcmp(name, "list") == 0) {
        print_list(sel, nsel);
        rc = VFTR_EXIT_OK;
    } else if (nsel == 0) {
        rc = vftr_tool_fail(&tool, stderr, "no captured process %s%s%s in %s",
                            opt_pid ? "with pid " : opt_job ? "of job " : "",
                            opt_pid ? opt_pid : opt_job ? opt_job : "found", "", dir);
    } else if (nsel > 1 && !opt_job) {
        rc = vftr_tool_usage_fail(&tool, stderr, "%zu captured processes run; name one with "
                                  "--pid or a job with --job (see '" TOOL " list')", nsel);
    } else if (strcmp(name, "top") == 0) {
        rc = top(sel, nsel);
    } else {
        rc = run(name, req, sel, nsel);
    }
    if (json_root) {
        char *s = cJSON_Print(json_root);

        if (s)
            printf("%s\n", s);
        free(s);
        cJSON_Delete(json_root);
    }
    free(sel);
    free(v);
    return rc;
}
