/*
 * sample_unwind.c — libunwind's DWARF unwinder over a copied stack (see
 * sample_unwind.h).
 *
 * This file uses libunwind's generic ("remote") interface, without
 * UNW_LOCAL_ONLY (libunwind-generic): an address space of our own whose
 * accessors give the sampled registers and read memory from the copy.
 * Everything else the unwinder reads (.eh_frame_hdr, .eh_frame of the
 * objects dl_iterate_phdr lists) is the process's own mapped memory, read
 * in place.
 *
 * Why every read is checked: the copy is the truth for the stack, but a
 * frame the unwinder gets wrong (code without unwind tables) can lead it to
 * any address.  A read is allowed only inside the copy or inside a loaded
 * object's PT_LOAD segments (refreshed from dl_iterate_phdr when an address
 * is in none), and there through process_vm_readv, so that an object
 * unloaded since the list was made gives an error, not a fault; a read in
 * the thread's stack outside the copy, or anywhere else, ends the
 * unwinding.
 */
#define _GNU_SOURCE 1
#include "sample_unwind.h"

#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture.h"

#if defined(__x86_64__)
#include <libunwind.h>

/* the kernel's x86_64 register numbers (asm/perf_regs.h) */
enum { PR_AX = 0, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_R8 = 16 };
#define UNW_MASK ((uint64_t)0x1ff | ((uint64_t)0xff << PR_R8))

/* libunwind's own search of an .eh_frame_hdr table: exported (libunwind-
 * ptrace and perf use it) but declared in no public header */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
                                              unw_dyn_info_t *di, unw_proc_info_t *pi,
                                              int need_unwind_info, void *arg);

/* a loaded object's segment; for its code segment, the unwind table */
struct range {
    uintptr_t lo, hi;
    uintptr_t hdr;              /* .eh_frame_hdr of the object (code segments), or 0 */
};

static struct {
    unw_addr_space_t as;
    int idx[UNW_X86_64_RIP + 1];   /* libunwind register -> index in regs[] */
    struct range *seg;          /* loaded objects' segments */
    size_t nseg, cap;
    pid_t pid;
    unsigned long long adds, subs;   /* the loader's counts when seg was read */
} uw;

static VFTR_NI int add_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t hdr = 0;

    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
            hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];

        if (p->p_type != PT_LOAD && p->p_type != PT_GNU_EH_FRAME)
            continue;
        if (uw.nseg == uw.cap) {
            size_t cap = uw.cap ? 2 * uw.cap : 64;
            struct range *n = realloc(uw.seg, cap * sizeof *n);

            if (n == NULL)
                return 1;
            uw.seg = n;
            uw.cap = cap;
        }
        uw.seg[uw.nseg].lo = info->dlpi_addr + p->p_vaddr;
        uw.seg[uw.nseg].hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
        uw.seg[uw.nseg].hdr = p->p_type == PT_LOAD && (p->p_flags & PF_X) ? hdr : 0;
        uw.nseg++;
    }
    return 0;
}

static VFTR_NI void load_segments(void)
{
    uw.nseg = 0;
    dl_iterate_phdr(add_segments, NULL);
}

static VFTR_NI int read_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *n = arg;

    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        return 1;
    n[0] = info->dlpi_adds;
    n[1] = info->dlpi_subs;
    return 1;   /* the counts are the loader's: the first object is enough */
}

VFTR_NI void vftr_sample_unwind_refresh(void)
{
    unsigned long long n[2] = { 0, 0 };

    if (uw.as == NULL)
        return;
    dl_iterate_phdr(read_counts, n);
    if (n[0] == uw.adds && n[1] == uw.subs)
        return;
    uw.adds = n[0];
    uw.subs = n[1];
    load_segments();
    unw_flush_cache(uw.as, 0, 0);
}

static VFTR_NI const struct range *code_segment(uintptr_t ip)
{
    static size_t last;

    if (last < uw.nseg && uw.seg[last].hdr && ip >= uw.seg[last].lo && ip < uw.seg[last].hi)
        return &uw.seg[last];
    for (size_t i = 0; i < uw.nseg; i++)
        if (uw.seg[i].hdr && ip >= uw.seg[i].lo && ip < uw.seg[i].hi) {
            last = i;
            return &uw.seg[i];
        }
    return NULL;
}

/* Whether a word at a is inside a loaded object: the segment of the
 * previous hit first (the unwinder reads one table, one FDE at a time). */
static VFTR_NI bool in_segments(uintptr_t a)
{
    static size_t last;

    if (last < uw.nseg && a >= uw.seg[last].lo && a + sizeof(unw_word_t) <= uw.seg[last].hi)
        return true;
    for (size_t i = 0; i < uw.nseg; i++)
        if (a >= uw.seg[i].lo && a + sizeof(unw_word_t) <= uw.seg[i].hi) {
            last = i;
            return true;
        }
    return false;
}

/* Reads the word at a of the process's own memory, or -UNW_EINVAL where
 * nothing is mapped any more: a library the program unloaded (Open MPI
 * closes the components it does not select during MPI_Init) after the
 * segments were listed.  process_vm_readv on the process itself fails with
 * EFAULT there instead of faulting; one system call a read, but libunwind's
 * cache spares most reads of code it unwound before.  The page of the
 */
static VFTR_NI int safe_read(uintptr_t a, unw_word_t *val)
{
    struct iovec local = { val, sizeof *val }, remote = { (void *)a, sizeof *val };

    if (process_vm_readv(uw.pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof *val)
        return -UNW_EINVAL;
    return 0;
}

struct ctx {
    const struct vftr_sample_regs *r;
    uintptr_t sp;
    bool reloaded;              /* the segments were read anew for this sample */
    size_t lo, hi;              /* the bytes of the copy read so far: [lo, hi) */
};

static VFTR_NI int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
                              void *arg)
{
    struct ctx *c = arg;
    const struct vftr_sample_regs *r = c->r;

    (void)as;
    if (write)
        return -UNW_EREADONLYREG;
    if (addr >= c->sp && addr - c->sp + sizeof *val <= r->len) {
        size_t at = (size_t)(addr - c->sp);

        memcpy(val, r->stack + at, sizeof *val);
        if (at < c->lo)
            c->lo = at;
        if (at + sizeof *val > c->hi)
            c->hi = at + sizeof *val;
        return 0;
    }
    if (addr >= r->stk_lo && addr < r->stk_hi)
        return -UNW_EINVAL;   /* the stack beyond the copy: changed since */
    if (!in_segments(addr)) {
        if (c->reloaded)
            return -UNW_EINVAL;
        c->reloaded = true;
        load_segments();
        if (!in_segments(addr))
            return -UNW_EINVAL;
    }
    return safe_read(addr, val);
}

static VFTR_NI int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
                              void *arg)
{
    struct ctx *c = arg;

    (void)as;
    if (write)
        return -UNW_EREADONLYREG;
    if (reg < 0 || reg > UNW_X86_64_RIP || uw.idx[reg] < 0)
        return -UNW_EBADREG;
    *val = c->r->regs[uw.idx[reg]];
    return 0;
}

static VFTR_NI int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
                                int write, void *arg)
{
    (void)as;
    (void)reg;
    (void)val;
    (void)write;
    (void)arg;
    return -UNW_EBADREG;
}

static VFTR_NI int resume(unw_addr_space_t as, unw_cursor_t *cur, void *arg)
{
    (void)as;
    (void)cur;
    (void)arg;
    return -UNW_EINVAL;
}

static VFTR_NI int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
                                 unw_word_t *off, void *arg)
{
    (void)as;
    (void)addr;
    (void)buf;
    (void)len;
    (void)off;
    (void)arg;
    return -UNW_ENOINFO;   /* names come from capture's own symbol tables */
}

/* The unwind information of ip: the binary-search table of the object's
 * .eh_frame_hdr (as libunwind's local find_proc_info reads it), searched by
 * libunwind.  Only the table encoding every toolchain writes (version 1,
 * the FDE count udata4, the table datarel sdata4); another: no information,
 * the unwinding ends there. */
static VFTR_NI int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
                                  int need, void *arg)
{
    const struct range *r = code_segment((uintptr_t)ip);
    const unsigned char *h;
    unw_word_t w[2];
    unw_dyn_info_t di;
    uint32_t count;

    if (r == NULL) {
        load_segments();
        if ((r = code_segment((uintptr_t)ip)) == NULL)
            return -UNW_ENOINFO;
    }
    if (safe_read(r->hdr, &w[0]) != 0 || safe_read(r->hdr + 8, &w[1]) != 0)
        return -UNW_ENOINFO;
    h = (const unsigned char *)w;
    /* version, eh_frame_ptr_enc (sdata4, any base), fde_count_enc, table_enc */
    if (h[0] != 1 || (h[1] & 0x0f) != 0x0b || h[2] != 0x03 || h[3] != 0x3b)
        return -UNW_ENOINFO;
    memcpy(&count, h + 8, sizeof count);
    memset(&di, 0, sizeof di);
    di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
    di.start_ip = r->lo;
    di.end_ip = r->hi;
    di.u.rti.segbase = r->hdr;
    di.u.rti.table_data = r->hdr + 12;
    di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
    return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need, arg);
}

static VFTR_NI void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
    (void)as;   /* libunwind frees what its table search made */
    (void)pi;
    (void)arg;
}

static VFTR_NI int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
    (void)as;   /* no code registered at run time (_U_dyn_register) */
    (void)addr;
    (void)arg;
    return -UNW_ENOINFO;
}

VFTR_NI uint64_t vftr_sample_unwind_regs_mask(void)
{
    return UNW_MASK;
}

VFTR_NI int vftr_sample_unwind_init(void)
{
    static const struct { int unw, perf; } map[] = {
        { UNW_X86_64_RAX, PR_AX }, { UNW_X86_64_RDX, PR_DX }, { UNW_X86_64_RCX, PR_CX },
        { UNW_X86_64_RBX, PR_BX }, { UNW_X86_64_RSI, PR_SI }, { UNW_X86_64_RDI, PR_DI },
        { UNW_X86_64_RBP, PR_BP }, { UNW_X86_64_RSP, PR_SP }, { UNW_X86_64_R8, PR_R8 },
        { UNW_X86_64_R9, PR_R8 + 1 }, { UNW_X86_64_R10, PR_R8 + 2 },
        { UNW_X86_64_R11, PR_R8 + 3 }, { UNW_X86_64_R12, PR_R8 + 4 },
        { UNW_X86_64_R13, PR_R8 + 5 }, { UNW_X86_64_R14, PR_R8 + 6 },
        { UNW_X86_64_R15, PR_R8 + 7 }, { UNW_X86_64_RIP, PR_IP },
    };
    unw_accessors_t acc;

    if (uw.as)
        return 0;
    for (size_t i = 0; i <= UNW_X86_64_RIP; i++)
        uw.idx[i] = -1;
    /* regs[] holds the mask's registers in the order of their bits */
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        uw.idx[map[i].unw] = __builtin_popcountll(UNW_MASK & (((uint64_t)1 << map[i].perf) - 1));
    memset(&acc, 0, sizeof acc);
    acc.find_proc_info = find_proc_info;
    acc.put_unwind_info = put_unwind_info;
    acc.get_dyn_info_list_addr = get_dyn_info_list_addr;
    acc.access_mem = access_mem;
    acc.access_reg = access_reg;
    acc.access_fpreg = access_fpreg;
    acc.resume = resume;
    acc.get_proc_name = get_proc_name;
    uw.as = unw_create_addr_space(&acc, 0);
    if (uw.as == NULL)
        return -ENOMEM;
    /* the collector is the only caller: a cache of its own, without the
     * global cache's lock (two sigprocmask calls a step) */
    (void)unw_set_caching_policy(uw.as, UNW_CACHE_PER_THREAD);
    uw.pid = getpid();
    vftr_sample_unwind_refresh();
    return 0;
}

VFTR_NI uintptr_t vftr_sample_unwind_ip(const struct vftr_sample_regs *r)
{
    return (uintptr_t)r->regs[uw.idx[UNW_X86_64_RIP]];
}

VFTR_NI uintptr_t vftr_sample_unwind_sp(const struct vftr_sample_regs *r)
{
    return (uintptr_t)r->regs[uw.idx[UNW_X86_64_RSP]];
}

VFTR_NI uintptr_t vftr_sample_unwind_bp(const struct vftr_sample_regs *r)
{
    return (uintptr_t)r->regs[uw.idx[UNW_X86_64_RBP]];
}

VFTR_NI uint32_t vftr_sample_unwind(const struct vftr_sample_regs *r, uintptr_t *pc, uint32_t max,
                                    size_t *lo, size_t *hi)
{
    struct ctx c = { r, (uintptr_t)r->regs[uw.idx[UNW_X86_64_RSP]], false, SIZE_MAX, 0 };
    unw_cursor_t cur;
    uint32_t n = 0;

    *lo = *hi = 0;
    if (max == 0)
        return 0;
    pc[n++] = (uintptr_t)r->regs[uw.idx[UNW_X86_64_RIP]];
    if (uw.as == NULL || unw_init_remote(&cur, uw.as, &c) < 0)
        return n;
    while (n < max && unw_step(&cur) > 0) {
        unw_word_t ip;

        if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        pc[n++] = (uintptr_t)ip;
    }
    if (c.hi > c.lo) {
        *lo = c.lo;
        *hi = c.hi;
    }
    return n;
}

#else /* no unwinder here: the signal route */

VFTR_NI void vftr_sample_unwind_refresh(void)
{
}

VFTR_NI uint64_t vftr_sample_unwind_regs_mask(void)
{
    return 0;
}

VFTR_NI int vftr_sample_unwind_init(void)
{
    return -ENOSYS;
}

VFTR_NI uintptr_t vftr_sample_unwind_ip(const struct vftr_sample_regs *r)
{
    (void)r;
    return 0;
}

VFTR_NI uintptr_t vftr_sample_unwind_sp(const struct vftr_sample_regs *r)
{
    (void)r;
    return 0;
}

VFTR_NI uintptr_t vftr_sample_unwind_bp(const struct vftr_sample_regs *r)
{
    (void)r;
    return 0;
}

VFTR_NI uint32_t vftr_sample_unwind(const struct vftr_sample_regs *r, uintptr_t *pc, uint32_t max,
                                    size_t *lo, size_t *hi)
{
    (void)r;
    (void)pc;
    (void)max;
    *lo = *hi = 0;
    return 0;
}

#endif
