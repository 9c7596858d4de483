/*
 * otf_rbuf.h — the record iterator of an OTF_RBuffer used by the streams
 * and the reader.
 */
#ifndef VFTR_OTF_RBUF_H
#define VFTR_OTF_RBUF_H

#include "OTF_RBuffer.h"
#include "otf_parse.h"

/* Consumes state lines and stops at the next record (or key-value) line:
 * fills ps->line/p/end and ps->time/process from the buffer's state.
 * Returns 1 for a line, 0 at the end of the file, -1 on error (otf_errno). */
int vftr_otf_rb_next(OTF_RBuffer* rb, vftr_otf_parse* ps);

#endif /* VFTR_OTF_RBUF_H */
