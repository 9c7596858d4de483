/*
 * mpi_collate.h — MPI_Finalize's collation: every rank sends its profile
 * (vftr_ext_profile rows) and its MPI statistics to rank 0, which writes
 * <outdir>/<base>_all.log:
 *
 *  - per function and caller (a call path as the per-rank logs name it):
 *    calls summed over ranks, the number of ranks that called it, min / avg
 *    / max exclusive seconds over those ranks and the imbalance of
 *    lib/model/profile.h (vftr_imbalance: (max - avg) / max, shown in %);
 *  - per MPI function: calls, messages and bytes the calls completed, time
 *    in the function, bandwidth (bytes / time), each summed over ranks.
 *
 * Collective over comm (every rank calls it; uses PMPI only).  A rank whose
 * capture is off contributes nothing; rank 0 writes nothing when its own
 * capture is off.  Errors are swallowed: collation never fails the
 * program's MPI_Finalize.
 */
#ifndef VFTR_CAPTURE_MPI_COLLATE_H
#define VFTR_CAPTURE_MPI_COLLATE_H

#include <mpi.h>
#include <stdint.h>

void vftr_mpi_collate(MPI_Comm comm, int rank, int size);

/* Statistics of wrapped function fn (VFTR_MPI_FN_*): 0 or -EINVAL. */
int vftr_mpi_stats(int fn, uint64_t *calls, uint64_t *ticks, uint64_t *msgs, uint64_t *bytes);

#endif /* VFTR_CAPTURE_MPI_COLLATE_H */
