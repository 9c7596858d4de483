/*
 * test_model.c — Check suite for lib/model (call-stack replay and profile
 * aggregation).  Every expected number is worked out by hand in the comment
 * next to the events that produce it.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/profile.h"
#include "model/replay.h"

enum { MAIN = 1, A = 2, B = 3, C = 4, F = 5 };

#define EN(r, p, f, t) ck_assert_int_eq(vftr_replay_enter(r, p, f, t), 0)
#define LV(r, p, f, t) ck_assert_int_eq(vftr_replay_leave(r, p, f, t), 0)

/* The statistics of (process, function); fails the test if absent. */
static struct vftr_funcstat stat_of(const struct vftr_replay *r, uint32_t process, uint32_t function)
{
    size_t n;
    const struct vftr_funcstat *fs = vftr_replay_funcstats(r, &n);

    for (size_t i = 0; i < n; i++)
        if (fs[i].process == process && fs[i].function == function)
            return fs[i];
    ck_abort_msg("no statistics for process %u function %u", process, function);
    return fs[0];
}

static void expect(const struct vftr_replay *r, uint32_t process, uint32_t function,
                   uint64_t calls, uint64_t excl, uint64_t incl)
{
    struct vftr_funcstat s = stat_of(r, process, function);

    ck_assert_msg(s.calls == calls && s.excl == excl && s.incl == incl,
                  "process %u function %u: calls/excl/incl %llu/%llu/%llu, expected %llu/%llu/%llu",
                  process, function, (unsigned long long)s.calls, (unsigned long long)s.excl,
                  (unsigned long long)s.incl, (unsigned long long)calls,
                  (unsigned long long)excl, (unsigned long long)incl);
}

/* The path whose functions, from the root, are fn[0..depth-1]. */
static struct vftr_pathstat path_of(const struct vftr_replay *r, const uint32_t *fn, size_t depth)
{
    size_t n;
    const struct vftr_pathstat *p = vftr_replay_paths(r, &n);

    for (size_t i = 0; i < n; i++) {
        size_t d = p[i].depth;
        uint32_t id = (uint32_t)i + 1;

        if (d != depth)
            continue;
        while (d > 0 && p[id - 1].function == fn[d - 1]) {
            id = p[id - 1].parent;
            d--;
        }
        if (d == 0)
            return p[i];
    }
    ck_abort_msg("no such call path of depth %zu", depth);
    return p[0];
}

/*
 * Two processes interleaved:
 *   P1: main 0..100 { a 10..30, b 40..70 { a 45..50 } }
 *       main excl 100-20-30 = 50, incl 100;  a calls 2, excl 20+5 = 25;
 *       b excl 30-5 = 25, incl 30
 *   P2: main 0..40 { a 5..35 }:  main excl 10, a excl 30
 */
START_TEST(nesting_and_two_processes)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    EN(r, 1, MAIN, 0);
    EN(r, 2, MAIN, 0);
    EN(r, 2, A, 5);
    EN(r, 1, A, 10);
    LV(r, 1, A, 30);
    LV(r, 2, A, 35);
    EN(r, 1, B, 40);
    LV(r, 2, MAIN, 40);
    EN(r, 1, A, 45);
    LV(r, 1, A, 50);
    LV(r, 1, B, 70);
    LV(r, 1, MAIN, 100);
    ck_assert_int_eq(vftr_replay_finish(r), 0);

    expect(r, 1, MAIN, 1, 50, 100);
    expect(r, 1, A, 2, 25, 25);
    expect(r, 1, B, 1, 25, 30);
    expect(r, 2, MAIN, 1, 10, 40);
    expect(r, 2, A, 1, 30, 30);
    ck_assert_uint_eq(vftr_replay_nprocesses(r), 2);

    /* Paths summed over processes: main/a = P1's first a + P2's a. */
    struct vftr_pathstat p = path_of(r, (uint32_t[]){ MAIN, A }, 2);
    ck_assert_uint_eq(p.calls, 2);
    ck_assert_uint_eq(p.excl, 20 + 30);
    p = path_of(r, (uint32_t[]){ MAIN, B, A }, 3);
    ck_assert_uint_eq(p.calls, 1);
    ck_assert_uint_eq(p.incl, 5);
    p = path_of(r, (uint32_t[]){ MAIN }, 1);
    ck_assert_uint_eq(p.incl, 140);

    const struct vftr_replay_counts *c = vftr_replay_counts(r);
    ck_assert_uint_eq(c->enters, 6);
    ck_assert_uint_eq(c->leaves, 6);
    ck_assert_uint_eq(c->implied_enters + c->mismatched + c->closed_at_end + c->outside, 0);

    /* Profile: a on P1 25, on P2 30 -> min 25, max 30, avg 27.5,
     * imbalance (30-27.5)/30 = 1/12.  Total = 50+25+25+10+30 = 140. */
    size_t n;
    const struct vftr_funcstat *fs = vftr_replay_funcstats(r, &n);
    struct vftr_profile prof = VFTR_PROFILE_INIT;
    ck_assert_int_eq(vftr_profile_build(&prof, fs, n), 0);
    ck_assert_uint_eq(prof.nrows, 3);
    ck_assert_uint_eq(prof.total, 140);
    ck_assert_uint_eq(prof.nprocs, 2);
    for (size_t i = 0; i < prof.nrows; i++) {
        const struct vftr_profile_row *row = &prof.rows[i];
        if (row->function == A) {
            ck_assert_uint_eq(row->calls, 3);
            ck_assert_uint_eq(row->excl, 55);
            ck_assert_uint_eq(row->incl, 55);
            ck_assert_uint_eq(row->excl_min, 25);
            ck_assert_uint_eq(row->excl_max, 30);
            ck_assert_uint_eq(row->nprocs, 2);
            ck_assert_double_eq_tol(row->excl_avg, 27.5, 1e-12);
            ck_assert_double_eq_tol(row->imbalance, 1.0 / 12, 1e-12);
        } else if (row->function == B) {
            ck_assert_uint_eq(row->nprocs, 1);
            ck_assert_double_eq(row->imbalance, 0);
        } else {
            ck_assert_uint_eq(row->function, MAIN);
            ck_assert_uint_eq(row->excl, 60);
            ck_assert_uint_eq(row->incl, 140);
            /* (50 - 30) / 50 = 0.4 */
            ck_assert_double_eq_tol(row->imbalance, 0.4, 1e-12);
        }
    }
    vftr_profile_release(&prof);
    ck_assert_ptr_null(prof.rows);
    vftr_replay_free(r);
}
END_TEST

/*
 * Recursion f 0..50 { f 10..40 { f 20..30 } }: excl 10+20+20 = 50 (every
 * instant once), inclusive counted once = 50, calls 3.  The call paths keep
 * the levels apart: f 50, f/f 30, f/f/f 10 inclusive.
 */
START_TEST(recursion_counts_inclusive_once)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    EN(r, 7, F, 0);
    EN(r, 7, F, 10);
    EN(r, 7, F, 20);
    LV(r, 7, F, 30);
    LV(r, 7, F, 40);
    LV(r, 7, F, 50);
    vftr_replay_finish(r);
    expect(r, 7, F, 3, 50, 50);
    ck_assert_uint_eq(path_of(r, (uint32_t[]){ F }, 1).incl, 50);
    ck_assert_uint_eq(path_of(r, (uint32_t[]){ F }, 1).excl, 20);
    ck_assert_uint_eq(path_of(r, (uint32_t[]){ F, F }, 2).incl, 30);
    ck_assert_uint_eq(path_of(r, (uint32_t[]){ F, F, F }, 3).incl, 10);
    vftr_replay_free(r);
}
END_TEST

/* Mutual recursion main 0..100 { a 10..90 { b 20..80 { a 30..60 } } }:
 * a excl (90-10-60) + 30 = 50, incl 80 once; b excl 60-30 = 30. */
START_TEST(indirect_recursion)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    EN(r, 1, MAIN, 0);
    EN(r, 1, A, 10);
    EN(r, 1, B, 20);
    EN(r, 1, A, 30);
    LV(r, 1, A, 60);
    LV(r, 1, B, 80);
    LV(r, 1, A, 90);
    LV(r, 1, MAIN, 100);
    vftr_replay_finish(r);
    expect(r, 1, A, 2, 50, 80);
    expect(r, 1, B, 1, 30, 60);
    expect(r, 1, MAIN, 1, 20, 100);
    vftr_replay_free(r);
}
END_TEST

/* A stack 40 deep, one tick per level on the way down and up:
 * level i (0-based) is entered at i and left at 80 - i; every level has
 * exclusive time 2 (one tick before its callee, one after), the deepest
 * (i = 39, 39..41) too.  Inclusive of level i = 80 - 2i. */
START_TEST(deep_nesting)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    for (uint32_t i = 0; i < 40; i++)
        EN(r, 3, 100 + i, i);
    for (uint32_t i = 40; i-- > 0;)
        LV(r, 3, 100 + i, 80 - i);
    vftr_replay_finish(r);
    for (uint32_t i = 0; i < 40; i++)
        expect(r, 3, 100 + i, 1, 2, 80 - 2 * i);
    size_t n;
    const struct vftr_pathstat *p = vftr_replay_paths(r, &n);
    ck_assert_uint_eq(n, 40);
    ck_assert_uint_eq(p[39].depth, 40);
    vftr_replay_free(r);
}
END_TEST

/* Equal time stamps: a and b entered and left at 5 -> calls, zero times;
 * then a 5..9 -> a calls 2, excl 4. */
START_TEST(equal_time_stamps)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    EN(r, 1, A, 5);
    EN(r, 1, B, 5);
    LV(r, 1, B, 5);
    LV(r, 1, A, 5);
    EN(r, 1, A, 5);
    LV(r, 1, A, 9);
    vftr_replay_finish(r);
    expect(r, 1, A, 2, 4, 4);
    expect(r, 1, B, 1, 0, 0);
    vftr_replay_free(r);
}
END_TEST

/*
 * Window [20, 60) over the whole trace
 *   main 0..80 { a 10..30, b 40..50, c 55..70 }
 * Outside: enter main, enter a (they set the stack at 20), leave c, leave
 * main = 4.  main and a are under way at 20: a 20..30 -> excl 10, calls 0.
 * b: calls 1, 10.  c: entered at 55, closed at the window end 60: excl 5.
 * main spans the window: incl 40, excl 40 - 10 - 10 - 5 = 15, calls 0
 * (both its events are outside the window, yet its time is inside).
 */
START_TEST(window_cuts_calls_in_half)
{
    struct vftr_replay *r = vftr_replay_new(20, 60);

    EN(r, 1, MAIN, 0);
    EN(r, 1, A, 10);
    LV(r, 1, A, 30);
    EN(r, 1, B, 40);
    LV(r, 1, B, 50);
    EN(r, 1, C, 55);
    LV(r, 1, C, 70);
    LV(r, 1, MAIN, 80);
    vftr_replay_finish(r);
    expect(r, 1, A, 0, 10, 10);
    expect(r, 1, B, 1, 10, 10);
    expect(r, 1, C, 1, 5, 5);
    expect(r, 1, MAIN, 0, 15, 40);
    const struct vftr_replay_counts *c = vftr_replay_counts(r);
    ck_assert_uint_eq(c->outside, 4);
    ck_assert_uint_eq(c->implied_enters, 0);
    ck_assert_uint_eq(c->closed_at_end, 2);
    size_t n;
    vftr_replay_funcstats(r, &n);
    ck_assert_uint_eq(n, 4);
    vftr_replay_free(r);
}
END_TEST

/*
 * Calls that enclose the whole window and have no event inside it: window
 * [20, 60); process 1: main 0..100 { wait 5..90 }; process 2: main 0..100
 * { compute 10..15 }, then nothing until 100.  Process 1: wait 40 excl,
 * main 0 excl 40 incl; process 2: main 40 excl (compute is before the
 * window).  The call paths are the real ones: main/wait has main as parent.
 */
START_TEST(window_inside_one_call)
{
    struct vftr_replay *r = vftr_replay_new(20, 60);
    size_t n;

    EN(r, 1, MAIN, 0);
    EN(r, 2, MAIN, 0);
    EN(r, 1, A, 5);
    EN(r, 2, B, 10);
    LV(r, 2, B, 15);
    LV(r, 1, A, 90);
    LV(r, 1, MAIN, 100);
    LV(r, 2, MAIN, 100);
    ck_assert_int_eq(vftr_replay_finish(r), 0);
    expect(r, 1, A, 0, 40, 40);
    expect(r, 1, MAIN, 0, 0, 40);
    expect(r, 2, MAIN, 0, 40, 40);
    vftr_replay_funcstats(r, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(vftr_replay_nprocesses(r), 2);
    const struct vftr_pathstat *p = vftr_replay_paths(r, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(p[0].function, MAIN);
    ck_assert_uint_eq(p[0].parent, 0);
    ck_assert_uint_eq(p[0].incl, 80);
    ck_assert_uint_eq(p[1].function, A);
    ck_assert_uint_eq(p[1].parent, 1);
    ck_assert_uint_eq(p[1].excl, 40);
    vftr_replay_free(r);
}
END_TEST

/*
 * Window [20, 60), events main 0..55 { a 10..30, b 40..50 }: the leave of
 * main at 55 finds an empty stack: implied main from 20 enclosing the two
 * completed root calls (a 20..30 implied, b 40..50): main excl
 * (55-20) - 10 - 10 = 15.  Sum of exclusive = 35 = 55 - 20.
 */
START_TEST(implied_frames_enclose_completed_calls)
{
    struct vftr_replay *r = vftr_replay_new(20, 60);

    LV(r, 1, A, 30);
    EN(r, 1, B, 40);
    LV(r, 1, B, 50);
    LV(r, 1, MAIN, 55);
    vftr_replay_finish(r);
    expect(r, 1, A, 0, 10, 10);
    expect(r, 1, B, 1, 10, 10);
    expect(r, 1, MAIN, 0, 15, 35);
    ck_assert_uint_eq(vftr_replay_counts(r)->implied_enters, 2);
    vftr_replay_free(r);
}
END_TEST

/*
 * The same window with the stack known at its start (an EnterSnapshot of
 * main entered at 0 and a at 10): a 20..30 excl 10; b 10; c 55..60 5;
 * main 20..60 = 40 minus children 25 = 15, calls 0 for main and a.
 */
START_TEST(open_calls_from_a_snapshot)
{
    struct vftr_replay *r = vftr_replay_new(20, 60);

    ck_assert_int_eq(vftr_replay_open_call(r, 1, MAIN, 0), 0);
    ck_assert_int_eq(vftr_replay_open_call(r, 1, A, 10), 0);
    LV(r, 1, A, 30);
    EN(r, 1, B, 40);
    LV(r, 1, B, 50);
    EN(r, 1, C, 55);
    ck_assert_int_eq(vftr_replay_open_call(r, 1, MAIN, 0), -EINVAL);   /* after events */
    vftr_replay_finish(r);
    expect(r, 1, A, 0, 10, 10);
    expect(r, 1, B, 1, 10, 10);
    expect(r, 1, C, 1, 5, 5);
    expect(r, 1, MAIN, 0, 15, 40);
    ck_assert_uint_eq(vftr_replay_counts(r)->implied_enters, 0);
    ck_assert_uint_eq(vftr_replay_counts(r)->closed_at_end, 2);
    vftr_replay_free(r);
}
END_TEST

/*
 * main 0.. { a 10.. { b 15.. } } leave main at 20: a and b are closed at 20
 * (b excl 5; a excl 5, incl 10; main 10); one mismatched leave.  Then leave c (never
 * entered) while x is on the stack: ignored.  Without a window, calls open
 * at the end close at the process's last event (x 30..40: leave 0 at 40 is
 * "the top frame").
 */
START_TEST(mismatched_leaves_and_open_calls)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    EN(r, 1, MAIN, 0);
    EN(r, 1, A, 10);
    EN(r, 1, B, 15);
    LV(r, 1, MAIN, 20);
    EN(r, 1, 9, 30);
    LV(r, 1, C, 35);
    LV(r, 1, 0, 40);
    EN(r, 1, 9, 50);
    EN(r, 1, A, 60);
    EN(r, 1, B, 62);           /* last event: 62 */
    vftr_replay_finish(r);
    expect(r, 1, B, 2, 5 + 0, 5);
    expect(r, 1, A, 2, 5 + 2, 10 + 2);
    expect(r, 1, MAIN, 1, 10, 20);
    expect(r, 1, 9, 2, 10 + 10, 10 + 12);
    const struct vftr_replay_counts *c = vftr_replay_counts(r);
    ck_assert_uint_eq(c->mismatched, 2);
    ck_assert_uint_eq(c->closed_at_end, 3);
    ck_assert_int_eq(vftr_replay_enter(r, 1, A, 70), -EINVAL);   /* after finish */
    vftr_replay_free(r);
}
END_TEST

/* Groups for the test below: main and a in 1, b and c in 2, f in none. */
static uint32_t group_of(void *arg, uint32_t function)
{
    (void)arg;
    return function == MAIN || function == A ? 1 : function == B || function == C ? 2 : 0;
}

static void expect_group(const struct vftr_replay *r, uint32_t process, uint32_t group,
                         uint64_t calls, uint64_t excl, uint64_t incl)
{
    size_t n;
    const struct vftr_funcstat *g = vftr_replay_groupstats(r, &n);

    for (size_t i = 0; i < n; i++)
        if (g[i].process == process && g[i].function == group) {
            ck_assert_msg(g[i].calls == calls && g[i].excl == excl && g[i].incl == incl,
                          "process %u group %u: calls/excl/incl %llu/%llu/%llu, expected "
                          "%llu/%llu/%llu", process, group, (unsigned long long)g[i].calls,
                          (unsigned long long)g[i].excl, (unsigned long long)g[i].incl,
                          (unsigned long long)calls, (unsigned long long)excl,
                          (unsigned long long)incl);
            return;
        }
    ck_abort_msg("no figures for process %u group %u", process, group);
}

/*
 * Group figures booked beside the functions', window [20, 100):
 *   P1: main and b under way at 20 (entered 0 and 10), { b { c 30..40 }
 *       left at 50 }, a 60..85 { a 65..80 { f 70..75 } }, main closed at 100.
 *       main excl 10 + 15, a 10 + 10 (2 calls), b 20, c 10 (1 call), f 5.
 *       group 1 (main, a): calls 2, excl 45, on the stack 20..100: incl 80;
 *       group 2 (b, c): calls 1 (b began before the window), excl 30, incl
 *       20..50 = 30 (c inside b once); no group (f): 1, 5, 5.
 *   P2, in a replay of its own merged in: b 20..30: group 2 1, 10, 10.
 * A replay with an event before its window, or a leave that does not
 * close the top frame, says its group figures are not a group replay's.
 */
START_TEST(groups_beside_functions)
{
    struct vftr_replay *r = vftr_replay_new(20, 100), *r2 = vftr_replay_new(20, 100);
    struct vftr_replay *r3 = vftr_replay_new(20, 100), *r4 = vftr_replay_new(0, 100);

    ck_assert_int_eq(vftr_replay_set_groups(r, group_of, NULL), 0);
    ck_assert_int_eq(vftr_replay_set_groups(r2, group_of, NULL), 0);
    ck_assert_int_eq(vftr_replay_open_call(r, 1, MAIN, 0), 0);
    ck_assert_int_eq(vftr_replay_open_call(r, 1, B, 10), 0);
    ck_assert_int_eq(vftr_replay_set_groups(r, group_of, NULL), -EINVAL);   /* too late */
    EN(r, 1, C, 30);
    LV(r, 1, C, 40);
    LV(r, 1, B, 50);
    EN(r, 1, A, 60);
    EN(r, 1, A, 65);
    EN(r, 1, F, 70);
    LV(r, 1, F, 75);
    LV(r, 1, A, 80);
    LV(r, 1, A, 85);
    EN(r2, 2, B, 20);
    LV(r2, 2, B, 30);
    vftr_replay_finish(r);
    vftr_replay_finish(r2);
    expect(r, 1, MAIN, 0, 25, 80);
    expect(r, 1, A, 2, 20, 25);
    expect(r, 1, B, 0, 20, 30);
    ck_assert_int_eq(vftr_replay_groups_exact(r), 1);
    expect_group(r, 1, 1, 2, 45, 80);
    expect_group(r, 1, 2, 1, 30, 30);
    expect_group(r, 1, 0, 1, 5, 5);
    ck_assert_int_eq(vftr_replay_merge(r, r2), 0);
    expect_group(r, 2, 2, 1, 10, 10);
    expect_group(r, 1, 2, 1, 30, 30);
    ck_assert_int_eq(vftr_replay_groups_exact(r), 1);

    ck_assert_int_eq(vftr_replay_set_groups(r3, group_of, NULL), 0);
    EN(r3, 1, MAIN, 5);                /* before the window */
    LV(r3, 1, MAIN, 30);
    vftr_replay_finish(r3);
    ck_assert_int_eq(vftr_replay_groups_exact(r3), 0);
    ck_assert_int_eq(vftr_replay_set_groups(r4, group_of, NULL), 0);
    EN(r4, 1, MAIN, 0);
    EN(r4, 1, A, 10);
    LV(r4, 1, MAIN, 20);               /* closes a too: mismatched */
    vftr_replay_finish(r4);
    ck_assert_int_eq(vftr_replay_groups_exact(r4), 0);
    ck_assert_int_eq(vftr_replay_groups_exact(r2), 1);
    vftr_replay_free(r);
    vftr_replay_free(r2);
    vftr_replay_free(r3);
    vftr_replay_free(r4);
}
END_TEST

/* A time stamp that goes back is taken as the previous one. */
START_TEST(backwards_time)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    EN(r, 1, A, 100);
    LV(r, 1, A, 90);
    vftr_replay_finish(r);
    expect(r, 1, A, 1, 0, 0);
    ck_assert_uint_eq(vftr_replay_counts(r)->backwards, 1);
    vftr_replay_free(r);
}
END_TEST

/* The stack as the replay holds it (vftr_replay_top, _frame): process 1
 * main 0 { f 10 { g 20 } }, then g left at 30 and process 70000 (a token
 * past the direct table) main 5. */
START_TEST(stack_accessors)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);
    struct vftr_replay_frame f;

    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(vftr_replay_top(r, 1, &f), 0);
    ck_assert_int_eq(vftr_replay_enter(r, 1, 1, 0), 0);
    ck_assert_int_eq(vftr_replay_enter(r, 1, 2, 10), 0);
    ck_assert_int_eq(vftr_replay_enter(r, 1, 3, 20), 0);
    ck_assert_uint_eq(vftr_replay_top(r, 1, &f), 3);
    ck_assert(f.function == 3 && f.enter == 20 && f.path == 3);
    ck_assert_int_eq(vftr_replay_frame(r, 1, 0, &f), 0);
    ck_assert(f.function == 1 && f.enter == 0 && f.path == 1);
    ck_assert_int_eq(vftr_replay_frame(r, 1, 1, &f), 0);
    ck_assert(f.function == 2 && f.enter == 10);
    ck_assert_int_eq(vftr_replay_frame(r, 1, 3, &f), -ENOENT);
    ck_assert_int_eq(vftr_replay_leave(r, 1, 3, 30), 0);
    ck_assert_uint_eq(vftr_replay_top(r, 1, NULL), 2);
    ck_assert_int_eq(vftr_replay_enter(r, 70000, 1, 5), 0);
    ck_assert_uint_eq(vftr_replay_top(r, 70000, &f), 1);
    ck_assert(f.function == 1 && f.enter == 5 && f.path == 1);   /* main's path, shared */
    ck_assert_int_eq(vftr_replay_frame(r, 2, 0, &f), -ENOENT);
    vftr_replay_free(r);
}
END_TEST

START_TEST(imbalance_definition)
{
    ck_assert_double_eq(vftr_imbalance(0, 0), 0);
    ck_assert_double_eq(vftr_imbalance(10, 10), 0);
    ck_assert_double_eq_tol(vftr_imbalance(40, 10), 0.75, 1e-15);
    errno = 0;
    ck_assert_ptr_null(vftr_replay_new(5, 5));
    ck_assert_int_eq(errno, EINVAL);

    struct vftr_profile p = VFTR_PROFILE_INIT;
    ck_assert_int_eq(vftr_profile_build(&p, NULL, 0), 0);
    ck_assert_uint_eq(p.nrows, 0);
    ck_assert_uint_eq(p.total, 0);
    vftr_profile_release(&p);
}
END_TEST

/* Many processes and functions: the hash maps grow; sums stay exact.
 * Process p (0..499) calls function f (0..19) once for f+1 ticks. */
START_TEST(many_processes_and_functions)
{
    struct vftr_replay *r = vftr_replay_new(0, UINT64_MAX);

    for (uint32_t p = 0; p < 500; p++) {
        uint64_t t = 1000;
        for (uint32_t f = 0; f < 20; f++) {
            EN(r, p, f, t);
            t += f + 1;
            LV(r, p, f, t);
        }
    }
    vftr_replay_finish(r);
    size_t n;
    const struct vftr_funcstat *fs = vftr_replay_funcstats(r, &n);
    ck_assert_uint_eq(n, 10000);
    struct vftr_profile prof = VFTR_PROFILE_INIT;
    ck_assert_int_eq(vftr_profile_build(&prof, fs, n), 0);
    ck_assert_uint_eq(prof.nrows, 20);
    ck_assert_uint_eq(prof.nprocs, 500);
    ck_assert_uint_eq(prof.total, 500u * 210u);      /* 1 + ... + 20 = 210 */
    for (size_t i = 0; i < prof.nrows; i++) {
        ck_assert_uint_eq(prof.rows[i].excl, 500u * (prof.rows[i].function + 1));
        ck_assert_double_eq(prof.rows[i].imbalance, 0);
    }
    vftr_profile_release(&prof);
    vftr_replay_free(r);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("replay");

    tcase_add_test(tc, nesting_and_two_processes);
    tcase_add_test(tc, recursion_counts_inclusive_once);
    tcase_add_test(tc, indirect_recursion);
    tcase_add_test(tc, deep_nesting);
    tcase_add_test(tc, equal_time_stamps);
    tcase_add_test(tc, window_cuts_calls_in_half);
    tcase_add_test(tc, window_inside_one_call);
    tcase_add_test(tc, implied_frames_enclose_completed_calls);
    tcase_add_test(tc, open_calls_from_a_snapshot);
    tcase_add_test(tc, mismatched_leaves_and_open_calls);
    tcase_add_test(tc, backwards_time);
    tcase_add_test(tc, groups_beside_functions);
    tcase_add_test(tc, stack_accessors);
    tcase_add_test(tc, imbalance_definition);
    tcase_add_test(tc, many_processes_and_functions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(model_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
