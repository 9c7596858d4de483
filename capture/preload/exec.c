/*
 * exec.c — the exec family, interposed: the old image's calls reach the
 * trace and the log before exec replaces it (capture/exec.c says what is
 * done, and what happens when the exec fails).
 *
 * glibc's exec functions call each other through internal aliases that
 * cannot be interposed (execvp does not go through the exported execve),
 * so every exported one is replaced: execve, execv, execvp, execvpe,
 * execl, execlp, execle, fexecve and execveat.  Each tells capture, then
 * calls the next definition of the same function (glibc's, or a
 * sanitizer's in front of it) with the same arguments; the list forms
 * build their argument vector first, as glibc does.  posix_spawn and
 * system() are no exec of this process and are left alone.
 *
 * Like start.c, this file is linked into libvftrcapture.so only: a program
 * linked with the static archive keeps glibc's exec.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "capture.h"

int execve(const char *path, char *const argv[], char *const envp[]) VFTR_EXPORT VFTR_NI;
int execv(const char *path, char *const argv[]) VFTR_EXPORT VFTR_NI;
int execvp(const char *file, char *const argv[]) VFTR_EXPORT VFTR_NI;
int execvpe(const char *file, char *const argv[], char *const envp[]) VFTR_EXPORT VFTR_NI;
int execl(const char *path, const char *arg, ...) VFTR_EXPORT VFTR_NI;
int execlp(const char *file, const char *arg, ...) VFTR_EXPORT VFTR_NI;
int execle(const char *path, const char *arg, ...) VFTR_EXPORT VFTR_NI;
int fexecve(int fd, char *const argv[], char *const envp[]) VFTR_EXPORT VFTR_NI;
int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
    VFTR_EXPORT VFTR_NI;

extern char **environ;

typedef int vexec_fn(const char *path, char *const argv[], char *const envp[]);
typedef int vexec2_fn(const char *path, char *const argv[]);
typedef int fexec_fn(int fd, char *const argv[], char *const envp[]);
typedef int execat_fn(int dirfd, const char *path, char *const argv[], char *const envp[],
                      int flags);

/* The next definition of name after this library (NULL: none). */
static VFTR_NI void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* The exec failed (or there was none to call): capture goes on, errno is
 * the exec's. */
static VFTR_NI int failed(int token)
{
    int err = errno;

    vftr_exec_failed(token);
    errno = err;
    return -1;
}

VFTR_EXPORT VFTR_NI int execve(const char *path, char *const argv[], char *const envp[])
{
    vexec_fn *real = (vexec_fn *)next("execve");
    int token = vftr_exec_begin(path);

    if (real == NULL)
        errno = ENOSYS;
    else
        real(path, argv, envp);
    return failed(token);
}

VFTR_EXPORT VFTR_NI int execv(const char *path, char *const argv[])
{
    vexec2_fn *real = (vexec2_fn *)next("execv");
    int token = vftr_exec_begin(path);

    if (real == NULL)
        errno = ENOSYS;
    else
        real(path, argv);
    return failed(token);
}

VFTR_EXPORT VFTR_NI int execvp(const char *file, char *const argv[])
{
    vexec2_fn *real = (vexec2_fn *)next("execvp");
    int token = vftr_exec_begin(file);

    if (real == NULL)
        errno = ENOSYS;
    else
        real(file, argv);
    return failed(token);
}

VFTR_EXPORT VFTR_NI int execvpe(const char *file, char *const argv[], char *const envp[])
{
    vexec_fn *real = (vexec_fn *)next("execvpe");
    int token = vftr_exec_begin(file);

    if (real == NULL)
        errno = ENOSYS;
    else
        real(file, argv, envp);
    return failed(token);
}

VFTR_EXPORT VFTR_NI int fexecve(int fd, char *const argv[], char *const envp[])
{
    fexec_fn *real = (fexec_fn *)next("fexecve");
    char what[32];
    int token;

    snprintf(what, sizeof what, "file descriptor %d", fd);
    token = vftr_exec_begin(what);
    if (real == NULL)
        errno = ENOSYS;
    else
        real(fd, argv, envp);
    return failed(token);
}

VFTR_EXPORT VFTR_NI int execveat(int dirfd, const char *path, char *const argv[],
                                 char *const envp[], int flags)
{
    execat_fn *real = (execat_fn *)next("execveat");
    char what[32];
    int token;

    /* AT_EMPTY_PATH: the program is the descriptor itself */
    snprintf(what, sizeof what, "file descriptor %d", dirfd);
    token = vftr_exec_begin(path[0] != '\0' ? path : what);

    /* glibc before 2.34 has no wrapper: the system call then */
    if (real != NULL)
        real(dirfd, path, argv, envp, flags);
    else
        syscall(SYS_execveat, dirfd, path, argv, envp, flags);
    return failed(token);
}

/* The list forms: arg, then the variable arguments up to a null pointer,
 * become an argument vector (and, for execle, the environment after the
 * null pointer).  The vector is allocated: if the exec succeeds the image
 * is gone, if it fails it is freed. */
enum list_kind { LIST_PATH, LIST_SEARCH, LIST_ENV };

static VFTR_NI int exec_list(enum list_kind kind, const char *path, const char *arg, va_list ap)
{
    va_list count;
    size_t n = 1;
    char **argv, **envp = environ;
    int rc;

    va_copy(count, ap);
    if (arg != NULL)
        while (va_arg(count, const char *) != NULL)
            n++;
    va_end(count);
    if ((argv = malloc((n + 1) * sizeof *argv)) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    argv[0] = (char *)arg;
    for (size_t i = 1; i <= n; i++)
        argv[i] = arg != NULL && i < n ? va_arg(ap, char *) : NULL;
    if (arg != NULL)
        (void)va_arg(ap, char *);   /* the null pointer that ends the list */
    if (kind == LIST_ENV)
        envp = va_arg(ap, char **);
    rc = kind == LIST_SEARCH ? execvpe(path, argv, envp) : execve(path, argv, envp);
    free(argv);
    return rc;
}

VFTR_EXPORT VFTR_NI int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    int rc, err;

    va_start(ap, arg);
    rc = exec_list(LIST_PATH, path, arg, ap);
    err = errno;
    va_end(ap);
    errno = err;
    return rc;
}

VFTR_EXPORT VFTR_NI int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    int rc, err;

    va_start(ap, arg);
    rc = exec_list(LIST_SEARCH, file, arg, ap);
    err = errno;
    va_end(ap);
    errno = err;
    return rc;
}

VFTR_EXPORT VFTR_NI int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    int rc, err;

    va_start(ap, arg);
    rc = exec_list(LIST_ENV, path, arg, ap);
    err = errno;
    va_end(ap);
    errno = err;
    return rc;
}
