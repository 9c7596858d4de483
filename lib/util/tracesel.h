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
 * Processes as users know them: "rank R" (with all its threads), "rank R
 * thread T" (T 0 is the rank's own process), each number also a range
 * "A-B", all from 0 — the names every tool prints (util/fmt.h).  They are
 * resolved against the trace's processes (struct vftr_procid), since only
 * the trace knows which token is rank 3's thread 2.
 */
struct vftr_ranksel {
    uint32_t rank_first, rank_last;       /* inclusive */
    uint32_t thread_first, thread_last;   /* inclusive; 0-UINT32_MAX for "rank R" */
    char text[48];                        /* as given, for messages */
};

/* One process of a trace: its OTF token and its rank and thread from 0. */
struct vftr_procid {
    uint32_t token, rank, thread;
};

/*
 * The selection options every trace tool takes: --process LIST (repeatable,
 * accumulates) and --time A:B.  A tool embeds one in its arguments, points
 * both option-table entries at it with the callbacks below, and applies it
 * to its reader with vftr_tracesel_apply.  Owns `procs` and `ranks`
 * (release with vftr_tracesel_release); `window` is borrowed from argv.
 * LIST mixes OTF process tokens (proclist.h: "1-4,9") and rank names
 * ("rank 3, rank 0 thread 1-2"), separated by commas.  Rank names stay in
 * `ranks` until vftr_tracesel_resolve() turns them into tokens of `procs`;
 * have_procs is set as soon as either is given.
 */
struct vftr_tracesel {
    struct vftr_proclist procs;
    int have_procs;
    const char *window;
    struct vftr_ranksel *ranks;
    size_t nranks;
};

#define VFTR_TRACESEL_INIT { VFTR_PROCLIST_INIT, 0, NULL, NULL, 0 }

/*
 * Adds to sel->procs the tokens of the processes among ids[0..n-1] that the
 * rank names select, and forgets the names.  Returns 0; -ENOENT when a name
 * selects no process (err: "no rank 7 in the trace (ranks 0-3)"); -ENOMEM.
 * Without rank names it does nothing and returns 0.
 */
int vftr_tracesel_resolve(struct vftr_tracesel *sel, const struct vftr_procid *ids, size_t n,
                          char *err, size_t errlen);

/* Whether a rank name of sel (not yet resolved) selects rank/thread: for
 * a reader that meets processes one by one (a single .vfd file). */
int vftr_tracesel_names_match(const struct vftr_tracesel *sel, uint32_t rank, uint32_t thread);

/*
 * Numbers processes as vftr's tools do when a trace does not say: a
 * process without parent (parent 0, or a parent not among them) is a rank,
 * the ranks in token order from 0; every other process is a thread of its
 * outermost ancestor's rank, from 1 in token order.  ids[i].token and
 * parents[i] are given (any order); rank and thread are set.  0 or -ENOMEM.
 */
int vftr_procids_number(struct vftr_procid *ids, const uint32_t *parents, size_t n);

/* Option callbacks (lib/util/opts.h) with dest a struct vftr_tracesel:
 * --process adds tokens to the set and rank names to `ranks`; --time checks the syntax only (the conversion
 * needs the trace's time base), so that a typo is a usage error even when
 * the trace name is wrong too.  0 or -errno with err set. */
int vftr_tracesel_opt_process(void *dest, const char *arg, char *err, size_t errlen);
int vftr_tracesel_opt_time(void *dest, const char *arg, char *err, size_t errlen);

/*
 * Applies the selection to `reader` (opened on `namestub` through
 * `manager`): the window, converted with the trace's time base, becomes the
 * reader's time interval and is stored in *range ({0, UINT64_MAX} without
 * one; range may be NULL); the processes are enabled (rank names
 * resolved from the DefProcess records, vftr_procids_number).  Returns 0; -EINVAL
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
