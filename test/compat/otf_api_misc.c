/*
 * otf_api_misc — calls the smaller parts of the OTF 1.12.5 API that the
 * writer and reader programs leave out and prints every result: value
 * conversions, file names, the file manager, key-value lists, the master
 * control object, the reader's process filter / buffer / progress functions
 * and the writer's getters.
 *
 *   otf_api_misc IN_STUB OUT_STUB
 *
 * IN_STUB is a trace written by otf_write_all -x; OUT_STUB is written here.
 * Built against the reference OTF and against vftr; test/integration/
 * otf_compat_misc.sh requires identical output (and identical OUT traces).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf.h>

#define SHOW(fmt, ...) printf(fmt "\n", __VA_ARGS__)

static void conversions(void)
{
    static const double d[] = { 0.0, -0.0, 1.5, -2.25e300, 1e-310 };
    static const int64_t s[] = { 0, -1, INT64_MIN, INT64_MAX };

    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        uint64_t c = OTF_Double2Counter(d[i]);
        SHOW("Double2Counter(%.17g) = %" PRIx64 " back %.17g; DoubleToInt64 %" PRIx64
             " back %.17g", d[i], c, OTF_Counter2Double(c), OTF_DoubleToInt64(d[i]),
             OTF_Int64ToDouble(OTF_DoubleToInt64(d[i])));
        float f = (float)d[i];
        uint64_t cf = OTF_Float2Counter(f);
        SHOW("Float2Counter(%.9g) = %" PRIx64 " back %.9g; FloatToInt32 %" PRIx32 " back %.9g",
             (double)f, cf, (double)OTF_Counter2Float(cf), OTF_FloatToInt32(f),
             (double)OTF_Int32ToFloat(OTF_FloatToInt32(f)));
    }
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        uint64_t c = OTF_Signed2Counter(s[i]);
        SHOW("Signed2Counter(%" PRId64 ") = %" PRIx64 " back %" PRId64, s[i], c,
             OTF_Counter2Signed(c));
    }
    SHOW("Unsigned2Counter(%" PRIu64 ") = %" PRIx64 " back %" PRIu64, UINT64_MAX,
         OTF_Unsigned2Counter(UINT64_MAX), OTF_Counter2Unsigned(OTF_Unsigned2Counter(UINT64_MAX)));
}

static void filenames(void)
{
    static const struct { const char *name; OTF_FileType type; } types[] = {
        { "MASTER", OTF_FILETYPE_MASTER }, { "GLOBAL_DEF", OTF_FILETYPE_GLOBAL_DEF },
        { "DEF", OTF_FILETYPE_DEF }, { "EVENT", OTF_FILETYPE_EVENT },
        { "SNAPS", OTF_FILETYPE_SNAPS }, { "STATS", OTF_FILETYPE_STATS },
        { "MARKER", OTF_FILETYPE_MARKER },
    };
    static const uint32_t ids[] = { 0, 1, 10, 255, 0xffffffffu };
    static const char *const strip[] = { "trace", "trace.otf", "dir.otf/trace.otf", "a.otf.otf",
                                         ".otf", "trace.0.def" };
    char buf[64];

    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
            for (uint32_t z = 0; z <= OTF_FILECOMPRESSION_COMPRESSED; z += OTF_FILECOMPRESSION_COMPRESSED) {
                char *n = OTF_getFilename("dir/stub", ids[i], types[t].type | z, 0, NULL);
                SHOW("getFilename(%s, %" PRIu32 ", z%" PRIu32 ") = %s", types[t].name, ids[i], z,
                     n ? n : "(null)");
                free(n);
            }
        }
    }
    /* A caller-supplied buffer, given as shorter than the name: the name is
     * cut, and nothing beyond the given length may be touched. */
    for (unsigned l = 4; l <= 16; l += 12) {
        char *r;
        memset(buf, 'x', sizeof buf);
        r = OTF_getFilename("stub", 1, OTF_FILETYPE_EVENT, l, buf);
        SHOW("getFilename into %u bytes: %s, %.*s, beyond: %c", l, r == NULL ? "null" :
             r == buf ? "buf" : "other", (int)l, buf, buf[l]);
    }
    for (size_t i = 0; i < sizeof strip / sizeof strip[0]; i++) {
        char *s = OTF_stripFilename(strip[i]);
        SHOW("stripFilename(%s) = %s", strip[i], s ? s : "(null)");
        free(s);
    }
}

static void filemanager(void)
{
    OTF_FileManager *fm = OTF_FileManager_open(3);

    SHOW("FileManager number %" PRIu32 " count %" PRIu32, OTF_FileManager_getNumber(fm),
         OTF_FileManager_getCount(fm));
    SHOW("FileManager setNumber(7) = %" PRIu32 ", number %" PRIu32,
         OTF_FileManager_setNumber(fm, 7), OTF_FileManager_getNumber(fm));
    SHOW("FileManager isIofsl %d", OTF_FileManager_isIofsl(fm));
    OTF_FileManager_close(fm);
}

static void print_list(const char *what, OTF_KeyValueList *l)
{
    OTF_KeyValuePair *pair;
    uint32_t key;

    printf("%s: count %" PRIu32 " [", what, OTF_KeyValueList_getCount(l));
    for (uint32_t i = 0; i < 12; i++) {
        uint8_t r = OTF_KeyValueList_getKeyByIndex(l, i, &key);
        if (r != 0) {
            printf(" index %" PRIu32 ": rc %u", i, (unsigned)r);
            break;
        }
        printf(" %" PRIu32 ":%d", key, (int)OTF_KeyValueList_getTypeForKey(l, key));
    }
    printf(" ] pairs [");
    for (uint32_t i = 0; i < 12; i++) {
        uint8_t r = OTF_KeyValueList_getPairByIndex(l, i, &pair);
        if (r != 0) {
            printf(" index %" PRIu32 ": rc %u", i, (unsigned)r);
            break;
        }
        printf(" %" PRIu32 ":%d", pair->key, (int)pair->type);
    }
    printf(" ]\n");
}

static void keyvalue(void)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new(), *c, *d = OTF_KeyValueList_new();
    OTF_KeyValuePair p;
    uint8_t bytes[250], out[250];
    uint32_t len, u32 = 0;
    uint64_t u64 = 0;
    int32_t i32 = 0;

    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(255 - i);
    SHOW("appendUint32(1) = %u", (unsigned)OTF_KeyValueList_appendUint32(l, 1, 7));
    SHOW("appendUint32(1) again = %u", (unsigned)OTF_KeyValueList_appendUint32(l, 1, 8));
    SHOW("appendInt32(1) (other type) = %u", (unsigned)OTF_KeyValueList_appendInt32(l, 1, -8));
    SHOW("appendByteArray(2, 250) = %u", (unsigned)OTF_KeyValueList_appendByteArray(l, 2, bytes, 250));
    SHOW("appendUint64(3) = %u", (unsigned)OTF_KeyValueList_appendUint64(l, 3, UINT64_MAX));
    print_list("list", l);
    SHOW("getUint32(1) = %u value %" PRIu32, (unsigned)OTF_KeyValueList_getUint32(l, 1, &u32), u32);
    SHOW("getInt32(1) (wrong type) = %u", (unsigned)OTF_KeyValueList_getInt32(l, 1, &i32));
    SHOW("getUint64(9) (missing) = %u", (unsigned)OTF_KeyValueList_getUint64(l, 9, &u64));
    SHOW("getTypeForKey(9) = %d", (int)OTF_KeyValueList_getTypeForKey(l, 9));
    SHOW("getArrayLength(2) = %u", (unsigned)OTF_KeyValueList_getArrayLength(l, 2, &len));
    SHOW("  length %" PRIu32, len);
    len = sizeof out;
    SHOW("getByteArray(2, 250) = %u", (unsigned)OTF_KeyValueList_getByteArray(l, 2, out, &len));
    SHOW("  len %" PRIu32 " same %d", len, memcmp(out, bytes, 250) == 0);
    len = 10;
    memset(out, 0, sizeof out);
    SHOW("getByteArray(2, 10) = %u", (unsigned)OTF_KeyValueList_getByteArray(l, 2, out, &len));
    SHOW("  len %" PRIu32 " first %02x last %02x beyond %02x", len, out[0], out[9], out[10]);
    SHOW("hasKey(2) = %u hasKey(9) = %u", (unsigned)OTF_KeyValueList_hasKey(l, 2),
         (unsigned)OTF_KeyValueList_hasKey(l, 9));

    c = OTF_KeyValueList_clone(l);
    print_list("clone", c);
    /* Only the first return value: the reference's removeKey leaves the list
     * in a broken state (the count stays, stale keys appear), which is not
     * worth reproducing. */
    SHOW("removeKey(2) = %u", (unsigned)OTF_KeyValueList_removeKey(c, 2));

    memset(&p, 0, sizeof p);
    p.key = 4;
    p.type = OTF_DOUBLE;
    p.value.otf_double = 0.5;
    SHOW("appendPair(4) = %u", (unsigned)OTF_KeyValueList_appendPair(d, p));
    SHOW("appendUint32(1) to d = %u", (unsigned)OTF_KeyValueList_appendUint32(d, 1, 99));
    SHOW("appendKeyValueList(d, l) = %u", (unsigned)OTF_KeyValueList_appendKeyValueList(d, l));
    print_list("d + l", d);
    SHOW("getUint32(d, 1) = %u value %" PRIu32, (unsigned)OTF_KeyValueList_getUint32(d, 1, &u32),
         u32);
    SHOW("realloc(d, 100) = %u", (unsigned)OTF_KeyValueList_realloc(d, 100));
    SHOW("reset(d) = %u", (unsigned)OTF_KeyValueList_reset(d));
    print_list("d after reset", d);
    SHOW("close = %u %u %u", (unsigned)OTF_KeyValueList_close(l), (unsigned)OTF_KeyValueList_close(c),
         (unsigned)OTF_KeyValueList_close(d));
}

static void mastercontrol(void)
{
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_MasterControl *mc = OTF_MasterControl_new(fm), *c;
    uint32_t list[] = { 9, 3, 5 };

    SHOW("new stream id (empty) %" PRIu32, OTF_MasterControl_getNewStreamId(mc));
    SHOW("append 2:4 = %d", OTF_MasterControl_append(mc, 2, 4));
    SHOW("appendList 7:9,3,5 = %d", OTF_MasterControl_appendList(mc, 7, 3, list));
    SHOW("append 7:4 (conflict) = %d", OTF_MasterControl_append(mc, 7, 4));
    otf_errno = 0;
    SHOW("append 0:1 = %d", OTF_MasterControl_append(mc, 0, 1));
    otf_errno = 0;
    SHOW("new stream id %" PRIu32 " count %" PRIu32 " rcount %" PRIu32,
         OTF_MasterControl_getNewStreamId(mc), OTF_MasterControl_getCount(mc),
         OTF_MasterControl_getrCount(mc));
    for (uint32_t id = 0; id < 9; id++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntry(mc, id);
        uint32_t *v = OTF_MasterControl_getValues(mc, id);
        printf("stream %" PRIu32 ": entry %s, %" PRIu32 " values:", id, e ? "yes" : "no",
               OTF_MasterControl_getValueCount(mc, id));
        for (uint32_t i = 0; v != NULL && i < OTF_MasterControl_getValueCount(mc, id); i++)
            printf(" %" PRIu32, v[i]);
        printf("\n");
    }
    for (uint32_t i = 0; i < OTF_MasterControl_getrCount(mc); i++) {
        OTF_Pair *p = OTF_MasterControl_getREntryByIndex(mc, i);
        SHOW("reverse %" PRIu32 ": %" PRIu32 " -> %" PRIu32, i, p ? p->argument : 0,
             p ? p->value : 0);
    }
    SHOW("mapReverse(5) %" PRIu32 " mapReverse(77) %" PRIu32, OTF_MasterControl_mapReverse(mc, 5),
         OTF_MasterControl_mapReverse(mc, 77));
    otf_errno = 0;
    c = OTF_MasterControl_clone(mc, fm);
    SHOW("clone count %" PRIu32 " check %d", OTF_MasterControl_getCount(c),
         OTF_MasterControl_check(c));
    fflush(stdout);
    OTF_MasterControl_print(c);
    fflush(stdout);
    OTF_MasterControl_close(c);
    OTF_MasterControl_close(mc);
    OTF_FileManager_close(fm);
}

static int count_records(void *ud)
{
    (*(uint64_t *)ud)++;
    return OTF_RETURN_OK;
}

/* A progress query; only after a read that did not fail (the reference
 * dereferences a null buffer otherwise). */
static void progress(const char *what, uint8_t (*fn)(OTF_Reader *, uint64_t *, uint64_t *,
                                                     uint64_t *), OTF_Reader *r, uint64_t read)
{
    uint64_t mn = 0, cur = 0, mx = 0;
    uint8_t rc;

    if (read == OTF_READ_ERROR) {
        SHOW("%s: skipped, the read failed", what);
        return;
    }
    rc = fn(r, &mn, &cur, &mx);
    SHOW("%s: rc %u min %" PRIu64 " cur %" PRIu64 " max %" PRIu64, what, (unsigned)rc, mn, cur,
         mx);
}

static void reader(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(10);
    OTF_Reader *r = OTF_Reader_open(stub, fm);
    OTF_HandlerArray *ha = OTF_HandlerArray_open();
    uint64_t n = 0, ret;

    if (r == NULL) {
        SHOW("reader: cannot open %s", "IN_STUB");
        return;
    }
    /* Every record type counted by one generic handler. */
    for (uint32_t id = 0; id < OTF_NRECORDS; id++) {
        OTF_HandlerArray_setHandler(ha, count_records, id);
        OTF_HandlerArray_setFirstHandlerArg(ha, &n, id);
    }
    SHOW("buffer sizes %" PRIu32 " z %" PRIu32, OTF_Reader_getBufferSizes(r),
         OTF_Reader_getZBufferSizes(r));
    SHOW("setBufferSizes(4096) = %d", OTF_Reader_setBufferSizes(r, 4096));
    OTF_Reader_setZBufferSizes(r, 8192);
    SHOW("buffer sizes %" PRIu32 " z %" PRIu32, OTF_Reader_getBufferSizes(r),
         OTF_Reader_getZBufferSizes(r));
    SHOW("disable 2 = %d, status %u", OTF_Reader_disableProcess(r, 2),
         (unsigned)OTF_Reader_getProcessStatus(r, 2));
    SHOW("disable 77 (unknown) = %d", OTF_Reader_disableProcess(r, 77));
    otf_errno = 0;
    SHOW("enable 2 = %d, status %u", OTF_Reader_enableProcess(r, 2),
         (unsigned)OTF_Reader_getProcessStatus(r, 2));
    SHOW("setProcessStatusAll(0) = %d, status of 1: %u", OTF_Reader_setProcessStatusAll(r, 0),
         (unsigned)OTF_Reader_getProcessStatus(r, 1));
    SHOW("enable 1 = %d", OTF_Reader_enableProcess(r, 1));
    SHOW("enable 6 = %d", OTF_Reader_enableProcess(r, 6));
    n = 0;
    ret = OTF_Reader_readEvents(r, ha);
    SHOW("events of 1 and 6: %" PRIu64, ret);
    SHOW("  handled %" PRIu64, n);
    progress("eventBytesProgress", OTF_Reader_eventBytesProgress, r, ret);

    OTF_Reader_reset(r);
    SHOW("after reset: limit %" PRIu64 " interval %" PRIu64 ":%" PRIu64 " status of 2: %u",
         OTF_Reader_getRecordLimit(r), OTF_Reader_getTimeIntervalMin(r),
         OTF_Reader_getTimeIntervalMax(r), (unsigned)OTF_Reader_getProcessStatus(r, 2));
    SHOW("setProcessStatusAll(1) = %d", OTF_Reader_setProcessStatusAll(r, 1));
    OTF_Reader_setTimeInterval(r, 0x1400, 0x2000);
    n = 0;
    ret = OTF_Reader_readSnapshots(r, ha);
    SHOW("snapshots in [0x1400, 0x2000): %" PRIu64, ret);
    SHOW("  handled %" PRIu64, n);
    progress("snapshotProgress", OTF_Reader_snapshotProgress, r, ret);
    progress("snapshotTimeProgress", OTF_Reader_snapshotTimeProgress, r, ret);
    progress("snapshotBytesProgress", OTF_Reader_snapshotBytesProgress, r, ret);
    n = 0;
    ret = OTF_Reader_readStatistics(r, ha);
    SHOW("statistics in [0x1400, 0x2000): %" PRIu64, ret);
    SHOW("  handled %" PRIu64, n);
    progress("statisticProgress", OTF_Reader_statisticProgress, r, ret);
    progress("statisticTimeProgress", OTF_Reader_statisticTimeProgress, r, ret);
    progress("statisticBytesProgress", OTF_Reader_statisticBytesProgress, r, ret);
    SHOW("getStream(1) %s getStream(2) %s", OTF_Reader_getStream(r, 1) ? "yes" : "no",
         OTF_Reader_getStream(r, 2) ? "yes" : "no");
    SHOW("closeAllStreams = %d", OTF_Reader_closeAllStreams(r));
    SHOW("close = %d", OTF_Reader_close(r));
    OTF_HandlerArray_close(ha);
    OTF_FileManager_close(fm);
}

static void writer(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(10);
    OTF_Writer *w = OTF_Writer_open(stub, 3, fm);
    OTF_MasterControl *mc;

    SHOW("zbuffer %" PRIu32, OTF_Writer_getZBufferSizes(w));
    OTF_Writer_setZBufferSizes(w, 65536);
    SHOW("zbuffer %" PRIu32, OTF_Writer_getZBufferSizes(w));
    for (uint32_t p = 1; p <= 5; p++)
        SHOW("map %" PRIu32 " -> %" PRIu32, p, OTF_Writer_mapProcess(w, p));
    mc = OTF_Writer_getMasterControl(w);
    SHOW("master control: %" PRIu32 " streams, stream of 4: %" PRIu32,
         OTF_MasterControl_getCount(mc), OTF_MasterControl_mapReverse(mc, 4));
    SHOW("enter = %d", OTF_Writer_writeEnter(w, 5, 1, 4, 0));
    SHOW("closeAllStreams = %d", OTF_Writer_closeAllStreams(w));
    /* Writing after closeAllStreams reopens the stream and appends. */
    SHOW("enter after closeAllStreams = %d", OTF_Writer_writeEnter(w, 6, 1, 4, 0));
    SHOW("close = %d", OTF_Writer_close(w));
    OTF_FileManager_close(fm);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: otf_api_misc IN_STUB OUT_STUB\n");
        return 2;
    }
    conversions();
    filenames();
    filemanager();
    keyvalue();
    mastercontrol();
    reader(argv[1]);
    writer(argv[2]);
    return 0;
}
