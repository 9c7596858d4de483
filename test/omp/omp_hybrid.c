/*
 * omp_hybrid — MPI + OpenMP: every rank runs parallel regions whose
 * threads each exchange one message with the peer rank (MPI_THREAD_MULTIPLE:
 * even ranks send, odd ranks receive, tag = thread number), plus a loop
 * and a masked block per region.  Each rank writes what it did to
 * DIR/omp_hybrid.<rank>.out:
 *   count TID KIND N     per OS thread, as test/omp/omp_count.c
 *   sent TID N / received TID N   messages per OS thread
 *   multiple 0|1         whether MPI granted MPI_THREAD_MULTIPLE (if not,
 *                        only the masked thread of a region communicates)
 *
 * Usage (under mpirun, even number of ranks): omp_hybrid DIR [ROUNDS]
 */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MAX_THREADS 64

enum { K_PARALLEL, K_IMPLICIT, K_LOOP, K_MASKED, K_NKINDS };
static const char *const kind_name[K_NKINDS] = { "parallel", "implicit_task", "loop", "masked" };

static struct {
    _Atomic long tid;
    _Atomic long n[K_NKINDS];
    _Atomic long sent, received;
} slots[MAX_THREADS];

static __thread int my_slot = -1;

static int me(void)
{
    if (my_slot < 0) {
        long tid = (long)syscall(SYS_gettid);

        for (int i = 0; i < MAX_THREADS && my_slot < 0; i++) {
            long expect = 0;

            if (atomic_compare_exchange_strong(&slots[i].tid, &expect, tid) || expect == tid)
                my_slot = i;
        }
        if (my_slot < 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return my_slot;
}

static volatile double sink;

static void exchange(int rank, int tag)
{
    int buf[4] = { rank, tag, 0, 0 };

    if (rank % 2 == 0) {
        MPI_Send(buf, 4, MPI_INT, rank + 1, tag, MPI_COMM_WORLD);
        atomic_fetch_add(&slots[me()].sent, 1);
    } else {
        MPI_Recv(buf, 4, MPI_INT, rank - 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        atomic_fetch_add(&slots[me()].received, 1);
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size, rounds;
    char path[4096];
    FILE *f;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size % 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np EVEN omp_hybrid DIR [ROUNDS]\n");
        MPI_Finalize();
        return 2;
    }
    rounds = argc > 2 ? atoi(argv[2]) : 3;
    for (int r = 0; r < rounds; r++) {
        atomic_fetch_add(&slots[me()].n[K_PARALLEL], 1);
#pragma omp parallel
        {
            atomic_fetch_add(&slots[me()].n[K_IMPLICIT], 1);
#pragma omp for
            for (int i = 0; i < 64; i++)
                sink += i;
            atomic_fetch_add(&slots[me()].n[K_LOOP], 1);
            if (provided == MPI_THREAD_MULTIPLE)
                exchange(rank, omp_get_thread_num());
#pragma omp masked
            {
                atomic_fetch_add(&slots[me()].n[K_MASKED], 1);
                if (provided != MPI_THREAD_MULTIPLE)
                    exchange(rank, 0);
            }
        }
    }
    snprintf(path, sizeof path, "%s/omp_hybrid.%d.out", argv[1], rank);
    if ((f = fopen(path, "w")) == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < MAX_THREADS && slots[i].tid; i++) {
        for (int k = 0; k < K_NKINDS; k++)
            if (slots[i].n[k])
                fprintf(f, "count %ld %s %ld\n", (long)slots[i].tid, kind_name[k], (long)slots[i].n[k]);
        if (slots[i].sent)
            fprintf(f, "sent %ld %ld\n", (long)slots[i].tid, (long)slots[i].sent);
        if (slots[i].received)
            fprintf(f, "received %ld %ld\n", (long)slots[i].tid, (long)slots[i].received);
    }
    fprintf(f, "multiple %d\n", provided == MPI_THREAD_MULTIPLE);
    fclose(f);
    MPI_Finalize();
    return 0;
}
