/*
 * cap_counters PAGES MS — what counters.events must measure, measured by the
 * program itself: touch_pages() writes one byte into each of PAGES pages of
 * a fresh anonymous mapping (one minor fault each), spin() burns MS
 * milliseconds of this thread's CPU time.  Around each call the program
 * takes getrusage(RUSAGE_THREAD) and prints the deltas:
 *   rusage touch_pages minflt N      (minor + major faults of the call)
 *   rusage spin cpu_ns N             (user + system time of the call)
 * which the test compares with the page-faults and task-clock counts vftr
 * read at the enter and exit of the same calls.
 */
#include <sys/mman.h>
#include <sys/resource.h>
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

/* getrusage inside spin (after the counters were read at its enter, before
 * they are read at its exit): a window within the counters' one */
static unsigned long long inner_ns;

static NOINLINE void spin(long ms)
{
    struct rusage a, b;
    double end;

    getrusage(RUSAGE_THREAD, &a);
    end = cpu_seconds() + (double)ms * 1e-3;
    n_spin++;
    while (cpu_seconds() < end)
        capture_sink++;
    getrusage(RUSAGE_THREAD, &b);
    inner_ns = cpu_ns(&b) - cpu_ns(&a);
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
    getrusage(RUSAGE_THREAD, &a);
    spin(ms);
    getrusage(RUSAGE_THREAD, &b);
    printf("rusage spin cpu_ns %llu\n", cpu_ns(&b) - cpu_ns(&a));
    printf("rusage spin_inner cpu_ns %llu\n", inner_ns);
    munmap(p, (size_t)(pages * size));
    report("touch_pages", n_touch);
    report("spin", n_spin);
    return 0;
}
