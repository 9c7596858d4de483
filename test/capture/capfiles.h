/*
 * capfiles.h — the part of cap_files defined in a header: h_step() is
 * defined here (static, so each file that includes it has its own copy),
 * and its source file, by the debug information, is this header, not the
 * file that includes it: a SCOREP_FILE_NAMES rule on the header selects it.
 */
#ifndef VFTR_TEST_CAPTURE_CAPFILES_H
#define VFTR_TEST_CAPTURE_CAPFILES_H

#include "calls.h"

extern unsigned long long n_main, n_a_work, n_a_leaf, n_b_work, n_b_leaf, n_h_step;

void b_work(long i);

static NOINLINE __attribute__((unused)) void h_step(long i)
{
    n_h_step++;
    capture_sink += (unsigned long)i;
}

#endif
