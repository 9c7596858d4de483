/*
 * otf_records_tail.h — the code of otf_records.c that uses its generated
 * tables (printers, record_kinds, copy handler tables).
 * Included once, at the end of the generated file.
 */
#include <errno.h>
#include <stdlib.h>

#include "otf_kv_internal.h"

/* ---- printer ------------------------------------------------------------ */

static int print_unknown(void* userData, uint64_t time, uint32_t process, const char* record)
{
    vftr_otf_printer* pr = (vftr_otf_printer*)userData;
    if (!(pr->kinds & VFTR_OTF_PRINT_ALL))
        return OTF_RETURN_OK;       /* definitions read for their names */
    if (pr->counts)
        pr->counts[OTF_UNKNOWN_RECORD]++;
    if (pr->out == NULL)
        return OTF_RETURN_OK;
    fprintf(pr->out, "%" PRIu64 " %" PRIu32 " UnknownRecord", time, process);
    vftr_otf_print_string(pr->out, "text", record);
    fputc('\n', pr->out);
    return OTF_RETURN_OK;
}

int vftr_otf_print_install(OTF_HandlerArray* handlers, FILE* out, unsigned kinds,
                           uint64_t* counts)
{
    if (handlers == NULL || (out == NULL && counts == NULL))
        return -EINVAL;
    vftr_otf_printer* pr = handlers->vftr_private;
    if (pr == NULL) {
        pr = calloc(1, sizeof *pr);
        if (pr == NULL)
            return -ENOMEM;
        handlers->vftr_private = pr;
    }
    pr->out = out;
    pr->counts = counts;
    pr->kinds = kinds & VFTR_OTF_PRINT_ALL;
    pr->names = out != NULL && (kinds & VFTR_OTF_PRINT_NAMES) != 0;
    /* with names, the definitions (and the marker definitions) are handled
     * whatever is printed: they are where the names come from */
    unsigned handled = pr->kinds |
                       (pr->names ? VFTR_OTF_PRINT_DEFS | VFTR_OTF_PRINT_MARKERS : 0);
    for (uint32_t i = 0; i < OTF_NRECORDS; i++) {
        if (printers[i] == NULL || !(record_kinds[i] & handled))
            continue;
        handlers->pointer[i] = printers[i];
        handlers->firsthandlerarg[i] = pr;
    }
    if (handled) {
        handlers->pointer[OTF_UNKNOWN_RECORD] =
            VFTR_OTF_FNCAST(OTF_FunctionPointer*, print_unknown);
        handlers->firsthandlerarg[OTF_UNKNOWN_RECORD] = pr;
    }
    return 0;
}

int vftr_otf_print_select(OTF_HandlerArray* handlers, unsigned kinds)
{
    vftr_otf_printer* pr = handlers ? handlers->vftr_private : NULL;

    if (pr == NULL)
        return -EINVAL;
    pr->kinds = kinds & VFTR_OTF_PRINT_ALL;
    return 0;
}

/* ---- copy handlers -------------------------------------------------------- */

int OTF_HandlerArray_getCopyHandler(OTF_HandlerArray* handlers, OTF_Writer* writer)
{
    if (handlers == NULL)
        return 0;
    for (uint32_t i = 0; i < OTF_NRECORDS; i++) {
        if (copy_writer[i] != NULL) {
            handlers->pointer[i] = copy_writer[i];
            handlers->firsthandlerarg[i] = writer;
        }
    }
    return 1;
}

int OTF_HandlerArray_getCopyHandler_stream(OTF_HandlerArray* handlers, OTF_WStream* writer)
{
    if (handlers == NULL)
        return 0;
    for (uint32_t i = 0; i < OTF_NRECORDS; i++) {
        if (copy_stream[i] != NULL) {
            handlers->pointer[i] = copy_stream[i];
            handlers->firsthandlerarg[i] = writer;
        }
    }
    return 1;
}
