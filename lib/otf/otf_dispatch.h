/*
 * otf_dispatch.h — from a record line to its handler (generated tables in
 * otf_records.c, logic in otf_records_tail.h).
 */
#ifndef VFTR_OTF_DISPATCH_H
#define VFTR_OTF_DISPATCH_H

#include "OTF_HandlerArray.h"
#include "otf_parse.h"

/* File kinds: which records a file may hold. */
#define VFTR_OTF_FILE_DEF     1
#define VFTR_OTF_FILE_EVENT   2
#define VFTR_OTF_FILE_SNAP    4
#define VFTR_OTF_FILE_STAT    8
#define VFTR_OTF_FILE_MARKER  16

/* Results of vftr_otf_dispatch besides a handler's return value. */
#define VFTR_OTF_DISPATCH_KV      (INT_MIN + 1)   /* a key-value line, stored in ps->kv */
#define VFTR_OTF_DISPATCH_SKIPPED (INT_MIN + 2)   /* a record without handler */

/* Handles the record line at ps->p (after state lines): parses it and calls
 * its handler, or stores a key-value line, or skips a record without
 * handler, or passes an unknown record to OTF_UNKNOWN_RECORD.  Returns the
 * handler's value (OTF_RETURN_OK to go on), VFTR_OTF_DISPATCH_KV,
 * VFTR_OTF_DISPATCH_SKIPPED, or VFTR_OTF_PARSE_ERROR (otf_errno set).
 * The key-value list is reset after every record. */
int vftr_otf_dispatch(vftr_otf_parse* ps, OTF_HandlerArray* h, int filekind);

#endif /* VFTR_OTF_DISPATCH_H */
