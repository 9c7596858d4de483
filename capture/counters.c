/*
 * counters.c — performance counters through perf_event_open (counters.h).
 *
 * Why groups, and why only for hardware events: one read(2) of a group
 * gives every member's count together with the group's time enabled and
 * running, so the hardware events cost one system call per boundary and
 * the scaling of a multiplexed group applies to all its members alike.
 * Software events are not multiplexed (they never compete for counters)
 * and each gets a descriptor of its own: grouped under a task-clock leader,
 * page-faults missed most faults (389 of 2000 touched pages, Linux 6.18),
 * while on its own it counted every one, as getrusage does.
 *
 * Names the table below does not have are PAPI's (presets, native events),
 * read through capture/papi/ (vftr_papi.h) when the build has PAPI: one
 * event set per thread beside the perf_event_open groups, so that a run may
 * mix the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "capture.h"
#include "collate.h"
#include "counters.h"
#include "ext.h"
#include "papi/vftr_papi.h"
#include "vfd/vftr_vfd_counters.h"

/* The names counters.events knows: perf's own names for them. */
static const struct ctr_kind {
    const char *name;
    uint32_t type;              /* PERF_TYPE_HARDWARE / _SOFTWARE */
    uint64_t config;
    const char *unit;
} kinds[] = {
    { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles" },
    { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions" },
    { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "misses" },
    { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "misses" },
    { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns" },
    { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "faults" },
    { "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "switches" },
    { "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations" },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

#define MAXC VFTR_VFD_CTR_MAX
_Static_assert(MAXC <= VFTR_COLLATE_MAXCTR, "the counters of a thread fit a collated row");
/* the type of a counter read through PAPI (not one of perf's) */
#define TYPE_PAPI UINT32_MAX
#define NAMELEN 64

/* The counters kept at setup (process wide, read-only afterwards): perf's
 * point into kinds[], PAPI's into papi[] with their names and units. */
static struct {
    unsigned n;
    const struct ctr_kind *k[MAXC];
    const struct vftr_regex *functions;
    unsigned npapi;
    const char *papi_names[MAXC];      /* the PAPI counters' names, in counter order */
    uint8_t papi_idx[MAXC];            /* their counter indexes */
    struct ctr_kind papi[MAXC];
    char names[MAXC][NAMELEN], units[MAXC][NAMELEN];
} ctr;

/* Groups: one of the hardware events, one per software event. */
#define NGROUPS (MAXC + 1)

struct vftr_ctr {
    int leader[NGROUPS];        /* -1: no group */
    int fd[MAXC];               /* -1: not opened on this thread */
    uint32_t ngroups;
    uint32_t nmem[NGROUPS];
    uint8_t member[NGROUPS][MAXC];   /* counter index of each member, in group order */
    struct vftr_papi *papi;     /* the PAPI counters' event set (NULL: none) */
    /* per node (index n->idx), ctr.n values each */
    uint32_t cap;
    uint64_t *start, *incl;
    uint64_t *calls;
    uint8_t *sel;               /* 0 not decided, 1 counted, 2 not; | OPEN while entered */
};
#define SEL_YES 1u
#define SEL_NO 2u
#define SEL_OPEN 4u

static VFTR_NI long perf_open(struct perf_event_attr *a, int group)
{
    return syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static VFTR_NI int open_one(const struct ctr_kind *k, int group)
{
    struct perf_event_attr a;
    long fd;

    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = k->type;
    a.config = k->config;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    /* per-thread counts of user and kernel work of this thread; the
     * paranoid levels 2 allows software events and user-space hardware
     * counting only */
    a.exclude_kernel = k->type == PERF_TYPE_HARDWARE;
    a.exclude_hv = 1;
    fd = perf_open(&a, group);
    return fd < 0 ? -errno : (int)fd;
}

/* Why an open failed, in words. */
static VFTR_NI const char *cause(int err, char *buf, size_t len)
{
    int level = -1;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = -1;
        fclose(f);
    }
    switch (err) {
    case -ENOENT:
    case -EOPNOTSUPP:
    case -ENODEV:
        return "no hardware performance counters (PMU) on this machine";
    case -EACCES:
    case -EPERM:
        snprintf(buf, len, "kernel.perf_event_paranoid is %d", level);
        return buf;
    case -ENOSYS:
        return "the kernel has no perf_event_open";
    default:
        snprintf(buf, len, "perf_event_open: %s", strerror(-err));
        return buf;
    }
}

static VFTR_NI const struct ctr_kind *kind_named(const char *name, size_t len)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strlen(kinds[i].name) == len && memcmp(kinds[i].name, name, len) == 0)
            return &kinds[i];
    return NULL;
}

/* The counters left out at setup, by cause: one message names them all. */
struct left_out {
    unsigned n;
    struct { char why[160], names[256]; } c[4];
};

static VFTR_NI void leave_out(struct left_out *l, const char *name, size_t len, const char *why)
{
    unsigned i;

    for (i = 0; i < l->n && strcmp(l->c[i].why, why) != 0; i++)
        ;
    if (i == l->n) {
        if (l->n == sizeof l->c / sizeof l->c[0])
            i--;        /* more causes than room: the last one's list takes it */
        else
            snprintf(l->c[l->n++].why, sizeof l->c[0].why, "%s", why);
    }
    snprintf(l->c[i].names + strlen(l->c[i].names), sizeof l->c[i].names - strlen(l->c[i].names),
             "%s%.*s", l->c[i].names[0] ? ", " : "", (int)len, name);
}

/* Whether the machine has hardware counters perf_event_open can open: the
 * cause to add when PAPI cannot count one of its hardware events. */
static VFTR_NI const char *pmu_cause(char *buf, size_t len)
{
    int fd = open_one(&kinds[0], -1);

    if (fd >= 0) {
        close(fd);
        return NULL;
    }
    return cause(fd, buf, len);
}

/* A name of PAPI's: its counter, or why not (0 kept, -ENOENT unknown). */
static VFTR_NI int setup_papi(const char *p, size_t len, int init_rc, const char *init_why,
                              struct left_out *l)
{
    char why[160], unit[NAMELEN], buf[128];
    const char *pmu;
    int rc;

    if (init_rc < 0) {
        /* without PAPI every name of PAPI's is unknown; with a PAPI that
         * would not start, unavailable */
        if (!vftr_papi_built())
            return -ENOENT;
        leave_out(l, p, len, init_why);
        return 0;
    }
    rc = vftr_papi_probe(p, len, unit, sizeof unit, why, sizeof why);
    if (rc == -ENOENT)
        return -ENOENT;
    if (rc < 0) {
        if ((pmu = pmu_cause(buf, sizeof buf)) != NULL)
            snprintf(why + strlen(why), sizeof why - strlen(why), "; %s", pmu);
        leave_out(l, p, len, why);
        return 0;
    }
    if (len >= NAMELEN) {
        leave_out(l, p, len, "name too long");
        return 0;
    }
    {
        unsigned i = ctr.npapi;
        struct ctr_kind *k = &ctr.papi[i];

        memcpy(ctr.names[i], p, len);
        ctr.names[i][len] = '\0';
        snprintf(ctr.units[i], NAMELEN, "%s", unit[0] ? unit : "events");
        *k = (struct ctr_kind){ ctr.names[i], TYPE_PAPI, 0, ctr.units[i] };
        ctr.papi_names[i] = ctr.names[i];
        ctr.papi_idx[i] = (uint8_t)ctr.n;
        ctr.npapi++;
        ctr.k[ctr.n++] = k;
    }
    return 0;
}

VFTR_NI int vftr_ctr_setup(const struct vftr_config *cfg, bool rank0)
{
    const char *p = cfg->counters_events;
    char buf[128], init_why[160] = "";
    struct left_out l;
    int init_rc = 1;    /* 1: PAPI not asked for yet */

    memset(&ctr, 0, sizeof ctr);
    memset(&l, 0, sizeof l);
    if (p == NULL)
        return 0;
    ctr.functions = cfg->counters_functions;
    while (*p) {
        size_t len;
        const struct ctr_kind *k;
        int fd;

        p += strspn(p, ", \t");
        len = strcspn(p, ", \t");
        if (len == 0)
            break;
        if (ctr.n == MAXC) {
            if (rank0)
                vftr_msg("counters.events: at most %u counters: \"%.*s\" left out", MAXC,
                         (int)len, p);
            p += len;
            continue;
        }
        k = kind_named(p, len);
        if (k == NULL) {
            /* not one of perf's: PAPI's, when the build has PAPI */
            if (init_rc == 1)
                init_rc = vftr_papi_init(init_why, sizeof init_why);
            if (setup_papi(p, len, init_rc, init_why, &l) == 0) {
                p += len;
                continue;
            }
            if (rank0) {
                char known[256] = "";

                for (size_t i = 0; i < NKINDS; i++)
                    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                             i ? ", " : "", kinds[i].name);
                vftr_msg("counters.events: unknown counter \"%.*s\" (%s%s%s%s); no counters "
                         "recorded", (int)len, p,
                         vftr_papi_built() ? "" : strncmp(p, "PAPI_", 5) == 0 ?
                         "vftr was built without PAPI; " : "",
                         "known: ", known,
                         vftr_papi_built() ? ", and PAPI's presets and native events "
                                             "(papi_avail, papi_native_avail)" : "");
            }
            memset(&ctr, 0, sizeof ctr);
            return -EINVAL;
        }
        p += len;
        fd = open_one(k, -1);
        if (fd < 0) {
            leave_out(&l, k->name, strlen(k->name), cause(fd, buf, sizeof buf));
            continue;
        }
        close(fd);
        ctr.k[ctr.n++] = k;
    }
    if (l.n && rank0) {
        char msg[1200] = "";

        for (unsigned i = 0; i < l.n; i++)
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%s (%s)", i ? "; " : "",
                     l.c[i].names, l.c[i].why);
        vftr_msg("counters unavailable: %s; %s", msg,
                 ctr.n ? "the others are recorded" : "no counters recorded");
    }
    return (int)ctr.n;
}

VFTR_NI unsigned vftr_ctr_count(void)
{
    return ctr.n;
}

VFTR_NI const char *vftr_ctr_name(unsigned i)
{
    return i < ctr.n ? ctr.k[i]->name : NULL;
}

VFTR_NI int vftr_ctr_define(struct vftr_vfd_writer *w)
{
    struct vftr_vfd_counter d[MAXC];
    uint8_t chunk[VFTR_VFD_CHUNK_HEADER_SIZE + MAXC * 96];
    size_t len;

    if (ctr.n == 0 || w == NULL)
        return 0;
    for (unsigned i = 0; i < ctr.n; i++)
        d[i] = (struct vftr_vfd_counter){ i + 1, 0, ctr.k[i]->name, ctr.k[i]->unit };
    len = vftr_vfd_encode_counters(d, ctr.n, chunk, sizeof chunk);
    if (len == 0)
        return -EINVAL;
    return vftr_vfd_writer_put(w, chunk, len);
}

VFTR_NI struct vftr_ctr *vftr_ctr_thread_new(void)
{
    struct vftr_ctr *c;
    bool any = false;

    if (ctr.n == 0 || (c = calloc(1, sizeof *c)) == NULL)
        return NULL;
    for (unsigned g = 0; g < NGROUPS; g++)
        c->leader[g] = -1;
    for (unsigned i = 0; i < MAXC; i++)
        c->fd[i] = -1;
    c->ngroups = 1;   /* group 0: the hardware events */
    for (unsigned i = 0; i < ctr.n; i++) {
        uint32_t g = ctr.k[i]->type == PERF_TYPE_HARDWARE ? 0 : c->ngroups;
        int fd;

        if (ctr.k[i]->type == TYPE_PAPI)
            continue;
        fd = open_one(ctr.k[i], c->leader[g]);

        if (fd < 0)
            continue;   /* said at setup for the process; this thread counts 0 */
        c->fd[i] = fd;
        if (c->leader[g] < 0)
            c->leader[g] = fd;
        if (g == c->ngroups)
            c->ngroups++;
        c->member[g][c->nmem[g]++] = (uint8_t)i;
        any = true;
    }
    if (ctr.npapi && (c->papi = vftr_papi_thread_new(ctr.papi_names, ctr.npapi, false)) != NULL)
        any = true;
    if (!any) {
        free(c);
        return NULL;
    }
    return c;
}

VFTR_NI void vftr_ctr_thread_close(struct vftr_ctr *c)
{
    if (c == NULL)
        return;
    for (unsigned i = 0; i < MAXC; i++)
        if (c->fd[i] >= 0) {
            close(c->fd[i]);
            c->fd[i] = -1;
        }
    for (unsigned g = 0; g < NGROUPS; g++)
        c->leader[g] = -1;
    vftr_papi_thread_free(c->papi);
    c->papi = NULL;
}

VFTR_NI void vftr_ctr_thread_free(struct vftr_ctr *c)
{
    if (c == NULL)
        return;
    vftr_ctr_thread_close(c);
    free(c->start);
    free(c->incl);
    free(c->calls);
    free(c->sel);
    free(c);
}

/*
 * The product count x enabled is taken in 128 bits: a count of 2^40 events
 * scaled by a ratio of nanoseconds over 2^24 would wrap in 64, and a wrapped
 * count is a small wrong number nobody would question.  A result that does
 * not fit (only with a ratio past 2^64 / count) saturates instead.
 */
VFTR_NI uint64_t vftr_ctr_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
    unsigned __int128 x;

    if (running == 0)
        return 0;
    if (running >= enabled)
        return count;
    x = (unsigned __int128)count * enabled / running;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/*
 * One read per group: { nr, time_enabled, time_running, value[nr] }, each
 * member's count scaled by the group's times (vftr_ctr_scale).
 */
VFTR_NI int vftr_ctr_read(struct vftr_ctr *c, uint64_t *v)
{
    for (uint32_t g = 0; g < c->ngroups; g++) {
        uint64_t b[3 + MAXC];
        ssize_t got;

        if (c->leader[g] < 0)
            continue;
        got = read(c->leader[g], b, sizeof b);
        if (got < (ssize_t)(3 * sizeof(uint64_t)) || b[0] > c->nmem[g])
            return got < 0 ? -errno : -EIO;
        for (uint64_t j = 0; j < b[0]; j++)
            v[c->member[g][j]] = vftr_ctr_scale(b[3 + j], b[1], b[2]);
    }
    if (c->papi) {
        /* PAPI scales a multiplexed set's counts itself */
        uint64_t pv[MAXC];
        int rc = vftr_papi_read(c->papi, pv);

        if (rc < 0)
            return rc;
        for (unsigned k = 0; k < ctr.npapi; k++)
            v[ctr.papi_idx[k]] = pv[k];
    }
    return 0;
}

/* Room for node index idx in the per-node arrays (grown by doubling). */
static VFTR_NI int reserve(struct vftr_ctr *c, uint32_t idx)
{
    uint32_t cap = c->cap ? c->cap : 256;
    uint64_t *s, *in, *calls;
    uint8_t *sel;

    if (idx < c->cap)
        return 0;
    while (cap <= idx)
        cap *= 2;
    s = realloc(c->start, (size_t)cap * ctr.n * sizeof *s);
    if (s)
        c->start = s;
    in = realloc(c->incl, (size_t)cap * ctr.n * sizeof *in);
    if (in)
        c->incl = in;
    calls = realloc(c->calls, (size_t)cap * sizeof *calls);
    if (calls)
        c->calls = calls;
    sel = realloc(c->sel, cap);
    if (sel)
        c->sel = sel;
    if (!s || !in || !calls || !sel)
        return -ENOMEM;
    memset(c->incl + (size_t)c->cap * ctr.n, 0, (size_t)(cap - c->cap) * ctr.n * sizeof *in);
    memset(c->calls + c->cap, 0, (size_t)(cap - c->cap) * sizeof *calls);
    memset(c->sel + c->cap, 0, cap - c->cap);
    c->cap = cap;
    return 0;
}

/* Whether n's boundaries are read (decided once per call path). */
static VFTR_NI bool selected(struct vftr_ctr *c, const struct vftr_node *n)
{
    uint8_t *s;

    if (n->fn == NULL || reserve(c, n->idx) < 0)
        return false;
    s = &c->sel[n->idx];
    if (*s == 0)
        *s = ctr.functions == NULL || vftr_regex_match(ctr.functions, n->fn->name) ? SEL_YES
                                                                                : SEL_NO;
    return *s & SEL_YES;
}

/* The values into the trace after the event of the boundary, when that
 * event was written (a sampled trace leaves most out). */
static VFTR_NI void put(struct vftr_thread *t, const struct vftr_node *n, uint64_t now,
                        uint32_t boundary, const uint64_t *v)
{
    struct vftr_vfd_ctr_values cv = { n->id, boundary, ctr.n, { 0 } };
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t len;

    if (!t->trace || (t->interval && t->last_written != now))
        return;
    memcpy(cv.v, v, ctr.n * sizeof *v);
    len = vftr_vfd_ctr_values_encode(&cv, out);
    if (len)
        (void)vftr_trace_put_ext(t, now, VFTR_VFD_COUNTERS, out, (uint32_t)len);
}

VFTR_NI void vftr_ctr_enter(struct vftr_thread *t, const struct vftr_node *n, uint64_t now)
{
    struct vftr_ctr *c = t->ctr;
    uint64_t v[MAXC] = { 0 };

    if (!selected(c, n) || vftr_ctr_read(c, v) < 0)
        return;
    memcpy(c->start + (size_t)n->idx * ctr.n, v, ctr.n * sizeof *v);
    c->sel[n->idx] |= SEL_OPEN;
    put(t, n, now, VFTR_VFD_CTR_ENTER, v);
}

VFTR_NI void vftr_ctr_exit(struct vftr_thread *t, const struct vftr_node *n, uint64_t now)
{
    struct vftr_ctr *c = t->ctr;
    uint64_t v[MAXC] = { 0 };
    uint64_t *in, *st;

    if (n->fn == NULL || n->idx >= c->cap || !(c->sel[n->idx] & SEL_OPEN) ||
        vftr_ctr_read(c, v) < 0)
        return;
    c->sel[n->idx] &= (uint8_t)~SEL_OPEN;
    in = c->incl + (size_t)n->idx * ctr.n;
    st = c->start + (size_t)n->idx * ctr.n;
    for (unsigned i = 0; i < ctr.n; i++)
        in[i] += v[i] >= st[i] ? v[i] - st[i] : 0;
    c->calls[n->idx]++;
    put(t, n, now, VFTR_VFD_CTR_EXIT, v);
}

/*
 * The log's table: per thread and counted call path, the calls whose
 * counts were taken, then per counter the inclusive sum and the exclusive
 * one (the inclusive minus that of the counted call paths right below).
 */
VFTR_NI int vftr_ctr_log(FILE *out)
{
    struct vftr_thread *t;

    if (ctr.n == 0)
        return 0;
    fprintf(out, "\nCounters (per call path; inclusive / exclusive; counted calls)\n");
    fprintf(out, "%6s %8s %10s", "thread", "stack_id", "calls");
    for (unsigned i = 0; i < ctr.n; i++)
        fprintf(out, " %18s %18s", ctr.k[i]->name, "excl");
    fprintf(out, "  function\n");
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        struct vftr_ctr *c = t->ctr;
        uint32_t nn = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        int64_t *ex;
        struct vftr_node_walk w;

        if (c == NULL)
            continue;
        if (nn > c->cap)
            nn = c->cap;
        ex = malloc(((size_t)nn * ctr.n + 1) * sizeof *ex);
        if (ex == NULL)
            return -ENOMEM;
        for (size_t i = 0; i < (size_t)nn * ctr.n; i++)
            ex[i] = (int64_t)c->incl[i];
        w = vftr_node_walk_first(t, nn);
        for (uint32_t i = 0; i < nn; i++) {
            const struct vftr_node *n = vftr_node_walk_next(&w), *p = n->parent;

            if (!(c->sel[i] & SEL_YES) || p == NULL || p == &t->root || p->idx >= nn ||
                !(c->sel[p->idx] & SEL_YES))
                continue;
            for (unsigned k = 0; k < ctr.n; k++)
                ex[(size_t)p->idx * ctr.n + k] -= (int64_t)c->incl[(size_t)i * ctr.n + k];
        }
        w = vftr_node_walk_first(t, nn);
        for (uint32_t i = 0; i < nn; i++) {
            const struct vftr_node *n = vftr_node_walk_next(&w);

            if (!(c->sel[i] & SEL_YES) || c->calls[i] == 0)
                continue;
            fprintf(out, "%6u %8u %10llu", t->index, n->id, (unsigned long long)c->calls[i]);
            for (unsigned k = 0; k < ctr.n; k++)
                fprintf(out, " %18llu %18lld",
                        (unsigned long long)c->incl[(size_t)i * ctr.n + k],
                        (long long)ex[(size_t)i * ctr.n + k]);
            fprintf(out, "  %s\n", n->fn ? n->fn->name : "?");
        }
        free(ex);
    }
    return ferror(out) ? -EIO : 0;
}

/* A growing text (vftr_ext_counter_lines); failed: memory ran short. */
struct lines {
    char *s;
    size_t len, cap;
    bool failed;
};

static VFTR_NI void lines_add(struct lines *l, const char *s, size_t n)
{
    if (l->failed)
        return;
    if (l->len + n + 1 > l->cap) {
        size_t cap = (l->cap ? l->cap * 2 : 4096) + n;
        char *p = realloc(l->s, cap);

        if (p == NULL) {
            l->failed = true;
            return;
        }
        l->s = p;
        l->cap = cap;
    }
    memcpy(l->s + l->len, s, n);
    l->len += n;
    l->s[l->len] = '\0';
}

/* Node n's path from the root: names, VFTR_COLLATE_SEP between. */
static VFTR_NI void lines_path(struct lines *l, const struct vftr_thread *t,
                               const struct vftr_node *n)
{
    const struct vftr_node *up[256];
    unsigned depth = 0;

    for (; n && n != &t->root && depth < sizeof up / sizeof up[0]; n = n->parent)
        up[depth++] = n;
    while (depth > 0) {
        const struct vftr_node *x = up[--depth];
        const char *name = x->fn ? x->fn->name : "?";

        for (; *name; name++) {
            char ch = *name == '\t' || *name == '\n' || *name == VFTR_COLLATE_SEP ? ' ' : *name;

            lines_add(l, &ch, 1);
        }
        if (depth > 0) {
            char sep = VFTR_COLLATE_SEP;

            lines_add(l, &sep, 1);
        }
    }
}

VFTR_EXT_API char *vftr_ext_counter_lines(void)
{
    const struct timespec nap = { 0, 100000 };
    pid_t self = (pid_t)syscall(SYS_gettid);
    struct lines l = { 0 };
    char buf[32];

    if (ctr.n == 0)
        return NULL;
    lines_add(&l, "K\t", 2);
    for (unsigned i = 0; i < ctr.n; i++) {
        if (i)
            lines_add(&l, ",", 1);
        lines_add(&l, ctr.k[i]->name, strlen(ctr.k[i]->name));
    }
    lines_add(&l, "\n", 1);
    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next) {
        struct vftr_ctr *c = t->ctr;
        uint32_t nn = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        struct vftr_node_walk w;

        bool lent = false;

        if (c == NULL)
            continue;
        /* another thread may still run hooks at MPI_Finalize (they grow the
         * arrays read here): its guard, lent while reading; the calling
         * thread's own and a finished thread's need none */
        if (t->tid != self) {
            for (int tries = 0; !(lent = vftr_thread_borrow(t)) && tries < 1000; tries++) {
                int g = atomic_load_explicit(&t->guard, memory_order_acquire);

                if (g == VFTR_GUARD_DONE)
                    break;
                nanosleep(&nap, NULL);
            }
            if (!lent && atomic_load_explicit(&t->guard, memory_order_acquire) != VFTR_GUARD_DONE)
                continue;   /* busy for 100 ms: left out rather than read while it changes */
            nn = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        }
        if (nn > c->cap)
            nn = c->cap;
        w = vftr_node_walk_first(t, nn);
        for (uint32_t i = 0; i < nn; i++) {
            const struct vftr_node *n = vftr_node_walk_next(&w);

            if (!(c->sel[i] & SEL_YES) || c->calls[i] == 0)
                continue;
            lines_add(&l, "C\t", 2);
            lines_path(&l, t, n);
            lines_add(&l, buf, (size_t)snprintf(buf, sizeof buf, "\t%llu",
                                                (unsigned long long)c->calls[i]));
            for (unsigned k = 0; k < ctr.n; k++)
                lines_add(&l, buf, (size_t)snprintf(buf, sizeof buf, "\t%llu",
                                                    (unsigned long long)c->incl[(size_t)i * ctr.n + k]));
            lines_add(&l, "\n", 1);
        }
        if (lent)
            vftr_thread_give_back(t);
    }
    if (l.failed) {
        free(l.s);
        return NULL;
    }
    return l.s;
}
