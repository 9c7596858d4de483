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
 * Function groups: 1 APP (main, a), 2 LIB (b, f) — for --groups.
 *
 * Messages (communicator, tag, bytes; all but one received):
 *   P1->P2 c1 t7 100 B at 12, received 15;  P1->P2 c1 t8 200 B at 13,
 *   received 14 (before the tag 7 one);  P2->P1 c1 t1 50 B at 20, received
 *   25;  P1->P3 c1 t0 1000 B at 30, never received;  P1->P2 c2 t7 300 B at
 *   35, received 38 (same pair and tag, other communicator).
 * Collectives: 1 MPI_Barrier as CollectiveOperation records: P1 at 80
 *   lasting 5, P2 at 38 lasting 2, P3 at 70 lasting 15 (no bytes);
 *   2 MPI_Allreduce as Begin/EndCollectiveOperation: P1 60..65 and P2
 *   36..39 (matching id 1, 8 bytes sent and 8 received each).
 * None of these touch the function profile: the existing goldens stay.
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

enum kind { ENTER, LEAVE, SEND, RECV, COLLOP, BEGIN_COLL, END_COLL };

/* Enter/Leave: a = function.  Send/Recv: a = peer, b = communicator, c =
 * tag, d = bytes.  CollectiveOperation: a = op, d = duration.  Begin/End
 * collective: a = op, c = matching id, d = bytes sent (= received). */
struct ev {
    uint32_t process;
    enum kind kind;
    uint32_t a;
    uint64_t rel;
    uint32_t b, c, d;
};

/* Listed per process; written merged by time (a stream's records must
 * not go back in time), equal times in the listed order. */
static const struct ev events[] = {
    { 1, ENTER, 1, 0, 0, 0, 0 },   { 1, ENTER, 2, 10, 0, 0, 0 },  { 1, LEAVE, 2, 30, 0, 0, 0 },
    { 1, ENTER, 3, 40, 0, 0, 0 },  { 1, ENTER, 2, 45, 0, 0, 0 },  { 1, LEAVE, 2, 50, 0, 0, 0 },
    { 1, LEAVE, 3, 70, 0, 0, 0 },  { 1, LEAVE, 1, 100, 0, 0, 0 },
    { 2, ENTER, 1, 0, 0, 0, 0 },   { 2, ENTER, 4, 5, 0, 0, 0 },   { 2, ENTER, 4, 10, 0, 0, 0 },
    { 2, LEAVE, 4, 20, 0, 0, 0 },  { 2, LEAVE, 4, 35, 0, 0, 0 },  { 2, LEAVE, 1, 40, 0, 0, 0 },
    { 3, ENTER, 1, 0, 0, 0, 0 },   { 3, ENTER, 2, 20, 0, 0, 0 },  { 3, ENTER, 3, 60, 0, 0, 0 },
    { 3, LEAVE, 3, 60, 0, 0, 0 },
    { 1, SEND, 2, 12, 1, 7, 100 }, { 1, SEND, 2, 13, 1, 8, 200 }, { 2, RECV, 1, 14, 1, 8, 200 },
    { 2, RECV, 1, 15, 1, 7, 100 }, { 2, SEND, 1, 20, 1, 1, 50 },  { 1, RECV, 2, 25, 1, 1, 50 },
    { 1, SEND, 3, 30, 1, 0, 1000 }, { 1, SEND, 2, 35, 2, 7, 300 }, { 2, RECV, 1, 38, 2, 7, 300 },
    { 1, COLLOP, 1, 80, 0, 0, 5 }, { 2, COLLOP, 1, 38, 0, 0, 2 }, { 3, COLLOP, 1, 70, 0, 0, 15 },
    { 1, BEGIN_COLL, 2, 60, 0, 1, 8 }, { 1, END_COLL, 2, 65, 0, 1, 8 },
    { 2, BEGIN_COLL, 2, 36, 0, 1, 8 }, { 2, END_COLL, 2, 39, 0, 1, 8 },
};

/* Writes one record; 1 on success like the OTF writer. */
static int put(OTF_Writer *w, const struct ev *e)
{
    uint64_t t = FIRST + e->rel;

    switch (e->kind) {
    case ENTER:  return OTF_Writer_writeEnter(w, t, e->a, e->process, 0);
    case LEAVE:  return OTF_Writer_writeLeave(w, t, e->a, e->process, 0);
    case SEND:   return OTF_Writer_writeSendMsg(w, t, e->process, e->a, e->b, e->c, e->d, 0);
    case RECV:   return OTF_Writer_writeRecvMsg(w, t, e->process, e->a, e->b, e->c, e->d, 0);
    case COLLOP: return OTF_Writer_writeCollectiveOperation(w, t, e->process, e->a, 1, 0, 0, 0,
                                                             e->d, 0);
    case BEGIN_COLL:
        return OTF_Writer_writeBeginCollectiveOperation(w, t, e->process, e->a, e->c, 1, 0, e->d,
                                                        e->d, 0);
    case END_COLL: return OTF_Writer_writeEndCollectiveOperation(w, t, e->process, e->c);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const names[] = { NULL, "main", "a", "b", "f" };
    static const uint32_t groups[] = { 0, 1, 1, 2, 2 };
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
    static const uint32_t all[] = { 1, 2, 3 }, p12[] = { 1, 2 };
    check(OTF_Writer_writeDefProcessGroup(w, 0, 1, "COMM_WORLD", 3, all), "DefProcessGroup");
    check(OTF_Writer_writeDefProcessGroup(w, 0, 2, "COMM_12", 2, p12), "DefProcessGroup");
    check(OTF_Writer_writeDefFunctionGroup(w, 0, 1, "APP"), "DefFunctionGroup");
    check(OTF_Writer_writeDefFunctionGroup(w, 0, 2, "LIB"), "DefFunctionGroup");
    for (uint32_t f = 1; f <= 4; f++)
        check(OTF_Writer_writeDefFunction(w, 0, f, names[f], groups[f], 0), "DefFunction");
    check(OTF_Writer_writeDefCollectiveOperation(w, 0, 1, "MPI_Barrier", OTF_COLLECTIVE_TYPE_BARRIER),
          "DefCollectiveOperation");
    check(OTF_Writer_writeDefCollectiveOperation(w, 0, 2, "MPI_Allreduce", OTF_COLLECTIVE_TYPE_ALL2ALL),
          "DefCollectiveOperation");
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
        check(put(w, e), "event record");
    }
    check(OTF_Writer_close(w), "close");
    OTF_FileManager_close(manager);
    return failures ? 1 : 0;
}
