/*
 * test_capture_ompt.c — Check suite for vftr's OpenMP tool (capture/ompt.c)
 * driven by a fake OpenMP runtime: the suite calls ompt_start_tool and the
 * initializer as libomp would, collects the callbacks the tool registers,
 * invokes them in hand-written orders (also from several threads at once),
 * finalizes capture and reads the .vfd back through lib/vfd.  Expected
 * records are worked out in the comments.  Each test runs in its own
 * process (CK_FORK) with its own output directory.
 */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "ext.h"
#include "ompt.h"
#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"
#include "vftr.h"

#if defined(__has_include)
#if __has_include(<omp-tools.h>)
#define HAVE_OMPT 1
#endif
#endif

#ifdef HAVE_OMPT
#include <omp-tools.h>

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

/* ----------------------------------------------------- fake runtime */

static ompt_callback_t cb[64];

static int fake_set(ompt_callbacks_t event, ompt_callback_t fn)
{
    if ((unsigned)event < 64)
        cb[event] = fn;
    return ompt_set_always;
}

static ompt_interface_fn_t fake_lookup(const char *name)
{
    return strcmp(name, "ompt_set_callback") == 0 ? (ompt_interface_fn_t)fake_set : NULL;
}

#define CB(name) ((name##_t)cb[name])
/* callbacks whose type is shared with another event */
#define MUTEX(name) ((ompt_callback_mutex_t)cb[name])

static char outdir[256];

static void start(void)
{
    ompt_start_tool_result_t *r;

    snprintf(outdir, sizeof outdir, "/tmp/vftr_ompt_test.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(outdir));
    setenv("VFTR_OUTPUT_DIRECTORY", outdir, 1);
    setenv("VFTR_OUTFILE_BASENAME", "t", 1);
    /* the dummy call that keeps the symbol linked does nothing */
    ck_assert_ptr_null(ompt_start_tool(0, NULL));
    r = ompt_start_tool(201611, "fake runtime");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->initialize(fake_lookup, 0, &r->tool_data), 1);
    ck_assert_ptr_nonnull(cb[ompt_callback_parallel_begin]);
    ck_assert_ptr_nonnull(cb[ompt_callback_mutex_released]);
}

/* ------------------------------------------------------ trace reading */

struct ev {
    uint32_t thread, type;      /* VFTR_VFD_OMP_BEGIN / _END */
    uint32_t kind;              /* of its region */
    struct vftr_vfd_omp o;
};

struct def {
    uint32_t id, kind;
    uint64_t code;
    char function[64];
};

static struct ev evs[40000];
static size_t nev;
static struct def defs[8192];
static size_t ndef;

static const struct def *def_of(uint32_t id)
{
    for (size_t i = 0; i < ndef; i++)
        if (defs[i].id == id)
            return &defs[i];
    return NULL;
}

/* Removes the test's output directory and the files capture wrote in it. */
static void remove_outdir(void)
{
    DIR *d = opendir(outdir);
    struct dirent *e;
    char path[600];

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", outdir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(outdir);
}

/* Finalizes capture and reads every OMP record of the trace. */
static void finish_and_read(void)
{
    char path[512], err[VFTR_VFD_ERR_MAX];
    struct vftr_vfd_reader *r;
    struct vftr_vfd_record rec;

    vftr_finalize();
    snprintf(path, sizeof path, "%s/t_0.vfd", outdir);
    r = vftr_vfd_reader_open_msg(path, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    nev = ndef = 0;
    while (vftr_vfd_reader_next(r, &rec) > 0) {
        if (rec.type == VFTR_VFD_REC_UNKNOWN && rec.u.unknown.kind == VFTR_VFD_CHUNK_OMP_REGIONS) {
            struct vftr_vfd_cursor c;
            struct vftr_vfd_omp_region_view v;

            vftr_vfd_cursor_init(&c, rec.u.unknown.payload, rec.u.unknown.length,
                                 rec.u.unknown.count);
            while (vftr_vfd_next_omp_region(&c, &v) == 1) {
                ck_assert_uint_lt(ndef, sizeof defs / sizeof defs[0]);
                ck_assert_ptr_null(def_of(v.r.id));   /* each id defined once */
                defs[ndef].id = v.r.id;
                defs[ndef].kind = v.r.kind;
                defs[ndef].code = v.r.codeptr;
                snprintf(defs[ndef].function, sizeof defs[ndef].function, "%.*s",
                         (int)v.function_len, v.r.function);
                ndef++;
            }
        } else if (rec.type == VFTR_VFD_REC_EVENT && (rec.u.event.kind == VFTR_VFD_OMP_BEGIN
                                                      || rec.u.event.kind == VFTR_VFD_OMP_END)) {
            const struct def *d;

            ck_assert_uint_lt(nev, sizeof evs / sizeof evs[0]);
            evs[nev].thread = rec.thread;
            evs[nev].type = rec.u.event.kind;
            ck_assert_int_eq(vftr_vfd_omp_decode(rec.u.event.data, rec.u.event.id, &evs[nev].o), 0);
            d = def_of(evs[nev].o.region);
            ck_assert_msg(d != NULL, "event of region %u before its definition", evs[nev].o.region);
            evs[nev].kind = d->kind;
            nev++;
        }
    }
    vftr_vfd_reader_close(r);
    remove_outdir();
}

/* Markers whose addresses serve as code pointers (their names must come
 * back as the regions' functions). */
__attribute__((noinline)) void ompt_test_marker_a(void);
__attribute__((noinline)) void ompt_test_marker_b(void);
__attribute__((noinline)) void ompt_test_marker_a(void) { __asm__ volatile("nop; nop; nop; nop"); }
__attribute__((noinline)) void ompt_test_marker_b(void) { __asm__ volatile("nop; nop; nop; nop"); }
#define IN(f) ((const void *)((const char *)(uintptr_t)(f) + 2))

static void expect_ev(size_t i, uint32_t type, uint32_t kind, uint64_t instance)
{
    ck_assert_msg(i < nev, "event %zu missing (%zu events)", i, nev);
    ck_assert_msg(evs[i].type == type && evs[i].kind == kind && evs[i].o.instance == instance,
                  "event %zu: got %s %s %llu, expected %s %s %llu", i,
                  evs[i].type == VFTR_VFD_OMP_BEGIN ? "begin" : "end",
                  vftr_vfd_omp_kind_name(evs[i].kind), (unsigned long long)evs[i].o.instance,
                  type == VFTR_VFD_OMP_BEGIN ? "begin" : "end", vftr_vfd_omp_kind_name(kind),
                  (unsigned long long)instance);
}

/*
 * One thread: a parallel region (requested 4, actual 3) with a loop, a
 * barrier and two locks released out of order:
 *   B par, B itask, B loop, E loop, B barrier, E barrier,
 *   B lockwait7, E lockwait7, B lock7, B lockwait8, E lockwait8, B lock8,
 *   release 7: E lock8, E lock7, B lock8 (reopened), release 8: E lock8,
 *   E itask, E par.
 * Parallel instance = vftr's parallel sequence number 1; the loop and the
 * barrier bind to it; the mutexes carry their wait ids.
 */
START_TEST(sequence)
{
    ompt_data_t thr = { 0 }, par = { 0 }, task = { 0 }, enc = { 0 };
    const uint32_t B = VFTR_VFD_OMP_BEGIN, E = VFTR_VFD_OMP_END;

    start();
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    CB(ompt_callback_parallel_begin)(&enc, NULL, &par, 4, ompt_parallel_team, IN(ompt_test_marker_a));
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par, &task, 3, 0, ompt_task_implicit);
    CB(ompt_callback_work)(ompt_work_loop, ompt_scope_begin, &par, &task, 100, IN(ompt_test_marker_b));
    CB(ompt_callback_work)(ompt_work_loop, ompt_scope_end, &par, &task, 0, IN(ompt_test_marker_b));
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_begin, &par, &task,
                                  IN(ompt_test_marker_b));
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_end, &par, &task,
                                  IN(ompt_test_marker_b));
    CB(ompt_callback_mutex_acquire)(ompt_mutex_lock, 0, 0, 7, IN(ompt_test_marker_b));
    MUTEX(ompt_callback_mutex_acquired)(ompt_mutex_lock, 7, IN(ompt_test_marker_b));
    CB(ompt_callback_mutex_acquire)(ompt_mutex_lock, 0, 0, 8, IN(ompt_test_marker_b));
    MUTEX(ompt_callback_mutex_acquired)(ompt_mutex_lock, 8, IN(ompt_test_marker_b));
    MUTEX(ompt_callback_mutex_released)(ompt_mutex_lock, 7, NULL);
    MUTEX(ompt_callback_mutex_released)(ompt_mutex_lock, 8, NULL);
    CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &task, 0, 0, ompt_task_implicit);
    CB(ompt_callback_parallel_end)(&par, &enc, ompt_parallel_team, IN(ompt_test_marker_a));
    finish_and_read();

    ck_assert_uint_eq(nev, 18);
    expect_ev(0, B, VFTR_VFD_OMP_PARALLEL, 1);
    expect_ev(1, B, VFTR_VFD_OMP_IMPLICIT_TASK, 1);
    expect_ev(2, B, VFTR_VFD_OMP_LOOP, 1);
    expect_ev(3, E, VFTR_VFD_OMP_LOOP, 1);
    expect_ev(4, B, VFTR_VFD_OMP_BARRIER_EXPLICIT, 1);
    expect_ev(5, E, VFTR_VFD_OMP_BARRIER_EXPLICIT, 1);
    expect_ev(6, B, VFTR_VFD_OMP_LOCK_WAIT, 7);
    expect_ev(7, E, VFTR_VFD_OMP_LOCK_WAIT, 7);
    expect_ev(8, B, VFTR_VFD_OMP_LOCK, 7);
    expect_ev(9, B, VFTR_VFD_OMP_LOCK_WAIT, 8);
    expect_ev(10, E, VFTR_VFD_OMP_LOCK_WAIT, 8);
    expect_ev(11, B, VFTR_VFD_OMP_LOCK, 8);
    expect_ev(12, E, VFTR_VFD_OMP_LOCK, 8);
    expect_ev(13, E, VFTR_VFD_OMP_LOCK, 7);
    expect_ev(14, B, VFTR_VFD_OMP_LOCK, 8);
    expect_ev(15, E, VFTR_VFD_OMP_LOCK, 8);
    expect_ev(16, E, VFTR_VFD_OMP_IMPLICIT_TASK, 1);
    expect_ev(17, E, VFTR_VFD_OMP_PARALLEL, 1);
    /* values: requested team at begin, actual at end; thread number 0;
     * the loop's count */
    ck_assert_uint_eq(evs[0].o.value, 4);
    ck_assert_uint_eq(evs[17].o.value, 3);
    ck_assert_uint_eq(evs[1].o.value, 0);
    ck_assert_uint_eq(evs[2].o.value, 100);
    /* begin and end of one region carry the same id; all on one thread */
    ck_assert_uint_eq(evs[0].o.region, evs[17].o.region);
    for (size_t i = 1; i < nev; i++)
        ck_assert_uint_eq(evs[i].thread, evs[0].thread);
    /* definitions: (kind, code) once each; functions from the symbols */
    const struct def *p = def_of(evs[0].o.region), *l = def_of(evs[2].o.region);
    ck_assert_str_eq(p->function, "ompt_test_marker_a");
    ck_assert_str_eq(l->function, "ompt_test_marker_b");
    ck_assert_uint_eq(p->code, (uintptr_t)IN(ompt_test_marker_a));
    /* parallel, implicit task (at a's code), loop, barrier, lock wait, lock */
    ck_assert_uint_eq(ndef, 6);
}
END_TEST

/*
 * A pause cuts the OpenMP regions as it cuts the functions (issue 14):
 *   B par, B itask, B loop, pause, E loop, B barrier (both paused),
 *   resume, E barrier, E itask, E par
 * must read B par, B itask, B loop, then at the pause E loop, E itask,
 * E par (innermost first), nothing while paused, at the resume B par,
 * B itask, B barrier (the regions open then, also the one begun while
 * paused), then E barrier, E itask, E par: every region in the trace lies
 * outside the paused stretch and nests.
 */
START_TEST(regions_across_a_pause)
{
    ompt_data_t thr = { 0 }, par = { 0 }, task = { 0 }, enc = { 0 };
    const uint32_t B = VFTR_VFD_OMP_BEGIN, E = VFTR_VFD_OMP_END;

    start();
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    CB(ompt_callback_parallel_begin)(&enc, NULL, &par, 2, ompt_parallel_team, IN(ompt_test_marker_a));
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par, &task, 2, 0, ompt_task_implicit);
    CB(ompt_callback_work)(ompt_work_loop, ompt_scope_begin, &par, &task, 10, IN(ompt_test_marker_b));
    vftr_pause();
    CB(ompt_callback_work)(ompt_work_loop, ompt_scope_end, &par, &task, 0, IN(ompt_test_marker_b));
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_begin, &par, &task,
                                  IN(ompt_test_marker_b));
    vftr_resume();
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_end, &par, &task,
                                  IN(ompt_test_marker_b));
    CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &task, 0, 0, ompt_task_implicit);
    CB(ompt_callback_parallel_end)(&par, &enc, ompt_parallel_team, IN(ompt_test_marker_a));
    finish_and_read();

    ck_assert_uint_eq(nev, 12);
    expect_ev(0, B, VFTR_VFD_OMP_PARALLEL, 1);
    expect_ev(1, B, VFTR_VFD_OMP_IMPLICIT_TASK, 1);
    expect_ev(2, B, VFTR_VFD_OMP_LOOP, 1);
    expect_ev(3, E, VFTR_VFD_OMP_LOOP, 1);
    expect_ev(4, E, VFTR_VFD_OMP_IMPLICIT_TASK, 1);
    expect_ev(5, E, VFTR_VFD_OMP_PARALLEL, 1);
    expect_ev(6, B, VFTR_VFD_OMP_PARALLEL, 1);
    expect_ev(7, B, VFTR_VFD_OMP_IMPLICIT_TASK, 1);
    expect_ev(8, B, VFTR_VFD_OMP_BARRIER_EXPLICIT, 1);
    expect_ev(9, E, VFTR_VFD_OMP_BARRIER_EXPLICIT, 1);
    expect_ev(10, E, VFTR_VFD_OMP_IMPLICIT_TASK, 1);
    expect_ev(11, E, VFTR_VFD_OMP_PARALLEL, 1);
}
END_TEST

/*
 * Four threads define the same 2000 (TASKWAIT, code) regions at once, each
 * entering every one twice: exactly 2000 definitions, 4 x 4000 begins and
 * as many ends, every event after its definition (checked while reading).
 * Then one thread enters 4000 distinct MASKED regions: the map takes
 * definitions up to three quarters of its 4096 slots (3072), so 1072 of
 * them are defined and the rest share one overflow entry (code 0): 1073
 * definitions of that kind, 4000 begins.
 */
#define NT 4
#define DISTINCT 2000

static void *definer(void *arg)
{
    ompt_data_t thr = { 0 };
    const char *base = arg;

    CB(ompt_callback_thread_begin)(ompt_thread_worker, &thr);
    for (int i = 0; i < 2 * DISTINCT; i++) {
        const void *code = base + (size_t)(i % DISTINCT) * 16;

        CB(ompt_callback_sync_region)(ompt_sync_region_taskwait, ompt_scope_begin, NULL, NULL, code);
        CB(ompt_callback_sync_region)(ompt_sync_region_taskwait, ompt_scope_end, NULL, NULL, code);
    }
    CB(ompt_callback_thread_end)(&thr);
    return NULL;
}

START_TEST(concurrent_definitions)
{
    static char area[64 * 8192];
    pthread_t th[NT];
    size_t begins = 0, ends = 0, tw_defs = 0, masked_defs = 0, masked_begins = 0, zero = 0;

    start();
    for (int i = 0; i < NT; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, definer, area), 0);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 4000; i++) {
        const void *code = area + (size_t)(DISTINCT + i) * 16;

        CB(ompt_callback_masked)(ompt_scope_begin, NULL, NULL, code);
        CB(ompt_callback_masked)(ompt_scope_end, NULL, NULL, code);
    }
    finish_and_read();
    for (size_t i = 0; i < ndef; i++) {
        tw_defs += defs[i].kind == VFTR_VFD_OMP_TASKWAIT;
        masked_defs += defs[i].kind == VFTR_VFD_OMP_MASKED;
        zero += defs[i].kind == VFTR_VFD_OMP_MASKED && defs[i].code == 0;
    }
    for (size_t i = 0; i < nev; i++) {
        if (evs[i].kind == VFTR_VFD_OMP_TASKWAIT)
            evs[i].type == VFTR_VFD_OMP_BEGIN ? begins++ : ends++;
        else if (evs[i].kind == VFTR_VFD_OMP_MASKED && evs[i].type == VFTR_VFD_OMP_BEGIN)
            masked_begins++;
    }
    ck_assert_uint_eq(tw_defs, DISTINCT);
    ck_assert_uint_eq(begins, NT * 2 * DISTINCT);
    ck_assert_uint_eq(ends, NT * 2 * DISTINCT);
    ck_assert_uint_eq(masked_defs, 3072 - DISTINCT + 1);
    ck_assert_uint_eq(zero, 1);
    ck_assert_uint_eq(masked_begins, 4000);
}
END_TEST

/*
 * Explicit tasks: created with their code address, begun when scheduled,
 * kept open while suspended (a child runs nested inside), ended when
 * complete.  Task a suspends for child b:
 *   B a, B b, E b, E a (sequence numbers 1 and 2).
 * A nest lock taken twice: one wait per acquisition, one held region:
 *   B wait, E wait, B lock, B wait, E wait, E lock.
 */
START_TEST(tasks_and_nest_locks)
{
    ompt_data_t thr = { 0 }, impl = { 0 }, a = { 0 }, b = { 0 };
    const uint32_t B = VFTR_VFD_OMP_BEGIN, E = VFTR_VFD_OMP_END;

    start();
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    CB(ompt_callback_task_create)(&impl, NULL, &a, ompt_task_explicit, 0, IN(ompt_test_marker_a));
    CB(ompt_callback_task_create)(&impl, NULL, &b, ompt_task_explicit, 0, IN(ompt_test_marker_b));
    CB(ompt_callback_task_schedule)(&impl, ompt_task_switch, &a);
    CB(ompt_callback_task_schedule)(&a, ompt_task_switch, &b);
    CB(ompt_callback_task_schedule)(&b, ompt_task_complete, &a);
    CB(ompt_callback_task_schedule)(&a, ompt_task_complete, &impl);
    CB(ompt_callback_mutex_acquire)(ompt_mutex_nest_lock, 0, 0, 9, IN(ompt_test_marker_a));
    MUTEX(ompt_callback_mutex_acquired)(ompt_mutex_nest_lock, 9, IN(ompt_test_marker_a));
    CB(ompt_callback_mutex_acquire)(ompt_mutex_nest_lock, 0, 0, 9, IN(ompt_test_marker_a));
    CB(ompt_callback_nest_lock)(ompt_scope_begin, 9, IN(ompt_test_marker_a));
    CB(ompt_callback_nest_lock)(ompt_scope_end, 9, IN(ompt_test_marker_a));
    MUTEX(ompt_callback_mutex_released)(ompt_mutex_nest_lock, 9, IN(ompt_test_marker_a));
    finish_and_read();

    ck_assert_uint_eq(nev, 10);
    expect_ev(0, B, VFTR_VFD_OMP_TASK, 1);
    expect_ev(1, B, VFTR_VFD_OMP_TASK, 2);
    expect_ev(2, E, VFTR_VFD_OMP_TASK, 2);
    expect_ev(3, E, VFTR_VFD_OMP_TASK, 1);
    expect_ev(4, B, VFTR_VFD_OMP_LOCK_WAIT, 9);
    expect_ev(5, E, VFTR_VFD_OMP_LOCK_WAIT, 9);
    expect_ev(6, B, VFTR_VFD_OMP_LOCK, 9);
    expect_ev(7, B, VFTR_VFD_OMP_LOCK_WAIT, 9);
    expect_ev(8, E, VFTR_VFD_OMP_LOCK_WAIT, 9);
    expect_ev(9, E, VFTR_VFD_OMP_LOCK, 9);
    ck_assert_str_eq(def_of(evs[0].o.region)->function, "ompt_test_marker_a");
    ck_assert_str_eq(def_of(evs[1].o.region)->function, "ompt_test_marker_b");
}
END_TEST

/*
 * The finalizer's close: two threads each leave an implicit task (thread
 * number = their index) with a barrier inside it open and wait; closing
 * writes, per thread, END barrier then END implicit task, into that
 * thread's buffer (put gets the thread's capture state) at the given time;
 * a second close writes nothing.
 */
static struct put_rec {
    struct vftr_thread *vt;
    uint64_t time;
    uint32_t kind;
    struct vftr_vfd_omp o;
} puts_seen[16];
static int nputs;

static int test_put(struct vftr_thread *t, uint64_t time, uint32_t kind, const void *payload,
                    uint32_t len)
{
    ck_assert_int_lt(nputs, 16);
    puts_seen[nputs].vt = t;
    puts_seen[nputs].time = time;
    puts_seen[nputs].kind = kind;
    ck_assert_int_eq(vftr_vfd_omp_decode(payload, len, &puts_seen[nputs].o), 0);
    nputs++;
    return 0;
}

static pthread_barrier_t opened, go_on;
static struct vftr_thread *worker_vt[2];

static void *leaves_open(void *arg)
{
    ompt_data_t thr = { 0 }, task = { 0 };
    static ompt_data_t par;   /* shared, as a team's parallel data is */
    int i = (int)(intptr_t)arg;

    CB(ompt_callback_thread_begin)(ompt_thread_worker, &thr);
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par, &task, 2, (unsigned)i,
                                    ompt_task_implicit);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin,
                                  &par, &task, NULL);
    worker_vt[i] = vftr_tls;
    pthread_barrier_wait(&opened);
    pthread_barrier_wait(&go_on);
    return NULL;
}

START_TEST(close_all_at_finalize)
{
    pthread_t th[2];

    start();
    pthread_barrier_init(&opened, NULL, 3);
    pthread_barrier_init(&go_on, NULL, 3);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, leaves_open, (void *)(intptr_t)i), 0);
    pthread_barrier_wait(&opened);
    ck_assert_int_eq(vftr_ompt_close_all(test_put, 12345), 4);
    ck_assert_int_eq(nputs, 4);
    for (int i = 0; i < 2; i++) {
        int b = -1, it = -1;

        for (int k = 0; k < 4; k++) {
            if (puts_seen[k].vt != worker_vt[i])
                continue;
            ck_assert_uint_eq(puts_seen[k].time, 12345);
            ck_assert_uint_eq(puts_seen[k].kind, VFTR_VFD_OMP_END);
            if (b < 0)
                b = k;
            else
                it = k;
        }
        ck_assert_int_ge(b, 0);
        ck_assert_int_gt(it, b);   /* the barrier (inner) first */
        ck_assert_uint_eq(puts_seen[it].o.value, (uint64_t)i);   /* thread number */
        ck_assert_uint_ne(puts_seen[b].o.region, puts_seen[it].o.region);
    }
    ck_assert_ptr_ne(worker_vt[0], worker_vt[1]);
    ck_assert_int_eq(vftr_ompt_close_all(test_put, 12346), 0);
    pthread_barrier_wait(&go_on);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(vftr_ompt_close_all(NULL, 1), 0);
    vftr_finalize();
    remove_outdir();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("capture_ompt");
    TCase *tc = tcase_create("ompt");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, sequence);
    tcase_add_test(tc, regions_across_a_pause);
    tcase_add_test(tc, concurrent_definitions);
    tcase_add_test(tc, tasks_and_nest_locks);
    tcase_add_test(tc, close_all_at_finalize);
    suite_add_tcase(s, tc);
    return s;
}

#else /* no omp-tools.h: the tool is a stub */

struct ompt_start_tool_result_t;
struct ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version);

START_TEST(stub)
{
    ck_assert_ptr_null(ompt_start_tool(201611, "fake runtime"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("capture_ompt");
    TCase *tc = tcase_create("stub");

    tcase_add_test(tc, stub);
    suite_add_tcase(s, tc);
    return s;
}

#endif

int main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
