/*
 * fuzz_vfdext.c — libFuzzer target for the decoders of the MPI, OpenMP and
 * file I/O records (lib/vfd/ext.c, vftr_vfd_ext.h).
 *
 * Input: byte 0 picks the decoder (mod 10), bytes 1..4 the `count` of a
 * definition chunk (little-endian, mod 4096), bytes 5..12 the event time,
 * the rest is the payload.  Event payloads: MPI message, collective,
 * OpenMP event (0..2), file operation (8); chunk payloads: MPI_COMMS,
 * OMP_REGIONS, CLOCK_OFFSETS, RUN_ID (3..7), IO_FILES (9).  What decodes is encoded again and decoded once more: both
 * decodings must agree (an encoder that cannot represent what its decoder
 * accepted is a bug, and so is any crash, hang or sanitizer report).
 * Strings and rank arrays of the cursors are read in full, so a view past
 * the payload shows up under ASan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vfd/vftr_vfd_ext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink;

static void touch(const void *p, size_t n)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < n; i++)
        sink += b[i];
}

static void event(uint32_t which, const uint8_t *p, size_t n, uint64_t t)
{
    uint8_t buf[VFTR_VFD_EXT_MAX];
    size_t len;

    if (which == 0) {
        struct vftr_vfd_mpi_msg a, b;

        if (vftr_vfd_mpi_msg_decode(p, n, t, &a) != 0)
            return;
        if ((len = vftr_vfd_mpi_msg_encode(&a, t, buf)) == 0)
            return;   /* start after the time: not representable, refused */
        if (vftr_vfd_mpi_msg_decode(buf, len, t, &b) != 0 || a.peer != b.peer || a.tag != b.tag
            || a.bytes != b.bytes || a.comm != b.comm || a.start != b.start || a.flags != b.flags)
            abort();
    } else if (which == 1) {
        struct vftr_vfd_mpi_coll a, b;

        if (vftr_vfd_mpi_coll_decode(p, n, t, &a) != 0)
            return;
        sink += vftr_vfd_coll_class(a.op) + (vftr_vfd_coll_name(a.op) != NULL);
        if ((len = vftr_vfd_mpi_coll_encode(&a, t, buf)) == 0)
            return;
        if (vftr_vfd_mpi_coll_decode(buf, len, t, &b) != 0 || a.op != b.op || a.comm != b.comm
            || a.root != b.root || a.sent != b.sent || a.received != b.received
            || a.start != b.start || a.flags != b.flags)
            abort();
    } else if (which == 8) {
        struct vftr_vfd_io a, b;

        if (vftr_vfd_io_decode(p, n, t, &a) != 0)
            return;
        sink += (uint32_t)strlen(vftr_vfd_io_op_name(a.op)) + vftr_vfd_io_otf_operation(a.op, a.flags)
                + (vftr_vfd_io_iface_name(a.flags) != NULL);
        if ((len = vftr_vfd_io_encode(&a, t, buf)) == 0)
            return;
        if (vftr_vfd_io_decode(buf, len, t, &b) != 0 || a.file != b.file || a.handle != b.handle
            || a.op != b.op || a.flags != b.flags || a.bytes != b.bytes || a.start != b.start
            || a.offset != b.offset || a.aux != b.aux)
            abort();
    } else {
        struct vftr_vfd_omp a, b;

        if (vftr_vfd_omp_decode(p, n, &a) != 0)
            return;
        sink += vftr_vfd_omp_kind_name(a.region % 64) != NULL;
        if ((len = vftr_vfd_omp_encode(&a, buf)) == 0)
            return;
        if (vftr_vfd_omp_decode(buf, len, &b) != 0 || a.region != b.region
            || a.instance != b.instance || a.value != b.value)
            abort();
    }
}

static void chunk(uint32_t which, const uint8_t *p, size_t n, uint32_t count)
{
    struct vftr_vfd_cursor c;
    int rc;

    vftr_vfd_cursor_init(&c, p, n, count);
    if (which == 3) {
        struct vftr_vfd_comm_view v;

        while ((rc = vftr_vfd_next_comm(&c, &v)) > 0) {
            touch(v.c.name, v.name_len);
            for (uint32_t i = 0; i < v.c.size; i++)
                sink += (uint32_t)vftr_vfd_comm_rank(&v.c, i);
        }
    } else if (which == 4) {
        struct vftr_vfd_omp_region_view v;

        while ((rc = vftr_vfd_next_omp_region(&c, &v)) > 0) {
            touch(v.r.function, v.function_len);
            touch(v.r.file, v.file_len);
        }
    } else if (which == 5) {
        struct vftr_vfd_clock_offset o, o2;
        uint8_t buf[128];
        size_t len;

        while ((rc = vftr_vfd_next_clock_offset(&c, &o)) > 0) {
            struct vftr_vfd_cursor c2;

            if ((len = vftr_vfd_encode_clock_offsets(&o, 1, buf, sizeof buf)) == 0)
                continue;
            /* the chunk's payload follows its 48-byte header */
            vftr_vfd_cursor_init(&c2, buf + 48, len - 48, 1);
            if (vftr_vfd_next_clock_offset(&c2, &o2) != 1 || o.phase != o2.phase
                || o.ticks != o2.ticks || o.root_ticks != o2.root_ticks || o.rtt != o2.rtt)
                abort();
        }
    } else if (which == 9) {
        struct vftr_vfd_io_file_view v, v2;
        uint8_t buf[4096 + 128];
        size_t len;

        while ((rc = vftr_vfd_next_io_file(&c, &v)) > 0) {
            struct vftr_vfd_cursor c2;
            char name[4096];
            struct vftr_vfd_io_file f = v.f;

            touch(v.f.name, v.name_len);
            if (v.name_len >= sizeof name || memchr(v.f.name, 0, v.name_len))
                continue;   /* the encoder takes NUL-terminated names */
            memcpy(name, v.f.name, v.name_len);
            name[v.name_len] = '\0';
            f.name = name;
            if ((len = vftr_vfd_encode_io_files(&f, 1, buf, sizeof buf)) == 0)
                abort();
            vftr_vfd_cursor_init(&c2, buf + 48, len - 48, 1);
            if (vftr_vfd_next_io_file(&c2, &v2) != 1 || v2.f.id != v.f.id
                || v2.f.iface != v.f.iface || v2.name_len != v.name_len
                || memcmp(v2.f.name, name, v.name_len) != 0)
                abort();
        }
    } else {
        uint8_t id[16];

        rc = vftr_vfd_decode_run_id(p, n, id);
        if (rc == 0)
            touch(id, sizeof id);
        return;
    }
    (void)rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t which, count = 0;
    uint64_t t = 0;

    if (size < 13)
        return 0;
    which = data[0] % 10;
    for (int i = 0; i < 4; i++)
        count |= (uint32_t)data[1 + i] << (8 * i);
    for (int i = 0; i < 8; i++)
        t |= (uint64_t)data[5 + i] << (8 * i);
    count %= 4096;
    if (which < 3 || which == 8)
        event(which, data + 13, size - 13, t);
    else
        chunk(which, data + 13, size - 13, count);
    return 0;
}
