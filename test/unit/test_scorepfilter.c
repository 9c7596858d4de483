/*
 * test_scorepfilter.c — Check suite for lib/util/scorepfilter (Score-P
 * filter files).  The files are the examples of the Score-P user manual's
 * chapter on filtering (and variants of them); the selections expected
 * were worked out by hand from the manual's rules: the last matching rule
 * decides, no match includes, a region is out when its file is.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/errmsg.h"
#include "util/scorepfilter.h"

static struct vftr_scorep_filter *parse(const char *text)
{
    char err[VFTR_ERRMSG_MAX] = "";
    struct vftr_scorep_filter *f = vftr_scorep_filter_parse(text, strlen(text), "t.filt", err,
                                                            sizeof err);

    ck_assert_msg(f != NULL, "%s", err);
    return f;
}

static void expect_error(const char *text, const char *want)
{
    char err[VFTR_ERRMSG_MAX] = "";

    errno = 0;
    ck_assert_ptr_null(vftr_scorep_filter_parse(text, strlen(text), "t.filt", err, sizeof err));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_str_eq(err, want);
}

/* The manual's first example: everything out but four functions. */
START_TEST(manual_include_list)
{
    struct vftr_scorep_filter *f = parse("SCOREP_REGION_NAMES_BEGIN\n"
                                         "  EXCLUDE *\n"
                                         "  INCLUDE bar foo\n"
                                         "          baz\n"
                                         "          main\n"
                                         "SCOREP_REGION_NAMES_END\n");

    ck_assert_uint_eq(vftr_scorep_filter_region_rules(f), 5);
    ck_assert(!vftr_scorep_filter_excludes(f, "main", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "foo", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "bar", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "baz", NULL, NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "foobar", NULL, NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "qux", NULL, NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "", NULL, NULL));
    vftr_scorep_filter_free(f);
}
END_TEST

/* The manual's example with file names and a comment. */
START_TEST(manual_files_and_regions)
{
    struct vftr_scorep_filter *f = parse("SCOREP_FILE_NAMES_BEGIN # This is a comment\n"
                                         "  EXCLUDE *\n"
                                         "  INCLUDE */filter_test.c\n"
                                         "SCOREP_FILE_NAMES_END\n"
                                         "\n"
                                         "SCOREP_REGION_NAMES_BEGIN\n"
                                         "  EXCLUDE *\n"
                                         "  INCLUDE bar foo\n"
                                         "          baz\n"
                                         "          main\n"
                                         "SCOREP_REGION_NAMES_END\n");

    ck_assert_uint_eq(vftr_scorep_filter_file_rules(f), 2);
    ck_assert(!vftr_scorep_filter_excludes(f, "foo", NULL, "/src/filter_test.c"));
    ck_assert(vftr_scorep_filter_excludes(f, "foo", NULL, "/src/other.c"));
    ck_assert(vftr_scorep_filter_excludes(f, "qux", NULL, "/src/filter_test.c"));
    /* `*` crosses '/' (fnmatch without FNM_PATHNAME), as in Score-P */
    ck_assert(!vftr_scorep_filter_excludes(f, "main", NULL, "a/b/c/filter_test.c"));
    /* file unknown: the file rules are not asked */
    ck_assert(!vftr_scorep_filter_excludes(f, "main", NULL, NULL));
    vftr_scorep_filter_free(f);
}
END_TEST

/* MANGLED: the rule looks at the symbol's name, the others at the
 * demangled one; the last match decides whichever name it looked at. */
START_TEST(mangled)
{
    struct vftr_scorep_filter *f = parse("SCOREP_REGION_NAMES_BEGIN\n"
                                         "  EXCLUDE *\n"
                                         "  INCLUDE MANGLED _Z3foov\n"
                                         "  EXCLUDE ns::*\n"
                                         "  INCLUDE MANGLED _ZN2ns4keepEv\n"
                                         "SCOREP_REGION_NAMES_END\n");

    ck_assert(!vftr_scorep_filter_excludes(f, "foo()", "_Z3foov", NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "bar()", "_Z3barv", NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "ns::drop()", "_ZN2ns4dropEv", NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "ns::keep()", "_ZN2ns4keepEv", NULL));
    /* the demangled name "_Z3foov" (no C++ runtime) matches the mangled rule too */
    ck_assert(!vftr_scorep_filter_excludes(f, "_Z3foov", NULL, NULL));
    vftr_scorep_filter_free(f);
}
END_TEST

/* Wildcards, quotes, several blocks, rules without patterns, no rules. */
START_TEST(wildcards_and_blocks)
{
    struct vftr_scorep_filter *f = parse("# only comments and blocks\n"
                                         "SCOREP_REGION_NAMES_BEGIN EXCLUDE MPI_* f?o h[0-9]x\n"
                                         "  a\\#b   # the quoted hash is part of the name\n"
                                         "SCOREP_REGION_NAMES_END\n"
                                         "SCOREP_REGION_NAMES_BEGIN\n"
                                         "  INCLUDE MPI_Send\n"
                                         "  EXCLUDE\n"
                                         "SCOREP_REGION_NAMES_END\n");

    ck_assert(vftr_scorep_filter_excludes(f, "MPI_Recv", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "MPI_Send", NULL, NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "foo", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "fooo", NULL, NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "h7x", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "hax", NULL, NULL));
    ck_assert(vftr_scorep_filter_excludes(f, "a#b", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "a", NULL, NULL));
    vftr_scorep_filter_free(f);

    f = parse("");
    ck_assert(!vftr_scorep_filter_excludes(f, "anything", NULL, NULL));
    vftr_scorep_filter_free(f);
    ck_assert(!vftr_scorep_filter_excludes(NULL, "x", NULL, NULL));
    vftr_scorep_filter_free(NULL);
}
END_TEST

START_TEST(errors)
{
    expect_error("EXCLUDE foo\n",
                 "t.filt: line 1: expected SCOREP_REGION_NAMES_BEGIN or SCOREP_FILE_NAMES_BEGIN, "
                 "found 'EXCLUDE'");
    expect_error("SCOREP_REGION_NAMES_BEGIN\n  foo\nSCOREP_REGION_NAMES_END\n",
                 "t.filt: line 2: expected INCLUDE or EXCLUDE before the pattern 'foo'");
    expect_error("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo\n",
                 "t.filt: line 3: expected SCOREP_REGION_NAMES_END (the block of line 1) before "
                 "the end of the file");
    expect_error("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE x\nSCOREP_FILE_NAMES_END\n",
                 "t.filt: line 3: expected SCOREP_REGION_NAMES_END (the block of line 1), found "
                 "'SCOREP_FILE_NAMES_END'");
    /* MANGLED belongs to region blocks: in a file block it is a pattern */
    {
        struct vftr_scorep_filter *f = parse("SCOREP_FILE_NAMES_BEGIN EXCLUDE MANGLED "
                                             "SCOREP_FILE_NAMES_END");

        ck_assert(vftr_scorep_filter_excludes(f, "x", NULL, "MANGLED"));
        vftr_scorep_filter_free(f);
    }
    {
        char err[VFTR_ERRMSG_MAX] = "";
        static const char nul[] = "SCOREP_REGION_NAMES_BEGIN\n\0";

        ck_assert_ptr_null(vftr_scorep_filter_parse(nul, sizeof nul - 1, "t.filt", err,
                                                    sizeof err));
        ck_assert_str_eq(err, "t.filt: line 2: NUL byte (expected text)");
    }
}
END_TEST

START_TEST(load_file)
{
    char path[] = "/tmp/test_scorepfilter_XXXXXX", err[VFTR_ERRMSG_MAX] = "";
    int fd = mkstemp(path);
    static const char text[] = "SCOREP_REGION_NAMES_BEGIN EXCLUDE hot* SCOREP_REGION_NAMES_END\n";
    struct vftr_scorep_filter *f;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    f = vftr_scorep_filter_load(path, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    ck_assert(vftr_scorep_filter_excludes(f, "hot_tiny", NULL, NULL));
    ck_assert(!vftr_scorep_filter_excludes(f, "cold", NULL, NULL));
    vftr_scorep_filter_free(f);
    unlink(path);
    ck_assert_ptr_null(vftr_scorep_filter_load(path, err, sizeof err));
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_ptr_null(vftr_scorep_filter_load("/tmp", err, sizeof err));
    ck_assert_str_eq(err, "/tmp: expected a regular file of at most 16 MiB");
}
END_TEST

static Suite *scorepfilter_suite(void)
{
    Suite *s = suite_create("scorepfilter");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, manual_include_list);
    tcase_add_test(tc, manual_files_and_regions);
    tcase_add_test(tc, mangled);
    tcase_add_test(tc, wildcards_and_blocks);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, load_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scorepfilter_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
