/*
 * vfd_internal.h — what the encoder, writer and reader of lib/vfd share:
 * byte offsets of the file and chunk headers (share/doc/vfd-format.md has
 * the same tables), little-endian accessors and LEB128 varints.  Internal to
 * lib/vfd; everything is static inline and touches only its arguments.
 */
#ifndef VFTR_VFD_INTERNAL_H
#define VFTR_VFD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vftr_vfd.h"

/* File header: "\x89VFD\r\n\x1a\n" (a high byte, then line endings and ^Z
 * that text-mode transfers would mangle). */
#define VFD_MAGIC "\x89VFD\r\n\x1a\n"
#define VFD_MAGIC_LEN 8

enum {                          /* byte offsets in the file header */
    VFD_H_MAGIC = 0,
    VFD_H_VERSION = 8,          /* u32 */
    VFD_H_HEADER_SIZE = 12,     /* u32: offset of the first chunk */
    VFD_H_FLAGS = 16,           /* u32: VFD_FLAG_* */
    VFD_H_CRC = 20,             /* u32: CRC-32C of the header with this field 0 */
    VFD_H_RUN_ID = 24,          /* 16 bytes */
    VFD_H_PID = 40,             /* i64 */
    VFD_H_RANK = 48,            /* i32 */
    VFD_H_SIZE = 52,            /* i32 */
    VFD_H_TPS = 56,             /* u64 ticks per second */
    VFD_H_START_NS = 64,
    VFD_H_START_TICKS = 72,
    VFD_H_END_NS = 80,
    VFD_H_END_TICKS = 88,
    VFD_H_EVENTS = 96,
    VFD_H_CHUNKS = 104,
    VFD_H_BYTES = 112,
    VFD_H_SIGNAL = 120,         /* i32 */
    VFD_H_RESERVED1 = 124,      /* u32, 0 */
    VFD_H_EVENTS_LOST = 128,    /* u64 */
    VFD_H_SAMPLE_TICKS = 136,   /* u64: sampling interval, 0 = every event */
    VFD_H_HOST = 256,           /* VFTR_VFD_HOST_MAX bytes, NUL-padded */
    VFD_H_EXE = 512,            /* VFTR_VFD_EXE_MAX bytes, NUL-padded */
    VFD_H_END = 512 + VFTR_VFD_EXE_MAX, /* 2560: the rest up to 4096 is 0 */
};

enum {
    VFD_FLAG_COMPLETE = 1u << 0,
    VFD_FLAG_CAPPED = 1u << 1,
    VFD_FLAG_ABANDONED = 1u << 2,
};

/* Chunk header: magic "VFDC". */
#define VFD_CHUNK_MAGIC "VFDC"
enum {
    VFD_C_MAGIC = 0,            /* 4 bytes */
    VFD_C_KIND = 4,             /* u16 */
    VFD_C_FLAGS = 6,            /* u16, 0 */
    VFD_C_THREAD = 8,           /* u32 */
    VFD_C_LENGTH = 12,          /* u32 payload bytes */
    VFD_C_COUNT = 16,           /* u32 records */
    VFD_C_PAYLOAD_CRC = 20,     /* u32 */
    VFD_C_FIRST_TIME = 24,      /* u64 */
    VFD_C_LAST_TIME = 32,       /* u64 */
    VFD_C_RESERVED = 40,        /* u32, 0 */
    VFD_C_HEADER_CRC = 44,      /* u32: CRC-32C of bytes 0..43 */
};

/* Event tags: (id << 2) | code. */
enum { VFD_CODE_ENTER = 0, VFD_CODE_EXIT = 1, VFD_CODE_SAMPLE = 2, VFD_CODE_EXT = 3 };

/* Longest varint of a uint64_t. */
#define VFD_VARINT_MAX 10

static inline void vfd_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void vfd_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void vfd_put64(uint8_t *p, uint64_t v)
{
    vfd_put32(p, (uint32_t)v);
    vfd_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t vfd_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t vfd_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t vfd_get64(const uint8_t *p)
{
    return (uint64_t)vfd_get32(p) | (uint64_t)vfd_get32(p + 4) << 32;
}

/* Writes v as unsigned LEB128 at p (room for VFD_VARINT_MAX bytes assumed);
 * returns the byte after it. */
static inline uint8_t *vfd_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline size_t vfd_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Reads an unsigned LEB128 from [*p, end).  Returns 0 and advances *p, or
 * -1 when it runs past end, is longer than 10 bytes or overflows 64 bits. */
static inline int vfd_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (q >= end)
            return -1;
        uint8_t b = *q++;
        if (shift == 63 && b > 1)
            return -1;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* Fills the 48-byte chunk header at out for a payload already in place
 * after it. */
static inline void vfd_chunk_header(uint8_t *out, uint16_t kind, uint32_t thread,
                                    uint32_t length, uint32_t count, uint64_t first,
                                    uint64_t last)
{
    memcpy(out + VFD_C_MAGIC, VFD_CHUNK_MAGIC, 4);
    vfd_put16(out + VFD_C_KIND, kind);
    vfd_put16(out + VFD_C_FLAGS, 0);
    vfd_put32(out + VFD_C_THREAD, thread);
    vfd_put32(out + VFD_C_LENGTH, length);
    vfd_put32(out + VFD_C_COUNT, count);
    vfd_put32(out + VFD_C_PAYLOAD_CRC,
              vftr_vfd_crc32c(0, out + VFTR_VFD_CHUNK_HEADER_SIZE, length));
    vfd_put64(out + VFD_C_FIRST_TIME, first);
    vfd_put64(out + VFD_C_LAST_TIME, last);
    vfd_put32(out + VFD_C_RESERVED, 0);
    vfd_put32(out + VFD_C_HEADER_CRC, vftr_vfd_crc32c(0, out, VFD_C_HEADER_CRC));
}

/* The encoders of definition chunks (encode.c, ext.c) share these. */

/* Length of a name that may be NULL (then empty). */
static inline size_t vfd_name_len(const char *s)
{
    return s ? strlen(s) : 0;
}

/* total + more, saturating at SIZE_MAX (worst-case chunk sizes). */
static inline size_t vfd_add_bound(size_t total, size_t more)
{
    return total > SIZE_MAX - more ? SIZE_MAX : total + more;
}

/* End of the payload room of a chunk being encoded at out (cap bytes),
 * capped at what a reader accepts. */
static inline uint8_t *vfd_payload_end(uint8_t *out, size_t cap)
{
    size_t room = cap - VFTR_VFD_CHUNK_HEADER_SIZE;
    if (room > VFTR_VFD_MAX_PAYLOAD)
        room = VFTR_VFD_MAX_PAYLOAD;
    return out + VFTR_VFD_CHUNK_HEADER_SIZE + room;
}

/* Fills the header of the definition chunk at out whose payload of n
 * records ends at p; returns the chunk's size. */
static inline size_t vfd_finish_chunk(uint8_t *out, uint8_t *p, uint16_t kind, size_t n)
{
    uint8_t *payload = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    vfd_chunk_header(out, kind, 0, (uint32_t)(p - payload), (uint32_t)n, 0, 0);
    return (size_t)(p - out);
}

/*
 * A file mapped privately and read by positions that move front to back
 * (a reader; a scanner's positions, one per thread of a converter): what a
 * position leaves behind leaves the resident memory, so that memory does
 * not grow with the file's size (the mapping is never written: a page
 * touched again is read from the file again, and pointers into it stay
 * valid).
 *
 * A read maps more than the page it touches: the kernel maps the pages
 * around it that are in the page cache (fault-around, large folios),
 * before it as well as after it, within the page table of the touched
 * page, which spans page * (page / 8) bytes (2 MiB with 4 KiB pages).  So
 * a position gives back what its reads may have mapped, not only what it
 * read; else every jump (to a thread's next chunk, over the others'), and
 * every page read while readahead was still under way, would leave pages
 * mapped that no position reads again, and memory would grow with the
 * number of chunks.
 *
 * *mark is where the position stood at its last call (its reads since lie
 * at or after it; set it to a chunk's offset when the position jumps
 * there).  For a position now at off: gives back the pages from *mark minus
 * that reach up to off's page (excluded: the position reads on there), or,
 * with done (the position leaves off for elsewhere), up to off plus the
 * reach; *mark becomes off.  An off below *mark (a rewind) only lowers
 * *mark.  Pages that another position of the same mapping still reads may
 * go too: that position maps them again from the file, and its own calls
 * give them back.  Pages go as soon as they are behind: a converter has
 * every rank's file open at once, and what each kept back would add up.
 */
static inline void vfd_forget(const void *base, size_t size, uint64_t *mark, uint64_t off,
                              int done)
{
    long sys = sysconf(_SC_PAGESIZE);
    uint64_t page, reach, lo, hi, end;

    if (!base || sys <= 0)
        return;
    if (off < *mark) {
        *mark = off;
        return;
    }
    page = (uint64_t)sys;
    reach = page * (page / 8);
    end = ((uint64_t)size + page - 1) & ~(page - 1);
    lo = (*mark > reach ? *mark - reach : 0) & ~(page - 1);
    hi = done ? (off + reach + page - 1) & ~(page - 1) : off & ~(page - 1);
    if (hi > end)
        hi = end;
    if (hi > lo)
        (void)madvise((uint8_t *)(uintptr_t)base + lo, (size_t)(hi - lo), MADV_DONTNEED);
    *mark = off;
}

#endif /* VFTR_VFD_INTERNAL_H */
