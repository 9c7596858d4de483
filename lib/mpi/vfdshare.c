/*
 * vfdshare.c — the first pass of a .vfd conversion shared over MPI (see
 * vfdshare.h): the share callbacks of struct vftr_vfdconv_share.
 */
#include <mpi.h>
#include <stddef.h>

#include "mpi/coll.h"
#include "mpi/vfdshare.h"

static int mine(void *ctx, size_t file)
{
    const struct vftr_mpi_vfdshare *s = ctx;

    return file % (size_t)s->size == (size_t)s->rank;
}

/* Every rank's buffer, in rank order (coll.h: waited for without
 * polling; all give up together). */
static int exchange(void *ctx, const void *buf, size_t len, void **all, size_t *alllen)
{
    (void)ctx;
    return vftr_mpi_allgather_bytes(buf, len, all, alllen);
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
