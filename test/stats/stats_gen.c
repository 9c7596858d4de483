/*
 * stats_gen — writes an OTF trace whose profile is known in closed form,
 * for vftr-stats's tests and benchmark.  Built against vftr's OTF library
 * and against the reference (the same source), like test/compat.
 *
 * Usage: stats_gen NAMESTUB RANKS CALLS [THREADS [PERSTREAM]]
 *
 * Timer resolution 1000000 ticks/s.  RANKS processes 1..RANKS; with
 * THREADS > 0 each rank r also has THREADS thread processes
 * 1000 * t + r (t = 1..THREADS) whose DefProcess parent is r.  PERSTREAM
 * processes share one stream (default 1), so streams hold several
 * processes.  Every process p (rank or thread) runs, from time 0:
 *
 *   main 0 .. 10*CALLS + 10 {
 *       for i in 0..CALLS-1:  work 10i+1 .. 10i+8 { leaf 10i+2 .. 10i+5 }
 *   }
 *
 * so per process: main 1 call, excl 10*CALLS + 10 - 7*CALLS = 3*CALLS + 10,
 * incl 10*CALLS + 10; work CALLS calls, excl 4 each, incl 7 each; leaf
 * CALLS calls, excl = incl = 3 each.  A window [10k, 10m) with k < m <=
 * CALLS holds calls k..m-1 whole: work and leaf m - k calls, main
 * 10 (m - k) - 7 (m - k) of exclusive time per process.
 *
 * Functions: 1 main, 2 work, 3 leaf (group 1 "APP").  Events are written
 * merged by time within each stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#include "otf.h"

static uint32_t nprocs, *procs;

static int die(const char *what)
{
    fprintf(stderr, "stats_gen: %s failed\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    OTF_FileManager *m;
    OTF_Writer *w;
    long ranks, calls, threads = 0, perstream = 1;
    char name[64];

    if (argc < 4) {
        fprintf(stderr, "usage: stats_gen NAMESTUB RANKS CALLS [THREADS [PERSTREAM]]\n");
        return 2;
    }
    ranks = atol(argv[2]);
    calls = atol(argv[3]);
    if (argc > 4)
        threads = atol(argv[4]);
    if (argc > 5)
        perstream = atol(argv[5]);
    if (ranks < 1 || ranks > 999 || calls < 1 || threads < 0 || threads > 99 || perstream < 1)
        return die("arguments");
    nprocs = (uint32_t)(ranks * (threads + 1));
    procs = calloc(nprocs, sizeof *procs);
    if (!procs)
        return die("malloc");
    for (long t = 0, k = 0; t <= threads; t++)
        for (long r = 1; r <= ranks; r++)
            procs[k++] = (uint32_t)(1000 * t + r);
    m = OTF_FileManager_open(100);
    if (!m)
        return die("OTF_FileManager_open");
    w = OTF_Writer_open(argv[1], (uint32_t)((nprocs + perstream - 1) / perstream), m);
    if (!w)
        return die("OTF_Writer_open");
    OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
    for (uint32_t i = 0; i < nprocs; i++) {
        uint32_t p = procs[i];

        snprintf(name, sizeof name, p > 1000 ? "thread %u of rank %u" : "rank %u%.0u",
                 p / 1000, p % 1000);
        if (!OTF_Writer_writeDefProcess(w, 0, p, name, p > 1000 ? p % 1000 : 0))
            return die("DefProcess");
        /* consecutive processes share a stream */
        if (!OTF_Writer_assignProcess(w, p, (uint32_t)(i / perstream) + 1))
            return die("assignProcess");
    }
    OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP");
    OTF_Writer_writeDefFunction(w, 0, 1, "main", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, 2, "work", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, 3, "leaf", 1, 0);

    /* Time order across a stream's processes: all processes do the same
     * thing at the same time, one after the other. */
    for (uint32_t i = 0; i < nprocs; i++)
        OTF_Writer_writeEnter(w, 0, 1, procs[i], 0);
    for (long c = 0; c < calls; c++) {
        uint64_t t = 10 * (uint64_t)c;
        for (uint32_t i = 0; i < nprocs; i++)
            OTF_Writer_writeEnter(w, t + 1, 2, procs[i], 0);
        for (uint32_t i = 0; i < nprocs; i++)
            OTF_Writer_writeEnter(w, t + 2, 3, procs[i], 0);
        for (uint32_t i = 0; i < nprocs; i++)
            OTF_Writer_writeLeave(w, t + 5, 3, procs[i], 0);
        for (uint32_t i = 0; i < nprocs; i++)
            if (!OTF_Writer_writeLeave(w, t + 8, 2, procs[i], 0))
                return die("writeLeave");
    }
    for (uint32_t i = 0; i < nprocs; i++)
        OTF_Writer_writeLeave(w, 10 * (uint64_t)calls + 10, 1, procs[i], 0);
    if (!OTF_Writer_close(w))
        return die("OTF_Writer_close");
    OTF_FileManager_close(m);
    free(procs);
    return 0;
}
