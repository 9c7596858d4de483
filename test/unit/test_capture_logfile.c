/*
 * test_capture_logfile.c — Check suite for capture/logfile (the profile
 * log).  Small profiles made by hand are printed and compared with golden
 * files written by hand (the .log files in test/data/capture/, described in the README
 * there); sorting is checked against orders worked out by hand.
 *
 * The hand-made profile (run time 10 s):
 *   id 1 main           calls 1  excl 1  incl 10  overhead 0.010
 *   id 2 fib<main       calls 1  excl 2  incl  6  overhead 0.020
 *   id 3 fib<fib<main   calls 2  excl 4  incl  4  overhead 0.040
 *   id 4 work<main      calls 3  excl 3  incl  3  overhead 0.003
 * given in the row order 3, 1, 4, 2 so that sorting has work to do.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logfile.h"

#define DATA "test/data/capture/"

static struct vftr_profile_row rows4[] = {
    { 3, 2, 0, "fib", "fib", 2, 4.0, 4.0, 0.040 },
    { 1, 0, 0, "main", NULL, 1, 1.0, 10.0, 0.010 },
    { 4, 1, 0, "work", "main", 3, 3.0, 3.0, 0.003 },
    { 2, 1, 0, "fib", "main", 1, 2.0, 6.0, 0.020 },
};

static const struct vftr_profile prof4 = { rows4, 4, 10.0, 1 };

static void run_info(struct vftr_run_info *run)
{
    memset(run, 0, sizeof *run);
    run->rank = 0;
    run->size = 1;
    run->pid = 4242;
    run->host = "node7";
    run->exe = "/opt/app/fib";
    run->vfd_path = "out/fib_0.vfd";
    run->start.tv_sec = 1700000000;     /* 2023-11-14 22:13:20 UTC */
    run->start.tv_nsec = 500000000;
    run->end.tv_sec = 1700000010;
    run->end.tv_nsec = 500000000;
    for (int i = 0; i < 16; i++)
        run->run_id[i] = (uint8_t)i;
    run->trace_bytes = 4000;
    run->trace_events = 1000;
    run->trace_cap = 1073741824;
    run->trace_active = true;
    run->clock = "tsc";
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;

    ck_assert_msg(f != NULL, "cannot open %s (run from the top of the tree)", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* Prints with opts and compares with the golden file line by line, so that
 * a difference names its line. */
static void expect_golden(const struct vftr_profile *p, const struct vftr_run_info *run,
                          const struct vftr_logfile_opts *opts, const char *golden)
{
    char *got = NULL, *want = slurp(golden);
    size_t len = 0;
    FILE *out = open_memstream(&got, &len);

    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(vftr_logfile_print(out, p, run, opts), 0);
    fclose(out);

    char *g = got, *w = want;
    for (int line = 1; *g || *w; line++) {
        size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");

        ck_assert_msg(gl == wl && memcmp(g, w, gl) == 0, "%s: line %d:\n got: %.*s\nwant: %.*s",
                      golden, line, (int)gl, g, (int)wl, w);
        g += gl + (g[gl] == '\n');
        w += wl + (w[wl] == '\n');
    }
    ck_assert_str_eq(got, want);    /* same final newlines */
    free(got);
    free(want);
}

START_TEST(default_log)
{
    struct vftr_run_info run;
    struct vftr_logfile_opts o;

    run_info(&run);
    vftr_logfile_opts_default(&o);
    expect_golden(&prof4, &run, &o, DATA "logfile_default.log");
    /* NULL options mean the defaults */
    expect_golden(&prof4, &run, NULL, DATA "logfile_default.log");
}
END_TEST

START_TEST(options_log)
{
    struct vftr_run_info run;
    struct vftr_logfile_opts o;

    run_info(&run);
    run.sample_interval = 0.005;
    run.trace_events = 1024;
    run.trace_bytes = 4096;
    run.trace_cap = 4096;
    run.trace_capped = true;
    run.trace_active = false;
    vftr_logfile_opts_default(&o);
    o.sort_column = VFTR_SORT_CALLS;
    o.sort_ascending = true;
    o.show_overhead = true;
    o.show_callpath = true;
    o.show_stacklist = false;
    o.show_grouped = true;
    o.grouped_sort_column = VFTR_SORT_CALLS;
    o.grouped_sort_ascending = true;
    o.grouped_max_stack_ids = 1;
    expect_golden(&prof4, &run, &o, DATA "logfile_options.log");
}
END_TEST

START_TEST(threads_log)
{
    struct vftr_profile_row rows[] = {
        { 1, 0, 0, "main", NULL, 1, 1.0, 1.5, 0 },
        { 2, 1, 0, "spawn", "main", 1, 0.5, 0.5, 0 },
        { 3, 0, 1, "work", "", 2, 1.25, 1.25, 0 },
    };
    struct vftr_profile p = { rows, 3, 1.5, 0 };
    struct vftr_run_info run;

    memset(&run, 0, sizeof run);
    run.rank = 3;
    run.size = 4;
    run.pid = 99;
    run.exe = "a.out";
    run.clock = "monotonic";
    run.trace_message = "cannot create out/x.tmpvfd: Permission denied";
    expect_golden(&p, &run, NULL, DATA "logfile_threads.log");
}
END_TEST

/* Row order of a sort as call-path ids. */
static void sorted_ids(enum vftr_sort_column col, bool asc, uint32_t *ids)
{
    size_t order[4] = { 0, 1, 2, 3 };

    vftr_logfile_sort(rows4, order, 4, col, asc);
    for (int i = 0; i < 4; i++)
        ids[i] = rows4[order[i]].callpath_id;
}

#define EXPECT_IDS(col, asc, a, b, c, d)                                            \
    do {                                                                            \
        uint32_t ids_[4];                                                           \
        sorted_ids(col, asc, ids_);                                                 \
        ck_assert_msg(ids_[0] == (a) && ids_[1] == (b) && ids_[2] == (c) && ids_[3] == (d), \
                      #col " %s: got %u %u %u %u", (asc) ? "asc" : "desc", ids_[0], ids_[1], \
                      ids_[2], ids_[3]);                                            \
    } while (0)

START_TEST(sort_orders)
{
    /* excl 4,1,3,2 at ids 3,1,4,2 */
    EXPECT_IDS(VFTR_SORT_TIME_EXCL, false, 3, 4, 2, 1);
    EXPECT_IDS(VFTR_SORT_TIME_EXCL, true, 1, 2, 4, 3);
    /* incl 4,10,3,6 */
    EXPECT_IDS(VFTR_SORT_TIME_INCL, false, 1, 2, 3, 4);
    EXPECT_IDS(VFTR_SORT_TIME_INCL, true, 4, 3, 2, 1);
    /* calls 2,1,3,1: ties (ids 1 and 2, rows 1 and 3) stay in row order both ways */
    EXPECT_IDS(VFTR_SORT_CALLS, false, 4, 3, 1, 2);
    EXPECT_IDS(VFTR_SORT_CALLS, true, 1, 2, 3, 4);
    EXPECT_IDS(VFTR_SORT_STACK_ID, true, 1, 2, 3, 4);
    EXPECT_IDS(VFTR_SORT_STACK_ID, false, 4, 3, 2, 1);
    /* overhead .040,.010,.003,.020 */
    EXPECT_IDS(VFTR_SORT_OVERHEAD, false, 3, 2, 1, 4);
    /* none (and columns the profile does not have) keep the row order */
    EXPECT_IDS(VFTR_SORT_NONE, false, 3, 1, 4, 2);
    EXPECT_IDS(VFTR_SORT_NONE, true, 3, 1, 4, 2);
    EXPECT_IDS(VFTR_SORT_SEND_BW, false, 3, 1, 4, 2);
}
END_TEST

START_TEST(sort_subset_and_empty)
{
    size_t order[2] = { 2, 0 };   /* rows of ids 4 and 3 */

    vftr_logfile_sort(rows4, order, 2, VFTR_SORT_CALLS, true);
    ck_assert_uint_eq(order[0], 0);   /* calls 2 */
    ck_assert_uint_eq(order[1], 2);   /* calls 3 */
    vftr_logfile_sort(rows4, order, 0, VFTR_SORT_CALLS, true);
    ck_assert_uint_eq(order[0], 0);
}
END_TEST

/* A parent cycle (a damaged profile) must not loop; an unknown parent ends
 * the path. */
START_TEST(broken_parents)
{
    struct vftr_profile_row rows[] = {
        { 1, 2, 0, "a", "b", 1, 1.0, 1.0, 0 },
        { 2, 1, 0, "b", "a", 1, 1.0, 1.0, 0 },
        { 3, 77, 0, "c", NULL, 1, 1.0, 1.0, 0 },
    };
    struct vftr_profile p = { rows, 3, 3.0, 1 };
    struct vftr_logfile_opts o;
    char *got = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&got, &len);

    vftr_logfile_opts_default(&o);
    o.show_table = false;
    o.show_grouped = true;
    ck_assert_int_eq(vftr_logfile_print(out, &p, NULL, &o), 0);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(got, "\n   3  c\n"));
    ck_assert_ptr_nonnull(strstr(got, "\n   1  a<b<a<b"));
    free(got);
}
END_TEST

START_TEST(empty_profile)
{
    struct vftr_profile p = { NULL, 0, 0.0, 0 };
    char *got = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&got, &len);

    ck_assert_int_eq(vftr_logfile_print(out, &p, NULL, NULL), 0);
    fclose(out);
    ck_assert_str_eq(got, "vftr profile log\n\n"
                     "Profile: 0 call paths, sorted by time_excl, descending; % = exclusive time "
                     "in percent of the run time\n\n"
                     "Calls  t_excl[s]  t_incl[s]  %  STID  Function  Caller\n"
                     "-----  ---------  ---------  -  ----  --------  ------\n\n"
                     "Call paths: 0 (function<caller<...)\n\n"
                     "STID  Call path\n"
                     "----  ---------\n\n");
    free(got);
}
END_TEST

START_TEST(bad_arguments)
{
    struct vftr_profile p = { NULL, 3, 0.0, 0 };

    ck_assert_int_eq(vftr_logfile_print(stdout, NULL, NULL, NULL), -EINVAL);
    ck_assert_int_eq(vftr_logfile_print(stdout, &p, NULL, NULL), -EINVAL);
    ck_assert_int_eq(vftr_logfile_write(NULL, &prof4, NULL, NULL), -EINVAL);
}
END_TEST

static char tmpdir[64];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_logfile.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

START_TEST(write_file)
{
    struct vftr_run_info run;
    char path[128];
    char *got;

    make_tmpdir();
    run_info(&run);
    snprintf(path, sizeof path, "%s/fib_0.log", tmpdir);
    ck_assert_int_eq(vftr_logfile_write(path, &prof4, NULL, &run), 0);
    got = slurp(path);
    char *want = slurp(DATA "logfile_default.log");
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    /* an existing log is replaced */
    ck_assert_int_eq(vftr_logfile_write(path, &prof4, NULL, &run), 0);
    unlink(path);

    /* a directory that does not exist */
    snprintf(path, sizeof path, "%s/missing/fib_0.log", tmpdir);
    ck_assert_int_eq(vftr_logfile_write(path, &prof4, NULL, &run), -ENOENT);
    /* /dev/full: the error shows at the flush, the call reports it */
    ck_assert_int_eq(vftr_logfile_write("/dev/full", &prof4, NULL, &run), -ENOSPC);
    rmdir(tmpdir);
}
END_TEST

/* With a configuration: its switches choose the sections, and print_config
 * appends the configuration as JSON. */
START_TEST(write_with_config)
{
    struct vftr_config cfg;
    struct vftr_run_info run;
    char path[128];
    char *got;

    make_tmpdir();
    run_info(&run);
    ck_assert_int_eq(vftr_config_init(&cfg), 0);
    cfg.stacklist_show_stacklist = false;
    cfg.profile_table_sort_table_column = VFTR_SORT_STACK_ID;
    cfg.profile_table_sort_table_ascending = true;
    cfg.name_grouped_profile_table_show_table = true;
    snprintf(path, sizeof path, "%s/fib_0.log", tmpdir);
    ck_assert_int_eq(vftr_logfile_write(path, &prof4, &cfg, &run), 0);
    got = slurp(path);
    ck_assert_ptr_nonnull(strstr(got, "sorted by stack_id, ascending"));
    ck_assert_ptr_nonnull(strstr(got, "\nProfile grouped by function name: 3 functions"));
    ck_assert_ptr_null(strstr(got, "\nCall paths:"));
    ck_assert_ptr_nonnull(strstr(got, "\nConfiguration in use\n\n{"));
    ck_assert_ptr_nonnull(strstr(got, "\"stacklist\""));
    /* ids in ascending order: the first data row is main's */
    ck_assert_ptr_nonnull(strstr(got, "------\n    1   1.000000  10.000000  10.00     1  main      -\n"));
    free(got);

    cfg.print_config = false;
    ck_assert_int_eq(vftr_logfile_write(path, &prof4, &cfg, &run), 0);
    got = slurp(path);
    ck_assert_ptr_null(strstr(got, "Configuration in use"));
    free(got);
    unlink(path);
    rmdir(tmpdir);
    vftr_config_release(&cfg);
}
END_TEST

static Suite *logfile_suite(void)
{
    Suite *s = suite_create("capture_logfile");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, default_log);
    tcase_add_test(tc, options_log);
    tcase_add_test(tc, threads_log);
    tcase_add_test(tc, sort_orders);
    tcase_add_test(tc, sort_subset_and_empty);
    tcase_add_test(tc, broken_parents);
    tcase_add_test(tc, empty_profile);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, write_file);
    tcase_add_test(tc, write_with_config);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(logfile_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
