/*
 * calls.h — shared by the instrumented test programs of test/capture/.
 *
 * Each program counts, in its own variables, how often each of its
 * instrumented functions ran, and prints "count NAME N" lines for the
 * integration scripts to compare with what vftr recorded.  Helpers here are
 * not instrumented (no_instrument_function), so they never appear in a
 * trace; the programs are built with -finstrument-functions and
 * -finstrument-functions-exclude-file-list=/usr/include, so only their own
 * functions do.
 */
#ifndef VFTR_TEST_CAPTURE_CALLS_H
#define VFTR_TEST_CAPTURE_CALLS_H

#include <stdio.h>
#include <stdlib.h>

#define NOINST __attribute__((no_instrument_function))
#define NOINLINE __attribute__((noinline))

/* Keeps the compiler from folding calls away.  Thread-local: the threads
 * of cap_threads would race on a shared one (a data race TSan rightly
 * reports, in the program rather than in vftr). */
static __thread volatile unsigned long capture_sink;

static inline NOINST void report(const char *name, unsigned long long n)
{
    printf("count %s %llu\n", name, n);
}

static inline NOINST long arg_long(int argc, char **argv, int i, long dflt)
{
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

#endif
