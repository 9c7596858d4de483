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
 * return address untouched, unless sleds are patched.  Then it calls it
 * from C, where the loader would search libvftrcapture's paths instead of
 * the caller's: a bare name is first looked up as the loader would from
 * the caller (already loaded, then the caller's search list, which
 * dlinfo's RTLD_DI_SERINFO gives with $ORIGIN expanded), and a hit in the
 * caller's RPATH/RUNPATH is opened by its path.  Every other outcome is the
 * same from either caller (LD_LIBRARY_PATH, the cache, the system
 * directories), and is left to the loader.
 *
 * Like start.c, this file is linked into libvftrcapture.so only.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
void *vftr_dlopen_traced(const char *file, int mode, const void *caller) VFTR_HIDDEN VFTR_NI;

static VFTR_NI __attribute__((constructor)) void find_dlopen(void)
{
    vftr_dlopen_real = dlsym(RTLD_NEXT, "dlopen");
}

/* The search list the loader would walk for a bare name opened from the
 * object that holds ADDR (malloc'd; dlinfo expands $ORIGIN and leaves out
 * directories that do not exist), or NULL. */
static VFTR_NI Dl_serinfo *search_list(const void *addr)
{
    Dl_info info;
    struct link_map *lm = NULL;
    Dl_serinfo size;
    Dl_serinfo *si;

    if (addr == NULL || !dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || lm == NULL
        || dlinfo(lm, RTLD_DI_SERINFOSIZE, &size) != 0 || size.dls_cnt == 0
        || (si = malloc(size.dls_size)) == NULL)
        return NULL;
    si->dls_size = size.dls_size;
    si->dls_cnt = size.dls_cnt;
    if (dlinfo(lm, RTLD_DI_SERINFO, si) != 0) {
        free(si);
        return NULL;
    }
    return si;
}

static bool listed(const Dl_serinfo *si, const char *dir)
{
    for (unsigned i = 0; si != NULL && i < si->dls_cnt; i++)
        if (strcmp(si->dls_serpath[i].dls_name, dir) == 0)
            return true;
    return false;
}

/* FILE as the loader, called from CALLER, would find it in a directory
 * that only CALLER's list holds (its RPATH/RUNPATH: glibc does not say
 * which entry came from where, so the directories capture's own list also
 * holds, LD_LIBRARY_PATH and the system's, are told apart by that), as a
 * malloc'd path; or NULL: FILE names a path, is already loaded, is found
 * first in a directory both lists hold (where the loader's cache, consulted
 * before the system directories, must have its say) or not at all. */
static VFTR_NI char *in_callers_path(dlopen_fn *real, const char *file, const void *caller)
{
    Dl_serinfo *si, *own;
    char *found = NULL;
    void *h;

    if (file == NULL || strchr(file, '/') != NULL || (si = search_list(caller)) == NULL)
        return NULL;
    /* a loaded object of that name is what the loader returns first */
    h = real(file, RTLD_LAZY | RTLD_NOLOAD);
    if (h != NULL) {
        dlclose_fn *close_real = (dlclose_fn *)dlsym(RTLD_NEXT, "dlclose");

        if (close_real != NULL)
            close_real(h);   /* the reference NOLOAD took; nothing unmaps */
        free(si);
        return NULL;
    }
    own = search_list((const void *)search_list);
    for (unsigned i = 0; i < si->dls_cnt; i++) {
        const char *dir = si->dls_serpath[i].dls_name;
        size_t ld = strlen(dir), lf = strlen(file);
        char *p = malloc(ld + lf + 2);

        if (p == NULL)
            break;
        memcpy(p, dir, ld);
        p[ld] = '/';
        memcpy(p + ld + 1, file, lf + 1);
        if (access(p, F_OK) == 0) {
            if (!listed(own, dir))
                found = p;
            else
                free(p);
            break;
        }
        free(p);
    }
    free(own);
    free(si);
    return found;
}

VFTR_NI void *vftr_dlopen_traced(const char *file, int mode, const void *caller)
{
    dlopen_fn *real = (dlopen_fn *)vftr_dlopen_real;
    char *path;
    void *h;
    int err;

    if (real == NULL)
        real = (dlopen_fn *)dlsym(RTLD_NEXT, "dlopen");
    if (real == NULL)
        return NULL;   /* cannot happen: the loader's own dlopen is always there */
    path = in_callers_path(real, file, caller);
    h = real(path != NULL ? path : file, mode);
    err = errno;
    free(path);
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
        "  mov (%rsp), %rdx\n"   /* the caller's return address: whose paths */
        "  jmp vftr_dlopen_traced\n"
        ".size dlopen, .-dlopen\n");
#else
void *dlopen(const char *file, int mode) VFTR_EXPORT VFTR_NI;

VFTR_EXPORT VFTR_NI void *dlopen(const char *file, int mode)
{
    return vftr_dlopen_traced(file, mode, __builtin_return_address(0));
}
#endif
