/*
 * OTF_RBuffer.h — reading one file of a trace line by line: a window of the
 * file's text in memory, the time/process state machine, and time search.
 *
 * A record is one line.  Lines starting with a lower-case hex digit set the
 * current time, lines starting with '*' the current process; every other
 * line is a record (or a key-value line that belongs to the next record).
 * Time search (OTF_RBuffer_searchTime) bisects the file by byte offsets and
 * resynchronises after each jump on the next time line followed by a process
 * line, so it needs no index; in compressed files it jumps to the next
 * full-flush point.
 *
 * Ownership: an RBuffer owns its memory, its OTF_File and its key-value
 * list; the manager is borrowed.  Strings returned point into the buffer and
 * stay valid until the next read.  Not thread-safe.
 */
#ifndef OTF_RBUFFER_H
#define OTF_RBUFFER_H

#include <stdio.h>
#include <stdlib.h>

#include "OTF_inttypes.h"
#include "OTF_File.h"
#include "OTF_KeyValue.h"

#ifdef __cplusplus
extern "C" {
#endif

struct struct_OTF_RBuffer {
    OTF_File* file;        /* owned */
    char* buffer;          /* current view: own, or a place in map */
    uint32_t size;
    uint32_t pos;          /* start of the next unread line */
    uint32_t end;          /* complete lines end here; every one ends in '\n' */
    uint64_t time;         /* state machine */
    uint32_t process;
    OTF_KeyValueList* list;   /* key-value pairs of the next record, owned */
    /* vftr's own state; programs must not rely on it */
    uint64_t base;         /* file offset of buffer[0] (plain files) */
    uint64_t filesize;
    uint64_t firstTime;
    uint64_t lastTime;
    int props;             /* firstTime/lastTime known */
    int eof;               /* the file has been read to its end */
    int failed;            /* read error: stop */
    uint32_t jumpsize;     /* bytes read first after a jump */
    uint32_t readsize;     /* size of the next read (grows after a jump) */
    uint32_t viewcap;      /* mapped files: largest view (smaller after a jump) */
    uint32_t maxsize;      /* the buffer grows up to this for one long line */
    uint32_t rec;          /* start of the line returned last */
    uint32_t* array;       /* scratch for OTF_RBuffer_readArray, owned */
    uint32_t arraycap;
    char* filename;        /* owned, for messages */
    uint32_t tail;         /* bytes of an unfinished line after end */
    char* own;             /* the allocated buffer (size + slack bytes) */
    char* map;             /* whole plain file mapped copy-on-write, or NULL */
    uint64_t mapsize;
    int mapped;            /* buffer points into map (no copies, no reads) */
    int probing;           /* a time search's probe: read, do not touch map */
    uint64_t mlo, mhi;     /* part of map touched since it was last given back */
    struct vftr_otf_probes* probes;  /* what time searches learnt (offset -> first time) */
};
typedef struct struct_OTF_RBuffer OTF_RBuffer;

/* Opens `filename` (or, if it does not exist, `filename`.z).  NULL on
 * error. */
OTF_RBuffer* OTF_RBuffer_open(const char* filename, OTF_FileManager* manager);
/* Reads from `len` bytes of memory (compressed or not); the memory is
 * borrowed and must outlive the buffer. */
OTF_RBuffer* OTF_RBuffer_open_with_external_buffer(uint32_t len, const char* buffer,
                                                   uint8_t is_compressed);
int OTF_RBuffer_close(OTF_RBuffer* rbuffer);
int OTF_RBuffer_setSize(OTF_RBuffer* rbuffer, size_t size);
void OTF_RBuffer_setZBufferSize(OTF_RBuffer* rbuffer, uint32_t size);
int OTF_RBuffer_setJumpSize(OTF_RBuffer* rbuffer, size_t size);

/* The next record (state lines are consumed on the way), NUL-free text
 * ending in '\n'; NULL at the end of the file or on error. */
char* OTF_RBuffer_getRecord(OTF_RBuffer* rbuffer);
/* Makes sure the current record is complete in memory.  1 ok. */
int OTF_RBuffer_guaranteeRecord(OTF_RBuffer* rbuffer);
/* The current record as a NUL-terminated copy (caller frees), for
 * messages. */
char* OTF_RBuffer_printRecord(OTF_RBuffer* rbuffer);
/* Positions the buffer at the first time/process pair after file offset
 * `filepos`.  1 ok, 0 if there is none. */
int OTF_RBuffer_jump(OTF_RBuffer* rbuffer, uint64_t filepos);

/* Token readers on the current record (OTF's low-level parsing API). */
uint64_t OTF_RBuffer_readUint64(OTF_RBuffer* rbuffer);
uint32_t OTF_RBuffer_readUint32(OTF_RBuffer* rbuffer);
const char* OTF_RBuffer_readString(OTF_RBuffer* rbuffer);
uint32_t OTF_RBuffer_readArray(OTF_RBuffer* rbuffer, uint32_t** array, uint32_t* size);
int OTF_RBuffer_testChar(OTF_RBuffer* rbuffer, char c);
int OTF_RBuffer_testKeyword(OTF_RBuffer* rbuffer, const char* string);
int OTF_RBuffer_testPrefix(OTF_RBuffer* rbuffer, const char* string);
int OTF_RBuffer_readNewline(OTF_RBuffer* rbuffer);
void OTF_RBuffer_skipSpaces(OTF_RBuffer* rbuffer);
void OTF_RBuffer_skipKeyword(OTF_RBuffer* rbuffer);
uint32_t OTF_RBuffer_readBytes(OTF_RBuffer* rbuffer, uint8_t* array, uint32_t max_len);
uint32_t OTF_RBuffer_readKeyValueList(OTF_RBuffer* buffer);

uint64_t OTF_RBuffer_getCurrentTime(OTF_RBuffer* rbuffer);
void OTF_RBuffer_setCurrentTime(OTF_RBuffer* rbuffer, uint64_t time);
uint32_t OTF_RBuffer_getCurrentProcess(OTF_RBuffer* rbuffer);
void OTF_RBuffer_setCurrentProcess(OTF_RBuffer* rbuffer, uint32_t process);

/* Positions the buffer before the first record with time >= `time`.
 * 1 ok, 0 on error. */
int OTF_RBuffer_searchTime(OTF_RBuffer* rbuffer, uint64_t time);
/* Finds the first and last time stamps of the file.  1 ok. */
int OTF_RBuffer_getFileProperties(OTF_RBuffer* rbuffer);
uint64_t OTF_RBuffer_getFileSize(OTF_RBuffer* rbuffer);
uint64_t OTF_RBuffer_getFilePos(OTF_RBuffer* rbuffer);

#ifdef __cplusplus
}
#endif

#endif /* OTF_RBUFFER_H */
