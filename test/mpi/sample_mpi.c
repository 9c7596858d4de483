/*
 * sample_mpi DIR [SECONDS] — an MPI program built WITHOUT
 * -finstrument-functions under statistical sampling (mpi_sample.sh): the
 * CPU time a rank spends inside MPI calls must count as exactly recorded,
 * not as samples, and the rest must be sampled where it was spent.
 *
 * Rank 0 spins in busy() for SECONDS (default 1) of its CPU time and then
 * enters MPI_Barrier; the other ranks enter it at once and wait there (Open
 * MPI polls: CPU time inside the MPI call).  Then every rank spins in
 * busy() for SECONDS / 4.  Each rank measures its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID) inside its MPI calls (Init, Barrier, Finalize)
 * and inside busy(), and prints "rank R mpi_s X busy_s Y".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

/* Spins for s seconds of this thread's CPU time. */
__attribute__((noinline)) static void busy(double s)
{
    double end = cpu_now() + s, x = 1.0;

    while (cpu_now() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    double secs = argc > 2 ? atof(argv[2]) : 1.0, t, mpi = 0, work = 0;
    int rank;

    t = cpu_now();
    MPI_Init(&argc, &argv);
    mpi += cpu_now() - t;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        t = cpu_now();
        busy(secs);
        work += cpu_now() - t;
    }
    t = cpu_now();
    MPI_Barrier(MPI_COMM_WORLD);
    mpi += cpu_now() - t;
    t = cpu_now();
    busy(secs / 4);
    work += cpu_now() - t;
    t = cpu_now();
    MPI_Finalize();
    mpi += cpu_now() - t;
    printf("rank %d mpi_s %.4f busy_s %.4f\n", rank, mpi, work);
    return 0;
}
