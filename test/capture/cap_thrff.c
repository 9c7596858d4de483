/* cap_thrff THREADS N — throttled functions whose enter hook calls go
 * through the GOT (ff 15 disp32, as -fno-plt compiles them) with the disp32
 * straddling two aligned 8-byte words (capture_patch.sh).  The compiler
 * decides where its hook calls lie, so ffs5(), ffs6() and ffs7() are
 * written here in assembly as -finstrument-functions -fno-plt would
 * compile them, with nops placing the disp32 of the enter call at offset
 * 5, 6 and 7 of its word (three, two and one of its bytes in the first
 * word); their exit calls lie within a word.  THREADS threads each call
 * the three N times; every call counts itself. */
#include <pthread.h>
#include <stdatomic.h>

#include "calls.h"

/* the functions' own counts (written by the assembly, read atomically) */
unsigned long long n_ffs5, n_ffs6, n_ffs7;
static atomic_ullong n_worker;
static long n_per_thread = 3000;

void ffs5(void);
void ffs6(void);
void ffs7(void);

/* FFS(name, pad, pad2): push rbx (1 byte), mov 8(%rsp),%rsi (5), lea
 * name(%rip),%rdi (7), pad nops, then the enter call ff 15 disp32, whose
 * disp32 is at 13 + pad + 2 from the 8-aligned entry; the count; the same
 * arguments, pad2 nops and the exit call at a word's start. */
#define FFS(name, pad, pad2)                                                   \
    __asm__(".text\n"                                                          \
            ".p2align 3\n"                                                     \
            ".globl " #name "\n"                                               \
            ".type " #name ", @function\n" #name ":\n"                         \
            "  push %rbx\n"                                                    \
            "  mov 8(%rsp), %rsi\n"                                            \
            "  lea " #name "(%rip), %rdi\n"                                    \
            "  .fill " #pad ", 1, 0x90\n"                                      \
            "  call *__cyg_profile_func_enter@GOTPCREL(%rip)\n"                \
            "  lock incq n_" #name "(%rip)\n"                                  \
            "  mov 8(%rsp), %rsi\n"                                            \
            "  lea " #name "(%rip), %rdi\n"                                    \
            "  .fill " #pad2 ", 1, 0x90\n"                                     \
            "  call *__cyg_profile_func_exit@GOTPCREL(%rip)\n"                 \
            "  pop %rbx\n"                                                     \
            "  ret\n"                                                          \
            ".size " #name ", .-" #name "\n")

/* disp32 at 21, 22, 15: offset 5, 6, 7 of its word.  After the enter
 * call (ends at 25, 26, 19) come 8 (lock incq), 5 and 7 bytes: the exit
 * call starts at 45 + pad2, 46 + pad2, 39 + pad2: 48, 48, 40 */
FFS(ffs5, 6, 3);
FFS(ffs6, 7, 2);
FFS(ffs7, 0, 1);

static NOINLINE void *worker(void *arg)
{
    atomic_fetch_add_explicit(&n_worker, 1, memory_order_relaxed);
    for (long i = 0; i < n_per_thread; i++) {
        ffs5();
        ffs6();
        ffs7();
    }
    return arg;
}

int main(int argc, char **argv)
{
    long nthreads = arg_long(argc, argv, 1, 4);
    pthread_t th[64];

    n_per_thread = arg_long(argc, argv, 2, 3000);
    if (nthreads < 1 || nthreads > 64)
        return 2;
    for (long k = 0; k < nthreads; k++)
        if (pthread_create(&th[k], NULL, worker, NULL) != 0)
            return 1;
    for (long k = 0; k < nthreads; k++)
        pthread_join(th[k], NULL);
    report("worker", atomic_load(&n_worker));
    report("ffs5", __atomic_load_n(&n_ffs5, __ATOMIC_RELAXED));
    report("ffs6", __atomic_load_n(&n_ffs6, __ATOMIC_RELAXED));
    report("ffs7", __atomic_load_n(&n_ffs7, __ATOMIC_RELAXED));
    return 0;
}
