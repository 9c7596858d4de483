/*
 * vfdmpi — prints the MPI records of .vfd files (read through lib/vfd's
 * reader and the decoders of vftr_vfd_ext.h) for test/integration/mpi_*.sh:
 *
 *   vfdmpi [--root RANK0.vfd] FILE.vfd
 *
 *   rank R / size S / run_id HEX / complete 0|1 / ticks_per_second T /
 *   start_ticks T
 *   send PEER TAG BYTES COMM FLAGS THREAD     one per MPI_SEND event
 *   recv PEER TAG BYTES COMM FLAGS THREAD     one per MPI_RECV event
 *   coll NAME COMM ROOT SENT RECEIVED FLAGS   one per MPI_COLL event
 *   rma NAME TARGET WIN COMM SENT RECEIVED FLAGS SYNCED THREAD REQUEST  one per
 *       MPI_RMA event (SYNCED 1: an MPI_RMA_SYNC record ends it; REQUEST: a
 *       request form's number, 0 none)
 *   rmasync NAME TARGET WIN THREAD REQUEST    one per MPI_RMA_SYNC event
 *   comm ID SIZE RANK,RANK,... NAME           one per MPI_COMMS entry
 *   offset PHASE TICKS ROOT_TICKS RTT [NS]    one per CLOCK_OFFSETS entry;
 *                                             NS (with --root): this clock
 *                                             minus rank 0's, in ns, each
 *                                             mapped through its header
 *   call NAME ENTER EXIT                      functions flagged MPI
 *   runid_chunks N / bad N                    RUN_ID chunks, records that did
 *                                             not decode or start after their
 *                                             own time
 * Exit status: 0 read, 1 not readable, 2 usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

struct pathcount {
    uint32_t id;
    uint64_t enter, exit;
};

static struct pathcount *paths;
static size_t npaths, cap;

static struct pathcount *path_slot(uint32_t id)
{
    for (size_t i = 0; i < npaths; i++)
        if (paths[i].id == id)
            return &paths[i];
    if (npaths == cap) {
        cap = cap ? cap * 2 : 256;
        paths = realloc(paths, cap * sizeof *paths);
        if (paths == NULL) {
            fprintf(stderr, "vfdmpi: out of memory\n");
            exit(1);
        }
    }
    paths[npaths] = (struct pathcount){ .id = id };
    return &paths[npaths++];
}

/* ns of a tick of a file, through its header. */
static double to_ns(const struct vftr_vfd_info *h, uint64_t ticks)
{
    return (double)h->start_ns + ((double)ticks - (double)h->start_ticks) * 1e9
                                     / (double)(h->ticks_per_second ? h->ticks_per_second : 1);
}

int main(int argc, char **argv)
{
    const char *root_path = NULL, *path;
    struct vftr_vfd_reader *r, *root = NULL;
    const struct vftr_vfd_info *h;
    struct vftr_vfd_record rec;
    char err[VFTR_VFD_ERR_MAX];
    unsigned long bad = 0, runids = 0;
    int rc;

    if (argc == 4 && strcmp(argv[1], "--root") == 0) {
        root_path = argv[2];
        path = argv[3];
    } else if (argc == 2) {
        path = argv[1];
    } else {
        fprintf(stderr, "usage: vfdmpi [--root RANK0.vfd] FILE.vfd\n");
        return 2;
    }
    if ((r = vftr_vfd_reader_open_msg(path, err, sizeof err)) == NULL) {
        fprintf(stderr, "vfdmpi: %s\n", err);
        return 1;
    }
    if (root_path && (root = vftr_vfd_reader_open_msg(root_path, err, sizeof err)) == NULL) {
        fprintf(stderr, "vfdmpi: %s\n", err);
        return 1;
    }
    h = vftr_vfd_reader_info(r);
    printf("rank %d\nsize %d\ncomplete %d\nticks_per_second %" PRIu64 "\nstart_ticks %" PRIu64
           "\nrun_id ", h->rank, h->size, h->complete, h->ticks_per_second, h->start_ticks);
    for (int i = 0; i < 16; i++)
        printf("%02x", h->run_id[i]);
    printf("\n");
    while ((rc = vftr_vfd_reader_next(r, &rec)) > 0) {
        if (rec.type == VFTR_VFD_REC_EVENT) {
            uint64_t t = rec.u.event.time;
            uint32_t k = rec.u.event.kind;

            if (k == VFTR_VFD_ENTER)
                path_slot(rec.u.event.id)->enter++;
            else if (k == VFTR_VFD_EXIT)
                path_slot(rec.u.event.id)->exit++;
            else if (k == VFTR_VFD_MPI_SEND || k == VFTR_VFD_MPI_RECV) {
                struct vftr_vfd_mpi_msg m;

                if (vftr_vfd_mpi_msg_decode(rec.u.event.data, rec.u.event.id, t, &m) != 0
                    || m.start > t) {
                    bad++;
                    continue;
                }
                printf("%s %d %d %" PRIu64 " %" PRIu64 " %u %u\n",
                       k == VFTR_VFD_MPI_SEND ? "send" : "recv", m.peer, m.tag, m.bytes, m.comm,
                       m.flags, rec.thread);
            } else if (k == VFTR_VFD_MPI_COLL) {
                struct vftr_vfd_mpi_coll c;
                const char *name;

                if (vftr_vfd_mpi_coll_decode(rec.u.event.data, rec.u.event.id, t, &c) != 0
                    || c.start > t || (name = vftr_vfd_coll_name(c.op)) == NULL) {
                    bad++;
                    continue;
                }
                printf("coll %s %" PRIu64 " %d %" PRIu64 " %" PRIu64 " %u\n", name, c.comm,
                       c.root, c.sent, c.received, c.flags);
            } else if (k == VFTR_VFD_MPI_RMA) {
                struct vftr_vfd_mpi_rma a;
                const char *name;

                if (vftr_vfd_mpi_rma_decode(rec.u.event.data, rec.u.event.id, t, &a) != 0
                    || a.start > t || (name = vftr_vfd_rma_name(a.op)) == NULL) {
                    bad++;
                    continue;
                }
                /* (the request form in the flags column; whether a
                 * synchronisation record ends it, after) */
                printf("rma %s %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %d %u %" PRIu64
                       "\n", name, a.target, a.win, a.comm, a.sent, a.received,
                       a.flags & ~VFTR_VFD_RMA_ENDS_AT_SYNC,
                       (a.flags & VFTR_VFD_RMA_ENDS_AT_SYNC) != 0, rec.thread, a.request);
            } else if (k == VFTR_VFD_MPI_RMA_SYNC) {
                struct vftr_vfd_mpi_rma_sync y;
                const char *name;

                if (vftr_vfd_mpi_rma_sync_decode(rec.u.event.data, rec.u.event.id, t, &y) != 0
                    || y.start > t || (name = vftr_vfd_rma_sync_name(y.what)) == NULL) {
                    bad++;
                    continue;
                }
                printf("rmasync %s %d %" PRIu64 " %u %" PRIu64 "\n", name, y.target, y.win,
                       rec.thread, y.request);
            }
        } else if (rec.type == VFTR_VFD_REC_UNKNOWN) {
            struct vftr_vfd_cursor cur;
            const uint8_t *p = rec.u.unknown.payload;
            uint32_t len = rec.u.unknown.length, n = rec.u.unknown.count;

            vftr_vfd_cursor_init(&cur, p, len, n);
            if (rec.u.unknown.kind == VFTR_VFD_CHUNK_MPI_COMMS) {
                struct vftr_vfd_comm_view v;

                while ((rc = vftr_vfd_next_comm(&cur, &v)) > 0) {
                    printf("comm %" PRIu64 " %u ", v.c.id, v.c.size);
                    for (uint32_t i = 0; i < v.c.size; i++)
                        printf("%s%d", i ? "," : "", vftr_vfd_comm_rank(&v.c, i));
                    printf(" %.*s\n", (int)v.name_len, v.c.name);
                }
                bad += rc < 0;
            } else if (rec.u.unknown.kind == VFTR_VFD_CHUNK_CLOCK_OFFSETS) {
                struct vftr_vfd_clock_offset o;

                while ((rc = vftr_vfd_next_clock_offset(&cur, &o)) > 0) {
                    printf("offset %u %" PRIu64 " %" PRIu64 " %" PRIu64, o.phase, o.ticks,
                           o.root_ticks, o.rtt);
                    if (root)
                        printf(" %.0f", to_ns(h, o.ticks)
                                            - to_ns(vftr_vfd_reader_info(root), o.root_ticks));
                    printf("\n");
                }
                bad += rc < 0;
            } else if (rec.u.unknown.kind == VFTR_VFD_CHUNK_RUN_ID) {
                uint8_t id[16];

                if (vftr_vfd_decode_run_id(p, len, id) != 0 || memcmp(id, h->run_id, 16) != 0)
                    bad++;
                runids++;
            }
        }
    }
    if (rc < 0)
        bad++;
    for (size_t i = 0; i < npaths; i++) {
        const struct vftr_vfd_callpath *cp = vftr_vfd_reader_callpath(r, paths[i].id);
        const struct vftr_vfd_function *f = cp ? vftr_vfd_reader_function(r, cp->function) : NULL;

        if (f && (f->flags & VFTR_VFD_FUNC_MPI))
            printf("call %s %" PRIu64 " %" PRIu64 "\n", f->name, paths[i].enter, paths[i].exit);
    }
    printf("runid_chunks %lu\nbad %lu\n", runids, bad);
    free(paths);
    vftr_vfd_reader_close(r);
    if (root)
        vftr_vfd_reader_close(root);
    return 0;
}
