/* cap_patch N [THREADS] [LIBDIR ROUNDS [wx]] — filter.patch_excluded
 * (capture_patch.sh).  hot() (to be excluded: it lives in the section
 * vftr_hotx, with cold_exit(), excluded too, which returns on two paths)
 * is called N times per thread by work(), which is measured; THREADS
 * threads (1: main alone) run work() at once, so that the first calls of
 * the excluded functions race to patch them.  With LIBDIR, libcappatch.so
 * is opened, used (lib_work: its excluded lib_hot N times) and closed
 * ROUNDS times.  Prints the counts, "patched_sites S" and "bad_changes B"
 * for the main program's section (patchsite.h) and "lib_patched_sites R S"
 * per round of the library.  With "wx" a seccomp filter first makes
 * mprotect refuse writable and executable at once with EACCES, as a W^X
 * policy (SELinux's execmem) does. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "calls.h"
#include "patchsite.h"

#define HOTX static __attribute__((section("vftr_hotx"), noinline))
extern const unsigned char __start_vftr_hotx[], __stop_vftr_hotx[];

static unsigned long long n_main, n_work, n_hot, n_cold_exit, n_run;
static long N;

HOTX void hot(unsigned long k)
{
    __atomic_fetch_add(&n_hot, 1, __ATOMIC_RELAXED);
    capture_sink += k;
}

HOTX int cold_exit(unsigned long k)
{
    __atomic_fetch_add(&n_cold_exit, 1, __ATOMIC_RELAXED);
    if (k % 7 == 3)
        return (int)(capture_sink += k);
    capture_sink ^= k;
    return 0;
}

static NOINLINE void work(long n)
{
    __atomic_fetch_add(&n_work, 1, __ATOMIC_RELAXED);
    for (long k = 0; k < n; k++) {
        hot((unsigned long)k);
        (void)cold_exit((unsigned long)k);
    }
}

static NOINLINE void *run(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&n_run, 1, __ATOMIC_RELAXED);
    work(N);
    return NULL;
}

/* mprotect(..., PROT_WRITE | PROT_EXEC) fails with EACCES from now on. */
static NOINST int refuse_wx(void)
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

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
    static struct patch_view v;
    long threads, rounds;
    const char *libdir;
    pthread_t tid[16];
    int bad;

    n_main++;
    N = arg_long(argc, argv, 1, 100000);
    threads = arg_long(argc, argv, 2, 1);
    libdir = argc > 3 ? argv[3] : NULL;
    rounds = arg_long(argc, argv, 4, 2);
    if (threads < 1 || threads > 16)
        threads = 1;
    if (argc > 5 && strcmp(argv[5], "wx") == 0 && refuse_wx() != 0) {
        printf("seccomp_failed %d\n", errno);
        return 1;
    }
    patch_view_take(&v, __start_vftr_hotx, __stop_vftr_hotx);
    for (long i = 1; i < threads; i++)
        pthread_create(&tid[i], NULL, run, NULL);
    run(NULL);
    for (long i = 1; i < threads; i++)
        pthread_join(tid[i], NULL);
    printf("patched_sites %d\n", patch_view_count(&v, &bad));
    printf("bad_changes %d\n", bad);

    if (libdir) {
        char path[4096];

        snprintf(path, sizeof path, "%s/libcappatch.so", libdir);
        for (long r = 1; r <= rounds; r++) {
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            void (*snap)(void);
            unsigned long long (*lwork)(long);
            int (*count)(int *);

            if (h == NULL) {
                printf("dlopen_failed %s\n", dlerror());
                return 1;
            }
            *(void **)&snap = dlsym(h, "lib_snapshot");
            *(void **)&lwork = dlsym(h, "lib_work");
            *(void **)&count = dlsym(h, "lib_patched_sites");
            snap();
            printf("lib_hot_calls %ld %llu\n", r, lwork(N));
            printf("lib_patched_sites %ld %d\n", r, count(&bad));
            printf("lib_bad_changes %ld %d\n", r, bad);
            dlclose(h);
        }
    }
    report("main", n_main);
    report("run", n_run);
    report("work", n_work);
    report("hot", n_hot);
    report("cold_exit", n_cold_exit);
    return 0;
}
