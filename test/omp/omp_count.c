/*
 * omp_count — an OpenMP program that counts, per OS thread, the constructs
 * it executes, so that a test can compare them with what vftr's OpenMP tool
 * recorded (test/integration/omp_regions.sh, via test/omp/ompcheck).
 *
 * Usage: omp_count [ROUNDS]   (OMP_NUM_THREADS sets the outer team size)
 *
 * Prints "count TID KIND N" for every OS thread and kind it counted and
 * "total KIND N", with the kind names of vftr_vfd_omp_kind_name() written
 * as one word ("parallel", "implicit_task", "single_other", ...), and
 * "hold_us N", how long each omp_set_lock holds the lock (the recorded lock
 * regions of the thread must be at least that long), and "lock_wait_us
 * N", the time all threads spent in omp_set_lock and omp_set_nest_lock
 * together (the recorded lock waits lie inside it).  Each counter is bumped by the thread that executes
 * the construct, at the construct: what a correct tool must record, per
 * thread.  Barriers implied by a construct are counted where the program
 * knows there is one (worksharing constructs without nowait, the end of a
 * parallel region of more than one thread).
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

enum kind {
    K_PARALLEL, K_IMPLICIT, K_LOOP, K_SECTIONS, K_SINGLE, K_SINGLE_OTHER, K_BARRIER,
    K_BARRIER_EXPLICIT, K_TASKWAIT, K_TASKGROUP, K_MASKED, K_CRITICAL, K_LOCK, K_ORDERED,
    K_TASK, K_CRITICAL_WAIT, K_LOCK_WAIT, K_ORDERED_WAIT, K_NKINDS
};
/* vftr_vfd_omp_kind_name()'s names, spaces as '_' and without parentheses,
 * as test/omp/ompcheck prints them */
static const char *const kind_name[K_NKINDS] = {
    "parallel", "implicit_task", "loop", "sections", "single", "single_other", "barrier",
    "barrier_explicit", "taskwait", "taskgroup", "masked", "critical", "lock", "ordered", "task",
    "critical_wait", "lock_wait", "ordered_wait",
};

#define MAX_THREADS 128
#define HOLD_US 500

static struct slot {
    _Atomic long tid;
    _Atomic long n[K_NKINDS];
} slots[MAX_THREADS];

static __thread struct slot *my_slot;

static struct slot *me(void)
{
    if (my_slot == NULL) {
        long tid = (long)syscall(SYS_gettid);

        for (int i = 0; i < MAX_THREADS; i++) {
            long expect = 0;

            if (atomic_compare_exchange_strong(&slots[i].tid, &expect, tid) || expect == tid) {
                my_slot = &slots[i];
                break;
            }
        }
        if (my_slot == NULL) {
            fprintf(stderr, "omp_count: more than %d threads\n", MAX_THREADS);
            exit(2);
        }
    }
    return my_slot;
}

static void count(enum kind k)
{
    atomic_fetch_add(&me()->n[k], 1);
}

static volatile double sink;

static void work(int i)
{
    sink += i * 0.5;
}

static void spin_us(long us)
{
    struct timespec a, b;

    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Time spent in omp_set_lock / omp_set_nest_lock (ns, summed): the
 * recorded lock waits lie inside these windows. */
static _Atomic long wait_ns;

static void add_wait(double us)
{
    atomic_fetch_add(&wait_ns, (long)(us * 1e3));
}

static omp_lock_t lock;
static omp_nest_lock_t nest_lock;

static __attribute__((noinline)) void one_round(void)
{
    count(K_PARALLEL);
#pragma omp parallel
    {
        count(K_IMPLICIT);

#pragma omp for schedule(static)
        for (int i = 0; i < 100; i++)
            work(i);
        count(K_LOOP);
        count(K_BARRIER);

#pragma omp for schedule(dynamic, 7) nowait
        for (int i = 0; i < 50; i++)
            work(i);
        count(K_LOOP);

#pragma omp sections
        {
#pragma omp section
            work(1);
#pragma omp section
            work(2);
        }
        count(K_SECTIONS);
        count(K_BARRIER);

        {
            int executed = 0;
#pragma omp single
            {
                executed = 1;
                work(3);
            }
            count(executed ? K_SINGLE : K_SINGLE_OTHER);
            count(K_BARRIER);
        }

#pragma omp barrier
        count(K_BARRIER_EXPLICIT);

        count(K_CRITICAL_WAIT);
#pragma omp critical
        {
            work(4);
            count(K_CRITICAL);
        }

#pragma omp masked
        {
            work(5);
            count(K_MASKED);
        }

        count(K_LOCK_WAIT);
        double t0 = now_us();
        omp_set_lock(&lock);
        double t1 = now_us();
        count(K_LOCK);
        spin_us(HOLD_US);
        omp_unset_lock(&lock);
        add_wait(t1 - t0);

        /* a nest lock taken twice is waited for twice and held once */
        count(K_LOCK_WAIT);
        t0 = now_us();
        omp_set_nest_lock(&nest_lock);
        count(K_LOCK_WAIT);
        omp_set_nest_lock(&nest_lock);
        t1 = now_us();
        count(K_LOCK);
        spin_us(HOLD_US);
        omp_unset_nest_lock(&nest_lock);
        omp_unset_nest_lock(&nest_lock);
        add_wait(t1 - t0);

        {
            int executed = 0;
#pragma omp single
            {
                executed = 1;
                for (int k = 0; k < 6; k++) {
#pragma omp task
                    {
                        work(k);
                        count(K_TASK);
                    }
                }
#pragma omp taskwait
                count(K_TASKWAIT);
            }
            count(executed ? K_SINGLE : K_SINGLE_OTHER);
            count(K_BARRIER);
        }

#pragma omp taskgroup
        {
            work(7);
        }
        count(K_TASKGROUP);

#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < 16; i++) {
            count(K_ORDERED_WAIT);
#pragma omp ordered
            {
                work(i);
                count(K_ORDERED);
            }
        }
        count(K_LOOP);
        count(K_BARRIER);

        /* the end of the parallel region; libomp runs a team of one as a
         * serialized region, without a barrier */
        if (omp_get_num_threads() > 1)
            count(K_BARRIER);
    }
}

/* Nested parallelism: each of the 2 outer threads starts an inner team of 2. */
static __attribute__((noinline)) void run_nested(void)
{
    count(K_PARALLEL);
#pragma omp parallel num_threads(2)
    {
        count(K_IMPLICIT);
        count(K_PARALLEL);
#pragma omp parallel num_threads(2)
        {
            count(K_IMPLICIT);
            work(8);
            count(K_BARRIER);
        }
        count(K_BARRIER);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    long total[K_NKINDS] = { 0 };

    omp_init_lock(&lock);
    omp_init_nest_lock(&nest_lock);
    omp_set_max_active_levels(2);
    for (int r = 0; r < rounds; r++)
        one_round();
    run_nested();
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest_lock);

    for (int i = 0; i < MAX_THREADS; i++) {
        long tid = atomic_load(&slots[i].tid);

        if (tid == 0)
            break;
        for (int k = 0; k < K_NKINDS; k++) {
            long n = atomic_load(&slots[i].n[k]);

            total[k] += n;
            if (n)
                printf("count %ld %s %ld\n", tid, kind_name[k], n);
        }
    }
    for (int k = 0; k < K_NKINDS; k++)
        printf("total %s %ld\n", kind_name[k], total[k]);
    printf("hold_us %d\n", HOLD_US);
    printf("lock_wait_us %.1f\n", atomic_load(&wait_ns) / 1e3);
    return 0;
}
