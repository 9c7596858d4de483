/*
 * otfbench — one OTF benchmark, compiled twice: against the reference OTF
 * 1.12.5 and against vftr's libvftrotf.  It uses nothing but the OTF API, so
 * the two binaries differ only in the library behind it.
 *
 *   otfbench write  STUB N [-z LEVEL]   write a synthetic trace of N events
 *   otfbench read   STUB                read every event through OTF_Reader
 *   otfbench window STUB FRAC [REPS]    time reads of the last FRAC of the span
 *
 * One mode per process, so that the peak resident set size printed at the end
 * (getrusage) belongs to that phase alone.  Output is one `key=value` per line
 * on stdout; errors go to stderr as "otfbench: ..." and set the exit status
 * (0 ok, 1 runtime error, 2 usage).
 *
 * The trace: 16 processes on 4 streams (process p on stream (p-1)%4+1),
 * definitions first, then N events from a deterministic pseudo-random
 * generator: nested enter/leave, point-to-point messages whose receive follows
 * the send, and now and then a counter sample.  A single global clock that
 * never goes back drives all processes, so every stream is already merged by
 * time, as a tracer that merges its processes' buffers would write it.  The
 * time range goes into the global definitions when the events are done.
 *
 * Agreement: the writer prints the record count and an order-independent
 * checksum (a sum of per-record hashes over every field) of what it wrote; the
 * reader prints the same two numbers for what it read.  Records of different
 * streams with equal time stamps may be delivered in any order, hence the sum.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <otf.h>

#ifndef OTFBENCH_LIB
#define OTFBENCH_LIB "unknown"
#endif

enum {
    NPROCS = 16,
    NSTREAMS = 4,
    NFUNCS = 240,         /* function ids 1..NFUNCS */
    NFUNC_GROUPS = 8,
    NHOT_FUNCS = 24,      /* most calls go to a few functions, as in real codes */
    MAX_DEPTH = 12,
    MSG_QUEUE = 32,       /* in-flight messages per receiver */
    NCOUNTERS = 2,
    COMM_WORLD = 1000000, /* process group id used as communicator */
    REPS_DEFAULT = 20,
};

static const uint64_t TICKS_PER_SECOND = 1000000000u; /* nanoseconds */
static const uint64_t FIRST_TIME = 1000000000u;       /* first stamp: 1 s */

/* Record kinds folded into the checksum (not OTF's record ids: any fixed
 * distinct values do). */
enum { K_ENTER = 1, K_LEAVE, K_SEND, K_RECV, K_COUNTER };

/* ------------------------------------------------------------------------ */
/* helpers */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User plus system CPU time of this process: less disturbed than the wall
 * clock when other work shares the machine, printed for comparison. */
static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1.0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_maxrss; /* KiB on Linux */
}

/* splitmix64: deterministic, fast, good enough to drive the generator. */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdu;
    return h ^ (h >> 33);
}

/* Hash of one event record; every field goes in, unused ones as 0.  The sum
 * of these over a trace does not depend on delivery order. */
static uint64_t record_hash(unsigned kind, uint64_t time, uint64_t a,
                            uint64_t b, uint64_t c, uint64_t d, uint64_t e,
                            uint64_t f)
{
    /* Independent multiplications (they run in parallel) and one final
     * mix: every field counts, and the harness stays a small part of what
     * is measured. */
    uint64_t h = kind * 0x9e3779b97f4a7c15u + time * 0xc2b2ae3d27d4eb4fu +
                 a * 0x165667b19e3779f9u + b * 0xd6e8feb86659fd93u +
                 c * 0xa0761d6478bd642fu + d * 0xe7037ed1a0b428dbu +
                 e * 0x8ebc6af09c88c6e3u + f * 0x589965cc75374cc3u;
    return mix(h, kind);
}

/* The handler array stores every handler as OTF_FunctionPointer*; going
 * through void (*)(void) tells the compiler the cast is intended. */
#define BENCH_HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

/* Prints the library's last error on one line (the reference's messages
 * contain newlines), so that run.sh can quote it. */
static void report_otf_error(const char *what)
{
    char msg[1024];
    size_t n = 0;
    for (const char *s = otf_strerr; *s != '\0' && n + 1 < sizeof msg; s++) {
        char c = (*s == '\n' || *s == '\t') ? ' ' : *s;
        if (c == ' ' && (n == 0 || msg[n - 1] == ' '))
            continue;
        msg[n++] = c;
    }
    while (n > 0 && msg[n - 1] == ' ')
        n--;
    msg[n] = '\0';
    fprintf(stderr, "otfbench: %s failed%s%s\n", what, n ? ": " : "", msg);
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* write */

struct msg {
    uint32_t sender, tag, length;
};

struct proc_state {
    uint32_t stack[MAX_DEPTH];
    unsigned depth;
    struct msg inbox[MSG_QUEUE]; /* ring buffer of messages to receive */
    unsigned head, count;
    uint64_t counter_value[NCOUNTERS];
};

struct gen {
    OTF_Writer *writer;
    uint64_t rng, time;
    uint64_t written, checksum;
    uint64_t outstanding; /* leaves and receives still owed */
    struct proc_state procs[NPROCS + 1]; /* index = process id */
};

static uint32_t pick_function(struct gen *g)
{
    uint64_t r = rng_next(&g->rng);
    if ((r & 7) != 0)
        return 1 + (uint32_t)((r >> 8) % NHOT_FUNCS);
    return 1 + (uint32_t)((r >> 8) % NFUNCS);
}

static int emit_enter(struct gen *g, uint32_t p)
{
    struct proc_state *ps = &g->procs[p];
    uint32_t f = pick_function(g);
    if (!OTF_Writer_writeEnter(g->writer, g->time, f, p, 0))
        return -1;
    ps->stack[ps->depth++] = f;
    g->outstanding++;
    g->checksum += record_hash(K_ENTER, g->time, f, p, 0, 0, 0, 0);
    g->written++;
    return 0;
}

static int emit_leave(struct gen *g, uint32_t p)
{
    struct proc_state *ps = &g->procs[p];
    uint32_t f = ps->stack[--ps->depth];
    if (!OTF_Writer_writeLeave(g->writer, g->time, f, p, 0))
        return -1;
    g->outstanding--;
    g->checksum += record_hash(K_LEAVE, g->time, f, p, 0, 0, 0, 0);
    g->written++;
    return 0;
}

static int emit_send(struct gen *g, uint32_t p, uint32_t to)
{
    uint64_t r = rng_next(&g->rng);
    struct proc_state *dst = &g->procs[to];
    struct msg m = { p, (uint32_t)(r % 100), 8u << (r >> 8) % 14 };
    if (!OTF_Writer_writeSendMsg(g->writer, g->time, p, to, COMM_WORLD,
                                 m.tag, m.length, 0))
        return -1;
    dst->inbox[(dst->head + dst->count++) % MSG_QUEUE] = m;
    g->outstanding++;
    g->checksum += record_hash(K_SEND, g->time, p, to, COMM_WORLD, m.tag,
                               m.length, 0);
    g->written++;
    return 0;
}

static int emit_recv(struct gen *g, uint32_t p)
{
    struct proc_state *ps = &g->procs[p];
    struct msg m = ps->inbox[ps->head];
    ps->head = (ps->head + 1) % MSG_QUEUE;
    ps->count--;
    if (!OTF_Writer_writeRecvMsg(g->writer, g->time, p, m.sender, COMM_WORLD,
                                 m.tag, m.length, 0))
        return -1;
    g->outstanding--;
    g->checksum += record_hash(K_RECV, g->time, p, m.sender, COMM_WORLD,
                               m.tag, m.length, 0);
    g->written++;
    return 0;
}

static int emit_counter(struct gen *g, uint32_t p)
{
    struct proc_state *ps = &g->procs[p];
    uint64_t r = rng_next(&g->rng);
    uint32_t c = (uint32_t)(r % NCOUNTERS);
    ps->counter_value[c] += (r >> 16) % 100000;
    if (!OTF_Writer_writeCounter(g->writer, g->time, p, c + 1,
                                 ps->counter_value[c]))
        return -1;
    g->checksum += record_hash(K_COUNTER, g->time, p, c + 1,
                               ps->counter_value[c], 0, 0, 0);
    g->written++;
    return 0;
}

/* One event of process p.  `room` is how many more events the budget allows
 * beyond those already owed: an enter or a send costs two (it owes a leave or
 * a receive), anything else one. */
static int emit_one(struct gen *g, uint32_t p, uint64_t room)
{
    struct proc_state *ps = &g->procs[p];
    uint64_t r = rng_next(&g->rng);

    if (ps->count > 0 && (r & 1))
        return emit_recv(g, p);
    unsigned dice = (unsigned)((r >> 1) % 64);
    if (dice < 2 && room >= 2) {
        uint32_t to = 1 + (uint32_t)((r >> 8) % (NPROCS - 1));
        if (to >= p)
            to++; /* anyone but p */
        if (g->procs[to].count < MSG_QUEUE)
            return emit_send(g, p, to);
    }
    if (dice == 2)
        return emit_counter(g, p);
    int want_enter = ps->depth == 0 ||
                     (ps->depth < MAX_DEPTH && ((r >> 20) & 1));
    if (want_enter && room >= 2)
        return emit_enter(g, p);
    if (ps->depth > 0)
        return emit_leave(g, p);
    return emit_counter(g, p);
}

static int write_definitions(OTF_Writer *w)
{
    char name[64];
    uint32_t members[NPROCS];

    if (!OTF_Writer_writeDefCreator(w, 0, "vftr otfbench") ||
        !OTF_Writer_writeDefTimerResolution(w, 0, TICKS_PER_SECOND))
        return -1;
    for (uint32_t p = 1; p <= NPROCS; p++) {
        snprintf(name, sizeof name, "Process %u", (unsigned)(p - 1));
        if (!OTF_Writer_writeDefProcess(w, 0, p, name, 0))
            return -1;
        members[p - 1] = p;
    }
    if (!OTF_Writer_writeDefProcessGroup(w, 0, COMM_WORLD, "MPI_COMM_WORLD",
                                         NPROCS, members))
        return -1;
    for (uint32_t fg = 1; fg <= NFUNC_GROUPS; fg++) {
        snprintf(name, sizeof name, "group_%u", (unsigned)fg);
        if (!OTF_Writer_writeDefFunctionGroup(w, 0, fg, name))
            return -1;
    }
    for (uint32_t f = 1; f <= NFUNCS; f++) {
        snprintf(name, sizeof name, "solver_module_function_%u", (unsigned)f);
        if (!OTF_Writer_writeDefFunction(w, 0, f, name,
                                         1 + (f - 1) % NFUNC_GROUPS, 0))
            return -1;
    }
    if (!OTF_Writer_writeDefCounterGroup(w, 0, 1, "PAPI") ||
        !OTF_Writer_writeDefCounter(w, 0, 1, "PAPI_TOT_INS",
                                    OTF_COUNTER_TYPE_ACC, 1, "#") ||
        !OTF_Writer_writeDefCounter(w, 0, 2, "PAPI_L2_DCM",
                                    OTF_COUNTER_TYPE_ACC, 1, "#"))
        return -1;
    return 0;
}

static int mode_write(const char *stub, uint64_t n, unsigned level)
{
    static struct gen g; /* ~8 KiB of generator state, zeroed */
    int rc = 1;
    double t0 = now_seconds();

    OTF_FileManager *manager = OTF_FileManager_open(100);
    if (manager == NULL) {
        report_otf_error("OTF_FileManager_open");
        return 1;
    }
    g.writer = OTF_Writer_open(stub, NSTREAMS, manager);
    if (g.writer == NULL) {
        report_otf_error("OTF_Writer_open");
        OTF_FileManager_close(manager);
        return 1;
    }
    if (level > 0 && !OTF_Writer_setCompression(g.writer, level)) {
        report_otf_error("OTF_Writer_setCompression");
        goto out;
    }
    for (uint32_t p = 1; p <= NPROCS; p++) {
        if (OTF_Writer_assignProcess(g.writer, p, 1 + (p - 1) % NSTREAMS) == 0) {
            report_otf_error("OTF_Writer_assignProcess");
            goto out;
        }
    }
    if (write_definitions(g.writer) != 0) {
        report_otf_error("writing definitions");
        goto out;
    }

    g.rng = 0x76667472u; /* fixed seed: both libraries write the same trace */
    g.time = FIRST_TIME;
    uint64_t first = 0, last = 0;
    while (g.written + g.outstanding < n) {
        uint64_t r = rng_next(&g.rng);
        uint32_t p = 1 + (uint32_t)(r % NPROCS);
        /* Mostly tens to hundreds of ns apart, sometimes a gap of a few
         * microseconds, and now and then the same stamp twice. */
        uint64_t step = (r >> 8) % 400;
        if (((r >> 24) & 63) == 0)
            step += 5000;
        if (((r >> 32) & 15) == 0)
            step = 0;
        g.time += step;
        if (g.written == 0)
            first = g.time;
        if (emit_one(&g, p, n - (g.written + g.outstanding)) != 0) {
            report_otf_error("writing an event");
            goto out;
        }
    }
    /* Drain what is owed: pending receives, then the open call stacks. */
    for (uint32_t p = 1; p <= NPROCS; p++) {
        while (g.procs[p].count > 0) {
            g.time += 100;
            if (emit_recv(&g, p) != 0) {
                report_otf_error("writing an event");
                goto out;
            }
        }
        while (g.procs[p].depth > 0) {
            g.time += 100;
            if (emit_leave(&g, p) != 0) {
                report_otf_error("writing an event");
                goto out;
            }
        }
    }
    if (g.written == 0)
        first = g.time;
    last = g.time;
    if (!OTF_Writer_writeDefTimeRange(g.writer, 0, first, last, NULL)) {
        report_otf_error("OTF_Writer_writeDefTimeRange");
        goto out;
    }
    rc = 0;
out:
    if (!OTF_Writer_close(g.writer) && rc == 0) {
        report_otf_error("OTF_Writer_close");
        rc = 1;
    }
    OTF_FileManager_close(manager);
    double secs = now_seconds() - t0;
    if (rc != 0)
        return rc;

    printf("lib=%s\nmode=write\nlevel=%u\nrecords=%" PRIu64
           "\nchecksum=%016" PRIx64 "\nfirst_time=%" PRIu64
           "\nlast_time=%" PRIu64 "\nseconds=%.6f\ncpu_seconds=%.6f\n"
           "events_per_s=%.0f\nmaxrss_kib=%ld\n",
           OTFBENCH_LIB, level, g.written, g.checksum, first, last, secs,
           cpu_seconds(), secs > 0 ? (double)g.written / secs : 0.0,
           peak_rss_kib());
    return 0;
}

/* ------------------------------------------------------------------------ */
/* read */

struct tally {
    uint64_t records, checksum;
    uint64_t min_time, max_time; /* from DefTimeRange */
    int have_range;
};

static int on_enter(void *ud, uint64_t time, uint32_t func, uint32_t proc,
                    uint32_t source, OTF_KeyValueList *list)
{
    struct tally *t = ud;
    (void)list;
    t->records++;
    t->checksum += record_hash(K_ENTER, time, func, proc, source, 0, 0, 0);
    return OTF_RETURN_OK;
}

static int on_leave(void *ud, uint64_t time, uint32_t func, uint32_t proc,
                    uint32_t source, OTF_KeyValueList *list)
{
    struct tally *t = ud;
    (void)list;
    t->records++;
    t->checksum += record_hash(K_LEAVE, time, func, proc, source, 0, 0, 0);
    return OTF_RETURN_OK;
}

static int on_send(void *ud, uint64_t time, uint32_t sender, uint32_t receiver,
                   uint32_t group, uint32_t tag, uint32_t length,
                   uint32_t source, OTF_KeyValueList *list)
{
    struct tally *t = ud;
    (void)list;
    t->records++;
    t->checksum += record_hash(K_SEND, time, sender, receiver, group, tag,
                               length, source);
    return OTF_RETURN_OK;
}

static int on_recv(void *ud, uint64_t time, uint32_t receiver, uint32_t sender,
                   uint32_t group, uint32_t tag, uint32_t length,
                   uint32_t source, OTF_KeyValueList *list)
{
    struct tally *t = ud;
    (void)list;
    t->records++;
    t->checksum += record_hash(K_RECV, time, receiver, sender, group, tag,
                               length, source);
    return OTF_RETURN_OK;
}

static int on_counter(void *ud, uint64_t time, uint32_t proc, uint32_t counter,
                      uint64_t value, OTF_KeyValueList *list)
{
    struct tally *t = ud;
    (void)list;
    t->records++;
    t->checksum += record_hash(K_COUNTER, time, proc, counter, value, 0, 0, 0);
    return OTF_RETURN_OK;
}

static int on_time_range(void *ud, uint32_t stream, uint64_t min_time,
                         uint64_t max_time, OTF_KeyValueList *list)
{
    struct tally *t = ud;
    (void)stream;
    (void)list;
    t->min_time = min_time;
    t->max_time = max_time;
    t->have_range = 1;
    return OTF_RETURN_OK;
}

static const struct {
    uint32_t record;
    OTF_FunctionPointer *fn;
} event_handlers[] = {
    { OTF_ENTER_RECORD, BENCH_HANDLER(on_enter) },
    { OTF_LEAVE_RECORD, BENCH_HANDLER(on_leave) },
    { OTF_SEND_RECORD, BENCH_HANDLER(on_send) },
    { OTF_RECEIVE_RECORD, BENCH_HANDLER(on_recv) },
    { OTF_COUNTER_RECORD, BENCH_HANDLER(on_counter) },
    { OTF_DEFTIMERANGE_RECORD, BENCH_HANDLER(on_time_range) },
};

static OTF_HandlerArray *make_handlers(struct tally *t)
{
    OTF_HandlerArray *ha = OTF_HandlerArray_open();
    if (ha == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof event_handlers / sizeof event_handlers[0]; i++) {
        if (!OTF_HandlerArray_setHandler(ha, event_handlers[i].fn,
                                         event_handlers[i].record) ||
            !OTF_HandlerArray_setFirstHandlerArg(ha, t, event_handlers[i].record)) {
            OTF_HandlerArray_close(ha);
            return NULL;
        }
    }
    return ha;
}

static int mode_read(const char *stub)
{
    struct tally t = { 0 };
    int rc = 1;
    double t0 = now_seconds();

    OTF_FileManager *manager = OTF_FileManager_open(100);
    OTF_HandlerArray *ha = make_handlers(&t);
    OTF_Reader *reader = NULL;
    if (manager == NULL || ha == NULL) {
        report_otf_error("setting up the reader");
        goto out;
    }
    reader = OTF_Reader_open(stub, manager);
    if (reader == NULL) {
        report_otf_error("OTF_Reader_open");
        goto out;
    }
    uint64_t n = OTF_Reader_readEvents(reader, ha);
    if (n == OTF_READ_ERROR) {
        report_otf_error("OTF_Reader_readEvents");
        goto out;
    }
    if (n != t.records) {
        fprintf(stderr, "otfbench: readEvents returned %" PRIu64
                " but the handlers saw %" PRIu64 " records\n", n, t.records);
        goto out;
    }
    rc = 0;
out:
    if (reader != NULL && !OTF_Reader_close(reader) && rc == 0) {
        report_otf_error("OTF_Reader_close");
        rc = 1;
    }
    if (ha != NULL)
        OTF_HandlerArray_close(ha);
    if (manager != NULL)
        OTF_FileManager_close(manager);
    double secs = now_seconds() - t0;
    if (rc != 0)
        return rc;

    printf("lib=%s\nmode=read\nrecords=%" PRIu64 "\nchecksum=%016" PRIx64
           "\nseconds=%.6f\ncpu_seconds=%.6f\nevents_per_s=%.0f\nmaxrss_kib=%ld\n",
           OTFBENCH_LIB, t.records, t.checksum, secs, cpu_seconds(),
           secs > 0 ? (double)t.records / secs : 0.0, peak_rss_kib());
    return 0;
}

/* ------------------------------------------------------------------------ */
/* window */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * The reader stays open for the whole run (master file and definitions read
 * once: "trace open"), as in a viewer that scrolls through a trace; each
 * repetition sets the interval again and reads it, which makes the library
 * find the window's start anew (the reference re-positions its streams on
 * every OTF_Reader_setTimeInterval).  The first repetition is a warm-up and
 * is not counted; all repetitions must deliver the same records.
 */
static int mode_window(const char *stub, double frac, unsigned reps)
{
    struct tally t = { 0 };
    double times[64];
    uint64_t lo = 0, hi = 0, count = 0, checksum = 0;
    int rc = 1;

    if (reps > sizeof times / sizeof times[0])
        reps = sizeof times / sizeof times[0];

    OTF_FileManager *manager = OTF_FileManager_open(100);
    OTF_HandlerArray *ha = make_handlers(&t);
    OTF_Reader *reader = NULL;
    if (manager == NULL || ha == NULL) {
        report_otf_error("setting up the reader");
        goto out;
    }
    reader = OTF_Reader_open(stub, manager);
    if (reader == NULL) {
        report_otf_error("OTF_Reader_open");
        goto out;
    }
    if (OTF_Reader_readDefinitions(reader, ha) == OTF_READ_ERROR) {
        report_otf_error("OTF_Reader_readDefinitions");
        goto out;
    }
    if (!t.have_range || t.max_time < t.min_time) {
        fprintf(stderr, "otfbench: %s: no usable DefTimeRange in the definitions\n",
                stub);
        goto out;
    }
    hi = t.max_time;
    lo = hi - (uint64_t)(frac * (double)(t.max_time - t.min_time));

    for (unsigned i = 0; i <= reps; i++) {
        t.records = 0;
        t.checksum = 0;
        double t0 = now_seconds();
        OTF_Reader_setTimeInterval(reader, lo, hi);
        uint64_t n = OTF_Reader_readEvents(reader, ha);
        double dt = now_seconds() - t0;
        if (n == OTF_READ_ERROR) {
            report_otf_error("OTF_Reader_readEvents (time window)");
            goto out;
        }
        if (i == 0) {
            count = t.records;
            checksum = t.checksum;
        } else {
            if (t.records != count || t.checksum != checksum) {
                fprintf(stderr, "otfbench: %s: repeated window reads differ "
                        "(%" PRIu64 " vs %" PRIu64 " records)\n",
                        stub, t.records, count);
                goto out;
            }
            times[i - 1] = dt;
        }
    }
    rc = 0;
out:
    if (reader != NULL && !OTF_Reader_close(reader) && rc == 0) {
        report_otf_error("OTF_Reader_close");
        rc = 1;
    }
    if (ha != NULL)
        OTF_HandlerArray_close(ha);
    if (manager != NULL)
        OTF_FileManager_close(manager);
    if (rc != 0)
        return rc;

    qsort(times, reps, sizeof times[0], cmp_double);
    double median = reps % 2 ? times[reps / 2]
                             : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    printf("lib=%s\nmode=window\nfrac=%g\nwindow_min=%" PRIu64
           "\nwindow_max=%" PRIu64 "\nreps=%u\nrecords=%" PRIu64
           "\nchecksum=%016" PRIx64 "\nmedian_ms=%.4f\nmin_ms=%.4f\n"
           "max_ms=%.4f\nmaxrss_kib=%ld\n",
           OTFBENCH_LIB, frac, lo, hi, reps, count, checksum, median * 1e3,
           times[0] * 1e3, times[reps - 1] * 1e3, peak_rss_kib());
    return 0;
}

/* ------------------------------------------------------------------------ */

static const char usage_text[] =
    "usage: otfbench write STUB N [-z LEVEL]\n"
    "       otfbench read STUB\n"
    "       otfbench window STUB FRAC [REPS]\n";

int main(int argc, char **argv)
{
    uint64_t v;

    if (argc >= 4 && strcmp(argv[1], "write") == 0) {
        uint64_t n, level = 0;
        if (parse_u64(argv[3], &n) != 0)
            goto usage;
        if (argc == 6 && strcmp(argv[4], "-z") == 0) {
            if (parse_u64(argv[5], &level) != 0 || level > 9)
                goto usage;
        } else if (argc != 4) {
            goto usage;
        }
        return mode_write(argv[2], n, (unsigned)level);
    }
    if (argc == 3 && strcmp(argv[1], "read") == 0)
        return mode_read(argv[2]);
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "window") == 0) {
        char *end;
        double frac = strtod(argv[3], &end);
        if (end == argv[3] || *end != '\0' || !(frac > 0.0 && frac <= 1.0))
            goto usage;
        v = REPS_DEFAULT;
        if (argc == 5 && (parse_u64(argv[4], &v) != 0 || v == 0 || v > 64))
            goto usage;
        return mode_window(argv[2], frac, (unsigned)v);
    }
usage:
    fputs(usage_text, stderr);
    return 2;
}
