/*
 * vfd2otf-mpi — vfd2otf spread over MPI ranks: the same command line and the
 * same trace.
 *
 * First pass: file i is read by rank i % size only (in -j threads); what
 * the conversion must know of every file (definitions, threads, counts of
 * MPI records, clock offsets, chunk lists, warnings) is exchanged with one
 * MPI_Allgatherv (vftr_vfdconv_share), after which every rank holds the
 * same engine state and numbers everything alike.  Each rank then matches
 * the messages received by its files' processes, the sends to them coming
 * from their readers in rounds of MPI_Alltoallv (vftr_vfdconv_share's
 * owner and alltoall), so no rank opens a file outside its share; the
 * counts and exceptions go to all in a second exchange.
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
 * global definitions, the RMA windows among them, which the ranks gather
 * from each other at the end (par_gather).
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
#include "mpi/coll.h"
#include "mpi/vfdshare.h"
#include "util/errmsg.h"
#include "vfd2otf_cli.h"

/* ------------------------------------------------------------ OTF2 */

struct par {
    const struct vftr_mpi_vfdshare *sh;
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

/* The collectives below are coll.h's: a rank that is done waits in them
 * sleeping, not spinning on the core a busy rank needs. */
static int par_sum(void *arg, uint64_t *v, size_t n)
{
    (void)arg;
    if (n > INT_MAX)            /* alike on every rank: all give up */
        return -EOVERFLOW;
    return vftr_mpi_allreduce(v, (int)n, MPI_UINT64_T, MPI_SUM);
}

/* Every rank's v[0..n), in rank order, in all (all give up together). */
static int par_gather(void *arg, const uint64_t *v, size_t n, uint64_t **all, size_t *nall)
{
    void *b;
    size_t len;
    int rc;

    (void)arg;
    *all = NULL;
    *nall = 0;
    rc = vftr_mpi_allgather_bytes(v, n > SIZE_MAX / sizeof *v ? SIZE_MAX : n * sizeof *v, &b,
                                  &len);
    if (rc < 0)
        return rc;
    *all = b;
    *nall = len / sizeof *v;
    return 0;
}

/* The archive cli->stub names, written by every rank. */
static int write_otf2(struct vfd2otf_cli *cli, struct vftr_vfdconv *conv,
                      const struct vftr_mpi_vfdshare *sh,
                      uint64_t *events)
{
    struct vftr_source_opts so = { NULL, cli->tool.name, (unsigned)cli->out.jobs };
    struct vftr_source *src = NULL;
    struct par pa = { sh, NULL };
    struct vftr_sink_par par = { par_collectives, par_mine, par_sum, par_gather,
                                 sh->rank == 0, &pa };
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
    struct vftr_mpi_vfdshare sh;
    struct vftr_vfdconv_share share;
    char err[1024] = "";
    int rc;
    uint64_t ev = 0;

    MPI_Init(&argc, &argv);
    vftr_mpi_vfdshare_init(&sh, &share);

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
    if (vftr_mpi_bcast(&rc, 1, MPI_INT, 0) < 0)
        rc = VFTR_EXIT_ERROR;
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
    /* one collective for the vote and the count: the ranks done first wait
     * here (for rank 0's snapshot pass, the longest streams) sleeping */
    {
        unsigned long long v[2] = { rc < 0, ev };

        if (vftr_mpi_allreduce(v, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM) < 0 || v[0])
            rc = VFTR_EXIT_ERROR;
        else
            rc = sh.rank == 0 ? vfd2otf_cli_report(&cli, conv, v[1]) : VFTR_EXIT_OK;
    }
done:
    vftr_vfdconv_free(conv);
    vfd2otf_cli_release(&cli);
    MPI_Finalize();
    return rc;
}
