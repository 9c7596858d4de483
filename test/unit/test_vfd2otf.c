/*
 * test_vfd2otf.c — Check suite for lib/model/vfdconv, the engine of
 * vfd2otf, driven through its consumer interface (the way vftr-snap's
 * engine will plug in).  Each test writes its own .vfd files with lib/vfd's
 * writer and compares the events the consumer receives with what the test
 * worked out by hand.  The OTF side is tested by test/integration/vfd2otf_*.sh
 * with the reference library.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/vfdconv.h"
#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

static char dir[64];
static uint8_t chunk[1 << 16];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_vfd2otf.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static struct vftr_vfd_writer *open_rank(int rank, uint8_t run, char *path, size_t len)
{
    struct vftr_vfd_info info;
    struct vftr_vfd_writer *w;

    memset(&info, 0, sizeof info);
    memset(info.run_id, run, 16);
    info.rank = rank;
    info.size = 2;
    info.ticks_per_second = 1000000000;
    info.start_ns = 1000000000000ull;
    snprintf(path, len, "%s/r_%d_%u.vfd", dir, rank, run);
    w = vftr_vfd_writer_open(path, &info);
    ck_assert_ptr_nonnull(w);
    return w;
}

static void put(struct vftr_vfd_writer *w, size_t n)
{
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(vftr_vfd_writer_put(w, chunk, n), 0);
}

/* Rank r: main (cp 1) 10..100 on thread 0, with f (cp 2) at 20..30+r. */
static void write_rank(int rank, uint8_t run, char *path, size_t len)
{
    const struct vftr_vfd_function f[] = { { 1, 0, 0x10, "main" }, { 2, 0, 0x20, "f" } };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 } };
    const struct vftr_vfd_thread t = { 0, VFTR_VFD_NO_THREAD, 1, 0, "main" };
    struct vftr_vfd_event ev[4] = {
        { 10, VFTR_VFD_ENTER, 1 }, { 20, VFTR_VFD_ENTER, 2 },
        { 30 + (uint64_t)rank, VFTR_VFD_EXIT, 2 }, { 100, VFTR_VFD_EXIT, 1 },
    };
    struct vftr_vfd_writer *w = open_rank(rank, run, path, len);

    put(w, vftr_vfd_encode_run_id((uint8_t[16]){ run, run, run, run, run, run, run, run, run,
                                                 run, run, run, run, run, run, run },
                                  chunk, sizeof chunk));
    put(w, vftr_vfd_encode_threads(&t, 1, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_functions(f, 2, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_callpaths(c, 2, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_events(ev, 4, chunk, sizeof chunk, 0));
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);
}

struct collect {
    struct vftr_vfdconv_event ev[64];
    size_t n;
    int fail_at;            /* return an error at this event (1-based), 0: never */
};

static int collect_event(void *ctx, const struct vftr_vfdconv_event *e)
{
    struct collect *c = ctx;

    if (c->fail_at && (int)c->n + 1 == c->fail_at)
        return -ECANCELED;
    ck_assert_uint_lt(c->n, 64);
    c->ev[c->n++] = *e;
    return 0;
}

START_TEST(two_ranks_merged_in_time_order)
{
    char p0[128], p1[128];
    const char *paths[2] = { p1, p0 };     /* any order: ranks come from the headers */
    struct vftr_vfdconv *c;
    struct collect col = { .n = 0 };
    struct vftr_vfdconv_consumer cons = { .event = collect_event, .ctx = &col };
    const uint32_t ranks[2] = { 0, 1 };
    char err[256] = "";
    uint64_t n;
    size_t np;

    write_rank(0, 7, p0, sizeof p0);
    write_rank(1, 7, p1, sizeof p1);
    ck_assert_int_eq(vftr_vfdconv_open(&c, paths, 2, NULL, err, sizeof err), 0);
    ck_assert_uint_eq(vftr_vfdconv_ranks(c), 2);
    const struct vftr_vfdconv_proc *pr = vftr_vfdconv_procs(c, &np);
    ck_assert_uint_eq(np, 2);
    ck_assert_uint_eq(pr[0].token, 1);
    ck_assert_str_eq(pr[1].name, "Rank 1");
    ck_assert_int_eq(vftr_vfdconv_replay(c, ranks, 2, &cons, &n, err, sizeof err), 0);
    /* per rank: begin, enter main, enter f, leave f, leave main, end = 6 */
    ck_assert_uint_eq(n, 12);
    ck_assert_uint_eq(col.n, 12);
    for (size_t i = 1; i < col.n; i++)
        ck_assert_uint_le(col.ev[i - 1].time, col.ev[i].time);
    /* both ranks start at the same instant: times are the ticks */
    ck_assert_uint_eq(col.ev[0].time, 10);
    ck_assert_uint_eq(col.ev[0].type, VFTR_VFDCONV_BEGIN_PROCESS);
    /* f ends at 30 on rank 0 and at 31 on rank 1 */
    int seen = 0;
    for (size_t i = 0; i < col.n; i++)
        if (col.ev[i].type == VFTR_VFDCONV_LEAVE && col.ev[i].time >= 30 && col.ev[i].time <= 31) {
            ck_assert_uint_eq(col.ev[i].time, 30 + col.ev[i].process - 1);
            seen++;
        }
    ck_assert_int_eq(seen, 2);
    vftr_vfdconv_free(c);
}
END_TEST

START_TEST(one_rank_of_two)
{
    char p0[128], p1[128];
    const char *paths[2] = { p0, p1 };
    struct vftr_vfdconv *c;
    struct collect col = { .n = 0 };
    struct vftr_vfdconv_consumer cons = { .event = collect_event, .ctx = &col };
    const uint32_t rank1 = 1;
    uint64_t n;

    write_rank(0, 7, p0, sizeof p0);
    write_rank(1, 7, p1, sizeof p1);
    ck_assert_int_eq(vftr_vfdconv_open(&c, paths, 2, NULL, NULL, 0), 0);
    ck_assert_int_eq(vftr_vfdconv_replay(c, &rank1, 1, &cons, &n, NULL, 0), 0);
    ck_assert_uint_eq(n, 6);
    for (size_t i = 0; i < col.n; i++)
        ck_assert_uint_eq(col.ev[i].process, 2);
    vftr_vfdconv_free(c);
}
END_TEST

START_TEST(consumer_error_stops)
{
    char p0[128];
    const char *paths[1] = { p0 };
    struct vftr_vfdconv *c;
    struct collect col = { .n = 0, .fail_at = 3 };
    struct vftr_vfdconv_consumer cons = { .event = collect_event, .ctx = &col };
    const uint32_t rank0 = 0;
    uint64_t n;

    write_rank(0, 7, p0, sizeof p0);
    ck_assert_int_eq(vftr_vfdconv_open(&c, paths, 1, NULL, NULL, 0), 0);
    ck_assert_int_eq(vftr_vfdconv_replay(c, &rank0, 1, &cons, &n, NULL, 0), -ECANCELED);
    ck_assert_uint_eq(col.n, 2);
    vftr_vfdconv_free(c);
}
END_TEST

START_TEST(refuses_mixed_runs_and_duplicates)
{
    char p0[128], p1[128], q1[128];
    struct vftr_vfdconv *c = (struct vftr_vfdconv *)1;
    char err[512];

    write_rank(0, 7, p0, sizeof p0);
    write_rank(1, 7, p1, sizeof p1);
    write_rank(1, 8, q1, sizeof q1);
    const char *mixed[2] = { p0, q1 };
    ck_assert_int_eq(vftr_vfdconv_open(&c, mixed, 2, NULL, err, sizeof err), -EINVAL);
    ck_assert_ptr_null(c);
    ck_assert_ptr_nonnull(strstr(err, "different runs"));
    const char *twice[2] = { p1, q1 };
    ck_assert_int_eq(vftr_vfdconv_open(&c, twice, 2, NULL, err, sizeof err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "both hold rank 1"));
    ck_assert_int_eq(vftr_vfdconv_open(&c, twice, 0, NULL, err, sizeof err), -EINVAL);
    const char *none[1] = { "/nonexistent/x.vfd" };
    ck_assert_int_lt(vftr_vfdconv_open(&c, none, 1, NULL, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.vfd"));
}
END_TEST

/* A thread's stack: an EXIT of a frame below the top leaves everything
 * above it; an EXIT of a path not on the stack is ignored; OMP_END of a
 * region not open is ignored; what is open at the end is left at the last
 * time.  Events (cp 1 main, 2 main>f, 3 main>f>g; region 5):
 *   10 ENTER 1, 20 ENTER 2, 25 OMP_BEGIN 5, 30 ENTER 3, 40 EXIT 2 (leaves
 *   g, omp, f), 50 EXIT 3 (ignored), 55 OMP_END 5 (ignored), 60 ENTER 2.
 * Expected: B10 E10 main, E20 f, E25 omp, E30 g, L40 g, L40 omp, L40 f,
 *   E60 f, L60 f, L60 main, End60. */
START_TEST(stack_repairs)
{
    char p0[128];
    const char *paths[1] = { p0 };
    const struct vftr_vfd_function f[] = { { 1, 0, 1, "main" }, { 2, 0, 2, "f" }, { 3, 0, 3, "g" } };
    const struct vftr_vfd_callpath cp[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 2, 3, 0 } };
    const struct vftr_vfd_omp_region reg = { 5, VFTR_VFD_OMP_PARALLEL, 0, "main", "", 0 };
    struct vftr_vfd_omp ob = { 5, 1, 2 };
    struct vftr_vfd_event ev[16];
    uint8_t pl[VFTR_VFD_EXT_MAX];
    size_t k = 0, plen = vftr_vfd_omp_encode(&ob, pl);
    struct vftr_vfd_writer *w = open_rank(0, 9, p0, sizeof p0);
    struct vftr_vfdconv *c;
    struct collect col = { .n = 0 };
    struct vftr_vfdconv_consumer cons = { .event = collect_event, .ctx = &col };
    const uint32_t rank0 = 0;
    static const struct { uint32_t type; uint64_t time; const char *fn; } want[] = {
        { VFTR_VFDCONV_BEGIN_PROCESS, 10, NULL }, { VFTR_VFDCONV_ENTER, 10, "main" },
        { VFTR_VFDCONV_ENTER, 20, "f" }, { VFTR_VFDCONV_ENTER, 25, "omp parallel @main" },
        { VFTR_VFDCONV_ENTER, 30, "g" }, { VFTR_VFDCONV_LEAVE, 40, "g" },
        { VFTR_VFDCONV_LEAVE, 40, "omp parallel @main" }, { VFTR_VFDCONV_LEAVE, 40, "f" },
        { VFTR_VFDCONV_ENTER, 60, "f" }, { VFTR_VFDCONV_LEAVE, 60, "f" },
        { VFTR_VFDCONV_LEAVE, 60, "main" }, { VFTR_VFDCONV_END_PROCESS, 60, NULL },
    };
    size_t nf;

    ck_assert_uint_le(plen, 16);
    put(w, vftr_vfd_encode_functions(f, 3, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_callpaths(cp, 3, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_omp_regions(&reg, 1, chunk, sizeof chunk));
    ev[k++] = (struct vftr_vfd_event){ 10, VFTR_VFD_ENTER, 1 };
    ev[k++] = (struct vftr_vfd_event){ 20, VFTR_VFD_ENTER, 2 };
    ev[k++] = (struct vftr_vfd_event){ 25, VFTR_VFD_OMP_BEGIN, (uint32_t)plen };
    memset(&ev[k], 0, sizeof ev[k]);
    memcpy(&ev[k++], pl, plen);
    ev[k++] = (struct vftr_vfd_event){ 30, VFTR_VFD_ENTER, 3 };
    ev[k++] = (struct vftr_vfd_event){ 40, VFTR_VFD_EXIT, 2 };
    ev[k++] = (struct vftr_vfd_event){ 50, VFTR_VFD_EXIT, 3 };
    ev[k++] = (struct vftr_vfd_event){ 55, VFTR_VFD_OMP_END, (uint32_t)plen };
    memset(&ev[k], 0, sizeof ev[k]);
    memcpy(&ev[k++], pl, plen);
    ev[k++] = (struct vftr_vfd_event){ 60, VFTR_VFD_ENTER, 2 };
    put(w, vftr_vfd_encode_events(ev, k, chunk, sizeof chunk, 0));
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);

    ck_assert_int_eq(vftr_vfdconv_open(&c, paths, 1, NULL, NULL, 0), 0);
    ck_assert_int_eq(vftr_vfdconv_replay(c, &rank0, 1, &cons, NULL, NULL, 0), 0);
    const struct vftr_vfdconv_func *fn = vftr_vfdconv_funcs(c, &nf);
    ck_assert_uint_eq(col.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < col.n; i++) {
        ck_assert_uint_eq(col.ev[i].type, want[i].type);
        ck_assert_uint_eq(col.ev[i].time, want[i].time);
        if (want[i].fn) {
            ck_assert_uint_ge(col.ev[i].function, 1);
            ck_assert_uint_le(col.ev[i].function, nf);
            ck_assert_str_eq(fn[col.ev[i].function - 1].name, want[i].fn);
        }
    }
    ck_assert_uint_eq(fn[3].group, VFTR_VFDCONV_GROUP_OMP);
    vftr_vfdconv_free(c);
}
END_TEST

/* Rank r of 5 with a function of its own ("only<r>", defined before "main"
 * on odd ranks): the numbering depends on the order the files are merged
 * in, which must not depend on who read them. */
static void write_named_rank(int rank, char *path, size_t len)
{
    char name[16];
    struct vftr_vfd_function f[3] = { { 1, 0, 0x10, "main" }, { 2, 0, 0x20, "f" },
                                      { 3, 0, 0x30, name } };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 } };
    const struct vftr_vfd_thread t = { 0, VFTR_VFD_NO_THREAD, 1, 0, "main" };
    struct vftr_vfd_event ev[6] = {
        { 10, VFTR_VFD_ENTER, 1 }, { 20, VFTR_VFD_ENTER, 2 }, { 30 + (uint64_t)rank, VFTR_VFD_EXIT, 2 },
        { 40, VFTR_VFD_ENTER, 3 }, { 50 + (uint64_t)rank, VFTR_VFD_EXIT, 3 }, { 100, VFTR_VFD_EXIT, 1 },
    };
    struct vftr_vfd_writer *w = open_rank(rank, 9, path, len);

    snprintf(name, sizeof name, "only%d", rank);
    if (rank & 1) {             /* its own function first */
        struct vftr_vfd_function x = f[0];

        f[0] = f[2];
        f[2] = x;
    }
    put(w, vftr_vfd_encode_threads(&t, 1, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_functions(f, 3, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_callpaths(c, 3, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_events(ev, 6, chunk, sizeof chunk, 0));
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);
}

/* Two "processes" (threads) sharing a first pass: exchange() is an
 * allgather over a barrier. */
struct fake_mpi {
    pthread_barrier_t bar;
    const void *buf[2];
    size_t len[2];
};
struct fake_rank {
    struct fake_mpi *m;
    int k;
    const char *const *paths;
    size_t n;
    struct vftr_vfdconv *c;
    int rc;
};

static int fake_mine(void *ctx, size_t file)
{
    return (int)(file % 2) == ((struct fake_rank *)ctx)->k;
}

static int fake_exchange(void *ctx, const void *buf, size_t len, void **all, size_t *alllen)
{
    struct fake_rank *r = ctx;
    uint8_t *p;

    r->m->buf[r->k] = buf;
    r->m->len[r->k] = len;
    pthread_barrier_wait(&r->m->bar);
    p = malloc(r->m->len[0] + r->m->len[1] + 1);
    if (p) {
        memcpy(p, r->m->buf[0], r->m->len[0]);
        memcpy(p + r->m->len[0], r->m->buf[1], r->m->len[1]);
    }
    /* read len[] before the barrier: past it the other may already be in
     * its next exchange, writing them */
    *alllen = r->m->len[0] + r->m->len[1];
    pthread_barrier_wait(&r->m->bar);   /* both copied: the buffers may go */
    *all = p;
    return p ? 0 : -ENOMEM;
}

static void *fake_open(void *arg)
{
    struct fake_rank *r = arg;
    struct vftr_vfdconv_share sh = { fake_mine, fake_exchange, r, 0, 0, NULL, NULL };
    struct vftr_vfdconv_opts o = { NULL, "test", 0, 1, &sh };

    r->rc = vftr_vfdconv_open(&r->c, r->paths, r->n, &o, NULL, 0);
    return NULL;
}

/* Same functions (tokens, names, groups) and the same replay of all ranks. */
static void same_engine(const struct vftr_vfdconv *a, const struct vftr_vfdconv *b)
{
    size_t na, nb;
    const struct vftr_vfdconv_func *fa = vftr_vfdconv_funcs(a, &na), *fb = vftr_vfdconv_funcs(b, &nb);
    const uint32_t all[5] = { 0, 1, 2, 3, 4 };
    struct collect ca = { .n = 0 }, cb = { .n = 0 };
    struct vftr_vfdconv_consumer ka = { .event = collect_event, .ctx = &ca };
    struct vftr_vfdconv_consumer kb = { .event = collect_event, .ctx = &cb };

    ck_assert_uint_eq(na, nb);
    for (size_t i = 0; i < na; i++) {
        ck_assert_uint_eq(fa[i].token, fb[i].token);
        ck_assert_str_eq(fa[i].name, fb[i].name);
        ck_assert_uint_eq(fa[i].group, fb[i].group);
    }
    ck_assert_uint_eq(vftr_vfdconv_ranks(a), 5);
    ck_assert_uint_eq(vftr_vfdconv_ranks(b), 5);
    ck_assert_int_eq(vftr_vfdconv_replay(a, all, 5, &ka, NULL, NULL, 0), 0);
    ck_assert_int_eq(vftr_vfdconv_replay(b, all, 5, &kb, NULL, NULL, 0), 0);
    ck_assert_uint_eq(ca.n, 5 * 8);     /* begin, 3 enter, 3 leave, end */
    ck_assert_uint_eq(ca.n, cb.n);
    for (size_t i = 0; i < ca.n; i++) {     /* the fields of Enter/Leave/Begin/End */
        ck_assert_uint_eq(ca.ev[i].time, cb.ev[i].time);
        ck_assert_uint_eq(ca.ev[i].type, cb.ev[i].type);
        ck_assert_uint_eq(ca.ev[i].process, cb.ev[i].process);
        if (ca.ev[i].type == VFTR_VFDCONV_ENTER || ca.ev[i].type == VFTR_VFDCONV_LEAVE) {
            ck_assert_uint_eq(ca.ev[i].function, cb.ev[i].function);
            ck_assert_uint_eq(ca.ev[i].scl, cb.ev[i].scl);
        }
    }
}

START_TEST(first_pass_threaded_and_shared)
{
    char p[5][128];
    const char *paths[5] = { p[3], p[0], p[4], p[1], p[2] };
    struct vftr_vfdconv *serial, *threaded;
    struct vftr_vfdconv_opts four = { NULL, "test", 0, 4, NULL };
    struct fake_mpi m;
    struct fake_rank fr[2];
    pthread_t th[2];
    size_t nf;

    for (int r = 0; r < 5; r++)
        write_named_rank(r, p[r], sizeof p[r]);
    ck_assert_int_eq(vftr_vfdconv_open(&serial, paths, 5, NULL, NULL, 0), 0);
    /* worked out by hand: files in the order given (ranks 3, 0, 4, 1, 2),
     * each defining its functions in file order */
    const struct vftr_vfdconv_func *fn = vftr_vfdconv_funcs(serial, &nf);
    const char *want[] = { "only3", "f", "main", "only0", "only4", "only1", "only2" };
    ck_assert_uint_eq(nf, 7);
    for (size_t i = 0; i < nf; i++) {
        ck_assert_uint_eq(fn[i].token, i + 1);
        ck_assert_str_eq(fn[i].name, want[i]);
    }
    ck_assert_int_eq(vftr_vfdconv_open(&threaded, paths, 5, &four, NULL, 0), 0);
    same_engine(serial, threaded);

    ck_assert_int_eq(pthread_barrier_init(&m.bar, NULL, 2), 0);
    for (int k = 0; k < 2; k++) {
        fr[k] = (struct fake_rank){ &m, k, paths, 5, NULL, -1 };
        ck_assert_int_eq(pthread_create(&th[k], NULL, fake_open, &fr[k]), 0);
    }
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    pthread_barrier_destroy(&m.bar);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(fr[k].rc, 0);
        same_engine(serial, fr[k].c);
        ck_assert_uint_eq(vftr_vfdconv_rank_events(fr[k].c, 3), 6);
        vftr_vfdconv_free(fr[k].c);
    }
    vftr_vfdconv_free(threaded);
    vftr_vfdconv_free(serial);
}
END_TEST

struct counts {
    uint64_t enter, leave, other, last_time, leaves_at_900;
    int ordered;
};

static int count_event(void *ctx, const struct vftr_vfdconv_event *e)
{
    struct counts *k = ctx;

    if (e->time < k->last_time)
        k->ordered = 0;
    k->last_time = e->time;
    if (e->type == VFTR_VFDCONV_ENTER)
        k->enter++;
    else if (e->type == VFTR_VFDCONV_LEAVE) {
        k->leave++;
        k->leaves_at_900 += e->time == 900;
    } else
        k->other++;
    return 0;
}

/* 600 nested calls, all left at once by the Exit of the outermost: the
 * replay follows every level (no depth limit), and the 600 Leave events of
 * one record go out together (the output window grows for them). */
START_TEST(deep_stack_left_at_once)
{
    enum { DEPTH = 600 };
    static struct vftr_vfd_callpath c[DEPTH];
    static struct vftr_vfd_event ev[DEPTH + 1];
    const struct vftr_vfd_function f = { 1, 0, 0x10, "rec" };
    const struct vftr_vfd_thread t = { 0, VFTR_VFD_NO_THREAD, 1, 0, "main" };
    char p0[128];
    const char *paths[1] = { p0 };
    struct vftr_vfdconv *conv;
    struct counts k = { .ordered = 1 };
    struct vftr_vfdconv_consumer cons = { .event = count_event, .ctx = &k };
    const uint32_t rank0 = 0;
    static uint8_t big[1 << 16];
    uint64_t n;

    for (uint32_t i = 0; i < DEPTH; i++) {
        c[i] = (struct vftr_vfd_callpath){ i + 1, i, 1, 0 };
        ev[i] = (struct vftr_vfd_event){ 10 + i, VFTR_VFD_ENTER, i + 1 };
    }
    ev[DEPTH] = (struct vftr_vfd_event){ 900, VFTR_VFD_EXIT, 1 };
    struct vftr_vfd_writer *w = open_rank(0, 5, p0, sizeof p0);
    put(w, vftr_vfd_encode_threads(&t, 1, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_functions(&f, 1, chunk, sizeof chunk));
    ck_assert_int_eq(vftr_vfd_writer_put(w, big, vftr_vfd_encode_callpaths(c, DEPTH, big,
                                                                           sizeof big)), 0);
    ck_assert_int_eq(vftr_vfd_writer_put(w, big, vftr_vfd_encode_events(ev, DEPTH + 1, big,
                                                                        sizeof big, 0)), 0);
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);
    ck_assert_int_eq(vftr_vfdconv_open(&conv, paths, 1, NULL, NULL, 0), 0);
    ck_assert_int_eq(vftr_vfdconv_replay(conv, &rank0, 1, &cons, &n, NULL, 0), 0);
    ck_assert_uint_eq(k.enter, DEPTH);
    ck_assert_uint_eq(k.leave, DEPTH);
    ck_assert_uint_eq(k.leaves_at_900, DEPTH);
    ck_assert_uint_eq(k.other, 2);
    ck_assert_uint_eq(n, 2 * DEPTH + 2);
    ck_assert_int_eq(k.ordered, 1);
    vftr_vfdconv_free(conv);
}
END_TEST

/* Functions of statistical samples (FUNCTIONS flag VFTR_VFD_FUNC_SAMPLED,
 * capture/sample.c) are in a function group of their own, which every tool
 * names "sampled (statistical)", and only a trace that has them needs the
 * group: main (plain), work and spin (sampled), MPI_Send (MPI). */
START_TEST(sampled_functions_have_their_group)
{
    const struct vftr_vfd_function f[] = {
        { 1, 0, 0x10, "main" }, { 2, VFTR_VFD_FUNC_SAMPLED, 0x20, "work" },
        { 3, VFTR_VFD_FUNC_SAMPLED, 0x30, "spin" },
        { 4, VFTR_VFD_FUNC_REGION | VFTR_VFD_FUNC_MPI, 0, "MPI_Send" },
    };
    const struct vftr_vfd_callpath c[] = { { 1, 0, 1, 0 }, { 2, 0, 2, 1 }, { 3, 2, 3, 1 },
                                           { 4, 1, 4, 0 } };
    const struct vftr_vfd_thread t[] = { { 0, VFTR_VFD_NO_THREAD, 1, 0, "main" },
                                         { 1, 0, 1, 0, "" } };
    const struct vftr_vfd_event ev0[] = { { 10, VFTR_VFD_ENTER, 1 }, { 100, VFTR_VFD_EXIT, 1 } };
    const struct vftr_vfd_event ev1[] = { { 20, VFTR_VFD_ENTER, 2 }, { 20, VFTR_VFD_ENTER, 3 },
                                          { 24, VFTR_VFD_EXIT, 3 }, { 24, VFTR_VFD_EXIT, 2 } };
    char p0[128], plain[128];
    const char *paths[1] = { p0 };
    struct vftr_vfdconv *conv;
    size_t nf;
    int seen = 0;

    struct vftr_vfd_writer *w = open_rank(0, 6, p0, sizeof p0);
    put(w, vftr_vfd_encode_threads(t, 2, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_functions(f, 4, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_callpaths(c, 4, chunk, sizeof chunk));
    put(w, vftr_vfd_encode_events(ev0, 2, chunk, sizeof chunk, 0));
    put(w, vftr_vfd_encode_events(ev1, 4, chunk, sizeof chunk, 1));
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);
    ck_assert_int_eq(vftr_vfdconv_open(&conv, paths, 1, NULL, NULL, 0), 0);
    const struct vftr_vfdconv_func *fn = vftr_vfdconv_funcs(conv, &nf);
    for (size_t i = 0; i < nf; i++) {
        uint32_t want = strcmp(fn[i].name, "MPI_Send") == 0 ? VFTR_VFDCONV_GROUP_MPI
                        : strcmp(fn[i].name, "main") == 0   ? VFTR_VFDCONV_GROUP_USER
                                                            : VFTR_VFDCONV_GROUP_SAMPLED;

        ck_assert_uint_eq(fn[i].group, want);
        seen += want == VFTR_VFDCONV_GROUP_SAMPLED;
    }
    ck_assert_int_eq(seen, 2);
    ck_assert_uint_eq(vftr_vfdconv_last_group(conv), VFTR_VFDCONV_GROUP_SAMPLED);
    ck_assert_str_eq(vftr_vfdconv_group_name(VFTR_VFDCONV_GROUP_SAMPLED), "sampled (statistical)");
    vftr_vfdconv_free(conv);

    /* without samples the groups end at OpenMP, as before */
    write_rank(0, 8, plain, sizeof plain);
    paths[0] = plain;
    ck_assert_int_eq(vftr_vfdconv_open(&conv, paths, 1, NULL, NULL, 0), 0);
    ck_assert_uint_eq(vftr_vfdconv_last_group(conv), VFTR_VFDCONV_GROUP_OMP);
    vftr_vfdconv_free(conv);
}
END_TEST

static Suite *conv_suite(void)
{
    Suite *s = suite_create("vfd2otf");
    TCase *tc = tcase_create("engine");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, two_ranks_merged_in_time_order);
    tcase_add_test(tc, one_rank_of_two);
    tcase_add_test(tc, consumer_error_stops);
    tcase_add_test(tc, refuses_mixed_runs_and_duplicates);
    tcase_add_test(tc, stack_repairs);
    tcase_add_test(tc, first_pass_threaded_and_shared);
    tcase_add_test(tc, deep_stack_left_at_once);
    tcase_add_test(tc, sampled_functions_have_their_group);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(conv_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
