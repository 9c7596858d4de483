/*
 * test_rangelist.c — Check suite for lib/util/rangelist (rank sets "all",
 * "none", "0-3,7").  Expected sets and messages written by hand.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/rangelist.h"

static const char *text(const struct vftr_rangelist *l)
{
    static char buf[256];

    vftr_rangelist_format(l, buf, sizeof buf);
    return buf;
}

static void expect_set(const char *spec, const char *canonical)
{
    struct vftr_rangelist l = VFTR_RANGELIST_INIT;
    char err[VFTR_ERRMSG_MAX] = "";

    ck_assert_msg(vftr_rangelist_parse(&l, spec, err, sizeof err) == 0, "'%s': %s", spec, err);
    ck_assert_str_eq(text(&l), canonical);
    vftr_rangelist_release(&l);
}

static void expect_error(const char *spec, int want_rc, const char *want)
{
    struct vftr_rangelist l = VFTR_RANGELIST_INIT;
    char err[VFTR_ERRMSG_MAX] = "";

    ck_assert_int_eq(vftr_rangelist_add(&l, 5, 6), 0);
    ck_assert_int_eq(vftr_rangelist_parse(&l, spec, err, sizeof err), want_rc);
    ck_assert_str_eq(err, want);
    ck_assert_str_eq(text(&l), "5-6");        /* unchanged by the failed parse */
    vftr_rangelist_release(&l);
}

START_TEST(membership)
{
    struct vftr_rangelist l = VFTR_RANGELIST_INIT;

    ck_assert_int_eq(vftr_rangelist_parse(&l, "0-3,7,15-23", NULL, 0), 0);
    ck_assert_uint_eq(l.ranks.nranges, 3);
    ck_assert(!l.all);
    for (int r = -2; r < 30; r++) {
        bool want = (r >= 0 && r <= 3) || r == 7 || (r >= 15 && r <= 23);
        ck_assert_msg(vftr_rangelist_contains(&l, r) == want, "rank %d", r);
    }
    ck_assert(!vftr_rangelist_empty(&l));
    vftr_rangelist_release(&l);
    ck_assert(vftr_rangelist_empty(&l));
    ck_assert(!vftr_rangelist_contains(&l, 0));
    vftr_rangelist_release(NULL);
}
END_TEST

START_TEST(all_and_none)
{
    struct vftr_rangelist l = VFTR_RANGELIST_INIT;

    ck_assert_int_eq(vftr_rangelist_parse(&l, " ALL ", NULL, 0), 0);
    ck_assert(l.all);
    ck_assert(vftr_rangelist_contains(&l, 0));
    ck_assert(vftr_rangelist_contains(&l, INT_MAX));
    ck_assert(!vftr_rangelist_contains(&l, -1));
    ck_assert_str_eq(text(&l), "all");
    ck_assert_int_eq(vftr_rangelist_add(&l, 3, 4), 0);   /* no-op on "all" */
    ck_assert_str_eq(text(&l), "all");
    ck_assert_int_eq(vftr_rangelist_parse(&l, "none", NULL, 0), 0);
    ck_assert(!l.all);
    ck_assert(vftr_rangelist_empty(&l));
    ck_assert_str_eq(text(&l), "none");
    ck_assert(!vftr_rangelist_contains(&l, 0));
    vftr_rangelist_release(&l);
}
END_TEST

START_TEST(merging_and_blanks)
{
    expect_set("7,0-3", "0-3,7");
    expect_set("0-3,4-6", "0-6");                 /* adjacent ranges join */
    expect_set("3,2,1,0", "0-3");
    expect_set("1-10,3-4,2-12", "1-12");
    expect_set(" 1 - 3 , 7 ", "1-3,7");
    expect_set("0", "0");
    expect_set("5,5,5", "5");
    expect_set("2147483646-2147483647,0", "0,2147483646-2147483647");
}
END_TEST

START_TEST(errors)
{
    expect_error("", -EINVAL, "bad rank list '': empty (expected \"all\", \"none\" or a list "
                 "such as \"0-3,7\")");
    expect_error("1,,2", -EINVAL, "bad rank list '1,,2': item 2 is empty");
    expect_error("1,", -EINVAL, "bad rank list '1,': item 2 is empty");
    expect_error("4-1", -EINVAL, "bad rank list '4-1': reversed range '4-1' (did you mean 1-4?)");
    expect_error("-1", -EINVAL, "bad rank list '-1': '-1' is not a rank (expected \"all\", "
                 "\"none\" or items N or N-M, decimal, separated by commas)");
    expect_error("1-", -EINVAL, "bad rank list '1-': a range needs a number on both sides of '-'");
    expect_error("al", -EINVAL, "bad rank list 'al': 'al' is not a rank (expected \"all\", "
                 "\"none\" or items N or N-M, decimal, separated by commas)");
    expect_error("2147483648", -ERANGE, "bad rank list '2147483648': '2147483648' is too large "
                 "(ranks are at most 2147483647)");
    expect_error("0x10", -EINVAL, "bad rank list '0x10': '0x10' is not a rank (expected "
                 "\"all\", \"none\" or items N or N-M, decimal, separated by commas)");
}
END_TEST

START_TEST(add_copy_and_format_cut)
{
    struct vftr_rangelist a = VFTR_RANGELIST_INIT, b = VFTR_RANGELIST_INIT;
    char small[5];

    ck_assert_int_eq(vftr_rangelist_add(&a, 3, 1), -EINVAL);
    ck_assert_int_eq(vftr_rangelist_add(&a, -1, 1), -EINVAL);
    ck_assert_int_eq(vftr_rangelist_add(&a, 10, 12), 0);
    ck_assert_int_eq(vftr_rangelist_add(&a, 0, 1), 0);
    ck_assert_str_eq(text(&a), "0-1,10-12");
    ck_assert_int_eq(vftr_rangelist_copy(&b, &a), 0);
    vftr_rangelist_release(&a);
    ck_assert_str_eq(text(&b), "0-1,10-12");
    /* snprintf rule: full length returned, text cut and terminated. */
    ck_assert_uint_eq(vftr_rangelist_format(&b, small, sizeof small), 9);
    ck_assert_str_eq(small, "0-1,");
    ck_assert_uint_eq(vftr_rangelist_format(&b, NULL, 0), 9);
    vftr_rangelist_release(&b);
}
END_TEST

static Suite *rangelist_suite(void)
{
    Suite *s = suite_create("rangelist");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, membership);
    tcase_add_test(tc, all_and_none);
    tcase_add_test(tc, merging_and_blanks);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, add_copy_and_format_cut);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rangelist_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
