/*
 * capture_demo.c — a small program for `make demo`: a solver loop with a
 * recursive helper, compiled with -finstrument-functions and run under
 * vftr-run, which writes capture_demo_0.vfd (the trace) and
 * capture_demo_0.log (the profile).
 */
#include <stdio.h>

static double work(int n)
{
    double s = 0;
    for (int i = 1; i <= n; i++)
        s += 1.0 / ((double)i * i);
    return s;
}

static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static double step(int k)
{
    return work(20000 + 1000 * (k % 5)) + (double)fib(15 + k % 3);
}

int main(void)
{
    double total = 0;
    for (int k = 0; k < 40; k++)
        total += step(k);
    printf("capture_demo: result %.6f\n", total);
    return 0;
}
