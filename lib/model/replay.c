/*
 * replay.c — see replay.h.  One stack per process; per (process, function)
 * statistics and call-path nodes are found through hash maps, so the cost
 * per event is O(1) apart from the rare mismatched leave.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "replay.h"
#include "u64map.h"

struct frame {
    uint32_t fs;         /* index into funcstats */
    uint32_t path;       /* path id (index + 1) */
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
};

struct vftr_replay {
    uint64_t start, end;
    bool finished;
    struct vftr_replay_counts counts;

    struct proc *procs;
    size_t nprocs, capprocs;
    struct vftr_u64map procmap;        /* process -> index */

    struct vftr_funcstat *fs;
    uint32_t *active;                  /* per funcstat: frames of it on the stack */
    size_t nfs, capfs;
    struct vftr_u64map fsmap;          /* process << 32 | function -> index */

    struct vftr_pathstat *paths;
    size_t npaths, cappaths;
    struct vftr_u64map pathmap;        /* parent << 32 | function -> index */
};

/* Grows *arr (of elements of size `size`) so that it holds n + 1. */
static int reserve(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, ncap * size);

    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = ncap;
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
    return r;
}

void vftr_replay_free(struct vftr_replay *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nprocs; i++)
        free(r->procs[i].stack);
    free(r->procs);
    free(r->fs);
    free(r->active);
    free(r->paths);
    vftr_u64map_release(&r->procmap);
    vftr_u64map_release(&r->fsmap);
    vftr_u64map_release(&r->pathmap);
    free(r);
}

static struct proc *get_proc(struct vftr_replay *r, uint32_t id)
{
    long i = vftr_u64map_get(&r->procmap, id);

    if (i >= 0)
        return &r->procs[i];
    if (reserve((void **)&r->procs, &r->capprocs, r->nprocs, sizeof *r->procs) < 0 ||
        vftr_u64map_put(&r->procmap, id, (uint32_t)r->nprocs) < 0)
        return NULL;
    struct proc *p = &r->procs[r->nprocs++];
    *p = (struct proc){ .id = id };
    return p;
}

static long get_fs(struct vftr_replay *r, uint32_t process, uint32_t function)
{
    uint64_t key = (uint64_t)process << 32 | function;
    long i = vftr_u64map_get(&r->fsmap, key);
    size_t cap = r->capfs;

    if (i >= 0)
        return i;
    if (reserve((void **)&r->fs, &cap, r->nfs, sizeof *r->fs) < 0)
        return -ENOMEM;
    cap = r->capfs;
    if (reserve((void **)&r->active, &cap, r->nfs, sizeof *r->active) < 0)
        return -ENOMEM;
    r->capfs = cap;
    if (vftr_u64map_put(&r->fsmap, key, (uint32_t)r->nfs) < 0)
        return -ENOMEM;
    r->fs[r->nfs] = (struct vftr_funcstat){ .process = process, .function = function };
    r->active[r->nfs] = 0;
    return (long)r->nfs++;
}

/* The id of the path parent/function, created on first use; 0 on ENOMEM. */
static uint32_t get_path(struct vftr_replay *r, uint32_t parent, uint32_t function)
{
    uint64_t key = (uint64_t)parent << 32 | function;
    long i = vftr_u64map_get(&r->pathmap, key);

    if (i >= 0)
        return (uint32_t)i + 1;
    if (reserve((void **)&r->paths, &r->cappaths, r->npaths, sizeof *r->paths) < 0 ||
        vftr_u64map_put(&r->pathmap, key, (uint32_t)r->npaths) < 0)
        return 0;
    r->paths[r->npaths] = (struct vftr_pathstat){
        .parent = parent, .function = function,
        .depth = parent ? r->paths[parent - 1].depth + 1 : 1,
    };
    return (uint32_t)++r->npaths;
}

/*
 * Common entry of enter/leave: window, process, monotonic time.  Returns
 * the process, or NULL with *rc set (0: event ignored, -errno: failure).
 */
static struct proc *begin_event(struct vftr_replay *r, uint32_t process, uint64_t *time, int *rc)
{
    struct proc *p;

    *rc = 0;
    if (r->finished) {
        *rc = -EINVAL;
        return NULL;
    }
    if (*time < r->start || *time >= r->end) {
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
    } else if (*time < p->last) {
        r->counts.backwards++;
        *time = p->last;
    }
    p->last = *time;
    return p;
}

/* Pops the top frame of p at time t and books its times. */
static void pop(struct vftr_replay *r, struct proc *p, uint64_t t)
{
    struct frame *f = &p->stack[--p->depth];
    uint64_t dur = t > f->enter ? t - f->enter : 0;   /* a frame from open_call may start late */
    uint64_t excl = dur > f->child ? dur - f->child : 0;
    struct vftr_pathstat *path = &r->paths[f->path - 1];

    r->fs[f->fs].excl += excl;
    if (--r->active[f->fs] == 0)
        r->fs[f->fs].incl += dur;
    path->excl += excl;
    path->incl += dur;
    if (p->depth > 0)
        p->stack[p->depth - 1].child += dur;
    else
        p->root_done += dur;
}

/* Pushes a frame of `function` entered at `enter`, enclosing `child`. */
static int push(struct vftr_replay *r, struct proc *p, uint32_t function, uint64_t enter,
                uint64_t child)
{
    uint32_t parent = p->depth ? p->stack[p->depth - 1].path : 0;
    long fs = get_fs(r, p->id, function);
    uint32_t path;

    if (fs < 0)
        return (int)fs;
    path = get_path(r, parent, function);
    if (path == 0 || reserve((void **)&p->stack, &p->cap, p->depth, sizeof *p->stack) < 0)
        return -ENOMEM;
    p->stack[p->depth++] = (struct frame){ (uint32_t)fs, path, enter, child };
    r->active[fs]++;
    return 0;
}

int vftr_replay_enter(struct vftr_replay *r, uint32_t process, uint32_t function, uint64_t time)
{
    int rc;
    struct proc *p = begin_event(r, process, &time, &rc);

    if (!p)
        return rc;
    rc = push(r, p, function, time, 0);
    if (rc < 0)
        return rc;
    r->counts.enters++;
    r->fs[p->stack[p->depth - 1].fs].calls++;
    r->paths[p->stack[p->depth - 1].path - 1].calls++;
    return 0;
}

int vftr_replay_leave(struct vftr_replay *r, uint32_t process, uint32_t function, uint64_t time)
{
    int rc;
    struct proc *p = begin_event(r, process, &time, &rc);

    if (!p)
        return rc;
    r->counts.leaves++;
    if (p->depth == 0 && function == 0) {
        r->counts.mismatched++;         /* nothing to close, nothing named */
        return 0;
    }
    if (p->depth == 0) {
        /* Begun before the window: it enclosed all the completed root calls. */
        uint64_t origin = r->start ? r->start : p->first;

        rc = push(r, p, function, origin, p->root_done);
        if (rc < 0)
            return rc;
        r->counts.implied_enters++;
        p->root_done = 0;
        pop(r, p, time);
        return 0;
    }
    if (function != 0 && r->fs[p->stack[p->depth - 1].fs].function != function) {
        size_t k = p->depth - 1;

        while (k > 0 && r->fs[p->stack[k - 1].fs].function != function)
            k--;
        r->counts.mismatched++;
        if (k == 0)
            return 0;                   /* not on the stack: ignored */
        while (p->depth > k - 1)        /* the frames above it, then it */
            pop(r, p, time);
        return 0;
    }
    pop(r, p, time);
    return 0;
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
    if (p->seen)
        return -EINVAL;
    if (enter < r->start)
        enter = r->start;
    if (enter > p->last)
        p->last = enter;
    return push(r, p, function, enter, 0);
}

int vftr_replay_finish(struct vftr_replay *r)
{
    if (r->finished)
        return -EINVAL;
    r->finished = true;
    for (size_t i = 0; i < r->nprocs; i++) {
        struct proc *p = &r->procs[i];
        uint64_t t = r->end == UINT64_MAX ? p->last : r->end;

        r->counts.closed_at_end += p->depth;
        while (p->depth > 0)
            pop(r, p, t);
    }
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

const struct vftr_replay_counts *vftr_replay_counts(const struct vftr_replay *r)
{
    return &r->counts;
}

size_t vftr_replay_nprocesses(const struct vftr_replay *r)
{
    return r->nprocs;
}
