/*
 * vfd2otf-mpi — vfd2otf spread over MPI ranks: the same command line and the
 * same trace.  Every rank reads the definitions and MPI records of all files
 * (vftr_vfdconv_open: needed to number functions and match messages the
 * same way everywhere); the event streams are shared out round-robin (rank
 * k writes streams k+1, k+1+size, ...), each rank re-reading only the files
 * of its own streams; rank 0 writes the global definitions and the master
 * file and prints the summary.  With the snapshot options rank 0 does the
 * whole event pass (otfout_snap_pass): the engine needs one time order.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "otfout.h"
#include "vfd2otf_cli.h"

int main(int argc, char **argv)
{
    struct vfd2otf_cli cli;
    struct vftr_vfdconv *conv = NULL;
    char err[1024] = "";
    unsigned long long mine = 0, events = 0;
    int rank = 0, size = 1, rc, bad, anybad = 0;
    uint64_t ev = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    rc = vfd2otf_cli_parse(&cli, "vfd2otf-mpi", argc, argv);
    if (rc != VFD2OTF_CLI_GO)
        goto done;
    /* only rank 0 draws and reports; warnings come from rank 0 too */
    if (rank != 0) {
        cli.out.progress = 0;
        cli.quiet = 1;
    }
    if (rank == 0) {
        rc = vfd2otf_cli_open(&cli, &conv);
    } else {
        struct vftr_vfdconv_opts o = { NULL, cli.tool.name, cli.no_align };

        rc = vftr_vfdconv_open(&conv, (const char *const *)cli.files, cli.nfiles, &o, err,
                               sizeof err) < 0 ? VFTR_EXIT_ERROR : VFTR_EXIT_OK;
    }
    bad = rc != VFTR_EXIT_OK;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        rc = VFTR_EXIT_ERROR;
        goto done;
    }
    rc = 0;
    if (rank == 0)
        rc = otfout_definitions(conv, &cli.out, err, sizeof err);
    if (rc == 0 && cli.out.snap_flags) {
        /* snapshots need every event in one time order: rank 0 alone */
        if (rank == 0)
            rc = otfout_snap_pass(conv, &cli.out, &ev, err, sizeof err);
    } else if (rc == 0 && (uint32_t)rank < otfout_nstreams(conv, &cli.out))
        rc = otfout_streams(conv, &cli.out, (uint32_t)rank + 1, (uint32_t)size, &ev, err,
                            sizeof err);
    if (rc < 0)
        fprintf(stderr, "%s: rank %d: %s\n", cli.tool.name, rank, err);
    mine = ev;
    bad = rc < 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &events, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (anybad)
        rc = VFTR_EXIT_ERROR;
    else
        rc = rank == 0 ? vfd2otf_cli_report(&cli, conv, events) : VFTR_EXIT_OK;
done:
    vftr_vfdconv_free(conv);
    vfd2otf_cli_release(&cli);
    MPI_Finalize();
    return rc;
}
