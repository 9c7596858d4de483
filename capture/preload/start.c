/*
 * start.c — capture starts at main in the program vftr-run runs, hooks or
 * no hooks.
 *
 * Without this, capture initializes at the first event that reaches it: a
 * compiler hook, an MPI wrapper, the OpenMP runtime asking for its tool.  A
 * program built without -finstrument-functions and without MPI or OpenMP
 * never gets there: no log, no trace, no word (issue 14).  So the library
 * interposes glibc's __libc_start_main, which the program's _start calls
 * after every constructor has run, and hands it a main of its own that
 * starts capture, then calls the program's main.  Capture's start and its
 * atexit finalizer then sit where an instrumented main's first hook put
 * them.
 *
 * Only in the process vftr-run started: vftr-run sets VFTR_RUN_PID to its
 * own pid and execs the program, which keeps the pid.  A process that
 * merely inherited LD_PRELOAD (a shell the program runs, a tool it
 * starts) has another pid and starts capture at its first hook, as before,
 * so it leaves no files unless it is instrumented itself.  A program
 * linked with -lvftrcapture and run without vftr-run behaves the same way.
 *
 * In every process, entering main ends the prelude (callpath.c: calls
 * before main are not recorded unless include_cxx_prelude), also when main
 * itself has no hook.
 *
 * This file is linked into libvftrcapture.so only, never into the static
 * archive (capture/module.mk): a tool or test linking libvftrcapture.a
 * would otherwise take its __libc_start_main from there.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "sample.h"

typedef int vftr_main_fn(int argc, char **argv, char **envp);
typedef int vftr_start_fn(vftr_main_fn *main_fn, int argc, char **argv, void (*init)(void),
                          void (*fini)(void), void (*rtld_fini)(void), void *stack_end);

int __libc_start_main(vftr_main_fn *main_fn, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
    VFTR_EXPORT VFTR_NI;

static vftr_main_fn *program_main;

/* Whether vftr-run started this very process (VFTR_RUN_PID is our pid). */
static VFTR_NI bool started_by_vftr_run(void)
{
    const char *s = getenv("VFTR_RUN_PID");
    char *end;
    long pid;

    if (s == NULL || *s < '0' || *s > '9')
        return false;
    pid = strtol(s, &end, 10);
    return *end == '\0' && pid == (long)getpid();
}

static VFTR_NI int start_main(int argc, char **argv, char **envp)
{
    /* up to main, capture's own work, also once sampling began (sample.h) */
    vftr_sample_own_begin();
    /* the thread attach, not vftr_init_once alone: it keeps this thread's
     * hooks out while initialization runs (an instrumented malloc would
     * otherwise re-enter it) and makes the main thread thread 0 */
    if (started_by_vftr_run())
        (void)vftr_thread_attach();
    /* a program built with -fpatchable-function-entry: its sleds (sled.c) */
    vftr_sled_start();
    vftr_sample_own_end();
    atomic_store_explicit(&vftr_proc.main_seen, true, memory_order_relaxed);
    return program_main(argc, argv, envp);
}

VFTR_EXPORT VFTR_NI int __libc_start_main(vftr_main_fn *main_fn, int argc, char **argv,
                                          void (*init)(void), void (*fini)(void),
                                          void (*rtld_fini)(void), void *stack_end)
{
    vftr_start_fn *next = (vftr_start_fn *)dlsym(RTLD_NEXT, "__libc_start_main");

    if (next == NULL) {
        /* glibc always has it; without it the program cannot start at all */
        vftr_msg_raw("cannot find __libc_start_main after libvftrcapture.so");
        _exit(127);
    }
    program_main = main_fn;
    return next(start_main, argc, argv, init, fini, rtld_fini, stack_end);
}
