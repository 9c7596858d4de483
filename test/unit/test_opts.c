/*
 * test_opts.c — Check suite for lib/util/opts (option tables, --help,
 * --version, usage errors).  Output goes to memory streams and is compared
 * with text written out by hand.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/opts.h"
#include "util/proclist.h"

enum { K_DEFS = 1, K_EVENTS = 2, K_SNAPS = 4, K_STATS = 8, K_MARKERS = 16 };

/* Destinations of the test table; reset before every parse. */
static unsigned kinds;
static int count_only;
static const char *window;
static struct vftr_proclist procs;
static int fail_with;

static int add_procs(void *dest, const char *arg, char *err, size_t errlen)
{
    return vftr_proclist_parse(dest, arg, err, errlen);
}

/* A callback that fails with fail_with and no message. */
static int failing(void *dest, const char *arg, char *err, size_t errlen)
{
    (void)dest;
    (void)arg;
    (void)err;
    (void)errlen;
    return fail_with;
}

static const struct vftr_opt table[] = {
    { VFTR_OPT_BITS, "defs", 'd', NULL, "print definitions", &kinds, K_DEFS, NULL },
    { VFTR_OPT_BITS, "events", 'e', NULL, "print events", &kinds, K_EVENTS, NULL },
    { VFTR_OPT_BITS, "snaps", 0, NULL, "print snapshots", &kinds, K_SNAPS, NULL },
    { VFTR_OPT_BITS, "statistics", 0, NULL, "print statistics", &kinds, K_STATS, NULL },
    { VFTR_OPT_FLAG, "quiet", 'q', NULL, "be quiet\nabout it", &count_only, 0, NULL },
    { VFTR_OPT_STRING, "time", 't', "A:B", "time window", &window, 0, NULL },
    { VFTR_OPT_CALLBACK, "process", 'p', "LIST", "processes", &procs, 0, add_procs },
    { VFTR_OPT_CALLBACK, "very-long-option-name", 0, "ARGUMENT", "wraps", NULL, 0, failing },
    VFTR_OPT_TABLE_END,
};

static const struct vftr_tool tool = {
    "test-tool", "9.8.7", "[OPTION]... TRACE", "Tests the option table.",
    "Times are relative.", table,
};

struct run {
    int rc;
    int first;
    int argc;
    char *argv[16];
    char *out, *err;
};

/* Runs vftr_opts_parse on the NULL-terminated words, capturing out/err. */
static void run(struct run *r, const struct vftr_tool *t, const char *const *words)
{
    size_t outlen, errlen;
    FILE *out, *err;

    kinds = 0;
    count_only = 0;
    window = NULL;
    vftr_proclist_release(&procs);
    memset(r, 0, sizeof *r);
    r->first = -1;
    for (r->argc = 0; words[r->argc]; r->argc++)
        r->argv[r->argc] = (char *)words[r->argc];
    out = open_memstream(&r->out, &outlen);
    err = open_memstream(&r->err, &errlen);
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(err);
    r->rc = vftr_opts_parse(t, r->argc, r->argv, &r->first, out, err);
    fclose(out);
    fclose(err);
}

static void done(struct run *r)
{
    free(r->out);
    free(r->err);
}

START_TEST(options_go_to_their_destinations)
{
    const char *words[] = { "test-tool", "-d", "--events", "trace", "--time=1ms:2ms",
                            "-p", "1-4", "--process", "9", "-q", NULL };
    struct run r;

    run(&r, &tool, words);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(r.out, "");
    ck_assert_str_eq(r.err, "");
    ck_assert_uint_eq(kinds, K_DEFS | K_EVENTS);
    ck_assert_int_eq(count_only, 1);
    ck_assert_str_eq(window, "1ms:2ms");
    ck_assert_uint_eq(vftr_proclist_count(&procs), 5);   /* 1-4 and 9 accumulate */
    ck_assert_int_eq(r.argc - r.first, 1);               /* the operand moved last */
    ck_assert_str_eq(r.argv[r.first], "trace");
    done(&r);
}
END_TEST

START_TEST(short_clusters_abbreviations_and_double_dash)
{
    const char *words[] = { "test-tool", "-det", "5:", "--sn", "--st", "--", "-q", NULL };
    struct run r;

    run(&r, &tool, words);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_uint_eq(kinds, K_DEFS | K_EVENTS | K_SNAPS | K_STATS);
    ck_assert_str_eq(window, "5:");
    ck_assert_int_eq(count_only, 0);                     /* "-q" after "--" is an operand */
    ck_assert_int_eq(r.argc - r.first, 1);
    ck_assert_str_eq(r.argv[r.first], "-q");
    done(&r);

    /* A second parse starts over (getopt state is reset). */
    const char *again[] = { "test-tool", "-tA:B", "x", "y", NULL };
    run(&r, &tool, again);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(window, "A:B");
    ck_assert_int_eq(r.argc - r.first, 2);
    done(&r);
}
END_TEST

/* Runs words and expects a usage error with exactly the given first line. */
static void expect_usage_error(const char *const *words, const char *line)
{
    struct run r;
    char want[512];

    snprintf(want, sizeof want, "%s\nTry 'test-tool --help' for more information.\n", line);
    run(&r, &tool, words);
    ck_assert_int_eq(r.rc, -EINVAL);
    ck_assert_str_eq(r.out, "");
    ck_assert_str_eq(r.err, want);
    done(&r);
}

START_TEST(usage_errors)
{
    const char *unknown[] = { "test-tool", "--bogus", NULL };
    const char *unknown_arg[] = { "test-tool", "--bogus=1", NULL };
    const char *bad_short[] = { "test-tool", "-x", NULL };
    const char *bad_in_cluster[] = { "test-tool", "--defs", "-dx", NULL };
    const char *missing_long[] = { "test-tool", "--time", NULL };
    const char *missing_short[] = { "test-tool", "-t", NULL };
    const char *flag_with_arg[] = { "test-tool", "--defs=1", NULL };
    const char *abbrev_with_arg[] = { "test-tool", "--qu=1", NULL };
    const char *ambiguous[] = { "test-tool", "--s", NULL };
    const char *bad_list[] = { "test-tool", "-p", "4-1", NULL };

    expect_usage_error(unknown, "test-tool: unrecognized option '--bogus'");
    expect_usage_error(unknown_arg, "test-tool: unrecognized option '--bogus'");
    expect_usage_error(bad_short, "test-tool: invalid option -- 'x'");
    expect_usage_error(bad_in_cluster, "test-tool: invalid option -- 'x'");
    expect_usage_error(missing_long, "test-tool: option '--time' requires an argument");
    expect_usage_error(missing_short, "test-tool: option requires an argument -- 't'");
    expect_usage_error(flag_with_arg, "test-tool: option '--defs' doesn't allow an argument");
    expect_usage_error(abbrev_with_arg, "test-tool: option '--quiet' doesn't allow an argument");
    expect_usage_error(ambiguous,
                       "test-tool: option '--s' is ambiguous; possibilities: '--snaps' '--statistics'");
    expect_usage_error(bad_list,
                       "test-tool: bad process list '4-1': reversed range '4-1' (did you mean "
                       "1-4?)");
}
END_TEST

START_TEST(callback_failures)
{
    const char *words[] = { "test-tool", "--very-long-option-name=z", NULL };
    struct run r;

    fail_with = -ENOMEM;
    run(&r, &tool, words);
    ck_assert_int_eq(r.rc, -ENOMEM);        /* a runtime error: no hint to try --help */
    ck_assert_str_eq(r.err, "test-tool: --very-long-option-name 'z': Cannot allocate memory\n");
    done(&r);

    fail_with = -ERANGE;                    /* out-of-range arguments are usage errors */
    run(&r, &tool, words);
    ck_assert_int_eq(r.rc, -EINVAL);
    ck_assert_str_eq(r.err, "test-tool: --very-long-option-name 'z': Numerical result out of "
                     "range\nTry 'test-tool --help' for more information.\n");
    done(&r);
}
END_TEST

START_TEST(help_is_printed_from_the_table)
{
    const char *words[] = { "test-tool", "-d", "--help", "--bogus", NULL };
    const char *expected =
        "Usage: test-tool [OPTION]... TRACE\n"
        "Tests the option table.\n"
        "\n"
        "Options:\n"
        "  -d, --defs          print definitions\n"
        "  -e, --events        print events\n"
        "      --snaps         print snapshots\n"
        "      --statistics    print statistics\n"
        "  -q, --quiet         be quiet\n"
        "                      about it\n"
        "  -t, --time=A:B      time window\n"
        "  -p, --process=LIST  processes\n"
        "      --very-long-option-name=ARGUMENT\n"
        "                      wraps\n"
        "  -h, --help          print this help and exit\n"
        "  -V, --version       print the version and exit\n"
        "\n"
        "Times are relative.\n";
    struct run r;

    run(&r, &tool, words);
    ck_assert_int_eq(r.rc, VFTR_OPTS_DONE);   /* stops at --help, before --bogus */
    ck_assert_str_eq(r.out, expected);
    ck_assert_str_eq(r.err, "");
    done(&r);

    const char *h[] = { "test-tool", "-h", NULL };
    run(&r, &tool, h);
    ck_assert_int_eq(r.rc, VFTR_OPTS_DONE);
    ck_assert_str_eq(r.out, expected);
    done(&r);
}
END_TEST

START_TEST(version)
{
    const char *words[] = { "test-tool", "--version", NULL };
    const char *v[] = { "test-tool", "-V", NULL };
    const char *abbrev[] = { "test-tool", "--vers", NULL };
    struct run r;

    run(&r, &tool, words);
    ck_assert_int_eq(r.rc, VFTR_OPTS_DONE);
    ck_assert_str_eq(r.out, "test-tool (vftr) 9.8.7\n");
    done(&r);
    run(&r, &tool, v);
    ck_assert_int_eq(r.rc, VFTR_OPTS_DONE);
    ck_assert_str_eq(r.out, "test-tool (vftr) 9.8.7\n");
    done(&r);
    run(&r, &tool, abbrev);
    ck_assert_int_eq(r.rc, VFTR_OPTS_DONE);
    ck_assert_str_eq(r.out, "test-tool (vftr) 9.8.7\n");
    done(&r);
}
END_TEST

START_TEST(broken_tables_are_rejected)
{
    static const struct vftr_opt uses_h[] = {
        { VFTR_OPT_FLAG, "hidden", 'h', NULL, "x", &count_only, 0, NULL },
        VFTR_OPT_TABLE_END,
    };
    static const struct vftr_opt no_argname[] = {
        { VFTR_OPT_STRING, "time", 't', NULL, "x", &window, 0, NULL },
        VFTR_OPT_TABLE_END,
    };
    static const struct vftr_opt dup_name[] = {
        { VFTR_OPT_FLAG, "count", 0, NULL, "x", &count_only, 0, NULL },
        { VFTR_OPT_FLAG, "count", 0, NULL, "x", &count_only, 0, NULL },
        VFTR_OPT_TABLE_END,
    };
    /* The shared letters (optletters.c): -j is --jobs, --json is -J, --time
     * takes an argument, in every tool. */
    static const struct vftr_opt j_for_json[] = {
        { VFTR_OPT_FLAG, "json", 'j', NULL, "x", &count_only, 0, NULL },
        VFTR_OPT_TABLE_END,
    };
    static const struct vftr_opt jobs_without_j[] = {
        { VFTR_OPT_STRING, "jobs", 0, "N", "x", &window, 0, NULL },
        VFTR_OPT_TABLE_END,
    };
    static const struct vftr_opt time_as_flag[] = {
        { VFTR_OPT_FLAG, "time", 't', NULL, "x", &count_only, 0, NULL },
        VFTR_OPT_TABLE_END,
    };
    static const struct vftr_opt unshared_letter[] = {
        { VFTR_OPT_FLAG, "bogus", 'x', NULL, "x", &count_only, 0, NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_opt *tables[] = { uses_h, no_argname, dup_name, j_for_json,
                                        jobs_without_j, time_as_flag, unshared_letter };
    const char *problems[] = {
        "duplicate short letter",
        "argname must be set exactly for options with an argument",
        "duplicate long name",
        "short letter not given to this long name by the shared table (optletters.c)",
        "option without the letter the shared table gives it (optletters.c)",
        "option's argument differs from the shared table's (optletters.c)",
        "short letter not given to this long name by the shared table (optletters.c)",
    };
    const char *words[] = { "broken", NULL };

    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        struct vftr_tool t = { "broken", "1", "X", NULL, NULL, tables[i] };
        struct run r;
        char want[256];

        snprintf(want, sizeof want, "broken: internal error: bad option table: %s\n"
                 "Try 'broken --help' for more information.\n", problems[i]);
        run(&r, &t, words);
        ck_assert_int_eq(r.rc, -EINVAL);
        ck_assert_str_eq(r.err, want);
        done(&r);
    }
}
END_TEST

/* The shared table itself: sorted, each letter and each long name once,
 * -h and -V left to the built-ins, and the lookups find every entry. */
START_TEST(shared_letters_mean_one_thing)
{
    const struct vftr_optletter *t = vftr_optletters();
    size_t n = 0;

    for (; t[n].letter; n++) {
        ck_assert_msg(t[n].name && t[n].meaning, "entry %zu incomplete", n);
        ck_assert_int_ne(t[n].letter, 'h');
        ck_assert_int_ne(t[n].letter, 'V');
        if (n > 0)
            ck_assert_msg(t[n - 1].letter < t[n].letter, "'%c' out of order or twice",
                          t[n].letter);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(strcmp(t[k].name, t[n].name) != 0, "--%s has two letters",
                          t[n].name);
        ck_assert_ptr_eq(vftr_optletter_by_letter(t[n].letter), &t[n]);
        ck_assert_ptr_eq(vftr_optletter_by_name(t[n].name), &t[n]);
    }
    ck_assert_uint_gt(n, 10);
    ck_assert_ptr_null(vftr_optletter_by_letter('h'));
    ck_assert_ptr_null(vftr_optletter_by_name("help"));
    ck_assert_int_eq(vftr_optletter_by_name("jobs")->letter, 'j');
    ck_assert_int_eq(vftr_optletter_by_name("process")->letter, 'p');
    ck_assert_int_eq(vftr_optletter_by_name("time")->letter, 't');
}
END_TEST

START_TEST(tool_messages)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_int_eq(vftr_tool_fail(&tool, f, "%s: cannot open trace (%s)", "foo.otf", "gone"),
                     VFTR_EXIT_ERROR);
    ck_assert_int_eq(vftr_tool_usage_fail(&tool, f, "missing %s", "TRACE"), VFTR_EXIT_USAGE);
    fclose(f);
    ck_assert_str_eq(buf, "test-tool: foo.otf: cannot open trace (gone)\n"
                     "test-tool: missing TRACE\n"
                     "Try 'test-tool --help' for more information.\n");
    free(buf);
}
END_TEST

static Suite *opts_suite(void)
{
    Suite *s = suite_create("opts");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, options_go_to_their_destinations);
    tcase_add_test(tc, short_clusters_abbreviations_and_double_dash);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, callback_failures);
    tcase_add_test(tc, help_is_printed_from_the_table);
    tcase_add_test(tc, version);
    tcase_add_test(tc, broken_tables_are_rejected);
    tcase_add_test(tc, tool_messages);
    tcase_add_test(tc, shared_letters_mean_one_thing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(opts_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    vftr_proclist_release(&procs);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
