/*
 * OTF_File.h — one file of a trace, plain or compressed, under a file manager.
 *
 * An OTF_File is opened for reading (OTF_FILEMODE_READ; OTF_FILEMODE_SEEK is
 * treated the same) or for writing (OTF_FILEMODE_WRITE).  Opening does not
 * take a file descriptor yet; the descriptor is opened on first access and
 * may be closed and reopened behind the caller's back by the file manager
 * (see OTF_FileManager.h).
 *
 * Plain and compressed files
 *   Writing: the file is compressed if and only if its name ends in ".z"
 *   (OTF_getFilename() appends the suffix when given a level 1..9; the file
 *   layer never adds it).  The compression level is the one passed to
 *   OTF_File_open_zlevel() (OTF_File_open() uses level 4).
 *   Reading: if a file of the given name exists it is read as it is; if not,
 *   the name + ".z" is opened and read decompressed.
 *
 * Compressed layout (what the reference OTF writes and reads): one zlib
 * stream per file.  Every OTF_File_write() call ends one independently
 * decodable segment: the text is deflated and a full flush appends the sync
 * marker 00 00 ff ff and resets the dictionary.  The stream is never finished
 * (no final block, no Adler-32), so that it can be appended to and so that
 * any streaming inflater returns the complete text.
 *
 * Positions (OTF_File_seek/tell/size) are byte offsets in the file on disk,
 * i.e. compressed offsets for compressed files.  Seeking a compressed file to
 * a position p > 0 makes the next read return text from the first segment
 * that starts at or after p; text is never returned from the middle of a
 * segment.
 *
 * Threads: an OTF_File is used by one thread at a time, together with its
 * manager.  The library may compress in a helper thread of its own; that is
 * invisible to the caller.
 */
#ifndef OTF_FILE_H
#define OTF_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "OTF_FileManager.h"
#include "OTF_Filenames.h"

#ifdef __cplusplus
extern "C" {
#endif

enum enum_OTF_FileMode {
    OTF_FILEMODE_NOTHING = 0,
    OTF_FILEMODE_READ = 1,
    OTF_FILEMODE_WRITE = 2,
    OTF_FILEMODE_SEEK = 3
};
typedef enum enum_OTF_FileMode OTF_FileMode;

enum enum_OTF_FileStatus {
    OTF_FILESTATUS_UNKNOWN = 0,   /* files reading from an external buffer */
    OTF_FILESTATUS_ACTIVE = 1,    /* holds a descriptor */
    OTF_FILESTATUS_SUSPENDED = 2, /* descriptor closed by the manager */
    OTF_FILESTATUS_CLOSED = 3     /* not opened yet */
};
typedef enum enum_OTF_FileStatus OTF_FileStatus;

/* Internal use: set every field of `o` to the state of a file that is not
 * open.  OTF_File is opaque, so only the library itself can use these. */
void OTF_File_init(OTF_File *o);

/* Internal use: release everything `o` owns (pending output is written, the
 * descriptor closed, the manager told) without freeing `o` itself. */
void OTF_File_finalize(OTF_File *o);

/* Opens `filename` through `manager` (which must not be NULL).  For writing,
 * a name ending in ".z" is written compressed at level 4.  For reading, the
 * file or else filename + ".z" must exist.  Returns NULL and sets otf_errno
 * on error; close with OTF_File_close(). */
OTF_File *OTF_File_open(const char *filename, OTF_FileManager *manager, OTF_FileMode mode);

/* As OTF_File_open(), with the compression level 0..9 used when writing a
 * ".z" file (0 stores the text uncompressed inside the zlib stream).  A level
 * above 9 for a ".z" name is an error.  `compression` is ignored for reading
 * and for names without ".z". */
OTF_File *OTF_File_open_zlevel(const char *filename, OTF_FileManager *manager,
                               OTF_FileMode mode, OTF_FileCompression compression);

/* Opens a read-only pseudo file on `len` bytes at `buffer`: plain text, or
 * with `is_compressed` a zlib stream as in a ".z" file.  The buffer is
 * borrowed, not copied: it must stay unchanged until OTF_File_close().  Read,
 * seek, tell and size work as for a file on disk; writing fails.  `mode` must
 * be READ or SEEK.  Such files belong to no manager; their status is
 * OTF_FILESTATUS_UNKNOWN. */
OTF_File *OTF_File_open_with_external_buffer(uint32_t len, const char *buffer,
                                             uint8_t is_compressed, OTF_FileMode mode);

/* Thin wrappers of rename(2), access(2) and unlink(2): 0 on success, -1 and
 * errno on failure. */
int OTF_File_rename(const char *from, const char *to);
int OTF_File_access(const char *filename, int mode);
int OTF_File_remove(const char *filename);

/* Removes `filename` if it exists: 0 if it is gone afterwards, -1 on error. */
int OTF_File_clean(const char *filename);

/* Appends `size` bytes of text.  On a compressed file the call ends a
 * segment (full flush).  Output is collected in the file's buffer
 * (OTF_File_setZBufferSize) and written when that is full, on suspend and on
 * close.  The first call creates (truncates) the file on disk.  Returns
 * `size`, or 0 with otf_errno set on error (not writable, wrong mode).  The
 * caller may reuse `ptr` at once; a segment compressed by a helper thread
 * that fails to compress or to reach the disk makes a later call (write,
 * tell, size or close) fail. */
size_t OTF_File_write(OTF_File *file, const void *ptr, size_t size);

/* Reads up to `size` bytes of (decompressed) text.  Returns the number of
 * bytes stored, 0 at the end of the data.  0 with otf_errno set reports an
 * error: I/O error, corrupt or truncated compressed data (text decoded before
 * the damage is returned first), wrong mode. */
size_t OTF_File_read(OTF_File *file, void *ptr, size_t size);

/* Moves the read position to byte offset `pos` of the file on disk (see the
 * top of this header for compressed files).  Positions past the end are
 * allowed: reads then return 0.  Returns 0 on success, -1 on error (file
 * opened for writing).  Note the return convention, that of fseek(). */
int OTF_File_seek(OTF_File *file, uint64_t pos);

/* The current position, as a byte offset of the file on disk.
 *   Plain file: the offset of the next byte read, or the number of bytes
 *   written so far.
 *   Compressed file being read: the offset where the segment containing the
 *   next unread text byte starts (0 for the first segment); when the text
 *   read so far ends exactly at the end of a segment, it may still be that
 *   segment's start.  So OTF_File_seek(f, OTF_File_tell(f)) never skips
 *   unread text; it returns again the text read from that segment.  After
 *   the end of the data: the offset behind the last segment.  Right after a
 *   seek (before the next read), the position sought.
 *   Compressed file being written: the compressed bytes produced so far
 *   (including those not yet written to disk).
 * Returns (uint64_t)-1 on error. */
uint64_t OTF_File_tell(OTF_File *file);

/* Size in bytes of the file on disk (compressed size for ".z" files; for a
 * file being written, the size it has once pending output is written).
 * Returns (uint64_t)-1 on error. */
uint64_t OTF_File_size(OTF_File *file);

/* Writes pending output, closes the descriptor and frees `file`.  Returns 1
 * on success, 0 if writing failed or `file` is NULL (the file is freed in
 * any case). */
int OTF_File_close(OTF_File *file);

/* ACTIVE, SUSPENDED, CLOSED (not opened yet) or UNKNOWN (external buffer). */
OTF_FileStatus OTF_File_status(OTF_File *file);

/* Internal use: suspend the file now, as its manager would. */
void OTF_File_suspend(OTF_File *file);

/* Internal use: make sure the file holds a descriptor, reopening it when
 * closed or suspended (`mode` is ignored: a file keeps the mode it was
 * opened with).  Returns 1 on success, 0 on error. */
int OTF_File_revive(OTF_File *file, OTF_FileMode mode);

/* Sets the size of the file's I/O buffer: compressed (or, for plain files
 * being written, plain) output is collected there before it is written, and
 * compressed input is read in chunks of up to this size.  Default
 * OTF_ZBUFFER_DEFAULTSIZE; 0 is ignored, sizes below 64 are raised to 64.
 * Pending output is written first. */
void OTF_File_setZBufferSize(OTF_File *file, uint32_t size);

/* Internal use: reads `length` bytes of a file that is not decompressed
 * (plain file or plain external buffer), exactly as OTF_File_read().  On a
 * file that is read decompressed it fails.  Returns the number of bytes read,
 * 0 at the end or on error. */
size_t OTF_File_read_internal(OTF_File *file, void *dest, size_t length);

/* Internal use: writes `length` raw bytes to the file at its end, bypassing
 * compression and the output buffer (pending output is written first).
 * Returns `length`, or 0 on error. */
size_t OTF_File_write_internal(OTF_File *file, const void *src, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* OTF_FILE_H */
