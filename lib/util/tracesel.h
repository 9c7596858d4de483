/*
 * tracesel.h — what every trace-reading vftr tool does with its trace
 * argument, --time and --process: find the trace's name stub, its time base
 * (so that "1.5ms" can be turned into ticks), and enable exactly the
 * requested processes in an OTF_Reader.
 *
 * Functions return 0 (or a count) or -errno and, when err is not NULL,
 * describe failures in it (see errmsg.h); messages do not repeat the trace
 * name, the tool prints "<tool>: <trace>.otf: <message>".  They use only the
 * OTF reading API, so they work with any OTF 1.12-compatible library.
 * Thread-safe as far as the OTF library is (each call uses its own reader or
 * the one it is given).
 */
#ifndef VFTR_UTIL_TRACESEL_H
#define VFTR_UTIL_TRACESEL_H

#include <stddef.h>

#include "otf.h"

#include "proclist.h"
#include "timespec.h"

/*
 * The name stub of a trace given as "foo" or "foo.otf" (a trailing ".otf"
 * is removed, nothing else).  Returns a new string (caller owns, free with
 * free()), or NULL with errno = ENOMEM.
 */
char *vftr_trace_namestub(const char *arg);

/*
 * Opens the trace `namestub` for reading, like OTF_Reader_open(), and checks
 * its files first: every file of its streams that exists must be a regular
 * file (never waited on, lib/util/regfile.h), and it must have a
 * definitions file.  Returns the reader (caller owns, close with
 * OTF_Reader_close()), or NULL with errno set and a message "cannot open
 * trace (<reason>)" in err: EIO when the master file cannot be read (the
 * reason is the system's, "No such file or directory", or the OTF
 * library's); ENODEV / EISDIR with "<file>: is a FIFO, expected a regular
 * file"; ENOENT with "<stub>.0.def: No such file or directory (nor
 * <stub>.0.def.z): the trace's definitions are missing".  All of them are
 * runtime errors (exit 1) for a tool.
 */
OTF_Reader *vftr_trace_open(const char *namestub, OTF_FileManager *manager, char *err,
                            size_t errlen);

/*
 * Finds the time base of the trace `namestub`: the timer resolution from
 * DefTimerResolution (0 if the trace has none) and the first time stamp from
 * DefTimeRange, or, when the trace has no DefTimeRange, the earliest time
 * stamp of its event files (0 if there are no events either).  Opens its
 * own reader and streams on `manager` and closes them again, so that a
 * reader the caller opened is not disturbed.
 *
 * Returns 0, or -EIO when the trace cannot be opened or read (err gets the
 * OTF library's message).
 */
int vftr_trace_timebase(const char *namestub, OTF_FileManager *manager,
                        struct vftr_timebase *base, char *err, size_t errlen);

/*
 * The time span of the events of trace `namestub` (whose master control
 * `reader` has read), from the first and last time stamps the stream files
 * carry (OTF_RBuffer_getFileProperties; each stream file is opened through
 * `manager` and closed again).  Returns 1 with *first and *last set, or 0
 * (both 0) when no stream has events.
 */
int vftr_trace_event_span(const char *namestub, OTF_FileManager *manager, OTF_Reader *reader,
                          uint64_t *first, uint64_t *last);

/*
 * Enables in `reader` exactly the processes of the trace (as listed in its
 * master control file) that are in `list`, and disables all others.
 * Processes of `list` that the trace does not have are ignored.
 *
 * Returns the number of processes enabled (0 means the selection is empty:
 * err then names the requested processes), or -EIO if the reader refuses
 * (err gets the OTF library's message).
 */
long vftr_trace_select_processes(OTF_Reader *reader, const struct vftr_proclist *list,
                                 char *err, size_t errlen);

/*
 * The selection options every trace tool takes: --process LIST (repeatable,
 * accumulates) and --time A:B.  A tool embeds one in its arguments, points
 * both option-table entries at it with the callbacks below, and applies it
 * to its reader with vftr_tracesel_apply.  Owns `procs` (release with
 * vftr_tracesel_release); `window` is borrowed from argv.
 */
struct vftr_tracesel {
    struct vftr_proclist procs;
    int have_procs;
    const char *window;
};

#define VFTR_TRACESEL_INIT { VFTR_PROCLIST_INIT, 0, NULL }

/* Option callbacks (lib/util/opts.h) with dest a struct vftr_tracesel:
 * --process adds to the set; --time checks the syntax only (the conversion
 * needs the trace's time base), so that a typo is a usage error even when
 * the trace name is wrong too.  0 or -errno with err set. */
int vftr_tracesel_opt_process(void *dest, const char *arg, char *err, size_t errlen);
int vftr_tracesel_opt_time(void *dest, const char *arg, char *err, size_t errlen);

/*
 * Applies the selection to `reader` (opened on `namestub` through
 * `manager`): the window, converted with the trace's time base, becomes the
 * reader's time interval and is stored in *range ({0, UINT64_MAX} without
 * one; range may be NULL); the processes are enabled.  Returns 0; -EINVAL
 * when the window does not convert (a usage error); another -errno when the
 * trace's time base cannot be read or no selected process is in the trace.
 * err says why in every case.
 */
int vftr_tracesel_apply(const struct vftr_tracesel *sel, const char *namestub,
                        OTF_FileManager *manager, OTF_Reader *reader,
                        struct vftr_timerange *range, char *err, size_t errlen);

void vftr_tracesel_release(struct vftr_tracesel *sel);

/* The OTF library's last message (otf_strerr) as one line in buf (the
 * reference's messages span several); "unknown error" when there is none.
 * Returns buf or that string. */
const char *vftr_trace_otf_reason(char *buf, size_t size);

#endif /* VFTR_UTIL_TRACESEL_H */
