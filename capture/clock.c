/*
 * clock.c — the time stamps of capture.
 *
 * The hot path reads the time-stamp counter (rdtsc, ~10 ns here) when cpuid
 * says it is invariant (leaf 0x80000007, EDX bit 8: constant rate in every
 * P-, C- and T-state, synchronized across cores), otherwise
 * clock_gettime(CLOCK_MONOTONIC) (~25 ns).  TSC ticks are converted to
 * seconds with a rate measured against CLOCK_MONOTONIC: a short measurement
 * at initialization (so that even the header of a SIGKILLed run carries a
 * usable rate), then one over the whole run at finalization, which is far
 * more precise.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "capture.h"

enum vftr_clock_kind vftr_clock_kind = VFTR_CLK_MONOTONIC;
uint64_t (*vftr_clock_test_fn)(void *arg);
void *vftr_clock_test_arg;

/* Reference points of the TSC calibration and the test clock's rate;
 * written by vftr_clock_init / vftr_clock_set_test_source only. */
static struct {
    uint64_t ticks0, ns0;        /* at vftr_clock_init */
    double initial_tps;          /* from the short measurement at init */
    double test_tps;
    enum vftr_clock_kind chosen; /* what init chose (restored after a test source) */
} clk = { 0, 0, 1e9, 1e9, VFTR_CLK_MONOTONIC };

VFTR_NI uint64_t vftr_clock_monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

VFTR_NI uint64_t vftr_clock_realtime_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

VFTR_NI bool vftr_clock_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;

    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return false;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return false;
    return (d >> 8) & 1u;
#else
    return false;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
/* Rate of the TSC measured over about ms milliseconds from now. */
static VFTR_NI double measure_tsc(unsigned ms)
{
    uint64_t n0 = vftr_clock_monotonic_ns(), t0 = __builtin_ia32_rdtsc(), n1, t1;

    do {
        n1 = vftr_clock_monotonic_ns();
        t1 = __builtin_ia32_rdtsc();
    } while (n1 - n0 < (uint64_t)ms * 1000000u);
    return (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
}
#endif

VFTR_NI enum vftr_clock_kind vftr_clock_init(const char *want)
{
    enum vftr_clock_kind k = VFTR_CLK_MONOTONIC;

#if defined(__x86_64__) || defined(__i386__)
    if ((want == NULL || strcmp(want, "tsc") == 0) && vftr_clock_tsc_invariant())
        k = VFTR_CLK_TSC;
    if (k == VFTR_CLK_TSC) {
        clk.initial_tps = measure_tsc(2);
        clk.ns0 = vftr_clock_monotonic_ns();
        clk.ticks0 = __builtin_ia32_rdtsc();
    }
#else
    (void)want;
#endif
    if (k == VFTR_CLK_MONOTONIC) {
        clk.initial_tps = 1e9;
        clk.ns0 = clk.ticks0 = vftr_clock_monotonic_ns();
    }
    clk.chosen = k;
    if (vftr_clock_kind != VFTR_CLK_TEST)
        vftr_clock_kind = k;
    return k;
}

VFTR_NI double vftr_clock_ticks_per_second(unsigned wait_ms)
{
    if (vftr_clock_kind == VFTR_CLK_TEST)
        return clk.test_tps;
    if (vftr_clock_kind != VFTR_CLK_TSC)
        return 1e9;
#if defined(__x86_64__) || defined(__i386__)
    {
        uint64_t n1 = vftr_clock_monotonic_ns(), t1 = __builtin_ia32_rdtsc();
        uint64_t want = (uint64_t)wait_ms * 1000000u;

        /* A run shorter than wait_ms would give a rate less precise than
         * the initial one: wait for the rest. */
        while (wait_ms && n1 - clk.ns0 < want) {
            struct timespec ts = { 0, (long)(want - (n1 - clk.ns0)) };

            while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
            n1 = vftr_clock_monotonic_ns();
            t1 = __builtin_ia32_rdtsc();
        }
        if (n1 - clk.ns0 < 1000000u || t1 <= clk.ticks0)
            return clk.initial_tps;
        return (double)(t1 - clk.ticks0) * 1e9 / (double)(n1 - clk.ns0);
    }
#else
    (void)wait_ms;
    return 1e9;
#endif
}

VFTR_NI void vftr_clock_set_test_source(uint64_t (*fn)(void *arg), void *arg, double tps)
{
    if (fn == NULL) {
        vftr_clock_kind = clk.chosen;
        return;
    }
    vftr_clock_test_fn = fn;
    vftr_clock_test_arg = arg;
    clk.test_tps = tps > 0 ? tps : 1e9;
    vftr_clock_kind = VFTR_CLK_TEST;
}
