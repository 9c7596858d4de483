/*
 * sample_unwind.h — unwinding a copied user stack (the ring route of
 * sample.c): the registers and the top of the stack the kernel copied at a
 * sample (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER) are unwound later,
 * on the collector thread, by libunwind's DWARF unwinder with accessors
 * that read the stack from the copy and the unwind tables from the
 * process's own memory, as `perf record --call-graph dwarf` does.
 *
 * Only the collector calls these (one thread); nothing is async-signal-safe.
 */
#ifndef VFTR_CAPTURE_SAMPLE_UNWIND_H
#define VFTR_CAPTURE_SAMPLE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* The registers to ask the kernel for (perf_event_attr.sample_regs_user),
 * in the kernel's numbering; 0 where this architecture has no unwinder
 * here (the ring route is then refused and the signal route taken). */
uint64_t vftr_sample_unwind_regs_mask(void);

/* A sample to unwind.  regs: the sampled registers in the order of the
 * mask's bits (the kernel's); stack: the copy of the stack from the
 * sampled stack pointer on, len bytes; stk_lo, stk_hi: the thread's whole
 * stack, of which no byte outside the copy is read (it has changed since). */
struct vftr_sample_regs {
    const uint64_t *regs;
    const unsigned char *stack;
    size_t len;
    uintptr_t stk_lo, stk_hi;
};

/* Prepares the unwinder (an address space of its own, per-process
 * caching).  0 or -errno (then the ring route is not taken). */
int vftr_sample_unwind_init(void);

/* Since the last call, the program loaded or unloaded objects: the list
 * of their segments is read anew and libunwind's cache of unwind rules
 * flushed (a library unloaded and another loaded at its addresses must not
 * be unwound by the old one's rules).  Called before each batch. */
void vftr_sample_unwind_refresh(void);

/* Unwinds r into pc (innermost first, at most max frames).  Returns the
 * number of frames (at least 1 when the sample has an instruction
 * pointer).  [*lo, *hi): the bytes of r->stack the unwinding read (offsets
 * into the copy; the rest of the copy did not matter to the result), both
 * 0 when it read none. */
uint32_t vftr_sample_unwind(const struct vftr_sample_regs *r, uintptr_t *pc, uint32_t max,
                            size_t *lo, size_t *hi);

/* The sampled instruction, stack and frame pointers of r. */
uintptr_t vftr_sample_unwind_ip(const struct vftr_sample_regs *r);
uintptr_t vftr_sample_unwind_sp(const struct vftr_sample_regs *r);
uintptr_t vftr_sample_unwind_bp(const struct vftr_sample_regs *r);

#endif /* VFTR_CAPTURE_SAMPLE_UNWIND_H */
