/*
 * bchooks.c — the reference hooks of the capture benchmark, built into two
 * small shared objects preloaded into bc_instr:
 *   libbc_empty.so (-DBC_EMPTY): hooks that do nothing (the cost of the call
 *                  itself);
 *   libbc_floor.so: hooks that read the time-stamp counter at enter and at
 *                  exit and store it in a volatile thread-local, nothing else
 *                  (the least a timing profiler can do; the "floor").
 */
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define STAMP() __rdtsc()
#else
#include <time.h>
static inline __attribute__((no_instrument_function)) uint64_t stamp(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#define STAMP() stamp()
#endif

#define HOOK __attribute__((no_instrument_function, visibility("default")))

void __cyg_profile_func_enter(void *fn, void *site) HOOK;
void __cyg_profile_func_exit(void *fn, void *site) HOOK;

#ifdef BC_EMPTY
void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
}
#else
/* initial-exec: a preloaded library may use it, and the default model of a
 * -fPIC object (a __tls_get_addr call per access) would make the floor
 * dearer than the least a profiler must do */
static __thread volatile uint64_t t_enter __attribute__((tls_model("initial-exec")));
static __thread volatile uint64_t t_exit __attribute__((tls_model("initial-exec")));

void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
    t_enter = STAMP();
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    t_exit = STAMP();
}
#endif
