/*
 * keys.c — the key table and its actions (see keys.h).  Bindings follow
 * uftrace's tui and perf report where they have one (arrows and j/k to
 * move, Enter to choose, / n N to search, ? for help, q to quit) and less
 * for the rest (g to go somewhere).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "keys.h"
#include "snaprun.h"
#include "util/errmsg.h"
#include "util/timespec.h"

static void say(struct tui_app *app, const char *msg)
{
    snprintf(app->message, sizeof app->message, "%s", msg);
}

static enum tui_result a_quit(struct tui_app *app)
{
    (void)app;
    return TUI_QUIT;
}

static enum tui_result a_counter(struct tui_app *app)
{
    size_t n;

    tui_model_counters(app->model, &n);
    if (n == 0) {
        say(app, "the trace has no counters");
        return TUI_REDRAW;
    }
    tui_model_next_counter(app->model);
    return TUI_REDRAW;
}

static enum tui_result a_help(struct tui_app *app)
{
    app->help = !app->help;
    app->help_top = 0;
    return TUI_REDRAW;
}

static enum tui_result a_left(struct tui_app *app)
{
    tui_model_move_cursor(app->model, -1);
    return TUI_REDRAW;
}

static enum tui_result a_right(struct tui_app *app)
{
    tui_model_move_cursor(app->model, 1);
    return TUI_REDRAW;
}

static enum tui_result a_pan_left(struct tui_app *app)
{
    tui_model_pan(app->model, -0.5);
    return TUI_REDRAW;
}

static enum tui_result a_pan_right(struct tui_app *app)
{
    tui_model_pan(app->model, 0.5);
    return TUI_REDRAW;
}

static void move_selection(struct tui_app *app, long n)
{
    struct tui_view *v = tui_model_view(app->model);

    if (app->focus == TUI_FOCUS_PROFILE) {
        size_t rows = tui_model_data(app->model)->prof.nrows;
        long s = (long)v->prof_sel + n;

        if (rows == 0)
            return;
        v->prof_sel = s < 0 ? 0 : (size_t)s >= rows ? rows - 1 : (size_t)s;
    } else if (app->focus == TUI_FOCUS_COMM) {
        const size_t *procs;
        size_t rows = tui_model_comm_procs(app->model, &procs);
        long s = (long)app->comm_top + n;

        app->comm_top = s < 0 || rows == 0 ? 0 : (size_t)s >= rows ? rows - 1 : (size_t)s;
    } else if (app->focus == TUI_FOCUS_WAITS) {
        size_t rows = 0;
        long s = (long)app->waits_top + n;

        if (app->waits)
            tui_waits_rows(app->waits, &rows);
        app->waits_top = s < 0 || rows == 0 ? 0 : (size_t)s >= rows ? rows - 1 : (size_t)s;
    } else {
        size_t nrows;
        const size_t *rows = tui_model_rows(app->model, &nrows);
        long s = (long)tui_model_row_of(app->model, v->proc_sel) + n;

        s = s < 0 ? 0 : (size_t)s >= nrows ? (long)nrows - 1 : s;
        v->proc_sel = rows[s];
        tui_model_invalidate(app->model, 0);
    }
}

static enum tui_result a_up(struct tui_app *app)
{
    move_selection(app, -1);
    return TUI_REDRAW;
}

static enum tui_result a_down(struct tui_app *app)
{
    move_selection(app, 1);
    return TUI_REDRAW;
}

/* Rows of one page in the focused pane. */
static long page(const struct tui_app *app)
{
    return (long)(app->focus == TUI_FOCUS_PROFILE ? app->prof_rows
                  : app->focus == TUI_FOCUS_COMM ? app->comm_rows
                  : app->focus == TUI_FOCUS_WAITS ? app->waits_rows : app->proc_rows);
}

static enum tui_result a_page_up(struct tui_app *app)
{
    move_selection(app, -page(app));
    return TUI_REDRAW;
}

static enum tui_result a_page_down(struct tui_app *app)
{
    move_selection(app, page(app));
    return TUI_REDRAW;
}

/* Shows the lower pane p; the communication view is computed only while
 * it is shown.  The focus leaves a pane that cannot take it. */
static void show_pane(struct tui_app *app, enum tui_pane p)
{
    app->pane = p;
    tui_model_set_comm(app->model, p == TUI_PANE_COMM);
    if (app->focus != TUI_FOCUS_TIMELINE)
        app->focus = p == TUI_PANE_PROFILE ? TUI_FOCUS_PROFILE
                   : p == TUI_PANE_COMM ? TUI_FOCUS_COMM
                   : p == TUI_PANE_WAITS ? TUI_FOCUS_WAITS : TUI_FOCUS_TIMELINE;
}

static enum tui_result a_focus(struct tui_app *app)
{
    if (app->focus != TUI_FOCUS_TIMELINE) {
        app->focus = TUI_FOCUS_TIMELINE;
        return TUI_REDRAW;
    }
    if (app->pane == TUI_PANE_DETAILS)       /* the details take no focus: the profile does */
        show_pane(app, TUI_PANE_PROFILE);
    app->focus = app->pane == TUI_PANE_COMM ? TUI_FOCUS_COMM
               : app->pane == TUI_PANE_WAITS ? TUI_FOCUS_WAITS : TUI_FOCUS_PROFILE;
    return TUI_REDRAW;
}

static enum tui_result a_pane(struct tui_app *app)
{
    show_pane(app, app->pane == TUI_PANE_PROFILE ? TUI_PANE_DETAILS : TUI_PANE_PROFILE);
    return TUI_REDRAW;
}

static enum tui_result a_comm(struct tui_app *app)
{
    show_pane(app, app->pane == TUI_PANE_COMM ? TUI_PANE_PROFILE : TUI_PANE_COMM);
    return TUI_REDRAW;
}

static enum tui_result a_comm_unit(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);

    if (app->pane != TUI_PANE_COMM) {
        say(app, "u changes what the communication matrix shows: open it with C");
        return TUI_REDRAW;
    }
    v->comm_unit = (enum tui_comm_unit)((v->comm_unit + 1) % TUI_COMM_NUNITS);
    snprintf(app->message, sizeof app->message, "the matrix shows %s",
             tui_comm_unit_names[v->comm_unit]);
    return TUI_REDRAW;
}

/* The wait analysis's views (waits.h): each is computed by the event loop
 * for the visible window when it is on, so the keys only switch them. */
static enum tui_result a_wait_overlay(struct tui_app *app)
{
    app->wait_overlay = !app->wait_overlay;
    say(app, app->wait_overlay ? "wait overlay: waiting time drawn =, %, & (MPI p2p, "
                                 "collective, OpenMP); the line above the pane names the wait "
                                 "at the cursor"
                               : "wait overlay off");
    return TUI_REDRAW;
}

static enum tui_result a_critpath(struct tui_app *app)
{
    app->critpath = !app->critpath;
    say(app, app->critpath ? "critical path (to the window's end): its cells bold and underlined"
                           : "critical path off");
    return TUI_REDRAW;
}

static enum tui_result a_wait_table(struct tui_app *app)
{
    app->waits_top = 0;
    show_pane(app, app->pane == TUI_PANE_WAITS ? TUI_PANE_PROFILE : TUI_PANE_WAITS);
    return TUI_REDRAW;
}

/* The next page of the legend (wraps round); the screen says how many
 * entries the last page showed. */
static enum tui_result a_legend(struct tui_app *app)
{
    const long *paints;
    size_t others;
    int none;
    /* the entries: the symbols, then '?' and '~' when on screen */
    size_t n = tui_model_legend(app->model, &paints, &others, &none) + (size_t)none + !!others;

    /* and the wait analysis's entries (screen.c puts them last) */
    for (size_t k = 0; app->wait_overlay && tui_waits_kinds[k].symbol; k++)
        n++;
    n += app->critpath ? 1 : 0;

    if (app->legend_top == 0 && app->legend_shown >= n) {
        say(app, "the legend shows every symbol on screen");
        return TUI_REDRAW;
    }
    app->legend_top += app->legend_shown ? app->legend_shown : 1;
    if (app->legend_top >= n)
        app->legend_top = 0;
    return TUI_REDRAW;
}

static enum tui_result a_zoom_in(struct tui_app *app)
{
    tui_model_zoom(app->model, 0.5);
    return TUI_REDRAW;
}

static enum tui_result a_zoom_out(struct tui_app *app)
{
    tui_model_zoom(app->model, 2.0);
    return TUI_REDRAW;
}

static enum tui_result a_zoom_full(struct tui_app *app)
{
    tui_model_zoom_full(app->model);
    return TUI_REDRAW;
}

static enum tui_result a_mark(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);

    v->mark = v->cursor;
    v->have_mark = 1;
    say(app, "mark set");
    return TUI_REDRAW;
}

static enum tui_result a_zoom_mark(struct tui_app *app)
{
    if (tui_model_zoom_mark(app->model) < 0)
        say(app, "no mark: set one with m");
    return TUI_REDRAW;
}

static enum tui_result a_goto(struct tui_app *app)
{
    const struct vftr_window_info *info = tui_model_info(app->model);
    struct vftr_timebase base = { info->resolution, info->first };
    char buf[128], err[VFTR_ERRMSG_MAX];
    uint64_t t;

    if (!app->prompt || app->prompt(app->prompt_ctx, "go to time (e.g. 1.5ms, 2500): ", buf,
                                    sizeof buf) < 0)
        return TUI_REDRAW;
    if (vftr_time_parse(buf, &base, &t, err, sizeof err) < 0) {
        say(app, err);
        return TUI_REDRAW;
    }
    tui_model_jump(app->model, t);
    return TUI_REDRAW;
}

static enum tui_result find(struct tui_app *app, int dir)
{
    char err[VFTR_ERRMSG_MAX];
    int rc = tui_model_find_event(app->model, dir, err, sizeof err);

    if (rc == -ENOENT)
        say(app, dir > 0 ? "no later call of the function on this process"
                         : "no earlier call of the function on this process");
    else if (rc < 0)
        say(app, err);
    return TUI_REDRAW;
}

static enum tui_result a_next_event(struct tui_app *app)
{
    return find(app, 1);
}

static enum tui_result a_prev_event(struct tui_app *app)
{
    return find(app, -1);
}

static enum tui_result a_deeper(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);

    if (v->depth < VFTR_WINDOW_MAX_DEPTH)
        v->depth++;
    tui_model_invalidate(app->model, 1);
    return TUI_REDRAW;
}

static enum tui_result a_shallower(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);

    if (v->depth > 1)
        v->depth--;
    tui_model_invalidate(app->model, 1);
    return TUI_REDRAW;
}

static enum tui_result a_choose(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);
    const struct tui_data *d = tui_model_data(app->model);

    if (app->focus == TUI_FOCUS_PROFILE) {
        if (d->prof.nrows)
            v->func_sel = d->prof.rows[d->order[v->prof_sel]].function;
    } else if (app->focus == TUI_FOCUS_TIMELINE && d->grid) {
        uint32_t f = d->grid[v->proc_sel * d->ncols + tui_model_time_col(app->model, v->cursor)];

        if (f)
            v->func_sel = f;
    }
    return TUI_REDRAW;
}

static enum tui_result a_sort(struct tui_app *app)
{
    tui_model_sort_next(app->model);
    snprintf(app->message, sizeof app->message, "sorted by %s",
             tui_columns[tui_model_view(app->model)->sort].key);
    return TUI_REDRAW;
}

static enum tui_result a_reverse(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);

    v->reverse = !v->reverse;
    tui_model_resort(app->model);
    snprintf(app->message, sizeof app->message, "sorted by %s, %s", tui_columns[v->sort].key,
             v->reverse ? "reversed" : "normal order");
    return TUI_REDRAW;
}

static enum tui_result search_step(struct tui_app *app, int dir)
{
    if (!tui_model_search_pattern(app->model)) {
        say(app, "no search: start one with /");
        return TUI_REDRAW;
    }
    if (tui_model_search_next(app->model, dir) < 0)
        snprintf(app->message, sizeof app->message, "no function matches /%s",
                 tui_model_search_pattern(app->model));
    show_pane(app, TUI_PANE_PROFILE);
    app->focus = TUI_FOCUS_PROFILE;
    return TUI_REDRAW;
}

static enum tui_result a_search(struct tui_app *app)
{
    char buf[256], err[VFTR_ERRMSG_MAX];

    if (!app->prompt || app->prompt(app->prompt_ctx, "/", buf, sizeof buf) < 0)
        return TUI_REDRAW;
    if (tui_model_search(app->model, buf, err, sizeof err) < 0) {
        say(app, err);
        return TUI_REDRAW;
    }
    /* from the row before the selection, so a match on it counts */
    struct tui_view *v = tui_model_view(app->model);
    size_t n = tui_model_data(app->model)->prof.nrows;

    if (n)
        v->prof_sel = (v->prof_sel + n - 1) % n;
    return search_step(app, 1);
}

static enum tui_result a_search_next(struct tui_app *app)
{
    return search_step(app, 1);
}

static enum tui_result a_search_prev(struct tui_app *app)
{
    return search_step(app, -1);
}

static enum tui_result a_fold(struct tui_app *app)
{
    if (tui_model_fold(app->model, tui_model_view(app->model)->proc_sel) < 0)
        say(app, "this process has no threads to fold");
    return TUI_REDRAW;
}

static enum tui_result a_messages(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);

    v->show_messages = !v->show_messages;
    return TUI_REDRAW;
}

static enum tui_result a_colour(struct tui_app *app)
{
    struct tui_view *v = tui_model_view(app->model);
    size_t ng;

    tui_model_groups(app->model, &ng);
    if (!v->color_by_group && ng == 0) {
        snprintf(app->message, sizeof app->message, "the trace defines no function groups");
        return TUI_REDRAW;
    }
    v->color_by_group = !v->color_by_group;
    snprintf(app->message, sizeof app->message, "colours by %s",
             v->color_by_group ? "function group" : "function");
    return TUI_REDRAW;
}

/*
 * Runs vftr-snap --all on a trace without snapshots (in place: vftr-snap
 * writes beside the trace and renames), then reopens the trace so that the
 * views start from the snapshots.  The view (window, cursor, selection,
 * depth, sort) and the folds carry over; the search does not.
 */
static enum tui_result a_snap(struct tui_app *app)
{
    struct tui_model *old = app->model, *m;
    char trace[4096], err[VFTR_ERRMSG_MAX];
    size_t ncols = tui_model_data(old)->ncols;
    int rc;

    if (tui_model_info(old)->nsnapshots) {
        snprintf(app->message, sizeof app->message, "the trace has %zu snapshots already",
                 tui_model_info(old)->nsnapshots);
        return TUI_REDRAW;
    }
    snprintf(trace, sizeof trace, "%s", tui_model_trace_name(old));
    snprintf(app->message, sizeof app->message, "running vftr-snap --all %.560s ...", trace);
    if (app->status)
        app->status(app->prompt_ctx, app);
    if ((rc = tui_snap_run(trace, err, sizeof err)) < 0) {
        say(app, err);
        return TUI_REDRAW;
    }
    if (!(m = tui_model_open(trace, err, sizeof err))) {
        snprintf(app->message, sizeof app->message,
                 "vftr-snap done, but the trace cannot be reopened: %s", err);
        return TUI_REDRAW;
    }
    *tui_model_view(m) = *tui_model_view(old);
    /* the same trace, so the same process list: keep the folds */
    size_t np;
    const struct tui_proc *procs = tui_model_procs(old, &np);

    for (size_t pi = 0; pi < np; pi++)
        if (procs[pi].folded)
            tui_model_fold(m, pi);
    tui_model_set_columns(m, ncols);
    tui_model_invalidate(m, 1);
    app->model = m;
    tui_model_free(old);
    snprintf(app->message, sizeof app->message, "vftr-snap done: %zu snapshots, views start "
             "from the nearest one", tui_model_info(m)->nsnapshots);
    return TUI_REDRAW;
}

static enum tui_result a_redraw(struct tui_app *app)
{
    (void)app;
    return TUI_REDRAW;
}

const struct tui_key tui_keys[] = {
    { '?', "?", "show or hide this help", a_help },
    { 'q', "q", "quit", a_quit },
    { TUI_KEY_LEFT, "Left", "cursor one column left (pans at the edge)", a_left },
    { 'h', "h", NULL, a_left },
    { TUI_KEY_RIGHT, "Right", "cursor one column right (pans at the edge)", a_right },
    { 'l', "l", NULL, a_right },
    { '<', "<", "pan left by half a window", a_pan_left },
    { '>', ">", "pan right by half a window", a_pan_right },
    { TUI_KEY_UP, "Up", "previous process (timeline) or row (profile)", a_up },
    { 'k', "k", NULL, a_up },
    { TUI_KEY_DOWN, "Down", "next process (timeline) or row (profile)", a_down },
    { 'j', "j", NULL, a_down },
    { TUI_KEY_PGUP, "PgUp", "one page up", a_page_up },
    { TUI_KEY_PGDN, "PgDn", "one page down", a_page_down },
    { TUI_KEY_TAB, "Tab", "move the focus between timeline and lower pane (profile, matrix)",
      a_focus },
    { 'v', "v", "lower pane: profile or details (stack, messages)", a_pane },
    { 'C', "C", "lower pane: message matrix of the window; lines at the cursor", a_comm },
    { 'u', "u", "the matrix shows messages, bytes or transfer time", a_comm_unit },
    { 'w', "w", "wait overlay: waiting time on the timeline, the wait at the cursor",
      a_wait_overlay },
    { 'P', "P", "critical-path mode: the critical path to the window's end highlighted",
      a_critpath },
    { 'W', "W", "lower pane: the wait-state pattern table of the window", a_wait_table },
    { 'L', "L", "the next page of the legend", a_legend },
    { '+', "+", "zoom in around the cursor", a_zoom_in },
    { '=', "=", NULL, a_zoom_in },
    { 'i', "i", NULL, a_zoom_in },
    { '-', "-", "zoom out around the cursor", a_zoom_out },
    { 'o', "o", NULL, a_zoom_out },
    { '0', "0", "show the whole trace", a_zoom_full },
    { 'm', "m", "mark the cursor time", a_mark },
    { 'z', "z", "zoom to the range between mark and cursor", a_zoom_mark },
    { 'g', "g", "go to a time (from the trace start: 2500, 1.5ms)", a_goto },
    { 'e', "e", "next call of the chosen function on this process", a_next_event },
    { 'E', "E", "previous call of the chosen function on this process", a_prev_event },
    { 'd', "d", "show one call level deeper", a_deeper },
    { 'D', "D", "show one call level shallower", a_shallower },
    { TUI_KEY_ENTER, "Enter", "choose the function under the cursor or on the row", a_choose },
    { 's', "s", "sort the profile by the next column", a_sort },
    { 'K', "K", "the profile's counter column shows the next counter", a_counter },
    { 'r', "r", "reverse the sort order", a_reverse },
    { '/', "/", "search functions by regular expression (PCRE2)", a_search },
    { 'n', "n", "next function matching the search", a_search_next },
    { 'N', "N", "previous function matching the search", a_search_prev },
    { 'f', "f", "fold or unfold the threads of the selected process", a_fold },
    { 'M', "M", "mark message sends/receives (*) and collectives (#)", a_messages },
    { 'c', "c", "colour the timeline by function or by function group", a_colour },
    { 'S', "S", "no snapshots: run vftr-snap --all on the trace, reload", a_snap },
    { TUI_KEY_RESIZE, NULL, NULL, a_redraw },
    { 0, NULL, NULL, NULL },
};

/* ------------------------------------------------------------ prompts */

static enum tui_line_result l_done(struct tui_line *l)
{
    return l->len ? TUI_LINE_DONE : TUI_LINE_CANCEL;
}

static enum tui_line_result l_cancel(struct tui_line *l)
{
    (void)l;
    return TUI_LINE_CANCEL;
}

static enum tui_line_result l_backspace(struct tui_line *l)
{
    /* a UTF-8 sequence goes as a whole: back over its continuation bytes */
    while (l->len > 0 && ((unsigned char)l->buf[--l->len] & 0xc0) == 0x80)
        ;
    l->buf[l->len] = '\0';
    return TUI_LINE_MORE;
}

static enum tui_line_result l_kill(struct tui_line *l)
{
    l->len = 0;
    l->buf[0] = '\0';
    return TUI_LINE_MORE;
}

static enum tui_line_result l_word(struct tui_line *l)
{
    while (l->len > 0 && l->buf[l->len - 1] == ' ')
        l->len--;
    while (l->len > 0 && l->buf[l->len - 1] != ' ')
        l->len--;
    l->buf[l->len] = '\0';
    return TUI_LINE_MORE;
}

const struct tui_line_key tui_line_keys[] = {
    { TUI_KEY_ENTER, "Enter", "take the text (an empty one cancels)", l_done },
    { TUI_KEY_ESCAPE, "Esc", "cancel", l_cancel },
    { 'G' & 0x1f, "Ctrl-G", NULL, l_cancel },
    { TUI_KEY_BACKSPACE, "Backspace", "delete the last character", l_backspace },
    { 'U' & 0x1f, "Ctrl-U", "delete the whole text", l_kill },
    { 'W' & 0x1f, "Ctrl-W", "delete the last word", l_word },
    { 0, NULL, NULL, NULL },
};

void tui_line_init(struct tui_line *l, char *buf, size_t size)
{
    l->buf = buf;
    l->size = size;
    l->len = 0;
    if (size)
        buf[0] = '\0';
}

enum tui_line_result tui_line_key(struct tui_line *l, int key)
{
    for (const struct tui_line_key *k = tui_line_keys; k->op; k++)
        if (k->key == key)
            return k->op(l);
    /* text: printable ASCII and the bytes of UTF-8 sequences; anything
     * else (control characters, keys beyond a byte) is not text */
    if (key < 0x20 || key == 0x7f || key > 0xff)
        return TUI_LINE_MORE;
    if (l->len + 1 < l->size) {
        l->buf[l->len++] = (char)key;
        l->buf[l->len] = '\0';
    }
    return TUI_LINE_MORE;
}

enum tui_result tui_key_dispatch(struct tui_app *app, int key)
{
    for (const struct tui_key *k = tui_keys; k->action; k++)
        if (k->key == key)
            return k->action(app);
    return TUI_NOTHING;
}

/* Entries with a help text start a line; the following ones without add
 * their names to it. */
size_t tui_keys_help_lines(void)
{
    size_t n = 0;

    for (const struct tui_key *k = tui_keys; k->action; k++)
        if (k->help)
            n++;
    return n;
}

/* The names of line i's keys ("Left, h") and its help. */
static const char *line_of(size_t i, char *names, size_t size)
{
    const struct tui_key *k = tui_keys;
    const char *help;

    for (size_t seen = 0; k->action; k++)
        if (k->help && seen++ == i)
            break;
    if (!k->action)
        return NULL;
    help = k->help;
    snprintf(names, size, "%s", k->name);
    for (const struct tui_key *x = k + 1; x->action && !x->help && x->name; x++) {
        size_t len = strlen(names);

        snprintf(names + len, size - len, ", %s", x->name);
    }
    return help;
}

void tui_keys_help_line(size_t i, char *buf, size_t size)
{
    char names[64];
    const char *help = line_of(i, names, sizeof names);

    snprintf(buf, size, "  %-12s %s", help ? names : "", help ? help : "");
}

static void print_man_names(void *out, const char *names)
{
    fputs(".TP\n.B ", out);
    for (const char *c = names; *c; c++)      /* man(7): a minus sign is \- */
        fputs(*c == '-' ? "\\-" : (char[2]){ *c, 0 }, out);
}

void tui_keys_print_man(void *out)
{
    char names[64];

    for (size_t i = 0; i < tui_keys_help_lines(); i++) {
        const char *help = line_of(i, names, sizeof names);

        print_man_names(out, names);
        fprintf(out, "\n%s\n", help);
    }
    /* the prompts' editing keys, from their own table: a key without help
     * joins the line before it */
    fputs(".SS In the prompts of g and /\n"
          "Printable characters are typed into the line; any other key is ignored.\n", out);
    for (const struct tui_line_key *k = tui_line_keys; k->op; k++) {
        if (!k->help)
            continue;
        snprintf(names, sizeof names, "%s", k->name);
        for (const struct tui_line_key *x = k + 1; x->op && !x->help; x++) {
            size_t len = strlen(names);

            snprintf(names + len, sizeof names - len, ", %s", x->name);
        }
        print_man_names(out, names);
        fprintf(out, "\n%s\n", k->help);
    }
}
