/*
 * api.c — the user API of vftr.h: regions and pause/resume.
 *
 * A region is a function record of its own (callpath.c: vftr_fn_region)
 * whose "address" is the record's, entered and left through the same code
 * as the compiler hooks.  Looking a name up takes the function table's
 * lock, so each thread caches name pointer -> record in a small table
 * (verified with strcmp, since a pointer may be reused for another name).
 */
#include <string.h>

#include "capture.h"
#include "ext.h"
#include "vftr.h"

static VFTR_NI struct vftr_fn *region(struct vftr_thread *t, const char *name, uint32_t flags)
{
    size_t slot = ((uintptr_t)name >> 3) % (sizeof t->regions / sizeof t->regions[0]);
    struct vftr_fn *f = t->regions[slot].fn;

    if (f && t->regions[slot].name == name && strcmp(f->name, name) == 0)
        return f;
    f = vftr_fn_region(name, flags);
    if (f) {
        t->regions[slot].name = name;
        t->regions[slot].fn = f;
    }
    return f;
}

VFTR_EXPORT VFTR_NI void vftr_region_begin(const char *name)
{
    struct vftr_thread *t;
    struct vftr_fn *f;

    if (name == NULL || (t = vftr_hook_begin()) == NULL)
        return;
    f = region(t, name, 0);
    if (f)
        vftr_enter_at(t, f->addr, f, vftr_clock_now());
    vftr_guard_drop(t);
}

VFTR_EXPORT VFTR_NI void vftr_region_end(const char *name)
{
    struct vftr_thread *t;
    uint64_t now;
    struct vftr_fn *f;

    if (name == NULL || (t = vftr_hook_begin()) == NULL)
        return;
    now = vftr_clock_now();
    f = region(t, name, 0);
    if (f)
        vftr_exit_at(t, f->addr, now);
    vftr_guard_drop(t);
}

/* Switches the phase from `from` to `to` and marks it in the calling
 * thread's trace. */
static VFTR_NI void switch_phase(int from, int to, uint32_t kind)
{
    struct vftr_thread *t = vftr_tls;
    int expect = VFTR_GUARD_FREE;

    if (t == NULL)
        t = vftr_thread_attach();
    if (!atomic_compare_exchange_strong(&t->guard, &expect, VFTR_GUARD_IN_HOOK))
        return;
    expect = from;
    if (atomic_compare_exchange_strong(&vftr_proc.phase, &expect, to) && t->trace)
        (void)vftr_trace_put_ext(t, vftr_clock_now(), kind, NULL, 0);
    vftr_guard_drop(t);
}

VFTR_EXPORT VFTR_NI void vftr_pause(void)
{
    switch_phase(VFTR_PHASE_RUNNING, VFTR_PHASE_PAUSED, VFTR_VFD_PAUSE);
}

VFTR_EXPORT VFTR_NI void vftr_resume(void)
{
    switch_phase(VFTR_PHASE_PAUSED, VFTR_PHASE_RUNNING, VFTR_VFD_RESUME);
}

/* The MPI wrappers' functions (ext.h): regions flagged VFTR_FN_MPI. */
VFTR_EXPORT VFTR_NI void vftr_ext_enter(const char *name, uint64_t time)
{
    struct vftr_thread *t;
    struct vftr_fn *f;

    if (name == NULL || (t = vftr_hook_begin()) == NULL)
        return;
    f = region(t, name, VFTR_FN_MPI);
    if (f)
        vftr_enter_at(t, f->addr, f, time);
    vftr_guard_drop(t);
}

VFTR_EXPORT VFTR_NI void vftr_ext_exit(const char *name, uint64_t time)
{
    struct vftr_thread *t;
    struct vftr_fn *f;

    if (name == NULL || (t = vftr_hook_begin()) == NULL)
        return;
    f = region(t, name, VFTR_FN_MPI);
    if (f)
        vftr_exit_at(t, f->addr, time);
    vftr_guard_drop(t);
}
