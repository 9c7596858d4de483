/*
 * encode.c — the chunk encoders and CRC-32C of the .vfd format.
 *
 * Everything here works on caller buffers only (no allocation, no lock, no
 * errno), so that capture can flush from any thread and from a signal
 * handler.  Each encoder writes the payload first, right after room for the
 * chunk header, and fills the header last, when the length, count and CRC
 * are known.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vfd_crc32c_table.h"
#include "vfd_internal.h"
#include "vftr_vfd.h"

/* Slicing-by-8: eight table lookups fold eight bytes at once.  Portable,
 * about 1.5 GB/s here. */
static uint32_t crc32c_sw(uint32_t c, const uint8_t *p, size_t len)
{
    while (len && ((uintptr_t)p & 7)) {
        c = (c >> 8) ^ vfd_crc32c_table[0][(c ^ *p++) & 0xff];
        len--;
    }
    while (len >= 8) {
        uint32_t lo = vfd_get32(p) ^ c;
        uint32_t hi = vfd_get32(p + 4);
        c = vfd_crc32c_table[7][lo & 0xff] ^ vfd_crc32c_table[6][(lo >> 8) & 0xff] ^
            vfd_crc32c_table[5][(lo >> 16) & 0xff] ^ vfd_crc32c_table[4][lo >> 24] ^
            vfd_crc32c_table[3][hi & 0xff] ^ vfd_crc32c_table[2][(hi >> 8) & 0xff] ^
            vfd_crc32c_table[1][(hi >> 16) & 0xff] ^ vfd_crc32c_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        c = (c >> 8) ^ vfd_crc32c_table[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* SSE4.2 has a CRC-32C instruction (the reason this format uses the
 * Castagnoli polynomial): 8 bytes per instruction, several GB/s, which keeps
 * the CRC a small part of encoding an event.  Chosen at run time; the CPU
 * model that __builtin_cpu_supports reads is set up by the compiler's
 * runtime before main and only read afterwards, so this stays
 * async-signal-safe. */
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t len)
{
    uint64_t c64 = c;
    while (len && ((uintptr_t)p & 7)) {
        c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
        len--;
    }
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c64 = __builtin_ia32_crc32di(c64, v);
        p += 8;
        len -= 8;
    }
    while (len--)
        c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
    return (uint32_t)c64;
}

static int have_crc32c_hw(void)
{
    return __builtin_cpu_supports("sse4.2");
}
#else
static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t len)
{
    return crc32c_sw(c, p, len);
}

static int have_crc32c_hw(void)
{
    return 0;
}
#endif

uint32_t vftr_vfd_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (have_crc32c_hw())
        return ~crc32c_hw(~crc, p, len);
    return ~crc32c_sw(~crc, p, len);
}

/* Most bytes one event slot can take: an extended event with no payload is
 * a 5-byte tag, a 10-byte delta and a 5-byte length; a payload of L bytes
 * adds L bytes and ceil(L/16) slots, so 20 per slot bounds every case. */
#define VFD_SLOT_MAX 20u

size_t vftr_vfd_encode_bound(size_t n)
{
    if (n > (SIZE_MAX - VFTR_VFD_CHUNK_HEADER_SIZE) / VFD_SLOT_MAX)
        return SIZE_MAX;
    return VFTR_VFD_CHUNK_HEADER_SIZE + n * VFD_SLOT_MAX;
}

/* The event loop, specialised twice by its constant last argument: without
 * room checks when the buffer holds the worst case (the usual flush), with
 * them otherwise.  Returns the end of the payload, or NULL when it does not
 * fit or the input is invalid. */
static inline __attribute__((always_inline)) uint8_t *
encode_loop(const struct vftr_vfd_event *ev, size_t n, uint8_t *p, const uint8_t *end,
            uint64_t *lastp, uint32_t *countp, const int checked)
{
    uint64_t last = *lastp;
    uint32_t count = 0;

    for (size_t i = 0; i < n; i++) {
        const struct vftr_vfd_event *e = &ev[i];
        /* Non-decreasing times: a step back is recorded as no step. */
        uint64_t delta = e->time > last ? e->time - last : 0;
        last += delta;
        count++;
        uint32_t code = e->kind - VFTR_VFD_ENTER;
        if (code < 3) {
            if (checked && (size_t)(end - p) < 15)
                return NULL;
            uint64_t tag = (uint64_t)e->id << 2 | code;
            p = vftr_vfd_put_varint(p, tag);
            p = vftr_vfd_put_varint(p, delta);
            continue;
        }
        if (e->kind < VFTR_VFD_PAUSE)
            return NULL; /* kind 0 is not an event */
        size_t len = e->id;
        size_t slots = (len + sizeof *e - 1) / sizeof *e;
        if (slots > n - i - 1)
            return NULL; /* payload slots run past the array */
        if (checked &&
            ((size_t)(end - p) < VFD_SLOT_MAX || (size_t)(end - p) - VFD_SLOT_MAX < len))
            return NULL;
        p = vfd_put_varint(p, (uint64_t)e->kind << 2 | VFD_CODE_EXT);
        p = vfd_put_varint(p, delta);
        p = vfd_put_varint(p, len);
        memcpy(p, e + 1, len);
        p += len;
        i += slots;
    }
    *lastp = last;
    *countp = count;
    return p;
}

size_t vftr_vfd_encode_events(const struct vftr_vfd_event *ev, size_t n, uint8_t *out,
                              size_t cap, uint32_t thread)
{
    if (!out || cap < VFTR_VFD_CHUNK_HEADER_SIZE || (n && !ev) || n > UINT32_MAX)
        return 0;
    uint8_t *const payload = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    uint64_t first = n ? ev[0].time : 0, last = first;
    uint32_t count = 0;
    uint8_t *p;
    size_t bound = vftr_vfd_encode_bound(n);

    if (cap >= bound && bound - VFTR_VFD_CHUNK_HEADER_SIZE <= VFTR_VFD_MAX_PAYLOAD) {
        p = encode_loop(ev, n, payload, NULL, &last, &count, 0);
    } else {
        /* Stop where the payload would exceed what a reader accepts. */
        size_t room = cap - VFTR_VFD_CHUNK_HEADER_SIZE;
        if (room > VFTR_VFD_MAX_PAYLOAD)
            room = VFTR_VFD_MAX_PAYLOAD;
        p = encode_loop(ev, n, payload, payload + room, &last, &count, 1);
    }
    if (!p)
        return 0;
    vfd_chunk_header(out, VFTR_VFD_CHUNK_EVENTS, thread, (uint32_t)(p - payload), count, first,
                     last);
    return (size_t)(p - out);
}

size_t vftr_vfd_events_finish(uint8_t *chunk, size_t payload_len, uint32_t count, uint32_t thread,
                              uint64_t first, uint64_t last)
{
    if (chunk == NULL || payload_len > VFTR_VFD_MAX_PAYLOAD)
        return 0;
    vfd_chunk_header(chunk, VFTR_VFD_CHUNK_EVENTS, thread, (uint32_t)payload_len, count, first,
                     last);
    return VFTR_VFD_CHUNK_HEADER_SIZE + payload_len;
}

int vftr_vfd_events_prefix(const uint8_t *payload, size_t len, size_t max, uint64_t first,
                           size_t *bytes, uint32_t *count, uint64_t *last)
{
    const uint8_t *p = payload, *end = payload + len;
    uint64_t t = first;
    uint32_t k = 0;

    *bytes = 0;
    *count = 0;
    *last = first;
    while (p < end) {
        const uint8_t *q = p;
        uint64_t tag, delta, plen = 0;
        if (vfd_get_varint(&q, end, &tag) < 0 || vfd_get_varint(&q, end, &delta) < 0)
            return -EBADMSG;
        if ((tag & 3) == VFD_CODE_EXT) {
            if (vfd_get_varint(&q, end, &plen) < 0 || plen > (uint64_t)(end - q))
                return -EBADMSG;
            q += plen;
        }
        if ((size_t)(q - payload) > max)
            break;
        t += delta;
        k++;
        p = q;
        *bytes = (size_t)(p - payload);
        *count = k;
        *last = t;
    }
    return 0;
}

/* Definition chunks share this frame: check the records fit, write them
 * one by one, fill the header.  Each encoder checks room per record. */

size_t vftr_vfd_functions_bound(const struct vftr_vfd_function *f, size_t n)
{
    size_t total = VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++)
        total = vfd_add_bound(total, 5 + 5 + 10 + 10 + vfd_name_len(f[i].name));
    return total;
}

size_t vftr_vfd_threads_bound(const struct vftr_vfd_thread *t, size_t n)
{
    size_t total = VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++)
        total = vfd_add_bound(total, 5 + 5 + 10 + 10 + 10 + vfd_name_len(t[i].name));
    return total;
}

size_t vftr_vfd_callpaths_bound(size_t n)
{
    if (n > (SIZE_MAX - VFTR_VFD_CHUNK_HEADER_SIZE) / 20)
        return SIZE_MAX;
    return VFTR_VFD_CHUNK_HEADER_SIZE + n * 20;
}

size_t vftr_vfd_encode_functions(const struct vftr_vfd_function *f, size_t n, uint8_t *out,
                                 size_t cap)
{
    if (!out || cap < VFTR_VFD_CHUNK_HEADER_SIZE || (n && !f) || n > UINT32_MAX)
        return 0;
    uint8_t *end = vfd_payload_end(out, cap);
    uint8_t *p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++) {
        size_t len = vfd_name_len(f[i].name);
        if ((size_t)(end - p) < 30 || (size_t)(end - p) - 30 < len)
            return 0;
        p = vfd_put_varint(p, f[i].id);
        p = vfd_put_varint(p, f[i].flags);
        p = vfd_put_varint(p, f[i].address);
        p = vfd_put_varint(p, len);
        if (len)
            memcpy(p, f[i].name, len);
        p += len;
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_FUNCTIONS, n);
}

size_t vftr_vfd_encode_callpaths(const struct vftr_vfd_callpath *c, size_t n, uint8_t *out,
                                 size_t cap)
{
    if (!out || cap < VFTR_VFD_CHUNK_HEADER_SIZE || (n && !c) || n > UINT32_MAX)
        return 0;
    uint8_t *end = vfd_payload_end(out, cap);
    uint8_t *p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++) {
        if ((size_t)(end - p) < 20)
            return 0;
        p = vfd_put_varint(p, c[i].id);
        p = vfd_put_varint(p, c[i].parent);
        p = vfd_put_varint(p, c[i].function);
        p = vfd_put_varint(p, c[i].thread);
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_CALLPATHS, n);
}

size_t vftr_vfd_encode_threads(const struct vftr_vfd_thread *t, size_t n, uint8_t *out,
                               size_t cap)
{
    if (!out || cap < VFTR_VFD_CHUNK_HEADER_SIZE || (n && !t) || n > UINT32_MAX)
        return 0;
    uint8_t *end = vfd_payload_end(out, cap);
    uint8_t *p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++) {
        size_t len = vfd_name_len(t[i].name);
        if ((size_t)(end - p) < 40 || (size_t)(end - p) - 40 < len)
            return 0;
        p = vfd_put_varint(p, t[i].id);
        p = vfd_put_varint(p, t[i].parent);
        p = vfd_put_varint(p, t[i].os_tid);
        p = vfd_put_varint(p, t[i].created);
        p = vfd_put_varint(p, len);
        if (len)
            memcpy(p, t[i].name, len);
        p += len;
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_THREADS, n);
}
