/*
 * wstream.c — OTF_WStream: the files of one stream being written.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "OTF_Filenames.h"
#include "OTF_WStream.h"
#include "otf_internal.h"
#include "otf_wbuf.h"
#include "otf_write_internal.h"

#define WSTREAM_DEFAULT_BUFFER (1024u * 1024u)
/* Text per segment of a compressed file (see open_buffer). */
#define VFTR_OTF_ZSEGMENT (256u * 1024u)

OTF_WStream* OTF_WStream_open(const char* namestub, uint32_t id, OTF_FileManager* manager)
{
    if (namestub == NULL || manager == NULL) {
        vftr_otf_seterr("OTF_WStream_open: %s is NULL", namestub ? "manager" : "namestub");
        return NULL;
    }
    OTF_WStream* w = calloc(1, sizeof *w);
    if (w == NULL || (w->namestub = strdup(namestub)) == NULL) {
        free(w);
        vftr_otf_seterr("%s: out of memory", namestub);
        return NULL;
    }
    w->id = id;
    w->format = OTF_WSTREAM_FORMAT_SHORT;
    w->compression = OTF_FILECOMPRESSION_UNCOMPRESSED;
    w->buffersizes = WSTREAM_DEFAULT_BUFFER;
    w->zbuffersizes = OTF_ZBUFFER_DEFAULTSIZE;
    w->manager = manager;
    return w;
}

int OTF_WStream_close(OTF_WStream* w)
{
    if (w == NULL)
        return 0;
    int ok = 1;
    OTF_WBuffer** bufs[] = { &w->defBuffer, &w->eventBuffer, &w->snapsBuffer,
                             &w->statsBuffer, &w->markerBuffer };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        if (*bufs[i] != NULL && !OTF_WBuffer_close(*bufs[i]))
            ok = 0;
        *bufs[i] = NULL;
    }
    free(w->namestub);
    free(w);
    return ok;
}

int OTF_WStream_flush(OTF_WStream* w)
{
    if (w == NULL)
        return 0;
    int ok = 1;
    OTF_WBuffer* bufs[] = { w->defBuffer, w->eventBuffer, w->snapsBuffer,
                            w->statsBuffer, w->markerBuffer };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i] != NULL && !OTF_WBuffer_flush(bufs[i]))
            ok = 0;
    return ok;
}

static OTF_WBuffer* open_buffer(OTF_WStream* w, OTF_FileType type)
{
    char* name = OTF_getFilename(w->namestub, w->id, type | w->compression, 0, NULL);
    if (name == NULL) {
        vftr_otf_seterr("%s: cannot build a file name for stream %x", w->namestub, w->id);
        return NULL;
    }
    OTF_WBuffer* b = OTF_WBuffer_open_zlevel(name, w->manager, w->compression);
    free(name);
    if (b == NULL)
        return NULL;
    /* Every buffer flush ends one independently decodable segment of a
     * compressed file, and a reader can only seek to segment starts: smaller
     * segments make time windows in compressed files cheap to reach, for a
     * size cost of about 0.01 %. */
    uint32_t size = w->buffersizes;
    if (w->compression != OTF_FILECOMPRESSION_UNCOMPRESSED && size > VFTR_OTF_ZSEGMENT)
        size = VFTR_OTF_ZSEGMENT;
    if (size > b->size && !OTF_WBuffer_setSize(b, size)) {
        OTF_WBuffer_close(b);
        return NULL;
    }
    OTF_WBuffer_setZBufferSize(b, w->zbuffersizes);
    return b;
}

OTF_WBuffer* vftr_otf_wstream_buffer(OTF_WStream* w, int kind)
{
    OTF_WBuffer** slot;
    OTF_FileType type;
    if (w == NULL) {
        vftr_otf_seterr("write to a NULL stream");
        return NULL;
    }
    switch (kind) {
    case VFTR_OTF_BUF_DEF:
        slot = &w->defBuffer;
        type = OTF_FILETYPE_DEF;
        break;
    case VFTR_OTF_BUF_SNAPS:
        if (w->format & OTF_WSTREAM_FORMAT_INLINE_SNAPSHOTS) {
            slot = &w->eventBuffer;
            type = OTF_FILETYPE_EVENT;
        } else {
            slot = &w->snapsBuffer;
            type = OTF_FILETYPE_SNAPS;
        }
        break;
    case VFTR_OTF_BUF_STATS:
        slot = &w->statsBuffer;
        type = OTF_FILETYPE_STATS;
        break;
    case VFTR_OTF_BUF_MARKER:
        slot = &w->markerBuffer;
        type = OTF_FILETYPE_MARKER;
        break;
    case VFTR_OTF_BUF_EVENTS:
    default:
        slot = &w->eventBuffer;
        type = OTF_FILETYPE_EVENT;
        break;
    }
    if (OTF_LIKELY(*slot != NULL))
        return *slot;
    *slot = open_buffer(w, type);
    return *slot;
}

OTF_WBuffer* OTF_WStream_getDefBuffer(OTF_WStream* w)
{
    return vftr_otf_wstream_buffer(w, VFTR_OTF_BUF_DEF);
}

OTF_WBuffer* OTF_WStream_getEventBuffer(OTF_WStream* w)
{
    return vftr_otf_wstream_buffer(w, VFTR_OTF_BUF_EVENTS);
}

OTF_WBuffer* OTF_WStream_getSnapshotBuffer(OTF_WStream* w)
{
    return vftr_otf_wstream_buffer(w, VFTR_OTF_BUF_SNAPS);
}

OTF_WBuffer* OTF_WStream_getStatsBuffer(OTF_WStream* w)
{
    return vftr_otf_wstream_buffer(w, VFTR_OTF_BUF_STATS);
}

OTF_WBuffer* OTF_WStream_getMarkerBuffer(OTF_WStream* w)
{
    return vftr_otf_wstream_buffer(w, VFTR_OTF_BUF_MARKER);
}

int vftr_otf_check_compression(OTF_FileCompression level)
{
    if (level > 9) {
        vftr_otf_seterr("compression level %u out of range 0..9", (unsigned)level);
        return 0;
    }
    return 1;
}

int OTF_WStream_setCompression(OTF_WStream* w, OTF_FileCompression compression)
{
    if (w == NULL || !vftr_otf_check_compression(compression))
        return 0;
    w->compression = compression;
    return 1;
}

OTF_FileCompression OTF_WStream_getCompression(OTF_WStream* w)
{
    return w ? w->compression : 0;
}

void OTF_WStream_setBufferSizes(OTF_WStream* w, uint32_t size)
{
    if (w != NULL)
        w->buffersizes = vftr_otf_buffer_size(size);
}

uint32_t OTF_WStream_getBufferSizes(OTF_WStream* w)
{
    return w ? w->buffersizes : 0;
}

void OTF_WStream_setZBufferSizes(OTF_WStream* w, uint32_t size)
{
    if (w != NULL)
        w->zbuffersizes = vftr_otf_zbuffer_size(size);
}

uint32_t OTF_WStream_getZBufferSizes(OTF_WStream* w)
{
    return w ? w->zbuffersizes : 0;
}

void OTF_WStream_setFormat(OTF_WStream* w, uint32_t format)
{
    if (w != NULL)
        w->format = format;
}

uint32_t OTF_WStream_getFormat(OTF_WStream* w)
{
    return w ? w->format : 0;
}

int OTF_WStream_writeOtfVersion(OTF_WStream* w)
{
    OTF_WBuffer* b = vftr_otf_wstream_buffer(w, VFTR_OTF_BUF_DEF);
    if (b == NULL)
        return 0;
    int longfmt = vftr_otf_wstream_long(w);
    if (!vftr_otf_wb_reserve(b, 64))
        return 0;
    if (longfmt)
        vftr_otf_wb_lit(b, "DEFVERSION ", 11);
    else
        vftr_otf_wb_lit(b, "DV", 2);
    /* major.minor.sub in hex, then the release name with no blank. */
    vftr_otf_wb_hex(b, OTF_VERSION_MAJOR);
    vftr_otf_wb_char(b, '.');
    vftr_otf_wb_hex(b, OTF_VERSION_MINOR);
    vftr_otf_wb_char(b, '.');
    vftr_otf_wb_hex(b, OTF_VERSION_SUB);
    if (!vftr_otf_wb_string(b, OTF_VERSION_STRING) || !vftr_otf_wb_reserve(b, 1))
        return 0;
    vftr_otf_wb_char(b, '\n');
    return 1;
}

int OTF_WStream_writeUniqueId(OTF_WStream* w)
{
    OTF_WBuffer* b = vftr_otf_wstream_buffer(w, VFTR_OTF_BUF_DEF);
    if (b == NULL)
        return 0;
    /* An identifier that differs between runs and processes: time of day
     * mixed with the process id by a multiplicative hash. */
    struct timeval tv;
    gettimeofday(&tv, NULL);
    uint64_t uid = ((uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec);
    uid ^= (uint64_t)getpid() << 32;
    uid *= 11400714819323198485ull;
    if (uid == 0)
        uid = 1;
    if (!vftr_otf_wb_reserve(b, 32))
        return 0;
    if (vftr_otf_wstream_long(w))
        vftr_otf_wb_lit(b, "DEFUNIQUEID ", 12);
    else
        vftr_otf_wb_lit(b, "DUI", 3);
    vftr_otf_wb_hex(b, uid);
    vftr_otf_wb_char(b, '\n');
    return 1;
}
