/*
 * ext.h — what libvftrcapture offers its extensions: the MPI wrapper
 * library (libvftrcapture-mpi.so, a separate shared object that reaches
 * these functions through the dynamic linker, so they are exported) and the
 * OpenMP tool (OMPT, inside the library).  Not part of the user API.
 *
 * Every function is thread-safe, returns at once when capture is off or
 * finalized, records nothing while paused (the MPI enter and exit still
 * move the calling thread's shadow stack, as the hooks do), and never
 * harms the program: errors come back as -errno, nothing prints (except
 * where said), nothing exits.  Times are
 * capture's clock ticks (vftr_ext_now()), the time base of the .vfd.
 *
 * Records: lib/vfd/vftr_vfd_ext.h encodes MPI messages, collectives and
 * OpenMP region events (extended events, vftr_ext_event) and the MPI_COMMS,
 * OMP_REGIONS, CLOCK_OFFSETS and RUN_ID definition chunks (vftr_ext_chunk).
 */
#ifndef VFTR_CAPTURE_EXT_H
#define VFTR_CAPTURE_EXT_H

#include <stddef.h>
#include <stdint.h>

#define VFTR_EXT_API __attribute__((visibility("default"), no_instrument_function))

/* Capture's clock now, in ticks. */
VFTR_EXT_API uint64_t vftr_ext_now(void);

/* Ticks per second of that clock as measured so far (rough early in a
 * run; the .vfd header gets the value measured at the end). */
VFTR_EXT_API double vftr_ext_ticks_per_second(void);

/* 1 when the calling thread's events are being recorded in the trace now
 * (capture running, not paused, trace on), else 0.  A cheap test for the
 * wrappers to skip building records nobody will write. */
VFTR_EXT_API int vftr_ext_tracing(void);

/* Appends an extended event (kind >= 16, payload of len <= 96 bytes) at
 * `time` to the calling thread's trace buffer.  0, or -EAGAIN when nothing
 * is recorded now (paused, stopped, trace off or capped, inside a hook),
 * -EINVAL for a bad kind or length.  Events of one thread should come in
 * time order (a time before the previous event's is recorded as equal). */
VFTR_EXT_API int vftr_ext_event(uint64_t time, uint32_t kind, const void *payload,
                                uint32_t len);

/* Writes one complete definition chunk (made by an encoder of
 * vftr_vfd_ext.h) to the trace.  0, -EAGAIN (no trace), or the writer's
 * -errno. */
VFTR_EXT_API int vftr_ext_chunk(const uint8_t *chunk, size_t len);

/* Enter and exit of an MPI function, recorded as a function flagged
 * VFTR_VFD_FUNC_MPI in the call tree of the calling thread.  The function
 * is a handle, made once per name (a string that lives as long as the
 * process; thread-safe; NULL when capture is off) and valid for the life of
 * the process.  enter_fn and exit_fn_rec read the clock themselves and
 * return the time they recorded (or read, when capture does not record
 * now), saving the wrapper a call.  exit_fn_rec first records, at the
 * exit's time, the MPI record rec of extended kind `kind`
 * (VFTR_VFD_MPI_SEND/RECV: a struct vftr_vfd_mpi_msg; VFTR_VFD_MPI_COLL: a
 * struct vftr_vfd_mpi_coll; a start later than the exit counts as the
 * exit), or nothing when rec is NULL: one call instead of three for the
 * common wrapper that completes one message. */
VFTR_EXT_API void *vftr_ext_function(const char *name);
VFTR_EXT_API uint64_t vftr_ext_enter_fn(void *fn);
VFTR_EXT_API uint64_t vftr_ext_exit_fn_rec(void *fn, uint32_t kind, const void *rec);

/* MPI_Init: the rank and size of this process (the .vfd is renamed to
 * <base>_<rank>.vfd at the end, the log follows the rank; the header of
 * the file being written says them at once).  0 or -EINVAL. */
VFTR_EXT_API int vftr_ext_set_rank(int rank, int size);

/* The run id (16 bytes): get this process's; set the one agreed at
 * MPI_Init (rank 0's): the header is rewritten with it at once and it is
 * written as a RUN_ID chunk, so that a file whose header is never
 * rewritten again (SIGKILL) still names its run.  0 or -errno. */
VFTR_EXT_API void vftr_ext_get_run_id(uint8_t id[16]);
VFTR_EXT_API int vftr_ext_set_run_id(const uint8_t id[16]);

/* Writes the calling thread's buffered events (MPI_Pcontrol(2)).  0 or
 * -errno. */
VFTR_EXT_API int vftr_ext_flush(void);

/* The configuration in use (capture/config.h), read-only; NULL when
 * capture is off.  mpi.log_messages, mpi.only_for_ranks, ... live here. */
struct vftr_config;
VFTR_EXT_API const struct vftr_config *vftr_ext_config(void);

/* Output directory and file base name of this run ("" when capture is
 * off): `<dir>/<base>_all.log` is where rank 0 collates the profiles. */
VFTR_EXT_API const char *vftr_ext_outdir(void);
VFTR_EXT_API const char *vftr_ext_basename(void);

/*
 * The profile of this process so far, as the log shows it: rows of
 * (function, caller, call path and its parent, calls, exclusive, inclusive
 * and overhead seconds);
 * calls still under way (main, MPI_Finalize) count up to now.
 * For MPI_Finalize's collation; call it when no other thread of the
 * program runs instrumented code.  *rows is a malloc'ed array the caller
 * frees with vftr_ext_profile_free(); names point into capture's tables
 * and live as long as the process.  Returns the number of rows or -errno.
 */
struct vftr_ext_row {
    const char *function;
    const char *caller;         /* "" for a root */
    uint32_t path_id;           /* call path id, as in the .vfd and the log */
    uint32_t thread;            /* 0 = main thread */
    uint64_t calls;
    double excl, incl;          /* seconds */
    uint32_t parent_id;         /* the caller's call path id, 0 at a root */
    double overhead;            /* seconds in capture's hooks */
};
VFTR_EXT_API long vftr_ext_profile(struct vftr_ext_row **rows);
VFTR_EXT_API void vftr_ext_profile_free(struct vftr_ext_row *rows);

/* MPI statistics for live queries (vftr-ctl messages): the MPI library
 * registers, at MPI_Init, a function that fills up to max rows (one per MPI
 * function called so far) and returns how many, or -errno.  It must be
 * safe to call from capture's control thread while the program runs. */
struct vftr_ext_mpi_row {
    const char *function;       /* "MPI_Send"; lives as long as the process */
    uint64_t calls, messages, bytes;
    double seconds;             /* time spent in the function */
};
typedef long vftr_ext_mpi_stats_fn(struct vftr_ext_mpi_row *rows, size_t max);
VFTR_EXT_API void vftr_ext_register_mpi_stats(vftr_ext_mpi_stats_fn *fn);
/* Internal: the registered function's rows, or -ENOTSUP when none is. */
long vftr_ext_mpi_stats(struct vftr_ext_mpi_row *rows, size_t max)
    __attribute__((no_instrument_function));

/* The call path id of the calling thread's innermost open frame if that
 * frame is a call of fn (a handle of vftr_ext_function), else 0 (capture
 * off or paused, the call not entered).  The MPI wrappers ask between
 * enter_fn and exit_fn_rec, to keep their statistics per call path. */
VFTR_EXT_API uint32_t vftr_ext_current_path(void *fn);

/* Seconds since capture started on this process (0 when it is off). */
VFTR_EXT_API double vftr_ext_run_time(void);

/* Bytes of this process's .vfd written so far (0 without a trace): what
 * its trace cost, for the log over the ranks. */
VFTR_EXT_API uint64_t vftr_ext_trace_bytes(void);

/* MPI statistics per call path of an MPI function (struct vftr_mpi_row of
 * logfile.h) for this process's log: the MPI library registers, at
 * MPI_Init, a function that stores up to max rows and returns how many it
 * has in all (call it again with more room when that is larger), or
 * -errno.  Called at finalization, when the program makes no more MPI
 * calls. */
struct vftr_mpi_row;
typedef long vftr_ext_mpi_paths_fn(struct vftr_mpi_row *rows, size_t max);
VFTR_EXT_API void vftr_ext_register_mpi_paths(vftr_ext_mpi_paths_fn *fn);
/* Internal: the registered function's rows in a malloc'ed array (*rows,
 * caller frees) and their number, or -ENOTSUP when none is registered (the
 * run used no MPI), -ENOMEM. */
long vftr_ext_mpi_paths(struct vftr_mpi_row **rows) __attribute__((no_instrument_function));

/* Rank 0 at MPI_Finalize: merges the ranks' rows (capture/collate.h; in is
 * reordered) and writes <outdir>/<base>_all.log as the configuration says,
 * with what the ranks' traces cost (trace_bytes: nranks entries, the
 * ranks' vftr_ext_trace_bytes(); NULL: not known).  0 or -errno (-EAGAIN
 * when capture is off). */
struct vftr_collate_in;
VFTR_EXT_API int vftr_ext_write_all_log(struct vftr_collate_in *in, size_t n, int nranks,
                                        const double *run_times, const uint64_t *trace_bytes);

/* MPI-IO (io.h; the IO record and IO_FILES of vftr_vfd_ext.h).
 * vftr_ext_io_file: the file id of path (as the program gave it, made
 * absolute) used through interface iface (VFTR_VFD_IO_MPI), 0 when file I/O
 * is not recorded (io.active, no trace, capture off) or path lies
 * in an excluded directory.  vftr_ext_io_handle: a new handle number, unique
 * in the process (never 0).  A blocking call hands its record to
 * vftr_ext_exit_fn_rec (kind VFTR_VFD_IO); vftr_ext_io writes one at `time`
 * (a nonblocking operation's completion in a wait or test): 0, -EAGAIN
 * when nothing is recorded now.  The file's definition goes into the trace
 * before the first record that names it. */
struct vftr_vfd_io;
VFTR_EXT_API uint32_t vftr_ext_io_file(const char *path, uint32_t iface);
VFTR_EXT_API uint32_t vftr_ext_io_handle(void);
VFTR_EXT_API int vftr_ext_io(uint64_t time, const struct vftr_vfd_io *io);

/* This process's counter table for <base>_all.log (capture/collate.h): a
 * line "K\t<names, comma-separated>\n", then per thread and counted call
 * path "C\t<path>\t<calls>\t<inclusive>...\n" (the path as its names from
 * the root, VFTR_COLLATE_SEP between, tabs and newlines in a name made
 * blanks).  Caller frees.  NULL when counters are off or memory is short.
 * When no thread is inside a hook (MPI_Finalize). */
VFTR_EXT_API char *vftr_ext_counter_lines(void);

/* The trace file this process is writing ("" when it writes none). */
VFTR_EXT_API const char *vftr_ext_trace_file(void);

/* Appends the "largest waits" section to <outdir>/<base>_all.log
 * (waitlog.c): the wait analysis of the n ranks' trace files as they are.
 * Nothing when a rank has no trace.  0 or -errno (-EAGAIN when capture is
 * off); a trace it cannot read is said in the section. */
VFTR_EXT_API int vftr_ext_append_waits(const char *const *traces, size_t n);

/* Internal (not exported): vftr_ext_event() into the buffer of thread t,
 * which the caller holds (its own guard taken, or the world stopped: the
 * finalizer closing the OpenMP regions of other threads). */
struct vftr_thread;
int vftr_ext_event_on(struct vftr_thread *t, uint64_t time, uint32_t kind, const void *payload,
                      uint32_t len) __attribute__((no_instrument_function));

/* Reads VFTR_TEST_CLOCK_SKEW="OFFSET_NS:DRIFT_PPM" (tests of clock
 * alignment only): the .vfd header then describes a clock that is
 * OFFSET_NS off and DRIFT_PPM fast, as if this process's clock were.
 * Called by initialization before the trace is opened. */
void vftr_ext_setup(void) __attribute__((no_instrument_function));

#endif /* VFTR_CAPTURE_EXT_H */
