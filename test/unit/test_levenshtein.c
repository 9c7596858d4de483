/*
 * test_levenshtein.c — Check suite for lib/util/levenshtein.  Every distance
 * below was worked out by hand (the edits are spelt out in the comments).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/levenshtein.h"

static size_t dist(const char *a, const char *b)
{
    size_t d = 12345, e = 12345;

    ck_assert_int_eq(vftr_levenshtein(a, b, &d), 0);
    ck_assert_int_eq(vftr_levenshtein(b, a, &e), 0);
    ck_assert_uint_eq(d, e);                 /* symmetric */
    return d;
}

START_TEST(hand_computed_distances)
{
    ck_assert_uint_eq(dist("", ""), 0);
    ck_assert_uint_eq(dist("", "abc"), 3);                 /* 3 insertions */
    ck_assert_uint_eq(dist("off", "off"), 0);
    ck_assert_uint_eq(dist("of", "off"), 1);               /* insert f */
    ck_assert_uint_eq(dist("kitten", "sitting"), 3);       /* k->s, e->i, insert g */
    ck_assert_uint_eq(dist("flaw", "lawn"), 2);            /* delete f, insert n */
    ck_assert_uint_eq(dist("actve", "active"), 1);         /* insert i */
    ck_assert_uint_eq(dist("show_tabel", "show_table"), 2); /* e->l, l->e */
    ck_assert_uint_eq(dist("colum", "column"), 1);
    ck_assert_uint_eq(dist("abc", "xyz"), 3);              /* 3 substitutions */
    ck_assert_uint_eq(dist("Off", "off"), 1);              /* bytes, no case folding */
    ck_assert_uint_eq(dist("intention", "execution"), 5);  /* textbook example */
    ck_assert_uint_eq(dist("sampling", "samplng"), 1);
}
END_TEST

START_TEST(long_strings_use_the_heap)
{
    size_t n = 1000, d;
    char *a = malloc(n + 1), *b = malloc(n + 1);

    memset(a, 'a', n);
    memset(b, 'a', n);
    a[n] = b[n] = '\0';
    b[500] = 'b';                                          /* one substitution */
    ck_assert_int_eq(vftr_levenshtein(a, b, &d), 0);
    ck_assert_uint_eq(d, 1);
    b[n - 300] = '\0';                                     /* and 300 deletions */
    ck_assert_int_eq(vftr_levenshtein(a, b, &d), 0);
    ck_assert_uint_eq(d, 301);
    ck_assert_int_eq(vftr_levenshtein("", a, &d), 0);
    ck_assert_uint_eq(d, n);
    free(a);
    free(b);
}
END_TEST

START_TEST(closest_candidate)
{
    const char *const names[] = { "show_table", "sort_table", NULL, "show_callpath" };
    size_t i = 99, d = 99;

    ck_assert_int_eq(vftr_levenshtein_closest("show_tabel", names, 4, &i, &d), 0);
    ck_assert_uint_eq(i, 0);
    ck_assert_uint_eq(d, 2);
    ck_assert_int_eq(vftr_levenshtein_closest("sort_tables", names, 4, &i, &d), 0);
    ck_assert_uint_eq(i, 1);
    ck_assert_uint_eq(d, 1);
    /* A tie goes to the first: "s" is 9 from both show_table and sort_table. */
    ck_assert_int_eq(vftr_levenshtein_closest("s", names, 2, &i, &d), 0);
    ck_assert_uint_eq(i, 0);
    ck_assert_uint_eq(d, 9);
    ck_assert_int_eq(vftr_levenshtein_closest("x", names + 2, 1, &i, &d), -ENOENT);
    ck_assert_int_eq(vftr_levenshtein_closest("x", names, 0, &i, &d), -ENOENT);
    ck_assert_int_eq(vftr_levenshtein_closest(NULL, names, 1, &i, &d), -EINVAL);
    ck_assert_int_eq(vftr_levenshtein(NULL, "a", &d), -EINVAL);
}
END_TEST

static Suite *levenshtein_suite(void)
{
    Suite *s = suite_create("levenshtein");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, hand_computed_distances);
    tcase_add_test(tc, long_strings_use_the_heap);
    tcase_add_test(tc, closest_candidate);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(levenshtein_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
