/*
 * vfdshare.h — the first pass of a .vfd conversion (lib/model/vfdconv.h,
 * struct vftr_vfdconv_share) shared among the processes of MPI_COMM_WORLD:
 * the one implementation every MPI tool of vftr uses (vfd2otf-mpi,
 * vftr-stats-mpi).  Compiled with mpicc, linked only into those tools.
 *
 * File i of the open's list is read by process i % size alone; what the
 * engine must know of every file is exchanged with one MPI_Allgatherv.
 * Each process matches the receives of its files, the sends to them
 * coming from their senders' readers in rounds of MPI_Alltoallv (owner,
 * alltoall), and the counts and exceptions are gathered by all.  So no
 * process opens a file outside its share, and every one ends the open with
 * the same engine state.
 *
 * Every process of MPI_COMM_WORLD must take part in the open (it is
 * collective), from the thread that initialised MPI.
 */
#ifndef VFTR_MPI_VFDSHARE_H
#define VFTR_MPI_VFDSHARE_H

#include "model/vfdconv.h"

struct vftr_mpi_vfdshare {
    int rank, size;             /* in MPI_COMM_WORLD */
};

/* Sets s from MPI_COMM_WORLD (MPI must be initialised) and fills *share
 * with callbacks whose context is s: s must outlive the open. */
void vftr_mpi_vfdshare_init(struct vftr_mpi_vfdshare *s, struct vftr_vfdconv_share *share);

/* Does process s->rank read file `file` of the open (file % size == rank)? */
int vftr_mpi_vfdshare_mine(const struct vftr_mpi_vfdshare *s, size_t file);

#endif /* VFTR_MPI_VFDSHARE_H */
