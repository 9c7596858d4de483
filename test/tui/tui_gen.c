/*
 * tui_gen — writes an OTF trace of a regular, hand-computable program for
 * vftr-tui's tests and benchmark, with optional snapshots and summaries
 * written by the generator itself (it knows every stack).  Built against
 * vftr's OTF and against the reference OTF (the same source), like
 * test/compat.
 *
 * Usage: tui_gen [-p PROCS] [-i ITERATIONS] [-s SNAPSHOTS] [-S] [-e] [-c] [-t T] [-f N] [-n]
 *                STUB
 *   -p  processes (1..9, default 4), one stream each
 *   -i  iterations per process (default 100)
 *   -s  K: snapshots at FIRST + k * span / K for k = 1 .. K-1 (default 0)
 *   -S  write summaries at the same times and at the end of the trace
 *   -e  no events at all (definitions only): a trace with no events
 *   -c  a collective operation (MPI_Barrier, process group 1 = all ranks,
 *       CollectiveOperation record) per iteration and process at base + 85
 *   -t  T (0..3) threads per rank: processes P + (p - 1) * T + k, k = 1..T,
 *       named "tP.K" (rank index P from 0), parent p, in p's stream; each
 *       runs main over [FIRST, END) and nothing else
 *   -n  processes named as vfd2otf names them: "Rank P" and "Rank P Thread K"
 *   -f  N (0..100) more functions, 6 .. 5 + N, named "kernel_00" ..: the
 *       work of iteration i is function 6 + i % N (instead of compute or
 *       io_write): a trace with many functions
 *
 * Timer resolution 1000000 ticks/s (1 tick = 1 us).  Functions: 1 main,
 * 2 step, 3 compute, 4 io_write, 5 exchange.  FIRST = 1000.
 * Process p (1-based) runs
 *   main   [FIRST, END)                        END = FIRST + 20 + 100 * I
 *   iteration i, base = FIRST + 10 + 100 * i:
 *     step      [base, base + 90)
 *       compute [base + 10, base + 30 + 2p)    (io_write when i % 10 == 9)
 *       exchange [base + 55, base + 80)
 *         send to p % P + 1 at base + 60 (communicator 0, tag 1, 64 bytes)
 *         receive from (p + P - 2) % P + 1 at base + 70
 * so every process has 8 events per iteration plus 2 (main).
 *
 * Snapshots hold the state just before their time (EnterSnapshot per open
 * frame with its enter time, SendSnapshot per message in flight) and are
 * announced by DefAuxSamplePoint.  Summaries (FunctionSummary) are the
 * profile of [FIRST, T): calls entered before T, and exclusive/inclusive
 * time inside [FIRST, T) (calls open at T count up to T).
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf.h"

#define FIRST 1000u
#define NFUNC 5
#define MAXF (NFUNC + 100)
#define MAXP 9
#define MAXT 3
#define MAXALL (MAXP * (1 + MAXT))
#define MAXDEPTH 4

static const char *const fnames[NFUNC + 1] = { "", "main", "step", "compute", "io_write",
                                              "exchange" };

struct frame { uint32_t f; uint64_t enter, child; };
struct stat1 { uint64_t calls, excl, incl; };

static struct frame stack[MAXALL + 1][MAXDEPTH];
static int depth[MAXALL + 1];
static struct stat1 stats[MAXALL + 1][MAXF + 1];
static int nfunc = NFUNC;               /* with -f */
static uint64_t inflight[MAXALL + 1];   /* send time of p's message in flight, 0 if none */
static int nproc = 4;
static int nall = 4;                    /* ranks and threads */
static int failures;

static void check(int ok, const char *what)
{
    if (!ok && failures++ < 5)
        fprintf(stderr, "tui_gen: %s failed\n", what);
}

static void enter(OTF_Writer *w, uint64_t t, int p, uint32_t f)
{
    check(OTF_Writer_writeEnter(w, t, f, (uint32_t)p, 0) != 0, "writeEnter");
    stack[p][depth[p]++] = (struct frame){ f, t, 0 };
    stats[p][f].calls++;
}

static void leave(OTF_Writer *w, uint64_t t, int p)
{
    struct frame *fr = &stack[p][--depth[p]];
    uint64_t dur = t - fr->enter;

    check(OTF_Writer_writeLeave(w, t, fr->f, (uint32_t)p, 0) != 0, "writeLeave");
    stats[p][fr->f].excl += dur - fr->child;
    stats[p][fr->f].incl += dur;     /* no recursion in this program */
    if (depth[p] > 0)
        stack[p][depth[p] - 1].child += dur;
}

static void snapshot(OTF_Writer *w, uint64_t t)
{
    for (int p = 1; p <= nall; p++) {
        for (int k = 0; k < depth[p]; k++)
            check(OTF_Writer_writeEnterSnapshot(w, t, stack[p][k].enter, stack[p][k].f,
                                                (uint32_t)p, 0) != 0, "writeEnterSnapshot");
        if (inflight[p])
            check(OTF_Writer_writeSendSnapshot(w, t, inflight[p], (uint32_t)p,
                                               (uint32_t)(p % nproc + 1), 0, 1, 64, 0) != 0,
                  "writeSendSnapshot");
    }
}

/* The profile of [FIRST, t): completed calls plus the open ones up to t. */
static void summary(OTF_Writer *w, uint64_t t)
{
    for (int p = 1; p <= nall; p++) {
        struct stat1 s[MAXF + 1];
        uint64_t below = 0;      /* inclusive time of the open frame above */

        memcpy(s, stats[p], sizeof s);
        for (int k = depth[p] - 1; k >= 0; k--) {
            const struct frame *fr = &stack[p][k];
            uint64_t dur = t - fr->enter;

            s[fr->f].excl += dur - fr->child - below;
            s[fr->f].incl += dur;
            below = dur;
        }
        for (uint32_t f = 1; f <= (uint32_t)nfunc; f++)
            if (s[f].calls)
                check(OTF_Writer_writeFunctionSummary(w, t, f, (uint32_t)p, s[f].calls,
                                                      s[f].excl, s[f].incl) != 0,
                      "writeFunctionSummary");
    }
}

int main(int argc, char **argv)
{
    long iters = 100, nsnap = 0;
    int sums = 0, empty = 0, coll = 0, nthreads = 0, nmore = 0, vfdnames = 0, c;

    while ((c = getopt(argc, argv, "p:i:s:Sect:f:n")) != -1) {
        switch (c) {
        case 'p': nproc = atoi(optarg); break;
        case 'i': iters = atol(optarg); break;
        case 's': nsnap = atol(optarg); break;
        case 'S': sums = 1; break;
        case 'e': empty = 1; break;
        case 'c': coll = 1; break;
        case 't': nthreads = atoi(optarg); break;
        case 'f': nmore = atoi(optarg); break;
        case 'n': vfdnames = 1; break;
        default:
            fprintf(stderr, "usage: tui_gen [-p P] [-i I] [-s K] [-S] [-e] [-c] [-t T] [-f N] [-n] STUB\n");
            return 2;
        }
    }
    if (optind != argc - 1 || nproc < 1 || nproc > MAXP || iters < 0 || nsnap < 0 ||
        nthreads < 0 || nthreads > MAXT || nmore < 0 || nmore > MAXF - NFUNC) {
        fprintf(stderr, "usage: tui_gen [-p P] [-i I] [-s K] [-S] [-e] [-c] [-t T] [-f N] [-n] STUB\n");
        return 2;
    }
    nall = nproc * (1 + nthreads);
    nfunc = NFUNC + nmore;

    const uint64_t end = FIRST + 20 + 100 * (uint64_t)iters;
    const uint64_t span = end - FIRST;
    OTF_FileManager *m = OTF_FileManager_open(100);
    OTF_Writer *w = m ? OTF_Writer_open(argv[optind], (uint32_t)nproc, m) : NULL;

    if (!w) {
        fprintf(stderr, "tui_gen: cannot open %s\n", argv[optind]);
        return 1;
    }
    check(OTF_Writer_writeDefTimerResolution(w, 0, 1000000) != 0, "timer");
    for (int p = 1; p <= nproc; p++) {
        char name[32];

        snprintf(name, sizeof name, vfdnames ? "Rank %d" : "rank %d", p - 1);
        check(OTF_Writer_writeDefProcess(w, 0, (uint32_t)p, name, 0) != 0, "process");
        check(OTF_Writer_assignProcess(w, (uint32_t)p, (uint32_t)p) != 0, "assign");
    }
    for (int p = 1; p <= nproc; p++)
        for (int k = 1; k <= nthreads; k++) {
            char name[32];
            uint32_t tp = (uint32_t)(nproc + (p - 1) * nthreads + k);

            if (vfdnames)
                snprintf(name, sizeof name, "Rank %d Thread %d", p - 1, k);
            else
                snprintf(name, sizeof name, "t%d.%d", p - 1, k);
            check(OTF_Writer_writeDefProcess(w, 0, tp, name, (uint32_t)p) != 0, "thread");
            check(OTF_Writer_assignProcess(w, tp, (uint32_t)p) != 0, "assign thread");
        }
    if (coll) {
        uint32_t ranks[MAXP];

        for (int p = 1; p <= nproc; p++)
            ranks[p - 1] = (uint32_t)p;
        check(OTF_Writer_writeDefProcessGroup(w, 0, 1, "COMM_WORLD", (uint32_t)nproc, ranks)
              != 0, "procgroup");
        check(OTF_Writer_writeDefCollectiveOperation(w, 0, 1, "MPI_Barrier",
                                                     OTF_COLLECTIVE_TYPE_BARRIER) != 0,
              "collop def");
    }
    check(OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP") != 0, "group");
    for (uint32_t f = 1; f <= NFUNC; f++)
        check(OTF_Writer_writeDefFunction(w, 0, f, fnames[f], 1, 0) != 0, "function");
    for (int k = 0; k < nmore; k++) {
        char name[32];

        snprintf(name, sizeof name, "kernel_%02d", k);
        check(OTF_Writer_writeDefFunction(w, 0, (uint32_t)(NFUNC + 1 + k), name, 1, 0) != 0,
              "function");
    }
    if (!empty)
        check(OTF_Writer_writeDefTimeRange(w, 0, FIRST, end, NULL) != 0, "timerange");
    for (long k = 1; !empty && k < nsnap; k++) {
        uint64_t t = FIRST + (uint64_t)k * span / (uint64_t)nsnap;

        check(OTF_Writer_writeDefAuxSamplePoint(w, 0, t, OTF_AUX_SAMPLE_POINT_SNAPSHOT, NULL)
              != 0, "samplepoint");
        if (sums)
            check(OTF_Writer_writeDefAuxSamplePoint(w, 0, t, OTF_AUX_SAMPLE_POINT_SUMMARY,
                                                    NULL) != 0, "samplepoint");
    }
    if (!empty && sums)
        check(OTF_Writer_writeDefAuxSamplePoint(w, 0, end, OTF_AUX_SAMPLE_POINT_SUMMARY, NULL)
              != 0, "samplepoint");

    if (!empty) {
        long k = 1;
        uint64_t next = nsnap > 1 ? FIRST + span / (uint64_t)nsnap : UINT64_MAX;

/* Before any event at time >= the next break: the breaks up to t. */
#define BREAKS(t)                                                            \
        while ((t) >= next) {                                                \
            snapshot(w, next);                                               \
            if (sums)                                                        \
                summary(w, next);                                            \
            k++;                                                             \
            next = k < nsnap ? FIRST + (uint64_t)k * span / (uint64_t)nsnap  \
                             : UINT64_MAX;                                   \
        }

        for (int p = 1; p <= nall; p++)
            enter(w, FIRST, p, 1);
        for (long i = 0; i < iters; i++) {
            uint64_t base = FIRST + 10 + 100 * (uint64_t)i;
            uint32_t work = nmore ? (uint32_t)(NFUNC + 1 + i % nmore) : i % 10 == 9 ? 4 : 3;

            BREAKS(base);
            for (int p = 1; p <= nproc; p++)
                enter(w, base, p, 2);
            BREAKS(base + 10);
            for (int p = 1; p <= nproc; p++)
                enter(w, base + 10, p, work);
            for (int p = 1; p <= nproc; p++) {
                BREAKS(base + 30 + 2 * (uint64_t)p);
                leave(w, base + 30 + 2 * (uint64_t)p, p);
            }
            BREAKS(base + 55);
            for (int p = 1; p <= nproc; p++)
                enter(w, base + 55, p, 5);
            BREAKS(base + 60);
            for (int p = 1; p <= nproc; p++) {
                check(OTF_Writer_writeSendMsg(w, base + 60, (uint32_t)p,
                                              (uint32_t)(p % nproc + 1), 0, 1, 64, 0) != 0,
                      "send");
                inflight[p] = base + 60;
            }
            BREAKS(base + 70);
            for (int p = 1; p <= nproc; p++) {
                int from = (p + nproc - 2) % nproc + 1;

                check(OTF_Writer_writeRecvMsg(w, base + 70, (uint32_t)p, (uint32_t)from, 0, 1,
                                              64, 0) != 0, "recv");
                inflight[from] = 0;
            }
            BREAKS(base + 80);
            for (int p = 1; p <= nproc; p++)
                leave(w, base + 80, p);
            BREAKS(base + 85);
            for (int p = 1; coll && p <= nproc; p++)
                check(OTF_Writer_writeCollectiveOperation(w, base + 85, (uint32_t)p, 1, 1, 0, 0,
                                                          0, 0, 0) != 0, "collop");
            BREAKS(base + 90);
            for (int p = 1; p <= nproc; p++)
                leave(w, base + 90, p);
        }
        BREAKS(end);
        for (int p = 1; p <= nall; p++)
            leave(w, end, p);
        if (sums)
            summary(w, end);
    }
    check(OTF_Writer_close(w) != 0, "close");
    OTF_FileManager_close(m);
    return failures ? 1 : 0;
}
