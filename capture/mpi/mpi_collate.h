/*
 * mpi_collate.h — MPI_Finalize's collation: every rank sends its profile
 * (vftr_ext_profile rows, as call paths named from the root) and its MPI
 * statistics per call path to rank 0, which has capture merge and write
 * them as <outdir>/<base>_all.log (capture/collate.h, capture/logfile.h):
 * the profile over ranks (calls and times summed, the imbalance of
 * lib/model/profile.h and the rank of the max), the min/max summary, the
 * MPI table summed over ranks, as the configuration asks.
 *
 * Collective over comm (every rank calls it; uses PMPI only).  A rank whose
 * capture is off contributes nothing; rank 0 writes nothing when its own
 * capture is off.  Collation never fails the program's MPI_Finalize: an
 * error leaves one line on stderr at most.
 */
#ifndef VFTR_CAPTURE_MPI_COLLATE_H
#define VFTR_CAPTURE_MPI_COLLATE_H

#include <mpi.h>
#include <stdint.h>

void vftr_mpi_collate(MPI_Comm comm, int rank, int size);

/* Statistics of wrapped function fn (VFTR_MPI_FN_*) so far, for live
 * queries: bytes are sent and received together.  0 or -EINVAL. */
int vftr_mpi_stats(int fn, uint64_t *calls, uint64_t *ticks, uint64_t *msgs, uint64_t *bytes);

#endif /* VFTR_CAPTURE_MPI_COLLATE_H */
