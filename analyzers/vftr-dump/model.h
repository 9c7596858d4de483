/*
 * model.h — vftr-dump's printer of traces read through vftr's model (an
 * OTF2 archive): the model's definitions and events in OTF's record lines.
 * Internal to vftr-dump.
 */
#ifndef VFTR_DUMP_MODEL_H
#define VFTR_DUMP_MODEL_H

#include "util/opts.h"
#include "util/tracesel.h"

struct vftr_dump_model_args {
    unsigned kinds;                   /* VFTR_OTF_PRINT_DEFS | _EVENTS (others: nothing),
                                         | _NAMES (names after ids) */
    int count_only;
    struct vftr_tracesel *sel;        /* rank names resolved when the trace is open */
};

/* Prints the trace; returns the tool's exit code. */
int vftr_dump_model(const struct vftr_tool *tool, const struct vftr_dump_model_args *args,
                    const char *trace);

#endif /* VFTR_DUMP_MODEL_H */
