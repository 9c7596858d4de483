/*
 * sink.h — one way out of the model: a trace written in a format, from any
 * source (source.h).  A sink takes the source's definitions when it is
 * opened, then the events of a read in time order through its handler (the
 * callbacks of window.h, as vftr_source_read delivers them), and writes
 * them out; closing finishes the files.  vftr-convert reads any input and
 * writes any output through one source and one sink; every writer of vftr
 * is a sink: OTF 1.x, OTF2, Perfetto protobuf, Chrome trace-event JSON,
 * folded stacks.
 *
 * Formats are described once, in the table of sink.c (vftr_sink_formats):
 * their names, the file name endings that select them, their help line.
 * A new format is one entry and one file sink_<name>.c.
 *
 * What every sink keeps of the model: processes (ranks and their threads),
 * functions with their groups and source places, communicators, Enter and
 * Leave, messages (send at its start, receive at its completion),
 * collectives, counters, file operations, one-sided (RMA) transfers; each
 * format says what it leaves out (an OTF
 * CollectiveOperation record, which has no begin, has no form in OTF2;
 * folded stacks keep only the calls).  Begin/EndProcess records of OTF are
 * not part of the model.
 *
 * Errors: 0 / -errno with one lower-case line in err naming the output
 * file.  Ownership: the sink owns everything it allocates; the source
 * passed to open is borrowed until close.  Threads: one thread at a time
 * per sink.  A sink that is aborted (vftr_sink_abort) removes what it
 * wrote, so that an interrupted conversion leaves no half-written trace.
 */
#ifndef VFTR_MODEL_SINK_H
#define VFTR_MODEL_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "source.h"
#include "window.h"

struct vftr_sink;

/*
 * An OTF2 archive written by several cooperating processes (vfd2otf-mpi):
 * each writes the events of its processes, all take part in the archive's
 * collective operations, the master writes the global definitions.  The
 * callbacks keep lib/ free of MPI: the caller brings it.
 */
struct vftr_sink_par {
    /* installs the archive's collective callbacks (an OTF2_Archive *;
     * OTF2_MPI_Archive_SetCollectiveCallbacks): 0 or -errno */
    int (*collectives)(void *arg, void *archive);
    /* does this process write the events of process token p? */
    int (*mine)(void *arg, uint32_t process);
    /* adds v[0..n) of every process, in place, in all (MPI_Allreduce):
     * 0 or -errno; also the barrier before the archive is opened */
    int (*sum)(void *arg, uint64_t *v, size_t n);
    /* every process's v[0..n) (n may differ and be 0), one after the
     * other in process order, in all (MPI_Allgatherv): *all (caller owns,
     * free()) and *nall, 0 or -errno.  The RMA windows of the processes
     * meet through it. */
    int (*gather)(void *arg, const uint64_t *v, size_t n, uint64_t **all, size_t *nall);
    int master;                 /* this process writes the global definitions */
    void *arg;
};

struct vftr_sink_opts {
    FILE *warn;                 /* warnings (prefixed by prog); NULL: none */
    const char *prog;
    int compress;               /* formats that can (otf): 0 none, 1..9 zlib level */
    /* folded stacks: per process (0: merged over processes) and the
     * weight (0: exclusive time in ns, 1: calls) */
    int per_process;
    int weight_calls;
    /* Chrome JSON: warn when the output passes this many bytes (0: 200 MiB) */
    uint64_t json_warn_bytes;
    /* OTF2: written by cooperating processes (NULL: by this one alone) */
    const struct vftr_sink_par *par;
};

struct vftr_sink_format {
    const char *name;           /* "otf", "otf2", "perfetto", "json", "folded" */
    const char *const *ends;    /* output name endings that select it, NULL-ended */
    const char *help;           /* one line for --help */
    int (*open)(struct vftr_sink **out, const char *path, struct vftr_source *src,
                const struct vftr_sink_opts *o, char *err, size_t errlen);
};

/* Every format, NULL-terminated (sink.c). */
extern const struct vftr_sink_format *const vftr_sink_formats[];

/* The format called name / selected by the ending of path; NULL when none. */
const struct vftr_sink_format *vftr_sink_format_named(const char *name);
const struct vftr_sink_format *vftr_sink_format_for(const char *path);

/* Opens a sink of format f writing path, with the definitions of src. */
int vftr_sink_open(struct vftr_sink **out, const struct vftr_sink_format *f, const char *path,
                   struct vftr_source *src, const struct vftr_sink_opts *o, char *err,
                   size_t errlen);

/* The handler to feed the events to (borrowed until close or abort). */
const struct vftr_window_handler *vftr_sink_handler(struct vftr_sink *k);

/*
 * Feeds k the events of [a, b) of the processes procs (NULL: all) of src,
 * read once.  The whole trace (a 0, b UINT64_MAX) goes through as it is; a
 * window is made to nest: calls under way at a are entered at a, calls
 * still open at its end are left at b (or, for an open end, at the last
 * event's time).  progress (may be NULL) is called now and then with the
 * time reached and the events fed so far; a non-zero value (-errno) stops
 * the feed with that value.  *events (may be NULL) gets the events fed.
 * Returns 0 or -errno with err.
 */
int vftr_sink_feed(struct vftr_sink *k, struct vftr_source *src, uint64_t a, uint64_t b,
                   const struct vftr_proclist *procs,
                   int (*progress)(void *arg, uint64_t time, uint64_t events), void *arg,
                   uint64_t *events, char *err, size_t errlen);

/* Finishes the output and frees the sink (also on error).  0 or -errno. */
int vftr_sink_close(struct vftr_sink *k, char *err, size_t errlen);

/* Frees the sink and removes what it wrote.  NULL-safe. */
void vftr_sink_abort(struct vftr_sink *k);

#endif /* VFTR_MODEL_SINK_H */
