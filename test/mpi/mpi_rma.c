/*
 * mpi_rma.c — one-sided communication and matched probes, counted by the
 * program itself (test/integration/mpi_rma.sh).  Usage: mpi_rma DIR.
 *
 * Every rank uses every RMA call the wrapper table has: windows made four
 * ways (create, allocate, allocate_shared, create_dynamic with attach and
 * detach, shared_query), data moved by put, get, accumulate,
 * get_accumulate (also with MPI_NO_OP), fetch_and_op, compare_and_swap and
 * their request forms, in fence epochs, post/start/complete/wait(test)
 * epochs and lock/lock_all epochs with flushes, and one put to
 * MPI_PROC_NULL (no data).  Then matched probes: a message to the right
 * neighbour received with MPI_Mprobe + MPI_Mrecv, one with MPI_Improbe +
 * MPI_Imrecv + MPI_Wait.
 *
 * The program writes DIR/expect_<rank>.txt (mpitest.h: its messages) and
 * DIR/calls_<rank>.txt, one line per MPI function it called:
 *   NAME CALLS SENT RECEIVED
 * and DIR/rma_<rank>.txt, one line per one-sided transfer (see xfer()).
 * SENT / RECEIVED: the bytes its origin buffers moved to and from targets
 * (mpi_rt.h says which), and those of the messages it received (MPI_Mrecv,
 * the MPI_Wait of MPI_Imrecv), computed from its own counts and sizes.
 */
#include <string.h>

#include "mpitest.h"

#define NFN 64
static struct { const char *name; long calls, sent, received; } fns[NFN];

/* count NAME: one more call of NAME moving sent and received bytes */
static void count(const char *name, long sent, long received)
{
    int i;

    for (i = 0; i < NFN && fns[i].name && strcmp(fns[i].name, name) != 0; i++)
        ;
    check(i < NFN, "function table");
    fns[i].name = name;
    fns[i].calls++;
    fns[i].sent += sent;
    fns[i].received += received;
}

/* MPI call X counted as NAME with sent and received bytes; stops on error */
#define CALL(name, sent, received, x) \
    do { check((x) == MPI_SUCCESS, name); count(name, sent, received); } while (0)

static FILE *xfer_file;

/* The same for a one-sided transfer to world rank target (window members
 * are world ranks here), also written to DIR/rma_<rank>.txt as
 *   NAME TARGET SENT RECEIVED FLAGS
 * NAME the blocking name, FLAGS 1 for a request form (MPI_Rput...): what
 * vftr's MPI_RMA records must hold.  Nothing for MPI_PROC_NULL. */
static void xfer(const char *name, int target, long sent, long received)
{
    int req = name[4] == 'R' && name[5] != 'e';   /* MPI_Rput, not MPI_Recv */
    char base[64];

    if (target == MPI_PROC_NULL)
        return;
    snprintf(base, sizeof base, "MPI_%s", name + 4 + req);
    if (req)
        base[4] = (char)(base[4] - 'a' + 'A');
    fprintf(xfer_file, "%s %d %ld %ld %d\n", base, target, sent, received, req);
}

#define RMA(target, name, sent, received, x) \
    do { CALL(name, sent, received, x); xfer(name, target, sent, received); } while (0)

static int rank, size, right, left;

int main(int argc, char **argv)
{
    char path[4096];
    FILE *f;
    int *base, *shbase, *dyn, buf[16], results[16];
    MPI_Win win, wal, wsh, wdy;
    MPI_Comm shm;
    MPI_Group world_group, nb;
    MPI_Aint shsize, addr;
    int disp, flag, res = 0;
    long long ll[2] = { 5, 6 }, llr[2] = { 0, 0 }, llc = 5;
    MPI_Request rq[4];
    MPI_Message msg;
    MPI_Status st;

    if (argc < 2)
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect_open(argv[1]);
    snprintf(path, sizeof path, "%s/rma_%d.txt", argv[1], rank);
    check((xfer_file = fopen(path, "w")) != NULL, "rma file");
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    for (int i = 0; i < 16; i++)
        buf[i] = rank * 100 + i;

    /* windows: created over the program's memory, allocated, shared */
    base = calloc(16, sizeof *base);
    CALL("MPI_Win_create", 0, 0,
         MPI_Win_create(base, 16 * sizeof *base, sizeof *base, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CALL("MPI_Win_allocate", 0, 0,
         MPI_Win_allocate(16 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &dyn, &wal));
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    CALL("MPI_Win_allocate_shared", 0, 0,
         MPI_Win_allocate_shared(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, shm, &shbase, &wsh));
    CALL("MPI_Win_shared_query", 0, 0, MPI_Win_shared_query(wsh, 0, &shsize, &disp, &shbase));
    check(shsize == 16 * sizeof(int) && disp == (int)sizeof(int), "shared_query");

    /* fence epoch: put, get, accumulate (and a put to nobody) */
    CALL("MPI_Win_fence", 0, 0, MPI_Win_fence(0, win));
    RMA(right, "MPI_Put", 4 * sizeof(int), 0, MPI_Put(buf, 4, MPI_INT, right, 0, 4, MPI_INT, win));
    RMA(MPI_PROC_NULL, "MPI_Put", 0, 0, MPI_Put(buf, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win));
    RMA(left, "MPI_Get", 0, 3 * sizeof(int), MPI_Get(results, 3, MPI_INT, left, 8, 3, MPI_INT, win));
    RMA(left, "MPI_Accumulate", 2 * sizeof(int), 0,
         MPI_Accumulate(buf, 2, MPI_INT, left, 12, 2, MPI_INT, MPI_SUM, win));
    CALL("MPI_Win_fence", 0, 0, MPI_Win_fence(0, win));
    check(base[0] == left * 100, "put arrived");

    /* lock epochs on the allocated window (long long) */
    CALL("MPI_Win_lock", 0, 0, MPI_Win_lock(MPI_LOCK_SHARED, right, 0, wal));
    RMA(right, "MPI_Get_accumulate", 2 * sizeof(long long), 2 * sizeof(long long),
         MPI_Get_accumulate(ll, 2, MPI_LONG_LONG, llr, 2, MPI_LONG_LONG, right, 0, 2,
                            MPI_LONG_LONG, MPI_SUM, wal));
    CALL("MPI_Win_flush", 0, 0, MPI_Win_flush(right, wal));
    {
        long long tmp[3];

        RMA(right, "MPI_Get_accumulate", 0, 3 * sizeof(long long),
             MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, tmp, 3, MPI_LONG_LONG, right, 0, 3,
                                MPI_LONG_LONG, MPI_NO_OP, wal));
    }
    RMA(right, "MPI_Fetch_and_op", sizeof(long long), sizeof(long long),
         MPI_Fetch_and_op(ll, llr, MPI_LONG_LONG, right, 4, MPI_SUM, wal));
    RMA(right, "MPI_Fetch_and_op", 0, sizeof(long long),
         MPI_Fetch_and_op(NULL, llr, MPI_LONG_LONG, right, 4, MPI_NO_OP, wal));
    RMA(right, "MPI_Compare_and_swap", sizeof(long long), sizeof(long long),
         MPI_Compare_and_swap(ll, &llc, llr, MPI_LONG_LONG, right, 5, wal));
    CALL("MPI_Win_flush_local", 0, 0, MPI_Win_flush_local(right, wal));
    CALL("MPI_Win_unlock", 0, 0, MPI_Win_unlock(right, wal));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);
    /* request forms under lock_all */
    CALL("MPI_Win_lock_all", 0, 0, MPI_Win_lock_all(0, wal));
    RMA(right, "MPI_Rput", sizeof(long long), 0,
         MPI_Rput(ll, 1, MPI_LONG_LONG, right, 8, 1, MPI_LONG_LONG, wal, &rq[0]));
    RMA(left, "MPI_Rget", 0, 2 * sizeof(long long),
         MPI_Rget(results, 2, MPI_LONG_LONG, left, 10, 2, MPI_LONG_LONG, wal, &rq[1]));
    RMA(left, "MPI_Raccumulate", sizeof(long long), 0,
         MPI_Raccumulate(ll, 1, MPI_LONG_LONG, left, 12, 1, MPI_LONG_LONG, MPI_SUM, wal, &rq[2]));
    RMA(right, "MPI_Rget_accumulate", sizeof(long long), sizeof(long long),
         MPI_Rget_accumulate(ll, 1, MPI_LONG_LONG, llr, 1, MPI_LONG_LONG, right, 13, 1,
                             MPI_LONG_LONG, MPI_MAX, wal, &rq[3]));
    CALL("MPI_Waitall", 0, 0, MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    CALL("MPI_Win_flush_all", 0, 0, MPI_Win_flush_all(wal));
    CALL("MPI_Win_flush_local_all", 0, 0, MPI_Win_flush_local_all(wal));
    CALL("MPI_Win_sync", 0, 0, MPI_Win_sync(wal));
    CALL("MPI_Win_unlock_all", 0, 0, MPI_Win_unlock_all(wal));

    /* post/start/complete/wait: each rank exposes its window to its left
     * neighbour and accesses its right one */
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (size > 1) {
        int from = left, to = right;

        MPI_Group_incl(world_group, 1, &from, &nb);
        CALL("MPI_Win_post", 0, 0, MPI_Win_post(nb, 0, win));
        MPI_Group_free(&nb);
        MPI_Group_incl(world_group, 1, &to, &nb);
        CALL("MPI_Win_start", 0, 0, MPI_Win_start(nb, 0, win));
        RMA(right, "MPI_Put", 5 * sizeof(int), 0, MPI_Put(buf, 5, MPI_INT, right, 0, 5, MPI_INT, win));
        CALL("MPI_Win_complete", 0, 0, MPI_Win_complete(win));
        MPI_Group_free(&nb);
        do
            CALL("MPI_Win_test", 0, 0, MPI_Win_test(win, &flag));
        while (!flag);
        /* a second exposure ended by wait */
        MPI_Group_incl(world_group, 1, &from, &nb);
        CALL("MPI_Win_post", 0, 0, MPI_Win_post(nb, 0, win));
        MPI_Group_free(&nb);
        MPI_Group_incl(world_group, 1, &to, &nb);
        CALL("MPI_Win_start", 0, 0, MPI_Win_start(nb, 0, win));
        RMA(right, "MPI_Get", 0, sizeof(int), MPI_Get(&res, 1, MPI_INT, right, 1, 1, MPI_INT, win));
        CALL("MPI_Win_complete", 0, 0, MPI_Win_complete(win));
        MPI_Group_free(&nb);
        CALL("MPI_Win_wait", 0, 0, MPI_Win_wait(win));
    }
    MPI_Group_free(&world_group);

    /* a dynamic window with memory attached and detached */
    CALL("MPI_Win_create_dynamic", 0, 0, MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wdy));
    CALL("MPI_Win_attach", 0, 0, MPI_Win_attach(wdy, buf, sizeof buf));
    MPI_Get_address(buf, &addr);
    {
        MPI_Aint raddr = 0;

        MPI_Sendrecv(&addr, 1, MPI_AINT, left, 7, &raddr, 1, MPI_AINT, right, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        expect_msg("send", left, 7, sizeof(MPI_Aint), SR);
        expect_msg("recv", right, 7, sizeof(MPI_Aint), SR);
        CALL("MPI_Win_lock", 0, 0, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, wdy));
        RMA(right, "MPI_Get", 0, 2 * sizeof(int), MPI_Get(results, 2, MPI_INT, right, raddr, 2, MPI_INT, wdy));
        CALL("MPI_Win_unlock", 0, 0, MPI_Win_unlock(right, wdy));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_coll("MPI_Barrier", -1, 0, 0, 0);
    CALL("MPI_Win_detach", 0, 0, MPI_Win_detach(wdy, buf));

    CALL("MPI_Win_free", 0, 0, MPI_Win_free(&wdy));
    CALL("MPI_Win_free", 0, 0, MPI_Win_free(&wsh));
    CALL("MPI_Win_free", 0, 0, MPI_Win_free(&wal));
    CALL("MPI_Win_free", 0, 0, MPI_Win_free(&win));
    MPI_Comm_free(&shm);
    free(base);

    /* matched probes: two messages to the right (tags 21, 22: 6 ints, 3
     * doubles), received from the left by Mprobe + Mrecv and by Improbe +
     * Imrecv; a probe of MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC */
    MPI_Send(buf, 6, MPI_INT, right, 21, MPI_COMM_WORLD);
    expect_msg("send", right, 21, 6 * sizeof(int), 0);
    {
        double dd[3] = { 1, 2, 3 };

        MPI_Send(dd, 3, MPI_DOUBLE, right, 22, MPI_COMM_WORLD);
        expect_msg("send", right, 22, 3 * sizeof(double), 0);
    }
    CALL("MPI_Mprobe", 0, 0, MPI_Mprobe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &msg, &st));
    CALL("MPI_Mrecv", 0, 6 * sizeof(int), MPI_Mrecv(results, 16, MPI_INT, &msg, &st));
    check(st.MPI_SOURCE == left && msg == MPI_MESSAGE_NULL, "mrecv");
    expect_msg("recv", left, 21, 6 * sizeof(int), 0);
    do
        CALL("MPI_Improbe", 0, 0, MPI_Improbe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    while (!flag);
    {
        double dd[8];

        CALL("MPI_Imrecv", 0, 0, MPI_Imrecv(dd, 8, MPI_DOUBLE, &msg, &rq[0]));
        CALL("MPI_Wait", 0, 3 * sizeof(double), MPI_Wait(&rq[0], &st));
    }
    expect_msg("recv", left, 22, 3 * sizeof(double), NB);
    CALL("MPI_Mprobe", 0, 0, MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    check(msg == MPI_MESSAGE_NO_PROC, "no-proc message");
    CALL("MPI_Mrecv", 0, 0, MPI_Mrecv(results, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));

    snprintf(path, sizeof path, "%s/calls_%d.txt", argv[1], rank);
    check((f = fopen(path, "w")) != NULL, "calls file");
    for (int i = 0; i < NFN && fns[i].name; i++)
        fprintf(f, "%s %ld %ld %ld\n", fns[i].name, fns[i].calls, fns[i].sent, fns[i].received);
    fclose(f);
    fclose(xfer_file);
    expect_close();
    MPI_Finalize();
    return 0;
}
