/*
 * hooks.c — the compiler's function hooks and the initialization they
 * trigger.
 *
 * -finstrument-functions makes every instrumented function call
 * __cyg_profile_func_enter(fn, site) at its start and
 * __cyg_profile_func_exit(fn, site) at its end.  glibc defines both as
 * no-ops; libvftrcapture's definitions win when the library is linked
 * (-lvftrcapture) or preloaded (vftr-run).  Both are unversioned in the
 * library's export list so that the dynamic linker accepts them for the
 * program's GLIBC_2.2.5 references.
 *
 * An excluded function costs one probe of the skip cache (capture.h), at
 * the top of both hooks: no TLS access, no guard; 11 instructions per
 * hook (the probe, and the slot's failed patch tries compared), 10 more
 * than an empty one.  On x86-64 its first calls patch the hook calls out
 * of the code (patch.c: filter.patch_excluded), after which its hooks are
 * not called at all; the probe stays for the sites that cannot be
 * patched.  A throttled function's enter call is redirected to a counting
 * stub and its exits jumped over in the same way (enter_throttled,
 * exit_mismatch), after which it is no frame of the stack.
 *
 * Cost per hook on the common path: the skip probe, one TLS load
 * (initial-exec; vftr_hook_tls is never NULL, so no test), the guard (a
 * load and two stores of the thread's own cache line), one load of the
 * shared phase word (read-mostly) compared with the thread's key, which
 * also says that the clock is the TSC (capture.h), one clock read, one
 * compare with the cached child or its successor (enter: never NULL, see
 * vftr_node_none) or the current node (exit), counters updated in place,
 * and the event written into the thread's chunk buffer: the node's tag,
 * encoded when the node was made, and the time delta, both stored without
 * a branch on their values; no call, no stack frame.  About 50
 * instructions per hook with the trace (cachegrind: 145 per call of
 * fib, 154 on the wide tree, both hooks and the flushes, against 26 and
 * 31 with empty hooks), about 30 without it (profile only: 86 and 94).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>

#include "capture.h"
#include "sample.h"
#include "io.h"
#include "ext.h"
#include "ompt.h"
#include "config.h"
#include "ctl.h"
#include "names.h"
#include "outdir.h"
#include "symbols.h"
#include "util/errmsg.h"
#include "util/number.h"

/* ompt.c's tool entry (the type is <omp-tools.h>'s, which only ompt.c includes) */
struct ompt_start_tool_result_t;
struct ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

void __cyg_profile_func_enter(void *fn, void *site) VFTR_EXPORT VFTR_NI;
void __cyg_profile_func_exit(void *fn, void *site) VFTR_EXPORT VFTR_NI;

/*
 * The hooks are written as a fast path that calls nothing, with every
 * uncommon case handed to a function of its own in tail position (the
 * thread's first hook, a guard that is not free, a phase word that is not
 * the thread's key: a switch to apply, a paused, held or stopped capture, a
 * clock other than the TSC; a call path not met before, sampling, a full
 * or empty buffer, a large varint).  The compiler then needs no stack
 * frame and no saved registers on the fast path.  Each slow path does the
 * whole rest of the hook with the general inline functions of capture.h,
 * so the two paths cannot disagree.
 */
#define VFTR_SLOW VFTR_NI __attribute__((noinline, cold))

/*
 * filter.max_depth (uftrace's -D).  A compiler hook's enter below the
 * limit opens a "deep" call: t->deep counts them, and while it is not 0
 * the thread's key admits no fast path, so that every hook comes to
 * enter_slow / exit_slow, which count it up or down and return: no clock,
 * no call path.  Calls below the limit are on no stack, so nothing else
 * (pauses, control, finalization) sees them; MPI functions and regions
 * (api.c, ext.c) do not come through here and are recorded at any depth.
 */
static int max_depth;

/* Whether an enter of a compiler hook by t (guard held) is below the
 * limit; then it is counted as one. */
static inline VFTR_NI bool deep_enter(struct vftr_thread *t)
{
    if (VFTR_LIKELY(t->deep == 0)
        && (max_depth == 0 || t->cur->depth < (uint32_t)max_depth))
        return false;
    t->deep++;
    t->fast_key = VFTR_KEY_NONE;
    return true;
}

/* An exit of a compiler hook by t (guard held): one deep call ends when
 * any is open.  The next hook after the last one takes the slow path,
 * which sets the key again. */
static inline VFTR_NI bool deep_exit(struct vftr_thread *t)
{
    if (VFTR_LIKELY(t->deep == 0))
        return false;
    t->deep--;
    return true;
}

/* Any hook of a thread that has no state yet (vftr_thread_unattached's
 * guard), or whose guard is taken here. */
static VFTR_SLOW void enter_general(void *fn)
{
    struct vftr_thread *t = vftr_hook_begin();

    if (t == NULL)
        return;
    if (!deep_enter(t))
        vftr_enter_at(t, (uintptr_t)fn, NULL, vftr_clock_now());
    vftr_guard_drop(t);
}

static VFTR_SLOW void exit_general(void *fn)
{
    struct vftr_thread *t = vftr_hook_begin();

    if (t == NULL)
        return;
    if (!deep_exit(t))
        vftr_exit_at(t, (uintptr_t)fn, vftr_clock_now());
    vftr_guard_drop(t);
}

/* The guard was not free (recursion, a finished thread: return; lent to
 * a control event: wait), or it is held and the phase word is not the
 * thread's key (switches to apply, paused, held, stopped, another clock):
 * vftr_guard_take_slow sorts it out.  A paused thread still moves its
 * shadow stack (vftr_enter_at, vftr_exit_at). */
static VFTR_SLOW void enter_slow(struct vftr_thread *t, void *fn, bool taken)
{
    /* a deep call (the guard ours): counted, whatever the phase; the
     * switches wait for the first hook above the limit */
    if (taken && t->deep) {
        t->deep++;
        vftr_guard_drop(t);
        return;
    }
    if (!vftr_guard_take_slow(t, taken))
        return;
    if (!deep_enter(t))
        vftr_enter_at(t, (uintptr_t)fn, NULL, vftr_clock_now());
    vftr_guard_drop(t);
}

static VFTR_SLOW void exit_slow(struct vftr_thread *t, void *fn, bool taken)
{
    if (taken && t->deep) {
        t->deep--;
        vftr_guard_drop(t);
        return;
    }
    if (!vftr_guard_take_slow(t, taken))
        return;
    if (deep_exit(t)) {
        t->fast_key = VFTR_KEY_NONE;   /* vftr_guard_take_slow set it */
        vftr_guard_drop(t);
        return;
    }
    vftr_exit_at(t, (uintptr_t)fn, vftr_clock_now());
    vftr_guard_drop(t);
}

static inline VFTR_NI bool throttled(const struct vftr_thread *t, const struct vftr_node *n);

/* Enter at now of a function that is neither the cached child nor its
 * successor (t->cur unchanged so far), called from ret.  A function of
 * which some call path is throttled has its call site redirected here too
 * (a call path met only now: throttling is per function once it patches,
 * as the sleds' is); a throttled call path gets the treatment of
 * enter_throttled, another one stays a frame (its ENTER is written). */
static VFTR_SLOW void enter_lookup(struct vftr_thread *t, void *fn, uint64_t now, void *ret)
{
    struct vftr_node *cur = t->cur;

    /* A frame of a function whose enter calls are redirected can only be
     * one the thread pushed before the switch; if it left by an exit call
     * jumped over since, it is still there, and this call would be taken
     * for its callee: it is closed first.  (A throttled function is
     * mostly a leaf, whose frame meets its first callee here; a cached
     * callee of a frame left so would be taken on the fast path, until its
     * caller's exit closes it: vftr_exit_mismatch.) */
    if (VFTR_UNLIKELY(cur->parent != NULL && vftr_patch_redirected(cur->addr))) {
        vftr_exit_at(t, cur->addr, now);
        cur = t->cur;
    }
    if (!deep_enter(t)) {
        vftr_enter_at(t, (uintptr_t)fn, NULL, now);
        if (t->cur != cur && t->cur->parent == cur
            && vftr_patch_throttled_enter((uintptr_t)fn, (uintptr_t)ret) && t->trace
            && throttled(t, t->cur))
            t->cur = cur;
    }
    vftr_guard_drop(t);
}

/*
 * The enter of a throttled call path (counted, its event dropped), called
 * from ret, whose node the fast path has made current: the call site is
 * redirected to the function's counting stub where it can be (patch.c).
 * Once the function's enter calls are redirected it is no frame of the
 * stack (cur stays current), so that the calls that come by the stub and
 * those that still come here (a site that could not be patched) agree:
 * their exits find another frame current and are let go (exit_mismatch).
 */
static VFTR_SLOW void enter_throttled(struct vftr_thread *t, struct vftr_node *cur, void *fn,
                                     void *ret)
{
    if (vftr_patch_throttled_enter((uintptr_t)fn, (uintptr_t)ret))
        t->cur = cur;
    vftr_guard_drop(t);
}

/* Exit of a function that is not the current one, called from ret: a
 * throttled function's exit calls are jumped over from the first one on
 * (patch.c). */
static VFTR_SLOW void exit_mismatch(struct vftr_thread *t, void *fn, uint64_t now, void *ret)
{
    vftr_exit_mismatch(t, (uintptr_t)fn, now);
    vftr_guard_drop(t);
    vftr_patch_throttled_exit((uintptr_t)fn, (uintptr_t)ret);
}

/* The profile is updated; the event needs the general recorder. */
static VFTR_SLOW void record_general(struct vftr_thread *t, const struct vftr_node *n,
                                    uint64_t now, uint32_t kind)
{
    vftr_record(t, n, now, kind);
    vftr_guard_drop(t);
}

/*
 * Appends the event when that is simple: the buffer neither empty nor full
 * nor sampled (t->fast_end), a tag of up to three bytes (n->enc) and a
 * delta of one or two (which also rules out a step back in time: that
 * would wrap to a huge delta).  The tag is stored as four bytes and the
 * delta as two whatever their lengths (the slack behind the buffer's room
 * allows it), and the position advances by the lengths: no branch depends
 * on the values.  False when the general path must do it.
 */
static inline VFTR_NI bool put_simple(struct vftr_thread *t, const struct vftr_node *n,
                                      uint64_t now, uint32_t exit)
{
    uint8_t *p = atomic_load_explicit(&t->pos, memory_order_relaxed);
    uint64_t delta = now - t->last_time;
    uint32_t tag = n->enc | exit, big, d16;

    /* three branches rather than one test of three flags (each compare
     * fuses with its jump; all three are predictable): the empty asm keeps
     * the compiler from merging them into flag arithmetic */
    if (VFTR_UNLIKELY(tag < (1u << 24)))
        return false;
    __asm__ volatile("");
    if (VFTR_UNLIKELY(p >= t->fast_end))
        return false;
    __asm__ volatile("");
    if (VFTR_UNLIKELY(delta >= 0x4000))
        return false;
    p[0] = (uint8_t)tag;
    p[1] = (uint8_t)(tag >> 8);
    p[2] = (uint8_t)(tag >> 16);
    p[3] = (uint8_t)(tag >> 24);
    p += tag >> 24;
    /* delta = hi * 128 + lo (< 0x4000): the varint is lo | 0x80, hi when hi
     * is not 0, else lo: as a little-endian pair, delta + hi * 128 + 128.
     * big (delta >= 0x80) as bit 15 of delta + 0x7f80, which stays below
     * 0x10000: an add and a shift, no compare */
    big = ((uint32_t)delta + 0x7f80u) >> 15;
    d16 = (uint32_t)delta + ((uint32_t)delta & ~0x7fu) + (big << 7);
    p[0] = (uint8_t)d16;
    p[1] = (uint8_t)(d16 >> 8);
    p += 1 + big;
    t->last_time = now;
    t->count++;
    atomic_store_explicit(&t->pos, p, memory_order_release);
    return true;
}

/* Whether node n is throttled and t has applied every vftr-ctl unthrottle:
 * its event is dropped here, without the general path (filter.c).  Asked
 * only when put_simple declined (its first check, the tag's length, does
 * for a throttled node), so it costs the other nodes nothing. */
static inline VFTR_NI bool throttled(const struct vftr_thread *t, const struct vftr_node *n)
{
    return VFTR_UNLIKELY(n->enc == VFTR_ENC_THROTTLED)
           && t->thr_gen == atomic_load_explicit(&vftr_unthrottle_gen, memory_order_relaxed);
}

/* Takes t's guard for a hook: 1 when taken; 0 when the hook must return at
 * once (recursion, a finished thread, capture off: the dummy thread); -1
 * when the thread is lent to a control event (the slow path waits); -2
 * when the thread has no state yet (vftr_thread_unattached). */
static inline VFTR_NI int guard_grab(struct vftr_thread *t)
{
    int g = atomic_load_explicit(&t->guard, memory_order_acquire);

    if (VFTR_UNLIKELY(g != VFTR_GUARD_FREE))
        return g == VFTR_GUARD_LENT ? -1 : g == VFTR_GUARD_ATTACH ? -2 : 0;
    atomic_store_explicit(&t->guard, VFTR_GUARD_IN_HOOK, memory_order_relaxed);
    return 1;
}

/* The common case: the phase word is the thread's key (capture runs, the
 * thread has applied every switch, the clock is the TSC). */
static inline VFTR_NI bool common_case(const struct vftr_thread *t)
{
    return atomic_load_explicit(&vftr_proc.phase, memory_order_relaxed) == t->fast_key;
}

/* A function in the skip cache (excluded): nothing else of capture's is
 * touched, whatever the phase.  While its slot allows tries, the call
 * this hook came from is patched out (patch.c: the slot's tries are
 * VFTR_PATCH_TRIES when patching is off, so that then only the one
 * compare is added). */
static VFTR_SLOW void patch_try(void *fn, void *ret, int kind)
{
    vftr_patch_site(vftr_skip_slot((uintptr_t)fn), (uintptr_t)fn, (uintptr_t)ret, kind);
}

static inline VFTR_NI void skipped(void *fn, void *ret, int kind)
{
    if (VFTR_UNLIKELY(atomic_load_explicit(&vftr_skip_slot((uintptr_t)fn)->tries[kind],
                                           memory_order_relaxed) < VFTR_PATCH_TRIES))
        patch_try(fn, ret, kind);
}

VFTR_EXPORT VFTR_NI void __cyg_profile_func_enter(void *fn, void *site)
{
    struct vftr_thread *t;
    struct vftr_node *cur, *n;
    uint64_t now;
    int g;

    (void)site;
    if (VFTR_UNLIKELY(vftr_skipped((uintptr_t)fn)))
        return skipped(fn, __builtin_return_address(0), 0);
    t = vftr_hook_tls;   /* never NULL: a thread without a state has the guard -2 */
    if (VFTR_UNLIKELY((g = guard_grab(t)) <= 0))
        return g == -1 ? enter_slow(t, fn, false) : g == -2 ? enter_general(fn) : (void)0;
    if (VFTR_UNLIKELY(!common_case(t)))
        return enter_slow(t, fn, true);
    now = vftr_clock_tsc();
    cur = t->cur;
    n = cur->last_child;
    if (VFTR_UNLIKELY(n->addr != (uintptr_t)fn)) {
        struct vftr_node *s = n->succ;   /* neither is NULL: vftr_node_none */

        if (s->addr != (uintptr_t)fn)
            return enter_lookup(t, fn, now, __builtin_return_address(0));
        cur->last_child = s;
        n = s;
    }
    n->calls++;
    n->t_enter = now;
    t->cur = n;
    if (t->trace && VFTR_UNLIKELY(!put_simple(t, n, now, 0)))
        return throttled(t, n) ? enter_throttled(t, cur, fn, __builtin_return_address(0))
                               : record_general(t, n, now, VFTR_VFD_ENTER);
    vftr_guard_drop(t);
}

VFTR_EXPORT VFTR_NI void __cyg_profile_func_exit(void *fn, void *site)
{
    struct vftr_thread *t;
    struct vftr_node *n;
    uint64_t now;
    int g;

    (void)site;
    if (VFTR_UNLIKELY(vftr_skipped((uintptr_t)fn)))
        return skipped(fn, __builtin_return_address(0), 1);
    t = vftr_hook_tls;   /* never NULL: a thread without a state has the guard -2 */
    if (VFTR_UNLIKELY((g = guard_grab(t)) <= 0))
        return g == -1 ? exit_slow(t, fn, false) : g == -2 ? exit_general(fn) : (void)0;
    if (VFTR_UNLIKELY(!common_case(t)))
        return exit_slow(t, fn, true);
    now = vftr_clock_tsc();
    n = t->cur;
    if (VFTR_UNLIKELY(n->addr != (uintptr_t)fn))
        return exit_mismatch(t, fn, now, __builtin_return_address(0));
    n->time_incl += now - n->t_enter;
    t->cur = n->parent;
    if (t->trace && VFTR_UNLIKELY(!put_simple(t, n, now, 1)) && !throttled(t, n))
        return record_general(t, n, now, VFTR_VFD_EXIT);
    vftr_guard_drop(t);
}

/* capture.h: the hooks' code by hidden names (patch.c compares the target
 * of a call with them) */
__typeof__(vftr_hook_enter_code) vftr_hook_enter_code
    __attribute__((alias("__cyg_profile_func_enter")));
__typeof__(vftr_hook_exit_code) vftr_hook_exit_code
    __attribute__((alias("__cyg_profile_func_exit")));

/* ------------------------------------------------------------ messages */

VFTR_NI void vftr_msg_raw(const char *text)
{
    char buf[2048] = "vftr: ";
    size_t len = strlen(buf), n = strlen(text);
    ssize_t rc;

    if (n > sizeof buf - len - 2)
        n = sizeof buf - len - 2;
    memcpy(buf + len, text, n);
    len += n;
    buf[len++] = '\n';
    do
        rc = write(STDERR_FILENO, buf, len);
    while (rc < 0 && errno == EINTR);
}

VFTR_NI void vftr_msg(const char *fmt, ...)
{
    char text[1800];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    vftr_msg_raw(text);
}

/* Configuration messages: from rank 0 only (every rank reads the same
 * file, so every rank would say the same). */
static VFTR_NI void config_report(void *arg, int severity, const char *message)
{
    if (severity == VFTR_CONFIG_ERROR)
        ++*(int *)arg;
    if (vftr_proc.is_rank0)
        vftr_msg("%s: %s", severity == VFTR_CONFIG_ERROR ? "error" : "warning", message);
}

/* ------------------------------------------------------ symbols, filters */

static struct vftr_symtab *symtab;
static bool symtab_failed;
/* The symbol name and the address of the function resolve() named last,
 * for the filter file's MANGLED and file rules in classify(): the two run
 * one after the other under the function table's lock (callpath.c:
 * fn_get), which guards them; classify() takes them (a region's
 * classification, with no resolve() before it, finds them cleared). */
static const char *resolved_raw;
static uintptr_t resolved_addr, resolved_end;   /* end: of the symbol starting there, or 0 */

/* Resolver of the settings: the symbol table is read on first use, under
 * the function table's lock (callpath.c), so only once. */
static VFTR_NI const char *resolve(void *arg, uintptr_t addr)
{
    (void)arg;
    resolved_addr = addr;
    if (symtab == NULL && !symtab_failed) {
        unsigned flags = (vftr_proc.cfg.demangle_cxx ? VFTR_SYMTAB_DEMANGLE : 0)
                         /* the module stays: never VFTR_SYMTAB_STRIP_MODULES (issue 16) */
                         | (vftr_proc.cfg.strip_module_names ? VFTR_SYMTAB_FORTRAN_MODULES : 0);

        symtab = vftr_symtab_new(flags);
        symtab_failed = symtab == NULL;
    }
    /* the symbol's name, or the Fortran main program's and OpenMP outlined
     * functions' (names.h); the raw symbol for Score-P's MANGLED rules */
    if (symtab != NULL) {
        const char *name = vftr_names_resolve(symtab, addr);
        struct vftr_symbol sym;

        resolved_raw = vftr_symtab_find(symtab, addr, &sym) == 0 ? sym.raw_name : NULL;
        resolved_end = resolved_raw && sym.start == addr ? sym.end : 0;
        return name;
    }
    resolved_raw = NULL;
    resolved_end = 0;
    return NULL;
}

VFTR_NI void vftr_symbols_forget(uintptr_t lo, uintptr_t hi)
{
    /* the resolver's lock: the table is made under it */
    pthread_mutex_lock(&vftr_proc.fn_lock);
    (void)vftr_symtab_forget(symtab, lo, hi);
    vftr_names_forget();
    pthread_mutex_unlock(&vftr_proc.fn_lock);
}

static VFTR_NI uint32_t classify(void *arg, const char *name)
{
    const struct vftr_config *cfg = arg;
    uint32_t flags = 0;
    const char *raw = resolved_raw;
    uintptr_t addr = resolved_addr, end = resolved_end;

    resolved_raw = NULL;
    resolved_addr = resolved_end = 0;
    if (!vftr_config_function_selected(cfg, name) || vftr_names_hidden(name) ||
        vftr_filter_excludes(name, raw, addr))
        flags |= VFTR_FN_EXCLUDED;
    /* patch.c: the extent of an excluded function, and of any that
     * throttling may stop tracing (also near the size cap), for its own
     * sites and the exit hook's jumps */
    if (end > addr)
        vftr_patch_note(addr, end);
    if (cfg->trace_precise_functions && vftr_regex_match(cfg->trace_precise_functions, name))
        flags |= VFTR_FN_PRECISE;
    return flags;
}

/* -------------------------------------------------------- initialization */

/*
 * Ticks one enter + exit pair costs, measured with the real hooks on a
 * private thread state (never registered, never flushed): the best of a
 * few rounds, so that an interrupt does not inflate it.  This is the
 * overhead charged per call in the profile; measuring it per call would
 * need a second clock read in every hook.
 */
static VFTR_NI double calibrate_hooks(void)
{
    static uint8_t buf[VFTR_VFD_CHUNK_HEADER_SIZE + 200 * 2 * VFTR_VFD_EVENT_MAX
                       + VFTR_EVENT_SLACK];
    static struct vftr_thread calib;
    struct vftr_fn *f = vftr_fn_region("vftr:calibration", 0);
    uint64_t best = UINT64_MAX;
    int round, i;

    struct vftr_thread *caller = vftr_tls;

    if (f == NULL)
        return 0;
    calib.cur = &calib.root;
    calib.root.last_child = calib.root.succ = &vftr_node_none;
    calib.buf = buf;
    calib.buf_cap = sizeof buf;
    calib.room = sizeof buf - VFTR_VFD_CHUNK_HEADER_SIZE - VFTR_EVENT_SLACK;
    atomic_init(&calib.pos, buf + VFTR_VFD_CHUNK_HEADER_SIZE);
    vftr_phase_lock();
    vftr_phase_thread_init(&calib);   /* its key admits the fast path, as a thread's would */
    vftr_phase_unlock();
    calib.trace = vftr_proc.set.trace;
    calib.fast_key = vftr_clock_kind == VFTR_CLK_TSC ? atomic_load(&vftr_proc.phase) : VFTR_KEY_NONE;
    calib.interval = 0;
    vftr_tls_set(&calib);
    for (round = 0; round < 7; round++) {
        uint64_t t0 = vftr_clock_now(), t1;

        for (i = 0; i < 200; i++) {
            __cyg_profile_func_enter((void *)f->addr, NULL);
            __cyg_profile_func_exit((void *)f->addr, NULL);
        }
        t1 = vftr_clock_now();
        if (t1 - t0 < best)
            best = t1 - t0;
        atomic_store(&calib.pos, buf + VFTR_VFD_CHUNK_HEADER_SIZE);
        calib.fast_end = NULL;
        calib.count = 0;
    }
    /* back to what the initializing thread had: the guarded dummy when it
     * came through vftr_thread_attach, NULL when an extension (vftr_ext_*,
     * the OpenMP tool) started capture, so that it attaches on its next
     * hook instead of staying guarded for good */
    vftr_tls_set(caller);
    return (double)best / 200.0;
}

/*
 * The run id: random, except that the processes of one launcher job (a
 * program without MPI started by mpirun or srun) derive it from the job's
 * name, so that their files are known as one run; an MPI program's ranks
 * agree on rank 0's id at MPI_Init anyway (a RUN_ID chunk).
 */
static VFTR_NI void random_run_id(uint8_t id[16])
{
    char job[256];
    ssize_t n;

    if (vftr_job_from_env(NULL, job, sizeof job)) {
        uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };

        for (int k = 0; k < 2; k++)
            for (const char *p = job; *p; p++)
                h[k] = (h[k] ^ (unsigned char)*p) * 0x100000001b3ull;   /* FNV-1a */
        memcpy(id, h, 16);
        return;
    }
    n = getrandom(id, 16, GRND_NONBLOCK);

    if (n != 16) {   /* no entropy yet (early boot): time and pid will do */
        uint64_t a = vftr_clock_realtime_ns() ^ ((uint64_t)getpid() << 32), b = vftr_clock_now();

        memcpy(id, &a, 8);
        memcpy(id + 8, &b, 8);
    }
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/*
 * Initialization, once per process, on the first hook of any thread:
 * rank from the launcher, configuration, clock, settings, trace file,
 * signal and fork handlers, thread-exit key, atexit finalization.  Any
 * failure switches capture off (or just the trace) with one message; the
 * program goes on.
 */
static VFTR_NI void init(void)
{
    struct vftr_config *cfg = &vftr_proc.cfg;
    struct vftr_settings s;
    int rc, rank = -1, size = -1;

    vftr_proc.pid = getpid();
    vftr_rank_from_env(NULL, &rank, &size);
    vftr_proc.rank = rank;
    vftr_proc.size = size;
    vftr_proc.is_rank0 = rank <= 0;

    int errors = 0;
    rc = vftr_config_load(cfg, NULL, NULL, config_report, &errors);
    if (rc < 0 || cfg->off) {
        /* the configuration's own error says that capture is off; say it
         * here only if nothing was said */
        if (rc < 0 && errors == 0 && vftr_proc.is_rank0)
            vftr_msg_raw("capture switched off (configuration)");
        atomic_store(&vftr_proc.phase, VFTR_PHASE_STOPPED);
        return;
    }
    if (vftr_clock_init(cfg->clock == VFTR_CLOCK_TSC ? "tsc" : "monotonic") != VFTR_CLK_TSC
        && cfg->clock == VFTR_CLOCK_TSC && vftr_proc.is_rank0 && vftr_clock_kind != VFTR_CLK_TEST)
        vftr_msg_raw("no invariant time-stamp counter: using clock_gettime(CLOCK_MONOTONIC)");
    vftr_ext_setup();
    vftr_proc.start_ns = vftr_clock_realtime_ns();
    vftr_proc.start_ticks = vftr_clock_now();
    random_run_id(vftr_proc.run_id);

    (void)vftr_filter_setup(cfg, vftr_proc.is_rank0);
    (void)vftr_patch_setup(cfg->filter_patch_excluded);
    max_depth = cfg->filter_max_depth;
    memset(&s, 0, sizeof s);
    s.trace = cfg->trace_active;
    s.sample_interval = cfg->trace_sample_interval;
    s.min_duration = cfg->filter_min_duration;
    /* Per-thread event buffer: the events are encoded as they come (2 to
     * 4 bytes each), and a flush reads the buffer once more (CRC, write).
     * It should stay in the cache between the two: VFTR_BUFFER_KIB (a
     * tuning knob, not a configuration key) or 256 KiB, at most
     * trace.outbuffer_size MiB. */
    {
        const char *kib = getenv("VFTR_BUFFER_KIB");
        uint64_t n = 256;
        char err[VFTR_ERRMSG_MAX];
        size_t want, most = (size_t)(cfg->trace_outbuffer_size > 0 ?
                                     cfg->trace_outbuffer_size : 1) << 20;

        /* The tools' count syntax: a value that is no count, or out of
         * range, is said and the default kept (never clamped or wrapped). */
        if (kib && *kib && vftr_count_parse(kib, 4, 1u << 22, "VFTR_BUFFER_KIB", &n, err,
                                            sizeof err) < 0) {
            vftr_msg("%s; using 256", err);
            n = 256;
        }
        want = (size_t)n << 10;
        s.buffer_bytes = want < most ? want : most;
    }
    s.max_bytes = cfg->trace_max_size;
    s.max_job_bytes = cfg->trace_max_job_size;
    s.keep_free = cfg->trace_keep_free;
    s.prelude = cfg->include_cxx_prelude;
    s.classify = classify;
    s.classify_arg = cfg;
    s.resolve = resolve;
    if (vftr_callpath_setup(&s) < 0) {
        atomic_store(&vftr_proc.phase, VFTR_PHASE_STOPPED);
        return;
    }
    snprintf(vftr_proc.dir, sizeof vftr_proc.dir, "%s", cfg->output_directory);
    snprintf(vftr_proc.base, sizeof vftr_proc.base, "%s",
             cfg->outfile_basename ? cfg->outfile_basename : program_invocation_short_name);
    if (gethostname(vftr_proc.host, sizeof vftr_proc.host - 1) != 0)
        vftr_proc.host[0] = '\0';
    {   /* the directory is made if missing (outdir.h) */
        char failed[1100];
        int err = vftr_outdir_prepare(vftr_proc.dir, failed, sizeof failed);

        if (err < 0) {
            if (vftr_proc.is_rank0)
                vftr_msg("output_directory \"%s\": cannot make %s (%s); capture switched off",
                         vftr_proc.dir, failed[0] ? failed : "it", strerror(-err));
            atomic_store(&vftr_proc.phase, VFTR_PHASE_STOPPED);
            return;
        }
    }
    if (s.trace)
        vftr_trace_open(vftr_proc.dir, vftr_proc.base);
    if (vftr_proc.writer == NULL)
        vftr_proc.set.trace = false;
    if (vftr_ctr_setup(cfg, vftr_proc.is_rank0) > 0 && vftr_proc.writer)
        (void)vftr_ctr_define(vftr_proc.writer);

    /* keeps ompt_start_tool (ompt.c) in a program linked with the static
     * libvftrcapture.a, where nothing else refers to it; without a runtime
     * that asks for it, the call does nothing */
    (void)ompt_start_tool(0, NULL);
    vftr_membarrier_setup();
    vftr_thread_setup_key();
    vftr_signals_setup();
    vftr_proc.hook_cost = calibrate_hooks();
    vftr_proc.recording = true;
    /* the rest of the start-up is capture's own work, also where the
     * main thread's sampling has begun (sample.h) */
    vftr_sample_own_begin();
    (void)vftr_sample_setup(cfg);   /* sample.h: off unless sample.interval */
    /* a program without MPI knows its run now: an earlier run's files move
     * aside (outdir.h); an MPI program's rank 0 does it at MPI_Init */
    if (dlsym(RTLD_DEFAULT, "MPI_Init") == NULL)
        vftr_outdir_keep_old_once();
    vftr_io_setup();    /* file I/O (io.h): interposed calls record from here on */
    atexit(vftr_finalize);
    vftr_ctl_setup();   /* external control (ctl.h): a failure leaves one message */
    vftr_sample_own_end();
}

VFTR_NI void vftr_init_once(void)
{
    pthread_once(&init_once, init);
}
