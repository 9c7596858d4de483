/*
 * stats_fixture — writes a small OTF trace with hand-computable profiles,
 * for test/integration/vftr_stats.sh (built against vftr's OTF and the
 * reference, like every program in test/compat).
 *
 * Usage: stats_fixture NAMESTUB
 *
 * Timer resolution 1000 ticks/s (1 tick = 1 ms); times below are relative
 * to FIRST = 1000.  Processes 1 and 2 on stream 1, process 3 on stream 2.
 * Functions 1 main, 2 a, 3 b, 4 f.
 *
 *   P1: main 0..100 { a 10..30, b 40..70 { a 45..50 } }
 *   P2: main 0..40 { f 5..35 { f 10..20 } }            (recursion)
 *   P3: main 0.. { a 20.. { b 60..60 } }               (equal time stamps;
 *       main and a are never left: open at the end of the trace)
 *
 * The expected profiles are worked out in vftr_stats.sh.
 */
#include <stdio.h>
#include <stdint.h>

#include "otf.h"

#define FIRST 1000u

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "stats_fixture: %s failed\n", what);
        failures++;
    }
}

struct ev {
    uint32_t process;
    int enter;            /* 1 Enter, 0 Leave */
    uint32_t function;
    uint64_t rel;
};

/* Listed per process; written merged by time (a stream's records must
 * not go back in time), equal times in the listed order. */
static const struct ev events[] = {
    { 1, 1, 1, 0 },   { 1, 1, 2, 10 },  { 1, 0, 2, 30 },  { 1, 1, 3, 40 },
    { 1, 1, 2, 45 },  { 1, 0, 2, 50 },  { 1, 0, 3, 70 },  { 1, 0, 1, 100 },
    { 2, 1, 1, 0 },   { 2, 1, 4, 5 },   { 2, 1, 4, 10 },  { 2, 0, 4, 20 },
    { 2, 0, 4, 35 },  { 2, 0, 1, 40 },
    { 3, 1, 1, 0 },   { 3, 1, 2, 20 },  { 3, 1, 3, 60 },  { 3, 0, 3, 60 },
};

int main(int argc, char **argv)
{
    static const char *const names[] = { NULL, "main", "a", "b", "f" };
    OTF_FileManager *manager;
    OTF_Writer *w;

    if (argc != 2) {
        fprintf(stderr, "usage: stats_fixture NAMESTUB\n");
        return 2;
    }
    manager = OTF_FileManager_open(16);
    w = manager ? OTF_Writer_open(argv[1], 2, manager) : NULL;
    if (!w) {
        fprintf(stderr, "stats_fixture: cannot open %s\n", argv[1]);
        return 1;
    }
    check(OTF_Writer_assignProcess(w, 1, 1), "assignProcess");
    check(OTF_Writer_assignProcess(w, 2, 1), "assignProcess");
    check(OTF_Writer_assignProcess(w, 3, 2), "assignProcess");
    check(OTF_Writer_writeDefTimerResolution(w, 0, 1000), "DefTimerResolution");
    check(OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0), "DefProcess");
    check(OTF_Writer_writeDefProcess(w, 0, 2, "P2", 0), "DefProcess");
    check(OTF_Writer_writeDefProcess(w, 0, 3, "P3", 0), "DefProcess");
    check(OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP"), "DefFunctionGroup");
    for (uint32_t f = 1; f <= 4; f++)
        check(OTF_Writer_writeDefFunction(w, 0, f, names[f], 1, 0), "DefFunction");
    enum { N = sizeof events / sizeof events[0] };
    size_t order[N];
    for (size_t i = 0; i < N; i++) {              /* stable insertion sort by time */
        size_t j = i;
        while (j > 0 && events[order[j - 1]].rel > events[i].rel) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (size_t i = 0; i < N; i++) {
        const struct ev *e = &events[order[i]];
        if (e->enter)
            check(OTF_Writer_writeEnter(w, FIRST + e->rel, e->function, e->process, 0), "Enter");
        else
            check(OTF_Writer_writeLeave(w, FIRST + e->rel, e->function, e->process, 0), "Leave");
    }
    check(OTF_Writer_close(w), "close");
    OTF_FileManager_close(manager);
    return failures ? 1 : 0;
}
