/*
 * test_capture_counters.c — Check suite for capture/counters.c: the names
 * counters.events accepts, and the software counters read on the calling
 * thread against what the test does between two reads (pages it touches
 * for the first time, CPU time it burns, measured by its own clock).
 * Hardware counters are tested where the machine lets this process open
 * them, skipped with a note otherwise.  The multiplexing scale is checked
 * on hand-computed reads (vftr_ctr_scale).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "counters.h"
#include "papi/vftr_papi.h"
#include "vfd/vftr_vfd_counters.h"

/* Writes one byte into each of n pages.  Not instrumented by ASan or
 * TSan: their checks would fault the shadow pages in too (ASan one per 8
 * pages touched, TSan more), faults of the sanitizer, not of the work. */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
__attribute__((no_sanitize("address", "thread")))
#endif
#endif
static void touch(char *p, long n, long size)
{
    for (long i = 0; i < n; i++)
        p[i * size] = 1;
}

static int setup_with(const char *events)
{
    static struct vftr_config cfg;
    static char buf[256];

    memset(&cfg, 0, sizeof cfg);
    snprintf(buf, sizeof buf, "%s", events);
    cfg.counters_events = buf;
    return vftr_ctr_setup(&cfg, false);
}

START_TEST(unknown_name_turns_counters_off)
{
    ck_assert_int_eq(setup_with("task-clock,cycels"), -EINVAL);
    ck_assert_uint_eq(vftr_ctr_count(), 0);
    ck_assert_ptr_null(vftr_ctr_thread_new());
}
END_TEST

/* Nine names: the ninth is left out (an event carries eight values). */
START_TEST(at_most_eight)
{
    ck_assert_int_eq(setup_with("task-clock,page-faults,context-switches,cpu-migrations,"
                                "task-clock,page-faults,context-switches,cpu-migrations,"
                                "task-clock"), 8);
    ck_assert_uint_eq(vftr_ctr_count(), 8);
}
END_TEST

/* Known work read through rd(arg): 500 fresh pages touched (page faults
 * in v[pf]) and 20 ms of CPU time spun (task clock in v[tc]). */
static void count_work(int (*rd)(void *, uint64_t *), void *arg, unsigned pf, unsigned tc)
{
    const long pages = 500, size = sysconf(_SC_PAGESIZE);
    uint64_t a[VFTR_VFD_CTR_MAX], b[VFTR_VFD_CTR_MAX], e[VFTR_VFD_CTR_MAX];
    struct timespec t0, t1, w0, w1;
    char *p = mmap(NULL, (size_t)(pages * size), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    ck_assert_ptr_ne(p, MAP_FAILED);
    /* the pages alone between the first two reads: every fresh page
     * faults once (nothing else runs there; a sanitizer's clock_gettime
     * would fault pages of its own) */
    ck_assert_int_eq(rd(arg, a), 0);
    touch(p, pages, size);
    ck_assert_int_eq(rd(arg, b), 0);
    ck_assert_uint_ge(b[pf] - a[pf], (uint64_t)pages);
    ck_assert_uint_le(b[pf] - a[pf], (uint64_t)pages + 4);
    /* 20 ms spun by the thread's CPU clock, a time source other than
     * perf's task clock (they differ by a few microseconds here): at least
     * 19 ms, and a thread's CPU time between two reads is at most the wall
     * time between them (the exact comparison, with getrusage, is
     * test/integration/capture_counters.sh's) */
    clock_gettime(CLOCK_MONOTONIC, &w0);
    ck_assert_int_eq(rd(arg, b), 0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 20000000L);
    ck_assert_int_eq(rd(arg, e), 0);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    ck_assert_uint_ge(e[tc] - b[tc], 19000000u);
    ck_assert_uint_le(e[tc] - b[tc], (uint64_t)((w1.tv_sec - w0.tv_sec) * 1000000000L +
                                                (w1.tv_nsec - w0.tv_nsec)));
    munmap(p, (size_t)(pages * size));
}

static int read_ctr(void *c, uint64_t *v)
{
    return vftr_ctr_read(c, v);
}

static int read_papi(void *p, uint64_t *v)
{
    return vftr_papi_read(p, v);
}

START_TEST(software_counters_count_the_work)
{
    struct vftr_ctr *c;

    ck_assert_int_eq(setup_with(" page-faults, task-clock ,context-switches"), 3);
    ck_assert_str_eq(vftr_ctr_name(0), "page-faults");
    ck_assert_str_eq(vftr_ctr_name(1), "task-clock");
    ck_assert_ptr_null(vftr_ctr_name(3));
    c = vftr_ctr_thread_new();
    ck_assert_ptr_nonnull(c);
    count_work(read_ctr, c, 0, 1);
    vftr_ctr_thread_close(c);
    {
        uint64_t a[VFTR_VFD_CTR_MAX];

        ck_assert_int_eq(vftr_ctr_read(c, a), 0);   /* nothing open: nothing read, no error */
    }
    vftr_ctr_thread_free(c);
}
END_TEST

/* PAPI's native names of the same software events, through counters.c,
 * mixed with one of perf's; a preset this machine may not have is left out
 * (or counted) and the rest goes on. */
START_TEST(papi_counters_count_the_work)
{
    struct vftr_ctr *c;
    int n;

    if (!vftr_papi_built()) {
        ck_assert_int_eq(setup_with("task-clock,PAPI_TOT_CYC"), -EINVAL);
        printf("test_capture_counters: vftr built without PAPI: PAPI skipped\n");
        return;
    }
    n = setup_with("perf::PAGE-FAULTS,PAPI_TOT_CYC,task-clock,perf::TASK-CLOCK");
    ck_assert_int_ge(n, 3);
    ck_assert_str_eq(vftr_ctr_name(0), "perf::PAGE-FAULTS");
    ck_assert_str_eq(vftr_ctr_name((unsigned)n - 1), "perf::TASK-CLOCK");
    c = vftr_ctr_thread_new();
    ck_assert_ptr_nonnull(c);
    count_work(read_ctr, c, 0, (unsigned)n - 1);    /* PAPI's */
    count_work(read_ctr, c, 0, (unsigned)n - 2);    /* perf_event_open's task-clock */
    ck_assert_int_eq(setup_with("perf::NO-SUCH-EVENT"), -EINVAL);
    vftr_ctr_thread_free(c);
}
END_TEST

/* A multiplexed event set (the one PAPI makes when the events do not fit
 * the counters together; software events always fit, so it is asked for
 * here) counts the same work. */
START_TEST(papi_multiplexed_counts_the_work)
{
    const char *names[] = { "perf::PAGE-FAULTS", "perf::TASK-CLOCK" };
    char why[160];
    struct vftr_papi *p;

    if (!vftr_papi_built() || vftr_papi_init(why, sizeof why) < 0) {
        printf("test_capture_counters: no PAPI: multiplexing skipped\n");
        return;
    }
    p = vftr_papi_thread_new(names, 2, true);
    ck_assert_ptr_nonnull(p);
    if (!vftr_papi_multiplexed(p)) {
        /* PAPI's perf_event component checks that it may multiplex by
         * opening a hardware event: without a PMU it refuses (then no set
         * needs multiplexing either; the events were added plainly) */
        count_work(read_papi, p, 0, 1);
        vftr_papi_thread_free(p);
        printf("test_capture_counters: PAPI cannot multiplex here (no PMU): skipped\n");
        return;
    }
    count_work(read_papi, p, 0, 1);
    vftr_papi_thread_free(p);
    p = vftr_papi_thread_new(names, 2, false);
    ck_assert_ptr_nonnull(p);
    ck_assert(!vftr_papi_multiplexed(p));
    vftr_papi_thread_free(p);
}
END_TEST

START_TEST(hardware_counters_where_allowed)
{
    uint64_t a[VFTR_VFD_CTR_MAX], b[VFTR_VFD_CTR_MAX];
    volatile unsigned long x = 0;
    struct vftr_ctr *c;

    if (setup_with("instructions") != 1) {
        printf("test_capture_counters: hardware counters unavailable here: skipped\n");
        return;
    }
    c = vftr_ctr_thread_new();
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(vftr_ctr_read(c, a), 0);
    for (int i = 0; i < 1000000; i++)
        x += (unsigned long)i;
    (void)x;   /* read once: clang counts a volatile only written as unused */
    ck_assert_int_eq(vftr_ctr_read(c, b), 0);
    /* a million iterations of a load, an add and a store at least */
    ck_assert_uint_ge(b[0] - a[0], 3000000u);
    vftr_ctr_thread_free(c);
}
END_TEST

/* The multiplexing scale (no PMU here: the kernel never multiplexes
 * software events, so these hand-computed reads stand for the kernel's). */
START_TEST(scale_by_enabled_over_running)
{
    /* never scheduled in: nothing is known */
    ck_assert_uint_eq(vftr_ctr_scale(12345, 1000, 0), 0);
    ck_assert_uint_eq(vftr_ctr_scale(0, 0, 0), 0);
    /* never multiplexed: the count as read */
    ck_assert_uint_eq(vftr_ctr_scale(777, 500, 500), 777);
    ck_assert_uint_eq(vftr_ctr_scale(UINT64_MAX, 1, 1), UINT64_MAX);
    /* running a little past enabled is not a reason to scale down */
    ck_assert_uint_eq(vftr_ctr_scale(777, 500, 501), 777);
    /* running a third of the time: 1000 x 300 / 100 */
    ck_assert_uint_eq(vftr_ctr_scale(1000, 300, 100), 3000);
    /* 10 x 7 / 3 = 23.33: rounded down, as perf stat's integer estimate */
    ck_assert_uint_eq(vftr_ctr_scale(10, 7, 3), 23);
    /* products past 2^64: 2^40 x 2^30 / 2^20 = 2^50 (a 64-bit product
     * wraps to 0), 10^12 x 3 x 10^9 / 10^9 = 3 x 10^12 (3 x 10^21 wraps) */
    ck_assert_uint_eq(vftr_ctr_scale(1ull << 40, 1ull << 30, 1ull << 20), 1ull << 50);
    ck_assert_uint_eq(vftr_ctr_scale(1000000000000ull, 3000000000ull, 1000000000ull),
                      3000000000000ull);
    /* 2^63 scaled by (2^63 + 2) / (2^62 + 1) = 2: exactly 2^64, one past
     * what fits: saturated */
    ck_assert_uint_eq(vftr_ctr_scale(1ull << 63, (1ull << 63) + 2, (1ull << 62) + 1),
                      UINT64_MAX);
    /* just below: (2^63 - 1) x 4 / 2 = 2^64 - 2 */
    ck_assert_uint_eq(vftr_ctr_scale((1ull << 63) - 1, 4, 2), UINT64_MAX - 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("capture_counters");
    TCase *tc = tcase_create("counters");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, unknown_name_turns_counters_off);
    tcase_add_test(tc, scale_by_enabled_over_running);
    tcase_add_test(tc, at_most_eight);
    tcase_add_test(tc, software_counters_count_the_work);
    tcase_add_test(tc, hardware_counters_where_allowed);
    tcase_add_test(tc, papi_counters_count_the_work);
    tcase_add_test(tc, papi_multiplexed_counts_the_work);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
