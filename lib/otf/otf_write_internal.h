/*
 * otf_write_internal.h — what the generated record writers need from the
 * stream and writer objects.
 */
#ifndef VFTR_OTF_WRITE_INTERNAL_H
#define VFTR_OTF_WRITE_INTERNAL_H

#include "OTF_WStream.h"
#include "OTF_MasterControl.h"
#include "OTF_Writer.h"
#include "otf_internal.h"
#include "otf_u32map.h"

enum vftr_otf_buf_kind {
    VFTR_OTF_BUF_DEF,
    VFTR_OTF_BUF_EVENTS,
    VFTR_OTF_BUF_SNAPS,     /* the events buffer when snapshots are inline */
    VFTR_OTF_BUF_STATS,
    VFTR_OTF_BUF_MARKER
};

/* The buffer of `kind`, opened on demand; NULL (otf_errno set) on error. */
OTF_WBuffer* vftr_otf_wstream_buffer(OTF_WStream* w, int kind);

static inline int vftr_otf_wstream_long(const OTF_WStream* w)
{
    return (w->format & OTF_WSTREAM_FORMAT_LONG) != 0;
}

/* Stream for definitions of `stream`; writes the trace's version header
 * first if that has not happened yet.  NULL on error. */
OTF_WStream* vftr_otf_writer_def_stream(OTF_Writer* w, uint32_t stream);
/* Stream 0, where markers go.  NULL on error. */
OTF_WStream* vftr_otf_writer_marker_stream(OTF_Writer* w);
/* Stream of `process`, assigned on first use.  NULL on error. */
OTF_WStream* vftr_otf_writer_process_stream(OTF_Writer* w, uint32_t process);

/* The writer's insides (writer.c), here so that the record writers find a
 * process's stream without a call. */
struct struct_OTF_Writer {
    char* namestub;                /* owned, without ".otf" */
    uint32_t numberOfStreams;      /* automatic streams at most; 0 = unlimited */
    OTF_FileManager* manager;      /* borrowed */
    OTF_MasterControl* mc;         /* owned */
    uint32_t format;
    OTF_FileCompression compression;
    uint32_t buffersizes;
    uint32_t zbuffersizes;
    vftr_otf_u32map streams;       /* stream id → OTF_WStream* (owned) */
    vftr_otf_u32map procs;         /* process → OTF_WStream* (borrowed from streams) */
    OTF_WStream** dense;           /* the same for processes < ndense (most traces) */
    uint32_t ndense;
    OTF_WStream* stream0;          /* cached: definitions and markers */
    int header_written;
    /* one-entry cache for runs of records of the same process */
    uint32_t last_process;
    OTF_WStream* last_stream;
};

static inline OTF_WStream* vftr_otf_writer_process_stream_fast(OTF_Writer* w, uint32_t process)
{
    if (OTF_LIKELY(process < w->ndense && w->dense[process] != NULL))
        return w->dense[process];
    return vftr_otf_writer_process_stream(w, process);
}

/* The bounds of the writer settings, shared by OTF_Writer and OTF_WStream.
 * Too small a text buffer would flush (and, compressed, end a segment) for
 * nearly every record: OTF's own lower bounds. */
static inline uint32_t vftr_otf_buffer_size(uint32_t size)
{
    return size < 50 ? 50 : size;
}

static inline uint32_t vftr_otf_zbuffer_size(uint32_t size)
{
    return size < 32 ? 32 : size;
}

/* 1 if `level` is a valid compression level (0 none, 1..9), else 0 with
 * otf_errno set. */
int vftr_otf_check_compression(OTF_FileCompression level);

#endif /* VFTR_OTF_WRITE_INTERNAL_H */
