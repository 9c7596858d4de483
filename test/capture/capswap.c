/* capswap.c — the two libraries cap_swap opens in turn at the same
 * address: built twice, as libcapswap_a.so with -DWORK=alpha_work and as
 * libcapswap_b.so with -DWORK=bravo_work.  The names have the same length
 * and the code is the same, so the two files have the same layout and the
 * loader puts the second where the first was. */
#include "calls.h"

#ifndef WORK
#error "build with -DWORK=name"
#endif

static unsigned long long n_work;

int WORK(int x);
unsigned long long swap_count(void) NOINST;

NOINLINE int WORK(int x)
{
    n_work++;
    return x + 1;
}

NOINST unsigned long long swap_count(void)
{
    return n_work;
}
