/*
 * vfdmodel.c — see vfdmodel.h.
 */
#include "model/vfdmodel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_Definitions.h"
#include "vfd/vftr_vfd_ext.h"

void vftr_vfdmodel_release(struct vftr_vfdmodel *m)
{
    free(m->procs);
    free(m->comms);
    free(m->groups);
    free(m->funcs);
    free(m->scls.files);
    free(m->scls.locs);
    free(m->scls.func_scl);
    free(m->collops);
    free(m->filegroups);
    free(m->files);
    free(m->counters);
    memset(m, 0, sizeof *m);
}

/* calloc of at least one element, so that NULL means out of memory */
static void *table(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

/* The engine numbers the entries of its tables 1, 2, ...: token k is at
 * index k - 1. */
static void places(struct vftr_vfdmodel *m, const struct vftr_vfdconv *c,
                   const struct vftr_vfdconv_func *f)
{
    const struct vftr_vfdconv_sclfile *sf = vftr_vfdconv_sclfiles(c, &m->scls.nfiles);
    const struct vftr_vfdconv_scl *sc = vftr_vfdconv_scls(c, &m->scls.nlocs);

    for (size_t i = 0; i < m->scls.nfiles; i++)
        m->scls.files[i] = sf[i].name;
    for (size_t i = 0; i < m->scls.nlocs; i++) {
        m->scls.locs[i].file = sc[i].file;
        m->scls.locs[i].line = sc[i].line;
    }
    /* a function's place by name: OpenMP regions carry their pragma's */
    for (size_t i = 0; i < m->nfuncs; i++) {
        const struct vftr_vfdconv_scl *l =
            f[i].scl && f[i].scl <= m->scls.nlocs ? &sc[f[i].scl - 1] : NULL;

        m->scls.func_scl[i] = f[i].scl;
        for (size_t k = 0; l && !m->funcs[i].file && k < m->scls.nfiles; k++)
            if (sf[k].token == l->file) {
                m->funcs[i].file = sf[k].name;
                m->funcs[i].line = l->line;
            }
    }
}

int vftr_vfdmodel_init(struct vftr_vfdmodel *m, const struct vftr_vfdconv *c)
{
    const struct vftr_vfdconv_proc *p;
    const struct vftr_vfdconv_group *g;
    const struct vftr_vfdconv_func *f;
    const uint32_t *ops, *fg;
    const struct vftr_vfdconv_file *fl;
    const struct vftr_vfdconv_counter *ctr;

    memset(m, 0, sizeof *m);
    p = vftr_vfdconv_procs(c, &m->nprocs);
    g = vftr_vfdconv_groups(c, &m->ncomms);
    f = vftr_vfdconv_funcs(c, &m->nfuncs);
    ops = vftr_vfdconv_collops(c, &m->ncollops);
    fg = vftr_vfdconv_filegroups(c, &m->nfilegroups);
    fl = vftr_vfdconv_files(c, &m->nfiles);
    ctr = vftr_vfdconv_counters(c, &m->ncounters);
    m->ngroups = vftr_vfdconv_last_group(c) + 1 - VFTR_VFDCONV_GROUP_USER;
    vftr_vfdconv_sclfiles(c, &m->scls.nfiles);
    vftr_vfdconv_scls(c, &m->scls.nlocs);
    m->procs = table(m->nprocs, sizeof *m->procs);
    m->comms = table(m->ncomms, sizeof *m->comms);
    m->groups = table(m->ngroups, sizeof *m->groups);
    m->funcs = table(m->nfuncs, sizeof *m->funcs);
    m->scls.files = table(m->scls.nfiles, sizeof *m->scls.files);
    m->scls.locs = table(m->scls.nlocs, sizeof *m->scls.locs);
    m->scls.func_scl = table(m->nfuncs, sizeof *m->scls.func_scl);
    m->collops = table(m->ncollops, sizeof *m->collops);
    m->filegroups = table(m->nfilegroups, sizeof *m->filegroups);
    m->files = table(m->nfiles, sizeof *m->files);
    m->counters = table(m->ncounters, sizeof *m->counters);
    if (!m->procs || !m->comms || !m->groups || !m->funcs || !m->scls.files || !m->scls.locs ||
        !m->scls.func_scl || !m->collops || !m->filegroups || !m->files || !m->counters) {
        vftr_vfdmodel_release(m);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m->nprocs; i++)
        m->procs[i] = (struct vftr_source_proc){
            p[i].token, p[i].parent, p[i].rank, p[i].thread,
            p[i].incomplete ? VFTR_SOURCE_PROC_INCOMPLETE : 0, p[i].name,
        };
    for (size_t i = 0; i < m->ncomms; i++)
        m->comms[i] = (struct vftr_source_comm){ g[i].token, g[i].name, g[i].n, g[i].procs };
    for (size_t i = 0; i < m->ngroups; i++)
        m->groups[i] = (struct vftr_source_name){
            (uint32_t)i + VFTR_VFDCONV_GROUP_USER,
            vftr_vfdconv_group_name((uint32_t)i + VFTR_VFDCONV_GROUP_USER),
        };
    for (size_t i = 0; i < m->nfuncs; i++)
        m->funcs[i] = (struct vftr_source_func){
            .token = f[i].token, .group = f[i].group, .name = f[i].name,
            .flags = f[i].flags & VFTR_VFDCONV_FUNC_PRECISE ? VFTR_SOURCE_FN_PRECISE : 0,
        };
    places(m, c, f);
    for (size_t i = 0; i < m->ncollops; i++)
        m->collops[i] = (struct vftr_source_name){ ops[i], vftr_vfd_coll_name(ops[i]) };
    for (size_t i = 0; i < m->nfilegroups; i++)
        m->filegroups[i] = (struct vftr_source_name){ fg[i], vftr_vfdconv_filegroup_name(fg[i]) };
    for (size_t i = 0; i < m->nfiles; i++)
        m->files[i] = (struct vftr_source_file){ fl[i].token, fl[i].group, fl[i].name };
    /* a thread's count since its counters were opened, read at region
     * boundaries: accumulated from the start */
    for (size_t i = 0; i < m->ncounters; i++)
        m->counters[i] = (struct vftr_source_counter){
            ctr[i].token, ctr[i].name, ctr[i].unit,
            OTF_COUNTER_TYPE_ACC | OTF_COUNTER_SCOPE_START,
        };
    return 0;
}
