/*
 * vfdshare.c — the first pass of a .vfd conversion shared over MPI (see
 * vfdshare.h): the share callbacks of struct vftr_vfdconv_share.
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/vfdshare.h"

static int mine(void *ctx, size_t file)
{
    const struct vftr_mpi_vfdshare *s = ctx;

    return file % (size_t)s->size == (size_t)s->rank;
}

/* MPI_Allgatherv of every rank's buffer (int counts: at most 2 GiB in all;
 * every rank sees the same total, so all give up together). */
static int exchange(void *ctx, const void *buf, size_t len, void **all, size_t *alllen)
{
    const struct vftr_mpi_vfdshare *s = ctx;
    int *lens = malloc((size_t)s->size * sizeof *lens);
    int *displs = malloc((size_t)s->size * sizeof *displs);
    int my = len > INT_MAX ? -1 : (int)len;
    long long total = 0;
    int rc = 0;

    *all = NULL;
    *alllen = 0;
    if (!lens || !displs) {
        free(lens);
        free(displs);
        return -ENOMEM;
    }
    MPI_Allgather(&my, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < s->size; i++) {
        if (lens[i] < 0 || total > INT_MAX)
            rc = -EOVERFLOW;
        displs[i] = (int)(total > INT_MAX ? 0 : total);
        total += lens[i] < 0 ? 0 : lens[i];
    }
    if (total > INT_MAX)
        rc = -EOVERFLOW;
    if (rc == 0) {
        *all = malloc(total ? (size_t)total : 1);
        /* a rank out of memory here can neither receive nor tell the
         * others without another collective: end the job rather than hang */
        if (!*all)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Allgatherv(buf, my, MPI_BYTE, *all, lens, displs, MPI_BYTE, MPI_COMM_WORLD);
        *alllen = (size_t)total;
    }
    free(lens);
    free(displs);
    return rc;
}

static int owner(void *ctx, size_t file)
{
    const struct vftr_mpi_vfdshare *s = ctx;

    return (int)(file % (size_t)s->size);
}

/* MPI_Alltoallv of the spread matching's sends (int counts and
 * displacements: at most 2 GiB out and in per process).  A process that
 * cannot go on says so in an MPI_Allreduce first, so that all give up
 * together instead of some waiting in the MPI_Alltoallv. */
static int alltoall(void *ctx, const void *const *out, const size_t *outlen, void **in,
                    size_t *inlen)
{
    const struct vftr_mpi_vfdshare *s = ctx;
    size_t n = (size_t)s->size;
    int *sc = malloc(n * sizeof *sc), *sd = malloc(n * sizeof *sd);
    int *rcnt = malloc(n * sizeof *rcnt), *rd = malloc(n * sizeof *rd);
    uint8_t *sbuf = NULL, *rbuf = NULL;
    long long tot = 0;
    int bad = !sc || !sd || !rcnt || !rd, anybad = 0, rc = 0;

    *in = NULL;
    *inlen = 0;
    for (size_t p = 0; p < n && !bad; p++) {
        if (outlen[p] > (size_t)INT_MAX - (size_t)tot) {
            bad = 1;
            break;
        }
        sc[p] = (int)outlen[p];
        sd[p] = (int)tot;
        tot += (long long)outlen[p];
    }
    /* one send buffer: MPI_Alltoallv takes displacements into one */
    if (!bad && !(sbuf = malloc(tot ? (size_t)tot : 1)))
        bad = 1;
    for (size_t p = 0; p < n && !bad; p++)
        if (outlen[p])
            memcpy(sbuf + sd[p], out[p], outlen[p]);
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        rc = bad ? -ENOMEM : -ECANCELED;
        goto out;
    }
    MPI_Alltoall(sc, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD);
    tot = 0;
    for (size_t p = 0; p < n; p++) {
        rd[p] = tot > INT_MAX ? 0 : (int)tot;
        tot += rcnt[p];
    }
    bad = tot > INT_MAX || !(rbuf = malloc(tot ? (size_t)tot : 1));
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        rc = bad ? (tot > INT_MAX ? -EOVERFLOW : -ENOMEM) : -ECANCELED;
        goto out;
    }
    MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rcnt, rd, MPI_BYTE, MPI_COMM_WORLD);
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

void vftr_mpi_vfdshare_init(struct vftr_mpi_vfdshare *s, struct vftr_vfdconv_share *share)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    *share = (struct vftr_vfdconv_share){ mine, exchange, s, s->size, s->rank, owner, alltoall };
}

int vftr_mpi_vfdshare_mine(const struct vftr_mpi_vfdshare *s, size_t file)
{
    return mine((void *)s, file);
}
