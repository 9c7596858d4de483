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
#include "otf_wbuf.h"
#include "otf_write_internal.h"

typedef struct vftr_otf_printer {
    FILE* out;
    uint64_t* counts;
} vftr_otf_printer;

void vftr_otf_print_string(FILE* o, const char* name, const char* s);
void vftr_otf_print_array(FILE* o, const char* name, const uint32_t* a, uint32_t n);
void vftr_otf_print_kv(FILE* o, OTF_KeyValueList* list);

#endif /* VFTR_OTF_RECORDS_IMPL_H */
