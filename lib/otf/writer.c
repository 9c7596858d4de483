/*
 * writer.c — OTF_Writer: many streams and the master control file.
 *
 * Lookups on the write path (process → stream, stream id → stream) go
 * through hash maps; the master control stays the authority on the mapping
 * and is written at close.
 */
#include <stdlib.h>
#include <string.h>

#include "OTF_Filenames.h"
#include "OTF_MasterControl.h"
#include "OTF_Writer.h"
#include "otf_internal.h"
#include "otf_write_internal.h"

OTF_Writer* OTF_Writer_open(const char* fileNamePrefix, uint32_t numberOfStreams,
                            OTF_FileManager* fileManager)
{
    if (fileNamePrefix == NULL || fileManager == NULL) {
        vftr_otf_seterr("OTF_Writer_open: %s is NULL",
                        fileNamePrefix ? "the file manager" : "the file name");
        return NULL;
    }
    OTF_Writer* w = calloc(1, sizeof *w);
    if (w == NULL)
        goto oom;
    w->namestub = OTF_stripFilename(fileNamePrefix);
    if (w->namestub == NULL)
        goto oom;
    w->mc = OTF_MasterControl_new(fileManager);
    if (w->mc == NULL)
        goto fail;
    w->numberOfStreams = numberOfStreams;
    w->manager = fileManager;
    w->format = OTF_WSTREAM_FORMAT_SHORT;
    w->compression = OTF_FILECOMPRESSION_UNCOMPRESSED;
    w->buffersizes = 1024u * 1024u;
    w->zbuffersizes = OTF_ZBUFFER_DEFAULTSIZE;
    w->last_process = UINT32_MAX;
    return w;
oom:
    vftr_otf_seterr("%s: out of memory", fileNamePrefix);
fail:
    if (w != NULL) {
        free(w->namestub);
        free(w);
    }
    return NULL;
}

static int close_streams(OTF_Writer* w)
{
    int ok = 1;
    for (uint32_t i = 0; i < w->streams.cap; i++) {
        if (w->streams.keys[i] == UINT32_MAX)
            continue;
        if (!OTF_WStream_close((OTF_WStream*)w->streams.vals[i]))
            ok = 0;
    }
    vftr_otf_u32map_release(&w->streams);
    vftr_otf_u32map_release(&w->procs);
    free(w->dense);
    w->dense = NULL;
    w->ndense = 0;
    w->stream0 = NULL;
    w->last_process = UINT32_MAX;
    w->last_stream = NULL;
    return ok;
}

int OTF_Writer_closeAllStreams(OTF_Writer* w)
{
    if (w == NULL)
        return 0;
    return close_streams(w);
}

int OTF_Writer_close(OTF_Writer* w)
{
    if (w == NULL)
        return 0;
    int ok = close_streams(w);
    /* Written even when it lists no stream, as the reference does: an older
     * trace of the same name must not keep a master control file that pairs
     * its event files with the definitions just written. */
    if (!OTF_MasterControl_write(w->mc, w->namestub))
        ok = 0;
    OTF_MasterControl_close(w->mc);
    free(w->namestub);
    free(w);
    return ok;
}

int OTF_Writer_setCompression(OTF_Writer* w, OTF_FileCompression compression)
{
    if (w == NULL || !vftr_otf_check_compression(compression))
        return 0;
    w->compression = compression;
    return 1;
}

OTF_FileCompression OTF_Writer_getCompression(OTF_Writer* w)
{
    return w ? w->compression : 0;
}

void OTF_Writer_setBufferSizes(OTF_Writer* w, uint32_t size)
{
    if (w != NULL)
        w->buffersizes = vftr_otf_buffer_size(size);
}

uint32_t OTF_Writer_getBufferSizes(OTF_Writer* w)
{
    return w ? w->buffersizes : 0;
}

void OTF_Writer_setZBufferSizes(OTF_Writer* w, uint32_t size)
{
    if (w != NULL)
        w->zbuffersizes = vftr_otf_zbuffer_size(size);
}

uint32_t OTF_Writer_getZBufferSizes(OTF_Writer* w)
{
    return w ? w->zbuffersizes : 0;
}

void OTF_Writer_setFormat(OTF_Writer* w, uint32_t format)
{
    if (w != NULL)
        w->format = format;
}

uint32_t OTF_Writer_getFormat(OTF_Writer* w)
{
    return w ? w->format : 0;
}

OTF_MasterControl* OTF_Writer_getMasterControl(OTF_Writer* w)
{
    return w ? w->mc : NULL;
}

void OTF_Writer_setMasterControl(OTF_Writer* w, OTF_MasterControl* mc)
{
    if (w == NULL || mc == NULL || mc == w->mc)
        return;
    OTF_MasterControl_close(w->mc);
    w->mc = mc;
    vftr_otf_u32map_release(&w->procs);
    free(w->dense);
    w->dense = NULL;
    w->ndense = 0;
    w->last_process = UINT32_MAX;
    w->last_stream = NULL;
}

OTF_WStream* OTF_Writer_getStream(OTF_Writer* w, uint32_t stream)
{
    if (w == NULL)
        return NULL;
    if (stream == 0 && w->stream0 != NULL)
        return w->stream0;
    OTF_WStream* s = vftr_otf_u32map_get(&w->streams, stream);
    if (s != NULL)
        return s;
    if (stream == UINT32_MAX) {
        vftr_otf_seterr("%s: stream id ffffffff is reserved", w->namestub);
        return NULL;
    }
    s = OTF_WStream_open(w->namestub, stream, w->manager);
    if (s == NULL)
        return NULL;
    OTF_WStream_setFormat(s, w->format);
    OTF_WStream_setCompression(s, w->compression);
    OTF_WStream_setBufferSizes(s, w->buffersizes);
    OTF_WStream_setZBufferSizes(s, w->zbuffersizes);
    if (vftr_otf_u32map_put(&w->streams, stream, s) != 0) {
        OTF_WStream_close(s);
        vftr_otf_seterr("%s: out of memory", w->namestub);
        return NULL;
    }
    if (stream == 0)
        w->stream0 = s;
    return s;
}

uint32_t OTF_Writer_assignProcess(OTF_Writer* w, uint32_t process, uint32_t stream)
{
    if (w == NULL)
        return 0;
    if (stream == 0 || stream == UINT32_MAX) {
        vftr_otf_seterr("%s: cannot assign process %x to reserved stream %x",
                        w->namestub, process, stream);
        return 0;
    }
    if (!OTF_MasterControl_append(w->mc, stream, process))
        return 0;
    return 1;
}

/* The stream a process without a stream goes to (see OTF_Writer.h). */
static uint32_t choose_stream(OTF_Writer* w)
{
    uint32_t n = OTF_MasterControl_getCount(w->mc);
    if (w->numberOfStreams == 0 || n < w->numberOfStreams)
        return OTF_MasterControl_getNewStreamId(w->mc);
    uint32_t best = 0, best_n = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry* e = OTF_MasterControl_getEntryByIndex(w->mc, i);
        if (e != NULL && (e->n < best_n || (e->n == best_n && e->argument < best))) {
            best = e->argument;
            best_n = e->n;
        }
    }
    return best ? best : OTF_MasterControl_getNewStreamId(w->mc);
}

uint32_t OTF_Writer_mapProcess(OTF_Writer* w, uint32_t process)
{
    if (w == NULL)
        return 0;
    uint32_t s = OTF_MasterControl_mapReverse(w->mc, process);
    if (s != 0)
        return s;
    s = choose_stream(w);
    if (s == 0 || !OTF_MasterControl_append(w->mc, s, process))
        return 0;
    return s;
}

/* Process ids are small in nearly every trace (ranks, threads): a direct
 * table up to this many entries, a hash map beyond. */
#define DENSE_MAX (1u << 20)

static void remember_dense(OTF_Writer* w, uint32_t process, OTF_WStream* s)
{
    if (process >= DENSE_MAX)
        return;
    if (process >= w->ndense) {
        uint32_t n = w->ndense ? w->ndense : 64;
        while (n <= process)
            n *= 2;
        OTF_WStream** d = realloc(w->dense, sizeof *d * n);
        if (d == NULL)
            return;            /* the hash map still knows */
        memset(d + w->ndense, 0, sizeof *d * (n - w->ndense));
        w->dense = d;
        w->ndense = n;
    }
    w->dense[process] = s;
}

OTF_WStream* vftr_otf_writer_process_stream(OTF_Writer* w, uint32_t process)
{
    if (OTF_LIKELY(process < w->ndense && w->dense[process] != NULL))
        return w->dense[process];
    if (OTF_LIKELY(process == w->last_process))
        return w->last_stream;
    OTF_WStream* s = vftr_otf_u32map_get(&w->procs, process);
    if (s == NULL) {
        uint32_t id = OTF_Writer_mapProcess(w, process);
        if (id == 0)
            return NULL;
        s = OTF_Writer_getStream(w, id);
        if (s == NULL)
            return NULL;
        if (vftr_otf_u32map_put(&w->procs, process, s) != 0) {
            vftr_otf_seterr("%s: out of memory", w->namestub);
            return NULL;
        }
    }
    w->last_process = process;
    w->last_stream = s;
    remember_dense(w, process, s);
    return s;
}

static int write_header(OTF_Writer* w)
{
    OTF_WStream* s0 = OTF_Writer_getStream(w, 0);
    if (s0 == NULL)
        return 0;
    w->header_written = 1;
    return OTF_WStream_writeOtfVersion(s0) && OTF_WStream_writeUniqueId(s0);
}

OTF_WStream* vftr_otf_writer_def_stream(OTF_Writer* w, uint32_t stream)
{
    if (w == NULL)
        return NULL;
    if (!w->header_written && !write_header(w))
        return NULL;
    return OTF_Writer_getStream(w, stream);
}

OTF_WStream* vftr_otf_writer_marker_stream(OTF_Writer* w)
{
    if (w == NULL)
        return NULL;
    return OTF_Writer_getStream(w, 0);
}

/* The version line heads the global definitions exactly once; asking for
 * it again (for any stream) writes nothing, as OTF does. */
int OTF_Writer_writeOtfVersion(OTF_Writer* w, uint32_t stream)
{
    (void)stream;
    if (w == NULL)
        return 0;
    return w->header_written || write_header(w);
}
