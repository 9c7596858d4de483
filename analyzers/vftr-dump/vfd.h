/*
 * vfd.h — vftr-dump's printer of .vfd files (capture's raw traces): the
 * header, the definition tables and the events, one line per record, with
 * the selection options of the OTF side (--process selects threads,
 * --time counts from the file's start).  Internal to vftr-dump.
 */
#ifndef VFTR_DUMP_VFD_H
#define VFTR_DUMP_VFD_H

#include "util/opts.h"
#include "util/tracesel.h"

/* Section bits (the same values as the OTF side's VFTR_OTF_PRINT_*). */
struct vftr_dump_vfd_args {
    int header, defs, events, count_only;
    const struct vftr_tracesel *sel;
};

/* 1 when path names a .vfd file (its magic, or a .vfd name that cannot be
 * opened: the .vfd reader then reports why). */
int vftr_dump_is_vfd(const char *path);

/* Prints the file; returns the tool's exit code. */
int vftr_dump_vfd(const struct vftr_tool *tool, const struct vftr_dump_vfd_args *args,
                  const char *path);

#endif /* VFTR_DUMP_VFD_H */
