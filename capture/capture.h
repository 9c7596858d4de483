/*
 * capture.h — internal state of libvftrcapture (not installed).
 *
 * The capture runtime keeps all of its process state in one struct
 * (struct vftr_process, the single global `vftr_proc`) and all of a thread's
 * state in one struct vftr_thread reached through one initial-exec TLS
 * pointer (`vftr_tls`).  The hot path (capture/hooks.c) touches only the
 * thread struct, the current call-path node and the global phase word.
 *
 * Data structures and their rules
 *
 *   struct vftr_fn      one per function address (or user region), process
 *                       wide, created under proc.fn_lock, never freed.  The
 *                       filter decision (excluded / precise) is taken once,
 *                       when the record is created.
 *   struct vftr_node    one call path of one thread: (function, parent node).
 *                       Only the owning thread creates and mutates its nodes;
 *                       nodes never move and are never freed (the finalizer
 *                       and the signal handler read them).  A node is active
 *                       at most once at a time in its thread (recursion makes
 *                       a new node per depth), so the time of entry lives in
 *                       the node and the shadow call stack is the chain of
 *                       parents from thread->cur up to thread->root.
 *                       OpenMP regions are nodes too (VFTR_FN_OMP, made by
 *                       ompt.c: vftr_omp_enter / vftr_omp_leave), on the
 *                       same stack as the functions, as the trace's readers
 *                       put them (lib/model/vfdconv.c); their events are the
 *                       OMP_BEGIN / OMP_END records, never ENTER / EXIT, and
 *                       they are no call paths of the trace (CALLPATHS): a
 *                       call path's parent there is its nearest ancestor
 *                       that is a function (vftr_node_trace_parent).
 *   struct vftr_thread  one per thread that ever called a hook, registered in
 *                       proc.threads (under proc.threads_lock, slow path only),
 *                       never freed.  thread->guard is the recursion guard and
 *                       also tells the finalizer and the signal handler that
 *                       the thread is inside a hook (see signals.c), and a
 *                       control event that it has lent the thread's state.
 *
 * Recording state (phase.c).  Pausing and resuming, and the control events
 * that stop and start the trace, are switches of the whole process; the
 * hooks never stop moving the shadow stack, whatever the phase (only a
 * stopped capture, finalized or off, leaves it alone).  Each switch is
 * appended to a process-wide log with its time, and each thread applies
 * the switches it has not seen yet at its next hook (or when the
 * finalizer, a control event or the signal handler reaches it) at the
 * switch's time: a pause ends the thread's open frames there in the trace
 * and in the profile, a resume enters them again.  The phase word carries
 * the number of switches, so a thread notices one by the same compare
 * that selects the hooks' fast path (vftr_thread.fast_key).
 *
 * Times are clock ticks (clock.c); ids: call path 0 is the (virtual) root of
 * every thread, real call paths get ids from one atomic counter starting at
 * 1, function ids likewise; thread 0 is the first thread that called a hook
 * (normally the main thread), others count up in the order of their first
 * hook.
 *
 * Every function in capture/ carries VFTR_NI (no_instrument_function) and
 * capture is never compiled with -finstrument-functions.
 */
#ifndef VFTR_CAPTURE_H
#define VFTR_CAPTURE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "counters.h"
#include "logfile.h"
#include "vfd/vftr_vfd.h"

struct vftr_ext_mpi_row;

#define VFTR_NI __attribute__((no_instrument_function))
#define VFTR_EXPORT __attribute__((visibility("default")))
/* data of the library's own: addressed directly, not through the GOT */
#define VFTR_HIDDEN __attribute__((visibility("hidden")))
#define VFTR_LIKELY(x) __builtin_expect(!!(x), 1)
#define VFTR_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* VFTR_TSAN: built with ThreadSanitizer (gcc says so by a macro, clang by
 * a feature) */
#if defined(__SANITIZE_THREAD__)
#define VFTR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VFTR_TSAN 1
#endif
#endif

/* ---------------------------------------------------------------- clock */

enum vftr_clock_kind { VFTR_CLK_TSC, VFTR_CLK_MONOTONIC, VFTR_CLK_TEST };

/* The clock source of the process: chosen once at initialization. */
extern enum vftr_clock_kind vftr_clock_kind VFTR_HIDDEN;
extern uint64_t (*vftr_clock_test_fn)(void *arg);
extern void *vftr_clock_test_arg;

uint64_t vftr_clock_monotonic_ns(void) VFTR_NI;   /* CLOCK_MONOTONIC in ns */
uint64_t vftr_clock_realtime_ns(void) VFTR_NI;    /* CLOCK_REALTIME in ns */

/* The time-stamp counter: only where the clock chosen is the TSC (the
 * hooks' fast path, which the phase word's compare admits only then). */
static inline VFTR_NI uint64_t vftr_clock_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return vftr_clock_monotonic_ns();
#endif
}

static inline VFTR_NI uint64_t vftr_clock_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (VFTR_LIKELY(vftr_clock_kind == VFTR_CLK_TSC))
        return __builtin_ia32_rdtsc();
#endif
    if (vftr_clock_kind == VFTR_CLK_TEST)
        return vftr_clock_test_fn(vftr_clock_test_arg);
    return vftr_clock_monotonic_ns();
}

/*
 * Chooses the clock: want "tsc" (use the TSC if it is invariant, else fall
 * back to CLOCK_MONOTONIC), "monotonic", or NULL (same as "tsc").  Records
 * the reference points for vftr_clock_ticks_per_second().  Returns the kind
 * chosen.  Not thread-safe: called once by initialization.
 */
enum vftr_clock_kind vftr_clock_init(const char *want) VFTR_NI;

/* True when cpuid says the TSC runs at a constant rate in all states. */
bool vftr_clock_tsc_invariant(void) VFTR_NI;

/*
 * Ticks per second of the clock in use.  For the TSC it is measured against
 * CLOCK_MONOTONIC between vftr_clock_init() and now (at least wait_ms
 * milliseconds apart: the call waits for the rest when the run was shorter,
 * unless wait_ms is 0).  Async-signal-safe when wait_ms is 0.
 */
double vftr_clock_ticks_per_second(unsigned wait_ms) VFTR_NI;

/*
 * Internal test hook (not exported from the shared library): make
 * vftr_clock_now() return fn(arg); ticks per second becomes tps.  fn NULL
 * returns to the clock vftr_clock_init() chose.
 */
void vftr_clock_set_test_source(uint64_t (*fn)(void *arg), void *arg, double tps) VFTR_NI;

/* ------------------------------------------------------------ functions */

enum {
    VFTR_FN_EXCLUDED = 1u << 0,   /* filtered out: neither profiled nor traced */
    VFTR_FN_PRECISE = 1u << 1,    /* matches sampling.precise_functions */
    VFTR_FN_REGION = 1u << 2,     /* a user region (vftr_region_begin) */
    VFTR_FN_UNRESOLVED = 1u << 3, /* no symbol: named by its address */
    VFTR_FN_MPI = 1u << 4,        /* an MPI function (a region entered by the MPI wrappers) */
    VFTR_FN_OMP = 1u << 5,        /* an OpenMP region (with VFTR_FN_REGION; vftr_fn_omp) */
    /* nodes only (filter.c): throttled, no longer traced; throttled at
     * the node's next event */
    VFTR_FN_THROTTLED = 1u << 6,
    VFTR_FN_THROTTLE_PENDING = 1u << 7,
    VFTR_FN_UNTHROTTLE_AT_EXIT = 1u << 8,   /* throttled, traced again after its exit */
    VFTR_FN_SAMPLED = 1u << 9,    /* a frame of statistical samples (sample.c): its own
                                   * record, never in the function table */
};

struct vftr_fn {
    uintptr_t addr;               /* key; regions: address of this record */
    const char *name;             /* never NULL; see callpath.c for who owns it */
    uint32_t id;                  /* from 1 */
    uint32_t flags;               /* VFTR_FN_* */
    _Atomic uint32_t defined;     /* written to the trace: 0 no, 1 claimed, 2 yes */
    struct vftr_fn *hash_next;    /* bucket chain of proc.fn_table */
    struct vftr_fn *all_next;     /* every record, newest first (proc.fn_all) */
};

/* ---------------------------------------------------------- call paths */

struct vftr_node {
    /* hot: touched on every enter and exit */
    uintptr_t addr;               /* function address (0 for the root) */
    struct vftr_node *last_child; /* cache of the last child entered, never NULL:
                                   * vftr_node_none when there is none */
    struct vftr_node *parent;     /* NULL for the root */
    uint64_t t_enter;             /* tick of the current activation */
    uint64_t calls;
    uint64_t time_incl;           /* ticks, summed over finished activations */
    uint32_t id;                  /* global call path id, 0 for the root and markers */
    uint32_t enc;                 /* the ENTER tag as written (vftr_node_enc), 0: none */
    struct vftr_node *succ;       /* the sibling entered after this one last time,
                                   * never NULL: vftr_node_none when there is none */
    /* cold */
    uint32_t flags;               /* VFTR_FN_PRECISE / _EXCLUDED / _OMP copied from fn */
    uint32_t region;              /* OpenMP nodes: the OMP_REGIONS id of the current
                                   * activation (the one an OMP_END names) */
    struct vftr_fn *fn;           /* NULL for the root */
    struct vftr_node **kids;      /* open-addressing table keyed by addr */
    uint32_t nkids, kid_cap;      /* kid_cap is 0 or a power of two */
    uint32_t depth;               /* root 0 */
    uint32_t idx;                 /* index in the thread's node blocks */
    uint64_t thr_calls, thr_time; /* calls and time_incl when throttling last started
                                   * over for the node (vftr-ctl unthrottle; filter.c) */
    /* filter.min_duration (filter.c): where the current activation's ENTER
     * went in the thread's buffer, to take it back if the call was short */
    uint64_t md_time;             /* thread's last_time before it */
    uint32_t md_gen;              /* thread's flush_gen + 1 then (low bits), 0: none */
    uint32_t md_ph;               /* thread's ph_seen then (low bits) */
    uint32_t md_pos, md_count;    /* bytes and events in the buffer before it */
};

/* What last_child and succ point to when they name no node, so that the
 * hooks' look-up needs no test for NULL: an address no function has, and
 * itself as its successor.  Never written. */
extern struct vftr_node vftr_node_none VFTR_HIDDEN;
#define VFTR_NODE_NONE_ADDR ((uintptr_t)1)

/* Nodes of a thread live in blocks that never move (see vftr_node_at). */
#define VFTR_NODE_BLOCK 256

struct vftr_node_block {
    struct vftr_node nodes[VFTR_NODE_BLOCK];
    struct vftr_node_block *next;
};

/* ------------------------------------------------------------- threads */

struct vftr_phase_chunk;

/*
 * The skip cache: addresses of functions the filters exclude (everywhere:
 * exclusion is a property of the function), as the hooks met them.  The
 * hooks look here before anything else, the thread's state included, and
 * return on a hit: one probe of a process-wide table, no TLS access
 * (hooks.c).  A slot is 16 bytes, the alignment compilers give functions,
 * so that the slot's byte offset is the address's bits 4 to 12 as they
 * are: an and, no shift.  Any thread writes (callpath.c: skip_remember),
 * any reads, relaxed (a slot is one word; a lost update costs a slow-path
 * call, which writes it again); 0: empty.  Code that is unmapped leaves
 * the cache (vftr_fn_forget).
 */
#define VFTR_SKIP_SLOTS 512u
struct vftr_skip_slot {
    _Atomic uintptr_t fn;
    /* failed attempts of the enter [0] and exit [1] hook to patch out the
     * call they came from (patch.c); at VFTR_PATCH_TRIES the hooks stop
     * trying.  Set to vftr_patch_tries_init when fn is stored. */
    _Atomic uint32_t tries[2];
};
extern struct vftr_skip_slot vftr_skip[VFTR_SKIP_SLOTS] VFTR_HIDDEN;

/* The slot of function address fn. */
static inline VFTR_NI struct vftr_skip_slot *vftr_skip_slot(uintptr_t fn)
{
    return (struct vftr_skip_slot *)((char *)vftr_skip
                                     + (fn & ((VFTR_SKIP_SLOTS - 1u) << 4)));
}

/* ------------------------------------------------------------ patch.c
 *
 * Runtime patching of the hook calls of excluded functions
 * (filter.patch_excluded): a hook that finds its function in the skip
 * cache, with fewer than VFTR_PATCH_TRIES failed tries in the slot, calls
 * vftr_patch_site with its return address; when the instruction before it
 * is exactly a call of that hook, it becomes a short jump over the call
 * (x86-64; see patch.c for the conditions and why it is safe with other
 * threads running).  Patched sites are kept with their original bytes. */
#define VFTR_PATCH_TRIES 4u
extern _Atomic uint32_t vftr_patch_tries_init VFTR_HIDDEN;  /* 0, or VFTR_PATCH_TRIES: off */

/* Switches patching on (on: filter.patch_excluded) where the architecture
 * allows; returns whether it is on.  Once, at initialization. */
bool vftr_patch_setup(bool on) VFTR_NI;

/* The slow path of a hook (kind 0: enter, 1: exit) whose function fn is in
 * skip slot slot, returned to at ret: patches the call before ret, or
 * counts a failed try in slot->tries[kind].  Any thread, any context
 * (a signal handler: it never waits for the lock, never allocates with
 * malloc). */
/* Grows the mmap'd array *p of *cap elements of size sz (n in use) to hold
 * one more; false when no memory.  patch.c and sled.c keep their tables so,
 * out of malloc's way (a hook may run inside malloc). */
bool vftr_mmap_grow(void **p, size_t *cap, size_t n, size_t sz) VFTR_NI;

void vftr_patch_site(struct vftr_skip_slot *slot, uintptr_t fn, uintptr_t ret, int kind) VFTR_NI;

/* The extent [fn, end) of the excluded function fn, from its symbol
 * (hooks.c: classify), so that the exit hook reached by a jump (a tail
 * call, which leaves no return address in fn) can find its jumps in fn's
 * body.  Any thread; dropped when the lock is busy. */
void vftr_patch_note(uintptr_t fn, uintptr_t end) VFTR_NI;

/* The patched sites in [lo, hi) are forgotten (the code was unmapped:
 * dl.c), without writing. */
void vftr_patch_forget(uintptr_t lo, uintptr_t hi) VFTR_NI;

/* The patched sites in [lo, hi) get their original bytes back (where the
 * code still holds the patch) and are forgotten; their functions' slots
 * may try again.  For a filter that changes while the program runs.
 * Returns the number of sites restored. */
size_t vftr_patch_restore(uintptr_t lo, uintptr_t hi) VFTR_NI;

/* The length of the x86-64 instruction at p (max bytes readable), 0 when
 * the patcher's decoder does not know it (for tests: test/capture/insnlen). */
size_t vftr_patch_insn_len(const uint8_t *p, size_t max) VFTR_NI;

/* Sites patched so far, failed tries, and whether patching is on. */
void vftr_patch_stats(uint64_t *patched, uint64_t *failed, bool *on) VFTR_NI;

/*
 * Throttled functions of a -finstrument-functions build (filter.patch_excluded
 * on, no sleds): throttling's mark (filter.c) registers fn; the next enter
 * hook of a throttled call path of fn asks vftr_patch_throttled_enter with
 * its return address, which redirects that call site to fn's counting stub
 * (vftr_stub_near; throttle.count = false: jumps over it), and answers
 * whether fn's enter calls are redirected: then the hook pushes no frame
 * for it (fn is no frame of the stack, as an excluded function is not).
 * An exit hook of fn that finds fn is not the current frame asks
 * vftr_patch_throttled_exit, which jumps over that exit call once fn's
 * enter is redirected.  Failed tries are counted per function and kind
 * (VFTR_PATCH_TRIES).  Any thread, any context (trylock only).
 */
void vftr_patch_throttle(uintptr_t fn) VFTR_NI;
bool vftr_patch_throttled_enter(uintptr_t fn, uintptr_t ret) VFTR_NI;
void vftr_patch_throttled_exit(uintptr_t fn, uintptr_t ret) VFTR_NI;
/* Whether fn's enter calls are redirected now (hooks.c: a frame of it is
 * one left from before the switch). */
bool vftr_patch_redirected(uintptr_t fn) VFTR_NI;

/* vftr-ctl unthrottle: the throttled functions' sites get their original
 * bytes back, the functions are registered anew when throttled again;
 * the sites restored. */
size_t vftr_patch_unthrottle_all(void) VFTR_NI;

/* The hook call sites of throttled functions patched so far, and the
 * functions whose enter calls are redirected now. */
void vftr_patch_throttle_stats(uint64_t *sites, uint32_t *functions) VFTR_NI;

/* The hooks' code (hooks.c: hidden aliases of __cyg_profile_func_*), which
 * the patcher accepts as a call's target besides the exported symbols. */
void vftr_hook_enter_code(void *fn, void *site) VFTR_NI;
void vftr_hook_exit_code(void *fn, void *site) VFTR_NI;

/* Whether fn is in the skip cache. */
static inline VFTR_NI bool vftr_skipped(uintptr_t fn)
{
    return atomic_load_explicit(&vftr_skip_slot(fn)->fn, memory_order_relaxed) == fn;
}

/* Functions whose -fpatchable-function-entry sleds, or whose hook call
 * sites (patch.c), may be switched to a counting stub (sled.c): each has a
 * counter in every thread's state. */
#define VFTR_SLED_STUBS 256u

struct vftr_thread {
    /* hot: one cache line, what the hooks' fast path touches.  The event
     * buffer is the EVENTS chunk being built: VFTR_VFD_CHUNK_HEADER_SIZE
     * bytes left free for its header, then the events already encoded
     * (lib/vfd's vftr_vfd_put_event), so a flush only fills in the header
     * and writes the buffer as it is. */
    _Atomic int guard;            /* VFTR_GUARD_* */
    bool trace;                   /* events are being recorded (a buffer, the trace
                                   * on, neither paused nor stopped by control) */
    uint32_t count;               /* events in the buffer */
    uint32_t deep;                /* open calls below filter.max_depth (hooks.c): while
                                   * not 0, fast_key is VFTR_KEY_NONE and the hooks
                                   * only count them */
    struct vftr_node *cur;        /* current call path */
    _Atomic(uint8_t *) pos;       /* end of the events in buf (release-published):
                                   * buf + VFTR_VFD_CHUNK_HEADER_SIZE when empty */
    uint8_t *fast_end;            /* the hooks' fast path appends while pos < fast_end;
                                   * NULL while the buffer is empty or sampling is on */
    uint64_t last_time;           /* time of the previous event: the delta base */
    uint64_t fast_key;            /* the phase word with which the hooks take the fast
                                   * path: the thread is up to date with the switches,
                                   * capture runs and the clock is the TSC
                                   * (VFTR_KEY_NONE: never) */
    uint8_t *buf;                 /* chunk buffer (NULL: no trace) */

    size_t room;                  /* flush before an event when used > room */
    uint64_t interval;            /* sampling interval in ticks, 0: all */
    uint64_t last_written;        /* tick of the last event written */

    /* recording state (phase.c), the thread's own: changed only with its
     * guard held (by the thread, or by whoever borrowed it) */
    bool paused;                  /* a pause applied, its resume not: nothing counted */
    bool stopped;                 /* the trace stopped by control (vftr-ctl stop) */
    uint64_t ph_seen;             /* switches of the process log applied */
    _Atomic uint64_t ph_done;     /* ph_seen as published to the log's reclaimer */
    struct vftr_phase_chunk *ph_chunk;   /* the log chunk of switch number ph_seen */
    uint64_t ph_time;             /* the time the last switch took effect here */
    void *omp;                    /* ompt.c's state of the thread (NULL: none) */
    struct vftr_ctr *ctr;         /* counters.c's state of the thread (NULL: none; the
                                   * hooks' fast path is then never taken) */

    /* cold */
    uint32_t index;               /* thread id in the trace */
    pid_t tid;                    /* OS thread id */
    uint64_t created;             /* tick of the first hook */
    bool finished;                /* thread exited (key destructor ran) */
    bool defined;                 /* THREADS entry written */
    struct vftr_node root;
    struct vftr_node_block *blocks, *last_block;
    _Atomic uint32_t nnodes;      /* nodes allocated (release-published) */
    uint32_t ndefined;            /* nodes [0, ndefined) are in the trace */
    bool flushing;                /* inside vftr_trace_flush_thread */
    uint64_t events_lost;         /* dropped (trace off or cap) */
    uint64_t thr_gen;             /* vftr-ctl unthrottles applied (filter.c) */
    uint64_t min_ticks;           /* filter.min_duration in ticks, 0: off */
    uint64_t flush_gen;           /* buffers flushed (trace.c) */
    uint64_t first_time;          /* time of the buffer's first event */
    size_t buf_cap;               /* bytes of buf */
    uint8_t *defs;                /* encoding buffer for definition chunks */
    size_t defs_cap;
    struct vftr_thread *next;     /* proc.threads, newest first */
    /* region cache of api.c: name pointer -> function record */
    struct { const char *name; struct vftr_fn *fn; } regions[32];
    /* calls of throttled functions counted by their sleds' stubs (sled.c:
     * written by the thread's own stub code, read by vftr_sled_fold), and
     * how many of them the profile has */
    uint64_t sled_count[VFTR_SLED_STUBS];
    uint64_t sled_folded[VFTR_SLED_STUBS];
};

/* A fast_key no phase word equals. */
#define VFTR_KEY_NONE UINT64_MAX

/* Values of vftr_thread.guard.  A hook returns at once when it finds
 * IN_HOOK (recursion) or DONE (the thread is finished), and waits while it
 * is LENT (a control event works on the thread's state, the world held:
 * ctl.c); the finalizer and the signal handler wait (bounded) while it is
 * IN_HOOK and may read a thread whose guard is FREE or DONE
 * (release/acquire).  ATTACH is the guard of vftr_thread_unattached only
 * (below): the hook attaches the thread. */
enum { VFTR_GUARD_FREE = 0, VFTR_GUARD_IN_HOOK = 1, VFTR_GUARD_DONE = 2, VFTR_GUARD_LENT = 3,
       VFTR_GUARD_ATTACH = 4 };

/* Payload bytes of events in t's buffer (t->buf != NULL). */
static inline VFTR_NI size_t vftr_trace_used(struct vftr_thread *t)
{
    return (size_t)(atomic_load_explicit(&t->pos, memory_order_acquire) - t->buf)
           - VFTR_VFD_CHUNK_HEADER_SIZE;
}

/*
 * The ENTER tag of call path id as the hooks write it: its LEB128 bytes in
 * the low three bytes (the first lowest) and their number in the high byte.
 * The EXIT tag is the same with bit 0 set (the kind is in the tag's two low
 * bits).  0 when the id is 0 or its tag needs more than three bytes
 * (id >= 2^19): the hooks' fast path then leaves the event to the general
 * one.
 */
static inline VFTR_NI uint32_t vftr_node_enc(uint32_t id)
{
    uint32_t tag = id << 2 | (VFTR_VFD_ENTER - VFTR_VFD_ENTER);

    if (id == 0 || id >= (1u << 19))
        return 0;
    if (tag < 0x80)
        return 1u << 24 | tag;
    if (tag < 0x4000)
        return 2u << 24 | (tag & 0x7f) | 0x80 | (tag >> 7) << 8;
    return 3u << 24 | (tag & 0x7f) | 0x80 | ((tag >> 7 & 0x7f) | 0x80) << 8 | (tag >> 14) << 16;
}

/* The calling thread's state; NULL before its first hook.  Set it with
 * vftr_tls_set only. */
extern __thread struct vftr_thread *vftr_tls __attribute__((tls_model("initial-exec")));

/* The compiler hooks' copy of vftr_tls: the same state, or, where vftr_tls
 * is NULL, vftr_thread_unattached, whose guard (VFTR_GUARD_ATTACH) sends
 * the hook to the path that attaches the thread.  Never NULL (its initial
 * value is the address of the unattached state), so that the hooks'
 * common path needs no test for a thread without a state. */
extern __thread struct vftr_thread *vftr_hook_tls __attribute__((tls_model("initial-exec")));
extern struct vftr_thread vftr_thread_unattached VFTR_HIDDEN;

/* Makes t the calling thread's state (NULL: none), for the hooks too. */
static inline VFTR_NI void vftr_tls_set(struct vftr_thread *t)
{
    vftr_tls = t;
    vftr_hook_tls = t ? t : &vftr_thread_unattached;
}

/* ------------------------------------------------------------- process */

/*
 * The phase word (vftr_proc.phase): the phase in the low VFTR_PHASE_BITS
 * bits, the number of switches made so far (phase.c) above them.  Every
 * hook reads it; the fast path compares it with the thread's fast_key.
 */
enum vftr_phase {
    VFTR_PHASE_RUNNING = 0,       /* hooks record */
    VFTR_PHASE_PAUSED,            /* vftr_pause(): hooks keep the shadow stack only */
    VFTR_PHASE_STOPPED,           /* finalized, crashed, off or forked child: hooks
                                   * return at once */
    VFTR_PHASE_HELD,              /* a control event or the signal handler holds the
                                   * world: hooks wait until it is over */
};

#define VFTR_PHASE_BITS 8u
#define VFTR_PHASE_MASK ((1u << VFTR_PHASE_BITS) - 1u)

static inline VFTR_NI int vftr_phase_of(uint64_t word)
{
    return (int)(word & VFTR_PHASE_MASK);
}

/* Number of switches a phase word says have been made. */
static inline VFTR_NI uint64_t vftr_phase_switches(uint64_t word)
{
    return word >> VFTR_PHASE_BITS;
}

/* What initialization distilled from the configuration (tests fill it). */
struct vftr_settings {
    bool trace;                   /* write a .vfd */
    double sample_interval;       /* seconds; 0 records every event */
    double min_duration;          /* seconds; shorter calls are not traced (filter.c) */
    size_t buffer_bytes;          /* per-thread event buffer (bytes; at least 4 KiB) */
    uint64_t max_bytes;           /* trace size cap per rank, 0 = none */
    uint64_t max_job_bytes;       /* trace size cap over the job's ranks, 0 = none */
    uint64_t keep_free;           /* free-space reserve of the trace's file system, 0 = none */
    bool prelude;                 /* record calls before main */
    /* filter decision for a new function: returns VFTR_FN_* flags */
    uint32_t (*classify)(void *arg, const char *name);
    void *classify_arg;
    /* name of a function address: borrowed for the life of the process */
    const char *(*resolve)(void *arg, uintptr_t addr);
    void *resolve_arg;
};

struct vftr_process {
    _Atomic uint64_t phase;       /* the phase word (above); read by every hook */
    char pad0[64 - sizeof(uint64_t)];

    struct vftr_settings set;
    _Atomic uint32_t next_node_id;
    _Atomic uint32_t next_fn_id;
    _Atomic uint32_t next_thread;
    _Atomic bool main_seen;       /* main (or MAIN__) entered: prelude over */

    pthread_mutex_t fn_lock;      /* fn_table, fn_all */
    struct vftr_fn **fn_table;
    size_t fn_cap, fn_count;
    struct vftr_fn *_Atomic fn_all;

    pthread_mutex_t threads_lock;
    struct vftr_thread *_Atomic threads;

    /* trace file.  Atomic: a thread that starts while the process
     * finalizes reads it (vftr_thread_new) while vftr_trace_close clears
     * it; such a thread records nothing (the phase is STOPPED). */
    struct vftr_vfd_writer *_Atomic writer;
    _Atomic int trace_off;        /* cap reached or write error */
    _Atomic uint64_t events_written;
    uint64_t final_bytes;         /* size of the trace at close */
    uint64_t fsize_limit;         /* RLIMIT_FSIZE at open (UINT64_MAX: none) */
    _Atomic int cap_hit;
    _Atomic uint64_t cap_bytes;   /* the cap in force, 0 = none (vftr_trace_set_ranks) */
    _Atomic int reserve_hit;      /* the free-space reserve stopped the trace */
    int write_errno;
    uint8_t *emergency;           /* signal-path encoding buffer */
    size_t emergency_cap;
    _Atomic int emergency_busy;

    /* run */
    struct vftr_config cfg;       /* read-only after initialization */
    bool recording;               /* initialization succeeded: finalize has work */
    char dir[1024], base[256];    /* output directory and file base name */
    char tmp_path[1400];          /* the .tmpvfd being written ("" if none) */
    char final_path[1400];
    char exe[1024], host[256];
    pid_t pid;
    int rank, size;
    bool is_rank0;
    uint64_t start_ns, start_ticks;   /* wall clock (since epoch) and ticks at init */
    /* test only (VFTR_TEST_CLOCK_SKEW, ext.c): the header claims a clock
     * that is off by skew_ns and runs drift_ppm fast */
    int64_t skew_ns;
    double drift_ppm;
    uint8_t run_id[16];
    double hook_cost;             /* ticks one enter + exit costs (calibrated) */
    /* MPI statistics of the MPI library for live queries (ext.h) */
    long (*_Atomic mpi_stats)(struct vftr_ext_mpi_row *rows, size_t max);
    _Atomic int finalized;
};

extern struct vftr_process vftr_proc VFTR_HIDDEN;

/* ------------------------------------------------------- callpath.c */

/*
 * Prepares vftr_proc for recording with settings s (copied): function table,
 * counters, phase RUNNING.  Returns 0 or -errno.  Not thread-safe (called
 * once from initialization or from a test before any hook).
 */
int vftr_callpath_setup(const struct vftr_settings *s) VFTR_NI;

/* Function record of addr (created, classified and named on first sight).
 * NULL on allocation failure.  Thread-safe (locks). */
struct vftr_fn *vftr_fn_get(uintptr_t addr) VFTR_NI;

/*
 * Code at the addresses [lo, hi) was unmapped (dlclose): the records of
 * functions there leave the function table (they stay in proc.fn_all with
 * their names, for the profile and the trace of the calls made), so that
 * an address there met later gets a record of its own, named anew.
 * Thread-safe (fn_lock).  The threads' call paths follow through an UNMAP
 * switch (vftr_phase_unmap, vftr_callpath_forget).
 */
void vftr_fn_forget(uintptr_t lo, uintptr_t hi) VFTR_NI;

/* Thread t (guard held) forgets its call paths of functions in [lo, hi)
 * (not regions): they keep their counts and ids, but no enter matches them
 * any more (their key becomes the node's own address, which no code has),
 * so the next call of an address there makes a new call path.  Allocates
 * nothing, takes no lock (async-signal-safe). */
void vftr_callpath_forget(struct vftr_thread *t, uintptr_t lo, uintptr_t hi) VFTR_NI;

/* Function record of the user region called `name` (by content); a new
 * record gets flags (only VFTR_FN_MPI is taken) besides VFTR_FN_REGION. */
struct vftr_fn *vftr_fn_region(const char *name, uint32_t flags) VFTR_NI;

/* Function record of an OpenMP region called `name` (vftr_vfd_omp_region_name):
 * a new record flagged VFTR_FN_REGION | VFTR_FN_OMP on every call, never
 * filtered, never found by vftr_fn_region; the caller (ompt.c) keeps one per
 * name.  NULL on allocation failure.  Thread-safe (locks). */
struct vftr_fn *vftr_fn_omp(const char *name) VFTR_NI;

/* Enter: child of t->cur for fn (slow path of the child lookup); NULL when
 * the function is excluded or memory ran out.  *now is the tick of the
 * enter; when a function record had to be created (symbol lookup, which
 * reads the symbol tables on first use, filters), that time is capture's,
 * not the program's: it is booked, in the profile and the trace alike, as
 * a call of the region VFTR_SETUP_REGION under t->cur, and *now moves to
 * its end. */
#define VFTR_SETUP_REGION "vftr:setup"
struct vftr_node *vftr_node_child(struct vftr_thread *t, struct vftr_node *cur, uintptr_t addr,
                                  struct vftr_fn *known, uint64_t *now) VFTR_NI;

/* Exit of addr when it is not t->cur (longjmp, exceptions, excluded
 * functions, calls entered before capture started): see callpath.c. */
void vftr_exit_mismatch(struct vftr_thread *t, uintptr_t addr, uint64_t now) VFTR_NI;

/* Enter of addr by a paused thread: the shadow stack moves to the child
 * (found or made), nothing is counted or traced. */
void vftr_enter_quiet(struct vftr_thread *t, uintptr_t addr, struct vftr_fn *known) VFTR_NI;

/*
 * OpenMP regions in the call tree, as the readers of the trace put them on
 * a thread's stack (lib/model/vfdconv.c, transform()), so that the profile
 * is what they compute from the trace.  t's guard held; t is the calling
 * thread or one borrowed.  Nothing is written to the trace (ompt.c writes
 * the OMP_BEGIN / OMP_END records).
 *   vftr_omp_enter: region `region` (function record f, vftr_fn_omp) begins
 *     at now: the child of t->cur for f becomes current, one call counted
 *     (nothing counted while paused).  Returns the node, NULL when memory
 *     ran out (the stack is then unchanged).
 *   vftr_omp_leave: region `region` ends at now: the innermost node of the
 *     stack that is an OpenMP node of that region and every frame above it
 *     (functions too) end there, their time counted, and its parent becomes
 *     current; nothing when no such node is open.
 * A function's exit closes the OpenMP nodes above its frame
 * (vftr_exit_mismatch), and a function's enter finds its caller past them:
 * the readers do the same.
 */
struct vftr_node *vftr_omp_enter(struct vftr_thread *t, struct vftr_fn *f, uint32_t region,
                                 uint64_t now) VFTR_NI;
void vftr_omp_leave(struct vftr_thread *t, uint32_t region, uint64_t now) VFTR_NI;

/* The id of n's call path's parent in the trace: its nearest ancestor that
 * is not an OpenMP node (0 for the root). */
static inline VFTR_NI uint32_t vftr_node_trace_parent(const struct vftr_node *n)
{
    const struct vftr_node *p = n->parent;

    while (p->flags & VFTR_FN_OMP)
        p = p->parent;
    return p->id;
}

/*
 * Flat snapshot of every thread's call paths (struct vftr_profile of
 * logfile.h): times in seconds with tps ticks per second, overhead = calls
 * x hook_cost ticks.  Call paths never entered while capture counted (made
 * and left during a pause) have no row.  Rows borrow the function names.
 * Call it when no thread is inside a hook (after vftr_stop_world).  Release
 * with vftr_callpath_profile_release.  0 or -ENOMEM.
 */
int vftr_callpath_profile(struct vftr_profile *p, double tps, double hook_cost) VFTR_NI;
/* Exclusive times of nodes [0, n) of t from their inclusive times incl:
 * each child's inclusive time taken off its parent's (markers of excluded
 * functions give nothing).  Shared by the profile and the live queries. */
void vftr_callpath_exclusive(const struct vftr_thread *t, uint32_t n, const uint64_t *incl,
                             int64_t *excl) VFTR_NI;

/* The same with the activations still open at tick `now` counted up to now
 * (now 0: not counted, as vftr_callpath_profile), the switches a thread has
 * not applied yet taken into account (vftr_phase_open_time). */
int vftr_callpath_profile_at(struct vftr_profile *p, double tps, double hook_cost, uint64_t now)
    VFTR_NI;

/*
 * The same in memory reserved beforehand, for a caller that must not
 * allocate while it takes the snapshot (a control event holding the
 * world: the program's threads wait in their hooks meanwhile, maybe inside
 * an instrumented allocator).  vftr_callpath_space_reserve sizes the space
 * for every thread's nodes as they are now, plus `slack` per thread (0 or
 * -ENOMEM); vftr_callpath_profile_in fills p from it: -ENOSPC when the
 * nodes outgrew it (p untouched), else 0 and p owns the rows (release p
 * with vftr_callpath_profile_release; sp with vftr_callpath_space_release
 * in any case).
 */
struct vftr_profile_space {
    struct vftr_profile_row *rows;
    uint64_t *incl, *calls;
    int64_t *excl;
    size_t nrows, most;           /* rows; nodes of the per-node arrays */
};

int vftr_callpath_space_reserve(struct vftr_profile_space *sp, uint32_t slack) VFTR_NI;
void vftr_callpath_space_release(struct vftr_profile_space *sp) VFTR_NI;
int vftr_callpath_profile_in(struct vftr_profile *p, struct vftr_profile_space *sp, double tps,
                             double hook_cost, uint64_t now) VFTR_NI;
void vftr_callpath_profile_release(struct vftr_profile *p) VFTR_NI;

/* Node i of thread t (i < t->nnodes). */
struct vftr_node *vftr_node_at(const struct vftr_thread *t, uint32_t i) VFTR_NI;

/* The nodes of a thread in order, block after block: vftr_node_walk_at
 * positions w at node i (vftr_node_walk_first at node 0), then each
 * vftr_node_walk_next gives the next node — what vftr_node_at(t, i),
 * vftr_node_at(t, i + 1), ... give, without walking the block list from its
 * start each time.  Only published nodes (< t->nnodes) may be asked for. */
struct vftr_node_walk {
    const struct vftr_node_block *b;
    uint32_t j;
};

void vftr_node_walk_at(struct vftr_node_walk *w, const struct vftr_thread *t, uint32_t i) VFTR_NI;

static inline VFTR_NI struct vftr_node *vftr_node_walk_next(struct vftr_node_walk *w)
{
    if (w->j == VFTR_NODE_BLOCK) {
        w->b = w->b->next;
        w->j = 0;
    }
    return (struct vftr_node *)&w->b->nodes[w->j++];
}

/* A walk from node 0 over the first n published nodes of t (n read from
 * t->nnodes with acquire).  t->blocks is set before nnodes > 0 is
 * published: with n == 0 it is not read, since the thread may be making
 * its first node at that moment. */
static inline VFTR_NI struct vftr_node_walk vftr_node_walk_first(const struct vftr_thread *t,
                                                                uint32_t n)
{
    return (struct vftr_node_walk){ n ? t->blocks : NULL, 0 };
}

/* ----------------------------------------------------------- phase.c */

/*
 * The switches of the process.  PAUSE and RESUME: vftr_pause() and
 * vftr_resume() (also MPI_Pcontrol, vftr-ctl pause and resume); STOP and
 * START: the trace stopped and started by control (vftr-ctl stop, start,
 * detach, attach), the profile going on.  What a thread does when it
 * applies one, at the switch's time T (at the latest event of the thread
 * if that is later: a hook that was under way when the switch was made):
 *   - recording of events ends (PAUSE, STOP while recording): every open
 *     frame ends, innermost first, with an EXIT event at T (an OpenMP
 *     region's frame with its OMP_END), then the OpenMP regions that are
 *     open but no longer on the stack (ompt.c) with OMP_END;
 *   - counting ends (PAUSE): each open frame's inclusive time stops at T;
 *   - counting starts again (RESUME): each open frame is entered again at
 *     T, which counts one call (the trace has an ENTER or OMP_BEGIN for it,
 *     and every reader of the trace counts it as a call);
 *   - recording starts again (RESUME, START): ENTER events at T, outermost
 *     first (OMP_BEGIN for an OpenMP region's frame), so that the readers
 *     of the trace rebuild the stack as it is.
 * A PAUSE event follows the exits and a RESUME event precedes the enters,
 * so no ENTER or EXIT lies between them.
 * UNMAP (vftr_phase_unmap) changes no recording state: code at the
 * addresses [lo, hi) was unmapped (dlclose), and the thread forgets its call
 * paths of functions there (vftr_callpath_forget), so that code mapped there
 * later is met as the new function it is.
 */
enum vftr_switch {
    VFTR_SWITCH_PAUSE, VFTR_SWITCH_RESUME, VFTR_SWITCH_STOP, VFTR_SWITCH_START, VFTR_SWITCH_UNMAP,
};

/* Empties the log, phase RUNNING (vftr_callpath_setup).  Not thread-safe. */
void vftr_phase_setup(void) VFTR_NI;

/*
 * Makes switch sw for the whole process now: appended to the log, counted
 * in the phase word.  Waits while the world is held.  Returns 1 when made,
 * 0 when it would change nothing (a pause while paused, a start while the
 * trace runs, ...), -EAGAIN when capture is stopped, -ENODATA for a START
 * without a trace that could record, -ENOMEM.  Thread-safe, not
 * async-signal-safe (a lock, and memory for the log every 256 switches);
 * never call it with a guard held.
 */
int vftr_phase_switch(enum vftr_switch sw) VFTR_NI;

/* An UNMAP switch for the code addresses [lo, hi): 1, -EAGAIN when
 * capture is stopped, -ENOMEM.  As vftr_phase_switch otherwise. */
int vftr_phase_unmap(uintptr_t lo, uintptr_t hi) VFTR_NI;

/* Whether the process is paused / its trace stopped by control, after the
 * switches made so far. */
bool vftr_phase_paused(void) VFTR_NI;
bool vftr_phase_stopped(void) VFTR_NI;

/* The log's lock: held around a thread's registration (vftr_thread_new,
 * with vftr_phase_thread_init) and while reading other threads' pending
 * switches (vftr_phase_open_time).  The hooks never take it. */
void vftr_phase_lock(void) VFTR_NI;
void vftr_phase_unlock(void) VFTR_NI;

/* A new thread's place in the log (it has seen every switch made) and the
 * recording state of the process (paused, stopped, whether it traces:
 * t->buf must be set up).  The log's lock held. */
void vftr_phase_thread_init(struct vftr_thread *t) VFTR_NI;

/* Applies to t the switches up to number n (vftr_phase_switches of a
 * phase word read with acquire); t's guard held by the caller (the thread
 * itself, or one that borrowed it or stopped the world).  Allocates
 * nothing, takes no lock: async-signal-safe. */
void vftr_phase_catch_up(struct vftr_thread *t, uint64_t n) VFTR_NI;

/* The same up to the last switch made (finalization, control events,
 * signal handler: any phase). */
void vftr_phase_catch_up_all(struct vftr_thread *t) VFTR_NI;

/*
 * What an activation of t that began at tick te counts up to tick now: the
 * ticks during which t counted, with the switches t has not applied yet
 * taken into account as it will apply them; *resumes (may be NULL) gets
 * the number of those that enter it again.  For profiles of a running
 * program (vftr-ctl, MPI_Finalize's collation).  Call it with the log's
 * lock held; t's fields may change meanwhile (the answer is then as of a
 * moment of the call).
 */
uint64_t vftr_phase_open_time(const struct vftr_thread *t, uint64_t te, uint64_t now,
                              uint32_t *resumes) VFTR_NI;

/*
 * Holding the world (ctl.c, signals.c): the phase goes from RUNNING or
 * PAUSED (or, with any = true, whatever it is but STOPPED) to HELD and
 * the other threads' hooks are waited for (vftr_stop_world); meanwhile
 * their hooks wait, and the holding thread's own return at once.  *prev
 * gets the phase word to give back to vftr_phase_unhold.  -EAGAIN when
 * capture is stopped.  Async-signal-safe.  Returns the number of threads
 * still inside a hook when the wait gave up, as vftr_stop_world.
 */
int vftr_phase_hold(uint64_t *prev, bool any) VFTR_NI;
void vftr_phase_unhold(uint64_t prev) VFTR_NI;

/* Lends thread t's state to a holder of the world (guard FREE -> LENT):
 * false when t is inside a hook or finished.  Its hooks wait until
 * vftr_thread_give_back. */
bool vftr_thread_borrow(struct vftr_thread *t) VFTR_NI;
void vftr_thread_give_back(struct vftr_thread *t) VFTR_NI;

/* Calls fn for each open frame of t, outermost first, without allocating
 * (a stack of any depth; async-signal-safe). */
void vftr_frames_down(struct vftr_thread *t, void (*fn)(struct vftr_node *n, void *arg),
                      void *arg) VFTR_NI;

/* Slow path of vftr_guard_take (below): taken says whether the guard is
 * held already (the phase word did not match the thread's key), else it
 * was not free.  Waits while the world is held or the thread lent; brings
 * the thread up to date with the switches.  true: the guard is held. */
bool vftr_guard_take_slow(struct vftr_thread *t, bool taken) VFTR_NI;

/* ---------------------------------------------------------- thread.c */

/*
 * The calling thread's state, created and registered on first use (runs the
 * process initialization first if needed).  Never NULL: when capture is off
 * or memory ran out it returns a permanently guarded dummy.
 */
struct vftr_thread *vftr_thread_attach(void) VFTR_NI;

/* Creates a thread state for the calling thread without making it current
 * (tests) — or for the current thread when `current`.  NULL + errno. */
struct vftr_thread *vftr_thread_new(bool current) VFTR_NI;

/* Thread state that makes every hook return at once. */
extern struct vftr_thread vftr_thread_off;

/* Registers the pthread key destructor that flushes a thread at its exit. */
int vftr_thread_setup_key(void) VFTR_NI;

/* ----------------------------------------------------------- trace.c */

/* The hot path's buffer is full: flush it. */
void vftr_trace_flush(struct vftr_thread *t) VFTR_NI;

/* Bytes a thread buffer keeps free past `room`: the largest event
 * (an extended one: tag, delta, length and a payload of up to
 * VFTR_EXT_PAYLOAD_MAX bytes). */
#define VFTR_EXT_PAYLOAD_MAX 96u
#define VFTR_EVENT_SLACK (30u + VFTR_EXT_PAYLOAD_MAX)
/* Per-thread buffer for definition chunks (16 function names a batch). */
#define VFTR_THREAD_DEFS_BYTES (256u << 10)

/* Appends one ENTER, EXIT or SAMPLE event to t's buffer (hot path). */
static inline VFTR_NI void vftr_trace_put(struct vftr_thread *t, uint64_t now, uint32_t kind,
                                          uint32_t id)
{
    size_t n = vftr_trace_used(t);
    uint64_t last;
    uint8_t *p;

    if (VFTR_UNLIKELY(n > t->room)) {
        vftr_trace_flush(t);
        n = vftr_trace_used(t);
        if (n > t->room)
            return;
    }
    if (VFTR_UNLIKELY(n == 0))
        t->first_time = t->last_time = now;
    last = t->last_time;
    /* times do not go back within a chunk: a step back is no step */
    if (VFTR_UNLIKELY(now < last))
        now = last;
    p = t->buf + VFTR_VFD_CHUNK_HEADER_SIZE + n;
    p = vftr_vfd_put_event(p, kind, id, now - last);
    t->last_time = now;
    t->count++;
    atomic_store_explicit(&t->pos, p, memory_order_release);
    /* the buffer holds an event now: the fast path may append (unless
     * sampling or filter.min_duration must decide about each event) */
    t->fast_end = t->interval || t->min_ticks ? NULL
                                              : t->buf + VFTR_VFD_CHUNK_HEADER_SIZE + t->room + 1;
}

/* Appends an extended event (kind >= VFTR_VFD_PAUSE, payload of len <=
 * VFTR_EXT_PAYLOAD_MAX bytes).  0, or -1 when it was dropped. */
int vftr_trace_put_ext(struct vftr_thread *t, uint64_t now, uint32_t kind, const void *payload,
                       uint32_t len) VFTR_NI;

/*
 * Opens the trace file <dir>/<base>_<pid>.tmpvfd (another name if it exists)
 * with the header fields known now.  Returns 0 or -errno (a message was
 * printed; tracing is then off).
 */
int vftr_trace_open(const char *dir, const char *base) VFTR_NI;

/*
 * Writes t's pending definitions and buffered events.  from_signal: use the
 * emergency buffer and no allocation (async-signal-safe).  Returns 0 or
 * -errno.
 */
int vftr_trace_flush_thread(struct vftr_thread *t, bool from_signal) VFTR_NI;

/* Appends EXIT events for every open frame of t at time now (finalization,
 * so that the trace is balanced; OMP_END for an OpenMP region's frame,
 * through ompt.c) and adds their time to the profile; the stack is then
 * empty.  A paused thread's frames ended at the pause (no
 * time, no events); a stopped trace's at the stop (time only).  Apply the
 * thread's pending switches first (vftr_phase_catch_up). */
void vftr_trace_close_frames(struct vftr_thread *t, uint64_t now) VFTR_NI;

/* Header fields of the run as they stand now (complete = final). */
void vftr_trace_info(struct vftr_vfd_info *info, bool final, double tps) VFTR_NI;

/* Closes the trace (final header) and renames it to <dir>/<base>_<rank>.vfd;
 * path_out receives the final name.  busy: a thread is still inside a hook
 * (the stop-the-world wait gave up on it), so the header is rewritten as
 * abandoned and the writer stays open and allocated for that thread.  tps:
 * the clock's ticks per second for the header, the one the profile log
 * uses (0: measured now).  0 or -errno. */
int vftr_trace_close(char *path_out, size_t len, bool busy, double tps) VFTR_NI;

/* Signal path: rewrite the header best-effort (signal sig recorded); when
 * the signal is fatal (no handler of the program's that might recover),
 * rename the file to its final name.  Async-signal-safe. */
void vftr_trace_abandon(int sig, bool fatal) VFTR_NI;

/* Path of the open trace file ("" when none). */
const char *vftr_trace_path(void) VFTR_NI;
/* Bytes of the trace file: so far while it is open, at its close after. */
uint64_t vftr_trace_bytes(void) VFTR_NI;

/* exec (exec.c): the file as it stands becomes the run's trace: the header
 * is rewritten final (complete, tps ticks per second, the end now) and the
 * file gets its final name, which path_out receives; the writer stays
 * open (its descriptor closes by itself at the exec).  0 or -errno. */
int vftr_trace_checkpoint(char *path_out, size_t len, double tps) VFTR_NI;
/* The exec failed: the header says again that the file is being written
 * (it keeps its final name). */
void vftr_trace_reopen(void) VFTR_NI;

/* Turns tracing off after an error or the cap (prints once). */
void vftr_trace_stop(int err) VFTR_NI;

/* A rank's trace cap: per_rank, or per_job / nranks where that is smaller
 * (nranks < 1 counts as 1); 0 = none, and a cap of 0 on one side leaves
 * the other.  Pure. */
uint64_t vftr_trace_cap(uint64_t per_rank, uint64_t per_job, int nranks) VFTR_NI;

/* The job has nranks ranks (the launcher's count at start, MPI_COMM_WORLD's
 * at MPI_Init): sets the cap in force from the settings. */
void vftr_trace_set_ranks(int nranks) VFTR_NI;

/* Whether a chunk of len bytes may be written without taking the free
 * space of the trace's file system below the reserve (settings.keep_free):
 * 0, or -1 after tracing was stopped for it (one message).  One fstatfs;
 * async-signal-safe. */
int vftr_trace_room(size_t len) VFTR_NI;

/* -------------------------------------------------------- signals.c */

/* Installs the crash handlers and the fork handler.  0 or -errno. */
int vftr_signals_setup(void) VFTR_NI;

/*
 * Stops the hooks of every other thread: sets the phase to `phase` (the
 * count of switches in the word is kept), makes the store visible to all
 * threads (membarrier) and waits (bounded) until no other thread is inside
 * a hook.  Async-signal-safe.  Returns the number of threads still inside
 * a hook when the wait gave up.
 */
int vftr_stop_world(int phase) VFTR_NI;

/* Registers the process for the expedited membarrier (initialization). */
void vftr_membarrier_setup(void) VFTR_NI;

/* ------------------------------------------------------- finalize.c */

/* atexit handler: runs once per process (any thread). */
void vftr_finalize(void) VFTR_NI;

/* Writes the profile log <dir>/<base>_<rank>.log from prof (a snapshot,
 * ticks per second tps), the run ending at end_ticks / end_ns (wall
 * clock), with trace file vfd (NULL: none) and why the trace stopped (NULL:
 * from the run's state); log (len bytes) receives the path written ("" when
 * none).  prof stays the caller's.  0 or -errno (a message was printed). */
int vftr_log_write(struct vftr_profile *prof, double tps, uint64_t end_ticks, uint64_t end_ns,
                   const char *vfd, const char *why, char *log, size_t len) VFTR_NI;

/* -------------------------------------------------------------- dl.c */

/*
 * Following the program's mappings (dlclose): a library closed and another
 * one loaded at its addresses must not inherit its names or call paths.
 * capture/preload/dl.c interposes dlclose: vftr_dl_before takes the list
 * of loaded objects (the loader's, with their address ranges) before the
 * real dlclose, vftr_dl_after compares it with the list after and, for each
 * object that is gone, makes capture forget the code addresses it held:
 * function records (vftr_fn_forget), the symbol table's object
 * (vftr_symbols_forget), OpenMP region definitions (vftr_ompt_forget) and,
 * through an UNMAP switch, every thread's call paths
 * (vftr_callpath_forget).  Nothing when capture does not record in this
 * process.  Not async-signal-safe (dlclose is not either).
 */
struct vftr_dl_snap {
    unsigned long long subs;      /* the loader's count of unloads */
    size_t n;
    struct vftr_dl_obj {
        uintptr_t bias, lo, hi;   /* load bias, extent of the PT_LOAD segments */
        const void *phdr;
        char *name;               /* the loader's name (owned) */
    } *obj;                       /* NULL: nothing to compare (capture off, no memory) */
};
void vftr_dl_before(struct vftr_dl_snap *s) VFTR_NI;
void vftr_dl_after(struct vftr_dl_snap *s) VFTR_NI;

/* The code at [lo, hi) is gone (see above); any thread but inside a hook. */
void vftr_dl_unmapped(uintptr_t lo, uintptr_t hi) VFTR_NI;

/* ------------------------------------------------------------ sled.c
 *
 * instrument.patchable: a program built with -fpatchable-function-entry
 * traced through its nop sleds (see sled.c for how and why it is safe).
 */

/* At start, before main (capture/preload/start.c): when an object of the
 * process has sleds, starts capture and, when instrument.patchable says
 * so, patches the sleds of the functions the filters keep.  Says once when
 * it cannot (W^X, the C++ runtime). */
void vftr_sled_start(void) VFTR_NI;

/* After a dlopen (capture/preload/dl.c): the sleds of objects not seen
 * before are patched. */
void vftr_sled_dlopened(void) VFTR_NI;

/* Throttling stopped tracing a call path of fn (filter.c): its sled's
 * calls are counted by a stub from now on (throttle.count = false: its
 * sled becomes a 5-byte nop, the calls no longer counted).  True when
 * switched.  Any
 * thread, any context (never waits for the lock). */
bool vftr_sled_throttled(uintptr_t fn) VFTR_NI;

/* vftr-ctl unthrottle: every stub switched back to tracing; how many. */
uint32_t vftr_sled_unthrottle_all(void) VFTR_NI;

/* A counting stub of fn's for its hook call sites (-finstrument-functions;
 * patch.c), within +-2 GB of fn: the same code and per-thread counter as
 * its sled's stub would use (vftr_sled_fold joins the counts).  0 when
 * none can be made (all counters taken, no memory near, W^X, the lock
 * busy).  Any thread, any context (never waits for the lock). */
uintptr_t vftr_stub_near(uintptr_t fn) VFTR_NI;

/* A counting stub of fn's (a copy of vftr_stub_near's code) at an address
 * x with ((x - from) & mask) == (val & mask), for a call ending at from
 * whose operand straddles two words: the bytes of the operand in one word
 * are kept (mask 0xff, 0xffff: its low bytes; 0xff000000: its top byte,
 * 0 or 0xff: within 16 MB), the others swapped with one compare-and-swap.
 * 0 when none can be made.  Any thread, any context (never waits). */
uintptr_t vftr_stub_at(uintptr_t fn, uintptr_t from, uint32_t mask, uint32_t val) VFTR_NI;

/* The stubs' counts so far added to the threads' call paths (to each
 * thread's throttled call path of the function).  No thread inside a hook
 * (finalization, a held world). */
void vftr_sled_fold(void) VFTR_NI;

/* The code at [lo, hi) is gone (dl.c). */
void vftr_sled_forget(uintptr_t lo, uintptr_t hi) VFTR_NI;

/* An unwinder is about to walk the calling thread's stack (capture/preload/
 * unwind.c): its frames whose return addresses are kept at or below a (the
 * caller's own return address) end now, the others get their return
 * addresses back from the trampoline.  vftr_sled_landed: the walk ended
 * (in a handler, or found none): the frames at or below a end now, the
 * others return through the trampoline again.  The calling thread only;
 * nothing to do for a thread with no traced call. */
void vftr_sled_unwind(uintptr_t a) VFTR_NI;
void vftr_sled_landed(uintptr_t a) VFTR_NI;
/* Set by unwind.c's constructor: the definition an interposed entry point
 * of the unwinder passes its calls on to; NULL in the static library
 * (no interposition: C++ objects keep their nops). */
extern void *(*vftr_sled_next)(const char *name) VFTR_HIDDEN;

/* Whether sleds are patched; the sleds patched, the sleds of excluded
 * functions left as nops, the functions counted by stubs now and those
 * whose sleds are nops again (throttle.count = false). */
bool vftr_sled_active(void) VFTR_NI;
/* Whether the system refused writable code at start: no sled patched. */
bool vftr_sled_refused(void) VFTR_NI;
bool vftr_sled_stats(uint64_t *patched, uint64_t *excluded, uint32_t *counting,
                     uint32_t *silenced) VFTR_NI;

/* ------------------------------------------------------------ exec.c */

/*
 * The program image is about to be replaced by exec (capture/preload/
 * exec.c interposes the exec family): what exec names (for the log).
 * Ends the trace's open frames (a STOP switch), writes every thread's
 * buffer, makes the trace file final (vftr_trace_checkpoint) and writes the
 * profile log as at the end of a run, so that nothing of the old image is
 * lost; capture's state stays as it was (the stacks, the profile).
 * Returns a token for vftr_exec_failed.  Not async-signal-safe: an exec
 * from a signal handler that interrupted capture itself (a hook) is left
 * alone.
 */
int vftr_exec_begin(const char *what) VFTR_NI;
/* The exec returned (it failed): the trace is written on (the header says
 * so again, a START switch begins the open frames again) and the log is
 * written over at the real end.  token from vftr_exec_begin. */
void vftr_exec_failed(int token) VFTR_NI;

/* Whether any compiler hook reached capture (a function record of an
 * address exists); false for a program built without
 * -finstrument-functions.  Reads only: async-signal-safe. */
bool vftr_hooks_seen(void) VFTR_NI;

/* Calls of MPI functions and of vftr.h regions recorded on all threads so
 * far.  Reads only: async-signal-safe. */
void vftr_region_calls(uint64_t *mpi, uint64_t *user) VFTR_NI;

/* What a profile log says about the run (logfile.h), as it stands: trace
 * file vfd (NULL: none) of trace_bytes, wall clock end_ns as the end. */
struct vftr_run_info;
void vftr_run_info(struct vftr_run_info *run, int rank, const char *vfd, uint64_t trace_bytes,
                   uint64_t end_ns) VFTR_NI;

/* ------------------------------------------------------------ rank.c */

/*
 * Rank and size from the launcher's environment (OpenMPI, PMI, PMIx,
 * Slurm, MPICH/Hydra).  envp NULL means environ.  *rank and *size are left
 * unchanged when no launcher variable is set.  Returns 1 if a rank was
 * found, 0 if not.  Thread-safe (reads only envp).
 */
int vftr_rank_from_env(char *const *envp, int *rank, int *size) VFTR_NI;

/*
 * The launcher's name of the job (one mpirun or srun step) in buf, the
 * same string in every process of the job: 1, or 0 when no launcher
 * variable names one.  envp NULL means environ.
 */
int vftr_job_from_env(char *const *envp, char *buf, size_t len) VFTR_NI;

/* ------------------------------------------------------------ hooks.c */

/* Process initialization (once; called from vftr_thread_attach). */
void vftr_init_once(void) VFTR_NI;

/* Code at [lo, hi) was unmapped: the symbol table of the resolver forgets
 * the objects there (vftr_symtab_forget). */
void vftr_symbols_forget(uintptr_t lo, uintptr_t hi) VFTR_NI;

/* Prints "vftr: <message>" on stderr (one write, async-signal-safe with
 * no format arguments: use vftr_msg_raw). */
void vftr_msg(const char *fmt, ...) VFTR_NI __attribute__((format(printf, 1, 2)));
void vftr_msg_raw(const char *text) VFTR_NI;

/* ----------------------------------------------------------- filter.c */

/* Reads filter.file and the throttle settings of cfg (initialization;
 * say: print what goes wrong).  0 or -errno (no filter file then). */
int vftr_filter_setup(const struct vftr_config *cfg, bool say) VFTR_NI;

/* Whether filter.file excludes the function at addr (mangled: its symbol
 * name, NULL: name; addr 0: no source file, only the region rules apply).
 * The file rules read the debug information (names.h): under the
 * function table's lock, once per function. */
bool vftr_filter_excludes(const char *name, const char *mangled, uintptr_t addr) VFTR_NI;

/* Marks t's call paths that throttling stops tracing as pending (their
 * next event settles it: vftr_throttle_event).  The thread's own guard
 * held (buffer flushes). */
void vftr_throttle_scan(struct vftr_thread *t) VFTR_NI;

/* An event of a throttled or pending node n: writes what must be written
 * (the EXIT of a pending node, a THROTTLE event) and returns false when
 * the event itself is not to be recorded (always, as it stands). */
bool vftr_throttle_event(struct vftr_thread *t, struct vftr_node *n, uint64_t now, uint32_t kind)
    VFTR_NI;

/* Call paths throttled so far, all threads. */
uint32_t vftr_throttled_count(void) VFTR_NI;

/* Records ENTER or EXIT of node n under filter.min_duration: an EXIT of a
 * call shorter than t->min_ticks takes back its ENTER and everything after
 * it in the buffer (the calls it made, shorter still) when they are all
 * still there; otherwise the event is written.  Guard held. */
void vftr_mindur_record(struct vftr_thread *t, struct vftr_node *n, uint64_t now, uint32_t kind)
    VFTR_NI;

/* The ENTER tag (vftr_node.enc) of a throttled node: no length byte, so
 * that the hooks' fast path does not write it, and a value vftr_node_enc
 * never gives, so that they can tell it from a tag they cannot write and
 * drop the event at once (hooks.c) while the thread has applied every
 * vftr-ctl unthrottle (vftr_thread.thr_gen == vftr_unthrottle_gen). */
#define VFTR_ENC_THROTTLED 0x00ffffffu
extern _Atomic uint64_t vftr_unthrottle_gen VFTR_HIDDEN;

/* vftr-ctl unthrottle: every throttled call path is traced again, each
 * thread's from its next event of one (a call path on the stack at that
 * moment after its exit), and throttling starts over for it.  Returns the
 * number of call paths throttled.  Thread-safe. */
uint32_t vftr_throttle_release_all(void) VFTR_NI;

/* "N call paths (STID a, b, ...), ..." into buf (cut to len): what the
 * log says of throttling.  No thread inside a hook (finalization). */
void vftr_throttle_describe(char *buf, size_t len) VFTR_NI;

/* ------------------------------------------------------------ hot path */

/* Records an event of node n unless sampling says to skip it: with an
 * interval, an event is written when the interval has passed since the
 * thread's last written event or when the function is precise. */
static inline VFTR_NI void vftr_record(struct vftr_thread *t, const struct vftr_node *n,
                                       uint64_t now, uint32_t kind)
{
    if (!t->trace)
        return;
    if (VFTR_UNLIKELY(n->flags & (VFTR_FN_THROTTLED | VFTR_FN_THROTTLE_PENDING))
        && !vftr_throttle_event(t, (struct vftr_node *)n, now, kind))
        return;
    if (VFTR_UNLIKELY(t->min_ticks)) {   /* takes the place of sampling */
        vftr_mindur_record(t, (struct vftr_node *)n, now, kind);
        return;
    }
    if (VFTR_UNLIKELY(t->interval)) {
        if (now - t->last_written < t->interval && !(n->flags & VFTR_FN_PRECISE))
            return;
        t->last_written = now;
    }
    vftr_trace_put(t, now, kind, n->id);
}

/* Enter of addr at now by thread t (guard held).  known: the function
 * record when the caller has it (regions), else NULL.  A paused thread
 * only moves its shadow stack. */
static inline VFTR_NI void vftr_enter_at(struct vftr_thread *t, uintptr_t addr,
                                         struct vftr_fn *known, uint64_t now)
{
    struct vftr_node *cur = t->cur;
    struct vftr_node *n = cur->last_child;

    if (VFTR_UNLIKELY(t->paused)) {
        vftr_enter_quiet(t, addr, known);
        return;
    }
    /* The same child as last time (a loop around one call, recursion), or
     * the one that followed it last time (a loop around a sequence of
     * calls); else the children's table. */
    if (VFTR_UNLIKELY(n->addr != addr)) {
        struct vftr_node *s = n->succ;

        if (s->addr == addr) {
            cur->last_child = s;
            n = s;
        } else {
            uint64_t later = now;   /* a copy: keeps `now` in a register on the fast path */

            n = vftr_node_child(t, cur, addr, known, &later);
            if (n == NULL)
                return;
            now = later;
        }
    }
    n->calls++;
    n->t_enter = now;
    t->cur = n;
    vftr_record(t, n, now, VFTR_VFD_ENTER);
    if (VFTR_UNLIKELY(t->ctr != NULL))
        vftr_ctr_enter(t, n, now);
}

/* Exit of addr at now by thread t (guard held); a paused thread only
 * moves its shadow stack. */
static inline VFTR_NI void vftr_exit_at(struct vftr_thread *t, uintptr_t addr, uint64_t now)
{
    struct vftr_node *n = t->cur;

    if (VFTR_UNLIKELY(n->addr != addr)) {
        vftr_exit_mismatch(t, addr, now);
        return;
    }
    t->cur = n->parent;
    if (VFTR_UNLIKELY(t->paused))
        return;
    n->time_incl += now - n->t_enter;
    vftr_record(t, n, now, VFTR_VFD_EXIT);
    if (VFTR_UNLIKELY(t->ctr != NULL))
        vftr_ctr_exit(t, n, now);
}

/* Takes the guard of t for a hook and brings the thread up to date with
 * the process's switches: false when the hook must return at once
 * (recursion, thread done, capture stopped or off).  The common case is a
 * load and a store of the guard and one compare of the phase word with the
 * thread's key; anything else (a switch not applied yet, a pause, a held
 * world, a lent thread, a clock other than the TSC) is the slow path.  The
 * guard's load is an acquire: a control event that borrowed the guard and
 * changed the thread's state hands it back with a release. */
static inline VFTR_NI bool vftr_guard_take(struct vftr_thread *t)
{
    if (atomic_load_explicit(&t->guard, memory_order_acquire) != VFTR_GUARD_FREE)
        return vftr_guard_take_slow(t, false);
    atomic_store_explicit(&t->guard, VFTR_GUARD_IN_HOOK, memory_order_relaxed);
    if (VFTR_UNLIKELY(atomic_load_explicit(&vftr_proc.phase, memory_order_relaxed)
                      != t->fast_key))
        return vftr_guard_take_slow(t, true);
    return true;
}

static inline VFTR_NI void vftr_guard_drop(struct vftr_thread *t)
{
    atomic_store_explicit(&t->guard, VFTR_GUARD_FREE, memory_order_release);
}

/*
 * How every hook and API entry starts: the calling thread's state (attached
 * on its first call) with its guard taken and its recording state up to
 * date (t->paused: move the shadow stack only), or NULL when the caller
 * must return at once (see vftr_guard_take).  A non-NULL result is handed
 * back with vftr_guard_drop().
 */
static inline VFTR_NI struct vftr_thread *vftr_hook_begin(void)
{
    struct vftr_thread *t = vftr_tls;

    if (VFTR_UNLIKELY(t == NULL))
        t = vftr_thread_attach();
    return vftr_guard_take(t) ? t : NULL;
}

#endif /* VFTR_CAPTURE_H */
