/* cap_deep DEPTH REPEAT — deep nesting: nest() recurses DEPTH levels (each
 * level a call path of its own), REPEAT times, then a chain of eight
 * distinct functions is walked REPEAT times. */
#include "calls.h"

static unsigned long long n_main, n_nest, n_chain[8];

static NOINLINE void nest(long d)
{
    n_nest++;
    if (d > 0)
        nest(d - 1);
    capture_sink++;         /* no tail call: the frame stays */
}

#define CHAIN(i, next)                          \
    static NOINLINE void chain##i(void)         \
    {                                           \
        n_chain[i]++;                           \
        next;                                   \
        capture_sink++;                         \
    }
CHAIN(7, (void)0)
CHAIN(6, chain7())
CHAIN(5, chain6())
CHAIN(4, chain5())
CHAIN(3, chain4())
CHAIN(2, chain3())
CHAIN(1, chain2())
CHAIN(0, chain1())

int main(int argc, char **argv)
{
    n_main++;
    long depth = arg_long(argc, argv, 1, 2000);
    long repeat = arg_long(argc, argv, 2, 3);
    char name[16];

    for (long r = 0; r < repeat; r++)
        nest(depth - 1);
    for (long r = 0; r < repeat; r++)
        chain0();
    report("main", n_main);
    report("nest", n_nest);
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "chain%d", i);
        report(name, n_chain[i]);
    }
    return 0;
}
