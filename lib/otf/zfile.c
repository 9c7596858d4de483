/*
 * zfile.c — compressed (".z") files: deflate on write, inflate and sync-point
 * search on read.
 *
 * Layout (see OTF_File.h): one zlib stream, one full-flush segment per
 * OTF_File_write() call, never finished.
 *
 * Writing uses ISA-L's igzip where it stays within 10 % of the size zlib
 * produces at the requested level, and zlib where it cannot (the table
 * `level_map`, with the measurements that chose it).  Reading always uses
 * ISA-L's inflate, which is about twice as fast as zlib's on trace text.
 *
 * Reading must know where segments start, for two reasons: OTF_File_tell()
 * reports the start of the current segment, and after a seek we must tell a
 * real sync point from the pattern 00 00 ff ff occurring by chance inside
 * compressed data.  We feed the inflater input only up to the end of the next
 * 00 00 ff ff pattern (a "candidate").  When it has consumed exactly that much
 * and stands between two blocks with no bits left over, the pattern was the
 * empty stored block of a flush: a real segment boundary.  A pattern inside
 * Huffman-coded data leaves the inflater in the middle of a block.
 *
 * After a seek to p > 0 decoding starts in raw-deflate mode right after the
 * first candidate at or after p.  Its first text is held back (in `tbuf`)
 * until it is trusted: decoding reached a confirmed boundary, or produced
 * VERIFY_BYTES without error.  If inflating fails before that, the candidate
 * was false and we try the next one.  Only a seek to 0 reads the zlib header
 * again (the reference library forgets to expect it there with zlib >= 1.2.12,
 * see otf-format.md section 8; here the mode is chosen explicitly at every
 * reset).
 */
#include <stdlib.h>
#include <string.h>

#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include "otf_internal.h"
#include "otf_file_internal.h"

/* --- compression levels ----------------------------------------------------
 *
 * Measured on OTF event text written by the reference library (16 processes,
 * 4 streams, enter/leave/send/recv, ~19 bytes per event, 1 MiB segments; a
 * second data set with small time steps in parentheses).  Size relative to
 * zlib at the same level, speed of compressing alone on this machine:
 *
 *   zlib 1..9            80 .. 5 MB/s (level 4: ~45 MB/s)
 *   isa-l 1 (= 2)        +3 % (+5 %) vs zlib 4, -8 % vs zlib 1;  ~300 MB/s
 *   isa-l 3              -1 % (0 %) vs zlib 4, +6 % (+10 %) vs zlib 5,
 *                        +9 % (+14 %) vs zlib 9;               ~170 MB/s
 *   isa-l 0              +9 % (+7 %) vs zlib 1 — no gain over isa-l 1
 *
 * So levels 1..4 use isa-l; from level 5 on isa-l cannot hold the 10 % bound
 * on all data and zlib is used, at level 5, which stays within 4 % of zlib 9
 * and is 5x faster than it.  Level 0 is a stored (uncompressed) zlib stream,
 * as zlib writes it. */
enum { CODEC_ISAL, CODEC_ZLIB };

static const struct {
    unsigned char codec;
    unsigned char level;
} level_map[10] = {
    [0] = {CODEC_ZLIB, 0},
    [1] = {CODEC_ISAL, 1},
    [2] = {CODEC_ISAL, 1},
    [3] = {CODEC_ISAL, 1},
    [4] = {CODEC_ISAL, 1},
    [5] = {CODEC_ZLIB, 5},
    [6] = {CODEC_ZLIB, 5},
    [7] = {CODEC_ZLIB, 5},
    [8] = {CODEC_ZLIB, 5},
    [9] = {CODEC_ZLIB, 5},
};

static const unsigned char sync_marker[4] = {0x00, 0x00, 0xff, 0xff};

/* Text decoded after a seek before we trust the sync point it started from. */
#define VERIFY_BYTES (64 * 1024)

/* One call into a codec takes at most this much input (their counters are
 * 32-bit). */
#define MAX_CHUNK ((size_t)1 << 30)

/* ===================================================================== */
/* writing                                                               */
/* ===================================================================== */

struct vftr_zenc {
    int codec;
    int header_done;          /* the zlib header is in obuf */
    unsigned char header[2];  /* the zlib header, written by us */
    struct isal_zstream isal;
    unsigned char *level_buf;
    z_stream z;
};

struct vftr_zenc *vftr_zfile_enc_new(OTF_File *f, int level)
{
    if (level < 0 || level > 9) {
        vftr_otf_seterr("%s: illegal compression level %d", vftr_file_name(f), level);
        return NULL;
    }
    struct vftr_zenc *e = calloc(1, sizeof *e);
    if (!e)
        goto nomem;
    e->codec = level_map[level].codec;
    int clevel = level_map[level].level;
    if (e->codec == CODEC_ISAL) {
        static const uint32_t level_buf_size[4] = {
            ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT,
            ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT,
        };
        isal_deflate_init(&e->isal);
        e->isal.level = (uint32_t)clevel;
        e->isal.level_buf_size = level_buf_size[clevel];
        if (e->isal.level_buf_size) {
            e->level_buf = malloc(e->isal.level_buf_size);
            if (!e->level_buf)
                goto nomem;
        }
        e->isal.level_buf = e->level_buf;
        e->isal.gzip_flag = IGZIP_DEFLATE;
        e->isal.end_of_stream = 0;
    } else {
        if (deflateInit2(&e->z, clevel, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            vftr_otf_seterr("%s: cannot initialise zlib: %s", vftr_file_name(f),
                            e->z.msg ? e->z.msg : "unknown error");
            free(e);
            return NULL;
        }
    }
    /* Both codecs write raw deflate behind a zlib header of our own: they
     * would otherwise compute an Adler-32 that a never-finished stream never
     * stores.  CMF 0x78: deflate, 32 KiB window.  FLEVEL as zlib sets it for
     * the requested level (4 gives 78 5e, like the reference's files), and
     * FCHECK makes the 16-bit value a multiple of 31. */
    unsigned flevel = level <= 1 ? 0 : level <= 5 ? 1 : level == 6 ? 2 : 3;
    unsigned hdr = (0x78u << 8) | (flevel << 6);
    hdr += 31 - hdr % 31;
    e->header[0] = (unsigned char)(hdr >> 8);
    e->header[1] = (unsigned char)(hdr & 0xff);
    return e;

nomem:
    if (e)
        free(e->level_buf);
    free(e);
    vftr_otf_seterr("%s: out of memory", vftr_file_name(f));
    return NULL;
}

void vftr_zfile_enc_free(struct vftr_zenc *e)
{
    if (!e)
        return;
    if (e->codec == CODEC_ZLIB)
        deflateEnd(&e->z);
    free(e->level_buf);
    free(e);
}

/* Deflates p[0..n) into obuf; with `flush` the segment is ended by a full
 * flush.  Each time obuf fills it is written to disk. */
static int isal_chunk(OTF_File *f, struct vftr_zenc *e, const unsigned char *p, size_t n,
                      int flush)
{
    struct isal_zstream *s = &e->isal;
    s->next_in = (uint8_t *)p;
    s->avail_in = (uint32_t)n;
    s->flush = flush ? FULL_FLUSH : NO_FLUSH;
    for (;;) {
        s->next_out = f->obuf + f->olen;
        s->avail_out = (uint32_t)(f->zbufsize - f->olen);
        int rc = isal_deflate(s);
        size_t made = (size_t)(s->next_out - (f->obuf + f->olen));
        f->olen += made;
        f->pos += made;
        if (rc != COMP_OK) {
            vftr_otf_seterr("%s: offset %llu: isa-l deflate failed (%d)", vftr_file_name(f),
                            (unsigned long long)f->pos, rc);
            return -1;
        }
        if (f->olen == f->zbufsize && vftr_file_flush_out(f) < 0)
            return -1;
        /* Done when the input is used up and, for a flush, the flush block
         * has been emitted completely. */
        if (s->avail_in == 0 &&
            (!flush || (s->internal_state.state == ZSTATE_NEW_HDR && s->avail_out > 0)))
            return 0;
    }
}

static int zlib_chunk(OTF_File *f, struct vftr_zenc *e, const unsigned char *p, size_t n,
                      int flush)
{
    z_stream *z = &e->z;
    z->next_in = (Bytef *)p;
    z->avail_in = (uInt)n;
    for (;;) {
        z->next_out = f->obuf + f->olen;
        z->avail_out = (uInt)(f->zbufsize - f->olen);
        int rc = deflate(z, flush ? Z_FULL_FLUSH : Z_NO_FLUSH);
        size_t made = (size_t)(z->next_out - (f->obuf + f->olen));
        f->olen += made;
        f->pos += made;
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            vftr_otf_seterr("%s: offset %llu: zlib deflate failed (%d)", vftr_file_name(f),
                            (unsigned long long)f->pos, rc);
            return -1;
        }
        if (f->olen == f->zbufsize && vftr_file_flush_out(f) < 0)
            return -1;
        /* zlib has emitted everything once it leaves room in the output. */
        if (z->avail_in == 0 && z->avail_out > 0)
            return 0;
    }
}

int vftr_zfile_write(OTF_File *f, const void *p, size_t n)
{
    struct vftr_zenc *e = f->enc;
    const unsigned char *q = p;
    if (!e->header_done) {
        /* obuf holds at least 64 bytes and is empty before the first write */
        memcpy(f->obuf + f->olen, e->header, 2);
        f->olen += 2;
        f->pos += 2;
        e->header_done = 1;
    }
    while (n > 0) {
        size_t k = n < MAX_CHUNK ? n : MAX_CHUNK;
        int last = k == n;
        int rc = e->codec == CODEC_ISAL ? isal_chunk(f, e, q, k, last)
                                        : zlib_chunk(f, e, q, k, last);
        if (rc < 0)
            return -1;
        q += k;
        n -= k;
    }
    return 0;
}

int vftr_zfile_sync(OTF_File *f)
{
    (void)f;
    return 0;
}

/* ===================================================================== */
/* reading                                                               */
/* ===================================================================== */

/* How a decoding run ended. */
enum run_end {
    RUN_FULL,     /* the output is full */
    RUN_BOUNDARY, /* a segment boundary was passed (only when asked to stop there) */
    RUN_END,      /* the data is exhausted, cleanly */
    RUN_BAD,      /* the data does not decode (corrupt, truncated, false sync) */
    RUN_IOERR     /* reading the source failed (otf_errno is set) */
};

struct vftr_zdec {
    struct inflate_state st;

    /* compressed input: ibuf[0..ilen) is the source at ibase.. ; the
     * inflater has been given ibuf[..ioff); the current region ends at rend */
    unsigned char *ibuf;
    size_t icap, ilen, ioff, rend;
    uint64_t ibase;
    int rend_cand;    /* the region ends right after a candidate sync marker */
    int need_header;  /* at offset 0: the zlib header comes next */
    int drain;        /* the last inflate filled its output: it may hold more */
    int src_eof;      /* the source has nothing beyond ibuf */

    uint64_t cur_seg; /* where the segment being decoded starts */
    int at_end;       /* no more text */
    int failed;       /* a real error occurred: reads return 0 */
    int bad_rc;       /* details of the last RUN_BAD, for the message */
    uint64_t bad_off;
    int truncated;

    int seek_pending;
    uint64_t seek_pos;

    /* after a seek: text held back until the sync point is trusted */
    int unverified;
    uint64_t sync_at;
    unsigned char *tbuf;
    size_t tlen, toff;
    uint64_t tseg;
};

struct vftr_zdec *vftr_zfile_dec_new(OTF_File *f)
{
    struct vftr_zdec *d = calloc(1, sizeof *d);
    if (!d) {
        vftr_otf_seterr("%s: out of memory", vftr_file_name(f));
        return NULL;
    }
    isal_inflate_init(&d->st);
    d->st.crc_flag = ISAL_DEFLATE;
    d->need_header = 1;
    return d;
}

void vftr_zfile_dec_free(struct vftr_zdec *d)
{
    if (!d)
        return;
    free(d->ibuf);
    free(d->tbuf);
    free(d);
}

void vftr_zfile_dec_resize(OTF_File *f)
{
    (void)f; /* src_fill compares icap with zbufsize at every refill */
}

/* Starts the inflater afresh, at offset 0 (the zlib header comes first) or
 * at a sync point.  The inflater itself always decodes raw deflate: we read
 * the header ourselves and never check the Adler-32, which a never-finished
 * stream does not have. */
static void inflater_reset(struct vftr_zdec *d, int zlib_header)
{
    isal_inflate_reset(&d->st);
    d->st.crc_flag = ISAL_DEFLATE;
    d->need_header = zlib_header;
    d->drain = 0;
    d->rend_cand = 0;
}

/* Between two blocks, nothing buffered: the state right after a flush. */
static int at_boundary(const struct inflate_state *s)
{
    return (s->block_state == ISAL_BLOCK_NEW_HDR || s->block_state == ISAL_BLOCK_HDR) &&
           s->read_in_length == 0 && s->tmp_in_size == 0;
}

/* Appends source bytes to ibuf, first moving what is still needed to the
 * front: the unfed bytes and the 3 before them (a marker may straddle).
 * Returns the number of bytes added, 0 at the end of the source, -1 on error. */
static int src_fill(OTF_File *f, struct vftr_zdec *d)
{
    size_t keep = d->ioff >= 3 ? d->ioff - 3 : 0;
    if (keep > 0) {
        memmove(d->ibuf, d->ibuf + keep, d->ilen - keep);
        d->ibase += keep;
        d->ilen -= keep;
        d->ioff -= keep;
        d->rend -= keep;
    }
    if (!d->ibuf || (d->icap != f->zbufsize && f->zbufsize >= d->ilen + 16)) {
        unsigned char *nb = realloc(d->ibuf, f->zbufsize);
        if (!nb) {
            vftr_otf_seterr("%s: out of memory", vftr_file_name(f));
            return -1;
        }
        d->ibuf = nb;
        d->icap = f->zbufsize;
    }
    ssize_t k = vftr_file_pread(f, d->ibase + d->ilen, d->ibuf + d->ilen, d->icap - d->ilen);
    if (k < 0)
        return -1;
    if (k == 0)
        d->src_eof = 1;
    d->ilen += (size_t)k;
    return (int)(k > 0);
}

/* Chooses the next region to feed (all of the previous one has been fed):
 * up to the end of the next candidate marker, or up to 3 bytes before the
 * end of the buffer (those could begin a marker), or to the end of the
 * source.  Returns 0 with a non-empty region, 1 if the source is exhausted,
 * -1 on error. */
static int next_region(OTF_File *f, struct vftr_zdec *d)
{
    for (;;) {
        size_t from = d->ioff >= 3 ? d->ioff - 3 : 0;
        if (d->ilen >= from + 4) {
            const unsigned char *m = memmem(d->ibuf + from, d->ilen - from, sync_marker, 4);
            if (m) {
                d->rend = (size_t)(m - d->ibuf) + 4;
                d->rend_cand = 1;
                return 0;
            }
        }
        if (d->src_eof) {
            d->rend = d->ilen;
            d->rend_cand = 0;
            return d->ioff < d->ilen ? 0 : 1;
        }
        if (d->ilen >= d->ioff + 4) {
            d->rend = d->ilen - 3;
            d->rend_cand = 0;
            return 0;
        }
        if (src_fill(f, d) < 0)
            return -1;
    }
}

/* Reads and checks the 2-byte zlib header at offset 0.  Returns RUN_FULL to
 * go on (the name means nothing here), RUN_END for an empty file, RUN_BAD or
 * RUN_IOERR. */
static enum run_end read_header(OTF_File *f, struct vftr_zdec *d)
{
    while (d->ilen - d->ioff < 2 && !d->src_eof) {
        d->rend = d->ioff;
        if (src_fill(f, d) < 0)
            return RUN_IOERR;
    }
    size_t have = d->ilen - d->ioff;
    if (have == 0) {
        d->at_end = 1;
        return RUN_END;
    }
    d->bad_off = d->ibase + d->ioff;
    d->bad_rc = ISAL_INVALID_WRAPPER;
    d->truncated = have < 2;
    if (have < 2)
        return RUN_BAD;
    unsigned cmf = d->ibuf[d->ioff], flg = d->ibuf[d->ioff + 1];
    /* deflate, window <= 32 KiB, valid check bits, no preset dictionary */
    if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0 || (flg & 0x20))
        return RUN_BAD;
    d->ioff += 2;
    d->rend = d->ioff;
    d->need_header = 0;
    return RUN_FULL;
}

/* Decodes into dst[0..cap) until it is full, the data ends, decoding fails,
 * or (with stop_at_boundary) a segment boundary has been passed.  *out gets
 * the number of bytes produced. */
static enum run_end run(OTF_File *f, struct vftr_zdec *d, unsigned char *dst, size_t cap,
                        int stop_at_boundary, size_t *out)
{
    struct inflate_state *s = &d->st;
    size_t n = 0;
    if (d->need_header) {
        enum run_end h = read_header(f, d);
        if (h != RUN_FULL) {
            *out = 0;
            return h;
        }
    }
    for (;;) {
        if (d->ioff < d->rend || d->drain) {
            if (n == cap) {
                *out = n;
                return RUN_FULL;
            }
            size_t room = cap - n;
            s->next_in = d->ibuf + d->ioff;
            s->avail_in = (uint32_t)(d->rend - d->ioff);
            s->next_out = dst + n;
            s->avail_out = (uint32_t)(room < UINT32_MAX ? room : UINT32_MAX);
            size_t before_in = d->ioff, before_out = n;
            int rc = isal_inflate(s);
            d->ioff = (size_t)(s->next_in - d->ibuf);
            n = (size_t)(s->next_out - dst);
            if (rc < 0) {
                d->bad_rc = rc;
                d->bad_off = d->ibase + d->ioff;
                d->truncated = 0;
                *out = n;
                return RUN_BAD;
            }
            if (s->block_state == ISAL_BLOCK_FINISH) {
                *out = n;
                if (d->unverified) {
                    /* OTF streams are never finished: a final block right
                     * after an untrusted sync point means it was false. */
                    d->bad_rc = 0;
                    d->bad_off = d->ibase + d->ioff;
                    d->truncated = 0;
                    return RUN_BAD;
                }
                /* a finished stream (not written by OTF, but valid) */
                d->at_end = 1;
                return RUN_END;
            }
            if (d->ioff == before_in && n == before_out && !d->drain) {
                /* cannot happen with a sane inflater; never spin */
                d->bad_rc = 0;
                d->bad_off = d->ibase + d->ioff;
                d->truncated = 0;
                *out = n;
                return RUN_BAD;
            }
            d->drain = s->avail_out == 0;
            continue;
        }
        /* the region is consumed and all its text delivered */
        if (d->rend_cand) {
            d->rend_cand = 0;
            if (at_boundary(s)) {
                d->cur_seg = d->ibase + d->rend;
                if (stop_at_boundary) {
                    *out = n;
                    return RUN_BOUNDARY;
                }
            }
        }
        int r = next_region(f, d);
        if (r < 0) {
            *out = n;
            return RUN_IOERR;
        }
        if (r > 0) {
            *out = n;
            if (at_boundary(s) || (s->block_state == ISAL_BLOCK_INPUT_DONE && !d->unverified)) {
                d->at_end = 1;
                return RUN_END;
            }
            d->bad_rc = 0;
            d->bad_off = d->ibase + d->ilen;
            d->truncated = 1;
            return RUN_BAD;
        }
    }
}

/* Positions the decoder at the first candidate sync point s >= from (s is
 * the offset right after a 00 00 ff ff marker), in raw mode and unverified.
 * Without one, the data is at its end.  0, or -1 on an I/O error. */
static int find_sync(OTF_File *f, struct vftr_zdec *d, uint64_t from)
{
    uint64_t start = from >= 4 ? from - 4 : 0;
    if (!d->ibuf || start < d->ibase || start >= d->ibase + d->ilen) {
        d->ibase = start;
        d->ilen = 0;
        d->src_eof = 0;
    }
    d->ioff = d->rend = (size_t)(start - d->ibase);
    d->tlen = d->toff = 0;
    size_t sfrom = d->ioff;
    for (;;) {
        while (d->ilen >= sfrom + 4) {
            const unsigned char *m = memmem(d->ibuf + sfrom, d->ilen - sfrom, sync_marker, 4);
            if (!m)
                break;
            size_t end = (size_t)(m - d->ibuf) + 4;
            if (d->ibase + end < from) {
                /* only possible for bytes kept from before `start` */
                sfrom = (size_t)(m - d->ibuf) + 1;
                continue;
            }
            d->ioff = d->rend = end;
            d->sync_at = d->cur_seg = d->ibase + end;
            inflater_reset(d, 0);
            d->unverified = 1;
            d->at_end = 0;
            return 0;
        }
        if (d->src_eof) {
            d->ioff = d->rend = d->ilen;
            d->cur_seg = from;
            d->unverified = 0;
            d->at_end = 1;
            return 0;
        }
        d->ioff = d->rend = d->ilen;
        if (src_fill(f, d) < 0)
            return -1;
        sfrom = d->ioff >= 3 ? d->ioff - 3 : 0;
    }
}

static int resolve_seek(OTF_File *f, struct vftr_zdec *d)
{
    uint64_t pos = d->seek_pos;
    d->seek_pending = 0;
    d->failed = 0;
    d->at_end = 0;
    d->unverified = 0;
    d->tlen = d->toff = 0;
    if (pos > 0)
        return find_sync(f, d, pos);
    /* Offset 0: keep the buffer if it already starts there. */
    if (d->ibase != 0) {
        d->ibase = 0;
        d->ilen = 0;
        d->src_eof = 0;
    }
    d->ioff = d->rend = 0;
    d->cur_seg = 0;
    inflater_reset(d, 1);
    return 0;
}

static void report_bad(OTF_File *f, struct vftr_zdec *d)
{
    if (d->truncated)
        vftr_otf_seterr("%s: offset %llu: compressed data is truncated", vftr_file_name(f),
                        (unsigned long long)d->bad_off);
    else
        vftr_otf_seterr("%s: offset %llu: corrupt compressed data (isa-l inflate %d)",
                        vftr_file_name(f), (unsigned long long)d->bad_off, d->bad_rc);
}

/* Decodes the start of the segment at the current (unverified) sync point
 * into tbuf; on failure moves on to the next candidate.  0, or -1 on an I/O
 * error. */
static int verify(OTF_File *f, struct vftr_zdec *d)
{
    if (!d->tbuf) {
        d->tbuf = malloc(VERIFY_BYTES);
        if (!d->tbuf) {
            vftr_otf_seterr("%s: out of memory", vftr_file_name(f));
            return -1;
        }
    }
    while (d->unverified) {
        size_t k = 0;
        d->tlen = d->toff = 0;
        d->tseg = d->sync_at;
        enum run_end how = run(f, d, d->tbuf, VERIFY_BYTES, 1, &k);
        if (how == RUN_IOERR)
            return -1;
        if (how == RUN_BAD) {
            /* a false sync point: search on after it */
            if (find_sync(f, d, d->sync_at + 1) < 0)
                return -1;
            continue;
        }
        d->tlen = k;
        d->unverified = 0;
    }
    return 0;
}

size_t vftr_zfile_read(OTF_File *f, void *dst, size_t n)
{
    struct vftr_zdec *d = f->dec;
    unsigned char *out = dst;
    size_t got = 0;

    if (d->seek_pending && resolve_seek(f, d) < 0)
        goto fail;
    if (d->failed) {
        report_bad(f, d);
        return 0;
    }
    if (d->unverified && verify(f, d) < 0)
        goto fail;
    if (d->toff < d->tlen) {
        size_t k = d->tlen - d->toff < n ? d->tlen - d->toff : n;
        memcpy(out, d->tbuf + d->toff, k);
        d->toff += k;
        got += k;
    }
    if (got < n && !d->at_end) {
        size_t k = 0;
        enum run_end how = run(f, d, out + got, n - got, 0, &k);
        got += k;
        if (how == RUN_IOERR)
            goto fail;
        if (how == RUN_BAD) {
            d->failed = 1;
            report_bad(f, d);
        }
    }
    return got;

fail:
    /* An I/O error: keep the text decoded so far; the next read retries. */
    return got;
}

void vftr_zfile_seek(OTF_File *f, uint64_t pos)
{
    struct vftr_zdec *d = f->dec;
    d->seek_pending = 1;
    d->seek_pos = pos;
}

uint64_t vftr_zfile_tell(OTF_File *f)
{
    struct vftr_zdec *d = f->dec;
    if (d->seek_pending)
        return d->seek_pos;
    if (d->unverified)
        return d->sync_at;
    if (d->toff < d->tlen)
        return d->tseg;
    return d->cur_seg;
}
