/* cap_exec HOW N PROG [ARG] — calls step() N times, prints its counts, then
 * replaces itself with PROG through the exec function HOW (execv, execve,
 * execvp, execvpe, execl, execle, execlp, fexecve, execveat; "thread": execv
 * while a second thread keeps calling step(); "fork": a forked child
 * execs, the parent waits).  If the exec fails, says so, calls step() N
 * times more and prints the counts again: "count step 2N". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calls.h"

static unsigned long long n_main, n_step;
static _Atomic int stop;
static _Atomic unsigned long long n_worker;

static NOINLINE void step(void)
{
    n_step++;
    capture_sink++;
}

static NOINLINE void worker_step(void)
{
    n_worker++;
    capture_sink++;
}

static NOINST void *worker(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        worker_step();
    return NULL;
}

static NOINST int do_exec(const char *how, const char *prog, char *arg)
{
    char *argv[] = { (char *)prog, arg, NULL };
    extern char **environ;

    if (strcmp(how, "execv") == 0 || strcmp(how, "thread") == 0 || strcmp(how, "fork") == 0)
        return execv(prog, argv);
    if (strcmp(how, "execve") == 0)
        return execve(prog, argv, environ);
    if (strcmp(how, "execvp") == 0)
        return execvp(prog, argv);
    if (strcmp(how, "execvpe") == 0)
        return execvpe(prog, argv, environ);
    if (strcmp(how, "execl") == 0)
        return execl(prog, prog, arg, (char *)NULL);
    if (strcmp(how, "execle") == 0)
        return execle(prog, prog, arg, (char *)NULL, environ);
    if (strcmp(how, "execlp") == 0)
        return execlp(prog, prog, arg, (char *)NULL);
    if (strcmp(how, "fexecve") == 0 || strcmp(how, "execveat") == 0) {
        int fd = open(prog, O_RDONLY | O_CLOEXEC), rc;

        if (fd < 0)
            return -1;
        /* the descriptor is closed by the exec (O_CLOEXEC), a script's
         * interpreter could not read it then: PROG is a binary */
        rc = strcmp(how, "fexecve") == 0 ? fexecve(fd, argv, environ)
                                          : execveat(fd, "", argv, environ, AT_EMPTY_PATH);
        close(fd);
        return rc;
    }
    errno = EINVAL;
    return -1;
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 2, 1000);
    pthread_t th;
    int rc;

    if (argc < 4) {
        fprintf(stderr, "usage: cap_exec HOW N PROG [ARG]\n");
        return 2;
    }
    if (strcmp(argv[1], "thread") == 0 && pthread_create(&th, NULL, worker, NULL) != 0)
        return 1;
    for (long i = 0; i < n; i++)
        step();
    report("main", n_main);
    report("step", n_step);
    fflush(stdout);
    /* the exec comes while the worker is well into its calls */
    if (strcmp(argv[1], "thread") == 0)
        while (atomic_load(&n_worker) < 1000)
            sched_yield();
    if (strcmp(argv[1], "fork") == 0) {
        int status;
        pid_t pid = fork();

        if (pid < 0)
            return 1;
        if (pid == 0) {
            do_exec(argv[1], argv[3], argc > 4 ? argv[4] : NULL);
            _exit(127);
        }
        if (waitpid(pid, &status, 0) != pid)
            return 1;
        printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128);
        for (long i = 0; i < n; i++)
            step();
        report("step", n_step);
        return 0;
    }
    rc = do_exec(argv[1], argv[3], argc > 4 ? argv[4] : NULL);
    printf("exec failed: %s (%d)\n", strerror(errno), rc);
    if (strcmp(argv[1], "thread") == 0) {
        atomic_store(&stop, 1);
        pthread_join(th, NULL);
    }
    for (long i = 0; i < n; i++)
        step();
    report("step", n_step);
    return 0;
}
