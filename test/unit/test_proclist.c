/*
 * test_proclist.c — Check suite for lib/util/proclist (process token sets).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/proclist.h"
#include "util/tracesel.h"

/* The canonical text of a list. */
static const char *text(const struct vftr_proclist *l)
{
    static char buf[256];

    vftr_proclist_format(l, buf, sizeof buf);
    return buf;
}

/* Parses spec into a fresh list and compares its canonical form. */
static void expect_set(const char *spec, const char *canonical, uint64_t count)
{
    struct vftr_proclist l = VFTR_PROCLIST_INIT;
    char err[VFTR_ERRMSG_MAX] = "";

    ck_assert_msg(vftr_proclist_parse(&l, spec, err, sizeof err) == 0, "'%s': %s", spec, err);
    ck_assert_str_eq(text(&l), canonical);
    ck_assert_uint_eq(vftr_proclist_count(&l), count);
    vftr_proclist_release(&l);
}

static void expect_error(const char *spec, int want_rc, const char *want)
{
    struct vftr_proclist l = VFTR_PROCLIST_INIT;
    char err[VFTR_ERRMSG_MAX] = "";

    ck_assert_int_eq(vftr_proclist_parse(&l, spec, err, sizeof err), want_rc);
    ck_assert_str_eq(err, want);
    ck_assert_uint_eq(l.nranges, 0);
    ck_assert_ptr_null(l.ranges);
}

START_TEST(ranges_and_single_tokens)
{
    struct vftr_proclist l = VFTR_PROCLIST_INIT;

    ck_assert_int_eq(vftr_proclist_parse(&l, "1-4,9", NULL, 0), 0);
    ck_assert_uint_eq(l.nranges, 2);
    ck_assert_uint_eq(l.ranges[0].first, 1);
    ck_assert_uint_eq(l.ranges[0].last, 4);
    ck_assert_uint_eq(l.ranges[1].first, 9);
    ck_assert_uint_eq(l.ranges[1].last, 9);
    ck_assert_uint_eq(vftr_proclist_count(&l), 5);
    ck_assert(vftr_proclist_contains(&l, 1));
    ck_assert(vftr_proclist_contains(&l, 4));
    ck_assert(vftr_proclist_contains(&l, 9));
    ck_assert(!vftr_proclist_contains(&l, 0));
    ck_assert(!vftr_proclist_contains(&l, 5));
    ck_assert(!vftr_proclist_contains(&l, 8));
    ck_assert(!vftr_proclist_contains(&l, 10));
    vftr_proclist_release(&l);
    ck_assert_uint_eq(l.nranges, 0);
    ck_assert(!vftr_proclist_contains(&l, 1));
    vftr_proclist_release(NULL);
}
END_TEST

START_TEST(duplicates_overlaps_and_blanks_merge)
{
    expect_set("9,1-4,3,2", "1-4,9", 5);
    expect_set("1-4,5-8", "1-8", 8);           /* adjacent ranges join */
    expect_set("5-8,1-4", "1-8", 8);
    expect_set("1-10,3-4,2-12", "1-12", 12);
    expect_set(" 1 - 3 , 7 ", "1-3,7", 4);
    expect_set("\t7\t", "7", 1);
    expect_set("0", "0", 1);
    expect_set("2,4,6,3,5", "2-6", 5);
}
END_TEST

START_TEST(extremes)
{
    struct vftr_proclist l = VFTR_PROCLIST_INIT;

    expect_set("4294967295", "4294967295", 1);
    expect_set("4294967290-4294967295,0", "0,4294967290-4294967295", 7);
    expect_set("4294967294-4294967295,4294967293", "4294967293-4294967295", 3);
    ck_assert_int_eq(vftr_proclist_parse(&l, "0-4294967295", NULL, 0), 0);
    ck_assert_uint_eq(vftr_proclist_count(&l), 4294967296u);
    ck_assert(vftr_proclist_contains(&l, UINT32_MAX));
    ck_assert(vftr_proclist_contains(&l, 0));
    vftr_proclist_release(&l);
}
END_TEST

START_TEST(errors)
{
    expect_error("", -EINVAL, "bad process list '': empty");
    expect_error("  ", -EINVAL, "bad process list '  ': empty");
    expect_error("1,,2", -EINVAL, "bad process list '1,,2': item 2 is empty");
    expect_error("1,", -EINVAL, "bad process list '1,': item 2 is empty");
    expect_error(",1", -EINVAL, "bad process list ',1': item 1 is empty");
    expect_error("4-1", -EINVAL, "bad process list '4-1': reversed range '4-1' (did you mean 1-4?)");
    expect_error("1,9 - 3", -EINVAL,
                 "bad process list '1,9 - 3': reversed range '9 - 3' (did you mean 3-9?)");
    expect_error("1-x", -EINVAL,
                 "bad process list '1-x': 'x' is not a process number (expected N or N-M, "
                 "decimal)");
    expect_error("abc", -EINVAL,
                 "bad process list 'abc': 'abc' is not a process number (expected N or N-M, "
                 "decimal)");
    expect_error("-3", -EINVAL,
                 "bad process list '-3': '-3' is not a process number (expected N or N-M, "
                 "decimal)");
    expect_error("1.5", -EINVAL,
                 "bad process list '1.5': '1.5' is not a process number (expected N or N-M, "
                 "decimal)");
    expect_error("1 2", -EINVAL,
                 "bad process list '1 2': '1 2' is not a process number (expected N or N-M, "
                 "decimal)");
    expect_error("1-", -EINVAL,
                 "bad process list '1-': a range needs a number on both sides of '-'");
    expect_error("0x10", -EINVAL,
                 "bad process list '0x10': '0x10' is hexadecimal; process tokens are given in "
                 "decimal");
    expect_error("4294967296", -ERANGE,
                 "bad process list '4294967296': '4294967296' is too large (process tokens are "
                 "at most 4294967295)");
    expect_error("1-99999999999999999999", -ERANGE,
                 "bad process list '1-99999999999999999999': '99999999999999999999' is too "
                 "large (process tokens are at most 4294967295)");
}
END_TEST

START_TEST(parses_accumulate_and_errors_change_nothing)
{
    struct vftr_proclist l;
    char err[VFTR_ERRMSG_MAX];

    vftr_proclist_init(&l);
    ck_assert_int_eq(vftr_proclist_parse(&l, "1-3", err, sizeof err), 0);
    ck_assert_int_eq(vftr_proclist_parse(&l, "10", err, sizeof err), 0);
    ck_assert_str_eq(text(&l), "1-3,10");
    ck_assert_int_eq(vftr_proclist_parse(&l, "5,x", err, sizeof err), -EINVAL);
    ck_assert_str_eq(text(&l), "1-3,10");
    ck_assert_int_eq(vftr_proclist_parse(&l, "4", err, sizeof err), 0);
    ck_assert_str_eq(text(&l), "1-4,10");
    ck_assert_int_eq(vftr_proclist_add(&l, 5, 9), 0);
    ck_assert_str_eq(text(&l), "1-10");
    ck_assert_uint_eq(l.nranges, 1);
    ck_assert_int_eq(vftr_proclist_add(&l, 20, 19), -EINVAL);
    ck_assert_str_eq(text(&l), "1-10");
    vftr_proclist_release(&l);
}
END_TEST

START_TEST(format_reports_full_length_when_cut)
{
    struct vftr_proclist l = VFTR_PROCLIST_INIT;
    char buf[6];

    ck_assert_uint_eq(vftr_proclist_format(&l, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(vftr_proclist_parse(&l, "1-4,9,100-200", NULL, 0), 0);
    /* "1-4,9,100-200" is 13 characters; 5 fit next to the terminator. */
    ck_assert_uint_eq(vftr_proclist_format(&l, buf, sizeof buf), 13);
    ck_assert_str_eq(buf, "1-4,9");
    ck_assert_uint_eq(vftr_proclist_format(&l, buf, 4), 13);
    ck_assert_str_eq(buf, "1-4");
    ck_assert_uint_eq(vftr_proclist_format(&l, NULL, 0), 13);
    vftr_proclist_release(&l);
}
END_TEST

/* --process with rank names (tracesel.h), against a trace of two ranks
 * with two threads each, numbered by hand: tokens as vfd2otf writes them
 * (thread t of rank r is (t << 20) + r + 1), parents given. */
START_TEST(rank_names_select_by_rank_and_thread)
{
    const uint32_t T1 = 1u << 20;
    struct vftr_procid ids[] = {
        { 2 * T1 + 2, 0, 0 }, { 1, 0, 0 }, { T1 + 1, 0, 0 }, { 2, 0, 0 }, { T1 + 2, 0, 0 },
        { 2 * T1 + 1, 0, 0 },
    };
    const uint32_t parents[] = { 2, 0, 1, 0, 2, 1 };
    struct vftr_tracesel sel = VFTR_TRACESEL_INIT;
    char err[256] = "";

    /* ranks in token order from 0, threads of each from 1 in token order */
    ck_assert_int_eq(vftr_procids_number(ids, parents, 6), 0);
    ck_assert_uint_eq(ids[1].rank, 0); ck_assert_uint_eq(ids[1].thread, 0);   /* 1 */
    ck_assert_uint_eq(ids[3].rank, 1); ck_assert_uint_eq(ids[3].thread, 0);   /* 2 */
    ck_assert_uint_eq(ids[2].rank, 0); ck_assert_uint_eq(ids[2].thread, 1);   /* T1 + 1 */
    ck_assert_uint_eq(ids[5].rank, 0); ck_assert_uint_eq(ids[5].thread, 2);   /* 2 T1 + 1 */
    ck_assert_uint_eq(ids[0].rank, 1); ck_assert_uint_eq(ids[0].thread, 2);   /* 2 T1 + 2 */

    /* "rank 1 thread 2" and a token, mixed; blanks and case ignored */
    ck_assert_int_eq(vftr_tracesel_opt_process(&sel, " Rank 1  thread 2 , 1", err, sizeof err), 0);
    ck_assert_int_eq(sel.have_procs, 1);
    ck_assert_uint_eq(sel.nranks, 1);
    ck_assert_uint_eq(vftr_proclist_count(&sel.procs), 1);        /* the token, so far */
    ck_assert(vftr_tracesel_names_match(&sel, 1, 2));
    ck_assert(!vftr_tracesel_names_match(&sel, 1, 1));
    /* "rank 0" is the rank with its threads */
    ck_assert_int_eq(vftr_tracesel_opt_process(&sel, "rank 0", err, sizeof err), 0);
    ck_assert_int_eq(vftr_tracesel_resolve(&sel, ids, 6, err, sizeof err), 0);
    ck_assert_uint_eq(sel.nranks, 0);
    ck_assert(vftr_proclist_contains(&sel.procs, 1));
    ck_assert(vftr_proclist_contains(&sel.procs, T1 + 1));
    ck_assert(vftr_proclist_contains(&sel.procs, 2 * T1 + 1));
    ck_assert(vftr_proclist_contains(&sel.procs, 2 * T1 + 2));    /* rank 1 thread 2 */
    ck_assert(!vftr_proclist_contains(&sel.procs, 2));
    ck_assert(!vftr_proclist_contains(&sel.procs, T1 + 2));
    ck_assert_uint_eq(vftr_proclist_count(&sel.procs), 4);
    vftr_tracesel_release(&sel);

    /* ranges: "rank 0-1 thread 0" is both ranks' own processes */
    ck_assert_int_eq(vftr_tracesel_opt_process(&sel, "rank 0-1 thread 0", err, sizeof err), 0);
    ck_assert_int_eq(vftr_tracesel_resolve(&sel, ids, 6, err, sizeof err), 0);
    ck_assert_uint_eq(vftr_proclist_count(&sel.procs), 2);
    ck_assert(vftr_proclist_contains(&sel.procs, 1) && vftr_proclist_contains(&sel.procs, 2));
    vftr_tracesel_release(&sel);

    /* a rank the trace does not have: says which it has */
    ck_assert_int_eq(vftr_tracesel_opt_process(&sel, "rank 7", err, sizeof err), 0);
    ck_assert_int_eq(vftr_tracesel_resolve(&sel, ids, 6, err, sizeof err), -ENOENT);
    ck_assert_str_eq(err, "no rank 7 in the trace (it has ranks 0-1)");
    vftr_tracesel_release(&sel);
    ck_assert_int_eq(vftr_tracesel_opt_process(&sel, "rank 0 thread 3", err, sizeof err), 0);
    ck_assert_int_eq(vftr_tracesel_resolve(&sel, ids, 6, err, sizeof err), -ENOENT);
    vftr_tracesel_release(&sel);

    /* malformed names are usage errors that say what is expected */
    const char *bad[] = { "rank", "rank x", "rank 1 thread", "rank 2-1", "rank 1 thread 1 x",
                          "rank -1", "rank 4294967296" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        ck_assert_int_eq(vftr_tracesel_opt_process(&sel, bad[i], err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "expected 'rank N' or 'rank N thread T'"), "%s: %s", bad[i], err);
        ck_assert_int_eq(sel.have_procs, 0);
    }
    /* tokens alone keep proclist's messages */
    ck_assert_int_eq(vftr_tracesel_opt_process(&sel, "4-1", err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, "bad process list '4-1': reversed range '4-1' (did you mean 1-4?)");
    vftr_tracesel_release(&sel);
}
END_TEST

static Suite *proclist_suite(void)
{
    Suite *s = suite_create("proclist");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, ranges_and_single_tokens);
    tcase_add_test(tc, duplicates_overlaps_and_blanks_merge);
    tcase_add_test(tc, extremes);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, parses_accumulate_and_errors_change_nothing);
    tcase_add_test(tc, format_reports_full_length_when_cut);
    tcase_add_test(tc, rank_names_select_by_rank_and_thread);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(proclist_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
