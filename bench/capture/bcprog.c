/*
 * bcprog — the workload of the capture benchmark (bench/capture/run.sh).
 * Built twice from this one source: without instrumentation (bc_plain) and
 * with -finstrument-functions (bc_instr), which then runs with glibc's
 * no-op hooks, preloaded empty hooks, the "floor" hooks, under vftr and
 * under uftrace.
 *
 *   bcprog fib N    fib(N): 2*fib(N+1)-1 calls (N = 32: 7049155)
 *   bcprog wide N   N calls spread over 64 distinct leaf functions
 *
 * Prints "calls C", "work_ns T" (CLOCK_MONOTONIC around the workload only,
 * so start-up and finalization are not in it) and "end_us U" (CLOCK_REALTIME
 * at the end of main, in microseconds: the script subtracts it from the time
 * the process was seen to end to get the finalization time).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINST __attribute__((no_instrument_function))
#define NOINLINE __attribute__((noinline))

static uint64_t calls;
static volatile uint64_t sink;

static NOINLINE uint64_t fib(int n)
{
    calls++;
    return n < 2 ? (uint64_t)n : fib(n - 1) + fib(n - 2);
}

#define L(i)                                        \
    static NOINLINE void leaf##i(uint64_t x)        \
    {                                               \
        calls++;                                    \
        sink += x ^ (uint64_t)0##i;                 \
    }
#define L8(a) L(a##0) L(a##1) L(a##2) L(a##3) L(a##4) L(a##5) L(a##6) L(a##7)
L8(0) L8(1) L8(2) L8(3) L8(4) L8(5) L8(6) L8(7)
#define P(i) leaf##i,
#define P8(a) P(a##0) P(a##1) P(a##2) P(a##3) P(a##4) P(a##5) P(a##6) P(a##7)
static void (*const leaves[64])(uint64_t) = { P8(0) P8(1) P8(2) P8(3) P8(4) P8(5) P8(6) P8(7) };

static NOINLINE void wide(long n)
{
    for (long k = 0; k < n; k++)
        leaves[k & 63]((uint64_t)k);
}

static NOINST uint64_t now_ns(clockid_t c)
{
    struct timespec t;

    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fib";
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 32;
    uint64_t t0, t1;

    t0 = now_ns(CLOCK_MONOTONIC);
    if (strcmp(mode, "wide") == 0)
        wide(n);
    else
        sink += fib((int)n);
    t1 = now_ns(CLOCK_MONOTONIC);
    printf("calls %llu\nwork_ns %llu\n", (unsigned long long)calls, (unsigned long long)(t1 - t0));
    printf("end_us %llu\n", (unsigned long long)(now_ns(CLOCK_REALTIME) / 1000));
    return 0;
}
