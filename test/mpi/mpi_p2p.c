/*
 * mpi_p2p.c — point-to-point under vftr: a ring of blocking sends of every
 * mode, Sendrecv(_replace), a nonblocking halo exchange completed by every
 * wait and test variant, wildcards (MPI_ANY_SOURCE / MPI_ANY_TAG), probes,
 * persistent requests, MPI_PROC_NULL, and MPI_Pcontrol (messages sent while
 * paused are not recorded).  Writes what it did to DIR/expect_<rank>.txt
 * (mpitest.h).  Usage: mpi_p2p DIR (any number of ranks >= 2).
 */
#include <string.h>

#include "mpitest.h"

static int me, np, paused;

#define RIGHT ((me + 1) % np)
#define LEFT ((me + np - 1) % np)

static double sbuf[4096], rbuf[4096], xbuf[4096];

/* One ring step: even ranks send first; the mode's flags go to both sides
 * (a receiver records only what it knows: flags 0). */
static void ring(int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm), int n, int tag,
                 int flags)
{
    if (me % 2 == 0) {
        send(sbuf, n, MPI_DOUBLE, RIGHT, tag, MPI_COMM_WORLD);
        MPI_Recv(rbuf, n, MPI_DOUBLE, LEFT, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, n, MPI_DOUBLE, LEFT, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        send(sbuf, n, MPI_DOUBLE, RIGHT, tag, MPI_COMM_WORLD);
    }
    if (!paused) {
        expect_msg("send", RIGHT, tag, n * 8L, flags);
        expect_msg("recv", LEFT, tag, n * 8L, 0);
    }
}

/* Halo exchange: receive from both neighbours, send to both (tags say the
 * direction), completed by `how`. */
static void halo(int round, const char *how)
{
    MPI_Request rq[4];
    MPI_Status st[4];
    int n = 16 + round, tl = 1000 + round * 2, tr = tl + 1, idx, flag, out, idxs[4], done = 0;

    MPI_Irecv(rbuf, n, MPI_DOUBLE, LEFT, tr, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(xbuf, n, MPI_DOUBLE, RIGHT, tl, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sbuf, n, MPI_DOUBLE, RIGHT, tr, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(sbuf + n, n, MPI_DOUBLE, LEFT, tl, MPI_COMM_WORLD, &rq[3]);
    if (strcmp(how, "waitall") == 0) {
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    } else if (strcmp(how, "waitany") == 0) {
        for (int k = 0; k < 4; k++)
            MPI_Waitany(4, rq, &idx, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "waitsome") == 0) {
        while (done < 4) {
            MPI_Waitsome(4, rq, &out, idxs, st);
            done += out;
        }
    } else if (strcmp(how, "wait") == 0) {
        for (int k = 3; k >= 0; k--)
            MPI_Wait(&rq[k], &st[k]);
    } else if (strcmp(how, "test") == 0) {
        for (int k = 0; k < 4; k++)
            do
                MPI_Test(&rq[k], &flag, MPI_STATUS_IGNORE);
            while (!flag);
    } else if (strcmp(how, "testall") == 0) {
        do
            MPI_Testall(4, rq, &flag, st);
        while (!flag);
    } else if (strcmp(how, "testany") == 0) {
        while (done < 4) {
            MPI_Testany(4, rq, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED)
                done++;
        }
    } else if (strcmp(how, "testsome") == 0) {
        while (done < 4) {
            MPI_Testsome(4, rq, &out, idxs, MPI_STATUSES_IGNORE);
            done += out;
        }
    }
    for (int k = 0; k < 4; k++)
        check(rq[k] == MPI_REQUEST_NULL, how);
    expect_msg("recv", LEFT, tr, n * 8L, NB);
    expect_msg("recv", RIGHT, tl, n * 8L, NB);
    expect_msg("send", RIGHT, tr, n * 8L, NB);
    expect_msg("send", LEFT, tl, n * 8L, NB);
}

int main(int argc, char **argv)
{
    static const char *const hows[] = { "waitall", "waitany", "waitsome", "wait",
                                        "test", "testall", "testany", "testsome" };
    MPI_Request rq[4];
    MPI_Status st;
    int flag, bsize;
    char *bbuf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(argc == 2 && np >= 2, "usage: mpi_p2p DIR, 2 or more ranks");
    expect_open(argv[1]);
    for (int i = 0; i < 4096; i++)
        sbuf[i] = me * 10000 + i;

    /* blocking modes around the ring */
    ring(MPI_Send, 100, 1, 0);
    ring(MPI_Ssend, 7, 2, SYNC);
    bsize = 64 * 8 + MPI_BSEND_OVERHEAD;
    bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    ring(MPI_Bsend, 64, 3, BUF);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    /* ready mode: the receive is posted before the barrier */
    MPI_Irecv(rbuf, 5, MPI_DOUBLE, LEFT, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);
    MPI_Rsend(sbuf, 5, MPI_DOUBLE, RIGHT, 4, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    expect_msg("send", RIGHT, 4, 40, READY);
    expect_msg("recv", LEFT, 4, 40, NB);

    /* Sendrecv and Sendrecv_replace */
    MPI_Sendrecv(sbuf, 33, MPI_INT, RIGHT, 5, rbuf, 33, MPI_INT, LEFT, 5, MPI_COMM_WORLD, &st);
    expect_msg("send", RIGHT, 5, 33 * 4L, SR);
    expect_msg("recv", LEFT, 5, 33 * 4L, SR);
    MPI_Sendrecv_replace(xbuf, 9, MPI_CHAR, LEFT, 6, RIGHT, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect_msg("send", LEFT, 6, 9, SR);
    expect_msg("recv", RIGHT, 6, 9, SR);

    /* the halo, once per completion call */
    for (int h = 0; h < 8; h++)
        halo(h, hows[h]);

    /* nonblocking sync, buffered and ready sends */
    bsize = 3 * 8 + MPI_BSEND_OVERHEAD;
    bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Irecv(rbuf, 100, MPI_DOUBLE, LEFT, 20, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(rbuf + 100, 100, MPI_DOUBLE, LEFT, 21, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(rbuf + 200, 100, MPI_DOUBLE, LEFT, 22, MPI_COMM_WORLD, &rq[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);
    MPI_Issend(sbuf, 2, MPI_DOUBLE, RIGHT, 20, MPI_COMM_WORLD, &rq[3]);
    MPI_Wait(&rq[3], MPI_STATUS_IGNORE);
    MPI_Ibsend(sbuf, 3, MPI_DOUBLE, RIGHT, 21, MPI_COMM_WORLD, &rq[3]);
    MPI_Wait(&rq[3], MPI_STATUS_IGNORE);
    MPI_Irsend(sbuf, 4, MPI_DOUBLE, RIGHT, 22, MPI_COMM_WORLD, &rq[3]);
    MPI_Wait(&rq[3], MPI_STATUS_IGNORE);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    expect_msg("send", RIGHT, 20, 16, NB | SYNC);
    expect_msg("send", RIGHT, 21, 24, NB | BUF);
    expect_msg("send", RIGHT, 22, 32, NB | READY);
    expect_msg("recv", LEFT, 20, 16, NB);
    expect_msg("recv", LEFT, 21, 24, NB);
    expect_msg("recv", LEFT, 22, 32, NB);

    /* wildcards: rank 0 takes one message of every other rank in any
     * order, by probe + receive, by receive, by a nonblocking receive */
    if (me == 0) {
        for (int k = 1; k < np; k++) {
            int n;

            if (k % 3 == 1) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &n);
                MPI_Recv(rbuf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            } else if (k % 3 == 2) {
                do
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                while (!flag);
                MPI_Recv(rbuf, 4096, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            } else {
                MPI_Irecv(rbuf, 4096, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
                MPI_Wait(&rq[0], &st);
            }
            MPI_Get_count(&st, MPI_INT, &n);
            if (!(n == st.MPI_SOURCE * 3 && st.MPI_TAG == 300 + st.MPI_SOURCE))
                fprintf(stderr, "k %d n %d src %d tag %d\n", k, n, st.MPI_SOURCE, st.MPI_TAG);
            check(n == st.MPI_SOURCE * 3 && st.MPI_TAG == 300 + st.MPI_SOURCE, "wildcard");
            expect_msg("recv", st.MPI_SOURCE, st.MPI_TAG, n * 4L, k % 3 == 0 ? NB : 0);
        }
    } else {
        MPI_Send(sbuf, me * 3, MPI_INT, 0, 300 + me, MPI_COMM_WORLD);
        expect_msg("send", 0, 300 + me, me * 12L, 0);
    }

    /* nobody sends more before rank 0 has taken the wildcard messages */
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);

    /* persistent requests: three rounds of Startall, then Start one by one */
    MPI_Send_init(sbuf, 50, MPI_DOUBLE, RIGHT, 40, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(rbuf, 50, MPI_DOUBLE, LEFT, 40, MPI_COMM_WORLD, &rq[1]);
    for (int it = 0; it < 3; it++) {
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        check(rq[0] != MPI_REQUEST_NULL, "persistent request stays");
        expect_msg("send", RIGHT, 40, 400, PERS);
        expect_msg("recv", LEFT, 40, 400, PERS);
    }
    MPI_Start(&rq[1]);
    MPI_Start(&rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    expect_msg("send", RIGHT, 40, 400, PERS);
    expect_msg("recv", LEFT, 40, 400, PERS);
    /* an inactive persistent request completes at once, with nothing */
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    MPI_Ssend_init(sbuf, 1, MPI_INT, RIGHT, 41, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(rbuf, 1, MPI_INT, LEFT, 41, MPI_COMM_WORLD, &rq[1]);
    MPI_Startall(2, rq);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    expect_msg("send", RIGHT, 41, 4, PERS | SYNC);
    expect_msg("recv", LEFT, 41, 4, PERS);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    bsize = 8 + MPI_BSEND_OVERHEAD;
    bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Bsend_init(sbuf, 2, MPI_INT, RIGHT, 42, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(rbuf, 2, MPI_INT, LEFT, 42, MPI_COMM_WORLD, &rq[1]);
    MPI_Startall(2, rq);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    expect_msg("send", RIGHT, 42, 8, PERS | BUF);
    expect_msg("recv", LEFT, 42, 8, PERS);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    MPI_Rsend_init(sbuf, 3, MPI_INT, RIGHT, 43, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(rbuf, 3, MPI_INT, LEFT, 43, MPI_COMM_WORLD, &rq[1]);
    MPI_Start(&rq[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);
    MPI_Start(&rq[0]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    expect_msg("send", RIGHT, 43, 12, PERS | READY);
    expect_msg("recv", LEFT, 43, 12, PERS);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);

    /* MPI_PROC_NULL: no message */
    MPI_Send(sbuf, 10, MPI_DOUBLE, MPI_PROC_NULL, 50, MPI_COMM_WORLD);
    MPI_Recv(rbuf, 10, MPI_DOUBLE, MPI_PROC_NULL, 50, MPI_COMM_WORLD, &st);
    MPI_Isend(sbuf, 10, MPI_DOUBLE, MPI_PROC_NULL, 50, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* paused: nothing of this ring is recorded, on either side */
    MPI_Pcontrol(0);
    paused = 1;
    ring(MPI_Send, 11, 99, 0);
    paused = 0;
    MPI_Pcontrol(1);
    MPI_Pcontrol(2);
    expect_close();
    MPI_Finalize();
    return 0;
}
