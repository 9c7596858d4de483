/*
 * test_capture_crashlog.c — Check suite for the profile log written from a
 * signal handler (capture/crashlog.c):
 *   - its own number and date formatting against glibc's snprintf and
 *     gmtime_r/strftime, on edge cases and on many random values;
 *   - the log itself, for call paths on two threads with frames still open
 *     at the "signal": its profile table and list of call paths must be,
 *     byte for byte, what logfile.c prints for the same state once the
 *     open frames are closed at the same tick (the finalizer's way), for
 *     the default layout and for one with every optional column, sorted by
 *     calls ascending; and its run section says incomplete and why.
 * Each test runs in its own process (CK_FORK): the process state is fresh.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "crashlog.h"
#include "logfile.h"

/* ------------------------------------------------------------ formatting */

/* xorshift64*: reproducible values without rand()'s state */
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_u64(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void check_fixed(double v, unsigned d)
{
    char want[400], got[48];

    snprintf(want, sizeof want, "%.*f", (int)d, v);
    vftr_fmt_fixed(got, v, d);
    ck_assert_msg(strcmp(want, got) == 0, "%.17g with %u decimals: snprintf %s, vftr_fmt_fixed %s",
                  v, d, want, got);
}

START_TEST(u64_as_printf)
{
    uint64_t edge[] = { 0, 1, 9, 10, 99, 100, 4294967295u, 4294967296u, UINT64_MAX - 1, UINT64_MAX };
    char want[32], got[32];

    for (size_t i = 0; i < sizeof edge / sizeof edge[0] + 10000; i++) {
        uint64_t v = i < sizeof edge / sizeof edge[0] ? edge[i] : next_u64() >> (i % 64);

        snprintf(want, sizeof want, "%" PRIu64, v);
        ck_assert_uint_eq(vftr_fmt_u64(got, v), strlen(want));
        ck_assert_str_eq(got, want);
    }
}
END_TEST

START_TEST(fixed_as_printf)
{
    /* ties in binary (exact halves), values next to them, carries into the
     * integer part, signs, zero */
    static const double edge[] = {
        0.0, -0.0, 0.5, 1.5, 2.5, 3.5, -2.5, 0.125, 0.375, 0.625, 0.875, 1e-7, 5e-7, 4.9999999e-7,
        0.0000005, 0.0000015, 0.9999995, 0.99999949999, 9.9999996, 123456.0000005, 1e-300,
        4.9e-324, 0.1, 0.2, 0.3, 1234567890.123456789, 9007199254740993.0, 1e18, -1e-9,
    };
    static const unsigned decimals[] = { 0, 1, 2, 6, 9 };

    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (size_t k = 0; k < sizeof decimals / sizeof decimals[0]; k++)
            check_fixed(edge[i], decimals[k]);
    /* random magnitudes from 1e-12 to 1e12, both signs; and random values
     * on the grid of halves of the last printed digit (ties and near-ties) */
    for (int i = 0; i < 200000; i++) {
        double m = (double)(next_u64() >> 11) / 9007199254740992.0;   /* [0, 1) */
        double v = m * pow(10.0, (double)(int)(next_u64() % 25) - 12.0);
        unsigned d = decimals[next_u64() % 5];

        if (next_u64() & 1)
            v = -v;
        check_fixed(v, d);
        check_fixed((double)(next_u64() % 2000001) / (2.0 * pow(10.0, (double)d)), d);
    }
    {
        char got[48];

        vftr_fmt_fixed(got, NAN, 6);
        ck_assert_str_eq(got, "-");
        vftr_fmt_fixed(got, 1e19, 6);
        ck_assert_str_eq(got, "-");
    }
}
END_TEST

START_TEST(utc_as_gmtime)
{
    for (int i = 0; i < 100000; i++) {
        /* seconds up to 2^34 (year 2514), plus the first and a leap day */
        uint64_t s = i == 0 ? 0 : i == 1 ? 951782400u /* 2000-02-29 */ : next_u64() >> 30;
        uint64_t ns = s * 1000000000u + next_u64() % 1000000000u;
        time_t t = (time_t)s;
        struct tm tm;
        char want[64], date[40], got[48];

        ck_assert_ptr_nonnull(gmtime_r(&t, &tm));
        strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm);
        snprintf(want, sizeof want, "%s.%06ld UTC", date, (long)(ns % 1000000000u / 1000u));
        ck_assert_uint_eq(vftr_fmt_utc(got, ns), strlen(want));
        ck_assert_str_eq(got, want);
    }
}
END_TEST

/* ------------------------------------------------------------ the log */

#define TPS 1000.0

static uint64_t now_ticks;

static uint64_t test_clock(void *arg)
{
    (void)arg;
    return now_ticks;
}

static const char *const names[] = { "main", "solve", "exchange", "MPI_Wait", "worker" };
enum { MAIN, SOLVE, EXCHANGE, WAIT, WORKER, NNAMES };
#define ADDR(i) ((uintptr_t)0x1000 * ((uintptr_t)(i) + 1))

static const char *resolve(void *arg, uintptr_t addr)
{
    size_t i = addr / 0x1000 - 1;

    (void)arg;
    return addr % 0x1000 == 0 && i < NNAMES ? names[i] : NULL;
}

static char dir[64];

/* Capture set up as initialization would, writing into a fresh directory. */
static void setup(void)
{
    struct vftr_settings s;

    memset(&s, 0, sizeof s);
    s.prelude = true;
    s.resolve = resolve;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    now_ticks = 0;
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    snprintf(dir, sizeof dir, "/tmp/vftr_crashlog.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(vftr_proc.dir, sizeof vftr_proc.dir, "%s", dir);
    snprintf(vftr_proc.base, sizeof vftr_proc.base, "t");
    vftr_proc.rank = -1;
    vftr_proc.size = -1;
    vftr_proc.pid = getpid();
    vftr_proc.start_ticks = 0;
    vftr_proc.start_ns = 1700000000123456789ull;
    vftr_proc.recording = true;
    vftr_proc.cfg.logfile_for_ranks.all = true;
    vftr_proc.cfg.profile_table_show_table = true;
    vftr_proc.cfg.profile_table_sort_table_column = VFTR_SORT_TIME_EXCL;
    vftr_proc.cfg.stacklist_show_stacklist = true;
}

static void enter(struct vftr_thread *t, int fn, uint64_t at)
{
    now_ticks = at;
    vftr_enter_at(t, ADDR(fn), NULL, at);
}

static void leave(struct vftr_thread *t, int fn, uint64_t at)
{
    now_ticks = at;
    vftr_exit_at(t, ADDR(fn), at);
}

/*
 * Thread 0: main { solve { exchange { MPI_Wait x3 } } x2, solve { exchange
 * { MPI_Wait ... open at the signal, tick 1000.  Thread 1: worker x4,
 * then worker open since 950.  Times chosen so that some rows tie.
 */
static void run_program(void)
{
    struct vftr_thread *t0 = vftr_thread_new(false), *t1 = vftr_thread_new(false);
    uint64_t at = 0;

    ck_assert_ptr_nonnull(t0);
    ck_assert_ptr_nonnull(t1);
    enter(t0, MAIN, at);
    for (int round = 0; round < 3; round++) {
        enter(t0, SOLVE, at += 10);
        enter(t0, EXCHANGE, at += 7);
        for (int k = 0; k < 3; k++) {
            enter(t0, WAIT, at += 3);
            if (round == 2 && k == 1)
                break;   /* open at the signal */
            leave(t0, WAIT, at += 13);
        }
        if (round == 2)
            break;
        leave(t0, EXCHANGE, at += 5);
        leave(t0, SOLVE, at += 11);
    }
    for (int k = 0; k < 4; k++) {
        enter(t1, WORKER, 100 + 200 * (uint64_t)k);
        leave(t1, WORKER, 150 + 200 * (uint64_t)k);
    }
    enter(t1, WORKER, 950);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = calloc(1, 1 << 20);
    size_t n;

    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(buf);
    n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The crash log at tick 1000 against logfile.c's print of the same state
 * with the frames closed at 1000. */
static void compare_with_logfile(void)
{
    char path[128], *crash, *want = NULL, *from;
    size_t wlen = 0;
    struct vftr_profile p;
    struct vftr_logfile_opts opts;
    FILE *mem;

    now_ticks = 1000;
    ck_assert_int_eq(vftr_crashlog_write(SIGTERM), 0);
    snprintf(path, sizeof path, "%s/t_0.log", dir);
    crash = slurp(path);

    for (struct vftr_thread *t = atomic_load(&vftr_proc.threads); t; t = t->next)
        vftr_trace_close_frames(t, 1000);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, vftr_proc.hook_cost), 0);
    p.run_time = 1000 / TPS;
    vftr_logfile_opts_from_config(&opts, &vftr_proc.cfg);
    opts.config = NULL;
    opts.show_grouped = false;
    mem = open_memstream(&want, &wlen);
    ck_assert_int_eq(vftr_logfile_print(mem, &p, NULL, &opts), 0);
    fclose(mem);
    vftr_callpath_profile_release(&p);

    from = strstr(crash, "\nProfile: ");
    ck_assert_msg(from != NULL, "no profile table in\n%s", crash);
    ck_assert_msg(strcmp(from + 1, strstr(want, "Profile: ")) == 0,
                  "crash log:\n%s\nlogfile.c:\n%s", from + 1, strstr(want, "Profile: "));
    ck_assert_msg(strstr(crash, "\n  incomplete      the run was killed by signal 15 (SIGTERM): "
                                "the figures stop there\n") != NULL, "%s", crash);
    ck_assert_msg(strstr(crash, "\n  run time        1.000000 s\n") != NULL, "%s", crash);
    ck_assert_msg(strstr(crash, "\n  threads         2\n") != NULL, "%s", crash);
    ck_assert_msg(strstr(crash, "\n  start           2023-11-14 22:13:20.123456 UTC\n") != NULL,
                  "%s", crash);
    unlink(path);
    rmdir(dir);
    free(crash);
    free(want);
}

START_TEST(log_as_the_finalizer_writes_it)
{
    setup();
    run_program();
    compare_with_logfile();
}
END_TEST

START_TEST(log_with_every_column)
{
    setup();
    vftr_proc.cfg.profile_table_sort_table_column = VFTR_SORT_CALLS;
    vftr_proc.cfg.profile_table_sort_table_ascending = true;
    vftr_proc.cfg.profile_table_show_overhead = true;
    vftr_proc.cfg.profile_table_show_callpath = true;
    vftr_proc.hook_cost = 2.5;
    run_program();
    compare_with_logfile();
}
END_TEST

/* A rank outside logfile_for_ranks writes nothing. */
START_TEST(no_log_for_other_ranks)
{
    char path[128];

    setup();
    vftr_proc.cfg.logfile_for_ranks.all = false;
    vftr_proc.rank = 3;
    run_program();
    ck_assert_int_eq(vftr_crashlog_write(SIGSEGV), 0);
    snprintf(path, sizeof path, "%s/t_3.log", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    rmdir(dir);
}
END_TEST

static Suite *crashlog_suite(void)
{
    Suite *s = suite_create("capture_crashlog");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, u64_as_printf);
    tcase_add_test(tc, fixed_as_printf);
    tcase_add_test(tc, utc_as_gmtime);
    tcase_add_test(tc, log_as_the_finalizer_writes_it);
    tcase_add_test(tc, log_with_every_column);
    tcase_add_test(tc, no_log_for_other_ranks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(crashlog_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
