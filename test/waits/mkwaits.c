/*
 * mkwaits — writes small .vfd runs with known wait states, critical paths
 * and delays for the tests of the wait analysis (test/integration/
 * waits_exact.sh), and a large one for the benchmark (bench/waits).  Every
 * time stamp is spelled out here (in microseconds, written as ns), so the
 * expected figures in the test are worked out by hand from this file.
 *
 *   mkwaits SCENARIO DIR      p2p, chain3, coll, order, omp, ompidle, outside, eager
 *   mkwaits big DIR N R       about N events per rank over R ranks
 *
 * Every rank runs main, MPI_Init at 10..50 (unless said otherwise) and
 * MPI_Finalize; ranks start at 0 on one clock.  Functions and call paths
 * are the same on every rank (table `fn` below): call path i is function i
 * called from main (path 1), except where a scenario says otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

#define START_NS 1700000000000000000ull
#define MAXEV 65536
#define US 1000u                    /* a microsecond in ticks (ns) */
#define MPI_FLAGS (VFTR_VFD_FUNC_MPI | VFTR_VFD_FUNC_REGION)

enum {
    F_MAIN = 1, F_INIT, F_FINALIZE, F_WORK, F_WORK2, F_SEND, F_RECV, F_SSEND, F_BARRIER,
    F_ALLREDUCE, F_BCAST, F_REDUCE, F_SCAN, F_IRECV, F_WAITALL, F_OUTLINED, F_COUNT
};

static const struct vftr_vfd_function fn[F_COUNT - 1] = {
    { F_MAIN, 0, 0x1000, "main" },
    { F_INIT, MPI_FLAGS, 0, "MPI_Init" },
    { F_FINALIZE, MPI_FLAGS, 0, "MPI_Finalize" },
    { F_WORK, 0, 0x1100, "work" },
    { F_WORK2, 0, 0x1200, "work2" },
    { F_SEND, MPI_FLAGS, 0, "MPI_Send" },
    { F_RECV, MPI_FLAGS, 0, "MPI_Recv" },
    { F_SSEND, MPI_FLAGS, 0, "MPI_Ssend" },
    { F_BARRIER, MPI_FLAGS, 0, "MPI_Barrier" },
    { F_ALLREDUCE, MPI_FLAGS, 0, "MPI_Allreduce" },
    { F_BCAST, MPI_FLAGS, 0, "MPI_Bcast" },
    { F_REDUCE, MPI_FLAGS, 0, "MPI_Reduce" },
    { F_SCAN, MPI_FLAGS, 0, "MPI_Scan" },
    { F_IRECV, MPI_FLAGS, 0, "MPI_Irecv" },
    { F_WAITALL, MPI_FLAGS, 0, "MPI_Waitall" },
    { F_OUTLINED, 0, 0x1300, "outlined" },
};

struct buf {
    struct vftr_vfd_event ev[MAXEV];
    size_t n;
};

static uint8_t chunk[4u << 20];

static void die(const char *what)
{
    fprintf(stderr, "mkwaits: %s\n", what);
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

/* Times below are microseconds. */
static void in(struct buf *b, uint64_t us, uint32_t path)
{
    ev(b, us * US, VFTR_VFD_ENTER, path);
}

static void out(struct buf *b, uint64_t us, uint32_t path)
{
    ev(b, us * US, VFTR_VFD_EXIT, path);
}

/* A call of path from `from` to `to`. */
static void call(struct buf *b, uint64_t from, uint64_t to, uint32_t path)
{
    in(b, from, path);
    out(b, to, path);
}

/* A message as capture records it: at its completion `done`, begun by the
 * call at `start`. */
static void msg(struct buf *b, int send, uint64_t done, uint64_t start, int peer, int tag,
                uint64_t bytes)
{
    struct vftr_vfd_mpi_msg m = { peer, tag, bytes, 0, start * US, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len = vftr_vfd_mpi_msg_encode(&m, done * US, p);

    if (!len)
        die("msg encode");
    ext(b, done * US, send ? VFTR_VFD_MPI_SEND : VFTR_VFD_MPI_RECV, p, len);
}

/* A blocking point-to-point call [from, to] with its message: a send's
 * record is at its start, a receive's at its end (vfd2otf.md). */
static void p2p(struct buf *b, uint32_t path, uint64_t from, uint64_t to, int send, int peer,
                int tag, uint64_t bytes)
{
    in(b, from, path);
    msg(b, send, to, from, peer, tag, bytes);
    out(b, to, path);
}

/* A blocking collective [from, to] on the world. */
static void coll(struct buf *b, uint32_t path, uint32_t op, uint64_t from, uint64_t to, int root,
                 uint64_t sent, uint64_t recvd)
{
    struct vftr_vfd_mpi_coll c = { op, 0, root, sent, recvd, from * US, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len;

    in(b, from, path);
    len = vftr_vfd_mpi_coll_encode(&c, to * US, p);
    if (!len)
        die("coll encode");
    ext(b, to * US, VFTR_VFD_MPI_COLL, p, len);
    out(b, to, path);
}

static void omp(struct buf *b, uint64_t us, int begin, uint32_t region)
{
    struct vftr_vfd_omp o = { region, 7, 0 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t len = vftr_vfd_omp_encode(&o, p);

    ext(b, us * US, begin ? VFTR_VFD_OMP_BEGIN : VFTR_VFD_OMP_END, p, len);
}

static void put(struct vftr_vfd_writer *w, size_t len)
{
    if (!len || vftr_vfd_writer_put(w, chunk, len) < 0)
        die("put");
}

static void flush(struct vftr_vfd_writer *w, struct buf *b, uint32_t thread)
{
    if (!b->n)
        return;
    put(w, vftr_vfd_encode_events(b->ev, b->n, chunk, sizeof chunk, thread));
    b->n = 0;
}

/* A rank's file with the common functions and call paths (and extra ones
 * of other threads), `threads` threads, the world of `size` ranks. */
static struct vftr_vfd_writer *open_rank(const char *dir, const char *base, int rank, int size,
                                         uint32_t threads, const struct vftr_vfd_callpath *extra,
                                         size_t nextra)
{
    struct vftr_vfd_info info;
    char path[4096];
    struct vftr_vfd_writer *w;
    struct vftr_vfd_callpath c[F_COUNT - 1 + 64];
    struct vftr_vfd_thread t[4] = {
        { 0, VFTR_VFD_NO_THREAD, 100, 0, "main" }, { 1, 0, 101, 0, "omp1" },
        { 2, 0, 102, 0, "omp2" }, { 3, 0, 103, 0, "omp3" },
    };
    int32_t ranks[64];
    struct vftr_vfd_comm world = { 0, (uint32_t)size, ranks, NULL, "MPI_COMM_WORLD" };

    memset(&info, 0, sizeof info);
    memset(info.run_id, 0x5a, sizeof info.run_id);
    info.pid = 1000 + rank;
    info.rank = rank;
    info.size = size;
    info.ticks_per_second = 1000000000;
    info.start_ns = START_NS;
    snprintf(info.host, sizeof info.host, "testhost");
    snprintf(info.exe, sizeof info.exe, "/test/%s", base);
    snprintf(path, sizeof path, "%s/%s_%d.vfd", dir, base, rank);
    unlink(path);
    if (!(w = vftr_vfd_writer_open(path, &info)))
        die(path);
    put(w, vftr_vfd_encode_run_id(info.run_id, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_threads(t, threads, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_functions(fn, F_COUNT - 1, chunk, sizeof chunk));
    for (uint32_t i = 0; i < F_COUNT - 1; i++)
        c[i] = (struct vftr_vfd_callpath){ i + 1, i ? F_MAIN : 0, i + 1, 0 };
    if (nextra > 64)
        die("too many call paths");
    if (nextra)     /* (extra may be NULL then) */
        memcpy(c + F_COUNT - 1, extra, nextra * sizeof *extra);
    put(w, vftr_vfd_encode_callpaths(c, F_COUNT - 1 + nextra, chunk, sizeof chunk));
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    put(w, vftr_vfd_encode_comms(&world, 1, chunk, sizeof chunk));
    return w;
}

static void close_rank(struct vftr_vfd_writer *w)
{
    if (vftr_vfd_writer_close(w, NULL) < 0)
        die("close");
}

/*
 * p2p: 2 ranks.
 *   rank 0: main 0..9995 { MPI_Init 10..50; work 100..5000;
 *           MPI_Send 5000..5100 to 1, tag 1, 64 B;
 *           MPI_Recv 5200..7100 from 1, tag 2;
 *           MPI_Ssend 7200..8100 to 1, tag 3, 8 B; MPI_Finalize 9000..9990 }
 *   rank 1: main 0..10000 { MPI_Init 10..60; MPI_Recv 1000..5200 from 0, tag 1;
 *           work 5300..7000; MPI_Send 7000..7050 to 0, tag 2, 64 B;
 *           work2 7050..8000; MPI_Recv 8000..8150 from 0, tag 3;
 *           MPI_Finalize 9500..9900 }
 */
static void p2p_run(const char *dir)
{
    static struct buf b;
    struct vftr_vfd_writer *w;

    w = open_rank(dir, "p2p", 0, 2, 1, NULL, 0);
    in(&b, 0, F_MAIN);
    call(&b, 10, 50, F_INIT);
    call(&b, 100, 5000, F_WORK);
    p2p(&b, F_SEND, 5000, 5100, 1, 1, 1, 64);
    p2p(&b, F_RECV, 5200, 7100, 0, 1, 2, 64);
    p2p(&b, F_SSEND, 7200, 8100, 1, 1, 3, 8);
    call(&b, 9000, 9990, F_FINALIZE);
    out(&b, 9995, F_MAIN);
    flush(w, &b, 0);
    close_rank(w);

    w = open_rank(dir, "p2p", 1, 2, 1, NULL, 0);
    in(&b, 0, F_MAIN);
    call(&b, 10, 60, F_INIT);
    p2p(&b, F_RECV, 1000, 5200, 0, 0, 1, 64);
    call(&b, 5300, 7000, F_WORK);
    p2p(&b, F_SEND, 7000, 7050, 1, 0, 2, 64);
    call(&b, 7050, 8000, F_WORK2);
    p2p(&b, F_RECV, 8000, 8150, 0, 0, 3, 8);
    call(&b, 9500, 9900, F_FINALIZE);
    out(&b, 10000, F_MAIN);
    flush(w, &b, 0);
    close_rank(w);
}

/*
 * chain3: 3 ranks, a delay that travels.  MPI_Init 10..50 everywhere.
 *   rank 0: work 100..3100; MPI_Send 3100..3150 to 1; MPI_Finalize 4000..5990; main ..5995
 *   rank 1: MPI_Recv 100..3200 from 0; work2 3200..3400; MPI_Send 3400..3450 to 2;
 *           MPI_Finalize 4000..5990; main ..5995
 *   rank 2: MPI_Recv 100..3500 from 1; MPI_Finalize 5000..5990; main ..6000
 */
static void chain3_run(const char *dir)
{
    static struct buf b;

    for (int r = 0; r < 3; r++) {
        struct vftr_vfd_writer *w = open_rank(dir, "chain3", r, 3, 1, NULL, 0);

        in(&b, 0, F_MAIN);
        call(&b, 10, 50, F_INIT);
        if (r == 0) {
            call(&b, 100, 3100, F_WORK);
            p2p(&b, F_SEND, 3100, 3150, 1, 1, 1, 64);
        } else if (r == 1) {
            p2p(&b, F_RECV, 100, 3200, 0, 0, 1, 64);
            call(&b, 3200, 3400, F_WORK2);
            p2p(&b, F_SEND, 3400, 3450, 1, 2, 1, 64);
        } else {
            p2p(&b, F_RECV, 100, 3500, 0, 1, 1, 64);
        }
        if (r < 2) {
            call(&b, 4000, 5990, F_FINALIZE);
            out(&b, 5995, F_MAIN);
        } else {
            call(&b, 5000, 5990, F_FINALIZE);
            out(&b, 6000, F_MAIN);
        }
        flush(w, &b, 0);
        close_rank(w);
    }
}

/*
 * coll: 3 ranks, one of each kind of collective on the world, work before
 * each so that a rank comes late (enter, exit per rank 0, 1, 2):
 *   MPI_Barrier    1000/3100  1500/3200  3000/3300   (rank 2: work 100..3000)
 *   MPI_Allreduce  4000/4600  4500/4700  4200/4650   (rank 1: work 3300..4500)
 *   MPI_Bcast, root 1: 5000/6100  6000/6050  5500/6200 (rank 1: work 4800..6000)
 *   MPI_Reduce, root 0: 7000/7500  7400/7450  7200/7300
 *   MPI_Scan       8000/8400  8300/8400  8100/8400
 *   MPI_Finalize   9000..9990  9000..9990  9600..9990; main 0..10000 everywhere
 */
static void coll_run(const char *dir)
{
    static struct buf b;
    static const uint64_t t[5][3][2] = {
        { { 1000, 3100 }, { 1500, 3200 }, { 3000, 3300 } },
        { { 4000, 4600 }, { 4500, 4700 }, { 4200, 4650 } },
        { { 5000, 6100 }, { 6000, 6050 }, { 5500, 6200 } },
        { { 7000, 7500 }, { 7400, 7450 }, { 7200, 7300 } },
        { { 8000, 8400 }, { 8300, 8400 }, { 8100, 8400 } },
    };

    for (int r = 0; r < 3; r++) {
        struct vftr_vfd_writer *w = open_rank(dir, "coll", r, 3, 1, NULL, 0);

        in(&b, 0, F_MAIN);
        call(&b, 10, 50, F_INIT);
        if (r == 2)
            call(&b, 100, 3000, F_WORK);
        coll(&b, F_BARRIER, VFTR_VFD_COLL_BARRIER, t[0][r][0], t[0][r][1], -1, 0, 0);
        if (r == 1)
            call(&b, 3300, 4500, F_WORK);
        coll(&b, F_ALLREDUCE, VFTR_VFD_COLL_ALLREDUCE, t[1][r][0], t[1][r][1], -1, 8, 8);
        if (r == 1)
            call(&b, 4800, 6000, F_WORK);
        coll(&b, F_BCAST, VFTR_VFD_COLL_BCAST, t[2][r][0], t[2][r][1], 1, r == 1 ? 8 : 0,
             r == 1 ? 0 : 8);
        coll(&b, F_REDUCE, VFTR_VFD_COLL_REDUCE, t[3][r][0], t[3][r][1], 0, 8, r == 0 ? 8 : 0);
        coll(&b, F_SCAN, VFTR_VFD_COLL_SCAN, t[4][r][0], t[4][r][1], -1, 8, 8);
        call(&b, r == 2 ? 9600 : 9000, 9990, F_FINALIZE);
        out(&b, 10000, F_MAIN);
        flush(w, &b, 0);
        close_rank(w);
    }
}

/*
 * order: 3 ranks, Late Sender in wrong order and a wait for several.
 *   rank 0: MPI_Recv 100..2100 from 1 (tag 1); MPI_Recv 2200..2250 from 2 (tag 1);
 *           MPI_Irecv 3000..3010 from 1 (tag 2) and 3010..3020 from 2 (tag 2);
 *           MPI_Waitall 3100..5100 completing both (records at 5050 and 5100)
 *   rank 1: work 100..2000; MPI_Send 2000..2010 to 0 (tag 1);
 *           work 2100..4000; MPI_Send 4000..4010 to 0 (tag 2)
 *   rank 2: MPI_Send 500..510 to 0 (tag 1); work 600..5000; MPI_Send 5000..5010 to 0 (tag 2)
 *   MPI_Finalize 6000..6990 everywhere, main 0..7000.
 */
static void order_run(const char *dir)
{
    static struct buf b;

    for (int r = 0; r < 3; r++) {
        struct vftr_vfd_writer *w = open_rank(dir, "order", r, 3, 1, NULL, 0);

        in(&b, 0, F_MAIN);
        call(&b, 10, 50, F_INIT);
        if (r == 0) {
            p2p(&b, F_RECV, 100, 2100, 0, 1, 1, 64);
            p2p(&b, F_RECV, 2200, 2250, 0, 2, 1, 64);
            call(&b, 3000, 3010, F_IRECV);
            call(&b, 3010, 3020, F_IRECV);
            in(&b, 3100, F_WAITALL);
            msg(&b, 0, 5050, 3000, 1, 2, 64);
            msg(&b, 0, 5100, 3010, 2, 2, 64);
            out(&b, 5100, F_WAITALL);
        } else if (r == 1) {
            call(&b, 100, 2000, F_WORK);
            p2p(&b, F_SEND, 2000, 2010, 1, 0, 1, 64);
            call(&b, 2100, 4000, F_WORK);
            p2p(&b, F_SEND, 4000, 4010, 1, 0, 2, 64);
        } else {
            p2p(&b, F_SEND, 500, 510, 1, 0, 1, 64);
            call(&b, 600, 5000, F_WORK);
            p2p(&b, F_SEND, 5000, 5010, 1, 0, 2, 64);
        }
        call(&b, 6000, 6990, F_FINALIZE);
        out(&b, 7000, F_MAIN);
        flush(w, &b, 0);
        close_rank(w);
    }
}

/*
 * omp: 1 rank, 3 threads.  Regions (omp.c): 1 parallel :10, 2 implicit
 * task :10, 3 barrier :10 (the join), 4 parallel :20, 5 implicit task :20,
 * 6 barrier :20, 7 barrier (explicit) :22, 8 lock wait :24, 9 lock :24.
 *   thread 0: main 0..10000 { MPI_Init 10..50; work 100..1000;
 *             parallel(1) 1000..5000 { task(2) 1010..4990 { outlined 1020..4000
 *                 { work 1030..3900 }; barrier(3) 4000..4980 } };
 *             work2 5000..6000;
 *             parallel(4) 6000..8000 { task(5) 6010..7990 { ebarrier(7) 6300..7000;
 *                 barrier(6) 7500..7980 } };
 *             MPI_Finalize 9000..9990 }
 *   thread 1: task(2) 1100..4990 { outlined 1110..2100 { work 1120..2000 };
 *                 barrier(3) 2100..4980 };
 *             task(5) 6050..7990 { lock(9) 6100..6600; ebarrier(7) 6650..7000;
 *                 barrier(6) 7500..7980 }
 *   thread 2: task(2) 1200..4990 { outlined 1210..3500 { work 1220..3400 };
 *                 barrier(3) 3500..4980 };
 *             task(5) 6060..7990 { lock wait(8) 6200..6600; lock(9) 6600..6700;
 *                 ebarrier(7) 6800..7000; barrier(6) 7500..7980 }
 * Worker call paths: outlined 21 (root of thread t's tree), work under it 22.
 */
static void omp_run(const char *dir)
{
    static struct buf b;
    const struct vftr_vfd_callpath extra[] = {
        { 21, 0, F_OUTLINED, 1 }, { 22, 21, F_WORK, 1 },
        { 31, 0, F_OUTLINED, 2 }, { 32, 31, F_WORK, 2 },
        { 41, F_MAIN, F_OUTLINED, 0 }, { 42, 41, F_WORK, 0 },
    };
    const struct vftr_vfd_omp_region reg[] = {
        { 1, VFTR_VFD_OMP_PARALLEL, 0x2010, "main", "/src/omp.c", 10 },
        { 2, VFTR_VFD_OMP_IMPLICIT_TASK, 0x2010, "main", "/src/omp.c", 10 },
        { 3, VFTR_VFD_OMP_BARRIER, 0x2011, "main", "/src/omp.c", 10 },
        { 4, VFTR_VFD_OMP_PARALLEL, 0x2020, "main", "/src/omp.c", 20 },
        { 5, VFTR_VFD_OMP_IMPLICIT_TASK, 0x2020, "main", "/src/omp.c", 20 },
        { 6, VFTR_VFD_OMP_BARRIER, 0x2021, "main", "/src/omp.c", 20 },
        { 7, VFTR_VFD_OMP_BARRIER_EXPLICIT, 0x2022, "main", "/src/omp.c", 22 },
        { 8, VFTR_VFD_OMP_LOCK_WAIT, 0x2024, "main", "/src/omp.c", 24 },
        { 9, VFTR_VFD_OMP_LOCK, 0x2024, "main", "/src/omp.c", 24 },
    };
    struct vftr_vfd_writer *w = open_rank(dir, "omp", 0, 1, 3, extra, 6);

    put(w, vftr_vfd_encode_omp_regions(reg, 9, chunk, sizeof chunk));
    in(&b, 0, F_MAIN);
    call(&b, 10, 50, F_INIT);
    call(&b, 100, 1000, F_WORK);
    omp(&b, 1000, 1, 1);
    omp(&b, 1010, 1, 2);
    in(&b, 1020, 41);
    call(&b, 1030, 3900, 42);
    out(&b, 4000, 41);
    omp(&b, 4000, 1, 3);
    omp(&b, 4980, 0, 3);
    omp(&b, 4990, 0, 2);
    omp(&b, 5000, 0, 1);
    call(&b, 5000, 6000, F_WORK2);
    omp(&b, 6000, 1, 4);
    omp(&b, 6010, 1, 5);
    omp(&b, 6300, 1, 7);
    omp(&b, 7000, 0, 7);
    omp(&b, 7500, 1, 6);
    omp(&b, 7980, 0, 6);
    omp(&b, 7990, 0, 5);
    omp(&b, 8000, 0, 4);
    call(&b, 9000, 9990, F_FINALIZE);
    out(&b, 10000, F_MAIN);
    flush(w, &b, 0);

    omp(&b, 1100, 1, 2);
    in(&b, 1110, 21);
    call(&b, 1120, 2000, 22);
    out(&b, 2100, 21);
    omp(&b, 2100, 1, 3);
    omp(&b, 4980, 0, 3);
    omp(&b, 4990, 0, 2);
    omp(&b, 6050, 1, 5);
    omp(&b, 6100, 1, 9);
    omp(&b, 6600, 0, 9);
    omp(&b, 6650, 1, 7);
    omp(&b, 7000, 0, 7);
    omp(&b, 7500, 1, 6);
    omp(&b, 7980, 0, 6);
    omp(&b, 7990, 0, 5);
    flush(w, &b, 1);

    omp(&b, 1200, 1, 2);
    in(&b, 1210, 31);
    call(&b, 1220, 3400, 32);
    out(&b, 3500, 31);
    omp(&b, 3500, 1, 3);
    omp(&b, 4980, 0, 3);
    omp(&b, 4990, 0, 2);
    omp(&b, 6060, 1, 5);
    omp(&b, 6200, 1, 8);
    omp(&b, 6600, 0, 8);
    omp(&b, 6600, 1, 9);
    omp(&b, 6700, 0, 9);
    omp(&b, 6800, 1, 7);
    omp(&b, 7000, 0, 7);
    omp(&b, 7500, 1, 6);
    omp(&b, 7980, 0, 6);
    omp(&b, 7990, 0, 5);
    flush(w, &b, 2);
    close_rank(w);
}

/*
 * outside: 2 ranks, messages recorded outside any MPI call (as foreign
 * traces have them: OTF allows SendMsg/RecvMsg anywhere), and a thread of
 * rank 0 that is no OpenMP worker (it calls work once, 1000..1010).
 *   rank 0: main 0..6000 { MPI_Init 10..50; work 100..1000, sends 64 B to
 *           1 in it at 500, tag 1; MPI_Recv 2000..4000 from 1, tag 2;
 *           MPI_Send 4100..4150 to 1, tag 3, 64 B; MPI_Finalize 5200..5990 }
 *   rank 1: main 0..6010 { MPI_Init 10..50; MPI_Recv 200..1000 from 0,
 *           tag 1; work2 3000..3800, sends 64 B to 0 in it at 3500, tag 2;
 *           work 4000..4500, receives tag 3 from 0 in it at 4200;
 *           MPI_Finalize 5000..5990 }
 */
static void outside_run(const char *dir)
{
    static struct buf b;
    const struct vftr_vfd_callpath extra[] = { { 21, 0, F_WORK, 1 } };
    struct vftr_vfd_writer *w = open_rank(dir, "outside", 0, 2, 2, extra, 1);

    in(&b, 0, F_MAIN);
    call(&b, 10, 50, F_INIT);
    in(&b, 100, F_WORK);
    msg(&b, 1, 500, 500, 1, 1, 64);
    out(&b, 1000, F_WORK);
    p2p(&b, F_RECV, 2000, 4000, 0, 1, 2, 64);
    p2p(&b, F_SEND, 4100, 4150, 1, 1, 3, 64);
    call(&b, 5200, 5990, F_FINALIZE);
    out(&b, 6000, F_MAIN);
    flush(w, &b, 0);
    call(&b, 1000, 1010, 21);
    flush(w, &b, 1);
    close_rank(w);

    w = open_rank(dir, "outside", 1, 2, 1, NULL, 0);
    in(&b, 0, F_MAIN);
    call(&b, 10, 50, F_INIT);
    p2p(&b, F_RECV, 200, 1000, 0, 0, 1, 64);
    in(&b, 3000, F_WORK2);
    msg(&b, 1, 3500, 3500, 0, 2, 64);
    out(&b, 3800, F_WORK2);
    in(&b, 4000, F_WORK);
    msg(&b, 0, 4200, 4200, 0, 3, 64);
    out(&b, 4500, F_WORK);
    call(&b, 5000, 5990, F_FINALIZE);
    out(&b, 6010, F_MAIN);
    flush(w, &b, 0);
    close_rank(w);
}

/*
 * ompidle: the omp scenario's OpenMP as capture records it with libomp
 * (capture.md, "Names"): a worker's implicit task inside its share of the
 * region (a frame named as the region, at the root of its paths), its join
 * barrier ended at the region's end, and "omp idle" from there until its
 * next share.  1 rank, 2 threads.  Regions (omp.c): 1 parallel :10, 2
 * implicit task :10, 3 barrier :10, 4 parallel :20, 5 implicit task :20,
 * 6 barrier :20, 10 and 11 the workers' shares of 1 and 4, 12 idle.
 *   thread 0: main 0..10000 { parallel(1) 1000..5000 { task(2) 1010..4990
 *                 { work 1020..1900; barrier(3) 1900..4980 } };
 *             parallel(4) 6000..8000 { task(5) 6010..7990 { work 6020..7000;
 *                 barrier(6) 7000..7980 } } }
 *   thread 1: share(10) 1100..5000 { task(2) 1100..5000 { work 1110..4000;
 *                 barrier(3) 4000..5000 } }; idle(12) 5000..6050;
 *             share(11) 6050..8000 { task(5) 6050..8000 { work 6060..6500;
 *                 barrier(6) 6500..8000 } }; idle(12) 8000..9990
 * Worker call paths: work under region 2's task 23, region 5's 26.
 */
static void ompidle_run(const char *dir)
{
    static struct buf b;
    const struct vftr_vfd_callpath extra[] = {
        { 23, 0, F_WORK, 1 }, { 26, 0, F_WORK, 1 },
    };
    const struct vftr_vfd_omp_region reg[] = {
        { 1, VFTR_VFD_OMP_PARALLEL, 0x2010, "main", "/src/omp.c", 10 },
        { 2, VFTR_VFD_OMP_IMPLICIT_TASK, 0x2010, "main", "/src/omp.c", 10 },
        { 3, VFTR_VFD_OMP_BARRIER, 0x2011, "main", "/src/omp.c", 10 },
        { 4, VFTR_VFD_OMP_PARALLEL, 0x2020, "main", "/src/omp.c", 20 },
        { 5, VFTR_VFD_OMP_IMPLICIT_TASK, 0x2020, "main", "/src/omp.c", 20 },
        { 6, VFTR_VFD_OMP_BARRIER, 0x2021, "main", "/src/omp.c", 20 },
        { 10, VFTR_VFD_OMP_PARALLEL_WORKER, 0x2010, "main", "/src/omp.c", 10 },
        { 11, VFTR_VFD_OMP_PARALLEL_WORKER, 0x2020, "main", "/src/omp.c", 20 },
        { 12, VFTR_VFD_OMP_IDLE, 0, "", "", 0 },
    };
    struct vftr_vfd_writer *w = open_rank(dir, "ompidle", 0, 1, 2, extra, 2);

    put(w, vftr_vfd_encode_omp_regions(reg, 9, chunk, sizeof chunk));
    in(&b, 0, F_MAIN);
    omp(&b, 1000, 1, 1);
    omp(&b, 1010, 1, 2);
    call(&b, 1020, 1900, F_WORK);
    omp(&b, 1900, 1, 3);
    omp(&b, 4980, 0, 3);
    omp(&b, 4990, 0, 2);
    omp(&b, 5000, 0, 1);
    omp(&b, 6000, 1, 4);
    omp(&b, 6010, 1, 5);
    call(&b, 6020, 7000, F_WORK);
    omp(&b, 7000, 1, 6);
    omp(&b, 7980, 0, 6);
    omp(&b, 7990, 0, 5);
    omp(&b, 8000, 0, 4);
    out(&b, 10000, F_MAIN);
    flush(w, &b, 0);

    omp(&b, 1100, 1, 10);
    omp(&b, 1100, 1, 2);
    call(&b, 1110, 4000, 23);
    omp(&b, 4000, 1, 3);
    omp(&b, 5000, 0, 3);
    omp(&b, 5000, 0, 2);
    omp(&b, 5000, 0, 10);
    omp(&b, 5000, 1, 12);
    omp(&b, 6050, 0, 12);
    omp(&b, 6050, 1, 11);
    omp(&b, 6050, 1, 5);
    call(&b, 6060, 6500, 26);
    omp(&b, 6500, 1, 6);
    omp(&b, 8000, 0, 6);
    omp(&b, 8000, 0, 5);
    omp(&b, 8000, 0, 11);
    omp(&b, 8000, 1, 12);
    omp(&b, 9990, 0, 12);
    flush(w, &b, 1);
    close_rank(w);
}

/*
 * eager: 2 ranks, two messages on one channel (0 -> 1, tag 1), the first
 * received long after it was sent, so that a window starting between the
 * two finds it in flight.
 *   rank 0: main 0..10000 { MPI_Init 10..50; MPI_Send 100..110 to 1, 64 B;
 *           work 200..3000; MPI_Send 3000..3010 to 1, 32 B;
 *           MPI_Finalize 9000..9990 }
 *   rank 1: main 0..10000 { MPI_Init 10..60; work 100..2000;
 *           MPI_Recv 2000..2010 from 0 (64 B); work2 2010..4000;
 *           MPI_Recv 4000..4010 from 0 (32 B); MPI_Finalize 9000..9990 }
 */
static void eager_run(const char *dir)
{
    static struct buf b;
    struct vftr_vfd_writer *w;

    w = open_rank(dir, "eager", 0, 2, 1, NULL, 0);
    in(&b, 0, F_MAIN);
    call(&b, 10, 50, F_INIT);
    p2p(&b, F_SEND, 100, 110, 1, 1, 1, 64);
    call(&b, 200, 3000, F_WORK);
    p2p(&b, F_SEND, 3000, 3010, 1, 1, 1, 32);
    call(&b, 9000, 9990, F_FINALIZE);
    out(&b, 10000, F_MAIN);
    flush(w, &b, 0);
    close_rank(w);

    w = open_rank(dir, "eager", 1, 2, 1, NULL, 0);
    in(&b, 0, F_MAIN);
    call(&b, 10, 60, F_INIT);
    call(&b, 100, 2000, F_WORK);
    p2p(&b, F_RECV, 2000, 2010, 0, 0, 1, 64);
    call(&b, 2010, 4000, F_WORK2);
    p2p(&b, F_RECV, 4000, 4010, 0, 0, 1, 32);
    call(&b, 9000, 9990, F_FINALIZE);
    out(&b, 10000, F_MAIN);
    flush(w, &b, 0);
    close_rank(w);
}

/*
 * big: about N events per rank over R ranks for the benchmark: iterations
 * of work (main, work, work2) that take rank r 10 + 3 r units, a ring
 * exchange (MPI_Send to r + 1, MPI_Recv from r - 1, the receive waiting for
 * the later sender) and an MPI_Allreduce every 10 iterations.
 */
static void big_run(const char *dir, uint64_t n, int ranks)
{
    static struct buf b;
    uint64_t iters = n / 16 + 1;
    /* work2 is called by work: its own call path (the common ones are all
     * called by main), so that the nest is a clean stack, not a repair */
    enum { CP_WORK2 = F_COUNT };
    const struct vftr_vfd_callpath extra[] = { { CP_WORK2, F_WORK, F_WORK2, 0 } };

    if (ranks < 2 || ranks > 64)
        die("big: 2 to 64 ranks");
    for (int r = 0; r < ranks; r++) {
        struct vftr_vfd_writer *w = open_rank(dir, "big", r, ranks, 1, extra, 1);
        uint64_t t = 100;
        int to = (r + 1) % ranks, from = (r + ranks - 1) % ranks;

        ev(&b, 0, VFTR_VFD_ENTER, F_MAIN);
        ev(&b, 10, VFTR_VFD_ENTER, F_INIT);
        ev(&b, 50, VFTR_VFD_EXIT, F_INIT);
        for (uint64_t i = 0; i < iters; i++) {
            /* every rank's iteration lasts 100 ticks: rank r works
             * 10 + 3 r of them, the rest it waits in its receive */
            uint64_t base = 100 + i * 100, work = 10 + 3 * (uint64_t)r;

            t = base;
            ev(&b, t, VFTR_VFD_ENTER, F_WORK);
            ev(&b, t + 1, VFTR_VFD_ENTER, CP_WORK2);
            ev(&b, t + work - 1, VFTR_VFD_EXIT, CP_WORK2);
            ev(&b, t + work, VFTR_VFD_EXIT, F_WORK);
            t += work;
            ev(&b, t, VFTR_VFD_ENTER, F_SEND);
            {
                struct vftr_vfd_mpi_msg m = { to, 1, 64, 0, t, 0 };
                uint8_t p[VFTR_VFD_EXT_MAX];
                size_t len = vftr_vfd_mpi_msg_encode(&m, t + 2, p);

                ext(&b, t + 2, VFTR_VFD_MPI_SEND, p, len);
            }
            ev(&b, t + 2, VFTR_VFD_EXIT, F_SEND);
            t += 3;
            ev(&b, t, VFTR_VFD_ENTER, F_RECV);
            {
                /* the left neighbour's send began at base + 10 + 3 from */
                uint64_t sent = base + 10 + 3 * (uint64_t)from, done = (sent > t ? sent : t) + 2;
                struct vftr_vfd_mpi_msg m = { from, 1, 64, 0, t, 0 };
                uint8_t p[VFTR_VFD_EXT_MAX];
                size_t len = vftr_vfd_mpi_msg_encode(&m, done, p);

                ext(&b, done, VFTR_VFD_MPI_RECV, p, len);
                ev(&b, done, VFTR_VFD_EXIT, F_RECV);
                t = done;
            }
            if (i % 10 == 9) {
                struct vftr_vfd_mpi_coll c = { VFTR_VFD_COLL_ALLREDUCE, 0, -1, 8, 8, t + 1, 0 };
                uint8_t p[VFTR_VFD_EXT_MAX];
                uint64_t end = base + 99;
                size_t len = vftr_vfd_mpi_coll_encode(&c, end, p);

                ev(&b, t + 1, VFTR_VFD_ENTER, F_ALLREDUCE);
                ext(&b, end, VFTR_VFD_MPI_COLL, p, len);
                ev(&b, end, VFTR_VFD_EXIT, F_ALLREDUCE);
            }
            if (b.n > MAXEV - 64)
                flush(w, &b, 0);
        }
        t = 100 + iters * 100;
        ev(&b, t, VFTR_VFD_ENTER, F_FINALIZE);
        ev(&b, t + 50, VFTR_VFD_EXIT, F_FINALIZE);
        ev(&b, t + 60, VFTR_VFD_EXIT, F_MAIN);
        flush(w, &b, 0);
        close_rank(w);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mkwaits p2p|chain3|coll|order|omp|ompidle|outside|eager DIR | big DIR N RANKS\n");
        return 2;
    }
    if (strcmp(argv[1], "p2p") == 0)
        p2p_run(argv[2]);
    else if (strcmp(argv[1], "chain3") == 0)
        chain3_run(argv[2]);
    else if (strcmp(argv[1], "coll") == 0)
        coll_run(argv[2]);
    else if (strcmp(argv[1], "order") == 0)
        order_run(argv[2]);
    else if (strcmp(argv[1], "omp") == 0)
        omp_run(argv[2]);
    else if (strcmp(argv[1], "ompidle") == 0)
        ompidle_run(argv[2]);
    else if (strcmp(argv[1], "eager") == 0)
        eager_run(argv[2]);
    else if (strcmp(argv[1], "outside") == 0)
        outside_run(argv[2]);
    else if (strcmp(argv[1], "big") == 0 && argc >= 5)
        big_run(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]));
    else {
        fprintf(stderr, "mkwaits: unknown scenario %s\n", argv[1]);
        return 2;
    }
    return 0;
}
