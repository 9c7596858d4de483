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
 *
 * Helper threads (at most the manager's limit, see
 * vftr_otf_filemanager_set_threads): a file being written hands segments of
 * ASYNC_MIN_SEGMENT bytes or more to its helper, which deflates them while
 * the caller formats the next; a file read sequentially gets a helper that
 * inflates ahead (section "prefetching").  Helpers never do I/O and never set
 * otf_errno (it is thread-local): they report through their job or chunk
 * state, and the caller's thread turns that into messages.  The file manager
 * is used from the caller's thread only.
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/igzip_lib.h>
#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "otf_internal.h"
#include "otf_file_internal.h"

/* --- compression levels ----------------------------------------------------
 *
 * Measured on OTF event text written by the reference library (16 processes,
 * 4 streams, enter/leave/send/recv, ~19.5 bytes per event, 1 MiB segments; a
 * second text with small time steps in parentheses).  Size relative to zlib
 * at the same level; speed of compressing alone, one core of this machine:
 *
 *   zlib 1 / 4 / 5 / 6 / 9   ~80 / 45 / 28 / 16 / 5 MB/s
 *   isa-l 1 (= 2)            ~300 MB/s; -8 % (-8 %) vs zlib 1,
 *                            +3 % (+5 %) vs zlib 4, +10 % (+16 %) vs zlib 5
 *   isa-l 3                  ~170 MB/s; -1 % (0 %) vs zlib 4,
 *                            +6 % (+10 %) vs zlib 5, +9 % (+14 %) vs zlib 9
 *   isa-l 0                  ~300 MB/s; +9.5 % (+7 %) vs zlib 1
 *   zlib 5                   +1.7 % (+2.4 %) vs zlib 6, +2.5 % (+3.2 %) vs zlib 9
 *
 * The bound is: at most 10 % larger than zlib at the requested level.  So
 * levels 1..4 use isa-l 3, and from level 5 on isa-l cannot keep it on all
 * data: zlib is used, at level 5, which stays within 4 % of zlib 9 and is 5x
 * faster.  Level 0 is a stored (uncompressed) zlib stream, as zlib writes it.
 *
 * Not isa-l 1 or 2, though faster: the output must be a function of the text
 * alone (traces written twice, or by vfd2otf and vfd2otf-mpi, compare byte
 * for byte), and theirs is not.  Their vectorised block body (isa-l 2.30,
 * igzip_icf_body_h1_gr_bt.asm, the versions for SSE4.2, AVX2 and AVX-512;
 * the portable C one is right) hashes the third byte of a block, when the
 * block starts without history, from a register that still holds the address
 * of the isal_zstream instead of from the data.  Every segment is such a
 * block (full flush), so that byte is filed under a slot chosen by address
 * bits 16 and up: when the slot happens to be the one its data would pick (or
 * that of byte 0 or 1), matches are found that are missed otherwise.  With
 * ASLR about 1 run in 150 differed on a small trace.  isa-l 3 takes another
 * path (gen_icf_map_lh1), which hashes the first bytes from the data.
 *
 * With the caller's thread formatting and a helper thread compressing, level
 * 4 wrote ~4x (one free core: ~8x) as many events per second as the
 * reference with isa-l 1; isa-l 3 writes ~12 % fewer (otfbench, 10 M events:
 * 15.3 instead of 17.4 M events/s) and a 7.6 % smaller trace.  Levels 5..7
 * gain little, since zlib 5 is the speed of the reference's own level 5. */
enum { CODEC_ISAL, CODEC_ZLIB };

static const struct {
    unsigned char codec;
    unsigned char level;
} level_map[10] = {
    [0] = {CODEC_ZLIB, 0},
    [1] = {CODEC_ISAL, 3},
    [2] = {CODEC_ISAL, 3},
    [3] = {CODEC_ISAL, 3},
    [4] = {CODEC_ISAL, 3},
    [5] = {CODEC_ZLIB, 5},
    [6] = {CODEC_ZLIB, 5},
    [7] = {CODEC_ZLIB, 5},
    [8] = {CODEC_ZLIB, 5},
    [9] = {CODEC_ZLIB, 5},
};

static const unsigned char sync_marker[4] = {0x00, 0x00, 0xff, 0xff};

/* Text decoded after a seek before we trust the sync point it started from
 * (unless a segment boundary comes first).  Inflating random bytes fails
 * within a few dozen bytes; this is far beyond that and keeps a jump of a
 * binary search cheap (it needs a few hundred bytes of text). */
#define VERIFY_BYTES (4 * 1024)

/* After a seek the source is read in steps that start at FILL_FIRST bytes and
 * double up to the buffer size: a jump of a binary search needs only the few
 * KiB up to the next sync point, a linear read soon gets full buffers. */
#define FILL_FIRST (32 * 1024)

/* One call into a codec takes at most this much input (their counters are
 * 32-bit). */
#define MAX_CHUNK ((size_t)1 << 30)

/* Finds the first 00 00 ff ff in p[0..n); NULL if there is none.  With
 * SSE2 it looks for two 0xff bytes in a row (rare in compressed data) 32
 * bytes at a time and checks the two bytes before only there: about 2.5x
 * faster than memmem(), which matters when a binary search scans up to a
 * sync point at every jump. */
#if defined(__SSE2__)
static const unsigned char *find_marker(const unsigned char *p, size_t n)
{
    const __m128i all = _mm_set1_epi8((char)0xff);
    uint64_t carry = 0; /* the previous block ended with 0xff */
    size_t i = 0;
    if (n < 4)
        return NULL;
    for (; i + 32 <= n; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 16));
        uint64_t m = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, all)) |
                     (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, all)) << 16;
        if (!m) {
            carry = 0;
            continue;
        }
        if (carry && (m & 1) && i >= 3 && p[i - 3] == 0 && p[i - 2] == 0)
            return p + i - 3;
        carry = m >> 31;
        /* 0xff at bytes k and k+1: the marker would start at k-2 */
        for (uint64_t pair = m & (m >> 1); pair; pair &= pair - 1) {
            size_t k = i + (size_t)__builtin_ctzll(pair);
            if (k >= 2 && p[k - 2] == 0 && p[k - 1] == 0)
                return p + k - 2;
        }
    }
    /* markers that end in the last few bytes */
    size_t j = i >= 3 ? i - 3 : 0;
    return memmem(p + j, n - j, sync_marker, 4);
}
#else
static const unsigned char *find_marker(const unsigned char *p, size_t n)
{
    return n >= 4 ? memmem(p, n, sync_marker, 4) : NULL;
}
#endif

/* ===================================================================== */
/* writing                                                               */
/* ===================================================================== */

/* Segments of at least this size are compressed in the helper thread (when
 * the manager allows one); smaller ones are not worth the hand-over. */
#define ASYNC_MIN_SEGMENT (32 * 1024)

/* Where a codec puts its output: buf[len..cap) is free; `more` makes room
 * when it is full (0, or -1 on failure). */
struct zout {
    unsigned char *buf;
    size_t cap, len;
    size_t moved;       /* bytes `more` has taken out of buf so far */
    OTF_File *f;        /* the file, for the output-buffer sink */
    int (*more)(struct zout *o);
};

/* Sink 1: the file's output buffer, written to disk when full (caller's
 * thread only: it does I/O). */
static int obuf_more(struct zout *o)
{
    OTF_File *f = o->f;
    f->olen = o->len;
    int rc = vftr_file_flush_out(f);
    o->moved += o->len - f->olen;
    o->len = f->olen;
    return rc < 0 || o->len == o->cap ? -1 : 0;
}

/* Sink 2: a growing memory buffer (the helper thread's; no I/O, no
 * otf_errno). */
static int mem_more(struct zout *o)
{
    size_t cap = o->cap ? 2 * o->cap : 65536;
    unsigned char *nb = realloc(o->buf, cap);
    if (!nb)
        return -1;
    o->buf = nb;
    o->cap = cap;
    return 0;
}

/* One segment handed to the helper thread. */
enum { JOB_FREE, JOB_QUEUED, JOB_DONE };

struct zjob {
    unsigned char *in;
    size_t in_cap, in_len;
    unsigned char *out;
    size_t out_cap, out_len;
    int state;
    int rc; /* of deflate_segment */
};

/* Results of deflate_segment. */
enum { SEG_OK = 0, SEG_SINK = 1, SEG_CODEC = 2 };

struct vftr_zenc {
    int codec;
    int header_done;          /* the zlib header is in obuf */
    unsigned char header[2];  /* the zlib header, written by us */
    struct isal_zstream isal;
    unsigned char *level_buf;
    z_stream z;
    int codec_rc;             /* the codec's code when SEG_CODEC */
    int failed;               /* a helper job failed: the file is broken */

    /* The helper thread.  It owns the codec state while a job is queued;
     * jobs are queued and collected alternately in slots 0, 1, 0, ... so
     * that segments reach the file in order. */
    int running;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    struct zjob job[2];
    int submit_i, collect_i;
    int inflight;             /* queued or done, not yet collected (caller's thread) */
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

/* Deflates p[0..n) as one segment ending with a full flush.  Touches only
 * the codec state and the sink, so it runs in either thread. */
static int deflate_segment(struct vftr_zenc *e, const unsigned char *p, size_t n,
                           struct zout *o)
{
    do {
        size_t k = n < MAX_CHUNK ? n : MAX_CHUNK;
        int last = k == n;
        if (e->codec == CODEC_ISAL) {
            struct isal_zstream *s = &e->isal;
            s->next_in = (uint8_t *)p;
            s->avail_in = (uint32_t)k;
            s->flush = last ? FULL_FLUSH : NO_FLUSH;
            for (;;) {
                if (o->len == o->cap && o->more(o) < 0)
                    return SEG_SINK;
                size_t room = o->cap - o->len;
                s->next_out = o->buf + o->len;
                s->avail_out = (uint32_t)(room < UINT32_MAX ? room : UINT32_MAX);
                int rc = isal_deflate(s);
                o->len = (size_t)(s->next_out - o->buf);
                if (rc != COMP_OK) {
                    e->codec_rc = rc;
                    return SEG_CODEC;
                }
                /* done when the input is used up and, for a flush, the
                 * flush block has been emitted completely */
                if (s->avail_in == 0 &&
                    (!last || (s->internal_state.state == ZSTATE_NEW_HDR && s->avail_out > 0)))
                    break;
            }
        } else {
            z_stream *z = &e->z;
            z->next_in = (Bytef *)p;
            z->avail_in = (uInt)k;
            for (;;) {
                if (o->len == o->cap && o->more(o) < 0)
                    return SEG_SINK;
                size_t room = o->cap - o->len;
                z->next_out = o->buf + o->len;
                z->avail_out = (uInt)(room < UINT_MAX ? room : UINT_MAX);
                int rc = deflate(z, last ? Z_FULL_FLUSH : Z_NO_FLUSH);
                o->len = (size_t)(z->next_out - o->buf);
                if (rc != Z_OK && rc != Z_BUF_ERROR) {
                    e->codec_rc = rc;
                    return SEG_CODEC;
                }
                /* zlib has emitted everything once it leaves room */
                if (z->avail_in == 0 && z->avail_out > 0)
                    break;
            }
        }
        p += k;
        n -= k;
    } while (n > 0);
    return SEG_OK;
}

static void report_segment_error(OTF_File *f, int rc, int codec_rc)
{
    if (rc == SEG_CODEC)
        vftr_otf_seterr("%s: offset %llu: deflate failed (%s %d)", vftr_file_name(f),
                        (unsigned long long)f->pos,
                        f->enc->codec == CODEC_ISAL ? "isa-l" : "zlib", codec_rc);
    else if (rc == SEG_SINK && otf_errno == OTF_NO_ERROR)
        vftr_otf_seterr("%s: out of memory while compressing", vftr_file_name(f));
}

/* Appends bytes to the output buffer, writing it out whenever it fills. */
static int obuf_append(OTF_File *f, const unsigned char *p, size_t n)
{
    while (n > 0) {
        if (f->olen == f->zbufsize && vftr_file_flush_out(f) < 0)
            return -1;
        size_t k = f->zbufsize - f->olen;
        if (k > n)
            k = n;
        memcpy(f->obuf + f->olen, p, k);
        f->olen += k;
        f->pos += k;
        p += k;
        n -= k;
    }
    return 0;
}

static void *enc_worker(void *arg)
{
    struct vftr_zenc *e = arg;
    int i = 0;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->stop && e->job[i].state != JOB_QUEUED)
            pthread_cond_wait(&e->cv, &e->mu);
        if (e->job[i].state != JOB_QUEUED)
            break; /* stopped, and nothing left to do */
        struct zjob *j = &e->job[i];
        pthread_mutex_unlock(&e->mu);
        struct zout o = {j->out, j->out_cap, 0, 0, NULL, mem_more};
        int rc = deflate_segment(e, j->in, j->in_len, &o);
        pthread_mutex_lock(&e->mu);
        j->out = o.buf;
        j->out_cap = o.cap;
        j->out_len = o.len;
        j->rc = rc;
        j->state = JOB_DONE;
        pthread_cond_broadcast(&e->cv);
        i ^= 1;
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* Starts the helper thread with all signals blocked (a library's thread
 * must not receive the program's signals).  0, or -1 if not possible. */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0 ? 0 : -1;
}

static int enc_start(OTF_File *f, struct vftr_zenc *e)
{
    if (!vftr_filemanager_thread_acquire(f->manager))
        return -1;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    e->stop = 0;
    e->submit_i = e->collect_i = 0;
    if (start_thread(&e->thread, enc_worker, e) < 0) {
        pthread_cond_destroy(&e->cv);
        pthread_mutex_destroy(&e->mu);
        vftr_filemanager_thread_release(f->manager);
        return -1;
    }
    e->running = 1;
    return 0;
}

static void enc_stop(OTF_File *f, struct vftr_zenc *e)
{
    if (!e->running)
        return;
    pthread_mutex_lock(&e->mu);
    e->stop = 1;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    pthread_join(e->thread, NULL); /* it finishes queued jobs first */
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->mu);
    e->running = 0;
    vftr_filemanager_thread_release(f->manager);
}

/* Collects the oldest job if it is done (waiting for it with `wait`).
 * Returns 1 if one was collected, 0 if none, -1 on error. */
static int collect_one(OTF_File *f, struct vftr_zenc *e, int wait)
{
    if (e->inflight == 0)
        return 0;
    struct zjob *j = &e->job[e->collect_i];
    int state;
    if (e->running) {
        pthread_mutex_lock(&e->mu);
        while (wait && j->state == JOB_QUEUED)
            pthread_cond_wait(&e->cv, &e->mu);
        state = j->state;
        pthread_mutex_unlock(&e->mu);
    } else {
        state = j->state;
    }
    if (state != JOB_DONE)
        return 0;
    int rc = 0;
    if (j->rc != SEG_OK) {
        report_segment_error(f, j->rc, e->codec_rc);
        e->failed = 1;
        rc = -1;
    } else if (obuf_append(f, j->out, j->out_len) < 0) {
        e->failed = 1;
        rc = -1;
    }
    if (e->running)
        pthread_mutex_lock(&e->mu);
    j->state = JOB_FREE;
    if (e->running)
        pthread_mutex_unlock(&e->mu);
    e->collect_i ^= 1;
    e->inflight--;
    return rc < 0 ? -1 : 1;
}

int vftr_zfile_sync(OTF_File *f)
{
    struct vftr_zenc *e = f->enc;
    if (!e)
        return 0;
    int r;
    while ((r = collect_one(f, e, 1)) > 0)
        ;
    if (r < 0 || e->failed) {
        if (otf_errno == OTF_NO_ERROR)
            vftr_otf_seterr("%s: an earlier compression step failed", vftr_file_name(f));
        return -1;
    }
    return 0;
}

/* Hands a segment to the helper thread: copy it into the free slot (the
 * caller may reuse its buffer at once) and queue it. */
static int submit(OTF_File *f, struct vftr_zenc *e, const unsigned char *p, size_t n)
{
    /* collect what is done, and the slot we need in any case */
    while (collect_one(f, e, 0) > 0)
        ;
    /* with two jobs out, our slot holds the oldest: wait for it */
    if (e->inflight == 2 && collect_one(f, e, 1) < 0)
        return -1;
    if (e->failed)
        return -1;
    struct zjob *j = &e->job[e->submit_i];
    if (j->in_cap < n) {
        unsigned char *nb = realloc(j->in, n);
        if (!nb) {
            vftr_otf_seterr("%s: out of memory", vftr_file_name(f));
            return -1;
        }
        j->in = nb;
        j->in_cap = n;
    }
    memcpy(j->in, p, n);
    j->in_len = n;
    pthread_mutex_lock(&e->mu);
    j->state = JOB_QUEUED;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    e->submit_i ^= 1;
    e->inflight++;
    return 0;
}

int vftr_zfile_write(OTF_File *f, const void *p, size_t n)
{
    struct vftr_zenc *e = f->enc;
    if (e->failed) {
        vftr_otf_seterr("%s: an earlier compression step failed", vftr_file_name(f));
        return -1;
    }
    if (!e->header_done) {
        /* obuf holds at least 64 bytes and is empty before the first write */
        memcpy(f->obuf + f->olen, e->header, 2);
        f->olen += 2;
        f->pos += 2;
        e->header_done = 1;
    }
    if (n >= ASYNC_MIN_SEGMENT && (e->running || enc_start(f, e) == 0))
        return submit(f, e, p, n);
    /* in this thread; earlier segments first */
    if (vftr_zfile_sync(f) < 0)
        return -1;
    struct zout o = {f->obuf, f->zbufsize, f->olen, 0, f, obuf_more};
    size_t len0 = f->olen;
    int rc = deflate_segment(e, p, n, &o);
    f->olen = o.len;
    f->pos += o.moved + o.len - len0;
    if (rc != SEG_OK) {
        report_segment_error(f, rc, e->codec_rc);
        e->failed = 1;
        return -1;
    }
    return 0;
}

void vftr_zfile_enc_free(struct vftr_zenc *e)
{
    if (!e)
        return;
    /* the thread was stopped by vftr_zfile_stop_helpers (file_release) */
    if (e->codec == CODEC_ZLIB)
        deflateEnd(&e->z);
    for (int i = 0; i < 2; i++) {
        free(e->job[i].in);
        free(e->job[i].out);
    }
    free(e->level_buf);
    free(e);
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
    size_t fill_step; /* how much the next read from the source asks for */

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

    /* read-ahead in a helper thread (see "prefetching" below) */
    struct prefetch *pf;
    int pf_disabled;     /* could not start one: do not try again */
    uint64_t seq_bytes;  /* text read since the last seek */
    int stopped;         /* the helper was told to stop while waiting for input */
    int interrupted;     /* the helper was stopped under a reader: reads fail */
};

static void pf_stop(OTF_File *f, struct vftr_zdec *d);

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
    d->fill_step = FILL_FIRST;
    return d;
}

void vftr_zfile_dec_free(struct vftr_zdec *d)
{
    if (!d)
        return;
    /* the helper was stopped by vftr_zfile_stop_helpers (file_release) */
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

static int pf_take(struct vftr_zdec *d);

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
    if (d->pf)
        return pf_take(d);
    if (!d->ibuf || (d->icap != f->zbufsize && f->zbufsize >= d->ilen + 16)) {
        unsigned char *nb = realloc(d->ibuf, f->zbufsize);
        if (!nb) {
            vftr_otf_seterr("%s: out of memory", vftr_file_name(f));
            return -1;
        }
        d->ibuf = nb;
        d->icap = f->zbufsize;
    }
    size_t want = d->icap - d->ilen;
    if (want > d->fill_step)
        want = d->fill_step;
    d->fill_step = d->fill_step < d->icap / 2 ? 2 * d->fill_step : d->icap;
    ssize_t k = vftr_file_pread(f, d->ibase + d->ilen, d->ibuf + d->ilen, want);
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
            const unsigned char *m = find_marker(d->ibuf + from, d->ilen - from);
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
            const unsigned char *m = find_marker(d->ibuf + sfrom, d->ilen - sfrom);
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
    d->fill_step = FILL_FIRST;
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

/* ===================================================================== */
/* prefetching                                                           */
/* ===================================================================== */
/*
 * Once a file is read sequentially (PF_START_BYTES of text since the last
 * seek), a helper thread inflates ahead into a ring of text chunks while the
 * caller parses.  The helper never does I/O: the caller's thread reads
 * compressed blocks from the file (through the file manager, which is not
 * thread-safe) into a small queue whenever it is in OTF_File_read, and the
 * helper takes its input from that queue (pf_take, called by src_fill).
 *
 * Each chunk records where segments start inside it, so OTF_File_tell stays
 * exact.  A seek stops the helper; the decoder is then repositioned as
 * usual, and prefetching starts again after another PF_START_BYTES.
 */
#define PF_CHUNK (512 * 1024)
#define PF_NCHUNK 4
#define PF_BLOCK (256 * 1024)
#define PF_NBLOCK 3
#define PF_MARKS 32
#define PF_START_BYTES (512 * 1024)

struct pf_chunk {
    unsigned char *buf;
    size_t len, off;
    int nmarks;
    struct {
        size_t at;    /* text offset in the chunk */
        uint64_t seg; /* segment start of the text from there on */
    } marks[PF_MARKS];
};

struct pf_block {
    unsigned char *buf;
    size_t len, rd;
};

struct prefetch {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv_main, cv_helper;
    OTF_File *f;
    struct pf_chunk chunk[PF_NCHUNK];
    int c_head, c_count;      /* ready chunks, oldest first */
    struct pf_block block[PF_NBLOCK];
    int b_head, b_count;      /* queued input blocks */
    uint64_t feed_off;        /* offset of the next block the caller reads */
    int feed_eof;             /* no more input will come */
    int feed_err;             /* ... because reading failed */
    char feed_msg[OTF_ERR_LEN];
    int stop;                 /* the caller wants the helper gone */
    int done;                 /* the helper finished */
    enum run_end how;         /* ... this way */
    uint64_t next_seg;        /* segment of the text after the ready chunks */
};

/* Helper side of src_fill: moves queued input into ibuf. */
static int pf_take(struct vftr_zdec *d)
{
    struct prefetch *pf = d->pf;
    pthread_mutex_lock(&pf->mu);
    while (pf->b_count == 0 && !pf->feed_eof && !pf->stop)
        pthread_cond_wait(&pf->cv_helper, &pf->mu);
    if (pf->stop) {
        pthread_mutex_unlock(&pf->mu);
        d->stopped = 1;
        return -1;
    }
    if (pf->b_count == 0) {
        pthread_mutex_unlock(&pf->mu);
        d->src_eof = 1;
        return 0;
    }
    struct pf_block *b = &pf->block[pf->b_head];
    pthread_mutex_unlock(&pf->mu);
    size_t k = b->len - b->rd;
    if (k > d->icap - d->ilen)
        k = d->icap - d->ilen;
    memcpy(d->ibuf + d->ilen, b->buf + b->rd, k);
    d->ilen += k;
    b->rd += k;
    if (b->rd == b->len) {
        pthread_mutex_lock(&pf->mu);
        pf->b_head = (pf->b_head + 1) % PF_NBLOCK;
        pf->b_count--;
        pthread_cond_signal(&pf->cv_main);
        pthread_mutex_unlock(&pf->mu);
    }
    return 1;
}

static void *pf_helper(void *arg)
{
    struct vftr_zdec *d = arg;
    struct prefetch *pf = d->pf;
    for (;;) {
        pthread_mutex_lock(&pf->mu);
        while (pf->c_count == PF_NCHUNK && !pf->stop)
            pthread_cond_wait(&pf->cv_helper, &pf->mu);
        int slot = (pf->c_head + pf->c_count) % PF_NCHUNK;
        int stop = pf->stop;
        pthread_mutex_unlock(&pf->mu);
        if (stop)
            break;
        struct pf_chunk *c = &pf->chunk[slot];
        c->len = c->off = 0;
        c->nmarks = 1;
        c->marks[0].at = 0;
        c->marks[0].seg = d->cur_seg;
        enum run_end how;
        for (;;) {
            size_t k = 0;
            how = run(pf->f, d, c->buf + c->len, PF_CHUNK - c->len, 1, &k);
            c->len += k;
            if (how != RUN_BOUNDARY)
                break;
            if (c->nmarks == PF_MARKS)
                break; /* the next chunk starts with this segment */
            c->marks[c->nmarks].at = c->len;
            c->marks[c->nmarks].seg = d->cur_seg;
            c->nmarks++;
        }
        if (d->stopped)
            break;
        int finished = how == RUN_END || how == RUN_BAD || how == RUN_IOERR;
        pthread_mutex_lock(&pf->mu);
        if (c->len > 0)
            pf->c_count++;
        pf->next_seg = d->cur_seg;
        if (finished) {
            pf->done = 1;
            pf->how = how;
        }
        pthread_cond_signal(&pf->cv_main);
        pthread_mutex_unlock(&pf->mu);
        if (finished)
            break;
    }
    return NULL;
}

/* Caller side: reads compressed blocks into free queue slots.  I/O errors
 * end the input (the helper then sees the data end) and are remembered. */
static void pf_feed(OTF_File *f, struct prefetch *pf)
{
    for (;;) {
        pthread_mutex_lock(&pf->mu);
        if (pf->b_count == PF_NBLOCK || pf->feed_eof) {
            pthread_mutex_unlock(&pf->mu);
            return;
        }
        int slot = (pf->b_head + pf->b_count) % PF_NBLOCK;
        pthread_mutex_unlock(&pf->mu);
        /* the slot is free: the helper does not look at it */
        ssize_t k = vftr_file_pread(f, pf->feed_off, pf->block[slot].buf, PF_BLOCK);
        pthread_mutex_lock(&pf->mu);
        if (k < 0) {
            pf->feed_eof = pf->feed_err = 1;
            snprintf(pf->feed_msg, sizeof pf->feed_msg, "%s", otf_strerr);
        } else if (k == 0) {
            pf->feed_eof = 1;
        } else {
            pf->block[slot].len = (size_t)k;
            pf->block[slot].rd = 0;
            pf->b_count++;
            pf->feed_off += (uint64_t)k;
        }
        pthread_cond_signal(&pf->cv_helper);
        pthread_mutex_unlock(&pf->mu);
        if (k <= 0)
            return;
    }
}

static void pf_free(struct prefetch *pf)
{
    for (int i = 0; i < PF_NCHUNK; i++)
        free(pf->chunk[i].buf);
    for (int i = 0; i < PF_NBLOCK; i++)
        free(pf->block[i].buf);
    free(pf);
}

/* Starts prefetching if it pays and is allowed; otherwise nothing happens. */
static void pf_start(OTF_File *f, struct vftr_zdec *d)
{
    if (d->pf || d->pf_disabled || d->seq_bytes < PF_START_BYTES || d->at_end || d->failed ||
        d->unverified || d->toff < d->tlen || d->seek_pending || !d->ibuf || !f->manager)
        return;
    if (!vftr_filemanager_thread_acquire(f->manager))
        return; /* maybe later, when another file gives its slot back */
    struct prefetch *pf = calloc(1, sizeof *pf);
    if (!pf)
        goto off;
    for (int i = 0; i < PF_NCHUNK; i++)
        if (!(pf->chunk[i].buf = malloc(PF_CHUNK)))
            goto off;
    for (int i = 0; i < PF_NBLOCK; i++)
        if (!(pf->block[i].buf = malloc(PF_BLOCK)))
            goto off;
    pf->f = f;
    pf->feed_off = d->ibase + d->ilen;
    pf->feed_eof = d->src_eof;
    pf->next_seg = d->cur_seg;
    pthread_mutex_init(&pf->mu, NULL);
    pthread_cond_init(&pf->cv_main, NULL);
    pthread_cond_init(&pf->cv_helper, NULL);
    d->pf = pf; /* from here on the decoder belongs to the helper */
    d->stopped = 0;
    if (start_thread(&pf->thread, pf_helper, d) < 0) {
        d->pf = NULL;
        pthread_cond_destroy(&pf->cv_helper);
        pthread_cond_destroy(&pf->cv_main);
        pthread_mutex_destroy(&pf->mu);
        goto off;
    }
    pf_feed(f, pf);
    return;
off:
    if (pf)
        pf_free(pf);
    vftr_filemanager_thread_release(f->manager);
    d->pf_disabled = 1;
}

/* Stops the helper and takes the decoder back.  What it decoded ahead is
 * dropped, so the decoder's position is no longer the caller's: callers
 * reposition it (seek) or give up reading (d->interrupted). */
static void pf_stop(OTF_File *f, struct vftr_zdec *d)
{
    struct prefetch *pf = d->pf;
    if (!pf)
        return;
    pthread_mutex_lock(&pf->mu);
    pf->stop = 1;
    pthread_cond_broadcast(&pf->cv_helper);
    pthread_mutex_unlock(&pf->mu);
    pthread_join(pf->thread, NULL);
    pthread_cond_destroy(&pf->cv_helper);
    pthread_cond_destroy(&pf->cv_main);
    pthread_mutex_destroy(&pf->mu);
    pf_free(pf);
    d->pf = NULL;
    d->stopped = 0;
    vftr_filemanager_thread_release(f->manager);
}

static size_t pf_read(OTF_File *f, struct vftr_zdec *d, unsigned char *out, size_t n)
{
    struct prefetch *pf = d->pf;
    size_t got = 0;
    while (got < n) {
        pthread_mutex_lock(&pf->mu);
        while (pf->c_count == 0 && !pf->done) {
            if (pf->b_count < PF_NBLOCK && !pf->feed_eof) {
                pthread_mutex_unlock(&pf->mu);
                pf_feed(f, pf);
                pthread_mutex_lock(&pf->mu);
                continue;
            }
            pthread_cond_wait(&pf->cv_main, &pf->mu);
        }
        int have = pf->c_count > 0;
        struct pf_chunk *c = &pf->chunk[pf->c_head];
        pthread_mutex_unlock(&pf->mu);
        if (!have)
            break;
        /* a ready chunk is the caller's until it is handed back */
        size_t k = c->len - c->off < n - got ? c->len - c->off : n - got;
        memcpy(out + got, c->buf + c->off, k);
        c->off += k;
        got += k;
        if (c->off == c->len) {
            pthread_mutex_lock(&pf->mu);
            pf->c_head = (pf->c_head + 1) % PF_NCHUNK;
            pf->c_count--;
            pthread_cond_signal(&pf->cv_helper);
            pthread_mutex_unlock(&pf->mu);
        }
    }
    pf_feed(f, pf); /* keep the helper busy while the caller parses */
    if (got == 0) {
        /* The helper is done and everything it made has been read.  A read
         * error ended its input: that is the error, however it ended. */
        if (pf->feed_err) {
            d->failed = 1;
            vftr_otf_seterr("%s", pf->feed_msg);
        } else if (pf->how == RUN_BAD || pf->how == RUN_IOERR) {
            d->failed = 1;
            report_bad(f, d);
        }
    }
    return got;
}

static uint64_t pf_tell(struct vftr_zdec *d)
{
    struct prefetch *pf = d->pf;
    uint64_t seg;
    pthread_mutex_lock(&pf->mu);
    if (pf->c_count > 0) {
        const struct pf_chunk *c = &pf->chunk[pf->c_head];
        int i = c->nmarks - 1;
        while (i > 0 && c->marks[i].at > c->off)
            i--;
        seg = c->marks[i].seg;
    } else {
        seg = pf->next_seg;
    }
    pthread_mutex_unlock(&pf->mu);
    return seg;
}

void vftr_zfile_stop_helpers(OTF_File *f)
{
    if (f->enc)
        enc_stop(f, f->enc);
    if (f->dec && f->dec->pf) {
        pf_stop(f, f->dec);
        if (!f->dec->seek_pending)
            f->dec->interrupted = 1;
    }
}

/* ===================================================================== */
/* the reader's entry points                                             */
/* ===================================================================== */

size_t vftr_zfile_read(OTF_File *f, void *dst, size_t n)
{
    struct vftr_zdec *d = f->dec;
    unsigned char *out = dst;
    size_t got = 0;

    if (d->seek_pending) {
        pf_stop(f, d);
        d->seq_bytes = 0;
        d->interrupted = 0;
        if (resolve_seek(f, d) < 0)
            return 0;
    }
    if (d->interrupted) {
        vftr_otf_seterr("%s: reading was interrupted (its file manager was closed)",
                        vftr_file_name(f));
        return 0;
    }
    if (d->pf)
        return pf_read(f, d, out, n);
    if (d->failed) {
        report_bad(f, d);
        return 0;
    }
    if (d->unverified && verify(f, d) < 0)
        return 0;
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
        if (how == RUN_BAD) {
            d->failed = 1;
            report_bad(f, d);
        }
        /* RUN_IOERR: otf_errno is set; the next read tries again */
    }
    d->seq_bytes += got;
    pf_start(f, d);
    return got;
}

void vftr_zfile_seek(OTF_File *f, uint64_t pos)
{
    struct vftr_zdec *d = f->dec;
    d->seek_pending = 1;
    d->seek_pos = pos;
}

int vftr_zfile_locate(OTF_File *f, uint64_t pos, uint64_t *sync)
{
    struct vftr_zdec *d = f->dec;
    pf_stop(f, d);
    d->seq_bytes = 0;
    d->interrupted = 0;
    d->seek_pos = pos;
    if (resolve_seek(f, d) < 0)
        return -1;
    *sync = pos == 0 ? 0 : d->at_end ? UINT64_MAX : d->sync_at;
    return 0;
}

uint64_t vftr_zfile_tell(OTF_File *f)
{
    struct vftr_zdec *d = f->dec;
    if (d->seek_pending)
        return d->seek_pos;
    if (d->pf)
        return pf_tell(d);
    if (d->unverified)
        return d->sync_at;
    if (d->toff < d->tlen)
        return d->tseg;
    return d->cur_seg;
}
