/*
 * io.h — file I/O in the trace: the state behind the interposed POSIX and
 * ISO C calls (capture/preload/io_posix.c, io_stdio.c, in the shared
 * library only) and MPI-IO (capture/mpi, through ext.h).  Records: the IO
 * event and the IO_FILES definitions of lib/vfd/vftr_vfd_ext.h.
 *
 * What is followed.  A descriptor the program opens (open, creat, openat,
 * mkstemp, dup, fopen's stream...) gets a slot in the descriptor table:
 * the id of its file (its absolute name and interface, vftr_io_intern) and
 * a handle, a number of the open instance.  Every later call on the
 * descriptor looks the slot up; an empty slot (a descriptor the program
 * did not open through an interposed call, one of an excluded directory,
 * or one of capture's own) passes the call straight on.  So capture's own
 * writes (the trace, the logs, the control socket) are never recorded:
 * their descriptors never get a slot, because
 *   - an open made by capture itself (the caller's return address lies in
 *     libvftrcapture's text, or the thread is inside a hook: its guard is
 *     taken, or the thread is muted) leaves the slot empty, and every open
 *     that is not followed empties the slot of the descriptor it returns,
 *     so nothing stale survives a close capture did not see;
 *   - the control thread and every MPI call mute their thread
 *     (vftr_io_mute: I/O an MPI library does inside a call, MPI-IO's own
 *     included, is the MPI call's, recorded as MPI-IO where it is that).
 * The table is kept up to date in every phase (paused too); records are
 * written only while the thread traces (vftr_thread.trace).
 *
 * Cost: a call on a descriptor without a slot is one bounds check and one
 * load more than the call; a followed one adds two clock reads, the guard
 * and one IO event (vftr_trace_put_ext).  Nothing here allocates with
 * malloc or takes a lock except vftr_io_intern (a new file name: a mutex
 * taken only while the thread's guard is held, so a signal handler on the
 * same thread never waits for it, and memory from mmap), so the
 * interposed calls that POSIX allows in signal handlers stay allowed.
 *
 * Lifecycle: vftr_io_setup() at initialization (after the trace is open)
 * maps the tables and enables recording when io.active and a trace is
 * written; before that, after a fork (capture stopped) and after
 * finalization the interposed calls pass through (they never start
 * capture: a program that inherited LD_PRELOAD leaves no files).
 */
#ifndef VFTR_CAPTURE_IO_H
#define VFTR_CAPTURE_IO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "vfd/vftr_vfd_ext.h"

/* Longest absolute file name followed (longer ones are not recorded). */
#define VFTR_IO_PATH_MAX 4096

/* Recording is enabled (io.active, a trace): set once by vftr_io_setup. */
extern _Atomic bool vftr_io_enabled VFTR_HIDDEN;

static inline VFTR_NI bool vftr_io_enabled_now(void)
{
    return atomic_load_explicit(&vftr_io_enabled, memory_order_acquire);
}

/* The descriptor table: slot fd holds (file id << 32 | handle), 0 when fd
 * is not followed.  vftr_io_nfds is 0 until set up (and when disabled). */
extern _Atomic uint64_t *vftr_io_fds VFTR_HIDDEN;
extern uint32_t vftr_io_nfds VFTR_HIDDEN;

/* > 0: this thread's I/O is not the program's (the control thread, inside
 * an MPI call).  Changed only by the thread itself. */
extern __thread int vftr_io_mute __attribute__((tls_model("initial-exec")));

/* Whether the program's calls are recorded now as far as the prelude goes:
 * before main (constructors, C++ static initializers) they are left out,
 * as the prelude's function calls are, unless include_cxx_prelude.
 * start.c marks main in every process of the shared library, the only one
 * that interposes I/O.  The descriptor table follows the prelude's opens
 * all the same, so that main's calls on them are recorded. */
static inline VFTR_NI bool vftr_io_past_prelude(void)
{
    return vftr_proc.set.prelude ||
           atomic_load_explicit(&vftr_proc.main_seen, memory_order_relaxed);
}

static inline VFTR_NI uint64_t vftr_io_slot(int fd)
{
    if ((unsigned)fd >= vftr_io_nfds)
        return 0;
    return atomic_load_explicit(&vftr_io_fds[fd], memory_order_relaxed);
}

static inline VFTR_NI void vftr_io_slot_set(int fd, uint64_t v)
{
    if ((unsigned)fd < vftr_io_nfds)
        atomic_store_explicit(&vftr_io_fds[fd], v, memory_order_relaxed);
}

/* Empties slot fd and returns what it held. */
static inline VFTR_NI uint64_t vftr_io_slot_take(int fd)
{
    if ((unsigned)fd >= vftr_io_nfds)
        return 0;
    return atomic_exchange_explicit(&vftr_io_fds[fd], 0, memory_order_relaxed);
}

static inline VFTR_NI uint32_t vftr_io_slot_file(uint64_t slot) { return (uint32_t)(slot >> 32); }
static inline VFTR_NI uint32_t vftr_io_slot_handle(uint64_t slot) { return (uint32_t)slot; }

/* Maps the tables, reads io.exclude_paths and enables recording when
 * io.active and the trace is written.  Called once by initialization.
 * 0 or -ENOMEM (then nothing is recorded). */
int vftr_io_setup(void) VFTR_NI;

/* A new handle number (never 0). */
uint32_t vftr_io_new_handle(void) VFTR_NI;

/*
 * The absolute form of path (as the program gave it to a call relative to
 * dirfd: AT_FDCWD, or a directory descriptor) in out: a relative name
 * joined to the working directory (or dirfd's directory), empty, "." and
 * ".." components taken out (lexically: symbolic links are not followed).
 * Returns its length, or 0 when it cannot be made (too long, no working
 * directory).  Async-signal-safe.
 */
size_t vftr_io_abspath(int dirfd, const char *path, char *out, size_t size) VFTR_NI;

/* Whether the absolute name lies in a directory of io.exclude_paths. */
bool vftr_io_excluded(const char *abs, size_t len) VFTR_NI;

/*
 * The file id of (absolute name, interface), made on first sight; 0 when
 * the name is excluded, the tables are full or not set up.  Call it with
 * the thread's guard held (vftr_hook_begin).  The definition goes into
 * the trace before the first record that names the id (vftr_io_record).
 */
uint32_t vftr_io_intern(const char *abs, size_t len, uint32_t iface) VFTR_NI;

/* The same for a name as the program gave it (made absolute first). */
uint32_t vftr_io_intern_path(int dirfd, const char *path, uint32_t iface) VFTR_NI;

/* Interface of file id (0 when unknown). */
uint32_t vftr_io_file_iface(uint32_t id) VFTR_NI;

/* Name of file id ("" when unknown): lives as long as the process. */
const char *vftr_io_file_name(uint32_t id) VFTR_NI;

/*
 * Writes the IO event io at tick now into t's buffer (t's guard held by
 * the caller, t->trace true), the definitions of the files it names first.
 * 0, or -1 when it was not written.
 */
int vftr_io_put(struct vftr_thread *t, const struct vftr_vfd_io *io, uint64_t now) VFTR_NI;

/*
 * The whole of a record from an interposed call: takes the calling
 * thread's guard, writes io at now when the thread traces and is not
 * muted, drops the guard.  Nothing before main (the prelude) unless
 * include_cxx_prelude.  Never initializes capture.
 */
void vftr_io_record(const struct vftr_vfd_io *io, uint64_t now) VFTR_NI;

/*
 * Whether an open by the calling thread, called from return address ret
 * (NULL: not known), is the program's and may be followed: recording set
 * up, capture not stopped, the thread not muted and not inside a hook, ret
 * not in libvftrcapture (vftr_io_set_self).
 */
bool vftr_io_program_open(const void *ret) VFTR_NI;

/* The text of libvftrcapture, [lo, hi): opens called from there are
 * capture's own.  Set once by the interposing code. */
void vftr_io_set_self(uintptr_t lo, uintptr_t hi) VFTR_NI;

#endif /* VFTR_CAPTURE_IO_H */
