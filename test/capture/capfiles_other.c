/* capfiles_other.c — cap_files' second source file: b_work(), which calls
 * b_leaf() three times (test/capture/cap_files.c). */
#include "capfiles.h"

static NOINLINE void b_leaf(long i)
{
    n_b_leaf++;
    for (long j = 0; j < 20; j++)
        capture_sink += (unsigned long)(i ^ j);
}

NOINLINE void b_work(long i)
{
    n_b_work++;
    for (int k = 0; k < 3; k++)
        b_leaf(i + k);
}
