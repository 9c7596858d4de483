/*
 * dl.c — dlclose, interposed: capture forgets what it knew of the code a
 * closed library held (capture/dl.c says why and how), so that a library
 * loaded at the same addresses later is named and counted as itself.
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
