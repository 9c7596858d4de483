/*
 * stub.c — the PAPI backend when vftr is built without PAPI
 * (vftr_papi.h): it knows no event, so a PAPI name in counters.events is
 * an unknown name, said with the reason.
 */
#include <errno.h>
#include <stdio.h>

#include "capture.h"
#include "papi/vftr_papi.h"

VFTR_NI bool vftr_papi_built(void)
{
    return false;
}

VFTR_NI int vftr_papi_init(char *why, size_t len)
{
    snprintf(why, len, "vftr was built without PAPI");
    return -EOPNOTSUPP;
}

VFTR_NI int vftr_papi_probe(const char *name, size_t len, char *unit, size_t unitlen,
                            char *why, size_t whylen)
{
    (void)name, (void)len, (void)unit, (void)unitlen;
    snprintf(why, whylen, "vftr was built without PAPI");
    return -ENOENT;
}

VFTR_NI struct vftr_papi *vftr_papi_thread_new(const char *const *names, unsigned n,
                                               bool multiplex)
{
    (void)names, (void)n, (void)multiplex;
    errno = EOPNOTSUPP;
    return NULL;
}

VFTR_NI int vftr_papi_read(struct vftr_papi *p, uint64_t *v)
{
    (void)p, (void)v;
    return -EOPNOTSUPP;
}

VFTR_NI bool vftr_papi_multiplexed(const struct vftr_papi *p)
{
    (void)p;
    return false;
}

VFTR_NI void vftr_papi_thread_free(struct vftr_papi *p)
{
    (void)p;
}
