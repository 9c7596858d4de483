/*
 * o2bench — libotf2 driven directly, for bench/formats/run.sh to set vftr's
 * OTF2 writer and reader against:
 *
 *   o2bench write TRACE DIR   the events of TRACE (read into memory first,
 *                             untimed, through vftr's source) written as
 *                             an OTF2 archive DIR with plain libotf2 calls:
 *                             a location per process, a region per
 *                             function, MpiSend/MpiRecv, collectives;
 *                             timed: the writes and the archive's close
 *   o2bench sinkwrite TRACE DIR   the same events (in memory, untimed) fed to
 *                             vftr's OTF2 writer (lib/model/sink.h);
 *                             timed: the feed and the close
 *   o2bench conv TRACE DIR    a plain converter: the OTF trace TRACE read
 *                             with the OTF library's own reader and
 *                             handlers, each event written at once with
 *                             plain libotf2 calls (as in write); timed: all
 *   o2bench read ANCHOR       a plain global event reader, counting
 *   o2bench vftrread TRACE    vftr's source reading every event (any
 *                             format), counting
 *
 * Each prints "events N wall S cpu C".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <otf2/otf2.h>

#include "otf.h"

#include "model/sink.h"
#include "model/source.h"

struct ev {
    uint64_t time, x, y;
    uint32_t type, process, a, b;
};

enum { E_ENTER, E_LEAVE, E_SEND, E_RECV, E_CBEGIN, E_CEND };

struct evs {
    struct ev *v;
    size_t n, cap;
};

static double wall(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct timespec t;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int push(struct evs *e, struct ev v)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1u << 20;
        struct ev *p = realloc(e->v, cap * sizeof *p);

        if (!p)
            return -ENOMEM;
        e->v = p;
        e->cap = cap;
    }
    e->v[e->n++] = v;
    return 0;
}

static int c_enter(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    return push(arg, (struct ev){ t, 0, 0, E_ENTER, p, f, 0 });
}

static int c_leave(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    return push(arg, (struct ev){ t, 0, 0, E_LEAVE, p, f, 0 });
}

static int c_send(void *arg, uint64_t t, uint32_t s, uint32_t r, uint32_t c, uint32_t tag,
                  uint32_t len)
{
    (void)c;
    return push(arg, (struct ev){ t, len, tag, E_SEND, s, r, 0 });
}

static int c_recv(void *arg, uint64_t t, uint32_t r, uint32_t s, uint32_t c, uint32_t tag,
                  uint32_t len)
{
    (void)c;
    return push(arg, (struct ev){ t, len, tag, E_RECV, r, s, 0 });
}

static int c_cbegin(void *arg, uint64_t t, uint32_t p, uint32_t op, uint64_t m, uint32_t c,
                    uint32_t root, uint64_t sent, uint64_t recvd)
{
    (void)c, (void)root;
    return push(arg, (struct ev){ t, sent, recvd, E_CBEGIN, p, op, (uint32_t)m });
}

static int c_cend(void *arg, uint64_t t, uint32_t p, uint64_t m)
{
    return push(arg, (struct ev){ t, 0, 0, E_CEND, p, 0, (uint32_t)m });
}

static uint64_t counted;

static int k_any4(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    (void)arg, (void)t, (void)p, (void)f;
    counted++;
    return 0;
}

static int k_msg(void *arg, uint64_t t, uint32_t s, uint32_t r, uint32_t c, uint32_t tag,
                 uint32_t len)
{
    (void)arg, (void)t, (void)s, (void)r, (void)c, (void)tag, (void)len;
    counted++;
    return 0;
}

static int k_cb(void *arg, uint64_t t, uint32_t p, uint32_t op, uint64_t m, uint32_t c,
                uint32_t root, uint64_t sent, uint64_t recvd)
{
    (void)arg, (void)t, (void)p, (void)op, (void)m, (void)c, (void)root, (void)sent, (void)recvd;
    counted++;
    return 0;
}

static int k_ce(void *arg, uint64_t t, uint32_t p, uint64_t m)
{
    (void)arg, (void)t, (void)p, (void)m;
    counted++;
    return 0;
}

static struct vftr_source *open_source(const char *trace)
{
    struct vftr_source *s;
    char err[1024];
    struct vftr_source_opts o = { stderr, "o2bench", 1 };

    if (vftr_source_open(&s, &trace, 1, &o, err, sizeof err) < 0) {
        fprintf(stderr, "o2bench: %s\n", err);
        exit(1);
    }
    return s;
}

static OTF2_FlushType pre(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
    (void)u, (void)t, (void)l, (void)c, (void)f;
    return OTF2_FLUSH;
}

/* Closes the writers and writes the definitions (of src) of a plain archive. */
static void finish(OTF2_Archive *ar, struct vftr_source *s, OTF2_EvtWriter **w, uint64_t last)
{
    size_t np, nf;
    const struct vftr_source_proc *p = vftr_source_procs(s, &np);
    const struct vftr_source_func *f = vftr_source_funcs(s, &nf);

    for (size_t i = 0; i < np; i++)
        OTF2_Archive_CloseEvtWriter(ar, w[p[i].token]);
    OTF2_Archive_CloseEvtFiles(ar);
    {
        OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
        uint64_t *m = calloc(np + 1, sizeof *m);
        uint32_t sid = 1;

        OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, last,
                                                  OTF2_UNDEFINED_TIMESTAMP);
        OTF2_GlobalDefWriter_WriteString(g, 0, "");
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
        for (size_t i = 0; i < np; i++) {
            OTF2_GlobalDefWriter_WriteString(g, sid, p[i].name);
            OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)i, sid,
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                    OTF2_UNDEFINED_LOCATION_GROUP);
            OTF2_GlobalDefWriter_WriteLocation(g, p[i].token - 1u, sid++,
                                               OTF2_LOCATION_TYPE_CPU_THREAD, 0, (uint32_t)i);
            m[i] = p[i].token - 1u;
        }
        for (size_t i = 0; i < nf; i++) {
            OTF2_GlobalDefWriter_WriteString(g, sid, f[i].name);
            OTF2_GlobalDefWriter_WriteRegion(g, f[i].token - 1u, sid, sid, 0,
                                             OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                             OTF2_REGION_FLAG_NONE, 0, 0, 0);
            sid++;
        }
        OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)np, m);
        for (size_t i = 0; i < np; i++)
            m[i] = i;
        OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, (uint32_t)np, m);
        OTF2_GlobalDefWriter_WriteComm(g, 0, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        free(m);
    }
}

static int load(struct vftr_source *s, struct evs *e)
{
    struct vftr_window_handler h = { .arg = e, .enter = c_enter, .leave = c_leave,
                                     .send = c_send, .recv = c_recv, .coll_begin = c_cbegin,
                                     .coll_end = c_cend };
    char err[1024];

    if (vftr_source_read(s, 0, UINT64_MAX, NULL, VFTR_SOURCE_EVENTS_ONLY, &h, NULL, err,
                         sizeof err) != 0) {
        fprintf(stderr, "o2bench: %s\n", err);
        return -1;
    }
    return 0;
}

static int sink_write(const char *trace, const char *dir)
{
    struct vftr_source *s = open_source(trace);
    struct evs e = { 0 };
    struct vftr_sink *k;
    const struct vftr_window_handler *h;
    struct vftr_sink_opts o = { .warn = stderr, .prog = "o2bench" };
    char err[1024];
    double w0, c0;
    int rc = 0;

    if (load(s, &e) < 0)
        return 1;
    w0 = wall();
    c0 = cpu();
    if (vftr_sink_open(&k, vftr_sink_format_named("otf2"), dir, s, &o, err, sizeof err) < 0) {
        fprintf(stderr, "o2bench: %s\n", err);
        return 1;
    }
    h = vftr_sink_handler(k);
    for (size_t i = 0; i < e.n && rc == 0; i++) {
        const struct ev *v = &e.v[i];

        switch (v->type) {
        case E_ENTER:
            rc = h->enter(h->arg, v->time, v->process, v->a);
            break;
        case E_LEAVE:
            rc = h->leave(h->arg, v->time, v->process, v->a);
            break;
        case E_SEND:
            rc = h->send(h->arg, v->time, v->process, v->a, 1, (uint32_t)v->y, (uint32_t)v->x);
            break;
        case E_RECV:
            rc = h->recv(h->arg, v->time, v->process, v->a, 1, (uint32_t)v->y, (uint32_t)v->x);
            break;
        case E_CBEGIN:
            rc = h->coll_begin(h->arg, v->time, v->process, v->a, v->b, 1, 0, v->x, v->y);
            break;
        case E_CEND:
            rc = h->coll_end(h->arg, v->time, v->process, v->b);
            break;
        }
    }
    if (rc != 0 || vftr_sink_close(k, err, sizeof err) < 0) {
        fprintf(stderr, "o2bench: %s\n", err);
        return 1;
    }
    printf("events %zu wall %.6f cpu %.6f\n", e.n, wall() - w0, cpu() - c0);
    free(e.v);
    vftr_source_free(s);
    return 0;
}

static int plain_write(const char *trace, const char *dir)
{
    struct vftr_source *s = open_source(trace);
    struct evs e = { 0 };
    size_t np;
    const struct vftr_source_proc *p = vftr_source_procs(s, &np);
    OTF2_FlushCallbacks fc = { pre, NULL };
    OTF2_EvtWriter **w;
    uint32_t maxtok = 0;
    double w0, c0;

    if (load(s, &e) < 0)
        return 1;
    for (size_t i = 0; i < np; i++)
        if (p[i].token > maxtok)
            maxtok = p[i].token;
    w = calloc((size_t)maxtok + 1, sizeof *w);
    mkdir(dir, 0777);
    w0 = wall();
    c0 = cpu();
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1u << 20, 4u << 20,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_Archive_SetFlushCallbacks(ar, &fc, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    for (size_t i = 0; i < np; i++)
        w[p[i].token] = OTF2_Archive_GetEvtWriter(ar, p[i].token - 1u);
    for (size_t i = 0; i < e.n; i++) {
        const struct ev *v = &e.v[i];
        OTF2_EvtWriter *x = w[v->process];

        switch (v->type) {
        case E_ENTER:
            OTF2_EvtWriter_Enter(x, NULL, v->time, v->a - 1u);
            break;
        case E_LEAVE:
            OTF2_EvtWriter_Leave(x, NULL, v->time, v->a - 1u);
            break;
        case E_SEND:
            OTF2_EvtWriter_MpiSend(x, NULL, v->time, v->a - 1u, 0, (uint32_t)v->y, v->x);
            break;
        case E_RECV:
            OTF2_EvtWriter_MpiRecv(x, NULL, v->time, v->a - 1u, 0, (uint32_t)v->y, v->x);
            break;
        case E_CBEGIN:
            OTF2_EvtWriter_MpiCollectiveBegin(x, NULL, v->time);
            break;
        case E_CEND:
            OTF2_EvtWriter_MpiCollectiveEnd(x, NULL, v->time, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                            OTF2_UNDEFINED_UINT32, 0, 0);
            break;
        }
    }
    finish(ar, s, w, e.n ? e.v[e.n - 1].time : 0);
    OTF2_Archive_Close(ar);
    printf("events %zu wall %.6f cpu %.6f\n", e.n, wall() - w0, cpu() - c0);
    free(w);
    free(e.v);
    vftr_source_free(s);
    return 0;
}

/* ------------------------------------------------------------ conv */

struct conv { OTF2_EvtWriter **w; uint64_t n, last; };

static int h_enter(void *u, uint64_t t, uint32_t f, uint32_t p, uint32_t scl)
{
    struct conv *c = u;

    (void)scl;
    c->n++;
    c->last = t;
    return OTF2_EvtWriter_Enter(c->w[p], NULL, t, f - 1u) == OTF2_SUCCESS ? OTF_RETURN_OK
                                                                          : OTF_RETURN_ABORT;
}

static int h_leave(void *u, uint64_t t, uint32_t f, uint32_t p, uint32_t scl)
{
    struct conv *c = u;

    (void)scl;
    c->n++;
    c->last = t;
    return OTF2_EvtWriter_Leave(c->w[p], NULL, t, f - 1u) == OTF2_SUCCESS ? OTF_RETURN_OK
                                                                          : OTF_RETURN_ABORT;
}

static int h_send(void *u, uint64_t t, uint32_t s, uint32_t r, uint32_t g, uint32_t tag,
                  uint32_t len, uint32_t scl)
{
    struct conv *c = u;

    (void)g, (void)scl;
    c->n++;
    return OTF2_EvtWriter_MpiSend(c->w[s], NULL, t, r - 1u, 0, tag, len) == OTF2_SUCCESS
           ? OTF_RETURN_OK : OTF_RETURN_ABORT;
}

static int h_recv(void *u, uint64_t t, uint32_t r, uint32_t s, uint32_t g, uint32_t tag,
                  uint32_t len, uint32_t scl)
{
    struct conv *c = u;

    (void)g, (void)scl;
    c->n++;
    return OTF2_EvtWriter_MpiRecv(c->w[r], NULL, t, s - 1u, 0, tag, len) == OTF2_SUCCESS
           ? OTF_RETURN_OK : OTF_RETURN_ABORT;
}

static int h_cbegin(void *u, uint64_t t, uint32_t p, uint32_t op, uint64_t m, uint32_t g,
                    uint32_t root, uint64_t sent, uint64_t recvd, uint32_t scl, OTF_KeyValueList *kv)
{
    struct conv *c = u;

    (void)op, (void)m, (void)g, (void)root, (void)sent, (void)recvd, (void)scl, (void)kv;
    c->n++;
    return OTF2_EvtWriter_MpiCollectiveBegin(c->w[p], NULL, t) == OTF2_SUCCESS
           ? OTF_RETURN_OK : OTF_RETURN_ABORT;
}

static int h_cend(void *u, uint64_t t, uint32_t p, uint64_t m, OTF_KeyValueList *kv)
{
    struct conv *c = u;

    (void)m, (void)kv;
    c->n++;
    return OTF2_EvtWriter_MpiCollectiveEnd(c->w[p], NULL, t, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                           OTF2_UNDEFINED_UINT32, 0, 0) == OTF2_SUCCESS
           ? OTF_RETURN_OK : OTF_RETURN_ABORT;
}

#define H(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

static int plain_conv(const char *trace, const char *dir)
{
    double w0 = wall(), c0 = cpu();
    struct vftr_source *s = open_source(trace);
    size_t np;
    const struct vftr_source_proc *p = vftr_source_procs(s, &np);
    OTF2_FlushCallbacks fc = { pre, NULL };
    uint32_t maxtok = 0;
    struct conv c = { 0 };
    size_t l = strlen(trace);
    char stub[4096];
    OTF_FileManager *fm = OTF_FileManager_open(100);
    OTF_Reader *rd;
    OTF_HandlerArray *h = OTF_HandlerArray_open();

    snprintf(stub, sizeof stub, "%.*s", (int)(l > 4 && strcmp(trace + l - 4, ".otf") == 0 ? l - 4 : l),
             trace);
    rd = OTF_Reader_open(stub, fm);
    if (!rd)
        return 1;
    for (size_t i = 0; i < np; i++)
        if (p[i].token > maxtok)
            maxtok = p[i].token;
    c.w = calloc((size_t)maxtok + 1, sizeof *c.w);
    mkdir(dir, 0777);
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1u << 20, 4u << 20,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_Archive_SetFlushCallbacks(ar, &fc, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    for (size_t i = 0; i < np; i++)
        c.w[p[i].token] = OTF2_Archive_GetEvtWriter(ar, p[i].token - 1u);
    OTF_HandlerArray_setHandler(h, H(h_enter), OTF_ENTER_RECORD);
    OTF_HandlerArray_setHandler(h, H(h_leave), OTF_LEAVE_RECORD);
    OTF_HandlerArray_setHandler(h, H(h_send), OTF_SEND_RECORD);
    OTF_HandlerArray_setHandler(h, H(h_recv), OTF_RECEIVE_RECORD);
    OTF_HandlerArray_setHandler(h, H(h_cbegin), OTF_BEGINCOLLOP_RECORD);
    OTF_HandlerArray_setHandler(h, H(h_cend), OTF_ENDCOLLOP_RECORD);
    for (uint32_t r = OTF_ENTER_RECORD; r < OTF_NRECORDS; r++)
        OTF_HandlerArray_setFirstHandlerArg(h, &c, r);
    OTF_Reader_readEvents(rd, h);
    finish(ar, s, c.w, c.last);
    OTF2_Archive_Close(ar);
    OTF_HandlerArray_close(h);
    OTF_Reader_close(rd);
    OTF_FileManager_close(fm);
    vftr_source_free(s);
    free(c.w);
    printf("events %llu wall %.6f cpu %.6f\n", (unsigned long long)c.n, wall() - w0, cpu() - c0);
    return 0;
}

static OTF2_CallbackCode r_any(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                               OTF2_AttributeList *a, OTF2_RegionRef r)
{
    (void)l, (void)t, (void)u, (void)a, (void)r;
    counted++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode r_msg(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                               OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef c, uint32_t tag,
                               uint64_t len)
{
    (void)l, (void)t, (void)u, (void)a, (void)peer, (void)c, (void)tag, (void)len;
    counted++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode r_cb(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                              OTF2_AttributeList *a)
{
    (void)l, (void)t, (void)u, (void)a;
    counted++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode r_ce(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                              OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef c,
                              uint32_t root, uint64_t s, uint64_t r)
{
    (void)l, (void)t, (void)u, (void)a, (void)op, (void)c, (void)root, (void)s, (void)r;
    counted++;
    return OTF2_CALLBACK_SUCCESS;
}

static uint64_t *locs;
static size_t nlocs;

static OTF2_CallbackCode d_loc(void *u, OTF2_LocationRef self, OTF2_StringRef n,
                               OTF2_LocationType t, uint64_t e, OTF2_LocationGroupRef g)
{
    uint64_t *v = realloc(locs, (nlocs + 1) * sizeof *v);

    (void)n, (void)t, (void)e, (void)g;
    if (!v)
        return OTF2_CALLBACK_INTERRUPT;
    locs = v;
    locs[nlocs++] = self;
    OTF2_Reader_SelectLocation(u, self);
    return OTF2_CALLBACK_SUCCESS;
}

static int plain_read(const char *anchor)
{
    double w0 = wall(), c0 = cpu();
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    OTF2_GlobalDefReader *gd;
    OTF2_GlobalDefReaderCallbacks *dc = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks *ec = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReader *ge;
    uint64_t n;

    if (!r)
        return 1;
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    gd = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dc, d_loc);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, dc, r);
    OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &n);
    OTF2_Reader_CloseGlobalDefReader(r, gd);
    OTF2_Reader_OpenEvtFiles(r);
    /* every selected location's reader (the global reader takes them) */
    for (size_t i = 0; i < nlocs; i++)
        OTF2_Reader_GetEvtReader(r, locs[i]);
    ge = OTF2_Reader_GetGlobalEvtReader(r);
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ec, r_any);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ec, r_any);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ec, r_msg);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ec, r_msg);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(ec, r_cb);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ec, r_ce);
    OTF2_Reader_RegisterGlobalEvtCallbacks(r, ge, ec, NULL);
    OTF2_Reader_ReadAllGlobalEvents(r, ge, &n);
    OTF2_Reader_CloseGlobalEvtReader(r, ge);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);
    OTF2_GlobalDefReaderCallbacks_Delete(dc);
    OTF2_GlobalEvtReaderCallbacks_Delete(ec);
    free(locs);
    printf("events %llu wall %.6f cpu %.6f\n", (unsigned long long)counted, wall() - w0,
           cpu() - c0);
    return 0;
}

static int vftr_read(const char *trace)
{
    double w0 = wall(), c0 = cpu();
    struct vftr_source *s = open_source(trace);
    struct vftr_window_handler h = { .enter = k_any4, .leave = k_any4, .send = k_msg,
                                     .recv = k_msg, .coll_begin = k_cb, .coll_end = k_ce };
    char err[1024];

    if (vftr_source_read(s, 0, UINT64_MAX, NULL, VFTR_SOURCE_EVENTS_ONLY, &h, NULL, err,
                         sizeof err) != 0) {
        fprintf(stderr, "o2bench: %s\n", err);
        return 1;
    }
    vftr_source_free(s);
    printf("events %llu wall %.6f cpu %.6f\n", (unsigned long long)counted, wall() - w0,
           cpu() - c0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "write") == 0)
        return plain_write(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "sinkwrite") == 0)
        return sink_write(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "conv") == 0)
        return plain_conv(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "read") == 0)
        return plain_read(argv[2]);
    if (argc == 3 && strcmp(argv[1], "vftrread") == 0)
        return vftr_read(argv[2]);
    fprintf(stderr, "usage: o2bench write TRACE DIR | conv TRACE DIR | read ANCHOR | vftrread TRACE\n");
    return 2;
}
