/*
 * test_number.c — Check suite for lib/util/number (counts and sizes) and
 * the durations of lib/util/timespec.  Expected values are worked out by
 * hand in the comments; 2^64 - 1 = 18446744073709551615.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/number.h"
#include "util/timespec.h"

static uint64_t count_ok(const char *spec, uint64_t min, uint64_t max)
{
    char err[VFTR_ERRMSG_MAX] = "";
    uint64_t v = 0;
    int rc = vftr_count_parse(spec, min, max, "--n", &v, err, sizeof err);

    ck_assert_msg(rc == 0, "'%s' rejected: %s", spec, err);
    return v;
}

static void count_bad(const char *spec, uint64_t min, uint64_t max, int want_rc, const char *want)
{
    char err[VFTR_ERRMSG_MAX] = "";
    uint64_t v = 4711;
    int rc = vftr_count_parse(spec, min, max, "--n", &v, err, sizeof err);

    ck_assert_int_eq(rc, want_rc);
    ck_assert_str_eq(err, want);
    ck_assert_uint_eq(v, 4711);             /* untouched on error */
}

START_TEST(counts)
{
    ck_assert_uint_eq(count_ok("0", 0, 10), 0);
    ck_assert_uint_eq(count_ok("10", 0, 10), 10);
    ck_assert_uint_eq(count_ok(" 007\t", 0, 10), 7);
    ck_assert_uint_eq(count_ok("18446744073709551615", 0, UINT64_MAX), UINT64_MAX);
}
END_TEST

START_TEST(counts_out_of_range_are_rejected_not_clamped)
{
    /* one above 2^64 - 1, and far above: strtoull would give 2^64 - 1 */
    count_bad("18446744073709551616", 0, UINT64_MAX, -ERANGE,
              "bad --n '18446744073709551616': too large (at most 18446744073709551615)");
    count_bad("99999999999999999999", 1, 1024, -ERANGE,
              "bad --n '99999999999999999999': too large (at most 1024)");
    count_bad("123456789012345678901234567890123456789012345678901234567890", 1, 9, -ERANGE,
              "bad --n '123456789012345678901234567890123456789012345678901234567890': "
              "too large (at most 9)");
    count_bad("1025", 1, 1024, -ERANGE, "bad --n '1025': too large (at most 1024)");
    count_bad("0", 1, 1024, -ERANGE, "bad --n '0': too small (at least 1)");
}
END_TEST

START_TEST(malformed_counts)
{
    static const char *const bad[] = { "", " ", "-1", "+1", "1.0", "1e3", "0x10", "12a", "1 2",
                                       "four", "1k" };

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[VFTR_ERRMSG_MAX];

        snprintf(want, sizeof want, "bad --n '%s': expected a whole number from 1 to 9", bad[i]);
        count_bad(bad[i], 1, 9, -EINVAL, want);
    }
    ck_assert_int_eq(vftr_count_parse(NULL, 0, 1, "--n", NULL, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(long_input_is_cut_in_messages)
{
    char spec[300], err[VFTR_ERRMSG_MAX];
    uint64_t v;

    memset(spec, 'x', sizeof spec - 1);
    spec[sizeof spec - 1] = 0;
    ck_assert_int_eq(vftr_count_parse(spec, 0, 1, "--n", &v, err, sizeof err), -EINVAL);
    /* "bad --n '" + 64 x + "': expected ..." */
    ck_assert_uint_eq(strspn(err + 9, "x"), 64);
}
END_TEST

static uint64_t size_ok(const char *spec)
{
    char err[VFTR_ERRMSG_MAX] = "";
    uint64_t v = 0;
    int rc = vftr_size_parse(spec, 0, UINT64_MAX, "--size", &v, err, sizeof err);

    ck_assert_msg(rc == 0, "'%s' rejected: %s", spec, err);
    return v;
}

START_TEST(sizes)
{
    ck_assert_uint_eq(size_ok("1048576"), 1048576);
    ck_assert_uint_eq(size_ok("64MiB"), 64ull << 20);
    ck_assert_uint_eq(size_ok("64 mib"), 64ull << 20);
    ck_assert_uint_eq(size_ok("1.5G"), 3ull << 29);          /* 1.5 * 2^30 */
    ck_assert_uint_eq(size_ok("1.5K"), 1536);
    ck_assert_uint_eq(size_ok("2KB"), 2000);
    ck_assert_uint_eq(size_ok("0.001MB"), 1000);
    ck_assert_uint_eq(size_ok("3 B"), 3);
    ck_assert_uint_eq(size_ok("16777215T"), 16777215ull << 40);   /* (2^24 - 1) * 2^40 */
}
END_TEST

START_TEST(bad_sizes)
{
    char err[VFTR_ERRMSG_MAX];
    uint64_t v = 1;

    ck_assert_int_eq(vftr_size_parse("16777216T", 0, UINT64_MAX, "--size", &v, err, sizeof err),
                     -ERANGE);          /* 2^64 */
    ck_assert_str_eq(err, "bad --size '16777216T': too large (at most 18446744073709551615)");
    ck_assert_int_eq(vftr_size_parse("65M", 1, 64u << 20, "--size", &v, err, sizeof err), -ERANGE);
    ck_assert_str_eq(err, "bad --size '65M': too large (at most 67108864)");
    ck_assert_int_eq(vftr_size_parse("1.5", 0, 9, "--size", &v, err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, "bad --size '1.5': a fraction needs a unit (bytes are whole)");
    ck_assert_int_eq(vftr_size_parse("0.0001K", 0, 9, "--size", &v, err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, "bad --size '0.0001K': not a whole number of bytes");
    ck_assert_int_eq(vftr_size_parse("12 parsecs", 0, 9, "--size", &v, err, sizeof err), -EINVAL);
    ck_assert_int_eq(vftr_size_parse("-1M", 0, 9, "--size", &v, err, sizeof err), -EINVAL);
    ck_assert_int_eq(vftr_size_parse(".5M", 0, 9, "--size", &v, err, sizeof err), -EINVAL);
    ck_assert_int_eq(vftr_size_parse("", 0, 9, "--size", &v, err, sizeof err), -EINVAL);
    ck_assert_uint_eq(v, 1);
}
END_TEST

static uint64_t duration_ok(const char *spec)
{
    char err[VFTR_ERRMSG_MAX] = "";
    uint64_t ns = 0;
    int rc = vftr_duration_parse(spec, 0, UINT64_MAX, "--timeout", &ns, err, sizeof err);

    ck_assert_msg(rc == 0, "'%s' rejected: %s", spec, err);
    return ns;
}

START_TEST(durations)
{
    ck_assert_uint_eq(duration_ok("5"), 5000000000ull);        /* bare numbers are seconds */
    ck_assert_uint_eq(duration_ok("0.5"), 500000000ull);
    ck_assert_uint_eq(duration_ok("250ms"), 250000000ull);
    ck_assert_uint_eq(duration_ok(" 2 us "), 2000ull);
    ck_assert_uint_eq(duration_ok("0.0000000005"), 1ull);      /* half a ns: up */
    ck_assert_uint_eq(duration_ok("18446744073.709551615"), UINT64_MAX);
}
END_TEST

START_TEST(bad_durations)
{
    char err[VFTR_ERRMSG_MAX], buf[64];
    uint64_t ns = 3;

    ck_assert_int_eq(vftr_duration_parse("86401", 1, 86400000000000ull, "--timeout", &ns, err,
                                         sizeof err), -ERANGE);
    ck_assert_str_eq(err, "bad --timeout '86401': too long (at most 86400s)");
    ck_assert_int_eq(vftr_duration_parse("99999999999999999999", 1, 86400000000000ull,
                                         "--timeout", &ns, err, sizeof err), -ERANGE);
    ck_assert_str_eq(err, "bad --timeout '99999999999999999999': too long (at most 86400s)");
    ck_assert_int_eq(vftr_duration_parse("0", 10000000, UINT64_MAX, "--interval", &ns, err,
                                         sizeof err), -ERANGE);
    ck_assert_str_eq(err, "bad --interval '0': too short (at least 10ms)");
    ck_assert_int_eq(vftr_duration_parse("5q", 0, UINT64_MAX, "--timeout", &ns, err, sizeof err),
                     -EINVAL);
    ck_assert_str_eq(err, "bad --timeout '5q': unknown unit 'q' (expected s, ms, us or ns)");
    ck_assert_int_eq(vftr_duration_parse("-1", 0, UINT64_MAX, "--timeout", &ns, err, sizeof err),
                     -EINVAL);
    ck_assert_str_eq(err, "bad --timeout '-1': expected a decimal number of seconds or a number "
                     "with a unit (s, ms, us or ns)");
    ck_assert_uint_eq(ns, 3);
    vftr_duration_format(1500000, buf, sizeof buf);
    ck_assert_str_eq(buf, "1500us");
    vftr_duration_format(3, buf, sizeof buf);
    ck_assert_str_eq(buf, "3ns");
    vftr_duration_format(0, buf, sizeof buf);
    ck_assert_str_eq(buf, "0s");
}
END_TEST

static Suite *number_suite(void)
{
    Suite *s = suite_create("number");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, counts);
    tcase_add_test(tc, counts_out_of_range_are_rejected_not_clamped);
    tcase_add_test(tc, malformed_counts);
    tcase_add_test(tc, long_input_is_cut_in_messages);
    tcase_add_test(tc, sizes);
    tcase_add_test(tc, bad_sizes);
    tcase_add_test(tc, durations);
    tcase_add_test(tc, bad_durations);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(number_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
