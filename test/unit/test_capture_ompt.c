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
#include "model/vfdconv.h"
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
    char file[256];
    uint32_t line;
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

/* Finalizes capture and reads every OMP record of the trace; the files
 * stay (remove_outdir) when keep_files is set. */
static bool keep_files;

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
                snprintf(defs[ndef].file, sizeof defs[ndef].file, "%.*s", (int)v.file_len,
                         v.r.file);
                defs[ndef].line = v.r.line;
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
    if (!keep_files)
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
    /* thread 0: barrier, implicit task; thread 1 (a worker of the team)
     * also its share of the parallel region, outermost */
    ck_assert_int_eq(vftr_ompt_close_all(test_put, 12345), 5);
    ck_assert_int_eq(nputs, 5);
    for (int i = 0; i < 2; i++) {
        int b = -1, it = -1, pw = -1;

        for (int k = 0; k < 5; k++) {
            if (puts_seen[k].vt != worker_vt[i])
                continue;
            ck_assert_uint_eq(puts_seen[k].time, 12345);
            ck_assert_uint_eq(puts_seen[k].kind, VFTR_VFD_OMP_END);
            if (b < 0)
                b = k;
            else if (it < 0)
                it = k;
            else
                pw = k;
        }
        ck_assert_int_ge(b, 0);
        ck_assert_int_gt(it, b);   /* the barrier (inner) first */
        ck_assert_uint_eq(puts_seen[it].o.value, (uint64_t)i);   /* thread number */
        ck_assert_uint_ne(puts_seen[b].o.region, puts_seen[it].o.region);
        if (i == 0) {
            ck_assert_int_lt(pw, 0);
        } else {
            ck_assert_int_gt(pw, it);
            ck_assert_uint_eq(puts_seen[pw].o.value, 2);   /* the team's size */
        }
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

/* ------------------------------------------- OpenMP regions in the profile
 *
 * The profile (the log's rows) has the OpenMP regions as nodes of the call
 * tree, where the readers of the trace put them (lib/model/vfdconv.c).  The
 * tests below drive functions through the compiler hooks and regions through
 * the callbacks with a test clock (1 tick = 1 ns, from a base after capture
 * started), work each row out by hand, and then replay the trace with the
 * conversion engine (vfd2otf's and vftr-stats's) and require the same call
 * paths with the same calls and times, and no record that does not fit the
 * stack.
 */
#define TPS 1e9

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);
int main(void);

__attribute__((noinline)) void ompt_test_outlined(void);
__attribute__((noinline)) void ompt_test_callee(void);
__attribute__((noinline)) void ompt_test_outlined(void) { __asm__ volatile("nop; nop; nop; nop"); }
__attribute__((noinline)) void ompt_test_callee(void) { __asm__ volatile("nop; nop; nop; nop"); }

static uint64_t clock_base, clock_now;

static uint64_t test_clock(void *arg)
{
    (void)arg;
    return clock_base + clock_now;
}

/* Capture's clock becomes the test clock at tick 0 (the calling thread
 * leaves the hooks' TSC fast path). */
static void use_test_clock(void)
{
    clock_base = vftr_clock_now() + 1000000;
    clock_now = 0;
    vftr_clock_set_test_source(test_clock, NULL, TPS);
    vftr_tls->fast_key = VFTR_KEY_NONE;
}

static void at(uint64_t t)
{
    clock_now = t;
}

static void fenter(void (*fn)(void), uint64_t t)
{
    at(t);
    __cyg_profile_func_enter((void *)(uintptr_t)fn, NULL);
}

static void fexit(void (*fn)(void), uint64_t t)
{
    at(t);
    __cyg_profile_func_exit((void *)(uintptr_t)fn, NULL);
}

#define MAIN ((void (*)(void))(uintptr_t)main)

/* The name of region (kind, code) as the readers of the trace name it,
 * worked out here from its definition in the trace: "omp KIND @FILE:LINE"
 * (base name), else "omp KIND @FUNCTION", else "omp KIND". */
static const char *name_of(uint32_t kind, const void *code)
{
    static char names[16][320];
    static int next;
    char *out = names[next++ % 16];

    for (size_t i = 0; i < ndef; i++) {
        const struct def *d = &defs[i];
        const char *base = strrchr(d->file, '/');

        if (d->kind != kind || d->code != (uintptr_t)code)
            continue;
        if (d->file[0] && d->line)
            snprintf(out, 320, "omp %s @%s:%u", vftr_vfd_omp_kind_name(kind),
                     base ? base + 1 : d->file, d->line);
        else if (d->function[0])
            snprintf(out, 320, "omp %s @%s", vftr_vfd_omp_kind_name(kind), d->function);
        else
            snprintf(out, 320, "omp %s", vftr_vfd_omp_kind_name(kind));
        return out;
    }
    ck_abort_msg("no region of kind %s at %p", vftr_vfd_omp_kind_name(kind), code);
    return NULL;
}

/* The row of thread `thread` for the call path of names path[] (from the
 * root, NULL-terminated), NULL when there is none. */
static const struct vftr_profile_row *row_of(const struct vftr_profile *p, uint32_t thread,
                                             const char *const *path)
{
    const struct vftr_profile_row *r = NULL;
    uint32_t parent = 0;

    for (; *path; path++) {
        r = NULL;
        for (size_t i = 0; i < p->n && r == NULL; i++)
            if (p->rows[i].thread == thread && p->rows[i].parent_id == parent
                && strcmp(p->rows[i].function, *path) == 0)
                r = &p->rows[i];
        if (r == NULL)
            return NULL;
        parent = r->callpath_id;
    }
    return r;
}

#define PATH(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void expect_row(const struct vftr_profile *p, uint32_t thread, const char *const *path,
                       uint64_t calls, double incl, double excl)
{
    const struct vftr_profile_row *r = row_of(p, thread, path);
    const char *leaf = path[0];

    for (const char *const *q = path; *q; q++)
        leaf = *q;
    ck_assert_msg(r != NULL, "thread %u: no call path ending in %s", thread, leaf);
    ck_assert_msg(r->calls == calls, "%s: calls %llu, expected %llu", leaf,
                  (unsigned long long)r->calls, (unsigned long long)calls);
    ck_assert_msg(r->time_incl * TPS > incl - 0.5 && r->time_incl * TPS < incl + 0.5,
                  "%s: inclusive %g ticks, expected %g", leaf, r->time_incl * TPS, incl);
    ck_assert_msg(r->time_excl * TPS > excl - 0.5 && r->time_excl * TPS < excl + 0.5,
                  "%s: exclusive %g ticks, expected %g", leaf, r->time_excl * TPS, excl);
}

/* Rows with calls of thread `thread`. */
static size_t rows_of(const struct vftr_profile *p, uint32_t thread)
{
    size_t n = 0;

    for (size_t i = 0; i < p->n; i++)
        n += p->rows[i].thread == thread && p->rows[i].calls > 0;
    return n;
}

/* The conversion engine's profile: per thread and path of functions, the
 * calls (Enters) and the inclusive and exclusive ns. */
#define CDEPTH 16
struct cpath {
    uint32_t process, depth, f[CDEPTH];
    uint64_t calls, incl, excl;
};

static struct conv {
    struct cpath paths[256];
    size_t npaths;
    struct { uint32_t process, depth, f[CDEPTH]; uint64_t t[CDEPTH], inner[CDEPTH]; } st[8];
    size_t nst;
    int anomalies;
} cv;

static struct cpath *conv_path(uint32_t process, const uint32_t *f, uint32_t depth)
{
    for (size_t i = 0; i < cv.npaths; i++)
        if (cv.paths[i].process == process && cv.paths[i].depth == depth
            && memcmp(cv.paths[i].f, f, depth * sizeof *f) == 0)
            return &cv.paths[i];
    ck_assert_uint_lt(cv.npaths, 256);
    cv.paths[cv.npaths] = (struct cpath){ .process = process, .depth = depth };
    memcpy(cv.paths[cv.npaths].f, f, depth * sizeof *f);
    return &cv.paths[cv.npaths++];
}

static int conv_event(void *ctx, const struct vftr_vfdconv_event *e)
{
    size_t k;

    (void)ctx;
    if (e->type != VFTR_VFDCONV_ENTER && e->type != VFTR_VFDCONV_LEAVE)
        return 0;
    for (k = 0; k < cv.nst && cv.st[k].process != e->process; k++)
        ;
    if (k == cv.nst) {
        ck_assert_uint_lt(cv.nst, 8);
        cv.st[cv.nst++].process = e->process;
    }
    __typeof__(cv.st[0]) *s = &cv.st[k];

    if (e->type == VFTR_VFDCONV_ENTER) {
        ck_assert_uint_lt(s->depth, CDEPTH);
        s->f[s->depth] = e->function;
        s->t[s->depth] = e->time;
        s->inner[s->depth] = 0;
        s->depth++;
        conv_path(e->process, s->f, s->depth)->calls++;
    } else {
        struct cpath *c;
        uint64_t d;

        ck_assert_uint_gt(s->depth, 0);
        ck_assert_uint_eq(s->f[s->depth - 1], e->function);
        d = e->time - s->t[s->depth - 1];
        c = conv_path(e->process, s->f, s->depth);
        c->incl += d;
        c->excl += d - s->inner[s->depth - 1];
        s->depth--;
        if (s->depth)
            s->inner[s->depth - 1] += d;
    }
    return 0;
}

static int conv_anomaly(void *ctx, uint64_t time, uint32_t process, const char *what)
{
    (void)ctx;
    fprintf(stderr, "anomaly at %llu on %u: %s\n", (unsigned long long)time, process, what);
    cv.anomalies++;
    return 0;
}

/* The trace in outdir, replayed by the conversion engine, gives the call
 * paths of profile p (its rows with calls) with the same calls, inclusive
 * and exclusive times, and nothing that does not fit the stack.  Removes
 * the output directory. */
static void same_as_converted(const struct vftr_profile *p)
{
    char path[512], err[256] = "";
    const char *paths[1] = { path };
    struct vftr_vfdconv *c;
    struct vftr_vfdconv_consumer cons = { .event = conv_event, .anomaly = conv_anomaly };
    const struct vftr_vfdconv_func *fns;
    const uint32_t rank0 = 0;
    size_t nfns, rows = 0;

    memset(&cv, 0, sizeof cv);
    snprintf(path, sizeof path, "%s/t_0.vfd", outdir);
    ck_assert_msg(vftr_vfdconv_open(&c, paths, 1, NULL, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(vftr_vfdconv_replay(c, &rank0, 1, &cons, NULL, err, sizeof err) == 0, "%s", err);
    fns = vftr_vfdconv_funcs(c, &nfns);
    ck_assert_int_eq(cv.anomalies, 0);
    for (size_t i = 0; i < p->n; i++) {
        const struct vftr_profile_row *r = &p->rows[i], *q;
        const char *names[CDEPTH];
        uint32_t depth = 0, f[CDEPTH];
        struct cpath *cp;

        if (r->calls == 0)
            continue;
        rows++;
        for (q = r; q; ) {   /* the names from the leaf up */
            uint32_t parent = q->parent_id;

            ck_assert_uint_lt(depth, CDEPTH);
            names[depth++] = q->function;
            q = NULL;
            for (size_t j = 0; parent && j < p->n && q == NULL; j++)
                if (p->rows[j].callpath_id == parent)
                    q = &p->rows[j];
        }
        for (uint32_t d = 0; d < depth; d++) {   /* as function tokens, from the root */
            const char *name = names[depth - 1 - d];

            f[d] = 0;
            for (size_t j = 0; j < nfns && f[d] == 0; j++)
                if (strcmp(fns[j].name, name) == 0)
                    f[d] = fns[j].token;
            ck_assert_msg(f[d] != 0, "the converted trace has no function %s", name);
        }
        cp = conv_path(vftr_vfdconv_process(0, r->thread), f, depth);
        ck_assert_msg(cp->calls == r->calls && (double)cp->incl > r->time_incl * TPS - 0.5
                          && (double)cp->incl < r->time_incl * TPS + 0.5
                          && (double)cp->excl > r->time_excl * TPS - 0.5
                          && (double)cp->excl < r->time_excl * TPS + 0.5,
                      "%s (thread %u): the log has %llu calls, %g / %g ns, the converted trace "
                      "%llu, %llu / %llu", names[0], r->thread, (unsigned long long)r->calls,
                      r->time_incl * TPS, r->time_excl * TPS, (unsigned long long)cp->calls,
                      (unsigned long long)cp->incl, (unsigned long long)cp->excl);
    }
    /* and no call path the log does not have */
    ck_assert_uint_eq(cv.npaths, rows);
    vftr_vfdconv_free(c);
    remove_outdir();
}

/* Finalizes (finish_and_read) and takes the profile the log was made of. */
static void finish_profile(struct vftr_profile *p)
{
    char log[600];

    keep_files = true;
    finish_and_read();
    ck_assert_int_eq(vftr_callpath_profile(p, TPS, 0), 0);
    snprintf(log, sizeof log, "%s/t_0.log", outdir);
    ck_assert_int_eq(access(log, R_OK), 0);
}

/*
 * A parallel region of two threads, the outlined function instrumented,
 * an explicit barrier inside it.  Primary thread (0):
 *   main@0 { parallel@10 { itask@20 { outlined@30 { barrier@40 .. @70 } @80
 *            barrier(implicit, no code)@85 .. @90 } @95 } @100 } @120
 * main: incl 120, excl 120 - 90 = 30; parallel: 90, excl 90 - 75 = 15;
 * implicit task: 75, excl 75 - 50 - 5 = 20; outlined: 50, excl 50 - 30 =
 * 20; explicit barrier 30; implicit barrier 5 (reported without a code
 * address, it takes the parallel region's).  Worker (1):
 *   par@22 { itask@22 { outlined@32 { barrier@45 .. @70 } @78 } @96 } @96
 * implicit task: 74, excl 74 - 46 = 28; outlined 46, excl 46 - 25 = 21;
 * barrier 25; its share of the parallel region (PARALLEL_WORKER, named as
 * the region) 74, excl 0.  In the trace the outlined function's call path has main
 * (thread 0) or none (thread 1) as its parent: the regions are no call
 * paths there.
 */
static ompt_data_t par_a;

static void *worker_a(void *arg)
{
    ompt_data_t thr = { 0 }, task = { 0 };

    (void)arg;
    at(21);
    CB(ompt_callback_thread_begin)(ompt_thread_worker, &thr);
    at(22);
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par_a, &task, 2, 1, ompt_task_implicit);
    fenter(ompt_test_outlined, 32);
    at(45);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_begin, &par_a,
                                  &task, IN(ompt_test_marker_b));
    at(70);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_end, &par_a,
                                  &task, IN(ompt_test_marker_b));
    fexit(ompt_test_outlined, 78);
    at(96);
    CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &task, 0, 1, ompt_task_implicit);
    CB(ompt_callback_thread_end)(&thr);
    return NULL;
}

START_TEST(profile_parallel_barrier_in_outlined)
{
    ompt_data_t thr = { 0 }, task = { 0 }, enc = { 0 };
    struct vftr_profile p;
    pthread_t w;

    start();
    use_test_clock();
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    fenter(MAIN, 0);
    at(10);
    CB(ompt_callback_parallel_begin)(&enc, NULL, &par_a, 2, ompt_parallel_team,
                                     IN(ompt_test_marker_a));
    at(20);
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par_a, &task, 2, 0, ompt_task_implicit);
    ck_assert_int_eq(pthread_create(&w, NULL, worker_a, NULL), 0);
    pthread_join(w, NULL);
    fenter(ompt_test_outlined, 30);
    at(40);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_begin, &par_a,
                                  &task, IN(ompt_test_marker_b));
    at(70);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_end, &par_a,
                                  &task, IN(ompt_test_marker_b));
    fexit(ompt_test_outlined, 80);
    at(85);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin,
                                  &par_a, &task, NULL);
    at(90);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_end,
                                  &par_a, &task, NULL);
    at(95);
    CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &task, 0, 0, ompt_task_implicit);
    at(100);
    CB(ompt_callback_parallel_end)(&par_a, &enc, ompt_parallel_team, IN(ompt_test_marker_a));
    fexit(MAIN, 120);
    at(150);
    finish_profile(&p);

    const char *par = name_of(VFTR_VFD_OMP_PARALLEL, IN(ompt_test_marker_a));
    const char *itask = name_of(VFTR_VFD_OMP_IMPLICIT_TASK, IN(ompt_test_marker_a));
    const char *bar = name_of(VFTR_VFD_OMP_BARRIER_EXPLICIT, IN(ompt_test_marker_b));
    const char *ibar = name_of(VFTR_VFD_OMP_BARRIER, IN(ompt_test_marker_a));

    /* the implicit barrier, reported without a code address, is the
     * parallel region's, at its place */
    ck_assert_str_eq(strchr(ibar, '@'), strchr(par, '@'));
    expect_row(&p, 0, PATH("main"), 1, 120, 30);
    expect_row(&p, 0, PATH("main", par), 1, 90, 15);
    expect_row(&p, 0, PATH("main", par, itask), 1, 75, 20);
    expect_row(&p, 0, PATH("main", par, itask, "ompt_test_outlined"), 1, 50, 20);
    expect_row(&p, 0, PATH("main", par, itask, "ompt_test_outlined", bar), 1, 30, 30);
    expect_row(&p, 0, PATH("main", par, itask, ibar), 1, 5, 5);
    ck_assert_uint_eq(rows_of(&p, 0), 6);
    /* the worker's share of the region holds its implicit task */
    expect_row(&p, 1, PATH(par), 1, 74, 0);
    expect_row(&p, 1, PATH(par, itask), 1, 74, 28);
    expect_row(&p, 1, PATH(par, itask, "ompt_test_outlined"), 1, 46, 21);
    expect_row(&p, 1, PATH(par, itask, "ompt_test_outlined", bar), 1, 25, 25);
    ck_assert_uint_eq(rows_of(&p, 1), 4);
    same_as_converted(&p);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * A worker's idle time.  libomp ends a worker's implicit barrier at the end
 * of a parallel region (and its implicit task) only when it wakes the
 * worker for the next region: the wait between regions is idle time, not
 * barrier.  Two parallel regions of two threads, the barriers without code
 * address (as libomp reports them).  Primary thread (0):
 *   main@0 { par1@10 { it@20 { bar@60 .. @70 } @75 } @80
 *            par2@100 { it@105 { bar@120 .. @130 } @135 } @140 } @300
 * Worker (1): it1@22, bar@50, woken at 100 (barrier and task end), it2@102,
 * bar@125, never woken again (the finalizer at 310 ends it):
 *   par1@22 { it1@22 { bar@50 .. @80 } @80 } @80, idle@80 .. @100,
 *   par2@102 { it2@102 { bar@125 .. @140 } @140 } @140, idle@140 .. @310
 * where 80 and 140 are the regions' ends.  Worker rows: par1 58 (excl 0),
 * it1 58 (excl 28), bar 30; par2 38 (excl 0), it2 38 (excl 23), bar 15;
 * "omp idle" 2 calls, 20 + 170 = 190, a root.
 */
static ompt_data_t par_i1, par_i2;
static pthread_barrier_t step;

static void *worker_idle(void *arg)
{
    ompt_data_t thr = { 0 }, t1 = { 0 }, t2 = { 0 };

    (void)arg;
    at(21);
    CB(ompt_callback_thread_begin)(ompt_thread_worker, &thr);
    at(22);
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par_i1, &t1, 2, 1, ompt_task_implicit);
    at(50);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin,
                                  &par_i1, &t1, NULL);
    pthread_barrier_wait(&step);   /* 1: the primary thread ends region 1, begins 2 */
    pthread_barrier_wait(&step);   /* 2: woken; the clock is this thread's until 3 */
    at(100);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_end,
                                  &par_i1, &t1, NULL);
    CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &t1, 0, 1, ompt_task_implicit);
    at(102);
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par_i2, &t2, 2, 1, ompt_task_implicit);
    at(125);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin,
                                  &par_i2, &t2, NULL);
    pthread_barrier_wait(&step);   /* 3: the primary's rest, the end of the run */
    pthread_barrier_wait(&step);   /* 4: after the finalizer */
    return NULL;
}

/* One parallel region of the primary thread: begin at t0, implicit task
 * t0+a .. t0+d, its barrier t0+b .. t0+c, end at t0+e. */
static void primary_region(ompt_data_t *par, const void *code, uint64_t t0, uint64_t a,
                           uint64_t b, uint64_t c, uint64_t d, uint64_t e, bool stop_after_begin)
{
    ompt_data_t task = { 0 }, enc = { 0 };

    at(t0);
    CB(ompt_callback_parallel_begin)(&enc, NULL, par, 2, ompt_parallel_team, code);
    if (stop_after_begin) {            /* the worker wakes, the clock is its own */
        pthread_barrier_wait(&step);
        pthread_barrier_wait(&step);
    }
    at(t0 + a);
    CB(ompt_callback_implicit_task)(ompt_scope_begin, par, &task, 2, 0, ompt_task_implicit);
    at(t0 + b);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin,
                                  par, &task, NULL);
    at(t0 + c);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel, ompt_scope_end,
                                  par, &task, NULL);
    at(t0 + d);
    CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &task, 0, 0, ompt_task_implicit);
    at(t0 + e);
    CB(ompt_callback_parallel_end)(par, &enc, ompt_parallel_team, code);
}

START_TEST(profile_worker_idle)
{
    ompt_data_t thr = { 0 };
    struct vftr_profile p;
    pthread_t w;

    start();
    use_test_clock();
    pthread_barrier_init(&step, NULL, 2);
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    fenter(MAIN, 0);
    /* region 1, the worker joining in before the primary's barrier */
    {
        ompt_data_t task = { 0 }, enc = { 0 };

        at(10);
        CB(ompt_callback_parallel_begin)(&enc, NULL, &par_i1, 2, ompt_parallel_team,
                                         IN(ompt_test_marker_a));
        at(20);
        CB(ompt_callback_implicit_task)(ompt_scope_begin, &par_i1, &task, 2, 0,
                                        ompt_task_implicit);
        ck_assert_int_eq(pthread_create(&w, NULL, worker_idle, NULL), 0);
        pthread_barrier_wait(&step);   /* 1 */
        at(60);
        CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel,
                                      ompt_scope_begin, &par_i1, &task, NULL);
        at(70);
        CB(ompt_callback_sync_region)(ompt_sync_region_barrier_implicit_parallel,
                                      ompt_scope_end, &par_i1, &task, NULL);
        at(75);
        CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &task, 0, 0, ompt_task_implicit);
        at(80);
        CB(ompt_callback_parallel_end)(&par_i1, &enc, ompt_parallel_team,
                                       IN(ompt_test_marker_a));
    }
    /* region 2: the worker wakes when it begins */
    primary_region(&par_i2, IN(ompt_test_marker_b), 100, 5, 20, 30, 35, 40, true);   /* 2, 3 */
    fexit(MAIN, 300);
    at(310);
    finish_profile(&p);
    pthread_barrier_wait(&step);   /* 4 */
    pthread_join(w, NULL);

    const char *par1 = name_of(VFTR_VFD_OMP_PARALLEL, IN(ompt_test_marker_a));
    const char *it1 = name_of(VFTR_VFD_OMP_IMPLICIT_TASK, IN(ompt_test_marker_a));
    const char *bar1 = name_of(VFTR_VFD_OMP_BARRIER, IN(ompt_test_marker_a));
    const char *par2 = name_of(VFTR_VFD_OMP_PARALLEL, IN(ompt_test_marker_b));
    const char *it2 = name_of(VFTR_VFD_OMP_IMPLICIT_TASK, IN(ompt_test_marker_b));
    const char *bar2 = name_of(VFTR_VFD_OMP_BARRIER, IN(ompt_test_marker_b));
    const char *idle = name_of(VFTR_VFD_OMP_IDLE, NULL);

    ck_assert_str_eq(idle, "omp idle");
    expect_row(&p, 0, PATH("main"), 1, 300, 190);
    expect_row(&p, 0, PATH("main", par1), 1, 70, 15);
    expect_row(&p, 0, PATH("main", par1, it1), 1, 55, 45);
    expect_row(&p, 0, PATH("main", par1, it1, bar1), 1, 10, 10);
    expect_row(&p, 0, PATH("main", par2), 1, 40, 10);
    expect_row(&p, 0, PATH("main", par2, it2), 1, 30, 20);
    expect_row(&p, 0, PATH("main", par2, it2, bar2), 1, 10, 10);
    ck_assert_uint_eq(rows_of(&p, 0), 7);
    expect_row(&p, 1, PATH(par1), 1, 58, 0);
    expect_row(&p, 1, PATH(par1, it1), 1, 58, 28);
    expect_row(&p, 1, PATH(par1, it1, bar1), 1, 30, 30);
    expect_row(&p, 1, PATH(idle), 2, 190, 190);
    expect_row(&p, 1, PATH(par2), 1, 38, 0);
    expect_row(&p, 1, PATH(par2, it2), 1, 38, 23);
    expect_row(&p, 1, PATH(par2, it2, bar2), 1, 15, 15);
    ck_assert_uint_eq(rows_of(&p, 1), 7);
    same_as_converted(&p);
    vftr_callpath_profile_release(&p);
    pthread_barrier_destroy(&step);
}
END_TEST

/*
 * Two locks released out of order (lock 7 taken at a, lock 8 at b):
 *   main@0 { wait7@10 .. @15, lock7@15 { wait8@20 .. @25, lock8@25 }
 *   release 7@40: lock8 ends and begins again @40 (the regions nest), lock7
 *   ends; release 8@60 } @100
 * main: incl 100, excl 100 - 5 - 25 - 20 = 50; wait(a) 5; lock(a) 25, excl
 * 25 - 5 - 15 = 5; wait(b) under lock(a) 5; lock(b) under lock(a) 15;
 * lock(b) under main: 20 (one call: the BEGIN of its second part).
 */
START_TEST(profile_out_of_order_release)
{
    ompt_data_t thr = { 0 };
    struct vftr_profile p;

    start();
    use_test_clock();
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    fenter(MAIN, 0);
    at(10);
    CB(ompt_callback_mutex_acquire)(ompt_mutex_lock, 0, 0, 7, IN(ompt_test_marker_a));
    at(15);
    MUTEX(ompt_callback_mutex_acquired)(ompt_mutex_lock, 7, IN(ompt_test_marker_a));
    at(20);
    CB(ompt_callback_mutex_acquire)(ompt_mutex_lock, 0, 0, 8, IN(ompt_test_marker_b));
    at(25);
    MUTEX(ompt_callback_mutex_acquired)(ompt_mutex_lock, 8, IN(ompt_test_marker_b));
    at(40);
    MUTEX(ompt_callback_mutex_released)(ompt_mutex_lock, 7, NULL);
    at(60);
    MUTEX(ompt_callback_mutex_released)(ompt_mutex_lock, 8, NULL);
    fexit(MAIN, 100);
    finish_profile(&p);

    const char *wa = name_of(VFTR_VFD_OMP_LOCK_WAIT, IN(ompt_test_marker_a));
    const char *la = name_of(VFTR_VFD_OMP_LOCK, IN(ompt_test_marker_a));
    const char *wb = name_of(VFTR_VFD_OMP_LOCK_WAIT, IN(ompt_test_marker_b));
    const char *lb = name_of(VFTR_VFD_OMP_LOCK, IN(ompt_test_marker_b));

    expect_row(&p, 0, PATH("main"), 1, 100, 50);
    expect_row(&p, 0, PATH("main", wa), 1, 5, 5);
    expect_row(&p, 0, PATH("main", la), 1, 25, 5);
    expect_row(&p, 0, PATH("main", la, wb), 1, 5, 5);
    expect_row(&p, 0, PATH("main", la, lb), 1, 15, 15);
    expect_row(&p, 0, PATH("main", lb), 1, 20, 20);
    ck_assert_uint_eq(rows_of(&p, 0), 6);
    same_as_converted(&p);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * A region open across a pause, inside an instrumented outlined function:
 *   main@0 { parallel@10 { itask@20 { outlined@30 { loop@40, pause@50,
 *   loop ends@60, barrier@65 (both paused), resume@70, barrier ends@80 }
 *   @90 } @95 } @100 } @110
 * Counting stops at 50 and starts again at 70, where every open frame is
 * entered again (one call more each; the barrier, begun while paused, gets
 * its one call there): main 2 calls, 50 + 40 = 90, excl 90 - 70 = 20;
 * parallel 2, 40 + 30 = 70, excl 70 - 55 = 15; implicit task 2, 30 + 25 =
 * 55, excl 55 - 40 = 15; outlined 2, 20 + 20 = 40, excl 40 - 10 - 10 = 20;
 * loop 1, 10; barrier 1, 10.  The trace ends the frames at the pause in
 * their order on the stack and begins them again at the resume in the
 * same order (OpenMP regions among the functions), so that the readers
 * rebuild the stack the profile has.
 */
START_TEST(profile_region_across_a_pause)
{
    ompt_data_t thr = { 0 }, par = { 0 }, task = { 0 }, enc = { 0 };
    struct vftr_profile p;
    const uint32_t B = VFTR_VFD_OMP_BEGIN, E = VFTR_VFD_OMP_END;

    start();
    use_test_clock();
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    fenter(MAIN, 0);
    at(10);
    CB(ompt_callback_parallel_begin)(&enc, NULL, &par, 1, ompt_parallel_team, IN(ompt_test_marker_a));
    at(20);
    CB(ompt_callback_implicit_task)(ompt_scope_begin, &par, &task, 1, 0, ompt_task_implicit);
    fenter(ompt_test_outlined, 30);
    at(40);
    CB(ompt_callback_work)(ompt_work_loop, ompt_scope_begin, &par, &task, 10, IN(ompt_test_marker_b));
    at(50);
    vftr_pause();
    at(60);
    CB(ompt_callback_work)(ompt_work_loop, ompt_scope_end, &par, &task, 0, IN(ompt_test_marker_b));
    at(65);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_begin, &par, &task,
                                  IN(ompt_test_marker_b));
    at(70);
    vftr_resume();
    at(80);
    CB(ompt_callback_sync_region)(ompt_sync_region_barrier_explicit, ompt_scope_end, &par, &task,
                                  IN(ompt_test_marker_b));
    fexit(ompt_test_outlined, 90);
    at(95);
    CB(ompt_callback_implicit_task)(ompt_scope_end, NULL, &task, 0, 0, ompt_task_implicit);
    at(100);
    CB(ompt_callback_parallel_end)(&par, &enc, ompt_parallel_team, IN(ompt_test_marker_a));
    fexit(MAIN, 110);
    finish_profile(&p);

    /* the regions' events as before: cut at the pause, begun again at the
     * resume (also the barrier, begun while paused) */
    ck_assert_uint_eq(nev, 12);
    expect_ev(3, E, VFTR_VFD_OMP_LOOP, 1);
    expect_ev(6, B, VFTR_VFD_OMP_PARALLEL, 1);
    expect_ev(8, B, VFTR_VFD_OMP_BARRIER_EXPLICIT, 1);

    const char *par_n = name_of(VFTR_VFD_OMP_PARALLEL, IN(ompt_test_marker_a));
    const char *itask = name_of(VFTR_VFD_OMP_IMPLICIT_TASK, IN(ompt_test_marker_a));
    const char *loop = name_of(VFTR_VFD_OMP_LOOP, IN(ompt_test_marker_b));
    const char *bar = name_of(VFTR_VFD_OMP_BARRIER_EXPLICIT, IN(ompt_test_marker_b));

    expect_row(&p, 0, PATH("main"), 2, 90, 20);
    expect_row(&p, 0, PATH("main", par_n), 2, 70, 15);
    expect_row(&p, 0, PATH("main", par_n, itask), 2, 55, 15);
    expect_row(&p, 0, PATH("main", par_n, itask, "ompt_test_outlined"), 2, 40, 20);
    expect_row(&p, 0, PATH("main", par_n, itask, "ompt_test_outlined", loop), 1, 10, 10);
    expect_row(&p, 0, PATH("main", par_n, itask, "ompt_test_outlined", bar), 1, 10, 10);
    ck_assert_uint_eq(rows_of(&p, 0), 6);
    same_as_converted(&p);
    vftr_callpath_profile_release(&p);
}
END_TEST

/*
 * A lock taken in a callee and released by its caller: the callee's exit
 * ends the lock's frame (the readers close a region frame above the frame
 * an EXIT names), and the release finds none.  A lock of the same code
 * taken before, in main, stays open across a pause; the region closed
 * with the callee is not begun again at the resume, so that its release
 * does not end main's lock instead:
 *   main@0 { waitC@5 .. @8, lockC@8 { callee@10 { waitA@20 .. @25,
 *   lockA@25 } @30 (lockA's frame ends), pause@40, resume@50, release
 *   A@60, release C@70 } @100
 * main: 2 calls, 40 + 50 = 90, excl 90 - 3 - 52 = 35; wait 3; lock 2 calls
 * (8..40, 50..70) = 52, excl 52 - 20 = 32; callee 20, excl 20 - 5 - 5 =
 * 10; its wait 5 and lock 5.
 */
START_TEST(profile_region_closed_by_a_function)
{
    ompt_data_t thr = { 0 };
    struct vftr_profile p;

    start();
    use_test_clock();
    CB(ompt_callback_thread_begin)(ompt_thread_initial, &thr);
    fenter(MAIN, 0);
    at(5);
    CB(ompt_callback_mutex_acquire)(ompt_mutex_lock, 0, 0, 3, IN(ompt_test_marker_a));
    at(8);
    MUTEX(ompt_callback_mutex_acquired)(ompt_mutex_lock, 3, IN(ompt_test_marker_a));
    fenter(ompt_test_callee, 10);
    at(20);
    CB(ompt_callback_mutex_acquire)(ompt_mutex_lock, 0, 0, 1, IN(ompt_test_marker_a));
    at(25);
    MUTEX(ompt_callback_mutex_acquired)(ompt_mutex_lock, 1, IN(ompt_test_marker_a));
    fexit(ompt_test_callee, 30);
    at(40);
    vftr_pause();
    at(50);
    vftr_resume();
    at(60);
    MUTEX(ompt_callback_mutex_released)(ompt_mutex_lock, 1, NULL);
    at(70);
    MUTEX(ompt_callback_mutex_released)(ompt_mutex_lock, 3, NULL);
    fexit(MAIN, 100);
    finish_profile(&p);

    const char *wait = name_of(VFTR_VFD_OMP_LOCK_WAIT, IN(ompt_test_marker_a));
    const char *lock = name_of(VFTR_VFD_OMP_LOCK, IN(ompt_test_marker_a));

    expect_row(&p, 0, PATH("main"), 2, 90, 35);
    expect_row(&p, 0, PATH("main", wait), 1, 3, 3);
    expect_row(&p, 0, PATH("main", lock), 2, 52, 32);
    expect_row(&p, 0, PATH("main", lock, "ompt_test_callee"), 1, 20, 10);
    expect_row(&p, 0, PATH("main", lock, "ompt_test_callee", wait), 1, 5, 5);
    expect_row(&p, 0, PATH("main", lock, "ompt_test_callee", lock), 1, 5, 5);
    ck_assert_uint_eq(rows_of(&p, 0), 6);
    /* the trace stays balanced: every region begun has its end (lock A's
     * at the pause) */
    size_t begins = 0, ends = 0;
    for (size_t i = 0; i < nev; i++)
        evs[i].type == VFTR_VFD_OMP_BEGIN ? begins++ : ends++;
    ck_assert_uint_eq(begins, ends);
    same_as_converted(&p);
    vftr_callpath_profile_release(&p);
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
    tcase_add_test(tc, profile_parallel_barrier_in_outlined);
    tcase_add_test(tc, profile_worker_idle);
    tcase_add_test(tc, profile_out_of_order_release);
    tcase_add_test(tc, profile_region_across_a_pause);
    tcase_add_test(tc, profile_region_closed_by_a_function);
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
