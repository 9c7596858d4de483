/*
 * keys.h — vftr-tui's key bindings: one table (keys.c) maps keys to
 * actions; the same table prints the `?` help screen, `--keys` and the KEYS
 * section of the man page (a test checks that the page matches).  Actions
 * change the model (model.h) and return what must happen next; they never
 * draw.  No curses here: the screen layer translates its key codes into
 * the TUI_KEY_* values below.
 *
 * Ownership: the app borrows the model.  Threads: one thread.
 */
#ifndef VFTR_TUI_KEYS_H
#define VFTR_TUI_KEYS_H

#include <stddef.h>

#include "model.h"
#include "waits.h"

/* Keys beyond ASCII, as the screen layer reports them. */
enum {
    TUI_KEY_UP = 0x1000, TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT, TUI_KEY_PGUP,
    TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END, TUI_KEY_ENTER, TUI_KEY_TAB, TUI_KEY_RESIZE,
    TUI_KEY_ESCAPE, TUI_KEY_BACKSPACE, TUI_KEY_OTHER,   /* OTHER: a key with no meaning here */
};

/* What an action asks for. */
enum tui_result {
    TUI_NOTHING = 0,
    TUI_REDRAW = 1,       /* redraw (the model refreshes what is dirty) */
    TUI_QUIT = 2,
};

enum tui_pane { TUI_PANE_PROFILE, TUI_PANE_DETAILS, TUI_PANE_COMM, TUI_PANE_WAITS };
/* The focused pane (where Up/Down/PgUp/PgDn act) is drawn with its title
 * line in reverse video.  The details cannot take it. */
enum tui_focus { TUI_FOCUS_TIMELINE, TUI_FOCUS_PROFILE, TUI_FOCUS_COMM, TUI_FOCUS_WAITS };

struct tui_app {
    struct tui_model *model;
    enum tui_pane pane;         /* lower pane */
    enum tui_focus focus;       /* where Up/Down/Enter act */
    int help;                   /* the help screen is shown */
    size_t help_top;            /* first help line shown (the help pages) */
    size_t proc_top;            /* first process row shown */
    size_t prof_top;            /* first profile row shown */
    size_t prof_rows;           /* profile rows that fit (set by the screen) */
    size_t proc_rows;           /* process rows that fit (set by the screen) */
    size_t legend_top;          /* first legend entry shown (L pages on) */
    size_t legend_shown;        /* entries the legend showed (set by the screen) */
    size_t comm_top;            /* first sender row and receiver column of the matrix */
    size_t comm_rows;           /* matrix rows that fit (set by the screen) */
    /* the wait analysis (waits.h): computed by the event loop for the
     * visible window while one of its views is on */
    struct tui_waits *waits;    /* owned by the app's creator */
    int wait_overlay;           /* waits drawn on the timeline, the line at the cursor */
    int critpath;               /* the critical path highlighted */
    size_t waits_top;           /* first row of the pattern table shown */
    size_t waits_rows;          /* table rows that fit (set by the screen) */
    const struct tui_wait_cursor *wait_cursor;  /* at the cursor (NULL: not known) */
    char message[640];          /* shown in the message line until the next key */
    /* Asks the user for a line of text; 0 with buf filled, -1 cancelled.
     * Provided by the screen layer. */
    int (*prompt)(void *ctx, const char *label, char *buf, size_t size);
    void *prompt_ctx;
    /* Shows app->message at once (before a slow action finishes); may be
     * NULL.  Provided by the screen layer, called with prompt_ctx. */
    void (*status)(void *ctx, struct tui_app *app);
};

struct tui_key {
    int key;                    /* a character or TUI_KEY_* */
    const char *name;           /* as shown in help ("Left", "+") */
    const char *help;
    enum tui_result (*action)(struct tui_app *app);
};

/*
 * A line typed into a prompt (g, /): one table (keys.c, tui_line_keys) says
 * what the editing keys do.  Printable characters and the bytes of UTF-8
 * sequences are appended while they fit (buf always holds a terminated
 * string of at most size - 1 bytes); Backspace removes the last character
 * (a whole UTF-8 sequence); Ctrl-U empties the line, Ctrl-W removes the
 * last word; Enter ends it (an empty line counts as cancelled); Escape and
 * Ctrl-G cancel.  Every other key is ignored, never typed into the text.
 * No curses: the screen layer feeds keys and draws the line.
 */
struct tui_line {
    char *buf;                  /* borrowed, size bytes */
    size_t size, len;
};

enum tui_line_result { TUI_LINE_MORE, TUI_LINE_DONE, TUI_LINE_CANCEL };

/* Empties the line (buf of size >= 1 bytes, borrowed). */
void tui_line_init(struct tui_line *l, char *buf, size_t size);
/* Feeds one key (a byte or TUI_KEY_*). */
enum tui_line_result tui_line_key(struct tui_line *l, int key);

struct tui_line_key {
    int key;
    const char *name;           /* for the man page ("Esc") */
    const char *help;
    enum tui_line_result (*op)(struct tui_line *l);
};
extern const struct tui_line_key tui_line_keys[];    /* ends with op NULL */

/* The table (ends with an entry whose action is NULL). */
extern const struct tui_key tui_keys[];

/* Runs the action bound to key; TUI_NOTHING for unbound keys. */
enum tui_result tui_key_dispatch(struct tui_app *app, int key);

/* Help text lines from the table: "  KEYS        what they do".  Returns the
 * number of lines; line i (0-based) into buf. */
size_t tui_keys_help_lines(void);
void tui_keys_help_line(size_t i, char *buf, size_t size);

/* The key table as man(7) source (.TP paragraphs), to `out`. */
void tui_keys_print_man(void *out);

#endif /* VFTR_TUI_KEYS_H */
