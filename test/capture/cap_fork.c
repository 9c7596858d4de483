/* cap_fork N — step() N times, fork(); the child calls step() N times and
 * exits; the parent waits, then calls step() N times more.  Prints
 * "count parent_step 2N" (from the parent, after the wait) and "count
 * child_step N" (from the child: its calls after the fork). */
#include <sys/wait.h>
#include <unistd.h>

#include "calls.h"

static unsigned long long n_main, n_step;

static NOINLINE void step(void)
{
    n_step++;
    capture_sink++;
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 1, 1000);
    unsigned long long before;
    int status;

    for (long i = 0; i < n; i++)
        step();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        before = n_step;
        for (long i = 0; i < n; i++)
            step();
        report("child_step", n_step - before);
        printf("child %ld\n", (long)getpid());
        return 0;
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    for (long i = 0; i < n; i++)
        step();
    report("main", n_main);
    report("parent_step", n_step);
    printf("parent %ld\n", (long)getpid());
    return 0;
}
