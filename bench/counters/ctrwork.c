/*
 * ctrwork — the workload of bench/counters/run.sh.
 *   ctrwork raw N     opens task-clock and page-faults itself (no vftr,
 *                     uninstrumented code) and times N read(2) calls of
 *                     each: "raw_read_ns X" (ns per read, the system call
 *                     that a counter read at a boundary cannot avoid)
 *   ctrwork calls N   calls an empty instrumented function N times:
 *                     "call_ns X" (ns per call, enter and exit included)
 * Times by CLOCK_MONOTONIC around the loop only.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINST __attribute__((no_instrument_function))

static volatile unsigned long sink;

static __attribute__((noinline)) void leaf(void)
{
    sink++;
}

static NOINST double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static NOINST int open_sw(uint64_t config)
{
    struct perf_event_attr a;

    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = config;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000000;
    double t0, t1;

    if (argc > 1 && strcmp(argv[1], "raw") == 0) {
        int fd[2] = { open_sw(PERF_COUNT_SW_TASK_CLOCK), open_sw(PERF_COUNT_SW_PAGE_FAULTS) };
        uint64_t b[4];

        if (fd[0] < 0 || fd[1] < 0) {
            perror("ctrwork: perf_event_open");
            return 1;
        }
        t0 = now();
        for (long i = 0; i < n; i++)
            if (read(fd[i & 1], b, sizeof b) < 0)
                return 1;
        t1 = now();
        printf("raw_read_ns %.1f\n", (t1 - t0) / (double)n);
        return 0;
    }
    t0 = now();
    for (long i = 0; i < n; i++)
        leaf();
    t1 = now();
    printf("call_ns %.1f\n", (t1 - t0) / (double)n);
    return 0;
}
