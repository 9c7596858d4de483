/* cap_files N — for the SCOREP_FILE_NAMES rules of filter files
 * (capture_filter_files.sh): a program of two source files and a header,
 * each defining functions of its own.  main (this file) calls a_work() and
 * b_work() N times each; a_work() (this file) calls a_leaf() (this file)
 * twice and h_step() (capfiles.h) once; b_work() (capfiles_other.c) calls
 * b_leaf() (capfiles_other.c) three times.  The program counts every call. */
#include "capfiles.h"

unsigned long long n_main, n_a_work, n_a_leaf, n_b_work, n_b_leaf, n_h_step;

static NOINLINE void a_leaf(long i)
{
    n_a_leaf++;
    for (long j = 0; j < 20; j++)
        capture_sink += (unsigned long)(i + j);
}

static NOINLINE void a_work(long i)
{
    n_a_work++;
    a_leaf(i);
    a_leaf(i + 1);
    h_step(i);
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 1, 1000);

    for (long i = 0; i < n; i++) {
        a_work(i);
        b_work(i);
    }
    report("main", n_main);
    report("a_work", n_a_work);
    report("a_leaf", n_a_leaf);
    report("h_step", n_h_step);
    report("b_work", n_b_work);
    report("b_leaf", n_b_leaf);
    return 0;
}
