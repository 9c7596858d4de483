/*
 * mpi_pcoll.c — the persistent collectives of Open MPI's "pcollreq"
 * extension (MPIX_*_init, mpi-ext.h; test/integration/mpi_pcoll.sh): each
 * of the 17 made once on MPI_COMM_WORLD and on a split communicator,
 * started and completed twice (MPI_Start + MPI_Wait, then MPI_Startall of
 * two + MPI_Waitall), freed; one request freed without a start, one waited
 * on before its start (an inactive request: nothing happens).  Each rank
 * writes what each started collective moved (bytes as mpi_rt.h defines
 * them, from its own arguments; flags PERS) to DIR/expect_<rank>.txt.
 * Usage: mpi_pcoll DIR (2..256 ranks).  Without the extension the program
 * says so and exits 77.
 */
#include "mpitest.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if !defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) || !OMPI_HAVE_MPI_EXT_PCOLLREQ
int main(void)
{
    fprintf(stderr, "mpi_pcoll: the MPI library has no MPIX_*_init\n");
    return 77;
}
#else

static int me, np;
static int wr[256];             /* world rank of rank i of the communicator */
static double dbuf[4096], ebuf[4096];
static int ibuf[4096], jbuf[4096];

static long sum_counts(const int *c, int n)
{
    long s = 0;

    for (int i = 0; i < n; i++)
        s += c[i];
    return s;
}

/* Request rq of a collective named name moving sent / received bytes at
 * this rank: started and completed twice (the second time together with
 * a barrier's request, through Startall / Waitall), then freed. */
static void twice(MPI_Request *rq, MPI_Request *bar, const char *name, int root, long sent,
                  long received)
{
    MPI_Request two[2] = { *rq, *bar };

    check(MPI_Start(rq) == MPI_SUCCESS, "start");
    check(MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
    expect_coll(name, root, sent, received, PERS);
    check(MPI_Startall(2, two) == MPI_SUCCESS, "startall");
    check(MPI_Waitall(2, two, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
    expect_coll(name, root, sent, received, PERS);
    expect_coll("MPI_Barrier", -1, 0, 0, PERS);
    check(MPI_Request_free(rq) == MPI_SUCCESS, "request_free");
}

static void pcoll(MPI_Comm comm)
{
    int cs, cr, root, isroot, counts[256], displs[256];
    MPI_Datatype types[256];
    MPI_Request rq, bar;

    MPI_Comm_size(comm, &cs);
    MPI_Comm_rank(comm, &cr);
    root = cs - 1;
    isroot = cr == root;
    for (int i = 0; i < cs; i++) {
        counts[i] = i + 1;
        displs[i] = i * 300;
        types[i] = MPI_INT;
    }
    MPIX_Barrier_init(comm, MPI_INFO_NULL, &bar);
    /* waited on before its start: inactive, completes empty */
    check(MPI_Wait(&bar, MPI_STATUS_IGNORE) == MPI_SUCCESS, "inactive wait");

    MPIX_Barrier_init(comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Barrier", -1, 0, 0);
    MPIX_Bcast_init(dbuf, 10, MPI_DOUBLE, root, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Bcast", wr[root], isroot ? 80 : 0, isroot ? 0 : 80);
    MPIX_Reduce_init(ibuf, jbuf, 5, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Reduce", wr[root], 20, isroot ? 20 : 0);
    MPIX_Allreduce_init(MPI_IN_PLACE, ebuf, 3, MPI_DOUBLE, MPI_MAX, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Allreduce", -1, 0, 24);
    MPIX_Gather_init(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, root, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Gather", wr[root], 8, isroot ? cs * 8L : 0);
    MPIX_Gatherv_init(ibuf, cr + 1, MPI_INT, jbuf, counts, displs, MPI_INT, root, comm,
                      MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Gatherv", wr[root], (cr + 1) * 4L,
          isroot ? sum_counts(counts, cs) * 4 : 0);
    MPIX_Scatter_init(dbuf, 3, MPI_DOUBLE, ebuf, 3, MPI_DOUBLE, root, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Scatter", wr[root], isroot ? cs * 24L : 0, 24);
    MPIX_Scatterv_init(ibuf, counts, displs, MPI_INT, jbuf, cr + 1, MPI_INT, root, comm,
                       MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Scatterv", wr[root], isroot ? sum_counts(counts, cs) * 4 : 0,
          (cr + 1) * 4L);
    MPIX_Allgather_init(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Allgather", -1, 8, cs * 8L);
    MPIX_Allgatherv_init(ibuf, cr + 1, MPI_INT, jbuf, counts, displs, MPI_INT, comm,
                         MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Allgatherv", -1, (cr + 1) * 4L, sum_counts(counts, cs) * 4);
    MPIX_Alltoall_init(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Alltoall", -1, cs * 8L, cs * 8L);
    {
        int mine[256];          /* cr + 1 to everybody; j + 1 from rank j */

        for (int i = 0; i < cs; i++)
            mine[i] = cr + 1;
        MPIX_Alltoallv_init(ibuf, mine, displs, MPI_INT, jbuf, counts, displs, MPI_INT, comm,
                            MPI_INFO_NULL, &rq);
        twice(&rq, &bar, "MPI_Alltoallv", -1, cs * (cr + 1) * 4L, sum_counts(counts, cs) * 4);
    }
    {
        int ones[256], bdispls[256];

        for (int i = 0; i < cs; i++)
            ones[i] = 1, bdispls[i] = i * 4;
        MPIX_Alltoallw_init(ibuf, ones, bdispls, types, jbuf, ones, bdispls, types, comm,
                            MPI_INFO_NULL, &rq);
        twice(&rq, &bar, "MPI_Alltoallw", -1, cs * 4L, cs * 4L);
    }
    MPIX_Reduce_scatter_init(ibuf, jbuf, counts, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Reduce_scatter", -1, sum_counts(counts, cs) * 4, (cr + 1) * 4L);
    MPIX_Reduce_scatter_block_init(ibuf, jbuf, 4, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Reduce_scatter_block", -1, cs * 16L, 16);
    MPIX_Scan_init(ibuf, jbuf, 4, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Scan", -1, 16, 16);
    MPIX_Exscan_init(ibuf, jbuf, 4, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq);
    twice(&rq, &bar, "MPI_Exscan", -1, 16, 16);
    /* made and freed without a start: nothing */
    MPIX_Allreduce_init(ibuf, jbuf, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq);
    MPI_Request_free(&rq);
    MPI_Request_free(&bar);
}

int main(int argc, char **argv)
{
    MPI_Comm split;
    int cs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(argc == 2 && np >= 2 && np <= 256, "usage: mpi_pcoll DIR, 2..256 ranks");
    expect_open(argv[1]);
    (void)expect_msg;   /* mpitest.h: no point-to-point message here */
    for (int i = 0; i < 4096; i++)
        ibuf[i] = i, dbuf[i] = i;
    for (int i = 0; i < np; i++)
        wr[i] = i;
    pcoll(MPI_COMM_WORLD);
    /* color me % 2, key me: rank i is world rank 2i + me % 2 */
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &split);
    MPI_Comm_size(split, &cs);
    for (int i = 0; i < cs; i++)
        wr[i] = 2 * i + me % 2;
    pcoll(split);
    MPI_Comm_free(&split);
    expect_close();
    MPI_Finalize();
    return 0;
}
#endif
