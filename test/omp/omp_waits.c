/*
 * omp_waits.c — MPI + OpenMP program with waits of known length, for
 * test/integration/waits_capture.sh: each scenario is a function of its
 * own, so that its waits have a call path of their own, and every delay is
 * a call of delay() (usleep), so that the delay analysis can name it.
 *
 *   omp_waits DIR UNIT      run on 3 ranks; UNIT: milliseconds per step
 *
 * Each rank writes DIR/stamps_<rank>.txt: "NAME SECONDS" per stamp, the
 * node's monotonic clock (one for every process: MPI_Wtime is not, in Open
 * MPI) read just before the calls that wait or make wait; the test works out each wait
 * from them by the patterns' definitions, independently of vftr, and checks
 * that the injected sleeps took effect.
 *
 * With u = UNIT ms (every rank starts a scenario at one agreed time of the
 * node's clock, start(): so the waits are the sleeps, not the ranks'
 * different ways out of the call before):
 *   late_sender    rank 1 sleeps 3u, then sends to rank 0, which waits in
 *                  MPI_Recv: Late Sender 3u on rank 0
 *   late_receiver  rank 0 MPI_Ssends 1 MiB to rank 1, which sleeps 4u
 *                  before its MPI_Recv: Late Receiver 4u on rank 0
 *   barrier        rank 2 sleeps 5u before MPI_Barrier: 5u on ranks 0, 1
 *   allreduce      rank 1 sleeps 6u: Wait at N x N 6u on ranks 0, 2
 *   bcast          the root, rank 2, sleeps 7u: Late Broadcast 7u on 0, 1
 *   reduce         ranks 1 and 2 sleep 2u before MPI_Reduce to rank 0:
 *                  Early Reduce 2u on rank 0
 *   omp (rank 0, 2 threads; the others wait in a barrier)
 *     barrier      thread 1 sleeps 3u in a parallel region: the master
 *                  waits 3u in the region's implicit barrier
 *     lock         the master holds a lock 4u that thread 1 then asks for
 *                  (after a flag the master sets once it holds it): lock
 *                  contention about 4u on thread 1
 *     idle         the master sleeps 5u between two parallel regions:
 *                  thread 1 idle about 5u before the second region
 *   finalize       rank 0 sleeps 8u before MPI_Finalize: 8u on ranks 1, 2
 */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static long unit_us;
static char big[1 << 20];
static FILE *stamps;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Notes the time of point `name` (a bounded number of them per run). */
static void stamp(const char *name, double t)
{
    fprintf(stamps, "%s %.9f\n", name, t);
}

NOINLINE static void delay(long units)
{
    usleep((useconds_t)(units * unit_us));
}

/* Every rank sleeps until one time, 20 ms from rank 0's now.  Each rank
 * stamps its arrival ("sync<N>" at the N-th call): the rank that arrives
 * last carries the critical path back into the scenario before, and when
 * that is a rank the scenario did not involve (one that lost the processor
 * for longer than the scenario lasted), the scenario's sleep is not on the
 * path; the test reads which from these stamps. */
NOINLINE static void start(void)
{
    static int n;
    char name[16];
    double t = now();
    struct timespec ts;

    snprintf(name, sizeof name, "sync%d", n++);
    stamp(name, t);
    t += 0.02;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
        ;
}

NOINLINE static void late_sender(int me)
{
    int x = 0;

    if (me == 1) {
        delay(3);
        stamp("ls_send", now());
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else if (me == 0) {
        stamp("ls_recv", now());
        MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

NOINLINE static void late_receiver(int me)
{
    if (me == 0) {
        stamp("lr_send", now());
        MPI_Ssend(big, (int)sizeof big, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    } else if (me == 1) {
        delay(4);
        stamp("lr_recv", now());
        MPI_Recv(big, (int)sizeof big, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

NOINLINE static void barrier(int me)
{
    if (me == 2)
        delay(5);
    stamp("barrier", now());
    MPI_Barrier(MPI_COMM_WORLD);
}

NOINLINE static void allreduce(int me)
{
    int x = me, y;

    if (me == 1)
        delay(6);
    stamp("allreduce", now());
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

NOINLINE static void bcast(int me)
{
    int x = me;

    if (me == 2)
        delay(7);
    stamp("bcast", now());
    MPI_Bcast(&x, 1, MPI_INT, 2, MPI_COMM_WORLD);
}

NOINLINE static void reduce(int me)
{
    int x = me, y;

    if (me != 0)
        delay(2);
    stamp("reduce", now());
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
}

NOINLINE static void omp_barrier(void)
{
    double t[2] = { 0, 0 };

#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            delay(3);
        t[omp_get_thread_num()] = now();   /* entering the implicit barrier */
    }
    stamp("ompbar_0", t[0]);
    stamp("ompbar_1", t[1]);
}

NOINLINE static void omp_lock(void)
{
    omp_lock_t lock;
    atomic_int held = 0;
    double ask = 0, got = 0;

    omp_init_lock(&lock);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&lock);
            atomic_store(&held, 1);
            delay(4);
            omp_unset_lock(&lock);
        } else {
            while (!atomic_load(&held))
                usleep(100);
            ask = now();
            omp_set_lock(&lock);
            got = now();
            omp_unset_lock(&lock);
        }
    }
    omp_destroy_lock(&lock);
    stamp("lock_ask", ask);
    stamp("lock_got", got);
}

NOINLINE static void omp_idle(void)
{
    double end = 0, begin = 0;

#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            end = now();         /* its task's work is done */
    }
    delay(5);
#pragma omp parallel num_threads(2) /* the idle region */
    {
        if (omp_get_thread_num() == 1)
            begin = now();       /* its next task's work begins */
    }
    stamp("idle_end", end);
    stamp("idle_start", begin);
}

int main(int argc, char **argv)
{
    int me, np, provided;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 3 || np != 3) {
        if (me == 0)
            fprintf(stderr, "usage: mpirun -np 3 omp_waits DIR UNIT_MS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unit_us = atol(argv[2]) * 1000;
    {
        char path[4096];

        snprintf(path, sizeof path, "%s/stamps_%d.txt", argv[1], me);
        if (!(stamps = fopen(path, "w"))) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    start();
    late_sender(me);
    start();
    late_receiver(me);
    start();
    barrier(me);
    start();
    allreduce(me);
    start();
    bcast(me);
    start();
    reduce(me);
    start();
    if (me == 0) {
        omp_barrier();
        omp_lock();
        omp_idle();
    }
    start();
    if (me == 0)
        delay(8);
    {
        /* nothing between the clock and the call (closing the file could
         * hold a rank up): the stamp is written after MPI_Finalize */
        double t = now();

        MPI_Finalize();
        stamp("finalize", t);
    }
    fclose(stamps);
    return 0;
}
