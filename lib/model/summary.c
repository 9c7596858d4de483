/* summary.c — see summary.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "summary.h"
#include "u64map.h"

/*
 * Signed sums per key pair, in order of first appearance: a window's
 * figures are differences of cumulated ones.  Both accumulators below
 * (function figures; message and collective counters) are one of these.
 */
#define NSUMS VFTR_CNTACC_NVALUES     /* fsacc uses the first 3 */

struct sumrow {
    uint32_t a, b;
    int64_t v[NSUMS];
};

struct sums {
    struct sumrow *rows;
    size_t n, cap;
    struct vftr_u64map map;          /* a << 32 | b -> row */
};

static void sums_release(struct sums *s)
{
    free(s->rows);
    vftr_u64map_release(&s->map);
}

/* Adds sign * v[0 .. nv-1] to the row (a, b).  0 or -ENOMEM. */
static int sums_add(struct sums *s, uint32_t a, uint32_t b, int sign, const uint64_t *v,
                    int nv)
{
    uint64_t key = (uint64_t)a << 32 | b;
    long i = vftr_u64map_get(&s->map, key);
    uint64_t f = sign < 0 ? UINT64_MAX : 1;          /* -1 or +1, modulo 2^64 */

    if (i < 0) {
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 64;
            struct sumrow *p = realloc(s->rows, cap * sizeof *p);

            if (!p)
                return -ENOMEM;
            s->rows = p;
            s->cap = cap;
        }
        if (vftr_u64map_put(&s->map, key, (uint32_t)s->n) < 0)
            return -ENOMEM;
        i = (long)s->n++;
        s->rows[i] = (struct sumrow){ .a = a, .b = b };
    }
    /* Two's complement wrap-around keeps differences exact even past 2^63. */
    for (int k = 0; k < nv; k++)
        s->rows[i].v[k] = (int64_t)((uint64_t)s->rows[i].v[k] + f * v[k]);
    return 0;
}

/* Row r's first nv values into out, negative ones clamped to 0 and counted
 * in *neg.  false when they are all zero (the row is left out). */
static bool sums_take(const struct sumrow *r, int nv, uint64_t *out, uint64_t *neg)
{
    bool any = false;

    for (int k = 0; k < nv; k++) {
        any |= r->v[k] != 0;
        *neg += r->v[k] < 0;
        out[k] = r->v[k] > 0 ? (uint64_t)r->v[k] : 0;
    }
    return any;
}

/* ------------------------------------------------------------ function figures */

struct vftr_fsacc {
    struct sums s;                   /* (process, function): calls, excl, incl */
    struct vftr_funcstat *out;       /* the last result */
};

struct vftr_fsacc *vftr_fsacc_new(void)
{
    struct vftr_fsacc *a = calloc(1, sizeof *a);

    if (!a)
        errno = ENOMEM;
    return a;
}

void vftr_fsacc_free(struct vftr_fsacc *a)
{
    if (!a)
        return;
    sums_release(&a->s);
    free(a->out);
    free(a);
}

int vftr_fsacc_add(struct vftr_fsacc *a, uint32_t process, uint32_t function, int sign,
                   uint64_t calls, uint64_t excl, uint64_t incl)
{
    const uint64_t v[3] = { calls, excl, incl };

    return sums_add(&a->s, process, function, sign, v, 3);
}

int vftr_fsacc_add_stats(struct vftr_fsacc *a, const struct vftr_funcstat *fs, size_t n,
                         int sign, vftr_procmap_fn *map, void *arg)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t p = map ? map(arg, fs[i].process) : fs[i].process;
        int rc = vftr_fsacc_add(a, p, fs[i].function, sign, fs[i].calls, fs[i].excl, fs[i].incl);

        if (rc < 0)
            return rc;
    }
    return 0;
}

const struct vftr_funcstat *vftr_fsacc_result(struct vftr_fsacc *a, size_t *n,
                                              uint64_t *negative)
{
    uint64_t neg = 0, v[3];
    size_t k = 0;

    free(a->out);
    a->out = malloc((a->s.n ? a->s.n : 1) * sizeof *a->out);
    if (!a->out) {
        *n = 0;
        return NULL;
    }
    for (size_t i = 0; i < a->s.n; i++)
        if (sums_take(&a->s.rows[i], 3, v, &neg))
            a->out[k++] = (struct vftr_funcstat){ a->s.rows[i].a, a->s.rows[i].b, v[0], v[1],
                                                  v[2] };
    if (negative)
        *negative = neg;
    *n = k;
    return a->out;
}

/* ------------------------------------------------ counters of other summaries */

struct vftr_cntacc {
    struct sums s;
    struct vftr_cntrow *out;         /* the last result */
};

struct vftr_cntacc *vftr_cntacc_new(void)
{
    struct vftr_cntacc *c = calloc(1, sizeof *c);

    if (!c)
        errno = ENOMEM;
    return c;
}

void vftr_cntacc_free(struct vftr_cntacc *c)
{
    if (!c)
        return;
    sums_release(&c->s);
    free(c->out);
    free(c);
}

int vftr_cntacc_add(struct vftr_cntacc *c, uint32_t a, uint32_t b, int sign,
                    const uint64_t v[VFTR_CNTACC_NVALUES])
{
    return sums_add(&c->s, a, b, sign, v, VFTR_CNTACC_NVALUES);
}

static int cmp_cntrow(const void *x, const void *y)
{
    const struct vftr_cntrow *p = x, *q = y;

    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

const struct vftr_cntrow *vftr_cntacc_result(struct vftr_cntacc *c, size_t *n,
                                             uint64_t *negative)
{
    struct vftr_cntrow *out = realloc(c->out, (c->s.n ? c->s.n : 1) * sizeof *out);
    uint64_t neg = 0;
    size_t m = 0;

    if (!out) {
        errno = ENOMEM;
        return NULL;
    }
    c->out = out;
    for (size_t i = 0; i < c->s.n; i++) {
        out[m] = (struct vftr_cntrow){ .a = c->s.rows[i].a, .b = c->s.rows[i].b };
        if (sums_take(&c->s.rows[i], VFTR_CNTACC_NVALUES, out[m].v, &neg))
            m++;
    }
    if (m > 1)
        qsort(out, m, sizeof *out, cmp_cntrow);
    *n = m;
    if (negative)
        *negative = neg;
    return out;
}

/* ------------------------------------------------------------ window plan */

static bool member(const uint64_t *v, size_t n, uint64_t t)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == t)
            return true;
    return false;
}

/* Each time at or before the first event is a free point: nothing before. */
static bool has_sum(const struct vftr_auxpoints *x, uint64_t t)
{
    return t <= x->first || member(x->summaries, x->nsummaries, t);
}

/* One way to reach an edge e: from point t (t == e: no replay needed). */
struct cand {
    uint64_t t;
    bool piece;
};

/* The latest t <= e with a snapshot (and a summary too if need_sum). */
static bool latest_point(const struct vftr_auxpoints *x, uint64_t e, bool need_sum, uint64_t *t)
{
    bool found = false;

    if (x->first <= e) {
        *t = x->first;                 /* the free point */
        found = true;
    }
    for (size_t i = 0; i < x->nsnapshots; i++) {
        uint64_t s = x->snapshots[i];

        if (s <= e && (!found || s > *t) && (!need_sum || has_sum(x, s))) {
            *t = s;
            found = true;
        }
    }
    return found;
}

/* Candidate starting points for edge e (open: e == UINT64_MAX). */
static size_t candidates(const struct vftr_auxpoints *x, uint64_t e, struct cand *c)
{
    size_t n = 0;
    uint64_t t;

    if (e == UINT64_MAX) {
        /* The first summary after the last event holds the whole trace. */
        bool found = false;

        for (size_t i = 0; i < x->nsummaries; i++)
            if (x->summaries[i] > x->last && (!found || x->summaries[i] < t)) {
                t = x->summaries[i];
                found = true;
            }
        if (found)
            c[n++] = (struct cand){ t, false };
    } else if (has_sum(x, e)) {
        c[n++] = (struct cand){ e, false };
    }
    if (latest_point(x, e, false, &t))
        c[n++] = (struct cand){ t, t != e };
    if (latest_point(x, e, true, &t))
        c[n++] = (struct cand){ t, t != e };
    return n;
}

static uint64_t span(const struct vftr_auxpoints *x, const struct cand *c, uint64_t e)
{
    if (!c->piece)
        return 0;
    if (e == UINT64_MAX)
        e = x->last;
    return e > c->t ? e - c->t : 0;
}

int vftr_winplan_make(const struct vftr_auxpoints *aux, uint64_t a, uint64_t b,
                      struct vftr_winplan *plan)
{
    struct cand ca[3], cb[3];
    size_t na, nb;
    bool found = false;
    struct cand best_a = { 0, false }, best_b = { 0, false };
    uint64_t best = 0;

    if (b <= a)
        return -EINVAL;
    *plan = (struct vftr_winplan){ 0 };
    if (aux->nsummaries == 0 && aux->nsnapshots == 0) {
        plan->exact_events = 1;
        return 0;
    }
    na = candidates(aux, a, ca);
    nb = candidates(aux, b, cb);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            const struct cand *x = &ca[i], *y = &cb[j];
            uint64_t cost;

            if (x->t > y->t)
                continue;
            /* Different points need both summaries; equal ones cancel. */
            if (x->t != y->t && !(has_sum(aux, x->t) && has_sum(aux, y->t)))
                continue;
            cost = span(aux, x, a) + span(aux, y, b);
            if (!found || cost < best) {
                found = true;
                best = cost;
                best_a = *x;
                best_b = *y;
            }
        }
    if (!found) {                      /* cannot happen: the free point is always there */
        plan->exact_events = 1;
        return 0;
    }
    plan->cost = best;
    if (best_a.t != best_b.t) {
        plan->nsums = 2;
        plan->sum_at[0] = best_b.t;
        plan->sum_at[1] = best_a.t;
    }
    if (best_b.piece)
        plan->piece[plan->npieces++] = (struct vftr_winpiece){
            best_b.t, b, +1, best_b.t > aux->first };
    if (best_a.piece)
        plan->piece[plan->npieces++] = (struct vftr_winpiece){
            best_a.t, a, -1, best_a.t > aux->first };
    return 0;
}
