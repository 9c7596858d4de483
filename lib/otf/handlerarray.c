/* handlerarray.c — OTF_HandlerArray (OTF_HandlerArray.h). */
#include <stdlib.h>

#include "OTF_HandlerArray.h"
#include "otf_internal.h"
#include "otf_records_impl.h"

OTF_HandlerArray* OTF_HandlerArray_open(void)
{
    OTF_HandlerArray* h = calloc(1, sizeof *h);
    if (h == NULL)
        goto oom;
    h->pointer = calloc(OTF_NRECORDS, sizeof *h->pointer);
    h->firsthandlerarg = calloc(OTF_NRECORDS, sizeof *h->firsthandlerarg);
    if (h->pointer == NULL || h->firsthandlerarg == NULL)
        goto oom;
    return h;
oom:
    if (h != NULL) {
        free(h->pointer);
        free(h->firsthandlerarg);
        free(h);
    }
    vftr_otf_seterr("out of memory for a handler array");
    return NULL;
}

int OTF_HandlerArray_close(OTF_HandlerArray* h)
{
    if (h == NULL)
        return 0;
    free(h->pointer);
    free(h->firsthandlerarg);
    vftr_otf_print_free(h->vftr_private);
    free(h);
    return 1;
}

int OTF_HandlerArray_setHandler(OTF_HandlerArray* h, OTF_FunctionPointer* pointer,
                                uint32_t recordtype)
{
    if (h == NULL || recordtype >= OTF_NRECORDS) {
        vftr_otf_seterr("OTF_HandlerArray_setHandler: record type %u out of range", recordtype);
        return 0;
    }
    h->pointer[recordtype] = pointer;
    return 1;
}

int OTF_HandlerArray_setFirstHandlerArg(OTF_HandlerArray* h, void* firsthandlerarg,
                                        uint32_t recordtype)
{
    if (h == NULL || recordtype >= OTF_NRECORDS) {
        vftr_otf_seterr("OTF_HandlerArray_setFirstHandlerArg: record type %u out of range",
                        recordtype);
        return 0;
    }
    h->firsthandlerarg[recordtype] = firsthandlerarg;
    return 1;
}
