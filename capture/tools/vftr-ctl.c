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
#include <inttypes.h>
#include <limits.h>
#include <math.h>
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
#include "util/number.h"
#include "util/opts.h"
#include "util/timespec.h"

#define TOOL "vftr-ctl"

/* ------------------------------------------------------------ options */

static const char *opt_pid, *opt_job, *opt_rank, *opt_dir, *opt_timeout, *opt_interval,
                  *opt_count, *opt_lines, *opt_max_answer;
static int opt_json;

static const struct vftr_opt opts[] = {
    { VFTR_OPT_STRING, "pid", 0, "PID", "the captured process PID", &opt_pid, 0, NULL },
    { VFTR_OPT_STRING, "job", 0, "ID", "every rank of job ID on this node (see list)",
      &opt_job, 0, NULL },
    { VFTR_OPT_STRING, "rank", 0, "R", "with --job: only rank R", &opt_rank, 0, NULL },
    { VFTR_OPT_FLAG, "json", 'J', NULL, "print JSON (one document) instead of text", &opt_json, 1,
      NULL },
    { VFTR_OPT_STRING, "timeout", 0, "SEC", "time each answer may take in all, from the\n"
      "request to its last line (default 5; 0.5, 250ms)", &opt_timeout, 0, NULL },
    { VFTR_OPT_STRING, "max-answer", 0, "SIZE", "largest answer accepted from one process\n"
      "(default 64MiB)", &opt_max_answer, 0, NULL },
    { VFTR_OPT_STRING, "socket-dir", 0, "DIR",
      "endpoint directory (default: control.socket_dir's default,\n$XDG_RUNTIME_DIR/vftr or "
      "/tmp/vftr-<uid>)", &opt_dir, 0, NULL },
    { VFTR_OPT_STRING, "interval", 'i', "SEC", "top: seconds between refreshes (default 1)",
      &opt_interval, 0, NULL },
    { VFTR_OPT_STRING, "count", 0, "N", "top: stop after N refreshes", &opt_count, 0, NULL },
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

/* The bounds of one answer (--timeout, --max-answer) and the other numeric
 * options, parsed once in main() through lib/util's parsers. */
static uint64_t timeout_ns = 5000000000ull;
static uint64_t max_answer = 64ull << 20;
static uint64_t interval_ns = 1000000000ull, lines_shown = 20, refreshes;
static uint64_t pid_wanted, rank_wanted;
static int have_count;

/* ------------------------------------------------------------ client */

/*
 * An answer: zero or more data lines "* ..." and one final line (OK, ERR,
 * or BYE when the process is ending).  It is read against two bounds, so
 * that an endpoint that streams data lines and never ends its answer costs
 * neither memory nor time without limit: all of its bytes together at most
 * max_answer, and all of it within timeout_ns of the request (not only
 * between two reads).  Every path out of the reading frees what the answer
 * holds (reply_release is also safe on a zeroed reply).
 */
struct reply {
    char **lines;          /* data lines without "* " */
    size_t n, cap;
    size_t bytes;          /* of the whole answer so far, newlines included */
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

/* The longest line accepted (a data line carries a function name of at
 * most 1023 bytes and a few numbers). */
#define CONN_LINE_MAX (1 << 16)

struct conn {
    int fd;
    uint64_t deadline;     /* CLOCK_MONOTONIC ns by which the current answer must be in */
    char buf[CONN_LINE_MAX];
    size_t len;
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Starts the clock of one answer. */
static void conn_arm(struct conn *c)
{
    c->deadline = now_ns() + timeout_ns;
}

/* Next line from c (without newline) into a malloc'ed string; NULL with
 * *err on timeout (the answer's deadline passed), EOF or error. */
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
            *err = "answer line too long (more than 64 KiB)";
            return NULL;
        }
        uint64_t now = now_ns();

        if (now >= c->deadline) {
            *err = "timed out waiting for the answer";
            return NULL;
        }
        uint64_t left_ms = (c->deadline - now + 999999) / 1000000;
        struct pollfd p = { c->fd, POLLIN, 0 };
        int rc = poll(&p, 1, left_ms > INT_MAX ? INT_MAX : (int)left_ms);

        if (rc == 0)
            continue;                   /* the deadline check above ends it */
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
            if (errno == EINTR || errno == EAGAIN)
                continue;
            *err = strerror(errno);
            return NULL;
        }
        c->len += (size_t)n;
    }
}

/* Reads and checks the banner of the endpoint c->fd is connected to.  0,
 * or -1 with *err and c->fd closed. */
static int conn_banner(struct conn *c, const char **err)
{
    char *banner;
    uint64_t version;

    c->len = 0;
    conn_arm(c);
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
    /* "VFTR-CTL <version> <pid>" */
    banner[9 + strcspn(banner + 9, " ")] = '\0';
    if (vftr_count_parse(banner + 9, 0, UINT32_MAX, "version", &version, NULL, 0) < 0 ||
        version != VFTR_CTL_PROTO_VERSION) {
        *err = "protocol version differs from this vftr-ctl's";
        free(banner);
        close(c->fd);
        return -1;
    }
    free(banner);
    return 0;
}

/* Connects to path and reads the banner.  0, or -1 with *err. */
static int conn_open(struct conn *c, const char *path, const char **err)
{
    struct sockaddr_un sa;

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
    return conn_banner(c, err);
}

/*
 * Takes one line of an answer (ownership of s passes to r or is freed):
 * returns 0 to read on, 1 when s was the final line, -1 with *err when the
 * answer passes its size bound or memory runs out.  A line that is neither
 * data nor final belongs to a later protocol version and is skipped.
 */
static int reply_take(struct reply *r, char *s, const char **err)
{
    size_t len = strlen(s);

    r->bytes += len + 1;
    if (r->bytes > max_answer) {
        static char why[160];

        snprintf(why, sizeof why, "the answer is larger than %" PRIu64 " bytes (--max-answer) "
                 "and has not ended", max_answer);
        *err = why;
        free(s);
        return -1;
    }
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
        memmove(s, s + 2, len - 1);
        r->lines[r->n++] = s;
        return 0;
    }
    if (strcmp(s, "OK") == 0 || strncmp(s, "OK ", 3) == 0 || strncmp(s, "ERR ", 4) == 0
        || strcmp(s, "BYE exit") == 0) {
        r->ok = s[0] == 'O';
        r->text = strdup(s[0] == 'O' ? (s[2] ? s + 3 : "") : s[0] == 'E' ? s + 4
                                                            : "the process is ending");
        free(s);
        if (r->text == NULL) {
            *err = "out of memory";
            return -1;
        }
        return 1;
    }
    free(s);
    return 0;
}

/* Sends one request and reads its answer.  0, or -1 with *err and nothing
 * left in r (the answer itself may be an ERR: r->ok). */
static int conn_request(struct conn *c, const char *req, struct reply *r, const char **err)
{
    char line[VFTR_CTL_LINE_MAX + 1];
    size_t len = (size_t)snprintf(line, sizeof line, "%s\n", req), off = 0;
    int rc = 0;

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
    conn_arm(c);
    while (rc == 0) {
        char *s = read_line(c, err);

        rc = s ? reply_take(r, s, err) : -1;
    }
    if (rc < 0) {
        reply_release(r);
        return -1;
    }
    return 0;
}

/* A signed decimal field of an answer ("-1", "42") into *out; 0 or -1. */
static int field_int(const char *s, int *out)
{
    uint64_t v;
    int neg = s[0] == '-';

    if (vftr_count_parse(s + neg, 0, (uint64_t)INT_MAX + neg, NULL, &v, NULL, 0) < 0)
        return -1;
    *out = neg ? (int)(-(int64_t)v) : (int)v;
    return 0;
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
    if (field_int(v, &p->rank) < 0)
        p->rank = -1;
    kv(r.lines[0], "size", v, sizeof v);
    if (field_int(v, &p->size) < 0)
        p->size = 0;
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

        uint64_t calls;
        double incl, excl;
        char *e1, *e2;

        snprintf(buf, sizeof buf, "%s", r->lines[i]);
        if (fields(buf, f, 10) < 9 || strcmp(f[0], "row") != 0)
            continue;
        /* a row whose numbers do not read is left out, not counted as 0 */
        incl = strtod(f[5], &e1);
        excl = strtod(f[6], &e2);
        if (vftr_count_parse(f[4], 0, UINT64_MAX, NULL, &calls, NULL, 0) < 0 || e1 == f[5] ||
            *e1 || e2 == f[6] || *e2 || !isfinite(incl) || !isfinite(excl))
            continue;
        if ((g = agg_find(&one, f[7], f[8])) == NULL)
            continue;
        g->calls += calls;
        g->incl += incl;
        g->excl += excl;
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
    size_t lim = lines_shown > SIZE_MAX ? SIZE_MAX : (size_t)lines_shown, shown;

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

        int thread, tid, depth;

        snprintf(buf, sizeof buf, "%s", r->lines[i]);
        nf = fields(buf, f, 6);
        /* "thread\tINDEX\tTID\tDEPTH[\tfinished]", "frame\tINDEX\tLEVEL\tID\tNAME";
         * a line that does not read so (another version's) is left out */
        if (strcmp(f[0], "thread") == 0 && nf >= 4 && field_int(f[1], &thread) == 0 &&
            field_int(f[2], &tid) == 0 && field_int(f[3], &depth) == 0) {
            if (opt_json) {
                cJSON *t = cJSON_CreateObject();

                cJSON_AddNumberToObject(t, "thread", thread);
                cJSON_AddNumberToObject(t, "tid", tid);
                cJSON_AddBoolToObject(t, "finished", nf >= 5);
                frames = cJSON_AddArrayToObject(t, "frames");
                cJSON_AddItemToArray(threads, t);
            } else {
                printf("  thread %d (tid %d)%s:", thread, tid, nf >= 5 ? " finished" : "");
                if (depth == 0)
                    printf(" idle");
            }
        } else if (strcmp(f[0], "frame") == 0 && nf >= 5 && field_int(f[2], &depth) == 0) {
            if (opt_json && frames)     /* frames before any thread line: nowhere to go */
                cJSON_AddItemToArray(frames, cJSON_CreateString(f[4]));
            else if (!opt_json)
                printf("%s%s", depth == 0 ? " " : " > ", f[4]);
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
    int status = VFTR_EXIT_OK;

    signal(SIGINT, on_int);
    for (uint64_t k = 0; !interrupted && (!have_count || k < refreshes); k++) {
        if (isatty(STDOUT_FILENO))
            printf("\033[H\033[2J");
        printf("vftr-ctl top: %zu process%s, refresh %" PRIu64 "\n", n, n == 1 ? "" : "es", k + 1);
        status |= run("profile", "profile", v, n);
        status |= run("stacks", "stacks", v, n);
        fflush(stdout);
        if (have_count && k + 1 >= refreshes)
            break;
        struct timespec ts = { (time_t)(interval_ns / 1000000000u),
                               (long)(interval_ns % 1000000000u) };

        nanosleep(&ts, NULL);
    }
    return status ? VFTR_EXIT_ERROR : VFTR_EXIT_OK;
}

/* The numeric options, through lib/util's one parser for each kind.  0, or
 * the exit status of a usage error (after its message). */
static int parse_numbers(void)
{
    char msg[VFTR_ERRMSG_MAX];
    int rc = 0;

    if (opt_timeout)
        rc = vftr_duration_parse(opt_timeout, 1000000u, 86400000000000ull, "--timeout",
                                 &timeout_ns, msg, sizeof msg);
    if (rc == 0 && opt_interval)
        rc = vftr_duration_parse(opt_interval, 10000000u, 86400000000000ull, "--interval",
                                 &interval_ns, msg, sizeof msg);
    if (rc == 0 && opt_count) {
        rc = vftr_count_parse(opt_count, 1, UINT32_MAX, "--count", &refreshes, msg, sizeof msg);
        have_count = 1;
    }
    if (rc == 0 && opt_lines)
        rc = vftr_count_parse(opt_lines, 0, UINT32_MAX, "--lines", &lines_shown, msg, sizeof msg);
    if (rc == 0 && opt_max_answer)
        rc = vftr_size_parse(opt_max_answer, 1024, 1ull << 40, "--max-answer", &max_answer, msg,
                             sizeof msg);
    if (rc == 0 && opt_pid)
        rc = vftr_count_parse(opt_pid, 1, 0x3fffffff, "--pid", &pid_wanted, msg, sizeof msg);
    if (rc == 0 && opt_rank)
        rc = vftr_count_parse(opt_rank, 0, INT32_MAX, "--rank", &rank_wanted, msg, sizeof msg);
    return rc < 0 ? vftr_tool_usage_fail(&tool, stderr, "%s", msg) : 0;
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
    if ((rc = parse_numbers()) != 0)
        return rc;
    if (opt_rank && !opt_job)
        return vftr_tool_usage_fail(&tool, stderr, "--rank needs --job");
    if (opt_pid && opt_job)
        return vftr_tool_usage_fail(&tool, stderr, "--pid and --job exclude each other");
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
        long pid = (long)pid_wanted;

        memset(&p, 0, sizeof p);
        p.pid = (pid_t)pid;
        if (vftr_ctl_endpoint(p.path, sizeof p.path, dir, p.pid) < 0 || !probe(&p, &why))
            return vftr_tool_fail(&tool, stderr, "pid %ld: %s: %s", pid, p.path, why);
    }
    json_root = opt_json ? cJSON_CreateObject() : NULL;
    v = scan(&n);
    sel = calloc(n ? n : 1, sizeof *sel);
    for (size_t i = 0; sel && i < n; i++) {
        if (opt_pid && pid_wanted != (uint64_t)v[i].pid)
            continue;
        if (opt_job && strcmp(opt_job, v[i].job) != 0)
            continue;
        if (opt_rank && (v[i].rank < 0 || rank_wanted != (uint64_t)v[i].rank))
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
