/*
 * ompbench — cost of OpenMP constructs, for bench/omp/run.sh: runs N empty
 * parallel regions, or N barriers inside one region, and prints the best
 * time per construct over R repetitions (ns):
 *
 *   ompbench parallel|barrier N R     ->  "ns_per_op X"
 *
 * Built with clang -fopenmp and without -finstrument-functions, so that
 * under vftr-run only the OpenMP tool (OMPT callbacks) adds to the time.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile int sink;

int main(int argc, char **argv)
{
    long n, r;
    double best = 1e300;
    int parallel;

    if (argc != 4 || (strcmp(argv[1], "parallel") != 0 && strcmp(argv[1], "barrier") != 0)) {
        fprintf(stderr, "usage: ompbench parallel|barrier N R\n");
        return 2;
    }
    parallel = strcmp(argv[1], "parallel") == 0;
    n = atol(argv[2]);
    r = atol(argv[3]);
    if (n < 1 || r < 1) {
        fprintf(stderr, "ompbench: N and R must be positive\n");
        return 2;
    }
#pragma omp parallel
    sink = 1;   /* start the team before timing */
    for (long k = 0; k < r; k++) {
        double t0 = now_ns(), t;

        if (parallel) {
            for (long i = 0; i < n; i++) {
#pragma omp parallel
                sink = 1;
            }
        } else {
#pragma omp parallel
            for (long i = 0; i < n; i++) {
#pragma omp barrier
            }
        }
        t = (now_ns() - t0) / (double)n;
        if (t < best)
            best = t;
    }
    printf("ns_per_op %.1f\n", best);
    return 0;
}
