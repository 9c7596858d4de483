/*
 * crashlog.h — the profile log of a run that a signal ends (capture/crashlog.c).
 *
 * A run killed by SIGSEGV, SIGBUS, SIGABRT, SIGTERM or SIGINT never reaches
 * the finalizer.  signals.c's handler flushes the trace and then calls
 * vftr_crashlog_write, which writes <dir>/<base>_<rank>.log as the finalizer
 * would (the run section, the profile table and the list of call paths, in
 * the same layout, sorted by the same column), with the figures counted up to
 * the signal and one more line in the run section:
 *
 *   incomplete      the run was killed by signal 11 (SIGSEGV): the figures stop there
 *
 * The name-grouped table and the configuration are left out.
 *
 * Async-signal-safe: no malloc, no stdio, no locks.  The rows are computed
 * into memory mapped with mmap (a system call, not the allocator, whose lock
 * the interrupted code may hold) and unmapped afterwards; numbers and dates
 * are formatted by the functions below; the file is written with write()
 * from a static buffer.  Thread-safety: one caller at a time (the signal
 * handler's own guard), with the other threads' hooks stopped
 * (vftr_stop_world); it only reads capture's state.
 */
#ifndef VFTR_CAPTURE_CRASHLOG_H
#define VFTR_CAPTURE_CRASHLOG_H

#include <stddef.h>
#include <stdint.h>

/* Writes the log of the ranks of logfile_for_ranks for signal sig.
 * 0 (also when this rank writes no log), or -errno. */
int vftr_crashlog_write(int sig) __attribute__((no_instrument_function));

/*
 * Formatting without stdio (async-signal-safe, pure; exposed for the unit
 * tests).  Each writes a NUL-terminated string into buf and returns its
 * length.
 *   vftr_fmt_u64    decimal, as "%" PRIu64 (buf: 21 bytes)
 *   vftr_fmt_fixed  as "%.*f" with decimals <= 9, rounded as glibc rounds
 *                   (to nearest, ties to even, on the exact binary value);
 *                   |v| >= 2^63 and NaN print as "-" (buf: 32 bytes)
 *   vftr_fmt_utc    ns since the epoch as the log's dates:
 *                   "YYYY-MM-DD HH:MM:SS.uuuuuu UTC" (buf: 40 bytes)
 */
size_t vftr_fmt_u64(char *buf, uint64_t v) __attribute__((no_instrument_function));
size_t vftr_fmt_fixed(char *buf, double v, unsigned decimals)
    __attribute__((no_instrument_function));
size_t vftr_fmt_utc(char *buf, uint64_t ns) __attribute__((no_instrument_function));

#endif /* VFTR_CAPTURE_CRASHLOG_H */
