/*
 * test_capture_phase.c — Check suite for the switches of the process
 * (capture/phase.c): pause and resume (vftr_pause, vftr_resume), the
 * control events' stop and start, and how each thread applies them at its
 * next hook.  The core is driven with a test clock (1000 ticks per second:
 * 1 tick = 1 ms), several thread states driven by the test in turn (the
 * hooks' guard and catch-up are per thread state, not per OS thread), a
 * real trace file read back through lib/vfd's reader.  Every expected
 * event list and profile figure is worked out by hand in the comments.
 * Each test runs in its own process (CK_FORK).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "vfd/vftr_vfd.h"
#include "vftr.h"

#define TPS 1000.0

static uint64_t now_ticks;

static uint64_t test_clock(void *arg)
{
    (void)arg;
    return now_ticks;
}

static const char *const names[] = { "main", "setup", "compute", "work", "leaf", "f", "g", "h" };
enum { MAIN, SETUP, COMPUTE, WORK, LEAF, F, G, H, NNAMES };
#define ADDR(i) ((uintptr_t)0x1000 * ((uintptr_t)(i) + 1))

static const char *resolve(void *arg, uintptr_t addr)
{
    size_t i = addr / 0x1000 - 1;

    (void)arg;
    return addr % 0x1000 == 0 && i < NNAMES ? names[i] : NULL;
}

static char scratch[64];

/* Capture with a trace file in a scratch directory; returns one thread. */
static struct vftr_thread *setup(void)
{
    struct vftr_settings s;
    struct vftr_thread *t;

    snprintf(scratch, sizeof scratch, "/tmp/test_phase.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
    memset(&s, 0, sizeof s);
    s.prelude = true;
    s.resolve = resolve;
    s.trace = true;
    s.buffer_bytes = 64 << 10;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    now_ticks = 0;
    ck_assert_int_eq(vftr_config_init(&vftr_proc.cfg), 0);
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    vftr_proc.pid = getpid();
    vftr_proc.rank = 0;
    vftr_proc.size = 1;
    vftr_proc.is_rank0 = true;
    snprintf(vftr_proc.dir, sizeof vftr_proc.dir, "%s", scratch);
    snprintf(vftr_proc.base, sizeof vftr_proc.base, "unit");
    ck_assert_int_eq(vftr_trace_open(vftr_proc.dir, vftr_proc.base), 0);
    vftr_proc.recording = true;
    t = vftr_thread_new(false);
    ck_assert_ptr_nonnull(t);
    ck_assert(t->trace);
    return t;
}

/* A hook of thread t at tick `at`, as the compiler hooks do it. */
static void enter(struct vftr_thread *t, int fn, uint64_t at)
{
    now_ticks = at;
    ck_assert(vftr_guard_take(t));
    vftr_enter_at(t, ADDR(fn), NULL, at);
    vftr_guard_drop(t);
}

static void leave(struct vftr_thread *t, int fn, uint64_t at)
{
    now_ticks = at;
    ck_assert(vftr_guard_take(t));
    vftr_exit_at(t, ADDR(fn), at);
    vftr_guard_drop(t);
}

static void make(enum vftr_switch sw, uint64_t at)
{
    now_ticks = at;
    ck_assert_int_eq(vftr_phase_switch(sw), 1);
}

/* What the end of a run does (finalize.c): every thread applies the
 * switches it has not seen, closes its frames at `at` and is flushed; the
 * trace is closed.  Returns the final path in path. */
static void finish(struct vftr_thread **ts, int n, uint64_t at, char *path, size_t len)
{
    now_ticks = at;
    for (int i = 0; i < n; i++) {
        vftr_phase_catch_up_all(ts[i]);
        vftr_trace_close_frames(ts[i], at);
        ck_assert_int_eq(vftr_trace_flush_thread(ts[i], false), 0);
    }
    ck_assert_int_eq(vftr_trace_close(path, len, false, 0), 0);
}

/* The events of trace thread `thread` as text: "E name T" (ENTER), "X name
 * T" (EXIT), "P T" (PAUSE), "R T" (RESUME), separated by ", ". */
static void events_of(const char *path, uint32_t thread, char *out, size_t len)
{
    char err[256];
    struct vftr_vfd_reader *r = vftr_vfd_reader_open_msg(path, err, sizeof err);
    struct vftr_vfd_record rec;
    size_t n = 0;

    ck_assert_msg(r != NULL, "%s", err);
    out[0] = '\0';
    while (vftr_vfd_reader_next(r, &rec) > 0) {
        const __typeof__(rec.u.event) *e = &rec.u.event;

        if (rec.type != VFTR_VFD_REC_EVENT || rec.thread != thread)
            continue;
        if (e->kind == VFTR_VFD_ENTER || e->kind == VFTR_VFD_EXIT)
            n += (size_t)snprintf(out + n, len - n, "%s%c %s %llu", n ? ", " : "",
                                  e->kind == VFTR_VFD_ENTER ? 'E' : 'X',
                                  vftr_vfd_reader_callpath_name(r, e->id),
                                  (unsigned long long)e->time);
        else if (e->kind == VFTR_VFD_PAUSE || e->kind == VFTR_VFD_RESUME)
            n += (size_t)snprintf(out + n, len - n, "%s%c %llu", n ? ", " : "",
                                  e->kind == VFTR_VFD_PAUSE ? 'P' : 'R',
                                  (unsigned long long)e->time);
        ck_assert_uint_lt(n, len);
    }
    vftr_vfd_reader_close(r);
}

/* The profile row of thread `thread` for the call path "main/setup" (names
 * from the root), or NULL when there is none. */
static const struct vftr_profile_row *row(const struct vftr_profile *p, uint32_t thread,
                                          const char *path)
{
    char buf[256], *save = NULL, *tok;
    uint32_t parent = 0;
    const struct vftr_profile_row *r = NULL;

    snprintf(buf, sizeof buf, "%s", path);
    for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        r = NULL;
        for (size_t i = 0; i < p->n; i++)
            if (p->rows[i].thread == thread && p->rows[i].parent_id == parent
                && strcmp(p->rows[i].function, tok) == 0)
                r = &p->rows[i];
        if (r == NULL)
            return NULL;
        parent = r->callpath_id;
    }
    return r;
}

static void expect(const struct vftr_profile *p, uint32_t thread, const char *path,
                   uint64_t calls, double incl, double excl)
{
    const struct vftr_profile_row *r = row(p, thread, path);

    ck_assert_msg(r != NULL, "thread %u: no call path %s", thread, path);
    ck_assert_msg(r->calls == calls, "%s: calls %llu, expected %llu", path,
                  (unsigned long long)r->calls, (unsigned long long)calls);
    ck_assert_msg(r->time_incl * TPS > incl - 1e-9 && r->time_incl * TPS < incl + 1e-9,
                  "%s: inclusive %g ticks, expected %g", path, r->time_incl * TPS, incl);
    ck_assert_msg(r->time_excl * TPS > excl - 1e-9 && r->time_excl * TPS < excl + 1e-9,
                  "%s: exclusive %g ticks, expected %g", path, r->time_excl * TPS, excl);
}

/*
 * vftr_pause() in a callee, vftr_resume() in its caller (issue 14: calls
 * made after the pause were booked under the callee, compute<setup<main):
 *   main@0 { setup@10 { pause@20 } @30  compute@40 {} @45  resume@50
 *            compute@60 {} @70 } @100
 * main: counted 0..20 and 50..100 = 70 ticks, 2 calls (entered again at
 * the resume); setup 10..20 = 10; compute: only the call after the resume,
 * 10 ticks, under main.  main exclusive 70 - 10 - 10 = 50.  The trace:
 * E main 0, E setup 10, X setup 20, X main 20, P 20, R 50, E main 50,
 * E compute 60, X compute 70, X main 100.
 */
START_TEST(pause_in_callee_resume_in_caller)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    char path[1400], ev[2048];

    vftr_tls = t;   /* vftr_pause and vftr_resume act from this thread */
    enter(t, MAIN, 0);
    enter(t, SETUP, 10);
    now_ticks = 20;
    vftr_pause();
    ck_assert(t->paused);
    ck_assert(!t->trace);
    leave(t, SETUP, 30);
    ck_assert_ptr_eq(t->cur, t->root.last_child);   /* back in main: the stack stays exact */
    enter(t, COMPUTE, 40);
    leave(t, COMPUTE, 45);
    now_ticks = 50;
    vftr_resume();
    ck_assert(!t->paused);
    enter(t, COMPUTE, 60);
    leave(t, COMPUTE, 70);
    leave(t, MAIN, 100);
    ck_assert_ptr_eq(t->cur, &t->root);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 3);
    expect(&p, 0, "main", 2, 70, 50);
    expect(&p, 0, "main/setup", 1, 10, 10);
    expect(&p, 0, "main/compute", 1, 10, 10);
    ck_assert_ptr_null(row(&p, 0, "main/setup/compute"));
    vftr_callpath_profile_release(&p);
    finish(&t, 1, 110, path, sizeof path);
    events_of(path, 0, ev, sizeof ev);
    ck_assert_str_eq(ev, "E main 0, E setup 10, X setup 20, X main 20, P 20, R 50, E main 50, "
                         "E compute 60, X compute 70, X main 100");
}
END_TEST

/*
 * The reverse: paused in the caller, resumed in a callee.
 *   main@0  pause@10  work@20 { resume@30  leaf@40 {} @50 } @60
 *   leaf@70 {} @75 } @100
 * main: 0..10 and 30..100 = 80, 2 calls; work entered during the pause,
 * open at the resume: entered then, 30..60 = 30, 1 call; work/leaf 10;
 * main/leaf 5.  Exclusive: main 80 - 30 - 5 = 45, work 30 - 10 = 20.
 */
START_TEST(pause_in_caller_resume_in_callee)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    char path[1400], ev[2048];

    vftr_tls = t;
    enter(t, MAIN, 0);
    now_ticks = 10;
    vftr_pause();
    vftr_pause();   /* twice is once */
    enter(t, WORK, 20);
    now_ticks = 30;
    vftr_resume();
    enter(t, LEAF, 40);
    leave(t, LEAF, 50);
    leave(t, WORK, 60);
    enter(t, LEAF, 70);
    leave(t, LEAF, 75);
    now_ticks = 80;
    vftr_resume();   /* not paused: nothing */
    leave(t, MAIN, 100);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 4);
    expect(&p, 0, "main", 2, 80, 45);
    expect(&p, 0, "main/work", 1, 30, 20);
    expect(&p, 0, "main/work/leaf", 1, 10, 10);
    expect(&p, 0, "main/leaf", 1, 5, 5);
    vftr_callpath_profile_release(&p);
    finish(&t, 1, 110, path, sizeof path);
    events_of(path, 0, ev, sizeof ev);
    ck_assert_str_eq(ev, "E main 0, X main 10, P 10, R 30, E main 30, E work 30, E leaf 40, "
                         "X leaf 50, X work 60, E leaf 70, X leaf 75, X main 100");
}
END_TEST

/*
 * A thread that sleeps (no hook) through two pauses and resumes applies
 * them all at its next hook, at their times; a thread made during a pause
 * starts paused; the process ends paused.
 *   t1 (the switching thread): main@0 ... pause@10 resume@20 pause@30
 *      resume@40 ... pause@95, end@100.
 *   t2: f@5 { g@6 (sleeps) } g@50 } f@60.
 *   t3 made at 70, after pause@65: h@72 (quiet) resume@80 } h@90.
 * Between, t1 runs main only (pause@65 resume@80 also from t1).
 * t2: f counted 5..10, 20..30, 40..60 = 35, 3 calls; g 6..10, 20..30,
 * 40..50 = 24, 3 calls; f exclusive 11.
 * t3: h 80..90 = 10, 1 call (its RESUME at 80, no PAUSE before it).
 * t1: main 0..10, 20..30, 40..65, 80..95 = 60, 4 calls (1 + 3 resumes).
 */
START_TEST(sleepers_apply_every_switch)
{
    struct vftr_thread *t[3];
    struct vftr_profile p;
    char path[1400], ev[2048];

    t[0] = setup();
    t[1] = vftr_thread_new(false);
    enter(t[0], MAIN, 0);
    enter(t[1], F, 5);
    enter(t[1], G, 6);
    make(VFTR_SWITCH_PAUSE, 10);
    make(VFTR_SWITCH_RESUME, 20);
    make(VFTR_SWITCH_PAUSE, 30);
    make(VFTR_SWITCH_RESUME, 40);
    /* a live profile of t2 before it applies anything: g entered at 6 has
     * counted 4 + 10 + 5 at 45, and will count 2 calls more */
    {
        uint32_t back = 0;

        vftr_phase_lock();
        ck_assert_uint_eq(vftr_phase_open_time(t[1], 6, 45, &back), 19);
        ck_assert_uint_eq(back, 2);
        ck_assert_uint_eq(vftr_phase_open_time(t[1], 6, 15, &back), 4);
        ck_assert_uint_eq(back, 0);
        vftr_phase_unlock();
    }
    leave(t[1], G, 50);
    leave(t[1], F, 60);
    make(VFTR_SWITCH_PAUSE, 65);
    now_ticks = 70;
    t[2] = vftr_thread_new(false);
    ck_assert(t[2]->paused);
    enter(t[2], H, 72);
    make(VFTR_SWITCH_RESUME, 80);
    leave(t[2], H, 90);
    make(VFTR_SWITCH_PAUSE, 95);
    finish(t, 3, 100, path, sizeof path);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    expect(&p, 0, "main", 4, 60, 60);
    expect(&p, 1, "f", 3, 35, 11);
    expect(&p, 1, "f/g", 3, 24, 24);
    expect(&p, 2, "h", 1, 10, 10);
    vftr_callpath_profile_release(&p);
    events_of(path, 0, ev, sizeof ev);
    ck_assert_str_eq(ev, "E main 0, X main 10, P 10, R 20, E main 20, X main 30, P 30, R 40, "
                         "E main 40, X main 65, P 65, R 80, E main 80, X main 95, P 95");
    events_of(path, 1, ev, sizeof ev);
    ck_assert_str_eq(ev, "E f 5, E g 6, X g 10, X f 10, P 10, R 20, E f 20, E g 20, X g 30, "
                         "X f 30, P 30, R 40, E f 40, E g 40, X g 50, X f 60, P 65, R 80, P 95");
    events_of(path, 2, ev, sizeof ev);
    ck_assert_str_eq(ev, "R 80, E h 80, X h 90, P 95");
}
END_TEST

/*
 * A hook under way while a switch is made (it read the phase word before
 * the switch): its event may come after the switch's time.  The thread
 * then applies the switch at that event, so its trace stays in time order
 * and the profile uses the same times.
 *   main@0; t's guard taken; pause@50; in that hook: g entered at 55;
 *   next hook: leave g@60 (paused: nothing).
 * Trace: E main 0, E g 55, X g 55, X main 55, P 55; main counted 55, g 0.
 */
START_TEST(a_hook_under_way_at_a_switch)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    char path[1400], ev[1024];

    enter(t, MAIN, 0);
    now_ticks = 55;
    ck_assert(vftr_guard_take(t));
    now_ticks = 50;
    ck_assert_int_eq(vftr_phase_switch(VFTR_SWITCH_PAUSE), 1);
    vftr_enter_at(t, ADDR(G), NULL, 55);
    vftr_guard_drop(t);
    leave(t, G, 60);
    finish(&t, 1, 70, path, sizeof path);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    expect(&p, 0, "main", 1, 55, 55);
    expect(&p, 0, "main/g", 1, 0, 0);
    vftr_callpath_profile_release(&p);
    events_of(path, 0, ev, sizeof ev);
    ck_assert_str_eq(ev, "E main 0, E g 55, X g 55, X main 55, P 55");
}
END_TEST

/*
 * 300 pause/resume pairs (600 switches: the log crosses two chunk
 * boundaries, and chunks only the sleeper still needs are kept) while t2
 * sleeps in f, entered at 1; switch k (k = 1..600) at tick 10 k: pauses at
 * 10, 30, ..., resumes at 20, 40, ...; t1 hooks after each.  t2 leaves f
 * at 7000: counted 1..10 (9), 300 spans of 10 ticks between a resume and
 * the next pause or 6000..7000 (the last resume at 6000: 1000): 9 + 299 *
 * 10 + 1000 = 3999, 301 calls; its trace has 301 ENTER and 301 EXIT of f.
 */
START_TEST(many_switches_slept_through)
{
    struct vftr_thread *t[2];
    struct vftr_profile p;
    char path[1400];
    static char ev[64 << 10];
    int enters = 0, exits = 0;

    t[0] = setup();
    t[1] = vftr_thread_new(false);
    enter(t[1], F, 1);
    enter(t[0], MAIN, 2);
    for (uint64_t k = 1; k <= 600; k++) {
        make(k % 2 ? VFTR_SWITCH_PAUSE : VFTR_SWITCH_RESUME, 10 * k);
        enter(t[0], LEAF, 10 * k + 1);
        leave(t[0], LEAF, 10 * k + 2);
    }
    leave(t[1], F, 7000);
    finish(t, 2, 7100, path, sizeof path);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    expect(&p, 1, "f", 301, 3999, 3999);
    expect(&p, 0, "main/leaf", 300, 300, 300);
    vftr_callpath_profile_release(&p);
    events_of(path, 1, ev, sizeof ev);
    for (const char *s = ev; (s = strstr(s, "E f ")) != NULL; s++)
        enters++;
    for (const char *s = ev; (s = strstr(s, "X f ")) != NULL; s++)
        exits++;
    ck_assert_int_eq(enters, 301);
    ck_assert_int_eq(exits, 301);
}
END_TEST

/*
 * The control events' stop and start: the trace ends and begins again,
 * the profile goes on.  main@0 { a=work@10 stop@20 leaf@22 {} @24
 * start@30 } work@40 } main@50: trace E main 0, E work 10, X work 20,
 * X main 20, E main 30, E work 30, X work 40, X main 50; profile main 50,
 * work 30, leaf 2 (profiled while stopped).  Once the trace is closed a
 * stop is taken, a start refused.
 */
START_TEST(stop_and_start_cut_the_trace_only)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;
    char path[1400], ev[1024];

    enter(t, MAIN, 0);
    enter(t, WORK, 10);
    make(VFTR_SWITCH_STOP, 20);
    ck_assert_int_eq(vftr_phase_switch(VFTR_SWITCH_STOP), 0);
    ck_assert(vftr_phase_stopped());
    enter(t, LEAF, 22);
    leave(t, LEAF, 24);
    make(VFTR_SWITCH_START, 30);
    leave(t, WORK, 40);
    leave(t, MAIN, 50);
    finish(&t, 1, 60, path, sizeof path);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    expect(&p, 0, "main", 1, 50, 20);
    expect(&p, 0, "main/work", 1, 30, 28);
    expect(&p, 0, "main/work/leaf", 1, 2, 2);
    vftr_callpath_profile_release(&p);
    events_of(path, 0, ev, sizeof ev);
    ck_assert_str_eq(ev, "E main 0, E work 10, X work 20, X main 20, E main 30, E work 30, "
                         "X work 40, X main 50");
    ck_assert_int_eq(vftr_phase_switch(VFTR_SWITCH_STOP), 1);
    ck_assert_int_eq(vftr_phase_switch(VFTR_SWITCH_START), -ENODATA);
}
END_TEST

/* Frames of any depth are entered again outermost first without memory
 * of their own: 400 levels (more than the slices of 128 the walk takes). */
START_TEST(deep_stacks_enter_again_in_order)
{
    struct vftr_thread *t = setup();
    char path[1400];
    static char ev[128 << 10];
    char want[64];

    for (int d = 0; d < 400; d++)
        enter(t, d % 2 ? F : G, (uint64_t)d);
    make(VFTR_SWITCH_PAUSE, 1000);
    make(VFTR_SWITCH_RESUME, 2000);
    for (int d = 399; d >= 0; d--)
        leave(t, d % 2 ? F : G, 3000 - (uint64_t)d);
    finish(&t, 1, 4000, path, sizeof path);
    events_of(path, 0, ev, sizeof ev);
    /* after "R 2000": E g 2000, E f 2000, ... 400 enters, alternating */
    const char *s = strstr(ev, "R 2000, ");

    ck_assert_ptr_nonnull(s);
    s += strlen("R 2000, ");
    for (int d = 0; d < 400; d++) {
        int n = snprintf(want, sizeof want, "E %s 2000, ", d % 2 ? "f" : "g");

        ck_assert_msg(strncmp(s, want, (size_t)n) == 0, "level %d: %.40s", d, s);
        s += n;
    }
    ck_assert_msg(strncmp(s, "X f 2601", 8) == 0, "%.40s", s);
}
END_TEST

/* A call path made and left during a pause was never counted: no row. */
START_TEST(paths_of_a_pause_have_no_row)
{
    struct vftr_thread *t = setup();
    struct vftr_profile p;

    enter(t, MAIN, 0);
    make(VFTR_SWITCH_PAUSE, 10);
    enter(t, H, 11);
    leave(t, H, 12);
    make(VFTR_SWITCH_RESUME, 20);
    leave(t, MAIN, 30);
    ck_assert_int_eq(vftr_callpath_profile(&p, TPS, 0), 0);
    ck_assert_uint_eq(p.n, 1);
    expect(&p, 0, "main", 2, 20, 20);
    vftr_callpath_profile_release(&p);
    /* the open-frame profile of a running program: main called again at
     * 31 has counted 4 ticks at 35 */
    enter(t, MAIN, 31);
    ck_assert_int_eq(vftr_callpath_profile_at(&p, TPS, 0, 35), 0);
    expect(&p, 0, "main", 3, 24, 24);
    vftr_callpath_profile_release(&p);
}
END_TEST

Suite *phase_suite(void);
Suite *phase_suite(void)
{
    Suite *s = suite_create("capture_phase");
    TCase *tc = tcase_create("phase");

    tcase_add_test(tc, pause_in_callee_resume_in_caller);
    tcase_add_test(tc, pause_in_caller_resume_in_callee);
    tcase_add_test(tc, sleepers_apply_every_switch);
    tcase_add_test(tc, a_hook_under_way_at_a_switch);
    tcase_add_test(tc, many_switches_slept_through);
    tcase_add_test(tc, stop_and_start_cut_the_trace_only);
    tcase_add_test(tc, deep_stacks_enter_again_in_order);
    tcase_add_test(tc, paths_of_a_pause_have_no_row);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(phase_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
