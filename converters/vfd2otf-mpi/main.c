/*
 * vfd2otf-mpi — vfd2otf spread over MPI ranks: the same command line and the
 * same trace.
 *
 * First pass: file i is read by rank i % size only (in -j threads); what
 * the conversion must know of every file (definitions, threads, counts of
 * MPI records, clock offsets, chunk lists, warnings) is exchanged with one
 * MPI_Allgatherv (vftr_vfdconv_share), after which every rank holds the
 * same engine state and numbers everything alike.  Rank 0 then matches the
 * messages in one pass over all files' MPI records in time order: those of
 * another rank's files it asks that rank for, one chunk at a time (fetch /
 * serve), so no rank opens a file outside its share; the result goes to all
 * in a second exchange.
 * Second pass: the event streams are shared out round-robin (rank k writes
 * streams k+1, k+1+size, ...), each rank re-reading only the files of its
 * own streams.  Rank 0 writes the global definitions and the master file,
 * prints the warnings and the summary.  With the snapshot options rank 0
 * does the whole event pass (vftr_vfdotf_snap_pass): the engine needs one time
 * order.
 *
 * With -o NAME.otf2 the output is an OTF2 archive (NAME.otf2/traces.otf2),
 * written in parallel through OTF2's MPI collective callbacks: each rank
 * writes the locations of the ranks of the run it converts (run rank i by
 * process i % size, with their threads), reading only their files, through
 * lib/model's OTF2 writer over the shared first pass; rank 0 writes the
 * global definitions.
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>
#include <otf2/OTF2_MPI_Collectives.h>

#include "model/sink.h"
#include "model/source.h"
#include "model/vfdotf.h"
#include "util/errmsg.h"
#include "vfd2otf_cli.h"

struct share {
    int rank, size;
};

static int mine(void *ctx, size_t file)
{
    const struct share *s = ctx;

    return file % (size_t)s->size == (size_t)s->rank;
}

/* MPI_Allgatherv of every rank's buffer (int counts: at most 2 GiB in all;
 * every rank sees the same total, so all give up together). */
static int exchange(void *ctx, const void *buf, size_t len, void **all, size_t *alllen)
{
    const struct share *s = ctx;
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

/* Message tags of the matcher's requests (two uint64: file, chunk; file
 * UINT64_MAX: done) and of the answers (an int64 status, then the records). */
enum { TAG_REQ = 7711, TAG_REP = 7712 };

/* Rank 0, matching: the MPI records of chunk `chunk` of a file another
 * rank reads, or (file SIZE_MAX) tells every other rank that it is done. */
static int fetch(void *ctx, size_t file, size_t chunk, void **buf, size_t *len)
{
    const struct share *s = ctx;
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

/* ------------------------------------------------------------ OTF2 */

struct par {
    const struct share *sh;
    const struct vftr_source *src;
};

static int par_collectives(void *arg, void *archive)
{
    (void)arg;
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL) ==
           OTF2_SUCCESS ? 0 : -EIO;
}

/* The run's rank of process p, by its index among the ranks. */
static int par_mine(void *arg, uint32_t p)
{
    const struct par *pa = arg;
    const struct vftr_source_proc *proc = vftr_source_proc(pa->src, p);
    size_t n, index = 0;
    const struct vftr_source_proc *all = vftr_source_procs(pa->src, &n);

    if (!proc)
        return 0;
    for (size_t i = 0; i < n; i++)      /* ranks below p's, counted once */
        if (all[i].thread == 0 && all[i].rank < proc->rank)
            index++;
    return index % (size_t)pa->sh->size == (size_t)pa->sh->rank;
}

static int par_sum(void *arg, uint64_t *v, size_t n)
{
    (void)arg;
    return MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) ==
           MPI_SUCCESS ? 0 : -EIO;
}

/* The archive cli->stub names, written by every rank. */
static int write_otf2(struct vfd2otf_cli *cli, struct vftr_vfdconv *conv, const struct share *sh,
                      uint64_t *events)
{
    struct vftr_source_opts so = { NULL, cli->tool.name, (unsigned)cli->out.jobs };
    struct vftr_source *src = NULL;
    struct par pa = { sh, NULL };
    struct vftr_sink_par par = { par_collectives, par_mine, par_sum, sh->rank == 0, &pa };
    struct vftr_sink_opts ko = { .warn = sh->rank == 0 ? stderr : NULL, .prog = cli->tool.name,
                                 .par = &par };
    struct vftr_sink *k = NULL;
    struct vftr_proclist mine = VFTR_PROCLIST_INIT;
    char err[VFTR_ERRMSG_MAX + 512] = "";
    size_t np;
    const struct vftr_source_proc *p;
    int rc = vftr_source_open_vfdconv(&src, conv, &so, err, sizeof err);

    if (rc < 0)
        goto out;
    pa.src = src;
    p = vftr_source_procs(src, &np);
    for (size_t i = 0; i < np && rc == 0; i++)
        if (par_mine(&pa, p[i].token))
            rc = vftr_proclist_add(&mine, p[i].token, p[i].token);
    if (rc < 0)
        goto out;
    /* open and close are collective: every rank takes part, errors or not */
    rc = vftr_sink_open(&k, vftr_sink_format_named("otf2"), cli->stub, src, &ko, err,
                        sizeof err);
    if (rc == 0) {
        if (mine.nranges)
            rc = vftr_sink_feed(k, src, 0, UINT64_MAX, &mine, NULL, NULL, events, err,
                                sizeof err);
        {
            char cerr[VFTR_ERRMSG_MAX];
            int crc = vftr_sink_close(k, cerr, sizeof cerr);

            if (rc == 0 && crc < 0) {
                rc = crc;
                snprintf(err, sizeof err, "%s", cerr);
            }
        }
    }
out:
    if (rc < 0)
        fprintf(stderr, "%s: rank %d: %s\n", cli->tool.name, sh->rank, err);
    vftr_proclist_release(&mine);
    vftr_source_free(src);
    return rc;
}

static int ends_otf2(const char *s)
{
    size_t l = strlen(s);

    while (l > 1 && s[l - 1] == '/')
        l--;
    return l > 5 && strncmp(s + l - 5, ".otf2", 5) == 0;
}

int main(int argc, char **argv)
{
    struct vfd2otf_cli cli;
    struct vftr_vfdconv *conv = NULL;
    struct share sh = { 0, 1 };
    struct vftr_vfdconv_share share = { mine, exchange, &sh, fetch, serve };
    char err[1024] = "";
    unsigned long long mine_events = 0, events = 0;
    int rc, bad, anybad = 0;
    uint64_t ev = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &sh.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sh.size);

    rc = vfd2otf_cli_parse(&cli, "vfd2otf-mpi", 0, argc, argv);
    if (rc != VFD2OTF_CLI_GO)
        goto done;
    /* only rank 0 draws and reports; warnings come from rank 0 too */
    if (sh.rank != 0) {
        cli.out.progress = 0;
        cli.quiet = 1;
    }
    /* every rank ends the first pass with the same state, so with the same
     * verdict: no vote needed */
    rc = vfd2otf_cli_open_shared(&cli, &conv, &share, sh.rank == 0);
    if (rc != VFTR_EXIT_OK)
        goto done;
    /* rank 0 judges the snapshot options (the free space it sees could
     * change between two ranks' looks) and tells the others */
    if (sh.rank == 0)
        rc = vfd2otf_cli_snap_check(&cli, conv);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != VFTR_EXIT_OK)
        goto done;
    rc = 0;
    if (ends_otf2(cli.stub)) {
        if (cli.out.snap_flags) {
            if (sh.rank == 0)
                vftr_tool_usage_fail(&cli.tool, stderr, "snapshots and summaries are OTF "
                                     "records: not with an OTF2 output");
            rc = VFTR_EXIT_USAGE;
            goto done;
        }
        rc = write_otf2(&cli, conv, &sh, &ev);
    } else {
    if (sh.rank == 0)
        rc = vftr_vfdotf_definitions(conv, &cli.out, err, sizeof err);
    if (rc == 0 && cli.out.snap_flags) {
        /* snapshots need every event in one time order: rank 0 alone */
        if (sh.rank == 0)
            rc = vftr_vfdotf_snap_pass(conv, &cli.out, &ev, err, sizeof err);
    } else if (rc == 0 && (uint32_t)sh.rank < vftr_vfdotf_nstreams(conv, &cli.out))
        rc = vftr_vfdotf_streams(conv, &cli.out, (uint32_t)sh.rank + 1, (uint32_t)sh.size, &ev, err,
                            sizeof err);
    if (rc < 0)
        fprintf(stderr, "%s: rank %d: %s\n", cli.tool.name, sh.rank, err);
    }
    mine_events = ev;
    bad = rc < 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Reduce(&mine_events, &events, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (anybad)
        rc = VFTR_EXIT_ERROR;
    else
        rc = sh.rank == 0 ? vfd2otf_cli_report(&cli, conv, events) : VFTR_EXIT_OK;
done:
    vftr_vfdconv_free(conv);
    vfd2otf_cli_release(&cli);
    MPI_Finalize();
    return rc;
}
