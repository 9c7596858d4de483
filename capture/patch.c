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
 * mix); a site whose two bytes straddle an 8-byte boundary is left.  The
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
 * Assumed: each call of a hook in a program passes one fixed function (as
 * the compiler's calls do).  Capture's own calls of the hooks (the
 * calibration, before recording starts) are never patched.  A program
 * that changes the protection of its own code itself, or maps code with
 * other tools that patch it, is not followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "capture.h"

void __cyg_profile_func_enter(void *fn, void *site) VFTR_EXPORT VFTR_NI;
void __cyg_profile_func_exit(void *fn, void *site) VFTR_EXPORT VFTR_NI;

/* The skip slots' starting tries: 0 when patching is on, VFTR_PATCH_TRIES
 * (no patching: the hooks never come here) when off. */
_Atomic uint32_t vftr_patch_tries_init = VFTR_PATCH_TRIES;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled;          /* under lock: setup said so, no W^X refusal */
static pid_t owner;           /* the process that set up (a forked child does not patch) */
static _Atomic uint64_t n_patched, n_failed;
static _Atomic int refused;   /* mprotect refused: said once */

#if defined(__x86_64__)

/* A patched site: the two bytes at addr were orig, are now jmp. */
struct site {
    uintptr_t addr;
    uint8_t orig[2], jmp[2];
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

/* Grows an mmap'd array *p of *cap elements of size sz to hold one more;
 * false when no memory. */
static VFTR_NI bool grow(void **p, size_t *cap, size_t n, size_t sz)
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
    if (!grow((void **)&maps, &capmaps, nmaps, sizeof *maps))
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

/* The mapping holding [a, a + len), read again once if none does; NULL
 * when none. */
static VFTR_NI const struct map *map_of(uintptr_t a, size_t len)
{
    for (int pass = 0; pass < 2; pass++) {
        if (maps_stale || pass == 1)
            if (!maps_read())
                return NULL;
        for (size_t i = 0; i < nmaps; i++)
            if (maps[i].lo <= a && a + len <= maps[i].hi && a + len > a)
                return &maps[i];
    }
    return NULL;
}

/* Whether [a, a + len) is code: mapped readable and executable, not
 * writable (what the compiler's and the loader's code is). */
static VFTR_NI const struct map *code_at(uintptr_t a, size_t len)
{
    const struct map *m = map_of(a, len);

    return m && m->prot == (PROT_READ | PROT_EXEC) ? m : NULL;
}

static VFTR_NI int32_t rel32(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

    return (int32_t)v;
}

/* Whether the 8 bytes at slot (a GOT entry) hold hook. */
static VFTR_NI bool slot_holds(uintptr_t slot, uintptr_t hook)
{
    const struct map *m = map_of(slot, 8);
    uintptr_t v;

    if (m == NULL || !(m->prot & PROT_READ))
        return false;
    memcpy(&v, (const void *)slot, 8);
    return v == hook;
}

/* Whether target is hook, or a PLT stub jumping through a slot that holds
 * it: [endbr64] [bnd] jmp *disp32(%rip). */
static VFTR_NI bool reaches(uintptr_t target, uintptr_t hook)
{
    const uint8_t *p;
    size_t k = 0;

    if (target == hook)
        return true;
    if (code_at(target, 11) == NULL)
        return false;
    p = (const uint8_t *)target;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
        k = 4;
    if (p[k] == 0xf2)
        k++;
    if (p[k] != 0xff || p[k + 1] != 0x25)
        return false;
    return slot_holds(target + k + 6 + (uintptr_t)(intptr_t)rel32(p + k + 2), hook);
}

/* The 8-byte word holding the two bytes at a, old and new; false when
 * they straddle a word boundary. */
static VFTR_NI bool cas2(uintptr_t a, const uint8_t from[2], const uint8_t to[2])
{
    uint64_t *w = (uint64_t *)(a & ~(uintptr_t)7), old, new;
    unsigned sh = (unsigned)(a & 7) * 8;

    if ((a & 7) == 7)
        return false;
    old = __atomic_load_n(w, __ATOMIC_RELAXED);
    if ((uint8_t)(old >> sh) != from[0] || (uint8_t)(old >> (sh + 8)) != from[1])
        return false;
    new = (old & ~((uint64_t)0xffff << sh)) | ((uint64_t)to[0] | (uint64_t)to[1] << 8) << sh;
    return __atomic_compare_exchange_n(w, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* Writes to[2] over from[2] at a, in code mapped as m, page writable for
 * the moment.  0, -EACCES (the system refuses writable code), or another
 * -errno. */
static VFTR_NI int write2(uintptr_t a, const struct map *m, const uint8_t from[2],
                          const uint8_t to[2])
{
    uintptr_t page = a & ~(uintptr_t)(pagesize - 1);
    int prot = m->prot, rc = 0;

    if (mprotect((void *)page, pagesize, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return errno == EACCES || errno == EPERM ? -EACCES : -errno;
    if (!cas2(a, from, to))
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
    const uint8_t *b;
    uintptr_t t;

    if (ret < 6 || code_at(ret - 6, 6) == NULL)
        return 0;
    b = (const uint8_t *)(ret - 6);
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

/* Patches the call before ret (lock held): 1 patched, 0 not a site that
 * may be, -EACCES refused by the system. */
static VFTR_NI int patch_one(uintptr_t ret, int kind)
{
    uintptr_t hook, hook2, start = 0;
    const struct map *m;
    struct site s;
    size_t len;
    int rc;

    hook_addrs(kind, &hook, &hook2);
    len = call_at(ret, hook, hook2, &start);
    if (len == 0 || (start & 7) == 7 || (m = code_at(start, len)) == NULL)
        return 0;
    s.addr = start;
    memcpy(s.orig, (const void *)start, 2);
    s.jmp[0] = 0xeb;
    s.jmp[1] = (uint8_t)(len - 2);
    if (!grow((void **)&sites, &capsites, nsites, sizeof *sites))
        return 0;
    rc = write2(start, m, s.orig, s.jmp);
    if (rc == -EACCES)
        return rc;
    if (rc < 0)
        return 0;
    /* a site met again is code mapped anew where an old one was (dlclose
     * and dlopen): the old entry goes */
    for (size_t i = 0; i < nsites; i++)
        if (sites[i].addr == start) {
            sites[i] = s;
            return 1;
        }
    sites[nsites++] = s;
    return 1;
}

static VFTR_NI bool arch_ok(void)
{
    long ps = sysconf(_SC_PAGESIZE);

    pagesize = ps > 0 ? (size_t)ps : 4096;
    return true;
}

#else   /* not x86-64: nothing is patched */

static VFTR_NI int patch_one(uintptr_t ret, int kind)
{
    (void)ret;
    (void)kind;
    return 0;
}

static VFTR_NI bool arch_ok(void)
{
    return false;
}

#endif

VFTR_NI bool vftr_patch_setup(bool on)
{
    pthread_mutex_lock(&lock);
    enabled = on && arch_ok();
    owner = getpid();
    pthread_mutex_unlock(&lock);
    atomic_store_explicit(&vftr_patch_tries_init, enabled ? 0 : VFTR_PATCH_TRIES,
                          memory_order_relaxed);
    return enabled;
}

VFTR_NI void vftr_patch_site(struct vftr_skip_slot *slot, uintptr_t fn, uintptr_t ret, int kind)
{
    int rc;

    if (pthread_mutex_trylock(&lock) != 0)
        return;   /* another patch under way, or a signal handler interrupted one */
    /* still excluded (dlclose may have cleared the slot since) */
    if (atomic_load_explicit(&slot->fn, memory_order_relaxed) != fn) {
        pthread_mutex_unlock(&lock);
        return;
    }
    /* patching on, capture recording (not its calibration), this process
     * (a forked child's hooks return as before): else not again */
    if (!enabled || !vftr_proc.recording || getpid() != owner) {
        atomic_store_explicit(&slot->tries[kind], VFTR_PATCH_TRIES, memory_order_relaxed);
        pthread_mutex_unlock(&lock);
        return;
    }
    rc = patch_one(ret, kind);
    if (rc > 0) {
        atomic_fetch_add_explicit(&n_patched, 1, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&n_failed, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&slot->tries[kind], 1, memory_order_relaxed);
    }
    if (rc == -EACCES) {
        enabled = false;
        atomic_store_explicit(&vftr_patch_tries_init, VFTR_PATCH_TRIES, memory_order_relaxed);
        if (!atomic_exchange(&refused, 1) && vftr_proc.is_rank0)
            vftr_msg_raw("filter.patch_excluded: the system does not let code be made writable "
                         "(a W^X policy?); excluded functions keep calling the hooks, which "
                         "return at once");
    }
    pthread_mutex_unlock(&lock);
}

VFTR_NI void vftr_patch_forget(uintptr_t lo, uintptr_t hi)
{
    pthread_mutex_lock(&lock);
#if defined(__x86_64__)
    for (size_t i = 0; i < nsites;)
        if (sites[i].addr >= lo && sites[i].addr < hi)
            sites[i] = sites[--nsites];   /* the code is gone: nothing to give back */
        else
            i++;
    maps_stale = true;
#else
    (void)lo;
    (void)hi;
#endif
    pthread_mutex_unlock(&lock);
}

VFTR_NI size_t vftr_patch_restore(uintptr_t lo, uintptr_t hi)
{
    size_t done = 0;

    pthread_mutex_lock(&lock);
#if defined(__x86_64__)
    for (size_t i = 0; i < nsites;) {
        const struct map *m;

        if (sites[i].addr < lo || sites[i].addr >= hi) {
            i++;
            continue;
        }
        /* the code must still be what was patched: the CAS checks it */
        m = code_at(sites[i].addr, 2);
        if (m != NULL && write2(sites[i].addr, m, sites[i].jmp, sites[i].orig) == 0)
            done++;
        sites[i] = sites[--nsites];
    }
#else
    (void)lo;
    (void)hi;
#endif
    pthread_mutex_unlock(&lock);
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
    pthread_mutex_lock(&lock);
    *on = enabled;
    pthread_mutex_unlock(&lock);
}
