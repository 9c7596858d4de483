/*
 * trace.c — the .vfd file of the process: opening it, flushing per-thread
 * buffers into it, the size cap, closing and renaming it.
 *
 * Order in the file.  A thread's flush writes, in this order: its THREADS
 * entry (first flush only), FUNCTIONS entries for the functions of its new
 * call paths that no thread has written yet, CALLPATHS entries of its new
 * call paths, then its EVENTS.  So every call path is defined before the
 * first event that names it, and a file cut after any chunk is consistent.
 * (When two threads discover the same function at the same time, the one
 * that claimed it may write its FUNCTIONS chunk just after the other's
 * CALLPATHS chunk: readers resolve names by id after reading definitions.)
 *
 * Sampling.  With a sample interval an ENTER or EXIT is written only when
 * the interval has passed since the thread's last written event, or when
 * the function is precise.  Every event still names its call path, and the
 * state after an event is defined: after ENTER p the thread is in p, after
 * EXIT p it is in parent(p).  A reader that replays a sampled stream moves
 * from its current path to the one the next event needs (for ENTER p:
 * parent(p); for EXIT p: p itself) by leaving up to the common ancestor and
 * entering down from it, at the event's time, through the call-path tree;
 * the Enter/Leave pairs it produces are then consistent.
 *
 * Events are encoded by the hooks themselves, into the chunk they will be
 * written as (capture.h: vftr_trace_put); a flush writes definitions, then
 * fills in the chunk's header and writes the buffer as it is.  The flush
 * path allocates nothing and takes no lock (encoders and put are
 * async-signal-safe), so the signal handler uses it too, with the emergency
 * buffer for definitions instead of the thread's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "capture.h"
#include "outdir.h"
#include "vfd/vftr_vfd_ext.h"

/* Definitions are encoded in small batches: the signal handler may run on
 * a small alternate stack. */
#define FN_BATCH 16
#define CP_BATCH 32
/* The signal path encodes definition chunks here (events need no
 * encoding: they are in their chunk already). */
#define EMERGENCY_BYTES VFTR_THREAD_DEFS_BYTES

VFTR_NI const char *vftr_trace_path(void)
{
    return vftr_proc.tmp_path;
}

VFTR_NI uint64_t vftr_trace_bytes(void)
{
    struct vftr_vfd_writer *w = atomic_load(&vftr_proc.writer);

    return w ? vftr_vfd_writer_bytes(w) : vftr_proc.final_bytes;
}

VFTR_NI void vftr_trace_info(struct vftr_vfd_info *info, bool final, double tps)
{
    memset(info, 0, sizeof *info);
    memcpy(info->run_id, vftr_proc.run_id, sizeof info->run_id);
    info->pid = vftr_proc.pid;
    info->rank = vftr_proc.rank;
    info->size = vftr_proc.size;
    /* VFTR_TEST_CLOCK_SKEW (tests of clock alignment): claim a clock that
     * is off and drifts; the raw ticks stay what they are */
    if (vftr_proc.drift_ppm != 0.0)
        tps *= 1.0 + vftr_proc.drift_ppm * 1e-6;
    info->ticks_per_second = (uint64_t)(tps + 0.5);
    info->start_ns = vftr_proc.start_ns + (uint64_t)vftr_proc.skew_ns;
    info->start_ticks = vftr_proc.start_ticks;
    if (final) {
        info->end_ns = vftr_clock_realtime_ns();
        info->end_ticks = vftr_clock_now();
    }
    info->capped = atomic_load(&vftr_proc.cap_hit);
    /* the interval the threads sample with (thread.c), in the file's ticks */
    if (vftr_proc.set.sample_interval > 0)
        info->sample_ticks = (uint64_t)(vftr_proc.set.sample_interval * tps + 0.5);
    memcpy(info->host, vftr_proc.host, sizeof vftr_proc.host);
    memcpy(info->exe, vftr_proc.exe, sizeof vftr_proc.exe);
}

/* Appends a decimal number to s (async-signal-safe formatting). */
static VFTR_NI void append_u64(char *s, size_t size, uint64_t v)
{
    char tmp[24];
    size_t n = 0, len = strlen(s);

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n && len + 1 < size)
        s[len++] = tmp[--n];
    s[len] = '\0';
}

static VFTR_NI void append(char *s, size_t size, const char *t)
{
    size_t len = strlen(s);

    while (*t && len + 1 < size)
        s[len++] = *t++;
    s[len] = '\0';
}

static VFTR_NI const char *errno_text(int err)
{
    switch (err) {
    case ENOSPC: return "no space left on device";
    case EFBIG: return "file too large (file size limit)";
    case EIO: return "input/output error";
    case EDQUOT: return "disk quota exceeded";
    case EACCES: return "permission denied";
    case EROFS: return "read-only file system";
    case EBADF: return "bad file descriptor";
    default: return "write error";
    }
}

/*
 * Tracing stops for good (the profile goes on): err is -errno of a failed
 * write, or 0 for the size cap.  The first caller prints one line; the
 * text is assembled by hand because this also runs in signal handlers.
 */
VFTR_NI void vftr_trace_stop(int err)
{
    char msg[1700] = "";

    if (atomic_exchange(&vftr_proc.trace_off, 1))
        return;
    if (err == 0) {
        atomic_store(&vftr_proc.cap_hit, 1);
        if (!vftr_proc.is_rank0)
            return;
        append(msg, sizeof msg, "trace ");
        append(msg, sizeof msg, vftr_proc.tmp_path);
        uint64_t cap = atomic_load_explicit(&vftr_proc.cap_bytes, memory_order_relaxed);

        if (cap == vftr_proc.set.max_bytes) {
            append(msg, sizeof msg, " reached its size cap (trace.max_size = ");
            append_u64(msg, sizeof msg, cap);
            append(msg, sizeof msg, " bytes)");
        } else {
            append(msg, sizeof msg, " reached its size cap (");
            append_u64(msg, sizeof msg, cap);
            append(msg, sizeof msg, " bytes: trace.max_job_size = ");
            append_u64(msg, sizeof msg, vftr_proc.set.max_job_bytes);
            append(msg, sizeof msg, " bytes over ");
            append_u64(msg, sizeof msg, (uint64_t)(vftr_proc.size < 1 ? 1 : vftr_proc.size));
            append(msg, sizeof msg, " ranks)");
        }
        append(msg, sizeof msg, ": tracing stops, the profile goes on");
    } else {
        vftr_proc.write_errno = -err;
        append(msg, sizeof msg, "rank ");
        append_u64(msg, sizeof msg, (uint64_t)(vftr_proc.rank < 0 ? 0 : vftr_proc.rank));
        append(msg, sizeof msg, ": cannot write trace ");
        append(msg, sizeof msg, vftr_proc.tmp_path);
        append(msg, sizeof msg, ": ");
        append(msg, sizeof msg, errno_text(-err));
        append(msg, sizeof msg, "; tracing stops, the profile goes on");
    }
    vftr_msg_raw(msg);
}

VFTR_NI uint64_t vftr_trace_cap(uint64_t per_rank, uint64_t per_job, int nranks)
{
    uint64_t share;

    if (per_job == 0)
        return per_rank;
    share = per_job / (uint64_t)(nranks < 1 ? 1 : nranks);
    if (share == 0)
        share = 1;   /* 0 would mean no cap at all */
    return per_rank == 0 || share < per_rank ? share : per_rank;
}

VFTR_NI void vftr_trace_set_ranks(int nranks)
{
    atomic_store_explicit(&vftr_proc.cap_bytes,
                          vftr_trace_cap(vftr_proc.set.max_bytes, vftr_proc.set.max_job_bytes,
                                         nranks), memory_order_relaxed);
}

/*
 * The free-space reserve (trace.keep_free).  The trace often lives on the
 * file system the program writes its own results to; a trace that filled
 * it would leave the program's files empty, the very harm capture must
 * never do.  So before each chunk the space the file system has left for
 * unprivileged writers is read (one fstatfs per chunk, i.e. per 256 KiB
 * of events: nothing next to the write itself), and a chunk that would
 * leave less than the reserve free is not written: tracing stops there,
 * with one message, keeping everything written before, and the profile
 * goes on.  The reserve is checked, not held: other writers may take the
 * space meanwhile, and then a write fails as on any full disk (the writer
 * gives back what the cut chunk took).  A file system that cannot say
 * (fstatfs fails) has no reserve.
 */
VFTR_NI int vftr_trace_room(size_t len)
{
    struct vftr_vfd_writer *w = atomic_load(&vftr_proc.writer);
    uint64_t avail, keep = vftr_proc.set.keep_free;
    char msg[1700] = "";

    if (keep == 0 || w == NULL || vftr_vfd_writer_space(w, &avail) < 0)
        return 0;
    if (avail >= keep && avail - keep >= len)
        return 0;
    if (atomic_exchange(&vftr_proc.trace_off, 1))
        return -1;
    atomic_store(&vftr_proc.reserve_hit, 1);
    append(msg, sizeof msg, "rank ");
    append_u64(msg, sizeof msg, (uint64_t)(vftr_proc.rank < 0 ? 0 : vftr_proc.rank));
    append(msg, sizeof msg, ": trace ");
    append(msg, sizeof msg, vftr_proc.tmp_path);
    append(msg, sizeof msg, ": its file system is nearly full (");
    append_u64(msg, sizeof msg, avail);
    append(msg, sizeof msg, " bytes free, the trace leaves trace.keep_free = ");
    append_u64(msg, sizeof msg, keep);
    append(msg, sizeof msg, " to the program): tracing stops, the profile goes on");
    vftr_msg_raw(msg);
    return -1;
}

/* Puts one chunk unless the cap, the free-space reserve or an error stops
 * tracing.  0 or -1. */
static VFTR_NI int put(const uint8_t *chunk, size_t len, bool events)
{
    uint64_t cap = atomic_load_explicit(&vftr_proc.cap_bytes, memory_order_relaxed);
    int rc;

    if (atomic_load(&vftr_proc.trace_off))
        return -1;
    /* Definitions may pass the cap (they are small and events that are
     * already on disk may need them); events may not. */
    if (events && cap && vftr_vfd_writer_bytes(vftr_proc.writer) + len > cap) {
        vftr_trace_stop(0);
        return -1;
    }
    /* Writing past RLIMIT_FSIZE would raise SIGXFSZ, whose default action
     * kills the program: stop at the limit instead. */
    if (vftr_vfd_writer_bytes(vftr_proc.writer) + len > vftr_proc.fsize_limit) {
        vftr_trace_stop(-EFBIG);
        return -1;
    }
    if (vftr_trace_room(len) < 0)
        return -1;
    rc = vftr_vfd_writer_put(vftr_proc.writer, chunk, len);
    if (rc < 0) {
        vftr_trace_stop(rc);
        return -1;
    }
    return 0;
}

/*
 * The size cap.  A buffer of events that would pass it is cut to the whole
 * events that fit the room left (the encoding is variable-length, so the
 * payload is walked event by event); without this a cap smaller than one
 * thread buffer would record nothing at all.  Returns the chunk's length
 * (header filled in) or 0 when not one event fits; *last says the cap is
 * reached, so tracing stops after this chunk.
 */
static VFTR_NI size_t fit_cap(struct vftr_thread *t, size_t used, size_t len, uint32_t *count,
                              bool *last)
{
    uint64_t bytes = vftr_vfd_writer_bytes(vftr_proc.writer), room, t_last;
    uint64_t cap = atomic_load_explicit(&vftr_proc.cap_bytes, memory_order_relaxed);
    size_t keep;

    if (cap == 0 || bytes + len <= cap)
        return len;
    *last = true;
    room = bytes + VFTR_VFD_CHUNK_HEADER_SIZE < cap ? cap - bytes - VFTR_VFD_CHUNK_HEADER_SIZE : 0;
    if (vftr_vfd_events_prefix(t->buf + VFTR_VFD_CHUNK_HEADER_SIZE, used, (size_t)room,
                               t->first_time, &keep, count, &t_last) < 0 || *count == 0)
        return 0;
    return vftr_vfd_events_finish(t->buf, keep, *count, t->index, t->first_time, t_last);
}

/* Writes the FUNCTIONS entries this thread must provide and the CALLPATHS
 * entries of its new nodes.  OpenMP nodes are none: the trace has their
 * OMP_BEGIN / OMP_END records, and a call path under one names the function
 * around the region as its parent, the call path on top of the readers'
 * stack below the region (capture.h).  0 or -1. */
static VFTR_NI int flush_definitions(struct vftr_thread *t, uint8_t *buf, size_t cap)
{
    uint32_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
    struct vftr_vfd_function fb[FN_BATCH];
    struct vftr_fn *claimed[FN_BATCH];
    struct vftr_vfd_callpath cb[CP_BATCH];
    size_t nf = 0, nc = 0, len;
    uint32_t i, j;
    struct vftr_node_walk w;

    if (!t->defined) {
        struct vftr_vfd_thread th = {
            t->index, t->index == 0 ? VFTR_VFD_NO_THREAD : 0, (uint64_t)t->tid, t->created, NULL,
        };

        len = vftr_vfd_encode_threads(&th, 1, buf, cap);
        if (len == 0 || put(buf, len, false) < 0)
            return -1;
        t->defined = true;
    }
    /* functions first, in batches */
    vftr_node_walk_at(&w, t, t->ndefined);
    for (i = t->ndefined; i <= n; i++) {
        struct vftr_node *nd = i < n ? vftr_node_walk_next(&w) : NULL;
        unsigned expect = 0;

        if (nd && !(nd->flags & (VFTR_FN_EXCLUDED | VFTR_FN_OMP))
            && atomic_load_explicit(&nd->fn->defined, memory_order_acquire) == 0
            && atomic_compare_exchange_strong(&nd->fn->defined, &expect, 1)) {
            struct vftr_fn *f = nd->fn;

            fb[nf].id = f->id;
            fb[nf].flags = ((f->flags & VFTR_FN_REGION) ? VFTR_VFD_FUNC_REGION : 0)
                           | ((f->flags & VFTR_FN_PRECISE) ? VFTR_VFD_FUNC_PRECISE : 0)
                           | ((f->flags & VFTR_FN_UNRESOLVED) ? VFTR_VFD_FUNC_UNRESOLVED : 0)
                           | ((f->flags & VFTR_FN_MPI) ? VFTR_VFD_FUNC_MPI : 0)
                           | ((f->flags & VFTR_FN_SAMPLED) ? VFTR_VFD_FUNC_SAMPLED : 0);
            fb[nf].address = (f->flags & VFTR_FN_REGION) ? 0 : (uint64_t)f->addr;
            fb[nf].name = f->name;
            claimed[nf++] = f;
        }
        if (nf == FN_BATCH || (nd == NULL && nf)) {
            len = vftr_vfd_encode_functions(fb, nf, buf, cap);
            if (len == 0 || put(buf, len, false) < 0) {
                for (j = 0; j < nf; j++)   /* let a later flush try again */
                    atomic_store(&claimed[j]->defined, 0);
                return -1;
            }
            for (j = 0; j < nf; j++)
                atomic_store_explicit(&claimed[j]->defined, 2, memory_order_release);
            nf = 0;
        }
    }
    vftr_node_walk_at(&w, t, t->ndefined);
    for (i = t->ndefined; i <= n; i++) {
        struct vftr_node *nd = i < n ? vftr_node_walk_next(&w) : NULL;

        if (nd && !(nd->flags & (VFTR_FN_EXCLUDED | VFTR_FN_OMP))) {
            cb[nc].id = nd->id;
            cb[nc].parent = vftr_node_trace_parent(nd);
            cb[nc].function = nd->fn->id;
            cb[nc].thread = t->index;
            nc++;
        }
        if (nc == CP_BATCH || (nd == NULL && nc)) {
            len = vftr_vfd_encode_callpaths(cb, nc, buf, cap);
            if (len == 0 || put(buf, len, false) < 0)
                return -1;
            nc = 0;
            t->ndefined = nd ? i + 1 : n;
        }
    }
    t->ndefined = n;
    return 0;
}

VFTR_NI int vftr_trace_flush_thread(struct vftr_thread *t, bool from_signal)
{
    size_t used = t->buf ? vftr_trace_used(t) : 0, len;
    uint32_t count = t->count, written = 0;
    uint8_t *defs = from_signal ? vftr_proc.emergency : t->defs;
    size_t defs_cap = from_signal ? vftr_proc.emergency_cap : t->defs_cap;
    bool last = false;
    int rc = 0;

    if (t->buf == NULL || defs == NULL)
        return 0;
    t->flushing = true;
    if (vftr_proc.writer == NULL || atomic_load(&vftr_proc.trace_off)
        || flush_definitions(t, defs, defs_cap) < 0) {
        rc = -1;
    } else if (used > 0) {
        /* the events are encoded already: fill in the header, write */
        len = vftr_vfd_events_finish(t->buf, used, count, t->index, t->first_time, t->last_time);
        written = count;
        if (len)
            len = fit_cap(t, used, len, &written, &last);
        if (len == 0 && last)   /* not one event fits */
            vftr_trace_stop(0);
        if (len == 0 || put(t->buf, len, true) < 0) {
            written = 0;
            rc = -1;
        } else {
            atomic_fetch_add(&vftr_proc.events_written, written);
            if (last) {   /* the cap is reached: the rest does not fit */
                vftr_trace_stop(0);
                rc = -1;
            }
        }
    }
    t->events_lost += count - written;
    if (atomic_load(&vftr_proc.trace_off))
        t->trace = false;
    t->count = 0;
    t->flush_gen++;       /* filter.min_duration takes nothing back across it */
    t->fast_end = NULL;   /* the next event sets first_time: the general path */
    atomic_store_explicit(&t->pos, t->buf + VFTR_VFD_CHUNK_HEADER_SIZE, memory_order_release);
    t->flushing = false;
    return rc;
}

VFTR_NI int vftr_trace_put_ext(struct vftr_thread *t, uint64_t now, uint32_t kind,
                               const void *payload, uint32_t len)
{
    size_t n;
    uint8_t *p;

    if (kind < VFTR_VFD_PAUSE || len > VFTR_EXT_PAYLOAD_MAX || t->buf == NULL)
        return -1;
    n = vftr_trace_used(t);
    if (n > t->room) {
        vftr_trace_flush(t);
        n = vftr_trace_used(t);
        if (n > t->room || !t->trace)
            return -1;
    }
    if (n == 0)
        t->first_time = t->last_time = now;
    if (now < t->last_time)
        now = t->last_time;
    p = t->buf + VFTR_VFD_CHUNK_HEADER_SIZE + n;
    p = vftr_vfd_put_varint(p, (uint64_t)kind << 2 | 3u);
    p = vftr_vfd_put_varint(p, now - t->last_time);
    p = vftr_vfd_put_varint(p, len);
    if (len)
        memcpy(p, payload, len);
    p += len;
    t->last_time = now;
    t->count++;
    atomic_store_explicit(&t->pos, p, memory_order_release);
    return 0;
}

/* The hot path's buffer is full. */
VFTR_NI void vftr_trace_flush(struct vftr_thread *t)
{
    vftr_trace_flush_thread(t, false);
    vftr_throttle_scan(t);   /* once a buffer: filter.c */
}

/* Reads a link into buf (terminated, cut if needed). */
static VFTR_NI void read_exe(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);

    buf[n > 0 ? (size_t)n : 0] = '\0';
}

VFTR_NI int vftr_trace_open(const char *dir, const char *base)
{
    struct vftr_vfd_info info;
    int i, err = 0;

    {
        struct rlimit rl;

        vftr_proc.fsize_limit = UINT64_MAX;
        if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            vftr_proc.fsize_limit = (uint64_t)rl.rlim_cur;
    }
    if (vftr_proc.exe[0] == '\0')
        read_exe(vftr_proc.exe, sizeof vftr_proc.exe);
    if (vftr_proc.host[0] == '\0' && gethostname(vftr_proc.host, sizeof vftr_proc.host - 1) != 0)
        vftr_proc.host[0] = '\0';
    vftr_trace_info(&info, false, vftr_clock_ticks_per_second(0));
    /* <base>_<pid>.tmpvfd, or <base>_<pid>.<i>.tmpvfd when a file of that
     * name exists (another node's process with the same pid): never
     * overwrite. */
    for (i = 0; i < 1000; i++) {
        int len = i == 0 ? snprintf(vftr_proc.tmp_path, sizeof vftr_proc.tmp_path, "%s/%s_%d.tmpvfd",
                                    dir, base, (int)vftr_proc.pid)
                         : snprintf(vftr_proc.tmp_path, sizeof vftr_proc.tmp_path,
                                    "%s/%s_%d.%d.tmpvfd", dir, base, (int)vftr_proc.pid, i);

        if (len < 0 || (size_t)len >= sizeof vftr_proc.tmp_path) {
            err = ENAMETOOLONG;
            break;
        }
        vftr_proc.writer = vftr_vfd_writer_open(vftr_proc.tmp_path, &info);
        if (vftr_proc.writer)
            break;
        err = errno;
        if (err != EEXIST)
            break;
    }
    if (vftr_proc.writer == NULL) {
        vftr_msg("rank %d: cannot create trace file %s: %s; tracing off, the profile goes on",
                 vftr_proc.rank < 0 ? 0 : vftr_proc.rank, vftr_proc.tmp_path, strerror(err));
        vftr_proc.tmp_path[0] = '\0';
        atomic_store(&vftr_proc.trace_off, 1);
        vftr_proc.write_errno = err;
        return -err;
    }
    vftr_proc.emergency_cap = EMERGENCY_BYTES;
    vftr_proc.emergency = malloc(vftr_proc.emergency_cap);
    if (vftr_proc.emergency == NULL)
        vftr_proc.emergency_cap = 0;
    return 0;
}

/* Appends s to the path being built at p (bounded by end); async-signal-safe. */
static VFTR_NI char *path_put(char *p, char *end, const char *s)
{
    while (*s && p < end)
        *p++ = *s++;
    return p;
}

/* <dir>/<base>_<rank>.vfd into out without stdio (signal handlers).  false
 * if it does not fit. */
static VFTR_NI bool final_name(char *out, size_t len, int rank)
{
    char digits[16], *d = digits + sizeof digits;
    char *p = out, *end = out + len - 1;
    unsigned r = rank < 0 ? 0u : (unsigned)rank;

    *--d = '\0';
    do
        *--d = (char)('0' + r % 10);
    while ((r /= 10) != 0);
    p = path_put(p, end, vftr_proc.dir);
    p = path_put(p, end, "/");
    p = path_put(p, end, vftr_proc.base);
    p = path_put(p, end, "_");
    p = path_put(p, end, d);
    p = path_put(p, end, ".vfd");
    if (p >= end)
        return false;
    *p = '\0';
    return true;
}

VFTR_NI void vftr_trace_abandon(int sig, bool fatal)
{
    /* static: the handler may run on a small alternate stack, and only one
     * handler at a time gets here (signals.c) */
    static struct vftr_vfd_info info;

    if (vftr_proc.writer == NULL)
        return;
    vftr_trace_info(&info, true, vftr_clock_ticks_per_second(0));
    if (info.rank < 0)
        info.rank = 0;
    if (info.size < 1)
        info.size = 1;
    info.signal = sig;
    vftr_vfd_writer_update(vftr_proc.writer, &info);
    vftr_vfd_writer_abandon(vftr_proc.writer);
    /* The program dies of this signal: the file gets its final name now
     * (rename is async-signal-safe), so a crashed run looks like any other
     * to the tools; its header says which signal ended it.  If the program's
     * own handler may recover, the name waits for the normal end. */
    if (fatal && vftr_proc.tmp_path[0] != '\0' &&
        final_name(vftr_proc.final_path, sizeof vftr_proc.final_path, vftr_proc.rank) &&
        (vftr_outdir_make_room(vftr_proc.final_path), true) &&
        rename(vftr_proc.tmp_path, vftr_proc.final_path) == 0) {
        vftr_proc.tmp_path[0] = '\0';
        vftr_outdir_written(vftr_proc.final_path);
    }
}

/* The header of the run's end (now). */
static VFTR_NI void final_info(struct vftr_vfd_info *info, double tps)
{
    uint64_t lost = 0;

    vftr_trace_info(info, true, tps > 0 ? tps : vftr_clock_ticks_per_second(10));
    for (struct vftr_thread *t = atomic_load(&vftr_proc.threads); t; t = t->next)
        lost += t->events_lost;
    info->events_lost = lost;
    if (info->rank < 0)
        info->rank = 0;
    if (info->size < 1)
        info->size = 1;
}

/* Gives the file its final name (tmp_path becomes it); path_out receives
 * the name the file has.  0 or -errno. */
static VFTR_NI int rename_final(char *path_out, size_t len)
{
    if (!final_name(vftr_proc.final_path, sizeof vftr_proc.final_path, vftr_proc.rank))
        return -ENAMETOOLONG;
    /* a file of another run in the way is kept, not overwritten (outdir.h) */
    (void)vftr_outdir_make_room(vftr_proc.final_path);
    if (rename(vftr_proc.tmp_path, vftr_proc.final_path) != 0) {
        int err = errno;

        vftr_msg("cannot rename %s to %s: %s", vftr_proc.tmp_path, vftr_proc.final_path,
                 strerror(err));
        if (path_out && len)
            snprintf(path_out, len, "%s", vftr_proc.tmp_path);
        return -err;
    }
    vftr_outdir_written(vftr_proc.final_path);
    if (path_out && len)
        snprintf(path_out, len, "%s", vftr_proc.final_path);
    return 0;
}

VFTR_NI int vftr_trace_checkpoint(char *path_out, size_t len, double tps)
{
    struct vftr_vfd_info info;
    int rc;

    if (path_out && len)
        path_out[0] = '\0';
    if (vftr_proc.writer == NULL)
        return 0;
    final_info(&info, tps);
    rc = vftr_vfd_writer_checkpoint(vftr_proc.writer, &info);
    if (rc < 0 && rc != -ENOSPC && rc != -EFBIG && rc != -EDQUOT)
        return rc;
    if ((rc = rename_final(path_out, len)) < 0)
        return rc;
    /* from now on the file is written under its final name (the rename
     * at the end renames it to itself) */
    memcpy(vftr_proc.tmp_path, vftr_proc.final_path, sizeof vftr_proc.tmp_path);
    return 0;
}

VFTR_NI void vftr_trace_reopen(void)
{
    struct vftr_vfd_writer *w = atomic_load(&vftr_proc.writer);

    if (w != NULL)
        (void)vftr_vfd_writer_sync(w);
}

VFTR_NI int vftr_trace_close(char *path_out, size_t len, bool busy, double tps)
{
    struct vftr_vfd_info info;
    int rc;

    if (path_out && len)
        path_out[0] = '\0';
    if (vftr_proc.writer == NULL)
        return 0;
    final_info(&info, tps);
    vftr_proc.final_bytes = vftr_vfd_writer_bytes(vftr_proc.writer);
    if (busy) {
        /* A thread is still inside a hook and may yet put a chunk: the
         * header says what is known (abandoned, not complete), and the
         * writer stays open and allocated for it. */
        vftr_vfd_writer_update(vftr_proc.writer, &info);
        rc = vftr_vfd_writer_abandon(vftr_proc.writer);
    } else {
        rc = vftr_vfd_writer_close(vftr_proc.writer, &info);
        vftr_proc.writer = NULL;
    }
    if (rc < 0 && rc != -ENOSPC && rc != -EFBIG && rc != -EDQUOT)
        return rc;
    /* A write error earlier was reported already; the file holds what was
     * written before it and is still worth its final name. */
    return rename_final(path_out, len);
}
