/*
 * fuzz_vfd.c — libFuzzer target for the .vfd reader (lib/vfd/reader.c).
 *
 * An input that starts with the .vfd magic is a whole file; any other input
 * is taken as the chunk stream of a file and gets a valid 4096-byte header
 * put in front of it, so that the fuzzer spends its time on chunks rather
 * than on header bytes.  Each file is read twice: as it is (which mostly
 * exercises the CRC checks, truncation and resynchronisation) and once more
 * after every "VFDC" chunk header in it had its length clamped and both its
 * CRCs recomputed (which lets mutated payloads reach the record decoders).
 * Each read walks all records, scans the definitions and looks every id up.
 * Any crash, hang, leak or sanitizer report is a bug; read errors are
 * expected.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vfd/vftr_vfd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR 4096u

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void read_all(const uint8_t *buf, size_t len)
{
    char err[VFTR_VFD_ERR_MAX];
    struct vftr_vfd_reader *r = vftr_vfd_reader_open_mem(buf, len, "fuzz.vfd", err, sizeof err);
    if (!r)
        return;
    (void)vftr_vfd_reader_scan_definitions(r);
    struct vftr_vfd_record rec;
    unsigned sink = 0;
    /* next() must end: every call either yields a record or moves on. */
    for (int rc, rounds = 0; rounds < 1000000; rounds++) {
        rc = vftr_vfd_reader_next(r, &rec);
        if (rc == 0)
            break;
        if (rc < 0) {
            const char *e = vftr_vfd_reader_error(r);
            sink += e ? (unsigned)strlen(e) : 0;
            continue;
        }
        if (rec.type == VFTR_VFD_REC_EVENT) {
            const char *name = vftr_vfd_reader_callpath_name(r, rec.u.event.id);
            sink += name ? (unsigned)strlen(name) : 0;
            if (rec.u.event.data && rec.u.event.id)
                sink += rec.u.event.data[rec.u.event.id - 1];
        } else if (rec.type == VFTR_VFD_REC_FUNCTION) {
            sink += (unsigned)strlen(rec.u.function.name);
        } else if (rec.type == VFTR_VFD_REC_THREAD) {
            sink += (unsigned)strlen(rec.u.thread.name);
        } else if (rec.type == VFTR_VFD_REC_UNKNOWN && rec.u.unknown.length) {
            sink += rec.u.unknown.payload[rec.u.unknown.length - 1];
        }
        const char *w = vftr_vfd_reader_warning(r);
        sink += w ? (unsigned)strlen(w) : 0;
    }
    for (size_t i = 0; i < vftr_vfd_reader_thread_count(r); i++)
        sink += (unsigned)strlen(vftr_vfd_reader_thread_at(r, i)->name);
    vftr_vfd_reader_close(r);
    if (sink == 0xdeadbeef)
        abort(); /* keeps the reads from being optimised away */
}

/* Clamps the length of every "VFDC" header to what is left and recomputes
 * its CRCs. */
static void repair(uint8_t *buf, size_t len)
{
    size_t off = HDR;
    while (off + VFTR_VFD_CHUNK_HEADER_SIZE <= len) {
        uint8_t *c = buf + off;
        if (memcmp(c, "VFDC", 4) != 0) {
            off++;
            continue;
        }
        size_t room = len - off - VFTR_VFD_CHUNK_HEADER_SIZE;
        uint32_t plen = get32(c + 12);
        if (plen > room)
            plen = (uint32_t)room;
        put32(c + 12, plen);
        put32(c + 20, vftr_vfd_crc32c(0, c + VFTR_VFD_CHUNK_HEADER_SIZE, plen));
        put32(c + 44, vftr_vfd_crc32c(0, c, 44));
        off += VFTR_VFD_CHUNK_HEADER_SIZE + plen;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int whole = size >= 8 && memcmp(data, "\x89VFD\r\n\x1a\n", 8) == 0;
    size_t len = whole ? size : HDR + size;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return 0;
    if (whole) {
        memcpy(buf, data, size);
    } else {
        memset(buf, 0, HDR);
        memcpy(buf, "\x89VFD\r\n\x1a\n", 8);
        put32(buf + 8, 1);
        put32(buf + 12, HDR);
        put32(buf + 56, 1000000);
        put32(buf + 20, vftr_vfd_crc32c(0, buf, HDR));
        if (size)
            memcpy(buf + HDR, data, size);
    }
    read_all(buf, len);
    repair(buf, len);
    read_all(buf, len);
    free(buf);
    return 0;
}
