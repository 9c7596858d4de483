/*
 * scan.c — see vftr_otf_scan.h.
 *
 * Why: a replay of call stacks reads hundreds of thousands of records to
 * reach one point in time, and through the reader each costs a record
 * dispatch, a generated parser and a handler call (about 350 instructions).
 * The short forms the writers produce are simple enough to decode in a few
 * dozen: a first-character switch and hex digits up to the '\n'.  Only those
 * exact forms take the fast path; every other line — long keywords, key-value
 * lines, a source-location field, blanks, an odd time line, a buffer that
 * must be refilled — is handed to the general reader for exactly one record
 * (vftr_otf_read_window with a limit of 1 and handlers that copy the record
 * into the array), so the values are the reader's by construction.
 */
#include <stdlib.h>
#include <string.h>

#include "vftr_otf_scan.h"
#include "OTF_HandlerArray.h"
#include "otf_dispatch.h"
#include "otf_rbuf.h"
#include "otf_read_internal.h"

/* A hex number of 1 to 8 digits at p; returns the character after it, or
 * NULL (not a number, or longer: the general parser decides). */
static inline const char* hex32(const char* p, uint32_t* out)
{
    unsigned d = vftr_otf_hexval[(unsigned char)*p];
    if (d > 15)
        return NULL;
    uint32_t v = d;
    unsigned n = 1;
    while ((d = vftr_otf_hexval[(unsigned char)*++p]) <= 15) {
        if (++n > 8)
            return NULL;
        v = v << 4 | d;
    }
    *out = v;
    return p;
}

/* A time line "<hex>\n" of 1 to 8 digits in one 8-byte word: the digits
 * are moved to the top of the word, the bytes below padded with '0', the
 * whole word checked and converted at once; longer lines go to
 * vftr_otf_hex_line.  Returns the '\n', or NULL for anything else (the
 * general reader then looks at the line). */
static inline const char* time_line(const char* p, uint64_t* out)
{
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t nl = vftr_otf_swar_newlines(x), y;
    unsigned n;
    if (OTF_LIKELY(nl != 0)) {
        n = (unsigned)__builtin_ctzll(nl) >> 3;
        if (OTF_UNLIKELY(n == 0))
            return NULL;
        y = (x << (64 - 8 * n)) | (0x3030303030303030ull >> (8 * n));
    } else if (p[8] == '\n') {
        n = 8;
        y = x;
    } else {
        return vftr_otf_hex_line(p, out);
    }
    uint64_t digit = (y + 0x5050505050505050ull) & ~(y + 0x4646464646464646ull);
    uint64_t alpha = (y + 0x1f1f1f1f1f1f1f1full) & ~(y + 0x1919191919191919ull);
    if (OTF_UNLIKELY((y & SWAR_HIGHS) != 0 || ((digit | alpha) & SWAR_HIGHS) != SWAR_HIGHS))
        return NULL;
    /* '0'..'9' -> 0..9, 'a'..'f' -> 10..15; the first digit is the most
     * significant: reverse the bytes, then pack the nibbles */
    uint64_t v = (y & 0x0f0f0f0f0f0f0f0full) + 9 * ((y >> 6) & SWAR_ONES);
    v = __builtin_bswap64(v);
    v = (v | (v >> 4)) & 0x00ff00ff00ff00ffull;
    v = (v | (v >> 8)) & 0x0000ffff0000ffffull;
    v = (v | (v >> 16)) & 0x00000000ffffffffull;
    *out = v;
    return p + n;
}

/* "<a>L<len>T<tag>C<comm>\n" after the S or R of a message record. */
static inline const char* message_fields(const char* p, uint32_t* peer, uint32_t* len,
                                         uint32_t* tag, uint32_t* comm)
{
    if ((p = hex32(p, peer)) == NULL || *p != 'L' || (p = hex32(p + 1, len)) == NULL ||
        *p != 'T' || (p = hex32(p + 1, tag)) == NULL || *p != 'C' ||
        (p = hex32(p + 1, comm)) == NULL || *p != '\n')
        return NULL;
    return p;
}

/* ------------------------------------------------------------ slow path */

/* Where the general reader's handlers put the one record they see. */
struct capture {
    vftr_otf_ev* ev;
    int got;
    uint32_t rma_key;    /* the key of vftr's RMA matching id, 0: none */
};

static int take(struct capture* c, vftr_otf_ev ev)
{
    *c->ev = ev;
    c->got = 1;
    return OTF_RETURN_OK;
}

static int cap_enter(void* ud, uint64_t time, uint32_t function, uint32_t process,
                     uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_ENTER_RECORD, .process = process,
                                   .u = { function } });
}

static int cap_leave(void* ud, uint64_t time, uint32_t function, uint32_t process,
                     uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_LEAVE_RECORD, .process = process,
                                   .u = { function } });
}

static int cap_send(void* ud, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t group,
                    uint32_t type, uint32_t length, uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_SEND_RECORD, .process = sender,
                                   .u = { receiver, group, type, length } });
}

static int cap_recv(void* ud, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t group,
                    uint32_t type, uint32_t length, uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_RECEIVE_RECORD, .process = receiver,
                                   .u = { sender, group, type, length } });
}

static int cap_collop(void* ud, uint64_t time, uint32_t process, uint32_t collective,
                      uint32_t group, uint32_t root, uint32_t sent, uint32_t received,
                      uint64_t duration, uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_COLLOP_RECORD, .process = process,
                                   .u = { collective, group, root },
                                   .x = { sent, received, duration } });
}

static int cap_coll_begin(void* ud, uint64_t time, uint32_t process, uint32_t collective,
                          uint64_t id, uint32_t group, uint32_t root, uint64_t sent,
                          uint64_t received, uint32_t scl, OTF_KeyValueList* kv)
{
    (void)scl;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_BEGINCOLLOP_RECORD,
                                   .process = process, .u = { collective, group, root },
                                   .x = { id, sent, received } });
}

static int cap_coll_end(void* ud, uint64_t time, uint32_t process, uint64_t id,
                        OTF_KeyValueList* kv)
{
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_ENDCOLLOP_RECORD,
                                   .process = process, .x = { id } });
}

static int cap_counter(void* ud, uint64_t time, uint32_t process, uint32_t counter,
                       uint64_t value, OTF_KeyValueList* kv)
{
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_COUNTER_RECORD, .process = process,
                                   .u = { counter }, .x = { value } });
}

static int cap_fileop(void* ud, uint64_t time, uint32_t file, uint32_t process, uint64_t handle,
                      uint32_t operation, uint64_t bytes, uint64_t duration, uint32_t source,
                      OTF_KeyValueList* kv)
{
    (void)source;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_FILEOPERATION_RECORD,
                                   .process = process, .u = { file, operation },
                                   .x = { handle, bytes, duration } });
}

static int cap_file_begin(void* ud, uint64_t time, uint32_t process, uint64_t id, uint32_t scl,
                          OTF_KeyValueList* kv)
{
    (void)scl;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_BEGINFILEOP_RECORD,
                                   .process = process, .x = { id } });
}

static int cap_file_end(void* ud, uint64_t time, uint32_t process, uint32_t file, uint64_t id,
                        uint64_t handle, uint32_t operation, uint64_t bytes, uint32_t scl,
                        OTF_KeyValueList* kv)
{
    (void)scl;
    (void)kv;
    return take(ud, (vftr_otf_ev){ .time = time, .type = OTF_ENDFILEOP_RECORD,
                                   .process = process, .u = { file, operation },
                                   .x = { id, handle, bytes } });
}

/* RMA transfers: u = origin, target, communicator, tag; x[0] = bytes (the
 * record type says which of put, remote-end put or get), x[1] = the
 * matching id of the key-value list (0: none) */
vftr_otf_ev vftr_otf_rma_ev(uint32_t type, uint64_t time, uint32_t process, uint32_t origin,
                            uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                            OTF_KeyValueList* kv, uint32_t rma_key)
{
    uint64_t match = 0;

    if (rma_key && kv && OTF_KeyValueList_getUint64(kv, rma_key, &match) != 0)
        match = 0;
    return (vftr_otf_ev){ .time = time, .type = type, .process = process,
                          .u = { origin, target, comm, tag }, .x = { bytes, match } };
}

static int cap_rma(void* ud, uint32_t type, uint64_t time, uint32_t process, uint32_t origin,
                   uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                   OTF_KeyValueList* kv)
{
    struct capture* c = ud;

    return take(ud, vftr_otf_rma_ev(type, time, process, origin, target, comm, tag, bytes, kv,
                                    c->rma_key));
}

static int cap_rma_put(void* ud, uint64_t time, uint32_t process, uint32_t origin,
                       uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                       uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    return cap_rma(ud, OTF_RMAPUT_RECORD, time, process, origin, target, comm, tag, bytes, kv);
}

static int cap_rma_putre(void* ud, uint64_t time, uint32_t process, uint32_t origin,
                         uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                         uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    return cap_rma(ud, OTF_RMAPUTRE_RECORD, time, process, origin, target, comm, tag, bytes, kv);
}

static int cap_rma_get(void* ud, uint64_t time, uint32_t process, uint32_t origin,
                       uint32_t target, uint32_t comm, uint32_t tag, uint64_t bytes,
                       uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    return cap_rma(ud, OTF_RMAGET_RECORD, time, process, origin, target, comm, tag, bytes, kv);
}

static int cap_rma_end(void* ud, uint64_t time, uint32_t process, uint32_t remote,
                       uint32_t comm, uint32_t tag, uint32_t source, OTF_KeyValueList* kv)
{
    (void)source;
    return cap_rma(ud, OTF_RMAEND_RECORD, time, process, 0, remote, comm, tag, 0, kv);
}

#define CAP(fn) ((OTF_FunctionPointer*)(void (*)(void))(fn))

static OTF_HandlerArray* capture_handlers(struct capture* c)
{
    struct { uint32_t record; OTF_FunctionPointer* fn; } const table[] = {
        { OTF_ENTER_RECORD, CAP(cap_enter) },
        { OTF_LEAVE_RECORD, CAP(cap_leave) },
        { OTF_SEND_RECORD, CAP(cap_send) },
        { OTF_RECEIVE_RECORD, CAP(cap_recv) },
        { OTF_COLLOP_RECORD, CAP(cap_collop) },
        { OTF_BEGINCOLLOP_RECORD, CAP(cap_coll_begin) },
        { OTF_ENDCOLLOP_RECORD, CAP(cap_coll_end) },
        { OTF_COUNTER_RECORD, CAP(cap_counter) },
        { OTF_FILEOPERATION_RECORD, CAP(cap_fileop) },
        { OTF_BEGINFILEOP_RECORD, CAP(cap_file_begin) },
        { OTF_ENDFILEOP_RECORD, CAP(cap_file_end) },
        { OTF_RMAPUT_RECORD, CAP(cap_rma_put) },
        { OTF_RMAPUTRE_RECORD, CAP(cap_rma_putre) },
        { OTF_RMAGET_RECORD, CAP(cap_rma_get) },
        { OTF_RMAEND_RECORD, CAP(cap_rma_end) },
    };
    OTF_HandlerArray* h = OTF_HandlerArray_open();
    if (h == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        OTF_HandlerArray_setHandler(h, table[i].fn, table[i].record);
        OTF_HandlerArray_setFirstHandlerArg(h, c, table[i].record);
    }
    return h;
}

/* ------------------------------------------------------------ the scan */

long vftr_otf_scan_events(OTF_RBuffer* rb, uint64_t min, uint64_t max, uint32_t rma_key,
                          vftr_otf_ev* out, size_t cap, int* done)
{
    OTF_HandlerArray* h = NULL;
    struct capture c = { NULL, 0, rma_key };
    size_t n = 0;
    int fin = 0;

    if (done != NULL)
        *done = 0;
    if (rb == NULL) {
        vftr_otf_seterr("vftr_otf_scan_events: no buffer");
        return -1;
    }
    while (n < cap && !fin) {
        char* buf = rb->buffer;
        uint32_t pos = rb->pos, end = rb->end;
        uint64_t time = rb->time;
        uint32_t process = rb->process;

        const char* p = buf + pos;
        const char* endp = buf + end;

        while (p < endp) {
            unsigned char ch = (unsigned char)*p;
            const char* q;
            uint64_t v;
            vftr_otf_ev* ev = &out[n];     /* filled in place, kept if in [min, max) */

            if (vftr_otf_hexval[ch] <= 15) {
                if ((q = time_line(p, &v)) == NULL)
                    break;
                time = v;
                p = q + 1;
                /* the writer's next line: a process line */
                if (p < endp && *p == '*' && (q = vftr_otf_process_line(p, &process)) != NULL)
                    p = q + 1;
                continue;
            }
            if (ch == '*') {
                if ((q = vftr_otf_process_line(p, &process)) == NULL)
                    break;
                p = q + 1;
                continue;
            }
            switch (ch) {
            case 'E':
                if ((q = hex32(p + 1, &ev->u[0])) == NULL || *q != '\n')
                    goto slow;
                ev->type = OTF_ENTER_RECORD;
                break;
            case 'L':
                if (p[1] == '\n') {
                    ev->u[0] = 0;
                    q = p + 1;
                } else if ((q = hex32(p + 1, &ev->u[0])) == NULL || *q != '\n') {
                    goto slow;
                }
                ev->type = OTF_LEAVE_RECORD;
                break;
            case 'S':
                if ((q = message_fields(p + 1, &ev->u[0], &ev->u[3], &ev->u[2], &ev->u[1])) ==
                    NULL)
                    goto slow;
                ev->type = OTF_SEND_RECORD;
                break;
            case 'R':
                if ((q = message_fields(p + 1, &ev->u[0], &ev->u[3], &ev->u[2], &ev->u[1])) ==
                    NULL)
                    goto slow;
                ev->type = OTF_RECEIVE_RECORD;
                break;
            default:
                goto slow;
            }
            if (time >= max) {
                fin = 1;         /* the line stays unread */
                break;
            }
            p = q + 1;
            if (time < min)
                continue;
            ev->time = time;
            ev->process = process;
            if (++n == cap)
                break;
        }
    slow:
        rb->pos = (uint32_t)(p - buf);
        rb->time = time;
        rb->process = process;
        if (fin || n == cap)
            break;
        /* One record (with the key-value lines before it) the general way;
         * it also refills the buffer and reports malformed lines. */
        if (h == NULL && (h = capture_handlers(&c)) == NULL)
            return -1;
        c.ev = &out[n];
        c.got = 0;
        uint64_t r = vftr_otf_read_window(rb, 0, h, VFTR_OTF_FILE_EVENT, NULL, min, max, 1);
        if (r == OTF_READ_ERROR) {
            OTF_HandlerArray_close(h);
            return -1;
        }
        if (r == 0)
            fin = 1;     /* at max, or the end of the file */
        n += (size_t)c.got;
    }
    if (h != NULL)
        OTF_HandlerArray_close(h);
    if (done != NULL)
        *done = fin;
    return (long)n;
}
