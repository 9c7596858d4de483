/*
 * mpi_coll.c — every collective, blocking and nonblocking, with
 * MPI_IN_PLACE where it applies, on MPI_COMM_WORLD and on communicators
 * made by split, dup, create, create_group and split_type; messages with
 * MPI_ANY_SOURCE inside a split communicator.  Each rank writes the bytes
 * it sent and received per collective as mpi_rt.h defines them, computed
 * from its own arguments, the root as a world rank (from the way it built
 * the communicator, not from MPI), to DIR/expect_<rank>.txt, and the world
 * ranks of every communicator it belongs to to DIR/comms_<rank>.txt.
 * Usage: mpi_coll DIR (any number of ranks >= 2).
 */
#include <string.h>

#include "mpitest.h"

static int me, np;
static FILE *comms_file;

/* world rank of rank i of the communicator being tested */
static int wr[256];

static double dbuf[8192], ebuf[8192];
static int ibuf[8192], jbuf[8192];

static long sum_counts(const int *c, int n)
{
    long s = 0;

    for (int i = 0; i < n; i++)
        s += c[i];
    return s;
}

/* Runs every collective on comm (blocking, then nonblocking: nb = 1). */
static void collectives(MPI_Comm comm, int nb)
{
    int cs, cr, root, isroot, counts[256], displs[256], rcounts[256], rdispls[256];
    MPI_Datatype types[256];
    MPI_Request rq;
    int f = nb ? NB : 0;

    MPI_Comm_size(comm, &cs);
    MPI_Comm_rank(comm, &cr);
    root = cs - 1;
    isroot = cr == root;
#define DONE() do { if (nb) MPI_Wait(&rq, MPI_STATUS_IGNORE); } while (0)

    if (nb) MPI_Ibarrier(comm, &rq); else MPI_Barrier(comm);
    DONE();
    expect_coll("MPI_Barrier", -1, 0, 0, f);

    if (nb) MPI_Ibcast(dbuf, 10, MPI_DOUBLE, root, comm, &rq);
    else MPI_Bcast(dbuf, 10, MPI_DOUBLE, root, comm);
    DONE();
    expect_coll("MPI_Bcast", wr[root], isroot ? 80 : 0, isroot ? 0 : 80, f);

    if (nb) MPI_Ireduce(ibuf, jbuf, 5, MPI_INT, MPI_SUM, root, comm, &rq);
    else MPI_Reduce(ibuf, jbuf, 5, MPI_INT, MPI_SUM, root, comm);
    DONE();
    expect_coll("MPI_Reduce", wr[root], 20, isroot ? 20 : 0, f);
    /* in place at the root */
    if (nb) MPI_Ireduce(isroot ? MPI_IN_PLACE : ibuf, jbuf, 5, MPI_INT, MPI_SUM, root, comm, &rq);
    else MPI_Reduce(isroot ? MPI_IN_PLACE : ibuf, jbuf, 5, MPI_INT, MPI_SUM, root, comm);
    DONE();
    expect_coll("MPI_Reduce", wr[root], isroot ? 0 : 20, isroot ? 20 : 0, f);

    if (nb) MPI_Iallreduce(dbuf, ebuf, 3, MPI_DOUBLE, MPI_MAX, comm, &rq);
    else MPI_Allreduce(dbuf, ebuf, 3, MPI_DOUBLE, MPI_MAX, comm);
    DONE();
    expect_coll("MPI_Allreduce", -1, 24, 24, f);
    if (nb) MPI_Iallreduce(MPI_IN_PLACE, ebuf, 3, MPI_DOUBLE, MPI_MAX, comm, &rq);
    else MPI_Allreduce(MPI_IN_PLACE, ebuf, 3, MPI_DOUBLE, MPI_MAX, comm);
    DONE();
    expect_coll("MPI_Allreduce", -1, 0, 24, f);

    if (nb) MPI_Igather(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, root, comm, &rq);
    else MPI_Gather(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, root, comm);
    DONE();
    expect_coll("MPI_Gather", wr[root], 8, isroot ? cs * 8L : 0, f);

    for (int i = 0; i < cs; i++) {
        counts[i] = i + 1;
        displs[i] = i * cs;
    }
    if (nb) MPI_Igatherv(ibuf, cr + 1, MPI_INT, jbuf, counts, displs, MPI_INT, root, comm, &rq);
    else MPI_Gatherv(ibuf, cr + 1, MPI_INT, jbuf, counts, displs, MPI_INT, root, comm);
    DONE();
    expect_coll("MPI_Gatherv", wr[root], (cr + 1) * 4L, isroot ? sum_counts(counts, cs) * 4 : 0, f);

    if (nb) MPI_Iscatter(dbuf, 3, MPI_DOUBLE, ebuf, 3, MPI_DOUBLE, root, comm, &rq);
    else MPI_Scatter(dbuf, 3, MPI_DOUBLE, ebuf, 3, MPI_DOUBLE, root, comm);
    DONE();
    expect_coll("MPI_Scatter", wr[root], isroot ? cs * 24L : 0, 24, f);

    if (nb) MPI_Iscatterv(ibuf, counts, displs, MPI_INT, jbuf, cr + 1, MPI_INT, root, comm, &rq);
    else MPI_Scatterv(ibuf, counts, displs, MPI_INT, jbuf, cr + 1, MPI_INT, root, comm);
    DONE();
    expect_coll("MPI_Scatterv", wr[root], isroot ? sum_counts(counts, cs) * 4 : 0, (cr + 1) * 4L, f);

    if (nb) MPI_Iallgather(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, comm, &rq);
    else MPI_Allgather(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, comm);
    DONE();
    expect_coll("MPI_Allgather", -1, 8, cs * 8L, f);

    if (nb) MPI_Iallgatherv(ibuf, cr + 1, MPI_INT, jbuf, counts, displs, MPI_INT, comm, &rq);
    else MPI_Allgatherv(ibuf, cr + 1, MPI_INT, jbuf, counts, displs, MPI_INT, comm);
    DONE();
    expect_coll("MPI_Allgatherv", -1, (cr + 1) * 4L, sum_counts(counts, cs) * 4, f);

    if (nb) MPI_Ialltoall(dbuf, 1, MPI_DOUBLE, ebuf, 1, MPI_DOUBLE, comm, &rq);
    else MPI_Alltoall(dbuf, 1, MPI_DOUBLE, ebuf, 1, MPI_DOUBLE, comm);
    DONE();
    expect_coll("MPI_Alltoall", -1, cs * 8L, cs * 8L, f);

    /* every rank sends 1 + j % 2 ints to rank j, so it receives 1 + cr % 2
     * from each */
    for (int i = 0; i < cs; i++) {
        counts[i] = 1 + i % 2;
        displs[i] = 2 * i;
        rcounts[i] = 1 + cr % 2;
        rdispls[i] = 2 * i;
        types[i] = MPI_INT;
    }
    if (nb) MPI_Ialltoallv(ibuf, counts, displs, MPI_INT, jbuf, rcounts, rdispls, MPI_INT, comm, &rq);
    else MPI_Alltoallv(ibuf, counts, displs, MPI_INT, jbuf, rcounts, rdispls, MPI_INT, comm);
    DONE();
    expect_coll("MPI_Alltoallv", -1, sum_counts(counts, cs) * 4, sum_counts(rcounts, cs) * 4, f);

    for (int i = 0; i < cs; i++) {
        counts[i] = 1;
        displs[i] = 4 * i;   /* bytes for alltoallw */
    }
    if (nb) MPI_Ialltoallw(ibuf, counts, displs, types, jbuf, counts, displs, types, comm, &rq);
    else MPI_Alltoallw(ibuf, counts, displs, types, jbuf, counts, displs, types, comm);
    DONE();
    expect_coll("MPI_Alltoallw", -1, cs * 4L, cs * 4L, f);

    for (int i = 0; i < cs; i++)
        counts[i] = i + 1;
    if (nb) MPI_Ireduce_scatter(ibuf, jbuf, counts, MPI_INT, MPI_SUM, comm, &rq);
    else MPI_Reduce_scatter(ibuf, jbuf, counts, MPI_INT, MPI_SUM, comm);
    DONE();
    expect_coll("MPI_Reduce_scatter", -1, sum_counts(counts, cs) * 4, (cr + 1) * 4L, f);

    if (nb) MPI_Ireduce_scatter_block(dbuf, ebuf, 2, MPI_DOUBLE, MPI_SUM, comm, &rq);
    else MPI_Reduce_scatter_block(dbuf, ebuf, 2, MPI_DOUBLE, MPI_SUM, comm);
    DONE();
    expect_coll("MPI_Reduce_scatter_block", -1, cs * 16L, 16, f);

    if (nb) MPI_Iscan(ibuf, jbuf, 4, MPI_INT, MPI_SUM, comm, &rq);
    else MPI_Scan(ibuf, jbuf, 4, MPI_INT, MPI_SUM, comm);
    DONE();
    expect_coll("MPI_Scan", -1, 16, 16, f);

    if (nb) MPI_Iexscan(ibuf, jbuf, 4, MPI_INT, MPI_SUM, comm, &rq);
    else MPI_Exscan(ibuf, jbuf, 4, MPI_INT, MPI_SUM, comm);
    DONE();
    expect_coll("MPI_Exscan", -1, 16, 16, f);
#undef DONE
}

/* Both rounds on comm, whose rank i is world rank map(i). */
static void on(MPI_Comm comm, int (*map)(int))
{
    int cs;

    MPI_Comm_size(comm, &cs);
    fprintf(comms_file, "comm");
    for (int i = 0; i < cs; i++) {
        wr[i] = map(i);
        fprintf(comms_file, "%s%d", i ? "," : " ", wr[i]);
    }
    fprintf(comms_file, "\n");
    collectives(comm, 0);
    collectives(comm, 1);
}

static int map_world(int i) { return i; }
static int map_split(int i) { return 2 * i + me % 2; }   /* color me % 2, key me */
static int map_even(int i) { return 2 * i; }

int main(int argc, char **argv)
{
    MPI_Comm split, dup, created, grouped, shared;
    MPI_Group world_group, evens, odds;
    int ranks[128], n = 0, cs, cr, x = 0;
    MPI_Request rq;
    MPI_Status st;
    char path[4096];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(argc == 2 && np >= 2 && np <= 256, "usage: mpi_coll DIR, 2..256 ranks");
    expect_open(argv[1]);
    snprintf(path, sizeof path, "%s/comms_%d.txt", argv[1], me);
    comms_file = fopen(path, "w");
    check(comms_file != NULL, "comms file");
    for (int i = 0; i < 8192; i++)
        ibuf[i] = i, dbuf[i] = i;

    /* world itself is in every .vfd as MPI_COMM_WORLD; not listed here */
    for (int i = 0; i < np; i++)
        wr[i] = i;
    collectives(MPI_COMM_WORLD, 0);
    collectives(MPI_COMM_WORLD, 1);

    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &split);
    on(split, map_split);
    /* a ring inside the split communicator, received from anyone */
    MPI_Comm_size(split, &cs);
    MPI_Comm_rank(split, &cr);
    MPI_Isend(&me, 1, MPI_INT, (cr + 1) % cs, 7, split, &rq);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, split, &st);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check(x == map_split((cr + cs - 1) % cs), "split ring");
    expect_msg("send", map_split((cr + 1) % cs), 7, 4, NB);
    expect_msg("recv", x, 7, 4, 0);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    on(dup, map_world);

    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int i = 0; i < np; i += 2)
        ranks[n++] = i;
    MPI_Group_incl(world_group, n, ranks, &evens);
    MPI_Group_excl(world_group, n, ranks, &odds);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &created);
    check((me % 2 == 0) == (created != MPI_COMM_NULL), "create");
    if (created != MPI_COMM_NULL)
        on(created, map_even);
    if (me % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &grouped);
        on(grouped, map_even);
        MPI_Comm_free(&grouped);
    }
    /* one node: the shared-memory split holds every rank, in world order */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared);
    on(shared, map_world);

    MPI_Comm_free(&shared);
    if (created != MPI_COMM_NULL)
        MPI_Comm_free(&created);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    MPI_Group_free(&odds);
    MPI_Group_free(&evens);
    MPI_Group_free(&world_group);
    fclose(comms_file);
    expect_close();
    MPI_Finalize();
    return 0;
}
