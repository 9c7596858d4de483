/* cap_filter N — for the filter, sampling and size-cap tests: keep_one(),
 * keep_two(), drop_me() and precise_one() each called N times from main,
 * drop_me() also calling keep_two() (so keep_two has two call paths). */
#include "calls.h"

static unsigned long long n_main, n_keep_one, n_keep_two, n_drop_me, n_precise_one;

static NOINLINE void keep_one(void)
{
    n_keep_one++;
    capture_sink++;
}

static NOINLINE void keep_two(void)
{
    n_keep_two++;
    capture_sink++;
}

static NOINLINE void drop_me(void)
{
    n_drop_me++;
    keep_two();
    capture_sink++;
}

static NOINLINE void precise_one(void)
{
    n_precise_one++;
    capture_sink++;
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 1, 1000);

    for (long i = 0; i < n; i++) {
        keep_one();
        drop_me();
        precise_one();
    }
    report("main", n_main);
    report("keep_one", n_keep_one);
    report("keep_two", n_keep_two);
    report("drop_me", n_drop_me);
    report("precise_one", n_precise_one);
    return 0;
}
