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
    int open;              /* a send from before the window (vftr_messages_open_send) */
};

struct channel {
    uint32_t sender, receiver, comm, tag;
    int sends;             /* 1: queue holds sends, 0: receives */
    struct pending *q;
    size_t head, len, cap; /* live entries are q[head..len) */
};

struct collbegin {
    uint64_t time, sent, received;
    uint32_t op;
    int open;
};

struct vftr_messages {
    vftr_msgmatch_fn *on_match;
    void *arg;
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

void vftr_messages_free(struct vftr_messages *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nchans; i++)
        free(m->chans[i].q);
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

static struct channel *channel_of(struct vftr_messages *m, uint32_t sender, uint32_t receiver,
                                  uint32_t comm, uint32_t tag)
{
    uint64_t a = (uint64_t)sender << 32 | receiver, b = (uint64_t)comm << 32 | tag;
    long i = keymap_get(&m->chan_map, a, b);

    if (i >= 0)
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

static int push(struct channel *c, int sends, uint64_t time, uint64_t bytes, uint64_t cookie)
{
    if (c->head == c->len) {           /* empty: restart at the front */
        c->head = c->len = 0;
        c->sends = sends;
    } else if (c->len == c->cap && c->head > 0) {
        memmove(c->q, c->q + c->head, (c->len - c->head) * sizeof *c->q);
        c->len -= c->head;
        c->head = 0;
    }
    struct pending *q = grow(c->q, &c->cap, c->len, sizeof *q);
    if (!q)
        return -ENOMEM;
    c->q = q;
    c->q[c->len++] = (struct pending){ time, bytes, cookie, 0 };
    return 0;
}

static void matched(struct vftr_messages *m, struct vftr_msgpair *p, const struct channel *c,
                    uint64_t send_time, uint64_t recv_time, uint64_t bytes, uint64_t send_cookie,
                    uint64_t recv_cookie)
{
    p->matched++;
    p->transfer += recv_time > send_time ? recv_time - send_time : 0;
    m->counts.matched++;
    if (m->on_match) {
        struct vftr_msgmatch mm = { c->sender, c->receiver, c->comm, c->tag,
                                    send_time, recv_time, bytes, send_cookie, recv_cookie };
        m->on_match(m->arg, &mm);
    }
}

int vftr_messages_send_cookie(struct vftr_messages *m, uint64_t time, uint32_t sender,
                              uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes,
                              uint64_t cookie)
{
    struct vftr_msgpair *p;
    struct channel *c;

    if (m->finished)
        return -EINVAL;
    if (!(p = pair_of(m, sender, receiver)) || !(c = channel_of(m, sender, receiver, comm, tag)))
        return -ENOMEM;
    m->counts.sends++;
    p->messages++;
    p->bytes += bytes;
    if (c->head < c->len && !c->sends) {          /* a receive was waiting */
        struct pending r = c->q[c->head++];
        p->recvs_only--;
        matched(m, p, c, time, r.time, bytes, cookie, r.cookie);
        return 0;
    }
    return push(c, 1, time, bytes, cookie);
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
    struct vftr_msgpair *p;
    struct channel *c;

    if (m->finished)
        return -EINVAL;
    if (!(p = pair_of(m, sender, receiver)) || !(c = channel_of(m, sender, receiver, comm, tag)))
        return -ENOMEM;
    m->counts.recvs++;
    if (c->head < c->len && c->sends) {
        struct pending s = c->q[c->head++];
        if (s.open)
            m->counts.recvs_open++;      /* its send is not the window's */
        else
            matched(m, p, c, s.time, time, s.bytes, s.cookie, cookie);
        return 0;
    }
    if (push(c, 0, time, bytes, cookie) < 0)
        return -ENOMEM;
    p->recvs_only++;       /* until a send comes */
    return 0;
}

int vftr_messages_recv(struct vftr_messages *m, uint64_t time, uint32_t receiver, uint32_t sender,
                       uint32_t comm, uint32_t tag, uint64_t bytes)
{
    return vftr_messages_recv_cookie(m, time, receiver, sender, comm, tag, bytes, 0);
}

int vftr_messages_open_send(struct vftr_messages *m, uint64_t time, uint32_t sender,
                             uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes)
{
    struct channel *c;

    if (m->finished)
        return -EINVAL;
    if (!(c = channel_of(m, sender, receiver, comm, tag)))
        return -ENOMEM;
    if (c->head < c->len && !c->sends) {
        /* A receive came first (the caller broke the order messages.h
         * asks for): it is the one this send completes. */
        struct vftr_msgpair *p = pair_of(m, sender, receiver);

        if (!p)
            return -ENOMEM;
        c->head++;
        p->recvs_only--;
        m->counts.recvs_open++;
        return 0;
    }
    if (push(c, 1, time, bytes, 0) < 0)
        return -ENOMEM;
    c->q[c->len - 1].open = 1;
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
    for (size_t i = 0; i < m->nchans; i++) {
        const struct channel *c = &m->chans[i];
        if (c->sends) {
            for (size_t k = c->head; k < c->len; k++)   /* open ones end after the window */
                m->counts.unmatched_sends += !c->q[k].open;
        } else
            m->counts.unmatched_recvs += c->len - c->head;
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
