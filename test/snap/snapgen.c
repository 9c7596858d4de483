/*
 * snapgen — writes a pseudo-random but reproducible OTF trace that uses
 * every record kind vftr-snap and otfaux look at: nested and recursive
 * calls, messages (some never received, some to processes on other
 * streams), complete and begin/end collective operations of every type,
 * complete and begin/end file operations, counters, equal time stamps and
 * several processes per stream.  Built twice, against the reference OTF
 * (the oracle's input) and against vftr's (fast, for the benchmark).
 *
 * Usage: snapgen STUB NPROCS NSTREAMS STEPS SEED [z]
 *   STEPS  number of generator steps (about one record each)
 *   z      write compressed files
 *
 * Prints "records N" (records written, definitions included) on success.
 * Exit status 0, or 1 when the OTF library reported an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf.h"

#define MAXPROCS 64
#define MAXDEPTH 12
#define NFUNCS 18u
#define NFILES 4u
#define NCOLL 5u
#define PENDING 4096

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    /* xorshift64*: reproducible on every platform */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 33) % n;
}

/* Events that must happen later: receives, collective and file-op ends. */
struct later {
    uint64_t time;
    int kind;          /* 0 recv, 1 end collop, 2 end fileop */
    uint32_t process, peer, comm, tag, len;
    uint64_t id;
    uint32_t file, op;
};

static struct later pending[PENDING];
static size_t npending;
static int errors;
static uint64_t written;      /* records written (definitions included) */

static void ok(int rc, const char *what)
{
    if (rc == 0) {
        fprintf(stderr, "snapgen: %s failed\n", what);
        errors++;
    } else {
        written++;
    }
}

static void add_later(const struct later *l)
{
    if (npending < PENDING)
        pending[npending++] = *l;
}

/* Writes every pending event due at or before `now`, in time order. */
static void flush_due(OTF_Writer *w, uint64_t now)
{
    for (;;) {
        size_t best = npending;
        for (size_t i = 0; i < npending; i++)
            if (pending[i].time <= now && (best == npending || pending[i].time < pending[best].time))
                best = i;
        if (best == npending)
            return;
        struct later l = pending[best];
        pending[best] = pending[--npending];
        switch (l.kind) {
        case 0:
            ok(OTF_Writer_writeRecvMsg(w, l.time, l.process, l.peer, l.comm, l.tag, l.len, 0), "recv");
            break;
        case 1:
            ok(OTF_Writer_writeEndCollectiveOperation(w, l.time, l.process, l.id), "endcoll");
            break;
        default:
            /* handles are per (file, process), as for complete operations,
             * so that closes find what opens opened */
            ok(OTF_Writer_writeEndFileOperation(w, l.time, l.process, l.file, l.id,
                                                l.file * 100 + l.process, l.op, l.len, 0),
               "endfileop");
            break;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: snapgen STUB NPROCS NSTREAMS STEPS SEED [z]\n");
        return 2;
    }
    uint32_t nprocs = (uint32_t)strtoul(argv[2], NULL, 10);
    uint32_t nstreams = (uint32_t)strtoul(argv[3], NULL, 10);
    uint64_t steps = strtoull(argv[4], NULL, 10);
    rng_state = strtoull(argv[5], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
    if (nprocs < 2 || nprocs > MAXPROCS || nstreams < 1) {
        fprintf(stderr, "snapgen: bad arguments\n");
        return 2;
    }
    OTF_FileManager *fm = OTF_FileManager_open(100);
    OTF_Writer *w = fm ? OTF_Writer_open(argv[1], nstreams, fm) : NULL;
    if (!w) {
        fprintf(stderr, "snapgen: cannot open %s\n", argv[1]);
        return 1;
    }
    if (argc > 6 && strcmp(argv[6], "z") == 0)
        OTF_Writer_setCompression(w, OTF_FILECOMPRESSION_COMPRESSED);
    char name[64];
    ok(OTF_Writer_writeDefTimerResolution(w, 0, 1000000), "timer");
    uint32_t all[MAXPROCS];
    for (uint32_t p = 1; p <= nprocs; p++) {
        snprintf(name, sizeof name, "rank %u", p - 1);
        ok(OTF_Writer_writeDefProcess(w, 0, p, name, 0), "defprocess");
        all[p - 1] = p;
        ok(OTF_Writer_assignProcess(w, p, (p - 1) % nstreams + 1), "assign");
    }
    ok(OTF_Writer_writeDefProcessGroup(w, 0, 1, "WORLD", nprocs, all), "group");
    ok(OTF_Writer_writeDefProcessGroup(w, 0, 2, "HALF", nprocs / 2, all), "group");
    ok(OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP"), "fgroup");
    ok(OTF_Writer_writeDefFunctionGroup(w, 0, 2, "MPI"), "fgroup");
    ok(OTF_Writer_writeDefFunctionGroup(w, 0, 3, "IO"), "fgroup");
    for (uint32_t f = 1; f <= NFUNCS; f++) {
        snprintf(name, sizeof name, "func_%u", f);
        ok(OTF_Writer_writeDefFunction(w, 0, f, name, f % 3 + 1, 0), "function");
    }
    static const char *const coll[NCOLL] = { "Unknown", "Barrier", "Bcast", "Reduce", "Alltoall" };
    for (uint32_t c = 0; c < NCOLL; c++)
        ok(OTF_Writer_writeDefCollectiveOperation(w, 0, c + 1, coll[c], c), "collop");
    ok(OTF_Writer_writeDefFileGroup(w, 0, 1, "data"), "filegroup");
    ok(OTF_Writer_writeDefFileGroup(w, 0, 2, "logs"), "filegroup");
    for (uint32_t f = 1; f <= NFILES; f++) {
        snprintf(name, sizeof name, "file%u.dat", f);
        ok(OTF_Writer_writeDefFile(w, 0, f, name, f % 2 + 1), "file");
    }
    ok(OTF_Writer_writeDefCounterGroup(w, 0, 1, "hw"), "countergroup");
    ok(OTF_Writer_writeDefCounter(w, 0, 1, "cycles", OTF_COUNTER_TYPE_ACC, 1, "#"), "counter");
    ok(OTF_Writer_writeDefCounter(w, 0, 2, "level", OTF_COUNTER_TYPE_ABS, 1, "#"), "counter");

    uint32_t stack[MAXPROCS][MAXDEPTH];
    uint32_t depth[MAXPROCS] = { 0 };
    uint64_t counter[MAXPROCS] = { 0 };
    uint64_t t = 1000, next_id = 1;
    for (uint32_t p = 1; p <= nprocs; p++) {
        ok(OTF_Writer_writeEnter(w, t, 1, p, 0), "enter");
        stack[p - 1][depth[p - 1]++] = 1;
    }
    for (uint64_t s = 0; s < steps; s++) {
        t += rnd(4);          /* 0 keeps the time: equal stamps */
        flush_due(w, t);
        uint32_t p = rnd(nprocs) + 1, *d = &depth[p - 1];
        uint32_t what = rnd(100);
        if (what < 35 && *d < MAXDEPTH) {
            /* recursion: sometimes the function on top again */
            uint32_t f = rnd(4) == 0 ? stack[p - 1][*d - 1] : rnd(NFUNCS) + 1;
            ok(OTF_Writer_writeEnter(w, t, f, p, 0), "enter");
            stack[p - 1][(*d)++] = f;
        } else if (what < 70 && *d > 1) {
            ok(OTF_Writer_writeLeave(w, t, stack[p - 1][--(*d)], p, 0), "leave");
        } else if (what < 80) {
            struct later l = { t + 1 + rnd(20), 0, rnd(nprocs) + 1, p, rnd(2) + 1, rnd(3), rnd(5000) + 1,
                               0, 0, 0 };
            if (l.process == p)
                l.process = p % nprocs + 1;
            /* one in ten is never received; it goes on a tag of its own
             * (as a message cut off by the end of a run would), so that
             * FIFO matching of the others stays as it was meant */
            int lost = rnd(10) == 0;
            if (lost)
                l.tag = 100 + p;
            ok(OTF_Writer_writeSendMsg(w, t, p, l.process, l.comm, l.tag, l.len, 0), "send");
            if (!lost)
                add_later(&l);
        } else if (what < 85) {
            uint32_t op = rnd(NCOLL) + 1;
            ok(OTF_Writer_writeCollectiveOperation(w, t, p, op, rnd(2) + 1, rnd(nprocs) + 1, rnd(3) * 64,
                                                   rnd(3) * 32, rnd(9), 0), "collop");
        } else if (what < 89) {
            struct later l = { t + rnd(15), 1, p, 0, 0, 0, 0, next_id++, 0, 0 };
            ok(OTF_Writer_writeBeginCollectiveOperation(w, t, p, rnd(NCOLL) + 1, l.id, rnd(2) + 1,
                                                        rnd(nprocs) + 1, rnd(3) * 16, rnd(3) * 8, 0),
               "begincoll");
            add_later(&l);
        } else if (what < 94) {
            static const uint32_t ops[] = { OTF_FILEOP_OPEN, OTF_FILEOP_CLOSE, OTF_FILEOP_READ,
                                            OTF_FILEOP_WRITE, OTF_FILEOP_SEEK, OTF_FILEOP_SYNC };
            uint32_t op = ops[rnd(6)], file = rnd(NFILES) + 1;
            ok(OTF_Writer_writeFileOperation(w, t, file, p, file * 100 + p, op, rnd(4096), rnd(6), 0),
               "fileop");
        } else if (what < 97) {
            static const uint32_t ops[] = { OTF_FILEOP_OPEN, OTF_FILEOP_READ, OTF_FILEOP_WRITE,
                                            OTF_FILEOP_CLOSE };
            struct later l = { t + rnd(12), 2, p, 0, 0, 0, rnd(2048), next_id++, rnd(NFILES) + 1,
                               ops[rnd(4)] };
            ok(OTF_Writer_writeBeginFileOperation(w, t, p, l.id, 0), "beginfileop");
            add_later(&l);
        } else {
            counter[p - 1] += rnd(1000);
            ok(OTF_Writer_writeCounter(w, t, p, rnd(2) + 1, counter[p - 1]), "counter");
        }
    }
    /* Everything still pending happens at the end; the last process keeps
     * its calls open (a trace cut short), the others leave them. */
    for (size_t i = 0; i < npending; i++)
        if (pending[i].time > t)
            t = pending[i].time;
    flush_due(w, UINT64_MAX);
    t += 5;
    for (uint32_t p = 1; p < nprocs; p++)
        while (depth[p - 1] > 0)
            ok(OTF_Writer_writeLeave(w, t, stack[p - 1][--depth[p - 1]], p, 0), "leave");
    int closed = OTF_Writer_close(w);
    OTF_FileManager_close(fm);
    if (!closed) {
        fprintf(stderr, "snapgen: close failed\n");
        errors++;
    }
    if (!errors)
        printf("records %llu\n", (unsigned long long)written);
    return errors ? 1 : 0;
}
