/* cap_hot N K — for the measurement-control tests (capture_score.sh): a
 * tiny hot function, tiny() (about 400 ns), called N times from main, and work(), a
 * function that takes some microseconds, called K times from main; work()
 * calls leaf() 4 times.  The program counts every call. */
#include "calls.h"

static unsigned long long n_main, n_tiny, n_work, n_leaf;

/* Some 400 ns (and some 200 ns in main between two calls): well inside
 * the times (128 to 16383 ticks, 50 ns to 6 us at 2.6 GHz) whose deltas a
 * trace stores in two bytes, so that the trace's size does not hinge on
 * the speed of the machine at the moment.  Still far below the 10 us of
 * throttle.per_call. */
static NOINLINE void tiny(void)
{
    n_tiny++;
    for (int j = 0; j < 650; j++)
        capture_sink++;
}

static NOINLINE void leaf(long k)
{
    n_leaf++;
    for (long j = 0; j < 500; j++)
        capture_sink += (unsigned long)(j ^ k);
}

static NOINLINE void work(long i)
{
    n_work++;
    for (int k = 0; k < 4; k++)
        leaf(i + k);
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 1, 150000), k = arg_long(argc, argv, 2, 2000);

    for (long i = 0; i < n; i++) {
        tiny();
        for (int j = 0; j < 300; j++)
            capture_sink++;
        if (k > 0 && i % (n / k > 0 ? n / k : 1) == 0 && (long)n_work < k)
            work(i);
    }
    report("main", n_main);
    report("tiny", n_tiny);
    report("work", n_work);
    report("leaf", n_leaf);
    return 0;
}
