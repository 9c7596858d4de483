/*
 * mpi_rma_threads.c — one-sided transfers completed by another thread than
 * the one that issued them (test/integration/mpi_rma_threads.sh).  Usage:
 * mpi_rma_threads DIR, on 2 ranks, MPI_THREAD_MULTIPLE.
 *
 * MPI completes at a synchronisation every transfer of the calling process
 * on the window (to the target, for the per-target calls), whatever thread
 * issued it.  Rank 0 has a main thread M and workers; one issues, the other
 * completes, DELAY_MS after the transfer (pthread barriers order the two):
 *   - a worker that has already ended put and got; M's MPI_Win_fence;
 *   - under M's MPI_Win_lock of rank 1, a worker's put ended by M's
 *     MPI_Win_flush, its get by M's MPI_Win_unlock;
 *   - under M's MPI_Win_lock_all, M's put ended by the worker's
 *     MPI_Win_flush_all, M's MPI_Rput by the worker's MPI_Wait of its
 *     request; two more MPI_Rputs to rank 1, the worker completing the
 *     later one first (MPI_Wait), then the earlier (MPI_Test until it
 *     completes): each completion ends its own request's transfer, not
 *     the oldest; M's put to itself (rank 0) left alone by the worker's
 *     MPI_Win_flush_local of rank 1, which ends M's get from rank 1, and
 *     then ended by M's MPI_Win_unlock_all.
 * It writes DIR/ends_0.txt, one line per transfer in the order issued:
 *   SYNC KIND BYTES
 * the MPI function that completes it, put or get, and the bytes; and
 * DIR/calls_0.txt, per MPI function it called: NAME CALLS SENT RECEIVED.
 */
#include <string.h>
#include <time.h>

#include "mpitest.h"

#define DELAY_MS 30

static FILE *ends;
static MPI_Win win;
static pthread_barrier_t bar;
static MPI_Request rq, rqa, rqb;
static int buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, got[8];

/* the program's own count of its MPI calls (name, calls, bytes each way) */
static struct {
    const char *name;
    long calls, sent, recvd;
} calls[16];
static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;

static void called(const char *name, long sent, long recvd)
{
    int i;

    pthread_mutex_lock(&calls_lock);
    for (i = 0; calls[i].name && strcmp(calls[i].name, name) != 0; i++)
        ;
    calls[i].name = name;
    calls[i].calls++;
    calls[i].sent += sent;
    calls[i].recvd += recvd;
    pthread_mutex_unlock(&calls_lock);
}

static void pause_ms(void)
{
    struct timespec ts = { 0, DELAY_MS * 1000000L };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* the transfer just issued completes in the call named sync */
static void expect_end(const char *sync, const char *kind, long bytes)
{
    fprintf(ends, "%s %s %ld\n", sync, kind, bytes);
}

/* phase 1: a worker that puts and gets and ends before M's fence */
static void *fence_worker(void *arg)
{
    (void)arg;
    MPI_Put(buf, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
    called("MPI_Put", 16, 0);
    expect_end("MPI_Win_fence", "put", 16);
    MPI_Get(got, 2, MPI_INT, 1, 8, 2, MPI_INT, win);
    called("MPI_Get", 0, 8);
    expect_end("MPI_Win_fence", "get", 8);
    return NULL;
}

/* phase 2: transfers under M's lock of rank 1, completed by M */
static void *lock_worker(void *arg)
{
    (void)arg;
    MPI_Put(buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    called("MPI_Put", 4, 0);
    expect_end("MPI_Win_flush", "put", 4);
    pthread_barrier_wait(&bar);         /* M flushes */
    pthread_barrier_wait(&bar);
    MPI_Get(got, 3, MPI_INT, 1, 0, 3, MPI_INT, win);
    called("MPI_Get", 0, 12);
    expect_end("MPI_Win_unlock", "get", 12);
    pthread_barrier_wait(&bar);         /* M unlocks */
    return NULL;
}

/* phase 3: the worker completes M's transfers */
static void *sync_worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);         /* M put */
    pause_ms();
    MPI_Win_flush_all(win);
    called("MPI_Win_flush_all", 0, 0);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);         /* M Rput, rq set */
    pause_ms();
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    called("MPI_Wait", 0, 0);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);         /* M Rput a, then b */
    pause_ms();
    MPI_Wait(&rqb, MPI_STATUS_IGNORE);
    called("MPI_Wait", 0, 0);
    pause_ms();
    for (int flag = 0; !flag;) {
        MPI_Test(&rqa, &flag, MPI_STATUS_IGNORE);
        called("MPI_Test", 0, 0);
    }
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);         /* M put to itself, get from 1 */
    pause_ms();
    MPI_Win_flush_local(1, win);
    called("MPI_Win_flush_local", 0, 0);
    pthread_barrier_wait(&bar);
    return NULL;
}

int main(int argc, char **argv)
{
    char path[4096];
    int rank, size, provided, *base;
    pthread_t th;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(argc == 2 && size == 2, "usage: mpi_rma_threads DIR on 2 ranks");
    check(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE");
    expect_open(argv[1]);
    snprintf(path, sizeof path, "%s/ends_%d.txt", argv[1], rank);
    check((ends = fopen(path, "w")) != NULL, path);
    check(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win) == MPI_SUCCESS, "MPI_Win_allocate");
    check(pthread_barrier_init(&bar, NULL, 2) == 0, "pthread_barrier_init");

    MPI_Win_fence(0, win);
    called("MPI_Win_fence", 0, 0);
    if (rank == 0) {
        check(pthread_create(&th, NULL, fence_worker, NULL) == 0, "pthread_create");
        pthread_join(th, NULL);
        pause_ms();
    }
    MPI_Win_fence(0, win);
    called("MPI_Win_fence", 0, 0);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        called("MPI_Win_lock", 0, 0);
        check(pthread_create(&th, NULL, lock_worker, NULL) == 0, "pthread_create");
        pthread_barrier_wait(&bar);     /* the worker put */
        pause_ms();
        MPI_Win_flush(1, win);
        called("MPI_Win_flush", 0, 0);
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);     /* the worker got */
        pause_ms();
        MPI_Win_unlock(1, win);
        called("MPI_Win_unlock", 0, 0);
        pthread_join(th, NULL);

        MPI_Win_lock_all(0, win);
        called("MPI_Win_lock_all", 0, 0);
        check(pthread_create(&th, NULL, sync_worker, NULL) == 0, "pthread_create");
        MPI_Put(buf, 2, MPI_INT, 1, 4, 2, MPI_INT, win);
        called("MPI_Put", 8, 0);
        expect_end("MPI_Win_flush_all", "put", 8);
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);     /* the worker flushed all */
        MPI_Rput(buf, 1, MPI_INT, 1, 6, 1, MPI_INT, win, &rq);
        called("MPI_Rput", 4, 0);
        expect_end("MPI_Wait", "put", 4);
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);     /* the worker waited */
        MPI_Rput(buf, 3, MPI_INT, 1, 8, 3, MPI_INT, win, &rqa);
        called("MPI_Rput", 12, 0);
        expect_end("MPI_Test", "put", 12);
        MPI_Rput(buf, 5, MPI_INT, 1, 11, 5, MPI_INT, win, &rqb);
        called("MPI_Rput", 20, 0);
        expect_end("MPI_Wait", "put", 20);
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);     /* the worker completed b, then a */
        MPI_Put(buf, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
        called("MPI_Put", 8, 0);
        expect_end("MPI_Win_unlock_all", "put", 8);
        MPI_Get(got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        called("MPI_Get", 0, 4);
        expect_end("MPI_Win_flush_local", "get", 4);
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);     /* the worker flushed rank 1 */
        pthread_join(th, NULL);
        pause_ms();
        MPI_Win_unlock_all(win);
        called("MPI_Win_unlock_all", 0, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);
    /* (a message: the run has one of each kind to check) */
    if (rank == 0) {
        MPI_Send(buf, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        expect_msg("send", 1, 5, sizeof(int), 0);
    } else {
        MPI_Recv(got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect_msg("recv", 0, 5, sizeof(int), 0);
    }

    pthread_barrier_destroy(&bar);
    MPI_Win_free(&win);
    fclose(ends);
    snprintf(path, sizeof path, "%s/calls_%d.txt", argv[1], rank);
    check((ends = fopen(path, "w")) != NULL, path);
    for (int i = 0; calls[i].name; i++)
        fprintf(ends, "%s %ld %ld %ld\n", calls[i].name, calls[i].calls, calls[i].sent,
                calls[i].recvd);
    fclose(ends);
    expect_close();
    MPI_Finalize();
    return 0;
}
