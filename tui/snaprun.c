/*
 * snaprun.c — vftr-snap as a child process (see snaprun.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "snaprun.h"

extern char **environ;

/* Output kept for the error message: the tail of what the child wrote. */
#define TAIL_MAX 4096

int tui_snap_path(char *buf, size_t size, char *err, size_t errlen)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash;

    if (n < 0) {
        int e = errno;

        snprintf(err, errlen, "cannot find my own executable (/proc/self/exe): %s",
                 strerror(e));
        return -e;
    }
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (!slash)
        slash = self;            /* not seen on Linux: the link is absolute */
    *slash = '\0';
    if ((size_t)snprintf(buf, size, "%s/vftr-snap", self) >= size) {
        snprintf(err, errlen, "the path of vftr-snap is too long");
        return -ENAMETOOLONG;
    }
    if (access(buf, X_OK) < 0) {
        int e = errno;

        snprintf(err, errlen, "no vftr-snap next to vftr-tui (%s): %s", buf, strerror(e));
        return -e;
    }
    return 0;
}

/* The last non-empty line of the tail, or "": lines end at '\n' or at '\r'
 * (a progress line redrawn). */
static const char *last_line(char *tail, size_t len)
{
    while (len > 0 && (tail[len - 1] == '\n' || tail[len - 1] == '\r'))
        len--;
    tail[len] = '\0';
    char *nl = strrchr(tail, '\n'), *cr = strrchr(tail, '\r');

    if (cr > nl)
        nl = cr;
    return nl ? nl + 1 : tail;
}

static int run(const char *trace, int shown, char *err, size_t errlen)
{
    char path[PATH_MAX], tail[TAIL_MAX + 1], all[] = "--all", arg[PATH_MAX];
    char progress[] = "--progress";
    char *argv[] = { path, all, arg, NULL, NULL };
    posix_spawn_file_actions_t fa;
    int fds[2], rc, status;
    size_t len = 0;
    pid_t pid;

    if ((rc = tui_snap_path(path, sizeof path, err, errlen)) < 0)
        return rc;
    if ((size_t)snprintf(arg, sizeof arg, "%s", trace) >= sizeof arg) {
        snprintf(err, errlen, "the trace name is too long");
        return -ENAMETOOLONG;
    }
    if (shown) {
        argv[2] = progress;
        argv[3] = arg;
    }
    if (pipe2(fds, O_CLOEXEC) < 0) {
        rc = -errno;
        snprintf(err, errlen, "cannot run vftr-snap: pipe: %s", strerror(-rc));
        return rc;
    }
    if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(err, errlen, "cannot run vftr-snap: %s", strerror(rc));
        return -rc;
    }
    /* dup2 clears close-on-exec on the copies; the originals close on exec */
    if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
        (rc = posix_spawn_file_actions_adddup2(&fa, fds[1], 1)) == 0 &&
        (rc = posix_spawn_file_actions_adddup2(&fa, fds[1], 2)) == 0)
        rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        snprintf(err, errlen, "cannot run %s: %s", path, strerror(rc));
        return -rc;
    }

    /* Read until the child closes its end; keep the last TAIL_MAX bytes. */
    for (;;) {
        char chunk[TAIL_MAX / 4];
        ssize_t n = read(fds[0], chunk, sizeof chunk);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (shown && write(STDERR_FILENO, chunk, (size_t)n) < 0)
            shown = 0;              /* our stderr is gone: keep reading */
        /* a chunk is smaller than the tail: drop the oldest bytes */
        if (len + (size_t)n > TAIL_MAX) {
            size_t drop = len + (size_t)n - TAIL_MAX;

            memmove(tail, tail + drop, len - drop);
            len -= drop;
        }
        memcpy(tail + len, chunk, (size_t)n);
        len += (size_t)n;
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            rc = -errno;
            snprintf(err, errlen, "vftr-snap: waitpid: %s", strerror(-rc));
            return rc;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    const char *line = last_line(tail, len);

    if (WIFEXITED(status))
        snprintf(err, errlen, "vftr-snap failed (exit status %d)%s%s", WEXITSTATUS(status),
                 *line ? ": " : "", line);
    else
        snprintf(err, errlen, "vftr-snap was killed by signal %d%s%s",
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0, *line ? ": " : "", line);
    return -EIO;
}

int tui_snap_run(const char *trace, char *err, size_t errlen)
{
    return run(trace, 0, err, errlen);
}

int tui_snap_run_shown(const char *trace, char *err, size_t errlen)
{
    return run(trace, 1, err, errlen);
}
