/*
 * callpath.c — function records, per-thread call-path trees and the profile
 * snapshot.
 *
 * The hot path (capture.h: vftr_enter_at / vftr_exit_at) handles the common
 * cases with one compare: entering the child entered last time, leaving the
 * current node.  Everything else lands here, out of line:
 *   - a child not cached: looked up in the node's open-addressing table
 *     (keyed by function address), created on first sight;
 *   - a function seen for the first time by the process: its record is
 *     created under fn_lock, named once (settings.resolve) and classified
 *     once (settings.classify: filters, precise functions), so no regex ever
 *     runs per event;
 *   - an exit that is not the current node (see vftr_exit_mismatch).
 *
 * Exclusive time is not tracked per event: a node's children run only
 * while it is active, so excl = incl - sum of the children's incl, computed
 * once in the snapshot.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "ompt.h"
#include "names.h"

struct vftr_process vftr_proc = {
    .phase = VFTR_PHASE_STOPPED,
    .fn_lock = PTHREAD_MUTEX_INITIALIZER,
    .threads_lock = PTHREAD_MUTEX_INITIALIZER,
};

static VFTR_NI size_t hash_addr(uintptr_t a)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull;

    return (size_t)(h >> 29);
}

VFTR_NI int vftr_callpath_setup(const struct vftr_settings *s)
{
    vftr_proc.set = *s;
    vftr_trace_set_ranks(vftr_proc.size);
    atomic_store(&vftr_proc.next_node_id, 1);
    atomic_store(&vftr_proc.next_fn_id, 1);
    if (vftr_proc.fn_table == NULL) {
        vftr_proc.fn_cap = 1024;
        vftr_proc.fn_table = calloc(vftr_proc.fn_cap, sizeof *vftr_proc.fn_table);
        if (vftr_proc.fn_table == NULL)
            return -ENOMEM;
    }
    vftr_phase_setup();   /* no switch made yet: phase RUNNING */
    return 0;
}

/* Inserts f into the table (fn_lock held); grows it at load 1. */
static VFTR_NI void fn_insert(struct vftr_fn *f)
{
    size_t i;

    if (vftr_proc.fn_count >= vftr_proc.fn_cap) {
        size_t ncap = vftr_proc.fn_cap * 2;
        struct vftr_fn **nt = calloc(ncap, sizeof *nt);

        if (nt) {
            for (i = 0; i < vftr_proc.fn_cap; i++) {
                struct vftr_fn *e = vftr_proc.fn_table[i], *next;

                for (; e; e = next) {
                    size_t b = hash_addr(e->addr) & (ncap - 1);

                    next = e->hash_next;
                    e->hash_next = nt[b];
                    nt[b] = e;
                }
            }
            free(vftr_proc.fn_table);
            vftr_proc.fn_table = nt;
            vftr_proc.fn_cap = ncap;
        }   /* else: keep the longer chains */
    }
    i = hash_addr(f->addr) & (vftr_proc.fn_cap - 1);
    f->hash_next = vftr_proc.fn_table[i];
    vftr_proc.fn_table[i] = f;
    vftr_proc.fn_count++;
    f->all_next = atomic_load_explicit(&vftr_proc.fn_all, memory_order_relaxed);
    atomic_store_explicit(&vftr_proc.fn_all, f, memory_order_release);
}

static VFTR_NI struct vftr_fn *fn_find(uintptr_t addr)
{
    struct vftr_fn *f = vftr_proc.fn_table[hash_addr(addr) & (vftr_proc.fn_cap - 1)];

    while (f && f->addr != addr)
        f = f->hash_next;
    return f;
}

/*
 * The name of a new record.  Symbols are borrowed from the symbol table
 * (which lives as long as the process); an address without a symbol gets
 * its hexadecimal form, allocated together with the record.
 */
static VFTR_NI struct vftr_fn *fn_get(uintptr_t addr, bool *created)
{
    struct vftr_fn *f;
    const char *name = NULL;

    pthread_mutex_lock(&vftr_proc.fn_lock);
    f = fn_find(addr);
    if (f) {
        pthread_mutex_unlock(&vftr_proc.fn_lock);
        return f;
    }
    *created = true;
    if (vftr_proc.set.resolve)
        name = vftr_proc.set.resolve(vftr_proc.set.resolve_arg, addr);
    if (name) {
        f = calloc(1, sizeof *f);
    } else {
        f = calloc(1, sizeof *f + 2 + 16 + 1);
        if (f) {
            char *hex = (char *)(f + 1);

            snprintf(hex, 2 + 16 + 1, "0x%" PRIxPTR, addr);
            name = hex;
        }
    }
    if (f == NULL) {
        pthread_mutex_unlock(&vftr_proc.fn_lock);
        return NULL;
    }
    f->addr = addr;
    f->name = name;
    f->id = atomic_fetch_add(&vftr_proc.next_fn_id, 1);
    if (vftr_proc.set.classify)
        f->flags = vftr_proc.set.classify(vftr_proc.set.classify_arg, name)
                   & (VFTR_FN_EXCLUDED | VFTR_FN_PRECISE);
    if (name == (const char *)(f + 1))
        f->flags |= VFTR_FN_UNRESOLVED;
    fn_insert(f);
    pthread_mutex_unlock(&vftr_proc.fn_lock);
    return f;
}

VFTR_NI void vftr_fn_forget(uintptr_t lo, uintptr_t hi)
{
    /* the skip cache first: code mapped at the place later is another
     * function, which its own filter decision must meet */
    for (size_t i = 0; i < VFTR_SKIP_SLOTS; i++) {
        uintptr_t fn = atomic_load_explicit(&vftr_skip[i].fn, memory_order_relaxed);

        if (fn >= lo && fn < hi)
            atomic_store_explicit(&vftr_skip[i].fn, 0, memory_order_relaxed);
    }
    pthread_mutex_lock(&vftr_proc.fn_lock);
    for (size_t i = 0; vftr_proc.fn_table != NULL && i < vftr_proc.fn_cap; i++) {
        struct vftr_fn **p = &vftr_proc.fn_table[i];

        while (*p != NULL) {
            struct vftr_fn *f = *p;

            if (!(f->flags & VFTR_FN_REGION) && f->addr >= lo && f->addr < hi) {
                *p = f->hash_next;   /* out of the table; fn_all keeps it */
                f->hash_next = NULL;
                vftr_proc.fn_count--;
            } else {
                p = &f->hash_next;
            }
        }
    }
    pthread_mutex_unlock(&vftr_proc.fn_lock);
}

VFTR_NI void vftr_callpath_forget(struct vftr_thread *t, uintptr_t lo, uintptr_t hi)
{
    uint32_t n = atomic_load_explicit(&t->nnodes, memory_order_relaxed);
    struct vftr_node_walk w = vftr_node_walk_first(t, n);

    for (uint32_t i = 0; i < n; i++) {
        struct vftr_node *nd = vftr_node_walk_next(&w);

        if (nd->fn == NULL || (nd->fn->flags & VFTR_FN_REGION) || nd->addr < lo
            || nd->addr >= hi)
            continue;
        /* the slot in the parent's children table stays taken (lookups of
         * other addresses probe past it); the caches compare addresses.
         * An open frame of the unmapped code is one a longjmp skipped (the
         * program cannot return into code that is gone): the next exit of
         * a frame below it closes it, as any skipped frame. */
        nd->addr = (uintptr_t)nd;
    }
}

VFTR_NI struct vftr_fn *vftr_fn_get(uintptr_t addr)
{
    bool created = false;

    return fn_get(addr, &created);
}

/*
 * Regions are keyed by their name: the record holds a copy of the name and
 * its own address serves as the "function address" in the call-path trees,
 * so regions and functions never collide.  Regions are never filtered
 * (the user asked for them explicitly) but may be precise.
 */
VFTR_NI struct vftr_fn *vftr_fn_region(const char *name, uint32_t flags)
{
    struct vftr_fn *f;
    size_t len = strlen(name);

    pthread_mutex_lock(&vftr_proc.fn_lock);
    for (f = atomic_load_explicit(&vftr_proc.fn_all, memory_order_relaxed); f; f = f->all_next)
        if ((f->flags & (VFTR_FN_REGION | VFTR_FN_OMP)) == VFTR_FN_REGION
            && strcmp(f->name, name) == 0)
            break;
    if (f == NULL) {
        f = calloc(1, sizeof *f + len + 1);
        if (f) {
            char *copy = (char *)(f + 1);

            memcpy(copy, name, len + 1);
            f->name = copy;
            f->addr = (uintptr_t)f;
            f->id = atomic_fetch_add(&vftr_proc.next_fn_id, 1);
            f->flags = VFTR_FN_REGION | (flags & VFTR_FN_MPI);
            if (vftr_proc.set.classify)
                f->flags |= vftr_proc.set.classify(vftr_proc.set.classify_arg, name)
                            & VFTR_FN_PRECISE;
            fn_insert(f);
        }
    }
    pthread_mutex_unlock(&vftr_proc.fn_lock);
    return f;
}

/*
 * OpenMP regions are keyed by their name too (ompt.c keeps one record per
 * name), apart from the user regions: a vftr.h region of the same name is
 * another function.  They are never filtered: the trace has every region,
 * and the profile must have what the trace has.
 */
VFTR_NI struct vftr_fn *vftr_fn_omp(const char *name)
{
    size_t len = strlen(name);
    struct vftr_fn *f = calloc(1, sizeof *f + len + 1);
    char *copy;

    if (f == NULL)
        return NULL;
    copy = (char *)(f + 1);
    memcpy(copy, name, len + 1);
    f->name = copy;
    f->addr = (uintptr_t)f;
    f->flags = VFTR_FN_REGION | VFTR_FN_OMP;
    pthread_mutex_lock(&vftr_proc.fn_lock);
    f->id = atomic_fetch_add(&vftr_proc.next_fn_id, 1);
    fn_insert(f);
    pthread_mutex_unlock(&vftr_proc.fn_lock);
    return f;
}

VFTR_NI struct vftr_node *vftr_node_at(const struct vftr_thread *t, uint32_t i)
{
    struct vftr_node_walk w;

    vftr_node_walk_at(&w, t, i);
    return w.b ? (struct vftr_node *)&w.b->nodes[w.j] : NULL;
}

VFTR_NI void vftr_node_walk_at(struct vftr_node_walk *w, const struct vftr_thread *t, uint32_t i)
{
    const struct vftr_node_block *b = t->blocks;

    for (; i >= VFTR_NODE_BLOCK && b; i -= VFTR_NODE_BLOCK)
        b = b->next;
    w->b = b;
    w->j = i;
}

/* A fresh node of t, not yet published. */
static VFTR_NI struct vftr_node *node_alloc(struct vftr_thread *t, uint32_t *idx)
{
    uint32_t n = atomic_load_explicit(&t->nnodes, memory_order_relaxed);

    if (n % VFTR_NODE_BLOCK == 0 && (t->last_block == NULL || n > 0)) {
        struct vftr_node_block *b = calloc(1, sizeof *b);

        if (b == NULL)
            return NULL;
        if (t->last_block)
            t->last_block->next = b;
        else
            t->blocks = b;
        t->last_block = b;
    }
    *idx = n;
    return &t->last_block->nodes[n % VFTR_NODE_BLOCK];
}

/* Looks addr up in the children table of cur. */
static VFTR_NI struct vftr_node *kid_find(const struct vftr_node *cur, uintptr_t addr)
{
    size_t i, mask;

    if (cur->kid_cap == 0)
        return NULL;
    mask = cur->kid_cap - 1;
    for (i = hash_addr(addr) & mask;; i = (i + 1) & mask) {
        struct vftr_node *k = cur->kids[i];

        if (k == NULL || k->addr == addr)
            return k;
    }
}

/* Adds n to cur's children table (grown at 3/4 load).  -ENOMEM. */
static VFTR_NI int kid_add(struct vftr_node *cur, struct vftr_node *n)
{
    size_t i, mask;

    if ((cur->nkids + 1) * 4 > cur->kid_cap * 3) {
        uint32_t ncap = cur->kid_cap ? cur->kid_cap * 2 : 4;
        struct vftr_node **nk = calloc(ncap, sizeof *nk);

        if (nk == NULL)
            return -ENOMEM;
        for (i = 0; i < cur->kid_cap; i++) {
            struct vftr_node *k = cur->kids[i];
            size_t j;

            if (k == NULL)
                continue;
            for (j = hash_addr(k->addr) & (ncap - 1); nk[j]; j = (j + 1) & (ncap - 1))
                ;
            nk[j] = k;
        }
        free(cur->kids);
        cur->kids = nk;
        cur->kid_cap = ncap;
    }
    mask = cur->kid_cap - 1;
    for (i = hash_addr(n->addr) & mask; cur->kids[i]; i = (i + 1) & mask)
        ;
    cur->kids[i] = n;
    cur->nkids++;
    return 0;
}

static VFTR_NI bool is_main(const char *name)
{
    /* the Fortran main program goes by its PROGRAM name (names.h) */
    return strcmp(name, "main") == 0 || strcmp(name, "MAIN__") == 0 || vftr_names_is_main(name);
}

/* The region capture's own setup work is booked under (vftr_fn_region:
 * made once, then looked up from here without the lock). */
static struct vftr_fn *_Atomic setup_fn;

/*
 * A new function record costs a symbol lookup and the filters; the first
 * one also reads the symbol tables of every loaded object (milliseconds),
 * and so does the first function of a library loaded later.  That time,
 * from *now until this call, is capture's, not the program's: it is booked
 * as a call of the region "vftr:setup" under the current call path, in the
 * profile and in the trace alike (an ENTER and an EXIT of it), so that the
 * function that happened to be running is not charged with it in either,
 * and the log and every tool that reads the trace give the same figures.
 * *now moves to the end of it, where the new function's call begins.  A
 * paused thread books nothing (its frames are not counting).
 */
static VFTR_NI void book_setup(struct vftr_thread *t, struct vftr_node *cur, uint64_t *now)
{
    uint64_t start = *now, end = vftr_clock_now(), ignored = end;
    struct vftr_fn *f = atomic_load_explicit(&setup_fn, memory_order_acquire);
    struct vftr_node *n;

    if (end <= start)
        return;
    *now = end;
    if (t->paused)
        return;
    if (f == NULL) {
        f = vftr_fn_region(VFTR_SETUP_REGION, 0);
        if (f == NULL)
            return;
        atomic_store_explicit(&setup_fn, f, memory_order_release);
    }
    n = vftr_node_child(t, cur, f->addr, f, &ignored);
    if (n == NULL)
        return;
    n->calls++;
    n->time_incl += end - start;
    vftr_record(t, n, start, VFTR_VFD_ENTER);
    vftr_record(t, n, end, VFTR_VFD_EXIT);
}

/* capture.h: the look-up's empty cache (its own successor, so that
 * following succ from it stays on it) */
struct vftr_node vftr_node_none = { .addr = VFTR_NODE_NONE_ADDR, .last_child = &vftr_node_none,
                                    .succ = &vftr_node_none };

/* capture.h: the skip cache */
struct vftr_skip_slot vftr_skip[VFTR_SKIP_SLOTS] __attribute__((aligned(64)));

/*
 * A function the filters exclude goes into the skip cache, where the hooks
 * look first: from then on its enter and exit cost a probe (hooks.c).  A
 * slot taken by another excluded function is overwritten; that one then
 * finds its marker node again (below) and takes the slot back.  Only for
 * the calling thread's own calls (a borrowed thread's are replayed by
 * someone else, where nothing is to be saved).
 */
static VFTR_NI void skip_remember(struct vftr_thread *t, const struct vftr_fn *f)
{
    if (t == vftr_tls && f != NULL && (f->flags & VFTR_FN_EXCLUDED) && !(f->flags & VFTR_FN_REGION)) {
        struct vftr_skip_slot *s = vftr_skip_slot(f->addr);
        uint32_t tries = atomic_load_explicit(&vftr_patch_tries_init, memory_order_relaxed);

        /* the tries first: a hook that sees the new fn with the old tries
         * only tries once more or once less (patch.c) */
        atomic_store_explicit(&s->tries[0], tries, memory_order_relaxed);
        atomic_store_explicit(&s->tries[1], tries, memory_order_relaxed);
        atomic_store_explicit(&s->fn, f->addr, memory_order_relaxed);
    }
}

/*
 * Excluded functions get a marker node in their caller's table (flags
 * EXCLUDED, id 0) so that the next call is rejected without the function
 * table, and their address goes into the thread's skip cache (above); the
 * hot path never caches a marker in last_child.
 */
VFTR_NI struct vftr_node *vftr_node_child(struct vftr_thread *t, struct vftr_node *cur,
                                          uintptr_t addr, struct vftr_fn *known, uint64_t *now)
{
    struct vftr_node *n = kid_find(cur, addr);
    struct vftr_fn *f = known;
    bool created = false;
    uint32_t idx;

    if (n) {
        if (n->flags & VFTR_FN_EXCLUDED) {
            skip_remember(t, n->fn);
            return NULL;
        }
        if (cur->last_child != &vftr_node_none)   /* the sequence of calls, for next time */
            cur->last_child->succ = n;
        cur->last_child = n;
        return n;
    }
    if (f == NULL)
        f = fn_get(addr, &created);
    if (f == NULL)
        return NULL;
    if (!vftr_proc.set.prelude && !(f->flags & (VFTR_FN_REGION | VFTR_FN_SAMPLED))
        && !atomic_load_explicit(&vftr_proc.main_seen, memory_order_relaxed)) {
        /* Calls before main (C++ static initializers) are left out unless
         * include_cxx_prelude is set; main itself ends the prelude.  A
         * function without a symbol (a stripped program, where main could
         * never be recognized) ends it too, so that such a program is
         * recorded rather than silently left out.  The rule is about
         * compiler hooks: user regions and MPI calls are asked for by
         * name and recorded whenever they come, also in a program whose
         * main has no hook (an MPI program built without
         * -finstrument-functions would otherwise record no call). */
        if (!is_main(f->name) && !(f->flags & VFTR_FN_UNRESOLVED))
            return NULL;
        atomic_store_explicit(&vftr_proc.main_seen, true, memory_order_relaxed);
    }
    if (created)
        book_setup(t, cur, now);
    n = node_alloc(t, &idx);
    if (n == NULL)
        return NULL;
    n->addr = addr;
    n->last_child = n->succ = &vftr_node_none;
    n->parent = cur;
    n->fn = f;
    n->flags = f->flags & (VFTR_FN_EXCLUDED | VFTR_FN_PRECISE | VFTR_FN_OMP);
    n->depth = cur->depth + 1;
    n->idx = idx;
    /* OpenMP nodes are numbered with the call paths (the profile's rows
     * name their parents by id) but are none in the trace: no ENTER tag */
    n->id = (n->flags & VFTR_FN_EXCLUDED) ? 0 : atomic_fetch_add(&vftr_proc.next_node_id, 1);
    n->enc = (n->flags & VFTR_FN_OMP) ? 0 : vftr_node_enc(n->id);
    if (kid_add(cur, n) != 0)
        return NULL;   /* the slot is reused by the next allocation */
    atomic_store_explicit(&t->nnodes, idx + 1, memory_order_release);
    if (n->flags & VFTR_FN_EXCLUDED) {
        skip_remember(t, f);
        return NULL;
    }
    cur->last_child = n;
    return n;
}

/*
 * An exit that does not match the current node:
 *   - an excluded function (its marker is a child of the current node):
 *     nothing to do;
 *   - frames skipped by longjmp, or by C++ unwinding through functions
 *     compiled without instrumentation: the function left is further up the
 *     stack, so every frame up to it is closed now (and traced as exits),
 *     which keeps the profile and the trace balanced; a paused thread only
 *     pops them (their time stopped at the pause);
 *   - OpenMP regions still open above the function's frame (a lock taken
 *     in it and released by its caller): they end with it, in the profile
 *     only, since the readers of the trace close a region frame above the
 *     frame an EXIT names (its OMP_END, when it comes, then finds none);
 *   - a function entered before capture started or in the prelude: not on
 *     the stack at all, ignored.  (Calls made during a pause are on the
 *     stack: the hooks keep it in every phase.)
 */
VFTR_NI void vftr_exit_mismatch(struct vftr_thread *t, uintptr_t addr, uint64_t now)
{
    struct vftr_node *n = kid_find(t->cur, addr), *stop;

    if (n && (n->flags & VFTR_FN_EXCLUDED))
        return;
    for (stop = t->cur; stop && stop->parent && stop->addr != addr; stop = stop->parent)
        ;
    if (stop == NULL || stop->parent == NULL)
        return;
    for (n = t->cur; !t->paused; n = n->parent) {
        n->time_incl += now - n->t_enter;
        if (!(n->flags & VFTR_FN_OMP))
            vftr_record(t, n, now, VFTR_VFD_EXIT);
        if (n == stop)
            break;
    }
    t->cur = stop->parent;
}

VFTR_NI struct vftr_node *vftr_omp_enter(struct vftr_thread *t, struct vftr_fn *f,
                                         uint32_t region, uint64_t now)
{
    struct vftr_node *cur = t->cur, *n = cur->last_child;

    /* the hooks' lookup: the cached child, its successor, the table */
    if (n->addr != f->addr) {
        struct vftr_node *s = n->succ;
        uint64_t ignored = now;   /* a known record: no setup to book */

        if (s->addr == f->addr) {
            cur->last_child = s;
            n = s;
        } else if ((n = vftr_node_child(t, cur, f->addr, f, &ignored)) == NULL) {
            return NULL;
        }
    }
    n->region = region;
    if (!t->paused) {
        n->calls++;
        n->t_enter = now;
    }
    t->cur = n;
    return n;
}

VFTR_NI void vftr_omp_leave(struct vftr_thread *t, uint32_t region, uint64_t now)
{
    struct vftr_node *stop, *n;

    for (stop = t->cur; stop->parent; stop = stop->parent)
        if ((stop->flags & VFTR_FN_OMP) && stop->region == region)
            break;
    if (stop->parent == NULL)
        return;
    for (n = t->cur; !t->paused; n = n->parent) {
        n->time_incl += now - n->t_enter;
        if (n == stop)
            break;
    }
    t->cur = stop->parent;
}

/*
 * The shadow stack of a paused thread: the child of t->cur for addr, found
 * as the hooks find it or made (vftr_node_child), becomes current; nothing
 * is counted, no event written.  A node made now has 0 calls until the
 * thread enters it while counting (or a resume finds it open).
 */
VFTR_NI void vftr_enter_quiet(struct vftr_thread *t, uintptr_t addr, struct vftr_fn *known)
{
    struct vftr_node *cur = t->cur, *n = cur->last_child;

    if (n->addr != addr) {
        struct vftr_node *s = n->succ;
        uint64_t now = vftr_clock_now();   /* vftr_node_child's discount: no use here */

        if (s->addr == addr) {
            cur->last_child = s;
            n = s;
        } else if ((n = vftr_node_child(t, cur, addr, known, &now)) == NULL) {
            return;
        }
    }
    t->cur = n;
}

VFTR_NI void vftr_trace_close_frames(struct vftr_thread *t, uint64_t now)
{
    struct vftr_node *n;

    /* a paused thread's frames ended at the pause, in the profile and the
     * trace; a stopped trace had them end at the stop */
    for (n = t->cur; n && n->parent; n = n->parent) {
        if (!t->paused && now > n->t_enter)
            n->time_incl += now - n->t_enter;
        if (!t->trace)
            continue;
        /* every open frame is closed in the trace, sampled or not; an
         * OpenMP region with its OMP_END, in its place on the stack */
        if (n->flags & VFTR_FN_OMP)
            vftr_ompt_trace_node(t, n, false, now);
        else if (!(n->flags & VFTR_FN_THROTTLED))   /* its ENTER is not in the trace */
            vftr_trace_put(t, now, VFTR_VFD_EXIT, n->id);
    }
    t->cur = &t->root;
}

/* ------------------------------------------------------------ profile */

VFTR_NI void vftr_callpath_exclusive(const struct vftr_thread *t, uint32_t n,
                                     const uint64_t *incl, int64_t *excl)
{
    struct vftr_node_walk w = vftr_node_walk_first(t, n);

    for (uint32_t i = 0; i < n; i++)
        excl[i] = (int64_t)incl[i];
    for (uint32_t i = 0; i < n; i++) {
        const struct vftr_node *nd = vftr_node_walk_next(&w);

        if (nd->parent->parent && !(nd->flags & VFTR_FN_EXCLUDED))
            excl[nd->parent->idx] -= (int64_t)incl[i];
    }
}

VFTR_NI int vftr_callpath_profile(struct vftr_profile *p, double tps, double hook_cost)
{
    return vftr_callpath_profile_at(p, tps, hook_cost, 0);
}

VFTR_NI int vftr_callpath_space_reserve(struct vftr_profile_space *sp, uint32_t slack)
{
    size_t total = 0, most = 0;

    memset(sp, 0, sizeof *sp);
    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next) {
        size_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire) + (size_t)slack;

        total += n;
        most = n > most ? n : most;
    }
    sp->nrows = total;
    sp->most = most;
    sp->rows = calloc(total ? total : 1, sizeof *sp->rows);
    sp->excl = malloc((most ? most : 1) * sizeof *sp->excl);
    sp->incl = malloc((most ? most : 1) * sizeof *sp->incl);
    sp->calls = malloc((most ? most : 1) * sizeof *sp->calls);
    if (sp->rows == NULL || sp->excl == NULL || sp->incl == NULL || sp->calls == NULL) {
        vftr_callpath_space_release(sp);
        return -ENOMEM;
    }
    return 0;
}

VFTR_NI void vftr_callpath_space_release(struct vftr_profile_space *sp)
{
    free(sp->rows);
    free(sp->excl);
    free(sp->incl);
    free(sp->calls);
    memset(sp, 0, sizeof *sp);
}

VFTR_NI int vftr_callpath_profile_at(struct vftr_profile *p, double tps, double hook_cost,
                                     uint64_t now)
{
    struct vftr_profile_space sp;
    int rc;

    /* the nodes may grow between the reservation and the snapshot only
     * where the caller lets threads run: a few tries */
    for (int tries = 0; tries < 8; tries++) {
        if ((rc = vftr_callpath_space_reserve(&sp, tries ? 256u << tries : 0)) < 0)
            return rc;
        rc = vftr_callpath_profile_in(p, &sp, tps, hook_cost, now);
        vftr_callpath_space_release(&sp);
        if (rc != -ENOSPC)
            return rc;
    }
    return -ENOMEM;
}

VFTR_NI int vftr_callpath_profile_in(struct vftr_profile *p, struct vftr_profile_space *sp,
                                     double tps, double hook_cost, uint64_t now)
{
    struct vftr_thread *t;
    size_t total = 0, k = 0;
    uint64_t *incl = sp->incl, *calls = sp->calls;
    int64_t *excl = sp->excl;

    memset(p, 0, sizeof *p);
    vftr_sled_fold();   /* calls counted by the sleds' stubs (sled.c) join their call paths */
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        size_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire);

        if (n > sp->most)
            return -ENOSPC;
        total += n;
        p->nthreads++;
    }
    if (total > sp->nrows)
        return -ENOSPC;
    p->rows = sp->rows;
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        uint32_t i, n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        struct vftr_node_walk w;

        /* a thread that made nodes since the count above (only where the
         * caller lets threads run) is taken as it was */
        if (n > sp->most)
            n = (uint32_t)sp->most;
        w = vftr_node_walk_first(t, n);

        /* incl[idx]: the node's inclusive time, with `now` the activations
         * still open on the thread's stack up to now (the time they
         * counted: vftr_phase_open_time); excl[idx] starts as that and each
         * child takes its own inclusive time off its parent's (exact, in
         * ticks).  calls[idx]: the calls, with the entries again that the
         * thread's pending resumes will count. */
        for (i = 0; i < n; i++) {
            const struct vftr_node *nd = vftr_node_walk_next(&w);

            incl[i] = nd->time_incl;
            calls[i] = nd->calls;
        }
        if (now != 0) {
            const struct vftr_node *o;

            vftr_phase_lock();
            for (o = t->cur; o != NULL && o->parent != NULL; o = o->parent) {
                uint32_t back = 0;

                if (o->idx >= n)
                    continue;
                incl[o->idx] += vftr_phase_open_time(t, o->t_enter, now, &back);
                calls[o->idx] += back;
            }
            vftr_phase_unlock();
        }
        vftr_callpath_exclusive(t, n, incl, excl);
        w = vftr_node_walk_first(t, n);
        for (i = 0; i < n; i++) {
            struct vftr_node *nd = vftr_node_walk_next(&w);
            struct vftr_profile_row *r;

            if (nd->flags & VFTR_FN_EXCLUDED)
                continue;   /* markers of excluded functions */
            if (calls[i] == 0)
                continue;   /* made and left during a pause: never counted */
            if (k == sp->nrows)
                break;
            r = &p->rows[k++];
            r->callpath_id = nd->id;
            r->parent_id = nd->parent->id;
            r->thread = t->index;
            r->function = nd->fn->name;
            r->caller = nd->parent->fn ? nd->parent->fn->name : NULL;
            r->calls = calls[i];
            r->time_incl = (double)incl[i] / tps;
            r->time_excl = (double)excl[i] / tps;
            r->overhead = (double)calls[i] * hook_cost / tps;
        }
    }
    sp->rows = NULL;   /* p has them now */
    p->n = k;
    return 0;
}

VFTR_NI void vftr_callpath_profile_release(struct vftr_profile *p)
{
    free(p->rows);
    p->rows = NULL;
    p->n = 0;
}
