/*
 * sink.c — the front of sink.h: the table of formats, and feeding a sink
 * from a source (the one place that turns a window into a trace that
 * nests).
 */
#include "sink_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "u64map.h"
#include "util/errmsg.h"

static const char *const ends_otf[] = { ".otf", NULL };
static const char *const ends_otf2[] = { ".otf2", NULL };
static const char *const ends_perfetto[] = { ".perfetto-trace", ".pftrace", ".pb", NULL };
static const char *const ends_json[] = { ".json", NULL };
static const char *const ends_folded[] = { ".folded", NULL };

static const struct vftr_sink_format fmt_otf = {
    "otf", ends_otf, "OTF 1.x (STUB.otf and its streams; --compress applies)",
    vftr_sink_open_otf,
};
static const struct vftr_sink_format fmt_otf2 = {
    "otf2", ends_otf2, "OTF2 archive (DIR/traces.otf2; OUT names the anchor file or DIR)",
    vftr_sink_open_otf2,
};
static const struct vftr_sink_format fmt_perfetto = {
    "perfetto", ends_perfetto, "Perfetto protobuf trace (ui.perfetto.dev)",
    vftr_sink_open_perfetto,
};
static const struct vftr_sink_format fmt_json = {
    "json", ends_json, "Chrome trace-event JSON (small traces; chrome://tracing, Perfetto)",
    vftr_sink_open_json,
};
static const struct vftr_sink_format fmt_folded = {
    "folded", ends_folded, "folded stacks (flamegraph.pl, speedscope)",
    vftr_sink_open_folded,
};

const struct vftr_sink_format *const vftr_sink_formats[] = {
    &fmt_otf, &fmt_otf2, &fmt_perfetto, &fmt_json, &fmt_folded, NULL,
};

const struct vftr_sink_format *vftr_sink_format_named(const char *name)
{
    for (size_t i = 0; name && vftr_sink_formats[i]; i++)
        if (strcmp(vftr_sink_formats[i]->name, name) == 0)
            return vftr_sink_formats[i];
    return NULL;
}

const struct vftr_sink_format *vftr_sink_format_for(const char *path)
{
    size_t l = path ? strlen(path) : 0;

    while (l > 1 && path[l - 1] == '/')      /* "run.otf2/" names the archive too */
        l--;
    for (size_t i = 0; vftr_sink_formats[i]; i++)
        for (const char *const *e = vftr_sink_formats[i]->ends; *e; e++) {
            size_t n = strlen(*e);

            if (l > n && strncmp(path + l - n, *e, n) == 0)
                return vftr_sink_formats[i];
        }
    return NULL;
}

struct vftr_sink *vftr_sink_new(const struct vftr_sink_ops *ops, void *impl,
                                const struct vftr_window_handler *h)
{
    struct vftr_sink *k = calloc(1, sizeof *k);

    if (!k) {
        errno = ENOMEM;
        return NULL;
    }
    k->ops = ops;
    k->impl = impl;
    k->h = *h;
    k->h.arg = impl;
    return k;
}

int vftr_sink_open(struct vftr_sink **out, const struct vftr_sink_format *f, const char *path,
                   struct vftr_source *src, const struct vftr_sink_opts *o, char *err,
                   size_t errlen)
{
    struct vftr_sink_opts dflt = { 0 };

    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    return f->open(out, path, src, o ? o : &dflt, err, errlen);
}

const struct vftr_window_handler *vftr_sink_handler(struct vftr_sink *k)
{
    return &k->h;
}

int vftr_sink_close(struct vftr_sink *k, char *err, size_t errlen)
{
    int rc = k->ops->close(k->impl, err, errlen);

    free(k);
    return rc;
}

void vftr_sink_abort(struct vftr_sink *k)
{
    if (!k)
        return;
    k->ops->abort(k->impl);
    free(k);
}

int vftr_sink_file_finish(FILE *f, const char *path, int rc, const char *why, char *err,
                          size_t errlen)
{
    if (rc == 0 && ferror(f))
        rc = -EIO;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    if (rc < 0) {
        vftr_errmsg(err, errlen, rc, "%s: %s", path,
                    why && why[0] ? why : rc == -ENOMEM ? "out of memory"
                                    : rc == -EIO ? "write error" : strerror(-rc));
        unlink(path);
    }
    return rc;
}

void vftr_sink_file_drop(FILE *f, const char *path)
{
    fclose(f);
    unlink(path);
}

const char *vftr_sink_func_name(const struct vftr_source *src, uint32_t f)
{
    const struct vftr_source_func *fn = vftr_source_func(src, f);

    return fn && fn->name ? fn->name : "";
}

/* ------------------------------------------------------------ feeding */

struct frame { uint32_t function; };
/* a process's open calls, and (in a window) its file operations begun in it */
struct pstack {
    uint32_t process;
    struct frame *v;
    size_t n, cap;
    uint64_t *ops;
    size_t nops, capops;
};

struct feed {
    const struct vftr_window_handler *h;     /* the sink's */
    uint64_t a, last;
    int window;                       /* track stacks to make the window nest */
    struct pstack *st;
    size_t nst, capst;
    struct vftr_u64map map;
    uint64_t events;
    int (*progress)(void *, uint64_t, uint64_t);
    void *parg;
};

static struct pstack *stack_of(struct feed *f, uint32_t process)
{
    long i = vftr_u64map_get(&f->map, process);

    if (i >= 0)
        return &f->st[i];
    if (vftr_reserve((void **)&f->st, &f->capst, f->nst, sizeof *f->st) < 0 ||
        vftr_u64map_put(&f->map, process, (uint32_t)f->nst) < 0)
        return NULL;
    f->st[f->nst] = (struct pstack){ process, NULL, 0, 0, NULL, 0, 0 };
    return &f->st[f->nst++];
}

/* Every event: its time, and now and then the progress callback (whose
 * non-zero value stops the read). */
static inline int tick(struct feed *f, uint64_t time)
{
    if (time > f->last)
        f->last = time;
    if ((++f->events & 0xffff) == 0 && f->progress)
        return f->progress(f->parg, time, f->events);
    return 0;
}

static int f_open_frame(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                        uint32_t depth)
{
    struct feed *f = arg;
    struct pstack *s = stack_of(f, process);

    (void)enter, (void)depth;
    if (!s || vftr_reserve((void **)&s->v, &s->cap, s->n, sizeof *s->v) < 0)
        return -ENOMEM;
    s->v[s->n++] = (struct frame){ function };
    return f->h->enter ? f->h->enter(f->h->arg, f->a, process, function) : 0;
}

static int f_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    if (f->window) {
        struct pstack *s = stack_of(f, process);

        if (!s || vftr_reserve((void **)&s->v, &s->cap, s->n, sizeof *s->v) < 0)
            return -ENOMEM;
        s->v[s->n++] = (struct frame){ function };
    }
    return f->h->enter ? f->h->enter(f->h->arg, time, process, function) : 0;
}

static int f_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    if (f->window) {
        struct pstack *s = stack_of(f, process);

        if (!s)
            return -ENOMEM;
        for (size_t k = s->n; k > 0; k--)
            if (s->v[k - 1].function == function) {
                s->n = k - 1;
                break;
            }
    }
    return f->h->leave ? f->h->leave(f->h->arg, time, process, function) : 0;
}

static int f_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->send ? f->h->send(f->h->arg, time, sender, receiver, comm, tag, length) : 0;
}

static int f_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->recv ? f->h->recv(f->h->arg, time, receiver, sender, comm, tag, length) : 0;
}

static int f_collop(void *arg, uint64_t time, uint32_t process, uint32_t op, uint32_t comm,
                    uint32_t root, uint64_t sent, uint64_t received, uint64_t duration)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->collop ? f->h->collop(f->h->arg, time, process, op, comm, root, sent, received,
                                       duration) : 0;
}

static int f_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t match,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->coll_begin ? f->h->coll_begin(f->h->arg, time, process, op, match, comm, root,
                                               sent, received) : 0;
}

static int f_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t match)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->coll_end ? f->h->coll_end(f->h->arg, time, process, match) : 0;
}

static int f_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->counter ? f->h->counter(f->h->arg, time, process, counter, value) : 0;
}

/* File operations: in a window, an operation whose begin lies before it
 * is left out (its end would have no begin); one still under way at the
 * window's end keeps its begin. */
static int f_file_begin(void *arg, uint64_t time, uint32_t process,
                        const struct vftr_window_fileop *op)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    if (f->window) {
        struct pstack *s = stack_of(f, process);

        if (!s || vftr_reserve((void **)&s->ops, &s->capops, s->nops, sizeof *s->ops) < 0)
            return -ENOMEM;
        s->ops[s->nops++] = op->matching_id;
    }
    return f->h->file_begin ? f->h->file_begin(f->h->arg, time, process, op) : 0;
}

static int f_file_end(void *arg, uint64_t time, uint32_t process,
                      const struct vftr_window_fileop *op)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    if (f->window) {
        struct pstack *s = stack_of(f, process);
        size_t k;

        if (!s)
            return -ENOMEM;
        for (k = s->nops; k > 0 && s->ops[k - 1] != op->matching_id; k--)
            ;
        if (k == 0)
            return 0;
        s->ops[k - 1] = s->ops[--s->nops];
    }
    return f->h->file_end ? f->h->file_end(f->h->arg, time, process, op) : 0;
}

static int f_fileop(void *arg, uint64_t time, uint32_t process,
                    const struct vftr_window_fileop *op)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->fileop ? f->h->fileop(f->h->arg, time, process, op) : 0;
}

static int f_rma(void *arg, uint64_t time, uint32_t process, const struct vftr_window_rma *r)
{
    struct feed *f = arg;
    int rc;

    if ((rc = tick(f, time)) != 0)
        return rc;
    return f->h->rma ? f->h->rma(f->h->arg, time, process, r) : 0;
}

static int cmp_pstack(const void *x, const void *y)
{
    const struct pstack *a = x, *b = y;

    return (a->process > b->process) - (a->process < b->process);
}

int vftr_sink_feed(struct vftr_sink *k, struct vftr_source *src, uint64_t a, uint64_t b,
                   const struct vftr_proclist *procs,
                   int (*progress)(void *arg, uint64_t time, uint64_t events), void *arg,
                   uint64_t *events, char *err, size_t errlen)
{
    const struct vftr_source_info *si = vftr_source_info(src);
    struct feed f = { .h = &k->h, .a = a, .progress = progress, .parg = arg };
    struct vftr_window_handler h = {
        .arg = &f, .open_frame = f_open_frame, .enter = f_enter, .leave = f_leave,
        .send = f_send, .recv = f_recv, .collop = f_collop, .coll_begin = f_coll_begin,
        .coll_end = f_coll_end, .counter = f_counter, .file_begin = f_file_begin,
        .file_end = f_file_end, .fileop = f_fileop, .rma = f_rma,
    };
    int rc;

    f.window = a > si->first || (b != UINT64_MAX && b <= si->last);
    f.last = a;
    rc = vftr_source_read(src, a, b, procs, f.window ? 0 : VFTR_SOURCE_EVENTS_ONLY, &h, NULL,
                          err, errlen);
    if (rc != 0 && k->ops->why && k->ops->why(k->impl)[0])
        rc = vftr_errmsg(err, errlen, rc < 0 ? rc : -EIO, "%s", k->ops->why(k->impl));
    if (rc > 0 || (rc < 0 && err && !err[0]))
        rc = vftr_errmsg(err, errlen, rc > 0 ? -EIO : rc, "%s",
                         rc == -ENOMEM ? "out of memory" : strerror(rc > 0 ? EIO : -rc));
    if (rc == 0 && f.window) {
        /* calls open at the window's end: left there, innermost first */
        uint64_t end = b != UINT64_MAX ? b : f.last;

        if (f.nst)
            qsort(f.st, f.nst, sizeof *f.st, cmp_pstack);
        for (size_t i = 0; i < f.nst && rc == 0; i++)
            for (size_t d = f.st[i].n; d > 0 && rc == 0 && k->h.leave; d--)
                rc = k->h.leave(k->h.arg, end, f.st[i].process, f.st[i].v[d - 1].function);
        if (rc != 0)
            rc = vftr_errmsg(err, errlen, rc < 0 ? rc : -EIO, "%s",
                             k->ops->why && k->ops->why(k->impl)[0] ? k->ops->why(k->impl)
                                                                   : strerror(EIO));
    }
    if (rc == 0 && progress)
        rc = progress(arg, f.last, f.events);
    if (events)
        *events = f.events;
    for (size_t i = 0; i < f.nst; i++) {
        free(f.st[i].v);
        free(f.st[i].ops);
    }
    free(f.st);
    vftr_u64map_release(&f.map);
    return rc;
}
