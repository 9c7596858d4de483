/*
 * otf_read_internal.h — the merge of several files by time, shared by
 * OTF_Reader (many streams) and OTF_RStream (one).
 */
#ifndef VFTR_OTF_READ_INTERNAL_H
#define VFTR_OTF_READ_INTERNAL_H

#include "OTF_HandlerArray.h"
#include "OTF_RBuffer.h"
#include "otf_parse.h"
#include "otf_processlist.h"

/* One file being read: its buffer (borrowed), its pending line. */
typedef struct vftr_otf_cursor {
    OTF_RBuffer* rb;
    vftr_otf_parse ps;
    int pending;          /* ps holds an unconsumed line */
    int done;
    uint64_t startpos;    /* file offset where this read began (progress) */
} vftr_otf_cursor;

/* A time-ordered merge of cursors, [min, max) window, optional process
 * filter.  Owned arrays; cursors' buffers are borrowed. */
typedef struct vftr_otf_merge {
    vftr_otf_cursor* cur;
    uint32_t n;
    uint32_t* heap;        /* indexes into cur, min-heap on (time, index) */
    uint32_t heapn;        /* cursors not done (heap size in heap mode) */
    uint64_t* keys;        /* linear mode: time of cur[i]'s pending line, UINT64_MAX when done */
    int linear;            /* few files: scan them instead of keeping a heap */
    int started;
    int filekind;
    uint64_t min, max;
    uint64_t lasttime;     /* time of the last record handed out (progress) */
} vftr_otf_merge;

/* Sets up a merge over `n` buffers (NULL entries are skipped).  0 ok,
 * -ENOMEM. */
int vftr_otf_merge_init(vftr_otf_merge* m, OTF_RBuffer** rbs, const uint32_t* streams,
                        uint32_t n, int filekind, uint64_t min, uint64_t max);
void vftr_otf_merge_release(vftr_otf_merge* m);
/* Reads up to `limit` records (UINT64_MAX: all) through `h`, skipping
 * processes whose status in `procs` is 0 (procs may be NULL).  Returns the
 * number of records, or OTF_READ_ERROR. */
uint64_t vftr_otf_merge_read(vftr_otf_merge* m, OTF_HandlerArray* h,
                             const struct vftr_otf_proclist* procs, uint64_t limit);
/* Reads one buffer from its current position to its end, no time merge
 * (definitions, markers, unsorted reads). */
uint64_t vftr_otf_read_linear(OTF_RBuffer* rb, uint32_t stream, OTF_HandlerArray* h,
                              int filekind, const struct vftr_otf_proclist* procs,
                              uint64_t limit, uint64_t* done_records);

/* Like vftr_otf_read_linear for timed files, with records outside
 * [min, max) skipped; stops at the first record at or after max. */
uint64_t vftr_otf_read_window(OTF_RBuffer* rb, uint32_t stream, OTF_HandlerArray* h,
                              int filekind, const struct vftr_otf_proclist* procs,
                              uint64_t min, uint64_t max, uint64_t limit);

#endif /* VFTR_OTF_READ_INTERNAL_H */
