/*
 * sled.c — tracing a program built with -fpatchable-function-entry
 * (instrument.patchable; capture.h: vftr_sled_*), uftrace's dynamic
 * tracing.
 *
 * gcc (8 and later) and clang given -fpatchable-function-entry=N put N
 * bytes of nops at the entry of every function (gcc one-byte nops, clang
 * one 5-byte nop; after its endbr64 under -fcf-protection) and list their
 * addresses in the section
 * __patchable_function_entries; the code is otherwise what an
 * uninstrumented build gives.  At start (capture/preload/start.c, before
 * main) every loaded object is searched for that section, and each sled of
 * a function the filters keep becomes "call SLOT", SLOT being the
 * function's own 64 bytes in a table mapped within +-2 GB of the object:
 *
 *   +0   0f 1f 44 00 00        5-byte nop (traced) | e9 rel32 to +32 (counted)
 *   +5   49 bb imm64           movabs $function, %r11
 *   +15  ff 25 03 00 00 00     jmp *(+24)
 *   +24  imm64                 vftr_sled_entry_tramp
 *   +32  64 4c 8b 1c 25 d32    mov %fs:vftr_hook_tls, %r11
 *   +41  49 ff 83 d32          incq sled_count[k](%r11)
 *   +48  c3                    ret
 *
 * The entry trampoline (assembly, below) saves the argument registers (rdi,
 * rsi, rdx, rcx, r8, r9, rax for varargs, r10 for a static chain, xmm0-7)
 * and calls vftr_sled_enter_handler with the function and the address of
 * its return address, which records the entry through the compiler hook
 * itself (__cyg_profile_func_enter: one code path for both builds, the
 * filters, throttling, depth and pauses included) and puts the exit
 * trampoline in place of the return address, keeping the original on a
 * per-thread shadow stack with the slot's address.  The exit trampoline
 * saves the return registers (rax, rdx, xmm0/1, and st0/st1 of a long
 * double result where the x87 stack holds them), records the exit through
 * __cyg_profile_func_exit and returns to the original address.
 *
 * Excluded functions keep their nops: cost nothing.  A function whose call
 * path throttling stops tracing (filter.c: mark) has its sled's call aimed
 * at +32 (its rel32 swapped where it lies within one aligned word, else the
 * slot's first instruction becomes the jump to +32), which counts the call
 * in the calling thread's state and returns: a call, a load, an increment
 * and a return, no hook.  vftr_sled_fold adds the counts to the thread's
 * throttled call path of the function (the profile); vftr-ctl unthrottle
 * aims the sleds back.  With throttle.count = false the sled's call
 * becomes a 5-byte nop instead.
 *
 * Why the writes are safe.  gcc's sleds are one-byte nops, so a thread may
 * be between them: a sled becomes a call only while no thread can be
 * there, at start (before main: constructors that start threads are not
 * followed) and for an object dlopen just loaded (before dlopen returns;
 * capture/preload/dl.c).  After that only 5-byte instructions are
 * exchanged for 5-byte instructions at the same boundaries (a call's
 * target, a call and a 5-byte nop, the slot's nop and jump), each with one
 * compare-and-swap of the aligned 8-byte word holding the bytes that
 * change (patch.c's argument).  The pages are made writable for the moment
 * (read, write and execute: other threads run there).  A system that refuses writable code (W^X) is said
 * once: at start nothing is patched (the program runs with its functions
 * unmeasured), later the throttled function keeps calling the hooks.
 *
 * Exceptions.  An unwinder cannot step over a return address that is the
 * exit trampoline by itself.  Walks that begin at the unwinder's entry
 * points (capture/preload/unwind.c: C++ exceptions, pthread_exit) get the
 * real return addresses back first and the trampoline again where they
 * land (vftr_sled_unwind, vftr_sled_landed); other walks (glibc's thread
 * cancellation, backtrace()) read the real one through the trampoline's
 * unwind information (fde_register).  An object that needs C++ keeps its
 * nops only when neither can work: a C++ runtime linked in statically
 * somewhere in the process, or the entry points not capture's.
 *
 * Limits (share/doc/capture.md): x86-64; N >= 5 with the nops at the
 * entry (the ",M" form with nops before it is not used); the shadow stack
 * follows longjmp and exceptions (frames left below a later entry's stack
 * pointer, skipped by a return, or left for a handler are closed there)
 * but not stack switching (swapcontext, coroutines); ymm/zmm upper halves
 * of arguments and results are not saved.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>   /* program_invocation_name */
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "capture.h"

void __cyg_profile_func_enter(void *fn, void *site) VFTR_EXPORT VFTR_NI;
void __cyg_profile_func_exit(void *fn, void *site) VFTR_EXPORT VFTR_NI;

static _Atomic int active;            /* sleds patched: vftr_sled_active */
static _Atomic int refused_at_start;  /* W^X: nothing patched */

#if defined(__x86_64__)

static _Atomic int said_refused, said_cxx;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define SLOT 64u
#define SHADOW_MAX 8192u
/* Two stack addresses this close (and the later entry's higher) are taken
 * to be on the same stack: a signal handler on an alternate stack is not
 * mistaken for a longjmp. */
#define SAME_STACK ((uintptr_t)256 << 20)

void vftr_sled_entry_tramp(void) VFTR_HIDDEN;
void vftr_sled_exit_tramp(void) VFTR_HIDDEN;
void vftr_sled_enter_handler(uintptr_t fn, uintptr_t *slot) VFTR_HIDDEN VFTR_NI;
uintptr_t vftr_sled_exit_handler(uintptr_t sp) VFTR_HIDDEN VFTR_NI;

/* The trampolines.  Entry: reached by the sled's call and the slot's jump,
 * function in r11; [rsp] returns into the function, [rsp + 8] is its
 * return address.  Exit: reached by the function's ret, rsp = where its
 * return address was + 8.  Neither may take rsp for 16-aligned: gcc calls
 * a static function that needs no alignment without it (a leaf), so each
 * aligns its own frame (rbp keeps where it was). */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl vftr_sled_entry_tramp\n"
        ".hidden vftr_sled_entry_tramp\n"
        ".type vftr_sled_entry_tramp, @function\n"
        "vftr_sled_entry_tramp:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  and $-16, %rsp\n"
        "  push %rdi\n  push %rsi\n  push %rdx\n  push %rcx\n"
        "  push %r8\n  push %r9\n  push %rax\n  push %r10\n"
        "  sub $128, %rsp\n"
        "  movdqa %xmm0, 0(%rsp)\n  movdqa %xmm1, 16(%rsp)\n"
        "  movdqa %xmm2, 32(%rsp)\n  movdqa %xmm3, 48(%rsp)\n"
        "  movdqa %xmm4, 64(%rsp)\n  movdqa %xmm5, 80(%rsp)\n"
        "  movdqa %xmm6, 96(%rsp)\n  movdqa %xmm7, 112(%rsp)\n"
        "  mov %r11, %rdi\n"
        "  lea 16(%rbp), %rsi\n"        /* the function's return address */
        "  call vftr_sled_enter_handler\n"
        "  movdqa 0(%rsp), %xmm0\n  movdqa 16(%rsp), %xmm1\n"
        "  movdqa 32(%rsp), %xmm2\n  movdqa 48(%rsp), %xmm3\n"
        "  movdqa 64(%rsp), %xmm4\n  movdqa 80(%rsp), %xmm5\n"
        "  movdqa 96(%rsp), %xmm6\n  movdqa 112(%rsp), %xmm7\n"
        "  add $128, %rsp\n"
        "  pop %r10\n  pop %rax\n  pop %r9\n  pop %r8\n"
        "  pop %rcx\n  pop %rdx\n  pop %rsi\n  pop %rdi\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  ret\n"
        ".size vftr_sled_entry_tramp, .-vftr_sled_entry_tramp\n"
        ".p2align 4\n"
        /* the byte before: an unwinder looks up the code of a return
         * address less one (see unwind_fde) */
        "  int3\n"
        ".globl vftr_sled_exit_tramp\n"
        ".hidden vftr_sled_exit_tramp\n"
        ".type vftr_sled_exit_tramp, @function\n"
        "vftr_sled_exit_tramp:\n"
        "  sub $8, %rsp\n"              /* the original return address goes here */
        "  push %rax\n  push %rdx\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  and $-16, %rsp\n"
        "  sub $64, %rsp\n"
        "  movdqa %xmm0, 0(%rsp)\n  movdqa %xmm1, 16(%rsp)\n"
        /* st0 and st1 (a long double result, a complex one) where the x87
         * stack holds them, popped so that the C code finds the stack
         * empty, as the ABI has it at a call.  The stack is empty at a
         * return of anything else, so its top (TOP, bits 11-13 of the
         * status word) says how many there are: 0 none, 7 one, 6 two.
         * fxsave, or fxam on an empty register (a microcode assist), would
         * cost every return some hundred cycles. */
        "  xor %ecx, %ecx\n"
        "  fnstsw %ax\n  and $0x3800, %ax\n  jz 1f\n"
        "  fstpt 32(%rsp)\n  inc %ecx\n"
        "  cmp $0x3800, %ax\n  je 1f\n"
        "  fstpt 48(%rsp)\n  inc %ecx\n"
        "1:\n"
        "  mov %ecx, 60(%rsp)\n"
        "  lea 32(%rbp), %rdi\n"
        "  call vftr_sled_exit_handler\n"
        "  mov %rax, 24(%rbp)\n"
        "  mov 60(%rsp), %ecx\n"
        "  cmp $2, %ecx\n  jb 2f\n  fldt 48(%rsp)\n"
        "2:\n"
        "  cmp $1, %ecx\n  jb 3f\n  fldt 32(%rsp)\n"
        "3:\n"
        "  movdqa 0(%rsp), %xmm0\n  movdqa 16(%rsp), %xmm1\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  pop %rdx\n  pop %rax\n"
        "  ret\n"
        ".size vftr_sled_exit_tramp, .-vftr_sled_exit_tramp\n");

/* ------------------------------------------------------- the shadow stack */

struct frame {
    uintptr_t fn, ret, slot;   /* function, original return address, where it was */
};

struct shadow {
    uint32_t depth;
    struct frame f[SHADOW_MAX];
};

static __thread struct shadow *shadow __attribute__((tls_model("initial-exec")));
static __thread uint32_t shadow_ix;   /* its index in shadows + 1, 0: none */
static pthread_key_t shadow_key;      /* made at start, before any thread */
static bool have_shadow_key;

/* The shadow stacks of the living threads, for the unwind information of
 * the exit trampoline (unwind_fde), which searches them: entries [0,
 * nshadows) are a stack or NULL (a thread that ended, or a free entry).
 * A thread that finds no free entry is not in it. */
#define SHADOWS_MAX 4096u
static struct shadow *_Atomic shadows[SHADOWS_MAX];
static _Atomic uint32_t nshadows;

/* The calling thread's shadow stack, made on its first traced call (mmap:
 * no allocator of the program's); never freed (a thread's frames may be
 * open until its very end, and the unwind information reads it without a
 * lock).  NULL when out of memory. */
static VFTR_NI struct shadow *shadow_get(void)
{
    void *p;

    if (VFTR_LIKELY(shadow != NULL))
        return shadow;
    p = mmap(NULL, sizeof(struct shadow), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    shadow = p;
    if (have_shadow_key)
        (void)pthread_setspecific(shadow_key, p);   /* shadow_end at the thread's end */
    for (uint32_t k = 0; k < SHADOWS_MAX; k++) {
        struct shadow *none = NULL;
        uint32_t n = atomic_load(&nshadows);

        if (!atomic_compare_exchange_strong(&shadows[k], &none, shadow))
            continue;
        shadow_ix = k + 1;
        while (n < k + 1 && !atomic_compare_exchange_weak(&nshadows, &n, k + 1))
            ;
        break;
    }
    return shadow;
}

/* The thread ends (its key's destructor): its stack leaves the table
 * before another thread can be given the same stack addresses.  The
 * stack stays the thread's, for traced code run by the destructors that
 * come after. */
static VFTR_NI void shadow_end(void *p)
{
    (void)p;
    if (shadow_ix != 0) {
        atomic_store(&shadows[shadow_ix - 1], NULL);
        shadow_ix = 0;
    }
}

/* A forked child has the calling thread only: the others' stacks leave
 * the table (the child may give their stack addresses to new threads). */
static VFTR_NI void shadow_forked(void)
{
    for (uint32_t k = 0; k < SHADOWS_MAX; k++)
        if (k + 1 != shadow_ix)
            atomic_store(&shadows[k], NULL);
}

/* Ends the frames of s whose return slots lie below a on the same stack
 * (at a too when at_too), innermost first: frames a longjmp or an
 * exception left, whose returns never come.  Their exits are booked now,
 * through the exit hook, as a return would. */
static VFTR_NI void close_gone(struct shadow *s, uintptr_t a, bool at_too)
{
    uint32_t d;

    while ((d = s->depth) > 0 && s->f[d - 1].slot <= a && (at_too || s->f[d - 1].slot < a)
           && a - s->f[d - 1].slot < SAME_STACK) {
        uintptr_t gone = s->f[d - 1].fn;

        s->depth = d - 1;
        atomic_signal_fence(memory_order_seq_cst);
        __cyg_profile_func_exit((void *)gone, NULL);
    }
}

/* Frames are pushed and popped so that a signal handler's traced calls,
 * nested anywhere in between, find a consistent stack: a frame is claimed
 * (depth) with a slot no entry takes for stale before its fields are
 * written. */
VFTR_NI void vftr_sled_enter_handler(uintptr_t fn, uintptr_t *slot)
{
    struct shadow *s = shadow_get();
    uintptr_t a = (uintptr_t)slot;
    uint32_t d;

    if (VFTR_UNLIKELY(s == NULL))
        return;
    /* a longjmp or an exception left the frames below this one's slot
     * (the stack grows down): they end here, innermost first.  A frame at
     * the very same slot is alive when this call returns into the exit
     * trampoline: a tail call from it (its exit comes when this call
     * returns, through the trampoline it had put there); returning
     * anywhere else, the call was made from further up, after that frame
     * was left (a destructor a landing pad calls, a call after a
     * longjmp). */
    close_gone(s, a, *slot != (uintptr_t)&vftr_sled_exit_tramp);
    d = s->depth;
    if (VFTR_UNLIKELY(d >= SHADOW_MAX))
        return;   /* too deep: this call is not traced (neither enter nor exit) */
    __cyg_profile_func_enter((void *)fn, NULL);
    d = s->depth;
    s->f[d].slot = UINTPTR_MAX;
    atomic_signal_fence(memory_order_seq_cst);
    s->depth = d + 1;
    atomic_signal_fence(memory_order_seq_cst);
    s->f[d].fn = fn;
    s->f[d].ret = *slot;
    atomic_signal_fence(memory_order_seq_cst);
    s->f[d].slot = a;
    *slot = (uintptr_t)&vftr_sled_exit_tramp;
}

VFTR_NI uintptr_t vftr_sled_exit_handler(uintptr_t sp)
{
    struct shadow *s = shadow;
    uintptr_t a = sp - 8, ret, fn;
    uint32_t d = s ? s->depth : 0, i = d;

    while (i > 0 && s->f[i - 1].slot != a)
        i--;
    if (VFTR_UNLIKELY(i == 0)) {
        /* only stack switching gets here: there is no address to return to */
        vftr_msg_raw("instrument.patchable: a function returned whose return address capture "
                     "did not keep (stack switching?); aborting");
        abort();
    }
    ret = s->f[i - 1].ret;
    fn = s->f[i - 1].fn;
    /* frames above it were left by a longjmp: they end now, innermost first */
    for (uint32_t j = d; j > i; j--) {
        uintptr_t gone = s->f[j - 1].fn;

        s->depth = j - 1;
        atomic_signal_fence(memory_order_seq_cst);
        __cyg_profile_func_exit((void *)gone, NULL);
    }
    s->depth = i - 1;
    atomic_signal_fence(memory_order_seq_cst);
    __cyg_profile_func_exit((void *)fn, NULL);
    return ret;
}

/* ------------------------------------------------------------ exceptions
 *
 * An unwinder (a C++ exception, a forced unwind) cannot step over a return
 * address that is the exit trampoline: it has no unwind information and
 * would end the walk there (std::terminate).  capture/preload/unwind.c
 * interposes the unwinder's entry points and the landing in a handler;
 * here is what they do to the calling thread's frames.  `a` is where the
 * interposed function's own return address lies: every frame whose slot
 * is at or below it is gone (the code that called the interposed function
 * runs above them), every other frame of the stack is still live (no
 * stack switching: a limit of the mode). */

VFTR_NI void vftr_sled_unwind(uintptr_t a)
{
    struct shadow *s = shadow;
    const uintptr_t tramp = (uintptr_t)&vftr_sled_exit_tramp;

    if (s == NULL)
        return;
    /* frames a landing pad has left behind (its cleanup ran: _Unwind_Resume)
     * or a longjmp did: they end now */
    close_gone(s, a, true);
    /* the live ones get their return addresses back, innermost first (a
     * tail call's pair shares a slot: the callee's kept address is the
     * trampoline, its caller's the real one, which is the one left) */
    for (uint32_t i = s->depth; i > 0; i--) {
        const struct frame *f = &s->f[i - 1];

        if (f->slot != UINTPTR_MAX && *(uintptr_t *)f->slot == tramp)
            *(uintptr_t *)f->slot = f->ret;
    }
}

VFTR_NI void vftr_sled_landed(uintptr_t a)
{
    struct shadow *s = shadow;
    const uintptr_t tramp = (uintptr_t)&vftr_sled_exit_tramp;

    if (s == NULL)
        return;
    /* the frames between the throw and the handler: their time ends here */
    close_gone(s, a, true);
    /* the frames still live return through the trampoline again, so that
     * their exits are booked when they come; a slot already holding it (a
     * tail call's pair, a frame not restored) is left alone */
    for (uint32_t i = s->depth; i > 0; i--) {
        const struct frame *f = &s->f[i - 1];

        if (f->slot != UINTPTR_MAX && f->ret != tramp && *(uintptr_t *)f->slot == f->ret)
            *(uintptr_t *)f->slot = tramp;
    }
}

/* ------------------------------------------------- the trampoline's unwind information
 *
 * Some walks of the stack do not come through capture's interposed entry
 * points: glibc's thread cancellation calls libgcc_s's
 * _Unwind_ForcedUnwind through a handle of its own, backtrace() its
 * _Unwind_Backtrace.  For them the exit trampoline gets unwind information
 * of its own (registered with libgcc_s's __register_frame): a frame whose
 * return address is the trampoline takes no stack (the canonical frame
 * address, CFA, is the stack pointer: where the return address was, plus
 * 8), and its own return address is the one the shadow stacks keep for
 * that slot.  A DWARF expression finds it: every stack of shadows, top
 * down, for the frame whose slot is CFA - 8 and whose kept address is not
 * the trampoline itself (a tail call's callee shares its caller's slot);
 * 0 when there is none, which ends the walk as before.  It reads memory
 * that is never unmapped, with no lock: a frame being written does not
 * match yet (its slot is UINTPTR_MAX until its fields are set).  Once the
 * walk reaches a landing pad the pad's _Unwind_Resume or __cxa_begin_catch
 * comes through capture (unwind.c), as for any exception. */

struct dw {
    uint8_t b[192];
    size_t n;
};

static VFTR_NI void dw_op(struct dw *e, uint8_t x)
{
    e->b[e->n++] = x;
}

static VFTR_NI void dw_addr(struct dw *e, uintptr_t a)
{
    dw_op(e, 0x03);   /* DW_OP_addr */
    memcpy(e->b + e->n, &a, sizeof a);
    e->n += sizeof a;
}

/* A branch (DW_OP_bra 0x28, DW_OP_skip 0x2f) to a known place (to <= the
 * current end), or to one set later with dw_land (returns where). */
static VFTR_NI size_t dw_jump(struct dw *e, uint8_t op, size_t to)
{
    int16_t off;

    dw_op(e, op);
    off = (int16_t)((intptr_t)to - (intptr_t)(e->n + 2));
    memcpy(e->b + e->n, &off, 2);
    e->n += 2;
    return e->n;
}

static VFTR_NI void dw_land(struct dw *e, size_t after)
{
    int16_t off = (int16_t)(e->n - after);

    memcpy(e->b + after - 2, &off, 2);
}

/* The expression: stack on entry the CFA; its value the return address. */
static VFTR_NI void dw_ret_expr(struct dw *e)
{
    size_t tloop, tbody, sok, floop, fbody, end1, end2, skip1, skip2;

    _Static_assert(sizeof(struct frame) == 24 && offsetof(struct frame, ret) == 8
                   && offsetof(struct frame, slot) == 16 && offsetof(struct shadow, f) == 8
                   && sizeof(nshadows) == 4, "the expression's offsets");
    /* the CFA stays at the bottom: libgcc's DW_OP_pick does not reach the
     * bottom element */
    dw_op(e, 0x12); dw_op(e, 0x38); dw_op(e, 0x1c);          /* dup lit8 minus: a */
    dw_addr(e, (uintptr_t)&nshadows);
    dw_op(e, 0x94); dw_op(e, 4);                             /* deref_size 4: a k */
    tloop = e->n;
    dw_op(e, 0x12);                                          /* dup */
    tbody = dw_jump(e, 0x28, 0);                             /* bra TBODY */
    dw_op(e, 0x13); dw_op(e, 0x13); dw_op(e, 0x30);          /* drop drop lit0 */
    end1 = dw_jump(e, 0x2f, 0);                              /* skip END */
    dw_land(e, tbody);
    dw_op(e, 0x31); dw_op(e, 0x1c);                          /* lit1 minus: a k' */
    dw_op(e, 0x12); dw_op(e, 0x38); dw_op(e, 0x1e);          /* dup lit8 mul */
    dw_addr(e, (uintptr_t)&shadows[0]);
    dw_op(e, 0x22); dw_op(e, 0x06);                          /* plus deref: a k' s */
    dw_op(e, 0x12);                                          /* dup */
    sok = dw_jump(e, 0x28, 0);                               /* bra SOK */
    dw_op(e, 0x13);                                          /* drop: a k' */
    (void)dw_jump(e, 0x2f, tloop);                           /* skip TLOOP */
    dw_land(e, sok);
    dw_op(e, 0x12); dw_op(e, 0x94); dw_op(e, 4);             /* dup deref_size 4: a k' s d */
    floop = e->n;
    dw_op(e, 0x12);                                          /* dup */
    fbody = dw_jump(e, 0x28, 0);                             /* bra FBODY */
    dw_op(e, 0x13); dw_op(e, 0x13);                          /* drop drop: a k' */
    (void)dw_jump(e, 0x2f, tloop);
    dw_land(e, fbody);
    dw_op(e, 0x31); dw_op(e, 0x1c);                          /* lit1 minus: a k' s d' */
    dw_op(e, 0x14); dw_op(e, 0x14);                          /* over over: ... s d' */
    dw_op(e, 0x48); dw_op(e, 0x1e); dw_op(e, 0x22);          /* lit24 mul plus */
    dw_op(e, 0x23); dw_op(e, 8);                             /* plus_uconst 8: a k' s d' F */
    dw_op(e, 0x12); dw_op(e, 0x23); dw_op(e, 16); dw_op(e, 0x06);   /* dup +16 deref: ... F slot */
    dw_op(e, 0x15); dw_op(e, 5);                             /* pick 5: ... F slot a */
    dw_op(e, 0x2e);                                          /* ne */
    skip1 = dw_jump(e, 0x28, 0);                             /* bra NEXT */
    dw_op(e, 0x23); dw_op(e, 8); dw_op(e, 0x06);             /* +8 deref: a k' s d' ret */
    dw_op(e, 0x12);
    dw_addr(e, (uintptr_t)&vftr_sled_exit_tramp);
    dw_op(e, 0x29);                                          /* eq */
    skip2 = dw_jump(e, 0x28, 0);                             /* bra NEXT */
    end2 = dw_jump(e, 0x2f, 0);                              /* skip END: ret on top */
    dw_land(e, skip1);
    dw_land(e, skip2);
    dw_op(e, 0x13);                                          /* NEXT: drop: a k' s d' */
    (void)dw_jump(e, 0x2f, floop);
    dw_land(e, end1);   /* END */
    dw_land(e, end2);
}

/* The CIE and FDE (.eh_frame's format, a zero word after them) that
 * __register_frame keeps: built once, never freed. */
static uint8_t unwind_fde[320] __attribute__((aligned(8)));
static _Atomic int fde_done;

static VFTR_NI size_t put_uleb(uint8_t *p, size_t v)
{
    size_t n = 0;

    do {
        p[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            p[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

/* Registers the trampoline's unwind information with libgcc_s (loading it
 * if the process has not yet: glibc would at the first cancellation), once. */
static VFTR_NI void fde_register(void)
{
    struct dw e = { .n = 0 };
    uint8_t *p = unwind_fde;
    size_t n, cie_len, fde_at;
    uint32_t len;
    uintptr_t begin = (uintptr_t)&vftr_sled_exit_tramp - 1, range = 2;
    void *h;
    void (*reg)(const void *);

    if (atomic_exchange(&fde_done, 1))
        return;
    dw_ret_expr(&e);
    /* CIE: length, id 0, version 1, "zR", code alignment 1, data alignment
     * -8, return address column 16, augmentation: FDE addresses absolute;
     * DW_CFA_def_cfa rsp+0; DW_CFA_val_expression r16 */
    n = 4;
    memset(p + n, 0, 4);
    n += 4;
    p[n++] = 1;
    memcpy(p + n, "zR", 3);
    n += 3;
    p[n++] = 1;
    p[n++] = 0x78;
    p[n++] = 16;
    p[n++] = 1;
    p[n++] = 0x00;
    p[n++] = 0x0c;
    p[n++] = 7;
    p[n++] = 0;
    p[n++] = 0x16;
    p[n++] = 16;
    n += put_uleb(p + n, e.n);
    memcpy(p + n, e.b, e.n);
    n += e.n;
    while (n % 8)
        p[n++] = 0;   /* DW_CFA_nop */
    cie_len = n;
    len = (uint32_t)(cie_len - 4);
    memcpy(p, &len, 4);
    /* FDE: length, CIE pointer, start, size, no augmentation data */
    fde_at = n;
    n += 4;
    len = (uint32_t)(n - 0);
    memcpy(p + n, &len, 4);
    n += 4;
    memcpy(p + n, &begin, 8);
    n += 8;
    memcpy(p + n, &range, 8);
    n += 8;
    p[n++] = 0;
    while (n % 8)
        p[n++] = 0;
    len = (uint32_t)(n - fde_at - 4);
    memcpy(p + fde_at, &len, 4);
    memset(p + n, 0, 4);
    h = dlopen("libgcc_s.so.1", RTLD_LAZY);
    reg = h ? (void (*)(const void *))dlsym(h, "__register_frame") : NULL;
    if (reg != NULL)
        reg(unwind_fde);
}

/* ------------------------------------------------------------ the tables */

struct sled {
    uintptr_t fn;        /* the function (its symbol's address) */
    uintptr_t at;        /* its sled */
    uint8_t *slot;       /* its 64 bytes */
    int32_t stub;        /* its counter index, -1: none yet */
    bool counting;       /* the slot sends calls to the counter */
    bool silenced;       /* the sled is a 5-byte nop (throttle.count = false) */
};

struct obj {
    uintptr_t lo, hi;    /* extent of the PT_LOAD segments */
};

static struct sled *sleds;   /* under lock; mmap'd */
static size_t nsleds, capsleds;
static struct obj *objs;
static size_t nobjs, capobjs;
static uintptr_t stub_fn[VFTR_SLED_STUBS];
static _Atomic uint32_t nstubs;
static uint64_t n_patched, n_excluded;
static _Atomic bool any_patched;   /* n_patched > 0, read without the lock */
static int32_t tls_off;      /* vftr_hook_tls from the thread pointer */
static bool tls_known;       /* tls_off is set (under lock, or before any thread) */
/* The hooks route's stubs (vftr_stub_near): stub_at[k] counts stub_fn[k]'s
 * calls from its call sites, 0: none yet; made in pages near the code */
static uintptr_t stub_at[VFTR_SLED_STUBS];
static uintptr_t stub_fit[VFTR_SLED_STUBS];   /* vftr_stub_at's, for a call whose operand straddles */
struct stub_page {
    uintptr_t base;
    size_t used;
};
static struct stub_page stub_pages[64];
static size_t nstub_pages;
static size_t pagesize = 4096;

/* Code and the slot table are read and written in assembly: no memory a
 * sanitizer keeps shadow for (patch.c). */
static inline VFTR_NI uint8_t peek8(uintptr_t a)
{
    uint8_t v;

    __asm__ volatile("movb %1, %0" : "=r"(v) : "m"(*(const uint8_t *)a));
    return v;
}

static inline VFTR_NI void poke8(uintptr_t a, uint8_t v)
{
    __asm__ volatile("movb %1, %0" : "=m"(*(uint8_t *)a) : "r"(v) : "memory");
}

static VFTR_NI void poke(uintptr_t a, const void *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        poke8(a + i, ((const uint8_t *)src)[i]);
}

/* Replaces the 8-byte aligned word at a, which must be old, with new. */
static VFTR_NI bool cas8(uintptr_t a, uint64_t old, uint64_t new)
{
    uint64_t seen = old;

    __asm__ volatile("lock cmpxchgq %2, %1"
                     : "+a"(seen), "+m"(*(uint64_t *)a) : "r"(new) : "memory", "cc");
    return seen == old;
}

static VFTR_NI uint64_t load8(uintptr_t a)
{
    uint64_t v;

    __asm__ volatile("movq %1, %0" : "=r"(v) : "m"(*(const uint64_t *)a));
    return v;
}

/* ------------------------------------------------------ counting stubs
 *
 * One implementation for both routes to a throttled function's count: the
 * sled's slot (switch_slot) and a hook call site of a -finstrument-functions
 * build (vftr_stub_near, patched by patch.c).  The stub is
 *
 *   mov %fs:vftr_hook_tls, %r11; incq sled_count[k](%r11); ret
 *
 * It clobbers r11 and the flags only: a call site of a function (the
 * sled's call, the compiler's call of __cyg_profile_func_enter) takes
 * every caller-saved register (rax, rcx, rdx, rsi, rdi, r8-r11, the
 * vector registers) and the flags for clobbered by the call, as the ABI
 * has it for any call; gcc and clang put nothing in them across it.  Its
 * stack use is the call's own return address, as the hook's call would
 * have.  A thread with no state yet counts into the unattached dummy
 * (vftr_hook_tls is never NULL): such calls are not counted. */
#define STUB_CODE 17u
#define STUB_SIZE 32u   /* the code, then at +24 the stub's own address (an ff 15 site's slot) */

/* The counting code of counter k. */
static VFTR_NI void stub_code(uint8_t code[STUB_CODE], int32_t k)
{
    int32_t hook = tls_off, ctr = (int32_t)(offsetof(struct vftr_thread, sled_count)
                                             + 8 * (size_t)k);

    memcpy(code, "\x64\x4c\x8b\x1c\x25", 5);
    memcpy(code + 5, &hook, 4);
    memcpy(code + 9, "\x49\xff\x83", 3);
    memcpy(code + 12, &ctr, 4);
    code[16] = 0xc3;
}

/* The counter of fn, shared by both routes (lock held): its index, made on
 * first use; -1 when all VFTR_SLED_STUBS are taken. */
static VFTR_NI int32_t stub_index(uintptr_t fn)
{
    uint32_t k = atomic_load(&nstubs);

    for (uint32_t i = 0; i < k; i++)
        if (stub_fn[i] == fn)
            return (int32_t)i;
    if (k >= VFTR_SLED_STUBS)
        return -1;
    stub_fn[k] = fn;
    atomic_store(&nstubs, k + 1);
    return (int32_t)k;
}

static VFTR_NI uint8_t *near_map(uintptr_t lo, uintptr_t hi, size_t n);

/* Whether the dynamic section sh (SHT_DYNAMIC) of the file fd, whose
 * section headers are shs (n of them), names the C++ runtime (libstdc++,
 * libc++) among the libraries it needs. */
static VFTR_NI bool needs_cxx(int fd, const Elf64_Shdr *shs, size_t n, const Elf64_Shdr *sh)
{
    Elf64_Dyn *dyn = NULL;
    char *str = NULL;
    bool cxx = false;
    size_t nd = sh->sh_size / sizeof *dyn;

    if (sh->sh_link >= n || sh->sh_size > (16u << 20) || shs[sh->sh_link].sh_size > (64u << 20))
        return false;
    dyn = malloc(sh->sh_size);
    str = malloc(shs[sh->sh_link].sh_size + 1);
    if (dyn != NULL && str != NULL
        && pread(fd, dyn, sh->sh_size, (off_t)sh->sh_offset) == (ssize_t)sh->sh_size
        && pread(fd, str, shs[sh->sh_link].sh_size, (off_t)shs[sh->sh_link].sh_offset)
           == (ssize_t)shs[sh->sh_link].sh_size) {
        str[shs[sh->sh_link].sh_size] = '\0';
        for (size_t i = 0; i < nd && dyn[i].d_tag != DT_NULL && !cxx; i++)
            if (dyn[i].d_tag == DT_NEEDED && dyn[i].d_un.d_val < shs[sh->sh_link].sh_size)
                cxx = strncmp(str + dyn[i].d_un.d_val, "libstdc++", 9) == 0
                      || strncmp(str + dyn[i].d_un.d_val, "libc++", 6) == 0;
    }
    free(dyn);
    free(str);
    return cxx;
}

/* The entry points of the unwinder and the C++ runtime that capture
 * interposes (capture/preload/unwind.c). */
static const char *const unwind_entries[] = {
    "_Unwind_RaiseException", "_Unwind_Resume", "_Unwind_Resume_or_Rethrow", "__cxa_begin_catch",
};

/* An object that defines one of these is a C++ runtime: the shared one
 * (libstdc++, libc++abi), whose calls of the unwinder and landings in
 * handlers come through capture, or a copy of its own (a static libstdc++),
 * whose do not.  (The unwinder's entry points alone say nothing: libgcc_s
 * and capture's libunwind define them, and whoever calls them comes to
 * capture first; nor does __cxa_throw: ASan's runtime defines it to pass
 * it on.) */
static const char *const runtime_entries[] = { "__cxa_begin_catch", "__gxx_personality_v0" };

/* Whether the symbol table sh (SHT_SYMTAB or SHT_DYNSYM) of the file fd,
 * whose section headers are shs (n of them), defines one of
 * runtime_entries. */
static VFTR_NI bool own_runtime(int fd, const Elf64_Shdr *shs, size_t n, const Elf64_Shdr *sh)
{
    const Elf64_Shdr *strs = sh->sh_link < n ? &shs[sh->sh_link] : NULL;
    size_t nsym = sh->sh_entsize == sizeof(Elf64_Sym) ? sh->sh_size / sizeof(Elf64_Sym) : 0;
    Elf64_Sym chunk[256];
    char *str = NULL;
    bool own = false;

    if (strs == NULL || nsym == 0 || strs->sh_size > (64u << 20)
        || (str = malloc(strs->sh_size + 1)) == NULL
        || pread(fd, str, strs->sh_size, (off_t)strs->sh_offset) != (ssize_t)strs->sh_size) {
        free(str);
        return false;
    }
    str[strs->sh_size] = '\0';
    for (size_t i = 0; i < nsym && !own; i += 256) {
        size_t k = nsym - i < 256 ? nsym - i : 256;

        if (pread(fd, chunk, k * sizeof *chunk, (off_t)(sh->sh_offset + i * sizeof *chunk))
            != (ssize_t)(k * sizeof *chunk))
            break;
        for (size_t j = 0; j < k && !own; j++) {
            if (chunk[j].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(chunk[j].st_info) != STT_FUNC
                || chunk[j].st_name >= strs->sh_size)
                continue;
            for (size_t e = 0; e < sizeof runtime_entries / sizeof runtime_entries[0]; e++)
                own = own || strcmp(str + chunk[j].st_name, runtime_entries[e]) == 0;
        }
    }
    free(str);
    return own;
}

/* What an object has of C++: nothing, the C++ runtime as a shared library
 * it needs (DT_NEEDED libstdc++ or libc++), or a C++ runtime in it
 * (runtime_entries: a static copy, or the shared runtime itself). */
enum cxx { CXX_NONE, CXX_SHARED, CXX_OWN };

/* The section __patchable_function_entries of the ELF file path: its
 * address and size (the first such section; the linker merges them), and
 * in *cxx (when not NULL; found or not) what the file has of C++.  False
 * when there is no such section or the file cannot be read. */
static VFTR_NI bool pfe_section(const char *path, uintptr_t *addr, size_t *size, enum cxx *cxx)
{
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL, str;
    char *names = NULL;
    bool found = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (cxx != NULL)
        *cxx = CXX_NONE;
    if (fd < 0)
        return false;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG)
        || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)
        || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum || eh.e_shnum > 65000)
        goto out;
    sh = malloc((size_t)eh.e_shnum * sizeof *sh);
    if (sh == NULL || pread(fd, sh, (size_t)eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff)
                      != (ssize_t)((size_t)eh.e_shnum * sizeof *sh))
        goto out;
    str = sh[eh.e_shstrndx];
    if (str.sh_size == 0 || str.sh_size > (64u << 20) || (names = malloc(str.sh_size + 1)) == NULL
        || pread(fd, names, str.sh_size, (off_t)str.sh_offset) != (ssize_t)str.sh_size)
        goto out;
    names[str.sh_size] = '\0';
    for (size_t i = 0; i < eh.e_shnum && !found; i++)
        if (sh[i].sh_name < str.sh_size && (sh[i].sh_flags & SHF_ALLOC)
            && strcmp(names + sh[i].sh_name, "__patchable_function_entries") == 0
            && sh[i].sh_size > 0) {
            *addr = (uintptr_t)sh[i].sh_addr;
            *size = (size_t)sh[i].sh_size;
            found = true;
        }
    for (size_t i = 0; cxx != NULL && i < eh.e_shnum; i++)
        if (sh[i].sh_type == SHT_DYNAMIC && *cxx == CXX_NONE && needs_cxx(fd, sh, eh.e_shnum, &sh[i]))
            *cxx = CXX_SHARED;
    for (size_t i = 0; cxx != NULL && i < eh.e_shnum && *cxx != CXX_OWN; i++)
        if ((sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM)
            && own_runtime(fd, sh, eh.e_shnum, &sh[i]))
            *cxx = CXX_OWN;
out:
    free(names);
    free(sh);
    close(fd);
    return found;
}

/* n bytes within +-2 GB (less the object's own size) of [lo, hi), mapped
 * read-write; NULL when no such place is free. */
static VFTR_NI uint8_t *near_map(uintptr_t lo, uintptr_t hi, size_t n)
{
    const uintptr_t step = (uintptr_t)1 << 20, far = ((uintptr_t)1 << 31) - (hi - lo) - n - step;

    if (hi - lo >= ((uintptr_t)1 << 30))
        return NULL;
    for (uintptr_t d = step; d < far; d += step)
        for (int side = 0; side < 2; side++) {
            uintptr_t a = side ? ((hi + pagesize - 1) & ~(uintptr_t)(pagesize - 1)) + d
                               : (lo > d + n ? (lo - d - n) & ~(uintptr_t)(pagesize - 1) : 0);
            void *p;

            if (a == 0)
                continue;
            p = mmap((void *)a, n, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
            if (p == MAP_FAILED)
                continue;
            if ((uintptr_t)p != a) {   /* a kernel that took it for a hint */
                munmap(p, n);
                continue;
            }
            return p;
        }
    return NULL;
}

void *(*vftr_sled_next)(const char *name);

/* Whether the program's calls of the unwinder's entry points come to
 * capture's (or to a sanitizer's that passes them on): each found first
 * in the global scope is not the definition capture passes the call on
 * to.  Not under the lock, nor in dl_iterate_phdr (it may ask the
 * loader). */
static VFTR_NI bool unwinder_interposed(void)
{
    void *(*nx)(const char *) = vftr_sled_next;

    if (nx == NULL)
        return false;   /* no capture/preload: the static library */
    for (size_t e = 0; e < sizeof unwind_entries / sizeof unwind_entries[0]; e++) {
        void *real = nx(unwind_entries[e]);

        if (real != NULL && dlsym(RTLD_DEFAULT, unwind_entries[e]) == real)
            return false;
    }
    return true;
}

/* Set by scan before it walks the objects (lock held): whether the
 * unwinder is interposed (unwinder_interposed), and whether an object with
 * a C++ runtime of its own (a static copy) was ever loaded: its exceptions
 * would meet the trampoline in any traced frame, so from then on no C++
 * object is patched. */
static bool interposed, foreign;

/* Whether the file at path is a shared C++ runtime (its calls of the
 * unwinder and the program's of it go through the dynamic linker, to
 * capture first): libstdc++.so, libc++abi.so, libc++.so. */
static VFTR_NI bool shared_runtime(const char *path)
{
    const char *base = strrchr(path, '/');

    base = base ? base + 1 : path;
    return strncmp(base, "libstdc++.so", 12) == 0 || strncmp(base, "libc++abi.so", 12) == 0
           || strncmp(base, "libc++.so", 9) == 0;
}

static VFTR_NI void say_refused(const char *what)
{
    if (!atomic_exchange(&said_refused, 1) && vftr_proc.is_rank0)
        vftr_msg("instrument.patchable: the system does not let code be made writable (a W^X "
                 "policy?): %s", what);
}

/* One object's sleds (lock held): the functions kept by the filters get a
 * slot each and their sleds become calls of it.  Returns -EACCES when the
 * system refused writable code. */
static VFTR_NI int patch_object(const struct dl_phdr_info *info)
{
    uintptr_t bias = (uintptr_t)info->dlpi_addr, sec = 0, lo = UINTPTR_MAX, hi = 0;
    size_t size = 0, n = 0, first = nsleds;
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
    uint8_t *area;
    enum cxx cxx;
    int rc = 0;

    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD)
            continue;
        if (bias + ph->p_vaddr < lo)
            lo = bias + ph->p_vaddr;
        if (bias + ph->p_vaddr + ph->p_memsz > hi)
            hi = bias + ph->p_vaddr + ph->p_memsz;
    }
    if (lo >= hi || strstr(path, "linux-vdso") || ((uintptr_t)&patch_object >= lo
                                                  && (uintptr_t)&patch_object < hi))
        return 0;
    if (!vftr_mmap_grow((void **)&objs, &capobjs, nobjs, sizeof *objs))
        return 0;
    objs[nobjs].lo = lo;
    objs[nobjs++].hi = hi;
    if (!pfe_section(path, &sec, &size, &cxx))
        return 0;
    if (cxx != CXX_NONE && (!interposed || foreign)) {
        /* an unwinder that capture does not see first would meet the exit
         * trampoline as a return address it cannot step over: such code
         * keeps its nops */
        if (!atomic_exchange(&said_cxx, 1) && vftr_proc.is_rank0)
            vftr_msg("instrument.patchable: %s uses C++, and %s, whose exceptions capture cannot "
                     "follow; its functions are not traced (build it with -finstrument-functions "
                     "instead)",
                     info->dlpi_name && info->dlpi_name[0] ? path : program_invocation_name,
                     foreign ? "the process has a C++ runtime linked in statically"
                             : "the unwinder is not interposed by capture");
        return 0;
    }
    sec += bias;
    /* the functions: a sled of five one-byte nops (gcc) or one 5-byte nop
     * (clang: 0f 1f 44 00 xx) in the object, after an endbr64 or not;
     * those the filters exclude keep their nops */
    for (size_t k = 0; k + 8 <= size; k += 8) {
        uintptr_t at = *(const uintptr_t *)(sec + k), fn = at;
        const struct vftr_fn *f;
        bool nops = at >= lo && at + 5 <= hi, one;

        one = nops && peek8(at) == 0x0f && peek8(at + 1) == 0x1f && peek8(at + 2) == 0x44
              && peek8(at + 3) == 0x00;
        for (int b = 0; nops && !one && b < 5; b++)
            nops = peek8(at + (uintptr_t)b) == 0x90;
        if (!nops)
            continue;
        if (at >= lo + 4 && peek8(at - 4) == 0xf3 && peek8(at - 3) == 0x0f && peek8(at - 2) == 0x1e
            && peek8(at - 1) == 0xfa)
            fn = at - 4;
        f = vftr_fn_get(fn);
        if (f == NULL || (f->flags & VFTR_FN_EXCLUDED)) {
            n_excluded++;
            continue;
        }
        if (!vftr_mmap_grow((void **)&sleds, &capsleds, nsleds, sizeof *sleds))
            break;
        sleds[nsleds].fn = fn;
        sleds[nsleds].at = at;
        sleds[nsleds].slot = NULL;
        sleds[nsleds].stub = -1;
        sleds[nsleds].counting = false;
        sleds[nsleds].silenced = false;
        nsleds++;
        n++;
    }
    if (n == 0)
        return 0;
    area = near_map(lo, hi, (n * SLOT + pagesize - 1) & ~(pagesize - 1));
    if (area == NULL) {
        if (vftr_proc.is_rank0)
            vftr_msg("instrument.patchable: %s: no free memory within 2 GB of its code for the "
                     "trampolines; its functions are not traced", path);
        nsleds = first;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        struct sled *s = &sleds[first + i];
        uint8_t *p = area + i * SLOT;
        uintptr_t tramp = (uintptr_t)&vftr_sled_entry_tramp;
        int32_t three = 3;

        memset(p, 0xcc, SLOT);
        memcpy(p, "\x0f\x1f\x44\x00\x00\x49\xbb", 7);
        memcpy(p + 7, &s->fn, 8);
        memcpy(p + 15, "\xff\x25", 2);
        memcpy(p + 17, &three, 4);
        memcpy(p + 24, &tramp, 8);
    }
    if (mprotect(area, (n * SLOT + pagesize - 1) & ~(pagesize - 1), PROT_READ | PROT_EXEC) != 0) {
        munmap(area, (n * SLOT + pagesize - 1) & ~(pagesize - 1));
        nsleds = first;
        return -EACCES;
    }
    /* the sleds, one executable segment at a time: its pages writable for
     * the moment, then its own protection back */
    for (size_t i = 0; i < info->dlpi_phnum && rc == 0; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t slo = bias + ph->p_vaddr, shi = slo + ph->p_memsz, plo, phi;
        int prot = (ph->p_flags & PF_R ? PROT_READ : 0) | (ph->p_flags & PF_W ? PROT_WRITE : 0)
                   | PROT_EXEC;

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        plo = slo & ~(uintptr_t)(pagesize - 1);
        phi = (shi + pagesize - 1) & ~(uintptr_t)(pagesize - 1);
        if (mprotect((void *)plo, phi - plo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
            rc = -EACCES;
            break;
        }
        for (size_t k = 0; k < n; k++) {
            struct sled *s = &sleds[first + k];
            uintptr_t at = s->at, slot = (uintptr_t)(area + k * SLOT);
            int32_t rel = (int32_t)((intptr_t)slot - (intptr_t)(at + 5));

            if (at < slo || at + 5 > shi)
                continue;
            /* the call's operand first, its opcode last */
            poke(at + 1, &rel, 4);
            poke8(at, 0xe8);
            n_patched++;
            atomic_store_explicit(&any_patched, true, memory_order_relaxed);
        }
        (void)mprotect((void *)plo, phi - plo, prot);
    }
    for (size_t k = 0; k < n; k++)
        sleds[first + k].slot = area + k * SLOT;
    return rc;
}

/* Whether address x lies in the object. */
static VFTR_NI bool holds(const struct dl_phdr_info *info, uintptr_t x)
{
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && x >= a && x - a < ph->p_memsz)
            return true;
    }
    return false;
}

/* Whether the object was searched before (lock held). */
static VFTR_NI bool seen(const struct dl_phdr_info *info)
{
    uintptr_t lo = UINTPTR_MAX;

    for (size_t i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_addr + info->dlpi_phdr[i].p_vaddr < lo)
            lo = (uintptr_t)info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    for (size_t i = 0; i < nobjs; i++)
        if (objs[i].lo == lo)
            return true;
    return false;
}

/* Before any object is patched: is there a C++ runtime of an object's own
 * among those not seen before (foreign)? */
static VFTR_NI int foreign_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
    uintptr_t a;
    size_t n;
    enum cxx cxx;

    (void)size;
    (void)arg;
    if (seen(info) || shared_runtime(path) || strstr(path, "linux-vdso")
        || holds(info, (uintptr_t)&foreign_one))
        return 0;
    (void)pfe_section(path, &a, &n, &cxx);
    if (cxx == CXX_OWN)
        foreign = true;
    return foreign;
}

static VFTR_NI int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    int *rc = arg;

    (void)size;
    if (seen(info))
        return 0;   /* searched before */
    if (patch_object(info) == -EACCES) {
        *rc = -EACCES;
        return 1;
    }
    return 0;
}

/* Whether capture patches sleds in this process: it records, and this is
 * the process that patched at start (a forked child's sleds stay as they
 * were copied; its slots are not switched). */
static pid_t owner;

static VFTR_NI int scan(void)
{
    int rc = 0;
    bool ok = unwinder_interposed();

    pthread_mutex_lock(&lock);
    interposed = ok;
    if (!foreign)
        dl_iterate_phdr(foreign_one, NULL);
    dl_iterate_phdr(scan_one, &rc);
    pthread_mutex_unlock(&lock);
    if (rc == -EACCES)
        say_refused("the functions are not traced");
    return rc;
}

static VFTR_NI int have_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
    uintptr_t a;
    size_t n;

    (void)size;
    if (strstr(path, "linux-vdso") || strstr(path, "libvftrcapture"))
        return 0;
    if (pfe_section(path, &a, &n, NULL)) {
        *(int *)arg = 1;
        return 1;
    }
    return 0;
}

VFTR_NI void vftr_sled_start(void)
{
    uintptr_t tp;
    long ps = sysconf(_SC_PAGESIZE);
    int any = 0;

    if (ps > 0)
        pagesize = (size_t)ps;
    /* capture starts here only for a program with sleds */
    dl_iterate_phdr(have_one, &any);
    if (!any)
        return;
    (void)vftr_thread_attach();
    if (vftr_phase_of(atomic_load(&vftr_proc.phase)) == VFTR_PHASE_STOPPED
        || !vftr_proc.recording || !vftr_proc.cfg.instrument_patchable)
        return;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    tls_off = (int32_t)((intptr_t)&vftr_hook_tls - (intptr_t)tp);
    tls_known = true;
    owner = getpid();
    have_shadow_key = pthread_key_create(&shadow_key, shadow_end) == 0;
    (void)pthread_atfork(NULL, NULL, shadow_forked);
    atomic_store(&active, 1);
    if (scan() == -EACCES) {
        atomic_store(&active, 0);
        atomic_store(&refused_at_start, 1);
    }
    if (atomic_load(&any_patched))
        fde_register();
}

VFTR_NI void vftr_sled_dlopened(void)
{
    if (atomic_load(&active) && getpid() == owner) {
        (void)scan();
        if (atomic_load(&any_patched))
            fde_register();
    }
}

/* The sled of fn (lock held), NULL when none. */
static VFTR_NI struct sled *sled_of(uintptr_t fn)
{
    for (size_t i = 0; i < nsleds; i++)
        if (sleds[i].fn == fn)
            return &sleds[i];
    return NULL;
}

/* Sends the sled's call to target (lock held): its rel32 changed with one
 * compare-and-swap, the call's opcode and boundaries untouched (any thread
 * between them sees the old or the new target).  False when the rel32
 * straddles an 8-byte word, or the system refuses (*refused). */
static VFTR_NI bool aim_sled(const struct sled *s, uintptr_t target, bool *refused)
{
    uintptr_t r = s->at + 1, w = r & ~(uintptr_t)7, page = w & ~(uintptr_t)(pagesize - 1);
    unsigned sh = (unsigned)(r & 7) * 8;
    uint64_t old, new, mask = (uint64_t)0xffffffff << sh;
    uint32_t rel = (uint32_t)(int32_t)((intptr_t)target - (intptr_t)(s->at + 5));
    bool ok;

    if ((r & 7) > 4)
        return false;
    if (mprotect((void *)page, pagesize, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        *refused = true;
        return false;
    }
    old = load8(w);
    new = (old & ~mask) | (uint64_t)rel << sh;
    ok = cas8(w, old, new);
    (void)mprotect((void *)page, pagesize, PROT_READ | PROT_EXEC);
    return ok;
}

/* Switches s to counting (on) or tracing (lock held): 0, -EACCES.  The
 * counting code goes into the slot; the sled's call is aimed at it
 * directly where its rel32 can be swapped at once (no jump on the way),
 * else the slot's first instruction becomes a jump to it. */
static VFTR_NI int switch_slot(struct sled *s, bool on)
{
    uintptr_t a = (uintptr_t)s->slot, page = a & ~(uintptr_t)(pagesize - 1);
    uint64_t old = load8(a), new = old;
    bool refused = false;
    int rc = 0;

    if (!on && aim_sled(s, a, &refused)) {
        s->counting = false;
        /* the slot's own switch may still say counting (set when aiming
         * failed earlier): fall through to reset it */
    }
    if (mprotect((void *)page, pagesize, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return -EACCES;
    if (on) {
        uint8_t code[STUB_CODE];

        stub_code(code, s->stub);
        poke(a + 32, code, sizeof code);
        (void)mprotect((void *)page, pagesize, PROT_READ | PROT_EXEC);
        if (aim_sled(s, a + 32, &refused)) {
            s->counting = true;
            return 0;
        }
        if (refused)
            return -EACCES;
        if (mprotect((void *)page, pagesize, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
            return -EACCES;
        new = (old & ~(uint64_t)0xffffffffff) | 0xe9 | (uint64_t)(32 - 5) << 8;
    } else {
        new = (old & ~(uint64_t)0xffffffffff) | 0x441f0f;   /* 0f 1f 44 00 00 */
    }
    if (!cas8(a, old, new))
        rc = -ESTALE;
    else
        s->counting = on;
    (void)mprotect((void *)page, pagesize, PROT_READ | PROT_EXEC);
    return rc;
}

/* The sled's call becomes a 5-byte nop (on) or the call of its slot again
 * (lock held).  Both are one instruction of five bytes, so a thread is
 * only ever before or after either (unlike the compiler's five one-byte
 * nops, which are never written back); the word holding them changes with
 * one compare-and-swap.  False when they straddle an 8-byte word or the
 * system refuses (*refused). */
static VFTR_NI bool silence(struct sled *s, bool on, bool *refused)
{
    uintptr_t w = s->at & ~(uintptr_t)7, page = w & ~(uintptr_t)(pagesize - 1);
    unsigned sh = (unsigned)(s->at & 7) * 8;
    uint64_t old, new, mask = (uint64_t)0xffffffffff << sh, five;
    int32_t rel = (int32_t)((intptr_t)s->slot - (intptr_t)(s->at + 5));
    bool ok;

    if ((s->at & 7) > 3 || (s->at + 4 >= page + pagesize))
        return false;
    five = on ? 0x00441f0fULL : (0xe8 | (uint64_t)(uint32_t)rel << 8);
    if (mprotect((void *)page, pagesize, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        *refused = true;
        return false;
    }
    old = load8(w);
    new = (old & ~mask) | five << sh;
    ok = cas8(w, old, new);
    (void)mprotect((void *)page, pagesize, PROT_READ | PROT_EXEC);
    if (ok)
        s->silenced = on;
    return ok;
}

VFTR_NI bool vftr_sled_throttled(uintptr_t fn)
{
    struct sled *s;
    bool done = false;

    if (!atomic_load_explicit(&active, memory_order_relaxed) || getpid() != owner)
        return false;
    if (pthread_mutex_trylock(&lock) != 0)
        return false;   /* a hook in a signal handler, or another switch: not now */
    s = sled_of(fn);
    if (s != NULL && !s->counting && !s->silenced && !vftr_proc.cfg.throttle_count) {
        bool refused = false;

        done = silence(s, true, &refused);
        if (refused) {
            say_refused("throttled functions keep calling the hooks");
            atomic_store(&active, 0);
        }
        /* a sled whose word cannot be swapped at once is counted instead */
    }
    if (s != NULL && !s->counting && !s->silenced) {
        if (s->stub < 0)
            s->stub = stub_index(fn);
        if (s->stub >= 0) {
            int rc = switch_slot(s, true);

            done = rc == 0;
            if (rc == -EACCES) {
                say_refused("throttled functions keep calling the hooks");
                atomic_store(&active, 0);
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return done;
}

/* The offset of vftr_hook_tls from the thread pointer, which the stubs
 * address %fs-relative (the same in every thread).  Lock held. */
static VFTR_NI void know_tls(void)
{
    if (!tls_known) {
        uintptr_t tp;

        __asm__("mov %%fs:0, %0" : "=r"(tp));
        tls_off = (int32_t)((intptr_t)&vftr_hook_tls - (intptr_t)tp);
        tls_known = true;
    }
}


VFTR_NI uintptr_t vftr_stub_near(uintptr_t fn)
{
    uintptr_t at = 0, page;
    uint8_t code[STUB_SIZE];
    struct stub_page *pg = NULL;
    int32_t k;
    const uintptr_t reach = ((uintptr_t)1 << 31) - ((uintptr_t)1 << 20);

    if (pthread_mutex_trylock(&lock) != 0)
        return 0;   /* a signal handler's hook, or another switch: a later call */
    know_tls();
    k = stub_index(fn);
    if (k < 0)
        goto out;
    if (stub_at[k] != 0) {
        at = stub_at[k];
        goto out;
    }
    /* a page of stubs within reach of fn (its call sites lie in its body,
     * which is far smaller than the margin), else a new one */
    for (size_t i = 0; i < nstub_pages && pg == NULL; i++)
        if (stub_pages[i].used + STUB_SIZE <= pagesize
            && (stub_pages[i].base > fn ? stub_pages[i].base - fn : fn - stub_pages[i].base) < reach)
            pg = &stub_pages[i];
    if (pg == NULL) {
        uint8_t *p;

        if (nstub_pages == sizeof stub_pages / sizeof stub_pages[0]
            || (p = near_map(fn, fn + 1, pagesize)) == NULL)
            goto out;
        memset(p, 0xcc, pagesize);
        if (mprotect(p, pagesize, PROT_READ | PROT_EXEC) != 0) {
            munmap(p, pagesize);
            goto out;
        }
        pg = &stub_pages[nstub_pages++];
        pg->base = (uintptr_t)p;
        pg->used = 0;
    }
    at = pg->base + pg->used;
    page = pg->base;
    memset(code, 0xcc, sizeof code);
    stub_code(code, k);
    memcpy(code + 24, &at, 8);
    /* the page may run other stubs: writable and executable for the moment */
    if (mprotect((void *)page, pagesize, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        at = 0;
        goto out;
    }
    poke(at, code, sizeof code);
    (void)mprotect((void *)page, pagesize, PROT_READ | PROT_EXEC);
    pg->used += STUB_SIZE;
    stub_at[k] = at;
out:
    pthread_mutex_unlock(&lock);
    return at;
}

/* Writes the counting stub of counter k at x, in the fresh mapping
 * [base, base + n) (lock held); false when the system refuses. */
static VFTR_NI bool stub_write(uintptr_t base, size_t n, uintptr_t x, int32_t k)
{
    uint8_t code[STUB_SIZE];

    memset((void *)base, 0xcc, n);
    memset(code, 0xcc, sizeof code);
    stub_code(code, k);
    memcpy(code + 24, &x, 8);
    memcpy((void *)x, code, sizeof code);
    if (mprotect((void *)base, n, PROT_READ | PROT_EXEC) != 0) {
        munmap((void *)base, n);
        return false;
    }
    return true;
}

VFTR_NI uintptr_t vftr_stub_at(uintptr_t fn, uintptr_t from, uint32_t mask, uint32_t val)
{
    uintptr_t x = 0;
    int32_t k;

    if (pthread_mutex_trylock(&lock) != 0)
        return 0;
    know_tls();
    k = stub_index(fn);
    if (k < 0)
        goto out;
    if (stub_fit[k] != 0 && ((uint32_t)(stub_fit[k] - from) & mask) == (val & mask)) {
        x = stub_fit[k];   /* made for this site before (throttled anew) */
        goto out;
    }
    if (mask == 0xff || mask == 0xffff) {
        /* low bits fixed: a mapping as large as their period holds such an
         * address */
        size_t n = ((size_t)mask + 1 + pagesize + STUB_SIZE + pagesize - 1) & ~(pagesize - 1);
        uint8_t *p = near_map(fn, fn + 1, n);
        uintptr_t base;

        if (p == NULL)
            goto out;
        base = (uintptr_t)p;
        x = base + ((from + val - base) & mask);
        if (!stub_write(base, n, x, k))
            x = 0;
    } else if (mask == 0xff000000u && ((val >> 24) == 0 || (val >> 24) == 0xff)) {
        /* the top byte fixed (0: within 16 MB after from, 0xff: before) */
        for (uintptr_t d = (uintptr_t)1 << 16; d < ((uintptr_t)1 << 24) - (1u << 16) && x == 0;
             d += (uintptr_t)1 << 16) {
            uintptr_t a = (val >> 24) == 0 ? ((from + pagesize - 1) & ~(uintptr_t)(pagesize - 1)) + d
                                           : (from & ~(uintptr_t)(pagesize - 1)) - d;
            void *p = mmap((void *)a, pagesize, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

            if (p == MAP_FAILED)
                continue;
            if ((uintptr_t)p != a) {
                munmap(p, pagesize);
                continue;
            }
            if (stub_write(a, pagesize, a, k))
                x = a;
            break;
        }
    }
    if (x != 0)
        stub_fit[k] = x;
out:
    pthread_mutex_unlock(&lock);
    return x;
}

VFTR_NI uint32_t vftr_sled_unthrottle_all(void)
{
    uint32_t n = 0;

    if (getpid() != owner)
        return 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nsleds; i++) {
        bool refused = false;

        if (sleds[i].counting && switch_slot(&sleds[i], false) == 0)
            n++;
        if (sleds[i].silenced && silence(&sleds[i], false, &refused))
            n++;
    }
    pthread_mutex_unlock(&lock);
    return n;
}

/* The node of t that fn's counted calls join: its throttled call path of fn
 * with the most calls, else any of fn's, else (a thread that called fn
 * only after the stub took its sled: the caller is not known) a call path
 * of fn made under the thread's root; NULL when out of memory. */
static VFTR_NI struct vftr_node *fold_node(struct vftr_thread *t, uintptr_t fn)
{
    uint32_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
    struct vftr_node_walk w = vftr_node_walk_first(t, n);
    struct vftr_node *best = NULL;

    for (uint32_t i = 0; i < n; i++) {
        struct vftr_node *nd = vftr_node_walk_next(&w);

        if (nd->fn == NULL || nd->fn->addr != fn || nd->parent == NULL)
            continue;
        if (best == NULL || ((nd->flags & VFTR_FN_THROTTLED) && !(best->flags & VFTR_FN_THROTTLED))
            || (!!(nd->flags & VFTR_FN_THROTTLED) == !!(best->flags & VFTR_FN_THROTTLED)
                && nd->calls > best->calls))
            best = nd;
    }
    if (best == NULL) {
        struct vftr_fn *f = vftr_fn_get(fn);
        uint64_t now = 0;

        best = f ? vftr_node_child(t, &t->root, fn, f, &now) : NULL;
    }
    return best;
}

VFTR_NI void vftr_sled_fold(void)
{
    uint32_t k = atomic_load(&nstubs);

    if (k == 0 || pthread_mutex_trylock(&lock) != 0)
        return;   /* a signal handler's snapshot (a crash) that interrupted a switch: not now */
    for (struct vftr_thread *t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire);
         t; t = t->next)
        for (uint32_t i = 0; i < k; i++) {
            uint64_t c = atomic_load_explicit((_Atomic uint64_t *)&t->sled_count[i],
                                              memory_order_relaxed);
            struct vftr_node *nd;

            if (c == t->sled_folded[i] || (nd = fold_node(t, stub_fn[i])) == NULL)
                continue;
            nd->calls += c - t->sled_folded[i];
            t->sled_folded[i] = c;
        }
    pthread_mutex_unlock(&lock);
}

VFTR_NI void vftr_sled_forget(uintptr_t lo, uintptr_t hi)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nsleds;)
        if (sleds[i].fn >= lo && sleds[i].fn < hi)
            sleds[i] = sleds[--nsleds];   /* the code is gone; its slots stay mapped, unused */
        else
            i++;
    for (size_t i = 0; i < nobjs;)
        if (objs[i].lo >= lo && objs[i].lo < hi)
            objs[i] = objs[--nobjs];
        else
            i++;
    pthread_mutex_unlock(&lock);
}

VFTR_NI bool vftr_sled_stats(uint64_t *patched, uint64_t *excluded, uint32_t *counting,
                             uint32_t *silenced)
{
    uint32_t c = 0, q = 0;

    pthread_mutex_lock(&lock);
    *patched = n_patched;
    *excluded = n_excluded;
    for (size_t i = 0; i < nsleds; i++) {
        c += sleds[i].counting;
        q += sleds[i].silenced;
    }
    pthread_mutex_unlock(&lock);
    *counting = c;
    *silenced = q;
    return atomic_load(&active) != 0;
}

#else   /* not x86-64: the sleds stay nops */

void *(*vftr_sled_next)(const char *name);

VFTR_NI void vftr_sled_unwind(uintptr_t a)
{
    (void)a;
}

VFTR_NI void vftr_sled_landed(uintptr_t a)
{
    (void)a;
}

VFTR_NI void vftr_sled_start(void)
{
}

VFTR_NI void vftr_sled_dlopened(void)
{
}

VFTR_NI bool vftr_sled_throttled(uintptr_t fn)
{
    (void)fn;
    return false;
}

VFTR_NI uint32_t vftr_sled_unthrottle_all(void)
{
    return 0;
}

VFTR_NI uintptr_t vftr_stub_near(uintptr_t fn)
{
    (void)fn;
    return 0;
}

VFTR_NI uintptr_t vftr_stub_at(uintptr_t fn, uintptr_t from, uint32_t mask, uint32_t val)
{
    (void)fn;
    (void)from;
    (void)mask;
    (void)val;
    return 0;
}

VFTR_NI void vftr_sled_fold(void)
{
}

VFTR_NI void vftr_sled_forget(uintptr_t lo, uintptr_t hi)
{
    (void)lo;
    (void)hi;
}

VFTR_NI bool vftr_sled_stats(uint64_t *patched, uint64_t *excluded, uint32_t *counting,
                             uint32_t *silenced)
{
    *patched = *excluded = 0;
    *counting = *silenced = 0;
    return false;
}

#endif

VFTR_NI bool vftr_sled_refused(void)
{
    return atomic_load_explicit(&refused_at_start, memory_order_relaxed) != 0;
}

VFTR_NI bool vftr_sled_active(void)
{
    return atomic_load_explicit(&active, memory_order_relaxed) != 0;
}
