/*
 * nohooks DIR [ROUNDS] [segv|kill] — an MPI program built WITHOUT
 * -finstrument-functions (test/mpi/module.mk): capture sees nothing of it
 * but its MPI calls.  It counts each MPI call it makes, per function, and
 * writes "count MPI_X N" lines to DIR/count_<rank>.txt (before the call
 * that may never return, in the crash modes), for mpi_nohooks.sh to compare
 * with the log and the .vfd of each rank.
 *
 * Each of ROUNDS (default 5) rounds: a ring exchange with Isend/Irecv and
 * Waitall, a blocking Send/Recv between pairs of ranks, Bcast, Allreduce,
 * Barrier.  With segv or kill, rank 1 then ends by that signal and the
 * other ranks wait in one more MPI_Barrier until the launcher stops them.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { INIT, ISEND, IRECV, WAITALL, SEND, RECV, BCAST, ALLREDUCE, BARRIER, FINALIZE, NFN };
static const char *const names[NFN] = {
    "MPI_Init", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Send", "MPI_Recv", "MPI_Bcast",
    "MPI_Allreduce", "MPI_Barrier", "MPI_Finalize",
};
static unsigned long calls[NFN];
static char count_path[4096];

/* Writes the counts so far (again, replacing the file). */
static void write_counts(void)
{
    FILE *f = fopen(count_path, "w");

    if (f == NULL) {
        perror(count_path);
        return;
    }
    for (int i = 0; i < NFN; i++)
        if (calls[i])
            fprintf(f, "count %s %lu\n", names[i], calls[i]);
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    const char *mode = argc > 3 ? argv[3] : "";
    int me, np, right, left, x, y, sum;
    MPI_Request rq[2];

    calls[INIT]++;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    snprintf(count_path, sizeof count_path, "%s/count_%d.txt", dir, me);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    for (int r = 0; r < rounds; r++) {
        x = me * 100 + r;
        calls[IRECV]++;
        MPI_Irecv(&y, 1, MPI_INT, left, r, MPI_COMM_WORLD, &rq[0]);
        calls[ISEND]++;
        MPI_Isend(&x, 1, MPI_INT, right, r, MPI_COMM_WORLD, &rq[1]);
        calls[WAITALL]++;
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        if (y != left * 100 + r) {
            fprintf(stderr, "nohooks: rank %d round %d: got %d from %d\n", me, r, y, left);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        /* pairs (0,1), (2,3), ...: the even rank sends, the odd one receives */
        if (me % 2 == 0 && me + 1 < np) {
            calls[SEND]++;
            MPI_Send(&x, 1, MPI_INT, me + 1, 1000 + r, MPI_COMM_WORLD);
        } else if (me % 2 == 1) {
            calls[RECV]++;
            MPI_Recv(&y, 1, MPI_INT, me - 1, 1000 + r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        calls[BCAST]++;
        MPI_Bcast(&x, 1, MPI_INT, r % np, MPI_COMM_WORLD);
        calls[ALLREDUCE]++;
        MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        calls[BARRIER]++;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (strcmp(mode, "segv") == 0 || strcmp(mode, "kill") == 0) {
        if (me == 1) {
            write_counts();
            if (strcmp(mode, "kill") == 0)
                raise(SIGKILL);
            /* a write to a page without access: a real fault */
            void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

            if (page != MAP_FAILED)
                *(volatile int *)page = 1;
            raise(SIGSEGV);
        }
        calls[BARRIER]++;   /* entered, never left: the launcher ends this rank */
        write_counts();
        MPI_Barrier(MPI_COMM_WORLD);
    }
    calls[FINALIZE]++;
    write_counts();
    MPI_Finalize();
    return 0;
}
