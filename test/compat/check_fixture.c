/*
 * check_fixture — writes small OTF traces, each breaking one invariant of
 * vftr-dump --check (lib/model/check.h) or none, for
 * test/integration/vftr_dump_check.sh (built against vftr's OTF and the
 * reference, like every program in test/compat).
 *
 * Usage: check_fixture DIR   (writes DIR/<scenario>.otf and its files)
 *
 * Timer resolution 1000 ticks/s; processes 1 and 2 (one stream each);
 * functions 1 main, 2 f, 3 g.  Every scenario starts from the same sound
 * run and changes one thing:
 *   ok:        P1 main 0..100 { f 10..20, send to P2 at 30 }, P2 main
 *              0..100 { g 40..50, receive from P1 at 45 }; an allreduce
 *              (Begin/EndCollectiveOperation, id 1) on both 60..70.
   (A stream that goes back in time cannot be written through the API: the
 *   test makes one by editing the ok trace's event file.)
 *   wrongleave: P1 leaves g (not open) at 20 where f is open (and f at 25).
 *   badorder:  P1 leaves main at 20 while f is still open (f closes too);
 *              it sends at 30 outside any call.
 *   empty:     P2 leaves g at 30 before anything is open (its main enters
 *              only at 35).
 *   open:      P2 never leaves main.
 *   nosend:    P2 receives a message from P1 with tag 9, never sent.
 *   early:     P2 receives P1's message at 25, before it was sent at 30.
 *   collend:   P2 ends collective 2, which never began.
 *   collopen:  P1's collective 1 never ends.
 *   undefined: P1 calls function 4 at 10..20, P2's collective is on
 *              communicator 5: neither is defined.
 *   fileend:   P2 ends file operation 3 (on file 1), which never began.
 *   fileopen:  P1's file operation 1 begins at 80 and never ends.
 *   fileundef: P1 writes file 7 twice (80..85, 86..87): not defined
 *              (DefFile defines file 1 only), reported once.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "otf.h"

#define FIRST 1000u

enum kind { ENTER, LEAVE, SEND, RECV, BEGIN_COLL, END_COLL, BEGIN_FILE, END_FILE };

struct ev {
    uint64_t rel;
    uint32_t process;
    enum kind kind;
    uint32_t a;         /* function; peer; collective or file operation matching id */
    uint32_t tag;       /* a message's tag; a collective's communicator (0: 1); a file */
};

struct scenario {
    const char *name;
    struct ev ev[24];
};

#define OK_P1 { 0, 1, ENTER, 1, 0 }, { 10, 1, ENTER, 2, 0 }, { 20, 1, LEAVE, 2, 0 }, \
              { 30, 1, SEND, 2, 7 }, { 60, 1, BEGIN_COLL, 1, 0 }, { 70, 1, END_COLL, 1, 0 }, \
              { 100, 1, LEAVE, 1, 0 }
#define OK_P2 { 0, 2, ENTER, 1, 0 }, { 40, 2, ENTER, 3, 0 }, { 45, 2, RECV, 1, 7 }, \
              { 50, 2, LEAVE, 3, 0 }, { 60, 2, BEGIN_COLL, 1, 0 }, { 70, 2, END_COLL, 1, 0 }, \
              { 100, 2, LEAVE, 1, 0 }

/* Events listed per process, each process's in the order written; a
 * stream's records are written in the listed order (so a scenario may go
 * back in time on purpose). */
static const struct scenario scenarios[] = {
    { "ok", { OK_P1, OK_P2 } },
    { "wrongleave", { { 0, 1, ENTER, 1, 0 }, { 10, 1, ENTER, 2, 0 }, { 20, 1, LEAVE, 3, 0 },
                      { 25, 1, LEAVE, 2, 0 }, { 30, 1, SEND, 2, 7 }, { 100, 1, LEAVE, 1, 0 },
                      OK_P2 } },
    { "badorder", { { 0, 1, ENTER, 1, 0 }, { 10, 1, ENTER, 2, 0 }, { 20, 1, LEAVE, 1, 0 },
                    { 30, 1, SEND, 2, 7 }, OK_P2 } },
    { "empty", { OK_P1, { 30, 2, LEAVE, 3, 0 }, { 35, 2, ENTER, 1, 0 }, { 100, 2, LEAVE, 1, 0 } } },
    { "open", { OK_P1, { 0, 2, ENTER, 1, 0 }, { 40, 2, ENTER, 3, 0 }, { 45, 2, RECV, 1, 7 },
                { 50, 2, LEAVE, 3, 0 }, { 60, 2, BEGIN_COLL, 1, 0 }, { 70, 2, END_COLL, 1, 0 } } },
    { "nosend", { OK_P1, OK_P2, { 101, 2, RECV, 1, 9 } } },
    { "early", { OK_P1, { 0, 2, ENTER, 1, 0 }, { 25, 2, RECV, 1, 7 }, { 40, 2, ENTER, 3, 0 },
                 { 50, 2, LEAVE, 3, 0 }, { 60, 2, BEGIN_COLL, 1, 0 }, { 70, 2, END_COLL, 1, 0 },
                 { 100, 2, LEAVE, 1, 0 } } },
    { "collend", { OK_P1, OK_P2, { 101, 2, END_COLL, 2, 0 } } },
    { "collopen", { { 0, 1, ENTER, 1, 0 }, { 30, 1, SEND, 2, 7 }, { 60, 1, BEGIN_COLL, 1, 0 },
                    { 100, 1, LEAVE, 1, 0 }, OK_P2 } },
    { "undefined", { { 0, 1, ENTER, 1, 0 }, { 10, 1, ENTER, 4, 0 }, { 20, 1, LEAVE, 4, 0 },
                     { 30, 1, SEND, 2, 7 }, { 60, 1, BEGIN_COLL, 1, 0 }, { 70, 1, END_COLL, 1, 0 },
                     { 100, 1, LEAVE, 1, 0 },
                     { 0, 2, ENTER, 1, 0 }, { 40, 2, ENTER, 3, 0 }, { 45, 2, RECV, 1, 7 },
                     { 50, 2, LEAVE, 3, 0 }, { 60, 2, BEGIN_COLL, 1, 5 }, { 70, 2, END_COLL, 1, 0 },
                     { 100, 2, LEAVE, 1, 0 } } },
    { "fileend", { OK_P1, OK_P2, { 101, 2, END_FILE, 3, 1 } } },
    { "fileopen", { { 0, 1, ENTER, 1, 0 }, { 10, 1, ENTER, 2, 0 }, { 20, 1, LEAVE, 2, 0 },
                    { 30, 1, SEND, 2, 7 }, { 60, 1, BEGIN_COLL, 1, 0 }, { 70, 1, END_COLL, 1, 0 },
                    { 80, 1, BEGIN_FILE, 1, 0 }, { 100, 1, LEAVE, 1, 0 }, OK_P2 } },
    { "fileundef", { { 0, 1, ENTER, 1, 0 }, { 10, 1, ENTER, 2, 0 }, { 20, 1, LEAVE, 2, 0 },
                     { 30, 1, SEND, 2, 7 }, { 60, 1, BEGIN_COLL, 1, 0 }, { 70, 1, END_COLL, 1, 0 },
                     { 80, 1, BEGIN_FILE, 1, 0 }, { 85, 1, END_FILE, 1, 7 },
                     { 86, 1, BEGIN_FILE, 2, 0 }, { 87, 1, END_FILE, 2, 7 },
                     { 100, 1, LEAVE, 1, 0 }, OK_P2 } },
};

static int put(OTF_Writer *w, const struct ev *e)
{
    uint64_t t = FIRST + e->rel;

    switch (e->kind) {
    case ENTER: return OTF_Writer_writeEnter(w, t, e->a, e->process, 0);
    case LEAVE: return OTF_Writer_writeLeave(w, t, e->a, e->process, 0);
    case SEND: return OTF_Writer_writeSendMsg(w, t, e->process, e->a, 1, e->tag, 8, 0);
    case RECV: return OTF_Writer_writeRecvMsg(w, t, e->process, e->a, 1, e->tag, 8, 0);
    case BEGIN_COLL:
        return OTF_Writer_writeBeginCollectiveOperation(w, t, e->process, 1, e->a,
                                                        e->tag ? e->tag : 1, 0, 8, 8, 0);
    case END_COLL: return OTF_Writer_writeEndCollectiveOperation(w, t, e->process, e->a);
    case BEGIN_FILE: return OTF_Writer_writeBeginFileOperation(w, t, e->process, e->a, 0);
    case END_FILE:
        return OTF_Writer_writeEndFileOperation(w, t, e->process, e->tag, e->a, 1,
                                                OTF_FILEOP_WRITE, 8, 0);
    }
    return 0;
}

static int write_one(const char *dir, const struct scenario *sc)
{
    char stub[4096];
    OTF_FileManager *m = OTF_FileManager_open(16);
    OTF_Writer *w;
    uint32_t members[2] = { 1, 2 };
    int ok = 1;

    snprintf(stub, sizeof stub, "%s/%s", dir, sc->name);
    if (!m || !(w = OTF_Writer_open(stub, 2, m)))
        return 0;
    OTF_Writer_assignProcess(w, 1, 1);
    OTF_Writer_assignProcess(w, 2, 2);
    ok &= OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ok &= OTF_Writer_writeDefProcess(w, 0, 1, "P1", 0);
    ok &= OTF_Writer_writeDefProcess(w, 0, 2, "P2", 0);
    ok &= OTF_Writer_writeDefProcessGroup(w, 0, 1, "world", 2, members);
    ok &= OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    ok &= OTF_Writer_writeDefFunction(w, 0, 2, "f", 0, 0);
    ok &= OTF_Writer_writeDefFunction(w, 0, 3, "g", 0, 0);
    ok &= OTF_Writer_writeDefCollectiveOperation(w, 0, 1, "MPI_Allreduce", OTF_COLLECTIVE_TYPE_ALL2ALL);
    ok &= OTF_Writer_writeDefFileGroup(w, 0, 1, "POSIX I/O");
    ok &= OTF_Writer_writeDefFile(w, 0, 1, "/data/a", 1);
    for (size_t i = 0; i < sizeof sc->ev / sizeof sc->ev[0] && sc->ev[i].process; i++)
        if (!put(w, &sc->ev[i])) {
            fprintf(stderr, "check_fixture: %s: event %zu not written\n", sc->name, i);
            ok = 0;
        }
    ok &= OTF_Writer_close(w);
    OTF_FileManager_close(m);
    return ok;
}

int main(int argc, char **argv)
{
    int failures = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: check_fixture DIR\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (!write_one(argv[1], &scenarios[i])) {
            fprintf(stderr, "check_fixture: writing %s failed\n", scenarios[i].name);
            failures++;
        }
    return failures ? 1 : 0;
}
