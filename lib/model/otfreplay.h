/*
 * otfreplay.h — the call-stack replay (replay.h) of an OTF trace's Enter
 * and Leave events, read by several threads at once.
 *
 * The trace's streams are divided among the threads (largest event files
 * first, each to the thread with the fewest bytes so far); every thread
 * opens its own file manager and OTF_Reader, enables the processes of its
 * streams only (so the reader opens no other stream), and feeds its own
 * replay.  At the end the replays are merged (vftr_replay_merge).  A process
 * lives in exactly one stream (the master control's process -> stream
 * relation) and a replay keeps processes apart, so the result is the same
 * for every number of threads, up to the order of rows and path ids (sort
 * before printing).  When the master control lists a process under several
 * streams, one thread reads everything.
 *
 * Memory: per thread the reader's buffers and a replay, independent of the
 * trace's length.
 *
 * Errors: 0 or -errno, err (may be NULL) gets one lower-case line without
 * the trace name: -EIO "cannot read the trace (<OTF library's reason>)",
 * -ENOMEM, -EINVAL (bad options), or the first -errno a replay returned (in
 * stream order of the failing threads).
 *
 * Threads: vftr_otfreplay_run() starts and joins its threads itself; the
 * callbacks in the options are called from all of them at once and must
 * only read shared data.  No globals.
 */
#ifndef VFTR_MODEL_OTFREPLAY_H
#define VFTR_MODEL_OTFREPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

struct vftr_otfreplay_opts {
    const char *namestub;         /* "foo" for foo.otf */
    unsigned jobs;                /* threads; 0: the online CPUs; at most the streams */
    uint64_t start, end;          /* the window [start, end): 0, UINT64_MAX for all */
    unsigned replay_flags;        /* vftr_replay_set_flags() */
    /* Which processes to replay (NULL: all).  Called once per process of
     * the master control, from the calling thread. */
    int (*wanted)(void *arg, uint32_t process);
    /* The token the replay sees for a function (NULL: the function itself),
     * e.g. its group.  Called from every thread. */
    uint32_t (*token)(void *arg, uint32_t function);
    void *arg;
    /* A progress line (util/progress.h, borrowed; NULL: none): its total is
     * set to the bytes of the event files read, and it is advanced by the
     * bytes the readers deliver and the Enter and Leave events replayed,
     * drawn by whichever thread gets to it; the caller ends it. */
    struct vftr_progress *line;
};

struct vftr_otfreplay_stats {
    unsigned jobs;                /* threads used */
    uint32_t streams;             /* streams read */
    uint64_t bytes_read;          /* summed over the threads' file managers */
};

/*
 * Replays the events of the trace as set out above.  On success *out gets
 * the finished replay (caller owns, free with vftr_replay_free) and stats
 * (may be NULL) what it cost.  Returns 0 or -errno (see above; *out NULL).
 */
int vftr_otfreplay_run(const struct vftr_otfreplay_opts *o, struct vftr_replay **out,
                       struct vftr_otfreplay_stats *stats, char *err, size_t errlen);

/* The default number of threads: online CPUs (at least 1). */
unsigned vftr_otfreplay_default_jobs(void);

#endif /* VFTR_MODEL_OTFREPLAY_H */
