/*
 * otf2map.h — what vftr's trace model is in OTF2, one definition for the
 * OTF2 reader (source_otf2.c) and writer (sink_otf2.c), so the two cannot
 * drift apart.
 *
 * Identifiers: a model token t is OTF2 id t - 1 (regions, groups, comms,
 * metric members and classes, locations), so that a run's tokens come back
 * unchanged through a write and a read, and the dense ids other writers use
 * (0, 1, ...) become tokens 1, 2, ... .  A location id of UINT32_MAX or more
 * has no token of that form: the reader then numbers every location 1..n
 * in id order instead.
 *
 * vftr's own attributes (OTF2 Attribute definitions, by name; other readers
 * pass them over):
 *   "vftr:peer"   uint64 on MpiSend/MpiRecv: the peer's location when it is
 *                 not its rank's first location (OTF2 names a peer by its
 *                 rank in the communicator, which a thread does not have);
 *   "vftr:match"  uint64 on MpiCollectiveBegin/End: the model's matching id
 *                 (nonblocking collectives of one thread may end in another
 *                 order than they began); on I/O events the model's matching
 *                 id of the file operation;
 *   "vftr:handle" uint64 on I/O events: the model's handle (the open
 *                 instance, which OTF2's IoHandle definitions, one per file
 *                 in vftr's archives, do not tell apart);
 *   "vftr:io_operation" uint64 on I/O events: the model's operation word
 *                 (OTF_FILEOP_* with OTF_IOFLAG_*: a failed call, an
 *                 operation OTF2 records with another event's name).
 *
 * File I/O: a file group is an IoParadigm (identification "POSIX", "ISOC",
 * "MPI-IO" for vftr's groups, see vftr_otf2_io_ident), a file an
 * IoRegularFile and an IoHandle (id = token - 1); reads, writes and syncs
 * are IoOperationBegin / IoOperationComplete (mode READ, WRITE, FLUSH),
 * opening IoCreateHandle, closing IoDestroyHandle, seeking IoSeek, dup
 * IoDuplicateHandle, unlink IoDeleteFile (OTF2 has no begin for these: the
 * model gets them with no duration).
 * A sampled capture (source.h) says so by a LocationGroupProperty
 * "vftr.sample_interval_ns" (uint64) and by the description "vftr.precise"
 * of the regions whose every call was recorded.
 */
#ifndef VFTR_MODEL_OTF2MAP_H
#define VFTR_MODEL_OTF2MAP_H

#include <stdint.h>

#define VFTR_OTF2_ATTR_PEER "vftr:peer"
#define VFTR_OTF2_ATTR_MATCH "vftr:match"
#define VFTR_OTF2_PROP_INTERVAL "vftr.sample_interval_ns"
#define VFTR_OTF2_DESC_PRECISE "vftr.precise"

/* The OTF2 collective operation (OTF2_CollectiveOp) of a collective named
 * name ("MPI_Allreduce", case and the "MPI_" prefix do not matter); -1 when
 * OTF2 has none. */
int vftr_otf2_collop_of_name(const char *name);

/* The model's token and name for an OTF2 collective operation: vftr's
 * capture numbering (enum vftr_vfd_coll_op, names "MPI_Barrier", ...),
 * so that a .vfd run's collectives keep their tokens; operations vftr does
 * not record get 100 + op and OTF2's name. */
uint32_t vftr_otf2_collop_token(int otf2_op);
const char *vftr_otf2_collop_name(int otf2_op);

#define VFTR_OTF2_ATTR_HANDLE "vftr:handle"
#define VFTR_OTF2_ATTR_IOOP "vftr:io_operation"

/* The IoParadigm identification of a file group named group_name ("POSIX
 * I/O" -> "POSIX", "ISO C I/O" -> "ISOC", "MPI-IO" -> "MPI-IO", another name
 * itself), whether it is a parallel paradigm, and the group name of an
 * IoParadigm (ident and name as the archive has them: vftr's group names
 * for the identifications it knows, else name, else ident). */
const char *vftr_otf2_io_ident(const char *group_name);
int vftr_otf2_io_parallel(const char *group_name);
const char *vftr_otf2_io_group(const char *ident, const char *name);

/* The paradigm (OTF2_Paradigm) of a function group named group_name
 * ("MPI", "OpenMP", anything else: user code). */
int vftr_otf2_paradigm_of_group(const char *group_name);
/* A name for paradigm p when the trace has no Paradigm definition. */
const char *vftr_otf2_paradigm_name(int p);

/* The region role (OTF2_RegionRole) of function name in paradigm p:
 * OpenMP constructs by the kind in vftr's region names ("omp parallel
 * @file:line"), MPI functions by what they do, FUNCTION otherwise. */
int vftr_otf2_region_role(int paradigm, const char *name);

/* What a counter's values are, between OTF's counter properties
 * (OTF_COUNTER_TYPE_* | OTF_COUNTER_SCOPE_*) and OTF2's metric mode
 * (OTF2_MetricMode): accumulated / absolute and start / point / last /
 * next map one to one (ACC | START is ACCUMULATED_START).  OTF has no
 * relative values (OTF2's RELATIVE_* become ABS of the same scope) and
 * OTF2 no absolute values since the start (ABS | START becomes
 * ABSOLUTE_POINT).  Other bits of props (the value's data type) are not
 * OTF2's mode and are left out. */
uint32_t vftr_otf2_counter_props(int mode);
int vftr_otf2_metric_mode(uint32_t props);

/* Makes libotf2 quiet: its own error reports (printed to stderr by
 * default) are kept instead, the calling thread's last one readable with
 * vftr_otf2_reason() ("" when none).  The library's handler is process-wide:
 * vftr's is installed once, by whichever reader or writer comes first, and
 * never removed. */
void vftr_otf2_quiet(void);
const char *vftr_otf2_reason(void);

#endif /* VFTR_MODEL_OTF2MAP_H */
