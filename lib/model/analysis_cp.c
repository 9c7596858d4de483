/*
 * analysis_cp.c — the critical path, followed forward (analysis.h).
 *
 * Every process holds the chain of nodes that leads to its present: the
 * path through the run, backwards, that ends where it is now.  Its own
 * time goes into its present node.  Where it can be waited for (a send, a
 * collective or a barrier entered, a lock released, a parallel region
 * forked) its present node is frozen — the record keeps a reference — and
 * a new present continues it.  Where its wait ends because another arrived,
 * its chain is dropped and continues the other's frozen node from the
 * moment of arrival: backwards from here, the path runs on the other one.
 * This is Scalasca's backward walk (from the end, over every wait to the
 * one waited for) done as the trace goes forward, for every process at
 * once, so that the path of the process that ends last is known at the end.
 *
 * Memory: a node is freed when nothing needs it, and a node that only its
 * one child needs is folded into the child (cp_compact), so the nodes alive
 * are about the processes and the records in flight, and a node holds
 * at most a (process, call path) entry each.
 */
#include "analysis_impl.h"

#include <errno.h>
#include <stdlib.h>

struct cpnode *cp_ref(struct cpnode *n)
{
    if (n)
        n->refs++;
    return n;
}

static void unlink_node(struct vftr_analysis *a, struct cpnode *n)
{
    if (n->lprev)
        n->lprev->lnext = n->lnext;
    else
        a->live = n->lnext;
    if (n->lnext)
        n->lnext->lprev = n->lprev;
    a->nlive--;
}

/* A node let go goes to the analysis's free list (linked through parent),
 * with its map unless that grew large: nodes come and go a few per record.
 * (The order a node's map iterates in matters nowhere: its sums are
 * integers, and cp_finish sorts the rows.) */
static void free_node(struct vftr_analysis *a, struct cpnode *n)
{
    struct cppiece *p = n->first;

    while (p) {
        struct cppiece *next = p->next;

        free(p);
        p = next;
    }
    if (n->own.cap <= 64)
        vftr_tally_clear(&n->own);
    else
        vftr_tally_release(&n->own);
    unlink_node(a, n);
    n->parent = a->cpfree;
    a->cpfree = n;
}

void cp_unref(struct vftr_analysis *a, struct cpnode *n)
{
    while (n && --n->refs == 0) {
        struct cpnode *parent = n->parent;

        free_node(a, n);
        n = parent;
    }
}

/*
 * Folds every node that only its child needs into the child: the child
 * takes its time, its pieces (before its own) and its parent.  The sums
 * per key do not depend on the folding.
 */
static void cp_compact(struct vftr_analysis *a)
{
    for (struct cpnode *n = a->live; n; n = n->lnext) {
        while (n->parent && n->parent->refs == 1) {
            struct cpnode *x = n->parent;

            if (vftr_tally_absorb_i(&n->own, &x->own) < 0)
                return;             /* out of memory: nothing lost, just not folded */
            if (x->first) {
                x->last->next = n->first;
                if (!n->last)
                    n->last = x->last;
                n->first = x->first;
                x->first = x->last = NULL;
            }
            n->parent = x->parent;
            x->parent = NULL;
            x->refs = 0;
            free_node(a, x);
        }
    }
}

/* A new node after parent (a reference taken on it), referenced once for
 * the caller. */
static struct cpnode *node_new(struct vftr_analysis *a, struct cpnode *parent, uint32_t process,
                               uint64_t start)
{
    struct cpnode *n;

    if (a->nlive > 2 * a->live_after + 4096) {
        cp_compact(a);
        a->live_after = a->nlive;
    }
    if ((n = a->cpfree)) {
        struct vftr_tally own = n->own;

        a->cpfree = n->parent;
        *n = (struct cpnode){ .own = own };
    } else if (!(n = calloc(1, sizeof *n))) {
        return NULL;
    } else {
        n->own = (struct vftr_tally)VFTR_TALLY_INIT;
    }
    n->parent = cp_ref(parent);
    n->refs = 1;
    n->process = process;
    n->start = start;
    n->lnext = a->live;
    if (a->live)
        a->live->lprev = n;
    a->live = n;
    a->nlive++;
    return n;
}

/* n's own piece ends at `end` (kept with VFTR_ANALYSIS_SEGMENTS, the part
 * inside the window). */
static int piece_end(struct vftr_analysis *a, struct cpnode *n, uint64_t end)
{
    uint64_t s = n->start > a->o.a ? n->start : a->o.a, e = end < a->o.b ? end : a->o.b;
    struct cppiece *p;

    if (!(a->o.what & VFTR_ANALYSIS_SEGMENTS) || e <= s)
        return 0;
    if (n->last && n->last->process == n->process && n->last->end == s) {
        n->last->end = e;           /* continues the piece before */
        return 0;
    }
    if (!(p = malloc(sizeof *p)))
        return -ENOMEM;
    *p = (struct cppiece){ NULL, n->process, s, e };
    if (n->last)
        n->last->next = p;
    else
        n->first = p;
    n->last = p;
    return 0;
}

int cp_begin(struct vftr_analysis *a, struct aproc *p, uint64_t t)
{
    p->cur = node_new(a, NULL, p->token, t);
    return p->cur ? 0 : -ENOMEM;
}

int cp_add(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncseg *seg, uint32_t n,
           const uint32_t *gpath)
{
    (void)a;
    if (!p->cur)
        return 0;
    for (uint32_t k = 0; k < n; k++) {
        int rc = vftr_tally_add_i(&p->cur->own, key2(p->token, gpath[k]), (int64_t)seg[k].ticks);

        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The ticks of [from, to) inside the window. */
static uint64_t inside(const struct vftr_analysis *a, uint64_t from, uint64_t to)
{
    uint64_t s = from > a->o.a ? from : a->o.a, e = to < a->o.b ? to : a->o.b;

    return e > s ? e - s : 0;
}

struct cpnode *cp_freeze(struct vftr_analysis *a, struct aproc *p, uint64_t at, uint64_t now,
                         uint32_t path)
{
    struct cpnode *frozen = p->cur, *next;
    uint64_t moved = 0;

    if (!frozen)
        return NULL;
    if (at > now)
        at = now;
    if (path && now > at) {
        struct vftr_tally_slot *s = vftr_tally_find(&frozen->own, key2(p->token, path));
        uint64_t since = inside(a, at, now);

        if (s && s->v.i > 0) {
            moved = since < (uint64_t)s->v.i ? since : (uint64_t)s->v.i;
            s->v.i -= (int64_t)moved;
        }
    }
    if (piece_end(a, frozen, at) < 0 || !(next = node_new(a, frozen, p->token, at)))
        return NULL;
    if (moved && vftr_tally_add_i(&next->own, key2(p->token, path), (int64_t)moved) < 0) {
        cp_unref(a, next);
        return NULL;
    }
    /* the process's reference moves to its new present; the caller gets one
     * on the frozen node */
    p->cur = next;
    return frozen;
}

int cp_jump(struct vftr_analysis *a, struct aproc *p, struct cpnode *cause, uint64_t at,
            uint64_t now, uint32_t path)
{
    struct cpnode *old = p->cur, *next;
    uint64_t own;

    if (!cause || !old)
        return 0;
    if (at > now)
        at = now;
    if (!(next = node_new(a, cause, p->token, at)))
        return -ENOMEM;
    own = inside(a, at, now);
    if (own && vftr_tally_add_i(&next->own, key2(p->token, path), (int64_t)own) < 0) {
        cp_unref(a, next);
        return -ENOMEM;
    }
    p->cur = next;
    cp_unref(a, old);
    return 0;
}

static int cmp_rows(const void *x, const void *y)
{
    const struct vftr_cp_row *a = x, *b = y;

    if (a->process != b->process)
        return a->process < b->process ? -1 : 1;
    return a->path < b->path ? -1 : a->path > b->path;
}

/*
 * The path of the process that ended last (the lowest token of those that
 * ended together): its chain's time per (process, call path), and, with
 * VFTR_ANALYSIS_SEGMENTS, its pieces in time order.  A worker thread of a
 * rank whose own process is in the trace does not count: it lives inside
 * its master's regions, and what it records after the last join (its end
 * comes when the runtime shuts down) is idle time that nobody waits for.
 */
int cp_finish(struct vftr_analysis *a)
{
    struct aproc *end = NULL;
    struct vftr_tally sum = VFTR_TALLY_INIT;
    struct cpnode **chain = NULL;
    size_t n = 0, cap = 0, pos = 0;
    const struct vftr_tally_slot *s;
    int rc = 0;

    for (size_t i = 0; i < a->nprocs; i++) {
        struct aproc *p = &a->procs[i];

        if (p->master != i && a->procs[p->master].begun)
            continue;
        if (p->cur && p->begun &&
            (!end || p->end > end->end || (p->end == end->end && p->token < end->token)))
            end = p;
    }
    if (!end)
        return 0;
    a->sum.cp_end = end->end;
    a->sum.cp_end_process = end->token;
    if ((rc = piece_end(a, end->cur, end->end)) < 0)
        return rc;
    for (struct cpnode *c = end->cur; c; c = c->parent) {
        if (n == cap) {
            size_t m = cap ? 2 * cap : 64;
            struct cpnode **v = realloc(chain, m * sizeof *v);

            if (!v) {
                rc = -ENOMEM;
                goto out;
            }
            chain = v;
            cap = m;
        }
        chain[n++] = c;
        if ((rc = vftr_tally_merge_i(&sum, &c->own)) < 0)
            goto out;
    }
    a->sum.cp_start = n ? chain[n - 1]->start : end->end;
    a->cprows = malloc((sum.used ? sum.used : 1) * sizeof *a->cprows);
    if (!a->cprows) {
        rc = -ENOMEM;
        goto out;
    }
    while ((s = vftr_tally_next(&sum, &pos)))
        if (s->v.i > 0) {
            a->cprows[a->ncprows++] = (struct vftr_cp_row){
                (uint32_t)(s->key >> 32), (uint32_t)s->key, (uint64_t)s->v.i };
            a->sum.cp_length += (uint64_t)s->v.i;
        }
    qsort(a->cprows, a->ncprows, sizeof *a->cprows, cmp_rows);
    if (a->o.what & VFTR_ANALYSIS_SEGMENTS) {
        size_t ns = 0;

        for (size_t i = 0; i < n; i++)
            for (struct cppiece *p = chain[i]->first; p; p = p->next)
                ns++;
        a->segs = malloc((ns ? ns : 1) * sizeof *a->segs);
        if (!a->segs) {
            rc = -ENOMEM;
            goto out;
        }
        for (size_t i = n; i-- > 0;)
            for (struct cppiece *p = chain[i]->first; p; p = p->next)
                a->segs[a->nsegs++] = (struct vftr_cp_segment){ p->process, p->start, p->end };
    }
out:
    free(chain);
    vftr_tally_release(&sum);
    return rc;
}

void cp_release(struct vftr_analysis *a)
{
    while (a->live) {
        struct cpnode *n = a->live;

        n->parent = NULL;
        free_node(a, n);
    }
    while (a->cpfree) {
        struct cpnode *n = a->cpfree;

        a->cpfree = n->parent;
        vftr_tally_release(&n->own);
        free(n);
    }
}
