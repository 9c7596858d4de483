/*
 * vftr_otf_print.h — vftr's readable printer of OTF records (used by
 * vftr-dump), generated from the same record table as the library.
 */
#ifndef VFTR_OTF_PRINT_H
#define VFTR_OTF_PRINT_H

#include <stdio.h>

#include "OTF_HandlerArray.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VFTR_OTF_PRINT_DEFS    1u
#define VFTR_OTF_PRINT_EVENTS  2u
#define VFTR_OTF_PRINT_SNAPS   4u
#define VFTR_OTF_PRINT_STATS   8u
#define VFTR_OTF_PRINT_MARKERS 16u
#define VFTR_OTF_PRINT_ALL     31u

/* Installs, for every record type selected by `kinds`, a handler that
 * prints the record as one line to `out`:
 *   "<time> <process> <RecordName> field=value ..."  for timed records,
 *   "<RecordName> stream=<s> field=value ..."        for definitions,
 * strings quoted, arrays as [a,b,c], key-value lists as kv={key:value,...};
 * numbers in decimal.  Unknown records are printed as
 * "<time> <process> UnknownRecord "<text>"" when any kind is selected.
 * `counts` (may be NULL) receives per-record-type counts (OTF_NRECORDS
 * entries, not cleared); with `out` NULL the handlers only count.  Returns 0, -EINVAL or -ENOMEM.  The array keeps
 * `out` and `counts` (borrowed: both must outlive the read); its printer
 * state is freed by OTF_HandlerArray_close. */
int vftr_otf_print_install(OTF_HandlerArray* handlers, FILE* out, unsigned kinds,
                           uint64_t* counts);

/* "Enter", "DefProcess", ... for an OTF_*_RECORD id, or NULL. */
const char* vftr_otf_record_name(uint32_t record_type);

#ifdef __cplusplus
}
#endif

#endif /* VFTR_OTF_PRINT_H */
