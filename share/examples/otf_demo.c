/*
 * otf_demo.c — writes a small OTF trace with vftr's OTF library: four MPI-like
 * processes on two streams, each calling main → compute → MPI_Send/MPI_Recv
 * in a ring, with a counter.  `make demo` runs it and prints the trace with
 * vftr-dump.  It is also a minimal example of the OTF writing API.
 *
 * usage: otf_demo OUTPUT_STUB
 */
#include <stdio.h>
#include <stdlib.h>

#include <otf.h>

enum { NPROC = 4, ROUNDS = 3 };
enum { F_MAIN = 1, F_COMPUTE, F_SEND, F_RECV };

int main(int argc, char** argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT_STUB\n", argv[0]);
        return 2;
    }
    OTF_FileManager* fm = OTF_FileManager_open(16);
    OTF_Writer* w = fm ? OTF_Writer_open(argv[1], 2, fm) : NULL;
    if (w == NULL) {
        fprintf(stderr, "otf_demo: %s: cannot open trace: %s\n", argv[1], otf_strerr);
        return 1;
    }
    OTF_Writer_writeDefCreator(w, 0, "vftr otf_demo");
    OTF_Writer_writeDefTimerResolution(w, 0, 1000000);   /* microseconds */
    uint32_t procs[NPROC];
    for (uint32_t p = 1; p <= NPROC; p++) {
        char name[32];
        snprintf(name, sizeof name, "rank %u", p - 1);
        OTF_Writer_writeDefProcess(w, 0, p, name, 0);
        procs[p - 1] = p;
    }
    OTF_Writer_writeDefProcessGroup(w, 0, 100, "MPI_COMM_WORLD", NPROC, procs);
    OTF_Writer_writeDefFunctionGroup(w, 0, 1, "Application");
    OTF_Writer_writeDefFunctionGroup(w, 0, 2, "MPI");
    OTF_Writer_writeDefFunction(w, 0, F_MAIN, "main", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, F_COMPUTE, "compute", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, F_SEND, "MPI_Send", 2, 0);
    OTF_Writer_writeDefFunction(w, 0, F_RECV, "MPI_Recv", 2, 0);
    OTF_Writer_writeDefCounterGroup(w, 0, 1, "memory");
    OTF_Writer_writeDefCounter(w, 0, 1, "heap_bytes", OTF_COUNTER_TYPE_ABS, 1, "bytes");
    OTF_Writer_writeDefTimeRange(w, 0, 0, 1000 + 100 * ROUNDS, NULL);

    /* Events are written in time order; the writer merges processes that
     * share a stream. */
    for (uint32_t p = 1; p <= NPROC; p++)
        OTF_Writer_writeEnter(w, 0, F_MAIN, p, 0);
    for (uint64_t r = 0; r < ROUNDS; r++) {
        uint64_t t = 100 + 100 * r;
        /* phase by phase, so that time stamps grow in every stream */
        for (int phase = 0; phase < 9; phase++) {
            static const uint64_t offset[9] = { 0, 5, 40, 50, 55, 60, 70, 80, 85 };
            for (uint32_t p = 1; p <= NPROC; p++) {
                uint32_t next = p % NPROC + 1, prev = (p + NPROC - 2) % NPROC + 1;
                uint64_t at = t + offset[phase] + p;
                switch (phase) {
                case 0: OTF_Writer_writeEnter(w, at, F_COMPUTE, p, 0); break;
                case 1: OTF_Writer_writeCounter(w, at, p, 1, 4096 * (r + 1) * p); break;
                case 2: OTF_Writer_writeLeave(w, at, F_COMPUTE, p, 0); break;
                case 3: OTF_Writer_writeEnter(w, at, F_SEND, p, 0); break;
                case 4: OTF_Writer_writeSendMsg(w, at, p, next, 100, 7, 1024, 0); break;
                case 5: OTF_Writer_writeLeave(w, at, F_SEND, p, 0); break;
                case 6: OTF_Writer_writeEnter(w, at, F_RECV, p, 0); break;
                case 7: OTF_Writer_writeRecvMsg(w, at, p, prev, 100, 7, 1024, 0); break;
                default: OTF_Writer_writeLeave(w, at, F_RECV, p, 0); break;
                }
            }
        }
    }
    for (uint32_t p = 1; p <= NPROC; p++)
        OTF_Writer_writeLeave(w, 1000 + 100 * ROUNDS, F_MAIN, p, 0);
    int ok = OTF_Writer_close(w);
    OTF_FileManager_close(fm);
    if (!ok) {
        fprintf(stderr, "otf_demo: %s: %s\n", argv[1], otf_strerr);
        return 1;
    }
    printf("otf_demo: wrote %s.otf (%d processes, 2 streams)\n", argv[1], NPROC);
    return 0;
}
