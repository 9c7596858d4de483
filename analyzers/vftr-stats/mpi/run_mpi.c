/*
 * run_mpi.c — vftr-stats-mpi: vftr-stats with its analysis views
 * (--waits, --critical-path, --delays) spread over the ranks of an MPI job
 * (lib/model's vftr_analysis_run_par): `mpirun -np N vftr-stats-mpi
 * --waits RUN` prints what `vftr-stats --waits RUN` prints.  Every rank
 * reads its share of the processes; for --waits each analyses its own,
 * exchanging records in rounds (alltoall_msgs), and rank 0 sums the
 * tables; for the other views the others send their sync records to rank
 * 0 (which reads its share in a thread), which merges them.  A .vfd
 * run's open is shared too (stats_source_share): each rank reads only its
 * share of the files.  Linked in place of run.c.
 *
 * MPI is started before main (the command line is vftr-stats's own, parsed
 * by main) and ended after it; the other views run on every rank alike,
 * rank 0's output being the one shown.  An error of the analysis on one
 * rank leaves the others waiting for it: the rank says it as vftr-stats
 * does (the trace, then what failed: the record refused) and ends the job
 * (MPI_Abort).
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/coll.h"
#include "mpi/vfdshare.h"
#include "stats.h"

static int rank, size;
static struct vftr_mpi_vfdshare vfdshare;
static struct vftr_vfdconv_share share;

/*
 * Sending and waiting.  A worker's records go out in messages of a
 * megabyte; a synchronous send would make every message a meeting of the
 * two ranks, and on a shared machine each meeting costs the time the
 * later one waits to be scheduled.  So a worker keeps up to WINDOW
 * messages in flight (copies it owns until their send completes) and
 * waits only when all of them are: the memory stays bounded, as the
 * contract asks, and the ranks work side by side.  Waits test, and sleep
 * between tests, a little longer each time (lib/mpi/coll.h): MPI's blocking
 * calls poll, taking a core from the rank that has the work.
 */
#define WINDOW 16

static struct inflight {
    MPI_Request rq;
    void *buf;
    size_t cap;
    int busy;
} flight[WINDOW];

/* A free slot of the window, after waiting for one if need be; NULL on an
 * MPI error. */
static struct inflight *free_slot(void)
{
    struct vftr_mpi_backoff b = VFTR_MPI_BACKOFF_INIT;

    for (;;) {
        for (int i = 0; i < WINDOW; i++) {
            int done = 1;

            if (flight[i].busy &&
                MPI_Test(&flight[i].rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return NULL;
            if (done) {
                flight[i].busy = 0;
                return &flight[i];
            }
        }
        vftr_mpi_pause(&b);
    }
}

/* Waits for every message in flight (before MPI_Finalize).  0 or -EIO. */
static int drain(void)
{
    for (int i = 0; i < WINDOW; i++) {
        struct vftr_mpi_backoff b = VFTR_MPI_BACKOFF_INIT;
        int done = !flight[i].busy;

        while (!done) {
            if (MPI_Test(&flight[i].rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return -EIO;
            if (!done)
                vftr_mpi_pause(&b);
        }
        flight[i].busy = 0;
        free(flight[i].buf);
        flight[i].buf = NULL;
        flight[i].cap = 0;
    }
    return 0;
}

static int send_msg(void *ctx, int to, int tag, const void *msg, size_t len)
{
    struct inflight *f;

    (void)ctx;
    if (len > INT_MAX)
        return -EMSGSIZE;
    if (!(f = free_slot()))
        return -EIO;
    if (len > f->cap) {
        void *p = realloc(f->buf, len);

        if (!p)
            return -ENOMEM;
        f->buf = p;
        f->cap = len;
    }
    memcpy(f->buf, msg, len);
    if (MPI_Isend(f->buf, (int)len, MPI_BYTE, to, tag, MPI_COMM_WORLD, &f->rq) != MPI_SUCCESS)
        return -EIO;
    f->busy = 1;
    return 0;
}

/* Lets MPI move the messages in flight on (see the transport's poll):
 * without a single-copy mechanism a large message goes in fragments that
 * the sender pushes only from inside MPI calls. */
static int poll_msgs(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < WINDOW; i++) {
        int done = 0;

        if (!flight[i].busy)
            continue;
        if (MPI_Test(&flight[i].rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -EIO;
        if (done)
            flight[i].busy = 0;
    }
    return 0;
}

static int recv_msg(void *ctx, int from, int *tag, void **msg, size_t *len)
{
    MPI_Status st;
    int n;

    struct vftr_mpi_backoff b = VFTR_MPI_BACKOFF_INIT;
    int ready = 0;

    (void)ctx;
    for (;;) {
        if (MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &st) != MPI_SUCCESS)
            return -EIO;
        if (ready)
            break;
        vftr_mpi_pause(&b);
    }
    if (MPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
        return -EIO;
    if (!(*msg = malloc(n ? (size_t)n : 1)))
        return -ENOMEM;
    {
        /* a message larger than the eager limit arrives only as fast as
         * its sender, busy with its records, lets it go: wait for it as
         * for the probe, not in MPI_Recv's polling */
        MPI_Request rq;
        int done = 0;

        b.ns = 10000;
        if (MPI_Irecv(*msg, n, MPI_BYTE, from, st.MPI_TAG, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
            done = -1;
        while (done == 0) {
            if (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                done = -1;
            else if (!done)
                vftr_mpi_pause(&b);
        }
        if (done < 0) {
            free(*msg);
            *msg = NULL;
            return -EIO;
        }
    }
    *tag = st.MPI_TAG;
    *len = (size_t)n;
    return 0;
}

/* The distributed --waits's rounds (the transport's alltoall): the ranks
 * meet here every round (lib/mpi/coll.h). */
static int alltoall_msgs(void *ctx, const void *const *out, const size_t *outlen, void **in,
                         size_t *inlen)
{
    (void)ctx;
    return vftr_mpi_alltoall_bytes(out, outlen, in, inlen);
}

__attribute__((constructor)) static void start(void)
{
    int provided = 0;

    /* rank 0 extracts its share in a thread that calls no MPI */
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fputs("vftr-stats-mpi: MPI_Init failed\n", stderr);
        exit(1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    vftr_mpi_vfdshare_init(&vfdshare, &share);
    if (rank != 0 && !freopen("/dev/null", "w", stdout))
        MPI_Abort(MPI_COMM_WORLD, 1);
}

__attribute__((destructor)) static void stop(void)
{
    int done = 0;

    if (MPI_Finalized(&done) == MPI_SUCCESS && !done)
        MPI_Finalize();
}

/* Each rank reads its share of the .vfd files (file i by rank i % size:
 * the files of the ranks whose processes its analysis share takes, when
 * the files are one per rank in rank order, as vftr-run writes them) and
 * the ranks exchange the first pass's results (lib/mpi/vfdshare.c).  Alone,
 * the rank reads them all as vftr-stats does. */
const struct vftr_vfdconv_share *stats_source_share(void)
{
    return size > 1 ? &share : NULL;
}

int stats_analysis_run(struct vftr_source *src, const struct vftr_analysis_opts *o,
                       struct vftr_analysis **out, char *err, size_t errlen)
{
    const struct vftr_analysis_transport t = { rank,      size,      send_msg,     recv_msg,
                                               NULL,      poll_msgs, alltoall_msgs };
    int rc = vftr_analysis_run_par(src, o, &t, out, err, errlen);

    if (rc >= 0 && drain() < 0) {
        snprintf(err, errlen, "a message was not delivered");
        rc = -EIO;
    }

    /* vftr-stats's message (analysis.c), before the job ends; a worker's
     * err names its rank */
    if (rc < 0 && size > 1) {
        fprintf(stderr, "vftr-stats: %s: %s\n", vftr_source_info(src)->name,
                err[0] ? err : strerror(-rc));
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}
