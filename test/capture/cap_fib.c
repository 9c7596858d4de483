/* cap_fib N — recursion: fib(N) makes 2*fib(N+1)-1 calls of fib. */
#include "calls.h"

static unsigned long long n_main, n_fib;

static long fib(int n)
{
    n_fib++;
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
    n_main++;
    int n = (int)arg_long(argc, argv, 1, 20);
    long r = fib(n);

    printf("fib(%d) = %ld\n", n, r);
    report("main", n_main);
    report("fib", n_fib);
    return 0;
}
