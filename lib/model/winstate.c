/*
 * winstate.c — see winstate.h.  (Moved here from the .vfd backend, whose
 * window reads it served first, so that the OTF2 backend reads windows by
 * the same rules.)
 */
#include "winstate.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "messages.h"

static struct vftr_winstate_stack *stack_of(struct vftr_winstate *w, uint32_t process)
{
    long i = vftr_u64map_get(&w->smap, process);

    if (i >= 0)
        return &w->stacks[i];
    if (vftr_reserve((void **)&w->stacks, &w->capstacks, w->nstacks, sizeof *w->stacks) < 0 ||
        vftr_u64map_put(&w->smap, process, (uint32_t)w->nstacks) < 0)
        return NULL;
    w->stacks[w->nstacks] = (struct vftr_winstate_stack){ process, NULL, 0, 0 };
    return &w->stacks[w->nstacks++];
}

/* Before a: the state only. */
static int keep_state(struct vftr_winstate *w, const struct vftr_vfdconv_event *e)
{
    struct vftr_winstate_stack *s;

    switch (e->type) {
    case VFTR_VFDCONV_ENTER:
        if (!(s = stack_of(w, e->process)) ||
            vftr_reserve((void **)&s->v, &s->cap, s->n, sizeof *s->v) < 0)
            return -ENOMEM;
        s->v[s->n++] = (struct vftr_winstate_call){ e->function, e->time };
        return 0;
    case VFTR_VFDCONV_LEAVE:
        if (!(s = stack_of(w, e->process)))
            return -ENOMEM;
        for (size_t k = s->n; k > 0; k--)
            if (s->v[k - 1].function == e->function) {
                s->n = k - 1;
                break;
            }
        return 0;
    case VFTR_VFDCONV_SEND:
        if (!w->h->open_message)
            return 0;
        if (vftr_reserve((void **)&w->msgs, &w->capmsgs, w->nmsgs, sizeof *w->msgs) < 0)
            return -ENOMEM;
        w->msgs[w->nmsgs++] = (struct vftr_winstate_msg){ e->time, e->process, e->peer,
                                                           e->group, e->tag, e->bytes };
        return 0;
    case VFTR_VFDCONV_RECV:
        /* the oldest send of its channel that it and the send admit
         * (messages.h; the engine matched them in this order) */
        for (size_t k = 0; k < w->nmsgs; k++) {
            const struct vftr_winstate_msg *m = &w->msgs[k];

            if (m->comm == e->group && m->tag == e->tag &&
                vftr_messages_admits(w->rank_of, w->rank_arg, m->receiver, e->process) &&
                vftr_messages_admits(w->rank_of, w->rank_arg, e->peer, m->sender)) {
                memmove(&w->msgs[k], &w->msgs[k + 1], (w->nmsgs - k - 1) * sizeof *w->msgs);
                w->nmsgs--;
                break;
            }
        }
        return 0;
    default:
        return 0;
    }
}

static int cmp_stack(const void *x, const void *y)
{
    const struct vftr_winstate_stack *a = x, *b = y;

    return (a->process > b->process) - (a->process < b->process);
}

/* Hands the state at a over: open frames per process (ascending, outermost
 * first), then the messages in flight. */
static int deliver_state(struct vftr_winstate *w)
{
    const struct vftr_window_handler *h = w->h;
    int rc = 0;

    w->started = 1;
    if (!w->state)
        return 0;
    if (w->nstacks)
        qsort(w->stacks, w->nstacks, sizeof *w->stacks, cmp_stack);
    for (size_t i = 0; i < w->nstacks && rc == 0; i++)
        for (size_t k = 0; k < w->stacks[i].n && rc == 0 && h->open_frame; k++)
            rc = h->open_frame(h->arg, w->stacks[i].process, w->stacks[i].v[k].function,
                               w->stacks[i].v[k].enter, (uint32_t)k + 1);
    for (size_t k = 0; k < w->nmsgs && rc == 0 && h->open_message; k++) {
        const struct vftr_winstate_msg *m = &w->msgs[k];

        rc = h->open_message(h->arg, m->time, m->sender, m->receiver, m->comm, m->tag,
                             (uint32_t)(m->bytes > UINT32_MAX ? UINT32_MAX : m->bytes));
    }
    return rc;
}

static uint32_t len32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int deliver(struct vftr_winstate *w, const struct vftr_vfdconv_event *e)
{
    const struct vftr_window_handler *h = w->h;

    switch (e->type) {
    case VFTR_VFDCONV_ENTER:
        return h->enter ? h->enter(h->arg, e->time, e->process, e->function) : 0;
    case VFTR_VFDCONV_LEAVE:
        return h->leave ? h->leave(h->arg, e->time, e->process, e->function) : 0;
    case VFTR_VFDCONV_SEND:
        return h->send ? h->send(h->arg, e->time, e->process, e->peer, e->group, e->tag,
                                 len32(e->bytes)) : 0;
    case VFTR_VFDCONV_RECV:
        return h->recv ? h->recv(h->arg, e->time, e->process, e->peer, e->group, e->tag,
                                 len32(e->bytes)) : 0;
    case VFTR_VFDCONV_COLL_BEGIN:
        return h->coll_begin ? h->coll_begin(h->arg, e->time, e->process, e->op, e->match,
                                             e->group, e->root, e->bytes, e->received) : 0;
    case VFTR_VFDCONV_COLL_END:
        return h->coll_end ? h->coll_end(h->arg, e->time, e->process, e->match) : 0;
    case VFTR_VFDCONV_FILE_BEGIN:
    case VFTR_VFDCONV_FILE_END: {
        struct vftr_window_fileop op = { e->match, e->file, e->op, e->received, e->bytes, 0 };
        int (*fn)(void *, uint64_t, uint32_t, const struct vftr_window_fileop *) =
            e->type == VFTR_VFDCONV_FILE_BEGIN ? h->file_begin : h->file_end;

        return fn ? fn(h->arg, e->time, e->process, &op) : 0;
    }
    case VFTR_VFDCONV_COUNTER:
        return h->counter ? h->counter(h->arg, e->time, e->process, e->op, e->bytes) : 0;
    case VFTR_VFDCONV_RMA_PUT:
    case VFTR_VFDCONV_RMA_GET:
    case VFTR_VFDCONV_RMA_END: {
        /* the .vfd records transfers on their origin: initiator and origin
         * agree; an end's origin is the thread that began its transfer */
        struct vftr_window_rma r = {
            .kind = e->type == VFTR_VFDCONV_RMA_PUT   ? VFTR_WINDOW_RMA_PUT
                    : e->type == VFTR_VFDCONV_RMA_GET ? VFTR_WINDOW_RMA_GET
                                                      : VFTR_WINDOW_RMA_END,
            .origin = e->type == VFTR_VFDCONV_RMA_END && e->root ? e->root : e->process,
            .target = e->peer,
            .comm = e->group, .tag = e->tag,
            .bytes = e->type == VFTR_VFDCONV_RMA_END ? 0 : e->bytes, .match = e->match };

        return h->rma ? h->rma(h->arg, e->time, e->process, &r) : 0;
    }
    default:
        return 0;
    }
}

void vftr_winstate_init(struct vftr_winstate *ws, const struct vftr_window_handler *h,
                        const struct vftr_proclist *procs, uint64_t a, uint64_t b, int state,
                        struct vftr_window_stats *st)
{
    *ws = (struct vftr_winstate){ .h = h, .procs = procs, .a = a, .b = b, .state = state,
                                  .st = st };
}

int vftr_winstate_verdict(struct vftr_winstate *ws, int rc)
{
    if (rc == 0)
        return 0;
    ws->hrc = rc;
    return VFTR_WINSTATE_STOP;
}

/* The read reached b: the state at a still goes out when no event of the
 * window came before (a window inside one long call). */
static int end_at_b(struct vftr_winstate *ws)
{
    if (!ws->started) {
        int rc = deliver_state(ws);

        if (rc)
            return vftr_winstate_verdict(ws, rc);
    }
    return VFTR_WINSTATE_STOP;
}

int vftr_winstate_gate(struct vftr_winstate *ws, uint64_t time, uint32_t process)
{
    if (time >= ws->b)
        return end_at_b(ws);
    if (ws->procs && !vftr_proclist_contains(ws->procs, process))
        return 0;
    if (time < ws->a) {
        ws->st->replayed++;
        return 0;
    }
    if (!ws->started) {
        int rc = deliver_state(ws);

        if (rc)
            return vftr_winstate_verdict(ws, rc);
    }
    ws->st->delivered++;
    return 1;
}

int vftr_winstate_event(struct vftr_winstate *ws, const struct vftr_vfdconv_event *e)
{
    if (e->time >= ws->b)
        return end_at_b(ws);
    if (ws->procs && !vftr_proclist_contains(ws->procs, e->process))
        return 0;
    if (e->time < ws->a) {
        ws->st->replayed++;
        return ws->state ? keep_state(ws, e) : 0;
    }
    if (!ws->started) {
        int rc = deliver_state(ws);

        if (rc)
            return vftr_winstate_verdict(ws, rc);
    }
    ws->st->delivered++;
    return vftr_winstate_verdict(ws, deliver(ws, e));
}

int vftr_winstate_finish(struct vftr_winstate *ws)
{
    return ws->started ? 0 : deliver_state(ws);
}

void vftr_winstate_release(struct vftr_winstate *ws)
{
    for (size_t i = 0; i < ws->nstacks; i++)
        free(ws->stacks[i].v);
    free(ws->stacks);
    free(ws->msgs);
    vftr_u64map_release(&ws->smap);
    ws->stacks = NULL;
    ws->msgs = NULL;
    ws->nstacks = ws->nmsgs = 0;
}
