/*
 * vfdotf.h — writes what lib/model/vfdconv gives as an OTF trace: the
 * global definitions (stream 0), the master file, and event streams 1..M.
 * Shared by vfd2otf, vfd2otf-mpi (which splits the streams over MPI
 * ranks; rank 0 writes definitions and master) and vfdcache.h (the OTF
 * trace vftr-tui and vftr-snap make of .vfd input), so that all of them
 * write one trace for one run.
 *
 * Stream of rank index i (0..R-1, ranks sorted): i * M / R + 1, so that
 * each stream holds consecutive ranks, all threads of a rank with it.
 *
 * Errors: 0 / -errno with "STUB...: what failed" in err.  Threads:
 * vftr_vfdotf_streams() runs `jobs` threads of its own, each with its own OTF
 * file manager; the conversion object is only read.
 */
#ifndef VFTR_MODEL_VFDOTF_H
#define VFTR_MODEL_VFDOTF_H

#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"
#include "model/vfdconv.h"
#include "otf.h"

struct vftr_vfdotf_opts {
    const char *stub;       /* output name stub (without .otf) */
    uint32_t streams;       /* M; 0: one per rank */
    int compress;           /* zlib level 0..9 (0: plain) */
    int long_format;        /* OTF's long (keyword) format */
    int jobs;               /* threads (>= 1) */
    int progress;           /* draw a progress bar on stderr */
    /* Snapshots and summaries written in the same pass (--snapshots,
     * --statistics, -n, -p, -t): flags VFTR_SNAP_* (0: none), where the
     * breaks go, the thumbnail's sample bound (0: otfaux's). */
    unsigned snap_flags;
    struct vftr_snap_breakspec snap_breaks;
    uint64_t thumb_samples;
    int snap_force;         /* --force: no size limit (lib/model/snapshot.h) */
};

/* Streams actually used (M clamped to 1..ranks). */
uint32_t vftr_vfdotf_nstreams(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o);

/* Before anything is written, with snap_flags: are the breaks within what
 * the run can hold, and the estimated output within its limit and the free
 * space beside STUB (vftr_snap_plan_make)?  0, or its -ERANGE, -EINVAL,
 * -EFBIG, -ENOSPC, -ENOMEM with the message in err. */
int vftr_vfdotf_snap_check(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, char *err,
                      size_t errlen);

/* Definitions (stream 0) and master file; with snap_flags also the
 * DefTimeRange and DefAuxSamplePoint records of the breaks (placed from
 * vftr_vfdconv_time_range, with the rules of snapshot.h). */
int vftr_vfdotf_definitions(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, char *err,
                       size_t errlen);

/* Converts streams first, first + step, ... (1-based, up to nstreams) with
 * o->jobs threads; *events receives the events written.  progress_total is
 * the .vfd bytes the bar counts to (0: this call's own share). */
int vftr_vfdotf_streams(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o, uint32_t first,
                   uint32_t step, uint64_t *events, char *err, size_t errlen);

/* With snap_flags: all streams in one pass.  The snapshot engine needs the
 * events of all processes in one time order, so a single replay of every
 * rank feeds both the stream writers (the same records, in the same order
 * per stream, as vftr_vfdotf_streams) and the engine, whose records go to the
 * stream of their process; then STUB.thumb (with VFTR_SNAP_SNAPSHOTS).
 * One thread, plus one for the engine when o->jobs > 1. */
int vftr_vfdotf_snap_pass(const struct vftr_vfdconv *c, const struct vftr_vfdotf_opts *o,
                     uint64_t *events, char *err, size_t errlen);

#endif /* VFTR_MODEL_VFDOTF_H */
