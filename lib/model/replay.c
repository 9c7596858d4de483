/*
 * replay.c — see replay.h.  One stack per process.  The per-event lookups
 * are cached so that the usual event costs no hashing at all:
 *   - process -> its state: a direct table for small tokens (OTF writers
 *     number processes densely from 1), a hash map for the others;
 *   - (process, function) -> statistics: per process a direct table for
 *     small function tokens, the hash map for the others;
 *   - (parent path, function) -> path: every path node remembers the child
 *     it was last asked for (a loop calls the same callee again and again),
 *     the hash map on a miss.
 * The hash maps stay the authority: every entry of a cache is also in them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "replay.h"
#include "u64map.h"

/* Keeps rare paths out of the hot functions (their register pressure). */
#if defined(__GNUC__)
#  define COLD __attribute__((noinline, cold))
#else
#  define COLD
#endif

/* An event before the window start (only the stack is kept). */
#define VFTR_UNLIKELY_BEFORE(r, t) __builtin_expect((t) < (r)->start, 0)

/* Tokens below these bounds are looked up in direct tables. */
#define DIRECT_PROCS 65536u
#define DIRECT_FUNCS 65536u

struct frame {
    uint32_t fs;         /* index into funcstats */
    uint32_t path;       /* path id (index + 1) */
    uint32_t function;
    uint64_t enter;
    uint64_t child;      /* inclusive time of the completed callees */
};

struct proc {
    uint32_t id;
    bool seen;
    uint64_t first, last;     /* first and latest time stamp in the window */
    uint64_t root_done;       /* time of the calls completed at the stack
                                 bottom since the origin (see implied frames) */
    struct frame *stack;
    size_t depth, cap;
    uint32_t *pre;            /* functions open before the window start, outermost first */
    size_t npre, cappre;
    uint32_t *fsdirect;       /* function -> funcstat index + 1 (0: not yet) */
    size_t nfsdirect;
};

/* The child a path node was last asked for: function -> path id. */
struct childcache {
    uint32_t function;
    uint32_t path;            /* 0: empty */
};

struct vftr_replay {
    uint64_t start, end;
    bool finished;
    bool per_call;                     /* VFTR_REPLAY_INCL_PER_CALL */
    bool paths_on;                     /* not VFTR_REPLAY_NO_PATHS */
    struct vftr_replay_counts counts;

    struct proc *procs;
    size_t nprocs, capprocs;
    struct vftr_u64map procmap;        /* process -> index */
    uint32_t *procdirect;              /* process < DIRECT_PROCS -> index + 1 */
    size_t nprocdirect;

    struct vftr_funcstat *fs;
    uint32_t *active;                  /* per funcstat: frames of it on the stack */
    uint32_t *fsgroup;                 /* per funcstat: its group's index (groups set) */
    size_t nfs, capfs;
    struct vftr_u64map fsmap;          /* process << 32 | function -> index */

    /* vftr_replay_set_groups: figures per (process, group) */
    uint32_t (*group)(void *arg, uint32_t function);
    void *group_arg;
    bool inexact;                      /* group figures unusable: an event came before the
                                          window start, or a replay without a map merged in */
    struct vftr_funcstat *gs;
    uint32_t *gactive;                 /* per group row: frames of its functions on the stack */
    size_t ngs, capgs;
    struct vftr_u64map gsmap;          /* process << 32 | group -> index */

    struct vftr_pathstat *paths;
    struct childcache *pathcache;      /* per path; [0] is the root's */
    size_t npaths, cappaths;
    struct vftr_u64map pathmap;        /* parent << 32 | function -> index */
    struct childcache rootcache;
};

/* Makes the direct table *tab (of *n entries) hold index id, zero-filled. */
static int direct_reserve(uint32_t **tab, size_t *n, uint32_t id)
{
    size_t m = *n ? *n : 64;
    uint32_t *p;

    if (id < *n)
        return 0;
    while (m <= id)
        m *= 2;
    p = realloc(*tab, m * sizeof *p);
    if (!p)
        return -ENOMEM;
    memset(p + *n, 0, (m - *n) * sizeof *p);
    *tab = p;
    *n = m;
    return 0;
}

struct vftr_replay *vftr_replay_new(uint64_t start, uint64_t end)
{
    struct vftr_replay *r;

    if (end <= start) {
        errno = EINVAL;
        return NULL;
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        errno = ENOMEM;
        return NULL;
    }
    r->start = start;
    r->end = end;
    r->paths_on = true;
    return r;
}

void vftr_replay_free(struct vftr_replay *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nprocs; i++) {
        free(r->procs[i].stack);
        free(r->procs[i].pre);
        free(r->procs[i].fsdirect);
    }
    free(r->procs);
    free(r->procdirect);
    free(r->fs);
    free(r->active);
    free(r->fsgroup);
    free(r->gs);
    free(r->gactive);
    vftr_u64map_release(&r->gsmap);
    free(r->paths);
    free(r->pathcache);
    vftr_u64map_release(&r->procmap);
    vftr_u64map_release(&r->fsmap);
    vftr_u64map_release(&r->pathmap);
    free(r);
}

COLD static struct proc *get_proc_slow(struct vftr_replay *r, uint32_t id)
{
    long i = vftr_u64map_get(&r->procmap, id);

    if (i >= 0)
        return &r->procs[i];
    if (vftr_reserve((void **)&r->procs, &r->capprocs, r->nprocs, sizeof *r->procs) < 0 ||
        (id < DIRECT_PROCS && direct_reserve(&r->procdirect, &r->nprocdirect, id) < 0) ||
        vftr_u64map_put(&r->procmap, id, (uint32_t)r->nprocs) < 0)
        return NULL;
    if (id < DIRECT_PROCS)
        r->procdirect[id] = (uint32_t)r->nprocs + 1;
    struct proc *p = &r->procs[r->nprocs++];
    *p = (struct proc){ .id = id };
    return p;
}

static inline struct proc *get_proc(struct vftr_replay *r, uint32_t id)
{
    if (id < r->nprocdirect && r->procdirect[id])
        return &r->procs[r->procdirect[id] - 1];
    return get_proc_slow(r, id);
}

/* The index of the group row (process, g), created on first use; -ENOMEM. */
static long get_group(struct vftr_replay *r, uint32_t process, uint32_t g)
{
    uint64_t key = (uint64_t)process << 32 | g;
    long i = vftr_u64map_get(&r->gsmap, key);
    size_t cap = r->capgs;

    if (i >= 0)
        return i;
    if (vftr_reserve((void **)&r->gs, &cap, r->ngs, sizeof *r->gs) < 0)
        return -ENOMEM;
    cap = r->capgs;
    if (vftr_reserve((void **)&r->gactive, &cap, r->ngs, sizeof *r->gactive) < 0)
        return -ENOMEM;
    r->capgs = cap;
    if (vftr_u64map_put(&r->gsmap, key, (uint32_t)r->ngs) < 0)
        return -ENOMEM;
    r->gs[r->ngs] = (struct vftr_funcstat){ .process = process, .function = g };
    r->gactive[r->ngs] = 0;
    return (long)r->ngs++;
}

/* The funcstat index of (p, function), created on first use. */
COLD static long get_fs_slow(struct vftr_replay *r, struct proc *p, uint32_t function)
{
    uint64_t key = (uint64_t)p->id << 32 | function;
    long i;
    size_t cap = r->capfs;

    if (function < DIRECT_FUNCS && direct_reserve(&p->fsdirect, &p->nfsdirect, function) < 0)
        return -ENOMEM;
    i = vftr_u64map_get(&r->fsmap, key);
    if (i < 0) {
        if (vftr_reserve((void **)&r->fs, &cap, r->nfs, sizeof *r->fs) < 0)
            return -ENOMEM;
        cap = r->capfs;
        if (vftr_reserve((void **)&r->active, &cap, r->nfs, sizeof *r->active) < 0)
            return -ENOMEM;
        if (r->group) {
            long g;

            cap = r->capfs;
            if (vftr_reserve((void **)&r->fsgroup, &cap, r->nfs, sizeof *r->fsgroup) < 0 ||
                (g = get_group(r, p->id, r->group(r->group_arg, function))) < 0)
                return -ENOMEM;
            r->fsgroup[r->nfs] = (uint32_t)g;
        }
        r->capfs = cap;
        if (vftr_u64map_put(&r->fsmap, key, (uint32_t)r->nfs) < 0)
            return -ENOMEM;
        r->fs[r->nfs] = (struct vftr_funcstat){ .process = p->id, .function = function };
        r->active[r->nfs] = 0;
        i = (long)r->nfs++;
    }
    if (function < DIRECT_FUNCS)
        p->fsdirect[function] = (uint32_t)i + 1;
    return i;
}

static inline long get_fs(struct vftr_replay *r, struct proc *p, uint32_t function)
{
    if (function < p->nfsdirect && p->fsdirect[function])
        return (long)p->fsdirect[function] - 1;
    return get_fs_slow(r, p, function);
}

/* The id of the path parent/function, created on first use; 0 on ENOMEM. */
COLD static uint32_t get_path_slow(struct vftr_replay *r, uint32_t parent, uint32_t function)
{
    struct childcache *c;
    uint64_t key = (uint64_t)parent << 32 | function;
    long i;
    size_t cap = r->cappaths;

    i = vftr_u64map_get(&r->pathmap, key);
    if (i < 0) {
        if (vftr_reserve((void **)&r->paths, &cap, r->npaths, sizeof *r->paths) < 0)
            return 0;
        cap = r->cappaths;
        if (vftr_reserve((void **)&r->pathcache, &cap, r->npaths, sizeof *r->pathcache) < 0)
            return 0;
        r->cappaths = cap;
        if (vftr_u64map_put(&r->pathmap, key, (uint32_t)r->npaths) < 0)
            return 0;
        r->paths[r->npaths] = (struct vftr_pathstat){
            .parent = parent, .function = function,
            .depth = parent ? r->paths[parent - 1].depth + 1 : 1,
        };
        r->pathcache[r->npaths] = (struct childcache){ 0, 0 };
        i = (long)r->npaths++;
    }
    c = parent ? &r->pathcache[parent - 1] : &r->rootcache;
    *c = (struct childcache){ function, (uint32_t)i + 1 };
    return (uint32_t)i + 1;
}

static inline uint32_t get_path(struct vftr_replay *r, uint32_t parent, uint32_t function)
{
    const struct childcache *c = parent ? &r->pathcache[parent - 1] : &r->rootcache;

    if (c->path && c->function == function)
        return c->path;
    return get_path_slow(r, parent, function);
}

/*
 * Before the window: only the stack is kept (function tokens), with the
 * same rules as inside it (a leave closes the frames above its function, a
 * leave of a function not on the stack is ignored, function 0 closes the
 * top).  Nothing is booked.  0 or -ENOMEM.
 */
COLD static int before_window(struct vftr_replay *r, uint32_t process, uint32_t function,
                              bool enter)
{
    struct proc *p = get_proc(r, process);

    r->counts.outside++;
    r->inexact = true;
    if (!p)
        return -ENOMEM;
    if (p->seen)                        /* time went back across the start */
        return 0;
    if (enter) {
        if (vftr_reserve((void **)&p->pre, &p->cappre, p->npre, sizeof *p->pre) < 0)
            return -ENOMEM;
        p->pre[p->npre++] = function;
        return 0;
    }
    for (size_t k = p->npre; k > 0; k--)
        if (function == 0 || p->pre[k - 1] == function) {
            p->npre = k - 1;
            break;
        }
    return 0;
}

static inline int push(struct vftr_replay *r, struct proc *p, uint32_t function, uint64_t enter,
                       uint64_t child);

/* The frames open at the window start become calls under way (not counted
 * as calls), entered at the start.  0 or -ENOMEM. */
COLD static int open_pre(struct vftr_replay *r, struct proc *p)
{
    for (size_t k = 0; k < p->npre; k++) {
        int rc = push(r, p, p->pre[k], r->start, 0);

        if (rc < 0)
            return rc;
    }
    p->npre = 0;
    return 0;
}

/*
 * Common entry of enter/leave: window, process, monotonic time.  Returns
 * the process, or NULL with *rc set (0: event ignored, -errno: failure).
 */
static inline struct proc *begin_event(struct vftr_replay *r, uint32_t process, uint64_t *time, int *rc)
{
    struct proc *p;

    *rc = 0;
    if (r->finished) {
        *rc = -EINVAL;
        return NULL;
    }
    if (*time >= r->end) {
        r->counts.outside++;
        return NULL;
    }
    p = get_proc(r, process);
    if (!p) {
        *rc = -ENOMEM;
        return NULL;
    }
    if (!p->seen) {
        p->seen = true;
        p->first = p->last = *time;
        if (p->npre && (*rc = open_pre(r, p)) < 0)
            return NULL;
    } else if (*time < p->last) {
        r->counts.backwards++;
        *time = p->last;
    }
    p->last = *time;
    return p;
}

/* Pops the top frame of p at time t and books its times. */
static inline void pop(struct vftr_replay *r, struct proc *p, uint64_t t)
{
    struct frame *f = &p->stack[--p->depth];
    uint64_t dur = t > f->enter ? t - f->enter : 0;   /* a frame from open_call may start late */
    uint64_t excl = dur > f->child ? dur - f->child : 0;
    r->fs[f->fs].excl += excl;
    if (--r->active[f->fs] == 0 || r->per_call)
        r->fs[f->fs].incl += dur;
    if (r->group) {
        uint32_t g = r->fsgroup[f->fs];

        r->gs[g].excl += excl;
        if (--r->gactive[g] == 0)
            r->gs[g].incl += dur;
    }
    if (f->path) {
        struct vftr_pathstat *path = &r->paths[f->path - 1];

        path->excl += excl;
        path->incl += dur;
    }
    if (p->depth > 0)
        p->stack[p->depth - 1].child += dur;
    else
        p->root_done += dur;
}

/* Pushes a frame of `function` entered at `enter`, enclosing `child`. */
static inline int push(struct vftr_replay *r, struct proc *p, uint32_t function, uint64_t enter,
                       uint64_t child)
{
    long fs = get_fs(r, p, function);
    uint32_t path = 0;

    if (fs < 0)
        return (int)fs;
    if (r->paths_on) {
        path = get_path(r, p->depth ? p->stack[p->depth - 1].path : 0, function);
        if (path == 0)
            return -ENOMEM;
    }
    if (vftr_reserve((void **)&p->stack, &p->cap, p->depth, sizeof *p->stack) < 0)
        return -ENOMEM;
    p->stack[p->depth++] = (struct frame){ (uint32_t)fs, path, function, enter, child };
    r->active[fs]++;
    if (r->group)
        r->gactive[r->fsgroup[fs]]++;
    return 0;
}

int vftr_replay_enter(struct vftr_replay *r, uint32_t process, uint32_t function, uint64_t time)
{
    int rc;
    struct proc *p;

    if (VFTR_UNLIKELY_BEFORE(r, time))
        return r->finished ? -EINVAL : before_window(r, process, function, true);
    p = begin_event(r, process, &time, &rc);

    if (!p)
        return rc;
    rc = push(r, p, function, time, 0);
    if (rc < 0)
        return rc;
    r->counts.enters++;
    {
        const struct frame *f = &p->stack[p->depth - 1];

        r->fs[f->fs].calls++;
        if (r->group)
            r->gs[r->fsgroup[f->fs]].calls++;
        if (f->path)
            r->paths[f->path - 1].calls++;
    }
    return 0;
}

/* The rare leaves: nothing on the stack, or not the function on top. */
COLD static int leave_slow(struct vftr_replay *r, struct proc *p, uint32_t function,
                           uint64_t time)
{
    if (p->depth == 0 && function == 0) {
        r->counts.mismatched++;         /* nothing to close, nothing named */
        return 0;
    }
    if (p->depth == 0) {
        /* Begun before the window: it enclosed all the completed root calls. */
        uint64_t origin = r->start ? r->start : p->first;
        int rc = push(r, p, function, origin, p->root_done);

        if (rc < 0)
            return rc;
        r->counts.implied_enters++;
        p->root_done = 0;
        pop(r, p, time);
        return 0;
    }
    size_t k = p->depth - 1;

    while (k > 0 && p->stack[k - 1].function != function)
        k--;
    r->counts.mismatched++;
    if (k == 0)
        return 0;                       /* not on the stack: ignored */
    while (p->depth > k - 1)            /* the frames above it, then it */
        pop(r, p, time);
    return 0;
}

int vftr_replay_leave(struct vftr_replay *r, uint32_t process, uint32_t function, uint64_t time)
{
    int rc;
    struct proc *p;

    if (VFTR_UNLIKELY_BEFORE(r, time))
        return r->finished ? -EINVAL : before_window(r, process, function, false);
    p = begin_event(r, process, &time, &rc);

    if (!p)
        return rc;
    r->counts.leaves++;
    if (p->depth > 0 && (function == 0 || p->stack[p->depth - 1].function == function)) {
        pop(r, p, time);
        return 0;
    }
    return leave_slow(r, p, function, time);
}

int vftr_replay_open_call(struct vftr_replay *r, uint32_t process, uint32_t function,
                          uint64_t enter)
{
    struct proc *p;

    if (r->finished)
        return -EINVAL;
    p = get_proc(r, process);
    if (!p)
        return -ENOMEM;
    if (p->seen || p->npre)
        return -EINVAL;
    if (enter < r->start)
        enter = r->start;
    if (enter > p->last)
        p->last = enter;
    return push(r, p, function, enter, 0);
}

int vftr_replay_set_flags(struct vftr_replay *r, unsigned flags)
{
    if (r->finished || r->nprocs > 0 ||
        (flags & ~(VFTR_REPLAY_INCL_PER_CALL | VFTR_REPLAY_NO_PATHS)))
        return -EINVAL;
    r->per_call = flags & VFTR_REPLAY_INCL_PER_CALL;
    r->paths_on = !(flags & VFTR_REPLAY_NO_PATHS);
    return 0;
}

int vftr_replay_set_groups(struct vftr_replay *r, uint32_t (*group)(void *arg, uint32_t function),
                           void *arg)
{
    if (r->finished || r->nprocs > 0 || !group)
        return -EINVAL;
    r->group = group;
    r->group_arg = arg;
    return 0;
}

const struct vftr_funcstat *vftr_replay_groupstats(const struct vftr_replay *r, size_t *n)
{
    *n = r->ngs;
    return r->gs;
}

int vftr_replay_groups_exact(const struct vftr_replay *r)
{
    return r->group && !r->inexact && r->counts.mismatched == 0 &&
           r->counts.implied_enters == 0;
}

int vftr_replay_finish(struct vftr_replay *r)
{
    if (r->finished)
        return -EINVAL;
    r->finished = true;
    for (size_t i = 0; i < r->nprocs; i++) {
        struct proc *p = &r->procs[i];
        uint64_t t;

        /* calls under way across the whole window (no event inside it) */
        if (!p->seen && p->npre && r->end != UINT64_MAX) {
            int rc = open_pre(r, p);

            if (rc < 0)
                return rc;
            p->seen = true;
            p->first = p->last = r->start;
        }
        t = r->end == UINT64_MAX ? p->last : r->end;

        r->counts.closed_at_end += p->depth;
        while (p->depth > 0)
            pop(r, p, t);
    }
    return 0;
}

/*
 * Paths of src are visited in id order, which puts every parent before its
 * children (a node is created while its parent is on a stack), so the
 * parent's id in dst is known when a child is merged.
 */
int vftr_replay_merge(struct vftr_replay *dst, const struct vftr_replay *src)
{
    uint32_t *pathid;
    const struct vftr_replay_counts *k = &src->counts;

    if (!dst->finished || !src->finished || dst == src)
        return -EINVAL;
    for (size_t i = 0; i < src->nprocs; i++) {
        const struct proc *sp = &src->procs[i];
        bool fresh = vftr_u64map_get(&dst->procmap, sp->id) < 0;
        struct proc *p = get_proc(dst, sp->id);

        if (!p)
            return -ENOMEM;
        if (fresh) {
            p->seen = sp->seen;
            p->first = sp->first;
            p->last = sp->last;
        }
    }
    for (size_t i = 0; i < src->nfs; i++) {
        const struct vftr_funcstat *s = &src->fs[i];
        struct proc *p = get_proc(dst, s->process);
        long j = p ? get_fs(dst, p, s->function) : -ENOMEM;

        if (j < 0)
            return -ENOMEM;
        dst->fs[j].calls += s->calls;
        dst->fs[j].excl += s->excl;
        dst->fs[j].incl += s->incl;
    }
    for (size_t i = 0; i < src->ngs && dst->group; i++) {
        const struct vftr_funcstat *s = &src->gs[i];
        long j = get_group(dst, s->process, s->function);

        if (j < 0)
            return -ENOMEM;
        dst->gs[j].calls += s->calls;
        dst->gs[j].excl += s->excl;
        dst->gs[j].incl += s->incl;
    }
    dst->inexact |= src->inexact || (dst->group && !src->group && src->nfs);
    pathid = malloc((src->npaths ? src->npaths : 1) * sizeof *pathid);
    if (!pathid)
        return -ENOMEM;
    for (size_t i = 0; i < src->npaths && dst->paths_on; i++) {
        const struct vftr_pathstat *s = &src->paths[i];
        uint32_t id = get_path(dst, s->parent ? pathid[s->parent - 1] : 0, s->function);

        if (id == 0) {
            free(pathid);
            return -ENOMEM;
        }
        pathid[i] = id;
        dst->paths[id - 1].calls += s->calls;
        dst->paths[id - 1].excl += s->excl;
        dst->paths[id - 1].incl += s->incl;
    }
    free(pathid);
    dst->counts.enters += k->enters;
    dst->counts.leaves += k->leaves;
    dst->counts.outside += k->outside;
    dst->counts.implied_enters += k->implied_enters;
    dst->counts.mismatched += k->mismatched;
    dst->counts.closed_at_end += k->closed_at_end;
    dst->counts.backwards += k->backwards;
    return 0;
}

const struct vftr_funcstat *vftr_replay_funcstats(const struct vftr_replay *r, size_t *n)
{
    *n = r->nfs;
    return r->fs;
}

const struct vftr_pathstat *vftr_replay_paths(const struct vftr_replay *r, size_t *n)
{
    *n = r->npaths;
    return r->paths;
}

int vftr_pathstat_order(const struct vftr_pathstat *x, const char *xname,
                        const struct vftr_pathstat *y, const char *yname)
{
    int d;

    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->incl != y->incl)
        return x->incl > y->incl ? -1 : 1;
    d = strcmp(xname, yname);
    if (d)
        return d;
    return (x->function > y->function) - (x->function < y->function);
}

const struct vftr_replay_counts *vftr_replay_counts(const struct vftr_replay *r)
{
    return &r->counts;
}

size_t vftr_replay_nprocesses(const struct vftr_replay *r)
{
    size_t n = 0;

    for (size_t i = 0; i < r->nprocs; i++)
        n += r->procs[i].seen;
    return n;
}

/* The state of process without creating it: NULL when it had no event. */
static const struct proc *find_proc(const struct vftr_replay *r, uint32_t id)
{
    long i;

    if (id < r->nprocdirect)
        return r->procdirect[id] ? &r->procs[r->procdirect[id] - 1] : NULL;
    i = vftr_u64map_get(&r->procmap, id);
    return i < 0 ? NULL : &r->procs[i];
}

size_t vftr_replay_top(const struct vftr_replay *r, uint32_t process,
                       struct vftr_replay_frame *top)
{
    const struct proc *p = find_proc(r, process);

    if (!p || p->depth == 0)
        return 0;
    if (top) {
        const struct frame *f = &p->stack[p->depth - 1];

        *top = (struct vftr_replay_frame){ f->function, f->path, f->enter };
    }
    return p->depth;
}

int vftr_replay_frame(const struct vftr_replay *r, uint32_t process, size_t i,
                      struct vftr_replay_frame *out)
{
    const struct proc *p = find_proc(r, process);
    const struct frame *f;

    if (!p || i >= p->depth)
        return -ENOENT;
    f = &p->stack[i];
    *out = (struct vftr_replay_frame){ f->function, f->path, f->enter };
    return 0;
}
