/*
 * vftr_otf_scan.h — vftr's batch decoder of event records (an extension of
 * the OTF API, not part of the reference's): the records a call-stack and
 * message replay needs, decoded from an event buffer into a plain array,
 * without a handler call per record.
 *
 * What it decodes: Enter, Leave, SendMsg, RecvMsg, CollectiveOperation,
 * BeginCollectiveOperation, EndCollectiveOperation, Counter, FileOperation,
 * BeginFileOperation and EndFileOperation records of an events file
 * (OTF_RStream_getEventBuffer), each into one vftr_otf_ev (the file records
 * through the general parser: they are rare).
 * Other records (and key-value lists) are read and passed over.  The values
 * are exactly those the reader's handlers would receive: the short records
 * the writers produce ("E5", "L5", "S2L40T1C0", ...) are decoded in place,
 * anything else (long keywords, key-value lines, source-code locations,
 * blanks, "\r\n") goes through the library's general record parser.
 *
 * Time window: records with time < min are passed over; the scan stops
 * before the first record with time >= max and leaves it unread (a later
 * call with a larger max continues there).  Position the buffer first,
 * e.g. with OTF_RBuffer_searchTime(rb, min).
 *
 * Ownership: the caller owns `out`; the buffer is only read and advanced.
 * Threads: one buffer is used by one thread at a time; separate buffers
 * (of separate streams or file managers) may be scanned concurrently.
 */
#ifndef VFTR_OTF_SCAN_H
#define VFTR_OTF_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "OTF_RBuffer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One decoded event record (56 bytes). */
typedef struct vftr_otf_ev {
    uint64_t time;
    uint32_t type;       /* OTF_ENTER_RECORD, OTF_LEAVE_RECORD, OTF_SEND_RECORD,
                            OTF_RECEIVE_RECORD, OTF_COLLOP_RECORD,
                            OTF_BEGINCOLLOP_RECORD, OTF_ENDCOLLOP_RECORD,
                            OTF_COUNTER_RECORD, OTF_FILEOPERATION_RECORD,
                            OTF_BEGINFILEOP_RECORD, OTF_ENDFILEOP_RECORD,
                            OTF_RMAPUT_RECORD, OTF_RMAPUTRE_RECORD,
                            OTF_RMAGET_RECORD, OTF_RMAEND_RECORD */
    uint32_t process;    /* the record's process: for SendMsg the sender, for
                            RecvMsg the receiver */
    uint32_t u[4];       /* Enter, Leave: function (0: Leave without one);
                            SendMsg: receiver, group, type (tag), length;
                            RecvMsg: sender, group, type (tag), length;
                            CollectiveOperation, BeginCollectiveOperation:
                            collective, group, root; Counter: counter;
                            FileOperation, EndFileOperation: file, operation;
                            RMAPut, RMAPutRemoteEnd, RMAGet: origin, target,
                            communicator, tag; RMAEnd: 0, remote,
                            communicator, tag */
    uint64_t x[3];       /* CollectiveOperation: sent, received, duration;
                            BeginCollectiveOperation: matching id, sent, received;
                            EndCollectiveOperation: matching id; Counter: value;
                            FileOperation: handle, bytes, duration;
                            BeginFileOperation: matching id;
                            EndFileOperation: matching id, handle, bytes;
                            RMAPut, RMAPutRemoteEnd, RMAGet: bytes, matching id;
                            RMAEnd: 0, matching id (the matching id: the
                            value of key rma_key in the record's key-value
                            list, 0 without one) */
} vftr_otf_ev;

/*
 * Decodes the next events of `rb` with min <= time < max into out[0..cap).
 * Returns how many (fewer than cap only when the scan has reached max or the
 * end of the file: then *done, if not NULL, is set to 1, else to 0), or -1
 * on a read error or a malformed record (otf_errno/otf_strerr say which
 * file, offset and record).  cap 0 returns 0.  rma_key: the key (a
 * DefKeyValue token of type OTF_UINT64) whose value in an RMA record's
 * key-value list is its matching id; 0 when the trace defines none.
 */
long vftr_otf_scan_events(OTF_RBuffer* rb, uint64_t min, uint64_t max, uint32_t rma_key,
                          vftr_otf_ev* out, size_t cap, int* done);

/* One RMA record (RMAPut, RMAPutRemoteEnd, RMAGet, RMAEnd: `type`) as the
 * event above: its matching id read from kv under rma_key.  For the readers
 * with handlers of their own (the window replay), so that an RMA record
 * means the same to every reader. */
vftr_otf_ev vftr_otf_rma_ev(uint32_t type, uint64_t time, uint32_t process, uint32_t origin,
                            uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                            OTF_KeyValueList* kv, uint32_t rma_key);

#ifdef __cplusplus
}
#endif

#endif /* VFTR_OTF_SCAN_H */
