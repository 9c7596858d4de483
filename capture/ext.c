/*
 * ext.c — capture's interface for the MPI wrappers and the OpenMP tool
 * (ext.h).  The region-like enter/exit of MPI functions is in api.c, next to
 * the user regions it shares its lookup with.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "outdir.h"
#include "ext.h"
#include "io.h"
#include "logfile.h"
#include "sample.h"
#include "vfd/vftr_vfd_ext.h"

VFTR_EXT_API uint64_t vftr_ext_now(void)
{
    return vftr_clock_now();
}

VFTR_EXT_API double vftr_ext_ticks_per_second(void)
{
    return vftr_clock_ticks_per_second(0);
}

VFTR_EXT_API int vftr_ext_tracing(void)
{
    struct vftr_thread *t = vftr_tls;

    if (vftr_phase_of(atomic_load_explicit(&vftr_proc.phase, memory_order_relaxed))
        != VFTR_PHASE_RUNNING)
        return 0;
    if (t == NULL)   /* a thread that never ran a hook: it will trace if the process does */
        return vftr_proc.set.trace && !atomic_load(&vftr_proc.trace_off);
    return t->trace;
}

VFTR_EXT_API int vftr_ext_event(uint64_t time, uint32_t kind, const void *payload, uint32_t len)
{
    struct vftr_thread *t;
    int rc;

    if (kind < VFTR_VFD_EXT_MPI_FIRST || kind > UINT16_MAX || len > VFTR_VFD_EXT_MAX
        || (len > 0 && payload == NULL))
        return -EINVAL;
    if ((t = vftr_hook_begin()) == NULL)
        return -EAGAIN;
    rc = vftr_ext_event_on(t, time, kind, payload, len);
    vftr_guard_drop(t);
    return rc;
}

VFTR_NI int vftr_ext_event_on(struct vftr_thread *t, uint64_t time, uint32_t kind,
                              const void *payload, uint32_t len)
{
    if (kind < VFTR_VFD_EXT_MPI_FIRST || kind > UINT16_MAX || len > VFTR_VFD_EXT_MAX
        || (len > 0 && payload == NULL))
        return -EINVAL;
    if (!t->trace || vftr_trace_put_ext(t, time, kind, payload, len) < 0)
        return -EAGAIN;
    return 0;
}

_Static_assert(VFTR_VFD_EXT_MAX <= VFTR_EXT_PAYLOAD_MAX, "thread buffers keep room for every record");

VFTR_EXT_API int vftr_ext_chunk(const uint8_t *chunk, size_t len)
{
    struct vftr_vfd_writer *w = atomic_load(&vftr_proc.writer);

    if (chunk == NULL || len == 0)
        return -EINVAL;
    if (w == NULL || atomic_load(&vftr_proc.trace_off)
        || vftr_phase_of(atomic_load_explicit(&vftr_proc.phase, memory_order_relaxed))
           == VFTR_PHASE_STOPPED || vftr_trace_room(len) < 0)
        return -EAGAIN;
    return vftr_vfd_writer_put(w, chunk, len);
}

VFTR_EXT_API int vftr_ext_set_rank(int rank, int size)
{
    struct vftr_vfd_info info;
    struct vftr_vfd_writer *w;

    vftr_init_once();   /* MPI_Init may come before any hook */
    if (rank < 0 || size < 1 || rank >= size)
        return -EINVAL;
    vftr_proc.rank = rank;
    vftr_proc.size = size;
    vftr_proc.is_rank0 = rank == 0;
    vftr_trace_set_ranks(size);   /* the job's share of trace.max_job_size */
    if ((w = atomic_load(&vftr_proc.writer)) != NULL) {
        vftr_trace_info(&info, false, vftr_clock_ticks_per_second(0));
        vftr_vfd_writer_update(w, &info);
        /* on disk now, not only at the end: a rank killed later (SIGKILL)
         * leaves a .tmpvfd that names its rank and size */
        (void)vftr_vfd_writer_sync(w);
    }
    return 0;
}

VFTR_EXT_API void vftr_ext_get_run_id(uint8_t id[16])
{
    vftr_init_once();   /* MPI_Init may come before any hook */
    memcpy(id, vftr_proc.run_id, sizeof vftr_proc.run_id);
}

VFTR_EXT_API int vftr_ext_set_run_id(const uint8_t id[16])
{
    struct vftr_vfd_info info;
    struct vftr_vfd_writer *w;
    uint8_t chunk[VFTR_VFD_CHUNK_HEADER_SIZE + 16];
    size_t len;
    int rc;

    vftr_init_once();   /* MPI_Init may come before any hook */
    if (id == NULL)
        return -EINVAL;
    memcpy(vftr_proc.run_id, id, sizeof vftr_proc.run_id);
    if ((w = atomic_load(&vftr_proc.writer)) == NULL) {
        vftr_outdir_keep_old_once();
        return 0;
    }
    vftr_trace_info(&info, false, vftr_clock_ticks_per_second(0));
    vftr_vfd_writer_update(w, &info);
    (void)vftr_vfd_writer_sync(w);   /* the header names the run, as the chunk does */
    len = vftr_vfd_encode_run_id(id, chunk, sizeof chunk);
    rc = vftr_ext_chunk(chunk, len);
    /* the run is known now: rank 0 moves an earlier run's files aside
     * before any rank writes its own (outdir.h) */
    vftr_outdir_keep_old_once();
    return rc;
}

VFTR_EXT_API int vftr_ext_flush(void)
{
    struct vftr_thread *t;
    int rc;

    if ((t = vftr_hook_begin()) == NULL)
        return -EAGAIN;
    rc = vftr_trace_flush_thread(t, false);
    vftr_guard_drop(t);
    return rc < 0 ? -EIO : 0;
}

VFTR_EXT_API const struct vftr_config *vftr_ext_config(void)
{
    vftr_init_once();   /* MPI_Init may come before any hook */
    return vftr_proc.recording ? &vftr_proc.cfg : NULL;
}

VFTR_EXT_API const char *vftr_ext_outdir(void)
{
    vftr_init_once();   /* MPI_Init may come before any hook */
    return vftr_proc.recording ? vftr_proc.dir : "";
}

VFTR_EXT_API const char *vftr_ext_basename(void)
{
    vftr_init_once();   /* MPI_Init may come before any hook */
    return vftr_proc.recording ? vftr_proc.base : "";
}

VFTR_EXT_API long vftr_ext_profile(struct vftr_ext_row **rows)
{
    struct vftr_profile p;
    struct vftr_ext_row *r;
    int rc;

    if (rows == NULL)
        return -EINVAL;
    *rows = NULL;
    if (!vftr_proc.recording)
        return -EAGAIN;
    /* the sampled threads' trees are the collector's: it books nothing meanwhile */
    vftr_sample_quiet_begin();
    rc = vftr_callpath_profile_at(&p, vftr_clock_ticks_per_second(0), vftr_proc.hook_cost,
                                  vftr_clock_now());
    vftr_sample_quiet_end();
    if (rc < 0)
        return -ENOMEM;
    r = calloc(p.n ? p.n : 1, sizeof *r);
    if (r == NULL) {
        vftr_callpath_profile_release(&p);
        return -ENOMEM;
    }
    for (size_t i = 0; i < p.n; i++) {
        r[i].function = p.rows[i].function;
        r[i].caller = p.rows[i].caller ? p.rows[i].caller : "";
        r[i].path_id = p.rows[i].callpath_id;
        r[i].thread = p.rows[i].thread;
        r[i].calls = p.rows[i].calls;
        r[i].excl = p.rows[i].time_excl;
        r[i].incl = p.rows[i].time_incl;
        r[i].parent_id = p.rows[i].parent_id;
        r[i].overhead = p.rows[i].overhead;
    }
    long n = (long)p.n;
    vftr_callpath_profile_release(&p);
    *rows = r;
    return n;
}

VFTR_EXT_API void vftr_ext_profile_free(struct vftr_ext_row *rows)
{
    free(rows);
}

VFTR_NI void vftr_ext_setup(void)
{
    const char *s = getenv("VFTR_TEST_CLOCK_SKEW");
    char *end;
    long long off;
    double drift = 0.0;

    if (s == NULL || *s == '\0')
        return;
    errno = 0;
    off = strtoll(s, &end, 10);
    if (errno == 0 && *end == ':')
        drift = strtod(end + 1, &end);
    if (errno != 0 || *end != '\0' || drift <= -1e5 || drift >= 1e5) {
        vftr_msg("VFTR_TEST_CLOCK_SKEW=\"%s\" ignored: expected OFFSET_NS[:DRIFT_PPM]", s);
        return;
    }
    vftr_proc.skew_ns = off;
    vftr_proc.drift_ppm = drift;
}

VFTR_EXT_API void vftr_ext_register_mpi_stats(vftr_ext_mpi_stats_fn *fn)
{
    atomic_store_explicit(&vftr_proc.mpi_stats, fn, memory_order_release);
}

VFTR_NI long vftr_ext_mpi_stats(struct vftr_ext_mpi_row *rows, size_t max)
{
    vftr_ext_mpi_stats_fn *fn = atomic_load_explicit(&vftr_proc.mpi_stats, memory_order_acquire);

    return fn ? fn(rows, max) : -ENOTSUP;
}

VFTR_EXT_API uint32_t vftr_ext_current_path(void *fn)
{
    struct vftr_thread *t = vftr_tls;
    const struct vftr_node *cur;

    /* the thread's own frames: only this thread moves t->cur */
    if (fn == NULL || t == NULL || (cur = t->cur) == NULL || cur->fn != fn)
        return 0;
    return cur->id;
}

VFTR_EXT_API uint64_t vftr_ext_trace_bytes(void)
{
    return vftr_proc.recording ? vftr_trace_bytes() : 0;
}

VFTR_EXT_API double vftr_ext_run_time(void)
{
    double tps;

    if (!vftr_proc.recording || (tps = vftr_clock_ticks_per_second(0)) <= 0)
        return 0.0;
    return (double)(vftr_clock_now() - vftr_proc.start_ticks) / tps;
}

/* The MPI library's per-path statistics (ext.h); set once at MPI_Init. */
static vftr_ext_mpi_paths_fn *_Atomic mpi_paths;

VFTR_EXT_API void vftr_ext_register_mpi_paths(vftr_ext_mpi_paths_fn *fn)
{
    atomic_store_explicit(&mpi_paths, fn, memory_order_release);
}

VFTR_NI long vftr_ext_mpi_paths(struct vftr_mpi_row **rows)
{
    vftr_ext_mpi_paths_fn *fn = atomic_load_explicit(&mpi_paths, memory_order_acquire);
    long n, cap = 0;

    *rows = NULL;
    if (!fn)
        return -ENOTSUP;
    /* the count may grow between two calls only if MPI calls were still
     * made; a few rounds settle it */
    for (int round = 0; round < 4; round++) {
        struct vftr_mpi_row *r = NULL;

        if (cap > 0 && (r = calloc((size_t)cap, sizeof *r)) == NULL)
            return -ENOMEM;
        n = fn(r, (size_t)cap);
        if (n < 0 || n <= cap) {
            if (n < 0) {
                free(r);
                return n;
            }
            *rows = r;
            return n;
        }
        free(r);
        cap = n;
    }
    return -EAGAIN;
}

VFTR_EXT_API uint32_t vftr_ext_io_file(const char *path, uint32_t iface)
{
    struct vftr_thread *t;
    uint32_t id = 0;

    if (path == NULL || !atomic_load_explicit(&vftr_io_enabled, memory_order_acquire) ||
        (t = vftr_hook_begin()) == NULL)
        return 0;
    id = vftr_io_intern_path(AT_FDCWD, path, iface);
    vftr_guard_drop(t);
    return id;
}

VFTR_EXT_API uint32_t vftr_ext_io_handle(void)
{
    return vftr_io_new_handle();
}

VFTR_EXT_API int vftr_ext_io(uint64_t time, const struct vftr_vfd_io *io)
{
    struct vftr_thread *t;
    int rc = -EAGAIN;

    if (io == NULL)
        return -EINVAL;
    if (!atomic_load_explicit(&vftr_io_enabled, memory_order_acquire) ||
        (t = vftr_hook_begin()) == NULL)
        return -EAGAIN;
    if (t->trace && vftr_io_put(t, io, time) == 0)
        rc = 0;
    vftr_guard_drop(t);
    return rc;
}
