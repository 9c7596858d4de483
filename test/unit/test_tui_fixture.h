/*
 * test_tui_fixture.h — small OTF traces written with vftr's OTF writer for
 * test_window.c and test_tui_model.c, with every value worked out by hand
 * below.  Static inline functions only: each suite includes it once.
 *
 * fixture_small(stub, snaps, index): timer 1000 ticks/s, processes 1 ("P1")
 * and 2 ("P2"), functions 1 main, 2 a, 3 b, 4 c, 5 d.
 *   P1: main [100, 1000) { a [200, 300), b [400, 700) { c [450, 500) } }
 *       send to P2 at 460 (communicator 0, tag 5, 10 bytes)
 *   P2: main [100, 900) { d [150, 850) }, receive from P1 at 800
 * With snaps: snapshots at 420 (P1 main@100 b@400, P2 main@100 d@150) and
 * 600 (the same frames, and the message of 460 in flight), announced by
 * DefAuxSamplePoint when index is set; summaries at 600 and 1000.
 *
 * fixture_loop(stub, iters, every): processes 1 and 2, timer 1000000/s;
 * main [0, 100 * iters + 10) and per iteration i, base = 10 + 100 i:
 * step [base, base + 90) { work [base + 10, base + 50) }.  A snapshot with
 * DefAuxSamplePoint every `every` iterations (at base of that iteration:
 * main and nothing else open), none if every is 0.
 */
#ifndef TEST_TUI_FIXTURE_H
#define TEST_TUI_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf.h"

static inline int fixture_small(const char *stub, int snaps, int index)
{
    OTF_FileManager *m = OTF_FileManager_open(10);
    OTF_Writer *w = m ? OTF_Writer_open(stub, 2, m) : NULL;
    int bad = 0;

    if (!w)
        return -1;
    bad |= !OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    bad |= !OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0);
    bad |= !OTF_Writer_writeDefProcess(w, 0, 2, "P2", 0);
    bad |= !OTF_Writer_assignProcess(w, 1, 1);
    bad |= !OTF_Writer_assignProcess(w, 2, 2);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 2, "a", 0, 0);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 3, "b", 0, 0);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 4, "c", 0, 0);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 5, "d", 0, 0);
    if (snaps && index) {
        bad |= !OTF_Writer_writeDefAuxSamplePoint(w, 0, 420, OTF_AUX_SAMPLE_POINT_SNAPSHOT, NULL);
        bad |= !OTF_Writer_writeDefAuxSamplePoint(w, 0, 600, OTF_AUX_SAMPLE_POINT_SNAPSHOT, NULL);
        bad |= !OTF_Writer_writeDefAuxSamplePoint(w, 0, 600, OTF_AUX_SAMPLE_POINT_SUMMARY, NULL);
        bad |= !OTF_Writer_writeDefAuxSamplePoint(w, 0, 1000, OTF_AUX_SAMPLE_POINT_SUMMARY, NULL);
    }
    /* P1 */
    bad |= !OTF_Writer_writeEnter(w, 100, 1, 1, 0);
    bad |= !OTF_Writer_writeEnter(w, 200, 2, 1, 0);
    bad |= !OTF_Writer_writeLeave(w, 300, 2, 1, 0);
    bad |= !OTF_Writer_writeEnter(w, 400, 3, 1, 0);
    bad |= !OTF_Writer_writeEnter(w, 450, 4, 1, 0);
    bad |= !OTF_Writer_writeSendMsg(w, 460, 1, 2, 0, 5, 10, 0);
    bad |= !OTF_Writer_writeLeave(w, 500, 4, 1, 0);
    bad |= !OTF_Writer_writeLeave(w, 700, 3, 1, 0);
    bad |= !OTF_Writer_writeLeave(w, 1000, 1, 1, 0);
    /* P2 */
    bad |= !OTF_Writer_writeEnter(w, 100, 1, 2, 0);
    bad |= !OTF_Writer_writeEnter(w, 150, 5, 2, 0);
    bad |= !OTF_Writer_writeRecvMsg(w, 800, 2, 1, 0, 5, 10, 0);
    bad |= !OTF_Writer_writeLeave(w, 850, 5, 2, 0);
    bad |= !OTF_Writer_writeLeave(w, 900, 1, 2, 0);
    if (snaps) {
        for (uint64_t t = 420; t <= 600; t += 180) {
            bad |= !OTF_Writer_writeEnterSnapshot(w, t, 100, 1, 1, 0);
            bad |= !OTF_Writer_writeEnterSnapshot(w, t, 400, 3, 1, 0);
            bad |= !OTF_Writer_writeEnterSnapshot(w, t, 100, 1, 2, 0);
            bad |= !OTF_Writer_writeEnterSnapshot(w, t, 150, 5, 2, 0);
        }
        bad |= !OTF_Writer_writeSendSnapshot(w, 600, 460, 1, 2, 0, 5, 10, 0);
        /* profile of [100, 600): P1 main 1 call excl 100+100 (to 200, 300..400)
         * incl 500; a 1, 100, 100; b 1, 150, 200; c 1, 50, 50;
         * P2 main 1, 50, 500; d 1, 450, 450 */
        bad |= !OTF_Writer_writeFunctionSummary(w, 600, 1, 1, 1, 200, 500);
        bad |= !OTF_Writer_writeFunctionSummary(w, 600, 2, 1, 1, 100, 100);
        bad |= !OTF_Writer_writeFunctionSummary(w, 600, 3, 1, 1, 150, 200);
        bad |= !OTF_Writer_writeFunctionSummary(w, 600, 4, 1, 1, 50, 50);
        bad |= !OTF_Writer_writeFunctionSummary(w, 600, 1, 2, 1, 50, 500);
        bad |= !OTF_Writer_writeFunctionSummary(w, 600, 5, 2, 1, 450, 450);
        /* [100, 1000): P1 main 900 incl, excl 900-100-300 = 500; b 250, 300;
         * P2 main 800 incl, excl 100; d 700 */
        bad |= !OTF_Writer_writeFunctionSummary(w, 1000, 1, 1, 1, 500, 900);
        bad |= !OTF_Writer_writeFunctionSummary(w, 1000, 2, 1, 1, 100, 100);
        bad |= !OTF_Writer_writeFunctionSummary(w, 1000, 3, 1, 1, 250, 300);
        bad |= !OTF_Writer_writeFunctionSummary(w, 1000, 4, 1, 1, 50, 50);
        bad |= !OTF_Writer_writeFunctionSummary(w, 1000, 1, 2, 1, 100, 800);
        bad |= !OTF_Writer_writeFunctionSummary(w, 1000, 5, 2, 1, 700, 700);
    }
    bad |= !OTF_Writer_close(w);
    OTF_FileManager_close(m);
    return bad ? -1 : 0;
}

static inline int fixture_loop(const char *stub, long iters, long every)
{
    OTF_FileManager *m = OTF_FileManager_open(10);
    OTF_Writer *w = m ? OTF_Writer_open(stub, 2, m) : NULL;
    uint64_t end = 100 * (uint64_t)iters + 10;
    int bad = 0;

    if (!w)
        return -1;
    bad |= !OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
    bad |= !OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0);
    bad |= !OTF_Writer_writeDefProcess(w, 0, 2, "P2", 0);
    bad |= !OTF_Writer_assignProcess(w, 1, 1);
    bad |= !OTF_Writer_assignProcess(w, 2, 2);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 2, "step", 0, 0);
    bad |= !OTF_Writer_writeDefFunction(w, 0, 3, "work", 0, 0);
    for (long i = every; every > 0 && i < iters; i += every)
        bad |= !OTF_Writer_writeDefAuxSamplePoint(w, 0, 10 + 100 * (uint64_t)i,
                                                  OTF_AUX_SAMPLE_POINT_SNAPSHOT, NULL);
    for (uint32_t p = 1; p <= 2; p++)
        bad |= !OTF_Writer_writeEnter(w, 0, 1, p, 0);
    for (long i = 0; i < iters && !bad; i++) {
        uint64_t base = 10 + 100 * (uint64_t)i;

        for (uint32_t p = 1; p <= 2; p++) {
            if (every > 0 && i > 0 && i % every == 0)
                bad |= !OTF_Writer_writeEnterSnapshot(w, base, 0, 1, p, 0);
            bad |= !OTF_Writer_writeEnter(w, base, 2, p, 0);
            bad |= !OTF_Writer_writeEnter(w, base + 10, 3, p, 0);
            bad |= !OTF_Writer_writeLeave(w, base + 50, 3, p, 0);
            bad |= !OTF_Writer_writeLeave(w, base + 90, 2, p, 0);
        }
    }
    for (uint32_t p = 1; p <= 2; p++)
        bad |= !OTF_Writer_writeLeave(w, end, 1, p, 0);
    bad |= !OTF_Writer_close(w);
    OTF_FileManager_close(m);
    return bad ? -1 : 0;
}

/* Sum of the sizes of the files of a trace (stub.*). */
static inline long long fixture_trace_bytes(const char *stub)
{
    static const char *const suffix[] = { ".otf", ".0.def", ".1.events", ".2.events",
                                          ".1.snaps", ".2.snaps", ".1.stats", ".2.stats" };
    long long total = 0;
    char path[4096];
    struct stat sb;

    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(path, sizeof path, "%s%s", stub, suffix[i]);
        if (stat(path, &sb) == 0)
            total += sb.st_size;
    }
    return total;
}

/* A fresh directory for one suite's traces; "" on failure. */
static inline const char *fixture_dir(void)
{
    static char dir[] = "/tmp/vftr-tui-test-XXXXXX";
    static int made;            /* 1 made, -1 failed; the name itself may end in 'X' */

    if (!made)
        made = mkdtemp(dir) ? 1 : -1;
    return made > 0 ? dir : "";
}

#endif /* TEST_TUI_FIXTURE_H */
