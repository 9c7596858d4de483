/* test_summary.c — lib/model/summary: the signed accumulator, the window
 * plan, and the replay's per-call inclusive time that summaries use. */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "model/replay.h"
#include "model/summary.h"

START_TEST(acc_differences)
{
    struct vftr_fsacc *a = vftr_fsacc_new();
    const struct vftr_funcstat *r;
    size_t n;
    uint64_t neg = 9;

    ck_assert_ptr_nonnull(a);
    /* S(65) - S(45) of process 1, function 2 (by hand: 2 - 1 calls, 25 - 20) */
    ck_assert_int_eq(vftr_fsacc_add(a, 1, 2, +1, 2, 25, 25), 0);
    ck_assert_int_eq(vftr_fsacc_add(a, 1, 2, -1, 1, 20, 20), 0);
    /* a function seen only before the window cancels out and is left out */
    ck_assert_int_eq(vftr_fsacc_add(a, 1, 4, +1, 2, 30, 40), 0);
    ck_assert_int_eq(vftr_fsacc_add(a, 1, 4, -1, 2, 30, 40), 0);
    /* inconsistent input: clamped and counted */
    ck_assert_int_eq(vftr_fsacc_add(a, 2, 2, -1, 1, 0, 0), 0);
    r = vftr_fsacc_result(a, &n, &neg);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(r[0].process, 1);
    ck_assert_uint_eq(r[0].calls, 1);
    ck_assert_uint_eq(r[0].excl, 5);
    ck_assert_uint_eq(r[1].calls, 0);
    ck_assert_uint_eq(neg, 1);
    vftr_fsacc_free(a);
    vftr_fsacc_free(NULL);
}
END_TEST

static uint32_t fold(void *arg, uint32_t p)
{
    (void)arg;
    return p % 1000;
}

START_TEST(acc_fold)
{
    struct vftr_fsacc *a = vftr_fsacc_new();
    const struct vftr_funcstat fs[] = { { 1, 7, 1, 10, 10 }, { 1001, 7, 2, 5, 6 } };
    size_t n;
    const struct vftr_funcstat *r;

    ck_assert_int_eq(vftr_fsacc_add_stats(a, fs, 2, +1, fold, NULL), 0);
    r = vftr_fsacc_result(a, &n, NULL);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(r[0].calls, 3);
    ck_assert_uint_eq(r[0].excl, 15);
    ck_assert_uint_eq(r[0].incl, 16);
    vftr_fsacc_free(a);
}
END_TEST

START_TEST(plan_exact)
{
    const uint64_t sums[] = { 1065, 1045, 1101 }, snaps[] = { 1045, 1065 };
    struct vftr_auxpoints aux = { sums, 3, snaps, 2, 1000, 1100 };
    struct vftr_winplan p;

    ck_assert_int_eq(vftr_winplan_make(&aux, 1045, 1065, &p), 0);
    ck_assert_int_eq(p.exact_events, 0);
    ck_assert_int_eq(p.nsums, 2);
    ck_assert_uint_eq(p.sum_at[0], 1065);
    ck_assert_uint_eq(p.sum_at[1], 1045);
    ck_assert_int_eq(p.npieces, 0);
    ck_assert_uint_eq(p.cost, 0);
    /* from the trace start: S(1045) - 0 */
    ck_assert_int_eq(vftr_winplan_make(&aux, 0, 1045, &p), 0);
    ck_assert_int_eq(p.npieces, 0);
    ck_assert_uint_eq(p.sum_at[0], 1045);
    ck_assert_uint_eq(p.sum_at[1], 0);
    /* open end: the summary after the last event */
    ck_assert_int_eq(vftr_winplan_make(&aux, 1045, UINT64_MAX, &p), 0);
    ck_assert_int_eq(p.npieces, 0);
    ck_assert_uint_eq(p.sum_at[0], 1101);
    ck_assert_int_eq(vftr_winplan_make(&aux, 5, 5, &p), -EINVAL);
}
END_TEST

START_TEST(plan_mixed)
{
    const uint64_t sums[] = { 1045, 1065 }, snaps[] = { 1045, 1065 };
    struct vftr_auxpoints aux = { sums, 2, snaps, 2, 1000, 1100 };
    struct vftr_winplan p;

    /* [1050, 1065) = S(1065) - S(1045) - P([1045, 1050)) */
    ck_assert_int_eq(vftr_winplan_make(&aux, 1050, 1065, &p), 0);
    ck_assert_int_eq(p.nsums, 2);
    ck_assert_int_eq(p.npieces, 1);
    ck_assert_uint_eq(p.piece[0].start, 1045);
    ck_assert_uint_eq(p.piece[0].end, 1050);
    ck_assert_int_eq(p.piece[0].sign, -1);
    ck_assert_uint_eq(p.cost, 5);
    /* [1047, 1080): both edges from their snapshots */
    ck_assert_int_eq(vftr_winplan_make(&aux, 1047, 1080, &p), 0);
    ck_assert_int_eq(p.npieces, 2);
    ck_assert_uint_eq(p.cost, 2 + 15);
    /* [1010, 1020): cheapest from the trace start, one point: no summary */
    ck_assert_int_eq(vftr_winplan_make(&aux, 1010, 1020, &p), 0);
    ck_assert_int_eq(p.nsums, 0);
    ck_assert_uint_eq(p.cost, 10 + 20);
}
END_TEST

START_TEST(plan_snapshots_only)
{
    const uint64_t snaps[] = { 1045 };
    struct vftr_auxpoints aux = { NULL, 0, snaps, 1, 1000, 1100 }, none = { 0 };
    struct vftr_winplan p;

    ck_assert_int_eq(vftr_winplan_make(&aux, 1050, 1065, &p), 0);
    ck_assert_int_eq(p.nsums, 0);
    ck_assert_int_eq(p.npieces, 2);
    ck_assert_uint_eq(p.piece[0].start, 1045);
    ck_assert_uint_eq(p.piece[1].start, 1045);
    ck_assert_int_eq(vftr_winplan_make(&none, 1050, 1065, &p), 0);
    ck_assert_int_eq(p.exact_events, 1);
}
END_TEST

START_TEST(replay_per_call)
{
    /* f 5..35 { f 10..20 }: inclusive once 30, per call 40 (otfaux) */
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX), *q = vftr_replay_new(0, UINT64_MAX);
    const struct vftr_funcstat *fs;
    size_t n;

    ck_assert_int_eq(vftr_replay_set_flags(q, VFTR_REPLAY_INCL_PER_CALL), 0);
    ck_assert_int_eq(vftr_replay_set_flags(q, 99), -EINVAL);
    for (int k = 0; k < 2; k++) {
        struct vftr_replay *x = k ? q : r;
        vftr_replay_enter(x, 1, 4, 5);
        vftr_replay_enter(x, 1, 4, 10);
        vftr_replay_leave(x, 1, 4, 20);
        vftr_replay_leave(x, 1, 4, 35);
        vftr_replay_finish(x);
    }
    fs = vftr_replay_funcstats(r, &n);
    ck_assert_uint_eq(fs[0].incl, 30);
    fs = vftr_replay_funcstats(q, &n);
    ck_assert_uint_eq(fs[0].incl, 40);
    ck_assert_uint_eq(fs[0].excl, 30);
    ck_assert_int_eq(vftr_replay_set_flags(q, 0), -EINVAL);
    vftr_replay_free(r);
    vftr_replay_free(q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, acc_differences);
    tcase_add_test(tc, acc_fold);
    tcase_add_test(tc, plan_exact);
    tcase_add_test(tc, plan_mixed);
    tcase_add_test(tc, plan_snapshots_only);
    tcase_add_test(tc, replay_per_call);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
