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
 * Opens the trace `namestub` for reading, like OTF_Reader_open().  Returns
 * the reader (caller owns, close with OTF_Reader_close()), or NULL with
 * errno = EIO and a message "cannot open trace (<reason>)" in err, where the
 * reason is the system's when the master file cannot be read ("No such file
 * or directory") and the OTF library's otherwise.
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

#endif /* VFTR_UTIL_TRACESEL_H */
