/*
 * test_snap.c — Check suite for lib/model/snapshot (the snapshot and
 * summary engine behind vftr-snap).  Every expected value is worked out by
 * hand in the comment above its test; the sink records every record so
 * the tests see values, break times and the order of emission.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/snapshot.h"

#define MAXR 256

struct log {
    struct vftr_snaprec r[MAXR];
    size_t n;
    int fail_at;             /* return -EIO on this record (1-based), 0 never */
};

static int on_record(void *arg, const struct vftr_snaprec *r)
{
    struct log *l = arg;
    ck_assert_uint_lt(l->n, MAXR);
    l->r[l->n++] = *r;
    if (l->fail_at && (int)l->n == l->fail_at)
        return -EIO;
    return 0;
}

static struct vftr_snap *engine(struct log *l, unsigned flags, const uint64_t *breaks, size_t n,
                                uint64_t limit)
{
    memset(l, 0, sizeof *l);
    struct vftr_snap_config cfg = { flags, breaks, n, limit, NULL, 0, on_record, l, NULL, 0 };
    struct vftr_snap *s = vftr_snap_new(&cfg);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* The record of a kind at a break for a process and id; fails if absent. */
static const struct vftr_snaprec *find(const struct log *l, enum vftr_snaprec_kind kind, uint64_t t,
                                       uint32_t process, uint32_t id)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->r[i].kind == kind && l->r[i].time == t && l->r[i].process == process && l->r[i].id == id)
            return &l->r[i];
    ck_abort_msg("no record of kind %d at %llu for process %u id %u", (int)kind, (unsigned long long)t,
                 process, id);
    return NULL;
}

static size_t count(const struct log *l, enum vftr_snaprec_kind kind, uint64_t t)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->r[i].kind == kind && l->r[i].time == t;
    return n;
}

static void expect_func(const struct log *l, uint64_t t, uint32_t p, uint32_t f, uint64_t calls,
                        uint64_t excl, uint64_t incl)
{
    const struct vftr_snaprec *r = find(l, VFTR_SNAPREC_FUNCTION, t, p, f);
    ck_assert_msg(r->v[0] == calls && r->v[1] == excl && r->v[2] == incl,
                  "f%u at %llu: calls %llu excl %llu incl %llu, expected %llu %llu %llu", f,
                  (unsigned long long)t, (unsigned long long)r->v[0], (unsigned long long)r->v[1],
                  (unsigned long long)r->v[2], (unsigned long long)calls, (unsigned long long)excl,
                  (unsigned long long)incl);
}

#define OK(x) ck_assert_int_eq((x), 0)

/*
 * P1: f1 0..60 { f2 10..40 { f2 20..30 } f3 50..55 }, breaks 25, 45, 100
 * (snapshots before 100 only).
 *   25: stack f1@0 f2@10 f2@20.  f1: 1 call, excl 0..10 = 10, incl 25.
 *       f2: 2 calls, excl 10..20 + 20..25 = 15, incl (25-10) + (25-20) = 20
 *       (the nested call counts again, as otfaux counts it).
 *   45: stack f1@0.  f1 excl 10 + 40..45 = 15, incl 45.  f2 excl 10..40
 *       = 30, incl 30 + 10 = 40.
 *  100: f1 excl 0..10 + 40..50 + 55..60 = 25, incl 60; f3 1 call, 5, 5.
 */
START_TEST(recursion_and_open_calls)
{
    static const uint64_t breaks[] = { 25, 45, 100 };
    struct log l;
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES, breaks, 3, 100);
    OK(vftr_snap_enter(s, 0, 1, 1));
    OK(vftr_snap_enter(s, 10, 1, 2));
    OK(vftr_snap_enter(s, 20, 1, 2));
    OK(vftr_snap_leave(s, 30, 1, 2));
    OK(vftr_snap_leave(s, 40, 1, 2));
    OK(vftr_snap_enter(s, 50, 1, 3));
    OK(vftr_snap_leave(s, 55, 1, 3));
    OK(vftr_snap_leave(s, 60, 1, 1));
    OK(vftr_snap_finish(s));

    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 25), 3);
    ck_assert_uint_eq(find(&l, VFTR_SNAPREC_ENTER, 25, 1, 1)->orig, 0);
    expect_func(&l, 25, 1, 1, 1, 10, 25);
    expect_func(&l, 25, 1, 2, 2, 15, 20);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 45), 1);
    expect_func(&l, 45, 1, 1, 1, 15, 45);
    expect_func(&l, 45, 1, 2, 2, 30, 40);
    expect_func(&l, 100, 1, 1, 1, 25, 60);
    expect_func(&l, 100, 1, 3, 1, 5, 5);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 100), 0);
    ck_assert_int_eq(vftr_snap_enter(s, 200, 1, 1), -EINVAL);
    vftr_snap_free(s);
}
END_TEST

/*
 * Equal time stamps: f1 and f2 entered at 10, f2 left at 10.  A break at
 * 10 sees none of it (events at the break are after it); at 11 f1 is open
 * (1 call, 1 tick) and f2 counts one call of zero time.  Two processes
 * interleave; P2's deep stack (f1..f6 entered at 1..6) is there in full.
 */
START_TEST(equal_stamps_and_deep_stacks)
{
    static const uint64_t breaks[] = { 10, 11 };
    struct log l;
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES, breaks, 2, UINT64_MAX);
    for (uint32_t f = 1; f <= 6; f++)
        OK(vftr_snap_enter(s, f, 2, f));
    OK(vftr_snap_enter(s, 10, 1, 1));
    OK(vftr_snap_enter(s, 10, 1, 2));
    OK(vftr_snap_leave(s, 10, 1, 2));
    OK(vftr_snap_finish(s));
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 10), 6);
    ck_assert_uint_eq(find(&l, VFTR_SNAPREC_ENTER, 10, 2, 6)->orig, 6);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_FUNCTION, 10), 6);
    expect_func(&l, 11, 1, 1, 1, 1, 1);
    expect_func(&l, 11, 1, 2, 1, 0, 0);
    /* P2: f6 on top since 6: excl 5 at 11, incl 5; f1 incl 10, excl 1 */
    expect_func(&l, 11, 2, 6, 1, 5, 5);
    expect_func(&l, 11, 2, 1, 1, 1, 10);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 11), 7);
    vftr_snap_free(s);
}
END_TEST

/*
 * Messages: 1->2 sent at 5 (100 B, comm 3, tag 4) and received at 20;
 * 1->3 sent at 6, never received; 2->1 received at 7 before its send at 8
 * (a merged stream may do that).  Break 10: the snapshot lists 1->2 only,
 * and it is held back until the feed ends (1->3 might still be received)
 * — the summary of break 10 is out at once.  Summaries aggregate per process: P1 sent 2 (300 B),
 * received 1 (7 B) ... at 10.
 */
START_TEST(messages_held_back)
{
    static const uint64_t breaks[] = { 10, 30 };
    struct log l;
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES, breaks, 2, UINT64_MAX);
    OK(vftr_snap_send(s, 5, 1, 2, 3, 4, 100));
    OK(vftr_snap_send(s, 6, 1, 3, 3, 0, 200));
    OK(vftr_snap_recv(s, 7, 1, 2, 3, 9, 7));
    OK(vftr_snap_send(s, 8, 2, 1, 3, 9, 7));
    OK(vftr_snap_enter(s, 9, 2, 1));
    /* the summary of 10 is out, its snapshot is not */
    OK(vftr_snap_enter(s, 15, 1, 1));
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_MESSAGE, 10), 2);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 10), 0);
    const struct vftr_snaprec *m = find(&l, VFTR_SNAPREC_MESSAGE, 10, 1, 0);
    ck_assert(m->v[0] == 2 && m->v[1] == 1 && m->v[2] == 300 && m->v[3] == 7);
    OK(vftr_snap_recv(s, 20, 2, 1, 3, 4, 100));
    /* still waiting: whether 1->3 will be received is not known yet */
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 10), 0);
    OK(vftr_snap_finish(s));
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 10), 1);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_SEND, 10), 1);
    const struct vftr_snaprec *sd = find(&l, VFTR_SNAPREC_SEND, 10, 1, 2);
    ck_assert(sd->orig == 5 && sd->a == 3 && sd->b == 4 && sd->v[0] == 100);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_SEND, 30), 0);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 30), 2);
    ck_assert_uint_eq(vftr_snap_unreceived(s), 1);
    vftr_snap_free(s);
}
END_TEST

/*
 * A send in flight over several breaks is in each of their snapshots; the
 * blocks leave in break order once it is received.
 */
START_TEST(send_over_many_breaks)
{
    static const uint64_t breaks[] = { 10, 20, 30, 40 };
    struct log l;
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SNAPSHOTS, breaks, 4, UINT64_MAX);
    OK(vftr_snap_send(s, 5, 1, 2, 0, 0, 1));
    OK(vftr_snap_send(s, 15, 2, 1, 0, 0, 2));
    OK(vftr_snap_recv(s, 25, 1, 2, 0, 0, 2));
    ck_assert_uint_eq(l.n, 0);
    OK(vftr_snap_recv(s, 35, 2, 1, 0, 0, 1));
    ck_assert_uint_eq(l.n, 4);   /* 10: 1, 20: 2, 30: 1; 40 not yet */
    OK(vftr_snap_finish(s));
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_SEND, 10), 1);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_SEND, 20), 2);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_SEND, 30), 1);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_SEND, 40), 0);
    for (size_t i = 1; i < l.n; i++)
        ck_assert_uint_le(l.r[i - 1].time, l.r[i].time);
    vftr_snap_free(s);
}
END_TEST

/*
 * Collectives (op 1 barrier, 2 one-to-all, 3 all-to-one, 4 all-to-all,
 * 5 undefined type) by P1 with root 2 except where said; bytes always count:
 *   op1 at 1 (8/0 B): sent 1.  op2 at 2 (0/16): received 1.  op2 at 3 with
 *   root 1: sent 1 received 1.  op3 at 4 (4/0): sent 1.  op4 begun at 5,
 *   ended at 12 (2/2): counts at 12 only.  op5 at 6: neither.
 * Break 10: op4 under way (BeginCollopSnapshot), 5 collectives on comm 7;
 * break 20: op4 counted, 6 collectives.
 */
START_TEST(collectives)
{
    static const uint64_t breaks[] = { 10, 20 };
    struct log l;
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES, breaks, 2, UINT64_MAX);
    for (uint32_t op = 1; op <= 4; op++)
        OK(vftr_snap_def_collop(s, op, op));
    OK(vftr_snap_collop(s, 1, 1, 1, 7, 2, 8, 0));
    OK(vftr_snap_collop(s, 2, 1, 2, 7, 2, 0, 16));
    OK(vftr_snap_collop(s, 3, 1, 2, 7, 1, 0, 16));
    OK(vftr_snap_collop(s, 4, 1, 3, 7, 2, 4, 0));
    OK(vftr_snap_collop_begin(s, 5, 1, 4, 99, 7, 2, 2, 2));
    OK(vftr_snap_collop(s, 6, 1, 5, 7, 2, 1, 1));
    OK(vftr_snap_collop_end(s, 12, 1, 99));
    OK(vftr_snap_finish(s));
    const struct vftr_snaprec *r = find(&l, VFTR_SNAPREC_COLLOP, 10, 1, 1);
    ck_assert(r->a == 0 && r->v[0] == 1 && r->v[1] == 0 && r->v[2] == 8 && r->v[3] == 0);
    r = find(&l, VFTR_SNAPREC_COLLOP, 10, 1, 2);
    ck_assert(r->v[0] == 1 && r->v[1] == 2 && r->v[2] == 0 && r->v[3] == 32);
    r = find(&l, VFTR_SNAPREC_COLLOP, 10, 1, 3);
    ck_assert(r->v[0] == 1 && r->v[1] == 0 && r->v[2] == 4);
    r = find(&l, VFTR_SNAPREC_COLLOP, 10, 1, 5);
    ck_assert(r->v[0] == 0 && r->v[1] == 0 && r->v[2] == 1 && r->v[3] == 1);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_COLLOP, 10), 4);
    r = find(&l, VFTR_SNAPREC_BEGINCOLLOP, 10, 1, 4);
    ck_assert(r->orig == 5 && r->a == 7 && r->b == 2 && r->v[0] == 99 && r->v[1] == 2);
    ck_assert_uint_eq(find(&l, VFTR_SNAPREC_COLLOPCOUNT, 10, 1, 7)->v[0], 5);
    r = find(&l, VFTR_SNAPREC_COLLOP, 20, 1, 4);
    ck_assert(r->v[0] == 1 && r->v[1] == 1 && r->v[2] == 2 && r->v[3] == 2);
    ck_assert_uint_eq(find(&l, VFTR_SNAPREC_COLLOPCOUNT, 20, 1, 7)->v[0], 6);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_BEGINCOLLOP, 20), 0);
    vftr_snap_free(s);
}
END_TEST

/*
 * Files (operations: 0 open, 1 close, 2 read, 3 write, 4 seek; 8 sync
 * counts nothing): P1 opens file 1 as handle 5 at 1, reads 100 B at 2,
 * writes 30 B at 3, seeks at 4, syncs at 5; begins an operation (id 9) at
 * 6 that opens file 2 as handle 6 when it ends at 12; the same handle 5 is
 * opened again at 13 (it replaces the first), closed at 14.  Counter 3 is
 * 40 at 7 and 50 at 8.
 */
START_TEST(files_and_counters)
{
    static const uint64_t breaks[] = { 10, 20 };
    struct log l;
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES | VFTR_SNAP_DETAILED,
                                 breaks, 2, UINT64_MAX);
    OK(vftr_snap_def_file(s, 1, 4));
    OK(vftr_snap_def_file(s, 2, 4));
    OK(vftr_snap_fileop(s, 1, 1, 1, 5, 0, 0));
    OK(vftr_snap_fileop(s, 2, 1, 1, 5, 2, 100));
    OK(vftr_snap_fileop(s, 3, 1, 1, 5, 3, 30));
    OK(vftr_snap_fileop(s, 4, 1, 1, 5, 4, 77));
    OK(vftr_snap_fileop(s, 5, 1, 1, 5, 8, 77));
    OK(vftr_snap_fileop_begin(s, 6, 1, 9));
    OK(vftr_snap_counter(s, 7, 1, 3, 40));
    OK(vftr_snap_counter(s, 8, 1, 3, 50));
    OK(vftr_snap_fileop_end(s, 12, 1, 2, 9, 6, 0, 0));
    OK(vftr_snap_fileop(s, 13, 1, 1, 5, 0, 0));
    OK(vftr_snap_fileop(s, 14, 1, 1, 5, 1, 0));
    OK(vftr_snap_finish(s));
    const struct vftr_snaprec *r = find(&l, VFTR_SNAPREC_FILEOP, 10, 1, 1);
    static const uint64_t at10[7] = { 1, 0, 1, 1, 1, 100, 30 };
    ck_assert_mem_eq(r->v, at10, sizeof at10);
    ck_assert_uint_eq(find(&l, VFTR_SNAPREC_OPENFILE, 10, 1, 1)->orig, 1);
    ck_assert_uint_eq(find(&l, VFTR_SNAPREC_BEGINFILEOP, 10, 1, 0)->v[0], 9);
    r = find(&l, VFTR_SNAPREC_COUNTER, 10, 1, 3);
    ck_assert(r->v[0] == 50 && r->orig == 8);
    /* detailed: file groups beside files */
    r = find(&l, VFTR_SNAPREC_FILEGROUP, 20, 1, 4);
    static const uint64_t g20[7] = { 3, 1, 1, 1, 1, 100, 30 };
    ck_assert_mem_eq(r->v, g20, sizeof g20);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_OPENFILE, 20), 1);
    r = find(&l, VFTR_SNAPREC_OPENFILE, 20, 1, 2);
    ck_assert(r->orig == 12 && r->v[0] == 6);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_BEGINFILEOP, 20), 0);
    vftr_snap_free(s);
}
END_TEST

/*
 * Groups: f1 and f2 in group 7, f3 in group 8.  P1: f1 0..10 { f2 2..4 },
 * f3 10..13.  --funcgroups at 20: group 7: 2 calls, excl 8 + 2 = 10, incl
 * 10 + 2 = 12; group 8: 1, 3, 3; no function records.  Detailed messages
 * are per peer, communicator and tag.
 */
START_TEST(groups_and_detailed_messages)
{
    static const uint64_t breaks[] = { 20 };
    struct log l;
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SUMMARIES | VFTR_SNAP_FUNCGROUPS, breaks, 1, UINT64_MAX);
    OK(vftr_snap_def_function(s, 1, 7));
    OK(vftr_snap_def_function(s, 2, 7));
    OK(vftr_snap_def_function(s, 3, 8));
    OK(vftr_snap_enter(s, 0, 1, 1));
    OK(vftr_snap_enter(s, 2, 1, 2));
    OK(vftr_snap_leave(s, 4, 1, 2));
    OK(vftr_snap_leave(s, 10, 1, 1));
    OK(vftr_snap_enter(s, 10, 1, 3));
    OK(vftr_snap_leave(s, 13, 1, 3));
    OK(vftr_snap_finish(s));
    const struct vftr_snaprec *r = find(&l, VFTR_SNAPREC_FUNCGROUP, 20, 1, 7);
    ck_assert(r->v[0] == 2 && r->v[1] == 10 && r->v[2] == 12);
    r = find(&l, VFTR_SNAPREC_FUNCGROUP, 20, 1, 8);
    ck_assert(r->v[0] == 1 && r->v[1] == 3 && r->v[2] == 3);
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_FUNCTION, 20), 0);
    vftr_snap_free(s);

    s = engine(&l, VFTR_SNAP_SUMMARIES | VFTR_SNAP_DETAILED, breaks, 1, UINT64_MAX);
    OK(vftr_snap_send(s, 1, 1, 2, 5, 1, 10));
    OK(vftr_snap_send(s, 2, 1, 2, 5, 2, 20));
    OK(vftr_snap_send(s, 3, 1, 2, 5, 1, 30));
    OK(vftr_snap_send(s, 4, 1, 3, 5, 1, 40));
    OK(vftr_snap_finish(s));
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_MESSAGE, 20), 3);
    for (size_t i = 0; i < l.n; i++)
        if (l.r[i].kind == VFTR_SNAPREC_MESSAGE && l.r[i].id == 2 && l.r[i].b == 1)
            ck_assert(l.r[i].a == 5 && l.r[i].v[0] == 2 && l.r[i].v[2] == 40);
    vftr_snap_free(s);
}
END_TEST

/* Thumbnail: the function on top after the events at each sample time. */
START_TEST(thumbnail)
{
    static const uint64_t samples[] = { 0, 5, 10, 15 };
    struct log l;
    memset(&l, 0, sizeof l);
    struct vftr_snap_config cfg = { VFTR_SNAP_SNAPSHOTS, NULL, 0, UINT64_MAX, samples, 4, on_record,
                                    &l, NULL, 0 };
    struct vftr_snap *s = vftr_snap_new(&cfg);
    ck_assert_ptr_nonnull(s);
    OK(vftr_snap_enter(s, 0, 4, 1));
    OK(vftr_snap_enter(s, 5, 4, 2));
    OK(vftr_snap_enter(s, 7, 9, 3));    /* process 9 appears later */
    OK(vftr_snap_leave(s, 10, 4, 2));
    OK(vftr_snap_leave(s, 12, 4, 1));
    OK(vftr_snap_finish(s));
    size_t n;
    const uint32_t *procs = vftr_snap_thumb_processes(s, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert(procs[0] == 4 && procs[1] == 9);
    const uint32_t *v = vftr_snap_thumb_values(s, 0);
    ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 1 && v[3] == 0);
    v = vftr_snap_thumb_values(s, 1);
    ck_assert(v[0] == 0 && v[1] == 0 && v[2] == 3 && v[3] == 3);
    vftr_snap_free(s);
}
END_TEST

START_TEST(errors)
{
    static const uint64_t unsorted[] = { 5, 3 };
    struct log l;
    memset(&l, 0, sizeof l);
    struct vftr_snap_config cfg = { VFTR_SNAP_SUMMARIES, unsorted, 2, UINT64_MAX, NULL, 0, on_record,
                                    &l, NULL, 0 };
    errno = 0;
    ck_assert_ptr_null(vftr_snap_new(&cfg));
    ck_assert_int_eq(errno, EINVAL);
    cfg.on_record = NULL;
    cfg.nbreaks = 0;
    ck_assert_ptr_null(vftr_snap_new(&cfg));
    vftr_snap_free(NULL);

    /* a sink's error stops the engine and comes back from every call */
    static const uint64_t breaks[] = { 5, 6 };
    struct vftr_snap *s = engine(&l, VFTR_SNAP_SUMMARIES, breaks, 2, UINT64_MAX);
    l.fail_at = 1;
    OK(vftr_snap_enter(s, 1, 1, 1));
    ck_assert_int_eq(vftr_snap_enter(s, 7, 1, 2), -EIO);
    ck_assert_int_eq(vftr_snap_leave(s, 8, 1, 2), -EIO);
    ck_assert_int_eq(vftr_snap_finish(s), -EIO);
    ck_assert_uint_eq(l.n, 1);
    vftr_snap_free(s);

    /* leaves of functions not on the stack are ignored; the stack stays */
    s = engine(&l, VFTR_SNAP_SNAPSHOTS, breaks, 1, UINT64_MAX);
    OK(vftr_snap_leave(s, 1, 1, 1));
    OK(vftr_snap_enter(s, 2, 1, 1));
    OK(vftr_snap_leave(s, 3, 1, 9));
    OK(vftr_snap_finish(s));
    ck_assert_uint_eq(count(&l, VFTR_SNAPREC_ENTER, 5), 1);
    vftr_snap_free(s);
}
END_TEST


/* Break placement (otfaux's rules, snapshot.h), by hand: events span
 * [0, 99], so end = 100 and the range is 100 ticks (1 tick = 1 ns). */
/* A trace of events in [first, last], 1 tick = 1 ns, nothing else known. */
static struct vftr_snap_traceinfo span(uint64_t first, uint64_t last)
{
    struct vftr_snap_traceinfo t;
    memset(&t, 0, sizeof t);
    t.resolution = 1000000000u;
    t.first = first;
    t.last = last;
    return t;
}

START_TEST(break_placement)
{
    uint64_t *b = NULL;
    size_t n = 0;
    char err[256];
    struct vftr_snap_traceinfo t0_99 = span(0, 99), t1000 = span(1000, 2999);
    struct vftr_snap_breakspec four = { 4, NULL, NULL, 0 };
    ck_assert_int_eq(vftr_snap_place_breaks(&four, &t0_99, &b, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 4);        /* 25 50 75 100: the last one is end */
    ck_assert_uint_eq(b[0], 25);
    ck_assert_uint_eq(b[1], 50);
    ck_assert_uint_eq(b[3], 100);
    free(b);
    /* -n 2 -p 30: (100-1)/30 = 3 period breaks beat 2 -> 30 60 90, + end 100;
     * --at 5 and --at 0.04us are 5 and 40 ns after the first event (0) */
    const char *times[] = { "5", "0.04us" };
    struct vftr_snap_breakspec mix = { 2, "30", times, 2 };
    ck_assert_int_eq(vftr_snap_place_breaks(&mix, &t0_99, &b, &n, err, sizeof err), 0);
    uint64_t want[] = { 5, 30, 40, 60, 90, 100 };
    ck_assert_uint_eq(n, 6);
    for (size_t i = 0; i < 6; i++)
        ck_assert_uint_eq(b[i], want[i]);
    free(b);
    /* nothing given: 200 breaks; a bad period is refused with its name */
    struct vftr_snap_breakspec none = { 0, NULL, NULL, 0 };
    ck_assert_int_eq(vftr_snap_place_breaks(&none, &t1000, &b, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 200);      /* step 10: 1010 ... 3000 */
    ck_assert_uint_eq(b[0], 1010);
    ck_assert_uint_eq(b[199], 3000);
    free(b);
    struct vftr_snap_breakspec bad = { 0, "3q", NULL, 0 };
    ck_assert_int_eq(vftr_snap_place_breaks(&bad, &t0_99, &b, &n, err, sizeof err),
                     -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "--period: "));
    /* --at counts from the first event, bare ticks as well as durations
     * (the time syntax of every tool): on [1000, 2999], 5 is 1005 and
     * 0.04us is 1040, next to -n 1's end 3000 */
    struct vftr_snap_breakspec at = { 1, NULL, times, 2 };
    ck_assert_int_eq(vftr_snap_place_breaks(&at, &t1000, &b, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(b[0], 1005);
    ck_assert_uint_eq(b[1], 1040);
    ck_assert_uint_eq(b[2], 3000);
    free(b);
    /* thumbnail samples: min(limit, last - first), equally spaced */
    ck_assert_int_eq(vftr_snap_place_samples(0, 10, 4, &b, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(b[1], 2);     /* 0, 2.5 -> 2, 5, 7.5 -> 7 */
    ck_assert_uint_eq(b[3], 7);
    free(b);
}
END_TEST

/* The bound on breaks (snapshot.h, "Bounds"), by hand.  Events span
 * [0, 99]: 100 ticks from the first to one past the last, so at most 100
 * breaks; with max_times 10 at most 10. */
START_TEST(break_bounds)
{
    uint64_t *b = NULL;
    size_t n = 0;
    char err[512];
    struct vftr_snap_traceinfo t = span(0, 99);
    ck_assert_uint_eq(vftr_snap_max_breaks(&t), 100);

    struct vftr_snap_breakspec n100 = { 100, NULL, NULL, 0 }, n101 = { 101, NULL, NULL, 0 };
    ck_assert_int_eq(vftr_snap_place_breaks(&n100, &t, &b, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 100);      /* one per tick: 1 ... 100 */
    ck_assert_uint_eq(b[0], 1);
    ck_assert_uint_eq(b[99], 100);
    free(b);
    b = NULL;
    ck_assert_int_eq(vftr_snap_place_breaks(&n101, &t, &b, &n, err, sizeof err), -ERANGE);
    ck_assert_ptr_null(b);
    ck_assert_msg(strstr(err, "-n 101") && strstr(err, "at most 100") && strstr(err, "100 ticks"),
                  "%s", err);

    /* -p 1: 99 breaks + the final one = 100; a period under a tick (0.4 ns
     * rounds to 0) is refused naming the tick */
    struct vftr_snap_breakspec p1 = { 0, "1", NULL, 0 }, psub = { 0, "0.4ns", NULL, 0 };
    ck_assert_int_eq(vftr_snap_place_breaks(&p1, &t, &b, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 100);
    free(b);
    ck_assert_int_eq(vftr_snap_place_breaks(&psub, &t, &b, &n, err, sizeof err), -ERANGE);
    ck_assert_msg(strstr(err, "--period 0.4ns") && strstr(err, "one tick") && strstr(err, "1 ns"), "%s",
                  err);

    /* what the tool vouches for bounds it further; -t counts too: -n 10
     * gives 10, 20, ..., 100, and -t 5 makes 11 */
    t.max_times = 10;
    ck_assert_uint_eq(vftr_snap_max_breaks(&t), 10);
    struct vftr_snap_breakspec n10 = { 10, NULL, NULL, 0 }, n11 = { 11, NULL, NULL, 0 };
    ck_assert_int_eq(vftr_snap_place_breaks(&n10, &t, &b, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 10);
    free(b);
    ck_assert_int_eq(vftr_snap_place_breaks(&n11, &t, &b, &n, err, sizeof err), -ERANGE);
    ck_assert_msg(strstr(err, "at most 10 ") && strstr(err, "distinct event times"), "%s", err);
    const char *five[] = { "5" };
    struct vftr_snap_breakspec n10t = { 10, NULL, five, 1 };
    ck_assert_int_eq(vftr_snap_place_breaks(&n10t, &t, &b, &n, err, sizeof err), -ERANGE);
    ck_assert_msg(strstr(err, "11 breaks") && strstr(err, "at most 10 "), "%s", err);

    /* the default (-n 200) is never refused: steps of 0.5 tick fall on
     * the ticks 0 (0.5 rounded down), 1, ..., 100 */
    struct vftr_snap_breakspec none = { 0, NULL, NULL, 0 };
    ck_assert_int_eq(vftr_snap_place_breaks(&none, &t, &b, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 101);
    free(b);

    /* a span wider than the break list may hold: the list's own limit */
    struct vftr_snap_traceinfo wide = span(0, 1000000000000ull);
    struct vftr_snap_breakspec huge = { VFTR_SNAP_MAX_BREAKS + 1ull, NULL, NULL, 0 };
    ck_assert_uint_eq(vftr_snap_max_breaks(&wide), VFTR_SNAP_MAX_BREAKS);
    ck_assert_int_eq(vftr_snap_place_breaks(&huge, &wide, &b, &n, err, sizeof err), -ERANGE);
    ck_assert_msg(strstr(err, "at most 100000000"), "%s", err);
}
END_TEST

/*
 * The size estimate by hand (snapshot.h): 2 processes, 3 functions in 1
 * group, 1 collective operation, breaks 10, 20 and 101 with the last event
 * at 100 (no snapshot at 101).
 *   summaries per process: 3 functions + 1 message + 1 collective = 5;
 *   snapshot per process: min(3, 8) frames + 0 files + 0 counters + 1 = 4;
 *   records 3 x 2 x 5 + 2 x 2 x 4 = 30 + 16 = 46;
 *   bytes 30 x 24 + 16 x 13 = 928, no thumbnail samples.
 * With --funcgroups --filegroups, 2 function groups, 4 files in 2 groups,
 * 1 counter, compressed, 5 samples:
 *   summaries 2 groups + 1 + 1 + 2 file groups = 6; snapshot 3 + 4 + 1 + 1 = 9;
 *   records 3 x 2 x 6 + 2 x 2 x 9 = 36 + 36 = 72, per break 2 x 15 = 30;
 *   bytes 36 x 24 / 2 + 36 x 13 / 2 + 5 x 2 x 3 = 432 + 234 + 30 = 696.
 */
START_TEST(size_estimate)
{
    static const uint64_t breaks[] = { 10, 20, 101 };
    struct vftr_snap_traceinfo t = span(0, 100);
    struct vftr_snap_estimate e;
    t.processes = 2;
    t.functions = 3;
    t.funcgroups = 1;
    t.collops = 1;
    vftr_snap_estimate(&t, VFTR_SNAP_SUMMARIES | VFTR_SNAP_SNAPSHOTS, breaks, 3, 0, &e);
    ck_assert_uint_eq(e.records, 46);
    ck_assert_uint_eq(e.bytes, 928);
    ck_assert_uint_eq(e.per_break, 18);
    t.funcgroups = 2;
    t.files = 4;
    t.filegroups = 2;
    t.counters = 1;
    t.compressed = 1;
    vftr_snap_estimate(&t, VFTR_SNAP_SUMMARIES | VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_FUNCGROUPS |
                       VFTR_SNAP_FILEGROUPS, breaks, 3, 5, &e);
    ck_assert_uint_eq(e.records, 72);
    ck_assert_uint_eq(e.per_break, 30);
    ck_assert_uint_eq(e.bytes, 696);
    /* the limit: 32 x the trace, at least 256 MiB */
    ck_assert_uint_eq(vftr_snap_output_limit(1000), 256ull << 20);
    ck_assert_uint_eq(vftr_snap_output_limit(1ull << 30), 32ull << 30);
}
END_TEST

/*
 * The plan refuses past the limit unless forced.  1000 processes and 1000
 * functions, summaries only: 1001 records per process and break (the
 * functions and one message summary).
 *   -n 1000: 1000 x 1000 x 1001 = 1001000000 records, 24 GB: past 256 MiB;
 *   -n 10: 10010000 records x 24 = 240240000 bytes < 256 MiB = 268435456:
 *   allowed, and the engine may write 268435456 / 13 = 20648881 records.
 */
START_TEST(size_plan)
{
    struct vftr_snap_traceinfo t = span(0, 999999999u);     /* steps of 1e6 and 1e8: exact */
    struct vftr_snap_plan p;
    char err[512];
    t.bytes = 1000;
    t.processes = 1000;
    t.functions = 1000;
    struct vftr_snap_request rq = { { 1000, NULL, NULL, 0 }, VFTR_SNAP_SUMMARIES, 0, 0, NULL };
    ck_assert_int_eq(vftr_snap_plan_make(&rq, &t, &p, err, sizeof err), -EFBIG);
    ck_assert_ptr_null(p.breaks);
    ck_assert_msg(strstr(err, "estimated at 22.4 GiB") && strstr(err, "1000 breaks") &&
                  strstr(err, "1001000 records per break") && strstr(err, "--force"), "%s", err);
    rq.force = 1;
    ck_assert_int_eq(vftr_snap_plan_make(&rq, &t, &p, err, sizeof err), 0);
    ck_assert_uint_eq(p.nbreaks, 1000);
    ck_assert_uint_eq(p.estimate.records, 1001000000u);
    ck_assert_uint_eq(p.max_records, 0);
    vftr_snap_plan_release(&p);
    rq.force = 0;
    rq.breaks.n = 10;
    ck_assert_int_eq(vftr_snap_plan_make(&rq, &t, &p, err, sizeof err), 0);
    ck_assert_uint_eq(p.estimate.bytes, 240240000u);
    ck_assert_uint_eq(p.max_records, 20648881u);
    ck_assert_ptr_null(p.samples);
    vftr_snap_plan_release(&p);
    /* a trace so large that the ratio allows 28 PiB, a billion processes:
     * 1000 x 1e9 x 1001 x 24 bytes = 21.3 PiB, more than any disk has
     * free */
    t.bytes = 1000000000000000ull;
    t.processes = 1000000000u;
    rq.breaks.n = 1000;
    rq.outdir = ".";
    ck_assert_int_eq(vftr_snap_plan_make(&rq, &t, &p, err, sizeof err), -ENOSPC);
    ck_assert_msg(strstr(err, "free in .") && strstr(err, "estimated at 21.3 PiB"), "%s", err);
    /* the bound comes first */
    rq.breaks.n = 1000000001u;
    ck_assert_int_eq(vftr_snap_plan_make(&rq, &t, &p, err, sizeof err), -ERANGE);
}
END_TEST

/* The engine's backstops: max_records stops it with -EFBIG after that many
 * records; a stop flag with -EINTR at the next break. */
START_TEST(engine_stops)
{
    static const uint64_t breaks[] = { 5, 6 };
    struct log l;
    memset(&l, 0, sizeof l);
    struct vftr_snap_config cfg = { VFTR_SNAP_SUMMARIES, breaks, 2, UINT64_MAX, NULL, 0, on_record,
                                    &l, NULL, 3 };
    struct vftr_snap *s = vftr_snap_new(&cfg);
    ck_assert_ptr_nonnull(s);
    /* at 5: P1 f1 and f3, P2 f2 = 3 records; at 6 the fourth is one too many */
    OK(vftr_snap_enter(s, 1, 1, 1));
    OK(vftr_snap_enter(s, 2, 2, 2));
    OK(vftr_snap_enter(s, 3, 1, 3));
    ck_assert_int_eq(vftr_snap_leave(s, 7, 1, 3), -EFBIG);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_int_eq(vftr_snap_finish(s), -EFBIG);
    vftr_snap_free(s);

    volatile sig_atomic_t stop = 0;
    memset(&l, 0, sizeof l);
    cfg.max_records = 0;
    cfg.stop = &stop;
    s = vftr_snap_new(&cfg);
    ck_assert_ptr_nonnull(s);
    OK(vftr_snap_enter(s, 1, 1, 1));
    stop = SIGTERM;
    OK(vftr_snap_enter(s, 2, 1, 2));        /* no break due: the tool checks per event */
    ck_assert_int_eq(vftr_snap_leave(s, 7, 1, 2), -EINTR);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_int_eq(vftr_snap_finish(s), -EINTR);
    vftr_snap_free(s);
}
END_TEST

static Suite *snap_suite(void)
{
    Suite *s = suite_create("snap");
    TCase *tc = tcase_create("engine");
    tcase_add_test(tc, recursion_and_open_calls);
    tcase_add_test(tc, equal_stamps_and_deep_stacks);
    tcase_add_test(tc, messages_held_back);
    tcase_add_test(tc, send_over_many_breaks);
    tcase_add_test(tc, collectives);
    tcase_add_test(tc, files_and_counters);
    tcase_add_test(tc, groups_and_detailed_messages);
    tcase_add_test(tc, thumbnail);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, break_placement);
    tcase_add_test(tc, break_bounds);
    tcase_add_test(tc, size_estimate);
    tcase_add_test(tc, size_plan);
    tcase_add_test(tc, engine_stops);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(snap_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
