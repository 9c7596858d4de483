/*
 * ctl_mpimsg — an MPI program for ctl_mpi.sh's live message counts: every
 * rank sends `n` messages of 100 bytes around a ring (and receives as many),
 * then creates DIR/sent.<rank> and waits until DIR/go exists, so that the
 * script can query the running job with `vftr-ctl messages`.
 *
 *   ctl_mpimsg DIR N
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, n = argc > 2 ? atoi(argv[2]) : 10;
    char buf[100] = { 0 }, path[4096];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < n; i++)
        MPI_Sendrecv(buf, sizeof buf, MPI_CHAR, (rank + 1) % size, i, buf, sizeof buf, MPI_CHAR,
                     (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    snprintf(path, sizeof path, "%s/sent.%d", argv[1], rank);
    fclose(fopen(path, "w"));
    snprintf(path, sizeof path, "%s/go", argv[1]);
    for (int i = 0; i < 2400 && access(path, F_OK) != 0; i++)
        usleep(50000);
    MPI_Finalize();
    return 0;
}
