/*
 * iostat.c — see iostat.h.  Per process: its stack of functions (the
 * top is what an operation is booked under) and its operations begun and
 * not ended (matching id -> begin time and function).
 */
#include "iostat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "u64map.h"
#include "util/errmsg.h"

struct pending {
    uint64_t match, time;
    uint32_t function;
};

struct iproc {
    uint32_t *stack;
    size_t depth, cap;
    struct pending *ops;
    size_t nops, capops;
};

struct vftr_iostat {
    uint64_t a;
    struct vftr_window_handler h;
    struct iproc *procs;
    size_t nprocs, capprocs;
    struct vftr_u64map pmap;        /* process token -> procs index */
    struct vftr_iostat_row *files, *funcs;
    size_t nfiles, capfiles, nfuncs, capfuncs;
    struct vftr_u64map fmap, gmap;  /* file / function token -> row index */
};

enum vftr_iostat_kind vftr_iostat_kind_of(uint32_t op)
{
    switch (op & 0x1fu) {   /* OTF_FILEOP_BITS */
    case 0: return VFTR_IOSTAT_OPEN;
    case 1: return VFTR_IOSTAT_CLOSE;
    case 2: return VFTR_IOSTAT_READ;
    case 3: return VFTR_IOSTAT_WRITE;
    case 4: return VFTR_IOSTAT_SEEK;
    case 8: return VFTR_IOSTAT_SYNC;
    default: return VFTR_IOSTAT_OTHER;
    }
}

const char *vftr_iostat_kind_name(enum vftr_iostat_kind k)
{
    static const char *const names[VFTR_IOSTAT_NKINDS] = {
        "open", "close", "read", "write", "seek", "sync", "other",
    };

    return (unsigned)k < VFTR_IOSTAT_NKINDS ? names[k] : "other";
}

static struct iproc *proc_of(struct vftr_iostat *s, uint32_t process)
{
    long i = vftr_u64map_get(&s->pmap, process);

    if (i >= 0)
        return &s->procs[i];
    if (vftr_reserve((void **)&s->procs, &s->capprocs, s->nprocs, sizeof *s->procs) < 0 ||
        vftr_u64map_put(&s->pmap, process, (uint32_t)s->nprocs) < 0)
        return NULL;
    s->procs[s->nprocs] = (struct iproc){ 0 };
    return &s->procs[s->nprocs++];
}

static struct vftr_iostat_row *row_of(struct vftr_iostat_row **v, size_t *n, size_t *cap,
                                      struct vftr_u64map *map, uint32_t key)
{
    long i = vftr_u64map_get(map, key);

    if (i >= 0)
        return &(*v)[i];
    if (vftr_reserve((void **)v, cap, *n, sizeof **v) < 0 ||
        vftr_u64map_put(map, key, (uint32_t)*n) < 0)
        return NULL;
    (*v)[*n] = (struct vftr_iostat_row){ .key = key };
    return &(*v)[(*n)++];
}

static void add(struct vftr_iostat_row *r, enum vftr_iostat_kind k, uint32_t op, uint64_t bytes,
                uint64_t dur)
{
    r->ops++;
    r->kind[k]++;
    if (op & 32u)           /* OTF_IOFLAG_IOFAILED */
        r->failed++;
    r->time += dur;
    if (k == VFTR_IOSTAT_READ) {
        r->bytes_read += bytes;
        r->read_time += dur;
    } else if (k == VFTR_IOSTAT_WRITE) {
        r->bytes_written += bytes;
        r->write_time += dur;
    }
}

/* One operation ended at `end` after dur ticks, booked under function. */
static int count(struct vftr_iostat *s, uint32_t file, uint32_t function, uint32_t op,
                 uint64_t bytes, uint64_t dur)
{
    enum vftr_iostat_kind k = vftr_iostat_kind_of(op);
    struct vftr_iostat_row *f = row_of(&s->files, &s->nfiles, &s->capfiles, &s->fmap, file);
    struct vftr_iostat_row *g;

    if (!f)
        return -ENOMEM;
    add(f, k, op, bytes, dur);
    if (!(g = row_of(&s->funcs, &s->nfuncs, &s->capfuncs, &s->gmap, function)))
        return -ENOMEM;
    add(g, k, op, bytes, dur);
    return 0;
}

static uint32_t top(const struct iproc *p)
{
    return p->depth ? p->stack[p->depth - 1] : 0;
}

static int push(struct iproc *p, uint32_t function)
{
    if (vftr_reserve((void **)&p->stack, &p->cap, p->depth, sizeof *p->stack) < 0)
        return -ENOMEM;
    p->stack[p->depth++] = function;
    return 0;
}

static int h_open_frame(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                        uint32_t depth)
{
    struct iproc *p = proc_of(arg, process);

    (void)enter, (void)depth;
    return p ? push(p, function) : -ENOMEM;
}

static int h_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct iproc *p = proc_of(arg, process);

    (void)time;
    return p ? push(p, function) : -ENOMEM;
}

/* A leave closes its function's innermost call and the calls above it, as
 * the profile's replay does; a leave of a function not open changes
 * nothing. */
static int h_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct iproc *p = proc_of(arg, process);

    (void)time;
    if (!p)
        return -ENOMEM;
    for (size_t k = p->depth; k > 0; k--)
        if (p->stack[k - 1] == function || function == 0) {
            p->depth = k - 1;
            break;
        }
    return 0;
}

static int h_file_begin(void *arg, uint64_t time, uint32_t process,
                        const struct vftr_window_fileop *op)
{
    struct iproc *p = proc_of(arg, process);

    if (!p || vftr_reserve((void **)&p->ops, &p->capops, p->nops, sizeof *p->ops) < 0)
        return -ENOMEM;
    p->ops[p->nops++] = (struct pending){ op->matching_id, time, top(p) };
    return 0;
}

static int h_file_end(void *arg, uint64_t time, uint32_t process,
                      const struct vftr_window_fileop *op)
{
    struct vftr_iostat *s = arg;
    struct iproc *p = proc_of(s, process);
    uint64_t begin = s->a;
    uint32_t function;

    if (!p)
        return -ENOMEM;
    function = top(p);
    /* the newest begin of the id: a matching id may come back later */
    for (size_t k = p->nops; k > 0; k--)
        if (p->ops[k - 1].match == op->matching_id) {
            begin = p->ops[k - 1].time;
            function = p->ops[k - 1].function;
            p->ops[k - 1] = p->ops[--p->nops];
            break;
        }
    return count(s, op->file, function, op->operation, op->bytes,
                 time > begin ? time - begin : 0);
}

static int h_fileop(void *arg, uint64_t time, uint32_t process,
                    const struct vftr_window_fileop *op)
{
    struct vftr_iostat *s = arg;
    struct iproc *p = proc_of(s, process);
    uint64_t dur = op->duration;

    if (!p)
        return -ENOMEM;
    if (time >= s->a && time - s->a < dur)   /* began before the window */
        dur = time - s->a;
    return count(s, op->file, top(p), op->operation, op->bytes, dur);
}

struct vftr_iostat *vftr_iostat_new(uint64_t a)
{
    struct vftr_iostat *s = calloc(1, sizeof *s);

    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    s->a = a;
    s->h = (struct vftr_window_handler){
        .arg = s, .open_frame = h_open_frame, .enter = h_enter, .leave = h_leave,
        .file_begin = h_file_begin, .file_end = h_file_end, .fileop = h_fileop,
    };
    return s;
}

void vftr_iostat_free(struct vftr_iostat *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nprocs; i++) {
        free(s->procs[i].stack);
        free(s->procs[i].ops);
    }
    free(s->procs);
    free(s->files);
    free(s->funcs);
    vftr_u64map_release(&s->pmap);
    vftr_u64map_release(&s->fmap);
    vftr_u64map_release(&s->gmap);
    free(s);
}

const struct vftr_window_handler *vftr_iostat_handler(struct vftr_iostat *s)
{
    return &s->h;
}

const struct vftr_iostat_row *vftr_iostat_files(const struct vftr_iostat *s, size_t *n)
{
    *n = s->nfiles;
    return s->files;
}

const struct vftr_iostat_row *vftr_iostat_functions(const struct vftr_iostat *s, size_t *n)
{
    *n = s->nfuncs;
    return s->funcs;
}

void vftr_iostat_total(const struct vftr_iostat *s, struct vftr_iostat_row *t)
{
    *t = (struct vftr_iostat_row){ 0 };
    for (size_t i = 0; i < s->nfiles; i++) {
        const struct vftr_iostat_row *r = &s->files[i];

        t->ops += r->ops;
        for (int k = 0; k < VFTR_IOSTAT_NKINDS; k++)
            t->kind[k] += r->kind[k];
        t->failed += r->failed;
        t->bytes_read += r->bytes_read;
        t->bytes_written += r->bytes_written;
        t->time += r->time;
        t->read_time += r->read_time;
        t->write_time += r->write_time;
    }
}

int vftr_iostat_read(struct vftr_source *src, uint64_t a, uint64_t b,
                     const struct vftr_proclist *procs, struct vftr_iostat **out, char *err,
                     size_t errlen)
{
    struct vftr_iostat *s = vftr_iostat_new(a);
    int rc;

    *out = NULL;
    if (!s)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    rc = vftr_source_read(src, a, b, procs, 0, &s->h, NULL, err, errlen);
    if (rc > 0)
        rc = -EIO;
    if (rc < 0) {
        if (err && errlen && !err[0])
            vftr_errmsg(err, errlen, rc, "%s", rc == -ENOMEM ? "out of memory" : strerror(-rc));
        vftr_iostat_free(s);
        return rc;
    }
    *out = s;
    return 0;
}
