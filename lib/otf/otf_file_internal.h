/*
 * otf_file_internal.h — the insides of OTF_File and OTF_FileManager, shared
 * by file.c (descriptors, plain I/O, buffers), filemanager.c (LRU of open
 * files) and zfile.c (compression).  Not installed.
 *
 * Names: functions used only between these modules are vftr_file_*,
 * vftr_filemanager_* and vftr_zfile_*; they are not exported from libvftrotf.so (the version script
 * exports OTF_*, otf_* and vftr_otf_* only).
 */
#ifndef VFTR_OTF_FILE_INTERNAL_H
#define VFTR_OTF_FILE_INTERNAL_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "OTF_File.h"
#include "OTF_FileManager.h"

struct vftr_zenc; /* compressor of a ".z" file being written (zfile.c) */
struct vftr_zdec; /* decompressor of a ".z" file being read (zfile.c) */

struct struct_OTF_File {
    char *filename;            /* path on disk (owned); NULL for external buffers */
    int fd;                    /* -1 unless status is ACTIVE */
    OTF_FileMode mode;         /* READ (SEEK is stored as READ) or WRITE */
    OTF_FileStatus status;
    OTF_FileManager *manager;  /* NULL for external buffers and after detaching */
    int detached;              /* the manager was closed under this file */

    /* the manager's lists: open files (LRU order) and all files */
    OTF_File *lru_prev, *lru_next;
    OTF_File *all_prev, *all_next;
    int in_lru;

    int compressed;            /* ".z" data: deflated on write, inflated on read */
    int level;                 /* compression level 0..9 (write) */
    int created;               /* write: the file exists on disk (was truncated) */
    uint32_t zbufsize;         /* I/O buffer size (OTF_File_setZBufferSize) */

    /* Plain read: offset of the next byte.  Write: bytes accepted into the
     * file so far, plain or compressed (= on disk + pending). */
    uint64_t pos;

    /* write side: output waiting in obuf; ondisk bytes already written */
    unsigned char *obuf;
    size_t olen;
    uint64_t ondisk;
    struct vftr_zenc *enc;

    /* read side of ".z" data */
    struct vftr_zdec *dec;

    /* external buffer (borrowed) */
    const unsigned char *ext;
    uint64_t extlen;
};

struct struct_OTF_FileManager {
    uint32_t number;           /* limit of open descriptors */
    uint32_t count;            /* open descriptors now */
    OTF_File *lru_head;        /* most recently used open file */
    OTF_File *lru_tail;        /* least recently used: suspended first */
    OTF_File *all_head;        /* every file attached to this manager */
    uint32_t max_threads;      /* helper threads allowed (zfile.c) */
    uint32_t threads;          /* helper threads running now */
    /* bytes its files read from disk or exposed from their maps
     * (vftr_otf_manager_bytes_read); relaxed atomic: zfile.c's prefetch
     * threads add to it too */
    _Atomic uint64_t bytes_read;
    /* vftr_otf_manager_set_progress: the function, the bytes delivered
     * since it was last called, and whether it asked to stop (then every
     * read of the manager's files fails).  The reading thread's only. */
    int (*progress)(void *arg, uint64_t bytes);
    void *progress_arg;
    uint64_t progress_pending;
    int stopped;
};

/* Adds n to the bytes-read count of f's manager (if it has one). */
static inline void vftr_file_count_read(OTF_File *f, uint64_t n)
{
    if (f->manager != NULL)
        atomic_fetch_add_explicit(&f->manager->bytes_read, n, memory_order_relaxed);
}

/* Reports n bytes delivered to f's reader (plain or inflated) to its
 * manager's progress function, every VFTR_OTF_PROGRESS_STEP bytes.
 * Returns -1 (otf_errno set) once the function has asked to stop: the
 * caller fails the read.  The reading thread only. */
int vftr_file_progress(OTF_File *f, uint64_t n);

/* Whether f's manager was stopped by its progress function. */
static inline int vftr_file_stopped(const OTF_File *f)
{
    return f->manager != NULL && f->manager->stopped;
}

/* --- filemanager.c ---------------------------------------------------- */

/* Attaches a new file to `m` / detaches it (also from the LRU list if it is
 * open; its descriptor is not touched). */
void vftr_filemanager_attach(OTF_FileManager *m, OTF_File *f);
void vftr_filemanager_detach(OTF_FileManager *m, OTF_File *f);

/* A file may start a helper thread: 1 (counted) or 0 (limit reached).  The
 * caller's thread only.  `release` gives the slot back. */
int vftr_filemanager_thread_acquire(OTF_FileManager *m);
void vftr_filemanager_thread_release(OTF_FileManager *m);

/* --- file.c ----------------------------------------------------------- */

/* Makes sure `f` holds a descriptor (reviving it through its manager) and
 * marks it most recently used.  0 on success, -1 with otf_errno set. */
int vftr_file_activate(OTF_File *f);

/* Writes obuf to disk (activating the file).  0 or -1 with otf_errno set. */
int vftr_file_flush_out(OTF_File *f);

/* Writes pending output and closes the descriptor of an ACTIVE file without
 * telling the manager (the manager's own suspend path).  0 or -1 (the
 * descriptor is closed in any case). */
int vftr_file_close_fd(OTF_File *f);

/* Reads up to `n` raw bytes at offset `off` of the file or external buffer
 * (activating the file).  Returns the number read (0 at the end) or -1 with
 * otf_errno set. */
ssize_t vftr_file_pread(OTF_File *f, uint64_t off, void *dst, size_t n);

/* Maps a plain file on disk whole, private and writable (the reader's
 * parsers write string terminators into it; nothing reaches the file).
 * Returns the mapping, owned by the caller (munmap with *size), or NULL when
 * the file is compressed, an external buffer, empty, not a regular file or
 * cannot be mapped; the caller then reads it with copies. */
void *vftr_file_map(OTF_File *f, uint64_t *size);

/* Size of the raw data: external buffer length, or the file size on disk.
 * (uint64_t)-1 with otf_errno set on error. */
uint64_t vftr_file_raw_size(OTF_File *f);

/* Writes everything pending (also what helper threads hold) and stops the
 * helper threads, so that the file no longer needs its manager's
 * bookkeeping.  0 or -1. */
int vftr_file_quiesce(OTF_File *f);

/* Name for error messages ("external buffer" for those). */
const char *vftr_file_name(const OTF_File *f);

/* --- zfile.c ---------------------------------------------------------- */

/* Compressor for a file written at `level` 0..9.  NULL with otf_errno set. */
struct vftr_zenc *vftr_zfile_enc_new(OTF_File *f, int level);
void vftr_zfile_enc_free(struct vftr_zenc *e);

/* Compresses `n` bytes as one segment (ending with a full flush) into the
 * file's output buffer, flushing it to disk whenever it fills.  0 or -1. */
int vftr_zfile_write(OTF_File *f, const void *p, size_t n);

/* Makes sure every segment handed to vftr_zfile_write() has reached the
 * output buffer (a helper thread may still be compressing).  0 or -1. */
int vftr_zfile_sync(OTF_File *f);

/* Stops the helper threads of `f` (pending output is not collected: call
 * vftr_zfile_sync first when it matters).  Needed before the manager that
 * counts them goes away. */
void vftr_zfile_stop_helpers(OTF_File *f);

/* Decompressor for a ".z" file or compressed external buffer. */
struct vftr_zdec *vftr_zfile_dec_new(OTF_File *f);
void vftr_zfile_dec_free(struct vftr_zdec *d);

/* Reads up to `n` bytes of text; returns the count, 0 at the end or on error
 * (otf_errno tells them apart). */
size_t vftr_zfile_read(OTF_File *f, void *dst, size_t n);

/* Records a seek to compressed offset `pos` (resolved by the next read). */
void vftr_zfile_seek(OTF_File *f, uint64_t pos);

/* Seeks to `pos` at once and tells where decoding will start: the offset
 * right after the first candidate sync marker at or after pos (0 for pos 0),
 * or UINT64_MAX when there is none.  Scans compressed bytes, decodes
 * nothing.  0, or -1 on an I/O error (otf_errno set). */
int vftr_zfile_locate(OTF_File *f, uint64_t pos, uint64_t *sync);

/* See OTF_File_tell() in OTF_File.h. */
uint64_t vftr_zfile_tell(OTF_File *f);

/* The input buffer size changed: takes effect at the next refill. */
void vftr_zfile_dec_resize(OTF_File *f);

#endif /* VFTR_OTF_FILE_INTERNAL_H */
