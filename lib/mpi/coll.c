/*
 * coll.c — waiting in MPI without polling a shared core, and the
 * collectives of vftr's MPI tools (coll.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/coll.h"

#define MAX_PAUSE 200000L            /* ns */

void vftr_mpi_pause(struct vftr_mpi_backoff *b)
{
    struct timespec t = { 0, b->ns };

    nanosleep(&t, NULL);
    if (b->ns < MAX_PAUSE)
        b->ns *= 2;
}

int vftr_mpi_wait(MPI_Request *rq)
{
    struct vftr_mpi_backoff b = VFTR_MPI_BACKOFF_INIT;
    int done = 0;

    while (!done) {
        if (MPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -EIO;
        if (!done)
            vftr_mpi_pause(&b);
    }
    return 0;
}

int vftr_mpi_allreduce(void *buf, int count, MPI_Datatype type, MPI_Op op)
{
    MPI_Request rq;

    if (MPI_Iallreduce(MPI_IN_PLACE, buf, count, type, op, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
        return -EIO;
    return vftr_mpi_wait(&rq);
}

int vftr_mpi_bcast(void *buf, int count, MPI_Datatype type, int root)
{
    MPI_Request rq;

    if (MPI_Ibcast(buf, count, type, root, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
        return -EIO;
    return vftr_mpi_wait(&rq);
}

int vftr_mpi_any(int bad)
{
    int v = bad != 0;

    return vftr_mpi_allreduce(&v, 1, MPI_INT, MPI_MAX) < 0 || v;
}

/*
 * The lengths are told first (-1 from a process whose bytes exceed an int
 * count), so that every process sees the same total and the same verdict
 * on it; the receive buffer's allocation is then voted on before the bytes
 * move, so that a process out of memory leaves none waiting.
 */
int vftr_mpi_allgather_bytes(const void *buf, size_t len, void **all, size_t *alllen)
{
    int size = 0, my = len > INT_MAX ? -1 : (int)len, rc = 0;
    int *lens, *displs;
    long long total = 0;
    MPI_Request rq;

    *all = NULL;
    *alllen = 0;
    if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 1)
        return -EIO;
    lens = malloc((size_t)size * sizeof *lens);
    displs = malloc((size_t)size * sizeof *displs);
    /* without the counts' arrays this process cannot take part, and the
     * others would wait for it for ever: end the job */
    if (!lens || !displs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (MPI_Iallgather(&my, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD, &rq) != MPI_SUCCESS ||
        vftr_mpi_wait(&rq) < 0) {
        rc = -EIO;
        goto out;
    }
    for (int i = 0; i < size; i++) {
        if (lens[i] < 0 || total > INT_MAX)
            rc = -EOVERFLOW;
        displs[i] = (int)(total > INT_MAX ? 0 : total);
        total += lens[i] < 0 ? 0 : lens[i];
    }
    if (total > INT_MAX)
        rc = -EOVERFLOW;
    if (rc < 0)
        goto out;
    *all = malloc(total ? (size_t)total : 1);
    if (vftr_mpi_any(!*all)) {
        rc = *all ? -ECANCELED : -ENOMEM;
        goto out;
    }
    if (MPI_Iallgatherv(buf, my, MPI_BYTE, *all, lens, displs, MPI_BYTE, MPI_COMM_WORLD, &rq) !=
            MPI_SUCCESS ||
        vftr_mpi_wait(&rq) < 0) {
        rc = -EIO;
        goto out;
    }
    *alllen = (size_t)total;
out:
    if (rc < 0) {
        free(*all);
        *all = NULL;
    }
    free(lens);
    free(displs);
    return rc;
}

/*
 * A process that cannot take part (its bytes beyond MPI's int counts, out
 * of memory) sends -1 counts, so that all learn it from the counts; one
 * that cannot hold what it is to receive says so in an all-reduce before
 * the bytes move, so that none waits in an exchange the others left.
 */
int vftr_mpi_alltoall_bytes(const void *const *out, const size_t *outlen, void **in,
                            size_t *inlen)
{
    int size = 0;
    size_t n;
    int *sc, *sd, *rcnt, *rd;
    uint8_t *sbuf = NULL, *rbuf = NULL;
    long long tot = 0;
    int bad, anybad = 0, rc = 0;
    MPI_Request rq;

    *in = NULL;
    *inlen = 0;
    if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 1)
        return -EIO;
    n = (size_t)size;
    sc = malloc(n * sizeof *sc);
    sd = malloc(n * sizeof *sd);
    rcnt = malloc(n * sizeof *rcnt);
    rd = malloc(n * sizeof *rd);
    /* without these few ints not even the counts can be told, and the
     * others would wait for them for ever: end the job (as the exchange of
     * vfdshare.c does) */
    if (!sc || !sd || !rcnt || !rd)
        MPI_Abort(MPI_COMM_WORLD, 1);
    bad = 0;
    for (size_t p = 0; p < n && !bad; p++) {
        if (outlen[p] > (size_t)INT_MAX - (size_t)tot)
            bad = -EOVERFLOW;
        sd[p] = (int)tot;
        tot += bad ? 0 : (long long)outlen[p];
    }
    if (!bad && !(sbuf = malloc(tot ? (size_t)tot : 1)))
        bad = -ENOMEM;
    for (size_t p = 0; p < n; p++) {
        sc[p] = bad ? -1 : (int)outlen[p];
        if (!bad && outlen[p])
            memcpy(sbuf + sd[p], out[p], outlen[p]);
    }
    if (MPI_Ialltoall(sc, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD, &rq) != MPI_SUCCESS ||
        vftr_mpi_wait(&rq) < 0) {
        rc = -EIO;
        goto out;
    }
    tot = 0;
    for (size_t p = 0; p < n; p++) {
        if (rcnt[p] < 0)
            anybad = 1;           /* that process gave up */
        rd[p] = tot > INT_MAX ? 0 : (int)tot;
        tot += rcnt[p] < 0 ? 0 : rcnt[p];
    }
    if (bad || anybad) {
        rc = bad ? bad : -ECANCELED;
        goto out;
    }
    /* the counts were alike everywhere; what each receives is not */
    if (tot > INT_MAX)
        bad = -EOVERFLOW;
    else if (!(rbuf = malloc(tot ? (size_t)tot : 1)))
        bad = -ENOMEM;
    {
        int mine = bad != 0;

        if (vftr_mpi_allreduce(&mine, 1, MPI_INT, MPI_MAX) < 0) {
            rc = -EIO;
            goto out;
        }
        anybad = mine;
    }
    if (anybad) {
        rc = bad ? bad : -ECANCELED;
        goto out;
    }
    if (MPI_Ialltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rcnt, rd, MPI_BYTE, MPI_COMM_WORLD, &rq) !=
            MPI_SUCCESS ||
        vftr_mpi_wait(&rq) < 0) {
        rc = -EIO;
        goto out;
    }
    *in = rbuf;
    *inlen = (size_t)tot;
    rbuf = NULL;
out:
    free(rbuf);
    free(sbuf);
    free(sc);
    free(sd);
    free(rcnt);
    free(rd);
    return rc;
}
