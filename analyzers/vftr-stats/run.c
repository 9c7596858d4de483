/*
 * run.c — vftr-stats's analysis run in this thread: the whole trace through
 * lib/model's one analysis (vftr_analysis_run).  vftr-stats-mpi links
 * mpi/run_mpi.c in its place.
 */
#include "stats.h"

int stats_analysis_run(struct vftr_source *src, const struct vftr_analysis_opts *o,
                       struct vftr_analysis **out, char *err, size_t errlen)
{
    return vftr_analysis_run(src, o, out, err, errlen);
}

const struct vftr_vfdconv_share *stats_source_share(void)
{
    return NULL;
}
