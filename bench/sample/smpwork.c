/* smpwork N [floor] — the sampling benchmark's workload (bench/sample/run.sh):
 * N rounds of fixed arithmetic in a call chain five frames deep (what the
 * unwinder walks at each sample), built without compiler hooks.  Prints
 * "cpu_s S" (user + system time of the whole process, collector thread
 * included, from getrusage), "thread_cpu_s S" (the main thread's alone:
 * the sampled thread, from its CPU-time clock) and "wall_s S".
 *
 * With "floor": the kernel's part alone.  The program opens on itself the
 * event the ring route opens (capture/sample.c, open_ring: a task-clock
 * event every 1 ms of the thread's CPU time, each sample the time, the
 * count, the user registers and 8 KiB of user stack written into a 512 KiB
 * ring) and consumes nothing: after each round it only hands the ring back
 * to the kernel (data_tail = data_head), reading no record.  What that run
 * costs above a run without the event is what the machine charges for a
 * 1 ms sampling event, before any sampler does any work.  Prints
 * "floor_samples N" too. */
#define _GNU_SOURCE 1
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_PAGES 128u        /* the ring route's SMP_RING_PAGES */
#define FLOOR_STACK 8192u       /* its SMP_STACK_COPY */

static volatile double sink;

static __attribute__((noinline)) double leaf(long n)
{
    double x = 1.0;

    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static __attribute__((noinline)) double level3(long n) { double r = leaf(n); __asm__ volatile("" ::: "memory"); return r; }
static __attribute__((noinline)) double level2(long n) { double r = level3(n); __asm__ volatile("" ::: "memory"); return r; }
static __attribute__((noinline)) double level1(long n) { double r = level2(n); __asm__ volatile("" ::: "memory"); return r; }

/* The ring route's event on the calling thread (see the comment above),
 * enabled; its ring in *ring; -1 when the kernel refuses it. */
static int floor_open(struct perf_event_mmap_page **ring)
{
    struct perf_event_attr a;
    void *m;
    int fd;

    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 1000000;
    a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER
                    | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = 0x1ff | ((uint64_t)0xff << 16);   /* x86_64: as sample_unwind.c */
    a.sample_stack_user = FLOOR_STACK;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.wakeup_events = 1u << 30;
    a.disabled = 1;
    a.exclude_hv = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0)
        return -1;
    m = mmap(NULL, (FLOOR_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
             MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return -1;
    }
    *ring = m;
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    return fd;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    int floor = argc > 2 && strcmp(argv[2], "floor") == 0, fd = -1;
    struct perf_event_mmap_page *ring = NULL;
    struct timespec a, b, t;
    struct rusage ru;
    uint64_t count = 0;

    if (floor && (fd = floor_open(&ring)) < 0) {
        perror("smpwork: perf_event_open");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long r = 0; r < rounds; r++) {
        sink += level1(1000000);
        if (ring)   /* the ring back to the kernel, unread */
            __atomic_store_n(&ring->data_tail, __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE),
                             __ATOMIC_RELEASE);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (fd >= 0) {
        ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        if (read(fd, &count, sizeof count) != (ssize_t)sizeof count)
            count = 0;
    }
    getrusage(RUSAGE_SELF, &ru);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    printf("cpu_s %.6f\n", (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec);
    printf("thread_cpu_s %.6f\n", (double)t.tv_sec + 1e-9 * (double)t.tv_nsec);
    printf("wall_s %.6f\n", (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
    if (floor)
        printf("floor_samples %llu\n", (unsigned long long)(count / 1000000));
    return 0;
}
