/*
 * vfdfeed.h — feeds the calls recorded in capture's .vfd files (lib/vfd)
 * into a call-stack replay (replay.h), the way OTF handlers feed it from an
 * OTF trace: vftr-stats reads a run's .vfd files with it, vfd2otf can reuse
 * the same numbering.  It prints nothing.
 *
 * Numbering, for every file fed to one feed:
 *   - functions: one token per distinct function name over all files
 *     (ranks number their functions independently; the name is what they
 *     share), from 1 in order of first use; vftr_vfdfeed_name() gives the
 *     name back;
 *   - processes: VFTR_VFDFEED_PROCESS(rank, thread), i.e. rank + 1 in the
 *     low 20 bits (as OTF process tokens start at 1) and the thread above;
 *     thread 0 of a rank is the rank's own token.  A file without a rank
 *     (rank -1 in its header) is numbered by the caller's `rank` argument.
 *
 * Time: each rank measures its own clock rate, so the feed puts every file
 * on one clock: nanoseconds of the wall clock,
 *     start_ns + (t - start_ticks) * 10^9 / ticks_per_second
 * with the file header's fields (vftr_vfdfeed_time()); a replay fed from
 * several files therefore has 10^9 ticks per second.
 *
 * Events: ENTER and EXIT of each thread, in file order (a thread's chunks
 * are in time order); the call path id names the function through the
 * file's CALLPATHS definitions.  SAMPLE, PAUSE, RESUME and extended events
 * do not enter the replay (counted in skipped); an id without a definition
 * is counted in unknown and skipped.
 *
 * Functions return 0 or -errno (-ENOMEM; -EBADMSG when the file is corrupt
 * past recovery: vftr_vfd_reader_error() says where).  Ownership: the feed
 * owns its names (borrowed until free); the reader and replay stay the
 * caller's.  Threads: one thread at a time per feed; no globals.
 */
#ifndef VFTR_MODEL_VFDFEED_H
#define VFTR_MODEL_VFDFEED_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"
#include "vfd/vftr_vfd.h"

#define VFTR_VFDFEED_RANK_BITS 20u
#define VFTR_VFDFEED_PROCESS(rank, thread) \
    ((uint32_t)(thread) << VFTR_VFDFEED_RANK_BITS | ((uint32_t)(rank) + 1u))

/* The rank's own process token (thread 0) of any process token. */
static inline uint32_t vftr_vfdfeed_rank_process(uint32_t process)
{
    return process & ((1u << VFTR_VFDFEED_RANK_BITS) - 1u);
}

struct vftr_vfdfeed_counts {
    uint64_t enters, exits;
    uint64_t skipped;        /* events that are not calls */
    uint64_t unknown;        /* call path ids without definition */
};

struct vftr_vfdfeed;

struct vftr_vfdfeed *vftr_vfdfeed_new(void);
void vftr_vfdfeed_free(struct vftr_vfdfeed *f);     /* NULL-safe */

/*
 * Feeds every call of the file open in `r` into `replay`; rank numbers the
 * file when its header has none (and must then be < 2^20 - 1).  Reads the
 * definitions first (vftr_vfd_reader_scan_definitions), then the records
 * from the start.  counts (may be NULL) are added to.
 */
int vftr_vfdfeed_file(struct vftr_vfdfeed *f, struct vftr_vfd_reader *r, int32_t rank,
                      struct vftr_replay *replay, struct vftr_vfdfeed_counts *counts);

/* A file's time stamp t on the common clock (see above). */
uint64_t vftr_vfdfeed_time(const struct vftr_vfd_info *info, uint64_t t);

/* The name of function token id, or NULL when there is none. */
const char *vftr_vfdfeed_name(const struct vftr_vfdfeed *f, uint32_t id);

/* Number of function tokens given out (ids 1..n). */
size_t vftr_vfdfeed_nfunctions(const struct vftr_vfdfeed *f);

#endif /* VFTR_MODEL_VFDFEED_H */
