/*
 * progress.h — the one progress line of vftr's tools for long work: a bar,
 * the share done, a working count ("1234567 events") and, once a second of
 * work allows a guess, the time left:
 *
 *     vfd2otf: [##########..............]  42% 1234567 events, 12 s left
 *
 * Drawn on stderr only when it is a terminal and the user did not ask for
 * quiet (-q); redrawn at most ten times a second; ended with a newline by
 * vftr_progress_end, so that whatever comes next starts on its own line.
 * A tool that is not on a terminal prints nothing at all.
 *
 * A struct vftr_progress belongs to its caller; one thread draws at a time
 * (tools with worker threads take a lock, or a trylock, around update).
 */
#ifndef VFTR_UTIL_PROGRESS_H
#define VFTR_UTIL_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct vftr_progress {
    const char *prog;      /* the line's prefix, e.g. "vfd2otf" (borrowed) */
    FILE *out;             /* stderr */
    int on;                /* drawing at all */
    int drawn;             /* something is on the line */
    uint64_t total;        /* units of the whole work (bytes, ticks) */
    struct timespec t0, last;
};

/* Starts: `total` units of work; on when !quiet and out is a terminal. */
void vftr_progress_init(struct vftr_progress *p, const char *prog, FILE *out, uint64_t total,
                        int quiet);

/* `done` of the total units, `events` counted so far; draws when on and a
 * tenth of a second has passed since the last drawing (or force). */
void vftr_progress_update(struct vftr_progress *p, uint64_t done, uint64_t events, int force);

/* Draws the final state (when something was drawn) and ends the line. */
void vftr_progress_end(struct vftr_progress *p, uint64_t done, uint64_t events);

/* The text of one line into buf (for tests and for update): the share of
 * `done` in `total`, `events`, and `elapsed` seconds so far (the time left
 * is guessed from them once elapsed >= 1).  Returns the length. */
size_t vftr_progress_format(const char *prog, uint64_t total, uint64_t done, uint64_t events,
                            double elapsed, char *buf, size_t size);

#endif /* VFTR_UTIL_PROGRESS_H */
