/*
 * test_rbuffer.c — Check suite for OTF_RBuffer's two ways of getting at a
 * plain file: a private mapping of the whole file (files of 4 KiB and more)
 * and reads into an owned buffer (small files, external buffers, the last
 * bytes of a mapped file).
 *
 * The expectation is independent of both: the test writes the text itself
 * and walks it line by line in plain C (time lines, process lines, records),
 * so every record with its time and process is known before the library
 * reads anything.  The same text then goes through a file (mapped) and an
 * external buffer (copies); both must deliver exactly the expected records,
 * also after jumps and time searches to many places.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "OTF_File.h"
#include "OTF_FileManager.h"
#include "OTF_RBuffer.h"
#include "otf_file_internal.h"
#include "otf_rbuf.h"

struct rec {
    uint64_t time;
    uint32_t process;
    char text[32];
};

struct text {
    char *buf;
    size_t len;
    struct rec *recs;
    size_t n;
};

/* A stream in the writer's form: a time line when the time changes (times
 * with 1 to 16 digits), a process line when the process changes, then a
 * record.  `tail` is appended after the last record (to end the file
 * without a newline, say). */
static struct text make_text(size_t nrec, unsigned seed, const char *tail)
{
    struct text t = { malloc(nrec * 64 + 64), 0, calloc(nrec, sizeof(struct rec)), 0 };
    uint64_t time = 1;
    uint32_t proc = UINT32_MAX;
    for (size_t i = 0; i < nrec; i++) {
        seed = seed * 1103515245u + 12345u;
        /* grow through the digit counts (15 steps of x16: no overflow) */
        if (i > 0 && i % (nrec / 15 + 1) == 0)
            time = time * 16 + 3;
        else if (seed % 3 != 0)
            time += 1 + (seed >> 16) % 7;
        uint32_t p = 1 + (seed >> 8) % 5;
        if (i == 0 || time != t.recs[i - 1].time)
            t.len += (size_t)sprintf(t.buf + t.len, "%llx\n", (unsigned long long)time);
        if (p != proc)
            t.len += (size_t)sprintf(t.buf + t.len, "*%x\n", p);
        proc = p;
        struct rec *r = &t.recs[t.n++];
        r->time = time;
        r->process = p;
        snprintf(r->text, sizeof r->text, "%s%x", (seed >> 4) % 2 ? "E" : "L",
                 (unsigned)(seed >> 20) % 300);
        t.len += (size_t)sprintf(t.buf + t.len, "%s\n", r->text);
    }
    if (tail != NULL && *tail) {
        /* replace the final newline */
        t.len--;
        t.len += (size_t)sprintf(t.buf + t.len, "%s", tail);
    }
    return t;
}

static void free_text(struct text *t)
{
    free(t->buf);
    free(t->recs);
}

static char *write_file(const struct text *t, const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/vftr_test_rbuffer_%d_%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(t->buf, 1, t->len, f), t->len);
    fclose(f);
    return path;
}

/* Reads from the buffer's position to its end and compares with
 * t->recs[first...]. */
static void expect_records(OTF_RBuffer *rb, const struct text *t, size_t first)
{
    vftr_otf_parse ps;
    memset(&ps, 0, sizeof ps);
    size_t i = first;
    int r;
    while ((r = vftr_otf_rb_next(rb, &ps)) > 0) {
        ck_assert_msg(i < t->n, "more records than written (%zu)", t->n);
        size_t len = (size_t)(ps.end - ps.p);
        if (len > 0 && ps.p[len - 1] == '\r')
            len--;
        ck_assert_msg(ps.time == t->recs[i].time && ps.process == t->recs[i].process &&
                          len == strlen(t->recs[i].text) &&
                          memcmp(ps.p, t->recs[i].text, len) == 0,
                      "record %zu: got %.*s at %llu on %u, expected %s at %llu on %u", i,
                      (int)len, ps.p, (unsigned long long)ps.time, ps.process,
                      t->recs[i].text, (unsigned long long)t->recs[i].time,
                      t->recs[i].process);
        i++;
    }
    ck_assert_int_eq(r, 0);
    ck_assert_uint_eq(i, t->n);
}

/* First record at or after time `time`. */
static size_t first_at(const struct text *t, uint64_t time)
{
    size_t i = 0;
    while (i < t->n && t->recs[i].time < time)
        i++;
    return i;
}

static void check_both_ways(const struct text *t, const char *name)
{
    OTF_FileManager *m = OTF_FileManager_open(4);
    OTF_RBuffer *mapped = OTF_RBuffer_open(write_file(t, name), m);
    OTF_RBuffer *copied = OTF_RBuffer_open_with_external_buffer((uint32_t)t->len, t->buf, 0);
    ck_assert_ptr_nonnull(mapped);
    ck_assert_ptr_nonnull(copied);
    /* files this big are mapped; external buffers never are */
    ck_assert_int_eq(mapped->map != NULL, t->len >= 4096);
    ck_assert_ptr_null(copied->map);

    expect_records(mapped, t, 0);
    expect_records(copied, t, 0);

    /* time searches all over the span, both ways */
    uint64_t lo = t->recs[0].time, hi = t->recs[t->n - 1].time;
    for (int k = 0; k <= 40; k++) {
        uint64_t when = lo + (hi - lo) / 40 * (uint64_t)k;
        if (k % 7 == 3)
            when = t->recs[(t->n - 1) * (size_t)k / 40].time;
        OTF_RBuffer *both[2] = { mapped, copied };
        for (int b = 0; b < 2; b++) {
            ck_assert_int_eq(OTF_RBuffer_searchTime(both[b], when), 1);
            /* the search lands at or before the first record at `when` */
            vftr_otf_parse ps;
            memset(&ps, 0, sizeof ps);
            size_t want = first_at(t, when), got = 0;
            int r;
            while ((r = vftr_otf_rb_next(both[b], &ps)) > 0 && ps.time < when)
                ;
            ck_assert_int_ge(r, 0);
            if (want == t->n) {
                ck_assert_int_eq(r, 0);
                continue;
            }
            ck_assert_int_eq(r, 1);
            /* identify the record reached by its place in the text */
            got = want;
            ck_assert_msg(ps.time == t->recs[got].time,
                          "search for %llu (%s): first record at %llu, expected %llu",
                          (unsigned long long)when, b ? "copied" : "mapped",
                          (unsigned long long)ps.time,
                          (unsigned long long)t->recs[got].time);
        }
    }
    /* a jump to the start reads everything again */
    ck_assert_int_eq(OTF_RBuffer_searchTime(mapped, 0), 1);
    expect_records(mapped, t, 0);

    OTF_RBuffer_close(mapped);
    OTF_RBuffer_close(copied);
    OTF_FileManager_close(m);
    unlink(write_file(t, name));
}

/* The manager counts what its files read: a whole read of a mapped file and
 * of a small (copied) file counts about the file's size; a time search in a
 * large file counts a small part of it. */
START_TEST(bytes_read_counted)
{
    struct text big = make_text(200000, 7, NULL);
    struct text small = make_text(20, 3, NULL);
    OTF_FileManager *m = OTF_FileManager_open(4);
    ck_assert_uint_eq(vftr_otf_manager_bytes_read(m), 0);
    ck_assert_uint_eq(vftr_otf_manager_bytes_read(NULL), 0);

    OTF_RBuffer *rb = OTF_RBuffer_open(write_file(&small, "small"), m);
    ck_assert_ptr_nonnull(rb);
    expect_records(rb, &small, 0);
    ck_assert_uint_eq(vftr_otf_manager_bytes_read(m), small.len);
    OTF_RBuffer_close(rb);

    uint64_t before = vftr_otf_manager_bytes_read(m);
    rb = OTF_RBuffer_open(write_file(&big, "big"), m);
    ck_assert_ptr_nonnull(rb);
    expect_records(rb, &big, 0);
    uint64_t whole = vftr_otf_manager_bytes_read(m) - before;
    ck_assert_msg(whole >= big.len && whole < big.len + big.len / 10,
                  "a whole read of %zu bytes counted %llu", big.len, (unsigned long long)whole);
    OTF_RBuffer_close(rb);

    before = vftr_otf_manager_bytes_read(m);
    rb = OTF_RBuffer_open(write_file(&big, "big2"), m);
    ck_assert_ptr_nonnull(rb);
    uint64_t when = big.recs[big.n / 2].time;
    ck_assert_int_eq(OTF_RBuffer_searchTime(rb, when), 1);
    uint64_t search = vftr_otf_manager_bytes_read(m) - before;
    ck_assert_msg(search > 0 && search < big.len / 20,
                  "a time search in %zu bytes counted %llu", big.len, (unsigned long long)search);
    OTF_RBuffer_close(rb);

    OTF_FileManager_close(m);
    free_text(&big);
    free_text(&small);
}
END_TEST

START_TEST(mapped_equals_copied)
{
    /* _i selects the size: below the mapping threshold, around it, big */
    static const size_t sizes[] = { 50, 300, 400, 20000, 120000 };
    struct text t = make_text(sizes[_i], 17u + (unsigned)_i, NULL);
    check_both_ways(&t, "plain");
    free_text(&t);
}
END_TEST

START_TEST(last_line_without_newline)
{
    struct text t = make_text(5000, 3, NULL);
    /* cut the final newline: the copy path at the mapping's end adds it */
    t.len--;
    check_both_ways(&t, "nonl");
    free_text(&t);
}
END_TEST

START_TEST(crlf_file)
{
    struct text t = make_text(3000, 5, NULL);
    /* the same records with "\r\n" line ends */
    char *crlf = malloc(t.len * 2 + 1);
    size_t n = 0;
    for (size_t i = 0; i < t.len; i++) {
        if (t.buf[i] == '\n')
            crlf[n++] = '\r';
        crlf[n++] = t.buf[i];
    }
    OTF_FileManager *m = OTF_FileManager_open(4);
    struct text c = t;
    c.buf = crlf;
    c.len = n;
    OTF_RBuffer *rb = OTF_RBuffer_open(write_file(&c, "crlf"), m);
    ck_assert_ptr_nonnull(rb);
    /* time and process lines with '\r' take the slow path; records keep it */
    expect_records(rb, &t, 0);
    OTF_RBuffer_close(rb);
    OTF_FileManager_close(m);
    unlink(write_file(&c, "crlf"));
    free(crlf);
    free_text(&t);
}
END_TEST

/* Time lines with 16 digits and odd forms next to the 8-byte boundaries of
 * the word-at-a-time parser. */
START_TEST(time_line_forms)
{
    static const char text[] =
        "ffffffffffffffff\n*1\nE1\n"
        "10\n*2\nE2\n"
        "0000000000000011\n*3\nE3\n"
        "12345678\n*4\nE4\n"
        "123456789\n*5\nE5\n"
        "12345679\n*10\nE6\n"
        "1234567a\n*ffffffff\nE7\n"
        "1234567b\n*f\nE8\n";
    static const uint64_t times[] = { 0xffffffffffffffffull, 0x10, 0x11, 0x12345678,
                                      0x123456789ull, 0x12345679, 0x1234567a, 0x1234567b };
    static const uint32_t procs[] = { 1, 2, 3, 4, 5, 0x10, 0xffffffffu, 0xf };
    OTF_RBuffer *rb = OTF_RBuffer_open_with_external_buffer(sizeof text - 1, text, 0);
    ck_assert_ptr_nonnull(rb);
    vftr_otf_parse ps;
    memset(&ps, 0, sizeof ps);
    for (int i = 0; i < 8; i++) {
        /* the fast path of the reading loops and the general one agree */
        int r = i % 2 ? vftr_otf_rb_next(rb, &ps) : vftr_otf_rb_next_fast(rb, &ps);
        ck_assert_int_eq(r, 1);
        ck_assert_uint_eq(ps.time, times[i]);
        ck_assert_uint_eq(ps.process, procs[i]);
    }
    ck_assert_int_eq(vftr_otf_rb_next(rb, &ps), 0);
    OTF_RBuffer_close(rb);

    /* 17 digits and upper-case digits are malformed time lines; a process
     * line needs a lower-case hex number of at most 32 bits */
    static const char *bad[] = { "12345678123456781\n*1\nE1\n", "1A\n*1\nE1\n",
                                 "12345678G\n*1\nE1\n", "5\n*\nE1\n", "5\n*g\nE1\n",
                                 "5\n*100000000\nE1\n" };
    for (int i = 0; i < 6; i++) {
        rb = OTF_RBuffer_open_with_external_buffer((uint32_t)strlen(bad[i]), bad[i], 0);
        ck_assert_ptr_nonnull(rb);
        int r = vftr_otf_rb_next_fast(rb, &ps);
        ck_assert_msg(r != 1 || ps.p[0] != 'E', "'%s' accepted as a time line", bad[i]);
        OTF_RBuffer_close(rb);
    }
}
END_TEST

/* A compressed file of many segments: time searches land where they do in
 * the same text uncompressed, the first time (learning sync points) and
 * again (from what was learnt), in any order. */
START_TEST(compressed_search)
{
    struct text t = make_text(60000, 11, NULL);
    char zpath[300];
    snprintf(zpath, sizeof zpath, "/tmp/vftr_test_rbuffer_%d.z", (int)getpid());
    OTF_FileManager *m = OTF_FileManager_open(4);
    OTF_File *f = OTF_File_open_zlevel(zpath, m, OTF_FILEMODE_WRITE, (OTF_FileCompression)4);
    ck_assert_ptr_nonnull(f);
    /* every write is one segment: end them anywhere, mid-line too */
    for (size_t p = 0; p < t.len;) {
        size_t k = t.len - p < 7001 ? t.len - p : 7001;
        ck_assert_uint_eq(OTF_File_write(f, t.buf + p, k), k);
        p += k;
    }
    ck_assert_int_eq(OTF_File_close(f), 1);

    /* opened by its name without ".z", as OTF does */
    char stem[300];
    snprintf(stem, sizeof stem, "%.*s", (int)strlen(zpath) - 2, zpath);
    OTF_RBuffer *rb = OTF_RBuffer_open(stem, m);
    ck_assert_ptr_nonnull(rb);
    ck_assert_ptr_null(rb->map);
    ck_assert_int_eq(rb->file->compressed, 1);
    uint64_t lo = t.recs[0].time, hi = t.recs[t.n - 1].time;
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k <= 30; k++) {
            /* rounds visit the times in different orders */
            int j = round == 1 ? 30 - k : round == 2 ? (k * 7) % 31 : k;
            uint64_t when = lo + (hi - lo) / 30 * (uint64_t)j;
            ck_assert_int_eq(OTF_RBuffer_searchTime(rb, when), 1);
            vftr_otf_parse ps;
            memset(&ps, 0, sizeof ps);
            int r;
            size_t want = first_at(&t, when);
            while ((r = vftr_otf_rb_next(rb, &ps)) > 0 && ps.time < when)
                ;
            ck_assert_int_ge(r, 0);
            if (want == t.n) {
                ck_assert_int_eq(r, 0);
                continue;
            }
            ck_assert_int_eq(r, 1);
            ck_assert_msg(ps.time == t.recs[want].time,
                          "round %d: search for %llu reached %llu, expected %llu", round,
                          (unsigned long long)when, (unsigned long long)ps.time,
                          (unsigned long long)t.recs[want].time);
        }
    }
    /* the whole file still reads from the start */
    ck_assert_int_eq(OTF_RBuffer_searchTime(rb, 0), 1);
    expect_records(rb, &t, 0);
    OTF_RBuffer_close(rb);
    OTF_FileManager_close(m);
    unlink(zpath);
    free_text(&t);
}
END_TEST

static Suite *rbuffer_suite(void)
{
    Suite *s = suite_create("rbuffer");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, mapped_equals_copied, 0, 5);
    tcase_add_test(tc, last_line_without_newline);
    tcase_add_test(tc, crlf_file);
    tcase_add_test(tc, time_line_forms);
    tcase_add_test(tc, compressed_search);
    tcase_add_test(tc, bytes_read_counted);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rbuffer_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
