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
 *
 * The profile over ranks (capture/collate.h) and the MPI tables are checked
 * the same way, from rank rows and MPI rows made by hand (their comments
 * work out every figure of the golden files).
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collate.h"
#include "logfile.h"

#define DATA "test/data/capture/"

/* A row of a process's own profile: id, parent, thread, function, caller,
 * calls, exclusive, inclusive and overhead seconds. */
#define ROW(id, par, th, fn, clr, n, ex, in, ov)                                      \
    { .callpath_id = (id), .parent_id = (par), .thread = (th), .function = (fn),     \
      .caller = (clr), .calls = (n), .time_excl = (ex), .time_incl = (in), .overhead = (ov) }

static struct vftr_profile_row rows4[] = {
    ROW(3, 2, 0, "fib", "fib", 2, 4.0, 4.0, 0.040),
    ROW(1, 0, 0, "main", NULL, 1, 1.0, 10.0, 0.010),
    ROW(4, 1, 0, "work", "main", 3, 3.0, 3.0, 0.003),
    ROW(2, 1, 0, "fib", "main", 1, 2.0, 6.0, 0.020),
};

static const struct vftr_profile prof4 = { .rows = rows4, .n = 4, .run_time = 10.0, .nthreads = 1 };

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

/* Compares got with the golden file line by line, so that a difference
 * names its line; frees got. */
static void same_as_golden(char *got, const char *golden)
{
    char *want = slurp(golden);
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

/* Prints with opts and compares with the golden file. */
static void expect_golden(const struct vftr_profile *p, const struct vftr_run_info *run,
                          const struct vftr_logfile_opts *opts, const char *golden)
{
    char *got = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&got, &len);

    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(vftr_logfile_print(out, p, run, opts), 0);
    fclose(out);
    same_as_golden(got, golden);
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
        ROW(1, 0, 0, "main", NULL, 1, 1.0, 1.5, 0),
        ROW(2, 1, 0, "spawn", "main", 1, 0.5, 0.5, 0),
        ROW(3, 0, 1, "work", "", 2, 1.25, 1.25, 0),
    };
    struct vftr_profile p = { .rows = rows, .n = 3, .run_time = 1.5 };
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
        ROW(1, 2, 0, "a", "b", 1, 1.0, 1.0, 0),
        ROW(2, 1, 0, "b", "a", 1, 1.0, 1.0, 0),
        ROW(3, 77, 0, "c", NULL, 1, 1.0, 1.0, 0),
    };
    struct vftr_profile p = { .rows = rows, .n = 3, .run_time = 3.0, .nthreads = 1 };
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
    struct vftr_profile p = { .rows = NULL };
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
    struct vftr_profile p = { .rows = NULL, .n = 3 };
    struct vftr_profile q = { .rows = rows4, .n = 4, .nmpi = 1 };

    ck_assert_int_eq(vftr_logfile_print(stdout, NULL, NULL, NULL), -EINVAL);
    ck_assert_int_eq(vftr_logfile_print(stdout, &p, NULL, NULL), -EINVAL);
    ck_assert_int_eq(vftr_logfile_print(stdout, &q, NULL, NULL), -EINVAL);   /* mpi NULL */
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


/* ------------------------------------------------------------ over ranks */

/*
 * Three ranks of a run time of 10 s each ("\001" separates the names of a
 * call path, root first).  Rank 1 has two rows of main>solve (two threads):
 * they are summed before the spread over ranks is taken.
 *
 *   path                          rank 0        rank 1            rank 2
 *   main            calls/excl    1 / 1         1 / 2             1 / 6
 *   main>solve                    2 / 4 (i 6)   1+1 / 1+2 (i 3+2) 2 / 2 (i 4)
 *   main>solve>MPI_Allreduce      2 / 2         2 / 2             2 / 4
 *   main>MPI_Send                 4 / 3         -                 -
 *   main>MPI_Recv                 -             4 / 5             -
 *   main>MPI_Barrier              -             -                 1 / 0.5
 *
 * Merged, numbered in the byte order of the paths ('M' < 's'):
 *   1 main, 2 MPI_Barrier<main, 3 MPI_Recv<main, 4 MPI_Send<main,
 *   5 solve<main, 6 MPI_Allreduce<solve<main.
 * main: excl 9 (1+2+6), min 1 on rank 0, max 6 on rank 2, avg 3, imbalance
 * (6-3)/6 = 50 %; solve: excl 9 (4+3+2), incl 15, calls 6, max 4 on rank 0,
 * min 2 on rank 2, avg 3, (4-3)/4 = 25 %; MPI_Allreduce: excl 8 (2+2+4),
 * max 4 on rank 2, min 2 on rank 0 (rank 1 ties, the lower wins), avg 8/3,
 * (4-8/3)/4 = 33.33 %; the others ran on one rank: 0 %.  % of the summed
 * run time 30 s: 30.00, 30.00, 26.67, 16.67, 10.00, 1.67.
 *
 * MPI: MPI_Allreduce 2 sends and 2 receives of 8000000 bytes in all per
 * rank: summed 6 and 6 messages, 24000000 bytes each way, in the 6 calls of
 * the merged call path, 8 s (its inclusive time): 3.000 MB/s, 4000000.0
 * bytes per message; MPI_Send (rank 0) 4 sends, 4000000 bytes in 3 s:
 * 1.333 MB/s; MPI_Recv (rank 1) 4 receives, 4000000 bytes in 5 s: 0.800
 * MB/s; MPI_Barrier moved nothing and is left out.  Sorted by messages,
 * descending: 12 (Allreduce), 4 (Recv), 4 (Send; ties in path order).
 */
#define P(rk, pth, n, ex, in, ov) \
    { .kind = VFTR_COLLATE_PROFILE, .rank = (rk), .path = (pth), .calls = (n), .excl = (ex), \
      .incl = (in), .overhead = (ov) }
#define M(rk, pth, s, r, sb, rb) \
    { .kind = VFTR_COLLATE_MPI, .rank = (rk), .path = (pth), .sends = (s), .recvs = (r), \
      .sent_bytes = (sb), .recv_bytes = (rb) }

static void ranks_rows(struct vftr_collate_in *in, size_t *n)
{
    const struct vftr_collate_in rows[] = {
        M(2, "main\001MPI_Barrier", 0, 0, 0, 0),
        P(0, "main", 1, 1, 10, 0.01),
        P(1, "main\001solve", 1, 1, 3, 0.01),
        P(2, "main\001solve\001MPI_Allreduce", 2, 4, 4, 0),
        P(0, "main\001solve", 2, 4, 6, 0.02),
        M(0, "main\001solve\001MPI_Allreduce", 2, 2, 8000000, 8000000),
        P(1, "main", 1, 2, 10, 0.01),
        P(0, "main\001solve\001MPI_Allreduce", 2, 2, 2, 0),
        P(0, "main\001MPI_Send", 4, 3, 3, 0),
        M(0, "main\001MPI_Send", 4, 0, 4000000, 0),
        P(2, "main", 1, 6, 10, 0.01),
        P(1, "main\001solve\001MPI_Allreduce", 2, 2, 2, 0),
        P(1, "main\001MPI_Recv", 4, 5, 5, 0),
        M(1, "main\001MPI_Recv", 0, 4, 0, 4000000),
        P(1, "main\001solve", 1, 2, 2, 0.01),
        M(1, "main\001solve\001MPI_Allreduce", 2, 2, 8000000, 8000000),
        P(2, "main\001solve", 2, 2, 4, 0.02),
        M(2, "main\001solve\001MPI_Allreduce", 2, 2, 8000000, 8000000),
        P(2, "main\001MPI_Barrier", 1, 0.5, 0.5, 0),
    };

    *n = sizeof rows / sizeof rows[0];
    memcpy(in, rows, sizeof rows);
}

START_TEST(ranks_log)
{
    struct vftr_collate_in in[32];
    struct vftr_collated c;
    struct vftr_run_info run;
    struct vftr_logfile_opts o;
    const double times[3] = { 10, 10, 10 };
    size_t n;

    ranks_rows(in, &n);
    ck_assert_int_eq(vftr_collate(&c, in, n, 3, times), 0);
    /* the tree: parents by number */
    ck_assert_uint_eq(c.prof.n, 6);
    ck_assert_uint_eq(c.prof.nranks, 3);
    ck_assert_uint_eq(c.prof.rows[0].parent_id, 0);
    ck_assert_str_eq(c.prof.rows[0].caller, "");
    ck_assert_uint_eq(c.prof.rows[5].parent_id, 5);
    ck_assert_uint_eq(c.prof.rows[4].parent_id, 1);
    ck_assert_uint_eq(c.prof.nmpi, 4);
    c.prof.has_mpi = true;

    run_info(&run);
    run.exe = "/opt/app/cg";
    /* what the job's trace cost (the ranks' bytes at MPI_Finalize) and its caps */
    run.job_trace_bytes = 30000;
    run.job_trace_max = 12000;
    run.job_trace_max_rank = 2;
    run.trace_job_cap = 68719476736u;
    vftr_logfile_opts_default(&o);
    o.mpi_sort_column = VFTR_SORT_MESSAGES;
    o.mpi_show_callpath = true;
    expect_golden(&c.prof, &run, &o, DATA "logfile_ranks.log");

    /* both switches off: no imbalance columns, no min/max summary */
    char *got = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&got, &len);
    o.show_imbalances = false;
    o.show_minmax = false;
    ck_assert_int_eq(vftr_logfile_print(out, &c.prof, &run, &o), 0);
    fclose(out);
    ck_assert_ptr_null(strstr(got, "Imbal"));
    ck_assert_ptr_null(strstr(got, "Min/max"));
    ck_assert_ptr_nonnull(strstr(got, "\n    3      3   9.000000  30.000000  30.00     1  main "));
    free(got);
    vftr_collated_release(&c);
    vftr_collated_release(&c);          /* idempotent */
    vftr_collated_release(NULL);
}
END_TEST

/* Rows the collation cannot place are left out; a path known only from
 * MPI statistics still gets a row; the sort follows the configuration. */
START_TEST(collate_edges)
{
    struct vftr_collate_in in[] = {
        P(0, "a", 1, 1, 1, 0),
        P(3, "a", 1, 100, 100, 0),            /* no such rank */
        P(-1, "a", 1, 100, 100, 0),
        P(0, "", 1, 100, 100, 0),             /* no path */
        P(0, NULL, 1, 100, 100, 0),
        { .kind = 'X', .rank = 0, .path = "a", .calls = 9 },   /* unknown kind */
        M(1, "b\001MPI_Send", 1, 0, 8, 0),      /* no profile row, no parent "b" */
        P(1, "a", 2, 3, 3, 0),
    };
    struct vftr_collated c;

    ck_assert_int_eq(vftr_collate(&c, in, 0, 0, NULL), -EINVAL);
    ck_assert_int_eq(vftr_collate(&c, NULL, 1, 2, NULL), -EINVAL);
    ck_assert_int_eq(vftr_collate(&c, in, sizeof in / sizeof in[0], 2, NULL), 0);
    ck_assert_uint_eq(c.prof.n, 2);
    /* "a": calls 1 + 2, excl 1 and 3: max 3 on rank 1, avg 2, imbalance 1/3 */
    ck_assert_str_eq(c.prof.rows[0].function, "a");
    ck_assert_uint_eq(c.prof.rows[0].calls, 3);
    ck_assert_uint_eq(c.prof.rows[0].ranks, 2);
    ck_assert_int_eq(c.prof.rows[0].rank_max, 1);
    ck_assert(fabs(c.prof.rows[0].imbalance - 1.0 / 3) < 1e-12);
    /* the MPI path: a row without calls, its caller named, no parent row */
    ck_assert_str_eq(c.prof.rows[1].function, "MPI_Send");
    ck_assert_str_eq(c.prof.rows[1].caller, "b");
    ck_assert_uint_eq(c.prof.rows[1].parent_id, 0);
    ck_assert_uint_eq(c.prof.rows[1].calls, 0);
    ck_assert_uint_eq(c.prof.rows[1].ranks, 0);
    ck_assert_uint_eq(c.prof.nmpi, 1);
    ck_assert_uint_eq(c.prof.mpi[0].callpath_id, 2);
    ck_assert(c.prof.run_time == 0.0);
    vftr_collated_release(&c);

    /* nothing at all: an empty profile over one rank */
    ck_assert_int_eq(vftr_collate(&c, NULL, 0, 1, NULL), 0);
    ck_assert_uint_eq(c.prof.n, 0);
    ck_assert_uint_eq(c.prof.nranks, 1);
    vftr_collated_release(&c);
}
END_TEST

/* Counter rows: a rank's threads summed, then over the ranks, min and max
 * (lowest rank on ties) per counter; names from the first names row; the
 * table numbered as the profile.  Worked by hand:
 *   "main\001solve": rank 0's threads (10, 1) + (20, 2) = (30, 3), rank 2
 *   (5, 3): sums (35, 6); task-clock min 5 [2], max 30 [0]; page-faults 3
 *   on both ranks, a tie: min 3 [0], max 3 [0]; calls 1 + 2 + 4 = 7 over
 *   2 ranks.  "main": rank 1 alone. */
#define C(rk, pth, calls_, a, b) \
    { .kind = VFTR_COLLATE_COUNTERS, .rank = (rk), .path = (pth), .calls = (calls_), \
      .ctr = { (a), (b) }, .nctr = 2 }
START_TEST(collate_counters)
{
    struct vftr_collate_in in[] = {
        P(0, "main", 1, 1, 10, 0),
        P(0, "main\001solve", 3, 5, 5, 0),
        P(2, "main\001solve", 4, 5, 5, 0),
        C(0, "main\001solve", 1, 10, 1),
        { .kind = VFTR_COLLATE_CTR_NAMES, .rank = 2, .path = "task-clock,page-faults" },
        C(2, "main\001solve", 4, 5, 3),
        C(0, "main\001solve", 2, 20, 2),
        { .kind = VFTR_COLLATE_CTR_NAMES, .rank = 0, .path = "task-clock,page-faults" },
        C(1, "main", 1, 100, 7),
    };
    struct vftr_collated c;
    char *got = NULL;
    size_t len = 0;
    FILE *out;

    ck_assert_int_eq(vftr_collate(&c, in, sizeof in / sizeof in[0], 3, NULL), 0);
    ck_assert_uint_eq(c.nctr, 2);
    ck_assert_str_eq(c.ctr_names[0], "task-clock");
    ck_assert_str_eq(c.ctr_names[1], "page-faults");
    ck_assert_uint_eq(c.nctr_rows, 2);
    /* main: rank 1 only */
    ck_assert_uint_eq(c.ctr[0].callpath_id, 1);
    ck_assert_uint_eq(c.ctr[0].ranks, 1);
    ck_assert_uint_eq(c.ctr[0].sum[0], 100);
    ck_assert_int_eq(c.ctr[0].rank_min[1], 1);
    /* main>solve */
    ck_assert_uint_eq(c.ctr[1].callpath_id, 2);
    ck_assert_uint_eq(c.ctr[1].calls, 7);
    ck_assert_uint_eq(c.ctr[1].ranks, 2);
    ck_assert_uint_eq(c.ctr[1].sum[0], 35);
    ck_assert_uint_eq(c.ctr[1].sum[1], 6);
    ck_assert_uint_eq(c.ctr[1].min[0], 5);
    ck_assert_int_eq(c.ctr[1].rank_min[0], 2);
    ck_assert_uint_eq(c.ctr[1].max[0], 30);
    ck_assert_int_eq(c.ctr[1].rank_max[0], 0);
    ck_assert_uint_eq(c.ctr[1].min[1], 3);
    ck_assert_int_eq(c.ctr[1].rank_min[1], 0);
    ck_assert_uint_eq(c.ctr[1].max[1], 3);
    ck_assert_int_eq(c.ctr[1].rank_max[1], 0);
    /* the profile is what it was without counters */
    ck_assert_uint_eq(c.prof.n, 2);
    ck_assert_uint_eq(c.prof.rows[1].calls, 7);
    out = open_memstream(&got, &len);
    ck_assert_int_eq(vftr_collate_print_counters(out, &c), 0);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(got, "Counters over 3 ranks"));
    ck_assert_ptr_nonnull(strstr(got, "\n       2          7      2                 35                    5 [2] "
                                      "                  30 [0]                  6                    3 [0] "
                                      "                   3 [0]  solve\n"));
    free(got);
    vftr_collated_release(&c);

    /* counter rows without a names row: left out (in was reordered) */
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        if (in[i].kind == VFTR_COLLATE_CTR_NAMES)
            in[i].kind = 'X';
    ck_assert_int_eq(vftr_collate(&c, in, sizeof in / sizeof in[0], 3, NULL), 0);
    ck_assert_uint_eq(c.nctr, 0);
    ck_assert_uint_eq(c.nctr_rows, 0);
    ck_assert_uint_eq(c.prof.n, 2);
    vftr_collated_release(&c);
}
END_TEST

/* ------------------------------------------------------------------ MPI */

/*
 * A rank's profile with MPI functions (run time 10 s), rows given in the
 * order 3, 1, 5, 2, 4:
 *   1 main              calls 1   excl 1    incl 10
 *   2 MPI_Send<main     calls 10  excl 2
 *   3 MPI_Recv<main     calls 10  excl 3
 *   4 MPI_Bcast<main    calls 5   excl 1    (not the root: receives)
 *   5 MPI_Barrier<main  calls 1   excl 0.5  (moves nothing)
 * MPI rows, given in the order 5, 3, 2, 4 (calls and seconds: the profile
 * rows' calls and inclusive times):
 *   MPI_Barrier: nothing (left out of the table)
 *   MPI_Send: 10 sends, 10240 bytes, 2 s: 1024.0 per message, 0.005 MB/s
 *   MPI_Recv: 10 receives, 20480 bytes, 3 s: 2048.0, 0.007 (6.83e-3) MB/s
 *   MPI_Bcast: 5 receives, 5000 bytes, 1 s: 1000.0, 0.005 MB/s
 * recv_size ascending: Send (0: no receives), Bcast (1000), Recv (2048);
 * none: the call-path ids, 2, 3, 4.
 */
static struct vftr_profile_row mrows[] = {
    ROW(3, 1, 0, "MPI_Recv", "main", 10, 3.0, 3.0, 0),
    ROW(1, 0, 0, "main", NULL, 1, 1.0, 10.0, 0),
    ROW(5, 1, 0, "MPI_Barrier", "main", 1, 0.5, 0.5, 0),
    ROW(2, 1, 0, "MPI_Send", "main", 10, 2.0, 2.0, 0),
    ROW(4, 1, 0, "MPI_Bcast", "main", 5, 1.0, 1.0, 0),
};

static const struct vftr_mpi_row mpi4[] = {
    { .callpath_id = 5 },
    { .callpath_id = 3, .recvs = 10, .recv_bytes = 20480 },
    { .callpath_id = 2, .sends = 10, .sent_bytes = 10240 },
    { .callpath_id = 4, .recvs = 5, .recv_bytes = 5000 },
};

static const struct vftr_profile mprof = {
    .rows = mrows, .n = 5, .run_time = 10.0, .nthreads = 1,
    .mpi = mpi4, .nmpi = 4, .has_mpi = true,
};

START_TEST(mpi_log)
{
    struct vftr_logfile_opts o;
    struct vftr_profile none = mprof;
    char *got = NULL;
    size_t len = 0;
    FILE *out;

    vftr_logfile_opts_default(&o);
    o.show_stacklist = false;
    o.mpi_sort_column = VFTR_SORT_RECV_SIZE;
    o.mpi_sort_ascending = true;
    o.mpi_show_callpath = true;
    expect_golden(&mprof, NULL, &o, DATA "logfile_mpi.log");

    /* mpi.show_table = false: no MPI table; a run without MPI: none either */
    o.show_mpi = false;
    out = open_memstream(&got, &len);
    ck_assert_int_eq(vftr_logfile_print(out, &mprof, NULL, &o), 0);
    fclose(out);
    ck_assert_ptr_null(strstr(got, "MPI:"));
    free(got);
    o.show_mpi = true;
    none.has_mpi = false;
    out = open_memstream(&got, &len);
    ck_assert_int_eq(vftr_logfile_print(out, &none, NULL, &o), 0);
    fclose(out);
    ck_assert_ptr_null(strstr(got, "MPI:"));
    free(got);
    /* MPI used but nothing moved: an empty table says so */
    none.has_mpi = true;
    none.nmpi = 1;      /* the barrier only */
    out = open_memstream(&got, &len);
    ck_assert_int_eq(vftr_logfile_print(out, &none, NULL, &o), 0);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(got, "\nMPI: 0 call paths of MPI functions that moved data"));
    free(got);
}
END_TEST

/* MPI row order of a sort as call-path ids. */
static void mpi_sorted(enum vftr_sort_column col, bool asc, uint32_t *ids)
{
    /* ids 3 (Recv), 2 (Send), 4 (Bcast) of mprof, and a call path 6 of
     * MPI_Sendrecv that sends and receives 2 messages of 200 bytes each way
     * in 0.5 s */
    struct vftr_profile_row rows[6];
    const struct vftr_mpi_row mrows6[] = {
        mpi4[1], mpi4[2], mpi4[3],
        { .callpath_id = 6, .sends = 2, .recvs = 2, .sent_bytes = 400, .recv_bytes = 400 },
    };
    struct vftr_profile p = mprof;
    size_t order[4] = { 0, 1, 2, 3 };

    memcpy(rows, mrows, sizeof mrows);
    rows[5] = (struct vftr_profile_row)ROW(6, 1, 0, "MPI_Sendrecv", "main", 2, 0.5, 0.5, 0);
    p.rows = rows;
    p.n = 6;
    p.mpi = mrows6;
    p.nmpi = 4;
    ck_assert_int_eq(vftr_logfile_sort_mpi(&p, order, 4, col, asc), 0);
    for (int i = 0; i < 4; i++)
        ids[i] = mrows6[order[i]].callpath_id;
}

#define EXPECT_MPI(col, asc, a, b, c, d)                                            \
    do {                                                                            \
        uint32_t ids_[4];                                                           \
        mpi_sorted(col, asc, ids_);                                                 \
        ck_assert_msg(ids_[0] == (a) && ids_[1] == (b) && ids_[2] == (c) && ids_[3] == (d), \
                      #col " %s: got %u %u %u %u", (asc) ? "asc" : "desc", ids_[0], ids_[1], \
                      ids_[2], ids_[3]);                                            \
    } while (0)

START_TEST(mpi_sort_orders)
{
    /* rows 3, 2, 4, 6: messages 10, 10, 5, 4 */
    EXPECT_MPI(VFTR_SORT_MESSAGES, false, 3, 2, 4, 6);
    EXPECT_MPI(VFTR_SORT_MESSAGES, true, 6, 4, 3, 2);
    /* bytes per sent message 0, 1024, 0, 200 */
    EXPECT_MPI(VFTR_SORT_SEND_SIZE, false, 2, 6, 3, 4);
    /* bytes per received message 2048, 0, 1000, 200 */
    EXPECT_MPI(VFTR_SORT_RECV_SIZE, false, 3, 4, 6, 2);
    /* sent bytes per second 0, 5120, 0, 800 */
    EXPECT_MPI(VFTR_SORT_SEND_BW, false, 2, 6, 3, 4);
    /* received bytes per second 6826.7, 0, 5000, 800 */
    EXPECT_MPI(VFTR_SORT_RECV_BW, true, 2, 6, 4, 3);
    /* seconds 3, 2, 1, 0.5 */
    EXPECT_MPI(VFTR_SORT_COMM_TIME, true, 6, 4, 2, 3);
    EXPECT_MPI(VFTR_SORT_STACK_ID, false, 6, 4, 3, 2);
    /* none: call-path ids, ascending either way */
    EXPECT_MPI(VFTR_SORT_NONE, false, 2, 3, 4, 6);
    EXPECT_MPI(VFTR_SORT_NONE, true, 2, 3, 4, 6);
}
END_TEST

/* profile_table.separate: the name-grouped and the MPI table in files of
 * their own, the log names them; without it, one file. */
START_TEST(separate_files)
{
    struct vftr_config cfg;
    struct vftr_run_info run;
    char path[128], grouped[160], mpi[160], minmax[160];

    make_tmpdir();
    run_info(&run);
    ck_assert_int_eq(vftr_config_init(&cfg), 0);
    cfg.profile_table_separate = true;
    cfg.name_grouped_profile_table_show_table = true;
    cfg.stacklist_show_stacklist = false;
    cfg.print_config = false;
    snprintf(path, sizeof path, "%s/mpi_0.log", tmpdir);
    snprintf(grouped, sizeof grouped, "%s/mpi_0_namegroup.log", tmpdir);
    snprintf(mpi, sizeof mpi, "%s/mpi_0_mpi.log", tmpdir);
    snprintf(minmax, sizeof minmax, "%s/mpi_0_minmax.log", tmpdir);
    ck_assert_int_eq(vftr_logfile_write(path, &mprof, &cfg, &run), 0);
    same_as_golden(slurp(path), DATA "logfile_separate.log");
    same_as_golden(slurp(grouped), DATA "logfile_separate_namegroup.log");
    same_as_golden(slurp(mpi), DATA "logfile_separate_mpi.log");
    ck_assert_int_ne(access(minmax, F_OK), 0);      /* a rank's own log has no min/max */
    unlink(grouped);
    unlink(mpi);

    /* not separate: everything in the log, no other file */
    cfg.profile_table_separate = false;
    ck_assert_int_eq(vftr_logfile_write(path, &mprof, &cfg, &run), 0);
    char *got = slurp(path);
    ck_assert_ptr_nonnull(strstr(got, "\nProfile grouped by function name: 5 functions"));
    ck_assert_ptr_nonnull(strstr(got, "\nMPI: 3 call paths"));
    free(got);
    ck_assert_int_ne(access(grouped, F_OK), 0);
    ck_assert_int_ne(access(mpi, F_OK), 0);

    /* a file that cannot be made (a directory of its name is in the way)
     * fails the call, and every file the call made is removed */
    cfg.profile_table_separate = true;
    unlink(path);
    ck_assert_int_eq(mkdir(mpi, 0700), 0);
    ck_assert_int_eq(vftr_logfile_write(path, &mprof, &cfg, &run), -EISDIR);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_ne(access(grouped, F_OK), 0);
    ck_assert_int_eq(rmdir(mpi), 0);
    ck_assert_int_eq(rmdir(tmpdir), 0);     /* nothing else left behind */
    vftr_config_release(&cfg);
}
END_TEST

/* Every key of the tables reaches the options. */
START_TEST(options_from_every_table_key)
{
    struct vftr_config cfg;
    struct vftr_logfile_opts o;

    ck_assert_int_eq(vftr_config_init(&cfg), 0);
    vftr_logfile_opts_from_config(&o, &cfg);
    /* the defaults of the keys are those of the options */
    struct vftr_logfile_opts d;
    vftr_logfile_opts_default(&d);
    d.config = &cfg;                   /* print_config is on by default */
    ck_assert_mem_eq(&o, &d, sizeof o);

    cfg.profile_table_show_table = false;
    cfg.profile_table_show_calltime_imbalances = false;
    cfg.profile_table_show_callpath = true;
    cfg.profile_table_show_overhead = true;
    cfg.profile_table_show_minmax_summary = false;
    cfg.profile_table_separate = true;
    cfg.profile_table_sort_table_column = VFTR_SORT_CALLS;
    cfg.profile_table_sort_table_ascending = true;
    cfg.mpi_show_table = false;
    cfg.mpi_show_callpath = true;
    cfg.mpi_sort_table_column = VFTR_SORT_RECV_BW;
    cfg.mpi_sort_table_ascending = true;
    cfg.print_config = false;
    vftr_logfile_opts_from_config(&o, &cfg);
    ck_assert(!o.show_table && !o.show_imbalances && o.show_callpath && o.show_overhead);
    ck_assert(!o.show_minmax && o.separate && o.sort_column == VFTR_SORT_CALLS && o.sort_ascending);
    ck_assert(!o.show_mpi && o.mpi_show_callpath && o.mpi_sort_column == VFTR_SORT_RECV_BW);
    ck_assert(o.mpi_sort_ascending && o.config == NULL);
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
    tcase_add_test(tc, ranks_log);
    tcase_add_test(tc, collate_edges);
    tcase_add_test(tc, mpi_log);
    tcase_add_test(tc, mpi_sort_orders);
    tcase_add_test(tc, separate_files);
    tcase_add_test(tc, options_from_every_table_key);
    tcase_add_test(tc, collate_counters);
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
