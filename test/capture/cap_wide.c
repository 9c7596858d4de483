/* cap_wide ITER — a wide call tree: main calls 64 distinct leaves in turn,
 * ITER calls in all (leaf i gets ITER/64, plus one for i < ITER%64). */
#include "calls.h"

static unsigned long long n_main, n_leaf[64];

#define L(i)                                                \
    static NOINLINE void leaf##i(unsigned long x)           \
    {                                                       \
        n_leaf[0##i]++;     /* 0##i: the octal index */   \
        capture_sink += x;                                  \
    }
#define L8(a) L(a##0) L(a##1) L(a##2) L(a##3) L(a##4) L(a##5) L(a##6) L(a##7)
L8(0) L8(1) L8(2) L8(3) L8(4) L8(5) L8(6) L8(7)

#define P(i) leaf##i,
#define P8(a) P(a##0) P(a##1) P(a##2) P(a##3) P(a##4) P(a##5) P(a##6) P(a##7)
static void (*const leaves[64])(unsigned long) = { P8(0) P8(1) P8(2) P8(3) P8(4) P8(5) P8(6) P8(7) };

int main(int argc, char **argv)
{
    n_main++;
    long iter = arg_long(argc, argv, 1, 64000);
    unsigned long long total = 0;
    char name[16];

    for (long k = 0; k < iter; k++)
        leaves[k % 64]((unsigned long)k);
    report("main", n_main);
    for (int i = 0; i < 64; i++) {
        /* leaf00..leaf07, leaf10..: the macro's names */
        snprintf(name, sizeof name, "leaf%d%d", i / 8, i % 8);
        report(name, n_leaf[i]);
        total += n_leaf[i];
    }
    report("leaves", total);
    return 0;
}
