/*
 * OTF_Reader.h — reading a whole trace: its master control file, then the
 * definitions of stream 0 and of every stream, and the events (snapshots,
 * summaries) of all streams merged by time.
 *
 * Read functions return the number of records read — records without a
 * handler count too — or OTF_READ_ERROR (otf_errno, otf_strerr say why) for
 * a malformed file or a handler that did not return OTF_RETURN_OK.
 * Processes can be disabled (their records are skipped, not counted); a time
 * interval [min, max) restricts timed records, found by binary search in
 * every file; a record limit makes a read return after that many records,
 * the next call continuing where it stopped.  setTimeInterval,
 * setProcessStatus, setProcessStatusAll and reset restart the timed reads;
 * enableProcess and disableProcess apply to the records still to come.
 *
 * Order: the records of one file come in file order.  The merged reads hand
 * out records of different streams with equal time stamps in the reference
 * OTF's order (that of its reader's heap), and the unsorted reads take the
 * streams in the reference's order too (the first one, then the last, the
 * one before, ...), so programs print and copy the same as with OTF.  The
 * sorted and the unsorted read of one kind continue one and the same read.
 *
 * Ownership: the reader owns its streams and master control; the manager is
 * borrowed and must outlive it.  Not thread-safe: one reader per thread.
 */
#ifndef OTF_READER_H
#define OTF_READER_H

#include "OTF_inttypes.h"
#include "OTF_MasterControl.h"
#include "OTF_FileManager.h"
#include "OTF_RStream.h"
#include "OTF_HandlerArray.h"

#ifdef __cplusplus
extern "C" {
#endif

struct struct_OTF_Reader;
typedef struct struct_OTF_Reader OTF_Reader;

/* Opens trace `namestub` ("foo" or "foo.otf").  NULL if its master control
 * file cannot be read or lists no process. */
OTF_Reader* OTF_Reader_open(const char* namestub, OTF_FileManager* manager);
int OTF_Reader_close(OTF_Reader* reader);

int OTF_Reader_setBufferSizes(OTF_Reader* reader, uint32_t size);
uint32_t OTF_Reader_getBufferSizes(OTF_Reader* reader);
void OTF_Reader_setZBufferSizes(OTF_Reader* reader, uint32_t size);
uint32_t OTF_Reader_getZBufferSizes(OTF_Reader* reader);
/* Borrowed, owned by the reader. */
OTF_MasterControl* OTF_Reader_getMasterControl(OTF_Reader* reader);
/* Stream `id`, opened on demand; borrowed.  NULL on error. */
OTF_RStream* OTF_Reader_getStream(OTF_Reader* reader, uint32_t id);

int OTF_Reader_disableProcess(OTF_Reader* reader, uint32_t processId);
int OTF_Reader_enableProcess(OTF_Reader* reader, uint32_t processId);
uint8_t OTF_Reader_getProcessStatus(OTF_Reader* reader, uint32_t processId);
int OTF_Reader_setProcessStatus(OTF_Reader* reader, uint32_t processId, uint8_t status);
int OTF_Reader_setProcessStatusAll(OTF_Reader* reader, uint8_t status);

void OTF_Reader_setTimeInterval(OTF_Reader* reader, uint64_t minTime, uint64_t maxTime);
uint64_t OTF_Reader_getTimeIntervalMin(OTF_Reader* reader);
uint64_t OTF_Reader_getTimeIntervalMax(OTF_Reader* reader);
void OTF_Reader_setRecordLimit(OTF_Reader* reader, uint64_t limit);
uint64_t OTF_Reader_getRecordLimit(OTF_Reader* reader);
/* Back to the state after open: all processes enabled, no window, no
 * record limit, every read from the beginning. */
void OTF_Reader_reset(OTF_Reader* reader);
int OTF_Reader_closeAllStreams(OTF_Reader* reader);

uint64_t OTF_Reader_readDefinitions(OTF_Reader* reader, OTF_HandlerArray* handlers);
uint64_t OTF_Reader_readEvents(OTF_Reader* reader, OTF_HandlerArray* handlers);
/* Like readEvents, stream after stream without merging by time. */
uint64_t OTF_Reader_readEventsUnsorted(OTF_Reader* reader, OTF_HandlerArray* handlers);
uint64_t OTF_Reader_readSnapshots(OTF_Reader* reader, OTF_HandlerArray* handlers);
uint64_t OTF_Reader_readSnapshotsUnsorted(OTF_Reader* reader, OTF_HandlerArray* handlers);
uint64_t OTF_Reader_readStatistics(OTF_Reader* reader, OTF_HandlerArray* handlers);
uint64_t OTF_Reader_readStatisticsUnsorted(OTF_Reader* reader, OTF_HandlerArray* handlers);
uint64_t OTF_Reader_readMarkers(OTF_Reader* reader, OTF_HandlerArray* handlers);

/* Progress of the current read of a kind, sorted or unsorted.  The plain and
 * the *TimeProgress functions answer as the reference does: 0 (outputs left
 * alone) before a read of that kind or while the read stands outside its
 * range, else 1 with the range (the interval narrowed to the first and last
 * time stamps of the files read) and the current time: that of the next
 * record in a sorted read, an estimate from the share of streams done in an
 * unsorted one.  *BytesProgress: 0 before a read, else 1 with a range of
 * file offsets min <= current <= max that ends complete. */
uint8_t OTF_Reader_eventProgress(OTF_Reader* reader, uint64_t* minimum, uint64_t* current,
                                 uint64_t* maximum);
uint8_t OTF_Reader_snapshotProgress(OTF_Reader* reader, uint64_t* minimum, uint64_t* current,
                                    uint64_t* maximum);
uint8_t OTF_Reader_statisticProgress(OTF_Reader* reader, uint64_t* minimum, uint64_t* current,
                                     uint64_t* maximum);
uint8_t OTF_Reader_eventTimeProgress(OTF_Reader* reader, uint64_t* minimum, uint64_t* current,
                                     uint64_t* maximum);
uint8_t OTF_Reader_snapshotTimeProgress(OTF_Reader* reader, uint64_t* minimum,
                                        uint64_t* current, uint64_t* maximum);
uint8_t OTF_Reader_statisticTimeProgress(OTF_Reader* reader, uint64_t* minimum,
                                         uint64_t* current, uint64_t* maximum);
uint8_t OTF_Reader_eventBytesProgress(OTF_Reader* reader, uint64_t* minimum, uint64_t* current,
                                      uint64_t* maximum);
uint8_t OTF_Reader_snapshotBytesProgress(OTF_Reader* reader, uint64_t* minimum,
                                         uint64_t* current, uint64_t* maximum);
uint8_t OTF_Reader_statisticBytesProgress(OTF_Reader* reader, uint64_t* minimum,
                                          uint64_t* current, uint64_t* maximum);

#ifdef __cplusplus
}
#endif

#endif /* OTF_READER_H */
