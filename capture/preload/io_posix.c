/*
 * io_posix.c — the POSIX file calls of the program, interposed (as Darshan
 * does: the library defines the symbols, and each wrapper calls the next
 * definition, found once with dlsym(RTLD_NEXT)) and recorded through
 * capture/io.h: open, openat, creat, mkstemp, mkostemp (and the *64 names
 * glibc exports, and the _2 forms of _FORTIFY_SOURCE), close, read, write,
 * pread, pwrite, readv, writev, preadv, pwritev, lseek, fsync, fdatasync,
 * dup, dup2, dup3, unlink, rename, close_range; the _chk forms of read and
 * pread.  That covers what Fortran's runtime (libgfortran) calls for its
 * units: open, read, write, writev, lseek, close, dup, unlink, rename,
 * mkostemp.
 *
 * Every wrapper keeps errno as the call left it and calls nothing that is
 * not async-signal-safe on the way of a call the program may make in a
 * signal handler (io.h).  A call on a descriptor that is not followed costs
 * a bounds check and a load; with io.active false, or before capture has
 * started, nothing is followed.
 *
 * This file is linked into libvftrcapture.so only (capture/module.mk): a
 * tool linking the static archive keeps its own calls.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io.h"
#include "io_next.h"

/* The _FORTIFY_SOURCE forms (glibc's headers declare them only to such
 * programs). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);

/* ------------------------------------------------------------ helpers */

/* A call on followed descriptor slot ended with rc at now: its record. */
static VFTR_NI void transfer(uint64_t slot, uint32_t op, uint32_t flags, int64_t rc,
                             uint64_t offset, uint64_t t0)
{
    int err = errno;
    struct vftr_vfd_io io = {
        vftr_io_slot_file(slot), vftr_io_slot_handle(slot), op,
        flags | (rc < 0 ? VFTR_VFD_IO_FAILED : 0u),
        (op == VFTR_VFD_IO_READ || op == VFTR_VFD_IO_WRITE) && rc > 0 ? (uint64_t)rc : 0,
        t0, offset, 0,
    };

    vftr_io_record(&io, vftr_clock_now());
    errno = err;
}

/* An open through the POSIX interface that returned fd (-1: failed):
 * the slot of fd follows path (relative to dirfd) as a new handle, and the
 * open is recorded.  follow false: the open is capture's own or not
 * followed: the slot is emptied. */
static VFTR_NI void opened(bool follow, int fd, int dirfd, const char *path, uint32_t oflags,
                           uint64_t t0)
{
    int err = errno;
    struct vftr_thread *t;

    if (follow && (t = vftr_hook_begin()) != NULL) {
        uint32_t file = vftr_io_intern_path(dirfd, path, VFTR_VFD_IO_POSIX);
        uint32_t h = file && fd >= 0 ? vftr_io_new_handle() : 0;

        vftr_io_slot_set(fd, h ? (uint64_t)file << 32 | h : 0);
        if (file && t->trace && vftr_io_mute == 0 && vftr_io_past_prelude()) {
            struct vftr_vfd_io io = { file, h, VFTR_VFD_IO_OPEN,
                                      fd < 0 ? VFTR_VFD_IO_FAILED : 0u, 0, t0, 0, oflags };

            (void)vftr_io_put(t, &io, vftr_clock_now());
        }
        vftr_guard_drop(t);
    } else {
        vftr_io_slot_set(fd, 0);
    }
    errno = err;
}

/* unlink or rename of path (and path2) that returned rc. */
static VFTR_NI void named(uint32_t op, const char *path, const char *path2, int rc, uint64_t t0)
{
    int err = errno;
    struct vftr_thread *t = vftr_hook_begin();

    if (t != NULL) {
        uint32_t file = vftr_io_intern_path(AT_FDCWD, path, VFTR_VFD_IO_POSIX);
        uint32_t file2 = path2 ? vftr_io_intern_path(AT_FDCWD, path2, VFTR_VFD_IO_POSIX) : 0;

        if ((file || file2) && t->trace && vftr_io_mute == 0 && vftr_io_past_prelude()) {
            struct vftr_vfd_io io = { file ? file : file2, 0, op,
                                      rc < 0 ? VFTR_VFD_IO_FAILED : 0u, 0, t0, 0, file2 };

            (void)vftr_io_put(t, &io, vftr_clock_now());
        }
        vftr_guard_drop(t);
    }
    errno = err;
}

/* The mode argument of open: there when the flags create a file. */
#define OPEN_MODE(flags, mode)                                                   \
    do {                                                                         \
        if (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE) {         \
            va_list ap_;                                                         \
            va_start(ap_, flags);                                                \
            mode = (mode_t)va_arg(ap_, int);                                     \
            va_end(ap_);                                                         \
        }                                                                        \
    } while (0)

/* The body of an open-like call: follow decides, t0 is read, CALL makes
 * the call into fd, opened() follows it. */
#define OPEN_BODY(dirfd, path, oflags, CALL)                                     \
    do {                                                                         \
        bool follow_ = vftr_io_enabled_now() &&                                  \
                       vftr_io_program_open(__builtin_return_address(0));        \
        uint64_t t0_ = follow_ ? vftr_clock_now() : 0;                           \
        fd = CALL;                                                               \
        if (vftr_io_nfds)                                                        \
            opened(follow_, fd, dirfd, path, (uint32_t)(oflags), t0_);           \
    } while (0)

/* ------------------------------------------------------------- opens */

IO_NEXT(open, int, (const char *, int, ...));
IO_NEXT(open64, int, (const char *, int, ...));
IO_NEXT(openat, int, (int, const char *, int, ...));
IO_NEXT(openat64, int, (int, const char *, int, ...));
IO_NEXT(creat, int, (const char *, mode_t));
IO_NEXT(creat64, int, (const char *, mode_t));
IO_NEXT(__open_2, int, (const char *, int));
IO_NEXT(__open64_2, int, (const char *, int));
IO_NEXT(__openat_2, int, (int, const char *, int));
IO_NEXT(__openat64_2, int, (int, const char *, int));
IO_NEXT(mkstemp, int, (char *));
IO_NEXT(mkstemp64, int, (char *));
IO_NEXT(mkostemp, int, (char *, int));
IO_NEXT(mkostemp64, int, (char *, int));

VFTR_IO_API int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    int fd;

    OPEN_MODE(flags, mode);
    OPEN_BODY(AT_FDCWD, path, flags, IO_CALL(open, -1, path, flags, mode));
    return fd;
}

VFTR_IO_API int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    int fd;

    OPEN_MODE(flags, mode);
    OPEN_BODY(AT_FDCWD, path, flags, IO_CALL(open64, -1, path, flags, mode));
    return fd;
}

VFTR_IO_API int openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    int fd;

    OPEN_MODE(flags, mode);
    OPEN_BODY(dirfd, path, flags, IO_CALL(openat, -1, dirfd, path, flags, mode));
    return fd;
}

VFTR_IO_API int openat64(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    int fd;

    OPEN_MODE(flags, mode);
    OPEN_BODY(dirfd, path, flags, IO_CALL(openat64, -1, dirfd, path, flags, mode));
    return fd;
}

VFTR_IO_API int creat(const char *path, mode_t mode)
{
    int fd;

    OPEN_BODY(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, IO_CALL(creat, -1, path, mode));
    return fd;
}

VFTR_IO_API int creat64(const char *path, mode_t mode)
{
    int fd;

    OPEN_BODY(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, IO_CALL(creat64, -1, path, mode));
    return fd;
}

VFTR_IO_API int __open_2(const char *path, int flags)
{
    int fd;

    OPEN_BODY(AT_FDCWD, path, flags, IO_CALL(__open_2, -1, path, flags));
    return fd;
}

VFTR_IO_API int __open64_2(const char *path, int flags)
{
    int fd;

    OPEN_BODY(AT_FDCWD, path, flags, IO_CALL(__open64_2, -1, path, flags));
    return fd;
}

VFTR_IO_API int __openat_2(int dirfd, const char *path, int flags)
{
    int fd;

    OPEN_BODY(dirfd, path, flags, IO_CALL(__openat_2, -1, dirfd, path, flags));
    return fd;
}

VFTR_IO_API int __openat64_2(int dirfd, const char *path, int flags)
{
    int fd;

    OPEN_BODY(dirfd, path, flags, IO_CALL(__openat64_2, -1, dirfd, path, flags));
    return fd;
}

/* mkstemp fills in the template: the file's name is known after the call */
VFTR_IO_API int mkstemp(char *tmpl)
{
    int fd;

    OPEN_BODY(AT_FDCWD, tmpl, O_RDWR | O_CREAT | O_EXCL, IO_CALL(mkstemp, -1, tmpl));
    return fd;
}

VFTR_IO_API int mkstemp64(char *tmpl)
{
    int fd;

    OPEN_BODY(AT_FDCWD, tmpl, O_RDWR | O_CREAT | O_EXCL, IO_CALL(mkstemp64, -1, tmpl));
    return fd;
}

VFTR_IO_API int mkostemp(char *tmpl, int flags)
{
    int fd;

    OPEN_BODY(AT_FDCWD, tmpl, O_RDWR | O_CREAT | O_EXCL | flags,
              IO_CALL(mkostemp, -1, tmpl, flags));
    return fd;
}

VFTR_IO_API int mkostemp64(char *tmpl, int flags)
{
    int fd;

    OPEN_BODY(AT_FDCWD, tmpl, O_RDWR | O_CREAT | O_EXCL | flags,
              IO_CALL(mkostemp64, -1, tmpl, flags));
    return fd;
}

/* ------------------------------------------------------ on descriptors */

/* The body of a call on descriptor fd returning rc of type T: a slot
 * decides; op, flags, offset describe the record. */
#define FD_BODY(T, fd, op, flags, offset, CALL)                                  \
    do {                                                                         \
        uint64_t slot_ = vftr_io_slot(fd), t0_;                                  \
        if (VFTR_LIKELY(slot_ == 0))                                             \
            return CALL;                                                         \
        t0_ = vftr_clock_now();                                                  \
        T rc_ = CALL;                                                            \
        transfer(slot_, op, flags, (int64_t)rc_, offset, t0_);                   \
        return rc_;                                                              \
    } while (0)

IO_NEXT(read, ssize_t, (int, void *, size_t));
IO_NEXT(write, ssize_t, (int, const void *, size_t));
IO_NEXT(pread, ssize_t, (int, void *, size_t, off_t));
IO_NEXT(pread64, ssize_t, (int, void *, size_t, off64_t));
IO_NEXT(pwrite, ssize_t, (int, const void *, size_t, off_t));
IO_NEXT(pwrite64, ssize_t, (int, const void *, size_t, off64_t));
IO_NEXT(readv, ssize_t, (int, const struct iovec *, int));
IO_NEXT(writev, ssize_t, (int, const struct iovec *, int));
IO_NEXT(preadv, ssize_t, (int, const struct iovec *, int, off_t));
IO_NEXT(preadv64, ssize_t, (int, const struct iovec *, int, off64_t));
IO_NEXT(pwritev, ssize_t, (int, const struct iovec *, int, off_t));
IO_NEXT(pwritev64, ssize_t, (int, const struct iovec *, int, off64_t));
IO_NEXT(__read_chk, ssize_t, (int, void *, size_t, size_t));
IO_NEXT(__pread_chk, ssize_t, (int, void *, size_t, off_t, size_t));
IO_NEXT(__pread64_chk, ssize_t, (int, void *, size_t, off64_t, size_t));
IO_NEXT(lseek, off_t, (int, off_t, int));
IO_NEXT(lseek64, off64_t, (int, off64_t, int));
IO_NEXT(fsync, int, (int));
IO_NEXT(fdatasync, int, (int));

VFTR_IO_API ssize_t read(int fd, void *buf, size_t n)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, 0, 0, IO_CALL(read, -1, fd, buf, n));
}

VFTR_IO_API ssize_t write(int fd, const void *buf, size_t n)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_WRITE, 0, 0, IO_CALL(write, -1, fd, buf, n));
}

VFTR_IO_API ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, 0, 0, IO_CALL(__read_chk, -1, fd, buf, n, buflen));
}

VFTR_IO_API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(pread, -1, fd, buf, n, off));
}

VFTR_IO_API ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(pread64, -1, fd, buf, n, off));
}

VFTR_IO_API ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(__pread_chk, -1, fd, buf, n, off, buflen));
}

VFTR_IO_API ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(__pread64_chk, -1, fd, buf, n, off, buflen));
}

VFTR_IO_API ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_WRITE, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(pwrite, -1, fd, buf, n, off));
}

VFTR_IO_API ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_WRITE, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(pwrite64, -1, fd, buf, n, off));
}

VFTR_IO_API ssize_t readv(int fd, const struct iovec *iov, int n)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, 0, 0, IO_CALL(readv, -1, fd, iov, n));
}

VFTR_IO_API ssize_t writev(int fd, const struct iovec *iov, int n)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_WRITE, 0, 0, IO_CALL(writev, -1, fd, iov, n));
}

VFTR_IO_API ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(preadv, -1, fd, iov, n, off));
}

VFTR_IO_API ssize_t preadv64(int fd, const struct iovec *iov, int n, off64_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_READ, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(preadv64, -1, fd, iov, n, off));
}

VFTR_IO_API ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_WRITE, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(pwritev, -1, fd, iov, n, off));
}

VFTR_IO_API ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t off)
{
    FD_BODY(ssize_t, fd, VFTR_VFD_IO_WRITE, VFTR_VFD_IO_AT, (uint64_t)off,
            IO_CALL(pwritev64, -1, fd, iov, n, off));
}

VFTR_IO_API int fsync(int fd)
{
    FD_BODY(int, fd, VFTR_VFD_IO_SYNC, 0, 0, IO_CALL(fsync, -1, fd));
}

VFTR_IO_API int fdatasync(int fd)
{
    FD_BODY(int, fd, VFTR_VFD_IO_SYNC, 0, 0, IO_CALL(fdatasync, -1, fd));
}

/* A seek's record carries the position it ended at. */
#define SEEK_BODY(T, fd, CALL)                                                   \
    do {                                                                         \
        uint64_t slot_ = vftr_io_slot(fd), t0_;                                  \
        if (VFTR_LIKELY(slot_ == 0))                                             \
            return CALL;                                                         \
        t0_ = vftr_clock_now();                                                  \
        T rc_ = CALL;                                                            \
        transfer(slot_, VFTR_VFD_IO_SEEK, 0, (int64_t)rc_ < 0 ? -1 : 0,          \
                 rc_ < 0 ? 0 : (uint64_t)rc_, t0_);                              \
        return rc_;                                                              \
    } while (0)

VFTR_IO_API off_t lseek(int fd, off_t off, int whence)
{
    SEEK_BODY(off_t, fd, IO_CALL(lseek, -1, fd, off, whence));
}

VFTR_IO_API off64_t lseek64(int fd, off64_t off, int whence)
{
    SEEK_BODY(off64_t, fd, IO_CALL(lseek64, -1, fd, off, whence));
}

/* ------------------------------------------------- close, dup, names */

IO_NEXT(close, int, (int));
IO_NEXT(close_range, int, (unsigned, unsigned, int));
IO_NEXT(dup, int, (int));
IO_NEXT(dup2, int, (int, int));
IO_NEXT(dup3, int, (int, int, int));
IO_NEXT(unlink, int, (const char *));
IO_NEXT(rename, int, (const char *, const char *));

VFTR_IO_API int close(int fd)
{
    /* the slot goes first: once the descriptor is closed another thread
     * may get its number from an open */
    uint64_t slot = vftr_io_slot_take(fd), t0;
    int rc;

    if (VFTR_LIKELY(slot == 0))
        return IO_CALL(close, -1, fd);
    t0 = vftr_clock_now();
    rc = IO_CALL(close, -1, fd);
    transfer(slot, VFTR_VFD_IO_CLOSE, 0, rc, 0, t0);
    return rc;
}

VFTR_IO_API int close_range(unsigned first, unsigned last, int flags)
{
    /* closed without a record each; only the slots are emptied (a close
     * of descriptors by range is no call on a file of its own) */
    if (!(flags & CLOSE_RANGE_CLOEXEC))
        for (uint64_t fd = first; fd <= last && fd < vftr_io_nfds; fd++)
            (void)vftr_io_slot_take((int)fd);
    return IO_CALL(close_range, -1, first, last, flags);
}

/* A new descriptor nfd (-1: failed) duplicates the one of slot (0: not
 * followed).  prev: what nfd's slot held before (dup2 closes it). */
static VFTR_NI void duplicated(uint64_t slot, int nfd, uint64_t prev, uint64_t t0)
{
    int err = errno;

    if (prev != 0)
        transfer(prev, VFTR_VFD_IO_CLOSE, 0, 0, 0, t0);
    if (slot == 0 || nfd < 0) {
        if (nfd >= 0)
            vftr_io_slot_set(nfd, 0);
        if (slot != 0)
            transfer(slot, VFTR_VFD_IO_DUP, 0, -1, 0, t0);
        errno = err;
        return;
    }
    uint32_t h = vftr_io_new_handle();
    struct vftr_vfd_io io = { vftr_io_slot_file(slot), h, VFTR_VFD_IO_DUP, 0, 0, t0, 0,
                              vftr_io_slot_handle(slot) };

    vftr_io_slot_set(nfd, (uint64_t)vftr_io_slot_file(slot) << 32 | h);
    vftr_io_record(&io, vftr_clock_now());
    errno = err;
}

VFTR_IO_API int dup(int fd)
{
    uint64_t slot = vftr_io_slot(fd), t0 = slot ? vftr_clock_now() : 0;
    int nfd = IO_CALL(dup, -1, fd);

    if (vftr_io_nfds)
        duplicated(slot, nfd, 0, t0);
    return nfd;
}

VFTR_IO_API int dup2(int fd, int nfd)
{
    uint64_t slot = vftr_io_slot(fd), prev, t0;
    int rc;

    if (fd == nfd || vftr_io_nfds == 0)
        return IO_CALL(dup2, -1, fd, nfd);
    t0 = slot || vftr_io_slot(nfd) ? vftr_clock_now() : 0;
    rc = IO_CALL(dup2, -1, fd, nfd);
    prev = rc >= 0 ? vftr_io_slot_take(nfd) : 0;
    duplicated(slot, rc, prev, t0);
    return rc;
}

VFTR_IO_API int dup3(int fd, int nfd, int flags)
{
    uint64_t slot = vftr_io_slot(fd), prev, t0;
    int rc;

    if (vftr_io_nfds == 0)
        return IO_CALL(dup3, -1, fd, nfd, flags);
    t0 = slot || vftr_io_slot(nfd) ? vftr_clock_now() : 0;
    rc = IO_CALL(dup3, -1, fd, nfd, flags);
    prev = rc >= 0 ? vftr_io_slot_take(nfd) : 0;
    duplicated(slot, rc, prev, t0);
    return rc;
}

VFTR_IO_API int unlink(const char *path)
{
    bool follow = vftr_io_enabled_now() && vftr_io_program_open(__builtin_return_address(0));
    uint64_t t0 = follow ? vftr_clock_now() : 0;
    int rc = IO_CALL(unlink, -1, path);

    if (follow)
        named(VFTR_VFD_IO_UNLINK, path, NULL, rc, t0);
    return rc;
}

VFTR_IO_API int rename(const char *from, const char *to)
{
    bool follow = vftr_io_enabled_now() && vftr_io_program_open(__builtin_return_address(0));
    uint64_t t0 = follow ? vftr_clock_now() : 0;
    int rc = IO_CALL(rename, -1, from, to);

    if (follow)
        named(VFTR_VFD_IO_RENAME, from, to, rc, t0);
    return rc;
}

/* ------------------------------------------------------------ set-up */

/* The executable segment of the object holding this code: libvftrcapture
 * (lib/vfd and lib/util are linked into it). */
static VFTR_NI int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t me = (uintptr_t)arg;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me < lo + ph->p_memsz) {
            vftr_io_set_self(lo, lo + ph->p_memsz);
            return 1;
        }
    }
    return 0;
}

/* At load: capture's own text, and the next definitions of the POSIX
 * calls, so that none is looked up later (in a signal handler, say). */
__attribute__((constructor)) static VFTR_NI void io_posix_setup(void)
{
    dl_iterate_phdr(find_self, (void *)(uintptr_t)&transfer);
    IO_RESOLVE(open); IO_RESOLVE(open64); IO_RESOLVE(openat); IO_RESOLVE(openat64);
    IO_RESOLVE(creat); IO_RESOLVE(creat64); IO_RESOLVE(__open_2); IO_RESOLVE(__open64_2);
    IO_RESOLVE(__openat_2); IO_RESOLVE(__openat64_2); IO_RESOLVE(mkstemp);
    IO_RESOLVE(mkstemp64); IO_RESOLVE(mkostemp); IO_RESOLVE(mkostemp64);
    IO_RESOLVE(read); IO_RESOLVE(write); IO_RESOLVE(pread); IO_RESOLVE(pread64);
    IO_RESOLVE(pwrite); IO_RESOLVE(pwrite64); IO_RESOLVE(readv); IO_RESOLVE(writev);
    IO_RESOLVE(preadv); IO_RESOLVE(preadv64); IO_RESOLVE(pwritev); IO_RESOLVE(pwritev64);
    IO_RESOLVE(__read_chk); IO_RESOLVE(__pread_chk); IO_RESOLVE(__pread64_chk);
    IO_RESOLVE(lseek); IO_RESOLVE(lseek64); IO_RESOLVE(fsync); IO_RESOLVE(fdatasync);
    IO_RESOLVE(close); IO_RESOLVE(close_range); IO_RESOLVE(dup); IO_RESOLVE(dup2);
    IO_RESOLVE(dup3); IO_RESOLVE(unlink); IO_RESOLVE(rename);
}

VFTR_NI void *vftr_io_dlnext(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}
