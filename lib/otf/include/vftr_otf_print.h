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
/* Not a kind: append the names of the definitions after the ids that
 * refer to them (below). */
#define VFTR_OTF_PRINT_NAMES   32u

/* Installs, for every record type selected by `kinds`, a handler that
 * prints the record as one line to `out`:
 *   "<time> <process> <RecordName> field=value ..."  for timed records,
 *   "<RecordName> stream=<s> field=value ..."        for definitions,
 * strings quoted, arrays as [a,b,c], key-value lists as kv={key:value,...};
 * numbers in decimal.  With VFTR_OTF_PRINT_NAMES in `kinds` (and `out`
 * given), a field that refers to a definition is followed by the name the
 * definition gave it, "function=1 (main)", "sender=2 (rank 1)",
 * "source=3 (heat.c:12)" (ids without a definition, or with an empty name,
 * stay bare; the process column of a timed record stays a bare token): the
 * definitions and marker definitions are then handled even when not
 * printed, and must be read before the records that refer to them.  Unknown records are printed as
 * "<time> <process> UnknownRecord "<text>"" when any kind is selected.
 * `counts` (may be NULL) receives per-record-type counts (OTF_NRECORDS
 * entries, not cleared); with `out` NULL the handlers only count.  Returns 0, -EINVAL or -ENOMEM.  The array keeps
 * `out` and `counts` (borrowed: both must outlive the read); its printer
 * state is freed by OTF_HandlerArray_close. */
int vftr_otf_print_install(OTF_HandlerArray* handlers, FILE* out, unsigned kinds,
                           uint64_t* counts);

/* Changes which kinds are printed and counted by the printer installed in
 * `handlers` (VFTR_OTF_PRINT_* bits; the handlers installed stay, the
 * names kept stay): 0 reads definitions for their names only.  0, or
 * -EINVAL when no printer is installed. */
int vftr_otf_print_select(OTF_HandlerArray* handlers, unsigned kinds);

/* "Enter", "DefProcess", ... for an OTF_*_RECORD id, or NULL. */
const char* vftr_otf_record_name(uint32_t record_type);

#ifdef __cplusplus
}
#endif

#endif /* VFTR_OTF_PRINT_H */
