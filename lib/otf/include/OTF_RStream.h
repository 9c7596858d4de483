/*
 * OTF_RStream.h — reading one stream of a trace: its definitions, events,
 * snapshots, summaries and markers, each file in file order.
 *
 * Read functions return the number of records read (records without handler
 * count too), or OTF_READ_ERROR when a file is malformed or a handler did
 * not return OTF_RETURN_OK.  With a record limit a call returns after that
 * many records and the next call continues.
 *
 * Ownership: the stream owns its buffers; the manager is borrowed.
 */
#ifndef OTF_RSTREAM_H
#define OTF_RSTREAM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_inttypes.h"
#include "OTF_FileManager.h"
#include "OTF_RBuffer.h"
#include "OTF_Filenames.h"
#include "OTF_HandlerArray.h"

#ifdef __cplusplus
extern "C" {
#endif

struct struct_OTF_RStream {
    char* namestub;              /* owned */
    uint32_t id;
    OTF_RBuffer* defBuffer;      /* opened on demand, owned */
    OTF_RBuffer* eventBuffer;
    OTF_RBuffer* snapsBuffer;
    OTF_RBuffer* statsBuffer;
    OTF_RBuffer* markerBuffer;
    uint32_t buffersizes;
    uint32_t zbuffersizes;
    OTF_FileManager* manager;    /* borrowed */
    uint64_t recordLimit;        /* OTF_READ_MAXRECORDS: no limit */
};
typedef struct struct_OTF_RStream OTF_RStream;

OTF_RStream* OTF_RStream_open(const char* nameStub, uint32_t id, OTF_FileManager* manager);
int OTF_RStream_close(OTF_RStream* rstream);

/* Buffers, opened on demand (NULL if the file does not exist). */
OTF_RBuffer* OTF_RStream_getDefBuffer(OTF_RStream* rstream);
/* Replaces the definitions buffer (the stream takes ownership); returns the
 * old one, which the caller now owns. */
OTF_RBuffer* OTF_RStream_setDefBuffer(OTF_RStream* rstream, OTF_RBuffer* rbuffer);
int OTF_RStream_closeDefBuffer(OTF_RStream* rstream);
OTF_RBuffer* OTF_RStream_getEventBuffer(OTF_RStream* rstream);
int OTF_RStream_closeEventBuffer(OTF_RStream* rstream);
OTF_RBuffer* OTF_RStream_getSnapsBuffer(OTF_RStream* rstream);
int OTF_RStream_closeSnapsBuffer(OTF_RStream* rstream);
OTF_RBuffer* OTF_RStream_getStatsBuffer(OTF_RStream* rstream);
int OTF_RStream_closeStatsBuffer(OTF_RStream* rstream);
OTF_RBuffer* OTF_RStream_getMarkerBuffer(OTF_RStream* rstream);
int OTF_RStream_closeMarkerBuffer(OTF_RStream* rstream);

void OTF_RStream_setBufferSizes(OTF_RStream* rstream, uint32_t size);
uint32_t OTF_RStream_getBufferSizes(OTF_RStream* rstream);
void OTF_RStream_setZBufferSizes(OTF_RStream* rstream, uint32_t size);
uint32_t OTF_RStream_getZBufferSizes(OTF_RStream* rstream);
void OTF_RStream_setRecordLimit(OTF_RStream* rstream, uint64_t limit);
uint64_t OTF_RStream_getRecordLimit(OTF_RStream* rstream);

uint64_t OTF_RStream_readDefinitions(OTF_RStream* rstream, OTF_HandlerArray* handlers);
uint64_t OTF_RStream_readEvents(OTF_RStream* rstream, OTF_HandlerArray* handlers);
uint64_t OTF_RStream_readSnapshots(OTF_RStream* rstream, OTF_HandlerArray* handlers);
uint64_t OTF_RStream_readStatistics(OTF_RStream* rstream, OTF_HandlerArray* handlers);
uint64_t OTF_RStream_readMarker(OTF_RStream* rstream, OTF_HandlerArray* handlers);

/* Progress of a read: minimum, current and maximum in records, time or
 * bytes.  1 ok, 0 if nothing is being read. */
uint8_t OTF_RStream_eventProgress(OTF_RStream* rstream, uint64_t* minimum, uint64_t* current,
                                  uint64_t* maximum);
uint8_t OTF_RStream_snapshotProgress(OTF_RStream* rstream, uint64_t* minimum,
                                     uint64_t* current, uint64_t* maximum);
uint8_t OTF_RStream_statisticProgress(OTF_RStream* rstream, uint64_t* minimum,
                                      uint64_t* current, uint64_t* maximum);
uint8_t OTF_RStream_eventTimeProgress(OTF_RStream* rstream, uint64_t* minimum,
                                      uint64_t* current, uint64_t* maximum);
uint8_t OTF_RStream_snapshotTimeProgress(OTF_RStream* rstream, uint64_t* minimum,
                                         uint64_t* current, uint64_t* maximum);
uint8_t OTF_RStream_statisticTimeProgress(OTF_RStream* rstream, uint64_t* minimum,
                                          uint64_t* current, uint64_t* maximum);
uint8_t OTF_RStream_eventBytesProgress(OTF_RStream* rstream, uint64_t* minimum,
                                       uint64_t* current, uint64_t* maximum);
uint8_t OTF_RStream_snapshotBytesProgress(OTF_RStream* rstream, uint64_t* minimum,
                                          uint64_t* current, uint64_t* maximum);
uint8_t OTF_RStream_statisticBytesProgress(OTF_RStream* rstream, uint64_t* minimum,
                                           uint64_t* current, uint64_t* maximum);

#ifdef __cplusplus
}
#endif

#endif /* OTF_RSTREAM_H */
