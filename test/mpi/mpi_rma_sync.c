/*
 * mpi_rma_sync.c — one-sided transfers that complete well after they are
 * issued (test/integration/mpi_rma_sync.sh).  Usage: mpi_rma_sync DIR,
 * on 2 ranks.
 *
 * Rank 0 issues transfers to rank 1 and, after each group, sleeps DELAY_MS
 * before the call that completes them: MPI_Win_fence, MPI_Win_complete
 * (rank 1 posts and waits), MPI_Win_flush, MPI_Win_unlock, MPI_Wait on an
 * MPI_Rput and an MPI_Rget, MPI_Win_flush_local, MPI_Win_flush_all,
 * MPI_Win_unlock_all.  It writes DIR/ends_0.txt, one line per transfer in
 * the order issued:
 *   SYNC
 * the MPI function that completes it, and DIR/xfer_0.txt the transfers
 * (put or get and bytes, in the same order); each transfer moves data one way
 * only (put or get), so it is one RMA record in the OTF trace.  A
 * trace's RMAEnd of the transfer must lie inside that call, DELAY_MS or
 * more after its RMAPut / RMAGet.
 */
#include <time.h>

#include "mpitest.h"

#define DELAY_MS 30

static FILE *ends, *xfers;

static void pause_ms(void)
{
    struct timespec ts = { 0, DELAY_MS * 1000000L };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* the next transfer, a put or a get of bytes, completes in the call named
 * sync (also DIR/xfer_0.txt: "put BYTES" or "get BYTES", in order) */
static void expect_end(const char *sync, const char *kind, long bytes)
{
    fprintf(ends, "%s\n", sync);
    fprintf(xfers, "%s %ld\n", kind, bytes);
}

int main(int argc, char **argv)
{
    char path[4096];
    int rank, size, *base, buf[4] = { 1, 2, 3, 4 }, got[4];
    MPI_Win win;
    MPI_Group world, peer;
    MPI_Request rq;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(argc == 2 && size == 2, "usage: mpi_rma_sync DIR on 2 ranks");
    expect_open(argv[1]);
    snprintf(path, sizeof path, "%s/ends_%d.txt", argv[1], rank);
    check((ends = fopen(path, "w")) != NULL, path);
    snprintf(path, sizeof path, "%s/xfer_%d.txt", argv[1], rank);
    check((xfers = fopen(path, "w")) != NULL, path);
    check(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                           &win) == MPI_SUCCESS, "MPI_Win_allocate");
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, (int[]){ 1 - rank }, &peer);

    /* fence epoch */
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(buf, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
        MPI_Get(got, 2, MPI_INT, 1, 8, 2, MPI_INT, win);
        expect_end("MPI_Win_fence", "put", 4 * sizeof(int));
        expect_end("MPI_Win_fence", "get", 2 * sizeof(int));
        pause_ms();
    }
    MPI_Win_fence(0, win);

    /* post / start / complete / wait */
    if (rank == 0) {
        MPI_Win_start(peer, 0, win);
        MPI_Put(buf, 2, MPI_INT, 1, 4, 2, MPI_INT, win);
        expect_end("MPI_Win_complete", "put", 2 * sizeof(int));
        pause_ms();
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(peer, 0, win);
        MPI_Win_wait(win);
    }

    /* passive target: lock, flush, unlock */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put(buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        expect_end("MPI_Win_flush", "put", sizeof(int));
        pause_ms();
        MPI_Win_flush(1, win);
        MPI_Get(got, 3, MPI_INT, 1, 0, 3, MPI_INT, win);
        expect_end("MPI_Win_unlock", "get", 3 * sizeof(int));
        pause_ms();
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);

    /* lock_all: request forms, flush_local, flush_all, unlock_all */
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        MPI_Rput(buf, 2, MPI_INT, 1, 2, 2, MPI_INT, win, &rq);
        expect_end("MPI_Wait", "put", 2 * sizeof(int));
        pause_ms();
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Rget(got, 2, MPI_INT, 1, 2, 2, MPI_INT, win, &rq);
        expect_end("MPI_Wait", "get", 2 * sizeof(int));
        pause_ms();
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Put(buf, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        expect_end("MPI_Win_flush_local", "put", sizeof(int));
        pause_ms();
        MPI_Win_flush_local(1, win);
        MPI_Accumulate(buf, 2, MPI_INT, 1, 0, 2, MPI_INT, MPI_SUM, win);
        expect_end("MPI_Win_flush_all", "put", 2 * sizeof(int));
        pause_ms();
        MPI_Win_flush_all(win);
        MPI_Get(got, 1, MPI_INT, 1, 3, 1, MPI_INT, win);
        expect_end("MPI_Win_unlock_all", "get", sizeof(int));
        pause_ms();
        MPI_Win_unlock_all(win);
    }
    /* (a message, so that the run has one of each kind to check) */
    if (rank == 0) {
        MPI_Send(buf, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        expect_msg("send", 1, 5, sizeof(int), 0);
    } else {
        MPI_Recv(got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect_msg("recv", 0, 5, sizeof(int), 0);
    }

    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    fclose(ends);
    fclose(xfers);
    expect_close();
    MPI_Finalize();
    return 0;
}
