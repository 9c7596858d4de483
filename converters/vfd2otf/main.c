/*
 * vfd2otf — converts the .vfd files of one run (one per rank) into one
 * multi-stream OTF trace.  The engine is lib/model/vfdconv (reading,
 * matching, clock alignment, ordering), the OTF side lib/model/vfdotf.c; this file is
 * the command line.  See share/man/man1/vfd2otf.1 and share/doc/vfd2otf.md.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/vfdotf.h"
#include "vfd2otf_cli.h"

int main(int argc, char **argv)
{
    struct vfd2otf_cli cli;
    struct vftr_vfdconv *conv = NULL;
    char err[1024] = "";
    uint64_t events = 0;
    int rc;

    rc = vfd2otf_cli_parse(&cli, "vfd2otf", 1, argc, argv);
    if (rc != VFD2OTF_CLI_GO)
        goto out;
    rc = vfd2otf_cli_open(&cli, &conv);
    if (rc != VFTR_EXIT_OK)
        goto out;
    rc = vfd2otf_cli_snap_check(&cli, conv);
    if (rc != VFTR_EXIT_OK)
        goto out;
    rc = vftr_vfdotf_definitions(conv, &cli.out, err, sizeof err);
    if (rc == 0 && cli.out.snap_flags)
        rc = vftr_vfdotf_snap_pass(conv, &cli.out, &events, err, sizeof err);
    else if (rc == 0)
        rc = vftr_vfdotf_streams(conv, &cli.out, 1, 1, &events, err, sizeof err);
    if (rc < 0) {
        rc = vftr_tool_fail(&cli.tool, stderr, "%s", err);
        goto out;
    }
    rc = vfd2otf_cli_report(&cli, conv, events);
out:
    vftr_vfdconv_free(conv);
    vfd2otf_cli_release(&cli);
    return rc;
}
