/*
 * OTF_FileManager.h — limits how many files of a trace are open at once.
 *
 * Every OTF_File belongs to a file manager.  The manager allows at most
 * `number` of its files to hold an operating-system file descriptor at the
 * same time.  When one more is needed, the least recently used open file is
 * suspended: its pending output is written, its descriptor closed and its
 * position remembered.  The next access to a suspended file revives it
 * transparently (a file being written is reopened for appending; a file being
 * read continues where it stopped; compressed files keep their
 * (de)compressor state in memory while suspended).
 *
 * Threads: a manager and all of its files must be used by one thread at a
 * time; different managers are independent.
 *
 * IOFSL (I/O forwarding servers) is not supported by vftr: the functions
 * exist so that programs compile, and report that it is disabled.
 */
#ifndef OTF_FILEMANAGER_H
#define OTF_FILEMANAGER_H

#include "OTF_inttypes.h"
#include "OTF_Definitions.h"

#ifdef __cplusplus
extern "C" {
#endif

struct struct_OTF_File;
typedef struct struct_OTF_File OTF_File;
typedef struct struct_OTF_File_iofsl OTF_File_iofsl;

struct struct_OTF_FileManager;
typedef struct struct_OTF_FileManager OTF_FileManager;

/* Creates a manager that keeps at most `number` files open.  `number` 0 is
 * rejected with an error message and the default of 10 is used instead (the
 * manager is still returned).  Returns NULL only when out of memory.  Free
 * with OTF_FileManager_close(). */
OTF_FileManager *OTF_FileManager_open(uint32_t number);

/* Frees the manager.  Close its files first: files still attached are
 * suspended and detached, and any later access to them fails with an error
 * instead of touching freed memory.  NULL is ignored. */
void OTF_FileManager_close(OTF_FileManager *m);

/* Number of files that currently hold a descriptor. */
uint32_t OTF_FileManager_getCount(OTF_FileManager *m);

/* The limit of simultaneously open files. */
uint32_t OTF_FileManager_getNumber(OTF_FileManager *m);

/* Changes the limit and returns the limit now in force.  0 is rejected (error
 * message, limit unchanged).  Lowering the limit below the current count
 * closes nothing at once; files are suspended as others are opened. */
uint32_t OTF_FileManager_setNumber(OTF_FileManager *m, uint32_t number);

/* Makes room for one more open file, suspending the least recently used one
 * if the limit is reached.  Returns 1 on success, 0 on error. */
int OTF_FileManager_guaranteeFile(OTF_FileManager *m);

/* Records `file` (whose descriptor has just been opened) as open and most
 * recently used.  Returns 1 on success, 0 if it is already registered or
 * belongs to another manager. */
int OTF_FileManager_registerFile(OTF_FileManager *m, OTF_File *file);

/* Marks the open `file` as most recently used.  Returns 1 on success, 0 if
 * the file is not open (suspended or never opened). */
int OTF_FileManager_touchFile(OTF_FileManager *m, OTF_File *file);

/* Suspends the open `file` now (writes pending output, closes the
 * descriptor).  Returns 1 on success, 0 if it was not open or writing its
 * pending output failed. */
int OTF_FileManager_suspendFile(OTF_FileManager *m, OTF_File *file);

/* IOFSL is not supported: always returns 0 and sets otf_errno. */
int OTF_FileManager_setIofsl(OTF_FileManager *m, uint32_t server_num, char **server_list,
                             OTF_IofslMode mode, uint32_t flags,
                             uint32_t index_buffer_length, uint32_t streamid_bits);

/* Reports IOFSL as disabled: stores 0 / NULL / OTF_IOFSL_DISABLED into every
 * non-NULL output and returns 0. */
int OTF_FileManager_getIofsl(OTF_FileManager *m, uint32_t *server_num, char ***server_list,
                             OTF_IofslMode *mode, uint32_t *flags,
                             uint32_t *index_buffer_length, uint32_t *streamid_bits);

/* Always 0: IOFSL is never enabled. */
int OTF_FileManager_isIofsl(OTF_FileManager *m);

/* vftr extension (not in the reference OTF).  Compressed files of this
 * manager may be deflated / inflated ahead in helper threads, while the
 * caller formats or parses; all file I/O stays in the caller's thread.  At
 * most `n` files of the manager use a helper thread at a time; 0 turns the
 * helpers off (every file is then compressed in the caller's thread).  The
 * default is 2 x the number of online CPUs, or 0 on a machine
 * with one CPU.  Returns the previous limit.  Takes effect for files that
 * start a helper after the call. */
uint32_t vftr_otf_filemanager_set_threads(OTF_FileManager *m, uint32_t n);

/* vftr extension: bytes the files of manager m have read from disk (or, for
 * memory-mapped files, handed to the parser from the map) since m was
 * opened.  Monotonic: take differences to measure one operation.  A file
 * read twice counts twice.  0 for NULL m.  Safe to call from any thread. */
uint64_t vftr_otf_manager_bytes_read(OTF_FileManager *m);

/* vftr extension: progress, and a way to stop, for reads that take long (a
 * compressed file that inflates a thousandfold, a huge trace).  fn (NULL:
 * none) is called in the thread that reads the files of m, every
 * VFTR_OTF_PROGRESS_STEP bytes they deliver to the parser (bytes read from
 * disk or exposed from a map, bytes inflated from compressed files), with
 * the number delivered since its last call.  When it returns non-zero,
 * every read of m's files fails from then on (otf_errno "<file>: reading
 * was stopped"; the reader returns OTF_READ_ERROR) until this function is
 * called again.  The function must not use m.  A manager's files are read
 * by one thread at a time (the rule of every OTF object). */
#define VFTR_OTF_PROGRESS_STEP (4u << 20)
void vftr_otf_manager_set_progress(OTF_FileManager *m, int (*fn)(void *arg, uint64_t bytes),
                                   void *arg);

/* vftr extension: 1 when the progress function of m stopped its reads. */
int vftr_otf_manager_stopped(OTF_FileManager *m);

#ifdef __cplusplus
}
#endif

#endif /* OTF_FILEMANAGER_H */
