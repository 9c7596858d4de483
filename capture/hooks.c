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
 * Cost per hook on the common path: one TLS load (initial-exec), the guard
 * (a load and two stores of the thread's own cache line), one load of the
 * shared phase word (read-mostly), one clock read, one compare with the
 * cached child (enter) or the current node (exit), counters updated in
 * place, and one bounds-checked append to the event buffer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>

#include "capture.h"
#include "ext.h"
#include "config.h"
#include "symbols.h"

void __cyg_profile_func_enter(void *fn, void *site) VFTR_EXPORT VFTR_NI;
void __cyg_profile_func_exit(void *fn, void *site) VFTR_EXPORT VFTR_NI;

VFTR_EXPORT VFTR_NI void __cyg_profile_func_enter(void *fn, void *site)
{
    struct vftr_thread *t = vftr_hook_begin();

    (void)site;
    if (t == NULL)
        return;
    vftr_enter_at(t, (uintptr_t)fn, NULL, vftr_clock_now());
    vftr_guard_drop(t);
}

VFTR_EXPORT VFTR_NI void __cyg_profile_func_exit(void *fn, void *site)
{
    struct vftr_thread *t = vftr_hook_begin();

    (void)site;
    if (t == NULL)
        return;
    vftr_exit_at(t, (uintptr_t)fn, vftr_clock_now());
    vftr_guard_drop(t);
}

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

/* Resolver of the settings: the symbol table is read on first use, under
 * the function table's lock (callpath.c), so only once. */
static VFTR_NI const char *resolve(void *arg, uintptr_t addr)
{
    (void)arg;
    if (symtab == NULL && !symtab_failed) {
        unsigned flags = (vftr_proc.cfg.demangle_cxx ? VFTR_SYMTAB_DEMANGLE : 0)
                         | (vftr_proc.cfg.strip_module_names ? VFTR_SYMTAB_STRIP_MODULES : 0);

        symtab = vftr_symtab_new(flags);
        symtab_failed = symtab == NULL;
    }
    return symtab ? vftr_symtab_lookup(symtab, addr) : NULL;
}

static VFTR_NI uint32_t classify(void *arg, const char *name)
{
    const struct vftr_config *cfg = arg;
    uint32_t flags = 0;

    if (!vftr_config_function_selected(cfg, name))
        flags |= VFTR_FN_EXCLUDED;
    if (cfg->sampling_precise_functions && vftr_regex_match(cfg->sampling_precise_functions, name))
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
    static struct vftr_vfd_event ev[512];
    static struct vftr_thread calib;
    struct vftr_fn *f = vftr_fn_region("vftr:calibration", 0);
    uint64_t best = UINT64_MAX;
    int round, i;

    if (f == NULL)
        return 0;
    calib.cur = &calib.root;
    calib.ev = ev;
    calib.ev_cap = sizeof ev / sizeof ev[0];
    calib.trace = vftr_proc.set.trace;
    calib.interval = 0;
    vftr_tls = &calib;
    for (round = 0; round < 7; round++) {
        uint64_t t0 = vftr_clock_now(), t1;

        for (i = 0; i < 200; i++) {
            __cyg_profile_func_enter((void *)f->addr, NULL);
            __cyg_profile_func_exit((void *)f->addr, NULL);
        }
        t1 = vftr_clock_now();
        if (t1 - t0 < best)
            best = t1 - t0;
        atomic_store(&calib.ev_n, 0);
    }
    vftr_tls = &vftr_thread_off;
    return (double)best / 200.0;
}

static VFTR_NI void random_run_id(uint8_t id[16])
{
    ssize_t n = getrandom(id, 16, GRND_NONBLOCK);

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

    memset(&s, 0, sizeof s);
    s.trace = cfg->sampling_active;
    s.sample_interval = cfg->sampling_sample_interval;
    /* Per-thread event buffer: sampling.outbuffer_size MiB, but at most
     * 1 MiB (64 Ki events; the key's minimum is 1, so in effect always
     * 1 MiB).  Measured on fib(32): an 8 MiB buffer costs ~15 % more per
     * event than a 1 MiB one, because it no longer stays in the cache
     * between the hooks filling it and the encoder reading it. */
    s.buffer_events = (size_t)(cfg->sampling_outbuffer_size < 1 ? cfg->sampling_outbuffer_size : 1)
                      * ((size_t)1 << 20) / sizeof(struct vftr_vfd_event);
    s.max_bytes = cfg->trace_max_size;
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
    if (s.trace)
        vftr_trace_open(vftr_proc.dir, vftr_proc.base);
    if (vftr_proc.writer == NULL)
        vftr_proc.set.trace = false;

    vftr_membarrier_setup();
    vftr_thread_setup_key();
    vftr_signals_setup();
    vftr_proc.hook_cost = calibrate_hooks();
    vftr_proc.recording = true;
    atexit(vftr_finalize);
}

VFTR_NI void vftr_init_once(void)
{
    pthread_once(&init_once, init);
}
