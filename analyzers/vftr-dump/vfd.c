/*
 * vfd.c — vftr-dump for .vfd files (see vfd.h).  Records come from lib/vfd's
 * reader in file order; the MPI and OpenMP ones are decoded with
 * vftr_vfd_ext.h.  Each line starts with a keyword, so that scripts can grep.
 */
#include "vfd.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"
#include "util/regfile.h"

static const unsigned char vfd_magic[8] = { 0x89, 'V', 'F', 'D', 0x0d, 0x0a, 0x1a, 0x0a };

int vftr_dump_is_vfd(const char *path)
{
    unsigned char m[8];
    size_t l = strlen(path);
    int fd = vftr_open_regular(path, O_RDONLY, 0, NULL);   /* never waits on a FIFO */
    ssize_t n = fd >= 0 ? read(fd, m, sizeof m) : -1;

    if (fd >= 0)
        close(fd);
    if (n == (ssize_t)sizeof m && memcmp(m, vfd_magic, sizeof m) == 0)
        return 1;
    return l > 4 && strcmp(path + l - 4, ".vfd") == 0;
}

/* Record counts for --count, by line keyword. */
enum {
    C_THREAD, C_FUNCTION, C_CALLPATH, C_COMM, C_OMPREGION, C_CLOCK, C_RUNID, C_IOFILE, C_CHUNK,
    C_ENTER, C_EXIT, C_SAMPLE, C_PAUSE, C_RESUME, C_SEND, C_RECV, C_COLL, C_RMA, C_RMA_SYNC,
    C_OMP_BEGIN, C_OMP_END, C_IO, C_EVENT, C_N
};
static const char *const count_name[C_N] = {
    "THREAD", "FUNCTION", "CALLPATH", "COMM", "OMPREGION", "CLOCKOFFSET", "RUNID", "IOFILE",
    "CHUNK", "ENTER", "EXIT", "SAMPLE", "PAUSE", "RESUME", "SEND", "RECV", "COLL", "RMA", "RMA_SYNC",
    "OMP_BEGIN",
    "OMP_END", "IO", "EVENT",
};

struct ctx {
    FILE *out;                  /* NULL: count only */
    uint64_t counts[C_N];
    const struct vftr_vfd_info *info;
};

static void hex16(char out[33], const uint8_t id[16])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", id[i]);
}

static void print_header(FILE *out, const struct vftr_vfd_info *h, const char *path)
{
    char id[33];

    hex16(id, h->run_id);
    fprintf(out, "HEADER file=%s version=%" PRIu32 " rank=%" PRId32 " size=%" PRId32
            " pid=%" PRId64 "\n", path, h->version, h->rank, h->size, h->pid);
    fprintf(out, "HEADER run_id=%s host=%s exe=%s\n", id, h->host, h->exe);
    fprintf(out, "HEADER ticks_per_second=%" PRIu64 " start_ns=%" PRIu64 " start_ticks=%" PRIu64
            " end_ns=%" PRIu64 " end_ticks=%" PRIu64 "\n", h->ticks_per_second, h->start_ns,
            h->start_ticks, h->end_ns, h->end_ticks);
    fprintf(out, "HEADER events=%" PRIu64 " chunks=%" PRIu64 " bytes=%" PRIu64
            " events_lost=%" PRIu64 " signal=%" PRId32 " complete=%d capped=%d abandoned=%d\n",
            h->events, h->chunks, h->bytes, h->events_lost, h->signal, h->complete, h->capped,
            h->abandoned);
}

/* A definition chunk of the MPI/OpenMP/I/O kinds (a VFTR_VFD_REC_UNKNOWN record). */
static int print_ext_chunk(struct ctx *c, const struct vftr_vfd_record *rec)
{
    struct vftr_vfd_cursor cur;
    const uint8_t *p = rec->u.unknown.payload;
    size_t len = rec->u.unknown.length;
    FILE *out = c->out;
    int rc = 0;

    vftr_vfd_cursor_init(&cur, p, len, rec->u.unknown.count);
    switch (rec->u.unknown.kind) {
    case VFTR_VFD_CHUNK_MPI_COMMS: {
        struct vftr_vfd_comm_view v;

        while ((rc = vftr_vfd_next_comm(&cur, &v)) == 1) {
            c->counts[C_COMM]++;
            if (!out)
                continue;
            fprintf(out, "COMM id=0x%" PRIx64 " size=%" PRIu32 " name=%.*s ranks=", v.c.id,
                    v.c.size, (int)v.name_len, v.c.name);
            for (uint32_t i = 0; i < v.c.size; i++)
                fprintf(out, "%s%" PRId32, i ? "," : "", vftr_vfd_comm_rank(&v.c, i));
            fputc('\n', out);
        }
        break;
    }
    case VFTR_VFD_CHUNK_OMP_REGIONS: {
        struct vftr_vfd_omp_region_view v;

        while ((rc = vftr_vfd_next_omp_region(&cur, &v)) == 1) {
            const char *k = vftr_vfd_omp_kind_name(v.r.kind);

            c->counts[C_OMPREGION]++;
            if (out)
                fprintf(out, "OMPREGION %" PRIu32 " kind=%s codeptr=0x%" PRIx64
                        " function=%.*s file=%.*s line=%" PRIu32 "\n", v.r.id, k ? k : "?",
                        v.r.codeptr, (int)v.function_len, v.r.function, (int)v.file_len,
                        v.r.file, v.r.line);
        }
        break;
    }
    case VFTR_VFD_CHUNK_CLOCK_OFFSETS: {
        struct vftr_vfd_clock_offset o;

        while ((rc = vftr_vfd_next_clock_offset(&cur, &o)) == 1) {
            c->counts[C_CLOCK]++;
            if (out)
                fprintf(out, "CLOCKOFFSET phase=%s ticks=%" PRIu64 " root_ticks=%" PRIu64
                        " rtt=%" PRIu64 "\n", o.phase == VFTR_VFD_CLOCK_INIT ? "init" :
                        o.phase == VFTR_VFD_CLOCK_FINALIZE ? "finalize" : "?", o.ticks,
                        o.root_ticks, o.rtt);
        }
        break;
    }
    case VFTR_VFD_CHUNK_IO_FILES: {
        struct vftr_vfd_io_file_view v;

        while ((rc = vftr_vfd_next_io_file(&cur, &v)) == 1) {
            const char *k = vftr_vfd_io_iface_name(v.f.iface);

            c->counts[C_IOFILE]++;
            if (out)
                fprintf(out, "IOFILE %" PRIu32 " iface=%s name=%.*s\n", v.f.id, k ? k : "?",
                        (int)v.name_len, v.f.name);
        }
        break;
    }
    case VFTR_VFD_CHUNK_RUN_ID: {
        uint8_t id[16];
        char hex[33];

        rc = vftr_vfd_decode_run_id(p, len, id);
        if (rc == 0) {
            c->counts[C_RUNID]++;
            hex16(hex, id);
            if (out)
                fprintf(out, "RUNID %s\n", hex);
        }
        break;
    }
    default:
        c->counts[C_CHUNK]++;
        if (out)
            fprintf(out, "CHUNK kind=%u count=%" PRIu32 " length=%zu offset=%" PRIu64
                    "\n", (unsigned)rec->u.unknown.kind, rec->u.unknown.count, len, rec->offset);
        return 0;
    }
    return rc < 0 ? -EBADMSG : 0;
}

static int print_event(struct ctx *c, struct vftr_vfd_reader *rd, const struct vftr_vfd_record *rec)
{
    FILE *out = c->out;
    uint64_t t = rec->u.event.time;
    uint32_t th = rec->thread, id = rec->u.event.id;
    const uint8_t *d = rec->u.event.data;

    switch (rec->u.event.kind) {
    case VFTR_VFD_ENTER:
    case VFTR_VFD_EXIT:
    case VFTR_VFD_SAMPLE: {
        static const char *const kw[] = { NULL, "ENTER", "EXIT", "SAMPLE" };
        const char *name = vftr_vfd_reader_callpath_name(rd, id);

        c->counts[C_ENTER + rec->u.event.kind - 1]++;
        if (out)
            fprintf(out, "%" PRIu64 " T%" PRIu32 " %s %" PRIu32 " %s\n", t, th,
                    kw[rec->u.event.kind], id, name ? name : "?");
        return 0;
    }
    case VFTR_VFD_PAUSE:
    case VFTR_VFD_RESUME:
        c->counts[rec->u.event.kind == VFTR_VFD_PAUSE ? C_PAUSE : C_RESUME]++;
        if (out)
            fprintf(out, "%" PRIu64 " T%" PRIu32 " %s\n", t, th,
                    rec->u.event.kind == VFTR_VFD_PAUSE ? "PAUSE" : "RESUME");
        return 0;
    case VFTR_VFD_MPI_SEND:
    case VFTR_VFD_MPI_RECV: {
        struct vftr_vfd_mpi_msg m;
        int send = rec->u.event.kind == VFTR_VFD_MPI_SEND;

        if (vftr_vfd_mpi_msg_decode(d, id, t, &m) < 0)
            return -EBADMSG;
        c->counts[send ? C_SEND : C_RECV]++;
        if (out)
            fprintf(out, "%" PRIu64 " T%" PRIu32 " %s peer=%" PRId32 " tag=%" PRId32
                    " bytes=%" PRIu64 " comm=0x%" PRIx64 " start=%" PRIu64 " flags=0x%" PRIx32
                    "\n", t, th, send ? "SEND" : "RECV", m.peer, m.tag, m.bytes, m.comm, m.start,
                    m.flags);
        return 0;
    }
    case VFTR_VFD_MPI_COLL: {
        struct vftr_vfd_mpi_coll m;
        const char *name;

        if (vftr_vfd_mpi_coll_decode(d, id, t, &m) < 0)
            return -EBADMSG;
        name = vftr_vfd_coll_name(m.op);
        c->counts[C_COLL]++;
        if (out)
            fprintf(out, "%" PRIu64 " T%" PRIu32 " COLL op=%s comm=0x%" PRIx64 " root=%" PRId32
                    " sent=%" PRIu64 " received=%" PRIu64 " start=%" PRIu64 " flags=0x%" PRIx32
                    "\n", t, th, name ? name : "?", m.comm, m.root, m.sent, m.received, m.start,
                    m.flags);
        return 0;
    }
    case VFTR_VFD_MPI_RMA: {
        struct vftr_vfd_mpi_rma a;
        const char *name;

        if (vftr_vfd_mpi_rma_decode(d, id, t, &a) < 0)
            return -EBADMSG;
        name = vftr_vfd_rma_name(a.op);
        c->counts[C_RMA]++;
        if (out) {
            fprintf(out, "%" PRIu64 " T%" PRIu32 " RMA op=%s target=%" PRId32 " win=0x%" PRIx64
                    " comm=0x%" PRIx64 " sent=%" PRIu64 " received=%" PRIu64 " start=%" PRIu64
                    " flags=0x%" PRIx32, t, th, name ? name : "?", a.target, a.win, a.comm,
                    a.sent, a.received, a.start, a.flags);
            if (a.request)      /* (an optional field: only where the record has it) */
                fprintf(out, " request=%" PRIu64, a.request);
            fputc('\n', out);
        }
        return 0;
    }
    case VFTR_VFD_MPI_RMA_SYNC: {
        struct vftr_vfd_mpi_rma_sync y;
        const char *name;

        if (vftr_vfd_mpi_rma_sync_decode(d, id, t, &y) < 0)
            return -EBADMSG;
        name = vftr_vfd_rma_sync_name(y.what);
        c->counts[C_RMA_SYNC]++;
        if (out) {
            fprintf(out, "%" PRIu64 " T%" PRIu32 " RMA_SYNC what=%s target=%" PRId32
                    " win=0x%" PRIx64 " start=%" PRIu64, t, th, name ? name : "?", y.target,
                    y.win, y.start);
            if (y.request)
                fprintf(out, " request=%" PRIu64, y.request);
            fputc('\n', out);
        }
        return 0;
    }
    case VFTR_VFD_OMP_BEGIN:
    case VFTR_VFD_OMP_END: {
        struct vftr_vfd_omp o;
        int begin = rec->u.event.kind == VFTR_VFD_OMP_BEGIN;

        if (vftr_vfd_omp_decode(d, id, &o) < 0)
            return -EBADMSG;
        c->counts[begin ? C_OMP_BEGIN : C_OMP_END]++;
        if (out)
            fprintf(out, "%" PRIu64 " T%" PRIu32 " %s region=%" PRIu32 " instance=%" PRIu64
                    " value=%" PRIu64 "\n", t, th, begin ? "OMP_BEGIN" : "OMP_END", o.region,
                    o.instance, o.value);
        return 0;
    }
    case VFTR_VFD_IO: {
        struct vftr_vfd_io io;

        if (vftr_vfd_io_decode(d, id, t, &io) < 0)
            return -EBADMSG;
        c->counts[C_IO]++;
        if (out)
            fprintf(out, "%" PRIu64 " T%" PRIu32 " IO op=%s file=%" PRIu32 " handle=%" PRIu64
                    " bytes=%" PRIu64 " start=%" PRIu64 " offset=%" PRIu64 " aux=0x%" PRIx64
                    " flags=0x%" PRIx32 "\n", t, th, vftr_vfd_io_op_name(io.op), io.file,
                    io.handle, io.bytes, io.start, io.offset, io.aux, io.flags);
        return 0;
    }
    default:
        c->counts[C_EVENT]++;
        if (out)
            fprintf(out, "%" PRIu64 " T%" PRIu32 " EVENT kind=%" PRIu32 " length=%" PRIu32 "\n",
                    t, th, rec->u.event.kind, id);
        return 0;
    }
}

static void print_def(struct ctx *c, struct vftr_vfd_reader *rd, const struct vftr_vfd_record *rec)
{
    FILE *out = c->out;

    switch (rec->type) {
    case VFTR_VFD_REC_THREAD: {
        const struct vftr_vfd_thread *t = &rec->u.thread;

        c->counts[C_THREAD]++;
        if (!out)
            return;
        if (t->parent == VFTR_VFD_NO_THREAD)
            fprintf(out, "THREAD %" PRIu32 " parent=- os_tid=%" PRIu64 " created=%" PRIu64
                    " name=%s\n", t->id, t->os_tid, t->created, t->name);
        else
            fprintf(out, "THREAD %" PRIu32 " parent=%" PRIu32 " os_tid=%" PRIu64 " created=%"
                    PRIu64 " name=%s\n", t->id, t->parent, t->os_tid, t->created, t->name);
        return;
    }
    case VFTR_VFD_REC_FUNCTION:
        c->counts[C_FUNCTION]++;
        if (out)
            fprintf(out, "FUNCTION %" PRIu32 " flags=0x%" PRIx32 " address=0x%" PRIx64
                    " name=%s\n", rec->u.function.id, rec->u.function.flags,
                    rec->u.function.address, rec->u.function.name);
        return;
    case VFTR_VFD_REC_CALLPATH: {
        const struct vftr_vfd_function *f = vftr_vfd_reader_function(rd, rec->u.callpath.function);

        c->counts[C_CALLPATH]++;
        if (out)
            fprintf(out, "CALLPATH %" PRIu32 " parent=%" PRIu32 " function=%" PRIu32
                    " (%s) thread=%" PRIu32 "\n", rec->u.callpath.id, rec->u.callpath.parent,
                    rec->u.callpath.function, f ? f->name : "?", rec->u.callpath.thread);
        return;
    }
    default:
        return;
    }
}

int vftr_dump_vfd(const struct vftr_tool *tool, const struct vftr_dump_vfd_args *args,
                  const char *path)
{
    static char outbuf[1u << 20];
    char err[VFTR_VFD_ERR_MAX], terr[VFTR_ERRMSG_MAX];
    struct vftr_vfd_reader *rd = vftr_vfd_reader_open_msg(path, err, sizeof err);
    struct vftr_timerange range = { 0, UINT64_MAX };
    struct ctx c;
    struct vftr_vfd_record rec;
    int rc = VFTR_EXIT_OK;

    if (!rd)
        return vftr_tool_fail(tool, stderr, "%s", err);
    memset(&c, 0, sizeof c);
    c.info = vftr_vfd_reader_info(rd);
    c.out = args->count_only ? NULL : stdout;
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (args->sel && args->sel->window) {
        struct vftr_timebase base = { c.info->ticks_per_second, c.info->start_ticks };
        int trc = vftr_timerange_parse(args->sel->window, &base, &range, terr, sizeof terr);

        if (trc < 0) {
            vftr_vfd_reader_close(rd);
            return vftr_tool_usage_fail(tool, stderr, "%s", terr);
        }
    }
    if (args->header && c.out)
        print_header(c.out, c.info, path);
    /* "rank R thread T" names this file's rank (a file of a run without
     * MPI is rank 0) and its vftr thread numbers */
    uint32_t rank = c.info->rank > 0 ? (uint32_t)c.info->rank : 0;
    for (size_t k = 0; args->sel && k < args->sel->nranks; k++) {
        const struct vftr_ranksel *r = &args->sel->ranks[k];

        if (rank < r->rank_first || rank > r->rank_last) {
            vftr_vfd_reader_close(rd);
            fflush(stdout);
            return vftr_tool_fail(tool, stderr, "%s: no %s in this file (it holds rank %" PRIu32
                                  ")", path, r->text, rank);
        }
    }
    for (;;) {
        unsigned before = vftr_vfd_reader_warnings(rd);
        int n = vftr_vfd_reader_next(rd, &rec);

        if (vftr_vfd_reader_warnings(rd) != before && vftr_vfd_reader_warning(rd)) {
            fflush(stdout);
            fprintf(stderr, "%s: warning: %s\n", tool->name, vftr_vfd_reader_warning(rd));
        }
        if (n == 0)
            break;
        if (n < 0) {
            fflush(stdout);
            rc = vftr_tool_fail(tool, stderr, "%s", vftr_vfd_reader_error(rd)
                                ? vftr_vfd_reader_error(rd) : path);
            break;
        }
        if (rec.type == VFTR_VFD_REC_EVENT) {
            if (!args->events || rec.u.event.time < range.start || rec.u.event.time >= range.end)
                continue;
            if (args->sel && args->sel->have_procs &&
                !vftr_proclist_contains(&args->sel->procs, rec.thread) &&
                !vftr_tracesel_names_match(args->sel, rank, rec.thread))
                continue;
            if (print_event(&c, rd, &rec) < 0) {
                fflush(stdout);
                fprintf(stderr, "%s: warning: %s: offset %" PRIu64 ": malformed record of kind %"
                        PRIu32 " (%" PRIu32 " bytes) skipped\n", tool->name, path, rec.offset,
                        rec.u.event.kind, rec.u.event.id);
            }
        } else if (args->defs) {
            if (rec.type == VFTR_VFD_REC_UNKNOWN) {
                if (print_ext_chunk(&c, &rec) < 0) {
                    fflush(stdout);
                    fprintf(stderr, "%s: warning: %s: offset %" PRIu64 ": malformed chunk of "
                            "kind %u\n", tool->name, path, rec.offset,
                            (unsigned)rec.u.unknown.kind);
                }
            } else {
                print_def(&c, rd, &rec);
            }
        }
    }
    if (args->count_only) {
        uint64_t total = 0;

        for (int i = 0; i < C_N; i++) {
            if (!c.counts[i])
                continue;
            printf("%-28s %" PRIu64 "\n", count_name[i], c.counts[i]);
            total += c.counts[i];
        }
        printf("%-28s %" PRIu64 "\n", "total", total);
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = vftr_tool_fail(tool, stderr, "write error: %s", strerror(errno));
    vftr_vfd_reader_close(rd);
    return rc;
}
