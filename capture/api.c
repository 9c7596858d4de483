/*
 * api.c — the user API of vftr.h: regions and pause/resume.
 *
 * A region is a function record of its own (callpath.c: vftr_fn_region)
 * whose "address" is the record's, entered and left through the same code
 * as the compiler hooks (so during a pause too: the shadow stack moves,
 * nothing is counted).  Looking a name up takes the function table's
 * lock, so each thread caches name pointer -> record in a small table
 * (verified with strcmp, since a pointer may be reused for another name).
 */
#include <string.h>

#include "capture.h"
#include "ext.h"
#include "io.h"
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

/* A pause or resume of the whole process (phase.c: the switch is logged
 * with its time and every thread applies it at its next hook).  The
 * calling thread applies it at once, so its trace has the switch exactly
 * where it was made.  Nested in a signal handler that interrupted a
 * switch of the same thread, it does nothing (the log's lock is held). */
static __thread bool switching __attribute__((tls_model("initial-exec")));

static VFTR_NI void switch_to(enum vftr_switch sw)
{
    struct vftr_thread *t;

    if (switching)
        return;
    switching = true;
    if (vftr_tls == NULL)
        (void)vftr_thread_attach();   /* initializes capture on a first call */
    if (vftr_phase_switch(sw) > 0 && (t = vftr_hook_begin()) != NULL)
        vftr_guard_drop(t);
    switching = false;
}

VFTR_EXPORT VFTR_NI void vftr_pause(void)
{
    switch_to(VFTR_SWITCH_PAUSE);
}

VFTR_EXPORT VFTR_NI void vftr_resume(void)
{
    switch_to(VFTR_SWITCH_RESUME);
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

    /* what the MPI library does inside the call is the call's, not the
     * program's file I/O (io.h); the exit unmutes */
    vftr_io_mute++;
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

    if (vftr_io_mute > 0)
        vftr_io_mute--;
    if (f == NULL || (t = vftr_hook_begin()) == NULL)
        return vftr_clock_now();
    now = vftr_clock_now();
    if (rec != NULL && t->trace && kind == VFTR_VFD_IO) {
        (void)vftr_io_put(t, rec, now);   /* MPI-IO: its files are defined first */
    } else if (rec != NULL && t->trace) {
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
