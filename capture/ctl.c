/*
 * ctl.c — external control: the module loader, the events and the live
 * queries (ctl.h, vftr_ec.h).
 *
 * Pause, resume, stop and start (and attach and detach, which start and
 * stop) are switches of the process (phase.c): logged with their time,
 * applied by each thread at its next hook, so they never stop the program.
 * Why that keeps every trace balanced: the hooks of a thread keep its
 * shadow stack (t->cur) in every phase, so when a switch ends recording the
 * open frames are exactly the chain from t->cur to the root, and each gets
 * an Exit at the switch's time, innermost first; when one starts it again
 * each gets an Enter, outermost first.
 *
 * Events that work on thread state hold the world (see ctl.h): the phase
 * moves to HELD, vftr_stop_world waits until no thread is in a hook, each
 * thread's guard is lent (LENT) while its state is read or written, and
 * hooks that come meanwhile wait.  The world is held for as long as the
 * work takes: one write per thread (flush), a snapshot (dump) or a rename
 * (outdir).  A lent thread first applies the switches it has not seen.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "capture.h"
#include "ctl.h"
#include "ext.h"
#include "logfile.h"

static struct {
    pthread_mutex_t lock;          /* one event at a time; module state */
    bool active;                   /* a module is loaded and not shut down */
    const struct vftr_ec_module *mod;
    struct vftr_ec_module loaded;  /* entry points of a dlopen'ed module */
    void *handle;                  /* dlopen handle, NULL for the default */
    struct vftr_ec_host host;
    char job[128];
    int attached;                  /* front-ends attached */
    unsigned dumps;
    pthread_mutex_t custom_lock;
    vftr_ec_custom_fn *custom;
    void *custom_arg;
} ctl = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .custom_lock = PTHREAD_MUTEX_INITIALIZER,
};

static const char *const event_names[VFTR_EC_NEVENTS] = {
    [VFTR_EC_START] = "start",   [VFTR_EC_STOP] = "stop",     [VFTR_EC_PAUSE] = "pause",
    [VFTR_EC_RESUME] = "resume", [VFTR_EC_ATTACH] = "attach", [VFTR_EC_DETACH] = "detach",
    [VFTR_EC_FLUSH] = "flush",   [VFTR_EC_DUMP] = "dump",     [VFTR_EC_OUTDIR] = "outdir",
    [VFTR_EC_CUSTOM] = "custom",
};

VFTR_EXPORT VFTR_NI const char *vftr_ec_event_name(enum vftr_ec_event event)
{
    return (unsigned)event < VFTR_EC_NEVENTS ? event_names[event] : NULL;
}

VFTR_EXPORT VFTR_NI int vftr_ec_set_custom_handler(vftr_ec_custom_fn *fn, void *arg)
{
    pthread_mutex_lock(&ctl.custom_lock);
    ctl.custom = fn;
    ctl.custom_arg = arg;
    pthread_mutex_unlock(&ctl.custom_lock);
    return 0;
}

/* ------------------------------------------------------- holding the world */

/* Holding the world (phase.c): the phase from RUNNING or PAUSED to HELD,
 * the other threads out of their hooks.  *prev receives the phase word to
 * give back.  -EAGAIN when capture is stopped. */
static VFTR_NI int hold(uint64_t *prev)
{
    int rc = vftr_phase_hold(prev, false);

    return rc < 0 ? rc : 0;
}

static VFTR_NI void unhold(uint64_t prev)
{
    vftr_phase_unhold(prev);
}


typedef void thread_op(struct vftr_thread *t, void *arg);

/* Runs op on every thread whose guard could be borrowed, after it applied
 * the switches it had not seen; returns how many. */
static VFTR_NI unsigned for_each_thread(thread_op *op, void *arg)
{
    unsigned n = 0;

    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next) {
        if (!vftr_thread_borrow(t))
            continue;
        vftr_phase_catch_up_all(t);
        op(t, arg);
        vftr_thread_give_back(t);
        n++;
    }
    return n;
}

/* Room for the threads there are now and `more` to come. */
static VFTR_NI struct vftr_thread **lend_space(size_t more, size_t *cap)
{
    *cap = more;
    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next)
        ++*cap;
    return malloc(*cap * sizeof(struct vftr_thread *));
}

/* Borrows the guard of every thread that can lend it (the world is held),
 * brings each up to date with the switches and puts them in v (room for
 * cap, from lend_space: nothing is allocated while the world is held);
 * returns how many.  A thread beyond cap (made since lend_space) stays
 * unborrowed.  Give them back with give_back_all. */
static VFTR_NI size_t borrow_all(struct vftr_thread **v, size_t cap)
{
    size_t n = 0;

    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t && n < cap; t = t->next)
        if (vftr_thread_borrow(t)) {
            vftr_phase_catch_up_all(t);
            v[n++] = t;
        }
    return n;
}

static VFTR_NI void give_back_all(struct vftr_thread **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vftr_thread_give_back(v[i]);
}

static VFTR_NI void op_flush(struct vftr_thread *t, void *arg)
{
    int *failed = arg;

    if (t->buf && vftr_trace_flush_thread(t, false) < 0)
        (*failed)++;
}

/* Threads that ran hooks and have not ended. */
static VFTR_NI unsigned live_threads(void)
{
    unsigned n = 0;

    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next)
        if (atomic_load_explicit(&t->guard, memory_order_acquire) != VFTR_GUARD_DONE)
            n++;
    return n;
}

/* ------------------------------------------------------------------ events */

/* START (on) or STOP: every thread's trace, through a switch (phase.c):
 * each thread ends or begins its open frames in the trace at the switch's
 * time. */
static VFTR_NI int ev_trace(bool on, char *reply, size_t len)
{
    int rc = vftr_phase_switch(on ? VFTR_SWITCH_START : VFTR_SWITCH_STOP);

    if (rc == -ENODATA) {
        snprintf(reply, len, "no trace to start (tracing is off or reached its cap)");
        return rc;
    }
    if (rc < 0)
        return rc;
    snprintf(reply, len, "trace %s%s (%u threads)", rc == 0 ? "already " : "",
             on ? "started" : "stopped", live_threads());
    return 0;
}

/* PAUSE or RESUME: a switch, as vftr_pause() and vftr_resume(). */
static VFTR_NI int ev_pause(bool pause, char *reply, size_t len)
{
    int rc = vftr_phase_switch(pause ? VFTR_SWITCH_PAUSE : VFTR_SWITCH_RESUME);

    if (rc < 0)
        return rc;
    if (rc == 0)
        snprintf(reply, len, "already %s", pause ? "paused" : "running");
    else
        snprintf(reply, len, "%s", pause ? "paused" : "resumed");
    return 0;
}

static VFTR_NI int ev_flush(char *reply, size_t len)
{
    uint64_t prev;
    int failed = 0, rc = hold(&prev);

    if (rc < 0)
        return rc;
    unsigned n = for_each_thread(op_flush, &failed);
    unhold(prev);
    if (failed) {
        snprintf(reply, len, "flush failed for %d of %u threads (see stderr)", failed, n);
        return -EIO;
    }
    snprintf(reply, len, "flushed %u threads, trace %" PRIu64 " bytes", n, vftr_trace_bytes());
    return 0;
}

static VFTR_NI int ev_dump(char *reply, size_t len)
{
    struct vftr_profile prof;
    struct vftr_profile_space sp;
    struct vftr_run_info run;
    char path[1400];
    double tps = vftr_clock_ticks_per_second(0);
    uint64_t now, prev;
    int rc = -ENOSPC, rank = vftr_proc.rank < 0 ? 0 : vftr_proc.rank;

    /* The program's hooks wait while the world is held, maybe inside an
     * instrumented allocator: everything the snapshot needs is allocated
     * before, with room for some growth, and taken again if the program
     * outgrew it meanwhile. */
    for (int tries = 0; rc == -ENOSPC && tries < 8; tries++) {
        struct vftr_thread **lent;
        size_t cap, nlent;

        if ((lent = lend_space(16, &cap)) == NULL)
            return -ENOMEM;
        if ((rc = vftr_callpath_space_reserve(&sp, 256u << tries)) < 0) {
            free(lent);
            return rc;
        }
        if ((rc = hold(&prev)) < 0) {
            vftr_callpath_space_release(&sp);
            free(lent);
            return rc;
        }
        /* the snapshot reads every thread's counters: no thread may change
         * them meanwhile, not even one that exits now */
        nlent = borrow_all(lent, cap);
        now = vftr_clock_now();
        rc = vftr_callpath_profile_in(&prof, &sp, tps, vftr_proc.hook_cost, 0);
        give_back_all(lent, nlent);
        unhold(prev);
        vftr_callpath_space_release(&sp);
        free(lent);
    }
    if (rc < 0)
        return rc == -ENOSPC ? -ENOMEM : rc;
    prof.run_time = (double)(now - vftr_proc.start_ticks) / tps;
    vftr_run_info(&run, rank, vftr_proc.tmp_path[0] ? vftr_proc.tmp_path : NULL,
                  vftr_trace_bytes(), vftr_clock_realtime_ns());
    run.trace_active = run.trace_active && !vftr_phase_stopped();
    run.trace_message = "profile so far (vftr-ctl dump); the run goes on";
    ctl.dumps++;
    if ((size_t)snprintf(path, sizeof path, "%s/%s_%d.dump%u.log", vftr_proc.dir, vftr_proc.base,
                         rank, ctl.dumps) >= sizeof path) {
        vftr_callpath_profile_release(&prof);
        snprintf(reply, len, "log path too long");
        return -ENAMETOOLONG;
    }
    rc = vftr_logfile_write(path, &prof, &vftr_proc.cfg, &run);
    vftr_callpath_profile_release(&prof);
    if (rc < 0) {
        snprintf(reply, len, "cannot write %s: %s", path, strerror(-rc));
        return rc;
    }
    snprintf(reply, len, "%s", path);
    return 0;
}

/*
 * The trace file moves to dir with link + unlink (never overwriting a file
 * there), which keeps the open descriptor valid; a directory on another
 * file system is refused (-EXDEV) rather than copying a trace that is
 * being written.
 */
static VFTR_NI int ev_outdir(const char *dir, char *reply, size_t len)
{
    char tmp[sizeof vftr_proc.tmp_path];
    struct stat st;
    uint64_t prev;
    int rc, i;

    if (dir == NULL || dir[0] != '/') {
        snprintf(reply, len, "outdir needs an absolute directory path");
        return -EINVAL;
    }
    if (strlen(dir) >= sizeof vftr_proc.dir) {
        snprintf(reply, len, "directory name too long");
        return -ENAMETOOLONG;
    }
    if (stat(dir, &st) != 0)
        rc = -errno;
    else if (!S_ISDIR(st.st_mode))
        rc = -ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        rc = -errno;
    else
        rc = 0;
    if (rc < 0) {
        snprintf(reply, len, "%s: %s", dir, strerror(-rc));
        return rc;
    }
    if ((rc = hold(&prev)) < 0)
        return rc;
    rc = 0;
    if (vftr_proc.tmp_path[0] != '\0') {
        for (i = 0; i < 1000; i++) {
            int n = i == 0 ? snprintf(tmp, sizeof tmp, "%s/%s_%d.tmpvfd", dir, vftr_proc.base,
                                      (int)vftr_proc.pid)
                           : snprintf(tmp, sizeof tmp, "%s/%s_%d.%d.tmpvfd", dir, vftr_proc.base,
                                      (int)vftr_proc.pid, i);

            if (n < 0 || (size_t)n >= sizeof tmp) {
                rc = -ENAMETOOLONG;
                break;
            }
            if (strcmp(tmp, vftr_proc.tmp_path) == 0)
                break;   /* already there */
            if (link(vftr_proc.tmp_path, tmp) == 0) {
                unlink(vftr_proc.tmp_path);
                memcpy(vftr_proc.tmp_path, tmp, sizeof tmp);
                break;
            }
            if (errno != EEXIST) {
                rc = -errno;
                break;
            }
        }
        if (i == 1000)
            rc = -EEXIST;
    }
    if (rc == 0)
        snprintf(vftr_proc.dir, sizeof vftr_proc.dir, "%s", dir);
    unhold(prev);
    if (rc == -EXDEV)
        snprintf(reply, len, "%s is on another file system than the trace %s; output stays in %s",
                 dir, vftr_proc.tmp_path, vftr_proc.dir);
    else if (rc < 0)
        snprintf(reply, len, "cannot move the trace to %s: %s", dir, strerror(-rc));
    else
        snprintf(reply, len, "output directory %s", vftr_proc.dir);
    return rc;
}

static VFTR_NI int ev_custom(const char *text, char *reply, size_t len)
{
    int rc;

    pthread_mutex_lock(&ctl.custom_lock);
    if (ctl.custom == NULL) {
        pthread_mutex_unlock(&ctl.custom_lock);
        snprintf(reply, len, "the program set no custom handler");
        return -ENOSYS;
    }
    rc = ctl.custom(ctl.custom_arg, text ? text : "", reply, len);
    pthread_mutex_unlock(&ctl.custom_lock);
    return rc;
}

VFTR_NI int vftr_ctl_event(enum vftr_ec_event event, const char *arg, char *reply, size_t len)
{
    char dummy[8];
    int rc;

    if (reply == NULL || len == 0) {
        reply = dummy;
        len = sizeof dummy;
    }
    reply[0] = '\0';
    if ((unsigned)event >= VFTR_EC_NEVENTS) {
        snprintf(reply, len, "unknown event %d", (int)event);
        return -EINVAL;
    }
    pthread_mutex_lock(&ctl.lock);
    if (!ctl.active) {
        pthread_mutex_unlock(&ctl.lock);
        snprintf(reply, len, "capture is shutting down");
        return -EAGAIN;
    }
    switch (event) {
    case VFTR_EC_START: rc = ev_trace(true, reply, len); break;
    case VFTR_EC_STOP: rc = ev_trace(false, reply, len); break;
    case VFTR_EC_PAUSE: rc = ev_pause(true, reply, len); break;
    case VFTR_EC_RESUME: rc = ev_pause(false, reply, len); break;
    case VFTR_EC_ATTACH:
        ctl.attached++;
        rc = vftr_phase_stopped() ? ev_trace(true, reply, len) : 0;
        if (rc == 0)
            snprintf(reply, len, "attached (%d front-ends)", ctl.attached);
        break;
    case VFTR_EC_DETACH:
        if (ctl.attached == 0) {
            snprintf(reply, len, "no front-end is attached");
            rc = -EINVAL;
            break;
        }
        ctl.attached--;
        rc = ctl.attached == 0 && vftr_proc.cfg.control_detach_stops
             ? ev_trace(false, reply, len) : 0;
        if (rc == 0)
            snprintf(reply, len, "detached (%d front-ends)%s", ctl.attached,
                     vftr_phase_stopped() ? ", trace stopped" : "");
        break;
    case VFTR_EC_FLUSH: rc = ev_flush(reply, len); break;
    case VFTR_EC_DUMP: rc = ev_dump(reply, len); break;
    case VFTR_EC_OUTDIR: rc = ev_outdir(arg, reply, len); break;
    case VFTR_EC_CUSTOM: rc = ev_custom(arg, reply, len); break;
    default: rc = -EINVAL; break;
    }
    if (rc == -EAGAIN && reply[0] == '\0')
        snprintf(reply, len, "capture is stopped");
    else if (rc < 0 && reply[0] == '\0')
        snprintf(reply, len, "%s: %s", event_names[event], strerror(-rc));
    /* the module's message entry point hears of every failed event (it is
     * called with the event lock held: it must not deliver events) */
    if (rc < 0 && rc != -EAGAIN && ctl.mod && ctl.mod->message) {
        char text[600];

        snprintf(text, sizeof text, "%s failed: %.500s", event_names[event], reply);
        ctl.mod->message(text);
    }
    pthread_mutex_unlock(&ctl.lock);
    return rc;
}

/* ----------------------------------------------------------------- queries */

/*
 * The readers below look at another thread's nodes while it runs.  The
 * structure they follow is published (release/acquire on nnodes, nodes
 * never move); the counters are read as they stand (relaxed atomic loads
 * of aligned words, see ctl.h).  ThreadSanitizer is told so: the owner's
 * plain stores and these loads race by design.
 */
#ifdef VFTR_TSAN
#define CTL_RACY __attribute__((no_sanitize_thread))
#else
#define CTL_RACY
#endif

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* Is n one of the first nn nodes of t (or its root)?  Then its fields
 * other than the counters are visible and final. */
static VFTR_NI CTL_RACY bool published(const struct vftr_thread *t, const struct vftr_node *n,
                                       uint32_t nn)
{
    const struct vftr_node_block *b = LOAD(t->blocks);
    uint32_t base = 0;

    if (n == &t->root)
        return true;
    for (; b && base < nn; b = LOAD(b->next), base += VFTR_NODE_BLOCK) {
        if (n >= &b->nodes[0] && n < &b->nodes[VFTR_NODE_BLOCK])
            return base + (uint32_t)(n - &b->nodes[0]) < nn;
    }
    return false;
}

/* Copies name into out with tabs, newlines and other control characters
 * replaced, so that a field never breaks a line. */
static VFTR_NI const char *clean(const char *name, char *out, size_t len)
{
    size_t i = 0;

    for (; name && name[i] && i + 1 < len; i++)
        out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
    out[i] = '\0';
    return out;
}

struct emitter {
    vftr_ec_emit_fn *emit;
    void *arg;
    int stop;
};

static VFTR_NI __attribute__((format(printf, 2, 3))) void put(struct emitter *e,
                                                               const char *fmt, ...)
{
    char line[1200];
    va_list ap;

    if (e->stop)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    e->stop = e->emit(e->arg, line);
}

/*
 * The rows of stacks and profile answers are built by hand rather than
 * with printf: a profile answer is one line per call path, and glibc's
 * conversion of a double (%.9f) alone cost more than everything else in a
 * query (perf, bench/ctl).  struct line appends integers, seconds to the
 * nanosecond and cleaned names into a fixed buffer; whatever does not fit
 * is cut off, as vsnprintf in put() would.
 */
struct line {
    size_t n;
    char s[1200];
};

static VFTR_NI void l_ch(struct line *l, char c)
{
    if (l->n + 1 < sizeof l->s)
        l->s[l->n++] = c;
}

static VFTR_NI void l_u64(struct line *l, uint64_t v)
{
    char d[20];
    int k = 20;

    do {
        d[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (l->n + (size_t)(20 - k) < sizeof l->s) {
        memcpy(l->s + l->n, d + k, (size_t)(20 - k));
        l->n += (size_t)(20 - k);
    }
}

/* ticks / tps seconds with 9 decimals, rounded to the nanosecond (as %.9f
 * would print it but for the rounding of the last digit). */
static VFTR_NI void l_sec(struct line *l, double ticks, double tps)
{
    double ns = ticks > 0 ? ticks * (1e9 / tps) + 0.5 : 0;
    uint64_t v = ns < 1.8e19 ? (uint64_t)ns : UINT64_MAX, frac = v % 1000000000u;
    char d[10];

    l_u64(l, v / 1000000000u);
    d[0] = '.';
    for (int i = 9; i >= 1; i--, frac /= 10)
        d[i] = (char)('0' + frac % 10);
    if (l->n + sizeof d < sizeof l->s) {
        memcpy(l->s + l->n, d, sizeof d);
        l->n += sizeof d;
    }
}

/* A literal (a keyword and its tab), as it is. */
static VFTR_NI void l_lit(struct line *l, const char *text, size_t len)
{
    if (l->n + len < sizeof l->s) {
        memcpy(l->s + l->n, text, len);
        l->n += len;
    }
}

#define L_LIT(l, text) l_lit((l), (text), sizeof(text) - 1)

/* At most max bytes of name, control characters replaced (see clean). */
static VFTR_NI void l_name(struct line *l, const char *name, size_t max)
{
    for (size_t i = 0; name && name[i] && i < max; i++)
        l_ch(l, (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i]);
}

static VFTR_NI void l_emit(struct emitter *e, struct line *l)
{
    l->s[l->n] = '\0';
    if (!e->stop)
        e->stop = e->emit(e->arg, l->s);
    l->n = 0;
}

static VFTR_NI const char *phase_name(int p)
{
    switch (p) {
    case VFTR_PHASE_RUNNING: return "running";
    case VFTR_PHASE_PAUSED: return "paused";
    case VFTR_PHASE_HELD: return "held";
    default: return "stopped";
    }
}

/* Under the event lock: the output directory, the attach count and the
 * stopped flag change only in events. */
static VFTR_NI void q_status(struct emitter *e)
{
    unsigned nthreads = 0;
    char exe[256];

    pthread_mutex_lock(&ctl.lock);

    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next)
        nthreads++;
    put(e, "phase=%s trace=%s attached=%d pid=%ld rank=%d size=%d job=%s threads=%u "
        "events_written=%" PRIu64 " trace_bytes=%" PRIu64,
        phase_name(vftr_phase_of(atomic_load(&vftr_proc.phase))),
        vftr_proc.writer == NULL || atomic_load(&vftr_proc.trace_off) ? "off"
        : vftr_phase_stopped() ? "stopped" : "on",
        ctl.attached, (long)vftr_proc.pid, vftr_proc.rank < 0 ? 0 : vftr_proc.rank,
        vftr_proc.size < 1 ? 1 : vftr_proc.size, ctl.job[0] ? ctl.job : "-", nthreads,
        (uint64_t)atomic_load(&vftr_proc.events_written), vftr_trace_bytes());
    put(e, "outdir=%s", vftr_proc.dir);
    put(e, "base=%s", vftr_proc.base);
    put(e, "exe=%s", clean(vftr_proc.exe, exe, sizeof exe));
    pthread_mutex_unlock(&ctl.lock);
}

/* The open frames of t, innermost first, into chain (at most cap); returns
 * how many, 0 for an idle thread or one whose current node is not among
 * the first nn (which the caller loaded with acquire, outside this
 * function: the sanitizer must see that load to know the nodes' fields are
 * published). */
static VFTR_NI CTL_RACY uint32_t read_stack(const struct vftr_thread *t, uint32_t nn,
                                            struct vftr_node **chain, uint32_t cap)
{
    struct vftr_node *n = LOAD(((struct vftr_thread *)t)->cur);
    uint32_t k = 0;

    if (n == NULL || !published(t, n, nn))
        return 0;
    for (; n && n->parent && k < cap; n = n->parent)
        chain[k++] = n;
    return k;
}

#define STACK_MAX 4096
#define STACK_SMALL 256

/* The frames of t into chain (outermost first on output): on the stack
 * for up to STACK_SMALL frames, else in *big (malloc'ed once, for
 * STACK_MAX, freed by the caller).  Returns the count (the innermost
 * STACK_SMALL frames when out of memory). */
static VFTR_NI uint32_t stack_of(const struct vftr_thread *t, struct vftr_node **small,
                                 struct vftr_node ***big, struct vftr_node ***chain)
{
    uint32_t nn = atomic_load_explicit(&((struct vftr_thread *)t)->nnodes, memory_order_acquire);
    uint32_t k = read_stack(t, nn, small, STACK_SMALL);

    *chain = small;
    if (k < STACK_SMALL)
        return k;
    if (*big == NULL && (*big = malloc(STACK_MAX * sizeof **big)) == NULL)
        return k;   /* the innermost STACK_SMALL frames */
    *chain = *big;
    return read_stack(t, nn, *big, STACK_MAX);
}

static VFTR_NI void q_stacks(struct emitter *e)
{
    struct vftr_node *small[STACK_SMALL], **big = NULL, **chain;
    struct line l = { 0 };

    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t && !e->stop; t = t->next) {
        uint32_t k = stack_of(t, small, &big, &chain);

        L_LIT(&l, "thread\t");
        l_u64(&l, t->index);
        l_ch(&l, '\t');
        if (t->tid < 0)
            l_ch(&l, '-');
        l_u64(&l, t->tid < 0 ? -(uint64_t)t->tid : (uint64_t)t->tid);
        l_ch(&l, '\t');
        l_u64(&l, k);
        if (atomic_load_explicit(&t->guard, memory_order_relaxed) == VFTR_GUARD_DONE)
            L_LIT(&l, "\tfinished");
        l_emit(e, &l);
        for (uint32_t i = 0; i < k && !e->stop; i++) {
            const struct vftr_node *n = chain[k - 1 - i];

            L_LIT(&l, "frame\t");
            l_u64(&l, t->index);
            l_ch(&l, '\t');
            l_u64(&l, i);
            l_ch(&l, '\t');
            l_u64(&l, n->id);
            l_ch(&l, '\t');
            l_name(&l, n->fn ? n->fn->name : "?", 1023);
            l_emit(e, &l);
        }
    }
    free(big);
}

/* Counters of node n as they stand. */
static VFTR_NI CTL_RACY void read_counts(const struct vftr_node *n, uint64_t *calls,
                                         uint64_t *incl)
{
    *calls = LOAD(((struct vftr_node *)n)->calls);
    *incl = LOAD(((struct vftr_node *)n)->time_incl);
}

/* The open frames of t (its stack, if its current node is among the first
 * nn) add the time they counted so far, up to now, to incl, and the
 * entries again that the thread's pending resumes will count to calls
 * (vftr_phase_open_time: no paused time, as the final profile). */
static VFTR_NI CTL_RACY void add_open(const struct vftr_thread *t, uint32_t nn, uint64_t *incl,
                                      uint64_t *calls, uint64_t now)
{
    struct vftr_node *n = LOAD(((struct vftr_thread *)t)->cur);

    if (n == NULL || !published(t, n, nn))
        return;
    vftr_phase_lock();
    for (; n && n->parent; n = n->parent) {
        uint32_t back = 0;

        if (n->idx >= nn)
            continue;
        incl[n->idx] += vftr_phase_open_time(t, LOAD(n->t_enter), now, &back);
        calls[n->idx] += back;
    }
    vftr_phase_unlock();
}

/*
 * One allocation per thread for the per-node arrays (the counters as read,
 * the exclusive times, the nodes in index order), nothing else on the
 * heap, no printf: a profile of a few dozen call paths takes a few
 * microseconds when the caches are warm.
 */
static VFTR_NI void q_profile(struct emitter *e)
{
    double tps = vftr_clock_ticks_per_second(0);
    struct line l = { 0 };

    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t && !e->stop; t = t->next) {
        uint32_t nn = atomic_load_explicit(&t->nnodes, memory_order_acquire), m = nn ? nn : 1;
        uint64_t now = vftr_clock_now();
        char *mem = malloc(m * (2 * sizeof(uint64_t) + sizeof(int64_t) + sizeof(void *)));
        uint64_t *incl, *calls;
        int64_t *excl;
        struct vftr_node **node;
        struct vftr_node_walk w = vftr_node_walk_first(t, nn);

        if (mem == NULL) {
            e->stop = -ENOMEM;
            break;
        }
        incl = (uint64_t *)mem;
        calls = incl + m;
        excl = (int64_t *)(calls + m);
        node = (struct vftr_node **)(excl + m);
        for (uint32_t i = 0; i < nn; i++) {   /* one walk over the blocks */
            node[i] = vftr_node_walk_next(&w);
            read_counts(node[i], &calls[i], &incl[i]);
        }
        add_open(t, nn, incl, calls, now);
        vftr_callpath_exclusive(t, nn, incl, excl);
        for (uint32_t i = 0; i < nn && !e->stop; i++) {
            const struct vftr_node *nd = node[i];

            if ((nd->flags & VFTR_FN_EXCLUDED) || calls[i] == 0)
                continue;   /* markers; paths made and left during a pause */
            L_LIT(&l, "row\t");
            l_u64(&l, t->index);
            l_ch(&l, '\t');
            l_u64(&l, nd->id);
            l_ch(&l, '\t');
            l_u64(&l, nd->parent->id);
            l_ch(&l, '\t');
            l_u64(&l, calls[i]);
            l_ch(&l, '\t');
            l_sec(&l, (double)incl[i], tps);
            l_ch(&l, '\t');
            l_sec(&l, (double)excl[i], tps);
            l_ch(&l, '\t');
            l_name(&l, nd->fn->name, 599);
            l_ch(&l, '\t');
            l_name(&l, nd->parent->fn ? nd->parent->fn->name : "", 599);
            l_emit(e, &l);
        }
        free(mem);
    }
}

/* MPI statistics so far, from the MPI library (ext.h): one line per MPI
 * function ("mpi <calls> <messages> <bytes> <seconds> <function>") and a
 * total; -ENOTSUP when the program has no MPI library loaded. */
static VFTR_NI int q_messages(struct emitter *e)
{
    struct vftr_ext_mpi_row rows[256];
    long n = vftr_ext_mpi_stats(rows, sizeof rows / sizeof rows[0]);
    uint64_t msgs = 0, bytes = 0;

    if (n < 0)
        return (int)n;
    for (long i = 0; i < n && !e->stop; i++) {
        put(e, "mpi\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.9f\t%s", rows[i].calls,
            rows[i].messages, rows[i].bytes, rows[i].seconds, rows[i].function);
        msgs += rows[i].messages;
        bytes += rows[i].bytes;
    }
    put(e, "total\t%" PRIu64 "\t%" PRIu64, msgs, bytes);
    return 0;
}

VFTR_NI int vftr_ctl_query(enum vftr_ec_query q, vftr_ec_emit_fn *emit, void *arg)
{
    struct emitter e = { emit, arg, 0 };

    if (emit == NULL)
        return -EINVAL;
    if (!vftr_proc.recording)
        return -EAGAIN;
    switch (q) {
    case VFTR_EC_Q_STATUS: q_status(&e); break;
    case VFTR_EC_Q_STACKS: q_stacks(&e); break;
    case VFTR_EC_Q_PROFILE: q_profile(&e); break;
    case VFTR_EC_Q_MESSAGES: {
        int rc = q_messages(&e);
        if (rc < 0)
            return rc;
        break;
    }
    default: return -EINVAL;
    }
    return e.stop < 0 ? e.stop : e.stop > 0 ? -e.stop : 0;
}

/* ------------------------------------------------------------------ loader */

/* The job id from the launcher's environment (read once, here). */
static VFTR_NI void read_job(char *out, size_t len)
{
    static const char *const vars[] = {
        "SLURM_JOB_ID", "PBS_JOBID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_JOBID",
    };

    out[0] = '\0';
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);

        if (v && *v) {
            clean(v, out, len);
            for (char *p = out; *p; p++)
                if (*p == ' ')
                    *p = '_';
            return;
        }
    }
}

VFTR_NI int vftr_ctl_setup_module(const struct vftr_ec_module *m, const char *options)
{
    struct vftr_ec_host *h = &ctl.host;
    int rc;

    pthread_mutex_lock(&ctl.lock);
    if (ctl.active) {
        pthread_mutex_unlock(&ctl.lock);
        return -EBUSY;
    }
    if (vftr_proc.exe[0] == '\0') {
        ssize_t n = readlink("/proc/self/exe", vftr_proc.exe, sizeof vftr_proc.exe - 1);

        vftr_proc.exe[n > 0 ? (size_t)n : 0] = '\0';
    }
    read_job(ctl.job, sizeof ctl.job);
    memset(h, 0, sizeof *h);
    h->version = VFTR_EC_VERSION;
    h->options = options ? options : "";
    h->socket_dir = vftr_proc.cfg.control_socket_dir ? vftr_proc.cfg.control_socket_dir : "";
    h->pid = vftr_proc.pid ? vftr_proc.pid : getpid();
    h->rank = vftr_proc.rank;
    h->size = vftr_proc.size;
    h->job = ctl.job;
    h->host = vftr_proc.host;
    h->exe = vftr_proc.exe;
    h->query = vftr_ctl_query;
    ctl.mod = m;
    ctl.attached = 0;
    /* active before init: a module may deliver events from its thread as
     * soon as it has one */
    ctl.active = true;
    pthread_mutex_unlock(&ctl.lock);
    rc = m->init(h);
    if (rc != 0) {
        pthread_mutex_lock(&ctl.lock);
        ctl.active = false;
        ctl.mod = NULL;
        pthread_mutex_unlock(&ctl.lock);
        /* the default module names its reason itself (one message) */
        if (vftr_proc.is_rank0 && m != &vftr_ctl_default_module)
            vftr_msg("control module %s: initialization failed (%s); the program runs on "
                     "without external control", m->name, rc < 0 ? strerror(-rc) : "error");
        return rc < 0 ? rc : -EIO;
    }
    for (int ev = 0; ev < VFTR_EC_NEVENTS; ev++)
        if (m->register_callback)
            (void)m->register_callback((enum vftr_ec_event)ev, vftr_ctl_event);
    return 0;
}

/* Loads the shared object path and fills ctl.loaded.  -errno with one
 * message. */
static VFTR_NI int load_module(const char *path)
{
    const unsigned *version;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

    if (h == NULL) {
        const char *why = dlerror();

        vftr_msg("control module %s cannot be loaded: %s; the program runs on without "
                 "external control", path, why ? why : "unknown error");
        return -ENOENT;
    }
    version = (const unsigned *)dlsym(h, "vftr_ec_module_version");
    memset(&ctl.loaded, 0, sizeof ctl.loaded);
    ctl.loaded.name = path;
    *(void **)&ctl.loaded.init = dlsym(h, "vftr_ec_init");
    *(void **)&ctl.loaded.register_callback = dlsym(h, "vftr_ec_register_callback");
    *(void **)&ctl.loaded.process_shutdown = dlsym(h, "vftr_ec_process_shutdown");
    *(void **)&ctl.loaded.message = dlsym(h, "vftr_ec_message");
    if (version == NULL || *version != VFTR_EC_VERSION || ctl.loaded.init == NULL
        || ctl.loaded.register_callback == NULL) {
        vftr_msg("control module %s: %s; the program runs on without external control", path,
                 version == NULL ? "no vftr_ec_module_version (not a vftr_ec module)"
                 : *version != VFTR_EC_VERSION ? "interface version differs from this library's"
                 : "vftr_ec_init or vftr_ec_register_callback missing");
        dlclose(h);
        return -EINVAL;
    }
    ctl.handle = h;
    return 0;
}

VFTR_NI int vftr_ctl_setup(void)
{
    const struct vftr_config *cfg = &vftr_proc.cfg;
    int rc;

    if (!cfg->control_active)
        return 0;
    if (cfg->control_module && *cfg->control_module) {
        if ((rc = load_module(cfg->control_module)) < 0)
            return rc;
        rc = vftr_ctl_setup_module(&ctl.loaded, cfg->control_options);
        if (rc < 0 && ctl.handle) {
            dlclose(ctl.handle);
            ctl.handle = NULL;
        }
        return rc;
    }
    return vftr_ctl_setup_module(&vftr_ctl_default_module, cfg->control_options);
}

VFTR_NI void vftr_ctl_shutdown(void)
{
    const struct vftr_ec_module *m;

    pthread_mutex_lock(&ctl.lock);   /* waits for an event that is running */
    m = ctl.active ? ctl.mod : NULL;
    ctl.active = false;
    pthread_mutex_unlock(&ctl.lock);
    if (m && m->process_shutdown)
        m->process_shutdown();
    /* the module stays loaded: a thread of its own may still be on its way
     * out, and the process ends now anyway */
}
