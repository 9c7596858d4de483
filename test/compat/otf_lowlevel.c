/*
 * otf_lowlevel — writes a small trace with the low-level OTF API only:
 * OTF_MasterControl for the master file, OTF_WStream_open per stream (no
 * OTF_Writer), and OTF_WBuffer for hand-made lines that the record writers
 * never produce but the reader accepts: long keywords in a short-format file
 * and the other way round, old keywords, unknown records, empty lines,
 * inline snapshots in an event file.
 *
 *   otf_lowlevel STUB
 *
 * Built against the reference OTF and against vftr; test/integration/
 * otf_compat_lowlevel.sh compares the files and reads them with otf_read_all.
 * Standard output is a log that must be identical for both builds.
 *
 * The records, and so the counts the script expects, are those of
 * write_stream0/1/2 below.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <otf.h>

/* Appends one hand-made line (without newline) to a buffer. */
static void raw(OTF_WBuffer *b, const char *line)
{
    OTF_WBuffer_writeKeyword(b, line);
    OTF_WBuffer_writeNewline(b);
}

static void say(const char *what, int ret)
{
    printf("%s: %d\n", what, ret);
}

static void write_stream0(OTF_WStream *ws)
{
    OTF_WBuffer *def, *mark;

    say("version", OTF_WStream_writeOtfVersion(ws));
    say("creator", OTF_WStream_writeDefCreator(ws, "otf_lowlevel"));
    say("timer", OTF_WStream_writeDefTimerResolution(ws, 1000));
    say("process 1", OTF_WStream_writeDefProcess(ws, 1, "one", 0));
    say("process 2", OTF_WStream_writeDefProcess(ws, 2, "two", 1));
    say("process 3", OTF_WStream_writeDefProcess(ws, 3, NULL, 1));
    say("process 16", OTF_WStream_writeDefProcess(ws, 16, "sixteen", 0));
    say("function 5", OTF_WStream_writeDefFunction(ws, 5, "five", 1, 0));
    def = OTF_WStream_getDefBuffer(ws);
    raw(def, "DEFCOMMENT \"long keyword in a short file\"");
    raw(def, "DEFFUNCTION 6 GROUP 1 NAME \"six\" SCL 2");
    raw(def, "DXYZ 1 2 3");                      /* unknown definition */
    say("comment", OTF_WStream_writeDefinitionComment(ws, "after the raw lines"));

    say("defmarker", OTF_WStream_writeDefMarker(ws, 1, "mark", OTF_MARKER_TYPE_HINT));
    say("marker", OTF_WStream_writeMarker(ws, 50, 2, 1, "spot"));
    mark = OTF_WStream_getMarkerBuffer(ws);
    raw(mark, "MXYZ 7");                         /* unknown marker record */
    raw(mark, "MARKERSPOT 1 TIME 60 PROCESS 3 VALUE \"long spot\"");
}

/* Short-format stream with processes 1 and 16. */
static void write_stream1(OTF_WStream *ws)
{
    OTF_WBuffer *ev, *sn, *st;

    say("s1 begin 1", OTF_WStream_writeBeginProcess(ws, 0, 1));
    say("s1 begin 16", OTF_WStream_writeBeginProcess(ws, 0, 16));
    say("s1 enter", OTF_WStream_writeEnter(ws, 10, 5, 1, 0));
    ev = OTF_WStream_getEventBuffer(ws);
    say("s1 state", OTF_WBuffer_setTimeAndProcess(ev, 20, 1));
    raw(ev, "ENTER 6 SCL 2");                    /* long keyword in a short file */
    raw(ev, "E5X2");
    raw(ev, "XFOO 1 2 3");                       /* unknown event record */
    raw(ev, "");                                 /* empty line */
    raw(ev, "#\"raw comment\"");
    raw(ev, "FB12");                             /* old BeginFileOperation keyword */
    raw(ev, "FILEOPBEGIN 13");
    raw(ev, "KEY 5 TYPE 6 VALUE 7");
    raw(ev, "NOOP ");
    raw(ev, "TE5O3");                            /* inline snapshot in an event file */
    say("s1 state", OTF_WBuffer_setTimeAndProcess(ev, 30, 16));
    raw(ev, "LEAVE ");
    raw(ev, "L5X2");
    raw(ev, "CNT1V7");
    raw(ev, "COUNTER 2 VALUE ffffffffffffffff");
    say("s1 leave", OTF_WStream_writeLeave(ws, 40, 5, 1, 0));
    say("s1 end 1", OTF_WStream_writeEndProcess(ws, 50, 1));
    say("s1 end 16", OTF_WStream_writeEndProcess(ws, 50, 16));

    sn = OTF_WStream_getSnapshotBuffer(ws);
    say("s1 snap state", OTF_WBuffer_setTimeAndProcess(sn, 25, 1));
    raw(sn, "TENTER 5 OTIME 10");
    raw(sn, "TXYZ 1");                           /* unknown snapshot record */
    say("s1 snap", OTF_WStream_writeSnapshotComment(ws, 25, 16, "snap"));

    st = OTF_WStream_getStatsBuffer(ws);
    say("s1 stat state", OTF_WBuffer_setTimeAndProcess(st, 45, 1));
    raw(st, "SUMFUNCTION 5 COUNT 1 EXCL 2 INCL 3");
    raw(st, "SXYZ 1");                           /* unknown summary record */
    say("s1 stat", OTF_WStream_writeFunctionSummary(ws, 45, 6, 16, 4, 5, 6));
}

/* Long-format stream with processes 2 and 3. */
static void write_stream2(OTF_WStream *ws)
{
    OTF_WBuffer *ev;
    OTF_KeyValueList *kv = OTF_KeyValueList_new();

    say("s2 enter 2", OTF_WStream_writeEnter(ws, 10, 5, 2, 3));
    say("s2 enter 3", OTF_WStream_writeEnter(ws, 10, 6, 3, 0));
    ev = OTF_WStream_getEventBuffer(ws);
    say("s2 state", OTF_WBuffer_setTimeAndProcess(ev, 15, 2));
    raw(ev, "S3L40T5C0");                        /* short keywords in a long file */
    raw(ev, "K5Y6V7");
    raw(ev, "R3L40T5C0");
    raw(ev, "FA21X4");
    raw(ev, "FF1MI21H9OP2B64");
    OTF_KeyValueList_appendUint32(kv, 5, 99);
    say("s2 recv", OTF_WStream_writeRecvMsgKV(ws, 16, 3, 2, 0, 5, 64, 0, kv));
    say("s2 leave 2", OTF_WStream_writeLeave(ws, 20, 0, 2, 0));
    say("s2 leave 3", OTF_WStream_writeLeave(ws, 20, 6, 3, 0));
    OTF_KeyValueList_close(kv);
}

int main(int argc, char **argv)
{
    static uint32_t two_three[] = { 2, 3 };
    OTF_FileManager *fm;
    OTF_MasterControl *mc;
    OTF_WStream *ws[3];

    if (argc != 2) {
        fprintf(stderr, "usage: otf_lowlevel STUB\n");
        return 2;
    }
    fm = OTF_FileManager_open(8);
    mc = OTF_MasterControl_new(fm);
    if (fm == NULL || mc == NULL)
        return 1;
    say("append 1:1", OTF_MasterControl_append(mc, 1, 1));
    say("append 2:2,3", OTF_MasterControl_appendList(mc, 2, 2, two_three));
    say("append 1:16", OTF_MasterControl_append(mc, 1, 16));
    /* A process in two streams is refused; the refusal stays in otf_errno,
     * which would make every later call return 0: clear it. */
    say("append 2:1 (conflict)", OTF_MasterControl_append(mc, 2, 1));
    printf("otf_errno after the conflict: %s\n", otf_errno ? "set" : "clear");
    otf_errno = 0;
    say("check", OTF_MasterControl_check(mc));
    printf("streams %" PRIu32 ", processes %" PRIu32 ", stream of 3: %" PRIu32
           ", values of 1: %" PRIu32 "\n", OTF_MasterControl_getCount(mc),
           OTF_MasterControl_getrCount(mc), OTF_MasterControl_mapReverse(mc, 3),
           OTF_MasterControl_getValueCount(mc, 1));
    say("master write", OTF_MasterControl_write(mc, argv[1]));
    OTF_MasterControl_close(mc);

    for (uint32_t i = 0; i < 3; i++) {
        ws[i] = OTF_WStream_open(argv[1], i, fm);
        if (ws[i] == NULL) {
            fprintf(stderr, "otf_lowlevel: %s: cannot open stream %" PRIu32 "\n", argv[1], i);
            return 1;
        }
    }
    OTF_WStream_setFormat(ws[2], OTF_WSTREAM_FORMAT_LONG);
    printf("formats %" PRIu32 " %" PRIu32 ", compression %" PRIu32 "\n",
           OTF_WStream_getFormat(ws[1]), OTF_WStream_getFormat(ws[2]),
           (uint32_t)OTF_WStream_getCompression(ws[1]));
    write_stream0(ws[0]);
    write_stream1(ws[1]);
    write_stream2(ws[2]);
    say("flush 1", OTF_WStream_flush(ws[1]));
    for (int i = 0; i < 3; i++)
        say("close", OTF_WStream_close(ws[i]));
    OTF_FileManager_close(fm);
    return 0;
}
