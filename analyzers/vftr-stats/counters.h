/*
 * counters.h — vftr-stats --counters: the counters of a trace per call path
 * (lib/model/ctrpaths.h), printed as text or CSV.
 */
#ifndef VFTR_STATS_COUNTERS_H
#define VFTR_STATS_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/source.h"
#include "util/proclist.h"

/* Reads the events of [a, b) of the processes procs (NULL: all) of src and
 * prints one row per call path with counted calls: calls, then for each
 * counter its inclusive and exclusive sums, then the path ("main>solve").
 * csv: comma-separated with a header line.  0, or -errno with err (a trace
 * without counters: -ENODATA). */
int stats_counters(FILE *out, struct vftr_source *src, uint64_t a, uint64_t b,
                   const struct vftr_proclist *procs, int csv, char *err, size_t errlen);

#endif
