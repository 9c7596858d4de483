/*
 * screen.c — see screen.h.  Layout, top to bottom:
 *   status line    trace, visible range, cursor, depth, how the view was read
 *   time axis      start and end of the visible range (the timeline's title)
 *   timeline       one row per process (scrolls), a symbol per cell: the
 *                  function's symbol in the legend, coloured by function;
 *                  with the communication view, lines of the messages in
 *                  flight at the cursor
 *   legend         symbols of the functions on screen (up to 3 lines, L
 *                  pages on)
 *   lower pane     profile table (sortable), details (stack, messages) or
 *                  communication matrix
 *   message line   messages and prompts
 * The title line of the pane with the focus is in reverse video.  Widgets
 * own no data: every row is pulled from the model when drawn.
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
#include "util/fmt.h"

#define MIN_LOWER 4         /* lower pane rows at least */
#define TUI_CTR_WIDTH 14    /* the profile's counter column (a name cut to fit) */

static volatile sig_atomic_t interrupted;
static int active;          /* curses is on */

static void colours_init(void);

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
        colours_init();
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

/* ------------------------------------------------------------ colours */

/*
 * Colour pairs: 1 .. npaint_pairs paint a function (or group) by its paint
 * index, black letters on a background, so that a function keeps its
 * colour in every view; after them the message lines and the four heat
 * levels of the communication matrix.  A terminal with 256 colours gets 24
 * backgrounds, one with 8 the 7 non-black ones; without colours the
 * symbols alone tell the functions apart.
 */
static short npaint_pairs, pair_line, pair_heat, pair_wait;

static void colours_init(void)
{
    /* light and middle xterm-256 colours, neighbours of different hue */
    static const short bg256[] = { 81, 114, 221, 213, 147, 209, 159, 150, 228, 183, 117, 180,
                                   122, 218, 192, 153, 215, 156, 225, 110, 186, 174, 123, 223 };
    static const short bg8[] = { COLOR_CYAN, COLOR_GREEN, COLOR_YELLOW, COLOR_MAGENTA,
                                 COLOR_BLUE, COLOR_RED, COLOR_WHITE };
    static const short heat[] = { COLOR_BLUE, COLOR_GREEN, COLOR_YELLOW, COLOR_RED };
    int wide = COLORS >= 256;
    short n = wide ? (short)(sizeof bg256 / sizeof bg256[0]) : (short)(sizeof bg8 / sizeof bg8[0]);

    if (COLOR_PAIRS < n + 1 + 4 + 1 + 1)
        n = (short)(COLOR_PAIRS > 7 ? COLOR_PAIRS - 7 : 0);
    for (short i = 0; i < n; i++)
        init_pair((short)(i + 1), COLOR_BLACK, wide ? bg256[i] : bg8[i]);
    npaint_pairs = n;
    pair_line = (short)(n + 1);
    init_pair(pair_line, COLOR_RED, -1);
    pair_heat = (short)(n + 2);
    for (short i = 0; i < 4; i++)
        init_pair((short)(pair_heat + i), i == 3 || i == 0 ? COLOR_WHITE : COLOR_BLACK, heat[i]);
    pair_wait = (short)(pair_heat + 4);
    init_pair(pair_wait, COLOR_WHITE, COLOR_RED);
}

/* The attribute of paint p's cells (0 without colours or paint). */
static attr_t paint_attr(long p)
{
    if (p < 0 || npaint_pairs == 0)
        return 0;
    return COLOR_PAIR((short)(1 + p % npaint_pairs));
}

/* ------------------------------------------------------------ layout */

#define LABEL_MIN 10         /* width of the process names left of the timeline, at least */
#define LEGEND_MAX 3         /* lines the legend may take */

struct layout {
    int status, axis, tl_top, tl_rows, legend, legend_rows, lower_top, lower_rows, msg;
    int info;                /* the line of the wait analysis at the cursor, -1 none */
    int label;               /* columns of the process names, the '|' included */
    int cols;                /* timeline columns */
};

/* Writes s into out (size > width) cut to width columns: a longer s loses
 * its middle ("rank 12 th~ead 3"), so that its start and its end show. */
static char *elide(char *out, size_t size, const char *s, int width)
{
    int len = (int)strlen(s);

    if (width < 1) {
        out[0] = '\0';
    } else if (len <= width) {
        snprintf(out, size, "%s", s);
    } else {
        int head = (width - 1) / 2, tail = width - 1 - head;

        snprintf(out, size, "%.*s~%s", head, s, s + len - tail);
    }
    return out;
}

/* The label column: wide enough for every process's label (threads are
 * indented by two, ranks with threads carry a fold mark), at most a third
 * of the screen. */
static int label_width(const struct tui_app *app)
{
    size_t np;
    const struct tui_proc *p = tui_model_procs(app->model, &np);
    int w = LABEL_MIN;

    for (size_t i = 0; i < np; i++) {
        int need = (int)strlen(p[i].label) + (p[i].child ? 2 : p[i].nchildren ? 1 : 0) + 2;

        if (need > w)
            w = need;
    }
    if (w > COLS / 3)
        w = COLS / 3 > LABEL_MIN ? COLS / 3 : LABEL_MIN;
    return w;
}

/* Legend entries are laid out left to right, wrapped at the screen's
 * width; returns the lines the entries from `first` take (at most max,
 * the last one keeping room for "+N more (L)") and in *fit how many of
 * them are on those lines. */
static int legend_layout(struct tui_app *app, size_t first, int max, size_t *fit);
static size_t legend_count(struct tui_app *app);

static struct layout layout_of(struct tui_app *app)
{
    struct layout l;
    size_t np, fit;
    int h = LINES, lower;

    tui_model_procs(app->model, &np);
    l.status = 0;
    l.axis = 1;
    l.tl_top = 2;
    l.legend_rows = legend_layout(app, app->legend_top, LEGEND_MAX, &fit);
    if (l.legend_rows < 1)
        l.legend_rows = 1;
    /* paged: every page as high, so that the entries and the page mark
     * stay where they were laid out */
    if (app->legend_top > 0 || app->legend_top + fit < legend_count(app))
        l.legend_rows = LEGEND_MAX;
    /* the timeline gets what the lower pane (header + MIN_LOWER rows) leaves,
     * at most half the screen when there are many processes */
    int info = app->wait_overlay || app->critpath;
    int avail = h - 2 - l.legend_rows - info - 1 - 1 - MIN_LOWER;  /* status, axis, legend,
                                                                       wait line, header, msg */
    int want = (int)np;

    if (want > (h - 5) / 2 && want > avail)
        want = (h - 5) / 2;
    if (want > avail)
        want = avail;
    if (want < 1)
        want = 1;
    l.tl_rows = want;
    l.legend = l.tl_top + l.tl_rows;
    l.info = info ? l.legend + l.legend_rows : -1;
    l.lower_top = l.legend + l.legend_rows + info;
    lower = h - 1 - l.lower_top;
    l.lower_rows = lower > 0 ? lower : 0;
    l.msg = h - 1;
    l.label = label_width(app);
    l.cols = COLS - l.label;
    if (l.cols < 1)
        l.cols = 1;
    return l;
}

size_t tui_screen_layout(struct tui_app *app)
{
    struct layout l = layout_of(app);

    app->proc_rows = (size_t)l.tl_rows;
    app->prof_rows = l.lower_rows > 1 ? (size_t)l.lower_rows - 1 : 1;
    app->comm_rows = l.lower_rows > 2 ? (size_t)l.lower_rows - 2 : 1;
    app->waits_rows = l.lower_rows > 2 ? (size_t)l.lower_rows - 2 : 1;
    return (size_t)l.cols;
}

/* ------------------------------------------------------------ drawing */

/* Prints at most `width` bytes of s at (y, x), padding with blanks. */
static void put(int y, int x, int width, const char *s)
{
    if (width <= 0)
        return;
    mvprintw(y, x, "%-*.*s", width, width, s);
}

/* A time stamp as the screen shows it: from the trace start, to the
 * precision of one timeline column (tui_model_format_at). */
static void fmt_rel(struct tui_app *app, char *buf, size_t size, uint64_t t)
{
    tui_model_format_at(app->model, t, buf, size);
}

static void draw_status(struct tui_app *app, const struct layout *l)
{
    const struct tui_view *v = tui_model_view(app->model);
    const struct tui_data *d = tui_model_data(app->model);
    char a[VFTR_FMT_MAX], b[VFTR_FMT_MAX], c[VFTR_FMT_MAX], took[VFTR_FMT_MAX];
    char core[256], tail[128], shown[256], line[768];
    int room;

    fmt_rel(app, a, sizeof a, v->t0);
    fmt_rel(app, b, sizeof b, v->t1);
    fmt_rel(app, c, sizeof c, v->cursor);
    vftr_fmt_seconds(d->seconds, took, sizeof took);
    const char *name = tui_model_trace_name(app->model);
    const char *slash = strrchr(name, '/');

    name = slash ? slash + 1 : name;
    snprintf(core, sizeof core, "  [%s, %s)  cursor %s  depth %u  %s", a, b, c, v->depth,
             d->sampled ? "sampled" : "exact");
    snprintf(tail, sizeof tail, "  read %llu KiB in %s", (unsigned long long)(d->bytes_read / 1024),
             took);
    /* the line fits the screen: the read statistics go first, then the
     * trace's name loses its middle (8 columns kept) */
    if (strlen(name) + strlen(core) + strlen(tail) > (size_t)COLS)
        tail[0] = '\0';
    room = COLS - (int)strlen(core);
    vftr_fmt_elide(name, room > 8 ? (size_t)room : 8, shown, sizeof shown);
    snprintf(line, sizeof line, "%s%s%s", shown, core, tail);
    attron(A_REVERSE);
    put(l->status, 0, COLS, line);
    attroff(A_REVERSE);
}

/* A pane's title line: reverse video when the pane has the focus, bold
 * otherwise, so that where Up and Down act shows at a glance. */
static void title_on(const struct tui_app *app, enum tui_focus pane)
{
    attron(app->focus == pane ? A_REVERSE : A_BOLD);
}

static void title_off(void)
{
    attroff(A_REVERSE | A_BOLD);
}

static void draw_axis(struct tui_app *app, const struct layout *l)
{
    const struct tui_view *v = tui_model_view(app->model);
    char a[VFTR_FMT_MAX], b[VFTR_FMT_MAX], line[512];
    int w = l->cols;

    fmt_rel(app, a, sizeof a, v->t0);
    fmt_rel(app, b, sizeof b, v->t1);
    snprintf(line, sizeof line, "%-*s|%s", l->label - 1, "process", a);
    title_on(app, TUI_FOCUS_TIMELINE);
    put(l->axis, 0, COLS, line);
    if ((int)strlen(b) + 1 < w - (int)strlen(a))
        mvprintw(l->axis, COLS - (int)strlen(b), "%s", b);
    title_off();
}

/*
 * The lines of the messages in flight at the cursor (communication view):
 * each goes from its sender's row at the column of its send to its
 * receiver's row at the column of its receive, one mark per row between
 * ('|' straight down or up, '\' or '/' when it moves right), '@' at both
 * ends.  Drawn over the timeline's cells, in the line colour.
 */
#define LINES_MAX 64

static void draw_flights(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_comm *c = tui_model_comm(m);
    struct tui_flight f[LINES_MAX];
    long n = c ? tui_comm_flights(c, tui_model_view(m)->cursor, f, LINES_MAX) : 0;
    size_t np;
    const struct tui_proc *procs = tui_model_procs(m, &np);

    if (n > LINES_MAX)
        n = LINES_MAX;
    for (long i = 0; i < n; i++) {
        long s = -1, r = -1;

        for (size_t k = 0; k < np; k++) {
            if (procs[k].id == f[i].sender)
                s = (long)k;
            if (procs[k].id == f[i].receiver)
                r = (long)k;
        }
        if (s < 0 || r < 0)
            continue;
        long rs = (long)tui_model_row_of(m, (size_t)s), rr = (long)tui_model_row_of(m, (size_t)r);
        long cs = (long)tui_model_time_col(m, f[i].send), cr = (long)tui_model_time_col(m, f[i].recv);
        long step = rr >= rs ? 1 : -1, prev = cs;

        if (rr == rs)
            continue;                   /* a thread folded into its rank */
        for (long row = rs;; row += step) {
            long col = cs + (cr - cs) * (row - rs) / (rr - rs);
            int y = l->tl_top + (int)(row - (long)app->proc_top);
            chtype ch = row == rs || row == rr ? '@' : col == prev ? '|'
                      : (col > prev) == (step > 0) ? '\\' : '/';

            if (y >= l->tl_top && y < l->tl_top + l->tl_rows && col < l->cols)
                mvaddch(y, l->label + (int)col,
                        ch | A_BOLD | (pair_line && npaint_pairs ? COLOR_PAIR(pair_line) : 0));
            prev = col;
            if (row == rr)
                break;
        }
    }
}

/* The wait overlay and the critical path on one cell (waits.h): a
 * waiting cell shows its pattern kind's character in the wait colour (bold
 * without colours), a cell on the critical path is bold and underlined.
 * Only results of the visible window count. */
static void wait_cell(struct tui_app *app, uint32_t process, size_t c, chtype *ch, attr_t *attr)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    uint64_t a = tui_model_col_time(m, c), b = tui_model_col_time(m, c + 1);
    unsigned pat;

    if (!app->waits)
        return;
    if (app->wait_overlay && tui_waits_have(app->waits, TUI_WAITS_WAITS, v->t0, v->t1) &&
        (pat = tui_waits_cell(app->waits, process, a, b)) != 0) {
        *ch = (chtype)(unsigned char)tui_waits_symbol(pat - 1);
        *attr = npaint_pairs ? COLOR_PAIR(pair_wait) : A_BOLD;
    }
    if (app->critpath && tui_waits_have(app->waits, TUI_WAITS_CRITPATH, v->t0, v->t1) &&
        tui_waits_cp_cell(app->waits, process, a, b))
        *attr |= A_BOLD | A_UNDERLINE;
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
        char label[512], shown[512];

        move(y, 0);
        clrtoeol();
        if (ri >= nrows)
            continue;
        pi = rows[ri];
        /* threads indented under their rank; a rank with threads shows
         * whether they are folded (+) or shown (-) */
        snprintf(label, sizeof label, "%s%s",
                 procs[pi].child ? "  " : procs[pi].nchildren ? (procs[pi].folded ? "+" : "-") : "",
                 procs[pi].label);
        if (pi == v->proc_sel)
            attron(app->focus == TUI_FOCUS_TIMELINE ? A_REVERSE : A_BOLD);
        put(y, 0, l->label - 1, elide(shown, sizeof shown, label, l->label - 1));
        attroff(A_REVERSE | A_BOLD);
        mvaddch(y, l->label - 1, '|');
        for (size_t c = 0; c < d->ncols && (int)c < l->cols; c++) {
            uint32_t f = d->grid ? d->grid[pi * d->ncols + c] : 0;
            long p = f ? tui_model_paint(m, f) : -1;
            chtype ch = f ? (chtype)(unsigned char)tui_model_symbol(m, p) : ' ';
            attr_t attr = f ? paint_attr(p) : 0;

            if (f && f == v->func_sel)
                attr |= A_BOLD | A_UNDERLINE;
            if (v->show_messages && d->marks && d->marks[pi * d->ncols + c])
                ch = d->marks[pi * d->ncols + c] & 1 ? '*' : '#';
            wait_cell(app, procs[pi].id, c, &ch, &attr);
            if (c == cur)
                attr |= A_REVERSE;
            mvaddch(y, l->label + (int)c, ch | attr);
        }
    }
    if (app->pane == TUI_PANE_COMM)
        draw_flights(app, l);
}

#define LEGEND_WAIT (-2)     /* legend entries that are no paint */
#define LEGEND_CP (-3)

/* One legend entry ("A=main") into buf; its length. */
static int legend_entry(struct tui_app *app, size_t i, char *buf, size_t size, long *paint)
{
    struct tui_model *m = app->model;
    const long *paints;
    size_t others;
    int none;
    size_t n = tui_model_legend(m, &paints, &others, &none);

    *paint = -1;
    if (i < n) {
        *paint = paints[i];
        return snprintf(buf, size, "%c=%s", tui_model_symbol(m, paints[i]),
                        tui_model_paint_name(m, (size_t)paints[i]));
    }
    i -= n;
    if (none && i == 0)
        return snprintf(buf, size, "%c=%s", TUI_SYMBOL_NONE,
                        tui_model_view(m)->color_by_group ? "no group" : "undefined function");
    i -= (size_t)none;
    if (others && i == 0)
        return snprintf(buf, size, "%c=%zu more function%s", TUI_SYMBOL_OTHER, others,
                        others == 1 ? "" : "s");
    i -= others ? 1 : 0;
    /* then the wait overlay's characters and the critical path's look */
    for (size_t k = 0; app->wait_overlay && tui_waits_kinds[k].symbol; k++)
        if (i-- == 0) {
            *paint = LEGEND_WAIT;
            return snprintf(buf, size, "%c=%s wait", tui_waits_kinds[k].symbol,
                             tui_waits_kinds[k].name);
        }
    if (app->critpath && i == 0) {
        *paint = LEGEND_CP;
        return snprintf(buf, size, "_=critical path (bold, underlined)");
    }
    return -1;
}

/* The attribute of a legend entry's symbol. */
static attr_t legend_attr(long paint)
{
    if (paint == LEGEND_WAIT)
        return npaint_pairs ? COLOR_PAIR(pair_wait) : A_BOLD;
    if (paint == LEGEND_CP)
        return A_BOLD | A_UNDERLINE;
    return paint_attr(paint);
}

static size_t legend_count(struct tui_app *app)
{
    const long *paints;
    size_t others;
    int none;
    size_t n = tui_model_legend(app->model, &paints, &others, &none), k = 0;

    while (app->wait_overlay && tui_waits_kinds[k].symbol)
        k++;
    return n + (size_t)none + (others ? 1 : 0) + k + (app->critpath ? 1 : 0);
}

#define LEGEND_GAP 2
#define LEGEND_MORE 17       /* room kept for "  +N more (L)", "  L: from the top" */

static int legend_layout(struct tui_app *app, size_t first, int max, size_t *fit)
{
    size_t total = legend_count(app), i = first;
    int line = 0, x = tui_model_view(app->model)->color_by_group ? 8 : 0;
    char buf[512];
    long p;

    *fit = 0;
    if (first >= total)
        return 1;
    while (i < total && line < max) {
        int len = legend_entry(app, i, buf, sizeof buf, &p);
        int room = COLS - (line == max - 1 && (first > 0 || i + 1 < total) ? LEGEND_MORE : 0);

        if (len > COLS - 1)
            len = COLS - 1;                 /* a name longer than the screen: cut */
        if (x > 0 && x + len > room) {
            line++;
            x = 0;
            continue;
        }
        x += len + LEGEND_GAP;
        i++;
    }
    *fit = i - first;
    return line + (x > 0 || line == 0 ? 1 : 0);
}

/* The symbols on screen with the names of their functions (or groups),
 * wrapped over the legend's lines; what does not fit is paged with L. */
static void draw_legend(struct tui_app *app, const struct layout *l)
{
    size_t total = legend_count(app), fit, i;
    int line = 0, x = 0;
    char buf[512];
    long p;

    if (app->legend_top >= total)
        app->legend_top = 0;
    for (int y = l->legend; y < l->legend + l->legend_rows; y++) {
        move(y, 0);
        clrtoeol();
    }
    legend_layout(app, app->legend_top, LEGEND_MAX, &fit);
    app->legend_shown = fit;
    if (tui_model_view(app->model)->color_by_group) {
        mvprintw(l->legend, 0, "groups: ");
        x = 8;
    }
    for (i = app->legend_top; i < app->legend_top + fit; i++) {
        int len = legend_entry(app, i, buf, sizeof buf, &p);
        int room = COLS - (line == LEGEND_MAX - 1 && (app->legend_top > 0 || i + 1 < total)
                           ? LEGEND_MORE : 0);

        if (len > COLS - 1)
            len = COLS - 1;
        if (x > 0 && x + len > room) {
            line++;
            x = 0;
        }
        mvaddch(l->legend + line, x, (chtype)(unsigned char)buf[0] | legend_attr(p));
        put(l->legend + line, x + 1, len - 1, buf + 1);
        x += len + LEGEND_GAP;
    }
    if (app->legend_top + fit < total || app->legend_top > 0) {
        size_t after = total - app->legend_top - fit;

        if (after)
            snprintf(buf, sizeof buf, "+%zu more (L)", after);
        else
            snprintf(buf, sizeof buf, "L: from the top");
        mvprintw(l->legend + l->legend_rows - 1, COLS - LEGEND_MORE + LEGEND_GAP, "%s", buf);
    }
}

static void draw_profile(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct tui_data *d = tui_model_data(m);
    const struct vftr_window_info *info = tui_model_info(m);
    char line[512];
    size_t len = 0, nctr;
    int rows = l->lower_rows - 1;
    const struct tui_counter *ctr = tui_model_counters(m, &nctr);
    size_t cs = nctr ? v->ctr_sel % nctr : 0;

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
        /* a trace with counters: the chosen one's column before the name */
        if (c == TUI_COL_NAME && nctr)
            len += (size_t)snprintf(line + len, sizeof line - len, " %*.*s ", TUI_CTR_WIDTH,
                                    TUI_CTR_WIDTH, ctr[cs].name);
        if (col->width)
            len += (size_t)snprintf(line + len, sizeof line - len, "%*s ", col->width, h);
        else
            len += (size_t)snprintf(line + len, sizeof line - len, "   %s", h);
    }
    if (d->prof_from_summaries) {
        char a[VFTR_FMT_MAX], b[VFTR_FMT_MAX];

        fmt_rel(app, a, sizeof a, d->prof_a);
        fmt_rel(app, b, sizeof b, d->prof_b);
        snprintf(line + len, sizeof line - len, "  (summaries %s..%s)", a, b);
    }
    title_on(app, TUI_FOCUS_PROFILE);
    put(l->lower_top, 0, COLS, line);
    title_off();
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
        long p = tui_model_paint(m, row->function);
        char sym = tui_model_symbol(m, p);
        char excl[VFTR_FMT_MAX], incl[VFTR_FMT_MAX], imbal[VFTR_FMT_MAX], name[512];
        int at;

        /* times in the unit that fits, the imbalance as a percentage (as
         * vftr-stats prints them); bare ticks without a resolution */
        if (info->resolution) {
            tui_format_time(excl, sizeof excl, row->excl, info->resolution);
            tui_format_time(incl, sizeof incl, row->incl, info->resolution);
        } else {
            snprintf(excl, sizeof excl, "%llu", (unsigned long long)row->excl);
            snprintf(incl, sizeof incl, "%llu", (unsigned long long)row->incl);
        }
        vftr_fmt_imbalance(row->imbalance, imbal, sizeof imbal);
        /* '>' marks the selected row in plain text too (no colour needed) */
        at = snprintf(line, sizeof line, "%c%*s %*s %*llu %*s  ",
                      i == v->prof_sel ? '>' : ' ',
                      tui_columns[TUI_COL_EXCL].width - 1, excl,
                      tui_columns[TUI_COL_INCL].width, incl,
                      tui_columns[TUI_COL_CALLS].width, (unsigned long long)row->calls,
                      tui_columns[TUI_COL_IMBAL].width, imbal);
        if (nctr && d->prof_ctr)
            at += snprintf(line + at, sizeof line - (size_t)at, "%*llu  ", TUI_CTR_WIDTH,
                           (unsigned long long)d->prof_ctr[d->order[i] * nctr + cs]);
        else if (nctr)
            at += snprintf(line + at, sizeof line - (size_t)at, "%*s  ", TUI_CTR_WIDTH, "-");
        /* a name longer than the room left loses its middle, so that its
         * namespace and its function both show */
        vftr_fmt_elide(tui_model_func_name(m, row->function),
                       COLS > at + 2 ? (size_t)(COLS - at - 2) : 0, name, sizeof name);
        snprintf(line + at, sizeof line - (size_t)at, "%c %s", sym, name);
        if (i == v->prof_sel && app->focus == TUI_FOCUS_PROFILE)
            attron(A_REVERSE);
        if (row->function == v->func_sel)
            attron(A_BOLD);
        put(y, 0, COLS, line);
        attroff(A_REVERSE | A_BOLD);
        if (at < COLS && sym != ' ')
            mvaddch(y, at, (chtype)(unsigned char)sym | paint_attr(p));
    }
}

static void draw_details(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct tui_data *d = tui_model_data(m);
    size_t np;
    const struct tui_proc *procs = tui_model_procs(m, &np);
    char line[512], t[VFTR_FMT_MAX], c[VFTR_FMT_MAX];
    int y = l->lower_top, end = l->lower_top + l->lower_rows;

    fmt_rel(app, c, sizeof c, v->cursor);
    snprintf(line, sizeof line, "stack of %s at %s:", procs[v->proc_sel].label, c);
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

/* A matrix cell's figure in at most 7 columns: counts and bytes with k, M,
 * G past 5 digits, times in the unit that fits ("1.23 ms"; ticks, as
 * counts, without a resolution). */
static void cell_text(struct tui_app *app, char *buf, size_t size, uint64_t v,
                      enum tui_comm_unit unit)
{
    static const char *const sfx[] = { "", "k", "M", "G", "T", "P" };
    double x = (double)v;
    size_t k = 0;

    if (unit == TUI_COMM_TIME && tui_model_info(app->model)->resolution) {
        tui_format_time(buf, size, v, tui_model_info(app->model)->resolution);
        return;
    }
    if (v < 100000) {
        snprintf(buf, size, "%llu", (unsigned long long)v);
        return;
    }
    while (x >= 1000 && k + 1 < sizeof sfx / sizeof sfx[0]) {
        x /= 1000;
        k++;
    }
    snprintf(buf, size, x < 10 ? "%.1f%s" : "%.0f%s", x, sfx[k]);
}

#define CELL 8               /* columns of a matrix cell */

/*
 * The communication view: the matrix of the messages sent in the visible
 * window, senders in rows, receivers in columns (the processes that sent
 * or received any, in the timeline's order), each cell the number of
 * messages, their bytes or their transfer time (u), shaded by its share of
 * the largest cell; Up and Down (with the focus) move the block shown
 * along the diagonal.
 */
static void draw_comm(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct tui_comm *c = tui_model_comm(m);
    const struct vftr_msg_counts *k = c ? tui_comm_counts(c) : NULL;
    const size_t *procs;
    size_t n = tui_model_comm_procs(m, &procs), np;
    const struct tui_proc *pr = tui_model_procs(m, &np);
    int y = l->lower_top, end = l->lower_top + l->lower_rows, label = l->label;
    int ncols = (COLS - label) / CELL, nrows = l->lower_rows - 2;
    char line[1024], a[VFTR_FMT_MAX], b[VFTR_FMT_MAX], txt[64], shown[256];
    uint64_t max = 1, total = 0;

    fmt_rel(app, a, sizeof a, v->t0);
    fmt_rel(app, b, sizeof b, v->t1);
    if (k) {
        uint64_t bytes = 0;
        size_t npairs;
        const struct vftr_msgpair *pp = tui_comm_pairs(c, &npairs);

        for (size_t i = 0; i < npairs; i++)
            bytes += pp[i].bytes;
        total = k->sends;
        snprintf(line, sizeof line, "%s (u) in [%s, %s): %llu sent, %llu B; %llu received "
                 "later, %llu sent before", tui_comm_unit_names[v->comm_unit], a, b,
                 (unsigned long long)k->sends,
                 (unsigned long long)bytes, (unsigned long long)k->unmatched_sends,
                 (unsigned long long)(k->recvs_open + k->unmatched_recvs));
    } else {
        snprintf(line, sizeof line, "messages in [%s, %s): not read", a, b);
    }
    title_on(app, TUI_FOCUS_COMM);
    put(y++, 0, COLS, line);
    title_off();
    if (ncols < 1)
        ncols = 1;
    if (app->comm_top >= n)
        app->comm_top = n ? n - 1 : 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            uint64_t x = tui_model_comm_value(m, procs[i], procs[j]);

            if (x > max)
                max = x;
        }
    if (k && total == 0 && k->unmatched_recvs == 0 && y < end) {
        put(y++, 0, COLS, "  (no message in this window)");
    } else if (k && y < end) {
        /* the receivers' labels */
        move(y, 0);
        clrtoeol();
        mvprintw(y, 0, "%-*s", label - 1, "to ->");
        for (int j = 0; j < ncols && app->comm_top + (size_t)j < n; j++)
            mvprintw(y, label + j * CELL, "%*s ", CELL - 1,
                     elide(shown, sizeof shown, pr[procs[app->comm_top + (size_t)j]].label,
                           CELL - 1));
        y++;
        for (int i = 0; i < nrows && app->comm_top + (size_t)i < n && y < end; i++, y++) {
            size_t s = procs[app->comm_top + (size_t)i];

            move(y, 0);
            clrtoeol();
            put(y, 0, label - 1, elide(shown, sizeof shown, pr[s].label, label - 1));
            mvaddch(y, label - 1, '|');
            for (int j = 0; j < ncols && app->comm_top + (size_t)j < n; j++) {
                uint64_t x = tui_model_comm_value(m, s, procs[app->comm_top + (size_t)j]);
                int level = x ? (int)((x * 4 - 1) / max) : -1;   /* 0..3 by quarter */
                attr_t attr = 0;

                if (x == 0) {
                    snprintf(txt, sizeof txt, ".");
                } else {
                    cell_text(app, txt, sizeof txt, x, v->comm_unit);
                    if (npaint_pairs && level >= 0)
                        attr = COLOR_PAIR((short)(pair_heat + (level > 3 ? 3 : level)));
                    else if (x == max)
                        attr = A_BOLD;
                }
                attron(attr);
                mvprintw(y, label + j * CELL, "%*.*s", CELL - 1, CELL - 1, txt);
                attroff(attr);
            }
        }
        if (app->comm_top + (size_t)nrows < n && y < end) {
            snprintf(line, sizeof line, "  +%zu more rows (Tab, then Down)",
                     n - app->comm_top - (size_t)nrows);
            put(y++, 0, COLS, line);
        }
    }
    while (y < end) {
        move(y++, 0);
        clrtoeol();
    }
}

/* The label of a process token ("process N" when the trace does not
 * define it). */
static const char *proc_label(struct tui_app *app, uint32_t id, char *buf, size_t size)
{
    size_t np;
    const struct tui_proc *p = tui_model_procs(app->model, &np);

    for (size_t i = 0; i < np; i++)
        if (p[i].id == id)
            return p[i].label;
    snprintf(buf, size, "process %u", id);
    return buf;
}

/*
 * The line of the wait analysis at the cursor (w, P): the wait of the
 * selected process in the cursor's cell — its pattern, length and span,
 * its call path, and the late partner with the call it arrived in — and
 * the process the critical path runs on there.
 */
static void draw_wait_info(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct tui_wait_cursor *c = app->wait_cursor;
    const struct vftr_window_info *info = tui_model_info(m);
    size_t np;
    const struct tui_proc *procs = tui_model_procs(m, &np);
    char line[2048], t[32], a[32], b[32], pb[64];
    size_t len = 0;

    if (l->info < 0)
        return;
    line[0] = '\0';
    /* the critical path first: it is short, the wait's line may not fit */
    if (app->critpath) {
        if (!c || !tui_waits_have(app->waits, TUI_WAITS_CRITPATH, v->t0, v->t1))
            len += (size_t)snprintf(line, sizeof line, "cp: not computed");
        else if (c->on_cp)
            len += (size_t)snprintf(line, sizeof line, "cp: %s",
                                    proc_label(app, c->cp_process, pb, sizeof pb));
        else
            len += (size_t)snprintf(line, sizeof line, "cp: not here");
        if (app->wait_overlay)
            len += (size_t)snprintf(line + len, sizeof line - len, "  |  ");
    }
    if (app->wait_overlay && len < sizeof line) {
        char *out = line + len;
        size_t room = sizeof line - len;

        if (!c || !tui_waits_have(app->waits, TUI_WAITS_WAITS, v->t0, v->t1)) {
            snprintf(out, room, "wait: not computed for this window");
        } else if (tui_waits_overflow(app->waits)) {
            snprintf(out, room, "wait: more than %u waits in this window, not drawn (zoom in; "
                     "W lists them)", TUI_WAITS_MAX_KEPT);
        } else if (!c->wait) {
            snprintf(out, room, "wait: none of %s here", procs[v->proc_sel].label);
        } else {
            size_t k;

            tui_format_time(t, sizeof t, c->w.end - c->w.start, info->resolution);
            fmt_rel(app, a, sizeof a, c->w.start);
            fmt_rel(app, b, sizeof b, c->w.end);
            /* the late partner before the wait's own call path: that one
             * the timeline shows, the partner's it does not */
            k = (size_t)snprintf(out, room, "wait: %s %s",
                                 vftr_wait_pattern_info(c->w.pattern)->name, t);
            if (c->w.cause && k < room) {
                char at[32];

                fmt_rel(app, at, sizeof at, c->w.cause_time);
                k += (size_t)snprintf(out + k, room - k, "; late: %s in %s at %s",
                                      proc_label(app, c->w.cause, pb, sizeof pb),
                                      c->partner_path, at);
            }
            if (k < room)
                snprintf(out + k, room - k, "; in %s [%s, %s)", c->path, a, b);
        }
    }
    attron(A_BOLD);
    put(l->info, 0, COLS, line);
    attroff(A_BOLD);
}

/*
 * The pattern table of the visible window (W): every (pattern, call path,
 * process) that waited in it, its waiting time, the instances and the
 * largest, sorted by time — the figures of vftr-stats --waits --threads
 * --time for the window, in seconds as it prints them.  Up and Down (with
 * the focus) scroll.
 */
static void draw_waits(struct tui_app *app, const struct layout *l)
{
    struct tui_model *m = app->model;
    const struct tui_view *v = tui_model_view(m);
    const struct vftr_window_info *info = tui_model_info(m);
    int y = l->lower_top, end = l->lower_top + l->lower_rows;
    char line[1024], a[32], b[32], pb[64];
    size_t n = 0;
    const struct tui_wait_row *r = NULL;
    int have = app->waits && tui_waits_have(app->waits, TUI_WAITS_WAITS, v->t0, v->t1);

    fmt_rel(app, a, sizeof a, v->t0);
    fmt_rel(app, b, sizeof b, v->t1);
    if (have) {
        uint64_t total = tui_waits_total(app->waits), pt = tui_waits_proc_time(app->waits);

        r = tui_waits_rows(app->waits, &n);
        char tot[VFTR_FMT_MAX];

        /* times as vftr-stats --waits writes them (util/fmt.h) */
        vftr_fmt_ticks(total, info->resolution, tot, sizeof tot);
        snprintf(line, sizeof line, "wait states in [%s, %s): %s in all (%.2f %% of the "
                 "processes' time), %zu rows", a, b, tot,
                 pt ? 100.0 * (double)total / (double)pt : 0.0, n);
    } else {
        snprintf(line, sizeof line, "wait states in [%s, %s): not computed", a, b);
    }
    title_on(app, TUI_FOCUS_WAITS);
    put(y++, 0, COLS, line);
    title_off();
    if (have && y < end) {
        snprintf(line, sizeof line, " %12s %8s %12s  %-22s %-16s %s",
                 info->resolution ? "time" : "time[ticks]", "count",
                 info->resolution ? "max" : "max[ticks]", "pattern", "process", "call path");
        attron(A_BOLD);
        put(y++, 0, COLS, line);
        attroff(A_BOLD);
    }
    if (have && n == 0 && y < end)
        put(y++, 0, COLS, "  (no process waits in this window)");
    if (app->waits_top >= n)
        app->waits_top = n ? n - 1 : 0;
    for (size_t i = app->waits_top; have && i < n && y < end; i++) {
        /* the last row says how many more there are when they do not fit */
        if (y == end - 1 && i + 1 < n) {
            snprintf(line, sizeof line, "  +%zu more rows (Tab, then Down)", n - i);
            put(y++, 0, COLS, line);
            break;
        }
        char tm[VFTR_FMT_MAX], mx[VFTR_FMT_MAX];

        if (info->resolution) {
            tui_format_time(tm, sizeof tm, r[i].time, info->resolution);
            tui_format_time(mx, sizeof mx, r[i].max, info->resolution);
        } else {
            snprintf(tm, sizeof tm, "%llu", (unsigned long long)r[i].time);
            snprintf(mx, sizeof mx, "%llu", (unsigned long long)r[i].max);
        }
        snprintf(line, sizeof line, " %12s %8llu %12s  %-22s %-16s %s", tm,
                 (unsigned long long)r[i].count, mx, vftr_wait_pattern_info(r[i].pattern)->key,
                 proc_label(app, r[i].process, pb, sizeof pb), r[i].callpath);
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
        draw_wait_info(app, &l);
        if (app->pane == TUI_PANE_PROFILE)
            draw_profile(app, &l);
        else if (app->pane == TUI_PANE_COMM)
            draw_comm(app, &l);
        else if (app->pane == TUI_PANE_WAITS)
            draw_waits(app, &l);
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
