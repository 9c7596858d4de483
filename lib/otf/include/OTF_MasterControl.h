/*
 * OTF_MasterControl.h — the stream/process map of a trace (the `<stub>.otf`
 * master control file).
 *
 * A trace stores the events of its processes in streams; the master control
 * says which processes each stream holds.  The object keeps the map twice,
 * and programs may read (not write) both copies directly:
 *
 *   map[0 .. n-1]   one OTF_MapEntry per stream, sorted by stream id
 *                   (`argument`), each with its process ids (`values`)
 *                   sorted ascending and unique;
 *   rmap[0 .. rn-1] one OTF_Pair per process, sorted by process id, which
 *                   is the pair's `argument`; its `value` is the stream.
 *                   (The names follow the direction of each mapping:
 *                   map goes stream -> processes, rmap process -> stream.)
 *
 * Invariants kept by every function below: a process belongs to at most one
 * stream; stream ids 0 and 0xffffffff never occur (0 is the stream of the
 * global definitions, (uint32_t)-1 means "no stream"); `s` >= `n` and
 * `rs` >= `rn` are the allocated capacities.
 *
 * File format (one line per stream, lower-case hex, sorted, no trailing
 * comma):   1:1,5,9,d\n2:2,6,a,e\n
 * The file is plain text and never compressed.  Reading accepts what the
 * reference OTF 1.12.5 accepts for well-formed files (blanks and tabs around
 * numbers and separators, empty lines, "\r\n", lines that do not start with
 * "<hex>:" are ignored, an IOFSL line "i<servers>:<mode>:<bits>" is checked
 * and ignored) but, unlike the reference, rejects malformed content with an
 * error naming the file and byte offset (see OTF_MasterControl_read).
 *
 * Errors: functions returning int give 1 on success and 0 on error, pointer
 * functions NULL; on error otf_errno/otf_strerr are set (OTF_Errno.h).
 *
 * Threads: an object may be read from several threads at once; any call that
 * modifies it (append, read, ...) needs exclusive access.  Different objects
 * are independent.
 */
#ifndef OTF_MASTERCONTROL_H
#define OTF_MASTERCONTROL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_inttypes.h"

#include "OTF_File.h"
#include "OTF_Filenames.h"
#include "OTF_WBuffer.h"
#include "OTF_RBuffer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One stream and its processes (a 1:n relation). */
struct struct_OTF_MapEntry {
    uint32_t argument;  /* stream id */
    uint32_t n;         /* number of process ids in values */
    uint32_t s;         /* allocated length of values */
    uint32_t *values;   /* n process ids, ascending, unique; may be NULL if n == 0 */
};
typedef struct struct_OTF_MapEntry OTF_MapEntry;

/* One process and its stream (a 1:1 relation, used by rmap). */
struct struct_OTF_Pair {
    uint32_t argument;  /* process id */
    uint32_t value;     /* stream id */
};
typedef struct struct_OTF_Pair OTF_Pair;

struct struct_OTF_MasterControl {
    uint32_t n;                /* number of streams (entries of map) */
    uint32_t s;                /* allocated length of map */
    OTF_MapEntry *map;         /* streams sorted by id: the authoritative map */

    uint32_t rn;               /* number of processes (entries of rmap) */
    uint32_t rs;               /* allocated length of rmap */
    OTF_Pair *rmap;            /* processes sorted by id, derived from map */

    OTF_FileManager *manager;  /* borrowed; kept for the API, not used for I/O */
};
typedef struct struct_OTF_MasterControl OTF_MasterControl;

/* Creates an empty map.  `manager` is required (NULL is an error, as in the
 * reference) but only borrowed: it must outlive the object.  Returns the new
 * object, owned by the caller and released with OTF_MasterControl_close(),
 * or NULL on error. */
OTF_MasterControl *OTF_MasterControl_new(OTF_FileManager *manager);

/* Replaces the content of `mc` with the file "<namestub>.otf" (the stub is
 * used as given: "x.otf" reads "x.otf.otf").  Returns 1 on success.  Returns
 * 0, leaving `mc` empty, if the file cannot be opened or read, is malformed
 * (missing or out-of-range number, upper-case or other non-hex character
 * where a number must be, stream id 0 or ffffffff, a process listed twice,
 * an invalid IOFSL line, missing newline at the end of the file) or lists no
 * process at all; the message names the file and the byte offset.
 * A stream line without processes ("2:") gives a stream without processes. */
int OTF_MasterControl_read(OTF_MasterControl *mc, const char *namestub);

/* Deprecated name of OTF_MasterControl_close(). */
void OTF_MasterControl_finish(OTF_MasterControl *mc);

/* Frees `mc` and everything it owns (not the file manager).  NULL is a
 * no-op.  Pointers obtained from the getters become invalid. */
void OTF_MasterControl_close(OTF_MasterControl *mc);

/* Returns a deep copy of `mc` bound to `manager` (required, borrowed), owned
 * by the caller (OTF_MasterControl_close), or NULL on error. */
OTF_MasterControl *OTF_MasterControl_clone(OTF_MasterControl *mc,
                                           OTF_FileManager *manager);

/* Puts process `value` into stream `argument`.  Returns 1 on success, 0 if
 * `argument` is 0 or 0xffffffff, if `value` is already in any stream (also
 * the same one), or on allocation failure; `mc` is unchanged then.
 * O(log n) search plus the cost of keeping the arrays sorted: appending in
 * ascending process order is amortised O(log n). */
int OTF_MasterControl_append(OTF_MasterControl *mc, uint32_t argument,
                             uint32_t value);

/* OTF_MasterControl_append() for each of the `l` processes in `values`
 * (borrowed, need not be sorted).  Processes that cannot be added are
 * skipped and the others still added; returns 1 if all were added, 0 if any
 * failed.  l == 0 returns 1 and adds nothing (not even an empty stream). */
int OTF_MasterControl_appendList(OTF_MasterControl *mc, uint32_t argument,
                                 uint32_t l, uint32_t *values);

/* Returns the stream of process `value`, or 0 if the process is in no
 * stream (nothing is added).  O(log rn). */
uint32_t OTF_MasterControl_mapReverse(OTF_MasterControl *mc, uint32_t value);

/* Writes "<namestub>.otf" (stub used as given), replacing an existing file:
 * one line per stream in the stored order, "<stream>:<p>,<p>,...\n" in
 * lower-case hex; an empty map gives an empty file.  Returns 1 on success,
 * 0 if the file cannot be created or written (the reference returns 1 even
 * then; vftr reports the failure). */
int OTF_MasterControl_write(OTF_MasterControl *mc, const char *namestub);

/* Verifies the invariants above (streams sorted and valid, processes sorted
 * and unique per stream, rmap sorted, and map and rmap describing the same
 * pairs).  Useful after a program modified the arrays directly.  Returns 1
 * if consistent, 0 (with a message saying what is wrong) otherwise.  The
 * reference detects only some of these faults; for every map built through
 * this API both agree (1). */
int OTF_MasterControl_check(OTF_MasterControl *mc);

/* Prints both maps to stderr, in the reference's layout:
 * "map:\n" then "<stream>: <p> <p> \n" per stream, "rmap:\n" then
 * "<process>: <stream>\n" per process (hex).  Debugging aid. */
void OTF_MasterControl_print(OTF_MasterControl *mc);

/* Returns the entry of stream `argument`, or NULL if there is none.  The
 * entry is owned by `mc` and valid until `mc` is next modified. O(log n). */
OTF_MapEntry *OTF_MasterControl_getEntry(OTF_MasterControl *mc,
                                         uint32_t argument);

/* Returns map[index] (streams in ascending id order), or NULL if index >= n.
 * Owned by `mc`, valid until `mc` is next modified. */
OTF_MapEntry *OTF_MasterControl_getEntryByIndex(OTF_MasterControl *mc,
                                                uint32_t index);

/* Returns rmap[index] (processes in ascending id order), or NULL if
 * index >= rn.  Owned by `mc`, valid until `mc` is next modified. */
OTF_Pair *OTF_MasterControl_getREntryByIndex(OTF_MasterControl *mc,
                                             uint32_t index);

/* Number of streams (entries of map). */
uint32_t OTF_MasterControl_getCount(OTF_MasterControl *mc);

/* Number of processes (entries of rmap). */
uint32_t OTF_MasterControl_getrCount(OTF_MasterControl *mc);

/* Number of processes in stream `argument`, 0 if there is no such stream. */
uint32_t OTF_MasterControl_getValueCount(OTF_MasterControl *mc,
                                         uint32_t argument);

/* The sorted process ids of stream `argument` (getValueCount() of them), or
 * NULL if there is no such stream or it has no process.  Owned by `mc`,
 * valid until `mc` is next modified. */
uint32_t *OTF_MasterControl_getValues(OTF_MasterControl *mc,
                                      uint32_t argument);

/* Returns a stream id that is not in use: one more than the largest id in
 * use (1 for an empty map) or, when that would be 0xffffffff, the smallest
 * unused id >= 1.  Does not reserve the id.  Returns 0 only if all ids are
 * taken. */
uint32_t OTF_MasterControl_getNewStreamId(OTF_MasterControl *mc);

#ifdef __cplusplus
}
#endif

#endif /* OTF_MASTERCONTROL_H */
