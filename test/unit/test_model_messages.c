/*
 * test_model_messages.c — Check suite for lib/model/messages (message
 * matching and collective statistics).  The expected matches are written
 * out by hand next to the records that produce them; the match callback
 * records every match so the tests see who matched whom, not only counts.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/messages.h"

#define MAXM 64

struct log {
    struct vftr_msgmatch m[MAXM];
    size_t n;
};

static void on_match(void *arg, const struct vftr_msgmatch *mm)
{
    struct log *l = arg;

    ck_assert_uint_lt(l->n, MAXM);
    l->m[l->n++] = *mm;
}

#define SEND(m, t, s, r, c, g, b) ck_assert_int_eq(vftr_messages_send(m, t, s, r, c, g, b), 0)
#define RECV(m, t, r, s, c, g, b) ck_assert_int_eq(vftr_messages_recv(m, t, r, s, c, g, b), 0)

static void expect_match(const struct log *l, size_t i, uint32_t s, uint32_t r, uint32_t comm,
                         uint32_t tag, uint64_t st, uint64_t rt, uint64_t bytes)
{
    ck_assert_uint_lt(i, l->n);
    const struct vftr_msgmatch *m = &l->m[i];
    ck_assert_msg(m->sender == s && m->receiver == r && m->comm == comm && m->tag == tag &&
                  m->send_time == st && m->recv_time == rt && m->bytes == bytes,
                  "match %zu: %u->%u comm %u tag %u %llu->%llu %llu bytes", i, m->sender,
                  m->receiver, m->comm, m->tag, (unsigned long long)m->send_time,
                  (unsigned long long)m->recv_time, (unsigned long long)m->bytes);
}

static const struct vftr_msgpair *pair(const struct vftr_messages *m, uint32_t s, uint32_t r)
{
    size_t n;
    const struct vftr_msgpair *p = vftr_messages_pairs(m, &n);

    for (size_t i = 0; i < n; i++)
        if (p[i].sender == s && p[i].receiver == r)
            return &p[i];
    ck_abort_msg("no pair %u->%u", s, r);
    return NULL;
}

/*
 * 1 sends tags 7, 8, 7 to 2 (times 1, 2, 3; 10, 20, 30 bytes); 2 receives
 * tag 8 first (at 5), then 7 twice (6, 7).  FIFO per tag: recv tag 8 @5
 * takes send @2; tag 7 @6 takes send @1; tag 7 @7 takes send @3.
 */
START_TEST(out_of_order_tags)
{
    struct log l = { .n = 0 };
    struct vftr_messages *m = vftr_messages_new(on_match, &l);

    ck_assert_ptr_nonnull(m);
    SEND(m, 1, 1, 2, 0, 7, 10);
    SEND(m, 2, 1, 2, 0, 8, 20);
    SEND(m, 3, 1, 2, 0, 7, 30);
    RECV(m, 5, 2, 1, 0, 8, 20);
    RECV(m, 6, 2, 1, 0, 7, 10);
    RECV(m, 7, 2, 1, 0, 7, 30);
    ck_assert_int_eq(vftr_messages_finish(m), 0);
    ck_assert_uint_eq(l.n, 3);
    expect_match(&l, 0, 1, 2, 0, 8, 2, 5, 20);
    expect_match(&l, 1, 1, 2, 0, 7, 1, 6, 10);
    expect_match(&l, 2, 1, 2, 0, 7, 3, 7, 30);
    const struct vftr_msgpair *p = pair(m, 1, 2);
    /* transfer: 3 + 5 + 4 = 12 */
    ck_assert_uint_eq(p->messages, 3);
    ck_assert_uint_eq(p->bytes, 60);
    ck_assert_uint_eq(p->matched, 3);
    ck_assert_uint_eq(p->transfer, 12);
    const struct vftr_msg_counts *c = vftr_messages_counts(m);
    ck_assert_uint_eq(c->unmatched_sends + c->unmatched_recvs, 0);
    vftr_messages_free(m);
}
END_TEST

/*
 * Same pair, same tag, communicators 1 and 2: sends c1 @1 (100 B), c2 @2
 * (200 B), c1 @3 (300 B).  Receives: c2 @4 -> send @2; c1 @5 -> send @1;
 * c1 @6 -> send @3.  Without the communicator in the key the c2 receive
 * would have taken the send @1.
 */
START_TEST(same_pair_different_communicators)
{
    struct log l = { .n = 0 };
    struct vftr_messages *m = vftr_messages_new(on_match, &l);

    SEND(m, 1, 3, 4, 1, 0, 100);
    SEND(m, 2, 3, 4, 2, 0, 200);
    SEND(m, 3, 3, 4, 1, 0, 300);
    RECV(m, 4, 4, 3, 2, 0, 200);
    RECV(m, 5, 4, 3, 1, 0, 100);
    RECV(m, 6, 4, 3, 1, 0, 300);
    vftr_messages_finish(m);
    ck_assert_uint_eq(l.n, 3);
    expect_match(&l, 0, 3, 4, 2, 0, 2, 4, 200);
    expect_match(&l, 1, 3, 4, 1, 0, 1, 5, 100);
    expect_match(&l, 2, 3, 4, 1, 0, 3, 6, 300);
    ck_assert_uint_eq(pair(m, 3, 4)->bytes, 600);
    vftr_messages_free(m);
}
END_TEST

/*
 * 1->2: two sends, one receive -> one unmatched send.  2->1: one receive
 * (of 64 B) before any send, then a send that matches it (recv time 3 is
 * before send time 4: transfer counted 0), then one more receive with no
 * send -> one unmatched receive.  1->3: a send only.  Pairs sorted by
 * sender, receiver: 1->2, 1->3, 2->1.
 */
START_TEST(unmatched_sends_and_early_receives)
{
    struct log l = { .n = 0 };
    struct vftr_messages *m = vftr_messages_new(on_match, &l);
    size_t n;

    SEND(m, 1, 1, 2, 0, 5, 8);
    SEND(m, 2, 1, 2, 0, 5, 8);
    RECV(m, 10, 2, 1, 0, 5, 8);
    RECV(m, 3, 1, 2, 0, 9, 64);
    SEND(m, 4, 2, 1, 0, 9, 64);
    RECV(m, 11, 1, 2, 0, 9, 32);
    SEND(m, 12, 1, 3, 0, 0, 1000);
    ck_assert_int_eq(vftr_messages_finish(m), 0);
    ck_assert_int_eq(vftr_messages_send(m, 13, 1, 2, 0, 0, 1), -EINVAL);

    const struct vftr_msg_counts *c = vftr_messages_counts(m);
    ck_assert_uint_eq(c->sends, 4);
    ck_assert_uint_eq(c->recvs, 3);
    ck_assert_uint_eq(c->matched, 2);
    ck_assert_uint_eq(c->unmatched_sends, 2);     /* 1->2 @2, 1->3 @12 */
    ck_assert_uint_eq(c->unmatched_recvs, 1);     /* 2->1 recv @11 */
    ck_assert_uint_eq(l.n, 2);
    expect_match(&l, 0, 1, 2, 0, 5, 1, 10, 8);
    expect_match(&l, 1, 2, 1, 0, 9, 4, 3, 64);

    const struct vftr_msgpair *p = vftr_messages_pairs(m, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert(p[0].sender == 1 && p[0].receiver == 2 && p[0].messages == 2 && p[0].matched == 1);
    ck_assert(p[1].sender == 1 && p[1].receiver == 3 && p[1].bytes == 1000 && p[1].matched == 0);
    ck_assert(p[2].sender == 2 && p[2].receiver == 1 && p[2].messages == 1 && p[2].matched == 1);
    ck_assert_uint_eq(p[2].recvs_only, 1);
    ck_assert_uint_eq(p[2].transfer, 0);
    vftr_messages_free(m);
}
END_TEST

/* Many messages on one channel: the queue grows and compacts, FIFO kept. */
START_TEST(long_queue_keeps_order)
{
    struct vftr_messages *m = vftr_messages_new(NULL, NULL);
    uint64_t t = 0;

    /* 3 sends then 2 receives, 1000 times: 1000 left at the end. */
    for (int k = 0; k < 1000; k++) {
        for (int i = 0; i < 3; i++)
            SEND(m, ++t, 1, 2, 0, 0, 1);
        for (int i = 0; i < 2; i++)
            RECV(m, ++t, 2, 1, 0, 0, 1);
    }
    vftr_messages_finish(m);
    const struct vftr_msg_counts *c = vftr_messages_counts(m);
    ck_assert_uint_eq(c->matched, 2000);
    ck_assert_uint_eq(c->unmatched_sends, 1000);
    /* The k-th receive (0-based) takes the k-th send.  Send k is at time
     * 5*(k/3) + k%3 + 1, receive k at 5*(k/2) + k%2 + 4: the transfer sum
     * is computed here the slow way, independently of the queue. */
    uint64_t want = 0;
    for (uint64_t k = 0; k < 2000; k++)
        want += (5 * (k / 2) + k % 2 + 4) - (5 * (k / 3) + k % 3 + 1);
    ck_assert_uint_eq(pair(m, 1, 2)->transfer, want);
    vftr_messages_free(m);
}
END_TEST

/*
 * Collectives: op 1 as CollectiveOperation records on processes 1, 2
 * (durations 5, 2; bytes 0); op 2 as begin/end: process 1 id 7 at 60..65
 * (8+8 B), process 2 id 7 at 36..39 (8+8 B); process 3 id 9 begins and
 * never ends; an end of id 4 on process 1 has no begin; process 2 begins
 * id 1 twice (the first is unmatched) and ends it once (10..12, op 2, 1+1 B).
 * op 1: 2 calls, 0 B, 7 ticks; op 2: 3 calls, 34 B, 5+3+2 = 10 ticks.
 */
START_TEST(collectives)
{
    struct vftr_messages *m = vftr_messages_new(NULL, NULL);
    size_t n;

    ck_assert_int_eq(vftr_messages_collop(m, 1, 1, 0, 0, 5), 0);
    ck_assert_int_eq(vftr_messages_collop(m, 2, 1, 0, 0, 2), 0);
    ck_assert_int_eq(vftr_messages_coll_begin(m, 36, 2, 2, 7, 8, 8), 0);
    ck_assert_int_eq(vftr_messages_coll_begin(m, 60, 1, 2, 7, 8, 8), 0);
    ck_assert_int_eq(vftr_messages_coll_end(m, 39, 2, 7), 0);
    ck_assert_int_eq(vftr_messages_coll_end(m, 65, 1, 7), 0);
    ck_assert_int_eq(vftr_messages_coll_begin(m, 61, 3, 2, 9, 4, 4), 0);
    ck_assert_int_eq(vftr_messages_coll_end(m, 70, 1, 4), 0);
    ck_assert_int_eq(vftr_messages_coll_begin(m, 8, 2, 2, 1, 100, 100), 0);
    ck_assert_int_eq(vftr_messages_coll_begin(m, 10, 2, 2, 1, 1, 1), 0);
    ck_assert_int_eq(vftr_messages_coll_end(m, 12, 2, 1), 0);
    vftr_messages_finish(m);

    const struct vftr_collstat *s = vftr_messages_collectives(m, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert(s[0].op == 1 && s[0].count == 2 && s[0].bytes == 0 && s[0].time == 7);
    ck_assert(s[1].op == 2 && s[1].count == 3 && s[1].bytes == 34 && s[1].time == 10);
    const struct vftr_msg_counts *c = vftr_messages_counts(m);
    ck_assert_uint_eq(c->collops, 5);
    ck_assert_uint_eq(c->unmatched_begins, 2);     /* process 3 id 9, process 2 first id 1 */
    ck_assert_uint_eq(c->unmatched_ends, 1);
    vftr_messages_free(m);
}
END_TEST

/* The caller's values come back with each match, whichever side came
 * first: 1 -> 2 tag 3 sent with cookie 11 then received with 21; a receive
 * with 22 that waits for its send with 12. */
/*
 * A window [100, 200) of one channel 1 -> 2 (comm 0, tag 5): the send at 50
 * (40 bytes) is in flight at 100; the window has its receive at 120, then a
 * send at 150 (8 bytes) received at 170, and a send at 190 whose receive
 * lies after the window.  Expected: the receive at 120 completes the
 * message in flight (not the send at 150: that would give 150 -> 120, and
 * leave the receive at 170 unmatched); 150 -> 170 is the window's one match
 * (transfer 20); the send at 190 is unmatched; nothing else.
 */
START_TEST(messages_in_flight_at_window_start)
{
    struct log l = { .n = 0 };
    struct vftr_messages *m = vftr_messages_new(on_match, &l);
    const struct vftr_msg_counts *k;

    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(vftr_messages_open_send(m, 50, 1, 2, 0, 5, 40), 0);
    /* another channel's message in flight whose receive lies after the window */
    ck_assert_int_eq(vftr_messages_open_send(m, 60, 2, 1, 0, 5, 16), 0);
    RECV(m, 120, 2, 1, 0, 5, 40);
    SEND(m, 150, 1, 2, 0, 5, 8);
    RECV(m, 170, 2, 1, 0, 5, 8);
    SEND(m, 190, 1, 2, 0, 5, 4);
    ck_assert_int_eq(vftr_messages_finish(m), 0);

    ck_assert_uint_eq(l.n, 1);
    expect_match(&l, 0, 1, 2, 0, 5, 150, 170, 8);
    k = vftr_messages_counts(m);
    ck_assert_uint_eq(k->sends, 2);
    ck_assert_uint_eq(k->recvs, 2);
    ck_assert_uint_eq(k->matched, 1);
    ck_assert_uint_eq(k->open_sends, 2);
    ck_assert_uint_eq(k->recvs_open, 1);
    ck_assert_uint_eq(k->unmatched_sends, 1);
    ck_assert_uint_eq(k->unmatched_recvs, 0);
    const struct vftr_msgpair *p = pair(m, 1, 2);
    ck_assert_uint_eq(p->messages, 2);
    ck_assert_uint_eq(p->bytes, 12);
    ck_assert_uint_eq(p->matched, 1);
    ck_assert_uint_eq(p->recvs_only, 0);
    ck_assert_uint_eq(p->transfer, 20);
    vftr_messages_free(m);
}
END_TEST

START_TEST(cookies)
{
    struct log l = { .n = 0 };
    struct vftr_messages *m = vftr_messages_new(on_match, &l);

    ck_assert_int_eq(vftr_messages_send_cookie(m, 1, 1, 2, 1, 3, 8, 11), 0);
    ck_assert_int_eq(vftr_messages_recv_cookie(m, 2, 2, 1, 1, 3, 8, 21), 0);
    ck_assert_int_eq(vftr_messages_recv_cookie(m, 3, 2, 1, 1, 3, 8, 22), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(vftr_messages_send_cookie(m, 4, 1, 2, 1, 3, 8, 12), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert(l.m[0].send_cookie == 11 && l.m[0].recv_cookie == 21);
    ck_assert(l.m[1].send_cookie == 12 && l.m[1].recv_cookie == 22);
    ck_assert(l.m[1].send_time == 4 && l.m[1].recv_time == 3);
    RECV(m, 5, 2, 1, 1, 3, 8);                       /* no cookie: 0 */
    ck_assert_int_eq(vftr_messages_send_cookie(m, 6, 1, 2, 1, 3, 8, 13), 0);
    ck_assert(l.m[2].send_cookie == 13 && l.m[2].recv_cookie == 0);
    vftr_messages_free(m);
}
END_TEST

/*
 * Ranks and threads (messages.h).  Tokens as vfd2otf numbers them: thread t
 * of rank r is (t << 20) + r + 1, so a process's rank process is its low
 * 20 bits; a rank's own process is thread 0.
 */
#define PR(r, t) ((uint32_t)(t) << 20 | (uint32_t)((r) + 1))

static uint32_t test_rank_of(void *arg, uint32_t process)
{
    (void)arg;
    return process & 0xfffffu;
}

static size_t npairs(const struct vftr_messages *m)
{
    size_t n;

    vftr_messages_pairs(m, &n);
    return n;
}

/*
 * Rank 0's thread 1 sends tag 5 to rank 1 (named by its rank process) at
 * 1 (10 B), rank 0's main thread at 2 (20 B); rank 1's thread 2 receives
 * from rank 0 (named by its rank process) at 5, its main thread at 6.  On
 * MPI's channel (rank 0, rank 1, 0, 5) the receive at 5 takes the oldest
 * send, that of 1: thread 1 of rank 0 -> thread 2 of rank 1, transfer 4;
 * the receive at 6 the send of 2: rank 0 -> rank 1, transfer 4.  Without
 * the rank relation the two threads' records are channels of their own:
 * only the second message matches (what OTF2 traces of threaded senders
 * got before).
 */
START_TEST(ranks_match_a_thread_send)
{
    for (int ranks = 0; ranks < 2; ranks++) {
        struct log l = { .n = 0 };
        struct vftr_messages *m = vftr_messages_new(on_match, &l);
        const struct vftr_msg_counts *k;
        const struct vftr_msgpair *p;

        ck_assert_ptr_nonnull(m);
        if (ranks)
            ck_assert_int_eq(vftr_messages_set_ranks(m, test_rank_of, NULL), 0);
        SEND(m, 1, PR(0, 1), PR(1, 0), 0, 5, 10);
        SEND(m, 2, PR(0, 0), PR(1, 0), 0, 5, 20);
        RECV(m, 5, PR(1, 2), PR(0, 0), 0, 5, 10);
        RECV(m, 6, PR(1, 0), PR(0, 0), 0, 5, 20);
        ck_assert_int_eq(vftr_messages_finish(m), 0);
        k = vftr_messages_counts(m);
        if (!ranks) {
            ck_assert_uint_eq(l.n, 1);
            expect_match(&l, 0, PR(0, 0), PR(1, 0), 0, 5, 2, 6, 20);
            ck_assert_uint_eq(k->unmatched_sends, 1);
            ck_assert_uint_eq(k->unmatched_recvs, 1);
            ck_assert_uint_eq(pair(m, PR(0, 1), PR(1, 0))->matched, 0);
            ck_assert_uint_eq(pair(m, PR(0, 0), PR(1, 2))->recvs_only, 1);
            vftr_messages_free(m);
            continue;
        }
        ck_assert_uint_eq(l.n, 2);
        expect_match(&l, 0, PR(0, 1), PR(1, 2), 0, 5, 1, 5, 10);
        expect_match(&l, 1, PR(0, 0), PR(1, 0), 0, 5, 2, 6, 20);
        ck_assert_uint_eq(k->sends, 2);
        ck_assert_uint_eq(k->recvs, 2);
        ck_assert_uint_eq(k->matched, 2);
        ck_assert_uint_eq(k->unmatched_sends, 0);
        ck_assert_uint_eq(k->unmatched_recvs, 0);
        /* the matrix holds the true processes, no cell of a named peer */
        ck_assert_uint_eq(npairs(m), 2);
        p = pair(m, PR(0, 1), PR(1, 2));
        ck_assert(p->messages == 1 && p->bytes == 10 && p->matched == 1 && p->transfer == 4 &&
                  p->recvs_only == 0);
        p = pair(m, PR(0, 0), PR(1, 0));
        ck_assert(p->messages == 1 && p->bytes == 20 && p->matched == 1 && p->transfer == 4 &&
                  p->recvs_only == 0);
        vftr_messages_free(m);
    }
}
END_TEST

/*
 * A named thread is that thread alone.  Rank 0 sends tag 5 to thread 1 of
 * rank 1 at 1 and to rank 1 at 2; rank 1's main thread receives from rank
 * 0 at 3: the send of 1 names another thread, so it takes the send of 2
 * (2 -> 3); thread 1 receives at 4 and takes the send of 1 (1 -> 4).  Then
 * a receive first: rank 1's main thread receives from thread 2 of rank 0
 * at 10; thread 1 of rank 0 sends to rank 1 at 11 (not the thread the
 * receive names: it waits), thread 2 at 12 (matches the receive of 10).
 * The send of 11 is left: unmatched, in the cell it names.
 */
START_TEST(ranks_named_threads_constrain)
{
    struct log l = { .n = 0 };
    struct vftr_messages *m = vftr_messages_new(on_match, &l);
    const struct vftr_msg_counts *k;
    const struct vftr_msgpair *p;

    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(vftr_messages_set_ranks(m, test_rank_of, NULL), 0);
    SEND(m, 1, PR(0, 0), PR(1, 1), 0, 5, 8);
    SEND(m, 2, PR(0, 0), PR(1, 0), 0, 5, 16);
    RECV(m, 3, PR(1, 0), PR(0, 0), 0, 5, 16);
    RECV(m, 4, PR(1, 1), PR(0, 0), 0, 5, 8);
    RECV(m, 10, PR(1, 0), PR(0, 2), 0, 5, 4);
    SEND(m, 11, PR(0, 1), PR(1, 0), 0, 5, 2);
    SEND(m, 12, PR(0, 2), PR(1, 0), 0, 5, 4);
    ck_assert_int_eq(vftr_messages_finish(m), 0);
    ck_assert_uint_eq(l.n, 3);
    expect_match(&l, 0, PR(0, 0), PR(1, 0), 0, 5, 2, 3, 16);
    expect_match(&l, 1, PR(0, 0), PR(1, 1), 0, 5, 1, 4, 8);
    expect_match(&l, 2, PR(0, 2), PR(1, 0), 0, 5, 12, 10, 4);
    k = vftr_messages_counts(m);
    ck_assert_uint_eq(k->matched, 3);
    ck_assert_uint_eq(k->unmatched_sends, 1);
    ck_assert_uint_eq(k->unmatched_recvs, 0);
    p = pair(m, PR(0, 1), PR(1, 0));
    ck_assert(p->messages == 1 && p->bytes == 2 && p->matched == 0);
    ck_assert_uint_eq(npairs(m), 4);
    vftr_messages_free(m);
}
END_TEST

/*
 * In flight under ranks: thread 1 of rank 0 sent to rank 1 before the
 * window; thread 3 of rank 1 receives from rank 0 in it: it completes the
 * open send (recvs_open), no match, no pair.  The relation is set before
 * the first record or not at all.
 */
START_TEST(ranks_open_send_and_order)
{
    struct log l = { .n = 0 };
    struct vftr_messages *m = vftr_messages_new(on_match, &l);
    const struct vftr_msg_counts *k;

    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(vftr_messages_set_ranks(m, test_rank_of, NULL), 0);
    ck_assert_int_eq(vftr_messages_open_send(m, 1, PR(0, 1), PR(1, 0), 2, 9, 64), 0);
    ck_assert_int_eq(vftr_messages_set_ranks(m, NULL, NULL), -EINVAL);
    RECV(m, 5, PR(1, 3), PR(0, 0), 2, 9, 64);
    ck_assert_int_eq(vftr_messages_finish(m), 0);
    k = vftr_messages_counts(m);
    ck_assert_uint_eq(l.n, 0);
    ck_assert(k->recvs == 1 && k->recvs_open == 1 && k->matched == 0 &&
              k->unmatched_recvs == 0 && k->unmatched_sends == 0);
    ck_assert_uint_eq(npairs(m), 0);
    vftr_messages_free(m);
}
END_TEST

/* Order behind a head no receive admits: rank 0 sends to thread 5 of rank
 * 1 first (never received), then 3000 sends to rank 1 (bytes = their
 * number) in runs of three, two receives of rank 1's main thread after
 * each run; every receive must take the oldest send it admits, so the
 * k-th match carries send k, however the queue behind the stuck head is
 * compacted and grown.  Left: the first send and 1000 of the others. */
struct order { uint64_t next; int bad; };

static void in_order(void *arg, const struct vftr_msgmatch *mm)
{
    struct order *o = arg;

    o->bad |= mm->bytes != o->next++ || mm->receiver != PR(1, 0);
}

START_TEST(ranks_stuck_head_keeps_order)
{
    struct order o = { 0, 0 };
    struct vftr_messages *m = vftr_messages_new(in_order, &o);
    const struct vftr_msg_counts *k;
    uint64_t t = 1, sent = 0;

    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(vftr_messages_set_ranks(m, test_rank_of, NULL), 0);
    SEND(m, t++, PR(0, 0), PR(1, 5), 0, 1, 99999);
    for (int run = 0; run < 1000; run++) {
        for (int i = 0; i < 3; i++, sent++)
            SEND(m, t++, PR(0, 0), PR(1, 0), 0, 1, sent);
        RECV(m, t++, PR(1, 0), PR(0, 0), 0, 1, 0);
        RECV(m, t++, PR(1, 0), PR(0, 0), 0, 1, 0);
    }
    ck_assert_int_eq(vftr_messages_finish(m), 0);
    k = vftr_messages_counts(m);
    ck_assert_int_eq(o.bad, 0);
    ck_assert_uint_eq(o.next, 2000);
    ck_assert_uint_eq(k->matched, 2000);
    ck_assert_uint_eq(k->unmatched_sends, 1001);
    ck_assert_uint_eq(k->unmatched_recvs, 0);
    ck_assert_uint_eq(pair(m, PR(0, 0), PR(1, 0))->messages, 3000);
    ck_assert_uint_eq(pair(m, PR(0, 0), PR(1, 5))->messages, 1);
    vftr_messages_free(m);
}
END_TEST

static Suite *messages_suite(void)
{
    Suite *s = suite_create("model_messages");
    TCase *tc = tcase_create("messages");

    tcase_add_test(tc, out_of_order_tags);
    tcase_add_test(tc, same_pair_different_communicators);
    tcase_add_test(tc, unmatched_sends_and_early_receives);
    tcase_add_test(tc, long_queue_keeps_order);
    tcase_add_test(tc, collectives);
    tcase_add_test(tc, cookies);
    tcase_add_test(tc, messages_in_flight_at_window_start);
    tcase_add_test(tc, ranks_match_a_thread_send);
    tcase_add_test(tc, ranks_named_threads_constrain);
    tcase_add_test(tc, ranks_open_send_and_order);
    tcase_add_test(tc, ranks_stuck_head_keeps_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(messages_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
