/*
 * mkvfd — writes small .vfd runs for the vfd2otf tests through lib/vfd's
 * writer and the ext encoders.  Every time stamp, call path and message is
 * spelled out here, so the expected OTF events in the test scripts are
 * worked out by hand from this file (not from vfd2otf's output).
 *
 *   mkvfd SCENARIO DIR        scenarios: basic, skew, sample, sampled, misfit, trunc, otherrun,
 *                             threads, rma,
 *                             big (with N as a third argument: events per file),
 *                             msgs (with M: messages per file),
 *                             idle (with N and a layout: an idle OpenMP worker)
 *
 * Clock convention of the scenarios: 1 tick = 1 ns and every rank starts at
 * tick 0 at the same wall-clock time, unless the scenario says otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

#define START_NS 1700000000000000000ull
#define MAXEV 65536

struct buf {
    struct vftr_vfd_event ev[MAXEV];
    size_t n;
};

static uint8_t chunk[4u << 20];

static void die(const char *what)
{
    fprintf(stderr, "mkvfd: %s\n", what);
    exit(1);
}

static void ev(struct buf *b, uint64_t t, uint32_t kind, uint32_t id)
{
    if (b->n >= MAXEV)
        die("buffer full");
    b->ev[b->n++] = (struct vftr_vfd_event){ t, kind, id };
}

static void ext(struct buf *b, uint64_t t, uint32_t kind, const uint8_t *p, size_t len)
{
    ev(b, t, kind, (uint32_t)len);
    for (size_t i = 0; i < len; i += 16) {
        struct vftr_vfd_event slot;

        memset(&slot, 0, sizeof slot);
        memcpy(&slot, p + i, len - i < 16 ? len - i : 16);
        if (b->n >= MAXEV)
            die("buffer full");
        b->ev[b->n++] = slot;
    }
}

static void msg(struct buf *b, uint64_t t, int send, int32_t peer, int32_t tag, uint64_t bytes,
                uint64_t comm, uint64_t start)
{
    struct vftr_vfd_mpi_msg m = { peer, tag, bytes, comm, start, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len = vftr_vfd_mpi_msg_encode(&m, t, p);

    if (!len)
        die("msg encode");
    ext(b, t, send ? VFTR_VFD_MPI_SEND : VFTR_VFD_MPI_RECV, p, len);
}

static void coll(struct buf *b, uint64_t t, uint32_t op, uint64_t comm, int32_t root,
                 uint64_t sent, uint64_t recvd, uint64_t start)
{
    struct vftr_vfd_mpi_coll c = { op, comm, root, sent, recvd, start, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len = vftr_vfd_mpi_coll_encode(&c, t, p);

    if (!len)
        die("coll encode");
    ext(b, t, VFTR_VFD_MPI_COLL, p, len);
}

static void omp(struct buf *b, uint64_t t, int begin, uint32_t region)
{
    struct vftr_vfd_omp o = { region, 7, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len = vftr_vfd_omp_encode(&o, p);

    ext(b, t, begin ? VFTR_VFD_OMP_BEGIN : VFTR_VFD_OMP_END, p, len);
}

static void rma(struct buf *b, uint64_t t, uint32_t op, int32_t target, uint64_t win,
                uint64_t sent, uint64_t recvd, uint64_t start, uint32_t flags)
{
    struct vftr_vfd_mpi_rma a = { op, target, win, 0, sent, recvd, start, flags, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len = vftr_vfd_mpi_rma_encode(&a, t, p);

    if (!len)
        die("rma encode");
    ext(b, t, VFTR_VFD_MPI_RMA, p, len);
}

static void rma_sync(struct buf *b, uint64_t t, uint32_t what, int32_t target, uint64_t win,
                     uint64_t start)
{
    struct vftr_vfd_mpi_rma_sync y = { what, target, win, start, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len = vftr_vfd_mpi_rma_sync_encode(&y, t, p);

    if (!len)
        die("rma sync encode");
    ext(b, t, VFTR_VFD_MPI_RMA_SYNC, p, len);
}

static void put(struct vftr_vfd_writer *w, size_t len)
{
    if (!len || vftr_vfd_writer_put(w, chunk, len) < 0)
        die("put");
}

static void flush(struct vftr_vfd_writer *w, struct buf *b, uint32_t thread)
{
    put(w, vftr_vfd_encode_events(b->ev, b->n, chunk, sizeof chunk, thread));
    b->n = 0;
}

/* The sampling interval the next open_rank writes into the header. */
static uint64_t sample_ticks;

static struct vftr_vfd_writer *open_rank(const char *dir, const char *base, int rank, int size,
                                         uint8_t run, uint64_t start_ns, uint64_t tps)
{
    struct vftr_vfd_info info;
    char path[4096];
    struct vftr_vfd_writer *w;

    memset(&info, 0, sizeof info);
    memset(info.run_id, run, sizeof info.run_id);
    info.pid = 1000 + rank;
    info.rank = rank;
    info.size = size;
    info.ticks_per_second = tps;
    info.start_ns = start_ns;
    info.start_ticks = 0;
    info.sample_ticks = sample_ticks;
    snprintf(info.host, sizeof info.host, "testhost");
    snprintf(info.exe, sizeof info.exe, "/test/%s", base);
    snprintf(path, sizeof path, "%s/%s_%d.vfd", dir, base, rank);
    unlink(path);
    w = vftr_vfd_writer_open(path, &info);
    if (!w)
        die(path);
    put(w, vftr_vfd_encode_run_id(info.run_id, chunk, sizeof chunk));
    return w;
}

static void functions(struct vftr_vfd_writer *w, const struct vftr_vfd_function *f, size_t n)
{
    put(w, vftr_vfd_encode_functions(f, n, chunk, sizeof chunk));
}

static void callpaths(struct vftr_vfd_writer *w, const struct vftr_vfd_callpath *c, size_t n)
{
    put(w, vftr_vfd_encode_callpaths(c, n, chunk, sizeof chunk));
}

static void threads(struct vftr_vfd_writer *w, uint32_t n)
{
    struct vftr_vfd_thread t[4] = {
        { 0, VFTR_VFD_NO_THREAD, 100, 0, "main" },
        { 1, 0, 101, 0, "omp1" },
        { 2, 0, 102, 0, "omp2" },
        { 3, 0, 103, 0, "omp3" },
    };
    put(w, vftr_vfd_encode_threads(t, n, chunk, sizeof chunk));
}

static void world(struct vftr_vfd_writer *w, int size)
{
    int32_t ranks[64];
    struct vftr_vfd_comm c = { 0, (uint32_t)size, ranks, NULL, "MPI_COMM_WORLD" };

    for (int i = 0; i < size; i++)
        ranks[i] = i;
    put(w, vftr_vfd_encode_comms(&c, 1, chunk, sizeof chunk));
}

#define MPI_FLAGS (VFTR_VFD_FUNC_MPI | VFTR_VFD_FUNC_REGION)

/*
 * basic: 2 ranks.  Rank 0 thread 0: main > foo, MPI_Send to rank 1 (tag 7,
 * 800 bytes, begun at 410, completed at 450), MPI_Barrier (505..590).
 * Rank 0 thread 1: an OpenMP implicit task (heat.c:42) around work().
 * Rank 1: main > MPI_Recv (begun 150, completed 470), MPI_Barrier (510..590).
 */
static void basic(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const struct vftr_vfd_function f0[] = {
        { 1, 0, 0x1000, "main" }, { 2, 0, 0x1100, "foo" }, { 3, MPI_FLAGS, 0, "MPI_Send" },
        { 4, MPI_FLAGS, 0, "MPI_Barrier" }, { 5, 0, 0x1200, "work" },
    };
    const struct vftr_vfd_callpath c0[] = {
        { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 }, { 4, 1, 4, 0 }, { 10, 0, 5, 1 },
    };
    const struct vftr_vfd_omp_region r0[] = {
        { 2, VFTR_VFD_OMP_IMPLICIT_TASK, 0x1234, "main", "/src/heat.c", 42 },
    };
    const struct vftr_vfd_function f1[] = {
        { 1, 0, 0x1000, "main" }, { 2, MPI_FLAGS, 0, "MPI_Recv" }, { 3, MPI_FLAGS, 0, "MPI_Barrier" },
    };
    const struct vftr_vfd_callpath c1[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 } };
    struct vftr_vfd_writer *w;

    w = open_rank(dir, base, 0, 2, run, START_NS, 1000000000);
    threads(w, 2);
    functions(w, f0, 5);
    callpaths(w, c0, 5);
    world(w, 2);
    put(w, vftr_vfd_encode_omp_regions(r0, 1, chunk, sizeof chunk));
    ev(&b, 100, VFTR_VFD_ENTER, 1);
    ev(&b, 200, VFTR_VFD_ENTER, 2);
    ev(&b, 300, VFTR_VFD_EXIT, 2);
    ev(&b, 400, VFTR_VFD_ENTER, 3);
    msg(&b, 450, 1, 1, 7, 800, 0, 410);
    ev(&b, 460, VFTR_VFD_EXIT, 3);
    flush(w, &b, 0);                 /* thread 1's chunk comes between */
    omp(&b, 210, 1, 2);
    ev(&b, 250, VFTR_VFD_ENTER, 10);
    ev(&b, 260, VFTR_VFD_EXIT, 10);
    omp(&b, 280, 0, 2);
    flush(w, &b, 1);
    ev(&b, 500, VFTR_VFD_ENTER, 4);
    coll(&b, 590, VFTR_VFD_COLL_BARRIER, 0, -1, 0, 0, 505);
    ev(&b, 600, VFTR_VFD_EXIT, 4);
    ev(&b, 700, VFTR_VFD_EXIT, 1);
    flush(w, &b, 0);
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");

    w = open_rank(dir, base, 1, 2, run, START_NS, 1000000000);
    threads(w, 1);
    functions(w, f1, 3);
    callpaths(w, c1, 3);
    world(w, 2);
    ev(&b, 100, VFTR_VFD_ENTER, 1);
    ev(&b, 150, VFTR_VFD_ENTER, 2);
    msg(&b, 470, 0, 0, 7, 800, 0, 150);
    ev(&b, 480, VFTR_VFD_EXIT, 2);
    ev(&b, 500, VFTR_VFD_ENTER, 3);
    coll(&b, 590, VFTR_VFD_COLL_BARRIER, 0, -1, 0, 0, 510);
    ev(&b, 600, VFTR_VFD_EXIT, 3);
    ev(&b, 650, VFTR_VFD_EXIT, 1);
    flush(w, &b, 0);
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");
}

/*
 * rma: 2 ranks, one-sided transfers of rank 0 to rank 1 on window 5 of
 * MPI_COMM_WORLD, ended by synchronisation records (MPI_RMA_SYNC):
 *   210 MPI_Put 16 bytes (ends at sync)        -> ended by the fence at 590
 *   310 MPI_Put 8 bytes, no ENDS_AT_SYNC flag  -> ended at once, 310 (an
 *       older capture's record)
 *   590 MPI_Win_fence (all targets)
 *   710 MPI_Rget 4 bytes (request form)        -> ended by the wait at 790
 *   720 MPI_Rput 12 bytes (request form)       -> never: ends with the thread
 *   760 MPI_Win_flush of target 0              -> ends nothing (no transfer to 0)
 *   790 MPI_Wait of a request to target 1      -> ends the oldest: the Rget
 *   810 MPI_Put 2 bytes                        -> never: ends with the thread
 *   900 main ends: the thread's last event, where the two left end
 * Rank 1: main 100..900, nothing else.
 */
static void rmas(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const uint32_t S = VFTR_VFD_RMA_ENDS_AT_SYNC, NB = VFTR_VFD_MSG_NONBLOCKING;
    const struct vftr_vfd_function f0[] = {
        { 1, 0, 0x1000, "main" }, { 2, MPI_FLAGS, 0, "MPI_Put" },
        { 3, MPI_FLAGS, 0, "MPI_Win_fence" }, { 4, MPI_FLAGS, 0, "MPI_Rget" },
        { 5, MPI_FLAGS, 0, "MPI_Rput" }, { 6, MPI_FLAGS, 0, "MPI_Win_flush" },
        { 7, MPI_FLAGS, 0, "MPI_Wait" },
    };
    const struct vftr_vfd_callpath c0[] = {
        { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 }, { 4, 1, 4, 0 }, { 5, 1, 5, 0 },
        { 6, 1, 6, 0 }, { 7, 1, 7, 0 },
    };
    struct vftr_vfd_writer *w;

    w = open_rank(dir, base, 0, 2, run, START_NS, 1000000000);
    threads(w, 1);
    functions(w, f0, 7);
    callpaths(w, c0, 7);
    world(w, 2);
    ev(&b, 100, VFTR_VFD_ENTER, 1);
    ev(&b, 200, VFTR_VFD_ENTER, 2);
    rma(&b, 210, VFTR_VFD_RMA_PUT, 1, 5, 16, 0, 200, S);
    ev(&b, 220, VFTR_VFD_EXIT, 2);
    ev(&b, 300, VFTR_VFD_ENTER, 2);
    rma(&b, 310, VFTR_VFD_RMA_PUT, 1, 5, 8, 0, 300, 0);
    ev(&b, 320, VFTR_VFD_EXIT, 2);
    ev(&b, 500, VFTR_VFD_ENTER, 3);
    rma_sync(&b, 590, VFTR_VFD_RMA_SYNC_FENCE, -1, 5, 500);
    ev(&b, 600, VFTR_VFD_EXIT, 3);
    ev(&b, 700, VFTR_VFD_ENTER, 4);
    rma(&b, 710, VFTR_VFD_RMA_GET, 1, 5, 0, 4, 700, S | NB);
    ev(&b, 715, VFTR_VFD_EXIT, 4);
    ev(&b, 716, VFTR_VFD_ENTER, 5);
    rma(&b, 720, VFTR_VFD_RMA_PUT, 1, 5, 12, 0, 716, S | NB);
    ev(&b, 725, VFTR_VFD_EXIT, 5);
    ev(&b, 750, VFTR_VFD_ENTER, 6);
    rma_sync(&b, 760, VFTR_VFD_RMA_SYNC_FLUSH, 0, 5, 750);
    ev(&b, 765, VFTR_VFD_EXIT, 6);
    ev(&b, 780, VFTR_VFD_ENTER, 7);
    rma_sync(&b, 790, VFTR_VFD_RMA_SYNC_REQUEST, 1, 5, 780);
    ev(&b, 795, VFTR_VFD_EXIT, 7);
    ev(&b, 800, VFTR_VFD_ENTER, 2);
    rma(&b, 810, VFTR_VFD_RMA_PUT, 1, 5, 2, 0, 800, S);
    ev(&b, 820, VFTR_VFD_EXIT, 2);
    ev(&b, 900, VFTR_VFD_EXIT, 1);
    flush(w, &b, 0);
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");

    w = open_rank(dir, base, 1, 2, run, START_NS, 1000000000);
    threads(w, 1);
    functions(w, f0, 1);
    callpaths(w, c0, 1);
    world(w, 2);
    ev(&b, 100, VFTR_VFD_ENTER, 1);
    ev(&b, 900, VFTR_VFD_EXIT, 1);
    flush(w, &b, 0);
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");
}

/*
 * skew: 2 ranks sharing one true clock (1 tick = 1 ns from START_NS).  Rank
 * 1's header lies as VFTR_TEST_CLOCK_SKEW would make it: its start is
 * 5 ms early and its clock 100 ppm fast (ticks_per_second 999900010, i.e.
 * 1e9 / 1.0001 rounded).  CLOCK_OFFSETS hold the truth: at MPI_Init (tick
 * 1000) and MPI_Finalize (tick 9000000) both clocks read the same tick.
 * Rank 0 sends to rank 1 every 100000 ticks from tick 2000 (start = tick,
 * complete tick+100); rank 1 receives each at tick+150 (start tick+10).
 */
static void skew(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const struct vftr_vfd_function f[] = {
        { 1, 0, 0x1000, "main" }, { 2, MPI_FLAGS, 0, "MPI_Send" }, { 3, MPI_FLAGS, 0, "MPI_Recv" },
    };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 } };

    for (int rank = 0; rank < 2; rank++) {
        uint64_t start = rank ? START_NS - 5000000 : START_NS;
        uint64_t tps = rank ? 999900010 : 1000000000;
        struct vftr_vfd_writer *w = open_rank(dir, base, rank, 2, run, start, tps);
        struct vftr_vfd_clock_offset o[2] = { { 0, 1000, 1000, 0 }, { 1, 9000000, 9000000, 0 } };

        threads(w, 1);
        functions(w, f, 3);
        callpaths(w, c, 3);
        world(w, 2);
        put(w, vftr_vfd_encode_clock_offsets(o, 2, chunk, sizeof chunk));
        ev(&b, 1000, VFTR_VFD_ENTER, 1);
        for (uint64_t t = 2000; t < 9000000; t += 100000) {
            if (rank == 0) {
                ev(&b, t, VFTR_VFD_ENTER, 2);
                msg(&b, t + 100, 1, 1, 1, 8, 0, t);
                ev(&b, t + 100, VFTR_VFD_EXIT, 2);
            } else {
                ev(&b, t + 10, VFTR_VFD_ENTER, 3);
                msg(&b, t + 150, 0, 0, 1, 8, 0, t + 10);
                ev(&b, t + 150, VFTR_VFD_EXIT, 3);
            }
        }
        ev(&b, 9000000, VFTR_VFD_EXIT, 1);
        flush(w, &b, 0);
        if (vftr_vfd_writer_close(w, NULL) < 0)
            die("close");
    }
}

/*
 * sample: 1 rank, a sampled capture.  Call paths: 1 main, 2 main>a,
 * 3 main>a>b, 4 main>c.  Samples: t=10 path 3, t=20 path 3, t=30 path 4,
 * t=40 path 1, then a precise ENTER/EXIT of path 2 at t=50/60, a sample of
 * path 3 at t=70 and the end at t=80 (path 1).
 */
static void sample(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const struct vftr_vfd_function f[] = {
        { 1, 0, 0x1000, "main" }, { 2, 0, 0x1100, "a" }, { 3, 0, 0x1200, "b" },
        { 4, 0, 0x1300, "c" },
    };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 2, 3, 0 },
                                           { 4, 1, 4, 0 } };
    struct vftr_vfd_writer *w = open_rank(dir, base, -1, 1, run, START_NS, 1000000000);

    threads(w, 1);
    functions(w, f, 4);
    callpaths(w, c, 4);
    ev(&b, 10, VFTR_VFD_SAMPLE, 3);
    ev(&b, 20, VFTR_VFD_SAMPLE, 3);
    ev(&b, 30, VFTR_VFD_SAMPLE, 4);
    ev(&b, 40, VFTR_VFD_SAMPLE, 1);
    ev(&b, 50, VFTR_VFD_ENTER, 2);
    ev(&b, 60, VFTR_VFD_EXIT, 2);
    ev(&b, 70, VFTR_VFD_SAMPLE, 3);
    ev(&b, 80, VFTR_VFD_SAMPLE, 1);
    flush(w, &b, 0);
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");
}

/*
 * sampled: 1 rank, what a capture with a sample interval of 10 us
 * writes (an ENTER or EXIT only when 10 us passed since the thread's last
 * written one, every call of the precise p); times in us below, ns in the
 * file.  Call paths 1 main, 2 main>f, 3 main>p (precise).  Records: ENTER 1
 * at 0, ENTER 2 at 12, EXIT 2 at 25, ENTER 2 at 37, ENTER 2 at 50 (f was
 * left in between), ENTER 3 at 60, EXIT 3 at 65, EXIT 2 at 80 (f entered
 * in between), EXIT 1 at 90.  vfd2otf_sampled.sh has the Enter/Leave pairs by hand.
 */
static void sampled(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const struct vftr_vfd_function f[] = {
        { 1, 0, 0x1000, "main" }, { 2, 0, 0x1100, "f" },
        { 3, VFTR_VFD_FUNC_PRECISE, 0x1200, "p" },
    };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 } };
    struct vftr_vfd_writer *w;

    sample_ticks = 10000;
    w = open_rank(dir, base, -1, 1, run, START_NS, 1000000000);
    sample_ticks = 0;
    threads(w, 1);
    functions(w, f, 3);
    callpaths(w, c, 3);
    ev(&b, 0, VFTR_VFD_ENTER, 1);
    ev(&b, 12000, VFTR_VFD_ENTER, 2);
    ev(&b, 25000, VFTR_VFD_EXIT, 2);
    ev(&b, 37000, VFTR_VFD_ENTER, 2);
    ev(&b, 50000, VFTR_VFD_ENTER, 2);
    ev(&b, 60000, VFTR_VFD_ENTER, 3);
    ev(&b, 65000, VFTR_VFD_EXIT, 3);
    ev(&b, 80000, VFTR_VFD_EXIT, 2);
    ev(&b, 90000, VFTR_VFD_EXIT, 1);
    flush(w, &b, 0);
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");
}

/*
 * misfit: 1 rank of an exact capture whose records do not all fit the
 * stack (what vftr-dump --check must name).  Call paths 1 main, 2 main>a,
 * 3 main>b.  ENTER 1 at 0, ENTER 2 at 10, EXIT 3 at 20 (b is not open),
 * EXIT 2 at 30, ENTER 2 at 40, ENTER 3 at 50 (its caller main is not the
 * current a), EXIT 3 at 60, EXIT 1 at 70.
 */
static void misfit(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const struct vftr_vfd_function f[] = { { 1, 0, 0x1000, "main" }, { 2, 0, 0x1100, "a" },
                                           { 3, 0, 0x1200, "b" } };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 } };
    struct vftr_vfd_writer *w = open_rank(dir, base, -1, 1, run, START_NS, 1000000000);

    threads(w, 1);
    functions(w, f, 3);
    callpaths(w, c, 3);
    ev(&b, 0, VFTR_VFD_ENTER, 1);
    ev(&b, 10, VFTR_VFD_ENTER, 2);
    ev(&b, 20, VFTR_VFD_EXIT, 3);
    ev(&b, 30, VFTR_VFD_EXIT, 2);
    ev(&b, 40, VFTR_VFD_ENTER, 2);
    ev(&b, 50, VFTR_VFD_ENTER, 3);
    ev(&b, 60, VFTR_VFD_EXIT, 3);
    ev(&b, 70, VFTR_VFD_EXIT, 1);
    flush(w, &b, 0);
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");
}

/*
 * trunc: like basic's rank 1 alone as rank 0 of a 1-rank run, whose writer
 * was abandoned (a crash) after two event chunks; the caller cuts the file
 * inside the second chunk.  First chunk: ENTER main 100, ENTER MPI_Recv 150
 * (nothing more); second chunk: EXIT 480 ... (lost).
 */
/* The abandoned writer stays reachable (a crashed program does not free
 * it either; a leak checker should not count it). */
static struct vftr_vfd_writer *volatile abandoned;

static void trunc_run(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const struct vftr_vfd_function f[] = { { 1, 0, 0x1000, "main" }, { 2, 0, 0, "foo" } };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 } };
    struct vftr_vfd_writer *w = open_rank(dir, base, 0, 1, run, START_NS, 1000000000);

    threads(w, 1);
    functions(w, f, 2);
    callpaths(w, c, 2);
    ev(&b, 100, VFTR_VFD_ENTER, 1);
    ev(&b, 150, VFTR_VFD_ENTER, 2);
    flush(w, &b, 0);
    for (uint64_t t = 0; t < 1000; t++)
        ev(&b, 480 + t, VFTR_VFD_EXIT, 2);
    flush(w, &b, 0);
    vftr_vfd_writer_abandon(w);
    abandoned = w;
    printf("%llu\n", (unsigned long long)vftr_vfd_writer_bytes(w));
}

/*
 * big: N events per rank file over R ranks (argv: N R): each rank runs
 * fib-like nesting of depth 8 over 8 functions and sends one message to its
 * right neighbour every 1000 events.
 */
static void big(const char *dir, const char *base, uint8_t run, uint64_t n, int ranks)
{
    static struct buf b;
    struct vftr_vfd_function f[9];
    struct vftr_vfd_callpath c[9];
    static const char *names[9] = { "main", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "MPI_Send" };

    for (uint32_t i = 0; i < 9; i++) {
        f[i] = (struct vftr_vfd_function){ i + 1, i == 8 ? MPI_FLAGS : 0, 0x1000 + i, names[i] };
        c[i] = (struct vftr_vfd_callpath){ i + 1, i == 0 ? 0 : (i == 8 ? 1 : i), i + 1, 0 };
    }
    for (int r = 0; r < ranks; r++) {
        struct vftr_vfd_writer *w = open_rank(dir, base, r, ranks, run, START_NS, 1000000000);
        uint64_t t = 10, k = 0;
        int depth = 0;

        threads(w, 1);
        functions(w, f, 9);
        callpaths(w, c, 9);
        world(w, ranks);
        ev(&b, t, VFTR_VFD_ENTER, 1);
        while (k + 8 < n) {
            /* down 7 levels and up again: 14 events */
            for (int d = 2; d <= 8; d++, k++)
                ev(&b, t += 3, VFTR_VFD_ENTER, (uint32_t)d);
            for (int d = 8; d >= 2; d--, k++)
                ev(&b, t += 3, VFTR_VFD_EXIT, (uint32_t)d);
            if (k % 1000 < 14) {
                int peer = (r + 1) % ranks, from = (r + ranks - 1) % ranks;

                ev(&b, t += 2, VFTR_VFD_ENTER, 9);
                msg(&b, t + 1, 1, peer, 3, 64, 0, t);
                msg(&b, t + 1, 0, from, 3, 64, 0, t);
                ev(&b, t += 2, VFTR_VFD_EXIT, 9);
                k += 4;
            }
            if (b.n > MAXEV - 64)
                flush(w, &b, 0);
            (void)depth;
        }
        ev(&b, t += 5, VFTR_VFD_EXIT, 1);
        flush(w, &b, 0);
        if (vftr_vfd_writer_close(w, NULL) < 0)
            die("close");
    }
}

/*
 * threads: 2 ranks of 2 threads (ids 0 and 1) that both do MPI, as under
 * MPI_THREAD_MULTIPLE.  Rank 0 thread 0: main 100..900 { MPI_Send 200..230:
 * to rank 1, tag 1, 8 bytes, begun 205, record 220 }.  Rank 0 thread 1:
 * worker 300..400 { MPI_Send 310..340: to rank 1, tag 2, 16 bytes, begun
 * 315, record 330; MPI_Send 345..365: to rank 1, tag 9, 4 bytes, begun 350,
 * record 360, never received }.  Rank 1 thread 0: main 100..900 { MPI_Recv
 * 150..260: from rank 0, tag 1, 8 bytes, begun 150, record 250 }.  Rank 1
 * thread 1: worker 300..500 { MPI_Recv 305..420: from rank 0, tag 2, 16
 * bytes, begun 305, record 410 }.  Each thread's events are one chunk,
 * thread 0's first.
 */
static void mthreads(const char *dir, const char *base, uint8_t run)
{
    static struct buf b;
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 0, 3, 0 },
                                           { 4, 3, 2, 0 } };

    for (int r = 0; r < 2; r++) {
        const struct vftr_vfd_function f[] = {
            { 1, 0, 0x1000, "main" },
            { 2, MPI_FLAGS, 0, r == 0 ? "MPI_Send" : "MPI_Recv" },
            { 3, 0, 0x1100, "worker" },
        };
        struct vftr_vfd_writer *w = open_rank(dir, base, r, 2, run, START_NS, 1000000000);

        threads(w, 2);
        functions(w, f, 3);
        callpaths(w, c, 4);
        world(w, 2);
        ev(&b, 100, VFTR_VFD_ENTER, 1);
        if (r == 0) {
            ev(&b, 200, VFTR_VFD_ENTER, 2);
            msg(&b, 220, 1, 1, 1, 8, 0, 205);
            ev(&b, 230, VFTR_VFD_EXIT, 2);
        } else {
            ev(&b, 150, VFTR_VFD_ENTER, 2);
            msg(&b, 250, 0, 0, 1, 8, 0, 150);
            ev(&b, 260, VFTR_VFD_EXIT, 2);
        }
        ev(&b, 900, VFTR_VFD_EXIT, 1);
        flush(w, &b, 0);
        ev(&b, 300, VFTR_VFD_ENTER, 3);
        if (r == 0) {
            ev(&b, 310, VFTR_VFD_ENTER, 4);
            msg(&b, 330, 1, 1, 2, 16, 0, 315);
            ev(&b, 340, VFTR_VFD_EXIT, 4);
            ev(&b, 345, VFTR_VFD_ENTER, 4);
            msg(&b, 360, 1, 1, 9, 4, 0, 350);
            ev(&b, 365, VFTR_VFD_EXIT, 4);
            ev(&b, 400, VFTR_VFD_EXIT, 3);
        } else {
            ev(&b, 305, VFTR_VFD_ENTER, 4);
            msg(&b, 410, 0, 0, 2, 16, 0, 305);
            ev(&b, 420, VFTR_VFD_EXIT, 4);
            ev(&b, 500, VFTR_VFD_EXIT, 3);
        }
        flush(w, &b, 1);
        if (vftr_vfd_writer_close(w, NULL) < 0)
            die("close");
    }
}

/*
 * msgs: message-heavy (argv: M R): each of R ranks calls MPI_Sendrecv M
 * times: Enter, a send of 64 bytes to its right neighbour, a receive from
 * its left neighbour, Exit, every 10 ticks, flushed in chunks of at most
 * MAXEV slots as capture would.  M messages per rank, M * R in all, and a
 * collective (MPI_Barrier on the world) every 100 calls.
 */
static void msgs(const char *dir, const char *base, uint8_t run, uint64_t m, int ranks)
{
    static struct buf b;
    struct vftr_vfd_function f[2] = { { 1, 0, 0x1000, "main" },
                                      { 2, MPI_FLAGS, 0, "MPI_Sendrecv" } };
    struct vftr_vfd_callpath c[2] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 } };

    for (int r = 0; r < ranks; r++) {
        struct vftr_vfd_writer *w = open_rank(dir, base, r, ranks, run, START_NS, 1000000000);
        int peer = (r + 1) % ranks, from = (r + ranks - 1) % ranks;
        uint64_t t = 10;

        threads(w, 1);
        functions(w, f, 2);
        callpaths(w, c, 2);
        world(w, ranks);
        ev(&b, t, VFTR_VFD_ENTER, 1);
        for (uint64_t i = 0; i < m; i++) {
            ev(&b, t += 10, VFTR_VFD_ENTER, 2);
            if (i == m / 2)   /* events chunks of one MPI record each */
                flush(w, &b, 0);
            msg(&b, t + 4, 1, peer, 5, 64, 0, t + 1);
            if (i == m / 2)
                flush(w, &b, 0);
            msg(&b, t + 6, 0, from, 5, 64, 0, t + 2);
            if (i % 100 == 99)
                coll(&b, t + 8, VFTR_VFD_COLL_BARRIER, 0, -1, 0, 0, t + 7);
            ev(&b, t += 9, VFTR_VFD_EXIT, 2);
            if (b.n > MAXEV - 64)
                flush(w, &b, 0);
        }
        ev(&b, t += 5, VFTR_VFD_EXIT, 1);
        flush(w, &b, 0);
        if (vftr_vfd_writer_close(w, NULL) < 0)
            die("close");
    }
}

/*
 * idle: the hybrid pattern of an OpenMP worker that sits idle between two
 * parallel regions (argv: N LAYOUT), 2 ranks of 2 threads.  Thread 0 of
 * rank r: main (path 1) 10 .. 20 + 10 N + 100 { N calls of f (path 2),
 * call i at t = 20 + 10 i .. t + 5; after every 10th (i % 10 == 9)
 * MPI_Sendrecv (path 3) t + 6 .. t + 9: to rank r + 1 and from rank r - 1
 * (mod 2), tag 5, 64 bytes, both begun at t + 7, the send's record at t + 8,
 * the receive's at t + 9 }, in chunks of at most MAXEV slots.  Thread 1 (the
 * worker), with E = 20 + 10 N: OMP_BEGIN region 2 (implicit task @heat.c:42)
 * 12, work (path 4) 13 { MPI_Send (path 5) 14 .. 17: to rank r + 1's thread
 * 1, tag 2, 16 bytes, begun 15, record 16 } 18, OMP_END 19; then, idle
 * until E: OMP_BEGIN E + 10, work E + 11 { MPI_Recv (path 6) E + 12 .. E + 15:
 * from rank r - 1's thread 1, tag 2, 16 bytes, begun E + 13, record E + 14 }
 * E + 16, OMP_END E + 17.  Where the worker's events lie in the file is the
 * LAYOUT: "end" one chunk after all of thread 0's (as capture writes a
 * worker's buffer that fills only at the end), "split" a chunk of the first
 * region after thread 0's first chunk and one of the second at the end.
 * The events are the same in both layouts.
 */
static void idle(const char *dir, const char *base, uint8_t run, uint64_t n, const char *layout)
{
    static struct buf b, w1;
    const struct vftr_vfd_function f[] = {
        { 1, 0, 0x1000, "main" }, { 2, 0, 0x1100, "f" }, { 3, MPI_FLAGS, 0, "MPI_Sendrecv" },
        { 4, 0, 0x1200, "work" }, { 5, MPI_FLAGS, 0, "MPI_Send" }, { 6, MPI_FLAGS, 0, "MPI_Recv" },
    };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 },
                                           { 4, 0, 4, 1 }, { 5, 4, 5, 1 }, { 6, 4, 6, 1 } };
    const struct vftr_vfd_omp_region reg[] = {
        { 2, VFTR_VFD_OMP_IMPLICIT_TASK, 0x1234, "main", "/src/heat.c", 42 },
    };
    int split = strcmp(layout, "split") == 0;

    if (!split && strcmp(layout, "end") != 0)
        die("idle: layout is end or split");
    for (int r = 0; r < 2; r++) {
        struct vftr_vfd_writer *w = open_rank(dir, base, r, 2, run, START_NS, 1000000000);
        uint64_t e = 20 + 10 * n;
        int first = 1;

        threads(w, 2);
        functions(w, f, 6);
        callpaths(w, c, 6);
        world(w, 2);
        put(w, vftr_vfd_encode_omp_regions(reg, 1, chunk, sizeof chunk));
        omp(&w1, 12, 1, 2);
        ev(&w1, 13, VFTR_VFD_ENTER, 4);
        ev(&w1, 14, VFTR_VFD_ENTER, 5);
        msg(&w1, 16, 1, 1 - r, 2, 16, 0, 15);
        ev(&w1, 17, VFTR_VFD_EXIT, 5);
        ev(&w1, 18, VFTR_VFD_EXIT, 4);
        omp(&w1, 19, 0, 2);
        ev(&b, 10, VFTR_VFD_ENTER, 1);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t t = 20 + 10 * i;

            ev(&b, t, VFTR_VFD_ENTER, 2);
            ev(&b, t + 5, VFTR_VFD_EXIT, 2);
            if (i % 10 == 9) {
                ev(&b, t + 6, VFTR_VFD_ENTER, 3);
                msg(&b, t + 8, 1, 1 - r, 5, 64, 0, t + 7);
                msg(&b, t + 9, 0, 1 - r, 5, 64, 0, t + 7);
                ev(&b, t + 9, VFTR_VFD_EXIT, 3);
            }
            if (b.n > MAXEV - 64) {
                flush(w, &b, 0);
                if (first && split)
                    flush(w, &w1, 1);
                first = 0;
            }
        }
        ev(&b, e + 100, VFTR_VFD_EXIT, 1);
        flush(w, &b, 0);
        if (first && split)
            flush(w, &w1, 1);
        omp(&w1, e + 10, 1, 2);
        ev(&w1, e + 11, VFTR_VFD_ENTER, 4);
        ev(&w1, e + 12, VFTR_VFD_ENTER, 6);
        msg(&w1, e + 14, 0, 1 - r, 2, 16, 0, e + 13);
        ev(&w1, e + 15, VFTR_VFD_EXIT, 6);
        ev(&w1, e + 16, VFTR_VFD_EXIT, 4);
        omp(&w1, e + 17, 0, 2);
        flush(w, &w1, 1);
        if (vftr_vfd_writer_close(w, NULL) < 0)
            die("close");
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mkvfd basic|skew|sample|sampled|misfit|trunc|otherrun|threads|big|"
                        "msgs|idle|rma DIR [N RANKS|N LAYOUT]\n");
        return 2;
    }
    if (strcmp(argv[1], "basic") == 0)
        basic(argv[2], "basic", 1);
    else if (strcmp(argv[1], "otherrun") == 0)
        basic(argv[2], "other", 2);
    else if (strcmp(argv[1], "skew") == 0)
        skew(argv[2], "skew", 3);
    else if (strcmp(argv[1], "sample") == 0)
        sample(argv[2], "sample", 4);
    else if (strcmp(argv[1], "sampled") == 0)
        sampled(argv[2], "sampled", 11);
    else if (strcmp(argv[1], "misfit") == 0)
        misfit(argv[2], "misfit", 12);
    else if (strcmp(argv[1], "trunc") == 0)
        trunc_run(argv[2], "trunc", 5);
    else if (strcmp(argv[1], "big") == 0 && argc >= 5)
        big(argv[2], "big", 6, strtoull(argv[3], NULL, 10), atoi(argv[4]));
    else if (strcmp(argv[1], "threads") == 0)
        mthreads(argv[2], "threads", 8);
    else if (strcmp(argv[1], "rma") == 0)
        rmas(argv[2], "rma", 13);
    else if (strcmp(argv[1], "idle") == 0 && argc >= 5)
        idle(argv[2], "idle", 9, strtoull(argv[3], NULL, 10), argv[4]);
    else if (strcmp(argv[1], "msgs") == 0 && argc >= 5)
        msgs(argv[2], "msgs", 7, strtoull(argv[3], NULL, 10), atoi(argv[4]));
    else {
        fprintf(stderr, "mkvfd: unknown scenario %s\n", argv[1]);
        return 2;
    }
    return 0;
}
