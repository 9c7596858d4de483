/*
 * mpi_threads.c — MPI_THREAD_MULTIPLE: THREADS pthreads per rank call MPI
 * at once, each with its own tag and its own duplicate of world: blocking
 * ring messages, a nonblocking exchange with both neighbours, and an
 * allreduce.  Every thread's messages must be recorded, exactly, by the
 * thread that made them.  Usage: mpi_threads DIR (any ranks >= 2).
 */
#include "mpitest.h"

enum { THREADS = 4, ROUNDS = 25 };

static int me, np;
static MPI_Comm comms[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, tag = 100 + t, right = (me + 1) % np, left = (me + np - 1) % np;
    double s[64] = { 0 }, r[64], x[64];
    MPI_Request rq[4];

    for (int k = 0; k < ROUNDS; k++) {
        int n = 1 + (k + t) % 64;

        if (me % 2 == 0) {
            MPI_Send(s, n, MPI_DOUBLE, right, tag, MPI_COMM_WORLD);
            MPI_Recv(r, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, n, MPI_DOUBLE, right, tag, MPI_COMM_WORLD);
        }
        expect_msg("send", right, tag, n * 8L, 0);
        expect_msg("recv", left, tag, n * 8L, 0);

        MPI_Irecv(r, n, MPI_DOUBLE, left, tag + 10, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(x, n, MPI_DOUBLE, right, tag + 20, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(s, n, MPI_DOUBLE, right, tag + 10, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(s, n, MPI_DOUBLE, left, tag + 20, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        expect_msg("recv", left, tag + 10, n * 8L, NB);
        expect_msg("recv", right, tag + 20, n * 8L, NB);
        expect_msg("send", right, tag + 10, n * 8L, NB);
        expect_msg("send", left, tag + 20, n * 8L, NB);

        MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_DOUBLE, MPI_SUM, comms[t]);
        expect_coll("MPI_Allreduce", -1, 0, 16, 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];
    int provided;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(argc == 2 && np >= 2, "usage: mpi_threads DIR, 2 or more ranks");
    check(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE");
    expect_open(argv[1]);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 0; t < THREADS; t++)
        check(pthread_create(&th[t], NULL, worker, (void *)(long)t) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&comms[t]);
    expect_close();
    MPI_Finalize();
    return 0;
}
