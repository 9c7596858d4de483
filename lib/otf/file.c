/*
 * file.c — OTF_File: descriptors under a file manager, plain I/O, the output
 * buffer, and the dispatch to zfile.c for compressed data.
 *
 * Descriptors are opened lazily (on the first access, not at open time) so
 * that a writer with many streams or a reader with many files uses no more
 * descriptors than the manager allows; the manager may close any of them at
 * any time (vftr_file_close_fd) and every access goes through
 * vftr_file_activate, which reopens.  Because of that, reads use pread() at
 * an offset we keep ourselves: nothing depends on a descriptor's position.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "OTF_File.h"
#include "otf_internal.h"
#include "otf_file_internal.h"
#include "util/regfile.h"

#define MIN_ZBUFSIZE 64
/* Plain writes at least this big go straight to the file. */
#define DIRECT_WRITE_MIN (64 * 1024)

/* Stands in for the data of an empty external buffer given as NULL. */
static const unsigned char empty_buffer[1];

static int has_z_suffix(const char *name)
{
    size_t n = strlen(name);
    return n >= 2 && name[n - 2] == '.' && name[n - 1] == 'z';
}

const char *vftr_file_name(const OTF_File *f)
{
    return f->filename ? f->filename : "external buffer";
}

void OTF_File_init(OTF_File *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->status = OTF_FILESTATUS_CLOSED;
    o->zbufsize = OTF_ZBUFFER_DEFAULTSIZE;
}

/* --- descriptors --------------------------------------------------------- */

int vftr_file_activate(OTF_File *f)
{
    if (f->ext)
        return 0;
    if (f->status == OTF_FILESTATUS_ACTIVE) {
        if (f->manager)
            OTF_FileManager_touchFile(f->manager, f);
        return 0;
    }
    if (!f->manager) {
        vftr_otf_seterr("%s: cannot reopen: %s", vftr_file_name(f),
                        f->detached ? "its file manager was closed" : "no file manager");
        return -1;
    }
    if (!OTF_FileManager_guaranteeFile(f->manager)) {
        vftr_otf_seterr("%s: the file manager cannot free a descriptor", vftr_file_name(f));
        return -1;
    }
    int flags = O_CLOEXEC;
    if (f->mode == OTF_FILEMODE_WRITE)
        flags |= O_WRONLY | O_CREAT | (f->created ? O_APPEND : O_TRUNC);
    else
        flags |= O_RDONLY;
    /* a FIFO or a device in the file's place is refused, never waited on */
    const char *kind;
    int fd = vftr_open_regular(f->filename, flags, 0666, &kind);
    if (fd < 0) {
        if (kind)
            vftr_otf_seterr("%s: cannot open for %s: it is %s, expected a regular file",
                            f->filename, f->mode == OTF_FILEMODE_WRITE ? "writing" : "reading",
                            kind);
        else
            vftr_otf_seterr("%s: cannot open for %s: %s", f->filename,
                            f->mode == OTF_FILEMODE_WRITE ? "writing" : "reading", strerror(-fd));
        return -1;
    }
    f->fd = fd;
    f->created = 1;
    f->status = OTF_FILESTATUS_ACTIVE;
    OTF_FileManager_registerFile(f->manager, f);
    return 0;
}

/* Writes all of p[0..n) at the end of the file; the descriptor must be open.
 * On failure the bytes that did get written are counted in *done. */
static int write_all(OTF_File *f, const unsigned char *p, size_t n, size_t *done)
{
    size_t off = 0;
    while (off < n) {
        ssize_t k = write(f->fd, p + off, n - off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            vftr_otf_seterr("%s: offset %llu: write failed: %s", f->filename,
                            (unsigned long long)(f->ondisk + off), strerror(errno));
            f->ondisk += off;
            *done = off;
            return -1;
        }
        off += (size_t)k;
    }
    f->ondisk += n;
    *done = n;
    return 0;
}

/* Writes obuf with the descriptor that is open now.  What could not be
 * written stays buffered, so that a later flush may still succeed (e.g. after
 * space was freed on the disk). */
static int flush_open(OTF_File *f)
{
    size_t done = 0;
    int rc = write_all(f, f->obuf, f->olen, &done);
    if (done < f->olen)
        memmove(f->obuf, f->obuf + done, f->olen - done);
    f->olen -= done;
    return rc;
}

int vftr_file_flush_out(OTF_File *f)
{
    if (f->olen == 0)
        return 0;
    if (vftr_file_activate(f) < 0)
        return -1;
    return flush_open(f);
}

int vftr_file_close_fd(OTF_File *f)
{
    int rc = 0;
    if (f->fd < 0)
        return 0;
    if (f->mode == OTF_FILEMODE_WRITE) {
        /* The compressor may still hold segments; they must reach the
         * descriptor before it goes.  vftr_zfile_sync may flush through
         * vftr_file_flush_out, which finds the file still ACTIVE. */
        if (f->enc && vftr_zfile_sync(f) < 0)
            rc = -1;
        if (f->olen && flush_open(f) < 0)
            rc = -1;
    }
    if (close(f->fd) < 0 && f->mode == OTF_FILEMODE_WRITE && errno != EINTR) {
        vftr_otf_seterr("%s: close failed: %s", f->filename, strerror(errno));
        rc = -1;
    }
    f->fd = -1;
    f->status = OTF_FILESTATUS_SUSPENDED;
    return rc;
}

ssize_t vftr_file_pread(OTF_File *f, uint64_t off, void *dst, size_t n)
{
    if (f->ext) {
        if (off >= f->extlen)
            return 0;
        uint64_t left = f->extlen - off;
        size_t k = left < n ? (size_t)left : n;
        memcpy(dst, f->ext + off, k);
        return (ssize_t)k;
    }
    if (vftr_file_activate(f) < 0)
        return -1;
    if (n > SSIZE_MAX)
        n = SSIZE_MAX;
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(f->fd, (unsigned char *)dst + got, n - got, (off_t)(off + got));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            vftr_otf_seterr("%s: offset %llu: read failed: %s", f->filename,
                            (unsigned long long)(off + got), strerror(errno));
            return -1;
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    vftr_file_count_read(f, got);
    return (ssize_t)got;
}

uint64_t vftr_file_raw_size(OTF_File *f)
{
    struct stat st;
    if (f->ext)
        return f->extlen;
    int rc = f->fd >= 0 ? fstat(f->fd, &st) : stat(f->filename, &st);
    if (rc < 0) {
        vftr_otf_seterr("%s: cannot get the size: %s", f->filename, strerror(errno));
        return (uint64_t)-1;
    }
    return (uint64_t)st.st_size;
}

int vftr_file_quiesce(OTF_File *f)
{
    int rc = 0;
    if (f->mode == OTF_FILEMODE_WRITE && !f->ext) {
        if (f->enc && vftr_zfile_sync(f) < 0)
            rc = -1;
        if (f->olen && vftr_file_flush_out(f) < 0)
            rc = -1;
    }
    vftr_zfile_stop_helpers(f);
    return rc;
}

/* --- open / close ---------------------------------------------------------- */

/* Writes what is pending and lets go of everything except the struct. */
static int file_release(OTF_File *f)
{
    int rc = vftr_file_quiesce(f);
    if (f->manager)
        vftr_filemanager_detach(f->manager, f);
    if (f->fd >= 0 && vftr_file_close_fd(f) < 0)
        rc = -1;
    vftr_zfile_enc_free(f->enc);
    vftr_zfile_dec_free(f->dec);
    free(f->obuf);
    free(f->filename);
    OTF_File_init(f);
    return rc;
}

void OTF_File_finalize(OTF_File *o)
{
    if (o)
        (void)file_release(o);
}

OTF_File *OTF_File_open_zlevel(const char *filename, OTF_FileManager *manager,
                               OTF_FileMode mode, OTF_FileCompression compression)
{
    if (!filename) {
        vftr_otf_seterr("open: no file name given");
        return NULL;
    }
    if (!manager) {
        vftr_otf_seterr("%s: cannot open: no file manager given", filename);
        return NULL;
    }
    if (mode != OTF_FILEMODE_READ && mode != OTF_FILEMODE_SEEK && mode != OTF_FILEMODE_WRITE) {
        vftr_otf_seterr("%s: cannot open: illegal mode %d", filename, (int)mode);
        return NULL;
    }
    OTF_File *f = malloc(sizeof *f);
    if (!f) {
        vftr_otf_seterr("%s: out of memory", filename);
        return NULL;
    }
    OTF_File_init(f);
    size_t len = strlen(filename);
    f->filename = malloc(len + 3);
    if (!f->filename)
        goto nomem;
    memcpy(f->filename, filename, len + 1);

    if (mode == OTF_FILEMODE_WRITE) {
        f->mode = OTF_FILEMODE_WRITE;
        /* The caller's name decides (OTF_getFilename added ".z" for a level
         * 1..9); the level only says how hard to work. */
        f->compressed = has_z_suffix(filename);
        if (f->compressed && compression > 9) {
            vftr_otf_seterr("%s: illegal compression level %u (0..9)", filename,
                            (unsigned)compression);
            goto fail;
        }
        f->level = (int)compression;
    } else {
        f->mode = OTF_FILEMODE_READ;
        if (access(filename, F_OK) != 0) {
            memcpy(f->filename + len, ".z", 3);
            if (access(f->filename, F_OK) != 0) {
                vftr_otf_seterr("%s: cannot open for reading: no such file (nor %s.z)",
                                filename, filename);
                goto fail;
            }
            f->compressed = 1;
            f->dec = vftr_zfile_dec_new(f);
            if (!f->dec)
                goto fail;
        }
    }
    vftr_filemanager_attach(manager, f);
    return f;

nomem:
    vftr_otf_seterr("%s: out of memory", filename);
fail:
    free(f->filename);
    free(f);
    return NULL;
}

OTF_File *OTF_File_open(const char *filename, OTF_FileManager *manager, OTF_FileMode mode)
{
    return OTF_File_open_zlevel(filename, manager, mode, OTF_FILECOMPRESSION_COMPRESSED);
}

OTF_File *OTF_File_open_with_external_buffer(uint32_t len, const char *buffer,
                                             uint8_t is_compressed, OTF_FileMode mode)
{
    if (mode != OTF_FILEMODE_READ && mode != OTF_FILEMODE_SEEK) {
        vftr_otf_seterr("external buffer: only reading is possible (mode %d)", (int)mode);
        return NULL;
    }
    if (!buffer && len > 0) {
        vftr_otf_seterr("external buffer: NULL buffer of %u bytes", (unsigned)len);
        return NULL;
    }
    OTF_File *f = malloc(sizeof *f);
    if (!f) {
        vftr_otf_seterr("external buffer: out of memory");
        return NULL;
    }
    OTF_File_init(f);
    f->mode = OTF_FILEMODE_READ;
    f->status = OTF_FILESTATUS_UNKNOWN;
    f->ext = buffer ? (const unsigned char *)buffer : empty_buffer;
    f->extlen = len;
    if (is_compressed) {
        f->compressed = 1;
        f->dec = vftr_zfile_dec_new(f);
        if (!f->dec) {
            free(f);
            return NULL;
        }
    }
    return f;
}

int OTF_File_close(OTF_File *file)
{
    if (!file) {
        vftr_otf_seterr("close: no file given");
        return 0;
    }
    int rc = file_release(file);
    free(file);
    return rc == 0;
}

/* --- helpers on file names ------------------------------------------------ */

int OTF_File_rename(const char *from, const char *to)
{
    return rename(from, to);
}

int OTF_File_access(const char *filename, int mode)
{
    return access(filename, mode);
}

int OTF_File_remove(const char *filename)
{
    return unlink(filename);
}

int OTF_File_clean(const char *filename)
{
    if (unlink(filename) == 0 || errno == ENOENT)
        return 0;
    return -1;
}

/* --- data ------------------------------------------------------------------ */

static int check_mode(OTF_File *f, OTF_FileMode want, const char *what)
{
    if (!f) {
        vftr_otf_seterr("%s: no file given", what);
        return -1;
    }
    if (f->mode != want) {
        vftr_otf_seterr("%s: cannot %s: the file is opened for %s", vftr_file_name(f), what,
                        f->mode == OTF_FILEMODE_WRITE ? "writing" : "reading");
        return -1;
    }
    return 0;
}

size_t OTF_File_write(OTF_File *file, const void *ptr, size_t size)
{
    OTF_File *f = file;
    if (check_mode(f, OTF_FILEMODE_WRITE, "write") < 0)
        return 0;
    if (size == 0)
        return 0;
    /* The first write creates (and truncates) the file, so that a file that
     * cannot be created is reported at once, not at close. */
    if (!f->created && vftr_file_activate(f) < 0)
        return 0;
    if (!f->obuf) {
        f->obuf = malloc(f->zbufsize);
        if (!f->obuf) {
            vftr_otf_seterr("%s: out of memory", f->filename);
            return 0;
        }
    }
    if (f->compressed) {
        if (!f->enc) {
            f->enc = vftr_zfile_enc_new(f, f->level);
            if (!f->enc)
                return 0;
        }
        return vftr_zfile_write(f, ptr, size) < 0 ? 0 : size;
    }
    /* Large blocks bypass the buffer: whole buffers of a writer stream, say
     * (copying them first would only cost time). */
    if (size > f->zbufsize - f->olen || (f->olen == 0 && size >= DIRECT_WRITE_MIN)) {
        if (vftr_file_flush_out(f) < 0)
            return 0;
        if (size >= f->zbufsize || size >= DIRECT_WRITE_MIN) {
            size_t done = 0;
            if (vftr_file_activate(f) < 0)
                return 0;
            int rc = write_all(f, ptr, size, &done);
            f->pos += done;
            return rc < 0 ? 0 : size;
        }
    }
    memcpy(f->obuf + f->olen, ptr, size);
    f->olen += size;
    f->pos += size;
    return size;
}

static size_t plain_read(OTF_File *f, void *ptr, size_t size)
{
    ssize_t k = vftr_file_pread(f, f->pos, ptr, size);
    if (k < 0)
        return 0;
    f->pos += (uint64_t)k;
    return (size_t)k;
}

void *vftr_file_map(OTF_File *f, uint64_t *size)
{
    struct stat st;
    if (f == NULL || f->compressed || f->ext != NULL || f->mode != OTF_FILEMODE_READ)
        return NULL;
    if (vftr_file_activate(f) < 0) {
        vftr_otf_clearerr();    /* not an error here: the caller reads instead */
        return NULL;
    }
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > (uint64_t)SIZE_MAX)
        return NULL;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, f->fd, 0);
    if (p == MAP_FAILED)
        return NULL;
    *size = (uint64_t)st.st_size;
    return p;
}

size_t OTF_File_read(OTF_File *file, void *ptr, size_t size)
{
    if (check_mode(file, OTF_FILEMODE_READ, "read") < 0)
        return 0;
    if (size == 0 || vftr_file_progress(file, 0) < 0)
        return 0;
    size_t got = file->compressed ? vftr_zfile_read(file, ptr, size)
                                  : plain_read(file, ptr, size);
    /* what the parser gets, inflated: a compressed file costs its output */
    if (vftr_file_progress(file, got) < 0)
        return 0;
    return got;
}

size_t OTF_File_read_internal(OTF_File *file, void *dest, size_t length)
{
    if (check_mode(file, OTF_FILEMODE_READ, "read") < 0)
        return 0;
    if (file->compressed) {
        vftr_otf_seterr("%s: raw reads of compressed data are not supported",
                        vftr_file_name(file));
        return 0;
    }
    return length ? plain_read(file, dest, length) : 0;
}

size_t OTF_File_write_internal(OTF_File *file, const void *src, size_t length)
{
    OTF_File *f = file;
    if (check_mode(f, OTF_FILEMODE_WRITE, "write") < 0)
        return 0;
    if (length == 0)
        return 0;
    if (f->enc && vftr_zfile_sync(f) < 0)
        return 0;
    if (vftr_file_flush_out(f) < 0 || vftr_file_activate(f) < 0)
        return 0;
    size_t done = 0;
    int rc = write_all(f, src, length, &done);
    f->pos += done;
    return rc < 0 ? 0 : length;
}

int OTF_File_seek(OTF_File *file, uint64_t pos)
{
    if (check_mode(file, OTF_FILEMODE_READ, "seek") < 0)
        return -1;
    if (file->compressed)
        vftr_zfile_seek(file, pos);
    else
        file->pos = pos;
    return 0;
}

uint64_t OTF_File_tell(OTF_File *file)
{
    if (!file) {
        vftr_otf_seterr("tell: no file given");
        return (uint64_t)-1;
    }
    if (file->mode == OTF_FILEMODE_WRITE) {
        if (file->enc && vftr_zfile_sync(file) < 0)
            return (uint64_t)-1;
        return file->pos;
    }
    return file->compressed ? vftr_zfile_tell(file) : file->pos;
}

uint64_t OTF_File_size(OTF_File *file)
{
    if (!file) {
        vftr_otf_seterr("size: no file given");
        return (uint64_t)-1;
    }
    if (file->mode == OTF_FILEMODE_WRITE) {
        if (file->enc && vftr_zfile_sync(file) < 0)
            return (uint64_t)-1;
        return file->ondisk + file->olen;
    }
    return vftr_file_raw_size(file);
}

OTF_FileStatus OTF_File_status(OTF_File *file)
{
    if (!file)
        return OTF_FILESTATUS_UNKNOWN;
    return file->status;
}

void OTF_File_suspend(OTF_File *file)
{
    if (!file || file->ext || file->status != OTF_FILESTATUS_ACTIVE)
        return;
    if (file->manager)
        OTF_FileManager_suspendFile(file->manager, file);
    else
        (void)vftr_file_close_fd(file);
}

int OTF_File_revive(OTF_File *file, OTF_FileMode mode)
{
    (void)mode;
    if (!file) {
        vftr_otf_seterr("revive: no file given");
        return 0;
    }
    return vftr_file_activate(file) == 0;
}

void OTF_File_setZBufferSize(OTF_File *file, uint32_t size)
{
    OTF_File *f = file;
    if (!f || size == 0)
        return;
    if (size < MIN_ZBUFSIZE)
        size = MIN_ZBUFSIZE;
    if (f->mode == OTF_FILEMODE_WRITE && !f->ext) {
        if (f->enc)
            (void)vftr_zfile_sync(f);
        (void)vftr_file_flush_out(f);
        if (f->olen == 0) {
            /* Reallocated at the next write. */
            free(f->obuf);
            f->obuf = NULL;
            f->zbufsize = size;
        }
        return;
    }
    f->zbufsize = size;
    if (f->dec)
        vftr_zfile_dec_resize(f);
}
