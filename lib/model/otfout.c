/*
 * otfout.c — see otfout.h.  The records' bytes are lib/otf's business; the
 * rules of what goes into them are this file's.
 */
#include "model/otfout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/vfdconv.h"
#include "vfd/vftr_vfd_ext.h"

#define OTF_BUFFER (1u << 20)

void vftr_otfout_setup(OTF_WStream *ws, int compress, int long_format)
{
    OTF_WStream_setBufferSizes(ws, OTF_BUFFER);
    if (compress > 0) {
        OTF_WStream_setCompression(ws, (OTF_FileCompression)compress);
        OTF_WStream_setZBufferSizes(ws, OTF_BUFFER);
    }
    if (long_format)
        OTF_WStream_setFormat(ws, OTF_WSTREAM_FORMAT_LONG);
}

/* The timer resolution record, and for a sampled capture the key-value
 * definitions that mark it (source_otf.c reads them) with the interval
 * attached to that record.  Returns the key-value list for the marks of
 * the precise functions (the caller closes it), NULL when not sampled or
 * out of memory (then the plain record is written: a trace without marks
 * reads as every call recorded). */
static OTF_KeyValueList *timer(OTF_WStream *ws, uint64_t resolution, double interval, int *ok)
{
    OTF_KeyValueList *kv = interval > 0 ? OTF_KeyValueList_new() : NULL;

    if (!kv) {
        *ok &= OTF_WStream_writeDefTimerResolution(ws, resolution) == 1;
        return NULL;
    }
    *ok &= OTF_WStream_writeDefKeyValue(ws, VFTR_VFDCONV_KEY_INTERVAL, OTF_UINT64,
                                        VFTR_VFDCONV_KV_INTERVAL,
                                        "capture sampling interval in ns") == 1;
    *ok &= OTF_WStream_writeDefKeyValue(ws, VFTR_VFDCONV_KEY_PRECISE, OTF_UINT8,
                                        VFTR_VFDCONV_KV_PRECISE,
                                        "every call of the function was recorded") == 1;
    OTF_KeyValueList_appendUint64(kv, VFTR_VFDCONV_KEY_INTERVAL,
                                  (uint64_t)llround(interval * 1e9));
    *ok &= OTF_WStream_writeDefTimerResolutionKV(ws, resolution, kv) == 1;
    return kv;
}

/* Functions; a sampled capture's precise ones (kv not NULL) carry the mark:
 * every call of theirs is in the trace. */
static void functions(OTF_WStream *ws, const struct vftr_otfout_defs *d, OTF_KeyValueList *kv,
                      int *ok)
{
    for (size_t i = 0; i < d->nfuncs; i++) {
        const struct vftr_source_func *f = &d->funcs[i];
        uint32_t scl = d->scls ? d->scls->func_scl[i] : 0;

        if (kv && (f->flags & VFTR_SOURCE_FN_PRECISE)) {
            /* the list is emptied by each write that carries it */
            OTF_KeyValueList_appendUint8(kv, VFTR_VFDCONV_KEY_PRECISE, 1);
            *ok &= OTF_WStream_writeDefFunctionKV(ws, f->token, f->name, f->group, scl, kv) == 1;
        } else {
            *ok &= OTF_WStream_writeDefFunction(ws, f->token, f->name, f->group, scl) == 1;
        }
    }
}

/* The processes by rank, thread number and token.  One order for both
 * routes (vfd2otf's engine lists a rank's threads as the run met them,
 * which depends on the run's timing; a source's list is by number): the
 * same trace gives the same bytes, and the order is the one the numbers
 * say, as OTF's own master control file lists a stream's processes
 * ascending and as the threads are shown. */
static int processes(OTF_WStream *ws, const struct vftr_otfout_defs *d, int *ok)
{
    const struct vftr_source_proc **order = vftr_source_order_by_rank(d->procs, d->nprocs);

    if (!order)
        return -ENOMEM;
    for (size_t i = 0; i < d->nprocs; i++)
        *ok &= OTF_WStream_writeDefProcess(ws, order[i]->token, order[i]->name,
                                           order[i]->parent) == 1;
    free(order);
    return 0;
}

int vftr_otfout_defs(OTF_WStream *ws, const struct vftr_otfout_defs *d)
{
    OTF_KeyValueList *kv;
    int ok = 1;

    ok &= OTF_WStream_writeDefCreator(ws, d->creator) == 1;
    if (d->comment)
        ok &= OTF_WStream_writeDefinitionComment(ws, d->comment) == 1;
    kv = timer(ws, d->resolution, d->interval, &ok);
    if (processes(ws, d, &ok) < 0) {
        if (kv)
            OTF_KeyValueList_close(kv);
        return -ENOMEM;
    }
    for (size_t i = 0; i < d->ncomms; i++)
        ok &= OTF_WStream_writeDefProcessGroup(ws, d->comms[i].token, d->comms[i].name,
                                               d->comms[i].n, d->comms[i].procs) == 1;
    for (size_t i = 0; i < d->ngroups; i++)
        ok &= OTF_WStream_writeDefFunctionGroup(ws, d->groups[i].token, d->groups[i].name) == 1;
    if (d->scls) {
        for (size_t i = 0; i < d->scls->nfiles; i++)
            ok &= OTF_WStream_writeDefSclFile(ws, (uint32_t)i + 1, d->scls->files[i]) == 1;
        for (size_t i = 0; i < d->scls->nlocs; i++)
            ok &= OTF_WStream_writeDefScl(ws, (uint32_t)i + 1, d->scls->locs[i].file,
                                          d->scls->locs[i].line) == 1;
    }
    functions(ws, d, kv, &ok);
    if (kv)
        OTF_KeyValueList_close(kv);
    if (d->rma_key)
        ok &= vftr_otfout_rma_key(ws) == 0;
    ok &= vftr_otfout_collops(ws, d->collops, d->ncollops) == 0;
    for (size_t i = 0; i < d->nfilegroups; i++)
        ok &= OTF_WStream_writeDefFileGroup(ws, d->filegroups[i].token,
                                            d->filegroups[i].name) == 1;
    for (size_t i = 0; i < d->nfiles; i++)
        ok &= OTF_WStream_writeDefFile(ws, d->files[i].token, d->files[i].name,
                                       d->files[i].group) == 1;
    /* performance counters, all in group 1 */
    if (d->ncounters)
        ok &= OTF_WStream_writeDefCounterGroup(ws, 1, "counters") == 1;
    for (size_t i = 0; i < d->ncounters; i++)
        ok &= OTF_WStream_writeDefCounter(ws, d->counters[i].token, d->counters[i].name,
                                          d->counters[i].properties, 1,
                                          d->counters[i].unit) == 1;
    return ok ? 0 : -EIO;
}

int vftr_otfout_collops(OTF_WStream *ws, const struct vftr_source_name *ops, size_t n)
{
    int ok = 1;

    for (size_t i = 0; i < n; i++) {
        const char *name = ops[i].name;
        char buf[32];

        if (!name) {
            snprintf(buf, sizeof buf, "collective %u", ops[i].token);
            name = buf;
        }
        ok &= OTF_WStream_writeDefCollectiveOperation(ws, ops[i].token, name,
                                                      vftr_vfd_coll_class_of_name(name)) == 1;
    }
    return ok ? 0 : -EIO;
}

uint32_t vftr_otfout_streams(const struct vftr_source_proc *procs, size_t n, size_t ranks,
                             uint32_t m, uint32_t *stream)
{
    size_t ri = 0;

    if (ranks == 0)
        for (size_t i = 0; i < n; i++)
            ranks += i == 0 || procs[i].rank != procs[i - 1].rank;
    if (ranks == 0)
        return 0;
    if (m == 0 || m > ranks)
        m = (uint32_t)ranks;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && procs[i].rank != procs[i - 1].rank)
            ri++;
        stream[i] = vftr_otfout_stream_of(ri, ranks, m);
    }
    return m;
}

int vftr_otfout_master(OTF_MasterControl *mc, const struct vftr_source_proc *procs, size_t n,
                       const uint32_t *stream)
{
    for (size_t i = 0; i < n; i++)
        if (OTF_MasterControl_append(mc, stream[i], procs[i].token) != 1)
            return -ENOMEM;
    return 0;
}

int vftr_otfout_rma_key(OTF_WStream *def)
{
    return OTF_WStream_writeDefKeyValue(def, VFTR_VFDCONV_KEY_RMA_MATCH, OTF_UINT64,
                                        VFTR_VFDCONV_KV_RMA_MATCH,
                                        VFTR_VFDCONV_KV_RMA_MATCH_DESC) == 1
           ? 0 : -EIO;
}

int vftr_otfout_rma(OTF_WStream *ws, uint64_t time, uint32_t process,
                    const struct vftr_window_rma *r)
{
    OTF_KeyValueList *kv = NULL;
    int ok;

    /* a list per record: transfers are few beside the calls around them */
    if (r->match) {
        if (!(kv = OTF_KeyValueList_new()) ||
            OTF_KeyValueList_appendUint64(kv, VFTR_VFDCONV_KEY_RMA_MATCH, r->match) != 0) {
            if (kv)
                OTF_KeyValueList_close(kv);
            return -EIO;
        }
    }
    switch (r->kind) {
    case VFTR_WINDOW_RMA_PUT:
        ok = OTF_WStream_writeRMAPutKV(ws, time, process, r->origin, r->target, r->comm, r->tag,
                                       r->bytes, 0, kv);
        break;
    case VFTR_WINDOW_RMA_PUT_REMOTE_END:
        ok = OTF_WStream_writeRMAPutRemoteEndKV(ws, time, process, r->origin, r->target, r->comm,
                                                r->tag, r->bytes, 0, kv);
        break;
    case VFTR_WINDOW_RMA_GET:
        ok = OTF_WStream_writeRMAGetKV(ws, time, process, r->origin, r->target, r->comm, r->tag,
                                       r->bytes, 0, kv);
        break;
    case VFTR_WINDOW_RMA_END:
        /* OTF's remote is whose transfers end: 0 for the record's own
         * process (OTF_Writer.h: "if >0, ends RMA transfers on process
         * <remote>, instead of this <process>"; VampirTrace wrote 0 in
         * every RMAEnd, vtfilter takes a remote > 0 for a process), the
         * beginning thread's process when another thread of the rank
         * synchronised.  The transfer's target has no field here: the
         * matching id pairs the end with its PUT / GET, which names it. */
        ok = OTF_WStream_writeRMAEndKV(ws, time, process,
                                       r->origin && r->origin != process ? r->origin : 0,
                                       r->comm, r->tag, 0, kv);
        break;
    default:
        ok = 1;
        break;
    }
    if (kv)
        OTF_KeyValueList_close(kv);
    return ok == 1 ? 0 : -EIO;
}
