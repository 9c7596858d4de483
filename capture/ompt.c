/*
 * ompt.c — vftr's OpenMP tool: the OMPT interface of OpenMP 5.x, inside
 * libvftrcapture.
 *
 * An OpenMP runtime that implements OMPT (LLVM's libomp, i.e. clang
 * -fopenmp; GCC's libgomp does not) looks up `ompt_start_tool` in the
 * process when it initializes.  Ours answers with an initializer when
 * capture records a trace, and NULL (no tool, no cost) otherwise.  The
 * initializer registers callbacks for threads, parallel regions, implicit
 * and explicit tasks, worksharing constructs, sync regions (barriers,
 * taskwait, taskgroup), masked/master and mutexes (critical, locks, nest
 * locks, ordered), and each callback appends a VFTR_VFD_OMP_BEGIN or
 * VFTR_VFD_OMP_END event (lib/vfd/vftr_vfd_ext.h) to the calling thread's
 * trace buffer through vftr_ext_event (capture/ext.h).
 *
 * Region definitions.  Every (kind, code address) pair becomes one
 * OMP_REGIONS entry with an id from an atomic counter, written with
 * vftr_ext_chunk before the id is published, hence before the first event
 * that uses it.  The map is a fixed open-addressing table: lookups are
 * lock-free (a slot's key is written before its id is stored with release;
 * a reader compares keys only after it saw the id), insertions take one
 * mutex, and name the enclosing function through capture's symbol table
 * (under the function table's lock, as capture's resolver requires) and
 * its source file and line through the DWARF line tables (ompt_lines.h,
 * libdw), for the code address minus one: OMPT's code address is the
 * return address of the runtime call the construct compiled to, and the
 * byte before it belongs to that call, i.e. to the construct's line.  The
 * libdw session is opened at the first definition (a program that never
 * enters an OpenMP region never opens it), used under the map's lock, and
 * ended by vftr_ompt_close_all at finalization.  Without line tables
 * (no -g, stripped, no libdw) the entries carry "" and 0, and capture says
 * so once per process at most.  When the table is three quarters full,
 * further code addresses share one entry per kind (code address 0,
 * function "").
 *
 * Nesting.  Each thread keeps a small stack of its open regions
 * (VFTR_OMPT_DEPTH frames, allocated at its first callback).  An end
 * callback closes the innermost open region of its kind (and instance); a
 * region that ends while regions opened after it are still open (a lock
 * released out of order, a task finished under a suspended one) closes
 * those first and reopens them after it, with new BEGIN events, so that
 * the regions in the trace always nest.  End events carry the region id of
 * their begin; a region whose begin was not recorded (trace off) records
 * no end.  A pause (or a stopped trace) cuts the regions as it cuts the
 * functions: those open end at the pause, and those open at the resume
 * begin again there (vftr_ompt_trace_switch, vftr_ompt_trace_node), so
 * that no region in the trace spans a paused stretch.  Regions still open
 * when the thread ends (thread_end, the tool's finalizer) are closed then,
 * and vftr_ompt_close_all (ompt.h) lets capture's finalizer close those of
 * every thread (libomp reports the end of a worker's last implicit task
 * only after capture finalized).  Stacks are registered in a list and
 * never freed; a busy flag per stack, set around each callback, keeps the
 * finalizer off a stack in use.
 *
 * The profile.  Every BEGIN and END also moves the thread's call tree
 * (capture.h: OpenMP nodes) the way the readers of the trace move their
 * stack of frames (lib/model/vfdconv.c): a BEGIN pushes the region's node
 * (vftr_omp_enter), an END closes the innermost node of its region id and
 * what lies above it (vftr_omp_leave), the BEGINs and ENDs of the regions
 * closed and begun again around an out-of-order end included.  A frame
 * does so while it is "counted": from its begin on, unless a resume found
 * its node no longer on the stack (a function's exit closed it), since the
 * resume does not begin such a region again in the trace.  Each region id
 * has a function record (one per name, vftr_vfd_omp_region_name), made
 * with its definition and found by the id, so a callback looks nothing up
 * by name.
 *
 * Instances and values: PARALLEL and IMPLICIT_TASK carry vftr's sequence
 * number of the parallel region (from 1); worksharing and sync regions the
 * one of the parallel region they bind to (0 when OMPT gives none); mutex
 * regions OMPT's wait id (the lock's address for locks); TASK a sequence
 * number of the explicit task.  PARALLEL's value is the requested team
 * size at BEGIN and the actual team size at END (when the encountering
 * thread saw its implicit task); IMPLICIT_TASK's the thread's number in the
 * team; LOOP's the count OMPT reports (the iteration count).
 *
 * Cost per event: one TLS load, a probe of the region map, the node (the
 * cached child of the current node, as the hooks find it), a varint
 * encoding of at most 30 bytes and vftr_ext_event; no lock, allocation or
 * stdio (but for a node met for the first time).  Callbacks never call
 * into the OpenMP runtime.
 *
 * Linking: the shared library exports ompt_start_tool (capture/exports.map),
 * so the linker keeps it.  ompt_start_tool(0, NULL), the dummy call of the
 * original vftrace, returns NULL and does nothing: an initialization that
 * wants to reference the symbol (for the static archive) may make it.
 *
 * Built when the compiler finds <omp-tools.h> (clang's resource directory;
 * capture/ompt/module.mk adds it for gcc); without it ompt_start_tool is a
 * stub that returns NULL.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "capture.h"
#include "ext.h"
#include "ompt.h"
#include "ompt_lines.h"
#include "vfd/vftr_vfd_ext.h"

#if defined(__has_include)
#if __has_include(<omp-tools.h>)
#define VFTR_HAVE_OMPT 1
#endif
#endif

#ifndef VFTR_HAVE_OMPT

VFTR_NI int vftr_ompt_close_all(vftr_ompt_put_fn *put, uint64_t now)
{
    (void)put;
    (void)now;
    return 0;
}

VFTR_NI void vftr_ompt_trace_switch(struct vftr_thread *vt, bool on, uint64_t when)
{
    (void)vt;
    (void)on;
    (void)when;
}

VFTR_NI void vftr_ompt_trace_node(struct vftr_thread *vt, const struct vftr_node *n, bool on,
                                  uint64_t when)
{
    (void)vt;
    (void)n;
    (void)on;
    (void)when;
}

VFTR_NI uint32_t vftr_ompt_parallel_regions(void)
{
    return 0;
}

VFTR_NI bool vftr_ompt_active(void)
{
    return false;
}

VFTR_NI void vftr_ompt_idle_all(uint64_t now)
{
    (void)now;
}

VFTR_NI void vftr_ompt_forget(uintptr_t lo, uintptr_t hi)
{
    (void)lo;
    (void)hi;
}

struct ompt_start_tool_result_t;
VFTR_EXPORT VFTR_NI struct ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                                     const char *runtime_version);

VFTR_EXPORT VFTR_NI struct ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                                     const char *runtime_version)
{
    (void)omp_version;
    (void)runtime_version;
    return NULL;
}

#else /* VFTR_HAVE_OMPT */

#include <omp-tools.h>

VFTR_EXPORT VFTR_NI ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                              const char *runtime_version);

/* ---------------------------------------------------------- region map */

#define MAP_CAP 4096u                   /* slots, a power of two */
#define MAP_LIMIT (MAP_CAP / 4 * 3)     /* definitions before the overflow entries */

struct map_slot {
    _Atomic uintptr_t code;
    _Atomic uint32_t kind;
    _Atomic uint32_t id;                /* 0: empty; stored last (release) */
};

static struct map_slot region_map[MAP_CAP];
static uint32_t overflow_id[VFTR_VFD_OMP_KIND_COUNT];   /* under map_lock */
/* The function record of each region id (capture.h: OpenMP nodes), stored
 * (release) before the id is published; and one record per name, under
 * map_lock (code addresses of one name are one function to the readers of
 * the trace, and so in the profile). */
#define MAX_IDS (MAP_LIMIT + VFTR_VFD_OMP_KIND_COUNT + 1u)
static struct vftr_fn *_Atomic region_fn[MAX_IDS];
/* The code address of each region id's definition (stored before the id
 * is published): a barrier the runtime reports without one takes its
 * parallel region's, found through the implicit task's id. */
static _Atomic uintptr_t region_code[MAX_IDS];
static struct vftr_fn *name_map[MAP_CAP];
static size_t map_count;                                /* under map_lock */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t next_region = 1;
static _Atomic uint32_t next_parallel = 1;
static _Atomic uint32_t next_task = 1;
static _Atomic bool tool_active;   /* the runtime took our callbacks */

/* The source line resolver, under map_lock: opened at the first
 * definition, never again once it failed or was released. */
static struct vftr_ompt_lines *lines;
static enum { LINES_UNTRIED, LINES_OPEN, LINES_OFF } lines_state;
static bool lines_told;         /* the one message about missing line tables */

/* Where the OpenMP runtime is mapped (the object holding its lookup
 * function; NULL when that is the program itself, a static runtime), set
 * by tool_initialize before any callback.  Some return addresses the
 * runtime reports lie inside itself (LLVM 14's libomp, for a contended
 * omp_set_lock): such regions are named by the runtime's function, get no
 * file:line, and are no reason to tell the user that the runtime was built
 * without -g. */
static void *runtime_base;

static VFTR_NI bool in_runtime(uintptr_t addr)
{
    Dl_info di;

    return runtime_base != NULL && dladdr((void *)addr, &di) != 0 && di.dli_fbase == runtime_base;
}

/* Remembers where the runtime whose lookup function this is lies. */
static VFTR_NI void note_runtime(ompt_function_lookup_t lookup)
{
    Dl_info rt, prog;
    void *phdr = (void *)getauxval(AT_PHDR);   /* inside the program's first mapping */

    runtime_base = NULL;
    if (dladdr((void *)(uintptr_t)lookup, &rt) != 0 && rt.dli_fbase != NULL
        && !(phdr != NULL && dladdr(phdr, &prog) != 0 && prog.dli_fbase == rt.dli_fbase))
        runtime_base = rt.dli_fbase;
}

static inline VFTR_NI size_t map_hash(uintptr_t code, uint32_t kind)
{
    uint64_t h = ((uint64_t)code ^ ((uint64_t)kind << 56)) * 0x9e3779b97f4a7c15ull;

    return (size_t)(h >> 40) & (MAP_CAP - 1);
}

/* Name of the function containing the return address code ("" when none
 * is known).  The resolver reads the symbol tables on first use and wants
 * the function table's lock. */
static VFTR_NI const char *function_of(uintptr_t code)
{
    const char *name = NULL;

    if (code == 0 || vftr_proc.set.resolve == NULL)
        return "";
    pthread_mutex_lock(&vftr_proc.fn_lock);
    /* a return address may be one past the function's last call */
    name = vftr_proc.set.resolve(vftr_proc.set.resolve_arg, code - 1);
    pthread_mutex_unlock(&vftr_proc.fn_lock);
    return name ? name : "";
}

/* Source file and line of the construct whose runtime call returns to
 * code ("" and 0 when unknown); map_lock held. */
static VFTR_NI void source_of(uintptr_t code, const char **file, uint32_t *line)
{
    const char *object = NULL;

    *file = "";
    *line = 0;
    if (code == 0 || in_runtime(code - 1))
        return;
    if (lines_state == LINES_UNTRIED) {
        lines_state = LINES_OPEN;
        if ((lines = vftr_ompt_lines_new()) == NULL) {
            lines_state = LINES_OFF;
            if (errno != ENOTSUP)
                vftr_msg("openmp: cannot read line tables (%s): regions have no file:line",
                         strerror(errno));
            return;
        }
    }
    if (lines_state != LINES_OPEN)
        return;
    if (vftr_ompt_lines_find(lines, code - 1, file, line, &object) == -ENODATA && !lines_told
        && object != NULL) {
        lines_told = true;
        vftr_msg("openmp: no line table for %s (built without -g, or stripped): "
                 "its regions have no file:line", object[0] ? object : "a loaded object");
    }
}

/* Ends the resolver's session (finalization).  A thread that still holds
 * map_lock (stopped inside a definition) keeps it: the session is then
 * left to the exit. */
static VFTR_NI void lines_release(void)
{
    if (pthread_mutex_trylock(&map_lock) != 0)
        return;
    vftr_ompt_lines_free(lines);
    lines = NULL;
    lines_state = LINES_OFF;
    pthread_mutex_unlock(&map_lock);
}

/* The key a forgotten slot gets: no return address is the last byte of
 * the address space. */
#define FORGOTTEN UINTPTR_MAX

VFTR_NI void vftr_ompt_forget(uintptr_t lo, uintptr_t hi)
{
    bool any = false;

    pthread_mutex_lock(&map_lock);
    /* Slots are never emptied (a lookup stops at an empty slot and would
     * miss what lies beyond): the key changes to one nobody asks for.  A
     * lookup racing with this reads the old key or the new one; neither is
     * the address of code that is not mapped. */
    for (size_t i = 0; i < MAP_CAP; i++) {
        struct map_slot *s = &region_map[i];
        uintptr_t code = atomic_load_explicit(&s->code, memory_order_relaxed);

        if (atomic_load_explicit(&s->id, memory_order_relaxed) != 0 && code != 0 && code >= lo
            && code < hi && code != FORGOTTEN) {
            atomic_store_explicit(&s->code, FORGOTTEN, memory_order_relaxed);
            any = true;
        }
    }
    /* libdwfl keeps the modules it was given for the session: one that was
     * unmapped would answer for code mapped at its place later */
    if (any && lines_state == LINES_OPEN) {
        vftr_ompt_lines_free(lines);
        lines = NULL;
        lines_state = LINES_UNTRIED;
    }
    pthread_mutex_unlock(&map_lock);
}

/* The function record of the regions called name (map_lock held): made
 * on first sight; NULL when memory ran out. */
static VFTR_NI struct vftr_fn *fn_named(const char *name)
{
    uint64_t h = 14695981039346656037ull;   /* FNV-1a */

    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    /* fewer names than regions, fewer regions than slots: a free slot ends
     * every probe */
    for (size_t i = 0; i < MAP_CAP; i++) {
        struct vftr_fn **slot = &name_map[(h + i) & (MAP_CAP - 1)];

        if (*slot == NULL)
            return *slot = vftr_fn_omp(name);
        if (strcmp((*slot)->name, name) == 0)
            return *slot;
    }
    return NULL;
}

/* The function record of region id (NULL: none, the region is no node). */
static inline VFTR_NI struct vftr_fn *fn_of(uint32_t id)
{
    return id < MAX_IDS ? atomic_load_explicit(&region_fn[id], memory_order_acquire) : NULL;
}

/* Writes the OMP_REGIONS chunk of one new region and makes its function
 * record, named as the readers of the trace name it (map_lock held). */
static VFTR_NI void define_region(uint32_t id, uint32_t kind, uintptr_t code)
{
    struct vftr_vfd_omp_region r = {
        .id = id, .kind = kind, .codeptr = code, .function = function_of(code),
    };
    struct vftr_vfd_omp_region_view v;
    char name[VFTR_VFD_OMP_NAME_MAX];
    uint8_t small[512], *buf = small;
    size_t cap, len;

    source_of(code, &r.file, &r.line);
    v = (struct vftr_vfd_omp_region_view){ r, strlen(r.function), strlen(r.file) };
    vftr_vfd_omp_region_name(&v, name, sizeof name);
    if (id < MAX_IDS) {
        atomic_store_explicit(&region_code[id], code, memory_order_relaxed);
        atomic_store_explicit(&region_fn[id], fn_named(name), memory_order_release);
    }
    cap = vftr_vfd_omp_regions_bound(&r, 1);
    if (cap > sizeof small && (buf = malloc(cap)) == NULL)
        return;
    len = vftr_vfd_encode_omp_regions(&r, 1, buf, cap);
    if (len)
        vftr_ext_chunk(buf, len);
    if (buf != small)
        free(buf);
}

/* Slow path of region_id: under the lock, find or define. */
static VFTR_NI uint32_t region_define(uint32_t kind, uintptr_t code)
{
    size_t h = map_hash(code, kind), i;
    uint32_t id = 0;

    pthread_mutex_lock(&map_lock);
    for (i = 0; i < MAP_CAP; i++) {
        struct map_slot *s = &region_map[(h + i) & (MAP_CAP - 1)];
        uint32_t sid = atomic_load_explicit(&s->id, memory_order_relaxed);

        if (sid == 0) {
            if (map_count >= MAP_LIMIT)
                break;
            id = atomic_fetch_add(&next_region, 1);
            define_region(id, kind, code);
            atomic_store_explicit(&s->code, code, memory_order_relaxed);
            atomic_store_explicit(&s->kind, kind, memory_order_relaxed);
            atomic_store_explicit(&s->id, id, memory_order_release);
            map_count++;
            goto out;
        }
        if (atomic_load_explicit(&s->code, memory_order_relaxed) == code
            && atomic_load_explicit(&s->kind, memory_order_relaxed) == kind) {
            id = sid;
            goto out;
        }
    }
    /* the map is full: one shared entry per kind */
    if (overflow_id[kind] == 0) {
        overflow_id[kind] = atomic_fetch_add(&next_region, 1);
        define_region(overflow_id[kind], kind, 0);
    }
    id = overflow_id[kind];
out:
    pthread_mutex_unlock(&map_lock);
    return id;
}

/* The code address of region id's definition (0 when unknown). */
static inline VFTR_NI uintptr_t code_of(uint32_t id)
{
    return id < MAX_IDS ? atomic_load_explicit(&region_code[id], memory_order_relaxed) : 0;
}

/* The OMP_REGIONS id of (kind, code), defined on first sight. */
static inline VFTR_NI uint32_t region_id(uint32_t kind, const void *codeptr)
{
    uintptr_t code = (uintptr_t)codeptr;
    size_t h = map_hash(code, kind);

    for (size_t i = 0; i < MAP_CAP; i++) {
        struct map_slot *s = &region_map[(h + i) & (MAP_CAP - 1)];
        uint32_t id = atomic_load_explicit(&s->id, memory_order_acquire);

        if (id == 0)
            break;
        if (atomic_load_explicit(&s->code, memory_order_relaxed) == code
            && atomic_load_explicit(&s->kind, memory_order_relaxed) == kind)
            return id;
    }
    return region_define(kind, code);
}

/* ------------------------------------------------------ thread stacks */

#define VFTR_OMPT_DEPTH 64

struct frame {
    uint32_t region;
    uint32_t kind;
    uint64_t instance;
    uint64_t value;
    uint64_t since;             /* time of its (last) BEGIN */
    bool recorded;              /* its BEGIN is in the trace */
    bool counted;               /* its BEGIN and END move the call tree: it is on the
                                 * stack of the trace's readers, or would be if the
                                 * thread recorded now (see vftr_ompt_trace_switch) */
    struct vftr_node *node;     /* its node in the call tree (capture.h), if made */
};

struct othread {
    _Atomic int busy;           /* the thread is inside a callback */
    uint32_t depth;             /* frames in use */
    uint32_t deeper;            /* begins beyond the stack (not recorded) */
    struct vftr_thread *vt;     /* capture's state of the thread */
    struct othread *next;       /* registry, newest first; never removed */
    struct frame f[VFTR_OMPT_DEPTH];
};

static __thread struct othread *ot_tls __attribute__((tls_model("initial-exec")));
static struct othread *_Atomic registry;

/*
 * The calling thread's stack, allocated and registered on its first
 * callback (never freed: vftr_ompt_close_all may look at it), marked busy,
 * with capture's guard of the thread taken for the callback: NULL when the
 * callback must do nothing (capture stopped, no memory, a thread capture
 * does not record).  Taking the guard brings the thread up to date with
 * the process's switches first (phase.c: a pause ends the open regions,
 * through vftr_ompt_trace_switch), so nothing changes the stack while the
 * callback works on it; and whoever works on a thread's state from outside
 * (the finalizer, a control event, the signal handler) does so only with
 * its guard.  The busy flag and the phase are checked in the order
 * vftr_guard_take uses (store, then load; vftr_stop_world's membarrier
 * orders them), so that a thread either sees the phase STOPPED and leaves
 * its stack alone or is seen busy by vftr_ompt_close_all, which then
 * leaves it alone.
 */
static inline VFTR_NI struct othread *claim(void)
{
    struct othread *t = ot_tls;

    if (VFTR_UNLIKELY(t == NULL)) {
        if ((t = calloc(1, sizeof *t)) == NULL)
            return NULL;
        t->vt = vftr_thread_attach();
        t->next = atomic_load_explicit(&registry, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&registry, &t->next, t,
                                                      memory_order_release, memory_order_relaxed))
            ;
        ot_tls = t;
    }
    atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
    if (VFTR_UNLIKELY(t->vt == &vftr_thread_off || !vftr_guard_take(t->vt))) {
        atomic_store_explicit(&t->busy, 0, memory_order_release);
        return NULL;
    }
    if (VFTR_UNLIKELY(t->vt->omp == NULL))
        t->vt->omp = t;   /* read by vftr_ompt_trace_switch, under the guard */
    return t;
}

static inline VFTR_NI void release(struct othread *t)
{
    vftr_guard_drop(t->vt);
    atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* Writes event ev of frame f at now into the buffer of vt (its guard
 * held): false when the thread records nothing now (paused, trace
 * stopped, off or full). */
static VFTR_NI bool emit_on(struct vftr_thread *vt, uint32_t ev, const struct frame *f,
                            uint64_t now)
{
    struct vftr_vfd_omp o = { .region = f->region, .instance = f->instance, .value = f->value };
    uint8_t buf[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_omp_encode(&o, buf);

    return n && vftr_ext_event_on(vt, now, ev, buf, (uint32_t)n) == 0;
}

/* Frame f begins at now in the call tree: its region's node becomes the
 * current one (capture.h), as a reader of the trace puts it on the stack
 * at its OMP_BEGIN. */
static VFTR_NI void node_begin(struct othread *t, struct frame *f, uint64_t now)
{
    struct vftr_fn *fn = fn_of(f->region);

    f->node = fn ? vftr_omp_enter(t->vt, fn, f->region, now) : NULL;
}

static VFTR_NI void close_frame(struct othread *t, uint32_t i, uint64_t now);

/* Frame of kind on top of t's stack, or NULL. */
static inline VFTR_NI struct frame *top_of(struct othread *t, uint32_t kind)
{
    return t->depth && !t->deeper && t->f[t->depth - 1].kind == kind ? &t->f[t->depth - 1] : NULL;
}

static VFTR_NI void begin_at(struct othread *t, uint32_t kind, uint32_t region,
                             uint64_t instance, uint64_t value, uint64_t now)
{
    struct frame *f;

    if (t->depth == VFTR_OMPT_DEPTH) {
        t->deeper++;
        return;
    }
    f = &t->f[t->depth++];
    f->region = region;
    f->kind = kind;
    f->instance = instance;
    f->value = value;
    f->since = now;
    f->counted = true;
    node_begin(t, f, now);
    f->recorded = emit_on(t->vt, VFTR_VFD_OMP_BEGIN, f, now);
}

/* Anything a thread does ends its idle time (see idle_split). */
static VFTR_NI void begin(struct othread *t, uint32_t kind, uint32_t region, uint64_t instance,
                          uint64_t value)
{
    uint64_t now = vftr_ext_now();

    if (top_of(t, VFTR_VFD_OMP_IDLE))
        close_frame(t, t->depth - 1, now);
    begin_at(t, kind, region, instance, value, now);
}

/* Closes frame i of t and, for frames above it, closes and reopens them
 * so that the trace nests.  The call tree follows each END and BEGIN as a
 * reader of the trace does (capture.h: vftr_omp_leave, vftr_omp_enter). */
static VFTR_NI void close_frame(struct othread *t, uint32_t i, uint64_t now)
{
    uint32_t j;

    for (j = t->depth; j-- > i;) {
        if (t->f[j].counted)
            vftr_omp_leave(t->vt, t->f[j].region, now);
        if (t->f[j].recorded)
            emit_on(t->vt, VFTR_VFD_OMP_END, &t->f[j], now);
    }
    for (j = i + 1; j < t->depth; j++) {
        struct frame *f = &t->f[j - 1];

        *f = t->f[j];
        f->since = now;
        if (f->counted)
            node_begin(t, f, now);
        if (f->recorded)
            f->recorded = emit_on(t->vt, VFTR_VFD_OMP_BEGIN, f, now);
    }
    t->depth--;
}

#define ANY_INSTANCE UINT64_MAX

/* Ends the innermost open region of kind (and instance unless ANY).
 * value, unless 0, replaces the frame's value for the END event. */
static VFTR_NI void end(struct othread *t, uint32_t kind, uint64_t instance, uint64_t value)
{
    uint32_t i;

    if (t->deeper) {
        t->deeper--;
        return;
    }
    for (i = t->depth; i-- > 0;) {
        struct frame *f = &t->f[i];

        if (f->kind == kind && (instance == ANY_INSTANCE || f->instance == instance)) {
            if (value)
                f->value = value;
            close_frame(t, i, vftr_ext_now());
            return;
        }
    }
}

static VFTR_NI struct frame *find(struct othread *t, uint32_t kind, uint64_t instance)
{
    for (uint32_t i = t->depth; i-- > 0;)
        if (t->f[i].kind == kind && t->f[i].instance == instance)
            return &t->f[i];
    return NULL;
}

/* The innermost open region of kind, NULL when none is open. */
static VFTR_NI struct frame *innermost(struct othread *t, uint32_t kind)
{
    for (uint32_t i = t->depth; i-- > 0;)
        if (t->f[i].kind == kind)
            return &t->f[i];
    return NULL;
}

/* Closes every open region of t (thread end, tool finalization). */
static VFTR_NI void close_all(struct othread *t)
{
    uint64_t now = vftr_ext_now();

    while (t->depth)
        close_frame(t, t->depth - 1, now);
    t->deeper = 0;
}

VFTR_NI int vftr_ompt_close_all(vftr_ompt_put_fn *put, uint64_t now)
{
    int closed = 0;

    if (put == NULL)
        return 0;
    for (struct othread *t = atomic_load_explicit(&registry, memory_order_acquire); t;
         t = t->next) {
        if (atomic_load_explicit(&t->busy, memory_order_acquire) || t->vt == NULL)
            continue;   /* inside a callback: leave it alone */
        while (t->depth) {
            const struct frame *f = &t->f[--t->depth];
            struct vftr_vfd_omp o = { .region = f->region, .instance = f->instance,
                                      .value = f->value };
            uint8_t buf[VFTR_VFD_EXT_MAX];
            size_t n;

            if (f->recorded && (n = vftr_vfd_omp_encode(&o, buf)) > 0
                && put(t->vt, now, VFTR_VFD_OMP_END, buf, (uint32_t)n) == 0)
                closed++;
        }
        t->deeper = 0;
    }
    lines_release();
    return closed;
}

/*
 * Recording of thread vt's events ends (on false) or begins again (on) at
 * time when (phase.c, the guard of vt held), so that the regions of a
 * paused or stopped span are cut out of the trace as the functions are.
 * The frames of the call tree are walked (innermost first at the end,
 * outermost first at the start) and each OpenMP node among them ends or
 * begins its region here, in its place among the functions
 * (vftr_ompt_trace_node): a reader of the trace then rebuilds the stack
 * the profile has.  What the walk does not reach: at the end, after it,
 * the regions still recorded (their frames closed with a function: the
 * readers have no frame of them) end, for the trace to stay balanced; at
 * the start, before it, every region is marked as neither recorded nor
 * counted, and the walk marks those on the stack: the others, begun again
 * in the trace, would appear above the stack the readers rebuild, where
 * the profile has no node of them.
 */
VFTR_NI void vftr_ompt_trace_switch(struct vftr_thread *vt, bool on, uint64_t when)
{
    struct othread *t = vt->omp;

    if (t == NULL)
        return;
    for (uint32_t j = t->depth; j-- > 0;) {
        struct frame *f = &t->f[j];

        if (on) {
            f->recorded = f->counted = false;
        } else if (f->recorded) {
            emit_on(vt, VFTR_VFD_OMP_END, f, when);
            f->recorded = false;
        }
    }
}

/* The frame whose region node n stands for: the innermost frame that made
 * it (a frame whose node a function's exit closed may still name it, below
 * the one that made it again). */
VFTR_NI void vftr_ompt_trace_node(struct vftr_thread *vt, const struct vftr_node *n, bool on,
                                  uint64_t when)
{
    struct othread *t = vt->omp;

    if (t == NULL)
        return;
    for (uint32_t j = t->depth; j-- > 0;) {
        struct frame *f = &t->f[j];

        if (f->node != n || !(on || f->counted))
            continue;
        if (on) {
            f->counted = true;
            f->recorded = emit_on(vt, VFTR_VFD_OMP_BEGIN, f, when);
        } else if (f->recorded) {
            emit_on(vt, VFTR_VFD_OMP_END, f, when);
            f->recorded = false;
        }
        return;
    }
}

/* ------------------------------------------------------------ mapping */

/*
 * The runtime synchronizes its threads in ways ThreadSanitizer cannot see
 * (the runtime is not instrumented), so in a TSan build the callbacks tell
 * TSan, as LLVM's Archer tool does, about the hand-offs that order
 * capture's own data:
 *   - an explicit task's data, handed from the thread that created the
 *     task to the one that runs it (released by on_task_create, acquired
 *     by on_task_schedule);
 *   - barriers: each thread releases the team's parallel data when it has
 *     reached one and recorded its begin, and acquires it when it leaves;
 *     the primary thread acquires it again at the region's end, where the
 *     runtime gives the barrier's end no parallel data; so a worker's
 *     hooks happen before what the primary thread does next, the profile
 *     at MPI_Finalize or exit included;
 *   - the runtime's own slots for the tool (the ompt_data_t of a parallel
 *     region and of an implicit task, whose value the callbacks write and
 *     read): the runtime keeps a team's structures (its parallel data, its
 *     implicit tasks' data) and reuses them for later regions, the next
 *     round's or a nested region started by another thread, also after the
 *     thread that used them last has ended, so one slot serves threads in
 *     turn with no synchronization TSan sees (repeated nested regions, and
 *     several root threads, showed it).  Each callback therefore takes a
 *     slot (acquire) before its first access and gives it back (release)
 *     after its last: the runtime hands a slot on only after the callback
 *     of its previous user returned, so the release happens before the
 *     next user's acquire.
 * Nothing in other builds.
 */
#ifdef VFTR_TSAN
#include <sanitizer/tsan_interface.h>
#define TSAN_RELEASE(d) __tsan_release(d)
#define TSAN_ACQUIRE(d) __tsan_acquire(d)
#else
#define TSAN_RELEASE(d) ((void)(d))
#define TSAN_ACQUIRE(d) ((void)(d))
#endif

/* A runtime slot (ompt_data_t) taken by a callback and given back. */
static inline VFTR_NI void slot_take(ompt_data_t *d)
{
    if (d)
        TSAN_ACQUIRE(d);
}

static inline VFTR_NI void slot_give(ompt_data_t *d)
{
    if (d)
        TSAN_RELEASE(d);
}

/* parallel_data->value: (implicit task region id << 32) | parallel seq.
 * Explicit task_data->value: (task region id << 32) | task seq; an
 * implicit task's: its parallel seq (high half 0). */
static inline VFTR_NI uint64_t low32(const ompt_data_t *d)
{
    return d ? (uint32_t)d->value : 0;
}

static inline VFTR_NI uint32_t high32(const ompt_data_t *d)
{
    return d ? (uint32_t)(d->value >> 32) : 0;
}

static VFTR_NI uint32_t work_kind(ompt_work_t w)
{
    switch (w) {
    case ompt_work_loop: return VFTR_VFD_OMP_LOOP;
    case ompt_work_sections: return VFTR_VFD_OMP_SECTIONS;
    case ompt_work_single_executor: return VFTR_VFD_OMP_SINGLE;
    case ompt_work_single_other: return VFTR_VFD_OMP_SINGLE_OTHER;
    case ompt_work_workshare: return VFTR_VFD_OMP_WORKSHARE;
    case ompt_work_distribute: return VFTR_VFD_OMP_DISTRIBUTE;
    case ompt_work_taskloop: return VFTR_VFD_OMP_TASKLOOP;
    default: return 0;   /* scope: no kind */
    }
}

static VFTR_NI uint32_t sync_kind(ompt_sync_region_t s)
{
    switch ((int)s) {
    case ompt_sync_region_barrier_explicit:
    case 1:   /* ompt_sync_region_barrier (deprecated): explicit in 5.0 runtimes */
        return VFTR_VFD_OMP_BARRIER_EXPLICIT;
    case 2:   /* ompt_sync_region_barrier_implicit (deprecated) */
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_teams:
        return VFTR_VFD_OMP_BARRIER;
    case ompt_sync_region_taskwait: return VFTR_VFD_OMP_TASKWAIT;
    case ompt_sync_region_taskgroup: return VFTR_VFD_OMP_TASKGROUP;
    default: return 0;   /* reduction: no kind */
    }
}

/* Waiting kind of a mutex (0: none, test_* never wait), and held kind. */
static VFTR_NI uint32_t mutex_wait_kind(ompt_mutex_t m)
{
    switch (m) {
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: return VFTR_VFD_OMP_LOCK_WAIT;
    case ompt_mutex_critical: return VFTR_VFD_OMP_CRITICAL_WAIT;
    case ompt_mutex_ordered: return VFTR_VFD_OMP_ORDERED_WAIT;
    default: return 0;
    }
}

static VFTR_NI uint32_t mutex_held_kind(ompt_mutex_t m)
{
    switch (m) {
    case ompt_mutex_lock:
    case ompt_mutex_test_lock:
    case ompt_mutex_nest_lock:
    case ompt_mutex_test_nest_lock: return VFTR_VFD_OMP_LOCK;
    case ompt_mutex_critical: return VFTR_VFD_OMP_CRITICAL;
    case ompt_mutex_ordered: return VFTR_VFD_OMP_ORDERED;
    default: return 0;   /* atomic */
    }
}

/* ----------------------------------------------------- workers' idle time
 *
 * libomp (LLVM 14 to 18 at least) reports a worker's implicit barrier at
 * the end of a parallel region without a code address, and ends it, with
 * the worker's implicit task, only when the worker is woken for the next
 * parallel region (or when the runtime shuts down): the time a worker
 * waits for work between regions would count as "barrier", often the
 * largest row of a worker's profile.  So when a worker's barrier ends after
 * its parallel region has ended (the encountering thread's parallel_end,
 * whose time is kept here per region), the barrier, the implicit task and
 * the worker's share of the region end at the region's end, and an IDLE
 * frame ("omp idle") runs from there until the worker does anything else.
 */

#define END_RING 1024u   /* parallel regions whose end time is remembered */

/* The IDLE region, defined when a worker first joins a team: the finalizer
 * may begin idle time, when no definition can be written any more. */
static _Atomic uint32_t idle_region;

static struct {
    _Atomic uint32_t seq;       /* the parallel region's number; written last */
    _Atomic uint64_t time;
} par_end[END_RING];

static VFTR_NI void note_parallel_end(uint32_t seq, uint64_t now)
{
    atomic_store_explicit(&par_end[seq % END_RING].seq, 0, memory_order_relaxed);
    atomic_store_explicit(&par_end[seq % END_RING].time, now, memory_order_relaxed);
    atomic_store_explicit(&par_end[seq % END_RING].seq, seq, memory_order_release);
}

/* The end time of parallel region seq, if it has ended and is remembered. */
static VFTR_NI bool parallel_ended(uint32_t seq, uint64_t *when)
{
    uint32_t a = atomic_load_explicit(&par_end[seq % END_RING].seq, memory_order_acquire);
    /* acquire: the second reading of seq below cannot move before this
     * one (a fence did that; gcc refuses fences under -fsanitize=thread) */
    uint64_t tm = atomic_load_explicit(&par_end[seq % END_RING].time, memory_order_acquire);

    if (seq == 0 || a != seq
        || atomic_load_explicit(&par_end[seq % END_RING].seq, memory_order_relaxed) != seq)
        return false;
    *when = tm;
    return true;
}

/* If t's innermost frames are a worker's barrier in its implicit task in its
 * share of a parallel region that has ended, at most at now: end the three
 * at the region's end and begin t's idle time there.  Whether it did. */
static VFTR_NI bool idle_split(struct othread *t, uint64_t now)
{
    uint32_t d = t->depth;
    struct frame *b, *it, *p;
    uint64_t at;

    if (d < 3 || t->deeper)
        return false;
    b = &t->f[d - 1];
    it = &t->f[d - 2];
    p = &t->f[d - 3];
    if (b->kind != VFTR_VFD_OMP_BARRIER || it->kind != VFTR_VFD_OMP_IMPLICIT_TASK
        || p->kind != VFTR_VFD_OMP_PARALLEL_WORKER
        || atomic_load_explicit(&idle_region, memory_order_relaxed) == 0 || b->instance != it->instance
        || it->instance != p->instance || !parallel_ended((uint32_t)p->instance, &at))
        return false;
    if (at > now)
        at = now;
    if (at < b->since)   /* clocks of two threads: never before the barrier began */
        at = b->since;
    uint64_t seq = p->instance;

    close_frame(t, d - 1, at);
    close_frame(t, d - 2, at);
    close_frame(t, d - 3, at);
    begin_at(t, VFTR_VFD_OMP_IDLE, atomic_load_explicit(&idle_region, memory_order_relaxed), seq,
             0, at);
    return true;
}

VFTR_NI void vftr_ompt_idle_all(uint64_t now)
{
    for (struct othread *t = atomic_load_explicit(&registry, memory_order_acquire); t;
         t = t->next) {
        if (atomic_load_explicit(&t->busy, memory_order_acquire) || t->vt == NULL)
            continue;   /* inside a callback: leave it alone */
        (void)idle_split(t, now);
    }
}

/* ---------------------------------------------------------- callbacks */

/* Each callback claims the thread's stack for its duration (claim()). */

static VFTR_NI void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
    struct othread *t = claim();

    (void)type;
    (void)data;
    if (t)
        release(t);
}

static VFTR_NI void on_thread_end(ompt_data_t *data)
{
    struct othread *t = claim();

    (void)data;
    if (t == NULL)
        return;
    close_all(t);
    release(t);
}

static VFTR_NI void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame,
                                      ompt_data_t *parallel, unsigned int requested, int flags,
                                      const void *codeptr)
{
    struct othread *t = claim();
    uint32_t seq, rid;

    (void)task;
    (void)frame;
    (void)flags;
    if (t == NULL)
        return;
    seq = atomic_fetch_add_explicit(&next_parallel, 1, memory_order_relaxed);
    rid = region_id(VFTR_VFD_OMP_PARALLEL, codeptr);
    slot_take(parallel);
    if (parallel)
        parallel->value = (uint64_t)region_id(VFTR_VFD_OMP_IMPLICIT_TASK, codeptr) << 32 | seq;
    slot_give(parallel);
    begin(t, VFTR_VFD_OMP_PARALLEL, rid, seq, requested);
    release(t);
}

VFTR_NI uint32_t vftr_ompt_parallel_regions(void)
{
    return atomic_load_explicit(&next_parallel, memory_order_relaxed) - 1;
}

static VFTR_NI void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
                                    const void *codeptr)
{
    struct othread *t;

    (void)task;
    (void)flags;
    (void)codeptr;
    /* the team's last barrier is behind: its threads' releases (and the
     * slot's previous users') */
    slot_take(parallel);
    if ((t = claim()) != NULL) {
        /* Which region ends: this thread's innermost open parallel region
         * (an encountering thread's regions nest), not parallel->value.
         * libomp (__kmp_join_call) frees a nested team to its pool before
         * it calls parallel_end with the team's parallel data, so another
         * thread's parallel_begin may already have rewritten the value:
         * the end then matched no frame, the region stayed open (begun
         * again around the next out-of-order end, closed at thread end) and
         * the other thread's region was noted ended (omp_nested.sh's
         * roots2_3x3 under load).  The team may even have left the pool
         * (freed: ASan saw the read), so parallel->value is read only when
         * no frame says it (a thread nested deeper than its frames). */
        const struct frame *f = t->deeper ? NULL : innermost(t, VFTR_VFD_OMP_PARALLEL);
        uint64_t seq = f ? f->instance : low32(parallel);
        note_parallel_end((uint32_t)seq, vftr_ext_now());
        end(t, VFTR_VFD_OMP_PARALLEL, seq, 0);
        release(t);
    }
    slot_give(parallel);   /* the team's slots go to later regions */
}

static VFTR_NI void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                                     ompt_data_t *task, unsigned int actual, unsigned int index,
                                     int flags)
{
    struct othread *t;

    if ((flags & ompt_task_initial) || (t = claim()) == NULL)
        return;
    slot_take(parallel);
    slot_take(task);
    if (endpoint == ompt_scope_begin) {
        uint64_t seq = low32(parallel);
        uint32_t rid = high32(parallel);
        struct frame *p;

        if (rid == 0)
            rid = region_id(VFTR_VFD_OMP_IMPLICIT_TASK, NULL);
        if (task)
            task->value = seq;
        /* the encountering thread learns the real team size here; a worker
         * gets a frame of the region around its implicit task, so that its
         * calls hang under the region as the encountering thread's do */
        if (index == 0 && (p = find(t, VFTR_VFD_OMP_PARALLEL, seq)) != NULL)
            p->value = actual;
        else if (index != 0) {
            if (atomic_load_explicit(&idle_region, memory_order_relaxed) == 0)
                atomic_store_explicit(&idle_region, region_id(VFTR_VFD_OMP_IDLE, NULL),
                                      memory_order_relaxed);
            begin(t, VFTR_VFD_OMP_PARALLEL_WORKER,
                  region_id(VFTR_VFD_OMP_PARALLEL_WORKER, (const void *)code_of(rid)), seq, actual);
        }
        begin(t, VFTR_VFD_OMP_IMPLICIT_TASK, rid, seq, index);
    } else if (endpoint == ompt_scope_end) {
        uint64_t seq = task ? task->value : ANY_INSTANCE;
        struct frame *w;

        if (top_of(t, VFTR_VFD_OMP_IDLE))   /* woken: the idle time ends */
            close_frame(t, t->depth - 1, vftr_ext_now());
        end(t, VFTR_VFD_OMP_IMPLICIT_TASK, seq, 0);
        if ((w = top_of(t, VFTR_VFD_OMP_PARALLEL_WORKER)) != NULL
            && (seq == ANY_INSTANCE || w->instance == seq))
            close_frame(t, t->depth - 1, vftr_ext_now());
    }
    slot_give(task);
    slot_give(parallel);
    release(t);
}

/* Begin or end of a scoped region of kind at codeptr (work, sync, masked). */
static VFTR_NI void scoped(uint32_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           uint64_t value, const void *codeptr)
{
    struct othread *t;

    if (kind == 0 || (t = claim()) == NULL)
        return;
    if (endpoint == ompt_scope_begin)
        begin(t, kind, region_id(kind, codeptr), low32(parallel), value);
    else if (endpoint == ompt_scope_end)
        end(t, kind, ANY_INSTANCE, 0);
    release(t);
}

static VFTR_NI void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint,
                            ompt_data_t *parallel, ompt_data_t *task, uint64_t count,
                            const void *codeptr)
{
    uint32_t kind = work_kind(wstype);

    (void)task;
    scoped(kind, endpoint, parallel, kind == VFTR_VFD_OMP_LOOP ? count : 0, codeptr);
}

static VFTR_NI void on_sync_region(ompt_sync_region_t skind, ompt_scope_endpoint_t endpoint,
                                   ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    uint32_t kind = sync_kind(skind);
    bool barrier = parallel
                   && (kind == VFTR_VFD_OMP_BARRIER || kind == VFTR_VFD_OMP_BARRIER_EXPLICIT);
    struct othread *t;

    (void)task;
    if (barrier && endpoint != ompt_scope_begin)
        TSAN_ACQUIRE(parallel);
    /* a worker's barrier at the end of a parallel region comes without a
     * code address: it is the region's, at the region's pragma */
    if (codeptr == NULL && barrier && high32(parallel) != 0)
        codeptr = (const void *)code_of(high32(parallel));
    if (kind == VFTR_VFD_OMP_BARRIER && endpoint == ompt_scope_end && (t = claim()) != NULL) {
        bool split = idle_split(t, vftr_ext_now());

        release(t);
        if (split)
            return;
    }
    scoped(kind, endpoint, parallel, 0, codeptr);
    /* after the begin's own work: the barrier's node in the call tree is
     * what a worker writes last before it waits (the join barrier's end
     * comes only when the runtime shuts down) */
    if (barrier && endpoint == ompt_scope_begin)
        TSAN_RELEASE(parallel);
}

static VFTR_NI void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                              ompt_data_t *task, const void *codeptr)
{
    (void)task;
    scoped(VFTR_VFD_OMP_MASKED, endpoint, parallel, 0, codeptr);
}

static VFTR_NI void on_mutex_acquire(ompt_mutex_t mkind, unsigned int hint, unsigned int impl,
                                     ompt_wait_id_t wait_id, const void *codeptr)
{
    uint32_t kind = mutex_wait_kind(mkind);
    struct othread *t;

    (void)hint;
    (void)impl;
    if (kind == 0 || (t = claim()) == NULL)
        return;
    begin(t, kind, region_id(kind, codeptr), wait_id, 0);
    release(t);
}

static VFTR_NI void on_mutex_acquired(ompt_mutex_t mkind, ompt_wait_id_t wait_id,
                                      const void *codeptr)
{
    uint32_t wait = mutex_wait_kind(mkind), held = mutex_held_kind(mkind);
    struct othread *t = claim();

    if (t == NULL)
        return;
    if (wait)
        end(t, wait, wait_id, 0);
    if (held)
        begin(t, held, region_id(held, codeptr), wait_id, 0);
    release(t);
}

static VFTR_NI void on_mutex_released(ompt_mutex_t mkind, ompt_wait_id_t wait_id,
                                      const void *codeptr)
{
    uint32_t held = mutex_held_kind(mkind);
    struct othread *t;

    (void)codeptr;
    if (held == 0 || (t = claim()) == NULL)
        return;
    end(t, held, wait_id, 0);
    release(t);
}

/* A nest lock its owner takes again: the wait ends, the lock was already
 * held (its held region runs from the first acquisition to the release
 * that frees it).  Releases that leave it held are not regions. */
static VFTR_NI void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                                 const void *codeptr)
{
    struct othread *t;

    (void)codeptr;
    if (endpoint != ompt_scope_begin || (t = claim()) == NULL)
        return;
    end(t, VFTR_VFD_OMP_LOCK_WAIT, wait_id, 0);
    release(t);
}

static VFTR_NI void on_task_create(ompt_data_t *task, const ompt_frame_t *frame,
                                   ompt_data_t *new_task, int flags, int has_dependences,
                                   const void *codeptr)
{
    (void)task;
    (void)frame;
    (void)has_dependences;
    if (new_task == NULL)
        return;
    if (flags & ompt_task_explicit) {
        uint32_t seq = atomic_fetch_add_explicit(&next_task, 1, memory_order_relaxed);

        new_task->value = (uint64_t)region_id(VFTR_VFD_OMP_TASK, codeptr) << 32 | seq;
    } else {
        new_task->value = 0;
    }
    TSAN_RELEASE(new_task);
}

static VFTR_NI void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status,
                                     ompt_data_t *next)
{
    struct othread *t;

    if (prior)
        TSAN_ACQUIRE(prior);
    if (next)
        TSAN_ACQUIRE(next);
    if ((high32(prior) == 0 && high32(next) == 0) || (t = claim()) == NULL)
        return;
    /* a finished explicit task ends; a suspended one stays open (the
     * tasks run meanwhile nest inside it) */
    if (high32(prior) != 0
        && (status == ompt_task_complete || status == ompt_task_cancel
            || status == ompt_task_detach))
        end(t, VFTR_VFD_OMP_TASK, low32(prior), 0);
    if (high32(next) != 0 && find(t, VFTR_VFD_OMP_TASK, low32(next)) == NULL)
        begin(t, VFTR_VFD_OMP_TASK, high32(next), low32(next), 0);
    release(t);
}

/* --------------------------------------------------------------- tool */

/* The callbacks: on_NAME for each event of ompt_events.def. */
static const struct {
    ompt_callbacks_t event;
    ompt_callback_t fn;
} callbacks[] = {
#define VFTR_OMPT_EVENT(name) { ompt_callback_##name, (ompt_callback_t)on_##name },
#include "ompt_events.def"
#undef VFTR_OMPT_EVENT
};

static VFTR_NI int tool_initialize(ompt_function_lookup_t lookup, int initial_device,
                                   ompt_data_t *tool_data)
{
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");

    (void)initial_device;
    (void)tool_data;
    if (set == NULL)
        return 0;   /* no callbacks: the runtime drops the tool */
    note_runtime(lookup);
    for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0]; i++)
        set(callbacks[i].event, callbacks[i].fn);
    atomic_store_explicit(&tool_active, true, memory_order_release);
    return 1;
}

VFTR_NI bool vftr_ompt_active(void)
{
    return atomic_load_explicit(&tool_active, memory_order_acquire);
}

static VFTR_NI void tool_finalize(ompt_data_t *tool_data)
{
    struct othread *t = claim();

    (void)tool_data;
    if (t == NULL)
        return;
    close_all(t);
    release(t);
}

VFTR_EXPORT VFTR_NI ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                              const char *runtime_version)
{
    static ompt_start_tool_result_t result = {
        .initialize = tool_initialize, .finalize = tool_finalize, .tool_data = { 0 },
    };
    const struct vftr_config *cfg;

    (void)omp_version;
    if (runtime_version == NULL)    /* the dummy call that keeps the symbol linked */
        return NULL;
    /* Initializes capture if no hook has yet, through the thread attach
     * (vftr_init_once alone would leave this thread with the dummy state
     * that initialization installs while it runs: it would never record). */
    vftr_thread_attach();
    cfg = vftr_ext_config();
    if (cfg == NULL || !cfg->trace_active)
        return NULL;                /* nothing records OpenMP events: no tool, no cost */
    return &result;
}

#endif /* VFTR_HAVE_OMPT */
