/*
 * cap_io — file I/O that counts itself: every POSIX and ISO C call it makes
 * on a file is booked, as capture books it, under the file (its absolute
 * name and interface) and under the function that made it: operations by
 * kind (open, close, read, write, seek, sync, other), failed ones, bytes
 * read and written.  At the end it prints one line per file and function:
 *
 *   E file IFACE NAME ops open close read write seek sync other failed bytes_read bytes_written
 *   E func - NAME ...
 *
 * (IFACE posix or stdio), "R file|func IFACE NAME N" for the renames among
 * the other operations (OTF2 has no record for them), and "errno ok:
 * WHAT" / "errno BAD: WHAT" lines for
 * the calls whose errno it checks.  capture_io.sh compares the lines with
 * vftr-stats --io on the trace and its conversions and with otfaux.
 *
 * What it does: writes and reads data/a.bin through every POSIX call
 * capture interposes (open, open64, openat relative to a directory, creat,
 * write, pwrite, writev, pwritev, read until EOF, pread, readv, preadv,
 * lseek, fsync, fdatasync, dup, dup2, a failing read), a stream file
 * through fopen, fprintf, fputs, fputc, putc, fwrite, fflush, fseek, rewind,
 * fgets, fgetc, getc, fread, and fdopen over a descriptor; renames and
 * unlinks; two threads writing a file each; files capture must not record
 * (/proc, /etc, and skipdir/, which the test excludes); mkstemp; writes
 * from a signal handler; a forked child writing to the parent's file
 * (capture is off in the child: none of it counts); I/O in a constructor
 * (before main: the prelude) and in an atexit handler that runs after
 * capture has finished: none of it counts either.  Built
 * with and without _FORTIFY_SOURCE (the _chk forms).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OPEN, CLOSE, READ, WRITE, SEEK, SYNC, OTHER, NKINDS };

struct acct {
    char kind[8];               /* "file" or "func" */
    char iface[8];
    char name[512];
    unsigned long ops, k[NKINDS], failed, bread, bwritten;
};

#define MAXACCT 64
static struct acct tally[MAXACCT];
static int nacct;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char cwd[400];

static struct acct *find(const char *kind, const char *iface, const char *name)
{
    for (int i = 0; i < nacct; i++)
        if (!strcmp(tally[i].kind, kind) && !strcmp(tally[i].iface, iface) &&
            !strcmp(tally[i].name, name))
            return &tally[i];
    if (nacct == MAXACCT)
        abort();
    struct acct *a = &tally[nacct++];
    snprintf(a->kind, sizeof a->kind, "%s", kind);
    snprintf(a->iface, sizeof a->iface, "%s", iface);
    snprintf(a->name, sizeof a->name, "%s", name);
    return a;
}

static void add(struct acct *a, int kind, int failed, long bytes)
{
    a->ops++;
    a->k[kind]++;
    a->failed += failed != 0;
    if (kind == READ && bytes > 0)
        a->bread += (unsigned long)bytes;
    if (kind == WRITE && bytes > 0)
        a->bwritten += (unsigned long)bytes;
}

/* One call on file `rel` (relative to the working directory) through
 * interface iface, made by function fn. */
static void book(const char *iface, const char *rel, const char *fn, int kind, int failed,
                 long bytes)
{
    char name[512];

    snprintf(name, sizeof name, "%s/%s", cwd, rel);
    pthread_mutex_lock(&lock);
    add(find("file", iface, name), kind, failed, bytes);
    add(find("func", "-", fn), kind, failed, bytes);
    pthread_mutex_unlock(&lock);
}

#define P(rel, kind, failed, bytes) book("posix", rel, __func__, kind, failed, bytes)
#define S(rel, kind, failed, bytes) book("stdio", rel, __func__, kind, failed, bytes)

static void errno_check(int ok, const char *what)
{
    printf("errno %s: %s\n", ok ? "ok" : "BAD", what);
}

static char block[70000];

__attribute__((noinline)) static void posix_write(void)
{
    const char *a = "data/a.bin";
    struct iovec iov[3] = { { block, 100 }, { block, 200 }, { block, 300 } };
    int fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ssize_t n;

    P(a, OPEN, fd < 0, 0);
    for (int i = 0; i < 17; i++) {
        n = write(fd, block, 1000 + (size_t)i * 37);
        P(a, WRITE, n < 0, n);
    }
    n = pwrite(fd, block, 64, 100);
    P(a, WRITE, n < 0, n);
    n = writev(fd, iov, 3);
    P(a, WRITE, n < 0, n);
    n = pwritev(fd, iov, 2, 5);
    P(a, WRITE, n < 0, n);
    P(a, SEEK, lseek(fd, 0, SEEK_END) < 0, 0);
    P(a, SYNC, fsync(fd) != 0, 0);
    P(a, SYNC, fdatasync(fd) != 0, 0);
    n = write(fd, block, 65536);
    P(a, WRITE, n < 0, n);
    P(a, CLOSE, close(fd) != 0, 0);

    fd = creat("data/b.bin", 0644);
    P("data/b.bin", OPEN, fd < 0, 0);
    n = write(fd, block, 333);
    P("data/b.bin", WRITE, n < 0, n);
    P("data/b.bin", CLOSE, close(fd) != 0, 0);
}

__attribute__((noinline)) static void posix_read(void)
{
    const char *a = "data/a.bin";
    char buf[4096];
    struct iovec iov[2] = { { buf, 10 }, { buf + 10, 20 } };
    int fd = open64(a, O_RDONLY), dir, fd2, fd3;
    ssize_t n;

    P(a, OPEN, fd < 0, 0);
    do {
        n = read(fd, buf, sizeof buf);
        P(a, READ, n < 0, n);
    } while (n > 0);
    n = pread(fd, buf, 50, 10);
    P(a, READ, n < 0, n);
    n = readv(fd, iov, 2);          /* at the end of the file: 0 bytes */
    P(a, READ, n < 0, n);
    n = preadv(fd, iov, 2, 0);
    P(a, READ, n < 0, n);
    P(a, SEEK, lseek(fd, 3, SEEK_SET) < 0, 0);
    n = read(fd, buf, 7);
    P(a, READ, n < 0, n);
    fd2 = dup(fd);
    P(a, OTHER, fd2 < 0, 0);
    n = read(fd2, buf, 5);
    P(a, READ, n < 0, n);
    P(a, CLOSE, close(fd2) != 0, 0);
    fd3 = dup2(fd, 100);
    P(a, OTHER, fd3 < 0, 0);
    n = read(fd3, buf, 9);
    P(a, READ, n < 0, n);
    P(a, CLOSE, close(fd3) != 0, 0);
    P(a, CLOSE, close(fd) != 0, 0);

    /* relative to a directory descriptor: the name is the directory's */
    dir = open("data", O_RDONLY | O_DIRECTORY);
    P("data", OPEN, dir < 0, 0);
    fd = openat(dir, "b.bin", O_RDONLY);
    P("data/b.bin", OPEN, fd < 0, 0);
    n = read(fd, buf, sizeof buf);
    P("data/b.bin", READ, n < 0, n);
    P("data/b.bin", CLOSE, close(fd) != 0, 0);
    P("data", CLOSE, close(dir) != 0, 0);
}

__attribute__((noinline)) static void streams(void)
{
    const char *c = "data/c.txt";
    char line[256];
    FILE *f = fopen(c, "w");
    int rc;
    size_t k;

    S(c, OPEN, f == NULL, 0);
    for (int i = 0; i < 25; i++) {
        rc = fprintf(f, "line %d of %s: %.*s\n", i, c, i, "abcdefghijklmnopqrstuvwxyz");
        S(c, WRITE, rc < 0, rc);
    }
    rc = fputs("a line by fputs\n", f);
    S(c, WRITE, rc == EOF, rc == EOF ? 0 : 16);
    rc = fputc('x', f);
    S(c, WRITE, rc == EOF, rc == EOF ? 0 : 1);
    rc = putc('\n', f);
    S(c, WRITE, rc == EOF, rc == EOF ? 0 : 1);
    k = fwrite(block, 10, 7, f);
    S(c, WRITE, k < 7, (long)(k * 10));
    rc = fflush(f);
    S(c, SYNC, rc != 0, 0);
    rc = fseek(f, 0, SEEK_END);
    S(c, SEEK, rc != 0, 0);
    rc = fclose(f);
    S(c, CLOSE, rc != 0, 0);

    f = fopen(c, "r");
    S(c, OPEN, f == NULL, 0);
    while (fgets(line, sizeof line, f)) {
        S(c, READ, 0, (long)strlen(line));
        if (strncmp(line, "line 20", 7) == 0)
            break;
    }
    rc = fgetc(f);
    S(c, READ, 0, rc == EOF ? 0 : 1);
    rc = getc(f);
    S(c, READ, 0, rc == EOF ? 0 : 1);
    k = fread(line, 1, 100, f);
    S(c, READ, 0, (long)k);
    rewind(f);
    S(c, SEEK, 0, 0);
    k = fread(line, 3, 11, f);
    S(c, READ, 0, (long)(k * 3));
    while (fgets(line, sizeof line, f))
        S(c, READ, 0, (long)strlen(line));
    S(c, READ, 0, 0);               /* the fgets that met the end */
    rc = fclose(f);
    S(c, CLOSE, rc != 0, 0);

    /* a stream over a descriptor: the stream's file from then on */
    int fd = open("data/d.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    P("data/d.txt", OPEN, fd < 0, 0);
    f = fdopen(fd, "w");
    S("data/d.txt", OPEN, f == NULL, 0);
    rc = fprintf(f, "%s\n", "written through fdopen");
    S("data/d.txt", WRITE, rc < 0, rc);
    rc = fclose(f);
    S("data/d.txt", CLOSE, rc != 0, 0);
}

__attribute__((noinline)) static void names(void)
{
    int rc = rename("data/b.bin", "data/b2.bin");

    P("data/b.bin", OTHER, rc != 0, 0);
    printf("R file posix %s/data/b.bin 1\nR func - %s 1\n", cwd, __func__);
    rc = unlink("data/b2.bin");
    P("data/b2.bin", OTHER, rc != 0, 0);
    rc = unlink("data/never-there");
    P("data/never-there", OTHER, rc != 0, 0);
    errno_check(rc == -1 && errno == ENOENT, "unlink of a missing file sets ENOENT");
}

/* Files capture leaves out: the system's (/proc, /etc) and the test's
 * excluded directory; counted nowhere. */
__attribute__((noinline)) static void excluded(void)
{
    char buf[256];
    int fd = open("/proc/self/status", O_RDONLY);
    FILE *f;

    if (fd >= 0) {
        (void)!read(fd, buf, sizeof buf);
        close(fd);
    }
    if ((f = fopen("/etc/hostname", "r")) != NULL) {
        (void)!fgets(buf, sizeof buf, f);
        fclose(f);
    }
    fd = open("skipdir/x", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    (void)!write(fd, block, 99);
    close(fd);
    if ((f = fopen("skipdir/y", "w")) != NULL) {
        fprintf(f, "not recorded\n");
        fclose(f);
    }
}

/* errno is what the call left: a failing call's, and untouched by a
 * successful one, whatever capture did meanwhile (a flush of its buffer). */
__attribute__((noinline)) static void errnos(void)
{
    char buf[64];
    int fd = open("data/e.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ssize_t n;

    P("data/e.bin", OPEN, fd < 0, 0);
    errno = 0;
    n = read(fd, buf, sizeof buf);          /* opened for writing: EBADF */
    P("data/e.bin", READ, n < 0, n);
    errno_check(n == -1 && errno == EBADF, "read of a write-only descriptor sets EBADF");
    for (int i = 0; i < 3000; i++) {        /* enough records to flush capture's buffer */
        errno = ENOTTY;
        n = write(fd, buf, 1);
        P("data/e.bin", WRITE, n < 0, n);
        if (errno != ENOTTY) {
            errno_check(0, "a successful write leaves errno alone");
            break;
        }
        if (i == 2999)
            errno_check(1, "3000 successful writes leave errno alone");
    }
    errno = EDOM;
    P("data/e.bin", CLOSE, close(fd) != 0, 0);
    errno_check(errno == EDOM, "a successful close leaves errno alone");
    errno = 0;
    n = write(fd, buf, 1);                  /* closed: not followed, EBADF */
    errno_check(n == -1 && errno == EBADF, "write to a closed descriptor sets EBADF");
    errno = 0;
    FILE *f = fopen("data/missing/x", "r");
    S("data/missing/x", OPEN, f == NULL, 0);
    errno_check(f == NULL && errno == ENOENT, "fopen of a missing directory sets ENOENT");
}

__attribute__((noinline)) static void mkstemp_file(void)
{
    char tmpl[] = "data/tmpXXXXXX";
    int fd = mkstemp(tmpl);
    ssize_t n;

    P(tmpl, OPEN, fd < 0, 0);
    n = write(fd, block, 10);
    P(tmpl, WRITE, n < 0, n);
    P(tmpl, CLOSE, close(fd) != 0, 0);
    P(tmpl, OTHER, unlink(tmpl) != 0, 0);
}

/* I/O of the program before main (a constructor: its first hook starts
 * capture, but what runs before main is the prelude, left out) and after
 * capture has ended (an atexit handler registered before capture's own,
 * by a constructor that runs first and has no hook, runs after capture's
 * finalizer): passed through, recorded nowhere. */
__attribute__((no_instrument_function)) static void late_io(void)
{
    int fd = open("data/atexit.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);

    (void)!write(fd, "late\n", 5);
    close(fd);
}

__attribute__((constructor(101), no_instrument_function)) static void first_ctor(void)
{
    atexit(late_io);
}

__attribute__((constructor)) static void early_io(void)
{
    int fd;

    mkdir("data", 0755);
    fd = open("data/ctor.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    (void)!write(fd, "early\n", 6);
    close(fd);
}

static int sigfd = -1;
static volatile sig_atomic_t signals;

/* write() is async-signal-safe, and so must its interposition be.  The
 * handler has no hook of its own (a hook met first in a signal handler is
 * capture's matter, not I/O's): its writes are booked under the function
 * it interrupted, signal_writes, which raise()s the signal. */
__attribute__((noinline, no_instrument_function)) static void on_signal(int sig)
{
    ssize_t n = write(sigfd, "sig", 3);

    (void)sig;
    /* raise()d from plain code: book() is safe here */
    book("posix", "data/sig.bin", "signal_writes", WRITE, n < 0, n);
    signals++;
}

__attribute__((noinline)) static void signal_writes(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    sigfd = open("data/sig.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    P("data/sig.bin", OPEN, sigfd < 0, 0);
    for (int i = 0; i < 20; i++)
        raise(SIGUSR1);
    P("data/sig.bin", CLOSE, close(sigfd) != 0, 0);
    signal(SIGUSR1, SIG_DFL);
}

/* A child writes to the parent's followed descriptor and opens files of
 * its own: capture stops in a forked child, so none of it counts. */
__attribute__((noinline)) static void forked(void)
{
    int fd = open("data/fork.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644), st;
    pid_t pid;
    ssize_t n;

    P("data/fork.bin", OPEN, fd < 0, 0);
    fflush(NULL);   /* the child must not write the parent's buffered output */
    pid = fork();
    if (pid == 0) {
        int c = open("data/child.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);

        (void)!write(fd, block, 100);
        (void)!write(c, block, 100);
        close(c);
        close(fd);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    n = write(fd, block, 10);
    P("data/fork.bin", WRITE, n < 0, n);
    P("data/fork.bin", CLOSE, close(fd) != 0, 0);
}

__attribute__((noinline)) static void *thread_writer(void *arg)
{
    char name[32];
    int id = (int)(long)arg, fd;

    snprintf(name, sizeof name, "data/t%d.bin", id);
    fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    P(name, OPEN, fd < 0, 0);
    for (int i = 0; i < 50 + 10 * id; i++) {
        ssize_t n = write(fd, block, 10 + (size_t)i);

        P(name, WRITE, n < 0, n);
    }
    P(name, CLOSE, close(fd) != 0, 0);
    return NULL;
}

int main(void)
{
    pthread_t th[2];

    if (!getcwd(cwd, sizeof cwd))
        return 1;
    mkdir("data", 0755);
    mkdir("skipdir", 0755);
    memset(block, 'b', sizeof block);
    errnos();       /* first: with a full disk, capture's every write fails here */
    posix_write();
    posix_read();
    streams();
    names();
    excluded();
    mkstemp_file();
    signal_writes();
    forked();
    for (long i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, thread_writer, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < nacct; i++) {
        const struct acct *a = &tally[i];

        printf("E %s %s %s %lu", a->kind, a->iface, a->name, a->ops);
        for (int k = 0; k < NKINDS; k++)
            printf(" %lu", a->k[k]);
        printf(" %lu %lu %lu\n", a->failed, a->bread, a->bwritten);
    }
    return 0;
}
