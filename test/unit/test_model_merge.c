/* test_model_merge.c — lib/model: merging replays (vftr_replay_merge), the
 * parallel OTF replay (otfreplay.h) and the counter accumulator of message
 * and collective summaries (vftr_cntacc).
 *
 * The trace written here (vftr's OTF writer, times in ticks): processes 1..6
 * on 4 streams (1: P1 P2, 2: P3, 3: P4 P5, 4: P6), each running
 *     main 0..100 { f 10..20, g 30..60 { f 40..45 } }
 * and the even ones also h 70..90 { h 75..80 } (recursion).  By hand, per
 * process: main 1 call, incl 100, excl 100 - 10 - 30 (- 20 when even) =
 * 60 or 40; f 2 calls, 15; g 1 call, excl 25, incl 30; h 2 calls, excl 20,
 * incl 20 (counted once).  Summed over the six: main 6 / 300 / 600, f 12 /
 * 90 / 90, g 6 / 150 / 180, h 6 / 60 / 60.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf.h"

#include "model/otfreplay.h"
#include "model/replay.h"
#include "model/summary.h"

enum { MAIN = 1, F = 2, G = 3, H = 4 };

static const struct tev { uint64_t t; int enter; uint32_t f; int even_only; } tmpl[] = {
    { 0, 1, MAIN, 0 }, { 10, 1, F, 0 }, { 20, 0, F, 0 }, { 30, 1, G, 0 }, { 40, 1, F, 0 },
    { 45, 0, F, 0 }, { 60, 0, G, 0 }, { 70, 1, H, 1 }, { 75, 1, H, 1 }, { 80, 0, H, 1 },
    { 90, 0, H, 1 }, { 100, 0, MAIN, 0 },
};
#define NTMPL (sizeof tmpl / sizeof tmpl[0])
static const uint32_t stream_of[7] = { 0, 1, 1, 2, 3, 3, 4 };

static char stub[64];

static void write_trace(void)
{
    OTF_FileManager *m = OTF_FileManager_open(16);
    OTF_Writer *w;

    snprintf(stub, sizeof stub, "/tmp/test_model_merge.%ld", (long)getpid());
    ck_assert_ptr_nonnull(m);
    w = OTF_Writer_open(stub, 4, m);
    ck_assert_ptr_nonnull(w);
    OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    for (uint32_t p = 1; p <= 6; p++) {
        ck_assert(OTF_Writer_writeDefProcess(w, 0, p, "p", 0));
        ck_assert(OTF_Writer_assignProcess(w, p, stream_of[p]));
    }
    OTF_Writer_writeDefFunction(w, 0, MAIN, "main", 0, 0);
    OTF_Writer_writeDefFunction(w, 0, F, "f", 0, 0);
    OTF_Writer_writeDefFunction(w, 0, G, "g", 0, 0);
    OTF_Writer_writeDefFunction(w, 0, H, "h", 0, 0);
    for (size_t i = 0; i < NTMPL; i++)
        for (uint32_t p = 1; p <= 6; p++) {
            if (tmpl[i].even_only && p % 2)
                continue;
            if (tmpl[i].enter)
                ck_assert(OTF_Writer_writeEnter(w, 1000 + tmpl[i].t, tmpl[i].f, p, 0));
            else
                ck_assert(OTF_Writer_writeLeave(w, 1000 + tmpl[i].t, tmpl[i].f, p, 0));
        }
    ck_assert(OTF_Writer_close(w));
    OTF_FileManager_close(m);
}

static void remove_trace(void)
{
    char name[128];

    snprintf(name, sizeof name, "%s.otf", stub);
    unlink(name);
    snprintf(name, sizeof name, "%s.0.def", stub);
    unlink(name);
    for (int s = 1; s <= 4; s++) {
        snprintf(name, sizeof name, "%s.%d.events", stub, s);
        unlink(name);
    }
}

/* Feeds the template's events of process p into r. */
static void feed(struct vftr_replay *r, uint32_t p)
{
    for (size_t i = 0; i < NTMPL; i++) {
        if (tmpl[i].even_only && p % 2)
            continue;
        if (tmpl[i].enter)
            ck_assert_int_eq(vftr_replay_enter(r, p, tmpl[i].f, 1000 + tmpl[i].t), 0);
        else
            ck_assert_int_eq(vftr_replay_leave(r, p, tmpl[i].f, 1000 + tmpl[i].t), 0);
    }
}

/* Per function over all processes: calls, excl, incl into sums[f][3]. */
static void sum_by_function(const struct vftr_replay *r, uint64_t sums[5][3])
{
    size_t n;
    const struct vftr_funcstat *fs = vftr_replay_funcstats(r, &n);

    memset(sums, 0, 5 * sizeof sums[0]);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_lt(fs[i].function, 5);
        sums[fs[i].function][0] += fs[i].calls;
        sums[fs[i].function][1] += fs[i].excl;
        sums[fs[i].function][2] += fs[i].incl;
    }
}

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The call paths as sorted "f/g/h calls excl incl" lines, for comparing
 * replays whose path ids differ. */
static char *paths_text(const struct vftr_replay *r)
{
    size_t n;
    const struct vftr_pathstat *ps = vftr_replay_paths(r, &n);
    char **lines = calloc(n ? n : 1, sizeof *lines);
    size_t total = 1;
    char *out;

    ck_assert_ptr_nonnull(lines);
    for (size_t i = 0; i < n; i++) {
        char name[256] = "";
        char line[400];

        for (uint32_t id = (uint32_t)i + 1; id; id = ps[id - 1].parent) {
            char part[16];
            size_t k = (size_t)snprintf(part, sizeof part, "/%u", ps[id - 1].function);

            ck_assert_uint_lt(strlen(name) + k, sizeof name);
            memmove(name + k, name, strlen(name) + 1);
            memcpy(name, part, k);
        }
        snprintf(line, sizeof line, "%s %llu %llu %llu\n", name,
                 (unsigned long long)ps[i].calls, (unsigned long long)ps[i].excl,
                 (unsigned long long)ps[i].incl);
        lines[i] = strdup(line);
        total += strlen(line);
    }
    qsort(lines, n, sizeof *lines, cmp_lines);
    out = calloc(1, total);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return out;
}

START_TEST(merge_equals_one_replay)
{
    struct vftr_replay *all = vftr_replay_new(0, UINT64_MAX);
    struct vftr_replay *a = vftr_replay_new(0, UINT64_MAX);
    struct vftr_replay *b = vftr_replay_new(0, UINT64_MAX);
    uint64_t s1[5][3], s2[5][3];
    char *t1, *t2;

    for (uint32_t p = 1; p <= 6; p++) {
        feed(all, p);
        feed(p <= 3 ? a : b, p);
    }
    ck_assert_int_eq(vftr_replay_merge(a, b), -EINVAL);      /* not finished */
    ck_assert_int_eq(vftr_replay_finish(all), 0);
    ck_assert_int_eq(vftr_replay_finish(a), 0);
    ck_assert_int_eq(vftr_replay_finish(b), 0);
    ck_assert_int_eq(vftr_replay_merge(a, a), -EINVAL);
    ck_assert_int_eq(vftr_replay_merge(a, b), 0);
    sum_by_function(all, s1);
    sum_by_function(a, s2);
    ck_assert_mem_eq(s1, s2, sizeof s1);
    /* and both are the hand-computed values */
    ck_assert_uint_eq(s2[MAIN][0], 6);
    ck_assert_uint_eq(s2[MAIN][1], 300);
    ck_assert_uint_eq(s2[MAIN][2], 600);
    ck_assert_uint_eq(s2[F][0], 12);
    ck_assert_uint_eq(s2[F][1], 90);
    ck_assert_uint_eq(s2[G][1], 150);
    ck_assert_uint_eq(s2[G][2], 180);
    ck_assert_uint_eq(s2[H][0], 6);
    ck_assert_uint_eq(s2[H][2], 60);
    ck_assert_uint_eq(vftr_replay_nprocesses(a), 6);
    ck_assert_uint_eq(vftr_replay_counts(a)->enters, vftr_replay_counts(all)->enters);
    t1 = paths_text(all);
    t2 = paths_text(a);
    ck_assert_str_eq(t1, t2);
    ck_assert_ptr_nonnull(strstr(t2, "/1/4/4 3 15 15\n"));     /* main/h/h: 3 calls of 5 */
    free(t1);
    free(t2);
    vftr_replay_free(all);
    vftr_replay_free(a);
    vftr_replay_free(b);
}
END_TEST

/* Merging replays of the same process adds its figures (a window cut into
 * pieces). */
START_TEST(merge_same_process_adds)
{
    struct vftr_replay *a = vftr_replay_new(1000, 1050);
    struct vftr_replay *b = vftr_replay_new(1050, 1200);
    size_t n;
    const struct vftr_funcstat *fs;

    feed(a, 1);
    feed(b, 1);
    vftr_replay_finish(a);
    vftr_replay_finish(b);
    ck_assert_int_eq(vftr_replay_merge(a, b), 0);
    fs = vftr_replay_funcstats(a, &n);
    for (size_t i = 0; i < n; i++)
        if (fs[i].function == MAIN) {
            ck_assert_uint_eq(fs[i].calls, 1);        /* entered in [1000, 1050) only */
            ck_assert_uint_eq(fs[i].incl, 100);
            ck_assert_uint_eq(fs[i].excl, 60);
        }
    ck_assert_uint_eq(vftr_replay_nprocesses(a), 1);
    vftr_replay_free(a);
    vftr_replay_free(b);
}
END_TEST

/* Without call paths the function figures are the same. */
START_TEST(no_paths_same_functions)
{
    struct vftr_replay *a = vftr_replay_new(0, UINT64_MAX);
    struct vftr_replay *b = vftr_replay_new(0, UINT64_MAX);
    uint64_t s1[5][3], s2[5][3];
    size_t n;

    ck_assert_int_eq(vftr_replay_set_flags(b, VFTR_REPLAY_NO_PATHS), 0);
    for (uint32_t p = 1; p <= 6; p++) {
        feed(a, p);
        feed(b, p);
    }
    /* a leave of a function not on top, and one with an empty stack */
    ck_assert_int_eq(vftr_replay_enter(a, 9, F, 5), 0);
    ck_assert_int_eq(vftr_replay_leave(a, 9, G, 7), 0);
    ck_assert_int_eq(vftr_replay_leave(a, 9, F, 8), 0);
    ck_assert_int_eq(vftr_replay_leave(a, 9, H, 9), 0);
    ck_assert_int_eq(vftr_replay_enter(b, 9, F, 5), 0);
    ck_assert_int_eq(vftr_replay_leave(b, 9, G, 7), 0);
    ck_assert_int_eq(vftr_replay_leave(b, 9, F, 8), 0);
    ck_assert_int_eq(vftr_replay_leave(b, 9, H, 9), 0);
    vftr_replay_finish(a);
    vftr_replay_finish(b);
    sum_by_function(a, s1);
    sum_by_function(b, s2);
    ck_assert_mem_eq(s1, s2, sizeof s1);
    ck_assert_uint_eq(s1[F][0], 12 + 1);
    ck_assert_uint_eq(vftr_replay_counts(b)->mismatched, 1);
    ck_assert_uint_eq(vftr_replay_counts(b)->implied_enters, 1);
    vftr_replay_paths(b, &n);
    ck_assert_uint_eq(n, 0);
    vftr_replay_paths(a, &n);
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(vftr_replay_merge(b, a), 0);     /* b keeps no paths */
    vftr_replay_paths(b, &n);
    ck_assert_uint_eq(n, 0);
    vftr_replay_free(a);
    vftr_replay_free(b);
}
END_TEST

static int want_136(void *arg, uint32_t p)
{
    (void)arg;
    return p == 1 || p == 3 || p == 6;
}

static uint32_t h_is_f(void *arg, uint32_t f)
{
    (void)arg;
    return f == H ? F : f;
}

START_TEST(otf_parallel_any_jobs)
{
    struct vftr_otfreplay_opts o = { .namestub = stub, .start = 0, .end = UINT64_MAX };
    struct vftr_otfreplay_stats st;
    struct vftr_replay *one = NULL, *r = NULL;
    uint64_t s1[5][3], s2[5][3];
    char *t1, *t2;
    char err[512];

    write_trace();
    o.jobs = 1;
    ck_assert_int_eq(vftr_otfreplay_run(&o, &one, &st, err, sizeof err), 0);
    ck_assert_uint_eq(st.jobs, 1);
    sum_by_function(one, s1);
    ck_assert_uint_eq(s1[MAIN][1], 300);
    ck_assert_uint_eq(s1[H][1], 60);
    ck_assert_uint_eq(s1[G][2], 180);
    t1 = paths_text(one);
    for (unsigned j = 2; j <= 6; j++) {
        o.jobs = j;
        ck_assert_int_eq(vftr_otfreplay_run(&o, &r, &st, err, sizeof err), 0);
        ck_assert_uint_eq(st.jobs, j < 4 ? j : 4);     /* at most one per stream */
        ck_assert_uint_eq(st.streams, 4);
        ck_assert_uint_gt(st.bytes_read, 0);
        sum_by_function(r, s2);
        ck_assert_mem_eq(s1, s2, sizeof s1);
        ck_assert_uint_eq(vftr_replay_nprocesses(r), 6);
        t2 = paths_text(r);
        ck_assert_str_eq(t1, t2);
        free(t2);
        vftr_replay_free(r);
    }
    free(t1);
    vftr_replay_free(one);

    /* a selection: P1, P3, P6 are on streams 1, 2, 4 */
    o.jobs = 4;
    o.wanted = want_136;
    ck_assert_int_eq(vftr_otfreplay_run(&o, &r, &st, err, sizeof err), 0);
    ck_assert_uint_eq(st.streams, 3);
    ck_assert_uint_eq(st.jobs, 3);
    sum_by_function(r, s2);
    ck_assert_uint_eq(s2[MAIN][0], 3);
    ck_assert_uint_eq(s2[MAIN][1], 60 + 60 + 40);
    ck_assert_uint_eq(s2[H][0], 2);
    ck_assert_uint_eq(vftr_replay_nprocesses(r), 3);
    vftr_replay_free(r);

    /* tokens: h booked as f; a window [1040, 1080) cutting calls */
    o.wanted = NULL;
    o.token = h_is_f;
    o.start = 1040;
    o.end = 1080;
    for (unsigned j = 1; j <= 4; j += 3) {
        o.jobs = j;
        ck_assert_int_eq(vftr_otfreplay_run(&o, &r, &st, err, sizeof err), 0);
        sum_by_function(r, s2);
        /* f: 40..45 in all six (1 call each); h-as-f 70..80 in the even
         * three: 2 calls each, 10 ticks, excl 10 */
        ck_assert_uint_eq(s2[F][0], 6 + 6);
        ck_assert_uint_eq(s2[F][1], 6 * 5 + 3 * 10);
        ck_assert_uint_eq(s2[H][0], 0);
        /* main and g are under way at 1040 (the replay reads from the
         * start): main on the stack for the whole window (40 incl), on top
         * 60..80 in the odd processes (20) and 60..70 in the even ones
         * (10), no call; g from 1040 to 60 enclosing f: 20 incl, 15 excl,
         * no call */
        ck_assert_uint_eq(s2[MAIN][0], 0);
        ck_assert_uint_eq(s2[MAIN][1], 3 * 20 + 3 * 10);
        ck_assert_uint_eq(s2[MAIN][2], 6 * 40);
        ck_assert_uint_eq(s2[G][0], 0);
        ck_assert_uint_eq(s2[G][1], 6 * 15);
        ck_assert_uint_eq(s2[G][2], 6 * 20);
        vftr_replay_free(r);
    }
    remove_trace();
}
END_TEST

START_TEST(otf_errors)
{
    struct vftr_otfreplay_opts o = { .namestub = "/nonexistent/trace", .end = UINT64_MAX,
                                     .jobs = 2 };
    struct vftr_replay *r = (struct vftr_replay *)&o;
    char err[512] = "";

    ck_assert_int_eq(vftr_otfreplay_run(&o, &r, NULL, err, sizeof err), -EIO);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err, "cannot open trace"));
    o.end = 0;
    ck_assert_int_eq(vftr_otfreplay_run(&o, &r, NULL, err, sizeof err), -EINVAL);
    ck_assert_uint_ge(vftr_otfreplay_default_jobs(), 1);
}
END_TEST

START_TEST(cntacc_window)
{
    struct vftr_cntacc *c = vftr_cntacc_new();
    const uint64_t s65[4] = { 4, 1, 1600, 50 }, s45[4] = { 2, 1, 300, 50 };
    const uint64_t same[4] = { 1, 1, 8, 8 }, more[4] = { 0, 2, 0, 0 };
    const struct vftr_cntrow *rows;
    size_t n;
    uint64_t neg = 7;

    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(vftr_cntacc_add(c, 2, 0, +1, s65), 0);
    ck_assert_int_eq(vftr_cntacc_add(c, 2, 0, -1, s45), 0);
    ck_assert_int_eq(vftr_cntacc_add(c, 1, 0, +1, same), 0);   /* cancels: left out */
    ck_assert_int_eq(vftr_cntacc_add(c, 1, 0, -1, same), 0);
    ck_assert_int_eq(vftr_cntacc_add(c, 1, 5, -1, more), 0);   /* negative: kept, clamped */
    ck_assert_int_eq(vftr_cntacc_add(c, 1, 3, +1, same), 0);
    rows = vftr_cntacc_result(c, &n, &neg);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(neg, 1);
    ck_assert_uint_eq(rows[0].a, 1);                            /* sorted by (a, b) */
    ck_assert_uint_eq(rows[0].b, 3);
    ck_assert_uint_eq(rows[1].b, 5);                            /* clamped to zeros */
    ck_assert_uint_eq(rows[1].v[1], 0);
    ck_assert_uint_eq(rows[2].a, 2);
    ck_assert_uint_eq(rows[2].v[0], 2);
    ck_assert_uint_eq(rows[2].v[1], 0);
    ck_assert_uint_eq(rows[2].v[2], 1300);
    ck_assert_uint_eq(rows[2].v[3], 0);
    vftr_cntacc_free(c);
    vftr_cntacc_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("model_merge");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, merge_equals_one_replay);
    tcase_add_test(tc, merge_same_process_adds);
    tcase_add_test(tc, no_paths_same_functions);
    tcase_add_test(tc, otf_parallel_any_jobs);
    tcase_add_test(tc, otf_errors);
    tcase_add_test(tc, cntacc_window);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
