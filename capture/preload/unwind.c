/*
 * unwind.c — the unwinder's entry points and the landing in a C++ handler,
 * interposed for a program traced through its sleds (instrument.patchable,
 * capture/sled.c).  A traced function's return address is capture's exit
 * trampoline, which has no unwind information: an unwinder walking the
 * stack would stop there (a C++ exception: std::terminate).  So before any
 * walk (_Unwind_RaiseException, _Unwind_Resume, _Unwind_Resume_or_Rethrow,
 * _Unwind_ForcedUnwind, pthread_exit) the calling thread's frames get
 * their real return addresses back, and where the walk ends in a handler
 * (__cxa_begin_catch) the frames it left end there, the live ones return
 * through the trampoline again (vftr_sled_unwind, vftr_sled_landed).
 * Each wrapper tells sled.c where its own return address is: the frames
 * below its caller are gone.  A thread with no traced call pays a load
 * and a test.
 *
 * Interposed as the exec functions are (exports.map): unversioned, so
 * they stand in for libgcc's GCC_3.0 and glibc's versions alike; the next
 * definition is found with dlsym(RTLD_NEXT), else (a C++ library a C
 * program dlopen'ed with RTLD_LOCAL: the runtime is in no global scope)
 * in the scope of the object that called.  A sanitizer
 * runtime preloaded before capture (ASan's _Unwind_RaiseException, TSan's
 * pthread_exit) passes the call on to these.
 *
 * glibc's thread cancellation calls _Unwind_ForcedUnwind through its own
 * handle of libgcc_s, not through these, and backtrace() its
 * _Unwind_Backtrace: those walks read the return addresses through the
 * exit trampoline's unwind information (sled.c), and their landing pads'
 * _Unwind_Resume comes here.  In the shared library only
 * (capture/module.mk), as start.c.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "capture.h"

struct _Unwind_Exception;

/* _Unwind_Reason_Code: an enum of the ABI, passed as an int */
#define URC_FATAL_PHASE1_ERROR 3
#define URC_FATAL_PHASE2_ERROR 2

typedef int raise_fn(struct _Unwind_Exception *e);
typedef void resume_fn(struct _Unwind_Exception *e);
typedef int forced_fn(struct _Unwind_Exception *e, void *stop, void *arg);
typedef void *catch_fn(void *e);
typedef void exit_fn(void *value);

int _Unwind_RaiseException(struct _Unwind_Exception *e) VFTR_EXPORT VFTR_NI;
void _Unwind_Resume(struct _Unwind_Exception *e) VFTR_EXPORT VFTR_NI __attribute__((noreturn));
int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e) VFTR_EXPORT VFTR_NI;
int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, void *stop, void *arg) VFTR_EXPORT VFTR_NI;
void *__cxa_begin_catch(void *e) VFTR_EXPORT VFTR_NI;
void pthread_exit(void *value) VFTR_EXPORT VFTR_NI __attribute__((noreturn));

enum { RAISE, RESUME, RETHROW, FORCED, CATCH, EXIT, NENTRIES };
static const char *const entry_name[NENTRIES] = {
    "_Unwind_RaiseException", "_Unwind_Resume", "_Unwind_Resume_or_Rethrow",
    "_Unwind_ForcedUnwind", "__cxa_begin_catch", "pthread_exit",
};
static void *_Atomic entry_next[NENTRIES];

extern void *vftr_dlopen_real;   /* dl.c: the loader's dlopen */

/* Where the function that uses it keeps its return address: frames whose
 * return addresses lie there or below belong to code that has returned or
 * was unwound.  __builtin_frame_address(0) gives the function a frame
 * pointer, whose word above is the return address. */
#define RET_SLOT() ((uintptr_t)__builtin_frame_address(0) + sizeof(void *))
/* The code that called the function that uses it. */
#define CALLER() ((uintptr_t)__builtin_return_address(0))

/* name as the object at path (a loaded one) would find it in its own
 * scope: itself and what it needs; NULL when that is capture's. */
static VFTR_NI void *in_scope_of(const char *path, const char *name)
{
    void *(*open)(const char *, int) = (void *(*)(const char *, int))vftr_dlopen_real;
    int (*close)(void *) = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
    Dl_info mine, there;
    void *h, *p;

    if (open == NULL)
        open = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    if (path == NULL || path[0] == '\0' || open == NULL || close == NULL
        || (h = open(path, RTLD_LAZY | RTLD_NOLOAD)) == NULL)
        return NULL;
    p = dlsym(h, name);
    close(h);
    if (p != NULL && dladdr((void *)&in_scope_of, &mine) && dladdr(p, &there)
        && mine.dli_fbase == there.dli_fbase)
        return NULL;   /* the program's scope, where capture comes first */
    return p;
}

/* The definition of name that capture passes the call on to: the next
 * one in the global scope, as the dynamic linker would have bound the
 * call without capture; NULL when there is none. */
static VFTR_NI void *unwind_next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* The same for a call from caller when the global scope has none (the
 * runtime came with a library dlopen'ed RTLD_LOCAL): the definition the
 * calling object sees in its own scope.  Looked up again at each such
 * call: callers of different scopes may see different ones. */
static VFTR_NI void *local_next(const char *name, uintptr_t caller)
{
    Dl_info di;

    if (dladdr((void *)caller, &di) && di.dli_fname != NULL)
        return in_scope_of(di.dli_fname, name);
    return NULL;
}

/* The next definition of entry k for a call from caller. */
static VFTR_NI void *entry_get(int k, uintptr_t caller)
{
    void *p = atomic_load_explicit(&entry_next[k], memory_order_acquire);

    if (VFTR_LIKELY(p != NULL))
        return p;
    p = unwind_next(entry_name[k]);
    if (p != NULL) {
        atomic_store_explicit(&entry_next[k], p, memory_order_release);
        return p;
    }
    return local_next(entry_name[k], caller);
}

static VFTR_NI __attribute__((constructor)) void unwind_setup(void)
{
    vftr_sled_next = unwind_next;
}

VFTR_EXPORT VFTR_NI int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
    raise_fn *fn = (raise_fn *)entry_get(RAISE, CALLER());
    int rc;

    if (fn == NULL)
        return URC_FATAL_PHASE1_ERROR;   /* cannot happen: the caller was linked with one */
    vftr_sled_unwind(RET_SLOT());
    rc = fn(e);
    /* it returns only when it found no handler (std::terminate follows):
     * nothing was unwound, the frames return through the trampoline again */
    vftr_sled_landed(RET_SLOT());
    return rc;
}

VFTR_EXPORT VFTR_NI int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
    raise_fn *fn = (raise_fn *)entry_get(RETHROW, CALLER());
    int rc;

    if (fn == NULL)
        return URC_FATAL_PHASE1_ERROR;
    vftr_sled_unwind(RET_SLOT());
    rc = fn(e);
    vftr_sled_landed(RET_SLOT());
    return rc;
}

VFTR_EXPORT VFTR_NI int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, void *stop, void *arg)
{
    forced_fn *fn = (forced_fn *)entry_get(FORCED, CALLER());
    int rc;

    if (fn == NULL)
        return URC_FATAL_PHASE2_ERROR;
    vftr_sled_unwind(RET_SLOT());
    rc = fn(e, stop, arg);
    vftr_sled_landed(RET_SLOT());
    return rc;
}

/* A landing pad's cleanup (destructors) ran: the frames below it are gone,
 * the walk goes on from it. */
VFTR_EXPORT VFTR_NI void _Unwind_Resume(struct _Unwind_Exception *e)
{
    resume_fn *fn = (resume_fn *)entry_get(RESUME, CALLER());

    if (fn == NULL)
        abort();   /* cannot happen (as above); the unwinder would abort too */
    vftr_sled_unwind(RET_SLOT());
    fn(e);
    abort();       /* _Unwind_Resume does not return */
}

VFTR_EXPORT VFTR_NI void *__cxa_begin_catch(void *e)
{
    catch_fn *fn = (catch_fn *)entry_get(CATCH, CALLER());

    if (fn == NULL)
        abort();
    vftr_sled_landed(RET_SLOT());
    return fn(e);
}

/* pthread_exit unwinds the thread (its C++ destructors, its cleanup
 * handlers) with _Unwind_ForcedUnwind, which glibc calls through its own
 * handle of libgcc_s: the frames get their return addresses here. */
VFTR_EXPORT VFTR_NI void pthread_exit(void *value)
{
    exit_fn *fn = (exit_fn *)entry_get(EXIT, CALLER());

    if (fn == NULL)
        abort();
    vftr_sled_unwind(RET_SLOT());
    fn(value);
    abort();
}
