/*
 * dl.c — capture follows the program's mappings over time (capture.h:
 * vftr_dl_before, vftr_dl_after, vftr_dl_unmapped).
 *
 * Capture keys what it knows of a function by its address: the function
 * record (name, filters), each thread's call paths and their caches, the
 * OpenMP region definitions.  A library that dlclose unmaps leaves those
 * keys behind, and a library loaded at the same addresses afterwards (the
 * loader reuses the hole, so this is the common case for a plugin closed
 * and another one opened) would find its functions under the first one's
 * names and call paths, in the trace and in the log.  The hooks cannot
 * check on every call whether an address still means what it meant (a
 * lookup per event); the loader's counters (dlpi_adds, dlpi_subs) say that
 * something changed but not what.  So the change is taken where it
 * happens: dlclose is interposed (capture/preload/dl.c), the loaded objects
 * are listed before and after the real call, and each object that is gone
 * is forgotten by address range.  The threads learn of it through the
 * phase log (an UNMAP switch), each at its next hook, so the hot path pays
 * nothing.
 *
 * A program that unmaps code by other means (munmap of a JIT buffer,
 * dlmopen namespaces are dlclose'd through here too) or that links the
 * static archive (no interposition) keeps the old behaviour; the symbol
 * table still retires objects the loader no longer lists.
 */
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "ompt.h"

/* Capture records in this very process (not a forked child, not ended). */
static VFTR_NI bool recording(void)
{
    return vftr_proc.recording && getpid() == vftr_proc.pid && !atomic_load(&vftr_proc.finalized)
           && vftr_phase_of(atomic_load(&vftr_proc.phase)) != VFTR_PHASE_STOPPED;
}

struct walk {
    struct vftr_dl_snap *s;
    size_t cap;
    bool nomem;
};

static VFTR_NI int take_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct walk *w = arg;
    struct vftr_dl_snap *s = w->s;
    struct vftr_dl_obj *o;

    if (s->n == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        s->subs = info->dlpi_subs;
    if (s->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        struct vftr_dl_obj *more = realloc(s->obj, cap * sizeof *more);

        if (more == NULL) {
            w->nomem = true;
            return 1;
        }
        s->obj = more;
        w->cap = cap;
    }
    o = &s->obj[s->n];
    o->bias = (uintptr_t)info->dlpi_addr;
    o->phdr = info->dlpi_phdr;
    o->lo = UINTPTR_MAX;
    o->hi = 0;
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD)
            continue;
        if (o->bias + ph->p_vaddr < o->lo)
            o->lo = o->bias + ph->p_vaddr;
        if (o->bias + ph->p_vaddr + ph->p_memsz > o->hi)
            o->hi = o->bias + ph->p_vaddr + ph->p_memsz;
    }
    if ((o->name = strdup(info->dlpi_name ? info->dlpi_name : "")) == NULL) {
        w->nomem = true;
        return 1;
    }
    s->n++;
    return 0;
}

static VFTR_NI void release(struct vftr_dl_snap *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->obj[i].name);
    free(s->obj);
    s->obj = NULL;
    s->n = 0;
}

/* The loaded objects now into s; false when capture does not record or
 * memory ran out (s is then empty). */
static VFTR_NI bool take(struct vftr_dl_snap *s)
{
    struct walk w = { s, 0, false };

    memset(s, 0, sizeof *s);
    if (!recording())
        return false;
    dl_iterate_phdr(take_one, &w);
    if (w.nomem)
        release(s);
    return !w.nomem;
}

VFTR_NI void vftr_dl_before(struct vftr_dl_snap *s)
{
    (void)take(s);
}

VFTR_NI void vftr_dl_after(struct vftr_dl_snap *before)
{
    struct vftr_dl_snap after;

    if (before->obj == NULL)
        return;
    if (!take(&after)) {
        release(before);
        return;
    }
    /* nothing unloaded (the object is still referenced): no list to compare */
    if (after.subs != before->subs) {
        for (size_t i = 0; i < before->n; i++) {
            const struct vftr_dl_obj *o = &before->obj[i];
            bool still = false;

            if (o->lo >= o->hi)
                continue;
            for (size_t j = 0; j < after.n && !still; j++)
                still = after.obj[j].bias == o->bias && after.obj[j].phdr == o->phdr
                        && strcmp(after.obj[j].name, o->name) == 0;
            if (!still)
                vftr_dl_unmapped(o->lo, o->hi);
        }
    }
    release(&after);
    release(before);
}

VFTR_NI void vftr_dl_unmapped(uintptr_t lo, uintptr_t hi)
{
    if (!recording())
        return;
    /* first the shared tables, then the switch: a thread that applies it
     * and meets an address there again finds no record and makes one */
    vftr_fn_forget(lo, hi);
    vftr_patch_forget(lo, hi);
    vftr_sled_forget(lo, hi);
    vftr_symbols_forget(lo, hi);
    vftr_ompt_forget(lo, hi);
    (void)vftr_phase_unmap(lo, hi);
}
