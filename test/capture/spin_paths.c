/*
 * spin_paths [ROUNDS [local]] — one leaf function reached by two call paths that
 * differ in nothing but a return address (capture_sample_paths.sh): main
 * calls via_a and via_b in turn, each of which calls leaf(), which spins
 * in registers only.  So the copied stacks of two samples in leaf() are
 * byte for byte the same within one path and differ in one word between
 * the paths: what the ring route's reuse of the previous unwinding must
 * tell apart.  Each round spends about 10 ms in via_a and 30 ms in via_b;
 * the program measures its own CPU time in each and prints
 * "via_a S via_b S".  Built without compiler hooks.
 *
 * With "local" the leaf is leaf_local, which keeps its loop counter in a
 * volatile local of its own frame, below its return address: every
 * sample's copied stack is then different, in a word that no unwinding
 * reads, and the reuse must still be possible.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

__attribute__((noinline)) static double leaf(long n)
{
    double x = 1.0;

    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

__attribute__((noinline)) static void touch(volatile long *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* (the call after the loop gives leaf_local a frame: the counter lives
 * above the stack pointer, in the copy, not in the red zone below it; not
 * instrumented by a sanitizer, whose calls at each access of the counter
 * would make the samples land in its runtime instead) */
__attribute__((noinline, no_sanitize("address", "thread", "undefined")))
static double leaf_local(long n)
{
    double x = 1.0;
    volatile long i;

    for (i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    touch(&i);
    return x;
}

static double (*volatile leaf_fn)(long) = leaf;

__attribute__((noinline)) static double via_a(long n)
{
    return leaf_fn(n) + 1.0;
}

__attribute__((noinline)) static double via_b(long n)
{
    return leaf_fn(n) + 2.0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    double ta = 0, tb = 0, t, sink = 0;
    long n = 1000;

    if (argc > 2 && argv[2][0] == 'l')
        leaf_fn = leaf_local;

    /* n for about 10 ms of CPU time */
    for (t = cpu_now(); cpu_now() - t < 0.01; n *= 2)
        sink += leaf_fn(n);
    t = cpu_now();
    sink += leaf_fn(n);
    n = (long)((double)n * 0.01 / (cpu_now() - t + 1e-9));
    for (int r = 0; r < rounds; r++) {
        t = cpu_now();
        sink += via_a(n);
        ta += cpu_now() - t;
        t = cpu_now();
        sink += via_b(3 * n);
        tb += cpu_now() - t;
    }
    printf("via_a %.4f via_b %.4f (%g)\n", ta, tb, sink > 0 ? 1.0 : 0.0);
    return 0;
}
