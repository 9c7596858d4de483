/*
 * otf_records_tail.h — the code of otf_records.c that uses its generated
 * tables (dispatch_known, lookup_keyword_loose, parsers, record_ids,
 * printers, record_kinds).
 * Included once, at the end of the generated file.
 */
#include <errno.h>
#include <stdlib.h>

#include "otf_kv_internal.h"

int vftr_otf_dispatch(vftr_otf_parse* ps, OTF_HandlerArray* h, int filekind)
{
    char* kw = ps->p;
    int index;
    size_t n = 0;
    if (OTF_UNLIKELY(kw == ps->end || (*kw == '\r' && kw + 1 == ps->end))) {
        vftr_otf_kv_clear(ps->kv);
        return VFTR_OTF_DISPATCH_SKIPPED;      /* empty line */
    }
    int known = dispatch_known(ps, h, filekind);
    if (OTF_LIKELY(known != DISPATCH_NOMATCH)) {
        vftr_otf_kv_clear(ps->kv);
        return known;
    }
    if (*kw == '#') {
        /* event comment: "#"text"" or "#EVTCOMMENT "text"" */
        char* q = kw + 1;
        if (strncmp(q, "EVTCOMMENT", 10) == 0)
            q += 10;
        index = (filekind & VFTR_OTF_FILE_EVENT) ? EVENTCOMMENT_INDEX : -1;
        ps->p = q;
    } else if (kw[0] == 'K' && (!kw_upper(kw[1]) || (kw[1] == 'E' && kw[2] == 'Y' &&
                                                       !kw_upper(kw[3])))) {
        ps->p = kw + (kw_upper(kw[1]) ? 3 : 1);
        return vftr_otf_parse_kv(ps) ? VFTR_OTF_DISPATCH_KV : VFTR_OTF_PARSE_ERROR;
    } else {
        /* A short keyword may be glued to a tag ("LX3": Leave without a
         * function but with a source location). */
        index = lookup_keyword_loose(kw, filekind, &n);
        if (index >= 0)
            ps->p = kw + n;
    }
    int rc;
    if (OTF_UNLIKELY(index < 0)) {
        OTF_Handler_UnknownRecord* fn =
            VFTR_OTF_FNCAST(OTF_Handler_UnknownRecord*, h->pointer[OTF_UNKNOWN_RECORD]);
        if (fn == NULL) {
            rc = VFTR_OTF_DISPATCH_SKIPPED;
        } else {
            /* As OTF does: outside event files the record is passed without
             * the letter every record of that file starts with (D, M, T, S);
             * definitions carry time (uint64_t)-1 and process 0, markers
             * time 0 and process 0. */
            uint64_t t = ps->time;
            uint32_t p = ps->process;
            char* text = ps->line;
            char lead = 0;
            if (filekind & VFTR_OTF_FILE_DEF) {
                t = UINT64_MAX;
                p = 0;
                lead = 'D';
            } else if (filekind & VFTR_OTF_FILE_MARKER) {
                t = 0;
                p = 0;
                lead = 'M';
            } else if (filekind == VFTR_OTF_FILE_SNAP) {
                lead = 'T';
            } else if (filekind == VFTR_OTF_FILE_STAT) {
                lead = 'S';
            }
            if (lead && *text == lead)
                text++;
            *ps->end = '\0';
            rc = fn(h->firsthandlerarg[OTF_UNKNOWN_RECORD], t, p, text);
            *ps->end = '\n';
        }
    } else if (h->pointer[record_ids[index]] == NULL) {
        rc = VFTR_OTF_DISPATCH_SKIPPED;
    } else {
        rc = parsers[index](ps, h);
    }
    vftr_otf_kv_clear(ps->kv);
    return rc;
}

/* ---- printer ------------------------------------------------------------ */

static int print_unknown(void* userData, uint64_t time, uint32_t process, const char* record)
{
    vftr_otf_printer* pr = (vftr_otf_printer*)userData;
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
    for (uint32_t i = 0; i < OTF_NRECORDS; i++) {
        if (printers[i] == NULL || !(record_kinds[i] & kinds))
            continue;
        handlers->pointer[i] = printers[i];
        handlers->firsthandlerarg[i] = pr;
    }
    if (kinds) {
        handlers->pointer[OTF_UNKNOWN_RECORD] =
            VFTR_OTF_FNCAST(OTF_FunctionPointer*, print_unknown);
        handlers->firsthandlerarg[OTF_UNKNOWN_RECORD] = pr;
    }
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
