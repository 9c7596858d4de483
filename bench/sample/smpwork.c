/* smpwork N — the sampling benchmark's workload (bench/sample/run.sh): N
 * rounds of fixed arithmetic in a call chain five frames deep (what the
 * handler unwinds at each sample), built without compiler hooks.  Prints
 * "cpu_s S" (user + system time of the whole process, collector thread
 * included, from getrusage) and "wall_s S". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static volatile double sink;

static __attribute__((noinline)) double leaf(long n)
{
    double x = 1.0;

    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static __attribute__((noinline)) double level3(long n) { double r = leaf(n); __asm__ volatile("" ::: "memory"); return r; }
static __attribute__((noinline)) double level2(long n) { double r = level3(n); __asm__ volatile("" ::: "memory"); return r; }
static __attribute__((noinline)) double level1(long n) { double r = level2(n); __asm__ volatile("" ::: "memory"); return r; }

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    struct timespec a, b;
    struct rusage ru;

    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long r = 0; r < rounds; r++)
        sink += level1(1000000);
    clock_gettime(CLOCK_MONOTONIC, &b);
    getrusage(RUSAGE_SELF, &ru);
    printf("cpu_s %.6f\n", (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec);
    printf("wall_s %.6f\n", (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
    return 0;
}
