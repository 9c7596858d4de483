/*
 * test_tui_model.c — Check suite for vftr-tui's model (tui/model.c) and
 * key table (tui/keys.c), with no terminal: timeline cells, window
 * profiles, details, zoom/jump arithmetic, search and sort, on the traces
 * of test_tui_fixture.h (every expected value worked out by hand there or
 * below).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "model.h"
#include "test_tui_fixture.h"

static char small[1024], plain[1024], loop_stub[1024], threads[1024], groups[1024];

static struct tui_model *open_model(const char *stub, size_t ncols)
{
    char err[512];
    struct tui_model *m = tui_model_open(stub, err, sizeof err);

    ck_assert_msg(m != NULL, "open %s: %s", stub, err);
    tui_model_set_columns(m, ncols);
    return m;
}

static void refresh(struct tui_model *m)
{
    char err[512];

    ck_assert_msg(tui_model_refresh(m, err, sizeof err) == 0, "refresh: %s", err);
}

static void set_window(struct tui_model *m, uint64_t t0, uint64_t t1)
{
    struct tui_view *v = tui_model_view(m);

    v->t0 = t0;
    v->t1 = t1;
    if (v->cursor < t0 || v->cursor >= t1)
        v->cursor = t0;
    tui_model_invalidate(m, 1);
}

/* The grid row of process index pi as letters: function id 1 -> 'm'
 * (main), 2 a, 3 b, 4 c, 5 d, 0 '.'. */
static const char *row(struct tui_model *m, size_t pi)
{
    static char buf[256];
    static const char letters[] = ".mabcd";
    const struct tui_data *d = tui_model_data(m);

    for (size_t c = 0; c < d->ncols; c++)
        buf[c] = letters[d->grid[pi * d->ncols + c]];
    buf[d->ncols] = '\0';
    return buf;
}

/* Columns of 100 ticks over [100, 1000): start times 100, 200, ... 900. */
START_TEST(test_timeline_depths)
{
    struct tui_model *m = open_model(plain, 9);
    struct tui_view *v = tui_model_view(m);

    set_window(m, 100, 1000);
    refresh(m);
    ck_assert_int_eq(tui_model_data(m)->sampled, 0);
    ck_assert_str_eq(row(m, 0), "mmmmmmmmm");
    ck_assert_str_eq(row(m, 1), "mmmmmmmm.");     /* P2's main ends at 900 */
    v->depth = 2;
    tui_model_invalidate(m, 1);
    refresh(m);
    /* a [200,300), b [400,700); d [150,850) entered inside column 0 */
    ck_assert_str_eq(row(m, 0), ".a.bbb...");
    ck_assert_str_eq(row(m, 1), "dddddddd.");
    v->depth = 3;
    tui_model_invalidate(m, 1);
    refresh(m);
    ck_assert_str_eq(row(m, 0), "...c.....");     /* c [450, 500) inside column 3 */
    tui_model_free(m);
}
END_TEST

/* Snapshots or not, the same window shows the same cells. */
START_TEST(test_timeline_same_with_snapshots)
{
    const char *stubs[] = { small, plain };
    char rows[2][2][64];

    for (int k = 0; k < 2; k++) {
        struct tui_model *m = open_model(stubs[k], 5);

        tui_model_view(m)->depth = 2;
        set_window(m, 650, 900);      /* columns of 50: 650 700 750 800 850 */
        refresh(m);
        snprintf(rows[k][0], sizeof rows[k][0], "%s", row(m, 0));
        snprintf(rows[k][1], sizeof rows[k][1], "%s", row(m, 1));
        tui_model_free(m);
    }
    ck_assert_str_eq(rows[0][0], "b....");
    ck_assert_str_eq(rows[0][1], "dddd.");
    ck_assert_str_eq(rows[1][0], rows[0][0]);
    ck_assert_str_eq(rows[1][1], rows[0][1]);
}
END_TEST

static const struct vftr_profile_row *prof_row(struct tui_model *m, uint32_t f)
{
    const struct tui_data *d = tui_model_data(m);

    for (size_t i = 0; i < d->prof.nrows; i++)
        if (d->prof.rows[i].function == f)
            return &d->prof.rows[i];
    return NULL;
}

/* [450, 650): P1 main and b open, c [450, 500); P2 main, d open. */
START_TEST(test_window_profile)
{
    struct tui_model *m = open_model(small, 10);
    const struct vftr_profile_row *r;

    set_window(m, 450, 650);
    refresh(m);
    ck_assert_int_eq(tui_model_data(m)->prof_from_summaries, 0);
    r = prof_row(m, 4);       /* c */
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->calls, 1);
    ck_assert_uint_eq(r->excl, 50);
    r = prof_row(m, 3);       /* b: 200 inside, 50 of them in c */
    ck_assert_uint_eq(r->calls, 0);
    ck_assert_uint_eq(r->excl, 150);
    ck_assert_uint_eq(r->incl, 200);
    r = prof_row(m, 5);       /* d */
    ck_assert_uint_eq(r->excl, 200);
    r = prof_row(m, 1);       /* main: never on top in the window */
    ck_assert_uint_eq(r->excl, 0);
    ck_assert_uint_eq(r->nprocs, 2);
    ck_assert_uint_eq(tui_model_data(m)->prof.total, 400);
    tui_model_free(m);
}
END_TEST

/* Stack and messages just after the cursor. */
START_TEST(test_details)
{
    struct tui_model *m = open_model(small, 10);
    struct tui_view *v = tui_model_view(m);
    const struct tui_data *d;

    set_window(m, 100, 1000);
    v->cursor = 460;
    refresh(m);
    d = tui_model_data(m);
    ck_assert_uint_eq(d->nstack, 3);
    ck_assert_uint_eq(d->stack[0].function, 1);
    ck_assert_uint_eq(d->stack[1].function, 3);
    ck_assert_uint_eq(d->stack[1].enter, 400);
    ck_assert_uint_eq(d->stack[2].function, 4);
    ck_assert_uint_eq(d->nmsgs, 1);
    ck_assert_uint_eq(d->msgs[0].time, 460);
    ck_assert_uint_eq(d->msgs[0].receiver, 2);
    v->proc_sel = 1;
    v->cursor = 850;            /* d left at 850: only main */
    tui_model_invalidate(m, 0);
    refresh(m);
    ck_assert_uint_eq(d->nstack, 1);
    ck_assert_uint_eq(d->nmsgs, 0);
    tui_model_free(m);
}
END_TEST

/*
 * Two messages P1 -> P2 with one tag on two communicators: comm 0 sent at
 * 200 (10 bytes), comm 1 sent at 300 (20 bytes); P2 receives the comm 1 one
 * first (400), then the comm 0 one (600).  At the cursor 500 the message in
 * flight is the comm 0 one sent at 200: the receive at 400 completed the
 * other, whatever their tags say.
 */
static int write_comms(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_Writer *w = fm ? OTF_Writer_open(stub, 2, fm) : NULL;
    int ok = w != NULL;

    ok = ok && OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 2, "P2", 0);
    ok = ok && OTF_Writer_assignProcess(w, 1, 1);
    ok = ok && OTF_Writer_assignProcess(w, 2, 2);
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    ok = ok && OTF_Writer_writeEnter(w, 100, 1, 1, 0);
    ok = ok && OTF_Writer_writeSendMsg(w, 200, 1, 2, 0, 5, 10, 0);
    ok = ok && OTF_Writer_writeSendMsg(w, 300, 1, 2, 1, 5, 20, 0);
    ok = ok && OTF_Writer_writeLeave(w, 1000, 1, 1, 0);
    ok = ok && OTF_Writer_writeEnter(w, 100, 1, 2, 0);
    ok = ok && OTF_Writer_writeRecvMsg(w, 400, 2, 1, 1, 5, 20, 0);
    ok = ok && OTF_Writer_writeRecvMsg(w, 600, 2, 1, 0, 5, 10, 0);
    ok = ok && OTF_Writer_writeLeave(w, 1000, 1, 2, 0);
    ok = OTF_Writer_close(w) && ok;
    OTF_FileManager_close(fm);
    return ok ? 0 : -1;
}

START_TEST(test_details_communicators)
{
    char stub[1100];
    struct tui_model *m;
    struct tui_view *v;
    const struct tui_data *d;

    snprintf(stub, sizeof stub, "%s/comms", fixture_dir());
    ck_assert_int_eq(write_comms(stub), 0);
    m = open_model(stub, 10);
    v = tui_model_view(m);
    set_window(m, 100, 1000);
    v->cursor = 500;
    refresh(m);
    d = tui_model_data(m);
    ck_assert_uint_eq(d->nmsgs, 1);
    ck_assert_uint_eq(d->msgs[0].time, 200);
    ck_assert_uint_eq(d->msgs[0].comm, 0);
    ck_assert_uint_eq(d->msgs[0].length, 10);
    /* a window starting after both sends: the one left comes from the state */
    set_window(m, 450, 1000);
    v->cursor = 500;
    refresh(m);
    ck_assert_uint_eq(d->nmsgs, 1);
    ck_assert_uint_eq(d->msgs[0].time, 200);
    ck_assert_uint_eq(d->msgs[0].comm, 0);
    tui_model_free(m);
}
END_TEST

/* Trace [100, 1001), 10 columns. */
START_TEST(test_zoom_arithmetic)
{
    struct tui_model *m = open_model(small, 10);
    struct tui_view *v = tui_model_view(m);

    ck_assert_uint_eq(v->t0, 100);
    ck_assert_uint_eq(v->t1, 1001);
    v->cursor = 550;
    tui_model_zoom(m, 0.5);
    /* span 450; cursor keeps its place: 450/901 of the window -> 224 ticks */
    ck_assert_uint_eq(v->t1 - v->t0, 450);
    ck_assert_uint_eq(v->t0, 550 - 224);
    ck_assert_uint_eq(v->cursor, 550);
    tui_model_zoom(m, 2.0);
    /* span 900; the cursor's place (224/450) asks for t0 102, but the
     * window must end with the trace: t0 101 */
    ck_assert_uint_eq(v->t1 - v->t0, 900);
    ck_assert_uint_eq(v->t0, 101);
    tui_model_zoom(m, 2.0);
    ck_assert_uint_eq(v->t0, 100);      /* the whole trace at most */
    ck_assert_uint_eq(v->t1, 1001);
    for (int i = 0; i < 20; i++)
        tui_model_zoom(m, 0.5);
    ck_assert_uint_eq(v->t1 - v->t0, 10);       /* one tick per column */
    ck_assert(v->cursor >= v->t0 && v->cursor < v->t1);
    tui_model_zoom_full(m);
    ck_assert_uint_eq(v->t1 - v->t0, 901);
    /* mark and zoom to the marked range */
    ck_assert_int_eq(tui_model_zoom_mark(m), -EINVAL);
    v->mark = 700;
    v->have_mark = 1;
    v->cursor = 300;
    ck_assert_int_eq(tui_model_zoom_mark(m), 0);
    ck_assert_uint_eq(v->t0, 300);
    ck_assert_uint_eq(v->t1, 701);
    tui_model_free(m);
}
END_TEST

START_TEST(test_jump_and_columns)
{
    struct tui_model *m = open_model(small, 10);
    struct tui_view *v = tui_model_view(m);

    set_window(m, 100, 550);              /* span 450, columns of 45 */
    ck_assert_uint_eq(tui_model_col_time(m, 1), 145);
    ck_assert_uint_eq(tui_model_time_col(m, 144), 0);
    ck_assert_uint_eq(tui_model_time_col(m, 145), 1);
    ck_assert_uint_eq(tui_model_time_col(m, 549), 9);
    tui_model_jump(m, 300);               /* visible: window stays */
    ck_assert_uint_eq(v->t0, 100);
    ck_assert_uint_eq(v->cursor, 300);
    tui_model_jump(m, 950);               /* centred, then clamped to the end */
    ck_assert_uint_eq(v->t0, 1001 - 450);
    ck_assert_uint_eq(v->cursor, 950);
    tui_model_jump(m, 5000);              /* beyond the trace: its last tick */
    ck_assert_uint_eq(v->cursor, 1000);
    /* the cursor pans the window at the right edge by one column */
    v->cursor = tui_model_col_time(m, 9);
    tui_model_move_cursor(m, 1);
    ck_assert_uint_eq(v->t0, 1001 - 450);         /* already at the end */
    set_window(m, 100, 550);
    v->cursor = tui_model_col_time(m, 9);
    tui_model_move_cursor(m, 1);
    ck_assert_uint_eq(v->t0, 145);
    ck_assert_uint_eq(tui_model_time_col(m, v->cursor), 9);
    tui_model_free(m);
}
END_TEST

static size_t sel_function(struct tui_model *m)
{
    const struct tui_data *d = tui_model_data(m);

    return d->prof.rows[d->order[tui_model_view(m)->prof_sel]].function;
}

START_TEST(test_search_and_sort)
{
    struct tui_model *m = open_model(small, 10);
    struct tui_view *v = tui_model_view(m);
    char err[512];

    set_window(m, 100, 1000);
    refresh(m);
    /* excl over [100, 1000): main 500+100, d 700, b 250, a 100, c 50 */
    ck_assert_uint_eq(sel_function(m), 5);          /* d first */
    ck_assert_int_eq(tui_model_search(m, "^[bc]$", err, sizeof err), 0);
    ck_assert_int_eq(tui_model_search_next(m, 1), 0);
    ck_assert_uint_eq(v->func_sel, 3);              /* b (row 2) */
    ck_assert_int_eq(tui_model_search_next(m, 1), 0);
    ck_assert_uint_eq(v->func_sel, 4);              /* c (row 4) */
    ck_assert_int_eq(tui_model_search_next(m, 1), 0);
    ck_assert_uint_eq(v->func_sel, 3);              /* wraps */
    ck_assert_int_eq(tui_model_search_next(m, -1), 0);
    ck_assert_uint_eq(v->func_sel, 4);
    ck_assert_int_eq(tui_model_search(m, "(", err, sizeof err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "offset"));
    ck_assert_int_eq(tui_model_search(m, "zzz", err, sizeof err), 0);
    ck_assert_int_eq(tui_model_search_next(m, 1), -ENOENT);
    /* sort cycling keeps the chosen function selected */
    v->func_sel = 2;
    tui_model_sort_next(m);
    ck_assert_int_eq(v->sort, TUI_COL_INCL);
    ck_assert_uint_eq(sel_function(m), 2);
    tui_model_sort_next(m);
    tui_model_sort_next(m);
    tui_model_sort_next(m);
    ck_assert_int_eq(v->sort, TUI_COL_NAME);
    {
        const struct tui_data *d = tui_model_data(m);

        ck_assert_uint_eq(d->prof.rows[d->order[0]].function, 2);     /* a */
        ck_assert_uint_eq(d->prof.rows[d->order[4]].function, 1);     /* main */
    }
    tui_model_sort_next(m);
    ck_assert_int_eq(v->sort, TUI_COL_EXCL);
    tui_model_free(m);
}
END_TEST

/* Zoomed out over many snapshots: sampled cells, profile from events. */
START_TEST(test_sampled_and_find)
{
    struct tui_model *m = open_model(loop_stub, 50);
    struct tui_view *v = tui_model_view(m);
    const struct tui_data *d;
    char err[512];

    refresh(m);
    d = tui_model_data(m);
    ck_assert_int_eq(d->sampled, 1);
    for (size_t c = 0; c < 50; c++)
        ck_assert_uint_eq(d->grid[c], 1);          /* main everywhere */
    /* no summaries: the profile comes from the events: 20000 work calls
     * of 40 ticks per process */
    ck_assert_uint_eq(prof_row(m, 3)->calls, 40000);
    ck_assert_uint_eq(prof_row(m, 3)->excl, 40000 * 40);
    /* next call of work on P1 after 1000005: iteration 10000 at 1000020 */
    v->func_sel = 3;
    v->cursor = 1000005;
    ck_assert_int_eq(tui_model_find_event(m, 1, err, sizeof err), 0);
    ck_assert_uint_eq(v->cursor, 1000020);
    ck_assert_int_eq(tui_model_find_event(m, -1, err, sizeof err), 0);
    ck_assert_uint_eq(v->cursor, 999920);
    v->cursor = 5;
    ck_assert_int_eq(tui_model_find_event(m, -1, err, sizeof err), -ENOENT);
    v->func_sel = 0;
    ck_assert_int_eq(tui_model_find_event(m, 1, err, sizeof err), -EINVAL);
    tui_model_free(m);
}
END_TEST

START_TEST(test_bad_traces)
{
    char err[512];
    char path[1100];

    ck_assert_ptr_null(tui_model_open("/nonexistent/x.otf", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "No such file"));
    snprintf(path, sizeof path, "%s/empty", fixture_dir());
    ck_assert_ptr_null(tui_model_open(path, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, ": the trace has no events"));
}
END_TEST

/* Threads under their rank: rows, folding, selection moves past hidden rows. */
START_TEST(test_threads_fold)
{
    struct tui_model *m = open_model(threads, 4);
    struct tui_view *v = tui_model_view(m);
    struct tui_app app = { .model = m };
    const size_t *rows;
    size_t n;
    const struct tui_proc *procs = tui_model_procs(m, &n);

    ck_assert_uint_eq(n, 4);
    /* ids 1 (rank 0), 2 (rank 1), 3 (thread of 1), 4 (thread of 2) */
    rows = tui_model_rows(m, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(procs[rows[0]].id, 1);
    ck_assert_uint_eq(procs[rows[1]].id, 3);
    ck_assert_uint_eq(procs[rows[2]].id, 2);
    ck_assert_uint_eq(procs[rows[3]].id, 4);
    ck_assert_int_eq(procs[rows[1]].child, 1);
    ck_assert_int_eq(procs[rows[0]].nchildren, 1);
    tui_key_dispatch(&app, 'j');                    /* to the thread of rank 0 */
    ck_assert_uint_eq(procs[v->proc_sel].id, 3);
    ck_assert_int_eq(tui_key_dispatch(&app, 'f'), TUI_REDRAW);     /* fold rank 0 */
    rows = tui_model_rows(m, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(procs[v->proc_sel].id, 1);    /* selection went to the rank */
    tui_key_dispatch(&app, 'j');
    ck_assert_uint_eq(procs[v->proc_sel].id, 2);    /* the hidden thread is skipped */
    ck_assert_int_eq(tui_model_fold(m, v->proc_sel), 0);
    rows = tui_model_rows(m, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(tui_model_fold(m, 0), 0);      /* unfold rank 0 */
    rows = tui_model_rows(m, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(procs[rows[1]].id, 3);
    /* the thread's own timeline: its work [200, 300) at depth 1 */
    set_window(m, 100, 500);
    refresh(m);
    ck_assert_str_eq(row(m, 2), ".m..");            /* letters: 1 -> m */
    tui_model_free(m);
}
END_TEST

/* The key table: every key at most once, help lines from it. */
START_TEST(test_keys_table)
{
    char line[256];

    for (const struct tui_key *k = tui_keys; k->action; k++)
        for (const struct tui_key *j = k + 1; j->action; j++)
            ck_assert_msg(k->key != j->key, "key %s bound twice", k->name ? k->name : "?");
    ck_assert_uint_gt(tui_keys_help_lines(), 20);
    tui_keys_help_line(2, line, sizeof line);
    ck_assert_ptr_nonnull(strstr(line, "Left, h"));
}
END_TEST

/* Actions through the table change the model. */
START_TEST(test_key_actions)
{
    struct tui_model *m = open_model(small, 10);
    struct tui_app app = { .model = m };
    struct tui_view *v = tui_model_view(m);

    refresh(m);
    ck_assert_int_eq(tui_key_dispatch(&app, '+'), TUI_REDRAW);
    ck_assert_uint_eq(v->t1 - v->t0, 450);
    ck_assert_int_eq(tui_key_dispatch(&app, '0'), TUI_REDRAW);
    ck_assert_uint_eq(v->t1 - v->t0, 901);
    ck_assert_int_eq(tui_key_dispatch(&app, 'j'), TUI_REDRAW);
    ck_assert_uint_eq(v->proc_sel, 1);
    ck_assert_int_eq(tui_key_dispatch(&app, 'd'), TUI_REDRAW);
    ck_assert_uint_eq(v->depth, 2);
    ck_assert_int_eq(tui_key_dispatch(&app, 's'), TUI_REDRAW);
    ck_assert_int_eq(v->sort, TUI_COL_INCL);
    ck_assert_str_eq(app.message, "sorted by incl");
    ck_assert_int_eq(tui_key_dispatch(&app, 'q'), TUI_QUIT);
    ck_assert_int_eq(tui_key_dispatch(&app, 0x7fff), TUI_NOTHING);
    tui_model_free(m);
}
END_TEST

/* Colouring by function or by group: paints, their names, the key. */
START_TEST(test_group_colours)
{
    struct tui_model *m = open_model(groups, 10);
    struct tui_view *v = tui_model_view(m);
    struct tui_app app = { .model = m };
    size_t ng;
    const struct tui_group *g = tui_model_groups(m, &ng);

    ck_assert_uint_eq(ng, 2);
    ck_assert_str_eq(g[1].name, "MPI");
    ck_assert_uint_eq(tui_model_paints(m), 3);
    ck_assert_int_eq(tui_model_paint(m, 2), 1);          /* MPI_Send: 2nd function */
    ck_assert_int_eq(tui_model_paint(m, 3), 2);
    ck_assert_int_eq(tui_model_paint(m, 9), -1);         /* undefined */
    ck_assert_int_eq(tui_key_dispatch(&app, 'c'), TUI_REDRAW);
    ck_assert_int_eq(v->color_by_group, 1);
    ck_assert_uint_eq(tui_model_paints(m), 2);
    ck_assert_int_eq(tui_model_paint(m, 1), 0);          /* main: APP */
    ck_assert_int_eq(tui_model_paint(m, 3), 0);          /* compute: APP */
    ck_assert_int_eq(tui_model_paint(m, 2), 1);          /* MPI_Send: MPI */
    ck_assert_str_eq(tui_model_paint_name(m, 1), "MPI");
    ck_assert_int_eq(tui_key_dispatch(&app, 'c'), TUI_REDRAW);
    ck_assert_int_eq(v->color_by_group, 0);
    ck_assert_str_eq(tui_model_paint_name(m, 1), "MPI_Send");
    tui_model_free(m);
    /* a trace without groups says so and stays by function */
    m = open_model(small, 10);
    app.model = m;
    ck_assert_int_eq(tui_key_dispatch(&app, 'c'), TUI_REDRAW);
    ck_assert_int_eq(tui_model_view(m)->color_by_group, 0);
    ck_assert_ptr_nonnull(strstr(app.message, "no function groups"));
    tui_model_free(m);
}
END_TEST

/* Counter values in the details: the latest record at or before the cursor. */
START_TEST(test_counters)
{
    struct tui_model *m = open_model(groups, 10);
    struct tui_view *v = tui_model_view(m);
    const struct tui_data *d = tui_model_data(m);
    static const struct { uint64_t cursor; int known; uint64_t value, time; } cases[] = {
        { 120, 0, 0, 0 }, { 150, 1, 50, 150 }, { 249, 1, 50, 150 }, { 250, 1, 70, 250 },
        { 590, 1, 70, 250 },
    };

    set_window(m, 100, 601);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        v->cursor = cases[i].cursor;
        tui_model_invalidate(m, 0);
        refresh(m);
        ck_assert_uint_eq(d->ncounters, 1);
        ck_assert_uint_eq(d->counters[0].counter, 1);
        ck_assert_msg(d->counters[0].known == cases[i].known, "case %zu", i);
        if (cases[i].known) {
            ck_assert_uint_eq(d->counters[0].value, cases[i].value);
            ck_assert_uint_eq(d->counters[0].time, cases[i].time);
        }
    }
    /* a window read (not only the details) gives the same */
    v->cursor = 260;
    tui_model_invalidate(m, 1);
    refresh(m);
    ck_assert_int_eq(d->counters[0].known, 1);
    ck_assert_uint_eq(d->counters[0].value, 70);
    tui_model_free(m);
    m = open_model(small, 10);
    refresh(m);
    ck_assert_uint_eq(tui_model_data(m)->ncounters, 0);
    tui_model_free(m);
}
END_TEST


/* --- the communication view's data (tui/comm.c), by hand:
 *   1 -> 2 sent at 100 (10 bytes), received at 150; sent at 200 (20 bytes),
 *           received at 260: 2 messages, 30 bytes, transfer 50 + 60
 *   2 -> 1 sent at 300, never received (unmatched send)
 *   1 receives from 2 at 50 (tag 9) with no send (sent before the window;
 *     on tag 7 lib/model/messages.h would match it with the send of 300,
 *     as it allows a receive read before its send)
 */
START_TEST(test_comm_counts)
{
    struct tui_comm *c = tui_comm_new();
    struct tui_flight f[4];
    const struct vftr_msgpair *p;
    const struct vftr_msg_counts *k;

    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(tui_comm_begin(c, NULL, NULL), 0);
    ck_assert_int_eq(tui_comm_recv(c, 50, 1, 2, 0, 9, 5), 0);
    ck_assert_int_eq(tui_comm_send(c, 100, 1, 2, 0, 7, 10), 0);
    ck_assert_int_eq(tui_comm_recv(c, 150, 2, 1, 0, 7, 10), 0);
    ck_assert_int_eq(tui_comm_send(c, 200, 1, 2, 0, 7, 20), 0);
    ck_assert_int_eq(tui_comm_recv(c, 260, 2, 1, 0, 7, 20), 0);
    ck_assert_int_eq(tui_comm_send(c, 300, 2, 1, 0, 7, 8), 0);
    ck_assert_int_eq(tui_comm_valid(c), 0);
    ck_assert_int_eq(tui_comm_finish(c), 0);
    ck_assert_int_eq(tui_comm_valid(c), 1);
    p = tui_comm_pair(c, 1, 2);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->messages, 2);
    ck_assert_uint_eq(p->bytes, 30);
    ck_assert_uint_eq(p->transfer, 110);
    p = tui_comm_pair(c, 2, 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->messages, 1);
    ck_assert_uint_eq(p->transfer, 0);
    ck_assert_ptr_null(tui_comm_pair(c, 1, 1));
    k = tui_comm_counts(c);
    ck_assert_uint_eq(k->sends, 3);
    ck_assert_uint_eq(k->unmatched_sends, 1);
    ck_assert_uint_eq(k->unmatched_recvs, 1);
    /* in flight: send <= t < receive */
    ck_assert_int_eq(tui_comm_flights(c, 99, f, 4), 0);
    ck_assert_int_eq(tui_comm_flights(c, 100, f, 4), 1);
    ck_assert_uint_eq(f[0].send, 100);
    ck_assert_uint_eq(f[0].recv, 150);
    ck_assert_int_eq(tui_comm_flights(c, 150, f, 4), 0);
    ck_assert_int_eq(tui_comm_flights(c, 259, f, 4), 1);
    ck_assert_uint_eq(f[0].sender, 1);
    ck_assert_uint_eq(f[0].receiver, 2);
    /* a new window forgets the last */
    ck_assert_int_eq(tui_comm_begin(c, NULL, NULL), 0);
    ck_assert_int_eq(tui_comm_finish(c), 0);
    ck_assert_ptr_null(tui_comm_pair(c, 1, 2));
    tui_comm_free(c);
    tui_comm_free(NULL);
}
END_TEST

/* The model's matrix on the small trace: P1 sends 10 bytes to P2 at 460,
 * received at 800 (timer 1000/s).  The same with and without snapshots. */
START_TEST(test_comm_model)
{
    const char *stubs[] = { small, plain };

    for (int s = 0; s < 2; s++) {
        struct tui_model *m = open_model(stubs[s], 9);
        struct tui_view *v = tui_model_view(m);
        const size_t *procs;
        const struct vftr_msg_counts *k;

        set_window(m, 100, 1000);
        refresh(m);
        ck_assert_ptr_null(tui_model_comm(m));          /* off: not computed */
        tui_model_set_comm(m, 1);
        refresh(m);
        ck_assert_ptr_nonnull(tui_model_comm(m));
        ck_assert_uint_eq(tui_model_comm_procs(m, &procs), 2);
        ck_assert_uint_eq(procs[0], 0);
        ck_assert_uint_eq(procs[1], 1);
        v->comm_unit = TUI_COMM_COUNT;
        ck_assert_uint_eq(tui_model_comm_value(m, 0, 1), 1);
        ck_assert_uint_eq(tui_model_comm_value(m, 1, 0), 0);
        v->comm_unit = TUI_COMM_BYTES;
        ck_assert_uint_eq(tui_model_comm_value(m, 0, 1), 10);
        v->comm_unit = TUI_COMM_TIME;
        ck_assert_uint_eq(tui_model_comm_value(m, 0, 1), 340);
        /* [100, 700): the send without its receive */
        set_window(m, 100, 700);
        refresh(m);
        k = tui_comm_counts(tui_model_comm(m));
        ck_assert_uint_eq(k->sends, 1);
        ck_assert_uint_eq(k->unmatched_sends, 1);
        ck_assert_uint_eq(tui_model_comm_value(m, 0, 1), 0);  /* no transfer time */
        /* [500, 1000): the receive of a message sent before: it completes
         * the message in flight at 500, it is not left unmatched */
        set_window(m, 500, 1000);
        refresh(m);
        k = tui_comm_counts(tui_model_comm(m));
        ck_assert_uint_eq(k->sends, 0);
        ck_assert_uint_eq(k->recvs, 1);
        ck_assert_uint_eq(k->open_sends, 1);
        ck_assert_uint_eq(k->recvs_open, 1);
        ck_assert_uint_eq(k->unmatched_recvs, 0);
        tui_model_set_comm(m, 0);
        refresh(m);
        ck_assert_ptr_null(tui_model_comm(m));
        tui_model_free(m);
    }
}
END_TEST

/*
 * Symbols: one process, 70 functions f1..f70, function k over
 * [10 (k - 1), 10 k); 70 columns of 10 ticks show one function each.
 * Processes "Rank 0", "Rank 0 Thread 1" (a thread of it), "worker".
 */
static int write_many(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_Writer *w = fm ? OTF_Writer_open(stub, 1, fm) : NULL;
    int ok = w != NULL;

    ok = ok && OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 1, "Rank 0", 0);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 2, "Rank 0 Thread 1", 1);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 3, "worker", 0);
    for (uint32_t p = 1; p <= 3; p++)
        ok = ok && OTF_Writer_assignProcess(w, p, 1);
    for (uint32_t f = 1; f <= 70; f++) {
        char name[16];

        snprintf(name, sizeof name, "f%u", f);
        ok = ok && OTF_Writer_writeDefFunction(w, 0, f, name, 0, 0);
    }
    for (uint32_t f = 1; f <= 70; f++) {
        ok = ok && OTF_Writer_writeEnter(w, 10 * (f - 1), f, 1, 0);
        ok = ok && OTF_Writer_writeLeave(w, 10 * f, f, 1, 0);
    }
    if (w)
        ok = OTF_Writer_close(w) && ok;
    if (fm)
        OTF_FileManager_close(fm);
    return ok ? 0 : -1;
}

static char many[1024];

START_TEST(test_symbols_and_labels)
{
    struct tui_model *m = open_model(many, 70);
    size_t np, others, n;
    const struct tui_proc *pr = tui_model_procs(m, &np);
    const long *paints;
    int none;

    ck_assert_uint_eq(np, 3);
    ck_assert_str_eq(pr[0].label, "rank 0");
    ck_assert_str_eq(pr[1].label, "rank 0 thread 1");
    ck_assert_str_eq(pr[1].name, "Rank 0 Thread 1");    /* the trace's name kept */
    ck_assert_str_eq(pr[2].label, "worker");
    set_window(m, 0, 700);
    refresh(m);
    /* 70 on screen, one cell each: paints 0..60 get the 61 symbols, 9 share '~' */
    n = tui_model_legend(m, &paints, &others, &none);
    ck_assert_uint_eq(n, 61);
    ck_assert_uint_eq(others, 9);
    ck_assert_int_eq(none, 0);
    ck_assert_int_eq(tui_model_symbol(m, 0), 'A');
    ck_assert_int_eq(tui_model_symbol(m, 26), 'a');
    ck_assert_int_eq(tui_model_symbol(m, 60), '8');
    ck_assert_int_eq(tui_model_symbol(m, 61), TUI_SYMBOL_OTHER);
    ck_assert_int_eq(tui_model_symbol(m, 69), TUI_SYMBOL_OTHER);
    ck_assert_int_eq(tui_model_symbol(m, -1), TUI_SYMBOL_NONE);
    for (long p = 0; p < 70; p++)
        ck_assert_int_ne(tui_model_symbol(m, p), '#');
    /* [600, 700): 10 on screen; f61..f70 now have symbols, the rest none */
    set_window(m, 600, 700);
    refresh(m);
    n = tui_model_legend(m, &paints, &others, &none);
    ck_assert_uint_eq(n, 10);
    ck_assert_uint_eq(others, 0);
    ck_assert_int_eq(paints[0], 60);
    ck_assert_int_eq(tui_model_symbol(m, 60), 'A');
    ck_assert_int_eq(tui_model_symbol(m, 69), 'J');
    ck_assert_int_eq(tui_model_symbol(m, 0), ' ');
    tui_model_free(m);

    /* 5 functions (<= 62): each its own symbol, on screen or not */
    m = open_model(plain, 9);
    set_window(m, 100, 1000);
    refresh(m);
    n = tui_model_legend(m, &paints, &others, &none);
    ck_assert_uint_eq(n, 1);                /* depth 1: main only */
    ck_assert_int_eq(tui_model_symbol(m, 0), 'A');
    ck_assert_int_eq(tui_model_symbol(m, 4), 'E');
    tui_model_free(m);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("tui_model");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_timeline_depths);
    tcase_add_test(tc, test_timeline_same_with_snapshots);
    tcase_add_test(tc, test_window_profile);
    tcase_add_test(tc, test_details);
    tcase_add_test(tc, test_details_communicators);
    tcase_add_test(tc, test_zoom_arithmetic);
    tcase_add_test(tc, test_jump_and_columns);
    tcase_add_test(tc, test_search_and_sort);
    tcase_add_test(tc, test_sampled_and_find);
    tcase_add_test(tc, test_bad_traces);
    tcase_add_test(tc, test_threads_fold);
    tcase_add_test(tc, test_keys_table);
    tcase_add_test(tc, test_key_actions);
    tcase_add_test(tc, test_group_colours);
    tcase_add_test(tc, test_counters);
    tcase_add_test(tc, test_comm_counts);
    tcase_add_test(tc, test_comm_model);
    tcase_add_test(tc, test_symbols_and_labels);
    suite_add_tcase(s, tc);
    return s;
}

/* A trace with definitions and no events. */
static int write_empty(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_Writer *w = fm ? OTF_Writer_open(stub, 1, fm) : NULL;
    int ok;

    if (!w)
        return -1;
    ok = OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0) && OTF_Writer_assignProcess(w, 1, 1) &&
         OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    ok &= OTF_Writer_close(w);
    OTF_FileManager_close(fm);
    return ok ? 0 : -1;
}

/* Ranks 1, 2 and their threads 3, 4 (DefProcess parent); thread 3 runs
 * function 1 over [200, 300), the others main over [100, 500). */
static int write_threads(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_Writer *w = fm ? OTF_Writer_open(stub, 1, fm) : NULL;
    int ok = 1;

    if (!w)
        return -1;
    ok &= OTF_Writer_writeDefProcess(w, 0, 1, "rank 0", 0);
    ok &= OTF_Writer_writeDefProcess(w, 0, 2, "rank 1", 0);
    ok &= OTF_Writer_writeDefProcess(w, 0, 3, "thread 1", 1);
    ok &= OTF_Writer_writeDefProcess(w, 0, 4, "thread 1", 2);
    ok &= OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    for (uint32_t p = 1; p <= 4; p++)
        ok &= OTF_Writer_assignProcess(w, p, 1);
    /* one stream: in time order */
    ok &= OTF_Writer_writeEnter(w, 100, 1, 1, 0);
    ok &= OTF_Writer_writeEnter(w, 100, 1, 2, 0);
    ok &= OTF_Writer_writeEnter(w, 100, 1, 4, 0);
    ok &= OTF_Writer_writeEnter(w, 200, 1, 3, 0);
    ok &= OTF_Writer_writeLeave(w, 300, 1, 3, 0);
    for (uint32_t p = 1; p <= 4; p++)
        if (p != 3)
            ok &= OTF_Writer_writeLeave(w, 500, 1, p, 0);
    ok &= OTF_Writer_close(w);
    OTF_FileManager_close(fm);
    return ok ? 0 : -1;
}

/*
 * One process, timer 1000/s, functions in groups (1 main, 3 compute: APP;
 * 2 MPI_Send: MPI), counter 1 "cycles" [#]:
 *   main [100, 600) { compute [200, 300), MPI_Send [400, 500) }
 *   cycles = 50 at 150, 70 at 250
 */
static int write_groups(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(10);
    OTF_Writer *w = fm ? OTF_Writer_open(stub, 1, fm) : NULL;
    int ok = w != NULL;

    ok = ok && OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ok = ok && OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0);
    ok = ok && OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP");
    ok = ok && OTF_Writer_writeDefFunctionGroup(w, 0, 2, "MPI");
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 1, "main", 1, 0);
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 2, "MPI_Send", 2, 0);
    ok = ok && OTF_Writer_writeDefFunction(w, 0, 3, "compute", 1, 0);
    ok = ok && OTF_Writer_writeDefCounter(w, 0, 1, "cycles", 0, 0, "#");
    ok = ok && OTF_Writer_writeEnter(w, 100, 1, 1, 0);
    ok = ok && OTF_Writer_writeCounter(w, 150, 1, 1, 50);
    ok = ok && OTF_Writer_writeEnter(w, 200, 3, 1, 0);
    ok = ok && OTF_Writer_writeCounter(w, 250, 1, 1, 70);
    ok = ok && OTF_Writer_writeLeave(w, 300, 3, 1, 0);
    ok = ok && OTF_Writer_writeEnter(w, 400, 2, 1, 0);
    ok = ok && OTF_Writer_writeLeave(w, 500, 2, 1, 0);
    ok = ok && OTF_Writer_writeLeave(w, 600, 1, 1, 0);
    if (w)
        ok = OTF_Writer_close(w) && ok;
    if (fm)
        OTF_FileManager_close(fm);
    return ok ? 0 : -1;
}

int main(void)
{
    const char *dir = fixture_dir();
    char empty[1100], cmd[1200];
    SRunner *sr;
    int failed;

    snprintf(small, sizeof small, "%s/small", dir);
    snprintf(plain, sizeof plain, "%s/plain", dir);
    snprintf(loop_stub, sizeof loop_stub, "%s/loop", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    snprintf(threads, sizeof threads, "%s/threads", dir);
    snprintf(groups, sizeof groups, "%s/groups", dir);
    snprintf(many, sizeof many, "%s/many", dir);
    if (!*dir || fixture_small(small, 1, 1) < 0 || fixture_small(plain, 0, 0) < 0 ||
        fixture_loop(loop_stub, 20000, 200) < 0 || write_empty(empty) < 0 ||
        write_threads(threads) < 0 || write_groups(groups) < 0 || write_many(many) < 0) {
        fprintf(stderr, "test_tui_model: cannot write the fixtures in %s\n", dir);
        return 1;
    }
    sr = srunner_create(model_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_tui_model: cannot remove %s\n", dir);
    return failed ? 1 : 0;
}
