/* spin_shares [-t THREADS] [-o THREADS] [-r ROUNDS] [-u MS] [-m] [-x] — a program with known
 * time shares, built WITHOUT -finstrument-functions (test/capture/module.mk)
 * for statistical sampling (capture_sample.sh, make bench-sample).
 *
 * Each working thread spins ROUNDS times through share_10, share_30 and
 * share_60, which burn 1, 3 and 6 units of the thread's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID, so that other load on the machine does not
 * change the shares): 10 %, 30 % and 60 % of the thread's work.  With -t N
 * the work runs in N threads created after capture started (the main thread
 * waits in pthread_join); with -o N (built with -fopenmp: spin_shares_omp)
 * in an OpenMP parallel region of N threads; without, in the main thread.
 * -m adds a thread
 * that mallocs and frees without pause (a sample landing inside malloc must
 * not deadlock), -x forks a child that execs /bin/true (fork and exec under
 * sampling).  Prints per working thread "thread I share_10 S share_30 S
 * share_60 S" (CPU seconds it measured itself) and "done". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static long rounds = 20, unit_us = 5000;
static atomic_int stop_malloc;

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline)) double spin(double seconds)
{
    double t0 = cpu_now(), t;
    volatile unsigned long x = 0;   /* the thread's own: no data race */

    do {
        for (int i = 0; i < 200; i++)
            x = x + (unsigned long)i;
        t = cpu_now();
    } while (t - t0 < seconds);
    return t - t0 + 0.0 * (double)x;
}

/* the barrier after the call keeps each share a frame of its own (no tail
 * call into spin) */
#define SHARE(name, units)                                                \
    static __attribute__((noinline)) double name(void)                  \
    {                                                                     \
        double r = spin(units * 1e-6 * (double)unit_us);                  \
        __asm__ volatile("" ::: "memory");                                \
        return r;                                                         \
    }
SHARE(share_10, 1)
SHARE(share_30, 3)
SHARE(share_60, 6)

struct work { int index; double s[3]; };

static __attribute__((noinline)) void *work(void *p)
{
    struct work *w = p;

    for (long r = 0; r < rounds; r++) {
        w->s[0] += share_10();
        w->s[1] += share_30();
        w->s[2] += share_60();
    }
    return NULL;
}

static void *churn(void *p)
{
    (void)p;
    while (!atomic_load(&stop_malloc)) {
        void *v[64];

        for (int i = 0; i < 64; i++)
            v[i] = malloc((size_t)(16 + 37 * i));
        for (int i = 0; i < 64; i++)
            free(v[i]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = 0, opt, domalloc = 0, doexec = 0, nomp = 0;
    struct work *w;
    pthread_t *th, mt;

    while ((opt = getopt(argc, argv, "t:o:r:u:mx")) != -1) {
        switch (opt) {
        case 't': nthreads = atoi(optarg); break;
        case 'o': nomp = nthreads = atoi(optarg); break;
        case 'r': rounds = atol(optarg); break;
        case 'u': unit_us = atol(optarg) * 1000; break;
        case 'm': domalloc = 1; break;
        case 'x': doexec = 1; break;
        default:
            fprintf(stderr, "usage: spin_shares [-t N] [-o N] [-r ROUNDS] [-u MS] [-m] [-x]\n");
            return 2;
        }
    }
    w = calloc((size_t)(nthreads ? nthreads : 1), sizeof *w);
    th = calloc((size_t)(nthreads ? nthreads : 1), sizeof *th);
    if (!w || !th)
        return 1;
    if (domalloc && pthread_create(&mt, NULL, churn, NULL) != 0)
        return 1;
    if (doexec) {
        pid_t c = fork();
        int st;

        if (c == 0) {
            spin(0.02);
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "spin_shares: the child failed\n");
            return 1;
        }
    }
    if (nomp) {
#ifdef _OPENMP
#pragma omp parallel num_threads(nomp)
        work(&w[omp_get_thread_num()]);
#else
        fprintf(stderr, "spin_shares: -o needs a build with -fopenmp\n");
        return 2;
#endif
    } else if (nthreads == 0) {
        work(&w[0]);
        nthreads = 1;
    } else {
        for (int i = 0; i < nthreads; i++) {
            w[i].index = i;
            if (pthread_create(&th[i], NULL, work, &w[i]) != 0)
                return 1;
        }
        for (int i = 0; i < nthreads; i++)
            pthread_join(th[i], NULL);
    }
    if (domalloc) {
        atomic_store(&stop_malloc, 1);
        pthread_join(mt, NULL);
    }
    for (int i = 0; i < nthreads; i++)
        printf("thread %d share_10 %.4f share_30 %.4f share_60 %.4f\n", i, w[i].s[0], w[i].s[1],
               w[i].s[2]);
    printf("done\n");
    free(w);
    free(th);
    return 0;
}
