/* nohooks [child|segv] — a program built WITHOUT -finstrument-functions
 * (test/capture/module.mk): no compiler hook ever reaches capture.  It
 * prints "pid N", runs itself once more as a child ("child": prints
 * "child N" and ends), waits for it and ends; with segv it then dies of a
 * fault instead.  The child inherits vftr-run's LD_PRELOAD but is not the
 * process vftr-run started: capture_nohooks.sh checks that only the parent
 * leaves files and a message. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    pid_t child;
    int status;

    if (strcmp(mode, "child") == 0) {
        printf("child %ld\n", (long)getpid());
        return 0;
    }
    printf("pid %ld\n", (long)getpid());
    fflush(stdout);
    child = fork();
    if (child == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)
        || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "nohooks: the child failed\n");
        return 1;
    }
    if (strcmp(mode, "segv") == 0) {
        void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        fflush(stdout);
        if (page != MAP_FAILED)
            *(volatile int *)page = 1;
        raise(SIGSEGV);
    }
    return 0;
}
