/*
 * test_window.c — Check suite for lib/model/window: the state at a window's
 * start (open frames, messages in flight) and the events inside it, against
 * the hand-computed traces of test_tui_fixture.h; snapshots found through
 * the DefAuxSamplePoint index and by searching; reading forward without
 * snapshots gives the same state; summaries; bytes read.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/window.h"
#include "test_tui_fixture.h"

static char small_idx[1024], small_noidx[1024], small_plain[1024], loop_stub[1024];
static char many_stub[1024];

/* Everything a read delivered, as text lines, for exact comparison. */
struct log {
    char text[8192];
    size_t len;
};

/* Appends one formatted line (the format is checked at every call). */
#define LOGF(arg, ...)                                                              \
    do {                                                                            \
        struct log *l_ = (arg);                                                     \
        l_->len += (size_t)snprintf(l_->text + l_->len, sizeof l_->text - l_->len,  \
                                    __VA_ARGS__);                                   \
    } while (0)
#define U(x) ((unsigned long long)(x))

static int l_frame(void *arg, uint32_t p, uint32_t f, uint64_t enter, uint32_t depth)
{
    LOGF(arg, "frame p%llu f%llu @%llu d%llu\n", U(p), U(f), U(enter), U(depth));
    return 0;
}

static int l_msg(void *arg, uint64_t t, uint32_t s, uint32_t r, uint32_t comm, uint32_t tag,
                 uint32_t len)
{
    (void)comm;
    (void)len;
    LOGF(arg, "inflight %llu->%llu @%llu tag%llu\n", U(s), U(r), U(t), U(tag));
    return 0;
}

static int l_enter(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    LOGF(arg, "enter p%llu f%llu @%llu\n", U(p), U(f), U(t));
    return 0;
}

static int l_leave(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    LOGF(arg, "leave p%llu f%llu @%llu\n", U(p), U(f), U(t));
    return 0;
}

static int l_send(void *arg, uint64_t t, uint32_t s, uint32_t r, uint32_t comm, uint32_t tag,
                  uint32_t len)
{
    (void)comm;
    (void)len;
    LOGF(arg, "send %llu->%llu @%llu tag%llu\n", U(s), U(r), U(t), U(tag));
    return 0;
}

static int l_recv(void *arg, uint64_t t, uint32_t r, uint32_t s, uint32_t comm, uint32_t tag,
                  uint32_t len)
{
    (void)comm;
    (void)len;
    LOGF(arg, "recv %llu<-%llu @%llu tag%llu\n", U(r), U(s), U(t), U(tag));
    return 0;
}

static const char *read_log(const char *stub, uint64_t a, uint64_t b, struct vftr_window_stats *st)
{
    static struct log l;
    char err[512];
    struct vftr_window *w = vftr_window_open(stub, NULL, err, sizeof err);
    struct vftr_window_handler h = { .arg = &l, .open_frame = l_frame, .open_message = l_msg,
                                     .enter = l_enter, .leave = l_leave, .send = l_send,
                                     .recv = l_recv };

    ck_assert_msg(w != NULL, "open %s: %s", stub, err);
    memset(&l, 0, sizeof l);
    ck_assert_int_eq(vftr_window_read(w, a, b, &h, st, err, sizeof err), 0);
    vftr_window_free(w);
    return l.text;
}

/* [450, 480): started at the snapshot of 420, replays b's state to 450. */
START_TEST(test_state_from_snapshot)
{
    struct vftr_window_stats st;
    const char *got = read_log(small_idx, 450, 480, &st);

    ck_assert_str_eq(got,
                     "frame p1 f1 @100 d1\n"
                     "frame p1 f3 @400 d2\n"
                     "frame p2 f1 @100 d1\n"
                     "frame p2 f5 @150 d2\n"
                     "enter p1 f4 @450\n"
                     "send 1->2 @460 tag5\n");
    ck_assert_int_eq(st.from_snapshot, 1);
    ck_assert_uint_eq(st.snapshot_time, 420);
    ck_assert_uint_eq(st.replayed, 0);      /* nothing between 420 and 450 */
    ck_assert_uint_eq(st.delivered, 2);
    ck_assert_uint_gt(st.bytes_read, 0);
}
END_TEST

/* [650, 900): snapshot 600 with the message in flight. */
static const char *const expect_650 =
    "frame p1 f1 @100 d1\n"
    "frame p1 f3 @400 d2\n"
    "frame p2 f1 @100 d1\n"
    "frame p2 f5 @150 d2\n"
    "inflight 1->2 @460 tag5\n"
    "leave p1 f3 @700\n"
    "recv 2<-1 @800 tag5\n"
    "leave p2 f5 @850\n";

START_TEST(test_state_with_message)
{
    struct vftr_window_stats st;

    ck_assert_str_eq(read_log(small_idx, 650, 900, &st), expect_650);
    ck_assert_uint_eq(st.snapshot_time, 600);
    ck_assert_int_eq(st.from_snapshot, 1);
}
END_TEST

/* Without an index the snapshot is found by searching: same answer. */
START_TEST(test_search_without_index)
{
    struct vftr_window_stats st;
    char err[512];
    uint64_t t = 0;
    struct vftr_window *w = vftr_window_open(small_noidx, NULL, err, sizeof err);

    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(vftr_window_info(w)->nsnapshots, 0);
    ck_assert_int_eq(vftr_window_snapshot_before(w, 650, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t, 600);
    ck_assert_int_eq(vftr_window_snapshot_before(w, 599, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t, 420);
    ck_assert_int_eq(vftr_window_snapshot_before(w, 420, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t, 420);
    ck_assert_int_eq(vftr_window_snapshot_before(w, 419, &t, err, sizeof err), -ENOENT);
    vftr_window_free(w);
    ck_assert_str_eq(read_log(small_noidx, 650, 900, &st), expect_650);
    ck_assert_uint_eq(st.snapshot_time, 600);
}
END_TEST

/* No snapshots at all: read forward from the start, same state. */
START_TEST(test_forward_without_snapshots)
{
    struct vftr_window_stats st;

    ck_assert_str_eq(read_log(small_plain, 650, 900, &st), expect_650);
    ck_assert_int_eq(st.from_snapshot, 0);
    ck_assert_uint_eq(st.snapshot_time, 100);
    /* P1: 6 events before 650 (enter main, a, leave a, enter b, c, leave c)
     * + send; P2: enter main, d */
    ck_assert_uint_eq(st.replayed, 9);
}
END_TEST

/*
 * The replay reads each stream on its own, on 1 to 3 threads (the fixture
 * has 2 streams, so 3 means 2): the state is the same hand-computed one,
 * also with the message sent at 460 (stream 1) and received at 800 (stream
 * 2) paired across threads by counting, and for a window after the receive.
 */
START_TEST(test_replay_threads)
{
    static const char *const stubs[] = { small_plain, small_idx };
    static struct log l;
    struct vftr_window_handler h = { .arg = &l, .open_frame = l_frame, .open_message = l_msg,
                                     .enter = l_enter, .leave = l_leave, .send = l_send,
                                     .recv = l_recv };

    for (size_t k = 0; k < 2; k++) {
        for (unsigned threads = 1; threads <= 3; threads++) {
            char err[512];
            struct vftr_window *w = vftr_window_open(stubs[k], NULL, err, sizeof err);
            struct vftr_window_stats st;

            ck_assert_msg(w != NULL, "open: %s", err);
            ck_assert_int_eq(vftr_window_set_threads(w, threads), 0);
            memset(&l, 0, sizeof l);
            ck_assert_int_eq(vftr_window_read(w, 650, 900, &h, &st, err, sizeof err), 0);
            ck_assert_str_eq(l.text, expect_650);
            memset(&l, 0, sizeof l);
            /* 810: the message is received (800), d still open, c left */
            ck_assert_int_eq(vftr_window_read(w, 810, 820, &h, &st, err, sizeof err), 0);
            ck_assert_str_eq(l.text, "frame p1 f1 @100 d1\n"
                                     "frame p2 f1 @100 d1\n"
                                     "frame p2 f5 @150 d2\n");
            vftr_window_free(w);
        }
    }
}
END_TEST

START_TEST(test_set_threads_bounds)
{
    char err[512];
    struct vftr_window *w = vftr_window_open(small_idx, NULL, err, sizeof err);

    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(vftr_window_set_threads(w, VFTR_WINDOW_MAX_THREADS + 1), -EINVAL);
    ck_assert_int_eq(vftr_window_set_threads(w, 0), 0);
    vftr_window_free(w);
}
END_TEST

/* A window before the first snapshot starts from the trace start. */
START_TEST(test_window_at_start)
{
    struct vftr_window_stats st;

    ck_assert_str_eq(read_log(small_idx, 50, 150, &st),
                     "enter p1 f1 @100\n"
                     "enter p2 f1 @100\n");
    ck_assert_int_eq(st.from_snapshot, 0);
}
END_TEST

START_TEST(test_info)
{
    char err[512];
    struct vftr_window *w = vftr_window_open(small_idx, NULL, err, sizeof err);
    const struct vftr_window_info *i;

    ck_assert_ptr_nonnull(w);
    i = vftr_window_info(w);
    ck_assert_uint_eq(i->resolution, 1000);
    ck_assert_uint_eq(i->first, 100);
    ck_assert_uint_eq(i->last, 1000);
    ck_assert_int_eq(i->have_events, 1);
    ck_assert_uint_eq(i->nsnapshots, 2);
    ck_assert_uint_eq(i->nsummaries, 2);
    ck_assert_int_eq(vftr_window_read(w, 10, 10, NULL, NULL, err, sizeof err), -EINVAL);
    vftr_window_free(w);
}
END_TEST

struct sums { uint64_t v[16][3]; int n; uint64_t time; };

static int s_sum(void *arg, uint64_t t, uint32_t p, uint32_t f, uint64_t calls, uint64_t excl,
                 uint64_t incl)
{
    struct sums *s = arg;

    s->time = t;
    if (s->n < 16) {
        s->v[s->n][0] = p * 100 + f;
        s->v[s->n][1] = excl;
        s->v[s->n][2] = incl + calls * 0;
        s->n++;
    }
    return 0;
}

START_TEST(test_summary)
{
    const char *stubs[] = { small_idx, small_noidx };

    for (int k = 0; k < 2; k++) {
        char err[512];
        struct vftr_window *w = vftr_window_open(stubs[k], NULL, err, sizeof err);
        struct sums s = { 0 };
        struct vftr_window_handler h = { .arg = &s, .function_summary = s_sum };
        uint64_t t = 0;

        ck_assert_ptr_nonnull(w);
        ck_assert_int_eq(vftr_window_summary(w, 700, &h, &t, NULL, err, sizeof err), 0);
        ck_assert_uint_eq(t, 600);
        ck_assert_int_eq(s.n, 6);
        /* P1 main: excl 200, incl 500 (see the fixture) */
        int found = 0;
        for (int i = 0; i < s.n; i++)
            if (s.v[i][0] == 101)
                found = s.v[i][1] == 200 && s.v[i][2] == 500;
        ck_assert_int_eq(found, 1);
        ck_assert_int_eq(vftr_window_summary(w, 599, &h, &t, NULL, err, sizeof err), -ENOENT);
        vftr_window_free(w);
    }
}
END_TEST

struct samples { int n; uint64_t times[32]; uint32_t funcs[32]; };

static int s_sample(void *arg, uint64_t t, uint32_t p, uint32_t f, uint64_t enter)
{
    struct samples *s = arg;

    (void)p;
    (void)enter;
    if (s->n < 32) {
        s->times[s->n] = t;
        s->funcs[s->n] = f;
    }
    s->n++;
    return 0;
}

START_TEST(test_samples)
{
    char err[512];
    struct vftr_window *w = vftr_window_open(small_idx, NULL, err, sizeof err);
    struct samples s = { 0 };
    struct vftr_window_handler h = { .arg = &s, .sample_frame = s_sample };

    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(vftr_window_samples(w, 0, 2000, &h, NULL, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 8);
    ck_assert_uint_eq(s.times[0], 420);
    ck_assert_uint_eq(s.times[7], 600);
    s.n = 0;
    ck_assert_int_eq(vftr_window_samples(w, 421, 600, &h, NULL, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 0);
    vftr_window_free(w);
}
END_TEST

/* A callback's non-zero value stops the read and comes back. */
static int stop_at_first(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    (void)arg;
    (void)t;
    (void)p;
    (void)f;
    return 42;
}

START_TEST(test_callback_stops)
{
    char err[512];
    struct vftr_window *w = vftr_window_open(small_idx, NULL, err, sizeof err);
    struct vftr_window_handler h = { .enter = stop_at_first };

    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(vftr_window_read(w, 0, 2000, &h, NULL, err, sizeof err), 42);
    /* and the window is still usable */
    ck_assert_str_eq(read_log(small_idx, 650, 900, NULL), expect_650);
    vftr_window_free(w);
}
END_TEST

START_TEST(test_missing_trace)
{
    char err[512] = "";
    struct vftr_window *w = vftr_window_open("/nonexistent/trace", NULL, err, sizeof err);

    ck_assert_ptr_null(w);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST

/* A small window of a long trace reads a small part of it. */
START_TEST(test_bytes_small_window)
{
    struct vftr_window_stats st;
    long long total = fixture_trace_bytes(loop_stub);
    char err[512];
    struct vftr_window *w = vftr_window_open(loop_stub, NULL, err, sizeof err);
    int n = 0;
    struct vftr_window_handler h = { .arg = &n };

    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(vftr_window_info(w)->nsnapshots, 99);
    /* iteration 50500: base 5050010, snapshot at 5000010 (iteration 50000) */
    ck_assert_int_eq(vftr_window_read(w, 5050020, 5050030, &h, &st, err, sizeof err), 0);
    ck_assert_int_eq(st.from_snapshot, 1);
    ck_assert_uint_eq(st.snapshot_time, 5000010);
    ck_assert_uint_eq(st.replayed, 500 * 8 + 2);
    ck_assert_msg(st.bytes_read * 20 < (uint64_t)total, "read %llu of %lld bytes",
                  (unsigned long long)st.bytes_read, total);
    ck_assert_uint_gt(st.bytes_read, 0);
    vftr_window_free(w);
}
END_TEST

/*
 * The merge of many streams (more than window.c merges by a linear look:
 * its heap) and of few: processes 1..MANY_P, each alone in its own stream,
 * all in main (f99) from 50 to 1000, and every 10 ticks a call of f<p> of 5
 * ticks at 100 + 10 k + p % 3 — equal times in different streams.  The
 * expected events are built here by walking the time and the streams in
 * order (equal times: the streams' order in the master control, as the
 * window's merge orders them); a disabled process must not appear.
 */
#define MANY_P 11

/* Compares two long logs; names the first line that differs. */
static void same_log(const struct log *got, const struct log *want)
{
    const char *g = got->text, *w = want->text;
    size_t line = 1;

    while (*g && *g == *w) {
        line += *g == '\n';
        g++;
        w++;
    }
    ck_assert_msg(*g == *w, "line %zu differs: got \"%.60s\", expected \"%.60s\"", line,
                  g, w);
}

/* The lines of a log in an order that leaves out the order of equal times:
 * by the time after '@', then by text. */
static int by_time(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    unsigned long long tx = strtoull(strchr(x, '@') + 1, NULL, 10);
    unsigned long long ty = strtoull(strchr(y, '@') + 1, NULL, 10);

    return tx != ty ? (tx < ty ? -1 : 1) : strcmp(x, y);
}

static void sort_ties(struct log *l)
{
    static char copy[sizeof l->text];
    char *lines[1024];
    size_t n = 0;

    memcpy(copy, l->text, sizeof copy);
    for (char *s = strtok(copy, "\n"); s && n < 1024; s = strtok(NULL, "\n"))
        lines[n++] = s;
    qsort(lines, n, sizeof *lines, by_time);
    l->len = 0;
    l->text[0] = '\0';
    for (size_t i = 0; i < n; i++)
        LOGF(l, "%s\n", lines[i]);
}

static int fixture_many(const char *stub)
{
    OTF_FileManager *m = OTF_FileManager_open(8);
    OTF_Writer *w = m ? OTF_Writer_open(stub, MANY_P, m) : NULL;
    int bad = !w;

    for (uint32_t p = 1; !bad && p <= MANY_P; p++) {
        char name[16];

        snprintf(name, sizeof name, "P%u", p);
        bad |= !OTF_Writer_writeDefProcess(w, 0, p, name, 0);
        bad |= !OTF_Writer_assignProcess(w, p, p);
        bad |= !OTF_Writer_writeDefFunction(w, 0, p, name, 0, 0);
    }
    bad |= !w || !OTF_Writer_writeDefFunction(w, 0, 99, "main", 0, 0);
    for (uint32_t p = 1; !bad && p <= MANY_P; p++) {
        bad |= !OTF_Writer_writeEnter(w, 50, 99, p, 0);
        for (uint64_t k = 0; k < 30; k++) {
            uint64_t t = 100 + 10 * k + p % 3;

            bad |= !OTF_Writer_writeEnter(w, t, p, p, 0);
            bad |= !OTF_Writer_writeLeave(w, t + 5, p, p, 0);
        }
        bad |= !OTF_Writer_writeLeave(w, 1000, 99, p, 0);
    }
    if (w)
        bad |= !OTF_Writer_close(w);
    if (m)
        OTF_FileManager_close(m);
    return bad ? -1 : 0;
}

/* The expected log of [a, b) with process `off` disabled (0: none). */
static void many_expect(struct log *l, uint64_t a, uint64_t b, uint32_t off, int frames)
{
    memset(l, 0, sizeof *l);
    for (uint32_t p = 1; frames && p <= MANY_P; p++) {
        if (p == off)
            continue;
        LOGF(l, "frame p%llu f99 @50 d1\n", U(p));
        /* a call entered before a and not left before it */
        for (uint64_t k = 0; k < 30; k++) {
            uint64_t t = 100 + 10 * k + p % 3;

            if (t < a && t + 5 >= a)
                LOGF(l, "frame p%llu f%llu @%llu d2\n", U(p), U(p), U(t));
        }
    }
    for (uint64_t t = a; t < b; t++) {
        for (uint32_t p = 1; p <= MANY_P; p++) {
            if (p == off || t < 100 || t >= 100 + 10 * 30 + 5 + 2)
                continue;
            if ((t - p % 3) % 10 == 0 && t - p % 3 >= 100 && t - p % 3 < 400)
                LOGF(l, "enter p%llu f%llu @%llu\n", U(p), U(p), U(t));
            if ((t - 5 - p % 3) % 10 == 0 && t - 5 - p % 3 >= 100 && t - 5 - p % 3 < 400)
                LOGF(l, "leave p%llu f%llu @%llu\n", U(p), U(p), U(t));
        }
    }
}

START_TEST(test_merge_many_streams)
{
    static struct log got, want;
    struct vftr_window_handler h = { .arg = &got, .open_frame = l_frame, .enter = l_enter,
                                     .leave = l_leave };
    struct vftr_window_handler he = { .arg = &got, .enter = l_enter, .leave = l_leave };
    char err[512];

    for (unsigned threads = 1; threads <= 2; threads++) {
        struct vftr_window *w = vftr_window_open(many_stub, NULL, err, sizeof err);
        struct vftr_window_stats st;

        ck_assert_msg(w != NULL, "open: %s", err);
        ck_assert_int_eq(vftr_window_set_threads(w, threads), 0);
        memset(&got, 0, sizeof got);
        ck_assert_int_eq(vftr_window_read(w, 150, 200, &h, &st, err, sizeof err), 0);
        many_expect(&want, 150, 200, 0, 1);
        same_log(&got, &want);
        ck_assert_uint_eq(st.delivered, 5 * 2 * MANY_P);
        /* the reader's own merge (vftr_window_events) agrees, but for the
         * order of equal times: it follows the reference OTF's reader
         * (test/integration/otf_compat_ties.sh) */
        memset(&got, 0, sizeof got);
        ck_assert_int_eq(vftr_window_events(w, 150, 200, &he, NULL, err, sizeof err), 0);
        many_expect(&want, 150, 200, 0, 0);
        sort_ties(&got);
        sort_ties(&want);
        same_log(&got, &want);
        /* without process 4 */
        ck_assert_int_eq(OTF_Reader_setProcessStatus(vftr_window_reader(w), 4, 0), 1);
        memset(&got, 0, sizeof got);
        ck_assert_int_eq(vftr_window_read(w, 203, 260, &h, &st, err, sizeof err), 0);
        many_expect(&want, 203, 260, 4, 1);
        same_log(&got, &want);
        vftr_window_free(w);
    }
}
END_TEST

static Suite *window_suite(void)
{
    Suite *s = suite_create("window");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_state_from_snapshot);
    tcase_add_test(tc, test_state_with_message);
    tcase_add_test(tc, test_search_without_index);
    tcase_add_test(tc, test_forward_without_snapshots);
    tcase_add_test(tc, test_window_at_start);
    tcase_add_test(tc, test_replay_threads);
    tcase_add_test(tc, test_set_threads_bounds);
    tcase_add_test(tc, test_info);
    tcase_add_test(tc, test_summary);
    tcase_add_test(tc, test_samples);
    tcase_add_test(tc, test_callback_stops);
    tcase_add_test(tc, test_missing_trace);
    tcase_add_test(tc, test_bytes_small_window);
    tcase_add_test(tc, test_merge_many_streams);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *dir = fixture_dir();
    SRunner *sr;
    int failed;
    char cmd[1200];

    snprintf(small_idx, sizeof small_idx, "%s/small", dir);
    snprintf(small_noidx, sizeof small_noidx, "%s/noidx", dir);
    snprintf(small_plain, sizeof small_plain, "%s/plain", dir);
    snprintf(loop_stub, sizeof loop_stub, "%s/loop", dir);
    snprintf(many_stub, sizeof many_stub, "%s/many", dir);
    if (!*dir || fixture_small(small_idx, 1, 1) < 0 || fixture_small(small_noidx, 1, 0) < 0 ||
        fixture_small(small_plain, 0, 0) < 0 || fixture_loop(loop_stub, 100000, 1000) < 0 ||
        fixture_many(many_stub) < 0) {
        fprintf(stderr, "test_window: cannot write the fixtures in %s\n", dir);
        return 1;
    }
    sr = srunner_create(window_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_window: cannot remove %s\n", dir);
    return failed ? 1 : 0;
}
