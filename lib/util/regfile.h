/*
 * regfile.h — opening a file that must be a regular file, without ever
 * blocking on something else in its place.
 *
 * open(2) of a FIFO without a writer (for reading) or without a reader (for
 * writing) waits for ever, and opening some devices has side effects.  A
 * trace, a .vfd file, a definitions file or a script named by the user can
 * be any of them, so every place in lib/ and the tools that opens such a
 * file goes through vftr_open_regular():
 *
 *   1. it looks first with stat(), which never blocks: anything but a
 *      regular file is refused before it is opened;
 *   2. what stat() saw may be replaced before open() (a race with another
 *      process): open() therefore gets O_NONBLOCK, so that it returns at
 *      once whatever it finds, and fstat() checks what was really opened;
 *   3. O_NONBLOCK is cleared again on the regular file that remains (it has
 *      no effect there, but the caller did not ask for it).
 *
 * Refusals return -EISDIR for a directory and -ENODEV for any other kind of
 * file, with *kind set to what it is ("a FIFO", "a character device", ...)
 * for the caller's message, which should name the file and what was
 * expected: "run/app_0.vfd: is a FIFO, expected a regular .vfd file".
 *
 * Header-only on purpose: lib/otf (the installable OTF library) and lib/vfd
 * (linked into the capture library) link nothing else of vftr's, and this
 * must be the same rule there as in lib/util, lib/model and the tools.
 * Thread-safe; touches errno only as documented.
 */
#ifndef VFTR_UTIL_REGFILE_H
#define VFTR_UTIL_REGFILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file of mode m is, for messages: "a directory", "a FIFO", ... */
static inline const char *vftr_file_kind(mode_t m)
{
    if (S_ISREG(m))
        return "a regular file";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    return "not a regular file";
}

/*
 * Opens `path` with open(2)'s `flags` and `mode` (O_CLOEXEC and O_NOCTTY
 * are added) if it is a regular file, or, when flags has O_CREAT, does not
 * exist yet.  Returns the descriptor, or -errno: -EISDIR / -ENODEV for a
 * file of another kind (*kind says which; kind may be NULL), or open(2)'s
 * or stat(2)'s error (*kind NULL).  Never blocks on a FIFO or a device.
 */
static inline int vftr_open_regular(const char *path, int flags, mode_t mode, const char **kind)
{
    const char *dummy;
    struct stat st;
    int fd, e;

    if (!kind)
        kind = &dummy;
    *kind = NULL;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            *kind = vftr_file_kind(st.st_mode);
            return S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
        }
    } else if (errno != ENOENT || !(flags & O_CREAT)) {
        return -errno;
    }
    do
        fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        e = errno;
        if (e == ENXIO) {           /* a FIFO without reader came in meanwhile */
            *kind = "a FIFO";
            return -ENODEV;
        }
        return e == EISDIR ? (*kind = "a directory", -EISDIR) : -e;
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        *kind = vftr_file_kind(st.st_mode);
        close(fd);
        return S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
    }
    if (!(flags & O_NONBLOCK)) {
        int fl = fcntl(fd, F_GETFL);

        if (fl >= 0)
            (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    return fd;
}

/*
 * fopen(3) through vftr_open_regular(): `how` is "r" (read), "w" (write,
 * create or truncate) or "a" (append, create), optionally with "b".  NULL
 * with errno set (EISDIR / ENODEV and *kind for another kind of file).
 */
static inline FILE *vftr_fopen_regular(const char *path, const char *how, const char **kind)
{
    int flags = how[0] == 'r' ? O_RDONLY
                : how[0] == 'a' ? O_WRONLY | O_CREAT | O_APPEND : O_WRONLY | O_CREAT | O_TRUNC;
    int fd = vftr_open_regular(path, flags, 0666, kind);
    FILE *f;

    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    f = fdopen(fd, how);
    if (!f) {
        int e = errno;

        close(fd);
        errno = e;
    }
    return f;
}

#endif /* VFTR_UTIL_REGFILE_H */
