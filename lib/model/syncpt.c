/*
 * syncpt.c — see syncpt.h.  The extractor keeps each process's call stack
 * and numbers the call paths itself, by replay.h's rules (a leave closes
 * the frames above its function, one of a function not on the stack is
 * ignored, time that goes back stays where it was), without the profile a
 * replay books per call: the analysis needs the stacks only; what it adds per
 * event is one look at the top of the stack (its path, for the segment) and
 * one table look-up of the function's class.  Records are rare next to
 * events: only the classes that matter to the analysis make them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grow.h"
#include "syncpt.h"
#include "vfd/vftr_vfd_ext.h"

/* ------------------------------------------------------------ the name table */

/* MPI functions with a role; the collectives come from lib/vfd's names. */
static const struct {
    const char *name;
    uint8_t fclass;
} mpi_roles[] = {
    { "MPI_Send", VFTR_SYNC_F_MPI_SEND },
    { "MPI_Ssend", VFTR_SYNC_F_MPI_SSEND },
    { "MPI_Bsend", VFTR_SYNC_F_MPI_XSEND },
    { "MPI_Rsend", VFTR_SYNC_F_MPI_XSEND },
    { "MPI_Recv", VFTR_SYNC_F_MPI_RECV },
    { "MPI_Sendrecv", VFTR_SYNC_F_MPI_SENDRECV },
    { "MPI_Sendrecv_replace", VFTR_SYNC_F_MPI_SENDRECV },
    { "MPI_Wait", VFTR_SYNC_F_MPI_WAIT },
    { "MPI_Waitall", VFTR_SYNC_F_MPI_WAIT },
    { "MPI_Waitany", VFTR_SYNC_F_MPI_WAIT },
    { "MPI_Waitsome", VFTR_SYNC_F_MPI_WAIT },
    { "MPI_Test", VFTR_SYNC_F_MPI_TEST },
    { "MPI_Testall", VFTR_SYNC_F_MPI_TEST },
    { "MPI_Testany", VFTR_SYNC_F_MPI_TEST },
    { "MPI_Testsome", VFTR_SYNC_F_MPI_TEST },
    { "MPI_Init", VFTR_SYNC_F_MPI_INIT },
    { "MPI_Init_thread", VFTR_SYNC_F_MPI_INIT },
    { "MPI_Finalize", VFTR_SYNC_F_MPI_FINALIZE },
};

/* Collective operations (lib/vfd's numbering) by what they synchronise. */
static const uint8_t coll_oclass[VFTR_VFD_COLL_COUNT] = {
    [VFTR_VFD_COLL_BARRIER] = VFTR_SYNC_O_BARRIER,
    [VFTR_VFD_COLL_BCAST] = VFTR_SYNC_O_1TON,
    [VFTR_VFD_COLL_REDUCE] = VFTR_SYNC_O_NTO1,
    [VFTR_VFD_COLL_ALLREDUCE] = VFTR_SYNC_O_NXN,
    [VFTR_VFD_COLL_GATHER] = VFTR_SYNC_O_NTO1,
    [VFTR_VFD_COLL_GATHERV] = VFTR_SYNC_O_NTO1,
    [VFTR_VFD_COLL_SCATTER] = VFTR_SYNC_O_1TON,
    [VFTR_VFD_COLL_SCATTERV] = VFTR_SYNC_O_1TON,
    [VFTR_VFD_COLL_ALLGATHER] = VFTR_SYNC_O_NXN,
    [VFTR_VFD_COLL_ALLGATHERV] = VFTR_SYNC_O_NXN,
    [VFTR_VFD_COLL_ALLTOALL] = VFTR_SYNC_O_NXN,
    [VFTR_VFD_COLL_ALLTOALLV] = VFTR_SYNC_O_OTHER,
    [VFTR_VFD_COLL_ALLTOALLW] = VFTR_SYNC_O_OTHER,
    [VFTR_VFD_COLL_REDUCE_SCATTER] = VFTR_SYNC_O_NXN,
    [VFTR_VFD_COLL_REDUCE_SCATTER_BLOCK] = VFTR_SYNC_O_NXN,
    [VFTR_VFD_COLL_SCAN] = VFTR_SYNC_O_SCAN,
    [VFTR_VFD_COLL_EXSCAN] = VFTR_SYNC_O_SCAN,
};

/* OpenMP region kinds (lib/vfd's) with a role. */
static const uint8_t omp_fclass[VFTR_VFD_OMP_KIND_COUNT] = {
    [VFTR_VFD_OMP_PARALLEL] = VFTR_SYNC_F_OMP_PARALLEL,
    [VFTR_VFD_OMP_IMPLICIT_TASK] = VFTR_SYNC_F_OMP_ITASK,
    [VFTR_VFD_OMP_BARRIER] = VFTR_SYNC_F_OMP_BARRIER,
    [VFTR_VFD_OMP_BARRIER_EXPLICIT] = VFTR_SYNC_F_OMP_EBARRIER,
    [VFTR_VFD_OMP_CRITICAL_WAIT] = VFTR_SYNC_F_OMP_CRITICAL_WAIT,
    [VFTR_VFD_OMP_LOCK_WAIT] = VFTR_SYNC_F_OMP_LOCK_WAIT,
    [VFTR_VFD_OMP_ORDERED_WAIT] = VFTR_SYNC_F_OMP_ORDERED_WAIT,
    [VFTR_VFD_OMP_CRITICAL] = VFTR_SYNC_F_OMP_CRITICAL,
    [VFTR_VFD_OMP_LOCK] = VFTR_SYNC_F_OMP_LOCK,
    [VFTR_VFD_OMP_ORDERED] = VFTR_SYNC_F_OMP_ORDERED,
    [VFTR_VFD_OMP_IDLE] = VFTR_SYNC_F_OMP_IDLE,
};

/* lib/vfd's collective op numbered by a name, with or without "MPI_", any
 * case; 0 if none. */
static uint32_t coll_op_of_name(const char *name)
{
    const char *n = strncasecmp(name, "MPI_", 4) == 0 ? name + 4 : name;

    for (uint32_t op = 1; op < VFTR_VFD_COLL_COUNT; op++) {
        const char *c = vftr_vfd_coll_name(op);

        if (c && strcasecmp(c + 4, n) == 0)
            return op;
    }
    return 0;
}

enum vftr_sync_fclass vftr_sync_fclass_of_name(const char *name)
{
    size_t best = 0;
    uint8_t cls = VFTR_SYNC_F_NONE;

    if (!name)
        return VFTR_SYNC_F_NONE;
    if (strncmp(name, "MPI_", 4) == 0) {
        for (size_t i = 0; i < sizeof mpi_roles / sizeof mpi_roles[0]; i++)
            if (strcmp(name, mpi_roles[i].name) == 0)
                return (enum vftr_sync_fclass)mpi_roles[i].fclass;
        for (uint32_t op = 1; op < VFTR_VFD_COLL_COUNT; op++) {
            const char *c = vftr_vfd_coll_name(op);

            if (!c)
                continue;
            if (strcmp(name, c) == 0)
                return VFTR_SYNC_F_MPI_COLL;
            if (strncmp(name, "MPI_I", 5) == 0 && strcasecmp(name + 5, c + 4) == 0)
                return VFTR_SYNC_F_MPI_ICOLL;
        }
        return VFTR_SYNC_F_MPI;
    }
    if (strncmp(name, "omp ", 4) != 0)
        return VFTR_SYNC_F_NONE;
    /* "omp KIND", "omp KIND @WHERE": the longest kind that fits (barrier
     * (explicit) over barrier, critical wait over critical) */
    for (uint32_t k = 1; k < VFTR_VFD_OMP_KIND_COUNT; k++) {
        const char *kind = vftr_vfd_omp_kind_name(k);
        size_t len = kind ? strlen(kind) : 0;

        if (len > best && strncmp(name + 4, kind, len) == 0 &&
            (name[4 + len] == '\0' || strncmp(name + 4 + len, " @", 2) == 0)) {
            best = len;
            cls = omp_fclass[k] ? omp_fclass[k] : VFTR_SYNC_F_OMP;
        }
    }
    return best ? (enum vftr_sync_fclass)cls : VFTR_SYNC_F_OMP;
}

enum vftr_sync_oclass vftr_sync_oclass_of_name(const char *name)
{
    uint32_t op = name ? coll_op_of_name(name) : 0;

    return (enum vftr_sync_oclass)(op ? coll_oclass[op] : VFTR_SYNC_O_OTHER);
}

int vftr_sync_fclass_mpi(enum vftr_sync_fclass c)
{
    return c >= VFTR_SYNC_F_MPI && c <= VFTR_SYNC_F_MPI_FINALIZE;
}

/* ------------------------------------------------------------ definitions */

#define DIRECT_FUNCS 65536u

/* Stores value under token: a direct table for small tokens, else map +
 * array.  0 or -ENOMEM. */
static int put_class(uint8_t **direct, size_t *ndirect, struct vftr_u64map *map, uint8_t **big,
                     size_t *nbig, size_t *capbig, uint32_t token, uint8_t value)
{
    long i;

    if (token < DIRECT_FUNCS) {
        if (token >= *ndirect) {
            size_t n = *ndirect ? *ndirect : 64;
            uint8_t *p;

            while (n <= token)
                n *= 2;
            if (!(p = realloc(*direct, n)))
                return -ENOMEM;
            memset(p + *ndirect, 0, n - *ndirect);
            *direct = p;
            *ndirect = n;
        }
        (*direct)[token] = value;
        return 0;
    }
    i = vftr_u64map_get(map, token);
    if (i >= 0) {
        (*big)[i] = value;
        return 0;
    }
    if (vftr_reserve((void **)big, capbig, *nbig, 1) < 0 ||
        vftr_u64map_put(map, token, (uint32_t)*nbig) < 0)
        return -ENOMEM;
    (*big)[(*nbig)++] = value;
    return 0;
}

int vftr_syncdefs_add_func(struct vftr_syncdefs *d, uint32_t token, const char *name)
{
    return put_class(&d->fdirect, &d->nfdirect, &d->fmap, &d->fbig, &d->nfbig, &d->capfbig,
                     token, (uint8_t)vftr_sync_fclass_of_name(name));
}

int vftr_syncdefs_add_collop(struct vftr_syncdefs *d, uint32_t token, const char *name)
{
    long i = vftr_u64map_get(&d->omap, token);
    uint8_t c = (uint8_t)vftr_sync_oclass_of_name(name);

    if (i >= 0) {
        d->oclass[i] = c;
        return 0;
    }
    if (vftr_reserve((void **)&d->oclass, &d->capoclass, d->noclass, 1) < 0 ||
        vftr_u64map_put(&d->omap, token, (uint32_t)d->noclass) < 0)
        return -ENOMEM;
    d->oclass[d->noclass++] = c;
    return 0;
}

int vftr_syncdefs_add_proc(struct vftr_syncdefs *d, uint32_t token, uint32_t rankproc,
                           uint32_t rank, uint32_t thread)
{
    long i = vftr_u64map_get(&d->pmap, token);
    struct vftr_syncdefs_proc p = { token, rankproc, rank, thread };

    if (i >= 0) {
        d->procs[i] = p;
        return 0;
    }
    if (vftr_reserve((void **)&d->procs, &d->capprocs, d->nprocs, sizeof *d->procs) < 0 ||
        vftr_u64map_put(&d->pmap, token, (uint32_t)d->nprocs) < 0)
        return -ENOMEM;
    d->procs[d->nprocs++] = p;
    return 0;
}

int vftr_syncdefs_add_comm(struct vftr_syncdefs *d, uint32_t token, uint32_t n,
                           const uint32_t *procs)
{
    long i = vftr_u64map_get(&d->cmap, token);
    uint32_t *copy = malloc((n ? n : 1) * sizeof *copy);

    if (!copy)
        return -ENOMEM;
    if (n)
        memcpy(copy, procs, n * sizeof *copy);
    if (i >= 0) {
        free(d->comms[i].procs);
        d->comms[i] = (struct vftr_syncdefs_comm){ token, n, copy };
        return 0;
    }
    if (vftr_reserve((void **)&d->comms, &d->capcomms, d->ncomms, sizeof *d->comms) < 0 ||
        vftr_u64map_put(&d->cmap, token, (uint32_t)d->ncomms) < 0) {
        free(copy);
        return -ENOMEM;
    }
    d->comms[d->ncomms++] = (struct vftr_syncdefs_comm){ token, n, copy };
    return 0;
}

void vftr_syncdefs_release(struct vftr_syncdefs *d)
{
    free(d->fdirect);
    free(d->fbig);
    free(d->oclass);
    free(d->procs);
    for (size_t i = 0; i < d->ncomms; i++)
        free(d->comms[i].procs);
    free(d->comms);
    vftr_u64map_release(&d->fmap);
    vftr_u64map_release(&d->omap);
    vftr_u64map_release(&d->pmap);
    vftr_u64map_release(&d->cmap);
    memset(d, 0, sizeof *d);
}

enum vftr_sync_fclass vftr_syncdefs_fclass(const struct vftr_syncdefs *d, uint32_t function)
{
    long i;

    if (function < d->nfdirect)
        return (enum vftr_sync_fclass)d->fdirect[function];
    if (function < DIRECT_FUNCS)
        return VFTR_SYNC_F_NONE;
    i = vftr_u64map_get(&d->fmap, function);
    return i < 0 ? VFTR_SYNC_F_NONE : (enum vftr_sync_fclass)d->fbig[i];
}

enum vftr_sync_oclass vftr_syncdefs_oclass(const struct vftr_syncdefs *d, uint32_t op)
{
    long i = vftr_u64map_get(&d->omap, op);

    return i < 0 ? VFTR_SYNC_O_OTHER : (enum vftr_sync_oclass)d->oclass[i];
}

const struct vftr_syncdefs_proc *vftr_syncdefs_proc(const struct vftr_syncdefs *d,
                                                    uint32_t token)
{
    long i = vftr_u64map_get(&d->pmap, token);

    return i < 0 ? NULL : &d->procs[i];
}

const struct vftr_syncdefs_comm *vftr_syncdefs_comm(const struct vftr_syncdefs *d,
                                                    uint32_t token)
{
    long i = vftr_u64map_get(&d->cmap, token);

    return i < 0 ? NULL : &d->comms[i];
}

/* ------------------------------------------------------------ records */

int vftr_syncrec_cmp(const struct vftr_syncrec *a, const struct vftr_syncrec *b)
{
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->process != b->process)
        return a->process < b->process ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ------------------------------------------------------------ extractor */

/* Classes whose calls make a CALL_BEGIN record, and a CALL_END record
 * (besides any MPI call in which a message or collective was recorded). */
static bool begins_record(enum vftr_sync_fclass c)
{
    switch (c) {
    case VFTR_SYNC_F_MPI_RECV: case VFTR_SYNC_F_MPI_SENDRECV: case VFTR_SYNC_F_MPI_FINALIZE:
    case VFTR_SYNC_F_OMP_PARALLEL: case VFTR_SYNC_F_OMP_ITASK: case VFTR_SYNC_F_OMP_BARRIER:
    case VFTR_SYNC_F_OMP_EBARRIER: case VFTR_SYNC_F_OMP_IDLE:
        return true;
    default:
        return false;
    }
}

static bool ends_record(enum vftr_sync_fclass c)
{
    switch (c) {
    case VFTR_SYNC_F_MPI_RECV: case VFTR_SYNC_F_MPI_SENDRECV: case VFTR_SYNC_F_MPI_INIT:
    case VFTR_SYNC_F_MPI_FINALIZE:
    case VFTR_SYNC_F_OMP_PARALLEL: case VFTR_SYNC_F_OMP_ITASK: case VFTR_SYNC_F_OMP_BARRIER:
    case VFTR_SYNC_F_OMP_EBARRIER: case VFTR_SYNC_F_OMP_CRITICAL_WAIT:
    case VFTR_SYNC_F_OMP_LOCK_WAIT: case VFTR_SYNC_F_OMP_ORDERED_WAIT:
    case VFTR_SYNC_F_OMP_CRITICAL: case VFTR_SYNC_F_OMP_LOCK: case VFTR_SYNC_F_OMP_ORDERED:
        return true;
    default:
        return false;
    }
}

/* How deep below the top an MPI call around a message is looked for. */
#define MPI_FRAME_SEARCH 8
#define DIRECT_PROCS 65536u

/* A frame of a process's stack. */
struct xframe {
    uint32_t function, path;
    uint64_t enter;
};

struct xproc {
    uint32_t token;
    bool seen;
    struct xframe *stack;       /* depth frames */
    size_t capstack;
    bool rseen;
    uint64_t rlast;             /* its latest enter or leave (the stack's clock) */
    uint64_t seq;
    uint64_t last;              /* its latest event time */
    uint32_t top;               /* path on top after its latest event */
    size_t depth;               /* stack depth after its latest event */
    size_t sync_depth;          /* depth of the MPI call holding records (0: none) */
    uint32_t last_root;         /* path of its latest outermost call that ended */
    /* the window's end (lookahead): its state when the reading passed b */
    uint64_t last_before_b;
    bool open_at_b;
    size_t hold_depth;          /* a call of the kind it may wait in, open at b: its depth */
    /* path -> ticks since the last record: in the order first booked,
     * found by a look from the end (a few paths between two records), or
     * through segidx (path -> index) once there are more */
    struct vftr_syncseg *segv;
    uint32_t nsegv, capsegv;
    struct vftr_tally segidx;
    /* a CollectiveOperation record's end, emitted at the first event at or
     * after it */
    bool coll_pending;
    uint64_t coll_end, coll_match;
    struct vftr_replay_frame coll_frame;
    uint64_t collops;           /* CollectiveOperation records so far */
    /* a message or collective record found outside any MPI call, held until
     * the process's other events of its time: its call may be entered at
     * the same time stamp just after it (vfd2otf places a send and a
     * collective's begin at the start of their call, ahead of its Enter) */
    bool held;
    struct vftr_syncrec hold;
};

struct vftr_syncx {
    const struct vftr_syncdefs *d;
    struct vftr_syncx_opts o;
    struct vftr_window_handler h;
    /* call paths: (parent, function) -> id from 1; each path remembers
     * its last child looked up */
    struct xpath {
        uint32_t parent, function;
        uint32_t cfunc, cpath;
    } *paths;
    size_t npaths, cappaths;
    struct vftr_u64map pathmap;
    uint32_t root_func, root_path;
    bool finished;
    struct xproc *procs;
    size_t nprocs, capprocs;
    uint32_t *pdirect;          /* token < DIRECT_PROCS -> index + 1 */
    size_t npdirect;
    struct vftr_u64map pmap;
    uint64_t events, records;
    /* the processes holding a record (xproc.held), all of one time: a
     * hold is let go as soon as the reading passes its time, so that it
     * reaches the sorter before any record of a later time */
    uint32_t *heldv;
    size_t nheldv, capheldv;
    uint64_t held_time;
    bool crossed;               /* an event at or after b was read */
    size_t pending;             /* processes with hold_depth */
};

static struct xproc *xproc_slow(struct vftr_syncx *x, uint32_t token)
{
    long i = vftr_u64map_get(&x->pmap, token);

    if (i >= 0)
        return &x->procs[i];
    if (vftr_reserve((void **)&x->procs, &x->capprocs, x->nprocs, sizeof *x->procs) < 0 ||
        vftr_u64map_put(&x->pmap, token, (uint32_t)x->nprocs) < 0)
        return NULL;
    if (token < DIRECT_PROCS) {
        if (token >= x->npdirect) {
            size_t n = x->npdirect ? x->npdirect : 64;
            uint32_t *p;

            while (n <= token)
                n *= 2;
            if (!(p = realloc(x->pdirect, n * sizeof *p)))
                return NULL;
            memset(p + x->npdirect, 0, (n - x->npdirect) * sizeof *p);
            x->pdirect = p;
            x->npdirect = n;
        }
        x->pdirect[token] = (uint32_t)x->nprocs + 1;
    }
    x->procs[x->nprocs] = (struct xproc){ .token = token, .segidx = VFTR_TALLY_INIT };
    return &x->procs[x->nprocs++];
}

static inline struct xproc *xproc(struct vftr_syncx *x, uint32_t token)
{
    if (token < x->npdirect && x->pdirect[token])
        return &x->procs[x->pdirect[token] - 1];
    return xproc_slow(x, token);
}

#define SEG_LINEAR 8

/* Adds ticks to path in p's segment. */
static inline int seg_add(struct xproc *p, uint32_t path, uint64_t ticks)
{
    uint32_t n = p->nsegv;

    if (n && p->segv[n - 1].path == path) {
        p->segv[n - 1].ticks += ticks;
        return 0;
    }
    if (n <= SEG_LINEAR) {
        for (uint32_t i = n; i-- > 0;)
            if (p->segv[i].path == path) {
                p->segv[i].ticks += ticks;
                return 0;
            }
    } else {
        const struct vftr_tally_slot *s = vftr_tally_find(&p->segidx, path);

        if (s) {
            p->segv[s->v.i].ticks += ticks;
            return 0;
        }
    }
    if (n == p->capsegv) {
        uint32_t cap = n ? 2 * n : 16;
        struct vftr_syncseg *v = realloc(p->segv, (size_t)cap * sizeof *v);

        if (!v)
            return -ENOMEM;
        p->segv = v;
        p->capsegv = cap;
    }
    p->segv[n] = (struct vftr_syncseg){ path, ticks };
    p->nsegv = n + 1;
    /* past the linear look: every entry indexed */
    for (uint32_t i = p->segidx.used; n + 1 > SEG_LINEAR && i <= n; i++)
        if (vftr_tally_set_i(&p->segidx, p->segv[i].path, i) < 0)
            return -ENOMEM;
    return 0;
}

/* The id of path parent/function, made on first use; 0 on ENOMEM. */
static uint32_t path_slow(struct vftr_syncx *x, uint32_t parent, uint32_t function)
{
    uint64_t key = (uint64_t)parent << 32 | function;
    long i = vftr_u64map_get(&x->pathmap, key);
    uint32_t id;

    if (i >= 0) {
        id = (uint32_t)i + 1;
    } else {
        if (x->npaths >= UINT32_MAX - 1 ||
            vftr_reserve((void **)&x->paths, &x->cappaths, x->npaths, sizeof *x->paths) < 0 ||
            vftr_u64map_put(&x->pathmap, key, (uint32_t)x->npaths) < 0)
            return 0;
        x->paths[x->npaths] = (struct xpath){ parent, function, 0, 0 };
        id = (uint32_t)++x->npaths;
    }
    if (parent) {
        x->paths[parent - 1].cfunc = function;
        x->paths[parent - 1].cpath = id;
    } else {
        x->root_func = function;
        x->root_path = id;
    }
    return id;
}

static inline uint32_t path_of(struct vftr_syncx *x, uint32_t parent, uint32_t function)
{
    if (parent ? x->paths[parent - 1].cpath && x->paths[parent - 1].cfunc == function
               : x->root_path && x->root_func == function)
        return parent ? x->paths[parent - 1].cpath : x->root_path;
    return path_slow(x, parent, function);
}

/* The stack's clock: an enter or leave earlier than the latest one of its
 * process is taken at that one's time. */
static inline uint64_t stack_time(struct xproc *p, uint64_t t)
{
    if (!p->rseen)
        p->rseen = true;
    else if (t < p->rlast)
        t = p->rlast;
    p->rlast = t;
    return t;
}

static int push_frame(struct vftr_syncx *x, struct xproc *p, uint32_t function, uint64_t t)
{
    uint32_t path = path_of(x, p->depth ? p->stack[p->depth - 1].path : 0, function);

    if (!path ||
        vftr_reserve((void **)&p->stack, &p->capstack, p->depth, sizeof *p->stack) < 0)
        return -ENOMEM;
    p->stack[p->depth++] = (struct xframe){ function, path, stack_time(p, t) };
    return 0;
}

/* A leave of `function` (0: the top): the top if it is that function,
 * else the frames from its nearest frame up; none if it is not on the
 * stack. */
static void pop_frames(struct xproc *p, uint32_t function, uint64_t t)
{
    (void)stack_time(p, t);
    if (p->depth == 0)
        return;
    if (function == 0 || p->stack[p->depth - 1].function == function) {
        p->depth--;
        return;
    }
    for (size_t k = p->depth - 1; k-- > 0;)
        if (p->stack[k].function == function) {
            p->depth = k;
            return;
        }
}

/* Frame k (from the bottom) of p, as replay.h gives it. */
static inline struct vftr_replay_frame frame_at(const struct xproc *p, size_t k)
{
    return (struct vftr_replay_frame){ p->stack[k].function, p->stack[k].path,
                                       p->stack[k].enter };
}

/* Books the time since p's latest event, inside the window, to the path on
 * top, and moves p's clock to t (a time that went back counts as none). */
static inline int book(struct vftr_syncx *x, struct xproc *p, uint64_t t)
{
    uint64_t from = p->last, to = t;

    if (to <= from)
        return 0;
    p->last = t;
    if (!x->o.segments)
        return 0;
    if (from < x->o.a)
        from = x->o.a;
    if (to > x->o.b)
        to = x->o.b;
    if (to <= from)
        return 0;
    return seg_add(p, p->top, to - from);
}

/* Hands r (its process's fields, seq and segment filled in here) on; the
 * segment is borrowed for the call and then emptied. */
static int emit(struct vftr_syncx *x, struct xproc *p, struct vftr_syncrec *r)
{
    int rc;

    r->process = p->token;
    r->seq = p->seq++;
    r->stream = x->o.stream;
    r->top = p->top;
    r->seg = p->segv;
    r->nseg = p->nsegv;
    x->records++;
    rc = x->o.emit(x->o.arg, r);
    p->nsegv = 0;
    if (p->segidx.used)
        vftr_tally_clear(&p->segidx);
    return rc;
}

/* Emits p's held record, as it is (it stays in heldv until
 * release_all_held, which skips it then). */
static int release_held(struct vftr_syncx *x, struct xproc *p)
{
    if (!p->held)
        return 0;
    p->held = false;
    return emit(x, p, &p->hold);
}

/* Emits every held record: the reading moved past their time, or ended. */
static int release_all_held(struct vftr_syncx *x)
{
    int rc = 0;

    for (size_t i = 0; i < x->nheldv && rc == 0; i++)
        rc = release_held(x, &x->procs[x->heldv[i]]);
    x->nheldv = 0;
    return rc;
}

/* First sight of p: its PROC_BEGIN. */
static int begin_proc(struct vftr_syncx *x, struct xproc *p, uint64_t t)
{
    struct vftr_syncrec r = { .time = t, .kind = VFTR_SYNC_PROC_BEGIN, .t2 = t };

    p->seen = true;
    p->last = t;
    return emit(x, p, &r);
}

/* Can a process wait in a call of class c (for the lookahead)? */
static bool may_wait(enum vftr_sync_fclass c)
{
    return vftr_sync_fclass_mpi(c) || c == VFTR_SYNC_F_OMP_BARRIER ||
           c == VFTR_SYNC_F_OMP_EBARRIER || c == VFTR_SYNC_F_OMP_CRITICAL_WAIT ||
           c == VFTR_SYNC_F_OMP_LOCK_WAIT || c == VFTR_SYNC_F_OMP_ORDERED_WAIT;
}

/* The reading passes b: note each process's state, and which ones are in
 * a call they may wait in. */
static void cross(struct vftr_syncx *x)
{
    x->crossed = true;
    for (size_t i = 0; i < x->nprocs; i++) {
        struct xproc *p = &x->procs[i];

        p->last_before_b = p->last;
        p->open_at_b = p->depth > 0;
        p->hold_depth = 0;
        for (size_t k = 0; k < p->depth; k++) {
            if (may_wait(vftr_syncdefs_fclass(x->d, p->stack[k].function))) {
                p->hold_depth = k + 1;
                x->pending++;
                break;
            }
        }
    }
}

/* After an event of p past b: has it left its call?  VFTR_SYNCX_DONE once
 * none is left. */
static int lookahead_done(struct vftr_syncx *x, struct xproc *p)
{
    if (!x->crossed)
        return 0;
    if (p->hold_depth && p->depth < p->hold_depth) {
        p->hold_depth = 0;
        x->pending--;
    }
    return x->pending == 0 ? VFTR_SYNCX_DONE : 0;
}

/* The common start of every event: p, first sight, its pending collective
 * end, the time booked.  NULL with *rc on failure (or VFTR_SYNCX_DONE). */
static struct xproc *start_event(struct vftr_syncx *x, uint32_t process, uint64_t t, int *rc)
{
    struct xproc *p;

    *rc = 0;
    if (x->finished) {
        *rc = -EINVAL;
        return NULL;
    }
    /* a record held outside any call goes before those of a later time,
     * whichever process they are of (its own next event may be far) */
    if (x->nheldv && t > x->held_time && (*rc = release_all_held(x)) != 0)
        return NULL;
    if (t >= x->o.b && !x->crossed) {
        cross(x);
        if (x->pending == 0) {
            *rc = VFTR_SYNCX_DONE;
            return NULL;
        }
    }
    x->events++;
    if (!(p = xproc(x, process))) {
        *rc = -ENOMEM;
        return NULL;
    }
    if (!p->seen && (*rc = begin_proc(x, p, t)) != 0)
        return NULL;
    if (p->held && t > p->hold.time && (*rc = release_held(x, p)) != 0)
        return NULL;
    if ((*rc = book(x, p, t)) != 0)
        return NULL;
    if (p->coll_pending && t >= p->coll_end) {
        struct vftr_syncrec r = { .time = t, .kind = VFTR_SYNC_COLL_END,
                                  .function = p->coll_frame.function,
                                  .path = p->coll_frame.path, .enter = p->coll_frame.enter,
                                  .t2 = p->coll_end, .match = p->coll_match };

        p->coll_pending = false;
        if ((*rc = emit(x, p, &r)) != 0)
            return NULL;
    }
    return p;
}

static void after_event(struct vftr_syncx *x, struct xproc *p)
{
    (void)x;
    p->top = p->depth ? p->stack[p->depth - 1].path : 0;
    if (p->sync_depth > p->depth)
        p->sync_depth = 0;
}

static int x_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct vftr_syncx *x = arg;
    int rc;
    struct xproc *p = start_event(x, process, time, &rc);
    enum vftr_sync_fclass c;

    if (!p)
        return rc;
    if ((rc = push_frame(x, p, function, time)) < 0)
        return rc;
    after_event(x, p);
    c = vftr_syncdefs_fclass(x->d, function);
    if (c != VFTR_SYNC_F_NONE && begins_record(c)) {
        struct vftr_syncrec r = { .time = time, .kind = VFTR_SYNC_CALL_BEGIN,
                                  .function = function, .path = p->top, .enter = time,
                                  .t2 = time };

        if ((rc = emit(x, p, &r)) != 0)
            return rc;
    }
    if (p->held && vftr_sync_fclass_mpi(c)) {
        /* the call the held record belongs to */
        p->hold.function = function;
        p->hold.path = p->top;
        p->hold.enter = time;
        p->sync_depth = p->depth;
        if ((rc = release_held(x, p)) != 0)
            return rc;
    }
    return lookahead_done(x, p);
}

static int x_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct vftr_syncx *x = arg;
    int rc;
    struct xproc *p = start_event(x, process, time, &rc);
    struct vftr_replay_frame f;
    size_t depth, first;

    if (!p)
        return rc;
    /* the frames this leave closes: the top, or those from the function's
     * frame up (replay.h's rules); records for those that matter, top down */
    depth = p->depth;
    first = depth;
    if (depth > 0) {
        if (function == 0 || p->stack[depth - 1].function == function) {
            first = depth - 1;
        } else {
            for (size_t k = depth - 1; k-- > 0;)
                if (p->stack[k].function == function) {
                    first = k;
                    break;
                }
        }
    }
    for (size_t k = depth; k-- > first;) {
        enum vftr_sync_fclass c;

        f = frame_at(p, k);
        if (k == 0)
            p->last_root = f.path;
        c = vftr_syncdefs_fclass(x->d, f.function);
        if (ends_record(c) || k + 1 == p->sync_depth) {
            struct vftr_syncrec r = { .time = time, .kind = VFTR_SYNC_CALL_END,
                                      .function = f.function, .path = f.path, .enter = f.enter,
                                      .t2 = time };

            if (k + 1 == p->sync_depth)
                p->sync_depth = 0;
            if ((rc = emit(x, p, &r)) != 0)
                return rc;
        }
    }
    pop_frames(p, function, time);
    after_event(x, p);
    return lookahead_done(x, p);
}

/* The innermost MPI call on p's stack (near the top): its frame and depth,
 * or depth 0 and the event's time as its enter. */
static size_t mpi_frame(struct vftr_syncx *x, struct xproc *p, uint64_t t,
                        struct vftr_replay_frame *f)
{
    for (size_t k = p->depth, n = 0; k-- > 0 && n < MPI_FRAME_SEARCH; n++)
        if (vftr_sync_fclass_mpi(vftr_syncdefs_fclass(x->d, p->stack[k].function))) {
            *f = frame_at(p, k);
            return k + 1;
        }
    *f = (struct vftr_replay_frame){ 0, 0, t };
    return 0;
}

/* Holds r (outside any MPI call) until p's events of its time are seen
 * or the reading passes its time. */
static int hold(struct vftr_syncx *x, struct xproc *p, const struct vftr_syncrec *r)
{
    int rc = release_held(x, p);

    if (rc)
        return rc;
    if (x->nheldv && x->held_time != r->time && (rc = release_all_held(x)) != 0)
        return rc;
    if (vftr_reserve((void **)&x->heldv, &x->capheldv, x->nheldv, sizeof *x->heldv) < 0)
        return -ENOMEM;
    x->heldv[x->nheldv++] = (uint32_t)(p - x->procs);
    x->held_time = r->time;
    p->held = true;
    p->hold = *r;
    return 0;
}

static int message(struct vftr_syncx *x, uint16_t kind, uint64_t time, uint32_t process,
                   uint32_t peer, uint32_t comm, uint32_t tag, uint64_t length)
{
    int rc;
    struct xproc *p = start_event(x, process, time, &rc);
    struct vftr_replay_frame f;
    size_t d;

    if (!p)
        return rc;
    d = mpi_frame(x, p, time, &f);
    if (d)
        p->sync_depth = d;
    struct vftr_syncrec r = { .time = time, .kind = kind, .function = f.function,
                              .path = f.path, .enter = f.enter, .t2 = time, .peer = peer,
                              .comm = comm, .tag = tag, .bytes = length };
    return d ? emit(x, p, &r) : hold(x, p, &r);
}

static int x_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    return message(arg, VFTR_SYNC_SEND, time, sender, receiver, comm, tag, length);
}

static int x_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    return message(arg, VFTR_SYNC_RECV, time, receiver, sender, comm, tag, length);
}

static int coll_begin(struct vftr_syncx *x, struct xproc *p, uint64_t time, uint32_t op,
                      uint64_t match, uint32_t comm, uint32_t root, uint64_t sent,
                      uint64_t received, struct vftr_replay_frame *f)
{
    size_t d = mpi_frame(x, p, time, f);

    if (d)
        p->sync_depth = d;
    struct vftr_syncrec r = { .time = time, .kind = VFTR_SYNC_COLL_BEGIN,
                              .function = f->function, .path = f->path, .enter = f->enter,
                              .t2 = time, .comm = comm, .op = op, .root = root, .bytes = sent,
                              .received = received, .match = match };
    return d ? emit(x, p, &r) : hold(x, p, &r);
}

static int x_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op,
                        uint64_t matching_id, uint32_t comm, uint32_t root, uint64_t sent,
                        uint64_t received)
{
    struct vftr_syncx *x = arg;
    int rc;
    struct xproc *p = start_event(x, process, time, &rc);
    struct vftr_replay_frame f;

    if (!p)
        return rc;
    return coll_begin(x, p, time, op, matching_id, comm, root, sent, received, &f);
}

static int x_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t matching_id)
{
    struct vftr_syncx *x = arg;
    int rc;
    struct xproc *p = start_event(x, process, time, &rc);
    struct vftr_replay_frame f;

    if (!p)
        return rc;
    size_t d = mpi_frame(x, p, time, &f);
    struct vftr_syncrec r = { .time = time, .kind = VFTR_SYNC_COLL_END, .function = f.function,
                              .path = f.path, .enter = f.enter, .t2 = time,
                              .match = matching_id };
    return d ? emit(x, p, &r) : hold(x, p, &r);
}

/* A complete collective in one record: its begin now, its end (time +
 * duration) with the first event of the process at or after it. */
static int x_collop(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                    uint32_t root, uint64_t sent, uint64_t received, uint64_t duration)
{
    struct vftr_syncx *x = arg;
    int rc;
    struct xproc *p = start_event(x, process, time, &rc);
    uint64_t match;

    if (!p)
        return rc;
    match = UINT64_C(1) << 63 | p->collops++;
    rc = coll_begin(x, p, time, op, match, comm, root, sent, received, &p->coll_frame);
    if (rc)
        return rc;
    p->coll_pending = true;
    p->coll_end = duration > UINT64_MAX - time ? UINT64_MAX : time + duration;
    p->coll_match = match;
    return 0;
}

struct vftr_syncx *vftr_syncx_new(const struct vftr_syncdefs *d, const struct vftr_syncx_opts *o)
{
    struct vftr_syncx *x = calloc(1, sizeof *x);

    if (!x) {
        errno = ENOMEM;
        return NULL;
    }
    x->d = d;
    x->o = *o;
    if (x->o.b <= x->o.a)
        x->o.b = UINT64_MAX;
    x->h = (struct vftr_window_handler){ .arg = x, .enter = x_enter, .leave = x_leave,
                                         .send = x_send, .recv = x_recv, .collop = x_collop,
                                         .coll_begin = x_coll_begin, .coll_end = x_coll_end };
    return x;
}

void vftr_syncx_free(struct vftr_syncx *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nprocs; i++) {
        free(x->procs[i].stack);
        free(x->procs[i].segv);
        vftr_tally_release(&x->procs[i].segidx);
    }
    free(x->procs);
    free(x->heldv);
    free(x->pdirect);
    vftr_u64map_release(&x->pmap);
    free(x->paths);
    vftr_u64map_release(&x->pathmap);
    free(x);
}

const struct vftr_window_handler *vftr_syncx_handler(struct vftr_syncx *x)
{
    return &x->h;
}

/* The end of p's events in the window (vftr_syncx_new). */
static uint64_t proc_end(const struct vftr_syncx *x, const struct xproc *p)
{
    if (x->crossed)
        return p->open_at_b ? x->o.b : p->last_before_b;
    return x->o.b != UINT64_MAX && p->depth ? x->o.b : p->last;
}

/*
 * The end of each process's events: at b when the window ends before the
 * trace and the process still has calls open there (they end at b, as in a
 * profile of the window), else its latest event.  The records all carry the
 * latest of those ends as their order time, so they come after everything.
 */
uint64_t vftr_syncx_last(const struct vftr_syncx *x)
{
    uint64_t last = 0;

    for (size_t i = 0; i < x->nprocs; i++) {
        uint64_t end = proc_end(x, &x->procs[i]);

        if (end > last)
            last = end;
        if (x->procs[i].last > last)    /* read past the window (lookahead) */
            last = x->procs[i].last;
    }
    return last;
}

int vftr_syncx_finish(struct vftr_syncx *x)
{
    return vftr_syncx_finish_at(x, vftr_syncx_last(x));
}

int vftr_syncx_release(struct vftr_syncx *x)
{
    return x->finished ? -EINVAL : release_all_held(x);
}

int vftr_syncx_finish_at(struct vftr_syncx *x, uint64_t last)
{
    int rc;

    if (x->finished)
        return -EINVAL;
    /* the held records first: their time is before every end record's */
    if ((rc = release_all_held(x)) != 0)
        return rc;
    for (size_t i = 0; i < x->nprocs; i++) {
        struct xproc *p = &x->procs[i];
        uint64_t end = proc_end(x, p);

        if (p->coll_pending) {
            struct vftr_syncrec r = { .time = last, .kind = VFTR_SYNC_COLL_END,
                                      .function = p->coll_frame.function,
                                      .path = p->coll_frame.path, .enter = p->coll_frame.enter,
                                      .t2 = p->coll_end < end ? p->coll_end : end,
                                      .match = p->coll_match };

            p->coll_pending = false;
            if ((rc = emit(x, p, &r)) != 0)
                return rc;
        }
        if ((rc = book(x, p, end)) != 0)
            return rc;
        uint32_t outer = p->depth ? p->stack[0].path : p->last_root;
        struct vftr_syncrec r = { .time = last, .kind = VFTR_SYNC_PROC_END, .t2 = end,
                                  .path = outer };
        if ((rc = emit(x, p, &r)) != 0)
            return rc;
    }
    x->finished = true;
    return 0;
}

int vftr_syncx_pathdef(void *arg, uint32_t local, uint32_t *parent, uint32_t *function)
{
    const struct vftr_syncx *x = arg;

    if (local == 0 || local > x->npaths)
        return -ENOENT;
    *parent = x->paths[local - 1].parent;
    *function = x->paths[local - 1].function;
    return 0;
}

void vftr_syncx_counts(const struct vftr_syncx *x, uint64_t *events, uint64_t *records)
{
    *events = x->events;
    *records = x->records;
}

/* ------------------------------------------------------------ sorter */

struct held {
    struct vftr_syncrec r;
    size_t seg;                 /* index of its segment in the pool */
};

struct vftr_syncsort {
    vftr_syncrec_fn *out;
    void *arg;
    struct held *v;
    size_t n, cap;
    struct vftr_syncseg *pool;
    size_t npool, cappool;
};

struct vftr_syncsort *vftr_syncsort_new(vftr_syncrec_fn *out, void *arg)
{
    struct vftr_syncsort *s = calloc(1, sizeof *s);

    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    s->out = out;
    s->arg = arg;
    return s;
}

void vftr_syncsort_free(struct vftr_syncsort *s)
{
    if (!s)
        return;
    free(s->v);
    free(s->pool);
    free(s);
}

int vftr_syncsort_flush(struct vftr_syncsort *s)
{
    int rc = 0;

    /* a handful at a time, mostly in order already: insertion sort (the
     * keys are unique, so any sort gives this order) */
    for (size_t i = 1; i < s->n; i++) {
        if (vftr_syncrec_cmp(&s->v[i - 1].r, &s->v[i].r) <= 0)
            continue;
        struct held h = s->v[i];
        size_t j = i;

        for (; j > 0 && vftr_syncrec_cmp(&s->v[j - 1].r, &h.r) > 0; j--)
            s->v[j] = s->v[j - 1];
        s->v[j] = h;
    }
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        s->v[i].r.seg = s->pool + s->v[i].seg;
        rc = s->out(s->arg, &s->v[i].r);
    }
    s->n = 0;
    s->npool = 0;
    return rc;
}

int vftr_syncsort_push(void *arg, const struct vftr_syncrec *r)
{
    struct vftr_syncsort *s = arg;
    int rc;

    /* every record waits for the time to move on: the next one may share
     * its time and sort before it */
    if (s->n && r->time != s->v[0].r.time && (rc = vftr_syncsort_flush(s)) != 0)
        return rc;
    if (vftr_reserve((void **)&s->v, &s->cap, s->n, sizeof *s->v) < 0)
        return -ENOMEM;
    while (s->npool + r->nseg > s->cappool) {
        size_t cap = s->cappool ? 2 * s->cappool : 64;
        struct vftr_syncseg *p = realloc(s->pool, cap * sizeof *p);

        if (!p)
            return -ENOMEM;
        s->pool = p;
        s->cappool = cap;
    }
    if (r->nseg)
        memcpy(s->pool + s->npool, r->seg, r->nseg * sizeof *r->seg);
    s->v[s->n] = (struct held){ *r, s->npool };
    s->v[s->n].r.seg = NULL;
    s->npool += r->nseg;
    s->n++;
    return 0;
}
