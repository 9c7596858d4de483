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

#include "mpi/coll.h"
#include "mpi/vfdshare.h"

static int mine(void *ctx, size_t file)
{
    const struct vftr_mpi_vfdshare *s = ctx;

    return file % (size_t)s->size == (size_t)s->rank;
}

/* MPI_Allgatherv of every rank's buffer (int counts: at most 2 GiB in all;
 * every rank sees the same total, so all give up together), waited for
 * without polling (coll.h). */
static int exchange(void *ctx, const void *buf, size_t len, void **all, size_t *alllen)
{
    const struct vftr_mpi_vfdshare *s = ctx;
    int *lens = malloc((size_t)s->size * sizeof *lens);
    int *displs = malloc((size_t)s->size * sizeof *displs);
    int my = len > INT_MAX ? -1 : (int)len;
    long long total = 0;
    int rc = 0;
    MPI_Request rq;

    *all = NULL;
    *alllen = 0;
    /* without the counts' arrays this rank cannot take part, and the others
     * would wait for it for ever: end the job */
    if (!lens || !displs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (MPI_Iallgather(&my, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD, &rq) != MPI_SUCCESS ||
        vftr_mpi_wait(&rq) < 0) {
        free(lens);
        free(displs);
        return -EIO;
    }
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
        if (MPI_Iallgatherv(buf, my, MPI_BYTE, *all, lens, displs, MPI_BYTE, MPI_COMM_WORLD,
                            &rq) != MPI_SUCCESS ||
            vftr_mpi_wait(&rq) < 0) {
            free(*all);
            *all = NULL;
            rc = -EIO;
        } else {
            *alllen = (size_t)total;
        }
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

/* The spread matching's sends (coll.h: counts and bytes waited for
 * without polling; all give up together). */
static int alltoall(void *ctx, const void *const *out, const size_t *outlen, void **in,
                    size_t *inlen)
{
    (void)ctx;
    return vftr_mpi_alltoall_bytes(out, outlen, in, inlen);
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
