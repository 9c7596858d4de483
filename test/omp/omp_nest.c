/*
 * omp_nest — nested parallel regions, over and over, from one or several
 * root threads: what made ThreadSanitizer report races in vftr's OpenMP
 * callbacks (on_implicit_task, on_parallel_end) that are hand-offs inside
 * libomp (issue 15).  Counts per OS thread, as omp_count does, what a tool
 * must record: parallel regions (the encountering thread), implicit tasks
 * and the implicit barriers that end a team of more than one thread.
 *
 * Usage: omp_nest ROOTS ROUNDS OUTER INNER — ROOTS pthreads (the first is
 * the main thread) each run ROUNDS rounds of a parallel region of OUTER
 * threads, each of which starts one of INNER threads.  Prints "count TID
 * KIND N" and "total KIND N" (omp_count's format).
 */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

enum kind { K_PARALLEL, K_IMPLICIT, K_BARRIER, K_NKINDS };
static const char *const kind_name[K_NKINDS] = { "parallel", "implicit_task", "barrier" };

#define MAX_THREADS 256

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
            fprintf(stderr, "omp_nest: more than %d threads\n", MAX_THREADS);
            exit(2);
        }
    }
    return my_slot;
}

static void count(enum kind k)
{
    atomic_fetch_add(&me()->n[k], 1);
}

static int rounds, outer, inner;
static __thread volatile double sink;

static __attribute__((noinline)) void leaf(int i)
{
    for (int k = 0; k < 200; k++)
        sink += (double)(i ^ k);
}

static __attribute__((noinline)) void nest(void)
{
    for (int r = 0; r < rounds; r++) {
        count(K_PARALLEL);
#pragma omp parallel num_threads(outer)
        {
            int teams = omp_get_num_threads();

            count(K_IMPLICIT);
            count(K_PARALLEL);
#pragma omp parallel num_threads(inner)
            {
                count(K_IMPLICIT);
                leaf(omp_get_thread_num());
                if (omp_get_num_threads() > 1)
                    count(K_BARRIER);
            }
            if (teams > 1)
                count(K_BARRIER);
        }
    }
}

static void *root(void *arg)
{
    (void)arg;
    nest();
    return NULL;
}

int main(int argc, char **argv)
{
    int roots = argc > 1 ? atoi(argv[1]) : 1;
    long total[K_NKINDS] = { 0 };
    pthread_t th[64];

    rounds = argc > 2 ? atoi(argv[2]) : 3;
    outer = argc > 3 ? atoi(argv[3]) : 2;
    inner = argc > 4 ? atoi(argv[4]) : 2;
    if (roots < 1 || roots > 64 || rounds < 0 || outer < 1 || inner < 1) {
        fprintf(stderr, "usage: omp_nest ROOTS ROUNDS OUTER INNER\n");
        return 2;
    }
    omp_set_max_active_levels(2);
    for (int i = 1; i < roots; i++)
        if (pthread_create(&th[i], NULL, root, NULL) != 0)
            return 1;
    nest();
    for (int i = 1; i < roots; i++)
        pthread_join(th[i], NULL);

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
    return 0;
}
