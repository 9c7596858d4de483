/*
 * screen.h — the only part of vftr-tui that knows curses (ncursesw): opens
 * and restores the terminal, reads keys (translated into keys.h's values),
 * draws the model's views and prompts for a line of text.
 *
 * The terminal is restored (endwin) on every way out: tui_screen_close(),
 * exit() (an atexit handler), SIGINT/SIGTERM/SIGHUP/SIGQUIT (the event loop
 * sees tui_screen_interrupted() and closes normally) and fatal signals
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: restored, then the signal's
 * default action).
 *
 * Threads: one thread (curses is not thread-safe).  Ownership: the screen
 * borrows the app and its model while drawing.
 */
#ifndef VFTR_TUI_SCREEN_H
#define VFTR_TUI_SCREEN_H

#include <stddef.h>
#include <stdint.h>

#include "keys.h"

/* 0, or -1 when the terminal cannot be used (message in err). */
int tui_screen_open(char *err, size_t errlen);
void tui_screen_close(void);      /* idempotent */

/* The next key (a character or TUI_KEY_*), or -1 after a short timeout
 * with no key (so that signals are noticed). */
int tui_screen_getkey(void);

/* The terminating signal that arrived, 0 if none. */
int tui_screen_interrupted(void);

/* Timeline columns and visible rows for the current terminal size; sets
 * app->proc_rows and app->prof_rows. */
size_t tui_screen_layout(struct tui_app *app);

void tui_screen_draw(struct tui_app *app);

/* Help lines that one page of the help screen shows. */
size_t tui_screen_help_page(void);

/* Prompt on the last line (the keys.h prompt callback; ctx unused). */
int tui_screen_prompt(void *ctx, const char *label, char *buf, size_t size);

/* Draws app->message on the message line at once (the keys.h status
 * callback; ctx unused), for actions that take a while. */
void tui_screen_status(void *ctx, struct tui_app *app);

/*
 * Progress of a long read (lib/model/window.h's progress function, ctx
 * unused): shows the bytes read so far on the message line and stops the
 * reads (returns non-zero) when Escape, Ctrl-G or q is pressed or a stop
 * signal arrives.  The one exception to "one thread": it is called from
 * the reading threads while the event loop waits for the refresh, and
 * serialises its use of curses.  _reset() starts a new read;
 * _stopped() says how the last one ended: 0 not stopped, 1 stopped
 * (Escape), 2 stopped to quit (q or a signal); *bytes (may be NULL) the
 * bytes read.
 */
int tui_screen_progress(void *ctx, uint64_t bytes);
void tui_screen_progress_reset(void);
int tui_screen_progress_stopped(uint64_t *bytes);

#endif /* VFTR_TUI_SCREEN_H */
