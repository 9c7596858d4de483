/* cap_threads [NTHREADS [REPEAT [exit]]] — NTHREADS pthreads (default 16)
 * start together at a barrier and each runs work() (a recursion of depth
 * 10, so 11 calls) REPEAT times.  With "exit", the last thread calls exit()
 * itself once all are done, while main still waits in pthread_join: vftr
 * must finalize once, from that thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "calls.h"

static _Thread_local unsigned long long n_work;
static atomic_ullong total_work, total_thread;
static unsigned long long n_main;
static pthread_barrier_t start, done;
static long repeat;
static int nthreads, exit_mode;

static NOINLINE void work(int d)
{
    n_work++;
    if (d > 0)
        work(d - 1);
    capture_sink++;
}

static NOINST void print_counts(void)
{
    report("main", n_main);
    report("thread_main", atomic_load(&total_thread));
    report("work", atomic_load(&total_work));
    printf("threads %d\n", nthreads);
    fflush(stdout);
}

static void *thread_main(void *arg)
{
    long id = (long)arg;

    atomic_fetch_add(&total_thread, 1);
    pthread_barrier_wait(&start);
    for (long r = 0; r < repeat; r++)
        work(10);
    atomic_fetch_add(&total_work, n_work);
    if (exit_mode) {
        pthread_barrier_wait(&done);
        if (id == nthreads - 1) {
            print_counts();
            exit(0);
        }
        for (;;)
            pause();        /* until the exit() of the last thread */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    n_main++;
    nthreads = (int)arg_long(argc, argv, 1, 16);
    repeat = arg_long(argc, argv, 2, 1000);
    exit_mode = argc > 3 && strcmp(argv[3], "exit") == 0;
    pthread_t *t = calloc((size_t)nthreads, sizeof *t);

    if (!t || nthreads < 1)
        return 1;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    pthread_barrier_init(&done, NULL, (unsigned)nthreads);
    for (long i = 0; i < nthreads; i++)
        if (pthread_create(&t[i], NULL, thread_main, (void *)i) != 0)
            return 1;
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    print_counts();
    free(t);
    return 0;
}
