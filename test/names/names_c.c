/*
 * names_c — C names as the symbol tables have them (built with gcc and
 * with clang): a static function, an external one, one called through a
 * pointer.  test/integration/names_golden.sh compares the names in the log
 * and in the converted trace with test/data/names/c.txt.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile long sink;

NOINLINE static long helper(long x)
{
    return x * 3 + 1;
}

NOINLINE long compute(long x);
NOINLINE long compute(long x)
{
    return helper(x) + helper(x + 1);
}

NOINLINE long apply(long (*f)(long), long x);
NOINLINE long apply(long (*f)(long), long x)
{
    return f(x);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10;

    for (long i = 0; i < n; i++)
        sink += apply(compute, i);
    printf("sink %ld\n", (long)sink);
    return 0;
}
