/*
 * sink_otf.c — the OTF 1.x writer of sink.h, through lib/otf's write
 * streams and master control (as vfd2otf's vfdotf.c: no OTF_Writer, whose
 * DefVersion and DefUniqueId records a vfd2otf trace does not have).
 *
 * Laid out as vfd2otf lays out a run, by the same writers (otfout.h):
 * one stream per rank with its threads, the definitions of
 * vftr_otfout_defs, Enter and Leave with their function's source place, so
 * that a run's trace written through the model reads as the one vfd2otf
 * writes.  What differs: the creator, no comment, and the collective
 * operations, which are those the events used (a window or a choice of
 * processes may use fewer), written at the close.  A sampled capture keeps
 * its marks (the key-value pairs of source_otf.c).
 */
#include "sink_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf.h"

#include "grow.h"
#include "u64map.h"
#include "otfout.h"
#include "util/errmsg.h"

#define MAX_OPEN_FILES 128

struct otf_sink {
    char *stub;
    OTF_FileManager *fm;
    OTF_WStream *def;                 /* stream 0: the definitions */
    OTF_WStream **ws;                 /* stream s at ws[s - 1] */
    OTF_MasterControl *mc;
    struct vftr_u64map pmap;          /* process token -> stream - 1 */
    uint32_t last_proc;
    OTF_WStream *last_ws;
    const struct vftr_source *src;
    uint32_t nstreams;
    int compress;
    struct vftr_u64map scl;           /* function token -> scl token + 1 */
    struct vftr_u64map used;          /* collective operations met */
    int rma_key;                      /* the RMA matching id's key is defined */
    uint32_t *ops;
    size_t nops, capops;
    char why[VFTR_ERRMSG_MAX];
};

static int failed(struct otf_sink *k, const char *what)
{
    if (!k->why[0])
        snprintf(k->why, sizeof k->why, "%s.otf: %s", k->stub, what);
    return -EIO;
}

/* rc of an event writer (otfout.h), with the message of a failure */
static inline int written(struct otf_sink *k, int rc)
{
    return rc < 0 ? failed(k, "cannot write the events") : 0;
}

static inline uint32_t scl_of(const struct otf_sink *k, uint32_t function)
{
    long v = vftr_u64map_get(&k->scl, function);

    return v < 0 ? 0 : (uint32_t)v;
}

/* The stream of process (NULL: a process the trace does not define, whose
 * events are left out). */
static inline OTF_WStream *stream_of(struct otf_sink *k, uint32_t process)
{
    long i;

    if (process == k->last_proc && k->last_ws)
        return k->last_ws;
    i = vftr_u64map_get(&k->pmap, process);
    if (i < 0)
        return NULL;
    k->last_proc = process;
    return k->last_ws = k->ws[i];
}

#define WS(process)                                  \
    OTF_WStream *ws = stream_of(k, process);          \
    if (!ws)                                          \
        return 0

static int o_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct otf_sink *k = arg;
    WS(process);

    return written(k, vftr_otfout_enter(ws, time, process, function, scl_of(k, function)));
}

static int o_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct otf_sink *k = arg;
    WS(process);

    return written(k, vftr_otfout_leave(ws, time, process, function, scl_of(k, function)));
}

static int o_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct otf_sink *k = arg;
    WS(sender);

    return written(k, vftr_otfout_send(ws, time, sender, receiver, comm, tag, length));
}

static int o_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct otf_sink *k = arg;
    WS(receiver);

    return written(k, vftr_otfout_recv(ws, time, receiver, sender, comm, tag, length));
}

static int use_op(struct otf_sink *k, uint32_t op)
{
    if (vftr_u64map_get(&k->used, op) >= 0)
        return 0;
    if (vftr_reserve((void **)&k->ops, &k->capops, k->nops, sizeof *k->ops) < 0 ||
        vftr_u64map_put(&k->used, op, (uint32_t)k->nops) < 0)
        return -ENOMEM;
    k->ops[k->nops++] = op;
    return 0;
}

static uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int o_collop(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                    uint32_t root, uint64_t sent, uint64_t received, uint64_t duration)
{
    struct otf_sink *k = arg;
    WS(process);

    if (use_op(k, op) < 0)
        return -ENOMEM;
    return OTF_WStream_writeCollectiveOperation(ws, time, process, op, comm, root, clamp32(sent),
                                               clamp32(received), duration, 0) == 1
           ? 0 : failed(k, "cannot write the events");
}

static int o_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t match,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct otf_sink *k = arg;
    WS(process);

    if (use_op(k, op) < 0)
        return -ENOMEM;
    return written(k, vftr_otfout_coll_begin(ws, time, process, op, match, comm, root, sent,
                                             received));
}

static int o_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t match)
{
    struct otf_sink *k = arg;
    WS(process);

    return written(k, vftr_otfout_coll_end(ws, time, process, match));
}

static int o_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value)
{
    struct otf_sink *k = arg;
    WS(process);

    return written(k, vftr_otfout_counter(ws, time, process, counter, value));
}

static int o_file_begin(void *arg, uint64_t time, uint32_t process,
                        const struct vftr_window_fileop *op)
{
    struct otf_sink *k = arg;
    WS(process);

    return written(k, vftr_otfout_file_begin(ws, time, process, op->matching_id));
}

static int o_file_end(void *arg, uint64_t time, uint32_t process,
                      const struct vftr_window_fileop *op)
{
    struct otf_sink *k = arg;
    WS(process);

    return written(k, vftr_otfout_file_end(ws, time, process, op));
}

static int o_fileop(void *arg, uint64_t time, uint32_t process,
                    const struct vftr_window_fileop *op)
{
    struct otf_sink *k = arg;
    WS(process);

    return OTF_WStream_writeFileOperation(ws, time, op->file, process, op->handle,
                                          op->operation, op->bytes, op->duration, 0) == 1
           ? 0 : failed(k, "cannot write the events");
}

static int o_rma(void *arg, uint64_t time, uint32_t process, const struct vftr_window_rma *r)
{
    struct otf_sink *k = arg;
    WS(process);

    /* the key of the matching ids, defined before the first use (the
     * definitions stream is open until close) */
    if (r->match && !k->rma_key) {
        if (vftr_otfout_rma_key(k->def) < 0)
            return failed(k, "cannot write the definitions");
        k->rma_key = 1;
    }
    return written(k, vftr_otfout_rma(ws, time, process, r));
}

/* Closes every stream (and the file manager); 1 when all closed cleanly. */
static int close_streams(struct otf_sink *k)
{
    int ok = 1;

    if (k->def)
        ok &= OTF_WStream_close(k->def) == 1;
    k->def = NULL;
    for (uint32_t s = 0; k->ws && s < k->nstreams; s++)
        if (k->ws[s])
            ok &= OTF_WStream_close(k->ws[s]) == 1;
    free(k->ws);
    k->ws = NULL;
    if (k->mc)
        OTF_MasterControl_close(k->mc);
    k->mc = NULL;
    if (k->fm)
        OTF_FileManager_close(k->fm);
    k->fm = NULL;
    return ok;
}

static void release(struct otf_sink *k)
{
    close_streams(k);
    vftr_u64map_release(&k->pmap);
    vftr_u64map_release(&k->scl);
    vftr_u64map_release(&k->used);
    free(k->ops);
    free(k->stub);
    free(k);
}

/* Removes what the sink wrote (its streams' files, compressed or not). */
static void remove_files(const struct otf_sink *k)
{
    char path[4200];

    snprintf(path, sizeof path, "%s.otf", k->stub);
    unlink(path);
    for (uint32_t s = 0; s <= k->nstreams; s++) {
        const char *kind = s ? "events" : "def";

        snprintf(path, sizeof path, "%s.%x.%s", k->stub, s, kind);
        unlink(path);
        snprintf(path, sizeof path, "%s.%x.%s.z", k->stub, s, kind);
        unlink(path);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

static int o_close(void *impl, char *err, size_t errlen)
{
    struct otf_sink *k = impl;
    int ok = 1, rc;

    /* the collective operations the events used, in token order */
    if (k->nops) {
        struct vftr_source_name *ops = calloc(k->nops, sizeof *ops);

        qsort(k->ops, k->nops, sizeof *k->ops, cmp_u32);
        for (size_t i = 0; ops && i < k->nops; i++)
            ops[i] = (struct vftr_source_name){ k->ops[i],
                                                vftr_source_collop_name(k->src, k->ops[i]) };
        ok &= ops && vftr_otfout_collops(k->def, ops, k->nops) == 0;
        free(ops);
    }
    ok &= OTF_MasterControl_write(k->mc, k->stub) == 1;
    ok &= close_streams(k);
    rc = ok ? 0 : vftr_errmsg(err, errlen, -EIO, "%s.otf: cannot finish writing", k->stub);
    if (!ok)
        remove_files(k);
    release(k);
    return rc;
}

static void o_abort(void *impl)
{
    struct otf_sink *k = impl;

    close_streams(k);
    remove_files(k);
    release(k);
}

static const char *o_why(void *impl)
{
    return ((struct otf_sink *)impl)->why;
}

static const struct vftr_sink_ops otf_ops = { o_close, o_abort, o_why };

/* Streams (one per rank, its threads with it) and the master control;
 * procs: the source's processes by rank. */
static int open_streams(struct otf_sink *k, const struct vftr_source_proc *procs, size_t np)
{
    uint32_t *stream = calloc(np ? np : 1, sizeof *stream);
    int rc = 0;

    if (!stream)
        return -ENOMEM;
    k->nstreams = vftr_otfout_streams(procs, np, 0, 0, stream);
    for (size_t i = 0; rc == 0 && i < np; i++)
        rc = vftr_u64map_put(&k->pmap, procs[i].token, stream[i] - 1);
    if (rc == 0)
        rc = vftr_otfout_master(k->mc, procs, np, stream);
    free(stream);
    if (rc < 0)
        return -ENOMEM;
    k->ws = calloc(k->nstreams ? k->nstreams : 1, sizeof *k->ws);
    if (!k->ws)
        return -ENOMEM;
    for (uint32_t s = 0; s < k->nstreams; s++) {
        if (!(k->ws[s] = OTF_WStream_open(k->stub, s + 1, k->fm)))
            return -EIO;
        vftr_otfout_setup(k->ws[s], k->compress, 0);
    }
    return 0;
}

static int write_defs(struct otf_sink *k, const struct vftr_source *src,
                      const struct vftr_source_proc *procs, size_t np)
{
    const struct vftr_source_info *si = vftr_source_info(src);
    struct vftr_source_scls scls;
    struct vftr_otfout_defs d = {
        .creator = "vftr vftr-convert",
        .resolution = si->resolution ? si->resolution : 1000000000u,
        .interval = si->sample_interval,     /* a sampled capture says so */
        .procs = procs, .nprocs = np, .scls = &scls,
    };
    int rc = 0;

    d.comms = vftr_source_comms(src, &d.ncomms);
    d.groups = vftr_source_groups(src, &d.ngroups);
    d.funcs = vftr_source_funcs(src, &d.nfuncs);
    d.filegroups = vftr_source_filegroups(src, &d.nfilegroups);
    d.files = vftr_source_files(src, &d.nfiles);
    d.counters = vftr_source_counters(src, &d.ncounters);
    /* the collective operations come at the close, from the events */
    if (vftr_source_scls_init(src, &scls) < 0)
        return -ENOMEM;
    for (size_t i = 0; rc == 0 && i < d.nfuncs; i++)
        if (scls.func_scl[i])
            rc = vftr_u64map_put(&k->scl, d.funcs[i].token, scls.func_scl[i]);
    if (rc == 0)
        rc = vftr_otfout_defs(k->def, &d);
    vftr_source_scls_release(&scls);
    return rc;
}

int vftr_sink_open_otf(struct vftr_sink **out, const char *path, struct vftr_source *src,
                       const struct vftr_sink_opts *o, char *err, size_t errlen)
{
    struct otf_sink *k = calloc(1, sizeof *k);
    const struct vftr_window_handler h = {
        .enter = o_enter, .leave = o_leave, .send = o_send, .recv = o_recv,
        .collop = o_collop, .coll_begin = o_coll_begin, .coll_end = o_coll_end,
        .counter = o_counter, .file_begin = o_file_begin, .file_end = o_file_end,
        .fileop = o_fileop, .rma = o_rma,
    };
    size_t l = strlen(path), np;
    const struct vftr_source_proc **order = vftr_source_procs_by_rank(src, &np);
    struct vftr_source_proc *procs = order ? calloc(np ? np : 1, sizeof *procs) : NULL;
    int rc;

    if (!k || !procs) {
        free(procs);
        free(k);
        free(order);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    if (l > 4 && strcmp(path + l - 4, ".otf") == 0)
        l -= 4;
    k->stub = strndup(path, l);
    k->src = src;
    k->compress = o->compress;
    k->fm = OTF_FileManager_open(MAX_OPEN_FILES);
    k->mc = k->fm ? OTF_MasterControl_new(k->fm) : NULL;
    if (!k->stub || !k->mc) {
        release(k);
        free(order);
        free(procs);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    k->def = OTF_WStream_open(k->stub, 0, k->fm);
    if (!k->def) {
        rc = vftr_errmsg(err, errlen, -EIO, "%s.0.def: cannot open for writing", k->stub);
        o_abort(k);
        free(order);
        free(procs);
        return rc;
    }
    vftr_otfout_setup(k->def, k->compress, 0);
    for (size_t i = 0; i < np; i++)
        procs[i] = *order[i];
    free(order);
    rc = open_streams(k, procs, np);
    if (rc == 0)
        rc = write_defs(k, src, procs, np);
    free(procs);
    if (rc == 0 && !(*out = vftr_sink_new(&otf_ops, k, &h)))
        rc = -ENOMEM;
    if (rc < 0) {
        rc = rc == -ENOMEM ? vftr_errmsg(err, errlen, rc, "out of memory")
                           : vftr_errmsg(err, errlen, rc, "%s.otf: cannot open the streams or "
                                         "write the definitions", k->stub);
        o_abort(k);
        return rc;
    }
    return 0;
}
