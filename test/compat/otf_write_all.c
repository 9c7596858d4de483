/*
 * otf_write_all — writes one OTF trace that calls every write function of the
 * OTF 1.12.5 API: every OTF_Writer_write* and *KV variant and every
 * OTF_WStream_write* reached through OTF_Writer_getStream.
 *
 * Built twice (against the reference OTF and against vftr); the compat scripts
 * compare the two traces byte for byte, so everything here is deterministic:
 * no clock, no randomness (only the library's DefUniqueId line differs).
 *
 * Usage: otf_write_all [-f short|long] [-z LEVEL] [-n ROUNDS] [-s STREAMS]
 *                      [-b BUFSIZE] [-m MAXFILES] [-x] STUB
 *
 *   -b  OTF_Writer_setBufferSizes (small sizes force many flushes/segments)
 *   -m  number of files the OTF_FileManager may keep open (forces suspends)
 *   -x  leave out the stream with the time error (VICTIM): the reference
 *       reader fails (OTF_RBuffer_searchTime) on a time window whose end lies
 *       between the last real time stamp of such a stream and its
 *       ffffffffffffffff tail, so the window tests use traces without it
 *
 * Layout of the trace (the compat scripts compute expected record counts
 * from it, keep test/integration/otf_compat_common.sh in step when changing it):
 *   processes 1..NPROCS, mapped automatically (round robin over the streams),
 *   plus VICTIM alone on its own stream, which receives a decreasing time
 *   stamp and so exercises the writer's error path;
 *   prologue at time 0 (every process: BeginProcess, Enter main);
 *   round r (0..ROUNDS-1) starts at T0 + r*ROUND; in slot k of a round every
 *   process writes one event record of kind k at T0 + r*ROUND + k*SLOT +
 *   (p-1)/2 (so processes 2i+1 and 2i+2 share time stamps);
 *   epilogue at T0 + ROUNDS*ROUND (Leave main, EndProcess);
 *   one snapshot and one summary record of every kind per process and round
 *   on the same time grid; one marker per process and round.
 *
 * Standard output is a log (mapping, getters, every failed write call) that
 * must also be identical between the two builds.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf.h>

#include "compat_layout.h"

enum variant { V_WRITER, V_WRITER_KV, V_WSTREAM, V_WSTREAM_KV, V_COUNT };

static const char *const variant_name[V_COUNT] = {
    "Writer", "WriterKV", "WStream", "WStreamKV"
};

struct ctx {
    OTF_Writer *w;
    OTF_KeyValueList *kv;
    uint64_t calls;       /* write calls made */
    uint64_t failed;      /* write calls that returned 0 */
    uint64_t kv_kept;     /* KV calls after which the list was not emptied */
    int victim;           /* write the stream with the time error */
};

/* Key ids defined in the trace: one per OTF_Type, plus extra byte-array keys. */
enum {
    KEY_CHAR = 1, KEY_INT8, KEY_UINT8, KEY_INT16, KEY_UINT16, KEY_INT32,
    KEY_UINT32, KEY_INT64, KEY_UINT64, KEY_FLOAT, KEY_DOUBLE, KEY_BYTES,
    KEY_LONGBYTES = 0x20, KEY_BIG = 0xfffffffeu
};

/* A well-mixed 64-bit value for (round, process, salt); every field of a
 * record uses its own salt so that a writer or reader that swaps two fields
 * cannot go unnoticed. */
static uint64_t mix(uint32_t r, uint32_t p, uint32_t salt)
{
    uint64_t x = ((uint64_t)r << 32) ^ ((uint64_t)p << 20) ^ salt;

    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Values of varying hex length (1..8 resp. 1..16 digits, sometimes 0). */
static uint32_t u32v(uint32_t r, uint32_t p, uint32_t salt)
{
    uint64_t x = mix(r, p, salt);
    return (uint32_t)(x >> 32) >> (x % 33 == 32 ? 31 : x % 32);
}

static uint64_t u64v(uint32_t r, uint32_t p, uint32_t salt)
{
    uint64_t x = mix(r, p, salt + 0x5000);
    return x >> ((x >> 3) % 64);
}

/* Fills the key-value list for one call.  The pattern depends on `seed` so
 * that over a trace every type, extreme values and byte arrays of the
 * interesting lengths (1, 100, 101, more than 200) all appear. */
static void kv_fill(struct ctx *c, uint64_t seed)
{
    OTF_KeyValueList *l = c->kv;
    uint8_t bytes[300];
    uint32_t len;

    OTF_KeyValueList_reset(l);
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 37u + seed * 11u);

    switch (seed % 6) {
    case 0: /* every scalar type at an extreme */
        OTF_KeyValueList_appendChar(l, KEY_CHAR, 'x');
        OTF_KeyValueList_appendInt8(l, KEY_INT8, INT8_MIN);
        OTF_KeyValueList_appendUint8(l, KEY_UINT8, UINT8_MAX);
        OTF_KeyValueList_appendInt16(l, KEY_INT16, -1);
        OTF_KeyValueList_appendUint16(l, KEY_UINT16, UINT16_MAX);
        OTF_KeyValueList_appendInt32(l, KEY_INT32, INT32_MIN);
        OTF_KeyValueList_appendUint32(l, KEY_UINT32, UINT32_MAX);
        OTF_KeyValueList_appendInt64(l, KEY_INT64, INT64_MIN);
        OTF_KeyValueList_appendUint64(l, KEY_UINT64, UINT64_MAX);
        OTF_KeyValueList_appendFloat(l, KEY_FLOAT, -1.5f);
        OTF_KeyValueList_appendDouble(l, KEY_DOUBLE, 6.02214076e23);
        break;
    case 1: /* small values, zero included */
        OTF_KeyValueList_appendUint32(l, KEY_UINT32, (uint32_t)seed);
        OTF_KeyValueList_appendInt64(l, KEY_INT64, -(int64_t)seed);
        OTF_KeyValueList_appendUint8(l, KEY_UINT8, 0);
        /* Not '\0': the reference reader returns garbage for a char value
         * written with a single hex digit when it is not the first pair. */
        OTF_KeyValueList_appendChar(l, KEY_CHAR, (char)('A' + seed % 26));
        break;
    case 2: /* a byte array longer than OTF_KEYVALUE_MAX_ARRAY_LEN */
        len = 101 + (uint32_t)(seed % 150);
        OTF_KeyValueList_appendByteArray(l, KEY_LONGBYTES, bytes, len);
        OTF_KeyValueList_appendInt32(l, KEY_INT32, (int32_t)seed);
        break;
    case 3: /* arrays of exactly 100 and of 1 byte, big key id */
        OTF_KeyValueList_appendByteArray(l, KEY_BYTES, bytes, 100);
        OTF_KeyValueList_appendByteArray(l, KEY_BIG, bytes + 7, 1);
        break;
    case 4: /* floating point specials and the other integer types */
        OTF_KeyValueList_appendFloat(l, KEY_FLOAT, 1.0f / 3.0f);
        OTF_KeyValueList_appendDouble(l, KEY_DOUBLE, -0.0);
        OTF_KeyValueList_appendInt16(l, KEY_INT16, INT16_MIN);
        OTF_KeyValueList_appendUint16(l, KEY_UINT16, (uint16_t)seed);
        OTF_KeyValueList_appendInt8(l, KEY_INT8, -1);
        break;
    default: /* a 300-byte array (three continuation lines) and a uint64 */
        OTF_KeyValueList_appendByteArray(l, KEY_LONGBYTES, bytes, 300);
        OTF_KeyValueList_appendUint64(l, KEY_UINT64, seed * 0x100000001ull);
        break;
    }
}

/* Prepares one call: fills the list for the KV variants, empties it for the
 * others, and returns the stream object the WStream variants write to. */
static OTF_WStream *prep(struct ctx *c, enum variant v, uint32_t stream, uint64_t seed)
{
    if (v == V_WRITER_KV || v == V_WSTREAM_KV)
        kv_fill(c, seed);
    else
        OTF_KeyValueList_reset(c->kv);
    return OTF_Writer_getStream(c->w, stream);
}

static void done(struct ctx *c, enum variant v, const char *what, int ret,
                 uint64_t time, uint32_t proc)
{
    c->calls++;
    if (ret != 1) {
        c->failed++;
        printf("write failed: %s %s t=%" PRIu64 " p=%" PRIu32 " ret=%d\n",
               variant_name[v], what, time, proc, ret);
    }
    if ((v == V_WRITER_KV || v == V_WSTREAM_KV) && OTF_KeyValueList_getCount(c->kv) != 0)
        c->kv_kept++;
}

/* Timed records: the Writer and WStream functions take the same arguments. */
#define PUT(c, v, ws, t, p, NAME, ...)                                          \
    done((c), (v), #NAME,                                                       \
         (v) == V_WRITER    ? OTF_Writer_write##NAME((c)->w, __VA_ARGS__) :     \
         (v) == V_WRITER_KV ? OTF_Writer_write##NAME##KV((c)->w, __VA_ARGS__, (c)->kv) : \
         (v) == V_WSTREAM   ? OTF_WStream_write##NAME((ws), __VA_ARGS__) :      \
                              OTF_WStream_write##NAME##KV((ws), __VA_ARGS__, (c)->kv), \
         (t), (p))

/* Records whose only form takes a list: the plain variants pass NULL. */
#define PUTL(c, v, ws, t, p, NAME, ...)                                         \
    done((c), (v), #NAME,                                                       \
         (v) == V_WRITER    ? OTF_Writer_write##NAME((c)->w, __VA_ARGS__, NULL) : \
         (v) == V_WRITER_KV ? OTF_Writer_write##NAME((c)->w, __VA_ARGS__, (c)->kv) : \
         (v) == V_WSTREAM   ? OTF_WStream_write##NAME((ws), __VA_ARGS__, NULL) : \
                              OTF_WStream_write##NAME((ws), __VA_ARGS__, (c)->kv), \
         (t), (p))

/* Definitions: the Writer functions take the stream id, WStream ones do not. */
#define DEF(c, v, s, NAME, ...)                                                 \
    do {                                                                        \
        OTF_WStream *ws_ = prep((c), (v), (s), __LINE__);                       \
        done((c), (v), #NAME,                                                   \
             (v) == V_WRITER    ? OTF_Writer_write##NAME((c)->w, (s), __VA_ARGS__) : \
             (v) == V_WRITER_KV ? OTF_Writer_write##NAME##KV((c)->w, (s), __VA_ARGS__, (c)->kv) : \
             (v) == V_WSTREAM   ? OTF_WStream_write##NAME(ws_, __VA_ARGS__) :   \
                                  OTF_WStream_write##NAME##KV(ws_, __VA_ARGS__, (c)->kv), \
             0, (s));                                                           \
    } while (0)

#define DEFL(c, v, s, NAME, ...)                                                \
    do {                                                                        \
        OTF_WStream *ws_ = prep((c), (v), (s), __LINE__);                       \
        OTF_KeyValueList *l_ = ((v) == V_WRITER_KV || (v) == V_WSTREAM_KV) ? (c)->kv : NULL; \
        done((c), (v), #NAME,                                                   \
             ((v) == V_WRITER || (v) == V_WRITER_KV)                            \
                 ? OTF_Writer_write##NAME((c)->w, (s), __VA_ARGS__, l_)         \
                 : OTF_WStream_write##NAME(ws_, __VA_ARGS__, l_),               \
             0, (s));                                                           \
    } while (0)

/* Every definition record, in the given variant, to stream s. */
static void write_defs(struct ctx *c, enum variant v, uint32_t s)
{
    static const uint32_t members[] = { 1, 2, 3, 4, 5, 6, UINT32_MAX };
    OTF_ATTR_TYPE attrs[] = { OTF_ATTR_IsMPIRank, OTF_ATTR_IsOMPThread,
                              OTF_ATTR_hasEnterLeaveRecords, OTF_ATTR_IsCommunicator,
                              OTF_ATTR_IsMasterThread };
    uint32_t b = 0x100 * (uint32_t)v + 0x1000 * s; /* distinct tokens per call */

    DEF(c, v, s, DefinitionComment, "definition comment \"quoted\"\nsecond line");
    DEF(c, v, s, DefTimerResolution, v == V_WRITER ? UINT64_MAX : 1000000000ull + v);
    DEF(c, v, s, DefProcess, b + 1, "proc with name", 0);
    DEF(c, v, s, DefProcess, b + 2, NULL, b + 1);
    DEF(c, v, s, DefProcess, b + 3, "", UINT32_MAX);
    DEF(c, v, s, DefProcessGroup, b + 4, "group \"all\"", 7, members);
    DEF(c, v, s, DefProcessGroup, b + 5, "empty group", 0, members);
    DEF(c, v, s, DefAttributeList, b + 6, 5, attrs);
    DEF(c, v, s, DefAttributeList, b + 7, 0, attrs);
    DEF(c, v, s, DefProcessOrGroupAttributes, b + 4, b + 6);
    DEF(c, v, s, DefFunction, b + 8, "func\nwith newline", b + 9, 0);
    DEF(c, v, s, DefFunction, b + 10, "func with scl", UINT32_MAX, b + 11);
    DEF(c, v, s, DefFunctionGroup, b + 9, "function group");
    DEF(c, v, s, DefCollectiveOperation, b + 12, "MPI_Allreduce", OTF_COLLECTIVE_TYPE_ALL2ALL);
    DEF(c, v, s, DefCounter, b + 13, "counter", OTF_COUNTER_TYPE_ACC | OTF_COUNTER_SCOPE_START,
        b + 14, "#/s");
    DEF(c, v, s, DefCounter, b + 15, "", 0, 0, "");
    DEF(c, v, s, DefCounterGroup, b + 14, "counter group");
    DEF(c, v, s, DefScl, b + 11, b + 16, UINT32_MAX);
    DEF(c, v, s, DefSclFile, b + 16, "/src/file \"x\".c");
    DEF(c, v, s, DefCreator, "otf_write_all \"creator\"\n");
    DEF(c, v, s, DefFile, b + 17, "/tmp/data.bin", b + 18);
    DEF(c, v, s, DefFileGroup, b + 18, "file group");
    DEF(c, v, s, DefKeyValue, b + 19, OTF_DOUBLE, "key name", "key \"description\"\n");
    DEF(c, v, s, DefMarker, b + 20, "marker def", OTF_MARKER_TYPE_WARNING);
    DEFL(c, v, s, DefTimeRange, 0, v == V_WRITER ? UINT64_MAX : 0x123456789abull);
    DEFL(c, v, s, DefCounterAssignments, b + 13, 3, members);
    DEFL(c, v, s, DefCounterAssignments, b + 15, 0, members);
    DEFL(c, v, s, DefProcessSubstitutes, b + 1, 7, members);
    DEFL(c, v, s, DefAuxSamplePoint, v == V_WRITER ? UINT64_MAX : 0x4000 + v,
         (OTF_AuxSamplePointType)(v % 3));
}

/* The definitions a real trace needs, through the Writer (stream 0). */
static void write_main_defs(struct ctx *c)
{
    static const struct { uint32_t key; OTF_Type type; const char *name; } keys[] = {
        { KEY_CHAR, OTF_CHAR, "char" },       { KEY_INT8, OTF_INT8, "int8" },
        { KEY_UINT8, OTF_UINT8, "uint8" },    { KEY_INT16, OTF_INT16, "int16" },
        { KEY_UINT16, OTF_UINT16, "uint16" }, { KEY_INT32, OTF_INT32, "int32" },
        { KEY_UINT32, OTF_UINT32, "uint32" }, { KEY_INT64, OTF_INT64, "int64" },
        { KEY_UINT64, OTF_UINT64, "uint64" }, { KEY_FLOAT, OTF_FLOAT, "float" },
        { KEY_DOUBLE, OTF_DOUBLE, "double" }, { KEY_BYTES, OTF_BYTE_ARRAY, "bytes" },
        { KEY_LONGBYTES, OTF_BYTE_ARRAY, "long bytes" },
        { KEY_BIG, OTF_BYTE_ARRAY, "big key" },
    };
    uint32_t all[NPROCS];
    char name[64];

    done(c, V_WRITER, "DefCreator",
         OTF_Writer_writeDefCreator(c->w, 0, "vftr compat otf_write_all"), 0, 0);
    done(c, V_WRITER, "DefTimerResolution",
         OTF_Writer_writeDefTimerResolution(c->w, 0, 1000000000ull), 0, 0);
    for (uint32_t p = 1; p <= NPROCS; p++) {
        snprintf(name, sizeof name, "Process %" PRIu32, p - 1);
        done(c, V_WRITER, "DefProcess",
             OTF_Writer_writeDefProcess(c->w, 0, p, name, p > 1 ? 1 : 0), 0, 0);
        all[p - 1] = p;
    }
    if (c->victim)
        done(c, V_WRITER, "DefProcess",
             OTF_Writer_writeDefProcess(c->w, 0, VICTIM, "victim \"late\"\nprocess", 0), 0, 0);
    done(c, V_WRITER, "DefProcessGroup",
         OTF_Writer_writeDefProcessGroup(c->w, 0, 1000, "MPI_COMM_WORLD", NPROCS, all), 0, 0);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        done(c, V_WRITER, "DefKeyValue",
             OTF_Writer_writeDefKeyValue(c->w, 0, keys[i].key, keys[i].type, keys[i].name,
                                         "typed key"), 0, 0);
    done(c, V_WRITER, "DefFunctionGroup",
         OTF_Writer_writeDefFunctionGroup(c->w, 0, 1, "Application"), 0, 0);
    for (uint32_t f = 1; f <= NFUNCS; f++) {
        snprintf(name, sizeof name, "function_%" PRIu32, f);
        done(c, V_WRITER, "DefFunction",
             OTF_Writer_writeDefFunction(c->w, 0, f, name, 1, f % 2 ? 0 : f + 100), 0, 0);
    }
}

/* Field values: every field of a record gets its own salt (i) so that a
 * writer or reader that swaps two fields is caught; `maxima` puts the 32- and
 * 64-bit fields of one record of each kind at their maximum instead. */
#define F32(i) (maxima ? UINT32_MAX : u32v(r, p, 1000 * salt_base + 100 * k + (i)))
#define F64(i) (maxima ? UINT64_MAX : u64v(r, p, 1000 * salt_base + 100 * k + (i)))

/* One event record of kind k for process p in round r, time t. */
static void write_event(struct ctx *c, uint32_t k, uint32_t r, uint32_t p, uint64_t t)
{
    enum { salt_base = 1 };
    enum variant v = (enum variant)((r + p + k) % V_COUNT);
    OTF_WStream *ws = prep(c, v, OTF_Writer_mapProcess(c->w, p), (uint64_t)r * 31 + p * 7 + k);
    int maxima = r == 0 && p == 1;
    uint32_t scl = (r + p) % 2 ? 0 : u32v(r, p, 50 + k) | 1;   /* optional: 0 or not */
    uint32_t f = 1 + (r + p) % NFUNCS;
    uint32_t peer = 1 + p % NPROCS;              /* another process */
    uint32_t third = 1 + (p + 1) % NPROCS;       /* yet another one */

    switch (k) {
    case EV_ENTER:
        PUT(c, v, ws, t, p, Enter, t, f, p, scl);
        break;
    case EV_SEND:
        PUT(c, v, ws, t, p, SendMsg, t, p, peer, 1000, F32(1), F32(2), scl);
        break;
    case EV_RECV:
        PUT(c, v, ws, t, p, RecvMsg, t, p, peer, 1000, F32(1), F32(2), scl);
        break;
    case EV_COUNTER:
        PUT(c, v, ws, t, p, Counter, t, p, 1 + r % 3, F64(1));
        break;
    case EV_COLLOP:
        PUT(c, v, ws, t, p, CollectiveOperation, t, p, 1 + r % 2, 1000, peer, F32(1), F32(2),
            F64(3), scl);
        break;
    case EV_BEGINCOLLOP:
        PUT(c, v, ws, t, p, BeginCollectiveOperation, t, p, 1 + r % 2, F64(1), 1000, peer,
            F64(2), F64(3), scl);
        break;
    case EV_ENDCOLLOP:
        PUT(c, v, ws, t, p, EndCollectiveOperation, t, p, F64(1));
        break;
    case EV_COMMENT:
        PUT(c, v, ws, t, p, EventComment, t, p,
            (r + p) % 3 == 0 ? "" : "event \"comment\"\nwith newline");
        break;
    case EV_FILEOP:
        PUT(c, v, ws, t, p, FileOperation, t, 1 + r % 2, p, F64(1),
            OTF_FILEOP_WRITE | OTF_IOFLAG_ASYNC, F64(2), F64(3), scl);
        break;
    case EV_BEGINFILEOP:
        PUT(c, v, ws, t, p, BeginFileOperation, t, p, F64(1), scl);
        break;
    case EV_ENDFILEOP:
        PUT(c, v, ws, t, p, EndFileOperation, t, p, 1 + r % 2, F64(1), F64(2), OTF_FILEOP_READ,
            F64(3), scl);
        break;
    case EV_RMAPUT:
        PUT(c, v, ws, t, p, RMAPut, t, p, third, peer, 1000, F32(1), F64(2), scl);
        break;
    case EV_RMAPUTRE:
        PUT(c, v, ws, t, p, RMAPutRemoteEnd, t, p, third, peer, 1000, F32(1), F64(2), scl);
        break;
    case EV_RMAGET:
        PUT(c, v, ws, t, p, RMAGet, t, p, third, peer, 1000, F32(1), F64(2), scl);
        break;
    case EV_RMAEND:
        PUT(c, v, ws, t, p, RMAEnd, t, p, (r + p) % 2 ? 0 : peer, 1000, F32(1), scl);
        break;
    case EV_NOOP:
        PUTL(c, v, ws, t, p, NoOpKV, t, p);
        break;
    case EV_LEAVE:
        /* function 0 with scl 0 is written as a bare "L"; cover both. */
        if ((r + p) % 3 == 0)
            PUT(c, v, ws, t, p, Leave, t, 0, p, scl);
        else
            PUT(c, v, ws, t, p, Leave, t, f, p, scl);
        break;
    default:
        break;
    }
}

static void write_snapshot(struct ctx *c, uint32_t k, uint32_t r, uint32_t p, uint64_t t)
{
    enum { salt_base = 2 };
    enum variant v = (enum variant)((r + p + k + 1) % V_COUNT);
    OTF_WStream *ws = prep(c, v, OTF_Writer_mapProcess(c->w, p), (uint64_t)r * 17 + p * 5 + k);
    int maxima = r == 0 && p == 2;
    uint32_t scl = (r + p) % 2 ? u32v(r, p, 60 + k) | 1 : 0;
    uint64_t ot = maxima ? UINT64_MAX : t / 2 + k;      /* original time */

    switch (k) {
    case SN_COMMENT:
        PUT(c, v, ws, t, p, SnapshotComment, t, p, "snapshot \"comment\"\n");
        break;
    case SN_ENTER:
        PUT(c, v, ws, t, p, EnterSnapshot, t, ot, 1 + r % NFUNCS, p, scl);
        break;
    case SN_SEND:
        PUT(c, v, ws, t, p, SendSnapshot, t, ot, p, 1 + p % NPROCS, 1000, F32(1), F32(2), scl);
        break;
    case SN_OPENFILE:
        PUT(c, v, ws, t, p, OpenFileSnapshot, t, ot, 1 + r % 2, p, F64(1), scl);
        break;
    case SN_BEGINCOLLOP:
        PUT(c, v, ws, t, p, BeginCollopSnapshot, t, ot, p, 1 + r % 2, F64(1), 1000,
            1 + p % NPROCS, F64(2), F64(3), scl);
        break;
    case SN_BEGINFILEOP:
        PUT(c, v, ws, t, p, BeginFileOpSnapshot, t, ot, p, F64(1), scl);
        break;
    case SN_COLLOPCOUNT:
        PUTL(c, v, ws, t, p, CollopCountSnapshot, t, p, 1000, F64(1));
        break;
    case SN_COUNTER:
        PUTL(c, v, ws, t, p, CounterSnapshot, t, ot, p, 1 + r % 3, F64(1));
        break;
    default:
        break;
    }
}

static void write_summary(struct ctx *c, uint32_t k, uint32_t r, uint32_t p, uint64_t t)
{
    enum { salt_base = 3 };
    enum variant v = (enum variant)((r + p + k + 2) % V_COUNT);
    OTF_WStream *ws = prep(c, v, OTF_Writer_mapProcess(c->w, p), (uint64_t)r * 13 + p * 3 + k);
    int maxima = r == 0 && p == 3;

    switch (k) {
    case ST_COMMENT:
        PUT(c, v, ws, t, p, SummaryComment, t, p, "summary \"comment\"\n");
        break;
    case ST_FUNCTION:
        PUT(c, v, ws, t, p, FunctionSummary, t, 1 + r % NFUNCS, p, F64(1), F64(2), F64(3));
        break;
    case ST_FUNCTIONGROUP:
        PUT(c, v, ws, t, p, FunctionGroupSummary, t, 1, p, F64(1), F64(2), F64(3));
        break;
    case ST_MESSAGE:
        PUT(c, v, ws, t, p, MessageSummary, t, p, 1 + p % NPROCS, 1000, F32(1), F64(2), F64(3),
            F64(4), F64(5));
        break;
    case ST_COLLOP:
        PUT(c, v, ws, t, p, CollopSummary, t, p, 1000, 1 + r % 2, F64(1), F64(2), F64(3),
            F64(4));
        break;
    case ST_FILEOP:
        PUT(c, v, ws, t, p, FileOperationSummary, t, 1 + r % 2, p, F64(1), F64(2), F64(3),
            F64(4), F64(5), F64(6), F64(7));
        break;
    case ST_FILEGROUPOP:
        PUT(c, v, ws, t, p, FileGroupOperationSummary, t, 1, p, F64(1), F64(2), F64(3), F64(4),
            F64(5), F64(6), F64(7));
        break;
    default:
        break;
    }
}

#undef F32
#undef F64

static void write_marker(struct ctx *c, uint32_t r, uint32_t p, uint64_t t)
{
    enum variant v = (enum variant)((r + p) % V_COUNT);
    /* The WStream variants go to stream 0 as the Writer's do, so that all
     * markers end up in STUB.0.marker where OTF_Reader looks for them. */
    OTF_WStream *ws = prep(c, v, 0, (uint64_t)r * 19 + p);
    uint64_t mt = r == 0 && p == 1 ? UINT64_MAX : t;

    PUT(c, v, ws, t, p, Marker, mt, p, 1 + (r + p) % 4,
        (r + p) % 5 == 0 ? "" : "marker \"text\"\nline two");
}

/* The stream that receives a decreasing time stamp: two Enters, then two
 * Leaves that go back in time (both must fail, the second one silently
 * because the stream is dead by then). */
static void write_victim(struct ctx *c)
{
    kv_fill(c, 5);
    done(c, V_WRITER, "Enter", OTF_Writer_writeEnter(c->w, T0, 1, VICTIM, 0), T0, VICTIM);
    done(c, V_WRITER_KV, "Enter",
         OTF_Writer_writeEnterKV(c->w, T0 + 0x100, 2, VICTIM, 0, c->kv), T0 + 0x100, VICTIM);
    done(c, V_WRITER, "Leave", OTF_Writer_writeLeave(c->w, T0 + 0x80, 2, VICTIM, 0),
         T0 + 0x80, VICTIM);
    done(c, V_WRITER, "Leave", OTF_Writer_writeLeave(c->w, T0 + 0x180, 1, VICTIM, 0),
         T0 + 0x180, VICTIM);
}

static int usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-f short|long] [-z LEVEL] [-n ROUNDS] [-s STREAMS] "
            "[-b BUFSIZE] [-m MAXFILES] [-x] STUB\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    uint32_t format = OTF_WSTREAM_FORMAT_SHORT, level = 0, rounds = 4, streams = 2;
    uint32_t bufsize = 0, maxfiles = 100;
    struct ctx c = { .victim = 1 };
    OTF_FileManager *fm;
    int opt;

    while ((opt = getopt(argc, argv, "f:z:n:s:b:m:x")) != -1) {
        switch (opt) {
        case 'f':
            if (strcmp(optarg, "short") == 0)
                format = OTF_WSTREAM_FORMAT_SHORT;
            else if (strcmp(optarg, "long") == 0)
                format = OTF_WSTREAM_FORMAT_LONG;
            else
                return usage(argv[0]);
            break;
        case 'z': level = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'n': rounds = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 's': streams = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'b': bufsize = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'm': maxfiles = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'x': c.victim = 0; break;
        default: return usage(argv[0]);
        }
    }
    if (optind != argc - 1 || streams == 0 || rounds == 0 || level > 9)
        return usage(argv[0]);

    fm = OTF_FileManager_open(maxfiles);
    if (fm == NULL) {
        fprintf(stderr, "otf_write_all: OTF_FileManager_open failed\n");
        return 1;
    }
    c.w = OTF_Writer_open(argv[optind], streams, fm);
    c.kv = OTF_KeyValueList_new();
    if (c.w == NULL || c.kv == NULL) {
        fprintf(stderr, "otf_write_all: %s: cannot open writer\n", argv[optind]);
        return 1;
    }
    OTF_Writer_setFormat(c.w, format);
    if (level > 0 && !OTF_Writer_setCompression(c.w, level))
        printf("setCompression(%" PRIu32 ") failed\n", level);
    if (bufsize > 0)
        OTF_Writer_setBufferSizes(c.w, bufsize);
    printf("format=%" PRIu32 " compression=%" PRIu32 " buffer=%" PRIu32 " zbuffer=%" PRIu32 "\n",
           OTF_Writer_getFormat(c.w), (uint32_t)OTF_Writer_getCompression(c.w),
           OTF_Writer_getBufferSizes(c.w), OTF_Writer_getZBufferSizes(c.w));

    /* Global definitions first: the Writer puts DV/DUI at the head of
     * STUB.0.def before its first definition. */
    write_main_defs(&c);
    for (int v = 0; v < V_COUNT; v++)
        write_defs(&c, (enum variant)v, 0);
    done(&c, V_WRITER, "OtfVersion", OTF_Writer_writeOtfVersion(c.w, 0), 0, 0);
    done(&c, V_WSTREAM, "OtfVersion", OTF_WStream_writeOtfVersion(OTF_Writer_getStream(c.w, 0)),
         0, 0);
    /* Another unique id line (masked by the scripts like the automatic one). */
    done(&c, V_WSTREAM, "UniqueId", OTF_WStream_writeUniqueId(OTF_Writer_getStream(c.w, 0)), 0, 0);

    /* Processes map to streams on first use; force the order 1..NPROCS and
     * put the victim on a stream of its own after the last one. */
    {
        uint32_t last = 0, sid;
        for (uint32_t p = 1; p <= NPROCS; p++) {
            sid = OTF_Writer_mapProcess(c.w, p);
            printf("process %" PRIu32 " -> stream %" PRIu32 "\n", p, sid);
            if (sid > last)
                last = sid;
        }
        if (c.victim) {
            sid = OTF_Writer_assignProcess(c.w, VICTIM, last + 1);
            printf("assign %" PRIu32 " -> stream %" PRIu32 ": %" PRIu32 "\n",
                   (uint32_t)VICTIM, last + 1, sid);
            printf("victim maps to %" PRIu32 "\n", OTF_Writer_mapProcess(c.w, VICTIM));
        }
    }

    /* Local definitions of stream 1, in every variant. */
    for (int v = 0; v < V_COUNT; v++)
        write_defs(&c, (enum variant)v, 1);
    done(&c, V_WRITER, "OtfVersion", OTF_Writer_writeOtfVersion(c.w, 1), 0, 1);

    /* Prologue at time 0: the time line is repeated for every record. */
    for (uint32_t p = 1; p <= NPROCS; p++) {
        enum variant v = (enum variant)(p % V_COUNT);
        OTF_WStream *ws = prep(&c, v, OTF_Writer_mapProcess(c.w, p), p);
        PUT(&c, v, ws, 0, p, BeginProcess, 0, p);
        v = (enum variant)((p + 1) % V_COUNT);
        ws = prep(&c, v, OTF_Writer_mapProcess(c.w, p), p + 100);
        PUT(&c, v, ws, 0, p, Enter, 0, 1, p, 0);
    }

    for (uint32_t r = 0; r < rounds; r++) {
        for (uint32_t k = 0; k < EV_KINDS; k++)
            for (uint32_t p = 1; p <= NPROCS; p++)
                write_event(&c, k, r, p, event_time(r, k, p));
        for (uint32_t k = 0; k < SN_KINDS; k++)
            for (uint32_t p = 1; p <= NPROCS; p++)
                write_snapshot(&c, k, r, p, event_time(r, k, p));
        for (uint32_t k = 0; k < ST_KINDS; k++)
            for (uint32_t p = 1; p <= NPROCS; p++)
                write_summary(&c, k, r, p, event_time(r, k, p));
        for (uint32_t p = 1; p <= NPROCS; p++)
            write_marker(&c, r, p, event_time(r, 0, p));
    }

    /* Epilogue: Leave and EndProcess at the same time, no time line between. */
    for (uint32_t p = 1; p <= NPROCS; p++) {
        uint64_t t = end_time(rounds, p);
        enum variant v = (enum variant)(p % V_COUNT);
        OTF_WStream *ws = prep(&c, v, OTF_Writer_mapProcess(c.w, p), p + 200);
        PUT(&c, v, ws, t, p, Leave, t, p % 2 ? 1 : 0, p, 0);
        v = (enum variant)((p + 3) % V_COUNT);
        ws = prep(&c, v, OTF_Writer_mapProcess(c.w, p), p + 300);
        PUT(&c, v, ws, t, p, EndProcess, t, p);
    }

    /* Last, the time error.  The reference keeps the error in otf_errno and
     * every later write call returns 0 while otf_errno is set, although the
     * record is written: check that on a healthy stream, then clear
     * otf_errno (a public variable of the API) and write once more. */
    if (c.victim)
        write_victim(&c);
    printf("otf_errno after time error: %s\n", otf_errno ? "set" : "clear");
    done(&c, V_WRITER, "DefinitionComment",
         OTF_Writer_writeDefinitionComment(c.w, 0, "written after the time error"), 0, 0);
    otf_errno = 0;
    done(&c, V_WRITER, "DefinitionComment",
         OTF_Writer_writeDefinitionComment(c.w, 0, "written after clearing otf_errno"), 0, 0);

    printf("calls=%" PRIu64 " failed=%" PRIu64 " kv_not_emptied=%" PRIu64 "\n",
           c.calls, c.failed, c.kv_kept);
    OTF_KeyValueList_close(c.kv);
    if (!OTF_Writer_close(c.w)) {
        fprintf(stderr, "otf_write_all: %s: OTF_Writer_close failed\n", argv[optind]);
        return 1;
    }
    OTF_FileManager_close(fm);
    return 0;
}
