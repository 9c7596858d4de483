/*
 * vfdmodel.h — the definitions of a run's conversion engine (vfdconv.h) in
 * the model's terms (source.h's structs): what the .vfd source
 * (source_vfd.c) adds to a source and what vfd2otf (vfdotf.c) hands the OTF
 * record writers (otfout.h), put one way: the precise mark of a sampled
 * capture's functions, a function's source place, the function groups up to
 * the last the run needs, the counters' properties, the names of
 * collective operations and file groups.
 *
 * Lifecycle: vftr_vfdmodel_init (0, or -ENOMEM with nothing to free),
 * vftr_vfdmodel_release.  The tables are the model's own; names and
 * communicators' process lists are borrowed from the engine, which must
 * outlive them.  Threads: the engine is only read.
 */
#ifndef VFTR_MODEL_VFDMODEL_H
#define VFTR_MODEL_VFDMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/source.h"
#include "model/vfdconv.h"

struct vftr_vfdmodel {
    struct vftr_source_proc *procs;        /* the engine's order: by rank, a rank's threads
                                            * as the run met them */
    size_t nprocs;
    struct vftr_source_comm *comms;
    size_t ncomms;
    struct vftr_source_name *groups;       /* function groups 1 .. vftr_vfdconv_last_group */
    size_t ngroups;
    struct vftr_source_func *funcs;        /* file, line: the place of an OpenMP region */
    size_t nfuncs;
    /* the engine's source files and places, with its tokens (file k + 1,
     * place k + 1); func_scl[i]: the place of funcs[i] */
    struct vftr_source_scls scls;
    struct vftr_source_name *collops;      /* in the order the run used them */
    size_t ncollops;
    struct vftr_source_name *filegroups;
    size_t nfilegroups;
    struct vftr_source_file *files;
    size_t nfiles;
    struct vftr_source_counter *counters;
    size_t ncounters;
};

int vftr_vfdmodel_init(struct vftr_vfdmodel *m, const struct vftr_vfdconv *c);
void vftr_vfdmodel_release(struct vftr_vfdmodel *m);

#endif /* VFTR_MODEL_VFDMODEL_H */
