/*
 * patch.c — the hook calls of excluded functions patched out at run time
 * (filter.patch_excluded; capture.h: vftr_patch_*).
 *
 * With -finstrument-functions an excluded function still calls both hooks
 * on every call; the skip cache (capture.h) makes them return at once, but
 * the call, the return and the argument set-up stay, which on a tiny hot
 * function costs about what the function does.  The decision to exclude is
 * one per function address (filter.include, filter.exclude, filter.file),
 * so the hook call it came from can go: the first hook of an excluded
 * function that the skip cache answers looks at the instruction before its
 * return address and, when it is exactly a call of this very hook, turns
 * it into a jump over itself.
 *
 * What is patched, and only that (anything else: the site is left alone,
 * and the skip cache goes on answering):
 *   e8 rel32        a direct call whose target is the hook, or a PLT stub
 *                   (endbr64 and bnd optional, then ff 25 disp32: a jump
 *                   through a GOT slot) whose GOT slot holds the hook;
 *   ff 15 disp32    a call through a GOT slot holding the hook (-fno-plt).
 * A 67 e8 (addr32 call, the linker's relaxation of ff 15) cannot be told
 * from a 5-byte call behind an instruction ending in 0x67 and is left.
 * The instruction's first two bytes become eb 03 (eb 04 for the 6-byte
 * form): a short jump to the instruction after the call.
 *
 * Why it is safe while other threads run that code (XRay's argument): a
 * thread is only ever at an instruction boundary, and the only boundaries
 * here are the start of the call and the instruction after it, in both
 * versions; the bytes between are never executed as an instruction start.
 * The two bytes change with one compare-and-swap of the aligned 8-byte
 * word holding both (x86 stores of an aligned word are atomic, so a
 * thread's instruction fetch sees the old call or the new jump, never a
 * mix).  A 5-byte call whose first two bytes straddle an 8-byte boundary
 * has its rel32 alone in the next word: that is changed instead, to a ret
 * of the function's own (a call and a return, no hook; the e8 and every
 * instruction boundary stay); other straddling calls are left.  The
 * page is made writable for the write (read, write and execute, so that
 * threads running on it go on) and given back the protection it had.  A
 * thread that is inside the hook when the site changes returns to the
 * instruction after the call, which is the same in both versions.
 *
 * Every patch and restore happens under one mutex, taken with trylock:
 * a hook in a signal handler (or one racing another thread's patch) just
 * leaves the site for a later call, never waits.  Nothing here allocates
 * with malloc or uses stdio: the tables are mmap'd, /proc/self/maps is
 * read with read(2), so the path is async-signal-safe.  The protection to
 * give back comes from /proc/self/maps, read once and again when an
 * address is not in it or code was unmapped (vftr_patch_forget).
 *
 * Only calls in the excluded function's own body (its symbol's extent,
 * noted when the filter decided: vftr_patch_note) are patched: there each
 * call of a hook passes that function and no other (see own_site).
 * Capture's own calls of the hooks (the calibration, before recording
 * starts) are never patched.  A program that changes the protection of
 * its own code itself, or other tools patching the same code, are not
 * followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "capture.h"

void __cyg_profile_func_enter(void *fn, void *site) VFTR_EXPORT VFTR_NI;
void __cyg_profile_func_exit(void *fn, void *site) VFTR_EXPORT VFTR_NI;

/* The skip slots' starting tries: 0 when patching is on, VFTR_PATCH_TRIES
 * (no patching: the hooks never come here) when off. */
_Atomic uint32_t vftr_patch_tries_init = VFTR_PATCH_TRIES;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uintptr_t holder;   /* the thread holding lock (pthread_self), 0: none */
static bool enabled;          /* under lock: setup said so, no W^X refusal */
static pid_t owner;           /* the process that set up (a forked child does not patch) */
static _Atomic uint64_t n_patched, n_failed;
static _Atomic int refused;   /* mprotect refused: said once */

#if defined(__x86_64__)

/* A patched site: the n (1, 2 or 4) bytes at addr were orig, are now jmp. */
struct site {
    uintptr_t addr;
    uint8_t n, orig[4], jmp[4];
    uint8_t len;   /* of the instruction patched */
    bool thr;      /* of a throttled function: vftr_patch_unthrottle_all restores it */
};

/* An excluded function's extent, from its symbol (vftr_patch_note), for
 * the exit hook's jumps (below); searched: done once. */
struct extent {
    uintptr_t fn, end;
    bool searched;
};

/* The mappings of the process as /proc/self/maps last said. */
struct map {
    uintptr_t lo, hi;
    int prot;
};

static struct site *sites;    /* all under lock; mmap'd */
static size_t nsites, capsites;
static struct map *maps;
static size_t nmaps, capmaps;
static bool maps_stale = true;
static size_t pagesize;
static struct extent *ext;    /* open addressing on fn, a power of two; under lock */
static size_t next, capext;
static uint8_t body[65536];   /* a function's code, read to be decoded; under lock */

/* capture.h: mmap'd arrays (no malloc: hooks may run inside it) */
VFTR_NI bool vftr_mmap_grow(void **p, size_t *cap, size_t n, size_t sz)
{
    size_t ncap = *cap ? 2 * *cap : 4096 / sz;
    void *q;

    if (n < *cap)
        return true;
    q = mmap(NULL, ncap * sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        return false;
    if (*p != NULL) {
        memcpy(q, *p, n * sz);
        munmap(*p, *cap * sz);
    }
    *p = q;
    *cap = ncap;
    return true;
}

static VFTR_NI uintptr_t hex(const char **s, const char *end)
{
    uintptr_t v = 0;

    for (; *s < end; ++*s) {
        char c = **s;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

        if (d < 0)
            break;
        v = v << 4 | (uintptr_t)d;
    }
    return v;
}

/* One line of /proc/self/maps ("lo-hi rwxp ..."): appended; false when
 * out of memory. */
static VFTR_NI bool maps_line(const char *s, const char *end)
{
    struct map m;

    m.lo = hex(&s, end);
    if (s >= end || *s++ != '-')
        return true;
    m.hi = hex(&s, end);
    if (end - s < 5 || *s++ != ' ')
        return true;
    m.prot = (s[0] == 'r' ? PROT_READ : 0) | (s[1] == 'w' ? PROT_WRITE : 0)
             | (s[2] == 'x' ? PROT_EXEC : 0);
    if (!vftr_mmap_grow((void **)&maps, &capmaps, nmaps, sizeof *maps))
        return false;
    maps[nmaps++] = m;
    return true;
}

/* Reads /proc/self/maps again (read(2), no stdio); false on failure. */
static VFTR_NI bool maps_read(void)
{
    char buf[4096];
    size_t have = 0;
    int fd;
    ssize_t r;

    nmaps = 0;
    do
        fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return false;
    for (;;) {
        char *nl, *p = buf;

        r = read(fd, buf + have, sizeof buf - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
        while ((nl = memchr(p, '\n', have - (size_t)(p - buf))) != NULL) {
            if (!maps_line(p, nl)) {
                close(fd);
                return false;
            }
            p = nl + 1;
        }
        have -= (size_t)(p - buf);
        memmove(buf, p, have);
        if (have == sizeof buf)   /* a line longer than the buffer: its start is all we need */
            have = 0;
    }
    close(fd);
    maps_stale = r < 0;
    return r == 0;
}

/* The mapping holding [a, a + len) whose protection has the bits of need
 * (all of them, and no others when exact); the mappings are read again
 * once when the snapshot has none such (the snapshot may predate a
 * mapping made, or one unmapped and its place taken, since).  NULL when
 * there is none. */
static VFTR_NI const struct map *map_with(uintptr_t a, size_t len, int need, bool exact)
{
    for (int pass = 0; pass < 2; pass++) {
        if (maps_stale || pass == 1)
            if (!maps_read())
                return NULL;
        for (size_t i = 0; i < nmaps; i++)
            if (maps[i].lo <= a && a + len <= maps[i].hi && a + len > a) {
                if ((maps[i].prot & need) == need && (!exact || maps[i].prot == need))
                    return &maps[i];
                break;
            }
    }
    return NULL;
}

/* Whether [a, a + len) is code: mapped readable and executable, not
 * writable (what the compiler's and the loader's code is). */
static VFTR_NI const struct map *code_at(uintptr_t a, size_t len)
{
    return map_with(a, len, PROT_READ | PROT_EXEC, true);
}

/* Copies n bytes at a, which the mappings say are readable, to dst: with
 * process_vm_readv on this process, which fails (EFAULT) rather than
 * faulting should the mappings have changed since they were read; where
 * that call is not allowed (seccomp), directly.  False when not
 * readable. */
static VFTR_NI bool peek(void *dst, uintptr_t a, size_t n)
{
    struct iovec local = { dst, n }, remote = { (void *)a, n };
    ssize_t r;

    if (map_with(a, n, PROT_READ, false) == NULL)
        return false;
    r = syscall(SYS_process_vm_readv, (long)getpid(), &local, 1L, &remote, 1L, 0L);
    if (r == (ssize_t)n)
        return true;
    if (r < 0 && (errno == ENOSYS || errno == EPERM)) {
        memcpy(dst, (const void *)a, n);
        return true;
    }
    return false;
}

static VFTR_NI int32_t rel32(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

    return (int32_t)v;
}

/* Whether the 8 bytes at slot (a GOT entry) hold hook. */
static VFTR_NI bool slot_holds(uintptr_t slot, uintptr_t hook)
{
    uintptr_t v;

    return peek(&v, slot, 8) && v == hook;
}

/* Whether target is hook, or a PLT stub jumping through a slot that holds
 * it: [endbr64] [bnd] jmp *disp32(%rip). */
static VFTR_NI bool reaches(uintptr_t target, uintptr_t hook)
{
    uint8_t p[11];
    size_t k = 0;

    if (target == hook)
        return true;
    if (code_at(target, 11) == NULL || !peek(p, target, 11))
        return false;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
        k = 4;
    if (p[k] == 0xf2)
        k++;
    if (p[k] != 0xff || p[k + 1] != 0x25)
        return false;
    return slot_holds(target + k + 6 + (uintptr_t)(intptr_t)rel32(p + k + 2), hook);
}

/* The n (1 to 4) bytes at a from from[] to to[] with one compare-and-swap
 * of the aligned 8-byte word holding them; false when they straddle a
 * word boundary or are not from[]. */
static VFTR_NI bool casn(uintptr_t a, size_t n, const uint8_t from[4], const uint8_t to[4])
{
    uint64_t *w = (uint64_t *)(a & ~(uintptr_t)7), old, new, mask, f = 0, t = 0;
    unsigned sh = (unsigned)(a & 7) * 8;

    if (n < 1 || n > 4 || (a & 7) + n > 8)
        return false;
    for (size_t i = 0; i < n; i++) {
        f |= (uint64_t)from[i] << (8 * i);
        t |= (uint64_t)to[i] << (8 * i);
    }
    mask = (((uint64_t)1 << (8 * n)) - 1) << sh;
    /* in assembly: code is no memory a sanitizer keeps shadow for (TSan's
     * atomics would write its metadata for the address and fault) */
    __asm__ volatile("movq %1, %0" : "=r"(old) : "m"(*w));
    if ((old & mask) != f << sh)
        return false;
    new = (old & ~mask) | t << sh;
    {
        uint64_t seen = old;

        __asm__ volatile("lock cmpxchgq %2, %1" : "+a"(seen), "+m"(*w) : "r"(new) : "memory", "cc");
        return seen == old;
    }
}

/* Writes to[] over from[] (n bytes) at a, in code mapped as m, its page
 * writable for the moment.  0, -EACCES (the system refuses writable
 * code), or another -errno. */
static VFTR_NI int writen(uintptr_t a, size_t n, const struct map *m, const uint8_t from[4],
                          const uint8_t to[4])
{
    uintptr_t page = a & ~(uintptr_t)(pagesize - 1);
    int prot = m->prot, rc = 0;

    if (mprotect((void *)page, pagesize, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return errno == EACCES || errno == EPERM ? -EACCES : -errno;
    if (!casn(a, n, from, to))
        rc = -ESTALE;
    if (mprotect((void *)page, pagesize, prot) != 0) {
        /* cannot happen (we set it a moment ago); leave the rest alone */
        enabled = false;
        vftr_msg_raw("filter.patch_excluded: cannot give patched code its protection back; "
                     "no more patching");
    }
    return rc;
}

/* The call of hook whose return address is ret: its first byte and
 * length (5 or 6); 0 when the bytes before ret are not exactly that. */
static VFTR_NI size_t call_at(uintptr_t ret, uintptr_t hook, uintptr_t hook2, uintptr_t *start)
{
    uint8_t b[6];
    uintptr_t t;

    if (ret < 6 || code_at(ret - 6, 6) == NULL || !peek(b, ret - 6, 6))
        return 0;
    if (b[1] == 0xe8 && b[0] != 0x67) {
        t = ret + (uintptr_t)(intptr_t)rel32(b + 2);
        if (!reaches(t, hook) && !reaches(t, hook2))
            return 0;
        *start = ret - 5;
        return 5;
    }
    if (b[0] == 0xff && b[1] == 0x15) {
        t = ret + (uintptr_t)(intptr_t)rel32(b + 2);
        if (!slot_holds(t, hook) && !slot_holds(t, hook2))
            return 0;
        *start = ret - 6;
        return 6;
    }
    return 0;
}

/* The hooks' own addresses: the symbol as the program binds it, and the
 * code itself (the same unless something else defines the hooks first,
 * when nothing here is called anyway). */
static VFTR_NI void hook_addrs(int kind, uintptr_t *a, uintptr_t *b)
{
    *a = kind ? (uintptr_t)&__cyg_profile_func_exit : (uintptr_t)&__cyg_profile_func_enter;
    *b = kind ? (uintptr_t)&vftr_hook_exit_code : (uintptr_t)&vftr_hook_enter_code;
}

/* Keeps site s (just written) in the table: a site met again is code
 * mapped anew where an old one was (dlclose, dlopen), whose entry goes. */
static VFTR_NI void keep(const struct site *s)
{
    for (size_t i = 0; i < nsites; i++)
        if (sites[i].addr == s->addr) {
            sites[i] = *s;
            return;
        }
    sites[nsites++] = *s;
}

/* Writes site s; 1 done, 0 not, -EACCES refused by the system. */
static VFTR_NI int apply(const struct site *s, const struct map *m)
{
    int rc;

    if (!vftr_mmap_grow((void **)&sites, &capsites, nsites, sizeof *sites))
        return 0;
    rc = writen(s->addr, s->n, m, s->orig, s->jmp);
    if (rc == -EACCES)
        return rc;
    if (rc < 0)
        return 0;
    keep(s);
    return 1;
}

static VFTR_NI struct extent *extent_slot(uintptr_t fn);

/*
 * Whether the call at [start, start + len) lies in fn's own body (its
 * symbol's extent).  A copy of fn inlined into another function calls the
 * hooks with fn too, but there the compiler may have merged the call with
 * another inlined function's (two branches ending in the same call, each
 * loading its own function first: cross-jumping), and that call then
 * passes either; in fn's own body only fn's enter and exits call the
 * hooks with fn, and none of them can share a call with another
 * function's.  Inlined copies keep their calls (the skip cache answers
 * them).
 */
static VFTR_NI bool own_site(uintptr_t fn, uintptr_t start, size_t len)
{
    const struct extent *e = extent_slot(fn);

    return e != NULL && e->fn == fn && start >= fn && start + len <= e->end;
}

static VFTR_NI size_t insn_len(const uint8_t *p, size_t max, unsigned *op, bool *prefixed,
                               int *modrm);

/* The patched site starting at a, NULL when none. */
static VFTR_NI const struct site *site_at(uintptr_t a)
{
    for (size_t i = 0; i < nsites; i++)
        if (sites[i].addr == a)
            return &sites[i];
    return NULL;
}

/* The first ret instruction of fn's body, decoded from its entry (a
 * patched site as the instruction it was, or as the ret it is now); 0
 * when there is none or a byte the decoder does not know comes first. */
static VFTR_NI uintptr_t ret_in(uintptr_t fn)
{
    const struct extent *e = extent_slot(fn);
    uintptr_t a;
    size_t len;

    if (e == NULL || e->fn != fn || e->end <= fn || e->end - fn > sizeof body
        || !peek(body, fn, e->end - fn))
        return 0;
    for (a = fn; a < e->end; a += len) {
        const struct site *st = site_at(a);
        unsigned op;
        bool prefixed;
        int modrm;

        if (st != NULL) {
            if (st->n == 1 && st->jmp[0] == 0xc3)
                return a;
            len = st->len;
            continue;
        }
        len = insn_len(body + (a - fn), e->end - a, &op, &prefixed, &modrm);
        if (len == 0)
            return 0;
        if (op == 0xc3 && !prefixed)
            return a;
    }
    return 0;
}

/* Patches the call before ret, of the hook (kind 0: enter, 1: exit) of fn
 * (lock held): 1 patched, 0 not a site that may be, -EACCES refused by the
 * system. */
static VFTR_NI int patch_one(uintptr_t fn, uintptr_t ret, int kind, bool thr)
{
    uintptr_t hook, hook2, start = 0;
    const struct map *m;
    struct site s;
    size_t len;

    hook_addrs(kind, &hook, &hook2);
    len = call_at(ret, hook, hook2, &start);
    if (len == 0 || !own_site(fn, start, len))
        return 0;
    s.len = (uint8_t)len;
    s.thr = thr;
    if ((start & 7) != 7) {
        s.addr = start;
        s.n = 2;
        s.jmp[0] = 0xeb;
        s.jmp[1] = (uint8_t)(len - 2);
    } else if (len == 5) {
        /* the two bytes straddle a word boundary, the rel32 is a word's
         * first four bytes: the call is sent to a ret of the function's
         * own instead (call and ret, no hook), its e8 left */
        uintptr_t r = ret_in(fn);
        int32_t d;

        if (r == 0)
            return 0;
        d = (int32_t)((intptr_t)r - (intptr_t)(start + 5));
        s.addr = start + 1;
        s.n = 4;
        memcpy(s.jmp, &d, 4);
    } else {
        return 0;
    }
    if (!peek(s.orig, s.addr, s.n) || (m = code_at(start, len)) == NULL)
        return 0;   /* code_at last: m points into the snapshot */
    return apply(&s, m);
}

/* Redirects the call of the enter hook before ret in fn's body to stub
 * (lock held): a counting stub (vftr_stub_near) within reach of the call.
 * Only the call's operand changes, 4 bytes in one aligned word: the rel32
 * of e8 rel32, or the disp32 of ff 15 disp32, which then reads the stub's
 * address from the stub's own slot at +24; opcode and boundaries stay, so
 * a thread sees the old call or the new one.  An operand that straddles
 * two words keeps its bytes in one of them, and the stub is placed where
 * the new value of the others reaches it (vftr_stub_at): its code for e8,
 * its slot for ff 15.  1 patched, 0 not a
 * site that may be (the hook goes on counting it), -EACCES refused by the
 * system. */
static VFTR_NI int patch_enter_stub(uintptr_t fn, uintptr_t ret)
{
    uintptr_t hook, hook2, start = 0, target, stub;
    const struct map *m;
    struct site s;
    size_t len;
    intptr_t d;
    int32_t d32;

    hook_addrs(0, &hook, &hook2);
    len = call_at(ret, hook, hook2, &start);
    if (len == 0 || !own_site(fn, start, len))
        return 0;
    s.len = (uint8_t)len;
    s.thr = true;
    s.n = 4;
    s.addr = start + len - 4;   /* the operand, the instruction's last 4 bytes */
    if ((s.addr & 7) > 4) {
        /* the operand straddles two words: the bytes in one are kept, the
         * stub placed where the operand's other bytes reach it (only
         * those change, in one word).  e8: the operand reaches the stub's
         * code; ff 15: the stub's slot at +24, which holds the stub's
         * address as a GOT slot holds the hook's (asked for 24 before, the
         * result checked: a carry out of the kept bytes is refused) */
        uint8_t op[4];
        unsigned in_a = 8 - (unsigned)(s.addr & 7);   /* operand bytes in the first word: 1 to 3 */
        uint32_t old, mask, off = len == 5 ? 0 : 24;

        if (!peek(op, s.addr, 4))
            return 0;
        old = (uint32_t)rel32(op);
        mask = in_a == 3 ? 0xff000000u : in_a == 2 ? 0xffffu : 0xffu;
        stub = vftr_stub_at(fn, start + len, mask, old - off);
        if (stub == 0)
            return 0;
        d = (intptr_t)(stub + off) - (intptr_t)(start + len);
        if (d != (intptr_t)(int32_t)d || ((uint32_t)d & mask) != (old & mask))
            return 0;
        d32 = (int32_t)d;
        if (in_a == 3) {   /* the top byte kept: the first three change */
            s.n = 3;
            memcpy(s.jmp, &d32, 3);
        } else {           /* the low bytes kept: the rest change */
            s.n = (uint8_t)(4 - in_a);
            memcpy(s.jmp, (uint8_t *)&d32 + in_a, s.n);
            s.addr += in_a;
        }
        if (!peek(s.orig, s.addr, s.n) || (m = code_at(start, len)) == NULL)
            return 0;
        return apply(&s, m);
    }
    stub = vftr_stub_near(fn);
    if (stub == 0)
        return 0;
    target = len == 5 ? stub : stub + 24;
    d = (intptr_t)target - (intptr_t)(start + len);
    if (d != (intptr_t)(int32_t)d)
        return 0;
    d32 = (int32_t)d;
    memcpy(s.jmp, &d32, 4);
    if (!peek(s.orig, s.addr, s.n) || (m = code_at(start, len)) == NULL)
        return 0;
    return apply(&s, m);
}

/* ---------------------------------------------- the exit hook's jumps
 *
 * A function returning nothing often ends in a jump to the exit hook (a
 * tail call: jmp __cyg_profile_func_exit), whose return goes to the
 * function's caller; the hook's return address then says nothing about
 * where it came from.  Such a jump can only be the function's own exit
 * (after an inlined callee's exit the function's code goes on), so the
 * function's body, from its symbol's extent, is decoded instruction by
 * instruction from its entry: every jmp rel32 to the exit hook (or its
 * PLT stub) and every jmp through a GOT slot holding it (-fno-plt) becomes
 * a ret (c3: what the hook's own ret would do), one byte written with the
 * same compare-and-swap.  Decoding from the entry gives the instruction
 * boundaries exactly, as long as every byte of the extent is an
 * instruction (compiled code; the compilers put no data there); any byte
 * the decoder does not know stops it, and then nothing is patched.
 */

/* The length of the x86-64 instruction at p (at most max bytes
 * readable), 0 when it is one this decoder does not know; *op, *prefixed
 * and *modrm: its opcode (0x0f00 | second byte for two-byte ones),
 * whether it had prefixes, its ModRM byte (-1: none). */
static VFTR_NI size_t insn_len(const uint8_t *p, size_t max, unsigned *op, bool *prefixed,
                               int *modrm)
{
    size_t i = 0, imm = 0;
    bool o16 = false, a32 = false, rexw = false, has_modrm = true;
    unsigned b, map = 0;

    *prefixed = false;
    *modrm = -1;
    for (; i < max && i < 14; i++) {
        b = p[i];
        if (b == 0x66)
            o16 = true;
        else if (b == 0x67)
            a32 = true;
        else if (!(b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x3e || b == 0x26
                   || b == 0x36 || b == 0x64 || b == 0x65))
            break;
        *prefixed = true;
    }
    if (i >= max)
        return 0;
    b = p[i];
    if (b >= 0x40 && b <= 0x4f) {
        rexw = (b & 8) != 0;
        *prefixed = true;
        if (++i >= max)
            return 0;
        b = p[i];
    }
    if (b == 0xc5 || b == 0xc4 || b == 0x62) {   /* VEX, EVEX: a map, an opcode, ModRM */
        if (i + (b == 0xc5 ? 3 : b == 0xc4 ? 4 : 5) > max)
            return 0;
        if (b == 0xc5) {
            map = 1;
            i += 2;
        } else if (b == 0xc4) {
            map = p[i + 1] & 0x1f;
            i += 3;
        } else {
            map = p[i + 1] & 0x03;
            i += 4;
        }
        if (map < 1 || map > 3)
            return 0;
        b = p[i++];
        *op = 0x0f00 | b;
        imm = map == 3 || (map == 1 && ((b >= 0x70 && b <= 0x73) || b == 0xc2 || b == 0xc4
                                        || b == 0xc5 || b == 0xc6));
        has_modrm = !(map == 1 && b == 0x77);   /* vzeroupper, vzeroall */
    } else if (b == 0x0f) {
        if (i + 2 > max)
            return 0;
        b = p[++i];
        i++;
        *op = 0x0f00 | b;
        if ((b == 0x38 || b == 0x3a) && i >= max)
            return 0;
        if (b == 0x38) {
            i++;
        } else if (b == 0x3a) {
            i++;
            imm = 1;
        } else if (b == 0x05 || b == 0x06 || b == 0x07 || b == 0x08 || b == 0x09 || b == 0x0b
                   || b == 0x0e || (b >= 0x30 && b <= 0x37) || b == 0x77 || b == 0xa0
                   || b == 0xa1 || b == 0xa2 || b == 0xa8 || b == 0xa9 || b == 0xaa
                   || (b >= 0xc8 && b <= 0xcf)) {
            has_modrm = false;
        } else if (b >= 0x80 && b <= 0x8f) {   /* jcc rel32 */
            if (o16)
                return 0;
            has_modrm = false;
            imm = 4;
        } else if ((b >= 0x70 && b <= 0x73) || b == 0xa4 || b == 0xac || b == 0xba
                   || b == 0xc2 || b == 0xc4 || b == 0xc5 || b == 0xc6 || b == 0x0f) {
            imm = 1;
        } else if (b == 0x04 || b == 0x0a || b == 0x0c || b == 0x24 || b == 0x25 || b == 0x26
                   || b == 0x27 || b == 0x36 || b == 0x39 || (b >= 0x3b && b <= 0x3f)
                   || b == 0x7a || b == 0x7b || b == 0xa6 || b == 0xa7) {
            return 0;   /* not an instruction in 64-bit mode */
        }
    } else {
        unsigned lo = b & 7;
        size_t iz = o16 ? 2 : 4;   /* imm16/32 */

        *op = b;
        i++;
        if (b < 0x40) {
            if (lo == 6 || lo == 7)
                return 0;   /* push/pop of segments, daa, ...: none in 64-bit mode */
            if (lo == 4) {
                has_modrm = false;
                imm = 1;
            } else if (lo == 5) {
                has_modrm = false;
                imm = iz;
            }
        } else if (b >= 0x50 && b <= 0x5f) {
            has_modrm = false;
        } else if (b == 0x63 || (b >= 0x84 && b <= 0x8f) || (b >= 0xd0 && b <= 0xd3)
                   || (b >= 0xd8 && b <= 0xdf) || b == 0xfe || b == 0xff) {
            /* ModRM, no immediate */
        } else if (b == 0x69 || b == 0x81 || b == 0xc7) {
            imm = iz;
        } else if (b == 0x6b || b == 0x80 || b == 0x83 || b == 0xc0 || b == 0xc1 || b == 0xc6) {
            imm = 1;
        } else if (b == 0x68) {
            has_modrm = false;
            imm = iz;
        } else if (b == 0x6a || (b >= 0x70 && b <= 0x7f) || b == 0xa8 || (b >= 0xb0 && b <= 0xb7)
                   || b == 0xcd || (b >= 0xe0 && b <= 0xe7) || b == 0xeb) {
            has_modrm = false;
            imm = 1;
        } else if ((b >= 0x6c && b <= 0x6f) || (b >= 0x90 && b <= 0x99)
                   || (b >= 0x9c && b <= 0x9f) || (b >= 0xa4 && b <= 0xa7)
                   || (b >= 0xaa && b <= 0xaf) || b == 0xc3 || b == 0xc9 || b == 0xcb
                   || b == 0xcc || b == 0xcf || b == 0xd7 || (b >= 0xec && b <= 0xef)
                   || b == 0xf1 || b == 0xf4 || b == 0xf5 || (b >= 0xf8 && b <= 0xfd)) {
            has_modrm = false;
        } else if (b >= 0xa0 && b <= 0xa3) {
            has_modrm = false;
            imm = a32 ? 4 : 8;   /* moffs */
        } else if (b == 0xa9) {
            has_modrm = false;
            imm = iz;
        } else if (b >= 0xb8 && b <= 0xbf) {
            has_modrm = false;
            imm = rexw ? 8 : iz;
        } else if (b == 0xc2 || b == 0xca) {
            has_modrm = false;
            imm = 2;
        } else if (b == 0xc8) {
            has_modrm = false;
            imm = 3;
        } else if (b == 0xe8 || b == 0xe9) {
            if (o16)
                return 0;
            has_modrm = false;
            imm = 4;
        } else if (b == 0xf6 || b == 0xf7) {
            if (i >= max)
                return 0;
            if (((p[i] >> 3) & 7) < 2)   /* test r/m, imm */
                imm = b == 0xf6 ? 1 : iz;
        } else {
            return 0;
        }
    }
    if (has_modrm) {
        unsigned m, mod, rm;

        if (i >= max)
            return 0;
        m = p[i++];
        *modrm = (int)m;
        mod = m >> 6;
        rm = m & 7;
        if (mod != 3 && rm == 4) {   /* SIB */
            if (i >= max)
                return 0;
            if (mod == 0 && (p[i] & 7) == 5)
                i += 4;
            i++;
        }
        if (mod == 0 && rm == 5)
            i += 4;   /* rip-relative */
        else if (mod == 1)
            i += 1;
        else if (mod == 2)
            i += 4;
    }
    i += imm;
    return i <= max ? i : 0;
}

VFTR_NI size_t vftr_patch_insn_len(const uint8_t *p, size_t max)
{
    unsigned op;
    bool prefixed;
    int modrm;

    return insn_len(p, max, &op, &prefixed, &modrm);
}

/* The extent entry of fn (lock held): its slot, which is empty (fn 0)
 * when fn is not there; NULL when there is no table. */
static VFTR_NI struct extent *extent_slot(uintptr_t fn)
{
    size_t i;

    if (capext == 0)
        return NULL;
    for (i = (fn >> 4) & (capext - 1); ext[i].fn != 0 && ext[i].fn != fn; i = (i + 1) & (capext - 1))
        ;
    return &ext[i];
}

/* Puts fn's extent into the table (lock held), which grows at half full;
 * false when out of memory. */
static VFTR_NI bool extent_put(uintptr_t fn, uintptr_t end, bool searched)
{
    struct extent *e;

    if (2 * (next + 1) > capext) {
        struct extent *old = ext;
        size_t oldcap = capext, ncap = capext ? 2 * capext : 256;
        void *q = mmap(NULL, ncap * sizeof *ext, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (q == MAP_FAILED)
            return false;
        ext = q;
        capext = ncap;
        next = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].fn != 0)
                (void)extent_put(old[i].fn, old[i].end, old[i].searched);
        if (old != NULL)
            munmap(old, oldcap * sizeof *old);
    }
    e = extent_slot(fn);
    if (e->fn == 0)
        next++;
    e->fn = fn;
    e->end = end;
    e->searched = searched;
    return true;
}

/* Drops the extents in [lo, hi) (lock held): the others go into a new
 * table (open addressing has no simple delete). */
static VFTR_NI void extent_drop(uintptr_t lo, uintptr_t hi)
{
    struct extent *old = ext;
    size_t oldcap = capext;

    ext = NULL;
    capext = next = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].fn != 0 && !(old[i].fn >= lo && old[i].fn < hi))
            (void)extent_put(old[i].fn, old[i].end, old[i].searched);
    if (old != NULL)
        munmap(old, oldcap * sizeof *old);
}

/* Patches every jump of fn's body to the exit hook (lock held): the
 * number patched, or -EACCES. */
static VFTR_NI int patch_tail(uintptr_t fn, bool thr)
{
    struct extent *e = extent_slot(fn);
    uintptr_t hook, hook2, a;
    const struct map *m;
    struct map mm;
    struct site mine[64];
    size_t len, nmine = 0;
    int done = 0;

    if (e == NULL || e->fn != fn || e->searched)
        return 0;
    e->searched = true;
    if (e->end <= fn || e->end - fn > sizeof body || (m = code_at(fn, e->end - fn)) == NULL)
        return 0;
    mm = *m;   /* the checks below may read the mappings again */
    if (!peek(body, fn, e->end - fn))
        return 0;
    hook_addrs(1, &hook, &hook2);
    /* the sites patched in the body already (its enter, calls of the exit
     * hook): their instructions are what they were, not the jumps */
    for (size_t i = 0; i < nsites; i++)
        if (sites[i].addr >= fn && sites[i].addr < e->end) {
            if (nmine == sizeof mine / sizeof mine[0])
                return 0;
            mine[nmine++] = sites[i];
        }
    /* first the whole body decoded, then the writes: an unknown byte
     * anywhere means the boundaries are not to be trusted */
    for (int write = 0; write < 2; write++) {
        for (a = fn; a < e->end; a += len) {
            const uint8_t *p = body + (a - fn);
            unsigned op;
            bool prefixed;
            int modrm;
            uintptr_t t;
            struct site s;
            size_t k;

            for (k = 0; k < nmine && mine[k].addr != a; k++)
                ;
            if (k < nmine) {
                len = mine[k].len;
                continue;
            }
            len = insn_len(p, e->end - a, &op, &prefixed, &modrm);
            if (len == 0)
                return done;   /* only in the first pass: nothing written */
            if (prefixed)
                continue;
            if (op == 0xe9 && len == 5) {
                t = a + 5 + (uintptr_t)(intptr_t)rel32(p + 1);
                if (!reaches(t, hook) && !reaches(t, hook2))
                    continue;
            } else if (op == 0xff && modrm == 0x25 && len == 6) {
                t = a + 6 + (uintptr_t)(intptr_t)rel32(p + 2);
                if (!slot_holds(t, hook) && !slot_holds(t, hook2))
                    continue;
            } else {
                continue;
            }
            if (!write)
                continue;
            s.addr = a;
            s.n = 1;
            s.orig[0] = p[0];
            s.orig[1] = p[1];
            s.jmp[0] = 0xc3;   /* ret */
            s.jmp[1] = p[1];
            s.len = (uint8_t)len;
            s.thr = thr;
            {
                int rc = apply(&s, &mm);

                if (rc == -EACCES)
                    return rc;
                done += rc;
            }
        }
    }
    return done;
}

static VFTR_NI bool arch_ok(void)
{
    long ps = sysconf(_SC_PAGESIZE);

    pagesize = ps > 0 ? (size_t)ps : 4096;
    return true;
}

#else   /* not x86-64: nothing is patched */

static VFTR_NI int patch_one(uintptr_t fn, uintptr_t ret, int kind, bool thr)
{
    (void)fn;
    (void)ret;
    (void)kind;
    (void)thr;
    return 0;
}

static VFTR_NI int patch_tail(uintptr_t fn, bool thr)
{
    (void)fn;
    (void)thr;
    return 0;
}

static VFTR_NI int patch_enter_stub(uintptr_t fn, uintptr_t ret)
{
    (void)fn;
    (void)ret;
    return 0;
}

static VFTR_NI bool arch_ok(void)
{
    return false;
}

VFTR_NI size_t vftr_patch_insn_len(const uint8_t *p, size_t max)
{
    (void)p;
    (void)max;
    return 0;
}

#endif

/*
 * The lock.  The hooks' slow path only tries it (a hook in a signal
 * handler must never wait).  The others wait for it, except when this
 * very thread holds it: a signal handler that interrupted it here and
 * came back through a hook; then they give up (patch_lock returns false).
 * Nothing under the lock takes another lock of capture's, so waiting
 * cannot close a cycle.
 */
static VFTR_NI bool patch_trylock(void)
{
    if (pthread_mutex_trylock(&lock) != 0)
        return false;
    atomic_store_explicit(&holder, (uintptr_t)pthread_self(), memory_order_relaxed);
    return true;
}

static VFTR_NI bool patch_lock(void)
{
    while (!patch_trylock()) {
        if (atomic_load_explicit(&holder, memory_order_relaxed) == (uintptr_t)pthread_self())
            return false;
        sched_yield();
    }
    return true;
}

static VFTR_NI void patch_unlock(void)
{
    atomic_store_explicit(&holder, 0, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
}

VFTR_NI bool vftr_patch_setup(bool on)
{
    if (!patch_lock())
        return false;
    enabled = on && arch_ok();
    owner = getpid();
    patch_unlock();
    atomic_store_explicit(&vftr_patch_tries_init, enabled ? 0 : VFTR_PATCH_TRIES,
                          memory_order_relaxed);
    return enabled;
}

/* Code cannot be made writable here (a W^X policy): patching stops for
 * good (the skip cache and the hooks do the work), said once.  Lock held. */
static VFTR_NI void refuse(void)
{
    enabled = false;
    atomic_store_explicit(&vftr_patch_tries_init, VFTR_PATCH_TRIES, memory_order_relaxed);
    if (!atomic_exchange(&refused, 1) && vftr_proc.is_rank0)
        vftr_msg_raw("filter.patch_excluded: the system does not let code be made writable "
                     "(a W^X policy?); excluded and throttled functions keep calling the hooks");
}


VFTR_NI void vftr_patch_site(struct vftr_skip_slot *slot, uintptr_t fn, uintptr_t ret, int kind)
{
    int rc;

    if (!patch_trylock())
        return;   /* another patch under way, or a signal handler interrupted one */
    /* still excluded (dlclose may have cleared the slot since) */
    if (atomic_load_explicit(&slot->fn, memory_order_relaxed) != fn) {
        patch_unlock();
        return;
    }
    /* patching on, capture recording (not its calibration), this process
     * (a forked child's hooks return as before): else not again */
    if (!enabled || !vftr_proc.recording || getpid() != owner) {
        atomic_store_explicit(&slot->tries[kind], VFTR_PATCH_TRIES, memory_order_relaxed);
        patch_unlock();
        return;
    }
    rc = patch_one(fn, ret, kind, false);
    if (rc == 0 && kind == 1)
        rc = patch_tail(fn, false);   /* reached by a jump: from the function's own exits */
    if (rc > 0) {
        atomic_fetch_add_explicit(&n_patched, (uint64_t)rc, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&n_failed, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&slot->tries[kind], 1, memory_order_relaxed);
    }
    if (rc == -EACCES)
        refuse();
    patch_unlock();
}

VFTR_NI void vftr_patch_note(uintptr_t fn, uintptr_t end)
{
    if (!patch_lock())
        return;   /* a signal handler interrupted a patch: the extent stays unknown */
#if defined(__x86_64__)
    if (enabled)
        (void)extent_put(fn, end, false);
#else
    (void)fn;
    (void)end;
#endif
    patch_unlock();
}

static VFTR_NI void thr_forget(uintptr_t lo, uintptr_t hi);

VFTR_NI void vftr_patch_forget(uintptr_t lo, uintptr_t hi)
{
    thr_forget(lo, hi);
    if (!patch_lock())
        return;
#if defined(__x86_64__)
    for (size_t i = 0; i < nsites;)
        if (sites[i].addr >= lo && sites[i].addr < hi)
            sites[i] = sites[--nsites];   /* the code is gone: nothing to give back */
        else
            i++;
    extent_drop(lo, hi);
    maps_stale = true;
#else
    (void)lo;
    (void)hi;
#endif
    patch_unlock();
}

#if defined(__x86_64__)
/* Gives site i its original bytes back, if the code is still what was
 * patched (the CAS checks it), and drops it from the list (the last site
 * takes its place).  1 when restored.  Lock held. */
static size_t unpatch(size_t i)
{
    const struct map *m = code_at(sites[i].addr, sites[i].n);
    size_t done = m != NULL &&
                  writen(sites[i].addr, sites[i].n, m, sites[i].jmp, sites[i].orig) == 0;

    sites[i] = sites[--nsites];
    return done;
}
#endif

VFTR_NI size_t vftr_patch_restore(uintptr_t lo, uintptr_t hi)
{
    size_t done = 0;

    if (!patch_lock())
        return 0;
#if defined(__x86_64__)
    for (size_t i = 0; i < nsites;) {
        if (sites[i].addr < lo || sites[i].addr >= hi) {
            i++;
            continue;
        }
        done += unpatch(i);
    }
    for (size_t i = 0; i < capext; i++)
        if (ext[i].fn >= lo && ext[i].fn < hi)
            ext[i].searched = false;
#else
    (void)lo;
    (void)hi;
#endif
    patch_unlock();
    /* the functions come to the hooks again: their slots may try again */
    for (size_t i = 0; i < VFTR_SKIP_SLOTS; i++) {
        uintptr_t fn = atomic_load_explicit(&vftr_skip[i].fn, memory_order_relaxed);

        if (fn >= lo && fn < hi) {
            uint32_t init = atomic_load_explicit(&vftr_patch_tries_init, memory_order_relaxed);

            atomic_store_explicit(&vftr_skip[i].tries[0], init, memory_order_relaxed);
            atomic_store_explicit(&vftr_skip[i].tries[1], init, memory_order_relaxed);
        }
    }
    return done;
}

VFTR_NI void vftr_patch_stats(uint64_t *patched, uint64_t *failed, bool *on)
{
    *patched = atomic_load_explicit(&n_patched, memory_order_relaxed);
    *failed = atomic_load_explicit(&n_failed, memory_order_relaxed);
    *on = false;
    if (patch_lock()) {
        *on = enabled;
        patch_unlock();
    }
}

/* ----------------------------------------------- throttled functions
 *
 * A throttled function of a -finstrument-functions build keeps being
 * counted, no longer traced (filter.c), but without this it would run both
 * hooks in full on every call.  Its enter call is redirected to a stub
 * that counts the call in the calling thread (sled.c: the sleds' stubs and
 * counters, joined to the profile by vftr_sled_fold), its exit calls are
 * jumped over as an excluded function's are.  Then the function is no
 * frame of the call stack: its time is its caller's, its callees appear
 * under its caller, as with an excluded function.
 *
 * The moment of switching.  A thread that entered it through the hook
 * before the redirection has a frame for it; such a frame that leaves
 * through a jumped-over exit is closed when its caller's exit comes
 * (vftr_exit_mismatch closes the frames above the one exiting), so the
 * stack cannot keep it.  The hooks stop pushing the function's throttled
 * call paths only once its enter is redirected (vftr_patch_throttled_enter
 * answers so), and its exit calls are jumped over only from then on, so
 * that an exit hook of a call not pushed finds the function is not the
 * current frame, and leaves the stack alone (vftr_exit_mismatch: a
 * function not on the stack is ignored) – also after vftr-ctl unthrottle
 * restores the calls while a thread is inside.
 */
#define THR_SLOTS 512u
enum { THR_OFF, THR_MARKED, THR_REDIRECTED };

struct thr_fn {
    _Atomic uintptr_t fn;          /* set once (lock-free), never cleared */
    _Atomic uint32_t state;        /* THR_* */
    _Atomic uint32_t tries[2];     /* failed patch tries of the enter and exit hook */
};
static struct thr_fn thr[THR_SLOTS];
static _Atomic uint64_t n_thr_sites;

/* fn's entry, made when add; NULL when none (or the table is full). */
static VFTR_NI struct thr_fn *thr_find(uintptr_t fn, bool add)
{
    size_t h = (size_t)(((uint64_t)fn * 0x9E3779B97F4A7C15ull) >> 40);

    for (size_t i = 0; i < THR_SLOTS; i++) {
        struct thr_fn *e = &thr[(h + i) & (THR_SLOTS - 1)];
        uintptr_t v = atomic_load_explicit(&e->fn, memory_order_acquire);

        if (v == fn)
            return e;
        if (v == 0) {
            if (!add)
                return NULL;
            if (atomic_compare_exchange_strong(&e->fn, &v, fn) || v == fn)
                return e;
        }
    }
    return NULL;
}

/* The throttled functions in [lo, hi) are gone (dlclose): code mapped
 * there later starts unregistered. */
static VFTR_NI void thr_forget(uintptr_t lo, uintptr_t hi)
{
    for (size_t i = 0; i < THR_SLOTS; i++) {
        uintptr_t fn = atomic_load_explicit(&thr[i].fn, memory_order_relaxed);

        if (fn >= lo && fn < hi)
            atomic_store_explicit(&thr[i].state, THR_OFF, memory_order_release);
    }
}

VFTR_NI void vftr_patch_throttle(uintptr_t fn)
{
    struct thr_fn *e;
    uint32_t off = THR_OFF;

    /* patching on (else the slots' tries start full), no sleds (their
     * functions are counted by the sled's own stub) */
    if (atomic_load_explicit(&vftr_patch_tries_init, memory_order_relaxed) != 0
        || vftr_sled_active() || (e = thr_find(fn, true)) == NULL)
        return;
    if (atomic_load_explicit(&e->state, memory_order_relaxed) != THR_OFF)
        return;
    atomic_store_explicit(&e->tries[0], 0, memory_order_relaxed);
    atomic_store_explicit(&e->tries[1], 0, memory_order_relaxed);
    (void)atomic_compare_exchange_strong(&e->state, &off, THR_MARKED);
}

VFTR_NI bool vftr_patch_redirected(uintptr_t fn)
{
    struct thr_fn *e;

    if (atomic_load_explicit(&n_thr_sites, memory_order_relaxed) == 0)
        return false;   /* nothing ever patched: no lookup */
    e = thr_find(fn, false);
    return e != NULL && atomic_load_explicit(&e->state, memory_order_acquire) == THR_REDIRECTED;
}

VFTR_NI bool vftr_patch_throttled_enter(uintptr_t fn, uintptr_t ret)
{
    struct thr_fn *e = thr_find(fn, false);
    int rc;

    if (e == NULL)
        return false;
    if (atomic_load_explicit(&e->state, memory_order_acquire) != THR_MARKED
        || atomic_load_explicit(&e->tries[0], memory_order_relaxed) >= VFTR_PATCH_TRIES)
        return atomic_load_explicit(&e->state, memory_order_acquire) == THR_REDIRECTED;
    if (!patch_trylock())
        return false;
    rc = 0;
    if (enabled && vftr_proc.recording && getpid() == owner
        && atomic_load_explicit(&e->state, memory_order_relaxed) == THR_MARKED) {
        if (vftr_proc.cfg.throttle_count) {
            rc = patch_enter_stub(fn, ret);
        } else {
            rc = patch_one(fn, ret, 0, true);   /* not counted: jumped over */
        }
        if (rc > 0) {
            atomic_fetch_add_explicit(&n_thr_sites, (uint64_t)rc, memory_order_relaxed);
            atomic_store_explicit(&e->state, THR_REDIRECTED, memory_order_release);
        } else {
            atomic_fetch_add_explicit(&e->tries[0], 1, memory_order_relaxed);
        }
        if (rc == -EACCES)
            refuse();
    }
    patch_unlock();
    return atomic_load_explicit(&e->state, memory_order_acquire) == THR_REDIRECTED;
}

VFTR_NI void vftr_patch_throttled_exit(uintptr_t fn, uintptr_t ret)
{
    struct thr_fn *e = thr_find(fn, false);
    int rc;

    if (e == NULL || atomic_load_explicit(&e->state, memory_order_acquire) != THR_REDIRECTED
        || atomic_load_explicit(&e->tries[1], memory_order_relaxed) >= VFTR_PATCH_TRIES
        || !patch_trylock())
        return;
    if (enabled && getpid() == owner
        && atomic_load_explicit(&e->state, memory_order_relaxed) == THR_REDIRECTED) {
        rc = patch_one(fn, ret, 1, true);
        if (rc == 0)
            rc = patch_tail(fn, true);   /* reached by a jump: from the function's own exits */
        if (rc > 0)
            atomic_fetch_add_explicit(&n_thr_sites, (uint64_t)rc, memory_order_relaxed);
        else
            atomic_fetch_add_explicit(&e->tries[1], 1, memory_order_relaxed);
    }
    patch_unlock();
}

VFTR_NI size_t vftr_patch_unthrottle_all(void)
{
    size_t done = 0;

    if (!patch_lock())
        return 0;
#if defined(__x86_64__)
    for (size_t i = 0; i < nsites;) {
        if (!sites[i].thr) {
            i++;
            continue;
        }
        done += unpatch(i);
    }
#endif
    for (size_t i = 0; i < THR_SLOTS; i++) {
        uintptr_t fn = atomic_load_explicit(&thr[i].fn, memory_order_relaxed);

        if (fn == 0 || atomic_load_explicit(&thr[i].state, memory_order_relaxed) == THR_OFF)
            continue;
#if defined(__x86_64__)
        {
            struct extent *x = extent_slot(fn);

            if (x != NULL && x->fn == fn)
                x->searched = false;   /* its tail jumps may be patched when throttled anew */
        }
#endif
        atomic_store_explicit(&thr[i].state, THR_OFF, memory_order_release);
    }
    patch_unlock();
    return done;
}

VFTR_NI void vftr_patch_throttle_stats(uint64_t *sites_out, uint32_t *functions)
{
    uint32_t n = 0;

    for (size_t i = 0; i < THR_SLOTS; i++)
        n += atomic_load_explicit(&thr[i].state, memory_order_relaxed) == THR_REDIRECTED;
    *sites_out = atomic_load_explicit(&n_thr_sites, memory_order_relaxed);
    *functions = n;
}
