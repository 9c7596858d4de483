/*
 * test_fmt.c — Check suite for lib/util/fmt (figures for people).  Every
 * expected text is written out by hand from the rules in fmt.h.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fmt.h"
#include "util/progress.h"

static void seconds_are(double s, const char *want)
{
    char buf[VFTR_FMT_MAX];
    size_t n = vftr_fmt_seconds(s, buf, sizeof buf);

    ck_assert_msg(strcmp(buf, want) == 0, "%.12g s: got '%s', want '%s'", s, buf, want);
    ck_assert_uint_eq(n, strlen(want));
}

START_TEST(times_get_the_unit_that_fits)
{
    seconds_are(0, "0 s");
    seconds_are(45e-9, "45 ns");
    seconds_are(999e-9, "999 ns");
    seconds_are(1e-6, "1.00 us");
    seconds_are(1.23e-3, "1.23 ms");
    seconds_are(12.34e-3, "12.3 ms");
    seconds_are(123.4e-3, "123 ms");
    seconds_are(2.5, "2.50 s");
    seconds_are(12.5, "12.5 s");
    seconds_are(1234.4, "1234 s");
    /* rounding up into the next unit: never "1000 us" */
    seconds_are(999.7e-6, "1.00 ms");
    seconds_are(999.6e-9, "1.00 us");
    seconds_are(9.996e-3, "10.0 ms");
    seconds_are(99.96e-3, "100 ms");
    seconds_are(0.3e-9, "0.3 ns");
    seconds_are(-1.5e-3, "-1.50 ms");
}
END_TEST

static void at_is(double s, double step, const char *want)
{
    char buf[VFTR_FMT_MAX];
    size_t n = vftr_fmt_seconds_at(s, step, buf, sizeof buf);

    ck_assert_msg(strcmp(buf, want) == 0, "%.12g s at %g: got '%s', want '%s'", s, step, buf,
                  want);
    ck_assert_uint_eq(n, strlen(want));
}

/* Points in time keep the digits their step resolves, no more. */
START_TEST(points_in_time_to_their_step)
{
    at_is(0.10002, 10e-6, "100.02 ms");         /* 0.01 ms = 10 us */
    at_is(0.10002, 89e-6, "100.02 ms");         /* 0.1 ms would be worth more than 89 us */
    at_is(0.10002, 1e-6, "100.020 ms");
    at_is(0.10002, 1e-3, "100 ms");
    at_is(0.200021, 2.86e-3, "200 ms");
    at_is(96.875e-3, 89e-6, "96.88 ms");
    at_is(1.5, 1e-9, "1.500000000 s");
    at_is(1.5, 0.5, "1.5 s");                   /* a digit worth 0.1 s <= 0.5 s */
    at_is(1.75, 2, "2 s");                      /* a digit worth 1 s: rounded */
    at_is(12.3456, 1e-3, "12.346 s");
    at_is(2500e-9, 1e-9, "2.500 us");
    at_is(45e-9, 1e-9, "45 ns");
    at_is(1234.5, 0.1, "1234.5 s");             /* no switch to whole seconds */
    at_is(999.96e-6, 0.1e-6, "1.0000 ms");      /* carried into the next unit */
    at_is(-1.5e-3, 1e-6, "-1.500 ms");
    /* no step: as vftr_fmt_seconds */
    at_is(0.10002, 0, "100 ms");
    at_is(0, 1e-6, "0 s");
}
END_TEST

START_TEST(columns_of_times_are_wide_enough)
{
    char buf[VFTR_FMT_MAX];
    const double samples[] = { 1e-9, 9.99e-9, 999e-9, 1.11e-6, 55.5e-6, 999e-6, 1.23e-3,
                               123e-3, 1.5, 99.9, 999.4, 999999.4 };

    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        ck_assert_uint_le(vftr_fmt_seconds(samples[i], buf, sizeof buf),
                          VFTR_FMT_SECONDS_WIDTH);
}
END_TEST

START_TEST(ticks_imbalance_percent_process)
{
    char buf[VFTR_FMT_MAX];

    vftr_fmt_ticks(2500, 1000000000u, buf, sizeof buf);
    ck_assert_str_eq(buf, "2.50 us");
    vftr_fmt_ticks(2500, 1000u, buf, sizeof buf);          /* 1 tick = 1 ms */
    ck_assert_str_eq(buf, "2.50 s");
    vftr_fmt_ticks(2500, 0, buf, sizeof buf);              /* resolution unknown */
    ck_assert_str_eq(buf, "2500 ticks");
    vftr_fmt_imbalance(0.375, buf, sizeof buf);
    ck_assert_str_eq(buf, "37.5%");
    vftr_fmt_imbalance(0, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.0%");
    ck_assert_uint_eq(vftr_fmt_imbalance(1, buf, sizeof buf), VFTR_FMT_IMBALANCE_WIDTH);
    ck_assert_str_eq(buf, "100.0%");
    vftr_fmt_percent(12.25, buf, sizeof buf);
    ck_assert_str_eq(buf, "12.2%");                        /* 12.25 is 12.2499... in binary */
    vftr_fmt_process(3, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "rank 3");
    vftr_fmt_process(3, 2, buf, sizeof buf);
    ck_assert_str_eq(buf, "rank 3 thread 2");
    vftr_fmt_process(0, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "rank 0");
    ck_assert_uint_eq(vftr_fmt_process(UINT32_MAX, UINT32_MAX, buf, sizeof buf),
                      strlen("rank 4294967295 thread 4294967295"));
}
END_TEST

START_TEST(names_are_elided_in_the_middle)
{
    char buf[64];

    ck_assert_uint_eq(vftr_fmt_elide("main", 10, buf, sizeof buf), 4);
    ck_assert_str_eq(buf, "main");
    ck_assert_uint_eq(vftr_fmt_elide("0123456789", 10, buf, sizeof buf), 10);
    ck_assert_str_eq(buf, "0123456789");
    /* 11 bytes into 10: head (10 - 3) / 2 = 3, tail 4 */
    ck_assert_uint_eq(vftr_fmt_elide("0123456789A", 10, buf, sizeof buf), 10);
    ck_assert_str_eq(buf, "012...789A");
    vftr_fmt_elide("heat_mod::smooth_the_whole_grid", 20, buf, sizeof buf);
    ck_assert_str_eq(buf, "heat_mod...hole_grid");         /* head 8, tail 9 */
    /* below 5 bytes there is no room for "...": cut */
    vftr_fmt_elide("abcdef", 4, buf, sizeof buf);
    ck_assert_str_eq(buf, "abcd");
    /* a UTF-8 sequence is kept whole: "ä" is 2 bytes (c3 a4) */
    vftr_fmt_elide("a\xc3\xa4" "bbbbbbbb", 8, buf, sizeof buf);   /* head 2 would split it: 1 */
    ck_assert_str_eq(buf, "a...bbb");
    vftr_fmt_elide("aaaaaaa\xc3\xa4" "bb", 8, buf, sizeof buf);  /* tail 3 would split it: 2 */
    ck_assert_str_eq(buf, "aa...bb");
    /* the buffer bounds the width */
    ck_assert_uint_eq(vftr_fmt_elide("0123456789A", 40, buf, 8), 7);
    ck_assert_str_eq(buf, "01...9A");
}
END_TEST

/* The progress line: a 24-wide bar, the share, the events, and the time
 * left from the rate so far once a second has passed (by hand below). */
START_TEST(progress_line)
{
    char buf[160];

    /* a quarter in 3 s: 9 s left; 24 / 4 = 6 marks */
    vftr_progress_format("vfd2otf", 100, 25, 1234, 3.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "vfd2otf: [######..................]  25% 1234 events, 9 s left");
    /* under a second: no guess yet */
    vftr_progress_format("vfd2otf", 100, 25, 1234, 0.5, buf, sizeof buf);
    ck_assert_str_eq(buf, "vfd2otf: [######..................]  25% 1234 events");
    /* 1 % in 12 s: 1188 s left, in minutes (19.8) */
    vftr_progress_format("x", 100, 1, 7, 12.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "x: [........................]   1% 7 events, 20 min left");
    /* 1 % in 100 s: 9900 s, in hours (2.75) */
    vftr_progress_format("x", 100, 1, 7, 100.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "x: [........................]   1% 7 events, 2.8 h left");
    /* done (and beyond: clamped), or no total: no guess */
    vftr_progress_format("x", 100, 150, 9, 5.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "x: [########################] 100% 9 events");
    vftr_progress_format("x", 0, 0, 0, 5.0, buf, sizeof buf);
    ck_assert_str_eq(buf, "x: [........................]   0% 0 events");
}
END_TEST

/* Off a terminal nothing is drawn, whatever is updated. */
START_TEST(progress_silent_off_a_terminal)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct vftr_progress p;

    ck_assert_ptr_nonnull(f);
    vftr_progress_init(&p, "x", f, 100, 0);       /* not quiet, but not a terminal */
    vftr_progress_update(&p, 50, 10, 1);
    vftr_progress_end(&p, 100, 20);
    fclose(f);
    ck_assert_uint_eq(len, 0);
    free(text);
}
END_TEST

static Suite *fmt_suite(void)
{
    Suite *s = suite_create("fmt");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, times_get_the_unit_that_fits);
    tcase_add_test(tc, points_in_time_to_their_step);
    tcase_add_test(tc, columns_of_times_are_wide_enough);
    tcase_add_test(tc, ticks_imbalance_percent_process);
    tcase_add_test(tc, names_are_elided_in_the_middle);
    tcase_add_test(tc, progress_line);
    tcase_add_test(tc, progress_silent_off_a_terminal);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fmt_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
