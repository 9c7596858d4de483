/*
 * test_model_ctrpaths.c — Check suite for lib/model/ctrpaths.h: counter
 * values after Enter and Leave events become per-call-path sums, worked
 * out by hand.
 */
#include <check.h>
#include <stdint.h>

#include "model/ctrpaths.h"

/* Process 1: main (f1) { a (f2) { } a { } } with two counters (tokens 7,
 * 9); values after each boundary:
 *   enter main 100/10, enter a 110/10, leave a 150/12, enter a 160/12,
 *   leave a 200/20, leave main 230/21.
 * main: incl 130/11, a: 2 calls, incl (40 + 40)/(2 + 8) = 80/10, main
 * excl 50/1.  Process 2: b (f3) entered with values, left without (a
 * filtered or sampled boundary): not counted. */
START_TEST(sums_by_hand)
{
    const uint32_t tok[2] = { 7, 9 };
    struct vftr_ctrpaths *c = vftr_ctrpaths_new(tok, 2);
    struct vftr_window_handler h = vftr_ctrpaths_handler(c);
    const struct vftr_ctrpath *p;
    size_t n;
#define ENTER(pr, f) ck_assert_int_eq(h.enter(h.arg, 0, pr, f), 0)
#define LEAVE(pr, f) ck_assert_int_eq(h.leave(h.arg, 0, pr, f), 0)
#define VAL(pr, a, b) do { ck_assert_int_eq(h.counter(h.arg, 0, pr, 7, a), 0); \
                           ck_assert_int_eq(h.counter(h.arg, 0, pr, 9, b), 0); } while (0)

    ENTER(1, 1); VAL(1, 100, 10);
    ENTER(2, 3); VAL(2, 5, 5);
    ENTER(1, 2); VAL(1, 110, 10);
    LEAVE(1, 2); VAL(1, 150, 12);
    LEAVE(2, 3);
    ENTER(1, 2); VAL(1, 160, 12);
    LEAVE(1, 2); VAL(1, 200, 20);
    ck_assert_int_eq(h.counter(h.arg, 0, 1, 8, 99), 0);   /* no such column */
    LEAVE(1, 1); VAL(1, 230, 21);
    p = vftr_ctrpaths_result(c, &n);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(n, 3);
    /* path 1: main, path 2: b on process 2, path 3: main>a */
    ck_assert_uint_eq(p[0].function, 1);
    ck_assert_uint_eq(p[0].calls, 1);
    ck_assert_uint_eq(p[0].incl[0], 130);
    ck_assert_uint_eq(p[0].incl[1], 11);
    ck_assert_int_eq(p[0].excl[0], 50);
    ck_assert_int_eq(p[0].excl[1], 1);
    ck_assert_uint_eq(p[1].function, 3);
    ck_assert_uint_eq(p[1].calls, 0);
    ck_assert_uint_eq(p[2].parent, 1);
    ck_assert_uint_eq(p[2].calls, 2);
    ck_assert_uint_eq(p[2].incl[0], 80);
    ck_assert_uint_eq(p[2].incl[1], 10);
    ck_assert_int_eq(p[2].excl[0], 80);
    vftr_ctrpaths_free(c);
}
END_TEST

START_TEST(too_many_counters)
{
    uint32_t tok[VFTR_CTRPATHS_MAX + 1] = { 0 };

    ck_assert_ptr_null(vftr_ctrpaths_new(tok, VFTR_CTRPATHS_MAX + 1));
    vftr_ctrpaths_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("model_ctrpaths");
    TCase *tc = tcase_create("ctrpaths");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, sums_by_hand);
    tcase_add_test(tc, too_many_counters);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
