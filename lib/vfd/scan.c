/* scan.c — the fast second read of event chunks (see vftr_vfd_scan.h). */
#include "vftr_vfd_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfd_internal.h"
#include "vftr_vfd.h"
#include "util/regfile.h"

struct vftr_vfd_scan {
    const uint8_t *base;        /* owned mapping of size bytes (NULL if empty) */
    size_t size;
};

struct vftr_vfd_scan *vftr_vfd_scan_open(const char *path)
{
    struct vftr_vfd_scan *s;
    struct stat st;
    /* the file was read before, but may have been replaced since */
    int fd = vftr_open_regular(path, O_RDONLY, 0, NULL);

    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    if (fstat(fd, &st) < 0 || !(s = calloc(1, sizeof *s))) {
        int e = errno;

        close(fd);
        errno = e;
        return NULL;
    }
    s->size = (size_t)st.st_size;
    if (s->size) {
        void *m = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);

        if (m == MAP_FAILED) {
            int e = errno;

            close(fd);
            free(s);
            errno = e;
            return NULL;
        }
        s->base = m;
    }
    close(fd);
    return s;
}

void vftr_vfd_scan_close(struct vftr_vfd_scan *s)
{
    if (!s)
        return;
    if (s->base)
        munmap((void *)s->base, s->size);
    free(s);
}

void vftr_vfd_scan_forget(struct vftr_vfd_scan *s, uint64_t *mark, uint64_t off, int done)
{
    if (s)
        vfd_forget(s->base, s->size, mark, off, done);
}

int vftr_vfd_scan_chunk(const struct vftr_vfd_scan *s, uint64_t off, uint32_t nrec,
                        struct vftr_vfd_scan_chunk *ch)
{
    memset(ch, 0, sizeof *ch);
    if (!s || off > s->size || s->size - off < VFTR_VFD_CHUNK_HEADER_SIZE)
        return -EBADMSG;
    const uint8_t *c = s->base + off;
    uint32_t len = vfd_get32(c + VFD_C_LENGTH);

    if (memcmp(c, VFD_CHUNK_MAGIC, 4) != 0 || vfd_get16(c + VFD_C_KIND) != VFTR_VFD_CHUNK_EVENTS ||
        len > s->size - off - VFTR_VFD_CHUNK_HEADER_SIZE || nrec > vfd_get32(c + VFD_C_COUNT))
        return -EBADMSG;
    ch->p = c + VFTR_VFD_CHUNK_HEADER_SIZE;
    ch->end = ch->p + len;
    ch->time = vfd_get64(c + VFD_C_FIRST_TIME);
    ch->thread = vfd_get32(c + VFD_C_THREAD);
    ch->left = nrec;
    return 0;
}

/* A varint; the one-byte case (most tags and deltas) inline. */
static inline int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    if (*p < end && !(**p & 0x80)) {
        *v = *(*p)++;
        return 0;
    }
    return vfd_get_varint(p, end, v);
}

int vftr_vfd_scan_events(struct vftr_vfd_scan_chunk *ch, struct vftr_vfd_scan_event *ev,
                         size_t max)
{
    const uint8_t *p = ch->p, *end = ch->end;
    uint64_t time = ch->time;
    size_t n = 0;

    while (n < max && ch->left > 0) {
        uint64_t tag, delta, len;
        struct vftr_vfd_scan_event *e = &ev[n];

        if (varint(&p, end, &tag) < 0 || varint(&p, end, &delta) < 0 || (tag >> 2) > UINT32_MAX)
            return -EBADMSG;
        time += delta;
        e->time = time;
        if ((tag & 3) != VFD_CODE_EXT) {
            e->kind = VFTR_VFD_ENTER + (uint32_t)(tag & 3);
            e->id = (uint32_t)(tag >> 2);
            e->data = NULL;
        } else {
            if (varint(&p, end, &len) < 0 || len > (uint64_t)(end - p))
                return -EBADMSG;
            e->kind = (uint32_t)(tag >> 2);
            e->id = (uint32_t)len;
            e->data = p;
            p += len;
        }
        ch->left--;
        n++;
    }
    ch->p = p;
    ch->time = time;
    return (int)n;
}

void vftr_vfd_scan_payload(struct vftr_vfd_scan_chunk *ch, const uint8_t *payload, size_t len,
                           uint32_t count, uint64_t time, uint32_t thread)
{
    ch->p = payload;
    ch->end = payload + len;
    ch->time = time;
    ch->thread = thread;
    ch->left = count;
}

int vftr_vfd_scan_next_slow(struct vftr_vfd_scan_chunk *ch, struct vftr_vfd_scan_event *ev)
{
    return vftr_vfd_scan_events(ch, ev, 1);
}

/* The skim of the first read: most records are a one-byte tag and a
 * one-byte delta, taken two bytes at a time; anything else goes through
 * the checked varint decoder. */
int vftr_vfd_scan_next_ext(struct vftr_vfd_scan_chunk *ch, struct vftr_vfd_scan_event *ev)
{
    const uint8_t *p = ch->p, *end = ch->end;
    uint64_t time = ch->time;
    uint32_t left = ch->left;
    int rc = 0;

    while (left > 0) {
        const uint8_t *rec = p;
        uint64_t tag, delta, len;

        if (end - p >= 2 && !((p[0] | p[1]) & 0x80)) {
            tag = p[0];
            delta = p[1];
            p += 2;
        } else if (varint(&p, end, &tag) < 0 || varint(&p, end, &delta) < 0 ||
                   (tag >> 2) > UINT32_MAX) {
            p = rec;
            rc = -EBADMSG;
            break;
        }
        if ((tag & 3) == VFD_CODE_EXT) {
            if ((tag >> 2) < VFTR_VFD_PAUSE || varint(&p, end, &len) < 0 ||
                len > (uint64_t)(end - p)) {
                p = rec;
                rc = -EBADMSG;
                break;
            }
            time += delta;
            ev->time = time;
            ev->kind = (uint32_t)(tag >> 2);
            ev->id = (uint32_t)len;
            ev->data = p;
            p += len;
            left--;
            rc = 1;
            break;
        }
        time += delta;
        left--;
    }
    ch->p = p;
    ch->time = time;
    ch->left = left;
    return rc;
}
