/*
 * run_mpi.c — vftr-stats-mpi: vftr-stats with its analysis views
 * (--waits, --critical-path, --delays) spread over the ranks of an MPI job
 * (lib/model's vftr_analysis_run_par): `mpirun -np N vftr-stats-mpi
 * --waits RUN` prints what `vftr-stats --waits RUN` prints.  The ranks
 * other than 0 read their share of the processes and send their sync
 * records to rank 0; only rank 0 prints.  Linked in place of run.c.
 *
 * MPI is started before main (the command line is vftr-stats's own, parsed
 * by main) and ended after it; the other views run on every rank alike,
 * rank 0's output being the one shown.  An error on one rank leaves the
 * others waiting for it, so it ends the job (MPI_Abort) after its message.
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"

static int rank, size;

static int send_msg(void *ctx, int to, int tag, const void *msg, size_t len)
{
    (void)ctx;
    if (len > INT_MAX)
        return -EMSGSIZE;
    /* synchronous: the worker waits until rank 0 takes it (the memory bound) */
    return MPI_Ssend(msg, (int)len, MPI_BYTE, to, tag, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

static int recv_msg(void *ctx, int from, int *tag, void **msg, size_t *len)
{
    MPI_Status st;
    int n;

    (void)ctx;
    if (MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &st) != MPI_SUCCESS ||
        MPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
        return -EIO;
    if (!(*msg = malloc(n ? (size_t)n : 1)))
        return -ENOMEM;
    if (MPI_Recv(*msg, n, MPI_BYTE, from, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS) {
        free(*msg);
        *msg = NULL;
        return -EIO;
    }
    *tag = st.MPI_TAG;
    *len = (size_t)n;
    return 0;
}

__attribute__((constructor)) static void start(void)
{
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fputs("vftr-stats-mpi: MPI_Init failed\n", stderr);
        exit(1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0 && !freopen("/dev/null", "w", stdout))
        MPI_Abort(MPI_COMM_WORLD, 1);
}

__attribute__((destructor)) static void stop(void)
{
    int done = 0;

    if (MPI_Finalized(&done) == MPI_SUCCESS && !done)
        MPI_Finalize();
}

int stats_analysis_run(struct vftr_source *src, const struct vftr_analysis_opts *o,
                       struct vftr_analysis **out, char *err, size_t errlen)
{
    const struct vftr_analysis_transport t = { rank, size, send_msg, recv_msg, NULL };
    int rc = vftr_analysis_run_par(src, o, &t, out, err, errlen);

    if (rc < 0 && size > 1) {
        fprintf(stderr, "vftr-stats-mpi: rank %d: %s\n", rank, err[0] ? err : "failed");
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}
