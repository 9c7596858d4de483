/* cap_signal MODE N — calls step() N times, then crash(), which prints the
 * counts and ends the program by MODE: segv (a write to a page without
 * access), bus (raise(SIGBUS)), abrt (abort()), term (raise(SIGTERM)), int
 * (raise(SIGINT)), or exit (a plain exit(3), for comparison).
 * cap_signal caught N — with CAP_SIGNAL_CATCH=1 in the environment, a
 * SIGTERM handler of the program's, installed before main (before capture
 * starts, so that capture's handler passes the signal on to it): calls
 * step() N times, raises SIGTERM, which the handler counts, calls step() N
 * times more, prints the counts and returns 0.
 * cap_signal loop [STEP] — calls step() forever, printing "progress N"
 * (flushed) every STEP calls (default 100000), until it is killed; its
 * first line is "pid N". */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "calls.h"

static unsigned long long n_main, n_step, n_crash;
static volatile sig_atomic_t n_caught;

static NOINST void on_term(int sig)
{
    (void)sig;
    n_caught++;
}

static NOINST __attribute__((constructor)) void catch_term(void)
{
    const char *on = getenv("CAP_SIGNAL_CATCH");

    if (on && strcmp(on, "1") == 0)
        signal(SIGTERM, on_term);
}

static NOINLINE void step(void)
{
    n_step++;
    capture_sink++;
}

static NOINLINE void crash(const char *mode)
{
    n_crash++;
    report("main", n_main);
    report("step", n_step);
    report("crash", n_crash);
    fflush(stdout);
    if (strcmp(mode, "segv") == 0) {
        /* a write to a page without access: a real fault, and not a null
         * pointer, which UBSan would stop at before the fault happens */
        void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (page != MAP_FAILED)
            *(volatile int *)page = 1;
        raise(SIGSEGV);
    } else if (strcmp(mode, "bus") == 0)
        raise(SIGBUS);
    else if (strcmp(mode, "abrt") == 0)
        abort();
    else if (strcmp(mode, "term") == 0)
        raise(SIGTERM);
    else if (strcmp(mode, "int") == 0)
        raise(SIGINT);
    exit(3);
}

int main(int argc, char **argv)
{
    n_main++;
    const char *mode = argc > 1 ? argv[1] : "exit";

    if (strcmp(mode, "loop") == 0) {
        unsigned long long every = (unsigned long long)arg_long(argc, argv, 2, 100000);
        printf("pid %ld\n", (long)getpid());
        fflush(stdout);
        for (;;) {
            step();
            if (n_step % every == 0) {
                printf("progress %llu\n", n_step);
                fflush(stdout);
            }
        }
    }
    long n = arg_long(argc, argv, 2, 1000);
    for (long i = 0; i < n; i++)
        step();
    if (strcmp(mode, "caught") == 0) {
        raise(SIGTERM);
        for (long i = 0; i < n; i++)
            step();
        report("main", n_main);
        report("step", n_step);
        report("caught", (unsigned long long)n_caught);
        return 0;
    }
    crash(mode);
    return 0;
}
