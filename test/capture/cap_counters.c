/*
 * cap_counters PAGES MS — what counters.events must measure, measured by the
 * program itself: touch_pages() writes one byte into each of PAGES pages of
 * a fresh anonymous mapping (one minor fault each), spin() burns MS
 * milliseconds of this thread's CPU time.  Around each call the program
 * takes getrusage(RUSAGE_THREAD) and prints the deltas:
 *   rusage touch_pages minflt N      (minor + major faults of the call)
 *   rusage spin cpu_ns N             (user + system time of the call)
 * and it reads a task-clock counter of its own (perf_event_open) around
 * spin and inside it, so that vftr's readings at spin's enter and exit lie
 * between its two windows:
 *   perf spin task_clock_ns N        (around the call)
 *   perf spin_inner task_clock_ns N  (inside spin)
 * The test compares these with the page-faults and task-clock counts vftr
 * read at the enter and exit of the same calls.  getrusage's CPU time is no
 * exact bound for task-clock: it is brought up to date at scheduler ticks
 * only, and it leaves out the time the host took a virtual machine's
 * processor, which task-clock counts.  One task-clock counter of the thread
 * against another over nested windows is exact.
 */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calls.h"

static unsigned long long n_touch, n_spin;

static NOINLINE void touch_pages(char *p, long pages, long size)
{
    n_touch++;
    for (long i = 0; i < pages; i++)
        p[i * size] = (char)i;
}

static NOINST double cpu_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static NOINST unsigned long long cpu_ns(const struct rusage *r);

/* The program's own task-clock counter of this thread (-1: none). */
static int tc_fd = -1;

static NOINST unsigned long long task_clock(void)
{
    unsigned long long v = 0;

    if (tc_fd >= 0 && read(tc_fd, &v, sizeof v) != (ssize_t)sizeof v)
        v = 0;
    return v;
}

static NOINST void task_clock_open(void)
{
    struct perf_event_attr a;

    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    tc_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (tc_fd < 0)
        printf("perf task-clock unavailable\n");
}

/* getrusage and task-clock inside spin (after the counters were read at
 * its enter, before they are read at its exit): windows within the
 * counters' one */
static unsigned long long inner_ns, inner_tc;

static NOINLINE void spin(long ms)
{
    unsigned long long tc0 = task_clock(), tc1;
    struct rusage a, b;
    double end;

    getrusage(RUSAGE_THREAD, &a);
    end = cpu_seconds() + (double)ms * 1e-3;
    n_spin++;
    while (cpu_seconds() < end)
        capture_sink++;
    getrusage(RUSAGE_THREAD, &b);
    inner_ns = cpu_ns(&b) - cpu_ns(&a);
    tc1 = task_clock();
    inner_tc = tc1 - tc0;
}

static NOINST unsigned long long faults(const struct rusage *r)
{
    return (unsigned long long)(r->ru_minflt + r->ru_majflt);
}

static NOINST unsigned long long cpu_ns(const struct rusage *r)
{
    return (unsigned long long)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1000000000ull +
           (unsigned long long)(r->ru_utime.tv_usec + r->ru_stime.tv_usec) * 1000ull;
}

int main(int argc, char **argv)
{
    long pages = arg_long(argc, argv, 1, 2000), ms = arg_long(argc, argv, 2, 100);
    long size = sysconf(_SC_PAGESIZE);
    struct rusage a, b;
    char *p = mmap(NULL, (size_t)(pages * size), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return 1;
    getrusage(RUSAGE_THREAD, &a);
    touch_pages(p, pages, size);
    getrusage(RUSAGE_THREAD, &b);
    printf("rusage touch_pages minflt %llu\n", faults(&b) - faults(&a));
    task_clock_open();
    getrusage(RUSAGE_THREAD, &a);
    {
        unsigned long long tc0 = task_clock(), tc1;

        spin(ms);
        tc1 = task_clock();
        getrusage(RUSAGE_THREAD, &b);
        if (tc_fd >= 0) {
            printf("perf spin task_clock_ns %llu\n", tc1 - tc0);
            printf("perf spin_inner task_clock_ns %llu\n", inner_tc);
        }
    }
    printf("rusage spin cpu_ns %llu\n", cpu_ns(&b) - cpu_ns(&a));
    printf("rusage spin_inner cpu_ns %llu\n", inner_ns);
    munmap(p, (size_t)(pages * size));
    report("touch_pages", n_touch);
    report("spin", n_spin);
    return 0;
}
