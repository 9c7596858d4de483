/*
 * fuzz_otf_scan.c — libFuzzer target for vftr_otf_scan_events (lib/otf/
 * scan.c), checked against the library's general record reader.
 *
 * Input: byte 0 chooses the batch size (1 + byte % 64), bytes 1..8 and
 * 9..16 are the window's min and max (little endian), the rest is the text
 * of an events file.  The text is scanned once with vftr_otf_scan_events
 * and once through vftr_otf_read_window with handlers that copy the same
 * eight kinds of records; both must succeed or fail together and, when
 * they succeed, give the same records with the same values.  Any crash,
 * hang or difference aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_HandlerArray.h"
#include "OTF_RBuffer.h"
#include "otf_dispatch.h"
#include "otf_read_internal.h"
#include "vftr_otf_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXREC 4096

struct sink {
    vftr_otf_ev ev[MAXREC];
    size_t n;
};

static int add(struct sink *s, vftr_otf_ev e)
{
    if (s->n < MAXREC)
        s->ev[s->n++] = e;
    return OTF_RETURN_OK;
}

static int h_enter(void *ud, uint64_t t, uint32_t f, uint32_t p, uint32_t src,
                   OTF_KeyValueList *kv)
{
    (void)src, (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_ENTER_RECORD, .process = p, .u = { f } });
}

static int h_leave(void *ud, uint64_t t, uint32_t f, uint32_t p, uint32_t src,
                   OTF_KeyValueList *kv)
{
    (void)src, (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_LEAVE_RECORD, .process = p, .u = { f } });
}

static int h_send(void *ud, uint64_t t, uint32_t s, uint32_t r, uint32_t g, uint32_t ty,
                  uint32_t len, uint32_t src, OTF_KeyValueList *kv)
{
    (void)src, (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_SEND_RECORD, .process = s,
                                  .u = { r, g, ty, len } });
}

static int h_recv(void *ud, uint64_t t, uint32_t r, uint32_t s, uint32_t g, uint32_t ty,
                  uint32_t len, uint32_t src, OTF_KeyValueList *kv)
{
    (void)src, (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_RECEIVE_RECORD, .process = r,
                                  .u = { s, g, ty, len } });
}

static int h_collop(void *ud, uint64_t t, uint32_t p, uint32_t c, uint32_t g, uint32_t root,
                    uint32_t sent, uint32_t recvd, uint64_t dur, uint32_t src,
                    OTF_KeyValueList *kv)
{
    (void)src, (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_COLLOP_RECORD, .process = p,
                                  .u = { c, g, root }, .x = { sent, recvd, dur } });
}

static int h_begin(void *ud, uint64_t t, uint32_t p, uint32_t c, uint64_t id, uint32_t g,
                   uint32_t root, uint64_t sent, uint64_t recvd, uint32_t scl,
                   OTF_KeyValueList *kv)
{
    (void)scl, (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_BEGINCOLLOP_RECORD, .process = p,
                                  .u = { c, g, root }, .x = { id, sent, recvd } });
}

static int h_end(void *ud, uint64_t t, uint32_t p, uint64_t id, OTF_KeyValueList *kv)
{
    (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_ENDCOLLOP_RECORD, .process = p,
                                  .x = { id } });
}

static int h_counter(void *ud, uint64_t t, uint32_t p, uint32_t c, uint64_t v,
                     OTF_KeyValueList *kv)
{
    (void)kv;
    return add(ud, (vftr_otf_ev){ .time = t, .type = OTF_COUNTER_RECORD, .process = p,
                                  .u = { c }, .x = { v } });
}

#define FN(f) ((OTF_FunctionPointer *)(void (*)(void))(f))

/* The fields each kind defines (the others are unspecified). */
static int same(const vftr_otf_ev *a, const vftr_otf_ev *b)
{
    if (a->time != b->time || a->type != b->type || a->process != b->process)
        return 0;
    switch (a->type) {
    case OTF_ENTER_RECORD:
    case OTF_LEAVE_RECORD:
        return a->u[0] == b->u[0];
    case OTF_SEND_RECORD:
    case OTF_RECEIVE_RECORD:
        return memcmp(a->u, b->u, sizeof a->u) == 0;
    case OTF_COUNTER_RECORD:
        return a->u[0] == b->u[0] && a->x[0] == b->x[0];
    case OTF_ENDCOLLOP_RECORD:
        return a->x[0] == b->x[0];
    default:
        return memcmp(a->u, b->u, 3 * sizeof a->u[0]) == 0 &&
               memcmp(a->x, b->x, sizeof a->x) == 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct sink want, got;
    uint64_t min = 0, max = 0;
    size_t cap;
    OTF_RBuffer *rb;
    OTF_HandlerArray *h;
    vftr_otf_ev batch[64];
    int failed_ref, failed_scan = 0, done = 0;

    if (size < 17 || size - 17 > UINT32_MAX)
        return 0;
    cap = 1 + data[0] % 64;
    for (int i = 0; i < 8; i++) {
        min |= (uint64_t)data[1 + i] << (8 * i);
        max |= (uint64_t)data[9 + i] << (8 * i);
    }
    data += 17;
    size -= 17;

    /* the oracle: the general reader */
    want.n = 0;
    h = OTF_HandlerArray_open();
    if (!h)
        return 0;
    OTF_HandlerArray_setHandler(h, FN(h_enter), OTF_ENTER_RECORD);
    OTF_HandlerArray_setHandler(h, FN(h_leave), OTF_LEAVE_RECORD);
    OTF_HandlerArray_setHandler(h, FN(h_send), OTF_SEND_RECORD);
    OTF_HandlerArray_setHandler(h, FN(h_recv), OTF_RECEIVE_RECORD);
    OTF_HandlerArray_setHandler(h, FN(h_collop), OTF_COLLOP_RECORD);
    OTF_HandlerArray_setHandler(h, FN(h_begin), OTF_BEGINCOLLOP_RECORD);
    OTF_HandlerArray_setHandler(h, FN(h_end), OTF_ENDCOLLOP_RECORD);
    OTF_HandlerArray_setHandler(h, FN(h_counter), OTF_COUNTER_RECORD);
    for (uint32_t r = 0; r < OTF_NRECORDS; r++)
        OTF_HandlerArray_setFirstHandlerArg(h, &want, r);
    rb = OTF_RBuffer_open_with_external_buffer((uint32_t)size, (const char *)data, 0);
    if (!rb) {
        OTF_HandlerArray_close(h);
        return 0;
    }
    failed_ref = vftr_otf_read_window(rb, 0, h, VFTR_OTF_FILE_EVENT, NULL, min, max,
                                      UINT64_MAX) == OTF_READ_ERROR;
    OTF_RBuffer_close(rb);
    OTF_HandlerArray_close(h);

    /* the scan, in batches of cap */
    got.n = 0;
    rb = OTF_RBuffer_open_with_external_buffer((uint32_t)size, (const char *)data, 0);
    if (!rb)
        return 0;
    while (!done) {
        long n = vftr_otf_scan_events(rb, min, max, 3, batch, cap, &done);

        if (n < 0) {
            failed_scan = 1;
            break;
        }
        if ((size_t)n > cap || (!done && (size_t)n != cap))
            abort();
        for (long i = 0; i < n; i++)
            add(&got, batch[i]);
    }
    OTF_RBuffer_close(rb);

    if (failed_ref != failed_scan)
        abort();
    if (!failed_ref) {
        if (got.n != want.n)
            abort();
        for (size_t i = 0; i < got.n; i++)
            if (!same(&got.ev[i], &want.ev[i]))
                abort();
    }
    return 0;
}
