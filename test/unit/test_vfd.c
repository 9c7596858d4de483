/*
 * test_vfd.c — Check suite for lib/vfd: the .vfd encoders, writer and reader.
 *
 * Expectations come from share/doc/vfd-format.md, not from the code: the
 * golden bytes below were worked out by hand from the byte tables there, the
 * CRCs are checked with a bit-at-a-time CRC-32C written here, and damaged
 * files are checked against the chunk boundaries the test itself laid out.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_scan.h"

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */

/* CRC-32C one bit at a time: the definition, independent of the tables. */
static uint32_t ref_crc(const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    }
    return ~c;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static char tmpdir[64];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_vfd.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static char *tmppath(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void base_info(struct vftr_vfd_info *in)
{
    memset(in, 0, sizeof *in);
    for (int i = 0; i < 16; i++)
        in->run_id[i] = (uint8_t)(0xa0 + i);
    in->pid = 4242;
    in->rank = -1;
    in->size = -1;
    in->ticks_per_second = 1000000; /* 1 tick = 1 us: easy seconds */
    in->start_ns = 1700000000123456789ull;
    in->start_ticks = 1000;
    snprintf(in->host, sizeof in->host, "node17");
    snprintf(in->exe, sizeof in->exe, "/usr/bin/app");
}

static int put(struct vftr_vfd_writer *w, const uint8_t *c, size_t n)
{
    return vftr_vfd_writer_put(w, c, n);
}

/* ---------------------------------------------------------------------- */
/* CRC and golden bytes                                                    */

START_TEST(crc32c_check_values)
{
    /* The check value of CRC-32C (RFC 3720, appendix B.4). */
    ck_assert_uint_eq(vftr_vfd_crc32c(0, "123456789", 9), 0xe3069283u);
    /* 32 bytes of zeros: RFC 3720's first test vector. */
    uint8_t z[32] = { 0 };
    ck_assert_uint_eq(vftr_vfd_crc32c(0, z, 32), 0x8a9136aau);
    /* Any split gives the same as one call; odd lengths and alignments. */
    uint8_t buf[301];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 37 + 11);
    for (size_t cut = 0; cut <= sizeof buf; cut += 13) {
        uint32_t c = vftr_vfd_crc32c(0, buf, cut);
        c = vftr_vfd_crc32c(c, buf + cut, sizeof buf - cut);
        ck_assert_uint_eq(c, ref_crc(buf, sizeof buf));
    }
    for (size_t off = 0; off < 9; off++)
        ck_assert_uint_eq(vftr_vfd_crc32c(0, buf + off, 100), ref_crc(buf + off, 100));
}
END_TEST

/*
 * Events worked out by hand from vfd-format.md (tag = id << 2 | code, code
 * 0 enter, 1 exit, 2 sample, 3 extended; then the time delta; extended
 * events add a length and the payload):
 *   t=1000 ENTER 1      tag 4          delta 0       -> 04 00
 *   t=1005 ENTER 2      tag 8          delta 5       -> 08 05
 *   t=1300 EXIT 2       tag 9          delta 295     -> 09 a7 02
 *   t=1301 EXIT 1       tag 5          delta 1       -> 05 01
 *   t=1301 SAMPLE 200   tag 802        delta 0       -> a2 06 00
 *   t=1250 PAUSE        tag 19 (4<<2|3) delta 0 (a step back counts as 0), len 0 -> 13 00 00
 *   t=1401 kind 16 "abc" tag 67        delta 100, len 3 -> 43 64 03 61 62 63
 */
static const uint8_t golden_payload[] = {
    0x04, 0x00, 0x08, 0x05, 0x09, 0xa7, 0x02, 0x05, 0x01, 0xa2, 0x06,
    0x00, 0x13, 0x00, 0x00, 0x43, 0x64, 0x03, 0x61, 0x62, 0x63,
};

static size_t golden_events(struct vftr_vfd_event *ev)
{
    const struct vftr_vfd_event e[] = {
        { 1000, VFTR_VFD_ENTER, 1 },  { 1005, VFTR_VFD_ENTER, 2 }, { 1300, VFTR_VFD_EXIT, 2 },
        { 1301, VFTR_VFD_EXIT, 1 },   { 1301, VFTR_VFD_SAMPLE, 200 },
        { 1250, VFTR_VFD_PAUSE, 0 },  { 1401, 16, 3 },             { 0, 0, 0 },
    };
    memcpy(ev, e, sizeof e);
    memcpy(&ev[7], "abc", 3); /* payload slot of the kind-16 event */
    return 8;
}

START_TEST(events_golden_bytes)
{
    struct vftr_vfd_event ev[8];
    size_t n = golden_events(ev);
    uint8_t out[256];
    size_t len = vftr_vfd_encode_events(ev, n, out, sizeof out, 3);

    ck_assert_uint_eq(len, 48 + sizeof golden_payload);
    const uint8_t head[] = {
        'V', 'F', 'D', 'C', 0x01, 0x00, 0x00, 0x00, /* magic, kind 1, flags 0 */
        0x03, 0x00, 0x00, 0x00,                     /* thread 3 */
        0x15, 0x00, 0x00, 0x00,                     /* payload 21 bytes */
        0x07, 0x00, 0x00, 0x00,                     /* 7 events */
    };
    ck_assert_mem_eq(out, head, sizeof head);
    const uint8_t times[] = {
        0xe8, 0x03, 0, 0, 0, 0, 0, 0, /* first 1000 */
        0x79, 0x05, 0, 0, 0, 0, 0, 0, /* last 1401 */
        0, 0, 0, 0,                   /* reserved */
    };
    ck_assert_mem_eq(out + 24, times, sizeof times);
    ck_assert_mem_eq(out + 48, golden_payload, sizeof golden_payload);
    ck_assert_uint_eq(le32(out + 20), ref_crc(golden_payload, sizeof golden_payload));
    ck_assert_uint_eq(le32(out + 44), ref_crc(out, 44));

    /* Too small a buffer: 0, whatever the shortfall. */
    for (size_t cap = 0; cap < len; cap += 7)
        ck_assert_uint_eq(vftr_vfd_encode_events(ev, n, out, cap, 3), 0);
    ck_assert_uint_le(len, vftr_vfd_encode_bound(n));
    /* Payload slots that run past the array are refused. */
    ck_assert_uint_eq(vftr_vfd_encode_events(ev, 7, out, sizeof out, 3), 0);
    /* Kind 0 is not an event. */
    struct vftr_vfd_event zero = { 5, 0, 1 };
    ck_assert_uint_eq(vftr_vfd_encode_events(&zero, 1, out, sizeof out, 0), 0);
}
END_TEST

/* Function definitions by hand: id 7, flags 1, address 0x401000, "main":
 * 07 01 80 a0 80 02 04 'm' 'a' 'i' 'n'   (0x401000 in 7-bit groups from the
 * low end: 0, 0x20, 0, 2) */
START_TEST(functions_golden_bytes)
{
    struct vftr_vfd_function f = { 7, VFTR_VFD_FUNC_REGION, 0x401000, "main" };
    uint8_t out[128];
    size_t len = vftr_vfd_encode_functions(&f, 1, out, sizeof out);
    const uint8_t payload[] = { 0x07, 0x01, 0x80, 0xa0, 0x80, 0x02, 0x04, 'm', 'a', 'i', 'n' };
    ck_assert_uint_eq(len, 48 + sizeof payload);
    ck_assert_uint_eq(out[4], 2);
    ck_assert_uint_eq(le32(out + 12), sizeof payload);
    ck_assert_uint_eq(le32(out + 16), 1);
    ck_assert_mem_eq(out + 48, payload, sizeof payload);
    ck_assert_uint_eq(le32(out + 20), ref_crc(payload, sizeof payload));
    ck_assert_uint_le(len, vftr_vfd_functions_bound(&f, 1));

    /* Call path 300, parent 0, function 7, thread 2: ac 02 00 07 02 */
    struct vftr_vfd_callpath c = { 300, 0, 7, 2 };
    len = vftr_vfd_encode_callpaths(&c, 1, out, sizeof out);
    const uint8_t cp[] = { 0xac, 0x02, 0x00, 0x07, 0x02 };
    ck_assert_uint_eq(len, 48 + sizeof cp);
    ck_assert_uint_eq(out[4], 3);
    ck_assert_mem_eq(out + 48, cp, sizeof cp);

    /* Thread 1, parent 0, tid 1234, created 5, "w": 01 00 d2 09 05 01 'w';
     * the main thread's parent 0xffffffff is ff ff ff ff 0f. */
    struct vftr_vfd_thread t[2] = { { 1, 0, 1234, 5, "w" }, { 0, VFTR_VFD_NO_THREAD, 1, 0, NULL } };
    len = vftr_vfd_encode_threads(t, 2, out, sizeof out);
    const uint8_t th[] = { 0x01, 0x00, 0xd2, 0x09, 0x05, 0x01, 'w',
                           0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x00, 0x00 };
    ck_assert_uint_eq(len, 48 + sizeof th);
    ck_assert_uint_eq(out[4], 4);
    ck_assert_mem_eq(out + 48, th, sizeof th);
    ck_assert_uint_le(len, vftr_vfd_threads_bound(t, 2));
}
END_TEST

/* ---------------------------------------------------------------------- */
/* A small file with every chunk kind, and where each chunk ends           */

struct layout {
    size_t n;
    uint64_t end[16];     /* file offset after chunk i */
    unsigned records[16]; /* records chunk i yields (an unknown chunk yields 1) */
};

/* A chunk of kind 99 made by hand (the reader must hand it over whole). */
static size_t unknown_chunk(uint8_t *out)
{
    memset(out, 0, 48);
    memcpy(out, "VFDC", 4);
    out[4] = 99;
    put32(out + 8, 5);
    put32(out + 12, 6);
    put32(out + 16, 2);
    memcpy(out + 48, "secret", 6);
    put32(out + 20, ref_crc(out + 48, 6));
    put32(out + 44, ref_crc(out, 44));
    return 54;
}

static void write_small(const char *path, struct layout *lay)
{
    struct vftr_vfd_info in;
    base_info(&in);
    struct vftr_vfd_writer *w = vftr_vfd_writer_open(path, &in);
    ck_assert_ptr_nonnull(w);
    uint8_t buf[1024];
    size_t len;
    memset(lay, 0, sizeof *lay);
#define ADD(expr, nrec)                                                    \
    do {                                                                   \
        len = (expr);                                                      \
        ck_assert_uint_gt(len, 0);                                         \
        ck_assert_int_eq(put(w, buf, len), 0);                             \
        lay->records[lay->n] = (nrec);                                     \
        lay->end[lay->n++] = vftr_vfd_writer_bytes(w);                     \
    } while (0)

    struct vftr_vfd_thread th[2] = { { 0, VFTR_VFD_NO_THREAD, 4242, 1000, "main" },
                                     { 1, 0, 4243, 1100, NULL } };
    ADD(vftr_vfd_encode_threads(th, 2, buf, sizeof buf), 2);
    struct vftr_vfd_function fn[3] = { { 1, 0, 0x1000, "main" }, { 2, 0, 0x1100, "fib" },
                                       { 3, VFTR_VFD_FUNC_REGION, 0, "solver region" } };
    ADD(vftr_vfd_encode_functions(fn, 3, buf, sizeof buf), 3);
    struct vftr_vfd_callpath cp[3] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 0, 3, 1 } };
    ADD(vftr_vfd_encode_callpaths(cp, 3, buf, sizeof buf), 3);
    struct vftr_vfd_event e0[4] = { { 1000, 1, 1 }, { 1010, 1, 2 }, { 1020, 2, 2 }, { 1500, 2, 1 } };
    ADD(vftr_vfd_encode_events(e0, 4, buf, sizeof buf, 0), 4);
    ADD(unknown_chunk(buf), 1);
    struct vftr_vfd_event e1[2] = { { 1200, 1, 3 }, { 1300, 2, 3 } };
    ADD(vftr_vfd_encode_events(e1, 2, buf, sizeof buf, 1), 2);
    struct vftr_vfd_event e2[3] = { { 2000, VFTR_VFD_PAUSE, 0 }, { 2100, VFTR_VFD_RESUME, 0 },
                                    { 2200, VFTR_VFD_SAMPLE, 2 } };
    ADD(vftr_vfd_encode_events(e2, 3, buf, sizeof buf, 0), 3);
#undef ADD
    in.end_ticks = 3000;
    in.end_ns = in.start_ns + 2000000;
    in.rank = 0;
    in.size = 1;
    ck_assert_int_eq(vftr_vfd_writer_close(w, &in), 0);
}

static unsigned count_records(struct vftr_vfd_reader *r, int *last)
{
    struct vftr_vfd_record rec;
    unsigned n = 0;
    int rc;
    while ((rc = vftr_vfd_reader_next(r, &rec)) > 0)
        n++;
    *last = rc;
    return n;
}

START_TEST(round_trip_every_kind)
{
    make_tmpdir();
    struct layout lay;
    write_small(tmppath("a.vfd"), &lay);
    struct vftr_vfd_reader *r = vftr_vfd_reader_open(tmppath("a.vfd"));
    ck_assert_ptr_nonnull(r);

    const struct vftr_vfd_info *in = vftr_vfd_reader_info(r);
    ck_assert_uint_eq(in->version, 1);
    ck_assert_int_eq(in->complete, 1);
    ck_assert_int_eq(in->abandoned, 0);
    ck_assert_int_eq(in->pid, 4242);
    ck_assert_int_eq(in->rank, 0);
    ck_assert_int_eq(in->size, 1);
    ck_assert_uint_eq(in->ticks_per_second, 1000000);
    ck_assert_uint_eq(in->start_ticks, 1000);
    ck_assert_uint_eq(in->end_ticks, 3000);
    ck_assert_uint_eq(in->start_ns, 1700000000123456789ull);
    ck_assert_uint_eq(in->events, 9);
    ck_assert_uint_eq(in->chunks, 7);
    ck_assert_uint_eq(in->bytes, lay.end[lay.n - 1]);
    ck_assert_str_eq(in->host, "node17");
    ck_assert_str_eq(in->exe, "/usr/bin/app");
    ck_assert_uint_eq(in->run_id[0], 0xa0);
    ck_assert_uint_eq(in->run_id[15], 0xaf);

    struct vftr_vfd_record rec;
    /* threads */
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_int_eq(rec.type, VFTR_VFD_REC_THREAD);
    ck_assert_uint_eq(rec.offset, 4096);
    ck_assert_uint_eq(rec.u.thread.id, 0);
    ck_assert_uint_eq(rec.u.thread.parent, VFTR_VFD_NO_THREAD);
    ck_assert_uint_eq(rec.u.thread.os_tid, 4242);
    ck_assert_str_eq(rec.u.thread.name, "main");
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_uint_eq(rec.u.thread.id, 1);
    ck_assert_uint_eq(rec.u.thread.created, 1100);
    ck_assert_str_eq(rec.u.thread.name, "");
    /* functions */
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_int_eq(rec.type, VFTR_VFD_REC_FUNCTION);
    ck_assert_uint_eq(rec.u.function.id, 1);
    ck_assert_uint_eq(rec.u.function.address, 0x1000);
    ck_assert_str_eq(rec.u.function.name, "main");
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_str_eq(rec.u.function.name, "fib");
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_uint_eq(rec.u.function.flags, VFTR_VFD_FUNC_REGION);
    ck_assert_str_eq(rec.u.function.name, "solver region");
    /* call paths */
    for (uint32_t id = 1; id <= 3; id++) {
        ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
        ck_assert_int_eq(rec.type, VFTR_VFD_REC_CALLPATH);
        ck_assert_uint_eq(rec.u.callpath.id, id);
    }
    ck_assert_uint_eq(rec.u.callpath.thread, 1);
    /* events of thread 0 */
    const uint64_t t0[4] = { 1000, 1010, 1020, 1500 };
    const uint32_t k0[4] = { 1, 1, 2, 2 }, i0[4] = { 1, 2, 2, 1 };
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
        ck_assert_int_eq(rec.type, VFTR_VFD_REC_EVENT);
        ck_assert_uint_eq(rec.thread, 0);
        ck_assert_uint_eq(rec.u.event.time, t0[i]);
        ck_assert_uint_eq(rec.u.event.kind, k0[i]);
        ck_assert_uint_eq(rec.u.event.id, i0[i]);
        ck_assert_ptr_null(rec.u.event.data);
    }
    /* the unknown chunk, whole */
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_int_eq(rec.type, VFTR_VFD_REC_UNKNOWN);
    ck_assert_uint_eq(rec.u.unknown.kind, 99);
    ck_assert_uint_eq(rec.u.unknown.length, 6);
    ck_assert_uint_eq(rec.u.unknown.count, 2);
    ck_assert_uint_eq(rec.thread, 5);
    ck_assert_mem_eq(rec.u.unknown.payload, "secret", 6);
    /* thread 1 */
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_uint_eq(rec.thread, 1);
    ck_assert_uint_eq(rec.u.event.time, 1200);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_uint_eq(rec.u.event.time, 1300);
    ck_assert_uint_eq(rec.u.event.kind, VFTR_VFD_EXIT);
    /* pause, resume, sample */
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_uint_eq(rec.u.event.kind, VFTR_VFD_PAUSE);
    ck_assert_uint_eq(rec.u.event.id, 0);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_uint_eq(rec.u.event.kind, VFTR_VFD_RESUME);
    ck_assert_uint_eq(rec.u.event.time, 2100);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_uint_eq(rec.u.event.kind, VFTR_VFD_SAMPLE);
    ck_assert_uint_eq(rec.u.event.id, 2);
    ck_assert_uint_eq(rec.u.event.time, 2200);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 0);
    ck_assert_ptr_null(vftr_vfd_reader_warning(r));
    ck_assert_uint_eq(vftr_vfd_reader_warnings(r), 0);

    /* lookups */
    ck_assert_str_eq(vftr_vfd_reader_callpath_name(r, 2), "fib");
    ck_assert_uint_eq(vftr_vfd_reader_callpath(r, 2)->parent, 1);
    ck_assert_ptr_null(vftr_vfd_reader_callpath(r, 4));
    ck_assert_ptr_null(vftr_vfd_reader_function(r, 0));
    ck_assert_uint_eq(vftr_vfd_reader_thread_count(r), 2);
    ck_assert_str_eq(vftr_vfd_reader_thread_at(r, 0)->name, "main");
    ck_assert_uint_eq(vftr_vfd_reader_thread_at(r, 1)->os_tid, 4243);
    ck_assert_ptr_null(vftr_vfd_reader_thread_at(r, 2));

    /* rewind: the same again, without new table entries */
    vftr_vfd_reader_rewind(r);
    int last;
    ck_assert_uint_eq(count_records(r, &last), 18);
    ck_assert_int_eq(last, 0);
    ck_assert_uint_eq(vftr_vfd_reader_thread_count(r), 2);
    vftr_vfd_reader_close(r);

    /* scan_definitions on a fresh reader fills the tables up front */
    r = vftr_vfd_reader_open(tmppath("a.vfd"));
    ck_assert_ptr_null(vftr_vfd_reader_callpath_name(r, 3));
    ck_assert_int_eq(vftr_vfd_reader_scan_definitions(r), 0);
    ck_assert_str_eq(vftr_vfd_reader_callpath_name(r, 3), "solver region");
    ck_assert_uint_eq(count_records(r, &last), 18); /* position unchanged */
    vftr_vfd_reader_close(r);
    remove_tmpdir();
}
END_TEST

/* The golden events as one chunk (thread 9) after a minimal valid header
 * built by hand (magic, version 1, size 4096, CRC); returns the chunk's
 * length. */
static size_t golden_file(uint8_t buf[4096 + 256])
{
    struct vftr_vfd_event ev[8];
    size_t n = golden_events(ev);
    memset(buf, 0, 4096);
    memcpy(buf, "\x89VFD\r\n\x1a\n", 8);
    put32(buf + 8, 1);
    put32(buf + 12, 4096);
    put32(buf + 20, ref_crc(buf, 4096));
    size_t len = vftr_vfd_encode_events(ev, n, buf + 4096, 256, 9);
    ck_assert_uint_gt(len, 0);
    return len;
}

START_TEST(extended_payload_round_trip)
{
    uint8_t buf[4096 + 256];
    size_t len = golden_file(buf);
    struct vftr_vfd_reader *r = vftr_vfd_reader_open_mem(buf, 4096 + len, "mem", NULL, 0);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(vftr_vfd_reader_info(r)->complete, 0);
    struct vftr_vfd_record rec;
    const uint64_t t[7] = { 1000, 1005, 1300, 1301, 1301, 1301, 1401 };
    const uint32_t k[7] = { 1, 1, 2, 2, 3, 4, 16 };
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
        ck_assert_uint_eq(rec.thread, 9);
        ck_assert_uint_eq(rec.u.event.time, t[i]);
        ck_assert_uint_eq(rec.u.event.kind, k[i]);
    }
    ck_assert_uint_eq(rec.u.event.id, 3);
    ck_assert_mem_eq(rec.u.event.data, "abc", 3);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 0);
    vftr_vfd_reader_close(r);
}
END_TEST


/* The golden events again, read as a whole chunk (reader_whole_events) and
 * decoded by lib/vfd's scanner: the inline record decoder gives every
 * record, the first pass's skim stops at the extended ones only. */
START_TEST(whole_events_and_skim)
{
    uint8_t buf[4096 + 256];
    size_t len = golden_file(buf);
    struct vftr_vfd_reader *r = vftr_vfd_reader_open_mem(buf, 4096 + len, "mem", NULL, 0);
    ck_assert_ptr_nonnull(r);
    vftr_vfd_reader_whole_events(r, 1);
    struct vftr_vfd_record rec;
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_int_eq(rec.type, VFTR_VFD_REC_UNKNOWN);
    ck_assert_uint_eq(rec.u.unknown.kind, VFTR_VFD_CHUNK_EVENTS);
    ck_assert_uint_eq(rec.u.unknown.count, 7);
    ck_assert_uint_eq(rec.u.unknown.time, 1000);
    ck_assert_uint_eq(rec.thread, 9);
    ck_assert_uint_eq(rec.offset, 4096);
    ck_assert_ptr_eq(rec.u.unknown.payload, buf + 4096 + VFTR_VFD_CHUNK_HEADER_SIZE);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 0);

    const uint64_t t[7] = { 1000, 1005, 1300, 1301, 1301, 1301, 1401 };
    const uint32_t k[7] = { 1, 1, 2, 2, 3, 4, 16 };
    struct vftr_vfd_scan_chunk ch;
    struct vftr_vfd_scan_event e;
    const uint8_t *pl = buf + 4096 + VFTR_VFD_CHUNK_HEADER_SIZE;
    size_t plen = len - VFTR_VFD_CHUNK_HEADER_SIZE;

    vftr_vfd_scan_payload(&ch, pl, plen, 7, 1000, 9);
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(vftr_vfd_scan_next(&ch, &e), 1);
        ck_assert_uint_eq(e.time, t[i]);
        ck_assert_uint_eq(e.kind, k[i]);
    }
    ck_assert_uint_eq(e.id, 3);
    ck_assert_mem_eq(e.data, "abc", 3);
    ck_assert_int_eq(vftr_vfd_scan_next(&ch, &e), 0);

    vftr_vfd_scan_payload(&ch, pl, plen, 7, 1000, 9);
    ck_assert_int_eq(vftr_vfd_scan_next_ext(&ch, &e), 1);
    ck_assert_uint_eq(e.kind, 4);
    ck_assert_uint_eq(e.time, 1301);
    ck_assert_uint_eq(e.id, 0);
    ck_assert_uint_eq(ch.left, 1);
    ck_assert_int_eq(vftr_vfd_scan_next_ext(&ch, &e), 1);
    ck_assert_uint_eq(e.kind, 16);
    ck_assert_uint_eq(e.time, 1401);
    ck_assert_uint_eq(e.id, 3);
    ck_assert_mem_eq(e.data, "abc", 3);
    ck_assert_int_eq(vftr_vfd_scan_next_ext(&ch, &e), 0);
    ck_assert_ptr_eq(ch.p, pl + plen);
    ck_assert_uint_eq(ch.time, 1401);
    ck_assert_uint_eq(ch.left, 0);
    vftr_vfd_reader_close(r);

    /* Enter 1 (+1), then an extended record of kind 2 (below PAUSE): the
     * skim stops at it, having passed one record */
    const uint8_t bad[] = { 0x04, 0x01, 0x0b, 0x00, 0x04, 0x01 };
    vftr_vfd_scan_payload(&ch, bad, sizeof bad, 3, 50, 0);
    ck_assert_int_eq(vftr_vfd_scan_next_ext(&ch, &e), -EBADMSG);
    ck_assert_uint_eq(ch.left, 2);
    ck_assert_ptr_eq(ch.p, bad + 2);
    ck_assert_uint_eq(ch.time, 51);
    /* a delta cut inside its varint */
    const uint8_t cut[] = { 0x04, 0x81 };
    vftr_vfd_scan_payload(&ch, cut, sizeof cut, 1, 50, 0);
    ck_assert_int_eq(vftr_vfd_scan_next_ext(&ch, &e), -EBADMSG);
    ck_assert_uint_eq(ch.left, 1);
    ck_assert_ptr_eq(ch.p, cut);
    vftr_vfd_scan_payload(&ch, cut, sizeof cut, 1, 50, 0);
    ck_assert_int_eq(vftr_vfd_scan_next(&ch, &e), -EBADMSG);
    /* multi-byte tag (call path 100) and delta (300) */
    const uint8_t wide[] = { 0x90, 0x03, 0xac, 0x02 };
    vftr_vfd_scan_payload(&ch, wide, sizeof wide, 1, 50, 0);
    ck_assert_int_eq(vftr_vfd_scan_next(&ch, &e), 1);
    ck_assert_uint_eq(e.kind, VFTR_VFD_ENTER);
    ck_assert_uint_eq(e.id, 100);
    ck_assert_uint_eq(e.time, 350);
    vftr_vfd_scan_payload(&ch, wide, sizeof wide, 1, 50, 0);
    ck_assert_int_eq(vftr_vfd_scan_next_ext(&ch, &e), 0);
    ck_assert_uint_eq(ch.time, 350);
    ck_assert_ptr_eq(ch.p, wide + 4);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Compactness                                                             */

struct fibgen {
    struct vftr_vfd_event *ev;
    size_t n, cap;
    uint64_t t, seed;
};

static void fib_emit(struct fibgen *g, uint32_t kind, uint32_t id)
{
    /* 5 to 60 ticks between events: a few ns per event at a GHz clock. */
    g->seed = g->seed * 6364136223846793005ull + 1442695040888963407ull;
    g->t += 5 + (g->seed >> 33) % 56;
    ck_assert_uint_lt(g->n, g->cap);
    g->ev[g->n++] = (struct vftr_vfd_event){ g->t, kind, id };
}

/* fib's call path at depth d has id d + 2 (id 1 is main). */
static void fib(struct fibgen *g, int k, uint32_t depth)
{
    fib_emit(g, VFTR_VFD_ENTER, depth + 2);
    if (k > 1) {
        fib(g, k - 1, depth + 1);
        fib(g, k - 2, depth + 1);
    }
    fib_emit(g, VFTR_VFD_EXIT, depth + 2);
}

START_TEST(bytes_per_event_on_fib)
{
    struct fibgen g = { NULL, 0, 1 << 16, 1000, 42 };
    g.ev = malloc(g.cap * sizeof *g.ev);
    ck_assert_ptr_nonnull(g.ev);
    fib(&g, 20, 0); /* 21891 calls, 43782 events */
    ck_assert_uint_eq(g.n, 43782);
    size_t cap = vftr_vfd_encode_bound(g.n);
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    size_t len = vftr_vfd_encode_events(g.ev, g.n, out, cap, 0);
    ck_assert_uint_gt(len, 0);
    double per_event = (double)len / (double)g.n;
    fprintf(stderr, "fib(20): %zu events in %zu bytes: %.2f bytes per event\n", g.n, len,
            per_event);
    /* Each event is a 1-byte tag (ids < 32) and a 1-byte delta (< 128 ticks):
     * exactly 2 bytes per event plus the 48-byte chunk header. */
    ck_assert_uint_eq(len, 48 + 2 * g.n);
    ck_assert(per_event <= 8.0);
    free(out);
    free(g.ev);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Damage                                                                  */

/* Cutting the small file at every byte: never a crash or an error, every
 * whole chunk's records come back, and a cut inside a chunk is a warning
 * that names the chunk's offset. */
START_TEST(truncated_at_every_offset)
{
    make_tmpdir();
    struct layout lay;
    write_small(tmppath("t.vfd"), &lay);
    size_t size;
    uint8_t *full = slurp(tmppath("t.vfd"), &size);
    ck_assert_uint_eq(size, lay.end[lay.n - 1]);

    for (size_t cut = 0; cut <= size; cut++) {
        /* A buffer of exactly cut bytes, so ASan sees any overread. */
        uint8_t *buf = malloc(cut ? cut : 1);
        memcpy(buf, full, cut);
        char err[VFTR_VFD_ERR_MAX] = "";
        struct vftr_vfd_reader *r = vftr_vfd_reader_open_mem(buf, cut, "t.vfd", err, sizeof err);
        if (cut < 4096) {
            ck_assert_ptr_null(r);
            ck_assert_int_eq(errno, EBADMSG);
            ck_assert_msg(strstr(err, "t.vfd: offset ") == err, "%s", err);
            ck_assert_msg(strstr(err, "truncated header"), "cut %zu: %s", cut, err);
            free(buf);
            continue;
        }
        ck_assert_ptr_nonnull(r);
        unsigned expect = 0;
        uint64_t start = 4096, cut_chunk = 0;
        int on_boundary = cut == 4096;
        for (size_t i = 0; i < lay.n; i++) {
            if (lay.end[i] <= cut)
                expect += lay.records[i];
            else if (start < cut)
                cut_chunk = start;
            on_boundary |= lay.end[i] == cut;
            start = lay.end[i];
        }
        unsigned got = 0;
        struct vftr_vfd_record rec;
        int rc;
        const char *warning = NULL;
        while ((rc = vftr_vfd_reader_next(r, &rec)) > 0) {
            got++;
            ck_assert_ptr_null(vftr_vfd_reader_warning(r));
        }
        warning = vftr_vfd_reader_warning(r);
        ck_assert_int_eq(rc, 0);
        ck_assert_uint_eq(got, expect);
        if (on_boundary) {
            ck_assert_ptr_null(warning);
        } else {
            char want[64];
            snprintf(want, sizeof want, "t.vfd: offset %llu: truncated",
                     (unsigned long long)cut_chunk);
            ck_assert_ptr_nonnull(warning);
            ck_assert_msg(strstr(warning, want) == warning, "cut %zu: %s", cut, warning);
        }
        vftr_vfd_reader_close(r);
        free(buf);
    }
    /* The cut inside the first events chunk's payload names thread 0's end:
     * tick 1000, 0 s after the start (start_ticks 1000). */
    size_t cut = lay.end[2] + 50;
    struct vftr_vfd_reader *r = vftr_vfd_reader_open_mem(full, cut, "t.vfd", NULL, 0);
    int last;
    ck_assert_uint_eq(count_records(r, &last), 8);
    char want[200];
    snprintf(want, sizeof want,
             "t.vfd: offset %llu: truncated chunk (expected 9 bytes of payload, found 2): "
             "the data of thread 0 ends at tick 1000 (0.000000 s after the start)",
             (unsigned long long)lay.end[2]);
    ck_assert_str_eq(vftr_vfd_reader_warning(r), want);
    vftr_vfd_reader_close(r);
    free(full);
    remove_tmpdir();
}
END_TEST

/* Opens a damaged copy of the small file and reads it through. */
static struct vftr_vfd_reader *open_damaged(uint8_t *buf, size_t size, unsigned *got, int *last,
                                            char *warn, size_t warnlen)
{
    struct vftr_vfd_reader *r = vftr_vfd_reader_open_mem(buf, size, "d.vfd", NULL, 0);
    ck_assert_ptr_nonnull(r);
    struct vftr_vfd_record rec;
    int rc;
    *got = 0;
    warn[0] = '\0';
    while ((rc = vftr_vfd_reader_next(r, &rec)) != 0) {
        if (rc > 0)
            (*got)++;
        if (vftr_vfd_reader_warning(r) && !warn[0])
            snprintf(warn, warnlen, "%s", vftr_vfd_reader_warning(r));
        if (rc < 0) {
            *last = rc;
            return r;
        }
    }
    *last = 0;
    return r;
}

START_TEST(corrupt_chunks_are_skipped)
{
    make_tmpdir();
    struct layout lay;
    write_small(tmppath("c.vfd"), &lay);
    size_t size;
    uint8_t *full = slurp(tmppath("c.vfd"), &size);
    uint8_t *buf = malloc(size);
    unsigned got;
    int last;
    char warn[VFTR_VFD_ERR_MAX], want[200];
    struct vftr_vfd_reader *r;
    const unsigned total = 18;
    /* chunk 3 (the first events chunk, 4 records) starts at lay.end[2] */
    uint64_t c3 = lay.end[2];

    /* 1. a flipped payload byte */
    memcpy(buf, full, size);
    buf[c3 + 48 + 1] ^= 0x40;
    r = open_damaged(buf, size, &got, &last, warn, sizeof warn);
    ck_assert_int_eq(last, 0);
    ck_assert_uint_eq(got, total - 4);
    snprintf(want, sizeof want, "d.vfd: offset %llu: chunk payload CRC mismatch",
             (unsigned long long)c3);
    ck_assert_msg(strstr(warn, want) == warn, "%s", warn);
    snprintf(want, sizeof want, "skipped %llu bytes to the next chunk at offset %llu",
             (unsigned long long)(lay.end[3] - c3), (unsigned long long)lay.end[3]);
    ck_assert_msg(strstr(warn, want), "%s", warn);
    vftr_vfd_reader_close(r);

    /* 2. a broken magic */
    memcpy(buf, full, size);
    buf[c3] = 'X';
    r = open_damaged(buf, size, &got, &last, warn, sizeof warn);
    ck_assert_int_eq(last, 0);
    ck_assert_uint_eq(got, total - 4);
    ck_assert_msg(strstr(warn, "bad chunk magic (expected \"VFDC\")"), "%s", warn);
    vftr_vfd_reader_close(r);

    /* 3. a changed length: the header CRC catches it */
    memcpy(buf, full, size);
    put32(buf + c3 + 12, 100000);
    r = open_damaged(buf, size, &got, &last, warn, sizeof warn);
    ck_assert_uint_eq(got, total - 4);
    ck_assert_msg(strstr(warn, "chunk header CRC mismatch"), "%s", warn);
    vftr_vfd_reader_close(r);

    /* 4. an absurd length with a header CRC that matches */
    memcpy(buf, full, size);
    put32(buf + c3 + 12, 0xfffffff0u);
    put32(buf + c3 + 44, ref_crc(buf + c3, 44));
    r = open_damaged(buf, size, &got, &last, warn, sizeof warn);
    ck_assert_uint_eq(got, total - 4);
    ck_assert_msg(strstr(warn, "absurd chunk payload length 4294967280"), "%s", warn);
    vftr_vfd_reader_close(r);

    /* 5. a hole of zeros where a killed thread's put never landed */
    memcpy(buf, full, size);
    memset(buf + c3, 0, lay.end[3] - c3);
    r = open_damaged(buf, size, &got, &last, warn, sizeof warn);
    ck_assert_int_eq(last, 0);
    ck_assert_uint_eq(got, total - 4);
    vftr_vfd_reader_close(r);

    /* 6. garbage to the end: an error, after every record before it */
    memcpy(buf, full, size);
    memset(buf + c3, 0x55, size - c3);
    r = open_damaged(buf, size, &got, &last, warn, sizeof warn);
    ck_assert_int_eq(last, -EBADMSG);
    ck_assert_uint_eq(got, 8);
    snprintf(want, sizeof want, "d.vfd: offset %llu: bad chunk magic", (unsigned long long)c3);
    ck_assert_msg(strstr(vftr_vfd_reader_error(r), want) == vftr_vfd_reader_error(r), "%s",
                  vftr_vfd_reader_error(r));
    ck_assert_msg(strstr(vftr_vfd_reader_error(r), "no valid chunk follows"), "%s",
                  vftr_vfd_reader_error(r));
    /* and after the error the reader stays at the end */
    struct vftr_vfd_record rec;
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 0);
    vftr_vfd_reader_close(r);

    /* 7. a chunk whose CRCs hold but whose payload does not decode (a
     * writer bug): an error naming the record, then reading goes on */
    memcpy(buf, full, size);
    put32(buf + c3 + 16, 5); /* 5 events announced, 4 present */
    put32(buf + c3 + 44, ref_crc(buf + c3, 44));
    r = open_damaged(buf, size, &got, &last, warn, sizeof warn);
    ck_assert_int_eq(last, -EBADMSG);
    ck_assert_uint_eq(got, 8 + 4);
    ck_assert_msg(strstr(vftr_vfd_reader_error(r), "payload ends after 4 of 5 records"), "%s",
                  vftr_vfd_reader_error(r));
    unsigned rest = 0;
    while (vftr_vfd_reader_next(r, &rec) > 0)
        rest++;
    ck_assert_uint_eq(rest, total - 8 - 4);
    vftr_vfd_reader_close(r);

    /* 8. the file header: CRC, newer version, not a vfd */
    char err[VFTR_VFD_ERR_MAX];
    memcpy(buf, full, size);
    buf[300] ^= 1;
    ck_assert_ptr_null(vftr_vfd_reader_open_mem(buf, size, "d.vfd", err, sizeof err));
    ck_assert_int_eq(errno, EBADMSG);
    ck_assert_msg(strstr(err, "d.vfd: offset 20: header CRC mismatch") == err, "%s", err);
    memcpy(buf, full, size);
    put32(buf + 8, 2);
    put32(buf + 20, 0);
    put32(buf + 20, ref_crc(buf, 4096));
    ck_assert_ptr_null(vftr_vfd_reader_open_mem(buf, size, "d.vfd", err, sizeof err));
    ck_assert_int_eq(errno, EPROTONOSUPPORT);
    ck_assert_str_eq(err, "d.vfd: offset 8: format version 2 is newer than this reader's (1): "
                          "update vftr");
    memcpy(buf, full, size);
    buf[1] = 'W';
    ck_assert_ptr_null(vftr_vfd_reader_open_mem(buf, size, "d.vfd", err, sizeof err));
    ck_assert_msg(strstr(err, "d.vfd: offset 0: not a .vfd file") == err, "%s", err);

    free(buf);
    free(full);
    remove_tmpdir();
}
END_TEST

/* Payload bytes that spell the chunk magic are not taken for a chunk: the
 * search after a damaged header steps over them to the real next chunk, in
 * one step and with one warning. */
START_TEST(resync_ignores_magic_in_payload)
{
    static uint8_t buf[4096 + 512];
    memset(buf, 0, 4096);
    memcpy(buf, "\x89VFD\r\n\x1a\n", 8);
    put32(buf + 8, 1);
    put32(buf + 12, 4096);
    put32(buf + 20, ref_crc(buf, 4096));
    struct vftr_vfd_function f = { 1, 0, 0x10, "VFDC VFDC this name spells the chunk magic VFDC" };
    size_t a = vftr_vfd_encode_functions(&f, 1, buf + 4096, 256);
    struct vftr_vfd_callpath c[2] = { { 1, 0, 1, 0 }, { 2, 1, 1, 0 } };
    size_t b = vftr_vfd_encode_callpaths(c, 2, buf + 4096 + a, 256);
    ck_assert_uint_gt(a, 0);
    ck_assert_uint_gt(b, 0);
    buf[4096] = 'v'; /* the functions chunk loses its magic */
    struct vftr_vfd_reader *r = vftr_vfd_reader_open_mem(buf, 4096 + a + b, "m.vfd", NULL, 0);
    ck_assert_ptr_nonnull(r);
    struct vftr_vfd_record rec;
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_int_eq(rec.type, VFTR_VFD_REC_CALLPATH);
    ck_assert_uint_eq(rec.offset, 4096 + a);
    char want[128];
    snprintf(want, sizeof want,
             "m.vfd: offset 4096: bad chunk magic (expected \"VFDC\"); skipped %zu bytes to "
             "the next chunk at offset %zu", a, 4096 + a);
    ck_assert_str_eq(vftr_vfd_reader_warning(r), want);
    ck_assert_uint_eq(vftr_vfd_reader_warnings(r), 1);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 1);
    ck_assert_int_eq(vftr_vfd_reader_next(r, &rec), 0);
    ck_assert_uint_eq(vftr_vfd_reader_warnings(r), 1);
    vftr_vfd_reader_close(r);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Writer                                                                  */

START_TEST(open_never_overwrites)
{
    make_tmpdir();
    struct vftr_vfd_info in;
    base_info(&in);
    struct vftr_vfd_writer *w = vftr_vfd_writer_open(tmppath("x.tmpvfd"), &in);
    ck_assert_ptr_nonnull(w);
    errno = 0;
    ck_assert_ptr_null(vftr_vfd_writer_open(tmppath("x.tmpvfd"), &in));
    ck_assert_int_eq(errno, EEXIST);
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);
    errno = 0;
    ck_assert_ptr_null(vftr_vfd_writer_open(tmppath("x.tmpvfd"), &in));
    ck_assert_int_eq(errno, EEXIST);
    ck_assert_ptr_null(vftr_vfd_writer_open(tmppath("no/such/dir.vfd"), &in));
    ck_assert_int_eq(errno, ENOENT);
    /* put refuses what is not an encoded chunk */
    w = vftr_vfd_writer_open(tmppath("y.tmpvfd"), &in);
    uint8_t junk[64] = { 0 };
    ck_assert_int_eq(vftr_vfd_writer_put(w, junk, sizeof junk), -EINVAL);
    ck_assert_int_eq(vftr_vfd_writer_put(w, junk, 0), 0);
    ck_assert_uint_eq(vftr_vfd_writer_bytes(w), 4096);
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);
    ck_assert_int_eq(vftr_vfd_writer_close(NULL, NULL), 0);
    remove_tmpdir();
}
END_TEST

START_TEST(header_fields_and_states)
{
    make_tmpdir();
    struct vftr_vfd_info in;
    base_info(&in);
    memset(in.host, 'h', sizeof in.host); /* no NUL: cut to 255 */
    struct vftr_vfd_writer *w = vftr_vfd_writer_open(tmppath("h.tmpvfd"), &in);
    ck_assert_ptr_nonnull(w);
    struct vftr_vfd_event e[2] = { { 5000, 1, 1 }, { 5001, 2, 1 } };
    uint8_t buf[256];
    size_t len = vftr_vfd_encode_events(e, 2, buf, sizeof buf, 0);
    ck_assert_int_eq(put(w, buf, len), 0);

    /* Before close: complete 0, counts 0 (the header of open). */
    struct vftr_vfd_reader *r = vftr_vfd_reader_open(tmppath("h.tmpvfd"));
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(vftr_vfd_reader_info(r)->complete, 0);
    ck_assert_uint_eq(vftr_vfd_reader_info(r)->events, 0);
    ck_assert_uint_eq(strlen(vftr_vfd_reader_info(r)->host), 255);
    int last;
    ck_assert_uint_eq(count_records(r, &last), 2);
    vftr_vfd_reader_close(r);

    /* abandon: counts so far, abandoned 1, complete 0, signal kept */
    in.signal = SIGSEGV;
    in.end_ticks = 6000;
    vftr_vfd_writer_update(w, &in);
    ck_assert_int_eq(vftr_vfd_writer_abandon(w), 0);
    r = vftr_vfd_reader_open(tmppath("h.tmpvfd"));
    const struct vftr_vfd_info *got = vftr_vfd_reader_info(r);
    ck_assert_int_eq(got->complete, 0);
    ck_assert_int_eq(got->abandoned, 1);
    ck_assert_int_eq(got->signal, SIGSEGV);
    ck_assert_uint_eq(got->events, 2);
    ck_assert_uint_eq(got->chunks, 1);
    ck_assert_uint_eq(got->bytes, 4096 + len);
    ck_assert_uint_eq(got->end_ticks, 6000);
    vftr_vfd_reader_close(r);

    /* close with final info */
    in.signal = 0;
    in.capped = 1;
    in.events_lost = 77;
    in.rank = 3;
    in.size = 8;
    ck_assert_int_eq(vftr_vfd_writer_close(w, &in), 0);
    r = vftr_vfd_reader_open(tmppath("h.tmpvfd"));
    got = vftr_vfd_reader_info(r);
    ck_assert_int_eq(got->complete, 1);
    ck_assert_int_eq(got->abandoned, 0);
    ck_assert_int_eq(got->capped, 1);
    ck_assert_uint_eq(got->events_lost, 77);
    ck_assert_int_eq(got->rank, 3);
    ck_assert_int_eq(got->size, 8);
    vftr_vfd_reader_close(r);
    remove_tmpdir();
}
END_TEST

/* A process killed without closing: the header of open, every chunk put. */
START_TEST(killed_writer_leaves_readable_file)
{
    make_tmpdir();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct vftr_vfd_info in;
        base_info(&in);
        struct vftr_vfd_writer *w = vftr_vfd_writer_open(tmppath("k.tmpvfd"), &in);
        if (!w)
            _exit(1);
        for (uint32_t i = 0; i < 10; i++) {
            struct vftr_vfd_event e[2] = { { 100 * i, 1, i + 1 }, { 100 * i + 50, 2, i + 1 } };
            uint8_t buf[128];
            size_t len = vftr_vfd_encode_events(e, 2, buf, sizeof buf, 0);
            if (vftr_vfd_writer_put(w, buf, len))
                _exit(2);
        }
        raise(SIGKILL);
        _exit(3);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    struct vftr_vfd_reader *r = vftr_vfd_reader_open(tmppath("k.tmpvfd"));
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(vftr_vfd_reader_info(r)->complete, 0);
    ck_assert_int_eq(vftr_vfd_reader_info(r)->pid, 4242);
    int last;
    ck_assert_uint_eq(count_records(r, &last), 20);
    ck_assert_int_eq(last, 0);
    ck_assert_ptr_null(vftr_vfd_reader_warning(r));
    vftr_vfd_reader_close(r);
    remove_tmpdir();
}
END_TEST

#define PUT_THREADS 8
#define PUT_CHUNKS 300

struct putter {
    struct vftr_vfd_writer *w;
    uint32_t thread;
    int rc;
};

/* Thread t puts PUT_CHUNKS chunks; chunk j holds j % 7 + 1 events with times
 * t * 1e9 + j * 1000 + i, ids j. */
static void *putter_main(void *arg)
{
    struct putter *p = arg;
    uint8_t buf[512];
    for (uint32_t j = 0; j < PUT_CHUNKS; j++) {
        struct vftr_vfd_event e[8];
        uint32_t n = j % 7 + 1;
        for (uint32_t i = 0; i < n; i++)
            e[i] = (struct vftr_vfd_event){ p->thread * 1000000000ull + j * 1000ull + i,
                                            i % 2 ? VFTR_VFD_EXIT : VFTR_VFD_ENTER, j };
        size_t len = vftr_vfd_encode_events(e, n, buf, sizeof buf, p->thread);
        int rc = vftr_vfd_writer_put(p->w, buf, len);
        if (rc) {
            p->rc = rc;
            return NULL;
        }
    }
    return NULL;
}

START_TEST(concurrent_puts)
{
    make_tmpdir();
    struct vftr_vfd_info in;
    base_info(&in);
    struct vftr_vfd_writer *w = vftr_vfd_writer_open(tmppath("p.vfd"), &in);
    ck_assert_ptr_nonnull(w);
    pthread_t tid[PUT_THREADS];
    struct putter p[PUT_THREADS];
    for (uint32_t t = 0; t < PUT_THREADS; t++) {
        p[t] = (struct putter){ w, t, 0 };
        ck_assert_int_eq(pthread_create(&tid[t], NULL, putter_main, &p[t]), 0);
    }
    for (uint32_t t = 0; t < PUT_THREADS; t++) {
        ck_assert_int_eq(pthread_join(tid[t], NULL), 0);
        ck_assert_int_eq(p[t].rc, 0);
    }
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);

    struct vftr_vfd_reader *r = vftr_vfd_reader_open(tmppath("p.vfd"));
    ck_assert_ptr_nonnull(r);
    uint32_t next_chunk[PUT_THREADS] = { 0 }, next_event[PUT_THREADS] = { 0 };
    uint64_t events = 0;
    struct vftr_vfd_record rec;
    int rc;
    while ((rc = vftr_vfd_reader_next(r, &rec)) > 0) {
        ck_assert_int_eq(rec.type, VFTR_VFD_REC_EVENT);
        uint32_t t = rec.thread;
        ck_assert_uint_lt(t, PUT_THREADS);
        /* a thread's chunks appear in the order it put them, whole */
        uint32_t j = next_chunk[t], i = next_event[t];
        ck_assert_uint_eq(rec.u.event.time, t * 1000000000ull + j * 1000ull + i);
        ck_assert_uint_eq(rec.u.event.id, j);
        if (++next_event[t] == j % 7 + 1) {
            next_event[t] = 0;
            next_chunk[t]++;
        }
        events++;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_null(vftr_vfd_reader_warning(r));
    for (uint32_t t = 0; t < PUT_THREADS; t++)
        ck_assert_uint_eq(next_chunk[t], PUT_CHUNKS);
    ck_assert_uint_eq(vftr_vfd_reader_info(r)->events, events);
    ck_assert_uint_eq(vftr_vfd_reader_info(r)->chunks, PUT_THREADS * PUT_CHUNKS);
    vftr_vfd_reader_close(r);
    remove_tmpdir();
}
END_TEST

/* A file-size limit in a child: the put that crosses it fails with EFBIG,
 * the header is still rewritten, the part of the failed chunk that was
 * written is cut off again, and the file reads up to the last chunk that
 * was whole. */
START_TEST(full_disk_is_reported)
{
    make_tmpdir();
    enum { CHUNKS_FIT = 5 };
    struct vftr_vfd_event e[10];
    for (int i = 0; i < 10; i++)
        e[i] = (struct vftr_vfd_event){ 1000 + 10 * (uint64_t)i, i % 2 ? 2 : 1, 1 };
    uint8_t chunk[512];
    size_t len = vftr_vfd_encode_events(e, 10, chunk, sizeof chunk, 0);
    ck_assert_uint_gt(len, 0);
    rlim_t limit = 4096 + CHUNKS_FIT * len + len / 2;

    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { limit, limit };
        if (setrlimit(RLIMIT_FSIZE, &rl))
            _exit(10);
        struct vftr_vfd_info in;
        base_info(&in);
        struct vftr_vfd_writer *w = vftr_vfd_writer_open(tmppath("f.tmpvfd"), &in);
        if (!w)
            _exit(11);
        int rc = 0, i;
        for (i = 0; i < 100 && rc == 0; i++)
            rc = vftr_vfd_writer_put(w, chunk, len);
        if (rc != -EFBIG || i != CHUNKS_FIT + 1)
            _exit(12);
        /* later puts fail too, close reports the first failure */
        if (vftr_vfd_writer_put(w, chunk, len) != -EFBIG)
            _exit(13);
        if (vftr_vfd_writer_close(w, &in) != -EFBIG)
            _exit(14);
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);

    struct vftr_vfd_reader *r = vftr_vfd_reader_open(tmppath("f.tmpvfd"));
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(vftr_vfd_reader_info(r)->complete, 1);
    ck_assert_uint_eq(vftr_vfd_reader_info(r)->events, CHUNKS_FIT * 10);
    int last;
    ck_assert_uint_eq(count_records(r, &last), CHUNKS_FIT * 10);
    ck_assert_int_eq(last, 0);
    /* the cut chunk was given back: the file ends with the last whole
     * chunk, and the reader has nothing to warn about */
    ck_assert_msg(vftr_vfd_reader_warnings(r) == 0, "%s", vftr_vfd_reader_warning(r));
    vftr_vfd_reader_close(r);
    struct stat st;
    ck_assert_int_eq(stat(tmppath("f.tmpvfd"), &st), 0);
    ck_assert_uint_eq((uint64_t)st.st_size, 4096 + CHUNKS_FIT * len);
    remove_tmpdir();
}
END_TEST

START_TEST(reader_open_errors)
{
    make_tmpdir();
    char err[VFTR_VFD_ERR_MAX];
    ck_assert_ptr_null(vftr_vfd_reader_open_msg(tmppath("none.vfd"), err, sizeof err));
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_msg(strstr(err, "none.vfd: cannot open (No such file or directory)"), "%s", err);
    ck_assert_ptr_null(vftr_vfd_reader_open_msg(tmpdir, err, sizeof err));
    ck_assert_int_eq(errno, EISDIR);
    ck_assert_msg(strstr(err, ": is a directory, expected a .vfd file (a regular file)"), "%s",
                  err);
    /* a FIFO is refused without waiting for a writer (the test would hang) */
    ck_assert_int_eq(mkfifo(tmppath("fifo.vfd"), 0600), 0);
    ck_assert_ptr_null(vftr_vfd_reader_open_msg(tmppath("fifo.vfd"), err, sizeof err));
    ck_assert_int_eq(errno, ENODEV);
    ck_assert_msg(strstr(err, "fifo.vfd: is a FIFO, expected a .vfd file (a regular file)"), "%s",
                  err);
    ck_assert_ptr_null(vftr_vfd_reader_open("/dev/null"));
    ck_assert_int_eq(errno, ENODEV);
    unlink(tmppath("fifo.vfd"));
    int fd = open(tmppath("empty.vfd"), O_WRONLY | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_ptr_null(vftr_vfd_reader_open_msg(tmppath("empty.vfd"), err, sizeof err));
    ck_assert_int_eq(errno, EBADMSG);
    ck_assert_msg(strstr(err, "empty.vfd: offset 0: truncated header (expected 4096 bytes, "
                              "found 0)"), "%s", err);
    vftr_vfd_reader_close(NULL);
    remove_tmpdir();
}
END_TEST

static Suite *vfd_suite(void)
{
    Suite *s = suite_create("vfd");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, crc32c_check_values);
    tcase_add_test(tc, events_golden_bytes);
    tcase_add_test(tc, functions_golden_bytes);
    tcase_add_test(tc, round_trip_every_kind);
    tcase_add_test(tc, extended_payload_round_trip);
    tcase_add_test(tc, whole_events_and_skim);
    tcase_add_test(tc, bytes_per_event_on_fib);
    suite_add_tcase(s, tc);

    TCase *dmg = tcase_create("damage");
    tcase_set_timeout(dmg, 60);
    tcase_add_test(dmg, truncated_at_every_offset);
    tcase_add_test(dmg, corrupt_chunks_are_skipped);
    tcase_add_test(dmg, resync_ignores_magic_in_payload);
    tcase_add_test(dmg, reader_open_errors);
    suite_add_tcase(s, dmg);

    TCase *wr = tcase_create("writer");
    tcase_set_timeout(wr, 60);
    tcase_add_test(wr, open_never_overwrites);
    tcase_add_test(wr, header_fields_and_states);
    tcase_add_test(wr, killed_writer_leaves_readable_file);
    tcase_add_test(wr, concurrent_puts);
    tcase_add_test(wr, full_disk_is_reported);
    suite_add_tcase(s, wr);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(vfd_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
