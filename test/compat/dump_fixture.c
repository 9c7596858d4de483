/*
 * dump_fixture — writes a small, fully known OTF trace through the OTF API,
 * for test/integration/vftr_dump.sh.
 *
 * Usage: dump_fixture NAMESTUB [--no-timerange | --early-range] [--compress]
 *
 * The trace (all times in ticks, timer resolution 1000000 ticks/s, so one
 * tick is one microsecond; "rel" is the time minus FIRST = 5000000):
 *
 *   processes 1..4 named "P1".."P4"; 1 and 3 on stream 1, 2 and 4 on stream 2
 *   functions 1 "main" (group 1 "APP"), 2 "compute" (group 1),
 *             3 "MPI_Send", 4 "MPI_Recv" (group 2 "MPI")
 *   counter 1 "iterations" (group 1 "COUNTERS")
 *
 *   events of every process p:
 *     rel 0           BeginProcess, Enter main
 *     rel 100*i+10    Enter compute                   (i = 0..9)
 *     rel 100*i+60    Counter (value i+1), Leave compute
 *     rel 1000        odd p:  Enter MPI_Send, SendMsg to p+1 (length 64*p)
 *                     even p: Enter MPI_Recv
 *     rel 1010        odd p:  Leave MPI_Send
 *     rel 1020        even p: RecvMsg from p-1
 *     rel 1030        even p: Leave MPI_Recv
 *     rel 2000        Leave main, EndProcess
 *   per process: BeginProcess 1, EndProcess 1, Enter 12, Leave 12,
 *   Counter 10, SendMsg 1 (odd) or RecvMsg 1 (even) = 37 events.
 *
 *   snapshots: rel 500 and rel 1500, every process: EnterSnapshot of main
 *              (original time FIRST); rel 500, process 1: one SnapshotComment
 *   statistics: rel 1000, every process: FunctionSummary of compute;
 *               rel 2000, every process: FunctionSummary of main and compute
 *   markers: one DefMarker, Marker at FIRST+1000 (process 1) and FIRST+2000
 *            (process 2)
 *   definitions: DefinitionComment, DefCreator, DefTimerResolution,
 *                DefTimeRange FIRST..FIRST+2000 (none with --no-timerange;
 *                FIRST-1000..FIRST+2000 with --early-range, a declared
 *                start 1 ms before the first event),
 *                4 DefProcess, DefProcessGroup, 2 DefFunctionGroup,
 *                4 DefFunction, DefCounterGroup, DefCounter (plus the
 *                DefVersion and DefUniqueId the writer adds itself)
 *
 * Exit status 0 on success, 1 when any OTF call fails.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "otf.h"

#define FIRST      5000000u
#define RESOLUTION 1000000u
#define NPROCS     4u

static int failures;

/* Counts failed OTF calls; the exit status reports them all at once. */
static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "dump_fixture: %s failed\n", what);
        failures++;
    }
}

static void write_definitions(OTF_Writer *w, int with_timerange, uint64_t range_start)
{
    static const uint32_t members[NPROCS] = { 1, 2, 3, 4 };
    char name[16];

    check(OTF_Writer_writeDefinitionComment(w, 0, "vftr-dump fixture"), "DefinitionComment");
    check(OTF_Writer_writeDefCreator(w, 0, "dump_fixture"), "DefCreator");
    check(OTF_Writer_writeDefTimerResolution(w, 0, RESOLUTION), "DefTimerResolution");
    if (with_timerange)
        check(OTF_Writer_writeDefTimeRange(w, 0, range_start, FIRST + 2000, NULL),
              "DefTimeRange");
    for (uint32_t p = 1; p <= NPROCS; p++) {
        snprintf(name, sizeof name, "P%u", (unsigned)p);
        check(OTF_Writer_writeDefProcess(w, 0, p, name, 0), "DefProcess");
    }
    check(OTF_Writer_writeDefProcessGroup(w, 0, 1000, "MPI_COMM_WORLD", NPROCS, members),
          "DefProcessGroup");
    check(OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP"), "DefFunctionGroup");
    check(OTF_Writer_writeDefFunctionGroup(w, 0, 2, "MPI"), "DefFunctionGroup");
    check(OTF_Writer_writeDefFunction(w, 0, 1, "main", 1, 0), "DefFunction");
    check(OTF_Writer_writeDefFunction(w, 0, 2, "compute", 1, 0), "DefFunction");
    check(OTF_Writer_writeDefFunction(w, 0, 3, "MPI_Send", 2, 0), "DefFunction");
    check(OTF_Writer_writeDefFunction(w, 0, 4, "MPI_Recv", 2, 0), "DefFunction");
    check(OTF_Writer_writeDefCounterGroup(w, 0, 1, "COUNTERS"), "DefCounterGroup");
    check(OTF_Writer_writeDefCounter(w, 0, 1, "iterations", OTF_COUNTER_TYPE_ACC, 1, "#"),
          "DefCounter");
    check(OTF_Writer_writeDefMarker(w, 0, 1, "phase", OTF_MARKER_TYPE_HINT), "DefMarker");
}

/* Events of process p at relative time rel (see the table above). */
static void write_events_at(OTF_Writer *w, uint32_t p, uint64_t rel)
{
    uint64_t t = FIRST + rel;
    int odd = (p % 2) == 1;

    if (rel == 0) {
        check(OTF_Writer_writeBeginProcess(w, t, p), "BeginProcess");
        check(OTF_Writer_writeEnter(w, t, 1, p, 0), "Enter");
    } else if (rel < 1000 && rel % 100 == 10) {
        check(OTF_Writer_writeEnter(w, t, 2, p, 0), "Enter");
    } else if (rel < 1000 && rel % 100 == 60) {
        check(OTF_Writer_writeCounter(w, t, p, 1, rel / 100 + 1), "Counter");
        check(OTF_Writer_writeLeave(w, t, 2, p, 0), "Leave");
    } else if (rel == 1000) {
        check(OTF_Writer_writeEnter(w, t, odd ? 3 : 4, p, 0), "Enter");
        if (odd)
            check(OTF_Writer_writeSendMsg(w, t, p, p + 1, 1000, 7, 64 * p, 0), "SendMsg");
    } else if (rel == 1010 && odd) {
        check(OTF_Writer_writeLeave(w, t, 3, p, 0), "Leave");
    } else if (rel == 1020 && !odd) {
        check(OTF_Writer_writeRecvMsg(w, t, p, p - 1, 1000, 7, 64 * (p - 1), 0), "RecvMsg");
    } else if (rel == 1030 && !odd) {
        check(OTF_Writer_writeLeave(w, t, 4, p, 0), "Leave");
    } else if (rel == 2000) {
        check(OTF_Writer_writeLeave(w, t, 1, p, 0), "Leave");
        check(OTF_Writer_writeEndProcess(w, t, p), "EndProcess");
    }
}

int main(int argc, char **argv)
{
    int with_timerange = 1, compress = 0;
    uint64_t range_start = FIRST;
    uint64_t times[32];
    size_t ntimes = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: dump_fixture NAMESTUB [--no-timerange | --early-range] "
                "[--compress]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--no-timerange") == 0) {
            with_timerange = 0;
        } else if (strcmp(argv[i], "--early-range") == 0) {
            range_start = FIRST - 1000;
        } else if (strcmp(argv[i], "--compress") == 0) {
            compress = 1;
        } else {
            fprintf(stderr, "dump_fixture: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }

    OTF_FileManager *manager = OTF_FileManager_open(16);
    if (!manager) {
        fprintf(stderr, "dump_fixture: cannot create a file manager\n");
        return 1;
    }
    OTF_Writer *w = OTF_Writer_open(argv[1], 2, manager);
    if (!w) {
        fprintf(stderr, "dump_fixture: cannot open %s\n", argv[1]);
        OTF_FileManager_close(manager);
        return 1;
    }
    if (compress)
        check(OTF_Writer_setCompression(w, OTF_FILECOMPRESSION_COMPRESSED), "setCompression");
    for (uint32_t p = 1; p <= NPROCS; p++)
        check(OTF_Writer_assignProcess(w, p, p % 2 ? 1 : 2), "assignProcess");

    write_definitions(w, with_timerange, range_start);

    /* Every time at which something happens, ascending: each stream's file
     * must see non-decreasing times. */
    times[ntimes++] = 0;
    for (uint64_t i = 0; i < 10; i++) {
        times[ntimes++] = 100 * i + 10;
        times[ntimes++] = 100 * i + 60;
    }
    times[ntimes++] = 1000;
    times[ntimes++] = 1010;
    times[ntimes++] = 1020;
    times[ntimes++] = 1030;
    times[ntimes++] = 2000;
    for (size_t k = 0; k < ntimes; k++)
        for (uint32_t p = 1; p <= NPROCS; p++)
            write_events_at(w, p, times[k]);

    for (uint32_t p = 1; p <= NPROCS; p++) {
        if (p == 1)
            check(OTF_Writer_writeSnapshotComment(w, FIRST + 500, p, "mid-compute"),
                  "SnapshotComment");
        check(OTF_Writer_writeEnterSnapshot(w, FIRST + 500, FIRST, 1, p, 0), "EnterSnapshot");
    }
    for (uint32_t p = 1; p <= NPROCS; p++)
        check(OTF_Writer_writeEnterSnapshot(w, FIRST + 1500, FIRST, 1, p, 0), "EnterSnapshot");

    for (uint32_t p = 1; p <= NPROCS; p++)
        check(OTF_Writer_writeFunctionSummary(w, FIRST + 1000, 2, p, 10, 500, 500),
              "FunctionSummary");
    for (uint32_t p = 1; p <= NPROCS; p++) {
        check(OTF_Writer_writeFunctionSummary(w, FIRST + 2000, 1, p, 1, 1500, 2000),
              "FunctionSummary");
        check(OTF_Writer_writeFunctionSummary(w, FIRST + 2000, 2, p, 10, 500, 500),
              "FunctionSummary");
    }

    check(OTF_Writer_writeMarker(w, FIRST + 1000, 1, 1, "communication starts"), "Marker");
    check(OTF_Writer_writeMarker(w, FIRST + 2000, 2, 1, "done"), "Marker");

    check(OTF_Writer_close(w), "close");
    OTF_FileManager_close(manager);
    return failures ? 1 : 0;
}
