/*
 * otf_records_impl.h — included by the generated otf_records.c only: the
 * declarations its writers, parsers, copy handlers and printer use.
 */
#ifndef VFTR_OTF_RECORDS_IMPL_H
#define VFTR_OTF_RECORDS_IMPL_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "OTF_CopyHandler.h"
#include "OTF_CopyHandler_stream.h"
#include "OTF_HandlerArray.h"
#include "OTF_WStream.h"
#include "OTF_Writer.h"
#include "vftr_otf_print.h"
#include "otf_dispatch.h"
#include "otf_parse.h"
#include "otf_u32map.h"
#include "otf_wbuf.h"
#include "otf_write_internal.h"

/* What a definition's id names (records.py's NAME_KINDS, in its order). */
enum vftr_otf_name_kind {
    VFTR_OTF_NAME_FUNCTION, VFTR_OTF_NAME_FUNCGROUP, VFTR_OTF_NAME_PROCESS,
    VFTR_OTF_NAME_PROCGROUP, VFTR_OTF_NAME_COUNTER, VFTR_OTF_NAME_COUNTERGROUP,
    VFTR_OTF_NAME_COLLOP, VFTR_OTF_NAME_SCLFILE, VFTR_OTF_NAME_SCL, VFTR_OTF_NAME_FILE,
    VFTR_OTF_NAME_FILEGROUP, VFTR_OTF_NAME_MARKER, VFTR_OTF_NNAMES
};

/* The printer's state, owned by its handler array (vftr_private, released
 * by OTF_HandlerArray_close through vftr_otf_print_free). */
typedef struct vftr_otf_printer {
    FILE* out;
    uint64_t* counts;
    unsigned kinds;                 /* VFTR_OTF_PRINT_* printed and counted */
    int names;                      /* VFTR_OTF_PRINT_NAMES: keep and append names */
    vftr_otf_u32map name[VFTR_OTF_NNAMES];   /* id -> its name (owned strings) */
} vftr_otf_printer;

void vftr_otf_print_string(FILE* o, const char* name, const char* s);
void vftr_otf_print_array(FILE* o, const char* name, const uint32_t* a, uint32_t n);
void vftr_otf_print_kv(FILE* o, OTF_KeyValueList* list);

/* Keeps `name` as the name of definition `id` of `kind` (a copy; an empty
 * name or id UINT32_MAX is no name).  0, -ENOMEM. */
int vftr_otf_print_name_set(vftr_otf_printer* pr, unsigned kind, uint32_t id, const char* name);
/* A source code location: named "file:line" after its file's name (kept
 * before it, as OTF's definitions come), or "line N" when that is unknown. */
int vftr_otf_print_scl_set(vftr_otf_printer* pr, uint32_t scl, uint32_t file, uint32_t line);
/* Prints " (name)" after a field that refers to definition `id` of `kind`,
 * when its name is known; nothing otherwise. */
void vftr_otf_print_ref(const vftr_otf_printer* pr, unsigned kind, uint32_t id);
/* Frees the printer and the names it kept.  NULL-safe. */
void vftr_otf_print_free(vftr_otf_printer* pr);

#endif /* VFTR_OTF_RECORDS_IMPL_H */
