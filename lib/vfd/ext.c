/*
 * ext.c — encoding and decoding of the .vfd MPI, OpenMP and file I/O records
 * (vftr_vfd_ext.h).  Each event record is described once, as a table of its
 * fields in the order they are stored; one encoder and one decoder walk the
 * tables.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "vfd_internal.h"
#include "vftr_vfd_ext.h"

/* ------------------------------------------------------------ fields */

enum ftype {
    F_U32,      /* uint32_t, varint */
    F_U64,      /* uint64_t, varint */
    F_S32,      /* int32_t, zigzag varint */
    F_BACK,     /* uint64_t time <= the event time: stored as (time - it) */
    F_OPT,      /* uint64_t, varint, a field added to a record later: the last
                 * field only; left out when 0, read as 0 when the payload
                 * ends before it (a file of an earlier capture) */
};

struct field {
    enum ftype type;
    size_t off;
};

#define FIELD(t, s, m) { t, offsetof(s, m) }

static const struct field msg_fields[] = {
    FIELD(F_S32, struct vftr_vfd_mpi_msg, peer),
    FIELD(F_S32, struct vftr_vfd_mpi_msg, tag),
    FIELD(F_U64, struct vftr_vfd_mpi_msg, bytes),
    FIELD(F_U64, struct vftr_vfd_mpi_msg, comm),
    FIELD(F_BACK, struct vftr_vfd_mpi_msg, start),
    FIELD(F_U32, struct vftr_vfd_mpi_msg, flags),
};

static const struct field coll_fields[] = {
    FIELD(F_U32, struct vftr_vfd_mpi_coll, op),
    FIELD(F_U64, struct vftr_vfd_mpi_coll, comm),
    FIELD(F_S32, struct vftr_vfd_mpi_coll, root),
    FIELD(F_U64, struct vftr_vfd_mpi_coll, sent),
    FIELD(F_U64, struct vftr_vfd_mpi_coll, received),
    FIELD(F_BACK, struct vftr_vfd_mpi_coll, start),
    FIELD(F_U32, struct vftr_vfd_mpi_coll, flags),
};

static const struct field rma_fields[] = {
    FIELD(F_U32, struct vftr_vfd_mpi_rma, op),
    FIELD(F_S32, struct vftr_vfd_mpi_rma, target),
    FIELD(F_U64, struct vftr_vfd_mpi_rma, win),
    FIELD(F_U64, struct vftr_vfd_mpi_rma, comm),
    FIELD(F_U64, struct vftr_vfd_mpi_rma, sent),
    FIELD(F_U64, struct vftr_vfd_mpi_rma, received),
    FIELD(F_BACK, struct vftr_vfd_mpi_rma, start),
    FIELD(F_U32, struct vftr_vfd_mpi_rma, flags),
    FIELD(F_OPT, struct vftr_vfd_mpi_rma, request),
};

static const struct field rma_sync_fields[] = {
    FIELD(F_U32, struct vftr_vfd_mpi_rma_sync, what),
    FIELD(F_S32, struct vftr_vfd_mpi_rma_sync, target),
    FIELD(F_U64, struct vftr_vfd_mpi_rma_sync, win),
    FIELD(F_BACK, struct vftr_vfd_mpi_rma_sync, start),
    FIELD(F_OPT, struct vftr_vfd_mpi_rma_sync, request),
};

static const struct field omp_fields[] = {
    FIELD(F_U32, struct vftr_vfd_omp, region),
    FIELD(F_U64, struct vftr_vfd_omp, instance),
    FIELD(F_U64, struct vftr_vfd_omp, value),
};

static const struct field io_fields[] = {
    FIELD(F_U32, struct vftr_vfd_io, file),
    FIELD(F_U64, struct vftr_vfd_io, handle),
    FIELD(F_U32, struct vftr_vfd_io, op),
    FIELD(F_U32, struct vftr_vfd_io, flags),
    FIELD(F_U64, struct vftr_vfd_io, bytes),
    FIELD(F_BACK, struct vftr_vfd_io, start),
    FIELD(F_U64, struct vftr_vfd_io, offset),
    FIELD(F_U64, struct vftr_vfd_io, aux),
};

static const struct field clock_fields[] = {
    FIELD(F_U32, struct vftr_vfd_clock_offset, phase),
    FIELD(F_U64, struct vftr_vfd_clock_offset, ticks),
    FIELD(F_U64, struct vftr_vfd_clock_offset, root_ticks),
    FIELD(F_U64, struct vftr_vfd_clock_offset, rtt),
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Worst case of one record: 10 bytes per field. */
static uint8_t *put_fields(uint8_t *p, const void *rec, const struct field *f, size_t n,
                           uint64_t time)
{
    const unsigned char *b = rec;
    for (size_t i = 0; i < n; i++) {
        const void *at = b + f[i].off;
        uint64_t v = 0;
        switch (f[i].type) {
        case F_U32: { uint32_t x; memcpy(&x, at, sizeof x); v = x; break; }
        case F_U64: case F_OPT: memcpy(&v, at, sizeof v); break;
        case F_S32: { int32_t x; memcpy(&x, at, sizeof x); v = zigzag(x); break; }
        case F_BACK: { uint64_t x; memcpy(&x, at, sizeof x); v = x <= time ? time - x : 0; break; }
        }
        if (f[i].type == F_OPT && v == 0)
            break;
        p = vfd_put_varint(p, v);
    }
    return p;
}

/* Reads n fields; 0 or -EBADMSG (too few bytes, a value out of its type's
 * range).  Fields after the known ones are left to the caller. */
static int get_fields(const uint8_t **pp, const uint8_t *end, void *rec, const struct field *f,
                      size_t n, uint64_t time)
{
    unsigned char *b = rec;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        if (f[i].type == F_OPT && *pp == end)
            break;
        if (vfd_get_varint(pp, end, &v) < 0)
            return -EBADMSG;
        void *at = b + f[i].off;
        switch (f[i].type) {
        case F_U32: {
            if (v > UINT32_MAX)
                return -EBADMSG;
            uint32_t x = (uint32_t)v;
            memcpy(at, &x, sizeof x);
            break;
        }
        case F_U64: case F_OPT: memcpy(at, &v, sizeof v); break;
        case F_S32: {
            int64_t s = unzigzag(v);
            if (s < INT32_MIN || s > INT32_MAX)
                return -EBADMSG;
            int32_t x = (int32_t)s;
            memcpy(at, &x, sizeof x);
            break;
        }
        case F_BACK: {
            if (v > time)
                return -EBADMSG;
            uint64_t x = time - v;
            memcpy(at, &x, sizeof x);
            break;
        }
        }
    }
    return 0;
}

/* Decodes a whole event payload: the known fields must be there; more may
 * follow (a later version's) and are ignored. */
static int decode_event(const uint8_t *data, size_t len, void *rec, size_t size,
                        const struct field *f, size_t n, uint64_t time)
{
    if (data == NULL && len > 0)
        return -EBADMSG;
    memset(rec, 0, size);
    const uint8_t *p = data;
    return get_fields(&p, data + len, rec, f, n, time);
}

size_t vftr_vfd_mpi_msg_encode(const struct vftr_vfd_mpi_msg *m, uint64_t time,
                               uint8_t out[VFTR_VFD_EXT_MAX])
{
    if (m == NULL || out == NULL)
        return 0;
    return (size_t)(put_fields(out, m, msg_fields, NFIELDS(msg_fields), time) - out);
}

int vftr_vfd_mpi_msg_decode(const uint8_t *data, size_t len, uint64_t time,
                            struct vftr_vfd_mpi_msg *m)
{
    return decode_event(data, len, m, sizeof *m, msg_fields, NFIELDS(msg_fields), time);
}

size_t vftr_vfd_mpi_coll_encode(const struct vftr_vfd_mpi_coll *c, uint64_t time,
                                uint8_t out[VFTR_VFD_EXT_MAX])
{
    if (c == NULL || out == NULL)
        return 0;
    return (size_t)(put_fields(out, c, coll_fields, NFIELDS(coll_fields), time) - out);
}

int vftr_vfd_mpi_coll_decode(const uint8_t *data, size_t len, uint64_t time,
                             struct vftr_vfd_mpi_coll *c)
{
    return decode_event(data, len, c, sizeof *c, coll_fields, NFIELDS(coll_fields), time);
}

size_t vftr_vfd_mpi_rma_encode(const struct vftr_vfd_mpi_rma *a, uint64_t time,
                               uint8_t out[VFTR_VFD_EXT_MAX])
{
    if (a == NULL || out == NULL)
        return 0;
    return (size_t)(put_fields(out, a, rma_fields, NFIELDS(rma_fields), time) - out);
}

int vftr_vfd_mpi_rma_decode(const uint8_t *data, size_t len, uint64_t time,
                            struct vftr_vfd_mpi_rma *a)
{
    return decode_event(data, len, a, sizeof *a, rma_fields, NFIELDS(rma_fields), time);
}

size_t vftr_vfd_mpi_rma_sync_encode(const struct vftr_vfd_mpi_rma_sync *y, uint64_t time,
                                    uint8_t out[VFTR_VFD_EXT_MAX])
{
    if (y == NULL || out == NULL)
        return 0;
    return (size_t)(put_fields(out, y, rma_sync_fields, NFIELDS(rma_sync_fields), time) - out);
}

int vftr_vfd_mpi_rma_sync_decode(const uint8_t *data, size_t len, uint64_t time,
                                 struct vftr_vfd_mpi_rma_sync *y)
{
    return decode_event(data, len, y, sizeof *y, rma_sync_fields, NFIELDS(rma_sync_fields),
                        time);
}

const char *vftr_vfd_rma_sync_name(uint32_t what)
{
    static const char *const names[VFTR_VFD_RMA_SYNC_COUNT] = {
        [VFTR_VFD_RMA_SYNC_FENCE] = "MPI_Win_fence",
        [VFTR_VFD_RMA_SYNC_COMPLETE] = "MPI_Win_complete",
        [VFTR_VFD_RMA_SYNC_UNLOCK] = "MPI_Win_unlock",
        [VFTR_VFD_RMA_SYNC_UNLOCK_ALL] = "MPI_Win_unlock_all",
        [VFTR_VFD_RMA_SYNC_FLUSH] = "MPI_Win_flush",
        [VFTR_VFD_RMA_SYNC_FLUSH_ALL] = "MPI_Win_flush_all",
        [VFTR_VFD_RMA_SYNC_FLUSH_LOCAL] = "MPI_Win_flush_local",
        [VFTR_VFD_RMA_SYNC_FLUSH_LOCAL_ALL] = "MPI_Win_flush_local_all",
        [VFTR_VFD_RMA_SYNC_REQUEST] = "request",
        [VFTR_VFD_RMA_SYNC_FREE] = "MPI_Win_free",
    };

    return what < VFTR_VFD_RMA_SYNC_COUNT ? names[what] : NULL;
}

const char *vftr_vfd_rma_name(uint32_t op)
{
    static const char *const names[VFTR_VFD_RMA_COUNT] = {
        [VFTR_VFD_RMA_PUT] = "MPI_Put",
        [VFTR_VFD_RMA_GET] = "MPI_Get",
        [VFTR_VFD_RMA_ACCUMULATE] = "MPI_Accumulate",
        [VFTR_VFD_RMA_GET_ACCUMULATE] = "MPI_Get_accumulate",
        [VFTR_VFD_RMA_FETCH_AND_OP] = "MPI_Fetch_and_op",
        [VFTR_VFD_RMA_COMPARE_AND_SWAP] = "MPI_Compare_and_swap",
    };

    return op < VFTR_VFD_RMA_COUNT ? names[op] : NULL;
}

size_t vftr_vfd_omp_encode(const struct vftr_vfd_omp *o, uint8_t out[VFTR_VFD_EXT_MAX])
{
    if (o == NULL || out == NULL)
        return 0;
    return (size_t)(put_fields(out, o, omp_fields, NFIELDS(omp_fields), 0) - out);
}

int vftr_vfd_omp_decode(const uint8_t *data, size_t len, struct vftr_vfd_omp *o)
{
    return decode_event(data, len, o, sizeof *o, omp_fields, NFIELDS(omp_fields), 0);
}

size_t vftr_vfd_io_encode(const struct vftr_vfd_io *io, uint64_t time,
                          uint8_t out[VFTR_VFD_EXT_MAX])
{
    if (io == NULL || out == NULL)
        return 0;
    return (size_t)(put_fields(out, io, io_fields, NFIELDS(io_fields), time) - out);
}

int vftr_vfd_io_decode(const uint8_t *data, size_t len, uint64_t time, struct vftr_vfd_io *io)
{
    return decode_event(data, len, io, sizeof *io, io_fields, NFIELDS(io_fields), time);
}

_Static_assert(NFIELDS(coll_fields) * VFD_VARINT_MAX <= VFTR_VFD_EXT_MAX,
               "the largest event record fits VFTR_VFD_EXT_MAX");
_Static_assert(NFIELDS(io_fields) * VFD_VARINT_MAX <= VFTR_VFD_EXT_MAX,
               "the I/O record fits VFTR_VFD_EXT_MAX");

/* ------------------------------------------------------------- names */

static const struct {
    const char *name;
    uint32_t otf_class;
} coll_ops[VFTR_VFD_COLL_COUNT] = {
    [VFTR_VFD_COLL_BARRIER] = { "MPI_Barrier", 1 },
    [VFTR_VFD_COLL_BCAST] = { "MPI_Bcast", 2 },
    [VFTR_VFD_COLL_REDUCE] = { "MPI_Reduce", 3 },
    [VFTR_VFD_COLL_ALLREDUCE] = { "MPI_Allreduce", 4 },
    [VFTR_VFD_COLL_GATHER] = { "MPI_Gather", 3 },
    [VFTR_VFD_COLL_GATHERV] = { "MPI_Gatherv", 3 },
    [VFTR_VFD_COLL_SCATTER] = { "MPI_Scatter", 2 },
    [VFTR_VFD_COLL_SCATTERV] = { "MPI_Scatterv", 2 },
    [VFTR_VFD_COLL_ALLGATHER] = { "MPI_Allgather", 4 },
    [VFTR_VFD_COLL_ALLGATHERV] = { "MPI_Allgatherv", 4 },
    [VFTR_VFD_COLL_ALLTOALL] = { "MPI_Alltoall", 4 },
    [VFTR_VFD_COLL_ALLTOALLV] = { "MPI_Alltoallv", 4 },
    [VFTR_VFD_COLL_ALLTOALLW] = { "MPI_Alltoallw", 4 },
    [VFTR_VFD_COLL_REDUCE_SCATTER] = { "MPI_Reduce_scatter", 4 },
    [VFTR_VFD_COLL_REDUCE_SCATTER_BLOCK] = { "MPI_Reduce_scatter_block", 4 },
    [VFTR_VFD_COLL_SCAN] = { "MPI_Scan", 4 },
    [VFTR_VFD_COLL_EXSCAN] = { "MPI_Exscan", 4 },
};

const char *vftr_vfd_coll_name(uint32_t op)
{
    return op < VFTR_VFD_COLL_COUNT ? coll_ops[op].name : NULL;
}

uint32_t vftr_vfd_coll_class(uint32_t op)
{
    return op < VFTR_VFD_COLL_COUNT ? coll_ops[op].otf_class : 0;
}

uint32_t vftr_vfd_coll_class_of_name(const char *name)
{
    for (uint32_t op = 1; op < VFTR_VFD_COLL_COUNT; op++)
        if (name && coll_ops[op].name && strcmp(coll_ops[op].name, name) == 0)
            return coll_ops[op].otf_class;
    return 0;
}

static const char *const omp_kinds[VFTR_VFD_OMP_KIND_COUNT] = {
    [VFTR_VFD_OMP_PARALLEL] = "parallel",
    [VFTR_VFD_OMP_IMPLICIT_TASK] = "implicit task",
    [VFTR_VFD_OMP_LOOP] = "loop",
    [VFTR_VFD_OMP_SECTIONS] = "sections",
    [VFTR_VFD_OMP_SINGLE] = "single",
    [VFTR_VFD_OMP_SINGLE_OTHER] = "single (other)",
    [VFTR_VFD_OMP_WORKSHARE] = "workshare",
    [VFTR_VFD_OMP_DISTRIBUTE] = "distribute",
    [VFTR_VFD_OMP_TASKLOOP] = "taskloop",
    [VFTR_VFD_OMP_BARRIER] = "barrier",
    [VFTR_VFD_OMP_BARRIER_EXPLICIT] = "barrier (explicit)",
    [VFTR_VFD_OMP_TASKWAIT] = "taskwait",
    [VFTR_VFD_OMP_TASKGROUP] = "taskgroup",
    [VFTR_VFD_OMP_MASKED] = "masked",
    [VFTR_VFD_OMP_CRITICAL_WAIT] = "critical wait",
    [VFTR_VFD_OMP_CRITICAL] = "critical",
    [VFTR_VFD_OMP_LOCK_WAIT] = "lock wait",
    [VFTR_VFD_OMP_LOCK] = "lock",
    [VFTR_VFD_OMP_ORDERED_WAIT] = "ordered wait",
    [VFTR_VFD_OMP_ORDERED] = "ordered",
    [VFTR_VFD_OMP_TASK] = "task",
    [VFTR_VFD_OMP_PARALLEL_WORKER] = "parallel (worker)",
    [VFTR_VFD_OMP_IDLE] = "idle",
};

const char *vftr_vfd_omp_kind_name(uint32_t kind)
{
    return kind < VFTR_VFD_OMP_KIND_COUNT ? omp_kinds[kind] : NULL;
}

static const char *const io_ops[] = {
    [VFTR_VFD_IO_OPEN] = "open",
    [VFTR_VFD_IO_CLOSE] = "close",
    [VFTR_VFD_IO_READ] = "read",
    [VFTR_VFD_IO_WRITE] = "write",
    [VFTR_VFD_IO_SEEK] = "seek",
    [VFTR_VFD_IO_UNLINK] = "unlink",
    [VFTR_VFD_IO_RENAME] = "rename",
    [VFTR_VFD_IO_DUP] = "dup",
    [VFTR_VFD_IO_SYNC] = "sync",
    [VFTR_VFD_IO_LOCK] = "lock",
    [VFTR_VFD_IO_UNLOCK] = "unlock",
};

const char *vftr_vfd_io_op_name(uint32_t op)
{
    if (op < sizeof io_ops / sizeof io_ops[0] && io_ops[op])
        return io_ops[op];
    return "other";
}

static const char *const io_ifaces[VFTR_VFD_IO_IFACE_COUNT] = {
    [VFTR_VFD_IO_POSIX] = "POSIX I/O",
    [VFTR_VFD_IO_STDIO] = "ISO C I/O",
    [VFTR_VFD_IO_MPI] = "MPI-IO",
};

const char *vftr_vfd_io_iface_name(uint32_t iface)
{
    return iface < VFTR_VFD_IO_IFACE_COUNT ? io_ifaces[iface] : NULL;
}

uint32_t vftr_vfd_io_otf_operation(uint32_t op, uint32_t flags)
{
    /* OTF_FILEOP_BITS, OTF_IOFLAG_IOFAILED, _ASYNC, _COLL (OTF_Definitions.h) */
    return (op & 0x1fu) | ((flags & VFTR_VFD_IO_FAILED) ? 32u : 0u) |
           ((flags & VFTR_VFD_IO_NONBLOCKING) ? 64u : 0u) |
           ((flags & VFTR_VFD_IO_COLLECTIVE) ? 128u : 0u);
}

#define PART VFTR_VFD_OMP_NAME_PART

/* Appends s[0..len) to buf at *n, as far as it fits before the NUL. */
static void name_put(char *buf, size_t size, size_t *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len && *n + 1 < size; i++)
        buf[(*n)++] = s[i];
}

size_t vftr_vfd_omp_region_name(const struct vftr_vfd_omp_region_view *v, char *buf, size_t size)
{
    const char *kind = vftr_vfd_omp_kind_name(v->r.kind), *file = v->r.file;
    size_t flen = v->file_len, fnlen = v->function_len, n = 0;

    if (size == 0)
        return 0;
    if (kind == NULL)
        kind = "region";
    /* a worker's share of a parallel region is that region */
    if (v->r.kind == VFTR_VFD_OMP_PARALLEL_WORKER)
        kind = vftr_vfd_omp_kind_name(VFTR_VFD_OMP_PARALLEL);
    /* the base name keeps the names short */
    for (size_t k = 0; k < v->file_len; k++)
        if (v->r.file[k] == '/') {
            file = v->r.file + k + 1;
            flen = v->file_len - k - 1;
        }
    name_put(buf, size, &n, "omp ", 4);
    name_put(buf, size, &n, kind, strlen(kind));
    if (v->file_len && v->r.line) {
        char digits[10];
        size_t d = sizeof digits;

        for (uint32_t line = v->r.line; line; line /= 10)
            digits[--d] = (char)('0' + line % 10);
        name_put(buf, size, &n, " @", 2);
        name_put(buf, size, &n, file, flen > PART ? PART : flen);
        name_put(buf, size, &n, ":", 1);
        name_put(buf, size, &n, digits + d, sizeof digits - d);
    } else if (v->function_len) {
        name_put(buf, size, &n, " @", 2);
        name_put(buf, size, &n, v->r.function, fnlen > PART ? PART : fnlen);
    }
    buf[n] = '\0';
    return n;
}

/* ------------------------------------------------------ definitions */

static int chunk_args_ok(const void *items, size_t n, const uint8_t *out, size_t cap)
{
    return out != NULL && cap >= VFTR_VFD_CHUNK_HEADER_SIZE && (n == 0 || items != NULL) &&
           n <= UINT32_MAX;
}

static uint8_t *put_string(uint8_t *p, const char *s, size_t len)
{
    p = vfd_put_varint(p, len);
    if (len)
        memcpy(p, s, len);
    return p + len;
}

size_t vftr_vfd_omp_regions_bound(const struct vftr_vfd_omp_region *r, size_t n)
{
    size_t total = VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; r && i < n; i++)
        total = vfd_add_bound(total, 60 + vfd_name_len(r[i].function) + vfd_name_len(r[i].file));
    return total;
}

size_t vftr_vfd_encode_omp_regions(const struct vftr_vfd_omp_region *r, size_t n, uint8_t *out,
                                   size_t cap)
{
    if (!chunk_args_ok(r, n, out, cap))
        return 0;
    uint8_t *end = vfd_payload_end(out, cap);
    uint8_t *p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++) {
        size_t fl = vfd_name_len(r[i].function), sl = vfd_name_len(r[i].file);
        size_t need = vfd_add_bound(60, vfd_add_bound(fl, sl));
        if ((size_t)(end - p) < need)
            return 0;
        p = vfd_put_varint(p, r[i].id);
        p = vfd_put_varint(p, r[i].kind);
        p = vfd_put_varint(p, r[i].codeptr);
        p = put_string(p, r[i].function, fl);
        p = put_string(p, r[i].file, sl);
        p = vfd_put_varint(p, r[i].line);
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_OMP_REGIONS, n);
}

size_t vftr_vfd_comms_bound(const struct vftr_vfd_comm *c, size_t n)
{
    size_t total = VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; c && i < n; i++)
        total = vfd_add_bound(total, vfd_add_bound(40 + vfd_name_len(c[i].name), (size_t)c[i].size * 4));
    return total;
}

size_t vftr_vfd_encode_comms(const struct vftr_vfd_comm *c, size_t n, uint8_t *out, size_t cap)
{
    if (!chunk_args_ok(c, n, out, cap))
        return 0;
    uint8_t *end = vfd_payload_end(out, cap);
    uint8_t *p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++) {
        size_t nl = vfd_name_len(c[i].name);
        size_t need = vfd_add_bound(40 + nl, (size_t)c[i].size * 4);
        if ((size_t)(end - p) < need || (c[i].size > 0 && c[i].ranks == NULL))
            return 0;
        p = vfd_put_varint(p, c[i].id);
        p = put_string(p, c[i].name, nl);
        p = vfd_put_varint(p, c[i].size);
        for (uint32_t k = 0; k < c[i].size; k++) {
            vfd_put32(p, (uint32_t)c[i].ranks[k]);
            p += 4;
        }
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_MPI_COMMS, n);
}

int32_t vftr_vfd_comm_rank(const struct vftr_vfd_comm *c, uint32_t i)
{
    if (c == NULL || i >= c->size)
        return -1;
    if (c->ranks)
        return c->ranks[i];
    return c->raw_ranks ? (int32_t)vfd_get32(c->raw_ranks + (size_t)i * 4) : -1;
}

size_t vftr_vfd_clock_offsets_bound(size_t n)
{
    return n > (SIZE_MAX - VFTR_VFD_CHUNK_HEADER_SIZE) / 40 ? SIZE_MAX
                                                            : VFTR_VFD_CHUNK_HEADER_SIZE + n * 40;
}

size_t vftr_vfd_encode_clock_offsets(const struct vftr_vfd_clock_offset *o, size_t n,
                                     uint8_t *out, size_t cap)
{
    if (!chunk_args_ok(o, n, out, cap))
        return 0;
    uint8_t *end = vfd_payload_end(out, cap);
    uint8_t *p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++) {
        if ((size_t)(end - p) < 40)
            return 0;
        p = put_fields(p, &o[i], clock_fields, NFIELDS(clock_fields), 0);
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_CLOCK_OFFSETS, n);
}

size_t vftr_vfd_encode_run_id(const uint8_t run_id[16], uint8_t *out, size_t cap)
{
    if (run_id == NULL || out == NULL || cap < VFTR_VFD_CHUNK_HEADER_SIZE + 16)
        return 0;
    memcpy(out + VFTR_VFD_CHUNK_HEADER_SIZE, run_id, 16);
    return vfd_finish_chunk(out, out + VFTR_VFD_CHUNK_HEADER_SIZE + 16, VFTR_VFD_CHUNK_RUN_ID, 1);
}

int vftr_vfd_decode_run_id(const uint8_t *payload, size_t len, uint8_t run_id[16])
{
    if (payload == NULL || len < 16 || run_id == NULL)
        return -EBADMSG;
    memcpy(run_id, payload, 16);
    return 0;
}

size_t vftr_vfd_io_files_bound(const struct vftr_vfd_io_file *f, size_t n)
{
    size_t total = VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; f && i < n; i++)
        total = vfd_add_bound(total, 30 + vfd_name_len(f[i].name));
    return total;
}

size_t vftr_vfd_encode_io_files(const struct vftr_vfd_io_file *f, size_t n, uint8_t *out,
                                size_t cap)
{
    if (!chunk_args_ok(f, n, out, cap))
        return 0;
    uint8_t *end = vfd_payload_end(out, cap);
    uint8_t *p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    for (size_t i = 0; i < n; i++) {
        size_t nl = vfd_name_len(f[i].name);
        if ((size_t)(end - p) < vfd_add_bound(30, nl))
            return 0;
        p = vfd_put_varint(p, f[i].id);
        p = vfd_put_varint(p, f[i].iface);
        p = put_string(p, f[i].name, nl);
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_IO_FILES, n);
}

/* ----------------------------------------------------------- cursors */

void vftr_vfd_cursor_init(struct vftr_vfd_cursor *c, const uint8_t *payload, size_t len,
                          uint32_t count)
{
    c->p = payload;
    c->end = payload ? payload + len : payload;
    c->left = payload ? count : 0;
}

/* Ends the cursor after a malformed entry. */
static int cursor_bad(struct vftr_vfd_cursor *c)
{
    c->p = c->end;
    c->left = 0;
    return -EBADMSG;
}

static int get_string(struct vftr_vfd_cursor *c, const char **s, size_t *len)
{
    uint64_t n;
    if (vfd_get_varint(&c->p, c->end, &n) < 0 || n > (uint64_t)(c->end - c->p))
        return -1;
    *s = (const char *)c->p;
    *len = (size_t)n;
    c->p += n;
    return 0;
}

static int get_u32(struct vftr_vfd_cursor *c, uint32_t *v)
{
    uint64_t x;
    if (vfd_get_varint(&c->p, c->end, &x) < 0 || x > UINT32_MAX)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

int vftr_vfd_next_omp_region(struct vftr_vfd_cursor *c, struct vftr_vfd_omp_region_view *out)
{
    if (c->left == 0)
        return 0;
    memset(out, 0, sizeof *out);
    if (get_u32(c, &out->r.id) < 0 || get_u32(c, &out->r.kind) < 0 ||
        vfd_get_varint(&c->p, c->end, &out->r.codeptr) < 0 ||
        get_string(c, &out->r.function, &out->function_len) < 0 ||
        get_string(c, &out->r.file, &out->file_len) < 0 || get_u32(c, &out->r.line) < 0)
        return cursor_bad(c);
    c->left--;
    return 1;
}

int vftr_vfd_next_comm(struct vftr_vfd_cursor *c, struct vftr_vfd_comm_view *out)
{
    if (c->left == 0)
        return 0;
    memset(out, 0, sizeof *out);
    if (vfd_get_varint(&c->p, c->end, &out->c.id) < 0 ||
        get_string(c, &out->c.name, &out->name_len) < 0 || get_u32(c, &out->c.size) < 0 ||
        (uint64_t)out->c.size * 4 > (uint64_t)(c->end - c->p))
        return cursor_bad(c);
    out->c.raw_ranks = c->p;
    c->p += (size_t)out->c.size * 4;
    c->left--;
    return 1;
}

int vftr_vfd_next_clock_offset(struct vftr_vfd_cursor *c, struct vftr_vfd_clock_offset *out)
{
    if (c->left == 0)
        return 0;
    memset(out, 0, sizeof *out);
    if (get_fields(&c->p, c->end, out, clock_fields, NFIELDS(clock_fields), 0) < 0)
        return cursor_bad(c);
    c->left--;
    return 1;
}

int vftr_vfd_next_io_file(struct vftr_vfd_cursor *c, struct vftr_vfd_io_file_view *out)
{
    if (c->left == 0)
        return 0;
    memset(out, 0, sizeof *out);
    if (get_u32(c, &out->f.id) < 0 || get_u32(c, &out->f.iface) < 0 ||
        get_string(c, &out->f.name, &out->name_len) < 0)
        return cursor_bad(c);
    c->left--;
    return 1;
}
