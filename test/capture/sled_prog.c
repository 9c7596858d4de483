/*
 * sled_prog — instrument.patchable (capture/sled.c, capture_patchable.sh):
 * built with -fpatchable-function-entry=5 and no -finstrument-functions.
 * Its functions count their own calls and check what they return, so that
 * capture's trampolines are seen to keep arguments and results intact:
 *
 *   sled_prog N THREADS
 *
 * leaf() N times directly, fib(20) (recursion), via() N times through a
 * function pointer, vsum() with int and double varargs, fret() (float),
 * ldret() (long double, returned in x87 st0), cret() (a _Complex long
 * double: st0 and st1), hop() longjmp'd out of from three levels down to jumps(),
 * tiny() 3 N times (hot: throttled by default), work() in THREADS threads.
 * Prints "count NAME N" for each, "bad N" for wrong results (0 expected)
 * "child_ok 1" when a forked child's calls of the patched code returned
 * right, and "lib_calls N" when a third argument names a library
 * (libsled.so) to dlopen and call N times.  The helpers have no sled
 * (patchable_function_entry(0)).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define NOSLED __attribute__((patchable_function_entry(0, 0)))
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else   /* a clone would have a sled and a name of its own */
#define NOINLINE __attribute__((noinline, noclone))
#endif

static _Atomic unsigned long c_main, c_leaf, c_fib, c_via, c_vsum, c_fret, c_ldret, c_cret, c_hop,
    c_deeper, c_jumps, c_tiny, c_work, c_thread, bad;
static jmp_buf env;
static volatile unsigned long sink;

static NOINLINE long leaf(long x)
{
    c_leaf++;
    return x * 3 + 1;
}

static NOINLINE long fib(int n)
{
    long a, b;

    c_fib++;
    if (n < 2)
        return n;
    /* the stores after each call keep gcc from turning one of them into a
     * loop (tail recursion with an accumulator), which would count a call
     * that never enters the function */
    a = fib(n - 1);
    sink++;
    b = fib(n - 2);
    sink++;
    return a + b;
}

static NOINLINE long via(long x)
{
    c_via++;
    return x - 7;
}

static NOINLINE double vsum(int n, ...)
{
    va_list ap;
    double s = 0;

    c_vsum++;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += i % 2 ? va_arg(ap, double) : (double)va_arg(ap, int);
    va_end(ap);
    return s;
}

static NOINLINE float fret(float x)
{
    c_fret++;
    return x * 0.5f;
}

static NOINLINE long double ldret(long double x)
{
    c_ldret++;
    return x / 3.0L;
}

static NOINLINE _Complex long double cret(long double a, long double b)
{
    c_cret++;
    return a + b * 1.0il;
}

static NOINLINE void deeper(int k)
{
    c_deeper++;
    if (k < 0)
        return;
    if (k == 0)
        longjmp(env, 1);
    deeper(k - 1);
    sink++;
}

static NOINLINE void hop(void)
{
    c_hop++;
    deeper(2);
    sink++;
}

/* lands the longjmp in a traced frame of its own */
static NOINLINE void jumps(int times)
{
    c_jumps++;
    for (volatile int r = 0; r < times; r++)
        if (setjmp(env) == 0)
            hop();
}

static NOINLINE long tiny(long x)
{
    c_tiny++;
    return x ^ 5;
}

static NOINLINE void *work(void *arg)
{
    long n = (long)arg, s = 0;

    c_work++;
    for (long i = 0; i < n; i++)
        s += leaf(i);
    if (s != 3 * n * (n - 1) / 2 + n)
        bad++;
    return NULL;
}

/* With SLED_WX=1 in the environment, before capture starts (a constructor
 * runs before main): a seccomp filter makes mprotect refuse writable and
 * executable at once with EACCES, as a W^X policy (SELinux's execmem)
 * does. */
static NOSLED __attribute__((constructor)) void refuse_wx(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE, 0, 1),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
    const char *e = getenv("SLED_WX");

    if (e == NULL || *e != '1')
        return;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
        || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        printf("seccomp_failed %d\n", errno);
}

static NOSLED void report(const char *name, unsigned long n)
{
    printf("count %s %lu\n", name, n);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
    int nt = argc > 2 ? atoi(argv[2]) : 2;
    long (*volatile fp)(long) = via;
    pthread_t th[16];
    long s = 0;

    c_main++;
    for (long i = 0; i < n; i++)
        s += leaf(i);
    if (s != 3 * n * (n - 1) / 2 + n)
        bad++;
    if (fib(20) != 6765)
        bad++;
    for (long i = 0; i < n; i++)
        if (fp(i) != i - 7)
            bad++;
    if (vsum(4, 1, 2.5, 3, 4.25) != 10.75 || vsum(7, 1, 0.5, 2, 0.25, 3, 0.125, 4) != 10.875)
        bad++;
    if (fret(3.0f) != 1.5f)
        bad++;
    if (ldret(1.0L) != 1.0L / 3.0L)
        bad++;
    {
        _Complex long double z = cret(2.0L, 3.0L);

        if (__real__ z != 2.0L || __imag__ z != 3.0L)
            bad++;
    }
    jumps(3);
    for (long i = 0; i < 3 * n; i++)
        s += tiny(i);
    if (nt > 16)
        nt = 16;
    for (int i = 0; i < nt; i++)
        if (pthread_create(&th[i], NULL, work, (void *)n) != 0)
            return 2;
    for (int i = 0; i < nt; i++)
        pthread_join(th[i], NULL);
    c_thread = (unsigned long)nt;
    /* a forked child runs the patched code (its capture stopped) */
    {
        pid_t pid = fork();
        int st = 0;

        if (pid == 0) {
            long cs = 0;

            for (long i = 0; i < 1000; i++)
                cs += leaf(i);
            _exit(cs == 3 * 1000 * 999 / 2 + 1000 ? 0 : 3);
        }
        printf("child_ok %d\n", pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st)
                                   && WEXITSTATUS(st) == 0);
    }
    if (argc > 3) {
        void *h = dlopen(argv[3], RTLD_NOW);
        long (*lib)(long) = h ? (long (*)(long))dlsym(h, "sled_lib") : NULL;
        long ok = 0;

        for (long i = 0; lib && i < n; i++)
            ok += lib(i) == 2 * i;
        printf("lib_calls %ld\n", ok);
        if (h)
            dlclose(h);
    }
    report("main", c_main);
    report("leaf", c_leaf);
    report("fib", c_fib);
    report("via", c_via);
    report("vsum", c_vsum);
    report("fret", c_fret);
    report("ldret", c_ldret);
    report("cret", c_cret);
    report("hop", c_hop);
    report("deeper", c_deeper);
    report("jumps", c_jumps);
    report("tiny", c_tiny);
    report("work", c_work);
    printf("bad %lu\n", bad);
    fflush(stdout);
    return 0;
}
