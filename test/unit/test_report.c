/* test_report.c — lib/report: the timeline's bins at two levels worked out
 * by hand, the figures against vftr_source_profile (vftr-stats's call),
 * messages matched across reading threads, the same bytes for every
 * number of threads, names escaped in HTML and JSON.
 *
 * The trace (vftr's OTF writer, 1000 ticks per second, times from 0):
 *   P1 (rank 0, stream 1)  main 0..2047 { f 160..480 }, sends 64 B to P2 at 100
 *   P2 (rank 1, stream 2)  main 0..2047 { h 5..12 }, receives it at 300
 *   P3 (thread of P1, stream 1) idle, one call of "<b>&x" 1000..1010
 * The span is [0, 2048): 2048 ticks.  With a budget of 1024 bins per
 * process the finest level has 1024 bins of 2 ticks and the coarse one 256
 * of 8 (levels four times apart, the coarsest >= 256).
 *   P1 fine: bins 0..79 main (80), 80..239 f (160), 240..1022 main (783),
 *       bin 1023 = [2046, 2048): main 1 tick, idle 1: a tie, the smaller
 *       token wins: idle.   coarse: 20 main, 40 f (160..480 = bins 20..59),
 *       196 main (bin 255: main 7, idle 1).
 *   P2 fine: bin 2 = [4, 6) main 1, h 1: main (token 1 < 4); bins 3..5 h;
 *       so 3 main, 3 h, 1017 main, 1 idle.   coarse: bin 0 = main 5, h 3;
 *       bin 1 = h 4, main 4: main; all 256 main.
 *   P3 fine: 500 idle, bins 500..504 "<b>&x", 519 idle; coarse: bin 125 =
 *       [1000, 1008) 8 ticks of it, bin 126 = 2 of it, 6 idle: idle; so
 *       125 idle, 1 "<b>&x", 130 idle.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf.h"

#include "model/analysis.h"
#include "model/source.h"
#include "model/summary.h"
#include "report/report_impl.h"

enum { MAIN = 1, F = 2, H = 4, X = 5 };

static char stub[64];

static void write_trace(void)
{
    OTF_FileManager *m = OTF_FileManager_open(16);
    OTF_Writer *w;

    snprintf(stub, sizeof stub, "/tmp/test_report.%ld", (long)getpid());
    ck_assert_ptr_nonnull(m);
    w = OTF_Writer_open(stub, 2, m);
    ck_assert_ptr_nonnull(w);
    OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0));
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 2, "P2", 0));
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 3, "P1 thread", 1));
    ck_assert(OTF_Writer_assignProcess(w, 1, 1));
    ck_assert(OTF_Writer_assignProcess(w, 3, 1));
    ck_assert(OTF_Writer_assignProcess(w, 2, 2));
    OTF_Writer_writeDefFunctionGroup(w, 0, 1, "Application");
    OTF_Writer_writeDefFunctionGroup(w, 0, 2, "MPI");
    OTF_Writer_writeDefProcessGroup(w, 0, 10, "MPI_COMM_WORLD", 2, (uint32_t[]){ 1, 2 });
    OTF_Writer_writeDefFunction(w, 0, MAIN, "main", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, F, "f", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, H, "h", 2, 0);
    OTF_Writer_writeDefFunction(w, 0, X, "<b>&x", 1, 0);
    ck_assert(OTF_Writer_writeEnter(w, 0, MAIN, 1, 0));
    ck_assert(OTF_Writer_writeEnter(w, 0, MAIN, 2, 0));
    ck_assert(OTF_Writer_writeEnter(w, 5, H, 2, 0));
    ck_assert(OTF_Writer_writeLeave(w, 12, H, 2, 0));
    ck_assert(OTF_Writer_writeSendMsg(w, 100, 1, 2, 10, 7, 64, 0));
    ck_assert(OTF_Writer_writeEnter(w, 160, F, 1, 0));
    ck_assert(OTF_Writer_writeRecvMsg(w, 300, 2, 1, 10, 7, 64, 0));
    ck_assert(OTF_Writer_writeLeave(w, 480, F, 1, 0));
    ck_assert(OTF_Writer_writeEnter(w, 1000, X, 3, 0));
    ck_assert(OTF_Writer_writeLeave(w, 1010, X, 3, 0));
    ck_assert(OTF_Writer_writeLeave(w, 2047, MAIN, 1, 0));
    ck_assert(OTF_Writer_writeLeave(w, 2047, MAIN, 2, 0));
    ck_assert(OTF_Writer_close(w));
    OTF_FileManager_close(m);
}

static void remove_trace(void)
{
    char name[128];
    static const char *const ends[] = { ".otf", ".0.def", ".1.events", ".2.events" };

    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        snprintf(name, sizeof name, "%s%s", stub, ends[i]);
        unlink(name);
    }
}

static struct vftr_report *collect(unsigned jobs)
{
    const char *ops[] = { stub };
    struct vftr_report_opts o = { .prog = "test", .jobs = jobs, .cells = 3 * 1024 };
    struct vftr_report *r;
    char err[512];
    int rc = vftr_report_collect(&r, ops, 1, &o, err, sizeof err);

    ck_assert_msg(rc == 0, "collect: %s", err);
    return r;
}

/* The runs of one row as "len:fn len:fn ...". */
static void runs_text(const struct vftr_report *r, int level, size_t row, char *buf, size_t size)
{
    const struct rep_runs *rr = &r->levels[level].rows[row];
    size_t len = 0;

    buf[0] = '\0';
    for (size_t j = 0; j < rr->n && len < size; j++)
        len += (size_t)snprintf(buf + len, size - len, "%s%u:%u", j ? " " : "", rr->v[j].len,
                                rr->v[j].fn);
}

START_TEST(timeline_bins)
{
    struct vftr_report *r = collect(1);
    char buf[256];

    ck_assert_int_eq(r->have_timeline, 1);
    ck_assert_uint_eq(r->t0, 0);
    ck_assert_uint_eq(r->t1, 2048);
    ck_assert_int_eq(r->nlevels, 2);
    /* the waits: its message is sent and received outside any MPI call
     * (no call to wait in) and P3 is no OpenMP thread (not idle): none, of
     * the processes' 2.047 + 2.047 + 0.010 s (P3 from its first event) */
    ck_assert_int_eq(r->have_waits, 1);
    ck_assert_uint_eq(r->nwaits, 0);
    ck_assert_double_eq(r->wait_total, 0);
    ck_assert_double_eq_tol(r->wait_proc_time, 4.104, 1e-9);
    ck_assert_uint_eq(r->levels[0].nbins, 256);
    ck_assert_uint_eq(r->levels[1].nbins, 1024);
    ck_assert_uint_eq(r->nprocs, 3);             /* rows: P1, its thread P3, P2 */
    ck_assert_uint_eq(r->procs[0]->token, 1);
    ck_assert_uint_eq(r->procs[1]->token, 3);
    ck_assert_uint_eq(r->procs[2]->token, 2);
    runs_text(r, 1, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "80:1 160:2 783:1 1:0");
    runs_text(r, 0, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "20:1 40:2 196:1");
    runs_text(r, 1, 2, buf, sizeof buf);
    ck_assert_str_eq(buf, "3:1 3:4 1017:1 1:0");
    runs_text(r, 0, 2, buf, sizeof buf);
    ck_assert_str_eq(buf, "256:1");
    runs_text(r, 1, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "500:0 5:5 519:0");
    runs_text(r, 0, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "125:0 1:5 130:0");
    vftr_report_free(r);
}
END_TEST

static uint32_t group_of(void *arg, uint32_t function)
{
    const struct vftr_source_func *f = vftr_source_func(arg, function);

    return f ? f->group : 0;
}

/* Every row of a table against vftr_source_profile with the query given. */
static void same_as_source(struct vftr_report *r, const struct rep_table *t, int groups)
{
    struct vftr_profq q = { 0, UINT64_MAX, NULL, groups ? group_of : NULL,
                            vftr_source_rank_process, r->src,
                            groups ? VFTR_PROFQ_INCL_ONCE : 0 };
    struct vftr_profq_result res;
    struct vftr_profile p = VFTR_PROFILE_INIT;
    const struct vftr_funcstat *fs;
    size_t n;
    char err[256];

    ck_assert_int_eq(vftr_source_profile(r->src, &q, &res, err, sizeof err), 0);
    fs = vftr_fsacc_result(res.acc, &n, NULL);
    ck_assert_int_eq(vftr_profile_build(&p, fs, n), 0);
    ck_assert_uint_eq(p.nrows, t->prof.nrows);
    ck_assert_uint_eq(p.total, t->prof.total);
    for (size_t i = 0; i < p.nrows; i++) {
        const struct vftr_profile_row *a = &p.rows[i], *b = NULL;

        for (size_t k = 0; k < t->prof.nrows; k++)
            if (t->rows[k].p->function == a->function)
                b = t->rows[k].p;
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(a->calls, b->calls);
        ck_assert_uint_eq(a->excl, b->excl);
        ck_assert_uint_eq(a->incl, b->incl);
        ck_assert_uint_eq(a->excl_min, b->excl_min);
        ck_assert_uint_eq(a->excl_max, b->excl_max);
        ck_assert_uint_eq(a->nprocs, b->nprocs);
    }
    vftr_profile_release(&p);
    vftr_profq_release(&res);
}

START_TEST(figures_are_the_models)
{
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        struct vftr_report *r = collect(jobs);
        size_t np;
        const struct vftr_msgpair *mp;

        ck_assert_uint_eq(r->parts, jobs);
        same_as_source(r, &r->funcs, 0);
        same_as_source(r, &r->groups, 1);
        /* by hand: main on the two ranks 2047 - 320 and 2047 - 7 exclusive */
        ck_assert_str_eq(r->funcs.rows[0].name, "main");
        ck_assert_uint_eq(r->funcs.rows[0].p->excl, 1727 + 2040);
        ck_assert_uint_eq(r->funcs.rows[0].p->excl_min, 1727);
        /* the message crosses the reading threads at jobs 2 */
        mp = vftr_messages_pairs(r->msgs, &np);
        ck_assert_uint_eq(np, 1);
        ck_assert_uint_eq(mp[0].sender, 1);
        ck_assert_uint_eq(mp[0].receiver, 2);
        ck_assert_uint_eq(mp[0].matched, 1);
        ck_assert_uint_eq(mp[0].bytes, 64);
        ck_assert_uint_eq(mp[0].transfer, 200);
        ck_assert_uint_eq(vftr_report_nwarnings(r), 0);
        vftr_report_free(r);
    }
}
END_TEST

static char *page(unsigned jobs, size_t *len)
{
    struct vftr_report *r = collect(jobs);
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(vftr_report_write_html(r, f), 0);
    fclose(f);
    vftr_report_free(r);
    return buf;
}

START_TEST(same_bytes_and_escaped)
{
    size_t l1, l2, l3;
    char *a = page(1, &l1), *b = page(2, &l2), *c = page(1, &l3);

    ck_assert_uint_eq(l1, l2);
    ck_assert_uint_eq(l1, l3);
    ck_assert(memcmp(a, b, l1) == 0);
    ck_assert(memcmp(a, c, l1) == 0);
    /* figures shown as vftr-stats's text prints them, whole in data-v:
     * main 1727 + 2040 ticks exclusive (3.767 s), imbalance (2040 - 1883.5)
     * / 2040 = 0.0767156862745098... (7.7%: the shortest decimal that reads
     * back as that double has 16 digits); the total 2047 + 10 + 2047 ticks;
     * in the call tree, the root path main (both ranks'): 3767 exclusive,
     * 2 x 2047 inclusive */
    ck_assert_ptr_nonnull(strstr(a, "<td data-v=\"3.767\">3.77 s</td>"));
    ck_assert_ptr_nonnull(strstr(a, "<td data-v=\"0.07671568627450981\">7.7%</td>"));
    ck_assert_ptr_nonnull(strstr(a, "<th scope=\"row\">total exclusive time (all processes)"
                                    "</th><td data-v=\"4.104\">4.10 s</td>"));
    ck_assert_ptr_nonnull(strstr(a, "<span class=\"c\" data-v=\"3.767\">3.77 s</span>"
                                    "<span class=\"c\" data-v=\"4.094\">4.09 s</span>"));
    ck_assert_ptr_null(strstr(a, "<td>3.767000</td>"));
    ck_assert_ptr_null(strstr(a, "<b>&x"));
    ck_assert_ptr_nonnull(strstr(a, "&lt;b&gt;&amp;x"));
    ck_assert_ptr_nonnull(strstr(a, "\"\\u003cb\\u003e\\u0026x\""));
    for (const char *s = a; (s = strstr(s, "src=")) != NULL; s++)
        ck_abort_msg("the page refers to another file: %.40s", s);
    /* nothing fetched: no link out, no stylesheet import (xmlns is a name) */
    ck_assert_ptr_null(strstr(a, "href=\"http"));
    ck_assert_ptr_null(strstr(a, "url("));
    ck_assert_ptr_null(strstr(a, "@import"));
    free(a);
    free(b);
    free(c);
}
END_TEST

START_TEST(svg_charts)
{
    struct vftr_report *r = collect(1);

    for (int c = 0; c < VFTR_REPORT_NCHARTS; c++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        ck_assert_int_eq(vftr_report_write_svg(r, (enum vftr_report_chart)c, f), 0);
        fclose(f);
        ck_assert_msg(strncmp(buf, "<?xml", 5) == 0, "chart %d", c);
        ck_assert_ptr_nonnull(strstr(buf, "</svg>\n"));
        ck_assert_ptr_null(strstr(buf, "<b>"));
        free(buf);
    }
    ck_assert_int_eq(vftr_report_write_svg(r, VFTR_REPORT_NCHARTS, stdout), -EINVAL);
    ck_assert_str_eq(vftr_report_chart_name(VFTR_REPORT_CHART_CALLTREE), "calltree");
    vftr_report_free(r);
}
END_TEST

/*
 * The waits section on a trace of its own (1000 ticks per second): rank 0
 * (process 1) waits in MPI_Recv from 100 for a message rank 1 (process 2)
 * sends at 400 in MPI_Send; the receive completes at 450.  By Late
 * Sender's definition rank 0 waited 400 - 100 = 300 ticks = 0.3 s, on the
 * call path MPI_Recv<main, once; both ranks run 0..1000, so the
 * processes' time is 2 s and the wait 15 %.  No other pattern applies (no
 * collective, no MPI_Init or _Finalize, an eager send).  A trace without
 * MPI or OpenMP has no section (the suite's first trace, without the
 * message).
 */
static void write_wait_trace(const char *name, int mpi)
{
    OTF_FileManager *m = OTF_FileManager_open(16);
    OTF_Writer *w;

    ck_assert_ptr_nonnull(m);
    w = OTF_Writer_open(name, 2, m);
    ck_assert_ptr_nonnull(w);
    OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 1, "rank 0", 0));
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 2, "rank 1", 0));
    ck_assert(OTF_Writer_assignProcess(w, 1, 1));
    ck_assert(OTF_Writer_assignProcess(w, 2, 2));
    OTF_Writer_writeDefFunctionGroup(w, 0, 1, "Application");
    OTF_Writer_writeDefFunctionGroup(w, 0, 2, "MPI");
    OTF_Writer_writeDefProcessGroup(w, 0, 10, "MPI_COMM_WORLD", 2, (uint32_t[]){ 1, 2 });
    OTF_Writer_writeDefFunction(w, 0, 1, "main", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, 2, mpi ? "MPI_Recv" : "recv", 2, 0);
    OTF_Writer_writeDefFunction(w, 0, 3, mpi ? "MPI_Send" : "send", 2, 0);
    ck_assert(OTF_Writer_writeEnter(w, 0, 1, 1, 0));
    ck_assert(OTF_Writer_writeEnter(w, 0, 1, 2, 0));
    ck_assert(OTF_Writer_writeEnter(w, 100, 2, 1, 0));
    ck_assert(OTF_Writer_writeEnter(w, 400, 3, 2, 0));
    if (mpi)
        ck_assert(OTF_Writer_writeSendMsg(w, 400, 2, 1, 10, 7, 64, 0));
    ck_assert(OTF_Writer_writeLeave(w, 410, 3, 2, 0));
    if (mpi)
        ck_assert(OTF_Writer_writeRecvMsg(w, 450, 1, 2, 10, 7, 64, 0));
    ck_assert(OTF_Writer_writeLeave(w, 460, 2, 1, 0));
    ck_assert(OTF_Writer_writeLeave(w, 1000, 1, 1, 0));
    ck_assert(OTF_Writer_writeLeave(w, 1000, 1, 2, 0));
    ck_assert(OTF_Writer_close(w));
    OTF_FileManager_close(m);
}

static void remove_wait_trace(const char *name)
{
    char f[160];
    static const char *const ends[] = { ".otf", ".0.def", ".1.events", ".2.events" };

    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        snprintf(f, sizeof f, "%s%s", name, ends[i]);
        unlink(f);
    }
}

START_TEST(largest_waits)
{
    char name[128], err[512], *page = NULL;
    const char *ops[] = { name };
    struct vftr_report_opts o = { .prog = "test", .jobs = 1 };
    struct vftr_report *r;
    size_t len = 0;
    FILE *f;

    snprintf(name, sizeof name, "/tmp/test_report_waits.%ld", (long)getpid());
    write_wait_trace(name, 1);
    ck_assert_msg(vftr_report_collect(&r, ops, 1, &o, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r->have_waits, 1);
    ck_assert_uint_eq(r->nwaits, 1);
    ck_assert_str_eq(vftr_wait_pattern_info(r->waits[0].pattern)->key, "late_sender");
    ck_assert_str_eq(r->waits[0].name, "MPI_Recv<main");
    ck_assert_uint_eq(r->waits[0].process, 1);
    ck_assert_double_eq_tol(r->waits[0].time, 0.3, 1e-12);
    ck_assert_double_eq_tol(r->waits[0].max, 0.3, 1e-12);
    ck_assert_double_eq(r->waits[0].count, 1);
    ck_assert_double_eq_tol(r->wait_total, 0.3, 1e-12);
    ck_assert_double_eq_tol(r->wait_proc_time, 2.0, 1e-12);
    ck_assert_uint_eq(vftr_report_nwarnings(r), 0);
    f = open_memstream(&page, &len);
    ck_assert_int_eq(vftr_report_write_html(r, f), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(page, "<a href=\"#summary\">Summary</a><a href=\"#waits\">"));
    ck_assert_ptr_nonnull(strstr(page, "waits: 300 ms in all (15.0% of the processes' "
                                       "2.00 s)</p>"));
    /* shown as vftr-stats --waits prints it, exact in data-v */
    ck_assert_ptr_nonnull(strstr(page, ">late_sender</td><td data-v=\"0.3\">300 ms</td>"
                                       "<td data-v=\"15\">15.0%</td><td>1</td>"
                                       "<td data-v=\"0.3\">300 ms</td>"
                                       "<td title=\"rank 0\">1</td>"
                                       "<td class=\"name\">MPI_Recv&lt;main</td></tr>"));
    free(page);
    vftr_report_free(r);
    remove_wait_trace(name);

    /* the same calls under names that are no MPI: no analysis, no section */
    write_wait_trace(name, 0);
    ck_assert_msg(vftr_report_collect(&r, ops, 1, &o, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r->have_waits, 0);
    page = NULL;
    f = open_memstream(&page, &len);
    ck_assert_int_eq(vftr_report_write_html(r, f), 0);
    fclose(f);
    ck_assert_ptr_null(strstr(page, "id=\"waits\""));
    ck_assert_ptr_null(strstr(page, "href=\"#waits\""));
    ck_assert_ptr_nonnull(strstr(page, "id=\"summary\""));
    free(page);
    vftr_report_free(r);
    remove_wait_trace(name);
}
END_TEST

/*
 * The group profile (derived from the function replay, replay.h) against
 * figures worked out by hand, on a trace with nesting and recursion inside
 * a group, a group nested in itself, and a thread folded into its rank.
 * Groups: Application (main 1, f 2, r 3), MPI (m1 4, m2 5).  1000 ticks
 * per second.
 *   P1 (rank 0): main 0..200 { f 10..100 { r 20..90 { r 30..80 {
 *       m1 40..70 { m2 50..60 } } } }, m1 110..130 }
 *   P3 (thread of rank 0): m2 10..30
 *   P2 (rank 1): main 0..200 { m1 50..150 }
 * Rank 0, Application: calls main + f + 2 r = 4; exclusive main 10 + 10 +
 *   70 = 90, f 10 + 10, r 4 x 10 = 40: 150; inclusive once: 0..200 = 200
 *   (the sum of the functions' inclusive times would be 410).
 * Rank 0, MPI: calls 2 m1 + m2 + P3's m2 = 4; exclusive m1 10 + 10 + 20,
 *   m2 10, P3's m2 20: 70; inclusive once 40..70 + 110..130 on P1 and
 *   10..30 on P3: 70 (m2 inside m1 counts once).
 * Rank 1: Application calls 1, exclusive 100, inclusive 200; MPI calls 1,
 *   exclusive and inclusive 100.
 * So Application: calls 5, exclusive 250 (min 100, max 150), inclusive
 * 400; MPI: calls 5, exclusive 170 (min 70, max 100), inclusive 170.
 *
 * With `mismatch` P2 instead runs main 0..40 { m1 10..40 { m2 20..30 } }
 * with m1's leave at 30 (m2 still on top) and main's at 40: by function,
 * m1's leave closes m2 and m1 at 30; by group, it closes the MPI frame on
 * top (m2) only, and main's leave then closes m1 and main at 40.  vftr-stats
 * --groups replays the group tokens, so rank 1 has MPI exclusive 20 + 10 =
 * 30 and inclusive 10..40 = 30, Application exclusive 10, inclusive 40:
 * the figures of the function replay (MPI 20) must not be used there.
 */
enum { G_MAIN = 1, G_F, G_R, G_M1, G_M2 };

static void write_group_trace(const char *name, int mismatch)
{
    OTF_FileManager *m = OTF_FileManager_open(16);
    OTF_Writer *w;
    /* time, process, function, enter (1) or leave (0), in time order */
    static const uint32_t ev[][4] = {
        { 0, 1, G_MAIN, 1 }, { 10, 1, G_F, 1 }, { 10, 3, G_M2, 1 }, { 20, 1, G_R, 1 },
        { 30, 1, G_R, 1 }, { 30, 3, G_M2, 0 }, { 40, 1, G_M1, 1 }, { 50, 1, G_M2, 1 },
        { 60, 1, G_M2, 0 }, { 70, 1, G_M1, 0 }, { 80, 1, G_R, 0 }, { 90, 1, G_R, 0 },
        { 100, 1, G_F, 0 }, { 110, 1, G_M1, 1 }, { 130, 1, G_M1, 0 }, { 200, 1, G_MAIN, 0 },
    };
    static const uint32_t p2[][4] = {
        { 0, 2, G_MAIN, 1 }, { 50, 2, G_M1, 1 }, { 150, 2, G_M1, 0 }, { 200, 2, G_MAIN, 0 },
    };
    static const uint32_t p2bad[][4] = {
        { 0, 2, G_MAIN, 1 }, { 10, 2, G_M1, 1 }, { 20, 2, G_M2, 1 }, { 30, 2, G_M1, 0 },
        { 40, 2, G_MAIN, 0 },
    };

    ck_assert_ptr_nonnull(m);
    w = OTF_Writer_open(name, 2, m);
    ck_assert_ptr_nonnull(w);
    OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 1, "rank 0", 0));
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 2, "rank 1", 0));
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 3, "rank 0 thread", 1));
    ck_assert(OTF_Writer_assignProcess(w, 1, 1));
    ck_assert(OTF_Writer_assignProcess(w, 3, 1));
    ck_assert(OTF_Writer_assignProcess(w, 2, 2));
    OTF_Writer_writeDefFunctionGroup(w, 0, 1, "Application");
    OTF_Writer_writeDefFunctionGroup(w, 0, 2, "MPI");
    OTF_Writer_writeDefFunction(w, 0, G_MAIN, "main", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, G_F, "f", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, G_R, "r", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, G_M1, "m1", 2, 0);
    OTF_Writer_writeDefFunction(w, 0, G_M2, "m2", 2, 0);
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        ck_assert(ev[i][3] ? OTF_Writer_writeEnter(w, ev[i][0], ev[i][2], ev[i][1], 0)
                           : OTF_Writer_writeLeave(w, ev[i][0], ev[i][2], ev[i][1], 0));
    for (size_t i = 0; i < (mismatch ? sizeof p2bad / sizeof p2bad[0] : sizeof p2 / sizeof p2[0]);
         i++) {
        const uint32_t *e = mismatch ? p2bad[i] : p2[i];

        ck_assert(e[3] ? OTF_Writer_writeEnter(w, e[0], e[2], e[1], 0)
                       : OTF_Writer_writeLeave(w, e[0], e[2], e[1], 0));
    }
    ck_assert(OTF_Writer_close(w));
    OTF_FileManager_close(m);
}

/* The row of group `name` in the report's group table. */
static const struct vftr_profile_row *group_row(const struct vftr_report *r, const char *name)
{
    for (size_t i = 0; i < r->groups.prof.nrows; i++)
        if (strcmp(r->groups.rows[i].name, name) == 0)
            return r->groups.rows[i].p;
    ck_abort_msg("no group %s", name);
    return NULL;
}

static void check_group(const struct vftr_profile_row *g, uint64_t calls, uint64_t excl,
                        uint64_t incl, uint64_t min, uint64_t max)
{
    ck_assert_uint_eq(g->calls, calls);
    ck_assert_uint_eq(g->excl, excl);
    ck_assert_uint_eq(g->incl, incl);
    ck_assert_uint_eq(g->excl_min, min);
    ck_assert_uint_eq(g->excl_max, max);
    ck_assert_uint_eq(g->nprocs, 2);
}

START_TEST(group_figures)
{
    char name[128], err[512];
    const char *ops[] = { name };
    struct vftr_report *r;

    snprintf(name, sizeof name, "/tmp/test_report_groups.%ld", (long)getpid());
    for (int mismatch = 0; mismatch <= 1; mismatch++) {
        write_group_trace(name, mismatch);
        for (unsigned jobs = 1; jobs <= 2; jobs++) {
            struct vftr_report_opts o = { .prog = "test", .jobs = jobs, .no_waits = 1 };

            ck_assert_msg(vftr_report_collect(&r, ops, 1, &o, err, sizeof err) == 0, "%s", err);
            ck_assert_uint_eq(r->groups.prof.nrows, 2);
            if (!mismatch) {
                check_group(group_row(r, "Application"), 5, 250, 400, 100, 150);
                check_group(group_row(r, "MPI"), 5, 170, 170, 70, 100);
                ck_assert_uint_eq(vftr_report_nwarnings(r), 0);
            } else {
                /* rank 1: Application 10 exclusive, 40 inclusive; MPI 30, 30 */
                check_group(group_row(r, "Application"), 5, 160, 240, 10, 150);
                check_group(group_row(r, "MPI"), 6, 100, 100, 30, 70);
                ck_assert_uint_eq(vftr_report_nwarnings(r), 1);   /* the leave */
            }
            same_as_source(r, &r->groups, 1);
            same_as_source(r, &r->funcs, 0);
            vftr_report_free(r);
        }
        remove_wait_trace(name);
    }
}
END_TEST

START_TEST(bad_input)
{
    const char *ops[] = { "/nonexistent/trace" };
    struct vftr_report_opts o = { .prog = "test" };
    struct vftr_report *r = (struct vftr_report *)1;
    char err[512];

    ck_assert_int_eq(vftr_report_collect(&r, ops, 1, &o, err, sizeof err), -ENOENT);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/trace"));
    ops[0] = stub;
    o.window = "5:5";
    ck_assert_int_eq(vftr_report_collect(&r, ops, 1, &o, err, sizeof err), -EINVAL);
    o.window = "1q:";
    ck_assert_int_eq(vftr_report_collect(&r, ops, 1, &o, err, sizeof err), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("core");

    tcase_add_unchecked_fixture(tc, write_trace, remove_trace);
    tcase_add_test(tc, timeline_bins);
    tcase_add_test(tc, figures_are_the_models);
    tcase_add_test(tc, same_bytes_and_escaped);
    tcase_add_test(tc, svg_charts);
    tcase_add_test(tc, largest_waits);
    tcase_add_test(tc, group_figures);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
