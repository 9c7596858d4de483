/* rstream.c — OTF_RStream: one stream's files, each read in file order. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "OTF_RStream.h"
#include "otf_dispatch.h"
#include "otf_internal.h"
#include "otf_read_internal.h"

OTF_RStream* OTF_RStream_open(const char* nameStub, uint32_t id, OTF_FileManager* manager)
{
    if (nameStub == NULL || manager == NULL) {
        vftr_otf_seterr("OTF_RStream_open: %s is NULL", nameStub ? "manager" : "name");
        return NULL;
    }
    OTF_RStream* s = calloc(1, sizeof *s);
    if (s == NULL || (s->namestub = OTF_stripFilename(nameStub)) == NULL) {
        free(s);
        vftr_otf_seterr("%s: out of memory", nameStub);
        return NULL;
    }
    s->id = id;
    s->manager = manager;
    s->buffersizes = 1024u * 1024u;
    s->zbuffersizes = OTF_ZBUFFER_DEFAULTSIZE;
    s->recordLimit = OTF_READ_MAXRECORDS;
    return s;
}

static void close_buf(OTF_RBuffer** b)
{
    if (*b != NULL)
        OTF_RBuffer_close(*b);
    *b = NULL;
}

int OTF_RStream_close(OTF_RStream* s)
{
    if (s == NULL)
        return 0;
    close_buf(&s->defBuffer);
    close_buf(&s->eventBuffer);
    close_buf(&s->snapsBuffer);
    close_buf(&s->statsBuffer);
    close_buf(&s->markerBuffer);
    free(s->namestub);
    free(s);
    return 1;
}

/* Opens the file of `type` if it exists (plain or .z); NULL without error
 * otherwise. */
static OTF_RBuffer* open_buf(OTF_RStream* s, OTF_FileType type)
{
    char* name = OTF_getFilename(s->namestub, s->id, type, 0, NULL);
    if (name == NULL)
        return NULL;
    OTF_RBuffer* b = NULL;
    size_t n = strlen(name);
    char* zname = malloc(n + 3);
    if (zname != NULL) {
        memcpy(zname, name, n);
        memcpy(zname + n, ".z", 3);
        if (access(name, F_OK) == 0 || access(zname, F_OK) == 0) {
            b = OTF_RBuffer_open(name, s->manager);
            if (b != NULL && s->buffersizes > b->size)
                OTF_RBuffer_setSize(b, s->buffersizes);
            if (b != NULL)
                OTF_RBuffer_setZBufferSize(b, s->zbuffersizes);
        }
        free(zname);
    }
    free(name);
    return b;
}

#define GETBUF(fn, field, type)                                 \
    OTF_RBuffer* fn(OTF_RStream* s)                             \
    {                                                           \
        if (s == NULL)                                          \
            return NULL;                                        \
        if (s->field == NULL)                                   \
            s->field = open_buf(s, type);                       \
        return s->field;                                        \
    }

/* Stream 0's definitions are <stub>.0.def too (OTF_FILETYPE_GLOBAL_DEF names
 * an old "<stub>.def" that no writer produces). */
GETBUF(OTF_RStream_getDefBuffer, defBuffer, OTF_FILETYPE_DEF)
GETBUF(OTF_RStream_getEventBuffer, eventBuffer, OTF_FILETYPE_EVENT)
GETBUF(OTF_RStream_getSnapsBuffer, snapsBuffer, OTF_FILETYPE_SNAPS)
GETBUF(OTF_RStream_getStatsBuffer, statsBuffer, OTF_FILETYPE_STATS)
GETBUF(OTF_RStream_getMarkerBuffer, markerBuffer, OTF_FILETYPE_MARKER)

OTF_RBuffer* OTF_RStream_setDefBuffer(OTF_RStream* s, OTF_RBuffer* rb)
{
    if (s == NULL)
        return NULL;
    OTF_RBuffer* old = s->defBuffer;
    s->defBuffer = rb;
    return old;
}

int OTF_RStream_closeDefBuffer(OTF_RStream* s) { if (!s) return 0; close_buf(&s->defBuffer); return 1; }
int OTF_RStream_closeEventBuffer(OTF_RStream* s) { if (!s) return 0; close_buf(&s->eventBuffer); return 1; }
int OTF_RStream_closeSnapsBuffer(OTF_RStream* s) { if (!s) return 0; close_buf(&s->snapsBuffer); return 1; }
int OTF_RStream_closeStatsBuffer(OTF_RStream* s) { if (!s) return 0; close_buf(&s->statsBuffer); return 1; }
int OTF_RStream_closeMarkerBuffer(OTF_RStream* s) { if (!s) return 0; close_buf(&s->markerBuffer); return 1; }

void OTF_RStream_setBufferSizes(OTF_RStream* s, uint32_t size) { if (s) s->buffersizes = size; }
uint32_t OTF_RStream_getBufferSizes(OTF_RStream* s) { return s ? s->buffersizes : 0; }
void OTF_RStream_setZBufferSizes(OTF_RStream* s, uint32_t size) { if (s) s->zbuffersizes = size; }
uint32_t OTF_RStream_getZBufferSizes(OTF_RStream* s) { return s ? s->zbuffersizes : 0; }
void OTF_RStream_setRecordLimit(OTF_RStream* s, uint64_t limit) { if (s) s->recordLimit = limit; }
uint64_t OTF_RStream_getRecordLimit(OTF_RStream* s) { return s ? s->recordLimit : 0; }

static uint64_t read_one(OTF_RStream* s, OTF_RBuffer* rb, OTF_HandlerArray* h, int kind)
{
    if (s == NULL || h == NULL)
        return OTF_READ_ERROR;
    if (rb == NULL)
        return 0;
    uint64_t limit = s->recordLimit == OTF_READ_MAXRECORDS ? UINT64_MAX : s->recordLimit;
    return vftr_otf_read_linear(rb, s->id, h, kind, NULL, limit, NULL);
}

uint64_t OTF_RStream_readDefinitions(OTF_RStream* s, OTF_HandlerArray* h)
{
    return read_one(s, OTF_RStream_getDefBuffer(s), h, VFTR_OTF_FILE_DEF);
}

uint64_t OTF_RStream_readEvents(OTF_RStream* s, OTF_HandlerArray* h)
{
    return read_one(s, OTF_RStream_getEventBuffer(s), h, VFTR_OTF_FILE_EVENT);
}

uint64_t OTF_RStream_readSnapshots(OTF_RStream* s, OTF_HandlerArray* h)
{
    return read_one(s, OTF_RStream_getSnapsBuffer(s), h, VFTR_OTF_FILE_SNAP);
}

uint64_t OTF_RStream_readStatistics(OTF_RStream* s, OTF_HandlerArray* h)
{
    return read_one(s, OTF_RStream_getStatsBuffer(s), h, VFTR_OTF_FILE_STAT);
}

uint64_t OTF_RStream_readMarker(OTF_RStream* s, OTF_HandlerArray* h)
{
    return read_one(s, OTF_RStream_getMarkerBuffer(s), h, VFTR_OTF_FILE_MARKER);
}

static uint8_t bytes_progress(OTF_RBuffer* rb, uint64_t* mn, uint64_t* cur, uint64_t* mx)
{
    if (rb == NULL)
        return 0;
    if (mn) *mn = 0;
    if (cur) *cur = OTF_RBuffer_getFilePos(rb);
    if (mx) *mx = OTF_RBuffer_getFileSize(rb);
    return 1;
}

static uint8_t time_progress(OTF_RBuffer* rb, uint64_t* mn, uint64_t* cur, uint64_t* mx)
{
    if (rb == NULL)
        return 0;
    uint64_t now = rb->time;
    if (!rb->props) {
        /* file properties need jumps: keep the reading position */
        if (mn) *mn = 0;
        if (cur) *cur = now;
        if (mx) *mx = now;
        return 1;
    }
    if (mn) *mn = rb->firstTime;
    if (cur) *cur = now;
    if (mx) *mx = rb->lastTime;
    return 1;
}

uint8_t OTF_RStream_eventProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? time_progress(s->eventBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_snapshotProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? time_progress(s->snapsBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_statisticProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? time_progress(s->statsBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_eventTimeProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? time_progress(s->eventBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_snapshotTimeProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? time_progress(s->snapsBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_statisticTimeProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? time_progress(s->statsBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_eventBytesProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? bytes_progress(s->eventBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_snapshotBytesProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? bytes_progress(s->snapsBuffer, a, b, c) : 0; }
uint8_t OTF_RStream_statisticBytesProgress(OTF_RStream* s, uint64_t* a, uint64_t* b, uint64_t* c)
{ return s ? bytes_progress(s->statsBuffer, a, b, c) : 0; }
