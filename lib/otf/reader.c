/*
 * reader.c — OTF_Reader: a whole trace through its master control file;
 * timed records of all streams merged by time (merge.c).
 *
 * The state of a read follows the reference's: one merge per kind of timed
 * records, shared by the sorted and the unsorted read of that kind, started
 * by the first read and dropped (so that the next read starts over at the
 * window's start) by OTF_Reader_setTimeInterval, OTF_Reader_setProcessStatus,
 * OTF_Reader_setProcessStatusAll and OTF_Reader_reset, but not by
 * OTF_Reader_enableProcess / OTF_Reader_disableProcess, whose change applies
 * to the records still to come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_Filenames.h"
#include "OTF_MasterControl.h"
#include "OTF_Reader.h"
#include "otf_dispatch.h"
#include "otf_internal.h"
#include "otf_processlist.h"
#include "otf_read_internal.h"
#include "otf_u32map.h"

enum { K_EVENTS, K_SNAPS, K_STATS, K_COUNT };

struct struct_OTF_Reader {
    char* namestub;                    /* owned, without ".otf" */
    OTF_FileManager* manager;          /* borrowed */
    OTF_MasterControl* mc;             /* owned */
    struct vftr_otf_proclist procs;    /* owned */
    vftr_otf_u32map streams;           /* id → OTF_RStream* (owned) */
    uint32_t buffersizes, zbuffersizes;
    uint64_t min, max;
    uint64_t limit;                    /* OTF_READ_MAXRECORDS: none */
    vftr_otf_merge merge[K_COUNT];
    int merging[K_COUNT];
    /* definitions and markers: where a limited read stopped */
    uint32_t def_next, marker_next;
};

OTF_Reader* OTF_Reader_open(const char* namestub, OTF_FileManager* manager)
{
    if (namestub == NULL || manager == NULL) {
        vftr_otf_seterr("OTF_Reader_open: %s is NULL", namestub ? "the file manager" : "the name");
        return NULL;
    }
    OTF_Reader* r = calloc(1, sizeof *r);
    if (r == NULL || (r->namestub = OTF_stripFilename(namestub)) == NULL) {
        free(r);
        vftr_otf_seterr("%s: out of memory", namestub);
        return NULL;
    }
    r->manager = manager;
    r->buffersizes = 1024u * 1024u;
    r->zbuffersizes = OTF_ZBUFFER_DEFAULTSIZE;
    r->max = UINT64_MAX;
    r->limit = OTF_READ_MAXRECORDS;
    r->mc = OTF_MasterControl_new(manager);
    if (r->mc == NULL || !OTF_MasterControl_read(r->mc, r->namestub))
        goto fail;
    if (OTF_MasterControl_getrCount(r->mc) == 0) {
        vftr_otf_seterr("%s.otf: the master control file lists no process", r->namestub);
        goto fail;
    }
    if (vftr_otf_proclist_init(&r->procs, r->mc) != 0) {
        vftr_otf_seterr("%s: out of memory for the process list", r->namestub);
        goto fail;
    }
    return r;
fail:
    if (r->mc)
        OTF_MasterControl_close(r->mc);
    free(r->namestub);
    free(r);
    return NULL;
}

/* The timed reads start over with their next call. */
static void stop_timed(OTF_Reader* r)
{
    for (int k = 0; k < K_COUNT; k++) {
        if (r->merging[k])
            vftr_otf_merge_release(&r->merge[k]);
        r->merging[k] = 0;
    }
}

static void stop_merges(OTF_Reader* r)
{
    stop_timed(r);
    r->def_next = r->marker_next = 0;
}

int OTF_Reader_closeAllStreams(OTF_Reader* r)
{
    if (r == NULL)
        return 0;
    stop_merges(r);
    for (uint32_t i = 0; i < r->streams.cap; i++)
        if (r->streams.keys[i] != UINT32_MAX)
            OTF_RStream_close((OTF_RStream*)r->streams.vals[i]);
    vftr_otf_u32map_release(&r->streams);
    return 1;
}

int OTF_Reader_close(OTF_Reader* r)
{
    if (r == NULL)
        return 0;
    OTF_Reader_closeAllStreams(r);
    vftr_otf_proclist_release(&r->procs);
    OTF_MasterControl_close(r->mc);
    free(r->namestub);
    free(r);
    return 1;
}

int OTF_Reader_setBufferSizes(OTF_Reader* r, uint32_t size)
{
    if (r == NULL || size < 64)
        return 0;
    r->buffersizes = size;
    return 1;
}

uint32_t OTF_Reader_getBufferSizes(OTF_Reader* r) { return r ? r->buffersizes : 0; }
void OTF_Reader_setZBufferSizes(OTF_Reader* r, uint32_t size) { if (r) r->zbuffersizes = size; }
uint32_t OTF_Reader_getZBufferSizes(OTF_Reader* r) { return r ? r->zbuffersizes : 0; }
OTF_MasterControl* OTF_Reader_getMasterControl(OTF_Reader* r) { return r ? r->mc : NULL; }

OTF_RStream* OTF_Reader_getStream(OTF_Reader* r, uint32_t id)
{
    if (r == NULL)
        return NULL;
    OTF_RStream* s = vftr_otf_u32map_get(&r->streams, id);
    if (s != NULL)
        return s;
    s = OTF_RStream_open(r->namestub, id, r->manager);
    if (s == NULL)
        return NULL;
    OTF_RStream_setBufferSizes(s, r->buffersizes);
    OTF_RStream_setZBufferSizes(s, r->zbuffersizes);
    if (vftr_otf_u32map_put(&r->streams, id, s) != 0) {
        OTF_RStream_close(s);
        vftr_otf_seterr("%s: out of memory", r->namestub);
        return NULL;
    }
    return s;
}

static int set_status(OTF_Reader* r, uint32_t p, uint8_t status)
{
    if (vftr_otf_proclist_set(&r->procs, p, status ? 1 : 0) != 0) {
        vftr_otf_seterr("%s: process %x is not in the trace", r->namestub, p);
        return 0;
    }
    return 1;
}

int OTF_Reader_setProcessStatus(OTF_Reader* r, uint32_t p, uint8_t status)
{
    if (r == NULL)
        return 0;
    stop_timed(r);
    return set_status(r, p, status);
}

int OTF_Reader_disableProcess(OTF_Reader* r, uint32_t p) { return r ? set_status(r, p, 0) : 0; }
int OTF_Reader_enableProcess(OTF_Reader* r, uint32_t p) { return r ? set_status(r, p, 1) : 0; }

uint8_t OTF_Reader_getProcessStatus(OTF_Reader* r, uint32_t p)
{
    return r ? vftr_otf_proclist_status(&r->procs, p) : 0;
}

int OTF_Reader_setProcessStatusAll(OTF_Reader* r, uint8_t status)
{
    if (r == NULL)
        return 0;
    stop_timed(r);
    vftr_otf_proclist_set_all(&r->procs, status ? 1 : 0);
    return 1;
}

void OTF_Reader_setTimeInterval(OTF_Reader* r, uint64_t minTime, uint64_t maxTime)
{
    if (r == NULL)
        return;
    r->min = minTime;
    r->max = maxTime;
    /* a new window starts every timed read over, each with a new search */
    stop_timed(r);
}

uint64_t OTF_Reader_getTimeIntervalMin(OTF_Reader* r) { return r ? r->min : 0; }
uint64_t OTF_Reader_getTimeIntervalMax(OTF_Reader* r) { return r ? r->max : 0; }
void OTF_Reader_setRecordLimit(OTF_Reader* r, uint64_t limit) { if (r) r->limit = limit; }
uint64_t OTF_Reader_getRecordLimit(OTF_Reader* r) { return r ? r->limit : 0; }

/* Back to the state after OTF_Reader_open: every process enabled, no
 * window, no record limit, every read from the start. */
void OTF_Reader_reset(OTF_Reader* r)
{
    if (r == NULL)
        return;
    OTF_Reader_closeAllStreams(r);
    vftr_otf_proclist_set_all(&r->procs, 1);
    r->min = 0;
    r->max = UINT64_MAX;
    r->limit = OTF_READ_MAXRECORDS;
}

static uint64_t limit_of(OTF_Reader* r)
{
    return r->limit == OTF_READ_MAXRECORDS ? UINT64_MAX : r->limit;
}

static OTF_RBuffer* buffer_of(OTF_RStream* s, int k)
{
    switch (k) {
    case K_EVENTS: return OTF_RStream_getEventBuffer(s);
    case K_SNAPS: return OTF_RStream_getSnapsBuffer(s);
    default: return OTF_RStream_getStatsBuffer(s);
    }
}

static const int kind_of[K_COUNT] = { VFTR_OTF_FILE_EVENT, VFTR_OTF_FILE_SNAP,
                                      VFTR_OTF_FILE_STAT };

/* Does stream entry e have an enabled process? */
static int stream_wanted(OTF_Reader* r, const OTF_MapEntry* e)
{
    for (uint32_t j = 0; j < e->n; j++)
        if (vftr_otf_proclist_status(&r->procs, e->values[j]))
            return 1;
    return 0;
}

static int start_merge(OTF_Reader* r, int k)
{
    uint32_t n = OTF_MasterControl_getCount(r->mc);
    OTF_RBuffer** rbs = calloc(n ? n : 1, sizeof *rbs);
    uint32_t* ids = calloc(n ? n : 1, sizeof *ids);
    if (rbs == NULL || ids == NULL) {
        free(rbs);
        free(ids);
        vftr_otf_seterr("%s: out of memory", r->namestub);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry* e = OTF_MasterControl_getEntryByIndex(r->mc, i);
        if (e == NULL || !stream_wanted(r, e))
            continue;
        OTF_RStream* s = OTF_Reader_getStream(r, e->argument);
        if (s == NULL)
            goto fail;
        /* the buffer stays open between reads: the merge positions it */
        rbs[i] = buffer_of(s, k);
        ids[i] = e->argument;
    }
    int rc = vftr_otf_merge_init(&r->merge[k], rbs, ids, n, n, kind_of[k], r->min, r->max);
    free(rbs);
    free(ids);
    if (rc != 0) {
        vftr_otf_seterr("%s: out of memory", r->namestub);
        return -1;
    }
    r->merging[k] = 1;
    return 0;
fail:
    free(rbs);
    free(ids);
    return -1;
}

static uint64_t read_timed(OTF_Reader* r, OTF_HandlerArray* h, int k, int sorted)
{
    if (r == NULL || h == NULL)
        return OTF_READ_ERROR;
    if (!r->merging[k] && start_merge(r, k) < 0)
        return OTF_READ_ERROR;
    if (sorted)
        return vftr_otf_merge_read(&r->merge[k], h, &r->procs, limit_of(r));
    return vftr_otf_merge_read_unsorted(&r->merge[k], h, &r->procs, limit_of(r));
}

uint64_t OTF_Reader_readEvents(OTF_Reader* r, OTF_HandlerArray* h) { return read_timed(r, h, K_EVENTS, 1); }
uint64_t OTF_Reader_readSnapshots(OTF_Reader* r, OTF_HandlerArray* h) { return read_timed(r, h, K_SNAPS, 1); }
uint64_t OTF_Reader_readStatistics(OTF_Reader* r, OTF_HandlerArray* h) { return read_timed(r, h, K_STATS, 1); }
uint64_t OTF_Reader_readEventsUnsorted(OTF_Reader* r, OTF_HandlerArray* h) { return read_timed(r, h, K_EVENTS, 0); }
uint64_t OTF_Reader_readSnapshotsUnsorted(OTF_Reader* r, OTF_HandlerArray* h) { return read_timed(r, h, K_SNAPS, 0); }
uint64_t OTF_Reader_readStatisticsUnsorted(OTF_Reader* r, OTF_HandlerArray* h) { return read_timed(r, h, K_STATS, 0); }

/* Definitions (markers): stream 0's file, then every stream's, in master
 * control order. */
static uint64_t read_files(OTF_Reader* r, OTF_HandlerArray* h, int marker, uint32_t* next)
{
    if (r == NULL || h == NULL)
        return OTF_READ_ERROR;
    uint64_t limit = limit_of(r), count = 0;
    uint32_t n = OTF_MasterControl_getCount(r->mc);
    for (uint32_t i = *next; i <= n && count < limit; i++) {
        uint32_t id = 0;
        if (i > 0) {
            /* a stream whose processes are all disabled is left out */
            OTF_MapEntry* e = OTF_MasterControl_getEntryByIndex(r->mc, i - 1);
            if (e == NULL || !stream_wanted(r, e))
                continue;
            id = e->argument;
        }
        OTF_RStream* s = OTF_Reader_getStream(r, id);
        if (s == NULL)
            return OTF_READ_ERROR;
        OTF_RBuffer* rb = marker ? OTF_RStream_getMarkerBuffer(s) : OTF_RStream_getDefBuffer(s);
        if (rb == NULL)
            continue;
        uint64_t got = vftr_otf_read_linear(rb, id, h,
                                            marker ? VFTR_OTF_FILE_MARKER : VFTR_OTF_FILE_DEF,
                                            NULL, limit - count, NULL);
        if (got == OTF_READ_ERROR)
            return OTF_READ_ERROR;
        count += got;
        *next = count < limit ? i + 1 : i;
    }
    return count;
}

uint64_t OTF_Reader_readDefinitions(OTF_Reader* r, OTF_HandlerArray* h)
{
    return read_files(r, h, 0, r ? &r->def_next : NULL);
}

uint64_t OTF_Reader_readMarkers(OTF_Reader* r, OTF_HandlerArray* h)
{
    return read_files(r, h, 1, r ? &r->marker_next : NULL);
}

/* The last time stamp of a file, found once through a second buffer on the
 * same file so that the read position stays where it is. */
static uint64_t last_time(OTF_Reader* r, OTF_RBuffer* rb)
{
    if (!rb->props) {
        OTF_RBuffer* probe = OTF_RBuffer_open(rb->filename, r->manager);
        if (probe == NULL || !OTF_RBuffer_getFileProperties(probe)) {
            if (probe)
                OTF_RBuffer_close(probe);
            return rb->time;
        }
        rb->firstTime = probe->firstTime;
        rb->lastTime = probe->lastTime;
        rb->props = 1;
        OTF_RBuffer_close(probe);
    }
    return rb->lastTime;
}

/* The reference's answers: the time variants fail (and leave the outputs
 * alone) before a read of that kind or when the read stands outside its
 * range; the range is the window narrowed to the first and last time stamps
 * of the files read, whether they still have records in it or not. */
static uint8_t progress(OTF_Reader* r, int k, int bytes, uint64_t* mn, uint64_t* cur,
                        uint64_t* mx)
{
    if (r == NULL || !r->merging[k] || !r->merge[k].started)
        return 0;
    vftr_otf_merge* m = &r->merge[k];
    uint64_t a = 0, b = 0, c = 0;
    if (bytes) {
        /* Offsets depend on where the time search lands, which differs
         * from the reference's: the answer is a range that ends complete. */
        for (uint32_t i = 0; i < m->n; i++) {
            a += m->cur[i].startpos;
            c += OTF_RBuffer_getFileSize(m->cur[i].rb);
            b += m->cur[i].done ? OTF_RBuffer_getFileSize(m->cur[i].rb)
                                : OTF_RBuffer_getFilePos(m->cur[i].rb);
        }
    } else {
        uint64_t first = UINT64_MAX, last = 0;
        for (uint32_t i = 0; i < m->n; i++) {
            OTF_RBuffer* rb = m->cur[i].rb;
            uint64_t l = last_time(r, rb);
            uint64_t f = rb->props ? rb->firstTime : UINT64_MAX;
            if (f < first)
                first = f;
            if (l > last)
                last = l;
        }
        a = first > r->min ? first : r->min;
        c = last < r->max ? last : r->max;
        b = vftr_otf_merge_progress(m, a, c);
        if (b < a || b > c)
            return 0;
    }
    if (mn) *mn = a;
    if (cur) *cur = b;
    if (mx) *mx = c;
    return 1;
}

uint8_t OTF_Reader_eventProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_EVENTS, 0, a, b, c); }
uint8_t OTF_Reader_snapshotProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_SNAPS, 0, a, b, c); }
uint8_t OTF_Reader_statisticProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_STATS, 0, a, b, c); }
uint8_t OTF_Reader_eventTimeProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_EVENTS, 0, a, b, c); }
uint8_t OTF_Reader_snapshotTimeProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_SNAPS, 0, a, b, c); }
uint8_t OTF_Reader_statisticTimeProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_STATS, 0, a, b, c); }
uint8_t OTF_Reader_eventBytesProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_EVENTS, 1, a, b, c); }
uint8_t OTF_Reader_snapshotBytesProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_SNAPS, 1, a, b, c); }
uint8_t OTF_Reader_statisticBytesProgress(OTF_Reader* r, uint64_t* a, uint64_t* b, uint64_t* c) { return progress(r, K_STATS, 1, a, b, c); }
