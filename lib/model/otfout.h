/*
 * otfout.h — vftr's model written as OTF 1.x records: the one writer of
 * every definition and event record that both OTF routes write, vfd2otf's
 * fast path (vfdotf.c, from the conversion engine, also vfd2otf-mpi and
 * vfdcache) and vftr-convert's OTF sink (sink_otf.c, from any source).  Two
 * writers of one record drift apart; here a rule (the order of the
 * definitions, the mark of a sampled capture, the counters' group, a
 * collective's class, which process goes to which stream, how an RMA
 * transfer maps onto OTF's records) is said once.
 *
 * Definitions are given in source.h's terms (the model's, whatever the
 * trace was read from): vfdotf.c puts the engine's tables into them, the
 * sink hands over the source's.  Everything is borrowed for the call.
 *
 * Errors: 0 / -EIO when a record could not be written (lib/otf says no
 * more).  Threads: each call uses only the stream it is given.
 */
#ifndef VFTR_MODEL_OTFOUT_H
#define VFTR_MODEL_OTFOUT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "model/source.h"
#include "model/window.h"
#include "otf.h"

/* Buffers (1 MiB), zlib level compress (0: plain) and, with long_format,
 * OTF's keyword format for a stream just opened. */
void vftr_otfout_setup(OTF_WStream *ws, int compress, int long_format);

/*
 * The global definitions (stream 0) of a trace, in this order: creator,
 * comment (when not NULL), timer resolution (with a sampled capture's
 * key-value definitions and interval: interval > 0, seconds), processes
 * (procs: grouped by rank; written by rank, thread number, token, whatever
 * order a rank's threads have in procs, so that every route writes one
 * order: vfd2otf's engine numbers and lists threads as the run met them,
 * vftr-convert's source by number), process groups
 * (comms), function groups, source files and places (scls), functions (a
 * sampled capture's VFTR_SOURCE_FN_PRECISE ones marked with the key-value
 * pair source_otf.c reads; their place scls->func_scl[i]), collective
 * operations (collops; a writer that learns them from the events passes
 * none and calls vftr_otfout_collops before it closes the stream), file
 * groups, files, and counters (in one counter group).  Returns 0, -EIO
 * (a record not written) or -ENOMEM.
 */
struct vftr_otfout_defs {
    const char *creator;
    const char *comment;                       /* NULL: none */
    uint64_t resolution;                       /* ticks per second */
    double interval;                           /* sampling interval; 0: not sampled */
    const struct vftr_source_proc *procs;
    size_t nprocs;
    const struct vftr_source_comm *comms;
    size_t ncomms;
    const struct vftr_source_name *groups;
    size_t ngroups;
    const struct vftr_source_scls *scls;       /* func_scl[i] for funcs[i] */
    const struct vftr_source_func *funcs;
    size_t nfuncs;
    const struct vftr_source_name *collops;
    size_t ncollops;
    const struct vftr_source_name *filegroups;
    size_t nfilegroups;
    const struct vftr_source_file *files;
    size_t nfiles;
    const struct vftr_source_counter *counters;
    size_t ncounters;
    int rma_key;                               /* define the RMA matching id's key */
};
int vftr_otfout_defs(OTF_WStream *ws, const struct vftr_otfout_defs *d);

/* DefCollectiveOperation of each op (token, name): the class from the
 * name (vftr_vfd_coll_class_of_name), "collective N" for a name NULL. */
int vftr_otfout_collops(OTF_WStream *ws, const struct vftr_source_name *ops, size_t n);

/* The stream (1..m) of rank index i of `ranks` ranks written to m streams:
 * i * m / ranks + 1, so that a stream holds consecutive ranks. */
static inline uint32_t vftr_otfout_stream_of(size_t i, size_t ranks, uint32_t m)
{
    return (uint32_t)((uint64_t)i * m / ranks) + 1;
}

/*
 * The stream of each of the n processes of procs (sorted by rank, a rank's
 * threads with it) into stream[0..n-1], all threads of a rank in its rank's
 * stream; ranks: how many ranks procs holds (0: count them), m: streams
 * (0 or more than ranks: one per rank).  Returns the streams used.
 */
uint32_t vftr_otfout_streams(const struct vftr_source_proc *procs, size_t n, size_t ranks,
                             uint32_t m, uint32_t *stream);

/* Appends every process of procs with its stream (vftr_otfout_streams) to
 * the master control.  0, or -ENOMEM. */
int vftr_otfout_master(OTF_MasterControl *mc, const struct vftr_source_proc *procs, size_t n,
                       const uint32_t *stream);

/* ---------------------------------------------------------------- events
 * One record each, in the model's terms (the argument order of window.h's
 * handler, not OTF's); 0 or -EIO.  static inline: vfd2otf writes every
 * event through them. */

static inline int vftr_otfout_enter(OTF_WStream *ws, uint64_t time, uint32_t process,
                                    uint32_t function, uint32_t scl)
{
    return OTF_WStream_writeEnter(ws, time, function, process, scl) == 1 ? 0 : -EIO;
}

static inline int vftr_otfout_leave(OTF_WStream *ws, uint64_t time, uint32_t process,
                                    uint32_t function, uint32_t scl)
{
    return OTF_WStream_writeLeave(ws, time, function, process, scl) == 1 ? 0 : -EIO;
}

static inline int vftr_otfout_send(OTF_WStream *ws, uint64_t time, uint32_t sender,
                                   uint32_t receiver, uint32_t comm, uint32_t tag,
                                   uint32_t length)
{
    return OTF_WStream_writeSendMsg(ws, time, sender, receiver, comm, tag, length, 0) == 1
           ? 0 : -EIO;
}

static inline int vftr_otfout_recv(OTF_WStream *ws, uint64_t time, uint32_t receiver,
                                   uint32_t sender, uint32_t comm, uint32_t tag,
                                   uint32_t length)
{
    return OTF_WStream_writeRecvMsg(ws, time, receiver, sender, comm, tag, length, 0) == 1
           ? 0 : -EIO;
}

static inline int vftr_otfout_coll_begin(OTF_WStream *ws, uint64_t time, uint32_t process,
                                         uint32_t op, uint64_t match, uint32_t comm,
                                         uint32_t root, uint64_t sent, uint64_t received)
{
    return OTF_WStream_writeBeginCollectiveOperation(ws, time, process, op, match, comm, root,
                                                    sent, received, 0) == 1
           ? 0 : -EIO;
}

static inline int vftr_otfout_coll_end(OTF_WStream *ws, uint64_t time, uint32_t process,
                                       uint64_t match)
{
    return OTF_WStream_writeEndCollectiveOperation(ws, time, process, match) == 1 ? 0 : -EIO;
}

static inline int vftr_otfout_counter(OTF_WStream *ws, uint64_t time, uint32_t process,
                                      uint32_t counter, uint64_t value)
{
    return OTF_WStream_writeCounter(ws, time, process, counter, value) == 1 ? 0 : -EIO;
}

/* A file operation's begin and end (op: its file, matching id, handle,
 * operation and bytes; the duration is not OTF's for these two). */
static inline int vftr_otfout_file_begin(OTF_WStream *ws, uint64_t time, uint32_t process,
                                         uint64_t match)
{
    return OTF_WStream_writeBeginFileOperation(ws, time, process, match, 0) == 1 ? 0 : -EIO;
}

static inline int vftr_otfout_file_end(OTF_WStream *ws, uint64_t time, uint32_t process,
                                       const struct vftr_window_fileop *op)
{
    return OTF_WStream_writeEndFileOperation(ws, time, process, op->file, op->matching_id,
                                             op->handle, op->operation, op->bytes, 0) == 1
           ? 0 : -EIO;
}

/*
 * One-sided communication (window.h says what each kind holds): the record
 * of r->kind; an unknown kind writes nothing.  OTF's RMAEnd names a window
 * (communicator, tag) and whose transfers end (remote: r->origin when it
 * is not process, else 0, as OTF defines the field), not the transfer it
 * ends nor its target: vftr's matching id (r->match, per rank: the END may
 * lie on another thread's process than its PUT / GET) goes into the
 * record's key-value list under VFTR_VFDCONV_KV_RMA_MATCH, which
 * vftr_otfout_rma_key defines (once, in the definitions stream, before any
 * such record is read).  The reference tools read the records as they are
 * and print the pair.  Without a match (0) the plain record.
 */
int vftr_otfout_rma_key(OTF_WStream *def);
int vftr_otfout_rma(OTF_WStream *ws, uint64_t time, uint32_t process,
                    const struct vftr_window_rma *r);

#endif /* VFTR_MODEL_OTFOUT_H */
