/*
 * test_filenames.c — Check suite for OTF_getFilename, OTF_stripFilename and
 * OTF_fileExists.  The expected names are the ones the reference OTF 1.12.5
 * returned for the same arguments (recorded with a probe program).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_Filenames.h"
#include "OTF_Errno.h"

static const struct {
    uint32_t id;
    OTF_FileType type;
    const char *name; /* NULL: the reference returns NULL */
} cases[] = {
    {0, OTF_FILETYPE_MASTER, "foo.otf"},
    {10, OTF_FILETYPE_MASTER, "foo.otf"},
    {1, OTF_FILETYPE_MASTER | 4, "foo.otf"}, /* the master is never compressed */
    {1, OTF_FILETYPE_MASTER | 8, "foo.otf"},
    {0, OTF_FILETYPE_GLOBAL_DEF, "foo.def"},
    {0xff, OTF_FILETYPE_GLOBAL_DEF, "foo.def"},
    {3, OTF_FILETYPE_GLOBAL_DEF | 4, "foo.def.z"},
    {0, OTF_FILETYPE_DEF, "foo.0.def"},
    {1, OTF_FILETYPE_DEF, "foo.1.def"},
    {10, OTF_FILETYPE_DEF, "foo.a.def"},
    {0xff, OTF_FILETYPE_DEF | 4, "foo.ff.def.z"},
    {0, OTF_FILETYPE_EVENT, "foo.0.events"},
    {10, OTF_FILETYPE_EVENT, "foo.a.events"},
    {0x7fffffff, OTF_FILETYPE_EVENT, "foo.7fffffff.events"},
    {0xffffffff, OTF_FILETYPE_EVENT, "foo.ffffffff.events"},
    {3, OTF_FILETYPE_EVENT | 0, "foo.3.events"},
    {3, OTF_FILETYPE_EVENT | 1, "foo.3.events.z"},
    {3, OTF_FILETYPE_EVENT | 4, "foo.3.events.z"},
    {3, OTF_FILETYPE_EVENT | 9, "foo.3.events.z"},
    {3, OTF_FILETYPE_EVENT | 10, "foo.3.events"}, /* levels above 9: no suffix */
    {3, OTF_FILETYPE_EVENT | 15, "foo.3.events"},
    {1, OTF_FILETYPE_SNAPS, "foo.1.snaps"},
    {10, OTF_FILETYPE_SNAPS | 4, "foo.a.snaps.z"},
    {1, OTF_FILETYPE_STATS, "foo.1.stats"},
    {0xa, OTF_FILETYPE_STATS | 2, "foo.a.stats.z"},
    {0, OTF_FILETYPE_MARKER, "foo.0.marker"},
    {0, OTF_FILETYPE_MARKER | 4, "foo.0.marker.z"},
    {3, OTF_FILETYPE_STATS | 0x4000, "foo.3.stats"}, /* bits above the types: ignored */
    {3, OTF_FILETYPE_STATS | 0x80000000u, "foo.3.stats"},
    {3, OTF_FILETYPE_EVENT | 0x2000, "foo.3.events"},
    {1, 0, NULL},
    {1, 4, NULL},
    {1, 0xf, NULL},
    {1, OTF_FILETYPE_DEF | OTF_FILETYPE_EVENT, NULL},
    {1, OTF_FILETYPE_MASTER | OTF_FILETYPE_EVENT, NULL},
    {1, OTF_FILETYPE_EVENT | OTF_FILETYPE_SNAPS, NULL},
    {1, OTF_FILETYPE_IOFSL_ALL, NULL},
    {1, OTF_FILETYPE_IOFSL_IDX | 4, NULL},
    {1, 0xffffffffu, NULL},
};

START_TEST(test_names)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        otf_errno = OTF_NO_ERROR;
        char *r = OTF_getFilename("foo", cases[i].id, cases[i].type, 0, NULL);
        if (!cases[i].name) {
            ck_assert_msg(r == NULL, "case %zu: expected NULL, got %s", i, r);
            ck_assert_int_eq(otf_errno, OTF_ERROR);
            continue;
        }
        ck_assert_msg(r && strcmp(r, cases[i].name) == 0, "case %zu: expected %s, got %s", i,
                      cases[i].name, r ? r : "NULL");
        free(r);
    }
}
END_TEST

START_TEST(test_stub_kept_as_is)
{
    char *r = OTF_getFilename("", 1, OTF_FILETYPE_EVENT, 0, NULL);
    ck_assert_str_eq(r, ".1.events");
    free(r);
    r = OTF_getFilename("a.otf", 1, OTF_FILETYPE_EVENT, 0, NULL);
    ck_assert_str_eq(r, "a.otf.1.events");
    free(r);
    r = OTF_getFilename("/some/dir/trace", 0x10, OTF_FILETYPE_EVENT | 4, 0, NULL);
    ck_assert_str_eq(r, "/some/dir/trace.10.events.z");
    free(r);
    ck_assert_ptr_null(OTF_getFilename(NULL, 1, OTF_FILETYPE_EVENT, 0, NULL));
}
END_TEST

/* A caller's buffer of l bytes: the name is cut to l-1 characters, like
 * snprintf, and the buffer itself is returned; l = 0 allocates. */
START_TEST(test_caller_buffer)
{
    const char *full = "foo.1.events";
    for (unsigned l = 1; l < 20; l++) {
        char buf[32];
        memset(buf, 'X', sizeof buf);
        char *r = OTF_getFilename("foo", 1, OTF_FILETYPE_EVENT, l, buf);
        ck_assert_ptr_eq(r, buf);
        size_t want = l - 1 < strlen(full) ? l - 1 : strlen(full);
        ck_assert_uint_eq(strlen(buf), want);
        ck_assert(strncmp(buf, full, want) == 0);
        ck_assert_int_eq(buf[l], 'X'); /* nothing written past the buffer */
    }
    char buf[8];
    ck_assert_str_eq(OTF_getFilename("foo", 1, OTF_FILETYPE_EVENT | 4, 8, buf), "foo.1.e");
    char big[20];
    ck_assert_str_eq(OTF_getFilename("foo", 1, OTF_FILETYPE_EVENT | 4, 15, big),
                     "foo.1.events.z");
    ck_assert_str_eq(OTF_getFilename("foo", 1, OTF_FILETYPE_EVENT | 4, 14, big),
                     "foo.1.events.");
    char other[4];
    char *r = OTF_getFilename("foo", 1, OTF_FILETYPE_EVENT, 0, other);
    ck_assert_ptr_ne(r, other);
    ck_assert_str_eq(r, full);
    free(r);
    /* NULL buffer with a length: allocated (the reference crashes here) */
    r = OTF_getFilename("foo", 1, OTF_FILETYPE_EVENT, 5, NULL);
    ck_assert_str_eq(r, full);
    free(r);
}
END_TEST

START_TEST(test_strip)
{
    static const struct {
        const char *in, *out;
    } s[] = {
        {"foo.otf", "foo"},       {"foo", "foo"},         {"foo.otf.otf", "foo.otf"},
        {".otf", NULL},           {"", NULL},             {"otf", "otf"},
        {"a.OTF", "a.OTF"},       {"foo.otfx", "foo.otfx"}, {"foo.ot", "foo.ot"},
        {"/x/y.otf", "/x/y"},     {"a.b.otf", "a.b"},     {"foo.0.def", "foo.0.def"},
        {"x.otf", "x"},           {"..otf", "."},         {"a.otf/", "a.otf/"},
        {"foo.otf ", "foo.otf "}, {" .otf", " "},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        char *r = OTF_stripFilename(s[i].in);
        if (!s[i].out)
            ck_assert_msg(r == NULL, "'%s': expected NULL", s[i].in);
        else
            ck_assert_msg(r && strcmp(r, s[i].out) == 0, "'%s': expected '%s', got '%s'",
                          s[i].in, s[i].out, r ? r : "NULL");
        free(r);
    }
    ck_assert_ptr_null(OTF_stripFilename(NULL));
}
END_TEST

START_TEST(test_exists)
{
    ck_assert_int_eq(OTF_fileExists("/etc/passwd"), 1);
    ck_assert_int_eq(OTF_fileExists("/"), 1);
    ck_assert_int_eq(OTF_fileExists("/nonexistent/vftr/file"), 0);
    ck_assert_int_eq(OTF_fileExists(NULL), 0);
}
END_TEST

static Suite *filenames_suite(void)
{
    Suite *s = suite_create("filenames");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_stub_kept_as_is);
    tcase_add_test(tc, test_caller_buffer);
    tcase_add_test(tc, test_strip);
    tcase_add_test(tc, test_exists);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(filenames_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
