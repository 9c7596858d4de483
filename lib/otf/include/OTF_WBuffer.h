/*
 * OTF_WBuffer.h — the text buffer in front of one file of a trace being
 * written.  Records are appended to `buffer`; when it is full its contents go
 * to the file in one OTF_File_write (for compressed files: one segment).
 *
 * A WBuffer also runs the time/process state machine of its file: timed
 * records are preceded by "<time>\n" and "*<process>\n" lines only when the
 * time or process changes.  A time stamp lower than the previous one poisons
 * the file: an error comment is written once and every later timed record is
 * dropped (the write functions return 0).
 *
 * Ownership: a WBuffer owns its memory and its OTF_File; the manager is
 * borrowed and must outlive it.  Not thread-safe; one writer per buffer.
 */
#ifndef OTF_WBUFFER_H
#define OTF_WBUFFER_H

#include <stdio.h>
#include <stdlib.h>

#include "OTF_inttypes.h"
#include "OTF_File.h"
#include "OTF_Filenames.h"
#include "OTF_KeyValue.h"

#ifdef __cplusplus
extern "C" {
#endif

struct struct_OTF_WBuffer {
    OTF_File* file;        /* owned */
    char* buffer;          /* text not yet handed to the file */
    uint32_t size;         /* capacity of buffer */
    uint32_t pos;          /* bytes used */
    uint32_t process;      /* state machine: current process, (uint32_t)-1 at start */
    uint64_t time;         /* state machine: current time; UINT64_MAX after a time error */
    uint32_t zbuffersize;  /* size of the compressed-output buffer */
    /* vftr's own state below; programs must not rely on it. */
    int timed;             /* a timed record was written: repeat the state at close */
    int failed;            /* a write to the file failed: every later write fails */
    char ttext[16];        /* the text of the last time line written, */
    uint32_t tlen;         /* its length (0: none) */
};
typedef struct struct_OTF_WBuffer OTF_WBuffer;

/* Opens `filename` for writing (uncompressed).  Returns NULL on error. */
OTF_WBuffer* OTF_WBuffer_open(const char* filename, OTF_FileManager* manager);
/* Like OTF_WBuffer_open; a compression level 1..9 writes a zlib file. */
OTF_WBuffer* OTF_WBuffer_open_zlevel(const char* filename, OTF_FileManager* manager,
                                     OTF_FileCompression compression);
/* Flushes (with the state tail for timed files) and frees.  1 ok, 0 error. */
int OTF_WBuffer_close(OTF_WBuffer* wbuffer);
/* Grows the buffer to `size` bytes (never shrinks).  1 ok, 0 error. */
int OTF_WBuffer_setSize(OTF_WBuffer* wbuffer, size_t size);
void OTF_WBuffer_setZBufferSize(OTF_WBuffer* wbuffer, uint32_t size);
/* Hands the buffered text to the file.  1 ok, 0 error. */
int OTF_WBuffer_flush(OTF_WBuffer* wbuffer);
/* Makes room for `space` more bytes (flushing or growing).  1 ok, 0 error. */
int OTF_WBuffer_guarantee(OTF_WBuffer* wbuffer, size_t space);
/* Feeds the state machine (see above).  Non-zero ok, 0 on a time error. */
int OTF_WBuffer_setTimeAndProcess(OTF_WBuffer* wbuffer, uint64_t t, uint32_t p);

/* Basic appends; each returns the number of bytes appended (0 on error). */
uint32_t OTF_WBuffer_writeKeyword(OTF_WBuffer* wbuffer, const char* keyword);
uint32_t OTF_WBuffer_writeString(OTF_WBuffer* wbuffer, const char* string);
uint32_t OTF_WBuffer_writeChar(OTF_WBuffer* wbuffer, const char character);
uint32_t OTF_WBuffer_writeUint8(OTF_WBuffer* wbuffer, uint8_t value);
uint32_t OTF_WBuffer_writeUint16(OTF_WBuffer* wbuffer, uint16_t value);
uint32_t OTF_WBuffer_writeUint32(OTF_WBuffer* wbuffer, uint32_t value);
uint32_t OTF_WBuffer_writeUint64(OTF_WBuffer* wbuffer, uint64_t value);
uint32_t OTF_WBuffer_writeNewline(OTF_WBuffer* wbuffer);
uint32_t OTF_WBuffer_writeBytes(OTF_WBuffer* wbuffer, const uint8_t* value, uint32_t len);
uint32_t OTF_WBuffer_writeKeyValuePair_short(OTF_WBuffer* buffer, OTF_KeyValuePair* pair);
uint32_t OTF_WBuffer_writeKeyValuePair_long(OTF_WBuffer* buffer, OTF_KeyValuePair* pair);
uint32_t OTF_WBuffer_writeKeyValueList_short(OTF_WBuffer* buffer, OTF_KeyValueList* list);
uint32_t OTF_WBuffer_writeKeyValueList_long(OTF_WBuffer* buffer, OTF_KeyValueList* list);

#ifdef __cplusplus
}
#endif

#endif /* OTF_WBUFFER_H */
