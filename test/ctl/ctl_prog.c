/*
 * ctl_prog — an instrumented program for the external-control tests.  It
 * runs NSTEPS steps; step s calls alpha() (odd steps) or gamma_() (even
 * steps) CALLS times, each calling beta(), counting its own calls, then
 * waits inside wait_here() (odd steps) or wait_there() (even steps) until
 * the file DIR/go.<s> exists, after creating DIR/ready.<s> (so a script
 * knows where it is; a pause in one step and a resume in the next find the
 * program in different functions).  Under mpirun
 * (OMPI_COMM_WORLD_RANK set) the ready file is DIR/ready.<rank>.<s> and
 * every rank waits for the same DIR/go.<s>; with CTL_PROG_SCALE set, rank
 * r makes (r + 1) x CALLS calls per step.  At the end it prints
 * "count NAME N" for alpha, beta and gamma.
 *
 * usage: ctl_prog DIR NSTEPS CALLS [THREADS]
 * With THREADS > 0 that many extra threads spin in spin_here() (calling
 * spin_leaf()) until the last step is over: stacks of several threads.
 *
 * With CTL_PROG_LATE=S in the environment, one more such thread is made at
 * the start of step S (a thread that begins while the script has paused
 * capture or stopped the trace).
 *
 * Built with -DCTL_PROG_MPI (ctl_prog_mpi, by mpicc) it is an MPI program:
 * MPI_Init_thread, each beta() an MPI_Allreduce of one number over all
 * ranks (so every rank must make as many), MPI_Finalize at the end.
 *
 * Before main every function is called once (warm(), not recorded:
 * capture leaves calls before main out), so that capture meets each here;
 * a function met for the first time costs capture a symbol lookup, which
 * it cuts out of the profile's open frames but not out of the trace's
 * times (share/doc/capture.md), and the tests compare the two.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef CTL_PROG_MPI
#include <mpi.h>
#endif

static volatile unsigned long sink;
static int warming;
static unsigned long n_alpha, n_beta, n_gamma;
static atomic_int done;

__attribute__((noinline)) static void beta(unsigned long i)
{
    if (warming)
        return;
    n_beta++;
    sink += i * 7;
#ifdef CTL_PROG_MPI
    {
        unsigned long sum = 0;

        MPI_Allreduce(&i, &sum, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
        sink += sum;
    }
#endif
}

__attribute__((noinline)) static void alpha(unsigned long i)
{
    if (warming)
        return;
    n_alpha++;
    beta(i);
}

__attribute__((noinline)) static void gamma_(unsigned long i)
{
    if (warming)
        return;
    n_gamma++;
    beta(i);
}

static char ready[64] = "ready";

static void touch(const char *dir, const char *what, int step)
{
    char path[4096];
    FILE *f;

    if (warming)
        return;
    snprintf(path, sizeof path, "%s/%s.%d", dir, what, step);
    if ((f = fopen(path, "w")) != NULL)
        fclose(f);
}

static int exists(const char *dir, const char *what, int step)
{
    char path[4096];

    if (warming)
        return 1;
    snprintf(path, sizeof path, "%s/%s.%d", dir, what, step);
    return access(path, F_OK) == 0;
}

static inline __attribute__((no_instrument_function)) void wait_go(const char *dir, int step)
{
    struct timespec ts = { 0, 5000000 };

    touch(dir, ready, step);
    while (!exists(dir, "go", step))
        nanosleep(&ts, NULL);
}

/* The known functions a stack query must show. */
__attribute__((noinline)) static void wait_here(const char *dir, int step)
{
    wait_go(dir, step);
}

__attribute__((noinline)) static void wait_there(const char *dir, int step)
{
    wait_go(dir, step);
}

__attribute__((noinline)) static void spin_leaf(void)
{
    struct timespec ts = { 0, 2000000 };

    if (warming)
        return;
    nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void *spin_here(void *arg)
{
    (void)arg;
    while (!warming && !atomic_load(&done))
        spin_leaf();
    return NULL;
}

__attribute__((constructor)) static void warm(void)
{
    warming = 1;
    beta(0);
    alpha(0);
    gamma_(0);
    wait_here("", 0);
    wait_there("", 0);
    spin_leaf();
    (void)spin_here(NULL);
    warming = 0;
}

int main(int argc, char **argv)
{
    pthread_t th[8], late;
    int nsteps, nthreads = 0, late_step = getenv("CTL_PROG_LATE") ? atoi(getenv("CTL_PROG_LATE")) : 0;
    unsigned long calls;

    if (argc < 4) {
        fprintf(stderr, "usage: ctl_prog DIR NSTEPS CALLS [THREADS]\n");
        return 2;
    }
    nsteps = atoi(argv[2]);
    calls = strtoul(argv[3], NULL, 10);
    if (argc > 4)
        nthreads = atoi(argv[4]);
    if (nthreads > 8)
        nthreads = 8;
#ifdef CTL_PROG_MPI
    {
        int provided;

        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    }
#endif
    if (getenv("OMPI_COMM_WORLD_RANK")) {
        int rank = atoi(getenv("OMPI_COMM_WORLD_RANK"));

        snprintf(ready, sizeof ready, "ready.%d", rank);
        if (getenv("CTL_PROG_SCALE"))   /* rank r makes (r + 1) x CALLS calls */
            calls *= (unsigned long)rank + 1;
    }
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, spin_here, NULL);
    for (int s = 1; s <= nsteps; s++) {
        if (s == late_step)
            pthread_create(&late, NULL, spin_here, NULL);
        for (unsigned long i = 0; i < calls; i++) {
            if (s % 2)
                alpha(i);
            else
                gamma_(i);
        }
        if (s % 2)
            wait_here(argv[1], s);
        else
            wait_there(argv[1], s);
    }
    atomic_store(&done, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    if (late_step >= 1 && late_step <= nsteps)
        pthread_join(late, NULL);
#ifdef CTL_PROG_MPI
    MPI_Finalize();
#endif
    printf("count alpha %lu\ncount beta %lu\ncount gamma %lu\n", n_alpha, n_beta, n_gamma);
    return 0;
}
