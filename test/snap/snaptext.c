/*
 * snaptext — writes an OTF trace from a small text description, for the
 * hand-built traces of vftr-snap's golden tests (built against the
 * reference OTF and against vftr's, so that the same trace comes from
 * either library).
 *
 * Usage: snaptext STUB [z] < DESCRIPTION
 *
 * The description has one record per line (numbers decimal, '#' starts a
 * comment); records must be in time order per stream:
 *   streams N                    number of streams (first line; default 1)
 *   proc P S                     process P on stream S (all before events)
 *   E t p f      / L t p f       Enter / Leave
 *   S t p to comm tag len        SendMsg
 *   R t p from comm tag len      RecvMsg
 *   C t p op comm root sent recv dur          CollectiveOperation
 *   BC t p op id comm root sent recv          BeginCollectiveOperation
 *   EC t p id                                 EndCollectiveOperation
 *   F t p file handle op bytes dur            FileOperation
 *   BF t p id                                 BeginFileOperation
 *   EF t p file id handle op bytes            EndFileOperation
 *   CNT t p counter value                     Counter
 * Definitions are fixed: timer 1000 ticks/s; functions 1..40 "f<n>" in
 * group n % 3 + 1; collective operations 1..5 of types 0..4; files 1..4 in
 * group n % 2 + 1; counters 1 and 2; process groups 1 (all) and 2.
 *
 * Exit status 0, 1 on an OTF error, 2 on a bad line (stderr names it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: snaptext STUB [z] < DESCRIPTION\n");
        return 2;
    }
    char line[512];
    unsigned nstreams = 1, lineno = 0;
    OTF_FileManager *fm = OTF_FileManager_open(100);
    OTF_Writer *w = NULL;
    uint32_t procs[256];
    unsigned nprocs = 0;
    int bad = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char kw[16];
        unsigned long long a[10] = { 0 };
        int n = sscanf(line, "%15s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", kw, &a[0], &a[1],
                       &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8], &a[9]);
        if (n < 1)
            continue;
        if (strcmp(kw, "streams") == 0) {
            nstreams = (unsigned)a[0];
            continue;
        }
        if (!w) {
            w = OTF_Writer_open(argv[1], nstreams, fm);
            if (!w) {
                fprintf(stderr, "snaptext: cannot open %s\n", argv[1]);
                return 1;
            }
            if (argc > 2 && strcmp(argv[2], "z") == 0)
                OTF_Writer_setCompression(w, OTF_FILECOMPRESSION_COMPRESSED);
        }
        if (strcmp(kw, "proc") == 0) {
            char name[32];
            snprintf(name, sizeof name, "P%llu", a[0]);
            OTF_Writer_writeDefProcess(w, 0, (uint32_t)a[0], name, 0);
            OTF_Writer_assignProcess(w, (uint32_t)a[0], (uint32_t)a[1]);
            if (nprocs < 256)
                procs[nprocs++] = (uint32_t)a[0];
            continue;
        }
        if (nprocs && procs[0] != 0) {
            /* first event: the definitions */
            OTF_Writer_writeDefTimerResolution(w, 0, 1000);
            OTF_Writer_writeDefProcessGroup(w, 0, 1, "ALL", nprocs, procs);
            OTF_Writer_writeDefProcessGroup(w, 0, 2, "FIRST", 1, procs);
            for (uint32_t g = 1; g <= 3; g++) {
                char name[16];
                snprintf(name, sizeof name, "G%u", g);
                OTF_Writer_writeDefFunctionGroup(w, 0, g, name);
            }
            for (uint32_t f = 1; f <= 40; f++) {
                char name[16];
                snprintf(name, sizeof name, "f%u", f);
                OTF_Writer_writeDefFunction(w, 0, f, name, f % 3 + 1, 0);
            }
            for (uint32_t c = 1; c <= 5; c++) {
                char name[16];
                snprintf(name, sizeof name, "coll%u", c);
                OTF_Writer_writeDefCollectiveOperation(w, 0, c, name, c - 1);
            }
            OTF_Writer_writeDefFileGroup(w, 0, 1, "FG1");
            OTF_Writer_writeDefFileGroup(w, 0, 2, "FG2");
            for (uint32_t f = 1; f <= 4; f++) {
                char name[16];
                snprintf(name, sizeof name, "file%u", f);
                OTF_Writer_writeDefFile(w, 0, f, name, f % 2 + 1);
            }
            OTF_Writer_writeDefCounterGroup(w, 0, 1, "CG");
            OTF_Writer_writeDefCounter(w, 0, 1, "acc", OTF_COUNTER_TYPE_ACC, 1, "#");
            OTF_Writer_writeDefCounter(w, 0, 2, "abs", OTF_COUNTER_TYPE_ABS, 1, "#");
            procs[0] = 0;
        }
        uint64_t t = a[0];
        uint32_t p = (uint32_t)a[1];
        int rc;
        if (strcmp(kw, "E") == 0 && n == 4)
            rc = OTF_Writer_writeEnter(w, t, (uint32_t)a[2], p, 0);
        else if (strcmp(kw, "L") == 0 && n == 4)
            rc = OTF_Writer_writeLeave(w, t, (uint32_t)a[2], p, 0);
        else if (strcmp(kw, "S") == 0 && n == 7)
            rc = OTF_Writer_writeSendMsg(w, t, p, (uint32_t)a[2], (uint32_t)a[3], (uint32_t)a[4],
                                         (uint32_t)a[5], 0);
        else if (strcmp(kw, "R") == 0 && n == 7)
            rc = OTF_Writer_writeRecvMsg(w, t, p, (uint32_t)a[2], (uint32_t)a[3], (uint32_t)a[4],
                                         (uint32_t)a[5], 0);
        else if (strcmp(kw, "C") == 0 && n == 9)
            rc = OTF_Writer_writeCollectiveOperation(w, t, p, (uint32_t)a[2], (uint32_t)a[3], (uint32_t)a[4],
                                                     (uint32_t)a[5], (uint32_t)a[6], a[7], 0);
        else if (strcmp(kw, "BC") == 0 && n == 9)
            rc = OTF_Writer_writeBeginCollectiveOperation(w, t, p, (uint32_t)a[2], a[3], (uint32_t)a[4],
                                                          (uint32_t)a[5], a[6], a[7], 0);
        else if (strcmp(kw, "EC") == 0 && n == 4)
            rc = OTF_Writer_writeEndCollectiveOperation(w, t, p, a[2]);
        else if (strcmp(kw, "F") == 0 && n == 8)
            rc = OTF_Writer_writeFileOperation(w, t, (uint32_t)a[2], p, a[3], (uint32_t)a[4], a[5], a[6], 0);
        else if (strcmp(kw, "BF") == 0 && n == 4)
            rc = OTF_Writer_writeBeginFileOperation(w, t, p, a[2], 0);
        else if (strcmp(kw, "EF") == 0 && n == 8)
            rc = OTF_Writer_writeEndFileOperation(w, t, p, (uint32_t)a[2], a[3], a[4], (uint32_t)a[5], a[6], 0);
        else if (strcmp(kw, "CNT") == 0 && n == 5)
            rc = OTF_Writer_writeCounter(w, t, p, (uint32_t)a[2], a[3]);
        else {
            fprintf(stderr, "snaptext: line %u: bad record '%s'\n", lineno, kw);
            bad = 1;
            continue;
        }
        if (rc == 0) {
            fprintf(stderr, "snaptext: line %u: the OTF writer refused the record\n", lineno);
            bad = 1;
        }
    }
    if (!w || OTF_Writer_close(w) == 0)
        bad = 1;
    OTF_FileManager_close(fm);
    return bad;
}
