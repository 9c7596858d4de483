/*
 * io_stdio.c — the ISO C stream calls of the program, interposed as the
 * POSIX ones are (io_posix.c) and recorded through capture/io.h: fopen,
 * fdopen, freopen (and the *64 names), fclose, fread, fwrite (and their
 * _unlocked and _chk forms), fgetc, getc, fgets, fputc, putc, fputs,
 * fprintf, vfprintf (and the _chk forms of _FORTIFY_SOURCE), fseek,
 * fseeko, fsetpos, rewind (and the *64 names), fflush.
 *
 * A stream is followed through the slot of its descriptor (fileno), which
 * holds the stream's file (interface VFTR_VFD_IO_STDIO) and handle from its
 * fopen to its fclose: a stream that was not opened by an interposed call
 * (stdin, stdout, stderr, popen's, fmemopen's) has an empty slot and its
 * calls pass straight on.  Bytes are what the program handed over or got
 * (fwrite's items times their size, fprintf's characters), not what the
 * stream's buffer later moved to the file.  printf and the other calls on
 * stdout are not interposed; neither is the scanf family.
 *
 * In the shared library only, as io_posix.c.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "io_next.h"

/* glibc's <stdio.h> makes these macros when optimizing: the functions are
 * what a program compiled otherwise calls */
#undef fread_unlocked
#undef fwrite_unlocked
#undef getc
#undef putc

/* The _FORTIFY_SOURCE forms (glibc's headers declare them only to such
 * programs). */
size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *f);
size_t __fread_unlocked_chk(void *p, size_t plen, size_t size, size_t n, FILE *f);
char *__fgets_chk(char *s, size_t size, int n, FILE *f);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);

static inline VFTR_NI uint64_t stream_slot(FILE *f)
{
    /* glibc's FILE keeps its descriptor here (-1 for a stream without one) */
    return f ? vftr_io_slot(f->_fileno) : 0;
}

/* A call on followed stream slot ended: its record. */
static VFTR_NI void streamed(uint64_t slot, uint32_t op, bool failed, uint64_t bytes,
                             uint64_t offset, uint64_t t0)
{
    int err = errno;
    struct vftr_vfd_io io = { vftr_io_slot_file(slot), vftr_io_slot_handle(slot), op,
                              failed ? VFTR_VFD_IO_FAILED : 0u, bytes, t0, offset, 0 };

    vftr_io_record(&io, vftr_clock_now());
    errno = err;
}

/* open(2) flags of an fopen mode ("r", "w+", "ab", "rxe", ...). */
static VFTR_NI uint32_t mode_flags(const char *mode)
{
    uint32_t f;

    if (mode == NULL)
        return 0;
    switch (mode[0]) {
    case 'w': f = O_WRONLY | O_CREAT | O_TRUNC; break;
    case 'a': f = O_WRONLY | O_CREAT | O_APPEND; break;
    default: f = O_RDONLY; break;
    }
    for (const char *p = mode + 1; *p && *p != ','; p++) {
        if (*p == '+')
            f = (f & ~(uint32_t)O_ACCMODE) | O_RDWR;
        else if (*p == 'x')
            f |= O_EXCL;
        else if (*p == 'e')
            f |= O_CLOEXEC;
    }
    return f;
}

/* A stream opened on descriptor fd (-1: failed) for file `file` (0:
 * not followed, or an open by capture itself: follow false). */
static VFTR_NI void stream_opened(bool follow, int fd, int dirfd, const char *path,
                                  uint32_t known, uint32_t oflags, uint64_t t0)
{
    int err = errno;
    struct vftr_thread *t;

    if (follow && (t = vftr_hook_begin()) != NULL) {
        uint32_t file = known ? vftr_io_intern(vftr_io_file_name(known),
                                               strlen(vftr_io_file_name(known)),
                                               VFTR_VFD_IO_STDIO)
                              : vftr_io_intern_path(dirfd, path, VFTR_VFD_IO_STDIO);
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

/* -------------------------------------------------------------- opens */

IO_NEXT(fopen, FILE *, (const char *, const char *));
IO_NEXT(fopen64, FILE *, (const char *, const char *));
IO_NEXT(fdopen, FILE *, (int, const char *));
IO_NEXT(freopen, FILE *, (const char *, const char *, FILE *));
IO_NEXT(freopen64, FILE *, (const char *, const char *, FILE *));
IO_NEXT(fclose, int, (FILE *));

#define FOPEN_BODY(path, mode, CALL)                                               \
    do {                                                                           \
        bool follow_ = vftr_io_enabled_now() &&                                    \
                       vftr_io_program_open(__builtin_return_address(0));          \
        uint64_t t0_ = follow_ ? vftr_clock_now() : 0;                             \
        f = CALL;                                                                  \
        if (vftr_io_nfds && (f || follow_))                                        \
            stream_opened(follow_, f ? f->_fileno : -1, AT_FDCWD, path, 0,         \
                          mode_flags(mode), t0_);                                  \
    } while (0)

VFTR_IO_API FILE *fopen(const char *path, const char *mode)
{
    FILE *f;

    FOPEN_BODY(path, mode, IO_CALL(fopen, NULL, path, mode));
    return f;
}

VFTR_IO_API FILE *fopen64(const char *path, const char *mode)
{
    FILE *f;

    FOPEN_BODY(path, mode, IO_CALL(fopen64, NULL, path, mode));
    return f;
}

/* A stream over a descriptor the program opened: the stream takes over
 * its file (the same name, as a stream's) with a handle of its own. */
VFTR_IO_API FILE *fdopen(int fd, const char *mode)
{
    uint64_t slot = vftr_io_slot(fd), t0 = slot ? vftr_clock_now() : 0;
    FILE *f = IO_CALL(fdopen, NULL, fd, mode);

    if (slot && f)
        stream_opened(vftr_io_enabled_now(), fd, AT_FDCWD, NULL, vftr_io_slot_file(slot),
                      mode_flags(mode), t0);
    return f;
}

static VFTR_NI FILE *reopen(io_fn_freopen *fn, const char *path, const char *mode, FILE *old,
                            const void *ret)
{
    uint64_t slot = stream_slot(old), t0 = 0;
    bool follow = vftr_io_enabled_now() && vftr_io_program_open(ret);
    FILE *f;

    if (slot)
        (void)vftr_io_slot_take(old->_fileno);
    if (slot || follow)
        t0 = vftr_clock_now();
    if (fn == NULL) {
        errno = ENOSYS;
        return NULL;
    }
    f = fn(path, mode, old);
    if (slot)
        streamed(slot, VFTR_VFD_IO_CLOSE, false, 0, 0, t0);
    if (vftr_io_nfds && (f || follow)) {
        if (path == NULL && slot)   /* the same file, another mode */
            stream_opened(follow, f ? f->_fileno : -1, AT_FDCWD, NULL, vftr_io_slot_file(slot),
                          mode_flags(mode), t0);
        else if (path != NULL)
            stream_opened(follow, f ? f->_fileno : -1, AT_FDCWD, path, 0, mode_flags(mode), t0);
        else if (f)
            vftr_io_slot_set(f->_fileno, 0);
    }
    return f;
}

VFTR_IO_API FILE *freopen(const char *path, const char *mode, FILE *old)
{
    return reopen(io_get_freopen(), path, mode, old, __builtin_return_address(0));
}

VFTR_IO_API FILE *freopen64(const char *path, const char *mode, FILE *old)
{
    return reopen(io_get_freopen64(), path, mode, old, __builtin_return_address(0));
}

VFTR_IO_API int fclose(FILE *f)
{
    /* the slot goes first: fclose frees the descriptor for the next open */
    uint64_t slot = f ? vftr_io_slot_take(f->_fileno) : 0, t0;
    int rc;

    if (VFTR_LIKELY(slot == 0))
        return IO_CALL(fclose, EOF, f);
    t0 = vftr_clock_now();
    rc = IO_CALL(fclose, EOF, f);
    streamed(slot, VFTR_VFD_IO_CLOSE, rc != 0, 0, 0, t0);
    return rc;
}

/* ------------------------------------------------------ reads, writes */

/* The body of a call on stream f: BYTES (of rc_) and FAILED describe the
 * record. */
#define STREAM_BODY(T, f, op, CALL, FAILED, BYTES)                                 \
    do {                                                                           \
        uint64_t slot_ = stream_slot(f), t0_;                                      \
        if (VFTR_LIKELY(slot_ == 0))                                               \
            return CALL;                                                           \
        t0_ = vftr_clock_now();                                                    \
        T rc_ = CALL;                                                              \
        streamed(slot_, op, FAILED, BYTES, 0, t0_);                                \
        return rc_;                                                                \
    } while (0)

IO_NEXT(fread, size_t, (void *, size_t, size_t, FILE *));
IO_NEXT(fread_unlocked, size_t, (void *, size_t, size_t, FILE *));
IO_NEXT(__fread_chk, size_t, (void *, size_t, size_t, size_t, FILE *));
IO_NEXT(__fread_unlocked_chk, size_t, (void *, size_t, size_t, size_t, FILE *));
IO_NEXT(fwrite, size_t, (const void *, size_t, size_t, FILE *));
IO_NEXT(fwrite_unlocked, size_t, (const void *, size_t, size_t, FILE *));
IO_NEXT(fgetc, int, (FILE *));
IO_NEXT(getc, int, (FILE *));
IO_NEXT(fgets, char *, (char *, int, FILE *));
IO_NEXT(__fgets_chk, char *, (char *, size_t, int, FILE *));
IO_NEXT(fputc, int, (int, FILE *));
IO_NEXT(putc, int, (int, FILE *));
IO_NEXT(fputs, int, (const char *, FILE *));
IO_NEXT(vfprintf, int, (FILE *, const char *, va_list));
IO_NEXT(__vfprintf_chk, int, (FILE *, int, const char *, va_list));

VFTR_IO_API size_t fread(void *p, size_t size, size_t n, FILE *f)
{
    STREAM_BODY(size_t, f, VFTR_VFD_IO_READ, IO_CALL(fread, 0, p, size, n, f), false,
                (uint64_t)rc_ * size);
}

VFTR_IO_API size_t fread_unlocked(void *p, size_t size, size_t n, FILE *f)
{
    STREAM_BODY(size_t, f, VFTR_VFD_IO_READ, IO_CALL(fread_unlocked, 0, p, size, n, f), false,
                (uint64_t)rc_ * size);
}

VFTR_IO_API size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *f)
{
    STREAM_BODY(size_t, f, VFTR_VFD_IO_READ, IO_CALL(__fread_chk, 0, p, plen, size, n, f), false,
                (uint64_t)rc_ * size);
}

VFTR_IO_API size_t __fread_unlocked_chk(void *p, size_t plen, size_t size, size_t n, FILE *f)
{
    STREAM_BODY(size_t, f, VFTR_VFD_IO_READ,
                IO_CALL(__fread_unlocked_chk, 0, p, plen, size, n, f), false,
                (uint64_t)rc_ * size);
}

VFTR_IO_API size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    STREAM_BODY(size_t, f, VFTR_VFD_IO_WRITE, IO_CALL(fwrite, 0, p, size, n, f),
                rc_ < n && size > 0, (uint64_t)rc_ * size);
}

VFTR_IO_API size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *f)
{
    STREAM_BODY(size_t, f, VFTR_VFD_IO_WRITE, IO_CALL(fwrite_unlocked, 0, p, size, n, f),
                rc_ < n && size > 0, (uint64_t)rc_ * size);
}

VFTR_IO_API int fgetc(FILE *f)
{
    STREAM_BODY(int, f, VFTR_VFD_IO_READ, IO_CALL(fgetc, EOF, f), false, rc_ == EOF ? 0 : 1);
}

VFTR_IO_API int getc(FILE *f)
{
    STREAM_BODY(int, f, VFTR_VFD_IO_READ, IO_CALL(getc, EOF, f), false, rc_ == EOF ? 0 : 1);
}

VFTR_IO_API char *fgets(char *s, int n, FILE *f)
{
    STREAM_BODY(char *, f, VFTR_VFD_IO_READ, IO_CALL(fgets, NULL, s, n, f), false,
                rc_ ? strlen(rc_) : 0);
}

VFTR_IO_API char *__fgets_chk(char *s, size_t size, int n, FILE *f)
{
    STREAM_BODY(char *, f, VFTR_VFD_IO_READ, IO_CALL(__fgets_chk, NULL, s, size, n, f), false,
                rc_ ? strlen(rc_) : 0);
}

VFTR_IO_API int fputc(int c, FILE *f)
{
    STREAM_BODY(int, f, VFTR_VFD_IO_WRITE, IO_CALL(fputc, EOF, c, f), rc_ == EOF,
                rc_ == EOF ? 0 : 1);
}

VFTR_IO_API int putc(int c, FILE *f)
{
    STREAM_BODY(int, f, VFTR_VFD_IO_WRITE, IO_CALL(putc, EOF, c, f), rc_ == EOF,
                rc_ == EOF ? 0 : 1);
}

VFTR_IO_API int fputs(const char *s, FILE *f)
{
    STREAM_BODY(int, f, VFTR_VFD_IO_WRITE, IO_CALL(fputs, EOF, s, f), rc_ == EOF,
                rc_ == EOF ? 0 : strlen(s));
}

VFTR_IO_API int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    STREAM_BODY(int, f, VFTR_VFD_IO_WRITE, IO_CALL(vfprintf, -1, f, fmt, ap), rc_ < 0,
                rc_ < 0 ? 0 : (uint64_t)rc_);
}

VFTR_IO_API int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
    STREAM_BODY(int, f, VFTR_VFD_IO_WRITE, IO_CALL(__vfprintf_chk, -1, f, flag, fmt, ap),
                rc_ < 0, rc_ < 0 ? 0 : (uint64_t)rc_);
}

VFTR_IO_API int fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vfprintf(f, fmt, ap);
    va_end(ap);
    return rc;
}

VFTR_IO_API int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = __vfprintf_chk(f, flag, fmt, ap);
    va_end(ap);
    return rc;
}

/* ------------------------------------------------- seeks and flushes */

IO_NEXT(fseek, int, (FILE *, long, int));
IO_NEXT(fseeko, int, (FILE *, off_t, int));
IO_NEXT(fseeko64, int, (FILE *, off64_t, int));
IO_NEXT(fsetpos, int, (FILE *, const fpos_t *));
IO_NEXT(fsetpos64, int, (FILE *, const fpos64_t *));
IO_NEXT(rewind, void, (FILE *));
IO_NEXT(fflush, int, (FILE *));

/* A seek's record carries the position it ended at. */
#define SEEK_BODY(f, CALL)                                                         \
    do {                                                                           \
        uint64_t slot_ = stream_slot(f), t0_;                                      \
        if (VFTR_LIKELY(slot_ == 0))                                               \
            return CALL;                                                           \
        t0_ = vftr_clock_now();                                                    \
        int rc_ = CALL;                                                            \
        off_t at_ = rc_ == 0 ? ftello(f) : -1;                                     \
        streamed(slot_, VFTR_VFD_IO_SEEK, rc_ != 0, 0, at_ < 0 ? 0 : (uint64_t)at_, t0_); \
        return rc_;                                                                \
    } while (0)

VFTR_IO_API int fseek(FILE *f, long off, int whence)
{
    SEEK_BODY(f, IO_CALL(fseek, -1, f, off, whence));
}

VFTR_IO_API int fseeko(FILE *f, off_t off, int whence)
{
    SEEK_BODY(f, IO_CALL(fseeko, -1, f, off, whence));
}

VFTR_IO_API int fseeko64(FILE *f, off64_t off, int whence)
{
    SEEK_BODY(f, IO_CALL(fseeko64, -1, f, off, whence));
}

VFTR_IO_API int fsetpos(FILE *f, const fpos_t *pos)
{
    SEEK_BODY(f, IO_CALL(fsetpos, -1, f, pos));
}

VFTR_IO_API int fsetpos64(FILE *f, const fpos64_t *pos)
{
    SEEK_BODY(f, IO_CALL(fsetpos64, -1, f, pos));
}

VFTR_IO_API void rewind(FILE *f)
{
    uint64_t slot = stream_slot(f), t0;
    io_fn_rewind *fn = io_get_rewind();

    if (fn == NULL)
        return;
    if (VFTR_LIKELY(slot == 0)) {
        fn(f);
        return;
    }
    t0 = vftr_clock_now();
    fn(f);
    streamed(slot, VFTR_VFD_IO_SEEK, false, 0, 0, t0);
}

VFTR_IO_API int fflush(FILE *f)
{
    /* fflush(NULL) flushes every stream: no one file's */
    STREAM_BODY(int, f, VFTR_VFD_IO_SYNC, IO_CALL(fflush, EOF, f), rc_ != 0, 0);
}

/* At load: the next definitions, so that none is looked up later. */
__attribute__((constructor)) static VFTR_NI void io_stdio_setup(void)
{
    IO_RESOLVE(fopen); IO_RESOLVE(fopen64); IO_RESOLVE(fdopen); IO_RESOLVE(freopen);
    IO_RESOLVE(freopen64); IO_RESOLVE(fclose); IO_RESOLVE(fread); IO_RESOLVE(fread_unlocked);
    IO_RESOLVE(__fread_chk); IO_RESOLVE(__fread_unlocked_chk); IO_RESOLVE(fwrite);
    IO_RESOLVE(fwrite_unlocked); IO_RESOLVE(fgetc); IO_RESOLVE(getc); IO_RESOLVE(fgets);
    IO_RESOLVE(__fgets_chk); IO_RESOLVE(fputc); IO_RESOLVE(putc); IO_RESOLVE(fputs);
    IO_RESOLVE(vfprintf); IO_RESOLVE(__vfprintf_chk); IO_RESOLVE(fseek); IO_RESOLVE(fseeko);
    IO_RESOLVE(fseeko64); IO_RESOLVE(fsetpos); IO_RESOLVE(fsetpos64); IO_RESOLVE(rewind);
    IO_RESOLVE(fflush);
}
