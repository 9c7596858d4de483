/*
 * ctrpaths.c — counters per call path (ctrpaths.h).
 */
#include "ctrpaths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "u64map.h"

struct frame {
    uint32_t path;              /* index */
    uint32_t have;              /* counters with a start value */
};

struct proc {
    uint32_t token;
    struct frame *st;
    size_t depth, cap;
    uint64_t *start;            /* depth x n values, in step with st */
    size_t scap;
    /* the last event: values that follow belong to it */
    int last;                   /* 0 none, 1 an enter (top frame), 2 a leave */
    uint32_t left_path, left_have, left_done;   /* masks of counters with values */
    uint64_t *left_start;       /* n values of the frame just left */
    uint64_t *left_end;
};

struct vftr_ctrpaths {
    size_t n;
    uint32_t *tok;
    struct vftr_u64map pmap;    /* process token -> index */
    struct proc *procs;
    size_t nprocs, cprocs;
    struct vftr_u64map tree;    /* parent path id << 32 | function -> path index */
    struct vftr_ctrpath *paths;
    size_t npaths, cpaths;
    uint64_t *incl;             /* npaths x n */
    int64_t *excl;
    size_t cvals;
};

struct vftr_ctrpaths *vftr_ctrpaths_new(const uint32_t *tok, size_t n)
{
    struct vftr_ctrpaths *c;

    if (n > VFTR_CTRPATHS_MAX) {
        errno = EINVAL;
        return NULL;
    }
    c = calloc(1, sizeof *c);

    if (c == NULL || (c->tok = malloc((n ? n : 1) * sizeof *tok)) == NULL) {
        free(c);
        errno = ENOMEM;
        return NULL;
    }
    if (n)
        memcpy(c->tok, tok, n * sizeof *tok);
    c->n = n;
    return c;
}

void vftr_ctrpaths_free(struct vftr_ctrpaths *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->nprocs; i++) {
        free(c->procs[i].st);
        free(c->procs[i].start);
        free(c->procs[i].left_start);
        free(c->procs[i].left_end);
    }
    free(c->procs);
    free(c->paths);
    free(c->incl);
    free(c->excl);
    free(c->tok);
    vftr_u64map_release(&c->pmap);
    vftr_u64map_release(&c->tree);
    free(c);
}

static struct proc *proc_of(struct vftr_ctrpaths *c, uint32_t token)
{
    long i = vftr_u64map_get(&c->pmap, token);
    struct proc *p;

    if (i >= 0)
        return &c->procs[i];
    if (vftr_reserve((void **)&c->procs, &c->cprocs, c->nprocs, sizeof *c->procs) < 0 ||
        vftr_u64map_put(&c->pmap, token, (uint32_t)c->nprocs) < 0)
        return NULL;
    p = &c->procs[c->nprocs];
    memset(p, 0, sizeof *p);
    p->token = token;
    p->left_start = calloc(c->n ? c->n : 1, sizeof *p->left_start);
    p->left_end = calloc(c->n ? c->n : 1, sizeof *p->left_end);
    if (p->left_start == NULL || p->left_end == NULL) {
        free(p->left_start);
        free(p->left_end);
        return NULL;
    }
    c->nprocs++;
    return p;
}

/* Path index of function under parent path id, made when new; -1: memory. */
static long path_of(struct vftr_ctrpaths *c, uint32_t parent, uint32_t function)
{
    uint64_t key = (uint64_t)parent << 32 | function;
    long i = vftr_u64map_get(&c->tree, key);
    size_t cv = c->cvals;

    if (i >= 0)
        return i;
    if (vftr_reserve((void **)&c->paths, &c->cpaths, c->npaths, sizeof *c->paths) < 0)
        return -1;
    if ((c->npaths + 1) * c->n > cv) {
        size_t want = cv ? cv * 2 : 64 * (c->n ? c->n : 1);
        uint64_t *in;

        while (want < (c->npaths + 1) * c->n)
            want *= 2;
        if ((in = realloc(c->incl, want * sizeof *in)) == NULL)
            return -1;
        memset(in + cv, 0, (want - cv) * sizeof *in);
        c->incl = in;
        c->cvals = want;
    }
    if (vftr_u64map_put(&c->tree, key, (uint32_t)c->npaths) < 0)
        return -1;
    c->paths[c->npaths] = (struct vftr_ctrpath){ parent, function, 0, NULL, NULL };
    return (long)c->npaths++;
}

static int on_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct vftr_ctrpaths *c = arg;
    struct proc *p = proc_of(c, process);
    long path;

    (void)time;
    if (p == NULL)
        return -ENOMEM;
    path = path_of(c, p->depth ? p->st[p->depth - 1].path + 1 : 0, function);
    if (path < 0 || vftr_reserve((void **)&p->st, &p->cap, p->depth, sizeof *p->st) < 0)
        return -ENOMEM;
    if ((p->depth + 1) * c->n > p->scap) {
        size_t want = p->scap ? p->scap * 2 : 64 * (c->n ? c->n : 1);
        uint64_t *s;

        while (want < (p->depth + 1) * c->n)
            want *= 2;
        if ((s = realloc(p->start, want * sizeof *s)) == NULL)
            return -ENOMEM;
        p->start = s;
        p->scap = want;
    }
    p->st[p->depth++] = (struct frame){ (uint32_t)path, 0 };
    p->last = 1;
    return 0;
}

static int on_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct vftr_ctrpaths *c = arg;
    struct proc *p = proc_of(c, process);
    struct frame *f;

    (void)time, (void)function;
    if (p == NULL)
        return -ENOMEM;
    p->last = 0;
    if (p->depth == 0)
        return 0;
    f = &p->st[--p->depth];
    p->left_path = f->path;
    p->left_have = f->have;
    p->left_done = 0;
    if (c->n)
        memcpy(p->left_start, p->start + p->depth * c->n, c->n * sizeof *p->left_start);
    p->last = 2;
    return 0;
}

static int on_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                      uint64_t value)
{
    struct vftr_ctrpaths *c = arg;
    struct proc *p = proc_of(c, process);
    uint32_t all = (1u << c->n) - 1;
    size_t k;

    (void)time;
    if (p == NULL)
        return -ENOMEM;
    for (k = 0; k < c->n && c->tok[k] != counter; k++)
        ;
    if (k == c->n)
        return 0;
    if (p->last == 1 && p->depth) {
        p->st[p->depth - 1].have |= 1u << k;
        p->start[(p->depth - 1) * c->n + k] = value;
    } else if (p->last == 2) {
        /* an end value of the call just left: booked once all are in, if
         * the call had all its start values */
        p->left_end[k] = value;
        p->left_done |= 1u << k;
        if (p->left_done == all) {
            uint64_t *in = c->incl + (size_t)p->left_path * c->n;

            p->last = 0;
            if (p->left_have != all)
                return 0;
            for (size_t j = 0; j < c->n; j++)
                in[j] += p->left_end[j] >= p->left_start[j] ? p->left_end[j] - p->left_start[j]
                                                             : 0;
            c->paths[p->left_path].calls++;
        }
    }
    return 0;
}

struct vftr_window_handler vftr_ctrpaths_handler(struct vftr_ctrpaths *c)
{
    struct vftr_window_handler h = { 0 };

    h.arg = c;
    h.enter = on_enter;
    h.leave = on_leave;
    h.counter = on_counter;
    return h;
}

const struct vftr_ctrpath *vftr_ctrpaths_result(struct vftr_ctrpaths *c, size_t *n)
{
    size_t nv = c->npaths * c->n;

    free(c->excl);
    c->excl = malloc((nv ? nv : 1) * sizeof *c->excl);
    if (c->excl == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < nv; i++)
        c->excl[i] = (int64_t)c->incl[i];
    for (size_t i = 0; i < c->npaths; i++) {
        uint32_t parent = c->paths[i].parent;

        if (parent == 0 || c->paths[i].calls == 0 || c->paths[parent - 1].calls == 0)
            continue;
        for (size_t k = 0; k < c->n; k++)
            c->excl[(size_t)(parent - 1) * c->n + k] -= (int64_t)c->incl[i * c->n + k];
    }
    for (size_t i = 0; i < c->npaths; i++) {
        c->paths[i].incl = c->incl + i * c->n;
        c->paths[i].excl = c->excl + i * c->n;
    }
    *n = c->npaths;
    return c->paths;
}
