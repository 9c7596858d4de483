/*
 * test_model_analysis.c — Check suite for the wait analysis's building
 * blocks (lib/model/tally, syncpt, analysis): the sums by key, the table
 * of function classes, the canonical order of records, and the analysis
 * fed record by record with what no trace of the integration tests holds:
 * a receive read before its send, a collective a member never finishes,
 * records out of order, two streams numbering one call path differently,
 * the critical path's pieces; and the extractor and the analysis together
 * on messages outside any MPI call.  Expected values are worked out next to the
 * records.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/analysis.h"
#include "model/syncpt.h"
#include "model/tally.h"

/* ------------------------------------------------------------ tally */

START_TEST(tally_sums)
{
    struct vftr_tally a = VFTR_TALLY_INIT, b = VFTR_TALLY_INIT;
    const struct vftr_tally_slot *s;
    size_t pos = 0;
    int64_t sum = 0;

    for (uint64_t k = 0; k < 100; k++)
        ck_assert_int_eq(vftr_tally_add_i(&a, k * 977, (int64_t)k), 0);
    ck_assert_int_eq(vftr_tally_add_i(&a, 5 * 977, 1000), 0);
    ck_assert_int_eq(vftr_tally_get_i(&a, 5 * 977), 1005);
    ck_assert_int_eq(vftr_tally_get_i(&a, 3), 0);
    ck_assert_uint_eq(a.used, 100);
    while ((s = vftr_tally_next(&a, &pos)))
        sum += s->v.i;
    ck_assert_int_eq(sum, 99 * 100 / 2 + 1000);
    ck_assert_int_eq(vftr_tally_add_i(&a, VFTR_TALLY_NOKEY, 1), -EINVAL);
    /* the small one absorbs the large one: swapped, sums per key kept */
    ck_assert_int_eq(vftr_tally_add_i(&b, 5 * 977, 1), 0);
    ck_assert_int_eq(vftr_tally_add_i(&b, 7, 2), 0);
    ck_assert_int_eq(vftr_tally_absorb_i(&b, &a), 0);
    ck_assert_uint_eq(a.used, 0);
    ck_assert_uint_eq(b.used, 101);
    ck_assert_int_eq(vftr_tally_get_i(&b, 5 * 977), 1006);
    ck_assert_int_eq(vftr_tally_get_i(&b, 7), 2);
    ck_assert_int_eq(vftr_tally_set_i(&b, 7, -4), 0);
    ck_assert_int_eq(vftr_tally_get_i(&b, 7), -4);
    ck_assert_int_eq(vftr_tally_add_d(&a, 1, 0.25), 0);
    vftr_tally_clear(&b);
    ck_assert_int_eq(vftr_tally_add_d(&b, 1, 0.5), 0);
    ck_assert_int_eq(vftr_tally_merge_d(&b, &a, 2.0), 0);       /* 0.5 + 2 * 0.25 */
    ck_assert(vftr_tally_get_d(&b, 1) == 1.0);
    vftr_tally_release(&a);
    vftr_tally_release(&b);
}
END_TEST

/* ------------------------------------------------------------ classes */

START_TEST(function_classes)
{
    static const struct { const char *name; enum vftr_sync_fclass c; } t[] = {
        { "MPI_Send", VFTR_SYNC_F_MPI_SEND }, { "MPI_Ssend", VFTR_SYNC_F_MPI_SSEND },
        { "MPI_Rsend", VFTR_SYNC_F_MPI_XSEND }, { "MPI_Recv", VFTR_SYNC_F_MPI_RECV },
        { "MPI_Sendrecv_replace", VFTR_SYNC_F_MPI_SENDRECV },
        { "MPI_Waitall", VFTR_SYNC_F_MPI_WAIT }, { "MPI_Testsome", VFTR_SYNC_F_MPI_TEST },
        { "MPI_Allreduce", VFTR_SYNC_F_MPI_COLL }, { "MPI_Iallreduce", VFTR_SYNC_F_MPI_ICOLL },
        { "MPI_Barrier", VFTR_SYNC_F_MPI_COLL }, { "MPI_Init_thread", VFTR_SYNC_F_MPI_INIT },
        { "MPI_Finalize", VFTR_SYNC_F_MPI_FINALIZE }, { "MPI_Comm_rank", VFTR_SYNC_F_MPI },
        { "omp barrier @a.c:3", VFTR_SYNC_F_OMP_BARRIER },
        { "omp barrier (explicit) @a.c:3", VFTR_SYNC_F_OMP_EBARRIER },
        { "omp barrier", VFTR_SYNC_F_OMP_BARRIER },
        { "omp critical wait", VFTR_SYNC_F_OMP_CRITICAL_WAIT },
        { "omp critical @x.c:9", VFTR_SYNC_F_OMP_CRITICAL },
        { "omp lock wait @omp_set_lock", VFTR_SYNC_F_OMP_LOCK_WAIT },
        { "omp implicit task @h.c:1", VFTR_SYNC_F_OMP_ITASK },
        { "omp parallel", VFTR_SYNC_F_OMP_PARALLEL }, { "omp loop @h.c:2", VFTR_SYNC_F_OMP },
        { "omp idle", VFTR_SYNC_F_OMP_IDLE }, { "omp idler", VFTR_SYNC_F_OMP },
        { "omp barrierx", VFTR_SYNC_F_OMP }, { "main", VFTR_SYNC_F_NONE },
        { "!$omp barrier @a.f:1", VFTR_SYNC_F_NONE }, { "mpi_send_", VFTR_SYNC_F_NONE },
    };

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        ck_assert_msg(vftr_sync_fclass_of_name(t[i].name) == t[i].c, "%s: %d, not %d",
                      t[i].name, vftr_sync_fclass_of_name(t[i].name), t[i].c);
    ck_assert_int_eq(vftr_sync_oclass_of_name("MPI_Bcast"), VFTR_SYNC_O_1TON);
    ck_assert_int_eq(vftr_sync_oclass_of_name("Allreduce"), VFTR_SYNC_O_NXN);
    ck_assert_int_eq(vftr_sync_oclass_of_name("mpi_gatherv"), VFTR_SYNC_O_NTO1);
    ck_assert_int_eq(vftr_sync_oclass_of_name("MPI_Alltoallv"), VFTR_SYNC_O_OTHER);
    ck_assert_int_eq(vftr_sync_oclass_of_name("MPI_Exscan"), VFTR_SYNC_O_SCAN);
    ck_assert_int_eq(vftr_sync_oclass_of_name("MPI_Barrier"), VFTR_SYNC_O_BARRIER);
    ck_assert_int_eq(vftr_sync_oclass_of_name("Reduce_scatter_block"), VFTR_SYNC_O_NXN);
}
END_TEST

/* ------------------------------------------------------------ sorter */

struct got {
    struct vftr_syncrec r[16];
    size_t n;
};

static int keep(void *arg, const struct vftr_syncrec *r)
{
    struct got *g = arg;

    ck_assert_uint_lt(g->n, 16);
    g->r[g->n++] = *r;
    return 0;
}

START_TEST(canonical_order)
{
    struct got g = { .n = 0 };
    struct vftr_syncsort *s = vftr_syncsort_new(keep, &g);
    const struct vftr_syncseg seg = { 4, 7 };
    struct vftr_syncrec r = { .time = 5 };

    ck_assert_ptr_nonnull(s);
    /* time 5: process 3, 1 (seq 1), 2, 1 (seq 0: before its seq 1) */
    r.process = 3, r.seq = 0;
    ck_assert_int_eq(vftr_syncsort_push(s, &r), 0);
    r.process = 1, r.seq = 1, r.seg = &seg, r.nseg = 1;
    ck_assert_int_eq(vftr_syncsort_push(s, &r), 0);
    r.process = 2, r.seq = 0, r.seg = NULL, r.nseg = 0;
    ck_assert_int_eq(vftr_syncsort_push(s, &r), 0);
    r.process = 1, r.seq = 0;
    ck_assert_int_eq(vftr_syncsort_push(s, &r), 0);
    ck_assert_uint_eq(g.n, 0);                      /* held: the time has not moved */
    r.time = 6, r.process = 1, r.seq = 2;
    ck_assert_int_eq(vftr_syncsort_push(s, &r), 0);
    ck_assert_uint_eq(g.n, 4);
    ck_assert_int_eq(vftr_syncsort_flush(s), 0);
    ck_assert_uint_eq(g.n, 5);
    ck_assert(g.r[0].process == 1 && g.r[0].seq == 0);
    ck_assert(g.r[1].process == 1 && g.r[1].seq == 1 && g.r[1].nseg == 1);
    ck_assert(g.r[1].seg[0].path == 4 && g.r[1].seg[0].ticks == 7);
    ck_assert(g.r[2].process == 2 && g.r[3].process == 3 && g.r[4].time == 6);
    for (size_t i = 1; i < g.n; i++)
        ck_assert_int_lt(vftr_syncrec_cmp(&g.r[i - 1], &g.r[i]), 0);
    vftr_syncsort_free(s);
}
END_TEST

/* ------------------------------------------------------------ the analysis */

/* Paths of a stream: local id -> (parent, function).  Stream 0: 1 main,
 * 2 main/MPI_Recv, 3 main/MPI_Send; stream 1 numbers them 1 main,
 * 2 main/MPI_Send, 3 main/MPI_Recv. */
static const uint32_t defs0[4][2] = { { 0, 0 }, { 0, 1 }, { 1, 2 }, { 1, 3 } };
static const uint32_t defs1[4][2] = { { 0, 0 }, { 0, 1 }, { 1, 3 }, { 1, 2 } };

static int pathdef(void *arg, uint32_t local, uint32_t *parent, uint32_t *function)
{
    const uint32_t (*d)[2] = arg;

    if (local == 0 || local > 3)
        return -ENOENT;
    *parent = d[local][0];
    *function = d[local][1];
    return 0;
}

/* functions 1 main, 2 MPI_Recv, 3 MPI_Send, 4 MPI_Barrier; processes 1, 2
 * (ranks); communicator 1 = {1, 2}; collective op 1 = MPI_Barrier */
static struct vftr_analysis *two_ranks(const struct vftr_analysis_opts *o, int streams)
{
    struct vftr_syncdefs d = VFTR_SYNCDEFS_INIT;
    const uint32_t world[2] = { 1, 2 };
    struct vftr_analysis *a;

    ck_assert_int_eq(vftr_syncdefs_add_func(&d, 1, "main"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_func(&d, 2, "MPI_Recv"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_func(&d, 3, "MPI_Send"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_func(&d, 4, "MPI_Barrier"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_collop(&d, 1, "MPI_Barrier"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_proc(&d, 1, 1, 0, 0), 0);
    ck_assert_int_eq(vftr_syncdefs_add_proc(&d, 2, 2, 1, 0), 0);
    ck_assert_int_eq(vftr_syncdefs_add_comm(&d, 1, 2, world), 0);
    a = vftr_analysis_new(&d, o);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(d.nprocs, 0);                  /* taken over */
    ck_assert_int_eq(vftr_analysis_add_stream(a, 0, pathdef, (void *)defs0), 0);
    if (streams > 1)
        ck_assert_int_eq(vftr_analysis_add_stream(a, 1, pathdef, (void *)defs1), 0);
    ck_assert_int_eq(vftr_analysis_add_stream(a, 0, pathdef, (void *)defs0), -EINVAL);
    return a;
}

static uint64_t seqs[3];

static int feed(struct vftr_analysis *a, uint16_t stream, uint64_t time, uint32_t process,
                uint16_t kind, uint32_t function, uint32_t path, uint64_t enter, uint64_t t2,
                uint32_t peer)
{
    struct vftr_syncrec r = { .time = time, .seq = seqs[process]++, .process = process,
                              .kind = kind, .stream = stream, .function = function,
                              .path = path, .enter = enter, .t2 = t2, .top = path,
                              .peer = peer, .comm = 1, .tag = 1, .bytes = 8, .op = 1,
                              .match = 1 };
    return vftr_analysis_feed(a, &r);
}

#define FEED(...) ck_assert_int_eq(feed(__VA_ARGS__), 0)

struct waits {
    struct vftr_wait_instance w[8];
    size_t n;
};

static void on_wait(void *arg, const struct vftr_wait_instance *w)
{
    struct waits *l = arg;

    ck_assert_uint_lt(l->n, 8);
    l->w[l->n++] = *w;
}

/* Process 2 receives (MPI_Recv 100..310, the receive at 300) a message
 * whose send (process 1, MPI_Send at 400) is read after it: the receive
 * waited all of 100..300 (its send came later), 200 ticks, process 1 its
 * cause; the receive is counted as early. */
START_TEST(receive_before_its_send)
{
    struct waits l = { .n = 0 };
    struct vftr_analysis_opts o = { 0, UINT64_MAX, VFTR_ANALYSIS_WAITS, 0, on_wait, &l };
    struct vftr_analysis *a;
    size_t n;
    const struct vftr_wait_row *w;

    memset(seqs, 0, sizeof seqs);
    a = two_ranks(&o, 1);
    FEED(a, 0, 0, 1, VFTR_SYNC_PROC_BEGIN, 0, 0, 0, 0, 0);
    FEED(a, 0, 0, 2, VFTR_SYNC_PROC_BEGIN, 0, 0, 0, 0, 0);
    FEED(a, 0, 100, 2, VFTR_SYNC_CALL_BEGIN, 2, 2, 100, 100, 0);
    FEED(a, 0, 300, 2, VFTR_SYNC_RECV, 2, 2, 100, 300, 1);
    FEED(a, 0, 310, 2, VFTR_SYNC_CALL_END, 2, 2, 100, 310, 0);
    FEED(a, 0, 400, 1, VFTR_SYNC_SEND, 3, 3, 400, 400, 2);
    FEED(a, 0, 410, 1, VFTR_SYNC_CALL_END, 3, 3, 400, 410, 0);
    /* out of order: refused */
    ck_assert_int_eq(feed(a, 0, 405, 2, VFTR_SYNC_PROC_END, 0, 0, 0, 1000, 0), -EINVAL);
    ck_assert_str_eq(vftr_analysis_why(a), "sync records out of order: process 2 at tick 405 "
                     "(its record 4) after process 1 at tick 410 (its record 2)");
    /* an unknown stream: refused */
    ck_assert_int_eq(feed(a, 7, 500, 2, VFTR_SYNC_CALL_BEGIN, 2, 2, 500, 500, 0), -EINVAL);
    ck_assert_str_eq(vftr_analysis_why(a), "a call path its stream does not define: process 2 "
                     "at tick 500 (kind 2, stream 7, path 2)");
    FEED(a, 0, 1000, 1, VFTR_SYNC_PROC_END, 0, 1, 0, 1000, 0);
    FEED(a, 0, 1000, 2, VFTR_SYNC_PROC_END, 0, 1, 0, 1000, 0);
    ck_assert_int_eq(vftr_analysis_finish(a), 0);
    ck_assert_int_eq(vftr_analysis_finish(a), -EINVAL);
    w = vftr_analysis_waits(a, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert(w[0].pattern == VFTR_WAIT_LATE_SENDER && w[0].process == 2 && w[0].time == 200 &&
              w[0].count == 1 && w[0].max == 200);
    ck_assert_uint_eq(vftr_analysis_summary(a)->early_recvs, 1);
    ck_assert_uint_eq(vftr_analysis_summary(a)->unmatched_sends, 0);
    ck_assert_uint_eq(vftr_analysis_summary(a)->unmatched_recvs, 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert(l.w[0].pattern == VFTR_WAIT_LATE_SENDER && l.w[0].process == 2 &&
              l.w[0].start == 100 && l.w[0].end == 300 && l.w[0].cause == 1);
    vftr_analysis_free(a);
}
END_TEST

/* A barrier process 2 never ends (its trace is cut): no wait of it is
 * known, the instance is counted incomplete; process 1's ended barrier
 * waits for process 2's enter (200 - 100). */
START_TEST(collective_never_finished)
{
    struct vftr_analysis_opts o = { 0, UINT64_MAX, VFTR_ANALYSIS_WAITS, 0, NULL, NULL };
    struct vftr_analysis *a;
    size_t n;
    const struct vftr_wait_row *w;

    memset(seqs, 0, sizeof seqs);
    a = two_ranks(&o, 1);
    FEED(a, 0, 0, 1, VFTR_SYNC_PROC_BEGIN, 0, 0, 0, 0, 0);
    FEED(a, 0, 0, 2, VFTR_SYNC_PROC_BEGIN, 0, 0, 0, 0, 0);
    FEED(a, 0, 100, 1, VFTR_SYNC_COLL_BEGIN, 4, 3, 100, 100, 0);
    FEED(a, 0, 200, 2, VFTR_SYNC_COLL_BEGIN, 4, 3, 200, 200, 0);
    FEED(a, 0, 250, 1, VFTR_SYNC_COLL_END, 4, 3, 100, 250, 0);
    FEED(a, 0, 300, 1, VFTR_SYNC_PROC_END, 0, 1, 0, 300, 0);
    FEED(a, 0, 300, 2, VFTR_SYNC_PROC_END, 0, 1, 0, 300, 0);
    ck_assert_int_eq(vftr_analysis_finish(a), 0);
    w = vftr_analysis_waits(a, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert(w[0].pattern == VFTR_WAIT_BARRIER && w[0].process == 1 && w[0].time == 100);
    ck_assert_uint_eq(vftr_analysis_summary(a)->incomplete_colls, 1);
    vftr_analysis_free(a);
}
END_TEST

/*
 * Two streams (one per process) that number main/MPI_Recv 2 and 3: the
 * analysis gives them one path.  Process 1 sends at 500 (MPI_Send entered
 * at 500, stream 1's path 2); process 2 waits in MPI_Recv 100..520 (stream
 * 0's path 2): Late Sender 400.  The critical path with its pieces: ends on
 * process 2 at 1000 (process 1 ends at 900); back to 500 on process 2,
 * then process 1 [0, 500).
 */
START_TEST(two_streams_and_pieces)
{
    struct vftr_analysis_opts o = { 0, UINT64_MAX,
                                    VFTR_ANALYSIS_CRITPATH | VFTR_ANALYSIS_SEGMENTS, 0, NULL,
                                    NULL };
    struct vftr_analysis *a;
    size_t n, np;
    const struct vftr_wait_row *w;
    const struct vftr_cp_segment *sg;
    const struct vftr_analysis_path *p;
    const struct vftr_analysis_summary *s;

    memset(seqs, 0, sizeof seqs);
    a = two_ranks(&o, 2);
    FEED(a, 1, 0, 1, VFTR_SYNC_PROC_BEGIN, 0, 0, 0, 0, 0);
    FEED(a, 0, 0, 2, VFTR_SYNC_PROC_BEGIN, 0, 0, 0, 0, 0);
    FEED(a, 0, 100, 2, VFTR_SYNC_CALL_BEGIN, 2, 2, 100, 100, 0);
    FEED(a, 1, 500, 1, VFTR_SYNC_SEND, 3, 2, 500, 500, 2);
    FEED(a, 0, 520, 2, VFTR_SYNC_RECV, 2, 2, 100, 520, 1);
    FEED(a, 0, 520, 2, VFTR_SYNC_CALL_END, 2, 2, 100, 520, 0);
    FEED(a, 1, 900, 1, VFTR_SYNC_PROC_END, 0, 1, 0, 900, 0);
    FEED(a, 0, 1000, 2, VFTR_SYNC_PROC_END, 0, 1, 0, 1000, 0);
    ck_assert_int_eq(vftr_analysis_finish(a), 0);
    w = vftr_analysis_waits(a, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert(w[0].pattern == VFTR_WAIT_LATE_SENDER && w[0].time == 400);
    p = vftr_analysis_paths(a, &np);
    ck_assert_uint_ge(np, 3);
    ck_assert(p[w[0].path - 1].function == 2 && p[p[w[0].path - 1].parent - 1].function == 1);
    /* process 1's MPI_Send and process 2's MPI_Recv: two distinct paths */
    s = vftr_analysis_summary(a);
    ck_assert_uint_eq(s->cp_end_process, 2);
    ck_assert_uint_eq(s->cp_end, 1000);
    ck_assert_uint_eq(s->cp_start, 0);
    sg = vftr_analysis_segments(a, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert(sg[0].process == 1 && sg[0].start == 0 && sg[0].end == 500);
    ck_assert(sg[1].process == 2 && sg[1].start == 500 && sg[1].end == 1000);
    vftr_analysis_free(a);
}
END_TEST

/*
 * Events through the extractor, the sorter and the analysis, as
 * analysis_run.c joins them, with messages outside any MPI call (OTF
 * allows them anywhere).  Processes 1, 2 (ranks 0, 1) and 3 (a thread of
 * rank 0 that is no OpenMP worker); functions 1 main, 2 MPI_Recv, 5 work:
 *   0    1, 2 enter main
 *   100  2 enters MPI_Recv
 *   200  1 sends to 2 in main (held: its call could be entered at 200)
 *   250  3 enters work (its first record: after the send's)
 *   260  3 leaves work
 *   300  2 receives it in MPI_Recv; 310 leaves it
 *   400  1 sends to 2 in main; 450 2 receives it in main
 *   500  1 leaves main (2's receive at 450 goes first)
 * Process 2's MPI_Recv waits 100..200 for the send (its own time: there
 * is no call to wait in): Late Sender 100; the receive outside a call
 * waits for nothing; process 3 is not idle; every message matched.
 */
static int x_enter(const struct vftr_window_handler *h, uint64_t t, uint32_t p, uint32_t f)
{
    return h->enter(h->arg, t, p, f);
}

static int x_leave(const struct vftr_window_handler *h, uint64_t t, uint32_t p, uint32_t f)
{
    return h->leave(h->arg, t, p, f);
}

START_TEST(messages_outside_calls)
{
    struct vftr_syncdefs d = VFTR_SYNCDEFS_INIT;
    struct vftr_analysis_opts o = { 0, UINT64_MAX, VFTR_ANALYSIS_WAITS | VFTR_ANALYSIS_CRITPATH,
                                    0, NULL, NULL };
    struct vftr_analysis *a;
    struct vftr_syncsort *sort;
    struct vftr_syncx *x;
    const struct vftr_window_handler *h;
    const struct vftr_wait_row *w;
    const struct vftr_analysis_summary *sum;
    size_t n;

    ck_assert_int_eq(vftr_syncdefs_add_func(&d, 1, "main"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_func(&d, 2, "MPI_Recv"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_func(&d, 5, "work"), 0);
    ck_assert_int_eq(vftr_syncdefs_add_proc(&d, 1, 1, 0, 0), 0);
    ck_assert_int_eq(vftr_syncdefs_add_proc(&d, 2, 2, 1, 0), 0);
    ck_assert_int_eq(vftr_syncdefs_add_proc(&d, 3, 1, 0, 1), 0);
    a = vftr_analysis_new(&d, &o);
    ck_assert_ptr_nonnull(a);
    sort = vftr_syncsort_new(vftr_analysis_feed, a);
    ck_assert_ptr_nonnull(sort);
    struct vftr_syncx_opts xo = { 0, UINT64_MAX, 1, 0, 0, vftr_syncsort_push, sort };
    x = vftr_syncx_new(vftr_analysis_defs(a), &xo);
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(vftr_analysis_add_stream(a, 0, vftr_syncx_pathdef, x), 0);
    h = vftr_syncx_handler(x);
    ck_assert_int_eq(x_enter(h, 0, 1, 1), 0);
    ck_assert_int_eq(x_enter(h, 0, 2, 1), 0);
    ck_assert_int_eq(x_enter(h, 100, 2, 2), 0);
    ck_assert_int_eq(h->send(h->arg, 200, 1, 2, 0, 7, 8), 0);
    ck_assert_int_eq(x_enter(h, 250, 3, 5), 0);
    ck_assert_int_eq(x_leave(h, 260, 3, 5), 0);
    ck_assert_int_eq(h->recv(h->arg, 300, 2, 1, 0, 7, 8), 0);
    ck_assert_int_eq(x_leave(h, 310, 2, 2), 0);
    ck_assert_int_eq(h->send(h->arg, 400, 1, 2, 0, 8, 8), 0);
    ck_assert_int_eq(h->recv(h->arg, 450, 2, 1, 0, 8, 8), 0);
    ck_assert_int_eq(x_leave(h, 500, 1, 1), 0);
    ck_assert_int_eq(vftr_syncx_finish(x), 0);
    ck_assert_int_eq(vftr_syncsort_flush(sort), 0);
    ck_assert_int_eq(vftr_analysis_finish(a), 0);
    w = vftr_analysis_waits(a, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert(w[0].pattern == VFTR_WAIT_LATE_SENDER && w[0].process == 2 && w[0].time == 100);
    sum = vftr_analysis_summary(a);
    ck_assert_uint_eq(sum->unmatched_sends, 0);
    ck_assert_uint_eq(sum->unmatched_recvs, 0);
    ck_assert_uint_eq(sum->early_recvs, 0);
    /* the critical path: process 1 ends last and never waited */
    ck_assert_uint_eq(sum->cp_end_process, 1);
    ck_assert_uint_eq(sum->cp_end, 500);
    ck_assert_uint_eq(sum->cp_length, 500);
    vftr_syncx_free(x);
    vftr_syncsort_free(sort);
    vftr_analysis_free(a);
}
END_TEST

static Suite *analysis_suite(void)
{
    Suite *s = suite_create("model_analysis");
    TCase *tc = tcase_create("analysis");

    tcase_add_test(tc, tally_sums);
    tcase_add_test(tc, function_classes);
    tcase_add_test(tc, canonical_order);
    tcase_add_test(tc, receive_before_its_send);
    tcase_add_test(tc, collective_never_finished);
    tcase_add_test(tc, two_streams_and_pieces);
    tcase_add_test(tc, messages_outside_calls);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(analysis_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
