/*
 * vfd2otf_cli.h — the command line shared by vfd2otf and vfd2otf-mpi: one
 * option table, the list of input files (operands or directories), opening
 * the conversion, and the closing report.  Messages go to stderr prefixed
 * with the tool's name; functions return exit codes (VFTR_EXIT_*).
 * Ownership: the cli struct owns the file list (vfd2otf_cli_release).
 */
#ifndef VFTR_CONVERTERS_VFD2OTF_CLI_H
#define VFTR_CONVERTERS_VFD2OTF_CLI_H

#include "model/vfdotf.h"
#include "util/opts.h"

#define VFD2OTF_CLI_GO (-1000)  /* parse: go on with the conversion */

struct vfd2otf_cli {
    struct vftr_tool tool;
    struct vftr_opt opts[24];
    struct vftr_vfdotf_opts out;
    const char *stub, *streams, *compress, *jobs;
    const char *breaks, *thumb;     /* -n, --thumbnail-samples */
    const char **times;             /* -t values, borrowed from argv */
    size_t ntimes;
    int quiet, no_align;
    int events_only;                /* --events-only */
    int snap_default;               /* snapshots and summaries by default, not asked for */
    char **files;
    size_t nfiles;
    char **argv_copy;
};

/* Parses argv.  default_snap: without snapshot options (and without
 * --events-only) write snapshots and summaries anyway (vfd2otf; not
 * vfd2otf-mpi, whose point is parallel streams while the snapshot pass is
 * one).  Returns VFD2OTF_CLI_GO, or the exit code (help, version, usage
 * error). */
int vfd2otf_cli_parse(struct vfd2otf_cli *cli, const char *name, int default_snap, int argc,
                      char **argv);
/* Reads the input files; VFTR_EXIT_OK and *conv, or an exit code after a
 * message. */
int vfd2otf_cli_open(struct vfd2otf_cli *cli, struct vftr_vfdconv **conv);
/* The same with the first pass shared between processes (vftr_vfdconv.h's
 * struct vftr_vfdconv_share, NULL: none); loud = 0: no warnings and no
 * error message (another process prints them). */
int vfd2otf_cli_open_shared(struct vfd2otf_cli *cli, struct vftr_vfdconv **conv,
                            const struct vftr_vfdconv_share *share, int loud);
/* The snapshot options against the run (vftr_vfdotf_snap_check), before
 * anything is written: VFTR_EXIT_OK, or the exit code after a message —
 * VFTR_EXIT_USAGE for more breaks than the run can hold or output past
 * the size limit.  Snapshots written by default (not asked for) that do
 * not pass are left out with a warning instead (VFTR_EXIT_OK). */
int vfd2otf_cli_snap_check(struct vfd2otf_cli *cli, const struct vftr_vfdconv *conv);
/* Prints the summary (unless --quiet) and the warnings about messages. */
int vfd2otf_cli_report(const struct vfd2otf_cli *cli, const struct vftr_vfdconv *conv,
                       uint64_t events);
void vfd2otf_cli_release(struct vfd2otf_cli *cli);

#endif /* VFTR_CONVERTERS_VFD2OTF_CLI_H */
