/*
 * OTF_Definitions.h — constants of the OTF API: record type identifiers (the
 * index of a record's handler in an OTF_HandlerArray), stream formats, counter
 * properties, collective types, file operations, markers, handler return
 * codes and the error variables.
 *
 * The numeric values are part of the API and of the ABI of OTF 1.12: they are
 * the same as in every other OTF implementation.
 */
#ifndef OTF_DEFINITIONS_H
#define OTF_DEFINITIONS_H

#include "OTF_Version.h"
#include "OTF_inttypes.h"

/* --- record type identifiers ------------------------------------------ */

/* events */
#define OTF_EVENTCOMMENT_RECORD               0
#define OTF_COUNTER_RECORD                    1
#define OTF_ENTER_RECORD                      2
#define OTF_COLLOP_RECORD                     5
#define OTF_RECEIVE_RECORD                   10
#define OTF_SEND_RECORD                      11
#define OTF_LEAVE_RECORD                     12
#define OTF_BEGINPROCESS_RECORD              35
#define OTF_ENDPROCESS_RECORD                36
#define OTF_FILEOPERATION_RECORD             42
#define OTF_RMAPUT_RECORD                    47
#define OTF_RMAPUTRE_RECORD                  48
#define OTF_RMAGET_RECORD                    49
#define OTF_RMAEND_RECORD                    50
#define OTF_BEGINCOLLOP_RECORD               51
#define OTF_ENDCOLLOP_RECORD                 52
#define OTF_BEGINFILEOP_RECORD               53
#define OTF_ENDFILEOP_RECORD                 54
#define OTF_NOOP_RECORD                      58

/* definitions */
#define OTF_DEFTIMERRESOLUTION_RECORD        13
#define OTF_DEFPROCESS_RECORD                14
#define OTF_DEFPROCESSGROUP_RECORD           15
#define OTF_DEFFUNCTION_RECORD               16
#define OTF_DEFFUNCTIONGROUP_RECORD          17
#define OTF_DEFCOUNTER_RECORD                18
#define OTF_DEFCOUNTERGROUP_RECORD           19
#define OTF_DEFCOLLOP_RECORD                 20
#define OTF_DEFSCL_RECORD                    21
#define OTF_DEFSCLFILE_RECORD                22
#define OTF_DEFVERSION_RECORD                23
#define OTF_DEFCREATOR_RECORD                24
#define OTF_DEFFILE_RECORD                   25
#define OTF_DEFFILEGROUP_RECORD              26
#define OTF_DEFINITIONCOMMENT_RECORD         34
#define OTF_DEFATTRLIST_RECORD               55
#define OTF_DEFPROCESSORGROUPATTR_RECORD     56
#define OTF_DEFKEYVALUE_RECORD               57
#define OTF_DEFTIMERANGE_RECORD              61
#define OTF_DEFCOUNTERASSIGNMENTS_RECORD     62
#define OTF_DEFPROCESSSUBSTITUTES_RECORD     63
#define OTF_DEFUNIQUEID_RECORD               64
#define OTF_DEFAUXSAMPLEPOINT_RECORD         65

/* summaries */
#define OTF_FUNCTIONSUMMARY_RECORD           28
#define OTF_FUNCTIONGROUPSUMMARY_RECORD      29
#define OTF_MESSAGESUMMARY_RECORD            30
#define OTF_FILEOPERATIONSUMMARY_RECORD      31
#define OTF_FILEGROUPOPERATIONSUMMARY_RECORD 32
#define OTF_SUMMARYCOMMENT_RECORD            39
#define OTF_COLLOPSUMMARY_RECORD             44

/* snapshots */
#define OTF_ENTERSNAPSHOT_RECORD             37
#define OTF_SENDSNAPSHOT_RECORD              38
#define OTF_SNAPSHOTCOMMENT_RECORD           40
#define OTF_OPENFILESNAPSHOT_RECORD          43
#define OTF_BEGINCOLLOPSNAPSHOT_RECORD       59
#define OTF_BEGINFILEOPSNAPSHOT_RECORD       60
#define OTF_COLLOPCOUNTSNAPSHOT_RECORD       66
#define OTF_COUNTERSNAPSHOT_RECORD           67

/* markers and the catch-all */
#define OTF_UNKNOWN_RECORD                   41
#define OTF_DEFMARKER_RECORD                 45
#define OTF_MARKER_RECORD                    46

/* Size of an OTF_HandlerArray: one more than the largest identifier. */
#define OTF_NRECORDS                         68

/* --- stream formats (OTF_Writer_setFormat, OTF_WStream_setFormat) ------ */
#define OTF_WSTREAM_FORMAT_SHORT             0
#define OTF_WSTREAM_FORMAT_LONG              1
/* bit: snapshots go into the events file instead of a .snaps file */
#define OTF_WSTREAM_FORMAT_INLINE_SNAPSHOTS  2

/* --- counter properties (DefCounter) ------------------------------------ *
 * Three independent bit fields: type (accumulated or absolute), scope (the
 * interval a value belongs to) and value type. */
#define OTF_COUNTER_TYPE_BITS       3
#define OTF_COUNTER_TYPE_ACC        0
#define OTF_COUNTER_TYPE_ABS        1

#define OTF_COUNTER_SCOPE_BITS      12
#define OTF_COUNTER_SCOPE_START     0
#define OTF_COUNTER_SCOPE_POINT     4
#define OTF_COUNTER_SCOPE_LAST      8
#define OTF_COUNTER_SCOPE_NEXT      12

#define OTF_COUNTER_VARTYPE_ISINTEGER(x)  ((x) < 256)
#define OTF_COUNTER_VARTYPE_ISSIGNED(x)   (((x) & 32) == 32)
#define OTF_COUNTER_VARTYPE_ISUNSIGNED(x) (((x) & 32) == 0)
#define OTF_COUNTER_VARTYPE_BITS          480
#define OTF_COUNTER_VARTYPE_UNSIGNED8     0
#define OTF_COUNTER_VARTYPE_SIGNED8       32
#define OTF_COUNTER_VARTYPE_UNSIGNED4     64
#define OTF_COUNTER_VARTYPE_SIGNED4       96
#define OTF_COUNTER_VARTYPE_UNSIGNED2     128
#define OTF_COUNTER_VARTYPE_SIGNED2       160
#define OTF_COUNTER_VARTYPE_FLOAT         256
#define OTF_COUNTER_VARTYPE_DOUBLE        288

#define OTF_COUNTER_PROP_DEFAULT          0

/* --- collective operation types (DefCollectiveOperation) --------------- */
#define OTF_COLLECTIVE_TYPE_UNKNOWN  0
#define OTF_COLLECTIVE_TYPE_BARRIER  1
#define OTF_COLLECTIVE_TYPE_ONE2ALL  2
#define OTF_COLLECTIVE_TYPE_ALL2ONE  3
#define OTF_COLLECTIVE_TYPE_ALL2ALL  4

/* --- file operations: low 5 bits the operation, the rest flags ---------- */
#define OTF_FILEOP_BITS        0x0000001f
#define OTF_FILEOP_OPEN        0
#define OTF_FILEOP_CLOSE       1
#define OTF_FILEOP_READ        2
#define OTF_FILEOP_WRITE       3
#define OTF_FILEOP_SEEK        4
#define OTF_FILEOP_UNLINK      5
#define OTF_FILEOP_RENAME      6
#define OTF_FILEOP_DUP         7
#define OTF_FILEOP_SYNC        8
#define OTF_FILEOP_LOCK        9
#define OTF_FILEOP_UNLOCK      10
#define OTF_FILEOP_OTHER       31

#define OTF_IOFLAGS_BITS       0xffffffe0
#define OTF_IOFLAG_IOFAILED    32
#define OTF_IOFLAG_ASYNC       64
#define OTF_IOFLAG_COLL        128
#define OTF_IOFLAG_DIRECT      256
#define OTF_IOFLAG_SYNC        512
#define OTF_IOFLAG_ISREADLOCK  1024

#define OTF_FILEOP(x) ((x) & OTF_FILEOP_BITS)

/* --- marker types (DefMarker) ------------------------------------------- */
#define OTF_MARKER_TYPE_UNKNOWN  0
#define OTF_MARKER_TYPE_ERROR    1
#define OTF_MARKER_TYPE_WARNING  2
#define OTF_MARKER_TYPE_HINT     3

/* --- errors ---------------------------------------------------------------
 * otf_errno is OTF_NO_ERROR or OTF_ERROR; otf_strerr holds the last message.
 * Both are thread-local in vftr (see OTF_Errno.h).
 *
 * Interface generators parse this header without a compiler: SWIG (which the
 * reference's Python bindings run over the public headers) knows no storage
 * class for threads, so it is shown the reference's plain declarations.
 * That is all it needs: it wraps both as variables, and the wrapper it
 * generates is compiled with the declarations below, so a binding reads and
 * sets the calling thread's copy. */
#define OTF_ERR_LEN   1000
#define OTF_NO_ERROR  0
#define OTF_ERROR     (-1)

#if defined(SWIG)
#  define OTF_THREAD_LOCAL
#elif defined(__cplusplus) && __cplusplus >= 201103L
#  define OTF_THREAD_LOCAL thread_local
#elif defined(__GNUC__) || defined(__clang__)
#  define OTF_THREAD_LOCAL __thread
#else
#  define OTF_THREAD_LOCAL _Thread_local
#endif

#ifdef __cplusplus
extern "C" {
#endif
extern OTF_THREAD_LOCAL char otf_strerr[OTF_ERR_LEN];
extern OTF_THREAD_LOCAL int otf_errno;
#ifdef __cplusplus
}
#endif

/* Byte arrays in key-value lists are split into pieces of at most this many
 * bytes (one line each in the file). */
#define OTF_KEYVALUE_MAX_ARRAY_LEN 100

/* --- attribute types (DefAttributeList) --------------------------------- */
typedef enum OTF_ATTR_TYPE_enum {
    OTF_ATTR_UNKNOWN = 0,
    OTF_ATTR_IsMPIRank = 1,
    OTF_ATTR_IsPThread = 2,
    OTF_ATTR_IsOMPThread = 3,
    OTF_ATTR_IsCellSPUThread = 4,
    OTF_ATTR_hasGroupCounters = 5,
    OTF_ATTR_hasEnterLeaveRecords = 6,
    OTF_ATTR_IsCommunicator = 7,
    OTF_ATTR_IsCUDAThread = 8,
    OTF_ATTR_IsMasterThread = 9
} OTF_ATTR_TYPE;

/* What a DefAuxSamplePoint says is available at its time. */
typedef enum OTF_AuxSamplePointType_enum {
    OTF_AUX_SAMPLE_POINT_SNAPSHOT = 0,
    OTF_AUX_SAMPLE_POINT_SUMMARY = 1,
    OTF_AUX_SAMPLE_POINT_INLINE_SNAPSHOT = 2
} OTF_AuxSamplePointType;

/* --- handler return values and read results -----------------------------
 * A handler returns OTF_RETURN_OK to go on; anything else stops the read,
 * which then returns OTF_READ_ERROR. */
#define OTF_RETURN_OK     0
#define OTF_RETURN_BREAK  1
#define OTF_RETURN_ABORT  1

#define OTF_READ_ERROR       ((uint64_t)-1)
#define OTF_READ_MAXRECORDS  ((uint64_t)-2)

/* Default size of the buffer that holds compressed bytes. */
#define OTF_ZBUFFER_DEFAULTSIZE (1 * 1024 * 1024)

/* IOFSL (I/O forwarding) modes.  vftr does not implement the IOFSL file
 * layer; the constants exist so that programs naming them compile. */
enum enum_OTF_IofslMode {
    OTF_IOFSL_DISABLED = 0,
    OTF_IOFSL_MULTIFILE_SPLIT = 1,
    OTF_IOFSL_MULTIFILE = 2
};
typedef enum enum_OTF_IofslMode OTF_IofslMode;
#define OTF_IOFSL_INDEX_BUFFER_DEFAULTLENGTH (1 * 1024)
#define OTF_IOFSL_FLAG_NONBLOCKING (1 << 0)

#endif /* OTF_DEFINITIONS_H */
