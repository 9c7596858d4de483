/*
 * test_otf_scan.c — Check suite for vftr_otf_scan_events (lib/otf/scan.c),
 * the batch decoder of event records that the window reads of vftr-tui and
 * vftr-stats use.
 *
 * The expectation is independent of the library: the test draws records
 * (the eight decoded kinds and the four RMA records, records the scan
 * passes over, key-value lines, blank lines), writes each in one of
 * several spellings — the writer's short form, the long keywords with
 * blanks, a source-location field, leading zeros, "\r\n" — and keeps the
 * values it wrote.  The scan of the text, as a mapped file and as an
 * external buffer (the copy path), whole or in time windows, in batches of
 * every size, must give back exactly those values.
 * Malformed records must fail with the file and offset in otf_strerr.
 * vftr's RMA matching id in a key-value list is read from hand-written
 * records.
 */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "OTF_Definitions.h"
#include "OTF_FileManager.h"
#include "OTF_KeyValue.h"
#include "OTF_RBuffer.h"
#include "vftr_otf_scan.h"

struct text {
    char *buf;
    size_t len, cap;
    vftr_otf_ev *ev;      /* the decoded kinds, in order */
    size_t n;
};

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;

    if (t->len + 256 > t->cap) {
        t->cap = t->cap ? 2 * t->cap : 65536;
        t->buf = realloc(t->buf, t->cap);
        ck_assert_ptr_nonnull(t->buf);
    }
    va_start(ap, fmt);
    t->len += (size_t)vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
}

/* The end of a record: plain, or "\r\n" now and then. */
static const char *eol(unsigned r)
{
    return r % 17 == 0 ? "\r\n" : "\n";
}

/*
 * A stream of `nrec` records.  short_only: only the writer's own forms (the
 * scan's fast path); otherwise every spelling above.
 */
static struct text make_text(size_t nrec, unsigned seed, int short_only)
{
    struct text t = { 0 };
    uint64_t time = 5;
    uint32_t proc = UINT32_MAX;

    t.ev = calloc(nrec, sizeof *t.ev);
    ck_assert_ptr_nonnull(t.ev);
    for (size_t i = 0; i < nrec; i++) {
        unsigned r = rnd(&seed), kind = r % 11, form = short_only ? 0 : (r >> 4) % 4;
        uint32_t p = (r >> 8) % 7 == 0 ? 0x1234 + (r >> 12) % 3 : 1 + (r >> 12) % 4;
        uint32_t a = rnd(&seed) % 300, b = rnd(&seed) % 5, c = rnd(&seed) % 40;
        uint32_t d = rnd(&seed) % 0x100000;
        uint64_t x = (uint64_t)rnd(&seed) << 20 | rnd(&seed);
        vftr_otf_ev e = { .time = 0 };

        if (i % (nrec / 6 + 1) == nrec / 6 && time < (1ull << 48))
            time = time * 4096 + 7;          /* up to 15 digits */
        else if (r % 3)
            time += 1 + (r >> 20) % 9;
        if (i == 0 || t.ev[t.n > 0 ? t.n - 1 : 0].time != time || r % 13 == 0)
            put(&t, !short_only && r % 23 == 0 ? "%016llx\n" : "%llx\n",
                (unsigned long long)time);
        if (p != proc || r % 19 == 0)
            put(&t, "*%x\n", p);
        proc = p;
        if (!short_only && r % 29 == 0)
            put(&t, "K%xY%xV%x\n", 3u, (unsigned)OTF_UINT32, 77u);   /* belongs to the record */
        e.time = time;
        e.process = p;
        switch (kind) {
        case 0: case 1: case 2:
            e.type = OTF_ENTER_RECORD;
            e.u[0] = a;
            if (form == 0)
                put(&t, "E%x%s", a, eol(r));
            else if (form == 1)
                put(&t, "ENTER %x%s", a, eol(r));
            else if (form == 2)
                put(&t, "E%xX%x%s", a, c, eol(r));
            else
                put(&t, "E00%x%s", a, eol(r));
            break;
        case 3: case 4: case 5:
            e.type = OTF_LEAVE_RECORD;
            e.u[0] = (r >> 6) % 5 == 0 ? 0 : a;
            if (e.u[0] == 0)
                put(&t, form == 1 ? "LEAVE%s" : "L%s", eol(r));
            else if (form == 1)
                put(&t, "LEAVE %x%s", a, eol(r));
            else if (form == 2)
                put(&t, "L%xX%x%s", a, c, eol(r));
            else
                put(&t, "L%x%s", a, eol(r));
            break;
        case 6: case 7: {
            int send = kind == 6;

            e.type = send ? OTF_SEND_RECORD : OTF_RECEIVE_RECORD;
            e.u[0] = b;                   /* peer */
            e.u[1] = c;                   /* group */
            e.u[2] = a;                   /* type (tag) */
            e.u[3] = d;                   /* length */
            if (form == 1)
                put(&t, "%s %x LEN %x TAG %x COMM %x%s", send ? "SEND" : "RECEIVE", b, d, a, c,
                    eol(r));
            else if (form == 2)
                put(&t, "%c%xL%xT%xC%xX1%s", send ? 'S' : 'R', b, d, a, c, eol(r));
            else
                put(&t, "%c%xL%xT%xC%x%s", send ? 'S' : 'R', b, d, a, c, eol(r));
            break;
        }
        case 8:
            e.type = OTF_COUNTER_RECORD;
            e.u[0] = b;
            e.x[0] = x;
            put(&t, form == 1 ? "COUNTER %x VALUE %llx%s" : "CNT%xV%llx%s", b,
                (unsigned long long)x, eol(r));
            break;
        case 9:
            switch (r % 3) {
            case 0:
                e.type = OTF_COLLOP_RECORD;
                e.u[0] = b;
                e.u[1] = c;
                e.u[2] = a;
                e.x[0] = d;
                e.x[1] = d / 2;
                e.x[2] = x;
                put(&t, "COP%xC%xRT%xS%xR%xD%llx%s", b, c, a, d, d / 2, (unsigned long long)x,
                    eol(r));
                break;
            case 1:
                e.type = OTF_BEGINCOLLOP_RECORD;
                e.u[0] = b;
                e.u[1] = c;
                e.u[2] = a;
                e.x[0] = x;
                e.x[1] = (uint64_t)d << 24;
                e.x[2] = d;
                put(&t, "COPB%xH%llxC%xRT%xS%llxR%x%s", b, (unsigned long long)x, c, a,
                    (unsigned long long)d << 24, d, eol(r));
                break;
            default:
                e.type = OTF_ENDCOLLOP_RECORD;
                e.x[0] = x;
                put(&t, "COPE%llx%s", (unsigned long long)x, eol(r));
                break;
            }
            break;
        default:
            if ((r >> 5) % 2) {
                /* one-sided: RMAPut, RMAPutRemoteEnd, RMAGet (origin,
                 * target, communicator, tag, bytes), RMAEnd (remote,
                 * communicator, tag) */
                static const struct { uint32_t type; const char *s, *l; } rma[] = {
                    { OTF_RMAPUT_RECORD, "T", "TRMAPUT " },
                    { OTF_RMAPUTRE_RECORD, "U", "URMAPUTRE " },
                    { OTF_RMAGET_RECORD, "G", "GRMAGET " },
                };
                unsigned k = (r >> 6) % 4;

                if (k == 3) {
                    e.type = OTF_RMAEND_RECORD;
                    e.u[1] = b;
                    e.u[2] = c;
                    e.u[3] = a;
                    put(&t, form == 1 ? "MRMAEND %x COMM %x TAG %x%s" : "M%xC%xT%x%s", b, c, a,
                        eol(r));
                } else {
                    e.type = rma[k].type;
                    e.u[0] = p;
                    e.u[1] = b;
                    e.u[2] = c;
                    e.u[3] = a;
                    e.x[0] = x;
                    if (form == 1)
                        put(&t, "%s%x PROCESS %x COMM %x TAG %x LEN %llx%s", rma[k].l, p, b, c,
                            a, (unsigned long long)x, eol(r));
                    else
                        put(&t, "%s%xP%xC%xT%xL%llx%s%s", rma[k].s, p, b, c, a,
                            (unsigned long long)x, form == 2 ? "X5" : "", eol(r));
                }
                break;
            }
            /* passed over: a process begin, a comment, a blank line */
            if (r % 3 == 0)
                put(&t, "PB%s", eol(r));
            else if (r % 3 == 1)
                put(&t, "#\"note %u\"%s", a, eol(r));
            else
                put(&t, "\n");
            continue;
        }
        t.ev[t.n++] = e;
    }
    return t;
}

static void free_text(struct text *t)
{
    free(t->buf);
    free(t->ev);
}

/* The fields a decoded kind defines are equal. */
static void expect_ev(const vftr_otf_ev *got, const vftr_otf_ev *want, size_t i)
{
    int same = got->time == want->time && got->type == want->type &&
               got->process == want->process;

    switch (want->type) {
    case OTF_ENTER_RECORD:
    case OTF_LEAVE_RECORD:
        same = same && got->u[0] == want->u[0];
        break;
    case OTF_SEND_RECORD:
    case OTF_RECEIVE_RECORD:
        same = same && memcmp(got->u, want->u, sizeof got->u) == 0;
        break;
    case OTF_COUNTER_RECORD:
        same = same && got->u[0] == want->u[0] && got->x[0] == want->x[0];
        break;
    case OTF_ENDCOLLOP_RECORD:
        same = same && got->x[0] == want->x[0];
        break;
    case OTF_RMAPUT_RECORD:
    case OTF_RMAPUTRE_RECORD:
    case OTF_RMAGET_RECORD:
    case OTF_RMAEND_RECORD:
        same = same && memcmp(got->u, want->u, sizeof got->u) == 0 && got->x[0] == want->x[0];
        break;
    default:
        same = same && memcmp(got->u, want->u, 3 * sizeof got->u[0]) == 0 &&
               memcmp(got->x, want->x, sizeof got->x) == 0;
        break;
    }
    ck_assert_msg(same,
                  "record %zu: got type %u at %llu on %u (%x %x %x %x / %llx %llx %llx), "
                  "expected type %u at %llu on %u (%x %x %x %x / %llx %llx %llx)",
                  i, got->type, (unsigned long long)got->time, got->process, got->u[0],
                  got->u[1], got->u[2], got->u[3], (unsigned long long)got->x[0],
                  (unsigned long long)got->x[1], (unsigned long long)got->x[2], want->type,
                  (unsigned long long)want->time, want->process, want->u[0], want->u[1],
                  want->u[2], want->u[3], (unsigned long long)want->x[0],
                  (unsigned long long)want->x[1], (unsigned long long)want->x[2]);
}

static char *write_file(const struct text *t, const char *name)
{
    static char path[256];
    FILE *f;

    snprintf(path, sizeof path, "/tmp/vftr_test_otf_scan_%d_%s", (int)getpid(), name);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(t->buf, 1, t->len, f), t->len);
    fclose(f);
    return path;
}

/* Scans [min, max) from the buffer's position in batches of `cap` and
 * compares with the expected records of that window. */
static void expect_window(OTF_RBuffer *rb, const struct text *t, uint64_t min, uint64_t max,
                          size_t cap)
{
    vftr_otf_ev *out = malloc(cap * sizeof *out);
    size_t i = 0;
    int done = 0;

    ck_assert_ptr_nonnull(out);
    while (i < t->n && t->ev[i].time < min)
        i++;
    while (!done) {
        long n = vftr_otf_scan_events(rb, min, max, 0, out, cap, &done);

        ck_assert_msg(n >= 0, "scan failed: %s", otf_strerr);
        ck_assert_msg(done || (size_t)n == cap, "a short batch (%ld of %zu) must be the last",
                      n, cap);
        for (long j = 0; j < n; j++, i++) {
            ck_assert_msg(i < t->n && t->ev[i].time < max, "more records than expected");
            expect_ev(&out[j], &t->ev[i], i);
        }
    }
    ck_assert_msg(i == t->n || t->ev[i].time >= max, "stopped at record %zu of %zu", i, t->n);
    free(out);
}

static void check_text(const struct text *t, const char *name)
{
    OTF_FileManager *m = OTF_FileManager_open(4);
    const char *path = write_file(t, name);
    size_t caps[] = { 1, 2, 7, 4096 };

    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        OTF_RBuffer *mapped = OTF_RBuffer_open(path, m);
        OTF_RBuffer *copied =
            OTF_RBuffer_open_with_external_buffer((uint32_t)t->len, t->buf, 0);

        ck_assert_ptr_nonnull(mapped);
        ck_assert_ptr_nonnull(copied);
        expect_window(mapped, t, 0, UINT64_MAX, caps[k]);
        expect_window(copied, t, 0, UINT64_MAX, caps[k]);
        OTF_RBuffer_close(mapped);
        OTF_RBuffer_close(copied);
    }
    /* windows after a time search, and a window continued to a later end */
    OTF_RBuffer *rb = OTF_RBuffer_open(path, m);
    ck_assert_ptr_nonnull(rb);
    for (size_t q = 0; q < 40; q++) {
        size_t i = (q * 7919) % t->n, j = i + (q * 104729) % (t->n - i);
        uint64_t lo = t->ev[i].time + (q % 2), hi = t->ev[j].time + (q % 3 == 0);

        if (hi <= lo)
            hi = lo + 1;
        ck_assert(OTF_RBuffer_searchTime(rb, lo));
        expect_window(rb, t, lo, hi, 1 + q % 50);
        /* the record at hi was left unread: the rest follows */
        expect_window(rb, t, hi, UINT64_MAX, 4096);
    }
    OTF_RBuffer_close(rb);
    unlink(path);
    OTF_FileManager_close(m);
}

START_TEST(test_short_forms)
{
    struct text t = make_text(20000, 11, 1);

    check_text(&t, "short");
    free_text(&t);
}
END_TEST

START_TEST(test_all_forms)
{
    struct text t = make_text(20000, 29, 0);

    check_text(&t, "all");
    free_text(&t);
}
END_TEST

START_TEST(test_small_and_empty)
{
    struct text t = make_text(3, 5, 0);
    OTF_RBuffer *rb = OTF_RBuffer_open_with_external_buffer(1, "\n", 0);
    vftr_otf_ev out[4];
    int done = 0;

    check_text(&t, "small");
    free_text(&t);
    ck_assert_ptr_nonnull(rb);
    ck_assert_int_eq(vftr_otf_scan_events(rb, 0, UINT64_MAX, 0, out, 4, &done), 0);
    ck_assert_int_eq(done, 1);
    ck_assert_int_eq(vftr_otf_scan_events(rb, 0, UINT64_MAX, 0, out, 0, &done), 0);
    OTF_RBuffer_close(rb);
    ck_assert_int_eq(vftr_otf_scan_events(NULL, 0, 1, 0, out, 4, &done), -1);
}
END_TEST

/* A last line without its newline is a record too. */
START_TEST(test_no_final_newline)
{
    static const char text[] = "10\n*2\nE5\n20\nS3L4T5C6";
    OTF_RBuffer *rb = OTF_RBuffer_open_with_external_buffer(sizeof text - 1, text, 0);
    vftr_otf_ev out[4];
    int done = 0;

    ck_assert_ptr_nonnull(rb);
    ck_assert_int_eq(vftr_otf_scan_events(rb, 0, UINT64_MAX, 0, out, 4, &done), 2);
    ck_assert_int_eq(done, 1);
    ck_assert_uint_eq(out[1].type, OTF_SEND_RECORD);
    ck_assert_uint_eq(out[1].time, 0x20);
    ck_assert_uint_eq(out[1].process, 2);
    ck_assert_uint_eq(out[1].u[0], 3);
    ck_assert_uint_eq(out[1].u[1], 6);
    ck_assert_uint_eq(out[1].u[2], 5);
    ck_assert_uint_eq(out[1].u[3], 4);
    OTF_RBuffer_close(rb);
}
END_TEST

/* vftr's RMA matching id: the value of the key named in the call, in the
 * key-value lines before an RMA record (short and long form), in x[1]; 0
 * for a record without it, with another key, or when no key is named.
 * Worked by hand: key 3 (OTF_UINT64 = 8) on the put (id 0x2a) and the end
 * (0x2a), key 5 on the get (not the matching id), nothing on the second
 * end. */
START_TEST(test_rma_match)
{
    static const char text[] = "10\n*1\nK3Y8V2a\nT1P2C3T4L10\n"
                               "20\nKEY 5 TYPE 8 VALUE 7\nG1P2C3T4L8\n"
                               "30\nK3Y8V2a\nM2C3T4\nM2C3T4\n";
    static const uint64_t with_key[] = { 0x2a, 0, 0x2a, 0 };
    vftr_otf_ev out[8];
    int done = 0;

    for (int named = 0; named < 2; named++) {
        OTF_RBuffer *rb = OTF_RBuffer_open_with_external_buffer(sizeof text - 1, text, 0);

        ck_assert_ptr_nonnull(rb);
        ck_assert_int_eq(vftr_otf_scan_events(rb, 0, UINT64_MAX, named ? 3 : 0, out, 8, &done),
                         4);
        ck_assert_uint_eq(out[0].type, OTF_RMAPUT_RECORD);
        ck_assert_uint_eq(out[0].x[0], 0x10);
        ck_assert_uint_eq(out[1].type, OTF_RMAGET_RECORD);
        ck_assert_uint_eq(out[1].x[0], 8);
        ck_assert_uint_eq(out[2].type, OTF_RMAEND_RECORD);
        ck_assert_uint_eq(out[3].type, OTF_RMAEND_RECORD);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(out[i].x[1] == (named ? with_key[i] : 0), "record %d: match %llx", i,
                          (unsigned long long)out[i].x[1]);
        OTF_RBuffer_close(rb);
    }
}
END_TEST

/* Damaged records: the scan fails and says where. */
START_TEST(test_malformed)
{
    static const char *const bad[] = {
        "10\n*1\nE5\nE1ffffffffff\n",        /* function beyond 32 bits */
        "10\n*1\nE5\nS2L4T\n",               /* a message record cut short */
        "10\n*1\nE5\n3g\nL5\n",              /* a time line that is none */
        "10\n*1\nE5\nR2L4T5C6Q\n",           /* trailing garbage */
    };

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        OTF_RBuffer *rb =
            OTF_RBuffer_open_with_external_buffer((uint32_t)strlen(bad[i]), bad[i], 0);
        vftr_otf_ev out[8];
        int done = 0;
        long n;

        ck_assert_ptr_nonnull(rb);
        n = vftr_otf_scan_events(rb, 0, UINT64_MAX, 0, out, 8, &done);
        ck_assert_msg(n == -1, "case %zu: %ld records, expected a failure", i, n);
        ck_assert_msg(strstr(otf_strerr, "offset") != NULL, "case %zu: \"%s\"", i,
                      otf_strerr);
        OTF_RBuffer_close(rb);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("otf_scan");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_short_forms);
    tcase_add_test(tc, test_all_forms);
    tcase_add_test(tc, test_small_and_empty);
    tcase_add_test(tc, test_no_final_newline);
    tcase_add_test(tc, test_rma_match);
    tcase_add_test(tc, test_malformed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
