/*
 * thread.c — every thread the program creates gets its sampling timer
 * (sample.h) at its start and loses it at its end, also through
 * pthread_exit or cancellation (a cleanup handler).  Interposed as the
 * exec functions are (exports.map): unversioned, the next definition found
 * with dlsym(RTLD_NEXT).  With sampling off the wrapper only passes the
 * call on.  In the shared library only (capture/module.mk), as start.c.
 *
 * Not under ThreadSanitizer: there the sanitizer's pthread_create comes
 * first (its runtime is preloaded before capture) and calls this one with
 * its own start routine, which must be the first code the new thread runs
 * (instrumented code before it, such as thread_start, finds no thread
 * state); with TSan only the main thread is sampled.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "capture.h"
#include "sample.h"

typedef int vftr_pthread_create_fn(pthread_t *th, const pthread_attr_t *attr,
                                   void *(*start)(void *), void *arg);

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
    VFTR_EXPORT VFTR_NI;

struct start_arg {
    void *(*start)(void *);
    void *arg;
};

static VFTR_NI void thread_end(void *unused)
{
    (void)unused;
    vftr_sample_thread_end();
}

static VFTR_NI void *thread_start(void *p)
{
    struct start_arg a = *(struct start_arg *)p;
    void *ret;

    free(p);
    vftr_sample_thread_begin();
    pthread_cleanup_push(thread_end, NULL);
    ret = a.start(a.arg);
    pthread_cleanup_pop(1);
    return ret;
}

VFTR_EXPORT VFTR_NI int pthread_create(pthread_t *th, const pthread_attr_t *attr,
                                       void *(*start)(void *), void *arg)
{
    static vftr_pthread_create_fn *_Atomic next;
    vftr_pthread_create_fn *fn = atomic_load_explicit(&next, memory_order_acquire);
    struct start_arg *a;
    int rc;

    if (fn == NULL) {
        fn = (vftr_pthread_create_fn *)dlsym(RTLD_NEXT, "pthread_create");
        if (fn == NULL)
            return EAGAIN;
        atomic_store_explicit(&next, fn, memory_order_release);
    }
#ifdef VFTR_TSAN
    if (1)
        return fn(th, attr, start, arg);
#endif
    /* capture's own threads (the collector, the control server) are never
     * sampled */
    if (!vftr_sample_active() || vftr_sample_is_own_thread(start)
        || (a = malloc(sizeof *a)) == NULL)
        return fn(th, attr, start, arg);
    a->start = start;
    a->arg = arg;
    /* the real call is the program's, but its work (in libc, where the
     * signal route's walk sees no caller) is counted as capture's own, as
     * the ring route counts it with the exact calls (sample.h) */
    vftr_sample_own_begin();
    rc = fn(th, attr, thread_start, a);
    vftr_sample_own_end();
    if (rc != 0)
        free(a);
    return rc;
}
