/*
 * mpi_rt.c — the records behind the generated MPI wrappers (mpi_rt.h):
 * communicator and request tables, messages and collectives, MPI_Init
 * (rank, run id, clock offsets), MPI_Finalize (clock offsets, collation
 * into <base>_all.log: collate.c), MPI_Pcontrol and the hand-written
 * Fortran MPI_INIT / MPI_INIT_THREAD / MPI_PCONTROL.
 *
 * Internal traffic (the id agreement of a new communicator, clock
 * ping-pongs, collation) goes through PMPI on a private duplicate of
 * MPI_COMM_WORLD, so it never shows up as the program's and never meets its
 * messages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "logfile.h"
#include "mpi_collate.h"
#include "mpi_rt.h"
#include "vftr.h"

void *_Atomic vftr_mpi_fn_handles[VFTR_MPI_FN_COUNT];

VFTR_MPI_NI void *vftr_mpi_fn_handle_init(int fn)
{
    void *h = vftr_ext_function(vftr_mpi_fn_names[fn]);

    if (h != NULL)
        atomic_store_explicit(&vftr_mpi_fn_handles[fn], h, memory_order_release);
    return h;
}

_Atomic int vftr_mpi_active = -1;
atomic_int vftr_mpi_paused;

/* Asked at the first wrapped call (not in a constructor: capture set up
 * from a constructor of this library records nothing afterwards). */
VFTR_MPI_NI int vftr_mpi_active_init(void)
{
    int on = vftr_ext_config() != NULL;

    atomic_store_explicit(&vftr_mpi_active, on, memory_order_relaxed);
    return on;
}

static int world_rank = -1, world_size;
/* mpi.log_messages and mpi.only_for_ranks of the configuration: whether
 * this rank writes message and collective records (set at MPI_Init). */
static atomic_int log_records = 1;
/* mpi.show_sync_time (set at MPI_Init), and the functions "<name>_sync". */
static atomic_int sync_time;
static void *_Atomic sync_handles[VFTR_MPI_FN_COUNT];
static MPI_Comm priv_comm = MPI_COMM_NULL;   /* PMPI_Comm_dup of world */
static atomic_uint_fast32_t comm_counter;    /* ids this rank has handed out */
static atomic_uint_fast64_t rma_req_counter; /* request-form transfers numbered */

/* ------------------------------------------------------------ stats */

/* Per-thread counters: the owner adds with relaxed load + store (no locked
 * instruction on the hot path), the collation reads them all at
 * MPI_Finalize.  A thread's block lives until the process ends (its counts
 * must survive the thread).
 *
 * Per function (fn) for live queries from capture's control thread, hence
 * atomic.  Per call path, the messages of the calls that moved data, for
 * the MPI tables of the logs (their calls and times are the profile's):
 * paths is an open-addressing table keyed by the call path id, which is
 * unique in the process, so no two threads share a key; read only at
 * MPI_Finalize and exit, when the program's threads make no more MPI
 * calls. */
struct fn_stat {
    atomic_uint_fast64_t calls, ticks, msgs, bytes;
};
struct path_stat {
    uint32_t path;              /* 0: free slot */
    uint64_t sends, recvs, sent_bytes, recv_bytes;
};
struct stat_block {
    struct fn_stat fn[VFTR_MPI_FN_COUNT];
    struct path_stat *paths;    /* cap slots, a power of two, at most half full */
    uint32_t npaths, cap;
    struct stat_block *next;
};
static struct stat_block *_Atomic stat_blocks;
static __thread struct stat_block *my_stats __attribute__((tls_model("initial-exec")));
/* The entry of the thread's last call: a loop calls one MPI function from
 * one place over and over, and this spares it the table probe. */
static __thread struct path_stat *my_last_path __attribute__((tls_model("initial-exec")));

static inline VFTR_MPI_NI void bump(atomic_uint_fast64_t *x, uint64_t v)
{
    atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

static inline VFTR_MPI_NI size_t path_slot(uint32_t path, uint32_t cap)
{
    return (size_t)((path * 2654435761u) & (cap - 1));
}

/* The entry of path in b's table, made if new; NULL when memory is short
 * (that call then goes uncounted per path). */
static VFTR_MPI_NI struct path_stat *path_entry(struct stat_block *b, uint32_t path)
{
    size_t i;

    if (2 * (b->npaths + 1) > b->cap) {
        uint32_t cap = b->cap ? 2 * b->cap : 64;
        struct path_stat *t = calloc(cap, sizeof *t);

        if (t == NULL)
            return NULL;
        for (uint32_t k = 0; k < b->cap; k++) {
            if (b->paths[k].path == 0)
                continue;
            for (i = path_slot(b->paths[k].path, cap); t[i].path; i = (i + 1) & (cap - 1))
                ;
            t[i] = b->paths[k];
        }
        free(b->paths);
        b->paths = t;
        b->cap = cap;
    }
    for (i = path_slot(path, b->cap); b->paths[i].path && b->paths[i].path != path;
         i = (i + 1) & (b->cap - 1))
        ;
    if (b->paths[i].path == 0) {
        b->paths[i].path = path;
        b->npaths++;
    }
    return &b->paths[i];
}

VFTR_MPI_NI void vftr_mpi_count(const struct vftr_mpi_call *c, uint64_t t1, uint32_t path)
{
    struct stat_block *b = my_stats;
    struct fn_stat *s;
    struct path_stat *ps;

    if (b == NULL) {
        if ((b = calloc(1, sizeof *b)) == NULL)
            return;
        b->next = atomic_load(&stat_blocks);
        while (!atomic_compare_exchange_weak(&stat_blocks, &b->next, b))
            ;
        my_stats = b;
    }
    s = &b->fn[c->fn];
    bump(&s->calls, 1);
    bump(&s->ticks, t1 - c->t0);
    if (c->msgs || c->sent_bytes || c->recv_bytes) {
        bump(&s->msgs, c->msgs);
        bump(&s->bytes, c->sent_bytes + c->recv_bytes);
    }
    if (path == 0)
        return;
    ps = my_last_path;
    if (ps == NULL || ps->path != path) {
        /* a new entry may move the table: the cache is set again here */
        if ((ps = path_entry(b, path)) == NULL)
            return;
        my_last_path = ps;
    }
    ps->sends += c->sends;
    ps->recvs += c->recvs;
    ps->sent_bytes += c->sent_bytes;
    ps->recv_bytes += c->recv_bytes;
}

VFTR_MPI_NI long vftr_mpi_path_stats(struct vftr_mpi_row *rows, size_t max)
{
    size_t n = 0;

    for (struct stat_block *b = atomic_load(&stat_blocks); b; b = b->next)
        for (uint32_t k = 0; k < b->cap; k++) {
            const struct path_stat *ps = &b->paths[k];

            if (ps->path == 0)
                continue;
            if (n < max)
                rows[n] = (struct vftr_mpi_row){
                    .callpath_id = ps->path, .sends = ps->sends, .recvs = ps->recvs,
                    .sent_bytes = ps->sent_bytes, .recv_bytes = ps->recv_bytes };
            n++;
        }
    return (long)n;
}

VFTR_MPI_NI int vftr_mpi_stats(int fn, uint64_t *calls, uint64_t *ticks, uint64_t *msgs,
                               uint64_t *bytes)
{
    if (fn < 0 || fn >= VFTR_MPI_FN_COUNT)
        return -EINVAL;
    *calls = *ticks = *msgs = *bytes = 0;
    for (struct stat_block *b = atomic_load(&stat_blocks); b; b = b->next) {
        *calls += atomic_load_explicit(&b->fn[fn].calls, memory_order_relaxed);
        *ticks += atomic_load_explicit(&b->fn[fn].ticks, memory_order_relaxed);
        *msgs += atomic_load_explicit(&b->fn[fn].msgs, memory_order_relaxed);
        *bytes += atomic_load_explicit(&b->fn[fn].bytes, memory_order_relaxed);
    }
    return 0;
}

/* The statistics so far for capture's live queries (vftr-ctl messages):
 * one row per MPI function called, read with the relaxed loads above (safe
 * from capture's control thread). */
static VFTR_MPI_NI long live_stats(struct vftr_ext_mpi_row *rows, size_t max)
{
    double tps = vftr_ext_ticks_per_second();
    size_t n = 0;

    for (int fn = 0; fn < VFTR_MPI_FN_COUNT && n < max; fn++) {
        uint64_t calls, ticks, msgs, bytes;

        if (vftr_mpi_stats(fn, &calls, &ticks, &msgs, &bytes) < 0 || calls == 0)
            continue;
        rows[n].function = vftr_mpi_fn_names[fn];
        rows[n].calls = calls;
        rows[n].messages = msgs;
        rows[n].bytes = bytes;
        rows[n].seconds = tps > 0 ? (double)ticks / tps : 0.0;
        n++;
    }
    return (long)n;
}

/* ------------------------------------------------------- sync time */

/* Vftrace's estimate of the time a rank waits for the others at a
 * collective: a barrier on the collective's communicator just before it,
 * recorded as a function of its own.  Every member calls the collective, so
 * every member calls the barrier at the same place of its sequence of
 * collectives on comm. */
VFTR_MPI_NI void vftr_mpi_sync(int fn, const char *sync_name, MPI_Comm comm)
{
    void *h;

    if (!atomic_load_explicit(&sync_time, memory_order_relaxed) || !vftr_mpi_is_active()
        || atomic_load_explicit(&vftr_mpi_paused, memory_order_relaxed))
        return;
    h = atomic_load_explicit(&sync_handles[fn], memory_order_acquire);
    if (h == NULL) {
        if ((h = vftr_ext_function(sync_name)) == NULL)
            return;
        atomic_store_explicit(&sync_handles[fn], h, memory_order_release);
    }
    (void)vftr_ext_enter_fn(h);
    PMPI_Barrier(comm);
    (void)vftr_ext_exit_fn_rec(h, 0, NULL);
}

/* ---------------------------------------------------- communicators */

/* Immutable once published; kept until the process ends (a request may
 * still point at the entry of a freed communicator); only the name
 * changes (MPI_Comm_set_name), under comm_lock. */
#define COMM_NAME 160   /* longest name kept (derived names grow with nesting) */

struct comm_info {
    MPI_Comm comm;
    uint64_t id;
    char name[COMM_NAME];       /* as the program knows it; under comm_lock */
    int size;                   /* local group */
    int32_t *world;             /* world ranks of the local group, NULL: identity */
    int rsize;                  /* remote group of an intercommunicator, else 0 */
    int32_t *rworld;
    struct comm_info *next;     /* hash chain */
    int live;                   /* 0 after MPI_Comm_free */
};

#define COMM_BUCKETS 256
static struct comm_info *comm_hash[COMM_BUCKETS];
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct comm_info world_info = { .id = VFTR_VFD_COMM_WORLD };
static struct comm_info self_info;
static int32_t self_rank;

static VFTR_MPI_NI size_t handle_hash(const void *h, size_t size)
{
    uint64_t k = 0;

    memcpy(&k, h, size < sizeof k ? size : sizeof k);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

/* World ranks of a group (n entries), -1 where a rank is not in world. */
static VFTR_MPI_NI int32_t *group_world(MPI_Group g, int n)
{
    MPI_Group wg;
    int *in, *out;
    int32_t *w;

    in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (!in || !out || !w) {
        free(in), free(out), free(w);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, n, in, wg, out);
    PMPI_Group_free(&wg);
    for (int i = 0; i < n; i++)
        w[i] = out[i] == MPI_UNDEFINED ? -1 : out[i];
    free(in);
    free(out);
    return w;
}

/* A new entry for comm with its groups (id still 0), or NULL. */
static VFTR_MPI_NI struct comm_info *comm_describe(MPI_Comm comm)
{
    struct comm_info *ci = calloc(1, sizeof *ci);
    MPI_Group g;
    int inter = 0;

    if (ci == NULL)
        return NULL;
    ci->comm = comm;
    ci->live = 1;
    PMPI_Comm_size(comm, &ci->size);
    PMPI_Comm_group(comm, &g);
    ci->world = group_world(g, ci->size);
    PMPI_Group_free(&g);
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        PMPI_Comm_remote_size(comm, &ci->rsize);
        PMPI_Comm_remote_group(comm, &g);
        ci->rworld = group_world(g, ci->rsize);
        PMPI_Group_free(&g);
    }
    if (ci->world == NULL || (inter && ci->rworld == NULL)) {
        free(ci->world), free(ci->rworld), free(ci);
        return NULL;
    }
    return ci;
}

static VFTR_MPI_NI void comm_publish(struct comm_info *ci)
{
    size_t b = handle_hash(&ci->comm, sizeof ci->comm) % COMM_BUCKETS;

    pthread_mutex_lock(&comm_lock);
    ci->next = comm_hash[b];
    comm_hash[b] = ci;
    pthread_mutex_unlock(&comm_lock);
}

/* The MPI_COMMS entry of ci (written when capture has a trace). */
static VFTR_MPI_NI void comm_write(const struct comm_info *ci, const char *name)
{
    struct vftr_vfd_comm d = { .id = ci->id, .size = (uint32_t)ci->size, .name = name };
    int32_t *ranks = NULL;
    uint8_t *buf;
    size_t cap, len;

    if (!vftr_mpi_is_active())
        return;
    if (ci->world == NULL) {   /* world: 0..size-1 */
        ranks = malloc((size_t)ci->size * sizeof *ranks);
        if (ranks == NULL)
            return;
        for (int i = 0; i < ci->size; i++)
            ranks[i] = i;
    }
    d.ranks = ranks ? ranks : ci->world;
    cap = vftr_vfd_comms_bound(&d, 1);
    if ((buf = malloc(cap)) != NULL) {
        if ((len = vftr_vfd_encode_comms(&d, 1, buf, cap)) > 0)
            (void)vftr_ext_chunk(buf, len);
        free(buf);
    }
    free(ranks);
}

/* An id for a communicator nobody agreed on (made by a function vftr does
 * not wrap): a hash of its members, in its own range (bit 61). */
static VFTR_MPI_NI uint64_t comm_fallback_id(const struct comm_info *ci)
{
    uint64_t h = 1469598103934665603ULL;

    for (int i = 0; i < ci->size; i++) {
        h ^= (uint32_t)ci->world[i];
        h *= 1099511628211ULL;
    }
    for (int i = 0; i < ci->rsize; i++) {
        h ^= (uint32_t)ci->rworld[i] ^ 0x80000000u;
        h *= 1099511628211ULL;
    }
    return (1ULL << 61) | (h & ((1ULL << 61) - 1));
}

/* The entry of comm; one found for the first time is described and
 * written then.  NULL only when memory is short. */
static VFTR_MPI_NI const struct comm_info *comm_lookup(MPI_Comm comm)
{
    struct comm_info *ci;
    size_t b;

    if (comm == MPI_COMM_WORLD)
        return &world_info;
    if (comm == MPI_COMM_SELF)
        return &self_info;
    b = handle_hash(&comm, sizeof comm) % COMM_BUCKETS;
    pthread_mutex_lock(&comm_lock);
    for (ci = comm_hash[b]; ci; ci = ci->next)
        if (ci->live && ci->comm == comm)
            break;
    pthread_mutex_unlock(&comm_lock);
    if (ci)
        return ci;
    if ((ci = comm_describe(comm)) == NULL)
        return NULL;
    ci->id = comm_fallback_id(ci);
    snprintf(ci->name, sizeof ci->name, "unknown");
    comm_publish(ci);
    comm_write(ci, ci->name);
    return ci;
}

/* The name of ci now, into buf. */
static VFTR_MPI_NI void comm_name(const struct comm_info *ci, char *buf, size_t size)
{
    pthread_mutex_lock(&comm_lock);
    snprintf(buf, size, "%s", ci ? ci->name : "unknown");
    pthread_mutex_unlock(&comm_lock);
}

/* World rank of rank r of ci (the remote group's for an intercommunicator),
 * -1 when out of range. */
static VFTR_MPI_NI int32_t comm_world_rank(const struct comm_info *ci, int r)
{
    if (ci == NULL || r < 0)
        return -1;
    if (ci->rworld)
        return r < ci->rsize ? ci->rworld[r] : -1;
    if (r >= ci->size)
        return -1;
    return ci->world ? ci->world[r] : r;
}

/* Root argument of a collective as a world rank (-1: none). */
static VFTR_MPI_NI int32_t root_world(const struct comm_info *ci, int root)
{
    if (root == MPI_ROOT)
        return world_rank;
    if (root == MPI_PROC_NULL || root < 0)
        return -1;
    return comm_world_rank(ci, root);
}

VFTR_MPI_NI void vftr_mpi_comm_new(struct vftr_mpi_call *c, MPI_Comm parent,
                                   const MPI_Comm *newcomm, const char *how, int color)
{
    struct comm_info *ci;
    const struct comm_info *pi;
    char name[COMM_NAME];
    int lo = 0;

    (void)c;
    if (*newcomm == MPI_COMM_NULL || (ci = comm_describe(*newcomm)) == NULL)
        return;
    if (ci->rworld) {
        ci->id = comm_fallback_id(ci);
    } else {
        /* the member with the lowest world rank hands out the next id of
         * its own range, (world rank + 1) << 32 | counter, and broadcasts
         * it over the new communicator: unique in the run, equal on all
         * members, no global state */
        for (int i = 1; i < ci->size; i++)
            if (ci->world[i] >= 0 && ci->world[i] < ci->world[lo])
                lo = i;
        if (ci->world[lo] == world_rank)
            ci->id = ((uint64_t)(world_rank + 1) << 32)
                     | (uint64_t)(atomic_fetch_add(&comm_counter, 1) + 1);
        PMPI_Bcast(&ci->id, 1, MPI_UINT64_T, lo, *newcomm);
    }
    pi = comm_lookup(parent);
    comm_name(pi, name, sizeof name);
    /* cut, not failed, when names nest deeply (the parent's is cut to
     * leave room for the rest) */
    if (color >= 0)
        snprintf(ci->name, sizeof ci->name, "%.16s of %.110s (color %d)", how, name, color);
    else
        snprintf(ci->name, sizeof ci->name, "%.16s of %.110s", how, name);
    comm_publish(ci);
    comm_write(ci, ci->name);
}

VFTR_MPI_NI void vftr_mpi_comm_set_name(struct vftr_mpi_call *c, MPI_Comm comm, const char *name)
{
    /* every entry is a non-const object: world_info, self_info, the heap */
    struct comm_info *ci = (struct comm_info *)comm_lookup(comm);
    char copy[COMM_NAME];

    (void)c;
    if (ci == NULL || name == NULL)
        return;
    pthread_mutex_lock(&comm_lock);
    snprintf(ci->name, sizeof ci->name, "%s", name);
    snprintf(copy, sizeof copy, "%s", ci->name);
    pthread_mutex_unlock(&comm_lock);
    comm_write(ci, copy);
}

VFTR_MPI_NI void vftr_mpi_comm_forget(struct vftr_mpi_call *c, MPI_Comm comm)
{
    size_t b = handle_hash(&comm, sizeof comm) % COMM_BUCKETS;

    (void)c;
    pthread_mutex_lock(&comm_lock);
    for (struct comm_info *ci = comm_hash[b]; ci; ci = ci->next)
        if (ci->live && ci->comm == comm) {
            ci->live = 0;   /* the handle may come back for another communicator */
            break;
        }
    pthread_mutex_unlock(&comm_lock);
}

VFTR_MPI_NI int vftr_mpi_comm_size_any(MPI_Comm comm)
{
    int inter = 0, n = 0;

    if (comm == MPI_COMM_NULL)
        return 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

/* --------------------------------------------------------- records */

static VFTR_MPI_NI uint64_t type_bytes(int count, MPI_Datatype type)
{
    int size = 0;

    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS
        || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

static VFTR_MPI_NI void put_msg(struct vftr_mpi_call *c, uint32_t kind, int32_t peer, int tag,
                                uint64_t bytes, const struct comm_info *ci, uint64_t start,
                                uint32_t flags)
{
    struct vftr_vfd_mpi_msg m = { .peer = peer, .tag = tag, .bytes = bytes,
                                  .comm = ci ? ci->id : 0, .start = start, .flags = flags };
    uint8_t buf[VFTR_VFD_EXT_MAX];
    uint64_t now;
    size_t len;

    c->msgs++;
    if (kind == VFTR_VFD_MPI_SEND) {
        c->sends++;
        c->sent_bytes += bytes;
    } else {
        c->recvs++;
        c->recv_bytes += bytes;
    }
    if (!c->on || !atomic_load_explicit(&log_records, memory_order_relaxed))
        return;
    if (c->pend_kind == 0) {   /* goes out with the call's exit */
        c->pend_kind = kind;
        c->pend.msg = m;
        return;
    }
    now = vftr_ext_now();
    if (m.start > now)
        m.start = now;
    if ((len = vftr_vfd_mpi_msg_encode(&m, now, buf)) > 0)
        (void)vftr_ext_event(now, kind, buf, (uint32_t)len);
}

static VFTR_MPI_NI void put_coll(struct vftr_mpi_call *c, uint32_t op, const struct comm_info *ci,
                                 int32_t root, uint64_t sent, uint64_t received, uint64_t start,
                                 uint32_t flags)
{
    struct vftr_vfd_mpi_coll k = { .op = op, .comm = ci ? ci->id : 0, .root = root,
                                   .sent = sent, .received = received, .start = start,
                                   .flags = flags };
    uint8_t buf[VFTR_VFD_EXT_MAX];
    uint64_t now;
    size_t len;

    /* one message each way the collective moved data (logfile.h) */
    c->sends += sent > 0;
    c->recvs += received > 0;
    c->sent_bytes += sent;
    c->recv_bytes += received;
    if (!c->on || !atomic_load_explicit(&log_records, memory_order_relaxed))
        return;
    if (c->pend_kind == 0) {   /* goes out with the call's exit */
        c->pend_kind = VFTR_VFD_MPI_COLL;
        c->pend.coll = k;
        return;
    }
    now = vftr_ext_now();
    if (k.start > now)
        k.start = now;
    if ((len = vftr_vfd_mpi_coll_encode(&k, now, buf)) > 0)
        (void)vftr_ext_event(now, VFTR_VFD_MPI_COLL, buf, (uint32_t)len);
}

VFTR_MPI_NI void vftr_mpi_sent(struct vftr_mpi_call *c, int count, MPI_Datatype type, int dest,
                               int tag, MPI_Comm comm, uint32_t flags)
{
    const struct comm_info *ci;

    if (!c->counting || dest == MPI_PROC_NULL)
        return;
    ci = comm_lookup(comm);
    put_msg(c, VFTR_VFD_MPI_SEND, comm_world_rank(ci, dest), tag, type_bytes(count, type), ci,
            c->t0, flags);
}

/* Source, tag and bytes of a completed receive; 0 when there was no
 * message (MPI_PROC_NULL, cancelled). */
static VFTR_MPI_NI int status_msg(const MPI_Status *st, int *source, int *tag, uint64_t *bytes)
{
    int n = 0, cancelled = 0;

    if (st == NULL || st == MPI_STATUS_IGNORE || st->MPI_SOURCE == MPI_PROC_NULL)
        return 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled)
        return 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    *source = st->MPI_SOURCE;
    *tag = st->MPI_TAG;
    *bytes = n == MPI_UNDEFINED || n < 0 ? 0 : (uint64_t)n;
    return 1;
}

VFTR_MPI_NI void vftr_mpi_received(struct vftr_mpi_call *c, const MPI_Status *status,
                                   MPI_Comm comm, uint32_t flags)
{
    const struct comm_info *ci;
    int source, tag;
    uint64_t bytes;

    if (!c->counting || !status_msg(status, &source, &tag, &bytes))
        return;
    ci = comm_lookup(comm);
    put_msg(c, VFTR_VFD_MPI_RECV, comm_world_rank(ci, source), tag, bytes, ci, c->t0, flags);
}

/* --------------------------------------------------------- requests */

static void put_rma_sync(struct vftr_mpi_call *c, uint32_t what, uint64_t win, int32_t target,
                         uint64_t request);

enum { REQ_SEND = 1, REQ_RECV, REQ_COLL, REQ_IO, REQ_RMA };

struct req_info {
    MPI_Request req;
    const void *owner;          /* the thread that made it (req_owner()) */
    int kind;                   /* REQ_* */
    int persistent, active;
    uint64_t start;
    int32_t peer, tag;          /* sends */
    uint64_t bytes;
    const struct comm_info *ci;
    uint32_t flags;
    uint32_t op;                /* collectives */
    int32_t root;
    uint64_t sent, received;
    uint32_t io_file;           /* MPI-IO (op and flags above) */
    uint64_t io_handle, io_offset;
    uint64_t win;               /* request-form RMA: the window id (target in peer) */
    uint64_t rma_req;           /* ... and the transfer's number (its MPI_RMA record's) */
    void *attach[2];
    struct req_info *next;
};

#define REQ_BUCKETS 1024
static struct req_info *req_hash[REQ_BUCKETS];
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;

static VFTR_MPI_NI size_t req_bucket(MPI_Request r)
{
    return handle_hash(&r, sizeof r) % REQ_BUCKETS;
}

/* A token of the calling thread: the address of a thread-local. */
static __thread char req_owner_token __attribute__((tls_model("initial-exec")));

static inline VFTR_MPI_NI const void *req_owner(void)
{
    return &req_owner_token;
}

/* Adds an entry.  A handle MPI frees and hands out again finds no stale
 * entry: a wait or test call takes its requests' entries out before PMPI
 * may free the requests (vftr_mpi_save).  But two live requests may share
 * a handle: Open MPI returns the one static, already completed request for
 * an Isend it could finish at once, to every thread alike; so each entry
 * remembers its thread, and req_take prefers the caller's own entries. */
static VFTR_MPI_NI void req_add(struct req_info *ri)
{
    struct req_info **head = &req_hash[req_bucket(ri->req)];

    pthread_mutex_lock(&req_lock);
    ri->next = *head;
    *head = ri;
    pthread_mutex_unlock(&req_lock);
}

static VFTR_MPI_NI void req_release(struct req_info *ri)
{
    free(ri->attach[0]);
    free(ri->attach[1]);
    free(ri);
}

/* A new entry (not yet in the table) of request *req on the communicator
 * of ci, or NULL when capture keeps no tables or memory is short. */
static VFTR_MPI_NI struct req_info *req_new_ci(struct vftr_mpi_call *c, int kind,
                                               const struct comm_info *ci, uint32_t flags,
                                               const MPI_Request *req)
{
    struct req_info *ri;

    if (!c->tables || req == NULL || *req == MPI_REQUEST_NULL)
        return NULL;
    if ((ri = calloc(1, sizeof *ri)) == NULL)
        return NULL;
    ri->req = *req;
    ri->owner = req_owner();
    ri->kind = kind;
    ri->persistent = (flags & VFTR_VFD_MSG_PERSISTENT) != 0;
    ri->active = !ri->persistent;
    ri->start = c->t0;
    ri->ci = ci;
    ri->flags = flags;
    return ri;
}

static VFTR_MPI_NI struct req_info *req_new(struct vftr_mpi_call *c, int kind, MPI_Comm comm,
                                            uint32_t flags, const MPI_Request *req)
{
    if (!c->tables || req == NULL || *req == MPI_REQUEST_NULL)
        return NULL;
    return req_new_ci(c, kind, comm_lookup(comm), flags, req);
}

VFTR_MPI_NI void vftr_mpi_req_send(struct vftr_mpi_call *c, int count, MPI_Datatype type,
                                   int dest, int tag, MPI_Comm comm, uint32_t flags,
                                   const MPI_Request *req)
{
    struct req_info *ri;

    if (dest == MPI_PROC_NULL || (ri = req_new(c, REQ_SEND, comm, flags, req)) == NULL)
        return;
    ri->peer = comm_world_rank(ri->ci, dest);
    ri->tag = tag;
    ri->bytes = type_bytes(count, type);
    req_add(ri);
}

VFTR_MPI_NI void vftr_mpi_req_recv(struct vftr_mpi_call *c, MPI_Comm comm, uint32_t flags,
                                   const MPI_Request *req)
{
    struct req_info *ri = req_new(c, REQ_RECV, comm, flags, req);

    if (ri)
        req_add(ri);
}

VFTR_MPI_NI void vftr_mpi_req_start(struct vftr_mpi_call *c, int n, const MPI_Request *reqs)
{
    if (!c->tables)
        return;
    pthread_mutex_lock(&req_lock);
    for (int i = 0; i < n; i++) {
        for (struct req_info *ri = req_hash[req_bucket(reqs[i])]; ri; ri = ri->next)
            if (ri->req == reqs[i] && ri->persistent) {
                ri->active = 1;
                ri->start = c->t0;
                break;
            }
    }
    pthread_mutex_unlock(&req_lock);
}

/* Unlinks and returns the entry of req, or NULL: the calling thread's own
 * entry of that handle if it has one (see req_add), else any. */
static VFTR_MPI_NI struct req_info *req_take(MPI_Request req)
{
    struct req_info **pp, *ri, **any = NULL;
    const void *me = req_owner();

    pthread_mutex_lock(&req_lock);
    for (pp = &req_hash[req_bucket(req)]; (ri = *pp) != NULL; pp = &ri->next) {
        if (ri->req != req)
            continue;
        if (ri->owner == me)
            break;
        if (any == NULL)
            any = pp;
    }
    if (ri == NULL && any != NULL) {
        pp = any;
        ri = *pp;
    }
    if (ri != NULL)
        *pp = ri->next;
    pthread_mutex_unlock(&req_lock);
    return ri;
}

VFTR_MPI_NI void vftr_mpi_req_free(struct vftr_mpi_call *c, const MPI_Request *req)
{
    struct req_info *ri;

    (void)c;
    if (*req != MPI_REQUEST_NULL && (ri = req_take(*req)) != NULL)
        req_release(ri);
}

VFTR_MPI_NI void vftr_mpi_req_attach(MPI_Request req, void *mem)
{
    struct req_info *ri, *last = NULL;

    pthread_mutex_lock(&req_lock);
    for (ri = req_hash[req_bucket(req)]; ri; ri = ri->next)
        if (ri->req == req && (last == NULL || ri->owner == req_owner())) {
            last = ri;
            if (ri->owner == req_owner())
                break;
        }
    if (last && !last->attach[0])
        last->attach[0] = mem, mem = NULL;
    else if (last && !last->attach[1])
        last->attach[1] = mem, mem = NULL;
    pthread_mutex_unlock(&req_lock);
    /* an untracked request (capture off) keeps mem: MPI may read it until
     * the request completes, and nobody sees that happen */
    (void)mem;
}

VFTR_MPI_NI void vftr_mpi_save(struct vftr_mpi_call *c, int n, const MPI_Request *reqs)
{
    if (!c->tables || n <= 0)
        return;
    if (n > VFTR_MPI_STACK && (c->saved = malloc((size_t)n * sizeof *c->saved)) == NULL) {
        c->saved = c->save_buf;   /* out of memory: these completions go unrecorded */
        return;
    }
    for (int i = 0; i < n; i++) {
        c->saved[i].req = reqs[i];
        c->saved[i].info = reqs[i] == MPI_REQUEST_NULL ? NULL : req_take(reqs[i]);
    }
    c->nsave = n;
}

VFTR_MPI_NI void vftr_mpi_restore(struct vftr_mpi_call *c)
{
    for (int i = 0; i < c->nsave; i++)
        if (c->saved[i].info)
            req_add(c->saved[i].info);
    c->nsave = 0;
}

/* --------------------------------------------------- matched probes */

/* The message handles MPI_Mprobe / MPI_Improbe gave out and not yet
 * received, with their communicators.  A program holds few at a time (it
 * receives what it probed), so a short list does; Open MPI may hand out
 * the same handle again once it was received, which the take before the
 * receive allows. */
struct msg_info {
    MPI_Message msg;
    const struct comm_info *ci;
    struct msg_info *next;
};

static struct msg_info *msg_list;
static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;

VFTR_MPI_NI void vftr_mpi_msg_probed(struct vftr_mpi_call *c, MPI_Comm comm, int flag,
                                     const MPI_Message *msg)
{
    struct msg_info *mi;

    if (!c->tables || !flag || *msg == MPI_MESSAGE_NULL || *msg == MPI_MESSAGE_NO_PROC)
        return;
    if ((mi = malloc(sizeof *mi)) == NULL)
        return;
    mi->msg = *msg;
    mi->ci = comm_lookup(comm);
    pthread_mutex_lock(&msg_lock);
    mi->next = msg_list;
    msg_list = mi;
    pthread_mutex_unlock(&msg_lock);
}

VFTR_MPI_NI void vftr_mpi_msg_take(struct vftr_mpi_call *c, MPI_Message msg)
{
    struct msg_info **pp, *mi;

    c->msg_ci = NULL;
    if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
        return;
    pthread_mutex_lock(&msg_lock);
    for (pp = &msg_list; (mi = *pp) != NULL; pp = &mi->next)
        if (mi->msg == msg) {
            *pp = mi->next;
            break;
        }
    pthread_mutex_unlock(&msg_lock);
    if (mi) {
        c->msg_ci = mi->ci;
        free(mi);
    }
}

VFTR_MPI_NI void vftr_mpi_mreceived(struct vftr_mpi_call *c, const MPI_Status *status)
{
    int source, tag;
    uint64_t bytes;

    /* a message probed while capture kept no tables has no communicator:
     * its source cannot be named, and it is not recorded */
    if (!c->counting || c->msg_ci == NULL || !status_msg(status, &source, &tag, &bytes))
        return;
    put_msg(c, VFTR_VFD_MPI_RECV, comm_world_rank(c->msg_ci, source), tag, bytes, c->msg_ci,
            c->t0, 0);
}

VFTR_MPI_NI void vftr_mpi_req_mrecv(struct vftr_mpi_call *c, const MPI_Request *req)
{
    struct req_info *ri;

    if (c->msg_ci == NULL)
        return;
    if ((ri = req_new_ci(c, REQ_RECV, c->msg_ci, VFTR_VFD_MSG_NONBLOCKING, req)) != NULL)
        req_add(ri);
}

/* ------------------------------------------------------------- RMA */

/* The windows the program made, from their creation to MPI_Win_free: an
 * id equal on all members (handed out as communicator ids are) and the
 * communicator entry of their group (world ranks of targets).  Kept in a
 * short list: programs hold few windows. */
struct win_info {
    MPI_Win win;
    uint64_t id;
    const struct comm_info *ci;
    struct win_info *next;
};

static struct win_info *win_list;
static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;

VFTR_MPI_NI void vftr_mpi_win_new(struct vftr_mpi_call *c, MPI_Comm comm, const MPI_Win *win)
{
    const struct comm_info *ci;
    struct win_info *wi;
    int lo = 0;

    /* every member takes part (the Bcast below), whatever capture does */
    (void)c;
    if (*win == MPI_WIN_NULL || (ci = comm_lookup(comm)) == NULL || ci->rworld)
        return;
    if ((wi = calloc(1, sizeof *wi)) == NULL)
        return;
    wi->win = *win;
    wi->ci = ci;
    for (int i = 1; i < ci->size; i++)
        if (comm_world_rank(ci, i) >= 0 && comm_world_rank(ci, i) < comm_world_rank(ci, lo))
            lo = i;
    if (comm_world_rank(ci, lo) == world_rank)
        wi->id = ((uint64_t)(world_rank + 1) << 32)
                 | (uint64_t)(atomic_fetch_add(&comm_counter, 1) + 1);
    PMPI_Bcast(&wi->id, 1, MPI_UINT64_T, lo, comm);
    pthread_mutex_lock(&win_lock);
    wi->next = win_list;
    win_list = wi;
    pthread_mutex_unlock(&win_lock);
}

VFTR_MPI_NI void vftr_mpi_win_forget(struct vftr_mpi_call *c, MPI_Win win)
{
    struct win_info **pp, *wi;

    /* what the program left open ends with the window */
    vftr_mpi_rma_sync(c, VFTR_VFD_RMA_SYNC_FREE, win, -1);
    pthread_mutex_lock(&win_lock);
    for (pp = &win_list; (wi = *pp) != NULL; pp = &wi->next)
        if (wi->win == win) {
            *pp = wi->next;
            break;
        }
    pthread_mutex_unlock(&win_lock);
    free(wi);
}

/* Id and communicator entry of win; 0 when vftr did not see it made. */
static VFTR_MPI_NI int win_find(MPI_Win win, uint64_t *id, const struct comm_info **ci)
{
    const struct win_info *wi;

    pthread_mutex_lock(&win_lock);
    for (wi = win_list; wi; wi = wi->next)
        if (wi->win == win) {
            *id = wi->id;
            *ci = wi->ci;
            break;
        }
    pthread_mutex_unlock(&win_lock);
    return wi != NULL;
}

VFTR_MPI_NI void vftr_mpi_rma(struct vftr_mpi_call *c, uint32_t op, uint32_t flags, MPI_Win win,
                              int target, int sent_count, MPI_Datatype sent_type,
                              int recv_count, MPI_Datatype recv_type)
{
    struct vftr_vfd_mpi_rma a = { .op = op, .flags = flags, .start = c->t0 };
    const struct comm_info *ci = NULL;
    uint8_t buf[VFTR_VFD_EXT_MAX];
    uint64_t now;
    size_t len;

    c->rma_req = 0;
    if (!c->counting || target == MPI_PROC_NULL)
        return;
    a.sent = type_bytes(sent_count, sent_type);
    a.received = type_bytes(recv_count, recv_type);
    /* one message each way that moved data, as for a collective */
    c->sends += a.sent > 0;
    c->recvs += a.received > 0;
    c->sent_bytes += a.sent;
    c->recv_bytes += a.received;
    /* a window vftr did not see made (capture was off) has no id to give */
    if (!c->on || !atomic_load_explicit(&log_records, memory_order_relaxed)
        || !win_find(win, &a.win, &ci))
        return;
    a.comm = ci->id;
    a.target = comm_world_rank(ci, target);
    a.flags |= VFTR_VFD_RMA_ENDS_AT_SYNC;   /* its MPI_RMA_SYNC record follows */
    /* a request form is numbered: its wait or test, on whatever thread,
     * names the transfer it completes */
    if (flags & VFTR_VFD_MSG_NONBLOCKING)
        c->rma_req = a.request = atomic_fetch_add(&rma_req_counter, 1) + 1;
    /* written at once, inside the call (not with its exit: capture's exit
     * records take messages and collectives only) */
    now = vftr_ext_now();
    if (a.start > now)
        a.start = now;
    if ((len = vftr_vfd_mpi_rma_encode(&a, now, buf)) > 0)
        (void)vftr_ext_event(now, VFTR_VFD_MPI_RMA, buf, (uint32_t)len);
}

/* An MPI_RMA_SYNC record now, on this thread: the rank's transfers on
 * window id win (to world rank target; -1: all), whatever thread began
 * them, are complete. */
static VFTR_MPI_NI void put_rma_sync(struct vftr_mpi_call *c, uint32_t what, uint64_t win,
                                     int32_t target, uint64_t request)
{
    struct vftr_vfd_mpi_rma_sync y = { .what = what, .target = target, .win = win,
                                       .start = c->t0, .request = request };
    uint8_t buf[VFTR_VFD_EXT_MAX];
    uint64_t now;
    size_t len;

    if (!c->on || !atomic_load_explicit(&log_records, memory_order_relaxed))
        return;
    now = vftr_ext_now();
    if (y.start > now)
        y.start = now;
    if ((len = vftr_vfd_mpi_rma_sync_encode(&y, now, buf)) > 0)
        (void)vftr_ext_event(now, VFTR_VFD_MPI_RMA_SYNC, buf, (uint32_t)len);
}

VFTR_MPI_NI void vftr_mpi_rma_sync(struct vftr_mpi_call *c, uint32_t what, MPI_Win win,
                                   int target)
{
    const struct comm_info *ci = NULL;
    uint64_t id;
    int32_t t = -1;

    if (!c->on || !win_find(win, &id, &ci))
        return;
    if (target >= 0 && (t = comm_world_rank(ci, target)) < 0)
        return;                       /* (MPI_PROC_NULL: nothing to complete) */
    put_rma_sync(c, what, id, t, 0);
}

VFTR_MPI_NI void vftr_mpi_req_rma(struct vftr_mpi_call *c, MPI_Win win, int target,
                                  const MPI_Request *req)
{
    const struct comm_info *ci = NULL;
    struct req_info *ri;
    uint64_t id;

    if (target == MPI_PROC_NULL || !c->on ||
        !atomic_load_explicit(&log_records, memory_order_relaxed) || !win_find(win, &id, &ci) ||
        (ri = req_new_ci(c, REQ_RMA, ci, VFTR_VFD_MSG_NONBLOCKING, req)) == NULL)
        return;
    ri->win = id;
    ri->peer = comm_world_rank(ci, target);
    ri->rma_req = c->rma_req;
    req_add(ri);
}

/* ----------------------------------------------------------- MPI-IO */

/* The followed MPI_Files: file id and handle from the open until the
 * close, and the start of a split collective in progress. */
struct file_info {
    MPI_File fh;
    uint32_t file;
    uint64_t handle;
    uint64_t split_start;
    struct file_info *next;
};

#define FILE_BUCKETS 256
static struct file_info *file_hash[FILE_BUCKETS];
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;

static VFTR_MPI_NI size_t file_bucket(MPI_File fh)
{
    return handle_hash(&fh, sizeof fh) % FILE_BUCKETS;
}

/* File id and handle of fh (0 when it is not followed); with split != 0
 * also sets (split > 0: to *start) or takes (split < 0: into *start) the
 * start of its split collective. */
static VFTR_MPI_NI uint32_t file_find(MPI_File fh, uint64_t *handle, int split, uint64_t *start)
{
    uint32_t file = 0;

    pthread_mutex_lock(&file_lock);
    for (struct file_info *fi = file_hash[file_bucket(fh)]; fi; fi = fi->next)
        if (fi->fh == fh) {
            file = fi->file;
            *handle = fi->handle;
            if (split > 0) {
                fi->split_start = *start;
            } else if (split < 0) {
                *start = fi->split_start;
                fi->split_start = 0;
            }
            break;
        }
    pthread_mutex_unlock(&file_lock);
    return file;
}

/* Writes io as the call's record (with its exit) or at once. */
static VFTR_MPI_NI void put_io(struct vftr_mpi_call *c, struct vftr_vfd_io *io)
{
    uint64_t now;

    if (!c->on || io->file == 0)
        return;
    if (c->pend_kind == 0) {
        c->pend_kind = VFTR_VFD_IO;
        c->pend.io = *io;
        return;
    }
    now = vftr_ext_now();
    if (io->start > now)
        io->start = now;
    (void)vftr_ext_io(now, io);
}

/* Bytes a read or write moved, from its status. */
static VFTR_MPI_NI uint64_t io_bytes(const MPI_Status *st)
{
    int n = 0;

    if (st == NULL || st == MPI_STATUS_IGNORE || PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS
        || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

/* An explicit offset (in etypes of fh's view) in bytes from the start of
 * the file. */
static VFTR_MPI_NI uint64_t io_byte_offset(MPI_File fh, MPI_Offset offset)
{
    MPI_Offset disp = 0;

    if (PMPI_File_get_byte_offset(fh, offset, &disp) != MPI_SUCCESS || disp < 0)
        return 0;
    return (uint64_t)disp;
}

/* The failed flag of a call that returned rc. */
static inline VFTR_MPI_NI uint32_t io_failed(int rc)
{
    return rc == MPI_SUCCESS ? 0u : VFTR_VFD_IO_FAILED;
}

VFTR_MPI_NI void vftr_mpi_io_open(struct vftr_mpi_call *c, const char *name, int amode,
                                  const MPI_File *fh, int rc)
{
    struct file_info *fi;
    uint32_t file;

    if (!c->tables)
        return;
    if (rc != MPI_SUCCESS) {
        if (c->on)
            put_io(c, &(struct vftr_vfd_io){ .file = vftr_ext_io_file(name, VFTR_VFD_IO_MPI),
                                             .op = VFTR_VFD_IO_OPEN,
                                             .flags = VFTR_VFD_IO_COLLECTIVE | VFTR_VFD_IO_FAILED,
                                             .start = c->t0, .aux = (uint64_t)(unsigned)amode });
        return;
    }
    if (fh == NULL || *fh == MPI_FILE_NULL ||
        (file = vftr_ext_io_file(name, VFTR_VFD_IO_MPI)) == 0 ||
        (fi = calloc(1, sizeof *fi)) == NULL)
        return;
    fi->fh = *fh;
    fi->file = file;
    fi->handle = vftr_ext_io_handle();
    pthread_mutex_lock(&file_lock);
    fi->next = file_hash[file_bucket(*fh)];
    file_hash[file_bucket(*fh)] = fi;
    pthread_mutex_unlock(&file_lock);
    put_io(c, &(struct vftr_vfd_io){ .file = file, .handle = fi->handle, .op = VFTR_VFD_IO_OPEN,
                                     .flags = VFTR_VFD_IO_COLLECTIVE, .start = c->t0,
                                     .aux = (uint64_t)(unsigned)amode });
}

VFTR_MPI_NI void vftr_mpi_io_take(struct vftr_mpi_call *c, MPI_File fh)
{
    struct file_info **pp, *fi;

    c->io_file = 0;
    c->io_handle = 0;
    c->io_fh = fh;
    pthread_mutex_lock(&file_lock);
    for (pp = &file_hash[file_bucket(fh)]; (fi = *pp) != NULL; pp = &fi->next)
        if (fi->fh == fh) {
            *pp = fi->next;
            break;
        }
    pthread_mutex_unlock(&file_lock);
    if (fi) {
        c->io_file = fi->file;
        c->io_handle = fi->handle;
        free(fi);
    }
}

/* A close that failed leaves the file open: its entry goes back. */
VFTR_MPI_NI void vftr_mpi_io_close(struct vftr_mpi_call *c, int rc)
{
    put_io(c, &(struct vftr_vfd_io){ .file = c->io_file, .handle = c->io_handle,
                                     .op = VFTR_VFD_IO_CLOSE,
                                     .flags = VFTR_VFD_IO_COLLECTIVE | io_failed(rc),
                                     .start = c->t0 });
    if (rc != MPI_SUCCESS && c->io_file && c->io_fh != MPI_FILE_NULL) {
        struct file_info *fi = calloc(1, sizeof *fi);

        if (fi == NULL)
            return;
        fi->fh = c->io_fh;
        fi->file = c->io_file;
        fi->handle = c->io_handle;
        pthread_mutex_lock(&file_lock);
        fi->next = file_hash[file_bucket(fi->fh)];
        file_hash[file_bucket(fi->fh)] = fi;
        pthread_mutex_unlock(&file_lock);
    }
}

VFTR_MPI_NI void vftr_mpi_io_delete(struct vftr_mpi_call *c, const char *name, int rc)
{
    if (!c->on)
        return;
    put_io(c, &(struct vftr_vfd_io){ .file = vftr_ext_io_file(name, VFTR_VFD_IO_MPI),
                                     .op = VFTR_VFD_IO_UNLINK, .flags = io_failed(rc),
                                     .start = c->t0 });
}

VFTR_MPI_NI void vftr_mpi_io_op(struct vftr_mpi_call *c, MPI_File fh, uint32_t op,
                                uint32_t flags, int rc)
{
    struct vftr_vfd_io io = { .op = op, .flags = flags | io_failed(rc), .start = c->t0 };
    MPI_Offset pos = 0;

    if (!c->on || (io.file = file_find(fh, &io.handle, 0, NULL)) == 0)
        return;
    if (op == VFTR_VFD_IO_SEEK && rc == MPI_SUCCESS &&
        ((flags & VFTR_VFD_IO_SHARED) ? PMPI_File_get_position_shared(fh, &pos)
                                      : PMPI_File_get_position(fh, &pos)) == MPI_SUCCESS)
        io.offset = io_byte_offset(fh, pos);
    put_io(c, &io);
}

VFTR_MPI_NI void vftr_mpi_io_data(struct vftr_mpi_call *c, MPI_File fh, uint32_t op,
                                  uint32_t flags, MPI_Offset offset, const MPI_Status *st,
                                  int rc)
{
    struct vftr_vfd_io io = { .op = op, .flags = flags | io_failed(rc), .start = c->t0,
                              .bytes = rc == MPI_SUCCESS ? io_bytes(st) : 0 };
    uint64_t start = 0;

    if (!c->on)
        return;
    /* a split collective's _end: begun at its _begin */
    if ((io.file = file_find(fh, &io.handle, (flags & VFTR_VFD_IO_NONBLOCKING) ? -1 : 0,
                             &start)) == 0)
        return;
    if ((flags & VFTR_VFD_IO_NONBLOCKING) && start)
        io.start = start;
    if (flags & VFTR_VFD_IO_AT)
        io.offset = io_byte_offset(fh, offset);
    put_io(c, &io);
}

VFTR_MPI_NI void vftr_mpi_io_split_begin(struct vftr_mpi_call *c, MPI_File fh)
{
    uint64_t handle, start = c->t0;

    if (c->tables)
        (void)file_find(fh, &handle, 1, &start);
}

VFTR_MPI_NI void vftr_mpi_io_req(struct vftr_mpi_call *c, MPI_File fh, uint32_t op,
                                 uint32_t flags, MPI_Offset offset, const MPI_Request *req,
                                 int rc)
{
    struct req_info *ri;
    uint64_t handle;
    uint32_t file;

    if (rc != MPI_SUCCESS) {   /* nothing begun: the failure is recorded now */
        struct vftr_vfd_io io = { .op = op, .start = c->t0,
                                  .flags = flags | VFTR_VFD_IO_NONBLOCKING | VFTR_VFD_IO_FAILED };

        if (c->on && (io.file = file_find(fh, &io.handle, 0, NULL)) != 0) {
            if (flags & VFTR_VFD_IO_AT)
                io.offset = io_byte_offset(fh, offset);
            put_io(c, &io);
        }
        return;
    }
    if (!c->tables || req == NULL || *req == MPI_REQUEST_NULL ||
        (file = file_find(fh, &handle, 0, NULL)) == 0 || (ri = calloc(1, sizeof *ri)) == NULL)
        return;
    ri->req = *req;
    ri->owner = req_owner();
    ri->kind = REQ_IO;
    ri->active = 1;
    ri->start = c->t0;
    ri->op = op;
    ri->flags = flags | VFTR_VFD_IO_NONBLOCKING;
    ri->io_file = file;
    ri->io_handle = handle;
    ri->io_offset = (flags & VFTR_VFD_IO_AT) ? io_byte_offset(fh, offset) : 0;
    req_add(ri);
}

/* A nonblocking MPI-IO operation completed with status st. */
static VFTR_MPI_NI void io_complete(struct vftr_mpi_call *c, const struct req_info *ri,
                                    const MPI_Status *st)
{
    put_io(c, &(struct vftr_vfd_io){ .file = ri->io_file, .handle = ri->io_handle, .op = ri->op,
                                     .flags = ri->flags, .bytes = io_bytes(st),
                                     .start = ri->start, .offset = ri->io_offset });
}

/* Records the completion of saved request i with status st (may be NULL);
 * a persistent request's entry stays (inactive), others are released. */
static VFTR_MPI_NI void complete(struct vftr_mpi_call *c, int i, const MPI_Status *st)
{
    struct req_info *ri = c->saved[i].info;
    int source, tag;
    uint64_t bytes;

    if (ri == NULL)
        return;
    if (ri->persistent && !ri->active)
        return;                     /* an inactive request completes empty */
    switch (ri->kind) {
    case REQ_SEND: {
        int cancelled = 0;

        if (st != NULL && st != MPI_STATUS_IGNORE)
            PMPI_Test_cancelled(st, &cancelled);
        if (!cancelled)
            put_msg(c, VFTR_VFD_MPI_SEND, ri->peer, ri->tag, ri->bytes, ri->ci, ri->start,
                    ri->flags);
        break;
    }
    case REQ_RECV:
        if (status_msg(st, &source, &tag, &bytes))
            put_msg(c, VFTR_VFD_MPI_RECV, comm_world_rank(ri->ci, source), tag, bytes, ri->ci,
                    ri->start, ri->flags);
        break;
    case REQ_COLL:
        put_coll(c, ri->op, ri->ci, ri->root, ri->sent, ri->received, ri->start,
                 ri->persistent ? VFTR_VFD_MSG_PERSISTENT : VFTR_VFD_MSG_NONBLOCKING);
        break;
    case REQ_IO:
        io_complete(c, ri, st);
        break;
    case REQ_RMA:
        put_rma_sync(c, VFTR_VFD_RMA_SYNC_REQUEST, ri->win, ri->peer, ri->rma_req);
        break;
    }
    if (ri->persistent) {
        ri->active = 0;             /* back into the table at vftr_mpi_end */
    } else {
        req_release(ri);
        c->saved[i].info = NULL;
    }
}

VFTR_MPI_NI void vftr_mpi_done_all(struct vftr_mpi_call *c, const MPI_Status *statuses, int flag)
{
    if (!flag)
        return;
    for (int i = 0; i < c->nsave; i++)
        complete(c, i, statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[i]);
}

VFTR_MPI_NI void vftr_mpi_done_some(struct vftr_mpi_call *c, int outcount, const int *indices,
                                    const MPI_Status *statuses)
{
    if (outcount == MPI_UNDEFINED)
        return;
    for (int k = 0; k < outcount; k++)
        if (indices[k] >= 0 && indices[k] < c->nsave)
            complete(c, indices[k], statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[k]);
}

VFTR_MPI_NI MPI_Status *vftr_mpi_statuses(int n, MPI_Status *stack, MPI_Status **heap)
{
    if (n <= VFTR_MPI_STACK)
        return stack;
    *heap = malloc((size_t)n * sizeof **heap);
    return *heap ? *heap : MPI_STATUSES_IGNORE;
}

/* ------------------------------------------------------ collectives */

/* Records a blocking collective now, or registers a nonblocking one. */
static VFTR_MPI_NI void coll(struct vftr_mpi_call *c, uint32_t op, const struct comm_info *ci,
                             int32_t root, uint64_t sent, uint64_t received,
                             const MPI_Request *req)
{
    struct req_info *ri;

    if (req == NULL) {
        put_coll(c, op, ci, root, sent, received, c->t0, 0);
        return;
    }
    if (*req == MPI_REQUEST_NULL || (ri = calloc(1, sizeof *ri)) == NULL)
        return;
    ri->req = *req;
    ri->kind = REQ_COLL;
    ri->persistent = c->persistent;
    ri->active = !c->persistent;    /* a persistent one waits for its start */
    ri->start = c->t0;
    ri->ci = ci;
    ri->op = op;
    ri->root = root;
    ri->sent = sent;
    ri->received = received;
    req_add(ri);
}

static VFTR_MPI_NI int comm_rank(MPI_Comm comm)
{
    int r = -1;

    PMPI_Comm_rank(comm, &r);
    return r;
}

/* Sum of counts[i] * size(type) over the n ranks. */
static VFTR_MPI_NI uint64_t sum_bytes(const int *counts, int n, MPI_Datatype type)
{
    uint64_t s = 0;

    for (int i = 0; counts && i < n; i++)
        s += type_bytes(counts[i], type);
    return s;
}

VFTR_MPI_NI void vftr_mpi_coll_barrier(struct vftr_mpi_call *c, MPI_Comm comm,
                                       const MPI_Request *req)
{
    if (c->counting)
        coll(c, VFTR_VFD_COLL_BARRIER, comm_lookup(comm), -1, 0, 0, req);
}

VFTR_MPI_NI void vftr_mpi_coll_bcast(struct vftr_mpi_call *c, int count, MPI_Datatype type,
                                     int root, MPI_Comm comm, const MPI_Request *req)
{
    const struct comm_info *ci;
    uint64_t b;
    int me;

    if (!c->counting)
        return;
    ci = comm_lookup(comm);
    b = type_bytes(count, type);
    me = ci && ci->rworld ? (root == MPI_ROOT) : comm_rank(comm) == root;
    coll(c, VFTR_VFD_COLL_BCAST, ci, root_world(ci, root), me ? b : 0, me ? 0 : b, req);
}

VFTR_MPI_NI void vftr_mpi_coll_reduce(struct vftr_mpi_call *c, uint32_t op, const void *sendbuf,
                                      int count, MPI_Datatype type, int root, MPI_Comm comm,
                                      const MPI_Request *req)
{
    const struct comm_info *ci;
    uint64_t b, sent, received;

    if (!c->counting)
        return;
    ci = comm_lookup(comm);
    b = type_bytes(count, type);
    sent = sendbuf == MPI_IN_PLACE ? 0 : b;
    if (op == VFTR_VFD_COLL_REDUCE)
        received = comm_rank(comm) == root ? b : 0;
    else
        received = b;
    coll(c, op, ci, op == VFTR_VFD_COLL_REDUCE ? root_world(ci, root) : -1, sent, received, req);
}

VFTR_MPI_NI void vftr_mpi_coll_gather(struct vftr_mpi_call *c, uint32_t op, const void *sendbuf,
                                      int sendcount, MPI_Datatype sendtype, int recvcount,
                                      const int *recvcounts, MPI_Datatype recvtype, int root,
                                      MPI_Comm comm, const MPI_Request *req)
{
    const struct comm_info *ci;
    int rooted = op == VFTR_VFD_COLL_GATHER || op == VFTR_VFD_COLL_GATHERV;
    int n = 0, gets;
    uint64_t sent, received = 0;

    if (!c->counting)
        return;
    ci = comm_lookup(comm);
    n = vftr_mpi_comm_size_any(comm);
    gets = !rooted || comm_rank(comm) == root;
    sent = sendbuf == MPI_IN_PLACE ? 0 : type_bytes(sendcount, sendtype);
    if (gets)
        received = recvcounts ? sum_bytes(recvcounts, n, recvtype)
                              : (uint64_t)n * type_bytes(recvcount, recvtype);
    coll(c, op, ci, rooted ? root_world(ci, root) : -1, sent, received, req);
}

VFTR_MPI_NI void vftr_mpi_coll_scatter(struct vftr_mpi_call *c, uint32_t op, int sendcount,
                                       const int *sendcounts, MPI_Datatype sendtype,
                                       const void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       int root, MPI_Comm comm, const MPI_Request *req)
{
    const struct comm_info *ci;
    int n, isroot;
    uint64_t sent = 0, received;

    if (!c->counting)
        return;
    ci = comm_lookup(comm);
    n = vftr_mpi_comm_size_any(comm);
    isroot = comm_rank(comm) == root;
    if (isroot)
        sent = sendcounts ? sum_bytes(sendcounts, n, sendtype)
                          : (uint64_t)n * type_bytes(sendcount, sendtype);
    received = recvbuf == MPI_IN_PLACE ? 0 : type_bytes(recvcount, recvtype);
    coll(c, op, ci, root_world(ci, root), sent, received, req);
}

VFTR_MPI_NI void vftr_mpi_coll_alltoall(struct vftr_mpi_call *c, uint32_t op, const void *sendbuf,
                                        int sendcount, const int *sendcounts,
                                        const MPI_Datatype *sendtype, int recvcount,
                                        const int *recvcounts, const MPI_Datatype *recvtype,
                                        MPI_Comm comm, const MPI_Request *req)
{
    int n;
    uint64_t sent = 0, received;

    if (!c->counting)
        return;
    n = vftr_mpi_comm_size_any(comm);
    if (sendbuf != MPI_IN_PLACE)
        sent = sendcounts ? sum_bytes(sendcounts, n, *sendtype)
                          : (uint64_t)n * type_bytes(sendcount, *sendtype);
    received = recvcounts ? sum_bytes(recvcounts, n, *recvtype)
                          : (uint64_t)n * type_bytes(recvcount, *recvtype);
    coll(c, op, comm_lookup(comm), -1, sent, received, req);
}

VFTR_MPI_NI void vftr_mpi_coll_alltoallw(struct vftr_mpi_call *c, const void *sendbuf,
                                         const int *sendcounts, const MPI_Datatype *sendtypes,
                                         const int *recvcounts, const MPI_Datatype *recvtypes,
                                         MPI_Comm comm, const MPI_Request *req)
{
    int n;
    uint64_t sent = 0, received = 0;

    if (!c->counting)
        return;
    n = vftr_mpi_comm_size_any(comm);
    for (int i = 0; i < n; i++) {
        if (sendbuf != MPI_IN_PLACE)
            sent += type_bytes(sendcounts[i], sendtypes[i]);
        received += type_bytes(recvcounts[i], recvtypes[i]);
    }
    coll(c, VFTR_VFD_COLL_ALLTOALLW, comm_lookup(comm), -1, sent, received, req);
}

VFTR_MPI_NI void vftr_mpi_coll_reduce_scatter(struct vftr_mpi_call *c, uint32_t op,
                                              int recvcount, const int *recvcounts,
                                              MPI_Datatype type, MPI_Comm comm,
                                              const MPI_Request *req)
{
    int n, me;
    uint64_t sent, received;

    if (!c->counting)
        return;
    n = vftr_mpi_comm_size_any(comm);
    me = comm_rank(comm);
    if (recvcounts) {
        sent = sum_bytes(recvcounts, n, type);
        received = me >= 0 && me < n ? type_bytes(recvcounts[me], type) : 0;
    } else {
        sent = (uint64_t)n * type_bytes(recvcount, type);
        received = type_bytes(recvcount, type);
    }
    coll(c, op, comm_lookup(comm), -1, sent, received, req);
}

/* ---------------------------------------------------- init, finalize */

enum { TAG_CLOCK = 1, CLOCK_ROUNDS = 16 };

/* Clock comparison with rank 0 (mpi_rt.h): best of CLOCK_ROUNDS
 * ping-pongs; rank 0 answers each rank in turn and records itself. */
static VFTR_MPI_NI void clock_offsets(uint32_t phase)
{
    struct vftr_vfd_clock_offset o = { .phase = phase };
    uint8_t buf[128];
    size_t len;

    /* everybody ready first: a rank still busy elsewhere makes long round
     * trips (the first round is a warm-up in any case) */
    PMPI_Barrier(priv_comm);
    if (world_rank == 0) {
        for (int r = 1; r < world_size; r++)
            for (int k = 0; k < CLOCK_ROUNDS; k++) {
                uint64_t t;

                PMPI_Recv(&t, 1, MPI_UINT64_T, r, TAG_CLOCK, priv_comm, MPI_STATUS_IGNORE);
                t = vftr_ext_now();
                PMPI_Send(&t, 1, MPI_UINT64_T, r, TAG_CLOCK, priv_comm);
            }
        o.ticks = o.root_ticks = vftr_ext_now();
        o.rtt = 0;
    } else {
        uint64_t best = UINT64_MAX;

        for (int k = 0; k < CLOCK_ROUNDS; k++) {
            uint64_t t1 = vftr_ext_now(), root, t2;

            PMPI_Send(&t1, 1, MPI_UINT64_T, 0, TAG_CLOCK, priv_comm);
            PMPI_Recv(&root, 1, MPI_UINT64_T, 0, TAG_CLOCK, priv_comm, MPI_STATUS_IGNORE);
            t2 = vftr_ext_now();
            if (k > 0 && t2 - t1 < best) {
                best = t2 - t1;
                o.ticks = t1 + (t2 - t1) / 2;
                o.root_ticks = root;
            }
        }
        o.rtt = best;
    }
    if (vftr_mpi_is_active() && (len = vftr_vfd_encode_clock_offsets(&o, 1, buf, sizeof buf)) > 0)
        (void)vftr_ext_chunk(buf, len);
}

VFTR_MPI_NI void vftr_mpi_after_init(struct vftr_mpi_call *c)
{
    const struct vftr_config *cfg;
    uint8_t id[16];

    (void)c;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if ((cfg = vftr_ext_config()) != NULL) {
        atomic_store(&log_records, cfg->mpi_log_messages
                                       && vftr_rangelist_contains(&cfg->mpi_only_for_ranks,
                                                                  world_rank));
        atomic_store(&sync_time, cfg->mpi_show_sync_time);
    }
    PMPI_Comm_dup(MPI_COMM_WORLD, &priv_comm);
    (void)vftr_ext_set_rank(world_rank, world_size);
    vftr_ext_register_mpi_stats(live_stats);
    vftr_ext_register_mpi_paths(vftr_mpi_path_stats);
    world_info.comm = MPI_COMM_WORLD;
    world_info.size = world_size;
    world_info.live = 1;
    snprintf(world_info.name, sizeof world_info.name, "MPI_COMM_WORLD");
    self_rank = world_rank;
    self_info = (struct comm_info){ .comm = MPI_COMM_SELF, .id = VFTR_VFD_COMM_SELF(world_rank),
                                    .size = 1, .world = &self_rank, .live = 1 };
    snprintf(self_info.name, sizeof self_info.name, "MPI_COMM_SELF %d", world_rank);
    vftr_ext_get_run_id(id);
    PMPI_Bcast(id, 16, MPI_BYTE, 0, priv_comm);
    if (vftr_mpi_is_active()) {
        (void)vftr_ext_set_run_id(id);
        comm_write(&world_info, world_info.name);
        comm_write(&self_info, self_info.name);
    }
    clock_offsets(VFTR_VFD_CLOCK_INIT);
}

VFTR_MPI_NI void vftr_mpi_before_finalize(struct vftr_mpi_call *c)
{
    (void)c;
    if (priv_comm == MPI_COMM_NULL)
        return;
    clock_offsets(VFTR_VFD_CLOCK_FINALIZE);
    vftr_mpi_collate(priv_comm, world_rank, world_size);
    PMPI_Comm_free(&priv_comm);
}

/* ------------------------------------------------- hand-written ones */

/* The Fortran MPI_IN_PLACE and MPI_BOTTOM are the addresses of these
 * common blocks of Open MPI's library. */
extern int mpi_fortran_in_place_, mpi_fortran_bottom_;

VFTR_MPI_NI void *vftr_mpi_fbuf(void *buf)
{
    if (buf == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (buf == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    return buf;
}

VFTR_MPI_NI void *vftr_mpi_falloc(int n, size_t size)
{
    return malloc((size_t)(n > 0 ? n : 1) * size);
}

VFTR_MPI_NI char *vftr_mpi_fstr(const char *s, size_t len)
{
    char *c;

    while (len > 0 && s[len - 1] == ' ')
        len--;
    if ((c = malloc(len + 1)) != NULL) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

/* MPI_Pcontrol: 0 pauses capture, 1 resumes it, 2 flushes this thread's
 * events; the call itself is recorded while capture runs. */
VFTR_MPI_API int MPI_Pcontrol(const int level, ...)
{
    struct vftr_mpi_call vc;
    int rc;

    if (level == 1) {
        vftr_resume();
        atomic_store(&vftr_mpi_paused, 0);
    }
    vftr_mpi_begin(&vc, VFTR_MPI_FN_Pcontrol);
    if (level == 2)
        (void)vftr_ext_flush();
    rc = PMPI_Pcontrol(level);
    vftr_mpi_end(&vc);
    if (level == 0) {
        atomic_store(&vftr_mpi_paused, 1);
        vftr_pause();
    }
    return rc;
}

/* MPI_PCONTROL(LEVEL) has no IERROR argument in Fortran. */
VFTR_MPI_API void mpi_pcontrol_(MPI_Fint *level);
VFTR_MPI_API void mpi_pcontrol_(MPI_Fint *level)
{
    (void)MPI_Pcontrol((int)*level);
}

VFTR_MPI_API void mpi_init_(MPI_Fint *ierr);
VFTR_MPI_API void mpi_init_(MPI_Fint *ierr)
{
    *ierr = MPI_Init(NULL, NULL);
}

VFTR_MPI_API void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
VFTR_MPI_API void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = 0;

    *ierr = MPI_Init_thread(NULL, NULL, (int)*required, &p);
    *provided = p;
}

/* The mpi_f08 bindings of the three (Open MPI's symbols; IERROR is
 * OPTIONAL there: NULL when left out). */
VFTR_MPI_API void mpi_pcontrol_f08_(MPI_Fint *level);
VFTR_MPI_API void mpi_pcontrol_f08_(MPI_Fint *level)
{
    (void)MPI_Pcontrol((int)*level);
}

VFTR_MPI_API void mpi_init_f08_(MPI_Fint *ierr);
VFTR_MPI_API void mpi_init_f08_(MPI_Fint *ierr)
{
    int rc = MPI_Init(NULL, NULL);

    if (ierr != NULL)
        *ierr = rc;
}

VFTR_MPI_API void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
VFTR_MPI_API void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = 0, rc = MPI_Init_thread(NULL, NULL, (int)*required, &p);

    *provided = p;
    if (ierr != NULL)
        *ierr = rc;
}
