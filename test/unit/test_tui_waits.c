/*
 * test_tui_waits.c — Check suite for vftr-tui's view of the wait analysis
 * (tui/waits.c), with no terminal, on one hand-built trace (timer 10^6
 * ticks/s; functions 1 main, 2 MPI_Recv, 3 MPI_Send, 4 work):
 *
 *   process 1 "Rank 0": main [0, 1000) { work [0, 500),
 *                       MPI_Send [500, 520) (sends to 2 at 510) }
 *   process 2 "Rank 1": main [0, 1100) { MPI_Recv [100, 600) (receives
 *                       from 1 at 590) }
 *
 * By hand: process 2 waits in MPI_Recv from 100 until process 1 entered
 * its MPI_Send at 500 — Late Sender, 400 ticks, late partner process 1 in
 * MPI_Send<main (the call open just after 500).  Process 2 ends last
 * (1100), so the critical path is process 2's chain: back through its
 * wait to process 1 at 500, i.e. process 1 [0, 500) then process 2 [500,
 * 1100): 1100 ticks.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "waits.h"
#include "otf.h"

static char trace[1024];

static int write_trace(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_Writer *w = fm ? OTF_Writer_open(stub, 1, fm) : NULL;
    int ok = w != NULL;

    ok = ok && OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 1, "Rank 0", 0);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 2, "Rank 1", 0);
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 2, "MPI_Recv", 0, 0);
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 3, "MPI_Send", 0, 0);
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 4, "work", 0, 0);
    ok = ok && OTF_Writer_assignProcess(w, 1, 1);
    ok = ok && OTF_Writer_assignProcess(w, 2, 1);
    /* one stream: in time order */
    ok = ok && OTF_Writer_writeEnter(w, 0, 1, 1, 0);
    ok = ok && OTF_Writer_writeEnter(w, 0, 1, 2, 0);
    ok = ok && OTF_Writer_writeEnter(w, 0, 4, 1, 0);
    ok = ok && OTF_Writer_writeEnter(w, 100, 2, 2, 0);
    ok = ok && OTF_Writer_writeLeave(w, 500, 4, 1, 0);
    ok = ok && OTF_Writer_writeEnter(w, 500, 3, 1, 0);
    ok = ok && OTF_Writer_writeSendMsg(w, 510, 1, 2, 0, 7, 8, 0);
    ok = ok && OTF_Writer_writeLeave(w, 520, 3, 1, 0);
    ok = ok && OTF_Writer_writeRecvMsg(w, 590, 2, 1, 0, 7, 8, 0);
    ok = ok && OTF_Writer_writeLeave(w, 600, 2, 2, 0);
    ok = ok && OTF_Writer_writeLeave(w, 1000, 1, 1, 0);
    ok = ok && OTF_Writer_writeLeave(w, 1100, 1, 2, 0);
    if (w)
        ok = OTF_Writer_close(w) && ok;
    if (fm)
        OTF_FileManager_close(fm);
    return ok ? 0 : -1;
}

static struct tui_model *open_model(void)
{
    char err[512];
    struct tui_model *m = tui_model_open(trace, err, sizeof err);

    ck_assert_msg(m != NULL, "open %s: %s", trace, err);
    tui_model_set_columns(m, 10);
    return m;
}

static void update(struct tui_waits *w, struct tui_model *m, unsigned kinds, uint64_t a,
                   uint64_t b)
{
    char err[512];

    ck_assert_msg(tui_waits_update(w, m, kinds, a, b, err, sizeof err) == 0, "update: %s", err);
}

START_TEST(test_waits_table_and_cells)
{
    struct tui_model *m = open_model();
    struct tui_waits *w = tui_waits_new();
    const struct tui_wait_row *r;
    size_t n;

    ck_assert_ptr_nonnull(w);
    /* nothing is known before the first update */
    ck_assert_uint_eq(tui_waits_missing(w, TUI_WAITS_WAITS | TUI_WAITS_CRITPATH, 0, 1101),
                      TUI_WAITS_WAITS | TUI_WAITS_CRITPATH);
    ck_assert(!tui_waits_have(w, TUI_WAITS_WAITS, 0, 1101));
    update(w, m, TUI_WAITS_WAITS, 0, 1101);
    ck_assert(tui_waits_have(w, TUI_WAITS_WAITS, 0, 1101));
    ck_assert_uint_eq(tui_waits_missing(w, TUI_WAITS_WAITS | TUI_WAITS_CRITPATH, 0, 1101),
                      TUI_WAITS_CRITPATH);
    r = tui_waits_rows(w, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(r[0].pattern, VFTR_WAIT_LATE_SENDER);
    ck_assert_uint_eq(r[0].process, 2);
    ck_assert_uint_eq(r[0].time, 400);
    ck_assert_uint_eq(r[0].count, 1);
    ck_assert_uint_eq(r[0].max, 400);
    ck_assert_str_eq(r[0].callpath, "MPI_Recv<main");
    ck_assert_uint_eq(tui_waits_total(w), 400);
    ck_assert_uint_eq(tui_waits_proc_time(w), 1000 + 1100);
    /* cells: the wait is [100, 500) on process 2 */
    ck_assert_uint_eq(tui_waits_cell(w, 2, 0, 100), 0);
    ck_assert_uint_eq(tui_waits_cell(w, 2, 0, 101), VFTR_WAIT_LATE_SENDER + 1);
    ck_assert_uint_eq(tui_waits_cell(w, 2, 300, 310), VFTR_WAIT_LATE_SENDER + 1);
    ck_assert_uint_eq(tui_waits_cell(w, 2, 499, 600), VFTR_WAIT_LATE_SENDER + 1);
    ck_assert_uint_eq(tui_waits_cell(w, 2, 500, 600), 0);
    ck_assert_uint_eq(tui_waits_cell(w, 1, 0, 1100), 0);
    ck_assert_uint_eq(tui_waits_cell(w, 3, 0, 1100), 0);
    ck_assert_int_eq(tui_waits_symbol(VFTR_WAIT_LATE_SENDER), '=');
    ck_assert_int_eq(tui_waits_symbol(VFTR_WAIT_BARRIER), '%');
    ck_assert_int_eq(tui_waits_symbol(VFTR_WAIT_OMP_LOCK), '&');
    tui_waits_free(w);
    tui_model_free(m);
}
END_TEST

START_TEST(test_cursor_partner)
{
    struct tui_model *m = open_model();
    struct tui_waits *w = tui_waits_new();
    const struct tui_wait_cursor *c;
    char err[512];

    update(w, m, TUI_WAITS_WAITS | TUI_WAITS_CRITPATH, 0, 1101);
    ck_assert_int_eq(tui_waits_cursor(w, m, 2, 300, 310, &c, err, sizeof err), 0);
    ck_assert(c->wait);
    ck_assert_uint_eq(c->w.pattern, VFTR_WAIT_LATE_SENDER);
    ck_assert_uint_eq(c->w.start, 100);
    ck_assert_uint_eq(c->w.end, 500);
    ck_assert_uint_eq(c->w.cause, 1);
    ck_assert_uint_eq(c->w.cause_time, 500);
    ck_assert_str_eq(c->path, "MPI_Recv<main");
    ck_assert_str_eq(c->partner_path, "MPI_Send<main");
    /* the critical path runs on process 1 there */
    ck_assert(c->on_cp);
    ck_assert_uint_eq(c->cp_process, 1);
    ck_assert_int_eq(tui_waits_cursor(w, m, 2, 700, 710, &c, err, sizeof err), 0);
    ck_assert(!c->wait);
    ck_assert(c->on_cp);
    ck_assert_uint_eq(c->cp_process, 2);
    ck_assert_int_eq(tui_waits_cursor(w, m, 1, 300, 310, &c, err, sizeof err), 0);
    ck_assert(!c->wait);
    tui_waits_free(w);
    tui_model_free(m);
}
END_TEST

START_TEST(test_critical_path_cells)
{
    struct tui_model *m = open_model();
    struct tui_waits *w = tui_waits_new();

    update(w, m, TUI_WAITS_CRITPATH, 0, 1101);
    ck_assert_uint_eq(tui_waits_cp_length(w), 1100);
    ck_assert(tui_waits_cp_cell(w, 1, 0, 10));
    ck_assert(tui_waits_cp_cell(w, 1, 490, 500));
    ck_assert(!tui_waits_cp_cell(w, 1, 500, 600));
    ck_assert(!tui_waits_cp_cell(w, 2, 400, 500));
    ck_assert(tui_waits_cp_cell(w, 2, 500, 510));
    ck_assert(tui_waits_cp_cell(w, 2, 1090, 1100));
    /* the waits were not asked for: none known */
    ck_assert(!tui_waits_have(w, TUI_WAITS_WAITS, 0, 1101));
    ck_assert_uint_eq(tui_waits_cell(w, 2, 300, 310), 0);
    tui_waits_free(w);
    tui_model_free(m);
}
END_TEST

/* A window clips the waits (as vftr-stats --time does); the results of
 * the last TUI_WAITS_CACHE windows are kept, the oldest goes first. */
START_TEST(test_window_and_cache)
{
    struct tui_model *m = open_model();
    struct tui_waits *w = tui_waits_new();
    const struct tui_wait_row *r;
    size_t n;

    update(w, m, TUI_WAITS_WAITS, 0, 300);
    r = tui_waits_rows(w, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(r[0].time, 200);
    ck_assert_uint_eq(tui_waits_cell(w, 2, 300, 400), 0);    /* outside [0, 300) */
    update(w, m, TUI_WAITS_WAITS, 450, 1101);
    r = tui_waits_rows(w, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(r[0].time, 50);
    update(w, m, TUI_WAITS_WAITS, 600, 1101);
    tui_waits_rows(w, &n);
    ck_assert_uint_eq(n, 0);
    /* [0, 300) is still kept and becomes current again without reading */
    ck_assert_uint_eq(tui_waits_missing(w, TUI_WAITS_WAITS, 0, 300), 0);
    update(w, m, TUI_WAITS_WAITS, 0, 300);
    ck_assert_uint_eq(tui_waits_rows(w, &n)[0].time, 200);
    /* two more windows push out the least recently used: [450, 1101) */
    update(w, m, TUI_WAITS_WAITS, 0, 400);
    update(w, m, TUI_WAITS_WAITS, 0, 500);
    ck_assert_uint_eq(tui_waits_missing(w, TUI_WAITS_WAITS, 450, 1101), TUI_WAITS_WAITS);
    ck_assert_uint_eq(tui_waits_missing(w, TUI_WAITS_WAITS, 0, 300), 0);
    ck_assert_uint_eq(tui_waits_missing(w, TUI_WAITS_WAITS, 600, 1101), 0);
    tui_waits_free(w);
    tui_model_free(m);
}
END_TEST

static Suite *waits_suite(void)
{
    Suite *s = suite_create("tui_waits");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_waits_table_and_cells);
    tcase_add_test(tc, test_cursor_partner);
    tcase_add_test(tc, test_critical_path_cells);
    tcase_add_test(tc, test_window_and_cache);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    char dir[] = "/tmp/test_tui_waits.XXXXXX", cmd[1100];
    SRunner *sr;
    int failed;

    if (!mkdtemp(dir)) {
        perror("test_tui_waits: mkdtemp");
        return 1;
    }
    snprintf(trace, sizeof trace, "%s/mpi", dir);
    if (write_trace(trace) < 0) {
        fprintf(stderr, "test_tui_waits: cannot write the trace in %s\n", dir);
        return 1;
    }
    sr = srunner_create(waits_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_tui_waits: cannot remove %s\n", dir);
    return failed ? 1 : 0;
}
