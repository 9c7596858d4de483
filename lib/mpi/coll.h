/*
 * coll.h — how vftr's MPI tools wait in MPI and exchange bytes among all
 * processes of MPI_COMM_WORLD (vfdshare.c, vftr-stats-mpi).  Compiled with
 * mpicc, linked only into those tools.
 *
 * The tools run on shared nodes, often more processes than cores (the
 * bench and the tests run two ranks on two cores beside other work).
 * MPI's blocking calls poll: a process that arrives first at a collective
 * spins on the core the late one needs.  So every wait here tests the
 * request and sleeps between tests, a little longer each time, up to a
 * fifth of a millisecond.
 */
#ifndef VFTR_MPI_COLL_H
#define VFTR_MPI_COLL_H

#include <mpi.h>
#include <stddef.h>

/* The pause between two tests of one wait; start each wait with
 * VFTR_MPI_BACKOFF_INIT. */
struct vftr_mpi_backoff {
    long ns;
};
#define VFTR_MPI_BACKOFF_INIT { 10000 }

/* Sleeps b's pause, then doubles it up to the cap. */
void vftr_mpi_pause(struct vftr_mpi_backoff *b);

/* Waits for rq to complete, testing and pausing.  0, or -EIO when MPI
 * reports an error. */
int vftr_mpi_wait(MPI_Request *rq);

/*
 * Every process of MPI_COMM_WORLD sends out[p] (outlen[p] bytes; NULL when
 * 0) to process p and gets in *in what every process sent it, in process
 * order, *inlen bytes (malloc'ed, the caller frees; NULL on error).
 * Collective: every process calls it, also after an error of its own, and
 * all return an error together: -ENOMEM or -EOVERFLOW (beyond MPI's int
 * counts) where it happened, -ECANCELED on the others, -EIO when MPI
 * failed.  The counts go by MPI_Ialltoall, the bytes by MPI_Ialltoallv,
 * both waited for by vftr_mpi_wait.
 */
int vftr_mpi_alltoall_bytes(const void *const *out, const size_t *outlen, void **in,
                            size_t *inlen);

#endif /* VFTR_MPI_COLL_H */
