/*
 * omp_idle — the usual hybrid pattern in which an OpenMP worker sits idle:
 * a parallel region of 2 threads, a long serial phase on the main thread,
 * another parallel region.  The worker's events of both regions lie in one
 * capture buffer that is written at the end of the run, after all the
 * main thread's (test/integration/vfd2otf_idle.sh converts such runs of
 * two lengths and compares the converter's peak memory).
 *
 * Usage: omp_idle N   (N calls of leaf() in the serial phase)
 *
 * Each thread of each region calls work(), which calls leaf() 10 times.
 * Prints "leaf T N": the calls of leaf() by OpenMP thread T (0: the main
 * thread), counted by the program itself.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
static long calls[2];

__attribute__((noinline)) void leaf(long i);
__attribute__((noinline)) void work(int t);

__attribute__((noinline)) void leaf(long i)
{
    sink += i;
}

__attribute__((noinline)) void work(int t)
{
    for (int i = 0; i < 10; i++) {
        leaf(i);
        calls[t]++;
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;

#pragma omp parallel num_threads(2)
    work(omp_get_thread_num());
    for (long i = 0; i < n; i++) {
        leaf(i);
        calls[0]++;
    }
#pragma omp parallel num_threads(2)
    work(omp_get_thread_num());
    printf("leaf 0 %ld\nleaf 1 %ld\n", calls[0], calls[1]);
    return 0;
}
