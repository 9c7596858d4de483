/*
 * snapshot.c — see snapshot.h.
 *
 * State per process: the call stack, the (process, function) statistics it
 * touched, open files, collective and file operations under way, counters,
 * collective counts per communicator and the summaries of messages,
 * collectives and files.  Small per-process lists are searched linearly
 * (a process has few open files, counters or communicators); what can grow
 * with the trace's width — functions, files, message peers — goes through
 * hash maps keyed by (process << 32 | id).
 *
 * Held-back snapshots: a break's snapshot is a block of records.  When
 * sends are in flight at the break, the block waits in a queue with a
 * count of them.  A send remembers the first block that saw it in flight;
 * it is in flight at every later break until it is received, so when its
 * receive comes, every block from that first one to the newest gets the
 * SendSnapshot record and one fewer to wait for.  Blocks leave the queue
 * in order, as soon as the oldest has nothing left to wait for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "snapshot.h"
#include "u64map.h"
#include "util/errmsg.h"
#include "util/timespec.h"

/* OTF_COLLECTIVE_TYPE_* and OTF_FILEOP_* (values fixed by the OTF spec;
 * lib/model does not include the OTF headers). */
enum { COLL_UNKNOWN, COLL_BARRIER, COLL_ONE2ALL, COLL_ALL2ONE, COLL_ALL2ALL };
enum { FOP_OPEN, FOP_CLOSE, FOP_READ, FOP_WRITE, FOP_SEEK };
#define FOP_BITS 0x1fu

struct frame {
    uint32_t fs;          /* index into s->fs */
    uint32_t scl;         /* the Enter's source location (0: none) */
    uint64_t enter;
};

struct funcstat {
    uint32_t function;
    uint64_t calls, excl, incl;
    uint64_t pexcl, pincl;      /* scratch: open calls' share at a break */
};

struct filestat {
    uint32_t file;
    uint64_t v[7];              /* open, close, read, write, seek, bytes read, written */
};

struct msgstat {
    uint32_t peer, comm, tag;
    uint64_t v[4];              /* sent, received, bytes sent, bytes received */
};

struct collstat {
    uint32_t op, comm;
    uint64_t v[4];
};

struct openfile {
    uint32_t file;
    uint64_t handle, time;
};

struct opbegin {
    uint64_t id, time;
    uint32_t op, comm, root;    /* collectives only */
    uint64_t sent, received;
};

struct counter {
    uint32_t counter;
    uint64_t value, time;
};

struct collcount {
    uint32_t comm;
    uint64_t count;
};

/* A growable array: VEC(T) name; */
#define VEC(T) struct { T *v; size_t n, cap; }

struct proc {
    uint32_t id;
    VEC(struct frame) stack;
    uint64_t last;              /* time of the last stack change */
    VEC(uint32_t) fs;           /* indices into s->fs, first touch order */
    VEC(uint32_t) files;        /* indices into s->files */
    VEC(uint32_t) msgs;         /* indices into s->msgs */
    VEC(struct collstat) colls;
    VEC(struct openfile) open;
    VEC(struct opbegin) collbegin;
    VEC(struct opbegin) filebegin;
    VEC(struct counter) counters;
    VEC(struct collcount) collcounts;
    uint32_t *thumb;            /* nsamples values, or NULL */
};

struct send {
    uint64_t time, length;
    uint32_t sender, receiver, comm, tag;
    uint64_t first_block;       /* sequence number of the first block, or NONE */
    uint32_t next;              /* next send of the channel (index + 1), or free list */
    uint32_t live_pos;          /* position in s->live */
};

struct channel {
    uint32_t comm, tag;
    uint32_t head, tail;        /* sends in flight, index + 1 */
    uint64_t waiting;           /* receives seen before their send */
};

struct chanlist {
    VEC(struct channel) ch;
};

struct block {
    uint64_t time;
    size_t waiting;             /* sends in flight not yet resolved */
    VEC(struct vftr_snaprec) recs;
};

#define NONE UINT64_MAX

struct vftr_snap {
    unsigned flags;
    uint64_t *breaks;
    size_t nbreaks, next_break;
    uint64_t snapshot_limit;
    uint64_t *samples;
    size_t nsamples, next_sample;
    vftr_snap_record_fn *on_record;
    void *arg;
    const volatile sig_atomic_t *stop;
    uint64_t max_records, emitted;
    uint32_t (*rank_of)(void *, uint32_t);  /* vftr_snap_config.rank_of */
    void *rank_arg;
    int error;                  /* sticky: a sink's error or -ENOMEM */
    int finished;
    uint64_t now;
    uint64_t next_due;          /* no break or sample is due before this time */
    size_t last_proc;           /* index of the last process looked up */

    VEC(struct proc) procs;
    struct vftr_u64map procmap;
    VEC(uint32_t) proc_ids;     /* for vftr_snap_thumb_processes */
    VEC(struct funcstat) fs;
    struct vftr_u64map fsmap;   /* process << 32 | function */
    VEC(struct filestat) files;
    struct vftr_u64map filemap; /* process << 32 | file */
    VEC(struct msgstat) msgs;
    struct vftr_u64map msgmap;  /* process << 32 | peer, detailed only: first of a chain */
    struct vftr_u64map funcgroup, filegroup, colltype;

    VEC(struct send) sends;
    uint32_t free_send;         /* index + 1 */
    VEC(uint32_t) live;         /* sends in flight */
    VEC(struct chanlist) chans;
    struct vftr_u64map chanmap; /* sender << 32 | receiver */
    uint64_t unreceived;

    VEC(struct block) blocks;   /* held back, oldest first from block_head */
    size_t block_head;
    uint64_t block_seq;         /* sequence number of blocks.v[block_head] */
    VEC(struct vftr_snaprec) scratch;
    struct vftr_u64map groupsum;      /* scratch: group -> index into groupvals */
    VEC(struct collstat) groupvals;   /* scratch */
};

/* Makes room for one more element; 0 or -ENOMEM. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 8;
    void *p = realloc(*v, c * size);
    if (!p)
        return -ENOMEM;
    *v = p;
    *cap = c;
    return 0;
}

#define PUSH(s, vec, item)                                                                     \
    (grow((void **)&(vec).v, &(vec).cap, (vec).n, sizeof *(vec).v) ? fail(s, -ENOMEM)          \
                                                                     : ((vec).v[(vec).n++] = (item), 0))

static int fail(struct vftr_snap *s, int rc)
{
    if (!s->error)
        s->error = rc;
    return rc;
}

static uint64_t key2(uint32_t a, uint32_t b)
{
    return (uint64_t)a << 32 | b;
}

static int copy_sorted(uint64_t **dst, const uint64_t *src, size_t n, int strict)
{
    if (n == 0)
        return 0;
    if (!src)
        return -EINVAL;
    for (size_t i = 1; i < n; i++)
        if (src[i] < src[i - 1] || (strict && src[i] == src[i - 1]))
            return -EINVAL;
    *dst = malloc(n * sizeof **dst);
    if (!*dst)
        return -ENOMEM;
    memcpy(*dst, src, n * sizeof **dst);
    return 0;
}

void vftr_snap_set_ranks(struct vftr_snap *s, uint32_t (*fn)(void *arg, uint32_t process),
                         void *arg)
{
    s->rank_of = fn;
    s->rank_arg = arg;
}

struct vftr_snap *vftr_snap_new(const struct vftr_snap_config *cfg)
{
    if (!cfg || !cfg->on_record) {
        errno = EINVAL;
        return NULL;
    }
    struct vftr_snap *s = calloc(1, sizeof *s);
    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    s->flags = cfg->flags;
    s->snapshot_limit = cfg->snapshot_limit;
    s->on_record = cfg->on_record;
    s->arg = cfg->arg;
    s->stop = cfg->stop;
    s->max_records = cfg->max_records;
    int rc = copy_sorted(&s->breaks, cfg->breaks, cfg->nbreaks, 1);
    if (rc == 0)
        rc = copy_sorted(&s->samples, cfg->samples, cfg->nsamples, 0);
    if (rc) {
        vftr_snap_free(s);
        errno = -rc;
        return NULL;
    }
    s->nbreaks = cfg->nbreaks;
    s->nsamples = cfg->nsamples;
    s->next_due = 0;           /* the first event computes it */
    return s;
}

static void proc_release(struct proc *p)
{
    free(p->stack.v);
    free(p->fs.v);
    free(p->files.v);
    free(p->msgs.v);
    free(p->colls.v);
    free(p->open.v);
    free(p->collbegin.v);
    free(p->filebegin.v);
    free(p->counters.v);
    free(p->collcounts.v);
    free(p->thumb);
}

void vftr_snap_free(struct vftr_snap *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->procs.n; i++)
        proc_release(&s->procs.v[i]);
    free(s->procs.v);
    free(s->proc_ids.v);
    free(s->fs.v);
    free(s->files.v);
    free(s->msgs.v);
    free(s->sends.v);
    free(s->live.v);
    for (size_t i = 0; i < s->chans.n; i++)
        free(s->chans.v[i].ch.v);
    free(s->chans.v);
    for (size_t i = 0; i < s->blocks.n; i++)
        free(s->blocks.v[i].recs.v);
    free(s->blocks.v);
    free(s->scratch.v);
    free(s->groupvals.v);
    vftr_u64map_release(&s->procmap);
    vftr_u64map_release(&s->fsmap);
    vftr_u64map_release(&s->filemap);
    vftr_u64map_release(&s->msgmap);
    vftr_u64map_release(&s->funcgroup);
    vftr_u64map_release(&s->filegroup);
    vftr_u64map_release(&s->colltype);
    vftr_u64map_release(&s->chanmap);
    vftr_u64map_release(&s->groupsum);
    free(s->breaks);
    free(s->samples);
    free(s);
}

static int def(struct vftr_snap *s, struct vftr_u64map *m, uint32_t key, uint32_t value)
{
    if (s->finished)
        return -EINVAL;
    if (value == UINT32_MAX)
        return -ERANGE;
    int rc = vftr_u64map_put(m, key, value);
    return rc ? fail(s, rc) : 0;
}

int vftr_snap_def_function(struct vftr_snap *s, uint32_t function, uint32_t group)
{
    return def(s, &s->funcgroup, function, group);
}

int vftr_snap_def_file(struct vftr_snap *s, uint32_t file, uint32_t group)
{
    return def(s, &s->filegroup, file, group);
}

int vftr_snap_def_collop(struct vftr_snap *s, uint32_t op, uint32_t type)
{
    return def(s, &s->colltype, op, type);
}

/* ---- emitting ------------------------------------------------------- */

/* A signal asked the tool to stop (checked per record and per break: a
 * break may emit many records, and held-back snapshots come out at once). */
static int stopped(struct vftr_snap *s)
{
    return s->stop && *s->stop ? fail(s, -EINTR) : 0;
}

static int emit(struct vftr_snap *s, const struct vftr_snaprec *r)
{
    if (s->error || stopped(s))
        return s->error;
    if (s->max_records && ++s->emitted > s->max_records)
        return fail(s, -EFBIG);
    int rc = s->on_record(s->arg, r);
    return rc ? fail(s, rc) : 0;
}

static int emit_block(struct vftr_snap *s, struct block *b)
{
    for (size_t i = 0; i < b->recs.n && !s->error; i++)
        emit(s, &b->recs.v[i]);
    return s->error;
}

/* Emits the held-back blocks that wait for nothing, oldest first. */
static int drain_blocks(struct vftr_snap *s)
{
    while (s->block_head < s->blocks.n && s->blocks.v[s->block_head].waiting == 0) {
        struct block *b = &s->blocks.v[s->block_head];
        emit_block(s, b);
        free(b->recs.v);
        b->recs.v = NULL;
        s->block_head++;
        s->block_seq++;
    }
    if (s->block_head == s->blocks.n) {
        s->blocks.n = 0;
        s->block_head = 0;
    }
    return s->error;
}

static struct vftr_snaprec rec(enum vftr_snaprec_kind kind, uint64_t time, uint32_t process)
{
    struct vftr_snaprec r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.time = time;
    r.process = process;
    return r;
}

/* Adds the snapshot records of process p at break t to s->scratch. */
static void snapshot_proc(struct vftr_snap *s, struct proc *p, uint64_t t)
{
    for (size_t i = 0; i < p->stack.n; i++) {
        struct vftr_snaprec r = rec(VFTR_SNAPREC_ENTER, t, p->id);
        r.id = s->fs.v[p->stack.v[i].fs].function;
        r.orig = p->stack.v[i].enter;
        r.a = p->stack.v[i].scl;
        PUSH(s, s->scratch, r);
    }
    for (size_t i = 0; i < p->open.n; i++) {
        struct vftr_snaprec r = rec(VFTR_SNAPREC_OPENFILE, t, p->id);
        r.id = p->open.v[i].file;
        r.v[0] = p->open.v[i].handle;
        r.orig = p->open.v[i].time;
        PUSH(s, s->scratch, r);
    }
    for (size_t i = 0; i < p->collbegin.n; i++) {
        const struct opbegin *o = &p->collbegin.v[i];
        struct vftr_snaprec r = rec(VFTR_SNAPREC_BEGINCOLLOP, t, p->id);
        r.id = o->op;
        r.a = o->comm;
        r.b = o->root;
        r.v[0] = o->id;
        r.v[1] = o->sent;
        r.v[2] = o->received;
        r.orig = o->time;
        PUSH(s, s->scratch, r);
    }
    for (size_t i = 0; i < p->filebegin.n; i++) {
        struct vftr_snaprec r = rec(VFTR_SNAPREC_BEGINFILEOP, t, p->id);
        r.v[0] = p->filebegin.v[i].id;
        r.orig = p->filebegin.v[i].time;
        PUSH(s, s->scratch, r);
    }
    for (size_t i = 0; i < p->collcounts.n; i++) {
        struct vftr_snaprec r = rec(VFTR_SNAPREC_COLLOPCOUNT, t, p->id);
        r.id = p->collcounts.v[i].comm;
        r.v[0] = p->collcounts.v[i].count;
        PUSH(s, s->scratch, r);
    }
    for (size_t i = 0; i < p->counters.n; i++) {
        struct vftr_snaprec r = rec(VFTR_SNAPREC_COUNTER, t, p->id);
        r.id = p->counters.v[i].counter;
        r.v[0] = p->counters.v[i].value;
        r.orig = p->counters.v[i].time;
        PUSH(s, s->scratch, r);
    }
}

static struct vftr_snaprec send_rec(const struct send *sd, uint64_t t)
{
    struct vftr_snaprec r = rec(VFTR_SNAPREC_SEND, t, sd->sender);
    r.id = sd->receiver;
    r.a = sd->comm;
    r.b = sd->tag;
    r.v[0] = sd->length;
    r.orig = sd->time;
    return r;
}

static int snapshot(struct vftr_snap *s, uint64_t t)
{
    s->scratch.n = 0;
    for (size_t i = 0; i < s->procs.n; i++)
        snapshot_proc(s, &s->procs.v[i], t);
    if (s->error)
        return s->error;
    if (s->live.n == 0 && s->block_head == s->blocks.n) {
        /* nothing in flight and nothing held back: straight out */
        for (size_t i = 0; i < s->scratch.n && !s->error; i++)
            emit(s, &s->scratch.v[i]);
        return s->error;
    }
    if (grow((void **)&s->blocks.v, &s->blocks.cap, s->blocks.n, sizeof *s->blocks.v))
        return fail(s, -ENOMEM);
    uint64_t seq = s->block_seq + (s->blocks.n - s->block_head);
    struct block *b = &s->blocks.v[s->blocks.n++];
    memset(b, 0, sizeof *b);
    b->time = t;
    b->waiting = s->live.n;
    /* the block takes the scratch records; scratch starts anew */
    b->recs.v = s->scratch.v;
    b->recs.n = s->scratch.n;
    b->recs.cap = s->scratch.cap;
    s->scratch.v = NULL;
    s->scratch.n = s->scratch.cap = 0;
    for (size_t i = 0; i < s->live.n; i++) {
        struct send *sd = &s->sends.v[s->live.v[i]];
        if (sd->first_block == NONE)
            sd->first_block = seq;
    }
    return drain_blocks(s);
}

/* A send in flight is resolved: received (the blocks that saw it get its
 * record) or never (finish). */
static void resolve(struct vftr_snap *s, struct send *sd, int received)
{
    if (sd->first_block == NONE)
        return;
    for (uint64_t q = sd->first_block; q < s->block_seq + (s->blocks.n - s->block_head); q++) {
        if (q < s->block_seq)
            continue;
        struct block *b = &s->blocks.v[s->block_head + (q - s->block_seq)];
        if (received)
            PUSH(s, b->recs, send_rec(sd, b->time));
        b->waiting--;
    }
}

static void sum_functions(struct vftr_snap *s, struct proc *p, uint64_t t)
{
    /* the open calls' share up to t */
    for (size_t i = 0; i < p->stack.n; i++)
        s->fs.v[p->stack.v[i].fs].pincl += t - p->stack.v[i].enter;
    if (p->stack.n)
        s->fs.v[p->stack.v[p->stack.n - 1].fs].pexcl += t - p->last;

    int groups = (s->flags & (VFTR_SNAP_FUNCGROUPS | VFTR_SNAP_DETAILED)) != 0;
    int funcs = !(s->flags & VFTR_SNAP_FUNCGROUPS) || (s->flags & VFTR_SNAP_DETAILED);
    s->groupvals.n = 0;
    vftr_u64map_release(&s->groupsum);
    for (size_t i = 0; i < p->fs.n; i++) {
        struct funcstat *f = &s->fs.v[p->fs.v[i]];
        uint64_t excl = f->excl + f->pexcl, incl = f->incl + f->pincl;
        f->pexcl = f->pincl = 0;
        if (funcs) {
            struct vftr_snaprec r = rec(VFTR_SNAPREC_FUNCTION, t, p->id);
            r.id = f->function;
            r.v[0] = f->calls;
            r.v[1] = excl;
            r.v[2] = incl;
            emit(s, &r);
        }
        if (groups) {
            long g = vftr_u64map_get(&s->funcgroup, f->function);
            uint32_t group = g < 0 ? 0 : (uint32_t)g;
            long k = vftr_u64map_get(&s->groupsum, group);
            if (k < 0) {
                struct collstat c = { group, 0, { 0, 0, 0, 0 } };
                k = (long)s->groupvals.n;
                if (PUSH(s, s->groupvals, c) || vftr_u64map_put(&s->groupsum, group, (uint32_t)k)) {
                    fail(s, -ENOMEM);
                    return;
                }
            }
            s->groupvals.v[k].v[0] += f->calls;
            s->groupvals.v[k].v[1] += excl;
            s->groupvals.v[k].v[2] += incl;
        }
    }
    for (size_t i = 0; groups && i < s->groupvals.n; i++) {
        struct vftr_snaprec r = rec(VFTR_SNAPREC_FUNCGROUP, t, p->id);
        r.id = s->groupvals.v[i].op;
        memcpy(r.v, s->groupvals.v[i].v, 3 * sizeof r.v[0]);
        emit(s, &r);
    }
}

static void sum_files(struct vftr_snap *s, struct proc *p, uint64_t t)
{
    int groups = (s->flags & (VFTR_SNAP_FILEGROUPS | VFTR_SNAP_DETAILED)) != 0;
    int files = !(s->flags & VFTR_SNAP_FILEGROUPS) || (s->flags & VFTR_SNAP_DETAILED);
    /* group sums: one pass over the process's files per group, the first
     * file of each group starting it (few groups, few files per process) */
    for (size_t i = 0; files && i < p->files.n; i++) {
        const struct filestat *f = &s->files.v[p->files.v[i]];
        struct vftr_snaprec r = rec(VFTR_SNAPREC_FILEOP, t, p->id);
        r.id = f->file;
        memcpy(r.v, f->v, sizeof r.v);
        emit(s, &r);
    }
    if (!groups)
        return;
    for (size_t i = 0; i < p->files.n; i++) {
        long g = vftr_u64map_get(&s->filegroup, s->files.v[p->files.v[i]].file);
        uint32_t group = g < 0 ? 0 : (uint32_t)g;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            long h = vftr_u64map_get(&s->filegroup, s->files.v[p->files.v[j]].file);
            seen = (h < 0 ? 0 : (uint32_t)h) == group;
        }
        if (seen)
            continue;
        struct vftr_snaprec r = rec(VFTR_SNAPREC_FILEGROUP, t, p->id);
        r.id = group;
        for (size_t j = i; j < p->files.n; j++) {
            const struct filestat *f = &s->files.v[p->files.v[j]];
            long h = vftr_u64map_get(&s->filegroup, f->file);
            if ((h < 0 ? 0 : (uint32_t)h) != group)
                continue;
            for (int k = 0; k < 7; k++)
                r.v[k] += f->v[k];
        }
        emit(s, &r);
    }
}

static void summaries(struct vftr_snap *s, uint64_t t)
{
    for (size_t i = 0; i < s->procs.n && !s->error; i++) {
        struct proc *p = &s->procs.v[i];
        sum_functions(s, p, t);
        for (size_t j = 0; j < p->msgs.n; j++) {
            const struct msgstat *m = &s->msgs.v[p->msgs.v[j]];
            struct vftr_snaprec r = rec(VFTR_SNAPREC_MESSAGE, t, p->id);
            r.id = m->peer;
            r.a = m->comm;
            r.b = m->tag;
            memcpy(r.v, m->v, sizeof m->v);
            emit(s, &r);
        }
        for (size_t j = 0; j < p->colls.n; j++) {
            struct vftr_snaprec r = rec(VFTR_SNAPREC_COLLOP, t, p->id);
            r.id = p->colls.v[j].op;
            r.a = p->colls.v[j].comm;
            memcpy(r.v, p->colls.v[j].v, sizeof p->colls.v[j].v);
            emit(s, &r);
        }
        sum_files(s, p, t);
    }
}

static void take_sample(struct vftr_snap *s, size_t k)
{
    for (size_t i = 0; i < s->procs.n; i++) {
        struct proc *p = &s->procs.v[i];
        if (p->thumb && p->stack.n)
            p->thumb[k] = s->fs.v[p->stack.v[p->stack.n - 1].fs].function;
    }
}

/* Produces the breaks before t (b <= t: an event at b is not part of b's
 * state) and the samples before t (s < t: an event at s is). */
static int advance_slow(struct vftr_snap *s, uint64_t t)
{
    while (s->next_sample < s->nsamples && s->samples[s->next_sample] < t)
        take_sample(s, s->next_sample++);
    while (s->next_break < s->nbreaks && s->breaks[s->next_break] <= t && !s->error &&
           !stopped(s)) {
        uint64_t b = s->breaks[s->next_break++];
        if (s->flags & VFTR_SNAP_SUMMARIES)
            summaries(s, b);
        if ((s->flags & VFTR_SNAP_SNAPSHOTS) && b < s->snapshot_limit)
            snapshot(s, b);
    }
    if (t > s->now && t != UINT64_MAX)
        s->now = t;
    /* the next time that needs this function: a break b is due at t >= b,
     * a sample at t > sample */
    s->next_due = UINT64_MAX;
    if (s->next_break < s->nbreaks)
        s->next_due = s->breaks[s->next_break];
    if (s->next_sample < s->nsamples && s->samples[s->next_sample] < s->next_due)
        s->next_due = s->samples[s->next_sample] + 1;
    return s->error;
}

/* The per-event fast path: nothing due, nothing wrong. */
static inline int advance(struct vftr_snap *s, uint64_t t)
{
    if (s->error)
        return s->error;
    if (s->finished)
        return -EINVAL;
    if (t < s->next_due)
        return 0;
    return advance_slow(s, t);
}

static struct proc *get_proc(struct vftr_snap *s, uint32_t id)
{
    /* events often come in runs of one process */
    if (s->last_proc < s->procs.n && s->procs.v[s->last_proc].id == id)
        return &s->procs.v[s->last_proc];
    long i = vftr_u64map_get(&s->procmap, id);
    if (i >= 0) {
        s->last_proc = (size_t)i;
        return &s->procs.v[i];
    }
    struct proc p;
    memset(&p, 0, sizeof p);
    p.id = id;
    if (s->nsamples) {
        p.thumb = calloc(s->nsamples, sizeof *p.thumb);
        if (!p.thumb) {
            fail(s, -ENOMEM);
            return NULL;
        }
    }
    if (PUSH(s, s->procs, p) || PUSH(s, s->proc_ids, id)
        || vftr_u64map_put(&s->procmap, id, (uint32_t)(s->procs.n - 1))) {
        fail(s, -ENOMEM);
        return NULL;
    }
    return &s->procs.v[s->procs.n - 1];
}

/* Every feeding function starts here: breaks before t, then the process. */
static struct proc *begin(struct vftr_snap *s, uint64_t t, uint32_t process, int *rc)
{
    *rc = advance(s, t);
    if (*rc)
        return NULL;
    struct proc *p = get_proc(s, process);
    if (!p)
        *rc = s->error;
    return p;
}

/* Time on top of the stack up to t goes to the top function. */
static void charge(struct vftr_snap *s, struct proc *p, uint64_t t)
{
    if (p->stack.n && t > p->last)
        s->fs.v[p->stack.v[p->stack.n - 1].fs].excl += t - p->last;
    if (t > p->last)
        p->last = t;
}

int vftr_snap_enter(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t function)
{
    return vftr_snap_enter_scl(s, time, process, function, 0);
}

int vftr_snap_enter_scl(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t function,
                        uint32_t scl)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    long i = vftr_u64map_get(&s->fsmap, key2(process, function));
    if (i < 0) {
        struct funcstat f = { function, 0, 0, 0, 0, 0 };
        i = (long)s->fs.n;
        if (PUSH(s, s->fs, f) || vftr_u64map_put(&s->fsmap, key2(process, function), (uint32_t)i)
            || PUSH(s, p->fs, (uint32_t)i))
            return fail(s, -ENOMEM);
    }
    charge(s, p, time);
    s->fs.v[i].calls++;
    struct frame fr = { (uint32_t)i, scl, time };
    return PUSH(s, p->stack, fr);
}

int vftr_snap_leave(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t function)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    if (p->stack.n == 0)
        return 0;
    /* the function left: the top, or the nearest frame of it (closing
     * the ones above); unknown functions are ignored */
    size_t k = p->stack.n;
    if (function != 0) {
        while (k > 0 && s->fs.v[p->stack.v[k - 1].fs].function != function)
            k--;
        if (k == 0)
            return 0;
    }
    charge(s, p, time);
    while (p->stack.n >= k) {
        struct frame *fr = &p->stack.v[--p->stack.n];
        if (time > fr->enter)
            s->fs.v[fr->fs].incl += time - fr->enter;
    }
    return 0;
}

static struct msgstat *msgstat(struct vftr_snap *s, struct proc *p, uint32_t peer, uint32_t comm,
                               uint32_t tag)
{
    int detailed = (s->flags & VFTR_SNAP_DETAILED) != 0;
    if (!detailed) {
        if (p->msgs.n)
            return &s->msgs.v[p->msgs.v[0]];
        peer = comm = tag = 0;
    } else {
        /* per (process, peer) a short list of (comm, tag) in p->msgs */
        for (size_t i = 0; i < p->msgs.n; i++) {
            struct msgstat *m = &s->msgs.v[p->msgs.v[i]];
            if (m->peer == peer && m->comm == comm && m->tag == tag)
                return m;
        }
    }
    struct msgstat m = { peer, comm, tag, { 0, 0, 0, 0 } };
    if (PUSH(s, s->msgs, m) || PUSH(s, p->msgs, (uint32_t)(s->msgs.n - 1)))
        return NULL;
    return &s->msgs.v[s->msgs.n - 1];
}

/* The channel of a message: of its processes, or of their ranks when the
 * trace's peers may name only a rank (vftr_snap_config.rank_of). */
static struct channel *channel(struct vftr_snap *s, uint32_t sender, uint32_t receiver,
                               uint32_t comm, uint32_t tag)
{
    if (s->rank_of) {
        sender = s->rank_of(s->rank_arg, sender);
        receiver = s->rank_of(s->rank_arg, receiver);
    }
    long i = vftr_u64map_get(&s->chanmap, key2(sender, receiver));
    if (i < 0) {
        struct chanlist cl;
        memset(&cl, 0, sizeof cl);
        i = (long)s->chans.n;
        if (PUSH(s, s->chans, cl) || vftr_u64map_put(&s->chanmap, key2(sender, receiver), (uint32_t)i)) {
            fail(s, -ENOMEM);
            return NULL;
        }
    }
    struct chanlist *cl = &s->chans.v[i];
    for (size_t k = 0; k < cl->ch.n; k++)
        if (cl->ch.v[k].comm == comm && cl->ch.v[k].tag == tag)
            return &cl->ch.v[k];
    struct channel c = { comm, tag, 0, 0, 0 };
    if (PUSH(s, cl->ch, c))
        return NULL;
    return &cl->ch.v[cl->ch.n - 1];
}

/*
 * What a send and a receive have in common: the process's message summary
 * (at its own side: sent or received), then, when snapshots are made, the
 * channel of (sender, receiver, comm, tag).  Returns the channel, or NULL
 * with *rc = 0 (no snapshots) or an error.
 */
static struct channel *message(struct vftr_snap *s, uint64_t time, uint32_t sender,
                               uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t length,
                               int is_recv, int *rc)
{
    uint32_t self = is_recv ? receiver : sender, peer = is_recv ? sender : receiver;
    struct proc *p = begin(s, time, self, rc);
    if (!p)
        return NULL;
    struct msgstat *m = msgstat(s, p, peer, comm, tag);
    if (!m) {
        *rc = fail(s, -ENOMEM);
        return NULL;
    }
    m->v[is_recv]++;
    m->v[2 + is_recv] += length;
    *rc = 0;
    if (!(s->flags & VFTR_SNAP_SNAPSHOTS))
        return NULL;
    struct channel *c = channel(s, sender, receiver, comm, tag);
    if (!c)
        *rc = fail(s, -ENOMEM);
    return c;
}

int vftr_snap_send(struct vftr_snap *s, uint64_t time, uint32_t sender, uint32_t receiver,
                   uint32_t comm, uint32_t tag, uint64_t length)
{
    int rc;
    struct channel *c = message(s, time, sender, receiver, comm, tag, length, 0, &rc);
    if (!c)
        return rc;
    if (c->waiting) {
        c->waiting--;      /* its receive came first */
        return 0;
    }
    uint32_t idx;
    if (s->free_send) {
        idx = s->free_send - 1;
        s->free_send = s->sends.v[idx].next;
    } else {
        struct send blank;
        memset(&blank, 0, sizeof blank);
        if (PUSH(s, s->sends, blank))
            return s->error;
        idx = (uint32_t)(s->sends.n - 1);     /* c stays valid: channels are elsewhere */
    }
    struct send *sd = &s->sends.v[idx];
    sd->time = time;
    sd->length = length;
    sd->sender = sender;
    sd->receiver = receiver;
    sd->comm = comm;
    sd->tag = tag;
    sd->first_block = NONE;
    sd->next = 0;
    sd->live_pos = (uint32_t)s->live.n;
    if (PUSH(s, s->live, idx))
        return s->error;
    if (c->tail)
        s->sends.v[c->tail - 1].next = idx + 1;
    else
        c->head = idx + 1;
    c->tail = idx + 1;
    return 0;
}

/* Takes send idx out of the live set and puts it on the free list. */
static void retire_send(struct vftr_snap *s, uint32_t idx)
{
    struct send *sd = &s->sends.v[idx];
    uint32_t last = s->live.v[--s->live.n];
    if (last != idx) {
        s->live.v[sd->live_pos] = last;
        s->sends.v[last].live_pos = sd->live_pos;
    }
    sd->next = s->free_send;
    s->free_send = idx + 1;
}

int vftr_snap_recv(struct vftr_snap *s, uint64_t time, uint32_t receiver, uint32_t sender,
                   uint32_t comm, uint32_t tag, uint64_t length)
{
    int rc;
    struct channel *c = message(s, time, sender, receiver, comm, tag, length, 1, &rc);
    if (!c)
        return rc;
    if (!c->head) {
        c->waiting++;
        return 0;
    }
    uint32_t idx = c->head - 1;
    struct send *sd = &s->sends.v[idx];
    c->head = sd->next;
    if (!c->head)
        c->tail = 0;
    resolve(s, sd, 1);
    retire_send(s, idx);
    return drain_blocks(s);
}

static void count_coll(struct vftr_snap *s, struct proc *p, uint32_t op, uint32_t comm, uint32_t root,
                       uint64_t sent, uint64_t received)
{
    long ty = vftr_u64map_get(&s->colltype, op);
    int is_root = root == p->id;
    uint64_t ns = 0, nr = 0;
    switch (ty < 0 ? COLL_UNKNOWN : ty) {
    case COLL_BARRIER: ns = 1; break;
    case COLL_ONE2ALL: nr = 1; ns = is_root; break;
    case COLL_ALL2ONE: ns = 1; nr = is_root; break;
    case COLL_ALL2ALL: ns = nr = 1; break;
    default: break;
    }
    uint32_t sumcomm = (s->flags & VFTR_SNAP_DETAILED) ? comm : 0;
    struct collstat *c = NULL;
    for (size_t i = 0; i < p->colls.n && !c; i++)
        if (p->colls.v[i].op == op && p->colls.v[i].comm == sumcomm)
            c = &p->colls.v[i];
    if (!c) {
        struct collstat z = { op, sumcomm, { 0, 0, 0, 0 } };
        if (PUSH(s, p->colls, z))
            return;
        c = &p->colls.v[p->colls.n - 1];
    }
    c->v[0] += ns;
    c->v[1] += nr;
    c->v[2] += sent;
    c->v[3] += received;
    for (size_t i = 0; i < p->collcounts.n; i++)
        if (p->collcounts.v[i].comm == comm) {
            p->collcounts.v[i].count++;
            return;
        }
    struct collcount cc = { comm, 1 };
    PUSH(s, p->collcounts, cc);
}

int vftr_snap_collop(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t op,
                     uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    count_coll(s, p, op, comm, root, sent, received);
    return s->error;
}

int vftr_snap_collop_begin(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t op,
                           uint64_t matching_id, uint32_t comm, uint32_t root, uint64_t sent,
                           uint64_t received)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    struct opbegin o = { matching_id, time, op, comm, root, sent, received };
    return PUSH(s, p->collbegin, o);
}

static long find_begin(const struct opbegin *v, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id)
            return (long)i;
    return -1;
}

int vftr_snap_collop_end(struct vftr_snap *s, uint64_t time, uint32_t process,
                         uint64_t matching_id)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    long i = find_begin(p->collbegin.v, p->collbegin.n, matching_id);
    if (i < 0)
        return 0;
    struct opbegin o = p->collbegin.v[i];
    memmove(&p->collbegin.v[i], &p->collbegin.v[i + 1], (p->collbegin.n - (size_t)i - 1) * sizeof o);
    p->collbegin.n--;
    count_coll(s, p, o.op, o.comm, o.root, o.sent, o.received);
    return s->error;
}

static void count_file(struct vftr_snap *s, struct proc *p, uint64_t time, uint32_t file,
                       uint64_t handle, uint32_t operation, uint64_t bytes)
{
    uint32_t op = operation & FOP_BITS;
    if (op > FOP_SEEK)
        return;
    long i = vftr_u64map_get(&s->filemap, key2(p->id, file));
    if (i < 0) {
        struct filestat f;
        memset(&f, 0, sizeof f);
        f.file = file;
        i = (long)s->files.n;
        if (PUSH(s, s->files, f) || vftr_u64map_put(&s->filemap, key2(p->id, file), (uint32_t)i)
            || PUSH(s, p->files, (uint32_t)i)) {
            fail(s, -ENOMEM);
            return;
        }
    }
    struct filestat *f = &s->files.v[i];
    f->v[op]++;
    if (op == FOP_READ)
        f->v[5] += bytes;
    else if (op == FOP_WRITE)
        f->v[6] += bytes;
    if (op == FOP_OPEN) {
        /* files are known by handle: an open of a handle already open
         * replaces it (as otfaux does) */
        struct openfile o = { file, handle, time };
        for (size_t k = 0; k < p->open.n; k++)
            if (p->open.v[k].handle == handle) {
                p->open.v[k] = o;
                return;
            }
        PUSH(s, p->open, o);
    } else if (op == FOP_CLOSE) {
        for (size_t k = 0; k < p->open.n; k++)
            if (p->open.v[k].handle == handle) {
                memmove(&p->open.v[k], &p->open.v[k + 1], (p->open.n - k - 1) * sizeof p->open.v[0]);
                p->open.n--;
                break;
            }
    }
}

int vftr_snap_fileop(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t file,
                     uint64_t handle, uint32_t operation, uint64_t bytes)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    count_file(s, p, time, file, handle, operation, bytes);
    return s->error;
}

int vftr_snap_fileop_begin(struct vftr_snap *s, uint64_t time, uint32_t process,
                           uint64_t matching_id)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    struct opbegin o = { matching_id, time, 0, 0, 0, 0, 0 };
    return PUSH(s, p->filebegin, o);
}

int vftr_snap_fileop_end(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t file,
                         uint64_t matching_id, uint64_t handle, uint32_t operation,
                         uint64_t bytes)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    long i = find_begin(p->filebegin.v, p->filebegin.n, matching_id);
    if (i >= 0) {
        memmove(&p->filebegin.v[i], &p->filebegin.v[i + 1],
                (p->filebegin.n - (size_t)i - 1) * sizeof p->filebegin.v[0]);
        p->filebegin.n--;
    }
    count_file(s, p, time, file, handle, operation, bytes);
    return s->error;
}

int vftr_snap_counter(struct vftr_snap *s, uint64_t time, uint32_t process, uint32_t counter,
                      uint64_t value)
{
    int rc;
    struct proc *p = begin(s, time, process, &rc);
    if (!p)
        return rc;
    for (size_t i = 0; i < p->counters.n; i++)
        if (p->counters.v[i].counter == counter) {
            p->counters.v[i].value = value;
            p->counters.v[i].time = time;
            return 0;
        }
    struct counter c = { counter, value, time };
    return PUSH(s, p->counters, c);
}

int vftr_snap_finish(struct vftr_snap *s)
{
    int rc = advance(s, UINT64_MAX);
    if (rc)
        return rc;
    /* the remaining samples (at UINT64_MAX itself, if anyone asks) */
    while (s->next_sample < s->nsamples)
        take_sample(s, s->next_sample++);
    s->finished = 1;
    /* sends never received: in no snapshot */
    s->unreceived = s->live.n;
    while (s->live.n) {
        uint32_t idx = s->live.v[s->live.n - 1];
        resolve(s, &s->sends.v[idx], 0);
        retire_send(s, idx);
    }
    return drain_blocks(s);
}

const uint32_t *vftr_snap_thumb_processes(const struct vftr_snap *s, size_t *n)
{
    *n = s->proc_ids.n;
    return s->proc_ids.v;
}

const uint32_t *vftr_snap_thumb_values(const struct vftr_snap *s, size_t i)
{
    return i < s->procs.n ? s->procs.v[i].thumb : NULL;
}

uint64_t vftr_snap_unreceived(const struct vftr_snap *s)
{
    return s->unreceived;
}

/* -- break placement --------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct u64vec {
    uint64_t *v;
    size_t n, cap;
};

static int u64_push(struct u64vec *b, uint64_t x)
{
    return grow((void **)&b->v, &b->cap, b->n, sizeof *b->v) ? -ENOMEM : (b->v[b->n++] = x, 0);
}

static int place_fail(struct u64vec *b, int rc, char *err, size_t errlen, const char *what,
                      const char *msg)
{
    free(b->v);
    if (err && errlen)
        snprintf(err, errlen, "%s%s", what, msg);
    return rc;
}

/* a * b, or UINT64_MAX when it does not fit */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Ticks from first to one past last: the times a break can take. */
static uint64_t span_ticks(const struct vftr_snap_traceinfo *t)
{
    uint64_t d = t->last >= t->first ? t->last - t->first : 0;
    return add_sat(d, 1);
}

uint64_t vftr_snap_max_breaks(const struct vftr_snap_traceinfo *t)
{
    uint64_t m = span_ticks(t);
    if (t->max_times && t->max_times < m)
        m = t->max_times;
    if (m > VFTR_SNAP_MAX_BREAKS)
        m = VFTR_SNAP_MAX_BREAKS;
    return m ? m : 1;
}

/* Why the bound is what it is, for the message. */
static void bound_reason(const struct vftr_snap_traceinfo *t, uint64_t max, char *buf, size_t len)
{
    if (max == span_ticks(t))
        snprintf(buf, len, "its events span %" PRIu64 " tick%s, and two breaks on one tick are one",
                 max, max == 1 ? "" : "s");
    else if (t->max_times && max == t->max_times)
        snprintf(buf, len, "it has at most %" PRIu64 " distinct event times, and breaks between two "
                 "of them show the same state", max);
    else
        snprintf(buf, len, "the most a break list may hold");
}

/* One tick of the trace as a duration ("1 ns", "1 us", "2.5 ms"). */
static void tick_length(uint64_t resolution, char *buf, size_t len)
{
    if (!resolution) {
        snprintf(buf, len, "of unknown length");
        return;
    }
    double ns = 1e9 / (double)resolution;
    if (ns >= 1e9)
        snprintf(buf, len, "%g s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%g ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, len, "%g us", ns / 1e3);
    else
        snprintf(buf, len, "%g ns", ns);
}

int vftr_snap_place_breaks(const struct vftr_snap_breakspec *spec,
                           const struct vftr_snap_traceinfo *t, uint64_t **breaks, size_t *nbreaks,
                           char *err, size_t errlen)
{
    struct vftr_timebase base = { t->resolution, t->first }, zero = { t->resolution, 0 };
    struct u64vec b = { NULL, 0, 0 };
    char msg[VFTR_ERRMSG_MAX], why[160];
    uint64_t first = t->first, last = t->last;
    uint64_t end = last + 1, range = end - first, period = 0, n = spec->n;
    int asked = spec->n || spec->period || spec->ntimes;

    if (last < first)
        return place_fail(&b, -EBADMSG, err, errlen, "", "the last event precedes the first");
    if (spec->period) {
        if (vftr_time_parse(spec->period, &zero, &period, msg, sizeof msg))
            return place_fail(&b, -EINVAL, err, errlen, "--period: ", msg);
        if (period == 0) {
            tick_length(t->resolution, why, sizeof why);
            snprintf(msg, sizeof msg, "--period %.64s: shorter than one tick of the trace (%s)",
                     spec->period, why);
            return place_fail(&b, -ERANGE, err, errlen, "", msg);
        }
    }
    if (!asked)
        n = VFTR_SNAP_DEFAULT_BREAKS;
    uint64_t by_period = period ? (range - 1) / period : 0;
    int use_n = n && n >= by_period;
    /* checked before anything is allocated: a runaway -n must cost nothing */
    uint64_t max = vftr_snap_max_breaks(t), count = use_n ? n : by_period + 1;
    if (asked && count > max) {
        bound_reason(t, max, why, sizeof why);
        if (use_n)
            snprintf(msg, sizeof msg, "-n %" PRIu64 " asks for more breaks than the trace can "
                     "hold: at most %" PRIu64 " (%s)", n, max, why);
        else
            snprintf(msg, sizeof msg, "--period %.64s gives %" PRIu64 " breaks, more than the trace can "
                     "hold: at most %" PRIu64 " (%s)", spec->period, count, max, why);
        return place_fail(&b, -ERANGE, err, errlen, "", msg);
    }
    if (use_n) {
        /* summed up step by step, in doubles: otfaux's rounding */
        double step = (double)range / (double)n, x = (double)first;
        for (uint64_t i = 1; i <= n; i++) {
            x += step;
            if (u64_push(&b, (uint64_t)x))
                return place_fail(&b, -ENOMEM, err, errlen, "", "out of memory");
        }
    } else {
        for (uint64_t k = 1; k <= by_period; k++)
            if (u64_push(&b, first + k * period))
                return place_fail(&b, -ENOMEM, err, errlen, "", "out of memory");
    }
    for (size_t i = 0; i < spec->ntimes; i++) {
        uint64_t x;
        /* counted from the first event, bare ticks as a duration with a
         * unit (the time syntax of every tool, lib/util/timespec.h); the
         * one time parser refuses what does not fit 64 bits */
        if (vftr_time_parse(spec->times[i], &base, &x, msg, sizeof msg))
            return place_fail(&b, -EINVAL, err, errlen, "--at: ", msg);
        if (u64_push(&b, x))
            return place_fail(&b, -ENOMEM, err, errlen, "", "out of memory");
    }
    if (u64_push(&b, end))
        return place_fail(&b, -ENOMEM, err, errlen, "", "out of memory");
    qsort(b.v, b.n, sizeof *b.v, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < b.n; i++)
        if (k == 0 || b.v[i] != b.v[k - 1])
            b.v[k++] = b.v[i];
    if (asked && k > max) {
        /* --at times on top of a list that fits */
        bound_reason(t, max, why, sizeof why);
        snprintf(msg, sizeof msg, "%zu breaks (-n or --period and --at together, the final one included) "
                 "are more than the trace can hold: at most %" PRIu64 " (%s)", k, max, why);
        return place_fail(&b, -ERANGE, err, errlen, "", msg);
    }
    *breaks = b.v;
    *nbreaks = k;
    return 0;
}

/* -- the size estimate ------------------------------------------------------ */

/* Bytes per record in OTF's short format, measured on snapgen's traces
 * (vftr-snap --all: .stats bytes / summary records, .snaps bytes /
 * snapshot records); zlib about halves them. */
#define EST_SUMMARY_BYTES 24u
#define EST_SNAPSHOT_BYTES 13u
#define EST_THUMB_BYTES 3u      /* "f," per sample and process */
#define EST_DEPTH 8u            /* the stack depth guessed for EnterSnapshots */

void vftr_snap_estimate(const struct vftr_snap_traceinfo *t, unsigned flags,
                        const uint64_t *breaks, size_t nbreaks, size_t nsamples,
                        struct vftr_snap_estimate *e)
{
    uint64_t procs = t->processes ? t->processes : 1, sum = 0, snap = 0;
    int detailed = (flags & VFTR_SNAP_DETAILED) != 0;
    if (flags & VFTR_SNAP_SUMMARIES) {
        int fgroups = (flags & VFTR_SNAP_FUNCGROUPS) || detailed;
        int funcs = !(flags & VFTR_SNAP_FUNCGROUPS) || detailed;
        int figroups = (flags & VFTR_SNAP_FILEGROUPS) || detailed;
        int files = !(flags & VFTR_SNAP_FILEGROUPS) || detailed;
        sum = (funcs ? t->functions : 0) + (fgroups ? (t->funcgroups ? t->funcgroups : 1) : 0);
        sum += 1 + t->collops;  /* the message summary, the collectives */
        if (t->files)
            sum += (files ? t->files : 0) + (figroups ? (t->filegroups ? t->filegroups : 1) : 0);
    }
    if (flags & VFTR_SNAP_SNAPSHOTS)
        snap = (t->functions < EST_DEPTH ? t->functions : EST_DEPTH) + t->files + t->counters + 1;
    size_t nsnap = 0;           /* no snapshot at the final break, after the last event */
    for (size_t i = 0; i < nbreaks && (flags & VFTR_SNAP_SNAPSHOTS); i++)
        nsnap += breaks[i] <= t->last;
    uint64_t nsum = mul_sat(mul_sat(nbreaks, procs), sum);
    uint64_t nsn = mul_sat(mul_sat(nsnap, procs), snap);
    unsigned div = t->compressed ? 2 : 1;
    e->records = add_sat(nsum, nsn);
    e->per_break = mul_sat(procs, sum + snap);
    e->bytes = add_sat(mul_sat(nsum, EST_SUMMARY_BYTES) / div, mul_sat(nsn, EST_SNAPSHOT_BYTES) / div);
    if (flags & VFTR_SNAP_SNAPSHOTS)
        e->bytes = add_sat(e->bytes, mul_sat(mul_sat(nsamples, procs), EST_THUMB_BYTES));
}

uint64_t vftr_snap_output_limit(uint64_t trace_bytes)
{
    uint64_t l = mul_sat(trace_bytes, VFTR_SNAP_LIMIT_RATIO);
    return l > VFTR_SNAP_LIMIT_FLOOR ? l : VFTR_SNAP_LIMIT_FLOOR;
}

/* "1.5 GiB" */
static const char *size_str(uint64_t n, char *buf, size_t len)
{
    static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    double x = (double)n;
    unsigned u = 0;
    while (x >= 1024 && u + 1 < sizeof unit / sizeof unit[0]) {
        x /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%" PRIu64 " bytes", n);
    else
        snprintf(buf, len, "%.1f %s", x, unit[u]);
    return buf;
}

int vftr_snap_plan_overflow(const struct vftr_snap_plan *p, char *err, size_t errlen)
{
    return vftr_errmsg(err, errlen, -EFBIG, "the snapshots and summaries grew past %" PRIu64
                       " records, the most the size limit allows (%" PRIu64 " were estimated): "
                       "ask for fewer breaks, or use --force", p->max_records,
                       p->estimate.records);
}

void vftr_snap_plan_release(struct vftr_snap_plan *p)
{
    free(p->breaks);
    free(p->samples);
    memset(p, 0, sizeof *p);
}

int vftr_snap_plan_make(const struct vftr_snap_request *rq, const struct vftr_snap_traceinfo *t,
                        struct vftr_snap_plan *p, char *err, size_t errlen)
{
    char a[32], b[32], c[32], d[32];
    memset(p, 0, sizeof *p);
    int rc = vftr_snap_place_breaks(&rq->breaks, t, &p->breaks, &p->nbreaks, err, errlen);
    if (rc)
        return rc;
    if ((rq->flags & VFTR_SNAP_SNAPSHOTS) &&
        vftr_snap_place_samples(t->first, t->last, rq->thumb_samples, &p->samples, &p->nsamples)) {
        vftr_snap_plan_release(p);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    vftr_snap_estimate(t, rq->flags, p->breaks, p->nbreaks, p->nsamples, &p->estimate);
    if (rq->force)
        return 0;
    const struct vftr_snap_estimate *e = &p->estimate;
    uint64_t limit = vftr_snap_output_limit(t->bytes);
    if (e->bytes > limit) {
        rc = vftr_errmsg(err, errlen, -EFBIG, "the snapshots and summaries are estimated at %s "
                         "(%zu breaks, about %" PRIu64 " records per break over %" PRIu64
                         " processes), more than %s (%u x the trace's %s, at least %s): ask "
                         "for fewer breaks, or use --force",
                         size_str(e->bytes, a, sizeof a), p->nbreaks, e->per_break,
                         t->processes, size_str(limit, b, sizeof b), VFTR_SNAP_LIMIT_RATIO,
                         size_str(t->bytes, c, sizeof c),
                         size_str(VFTR_SNAP_LIMIT_FLOOR, d, sizeof d));
        vftr_snap_plan_release(p);
        return rc;
    }
    struct statvfs fs;
    uint64_t need = add_sat(e->bytes, t->copy_bytes);
    if (rq->outdir && statvfs(rq->outdir, &fs) == 0) {
        uint64_t avail = mul_sat((uint64_t)fs.f_bavail, (uint64_t)fs.f_frsize);
        if (need > avail) {
            rc = vftr_errmsg(err, errlen, -ENOSPC, "the output is estimated at %s, more than the "
                             "%s free in %s: make room, or use --force to try anyway",
                             size_str(need, a, sizeof a), size_str(avail, b, sizeof b),
                             rq->outdir);
            vftr_snap_plan_release(p);
            return rc;
        }
    }
    /* the backstop: the limit at the smallest record size */
    p->max_records = limit / (EST_SNAPSHOT_BYTES / (t->compressed ? 2 : 1));
    return 0;
}

int vftr_snap_place_samples(uint64_t first, uint64_t last, uint64_t limit, uint64_t **samples,
                            size_t *n)
{
    uint64_t span = last > first ? last - first : 0;
    uint64_t ns;

    if (!limit)
        limit = VFTR_SNAP_THUMB_SAMPLES;
    ns = span < limit ? span : limit;
    *samples = NULL;
    *n = 0;
    if (ns == 0)
        return 0;
    *samples = malloc(ns * sizeof **samples);
    if (!*samples)
        return -ENOMEM;
    double step = (double)span / (double)ns;
    for (uint64_t i = 0; i < ns; i++)
        (*samples)[i] = first + (uint64_t)((double)i * step);
    *n = (size_t)ns;
    return 0;
}

int vftr_snap_write_thumb(const struct vftr_snap *s, FILE *f)
{
    size_t np = 0;
    const uint32_t *procs = vftr_snap_thumb_processes(s, &np);

    fprintf(f, "0:%zx,%zx\n", s->nsamples, np);
    for (size_t i = 0; i < np; i++) {
        const uint32_t *v = vftr_snap_thumb_values(s, i);
        fprintf(f, "%" PRIx32 ":", procs[i]);
        for (size_t k = 0; k < s->nsamples; k++)
            fprintf(f, "%" PRIx32 ",", v ? v[k] : 0);
        fputc('\n', f);
    }
    return ferror(f) ? -EIO : 0;
}
