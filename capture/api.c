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
#include <time.h>

#include "capture.h"
#include "ctl.h"
#include "ext.h"
#include "vfd/vftr_vfd_ext.h"
#include "vftr.h"

static VFTR_NI struct vftr_fn *region(struct vftr_thread *t, const char *name)
{
    size_t slot = ((uintptr_t)name >> 3) % (sizeof t->regions / sizeof t->regions[0]);
    struct vftr_fn *f = t->regions[slot].fn;

    if (f && t->regions[slot].name == name && strcmp(f->name, name) == 0)
        return f;
    f = vftr_fn_region(name, 0);
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
    f = region(t, name);
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
    f = region(t, name);
    if (f)
        vftr_exit_at(t, f->addr, now);
    vftr_guard_drop(t);
}

/* Switches the phase from `from` to `to` and marks it in the calling
 * thread's trace.  While a control event holds the phase (ctl.h: HELD, a
 * few microseconds) the switch waits for it, with its guard given back so
 * that the event's stop-the-world does not wait for this thread; without
 * that, a pause or resume landing during an event would be lost. */
static VFTR_NI void switch_phase(int from, int to, uint32_t kind)
{
    struct vftr_thread *t = vftr_tls;
    const struct timespec nap = { 0, 20000 };

    if (t == NULL)
        t = vftr_thread_attach();
    for (int tries = 0; tries < 25000; tries++) {   /* at most about half a second */
        int expect = VFTR_GUARD_FREE;

        if (!atomic_compare_exchange_strong(&t->guard, &expect, VFTR_GUARD_IN_HOOK))
            return;
        expect = from;
        if (atomic_compare_exchange_strong(&vftr_proc.phase, &expect, to)) {
            if (t->trace)
                (void)vftr_trace_put_ext(t, vftr_clock_now(), kind, NULL, 0);
            vftr_guard_drop(t);
            return;
        }
        vftr_guard_drop(t);
        if (expect != VFTR_CTL_PHASE_HELD)
            return;   /* already there, or stopped */
        nanosleep(&nap, NULL);
    }
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
VFTR_EXPORT VFTR_NI void *vftr_ext_function(const char *name)
{
    vftr_init_once();
    if (name == NULL || !vftr_proc.recording)
        return NULL;
    return vftr_fn_region(name, VFTR_FN_MPI);
}

VFTR_EXPORT VFTR_NI uint64_t vftr_ext_enter_fn(void *fn)
{
    struct vftr_fn *f = fn;
    struct vftr_thread *t;
    uint64_t now;

    if (f == NULL || (t = vftr_hook_begin()) == NULL)
        return vftr_clock_now();
    now = vftr_clock_now();
    vftr_enter_at(t, f->addr, f, now);
    vftr_guard_drop(t);
    return now;
}

VFTR_EXPORT VFTR_NI uint64_t vftr_ext_exit_fn_rec(void *fn, uint32_t kind, const void *rec)
{
    struct vftr_fn *f = fn;
    struct vftr_thread *t;
    uint8_t buf[VFTR_VFD_EXT_MAX];
    size_t len = 0;
    uint64_t now;

    if (f == NULL || (t = vftr_hook_begin()) == NULL)
        return vftr_clock_now();
    now = vftr_clock_now();
    if (rec != NULL && t->trace) {
        if (kind == VFTR_VFD_MPI_SEND || kind == VFTR_VFD_MPI_RECV)
            len = vftr_vfd_mpi_msg_encode(rec, now, buf);
        else if (kind == VFTR_VFD_MPI_COLL)
            len = vftr_vfd_mpi_coll_encode(rec, now, buf);
        if (len > 0)
            (void)vftr_trace_put_ext(t, now, kind, buf, (uint32_t)len);
    }
    vftr_exit_at(t, f->addr, now);
    vftr_guard_drop(t);
    return now;
}
