/*
 * test_capture_patch.c — Check suite for capture/patch.c: the hook calls
 * of excluded functions patched out and restored.
 *
 * The code is hand-assembled into a page of its own (made read-only and
 * executable, as compiled code is), never run: the hooks' slow path
 * (vftr_patch_site) is called with the return addresses a call from there
 * would have.  The page holds two GOT slots with the hooks' addresses, a
 * PLT stub for each (endbr64 + jmp through the slot, as ld writes them
 * with IBT, and a bare jmp), and call sites of every form the patcher
 * takes and of several it must leave; every expected byte is written
 * out below.  Each test runs in its own process (CK_FORK).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "capture.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

enum {
    STUB_ENTER = 0x40,   /* f3 0f 1e fa ff 25 <slot 0x80> */
    STUB_EXIT = 0x60,    /* ff 25 <slot 0x88> */
    SLOT_ENTER = 0x80,
    SLOT_EXIT = 0x88,
    CALL_PLT = 0x100,    /* e8 -> STUB_ENTER: patched to eb 03 */
    CALL_GOT = 0x110,    /* ff 15 -> SLOT_ENTER: patched to eb 04 */
    CALL_STRADDLE = 0x127, /* e8 -> STUB_ENTER, bytes 0x127/0x128 in two words: left */
    CALL_OTHER = 0x130,  /* e8 -> STUB_EXIT, met by the enter hook: left */
    CALL_NOWHERE = 0x138, /* e8 -> 0x000 (zeros, no stub): left */
    FN_TAIL = 0x200,     /* a function: push, enter call, pop, jmp exit hook, ret */
    FN_TAIL_END = 0x210,
    FN_RET = 0x240,      /* push, nops, e8 at 0x247 (straddling), pop, ret */
    FN_RET_END = 0x250,
};

static uint8_t *page;
static uint8_t orig[4096];

static void put32(uint8_t *p, int32_t v)
{
    memcpy(p, &v, 4);
}

static void call_rel(size_t at, uint8_t op, size_t target)
{
    page[at] = op;
    put32(page + at + 1, (int32_t)((intptr_t)target - (intptr_t)(at + 5)));
}

/* The page, made read-only and executable; patching set up as at init. */
static void setup(void)
{
    uintptr_t e = (uintptr_t)&__cyg_profile_func_enter, x = (uintptr_t)&__cyg_profile_func_exit;

    page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(page, MAP_FAILED);
    memset(page, 0x90, 4096);   /* nop */
    memset(page, 0, 0x40);
    memcpy(page + SLOT_ENTER, &e, 8);
    memcpy(page + SLOT_EXIT, &x, 8);
    memcpy(page + STUB_ENTER, "\xf3\x0f\x1e\xfa\xff\x25", 6);
    put32(page + STUB_ENTER + 6, SLOT_ENTER - (STUB_ENTER + 10));
    memcpy(page + STUB_EXIT, "\xff\x25", 2);
    put32(page + STUB_EXIT + 2, SLOT_EXIT - (STUB_EXIT + 6));
    call_rel(CALL_PLT, 0xe8, STUB_ENTER);
    memcpy(page + CALL_GOT, "\xff\x15", 2);
    put32(page + CALL_GOT + 2, SLOT_ENTER - (CALL_GOT + 6));
    call_rel(CALL_STRADDLE, 0xe8, STUB_ENTER);
    call_rel(CALL_OTHER, 0xe8, STUB_EXIT);
    call_rel(CALL_NOWHERE, 0xe8, 0);
    /* FN_TAIL: 55 | e8 -> STUB_ENTER | 5d | e9 -> STUB_EXIT | c3 | 90... */
    page[FN_TAIL] = 0x55;
    call_rel(FN_TAIL + 1, 0xe8, STUB_ENTER);
    page[FN_TAIL + 6] = 0x5d;
    call_rel(FN_TAIL + 7, 0xe9, STUB_EXIT);
    page[FN_TAIL + 12] = 0xc3;
    page[FN_RET] = 0x55;
    call_rel(FN_RET + 7, 0xe8, STUB_ENTER);
    page[FN_RET + 12] = 0x5d;
    page[FN_RET + 13] = 0xc3;
    memcpy(orig, page, 4096);
    ck_assert_int_eq(mprotect(page, 4096, PROT_READ | PROT_EXEC), 0);
    vftr_proc.recording = true;
    ck_assert(vftr_patch_setup(true));
}

/* The hook of function fn (put into the skip cache) at return address
 * page + ret. */
static struct vftr_skip_slot *hook(uintptr_t fn, size_t ret, int kind)
{
    struct vftr_skip_slot *s = vftr_skip_slot(fn);

    if (atomic_load(&s->fn) != fn) {
        atomic_store(&s->fn, fn);
        atomic_store(&s->tries[0], 0);
        atomic_store(&s->tries[1], 0);
    }
    vftr_patch_site(s, fn, (uintptr_t)page + ret, kind);
    return s;
}

/* Bytes of the page that differ from the original, as "offset:byte ...". */
static const char *changes(void)
{
    static char buf[512];
    size_t k = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < 4096 && k < sizeof buf - 16; i++)
        if (page[i] != orig[i])
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%zx:%02x", k ? " " : "", i, page[i]);
    return buf;
}

/* The page's protection as /proc/self/maps says, "r-x" and so on. */
static const char *prot(void)
{
    static char perm[5];
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");

    strcpy(perm, "?");
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;

        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 && lo <= (uintptr_t)page
            && (uintptr_t)page < hi)
            break;
        strcpy(perm, "?");
    }
    if (f)
        fclose(f);
    perm[3] = '\0';
    return perm;
}

/* Functions of the page, with their extents noted as classify() does:
 * A holds the call through the PLT stub, B the one through the GOT slot,
 * C the calls to be left. */
#define FN_A ((uintptr_t)page + 0x100)
#define FN_B ((uintptr_t)page + 0x110)
#define FN_C ((uintptr_t)page + 0x120)

static void note_all(void)
{
    vftr_patch_note(FN_A, FN_A + 0x10);
    vftr_patch_note(FN_B, FN_B + 0x10);
    vftr_patch_note(FN_C, FN_C + 0x20);
}

START_TEST(call_through_plt_and_got)
{
    uint64_t n, failed;
    bool on;

    setup();
    hook(FN_A, CALL_PLT + 5, 0);   /* its extent not known: left */
    ck_assert_str_eq(changes(), "");
    note_all();
    hook(FN_A, CALL_GOT + 6, 0);   /* a call of the hook, not in A's body: left */
    ck_assert_str_eq(changes(), "");
    hook(FN_A, CALL_PLT + 5, 0);
    ck_assert_str_eq(changes(), "100:eb 101:03");
    hook(FN_B, CALL_GOT + 6, 0);
    ck_assert_str_eq(changes(), "100:eb 101:03 110:eb 111:04");
    ck_assert_str_eq(prot(), "r-x");   /* the protection given back */
    vftr_patch_stats(&n, &failed, &on);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(failed, 2);
    ck_assert(on);
}
END_TEST

START_TEST(sites_left_alone)
{
    struct vftr_skip_slot *s;
    uint64_t n, failed;
    bool on;

    setup();
    note_all();
    s = hook(FN_C, CALL_STRADDLE + 5, 0);   /* e8 at 0x127, 03 would go to 0x128 */
    ck_assert_uint_eq(atomic_load(&s->tries[0]), 1);
    hook(FN_C, CALL_OTHER + 5, 0);           /* a call of the exit hook, by the enter hook */
    hook(FN_C, CALL_NOWHERE + 5, 0);         /* a call of no hook */
    hook(FN_C, 0x301, 0);                    /* nops before */
    ck_assert_str_eq(changes(), "");
    ck_assert_uint_eq(atomic_load(&s->tries[0]), 4);
    vftr_patch_stats(&n, &failed, &on);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(failed, 4);
}
END_TEST

START_TEST(slot_taken_by_another_function)
{
    struct vftr_skip_slot *s;

    setup();
    note_all();
    s = vftr_skip_slot(FN_A);
    atomic_store(&s->fn, FN_A + 0x2000);   /* same slot, another function */
    vftr_patch_site(s, FN_A, (uintptr_t)page + CALL_PLT + 5, 0);
    ck_assert_str_eq(changes(), "");
    ck_assert_uint_eq(atomic_load(&s->tries[0]), 0);
}
END_TEST

START_TEST(off_patches_nothing)
{
    struct vftr_skip_slot *s;

    setup();
    ck_assert(!vftr_patch_setup(false));
    ck_assert_uint_eq(atomic_load(&vftr_patch_tries_init), VFTR_PATCH_TRIES);
    note_all();
    s = hook(FN_A, CALL_PLT + 5, 0);
    ck_assert_str_eq(changes(), "");
    ck_assert_uint_eq(atomic_load(&s->tries[0]), VFTR_PATCH_TRIES);
}
END_TEST

/* The exit hook reached by FN_TAIL's jmp: its return address is in the
 * caller (here: after nops), so the body is decoded: 55 | e8 (patched
 * before, decoded as the call it was) | 5d | e9 -> exit stub: c3. */
START_TEST(tail_jump_to_the_exit_hook)
{
    uintptr_t fn;
    uint64_t n, failed;
    bool on;

    setup();
    fn = (uintptr_t)page + FN_TAIL;
    hook(fn, FN_TAIL + 6, 0);   /* no extent known yet: nothing */
    hook(fn, 0x301, 1);
    ck_assert_str_eq(changes(), "");
    vftr_patch_note(fn, (uintptr_t)page + FN_TAIL_END);
    hook(fn, FN_TAIL + 6, 0);
    ck_assert_str_eq(changes(), "201:eb 202:03");
    hook(fn, 0x301, 1);
    ck_assert_str_eq(changes(), "201:eb 202:03 207:c3");
    vftr_patch_stats(&n, &failed, &on);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(prot(), "r-x");
}
END_TEST

/* A body with a byte the decoder does not know (0x06: push es, none in
 * 64-bit mode) before the jump: nothing written. */
START_TEST(tail_unknown_byte_patches_nothing)
{
    uintptr_t fn;

    setup();
    fn = (uintptr_t)page + FN_TAIL;
    ck_assert_int_eq(mprotect(page, 4096, PROT_READ | PROT_WRITE), 0);
    page[FN_TAIL + 6] = 0x06;
    orig[FN_TAIL + 6] = 0x06;
    ck_assert_int_eq(mprotect(page, 4096, PROT_READ | PROT_EXEC), 0);
    vftr_patch_note(fn, (uintptr_t)page + FN_TAIL_END);
    hook(fn, 0x301, 1);
    ck_assert_str_eq(changes(), "");
}
END_TEST

START_TEST(restore_and_forget)
{
    uintptr_t fn;

    setup();
    fn = (uintptr_t)page + FN_TAIL;
    note_all();
    hook(FN_A, CALL_PLT + 5, 0);
    hook(FN_B, CALL_GOT + 6, 0);
    vftr_patch_note(fn, (uintptr_t)page + FN_TAIL_END);
    hook(fn, 0x301, 1);
    ck_assert_str_eq(changes(), "100:eb 101:03 110:eb 111:04 207:c3");
    /* back to the original bytes, protection as it was */
    ck_assert_uint_eq(vftr_patch_restore((uintptr_t)page, (uintptr_t)page + 4096), 3);
    ck_assert_str_eq(changes(), "");
    ck_assert_str_eq(prot(), "r-x");
    ck_assert_uint_eq(vftr_patch_restore((uintptr_t)page, (uintptr_t)page + 4096), 0);
    /* patched again (the function's extent searched again), then the code
     * "unmapped": forgotten, nothing written back */
    hook(FN_A, CALL_PLT + 5, 0);
    hook(fn, 0x301, 1);
    ck_assert_str_eq(changes(), "100:eb 101:03 207:c3");
    vftr_patch_forget((uintptr_t)page, (uintptr_t)page + 4096);
    ck_assert_uint_eq(vftr_patch_restore((uintptr_t)page, (uintptr_t)page + 4096), 0);
    ck_assert_str_eq(changes(), "100:eb 101:03 207:c3");
}
END_TEST

/* A straddling call (e8 at 0x247, 0x248 the next word's first byte) in a
 * function with a ret: its rel32 (a word's first four bytes) is sent to
 * the ret at 0x24d: 0x24d - 0x24c = 1. */
START_TEST(straddling_call_sent_to_a_ret)
{
    uintptr_t fn;

    setup();
    fn = (uintptr_t)page + FN_RET;
    vftr_patch_note(fn, (uintptr_t)page + FN_RET_END);
    hook(fn, FN_RET + 12, 0);
    ck_assert_str_eq(changes(), "248:01 249:00 24a:00 24b:00");
    ck_assert_uint_eq(vftr_patch_restore((uintptr_t)page, (uintptr_t)page + 4096), 1);
    ck_assert_str_eq(changes(), "");
}
END_TEST

/* Hand-checked lengths of the decoder (the capture_patch.sh script checks
 * it against objdump on whole libraries). */
START_TEST(decoder_lengths)
{
    static const struct {
        const char *bytes;
        size_t n, len;
    } cases[] = {
        { "\x55", 1, 1 },                                   /* push %rbp */
        { "\x48\x89\xe5", 3, 3 },                           /* mov %rsp,%rbp */
        { "\x48\x8b\x05\x10\x20\x30\x40", 7, 7 },           /* mov disp(%rip),%rax */
        { "\x48\x8b\x44\x24\x08", 5, 5 },                   /* mov 8(%rsp),%rax: SIB, disp8 */
        { "\x8b\x04\x25\x00\x10\x00\x00", 7, 7 },           /* mov 0x1000,%eax: SIB, no base */
        { "\x48\xb8\x01\x02\x03\x04\x05\x06\x07\x08", 10, 10 }, /* movabs */
        { "\x66\xb8\x01\x02", 4, 4 },                       /* mov $imm16,%ax */
        { "\xe8\x00\x00\x00\x00", 5, 5 },                   /* call rel32 */
        { "\xe9\x00\x00\x00\x00", 5, 5 },                   /* jmp rel32 */
        { "\xff\x25\x00\x00\x00\x00", 6, 6 },               /* jmp *disp(%rip) */
        { "\x0f\x84\x00\x00\x00\x00", 6, 6 },               /* je rel32 */
        { "\x74\x05", 2, 2 },                               /* je rel8 */
        { "\xf3\x0f\x1e\xfa", 4, 4 },                       /* endbr64 */
        { "\x66\x0f\x1f\x44\x00\x00", 6, 6 },               /* nopw 0(%rax,%rax) */
        { "\xc5\xf8\x77", 3, 3 },                           /* vzeroupper */
        { "\xc5\xfd\x6f\x04\x24", 5, 5 },                   /* vmovdqa (%rsp),%ymm0 */
        { "\xc4\xe3\x7d\x18\xc1\x01", 6, 6 },               /* vinsertf128 $1: map 0f3a, imm8 */
        { "\x62\xf1\x7c\x48\x28\x44\x24\x01", 8, 8 },       /* vmovaps 64(%rsp),%zmm0 (EVEX) */
        { "\x66\x0f\x3a\x0f\xc1\x08", 6, 6 },               /* palignr $8 */
        { "\xf6\x07\x01", 3, 3 },                           /* testb $1,(%rdi) */
        { "\xf7\xd8", 2, 2 },                               /* neg %eax: no immediate */
        { "\xc3", 1, 1 },                                   /* ret */
        { "\x06", 1, 0 },                                   /* push %es: none in 64-bit mode */
        { "\x48\x8b", 2, 0 },                               /* cut short */
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(vftr_patch_insn_len((const uint8_t *)cases[i].bytes, cases[i].n)
                      == cases[i].len, "case %zu", i);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("capture_patch");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, call_through_plt_and_got);
    tcase_add_test(tc, sites_left_alone);
    tcase_add_test(tc, slot_taken_by_another_function);
    tcase_add_test(tc, off_patches_nothing);
    tcase_add_test(tc, tail_jump_to_the_exit_hook);
    tcase_add_test(tc, tail_unknown_byte_patches_nothing);
    tcase_add_test(tc, restore_and_forget);
    tcase_add_test(tc, straddling_call_sent_to_a_ret);
    tcase_add_test(tc, decoder_lengths);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
