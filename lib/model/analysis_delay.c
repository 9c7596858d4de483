/*
 * analysis_delay.c — the delays behind the waits and what they cost
 * (analysis.h; Böhme, Geimer, Wolf et al., "Identifying the root causes of
 * wait states", and Scalasca's Delay patterns).
 *
 * For a wait of omega ticks of process W for process D, the
 * synchronisation interval runs from the last point the two synchronised to
 * the wait (on D: to its late arrival; on W: to the start of its wait).  In
 * it, D's excess time on call path c over W's on the same path,
 * d(c) = max(0, T_D(c) - T_W(c)), is the delay; D's own waits in it (w_D)
 * made it late too.  With S = sum d(c) + w_D and scale = min(omega / S, 1):
 *   short-term cost of (D, c)  += scale * d(c)
 *   the rest, scale * w_D, flows to D's waits in the interval, and through
 *   them to their causes: long-term costs.
 * Scalasca passes the flowing costs backwards in a second replay.  Here the
 * trace is read once, forwards: each wait y carries F_y, the distribution
 * over (process, call path) of where one tick of cost arriving at y ends up
 *   F_y = (sum_c d(c) e_(D,c) + G) / S,    G = sum over D's waits x in the
 *                                              interval of omega_x F_x,
 * and the long-term cost of wait y is scale * G, booked at once.  Every
 * cost is booked under the kind of the wait that is being paid for.
 *
 * The intervals come from blocks (analysis_impl.h): a process's time is
 * cut at every point a later interval may start at; a block holds the
 * time per call path spent not waiting, the ticks waited and G of its
 * waits; blocks that no one needs any more merge into the one before.
 */
#include "analysis_impl.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct dblock *d_ref(struct dblock *b)
{
    if (b)
        b->refs++;
    return b;
}

/* Blocks are made and merged away all the time (a few per message):
 * each process keeps the ones it let go, with their small maps, for its
 * next ones (linked through next). */
static struct dblock *block_new(struct aproc *p, uint64_t start)
{
    struct dblock *b = p->dfree;

    if (b) {
        p->dfree = b->next;
        b->prev = b->next = NULL;
        b->refs = 0;
        b->w = 0;
    } else if ((b = calloc(1, sizeof *b))) {
        b->t = (struct vftr_tally)VFTR_TALLY_INIT;
        b->g = (struct vftr_tally)VFTR_TALLY_INIT;
    }
    if (b)
        b->start = start;
    return b;
}

static void block_free(struct aproc *p, struct dblock *b)
{
    vftr_tally_reset(&b->t);
    vftr_tally_reset(&b->g);
    b->next = p->dfree;
    p->dfree = b;
}

static void block_destroy(struct dblock *b)
{
    vftr_tally_release(&b->t);
    vftr_tally_release(&b->g);
    free(b);
}

int d_begin(struct vftr_analysis *a, struct aproc *p, uint64_t t)
{
    (void)a;
    /* the first block is held by the process itself: an interval with a
     * partner it never synchronised with starts there */
    if (!(p->head = p->tail = block_new(p, t)))
        return -ENOMEM;
    p->head->refs = 1;
    return 0;
}

int d_add(struct aproc *p, const struct vftr_syncseg *seg, uint32_t n, const uint32_t *gpath)
{
    if (!p->tail)
        return 0;
    for (uint32_t k = 0; k < n; k++) {
        int rc = vftr_tally_add_i(&p->tail->t, gpath[k], (int64_t)seg[k].ticks);

        if (rc < 0)
            return rc;
    }
    return 0;
}

void d_unref(struct aproc *p, struct dblock *b)
{
    struct dblock *prev;

    if (!b || --b->refs > 0 || !b->prev)
        return;
    /* nobody starts an interval here any more: one block with the one before */
    prev = b->prev;
    if ((b->t.used && vftr_tally_absorb_i(&prev->t, &b->t) < 0) ||
        (b->g.used && vftr_tally_absorb_d(&prev->g, &b->g) < 0))
        return;                         /* out of memory: kept apart, still correct */
    prev->w += b->w;
    prev->next = b->next;
    if (b->next)
        b->next->prev = prev;
    else
        p->tail = prev;
    block_free(p, b);
}

struct dblock *d_cut(struct aproc *p, uint64_t at, uint64_t now, uint32_t path)
{
    struct dblock *b, *t = p->tail;
    uint64_t moved = 0;

    if (!t)
        return NULL;
    if (at < t->start)
        at = t->start;
    if (at > now)
        at = now;
    if (!(b = block_new(p, at)))
        return NULL;
    if (path && now > at) {
        struct vftr_tally_slot *s = vftr_tally_find(&t->t, path);

        if (s && s->v.i > 0) {
            moved = now - at < (uint64_t)s->v.i ? now - at : (uint64_t)s->v.i;
            s->v.i -= (int64_t)moved;
            if (vftr_tally_add_i(&b->t, path, (int64_t)moved) < 0) {
                s->v.i += (int64_t)moved;
                block_free(p, b);
                return NULL;
            }
        }
    }
    b->refs = 1;
    b->prev = t;
    t->next = b;
    p->tail = b;
    return b;
}

static struct dblock *bound_of(const struct vftr_tally *t, uint32_t key)
{
    const struct vftr_tally_slot *s = vftr_tally_find(t, key);

    return s ? (struct dblock *)(intptr_t)s->v.i : NULL;
}

/* Replaces the block under key (takes b's reference; releases the old). */
static void set_bound(struct aproc *p, struct vftr_tally *t, uint32_t key, struct dblock *b)
{
    struct vftr_tally_slot *s = vftr_tally_find(t, key);

    if (s) {                            /* the common case: one look-up */
        struct dblock *old = (struct dblock *)(intptr_t)s->v.i;

        s->v.i = (int64_t)(intptr_t)b;
        d_unref(p, old);
    } else if (vftr_tally_set_i(t, key, (int64_t)(intptr_t)b) < 0) {
        d_unref(p, b);                  /* out of memory: no bound, the head stands in */
    }
}

struct dblock *d_since(struct vftr_analysis *a, struct aproc *p, const struct aproc *q)
{
    struct dblock *best = bound_of(&p->p2p_bound, q->token);
    size_t pos = 0;
    const struct vftr_tally_slot *s;

    while ((s = vftr_tally_next(&p->coll_bound, &pos))) {
        struct dblock *b = (struct dblock *)(intptr_t)s->v.i;
        uint32_t comm = (uint32_t)s->key;

        if (b && (!best || b->start > best->start) &&
            (comm == ALL_COMM || an_comm_has(a, comm, q->rankproc)))
            best = b;
    }
    if (q->master == p->master && p->omp_bound && (!best || p->omp_bound->start > best->start))
        best = p->omp_bound;
    return d_ref(best ? best : p->head);
}

void d_set_p2p(struct aproc *p, uint32_t q, struct dblock *b)
{
    set_bound(p, &p->p2p_bound, q, b);
}

struct dblock *d_since_coll(struct aproc *p, uint32_t comm)
{
    struct dblock *b = bound_of(&p->coll_bound, comm);

    return d_ref(b ? b : p->head);
}

void d_set_coll(struct aproc *p, uint32_t comm, struct dblock *b)
{
    set_bound(p, &p->coll_bound, comm, b);
}

/* Sums the blocks [from, to) (to NULL: to the end) of one process into t
 * (integer), *w and g (doubles; g may be NULL).  A `from` after `to` is an
 * empty interval. */
static int sum_blocks(struct dblock *from, struct dblock *to, struct vftr_tally *t, uint64_t *w,
                      struct vftr_tally *g)
{
    if (!from || (to && from->start > to->start))
        return 0;
    for (struct dblock *b = from; b && b != to; b = b->next) {
        int rc = vftr_tally_merge_i(t, &b->t);

        if (rc == 0 && g)
            rc = vftr_tally_merge_d(g, &b->g, 1.0);
        if (rc < 0)
            return rc;
        *w += b->w;
    }
    return 0;
}

/* Puts a wait of omega on wpath into w's present block (with its cost
 * distribution f, may be NULL). */
static int into_block(struct aproc *w, uint32_t wpath, uint64_t omega,
                      const struct vftr_tally *f)
{
    struct dblock *b = w->tail;
    struct vftr_tally_slot *s;

    if (!b || !omega)
        return 0;
    s = vftr_tally_find(&b->t, wpath);
    if (s && s->v.i > 0)
        s->v.i -= (int64_t)omega < s->v.i ? (int64_t)omega : s->v.i;
    b->w += omega;
    return f ? vftr_tally_merge_d(&b->g, f, (double)omega) : 0;
}

int d_plain_wait(struct aproc *w, uint32_t wpath, uint64_t omega)
{
    return into_block(w, wpath, omega, NULL);
}

int d_wait(struct vftr_analysis *a, unsigned pattern, struct aproc *w, uint32_t wpath,
           uint64_t omega, struct aproc *d, struct dblock *dfrom, struct dblock *dto,
           struct dblock *wfrom, struct dblock *wto, uint64_t wsub)
{
    struct vftr_tally td = VFTR_TALLY_INIT, tw = VFTR_TALLY_INIT, gd = VFTR_TALLY_INIT;
    struct vftr_tally f = VFTR_TALLY_INIT;
    uint64_t wd = 0, ww = 0, sumd = 0, s;
    size_t pos = 0;
    const struct vftr_tally_slot *e;
    double scale;
    int rc;

    if (!omega)
        return 0;
    if ((rc = sum_blocks(dfrom ? dfrom : d->head, dto, &td, &wd, &gd)) < 0 ||
        (rc = sum_blocks(wfrom ? wfrom : w->head, wto, &tw, &ww, NULL)) < 0)
        goto out;
    if (wsub && (e = vftr_tally_find(&tw, wpath)))
        ((struct vftr_tally_slot *)e)->v.i -= (int64_t)wsub < e->v.i ? (int64_t)wsub : e->v.i;
    /* the delays: d's excess per call path */
    while ((e = vftr_tally_next(&td, &pos))) {
        int64_t x = e->v.i - vftr_tally_get_i(&tw, e->key);

        if (x > 0) {
            sumd += (uint64_t)x;
            if ((rc = vftr_tally_add_d(&f, key2(d->token, (uint32_t)e->key), (double)x)) < 0)
                goto out;
        }
    }
    s = sumd + wd;
    if (s == 0) {
        a->sum.delay_unexplained++;
        rc = into_block(w, wpath, omega, NULL);
        goto out;
    }
    scale = (double)omega < (double)s ? (double)omega / (double)s : 1.0;
    pos = 0;
    while ((e = vftr_tally_next(&f, &pos)))
        if ((rc = vftr_tally_add_d(&a->dshort[pattern], e->key, scale * e->v.d)) < 0)
            goto out;
    pos = 0;
    while ((e = vftr_tally_next(&gd, &pos)))
        if ((rc = vftr_tally_add_d(&a->dlong[pattern], e->key, scale * e->v.d)) < 0)
            goto out;
    /* F = (delays + G) / S: where a tick of cost arriving at this wait goes */
    if ((rc = vftr_tally_merge_d(&f, &gd, 1.0)) < 0)
        goto out;
    pos = 0;
    while ((e = vftr_tally_next(&f, &pos)))
        ((struct vftr_tally_slot *)e)->v.d /= (double)s;
    rc = into_block(w, wpath, omega, &f);
out:
    vftr_tally_release(&td);
    vftr_tally_release(&tw);
    vftr_tally_release(&gd);
    vftr_tally_release(&f);
    return rc;
}

int d_finish(struct vftr_analysis *a)
{
    size_t n = 0;

    for (unsigned k = 0; k < VFTR_WAIT_COUNT; k++)
        n += a->dshort[k].used + a->dlong[k].used;
    a->drows = malloc((n ? n : 1) * sizeof *a->drows);
    if (!a->drows)
        return -ENOMEM;
    for (unsigned k = 0; k < VFTR_WAIT_COUNT; k++) {
        struct vftr_u64map idx = VFTR_U64MAP_INIT;
        const struct vftr_tally_slot *e;
        size_t pos = 0;

        for (int which = 0; which < 2; which++) {
            const struct vftr_tally *t = which ? &a->dlong[k] : &a->dshort[k];

            pos = 0;
            while ((e = vftr_tally_next(t, &pos))) {
                long i = vftr_u64map_get(&idx, e->key);

                if (e->v.d <= 0.0)
                    continue;
                if (i < 0) {
                    if (vftr_u64map_put(&idx, e->key, (uint32_t)a->ndrows) < 0) {
                        vftr_u64map_release(&idx);
                        return -ENOMEM;
                    }
                    a->drows[a->ndrows] = (struct vftr_delay_row){
                        k, (uint32_t)(e->key >> 32), (uint32_t)e->key, 0.0, 0.0 };
                    i = (long)a->ndrows++;
                }
                if (which)
                    a->drows[i].long_term += e->v.d;
                else
                    a->drows[i].short_term += e->v.d;
            }
        }
        vftr_u64map_release(&idx);
    }
    return 0;
}

void d_release_proc(struct aproc *p)
{
    struct dblock *b = p->head;

    for (int list = 0; list < 2; list++) {
        while (b) {
            struct dblock *next = b->next;

            block_destroy(b);
            b = next;
        }
        b = p->dfree;
    }
    p->head = p->tail = p->dfree = NULL;
    vftr_tally_release(&p->p2p_bound);
    vftr_tally_release(&p->coll_bound);
    p->omp_bound = NULL;
}
