/*
 * test_file.c — Check suite for OTF_File and OTF_FileManager (file.c,
 * filemanager.c, zfile.c).
 *
 * Expectations come from outside the code under test: zlib's own inflate
 * (streaming, Z_SYNC_FLUSH, as otfdecompress uses it) decodes what we write;
 * zlib's deflate with Z_FULL_FLUSH per segment writes files the way the
 * reference OTF library does, for us to read; segment boundaries are the
 * compressed offsets reported after each write, checked against the bytes
 * 00 00 ff ff in the file.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "OTF_File.h"
#include "OTF_Errno.h"
#include "OTF_FileManager.h"

static char tmpdir[256];

/* Loop tests run once with the library's helper threads (the default) and
 * once without (_i = 1). */
static int no_threads;

static OTF_FileManager *manager(uint32_t n)
{
    OTF_FileManager *m = OTF_FileManager_open(n);
    if (no_threads)
        vftr_otf_filemanager_set_threads(m, 0);
    return m;
}

/* --- helpers ----------------------------------------------------------- */

static char *path(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* OTF-like event text: time lines, process lines, records. */
static char *make_text(size_t n, unsigned seed)
{
    char *t = malloc(n + 64);
    size_t len = 0;
    unsigned long long time = 1000000000ull;
    while (len < n) {
        seed = seed * 1103515245u + 12345u;
        time += 1 + (seed >> 16) % 300;
        unsigned p = 1 + (seed >> 8) % 16, fn = 1 + (seed >> 20) % 20;
        char line[64];
        int k;
        switch ((seed >> 12) % 4) {
        case 0: k = snprintf(line, sizeof line, "%llx\n*%x\nE%x\n", time, p, fn); break;
        case 1: k = snprintf(line, sizeof line, "%llx\n*%x\nL%x\n", time, p, fn); break;
        case 2: k = snprintf(line, sizeof line, "%llx\n*%x\nS%xL4000T%xCf4240\n", time, p, p % 16 + 1, fn); break;
        default: k = snprintf(line, sizeof line, "%llx\n*%x\nR%xL4000T%xCf4240\n", time, p, p % 16 + 1, fn); break;
        }
        memcpy(t + len, line, (size_t)k);
        len += (size_t)k;
    }
    return t; /* the first n bytes are used */
}

static unsigned char *random_bytes(size_t n, unsigned seed)
{
    unsigned char *b = malloc(n);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (unsigned char)(seed >> 16);
    }
    return b;
}

static unsigned char *slurp(const char *name, size_t *len)
{
    FILE *fp = fopen(name, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s", name);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    unsigned char *b = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return b;
}

static void spit(const char *name, const void *p, size_t n)
{
    FILE *fp = fopen(name, "wb");
    ck_assert_msg(fp != NULL, "cannot create %s", name);
    ck_assert_uint_eq(fwrite(p, 1, n, fp), n);
    fclose(fp);
}

/* Decodes a zlib stream (wrapped, or raw with raw=1) with zlib's streaming
 * inflate, as otfdecompress does; returns the text. */
static unsigned char *zlib_decode(const unsigned char *z, size_t zlen, int raw, size_t *outlen)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(inflateInit2(&s, raw ? -15 : 15), Z_OK);
    size_t cap = zlen * 8 + 1024, n = 0;
    unsigned char *out = malloc(cap);
    s.next_in = (Bytef *)z;
    s.avail_in = (uInt)zlen;
    for (;;) {
        if (cap - n < 65536) {
            cap *= 2;
            out = realloc(out, cap);
        }
        s.next_out = out + n;
        s.avail_out = (uInt)(cap - n);
        int rc = inflate(&s, Z_SYNC_FLUSH);
        n = (size_t)(s.next_out - out);
        if (rc == Z_STREAM_END || (rc == Z_BUF_ERROR && s.avail_in == 0))
            break;
        ck_assert_msg(rc == Z_OK, "zlib inflate failed: %d", rc);
        if (s.avail_in == 0 && s.avail_out > 0)
            break;
    }
    inflateEnd(&s);
    *outlen = n;
    return out;
}

struct written {
    size_t nseg;
    uint64_t *bound;  /* compressed offset after segment i (= start of i+1) */
    size_t *tstart;   /* text offset where segment i starts */
};

/* Writes text[0..n) in segments of `seg` bytes through the API. */
static void write_api(const char *name, int level, const char *text, size_t n, size_t seg,
                      uint32_t zbuf, struct written *w)
{
    OTF_FileManager *m = manager(4);
    OTF_File *f = OTF_File_open_zlevel(name, m, OTF_FILEMODE_WRITE, (OTF_FileCompression)level);
    ck_assert_msg(f != NULL, "open for writing: %s", otf_strerr);
    if (zbuf)
        OTF_File_setZBufferSize(f, zbuf);
    size_t nseg = (n + seg - 1) / seg;
    if (w) {
        w->nseg = nseg;
        w->bound = malloc((nseg + 1) * sizeof *w->bound);
        w->tstart = malloc((nseg + 1) * sizeof *w->tstart);
    }
    size_t i = 0;
    for (size_t p = 0; p < n; p += seg, i++) {
        size_t k = n - p < seg ? n - p : seg;
        ck_assert_uint_eq(OTF_File_write(f, text + p, k), k);
        if (w) {
            w->tstart[i] = p;
            w->bound[i] = OTF_File_tell(f);
        }
    }
    if (w)
        w->tstart[nseg] = n;
    ck_assert_msg(OTF_File_close(f) == 1, "close: %s", otf_strerr);
    OTF_FileManager_close(m);
}

static void written_free(struct written *w)
{
    free(w->bound);
    free(w->tstart);
}

/* Reads everything from f in chunks of `chunk` bytes. */
static char *read_all(OTF_File *f, size_t chunk, size_t *len)
{
    size_t cap = 1 << 20, n = 0, k;
    char *b = malloc(cap);
    for (;;) {
        if (cap - n < chunk) {
            cap = 2 * cap + chunk;
            b = realloc(b, cap);
        }
        k = OTF_File_read(f, b + n, chunk);
        if (k == 0)
            break;
        n += k;
    }
    *len = n;
    return b;
}

/* Text expected after seek(pos) on a compressed file: from the first
 * segment that starts at or after pos (pos 0: everything). */
static size_t expected_start(const struct written *w, uint64_t pos, size_t n)
{
    if (pos == 0)
        return 0;
    for (size_t i = 0; i < w->nseg; i++)
        if (w->bound[i] >= pos)
            return w->tstart[i + 1];
    return n;
}

static int is_marker_at_end(const unsigned char *z, uint64_t end)
{
    return end >= 4 && memcmp(z + end - 4, "\0\0\xff\xff", 4) == 0;
}

/* --- plain files ------------------------------------------------------- */

START_TEST(test_plain_roundtrip)
{
    const size_t n = 300000;
    char *text = make_text(n, 1);
    const uint32_t zbufs[] = {64, 1000, 0};
    const size_t segs[] = {1, 7, 1000, 100000};
    const size_t chunks[] = {1, 13, 4096, 1 << 20};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 4; b++) {
            size_t seg = segs[b], len = seg == 1 ? 5000 : n;
            write_api(path("plain"), 4, text, len, seg, zbufs[a], NULL);
            size_t flen;
            unsigned char *disk = slurp(path("plain"), &flen);
            ck_assert_uint_eq(flen, len);
            ck_assert(memcmp(disk, text, len) == 0);
            free(disk);
            OTF_FileManager *m = manager(1);
            OTF_File *f = OTF_File_open(path("plain"), m, OTF_FILEMODE_READ);
            ck_assert_ptr_nonnull(f);
            ck_assert_uint_eq(OTF_File_size(f), len);
            size_t got;
            char *back = read_all(f, chunks[(a + b) % 4], &got);
            ck_assert_uint_eq(got, len);
            ck_assert(memcmp(back, text, len) == 0);
            ck_assert_uint_eq(OTF_File_tell(f), len);
            /* plain seek is exact */
            ck_assert_int_eq(OTF_File_seek(f, len / 3), 0);
            ck_assert_uint_eq(OTF_File_tell(f), len / 3);
            char buf[100];
            size_t k = OTF_File_read(f, buf, sizeof buf);
            ck_assert_uint_eq(k, sizeof buf);
            ck_assert(memcmp(buf, text + len / 3, k) == 0);
            ck_assert_int_eq(OTF_File_seek(f, len + 50), 0);
            ck_assert_uint_eq(OTF_File_read(f, buf, sizeof buf), 0);
            free(back);
            OTF_File_close(f);
            OTF_FileManager_close(m);
        }
    free(text);
}
END_TEST

START_TEST(test_plain_tell_size_while_writing)
{
    OTF_FileManager *m = manager(2);
    OTF_File *f = OTF_File_open(path("tw"), m, OTF_FILEMODE_WRITE);
    ck_assert_uint_eq(OTF_File_tell(f), 0);
    ck_assert_uint_eq(OTF_File_write(f, "abc\n", 4), 4);
    ck_assert_uint_eq(OTF_File_write(f, "de\n", 3), 3);
    ck_assert_uint_eq(OTF_File_tell(f), 7);
    ck_assert_uint_eq(OTF_File_size(f), 7);
    ck_assert_uint_eq(OTF_File_write(f, "", 0), 0);
    ck_assert_int_eq(OTF_File_close(f), 1);
    OTF_FileManager_close(m);
}
END_TEST

/* --- compressed files ---------------------------------------------------- */

static void check_compressed_file(const char *name, const char *text, size_t n,
                                  const struct written *w)
{
    size_t zlen;
    unsigned char *z = slurp(name, &zlen);
    /* a zlib header zlib accepts */
    ck_assert_uint_ge(zlen, 6);
    ck_assert_uint_eq(z[0], 0x78);
    ck_assert_uint_eq(((unsigned)z[0] << 8 | z[1]) % 31, 0);
    ck_assert_uint_eq(z[1] & 0x20, 0);
    /* zlib decodes the whole text, streaming like otfdecompress */
    size_t tlen;
    unsigned char *t = zlib_decode(z, zlen, 0, &tlen);
    ck_assert_uint_eq(tlen, n);
    ck_assert(memcmp(t, text, n) == 0);
    free(t);
    /* every segment ends with a full flush and the stream is not finished */
    ck_assert_uint_eq(w->bound[w->nseg - 1], zlen);
    for (size_t i = 0; i < w->nseg; i++)
        ck_assert_msg(is_marker_at_end(z, w->bound[i]), "segment %zu does not end in 00 00 ff ff",
                      i);
    /* segments decode independently: raw inflate from a few boundaries */
    for (size_t i = 0; i + 1 < w->nseg; i += 1 + w->nseg / 5) {
        t = zlib_decode(z + w->bound[i], zlen - w->bound[i], 1, &tlen);
        ck_assert_uint_eq(tlen, n - w->tstart[i + 1]);
        ck_assert(memcmp(t, text + w->tstart[i + 1], tlen) == 0);
        free(t);
    }
    free(z);
}

START_TEST(test_z_roundtrip)
{
    no_threads = _i;
    const size_t n = 1500000;
    char *text = make_text(n, 2);
    const int levels[] = {0, 1, 4, 5, 9};
    const size_t segs[] = {1, 100, 4093, 65536, 1 << 20};
    const uint32_t zbufs[] = {64, 0};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t c = 0; c < 2; c++) {
                size_t seg = segs[b];
                size_t len = seg == 1 ? 2000 : seg == 100 ? 100000 : n;
                struct written w;
                write_api(path("rt.z"), levels[a], text, len, seg, zbufs[c], &w);
                check_compressed_file(path("rt.z"), text, len, &w);
                OTF_FileManager *m = manager(1);
                /* opened by the name without .z: read decompressed */
                OTF_File *f = OTF_File_open(path("rt"), m, OTF_FILEMODE_READ);
                ck_assert_ptr_nonnull(f);
                if (c == 0)
                    OTF_File_setZBufferSize(f, 64 + 37 * (unsigned)b);
                const size_t chunks[] = {1, 100, 8191, 1 << 20};
                size_t got;
                char *back = read_all(f, chunks[(a + b + c) % 4], &got);
                ck_assert_msg(got == len, "level %d seg %zu: read %zu of %zu (%s)", levels[a],
                              seg, got, len, otf_strerr);
                ck_assert(memcmp(back, text, len) == 0);
                ck_assert_uint_eq(OTF_File_tell(f), w.bound[w.nseg - 1]);
                free(back);
                OTF_File_close(f);
                OTF_FileManager_close(m);
                written_free(&w);
            }
    free(text);
}
END_TEST

START_TEST(test_z_level_header)
{
    /* FLEVEL as zlib writes it; level 4 gives the reference's 78 5e */
    const int levels[] = {0, 1, 2, 4, 5, 6, 9};
    const unsigned char second[] = {0x01, 0x01, 0x5e, 0x5e, 0x5e, 0x9c, 0xda};
    char *text = make_text(1000, 3);
    for (size_t i = 0; i < 7; i++) {
        struct written w;
        write_api(path("hd.z"), levels[i], text, 1000, 1000, 0, &w);
        size_t zlen;
        unsigned char *z = slurp(path("hd.z"), &zlen);
        ck_assert_uint_eq(z[0], 0x78);
        ck_assert_uint_eq(z[1], second[i]);
        free(z);
        written_free(&w);
    }
    free(text);
}
END_TEST

START_TEST(test_z_seek)
{
    no_threads = _i;
    const size_t n = 1200000;
    char *text = make_text(n, 4);
    const size_t segs[] = {4093, 65536, 300000};
    for (size_t b = 0; b < 3; b++) {
        struct written w;
        write_api(path("sk.z"), 4, text, n, segs[b], 0, &w);
        uint64_t zsize = w.bound[w.nseg - 1];
        OTF_FileManager *m = manager(1);
        OTF_File *f = OTF_File_open(path("sk"), m, OTF_FILEMODE_READ);
        ck_assert_uint_eq(OTF_File_size(f), zsize);
        char *buf = malloc(n + 1);
        for (uint64_t pos = 0; pos <= zsize + 10; pos += 1 + zsize / 97 + (pos % 7)) {
            ck_assert_int_eq(OTF_File_seek(f, pos), 0);
            size_t got, exp = expected_start(&w, pos, n);
            char *back = read_all(f, 50000, &got);
            ck_assert_msg(got == n - exp, "seg %zu pos %llu: %zu bytes, expected %zu", segs[b],
                          (unsigned long long)pos, got, n - exp);
            ck_assert(memcmp(back, text + exp, got) == 0);
            free(back);
        }
        /* exactly at and around every boundary */
        for (size_t i = 0; i + 1 < w.nseg; i += 1 + w.nseg / 20)
            for (int d = -5; d <= 1; d++) {
                uint64_t pos = w.bound[i] + (uint64_t)(int64_t)d;
                OTF_File_seek(f, pos);
                size_t exp = expected_start(&w, pos, n);
                size_t k = OTF_File_read(f, buf, 100);
                ck_assert_uint_eq(k, n - exp < 100 ? n - exp : 100);
                ck_assert(memcmp(buf, text + exp, k) == 0);
            }
        free(buf);
        OTF_File_close(f);
        OTF_FileManager_close(m);
        written_free(&w);
    }
    free(text);
}
END_TEST

/* tell() on a compressed file being read: seeking there never skips text
 * not read yet, and returns to the start of the segment in use. */
START_TEST(test_z_tell)
{
    no_threads = _i;
    const size_t n = 700000, seg = 10007;
    char *text = make_text(n, 5);
    struct written w;
    write_api(path("tl.z"), 4, text, n, seg, 0, &w);
    OTF_FileManager *m = manager(2);
    OTF_File *f = OTF_File_open(path("tl"), m, OTF_FILEMODE_READ);
    ck_assert_uint_eq(OTF_File_tell(f), 0);
    char *buf = malloc(n);
    size_t consumed = 0;
    unsigned step = 1;
    while (consumed < n) {
        step = step * 7 % 30011 + 1;
        size_t k = OTF_File_read(f, buf, step);
        ck_assert_uint_gt(k, 0);
        ck_assert(memcmp(buf, text + consumed, k) == 0);
        consumed += k;
        uint64_t t = OTF_File_tell(f);
        /* t is a segment start (or 0) */
        size_t j = 0;
        int found = t == 0;
        for (j = 0; !found && j < w.nseg; j++)
            found = w.bound[j] == t;
        ck_assert_msg(found, "tell %llu is not a segment start", (unsigned long long)t);
        size_t s = t == 0 ? 0 : w.tstart[j];
        /* it does not skip unread text and is not older than needed */
        ck_assert_uint_le(s, consumed);
        ck_assert_uint_ge(s + seg, consumed);
        /* going there and back: the same text continues */
        OTF_File_seek(f, t);
        size_t skip = consumed - s;
        while (skip > 0) {
            size_t r = OTF_File_read(f, buf, skip < n ? skip : n);
            ck_assert_uint_gt(r, 0);
            ck_assert(memcmp(buf, text + (consumed - skip), r) == 0);
            skip -= r;
        }
    }
    ck_assert_uint_eq(OTF_File_read(f, buf, 10), 0);
    ck_assert_uint_eq(OTF_File_tell(f), w.bound[w.nseg - 1]);
    free(buf);
    OTF_File_close(f);
    OTF_FileManager_close(m);
    written_free(&w);
    free(text);
}
END_TEST

/* tell() during a long sequential read (read-ahead in a helper thread, with
 * many segments per chunk of text): the start of the segment holding the
 * next unread byte, or at a segment's very end that segment's start. */
START_TEST(test_z_tell_sequential)
{
    no_threads = _i;
    const size_t n = 3000000;
    char *text = make_text(n, 11);
    const size_t segs[] = {3001, 100000};
    for (int b = 0; b < 2; b++) {
        size_t seg = segs[b];
        struct written w;
        write_api(path("tq.z"), 4, text, n, seg, 0, &w);
        OTF_FileManager *m = manager(2);
        OTF_File *f = OTF_File_open(path("tq"), m, OTF_FILEMODE_READ);
        char *buf = malloc(1 << 20);
        size_t consumed = 0, k;
        unsigned step = 3;
        while ((k = OTF_File_read(f, buf, step)) > 0) {
            ck_assert(memcmp(buf, text + consumed, k) == 0);
            consumed += k;
            step = (step * 11 + 7) % (1 << 20) + 1;
            uint64_t t = OTF_File_tell(f);
            size_t cur = consumed / seg, prev = consumed > 0 ? (consumed - 1) / seg : 0;
            uint64_t s_cur = cur == 0 ? 0 : w.bound[cur - 1];
            uint64_t s_prev = prev == 0 ? 0 : w.bound[prev - 1];
            if (consumed == n)
                ck_assert(t == w.bound[w.nseg - 1] || t == s_prev);
            else
                ck_assert_msg(t == s_cur || (consumed % seg == 0 && t == s_prev),
                              "seg %zu: after %zu bytes tell %llu, expected %llu", seg, consumed,
                              (unsigned long long)t, (unsigned long long)s_cur);
        }
        ck_assert_uint_eq(consumed, n);
        ck_assert_uint_eq(OTF_File_tell(f), w.bound[w.nseg - 1]);
        free(buf);
        OTF_File_close(f);
        OTF_FileManager_close(m);
        written_free(&w);
    }
    free(text);
}
END_TEST

/* After a jump behind a sync point the header must be expected again at 0
 * (the reference loses it with zlib >= 1.2.12). */
START_TEST(test_z_seek_back_to_zero)
{
    const size_t n = 400000;
    char *text = make_text(n, 6);
    struct written w;
    write_api(path("s0.z"), 4, text, n, 50000, 0, &w);
    OTF_FileManager *m = manager(1);
    OTF_File *f = OTF_File_open(path("s0"), m, OTF_FILEMODE_READ);
    char buf[64];
    OTF_File_seek(f, w.bound[w.nseg - 3] - 100);
    ck_assert_uint_gt(OTF_File_read(f, buf, sizeof buf), 0);
    /* inside the last segment: nothing follows a sync point */
    OTF_File_seek(f, w.bound[w.nseg - 2] + 1);
    ck_assert_uint_eq(OTF_File_read(f, buf, sizeof buf), 0);
    for (int rep = 0; rep < 3; rep++) {
        ck_assert_int_eq(OTF_File_seek(f, 0), 0);
        size_t got;
        char *back = read_all(f, 65536, &got);
        ck_assert_uint_eq(got, n);
        ck_assert(memcmp(back, text, n) == 0);
        free(back);
        OTF_File_seek(f, w.bound[2] - 1);
        ck_assert_uint_eq(OTF_File_read(f, buf, 10), 10);
        ck_assert(memcmp(buf, text + w.tstart[3], 10) == 0);
    }
    /* 1 and 2 lie inside the header: the next sync point is used */
    OTF_File_seek(f, 1);
    ck_assert_uint_eq(OTF_File_read(f, buf, 10), 10);
    ck_assert(memcmp(buf, text + w.tstart[1], 10) == 0);
    OTF_File_close(f);
    OTF_FileManager_close(m);
    written_free(&w);
    free(text);
}
END_TEST

/* Files laid out as the reference writes them: zlib deflate, level 4, a
 * full flush per 1 MiB buffer (here: per segment of varying size). */
START_TEST(test_z_read_reference_layout)
{
    no_threads = _i;
    const size_t n = 2500000;
    char *text = make_text(n, 7);
    z_stream s;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(deflateInit(&s, 4), Z_OK);
    size_t cap = n + 65536, zl = 0;
    unsigned char *z = malloc(cap);
    struct written w = {0, malloc(64 * sizeof(uint64_t)), malloc(64 * sizeof(size_t))};
    size_t p = 0;
    const size_t segs[] = {1048564, 1048563, 10240, 300001};
    while (p < n) {
        size_t k = segs[w.nseg % 4];
        if (k > n - p)
            k = n - p;
        s.next_in = (Bytef *)text + p;
        s.avail_in = (uInt)k;
        do {
            s.next_out = z + zl;
            s.avail_out = (uInt)(cap - zl);
            deflate(&s, Z_FULL_FLUSH);
            zl = (size_t)(s.next_out - z);
        } while (s.avail_out == 0);
        w.tstart[w.nseg] = p;
        w.bound[w.nseg++] = zl;
        p += k;
    }
    w.tstart[w.nseg] = n;
    deflateEnd(&s);
    ck_assert_uint_eq(z[1], 0x5e);
    spit(path("ref.events.z"), z, zl);
    OTF_FileManager *m = manager(3);
    OTF_File *f = OTF_File_open(path("ref.events"), m, OTF_FILEMODE_READ);
    size_t got;
    char *back = read_all(f, 1 << 20, &got);
    ck_assert_uint_eq(got, n);
    ck_assert(memcmp(back, text, n) == 0);
    free(back);
    for (uint64_t pos = 1; pos < zl; pos += zl / 13) {
        OTF_File_seek(f, pos);
        size_t exp = expected_start(&w, pos, n);
        back = read_all(f, 1 << 20, &got);
        ck_assert_uint_eq(got, n - exp);
        ck_assert(memcmp(back, text + exp, got) == 0);
        free(back);
    }
    OTF_File_close(f);
    OTF_FileManager_close(m);
    written_free(&w);
    free(z);
    free(text);
}
END_TEST

/* Segments whose compressed bytes contain 00 00 ff ff by chance: random
 * (incompressible) data is stored verbatim, marker included. */
START_TEST(test_z_false_sync)
{
    no_threads = _i;
    const size_t nseg = 12, seglen = 20000;
    size_t n = nseg * seglen;
    char *text = malloc(n);
    char *ev = make_text(n, 8);
    for (size_t i = 0; i < nseg; i++) {
        if (i % 2 == 0) {
            unsigned char *r = random_bytes(seglen, (unsigned)i + 100);
            /* a few false markers, one followed by bytes that form a valid
             * final stored block ("HELLO"), which must not be taken */
            memcpy(r + 1000, "\0\0\xff\xff", 4);
            memcpy(r + 7000, "\0\0\xff\xff\x01\x05\x00\xfa\xffHELLO", 14);
            memcpy(r + seglen - 20, "\0\0\xff\xff", 4);
            memcpy(text + i * seglen, r, seglen);
            free(r);
        } else {
            memcpy(text + i * seglen, ev + i * seglen, seglen);
        }
    }
    const int levels[] = {0, 4, 9};
    for (size_t l = 0; l < 3; l++) {
        struct written w;
        write_api(path("fs.z"), levels[l], text, n, seglen, 0, &w);
        check_compressed_file(path("fs.z"), text, n, &w);
        size_t zlen;
        unsigned char *z = slurp(path("fs.z"), &zlen);
        /* make sure the file really holds false markers */
        size_t falses = 0;
        for (size_t i = 4; i <= zlen; i++)
            if (is_marker_at_end(z, i)) {
                int real = 0;
                for (size_t j = 0; j < w.nseg; j++)
                    real |= w.bound[j] == i;
                falses += !real;
            }
        ck_assert_uint_ge(falses, 6);
        free(z);
        OTF_FileManager *m = manager(1);
        OTF_File *f = OTF_File_open(path("fs"), m, OTF_FILEMODE_READ);
        size_t got;
        char *back = read_all(f, 4096, &got);
        ck_assert_uint_eq(got, n);
        ck_assert(memcmp(back, text, n) == 0);
        free(back);
        for (uint64_t pos = 1; pos < zlen; pos += 97) {
            OTF_File_seek(f, pos);
            size_t exp = expected_start(&w, pos, n);
            char buf[256];
            size_t k = OTF_File_read(f, buf, sizeof buf);
            size_t want = n - exp < sizeof buf ? n - exp : sizeof buf;
            ck_assert_msg(k == want, "level %d pos %llu: %zu bytes, expected %zu (%s)",
                          levels[l], (unsigned long long)pos, k, want, otf_strerr);
            ck_assert_msg(memcmp(buf, text + exp, k) == 0, "level %d pos %llu: wrong text",
                          levels[l], (unsigned long long)pos);
            /* tell after a false sync is the real segment start */
            uint64_t t = OTF_File_tell(f);
            if (exp < n)
                ck_assert_uint_eq(t, pos == 0 ? 0 : w.bound[exp / seglen - 1]);
        }
        OTF_File_close(f);
        OTF_FileManager_close(m);
        written_free(&w);
    }
    free(ev);
    free(text);
}
END_TEST

/* Hand-made stored blocks: "seg1...<false marker><final block HELLO>" then
 * a real sync, then "WORLD".  A seek before the false marker must not
 * deliver HELLO. */
START_TEST(test_z_false_sync_crafted)
{
    unsigned char z[256];
    size_t zl = 0;
    z[zl++] = 0x78;
    z[zl++] = 0x01;
    const char seg1[] = "abc\0\0\xff\xff\x01\x05\x00\xfa\xffHELLOdef\n";
    size_t l1 = sizeof seg1 - 1;
    z[zl++] = 0x00;
    z[zl++] = (unsigned char)l1;
    z[zl++] = 0;
    z[zl++] = (unsigned char)~l1;
    z[zl++] = 0xff;
    memcpy(z + zl, seg1, l1);
    zl += l1;
    memcpy(z + zl, "\0\0\0\xff\xff", 5);
    zl += 5;
    size_t sync1 = zl;
    const char seg2[] = "WORLD\n";
    z[zl++] = 0x00;
    z[zl++] = 6;
    z[zl++] = 0;
    z[zl++] = (unsigned char)~6;
    z[zl++] = 0xff;
    memcpy(z + zl, seg2, 6);
    zl += 6;
    memcpy(z + zl, "\0\0\0\xff\xff", 5);
    zl += 5;
    spit(path("cr.z"), z, zl);
    OTF_FileManager *m = manager(1);
    OTF_File *f = OTF_File_open(path("cr"), m, OTF_FILEMODE_READ);
    char buf[64];
    size_t k = OTF_File_read(f, buf, sizeof buf);
    ck_assert_uint_eq(k, l1 + 6);
    ck_assert(memcmp(buf, seg1, l1) == 0 && memcmp(buf + l1, seg2, 6) == 0);
    for (uint64_t pos = 1; pos <= sync1; pos++) {
        OTF_File_seek(f, pos);
        k = OTF_File_read(f, buf, sizeof buf);
        ck_assert_msg(k == 6 && memcmp(buf, "WORLD\n", 6) == 0, "pos %llu: got %zu bytes",
                      (unsigned long long)pos, k);
        ck_assert_uint_eq(OTF_File_tell(f), zl);
    }
    /* the same through a compressed external buffer */
    OTF_File *e = OTF_File_open_with_external_buffer((uint32_t)zl, (const char *)z, 1,
                                                     OTF_FILEMODE_READ);
    OTF_File_seek(e, 9);
    k = OTF_File_read(e, buf, sizeof buf);
    ck_assert(k == 6 && memcmp(buf, "WORLD\n", 6) == 0);
    OTF_File_close(e);
    OTF_File_close(f);
    OTF_FileManager_close(m);
}
END_TEST

/* Truncated or damaged compressed files: errors, never crashes. */
START_TEST(test_z_truncated_and_corrupt)
{
    no_threads = _i;
    const size_t n = 300000;
    char *text = make_text(n, 9);
    struct written w;
    write_api(path("tr.z"), 4, text, n, 65536, 0, &w);
    size_t zlen;
    unsigned char *z = slurp(path("tr.z"), &zlen);
    const size_t cuts[] = {0, 1, 2, 3, 100, zlen / 2, w.bound[1], w.bound[1] + 1, zlen - 1, zlen - 5};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        spit(path("cut.z"), z, cuts[c]);
        OTF_FileManager *m = manager(1);
        OTF_File *f = OTF_File_open(path("cut"), m, OTF_FILEMODE_READ);
        ck_assert_ptr_nonnull(f);
        otf_errno = OTF_NO_ERROR;
        size_t got;
        char *back = read_all(f, 10000, &got);
        ck_assert_uint_le(got, n);
        ck_assert(memcmp(back, text, got) == 0);
        int clean = cuts[c] == 0 || cuts[c] == 2 || cuts[c] == w.bound[1];
        if (cuts[c] == zlen - 5 && otf_errno == OTF_NO_ERROR) {
            /* only the final flush block is missing: if the last data block
             * ended on a byte boundary, all text is there and that is fine */
            ck_assert_uint_eq(got, n);
        } else if (clean) {
            ck_assert_msg(otf_errno == OTF_NO_ERROR, "cut %zu: unexpected error %s", cuts[c],
                          otf_strerr);
        } else {
            ck_assert_msg(otf_errno == OTF_ERROR, "cut %zu: no error reported", cuts[c]);
            ck_assert_ptr_nonnull(strstr(otf_strerr, "cut.z"));
        }
        if (cuts[c] == w.bound[1])
            ck_assert_uint_eq(got, w.tstart[2]);
        /* reading on stays at 0, and a seek from the middle copes too */
        ck_assert_uint_eq(OTF_File_read(f, back, 100), 0);
        OTF_File_seek(f, cuts[c] / 2 + 1);
        free(back);
        back = read_all(f, 10000, &got);
        ck_assert_uint_le(got, n);
        free(back);
        OTF_File_close(f);
        OTF_FileManager_close(m);
    }
    /* a bad header */
    unsigned char *bad = malloc(zlen);
    memcpy(bad, z, zlen);
    bad[0] = 0x00;
    spit(path("bad.z"), bad, zlen);
    OTF_FileManager *m = manager(1);
    OTF_File *f = OTF_File_open(path("bad"), m, OTF_FILEMODE_READ);
    otf_errno = OTF_NO_ERROR;
    char buf[100];
    ck_assert_uint_eq(OTF_File_read(f, buf, sizeof buf), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    OTF_File_close(f);
    /* garbage in the middle: some text, then an error or garbage, no crash */
    memcpy(bad, z, zlen);
    for (size_t i = zlen / 3; i < zlen / 3 + 200; i++)
        bad[i] ^= 0x5a;
    spit(path("bad.z"), bad, zlen);
    f = OTF_File_open(path("bad"), m, OTF_FILEMODE_READ);
    size_t got;
    char *back = read_all(f, 7000, &got);
    free(back);
    for (uint64_t pos = 1; pos < zlen; pos += zlen / 17) {
        OTF_File_seek(f, pos);
        back = read_all(f, 7000, &got);
        free(back);
    }
    OTF_File_close(f);
    OTF_FileManager_close(m);
    free(bad);
    free(z);
    written_free(&w);
    free(text);
}
END_TEST

/* The zbuffer collects compressed output and is written when it fills. */
START_TEST(test_z_zbuffer)
{
    char *text = make_text(200000, 10);
    OTF_FileManager *m = manager(2);
    OTF_File *f = OTF_File_open(path("zb.z"), m, OTF_FILEMODE_WRITE);
    ck_assert_uint_eq(OTF_File_write(f, text, 1000), 1000);
    struct stat st;
    ck_assert_int_eq(stat(path("zb.z"), &st), 0); /* created by the first write */
    ck_assert_int_eq(st.st_size, 0);              /* but the output is still buffered */
    uint64_t t = OTF_File_tell(f);
    ck_assert_uint_gt(t, 2);
    ck_assert_uint_eq(OTF_File_size(f), t);
    OTF_File_setZBufferSize(f, 4096); /* writes what is pending */
    ck_assert_int_eq(stat(path("zb.z"), &st), 0);
    ck_assert_uint_eq((uint64_t)st.st_size, t);
    for (size_t p = 1000; p + 10000 <= 200000; p += 10000)
        ck_assert_uint_eq(OTF_File_write(f, text + p, 10000), 10000);
    ck_assert_int_eq(stat(path("zb.z"), &st), 0);
    ck_assert_uint_gt((uint64_t)st.st_size, OTF_File_tell(f) - 4096);
    ck_assert_int_eq(OTF_File_close(f), 1);
    OTF_FileManager_close(m);
    free(text);
}
END_TEST

/* --- manager --------------------------------------------------------------- */

static void manager_roundtrip(uint32_t limit, int compressed)
{
    enum { NF = 7 };
    const size_t n = 120000;
    char *text[NF];
    OTF_File *f[NF];
    char name[NF][64];
    OTF_FileManager *m = manager(limit);
    for (int i = 0; i < NF; i++) {
        text[i] = make_text(n, 20 + (unsigned)i);
        snprintf(name[i], sizeof name[i], "mg%d.%d%s", i, (int)limit, compressed ? ".z" : "");
        f[i] = OTF_File_open(path(name[i]), m, OTF_FILEMODE_WRITE);
        ck_assert_ptr_nonnull(f[i]);
        OTF_File_setZBufferSize(f[i], 256);
    }
    /* round robin, pieces of different sizes */
    size_t pos[NF] = {0};
    for (int round = 0; round < 400; round++)
        for (int i = 0; i < NF; i++) {
            size_t k = 1 + (size_t)((round * 31 + i * 17) % 700);
            if (k > n - pos[i])
                k = n - pos[i];
            if (k == 0)
                continue;
            ck_assert_uint_eq(OTF_File_write(f[i], text[i] + pos[i], k), k);
            pos[i] += k;
            ck_assert_uint_le(OTF_FileManager_getCount(m), limit);
        }
    for (int i = 0; i < NF; i++) {
        if (pos[i] < n)
            OTF_File_write(f[i], text[i] + pos[i], n - pos[i]);
        ck_assert_int_eq(OTF_File_close(f[i]), 1);
    }
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 0);
    /* read m of n back, interleaved */
    for (int i = 0; i < NF; i++) {
        char stub[64];
        snprintf(stub, sizeof stub, "mg%d.%d", i, (int)limit);
        f[i] = OTF_File_open(path(compressed ? stub : name[i]), m, OTF_FILEMODE_READ);
        ck_assert_ptr_nonnull(f[i]);
        ck_assert_int_eq(OTF_File_status(f[i]), OTF_FILESTATUS_CLOSED);
        OTF_File_setZBufferSize(f[i], 512);
        pos[i] = 0;
    }
    char buf[2048];
    int busy = 1;
    for (int round = 0; busy; round++) {
        busy = 0;
        for (int i = 0; i < NF; i++) {
            size_t k = OTF_File_read(f[i], buf, 1 + (size_t)((round * 13 + i * 7) % 2000));
            ck_assert_uint_le(pos[i] + k, n);
            ck_assert(memcmp(buf, text[i] + pos[i], k) == 0);
            pos[i] += k;
            busy |= k > 0;
            ck_assert_uint_le(OTF_FileManager_getCount(m), limit);
            if (compressed && round == 50 && i == 3) {
                /* a seek on a file while others take turns */
                OTF_File_seek(f[i], 0);
                pos[i] = 0;
            }
        }
    }
    for (int i = 0; i < NF; i++) {
        ck_assert_uint_eq(pos[i], n);
        OTF_File_close(f[i]);
        free(text[i]);
    }
    OTF_FileManager_close(m);
}

START_TEST(test_manager_limits)
{
    no_threads = _i;
    manager_roundtrip(1, 0);
    manager_roundtrip(2, 0);
    manager_roundtrip(1, 1);
    manager_roundtrip(2, 1);
    manager_roundtrip(100, 1);
}
END_TEST

START_TEST(test_manager_api)
{
    OTF_FileManager *m = OTF_FileManager_open(0);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(OTF_FileManager_getNumber(m), 10);
    otf_errno = OTF_NO_ERROR;
    ck_assert_uint_eq(OTF_FileManager_setNumber(m, 0), 10);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_uint_eq(OTF_FileManager_setNumber(m, 1), 1);
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 0);

    OTF_File *a = OTF_File_open(path("ma"), m, OTF_FILEMODE_WRITE);
    OTF_File *b = OTF_File_open(path("mb"), m, OTF_FILEMODE_WRITE);
    ck_assert_int_eq(OTF_File_status(a), OTF_FILESTATUS_CLOSED);
    ck_assert_int_eq(OTF_FileManager_touchFile(m, a), 0);
    ck_assert_uint_eq(OTF_File_write(a, "a1\n", 3), 3);
    ck_assert_int_eq(OTF_File_status(a), OTF_FILESTATUS_ACTIVE);
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 1);
    ck_assert_uint_eq(OTF_File_write(b, "b1\n", 3), 3);
    ck_assert_int_eq(OTF_File_status(a), OTF_FILESTATUS_SUSPENDED);
    ck_assert_int_eq(OTF_File_status(b), OTF_FILESTATUS_ACTIVE);
    ck_assert_int_eq(OTF_FileManager_touchFile(m, a), 0);
    ck_assert_int_eq(OTF_FileManager_touchFile(m, b), 1);
    ck_assert_int_eq(OTF_FileManager_suspendFile(m, b), 1);
    ck_assert_int_eq(OTF_FileManager_suspendFile(m, b), 0);
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 0);
    ck_assert_int_eq(OTF_File_revive(a, OTF_FILEMODE_WRITE), 1);
    ck_assert_int_eq(OTF_File_status(a), OTF_FILESTATUS_ACTIVE);
    ck_assert_uint_eq(OTF_FileManager_setNumber(m, 5), 5);
    ck_assert_int_eq(OTF_File_revive(b, OTF_FILEMODE_WRITE), 1);
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 2);
    OTF_File_suspend(a);
    ck_assert_int_eq(OTF_File_status(a), OTF_FILESTATUS_SUSPENDED);
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 1);
    /* a lowered limit takes effect at the next open */
    OTF_File_revive(a, OTF_FILEMODE_WRITE);
    ck_assert_uint_eq(OTF_FileManager_setNumber(m, 1), 1);
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 2);
    ck_assert_int_eq(OTF_FileManager_guaranteeFile(m), 1);
    ck_assert_uint_eq(OTF_FileManager_getCount(m), 0);
    ck_assert_uint_eq(OTF_File_write(a, "a2\n", 3), 3);
    ck_assert_uint_eq(OTF_File_write(b, "b2\n", 3), 3);
    ck_assert_int_eq(OTF_File_close(a), 1);
    ck_assert_int_eq(OTF_File_close(b), 1);
    size_t l;
    unsigned char *c = slurp(path("ma"), &l);
    ck_assert(l == 6 && memcmp(c, "a1\na2\n", 6) == 0);
    free(c);
    c = slurp(path("mb"), &l);
    ck_assert(l == 6 && memcmp(c, "b1\nb2\n", 6) == 0);
    free(c);

    /* iofsl is reported as unsupported */
    otf_errno = OTF_NO_ERROR;
    ck_assert_int_eq(OTF_FileManager_setIofsl(m, 1, NULL, OTF_IOFSL_MULTIFILE, 0, 0, 0), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    uint32_t num = 7, fl = 7, ibl = 7, sb = 7;
    char **list = (char **)&num;
    OTF_IofslMode mode = OTF_IOFSL_MULTIFILE;
    ck_assert_int_eq(OTF_FileManager_getIofsl(m, &num, &list, &mode, &fl, &ibl, &sb), 0);
    ck_assert(num == 0 && list == NULL && mode == OTF_IOFSL_DISABLED && fl == 0 && ibl == 0 &&
              sb == 0);
    ck_assert_int_eq(OTF_FileManager_isIofsl(m), 0);
    OTF_FileManager_close(m);
}
END_TEST

/* Closing a manager under open files: they are suspended (data on disk) and
 * later accesses fail cleanly. */
START_TEST(test_manager_closed_first)
{
    OTF_FileManager *m = manager(3);
    OTF_File *w = OTF_File_open(path("mc.z"), m, OTF_FILEMODE_WRITE);
    ck_assert_uint_eq(OTF_File_write(w, "hello\n", 6), 6);
    spit(path("mcr"), "read me\n", 8);
    OTF_File *r = OTF_File_open(path("mcr"), m, OTF_FILEMODE_READ);
    char buf[4];
    ck_assert_uint_eq(OTF_File_read(r, buf, 4), 4);
    OTF_FileManager_close(m);
    otf_errno = OTF_NO_ERROR;
    ck_assert_uint_eq(OTF_File_read(r, buf, 4), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_int_eq(OTF_File_close(r), 1);
    ck_assert_int_eq(OTF_File_close(w), 1);
    /* a compressed file read ahead by a helper thread */
    const size_t n = 3000000;
    char *text = make_text(n, 12);
    write_api(path("mcz.z"), 4, text, n, 100000, 0, NULL);
    m = OTF_FileManager_open(2);
    OTF_File *z2 = OTF_File_open(path("mcz"), m, OTF_FILEMODE_READ);
    char *big = malloc(1 << 20);
    ck_assert_uint_eq(OTF_File_read(z2, big, 1 << 20), 1 << 20);
    ck_assert_uint_eq(OTF_File_read(z2, big, 1 << 20), 1 << 20);
    ck_assert(memcmp(big, text + (1 << 20), 1 << 20) == 0);
    OTF_FileManager_close(m);
    otf_errno = OTF_NO_ERROR;
    ck_assert_uint_eq(OTF_File_read(z2, big, 1 << 20), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_int_eq(OTF_File_close(z2), 1);
    free(big);
    free(text);
    size_t zl, tl;
    unsigned char *z = slurp(path("mc.z"), &zl);
    unsigned char *t = zlib_decode(z, zl, 0, &tl);
    ck_assert(tl == 6 && memcmp(t, "hello\n", 6) == 0);
    free(t);
    free(z);
}
END_TEST

/* --- external buffers -------------------------------------------------------- */

START_TEST(test_external_buffer)
{
    no_threads = _i;
    const char *plain = "line1\nline2\nline3\n";
    OTF_File *f = OTF_File_open_with_external_buffer(18, plain, 0, OTF_FILEMODE_READ);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(OTF_File_status(f), OTF_FILESTATUS_UNKNOWN);
    ck_assert_uint_eq(OTF_File_size(f), 18);
    char buf[64];
    ck_assert_uint_eq(OTF_File_read(f, buf, 4), 4);
    ck_assert_uint_eq(OTF_File_tell(f), 4);
    ck_assert_int_eq(OTF_File_seek(f, 12), 0);
    ck_assert_uint_eq(OTF_File_read(f, buf, 64), 6);
    ck_assert(memcmp(buf, "line3\n", 6) == 0);
    ck_assert_uint_eq(OTF_File_read(f, buf, 64), 0);
    ck_assert_uint_eq(OTF_File_write(f, "x", 1), 0);
    ck_assert_int_eq(OTF_File_close(f), 1);

    ck_assert_ptr_null(OTF_File_open_with_external_buffer(18, plain, 0, OTF_FILEMODE_WRITE));
    ck_assert_ptr_null(OTF_File_open_with_external_buffer(18, NULL, 0, OTF_FILEMODE_READ));
    f = OTF_File_open_with_external_buffer(0, NULL, 0, OTF_FILEMODE_SEEK);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(OTF_File_read(f, buf, 64), 0);
    OTF_File_close(f);

    /* compressed: what our writer made, held in memory */
    const size_t n = 500000;
    char *text = make_text(n, 30);
    struct written w;
    write_api(path("ext.z"), 4, text, n, 30000, 0, &w);
    size_t zl;
    unsigned char *z = slurp(path("ext.z"), &zl);
    f = OTF_File_open_with_external_buffer((uint32_t)zl, (const char *)z, 1, OTF_FILEMODE_READ);
    ck_assert_uint_eq(OTF_File_size(f), zl);
    size_t got;
    char *back = read_all(f, 3333, &got);
    ck_assert_uint_eq(got, n);
    ck_assert(memcmp(back, text, n) == 0);
    free(back);
    for (uint64_t pos = 0; pos < zl; pos += zl / 9 + 1) {
        OTF_File_seek(f, pos);
        size_t exp = expected_start(&w, pos, n);
        back = read_all(f, 100000, &got);
        ck_assert_uint_eq(got, n - exp);
        ck_assert(memcmp(back, text + exp, got) == 0);
        free(back);
    }
    ck_assert_uint_eq(OTF_File_read_internal(f, buf, 10), 0); /* no raw reads of z data */
    OTF_File_close(f);
    free(z);
    written_free(&w);
    free(text);
}
END_TEST

/* --- opening rules and errors ------------------------------------------------ */

START_TEST(test_open_rules)
{
    OTF_FileManager *m = manager(4);
    /* both x and x.z: the plain one is read */
    spit(path("both"), "plain\n", 6);
    write_api(path("both.z"), 4, "zipped\n", 7, 7, 0, NULL);
    OTF_File *f = OTF_File_open(path("both"), m, OTF_FILEMODE_READ);
    char buf[64];
    ck_assert_uint_eq(OTF_File_read(f, buf, 64), 6);
    ck_assert(memcmp(buf, "plain\n", 6) == 0);
    OTF_File_close(f);
    /* naming the .z file itself reads its raw bytes, as the reference does */
    f = OTF_File_open(path("both.z"), m, OTF_FILEMODE_READ);
    ck_assert_uint_gt(OTF_File_read(f, buf, 64), 7);
    ck_assert_uint_eq((unsigned char)buf[0], 0x78);
    OTF_File_close(f);
    /* SEEK mode reads like READ */
    f = OTF_File_open(path("both"), m, OTF_FILEMODE_SEEK);
    ck_assert_uint_eq(OTF_File_read(f, buf, 64), 6);
    OTF_File_close(f);

    /* writing: lazy creation; the first write truncates */
    spit(path("old"), "OLD CONTENT\n", 12);
    f = OTF_File_open(path("old"), m, OTF_FILEMODE_WRITE);
    size_t l;
    unsigned char *c = slurp(path("old"), &l);
    ck_assert_uint_eq(l, 12);
    free(c);
    ck_assert_uint_eq(OTF_File_write(f, "new\n", 4), 4);
    OTF_File_close(f);
    c = slurp(path("old"), &l);
    ck_assert(l == 4 && memcmp(c, "new\n", 4) == 0);
    free(c);
    f = OTF_File_open(path("never"), m, OTF_FILEMODE_WRITE);
    OTF_File_close(f);
    ck_assert_int_ne(access(path("never"), F_OK), 0);
    /* the level only matters for .z names */
    f = OTF_File_open_zlevel(path("lv12"), m, OTF_FILEMODE_WRITE, 12);
    ck_assert_ptr_nonnull(f);
    OTF_File_write(f, "x\n", 2);
    OTF_File_close(f);
    c = slurp(path("lv12"), &l);
    ck_assert(l == 2 && memcmp(c, "x\n", 2) == 0);
    free(c);
    otf_errno = OTF_NO_ERROR;
    ck_assert_ptr_null(OTF_File_open_zlevel(path("lv12.z"), m, OTF_FILEMODE_WRITE, 12));
    ck_assert_int_eq(otf_errno, OTF_ERROR);

    /* raw helpers */
    f = OTF_File_open(path("raw"), m, OTF_FILEMODE_WRITE);
    ck_assert_uint_eq(OTF_File_write(f, "ab", 2), 2);
    ck_assert_uint_eq(OTF_File_write_internal(f, "cd", 2), 2);
    OTF_File_close(f);
    f = OTF_File_open(path("raw"), m, OTF_FILEMODE_READ);
    ck_assert_uint_eq(OTF_File_read_internal(f, buf, 64), 4);
    ck_assert(memcmp(buf, "abcd", 4) == 0);
    OTF_File_close(f);
    char from[512];
    snprintf(from, sizeof from, "%s", path("raw"));
    ck_assert_int_eq(OTF_File_rename(from, path("raw2")), 0);
    ck_assert_int_eq(OTF_File_access(path("raw2"), F_OK), 0);
    ck_assert_int_eq(OTF_File_remove(path("raw2")), 0);
    ck_assert_int_eq(OTF_File_access(path("raw2"), F_OK), -1);
    ck_assert_int_eq(OTF_File_remove(path("raw2")), -1);
    ck_assert_int_eq(OTF_File_clean(path("raw2")), 0);
    OTF_FileManager_close(m);
}
END_TEST

START_TEST(test_errors)
{
    OTF_FileManager *m = manager(2);
    otf_errno = OTF_NO_ERROR;
    ck_assert_ptr_null(OTF_File_open(path("missing"), m, OTF_FILEMODE_READ));
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_ptr_nonnull(strstr(otf_strerr, "missing"));
    ck_assert_ptr_null(OTF_File_open(path("x"), NULL, OTF_FILEMODE_WRITE));
    ck_assert_ptr_null(OTF_File_open(NULL, m, OTF_FILEMODE_WRITE));
    ck_assert_ptr_null(OTF_File_open(path("x"), m, OTF_FILEMODE_NOTHING));
    ck_assert_int_eq(OTF_File_close(NULL), 0);

    /* a directory that does not exist: open succeeds (lazily), write fails */
    const char *names[] = {"nodir/f", "nodir/f.z"};
    for (int i = 0; i < 2; i++) {
        OTF_File *f = OTF_File_open(path(names[i]), m, OTF_FILEMODE_WRITE);
        ck_assert_ptr_nonnull(f);
        otf_errno = OTF_NO_ERROR;
        ck_assert_uint_eq(OTF_File_write(f, "abc\n", 4), 0);
        ck_assert_int_eq(otf_errno, OTF_ERROR);
        ck_assert_ptr_nonnull(strstr(otf_strerr, "nodir"));
        OTF_File_close(f);
    }
    if (geteuid() != 0) {
        /* a directory without write permission (root may write anyway) */
        mkdir(path("ro"), 0555);
        OTF_File *f = OTF_File_open(path("ro/f.z"), m, OTF_FILEMODE_WRITE);
        ck_assert_uint_eq(OTF_File_write(f, "abc\n", 4), 0);
        OTF_File_close(f);
    }

    /* wrong modes */
    spit(path("r"), "data\n", 5);
    OTF_File *r = OTF_File_open(path("r"), m, OTF_FILEMODE_READ);
    ck_assert_uint_eq(OTF_File_write(r, "x", 1), 0);
    OTF_File_close(r);
    OTF_File *w = OTF_File_open(path("w"), m, OTF_FILEMODE_WRITE);
    char buf[8];
    otf_errno = OTF_NO_ERROR;
    ck_assert_uint_eq(OTF_File_read(w, buf, 8), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_int_eq(OTF_File_seek(w, 0), -1);
    OTF_File_close(w);
    /* a file removed while suspended cannot be revived */
    spit(path("gone"), "data\n", 5);
    OTF_FileManager_setNumber(m, 1);
    OTF_File *g = OTF_File_open(path("gone"), m, OTF_FILEMODE_READ);
    ck_assert_uint_eq(OTF_File_read(g, buf, 2), 2);
    r = OTF_File_open(path("r"), m, OTF_FILEMODE_READ);
    ck_assert_uint_eq(OTF_File_read(r, buf, 2), 2);
    unlink(path("gone"));
    otf_errno = OTF_NO_ERROR;
    ck_assert_uint_eq(OTF_File_read(g, buf, 2), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_uint_eq(OTF_File_size(g), (uint64_t)-1);
    OTF_File_close(g);
    OTF_File_close(r);
    OTF_FileManager_close(m);
}
END_TEST

/* Special files in a file's place are refused when the file is first used,
 * for reading and for writing, without waiting: a FIFO without a writer
 * would block open(2) for ever (the test would hang, not fail). */
START_TEST(test_special_files)
{
    OTF_FileManager *m = manager(4);
    char buf[8];

    ck_assert_int_eq(mkfifo(path("fifo"), 0600), 0);
    OTF_File *f = OTF_File_open(path("fifo"), m, OTF_FILEMODE_READ);
    ck_assert_ptr_nonnull(f);               /* lazily: the type shows at the first use */
    otf_errno = OTF_NO_ERROR;
    ck_assert_uint_eq(OTF_File_read(f, buf, sizeof buf), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_msg(strstr(otf_strerr, "fifo: cannot open for reading: it is a FIFO, expected a "
                         "regular file"), "%s", otf_strerr);
    OTF_File_close(f);
    f = OTF_File_open(path("fifo"), m, OTF_FILEMODE_WRITE);
    ck_assert_ptr_nonnull(f);
    otf_errno = OTF_NO_ERROR;
    ck_assert_uint_eq(OTF_File_write(f, "abc\n", 4), 0);
    ck_assert_msg(strstr(otf_strerr, "fifo: cannot open for writing: it is a FIFO"), "%s",
                  otf_strerr);
    OTF_File_close(f);
    ck_assert_int_eq(mkdir(path("dir"), 0700), 0);
    f = OTF_File_open(path("dir"), m, OTF_FILEMODE_READ);
    ck_assert_uint_eq(OTF_File_read(f, buf, sizeof buf), 0);
    ck_assert_msg(strstr(otf_strerr, "it is a directory, expected a regular file"), "%s",
                  otf_strerr);
    OTF_File_close(f);
    OTF_FileManager_close(m);
    unlink(path("fifo"));
    rmdir(path("dir"));
}
END_TEST

/* vftr_otf_manager_set_progress: called every VFTR_OTF_PROGRESS_STEP bytes
 * of what the parser gets (inflated bytes for a compressed file), and a
 * non-zero return stops the reads with an error (not a silent end). */
struct prog {
    uint64_t bytes;
    unsigned calls, stop_at;
};

static int on_progress(void *arg, uint64_t bytes)
{
    struct prog *p = arg;

    p->bytes += bytes;
    return ++p->calls >= p->stop_at;
}

START_TEST(test_progress_and_stop)
{
    no_threads = _i;
    size_t n = 5 * VFTR_OTF_PROGRESS_STEP / 2, got = 0;      /* 2.5 steps of text */
    char *text = make_text(n, 7), *buf = malloc(65536);
    OTF_FileManager *m = manager(4);
    struct prog p = { 0, 0, 100 };

    /* compressed: the whole text, counted inflated */
    OTF_File *w = OTF_File_open_zlevel(path("p.z"), m, OTF_FILEMODE_WRITE,
                                       OTF_FILECOMPRESSION_COMPRESSED);
    ck_assert_uint_eq(OTF_File_write(w, text, n), n);
    OTF_File_close(w);
    vftr_otf_manager_set_progress(m, on_progress, &p);
    OTF_File *r = OTF_File_open(path("p"), m, OTF_FILEMODE_READ);
    for (size_t k; (k = OTF_File_read(r, buf, 65536)) > 0;)
        got += k;
    ck_assert_uint_eq(got, n);
    ck_assert_uint_eq(p.calls, 2);                  /* at 4 and 8 MiB of 10 */
    ck_assert_uint_ge(p.bytes, 2 * (uint64_t)VFTR_OTF_PROGRESS_STEP);
    ck_assert_int_eq(vftr_otf_manager_stopped(m), 0);
    OTF_File_close(r);

    /* stopped at the first call: the read fails and stays failed */
    p = (struct prog){ 0, 0, 1 };
    vftr_otf_manager_set_progress(m, on_progress, &p);
    r = OTF_File_open(path("p"), m, OTF_FILEMODE_READ);
    got = 0;
    for (size_t k; (k = OTF_File_read(r, buf, 65536)) > 0;)
        got += k;
    ck_assert_uint_eq(p.calls, 1);
    ck_assert_uint_lt(got, n);
    ck_assert_int_eq(vftr_otf_manager_stopped(m), 1);
    ck_assert_msg(strstr(otf_strerr, "p.z: reading was stopped"), "%s", otf_strerr);
    ck_assert_uint_eq(OTF_File_read(r, buf, 16), 0);
    /* set again: reads go on */
    vftr_otf_manager_set_progress(m, NULL, NULL);
    ck_assert_uint_eq(OTF_File_read(r, buf, 16), 16);
    OTF_File_close(r);
    OTF_FileManager_close(m);
    free(text);
    free(buf);
}
END_TEST

/* The bytes of a compressed file are a function of its text alone, whatever
 * the memory addresses of the process (ISA-L 2.30's vectorised level-1/2
 * deflate hashes the third byte of each block with a register that holds
 * the address of its stream state; see zfile.c).  Several files are open at
 * once, each encoder at its own place in memory (64 KiB apart at least:
 * the bug used address bits 16 and up), and take the same short segments,
 * each a block of its own whose first bytes repeat, so that the slot of the
 * third byte decides whether a match is found.  With the address-dependent
 * encoder (isa-l 1) a segment differed between two such files with a
 * probability of a few in a hundred (3 hash slots of 64 or 128 are the ones
 * that matter): 600 segments in 6 files made every run fail. */
START_TEST(test_z_bytes_independent_of_address)
{
    enum { NFILES = 6, NSEG = 600 };
    OTF_FileManager *m = manager(16);
    OTF_File *f[NFILES];
    void *spacer[NFILES];
    char name[NFILES][32];
    for (int i = 0; i < NFILES; i++) {
        snprintf(name[i], sizeof name[i], "addr%d.z", i);
        f[i] = OTF_File_open_zlevel(path(name[i]), m, OTF_FILEMODE_WRITE,
                                    (OTF_FileCompression)(1 + i % 4));
        ck_assert_ptr_nonnull(f[i]);
        spacer[i] = malloc(65536 + 4096 * (size_t)i); /* the next encoder lands elsewhere */
        ck_assert_ptr_nonnull(spacer[i]);
    }
    static const char *const pieces[] = {"\n*2\n", "64", "E1\n", "*3\n", "PB\n", "96", "\n"};
    unsigned seed = 7;
    char seg[96];
    size_t total = 0;
    char *text = malloc((size_t)NSEG * sizeof seg);
    for (int k = 0; k < NSEG; k++) {
        /* 17..60 bytes (ISA-L's block body runs on more than 16) */
        size_t want = 17 + (size_t)k % 44, len = 0;
        while (len < want) {
            seed = seed * 1103515245u + 12345u;
            const char *piece = pieces[(seed >> 16) % (sizeof pieces / sizeof *pieces)];
            size_t pl = strlen(piece);
            if (len + pl > want)
                pl = want - len;
            memcpy(seg + len, piece, pl);
            len += pl;
        }
        memcpy(text + total, seg, len);
        total += len;
        for (int i = 0; i < NFILES; i++)
            ck_assert_uint_eq(OTF_File_write(f[i], seg, len), len);
    }
    for (int i = 0; i < NFILES; i++) {
        ck_assert(OTF_File_close(f[i]));
        free(spacer[i]);
    }
    size_t n0 = 0;
    unsigned char *z0 = slurp(path(name[0]), &n0);
    /* the text decodes, as zlib reads it */
    size_t dn = 0;
    unsigned char *dec = zlib_decode(z0, n0, 0, &dn);
    ck_assert_uint_eq(dn, total);
    ck_assert(memcmp(dec, text, total) == 0);
    free(dec);
    for (int i = 1; i < NFILES; i++) {
        size_t n = 0;
        unsigned char *z = slurp(path(name[i]), &n);
        /* levels 1..4 all deflate with ISA-L level 1; past the 2-byte zlib
         * header, which names the level */
        ck_assert_msg(n == n0 && memcmp(z + 2, z0 + 2, n - 2) == 0,
                      "%s (%zu bytes) differs from %s (%zu bytes)", name[i], n, name[0], n0);
        free(z);
    }
    free(z0);
    free(text);
    OTF_FileManager_close(m);
}
END_TEST

static Suite *file_suite(void)
{
    Suite *s = suite_create("file");
    TCase *tc = tcase_create("plain");
    tcase_add_test(tc, test_plain_roundtrip);
    tcase_add_test(tc, test_plain_tell_size_while_writing);
    suite_add_tcase(s, tc);
    tc = tcase_create("compressed");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_z_roundtrip, 0, 2);
    tcase_add_test(tc, test_z_level_header);
    tcase_add_loop_test(tc, test_z_seek, 0, 2);
    tcase_add_loop_test(tc, test_z_tell, 0, 2);
    tcase_add_loop_test(tc, test_z_tell_sequential, 0, 2);
    tcase_add_test(tc, test_z_seek_back_to_zero);
    tcase_add_loop_test(tc, test_z_read_reference_layout, 0, 2);
    tcase_add_loop_test(tc, test_z_false_sync, 0, 2);
    tcase_add_test(tc, test_z_false_sync_crafted);
    tcase_add_loop_test(tc, test_z_truncated_and_corrupt, 0, 2);
    tcase_add_test(tc, test_z_zbuffer);
    tcase_add_loop_test(tc, test_z_bytes_independent_of_address, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("manager");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_manager_limits, 0, 2);
    tcase_add_test(tc, test_manager_api);
    tcase_add_test(tc, test_manager_closed_first);
    suite_add_tcase(s, tc);
    tc = tcase_create("misc");
    tcase_add_loop_test(tc, test_external_buffer, 0, 2);
    tcase_add_test(tc, test_open_rules);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_special_files);
    tcase_add_loop_test(tc, test_progress_and_stop, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/vftr_test_file.XXXXXX", base);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    SRunner *sr = srunner_create(file_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
