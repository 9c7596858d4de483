/* capdl.c — the library cap_dlopen opens with dlopen (built with
 * -finstrument-functions as libcapdl.so): its function is first seen by
 * vftr after the program started. */
#include "calls.h"

static unsigned long long n_dl_work;

int dl_work(int x);
unsigned long long dl_count(void) NOINST;

NOINLINE int dl_work(int x)
{
    n_dl_work++;
    return x + 1;
}

NOINST unsigned long long dl_count(void)
{
    return n_dl_work;
}
