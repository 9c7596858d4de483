/*
 * ctlwork — the workload of the external-control benchmark
 * (bench/ctl/run.sh), compiled with -finstrument-functions: fib(N), which
 * makes 2*fib(N+1)-1 calls.
 *
 *   ctlwork N
 *       One workload, fib(N).  Prints, for the workload alone:
 *         calls C      calls of fib
 *         wall_ns W    CLOCK_MONOTONIC
 *         cpu_ns U     CLOCK_PROCESS_CPUTIME_ID: every thread of the process,
 *                      the control module's shadow thread included
 *         thread_ns T  CLOCK_THREAD_CPUTIME_ID: the measured (main) thread
 *
 *   ctlwork N BLOCKS PHASES
 *       Segments: BLOCKS blocks of four segments of fib(N) each, the
 *       phases of a block "i q q i" or (every other block) "q i i q",
 *       where q is a segment during which the program is queried and i one
 *       during which it is not.  Before each segment one line "q" or "i"
 *       goes to the FIFO PHASES, whose reader (bench/ctl/client.py) asks
 *       its questions only during q segments; "e" ends.  The FIFO is
 *       opened once the client reads it (at most 10 s of waiting), so
 *       nothing is measured before the client is connected.  Prints one
 *       line per segment:
 *         seg BLOCK PHASE calls thread_ns cpu_ns wall_ns
 *       The per-block design (ABBA) cancels a drift of the machine's speed
 *       that is linear over a block.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NI __attribute__((no_instrument_function))

static uint64_t calls;

static __attribute__((noinline)) uint64_t fib(int n)
{
    calls++;
    return n < 2 ? (uint64_t)n : fib(n - 1) + fib(n - 2);
}

static NI uint64_t ns(clockid_t c)
{
    struct timespec t;

    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Opens the FIFO for writing once a reader has it open. */
static NI int open_phases(const char *path)
{
    const struct timespec ms = { 0, 1000000 };

    for (int i = 0; i < 10000; i++) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

        if (fd >= 0)
            return fd;
        if (errno != ENXIO)
            break;
        nanosleep(&ms, NULL);
    }
    fprintf(stderr, "ctlwork: %s: no reader: %s\n", path, strerror(errno));
    return -1;
}

static NI int segments(int n, int blocks, const char *path)
{
    static const char order[2][4] = { { 'i', 'q', 'q', 'i' }, { 'q', 'i', 'i', 'q' } };
    int fd = open_phases(path);
    uint64_t sink = 0;

    if (fd < 0)
        return 1;
    for (int b = 0; b < blocks; b++)
        for (int s = 0; s < 4; s++) {
            char msg[2] = { order[b % 2][s], '\n' };
            uint64_t w0, c0, t0, c1, t1, w1, k0 = calls;

            if (write(fd, msg, 2) != 2) {
                fprintf(stderr, "ctlwork: %s: write: %s\n", path, strerror(errno));
                return 1;
            }
            w0 = ns(CLOCK_MONOTONIC);
            c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
            t0 = ns(CLOCK_THREAD_CPUTIME_ID);
            sink += fib(n);
            t1 = ns(CLOCK_THREAD_CPUTIME_ID);
            c1 = ns(CLOCK_PROCESS_CPUTIME_ID);
            w1 = ns(CLOCK_MONOTONIC);
            printf("seg %d %c %llu %llu %llu %llu\n", b, msg[0],
                   (unsigned long long)(calls - k0), (unsigned long long)(t1 - t0),
                   (unsigned long long)(c1 - c0), (unsigned long long)(w1 - w0));
        }
    (void)!write(fd, "e\n", 2);
    close(fd);
    printf("sink %llu\n", (unsigned long long)sink);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 35;
    uint64_t w0, c0, t0, r, w1, c1, t1;

    if (argc > 3)
        return segments(n, atoi(argv[2]), argv[3]);
    w0 = ns(CLOCK_MONOTONIC);
    c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
    t0 = ns(CLOCK_THREAD_CPUTIME_ID);
    r = fib(n);
    t1 = ns(CLOCK_THREAD_CPUTIME_ID);
    c1 = ns(CLOCK_PROCESS_CPUTIME_ID);
    w1 = ns(CLOCK_MONOTONIC);
    printf("fib %llu\ncalls %llu\nwall_ns %llu\ncpu_ns %llu\nthread_ns %llu\n",
           (unsigned long long)r, (unsigned long long)calls, (unsigned long long)(w1 - w0),
           (unsigned long long)(c1 - c0), (unsigned long long)(t1 - t0));
    return 0;
}
