/* profile.c — see profile.h. */
#include <errno.h>
#include <stdlib.h>

#include "profile.h"
#include "u64map.h"

double vftr_imbalance(double max, double avg)
{
    if (max <= 0)
        return 0;
    return (max - avg) / max;
}

int vftr_profile_build(struct vftr_profile *p, const struct vftr_funcstat *fs, size_t n)
{
    struct vftr_u64map funcs = VFTR_U64MAP_INIT, procs = VFTR_U64MAP_INIT;
    struct vftr_profile_row *rows = calloc(n ? n : 1, sizeof *rows);
    size_t nrows = 0, nprocs = 0;
    uint64_t total = 0;
    int rc = -ENOMEM;

    if (!rows)
        goto out;
    for (size_t i = 0; i < n; i++) {
        long k = vftr_u64map_get(&funcs, fs[i].function);
        struct vftr_profile_row *row;

        if (vftr_u64map_get(&procs, fs[i].process) < 0) {
            if (vftr_u64map_put(&procs, fs[i].process, (uint32_t)nprocs) < 0)
                goto out;
            nprocs++;
        }
        if (k < 0) {
            if (vftr_u64map_put(&funcs, fs[i].function, (uint32_t)nrows) < 0)
                goto out;
            k = (long)nrows++;
            rows[k].function = fs[i].function;
            rows[k].excl_min = UINT64_MAX;
        }
        row = &rows[k];
        row->nprocs++;
        row->calls += fs[i].calls;
        row->excl += fs[i].excl;
        row->incl += fs[i].incl;
        if (fs[i].excl < row->excl_min)
            row->excl_min = fs[i].excl;
        if (fs[i].excl > row->excl_max)
            row->excl_max = fs[i].excl;
        total += fs[i].excl;
    }
    for (size_t k = 0; k < nrows; k++) {
        rows[k].excl_avg = (double)rows[k].excl / rows[k].nprocs;
        rows[k].imbalance = vftr_imbalance((double)rows[k].excl_max, rows[k].excl_avg);
    }
    p->rows = rows;
    p->nrows = nrows;
    p->total = total;
    p->nprocs = nprocs;
    rows = NULL;
    rc = 0;
out:
    free(rows);
    vftr_u64map_release(&funcs);
    vftr_u64map_release(&procs);
    if (rc < 0)
        *p = (struct vftr_profile)VFTR_PROFILE_INIT;
    return rc;
}

void vftr_profile_release(struct vftr_profile *p)
{
    if (!p)
        return;
    free(p->rows);
    *p = (struct vftr_profile)VFTR_PROFILE_INIT;
}
