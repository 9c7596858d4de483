/*
 * dl.c — dlclose, interposed: capture forgets what it knew of the code a
 * closed library held (capture/dl.c says why and how), so that a library
 * loaded at the same addresses later is named and counted as itself.
 *
 * dlopen, interposed for a program traced through its sleds
 * (instrument.patchable, capture/sled.c): the sleds of the objects it
 * loaded are patched before it returns, before their code runs.  glibc's
 * dlopen searches the RUNPATH of its caller, which it takes from its
 * return address, so the wrapper is a tail jump to the real dlopen,
 * return address untouched, unless sleds are patched; then it calls it
 * from C and the caller's RUNPATH (and $ORIGIN) are libvftrcapture's
 * (a limit of the mode: share/doc/capture.md).
 *
 * Like start.c, this file is linked into libvftrcapture.so only.
 */
#include <dlfcn.h>
#include <errno.h>

#include "capture.h"

int dlclose(void *handle) VFTR_EXPORT VFTR_NI;

typedef int dlclose_fn(void *handle);

VFTR_EXPORT VFTR_NI int dlclose(void *handle)
{
    dlclose_fn *real = (dlclose_fn *)dlsym(RTLD_NEXT, "dlclose");
    struct vftr_dl_snap snap;
    int rc, err;

    if (real == NULL)
        return -1;   /* cannot happen: the loader's own dlclose is always there */
    vftr_dl_before(&snap);
    rc = real(handle);
    err = errno;
    vftr_dl_after(&snap);
    errno = err;
    return rc;
}

typedef void *dlopen_fn(const char *file, int mode);

void *vftr_dlopen_real VFTR_HIDDEN;   /* the loader's dlopen, found at load time */
void *vftr_dlopen_traced(const char *file, int mode) VFTR_HIDDEN VFTR_NI;

static VFTR_NI __attribute__((constructor)) void find_dlopen(void)
{
    vftr_dlopen_real = dlsym(RTLD_NEXT, "dlopen");
}

VFTR_NI void *vftr_dlopen_traced(const char *file, int mode)
{
    dlopen_fn *real = (dlopen_fn *)vftr_dlopen_real;
    void *h;
    int err;

    if (real == NULL)
        real = (dlopen_fn *)dlsym(RTLD_NEXT, "dlopen");
    if (real == NULL)
        return NULL;   /* cannot happen: the loader's own dlopen is always there */
    h = real(file, mode);
    err = errno;
    if (h != NULL)
        vftr_sled_dlopened();
    errno = err;
    return h;
}

/* dlopen: the C path only while sleds are patched or before the
 * constructor found the real one (see above). */
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl dlopen\n"
        ".type dlopen, @function\n"
        "dlopen:\n"
        "  mov vftr_dlopen_real(%rip), %rax\n"
        "  test %rax, %rax\n"
        "  jz 1f\n"
        "  push %rdi\n  push %rsi\n  push %rax\n"
        "  call vftr_sled_active\n"
        "  mov %eax, %ecx\n"
        "  pop %rax\n  pop %rsi\n  pop %rdi\n"
        "  test %cl, %cl\n"
        "  jnz 1f\n"
        "  jmp *%rax\n"
        "1:\n"
        "  jmp vftr_dlopen_traced\n"
        ".size dlopen, .-dlopen\n");
#else
void *dlopen(const char *file, int mode) VFTR_EXPORT VFTR_NI;

VFTR_EXPORT VFTR_NI void *dlopen(const char *file, int mode)
{
    return vftr_dlopen_traced(file, mode);
}
#endif
