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
    int done;             /* left the merge: at its end, or past the window */
    uint64_t startpos;    /* file offset where this read began (progress) */
} vftr_otf_cursor;

/* One read of several files by time, [min, max) window, optional process
 * filter, as OTF_Reader reads events (snapshots, statistics).
 *
 * The order of records with equal time stamps is the reference OTF's: its
 * reader keeps the files in a binary heap, with a file moved below a child
 * whose time is equal to its own, re-sorted after every line read (records,
 * key-value lines and skipped lines alike), files that end or reach the
 * window's end taken out by moving the last one into their place.  `idx`
 * is that array (with the times in `key`), kept exactly as the reference
 * keeps it, so that both libraries hand out ties in the same order.  A sorted and an unsorted read
 * of the same kind share it, as they share the reference's heap.
 *
 * Owned arrays; the cursors' buffers are borrowed. */
typedef struct vftr_otf_merge {
    vftr_otf_cursor* cur;  /* the files, in master control order */
    uint32_t n;
    uint32_t* idx;         /* the reference's heap array: indexes into cur */
    uint64_t* key;         /* key[i]: time of the pending line of cur[idx[i]] */
    uint32_t left;         /* files still in it */
    uint32_t streams;      /* entries of the master control (unsorted progress) */
    int started;
    int filekind;
    uint64_t min, max;
    /* Where the read stands, as the reference's progressCurrent: the time
     * of the file on top at the last step, or (unsorted) that time scaled
     * into the share of the files already done, computed when asked. */
    uint64_t ptime;
    uint32_t pleft;        /* unsorted: files left at the last step */
    int punsorted;
} vftr_otf_merge;

/* Sets up a merge over `n` buffers (NULL entries are skipped) of a trace
 * whose master control lists `streams` entries.  0 ok, -ENOMEM. */
int vftr_otf_merge_init(vftr_otf_merge* m, OTF_RBuffer** rbs, const uint32_t* ids,
                        uint32_t n, uint32_t streams, int filekind, uint64_t min,
                        uint64_t max);
void vftr_otf_merge_release(vftr_otf_merge* m);
/* Reads up to `limit` records (UINT64_MAX: all) through `h` in time order,
 * skipping processes whose status in `procs` is 0 (procs may be NULL).
 * Returns the number of records, or OTF_READ_ERROR. */
uint64_t vftr_otf_merge_read(vftr_otf_merge* m, OTF_HandlerArray* h,
                             const struct vftr_otf_proclist* procs, uint64_t limit);
/* The same without time order: the file on top is read to its end (or to
 * the window's end), then the last file takes its place. */
uint64_t vftr_otf_merge_read_unsorted(vftr_otf_merge* m, OTF_HandlerArray* h,
                                      const struct vftr_otf_proclist* procs,
                                      uint64_t limit);
/* OTF's progressCurrent of the read, given its range [lo, hi] (the window
 * narrowed to the files' first and last time stamps). */
uint64_t vftr_otf_merge_progress(const vftr_otf_merge* m, uint64_t lo, uint64_t hi);

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
