/*
 * test_capture_callpath.c — Check suite for the call-path trees and the
 * profile arithmetic of libvftrcapture (capture/callpath.c), driven through
 * the same inline enter/exit the hooks use, with a test clock: every time
 * stamp is given by the test, and every expected number below is worked
 * out by hand in the comments (1000 ticks per second, so 1 tick = 1 ms).
 *
 * Functions are fake addresses named by a table; each test runs in its own
 * process (CK_FORK), so the process state starts fresh.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

#define TPS 1000.0

static uint64_t now_ticks;

static uint64_t test_clock(void *arg)
{
    (void)arg;
    return now_ticks;
}

/* Fake functions: address = 0x1000 * (index + 1). */
static const char *const names[] = { "main", "a", "b", "c", "x", "y", "f", "hot" };
enum { MAIN, A, B, C, X, Y, F, HOT, NNAMES };
#define ADDR(i) ((uintptr_t)0x1000 * ((uintptr_t)(i) + 1))

/* A test may map other code at a fake address (another name for it). */
static const char *remapped[NNAMES];

static const char *resolve(void *arg, uintptr_t addr)
{
    size_t i = addr / 0x1000 - 1;

    (void)arg;
    if (addr % 0x1000 != 0 || i >= NNAMES)
        return NULL;
    return remapped[i] ? remapped[i] : names[i];
}

/* Excludes "x"; marks "hot" precise. */
static uint32_t classify(void *arg, const char *name)
{
    (void)arg;
    if (strcmp(name, "x") == 0)
        return VFTR_FN_EXCLUDED;
    if (strcmp(name, "hot") == 0)
        return VFTR_FN_PRECISE;
    return 0;
}

static struct vftr_thread *setup(void)
{
    struct vftr_settings s;
    struct vftr_thread *t;

    memset(&s, 0, sizeof s);
    s.prelude = true;
    s.resolve = resolve;
    s.classify = classify;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    now_ticks = 0;
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    t = vftr_thread_new(false);
    ck_assert_ptr_nonnull(t);
    return t;
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

/* The row of the call path "main/a/c" (function names from the root). */
static const struct vftr_profile_row *row(const struct vftr_profile *p, const char *path)
{
    char buf[256], *save = NULL, *tok;
    uint32_t parent = 0;
    const struct vftr_profile_row *r = NULL;

    strcpy(buf, path);
    for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        size_t i;

        r = NULL;
        for (i = 0; i < p->n; i++)
            if (p->rows[i].parent_id == parent && strcmp(p->rows[i].function, tok) == 0)
                r = &p->rows[i];
        ck_assert_msg(r != NULL, "no call path %s (at %s)", path, tok);
        parent = r->callpath_id;
    }
    return r;
}

static void expect(const struct vftr_profile *p, const char *path, uint64_t calls, double incl_ticks,
                   double excl_ticks)
{
    const struct vftr_profile_row *r = row(p, path);

    ck_assert_msg(r->calls == calls, "%s: calls %llu, expected %llu", path,
                  (unsigned long long)r->calls, (unsigned long long)calls);
    ck_assert_double_eq_tol(r->time_incl, incl_ticks / TPS, 1e-12);
    ck_assert_double_eq_tol(r->time_excl, excl_ticks / TPS, 1e-12);
}

/*
 * f recursing three deep: f@0 { f@10 { f@20 } @50 } @70 } @100.
 *   f       incl 100 - 0  = 100, excl 100 - 60 = 40
 *   f/f     incl 70 - 10  = 60,  excl 60 - 30  = 30
 *   f/f/f   incl 50 - 20  = 30,  excl 30
 * A second top-level call f@200 { f@210 } @215 } @300 adds
 *   f: 1 call, incl 100; f/f: 1 call, incl 5; so
 *   f     2 calls, incl 200, excl 200 - 65 = 135
 *   f/f   2 calls, incl 65,  excl 65 - 30  = 35
 */
START_TEST(recursion_makes_one_path_per_depth)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;

    enter(t, F, 0);
    enter(t, F, 10);
    enter(t, F, 20);
    leave(t, F, 50);
    leave(t, F, 70);
    leave(t, F, 100);
    enter(t, F, 200);
    enter(t, F, 210);
    leave(t, F, 215);
    leave(t, F, 300);
    ck_assert_ptr_eq(t->cur, &t->root);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 3);
    expect(&p, "f", 2, 200, 135);
    expect(&p, "f/f", 2, 65, 35);
    expect(&p, "f/f/f", 1, 30, 30);
    ck_assert_str_eq(row(&p, "f/f")->caller, "f");
    ck_assert_ptr_null(row(&p, "f")->caller);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * main@0 { a@10 { c@20 } @30 } a@40 { } @45  b@50 { } @80  a@85 { c@86 } @90 } @99 } @100
 *   main   1 call,  incl 100, excl 100 - (20 + 5 + 14) - 30 = 31
 *   a      3 calls, incl 20 + 5 + 14 = 39, excl 39 - (10 + 4) = 25
 *   a/c    2 calls, incl 10 + 4 = 14, excl 14
 *   b      1 call,  incl 30, excl 30
 */
START_TEST(exclusive_is_inclusive_minus_children)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;

    enter(t, MAIN, 0);
    enter(t, A, 10);
    enter(t, C, 20);
    leave(t, C, 30);
    leave(t, A, 30);
    enter(t, A, 40);
    leave(t, A, 45);
    enter(t, B, 50);
    leave(t, B, 80);
    enter(t, A, 85);
    enter(t, C, 86);
    leave(t, C, 90);
    leave(t, A, 99);
    leave(t, MAIN, 100);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 4);
    expect(&p, "main", 1, 100, 31);
    expect(&p, "main/a", 3, 39, 25);
    expect(&p, "main/a/c", 2, 14, 14);
    expect(&p, "main/b", 1, 30, 30);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * 300 levels alternating a and b, level d (1..300) entered at tick d and
 * left at tick 1000 - d: incl(d) = 1000 - 2d; excl(d) = incl(d) -
 * incl(d+1) = 2 for d < 300, excl(300) = 400.  More levels than a node
 * block holds (256), so the blocks are crossed too.
 */
START_TEST(deep_nesting)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    uint32_t parent = 0;
    int d;

    for (d = 1; d <= 300; d++)
        enter(t, d % 2 ? A : B, (uint64_t)d);
    for (d = 300; d >= 1; d--)
        leave(t, d % 2 ? A : B, (uint64_t)(1000 - d));
    ck_assert_ptr_eq(t->cur, &t->root);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 300);
    for (d = 1; d <= 300; d++) {
        const struct vftr_profile_row *r = NULL;
        size_t i;

        for (i = 0; i < p.n; i++)
            if (p.rows[i].parent_id == parent)
                r = &p.rows[i];
        ck_assert_ptr_nonnull(r);
        ck_assert_str_eq(r->function, d % 2 ? "a" : "b");
        ck_assert_uint_eq(r->calls, 1);
        ck_assert_double_eq_tol(r->time_incl, (1000.0 - 2 * d) / TPS, 1e-12);
        ck_assert_double_eq_tol(r->time_excl, (d < 300 ? 2.0 : 400.0) / TPS, 1e-12);
        parent = r->callpath_id;
    }
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * x is excluded: main@0 { x@10 { y@20 } @30 } x@40 { } @50 } @60.
 * x disappears, y hangs under main:
 *   main  incl 60, excl 60 - 10 = 50;  main/y incl 10, excl 10.
 * Two calls of x, one row neither.
 */
START_TEST(excluded_functions_are_transparent)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    size_t i;

    enter(t, MAIN, 0);
    enter(t, X, 10);
    enter(t, Y, 20);
    leave(t, Y, 30);
    leave(t, X, 30);
    enter(t, X, 40);
    leave(t, X, 50);
    leave(t, MAIN, 60);
    ck_assert_ptr_eq(t->cur, &t->root);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 2);
    for (i = 0; i < p.n; i++)
        ck_assert_str_ne(p.rows[i].function, "x");
    expect(&p, "main", 1, 60, 50);
    expect(&p, "main/y", 1, 10, 10);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * An excluded function goes into the skip cache, where the hooks look
 * first (hooks.c), at the slot of its address; included functions never
 * do.  Only calls of the calling thread fill it: a thread state that is
 * not the caller's (made with current = false, as a borrowed one) leaves
 * it alone.  Unmapped code leaves it (vftr_fn_forget).
 */
START_TEST(excluded_functions_go_to_the_skip_cache)
{
    struct vftr_thread *t = setup(), *own;
    unsigned k;

    memset(vftr_skip, 0, sizeof vftr_skip);
    /* not the calling thread's state: no entry */
    enter(t, MAIN, 0);
    enter(t, X, 10);
    leave(t, X, 20);
    leave(t, MAIN, 30);
    for (k = 0; k < VFTR_SKIP_SLOTS; k++)
        ck_assert_uint_eq(vftr_skip[k].fn, 0);

    own = vftr_thread_new(true);
    ck_assert_ptr_nonnull(own);
    vftr_tls = own;   /* as vftr_thread_attach makes it the caller's */
    enter(own, MAIN, 0);
    ck_assert(!vftr_skipped(ADDR(MAIN)));
    enter(own, X, 10);
    ck_assert(vftr_skipped(ADDR(X)));
    ck_assert_uint_eq(vftr_skip_slot(ADDR(X))->fn, ADDR(X));
    leave(own, X, 20);
    enter(own, Y, 30);
    leave(own, Y, 40);
    leave(own, MAIN, 50);
    ck_assert(!vftr_skipped(ADDR(Y)));
    /* a slot taken by another address is taken back at the next call,
     * through the marker node of its caller */
    vftr_skip_slot(ADDR(X))->fn = 0x77;
    enter(own, MAIN, 60);
    enter(own, X, 70);
    ck_assert(vftr_skipped(ADDR(X)));
    leave(own, X, 80);
    leave(own, MAIN, 90);
    /* code unmapped: its functions leave the cache, others stay (two
     * addresses of different slots, one in the range, one just past it) */
    {
        uintptr_t in = 0x7000010, past = 0x7000020;

        ck_assert_ptr_ne(vftr_skip_slot(in), vftr_skip_slot(past));
        vftr_skip_slot(in)->fn = in;
        vftr_skip_slot(past)->fn = past;
        vftr_fn_forget(in, past);
        ck_assert(!vftr_skipped(in));
        ck_assert(vftr_skipped(past));
    }
    memset(vftr_skip, 0, sizeof vftr_skip);
    vftr_tls = NULL;
}
END_TEST

/*
 * longjmp out of b and c back into a: main@0 { a@10 { b@20 { c@30 ...
 * then a returns at 70 (its exit arrives while c is current): c, b and a
 * all close at 70.  An exit of a function never entered (y@80) is
 * ignored.  main ends at 100.
 *   main incl 100, excl 100 - 60 = 40; a incl 60, excl 10; b incl 50,
 *   excl 10; c incl 40, excl 40.
 */
START_TEST(skipped_exits_close_the_frames_between)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;

    enter(t, MAIN, 0);
    enter(t, A, 10);
    enter(t, B, 20);
    enter(t, C, 30);
    leave(t, A, 70);
    ck_assert_str_eq(t->cur->fn->name, "main");
    leave(t, Y, 80);
    ck_assert_str_eq(t->cur->fn->name, "main");
    leave(t, MAIN, 100);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    expect(&p, "main", 1, 100, 40);
    expect(&p, "main/a", 1, 60, 10);
    expect(&p, "main/a/b", 1, 50, 10);
    expect(&p, "main/a/b/c", 1, 40, 40);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * Frames still open at the end (exit() called deep down) are closed at the
 * end time: main@0 { a@10 { closed at 50: main incl 50, excl 10; a 40.
 */
START_TEST(open_frames_close_at_the_end)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;

    enter(t, MAIN, 0);
    enter(t, A, 10);
    vftr_trace_close_frames(t, 50);
    ck_assert_ptr_eq(t->cur, &t->root);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    expect(&p, "main", 1, 50, 10);
    expect(&p, "main/a", 1, 40, 40);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * Regions are functions named by a string (compared by content) and nest
 * with real functions: main@0 { "solve"@10 { a@20 } @25 } @40 } @50, the
 * region left through another pointer to the same text; then "solve"
 * again @60..@70 after main returned, so at the root:
 *   main        incl 50, excl 50 - 30 = 20
 *   main/solve  incl 30, excl 30 - 5 = 25
 *   main/solve/a  5;  solve (root)  10.
 */
START_TEST(regions_are_functions_by_name)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    char other[] = "solve";
    struct vftr_fn *r1 = vftr_fn_region("solve", 0), *r2 = vftr_fn_region(other, 0);

    ck_assert_ptr_eq(r1, r2);
    ck_assert(r1->flags & VFTR_FN_REGION);
    enter(t, MAIN, 0);
    now_ticks = 10;
    vftr_enter_at(t, r1->addr, r1, 10);
    enter(t, A, 20);
    leave(t, A, 25);
    vftr_exit_at(t, r2->addr, 40);
    leave(t, MAIN, 50);
    vftr_enter_at(t, r1->addr, r1, 60);
    vftr_exit_at(t, r1->addr, 70);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 4);
    expect(&p, "main", 1, 50, 20);
    expect(&p, "main/solve", 1, 30, 25);
    expect(&p, "main/solve/a", 1, 5, 5);
    expect(&p, "solve", 1, 10, 10);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * Call path ids are unique across threads; each thread has its own tree
 * and index; the overhead column is calls x hook cost: a with 3 calls at
 * 2 ticks per call = 6 ticks = 0.006 s.
 */
START_TEST(threads_have_their_own_trees)
{
    struct vftr_thread *t0 = setup(), *t1 = vftr_thread_new(false);
    struct vftr_profile p;
    size_t i, j, a_rows = 0;

    ck_assert_ptr_nonnull(t1);
    ck_assert_uint_ne(t0->index, t1->index);
    for (i = 0; i < 3; i++) {
        enter(t0, A, 10 * i);
        leave(t0, A, 10 * i + 4);
    }
    enter(t1, A, 0);
    leave(t1, A, 7);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 2.0), 0);
    ck_assert_uint_eq(p.n, 2);
    ck_assert_uint_eq(p.nthreads, 2);
    for (i = 0; i < p.n; i++) {
        for (j = i + 1; j < p.n; j++)
            ck_assert_uint_ne(p.rows[i].callpath_id, p.rows[j].callpath_id);
        if (p.rows[i].thread == t0->index) {
            ck_assert_uint_eq(p.rows[i].calls, 3);
            ck_assert_double_eq_tol(p.rows[i].time_incl, 12 / TPS, 1e-12);
            ck_assert_double_eq_tol(p.rows[i].overhead, 6 / TPS, 1e-12);
        } else {
            ck_assert_uint_eq(p.rows[i].thread, t1->index);
            ck_assert_uint_eq(p.rows[i].calls, 1);
            ck_assert_double_eq_tol(p.rows[i].time_incl, 7 / TPS, 1e-12);
        }
        a_rows += strcmp(p.rows[i].function, "a") == 0;
    }
    ck_assert_uint_eq(a_rows, 2);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * Many children of one node (the open-addressing table grows past its
 * initial size) and unnamed addresses (named by their hexadecimal form).
 */
START_TEST(many_children_and_unnamed_addresses)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    uintptr_t k;
    size_t i;
    int found = 0;

    enter(t, MAIN, 0);
    for (k = 0; k < 100; k++) {
        uintptr_t addr = 0x100001 + k * 16;   /* not a multiple of 0x1000: no name */

        vftr_enter_at(t, addr, NULL, 1 + 2 * k);
        vftr_exit_at(t, addr, 2 + 2 * k);
        vftr_enter_at(t, addr, NULL, 1 + 2 * k);   /* again: the same node */
        vftr_exit_at(t, addr, 2 + 2 * k);
    }
    leave(t, MAIN, 1000);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 101);
    for (i = 0; i < p.n; i++) {
        if (strcmp(p.rows[i].function, "0x100011") == 0) {
            found = 1;
            ck_assert_uint_eq(p.rows[i].calls, 2);
        }
    }
    ck_assert(found);
    expect(&p, "main", 1, 1000, 1000 - 200);
    vftr_callpath_profile_release(&p);
}
END_TEST

/* Precise marks travel from the classification to the nodes. */
START_TEST(precise_functions_are_marked)
{
    struct vftr_thread *t = setup();

    enter(t, HOT, 0);
    ck_assert(t->cur->flags & VFTR_FN_PRECISE);
    ck_assert(t->cur->fn->flags & VFTR_FN_PRECISE);
    leave(t, HOT, 1);
    enter(t, A, 2);
    ck_assert(!(t->cur->flags & VFTR_FN_PRECISE));
    leave(t, A, 3);
}
END_TEST

/* Without include_cxx_prelude, calls before main are left out. */
START_TEST(prelude_is_skipped_until_main)
{
    struct vftr_settings s;
    struct vftr_thread *t;
    struct vftr_profile p;

    memset(&s, 0, sizeof s);
    s.resolve = resolve;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    t = vftr_thread_new(false);
    enter(t, A, 0);     /* a static initializer */
    leave(t, A, 5);
    enter(t, MAIN, 10);
    enter(t, A, 11);
    leave(t, A, 15);
    leave(t, MAIN, 20);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 2);
    expect(&p, "main", 1, 10, 6);
    expect(&p, "main/a", 1, 4, 4);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * The prelude holds back compiler hooks only: an MPI call (a region flagged
 * MPI, as the wrappers make them) and a user region are recorded although
 * main never ran a hook (a program built without -finstrument-functions).
 * a@0..2 (a hook) skipped; MPI_Send@3..7, "phase"@8 { MPI_Send@9..10 } @12
 * recorded:
 *   MPI_Send          1 call, incl 4, excl 4
 *   phase             1 call, incl 4, excl 4 - 1 = 3
 *   phase/MPI_Send    1 call, incl 1, excl 1
 */
START_TEST(regions_are_recorded_without_main)
{
    struct vftr_settings s;
    struct vftr_thread *t;
    struct vftr_profile p;
    struct vftr_fn *send, *phase;

    memset(&s, 0, sizeof s);
    s.resolve = resolve;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    t = vftr_thread_new(false);
    send = vftr_fn_region("MPI_Send", VFTR_FN_MPI);
    phase = vftr_fn_region("phase", 0);
    ck_assert_ptr_nonnull(send);
    ck_assert_ptr_nonnull(phase);
    enter(t, A, 0);
    leave(t, A, 2);
    vftr_enter_at(t, send->addr, send, 3);
    vftr_exit_at(t, send->addr, 7);
    vftr_enter_at(t, phase->addr, phase, 8);
    vftr_enter_at(t, send->addr, send, 9);
    vftr_exit_at(t, send->addr, 10);
    vftr_exit_at(t, phase->addr, 12);
    ck_assert_ptr_eq(t->cur, &t->root);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 3);
    expect(&p, "MPI_Send", 1, 4, 4);
    expect(&p, "phase", 1, 4, 3);
    expect(&p, "phase/MPI_Send", 1, 1, 1);
    vftr_callpath_profile_release(&p);
}
END_TEST

/* A stripped program: main cannot be recognized, so the first function
 * without a symbol ends the prelude (resolved ones before it are still
 * skipped): a@0..5 skipped, 0x77777@10 { a@11..15 } @20 recorded. */
START_TEST(unresolved_function_ends_the_prelude)
{
    struct vftr_settings s;
    struct vftr_thread *t;
    struct vftr_profile p;

    memset(&s, 0, sizeof s);
    s.resolve = resolve;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    t = vftr_thread_new(false);
    enter(t, A, 0);
    leave(t, A, 5);
    vftr_enter_at(t, 0x77777, NULL, 10);
    enter(t, A, 11);
    leave(t, A, 15);
    vftr_exit_at(t, 0x77777, 20);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 2);
    expect(&p, "0x77777", 1, 10, 6);
    expect(&p, "0x77777/a", 1, 4, 4);
    vftr_callpath_profile_release(&p);
}
END_TEST

/* A resolver that costs time, as the first lookup does when it reads the
 * symbol tables: naming main takes 100 ticks, naming a 50. */
static const char *slow_resolve(void *arg, uintptr_t addr)
{
    (void)arg;
    if (addr == ADDR(MAIN))
        now_ticks += 100;
    else if (addr == ADDR(A))
        now_ticks += 50;
    return resolve(NULL, addr);
}

/*
 * The time capture spends creating a function record is capture's, not the
 * program's: it is a call of the region vftr:setup under the call path that
 * was current (in the trace too), so no function of the program is charged
 * with it and the parent's own figures stay right.
 *   main@0: naming it takes until 100: vftr:setup [0, 100) at the root,
 *           main starts at 100;
 *   a@110: naming it takes until 160: vftr:setup [110, 160) under main, a
 *          starts at 160 (main's start stays 100); a leaves @170 (incl 10);
 *   a@180 again (known: no cost) leaves @185 (incl 5);
 *   main leaves @200: incl 100, excl 100 - 50 - 15 = 35.
 */
START_TEST(naming_a_function_is_not_the_programs_time)
{
    struct vftr_settings s;
    struct vftr_thread *t;
    struct vftr_profile p;

    memset(&s, 0, sizeof s);
    s.prelude = true;
    s.resolve = slow_resolve;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    t = vftr_thread_new(false);
    enter(t, MAIN, 0);
    ck_assert_uint_eq(t->cur->t_enter, 100);
    enter(t, A, 110);
    ck_assert_uint_eq(t->cur->t_enter, 160);
    ck_assert_uint_eq(t->cur->parent->t_enter, 100);
    leave(t, A, 170);
    enter(t, A, 180);
    leave(t, A, 185);
    leave(t, MAIN, 200);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 4);
    expect(&p, VFTR_SETUP_REGION, 1, 100, 100);
    expect(&p, "main", 1, 100, 35);
    expect(&p, "main/" VFTR_SETUP_REGION, 1, 50, 50);
    expect(&p, "main/a", 2, 15, 15);
    vftr_callpath_profile_release(&p);
}
END_TEST

/* A rank's trace cap: the smaller of the per-rank cap and its share of the
 * job's, either side 0 meaning none (values worked by hand). */
START_TEST(trace_cap_per_rank_and_per_job)
{
    const uint64_t G = 1ull << 30, M = 1ull << 20;

    ck_assert_uint_eq(vftr_trace_cap(G, 64 * G, 1), G);          /* the rank's cap */
    ck_assert_uint_eq(vftr_trace_cap(G, 64 * G, 64), G);         /* 64 GiB / 64 = 1 GiB */
    ck_assert_uint_eq(vftr_trace_cap(G, 64 * G, 256), 256 * M);  /* the job's share */
    ck_assert_uint_eq(vftr_trace_cap(G, 64 * G, 1024), 64 * M);
    ck_assert_uint_eq(vftr_trace_cap(G, 64 * G, -1), G);         /* unknown: one rank */
    ck_assert_uint_eq(vftr_trace_cap(G, 0, 1024), G);            /* no job cap */
    ck_assert_uint_eq(vftr_trace_cap(0, 64 * G, 1024), 64 * M);  /* no rank cap */
    ck_assert_uint_eq(vftr_trace_cap(0, 0, 4), 0);               /* none at all */
    ck_assert_uint_eq(vftr_trace_cap(0, 3, 4), 1);               /* never 0 = no cap */
    ck_assert_uint_eq(vftr_trace_cap(G, 10 * M + 3, 5), 2 * M);  /* rounded down */
}
END_TEST

/*
 * Code unmapped (dlclose) and other code mapped at its addresses: the
 * functions a and b lie in the range unmapped, a2 and b2 replace them.
 *   main@0 { a@1 }@2 b@3 }@4 ... unmap [a, c) ... a2@5 }@6  b2@7 }@8  }main@10
 * The calls before the unmapping stay with a and b; the calls after get
 * call paths and names of their own:
 *   main/a  1 call, incl 1      main/a2  1 call, incl 1
 *   main/b  1 call, incl 1      main/b2  1 call, incl 1
 *   main    1 call, incl 10, excl 10 - 4 = 6
 * c, outside the range, keeps its record.
 */
START_TEST(unmapped_code_gets_new_call_paths)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    struct vftr_fn *c_before;

    enter(t, MAIN, 0);
    enter(t, C, 0);
    leave(t, C, 0);
    c_before = vftr_fn_get(ADDR(C));
    enter(t, A, 1);
    leave(t, A, 2);
    enter(t, B, 3);
    leave(t, B, 4);
    remapped[A] = "a2";
    remapped[B] = "b2";
    vftr_fn_forget(ADDR(A), ADDR(C));
    ck_assert_int_eq(vftr_phase_unmap(ADDR(A), ADDR(C)), 1);
    vftr_phase_catch_up_all(t);   /* what the thread's next hook does */
    enter(t, A, 5);
    leave(t, A, 6);
    enter(t, B, 7);
    leave(t, B, 8);
    leave(t, MAIN, 10);
    ck_assert_str_eq(vftr_fn_get(ADDR(A))->name, "a2");
    ck_assert_ptr_eq(vftr_fn_get(ADDR(C)), c_before);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    expect(&p, "main/a", 1, 1, 1);
    expect(&p, "main/a2", 1, 1, 1);
    expect(&p, "main/b", 1, 1, 1);
    expect(&p, "main/b2", 1, 1, 1);
    expect(&p, "main", 1, 10, 6);
    vftr_callpath_profile_release(&p);
}
END_TEST

static Suite *callpath_suite(void)
{
    Suite *s = suite_create("capture_callpath");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, recursion_makes_one_path_per_depth);
    tcase_add_test(tc, exclusive_is_inclusive_minus_children);
    tcase_add_test(tc, deep_nesting);
    tcase_add_test(tc, excluded_functions_are_transparent);
    tcase_add_test(tc, excluded_functions_go_to_the_skip_cache);
    tcase_add_test(tc, skipped_exits_close_the_frames_between);
    tcase_add_test(tc, open_frames_close_at_the_end);
    tcase_add_test(tc, regions_are_functions_by_name);
    tcase_add_test(tc, threads_have_their_own_trees);
    tcase_add_test(tc, many_children_and_unnamed_addresses);
    tcase_add_test(tc, precise_functions_are_marked);
    tcase_add_test(tc, prelude_is_skipped_until_main);
    tcase_add_test(tc, unresolved_function_ends_the_prelude);
    tcase_add_test(tc, regions_are_recorded_without_main);
    tcase_add_test(tc, naming_a_function_is_not_the_programs_time);
    tcase_add_test(tc, trace_cap_per_rank_and_per_job);
    tcase_add_test(tc, unmapped_code_gets_new_call_paths);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(callpath_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
