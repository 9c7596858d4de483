/*
 * mcprog — the measurement-control example (bench/measure/run.sh): a
 * smoother over a 1-D field split over the MPI ranks.  Each sweep calls
 * relax(), which calls the tiny hot function weight() for every point,
 * then residual(), and an MPI_Allreduce of the residual; halo values go
 * to the neighbours with MPI_Sendrecv.  Built twice: plain and with
 * -finstrument-functions, and a third time with -fpatchable-function-entry=5
 * (instrument.patchable: traced through its nop sleds).
 *
 *   mcprog SWEEPS POINTS
 *
 * Prints "calls N" (the program's own count of its instrumented calls on
 * this rank), "work_ns T" (CLOCK_MONOTONIC around the sweeps) on rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
/* neither hooks nor a sled (the -fpatchable-function-entry build) */
#define NOINST __attribute__((no_instrument_function, patchable_function_entry(0, 0)))

static uint64_t calls;

/* the tiny hot function: a few ns, called for every point of every sweep */
static NOINLINE double weight(double a, double b, double c)
{
    calls++;
    return 0.25 * a + 0.5 * b + 0.25 * c;
}

static NOINLINE void relax(double *u, double *v, long n)
{
    calls++;
    for (long i = 1; i <= n; i++)
        v[i] = weight(u[i - 1], u[i], u[i + 1]);
    for (long i = 1; i <= n; i++)
        u[i] = v[i];
}

static NOINLINE double residual(const double *u, long n)
{
    double r = 0;

    calls++;
    for (long i = 1; i <= n; i++) {
        double d = u[i - 1] - 2 * u[i] + u[i + 1];

        r += d * d;
    }
    return r;
}

static NOINLINE void halo(double *u, long n, int rank, int size)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    calls++;
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static NOINST uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank, size;
    long sweeps = argc > 1 ? strtol(argv[1], NULL, 10) : 200;
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 20000;
    double *u, *v, res = 0;
    uint64_t t0, t1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    u = calloc((size_t)n + 2, sizeof *u);
    v = calloc((size_t)n + 2, sizeof *v);
    if (u == NULL || v == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < n + 2; i++)
        u[i] = (double)((i * 7919 + rank * 104729) % 1000) / 1000.0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now_ns();
    for (long s = 0; s < sweeps; s++) {
        double local, global;

        halo(u, n, rank, size);
        relax(u, v, n);
        local = residual(u, n);
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        res = global;
    }
    t1 = now_ns();
    if (rank == 0)
        printf("calls %llu\nwork_ns %llu\nresidual %.6e\n", (unsigned long long)calls,
               (unsigned long long)(t1 - t0), res);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
