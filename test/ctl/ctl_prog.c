/*
 * ctl_prog — an instrumented program for the external-control tests.  It
 * runs NSTEPS steps; step s calls alpha() (odd steps) or gamma_() (even
 * steps) CALLS times, each calling beta(), counting its own calls, then
 * waits inside wait_here() until the file DIR/go.<s> exists, after
 * creating DIR/ready.<s> (so a script knows where it is).  Under mpirun
 * (OMPI_COMM_WORLD_RANK set) the ready file is DIR/ready.<rank>.<s> and
 * every rank waits for the same DIR/go.<s>; with CTL_PROG_SCALE set, rank
 * r makes (r + 1) x CALLS calls per step.  At the end it prints
 * "count NAME N" for alpha, beta and gamma.
 *
 * usage: ctl_prog DIR NSTEPS CALLS [THREADS]
 * With THREADS > 0 that many extra threads spin in spin_here() (calling
 * spin_leaf()) until the last step is over: stacks of several threads.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static unsigned long n_alpha, n_beta, n_gamma;
static atomic_int done;

__attribute__((noinline)) static void beta(unsigned long i)
{
    n_beta++;
    sink += i * 7;
}

__attribute__((noinline)) static void alpha(unsigned long i)
{
    n_alpha++;
    beta(i);
}

__attribute__((noinline)) static void gamma_(unsigned long i)
{
    n_gamma++;
    beta(i);
}

static char ready[64] = "ready";

static void touch(const char *dir, const char *what, int step)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s.%d", dir, what, step);
    if ((f = fopen(path, "w")) != NULL)
        fclose(f);
}

static int exists(const char *dir, const char *what, int step)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/%s.%d", dir, what, step);
    return access(path, F_OK) == 0;
}

/* The known function a stack query must show. */
__attribute__((noinline)) static void wait_here(const char *dir, int step)
{
    struct timespec ts = { 0, 5000000 };

    touch(dir, ready, step);
    while (!exists(dir, "go", step))
        nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void spin_leaf(void)
{
    struct timespec ts = { 0, 2000000 };

    nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void *spin_here(void *arg)
{
    (void)arg;
    while (!atomic_load(&done))
        spin_leaf();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[8];
    int nsteps, nthreads = 0;
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
    if (getenv("OMPI_COMM_WORLD_RANK")) {
        int rank = atoi(getenv("OMPI_COMM_WORLD_RANK"));

        snprintf(ready, sizeof ready, "ready.%d", rank);
        if (getenv("CTL_PROG_SCALE"))   /* rank r makes (r + 1) x CALLS calls */
            calls *= (unsigned long)rank + 1;
    }
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, spin_here, NULL);
    for (int s = 1; s <= nsteps; s++) {
        for (unsigned long i = 0; i < calls; i++) {
            if (s % 2)
                alpha(i);
            else
                gamma_(i);
        }
        wait_here(argv[1], s);
    }
    atomic_store(&done, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    printf("count alpha %lu\ncount beta %lu\ncount gamma %lu\n", n_alpha, n_beta, n_gamma);
    return 0;
}
