/*
 * comm.c — see comm.h.  The figures are lib/model/messages.h's; this file
 * only keeps the matches it reports (for the lines at the cursor) and
 * answers the screen's questions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "model/grow.h"

struct tui_comm {
    struct vftr_messages *msgs;
    int valid;
    struct tui_flight *kept;    /* the window's matches, in match order */
    size_t nkept, capkept;
    int overflow;               /* more than TUI_COMM_MAX_KEPT: none kept */
    int oom;
};

static void on_match(void *arg, const struct vftr_msgmatch *m)
{
    struct tui_comm *c = arg;

    if (c->overflow || c->oom)
        return;
    if (c->nkept == TUI_COMM_MAX_KEPT) {
        c->overflow = 1;
        free(c->kept);
        c->kept = NULL;
        c->nkept = c->capkept = 0;
        return;
    }
    if (vftr_reserve((void **)&c->kept, &c->capkept, c->nkept, sizeof *c->kept) < 0) {
        c->oom = 1;
        return;
    }
    c->kept[c->nkept++] = (struct tui_flight){ m->sender, m->receiver, m->send_time,
                                               m->recv_time };
}

struct tui_comm *tui_comm_new(void)
{
    return calloc(1, sizeof(struct tui_comm));
}

void tui_comm_free(struct tui_comm *c)
{
    if (!c)
        return;
    vftr_messages_free(c->msgs);
    free(c->kept);
    free(c);
}

int tui_comm_begin(struct tui_comm *c, vftr_msgrank_fn *rank_of, void *arg)
{
    vftr_messages_free(c->msgs);
    c->valid = c->overflow = c->oom = 0;
    c->nkept = 0;
    c->msgs = vftr_messages_new(on_match, c);
    if (!c->msgs)
        return -ENOMEM;
    return vftr_messages_set_ranks(c->msgs, rank_of, arg);
}

int tui_comm_open_send(struct tui_comm *c, uint64_t time, uint32_t sender, uint32_t receiver,
                       uint32_t comm, uint32_t tag, uint32_t length)
{
    int rc = vftr_messages_open_send(c->msgs, time, sender, receiver, comm, tag, length);

    return rc ? rc : c->oom ? -ENOMEM : 0;
}

int tui_comm_send(struct tui_comm *c, uint64_t time, uint32_t sender, uint32_t receiver,
                  uint32_t comm, uint32_t tag, uint32_t length)
{
    int rc = vftr_messages_send(c->msgs, time, sender, receiver, comm, tag, length);

    return rc ? rc : c->oom ? -ENOMEM : 0;
}

int tui_comm_recv(struct tui_comm *c, uint64_t time, uint32_t receiver, uint32_t sender,
                  uint32_t comm, uint32_t tag, uint32_t length)
{
    int rc = vftr_messages_recv(c->msgs, time, receiver, sender, comm, tag, length);

    return rc ? rc : c->oom ? -ENOMEM : 0;
}

int tui_comm_finish(struct tui_comm *c)
{
    int rc = vftr_messages_finish(c->msgs);

    if (rc == 0 && c->oom)
        rc = -ENOMEM;
    c->valid = rc == 0;
    return rc;
}

int tui_comm_valid(const struct tui_comm *c)
{
    return c && c->valid;
}

const struct vftr_msgpair *tui_comm_pairs(const struct tui_comm *c, size_t *n)
{
    if (!tui_comm_valid(c)) {
        *n = 0;
        return NULL;
    }
    return vftr_messages_pairs(c->msgs, n);
}

const struct vftr_msg_counts *tui_comm_counts(const struct tui_comm *c)
{
    return tui_comm_valid(c) ? vftr_messages_counts(c->msgs) : NULL;
}

const struct vftr_msgpair *tui_comm_pair(const struct tui_comm *c, uint32_t sender,
                                         uint32_t receiver)
{
    size_t n, lo = 0, hi;
    const struct vftr_msgpair *p = tui_comm_pairs(c, &n);

    for (hi = n; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;

        if (p[mid].sender == sender && p[mid].receiver == receiver)
            return &p[mid];
        if (p[mid].sender < sender || (p[mid].sender == sender && p[mid].receiver < receiver))
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int by_send(const void *a, const void *b)
{
    const struct tui_flight *x = a, *y = b;

    if (x->send != y->send)
        return (x->send > y->send) - (x->send < y->send);
    if (x->sender != y->sender)
        return (x->sender > y->sender) - (x->sender < y->sender);
    return (x->receiver > y->receiver) - (x->receiver < y->receiver);
}

long tui_comm_flights(const struct tui_comm *c, uint64_t t, struct tui_flight *out, size_t max)
{
    size_t n = 0;

    if (!tui_comm_valid(c) || c->overflow)
        return c && c->overflow ? -1 : 0;
    /* the earliest sends first: keep the max earliest while counting all */
    for (size_t i = 0; i < c->nkept; i++) {
        const struct tui_flight *f = &c->kept[i];

        if (f->send > t || f->recv <= t)
            continue;
        if (n < max) {
            out[n] = *f;
        } else if (max > 0) {
            /* replace the latest kept one if this is earlier */
            size_t late = 0;

            for (size_t k = 1; k < max; k++)
                if (by_send(&out[k], &out[late]) > 0)
                    late = k;
            if (by_send(f, &out[late]) < 0)
                out[late] = *f;
        }
        n++;
    }
    if (max > 0)
        qsort(out, n < max ? n : max, sizeof *out, by_send);
    return (long)n;
}
