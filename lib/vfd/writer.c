/*
 * writer.c — appends encoded chunks to a .vfd file and keeps its header.
 *
 * Many threads (and a signal handler) may put chunks at once.  Each put
 * reserves its byte range with one atomic add on the file offset and writes
 * it with pwrite, so chunks never interleave and nobody waits for a lock.
 * The price is that a put killed half-way leaves a hole (or a partial
 * chunk) that later chunks sit behind; the reader skips it by looking for
 * the next chunk header, whose own CRC tells a real header from payload
 * bytes that happen to spell the magic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>

#include "vfd_internal.h"
#include "vftr_vfd.h"

struct vftr_vfd_writer {
    int fd;
    _Atomic uint64_t offset;   /* end of the reserved data: next put goes here */
    _Atomic uint64_t events;   /* events of successful puts */
    _Atomic uint64_t chunks;   /* successful puts */
    _Atomic int first_error;   /* first -errno of a put, 0 */
    struct vftr_vfd_info info; /* what the header says besides the counts */
};

/* Header bytes from info, the writer's counts and flags. */
static void encode_header(uint8_t *h, const struct vftr_vfd_info *in, uint64_t events,
                          uint64_t chunks, uint64_t bytes, uint32_t flags)
{
    memset(h, 0, VFTR_VFD_HEADER_SIZE);
    memcpy(h + VFD_H_MAGIC, VFD_MAGIC, VFD_MAGIC_LEN);
    vfd_put32(h + VFD_H_VERSION, VFTR_VFD_VERSION);
    vfd_put32(h + VFD_H_HEADER_SIZE, VFTR_VFD_HEADER_SIZE);
    if (in->capped)
        flags |= VFD_FLAG_CAPPED;
    vfd_put32(h + VFD_H_FLAGS, flags);
    memcpy(h + VFD_H_RUN_ID, in->run_id, sizeof in->run_id);
    vfd_put64(h + VFD_H_PID, (uint64_t)in->pid);
    vfd_put32(h + VFD_H_RANK, (uint32_t)in->rank);
    vfd_put32(h + VFD_H_SIZE, (uint32_t)in->size);
    vfd_put64(h + VFD_H_TPS, in->ticks_per_second);
    vfd_put64(h + VFD_H_START_NS, in->start_ns);
    vfd_put64(h + VFD_H_START_TICKS, in->start_ticks);
    vfd_put64(h + VFD_H_END_NS, in->end_ns);
    vfd_put64(h + VFD_H_END_TICKS, in->end_ticks);
    vfd_put64(h + VFD_H_EVENTS, events);
    vfd_put64(h + VFD_H_CHUNKS, chunks);
    vfd_put64(h + VFD_H_BYTES, bytes);
    vfd_put32(h + VFD_H_SIGNAL, (uint32_t)in->signal);
    vfd_put64(h + VFD_H_EVENTS_LOST, in->events_lost);
    vfd_put64(h + VFD_H_SAMPLE_TICKS, in->sample_ticks);
    /* strnlen keeps the last byte of each field a NUL. */
    memcpy(h + VFD_H_HOST, in->host, strnlen(in->host, VFTR_VFD_HOST_MAX - 1));
    memcpy(h + VFD_H_EXE, in->exe, strnlen(in->exe, VFTR_VFD_EXE_MAX - 1));
    vfd_put32(h + VFD_H_CRC, vftr_vfd_crc32c(0, h, VFTR_VFD_HEADER_SIZE));
}

/* pwrite all of buf at off: retries short writes and EINTR.  0 or -errno.
 * A write that makes no progress without an error is reported as -EIO. */
static int pwrite_all(int fd, const uint8_t *buf, size_t len, uint64_t off)
{
    while (len) {
        ssize_t k = pwrite(fd, buf, len, (off_t)off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (k == 0)
            return -EIO;
        buf += k;
        len -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

static int write_header(struct vftr_vfd_writer *w, uint32_t flags)
{
    uint8_t h[VFTR_VFD_HEADER_SIZE];
    encode_header(h, &w->info, atomic_load(&w->events), atomic_load(&w->chunks),
                  atomic_load(&w->offset), flags);
    return pwrite_all(w->fd, h, sizeof h, 0);
}

struct vftr_vfd_writer *vftr_vfd_writer_open(const char *path, const struct vftr_vfd_info *info)
{
    if (!path || !info) {
        errno = EINVAL;
        return NULL;
    }
    struct vftr_vfd_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->info = *info;
    w->info.complete = w->info.abandoned = 0;
    atomic_init(&w->offset, VFTR_VFD_HEADER_SIZE);
    atomic_init(&w->events, 0);
    atomic_init(&w->chunks, 0);
    atomic_init(&w->first_error, 0);
    w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        int e = errno;
        free(w);
        errno = e;
        return NULL;
    }
    int rc = write_header(w, 0);
    if (rc < 0) {
        /* Leave no half-made file behind: the caller may retry elsewhere. */
        close(w->fd);
        unlink(path);
        free(w);
        errno = -rc;
        return NULL;
    }
    return w;
}

int vftr_vfd_writer_put(struct vftr_vfd_writer *w, const uint8_t *chunk, size_t len)
{
    if (!w || (len && !chunk))
        return -EINVAL;
    if (!len)
        return 0;
    if (len < VFTR_VFD_CHUNK_HEADER_SIZE || memcmp(chunk, VFD_CHUNK_MAGIC, 4) != 0 ||
        len != VFTR_VFD_CHUNK_HEADER_SIZE + (size_t)vfd_get32(chunk + VFD_C_LENGTH))
        return -EINVAL;
    int saved = errno; /* a signal handler must leave errno as it found it */
    uint64_t off = atomic_fetch_add(&w->offset, (uint64_t)len);
    int rc = pwrite_all(w->fd, chunk, len, off);
    if (rc < 0) {
        int none = 0;
        uint64_t end = off + len;

        atomic_compare_exchange_strong(&w->first_error, &none, rc);
        /* Give back what the cut chunk took (a full disk is usually why it
         * was cut): the last chunk reserved is cut off the file, and its
         * offset is free again; one with chunks reserved after it becomes
         * a hole, which a reader skips. */
        if (atomic_compare_exchange_strong(&w->offset, &end, off))
            (void)ftruncate(w->fd, (off_t)off);
        else
            (void)fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
                            (off_t)len);
        errno = saved;
        return rc;
    }
    errno = saved;
    if (vfd_get16(chunk + VFD_C_KIND) == VFTR_VFD_CHUNK_EVENTS)
        atomic_fetch_add(&w->events, vfd_get32(chunk + VFD_C_COUNT));
    atomic_fetch_add(&w->chunks, 1);
    return 0;
}

void vftr_vfd_writer_update(struct vftr_vfd_writer *w, const struct vftr_vfd_info *info)
{
    if (w && info)
        w->info = *info;
}

int vftr_vfd_writer_sync(struct vftr_vfd_writer *w)
{
    if (!w)
        return -EINVAL;
    int saved = errno; /* a signal handler must leave errno as it found it */
    int rc = write_header(w, 0);
    errno = saved;
    return rc;
}

int vftr_vfd_writer_close(struct vftr_vfd_writer *w, const struct vftr_vfd_info *final)
{
    if (!w)
        return 0;
    if (final)
        w->info = *final;
    int rc = atomic_load(&w->first_error);
    int hrc = write_header(w, VFD_FLAG_COMPLETE);
    if (close(w->fd) < 0 && hrc == 0)
        hrc = -errno;
    free(w);
    return rc ? rc : hrc;
}

int vftr_vfd_writer_checkpoint(struct vftr_vfd_writer *w, const struct vftr_vfd_info *info)
{
    if (!w || !info)
        return -EINVAL;
    w->info = *info;
    int rc = atomic_load(&w->first_error);
    int hrc = write_header(w, VFD_FLAG_COMPLETE);
    return rc ? rc : hrc;
}

int vftr_vfd_writer_abandon(struct vftr_vfd_writer *w)
{
    if (!w)
        return -EINVAL;
    int saved = errno; /* a signal handler must leave errno as it found it */
    int rc = write_header(w, VFD_FLAG_ABANDONED);
    errno = saved;
    return rc;
}

int vftr_vfd_writer_space(const struct vftr_vfd_writer *w, uint64_t *avail)
{
    struct statfs sf;
    int saved = errno;

    if (!w || !avail)
        return -EINVAL;
    if (fstatfs(w->fd, &sf) != 0) {
        int e = errno;
        errno = saved;
        return -e;
    }
    /* a file system that gives no sizes (some FUSE ones say 0 blocks)
     * cannot say what is free */
    if (sf.f_blocks == 0)
        return -ENOTSUP;
    /* statvfs's rule: the counts are in fragments (f_frsize) where the
     * kernel says, else in blocks */
    *avail = (uint64_t)sf.f_bavail * (uint64_t)(sf.f_frsize ? sf.f_frsize : sf.f_bsize);
    return 0;
}

uint64_t vftr_vfd_writer_bytes(const struct vftr_vfd_writer *w)
{
    return w ? atomic_load(&((struct vftr_vfd_writer *)w)->offset) : 0;
}
