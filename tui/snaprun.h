/*
 * snaprun.h — runs vftr-snap on a trace for vftr-tui, as a child process
 * whose output is captured (the terminal belongs to curses meanwhile).
 * The vftr-snap used is the one installed next to the running vftr-tui
 * (the directory of /proc/self/exe), so a build tree's vftr-tui runs that
 * tree's vftr-snap.  No curses here.
 *
 * Ownership: the caller owns every buffer.  Threads: call from one thread;
 * it waits for the child (SIGCHLD must not be ignored).
 */
#ifndef VFTR_TUI_SNAPRUN_H
#define VFTR_TUI_SNAPRUN_H

#include <stddef.h>

/* The path of the vftr-snap beside this executable into buf.  0, or -errno
 * (-ENOENT: there is no executable vftr-snap there) with a message in err. */
int tui_snap_path(char *buf, size_t size, char *err, size_t errlen);

/* Runs `vftr-snap --all TRACE` with stdin from /dev/null and stdout and
 * stderr captured.  0 when it exited with status 0; -errno when it could
 * not be started, or -EIO when it failed: err then says how (exit status or
 * signal) followed by the last line of its output. */
int tui_snap_run(const char *trace, char *err, size_t errlen);

/* The same with `--progress`, and what it writes passed on to our stderr
 * as it comes (its progress line), for work done before the screen opens;
 * err gets its last line as above. */
int tui_snap_run_shown(const char *trace, char *err, size_t errlen);

#endif /* VFTR_TUI_SNAPRUN_H */
