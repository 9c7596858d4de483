/*
 * blockcount.c — preloaded (LD_PRELOAD) into vfd2otf-mpi by
 * test/integration/vfd2otf_mpi.sh: counts the collectives the tool calls,
 * blocking and nonblocking, through MPI's profiling interface, and prints
 * at MPI_Finalize, to stderr:
 *   blockcount: rank R: B blocking, N nonblocking collectives
 * A blocking collective polls: a rank that arrives first spins on the core
 * a late one needs; the tool's own collectives must all be lib/mpi/coll.h's
 * nonblocking ones, waited for by testing and sleeping.
 */
#include <mpi.h>
#include <stdio.h>

static unsigned long blocking, nonblocking;

int MPI_Barrier(MPI_Comm c)
{
    blocking++;
    return PMPI_Barrier(c);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    blocking++;
    return PMPI_Bcast(b, n, t, root, c);
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{
    blocking++;
    return PMPI_Reduce(s, r, n, t, o, root, c);
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{
    blocking++;
    return PMPI_Allreduce(s, r, n, t, o, c);
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c)
{
    blocking++;
    return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}

int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn,
                   const int *d, MPI_Datatype rt, MPI_Comm c)
{
    blocking++;
    return PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c);
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c)
{
    blocking++;
    return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}

int MPI_Alltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r,
                  const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
    blocking++;
    return PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c);
}

int MPI_Ibcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *q)
{
    nonblocking++;
    return PMPI_Ibcast(b, n, t, root, c, q);
}

int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c,
                   MPI_Request *q)
{
    nonblocking++;
    return PMPI_Iallreduce(s, r, n, t, o, c, q);
}

int MPI_Iallgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                   MPI_Comm c, MPI_Request *q)
{
    nonblocking++;
    return PMPI_Iallgather(s, sn, st, r, rn, rt, c, q);
}

int MPI_Iallgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn,
                    const int *d, MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{
    nonblocking++;
    return PMPI_Iallgatherv(s, sn, st, r, rn, d, rt, c, q);
}

int MPI_Ialltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c, MPI_Request *q)
{
    nonblocking++;
    return PMPI_Ialltoall(s, sn, st, r, rn, rt, c, q);
}

int MPI_Ialltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r,
                   const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{
    nonblocking++;
    return PMPI_Ialltoallv(s, sn, sd, st, r, rn, rd, rt, c, q);
}

int MPI_Finalize(void)
{
    int rank = -1;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "blockcount: rank %d: %lu blocking, %lu nonblocking collectives\n", rank,
            blocking, nonblocking);
    return PMPI_Finalize();
}
