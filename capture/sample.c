/*
 * sample.c — statistical call-stack sampling (see sample.h).
 *
 * Why the thread's CPU time and not CLOCK_MONOTONIC: a sample then stands
 * for CPU time the thread used where it was found, so a share of the
 * profile is a share of the thread's work whatever else runs on the
 * machine (a thread that waits for its turn on a loaded core, or sleeps,
 * takes no samples meanwhile and is not charged for it), idle threads cost
 * nothing, and a blocking system call is not interrupted by a signal every
 * interval (fewer EINTR for the program).  Waiting time is what the exact
 * records (MPI, OpenMP) show.
 *
 * Two sources of the signal.  The preferred one is a task-clock software
 * event (perf_event_open, sample_period = the interval), whose overflow
 * the kernel signals to the thread (F_SETOWN_EX, F_SETSIG): its hrtimer
 * runs only while the thread runs and keeps what is left of the period
 * across a context switch, so a sample comes every interval of the
 * thread's CPU time, loaded machine or not.  The fallback is a POSIX timer
 * on CLOCK_THREAD_CPUTIME_ID.  The kernel checks that one only at its tick
 * and only for the task running at that tick: a thread that shares its
 * core with other work is often switched in after one tick and out before
 * the next, and then goes tens, at times hundreds of milliseconds of its
 * CPU time without a sample.  The time is not lost (si_overrun counts it)
 * but it all lands on one sample, and the CPU time after a thread's last
 * sample on none: on a loaded core that coarseness cost the test's longest
 * (and last) phase several percentage points of its share.
 *
 * The ring route (sample.ring, the default with the task-clock event):
 * the signal is what the event costs most on a virtual machine (delivery,
 * the handler's frame, sigreturn: kernel entries on the sampled thread),
 * so the event is opened to have the kernel write the sample itself into
 * a ring mapped per thread (open_ring: the count, the user registers, 8 KiB
 * of user stack), and the collector reads the rings every SMP_RING_BATCH
 * intervals (fewer after coming late: adapt_round) and unwinds the copies
 * off-line (sample_unwind.c, DWARF, as
 * `perf record --call-graph dwarf`).  The weight is the event's count since
 * the previous record; whether a sample is inside an exact call is told
 * from its stack (ring_exact), since nobody can look at the shadow stack at
 * the sample's instant; the dither is an ioctl from the collector
 * (ring_dither).  The kernel refuses the ring: the signal route.
 *
 * Weights: each sample weighs the thread's CPU time since its previous
 * sample (clock_gettime(CLOCK_THREAD_CPUTIME_ID), async-signal-safe, read
 * in the handler), not a count of intervals.  Whatever the source, the
 * tick, a coalesced second signal or a sample the task-clock event drops
 * (it does not sample while the thread is in the kernel), every
 * nanosecond of the thread's CPU time goes to exactly one sample, the
 * next one taken after it.
 *
 * The ring: the handler (the producer, on the sampled thread) writes slot
 * head % SLOTS and then publishes head (release); the collector (the only
 * consumer) reads slots up to head and then publishes tail.  On a full
 * ring the handler keeps the sample's CPU time and adds it to the next
 * sample it can store (counting the ones it could not), so a starved
 * collector coarsens the profile but loses none of its time.  The handler
 * reads nothing the thread could be changing half-way except its own
 * shadow-stack pointer, which is a single aligned word.
 *
 * Deadlock freedom: the handler takes no lock and allocates nothing of its
 * own.  libunwind's local unwinder finds unwind tables through
 * dl_iterate_phdr, which takes the loader's lock: a sample that lands
 * inside the loader (dlopen, a first call through the PLT) or inside
 * dl_iterate_phdr would wait on it, so the handler unwinds by frame
 * pointers instead whenever the interrupted code is the loader's or libc's
 * (found by address ranges read at setup), and libunwind's caching is set
 * per thread (no lock of its own).
 */
#define UNW_LOCAL_ONLY
#define _GNU_SOURCE 1
#include "sample.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <libunwind.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "capture.h"
#include "io.h"
#include "names.h"
#include "sample_unwind.h"
#include "symbols.h"

#define SMP_SIGNAL SIGPROF
#define SMP_DEPTH 64u           /* frames kept per sample (the innermost ones) */
#define SMP_SLOTS 128u          /* ring slots per thread (a power of two): 2.5 periods at 1 ms */
#define SMP_PERIOD_NS 50000000L /* the collector empties the rings this often */
#define SMP_PC_CACHE 4096u      /* return address -> function, direct-mapped */
#define SMP_RING_PAGES 128u     /* data pages of a thread's kernel ring (512 KiB):
                                 * 60 samples, room for a collector late by 28 ms
                                 * (64 pages overflowed under TSan, with rounds
                                 * of 16 intervals) */
#define SMP_STACK_COPY 8192u    /* bytes of user stack the kernel copies per sample */
#define SMP_RING_BATCH 32u      /* the collector empties the kernel rings every this
                                 * many intervals: 32 samples of about 8.4 KiB (each
                                 * round of the collector costs it some 20 to 40 us
                                 * of CPU time before any record is read: a kernel
                                 * timer, a wakeup, futex calls) */

struct smp_slot {
    uint64_t time;              /* clock tick of the sample */
    uint64_t cpu;               /* ns of the thread's CPU time it stands for */
    uint32_t n;                 /* frames in pc, innermost first */
    uintptr_t pc[SMP_DEPTH];
};

struct smp_thread {
    _Atomic uint32_t head;      /* handler: slots written */
    _Atomic uint32_t tail;      /* collector: slots read */
    _Atomic int ended;          /* the thread ended: its ring is the collector's */
    _Atomic uint64_t full;      /* samples not stored: ring full (time carried) */
    _Atomic uint64_t exact;     /* samples inside hooks or exact regions */
    _Atomic uint64_t exact_cpu; /* ns of CPU time they stand for */
    _Atomic uint64_t unsampled; /* ns after the last sample (set at the end) */
    uint64_t prev_cpu;          /* handler: thread CPU time at the previous sample */
    uint64_t carry;             /* handler: ns of samples a full ring refused */
    uint64_t rng;               /* handler: xorshift state of the dithered period */
    uint32_t nsig;              /* handler: signals so far (the dither's turn); on
                                 * the ring route the collector's rounds */
    timer_t timer;
    bool has_timer;
    int fd;                     /* task-clock event, or -1: the timer */
    pid_t tid;
    uintptr_t stk_lo, stk_hi;   /* the thread's stack, for the frame-pointer walk */
    /* the ring route: the kernel writes the samples (fd is then the event's) */
    struct perf_event_mmap_page *ring;   /* NULL: the signal route */
    size_t ring_len;            /* bytes of the data area (a power of two) */
    uint64_t prev_val;          /* collector: the event's count at the previous sample */
    uint64_t ring_carry;        /* collector: ns of samples that could not be booked */
    _Atomic uint64_t end_val;   /* the event's count at the thread's end */
    bool found;                 /* the collector found the thread (discover) */
    bool discard;               /* the collector itself: nothing booked */
    bool seen;                  /* discover: listed in the latest scan */
    struct smp_memo {           /* collector: the last full unwinding (unwind_memo) */
        uintptr_t sp, bp;
        size_t len;
        size_t lo, hi;          /* the bytes of the copy it read */
        const struct smp_fn *leaf;
        uint32_t n;
        uintptr_t pc[SMP_DEPTH];
        unsigned char *stk;     /* those bytes (room for SMP_STACK_COPY) */
    } memo;
    struct vftr_thread *out;    /* the sampled thread of the trace (collector's),
                                 * made at the thread's first sample booked with a
                                 * call path (out_ready) */
    bool out_held;              /* collector: out's guard taken in this drain */
    bool out_refused;           /* collector: out unavailable in this drain */
    bool named;                 /* collector: in smp.outs (a path booked) */
    struct smp_thread *next;    /* smp.list */
    struct smp_slot slot[SMP_SLOTS];
};

struct smp_fn {                 /* a function met in samples, by start address */
    uintptr_t start;
    struct vftr_fn *fn;         /* NULL: a frame left out (capture's own, libc's start) */
    struct smp_fn *next;
};

static struct {
    _Atomic bool on;
    bool collector_running;
    _Atomic bool stop;
    double interval;            /* seconds */
    pthread_t collector;
    pthread_mutex_t lock;       /* list; with wake, the collector's sleep */
    pthread_cond_t wake;        /* stop: the collector ends at once */
    struct smp_thread *list;
    /* collector only */
    struct vftr_symtab *symtab;  /* read at the first samples, not at the program's start */
    unsigned symtab_flags;
    struct smp_fn *fn_hash[1024];
    struct { uintptr_t pc; struct smp_fn *f; } pc_cache[SMP_PC_CACHE];
    struct vftr_fn unknown;     /* frames without a symbol */
    struct smp_slot rslot;      /* a ring record's sample, unwound */
    uint64_t rec[(SMP_STACK_COPY + 1024) / 8];   /* a ring record, copied out whole */
    uint64_t mono0, tick0;      /* CLOCK_MONOTONIC and vftr's clock, read together */
    double tick_per_ns;
    uint64_t rng;               /* the ring route's dither */
    uint64_t booked, booked_cpu;    /* samples booked, their ns of CPU time */
    uint64_t paused, paused_cpu;    /* dropped while paused */
    struct { uint32_t index; pid_t tid; } outs[16];   /* sampled threads, for the log */
    uint32_t nouts;
    uint64_t full, exact, exact_cpu, unsampled;     /* of threads already freed */
    bool task_clock;            /* sample.task_clock */
    bool want_ring;             /* sample.ring */
    _Atomic int no_ring;        /* the ring route refused: -errno, else 0 */
    _Atomic int no_ring_here;   /* refused to a thread only (limits): -errno */
    _Atomic uint32_t by_ring;   /* threads sampled by the ring route */
    uint64_t lost;              /* ring route: samples the kernel could not store */
    uint64_t memo_hits;         /* ring route: samples unwound by unwind_memo's copy */
    bool discover;              /* the collector opens the threads' events (discover) */
    pid_t collector_tid;
    pid_t before[8];            /* threads there before setup: not the program's */
    unsigned nbefore;
    uintptr_t cap_lo[4], cap_hi[4];   /* capture's libraries (the MPI one too) */
    unsigned ncap;
    _Atomic int no_task_clock;  /* the kernel refused the event: -errno, else 0 */
    _Atomic uint32_t by_event, by_timer;   /* threads sampled by each source */
    uint64_t period_ns;         /* the interval in ns */
    long collect_ns;            /* the collector's round (< 1 s); on the ring route
                                 * the longest */
    long round_ns;              /* collector: its round now (adapt_round) */
    size_t fill_max;            /* collector: the fullest ring's bytes in a round */
    size_t page;                /* the page size (the kernel rings' header) */
    uint64_t collector_cpu;     /* ns of CPU time the collector used (at its end) */
    /* code where the handler must not call libunwind (loader, libc) */
    uintptr_t no_unw_lo[4], no_unw_hi[4];
    unsigned nno_unw;
    /* code that capture's own work calls (ring_exact): those and the
     * sanitizers' runtimes, whose interceptors come between */
    uintptr_t sys_lo[8], sys_hi[8];
    unsigned nsys;
    uintptr_t self_lo, self_hi; /* capture's own code: frames left out */
    struct sigaction old;
} smp = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static __thread struct smp_thread *smp_tls __attribute__((tls_model("initial-exec")));
/* the thread's task-clock descriptor, kept after its end so that an
 * overflow signal still on its way is recognised as the sampler's */
static __thread int smp_tls_fd __attribute__((tls_model("initial-exec"))) = -1;
/* depth of capture's own work on this thread (vftr_sample_own_begin):
 * read by the handler, which interrupts only its own thread */
static __thread volatile sig_atomic_t smp_own_depth __attribute__((tls_model("initial-exec")));

static VFTR_NI uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------- signal handler */

static VFTR_NI bool in_no_unwind(uintptr_t pc)
{
    for (unsigned i = 0; i < smp.nno_unw; i++)
        if (pc >= smp.no_unw_lo[i] && pc < smp.no_unw_hi[i])
            return true;
    return false;
}

/* Frame-pointer walk from the interrupted context: every frame read is
 * inside the thread's stack, above the last one and aligned, so a frame
 * without a frame pointer ends the walk instead of a wild read. */
static VFTR_NI uint32_t walk_fp(const struct smp_thread *s, const ucontext_t *uc, uintptr_t *pc)
{
    uint32_t n = 0;
#if defined(__x86_64__)
    uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];

    pc[n++] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    while (n < SMP_DEPTH && fp >= s->stk_lo && fp + 16 <= s->stk_hi && (fp & 7) == 0) {
        const uintptr_t *f = (const uintptr_t *)fp;

        if (f[1] == 0)
            break;
        pc[n++] = f[1];
        if (f[0] <= fp)
            break;
        fp = f[0];
    }
#else
    (void)s;
    (void)uc;
    (void)pc;
#endif
    return n;
}

static VFTR_NI uint32_t unwind(const struct smp_thread *s, ucontext_t *uc, uintptr_t *pc)
{
    unw_cursor_t c;
    uint32_t n = 0;

#if defined(__x86_64__)
    if (in_no_unwind((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]))
        return walk_fp(s, uc, pc);
#endif
    if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
        do {
            unw_word_t ip;

            if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
                break;
            pc[n++] = (uintptr_t)ip;
        } while (n < SMP_DEPTH && unw_step(&c) > 0);
    }
    return n >= 2 ? n : walk_fp(s, uc, pc);
}

/* Whether a SIGPROF is the sampler's: the timer's (its value is the ring)
 * or the task-clock event's (F_SETSIG: si_code POLL_IN/POLL_HUP, si_fd). */
static VFTR_NI bool is_ours(const struct smp_thread *s, const siginfo_t *si)
{
    if (si->si_code == SI_TIMER)
        return s != NULL && si->si_value.sival_ptr == s;
    if (si->si_code == POLL_IN || si->si_code == POLL_HUP)
        return smp_tls_fd >= 0 && si->si_fd == smp_tls_fd;
    return false;
}

/* Every SMP_DITHER-th sample the task-clock event gets a new period,
 * uniform in [interval/2, 3*interval/2) (mean: the interval), kept for the
 * next SMP_DITHER samples.  An exact period samples a program whose work
 * repeats with a multiple of it at the same points of every repetition and
 * misses the rest (seen: a 2 ms phase of a 20 ms cycle at 4 ms, never
 * sampled); the dither makes the points wander.  Not at every sample: the
 * ioctl restarts the event's timer, which costs about as much as a sample
 * on a virtual machine.  ioctl is a bare system call, safe here. */
#define SMP_DITHER 4u
static VFTR_NI void dither(struct smp_thread *s)
{
    uint64_t x = s->rng, p;

    if (++s->nsig % SMP_DITHER != 0)
        return;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s->rng = x;
    p = smp.period_ns / 2 + x % (smp.period_ns ? smp.period_ns : 1);
    (void)ioctl(s->fd, PERF_EVENT_IOC_PERIOD, &p);
}

static VFTR_NI void on_signal(int sig, siginfo_t *si, void *ucv)
{
    struct smp_thread *s = smp_tls;
    struct vftr_thread *t;
    int saved = errno;
    uint32_t h;
    uint64_t now, cpu;
    struct smp_slot *slot;

    if (!is_ours(s, si)) {
        /* not ours: the program's own SIGPROF, if it had a handler */
        if ((smp.old.sa_flags & SA_SIGINFO) && smp.old.sa_sigaction)
            smp.old.sa_sigaction(sig, si, ucv);
        else if (!(smp.old.sa_flags & SA_SIGINFO) && smp.old.sa_handler != SIG_DFL
                 && smp.old.sa_handler != SIG_IGN)
            smp.old.sa_handler(sig);
        errno = saved;
        return;
    }
    if (s == NULL) {   /* the event's last signal after the thread's end */
        errno = saved;
        return;
    }
    /* the CPU time since the previous sample, whatever the source counted */
    now = thread_cpu_ns();
    cpu = now > s->prev_cpu ? now - s->prev_cpu : 0;
    s->prev_cpu = now;
    if (s->fd >= 0)
        dither(s);
    t = vftr_tls;
    /* inside capture's own work (its start-up, the pthread_create wrapper:
     * marked, since the walk from libc's code, where that work mostly is,
     * often finds no frame of capture's to tell it by), inside a hook, or
     * inside an exactly recorded call (an MPI call, a hooked function):
     * none is the program's time, and the last two are in the exact
     * records already.  An OpenMP region is no call: the work inside it is
     * what sampling is for */
    if (smp_own_depth > 0
        || (t && (atomic_load_explicit(&t->guard, memory_order_relaxed) != VFTR_GUARD_FREE
                  || (t->cur != &t->root && !(t->cur->flags & VFTR_FN_OMP))))) {
        atomic_fetch_add_explicit(&s->exact, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->exact_cpu, cpu, memory_order_relaxed);
        errno = saved;
        return;
    }
    h = atomic_load_explicit(&s->head, memory_order_relaxed);
    if (h - atomic_load_explicit(&s->tail, memory_order_acquire) >= SMP_SLOTS) {
        s->carry += cpu;
        atomic_fetch_add_explicit(&s->full, 1, memory_order_relaxed);
        errno = saved;
        return;
    }
    slot = &s->slot[h & (SMP_SLOTS - 1)];
    slot->time = vftr_clock_now();
    slot->cpu = cpu + s->carry;
    s->carry = 0;
    slot->n = unwind(s, ucv, slot->pc);
    atomic_store_explicit(&s->head, h + 1, memory_order_release);
    errno = saved;
}

/* ---------------------------------------------------------- threads */

static VFTR_NI void stack_bounds(struct smp_thread *s)
{
    pthread_attr_t a;
    void *lo;
    size_t len;

    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return;
    if (pthread_attr_getstack(&a, &lo, &len) == 0) {
        s->stk_lo = (uintptr_t)lo;
        s->stk_hi = (uintptr_t)lo + len;
    }
    pthread_attr_destroy(&a);
}

/* The task-clock event of the calling thread (pid 0: this thread only,
 * no children) that signals SMP_SIGNAL to it every ns of its CPU time: the
 * descriptor, or -errno.  Counting the thread's time in the kernel too
 * where that is allowed (an overflow in a system call is then signalled at
 * its return, in the code that made it); else, as paranoid level 2 asks of
 * an unprivileged user, exclude_kernel: an overflow while the thread is in
 * the kernel is not signalled, and its time goes to the next sample. */
static VFTR_NI int open_task_clock(pid_t tid, long ns)
{
    static _Atomic int user_only;   /* the kernel's part was refused once */
    struct perf_event_attr a;
    struct f_owner_ex owner = { F_OWNER_TID, tid };
    int fd, rc;

    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = (uint64_t)ns;
    a.disabled = 1;
    a.exclude_hv = 1;
    a.exclude_kernel = atomic_load(&user_only) != 0;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && !a.exclude_kernel && (errno == EACCES || errno == EPERM)) {
        atomic_store(&user_only, 1);
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0)
        return -errno;
    if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, SMP_SIGNAL) != 0
        || fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

/* The ring route's event of the calling thread: the same task-clock event
 * as open_task_clock's, but no signal: at each overflow the kernel writes
 * a record into the ring mapped here (the count, the time, the user
 * registers and SMP_STACK_COPY bytes of the user stack), and the collector
 * reads it.  No wakeup is asked for (the collector comes by on its own).
 * The descriptor (s->fd, s->ring set), or -errno: the kernel refuses the
 * record's parts (an old kernel), or the ring (perf_event_mlock_kb,
 * RLIMIT_MEMLOCK for an unprivileged user). */
static VFTR_NI int open_ring(struct smp_thread *s, long ns, pid_t pid)
{
    static _Atomic int user_only;
    size_t page = smp.page;
    struct perf_event_attr a;
    void *m;
    int fd, rc;

    if (vftr_sample_unwind_regs_mask() == 0)
        return -ENOSYS;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = (uint64_t)ns;
    a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER
                    | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = vftr_sample_unwind_regs_mask();
    a.sample_stack_user = SMP_STACK_COPY;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.wakeup_events = 1u << 30;   /* never, in practice: nobody polls */
    a.disabled = 1;
    a.exclude_hv = 1;
    a.exclude_kernel = atomic_load(&user_only) != 0;
    fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && !a.exclude_kernel && (errno == EACCES || errno == EPERM)) {
        atomic_store(&user_only, 1);
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0)
        return -errno;
    m = mmap(NULL, (SMP_RING_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        rc = -errno;
        close(fd);
        return rc;
    }
    s->ring = m;
    s->ring_len = SMP_RING_PAGES * page;
    s->fd = fd;
    return fd;
}

VFTR_NI void vftr_sample_thread_begin(void)
{
    struct smp_thread *s;
    struct sigevent ev;
    struct itimerspec its;
    long ns;
    int fd = -1;

    if (!atomic_load(&smp.on) || smp_tls != NULL || getpid() != vftr_proc.pid)
        return;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return;
    s->tid = (pid_t)syscall(SYS_gettid);
    s->fd = -1;
    stack_bounds(s);
    ns = (long)(smp.interval * 1e9 + 0.5);
    if (smp.want_ring && smp.task_clock && atomic_load(&smp.no_ring) == 0) {
        fd = open_ring(s, ns, 0);
        /* refused: the signal route, for every thread from now on (a lack
         * of descriptors or of lockable memory is this thread's alone) */
        if (fd < 0 && fd != -EMFILE && fd != -ENFILE && fd != -ENOMEM && fd != -EPERM) {
            int expect = 0;

            atomic_compare_exchange_strong(&smp.no_ring, &expect, fd);
        } else if (fd < 0) {
            int expect = 0;

            atomic_compare_exchange_strong(&smp.no_ring_here, &expect, fd);
        }
    }
    if (fd < 0 && smp.task_clock && atomic_load(&smp.no_task_clock) == 0) {
        fd = open_task_clock(s->tid, ns);
        /* the kernel or its settings refuse it: the timer, for every thread
         * from now on (a lack of descriptors is this thread's alone) */
        if (fd < 0 && fd != -EMFILE && fd != -ENFILE && fd != -ENOMEM) {
            int expect = 0;

            atomic_compare_exchange_strong(&smp.no_task_clock, &expect, fd);
        }
    }
    if (fd >= 0) {
        s->fd = fd;
    } else {
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SMP_SIGNAL;
        ev.sigev_value.sival_ptr = s;
        ev._sigev_un._tid = s->tid;
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &s->timer) != 0) {
            free(s);
            return;
        }
        s->has_timer = true;
    }
    pthread_mutex_lock(&smp.lock);
    s->next = smp.list;
    smp.list = s;
    pthread_mutex_unlock(&smp.lock);
    /* the first sample weighs the CPU time from here; the ring and the
     * descriptor are known to the handler before the first signal */
    s->prev_cpu = thread_cpu_ns();
    s->rng = ((uint64_t)s->tid << 32) ^ s->prev_cpu ^ (uintptr_t)s ^ 0x9e3779b97f4a7c15u;
    if (s->ring) {   /* no signal: the handler never sees this thread */
        atomic_fetch_add(&smp.by_ring, 1);
        smp_tls = s;
        (void)ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
        return;
    }
    smp_tls_fd = s->fd;
    smp_tls = s;
    atomic_signal_fence(memory_order_seq_cst);
    if (s->fd >= 0) {
        atomic_fetch_add(&smp.by_event, 1);
        (void)ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
        return;
    }
    atomic_fetch_add(&smp.by_timer, 1);
    its.it_interval.tv_sec = its.it_value.tv_sec = ns / 1000000000L;
    its.it_interval.tv_nsec = its.it_value.tv_nsec = ns % 1000000000L;
    (void)timer_settime(s->timer, 0, &its, NULL);
}

/* Stops the thread's source, under smp.lock.  The event's descriptor is
 * closed only by its own thread (own): the handler uses it (dither), so
 * another thread (finalize) only disables it, and it lives until the
 * process ends or execs (close-on-exec). */
static VFTR_NI void stop_source(struct smp_thread *s, bool own)
{
    if (s->has_timer)
        (void)timer_delete(s->timer);
    s->has_timer = false;
    if (s->fd >= 0) {
        (void)ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
        if (s->ring) {   /* the count after the last sample (read_format 0) */
            uint64_t v;

            if (read(s->fd, &v, sizeof v) == (ssize_t)sizeof v)
                atomic_store_explicit(&s->end_val, v, memory_order_relaxed);
        }
        if (own) {
            close(s->fd);
            s->fd = -1;
        }
    }
}

VFTR_NI void vftr_sample_thread_end(void)
{
    struct smp_thread *s = smp_tls;
    uint64_t now;

    if (s == NULL)
        return;
    /* the handler of a signal still pending finds no ring from here on
     * (smp_tls_fd stays: such a signal is still known as the sampler's) */
    smp_tls = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    pthread_mutex_lock(&smp.lock);   /* not stopped by finalize meanwhile */
    stop_source(s, true);
    pthread_mutex_unlock(&smp.lock);
    /* the CPU time after the last sample has no sample to go to: counted
     * (on the ring route by the collector, from the event's last count) */
    now = thread_cpu_ns();
    if (s->ring == NULL)
        atomic_store_explicit(&s->unsampled,
                              s->carry + (now > s->prev_cpu ? now - s->prev_cpu : 0),
                              memory_order_relaxed);
    atomic_store_explicit(&s->ended, 1, memory_order_release);
}

/* -------------------------------------------------------- collector */

/* The function of a frame (pc: an address inside it), made on first
 * sight; NULL for a frame left out: capture's own code (the handler's
 * caller chain, the thread wrapper) and the program's start-up frames. */
static VFTR_NI struct smp_fn *fn_of(uintptr_t pc)
{
    static const char *const outer[] = {
        "_start", "__libc_start_main", "__libc_start_call_main", "start_thread", "clone",
        "clone3", "__clone", "__clone3",
    };
    unsigned slot = (unsigned)(pc >> 2) & (SMP_PC_CACHE - 1);
    struct vftr_symbol sym;
    struct smp_fn *f;
    uintptr_t start;
    size_t b;
    bool skip = pc >= smp.self_lo && pc < smp.self_hi;

    if (smp.pc_cache[slot].pc == pc && smp.pc_cache[slot].f)
        return smp.pc_cache[slot].f;
    if (smp.symtab && vftr_symtab_find(smp.symtab, pc, &sym) == 0) {
        start = sym.start;
        for (size_t i = 0; i < sizeof outer / sizeof outer[0]; i++)
            skip |= strcmp(sym.raw_name, outer[i]) == 0;
    } else {
        start = 1;   /* every frame without a symbol: one function */
    }
    b = (start >> 4) % (sizeof smp.fn_hash / sizeof smp.fn_hash[0]);
    for (f = smp.fn_hash[b]; f; f = f->next)
        if (f->start == start)
            break;
    if (f == NULL) {
        f = calloc(1, sizeof *f);
        if (f == NULL)
            return NULL;
        f->start = start;
        if (start == 1) {
            f->fn = &smp.unknown;
        } else if (!skip) {
            const char *name = vftr_names_resolve(smp.symtab, start);
            struct vftr_fn *fn = calloc(1, sizeof *fn);

            if (fn == NULL) {
                free(f);
                return NULL;
            }
            fn->addr = start;
            fn->name = name ? name : sym.name;
            fn->id = atomic_fetch_add(&vftr_proc.next_fn_id, 1);
            fn->flags = VFTR_FN_SAMPLED;
            f->fn = fn;
        }
        f->next = smp.fn_hash[b];
        smp.fn_hash[b] = f;
    }
    smp.pc_cache[slot].pc = pc;
    smp.pc_cache[slot].f = f;
    return f;
}

/* Takes the guard of the collector's own trace thread, as a hook would;
 * false when the process is finishing it. */
static VFTR_NI bool out_take(struct vftr_thread *o)
{
    const struct timespec nap = { 0, 20000 };
    int expect;

    while (expect = VFTR_GUARD_FREE,
           !atomic_compare_exchange_strong(&o->guard, &expect, VFTR_GUARD_IN_HOOK)) {
        if (expect != VFTR_GUARD_LENT)
            return false;
        nanosleep(&nap, NULL);
    }
    if (vftr_phase_of(atomic_load(&vftr_proc.phase)) == VFTR_PHASE_STOPPED) {
        atomic_store_explicit(&o->guard, VFTR_GUARD_FREE, memory_order_release);
        return false;
    }
    vftr_phase_catch_up_all(o);
    return true;
}

/* Books one sample into o: its call path (outermost frame first, the left
 * out ones skipped) gets a call and d ticks on every frame, and the trace
 * an ENTER per frame at the start of the time it stands for and the EXITs
 * at its end (no earlier than the thread's last event). */
static VFTR_NI bool book(struct vftr_thread *o, const struct smp_slot *sl, uint64_t d)
{
    struct vftr_node *path[SMP_DEPTH];
    struct vftr_node *cur = &o->root;
    uint32_t n = 0;
    uint64_t now = sl->time, begin, end;

    for (uint32_t i = sl->n; i-- > 0;) {
        /* a return address points past its call: the caller is before it */
        struct smp_fn *f = fn_of(i ? sl->pc[i] - 1 : sl->pc[i]);
        struct vftr_node *nd;

        if (f == NULL || f->fn == NULL)
            continue;
        /* the start-up code below main without symbols (libc's local
         * functions): the path starts at the first frame with a name */
        if (n == 0 && f->fn == &smp.unknown)
            continue;
        nd = vftr_node_child(o, cur, f->fn->addr, f->fn, &now);
        if (nd == NULL)
            break;
        path[n++] = cur = nd;
    }
    if (n == 0)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        path[i]->calls++;
        path[i]->time_incl += d;
    }
    if (!o->trace || o->buf == NULL)
        return true;
    begin = sl->time > d ? sl->time - d : 0;
    if (vftr_trace_used(o) && begin < o->last_time)
        begin = o->last_time;
    end = sl->time > begin ? sl->time : begin;
    for (uint32_t i = 0; i < n; i++)
        vftr_trace_put(o, begin, VFTR_VFD_ENTER, path[i]->id);
    for (uint32_t i = n; i-- > 0;)
        vftr_trace_put(o, end, VFTR_VFD_EXIT, path[i]->id);
    return true;
}

static VFTR_NI bool in_capture(uintptr_t pc)
{
    for (unsigned k = 0; k < smp.ncap; k++)
        if (pc >= smp.cap_lo[k] && pc < smp.cap_hi[k])
            return true;
    return false;
}

static VFTR_NI bool in_system(uintptr_t pc)
{
    for (unsigned k = 0; k < smp.nsys; k++)
        if (pc >= smp.sys_lo[k] && pc < smp.sys_hi[k])
            return true;
    return false;
}

/* Whether a sample is not the program's (counted, not booked): inside an
 * exactly recorded call, one of capture's frames (a hook, an MPI wrapper,
 * the API) called from the program's code (a frame with a name, not capture's and
 * not a start-up frame, outside it); or in capture's own work, one of
 * capture's frames that no frame of the program's called (its start-up in
 * the main thread, the thread wrapper's own code, a thread of capture's
 * such as the control server's) — those are no time of the program's, and
 * booked they made call paths of capture's calls into libc ("__snprintf",
 * "__socket") on a sampled thread of the main thread.  capture's frames
 * below the program's pass through: a frame of capture's that calls code
 * neither capture's nor libc's, the loader's, libunwind's or a sanitizer
 * runtime's (the thread
 * wrapper calling the start routine, the start of main calling main).  The
 * ring route's stand-in for the handler's look at the shadow stack, which
 * no one can read at the sample's instant there. */
static VFTR_NI bool ring_exact(const struct smp_slot *sl)
{
    bool prog = false, own = false;

    for (uint32_t i = sl->n; i-- > 0;) {
        uintptr_t pc = i ? sl->pc[i] - 1 : sl->pc[i];

        if (in_capture(pc)) {
            uintptr_t in;

            if (prog)
                return true;   /* an exact call */
            /* capture's own work unless it passes through; decided by
             * the innermost such frame (capture's __libc_start_main calls
             * libc's, which calls capture's start of main, which calls
             * main) */
            in = i > 1 ? sl->pc[i - 1] - 1 : i ? sl->pc[0] : 0;
            own = i == 0 || in_capture(in) || in_system(in);
            continue;
        }
        if (!prog) {
            struct smp_fn *f = fn_of(pc);

            prog = f && f->fn && f->fn != &smp.unknown;
            if (prog && own)
                return true;   /* capture's own work calling libc */
        }
    }
    return own;
}

/* Whether book() finds a frame of sl to book (the same frames left out). */
static VFTR_NI bool has_path(const struct smp_slot *sl)
{
    for (uint32_t i = sl->n; i-- > 0;) {
        struct smp_fn *f = fn_of(i ? sl->pc[i] - 1 : sl->pc[i]);

        if (f && f->fn && f->fn != &smp.unknown)
            return true;
    }
    return false;
}

/* s's sampled thread of the trace, made at the first sample that is to be
 * booked with a call path (not at the first record: a thread whose samples all fell inside
 * exact calls, such as the main thread in capture's pthread_create wrapper,
 * is no sampled thread, neither in the trace nor in the log), its guard
 * taken for the rest of this drain; false when it cannot be had (no
 * memory, the process finishing): the drain's samples are dropped. */
static VFTR_NI bool out_ready(struct smp_thread *s)
{
    if (s->out_held)
        return true;
    if (s->out_refused)
        return false;
    if (s->out == NULL && (s->out = vftr_thread_new(false)) != NULL)
        s->out->tid = s->tid;
    if (s->out == NULL || !out_take(s->out)) {
        s->out_refused = true;
        return false;
    }
    s->out_held = true;
    return true;
}

static VFTR_NI void book_one(struct smp_thread *s, const struct smp_slot *sl, double tps)
{
    /* a sample with no frame to book makes no sampled thread (its time is
     * counted booked, as on a thread that has one) */
    if (s->out == NULL && !has_path(sl)) {
        smp.booked++;
        smp.booked_cpu += sl->cpu;
        return;
    }
    if (!out_ready(s))
        return;
    if (s->out->paused) {
        smp.paused++;
        smp.paused_cpu += sl->cpu;
        return;
    }
    /* named in the log once a call path of it is in the profile (the
     * log's label: the profile's Thread column) */
    if (book(s->out, sl, (uint64_t)((double)sl->cpu * 1e-9 * tps + 0.5)) && !s->named) {
        if (smp.nouts < sizeof smp.outs / sizeof smp.outs[0])
            smp.outs[smp.nouts] = (__typeof__(smp.outs[0])){ s->out->index, s->tid };
        smp.nouts++;
        s->named = true;
    }
    smp.booked++;
    smp.booked_cpu += sl->cpu;
}

/* Copies len bytes at offset off of s's kernel ring (wrapping) to dst. */
static VFTR_NI void ring_copy(const struct smp_thread *s, uint64_t off, void *dst, size_t len)
{
    const unsigned char *data = (const unsigned char *)s->ring + smp.page;
    size_t at = (size_t)(off & (s->ring_len - 1)), first = s->ring_len - at;

    if (first >= len) {
        memcpy(dst, data + at, len);
    } else {
        memcpy(dst, data + at, first);
        memcpy((unsigned char *)dst + first, data, len - first);
    }
}

/* The unwinding of a ring sample, or the previous one's outer frames again.
 * A thread in a loop is sampled again and again in the same function at
 * the same stack pointer with the same stack: when the stack and frame
 * pointers, the length of the copy and the function of the innermost
 * frame are the previous full unwinding's, and the bytes of the copy that
 * unwinding read (vftr_sample_unwind's span: the return addresses, the
 * saved registers, from the innermost frame's return address to the
 * outermost frame's) are the same, the outer frames are the same too, and
 * only the innermost pc is new.  Only those bytes are compared, not the
 * whole copy: the innermost frame's locals below its return address and
 * the stack above the outermost frame (the environment, the start-up
 * frames' data) change without changing the unwinding, and a comparison
 * of the few hundred bytes a shallow unwinding reads costs a fraction of
 * one of 8 KiB.  Any byte of the span changed makes it a full unwinding. */
static VFTR_NI uint32_t unwind_memo(struct smp_thread *s, const struct vftr_sample_regs *r,
                                    uintptr_t *pc)
{
    struct smp_memo *m = &s->memo;
    uintptr_t sp = vftr_sample_unwind_sp(r), bp = vftr_sample_unwind_bp(r);
    const struct smp_fn *leaf;
    size_t lo, hi;
    uint32_t n;

    pc[0] = vftr_sample_unwind_ip(r);
    leaf = fn_of(pc[0]);
    if (m->n > 1 && sp == m->sp && bp == m->bp && r->len == m->len && leaf && leaf == m->leaf
        && leaf->start != 1 && m->hi <= r->len
        && memcmp(r->stack + m->lo, m->stk, m->hi - m->lo) == 0) {
        memcpy(pc + 1, m->pc + 1, (m->n - 1) * sizeof *pc);
        smp.memo_hits++;
        return m->n;
    }
    n = vftr_sample_unwind(r, pc, SMP_DEPTH, &lo, &hi);
    m->n = 0;
    if (n > 1 && hi <= r->len && hi <= SMP_STACK_COPY) {
        if (m->stk == NULL)
            m->stk = malloc(SMP_STACK_COPY);
        if (m->stk) {
            m->sp = sp;
            m->bp = bp;
            m->len = r->len;
            m->lo = lo;
            m->hi = hi;
            m->leaf = leaf;
            memcpy(m->stk, r->stack + lo, hi - lo);
            memcpy(m->pc, pc, n * sizeof *pc);
            m->n = n;
        }
    }
    return n;
}

/* Turns one sample record of s's ring (rec, size bytes) into a sample:
 * the weight is the event's count since the previous record (the
 * thread's CPU time, as the handler's clock read), the stack unwound from
 * the copy.  Parsed as the attribute of open_ring asks: time, the count
 * (read_format 0), the user registers, the stack copy. */
static VFTR_NI void ring_sample(struct smp_thread *s, const uint64_t *rec, size_t size, double tps)
{
    const uint64_t *p = rec + 1, *endp = rec + size / 8;
    unsigned nregs = (unsigned)__builtin_popcountll(vftr_sample_unwind_regs_mask());
    struct smp_slot *sl = &smp.rslot;
    struct vftr_sample_regs r;
    uint64_t time, val, abi, len, cpu;

    if (endp - p < 3)
        return;
    time = *p++;
    val = *p++;
    abi = *p++;
    cpu = val > s->prev_val ? val - s->prev_val : 0;
    s->prev_val = val;
    cpu += s->ring_carry;
    s->ring_carry = 0;
    if (abi == PERF_SAMPLE_REGS_ABI_NONE || endp - p < (ptrdiff_t)nregs + 1) {
        s->ring_carry = cpu;   /* no user context: its time goes to the next */
        return;
    }
    r.regs = p;
    p += nregs;
    len = *p++;
    if (len > (uint64_t)(endp - p) * 8)
        len = 0;
    r.stack = (const unsigned char *)p;
    if (len > 0 && endp - p > (ptrdiff_t)(len / 8))
        len = len < p[len / 8] ? len : p[len / 8];   /* dyn_size: the bytes really copied */
    r.len = (size_t)len;
    r.stk_lo = s->stk_lo;
    r.stk_hi = s->stk_hi;
    sl->n = unwind_memo(s, &r, sl->pc);
    sl->cpu = cpu;
    sl->time = time < smp.mono0
                   ? smp.tick0 - (uint64_t)((double)(smp.mono0 - time) * smp.tick_per_ns)
                   : smp.tick0;
    if (ring_exact(sl)) {
        atomic_fetch_add_explicit(&s->exact, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->exact_cpu, cpu, memory_order_relaxed);
        return;
    }
    book_one(s, sl, tps);
}

/* Reads s's kernel ring up to its head. */
static VFTR_NI void drain_ring(struct smp_thread *s, double tps)
{
    struct perf_event_mmap_page *m = s->ring;
    uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = m->data_tail;

    if (head - tail > smp.fill_max)
        smp.fill_max = (size_t)(head - tail);
    while (head - tail >= sizeof(struct perf_event_header)) {
        struct perf_event_header h;

        ring_copy(s, tail, &h, sizeof h);
        if (h.size < sizeof h || h.size > head - tail) {
            tail = head;   /* cannot be: the ring is the kernel's */
            break;
        }
        if (h.size <= sizeof smp.rec && (h.size & 7) == 0) {
            size_t at = (size_t)(tail & (s->ring_len - 1));
            const uint64_t *rec = smp.rec;

            /* read in place unless the record wraps round the ring's end */
            if (at + h.size <= s->ring_len)
                rec = (const uint64_t *)((const unsigned char *)m + smp.page + at);
            else
                ring_copy(s, tail, smp.rec, h.size);
            if (h.type == PERF_RECORD_SAMPLE)
                ring_sample(s, rec, h.size, tps);
            else if (h.type == PERF_RECORD_LOST && h.size >= 24)
                smp.lost += rec[2];   /* their time: in the next count */
        }
        tail += h.size;
    }
    __atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
}

static VFTR_NI void drain(struct smp_thread *s, double tps)
{
    uint32_t h = atomic_load_explicit(&s->head, memory_order_acquire);
    uint32_t tl = atomic_load_explicit(&s->tail, memory_order_relaxed);

    if (s->discard) {
        if (s->ring)
            __atomic_store_n(&s->ring->data_tail,
                             __atomic_load_n(&s->ring->data_head, __ATOMIC_ACQUIRE),
                             __ATOMIC_RELEASE);
        atomic_store_explicit(&s->tail, h, memory_order_release);
        return;
    }
    if (s->ring ? __atomic_load_n(&s->ring->data_head, __ATOMIC_ACQUIRE) == s->ring->data_tail
                : h == tl)
        return;
    if (smp.symtab == NULL)
        smp.symtab = vftr_symtab_new(smp.symtab_flags);
    /* the guard of s->out is taken at the first sample to book (out_ready) */
    s->out_held = s->out_refused = false;
    if (s->ring)
        drain_ring(s, tps);
    for (; tl != h; tl++)
        book_one(s, &s->slot[tl & (SMP_SLOTS - 1)], tps);
    if (s->out_held)
        atomic_store_explicit(&s->out->guard, VFTR_GUARD_FREE, memory_order_release);
    s->out_held = false;
    atomic_store_explicit(&s->tail, h, memory_order_release);
}

/* The ring route's dither (see dither()): every SMP_RING_DITHER-th
 * collector round each thread's event gets a new period from
 * [interval/2, 3*interval/2), by PERF_EVENT_IOC_PERIOD from here, under
 * smp.lock (the thread closes its descriptor under it).  Not every round:
 * on another thread's running event the ioctl is a cross-CPU call, which
 * on a virtual machine costs tens of microseconds on both sides (about
 * 50 us of the collector's CPU time each, measured: a sixth of all its
 * time at 1 ms when it came every 128 ms); a period kept for a few hundred samples
 * (eight rounds: 256 at 1 ms) and then drawn anew still moves the samples'
 * phase against any repeating work, the draw being one of a million
 * periods, next to none of them a small fraction of a cycle's length. */
#define SMP_RING_DITHER 8u
static VFTR_NI void ring_dither(struct smp_thread *s)
{
    uint64_t x = smp.rng ? smp.rng : 0x9e3779b97f4a7c15u, p;

    if (s->ring == NULL || s->fd < 0 || atomic_load_explicit(&s->ended, memory_order_acquire)
        || ++s->nsig % SMP_RING_DITHER != 0)
        return;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    smp.rng = x;
    p = smp.period_ns / 2 + x % (smp.period_ns ? smp.period_ns : 1);
    (void)ioctl(s->fd, PERF_EVENT_IOC_PERIOD, &p);
}

/* Threads the pthread_create wrapper does not see (under ThreadSanitizer,
 * whose own pthread_create must start the new thread: preload/thread.c):
 * on the ring route the collector opens their events itself, a task-clock
 * event on another thread of the process being allowed as on one's own.
 * Every round it lists /proc/self/task: a thread not yet known (nor the
 * collector, nor one that was there before setup: the sanitizer's) gets
 * its event and ring; a found thread no longer listed has ended (its
 * event's last count is read, the rest as at vftr_sample_thread_end).
 * The CPU time a thread used before it was found is not sampled (one
 * round at most).  Under smp.lock. */
#ifdef VFTR_TSAN
#define SMP_DISCOVER true
#else
#define SMP_DISCOVER false
#endif
static VFTR_NI void discover(void)
{
    DIR *d;
    struct dirent *e;
    struct smp_thread *s;
    long ns = (long)smp.period_ns;

    if ((d = opendir("/proc/self/task")) == NULL)
        return;
    for (s = smp.list; s; s = s->next)
        s->seen = false;
    while ((e = readdir(d)) != NULL) {
        pid_t tid = (pid_t)atoi(e->d_name);
        /* the main thread registers itself (vftr_sample_setup), maybe
         * after the collector's first round */
        bool known = tid <= 0 || tid == smp.collector_tid || tid == vftr_proc.pid;

        for (unsigned i = 0; i < smp.nbefore && !known; i++)
            known = smp.before[i] == tid;
        for (s = smp.list; s && !known; s = s->next)
            if (s->tid == tid && !atomic_load_explicit(&s->ended, memory_order_relaxed)) {
                s->seen = true;
                known = true;
            }
        if (known || (s = calloc(1, sizeof *s)) == NULL)
            continue;
        s->tid = tid;
        s->fd = -1;
        s->found = s->seen = true;
        if (open_ring(s, ns, tid) < 0) {
            free(s);
            continue;
        }
        s->next = smp.list;
        smp.list = s;
        atomic_fetch_add(&smp.by_ring, 1);
        (void)ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
    }
    closedir(d);
    for (s = smp.list; s; s = s->next)
        if (s->found && !s->seen && !atomic_load_explicit(&s->ended, memory_order_relaxed)) {
            stop_source(s, true);
            atomic_store_explicit(&s->ended, 1, memory_order_release);
        }
}

/* The threads there at setup besides the caller (a sanitizer's own). */
static VFTR_NI void note_threads_before(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    pid_t self = (pid_t)syscall(SYS_gettid);

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        pid_t tid = (pid_t)atoi(e->d_name);

        if (tid > 0 && tid != self && smp.nbefore < sizeof smp.before / sizeof smp.before[0])
            smp.before[smp.nbefore++] = tid;
    }
    closedir(d);
}

static VFTR_NI void drain_all(void)
{
    double tps = vftr_clock_ticks_per_second(0);
    struct smp_thread **pp, *s;

    pthread_mutex_lock(&smp.lock);
    {   /* the ring's times (CLOCK_MONOTONIC) in vftr's clock, from here */
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        smp.tick0 = vftr_clock_now();
        smp.mono0 = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        smp.tick_per_ns = tps * 1e-9;
    }
    if (smp.want_ring)
        vftr_sample_unwind_refresh();
    if (smp.discover && atomic_load(&smp.on))
        discover();
    for (pp = &smp.list; (s = *pp) != NULL;) {
        bool ended = atomic_load_explicit(&s->ended, memory_order_acquire);
        uint64_t end_val;

        drain(s, tps);
        ring_dither(s);
        /* a stopped event: its count after the last record is counted */
        if (s->ring && (end_val = atomic_load(&s->end_val)) != 0) {
            atomic_store(&s->unsampled, s->ring_carry
                                            + (end_val > s->prev_val ? end_val - s->prev_val : 0));
        }
        if (ended) {   /* the thread is gone: nothing more comes */
            if (s->ring)
                munmap(s->ring, s->ring_len + smp.page);
            if (s->fd >= 0)   /* a found thread's, closed at its end by nobody else */
                close(s->fd);
            free(s->memo.stk);
            smp.full += atomic_load(&s->full);
            smp.exact += atomic_load(&s->exact);
            smp.exact_cpu += atomic_load(&s->exact_cpu);
            if (!s->discard)
                smp.unsampled += atomic_load(&s->unsampled);
            *pp = s->next;
            free(s);
            continue;
        }
        pp = &s->next;
    }
    pthread_mutex_unlock(&smp.lock);
}

/* The ring route's round, kept short enough for the rings: a round that
 * found a ring more than three quarters full, or records the kernel could
 * not store, means the collector came late (a loaded machine, the slow
 * collector of a sanitizer's build): the next round is half as long, down
 * to a quarter of the longest (8 intervals: room for a collector 52
 * intervals late).  While the rings are found less than half full it grows
 * back by an eighth a round, up to the longest.  A lost sample costs no
 * time (it goes to the next one) but coarsens the profile: what the margin
 * is for.  The signal route keeps its round (its slots are the handler's). */
static VFTR_NI void adapt_round(void)
{
    static uint64_t lost_seen;
    size_t len = SMP_RING_PAGES * smp.page;
    long least = smp.collect_ns / 4 > 1000000L ? smp.collect_ns / 4 : 1000000L;

    if (!smp.want_ring)
        return;
    if (smp.fill_max > len / 4 * 3 || smp.lost != lost_seen)
        smp.round_ns = smp.round_ns / 2 > least ? smp.round_ns / 2 : least;
    else if (smp.fill_max < len / 2 && smp.round_ns < smp.collect_ns)
        smp.round_ns = smp.round_ns + smp.round_ns / 8 < smp.collect_ns
                           ? smp.round_ns + smp.round_ns / 8 : smp.collect_ns;
    lost_seen = smp.lost;
    smp.fill_max = 0;
}

static VFTR_NI void *collector(void *arg)
{
    sigset_t block;

    (void)arg;
    /* the collector is capture's: never sampled, never interrupted by it,
     * and its file I/O (the trace, the symbol files) is never the program's */
    sigemptyset(&block);
    sigaddset(&block, SMP_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    smp.collector_tid = (pid_t)syscall(SYS_gettid);
    /* a sanitizer's pthread_create between the program and capture's hides
     * the start routine from the wrapper, which then registered this
     * thread: its event stopped at once, its few records dropped (the ring
     * route needs no signal, so blocking SIGPROF does not keep it out) */
    if (smp_tls != NULL) {
        struct smp_thread *me = smp_tls;

        atomic_fetch_sub(me->ring ? &smp.by_ring : me->fd >= 0 ? &smp.by_event : &smp.by_timer, 1);
        vftr_sample_thread_end();
        me->discard = true;   /* freed only by this thread, in drain_all */
    }
    vftr_io_mute++;
    /* the collector's round need not be punctual: with an eighth of it as
     * the timer's slack (4 ms at 1 ms, a tick at 250 Hz) the kernel may
     * wake it at an interrupt already due (a tick, a sampled thread's
     * event) instead of programming a timer of its own, one VM exit fewer
     * a round.  The rings have room for a round and some more (SMP_RING_PAGES). */
    (void)prctl(PR_SET_TIMERSLACK, (unsigned long)(smp.collect_ns / 8), 0, 0, 0);
    for (;;) {
        struct timespec until;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += smp.round_ns;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&smp.lock);
        while (!atomic_load(&smp.stop)
               && pthread_cond_timedwait(&smp.wake, &smp.lock, &until) == 0)
            ;   /* woken without stop: sleep on */
        pthread_mutex_unlock(&smp.lock);
        if (atomic_load(&smp.stop))
            break;
        drain_all();
        adapt_round();
    }
    smp.collector_cpu = thread_cpu_ns();
    return NULL;
}

/* ---------------------------------------------------------- setup */

static VFTR_NI int find_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0, self = (uintptr_t)arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];

        if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
            continue;
        if (info->dlpi_addr + p->p_vaddr < lo)
            lo = info->dlpi_addr + p->p_vaddr;
        if (info->dlpi_addr + p->p_vaddr + p->p_memsz > hi)
            hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
    }
    if (lo >= hi)
        return 0;
    if (self >= lo && self < hi) {
        smp.self_lo = lo;
        smp.self_hi = hi;
    }
    base = base ? base + 1 : name;
    if (strncmp(base, "libvftrcapture", 14) == 0 && smp.ncap < sizeof smp.cap_lo / sizeof smp.cap_lo[0]) {
        smp.cap_lo[smp.ncap] = lo;
        smp.cap_hi[smp.ncap++] = hi;
    }
    if ((strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "libc.so", 7) == 0
         || strncmp(base, "libunwind", 9) == 0)
        && smp.nno_unw < sizeof smp.no_unw_lo / sizeof smp.no_unw_lo[0]) {
        smp.no_unw_lo[smp.nno_unw] = lo;
        smp.no_unw_hi[smp.nno_unw++] = hi;
    }
    if ((strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "libc.so", 7) == 0
         || strncmp(base, "libunwind", 9) == 0 || strncmp(base, "libtsan", 7) == 0
         || strncmp(base, "libasan", 7) == 0 || strncmp(base, "libubsan", 8) == 0)
        && smp.nsys < sizeof smp.sys_lo / sizeof smp.sys_lo[0]) {
        smp.sys_lo[smp.nsys] = lo;
        smp.sys_hi[smp.nsys++] = hi;
    }
    return 0;
}

VFTR_NI int vftr_sample_setup(const struct vftr_config *cfg)
{
    struct sigaction sa;
    int rc;

    if (cfg->sample_interval <= 0 || atomic_load(&smp.on))
        return 0;
    smp.interval = cfg->sample_interval;
    smp.task_clock = cfg->sample_task_clock;
    smp.period_ns = (uint64_t)(smp.interval * 1e9 + 0.5);
    smp.want_ring = cfg->sample_ring && cfg->sample_task_clock;
    smp.collect_ns = SMP_PERIOD_NS;
    smp.page = (size_t)sysconf(_SC_PAGESIZE);
    if (smp.want_ring) {
        /* the kernel's rings hold about SMP_RING_BATCH * 2 samples: the
         * collector comes by every SMP_RING_BATCH intervals (1 to 50 ms) */
        uint64_t ns = SMP_RING_BATCH * smp.period_ns;

        smp.collect_ns = ns < 1000000u ? 1000000L : ns > SMP_PERIOD_NS ? SMP_PERIOD_NS : (long)ns;
        if ((rc = vftr_sample_unwind_init()) != 0)
            atomic_store(&smp.no_ring, rc);
        /* under TSan the wrapper gives new threads nothing: the collector
         * finds them (discover) */
        if (SMP_DISCOVER && rc == 0) {
            smp.discover = true;
            note_threads_before();
        }
    }
    smp.round_ns = smp.collect_ns;
    dl_iterate_phdr(find_ranges, (void *)(uintptr_t)&vftr_sample_setup);
    smp.symtab_flags = (cfg->demangle_cxx ? VFTR_SYMTAB_DEMANGLE : 0)
                       | (cfg->strip_module_names ? VFTR_SYMTAB_FORTRAN_MODULES : 0);
    smp.unknown.addr = 1;
    smp.unknown.name = "[no symbol]";
    smp.unknown.id = atomic_fetch_add(&vftr_proc.next_fn_id, 1);
    smp.unknown.flags = VFTR_FN_SAMPLED | VFTR_FN_UNRESOLVED;
    (void)unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SMP_SIGNAL, &sa, &smp.old) != 0) {
        rc = -errno;
        vftr_msg("sample.interval: cannot install the SIGPROF handler (%s); no sampling",
                 strerror(-rc));
        return rc;
    }
    atomic_store(&smp.on, true);
    rc = pthread_create(&smp.collector, NULL, collector, NULL);
    if (rc != 0) {
        atomic_store(&smp.on, false);
        sigaction(SMP_SIGNAL, &smp.old, NULL);
        vftr_msg("sample.interval: cannot start the collector thread (%s); no sampling",
                 strerror(rc));
        return -rc;
    }
    smp.collector_running = true;
    vftr_sample_thread_begin();
    return 0;
}

VFTR_NI void *vftr_sample_collector_fn(void)
{
    return (void *)(uintptr_t)collector;
}

static void *(*_Atomic smp_own[4])(void *);

VFTR_NI void vftr_sample_own_thread(void *(*start)(void *))
{
    for (size_t i = 0; i < sizeof smp_own / sizeof smp_own[0]; i++) {
        void *(*none)(void *) = NULL;

        if (atomic_load(&smp_own[i]) == start
            || atomic_compare_exchange_strong(&smp_own[i], &none, start))
            return;
    }
}

VFTR_NI bool vftr_sample_is_own_thread(void *(*start)(void *))
{
    if (start == collector)
        return true;
    for (size_t i = 0; i < sizeof smp_own / sizeof smp_own[0]; i++)
        if (atomic_load(&smp_own[i]) == start)
            return true;
    return false;
}

VFTR_NI void vftr_sample_finalize(void)
{
    struct smp_thread *s;

    if (!atomic_exchange(&smp.on, false))
        return;
    if (getpid() != vftr_proc.pid)
        return;   /* a forked child: no collector, no timers of its own */
    /* the calling thread as at its end: its CPU time after its last sample
     * is counted */
    vftr_sample_thread_end();
    /* no source fires any more; a signal already pending finds the other
     * threads' rings still there (they are freed only at the end, never:
     * the process ends) */
    pthread_mutex_lock(&smp.lock);
    for (s = smp.list; s; s = s->next)
        stop_source(s, false);
    pthread_mutex_unlock(&smp.lock);
    if (smp.collector_running) {
        pthread_mutex_lock(&smp.lock);
        atomic_store(&smp.stop, true);
        pthread_cond_signal(&smp.wake);
        pthread_mutex_unlock(&smp.lock);
        pthread_join(smp.collector, NULL);
        smp.collector_running = false;
    }
    drain_all();
}

VFTR_NI void vftr_sample_own_begin(void)
{
    smp_own_depth = smp_own_depth + 1;
    atomic_signal_fence(memory_order_seq_cst);
}

VFTR_NI void vftr_sample_own_end(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    if (smp_own_depth > 0)
        smp_own_depth = smp_own_depth - 1;
}

VFTR_NI void vftr_sample_quiet_begin(void)
{
    pthread_mutex_lock(&smp.lock);
}

VFTR_NI void vftr_sample_quiet_end(void)
{
    pthread_mutex_unlock(&smp.lock);
}

VFTR_NI bool vftr_sample_active(void)
{
    return smp.interval > 0;
}

VFTR_NI int vftr_sample_log(FILE *f)
{
    uint64_t full = smp.full, exact = smp.exact, exact_cpu = smp.exact_cpu;
    uint64_t unsampled = smp.unsampled;
    uint32_t by_event = atomic_load(&smp.by_event), by_timer = atomic_load(&smp.by_timer);
    uint32_t by_ring = atomic_load(&smp.by_ring);
    int refused = atomic_load(&smp.no_task_clock);
    int no_ring = atomic_load(&smp.no_ring), no_ring_here = atomic_load(&smp.no_ring_here);
    struct smp_thread *s;

    pthread_mutex_lock(&smp.lock);
    for (s = smp.list; s; s = s->next) {
        full += atomic_load(&s->full);
        exact += atomic_load(&s->exact);
        exact_cpu += atomic_load(&s->exact_cpu);
        unsampled += atomic_load(&s->unsampled);
    }
    pthread_mutex_unlock(&smp.lock);
    fprintf(f, "\nStatistical call-stack samples (sample.interval)\n"
               "  interval:           %g s of each thread's CPU time\n"
               "  source:             ",
            smp.interval);
    if (by_ring)
        fprintf(f, "task-clock event, kernel ring (perf_event_open, no signal; stacks "
                   "unwound by the collector) in %u thread%s%s", by_ring,
                by_ring == 1 ? "" : "s", by_event || by_timer ? "; " : "");
    if (by_event) {
        fprintf(f, "task-clock event, signal (perf_event_open) in %u thread%s", by_event,
                by_event == 1 ? "" : "s");
        if (!smp.want_ring)
            fputs(" (sample.ring is false)", f);
        else if (no_ring || no_ring_here)
            fprintf(f, " (the ring: %s)", strerror(-(no_ring ? no_ring : no_ring_here)));
        fputs(by_timer ? "; " : "", f);
    }
    if (by_timer)
        fprintf(f, "CPU-time timer (checked at the kernel's tick) in %u thread%s", by_timer,
                by_timer == 1 ? "" : "s");
    if (!by_event && !by_timer && !by_ring)
        fputs("none", f);
    if (by_timer && !smp.task_clock)
        fputs(" (sample.task_clock is false)", f);
    else if (by_timer && refused)
        fprintf(f, " (perf_event_open: %s)", strerror(-refused));
    fputs("\n  sampled threads:   ", f);
    for (uint32_t i = 0; i < smp.nouts && i < sizeof smp.outs / sizeof smp.outs[0]; i++)
        fprintf(f, "%s %u (tid %ld)", i ? "," : "", smp.outs[i].index, (long)smp.outs[i].tid);
    if (smp.nouts > sizeof smp.outs / sizeof smp.outs[0])
        fprintf(f, " and %u more", smp.nouts - (uint32_t)(sizeof smp.outs / sizeof smp.outs[0]));
    fprintf(f, "%s\n"
               "                      (the profile's Thread column: their call paths are\n"
               "                      statistical, Calls are samples, times the CPU time\n"
               "                      each sample weighs: the thread's since its previous one)\n"
               "  booked:             %llu samples, %.6f s\n"
               "  in exact calls:     %llu samples, %.6f s (hooks, MPI calls: recorded exactly;\n"
               "                      capture's own work)\n"
               "  ring full:          %llu samples (their time went to the next sample)\n"
               "  lost by the kernel: %llu samples (ring route; their time as above)\n"
               "  outer frames kept:  %llu samples (ring route: the previous unwinding's)\n"
               "  paused:             %llu samples, %.6f s\n"
               "  after last sample:  %.6f s (no sample to weigh it)\n"
               "  collector thread:   %.6f s of CPU time (reading, unwinding, booking)\n",
            smp.nouts ? "" : " none", (unsigned long long)smp.booked, 1e-9 * (double)smp.booked_cpu,
            (unsigned long long)exact, 1e-9 * (double)exact_cpu, (unsigned long long)full,
            (unsigned long long)smp.lost, (unsigned long long)smp.memo_hits,
            (unsigned long long)smp.paused, 1e-9 * (double)smp.paused_cpu, 1e-9 * (double)unsampled,
            1e-9 * (double)smp.collector_cpu);
    return ferror(f) ? -EIO : 0;
}
