/*
 * io_next.h — what the interposed I/O calls (io_posix.c, io_stdio.c) share:
 * the next definition of each call, looked up once with dlsym(RTLD_NEXT)
 * and kept in an atomic pointer (the constructors look every one up at
 * load; a call made before, by another library's constructor, looks its
 * own up).  A call whose next definition cannot be found fails with
 * ENOSYS, as a system call the kernel lacks would.
 */
#ifndef VFTR_CAPTURE_IO_NEXT_H
#define VFTR_CAPTURE_IO_NEXT_H

#include <errno.h>
#include <stdatomic.h>

#include "capture.h"

/* Exported, unversioned (capture/exports.map), never instrumented. */
#define VFTR_IO_API __attribute__((visibility("default"), no_instrument_function))

/* dlsym(RTLD_NEXT, name) (io_posix.c). */
void *vftr_io_dlnext(const char *name) VFTR_NI;

/* Declares the pointer to the next `name` of type ret args, and io_get_name(). */
#define IO_NEXT(name, ret, args)                                                   \
    typedef ret io_fn_##name args;                                                 \
    static io_fn_##name *_Atomic io_next_##name;                                   \
    static inline VFTR_NI io_fn_##name *io_get_##name(void)                        \
    {                                                                              \
        io_fn_##name *f_ = atomic_load_explicit(&io_next_##name, memory_order_relaxed); \
        if (VFTR_UNLIKELY(f_ == NULL)) {                                           \
            f_ = (io_fn_##name *)vftr_io_dlnext(#name);                            \
            atomic_store_explicit(&io_next_##name, f_, memory_order_relaxed);      \
        }                                                                          \
        return f_;                                                                 \
    }                                                                              \
    typedef int io_semicolon_##name

/* The next name called with the arguments; fail (with errno ENOSYS) when
 * there is none. */
#define IO_CALL(name, fail, ...)                                                   \
    __extension__({                                                                \
        io_fn_##name *fn_ = io_get_##name();                                       \
        fn_ ? fn_(__VA_ARGS__) : (errno = ENOSYS, (fail));                         \
    })

#define IO_RESOLVE(name) ((void)io_get_##name())

#endif /* VFTR_CAPTURE_IO_NEXT_H */
