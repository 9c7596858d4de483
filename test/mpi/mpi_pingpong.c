/*
 * mpi_pingpong.c — timing loops for bench/mpi and the clock test:
 *
 *   mpi_pingpong DIR procnull N      N sends to MPI_PROC_NULL per rank
 *   mpi_pingpong DIR pingpong N B    N round trips of B bytes, ranks 0 and 1
 *
 * Rank 0 prints "ns_per_call X" (procnull) or "ns_per_roundtrip X"
 * (pingpong), the best of 5 repetitions, and every rank writes its
 * messages to DIR/expect_<rank>.txt (mpitest.h) when N <= 10000 (tests).
 */
#include <string.h>
#include <time.h>

#include "mpitest.h"

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    static char buf[1 << 20];
    int me, np;
    long n, bytes = 0;
    double best = 1e300;
    int pp;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(argc >= 4, "usage: mpi_pingpong DIR procnull|pingpong N [BYTES]");
    pp = strcmp(argv[2], "pingpong") == 0;
    n = atol(argv[3]);
    if (pp) {
        bytes = argc > 4 ? atol(argv[4]) : 8;
        check(np >= 2 && bytes >= 0 && bytes <= (long)sizeof buf, "pingpong needs 2 ranks");
    }
    expect_open(argv[1]);
    for (int rep = 0; rep < 5; rep++) {
        double t0, t;

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now_ns();
        if (!pp) {
            for (long i = 0; i < n; i++)
                MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        } else if (me < 2) {
            for (long i = 0; i < n; i++) {
                if (me == 0) {
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            if (n <= 10000)
                for (long i = 0; i < n; i++) {
                    expect_msg("send", 1 - me, 1, bytes, 0);
                    expect_msg("recv", 1 - me, 1, bytes, 0);
                }
        }
        t = (now_ns() - t0) / (double)(n > 0 ? n : 1);
        if (t < best)
            best = t;
        if (n <= 10000)
            expect_coll("MPI_Barrier", -1, 0, 0, 0);
    }
    if (me == 0)
        printf("%s %.1f\n", pp ? "ns_per_roundtrip" : "ns_per_call", best);
    expect_close();
    MPI_Finalize();
    return 0;
}
