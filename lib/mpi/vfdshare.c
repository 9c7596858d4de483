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

/* The matcher's requests are two uint64 (file, chunk; file UINT64_MAX:
 * done), the answers an int64 status, then the records. */
enum { TAG_REQ = VFTR_MPI_VFDSHARE_TAG_REQ, TAG_REP = VFTR_MPI_VFDSHARE_TAG_REP };

/* Rank 0, matching: the MPI records of chunk `chunk` of a file another
 * rank reads, or (file SIZE_MAX) tells every other rank that it is done. */
static int fetch(void *ctx, size_t file, size_t chunk, void **buf, size_t *len)
{
    const struct vftr_mpi_vfdshare *s = ctx;
    uint64_t req[2] = { file == SIZE_MAX ? UINT64_MAX : (uint64_t)file, (uint64_t)chunk };
    MPI_Status st;
    int owner, n;
    uint8_t *p;
    int64_t status;

    if (file == SIZE_MAX) {
        for (int r = 0; r < s->size; r++)
            if (r != s->rank)
                MPI_Send(req, 2, MPI_UINT64_T, r, TAG_REQ, MPI_COMM_WORLD);
        return 0;
    }
    owner = (int)(file % (size_t)s->size);
    MPI_Send(req, 2, MPI_UINT64_T, owner, TAG_REQ, MPI_COMM_WORLD);
    MPI_Probe(owner, TAG_REP, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    p = malloc(n > 0 ? (size_t)n : 1);
    if (!p)
        return -ENOMEM;     /* the answer stays unreceived: matching ends here */
    MPI_Recv(p, n, MPI_BYTE, owner, TAG_REP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (n < (int)sizeof status) {
        free(p);
        return -EBADMSG;
    }
    memcpy(&status, p, sizeof status);
    if (status < 0) {
        free(p);
        return status < -4095 ? -EBADMSG : (int)status;
    }
    *len = (size_t)n - sizeof status;
    memmove(p, p + sizeof status, *len);
    *buf = p;
    return 0;
}

/* The other ranks: answer rank 0's requests for their files' records until
 * it is done.  A request that fails is answered with its error. */
static int serve(void *ctx, struct vftr_vfdconv *c)
{
    (void)ctx;
    for (;;) {
        uint64_t req[2];
        void *buf = NULL;
        size_t len = 0;
        int64_t status;
        uint8_t *out;

        MPI_Recv(req, 2, MPI_UINT64_T, 0, TAG_REQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (req[0] == UINT64_MAX)
            return 0;
        status = vftr_vfdconv_chunk_mpi(c, (size_t)req[0], (size_t)req[1], &buf, &len);
        if (status == 0 && len > (size_t)INT_MAX - sizeof status)
            status = -EOVERFLOW;
        out = status == 0 ? malloc(sizeof status + len) : NULL;
        if (status == 0 && !out)
            status = -ENOMEM;
        if (status < 0) {
            MPI_Send(&status, (int)sizeof status, MPI_BYTE, 0, TAG_REP, MPI_COMM_WORLD);
        } else {
            memcpy(out, &status, sizeof status);
            if (len)
                memcpy(out + sizeof status, buf, len);
            MPI_Send(out, (int)(sizeof status + len), MPI_BYTE, 0, TAG_REP, MPI_COMM_WORLD);
        }
        free(out);
        free(buf);
    }
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
    *share = (struct vftr_vfdconv_share){ mine, exchange, s, fetch, serve,
                                          s->size, s->rank, owner, alltoall };
}

int vftr_mpi_vfdshare_mine(const struct vftr_mpi_vfdshare *s, size_t file)
{
    return mine((void *)s, file);
}
