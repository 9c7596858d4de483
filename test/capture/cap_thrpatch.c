/* cap_thrpatch THREADS N — throttled functions of a -finstrument-functions
 * build (capture_patch.sh): THREADS threads each run worker(), which calls
 * mid() N times and hot() N times; mid() calls hot() twice and then spins
 * some microseconds; worker() also calls hot5() and hotd() N times.  hot() is tiny: throttling stops tracing it while
 * every thread calls it, and its hook calls are then patched (its enter to
 * a counting stub, its exit jumped over) as the threads run through them.
 * mid() is far above throttle.per_call and stays traced: its profile (a
 * call path worker>mid with every call, no call path below hot) shows that
 * no frame of hot() was left on a stack.  The program counts every call. */
#include <pthread.h>
#include <stdatomic.h>

#include "calls.h"

static atomic_ullong n_worker, n_mid, n_hot, n_hot5, n_hotd;
static long n_per_thread = 3000;

static NOINLINE void hot(unsigned long i)
{
    atomic_fetch_add_explicit(&n_hot, 1, memory_order_relaxed);
    capture_sink += i;
}

/* hot() with five integer and with three double arguments: other
 * prologues, so that their enter calls lie at other offsets from an 8-byte
 * boundary; with gcc -O2 on x86-64 the rel32 of each spans two words
 * (offset 5 and 7 of its word), which capture redirects by keeping the
 * bytes in one word (the top byte, the low byte) and placing the stub
 * where the others reach */
static NOINLINE void hot5(unsigned long i, unsigned long j, unsigned long k, unsigned long l,
                          unsigned long m)
{
    atomic_fetch_add_explicit(&n_hot5, 1, memory_order_relaxed);
    capture_sink += i ^ j ^ k ^ l ^ m;
}

static NOINLINE void hotd(double x, double y, double z)
{
    atomic_fetch_add_explicit(&n_hotd, 1, memory_order_relaxed);
    capture_sink += (unsigned long)(x * y * z);
}

static NOINLINE void mid(unsigned long i)
{
    atomic_fetch_add_explicit(&n_mid, 1, memory_order_relaxed);
    hot(i);
    hot(i + 1);
    for (int j = 0; j < 20000; j++)
        capture_sink++;
}

static NOINLINE void *worker(void *arg)
{
    atomic_fetch_add_explicit(&n_worker, 1, memory_order_relaxed);
    for (long i = 0; i < n_per_thread; i++) {
        mid((unsigned long)i);
        hot((unsigned long)i);
        hot5((unsigned long)i, 3, 5, 7, 9);
        hotd((double)i, 0.5, 2.0);
    }
    return arg;
}

int main(int argc, char **argv)
{
    long nthreads = arg_long(argc, argv, 1, 4);
    pthread_t th[64];

    n_per_thread = arg_long(argc, argv, 2, 3000);
    if (nthreads < 1 || nthreads > 64)
        return 2;
    for (long k = 0; k < nthreads; k++)
        if (pthread_create(&th[k], NULL, worker, NULL) != 0)
            return 1;
    for (long k = 0; k < nthreads; k++)
        pthread_join(th[k], NULL);
    report("worker", atomic_load(&n_worker));
    report("mid", atomic_load(&n_mid));
    report("hot", atomic_load(&n_hot));
    report("hot5", atomic_load(&n_hot5));
    report("hotd", atomic_load(&n_hotd));
    return 0;
}
