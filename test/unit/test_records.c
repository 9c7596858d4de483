/*
 * test_records.c — Check suite for the record layer of libvftrotf: every
 * record type is written through OTF_Writer and read back through OTF_Reader
 * (short format, long format, compressed), and what the handlers receive is
 * compared with the values written.  The expected lines below are the input
 * values in the printer's notation (vftr_otf_print.h), written by hand.
 * Also: the time/process state machine on disk, the time error, key-value
 * lists of every type, windows, record limits and malformed input.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf.h>
#include <vftr_otf_print.h>

static char tmpdir[] = "/tmp/vftr-test-records-XXXXXX";

static void make_dir(void)
{
    /* a fresh template each time, so the fixture also works without fork */
    memcpy(tmpdir, "/tmp/vftr-test-records-XXXXXX", sizeof tmpdir);
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_dir(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmpdir);
}

static char* stub(const char* name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* One record of every type; processes 1 and 2 on streams 1 and 2. */
static void write_all(const char* name, uint32_t format, uint32_t zlevel)
{
    OTF_FileManager* fm = OTF_FileManager_open(8);
    ck_assert_ptr_nonnull(fm);
    OTF_Writer* w = OTF_Writer_open(stub(name), 2, fm);
    ck_assert_ptr_nonnull(w);
    OTF_Writer_setFormat(w, format);
    if (zlevel)
        ck_assert_int_eq(OTF_Writer_setCompression(w, zlevel), 1);
    ck_assert_int_eq(OTF_Writer_assignProcess(w, 1, 1), 1);
    ck_assert_int_eq(OTF_Writer_assignProcess(w, 2, 2), 1);

    uint32_t procs[] = { 1, 2 };
    OTF_ATTR_TYPE attrs[] = { OTF_ATTR_IsMPIRank, OTF_ATTR_hasEnterLeaveRecords };
    ck_assert(OTF_Writer_writeDefinitionComment(w, 0, "a \"quoted\"\nline"));
    ck_assert(OTF_Writer_writeDefTimerResolution(w, 0, 1000000000));
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 1, "rank 0", 0));
    ck_assert(OTF_Writer_writeDefProcess(w, 0, 2, NULL, 1));
    ck_assert(OTF_Writer_writeDefProcessGroup(w, 0, 1000, "world", 2, procs));
    ck_assert(OTF_Writer_writeDefAttributeList(w, 0, 7, 2, attrs));
    ck_assert(OTF_Writer_writeDefProcessOrGroupAttributes(w, 0, 1, 7));
    ck_assert(OTF_Writer_writeDefFunctionGroup(w, 0, 1, "app"));
    ck_assert(OTF_Writer_writeDefFunction(w, 0, 10, "main", 1, 0));
    ck_assert(OTF_Writer_writeDefFunction(w, 0, 11, "f", 1, 3));
    ck_assert(OTF_Writer_writeDefCollectiveOperation(w, 0, 4, "MPI_Bcast", OTF_COLLECTIVE_TYPE_ONE2ALL));
    ck_assert(OTF_Writer_writeDefCounterGroup(w, 0, 1, "hw"));
    ck_assert(OTF_Writer_writeDefCounter(w, 0, 5, "cycles", OTF_COUNTER_TYPE_ACC, 1, "#"));
    ck_assert(OTF_Writer_writeDefSclFile(w, 0, 2, "main.c"));
    ck_assert(OTF_Writer_writeDefScl(w, 0, 3, 2, 42));
    ck_assert(OTF_Writer_writeDefCreator(w, 0, "test"));
    ck_assert(OTF_Writer_writeDefFileGroup(w, 0, 1, "files"));
    ck_assert(OTF_Writer_writeDefFile(w, 0, 6, "/data", 1));
    ck_assert(OTF_Writer_writeDefKeyValue(w, 0, 9, OTF_UINT32, "k", "desc"));
    ck_assert(OTF_Writer_writeDefTimeRange(w, 0, 100, 900, NULL));
    ck_assert(OTF_Writer_writeDefCounterAssignments(w, 0, 5, 2, procs, NULL));
    ck_assert(OTF_Writer_writeDefProcessSubstitutes(w, 0, 1, 2, procs, NULL));
    ck_assert(OTF_Writer_writeDefAuxSamplePoint(w, 0, 500, OTF_AUX_SAMPLE_POINT_SUMMARY, NULL));
    ck_assert(OTF_Writer_writeDefMarker(w, 0, 3, "mark", OTF_MARKER_TYPE_HINT));

    OTF_KeyValueList* kv = OTF_KeyValueList_new();
    ck_assert_ptr_nonnull(kv);
    ck_assert_int_eq(OTF_KeyValueList_appendUint32(kv, 9, 77), 0);
    ck_assert_int_eq(OTF_KeyValueList_appendInt8(kv, 8, -3), 0);
    ck_assert_int_eq(OTF_KeyValueList_appendDouble(kv, 12, 2.5), 0);

    ck_assert(OTF_Writer_writeBeginProcess(w, 100, 1));
    ck_assert(OTF_Writer_writeBeginProcess(w, 100, 2));
    ck_assert(OTF_Writer_writeEnterKV(w, 110, 10, 1, 0, kv));
    ck_assert_uint_eq(OTF_KeyValueList_getCount(kv), 0);   /* emptied by the write */
    ck_assert(OTF_Writer_writeEnter(w, 110, 10, 2, 3));
    ck_assert(OTF_Writer_writeSendMsg(w, 120, 1, 2, 1000, 7, 4096, 0));
    ck_assert(OTF_Writer_writeRecvMsg(w, 130, 2, 1, 1000, 7, 4096, 3));
    ck_assert(OTF_Writer_writeCounter(w, 140, 1, 5, 0xffffffffffffffffull));
    ck_assert(OTF_Writer_writeCollectiveOperation(w, 150, 1, 4, 1000, 1, 8, 16, 20, 0));
    ck_assert(OTF_Writer_writeBeginCollectiveOperation(w, 160, 2, 4, 99, 1000, 1, 8, 16, 3));
    ck_assert(OTF_Writer_writeEndCollectiveOperation(w, 170, 2, 99));
    ck_assert(OTF_Writer_writeEventComment(w, 180, 1, "hello"));
    ck_assert(OTF_Writer_writeFileOperation(w, 190, 6, 1, 0x123456789ull, OTF_FILEOP_READ, 64, 5, 0));
    ck_assert(OTF_Writer_writeBeginFileOperation(w, 200, 2, 55, 0));
    ck_assert(OTF_Writer_writeEndFileOperation(w, 210, 2, 6, 55, 12, OTF_FILEOP_WRITE, 128, 3));
    ck_assert(OTF_Writer_writeRMAPut(w, 220, 1, 1, 2, 1000, 4, 256, 0));
    ck_assert(OTF_Writer_writeRMAPutRemoteEnd(w, 230, 2, 1, 2, 1000, 4, 256, 0));
    ck_assert(OTF_Writer_writeRMAGet(w, 240, 1, 1, 2, 1000, 4, 512, 3));
    ck_assert(OTF_Writer_writeRMAEnd(w, 250, 1, 2, 1000, 4, 0));
    ck_assert_int_eq(OTF_KeyValueList_appendUint64(kv, 9, 1), 0);
    ck_assert(OTF_Writer_writeNoOpKV(w, 260, 2, kv));
    ck_assert(OTF_Writer_writeLeave(w, 270, 0, 2, 0));
    ck_assert(OTF_Writer_writeLeave(w, 280, 10, 1, 3));
    ck_assert(OTF_Writer_writeEndProcess(w, 290, 1));
    ck_assert(OTF_Writer_writeEndProcess(w, 290, 2));
    ck_assert(OTF_Writer_writeMarker(w, 300, 1, 3, "spot"));

    ck_assert(OTF_Writer_writeSnapshotComment(w, 400, 1, "snap"));
    ck_assert(OTF_Writer_writeEnterSnapshot(w, 400, 110, 10, 1, 0));
    ck_assert(OTF_Writer_writeSendSnapshot(w, 400, 120, 1, 2, 1000, 7, 4096, 0));
    ck_assert(OTF_Writer_writeOpenFileSnapshot(w, 400, 190, 6, 1, 0x123456789ull, 0));
    ck_assert(OTF_Writer_writeBeginCollopSnapshot(w, 410, 160, 2, 4, 99, 1000, 1, 8, 16, 0));
    ck_assert(OTF_Writer_writeBeginFileOpSnapshot(w, 410, 200, 2, 55, 0));
    ck_assert(OTF_Writer_writeCollopCountSnapshot(w, 410, 2, 1000, 3, NULL));
    ck_assert(OTF_Writer_writeCounterSnapshot(w, 420, 140, 1, 5, 77, NULL));

    ck_assert(OTF_Writer_writeSummaryComment(w, 500, 1, "sum"));
    ck_assert(OTF_Writer_writeFunctionSummary(w, 500, 10, 1, 2, 30, 170));
    ck_assert(OTF_Writer_writeFunctionGroupSummary(w, 500, 1, 1, 2, 30, 170));
    ck_assert(OTF_Writer_writeMessageSummary(w, 500, 1, 2, 1000, 7, 1, 0, 4096, 0));
    ck_assert(OTF_Writer_writeCollopSummary(w, 500, 1, 1000, 4, 1, 1, 8, 16));
    ck_assert(OTF_Writer_writeFileOperationSummary(w, 500, 6, 1, 1, 1, 1, 0, 0, 64, 0));
    ck_assert(OTF_Writer_writeFileGroupOperationSummary(w, 500, 1, 1, 1, 1, 1, 0, 0, 64, 0));

    OTF_KeyValueList_close(kv);
    ck_assert_int_eq(OTF_Writer_close(w), 1);
    OTF_FileManager_close(fm);
}

/* The values written above, as the printer shows them (decimal). */
static const char expected_defs[] =
    "DefVersion stream=0 major=1 minor=12 sub=5 string=\"salmon\"\n"
    "DefinitionComment stream=0 comment=\"a  quoted  line\"\n"
    "DefTimerResolution stream=0 ticksPerSecond=1000000000\n"
    "DefProcess stream=0 process=1 name=\"rank 0\" parent=0\n"
    "DefProcess stream=0 process=2 name=\"\" parent=1\n"
    "DefProcessGroup stream=0 procGroup=1000 name=\"world\" procs=[1,2]\n"
    "DefAttributeList stream=0 attr_token=7 array=[1,6]\n"
    "DefProcessOrGroupAttributes stream=0 proc_token=1 attr_token=7\n"
    "DefFunctionGroup stream=0 funcGroup=1 name=\"app\"\n"
    "DefFunction stream=0 func=10 name=\"main\" funcGroup=1 source=0\n"
    "DefFunction stream=0 func=11 name=\"f\" funcGroup=1 source=3\n"
    "DefCollectiveOperation stream=0 collOp=4 name=\"MPI_Bcast\" type=2\n"
    "DefCounterGroup stream=0 counterGroup=1 name=\"hw\"\n"
    "DefCounter stream=0 counter=5 name=\"cycles\" properties=0 counterGroup=1 unit=\"#\"\n"
    "DefSclFile stream=0 sourceFile=2 name=\"main.c\"\n"
    "DefScl stream=0 source=3 sourceFile=2 line=42\n"
    "DefCreator stream=0 creator=\"test\"\n"
    "DefFileGroup stream=0 token=1 name=\"files\"\n"
    "DefFile stream=0 token=6 name=\"/data\" group=1\n"
    "DefKeyValue stream=0 key=9 type=6 name=\"k\" description=\"desc\"\n"
    "DefTimeRange stream=0 minTime=100 maxTime=900\n"
    "DefCounterAssignments stream=0 counter=5 procs_or_groups=[1,2]\n"
    "DefProcessSubstitutes stream=0 representative=1 procs=[1,2]\n"
    "DefAuxSamplePoint stream=0 time=500 type=1\n";

/* Events in time order.  Records of the two streams with equal times (100,
 * 110, 290) come in the order of the reference OTF's reader (checked with
 * the reference on this trace): stream 2 first (its heap moves an entry
 * below an equal child), then they take turns. */
static const char expected_events[] =
    "100 2 BeginProcess\n"
    "100 1 BeginProcess\n"
    "110 2 Enter function=10 source=3\n"
    "110 1 Enter function=10 source=0 kv={9:77,8:-3,12:2.5}\n"
    "120 1 SendMsg receiver=2 group=1000 type=7 length=4096 source=0\n"
    "130 2 RecvMsg sendProc=1 group=1000 type=7 length=4096 source=3\n"
    "140 1 Counter counter=5 value=18446744073709551615\n"
    "150 1 CollectiveOperation collective=4 procGroup=1000 rootProc=1 sent=8 received=16 "
    "duration=20 source=0\n"
    "160 2 BeginCollectiveOperation collOp=4 matchingId=99 procGroup=1000 rootProc=1 sent=8 "
    "received=16 scltoken=3\n"
    "170 2 EndCollectiveOperation matchingId=99\n"
    "180 1 EventComment comment=\"hello\"\n"
    "190 1 FileOperation fileid=6 handleid=4886718345 operation=2 bytes=64 duration=5 source=0\n"
    "200 2 BeginFileOperation matchingId=55 scltoken=0\n"
    "210 2 EndFileOperation fileid=6 matchingId=55 handleId=12 operation=3 bytes=128 scltoken=3\n"
    "220 1 RMAPut origin=1 target=2 communicator=1000 tag=4 bytes=256 source=0\n"
    "230 2 RMAPutRemoteEnd origin=1 target=2 communicator=1000 tag=4 bytes=256 source=0\n"
    "240 1 RMAGet origin=1 target=2 communicator=1000 tag=4 bytes=512 source=3\n"
    "250 1 RMAEnd remote=2 communicator=1000 tag=4 source=0\n"
    "260 2 NoOp kv={9:1}\n"
    "270 2 Leave function=0 source=0\n"
    "280 1 Leave function=10 source=3\n"
    "290 2 EndProcess\n"
    "290 1 EndProcess\n";

static const char expected_snaps[] =
    "400 1 SnapshotComment comment=\"snap\"\n"
    "400 1 EnterSnapshot originaltime=110 function=10 source=0\n"
    "400 1 SendSnapshot originaltime=120 receiver=2 procGroup=1000 tag=7 length=4096 source=0\n"
    "400 1 OpenFileSnapshot originaltime=190 fileid=6 handleid=4886718345 source=0\n"
    "410 2 BeginCollopSnapshot originaltime=160 collOp=4 matchingId=99 procGroup=1000 "
    "rootProc=1 sent=8 received=16 scltoken=0\n"
    "410 2 BeginFileOpSnapshot originaltime=200 matchingId=55 scltoken=0\n"
    "410 2 CollopCountSnapshot communicator=1000 count=3\n"
    "420 1 CounterSnapshot originaltime=140 counter=5 value=77\n";

static const char expected_stats[] =
    "500 1 SummaryComment comment=\"sum\"\n"
    "500 1 FunctionSummary function=10 invocations=2 exclTime=30 inclTime=170\n"
    "500 1 FunctionGroupSummary funcGroup=1 invocations=2 exclTime=30 inclTime=170\n"
    "500 1 MessageSummary peer=2 comm=1000 type=7 sentNumber=1 receivedNumber=0 "
    "sentBytes=4096 receivedBytes=0\n"
    "500 1 CollopSummary comm=1000 collective=4 sentNumber=1 receivedNumber=1 sentBytes=8 "
    "receivedBytes=16\n"
    "500 1 FileOperationSummary fileid=6 nopen=1 nclose=1 nread=1 nwrite=0 nseek=0 "
    "bytesread=64 byteswrite=0\n"
    "500 1 FileGroupOperationSummary groupid=1 nopen=1 nclose=1 nread=1 nwrite=0 nseek=0 "
    "bytesread=64 byteswrite=0\n";

static const char expected_markers[] =
    "DefMarker stream=0 token=3 name=\"mark\" type=3\n"
    "Marker time=300 process=1 token=3 text=\"spot\"\n";

/* Reads one kind of record of trace `name` through the printer; the caller
 * frees the text.  The unique id line is dropped (it differs per run). */
static char* dump(const char* name, int kind, uint64_t min, uint64_t max, uint64_t limit,
                  uint64_t* nrecords)
{
    char* text = NULL;
    size_t len = 0;
    FILE* out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    OTF_FileManager* fm = OTF_FileManager_open(4);
    OTF_Reader* r = OTF_Reader_open(stub(name), fm);
    ck_assert_msg(r != NULL, "open %s: %s", name, otf_strerr);
    OTF_HandlerArray* h = OTF_HandlerArray_open();
    ck_assert_int_eq(vftr_otf_print_install(h, out, VFTR_OTF_PRINT_ALL, NULL), 0);
    OTF_Reader_setTimeInterval(r, min, max);
    if (limit)
        OTF_Reader_setRecordLimit(r, limit);
    uint64_t total = 0, n;
    do {
        switch (kind) {
        case 0: n = OTF_Reader_readDefinitions(r, h); break;
        case 1: n = OTF_Reader_readEvents(r, h); break;
        case 2: n = OTF_Reader_readSnapshots(r, h); break;
        case 3: n = OTF_Reader_readStatistics(r, h); break;
        default: n = OTF_Reader_readMarkers(r, h); break;
        }
        ck_assert_msg(n != OTF_READ_ERROR, "read %s: %s", name, otf_strerr);
        total += n;
    } while (limit && n == limit);
    OTF_HandlerArray_close(h);
    OTF_Reader_close(r);
    OTF_FileManager_close(fm);
    fclose(out);
    /* drop the DefUniqueId line */
    char* u = strstr(text, "DefUniqueId");
    if (u != NULL) {
        char* e = strchr(u, '\n');
        memmove(u, e + 1, strlen(e + 1) + 1);
        total--;
    }
    if (nrecords)
        *nrecords = total;
    return text;
}

static void check_trace(const char* name)
{
    static const char* const expected[] = { expected_defs, expected_events, expected_snaps,
                                            expected_stats, expected_markers };
    for (int kind = 0; kind < 5; kind++) {
        char* text = dump(name, kind, 0, UINT64_MAX, 0, NULL);
        ck_assert_str_eq(text, expected[kind]);
        free(text);
    }
}

START_TEST(roundtrip_short)
{
    write_all("short", OTF_WSTREAM_FORMAT_SHORT, 0);
    check_trace("short");
}
END_TEST

START_TEST(roundtrip_long)
{
    write_all("long", OTF_WSTREAM_FORMAT_LONG, 0);
    check_trace("long");
}
END_TEST

START_TEST(roundtrip_compressed)
{
    write_all("z", OTF_WSTREAM_FORMAT_SHORT, 4);
    check_trace("z");
    write_all("zlong", OTF_WSTREAM_FORMAT_LONG, 9);
    check_trace("zlong");
}
END_TEST

START_TEST(window_and_limit)
{
    write_all("w", OTF_WSTREAM_FORMAT_SHORT, 0);
    uint64_t n;
    /* [150, 250): the records from 150 up to 240 inclusive */
    char* text = dump("w", 1, 150, 250, 0, &n);
    ck_assert_uint_eq(n, 10);
    ck_assert_ptr_nonnull(strstr(text, "150 1 CollectiveOperation"));
    ck_assert_ptr_nonnull(strstr(text, "240 1 RMAGet"));
    ck_assert_ptr_null(strstr(text, "250 1 RMAEnd"));
    ck_assert_ptr_null(strstr(text, "140 1 Counter"));
    free(text);
    /* a record limit reads everything in chunks, in the same order */
    text = dump("w", 1, 0, UINT64_MAX, 3, &n);
    ck_assert_uint_eq(n, 23);
    ck_assert_str_eq(text, expected_events);
    free(text);
}
END_TEST

static char* slurp(const char* path)
{
    FILE* f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The on-disk state machine (otf-format.md section 4), checked on the
 * file's text. */
START_TEST(state_machine_on_disk)
{
    OTF_FileManager* fm = OTF_FileManager_open(4);
    OTF_Writer* w = OTF_Writer_open(stub("sm"), 1, fm);
    ck_assert(OTF_Writer_writeEnter(w, 0, 1, 16, 0));
    ck_assert(OTF_Writer_writeEnter(w, 0, 2, 16, 0));     /* time 0 is repeated */
    ck_assert(OTF_Writer_writeEnter(w, 5, 1, 2, 0));
    ck_assert(OTF_Writer_writeEnter(w, 5, 1, 2, 0));      /* nothing new */
    ck_assert(OTF_Writer_writeEnter(w, 5, 1, 16, 0));     /* only the process */
    ck_assert(!OTF_Writer_writeEnter(w, 4, 1, 16, 0));    /* time goes back: refused */
    ck_assert(!OTF_Writer_writeEnter(w, 9, 1, 16, 0));    /* and so is all that follows */
    otf_errno = OTF_NO_ERROR;
    ck_assert_int_eq(OTF_Writer_close(w), 1);
    OTF_FileManager_close(fm);
    char path[600];
    snprintf(path, sizeof path, "%s/sm.1.events", tmpdir);
    ck_assert_str_eq(slurp(path), "0\n*10\nE1\n0\n*10\nE2\n5\n*2\nE1\nE1\n*10\nE1\n"
                                  "#\"error due to unsorted time stamp, aborted\"\n"
                                  "ffffffffffffffff\n*10\n");
    snprintf(path, sizeof path, "%s/sm.otf", tmpdir);
    ck_assert_str_eq(slurp(path), "1:2,10\n");
}
END_TEST

static void put(const char* name, const char* text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE* f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A malformed record stops the read with OTF_READ_ERROR and a message that
 * names the file and the offset. */
START_TEST(malformed_record)
{
    put("bad.otf", "1:1\n");
    put("bad.1.events", "10\n*1\nE1\nS2L\n");
    OTF_FileManager* fm = OTF_FileManager_open(4);
    OTF_Reader* r = OTF_Reader_open(stub("bad"), fm);
    ck_assert_ptr_nonnull(r);
    OTF_HandlerArray* h = OTF_HandlerArray_open();
    FILE* out = fopen("/dev/null", "w");
    vftr_otf_print_install(h, out, VFTR_OTF_PRINT_ALL, NULL);
    ck_assert_uint_eq(OTF_Reader_readEvents(r, h), OTF_READ_ERROR);
    ck_assert_ptr_nonnull(strstr(otf_strerr, "bad.1.events"));
    ck_assert_ptr_nonnull(strstr(otf_strerr, "offset 9"));
    fclose(out);
    OTF_HandlerArray_close(h);
    OTF_Reader_close(r);
    OTF_FileManager_close(fm);
}
END_TEST

static int unknown_calls;
static char unknown_text[64];

static int on_unknown(void* ud, uint64_t time, uint32_t process, const char* record)
{
    (void)ud;
    (void)time;
    (void)process;
    unknown_calls++;
    snprintf(unknown_text, sizeof unknown_text, "%s", record);
    return OTF_RETURN_OK;
}

/* Unknown records go to the UnknownRecord handler and reading goes on. */
START_TEST(unknown_record)
{
    put("unk.otf", "1:1\n");
    put("unk.1.events", "10\n*1\nQQ 1 2\nE1\n");
    OTF_FileManager* fm = OTF_FileManager_open(4);
    OTF_Reader* r = OTF_Reader_open(stub("unk"), fm);
    OTF_HandlerArray* h = OTF_HandlerArray_open();
    OTF_HandlerArray_setHandler(h, (OTF_FunctionPointer*)(void (*)(void))on_unknown,
                                OTF_UNKNOWN_RECORD);
    unknown_calls = 0;
    ck_assert_uint_eq(OTF_Reader_readEvents(r, h), 2);
    ck_assert_int_eq(unknown_calls, 1);
    ck_assert_str_eq(unknown_text, "QQ 1 2");
    OTF_HandlerArray_close(h);
    OTF_Reader_close(r);
    OTF_FileManager_close(fm);
}
END_TEST

static Suite* records_suite(void)
{
    Suite* s = suite_create("records");
    TCase* tc = tcase_create("roundtrip");
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, roundtrip_short);
    tcase_add_test(tc, roundtrip_long);
    tcase_add_test(tc, roundtrip_compressed);
    tcase_add_test(tc, window_and_limit);
    tcase_add_test(tc, state_machine_on_disk);
    tcase_add_test(tc, malformed_record);
    tcase_add_test(tc, unknown_record);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner* sr = srunner_create(records_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
