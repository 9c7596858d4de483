/*
 * phase.c — switching recording off and on for the whole process, and how
 * every thread follows.
 *
 * The switches (capture.h: enum vftr_switch) come from any thread: the
 * program (vftr_pause, MPI_Pcontrol), or the control module's thread
 * (vftr-ctl pause, stop, ...).  No thread may write into another's state
 * while it runs, so a switch does not touch the threads: it is appended,
 * with its time, to a log of the process, and the count of switches made
 * goes into the phase word.  Every hook compares the phase word with its
 * thread's fast_key (the word it saw last, if that was a RUNNING one), so
 * the first hook of each thread after a switch takes the slow path,
 * applies the switches it has not seen, in order, at their times
 * (vftr_phase_catch_up), and takes the new word as its key.  A thread that
 * sleeps through several switches applies them all at its next hook; the
 * finalizer, a control event that holds the world and the signal handler
 * apply them to threads that never come back.  So every thread's trace has
 * the exits at each pause and the enters at each resume at the times they
 * were made, whenever the thread ran again, and the profile counts exactly
 * the time between them.
 *
 * Meanwhile the hooks keep the shadow stack exact in every phase (a paused
 * thread enters and leaves nodes without counting): at a resume the open
 * frames are the thread's real ones.
 *
 * A hook under way while a switch is made (it read the old word, then the
 * clock) may write an event just after the switch's time; the thread then
 * applies the switch at that event's time instead (the largest of the
 * switch's time, the thread's last event and its innermost open frame's
 * enter), so that its events stay in time order and the profile and the
 * trace use the same times.
 *
 * The log.  Entries live in chunks of VFTR_PHASE_CHUNK, linked; the next
 * chunk is allocated before the last entry of the current one is
 * published, so that a thread's chunk pointer can always move on.  Each
 * thread publishes how far it got (ph_done); a switch frees the chunks
 * every live thread is past.  A thread registers under the log's lock
 * with the log's current end, so no chunk it will read is freed.  Entries
 * are written under the log's lock and published by the compare-and-swap
 * of the phase word (release); readers load the word with acquire.
 *
 * Holding the world (vftr_phase_hold) is how a control event (flush,
 * dump, outdir) or the signal handler works on every thread's state: the
 * phase goes to HELD, every hook that comes meanwhile waits until it is
 * over instead of being lost (a lost enter or exit would leave the shadow
 * stack wrong for the rest of the run), and the holder's own hooks return
 * at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "ompt.h"
#include "vfd/vftr_vfd.h"

#define VFTR_PHASE_CHUNK 256

struct entry {
    uint64_t time;
    uint32_t sw;                  /* enum vftr_switch */
    uintptr_t lo, hi;             /* UNMAP: the code addresses unmapped */
};

struct vftr_phase_chunk {
    struct entry e[VFTR_PHASE_CHUNK];
    struct vftr_phase_chunk *_Atomic next;
};

static struct {
    pthread_mutex_t lock;
    struct vftr_phase_chunk first;   /* never freed */
    struct vftr_phase_chunk *head;   /* oldest chunk kept; its first entry is head_base */
    struct vftr_phase_chunk *tail;   /* the chunk of the next entry */
    uint64_t head_base;
    uint64_t count;                  /* entries made (as in the phase word) */
    bool paused, stopped;            /* the state after them */
} ph = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Non-zero while this thread holds the world (a signal handler may hold
 * it inside a control event's hold): its hooks return at once. */
static __thread unsigned holding __attribute__((tls_model("initial-exec")));

VFTR_NI void vftr_phase_lock(void)
{
    pthread_mutex_lock(&ph.lock);
}

VFTR_NI void vftr_phase_unlock(void)
{
    pthread_mutex_unlock(&ph.lock);
}

VFTR_NI void vftr_phase_setup(void)
{
    struct vftr_phase_chunk *c, *next;

    for (c = ph.head; c != NULL && c != &ph.first; c = next) {
        next = atomic_load_explicit(&c->next, memory_order_relaxed);
        free(c);
    }
    memset(&ph.first, 0, sizeof ph.first);
    ph.head = ph.tail = &ph.first;
    ph.head_base = ph.count = 0;
    ph.paused = ph.stopped = false;
    atomic_store(&vftr_proc.phase, VFTR_PHASE_RUNNING);
}

VFTR_NI bool vftr_phase_paused(void)
{
    bool p;

    vftr_phase_lock();
    p = ph.paused;
    vftr_phase_unlock();
    return p;
}

VFTR_NI bool vftr_phase_stopped(void)
{
    bool s;

    vftr_phase_lock();
    s = ph.stopped;
    vftr_phase_unlock();
    return s;
}

/* A thread whose trace could record (buffers, a writer, no cap or error). */
static VFTR_NI bool can_trace(const struct vftr_thread *t)
{
    return t->buf != NULL && atomic_load(&vftr_proc.writer) != NULL
           && !atomic_load(&vftr_proc.trace_off);
}

VFTR_NI void vftr_phase_thread_init(struct vftr_thread *t)
{
    t->ph_seen = ph.count;
    atomic_store_explicit(&t->ph_done, ph.count, memory_order_relaxed);
    t->ph_chunk = ph.tail;
    t->paused = ph.paused;
    t->stopped = ph.stopped;
    t->trace = can_trace(t) && !t->paused && !t->stopped;
    t->fast_key = VFTR_KEY_NONE;   /* the first hook takes the slow path */
}

static VFTR_NI void nap(void)
{
    const struct timespec ts = { 0, 20000 };

    nanosleep(&ts, NULL);
}

/* Frees the chunks every live thread is past (lock held). */
static VFTR_NI void reclaim(void)
{
    uint64_t low = ph.count;

    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next) {
        uint64_t done;

        if (atomic_load_explicit(&t->guard, memory_order_acquire) == VFTR_GUARD_DONE)
            continue;   /* finished: reads the log no more */
        done = atomic_load_explicit(&t->ph_done, memory_order_acquire);
        if (done < low)
            low = done;
    }
    while (ph.head != ph.tail && ph.head_base + VFTR_PHASE_CHUNK <= low) {
        struct vftr_phase_chunk *c = ph.head;

        ph.head = atomic_load_explicit(&c->next, memory_order_relaxed);
        ph.head_base += VFTR_PHASE_CHUNK;
        if (c != &ph.first)
            free(c);
    }
}

/* Makes switch sw (with the range lo, hi for an UNMAP); see
 * vftr_phase_switch. */
static VFTR_NI int make_switch(enum vftr_switch sw, uintptr_t lo, uintptr_t hi)
{
    uint64_t w;
    uint32_t slot;
    bool paused, stopped;

    /* before the lock: a forked child (stopped for good) may have the lock
     * as a thread of its parent held it at the fork */
    if (vftr_phase_of(atomic_load(&vftr_proc.phase)) == VFTR_PHASE_STOPPED)
        return -EAGAIN;
    vftr_phase_lock();
    for (;;) {
        paused = ph.paused;
        stopped = ph.stopped;
        switch (sw) {
        case VFTR_SWITCH_PAUSE: paused = true; break;
        case VFTR_SWITCH_RESUME: paused = false; break;
        case VFTR_SWITCH_STOP: stopped = true; break;
        case VFTR_SWITCH_START: stopped = false; break;
        case VFTR_SWITCH_UNMAP: break;
        }
        w = atomic_load_explicit(&vftr_proc.phase, memory_order_acquire);
        if (vftr_phase_of(w) != VFTR_PHASE_RUNNING && vftr_phase_of(w) != VFTR_PHASE_PAUSED
            && vftr_phase_of(w) != VFTR_PHASE_HELD) {
            vftr_phase_unlock();
            return -EAGAIN;
        }
        if (sw != VFTR_SWITCH_UNMAP && paused == ph.paused && stopped == ph.stopped) {
            vftr_phase_unlock();
            return 0;
        }
        if (sw == VFTR_SWITCH_START
            && (vftr_proc.writer == NULL || atomic_load(&vftr_proc.trace_off))) {
            vftr_phase_unlock();
            return -ENODATA;
        }
        if (vftr_phase_of(w) == VFTR_PHASE_HELD) {
            /* a control event holds the world for a few microseconds:
             * wait without the lock (a thread may need it to register) */
            vftr_phase_unlock();
            nap();
            vftr_phase_lock();
            continue;
        }
        slot = (uint32_t)(ph.count % VFTR_PHASE_CHUNK);
        if (slot == VFTR_PHASE_CHUNK - 1
            && atomic_load_explicit(&ph.tail->next, memory_order_relaxed) == NULL) {
            struct vftr_phase_chunk *c = calloc(1, sizeof *c);

            if (c == NULL) {
                vftr_phase_unlock();
                return -ENOMEM;
            }
            atomic_store_explicit(&ph.tail->next, c, memory_order_release);
        }
        ph.tail->e[slot].time = vftr_clock_now();
        ph.tail->e[slot].sw = (uint32_t)sw;
        ph.tail->e[slot].lo = lo;
        ph.tail->e[slot].hi = hi;
        if (atomic_compare_exchange_strong_explicit(
                &vftr_proc.phase, &w,
                (ph.count + 1) << VFTR_PHASE_BITS
                    | (uint64_t)(paused ? VFTR_PHASE_PAUSED : VFTR_PHASE_RUNNING),
                memory_order_acq_rel, memory_order_acquire))
            break;
        /* a hold began or capture stopped meanwhile: look again */
    }
    ph.count++;
    ph.paused = paused;
    ph.stopped = stopped;
    if (slot == VFTR_PHASE_CHUNK - 1)
        ph.tail = atomic_load_explicit(&ph.tail->next, memory_order_relaxed);
    reclaim();
    vftr_phase_unlock();
    return 1;
}

VFTR_NI int vftr_phase_switch(enum vftr_switch sw)
{
    return make_switch(sw, 0, 0);
}

VFTR_NI int vftr_phase_unmap(uintptr_t lo, uintptr_t hi)
{
    return make_switch(VFTR_SWITCH_UNMAP, lo, hi);
}

/* ------------------------------------------------------ applying switches */

/* Calls fn for every open frame of t, innermost first. */
static VFTR_NI void frames_up(struct vftr_thread *t, void (*fn)(struct vftr_node *n, void *arg),
                              void *arg)
{
    for (struct vftr_node *n = t->cur; n && n->parent; n = n->parent)
        fn(n, arg);
}

/*
 * Outermost first without a stack of the frames: the frames are taken in
 * slices of SLICE from the outermost, each slice found by a walk up from
 * the innermost frame; depth d costs about d * d / (2 * SLICE) steps (a
 * 3000-deep recursion: some 35 000), paid only at a resume or a start.
 */
#define SLICE 128

VFTR_NI void vftr_frames_down(struct vftr_thread *t, void (*fn)(struct vftr_node *n, void *arg),
                              void *arg)
{
    struct vftr_node *slice[SLICE];
    uint32_t depth = t->cur ? t->cur->depth : 0;

    for (uint32_t top = 1; top <= depth; top += SLICE) {
        /* frames at depths top .. last, the slice's innermost first */
        uint32_t last = top + SLICE - 1 < depth ? top + SLICE - 1 : depth, k = 0;
        struct vftr_node *n = t->cur;

        while (n->depth > last)
            n = n->parent;
        for (; n && n->parent && n->depth >= top; n = n->parent)
            slice[k++] = n;
        while (k > 0)
            fn(slice[--k], arg);
    }
}

struct at {
    struct vftr_thread *t;
    uint64_t time;
};

/* A frame ends or begins in the trace: a function with an EXIT or ENTER,
 * an OpenMP region with its OMP_END or OMP_BEGIN (ompt.c), each in its
 * place on the stack, so that a reader of the trace rebuilds the stack the
 * profile has. */
static VFTR_NI void put_exit(struct vftr_node *n, void *arg)
{
    struct at *a = arg;

    if (n->flags & VFTR_FN_OMP)
        vftr_ompt_trace_node(a->t, n, false, a->time);
    else if (!(n->flags & VFTR_FN_THROTTLED))   /* its ENTER is not in the trace */
        vftr_trace_put(a->t, a->time, VFTR_VFD_EXIT, n->id);
}

static VFTR_NI void put_enter(struct vftr_node *n, void *arg)
{
    struct at *a = arg;

    if (n->flags & VFTR_FN_OMP)
        vftr_ompt_trace_node(a->t, n, true, a->time);
    else if (!(n->flags & VFTR_FN_THROTTLED))
        vftr_trace_put(a->t, a->time, VFTR_VFD_ENTER, n->id);
}

static VFTR_NI void stop_counting(struct vftr_node *n, void *arg)
{
    const struct at *a = arg;

    if (a->time > n->t_enter)
        n->time_incl += a->time - n->t_enter;
}

static VFTR_NI void start_counting(struct vftr_node *n, void *arg)
{
    const struct at *a = arg;

    n->calls++;
    n->t_enter = a->time;
}

/* The earliest time at which t may apply a switch: not before what it has
 * recorded already (its last event, its innermost frame's enter) nor
 * before the switch it applied last. */
static VFTR_NI uint64_t floor_of(const struct vftr_thread *t)
{
    uint64_t f = t->ph_time;

    if (t->last_time > f)
        f = t->last_time;
    if (!t->paused && t->cur && t->cur->parent && t->cur->t_enter > f)
        f = t->cur->t_enter;
    return f;
}

/* Applies switch e to t (guard held). */
static VFTR_NI void apply(struct vftr_thread *t, const struct entry *e)
{
    bool counted = !t->paused, traced = t->trace;
    uint64_t f = floor_of(t);
    uint32_t sw = e->sw;
    struct at a = { t, e->time > f ? e->time : f };

    switch (sw) {
    case VFTR_SWITCH_UNMAP:
        vftr_callpath_forget(t, e->lo, e->hi);
        return;   /* recording goes on as it was */
    case VFTR_SWITCH_PAUSE: t->paused = true; break;
    case VFTR_SWITCH_RESUME: t->paused = false; break;
    case VFTR_SWITCH_STOP: t->stopped = true; break;
    case VFTR_SWITCH_START: t->stopped = false; break;
    }
    if (traced && (t->paused || t->stopped)) {
        frames_up(t, put_exit, &a);
        /* regions the stack no longer holds (closed with a function) */
        vftr_ompt_trace_switch(t, false, a.time);
    }
    if (counted && t->paused)
        frames_up(t, stop_counting, &a);
    if (sw == VFTR_SWITCH_PAUSE && traced)
        (void)vftr_trace_put_ext(t, a.time, VFTR_VFD_PAUSE, NULL, 0);
    t->trace = can_trace(t) && !t->paused && !t->stopped;
    if (sw == VFTR_SWITCH_RESUME && t->trace)
        (void)vftr_trace_put_ext(t, a.time, VFTR_VFD_RESUME, NULL, 0);
    if (!counted && !t->paused)
        frames_up(t, start_counting, &a);
    if (!traced && t->trace) {
        vftr_ompt_trace_switch(t, true, a.time);
        vftr_frames_down(t, put_enter, &a);
        t->last_written = a.time;   /* sampling counts from here */
    }
    t->ph_time = a.time;
}

VFTR_NI void vftr_phase_catch_up(struct vftr_thread *t, uint64_t n)
{
    if (t->ph_seen >= n || t->ph_chunk == NULL)
        return;
    while (t->ph_seen < n) {
        struct vftr_phase_chunk *c = t->ph_chunk;
        uint32_t slot = (uint32_t)(t->ph_seen % VFTR_PHASE_CHUNK);

        apply(t, &c->e[slot]);
        t->ph_seen++;
        if (slot == VFTR_PHASE_CHUNK - 1)
            t->ph_chunk = atomic_load_explicit(&c->next, memory_order_acquire);
    }
    atomic_store_explicit(&t->ph_done, t->ph_seen, memory_order_release);
}

VFTR_NI void vftr_phase_catch_up_all(struct vftr_thread *t)
{
    vftr_phase_catch_up(t, vftr_phase_switches(atomic_load_explicit(&vftr_proc.phase,
                                                                    memory_order_acquire)));
}

/* Entry i of the log (the lock held, i >= ph.head_base). */
static VFTR_NI const struct entry *entry_at(uint64_t i)
{
    const struct vftr_phase_chunk *c = ph.head;

    for (uint64_t base = ph.head_base; i >= base + VFTR_PHASE_CHUNK; base += VFTR_PHASE_CHUNK)
        c = atomic_load_explicit(&((struct vftr_phase_chunk *)c)->next, memory_order_acquire);
    return &c->e[i % VFTR_PHASE_CHUNK];
}

/* The readers of a running thread's fields race with it by design (as
 * ctl.c's queries do): relaxed loads, not seen by ThreadSanitizer. */
#ifdef VFTR_TSAN
#define RACY __attribute__((no_sanitize_thread))
#else
#define RACY
#endif
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

VFTR_NI RACY uint64_t vftr_phase_open_time(const struct vftr_thread *t, uint64_t te,
                                           uint64_t now, uint32_t *resumes)
{
    bool counting = !LOAD(((struct vftr_thread *)t)->paused);
    uint64_t i = LOAD(((struct vftr_thread *)t)->ph_seen), from = te, sum = 0;
    uint32_t back = 0;

    if (i < ph.head_base)
        i = ph.head_base;
    for (; i < ph.count; i++) {
        const struct entry *e = entry_at(i);

        if (e->time >= now)
            break;
        if (e->sw == VFTR_SWITCH_PAUSE && counting) {
            sum += e->time > from ? e->time - from : 0;
            counting = false;
        } else if (e->sw == VFTR_SWITCH_RESUME && !counting) {
            from = e->time;
            counting = true;
            back++;
        }
    }
    if (counting && now > from)
        sum += now - from;
    if (resumes)
        *resumes = back;
    return sum;
}

/* ---------------------------------------------------------------- guards */

/* Takes t's guard when it is free, waiting while it is lent; false when
 * it is held by the thread itself (recursion) or the thread is done. */
static VFTR_NI bool grab(struct vftr_thread *t)
{
    for (;;) {
        int g = atomic_load_explicit(&t->guard, memory_order_acquire);

        if (g == VFTR_GUARD_FREE) {
            atomic_store_explicit(&t->guard, VFTR_GUARD_IN_HOOK, memory_order_relaxed);
            return true;
        }
        if (g != VFTR_GUARD_LENT)
            return false;
        nap();
    }
}

VFTR_NI bool vftr_guard_take_slow(struct vftr_thread *t, bool taken)
{
    if (!taken && !grab(t))
        return false;
    for (;;) {
        /* the store of IN_HOOK above comes before this load in the
         * hooks' order (vftr_stop_world's membarrier orders them for the
         * stopper) */
        uint64_t w = atomic_load_explicit(&vftr_proc.phase, memory_order_acquire);
        int p = vftr_phase_of(w);

        if (p == VFTR_PHASE_RUNNING || p == VFTR_PHASE_PAUSED) {
            vftr_phase_catch_up(t, vftr_phase_switches(w));
            t->fast_key = p == VFTR_PHASE_RUNNING && vftr_clock_kind == VFTR_CLK_TSC &&
                          t->ctr == NULL ? w : VFTR_KEY_NONE;
            return true;
        }
        vftr_guard_drop(t);
        if (p != VFTR_PHASE_HELD || holding)
            return false;   /* stopped; or the holder's own hook */
        while (vftr_phase_of(atomic_load_explicit(&vftr_proc.phase, memory_order_acquire))
               == VFTR_PHASE_HELD)
            nap();
        if (!grab(t))
            return false;
    }
}

/* ------------------------------------------------------------ the world */

VFTR_NI bool vftr_thread_borrow(struct vftr_thread *t)
{
    int expect = VFTR_GUARD_FREE;

    return atomic_compare_exchange_strong(&t->guard, &expect, VFTR_GUARD_LENT);
}

VFTR_NI void vftr_thread_give_back(struct vftr_thread *t)
{
    atomic_store_explicit(&t->guard, VFTR_GUARD_FREE, memory_order_release);
}

VFTR_NI int vftr_phase_hold(uint64_t *prev, bool any)
{
    uint64_t w = atomic_load(&vftr_proc.phase);
    int p;

    do {
        p = vftr_phase_of(w);
        if (p == VFTR_PHASE_STOPPED
            || (!any && p != VFTR_PHASE_RUNNING && p != VFTR_PHASE_PAUSED))
            return -EAGAIN;
    } while (!atomic_compare_exchange_weak(&vftr_proc.phase, &w,
                                           (w & ~(uint64_t)VFTR_PHASE_MASK) | VFTR_PHASE_HELD));
    *prev = w;
    holding++;
    return vftr_stop_world(VFTR_PHASE_HELD);
}

VFTR_NI void vftr_phase_unhold(uint64_t prev)
{
    uint64_t w = atomic_load(&vftr_proc.phase);

    holding--;
    /* unless someone stopped capture meanwhile (a signal: it owns the
     * phase then) */
    while (vftr_phase_of(w) == VFTR_PHASE_HELD
           && !atomic_compare_exchange_weak(&vftr_proc.phase, &w, prev))
        ;
}
