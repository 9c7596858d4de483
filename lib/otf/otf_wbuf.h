/*
 * otf_wbuf.h — the fast path of writing text records into an OTF_WBuffer.
 * The generated record writers call these; everything out of line (flush,
 * growth, strings, arrays, key-value lists) lives in wbuffer.c.
 *
 * Contract: vftr_otf_wb_reserve(b, n) must succeed before up to n bytes are
 * appended with the unchecked vftr_otf_wb_lit/char/hex.
 */
#ifndef VFTR_OTF_WBUF_H
#define VFTR_OTF_WBUF_H

#include <string.h>

#include "OTF_WBuffer.h"
#include "otf_internal.h"

/* Slow path of vftr_otf_wb_reserve: flushes, or grows for a huge record. */
int vftr_otf_wb_make_room(OTF_WBuffer* b, size_t n);
/* Slow path of vftr_otf_wb_state: writes state lines, handles time errors. */
int vftr_otf_wb_state_slow(OTF_WBuffer* b, uint64_t t, uint32_t p);
/* A quoted string, '"' and '\n' replaced by blanks, NULL as "".  1 ok. */
int vftr_otf_wb_string(OTF_WBuffer* b, const char* s);
/* n elements in hex, each followed by a comma.  1 ok. */
int vftr_otf_wb_array(OTF_WBuffer* b, const uint32_t* a, uint32_t n);
/* The "K..." lines of `list`, which is then reset.  1 ok. */
int vftr_otf_wb_kvlist(OTF_WBuffer* b, OTF_KeyValueList* list, int longfmt);
/* Empties `list` if it is not NULL. */
void vftr_otf_kv_reset(OTF_KeyValueList* list);

static inline int vftr_otf_wb_reserve(OTF_WBuffer* b, size_t n)
{
    if (OTF_LIKELY((size_t)b->pos + n <= b->size))
        return 1;
    return vftr_otf_wb_make_room(b, n);
}

static inline void vftr_otf_wb_lit(OTF_WBuffer* b, const char* s, size_t n)
{
    memcpy(b->buffer + b->pos, s, n);
    b->pos += (uint32_t)n;
}

static inline void vftr_otf_wb_char(OTF_WBuffer* b, char c)
{
    b->buffer[b->pos++] = c;
}

/* "000102...feff": two hex digits for every byte value. */
extern const char vftr_otf_hexpairs[512];

/* Cursor forms of the appenders: they take and return the place to write,
 * so that a whole record is formatted with its position in a register (a
 * store through a char pointer may alias b->pos, which would force the
 * compiler to reload it after every byte). */
static inline char* vftr_otf_cur_lit(char* w, const char* s, size_t n)
{
    memcpy(w, s, n);
    return w + n;
}

/* Lower-case hex without leading zeros: at most 16 bytes.  Two digits per
 * step from a table, written backwards from the known length. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline char* vftr_otf_cur_hex(char* w, uint64_t v)
{
    unsigned n = v ? (unsigned)(67 - __builtin_clzll(v)) / 4 : 1;
    char* e = w + n;
    while (v >= 0x100) {
        e -= 2;
        memcpy(e, &vftr_otf_hexpairs[(v & 0xff) * 2], 2);
        v >>= 8;
    }
    if (v >= 0x10)
        memcpy(e - 2, &vftr_otf_hexpairs[v * 2], 2);
    else
        e[-1] = vftr_otf_hexpairs[v * 2 + 1];
    return w + n;
}

static inline char* vftr_otf_wb_cur(OTF_WBuffer* b)
{
    return b->buffer + b->pos;
}

static inline void vftr_otf_wb_commit(OTF_WBuffer* b, char* w)
{
    b->pos = (uint32_t)(w - b->buffer);
}

static inline void vftr_otf_wb_hex(OTF_WBuffer* b, uint64_t v)
{
    vftr_otf_wb_commit(b, vftr_otf_cur_hex(vftr_otf_wb_cur(b), v));
}

/* State lines: "*p" alone, or "t" and "*p" (the process always follows a
 * time line, which is what lets a reader resynchronise after a jump). */
VFTR_OTF_ALWAYS_INLINE
static inline int vftr_otf_wb_put_process(OTF_WBuffer* b, uint32_t p)
{
    if (!vftr_otf_wb_reserve(b, 10))
        return 0;
    char* w = vftr_otf_wb_cur(b);
    *w++ = '*';
    w = vftr_otf_cur_hex(w, p);
    *w++ = '\n';
    vftr_otf_wb_commit(b, w);
    b->process = p;
    return 1;
}

/* A time stamp in hex at w.  Consecutive time stamps of a file mostly
 * differ in their last digits only: then the previous text is copied and
 * just those digits are written. */
VFTR_OTF_ALWAYS_INLINE
static inline char* vftr_otf_wb_time(OTF_WBuffer* b, char* w, uint64_t t)
{
    uint64_t diff = t ^ b->time;
    unsigned n = t ? (unsigned)(67 - __builtin_clzll(t)) / 4 : 1;
    char text[16];
    memcpy(text, b->ttext, 16);
    if (n == b->tlen && diff < 0x10000 && n >= 4) {
        memcpy(text + n - 2, &vftr_otf_hexpairs[(t & 0xff) * 2], 2);
        memcpy(text + n - 4, &vftr_otf_hexpairs[((t >> 8) & 0xff) * 2], 2);
    } else {
        vftr_otf_cur_hex(text, t);
        b->tlen = n;
    }
    memcpy(b->ttext, text, 16);
    memcpy(w, text, 16);
    return w + n;
}

VFTR_OTF_ALWAYS_INLINE
static inline int vftr_otf_wb_put_time_process(OTF_WBuffer* b, uint64_t t, uint32_t p)
{
    if (!vftr_otf_wb_reserve(b, 43))
        return 0;
    char* w = vftr_otf_wb_time(b, vftr_otf_wb_cur(b), t);
    w[0] = '\n';
    w[1] = '*';
    w = vftr_otf_cur_hex(w + 2, p);
    *w++ = '\n';
    vftr_otf_wb_commit(b, w);
    b->time = t;
    b->process = p;
    return 1;
}

/* The time/process state machine (OTF_WBuffer.h).  The common cases are
 * inline: same time and process (nothing to write), another process at the
 * same time ("*p"), a later time ("t" and "*p").  Time 0, a time going back
 * and a poisoned file take the slow path. */
VFTR_OTF_ALWAYS_INLINE
static inline int vftr_otf_wb_state(OTF_WBuffer* b, uint64_t t, uint32_t p)
{
    if (OTF_LIKELY(t == b->time && t != 0 && t != UINT64_MAX))
        return p == b->process || vftr_otf_wb_put_process(b, p);
    if (OTF_LIKELY(t > b->time && b->time != UINT64_MAX && b->timed))
        return vftr_otf_wb_put_time_process(b, t, p);
    return vftr_otf_wb_state_slow(b, t, p);
}

#endif /* VFTR_OTF_WBUF_H */
