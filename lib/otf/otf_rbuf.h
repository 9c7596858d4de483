/*
 * otf_rbuf.h — the record iterator of an OTF_RBuffer used by the streams
 * and the reader.
 */
#ifndef VFTR_OTF_RBUF_H
#define VFTR_OTF_RBUF_H

#include <string.h>

#include "OTF_RBuffer.h"
#include "otf_parse.h"
#include "otf_internal.h"

/* Consumes state lines and stops at the next record (or key-value) line:
 * fills ps->line/p/end and ps->time/process from the buffer's state.
 * Returns 1 for a line, 0 at the end of the file, -1 on error (otf_errno).
 * Every case: refills, odd state lines, errors. */
int vftr_otf_rb_next(OTF_RBuffer* rb, vftr_otf_parse* ps);

/* The first '\n' at or after p, eight bytes at a time (lines are short).
 * There is one before the buffer's end, and the buffer has 8 bytes of slack
 * after it, so the loads stay inside the allocation. */
static inline char* vftr_otf_find_newline(char* p)
{
    const uint64_t ones = 0x0101010101010101ull, nl = 0x0a0a0a0a0a0a0a0aull;
    for (;;) {
        uint64_t x;
        memcpy(&x, p, 8);
        x ^= nl;
        uint64_t z = (x - ones) & ~x & (ones << 7);
        if (z != 0)
            return p + (__builtin_ctzll(z) >> 3);
        p += 8;
    }
}

/* Word-at-a-time helpers for the state lines.  Bytes are loaded little
 * endian, so the first character of the text is the lowest byte. */
#define SWAR_ONES  0x0101010101010101ull
#define SWAR_HIGHS 0x8080808080808080ull

/* Bit 7 set in the lowest byte of x that equals '\n' (higher bytes may be
 * flagged falsely; only the lowest flag is used). */
static inline uint64_t vftr_otf_swar_newlines(uint64_t x)
{
    x ^= 0x0a0a0a0a0a0a0a0aull;
    return (x - SWAR_ONES) & ~x & SWAR_HIGHS;
}

/* The value of the n (1..8) lower-case hex digits in the low bytes of x, or
 * -1 if one of them is not such a digit.  A byte b below 0x80 is a digit
 * when b + (0x80 - lo) reaches bit 7 and b + (0x7f - hi) does not, for the
 * ranges '0'..'9' and 'a'..'f'; below 0x80 no sum carries into the next
 * byte. */
static inline int vftr_otf_swar_hex(uint64_t x, unsigned n, uint64_t* out)
{
    uint64_t keep = n == 8 ? ~0ull : (1ull << (8 * n)) - 1;
    x &= keep;
    if (x & SWAR_HIGHS)
        return -1;
    uint64_t digit = (x + 0x5050505050505050ull) & ~(x + 0x4646464646464646ull);
    uint64_t alpha = (x + 0x1f1f1f1f1f1f1f1full) & ~(x + 0x1919191919191919ull);
    if (((digit | alpha) & SWAR_HIGHS & keep) != (SWAR_HIGHS & keep))
        return -1;
    /* '0'..'9' -> 0..9 and 'a'..'f' (bit 6 set) -> 1..6 + 9 */
    uint64_t v = (x & 0x0f0f0f0f0f0f0f0full) + 9 * ((x >> 6) & SWAR_ONES);
    /* first digit most significant: reverse the bytes, then pack nibbles */
    v = __builtin_bswap64(v);
    v = (v | (v >> 4)) & 0x00ff00ff00ff00ffull;
    v = (v | (v >> 8)) & 0x0000ffff0000ffffull;
    v = (v | (v >> 16)) & 0x00000000ffffffffull;
    *out = v >> (4 * (8 - n));
    return 0;
}

/* A hex number at p ending the line (1 to 16 digits, then '\n'): the form
 * of every time and process line the writer produces.  Returns the '\n'
 * after it, or NULL for anything else (the slow path then looks at the
 * whole line).  Reads 16 bytes at most, and the second 8 only when the
 * line is longer than 8 bytes: the buffer's slack covers both. */
static inline const char* vftr_otf_hex_line(const char* p, uint64_t* out)
{
    uint64_t x, y, hi, lo;
    memcpy(&x, p, 8);
    /* exactly eight digits (time stamps from 0.27 s to 4.3 s in ns, or any
     * 32-bit tick count above 2^28): no newline search */
    if (p[8] == '\n' && vftr_otf_swar_hex(x, 8, out) == 0)
        return p + 8;
    uint64_t m = vftr_otf_swar_newlines(x);
    if (OTF_LIKELY(m != 0)) {
        unsigned n = (unsigned)__builtin_ctzll(m) >> 3;
        if (n == 0 || vftr_otf_swar_hex(x, n, out) != 0)
            return NULL;
        return p + n;
    }
    memcpy(&y, p + 8, 8);
    m = vftr_otf_swar_newlines(y);
    if (m == 0)
        return NULL;
    unsigned n = (unsigned)__builtin_ctzll(m) >> 3;
    if (vftr_otf_swar_hex(x, 8, &hi) != 0)
        return NULL;
    if (n == 0) {
        *out = hi;
        return p + 8;
    }
    if (vftr_otf_swar_hex(y, n, &lo) != 0)
        return NULL;
    *out = (hi << (4 * n)) | lo;
    return p + 8 + n;
}

/* A process line "*<hex>\n" at p (p[0] == '*'): most traces have few
 * processes, so one digit is tried first.  Returns the '\n' with the
 * process in *process, or NULL for anything else (the slow path looks at
 * the whole line). */
static inline const char* vftr_otf_process_line(const char* p, uint32_t* process)
{
    unsigned d = vftr_otf_hexval[(unsigned char)p[1]];
    if (OTF_LIKELY(d <= 15 && p[2] == '\n')) {
        *process = d;
        return p + 2;
    }
    uint64_t v;
    const char* q = vftr_otf_hex_line(p + 1, &v);
    if (q == NULL || v > UINT32_MAX)
        return NULL;
    *process = (uint32_t)v;
    return q;
}

/* vftr_otf_rb_next for the reading loops: the lines the writer produces
 * (plain time and process lines, records that start with a keyword) are
 * handled here with the buffer's state in registers; anything else, and a
 * buffer that needs refilling, goes to vftr_otf_rb_next. */
static inline int vftr_otf_rb_next_fast(OTF_RBuffer* rb, vftr_otf_parse* ps)
{
    char* buf = rb->buffer;
    uint32_t pos = rb->pos, end = rb->end;
    uint64_t time = rb->time;
    uint32_t process = rb->process;
    for (;;) {
        if (OTF_UNLIKELY(pos >= end))
            break;
        char* line = buf + pos;
        unsigned char c = (unsigned char)*line;
        uint64_t v;
        const char* q;
        if (vftr_otf_hexval[c] <= 15) {
            if (OTF_UNLIKELY((q = vftr_otf_hex_line(line, &v)) == NULL))
                break;
            time = v;
            pos = (uint32_t)(q - buf) + 1;
            continue;
        }
        if (c == '*') {
            if (OTF_UNLIKELY((q = vftr_otf_process_line(line, &process)) == NULL))
                break;
            pos = (uint32_t)(q - buf) + 1;
            continue;
        }
        if (OTF_UNLIKELY(c == ' ' || c == '\t' || rb->failed))
            break;
        char* nl = vftr_otf_find_newline(line);
        rb->rec = pos;
        rb->pos = (uint32_t)(nl - buf) + 1;
        rb->time = time;
        rb->process = process;
        ps->line = line;
        ps->p = line;
        ps->end = nl;
        ps->time = time;
        ps->process = process;
        ps->file = rb->filename;
        ps->offset = rb->base + pos;
        return 1;
    }
    rb->pos = pos;
    rb->time = time;
    rb->process = process;
    return vftr_otf_rb_next(rb, ps);
}

#endif /* VFTR_OTF_RBUF_H */
