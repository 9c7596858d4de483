/*
 * ctlwork — the workload of the external-control benchmark
 * (bench/ctl/run.sh), compiled with -finstrument-functions: fib(N), which
 * makes 2*fib(N+1)-1 calls.  Prints "calls C", "wall_ns W" (CLOCK_MONOTONIC
 * around the workload) and "cpu_ns U" (CLOCK_PROCESS_CPUTIME_ID around the
 * workload: the CPU time of every thread of the process, the control
 * module's shadow thread included, and none of another process's).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NI __attribute__((no_instrument_function))

static uint64_t calls;

static __attribute__((noinline)) uint64_t fib(int n)
{
    calls++;
    return n < 2 ? (uint64_t)n : fib(n - 1) + fib(n - 2);
}

static NI uint64_t ns(clockid_t c)
{
    struct timespec t;

    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 35;
    uint64_t w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_PROCESS_CPUTIME_ID), r, w1, c1;

    r = fib(n);
    c1 = ns(CLOCK_PROCESS_CPUTIME_ID);
    w1 = ns(CLOCK_MONOTONIC);
    printf("fib %llu\ncalls %llu\nwall_ns %llu\ncpu_ns %llu\n", (unsigned long long)r,
           (unsigned long long)calls, (unsigned long long)(w1 - w0), (unsigned long long)(c1 - c0));
    return 0;
}
