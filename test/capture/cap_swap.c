/* cap_swap DIR [ROUNDS NA NB THREADS] — in each of ROUNDS rounds (3) opens
 * DIR/libcapswap_a.so, calls its alpha_work() NA times (300) and closes it,
 * then opens DIR/libcapswap_b.so, calls its bravo_work() NB times (500) and
 * closes it.  With THREADS 2 a second thread, made once, makes the same
 * calls after the main thread's in each round (between them it waits, its
 * call paths of the closed library still in its tree).  The loader
 * normally maps the second library where the first was (same layout):
 * prints "same_address 1" when both functions had one address in every
 * round, else "same_address 0".  Counts: "count alpha_work N", "count
 * bravo_work N" (each library's own count of its calls, summed). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

#include "calls.h"

static unsigned long long n_main, n_serve;

/* The second thread's job: call fn n times (fn NULL: none yet). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int (*job_fn)(int);
static long job_n;
static int job_state;   /* 0 idle, 1 posted, 2 done, 3 quit */

static NOINLINE void serve_calls(int (*fn)(int), long n)
{
    n_serve++;
    for (long i = 0; i < n; i++)
        capture_sink += (unsigned long)fn((int)i);
}

static NOINST void *server(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (job_state != 1 && job_state != 3)
            pthread_cond_wait(&cond, &lock);
        if (job_state == 3)
            break;
        pthread_mutex_unlock(&lock);
        serve_calls(job_fn, job_n);
        pthread_mutex_lock(&lock);
        job_state = 2;
        pthread_cond_broadcast(&cond);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Has the second thread call fn n times, and waits until it did. */
static NOINST void on_server(int (*fn)(int), long n)
{
    pthread_mutex_lock(&lock);
    job_fn = fn;
    job_n = n;
    job_state = 1;
    pthread_cond_broadcast(&cond);
    while (job_state != 2)
        pthread_cond_wait(&cond, &lock);
    job_state = 0;
    pthread_mutex_unlock(&lock);
}

/* Opens DIR/NAME, calls FN n times (and on the second thread when
 * threads > 1); its address in *addr, the library's count of its calls
 * added to *count.  0, or 1 with a message. */
static NOINST int round_of(const char *dir, const char *name, const char *fn, long n,
                           int threads, uintptr_t *addr, unsigned long long *count)
{
    char path[4096];
    void *h;
    int (*work)(int);
    unsigned long long (*counted)(void);

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        fprintf(stderr, "cap_swap: %s\n", dlerror());
        return 1;
    }
    *(void **)&work = dlsym(h, fn);
    *(void **)&counted = dlsym(h, "swap_count");
    if (work == NULL || counted == NULL) {
        fprintf(stderr, "cap_swap: %s: no %s\n", path, fn);
        return 1;
    }
    for (long i = 0; i < n; i++)
        capture_sink += (unsigned long)work((int)i);
    if (threads > 1)
        on_server(work, n);
    *addr = (uintptr_t)work;
    *count += counted();
    if (dlclose(h) != 0) {
        fprintf(stderr, "cap_swap: dlclose %s: %s\n", path, dlerror());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    n_main++;
    long rounds = arg_long(argc, argv, 2, 3), na = arg_long(argc, argv, 3, 300),
         nb = arg_long(argc, argv, 4, 500);
    int threads = (int)arg_long(argc, argv, 5, 1), same = 1;
    unsigned long long ca = 0, cb = 0;
    pthread_t th;

    if (argc < 2) {
        fprintf(stderr, "usage: cap_swap DIR [ROUNDS NA NB THREADS]\n");
        return 2;
    }
    if (threads > 1 && pthread_create(&th, NULL, server, NULL) != 0)
        return 1;
    for (long r = 0; r < rounds; r++) {
        uintptr_t a, b;

        if (round_of(argv[1], "libcapswap_a.so", "alpha_work", na, threads, &a, &ca)
            || round_of(argv[1], "libcapswap_b.so", "bravo_work", nb, threads, &b, &cb))
            return 1;
        same &= a == b;
    }
    if (threads > 1) {
        pthread_mutex_lock(&lock);
        job_state = 3;
        pthread_cond_broadcast(&cond);
        pthread_mutex_unlock(&lock);
        pthread_join(th, NULL);
    }
    printf("same_address %d\n", same);
    report("main", n_main);
    report("serve_calls", n_serve);
    report("alpha_work", ca);
    report("bravo_work", cb);
    return 0;
}
