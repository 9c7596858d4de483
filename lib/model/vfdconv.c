/*
 * vfdconv.c — see vfdconv.h.
 *
 * Open reads each file once, keeping only definitions, counts of MPI
 * records and a chunk list (the events chunks are skimmed, see "first
 * pass" below; files may be read in parallel and merged in the given
 * order), then matches messages streaming (see "matching"); the replay reads the event
 * chunks again and merges, per set of ranks, the events of every thread (a
 * heap over thread sources).  Hot paths: the plain record decode is inline
 * (vftr_vfd_scan_next), an Enter under the top of the stack and an Exit of
 * the top are handled inline (transform_fast), sources transform REFILL
 * events ahead, and runs of events no other source interleaves go to the
 * consumer in one call.  A thread source turns raw
 * records into Enter/Leave by keeping the thread's stack of call paths, so
 * that ENTER/EXIT and SAMPLE records (or a mix) give properly nested pairs;
 * sends and collective begins, placed at their start, come from a second
 * scanner that reads the file ahead (see early_scan) into a small heap per
 * thread and are merged into the thread's output.  No MPI record is kept
 * from open to replay: open matches messages in one streaming pass (see
 * "matching") and keeps only the exceptional peers.
 *
 * A file's chunks of different threads interleave in any way: a worker
 * that idles between two parallel regions writes one chunk at the very end
 * that spans the whole run.  So nothing reads a file in file order after
 * the first pass: open groups each rank's chunk list by thread (see
 * index_chunks), and every reader that follows time (a thread source of the
 * replay, its look-ahead, the matcher) keeps one position per thread,
 * which reads that thread's chunks and gives their pages back behind it.
 * Nothing of one thread waits in memory for another thread's next record,
 * whatever the interleaving.
 */
#include "vfdconv.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_counters.h"
#include "vfd/vftr_vfd_ext.h"
#include "vfd/vftr_vfd_scan.h"

#define CP_CACHE 256            /* call path cache slots per thread */
#define REFILL 64               /* events a source transforms ahead (see refill) */
#define FORGET_STEP (64u << 10) /* bytes a source reads between giving pages back */
#define MAX_WALK (1u << 16)     /* longest parent chain followed (a longer one is a cycle) */

/* ------------------------------------------------------------ helpers */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 8;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    q = realloc(*p, n * size);
    if (!q)
        return -ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* Doubles a ring buffer of *cap (0 or a power of two) elements of size
 * bytes holding len from *head on, unwrapping it (head becomes 0); first is
 * the capacity of an empty ring.  0 or -ENOMEM (ring unchanged). */
static int ring_grow(void **buf, size_t *head, size_t len, size_t *cap, size_t size,
                     size_t first)
{
    size_t ncap = *cap ? 2 * *cap : first;
    uint8_t *nb = malloc(ncap * size);

    if (!nb)
        return -ENOMEM;
    for (size_t k = 0; k < len; k++)
        memcpy(nb + k * size, (const uint8_t *)*buf + ((*head + k) & (*cap - 1)) * size, size);
    free(*buf);
    *buf = nb;
    *cap = ncap;
    *head = 0;
    return 0;
}

static char *strndup_safe(const char *s, size_t n)
{
    char *d = malloc(n + 1);

    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static uint64_t hash_str(uint64_t seed, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ seed;

    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Binary min-heaps over arrays of T ordered by LESS(const T *, const T *):
 * NAME_push(h, n, x) adds x to the n elements of h (room for one more),
 * NAME_down(h, n, i) moves h[i] down to its place, NAME_pop(h, &n) takes
 * the least.  The orders used are total, so the sequence of pops does not
 * depend on the heap's shape. */
#define DEFINE_HEAP(NAME, T, LESS)                                              \
    __attribute__((unused)) static void NAME##_push(T *h, size_t n, T x)        \
    {                                                                           \
        size_t i = n;                                                           \
                                                                                \
        while (i > 0 && LESS(&x, &h[(i - 1) / 2])) {                            \
            h[i] = h[(i - 1) / 2];                                              \
            i = (i - 1) / 2;                                                    \
        }                                                                       \
        h[i] = x;                                                               \
    }                                                                           \
    __attribute__((unused)) static void NAME##_down(T *h, size_t n, size_t i)   \
    {                                                                           \
        T x = h[i];                                                             \
                                                                                \
        for (;;) {                                                              \
            size_t l = 2 * i + 1, m = l;                                        \
                                                                                \
            if (l >= n)                                                         \
                break;                                                          \
            if (l + 1 < n && LESS(&h[l + 1], &h[l]))                            \
                m = l + 1;                                                      \
            if (!LESS(&h[m], &x))                                               \
                break;                                                          \
            h[i] = h[m];                                                        \
            i = m;                                                              \
        }                                                                       \
        h[i] = x;                                                               \
    }                                                                           \
    __attribute__((unused)) static T NAME##_pop(T *h, size_t *n)                \
    {                                                                           \
        T top = h[0];                                                           \
                                                                                \
        if (--*n) {                                                             \
            h[0] = h[*n];                                                       \
            NAME##_down(h, *n, 0);                                              \
        }                                                                       \
        return top;                                                             \
    }

/* ------------------------------------------------------------ records */

/* MPI records are not kept: the first pass counts them and notes, per
 * events chunk, the earliest start among them; open matches messages in
 * one streaming pass over the files (see "matching"), keeping of the
 * result only the exceptions; the replay reads the records again. */
struct thr {
    uint32_t id, token;
    uint64_t first, last;       /* raw ticks; first = UINT64_MAX when no event */
    uint64_t events;
    uint64_t nsends, nrecvs, ncolls;    /* MPI records that decode */
    uint64_t nios;              /* file I/O records that decode */
    uint64_t early;             /* raw ticks: earliest send / collective / file operation
                                 * start, or UINT64_MAX */
    size_t c0, nc;              /* its events chunks: rank->chunks[c0 .. c0 + nc) */
    /* matched peer threads that are not the peer's main thread (thread id
     * 0, the token an unmatched message gets): key (kind << 32 | n), kind
     * 0 for the n-th send, 1 for the n-th receive -> peer token */
    struct vftr_u64map exc;
};

struct ompreg {
    uint32_t func, scl;
};

struct clockfit {               /* aligned = x + off0 + (x - x0) * slope + shift */
    double off0, x0, slope;
};

struct rank {
    char *path;
    size_t file;                /* index of the file in the open's list */
    int32_t size;               /* the job's size in the header, -1 or 0 unknown */
    int32_t rank;
    uint64_t tps, start_ticks, start_ns, bytes;
    uint64_t sample_ticks;      /* the header's sampling interval (0: every event) */
    int64_t start_rel;          /* start_ns - base_ns */
    int complete;
    int capped;                 /* tracing stopped at the size cap (trace.max_size) */
    uint64_t events_lost;       /* events the capture did not record (cap, trace off) */
    struct thr *thr;
    size_t nthr, cthr, last_thr;
    struct vftr_u64map thrmap;  /* thread id -> index */
    struct vftr_u64map fmap;    /* function id -> function index */
    struct vftr_u64map omap;    /* OMP region id -> index of regs */
    struct vftr_u64map iomap;   /* IO_FILES id -> index of the engine's iofiles */
    struct ompreg *regs;
    size_t nregs, cregs;
    int have_clock[2];
    struct vftr_vfd_clock_offset clock[2];
    struct clockfit fit;
    int fitted;                 /* fit is not the identity */
    int64_t shift;
    uint8_t run_id[16];
    int have_run_id;
    uint32_t ctok[VFTR_VFD_CTR_MAX];  /* counter id - 1 -> token (0: not defined) */
    uint64_t events;
    char host[VFTR_VFD_HOST_MAX];
    /* the event chunks the first pass read and how many of their records
     * decoded: the replay reads them again through the fast scanner
     * (vftr_vfd_scan.h); 24 bytes per chunk of events.  In file order until
     * index_chunks groups them by thread (each thread's in file order, which
     * is its time order) */
    struct evchunk {
        uint64_t off;
        uint32_t n;
        uint32_t thr;           /* thread index */
        uint64_t mpimin;        /* earliest MPI start of this chunk (raw ticks); after
                                 * index_chunks, of it and the thread's later chunks */
    } *chunks;
    size_t nchunks, cchunks;
    /* first pass, before the merge: what touches the shared numbering, in
     * file order (see scan_rank), and how the scan ended */
    uint8_t *acts;
    size_t nacts, cacts;
    struct vftr_u64map comms_seen;
    uint8_t op_seen[VFTR_VFD_COLL_COUNT];
    int rma_seen;               /* an MPI_RMA record (ACT_RMA given) */
    int scan_rc;
    char *scan_err;
};

struct strtab {                 /* string -> index, by hash with probing salt */
    struct vftr_u64map map;
};

struct vftr_vfdconv {
    struct vftr_vfdconv_opts opts;
    struct rank *ranks;
    size_t nranks;
    struct vftr_u64map rankmap;         /* world rank -> rank index */
    struct vftr_vfdconv_proc *procs;
    size_t nprocs, cprocs;
    struct vftr_vfdconv_func *funcs;
    size_t nfuncs, cfuncs;
    struct strtab ftab;
    struct vftr_vfdconv_group *groups;
    size_t ngroups, cgroups;
    struct vftr_u64map gmap;            /* comm id -> group index */
    struct vftr_vfdconv_sclfile *files;
    size_t nfiles, cfiles;
    struct strtab filetab;
    struct vftr_vfdconv_scl *scls;
    size_t nscls, cscls;
    struct vftr_vfdconv_file *iofiles;  /* files of file I/O records */
    size_t niofiles, ciofiles;
    struct vftr_u64map iotab;           /* hash of (group, name) -> iofiles index */
    uint8_t iogroup_used[VFTR_VFD_IO_IFACE_COUNT];
    uint32_t iogroups[VFTR_VFD_IO_IFACE_COUNT];
    size_t niogroups;
    struct vftr_u64map sclmap;          /* (file << 32 | line) -> scl index */
    uint8_t collop_used[VFTR_VFD_COLL_COUNT];
    int has_rma;                        /* a rank has MPI_RMA records */
    uint32_t collops[VFTR_VFD_COLL_COUNT];
    size_t ncollops;
    struct vftr_vfdconv_counter *ctrs;
    size_t nctrs;
    char comment[512];
    struct vftr_vfdconv_stats stats;
};

/* Index of name in tab (looked up through names[i] by get_name), or -1. */
static long strtab_find(const struct strtab *t, const char *name, size_t len,
                        const char *(*get_name)(const void *, size_t), const void *arr,
                        uint64_t *key_out)
{
    for (uint64_t salt = 0;; salt++) {
        uint64_t key = hash_str(salt, name, len);
        long i = vftr_u64map_get(&t->map, key);

        *key_out = key;
        if (i < 0)
            return -1;
        const char *s = get_name(arr, (size_t)i);
        if (strlen(s) == len && memcmp(s, name, len) == 0)
            return i;
    }
}

static const char *file_name_at(const void *arr, size_t i)
{
    return ((const struct vftr_vfdconv_sclfile *)arr)[i].name;
}

/* Function token for (name, group): the same name in the same group is
 * the same function on every rank.  The group is part of the key. */
static long intern_func(struct vftr_vfdconv *c, const char *name, size_t len, uint32_t group,
                        uint32_t scl)
{
    char buf[4096];
    size_t klen = len + 2 < sizeof buf ? len + 2 : sizeof buf - 1;
    uint64_t key;
    long i;

    buf[0] = (char)('0' + group);
    buf[1] = ':';
    memcpy(buf + 2, name, klen - 2);
    buf[klen] = 0;
    /* the key string is "g:name"; names are compared without the prefix */
    for (uint64_t salt = 0;; salt++) {
        key = hash_str(salt, buf, klen);
        i = vftr_u64map_get(&c->ftab.map, key);
        if (i < 0)
            break;
        if (c->funcs[i].group == group && strlen(c->funcs[i].name) == klen - 2 &&
            memcmp(c->funcs[i].name, name, klen - 2) == 0)
            return i;
    }
    if (grow((void **)&c->funcs, &c->cfuncs, c->nfuncs + 1, sizeof *c->funcs) < 0)
        return -ENOMEM;
    i = (long)c->nfuncs;
    c->funcs[i].token = (uint32_t)i + 1;
    c->funcs[i].group = group;
    c->funcs[i].flags = 0;
    c->funcs[i].scl = scl;
    c->funcs[i].name = strndup_safe(name, klen - 2);
    if (!c->funcs[i].name || vftr_u64map_put(&c->ftab.map, key, (uint32_t)i) < 0)
        return -ENOMEM;
    c->nfuncs++;
    return i;
}

static long intern_file(struct vftr_vfdconv *c, const char *name, size_t len)
{
    uint64_t key;
    long i = strtab_find(&c->filetab, name, len, file_name_at, c->files, &key);

    if (i >= 0)
        return i;
    if (grow((void **)&c->files, &c->cfiles, c->nfiles + 1, sizeof *c->files) < 0)
        return -ENOMEM;
    i = (long)c->nfiles;
    c->files[i].token = (uint32_t)i + 1;
    c->files[i].name = strndup_safe(name, len);
    if (!c->files[i].name || vftr_u64map_put(&c->filetab.map, key, (uint32_t)i) < 0)
        return -ENOMEM;
    c->nfiles++;
    return i;
}

static long intern_scl(struct vftr_vfdconv *c, uint32_t file, uint32_t line)
{
    uint64_t key = ((uint64_t)file << 32) | line;
    long i = vftr_u64map_get(&c->sclmap, key);

    if (i >= 0)
        return i;
    if (grow((void **)&c->scls, &c->cscls, c->nscls + 1, sizeof *c->scls) < 0)
        return -ENOMEM;
    i = (long)c->nscls;
    c->scls[i].token = (uint32_t)i + 1;
    c->scls[i].file = file;
    c->scls[i].line = line;
    if (vftr_u64map_put(&c->sclmap, key, (uint32_t)i) < 0)
        return -ENOMEM;
    c->nscls++;
    return i;
}

/* The file of (name, group) for file I/O records: one token per name and
 * interface (group) over the run, in order of first sight. */
static long intern_iofile(struct vftr_vfdconv *c, const char *name, size_t len, uint32_t group)
{
    uint64_t key;
    long i;

    for (uint64_t salt = 0;; salt++) {
        key = hash_str(salt * 16 + group, name, len);
        i = vftr_u64map_get(&c->iotab, key);
        if (i < 0)
            break;
        if (c->iofiles[i].group == group && strlen(c->iofiles[i].name) == len &&
            memcmp(c->iofiles[i].name, name, len) == 0)
            return i;
    }
    if (grow((void **)&c->iofiles, &c->ciofiles, c->niofiles + 1, sizeof *c->iofiles) < 0)
        return -ENOMEM;
    i = (long)c->niofiles;
    c->iofiles[i].token = (uint32_t)i + 1;
    c->iofiles[i].group = group;
    c->iofiles[i].name = strndup_safe(name, len);
    if (!c->iofiles[i].name || vftr_u64map_put(&c->iotab, key, (uint32_t)i) < 0)
        return -ENOMEM;
    c->niofiles++;
    if (group < VFTR_VFD_IO_IFACE_COUNT && !c->iogroup_used[group]) {
        c->iogroup_used[group] = 1;
        c->iogroups[c->niogroups++] = group;
    }
    return i;
}

/* Group index of communicator id, creating an unnamed one if needed. */
static long group_of(struct vftr_vfdconv *c, uint64_t comm, const char *name, size_t namelen)
{
    long i = vftr_u64map_get(&c->gmap, comm);
    char buf[64];

    if (i >= 0)
        return i;
    if (!name) {
        if (comm == VFTR_VFD_COMM_WORLD)
            snprintf(buf, sizeof buf, "MPI_COMM_WORLD");
        else if ((comm >> 62) == 1)
            snprintf(buf, sizeof buf, "MPI_COMM_SELF %" PRIu64, comm & 0xffffffffu);
        else
            snprintf(buf, sizeof buf, "communicator 0x%" PRIx64, comm);
        name = buf;
        namelen = strlen(buf);
    }
    if (grow((void **)&c->groups, &c->cgroups, c->ngroups + 1, sizeof *c->groups) < 0)
        return -ENOMEM;
    i = (long)c->ngroups;
    memset(&c->groups[i], 0, sizeof c->groups[i]);
    c->groups[i].token = (uint32_t)i + 1;
    c->groups[i].comm = comm;
    c->groups[i].name = strndup_safe(name, namelen);
    if (!c->groups[i].name || vftr_u64map_put(&c->gmap, comm, (uint32_t)i) < 0)
        return -ENOMEM;
    c->ngroups++;
    return i;
}

static void warn(const struct vftr_vfdconv *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn(const struct vftr_vfdconv *c, const char *fmt, ...)
{
    va_list ap;

    if (!c->opts.warn)
        return;
    fprintf(c->opts.warn, "%s: warning: ", c->opts.prog ? c->opts.prog : "vfdconv");
    va_start(ap, fmt);
    vfprintf(c->opts.warn, fmt, ap);
    va_end(ap);
    fputc('\n', c->opts.warn);
}

/* ------------------------------------------------------------ clocks */

/* Rank-relative nanoseconds of raw ticks t (before alignment). */
static inline int64_t rel_ns(const struct rank *r, uint64_t t)
{
    int64_t d = (int64_t)(t - r->start_ticks);

    /* sums wrap (unsigned) rather than overflow: a damaged file's times
     * give wrong times, never undefined behaviour */
    if (r->tps == 1000000000)   /* capture's usual clock: ticks are ns */
        return (int64_t)((uint64_t)r->start_rel + (uint64_t)d);
    return (int64_t)((uint64_t)r->start_rel +
                     (uint64_t)(int64_t)((__int128)d * 1000000000 / (__int128)r->tps));
}

/* a as an int64_t, saturated (NaN: 0): clock fits of damaged files can
 * give any double, and converting one out of range is undefined */
static inline int64_t sat_i64(double a)
{
    if (!(a == a))
        return 0;
    if (a >= 9223372036854775807.0)
        return INT64_MAX;
    if (a <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)a;
}

static inline uint64_t align_ns(const struct rank *r, uint64_t t)
{
    if (!r->fitted) {
        int64_t a = (int64_t)((uint64_t)rel_ns(r, t) + (uint64_t)r->shift);

        return a <= 0 ? 0 : (uint64_t)a;
    }
    double x = (double)rel_ns(r, t);
    double a = x + r->fit.off0 + (x - r->fit.x0) * r->fit.slope + (double)r->shift;

    if (!(a > 0))
        return 0;                           /* negative, or NaN */
    return a >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(a + 0.5);
}

/* Fits each rank's clock to rank 0's from the CLOCK_OFFSETS entries, then
 * shifts everything so that the earliest start is 0. */
static void fit_clocks(struct vftr_vfdconv *c)
{
    long r0 = vftr_u64map_get(&c->rankmap, 0);
    int64_t min = INT64_MAX;

    for (size_t i = 0; i < c->nranks; i++) {
        struct rank *r = &c->ranks[i];
        double off[2], x[2];
        int n = 0;

        memset(&r->fit, 0, sizeof r->fit);
        if (c->opts.no_align || r0 < 0)
            continue;
        /* Ranks on rank 0's host that count the time-stamp counter (ticks
         * are not capture's nanoseconds) read the very same counter: at
         * local tick t rank 0's clock also reads t, so the offset is exactly
         * the difference of the two files' tick -> time mappings, free of
         * the ping-pong's +/- rtt/2.  It is used when the measurement
         * agrees within its round trip (else the counters are not one). */
        const struct rank *z = &c->ranks[r0];
        int same_counter = r->tps != 1000000000 && z->tps != 1000000000 &&
                           r->host[0] && strcmp(r->host, z->host) == 0;
        for (int p = 0; p < 2; p++) {
            if (!r->have_clock[p])
                continue;
            x[n] = (double)rel_ns(r, r->clock[p].ticks);
            off[n] = (double)rel_ns(z, r->clock[p].root_ticks) - x[n];
            if (same_counter) {
                double exact = (double)rel_ns(z, r->clock[p].ticks) - x[n];
                double rtt = (double)r->clock[p].rtt * 1e9 / (double)r->tps;

                if (fabs(exact - off[n]) <= rtt / 2 + 1000.0)
                    off[n] = exact;
            }
            n++;
        }
        if (n >= 1) {
            r->fit.off0 = off[0];
            r->fit.x0 = x[0];
        }
        if (n == 2 && x[1] > x[0])
            r->fit.slope = (off[1] - off[0]) / (x[1] - x[0]);
        r->fitted = r->fit.off0 != 0 || r->fit.slope != 0;
        for (int k = 0; k < n; k++)
            if (off[k] > c->stats.max_offset_ns || -off[k] > c->stats.max_offset_ns)
                c->stats.max_offset_ns = off[k] < 0 ? -off[k] : off[k];
    }
    for (size_t i = 0; i < c->nranks; i++) {
        struct rank *r = &c->ranks[i];
        double x = (double)r->start_rel;
        double a = x + r->fit.off0 + (x - r->fit.x0) * r->fit.slope;

        if (sat_i64(a) < min)
            min = sat_i64(a);
    }
    for (size_t i = 0; i < c->nranks; i++)
        c->ranks[i].shift = min == INT64_MAX ? 0 : min == INT64_MIN ? INT64_MAX : -min;
}

/* ------------------------------------------------------------ open */

static int add_thread(struct rank *r, uint32_t id, long *idx)
{
    long i;

    if (r->nthr && r->thr[r->last_thr].id == id) {   /* events come in chunks of one thread */
        *idx = (long)r->last_thr;
        return 0;
    }
    i = vftr_u64map_get(&r->thrmap, id);

    if (i >= 0) {
        *idx = i;
        r->last_thr = (size_t)i;
        return 0;
    }
    if (r->nthr >= VFTR_VFDCONV_MAX_THREADS)
        return -E2BIG;
    if (grow((void **)&r->thr, &r->cthr, r->nthr + 1, sizeof *r->thr) < 0)
        return -ENOMEM;
    i = (long)r->nthr;
    memset(&r->thr[i], 0, sizeof r->thr[i]);
    r->thr[i].id = id;
    r->thr[i].first = UINT64_MAX;
    r->thr[i].early = UINT64_MAX;
    if (vftr_u64map_put(&r->thrmap, id, (uint32_t)i) < 0)
        return -ENOMEM;
    r->nthr++;
    *idx = i;
    r->last_thr = (size_t)i;
    return 0;
}

static int add_omp_regions(struct vftr_vfdconv *c, struct rank *r, const uint8_t *p, size_t len,
                           uint32_t count)
{
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_omp_region_view v;
    int rc;

    vftr_vfd_cursor_init(&cur, p, len, count);
    while ((rc = vftr_vfd_next_omp_region(&cur, &v)) == 1) {
        char name[VFTR_VFD_OMP_NAME_MAX];
        size_t nlen = vftr_vfd_omp_region_name(&v, name, sizeof name);   /* capture's too */
        uint32_t scl = 0;
        long fi, si;

        if (v.file_len) {
            fi = intern_file(c, v.r.file, v.file_len);
            if (fi < 0)
                return (int)fi;
            si = intern_scl(c, c->files[fi].token, v.r.line);
            if (si < 0)
                return (int)si;
            scl = c->scls[si].token;
        }
        fi = intern_func(c, name, nlen, VFTR_VFDCONV_GROUP_OMP, scl);
        if (fi < 0)
            return (int)fi;
        if (grow((void **)&r->regs, &r->cregs, r->nregs + 1, sizeof *r->regs) < 0 ||
            vftr_u64map_put(&r->omap, v.r.id, (uint32_t)r->nregs) < 0)
            return -ENOMEM;
        r->regs[r->nregs].func = c->funcs[fi].token;
        r->regs[r->nregs].scl = scl;
        r->nregs++;
    }
    return rc < 0 ? -EBADMSG : 0;
}

/* An IO_FILES chunk of rank r: its ids mapped to the run's files (an
 * unknown interface counts as POSIX). */
static int add_io_files(struct vftr_vfdconv *c, struct rank *r, const uint8_t *p, size_t len,
                        uint32_t count)
{
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_io_file_view v;
    int rc;

    vftr_vfd_cursor_init(&cur, p, len, count);
    while ((rc = vftr_vfd_next_io_file(&cur, &v)) == 1) {
        uint32_t group = vftr_vfd_io_iface_name(v.f.iface) ? v.f.iface : VFTR_VFD_IO_POSIX;
        long fi = intern_iofile(c, v.f.name, v.name_len, group);

        if (fi < 0)
            return (int)fi;
        if (v.f.id == 0)
            continue;
        if (vftr_u64map_put(&r->iomap, v.f.id, (uint32_t)fi) < 0)
            return -ENOMEM;
    }
    return rc < 0 ? -EBADMSG : 0;
}

/* A COUNTERS chunk of rank r: each counter gets the token of its name
 * (a new one for a name not met before), r's id of it maps to that. */
static int add_counters(struct vftr_vfdconv *c, struct rank *r, const uint8_t *p, size_t len,
                        uint32_t count)
{
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_counter_view v;
    int rc;

    vftr_vfd_cursor_init(&cur, p, len, count);
    while ((rc = vftr_vfd_next_counter(&cur, &v)) == 1) {
        size_t k;

        if (v.c.id > VFTR_VFD_CTR_MAX)
            continue;   /* more than an event can carry: never in the events */
        for (k = 0; k < c->nctrs; k++)
            if (strlen(c->ctrs[k].name) == v.name_len &&
                memcmp(c->ctrs[k].name, v.c.name, v.name_len) == 0)
                break;
        if (k == c->nctrs) {
            struct vftr_vfdconv_counter *n = realloc(c->ctrs, (k + 1) * sizeof *n);

            if (n == NULL)
                return -ENOMEM;
            c->ctrs = n;
            n[k].token = (uint32_t)k + 1;
            n[k].name = strndup_safe(v.c.name, v.name_len);
            n[k].unit = strndup_safe(v.c.unit, v.unit_len);
            if (n[k].name == NULL || n[k].unit == NULL) {
                free(n[k].name);
                free(n[k].unit);
                return -ENOMEM;
            }
            c->nctrs++;
        }
        r->ctok[v.c.id - 1] = c->ctrs[k].token;
    }
    return rc;
}

/*
 * Every member of a communicator defines it; the first file to do so (in
 * the order the files were given) names it, and a later entry of that file
 * renames it (capture writes one when the program calls MPI_Comm_set_name:
 * the name a rank gives is its own, so one rank's counts).  World's members
 * come from the ranks, its name from the entries as any other's.
 */
static int add_comms(struct vftr_vfdconv *c, size_t file, const uint8_t *p, size_t len,
                     uint32_t count)
{
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_comm_view v;
    int rc;

    vftr_vfd_cursor_init(&cur, p, len, count);
    while ((rc = vftr_vfd_next_comm(&cur, &v)) == 1) {
        long g = vftr_u64map_get(&c->gmap, v.c.id);

        if (g >= 0) {
            struct vftr_vfdconv_group *gr = &c->groups[g];

            if (gr->named_by == 0)
                gr->named_by = file + 1;
            if (gr->named_by == file + 1 && v.name_len
                && (strlen(gr->name) != v.name_len
                    || memcmp(gr->name, v.c.name, v.name_len) != 0)) {
                char *name = strndup_safe(v.c.name, v.name_len);

                if (!name)
                    return -ENOMEM;
                free(gr->name);
                gr->name = name;
            }
            continue;
        }
        if (v.c.id == VFTR_VFD_COMM_WORLD)
            continue;           /* world is built from the ranks */
        g = group_of(c, v.c.id, v.name_len ? v.c.name : NULL, v.name_len);
        if (g < 0)
            return (int)g;
        c->groups[g].named_by = file + 1;
        c->groups[g].procs = calloc(v.c.size ? v.c.size : 1, sizeof(uint32_t));
        if (!c->groups[g].procs)
            return -ENOMEM;
        for (uint32_t k = 0; k < v.c.size; k++) {
            int32_t wr = vftr_vfd_comm_rank(&v.c, k);

            if (wr >= 0 && (uint32_t)wr < VFTR_VFDCONV_MAX_RANKS)
                c->groups[g].procs[c->groups[g].n++] = vftr_vfdconv_process((uint32_t)wr, 0);
        }
    }
    return rc < 0 ? -EBADMSG : 0;
}

static int add_clock(struct rank *r, const uint8_t *p, size_t len, uint32_t count)
{
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_clock_offset o;
    int rc;

    vftr_vfd_cursor_init(&cur, p, len, count);
    while ((rc = vftr_vfd_next_clock_offset(&cur, &o)) == 1) {
        if (o.phase > 1)
            continue;
        r->clock[o.phase] = o;
        r->have_clock[o.phase] = 1;
    }
    return rc < 0 ? -EBADMSG : 0;
}

static int note_comm(struct vftr_vfdconv *c, uint64_t comm)
{
    long g = group_of(c, comm, NULL, 0);

    if (g < 0)
        return (int)g;
    if (!c->groups[g].procs && (comm >> 62) == 1) {     /* MPI_COMM_SELF of a rank */
        c->groups[g].procs = malloc(sizeof(uint32_t));
        if (!c->groups[g].procs)
            return -ENOMEM;
        c->groups[g].procs[0] = vftr_vfdconv_process((uint32_t)(comm & 0xfffffu), 0);
        c->groups[g].n = 1;
    }
    return 0;
}

/* ------------------------------------------------------------ first pass
 *
 * The first pass is split so that files can be read in parallel (threads,
 * or processes of vfd2otf-mpi): scan_rank() reads one file into its struct
 * rank alone (threads, messages, collectives, clock offsets, the event
 * chunks) and notes in file order, as "actions", everything that touches
 * the shared numbering (functions, OpenMP regions, communicators,
 * collective operations) and every warning; merge_rank() then applies the
 * actions file after file in the order the files were given, so tokens and
 * warnings come out exactly as from one serial read. */

enum act_type { ACT_FUNC = 1, ACT_OMP, ACT_COMMS, ACT_COMM, ACT_COLLOP, ACT_WARN, ACT_IOFILES,
                ACT_COUNTERS, ACT_RMA };

struct act_head {               /* followed by len bytes */
    uint32_t type, len;
};

static int act_put(struct rank *r, uint32_t type, const void *a, size_t alen, const void *b,
                   size_t blen)
{
    struct act_head h = { type, (uint32_t)(alen + blen) };

    if (alen + blen > UINT32_MAX ||
        grow((void **)&r->acts, &r->cacts, r->nacts + sizeof h + alen + blen, 1) < 0)
        return -ENOMEM;
    memcpy(r->acts + r->nacts, &h, sizeof h);
    if (alen)
        memcpy(r->acts + r->nacts + sizeof h, a, alen);
    if (blen)
        memcpy(r->acts + r->nacts + sizeof h + alen, b, blen);
    r->nacts += sizeof h + alen + blen;
    return 0;
}

static int act_warn(struct rank *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int act_warn(struct rank *r, const char *fmt, ...)
{
    char text[VFTR_VFD_ERR_MAX + 256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    return act_put(r, ACT_WARN, text, strlen(text), NULL, 0);
}

/* A communicator / collective operation the rank uses: noted the first time
 * only (later uses cannot change the numbering). */
static int act_comm(struct rank *r, uint64_t comm)
{
    if (vftr_u64map_get(&r->comms_seen, comm) >= 0)
        return 0;
    if (vftr_u64map_put(&r->comms_seen, comm, 0) < 0)
        return -ENOMEM;
    return act_put(r, ACT_COMM, &comm, sizeof comm, NULL, 0);
}

/* One extended event of thread ti (MPI records are kept for matching;
 * file I/O records are counted, their starts noted as sends' are). */
static int scan_ext(struct rank *r, long ti, const struct vftr_vfd_scan_event *ev, uint64_t off,
                    uint64_t *mpimin)
{
    struct thr *t = &r->thr[ti];

    switch (ev->kind) {
    case VFTR_VFD_MPI_SEND:
    case VFTR_VFD_MPI_RECV: {
        struct vftr_vfd_mpi_msg m;

        if (vftr_vfd_mpi_msg_decode(ev->data, ev->id, ev->time, &m) < 0)
            return act_warn(r, "%s: offset %" PRIu64 ": malformed MPI record of kind %" PRIu32
                            " skipped", r->path, off, ev->kind);
        if (m.start < *mpimin)
            *mpimin = m.start;
        if (ev->kind == VFTR_VFD_MPI_SEND) {
            t->nsends++;
            if (m.start < t->early)
                t->early = m.start;
        } else {
            t->nrecvs++;
        }
        return act_comm(r, m.comm);
    }
    case VFTR_VFD_MPI_COLL: {
        struct vftr_vfd_mpi_coll m;

        if (vftr_vfd_mpi_coll_decode(ev->data, ev->id, ev->time, &m) < 0)
            return act_warn(r, "%s: offset %" PRIu64 ": malformed MPI record of kind %" PRIu32
                            " skipped", r->path, off, ev->kind);
        t->ncolls++;
        if (m.start < t->early)
            t->early = m.start;
        if (m.start < *mpimin)
            *mpimin = m.start;
        if (m.op > 0 && m.op < VFTR_VFD_COLL_COUNT && !r->op_seen[m.op]) {
            uint32_t op = m.op;

            r->op_seen[m.op] = 1;
            if (act_put(r, ACT_COLLOP, &op, sizeof op, NULL, 0) < 0)
                return -ENOMEM;
        }
        return act_comm(r, m.comm);
    }
    case VFTR_VFD_MPI_RMA: {
        struct vftr_vfd_mpi_rma a;

        if (vftr_vfd_mpi_rma_decode(ev->data, ev->id, ev->time, &a) < 0)
            return act_warn(r, "%s: offset %" PRIu64 ": malformed MPI record of kind %" PRIu32
                            " skipped", r->path, off, ev->kind);
        if (!r->rma_seen) {
            r->rma_seen = 1;
            if (act_put(r, ACT_RMA, NULL, 0, NULL, 0) < 0)
                return -ENOMEM;
        }
        return act_comm(r, a.comm);
    }
    case VFTR_VFD_IO: {
        struct vftr_vfd_io io;

        if (vftr_vfd_io_decode(ev->data, ev->id, ev->time, &io) < 0)
            return act_warn(r, "%s: offset %" PRIu64 ": malformed file I/O record skipped",
                            r->path, off);
        t->nios++;
        if (io.start < t->early)
            t->early = io.start;
        if (io.start < *mpimin)
            *mpimin = io.start;
        return 0;
    }
    default:
        return 0;
    }
}

/* One events chunk, handed over whole by the reader (its CRC held): the
 * records are skimmed, not decoded one by one; only extended ones (MPI) are
 * looked at.  *stop = 1 when a record does not decode: the file's data ends
 * there, as the general reader would end it. */
static int scan_events(struct rank *r, const struct vftr_vfd_record *rec, int *stop)
{
    const uint8_t *payload = rec->u.unknown.payload;
    uint32_t count = rec->u.unknown.count;
    struct vftr_vfd_scan_chunk ch, one;
    struct vftr_vfd_scan_event ev;
    uint64_t first, mpimin = UINT64_MAX;
    long ti;
    int rc, first_ext;

    vftr_vfd_scan_payload(&ch, payload, rec->u.unknown.length, count, rec->u.unknown.time,
                          rec->thread);
    if (count == 0)
        goto trailing;
    one = ch;
    one.left = 1;
    first_ext = vftr_vfd_scan_next_ext(&one, &ev);   /* 1: record 0 is extended */
    if (first_ext < 0)
        goto bad;
    first = one.time;
    if ((rc = add_thread(r, rec->thread, &ti)) < 0)
        return rc;
    if (grow((void **)&r->chunks, &r->cchunks, r->nchunks + 1, sizeof *r->chunks) < 0)
        return -ENOMEM;
    if (first_ext == 1 && (rc = scan_ext(r, ti, &ev, rec->offset, &mpimin)) < 0)
        return rc;
    ch.p = one.p;
    ch.time = one.time;
    ch.left--;
    while ((rc = vftr_vfd_scan_next_ext(&ch, &ev)) == 1)
        if ((rc = scan_ext(r, ti, &ev, rec->offset, &mpimin)) < 0)
            return rc;
    {
        struct thr *t = &r->thr[ti];
        uint32_t n = count - ch.left;

        r->chunks[r->nchunks++] = (struct evchunk){ rec->offset, n, (uint32_t)ti, mpimin };
        t->events += n;
        r->events += n;
        if (t->first == UINT64_MAX)
            t->first = first;
        t->last = ch.time;
    }
    if (rc < 0)
        goto bad;
trailing:
    if (ch.p != ch.end) {
        *stop = 1;
        return act_warn(r, "%s: offset %" PRIu64 ": events chunk at offset %" PRIu64
                        ": %zu bytes after its %" PRIu32 " records", r->path,
                        rec->offset + VFTR_VFD_CHUNK_HEADER_SIZE + (uint64_t)(ch.p - payload),
                        rec->offset, (size_t)(ch.end - ch.p), count);
    }
    return 0;
bad:
    *stop = 1;
    return act_warn(r, "%s: offset %" PRIu64 ": events chunk at offset %" PRIu64 ", record %"
                    PRIu32 " of %" PRIu32 ": the record does not decode", r->path,
                    rec->offset + VFTR_VFD_CHUNK_HEADER_SIZE + (uint64_t)(ch.p - payload),
                    rec->offset, count - ch.left + 1, count);
}

/* Group of a function (MPI functions are flagged by capture) in the low
 * byte, and VFTR_VFDCONV_FUNC_PRECISE shifted by 8. */
static uint32_t func_group(uint32_t flags)
{
    return ((flags & VFTR_VFD_FUNC_MPI)       ? VFTR_VFDCONV_GROUP_MPI
            : (flags & VFTR_VFD_FUNC_SAMPLED) ? VFTR_VFDCONV_GROUP_SAMPLED
                                              : VFTR_VFDCONV_GROUP_USER) |
           ((flags & VFTR_VFD_FUNC_PRECISE) ? VFTR_VFDCONV_FUNC_PRECISE << 8 : 0);
}

/* Reads one file's records (the reader is positioned at the first chunk). */
static int scan_file(struct rank *r, struct vftr_vfd_reader *rd, char *err, size_t errlen)
{
    struct vftr_vfd_record rec;
    int rc, stop = 0;

    vftr_vfd_reader_whole_events(rd, 1);
    while (!stop) {
        unsigned before = vftr_vfd_reader_warnings(rd);

        rc = vftr_vfd_reader_next(rd, &rec);
        /* a truncated end or a skipped corrupt chunk: say where */
        if (vftr_vfd_reader_warnings(rd) != before && vftr_vfd_reader_warning(rd) &&
            act_warn(r, "%s", vftr_vfd_reader_warning(rd)) < 0)
            rc = -ENOMEM;
        if (rc == 0)
            break;
        if (rc == -ENOMEM)
            return -ENOMEM;
        if (rc < 0) {
            /* a corrupt chunk nothing follows: the data ends here */
            rc = act_warn(r, "%s", vftr_vfd_reader_error(rd) ? vftr_vfd_reader_error(rd)
                                                               : r->path);
            if (rc < 0)
                return rc;
            break;
        }
        switch (rec.type) {
        case VFTR_VFD_REC_FUNCTION: {
            uint32_t a[2] = { rec.u.function.id, func_group(rec.u.function.flags) };

            rc = act_put(r, ACT_FUNC, a, sizeof a, rec.u.function.name,
                         strlen(rec.u.function.name));
            break;
        }
        case VFTR_VFD_REC_THREAD: {
            long ti;
            rc = add_thread(r, rec.u.thread.id, &ti);
            break;
        }
        case VFTR_VFD_REC_UNKNOWN: {
            const uint8_t *p = rec.u.unknown.payload;
            size_t len = rec.u.unknown.length;
            uint32_t n = rec.u.unknown.count;

            switch (rec.u.unknown.kind) {
            case VFTR_VFD_CHUNK_EVENTS: rc = scan_events(r, &rec, &stop); break;
            case VFTR_VFD_CHUNK_COUNTERS: {
                uint64_t a[2] = { rec.offset, (uint64_t)n << 16 | rec.u.unknown.kind };

                rc = act_put(r, ACT_COUNTERS, a, sizeof a, p, len);
                break;
            }
            case VFTR_VFD_CHUNK_OMP_REGIONS:
            case VFTR_VFD_CHUNK_MPI_COMMS:
            case VFTR_VFD_CHUNK_IO_FILES: {
                uint64_t a[2] = { rec.offset, (uint64_t)n << 16 | rec.u.unknown.kind };
                int type = rec.u.unknown.kind == VFTR_VFD_CHUNK_MPI_COMMS ? ACT_COMMS
                           : rec.u.unknown.kind == VFTR_VFD_CHUNK_IO_FILES ? ACT_IOFILES
                                                                           : ACT_OMP;

                rc = act_put(r, (uint32_t)type, a, sizeof a, p, len);
                break;
            }
            case VFTR_VFD_CHUNK_CLOCK_OFFSETS: rc = add_clock(r, p, len, n); break;
            case VFTR_VFD_CHUNK_RUN_ID:
                rc = vftr_vfd_decode_run_id(p, len, r->run_id);
                r->have_run_id = rc == 0;
                break;
            default: rc = 0; break;
            }
            if (rc == -EBADMSG)
                rc = act_warn(r, "%s: offset %" PRIu64 ": malformed chunk of kind %u skipped",
                              r->path, rec.offset, (unsigned)rec.u.unknown.kind);
            break;
        }
        default:
            break;
        }
        if (rc < 0) {
            set_err(err, errlen, "%s: offset %" PRIu64 ": %s", r->path, rec.offset,
                    rc == -E2BIG ? "too many threads" : strerror(-rc));
            return rc;
        }
    }
    return 0;
}

/* Opens and reads file path into r (which it owns from now on).  Touches
 * nothing but r: files may be scanned in parallel.  A failure is kept in
 * r->scan_rc / r->scan_err, to be reported in file order by the merge. */
static void scan_rank(struct rank *r, const char *path, size_t nfiles)
{
    char msg[VFTR_VFD_ERR_MAX + 256] = "";
    struct vftr_vfd_reader *rd;
    const struct vftr_vfd_info *info;
    int rc;

    r->path = strdup(path);
    if (!r->path) {
        r->scan_rc = -ENOMEM;
        return;
    }
    rd = vftr_vfd_reader_open_msg(path, msg, sizeof msg);
    if (!rd) {
        rc = errno ? -errno : -EBADMSG;
        goto fail;
    }
    info = vftr_vfd_reader_info(rd);
    r->rank = info->rank < 0 ? (nfiles == 1 ? 0 : -1) : info->rank;
    r->size = info->size;
    r->tps = info->ticks_per_second ? info->ticks_per_second : 1000000000;
    r->sample_ticks = info->sample_ticks;
    r->start_ticks = info->start_ticks;
    r->start_ns = info->start_ns;
    r->complete = info->complete;
    r->capped = info->capped;
    r->events_lost = info->events_lost;
    r->bytes = info->bytes;
    memcpy(r->host, info->host, sizeof r->host);
    memcpy(r->run_id, info->run_id, 16);
    if (r->rank < 0 || (uint32_t)r->rank >= VFTR_VFDCONV_MAX_RANKS) {
        snprintf(msg, sizeof msg, "%s: offset 0: the file names no MPI rank (rank %" PRId32
                 "); several files must come from one MPI run", path, info->rank);
        vftr_vfd_reader_close(rd);
        rc = -EINVAL;
        goto fail;
    }
    rc = scan_file(r, rd, msg, sizeof msg);
    vftr_vfd_reader_close(rd);
    vftr_u64map_release(&r->comms_seen);
    if (rc == 0)
        return;
fail:
    r->scan_rc = rc;
    r->scan_err = strdup(msg[0] ? msg : strerror(-rc));
}

/* Applies r's actions to the shared numbering (see above), then reports
 * r's scan failure if it had one. */
static int merge_rank(struct vftr_vfdconv *c, struct rank *r, char *err, size_t errlen)
{
    int rc = 0;

    /* The actions are this process's own, or another's from the exchange
     * of a shared open: the latter are data, so every length is checked
     * against what is there and what the action needs. */
    static const uint32_t need[] = { [ACT_FUNC] = 2 * sizeof(uint32_t),
                                     [ACT_OMP] = 2 * sizeof(uint64_t),
                                     [ACT_COMMS] = 2 * sizeof(uint64_t),
                                     [ACT_COMM] = sizeof(uint64_t),
                                     [ACT_COLLOP] = sizeof(uint32_t), [ACT_WARN] = 0,
                                     [ACT_COUNTERS] = 2 * sizeof(uint64_t), [ACT_RMA] = 0 };

    for (size_t at = 0; at < r->nacts && rc == 0;) {
        struct act_head h;
        const uint8_t *p;

        if (r->nacts - at < sizeof h) {
            rc = -EBADMSG;
            break;
        }
        memcpy(&h, r->acts + at, sizeof h);
        p = r->acts + at + sizeof h;
        if (h.len > r->nacts - at - sizeof h ||
            (h.type < sizeof need / sizeof need[0] && h.len < need[h.type])) {
            rc = -EBADMSG;
            break;
        }
        at += sizeof h + h.len;
        switch (h.type) {
        case ACT_FUNC: {
            uint32_t a[2];
            long fi;

            memcpy(a, p, sizeof a);
            fi = intern_func(c, (const char *)p + sizeof a, h.len - sizeof a, a[1] & 0xff, 0);
            if (fi >= 0)
                c->funcs[fi].flags |= a[1] >> 8;   /* precise on any rank */
            rc = fi < 0 ? (int)fi : vftr_u64map_put(&r->fmap, a[0], (uint32_t)fi);
            break;
        }
        case ACT_OMP:
        case ACT_COMMS:
        case ACT_IOFILES: {
            uint64_t a[2];

            memcpy(a, p, sizeof a);
            rc = h.type == ACT_OMP
                     ? add_omp_regions(c, r, p + sizeof a, h.len - sizeof a, (uint32_t)(a[1] >> 16))
                 : h.type == ACT_IOFILES
                     ? add_io_files(c, r, p + sizeof a, h.len - sizeof a, (uint32_t)(a[1] >> 16))
                     : add_comms(c, r->file, p + sizeof a, h.len - sizeof a,
                                 (uint32_t)(a[1] >> 16));
            if (rc == -EBADMSG) {
                warn(c, "%s: offset %" PRIu64 ": malformed chunk of kind %u skipped", r->path,
                     a[0], (unsigned)(a[1] & 0xffff));
                rc = 0;
            }
            break;
        }
        case ACT_COMM: {
            uint64_t comm;

            memcpy(&comm, p, sizeof comm);
            rc = note_comm(c, comm);
            break;
        }
        case ACT_COLLOP: {
            uint32_t op;

            memcpy(&op, p, sizeof op);
            if (op < VFTR_VFD_COLL_COUNT && !c->collop_used[op]) {
                c->collop_used[op] = 1;
                c->collops[c->ncollops++] = op;
            }
            break;
        }
        case ACT_WARN:
            warn(c, "%.*s", (int)h.len, (const char *)p);
            break;
        case ACT_RMA:
            c->has_rma = 1;
            break;
        case ACT_COUNTERS: {
            uint64_t a[2];

            memcpy(a, p, sizeof a);
            rc = add_counters(c, r, p + sizeof a, h.len - sizeof a, (uint32_t)(a[1] >> 16));
            if (rc == -EBADMSG) {
                warn(c, "%s: offset %" PRIu64 ": malformed chunk of kind %u skipped", r->path,
                     a[0], (unsigned)(a[1] & 0xffff));
                rc = 0;
            }
            break;
        }
        default:
            break;
        }
    }
    free(r->acts);
    r->acts = NULL;
    r->nacts = r->cacts = 0;
    if (rc < 0) {
        set_err(err, errlen, "%s: %s", r->path, rc == -EBADMSG
                ? "the exchanged first pass holds a malformed record" : strerror(-rc));
        return rc;
    }
    if (r->scan_rc < 0) {
        set_err(err, errlen, "%s", r->scan_err && r->scan_err[0] ? r->scan_err
                                                                  : strerror(-r->scan_rc));
        return r->scan_rc;
    }
    return 0;
}

/* Groups r's events chunks by thread, each thread's in file order (a
 * stable counting sort): thread t's are chunks[thr[t].c0 .. + thr[t].nc).
 * Then each chunk's mpimin becomes the earliest MPI start of it and the
 * thread's later chunks, which is what a reader of the thread's records in
 * start order needs to know that nothing it has not read yet starts
 * earlier.  Every process of a shared open does this on the same list, so
 * a chunk's index means the same chunk to all.  Returns 0, -EBADMSG (a
 * chunk of no known thread: exchanged data that does not fit), -ENOMEM. */
static int index_chunks(struct rank *r)
{
    struct evchunk *v;

    for (size_t t = 0; t < r->nthr; t++)
        r->thr[t].c0 = r->thr[t].nc = 0;
    if (r->nchunks == 0)
        return 0;
    for (size_t k = 0; k < r->nchunks; k++) {
        if (r->chunks[k].thr >= r->nthr)
            return -EBADMSG;
        r->thr[r->chunks[k].thr].nc++;
    }
    if (!(v = malloc(r->nchunks * sizeof *v)))
        return -ENOMEM;
    for (size_t t = 0, at = 0; t < r->nthr; t++) {
        r->thr[t].c0 = at;
        at += r->thr[t].nc;
        r->thr[t].nc = 0;
    }
    for (size_t k = 0; k < r->nchunks; k++) {
        struct thr *th = &r->thr[r->chunks[k].thr];

        v[th->c0 + th->nc++] = r->chunks[k];
    }
    free(r->chunks);
    r->chunks = v;
    r->cchunks = r->nchunks;
    for (size_t t = 0; t < r->nthr; t++) {
        struct evchunk *k = &r->chunks[r->thr[t].c0];

        for (size_t i = r->thr[t].nc; i-- > 1;)
            if (k[i].mpimin < k[i - 1].mpimin)
                k[i - 1].mpimin = k[i].mpimin;
    }
    return 0;
}

struct scan_job {
    struct rank *ranks;
    const char *const *paths;
    size_t n;
    const unsigned char *skip;  /* files another process reads, or NULL */
    atomic_size_t next;
};

static void *scan_worker(void *arg)
{
    struct scan_job *j = arg;

    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);

        if (i >= j->n)
            return NULL;
        if (!j->skip || !j->skip[i])
            scan_rank(&j->ranks[i], j->paths[i], j->n);
    }
}

/* Scans the files in up to `jobs` threads (each file in one). */
static void scan_all(struct rank *ranks, const char *const *paths, size_t n,
                     const unsigned char *skip, unsigned jobs)
{
    struct scan_job j = { ranks, paths, n, skip, 0 };
    pthread_t th[64];
    unsigned started = 0;

    if (jobs > 64)
        jobs = 64;
    if (jobs > n)
        jobs = (unsigned)n;
    for (unsigned k = 1; k < jobs; k++)
        if (pthread_create(&th[started], NULL, scan_worker, &j) == 0)
            started++;
    scan_worker(&j);
    for (unsigned k = 0; k < started; k++)
        pthread_join(th[k], NULL);
}

static int cmp_rank(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;

    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* ------------------------------------------------------------ matching
 *
 * Sends and receives are matched per channel (communicator, sender,
 * receiver, tag) in posting order: on each side the channel's records in
 * the order (aligned start, aligned completion, thread, order within the
 * thread), the n-th send with the n-th receive.  One streaming pass over
 * the threads' MPI records does it (the skim reads them chunk by chunk,
 * each thread's chunks on their own, see index_chunks): per thread a heap
 * puts the records in that order, and a record leaves the heap only when
 * no chunk of the thread still unread can hold an earlier start (each
 * chunk's mpimin is the earliest start of it and the thread's chunks after
 * it); the threads are merged by that order, then rank; per channel a FIFO
 * holds the records of one side that wait for the other.  Memory: per
 * thread the records of the span between an MPI call's start and its
 * record, and the messages in flight, not the messages of the trace, nor
 * (as a heap per file would) the records of the other threads written
 * between a thread's chunks.  Of the result only exceptions are kept
 * (struct thr.exc). */

static uint64_t align_min(const struct rank *r, uint64_t raw)
{
    return raw == UINT64_MAX ? UINT64_MAX : align_ns(r, raw);
}

struct pmsg {                   /* an MPI record in the matcher */
    uint64_t astart, atime, comm;
    int32_t peer, tag;
    uint32_t rank, thread;      /* rank index, thread index */
    uint32_t seq;               /* n-th send / n-th receive of the thread */
    uint32_t send;
};

static int pmsg_less(const struct pmsg *x, const struct pmsg *y)
{
    if (x->astart != y->astart) return x->astart < y->astart;
    if (x->atime != y->atime) return x->atime < y->atime;
    if (x->thread != y->thread) return x->thread < y->thread;
    if (x->send != y->send) return x->send > y->send;
    return x->seq < y->seq;
}

struct mraw;

struct mfile {                  /* one thread's MPI records in the matcher */
    struct vftr_vfdconv *c;
    struct rank *r;
    uint32_t ri, ti;            /* rank index, thread index */
    struct vftr_vfd_scan *sc;   /* the rank's */
    struct mraw **raw;          /* one chunk's records (one buffer for all threads) */
    size_t *rawcap;
    size_t ichunk, end;         /* the thread's next chunk, the end of its chunks */
    struct pmsg *h;             /* heap */
    size_t n, cap;
    uint32_t seq[2];            /* sends, receives seen */
};

DEFINE_HEAP(pheap, struct pmsg, pmsg_less)

/* An MPI message record as read from a chunk, before alignment. */
struct mraw {
    uint64_t start, time, comm;
    int32_t peer, tag;
    uint32_t thread;            /* thread index in its rank */
    uint32_t send;
};

/* Appends the MPI message records of events chunk k of r (read through sc)
 * to *v.  0, -EBADMSG, -ENOMEM. */
static int chunk_mpi(struct vftr_vfd_scan *sc, const struct rank *r, size_t k, struct mraw **v,
                     size_t *n, size_t *cap)
{
    const struct evchunk *ck = &r->chunks[k];
    struct vftr_vfd_scan_chunk ch;
    struct vftr_vfd_scan_event ev;
    const uint8_t *payload;
    long ti;
    int rc;

    if (vftr_vfd_scan_chunk(sc, ck->off, ck->n, &ch) < 0)
        return -EBADMSG;
    payload = ch.p;
    ti = vftr_u64map_get(&r->thrmap, ch.thread);
    while ((rc = vftr_vfd_scan_next_ext(&ch, &ev)) == 1) {
        struct vftr_vfd_mpi_msg m;

        if ((ev.kind != VFTR_VFD_MPI_SEND && ev.kind != VFTR_VFD_MPI_RECV) || ti < 0 ||
            vftr_vfd_mpi_msg_decode(ev.data, ev.id, ev.time, &m) < 0)
            continue;
        if (grow((void **)v, cap, *n + 1, sizeof **v) < 0)
            return -ENOMEM;
        (*v)[(*n)++] = (struct mraw){ m.start, ev.time, m.comm, m.peer, m.tag, (uint32_t)ti,
                                      ev.kind == VFTR_VFD_MPI_SEND };
    }
    {   /* read whole: its pages go (the threads' chunks are read in no
         * file order: vftr_vfd_scan_forget) */
        uint64_t mark = ck->off;

        vftr_vfd_scan_forget(sc, &mark, ck->off + VFTR_VFD_CHUNK_HEADER_SIZE +
                                            (uint64_t)(ch.end - payload), 1);
    }
    return rc < 0 ? -EBADMSG : 0;
}

/* Reads the thread's chunks until its heap top can leave (or its chunks
 * end), through the rank's scanner. */
static int mfile_fill(struct mfile *f)
{
    const struct rank *r = f->r;

    while (f->ichunk < f->end &&
           (f->n == 0 || !(f->h[0].astart < align_min(r, r->chunks[f->ichunk].mpimin)))) {
        size_t k = f->ichunk++, n = 0;
        struct mraw *v;
        int rc;

        if (r->chunks[k].mpimin == UINT64_MAX) {        /* no MPI record here or later */
            f->ichunk = f->end;
            break;
        }
        rc = chunk_mpi(f->sc, r, k, f->raw, &n, f->rawcap);
        v = *f->raw;
        for (size_t i = 0; i < n && rc == 0; i++) {
            const struct mraw *m = &v[i];
            struct pmsg x;

            if (m->thread != f->ti) {      /* not the chunk the first pass saw */
                rc = -EBADMSG;
                break;
            }
            x.send = m->send;
            x.astart = align_ns(r, m->start);
            x.atime = align_ns(r, m->time);
            x.comm = m->comm;
            x.peer = m->peer;
            x.tag = m->tag;
            x.rank = f->ri;
            x.thread = m->thread;
            x.seq = f->seq[!x.send]++;
            if (grow((void **)&f->h, &f->cap, f->n + 1, sizeof *f->h) < 0)
                rc = -ENOMEM;
            else
                pheap_push(f->h, f->n++, x);
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

struct chan {                   /* a channel's records waiting for the other side */
    uint64_t comm;
    int32_t from, to, tag;
    uint32_t used;
    struct pmsg *q;             /* ring; all of one side */
    size_t head, len, cap;
};

struct chtab {
    struct chan *v;
    size_t cap, n;              /* cap: 0 or a power of two */
};

static uint64_t chan_hash(uint64_t comm, int32_t from, int32_t to, int32_t tag)
{
    uint64_t h = comm * 0x9e3779b97f4a7c15ull;

    h ^= ((uint64_t)(uint32_t)from << 32 | (uint32_t)to) * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t)(uint32_t)tag * 0x165667b19e3779f9ull;
    return h ^ (h >> 29);
}

static struct chan *chan_get(struct chtab *t, uint64_t comm, int32_t from, int32_t to,
                             int32_t tag)
{
    size_t i;

    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct chan *v = calloc(cap, sizeof *v);

        if (!v)
            return NULL;
        for (size_t k = 0; k < t->cap; k++) {
            struct chan *x = &t->v[k];

            if (!x->used)
                continue;
            i = chan_hash(x->comm, x->from, x->to, x->tag) & (cap - 1);
            while (v[i].used)
                i = (i + 1) & (cap - 1);
            v[i] = *x;
        }
        free(t->v);
        t->v = v;
        t->cap = cap;
    }
    i = chan_hash(comm, from, to, tag) & (t->cap - 1);
    while (t->v[i].used) {
        struct chan *x = &t->v[i];

        if (x->comm == comm && x->from == from && x->to == to && x->tag == tag)
            return x;
        i = (i + 1) & (t->cap - 1);
    }
    t->v[i] = (struct chan){ comm, from, to, tag, 1, NULL, 0, 0, 0 };
    t->n++;
    return &t->v[i];
}

/* Notes that the matched peer of record x is thread token tok (an
 * exception only if it is not what an unmatched record gets). */
static int note_peer(struct vftr_vfdconv *c, const struct pmsg *x, uint32_t tok)
{
    if (tok == vftr_vfdconv_process((uint32_t)x->peer, 0))
        return 0;
    return vftr_u64map_put(&c->ranks[x->rank].thr[x->thread].exc,
                           (uint64_t)!x->send << 32 | x->seq, tok);
}

static int match_one(struct vftr_vfdconv *c, struct chtab *tab, const struct pmsg *x)
{
    int32_t self = c->ranks[x->rank].rank;
    struct chan *ch = x->send ? chan_get(tab, x->comm, self, x->peer, x->tag)
                              : chan_get(tab, x->comm, x->peer, self, x->tag);

    if (!ch)
        return -ENOMEM;
    if (ch->len && ch->q[ch->head].send != x->send) {
        const struct pmsg *y = &ch->q[ch->head];
        const struct pmsg *a = x->send ? x : y, *b = x->send ? y : x;
        int rc = note_peer(c, a, c->ranks[b->rank].thr[b->thread].token);

        if (rc == 0)
            rc = note_peer(c, b, c->ranks[a->rank].thr[a->thread].token);
        if (rc < 0)
            return rc;
        if (b->atime < a->astart)
            c->stats.recv_before_send++;
        c->stats.matched++;
        ch->head = (ch->head + 1) & (ch->cap - 1);
        ch->len--;
        return 0;
    }
    if (ch->len == ch->cap &&
        ring_grow((void **)&ch->q, &ch->head, ch->len, &ch->cap, sizeof *ch->q, 4) < 0)
        return -ENOMEM;
    ch->q[(ch->head + ch->len++) & (ch->cap - 1)] = *x;
    return 0;
}

static int mf_less(const struct mfile *a, const struct mfile *b)
{
    return pmsg_less(&a->h[0], &b->h[0]) ||
           (!pmsg_less(&b->h[0], &a->h[0]) && a->ri < b->ri);
}

static int mf_less_p(struct mfile *const *a, struct mfile *const *b)
{
    return mf_less(*a, *b);
}

DEFINE_HEAP(mfheap, struct mfile *, mf_less_p)

/* A growing byte buffer (bad: out of memory, the rest ignored). */
struct sbuf {
    uint8_t *p;
    size_t n, cap;
    int bad;
};

static void sput(struct sbuf *b, const void *x, size_t len)
{
    if (b->bad || grow((void **)&b->p, &b->cap, b->n + len, 1) < 0) {
        b->bad = 1;
        return;
    }
    if (len)
        memcpy(b->p + b->n, x, len);
    b->n += len;
}

static void sput64(struct sbuf *b, uint64_t v) { sput(b, &v, sizeof v); }

/*
 * Spread matching (a shared open with owner/alltoall, see vfdconv.h): the
 * n-th send of a channel pairs with its n-th receive whatever the order of
 * the two sides among each other, so a channel can be matched by the one
 * process that reads its receiving rank's file, from that rank's receives
 * and the sending rank's sends, each side in its own order.  Each process
 * merges only its own files' records (the order above restricted to
 * them); a send to a rank another process reads goes into `out` for that
 * process, everything else is matched here.  Then one alltoall brings
 * every process the sends addressed to its ranks, in their sender's order,
 * and they are matched against the receives queued meanwhile.  So no
 * process reads or orders another's records, and each pair is matched (and
 * counted, and its exceptions noted) by exactly one process.
 */
struct spread {
    const struct vftr_vfdconv_share *sh;
    int me, nprocs;
    struct spout {              /* per process: the sends it matches (spread_put) */
        struct sbuf b;
        uint64_t n, astart;
        uint32_t seq;
    } *out;
    const void **ob;            /* the alltoall's arguments */
    size_t *ol;
    /* rounds: the sends of starts up to bound[k] go in the k-th alltoall */
    size_t nrounds;
    uint64_t lo, step;
};

/* Sends per round, about: what a process holds of them (its sends to the
 * others and its receives waiting for theirs) stays near this, plus the
 * messages in flight across a round's end, whatever the trace's length. */
#define SPREAD_ROUND (1u << 18)

/* The rounds of spread matching, the same in every process (from the
 * first pass, which all share): slices of equal length of the time from
 * the earliest MPI record's start to the latest event, about SPREAD_ROUND
 * sends each, and at least two (one more alltoall: a message across a
 * round's end is the case to get right, and so every run with messages
 * goes through it); the last takes whatever starts later. */
static void spread_rounds(const struct vftr_vfdconv *c, struct spread *sp)
{
    uint64_t lo = UINT64_MAX, hi = 0, sends = 0;

    for (size_t k = 0; k < c->nranks; k++) {
        const struct rank *r = &c->ranks[k];

        for (size_t t = 0; t < r->nthr; t++) {
            const struct thr *th = &r->thr[t];

            sends += th->nsends;
            if (th->nc && r->chunks[th->c0].mpimin != UINT64_MAX &&
                align_min(r, r->chunks[th->c0].mpimin) < lo)
                lo = align_min(r, r->chunks[th->c0].mpimin);
            if (th->first != UINT64_MAX && align_ns(r, th->last) > hi)
                hi = align_ns(r, th->last);
        }
    }
    sp->nrounds = (size_t)(sends / SPREAD_ROUND) + 2;
    if (sp->nrounds > 4096)
        sp->nrounds = 4096;
    sp->lo = lo;
    sp->step = lo < hi ? (hi - lo) / sp->nrounds + 1 : 1;
}

/* The end of round k: the starts below it go in it. */
static uint64_t spread_bound(const struct spread *sp, size_t k)
{
    if (k + 1 >= sp->nrounds || sp->lo == UINT64_MAX)
        return UINT64_MAX;
    if ((uint64_t)(k + 1) > (UINT64_MAX - sp->lo) / sp->step)
        return UINT64_MAX;
    return sp->lo + (uint64_t)(k + 1) * sp->step;
}

/*
 * A send on its way to the process that matches it, in a few bytes (there
 * are as many as messages between the processes' files): comm, peer, tag,
 * rank index, thread index as varints, the start and the sequence number
 * as the zigzag difference to the stream's previous send (the sends come in
 * order of their start).  A stream is the count of its sends, then them.
 * The completion time is not needed: a send's is never compared.
 */
static uint64_t zz(int64_t d) { return (uint64_t)d << 1 ^ (uint64_t)(d >> 63); }
static int64_t unzz(uint64_t z) { return (int64_t)(z >> 1) ^ -(int64_t)(z & 1); }

static void spread_put(struct spout *o, const struct pmsg *x)
{
    uint8_t t[7 * 10], *p = t;

    p = vftr_vfd_put_varint(p, x->comm);
    p = vftr_vfd_put_varint(p, (uint32_t)x->peer);
    p = vftr_vfd_put_varint(p, zz(x->tag));
    p = vftr_vfd_put_varint(p, x->rank);
    p = vftr_vfd_put_varint(p, x->thread);
    p = vftr_vfd_put_varint(p, zz((int64_t)(x->astart - o->astart)));
    p = vftr_vfd_put_varint(p, zz((int64_t)x->seq - (int64_t)o->seq));
    o->astart = x->astart;
    o->seq = x->seq;
    o->n++;
    sput(&o->b, t, (size_t)(p - t));
}

static int spread_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;

    for (unsigned sh = 0; sh < 64 && *p < end; sh += 7) {
        uint8_t c = *(*p)++;

        x |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -EBADMSG;
}

/* The next send of a stream (base: the previous one's start and seq). */
static int spread_get(const uint8_t **p, const uint8_t *end, struct pmsg *x, struct pmsg *base)
{
    uint64_t v[7];

    for (int i = 0; i < 7; i++)
        if (spread_varint(p, end, &v[i]) < 0)
            return -EBADMSG;
    if (v[1] > INT32_MAX || v[2] > UINT32_MAX || v[3] > UINT32_MAX || v[4] > UINT32_MAX)
        return -EBADMSG;
    *x = (struct pmsg){ .send = 1, .comm = v[0], .peer = (int32_t)v[1],
                        .tag = (int32_t)unzz(v[2]), .rank = (uint32_t)v[3],
                        .thread = (uint32_t)v[4] };
    x->astart = x->atime = base->astart + (uint64_t)unzz(v[5]);
    x->seq = (uint32_t)((int64_t)base->seq + unzz(v[6]));
    *base = *x;
    return 0;
}

/* The process that matches a send to world rank `peer`: the one that reads
 * its file (this one if no file holds it: it stays unmatched here). */
static int send_owner(const struct vftr_vfdconv *c, const struct spread *sp, int32_t peer)
{
    long k = peer < 0 ? -1 : vftr_u64map_get(&c->rankmap, (uint64_t)peer);
    int o;

    if (k < 0)
        return sp->me;
    o = sp->sh->owner(sp->sh->ctx, c->ranks[k].file);
    return o >= 0 && o < sp->nprocs ? o : sp->me;
}

/* The alltoall of spread matching and the matching of the sends it
 * brings (see struct spread).  Every process takes part, a failed one with
 * nothing, so that none waits for ever.  Returns rc or the first error. */
static int spread_exchange(struct vftr_vfdconv *c, struct spread *sp, struct chtab *tab, int rc)
{
    void *in = NULL;
    size_t inlen = 0;
    int xrc;

    for (int p = 0; p < sp->nprocs; p++) {
        struct spout *o = &sp->out[p];
        uint8_t t[10];
        size_t n = (size_t)(vftr_vfd_put_varint(t, o->n) - t);

        /* the count goes first: move the sends up behind it */
        if (rc == 0 && p != sp->me) {
            sput(&o->b, t, n);
            if (o->b.bad)
                rc = -ENOMEM;
            else {
                memmove(o->b.p + n, o->b.p, o->b.n - n);
                memcpy(o->b.p, t, n);
            }
        }
        sp->ob[p] = rc == 0 ? o->b.p : NULL;
        sp->ol[p] = rc == 0 ? o->b.n : 0;
    }
    xrc = sp->sh->alltoall(sp->sh->ctx, sp->ob, sp->ol, &in, &inlen);
    if (rc == 0 && xrc < 0)
        rc = xrc;
    {
        const uint8_t *p = in, *end = p + inlen;

        /* the streams of the other processes, each from a fresh base */
        while (rc == 0 && p < end) {
            struct pmsg base = { 0 }, x;
            uint64_t n;

            if ((rc = spread_varint(&p, end, &n)) < 0)
                break;
            for (uint64_t i = 0; i < n && rc == 0; i++) {
                if ((rc = spread_get(&p, end, &x, &base)) == 0 &&
                    (x.rank >= c->nranks || x.thread >= c->ranks[x.rank].nthr ||
                     send_owner(c, sp, x.peer) != sp->me))
                    rc = -EBADMSG;
                if (rc == 0)
                    rc = match_one(c, tab, &x);
            }
        }
    }
    free(in);
    for (int p = 0; p < sp->nprocs; p++)        /* the next round starts afresh */
        sp->out[p] = (struct spout){ .b = { sp->out[p].b.p, 0, sp->out[p].b.cap, 0 } };
    return rc;
}

/* Matches the messages of all files (see above) into the threads' exc
 * maps and the stats; with sp, this process's part of them (see struct
 * spread).  Returns 0, -EBADMSG (a file changed, or a bad exchange),
 * -ENOMEM, or the exchange's error. */
static int match_messages(struct vftr_vfdconv *c, struct spread *sp)
{
    struct vftr_vfd_scan **sc = calloc(c->nranks, sizeof *sc);
    struct mfile *fs = NULL, **h = NULL;
    struct mraw *raw = NULL;
    struct chtab tab = { NULL, 0, 0 };
    size_t nf = 0, nh = 0, rawcap = 0, round = 0;
    int rc = 0;

    for (size_t k = 0; k < c->nranks; k++) {
        struct rank *r = &c->ranks[k];

        nf += r->nthr;
        for (size_t t = 0; t < r->nthr; t++) {
            c->stats.sends += r->thr[t].nsends;
            c->stats.recvs += r->thr[t].nrecvs;
            c->stats.colls += r->thr[t].ncolls;
        }
    }
    fs = calloc(nf ? nf : 1, sizeof *fs);
    h = calloc(nf ? nf : 1, sizeof *h);
    if (!sc || !fs || !h) {
        rc = -ENOMEM;
        goto out;
    }
    nf = 0;
    for (size_t k = 0; k < c->nranks && rc == 0; k++) {
        struct rank *r = &c->ranks[k];

        if (sp && !sp->sh->mine(sp->sh->ctx, r->file))
            continue;           /* its reader matches its receives */
        for (size_t t = 0; t < r->nthr && rc == 0; t++) {
            const struct thr *th = &r->thr[t];
            struct mfile *f = &fs[nf++];

            f->c = c;
            f->r = r;
            f->ri = (uint32_t)k;
            f->ti = (uint32_t)t;
            f->raw = &raw;
            f->rawcap = &rawcap;
            f->ichunk = th->c0;
            f->end = th->c0 + th->nc;
            if (!th->nc || r->chunks[th->c0].mpimin == UINT64_MAX)
                continue;       /* no MPI record */
            if (!sc[k] && !(sc[k] = vftr_vfd_scan_open(r->path))) {
                rc = errno == ENOMEM ? -ENOMEM : -EBADMSG;
                break;
            }
            f->sc = sc[k];
            if ((rc = mfile_fill(f)) == 0 && f->n)
                h[nh++] = f;
        }
    }
    for (size_t k = nh / 2; k-- > 0;)
        mfheap_down(h, nh, k);
    /* (spread: a round of the sends that start before its bound, then its
     * alltoall; every process goes through every round, even after an
     * error, which it passes on as it ends) */
    for (round = 0; sp && round < sp->nrounds; round++) {
        uint64_t bound = spread_bound(sp, round);

        while (rc == 0 && nh && h[0]->h[0].astart < bound) {
            struct mfile *f = h[0];
            struct pmsg x = pheap_pop(f->h, &f->n);
            int to = x.send ? send_owner(c, sp, x.peer) : -1;

            if (to >= 0 && to != sp->me) {
                spread_put(&sp->out[to], &x);
                if (sp->out[to].b.bad)
                    rc = -ENOMEM;
            } else {
                rc = match_one(c, &tab, &x);
            }
            if (rc < 0 || (rc = mfile_fill(f)) < 0)
                break;
            if (!f->n)
                h[0] = h[--nh];
            mfheap_down(h, nh, 0);
        }
        rc = spread_exchange(c, sp, &tab, rc);
    }
    while (!sp && rc == 0 && nh) {
        struct mfile *f = h[0];
        struct pmsg x = pheap_pop(f->h, &f->n);

        if ((rc = match_one(c, &tab, &x)) < 0 || (rc = mfile_fill(f)) < 0)
            break;
        if (!f->n)
            h[0] = h[--nh];
        mfheap_down(h, nh, 0);
    }
    for (size_t k = 0; k < tab.cap; k++) {
        struct chan *ch = &tab.v[k];

        if (ch->used && ch->len) {
            if (ch->q[ch->head].send)
                c->stats.unreceived_sends += ch->len;
            else
                c->stats.unsent_recvs += ch->len;
        }
        free(ch->q);
    }
out:
    for (; sp && round < sp->nrounds; round++)     /* failed before the rounds */
        rc = spread_exchange(c, sp, &tab, rc);
    for (size_t k = 0; fs && k < nf; k++)
        free(fs[k].h);
    for (size_t k = 0; sc && k < c->nranks; k++)
        vftr_vfd_scan_close(sc[k]);
    free(raw);
    free(tab.v);
    free(sc);
    free(fs);
    free(h);
    return rc;
}

static int build_procs(struct vftr_vfdconv *c)
{
    long w = group_of(c, VFTR_VFD_COMM_WORLD, "MPI_COMM_WORLD", 14);

    if (w < 0)
        return (int)w;
    free(c->groups[w].procs);
    c->groups[w].procs = calloc(c->nranks + 1, sizeof(uint32_t));
    if (!c->groups[w].procs)
        return -ENOMEM;
    c->groups[w].n = 0;
    for (size_t k = 0; k < c->nranks; k++) {
        struct rank *r = &c->ranks[k];
        char name[96];

        c->groups[w].procs[c->groups[w].n++] = vftr_vfdconv_process((uint32_t)r->rank, 0);
        /* a rank whose file holds no event (killed before its first flush)
         * is still a rank of the run: its process is defined, empty */
        for (size_t t = 0; t < (r->nthr ? r->nthr : 1); t++) {
            struct vftr_vfdconv_proc *p;
            uint32_t id = r->nthr ? r->thr[t].id : 0;

            if (grow((void **)&c->procs, &c->cprocs, c->nprocs + 1, sizeof *c->procs) < 0)
                return -ENOMEM;
            p = &c->procs[c->nprocs];
            p->rank = (uint32_t)r->rank;
            p->incomplete = !r->complete;
            p->thread = id;
            p->token = r->nthr ? r->thr[t].token : vftr_vfdconv_process((uint32_t)r->rank, 0);
            p->parent = id ? vftr_vfdconv_process((uint32_t)r->rank, 0) : 0;
            if (id)
                snprintf(name, sizeof name, "Rank %" PRId32 " Thread %" PRIu32, r->rank, id);
            else
                snprintf(name, sizeof name, "Rank %" PRId32, r->rank);
            p->name = strdup(name);
            if (!p->name)
                return -ENOMEM;
            c->nprocs++;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ sharing
 *
 * vfd2otf-mpi spreads the first pass over its processes: each scans the
 * files its share callback accepts, the scanned ranks (everything the merge
 * needs: threads, messages, collectives, chunk lists, clock offsets,
 * actions, how the scan ended) are serialized, exchanged, and read back, so
 * that every process merges the same ranks in the same order.  The bytes
 * are native (the processes of one MPI job run one binary on one kind of
 * machine); every read is bounds-checked all the same. */


static void sput_str(struct sbuf *b, const char *s)
{
    sput64(b, s ? strlen(s) : UINT64_MAX);
    if (s)
        sput(b, s, strlen(s));
}

static void sput_arr(struct sbuf *b, const void *a, size_t n, size_t size)
{
    sput64(b, n);
    sput(b, a, n * size);
}

struct sget {
    const uint8_t *p, *end;
    int bad;
};

static void sget(struct sget *g, void *x, size_t len)
{
    if (g->bad || (size_t)(g->end - g->p) < len) {
        g->bad = 1;
        memset(x, 0, len);
        return;
    }
    if (len)
        memcpy(x, g->p, len);
    g->p += len;
}

static uint64_t sget64(struct sget *g)
{
    uint64_t v;

    sget(g, &v, sizeof v);
    return v;
}

static char *sget_str(struct sget *g)
{
    uint64_t n = sget64(g);
    char *s;

    if (n == UINT64_MAX || g->bad)
        return NULL;
    if (n > (uint64_t)(g->end - g->p) || !(s = malloc(n + 1))) {
        g->bad = 1;
        return NULL;
    }
    sget(g, s, n);
    s[n] = 0;
    return s;
}

/* An array of size-byte elements into *a (malloc'ed), its length in *n and
 * *cap. */
static void sget_arr(struct sget *g, void *a, size_t *n, size_t *cap, size_t size)
{
    uint64_t k = sget64(g);
    void *p;

    *(void **)a = NULL;
    *n = 0;
    if (cap)
        *cap = 0;
    if (g->bad || k == 0)
        return;
    if (k > (uint64_t)(g->end - g->p) / size || !(p = malloc(k * size))) {
        g->bad = 1;
        return;
    }
    sget(g, p, k * size);
    *(void **)a = p;
    *n = k;
    if (cap)
        *cap = k;
}



/* A process's part of the matching's result, as the exchange after the
 * matching carries it: its status, its counts, and (when it matched) the
 * exceptions of its files' threads, (rank index, thread, key, value), then
 * the caller's end mark. */
static void put_match_result(struct sbuf *b, const struct vftr_vfdconv *c, int mrc,
                             const struct vftr_vfdconv_stats *st)
{
    sput64(b, (uint64_t)(int64_t)mrc);
    sput64(b, st->matched);
    sput64(b, st->unsent_recvs);
    sput64(b, st->unreceived_sends);
    sput64(b, st->recv_before_send);
    for (size_t i = 0; i < c->nranks && mrc == 0; i++)
        for (size_t t = 0; t < c->ranks[i].nthr; t++) {
            const struct vftr_u64map *m = &c->ranks[i].thr[t].exc;

            for (size_t k = 0; k < m->cap; k++)
                if (m->slots[k].value) {
                    sput64(b, i);
                    sput64(b, t);
                    sput64(b, m->slots[k].key);
                    sput64(b, m->slots[k].value - 1);
                }
        }
}static void put_rank(struct sbuf *b, size_t index, const struct rank *r)
{
    int32_t i32[6] = { r->scan_rc, r->rank, r->complete, r->have_run_id, r->size, r->capped };

    sput64(b, index);
    sput(b, i32, sizeof i32);
    sput_str(b, r->scan_err);
    sput_str(b, r->path);
    sput64(b, r->tps);
    sput64(b, r->sample_ticks);
    sput64(b, r->start_ticks);
    sput64(b, r->start_ns);
    sput64(b, r->bytes);
    sput64(b, r->events);
    sput64(b, r->events_lost);
    sput(b, r->host, sizeof r->host);
    sput(b, r->run_id, sizeof r->run_id);
    sput(b, r->have_clock, sizeof r->have_clock);
    sput(b, r->clock, sizeof r->clock);
    sput64(b, r->nthr);
    for (size_t t = 0; t < r->nthr; t++) {
        const struct thr *th = &r->thr[t];

        sput64(b, th->id);
        sput64(b, th->first);
        sput64(b, th->last);
        sput64(b, th->events);
        sput64(b, th->nsends);
        sput64(b, th->nrecvs);
        sput64(b, th->ncolls);
        sput64(b, th->nios);
        sput64(b, th->early);
    }
    sput_arr(b, r->chunks, r->nchunks, sizeof *r->chunks);
    sput_arr(b, r->acts, r->nacts, 1);
}

/* Reads one rank written by put_rank into r (zeroed).  Returns 0, -EBADMSG
 * or -ENOMEM. */
static int get_rank(struct sget *g, struct rank *r)
{
    int32_t i32[6];
    uint64_t nthr;

    sget(g, i32, sizeof i32);
    r->scan_rc = i32[0];
    r->rank = i32[1];
    r->complete = i32[2];
    r->have_run_id = i32[3];
    r->size = i32[4];
    r->capped = i32[5];
    r->scan_err = sget_str(g);
    r->path = sget_str(g);
    r->tps = sget64(g);
    r->sample_ticks = sget64(g);
    r->start_ticks = sget64(g);
    r->start_ns = sget64(g);
    r->bytes = sget64(g);
    r->events = sget64(g);
    r->events_lost = sget64(g);
    sget(g, r->host, sizeof r->host);
    r->host[sizeof r->host - 1] = 0;
    sget(g, r->run_id, sizeof r->run_id);
    sget(g, r->have_clock, sizeof r->have_clock);
    sget(g, r->clock, sizeof r->clock);
    nthr = sget64(g);
    if (g->bad || nthr > VFTR_VFDCONV_MAX_THREADS)
        return -EBADMSG;
    if (nthr && !(r->thr = calloc(nthr, sizeof *r->thr)))
        return -ENOMEM;
    r->cthr = nthr;
    for (size_t t = 0; t < nthr && !g->bad; t++) {
        struct thr *th = &r->thr[t];

        th->id = (uint32_t)sget64(g);
        th->first = sget64(g);
        th->last = sget64(g);
        th->events = sget64(g);
        th->nsends = sget64(g);
        th->nrecvs = sget64(g);
        th->ncolls = sget64(g);
        th->nios = sget64(g);
        th->early = sget64(g);
        r->nthr = t + 1;
        if (vftr_u64map_put(&r->thrmap, th->id, (uint32_t)t) < 0)
            return -ENOMEM;
    }
    sget_arr(g, &r->chunks, &r->nchunks, &r->cchunks, sizeof *r->chunks);
    sget_arr(g, &r->acts, &r->nacts, &r->cacts, 1);
    /* what a local scan guarantees, checked: a path, a clock rate, an
     * errno for a failed scan (then its error is what counts), else a rank
     * in range */
    if (!g->bad && (!r->path || r->tps == 0 || r->scan_rc > 0 || r->scan_rc < -4095 ||
                    (r->scan_rc == 0 && (r->rank < 0 || (uint32_t)r->rank >= VFTR_VFDCONV_MAX_RANKS))))
        g->bad = 1;
    return g->bad ? -EBADMSG : 0;
}

/* The first pass of a shared open: scans this process's files, exchanges,
 * reads the others' ranks.  Returns 0 or -errno with a message. */
static int scan_shared(struct vftr_vfdconv *c, const char *const *paths, size_t n, char *err,
                       size_t errlen)
{
    const struct vftr_vfdconv_share *sh = c->opts.share;
    unsigned char *skip = calloc(n, 1), *got = calloc(n, 1);
    struct sbuf b = { 0 };
    void *all = NULL;
    size_t alllen = 0;
    int rc = 0;

    if (!skip || !got) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        skip[i] = !sh->mine(sh->ctx, i);
    scan_all(c->ranks, paths, n, skip, c->opts.jobs ? c->opts.jobs : 1);
    for (size_t i = 0; i < n; i++)
        if (!skip[i])
            put_rank(&b, i, &c->ranks[i]);
    /* out of memory here still takes part in the exchange (with nothing),
     * so that the others do not wait for ever; they then miss our files */
    rc = sh->exchange(sh->ctx, b.bad ? NULL : b.p, b.bad ? 0 : b.n, &all, &alllen);
    if (rc == 0 && b.bad)
        rc = -ENOMEM;
    if (rc < 0) {
        set_err(err, errlen, "exchanging the first pass: %s", strerror(-rc));
        goto out;
    }
    {
        struct sget g = { all, (const uint8_t *)all + alllen, 0 };

        while (rc == 0 && g.p < g.end) {
            uint64_t i = sget64(&g);

            if (g.bad || i >= n || got[i]) {
                rc = -EBADMSG;
                break;
            }
            got[i] = 1;
            if (skip[i])
                rc = get_rank(&g, &c->ranks[i]);
            else {              /* our own: already here, step over it */
                struct rank tmp;

                memset(&tmp, 0, sizeof tmp);
                rc = get_rank(&g, &tmp);
                free(tmp.path);
                free(tmp.scan_err);
                free(tmp.thr);
                free(tmp.chunks);
                free(tmp.acts);
                vftr_u64map_release(&tmp.thrmap);
            }
        }
        for (size_t i = 0; i < n && rc == 0; i++)
            if (!got[i])
                rc = -EBADMSG;
        if (rc < 0)
            set_err(err, errlen, "exchanging the first pass: %s",
                    rc == -EBADMSG ? "the gathered data is incomplete or malformed"
                                   : strerror(-rc));
    }
out:
    free(all);
    free(b.p);
    free(skip);
    free(got);
    return rc;
}

/* Matching spread over the processes of a shared open (struct spread):
 * each matches its part, then all exchange their counts and exceptions
 * (rank, thread, key, token), so that every one ends with the whole
 * result.  Returns 0 or -errno with a message. */
static int match_spread(struct vftr_vfdconv *c, char *err, size_t errlen)
{
    const struct vftr_vfdconv_share *sh = c->opts.share;
    struct spread sp = { sh, sh->me, sh->nprocs, NULL, NULL, NULL, 0, 0, 0 };
    struct vftr_vfdconv_stats mine;
    struct sbuf b = { 0 };
    void *all = NULL;
    size_t alllen = 0;
    int rc = 0, mrc;

    if (sp.nprocs < 1 || sp.me < 0 || sp.me >= sp.nprocs) {
        set_err(err, errlen, "matching messages: bad share (process %d of %d)", sp.me,
                sp.nprocs);
        return -EINVAL;
    }
    sp.out = calloc((size_t)sp.nprocs, sizeof *sp.out);
    sp.ob = calloc((size_t)sp.nprocs, sizeof *sp.ob);
    sp.ol = calloc((size_t)sp.nprocs, sizeof *sp.ol);
    if (!sp.out || !sp.ob || !sp.ol) {
        /* the others go on to the alltoall: give up together */
        free(sp.out);
        free(sp.ob);
        free(sp.ol);
        return -ENOMEM;
    }
    spread_rounds(c, &sp);
    mrc = match_messages(c, &sp);
    for (int p = 0; p < sp.nprocs; p++)
        free(sp.out[p].b.p);
    free(sp.out);
    free(sp.ob);
    free(sp.ol);
    mine = c->stats;
    put_match_result(&b, c, mrc, &mine);
    sput64(&b, UINT64_MAX);     /* the end of this process's part */
    rc = sh->exchange(sh->ctx, b.bad ? NULL : b.p, b.bad ? 0 : b.n, &all, &alllen);
    if (rc == 0 && b.bad)
        rc = -ENOMEM;
    c->stats.matched = c->stats.unsent_recvs = c->stats.unreceived_sends = 0;
    c->stats.recv_before_send = 0;
    {
        struct sget g = { all, (const uint8_t *)all + alllen, 0 };
        int part = 0;

        /* the parts come in process order; ours is here already */
        while (rc == 0 && g.p < g.end) {
            int64_t prc = (int64_t)sget64(&g);
            int ours = part++ == sp.me;

            c->stats.matched += sget64(&g);
            c->stats.unsent_recvs += sget64(&g);
            c->stats.unreceived_sends += sget64(&g);
            c->stats.recv_before_send += sget64(&g);
            if (prc < 0)
                rc = prc < -4095 ? -EBADMSG : (int)prc;
            for (;;) {
                uint64_t i = sget64(&g), t, key, tok;

                if (g.bad || i == UINT64_MAX)
                    break;
                t = sget64(&g);
                key = sget64(&g);
                tok = sget64(&g);
                if (g.bad || i >= c->nranks || t >= c->ranks[i].nthr || tok >= UINT32_MAX)
                    rc = -EBADMSG;
                else if (!ours)
                    rc = vftr_u64map_put(&c->ranks[i].thr[t].exc, key, (uint32_t)tok);
                if (rc < 0)
                    break;
            }
            if (g.bad)
                rc = -EBADMSG;
        }
        if (rc == 0 && part != sp.nprocs)
            rc = -EBADMSG;
    }
    if (rc < 0)
        set_err(err, errlen, "matching messages: %s",
                rc == -EBADMSG ? "a file changed since it was read, or a bad exchange"
                               : strerror(-rc));
    free(all);
    free(b.p);
    return rc;
}

/* Matching in a shared open: the process that reads file 0 matches (it
 * reads every file's MPI records) and hands the result to all: its return
 * code, the counts, and the exceptions (rank, thread, key, token).
 * Returns 0 or -errno with a message. */
static int match_shared(struct vftr_vfdconv *c, char *err, size_t errlen)
{
    const struct vftr_vfdconv_share *sh = c->opts.share;
    struct sbuf b = { 0 };
    void *all = NULL;
    size_t alllen = 0;
    int rc = 0;

    if (sh->mine(sh->ctx, 0))
        put_match_result(&b, c, match_messages(c, NULL), &c->stats);
    rc = sh->exchange(sh->ctx, b.bad ? NULL : b.p, b.bad ? 0 : b.n, &all, &alllen);
    if (rc == 0 && b.bad)
        rc = -ENOMEM;
    if (rc == 0 && !sh->mine(sh->ctx, 0)) {
        struct sget g = { all, (const uint8_t *)all + alllen, 0 };
        int64_t mrc = (int64_t)sget64(&g);

        c->stats.matched = sget64(&g);
        c->stats.unsent_recvs = sget64(&g);
        c->stats.unreceived_sends = sget64(&g);
        c->stats.recv_before_send = sget64(&g);
        c->stats.sends = c->stats.recvs = c->stats.colls = 0;
        for (size_t i = 0; i < c->nranks; i++)
            for (size_t t = 0; t < c->ranks[i].nthr; t++) {
                c->stats.sends += c->ranks[i].thr[t].nsends;
                c->stats.recvs += c->ranks[i].thr[t].nrecvs;
                c->stats.colls += c->ranks[i].thr[t].ncolls;
            }
        if (g.bad)
            rc = -EBADMSG;
        else if (mrc < 0)
            rc = mrc < -4095 ? -EBADMSG : (int)mrc;
        while (rc == 0 && g.p < g.end) {
            uint64_t i = sget64(&g), t = sget64(&g), key = sget64(&g), tok = sget64(&g);

            if (g.bad || i >= c->nranks || t >= c->ranks[i].nthr || tok >= UINT32_MAX)
                rc = -EBADMSG;
            else
                rc = vftr_u64map_put(&c->ranks[i].thr[t].exc, key, (uint32_t)tok);
        }
    } else if (rc == 0 && sh->mine(sh->ctx, 0)) {
        struct sget g = { b.p, b.p + b.n, 0 };

        rc = (int)(int64_t)sget64(&g);
    }
    if (rc < 0)
        set_err(err, errlen, "matching messages: %s", strerror(-rc));
    free(all);
    free(b.p);
    return rc;
}

/*
 * The ranks of the job that no file holds: the headers give the job's size
 * (MPI_COMM_WORLD's, written at MPI_Init), so a run given without one
 * rank's file is said to be incomplete, naming the ranks, instead of
 * converting with nothing but unmatched messages to show for it.  The
 * ranks are sorted and distinct here.  Files that disagree on the size
 * are said too.  Warnings only: what is there converts.
 */
static void missing_ranks(struct vftr_vfdconv *c)
{
    int32_t size = 0;
    uint64_t nmissing = 0;
    size_t len = 0;
    char list[256];
    int cut = 0;

    for (size_t i = 0; i < c->nranks; i++) {
        if (c->ranks[i].size > size) {
            if (size > 0)
                warn(c, "%s: the job has %" PRId32 " ranks, other files say %" PRId32,
                     c->ranks[i].path, c->ranks[i].size, size);
            size = c->ranks[i].size;
        }
    }
    if (size <= 0)
        return;
    /* the gaps between the ranks there are (sorted, distinct): one pass,
     * whatever the size a header claims */
    list[0] = '\0';
    for (size_t i = 0; i <= c->nranks; i++) {
        int64_t lo = i ? (int64_t)c->ranks[i - 1].rank + 1 : 0;
        int64_t hi = i < c->nranks ? (int64_t)c->ranks[i].rank - 1 : (int64_t)size - 1;

        if (hi >= (int64_t)size)
            hi = (int64_t)size - 1;
        if (lo > hi)
            continue;
        nmissing += (uint64_t)(hi - lo + 1);
        if (!cut) {
            int n = lo == hi ? snprintf(list + len, sizeof list - len, "%s%" PRId64,
                                        len ? "," : "", lo)
                             : snprintf(list + len, sizeof list - len, "%s%" PRId64 "-%" PRId64,
                                        len ? "," : "", lo, hi);

            if (n < 0 || (size_t)n >= sizeof list - len - 4) {
                list[len] = '\0';
                cut = 1;
            } else {
                len += (size_t)n;
            }
        }
    }
    if (nmissing == 1)
        warn(c, "the run has %" PRId32 " ranks, but no file holds rank %s: its events are "
             "missing, and messages to and from it stay unmatched", size, list);
    else if (nmissing)
        warn(c, "the run has %" PRId32 " ranks, but no file holds ranks %s%s (%" PRIu64 " of "
             "them): their events are missing, and messages to and from them stay unmatched",
             size, list, cut ? (len ? ",..." : "...") : "", nmissing);
}

int vftr_vfdconv_open(struct vftr_vfdconv **out, const char *const *paths, size_t n,
                      const struct vftr_vfdconv_opts *opts, char *err, size_t errlen)
{
    struct vftr_vfdconv *c;
    int rc = 0;

    *out = NULL;
    if (n == 0 || n > VFTR_VFDCONV_MAX_RANKS) {
        set_err(err, errlen, n ? "too many files" : "no .vfd file given");
        return -EINVAL;
    }
    c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    if (opts)
        c->opts = *opts;
    c->ranks = calloc(n, sizeof *c->ranks);
    if (!c->ranks) {
        free(c);
        return -ENOMEM;
    }
    c->nranks = n;
    /* world is group 1 */
    if (group_of(c, VFTR_VFD_COMM_WORLD, "MPI_COMM_WORLD", 14) < 0) {
        rc = -ENOMEM;
        goto fail;
    }

    if (c->opts.share) {
        rc = scan_shared(c, paths, n, err, errlen);
        if (rc < 0)
            goto fail;
    } else {
        scan_all(c->ranks, paths, n, NULL, c->opts.jobs ? c->opts.jobs : 1);
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = merge_rank(c, &c->ranks[i], err, errlen);
    if (rc < 0)
        goto fail;

    for (size_t i = 0; i < n; i++)
        c->ranks[i].file = i;
    /* one run, each rank once */
    qsort(c->ranks, n, sizeof *c->ranks, cmp_rank);
    for (size_t i = 0; i < n; i++) {
        struct rank *r = &c->ranks[i];

        if (i > 0 && r->rank == c->ranks[i - 1].rank) {
            set_err(err, errlen, "%s and %s: both hold rank %" PRId32 " (give each rank once)",
                    c->ranks[i - 1].path, r->path, r->rank);
            rc = -EINVAL;
            goto fail;
        }
        if (memcmp(r->run_id, c->ranks[0].run_id, 16) != 0) {
            set_err(err, errlen, "%s and %s: files of different runs (run ids differ)",
                    c->ranks[0].path, r->path);
            rc = -EINVAL;
            goto fail;
        }
        if (vftr_u64map_put(&c->rankmap, (uint64_t)r->rank, (uint32_t)i) < 0) {
            rc = -ENOMEM;
            goto fail;
        }
        c->stats.bytes += r->bytes;
        for (size_t t = 0; t < r->nthr; t++)
            r->thr[t].token = vftr_vfdconv_process((uint32_t)r->rank, r->thr[t].id);
        if ((rc = index_chunks(r)) < 0) {
            set_err(err, errlen, "%s: %s", r->path, rc == -EBADMSG
                    ? "the exchanged first pass names an events chunk of no thread"
                    : strerror(-rc));
            goto fail;
        }
    }
    missing_ranks(c);
    /* the earliest start is the base of relative times */
    {
        uint64_t base = UINT64_MAX;

        for (size_t i = 0; i < n; i++)
            if (c->ranks[i].start_ns < base)
                base = c->ranks[i].start_ns;
        for (size_t i = 0; i < n; i++)
            c->ranks[i].start_rel = (int64_t)(c->ranks[i].start_ns - base);
    }
    fit_clocks(c);
    if (c->opts.share && c->opts.share->alltoall) {
        if ((rc = match_spread(c, err, errlen)) < 0)
            goto fail;
    } else if (c->opts.share) {
        if ((rc = match_shared(c, err, errlen)) < 0)
            goto fail;
    } else if ((rc = match_messages(c, NULL)) < 0) {
        set_err(err, errlen, "matching messages: %s",
                rc == -EBADMSG ? "a file changed since it was read" : strerror(-rc));
        goto fail;
    }
    rc = build_procs(c);
    if (rc < 0) {
        set_err(err, errlen, "%s", strerror(-rc));
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        struct rank *r = &c->ranks[i];
        uint64_t last = 0;

        for (size_t t = 0; t < r->nthr; t++)
            if (r->thr[t].first != UINT64_MAX && align_ns(r, r->thr[t].last) > last)
                last = align_ns(r, r->thr[t].last);
        if (!r->complete) {
            c->stats.truncated++;
            warn(c, "%s: rank %" PRId32 " is incomplete (the program did not end normally): "
                    "its data ends at %.9f s", r->path, r->rank, (double)last * 1e-9);
        }
        /* the capture throttled itself: the trace is a prefix of the run */
        if (r->capped)
            warn(c, "%s: rank %" PRId32 ": tracing stopped at the size cap (trace.max_size): "
                    "%" PRIu64 " later event(s) were not recorded: the figures cover the run "
                    "up to there", r->path, r->rank, r->events_lost);
        else if (r->events_lost)
            warn(c, "%s: rank %" PRId32 ": %" PRIu64 " event(s) were not recorded (tracing was "
                    "stopped)", r->path, r->rank, r->events_lost);
    }
    {
        char hex[33];

        for (int k = 0; k < 16; k++)
            snprintf(hex + 2 * k, 3, "%02x", c->ranks[0].run_id[k]);
        snprintf(c->comment, sizeof c->comment, "vftr run %s: %zu rank%s, converted by vfd2otf",
                 hex, n, n == 1 ? "" : "s");
    }
    *out = c;
    return 0;

fail:
    vftr_vfdconv_free(c);
    return rc;
}

void vftr_vfdconv_free(struct vftr_vfdconv *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nranks; i++) {
        struct rank *r = &c->ranks[i];

        for (size_t t = 0; t < r->nthr; t++)
            vftr_u64map_release(&r->thr[t].exc);
        free(r->thr);
        free(r->chunks);
        free(r->acts);
        free(r->scan_err);
        vftr_u64map_release(&r->comms_seen);
        free(r->regs);
        free(r->path);
        vftr_u64map_release(&r->thrmap);
        vftr_u64map_release(&r->fmap);
        vftr_u64map_release(&r->omap);
        vftr_u64map_release(&r->iomap);
    }
    free(c->ranks);
    for (size_t i = 0; i < c->nprocs; i++)
        free(c->procs[i].name);
    free(c->procs);
    for (size_t i = 0; i < c->nfuncs; i++)
        free(c->funcs[i].name);
    free(c->funcs);
    for (size_t i = 0; i < c->nctrs; i++) {
        free(c->ctrs[i].name);
        free(c->ctrs[i].unit);
    }
    free(c->ctrs);
    for (size_t i = 0; i < c->ngroups; i++) {
        free(c->groups[i].name);
        free(c->groups[i].procs);
    }
    free(c->groups);
    for (size_t i = 0; i < c->nfiles; i++)
        free(c->files[i].name);
    free(c->files);
    free(c->scls);
    for (size_t i = 0; i < c->niofiles; i++)
        free(c->iofiles[i].name);
    free(c->iofiles);
    vftr_u64map_release(&c->iotab);
    vftr_u64map_release(&c->ftab.map);
    vftr_u64map_release(&c->filetab.map);
    vftr_u64map_release(&c->gmap);
    vftr_u64map_release(&c->sclmap);
    vftr_u64map_release(&c->rankmap);
    free(c);
}

size_t vftr_vfdconv_ranks(const struct vftr_vfdconv *c) { return c->nranks; }

const struct vftr_vfdconv_proc *vftr_vfdconv_procs(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->nprocs;
    return c->procs;
}

const struct vftr_vfdconv_func *vftr_vfdconv_funcs(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->nfuncs;
    return c->funcs;
}

const struct vftr_vfdconv_group *vftr_vfdconv_groups(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->ngroups;
    return c->groups;
}

const struct vftr_vfdconv_sclfile *vftr_vfdconv_sclfiles(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->nfiles;
    return c->files;
}

const struct vftr_vfdconv_scl *vftr_vfdconv_scls(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->nscls;
    return c->scls;
}

const struct vftr_vfdconv_counter *vftr_vfdconv_counters(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->nctrs;
    return c->ctrs;
}

const uint32_t *vftr_vfdconv_collops(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->ncollops;
    return c->collops;
}

const char *vftr_vfdconv_comment(const struct vftr_vfdconv *c) { return c->comment; }

const struct vftr_vfdconv_file *vftr_vfdconv_files(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->niofiles;
    return c->iofiles;
}

const uint32_t *vftr_vfdconv_filegroups(const struct vftr_vfdconv *c, size_t *n)
{
    *n = c->niogroups;
    return c->iogroups;
}

const char *vftr_vfdconv_filegroup_name(uint32_t group)
{
    return vftr_vfd_io_iface_name(group);
}

const struct vftr_vfdconv_stats *vftr_vfdconv_stats(const struct vftr_vfdconv *c)
{
    return &c->stats;
}

const char *vftr_vfdconv_path(const struct vftr_vfdconv *c, uint32_t rank)
{
    return rank < c->nranks ? c->ranks[rank].path : NULL;
}

uint64_t vftr_vfdconv_rank_bytes(const struct vftr_vfdconv *c, uint32_t rank)
{
    return rank < c->nranks ? c->ranks[rank].bytes : 0;
}

uint64_t vftr_vfdconv_rank_events(const struct vftr_vfdconv *c, uint32_t rank)
{
    return rank < c->nranks ? c->ranks[rank].events : 0;
}

int vftr_vfdconv_has_rma(const struct vftr_vfdconv *c)
{
    return c->has_rma;
}

double vftr_vfdconv_sample_interval(const struct vftr_vfdconv *c)
{
    double most = 0;

    for (size_t i = 0; i < c->nranks; i++) {
        double s = (double)c->ranks[i].sample_ticks / (double)c->ranks[i].tps;

        if (s > most)
            most = s;
    }
    return most;
}

const char *vftr_vfdconv_group_name(uint32_t group)
{
    static const char *const names[] = { NULL, "user code", "MPI", "OpenMP",
                                         VFTR_VFDCONV_SAMPLED_GROUP_NAME };

    return group < sizeof names / sizeof names[0] ? names[group] : NULL;
}

uint32_t vftr_vfdconv_last_group(const struct vftr_vfdconv *c)
{
    size_t n;
    const struct vftr_vfdconv_func *f = vftr_vfdconv_funcs(c, &n);

    for (size_t i = 0; i < n; i++)
        if (f[i].group == VFTR_VFDCONV_GROUP_SAMPLED)
            return VFTR_VFDCONV_GROUP_SAMPLED;
    return VFTR_VFDCONV_GROUP_OMP;
}

/* ------------------------------------------------------------ replay */

struct raw {
    uint64_t time;
    uint32_t kind, id;          /* OMP: id = region id */
};

struct frame {
    uint32_t cp;                /* call path id, 0 for an OpenMP region */
    uint32_t region;            /* OpenMP region id */
    uint32_t func, scl;
};

enum { EARLY_SEND, EARLY_COLL, EARLY_IO };

struct early {                  /* a send, collective begin or file operation begin,
                                 * placed at its start */
    uint64_t time;              /* aligned start */
    uint32_t is_coll;           /* EARLY_* */
    uint32_t index;             /* n-th send / collective / file operation of the thread */
    uint64_t comm, bytes, received;     /* bytes: sent by a collective; file operation:
                                         * comm the handle */
    int32_t peer, tag;          /* collective: root, op; file operation: file token (0: not
                                 * defined), OTF operation word */
};

struct rmsg {                   /* a receive record on its way to transform() */
    uint64_t comm, bytes;
    int32_t peer, tag;
};

struct rio {                    /* a file I/O record on its way to transform() */
    uint64_t handle, bytes;
    uint32_t file, op;          /* file token (0: not defined), OTF operation word */
};

struct rpend {                  /* a one-sided transfer whose end is to come */
    uint64_t win, seq;          /* seq: the MPI_RMA record it came from (per rank) */
    uint64_t time;              /* of its RMA_PUT / RMA_GET */
    uint64_t idx;               /* its place among the thread's transfers (from 1) */
    int32_t target;             /* world rank */
    uint32_t peer, group, tag;  /* as its RMA_PUT / RMA_GET had them */
    int req;                    /* a request form */
    int get;                    /* the GET half (after the PUT half of one record) */
    uint64_t reqno;             /* a request form's number (0: not recorded) */
    uint32_t proc;              /* token of the thread that began it */
};

/* An MPI_RMA_SYNC record in out[], as transform() leaves it for the replay:
 * which transfers it ends is known only when it is the earliest event of
 * all the rank's threads (the transfers of other threads begun before it
 * are then transformed, handed out and in their lists).  Never handed to a
 * consumer: its fields are received = window id, root = target (world rank,
 * UINT32_MAX: all), op = 1 for a request's (match: the request form's
 * number, 0 if not recorded), bytes = how many transfers its own thread
 * had begun by then. */
#define EV_RMA_SYNC 0x7fff0001u

struct src {
    const struct vftr_vfdconv *c;
    const struct vftr_vfdconv_consumer *cons;   /* its anomaly() */
    struct rsrc *rs;
    const struct rank *r;
    const struct thr *t;
    uint32_t token;             /* t->token */
    /* the thread's records: its next chunk (of r->chunks[t->c0 .. t->c0 +
     * t->nc)), the position in the current one, where that chunk lies
     * (file offset, payload) and where the source stood when it last gave
     * pages back (vftr_vfd_scan_forget's mark) */
    size_t ichunk;
    struct vftr_vfd_scan_chunk ch;
    const uint8_t *cpay;        /* NULL: no chunk yet */
    uint64_t coff, cgone;
    int eof;
    /* the look-ahead for sends and collective begins: the thread's next
     * chunk it reads, and the earliest aligned MPI start of that chunk and
     * the thread's later ones (UINT64_MAX: none left) */
    size_t echunk;
    uint64_t ehorizon;
    struct frame *st;
    size_t depth, cst;
    uint32_t *walk;             /* goto_path's scratch: a path, leaf first (id, function) */
    size_t cwalk;
    /* events of the last transforms, handed out from ohead; ohead is 0
     * whenever olen is (transform runs only then), so no wrap-around; grown
     * on demand (a deep stack left at once needs twice its depth) */
    struct vftr_vfdconv_event *out;
    size_t ohead, olen, ocap;
    struct vftr_vfdconv_event spare;    /* where events go when out cannot grow */
    int oom;                            /* ... which ends the replay */
    /* sends and collective begins read ahead (see early_scan), a heap by
     * (time, index, is_coll); how many of each the look-ahead has seen */
    struct early *early;
    size_t nearly, cearly;
    uint32_t nsend_seen, ncoll_seen, nio_seen;
    /* the counter values of the COUNTERS record between ext_raw() and transform() */
    struct vftr_vfd_ctr_values cv;
    /* likewise an MPI_RMA and an MPI_RMA_SYNC record */
    struct vftr_vfd_mpi_rma rma;
    struct vftr_vfd_mpi_rma_sync rsync;
    /* transfers the thread began, ended by a later MPI_RMA_SYNC record of
     * any thread of the rank, in the order begun (whatever is left ends
     * with the rank's last thread); how many it began */
    struct rpend *rp;
    size_t nrp, caprp;
    uint64_t nbegun;
    /* the ends a synchronisation of this thread gives now (handed out one
     * by one before anything else of the thread, at the time of the sync) */
    struct rpend *ends;
    size_t nends, iends, capends;
    /* receives between ext_raw() and transform(), FIFO (rcap 0 or a power of two) */
    struct rmsg *rq;
    size_t rhead, rlen, rcap;
    /* file I/O records likewise */
    struct rio *ioq;
    size_t iohead, iolen, iocap;
    uint32_t irecv, icoll, iio;
    uint64_t last;              /* last time handed out */
    int begun, ended;
    struct vftr_vfdconv_event *head;    /* the next event: in out[] or own */
    struct vftr_vfdconv_event own;      /* Begin/EndProcess, sends, collective begins */
    int has_head;
    /* call path -> (function token, parent), direct-mapped */
    uint32_t cache_cp[CP_CACHE], cache_f[CP_CACHE], cache_parent[CP_CACHE];
};

struct rsrc {                   /* one rank's file in a replay */
    struct vftr_vfd_reader *rd; /* definitions (call paths) */
    /* the events, read by the thread sources (each its own chunks), and a
     * second mapping for their look-aheads, which read a chunk whole ahead
     * of the source and give it back at once: in the sources' mapping that
     * would take the pages the sources are reading */
    struct vftr_vfd_scan *sc, *esc;
    const struct rank *r;
    struct src *srcs;
    uint64_t done;              /* bytes of the chunks the sources have begun (progress) */
    int changed;                /* the events no longer decode as in the first pass ... */
    uint64_t offset;            /* ... at the chunk at this offset */
    uint64_t rseq;              /* the rank's one-sided transfers numbered so far */
    size_t alive;               /* its threads not yet at their EndProcess */
};

/* The order sends and collective begins of a thread are placed in: by
 * start, then record order within the kind, then a send before a
 * collective begin of the same start and index. */
static int early_less(const struct early *x, const struct early *y)
{
    if (x->time != y->time)
        return x->time < y->time;
    if (x->index != y->index)
        return x->index < y->index;
    return x->is_coll < y->is_coll;
}

DEFINE_HEAP(eheap, struct early, early_less)

/* Reads the thread's next chunk with the look-ahead scanner: its sends and
 * collective begins go to the thread's heap.  The first pass noted per
 * chunk the earliest MPI start of it and the thread's later chunks, so
 * once ehorizon > t every send or collective of the thread that starts at
 * or before t is in the heap.  Returns 0 or -ENOMEM; a chunk that no
 * longer reads ends the look-ahead (the source's own reading reports it). */
static int early_scan(struct src *s)
{
    const struct rank *r = s->r;
    const struct evchunk *k = &r->chunks[s->echunk++];
    size_t end = s->t->c0 + s->t->nc;
    struct vftr_vfd_scan_chunk ch;
    struct vftr_vfd_scan_event ev;
    const uint8_t *payload;

    s->ehorizon = s->echunk < end ? align_min(r, r->chunks[s->echunk].mpimin) : UINT64_MAX;
    if (k->mpimin == UINT64_MAX || vftr_vfd_scan_chunk(s->rs->esc, k->off, k->n, &ch) < 0 ||
        ch.thread != s->t->id) {
        s->echunk = end;        /* nothing more (or the file changed) */
        s->ehorizon = UINT64_MAX;
        return 0;
    }
    payload = ch.p;
    while (vftr_vfd_scan_next_ext(&ch, &ev) == 1) {
        struct early x;

        if (ev.kind == VFTR_VFD_MPI_SEND) {
            struct vftr_vfd_mpi_msg m;

            if (vftr_vfd_mpi_msg_decode(ev.data, ev.id, ev.time, &m) < 0)
                continue;
            x = (struct early){ align_ns(r, m.start), 0, s->nsend_seen++, m.comm, m.bytes, 0,
                                m.peer, m.tag };
        } else if (ev.kind == VFTR_VFD_MPI_COLL) {
            struct vftr_vfd_mpi_coll cl;

            if (vftr_vfd_mpi_coll_decode(ev.data, ev.id, ev.time, &cl) < 0)
                continue;
            x = (struct early){ align_ns(r, cl.start), 1, s->ncoll_seen++, cl.comm, cl.sent,
                                cl.received, cl.root, (int32_t)cl.op };
        } else if (ev.kind == VFTR_VFD_IO) {
            struct vftr_vfd_io io;
            long fi;

            if (vftr_vfd_io_decode(ev.data, ev.id, ev.time, &io) < 0)
                continue;
            fi = io.file ? vftr_u64map_get(&r->iomap, io.file) : -1;
            x = (struct early){ align_ns(r, io.start), EARLY_IO, s->nio_seen++, io.handle,
                                io.bytes, 0, fi < 0 ? 0 : (int32_t)s->c->iofiles[fi].token,
                                (int32_t)vftr_vfd_io_otf_operation(io.op, io.flags) };
        } else {
            continue;
        }
        if (grow((void **)&s->early, &s->cearly, s->nearly + 1, sizeof *s->early) < 0)
            return -ENOMEM;
        eheap_push(s->early, s->nearly++, x);
    }
    {
        uint64_t mark = k->off;

        vftr_vfd_scan_forget(s->rs->esc, &mark, k->off + VFTR_VFD_CHUNK_HEADER_SIZE +
                                                    (uint64_t)(ch.end - payload), 1);
    }
    return 0;
}

/* Reads ahead until every send / collective begin of the thread starting
 * at or before t is in its heap. */
static inline int early_upto(struct src *s, uint64_t t)
{
    int rc = 0;

    while (rc == 0 && s->ehorizon <= t && s->echunk < s->t->c0 + s->t->nc)
        rc = early_scan(s);
    return rc;
}

/* Gives back the pages the source has left behind in its chunk (with
 * done: it leaves the chunk). */
static void src_forget(struct src *s, int done)
{
    uint64_t at = s->coff + VFTR_VFD_CHUNK_HEADER_SIZE +
                  (uint64_t)((done ? s->ch.end : s->ch.p) - s->cpay);

    vftr_vfd_scan_forget(s->rs->sc, &s->cgone, at, done);
}

/* Positions the source at the thread's next chunk.  Returns 1, 0 when its
 * chunks are done, -EBADMSG when the chunk no longer reads as in the first
 * pass (the file changed since). */
static int next_chunk(struct src *s)
{
    const struct evchunk *k;

    if (s->cpay)
        src_forget(s, 1);
    s->cpay = NULL;
    if (s->ichunk == s->t->c0 + s->t->nc)
        return 0;
    k = &s->r->chunks[s->ichunk++];
    if (vftr_vfd_scan_chunk(s->rs->sc, k->off, k->n, &s->ch) < 0 || s->ch.thread != s->t->id) {
        s->rs->changed = 1;
        s->rs->offset = k->off;
        return -EBADMSG;
    }
    s->cpay = s->ch.p;
    s->coff = s->cgone = k->off;
    s->rs->done += VFTR_VFD_CHUNK_HEADER_SIZE + (uint64_t)(s->ch.end - s->ch.p);
    return 1;
}

/* An extended record as the replay uses it: OpenMP begin/end with the
 * region id, MPI records that decode (as at open).  0: not used. */
static int ext_raw(const struct vftr_vfd_scan_event *ev, struct raw *x, struct src *s)
{
    *x = (struct raw){ ev->time, ev->kind, ev->id };
    if (x->kind == VFTR_VFD_OMP_BEGIN || x->kind == VFTR_VFD_OMP_END) {
        struct vftr_vfd_omp o;

        if (vftr_vfd_omp_decode(ev->data, ev->id, &o) < 0)
            return 0;
        x->id = o.region;
        return 1;
    }
    if (x->kind == VFTR_VFD_COUNTERS)
        return vftr_vfd_ctr_values_decode(ev->data, ev->id, &s->cv) == 0;
    if (x->kind == VFTR_VFD_MPI_COLL) {
        struct vftr_vfd_mpi_coll cl;

        return vftr_vfd_mpi_coll_decode(ev->data, ev->id, x->time, &cl) == 0;
    }
    if (x->kind == VFTR_VFD_MPI_RMA)
        return vftr_vfd_mpi_rma_decode(ev->data, ev->id, x->time, &s->rma) == 0;
    if (x->kind == VFTR_VFD_MPI_RMA_SYNC)
        return vftr_vfd_mpi_rma_sync_decode(ev->data, ev->id, x->time, &s->rsync) == 0;
    if (x->kind == VFTR_VFD_IO) {         /* its begin: placed at its start by the look-ahead */
        struct vftr_vfd_io io;
        long fi;

        if (vftr_vfd_io_decode(ev->data, ev->id, x->time, &io) < 0)
            return 0;
        if (s->iolen == s->iocap &&
            ring_grow((void **)&s->ioq, &s->iohead, s->iolen, &s->iocap, sizeof *s->ioq, 16) < 0) {
            s->oom = 1;
            return 0;
        }
        fi = io.file ? vftr_u64map_get(&s->r->iomap, io.file) : -1;
        s->ioq[(s->iohead + s->iolen++) & (s->iocap - 1)] =
            (struct rio){ io.handle, io.bytes, fi < 0 ? 0 : s->c->iofiles[fi].token,
                          vftr_vfd_io_otf_operation(io.op, io.flags) };
        return 1;
    }
    if (x->kind == VFTR_VFD_MPI_RECV) {   /* a send: placed at its start by the look-ahead */
        struct vftr_vfd_mpi_msg m;

        if (vftr_vfd_mpi_msg_decode(ev->data, ev->id, x->time, &m) < 0)
            return 0;
        if (s->rlen == s->rcap &&
            ring_grow((void **)&s->rq, &s->rhead, s->rlen, &s->rcap, sizeof *s->rq, 16) < 0) {
            s->oom = 1;
            return 0;
        }
        s->rq[(s->rhead + s->rlen++) & (s->rcap - 1)] =
            (struct rmsg){ m.comm, m.bytes, m.peer, m.tag };
        return 1;
    }
    return 0;
}

/* The thread's next event record the replay uses, into *x: reads on
 * through its chunks.  Returns 1, 0 at the end, -errno. */
static int next_raw(struct src *s, struct raw *x)
{
    struct vftr_vfd_scan_event ev;

    while (!s->eof) {
        int rc = vftr_vfd_scan_next(&s->ch, &ev);

        if (rc == 0) {          /* the chunk is done (or none was begun) */
            if ((rc = next_chunk(s)) == 1)
                continue;
        } else if (rc < 0) {
            s->rs->changed = 1;
            s->rs->offset = s->coff;
        }
        if (rc <= 0) {
            s->eof = 1;
            return rc;
        }
        if (ev.kind <= VFTR_VFD_SAMPLE) {
            x->time = ev.time;
            x->kind = ev.kind;
            x->id = ev.id;
        } else if (!ext_raw(&ev, x, s)) {
            if (s->oom)
                return -ENOMEM;
            continue;
        }
        return 1;
    }
    return 0;
}

static struct vftr_vfdconv_event *out_grow(struct src *s) __attribute__((noinline));
static struct vftr_vfdconv_event *out_grow(struct src *s)
{
    size_t cap = s->ocap ? 2 * s->ocap : REFILL + 16;
    struct vftr_vfdconv_event *p = realloc(s->out, cap * sizeof *p);

    if (!p) {
        s->oom = 1;
        return &s->spare;
    }
    /* the fields an event type does not use stay as they are: zero */
    memset(p + s->ocap, 0, (cap - s->ocap) * sizeof *p);
    s->out = p;
    s->ocap = cap;
    return &s->out[s->ohead + s->olen++];
}

/* The place of the next output event (olen counts it). */
static inline struct vftr_vfdconv_event *out_slot(struct src *s)
{
    if (s->ohead + s->olen == s->ocap)
        return out_grow(s);
    return &s->out[s->ohead + s->olen++];
}

static inline void emit(struct src *s, uint32_t type, uint64_t time, uint32_t func, uint32_t scl)
{
    struct vftr_vfdconv_event *e = out_slot(s);

    /* Enter/Leave use only these fields (see vfdconv.h); MPI events are
     * cleared whole by emit_mpi. */
    e->time = time;
    e->type = type;
    e->process = s->token;
    e->function = func;
    e->scl = scl;
}

/* An MPI event: every field cleared, then filled by the caller. */
static struct vftr_vfdconv_event *emit_mpi(struct src *s, uint32_t type, uint64_t time)
{
    struct vftr_vfdconv_event *e = out_slot(s);

    memset(e, 0, sizeof *e);
    e->time = time;
    e->type = type;
    e->process = s->token;
    return e;
}

static inline int push_frame(struct src *s, uint32_t cp, uint32_t region, uint32_t func,
                             uint32_t scl, uint64_t time)
{
    if (s->depth == s->cst && grow((void **)&s->st, &s->cst, s->depth + 1, sizeof *s->st) < 0)
        return -ENOMEM;
    s->st[s->depth++] = (struct frame){ cp, region, func, scl };
    emit(s, VFTR_VFDCONV_ENTER, time, func, scl);
    return 0;
}

static inline void pop_to(struct src *s, size_t depth, uint64_t time)
{
    while (s->depth > depth) {
        s->depth--;
        emit(s, VFTR_VFDCONV_LEAVE, time, s->st[s->depth].func, s->st[s->depth].scl);
    }
}

/* Function token and parent of call path cp (0: unknown), cached. */
static uint32_t func_of_cp_slow(struct src *s, uint32_t cp, uint32_t *parent);

static inline uint32_t func_of_cp(struct src *s, uint32_t cp, uint32_t *parent)
{
    unsigned slot = cp % CP_CACHE;

    if (s->cache_cp[slot] == cp && cp) {
        *parent = s->cache_parent[slot];
        return s->cache_f[slot];
    }
    return func_of_cp_slow(s, cp, parent);
}

static uint32_t func_of_cp_slow(struct src *s, uint32_t cp, uint32_t *parent)
{
    unsigned slot = cp % CP_CACHE;
    const struct vftr_vfd_callpath *p;
    long fi;

    p = vftr_vfd_reader_callpath(s->rs->rd, cp);
    *parent = 0;
    if (!p)
        return 0;
    *parent = p->parent;
    fi = vftr_u64map_get(&s->r->fmap, p->function);
    if (fi < 0)
        return 0;
    s->cache_cp[slot] = cp;
    s->cache_parent[slot] = p->parent;
    s->cache_f[slot] = s->c->funcs[fi].token;
    return s->cache_f[slot];
}

/* Makes the stack's call path frames spell the path of cp (root first). */
static int goto_path(struct src *s, uint32_t cp, uint64_t time)
{
    /* the path from cp to the root, leaf first: (id, function) pairs in
     * s->walk; a walk longer than MAX_WALK is a cycle in the definitions */
    size_t n = 0, j = 0, i;

    for (uint32_t id = cp; id;) {
        uint32_t parent, f = func_of_cp(s, id, &parent);

        if (!f || n == MAX_WALK)
            return 0;           /* unknown call path (or a cycle): ignore the record */
        if (2 * n + 2 > s->cwalk &&
            grow((void **)&s->walk, &s->cwalk, 2 * n + 2, sizeof *s->walk) < 0)
            return -ENOMEM;
        s->walk[2 * n] = id;
        s->walk[2 * n + 1] = f;
        n++;
        id = parent;
    }
    for (i = 0; i < s->depth; i++) {
        if (s->st[i].cp == 0)
            continue;
        if (j < n && s->st[i].cp == s->walk[2 * (n - 1 - j)]) {
            j++;
            continue;
        }
        break;
    }
    pop_to(s, i, time);
    for (; j < n; j++) {
        int rc = push_frame(s, s->walk[2 * (n - 1 - j)], 0, s->walk[2 * (n - 1 - j) + 1], 0,
                            time);

        if (rc < 0)
            return rc;
    }
    return 0;
}

/*
 * A sampled capture wrote an ENTER or EXIT only when the sample interval
 * had passed since the thread's last written one (capture/trace.c), so the
 * calls in between are missing.  What a record says about them: the
 * thread was, just before the record, in the state the record leaves
 * (ENTER p: in parent(p); EXIT p: in p) — and since the first hook after
 * the interval wrote it, that is the state at a time a fixed interval after
 * the previous record, unrelated to the program's own rhythm: a sample.
 * So the time since the previous record goes to that state: the stack
 * moves to it at the previous record's time (the latest output of the
 * source), then the record applies at its own time.  Crediting the time to
 * the state after the previous record instead would be biased against
 * whatever the hooks are called from (a loop calling a short f gives f the
 * time of the loop).  In an exact capture the state before a record is the
 * state after the one before, so nothing moves.
 */
static uint64_t sample_base(const struct src *s, uint64_t t)
{
    uint64_t b = s->olen ? s->out[s->ohead + s->olen - 1].time : s->begun ? s->last : t;

    return b < t ? b : t;
}

/* An exact capture's record that does not fit the stack (the repair is
 * made anyway): told to a consumer that asks.  0 or -errno. */
static int anomaly(struct src *s, const struct raw *x, const char *what)
{
    char buf[256];

    if (!s->cons || !s->cons->anomaly || s->r->sample_ticks)
        return 0;
    snprintf(buf, sizeof buf, "%s (call path %" PRIu32 ")", what, x->id);
    return s->cons->anomaly(s->cons->ctx, x->time, s->token, buf);
}

/* Turns one raw record into zero or more output events.  Kept out of line:
 * transform_fast() handles most records without the register saves this
 * function needs. */
static int transform(struct src *s, const struct raw *x) __attribute__((noinline));
static int transform(struct src *s, const struct raw *x)
{
    int rc;

    switch (x->kind) {
    case VFTR_VFD_ENTER: {
        uint32_t parent, f = func_of_cp(s, x->id, &parent);
        size_t k = s->depth;

        if (!f)
            return anomaly(s, x, "ENTER of an undefined call path: ignored");
        while (k > 0 && s->st[k - 1].cp == 0)
            k--;
        if ((k == 0 && parent == 0) || (k > 0 && s->st[k - 1].cp == parent))
            return push_frame(s, x->id, 0, f, 0, x->time);
        if (!s->r->sample_ticks) {
            if ((rc = anomaly(s, x, "ENTER whose caller is not the current call path: the "
                                    "stack moved to its path")) < 0)
                return rc;
            return goto_path(s, x->id, x->time);
        }
        if ((rc = goto_path(s, parent, sample_base(s, x->time))) < 0)
            return rc;
        return goto_path(s, x->id, x->time);
    }
    case VFTR_VFD_EXIT: {
        size_t k = s->depth;

        while (k > 0 && s->st[k - 1].cp == 0)
            k--;
        if (s->r->sample_ticks && (k == 0 || s->st[k - 1].cp != x->id) &&
            (rc = goto_path(s, x->id, sample_base(s, x->time))) < 0)
            return rc;
        for (size_t j = s->depth; j > 0; j--)
            if (s->st[j - 1].cp == x->id) {
                if (j < k && (rc = anomaly(s, x, "EXIT of a call path below the current "
                                                 "one: the frames above it closed")) < 0)
                    return rc;
                pop_to(s, j - 1, x->time);
                return 0;
            }
        return anomaly(s, x, "EXIT of a call path that is not on the stack: ignored");
    }
    case VFTR_VFD_SAMPLE:
        return goto_path(s, x->id, s->r->sample_ticks ? sample_base(s, x->time) : x->time);
    case VFTR_VFD_OMP_BEGIN: {
        long ri = vftr_u64map_get(&s->r->omap, x->id);

        if (ri < 0)
            return 0;
        return push_frame(s, 0, x->id, s->r->regs[ri].func, s->r->regs[ri].scl, x->time);
    }
    case VFTR_VFD_OMP_END:
        for (size_t k = s->depth; k > 0; k--)
            if (s->st[k - 1].cp == 0 && s->st[k - 1].region == x->id) {
                pop_to(s, k - 1, x->time);
                break;
            }
        return 0;
    case VFTR_VFD_MPI_RECV:
        if (s->rlen) {
            const struct rmsg *m = &s->rq[s->rhead];
            long g = vftr_u64map_get(&s->c->gmap, m->comm);
            long p = vftr_u64map_get(&s->t->exc, 1ull << 32 | s->irecv++);
            struct vftr_vfdconv_event *e;

            e = emit_mpi(s, VFTR_VFDCONV_RECV, x->time);
            e->peer = p >= 0 ? (uint32_t)p : vftr_vfdconv_process((uint32_t)m->peer, 0);
            e->group = g < 0 ? 0 : s->c->groups[g].token;
            e->tag = (uint32_t)m->tag;
            e->bytes = m->bytes;
            s->rhead = (s->rhead + 1) & (s->rcap - 1);
            s->rlen--;
        }
        return 0;
    case VFTR_VFD_MPI_COLL: {
        struct vftr_vfdconv_event *e = emit_mpi(s, VFTR_VFDCONV_COLL_END, x->time);

        e->match = ++s->icoll;
        return 0;
    }
    case VFTR_VFD_IO:
        if (s->iolen) {
            const struct rio *io = &s->ioq[s->iohead];
            uint32_t match = ++s->iio;

            /* a record of a file the trace does not define has no event (nor
             * its begin: early_event), but keeps its place in the count */
            if (io->file) {
                struct vftr_vfdconv_event *e = emit_mpi(s, VFTR_VFDCONV_FILE_END, x->time);

                e->file = io->file;
                e->op = io->op;
                e->bytes = io->bytes;
                e->received = io->handle;
                e->match = match;
            }
            s->iohead = (s->iohead + 1) & (s->iocap - 1);
            s->iolen--;
        }
        return 0;
    case VFTR_VFD_MPI_RMA: {
        const struct vftr_vfd_mpi_rma *a = &s->rma;
        long g = vftr_u64map_get(&s->c->gmap, a->comm);
        int put = a->sent > 0 || a->op == VFTR_VFD_RMA_PUT || a->op == VFTR_VFD_RMA_ACCUMULATE;
        int get = a->received > 0 || a->op == VFTR_VFD_RMA_GET;

        /* the end now, or (ENDS_AT_SYNC) at the MPI_RMA_SYNC record that
         * completes it */
        int later = (a->flags & VFTR_VFD_RMA_ENDS_AT_SYNC) != 0;

        if (a->target < 0)
            return 0;
        s->rs->rseq++;
        s->nbegun++;
        for (int k = 0; k < 2; k++) {
            struct vftr_vfdconv_event *e;

            if (!(k == 0 ? put : get))
                continue;
            for (int end = 0; end < 2 - later; end++) {
                e = emit_mpi(s, end ? VFTR_VFDCONV_RMA_END
                                    : k == 0 ? VFTR_VFDCONV_RMA_PUT : VFTR_VFDCONV_RMA_GET,
                             x->time);
                e->peer = vftr_vfdconv_process((uint32_t)a->target, 0);
                e->group = g < 0 ? 0 : s->c->groups[g].token;
                e->tag = (uint32_t)((a->win * 0x9e3779b97f4a7c15ull) >> 32);
                e->bytes = end ? 0 : k == 0 ? a->sent : a->received;
                e->match = s->rs->rseq;
                e->root = end ? s->token : 0;
            }
            if (later) {
                if (s->nrp == s->caprp &&
                    grow((void **)&s->rp, &s->caprp, s->nrp + 1, sizeof *s->rp) < 0)
                    return -ENOMEM;
                s->rp[s->nrp++] = (struct rpend){
                    a->win, s->rs->rseq, x->time, s->nbegun, a->target,
                    vftr_vfdconv_process((uint32_t)a->target, 0),
                    g < 0 ? 0 : s->c->groups[g].token,
                    (uint32_t)((a->win * 0x9e3779b97f4a7c15ull) >> 32),
                    (a->flags & VFTR_VFD_MSG_NONBLOCKING) != 0, k, a->request, s->token };
            }
        }
        return 0;
    }
    case VFTR_VFD_MPI_RMA_SYNC: {
        /* which transfers it ends is decided in time order over the
         * rank's threads (rma_sync), when the replay reaches it */
        const struct vftr_vfd_mpi_rma_sync *y = &s->rsync;
        struct vftr_vfdconv_event *e = emit_mpi(s, EV_RMA_SYNC, x->time);

        e->received = y->win;
        e->root = y->target < 0 ? UINT32_MAX : (uint32_t)y->target;
        e->op = y->what == VFTR_VFD_RMA_SYNC_REQUEST;
        e->match = e->op ? y->request : 0;
        e->bytes = s->nbegun;
        return 0;
    }
    case VFTR_VFD_COUNTERS:
        for (uint32_t i = 0; i < s->cv.n; i++) {
            struct vftr_vfdconv_event *e;

            if (s->r->ctok[i] == 0)
                continue;
            e = emit_mpi(s, VFTR_VFDCONV_COUNTER, x->time);
            e->op = s->r->ctok[i];
            e->bytes = s->cv.v[i];
        }
        return 0;
    default:
        return 0;
    }
}

/* transform() with the common cases inline: an Enter whose parent is the
 * call path on top of the stack, an Exit of the call path on top. */
static inline __attribute__((always_inline)) int transform_fast(struct src *s,
                                                                const struct raw *x)
{
    size_t d = s->depth;

    if (x->kind == VFTR_VFD_ENTER) {
        unsigned slot = x->id % CP_CACHE;
        uint32_t parent = s->cache_parent[slot];

        if (s->cache_cp[slot] == x->id && x->id && d < s->cst &&
            (d == 0 ? parent == 0 : parent != 0 && s->st[d - 1].cp == parent)) {
            uint32_t f = s->cache_f[slot];
            struct vftr_vfdconv_event *e = out_slot(s);

            s->st[d] = (struct frame){ x->id, 0, f, 0 };
            s->depth = d + 1;
            e->time = x->time;
            e->type = VFTR_VFDCONV_ENTER;
            e->process = s->token;
            e->function = f;
            e->scl = 0;
            return 0;
        }
    } else if (x->kind == VFTR_VFD_EXIT && d > 0 && s->st[d - 1].cp == x->id) {
        struct vftr_vfdconv_event *e = out_slot(s);

        s->depth = d - 1;
        e->time = x->time;
        e->type = VFTR_VFDCONV_LEAVE;
        e->process = s->token;
        e->function = s->st[d - 1].func;
        e->scl = s->st[d - 1].scl;
        return 0;
    }
    return transform(s, x);
}

/* Fills an early event (send, collective begin or file operation begin). */
static void early_event(const struct src *s, const struct early *x, struct vftr_vfdconv_event *e)
{
    long g = vftr_u64map_get(&s->c->gmap, x->comm);

    memset(e, 0, sizeof *e);
    e->process = s->t->token;
    e->time = x->time;
    e->group = g < 0 ? 0 : s->c->groups[g].token;
    e->bytes = x->bytes;
    if (x->is_coll == EARLY_IO) {
        e->group = 0;
        e->type = VFTR_VFDCONV_FILE_BEGIN;
        e->file = (uint32_t)x->peer;
        e->op = (uint32_t)x->tag;
        e->received = x->comm;
        e->match = (uint64_t)x->index + 1;
    } else if (x->is_coll) {
        e->type = VFTR_VFDCONV_COLL_BEGIN;
        e->op = (uint32_t)x->tag;
        e->root = x->peer >= 0 ? vftr_vfdconv_process((uint32_t)x->peer, 0) : 0;
        e->received = x->received;
        e->match = (uint64_t)x->index + 1;
    } else {
        long p = vftr_u64map_get(&s->t->exc, x->index);

        e->type = VFTR_VFDCONV_SEND;
        e->peer = p >= 0 ? (uint32_t)p : vftr_vfdconv_process((uint32_t)x->peer, 0);
        e->tag = (uint32_t)x->tag;
    }
}

/* Transforms raw records into out[] (empty when called) until REFILL
 * events wait or the thread's records are used up, straight from the
 * thread's chunks (the common record decoded inline; at a chunk's end, or
 * damage, next_raw goes on with the thread's next chunk, or ends).  Pages
 * read go back every FORGET_STEP bytes.  At the very end, what is still
 * open is left. */
static int refill(struct src *s)
{
    int rc;

    while (s->olen < REFILL && !s->eof) {
        struct vftr_vfd_scan_event ev;
        struct raw x;

        if (vftr_vfd_scan_next(&s->ch, &ev) == 1) {
            if (ev.kind <= VFTR_VFD_SAMPLE) {
                x.time = ev.time;
                x.kind = ev.kind;
                x.id = ev.id;
            } else if (!ext_raw(&ev, &x, s)) {
                if (s->oom)
                    return -ENOMEM;
                continue;
            }
        } else if ((rc = next_raw(s, &x)) <= 0) {
            if (rc < 0)
                return rc;
            break;
        }
        x.time = align_ns(s->r, x.time);
        if ((rc = transform_fast(s, &x)) < 0)
            return rc;
        if (s->oom)
            return -ENOMEM;
    }
    if (s->cpay && s->coff + VFTR_VFD_CHUNK_HEADER_SIZE + (uint64_t)(s->ch.p - s->cpay) -
                   s->cgone >= FORGET_STEP)
        src_forget(s, 0);
    if (s->olen == 0 && s->depth > 0)
        pop_to(s, 0, s->last);          /* the end: leave what is still open */
    return s->oom ? -ENOMEM : 0;
}

/* One-sided transfers: the order their ends are handed out in, that of
 * their records (seq), the PUT half of a record before its GET half. */
static int rpend_cmp(const void *a, const void *b)
{
    const struct rpend *x = a, *y = b;

    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->get - y->get;
}

/* Whether the synchronisation m of thread s completes transfer p of thread
 * q (m NULL: the rank's end, which ends all).  MPI: a synchronisation
 * completes the calling process's transfers on the window (to the target,
 * for the per-target calls), whatever thread issued them.  Another
 * thread's transfer counts when begun before m: of a tie in time it is not
 * known which came first, and the transfer is left to the next
 * synchronisation; s's own counts when its record came before m's. */
static int rma_completes(const struct src *s, const struct vftr_vfdconv_event *m,
                         const struct src *q, const struct rpend *p)
{
    if (!m)
        return 1;
    return p->win == m->received && (m->root == UINT32_MAX || p->target == (int32_t)m->root) &&
           (q == s ? p->idx <= m->bytes : p->time < m->time);
}

/* The transfers the synchronisation m of thread s completes (m NULL: all
 * still open at the rank's end) move from the lists of the rank's threads
 * to s->ends (empty before), in the order begun.  The wait or test of a
 * request ends one transfer (both halves of its record): the request form
 * its record numbers, or, without a number (an earlier capture), the
 * oldest open request form to the target.  0 or -ENOMEM. */
static int rma_take(struct src *s, const struct vftr_vfdconv_event *m)
{
    struct rsrc *rs = s->rs;
    uint64_t oldest = UINT64_MAX;
    int rc = 0;

    if (m && m->op && !m->match)
        for (size_t t = 0; t < rs->r->nthr; t++)
            for (size_t i = 0; i < rs->srcs[t].nrp; i++) {
                const struct rpend *p = &rs->srcs[t].rp[i];

                if (p->req && p->seq < oldest && rma_completes(s, m, &rs->srcs[t], p))
                    oldest = p->seq;
            }
    for (size_t t = 0; t < rs->r->nthr; t++) {
        struct src *q = &rs->srcs[t];
        size_t n = 0;

        for (size_t i = 0; i < q->nrp; i++) {
            const struct rpend *p = &q->rp[i];

            if (rc == 0 && rma_completes(s, m, q, p) &&
                (!m || !m->op || (m->match ? p->req && p->reqno == m->match : p->seq == oldest))) {
                if (s->nends == s->capends &&
                    grow((void **)&s->ends, &s->capends, s->nends + 1, sizeof *s->ends) < 0)
                    rc = -ENOMEM;
                else {
                    s->ends[s->nends++] = *p;
                    continue;
                }
            }
            q->rp[n++] = *p;
        }
        q->nrp = n;
    }
    if (s->nends > 1)
        qsort(s->ends, s->nends, sizeof *s->ends, rpend_cmp);
    return rc;
}

/* Whether a transfer of the rank is still open. */
static int rma_open(const struct rsrc *rs)
{
    for (size_t t = 0; t < rs->r->nthr; t++)
        if (rs->srcs[t].nrp)
            return 1;
    return 0;
}

/* The first event of a source: BeginProcess. */
static void begin(struct src *s)
{
    uint64_t t = s->t->first == UINT64_MAX ? 0 : align_ns(s->r, s->t->first);

    if (align_min(s->r, s->t->early) < t)
        t = align_min(s->r, s->t->early);
    memset(&s->own, 0, sizeof s->own);
    s->own.type = VFTR_VFDCONV_BEGIN_PROCESS;
    s->own.time = t;
    s->own.process = s->t->token;
    s->head = &s->own;
    s->begun = 1;
    s->has_head = 1;
    s->last = t;
}

/* Computes the source's next event into s->head; has_head = 0 when done.
 * Sends and collective begins (early[]) go before the transformed events
 * of a later time, or of the same time unless that event is an Enter. */
static inline int advance(struct src *s)
{
    struct vftr_vfdconv_event *o;
    int rc;

    if (!s->begun) {
        begin(s);
        return 0;
    }
    if (s->iends < s->nends) {
        /* the ends of a synchronisation (or of the rank), at its time */
        const struct rpend *p = &s->ends[s->iends++];

        memset(&s->own, 0, sizeof s->own);
        s->own.type = VFTR_VFDCONV_RMA_END;
        s->own.time = s->last;
        s->own.process = s->token;
        s->own.peer = p->peer;
        s->own.group = p->group;
        s->own.tag = p->tag;
        s->own.match = p->seq;
        s->own.root = p->proc;
        if (s->iends == s->nends)
            s->iends = s->nends = 0;
        s->head = &s->own;
        s->has_head = 1;
        return 0;
    }
    if (s->olen == 0 && (rc = refill(s)) < 0)
        return rc;
    o = s->olen ? &s->out[s->ohead] : NULL;
    /* at the thread's end only its own sends / collectives / file
     * operations still matter */
    if ((o || s->nsend_seen + s->ncoll_seen + s->nio_seen <
                  s->t->nsends + s->t->ncolls + s->t->nios) &&
        (rc = early_upto(s, o ? o->time : UINT64_MAX)) < 0)
        return rc;
    if (s->nearly &&
        (!o || s->early[0].time < o->time ||
         (s->early[0].time == o->time && o->type != VFTR_VFDCONV_ENTER))) {
        struct early x = eheap_pop(s->early, &s->nearly);

        early_event(s, &x, &s->own);
        s->head = &s->own;
        if (x.is_coll == EARLY_IO && s->own.file == 0)
            return advance(s);      /* a file the trace does not define: no event */
    } else if (o) {
        s->head = o;
        s->ohead = --s->olen ? s->ohead + 1 : 0;
    } else if (!s->ended && s->rs->alive == 1 && rma_open(s->rs)) {
        /* transfers no synchronisation completed end with the rank's last
         * thread (until then another thread may still complete them) */
        if ((rc = rma_take(s, NULL)) < 0)
            return rc;
        return advance(s);
    } else if (!s->ended) {
        memset(&s->own, 0, sizeof s->own);
        s->own.type = VFTR_VFDCONV_END_PROCESS;
        s->own.time = s->last;
        s->own.process = s->t->token;
        s->head = &s->own;
        s->ended = 1;
        s->rs->alive--;
    } else {
        s->has_head = 0;
        return 0;
    }
    if (s->head->time < s->last)
        s->head->time = s->last;
    s->last = s->head->time;
    s->has_head = 1;
    return 0;
}

/* Mirrors advance(): a thread begins at its first event or its earliest
 * send / collective start (0 if it has no event), and ends at the latest
 * time handed out, which is its last event (starts precede their records,
 * the clock fit is increasing). */
void vftr_vfdconv_time_range(const struct vftr_vfdconv *c, uint64_t *first, uint64_t *last)
{
    uint64_t lo = UINT64_MAX, hi = 0;

    for (size_t i = 0; i < c->nranks; i++) {
        const struct rank *r = &c->ranks[i];

        for (size_t t = 0; t < r->nthr; t++) {
            const struct thr *th = &r->thr[t];
            uint64_t b = th->first == UINT64_MAX ? 0 : align_ns(r, th->first), e = b;

            if (align_min(r, th->early) < b)
                b = align_min(r, th->early);
            if (th->first != UINT64_MAX && align_ns(r, th->last) > e)
                e = align_ns(r, th->last);
            if (b < lo)
                lo = b;
            if (e > hi)
                hi = e;
        }
    }
    *first = lo == UINT64_MAX ? 0 : lo;
    *last = hi < *first ? *first : hi;
}

/* Heap of sources by (head time, process). */
static int src_less(const struct src *a, const struct src *b)
{
    if (a->head->time != b->head->time)
        return a->head->time < b->head->time;
    return a->head->process < b->head->process;
}

/* The source that comes next after heap[0]. */
static const struct src *second(struct src *const *h, size_t n)
{
    return n > 2 && src_less(h[2], h[1]) ? h[2] : h[1];
}

/* s->head lies in out[] (at ohead - 1): takes the events following it in
 * out[] for as long as advance() would hand them out one by one before
 * anything of the next source (and before s's pending sends / collective
 * begins), clamping their times as advance() does.  Returns the length of
 * the run, head included; the caller hands it out, then advances s. */
static size_t run_length(struct src *s, const struct src *next)
{
    size_t k = 1;

    while (s->olen > 0) {
        struct vftr_vfdconv_event *o = &s->out[s->ohead];
        uint64_t t = o->time < s->last ? s->last : o->time;

        if (o->type == EV_RMA_SYNC)
            break;              /* the replay decides what it ends, in time order */
        if (o->time >= s->ehorizon)
            break;              /* the look-ahead must read on first: advance() does */
        if (s->nearly &&
            (s->early[0].time < o->time ||
             (s->early[0].time == o->time && o->type != VFTR_VFDCONV_ENTER)))
            break;
        if (next && (t > next->head->time ||
                     (t == next->head->time && o->process >= next->head->process)))
            break;
        o->time = t;
        s->last = t;
        s->ohead++;
        s->olen--;
        k++;
    }
    if (s->olen == 0)
        s->ohead = 0;
    return k;
}

static int src_less_p(struct src *const *a, struct src *const *b)
{
    return src_less(*a, *b);
}

DEFINE_HEAP(srcheap, struct src *, src_less_p)

int vftr_vfdconv_replay(const struct vftr_vfdconv *c, const uint32_t *ranks, size_t n,
                        const struct vftr_vfdconv_consumer *consumer, uint64_t *events,
                        char *err, size_t errlen)
{
    struct rsrc *rs = calloc(n ? n : 1, sizeof *rs);
    struct src **heap = NULL;
    size_t nsrc = 0, nh = 0;
    uint64_t count = 0, bytes_done = 0, tick = 0;
    int rc = 0;

    if (events)
        *events = 0;
    if (!rs)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (ranks[i] >= c->nranks) {
            set_err(err, errlen, "rank index %" PRIu32 " out of range", ranks[i]);
            rc = -EINVAL;
            goto out;
        }
        nsrc += c->ranks[ranks[i]].nthr;
    }
    heap = calloc(nsrc + 1, sizeof *heap);
    if (!heap) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const struct rank *r = &c->ranks[ranks[i]];
        char msg[VFTR_VFD_ERR_MAX];

        rs[i].r = r;
        rs[i].rd = vftr_vfd_reader_open_msg(r->path, msg, sizeof msg);
        if (!rs[i].rd) {
            set_err(err, errlen, "%s", msg);
            rc = errno ? -errno : -EBADMSG;
            goto out;
        }
        vftr_vfd_reader_scan_definitions(rs[i].rd);
        rs[i].sc = vftr_vfd_scan_open(r->path);
        if (!rs[i].sc) {
            set_err(err, errlen, "%s: cannot open: %s", r->path, strerror(errno));
            rc = -errno;
            goto out;
        }
        rs[i].esc = vftr_vfd_scan_open(r->path);
        if (!rs[i].esc) {
            set_err(err, errlen, "%s: cannot open: %s", r->path, strerror(errno));
            rc = -errno;
            goto out;
        }
        rs[i].srcs = calloc(r->nthr ? r->nthr : 1, sizeof *rs[i].srcs);
        if (!rs[i].srcs) {
            rc = -ENOMEM;
            goto out;
        }
        rs[i].alive = r->nthr;
        for (size_t t = 0; t < r->nthr; t++) {
            struct src *s = &rs[i].srcs[t];
            const struct thr *th = &r->thr[t];

            s->c = c;
            s->cons = consumer;
            s->rs = &rs[i];
            s->r = r;
            s->t = th;
            s->token = th->token;
            s->ichunk = s->echunk = th->c0;
            s->ehorizon = th->nc ? align_min(r, r->chunks[th->c0].mpimin) : UINT64_MAX;
            heap[nh++] = s;
        }
    }
    for (size_t i = 0; i < nh; i++)
        if ((rc = advance(heap[i])) < 0)
            goto out;
    /* drop sources without a head, then heapify */
    for (size_t i = 0; i < nh;)
        if (!heap[i]->has_head)
            heap[i] = heap[--nh];
        else
            i++;
    for (size_t i = nh / 2; i-- > 0;)
        srcheap_down(heap, nh, i);
    while (nh > 0) {
        struct src *s = heap[0];

        if (s->head->type == EV_RMA_SYNC) {
            /* the earliest event of the rank's threads: every transfer
             * begun before it is handed out and in its thread's list */
            if ((rc = rma_take(s, s->head)) < 0)
                goto out;
        } else if (consumer->events && s->head != &s->own) {
            /* a run: the events after the head that still come first */
            size_t k = run_length(s, nh > 1 ? second(heap, nh) : NULL);

            rc = consumer->events(consumer->ctx, s->head, k);
            if (rc < 0)
                goto out;
            count += k;
        } else {
            rc = consumer->event(consumer->ctx, s->head);
            if (rc < 0)
                goto out;
            count++;
        }
        if ((rc = advance(s)) < 0)
            goto out;
        if (!s->has_head)
            heap[0] = heap[--nh];
        if (nh > 1)
            srcheap_down(heap, nh, 0);
        if (consumer->progress && (++tick & 0xffff) == 0) {
            bytes_done = 0;
            for (size_t i = 0; i < n; i++)
                bytes_done += rs[i].done;
            consumer->progress(consumer->ctx, bytes_done);
        }
    }
    if (consumer->progress) {
        bytes_done = 0;
        for (size_t i = 0; i < n; i++)
            bytes_done += rs[i].r->bytes;
        consumer->progress(consumer->ctx, bytes_done);
    }
out:
    if (events)
        *events = count;
    for (size_t i = 0; i < n; i++)
        if (rs[i].changed && err && errlen && !err[0])
            set_err(err, errlen, "%s: offset %" PRIu64 ": the events chunk no longer reads as "
                    "in the first pass (was the file changed?)", rs[i].r->path, rs[i].offset);
    for (size_t i = 0; i < n; i++) {
        if (rs[i].srcs)
            for (size_t t = 0; t < rs[i].r->nthr; t++) {
                free(rs[i].srcs[t].out);
                free(rs[i].srcs[t].st);
                free(rs[i].srcs[t].walk);
                free(rs[i].srcs[t].early);
                free(rs[i].srcs[t].rq);
                free(rs[i].srcs[t].ioq);
                free(rs[i].srcs[t].rp);
                free(rs[i].srcs[t].ends);
            }
        free(rs[i].srcs);
        vftr_vfd_reader_close(rs[i].rd);
        vftr_vfd_scan_close(rs[i].sc);
        vftr_vfd_scan_close(rs[i].esc);
    }
    free(rs);
    free(heap);
    if (rc < 0 && err && errlen && !err[0])
        set_err(err, errlen, "%s", strerror(-rc));
    return rc;
}
