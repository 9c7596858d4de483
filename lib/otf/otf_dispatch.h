/*
 * otf_dispatch.h — from a record line to its handler: file kinds and result
 * codes of the dispatcher (generated parsers in otf_parsers.h, the
 * dispatcher in merge.c).
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

/* Results of the dispatcher besides a handler's return value. */
#define VFTR_OTF_DISPATCH_KV      (INT_MIN + 1)   /* a key-value line, stored in ps->kv */
#define VFTR_OTF_DISPATCH_SKIPPED (INT_MIN + 2)   /* a record without handler */

/* The dispatcher itself (dispatch() in merge.c) hands a record line to its
 * parser and handler: the handler's value (OTF_RETURN_OK to go on),
 * VFTR_OTF_DISPATCH_KV, VFTR_OTF_DISPATCH_SKIPPED, or VFTR_OTF_PARSE_ERROR.
 * It lives with the reading loop so that the generated parsers
 * (otf_parsers.h) are inlined into it. */

#endif /* VFTR_OTF_DISPATCH_H */
