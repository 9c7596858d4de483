/*
 * snap_otf.h — writes the records of the snapshot engine (snapshot.h)
 * through any OTF 1.12-compatible OTF_Writer: the one place that knows
 * which OTF_Writer_write* call each vftr_snaprec kind becomes.  Used by
 * vftr-snap and by vfd2otf (snapshots in the same pass as a conversion).
 *
 * Returns 0, or -EIO when the writer refuses the record (otf_errno says
 * why).  Threads: as the writer.  Nothing is owned.
 */
#ifndef VFTR_MODEL_SNAP_OTF_H
#define VFTR_MODEL_SNAP_OTF_H

#include "otf.h"

#include "snapshot.h"

int vftr_snap_write_otf(OTF_Writer *w, const struct vftr_snaprec *r);
/* The same to the stream that holds r->process (the caller picks it). */
int vftr_snap_write_wstream(OTF_WStream *ws, const struct vftr_snaprec *r);

/* The definitions that announce the records (to stream 0's definitions):
 * DefTimeRange [first, last] and, per break, a DefAuxSamplePoint of type
 * SUMMARY (flags has VFTR_SNAP_SUMMARIES) and one of type SNAPSHOT
 * (VFTR_SNAP_SNAPSHOTS, breaks up to last only), as otfaux writes them. */
int vftr_snap_write_points(OTF_WStream *def, uint64_t first, uint64_t last,
                           const uint64_t *breaks, size_t n, unsigned flags);

/* A vftr_snap_record_fn that writes to the OTF_Writer given as arg. */
int vftr_snap_otf_sink(void *writer, const struct vftr_snaprec *r);

#endif /* VFTR_MODEL_SNAP_OTF_H */
