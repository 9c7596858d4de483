/*
 * mpi_wait.c — the usual shape of a window that a profile must not lose
 * (issue 14, item 9): rank 0 computes for WAIT ms in compute() while every
 * other rank waits for it in MPI_Allreduce, three times.  A window inside
 * one of those waits has no event of the waiting ranks at all: their whole
 * window is the one MPI_Allreduce call that encloses it, and rank 0's is
 * compute().  Usage: mpi_wait DIR [WAIT_MS] (DIR unused: the convention of
 * the MPI test programs); test/integration/stats_window_wait.sh finds the
 * waits in the trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

/* Not instrumented: compute() calls it millions of times, and the window
 * must hold no event. */
static __attribute__((no_instrument_function)) double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy for ms milliseconds (no sleep: the rank is working). */
static void __attribute__((noinline)) compute(double ms)
{
    double end = now() + ms * 1e-3;
    volatile unsigned long spin = 0;

    while (now() < end)
        spin++;
}

int main(int argc, char **argv)
{
    int rank, x = 1;
    double wait = argc > 2 ? atof(argv[2]) : 150.0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int round = 0; round < 3; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            compute(wait);
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
