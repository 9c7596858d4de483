/*
 * messages.c — message matching and collective statistics (messages.h).
 *
 * Every lookup goes through one small open-addressing table keyed by two
 * 64-bit words (a channel is sender|receiver and comm|tag, a pair is
 * sender|receiver, a pending collective is process and matching id), which
 * maps to an index into the array of that kind of object.  Entries are
 * never deleted: a channel whose queue ran empty keeps its slot, since the
 * same channel is usually used again.
 *
 * A channel's queue holds either unmatched sends or unmatched receives,
 * never both (one of each would have matched), so one queue and a sign do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"

/* ------------------------------------------------------------------ key map */

struct keyslot {
    uint64_t a, b;
    uint32_t value;        /* index + 1; 0 = free */
};

struct keymap {
    struct keyslot *slots;
    size_t cap, used;      /* cap: power of two or 0 */
};

static size_t key_hash(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15u ^ (b + 0x632be59bd9b4e019u) * 0xbf58476d1ce4e5b9u;

    h ^= h >> 31;
    return (size_t)(h * 0x94d049bb133111ebu >> 17);
}

static long keymap_get(const struct keymap *km, uint64_t a, uint64_t b)
{
    if (!km->cap)
        return -1;
    for (size_t i = key_hash(a, b) & (km->cap - 1);; i = (i + 1) & (km->cap - 1)) {
        const struct keyslot *s = &km->slots[i];
        if (!s->value)
            return -1;
        if (s->a == a && s->b == b)
            return (long)s->value - 1;
    }
}

static void keymap_insert(struct keyslot *slots, size_t cap, uint64_t a, uint64_t b, uint32_t value)
{
    size_t i = key_hash(a, b) & (cap - 1);

    while (slots[i].value)
        i = (i + 1) & (cap - 1);
    slots[i] = (struct keyslot){ a, b, value };
}

/* Adds a key known to be absent.  0 or -ENOMEM (map unchanged). */
static int keymap_put(struct keymap *km, uint64_t a, uint64_t b, uint32_t index)
{
    if (2 * (km->used + 1) > km->cap) {
        size_t cap = km->cap ? 2 * km->cap : 64;
        struct keyslot *slots = calloc(cap, sizeof *slots);

        if (!slots)
            return -ENOMEM;
        for (size_t i = 0; i < km->cap; i++)
            if (km->slots[i].value)
                keymap_insert(slots, cap, km->slots[i].a, km->slots[i].b, km->slots[i].value);
        free(km->slots);
        km->slots = slots;
        km->cap = cap;
    }
    keymap_insert(km->slots, km->cap, a, b, index + 1);
    km->used++;
    return 0;
}

/* ------------------------------------------------------------------ objects */

struct pending {
    uint64_t time, bytes, cookie;
    uint32_t self, peer;   /* its own process; the other side as its record names it */
    uint8_t open;          /* a send from before the window (vftr_messages_open_send) */
    uint8_t dead;          /* matched out of the middle of its queue */
};

struct queue {
    struct pending *q;
    size_t head, len, cap; /* entries are q[head..len), dead ones among them */
};

/* A channel's sends and receives that found no partner yet.  Without a
 * rank relation every record of a channel admits every record of the other
 * side, so one of the two queues is always empty; with one, a send to a
 * thread waits beside a receive of another thread of that rank. */
struct channel {
    uint32_t sender, receiver, comm, tag;     /* sender, receiver: rank processes */
    struct queue sends, recvs;
};

struct collbegin {
    uint64_t time, sent, received;
    uint32_t op;
    int open;
};

struct vftr_messages {
    vftr_msgmatch_fn *on_match;
    void *arg;
    vftr_msgrank_fn *rank_of;      /* NULL: every peer names the exact process */
    void *rank_arg;
    int finished;
    struct vftr_msg_counts counts;

    struct keymap chan_map, pair_map, op_map, begin_map;
    struct channel *chans;
    size_t nchans, chans_cap;
    struct vftr_msgpair *pairs;
    size_t npairs, pairs_cap;
    struct vftr_collstat *ops;
    size_t nops, ops_cap;
    struct collbegin *begins;
    size_t nbegins, begins_cap;
};

/* Room for one more element in arr (*cap elements of size, n used): arr
 * itself or its reallocated copy; NULL when out of memory (arr intact). */
static void *grow(void *arr, size_t *cap, size_t n, size_t size)
{
    size_t c;
    void *q;

    if (n < *cap)
        return arr;
    c = *cap ? 2 * *cap : 16;
    if (c > SIZE_MAX / size || !(q = realloc(arr, c * size)))
        return NULL;
    *cap = c;
    return q;
}

struct vftr_messages *vftr_messages_new(vftr_msgmatch_fn *on_match, void *arg)
{
    struct vftr_messages *m = calloc(1, sizeof *m);

    if (!m) {
        errno = ENOMEM;
        return NULL;
    }
    m->on_match = on_match;
    m->arg = arg;
    return m;
}

int vftr_messages_set_ranks(struct vftr_messages *m, vftr_msgrank_fn *rank_of, void *arg)
{
    if (m->finished || m->counts.sends || m->counts.recvs || m->counts.open_sends)
        return -EINVAL;
    m->rank_of = rank_of;
    m->rank_arg = arg;
    return 0;
}

void vftr_messages_free(struct vftr_messages *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nchans; i++) {
        free(m->chans[i].sends.q);
        free(m->chans[i].recvs.q);
    }
    free(m->chans);
    free(m->pairs);
    free(m->ops);
    free(m->begins);
    free(m->chan_map.slots);
    free(m->pair_map.slots);
    free(m->op_map.slots);
    free(m->begin_map.slots);
    free(m);
}

static uint32_t rank_of(const struct vftr_messages *m, uint32_t process)
{
    return m->rank_of ? m->rank_of(m->rank_arg, process) : process;
}

/* Does a record naming `named` as its other side admit `actual` there?
 * (messages.h: a thread names that thread alone, since only a writer that
 * knows the thread names it; a rank's own process any process of it.) */
static int admits(const struct vftr_messages *m, uint32_t named, uint32_t actual)
{
    return vftr_messages_admits(m->rank_of, m->rank_arg, named, actual);
}

static struct vftr_msgpair *pair_of(struct vftr_messages *m, uint32_t sender, uint32_t receiver)
{
    uint64_t a = (uint64_t)sender << 32 | receiver;
    long i = keymap_get(&m->pair_map, a, 0);

    if (i >= 0)
        return &m->pairs[i];
    struct vftr_msgpair *pairs;
    if (m->npairs >= UINT32_MAX - 1 ||
        !(pairs = grow(m->pairs, &m->pairs_cap, m->npairs, sizeof *pairs)))
        return NULL;
    m->pairs = pairs;
    if (keymap_put(&m->pair_map, a, 0, (uint32_t)m->npairs) < 0)
        return NULL;
    m->pairs[m->npairs] = (struct vftr_msgpair){ .sender = sender, .receiver = receiver };
    return &m->pairs[m->npairs++];
}

/* The channel of (sender's rank, receiver's rank, comm, tag). */
static struct channel *channel_of(struct vftr_messages *m, uint32_t sender, uint32_t receiver,
                                  uint32_t comm, uint32_t tag)
{
    uint64_t a, b = (uint64_t)comm << 32 | tag;
    long i;

    sender = rank_of(m, sender);
    receiver = rank_of(m, receiver);
    a = (uint64_t)sender << 32 | receiver;
    if ((i = keymap_get(&m->chan_map, a, b)) >= 0)
        return &m->chans[i];
    struct channel *chans;
    if (m->nchans >= UINT32_MAX - 1 ||
        !(chans = grow(m->chans, &m->chans_cap, m->nchans, sizeof *chans)))
        return NULL;
    m->chans = chans;
    if (keymap_put(&m->chan_map, a, b, (uint32_t)m->nchans) < 0)
        return NULL;
    m->chans[m->nchans] = (struct channel){ .sender = sender, .receiver = receiver,
                                            .comm = comm, .tag = tag };
    return &m->chans[m->nchans++];
}

/* Appends x.  A full queue first drops what was matched out of it: an
 * entry no record admits (a send to a thread whose receive lies outside
 * the window) can stay at the head for good, and what is matched behind
 * it must not pile up.  It still doubles when more than half is live, so
 * compactions stay rare (amortised O(1) per record). */
static int push(struct queue *c, struct pending x)
{
    size_t used = c->len;

    if (c->head == c->len) {           /* empty: restart at the front */
        c->head = c->len = used = 0;
    } else if (c->len == c->cap) {
        size_t n = 0;

        for (size_t k = c->head; k < c->len; k++)
            if (!c->q[k].dead)
                c->q[n++] = c->q[k];
        c->head = 0;
        c->len = n;
        used = n > c->cap / 2 ? c->cap : n;     /* cap: grow() doubles it */
    }
    struct pending *q = grow(c->q, &c->cap, used, sizeof *q);
    if (!q)
        return -ENOMEM;
    c->q = q;
    c->q[c->len++] = x;
    return 0;
}

/* The oldest entry of q whose record and the new one (own process self,
 * naming peer as the other side) admit each other, taken out of the queue
 * into *out; 0 when there is none. */
static int take(const struct vftr_messages *m, struct queue *q, uint32_t self, uint32_t peer,
                struct pending *out)
{
    for (size_t k = q->head; k < q->len; k++) {
        struct pending *x = &q->q[k];

        if (x->dead || !admits(m, x->peer, self) || !admits(m, peer, x->self))
            continue;
        *out = *x;
        x->dead = 1;
        while (q->head < q->len && q->q[q->head].dead)
            q->head++;
        return 1;
    }
    return 0;
}

/* A matched message: booked under its true processes, the send's own and
 * the receive's own. */
static int matched(struct vftr_messages *m, const struct channel *c, const struct pending *s,
                   const struct pending *r)
{
    struct vftr_msgpair *p = pair_of(m, s->self, r->self);

    if (!p)
        return -ENOMEM;
    p->messages++;
    p->bytes += s->bytes;
    p->matched++;
    p->transfer += r->time > s->time ? r->time - s->time : 0;
    m->counts.matched++;
    if (m->on_match) {
        struct vftr_msgmatch mm = { s->self, r->self, c->comm, c->tag, s->time, r->time,
                                    s->bytes, s->cookie, r->cookie };
        m->on_match(m->arg, &mm);
    }
    return 0;
}

/* Without a rank relation a pair shows as soon as a record names it, as
 * it always did (a receive that completes a message from before the window
 * leaves an empty one); with one, a record's named peer may not be the
 * process the message went to, so only what is booked makes a pair. */
static int touch(struct vftr_messages *m, uint32_t sender, uint32_t receiver)
{
    return m->rank_of || pair_of(m, sender, receiver) ? 0 : -ENOMEM;
}

int vftr_messages_send_cookie(struct vftr_messages *m, uint64_t time, uint32_t sender,
                              uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes,
                              uint64_t cookie)
{
    struct pending s = { time, bytes, cookie, sender, receiver, 0, 0 }, r;
    struct channel *c;

    if (m->finished)
        return -EINVAL;
    if (touch(m, sender, receiver) < 0 || !(c = channel_of(m, sender, receiver, comm, tag)))
        return -ENOMEM;
    m->counts.sends++;
    if (take(m, &c->recvs, sender, receiver, &r))          /* a receive was waiting */
        return matched(m, c, &s, &r);
    return push(&c->sends, s);
}

int vftr_messages_send(struct vftr_messages *m, uint64_t time, uint32_t sender, uint32_t receiver,
                       uint32_t comm, uint32_t tag, uint64_t bytes)
{
    return vftr_messages_send_cookie(m, time, sender, receiver, comm, tag, bytes, 0);
}

int vftr_messages_recv_cookie(struct vftr_messages *m, uint64_t time, uint32_t receiver,
                              uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes,
                              uint64_t cookie)
{
    struct pending r = { time, bytes, cookie, receiver, sender, 0, 0 }, s;
    struct channel *c;

    if (m->finished)
        return -EINVAL;
    if (touch(m, sender, receiver) < 0 || !(c = channel_of(m, sender, receiver, comm, tag)))
        return -ENOMEM;
    m->counts.recvs++;
    if (take(m, &c->sends, receiver, sender, &s)) {
        if (s.open)
            m->counts.recvs_open++;      /* its send is not the window's */
        else
            return matched(m, c, &s, &r);
        return 0;
    }
    return push(&c->recvs, r);
}

int vftr_messages_recv(struct vftr_messages *m, uint64_t time, uint32_t receiver, uint32_t sender,
                       uint32_t comm, uint32_t tag, uint64_t bytes)
{
    return vftr_messages_recv_cookie(m, time, receiver, sender, comm, tag, bytes, 0);
}

int vftr_messages_open_send(struct vftr_messages *m, uint64_t time, uint32_t sender,
                             uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes)
{
    struct pending s = { time, bytes, 0, sender, receiver, 1, 0 }, r;
    struct channel *c;

    if (m->finished)
        return -EINVAL;
    if (!(c = channel_of(m, sender, receiver, comm, tag)))
        return -ENOMEM;
    if (take(m, &c->recvs, sender, receiver, &r)) {
        /* A receive came first (the caller broke the order messages.h
         * asks for): it is the one this send completes. */
        if (touch(m, sender, receiver) < 0)
            return -ENOMEM;
        m->counts.recvs_open++;
        return 0;
    }
    if (push(&c->sends, s) < 0)
        return -ENOMEM;
    m->counts.open_sends++;
    return 0;
}

static struct vftr_collstat *op_of(struct vftr_messages *m, uint32_t op)
{
    long i = keymap_get(&m->op_map, op, 0);

    if (i >= 0)
        return &m->ops[i];
    struct vftr_collstat *ops;
    if (m->nops >= UINT32_MAX - 1 || !(ops = grow(m->ops, &m->ops_cap, m->nops, sizeof *ops)))
        return NULL;
    m->ops = ops;
    if (keymap_put(&m->op_map, op, 0, (uint32_t)m->nops) < 0)
        return NULL;
    m->ops[m->nops] = (struct vftr_collstat){ .op = op };
    return &m->ops[m->nops++];
}

static int add_collop(struct vftr_messages *m, uint32_t op, uint64_t bytes, uint64_t time)
{
    struct vftr_collstat *s = op_of(m, op);

    if (!s)
        return -ENOMEM;
    s->count++;
    s->bytes += bytes;
    s->time += time;
    m->counts.collops++;
    return 0;
}

int vftr_messages_collop(struct vftr_messages *m, uint32_t process, uint32_t op, uint64_t sent,
                         uint64_t received, uint64_t duration)
{
    (void)process;
    if (m->finished)
        return -EINVAL;
    return add_collop(m, op, sent + received, duration);
}

int vftr_messages_coll_begin(struct vftr_messages *m, uint64_t time, uint32_t process, uint32_t op,
                             uint64_t matching_id, uint64_t sent, uint64_t received)
{
    long i;

    if (m->finished)
        return -EINVAL;
    i = keymap_get(&m->begin_map, process, matching_id);
    if (i < 0) {
        struct collbegin *begins;
        if (m->nbegins >= UINT32_MAX - 1 ||
            !(begins = grow(m->begins, &m->begins_cap, m->nbegins, sizeof *begins)))
            return -ENOMEM;
        m->begins = begins;
        if (keymap_put(&m->begin_map, process, matching_id, (uint32_t)m->nbegins) < 0)
            return -ENOMEM;
        i = (long)m->nbegins++;
    } else if (m->begins[i].open) {
        m->counts.unmatched_begins++;            /* begun again before its end */
    }
    m->begins[i] = (struct collbegin){ time, sent, received, op, 1 };
    return 0;
}

int vftr_messages_coll_end(struct vftr_messages *m, uint64_t time, uint32_t process,
                           uint64_t matching_id)
{
    long i;
    struct collbegin *b;

    if (m->finished)
        return -EINVAL;
    i = keymap_get(&m->begin_map, process, matching_id);
    if (i < 0 || !m->begins[i].open) {
        m->counts.unmatched_ends++;
        return 0;
    }
    b = &m->begins[i];
    b->open = 0;
    return add_collop(m, b->op, b->sent + b->received, time > b->time ? time - b->time : 0);
}

static int cmp_pairs(const void *x, const void *y)
{
    const struct vftr_msgpair *p = x, *q = y;

    if (p->sender != q->sender)
        return p->sender < q->sender ? -1 : 1;
    return p->receiver < q->receiver ? -1 : p->receiver > q->receiver;
}

static int cmp_ops(const void *x, const void *y)
{
    const struct vftr_collstat *p = x, *q = y;

    return p->op < q->op ? -1 : p->op > q->op;
}

int vftr_messages_finish(struct vftr_messages *m)
{
    if (m->finished)
        return -EINVAL;
    m->finished = 1;
    /* What found no partner is booked under the processes its record
     * names (open sends end after the window: not the window's). */
    for (size_t i = 0; i < m->nchans; i++) {
        const struct channel *c = &m->chans[i];

        for (size_t k = c->sends.head; k < c->sends.len; k++) {
            const struct pending *x = &c->sends.q[k];
            struct vftr_msgpair *p;

            if (x->dead || x->open)
                continue;
            if (!(p = pair_of(m, x->self, x->peer)))
                return -ENOMEM;
            p->messages++;
            p->bytes += x->bytes;
            m->counts.unmatched_sends++;
        }
        for (size_t k = c->recvs.head; k < c->recvs.len; k++) {
            const struct pending *x = &c->recvs.q[k];
            struct vftr_msgpair *p;

            if (x->dead)
                continue;
            if (!(p = pair_of(m, x->peer, x->self)))
                return -ENOMEM;
            p->recvs_only++;
            m->counts.unmatched_recvs++;
        }
    }
    for (size_t i = 0; i < m->nbegins; i++)
        m->counts.unmatched_begins += m->begins[i].open != 0;
    /* The maps index the arrays: they are stale once sorted, but nothing
     * looks them up after the finish. */
    if (m->npairs)
        qsort(m->pairs, m->npairs, sizeof *m->pairs, cmp_pairs);
    if (m->nops)
        qsort(m->ops, m->nops, sizeof *m->ops, cmp_ops);
    return 0;
}

const struct vftr_msgpair *vftr_messages_pairs(const struct vftr_messages *m, size_t *n)
{
    *n = m->npairs;
    return m->pairs;
}

const struct vftr_collstat *vftr_messages_collectives(const struct vftr_messages *m, size_t *n)
{
    *n = m->nops;
    return m->ops;
}

const struct vftr_msg_counts *vftr_messages_counts(const struct vftr_messages *m)
{
    return &m->counts;
}
