/*
 * iostat.h — the file I/O of a window of a trace, summed per file and per
 * function: operations by kind, bytes read and written, the time spent in
 * them.  What vftr-stats --io prints; fed with a window read (source.h) of
 * any format, so a .vfd run and its OTF and OTF2 conversions give the same
 * figures.
 *
 * What counts:
 *   - an operation counts once, at its end (EndFileOperation; OTF's complete
 *     FileOperation record at its time), as otfaux counts it; an operation
 *     that failed counts too (and in `failed`);
 *   - its time runs from its begin to its end; an operation that began
 *     before the window counts from the window's start (its begin is not
 *     read: a window read delivers events of [a, b) only);
 *   - the function it is booked under is the one on top of its process's
 *     stack when it began (for an operation begun before the window: when
 *     it ended): the function that made the call, or for MPI-IO the MPI
 *     function (MPI_File_write_all) that the trace records as a call of its
 *     own; 0 when no call was open;
 *   - bytes are read by reads and written by writes (the operation's own
 *     count, what the call moved).
 * Operation kinds: open, close, read, write, seek, sync (fsync, fflush,
 * MPI_File_sync), and other (unlink, rename, dup, lock, unlock, the rest).
 *
 * Usage: vftr_iostat_new(a), read the window with the handler of
 * vftr_iostat_handler (open frames and events), then the rows; or all of it
 * at once with vftr_iostat_read.  Ownership: the accumulator owns its rows
 * (valid until vftr_iostat_free).  Errors: the handler's callbacks return
 * -ENOMEM; functions 0 or -errno.  One thread at a time; no globals.
 */
#ifndef VFTR_MODEL_IOSTAT_H
#define VFTR_MODEL_IOSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "window.h"

enum vftr_iostat_kind {
    VFTR_IOSTAT_OPEN,
    VFTR_IOSTAT_CLOSE,
    VFTR_IOSTAT_READ,
    VFTR_IOSTAT_WRITE,
    VFTR_IOSTAT_SEEK,
    VFTR_IOSTAT_SYNC,
    VFTR_IOSTAT_OTHER,
    VFTR_IOSTAT_NKINDS
};

/* The kind of OTF operation word op (OTF_FILEOP_* in its low five bits). */
enum vftr_iostat_kind vftr_iostat_kind_of(uint32_t op);
/* "open", "close", "read", "write", "seek", "sync", "other". */
const char *vftr_iostat_kind_name(enum vftr_iostat_kind k);

struct vftr_iostat_row {
    uint32_t key;               /* file token, or function token (0: no call open) */
    uint64_t ops;               /* operations of every kind */
    uint64_t kind[VFTR_IOSTAT_NKINDS];
    uint64_t failed;            /* operations that failed (OTF_IOFLAG_IOFAILED) */
    uint64_t bytes_read, bytes_written;
    uint64_t time;              /* ticks in operations */
    uint64_t read_time, write_time;   /* ticks in reads, in writes */
};

struct vftr_iostat;

/* An accumulator for the window that starts at tick a.  NULL + errno. */
struct vftr_iostat *vftr_iostat_new(uint64_t a);
void vftr_iostat_free(struct vftr_iostat *s);     /* NULL-safe */

/* The handler to read the window with (borrowed until free). */
const struct vftr_window_handler *vftr_iostat_handler(struct vftr_iostat *s);

/* The rows so far, per file and per function, in order of first sight;
 * *total (may be NULL) gets all operations summed. */
const struct vftr_iostat_row *vftr_iostat_files(const struct vftr_iostat *s, size_t *n);
const struct vftr_iostat_row *vftr_iostat_functions(const struct vftr_iostat *s, size_t *n);
void vftr_iostat_total(const struct vftr_iostat *s, struct vftr_iostat_row *total);

/* Reads the window [a, b) of the processes procs (NULL: all) of src into
 * a new accumulator *out (free with vftr_iostat_free).  0 or -errno with
 * err. */
int vftr_iostat_read(struct vftr_source *src, uint64_t a, uint64_t b,
                     const struct vftr_proclist *procs, struct vftr_iostat **out, char *err,
                     size_t errlen);

#endif /* VFTR_MODEL_IOSTAT_H */
