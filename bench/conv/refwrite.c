/*
 * refwrite — the reference OTF library's own write rate on the events
 * vfd2otf produced: reads trace IN with the reference reader, (a) doing
 * nothing with the events, (b) writing each one again with the reference
 * OTF_Writer into OUT (one stream per process stream, as IN).  The write
 * cost is (b) - (a).  Prints "events N read_s A readwrite_s B read_cpu C
 * readwrite_cpu D" (wall clock and process CPU time, seconds).
 *
 *   refwrite IN OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <otf.h>

static uint64_t count;

static double clk(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_used;

#define W(call) do { count++; return (w && !(call)) ? OTF_RETURN_ABORT : OTF_RETURN_OK; } while (0)

static int enter(void *w, uint64_t t, uint32_t f, uint32_t p, uint32_t s, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeEnter(w, t, f, p, s)); }
static int leave(void *w, uint64_t t, uint32_t f, uint32_t p, uint32_t s, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeLeave(w, t, f, p, s)); }
static int send(void *w, uint64_t t, uint32_t a, uint32_t b, uint32_t g, uint32_t tag,
                uint32_t len, uint32_t s, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeSendMsg(w, t, a, b, g, tag, len, s)); }
static int recv_(void *w, uint64_t t, uint32_t a, uint32_t b, uint32_t g, uint32_t tag,
                 uint32_t len, uint32_t s, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeRecvMsg(w, t, a, b, g, tag, len, s)); }
static int cbegin(void *w, uint64_t t, uint32_t p, uint32_t op, uint64_t m, uint32_t g,
                  uint32_t root, uint64_t sent, uint64_t rcvd, uint32_t s, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeBeginCollectiveOperation(w, t, p, op, m, g, root, sent, rcvd, s)); }
static int cend(void *w, uint64_t t, uint32_t p, uint64_t m, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeEndCollectiveOperation(w, t, p, m)); }
static int pbegin(void *w, uint64_t t, uint32_t p, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeBeginProcess(w, t, p)); }
static int pend(void *w, uint64_t t, uint32_t p, OTF_KeyValueList *kv)
{ (void)kv; W(OTF_Writer_writeEndProcess(w, t, p)); }

static double pass(const char *in, OTF_Writer *w)
{
    OTF_FileManager *m = OTF_FileManager_open(256);
    OTF_Reader *r = OTF_Reader_open(in, m);
    OTF_HandlerArray *h = OTF_HandlerArray_open();
    double t0;

    if (!r) {
        fprintf(stderr, "refwrite: cannot open %s\n", in);
        exit(1);
    }
#define H(type, fn) do { OTF_HandlerArray_setHandler(h, (OTF_FunctionPointer *)fn, type); \
        OTF_HandlerArray_setFirstHandlerArg(h, w, type); } while (0)
    H(OTF_ENTER_RECORD, enter);
    H(OTF_LEAVE_RECORD, leave);
    H(OTF_SEND_RECORD, send);
    H(OTF_RECEIVE_RECORD, recv_);
    H(OTF_BEGINCOLLOP_RECORD, cbegin);
    H(OTF_ENDCOLLOP_RECORD, cend);
    H(OTF_BEGINPROCESS_RECORD, pbegin);
    H(OTF_ENDPROCESS_RECORD, pend);
    count = 0;
    t0 = clk(CLOCK_MONOTONIC);
    cpu_used = clk(CLOCK_PROCESS_CPUTIME_ID);
    if (OTF_Reader_readEvents(r, h) == OTF_READ_ERROR) {
        fprintf(stderr, "refwrite: cannot read %s\n", in);
        exit(1);
    }
    if (w)
        OTF_Writer_close(w);
    t0 = clk(CLOCK_MONOTONIC) - t0;
    cpu_used = clk(CLOCK_PROCESS_CPUTIME_ID) - cpu_used;
    OTF_HandlerArray_close(h);
    OTF_Reader_close(r);
    OTF_FileManager_close(m);
    return t0;
}

int main(int argc, char **argv)
{
    OTF_FileManager *wm;
    OTF_Writer *w;
    OTF_MasterControl *mc;
    OTF_FileManager *m;
    double a, b, ca, cb;
    uint64_t n;

    if (argc != 3) {
        fprintf(stderr, "usage: refwrite IN OUT\n");
        return 2;
    }
    a = pass(argv[1], NULL);
    ca = cpu_used;
    n = count;
    /* the same process-to-stream map as the input */
    m = OTF_FileManager_open(16);
    mc = OTF_MasterControl_new(m);
    if (!mc || OTF_MasterControl_read(mc, argv[1]) != 1) {
        fprintf(stderr, "refwrite: cannot read %s.otf\n", argv[1]);
        return 1;
    }
    wm = OTF_FileManager_open(256);
    w = OTF_Writer_open(argv[2], OTF_MasterControl_getCount(mc), wm);
    for (uint32_t i = 0;; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);

        if (!e)
            break;
        for (uint32_t k = 0; k < e->n; k++)
            OTF_Writer_assignProcess(w, e->values[k], e->argument);
    }
    OTF_Writer_writeDefTimerResolution(w, 0, 1000000000);
    b = pass(argv[1], w);
    cb = cpu_used;
    OTF_FileManager_close(wm);
    OTF_MasterControl_close(mc);
    OTF_FileManager_close(m);
    printf("events %llu read_s %.4f readwrite_s %.4f read_cpu %.4f readwrite_cpu %.4f\n",
           (unsigned long long)n, a, b, ca, cb);
    return 0;
}
