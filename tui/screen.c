/*
 * screen.c — see screen.h.  Layout, top to bottom:
 *   status line    trace, visible range, cursor, depth, how the view was read
 *   time axis      start and end of the visible range
 *   timeline       one row per process (scrolls), a letter per cell: the
 *                  function's letter in the legend, coloured by function
 *   legend         letters of the functions on screen
 *   lower pane     profile table (sortable) or details (stack, messages)
 *   message line   messages and prompts
 * Widgets own no data: every row is pulled from the model when drawn.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <curses.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "screen.h"

#define LABEL 10            /* width of the process names left of the timeline */
#define MIN_LOWER 4         /* lower pane rows at least */

static volatile sig_atomic_t interrupted;
static int active;          /* curses is on */

static void restore(void)
{
    if (active) {
        endwin();
        active = 0;
    }
}

static void on_stop_signal(int sig)
{
    interrupted = sig;
}

/* A crash must not leave the terminal raw: endwin is not async-signal-safe,
 * but the process is about to die anyway and a usable shell matters more. */
static void on_fatal_signal(int sig)
{
    if (active) {
        endwin();
        active = 0;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

int tui_screen_open(char *err, size_t errlen)
{
    static int registered;
    static const int stop[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, errlen, "standard input and output must be a terminal");
        return -1;
    }
    if (!registered) {
        atexit(restore);
        registered = 1;
    }
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++) {
        struct sigaction sa;

        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop_signal;
        sigaction(stop[i], &sa, NULL);
    }
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], on_fatal_signal);
    if (!newterm(NULL, stdout, stdin)) {
        snprintf(err, errlen, "cannot initialise the terminal (TERM=%s)",
                 getenv("TERM") ? getenv("TERM") : "unset");
        return -1;
    }
    active = 1;
    /* a lone Escape cancels a prompt: wait only briefly for the rest of an
     * escape sequence (the default is a whole second) */
    set_escdelay(25);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    timeout(200);
    if (has_colors()) {
        start_color();
        use_default_colors();
        static const short fg[] = { COLOR_CYAN, COLOR_GREEN, COLOR_YELLOW, COLOR_MAGENTA,
                                    COLOR_BLUE, COLOR_RED, COLOR_WHITE };

        for (short i = 0; i < (short)(sizeof fg / sizeof fg[0]); i++)
            init_pair((short)(i + 1), COLOR_BLACK, fg[i]);
    }
    return 0;
}

void tui_screen_close(void)
{
    restore();
}

int tui_screen_interrupted(void)
{
    return interrupted;
}

int tui_screen_getkey(void)
{
    static const struct { int curses, tui; } map[] = {
        { KEY_UP, TUI_KEY_UP }, { KEY_DOWN, TUI_KEY_DOWN }, { KEY_LEFT, TUI_KEY_LEFT },
        { KEY_RIGHT, TUI_KEY_RIGHT }, { KEY_PPAGE, TUI_KEY_PGUP }, { KEY_NPAGE, TUI_KEY_PGDN },
        { KEY_HOME, TUI_KEY_HOME }, { KEY_END, TUI_KEY_END }, { KEY_ENTER, TUI_KEY_ENTER },
        { '\n', TUI_KEY_ENTER }, { '\r', TUI_KEY_ENTER }, { '\t', TUI_KEY_TAB },
        { KEY_RESIZE, TUI_KEY_RESIZE }, { 27, TUI_KEY_ESCAPE },
        { KEY_BACKSPACE, TUI_KEY_BACKSPACE }, { 127, TUI_KEY_BACKSPACE },
        { 8, TUI_KEY_BACKSPACE }, { KEY_DC, TUI_KEY_OTHER },
    };
    int c = getch();

    if (c == ERR)
        return -1;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].curses == c)
            return map[i].tui;
    /* any other curses key code (function keys, ...) means nothing here:
     * it must not pass for a character */
    return c > 0xff ? TUI_KEY_OTHER : c;
}

/* ------------------------------------------------------------ layout */

struct layout {
    int status, axis, tl_top, tl_rows, legend, lower_top, lower_rows, msg;
    int cols;                /* timeline columns */
};

static struct layout layout_of(const struct tui_app *app)
{
    struct layout l;
    size_t np;
    int h = LINES, lower;

    tui_model_procs(app->model, &np);
    l.status = 0;
    l.axis = 1;
    l.tl_top = 2;
    /* the timeline gets what the lower pane (header + MIN_LOWER rows) leaves,
     * at most half the screen when there are many processes */
    int avail = h - 2 - 1 - 1 - 1 - MIN_LOWER;  /* status, axis, legend, header, msg */
    int want = (int)np;

    if (want > (h - 5) / 2 && want > avail)
        want = (h - 5) / 2;
    if (want > avail)
        want = avail;
    if (want < 1)
        want = 1;
    l.tl_rows = want;
    l.legend = l.tl_top + l.tl_rows;
    l.lower_top = l.legend + 1;
    lower = h - 1 - l.lower_top;
    l.lower_rows = lower > 0 ? lower : 0;
    l.msg = h - 1;
    l.cols = COLS - LABEL;
    if (l.cols < 1)
        l.cols = 1;
    return l;
}

size_t tui_screen_layout(struct tui_app *app)
{
    struct layout l = layout_of(app);

    app->proc_rows = (size_t)l.tl_rows;
    app->prof_rows = l.lower_rows > 1 ? (size_t)l.lower_rows - 1 : 1;
    return (size_t)l.cols;
}

/* ------------------------------------------------------------ drawing */

static char letter_of(int idx)
{
    if (idx < 0)
        return '#';
    if (idx < 26)
        return (char)('A' + idx);
    if (idx < 52)
        return (char)('a' + idx - 26);
    return '#';
}

/* Prints at most `width` bytes of s at (y, x), padding with blanks. */
static void put(int y, int x, int width, const char *s)
{
    if (width <= 0)
        return;
    mvprintw(y, x, "%-*.*s", width, width, s);
}

static void fmt_rel(struct tui_app *app, char *buf, size_t size, uint64_t t)
{
    const struct vftr_window_info *info = tui_model_info(app->model);

    tui_format_time(buf, size, t - info->first, info->resolution);
}

static void draw_status(struct tui_app *app, const struct layout *l)
{
    const struct tui_view *v = tui_model_view(app->model);
    const struct tui_data *d = tui_model_data(app->model);
    char a[32], b[32], c[32], line[512];

    fmt_rel(app, a, sizeof a, v->t0);
    fmt_rel(app, b, sizeof b, v->t1);
    fmt_rel(app, c, sizeof c, v->cursor);
    const char *name = tui_model_trace_name(app->model);
    const char *slash = strrchr(name, '/');

    snprintf(line, sizeof line, "%s  [%s, %s)  cursor %s  depth %u  %s  read %llu KiB %.1fms",
             slash ? slash + 1 : name, a, b, c, v->depth,
             d->sampled ? "sampled" : "exact", (unsigned long long)(d->bytes_read / 1024),
             d->seconds * 1e3);
    attron(A_REVERSE);
    put(l->status, 0, COLS, line);
    attroff(A_REVERSE);
}

static void draw_axis(struct tui_app *app, const struct layout *l)
{
    const struct tui_view *v = tui_model_view(app->model);
    char a[32], b[32], line[512];
    int w = l->cols;

    fmt_rel(app, a, sizeof a, v->t0);
    fmt_rel(app, b, sizeof b, v->t1);
    snprintf(line, sizeof line, "%-*s|%s", LABEL - 1, "process", a);
    put(l->axis, 0, COLS, line);
    if ((int)strlen(b) + 1 < w - (int)strlen(a))
        mvprintw(l->axis, COLS - (int)strlen(b), "%s", b);
}

static void draw_timeline(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct tui_data *d = tui_model_data(m);
    size_t np, nrows, cur = tui_model_time_col(m, v->cursor);
    const struct tui_proc *procs = tui_model_procs(m, &np);
    const size_t *rows = tui_model_rows(m, &nrows);
    size_t sel = tui_model_row_of(m, v->proc_sel);

    if (sel < app->proc_top)
        app->proc_top = sel;
    if (sel >= app->proc_top + (size_t)l->tl_rows)
        app->proc_top = sel - (size_t)l->tl_rows + 1;
    for (int r = 0; r < l->tl_rows; r++) {
        size_t ri = app->proc_top + (size_t)r, pi;
        int y = l->tl_top + r;
        char label[LABEL + 8];

        move(y, 0);
        clrtoeol();
        if (ri >= nrows)
            continue;
        pi = rows[ri];
        /* threads indented under their rank; a rank with threads shows
         * whether they are folded (+) or shown (-) */
        snprintf(label, sizeof label, "%s%s",
                 procs[pi].child ? "  " : procs[pi].nchildren ? (procs[pi].folded ? "+" : "-") : "",
                 procs[pi].name);
        if (pi == v->proc_sel)
            attron(app->focus == TUI_FOCUS_TIMELINE ? A_REVERSE : A_BOLD);
        put(y, 0, LABEL - 1, label);
        attroff(A_REVERSE | A_BOLD);
        mvaddch(y, LABEL - 1, '|');
        for (size_t c = 0; c < d->ncols && (int)c < l->cols; c++) {
            uint32_t f = d->grid ? d->grid[pi * d->ncols + c] : 0;
            int idx = f ? (int)tui_model_paint(m, f) : -1;
            chtype ch = f ? (chtype)letter_of(idx) : ' ';
            attr_t attr = 0;

            if (f && idx >= 0 && has_colors())
                attr |= COLOR_PAIR(idx % 7 + 1);
            if (f && f == v->func_sel)
                attr |= A_BOLD | A_UNDERLINE;
            if (v->show_messages && d->marks && d->marks[pi * d->ncols + c])
                ch = d->marks[pi * d->ncols + c] & 1 ? '*' : '#';
            if (c == cur)
                attr |= A_REVERSE;
            mvaddch(y, LABEL + (int)c, ch | attr);
        }
    }
}

/* The letters of the paints (functions or groups) on screen. */
static void draw_legend(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_data *d = tui_model_data(m);
    size_t np, npaint = tui_model_paints(m);
    unsigned char *shown = calloc(npaint ? npaint : 1, 1);
    char line[1024];
    size_t len;

    tui_model_procs(m, &np);
    len = (size_t)snprintf(line, sizeof line, "%s",
                           tui_model_view(m)->color_by_group ? "groups: " : "");
    for (size_t k = 0; shown && d->grid && k < np * d->ncols; k++) {
        long idx = d->grid[k] ? tui_model_paint(m, d->grid[k]) : -1;

        if (idx >= 0)
            shown[idx] = 1;
    }
    for (size_t i = 0; shown && i < npaint && len + 1 < sizeof line; i++)
        if (shown[i])
            len += (size_t)snprintf(line + len, sizeof line - len, "%c=%s ",
                                    letter_of((int)i), tui_model_paint_name(m, i));
    free(shown);
    put(l->legend, 0, COLS, line);
}

static void draw_profile(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct tui_data *d = tui_model_data(m);
    const struct vftr_window_info *info = tui_model_info(m);
    double res = info->resolution ? (double)info->resolution : 1.0;
    char line[512];
    size_t len = 0;
    int rows = l->lower_rows - 1;

    for (int c = 0; c < TUI_NCOLS; c++) {
        const struct tui_column *col = &tui_columns[c];
        char h[32];

        /* without a timer resolution the times are ticks: say so */
        if (!info->resolution && (c == TUI_COL_EXCL || c == TUI_COL_INCL))
            snprintf(h, sizeof h, "%s[t]%s", col->key,
                     (int)v->sort == c ? (v->reverse ? "^" : "v") : "");
        else
            snprintf(h, sizeof h, "%s%s", col->header,
                     (int)v->sort == c ? (v->reverse ? "^" : "v") : "");
        if (col->width)
            len += (size_t)snprintf(line + len, sizeof line - len, "%*s ", col->width, h);
        else
            len += (size_t)snprintf(line + len, sizeof line - len, "   %s", h);
    }
    if (d->prof_from_summaries) {
        char a[32], b[32];

        fmt_rel(app, a, sizeof a, d->prof_a);
        fmt_rel(app, b, sizeof b, d->prof_b);
        snprintf(line + len, sizeof line - len, "  (summaries %s..%s)", a, b);
    }
    attron(A_BOLD);
    put(l->lower_top, 0, COLS, line);
    attroff(A_BOLD);
    if (rows <= 0)
        return;
    if (v->prof_sel < app->prof_top)
        app->prof_top = v->prof_sel;
    if (v->prof_sel >= app->prof_top + (size_t)rows)
        app->prof_top = v->prof_sel - (size_t)rows + 1;
    for (int r = 0; r < rows; r++) {
        size_t i = app->prof_top + (size_t)r;
        int y = l->lower_top + 1 + r;

        if (i >= d->prof.nrows) {
            move(y, 0);
            clrtoeol();
            continue;
        }
        const struct vftr_profile_row *row = &d->prof.rows[d->order[i]];

        /* '>' marks the selected row in plain text too (no colour needed) */
        snprintf(line, sizeof line, "%c%*.6f %*.6f %*llu %*.3f  %c %s",
                 i == v->prof_sel ? '>' : ' ',
                 tui_columns[TUI_COL_EXCL].width - 1, (double)row->excl / res,
                 tui_columns[TUI_COL_INCL].width, (double)row->incl / res,
                 tui_columns[TUI_COL_CALLS].width, (unsigned long long)row->calls,
                 tui_columns[TUI_COL_IMBAL].width, row->imbalance,
                 letter_of((int)tui_model_paint(m, row->function)), tui_model_func_name(m, row->function));
        if (i == v->prof_sel && app->focus == TUI_FOCUS_PROFILE)
            attron(A_REVERSE);
        if (row->function == v->func_sel)
            attron(A_BOLD);
        put(y, 0, COLS, line);
        attroff(A_REVERSE | A_BOLD);
    }
}

static void draw_details(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct tui_data *d = tui_model_data(m);
    size_t np;
    const struct tui_proc *procs = tui_model_procs(m, &np);
    char line[512], t[32], c[32];
    int y = l->lower_top, end = l->lower_top + l->lower_rows;

    fmt_rel(app, c, sizeof c, v->cursor);
    snprintf(line, sizeof line, "stack of %s at %s:", procs[v->proc_sel].name, c);
    attron(A_BOLD);
    put(y++, 0, COLS, line);
    attroff(A_BOLD);
    for (size_t i = 0; i < d->nstack && y < end; i++) {
        fmt_rel(app, t, sizeof t, d->stack[i].enter);
        snprintf(line, sizeof line, "%*s%s (since %s)", (int)(2 + 2 * (i < 20 ? i : 20)), "",
                 tui_model_func_name(m, d->stack[i].function), t);
        put(y++, 0, COLS, line);
    }
    if (d->nstack == 0 && y < end)
        put(y++, 0, COLS, "  (no call active)");
    if (y < end) {
        snprintf(line, sizeof line, "messages in flight: %zu", d->nmsgs);
        attron(A_BOLD);
        put(y++, 0, COLS, line);
        attroff(A_BOLD);
    }
    for (size_t i = 0; i < d->nmsgs && y < end; i++) {
        fmt_rel(app, t, sizeof t, d->msgs[i].time);
        snprintf(line, sizeof line, "  %u -> %u  tag %u  %u bytes  sent at %s",
                 d->msgs[i].sender, d->msgs[i].receiver, d->msgs[i].tag, d->msgs[i].length, t);
        put(y++, 0, COLS, line);
    }
    if (d->ncounters && y < end) {
        attron(A_BOLD);
        put(y++, 0, COLS, "counters:");
        attroff(A_BOLD);
    }
    for (size_t i = 0; i < d->ncounters && y < end; i++) {
        size_t nc;
        const struct tui_counter *cs = tui_model_counters(m, &nc);

        if (d->counters[i].known) {
            fmt_rel(app, t, sizeof t, d->counters[i].time);
            snprintf(line, sizeof line, "  %s = %llu %s (at %s)", cs[i].name,
                     (unsigned long long)d->counters[i].value, cs[i].unit, t);
        } else {
            snprintf(line, sizeof line, "  %s: no value recorded before the cursor", cs[i].name);
        }
        put(y++, 0, COLS, line);
    }
    while (y < end) {
        move(y++, 0);
        clrtoeol();
    }
}

static void draw_help(const struct layout *l, size_t *help_top)
{
    size_t n = tui_keys_help_lines();
    char line[256];
    int y = 0;

    size_t fit = l->msg > 1 ? (size_t)l->msg - 1 : 1, top = *help_top;

    if (top + fit > n)                          /* the last page is full */
        top = n > fit ? n - fit : 0;
    *help_top = top;
    erase();
    attron(A_BOLD);
    put(y++, 0, COLS, top + fit < n ? "vftr-tui keys (PgDn/Down/Space: more, any other key closes)"
                                    : "vftr-tui keys (PgUp/Up: back, any other key closes)");
    attroff(A_BOLD);
    for (size_t i = top; i < n && y < l->msg; i++) {
        tui_keys_help_line(i, line, sizeof line);
        put(y++, 0, COLS, line);
    }
}

size_t tui_screen_help_page(void)
{
    return LINES > 3 ? (size_t)LINES - 3 : 1;
}

void tui_screen_draw(struct tui_app *app)
{
    struct layout l = layout_of(app);

    if (app->help) {
        draw_help(&l, &app->help_top);
    } else {
        draw_status(app, &l);
        draw_axis(app, &l);
        draw_timeline(app, &l);
        draw_legend(app, &l);
        if (app->pane == TUI_PANE_PROFILE)
            draw_profile(app, &l);
        else
            draw_details(app, &l);
    }
    put(l.msg, 0, COLS, app->message);
    refresh();
}

void tui_screen_status(void *ctx, struct tui_app *app)
{
    (void)ctx;
    put(LINES - 1, 0, COLS, app->message);
    refresh();
}

/*
 * The prompt reads keys itself and edits the line through keys.h's
 * tui_line_key (getnstr would type Escape into the text and could not be
 * cancelled).  The line is shown after the label, its end when it is wider
 * than the screen.  A signal (SIGINT, ...) cancels it; the event loop then
 * sees tui_screen_interrupted().
 */
int tui_screen_prompt(void *ctx, const char *label, char *buf, size_t size)
{
    int y = LINES - 1, lw = (int)strlen(label);
    enum tui_line_result res = TUI_LINE_MORE;
    struct tui_line line;

    (void)ctx;
    tui_line_init(&line, buf, size);
    curs_set(1);
    while (res == TUI_LINE_MORE && !interrupted) {
        int room = COLS - lw - 1, key;
        size_t skip = room > 0 && line.len > (size_t)room ? line.len - (size_t)room : 0;

        put(y, 0, COLS, label);
        if (room > 0)
            mvaddnstr(y, lw, line.buf + skip, room);
        move(y, lw + (int)(line.len - skip));
        refresh();
        key = tui_screen_getkey();
        if (key >= 0)
            res = tui_line_key(&line, key);
    }
    curs_set(0);
    return res == TUI_LINE_DONE && !interrupted ? 0 : -1;
}

/* ------------------------------------------------------------ progress */

/*
 * Long reads: the model's reads call tui_screen_progress (through
 * lib/model/window.h's progress hook) from the reading threads while the
 * event loop waits for the refresh.  The event loop's thread draws nothing
 * meanwhile, so the callback may use curses under `plock`: it shows how
 * much was read, every PROGRESS_DRAW_NS at most, and looks for Escape or q
 * (or a stop signal), which stops the reads.
 */
#define PROGRESS_DRAW_NS 150000000ull

static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t ptotal, pnext;
static int pstop;                   /* 0 on, 1 stopped (Escape), 2 quit (q, a signal) */

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void tui_screen_progress_reset(void)
{
    pthread_mutex_lock(&plock);
    ptotal = 0;
    pnext = mono_ns() + PROGRESS_DRAW_NS;
    pstop = 0;
    pthread_mutex_unlock(&plock);
}

int tui_screen_progress_stopped(uint64_t *bytes)
{
    int st;

    pthread_mutex_lock(&plock);
    st = pstop;
    if (bytes)
        *bytes = ptotal;
    pthread_mutex_unlock(&plock);
    return st;
}

int tui_screen_progress(void *ctx, uint64_t bytes)
{
    int st;

    (void)ctx;
    pthread_mutex_lock(&plock);
    ptotal += bytes;
    if (interrupted && !pstop)
        pstop = 2;
    if (!pstop && active && mono_ns() >= pnext) {
        char msg[160];
        int key;

        snprintf(msg, sizeof msg, "reading the trace: %.1f MB so far ... Esc stops, q quits",
                 (double)ptotal / 1e6);
        put(LINES - 1, 0, COLS, msg);
        refresh();
        int later[16];
        size_t nlater = 0;

        timeout(0);
        while ((key = getch()) != ERR) {
            if (key == 27 || key == 'q' || key == ('G' & 0x1f))
                pstop = key == 'q' ? 2 : 1;
            else if (nlater < sizeof later / sizeof later[0])
                later[nlater++] = key;          /* the event loop's, afterwards */
        }
        while (nlater > 0)
            ungetch(later[--nlater]);
        timeout(200);
        pnext = mono_ns() + PROGRESS_DRAW_NS;
    }
    st = pstop;
    pthread_mutex_unlock(&plock);
    return st != 0;
}
