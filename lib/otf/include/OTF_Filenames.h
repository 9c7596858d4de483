/*
 * OTF_Filenames.h — the names of the files that make up a trace.
 *
 * A trace "foo" consists of foo.otf (master control file), foo.<s>.def,
 * foo.<s>.events, foo.<s>.snaps, foo.<s>.stats and foo.<s>.marker, where <s>
 * is the stream id in lower-case hex without leading zeros; every file except
 * the master may carry a ".z" suffix when it is compressed.  The functions
 * here build and take apart those names; they touch no state and may be
 * called from any thread.
 */
#ifndef OTF_FILENAMES
#define OTF_FILENAMES

#include "OTF_inttypes.h"
#include "OTF_Definitions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* File types: exactly one of these bits selects the kind of file.  The low
 * four bits of the same word may carry a compression level (below). */
#define OTF_FILETYPE_MASTER     16
#define OTF_FILETYPE_GLOBAL_DEF 32
#define OTF_FILETYPE_DEF        64
#define OTF_FILETYPE_EVENT      128
#define OTF_FILETYPE_SNAPS      256
#define OTF_FILETYPE_STATS      512
#define OTF_FILETYPE_MARKER     1024
#define OTF_FILETYPE_IOFSL_ALL  2048
#define OTF_FILETYPE_IOFSL_IDX  4096
#define OTF_FILETYPE_BITS       (16 + 32 + 64 + 128 + 256 + 512 + 1024)
typedef uint32_t OTF_FileType;

/* Compression: a zlib level 0..9.  0 means "not compressed"; 1..9 means
 * compressed with that effort (files get the ".z" suffix). */
#define OTF_FILECOMPRESSION_UNCOMPRESSED 0
#define OTF_FILECOMPRESSION_COMPRESSED   4
#define OTF_FILECOMPRESSION_BITS         (1 + 2 + 4 + 8)
typedef uint32_t OTF_FileCompression;

/* Builds the name of one file of the trace `namestub`.
 *
 * `type` is one OTF_FILETYPE_* bit, optionally or-ed with a compression level
 * (OTF_FILECOMPRESSION_BITS); a level 1..9 appends ".z" (never to the master
 * file).  `id` is the stream id (ignored for the master and global definition
 * files).  Bits above OTF_FILETYPE_BITS are ignored.
 *
 * Storage: if `l` is 0 or `ret` is NULL, the name is returned in a new
 * malloc()ed string that the caller frees.  Otherwise the name is written to
 * `ret`, which holds `l` bytes; a longer name is cut to l-1 bytes (always
 * NUL-terminated), and `ret` is returned.
 *
 * Returns NULL (and sets otf_errno) if `namestub` is NULL, if `type` names no
 * or several file types, or for the IOFSL types, which vftr does not support. */
char *OTF_getFilename(const char *namestub, uint32_t id, OTF_FileType type,
                      unsigned int l, char *ret);

/* Returns a malloc()ed copy of `filename` without a trailing ".otf" (the
 * caller frees it).  Returns NULL if `filename` is NULL or if nothing would
 * be left ("" and ".otf"). */
char *OTF_stripFilename(const char *filename);

/* Deprecated: 1 if a file (or directory) named `filename` exists, else 0. */
int OTF_fileExists(const char *filename);

#ifdef __cplusplus
}
#endif

#endif /* OTF_FILENAMES */
