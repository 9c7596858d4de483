/*
 * coll.h — how vftr's MPI tools wait in MPI and the collectives they use
 * among all processes of MPI_COMM_WORLD (vfdshare.c, vftr-stats-mpi,
 * vfd2otf-mpi): a tool calls these, never MPI's blocking collectives.
 * Compiled with mpicc, linked only into those tools.
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
 * The collectives below are collective over MPI_COMM_WORLD: every process
 * calls them, in the same order, from the thread that initialised MPI.
 * Each is the nonblocking MPI call waited for by vftr_mpi_wait.
 */

/* MPI_Allreduce in place: buf holds count values of type, and afterwards
 * op over every process's.  0, or -EIO when MPI fails. */
int vftr_mpi_allreduce(void *buf, int count, MPI_Datatype type, MPI_Op op);

/* MPI_Bcast: buf (count values of type) of process root, to all.  0, or
 * -EIO when MPI fails. */
int vftr_mpi_bcast(void *buf, int count, MPI_Datatype type, int root);

/* Does any process say bad?  1 when bad is non-zero on some process (or
 * MPI failed: then no process can trust the others' answer), else 0.  The
 * vote with which the processes give up together, so that none is left
 * waiting in a collective the others have left. */
int vftr_mpi_any(int bad);

/*
 * Every process's len bytes at buf, in process order, in *all (*alllen
 * bytes; malloc'ed, the caller frees; NULL on error).  All return an error
 * together: -EOVERFLOW (beyond MPI's int counts) everywhere, -ENOMEM where
 * the memory ran out and -ECANCELED on the others, -EIO when MPI failed.
 * The lengths go by MPI_Iallgather, the bytes by MPI_Iallgatherv.
 */
int vftr_mpi_allgather_bytes(const void *buf, size_t len, void **all, size_t *alllen);

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
