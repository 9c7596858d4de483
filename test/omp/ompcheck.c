/*
 * ompcheck — reads a .vfd through lib/vfd's reader and the decoders of
 * vftr_vfd_ext.h and prints the OpenMP regions it holds, per thread, for
 * test/integration/omp_*.sh:
 *
 *   file PATH
 *   threads N            thread definitions
 *   regions N            OMP_REGIONS entries
 *   events N             OMP_BEGIN + OMP_END events
 *   undefined N          events whose region was not defined before them
 *   unbalanced N         ENDs that do not match the innermost open BEGIN of
 *                        their thread (region and instance)
 *   open N               BEGINs never ended
 *   open_kind KIND N     ... of this kind (after the totals)
 *   nested_parallel N    PARALLEL begins inside an implicit task of the
 *                        same thread (nested parallelism)
 *   badkind N            region definitions of an unknown kind
 *   count TID KIND N     BEGINs per OS thread id and kind
 *   total KIND N         BEGINs per kind
 *   time KIND SUM_US MIN_US MAX_US   durations of the ended regions (0.1 us)
 *   region KIND FUNCTION FILE LINE   one line per definition (FUNCTION and
 *                        FILE "-" if unknown, LINE 0 if unknown)
 *   value KIND V N       with --values: N ended regions whose END carried V
 *   mpi_send TID N / mpi_recv TID N   MPI message events per OS thread
 *
 * KIND is vftr_vfd_omp_kind_name() written as one word (spaces become '_',
 * parentheses are dropped: "implicit_task", "single_other").
 *
 * Exit status: 0 read, 1 not readable as a .vfd or a malformed OpenMP
 * record (message on stderr), 2 usage.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

#define NK VFTR_VFD_OMP_KIND_COUNT

struct region {
    uint32_t kind;
    bool defined;
};

struct open_region {
    uint32_t region, kind;
    uint64_t instance, time;
};

struct thr {
    uint32_t id;
    uint64_t begins[NK];
    uint64_t sends, recvs;      /* MPI_SEND / MPI_RECV events */
    struct open_region *stack;
    size_t depth, cap;
};

static struct region *regions;
static size_t nregions;
static struct thr *thrs;
static size_t nthrs;
static uint64_t tsum[NK], tmin[NK], tmax[NK], tcount[NK];

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "ompcheck: out of memory\n");
        exit(1);
    }
    return p;
}

/* Thread ids are small and dense (0, 1, ... in order of creation): the
 * table is indexed by id and grows as needed. */
static struct thr *thread_of(uint32_t id)
{
    if (id > 65535) {
        fprintf(stderr, "ompcheck: thread id %u: expected at most 65535\n", id);
        exit(1);
    }
    if (id >= nthrs) {
        size_t cap = id + 1 > 2 * nthrs ? (size_t)id + 1 : 2 * nthrs;

        thrs = xrealloc(thrs, cap * sizeof *thrs);
        memset(thrs + nthrs, 0, (cap - nthrs) * sizeof *thrs);
        for (size_t i = nthrs; i < cap; i++)
            thrs[i].id = (uint32_t)i;
        nthrs = cap;
    }
    return &thrs[id];
}

/* Kind name as one word (static buffer per call site is enough here). */
static const char *slug(uint32_t kind, char *buf, size_t len)
{
    const char *n = vftr_vfd_omp_kind_name(kind);
    size_t o = 0;

    if (n == NULL)
        n = "unknown";
    for (; *n && o + 1 < len; n++) {
        if (*n == ' ')
            buf[o++] = '_';
        else if (*n != '(' && *n != ')')
            buf[o++] = *n;
    }
    buf[o] = '\0';
    return buf;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ompcheck [--values] FILE.vfd\n");
}

int main(int argc, char **argv)
{
    struct vftr_vfd_reader *r;
    struct vftr_vfd_record rec;
    char err[VFTR_VFD_ERR_MAX], k1[64];
    uint64_t events = 0, undefined = 0, unbalanced = 0, open = 0, nested = 0, badkind = 0;
    uint64_t ndefs = 0;
    bool values = false;
    const char *path = NULL;
    double tps;
    int rc;
    /* (kind, value) of ended regions, for --values */
    struct { uint32_t kind; uint64_t value, n; } *vals = NULL;
    size_t nvals = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--values") == 0)
            values = true;
        else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (path == NULL)
            path = argv[i];
        else {
            usage(stderr);
            return 2;
        }
    }
    if (path == NULL) {
        usage(stderr);
        return 2;
    }
    if ((r = vftr_vfd_reader_open_msg(path, err, sizeof err)) == NULL) {
        fprintf(stderr, "ompcheck: %s\n", err);
        return 1;
    }
    if (vftr_vfd_reader_scan_definitions(r) < 0) {
        fprintf(stderr, "ompcheck: %s\n", vftr_vfd_reader_error(r));
        return 1;
    }
    tps = vftr_vfd_reader_info(r)->ticks_per_second;
    if (tps <= 0)
        tps = 1e9;
    printf("file %s\n", path);
    while ((rc = vftr_vfd_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            fprintf(stderr, "ompcheck: %s\n", vftr_vfd_reader_error(r));
            return 1;
        }
        if (rec.type == VFTR_VFD_REC_UNKNOWN && rec.u.unknown.kind == VFTR_VFD_CHUNK_OMP_REGIONS) {
            struct vftr_vfd_cursor c;
            struct vftr_vfd_omp_region_view v;
            int n;

            vftr_vfd_cursor_init(&c, rec.u.unknown.payload, rec.u.unknown.length,
                                 rec.u.unknown.count);
            while ((n = vftr_vfd_next_omp_region(&c, &v)) == 1) {
                ndefs++;
                if (v.r.id >= nregions) {
                    size_t cap = v.r.id + 1 > 2 * nregions ? v.r.id + 1 : 2 * nregions;

                    regions = xrealloc(regions, cap * sizeof *regions);
                    memset(regions + nregions, 0, (cap - nregions) * sizeof *regions);
                    nregions = cap;
                }
                regions[v.r.id].kind = v.r.kind;
                regions[v.r.id].defined = true;
                if (vftr_vfd_omp_kind_name(v.r.kind) == NULL)
                    badkind++;
                printf("region %s %.*s %.*s %" PRIu32 "\n", slug(v.r.kind, k1, sizeof k1),
                       v.function_len ? (int)v.function_len : 1,
                       v.function_len ? v.r.function : "-", v.file_len ? (int)v.file_len : 1,
                       v.file_len ? v.r.file : "-", v.r.line);
            }
            if (n < 0) {
                fprintf(stderr, "ompcheck: %s: offset %" PRIu64 ": malformed OMP_REGIONS chunk\n",
                        path, rec.offset);
                return 1;
            }
            continue;
        }
        if (rec.type == VFTR_VFD_REC_EVENT && rec.u.event.kind == VFTR_VFD_MPI_SEND)
            thread_of(rec.thread)->sends++;
        if (rec.type == VFTR_VFD_REC_EVENT && rec.u.event.kind == VFTR_VFD_MPI_RECV)
            thread_of(rec.thread)->recvs++;
        if (rec.type != VFTR_VFD_REC_EVENT
            || (rec.u.event.kind != VFTR_VFD_OMP_BEGIN && rec.u.event.kind != VFTR_VFD_OMP_END))
            continue;

        struct vftr_vfd_omp o;
        struct thr *t = thread_of(rec.thread);

        events++;
        if (vftr_vfd_omp_decode(rec.u.event.data, rec.u.event.id, &o) < 0) {
            fprintf(stderr, "ompcheck: %s: offset %" PRIu64 ": malformed OpenMP event\n", path,
                    rec.offset);
            return 1;
        }
        if (o.region >= nregions || !regions[o.region].defined) {
            undefined++;
            continue;
        }
        uint32_t kind = regions[o.region].kind;

        if (kind >= NK)
            continue;
        if (rec.u.event.kind == VFTR_VFD_OMP_BEGIN) {
            if (kind == VFTR_VFD_OMP_PARALLEL)
                for (size_t i = 0; i < t->depth; i++)
                    if (t->stack[i].kind == VFTR_VFD_OMP_IMPLICIT_TASK) {
                        nested++;
                        break;
                    }
            if (t->depth == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 16;
                t->stack = xrealloc(t->stack, t->cap * sizeof *t->stack);
            }
            t->stack[t->depth++] = (struct open_region){ o.region, kind, o.instance,
                                                         rec.u.event.time };
            t->begins[kind]++;
        } else {
            struct open_region *top = t->depth ? &t->stack[t->depth - 1] : NULL;
            uint64_t d;

            if (top == NULL || top->region != o.region || top->instance != o.instance) {
                unbalanced++;
                continue;
            }
            t->depth--;
            d = rec.u.event.time - top->time;
            if (tcount[kind] == 0 || d < tmin[kind])
                tmin[kind] = d;
            if (d > tmax[kind])
                tmax[kind] = d;
            tsum[kind] += d;
            tcount[kind]++;
            if (values) {
                size_t i;

                for (i = 0; i < nvals; i++)
                    if (vals[i].kind == kind && vals[i].value == o.value)
                        break;
                if (i == nvals) {
                    vals = xrealloc(vals, (nvals + 1) * sizeof *vals);
                    vals[nvals].kind = kind;
                    vals[nvals].value = o.value;
                    vals[nvals++].n = 0;
                }
                vals[i].n++;
            }
        }
    }

    uint64_t total[NK] = { 0 }, open_kind[NK] = { 0 };

    for (size_t i = 0; i < nthrs; i++) {
        const struct vftr_vfd_thread *d = vftr_vfd_reader_thread(r, thrs[i].id);

        open += thrs[i].depth;
        if (thrs[i].sends)
            printf("mpi_send %" PRIu64 " %" PRIu64 "\n", d ? d->os_tid : 0, thrs[i].sends);
        if (thrs[i].recvs)
            printf("mpi_recv %" PRIu64 " %" PRIu64 "\n", d ? d->os_tid : 0, thrs[i].recvs);
        for (size_t j = 0; j < thrs[i].depth; j++)
            open_kind[thrs[i].stack[j].kind]++;
        for (uint32_t k = 1; k < NK; k++) {
            total[k] += thrs[i].begins[k];
            if (thrs[i].begins[k])
                printf("count %" PRIu64 " %s %" PRIu64 "\n", d ? d->os_tid : 0,
                       slug(k, k1, sizeof k1), thrs[i].begins[k]);
        }
    }
    printf("threads %zu\nregions %" PRIu64 "\nevents %" PRIu64 "\nundefined %" PRIu64
           "\nunbalanced %" PRIu64 "\nopen %" PRIu64 "\nnested_parallel %" PRIu64
           "\nbadkind %" PRIu64 "\n",
           vftr_vfd_reader_thread_count(r), ndefs, events, undefined, unbalanced, open, nested,
           badkind);
    for (uint32_t k = 1; k < NK; k++) {
        printf("total %s %" PRIu64 "\n", slug(k, k1, sizeof k1), total[k]);
        if (open_kind[k])
            printf("open_kind %s %" PRIu64 "\n", slug(k, k1, sizeof k1), open_kind[k]);
        if (tcount[k])
            printf("time %s %.1f %.1f %.1f\n", slug(k, k1, sizeof k1), tsum[k] / tps * 1e6,
                   tmin[k] / tps * 1e6, tmax[k] / tps * 1e6);
    }
    for (size_t i = 0; i < nvals; i++)
        printf("value %s %" PRIu64 " %" PRIu64 "\n", slug(vals[i].kind, k1, sizeof k1),
               vals[i].value, vals[i].n);
    for (size_t i = 0; i < nthrs; i++)
        free(thrs[i].stack);
    free(thrs);
    free(regions);
    free(vals);
    vftr_vfd_reader_close(r);
    return 0;
}
