/*
 * test_timespec.c — Check suite for lib/util/timespec (time and time range
 * syntax).  Expected tick counts are computed by hand in the comments.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/errmsg.h"
#include "util/timespec.h"

/* The dump fixture's time base: microsecond ticks, first stamp at 5 s. */
static const struct vftr_timebase us_base = { 1000000u, 5000000u };

/* Parses spec against base and returns the offset from base->first. */
static uint64_t offset_of(const char *spec, const struct vftr_timebase *base)
{
    char err[VFTR_ERRMSG_MAX] = "";
    uint64_t t = 0;
    int rc = vftr_time_parse(spec, base, &t, err, sizeof err);

    ck_assert_msg(rc == 0, "'%s' rejected: %s", spec, err);
    return t - base->first;
}

/* Asserts that spec fails with rc and exactly the message want. */
static void expect_error(const char *spec, const struct vftr_timebase *base, int want_rc,
                         const char *want)
{
    char err[VFTR_ERRMSG_MAX] = "";
    uint64_t t = 12345;
    int rc = vftr_time_parse(spec, base, &t, err, sizeof err);

    ck_assert_int_eq(rc, want_rc);
    ck_assert_str_eq(err, want);
    ck_assert_uint_eq(t, 12345);            /* untouched on error */
}

START_TEST(bare_ticks_are_offsets_from_the_first_stamp)
{
    ck_assert_uint_eq(offset_of("0", &us_base), 0);
    ck_assert_uint_eq(offset_of("2500", &us_base), 2500);
    ck_assert_uint_eq(offset_of("  17\t", &us_base), 17);
    ck_assert_uint_eq(offset_of("007", &us_base), 7);
}
END_TEST

START_TEST(units_at_microsecond_resolution)
{
    ck_assert_uint_eq(offset_of("1ms", &us_base), 1000);
    ck_assert_uint_eq(offset_of("1.5ms", &us_base), 1500);
    ck_assert_uint_eq(offset_of("2s", &us_base), 2000000);
    ck_assert_uint_eq(offset_of("0.001s", &us_base), 1000);
    ck_assert_uint_eq(offset_of("250us", &us_base), 250);
    ck_assert_uint_eq(offset_of("1500ns", &us_base), 2);     /* 1.5 ticks: half up */
    ck_assert_uint_eq(offset_of("1499ns", &us_base), 1);     /* 1.499 ticks */
    ck_assert_uint_eq(offset_of("0.5us", &us_base), 1);      /* exactly half: up */
    ck_assert_uint_eq(offset_of("0.4999us", &us_base), 0);
    ck_assert_uint_eq(offset_of("1.0105ms", &us_base), 1011);/* 1010.5 ticks */
    ck_assert_uint_eq(offset_of("1.50000000000000000000000ms", &us_base), 1500);
    ck_assert_uint_eq(offset_of(" 1 ms ", &us_base), 1000);
}
END_TEST

START_TEST(units_at_other_resolutions)
{
    const struct vftr_timebase ns = { 1000000000u, 0 };
    const struct vftr_timebase three = { 3, 100 };
    const struct vftr_timebase huge = { UINT64_MAX, 0 };

    ck_assert_uint_eq(offset_of("1ns", &ns), 1);
    ck_assert_uint_eq(offset_of("1.5ms", &ns), 1500000);
    ck_assert_uint_eq(offset_of("0.000000001ns", &ns), 0);      /* 1e-9 ticks */
    ck_assert_uint_eq(offset_of("18446744073s", &ns), 18446744073000000000u);
    /* 3 ticks per second: 1 s = 3, 0.5 s = 1.5 -> 2, 333 ms = 0.999 -> 1,
     * 166 ms = 0.498 -> 0, 167 ms = 0.501 -> 1. */
    ck_assert_uint_eq(offset_of("1s", &three), 3);
    ck_assert_uint_eq(offset_of("0.5s", &three), 2);
    ck_assert_uint_eq(offset_of("333ms", &three), 1);
    ck_assert_uint_eq(offset_of("166ms", &three), 0);
    ck_assert_uint_eq(offset_of("167ms", &three), 1);
    ck_assert_uint_eq(offset_of("1s", &huge), UINT64_MAX);
    /* 0.5 s of 2^64-1 ticks/s = 9223372036854775807.5 -> ...808 */
    ck_assert_uint_eq(offset_of("0.5s", &huge), 9223372036854775808u);
}
END_TEST

START_TEST(overflow_is_detected)
{
    const struct vftr_timebase zero = { 1000000u, 0 };
    const struct vftr_timebase one = { 1000000u, 1 };
    const struct vftr_timebase ns = { 1000000000u, 0 };
    const struct vftr_timebase huge = { UINT64_MAX, 0 };

    ck_assert_uint_eq(offset_of("18446744073709551615", &zero), UINT64_MAX);
    expect_error("18446744073709551616", &zero, -ERANGE,
                 "bad time '18446744073709551616': too large");
    expect_error("18446744073709551615", &one, -ERANGE,
                 "bad time '18446744073709551615': too large (beyond the end of 64-bit time)");
    expect_error("18446744074s", &ns, -ERANGE, "bad time '18446744074s': too large");
    expect_error("1.000000000000000001s", &huge, -ERANGE,
                 "bad time '1.000000000000000001s': too large");
    expect_error("99999999999999999999999ms", &zero, -ERANGE,
                 "bad time '99999999999999999999999ms': too large");
}
END_TEST

START_TEST(malformed_times_have_precise_messages)
{
    const struct vftr_timebase nores = { 0, 10 };

    expect_error("1.5q", &us_base, -EINVAL,
                 "bad time '1.5q': unknown unit 'q' (expected s, ms, us or ns)");
    expect_error("5MS", &us_base, -EINVAL,
                 "bad time '5MS': unknown unit 'MS' (expected s, ms, us or ns)");
    expect_error("1e3", &us_base, -EINVAL,
                 "bad time '1e3': unknown unit 'e3' (expected s, ms, us or ns)");
    expect_error("", &us_base, -EINVAL, "bad time '': empty");
    expect_error("   ", &us_base, -EINVAL, "bad time '': empty");
    expect_error("-5", &us_base, -EINVAL,
                 "bad time '-5': expected a decimal number of ticks or a number with a unit "
                 "(s, ms, us or ns)");
    expect_error(".5ms", &us_base, -EINVAL,
                 "bad time '.5ms': expected a decimal number of ticks or a number with a unit "
                 "(s, ms, us or ns)");
    expect_error("1.5", &us_base, -EINVAL,
                 "bad time '1.5': a fraction needs a unit (s, ms, us or ns)");
    expect_error("1.0", &us_base, -EINVAL,
                 "bad time '1.0': a fraction needs a unit (s, ms, us or ns)");
    expect_error("1.ms", &us_base, -EINVAL, "bad time '1.ms': no digits after '.'");
    expect_error("0.0000000001ns", &us_base, -EINVAL,
                 "bad time '0.0000000001ns': too many decimal places (at most 9 with 'ns')");
    expect_error("0.0000000000000000001s", &us_base, -EINVAL,
                 "bad time '0.0000000000000000001s': too many decimal places (at most 18 "
                 "with 's')");
    expect_error("1ms", &nores, -EINVAL,
                 "bad time '1ms': the timer resolution is unknown, give plain ticks");
    ck_assert_uint_eq(offset_of("100", &nores), 100);
}
END_TEST

START_TEST(error_buffer_is_optional_and_bounded)
{
    uint64_t t;
    char small[12];

    ck_assert_int_eq(vftr_time_parse("x", &us_base, &t, NULL, 0), -EINVAL);
    ck_assert_int_eq(vftr_time_parse("x", &us_base, &t, small, sizeof small), -EINVAL);
    ck_assert_str_eq(small, "bad time 'x");
}
END_TEST

/* Parses a range and checks both ends (absolute stamps). */
static void expect_range(const char *spec, uint64_t start, uint64_t end)
{
    char err[VFTR_ERRMSG_MAX] = "";
    struct vftr_timerange r = { 1, 2 };
    int rc = vftr_timerange_parse(spec, &us_base, &r, err, sizeof err);

    ck_assert_msg(rc == 0, "'%s' rejected: %s", spec, err);
    ck_assert_uint_eq(r.start, start);
    ck_assert_uint_eq(r.end, end);
}

static void expect_range_error(const char *spec, const char *want)
{
    char err[VFTR_ERRMSG_MAX] = "";
    struct vftr_timerange r = { 1, 2 };

    ck_assert_int_eq(vftr_timerange_parse(spec, &us_base, &r, err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, want);
    ck_assert_uint_eq(r.start, 1);
    ck_assert_uint_eq(r.end, 2);
}

START_TEST(ranges)
{
    expect_range("1ms:2ms", 5001000, 5002000);
    expect_range(" 1ms : 2ms ", 5001000, 5002000);
    expect_range("0:100", 5000000, 5000100);
    expect_range(":", 0, UINT64_MAX);
    expect_range("1ms:", 5001000, UINT64_MAX);
    expect_range(":500us", 0, 5000500);
    expect_range("0.5ms:1.0105ms", 5000500, 5001011);
}
END_TEST

START_TEST(range_errors)
{
    expect_range_error("1ms", "bad time range '1ms': expected A:B (either side may be empty)");
    expect_range_error("1.5q", "bad time '1.5q': unknown unit 'q' (expected s, ms, us or ns)");
    expect_range_error("", "bad time '': empty");
    expect_range_error("1:2:3", "bad time range '1:2:3': more than one ':'");
    expect_range_error("2ms:1ms", "bad time range '2ms:1ms': the end is not after the start");
    expect_range_error("1ms:1000", "bad time range '1ms:1000': the end is not after the start");
    expect_range_error("1.5q:2ms",
                       "bad time '1.5q': unknown unit 'q' (expected s, ms, us or ns)");
    expect_range_error("1ms: x", "bad time 'x': expected a decimal number of ticks or a "
                       "number with a unit (s, ms, us or ns)");
}
END_TEST

static Suite *timespec_suite(void)
{
    Suite *s = suite_create("timespec");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, bare_ticks_are_offsets_from_the_first_stamp);
    tcase_add_test(tc, units_at_microsecond_resolution);
    tcase_add_test(tc, units_at_other_resolutions);
    tcase_add_test(tc, overflow_is_detected);
    tcase_add_test(tc, malformed_times_have_precise_messages);
    tcase_add_test(tc, error_buffer_is_optional_and_bounded);
    tcase_add_test(tc, ranges);
    tcase_add_test(tc, range_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(timespec_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
