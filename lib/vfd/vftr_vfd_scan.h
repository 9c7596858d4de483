/*
 * vftr_vfd_scan.h — a fast second read of a .vfd file's event chunks.
 *
 * The general reader (vftr_vfd.h) validates everything: chunk magic and
 * CRCs, truncation, resynchronisation after damage, every record.  A tool
 * that has already read a file once through it (vfd2otf's first pass) knows
 * which event chunks are sound and how many of their records decode; it
 * keeps (offset, records) per chunk and reads the events again here
 * without the per-record bookkeeping of the general reader.  The chunk
 * header is still checked (magic, kind, length within the file) and every
 * varint is bounds-checked, so a file changed between the two reads gives
 * -EBADMSG, never a crash; CRCs are not computed again.
 *
 * Ownership: vftr_vfd_scan_open() returns a scanner the caller owns
 * (vftr_vfd_scan_close()); event payload pointers stay valid until close.
 * Thread-safety: a scanner is used by one thread at a time; distinct
 * scanners are independent.  Errors: 0 / count or -errno; NULL + errno.
 */
#ifndef VFTR_VFD_VFTR_VFD_SCAN_H
#define VFTR_VFD_VFTR_VFD_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "vftr_vfd.h"

struct vftr_vfd_scan;   /* opaque: one mapped file */

/* One event record, as vftr_vfd_reader_next() gives it (u.event). */
struct vftr_vfd_scan_event {
    uint64_t time;
    uint32_t kind;              /* VFTR_VFD_ENTER, ... */
    uint32_t id;                /* call path id; extended kinds: payload length */
    const uint8_t *data;        /* extended kinds: payload, else NULL */
};

/* A position inside one event chunk. */
struct vftr_vfd_scan_chunk {
    const uint8_t *p, *end;     /* the rest of the payload */
    uint64_t time;              /* time of the last record decoded */
    uint32_t thread;            /* the chunk's thread */
    uint32_t left;              /* records still to decode */
};

/* Maps path read-only.  NULL + errno. */
struct vftr_vfd_scan *vftr_vfd_scan_open(const char *path);
void vftr_vfd_scan_close(struct vftr_vfd_scan *s);

/* Gives back what one reading position of s has left behind: the
 * mapping's pages there leave the process's resident memory (a later read
 * of them reads the file again; pointers stay valid), so memory stays
 * bounded by what is being read, not by the file's size.  Several positions
 * may read one scanner (a converter reads each thread's chunks on its own,
 * jumping over the others'), each with its own *mark: the offset where it
 * stood at its last call, or the offset of a chunk it has jumped to.  The
 * position is now at off and reads on from there, or with done leaves it
 * for elsewhere; *mark becomes off.  What goes is what the position's reads
 * since *mark may have mapped (the kernel maps pages around the one a read
 * touches: see vfd_internal.h); pages another position still reads may go
 * too, and are read from the file again. */
void vftr_vfd_scan_forget(struct vftr_vfd_scan *s, uint64_t *mark, uint64_t off, int done);

/* Positions ch at the events chunk at file offset off, to decode its first
 * nrec records.  -EBADMSG if no events chunk lies there. */
int vftr_vfd_scan_chunk(const struct vftr_vfd_scan *s, uint64_t off, uint32_t nrec,
                        struct vftr_vfd_scan_chunk *ch);

/* Positions ch at the first of count records of an events payload in
 * memory (len bytes, borrowed; a chunk the general reader handed over whole,
 * see vftr_vfd_reader_whole_events), time: the chunk's time base. */
void vftr_vfd_scan_payload(struct vftr_vfd_scan_chunk *ch, const uint8_t *payload, size_t len,
                           uint32_t count, uint64_t time, uint32_t thread);

/* A first read's skim: skips Enter/Exit/Sample records (keeping the time)
 * up to the next extended record, which it decodes into *ev.  Returns 1
 * (*ev filled), 0 when the chunk's records are done (ch->p == ch->end unless
 * bytes follow them), -EBADMSG at a record that does not decode (a bad
 * varint, an id over 32 bits, an extended kind below VFTR_VFD_PAUSE, a
 * payload past the end): ch then points at that record and ch->left counts
 * it.  ch->time is always the time of the last record passed. */
int vftr_vfd_scan_next_ext(struct vftr_vfd_scan_chunk *ch, struct vftr_vfd_scan_event *ev);

/* The next record of ch, as vftr_vfd_scan_events() decodes it (no more
 * checks): 1, 0 when the chunk is done, -EBADMSG.  Out of line part of
 * vftr_vfd_scan_next(). */
int vftr_vfd_scan_next_slow(struct vftr_vfd_scan_chunk *ch, struct vftr_vfd_scan_event *ev);

/* The same, with the common record (a one-byte time delta, a tag of one or
 * two bytes, not extended) decoded inline. */
static inline int vftr_vfd_scan_next(struct vftr_vfd_scan_chunk *ch,
                                     struct vftr_vfd_scan_event *ev)
{
    const uint8_t *p = ch->p;
    uint32_t tag;

    if (ch->left == 0 || ch->end - p < 3)
        return vftr_vfd_scan_next_slow(ch, ev);
    if (!(p[0] & 0x80)) {
        tag = p[0];
        p += 1;
    } else if (!(p[1] & 0x80)) {
        tag = (uint32_t)(p[0] & 0x7f) | (uint32_t)p[1] << 7;
        p += 2;
    } else {
        return vftr_vfd_scan_next_slow(ch, ev);
    }
    if ((tag & 3) == 3 || (*p & 0x80))
        return vftr_vfd_scan_next_slow(ch, ev);
    ch->time += *p++;
    ch->p = p;
    ch->left--;
    ev->time = ch->time;
    ev->kind = VFTR_VFD_ENTER + (tag & 3);
    ev->id = tag >> 2;
    ev->data = NULL;
    return 1;
}

/* Decodes up to max records of ch into ev.  Returns the number decoded (0
 * when the chunk is done) or -EBADMSG. */
int vftr_vfd_scan_events(struct vftr_vfd_scan_chunk *ch, struct vftr_vfd_scan_event *ev,
                         size_t max);

#endif /* VFTR_VFD_VFTR_VFD_SCAN_H */
