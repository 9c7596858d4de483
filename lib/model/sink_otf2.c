/*
 * sink_otf2.c — the OTF2 writer of sink.h, through libotf2 (otf2map.h says
 * how the model maps and what vftr adds).
 *
 * The archive: OUT/traces.otf2 (OUT names the directory, or OUT itself is
 * DIR/traces.otf2).  A location per process (id = token - 1), a location
 * group per rank (id = rank index, named by the rank's process) under one
 * system tree node; a region per function (paradigm from its group: MPI,
 * OpenMP, user; role from its name; source file and line); a REGIONS group
 * per function group; the ranks' first locations as MPI's COMM_LOCATIONS
 * group and a COMM_GROUP and Comm per communicator, plus, when an event
 * needs it, one Comm of all ranks for messages whose communicator the
 * trace does not define (or does not hold the peer's rank); a metric
 * member and class per counter.  Regions, groups, Comms and metrics are
 * numbered densely from 0 in the model's order (their place in its
 * arrays), as OTF2's readers expect (otf2-print warns of "out of order"
 * definitions otherwise, and readers that keep definitions in arrays
 * indexed by id need it): a model read from OTF2 keeps its ids, one with
 * sparse tokens (OTF) is renumbered.
 *
 * Events: Enter, Leave; MpiSend / MpiRecv with the peer's rank in the
 * communicator ("vftr:peer" when the peer is a thread); MpiCollectiveBegin
 * at the begin and MpiCollectiveEnd with the operation, root and sizes at
 * the end ("vftr:match" on both); Metric; file operations as otf2map.h
 * says (IoOperationBegin / Complete for reads, writes and syncs, a point
 * event at the end for the rest, "vftr:match", "vftr:handle" and
 * "vftr:io_operation" on each; a begin that names no operation, OTF's,
 * is written at its end).  An OTF CollectiveOperation
 * record (one record, no begin), collectives OTF2 has no operation for and
 * file operations OTF2 has no record for (rename, lock, unlock, other) are
 * left out, with a warning at close.
 *
 * One-sided communication: an RmaWin per (communicator, tag) of the RMA
 * events, on the Comm that messages of that communicator use (named "MPI
 * window <tag>"); an RMA put or a put with remote end is an RmaPut, a get
 * an RmaGet (remote: the target's rank in the window's Comm), and an RMA
 * end an RmaOpCompleteBlocking with the matching id of the transfer the
 * model's match names, or without one the oldest transfer of the rank on
 * that window and target not yet ended.  Matching ids are numbered per
 * rank (location group), not per location: MPI completes a process's
 * transfers on a window whatever thread synchronises, so the completion
 * may lie on another location of the rank than its RmaPut / RmaGet.  The model has no window creation,
 * synchronisation or atomic kind: OTF2's RmaWinCreate / Destroy, RmaSync
 * and RmaAtomic records are not written (the reader takes an RmaAtomic as
 * a put and a get).  The events carry the sink's own window numbers, in
 * order of first use; the global RmaWin ids are the windows sorted by
 * (Comm id, tag), so that they do not depend on which process saw which
 * window first: when the two numberings differ, each location's local
 * definitions get an RMA_WIN mapping table (OTF2's readers apply it).  An
 * archive written by cooperating processes (vftr_sink_par) gathers every
 * process's windows at close (par->gather): all number them alike, the
 * master defines them, and the archive equals the one a single writer
 * makes.
 *
 * The global definitions go out at close, when each location's number of
 * events is known.  Memory: libotf2 keeps written event chunks in its pool
 * (128 MiB per archive) and flushes them to the files when it is full, so
 * a conversion's memory grows with the trace up to that and stays there.
 */
#include "sink_impl.h"

#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "grow.h"
#include "otf2map.h"
#include "u64map.h"
#include "util/errmsg.h"

#define CHUNK_EVENTS (1u << 20)
#define CHUNK_DEFS (4u << 20)

struct o2loc {
    uint32_t token, root;             /* root: the rank's own process */
    uint32_t group;                   /* location group: rank index */
    OTF2_EvtWriter *w;
    uint64_t events;
    uint64_t rma_match;               /* the rank's process: the last RMA matching id
                                       * given on the rank's locations */
    int rma_used;                     /* its events name RMA windows */
};

struct o2pend {                       /* a collective begun, not ended */
    uint32_t loc;
    uint64_t match;
    int op;                           /* OTF2_CollectiveOp, -1 left out */
    uint32_t comm, root;
    uint64_t sent, received;
};

struct o2fpend {                      /* a file operation begun, not ended */
    uint32_t loc;
    uint64_t match;
    int written;                      /* its IoOperationBegin is written */
};


struct o2rmapend {                    /* an RMA transfer begun, not ended */
    uint32_t loc, win;                /* loc: the location that began it */
    uint32_t proc, comm, tag, target; /* the model's: who began it, window, remote */
    uint64_t match;                   /* the archive's (per rank) */
    uint64_t given;                   /* the model's (vftr_window_rma.match) */
};

struct o2comm {                       /* a model communicator */
    struct vftr_u64map rank;          /* rank process token -> rank */
};

struct otf2_sink {
    char *dir;                        /* archive path */
    int made_dir;                     /* the sink created it */
    OTF2_Archive *ar;
    const struct vftr_source *src;
    FILE *warn;
    const char *prog;
    struct o2loc *locs;
    size_t nlocs;
    struct vftr_u64map locmap;        /* process token -> loc index */
    /* a direct-mapped cache in front of locmap: events of many processes
     * interleave in time order, one entry per process would miss always */
    struct { uint32_t token, loc; } cache[256];
    uint32_t *roots;                  /* rank index -> root process token */
    size_t nroots;
    struct vftr_u64map rootmap;       /* root token -> rank index */
    struct o2comm *comms;             /* parallel to vftr_source_comms */
    size_t ncomms;
    const struct vftr_source_func *funcs;   /* a region's id: its index here */
    struct vftr_u64map counters;      /* counter token -> metric id */
    uint32_t world;                   /* the Comm of all ranks */
    int world_used;                   /* (written only when an event needed it) */
    OTF2_AttributeList *attrs;
    struct o2pend *pend;
    size_t npend, cappend;
    struct o2fpend *fpend;
    size_t nfpend, capfpend;
    uint64_t left_io;                 /* file operations OTF2 has no record for */
    uint64_t first, last;             /* event times written */
    int any;
    uint64_t left_collops, left_colls;
    /* windows: (Comm << 32 | tag), the local number its index (order of
     * first use); at close, the global ones (sorted, every process's) */
    uint64_t *wins, *gwins;
    size_t nwins, capwins, ngwins;
    struct vftr_u64map winmap;        /* (Comm << 32 | tag) -> local number */
    struct o2rmapend *rpend;          /* in the order begun */
    size_t nrpend, caprpend;
    const struct vftr_sink_par *par;  /* NULL: one writer */
    char why[VFTR_ERRMSG_MAX];
};

enum { ATTR_PEER = 0, ATTR_MATCH = 1, ATTR_HANDLE = 2, ATTR_IOOP = 3 };

static int failed(struct otf2_sink *k, const char *what)
{
    if (!k->why[0])
        snprintf(k->why, sizeof k->why, "%s: %s (%s)", k->dir, what, vftr_otf2_reason());
    return -EIO;
}

/* The location of process token, or NULL (a process the trace does not
 * define: its events are left out). */
static inline struct o2loc *loc_of(struct otf2_sink *k, uint32_t token)
{
    unsigned slot = (token ^ (token >> 20)) & 255u;
    long i;

    if (k->cache[slot].token == token && token)
        return &k->locs[k->cache[slot].loc];
    i = vftr_u64map_get(&k->locmap, token);
    if (i < 0)
        return NULL;
    k->cache[slot].token = token;
    k->cache[slot].loc = (uint32_t)i;
    return &k->locs[i];
}

static inline void seen(struct otf2_sink *k, uint64_t time)
{
    if (!k->any || time < k->first)
        k->first = time;
    if (!k->any || time > k->last)
        k->last = time;
    k->any = 1;
}

/* The region id of a function token (OTF2_UNDEFINED_REGION: the trace
 * defines no such function). */
static OTF2_RegionRef region(const struct otf2_sink *k, uint32_t function)
{
    const struct vftr_source_func *f = vftr_source_func(k->src, function);

    return f ? (OTF2_RegionRef)(f - k->funcs) : OTF2_UNDEFINED_REGION;
}

static int w_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process);

    if (!l || !l->w)
        return 0;
    seen(k, time);
    return OTF2_EvtWriter_Enter(l->w, NULL, time, region(k, function)) == OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

static int w_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process);

    if (!l || !l->w)
        return 0;
    seen(k, time);
    return OTF2_EvtWriter_Leave(l->w, NULL, time, region(k, function)) == OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

/* The Comm id and the rank in it of process peer, for a message or
 * collective on model communicator comm: the trace's communicator when it
 * has the peer's rank, else the Comm of all ranks.  Sets the "vftr:peer"
 * attribute when the peer is not its rank's own process. */
static int comm_rank(struct otf2_sink *k, uint32_t comm, uint32_t peer, uint32_t *id,
                     uint32_t *rank, int mark_thread)
{
    const struct vftr_source_comm *c = vftr_source_comm(k->src, comm);
    struct o2loc *pl = loc_of(k, peer);
    uint32_t root = pl ? pl->root : peer;
    long r = -1;

    if (c) {
        size_t ci = (size_t)(c - vftr_source_comms(k->src, &(size_t){ 0 }));

        r = vftr_u64map_get(&k->comms[ci].rank, root);
        *id = (uint32_t)ci;
    }
    if (r < 0) {
        r = vftr_u64map_get(&k->rootmap, root);
        *id = k->world;
        k->world_used = 1;
    }
    *rank = r < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)r;
    if (mark_thread && pl && pl->root != peer &&
        OTF2_AttributeList_AddUint64(k->attrs, ATTR_PEER, (uint64_t)peer - 1u) != OTF2_SUCCESS)
        return -ENOMEM;
    return 0;
}

static int w_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, sender);
    uint32_t id, rank;

    if (!l || !l->w)
        return 0;
    seen(k, time);
    if (comm_rank(k, comm, receiver, &id, &rank, 1) < 0)
        return -ENOMEM;
    return OTF2_EvtWriter_MpiSend(l->w, k->attrs, time, rank, id, tag, length) == OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

static int w_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, receiver);
    uint32_t id, rank;

    if (!l || !l->w)
        return 0;
    seen(k, time);
    if (comm_rank(k, comm, sender, &id, &rank, 1) < 0)
        return -ENOMEM;
    return OTF2_EvtWriter_MpiRecv(l->w, k->attrs, time, rank, id, tag, length) == OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

static int w_collop(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                    uint32_t root, uint64_t sent, uint64_t received, uint64_t duration)
{
    struct otf2_sink *k = arg;

    (void)time, (void)process, (void)op, (void)comm, (void)root, (void)sent, (void)received;
    (void)duration;
    k->left_collops++;
    return 0;
}

static int w_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t match,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process);
    struct o2pend p = { 0 };

    if (!l || !l->w)
        return 0;
    p.loc = (uint32_t)(l - k->locs);
    p.match = match;
    p.op = vftr_otf2_collop_of_name(vftr_source_collop_name(k->src, op));
    p.sent = sent;
    p.received = received;
    if (root)
        comm_rank(k, comm, root, &p.comm, &p.root, 0);
    else {
        comm_rank(k, comm, process, &p.comm, &p.root, 0);
        p.root = OTF2_UNDEFINED_UINT32;
    }
    if (vftr_reserve((void **)&k->pend, &k->cappend, k->npend, sizeof *k->pend) < 0)
        return -ENOMEM;
    k->pend[k->npend++] = p;
    if (p.op < 0) {
        k->left_colls++;
        return 0;
    }
    seen(k, time);
    if (OTF2_AttributeList_AddUint64(k->attrs, ATTR_MATCH, match) != OTF2_SUCCESS)
        return -ENOMEM;
    return OTF2_EvtWriter_MpiCollectiveBegin(l->w, k->attrs, time) == OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

static int w_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t match)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process);
    uint32_t li;
    size_t i;

    if (!l || !l->w)
        return 0;
    li = (uint32_t)(l - k->locs);
    for (i = k->npend; i > 0; i--)
        if (k->pend[i - 1].loc == li && k->pend[i - 1].match == match)
            break;
    if (i == 0) {
        k->left_colls++;                /* an end without begin */
        return 0;
    }
    struct o2pend p = k->pend[i - 1];
    memmove(&k->pend[i - 1], &k->pend[i], (k->npend - i) * sizeof *k->pend);
    k->npend--;
    if (p.op < 0)
        return 0;
    seen(k, time);
    if (OTF2_AttributeList_AddUint64(k->attrs, ATTR_MATCH, match) != OTF2_SUCCESS)
        return -ENOMEM;
    return OTF2_EvtWriter_MpiCollectiveEnd(l->w, k->attrs, time, (OTF2_CollectiveOp)p.op, p.comm,
                                           p.root, p.sent, p.received) == OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

static int w_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process);
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue v;

    long m = vftr_u64map_get(&k->counters, counter);

    if (!l || !l->w || m < 0)
        return 0;
    seen(k, time);
    v.unsigned_int = value;
    return OTF2_EvtWriter_Metric(l->w, NULL, time, (OTF2_MetricRef)m, 1, &type, &v) ==
           OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

/* The local number of the window (Comm id, tag), or -ENOMEM. */
static long rma_win(struct otf2_sink *k, uint32_t comm, uint32_t tag)
{
    uint64_t key = (uint64_t)comm << 32 | tag;
    long i = vftr_u64map_get(&k->winmap, key);

    if (i >= 0)
        return i;
    if (vftr_reserve((void **)&k->wins, &k->capwins, k->nwins, sizeof *k->wins) < 0 ||
        vftr_u64map_put(&k->winmap, key, (uint32_t)k->nwins) < 0)
        return -ENOMEM;
    k->wins[k->nwins] = key;
    return (long)k->nwins++;
}

/* Whether the model's END r, on location l, ends the pending transfer p:
 * the one it names (r->match, unique in the rank), else (OTF 1.x input
 * without vftr's matching id) every one of the window that the END's
 * origin began (to its target, when the END says one). */
static int rma_ends(const struct otf2_sink *k, const struct o2loc *l, uint32_t process,
                    const struct vftr_window_rma *r, const struct o2rmapend *p)
{
    if (p->comm != r->comm || p->tag != r->tag)
        return 0;
    if (r->match)
        return k->locs[p->loc].group == l->group && p->given == r->match;
    return p->proc == (r->origin ? r->origin : process) && (!r->target || p->target == r->target);
}

static int w_rma(void *arg, uint64_t time, uint32_t process, const struct vftr_window_rma *r)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process), *rl;
    uint32_t id, rank, li;
    long win;
    OTF2_ErrorCode ec = OTF2_SUCCESS;

    if (!l || !l->w)
        return 0;
    seen(k, time);
    if (r->kind == VFTR_WINDOW_RMA_END) {
        /* in the order begun: ends come in that order (a synchronisation
         * ends all of a window's at once); an end of nothing begun writes
         * nothing */
        for (size_t i = 0; i < k->nrpend && ec == OTF2_SUCCESS;) {
            struct o2rmapend p = k->rpend[i];

            if (!rma_ends(k, l, process, r, &p)) {
                i++;
                continue;
            }
            memmove(&k->rpend[i], &k->rpend[i + 1], (k->nrpend - i - 1) * sizeof *k->rpend);
            k->nrpend--;
            ec = OTF2_EvtWriter_RmaOpCompleteBlocking(l->w, NULL, time, (OTF2_RmaWinRef)p.win,
                                                      p.match);
            if (r->match)
                break;
        }
        return ec == OTF2_SUCCESS ? 0 : failed(k, "cannot write the events");
    }
    if (comm_rank(k, r->comm, r->target, &id, &rank, 0) < 0 ||
        (win = rma_win(k, id, r->tag)) < 0)
        return -ENOMEM;
    li = (uint32_t)(l - k->locs);
    l->rma_used = 1;
    /* the rank's matching ids are numbered on its own process's location
     * (a synchronisation on one thread ends the transfers of the others) */
    if (!(rl = loc_of(k, l->root)))
        rl = l;
    if (vftr_reserve((void **)&k->rpend, &k->caprpend, k->nrpend, sizeof *k->rpend) < 0)
        return -ENOMEM;
    k->rpend[k->nrpend++] = (struct o2rmapend){ li, (uint32_t)win, process, r->comm, r->tag,
                                                r->target, ++rl->rma_match, r->match };
    ec = r->kind == VFTR_WINDOW_RMA_GET
         ? OTF2_EvtWriter_RmaGet(l->w, NULL, time, (OTF2_RmaWinRef)win, rank, r->bytes,
                                 rl->rma_match)
         : OTF2_EvtWriter_RmaPut(l->w, NULL, time, (OTF2_RmaWinRef)win, rank, r->bytes,
                                 rl->rma_match);
    return ec == OTF2_SUCCESS ? 0 : failed(k, "cannot write the events");
}

/* The IoOperationMode of a read, write or sync operation word, -1 for the
 * others. */
static int io_mode(uint32_t op)
{
    switch (op & 0x1fu) {
    case 2: return OTF2_IO_OPERATION_MODE_READ;
    case 3: return OTF2_IO_OPERATION_MODE_WRITE;
    case 8: return OTF2_IO_OPERATION_MODE_FLUSH;
    default: return -1;
    }
}

/* The attributes every I/O event carries. */
static int io_attrs(struct otf2_sink *k, const struct vftr_window_fileop *op)
{
    return OTF2_AttributeList_AddUint64(k->attrs, ATTR_MATCH, op->matching_id) == OTF2_SUCCESS &&
           OTF2_AttributeList_AddUint64(k->attrs, ATTR_HANDLE, op->handle) == OTF2_SUCCESS &&
           OTF2_AttributeList_AddUint64(k->attrs, ATTR_IOOP, op->operation) == OTF2_SUCCESS
           ? 0 : -ENOMEM;
}

static int io_begin(struct otf2_sink *k, struct o2loc *l, uint64_t time,
                    const struct vftr_window_fileop *op)
{
    uint32_t flags = ((op->operation & 64u) ? OTF2_IO_OPERATION_FLAG_NON_BLOCKING : 0) |
                     ((op->operation & 128u) ? OTF2_IO_OPERATION_FLAG_COLLECTIVE : 0);

    if (io_attrs(k, op) < 0)
        return -ENOMEM;
    return OTF2_EvtWriter_IoOperationBegin(l->w, k->attrs, time, op->file - 1u,
                                           (OTF2_IoOperationMode)io_mode(op->operation),
                                           (OTF2_IoOperationFlag)flags, op->bytes,
                                           op->matching_id) == OTF2_SUCCESS
           ? 0 : failed(k, "cannot write the events");
}

static int w_file_begin(void *arg, uint64_t time, uint32_t process,
                        const struct vftr_window_fileop *op)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process);
    int write = op->file && vftr_source_file(k->src, op->file) && io_mode(op->operation) >= 0;

    if (!l || !l->w)
        return 0;
    if (vftr_reserve((void **)&k->fpend, &k->capfpend, k->nfpend, sizeof *k->fpend) < 0)
        return -ENOMEM;
    k->fpend[k->nfpend++] = (struct o2fpend){ (uint32_t)(l - k->locs), op->matching_id, write };
    if (!write)
        return 0;       /* not known yet (OTF's begin names none) or not a transfer */
    seen(k, time);
    return io_begin(k, l, time, op);
}

/* The IoParadigm of file token f: the index of its group among the file
 * groups. */
static uint8_t io_paradigm(struct otf2_sink *k, uint32_t f)
{
    size_t n;
    const struct vftr_source_file *file = vftr_source_file(k->src, f);
    const struct vftr_source_name *g = vftr_source_filegroups(k->src, &n);

    for (size_t i = 0; file && i < n; i++)
        if (g[i].token == file->group)
            return (uint8_t)i;
    return 0;
}

static int w_file_end(void *arg, uint64_t time, uint32_t process,
                      const struct vftr_window_fileop *op)
{
    struct otf2_sink *k = arg;
    struct o2loc *l = loc_of(k, process);
    uint32_t li;
    int written = 0, ok;
    size_t i;

    if (!l || !l->w)
        return 0;
    li = (uint32_t)(l - k->locs);
    for (i = k->nfpend; i > 0; i--)
        if (k->fpend[i - 1].loc == li && k->fpend[i - 1].match == op->matching_id)
            break;
    if (i > 0) {
        written = k->fpend[i - 1].written;
        k->fpend[i - 1] = k->fpend[--k->nfpend];
    }
    if (!op->file || !vftr_source_file(k->src, op->file)) {
        k->left_io++;
        return 0;
    }
    seen(k, time);
    if (io_mode(op->operation) >= 0) {
        if (!written && io_begin(k, l, time, op) < 0)
            return -EIO;
        if (io_attrs(k, op) < 0)
            return -ENOMEM;
        ok = OTF2_EvtWriter_IoOperationComplete(l->w, k->attrs, time, op->file - 1u, op->bytes,
                                                op->matching_id) == OTF2_SUCCESS;
        return ok ? 0 : failed(k, "cannot write the events");
    }
    if (io_attrs(k, op) < 0)
        return -ENOMEM;
    switch (op->operation & 0x1fu) {
    case 0:
        ok = OTF2_EvtWriter_IoCreateHandle(l->w, k->attrs, time, op->file - 1u,
                                           OTF2_IO_ACCESS_MODE_READ_WRITE,
                                           OTF2_IO_CREATION_FLAG_NONE,
                                           OTF2_IO_STATUS_FLAG_NONE) == OTF2_SUCCESS;
        break;
    case 1:
        ok = OTF2_EvtWriter_IoDestroyHandle(l->w, k->attrs, time, op->file - 1u) == OTF2_SUCCESS;
        break;
    case 4:
        ok = OTF2_EvtWriter_IoSeek(l->w, k->attrs, time, op->file - 1u, 0,
                                   OTF2_IO_SEEK_FROM_CURRENT, 0) == OTF2_SUCCESS;
        break;
    case 5:
        ok = OTF2_EvtWriter_IoDeleteFile(l->w, k->attrs, time, io_paradigm(k, op->file),
                                         op->file - 1u) == OTF2_SUCCESS;
        break;
    case 7:
        ok = OTF2_EvtWriter_IoDuplicateHandle(l->w, k->attrs, time, op->file - 1u,
                                              op->file - 1u, OTF2_IO_STATUS_FLAG_NONE) ==
             OTF2_SUCCESS;
        break;
    default:
        OTF2_AttributeList_RemoveAllAttributes(k->attrs);
        k->left_io++;
        return 0;
    }
    return ok ? 0 : failed(k, "cannot write the events");
}

/* OTF's complete record: a begin and an end at its time. */
static int w_fileop(void *arg, uint64_t time, uint32_t process,
                    const struct vftr_window_fileop *op)
{
    int rc = w_file_begin(arg, time, process, op);

    return rc < 0 ? rc : w_file_end(arg, time, process, op);
}

/* ------------------------------------------------------------ strings */

struct strtab {
    OTF2_GlobalDefWriter *g;
    struct vftr_u64map map;           /* hash -> id */
    uint32_t next;
    int ok;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

/* The string id of s, written on first use.  (Two strings of one 64-bit
 * hash would share an id: the second gets its own, never looked up.) */
static uint32_t sref(struct strtab *t, const char *s)
{
    uint64_t h = hash(s ? s : "");
    long i = vftr_u64map_get(&t->map, h);

    if (i >= 0)
        return (uint32_t)i;
    t->ok &= OTF2_GlobalDefWriter_WriteString(t->g, t->next, s ? s : "") == OTF2_SUCCESS;
    if (vftr_u64map_put(&t->map, h, t->next) < 0)
        t->ok = 0;
    return t->next++;
}

/* ------------------------------------------------------------ close */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc,
                                void *caller, bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };


static void release(struct otf2_sink *k)
{
    for (size_t i = 0; i < k->ncomms; i++)
        vftr_u64map_release(&k->comms[i].rank);
    free(k->comms);
    free(k->wins);
    free(k->gwins);
    free(k->rpend);
    vftr_u64map_release(&k->winmap);
    vftr_u64map_release(&k->locmap);
    vftr_u64map_release(&k->rootmap);
    vftr_u64map_release(&k->counters);
    if (k->attrs)
        OTF2_AttributeList_Delete(k->attrs);
    free(k->locs);
    free(k->roots);
    free(k->pend);
    free(k->fpend);
    free(k->dir);
    free(k);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* Removes the archive's files (and its directory when the sink made it). */
static void remove_archive(const struct otf2_sink *k)
{
    char path[4200];

    snprintf(path, sizeof path, "%s/traces", k->dir);
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(path, sizeof path, "%s/traces.otf2", k->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/traces.def", k->dir);
    unlink(path);
    if (k->made_dir)
        rmdir(k->dir);
}

/* Every definition, now that the events are written. */
static int write_globals(struct otf2_sink *k)
{
    const struct vftr_source *src = k->src;
    const struct vftr_source_info *si = vftr_source_info(src);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(k->ar);
    struct strtab t = { g, VFTR_U64MAP_INIT, 0, g != NULL };
    size_t nf, ng, nc, nk;
    const struct vftr_source_func *f = vftr_source_funcs(src, &nf);
    const struct vftr_source_name *fg = vftr_source_groups(src, &ng);
    const struct vftr_source_comm *c = vftr_source_comms(src, &nc);
    const struct vftr_source_counter *ctr = vftr_source_counters(src, &nk);
    uint64_t *members = NULL;
    uint32_t maxg, empty;
    int used[3] = { 0 };
    int ok;

    if (!g)
        return -EIO;
    if (k->par)                       /* the events this process saw are not all */
        k->any = 0;
    ok = OTF2_GlobalDefWriter_WriteClockProperties(
             g, si->resolution ? si->resolution : 1000000000u, k->any ? k->first : si->first,
             k->any ? k->last - k->first : si->last - si->first,
             OTF2_UNDEFINED_TIMESTAMP) == OTF2_SUCCESS;
    empty = sref(&t, "");
    for (size_t i = 0; i < nf; i++) {
        int p = vftr_otf2_paradigm_of_group(vftr_source_group_name(src, f[i].group));

        used[p == OTF2_PARADIGM_MPI ? 0 : p == OTF2_PARADIGM_OPENMP ? 1 : 2] = 1;
    }
    {
        static const struct { OTF2_Paradigm p; const char *name; OTF2_ParadigmClass cls; } par[] = {
            { OTF2_PARADIGM_MPI, "MPI", OTF2_PARADIGM_CLASS_PROCESS },
            { OTF2_PARADIGM_OPENMP, "OpenMP", OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN },
            { OTF2_PARADIGM_USER, "user", OTF2_PARADIGM_CLASS_PROCESS },
        };
        for (int i = 0; i < 3; i++)
            if (used[i] || i == 0)      /* MPI: the communicators' paradigm */
                ok &= OTF2_GlobalDefWriter_WriteParadigm(g, par[i].p, sref(&t, par[i].name),
                                                         par[i].cls) == OTF2_SUCCESS;
    }
    ok &= OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_PEER, sref(&t, VFTR_OTF2_ATTR_PEER),
                                              sref(&t, "vftr: location of a message's peer "
                                                       "thread"),
                                              OTF2_TYPE_UINT64) == OTF2_SUCCESS;
    ok &= OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_MATCH, sref(&t, VFTR_OTF2_ATTR_MATCH),
                                              sref(&t, "vftr: matching id of a collective"),
                                              OTF2_TYPE_UINT64) == OTF2_SUCCESS;
    ok &= OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_HANDLE, sref(&t, VFTR_OTF2_ATTR_HANDLE),
                                              sref(&t, "vftr: handle of a file operation"),
                                              OTF2_TYPE_UINT64) == OTF2_SUCCESS;
    ok &= OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_IOOP, sref(&t, VFTR_OTF2_ATTR_IOOP),
                                              sref(&t, "vftr: OTF operation word of a file "
                                                       "operation"),
                                              OTF2_TYPE_UINT64) == OTF2_SUCCESS;
    ok &= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, sref(&t, "vftr"), sref(&t, "machine"),
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE) ==
          OTF2_SUCCESS;
    for (size_t r = 0; r < k->nroots; r++) {
        const struct vftr_source_proc *p = vftr_source_proc(src, k->roots[r]);

        ok &= OTF2_GlobalDefWriter_WriteLocationGroup(
                  g, (uint32_t)r, sref(&t, p ? p->name : ""), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                  OTF2_UNDEFINED_LOCATION_GROUP) == OTF2_SUCCESS;
        if (si->sample_interval > 0) {
            OTF2_AttributeValue v;

            v.uint64 = (uint64_t)(si->sample_interval * 1e9 + 0.5);
            ok &= OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                      g, (uint32_t)r, sref(&t, VFTR_OTF2_PROP_INTERVAL), OTF2_TYPE_UINT64, v) ==
                  OTF2_SUCCESS;
        }
    }
    for (size_t i = 0; i < k->nlocs; i++) {
        const struct vftr_source_proc *p = vftr_source_proc(src, k->locs[i].token);

        ok &= OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)k->locs[i].token - 1u,
                                                 sref(&t, p ? p->name : ""),
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, k->locs[i].events,
                                                 k->locs[i].group) == OTF2_SUCCESS;
    }
    for (size_t i = 0; i < nf; i++) {
        int p = vftr_otf2_paradigm_of_group(vftr_source_group_name(src, f[i].group));

        ok &= OTF2_GlobalDefWriter_WriteRegion(
                  g, (OTF2_RegionRef)i, sref(&t, f[i].name), sref(&t, f[i].name),
                  f[i].flags & VFTR_SOURCE_FN_PRECISE ? sref(&t, VFTR_OTF2_DESC_PRECISE) : empty,
                  (OTF2_RegionRole)vftr_otf2_region_role(p, f[i].name), (OTF2_Paradigm)p,
                  OTF2_REGION_FLAG_NONE, f[i].file ? sref(&t, f[i].file) : empty, f[i].line,
                  f[i].line) == OTF2_SUCCESS;
    }
    members = malloc((nf + k->nroots + 1) * sizeof *members);
    if (!members) {
        vftr_u64map_release(&t.map);
        return -ENOMEM;
    }
    for (size_t i = 0; i < ng; i++) {
        uint32_t n = 0;

        for (size_t r = 0; r < nf; r++)
            if (f[r].group == fg[i].token)
                members[n++] = r;
        ok &= OTF2_GlobalDefWriter_WriteGroup(
                  g, (OTF2_GroupRef)i, sref(&t, fg[i].name), OTF2_GROUP_TYPE_REGIONS,
                  (OTF2_Paradigm)vftr_otf2_paradigm_of_group(fg[i].name), OTF2_GROUP_FLAG_NONE, n,
                  members) == OTF2_SUCCESS;
    }
    /* MPI: the ranks' own locations, then a group per communicator */
    for (size_t r = 0; r < k->nroots; r++)
        members[r] = (uint64_t)k->roots[r] - 1u;
    maxg = (uint32_t)ng;              /* the groups after the REGIONS groups */
    ok &= OTF2_GlobalDefWriter_WriteGroup(g, maxg, sref(&t, "MPI ranks"),
                                          OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, (uint32_t)k->nroots, members) ==
          OTF2_SUCCESS;
    for (size_t i = 0; i < nc; i++) {
        uint32_t n = 0;

        for (uint32_t m = 0; m < c[i].n; m++) {
            long r = vftr_u64map_get(&k->rootmap, c[i].procs[m]);

            if (r >= 0)
                members[n++] = (uint64_t)r;
        }
        ok &= OTF2_GlobalDefWriter_WriteGroup(g, maxg + 1u + (uint32_t)i, sref(&t, c[i].name),
                                              OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                              OTF2_GROUP_FLAG_NONE, n, members) == OTF2_SUCCESS;
        ok &= OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)i, sref(&t, c[i].name),
                                             maxg + 1u + (uint32_t)i, OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE) == OTF2_SUCCESS;
    }
    for (size_t r = 0; r < k->nroots && k->world_used; r++)
        members[r] = r;
    if (k->world_used) {
        ok &= OTF2_GlobalDefWriter_WriteGroup(g, maxg + 1u + (uint32_t)nc, sref(&t, "all ranks"),
                                              OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                              OTF2_GROUP_FLAG_NONE, (uint32_t)k->nroots,
                                              members) == OTF2_SUCCESS;
        ok &= OTF2_GlobalDefWriter_WriteComm(g, k->world, sref(&t, "vftr: all ranks"),
                                             maxg + 1u + (uint32_t)nc, OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE) == OTF2_SUCCESS;
    }
    for (size_t i = 0; i < k->ngwins; i++) {
        char name[40];

        snprintf(name, sizeof name, "MPI window %u", (uint32_t)k->gwins[i]);
        ok &= OTF2_GlobalDefWriter_WriteRmaWin(g, (OTF2_RmaWinRef)i, sref(&t, name),
                                               (OTF2_CommRef)(k->gwins[i] >> 32),
                                               OTF2_RMA_WIN_FLAG_NONE) == OTF2_SUCCESS;
    }
    for (size_t i = 0; i < nk; i++) {
        OTF2_MetricMemberRef m = (OTF2_MetricMemberRef)i;

        ok &= OTF2_GlobalDefWriter_WriteMetricMember(
                  g, m, sref(&t, ctr[i].name), empty, OTF2_METRIC_TYPE_OTHER,
                  (OTF2_MetricMode)vftr_otf2_metric_mode(ctr[i].properties), OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
                  sref(&t, ctr[i].unit)) == OTF2_SUCCESS;
        ok &= OTF2_GlobalDefWriter_WriteMetricClass(g, m, 1, &m, OTF2_METRIC_ASYNCHRONOUS,
                                                    OTF2_RECORDER_KIND_ABSTRACT) == OTF2_SUCCESS;
    }
    {
        /* file I/O: an IoParadigm per file group, an IoRegularFile and an
         * IoHandle per file */
        size_t nfl, nfg;
        const struct vftr_source_file *fl = vftr_source_files(src, &nfl);
        const struct vftr_source_name *fgr = vftr_source_filegroups(src, &nfg);

        for (size_t i = 0; i < nfg && i < 255; i++)
            ok &= OTF2_GlobalDefWriter_WriteIoParadigm(
                      g, (OTF2_IoParadigmRef)i, sref(&t, vftr_otf2_io_ident(fgr[i].name)),
                      sref(&t, fgr[i].name),
                      vftr_otf2_io_parallel(fgr[i].name) ? OTF2_IO_PARADIGM_CLASS_PARALLEL
                                                         : OTF2_IO_PARADIGM_CLASS_SERIAL,
                      OTF2_IO_PARADIGM_FLAG_NONE, 0, NULL, NULL, NULL) == OTF2_SUCCESS;
        for (size_t i = 0; i < nfl; i++)
            ok &= OTF2_GlobalDefWriter_WriteIoRegularFile(g, fl[i].token - 1u,
                                                          sref(&t, fl[i].name), 0) ==
                  OTF2_SUCCESS;
        for (size_t i = 0; i < nfl; i++)
            ok &= OTF2_GlobalDefWriter_WriteIoHandle(
                      g, fl[i].token - 1u, sref(&t, fl[i].name), fl[i].token - 1u,
                      io_paradigm(k, fl[i].token), OTF2_IO_HANDLE_FLAG_NONE, OTF2_UNDEFINED_COMM,
                      OTF2_UNDEFINED_IO_HANDLE) == OTF2_SUCCESS;
    }
    free(members);
    ok &= t.ok;
    vftr_u64map_release(&t.map);
    return ok ? 0 : -EIO;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* The global windows (k->gwins: every writer's, sorted, once each) and,
 * in *map (caller frees; NULL when there is nothing to map), the global id
 * of each local number when the two differ.  Collective for cooperating
 * writers: every process calls it, whatever happened before. */
static int rma_globals(struct otf2_sink *k, uint64_t **map)
{
    size_t n = 0;
    int identity = 1;

    *map = NULL;
    if (k->par) {
        if (k->par->gather(k->par->arg, k->wins, k->nwins, &k->gwins, &n) < 0)
            return -EIO;
    } else if (k->nwins) {
        if (!(k->gwins = malloc(k->nwins * sizeof *k->gwins)))
            return -ENOMEM;
        memcpy(k->gwins, k->wins, k->nwins * sizeof *k->gwins);
        n = k->nwins;
    }
    if (n)
        qsort(k->gwins, n, sizeof *k->gwins, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (k->ngwins == 0 || k->gwins[k->ngwins - 1] != k->gwins[i])
            k->gwins[k->ngwins++] = k->gwins[i];
    if (!k->nwins)
        return 0;
    if (!(*map = malloc(k->nwins * sizeof **map)))
        return -ENOMEM;
    for (size_t i = 0; i < k->nwins; i++) {
        const uint64_t *g = bsearch(&k->wins[i], k->gwins, k->ngwins, sizeof *k->gwins,
                                    cmp_u64);

        (*map)[i] = (uint64_t)(g - k->gwins);  /* there: gwins holds wins */
        identity &= (*map)[i] == i;
    }
    if (identity) {
        free(*map);
        *map = NULL;
    }
    return 0;
}

/* Closes the event writers, writes the local definitions (RMA_WIN mapping
 * tables where needed) and the global ones and the anchor file. */
static int finish(struct otf2_sink *k)
{
    int ok = 1;
    uint64_t *winmap = NULL;

    for (size_t i = 0; i < k->nlocs; i++) {
        if (!k->locs[i].w)
            continue;
        ok &= OTF2_EvtWriter_GetNumberOfEvents(k->locs[i].w, &k->locs[i].events) == OTF2_SUCCESS;
        ok &= OTF2_Archive_CloseEvtWriter(k->ar, k->locs[i].w) == OTF2_SUCCESS;
        k->locs[i].w = NULL;
    }
    ok &= OTF2_Archive_CloseEvtFiles(k->ar) == OTF2_SUCCESS;
    if (rma_globals(k, &winmap) < 0)
        ok = 0;
    if (ok && OTF2_Archive_OpenDefFiles(k->ar) == OTF2_SUCCESS) {
        OTF2_IdMap *im = winmap ? OTF2_IdMap_CreateFromUint64Array(k->nwins, winmap, false)
                                : NULL;

        ok &= !winmap || im;
        for (size_t i = 0; i < k->nlocs; i++) {
            OTF2_DefWriter *dw;

            if (k->par && !k->par->mine(k->par->arg, k->locs[i].token))
                continue;
            dw = OTF2_Archive_GetDefWriter(k->ar, (uint64_t)k->locs[i].token - 1u);
            /* (a location without RMA events reads none of the mapping) */
            if (dw && im && k->locs[i].rma_used)
                ok &= OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_RMA_WIN, im) ==
                      OTF2_SUCCESS;
            ok &= dw && OTF2_Archive_CloseDefWriter(k->ar, dw) == OTF2_SUCCESS;
        }
        if (im)
            OTF2_IdMap_Free(im);
        ok &= OTF2_Archive_CloseDefFiles(k->ar) == OTF2_SUCCESS;
    } else {
        ok = 0;
    }
    if (k->par) {
        /* every process has counted its own locations' events */
        uint64_t *v = calloc(k->nlocs + 1, sizeof *v);

        for (size_t i = 0; v && i < k->nlocs; i++)
            v[i] = k->locs[i].events;
        if (v)
            v[k->nlocs] = (uint64_t)k->world_used;
        if (!v || k->par->sum(k->par->arg, v, k->nlocs + 1) < 0)
            ok = 0;
        for (size_t i = 0; v && i < k->nlocs; i++)
            k->locs[i].events = v[i];
        if (v)
            k->world_used = v[k->nlocs] != 0;
        free(v);
    }
    if (ok && (!k->par || k->par->master) && write_globals(k) < 0)
        ok = 0;
    ok &= OTF2_Archive_Close(k->ar) == OTF2_SUCCESS;
    k->ar = NULL;
    free(winmap);
    return ok ? 0 : -EIO;
}

static int w_close(void *impl, char *err, size_t errlen)
{
    struct otf2_sink *k = impl;
    int rc = finish(k);

    if (rc < 0) {
        vftr_errmsg(err, errlen, rc, "%s: cannot finish writing the archive (%s)", k->dir,
                    vftr_otf2_reason());
        remove_archive(k);
    } else if (k->warn && (k->left_collops || k->left_colls || k->left_io)) {
        if (k->left_collops)
            fprintf(k->warn, "%s: %s: warning: %llu single-record collective operations (OTF's "
                    "CollectiveOperation) left out: OTF2 has no such record\n", k->prog, k->dir,
                    (unsigned long long)k->left_collops);
        if (k->left_colls)
            fprintf(k->warn, "%s: %s: warning: %llu collectives of operations OTF2 does not "
                    "know left out\n", k->prog, k->dir, (unsigned long long)k->left_colls);
        if (k->left_io)
            fprintf(k->warn, "%s: %s: warning: %llu file operations OTF2 has no record for "
                    "(rename, lock, unlock, other) or of undefined files left out\n", k->prog,
                    k->dir, (unsigned long long)k->left_io);
    }
    release(k);
    return rc;
}

static void w_abort(void *impl)
{
    struct otf2_sink *k = impl;

    if (k->ar) {
        for (size_t i = 0; i < k->nlocs; i++)
            if (k->locs[i].w)
                OTF2_Archive_CloseEvtWriter(k->ar, k->locs[i].w);
        OTF2_Archive_CloseEvtFiles(k->ar);
        OTF2_Archive_Close(k->ar);
    }
    remove_archive(k);
    release(k);
}

static const char *w_why(void *impl)
{
    return ((struct otf2_sink *)impl)->why;
}

static const struct vftr_sink_ops otf2_ops = { w_close, w_abort, w_why };

/* ------------------------------------------------------------ open */

/* Locations, ranks and communicators of src. */
static int layout(struct otf2_sink *k)
{
    size_t np, nc;
    const struct vftr_source_comm *c = vftr_source_comms(k->src, &nc);
    const struct vftr_source_proc **p = vftr_source_procs_by_rank(k->src, &np);

    k->locs = calloc(np ? np : 1, sizeof *k->locs);
    k->roots = calloc(np ? np : 1, sizeof *k->roots);
    k->comms = calloc(nc ? nc : 1, sizeof *k->comms);
    if (!p || !k->locs || !k->roots || !k->comms) {
        free(p);
        return -ENOMEM;
    }
    for (size_t i = 0; i < np; i++) {
        if (i == 0 || p[i]->rank != p[i - 1]->rank) {
            k->roots[k->nroots] = p[i]->token;
            if (vftr_u64map_put(&k->rootmap, p[i]->token, (uint32_t)k->nroots) < 0)
                goto nomem;
            k->nroots++;
        }
        k->locs[k->nlocs] = (struct o2loc){ p[i]->token, k->roots[k->nroots - 1],
                                            (uint32_t)k->nroots - 1, NULL, 0, 0, 0 };
        if (vftr_u64map_put(&k->locmap, p[i]->token, (uint32_t)k->nlocs) < 0)
            goto nomem;
        k->nlocs++;
    }
    k->ncomms = nc;
    for (size_t i = 0; i < nc; i++) {
        for (uint32_t m = 0; m < c[i].n; m++)
            if (vftr_u64map_get(&k->comms[i].rank, c[i].procs[m]) < 0 &&
                vftr_u64map_put(&k->comms[i].rank, c[i].procs[m], m) < 0)
                goto nomem;
    }
    k->world = (uint32_t)nc;
    k->funcs = vftr_source_funcs(k->src, &(size_t){ 0 });
    size_t nk;
    const struct vftr_source_counter *ctr = vftr_source_counters(k->src, &nk);

    for (size_t i = 0; i < nk; i++)
        if (vftr_u64map_put(&k->counters, ctr[i].token, (uint32_t)i) < 0)
            goto nomem;
    free(p);
    return 0;
nomem:
    free(p);
    return -ENOMEM;
}

/* The archive directory of OUT: OUT itself, or the directory of
 * OUT = DIR/traces.otf2. */
static char *archive_dir(const char *path)
{
    size_t l = strlen(path);

    while (l > 1 && path[l - 1] == '/')
        l--;
    if (l >= 11 && strncmp(path + l - 11, "traces.otf2", 11) == 0 &&
        (l == 11 || path[l - 12] == '/'))
        return l == 11 ? strdup(".") : strndup(path, l - 12 ? l - 12 : 1);
    return strndup(path, l);
}

int vftr_sink_open_otf2(struct vftr_sink **out, const char *path, struct vftr_source *src,
                        const struct vftr_sink_opts *o, char *err, size_t errlen)
{
    struct otf2_sink *k = calloc(1, sizeof *k);
    const struct vftr_window_handler h = {
        .enter = w_enter, .leave = w_leave, .send = w_send, .recv = w_recv,
        .collop = w_collop, .coll_begin = w_coll_begin, .coll_end = w_coll_end,
        .counter = w_counter, .file_begin = w_file_begin, .file_end = w_file_end,
        .fileop = w_fileop, .rma = w_rma,
    };
    struct stat sb;
    char anchor[4200];
    int rc;

    if (!k || !(k->dir = archive_dir(path)) || !(k->attrs = OTF2_AttributeList_New())) {
        if (k)
            release(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    k->src = src;
    k->warn = o->warn;
    k->prog = o->prog ? o->prog : "vftr";
    k->par = o->par;
    vftr_otf2_quiet();
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", k->dir);
    rc = 0;
    if (!k->par || k->par->master) {
        if (stat(anchor, &sb) == 0) {
            /* OTF2 does not write over an archive: the old one goes first */
            remove_archive(k);
        }
        if (stat(k->dir, &sb) != 0) {
            if (mkdir(k->dir, 0777) != 0)
                rc = vftr_errmsg(err, errlen, -errno, "%s: cannot create the archive directory "
                                 "(%s)", k->dir, strerror(errno));
            else
                k->made_dir = 1;
        }
    }
    if (k->par) {
        /* all wait for the master's directory, and learn its verdict */
        uint64_t bad = rc < 0;

        if (k->par->sum(k->par->arg, &bad, 1) < 0 || (bad && rc == 0))
            rc = vftr_errmsg(err, errlen, -EIO, "%s: the archive directory could not be made",
                             k->dir);
    }
    if (rc < 0) {
        release(k);
        return rc;
    }
    if ((rc = layout(k)) < 0) {
        release(k);
        return vftr_errmsg(err, errlen, rc, "out of memory");
    }
    k->ar = OTF2_Archive_Open(k->dir, "traces", OTF2_FILEMODE_WRITE, CHUNK_EVENTS, CHUNK_DEFS,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!k->ar || OTF2_Archive_SetFlushCallbacks(k->ar, &flush_callbacks, NULL) != OTF2_SUCCESS ||
        (k->par ? k->par->collectives(k->par->arg, k->ar) != 0
                : OTF2_Archive_SetSerialCollectiveCallbacks(k->ar) != OTF2_SUCCESS) ||
        OTF2_Archive_SetCreator(k->ar, "vftr") != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(k->ar) != OTF2_SUCCESS) {
        rc = vftr_errmsg(err, errlen, -EIO, "%s: cannot open an OTF2 archive for writing (%s)",
                         k->dir, vftr_otf2_reason());
        w_abort(k);
        return rc;
    }
    for (size_t i = 0; i < k->nlocs; i++)
        if ((!k->par || k->par->mine(k->par->arg, k->locs[i].token)) &&
            !(k->locs[i].w = OTF2_Archive_GetEvtWriter(k->ar,
                                                       (uint64_t)k->locs[i].token - 1u))) {
            rc = vftr_errmsg(err, errlen, -EIO, "%s: cannot open the events of location %u (%s)",
                             k->dir, k->locs[i].token - 1u, vftr_otf2_reason());
            w_abort(k);
            return rc;
        }
    *out = vftr_sink_new(&otf2_ops, k, &h);
    if (!*out) {
        w_abort(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    return 0;
}
