/*
 * vfdfiles.h — which files a run's .vfd operands stand for: the one rule
 * every tool that reads .vfd input follows (vfd2otf, vfd2otf-mpi, the trace
 * source of vftr-stats, vftr-dump and the others).
 *
 *   - A file operand is taken as it is (a .vfd, a .tmpvfd, anything).
 *   - A directory operand stands for its *.vfd files and for those of its
 *     *.tmpvfd files that belong to the same run: the traces of processes
 *     that did not end normally (killed, or still running).  Such a file is
 *     read up to its last whole chunk, with a warning that names it and its
 *     rank.  A .tmpvfd that names no rank or belongs to another run is
 *     skipped, with a warning that says why; nothing is skipped silently.
 *     Files are taken in name order.
 *
 * Warnings go to `warn` (may be NULL) as "PROG: PATH: ...".
 *   - Nothing is opened that is not a regular file (it could block for
 *     ever, lib/util/regfile.h): an operand that is neither a regular file
 *     nor a directory, or a directory's *.vfd entry that is not a regular
 *     file, is an error naming it; such a *.tmpvfd entry is skipped with a
 *     warning.
 *
 * Errors: 0 / -errno with a message in err: -ENOENT (no such operand, a
 * directory without a trace file), -ENODEV / -EISDIR (a file of the wrong
 * kind, see above), -ENOMEM.
 * Ownership: the list owns its paths; release with vftr_vfdfiles_release.
 */
#ifndef VFTR_MODEL_VFDFILES_H
#define VFTR_MODEL_VFDFILES_H

#include <stddef.h>
#include <stdio.h>

struct vftr_vfdfiles {
    char **path;
    size_t n, cap;
    size_t skipped;             /* .tmpvfd files of a directory left out */
};

#define VFTR_VFDFILES_INIT { NULL, 0, 0, 0 }

int vftr_vfdfiles_collect(struct vftr_vfdfiles *files, const char *const *operands, size_t n,
                          FILE *warn, const char *prog, char *err, size_t errlen);
void vftr_vfdfiles_release(struct vftr_vfdfiles *files);

/* Does the name end in ".vfd" or ".tmpvfd"? */
int vftr_vfdfiles_is_trace_name(const char *name);

#endif /* VFTR_MODEL_VFDFILES_H */
