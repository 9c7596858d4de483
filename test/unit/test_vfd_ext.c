/*
 * test_vfd_ext.c — Check suite for the MPI and OpenMP records of the .vfd
 * format (lib/vfd/vftr_vfd_ext.h), written independently of lib/vfd/ext.c:
 * the golden bytes were worked out by hand from the tables in
 * share/doc/vfd-format.md ("MPI and OpenMP records"): every field a LEB128
 * varint, signed ones zigzag-coded, start times stored backwards from the
 * event's time.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

#define CK_BYTES(got, n, ...) do {                                              \
        static const uint8_t want_[] = { __VA_ARGS__ };                         \
        ck_assert_uint_eq((n), sizeof want_);                                   \
        ck_assert_mem_eq((got), want_, sizeof want_);                           \
    } while (0)

/* --------------------------------------------------------------- events */

/* The document's own example: a blocking send of 800 bytes to rank 3, tag
 * 7, world communicator, begun 20 ticks before it completed. */
START_TEST(msg_golden)
{
    struct vftr_vfd_mpi_msg m = { 3, 7, 800, 0, 980, 0 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_mpi_msg_encode(&m, 1000, out);

    /* peer 3 -> zz 6; tag 7 -> zz 14; 800 = 0x320 -> a0 06; comm 0; 20; flags 0 */
    CK_BYTES(out, n, 0x06, 0x0e, 0xa0, 0x06, 0x00, 0x14, 0x00);
    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(out, n, 1000, &d), 0);
    ck_assert_int_eq(d.peer, 3);
    ck_assert_int_eq(d.tag, 7);
    ck_assert_uint_eq(d.bytes, 800);
    ck_assert_uint_eq(d.comm, 0);
    ck_assert_uint_eq(d.start, 980);
    ck_assert_uint_eq(d.flags, 0);
}
END_TEST

/* Negative values and a large communicator id (MPI_COMM_SELF of rank 2:
 * 2^62 + 2).  tag -1 -> zz 1; peer -2 -> zz 3; comm 2^62+2 as a varint:
 * groups of 7 bits from the low end: 02, 0 x 7 ..., top bits 2^62 = bit 62
 * -> the 9th group (bits 56..62) holds 0x40. */
START_TEST(msg_negative_and_self)
{
    struct vftr_vfd_mpi_msg m = { -2, -1, 1, VFTR_VFD_COMM_SELF(2), 5, 0x21 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_mpi_msg_encode(&m, 5, out);

    ck_assert_uint_eq(VFTR_VFD_COMM_SELF(2), ((uint64_t)1 << 62) + 2);
    CK_BYTES(out, n, 0x03, 0x01, 0x01,
             0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40,
             0x00, 0x21);
    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(out, n, 5, &d), 0);
    ck_assert_int_eq(d.peer, -2);
    ck_assert_int_eq(d.tag, -1);
    ck_assert_uint_eq(d.comm, VFTR_VFD_COMM_SELF(2));
    ck_assert_uint_eq(d.flags, VFTR_VFD_MSG_NONBLOCKING | VFTR_VFD_MSG_SENDRECV);
}
END_TEST

/* Allreduce on world, rootless (-1 -> zz 1), 8 bytes each way, begun 5
 * ticks before, blocking: 04 00 01 08 08 05 00. */
START_TEST(coll_golden)
{
    struct vftr_vfd_mpi_coll c = { VFTR_VFD_COLL_ALLREDUCE, 0, -1, 8, 8, 95, 0 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_mpi_coll_encode(&c, 100, out);

    CK_BYTES(out, n, 0x04, 0x00, 0x01, 0x08, 0x08, 0x05, 0x00);
    ck_assert_int_eq(vftr_vfd_mpi_coll_decode(out, n, 100, &d), 0);
    ck_assert_uint_eq(d.op, VFTR_VFD_COLL_ALLREDUCE);
    ck_assert_int_eq(d.root, -1);
    ck_assert_uint_eq(d.start, 95);
    ck_assert_str_eq(vftr_vfd_coll_name(VFTR_VFD_COLL_ALLREDUCE), "MPI_Allreduce");
    ck_assert_uint_eq(vftr_vfd_coll_class(VFTR_VFD_COLL_BARRIER), 1);
    ck_assert_uint_eq(vftr_vfd_coll_class(VFTR_VFD_COLL_BCAST), 2);
    ck_assert_uint_eq(vftr_vfd_coll_class(VFTR_VFD_COLL_GATHER), 3);
    ck_assert_uint_eq(vftr_vfd_coll_class(VFTR_VFD_COLL_ALLTOALL), 4);
    ck_assert_uint_eq(vftr_vfd_coll_class(999), 0);
    ck_assert_ptr_null(vftr_vfd_coll_name(0));
}
END_TEST

/* A request-form get_accumulate (op 4) to world rank 3 (zz 6) on window 5
 * of world, 16 bytes each way, begun 10 ticks before: 04 06 05 00 10 10
 * 0a 01; without its last field it does not decode. */
START_TEST(rma_golden)
{
    struct vftr_vfd_mpi_rma a = { VFTR_VFD_RMA_GET_ACCUMULATE, 3, 5, 0, 16, 16, 90,
                                  VFTR_VFD_MSG_NONBLOCKING, 0 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_mpi_rma_encode(&a, 100, out);

    CK_BYTES(out, n, 0x04, 0x06, 0x05, 0x00, 0x10, 0x10, 0x0a, 0x01);
    ck_assert_int_eq(vftr_vfd_mpi_rma_decode(out, n, 100, &d), 0);
    ck_assert_uint_eq(d.op, VFTR_VFD_RMA_GET_ACCUMULATE);
    ck_assert_int_eq(d.target, 3);
    ck_assert_uint_eq(d.win, 5);
    ck_assert_uint_eq(d.sent, 16);
    ck_assert_uint_eq(d.received, 16);
    ck_assert_uint_eq(d.start, 90);
    ck_assert_uint_eq(d.flags, VFTR_VFD_MSG_NONBLOCKING);
    ck_assert_int_eq(vftr_vfd_mpi_rma_decode(out, n - 1, 100, &d), -EBADMSG);
    ck_assert_str_eq(vftr_vfd_rma_name(VFTR_VFD_RMA_PUT), "MPI_Put");
    ck_assert_str_eq(vftr_vfd_rma_name(VFTR_VFD_RMA_COMPARE_AND_SWAP), "MPI_Compare_and_swap");
    ck_assert_ptr_null(vftr_vfd_rma_name(0));
    ck_assert_ptr_null(vftr_vfd_rma_name(VFTR_VFD_RMA_COUNT));
}
END_TEST

/* An MPI_Win_unlock (what 3) of world rank 2's (zz 4) transfers on window
 * 2^32 + 1 (LEB128: 81 80 80 80 10), the call begun 7 ticks before the
 * record: 03 04 81 80 80 80 10 07; every target (-1: zz 01) likewise. */
START_TEST(rma_sync_golden)
{
    struct vftr_vfd_mpi_rma_sync y = { VFTR_VFD_RMA_SYNC_UNLOCK, 2, (1ull << 32) + 1, 93, 0 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_mpi_rma_sync_encode(&y, 100, out);

    CK_BYTES(out, n, 0x03, 0x04, 0x81, 0x80, 0x80, 0x80, 0x10, 0x07);
    ck_assert_int_eq(vftr_vfd_mpi_rma_sync_decode(out, n, 100, &d), 0);
    ck_assert_uint_eq(d.what, VFTR_VFD_RMA_SYNC_UNLOCK);
    ck_assert_int_eq(d.target, 2);
    ck_assert_uint_eq(d.win, (1ull << 32) + 1);
    ck_assert_uint_eq(d.start, 93);
    ck_assert_int_eq(vftr_vfd_mpi_rma_sync_decode(out, n - 1, 100, &d), -EBADMSG);
    y.target = -1;
    n = vftr_vfd_mpi_rma_sync_encode(&y, 100, out);
    CK_BYTES(out, n, 0x03, 0x01, 0x81, 0x80, 0x80, 0x80, 0x10, 0x07);
    ck_assert_str_eq(vftr_vfd_rma_sync_name(VFTR_VFD_RMA_SYNC_FENCE), "MPI_Win_fence");
    ck_assert_str_eq(vftr_vfd_rma_sync_name(VFTR_VFD_RMA_SYNC_FREE), "MPI_Win_free");
    ck_assert_ptr_null(vftr_vfd_rma_sync_name(0));
    ck_assert_ptr_null(vftr_vfd_rma_sync_name(VFTR_VFD_RMA_SYNC_COUNT));
}
END_TEST

/* The request forms' numbers, an optional last field (added later): the
 * get_accumulate above numbered 300 (ac 02) adds 2 bytes; the wait that
 * completed it (what 9) of world rank 3 (zz 6) on window 5, begun 2 ticks
 * before, names it: 09 06 05 02 ac 02.  Without the field (a record of an
 * earlier capture) both decode with number 0; a cut varint does not
 * decode; a later version's field after it is ignored.  Number 0 is not
 * written: the bytes of rma_golden. */
START_TEST(rma_request_golden)
{
    struct vftr_vfd_mpi_rma a = { VFTR_VFD_RMA_GET_ACCUMULATE, 3, 5, 0, 16, 16, 90,
                                  VFTR_VFD_MSG_NONBLOCKING, 300 }, d;
    struct vftr_vfd_mpi_rma_sync y = { VFTR_VFD_RMA_SYNC_REQUEST, 3, 5, 98, 300 }, e;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_mpi_rma_encode(&a, 100, out);

    CK_BYTES(out, n, 0x04, 0x06, 0x05, 0x00, 0x10, 0x10, 0x0a, 0x01, 0xac, 0x02);
    ck_assert_int_eq(vftr_vfd_mpi_rma_decode(out, n, 100, &d), 0);
    ck_assert_uint_eq(d.request, 300);
    ck_assert_uint_eq(d.flags, VFTR_VFD_MSG_NONBLOCKING);
    ck_assert_int_eq(vftr_vfd_mpi_rma_decode(out, n - 2, 100, &d), 0);
    ck_assert_uint_eq(d.request, 0);
    ck_assert_uint_eq(d.start, 90);
    ck_assert_int_eq(vftr_vfd_mpi_rma_decode(out, n - 1, 100, &d), -EBADMSG);

    n = vftr_vfd_mpi_rma_sync_encode(&y, 100, out);
    CK_BYTES(out, n, 0x09, 0x06, 0x05, 0x02, 0xac, 0x02);
    out[n++] = 0x01;                    /* a later version's field */
    ck_assert_int_eq(vftr_vfd_mpi_rma_sync_decode(out, n, 100, &e), 0);
    ck_assert_uint_eq(e.what, VFTR_VFD_RMA_SYNC_REQUEST);
    ck_assert_int_eq(e.target, 3);
    ck_assert_uint_eq(e.request, 300);
    ck_assert_int_eq(vftr_vfd_mpi_rma_sync_decode(out, 4, 100, &e), 0);
    ck_assert_uint_eq(e.request, 0);
    ck_assert_uint_eq(e.start, 98);
    y.request = 0;
    n = vftr_vfd_mpi_rma_sync_encode(&y, 100, out);
    CK_BYTES(out, n, 0x09, 0x06, 0x05, 0x02);
}
END_TEST

/* region 2, instance 300 (= 0x12c -> ac 02), value 4. */
START_TEST(omp_golden)
{
    struct vftr_vfd_omp o = { 2, 300, 4 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_omp_encode(&o, out);

    CK_BYTES(out, n, 0x02, 0xac, 0x02, 0x04);
    ck_assert_int_eq(vftr_vfd_omp_decode(out, n, &d), 0);
    ck_assert_uint_eq(d.region, 2);
    ck_assert_uint_eq(d.instance, 300);
    ck_assert_uint_eq(d.value, 4);
    ck_assert_str_eq(vftr_vfd_omp_kind_name(VFTR_VFD_OMP_PARALLEL), "parallel");
    ck_assert_ptr_null(vftr_vfd_omp_kind_name(VFTR_VFD_OMP_KIND_COUNT));
}
END_TEST

/* A decoder takes the fields it knows and ignores later ones; fewer fields
 * than it knows is an error. */
START_TEST(decode_extra_and_missing_fields)
{
    static const uint8_t longer[] = { 0x06, 0x0e, 0xa0, 0x06, 0x00, 0x14, 0x00, 0x7f, 0x05 };
    static const uint8_t shorter[] = { 0x06, 0x0e, 0xa0, 0x06, 0x00, 0x14 };
    static const uint8_t cut_varint[] = { 0x06, 0x0e, 0xa0 };
    static const uint8_t omp_short[] = { 0x02, 0xac, 0x02 };
    struct vftr_vfd_mpi_msg m;
    struct vftr_vfd_mpi_coll c;
    struct vftr_vfd_omp o;

    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(longer, sizeof longer, 1000, &m), 0);
    ck_assert_uint_eq(m.bytes, 800);
    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(shorter, sizeof shorter, 1000, &m), -EBADMSG);
    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(cut_varint, sizeof cut_varint, 1000, &m), -EBADMSG);
    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(NULL, 0, 1000, &m), -EBADMSG);
    ck_assert_int_eq(vftr_vfd_mpi_coll_decode(shorter, sizeof shorter, 1000, &c), -EBADMSG);
    ck_assert_int_eq(vftr_vfd_omp_decode(omp_short, sizeof omp_short, &o), -EBADMSG);
}
END_TEST

/* A start stored further back than the event's own time is malformed
 * (it would wrap below 0). */
START_TEST(decode_start_before_zero)
{
    static const uint8_t p[] = { 0x06, 0x0e, 0xa0, 0x06, 0x00, 0x14, 0x00 };   /* start back 20 */
    struct vftr_vfd_mpi_msg m;

    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(p, sizeof p, 10, &m), -EBADMSG);
}
END_TEST

/* Varints longer than 10 bytes (or overflowing 64 bits) are refused. */
START_TEST(decode_overlong_varint)
{
    uint8_t p[16];
    struct vftr_vfd_omp o;

    memset(p, 0x80, sizeof p);
    p[15] = 0x01;
    ck_assert_int_eq(vftr_vfd_omp_decode(p, sizeof p, &o), -EBADMSG);
}
END_TEST

/* A fixed pseudo-random sequence (one call per value: the order of
 * evaluation inside an initializer is unspecified). */
static uint64_t rnd(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed;
}

START_TEST(roundtrip_many)
{
    uint64_t seed = 12345;

    for (int i = 0; i < 20000; i++) {
        struct vftr_vfd_mpi_msg m, d;
        struct vftr_vfd_mpi_coll c, e;
        struct vftr_vfd_omp o, q;
        uint8_t out[VFTR_VFD_EXT_MAX];
        uint64_t t;
        size_t n;

        memset(&m, 0, sizeof m);    /* padding too: compared with memcmp */
        memset(&d, 0, sizeof d);
        t = rnd(&seed) >> 1;
        m.peer = (int32_t)rnd(&seed);
        m.tag = (int32_t)rnd(&seed);
        m.bytes = rnd(&seed);
        m.comm = rnd(&seed);
        m.start = t - rnd(&seed) % (t + 1);
        m.flags = (uint32_t)rnd(&seed);
        n = vftr_vfd_mpi_msg_encode(&m, t, out);
        ck_assert_uint_gt(n, 0);
        ck_assert_uint_le(n, VFTR_VFD_EXT_MAX);
        ck_assert_int_eq(vftr_vfd_mpi_msg_decode(out, n, t, &d), 0);
        ck_assert_mem_eq(&m, &d, sizeof m);
        c.op = (uint32_t)rnd(&seed);
        c.comm = rnd(&seed);
        c.root = (int32_t)rnd(&seed);
        c.sent = rnd(&seed);
        c.received = rnd(&seed);
        c.start = t - rnd(&seed) % (t + 1);
        c.flags = (uint32_t)rnd(&seed);
        n = vftr_vfd_mpi_coll_encode(&c, t, out);
        ck_assert_uint_gt(n, 0);
        ck_assert_int_eq(vftr_vfd_mpi_coll_decode(out, n, t, &e), 0);
        ck_assert_uint_eq(c.op, e.op);
        ck_assert_uint_eq(c.comm, e.comm);
        ck_assert_int_eq(c.root, e.root);
        ck_assert_uint_eq(c.sent, e.sent);
        ck_assert_uint_eq(c.received, e.received);
        ck_assert_uint_eq(c.start, e.start);
        ck_assert_uint_eq(c.flags, e.flags);
        o.region = (uint32_t)rnd(&seed);
        o.instance = rnd(&seed);
        o.value = rnd(&seed);
        n = vftr_vfd_omp_encode(&o, out);
        ck_assert_int_eq(vftr_vfd_omp_decode(out, n, &q), 0);
        ck_assert_uint_eq(o.region, q.region);
        ck_assert_uint_eq(o.instance, q.instance);
        ck_assert_uint_eq(o.value, q.value);
    }
}
END_TEST

/* A start after the event's time cannot be stored backwards: the encoder
 * records it as the event's time (difference 0) rather than failing in the
 * capture's hot path. */
START_TEST(encode_start_after_time)
{
    struct vftr_vfd_mpi_msg m = { 1, 1, 1, 0, 101, 0 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_mpi_msg_encode(&m, 100, out);

    CK_BYTES(out, n, 0x02, 0x02, 0x01, 0x00, 0x00, 0x00);
    ck_assert_int_eq(vftr_vfd_mpi_msg_decode(out, n, 100, &d), 0);
    ck_assert_uint_eq(d.start, 100);
}
END_TEST

/* ---------------------------------------------------------- definitions */

static uint8_t chunk[65536];

/* Checks the chunk header fields the document lists and returns the
 * payload. */
static const uint8_t *payload_of(size_t n, uint16_t kind, uint32_t count, uint32_t *len)
{
    ck_assert_uint_ge(n, VFTR_VFD_CHUNK_HEADER_SIZE);
    ck_assert_mem_eq(chunk, "VFDC", 4);
    ck_assert_uint_eq(le16(chunk + 4), kind);
    ck_assert_uint_eq(le32(chunk + 8), 0);               /* thread of a definition chunk */
    ck_assert_uint_eq(le32(chunk + 16), count);
    *len = le32(chunk + 12);
    ck_assert_uint_eq(n, VFTR_VFD_CHUNK_HEADER_SIZE + *len);
    ck_assert_uint_eq(le32(chunk + 20), vftr_vfd_crc32c(0, chunk + 48, *len));
    return chunk + VFTR_VFD_CHUNK_HEADER_SIZE;
}

/* id 5, name "ab", size 2, world ranks 1 and 3 (4-byte little-endian). */
START_TEST(comms_golden)
{
    const int32_t ranks[] = { 1, 3 };
    struct vftr_vfd_comm c = { 5, 2, ranks, NULL, "ab" };
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_comm_view v;
    uint32_t len;
    size_t n = vftr_vfd_encode_comms(&c, 1, chunk, sizeof chunk);
    const uint8_t *p = payload_of(n, VFTR_VFD_CHUNK_MPI_COMMS, 1, &len);

    CK_BYTES(p, len, 0x05, 0x02, 'a', 'b', 0x02, 1, 0, 0, 0, 3, 0, 0, 0);
    vftr_vfd_cursor_init(&cur, p, len, 1);
    ck_assert_int_eq(vftr_vfd_next_comm(&cur, &v), 1);
    ck_assert_uint_eq(v.c.id, 5);
    ck_assert_uint_eq(v.c.size, 2);
    ck_assert_uint_eq(v.name_len, 2);
    ck_assert_mem_eq(v.c.name, "ab", 2);
    ck_assert_int_eq(vftr_vfd_comm_rank(&v.c, 0), 1);
    ck_assert_int_eq(vftr_vfd_comm_rank(&v.c, 1), 3);
    ck_assert_int_eq(vftr_vfd_next_comm(&cur, &v), 0);
    ck_assert_uint_le(n, vftr_vfd_comms_bound(&c, 1));
}
END_TEST

/* id 1, parallel, code address 0x401000 (-> 80 a0 80 02, as in the
 * document's FUNCTIONS example), function "f", file "x.c", line 12. */
START_TEST(omp_regions_golden)
{
    struct vftr_vfd_omp_region r = { 1, VFTR_VFD_OMP_PARALLEL, 0x401000, "f", "x.c", 12 };
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_omp_region_view v;
    uint32_t len;
    size_t n = vftr_vfd_encode_omp_regions(&r, 1, chunk, sizeof chunk);
    const uint8_t *p = payload_of(n, VFTR_VFD_CHUNK_OMP_REGIONS, 1, &len);

    CK_BYTES(p, len, 0x01, 0x01, 0x80, 0xa0, 0x80, 0x02, 0x01, 'f', 0x03, 'x', '.', 'c', 0x0c);
    vftr_vfd_cursor_init(&cur, p, len, 1);
    ck_assert_int_eq(vftr_vfd_next_omp_region(&cur, &v), 1);
    ck_assert_uint_eq(v.r.codeptr, 0x401000);
    ck_assert_uint_eq(v.file_len, 3);
    ck_assert_mem_eq(v.r.file, "x.c", 3);
    ck_assert_uint_eq(v.r.line, 12);
    ck_assert_int_eq(vftr_vfd_next_omp_region(&cur, &v), 0);
}
END_TEST

/* The name of a region's function, the one vfd2otf, vftr-stats and
 * capture's log give it: file and line first (the base name), else the
 * function, else the kind alone; views need no NUL. */
static const char *region_name(uint32_t kind, const char *function, size_t flen, const char *file,
                               size_t filen, uint32_t line, size_t size)
{
    static char buf[700];
    struct vftr_vfd_omp_region_view v = {
        { 1, kind, 0x1000, function, file, line }, flen, filen,
    };
    size_t n;

    memset(buf, 'Z', sizeof buf);
    n = vftr_vfd_omp_region_name(&v, buf, size);
    ck_assert_uint_eq(n, strlen(buf));
    ck_assert_uint_lt(n, VFTR_VFD_OMP_NAME_MAX);
    return buf;
}

START_TEST(omp_region_names)
{
    char file[300], want[300];

    ck_assert_str_eq(region_name(VFTR_VFD_OMP_PARALLEL, "f", 1, "src/heat.c", 10, 106, 700),
                     "omp parallel @heat.c:106");
    /* the view's lengths count, not a NUL: "heat.cXX" read as "heat.c" */
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_BARRIER_EXPLICIT, "fXX", 1, "/a/b/heat.cXX", 11,
                                 4294967295u, 700),
                     "omp barrier (explicit) @heat.c:4294967295");
    /* no line: the function; no file: the function */
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_LOCK, "solve", 5, "x.c", 3, 0, 700),
                     "omp lock @solve");
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_LOOP, "solve", 5, "", 0, 7, 700), "omp loop @solve");
    /* nothing known: the kind alone; an unknown kind is a "region" */
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_BARRIER, "", 0, "", 0, 0, 700), "omp barrier");
    ck_assert_str_eq(region_name(99, "", 0, "", 0, 0, 700), "omp region");
    ck_assert_str_eq(region_name(0, "g", 1, "", 0, 0, 700), "omp region @g");
    /* a file ending in '/' leaves an empty base name */
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_TASK, "g", 1, "dir/", 4, 3, 700), "omp task @:3");
    /* file and function are cut to 256 bytes */
    memset(file, 'a', 299);
    file[299] = '\0';
    snprintf(want, sizeof want, "omp masked @%.256s:5", file);
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_MASKED, "", 0, file, 299, 5, 700), want);
    snprintf(want, sizeof want, "omp masked @%.256s", file);
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_MASKED, file, 299, "", 0, 0, 700), want);
    /* a small buffer gets what fits, terminated; none gets nothing */
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_PARALLEL, "f", 1, "heat.c", 6, 106, 9), "omp para");
    ck_assert_str_eq(region_name(VFTR_VFD_OMP_PARALLEL, "f", 1, "heat.c", 6, 106, 1), "");
    {
        struct vftr_vfd_omp_region_view v = { { 1, 1, 0, "f", "", 0 }, 1, 0 };
        char one = 'Z';

        ck_assert_uint_eq(vftr_vfd_omp_region_name(&v, &one, 0), 0);
        ck_assert_int_eq(one, 'Z');
    }
}
END_TEST

/* phase 1, ticks 1000 (e8 07), root 990 (de 07), rtt 3. */
START_TEST(clock_golden)
{
    struct vftr_vfd_clock_offset o = { VFTR_VFD_CLOCK_FINALIZE, 1000, 990, 3 }, d;
    struct vftr_vfd_cursor cur;
    uint32_t len;
    size_t n = vftr_vfd_encode_clock_offsets(&o, 1, chunk, sizeof chunk);
    const uint8_t *p = payload_of(n, VFTR_VFD_CHUNK_CLOCK_OFFSETS, 1, &len);

    CK_BYTES(p, len, 0x01, 0xe8, 0x07, 0xde, 0x07, 0x03);
    vftr_vfd_cursor_init(&cur, p, len, 1);
    ck_assert_int_eq(vftr_vfd_next_clock_offset(&cur, &d), 1);
    ck_assert_uint_eq(d.root_ticks, 990);
    ck_assert_int_eq(vftr_vfd_next_clock_offset(&cur, &d), 0);
}
END_TEST

START_TEST(run_id_golden)
{
    uint8_t id[16], back[16];
    uint32_t len;

    for (int i = 0; i < 16; i++)
        id[i] = (uint8_t)(0xa0 + i);
    size_t n = vftr_vfd_encode_run_id(id, chunk, sizeof chunk);
    const uint8_t *p = payload_of(n, VFTR_VFD_CHUNK_RUN_ID, 1, &len);
    ck_assert_uint_eq(len, 16);
    ck_assert_mem_eq(p, id, 16);
    ck_assert_int_eq(vftr_vfd_decode_run_id(p, len, back), 0);
    ck_assert_mem_eq(back, id, 16);
    ck_assert_int_eq(vftr_vfd_decode_run_id(p, 15, back), -EBADMSG);
}
END_TEST

/* Cursors over malformed payloads: a count larger than the entries, a
 * name or rank list running past the end.  Each gives -EBADMSG and then
 * stays at the end. */
START_TEST(cursor_malformed)
{
    static const uint8_t comm_short_ranks[] = { 0x05, 0x02, 'a', 'b', 0x02, 1, 0, 0, 0, 3, 0 };
    static const uint8_t comm_long_name[] = { 0x05, 0x09, 'a', 'b' };
    static const uint8_t clock_one[] = { 0x01, 0xe8, 0x07, 0xde, 0x07, 0x03 };
    static const uint8_t region_cut[] = { 0x01, 0x01, 0x80, 0xa0, 0x80, 0x02, 0x05, 'f' };
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_comm_view cv;
    struct vftr_vfd_clock_offset o;
    struct vftr_vfd_omp_region_view rv;

    vftr_vfd_cursor_init(&cur, comm_short_ranks, sizeof comm_short_ranks, 1);
    ck_assert_int_eq(vftr_vfd_next_comm(&cur, &cv), -EBADMSG);
    ck_assert_int_eq(vftr_vfd_next_comm(&cur, &cv), 0);
    vftr_vfd_cursor_init(&cur, comm_long_name, sizeof comm_long_name, 1);
    ck_assert_int_eq(vftr_vfd_next_comm(&cur, &cv), -EBADMSG);
    vftr_vfd_cursor_init(&cur, clock_one, sizeof clock_one, 2);
    ck_assert_int_eq(vftr_vfd_next_clock_offset(&cur, &o), 1);
    ck_assert_int_eq(vftr_vfd_next_clock_offset(&cur, &o), -EBADMSG);
    vftr_vfd_cursor_init(&cur, region_cut, sizeof region_cut, 1);
    ck_assert_int_eq(vftr_vfd_next_omp_region(&cur, &rv), -EBADMSG);
}
END_TEST

/* A write of 300 bytes at explicit offset 4096 to file 2, handle 9, begun
 * 130 ticks before its completion at 1000; no aux.  Fields in the order of
 * vfd-format.md's IO table: file 2; handle 9; op 3 (write); flags 16 (AT);
 * bytes 300 = 0x12c -> ac 02; start back 130 -> 82 01; offset 4096 =
 * 0x1000 -> 80 20; aux 0. */
START_TEST(io_golden)
{
    struct vftr_vfd_io io = { 2, 9, VFTR_VFD_IO_WRITE, VFTR_VFD_IO_AT, 300, 870, 4096, 0 }, d;
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_io_encode(&io, 1000, out);

    CK_BYTES(out, n, 0x02, 0x09, 0x03, 0x10, 0xac, 0x02, 0x82, 0x01, 0x80, 0x20, 0x00);
    ck_assert_int_eq(vftr_vfd_io_decode(out, n, 1000, &d), 0);
    ck_assert_uint_eq(d.file, 2);
    ck_assert_uint_eq(d.handle, 9);
    ck_assert_uint_eq(d.op, VFTR_VFD_IO_WRITE);
    ck_assert_uint_eq(d.flags, VFTR_VFD_IO_AT);
    ck_assert_uint_eq(d.bytes, 300);
    ck_assert_uint_eq(d.start, 870);
    ck_assert_uint_eq(d.offset, 4096);
    ck_assert_uint_eq(d.aux, 0);
    /* one field short: refused; one more (a later version's): read */
    ck_assert_int_eq(vftr_vfd_io_decode(out, n - 1, 1000, &d), -EBADMSG);
    out[n] = 0x05;
    ck_assert_int_eq(vftr_vfd_io_decode(out, n + 1, 1000, &d), 0);
    ck_assert_uint_eq(d.bytes, 300);
    /* a start after the time is refused by the decoder */
    out[6] = 0x82;
    out[7] = 0x7f;   /* 130 + (0x7f << 7) > 1000 */
    ck_assert_int_eq(vftr_vfd_io_decode(out, n, 1000, &d), -EBADMSG);
}
END_TEST

/* OTF's operation word: the low five bits the operation, 32 failed, 64
 * asynchronous, 128 collective (OTF_Definitions.h); the other flags have
 * no OTF bit.  Names of operations and interfaces. */
START_TEST(io_names)
{
    ck_assert_uint_eq(vftr_vfd_io_otf_operation(VFTR_VFD_IO_READ, 0), 2);
    ck_assert_uint_eq(vftr_vfd_io_otf_operation(VFTR_VFD_IO_WRITE, VFTR_VFD_IO_FAILED), 35);
    ck_assert_uint_eq(vftr_vfd_io_otf_operation(VFTR_VFD_IO_READ, VFTR_VFD_IO_NONBLOCKING |
                                                VFTR_VFD_IO_COLLECTIVE | VFTR_VFD_IO_SHARED |
                                                VFTR_VFD_IO_AT), 2 + 64 + 128);
    ck_assert_uint_eq(vftr_vfd_io_otf_operation(VFTR_VFD_IO_OTHER, 0), 31);
    ck_assert_str_eq(vftr_vfd_io_op_name(VFTR_VFD_IO_OPEN), "open");
    ck_assert_str_eq(vftr_vfd_io_op_name(VFTR_VFD_IO_SYNC), "sync");
    ck_assert_str_eq(vftr_vfd_io_op_name(VFTR_VFD_IO_UNLOCK), "unlock");
    ck_assert_str_eq(vftr_vfd_io_op_name(11), "other");
    ck_assert_str_eq(vftr_vfd_io_op_name(VFTR_VFD_IO_OTHER), "other");
    ck_assert_str_eq(vftr_vfd_io_op_name(1000), "other");
    ck_assert_str_eq(vftr_vfd_io_iface_name(VFTR_VFD_IO_POSIX), "POSIX I/O");
    ck_assert_str_eq(vftr_vfd_io_iface_name(VFTR_VFD_IO_STDIO), "ISO C I/O");
    ck_assert_str_eq(vftr_vfd_io_iface_name(VFTR_VFD_IO_MPI), "MPI-IO");
    ck_assert_ptr_null(vftr_vfd_io_iface_name(0));
    ck_assert_ptr_null(vftr_vfd_io_iface_name(4));
}
END_TEST

/* IO_FILES: id 3, interface 2 (stdio), "/a/b" -> 03 02 04 '/' 'a' '/' 'b';
 * id 300 (ac 02), POSIX, "" -> ac 02 01 00.  A cut name is refused. */
START_TEST(io_files_golden)
{
    struct vftr_vfd_io_file f[2] = { { 3, VFTR_VFD_IO_STDIO, "/a/b" }, { 300, VFTR_VFD_IO_POSIX, "" } };
    static const uint8_t cut[] = { 0x03, 0x02, 0x05, '/', 'a' };
    struct vftr_vfd_cursor cur;
    struct vftr_vfd_io_file_view v;
    uint32_t len;
    size_t n = vftr_vfd_encode_io_files(f, 2, chunk, sizeof chunk);
    const uint8_t *p = payload_of(n, VFTR_VFD_CHUNK_IO_FILES, 2, &len);

    CK_BYTES(p, len, 0x03, 0x02, 0x04, '/', 'a', '/', 'b', 0xac, 0x02, 0x01, 0x00);
    ck_assert_uint_le(n, vftr_vfd_io_files_bound(f, 2));
    vftr_vfd_cursor_init(&cur, p, len, 2);
    ck_assert_int_eq(vftr_vfd_next_io_file(&cur, &v), 1);
    ck_assert_uint_eq(v.f.id, 3);
    ck_assert_uint_eq(v.f.iface, VFTR_VFD_IO_STDIO);
    ck_assert_uint_eq(v.name_len, 4);
    ck_assert_mem_eq(v.f.name, "/a/b", 4);
    ck_assert_int_eq(vftr_vfd_next_io_file(&cur, &v), 1);
    ck_assert_uint_eq(v.f.id, 300);
    ck_assert_uint_eq(v.name_len, 0);
    ck_assert_int_eq(vftr_vfd_next_io_file(&cur, &v), 0);
    vftr_vfd_cursor_init(&cur, cut, sizeof cut, 1);
    ck_assert_int_eq(vftr_vfd_next_io_file(&cur, &v), -EBADMSG);
    ck_assert_int_eq(vftr_vfd_next_io_file(&cur, &v), 0);
    /* too small a buffer: 0 */
    ck_assert_uint_eq(vftr_vfd_encode_io_files(f, 2, chunk, VFTR_VFD_CHUNK_HEADER_SIZE + 8), 0);
}
END_TEST

/* Through a real file: the reader hands extended events back as events with
 * kind >= 16 and their payload, and the new chunk kinds as UNKNOWN records. */
START_TEST(reader_roundtrip)
{
    char dir[] = "/tmp/test_vfd_ext.XXXXXX", path[64];
    struct vftr_vfd_info info;
    struct vftr_vfd_writer *w;
    struct vftr_vfd_reader *r;
    struct vftr_vfd_record rec;
    struct vftr_vfd_event ev[8];
    struct vftr_vfd_mpi_msg m = { 1, 9, 64, 0, 40, 0 }, d;
    struct vftr_vfd_clock_offset o = { 0, 10, 12, 1 };
    uint8_t p[VFTR_VFD_EXT_MAX];
    size_t plen, n;
    int seen_event = 0, seen_clock = 0;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/x_0.vfd", dir);
    memset(&info, 0, sizeof info);
    info.rank = 0;
    info.size = 1;
    info.ticks_per_second = 1000000000;
    w = vftr_vfd_writer_open(path, &info);
    ck_assert_ptr_nonnull(w);
    n = vftr_vfd_encode_clock_offsets(&o, 1, chunk, sizeof chunk);
    ck_assert_int_eq(vftr_vfd_writer_put(w, chunk, n), 0);
    plen = vftr_vfd_mpi_msg_encode(&m, 50, p);
    ev[0] = (struct vftr_vfd_event){ 50, VFTR_VFD_MPI_SEND, (uint32_t)plen };
    memset(&ev[1], 0, sizeof ev[1]);
    memcpy(&ev[1], p, plen);                      /* plen <= 16 here */
    ck_assert_uint_le(plen, 16);
    n = vftr_vfd_encode_events(ev, 2, chunk, sizeof chunk, 0);
    ck_assert_int_eq(vftr_vfd_writer_put(w, chunk, n), 0);
    ck_assert_int_eq(vftr_vfd_writer_close(w, NULL), 0);

    r = vftr_vfd_reader_open(path);
    ck_assert_ptr_nonnull(r);
    while (vftr_vfd_reader_next(r, &rec) == 1) {
        if (rec.type == VFTR_VFD_REC_EVENT) {
            ck_assert_uint_eq(rec.u.event.kind, VFTR_VFD_MPI_SEND);
            ck_assert_uint_eq(rec.u.event.id, plen);
            ck_assert_int_eq(vftr_vfd_mpi_msg_decode(rec.u.event.data, rec.u.event.id,
                                                     rec.u.event.time, &d), 0);
            ck_assert_int_eq(d.tag, 9);
            ck_assert_uint_eq(d.start, 40);
            seen_event++;
        } else if (rec.type == VFTR_VFD_REC_UNKNOWN) {
            ck_assert_uint_eq(rec.u.unknown.kind, VFTR_VFD_CHUNK_CLOCK_OFFSETS);
            ck_assert_uint_eq(rec.u.unknown.count, 1);
            seen_clock++;
        }
    }
    ck_assert_int_eq(seen_event, 1);
    ck_assert_int_eq(seen_clock, 1);
    vftr_vfd_reader_close(r);
    unlink(path);
    rmdir(dir);
}
END_TEST

static Suite *ext_suite(void)
{
    Suite *s = suite_create("vfd_ext");
    TCase *tc = tcase_create("ext");

    tcase_add_test(tc, msg_golden);
    tcase_add_test(tc, msg_negative_and_self);
    tcase_add_test(tc, coll_golden);
    tcase_add_test(tc, rma_golden);
    tcase_add_test(tc, rma_sync_golden);
    tcase_add_test(tc, rma_request_golden);
    tcase_add_test(tc, omp_golden);
    tcase_add_test(tc, decode_extra_and_missing_fields);
    tcase_add_test(tc, decode_start_before_zero);
    tcase_add_test(tc, decode_overlong_varint);
    tcase_add_test(tc, roundtrip_many);
    tcase_add_test(tc, encode_start_after_time);
    tcase_add_test(tc, comms_golden);
    tcase_add_test(tc, omp_regions_golden);
    tcase_add_test(tc, omp_region_names);
    tcase_add_test(tc, clock_golden);
    tcase_add_test(tc, run_id_golden);
    tcase_add_test(tc, cursor_malformed);
    tcase_add_test(tc, reader_roundtrip);
    tcase_add_test(tc, io_golden);
    tcase_add_test(tc, io_names);
    tcase_add_test(tc, io_files_golden);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ext_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
