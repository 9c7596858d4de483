/*
 * thread.c — per-thread state: created on a thread's first hook, registered
 * in the process list, flushed when the thread exits.
 *
 * The list (vftr_proc.threads) is only ever prepended to, under
 * threads_lock; `next` never changes once a thread is published, so the
 * finalizer and the signal handler walk it without the lock (the head is
 * read with acquire).  Thread states are never freed: a hook running in a
 * destructor after the thread's flush, or the finalizer, may still look at
 * them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/syscall.h>

#include "capture.h"

__thread struct vftr_thread *vftr_tls __attribute__((tls_model("initial-exec")));

/* capture.h: never touched but for its guard, which never changes */
struct vftr_thread vftr_thread_unattached = { .guard = VFTR_GUARD_ATTACH };
__thread struct vftr_thread *vftr_hook_tls __attribute__((tls_model("initial-exec")))
    = &vftr_thread_unattached;

struct vftr_thread vftr_thread_off = { .guard = VFTR_GUARD_DONE };

static pthread_key_t thread_key;
static bool have_key;

/*
 * Runs when a thread that called a hook exits (pthread key destructor).
 * The guard is held as IN_HOOK while the thread applies the switches it
 * has not seen (a pause ends its frames at the pause), closes its frames
 * and flushes, so a finalizer running at the same time waits for it; DONE
 * afterwards, for good.  A control event that has lent the thread's state
 * is waited for.
 */
static VFTR_NI void thread_exit(void *arg)
{
    struct vftr_thread *t = arg;
    const struct timespec nap = { 0, 20000 };
    int expect;

    while (expect = VFTR_GUARD_FREE,
           !atomic_compare_exchange_strong(&t->guard, &expect, VFTR_GUARD_IN_HOOK)) {
        if (expect != VFTR_GUARD_LENT)
            return;
        nanosleep(&nap, NULL);
    }
    if (vftr_phase_of(atomic_load(&vftr_proc.phase)) != VFTR_PHASE_STOPPED) {
        vftr_phase_catch_up_all(t);
        vftr_trace_close_frames(t, vftr_clock_now());
        vftr_trace_flush_thread(t, false);
    }
    vftr_ctr_thread_close(t->ctr);
    t->finished = true;
    atomic_store_explicit(&t->guard, VFTR_GUARD_DONE, memory_order_release);
}

VFTR_NI int vftr_thread_setup_key(void)
{
    int rc = pthread_key_create(&thread_key, thread_exit);

    if (rc)
        return -rc;
    have_key = true;
    return 0;
}

VFTR_NI struct vftr_thread *vftr_thread_new(bool current)
{
    const struct vftr_settings *s = &vftr_proc.set;
    struct vftr_thread *t = calloc(1, sizeof *t);

    if (t == NULL)
        return NULL;
    t->cur = &t->root;
    t->root.last_child = t->root.succ = &vftr_node_none;
    /* buffers whenever the trace records: the thread may start during a
     * pause or with the trace stopped, and trace after the resume */
    if (s->trace && vftr_proc.writer && !atomic_load(&vftr_proc.trace_off)) {
        t->buf_cap = s->buffer_bytes ? s->buffer_bytes : (64u << 10);
        t->buf = malloc(t->buf_cap);
        t->room = t->buf_cap - VFTR_VFD_CHUNK_HEADER_SIZE - VFTR_EVENT_SLACK;
        atomic_init(&t->pos, t->buf ? t->buf + VFTR_VFD_CHUNK_HEADER_SIZE : NULL);
        t->defs_cap = VFTR_THREAD_DEFS_BYTES;
        t->defs = malloc(t->defs_cap);
        if (t->buf == NULL || t->defs == NULL) {
            free(t->buf);
            free(t->defs);
            free(t);
            errno = ENOMEM;
            return NULL;
        }
    }
    t->interval = (uint64_t)(s->sample_interval * vftr_clock_ticks_per_second(0));
    t->min_ticks = (uint64_t)(s->min_duration * vftr_clock_ticks_per_second(0));
    t->tid = (pid_t)syscall(SYS_gettid);
    t->created = vftr_clock_now();
    if (current)
        t->ctr = vftr_ctr_thread_new();
    /* the recording state of the process and the place in its log of
     * switches, taken under the log's lock together with the registration:
     * no switch can come between the two, and the log keeps what the
     * thread will read */
    vftr_phase_lock();
    vftr_phase_thread_init(t);
    pthread_mutex_lock(&vftr_proc.threads_lock);
    t->index = atomic_fetch_add(&vftr_proc.next_thread, 1);
    t->next = atomic_load_explicit(&vftr_proc.threads, memory_order_relaxed);
    atomic_store_explicit(&vftr_proc.threads, t, memory_order_release);
    pthread_mutex_unlock(&vftr_proc.threads_lock);
    vftr_phase_unlock();
    if (current && have_key)
        pthread_setspecific(thread_key, t);
    return t;
}

/*
 * The first hook of a thread.  While the process initializes (which may
 * run instrumented code: an instrumented malloc, for instance) the thread
 * points at the guarded dummy, so hooks return at once instead of
 * recursing or deadlocking in pthread_once.
 */
VFTR_NI struct vftr_thread *vftr_thread_attach(void)
{
    struct vftr_thread *t = vftr_tls;

    if (t)
        return t;
    vftr_tls_set(&vftr_thread_off);
    vftr_init_once();
    if (!vftr_proc.recording
        || vftr_phase_of(atomic_load(&vftr_proc.phase)) == VFTR_PHASE_STOPPED)
        return &vftr_thread_off;
    t = vftr_thread_new(true);
    if (t == NULL)
        return &vftr_thread_off;
    vftr_tls_set(t);
    return t;
}
