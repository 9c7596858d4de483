/*
 * test_capture_config.c — Check suite for capture/config (defaults, JSON
 * file, environment overrides, advisor, validation, printing).
 *
 * Expected values are written by hand from the documented behaviour
 * (config.h, share/doc/configuration.md, ../shared/vftrace-config.md): the
 * defaults field by field below, the files in test/data/config/ (all written
 * by hand; all_keys.printed.json is all_keys.json with the rank list in
 * canonical order), and every message text with its line and column counted
 * by hand in the file it refers to.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config.h"

#define DATA "test/data/config/"
#define MAX_MSGS 64

/* Number of keys: 9 top level, 8 profile_table, 4 name_grouped_profile_table,
 * 1 stacklist, 7 mpi, 7 trace (4 of them Vftrace's sampling), 6 filter,
 * 1 instrument, 4 throttle, 2 counters, 3 sample, 5 control, 2 io. */
#define NKEYS 59

static char *const no_env[] = { NULL };

/* Environments are written as arrays of string literals. */
#define ENVP(a) ((char *const *)(a))

struct msgs {
    int n;
    int severity[MAX_MSGS];
    char *text[MAX_MSGS];
};

static void collect(void *arg, int severity, const char *message)
{
    struct msgs *m = arg;

    ck_assert_int_lt(m->n, MAX_MSGS);
    m->severity[m->n] = severity;
    m->text[m->n] = strdup(message);
    m->n++;
}

static void msgs_free(struct msgs *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->text[i]);
    m->n = 0;
}

/* The messages must be exactly want[0..n-1] with these severities. */
static void expect_msgs(const struct msgs *m, const int *sev, const char *const *want, int n)
{
    for (int i = 0; i < m->n && i < n; i++) {
        ck_assert_str_eq(m->text[i], want[i]);
        ck_assert_int_eq(m->severity[i], sev[i]);
    }
    if (m->n != n) {
        for (int i = 0; i < m->n; i++)
            fprintf(stderr, "message %d: %s\n", i, m->text[i]);
    }
    ck_assert_int_eq(m->n, n);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;

    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static char *printed(const struct vftr_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(vftr_config_print_json(cfg, f), 0);
    fclose(f);
    return buf;
}

static const char *ranks(const struct vftr_rangelist *r)
{
    static char buf[128];

    vftr_rangelist_format(r, buf, sizeof buf);
    return buf;
}

/* The warning of sampling.outbuffer_size = 16 on line 37 of all_keys.json. */
#define NO_EFFECT_16                                                                    \
    DATA "all_keys.json: line 37: sampling.outbuffer_size = 16 changes nothing in vftr: " \
    "each thread's trace buffer is 256 KiB, below any value of this key, which only "     \
    "bounds the tuning variable VFTR_BUFFER_KIB"

/* --------------------------------------------------------------- defaults */

static void assert_defaults(const struct vftr_config *c)
{
    ck_assert(!c->off);
    ck_assert_str_eq(c->output_directory, ".");
    ck_assert_ptr_null(c->outfile_basename);
    ck_assert_str_eq(ranks(&c->logfile_for_ranks), "0");
    ck_assert(c->print_config);
    ck_assert(c->strip_module_names);
    ck_assert(c->demangle_cxx);                               /* Vftrace: false */
    ck_assert(!c->include_cxx_prelude);
    ck_assert_int_eq(c->clock, VFTR_CLOCK_TSC);

    ck_assert(c->profile_table_show_table);
    ck_assert(c->profile_table_show_calltime_imbalances);     /* Vftrace: false */
    ck_assert(!c->profile_table_show_callpath);
    ck_assert(!c->profile_table_show_overhead);
    ck_assert(c->profile_table_show_minmax_summary);          /* Vftrace: false */
    ck_assert(!c->profile_table_separate);
    ck_assert_int_eq(c->profile_table_sort_table_column, VFTR_SORT_TIME_EXCL);
    ck_assert(!c->profile_table_sort_table_ascending);

    ck_assert(!c->name_grouped_profile_table_show_table);
    ck_assert_int_eq(c->name_grouped_profile_table_max_stack_ids, 8);
    ck_assert_int_eq(c->name_grouped_profile_table_sort_table_column, VFTR_SORT_TIME_EXCL);
    ck_assert(!c->name_grouped_profile_table_sort_table_ascending);

    ck_assert(c->stacklist_show_stacklist);

    ck_assert(c->trace_active);
    ck_assert(c->trace_sample_interval == 0.0);
    ck_assert_uint_eq(c->trace_outbuffer_size, 8);
    ck_assert_ptr_null(c->trace_precise_functions);

    ck_assert(c->mpi_show_table);
    ck_assert(c->mpi_log_messages);
    ck_assert_str_eq(ranks(&c->mpi_only_for_ranks), "all");
    ck_assert(!c->mpi_show_sync_time);
    ck_assert(!c->mpi_show_callpath);
    ck_assert_int_eq(c->mpi_sort_table_column, VFTR_SORT_NONE);
    ck_assert(!c->mpi_sort_table_ascending);

    ck_assert_uint_eq(c->trace_max_size, 1073741824u);
    ck_assert_uint_eq(c->trace_max_job_size, 64ull << 30);
    ck_assert_uint_eq(c->trace_keep_free, 256u << 20);
    ck_assert_ptr_null(c->filter_include);
    ck_assert_ptr_null(c->filter_exclude);
    ck_assert(c->instrument_patchable);
    ck_assert(c->throttle_count);

    ck_assert(c->control_active);
    ck_assert_ptr_null(c->control_module);
    ck_assert_ptr_null(c->control_options);
    ck_assert_ptr_null(c->control_socket_dir);
    ck_assert(!c->control_detach_stops);
    ck_assert_ptr_null(c->counters_events);
    ck_assert_ptr_null(c->counters_functions);
    ck_assert(c->sample_interval == 0);
    ck_assert(c->sample_task_clock);
    ck_assert(c->sample_ring);
}

START_TEST(defaults_of_every_key)
{
    struct vftr_config c;
    size_t n;

    vftr_config_keys(&n);
    ck_assert_uint_eq(n, NKEYS);
    ck_assert_int_eq(vftr_config_init(&c), 0);
    assert_defaults(&c);
    vftr_config_release(&c);
    ck_assert_ptr_null(c.output_directory);
    vftr_config_release(&c);            /* idempotent */
    vftr_config_release(NULL);
}
END_TEST

START_TEST(no_file_no_environment_gives_defaults)
{
    struct vftr_config c;
    struct msgs m = { 0 };

    ck_assert_int_eq(vftr_config_load(&c, NULL, no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    assert_defaults(&c);
    vftr_config_release(&c);
}
END_TEST

START_TEST(defaults_print_as_the_golden_file)
{
    struct vftr_config c;
    char *want = slurp(DATA "defaults.json"), *got;

    ck_assert_int_eq(vftr_config_init(&c), 0);
    got = printed(&c);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    vftr_config_release(&c);
}
END_TEST

/* Every key has a distinct field, a known type and a default that parses. */
START_TEST(key_table_is_consistent)
{
    const struct vftr_config_key *k;
    size_t n;

    k = vftr_config_keys(&n);
    for (size_t i = 0; i < n; i++) {
        char env[128];
        ck_assert_ptr_nonnull(k[i].help);
        ck_assert_uint_lt(k[i].offset, sizeof(struct vftr_config));
        for (size_t j = 0; j < i; j++) {
            ck_assert_str_ne(k[i].path, k[j].path);
            ck_assert_uint_ne(k[i].offset, k[j].offset);
        }
        vftr_config_env_name(&k[i], env, sizeof env);
        ck_assert_msg(strncmp(env, "VFTR_", 5) == 0, "%s", env);
    }
    /* Two names checked by hand. */
    for (size_t i = 0; i < n; i++) {
        char env[128];
        vftr_config_env_name(&k[i], env, sizeof env);
        if (strcmp(k[i].path, "profile_table.sort_table.column") == 0)
            ck_assert_str_eq(env, "VFTR_PROFILE_TABLE_SORT_TABLE_COLUMN");
        if (strcmp(k[i].path, "off") == 0)
            ck_assert_str_eq(env, "VFTR_OFF");
    }
}
END_TEST

/* ------------------------------------------------------------ every key */

/* Counts the leaves (non-object values) of a JSON tree. */
static int leaves(const cJSON *item)
{
    int n = 0;

    if (!cJSON_IsObject(item))
        return 1;
    for (const cJSON *c = item->child; c; c = c->next)
        n += leaves(c);
    return n;
}

START_TEST(every_key_parsed_from_a_file)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    char *text = slurp(DATA "all_keys.json");
    cJSON *root = cJSON_Parse(text);

    /* The file really names every key (a new key must be added to it). */
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(leaves(root), NKEYS);
    cJSON_Delete(root);
    free(text);

    /* "off": true in the file: the user switched capture off, which is not
     * an error, and the path is not checked.  The one message: a buffer
     * size that changes nothing in vftr. */
    ck_assert_int_eq(vftr_config_load(&c, DATA "all_keys.json", no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 1);
    ck_assert_str_eq(m.text[0], NO_EFFECT_16);
    ck_assert_int_eq(m.severity[0], VFTR_CONFIG_WARNING);
    msgs_free(&m);
    ck_assert(c.off);
    ck_assert_str_eq(c.output_directory, "/tmp/vftr out");
    ck_assert_str_eq(c.outfile_basename, "myrun");
    ck_assert_str_eq(ranks(&c.logfile_for_ranks), "0-3,7");
    ck_assert(vftr_rangelist_contains(&c.logfile_for_ranks, 7));
    ck_assert(!vftr_rangelist_contains(&c.logfile_for_ranks, 4));
    ck_assert(!c.print_config);
    ck_assert(!c.strip_module_names);
    ck_assert(c.demangle_cxx);
    ck_assert(c.include_cxx_prelude);
    ck_assert_int_eq(c.clock, VFTR_CLOCK_MONOTONIC);

    ck_assert(!c.profile_table_show_table);
    ck_assert(!c.profile_table_show_calltime_imbalances);
    ck_assert(c.profile_table_show_callpath);
    ck_assert(c.profile_table_show_overhead);
    ck_assert(!c.profile_table_show_minmax_summary);
    ck_assert(c.profile_table_separate);
    ck_assert_int_eq(c.profile_table_sort_table_column, VFTR_SORT_CALLS);
    ck_assert(c.profile_table_sort_table_ascending);

    ck_assert(c.name_grouped_profile_table_show_table);
    ck_assert_int_eq(c.name_grouped_profile_table_max_stack_ids, 3);
    ck_assert_int_eq(c.name_grouped_profile_table_sort_table_column, VFTR_SORT_TIME_INCL);
    ck_assert(c.name_grouped_profile_table_sort_table_ascending);

    ck_assert(!c.stacklist_show_stacklist);

    ck_assert(!c.trace_active);
    ck_assert(c.trace_sample_interval == 0.25);
    ck_assert_uint_eq(c.trace_outbuffer_size, 16);
    ck_assert_str_eq(vftr_regex_pattern(c.trace_precise_functions), "^MPI_");
    ck_assert(vftr_regex_match(c.trace_precise_functions, "MPI_Send"));
    ck_assert(!vftr_regex_match(c.trace_precise_functions, "PMPI_Send"));

    ck_assert(!c.mpi_show_table);
    ck_assert(!c.mpi_log_messages);
    ck_assert_str_eq(ranks(&c.mpi_only_for_ranks), "1,3-5");
    ck_assert(c.mpi_show_sync_time);
    ck_assert(c.mpi_show_callpath);
    ck_assert_int_eq(c.mpi_sort_table_column, VFTR_SORT_SEND_BW);
    ck_assert(c.mpi_sort_table_ascending);

    ck_assert_uint_eq(c.trace_max_size, 512u << 20);
    ck_assert_uint_eq(c.trace_max_job_size, 3ull << 30);
    ck_assert_uint_eq(c.trace_keep_free, 64u << 20);
    ck_assert_str_eq(vftr_regex_pattern(c.filter_include), "^solve");
    ck_assert_str_eq(vftr_regex_pattern(c.filter_exclude), "_helper$");
    ck_assert_str_eq(c.filter_file, "test/data/config/scorep.filt");
    ck_assert_int_eq(c.filter_max_depth, 12);
    ck_assert(c.filter_min_duration == 0.0005);
    ck_assert(!c.filter_patch_excluded);
    ck_assert(!c.instrument_patchable);
    ck_assert(!c.throttle_active);
    ck_assert_uint_eq(c.throttle_calls, 5000);
    ck_assert(c.throttle_per_call == 2e-06);
    ck_assert(!c.throttle_count);

    ck_assert(!c.control_active);
    ck_assert_str_eq(c.control_module, "/opt/site/ecmod.so");
    ck_assert_str_eq(c.control_options, "log=/tmp/ec.log");
    ck_assert_str_eq(c.control_socket_dir, "/run/vftr-ctl");
    ck_assert(c.control_detach_stops);

    ck_assert(!c.io_active);
    ck_assert_str_eq(c.io_exclude_paths, "/scratch/skip:/proc");
    ck_assert_str_eq(c.counters_events, "task-clock,page-faults");
    ck_assert_str_eq(vftr_regex_pattern(c.counters_functions), "^solve");
    ck_assert(c.sample_interval == 0.002);
    ck_assert(!c.sample_task_clock);
    ck_assert(!c.sample_ring);
    vftr_config_release(&c);
}
END_TEST

START_TEST(printed_config_parses_back)
{
    struct vftr_config a, b;
    char *want = slurp(DATA "all_keys.printed.json"), *got, *again;
    char path[] = "/tmp/vftr_cfg_XXXXXX";
    int fd;

    struct msgs m = { 0 };

    /* (the files' messages, the outbuffer_size warning, are not the point) */
    ck_assert_int_eq(vftr_config_load(&a, DATA "all_keys.json", no_env, collect, &m), 0);
    got = printed(&a);
    ck_assert_str_eq(got, want);

    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, got, strlen(got)), (ssize_t)strlen(got));
    close(fd);
    ck_assert_int_eq(vftr_config_load(&b, path, no_env, collect, &m), 0);
    msgs_free(&m);
    again = printed(&b);
    ck_assert_str_eq(again, got);
    unlink(path);
    free(again);
    free(got);
    free(want);
    vftr_config_release(&a);
    vftr_config_release(&b);
}
END_TEST

START_TEST(vftrace_file_works_unchanged)
{
    struct vftr_config c;
    struct msgs m = { 0 };

    ck_assert_int_eq(vftr_config_load(&c, DATA "vftrace.json", no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    ck_assert(!c.off);
    ck_assert(!c.trace_active);              /* profile only, as Vftrace */
    ck_assert(c.trace_sample_interval == 0.005);
    ck_assert(vftr_rangelist_empty(&c.logfile_for_ranks));
    ck_assert(!vftr_rangelist_contains(&c.logfile_for_ranks, 0));
    ck_assert_str_eq(ranks(&c.mpi_only_for_ranks), "all");
    ck_assert_ptr_null(c.trace_precise_functions);
    ck_assert_uint_eq(c.trace_max_size, 1073741824u);   /* vftr's own keys: defaults */
    vftr_config_release(&c);
}
END_TEST

/* sampling.outbuffer_size has no effect in vftr (the buffers are smaller
 * than its least value): a value other than the default gets a warning
 * naming its source, the default none; the value is kept (it still bounds
 * VFTR_BUFFER_KIB, the tuning variable). */
START_TEST(key_without_effect_is_reported)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    const char *dflt[] = { "VFTR_SAMPLING_OUTBUFFER_SIZE=8", NULL };
    const char *four[] = { "VFTR_SAMPLING_OUTBUFFER_SIZE=4", NULL };

    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(dflt), collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    vftr_config_release(&c);
    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(four), collect, &m), 0);
    ck_assert_int_eq(m.n, 1);
    ck_assert_int_eq(m.severity[0], VFTR_CONFIG_WARNING);
    ck_assert_str_eq(m.text[0], "environment variable VFTR_SAMPLING_OUTBUFFER_SIZE: "
                     "sampling.outbuffer_size = 4 changes nothing in vftr: each thread's trace "
                     "buffer is 256 KiB, below any value of this key, which only bounds the "
                     "tuning variable VFTR_BUFFER_KIB");
    ck_assert_uint_eq(c.trace_outbuffer_size, 4);
    msgs_free(&m);
    vftr_config_release(&c);
    /* Vftrace's own file gives the default 8: nothing to say */
    ck_assert_int_eq(vftr_config_load(&c, DATA "vftrace.json", no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    vftr_config_release(&c);
}
END_TEST

/* Sections of Vftrace features vftr lacks get "not supported by vftr", not
 * the advisor's guess (which named "off" for "cuda" and "mpi" for "papi"),
 * their contents no message at all, and capture goes on with the rest of the
 * file: the misspelt key after them is still found at its place. */
START_TEST(vftrace_sections_vftr_lacks)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    static const int sev[] = { VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING,
                               VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING,
                               VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING };
    static const char *const want[] = {
        DATA "vftrace_sections.json: line 2, column 3: \"cuda\": CUDA profiling (CUPTI) is not "
        "supported by vftr; the section is ignored",
        DATA "vftrace_sections.json: line 6, column 3: \"openacc\": OpenACC profiling is not "
        "supported by vftr; the section is ignored",
        DATA "vftrace_sections.json: line 7, column 3: \"hwprof\": hardware counter profiling is "
        "not supported by vftr; the section is ignored",
        DATA "vftrace_sections.json: line 11, column 3: \"papi\": hardware counter profiling "
        "(PAPI) is not supported by vftr; the section is ignored",
        DATA "vftrace_sections.json: line 12, column 3: \"veda\": VEDA (NEC Vector Engine "
        "offloading) profiling is not supported by vftr; the section is ignored",
        DATA "vftrace_sections.json: line 13, column 3: \"hardware_scenarios\": hardware counter "
        "scenarios is not supported by vftr; the section is ignored",
        DATA "vftrace_sections.json: line 14, column 3: \"accprof\": OpenACC profiling is not "
        "supported by vftr; the section is ignored",
        DATA "vftrace_sections.json: line 15, column 34: sampling: \"actve\" is not a valid "
        "option, did you mean \"active\"?",
    };
    const struct vftr_config_unsupported *u;
    size_t n;

    ck_assert_int_eq(vftr_config_load(&c, DATA "vftrace_sections.json", no_env, collect, &m), 0);
    expect_msgs(&m, sev, want, 8);
    ck_assert(!c.off);
    ck_assert(!c.trace_active);              /* the rest of the file counts */
    msgs_free(&m);
    vftr_config_release(&c);

    /* no vftr key or section has the name of an unsupported one */
    u = vftr_config_unsupported(&n);
    ck_assert_uint_eq(n, 7);
    for (size_t i = 0; i < n; i++) {
        const struct vftr_config_key *k;
        size_t nk, len = strlen(u[i].section);

        k = vftr_config_keys(&nk);
        for (size_t j = 0; j < nk; j++)
            ck_assert(!(strncmp(k[j].path, u[i].section, len) == 0 &&
                        (k[j].path[len] == '.' || k[j].path[len] == '\0')));
    }
}
END_TEST

/* ----------------------------------------------------------- environment */

START_TEST(environment_overrides_the_file)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    const char *env[] = {
        "HOME=/root",
        "VFTR_CONFIG=" DATA "vftrace.json",          /* file named by the environment */
        "VFTR_SAMPLING_ACTIVE=yes",
        "VFTR_SAMPLING_SAMPLE_INTERVAL= 0.125 ",
        "VFTR_LOGFILE_FOR_RANKS=all",
        "VFTR_PROFILE_TABLE_SORT_TABLE_COLUMN=calls",
        "VFTR_TRACE_MAX_SIZE=1.5G",
        "VFTR_FILTER_EXCLUDE=^MPI_",
        "VFTR_OUTFILE_BASENAME=run 1",
        "VFTR_CLOCK=monotonic",
        "VFTR_NAME_GROUPED_PROFILE_TABLE_MAX_STACK_IDS=0",
        "VFTR_MPI_ONLY_FOR_RANKS=2",
        NULL,
    };

    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env), collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    ck_assert(c.trace_active);
    ck_assert(c.trace_sample_interval == 0.125);
    ck_assert_str_eq(ranks(&c.logfile_for_ranks), "all");
    ck_assert_int_eq(c.profile_table_sort_table_column, VFTR_SORT_CALLS);
    ck_assert_uint_eq(c.trace_max_size, 1610612736u);
    ck_assert(vftr_regex_match(c.filter_exclude, "MPI_Recv"));
    ck_assert_str_eq(c.outfile_basename, "run 1");
    ck_assert_int_eq(c.clock, VFTR_CLOCK_MONOTONIC);
    ck_assert_int_eq(c.name_grouped_profile_table_max_stack_ids, 0);
    ck_assert_str_eq(ranks(&c.mpi_only_for_ranks), "2");
    /* Untouched by the environment: the file's value. */
    ck_assert(c.print_config);
    ck_assert_uint_eq(c.trace_outbuffer_size, 8);
    vftr_config_release(&c);
}
END_TEST

START_TEST(explicit_path_beats_vftr_config)
{
    struct vftr_config c;
    const char *env[] = { "VFTR_CONFIG=" DATA "does_not_exist.json", NULL };

    ck_assert_int_eq(vftr_config_load(&c, DATA "vftrace.json", ENVP(env), NULL, NULL), 0);
    ck_assert(!c.trace_active);
    vftr_config_release(&c);
}
END_TEST

START_TEST(bad_environment_keeps_the_file_value)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    const char *env[] = {
        "VFTR_SAMPLING_SAMPLE_INTERVAL=-1",
        "VFTR_SAMPLING_ACTIVE=maybe",
        "VFTR_TRACE_MAX_SIZE=10 parsecs",
        "VFTR_SAMPLING_OUTBUFFER_SIZE=",      /* empty: not set */
        "VFTR_SAMPLNG_ACTIVE=1",              /* typo of a key's variable */
        "VFTR_RUN_SECRET_THING=1",            /* unrelated: not a typo */
        NULL,
    };
    static const int sev[] = { VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR,
                               VFTR_CONFIG_WARNING };
    static const char *const want[] = {
        "environment variable VFTR_SAMPLING_ACTIVE=maybe: expected true or false, got "
        "\"maybe\"; using false",
        "environment variable VFTR_SAMPLING_SAMPLE_INTERVAL=-1: expected a number from 0 to "
        "1e+09, got -1; using 0.005",
        "environment variable VFTR_TRACE_MAX_SIZE=10 parsecs: bad size '10 parsecs': expected "
        "a size in bytes such as 1048576, 64MiB or 1.5G (units B, K, KiB, M, MiB, G, GiB, T, "
        "TiB; KB, MB, GB, TB are powers of 1000); using \"1 GiB\"",
        "environment variable VFTR_SAMPLNG_ACTIVE is not a vftr option, did you mean "
        "VFTR_SAMPLING_ACTIVE?",
    };

    ck_assert_int_eq(vftr_config_load(&c, DATA "vftrace.json", ENVP(env), collect, &m), 0);
    expect_msgs(&m, sev, want, 4);
    ck_assert(!c.trace_active);
    ck_assert(c.trace_sample_interval == 0.005);
    ck_assert_uint_eq(c.trace_outbuffer_size, 8);
    ck_assert_uint_eq(c.trace_max_size, 1073741824u);
    msgs_free(&m);
    vftr_config_release(&c);
}
END_TEST

START_TEST(vftr_off_switches_capture_off)
{
    struct vftr_config c;
    const char *on[] = { "VFTR_OFF=1", NULL };
    const char *off_again[] = { "VFTR_CONFIG=" DATA "all_keys.json", "VFTR_OFF=false", NULL };
    struct msgs m = { 0 };

    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(on), NULL, NULL), 0);
    ck_assert(c.off);
    vftr_config_release(&c);
    /* The environment beats the file's "off": true. */
    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(off_again), collect, &m), 0);
    ck_assert_int_eq(m.n, 1);
    ck_assert_str_eq(m.text[0], NO_EFFECT_16);
    msgs_free(&m);
    /* ...after which the file's output directory is checked: missing, it
     * is one capture can make (its parent /tmp is writable) */
    ck_assert(!c.off);
    vftr_config_release(&c);
}
END_TEST

START_TEST(empty_variable_resets_a_nullable_key)
{
    struct vftr_config c;
    const char *env[] = { "VFTR_FILTER_INCLUDE=", "VFTR_SAMPLING_PRECISE_FUNCTIONS=", "VFTR_OFF=", NULL };
    struct msgs m = { 0 };

    ck_assert_int_eq(vftr_config_load(&c, DATA "all_keys.json", ENVP(env), collect, &m), 0);
    msgs_free(&m);
    ck_assert_ptr_null(c.filter_include);
    ck_assert_ptr_null(c.trace_precise_functions);
    ck_assert_ptr_nonnull(c.filter_exclude);
    ck_assert(c.off);                    /* VFTR_OFF= is "not set": the file's true */
    vftr_config_release(&c);
}
END_TEST

/* Values in the environment's syntax, one key at a time. */
START_TEST(value_syntax_in_the_environment)
{
    static const struct { const char *var; uint64_t bytes; } sizes[] = {
        { "VFTR_TRACE_MAX_SIZE=0", 0 },
        { "VFTR_TRACE_MAX_SIZE=4096", 4096 },
        { "VFTR_TRACE_MAX_SIZE=512 MiB", 536870912 },
        { "VFTR_TRACE_MAX_SIZE=512mib", 536870912 },
        { "VFTR_TRACE_MAX_SIZE=2K", 2048 },
        { "VFTR_TRACE_MAX_SIZE=2 KB", 2000 },
        { "VFTR_TRACE_MAX_SIZE=3 MB", 3000000 },
        { "VFTR_TRACE_MAX_SIZE=1.5G", 1610612736 },
        { "VFTR_TRACE_MAX_SIZE=1 TiB", 1099511627776 },
        { "VFTR_TRACE_MAX_SIZE=0.5 KiB", 512 },
        { "VFTR_TRACE_MAX_SIZE=7B", 7 },
        /* exact decimal arithmetic (lib/util/number.h), not binary floating
         * point, which made 0.3 of 1000 bytes 299 */
        { "VFTR_TRACE_MAX_SIZE=0.3 KB", 300 },
        { "VFTR_TRACE_MAX_SIZE=0.007 TB", 7000000000 },
    };
    static const char *const bad_sizes[] = {
        "VFTR_TRACE_MAX_SIZE=1.5", "VFTR_TRACE_MAX_SIZE=-1", "VFTR_TRACE_MAX_SIZE=1 XB",
        "VFTR_TRACE_MAX_SIZE=GiB", "VFTR_TRACE_MAX_SIZE=1e9", "VFTR_TRACE_MAX_SIZE=9000000 TiB",
        "VFTR_TRACE_MAX_SIZE=1 GiB x",
        /* not whole bytes (1126.4): refused, not cut to 1126 */
        "VFTR_TRACE_MAX_SIZE=1.1K", "VFTR_TRACE_MAX_SIZE=99999999999999999999",
    };
    static const struct { const char *var; bool value; } bools[] = {
        { "VFTR_DEMANGLE_CXX=1", true }, { "VFTR_DEMANGLE_CXX=TRUE", true },
        { "VFTR_DEMANGLE_CXX=on", true }, { "VFTR_DEMANGLE_CXX=Yes", true },
        { "VFTR_PRINT_CONFIG=0", false }, { "VFTR_PRINT_CONFIG=off", false },
        { "VFTR_PRINT_CONFIG=no", false }, { "VFTR_PRINT_CONFIG=False", false },
    };
    static const char *const bad_others[] = {
        "VFTR_DEMANGLE_CXX=2", "VFTR_SAMPLING_OUTBUFFER_SIZE=0",
        "VFTR_SAMPLING_OUTBUFFER_SIZE=65537", "VFTR_SAMPLING_OUTBUFFER_SIZE=1.5",
        "VFTR_SAMPLING_SAMPLE_INTERVAL=nan", "VFTR_SAMPLING_SAMPLE_INTERVAL=inf",
        "VFTR_SAMPLING_SAMPLE_INTERVAL=1s", "VFTR_NAME_GROUPED_PROFILE_TABLE_MAX_STACK_IDS=-1",
        "VFTR_MPI_ONLY_FOR_RANKS=-1", "VFTR_MPI_ONLY_FOR_RANKS=0-", "VFTR_CLOCK=TSC",
        "VFTR_OUTPUT_DIRECTORY=", "VFTR_FILTER_INCLUDE=[a-", "VFTR_OUTFILE_BASENAME=a/b",
        "VFTR_MPI_SORT_TABLE_COLUMN=time_excl",
    };

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct vftr_config c;
        struct msgs m = { 0 };
        const char *env[] = { (char *)sizes[i].var, NULL };
        ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env), collect, &m), 0);
        ck_assert_msg(m.n == 0, "%s: %s", sizes[i].var, m.n ? m.text[0] : "");
        ck_assert_msg(c.trace_max_size == sizes[i].bytes, "%s: %llu", sizes[i].var,
                      (unsigned long long)c.trace_max_size);
        vftr_config_release(&c);
    }
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        struct vftr_config c;
        struct msgs m = { 0 };
        const char *env[] = { (char *)bad_sizes[i], NULL };
        ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env), collect, &m), 0);
        ck_assert_msg(m.n == 1 && m.severity[0] == VFTR_CONFIG_ERROR, "%s", bad_sizes[i]);
        ck_assert_uint_eq(c.trace_max_size, 1073741824u);
        msgs_free(&m);
        vftr_config_release(&c);
    }
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
        struct vftr_config c;
        const char *env[] = { (char *)bools[i].var, NULL };
        ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env), NULL, NULL), 0);
        if (strncmp(bools[i].var, "VFTR_DEMANGLE", 13) == 0)
            ck_assert_msg(c.demangle_cxx == bools[i].value, "%s", bools[i].var);
        else
            ck_assert_msg(c.print_config == bools[i].value, "%s", bools[i].var);
        vftr_config_release(&c);
    }
    for (size_t i = 0; i < sizeof bad_others / sizeof bad_others[0]; i++) {
        struct vftr_config c;
        struct msgs m = { 0 };
        const char *env[] = { (char *)bad_others[i], NULL };
        int rc = vftr_config_load(&c, NULL, ENVP(env), collect, &m);
        /* An empty VFTR_OUTPUT_DIRECTORY is "not set": no message. */
        int want = strcmp(bad_others[i], "VFTR_OUTPUT_DIRECTORY=") == 0 ? 0 : 1;
        ck_assert_int_eq(rc, 0);
        ck_assert_msg(m.n == want, "%s: %d messages", bad_others[i], m.n);
        msgs_free(&m);
        /* Every value fell back to its default. */
        assert_defaults(&c);
        vftr_config_release(&c);
    }
}
END_TEST

/* ---------------------------------------------------------------- advisor */

START_TEST(advisor_suggests_the_closest_key_at_each_level)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    static const int sev[] = { VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING,
                               VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING,
                               VFTR_CONFIG_WARNING, VFTR_CONFIG_WARNING };
    static const char *const want[] = {
        DATA "misspelt.json: line 2, column 3: \"of\" is not a valid option, did you mean "
        "\"off\"?",
        DATA "misspelt.json: line 3, column 3: \"output_directroy\" is not a valid option, "
        "did you mean \"output_directory\"?",
        DATA "misspelt.json: line 4, column 3: \"profile_tabel\" is not a valid option, did "
        "you mean \"profile_table\"?",
        DATA "misspelt.json: line 8, column 5: profile_table: \"show_tabel\" is not a valid "
        "option, did you mean \"show_table\"?",
        DATA "misspelt.json: line 10, column 7: profile_table.sort_table: \"colum\" is not a "
        "valid option, did you mean \"column\"?",
        DATA "misspelt.json: line 14, column 5: sampling: \"sample_intervall\" is not a valid "
        "option, did you mean \"sample_interval\"?",
        DATA "misspelt.json: line 15, column 5: sampling: \"show_table\" is not a valid option "
        "here, did you mean \"profile_table.show_table\"?",
        DATA "misspelt.json: line 17, column 3: \"max_size\" is not a valid option here, did "
        "you mean \"trace.max_size\"?",
    };

    ck_assert_int_eq(vftr_config_load(&c, DATA "misspelt.json", no_env, collect, &m), 0);
    expect_msgs(&m, sev, want, 8);
    /* Misspelt keys are ignored; the correct one beside them counts. */
    assert_defaults(&c);
    msgs_free(&m);
    vftr_config_release(&c);
}
END_TEST

START_TEST(duplicate_keys_warn_and_the_last_counts)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    static const int sev[] = { VFTR_CONFIG_WARNING };
    static const char *const want[] = {
        DATA "duplicate.json: line 7, column 5: \"sampling.sample_interval\" is given again "
        "(first on line 3); the last value counts",
    };

    ck_assert_int_eq(vftr_config_load(&c, DATA "duplicate.json", no_env, collect, &m), 0);
    expect_msgs(&m, sev, want, 1);
    ck_assert(c.trace_sample_interval == 2.0);
    msgs_free(&m);
    vftr_config_release(&c);
}
END_TEST

/* ------------------------------------------------------------- validation */

START_TEST(each_bad_value_is_reported_and_falls_back)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    static const int sev[14] = {
        VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR,
        VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR,
        VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR,
        VFTR_CONFIG_ERROR, VFTR_CONFIG_ERROR,
    };
#define F DATA "bad_values.json: "
    static const char *const want[] = {
        F "line 2, column 3: logfile_for_ranks: bad rank list '0-3,x': 'x' is not a rank "
        "(expected \"all\", \"none\" or items N or N-M, decimal, separated by commas); using \"0\"",
        F "line 3, column 3: outfile_basename: expected a file name without '/' (the "
        "directory is output_directory), got \"a/b\"; using null",
        F "line 4, column 3: clock: expected \"tsc\" or \"monotonic\", got \"rdtsc\"; using "
        "\"tsc\"",
        F "line 5, column 3: print_config: expected true or false, got the string \"yes\"; "
        "using true",
        F "line 7, column 21: profile_table.sort_table.column: \"calls_total\" is not a "
        "column of this table (expected one of: time_excl, time_incl, calls, stack_id, "
        "overhead, none); using \"time_excl\"",
        F "line 8, column 5: profile_table.show_table: expected true or false, got the number "
        "1; using true",
        F "line 10, column 35: name_grouped_profile_table.max_stack_ids: expected a whole "
        "number from 0 to 2147483647, got 2.5; using 8",
        F "line 10, column 73: name_grouped_profile_table.sort_table.column: \"overhead\" is "
        "not a column of this table (expected one of: time_excl, time_incl, calls, none); "
        "using \"time_excl\"",
        F "line 12, column 5: sampling.sample_interval: expected a number from 0 to 1e+09, "
        "got -0.5; using 0",
        F "line 13, column 5: sampling.outbuffer_size: expected a whole number from 1 to "
        "65536, got 0; using 8",
        F "line 14, column 5: sampling.precise_functions: regular expression \"(unclosed\" "
        "does not compile: offset 9: missing closing parenthesis; using null",
        F "line 16, column 12: mpi.only_for_ranks: bad rank list '': empty (expected \"all\", "
        "\"none\" or a list such as \"0-3,7\"); using \"all\"",
        F "line 16, column 50: mpi.sort_table.column: \"time_excl\" is not a column of this "
        "table (expected one of: messages, send_size, recv_size, send_bw, recv_bw, comm_time, "
        "stack_id, none); using \"none\"",
        F "line 17, column 14: trace.max_size: bad size '12 parsecs': expected a size in bytes "
        "such as 1048576, 64MiB or 1.5G (units B, K, KiB, M, MiB, G, GiB, T, TiB; KB, MB, GB, "
        "TB are powers of 1000); using \"1 GiB\"",
    };
    static const char *const want2[] = {
        F "line 18, column 32: filter.exclude: expected a regular expression (string) or null, "
        "got the number 42; using null",
        F "line 19, column 3: stacklist: expected a section (an object), got the number 5; "
        "ignored",
    };
#undef F

    ck_assert_int_eq(vftr_config_load(&c, DATA "bad_values.json", no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 16);
    for (int i = 0; i < 14; i++) {
        ck_assert_str_eq(m.text[i], want[i]);
        ck_assert_int_eq(m.severity[i], sev[i]);
    }
    ck_assert_str_eq(m.text[14], want2[0]);
    ck_assert_str_eq(m.text[15], want2[1]);
    ck_assert(!c.off);
    assert_defaults(&c);
    msgs_free(&m);
    vftr_config_release(&c);
}
END_TEST

START_TEST(malformed_file_switches_capture_off)
{
    static const struct { const char *file, *msg; } cases[] = {
        { DATA "malformed.json",
          DATA "malformed.json: line 4, column 3: not valid JSON near '}'; capture switched off" },
        { DATA "truncated.json",
          DATA "truncated.json: line 4, column 1: not valid JSON: unexpected end of file (an "
               "unclosed '{', '[' or string?); capture switched off" },
        { DATA "not_object.json",
          DATA "not_object.json: expected a JSON object ({ ... }) at the top, got an array; "
               "capture switched off" },
        { DATA "missing.json",
          DATA "missing.json: cannot read the configuration file (No such file or directory); "
               "capture switched off" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct vftr_config c;
        struct msgs m = { 0 };
        ck_assert_int_eq(vftr_config_load(&c, cases[i].file, no_env, collect, &m), -EINVAL);
        ck_assert(c.off);
        ck_assert_int_eq(m.n, 1);
        ck_assert_int_eq(m.severity[0], VFTR_CONFIG_ERROR);
        ck_assert_str_eq(m.text[0], cases[i].msg);
        msgs_free(&m);
        /* Still a complete configuration that can be printed and released. */
        ck_assert_str_eq(c.output_directory, ".");
        vftr_config_release(&c);
    }
}
END_TEST

START_TEST(unusable_output_directory_switches_capture_off)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    const char *missing[] = { "VFTR_OUTPUT_DIRECTORY=" DATA "vftrace.json/run/a", NULL };
    const char *makeable[] = { "VFTR_OUTPUT_DIRECTORY=/tmp/vftr_no_such_dir/a/b", NULL };
    const char *file[] = { "VFTR_OUTPUT_DIRECTORY=" DATA "vftrace.json", NULL };

    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(missing), collect, &m), -EINVAL);
    ck_assert(c.off);
    ck_assert_int_eq(m.n, 1);
    ck_assert_str_eq(m.text[0], "output_directory \"" DATA "vftrace.json/run/a\": does not "
                     "exist and cannot be made (\"" DATA "vftrace.json\" is not a directory vftr "
                     "may write in); capture switched off");
    msgs_free(&m);
    vftr_config_release(&c);

    /* missing, but capture can make it: valid (the check makes nothing) */
    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(makeable), collect, &m), 0);
    ck_assert(!c.off);
    ck_assert_int_eq(m.n, 0);
    ck_assert_int_ne(access("/tmp/vftr_no_such_dir", F_OK), 0);
    vftr_config_release(&c);

    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(file), collect, &m), -EINVAL);
    ck_assert_int_eq(m.n, 1);
    ck_assert_str_eq(m.text[0], "output_directory \"" DATA "vftrace.json\": not a directory; "
                     "capture switched off");
    msgs_free(&m);
    vftr_config_release(&c);

    /* Root may write anywhere: the permission case needs an ordinary user. */
    if (geteuid() != 0) {
        char dir[] = "/tmp/vftr_ro_XXXXXX", var[64];
        const char *env[] = { var, NULL };
        ck_assert_ptr_nonnull(mkdtemp(dir));
        ck_assert_int_eq(chmod(dir, 0500), 0);
        snprintf(var, sizeof var, "VFTR_OUTPUT_DIRECTORY=%s", dir);
        ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env), collect, &m), -EINVAL);
        ck_assert_int_eq(m.n, 1);
        ck_assert(strstr(m.text[0], "not writable") != NULL);
        msgs_free(&m);
        vftr_config_release(&c);
        rmdir(dir);
    }
}
END_TEST

/* ------------------------------------------------------------ regex/filter */

START_TEST(regex_search_semantics_and_filters)
{
    struct vftr_config c;
    struct vftr_regex *re;
    char err[256];
    const char *env[] = { "VFTR_FILTER_INCLUDE=^(solve|main)", "VFTR_FILTER_EXCLUDE=_tmp$", NULL };

    re = vftr_regex_new("solve", err, sizeof err);
    ck_assert_ptr_nonnull(re);
    ck_assert(vftr_regex_match(re, "solve"));
    ck_assert(vftr_regex_match(re, "my_solver"));      /* unanchored search */
    ck_assert(!vftr_regex_match(re, "Solve"));
    ck_assert(!vftr_regex_match(re, NULL));
    vftr_regex_free(re);
    ck_assert(!vftr_regex_match(NULL, "x"));
    vftr_regex_free(NULL);

    errno = 0;
    ck_assert_ptr_null(vftr_regex_new("a{2,1}", err, sizeof err));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert(strncmp(err, "offset ", 7) == 0);

    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env), NULL, NULL), 0);
    ck_assert(vftr_config_function_selected(&c, "solve_x"));
    ck_assert(vftr_config_function_selected(&c, "main"));
    ck_assert(!vftr_config_function_selected(&c, "solve_tmp"));   /* excluded */
    ck_assert(!vftr_config_function_selected(&c, "helper"));      /* not included */
    vftr_config_release(&c);

    ck_assert_int_eq(vftr_config_init(&c), 0);
    ck_assert(vftr_config_function_selected(&c, "anything"));     /* no filters */
    vftr_config_release(&c);
}
END_TEST

struct match_job {
    const struct vftr_regex *re;
    int hits;
};

static void *match_many(void *arg)
{
    struct match_job *job = arg;
    char name[32];

    for (int i = 0; i < 2000; i++) {
        snprintf(name, sizeof name, "%s_%d", i % 2 ? "MPI_Send" : "compute", i);
        job->hits += vftr_regex_match(job->re, name);
    }
    return NULL;
}

/* One compiled regex used by several threads at once (run under TSan too). */
START_TEST(regex_is_thread_safe)
{
    struct vftr_regex *re = vftr_regex_new("^MPI_", NULL, 0);
    pthread_t t[8];
    struct match_job jobs[8];

    ck_assert_ptr_nonnull(re);
    for (int i = 0; i < 8; i++) {
        jobs[i].re = re;
        jobs[i].hits = 0;
        ck_assert_int_eq(pthread_create(&t[i], NULL, match_many, &jobs[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(jobs[i].hits, 1000);
    }
    vftr_regex_free(re);
}
END_TEST

/* Writes text to a new temporary file; its path goes into path (unlinked
 * by the caller). */
static void write_tmp(char *path, const char *text)
{
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The trace keys by vftr's names ("trace.active") and by Vftrace's
 * ("sampling.active"), in the file and in the environment; the vftr name
 * counts where both are given; the advisor knows both. */
START_TEST(trace_keys_by_both_names)
{
    struct vftr_config c;
    struct msgs m = { 0 };
    char path[] = "/tmp/vftr_cfg_XXXXXX";
    const char *env_vftrace[] = { "VFTR_SAMPLING_ACTIVE=0", "VFTR_SAMPLING_SAMPLE_INTERVAL=2",
                                  NULL };
    const char *env_both[] = { "VFTR_TRACE_ACTIVE=1", "VFTR_SAMPLING_ACTIVE=0", NULL };
    const char *env_typo[] = { "VFTR_TRACE_ACTVE=1", NULL };

    /* the vftr names in a file */
    write_tmp(path, "{ \"trace\": { \"active\": false, \"sample_interval\": 0.5,\n"
              "  \"precise_functions\": \"^x\", \"max_job_size\": \"2 GiB\" } }\n");
    ck_assert_int_eq(vftr_config_load(&c, path, no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    ck_assert(!c.trace_active);
    ck_assert(c.trace_sample_interval == 0.5);
    ck_assert_str_eq(vftr_regex_pattern(c.trace_precise_functions), "^x");
    ck_assert_uint_eq(c.trace_max_job_size, 2ull << 30);
    vftr_config_release(&c);
    unlink(path);

    /* both names in one file: one key given twice, the last counts */
    strcpy(path, "/tmp/vftr_cfg_XXXXXX");
    write_tmp(path, "{ \"sampling\": { \"active\": false },\n"
              "  \"trace\": { \"active\": true } }\n");
    ck_assert_int_eq(vftr_config_load(&c, path, no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 1);
    ck_assert_msg(strstr(m.text[0], "line 2, column 14: \"trace.active\" is given again (first "
                         "on line 1); the last value counts") != NULL, "%s", m.text[0]);
    ck_assert(c.trace_active);
    msgs_free(&m);
    vftr_config_release(&c);
    unlink(path);

    /* a misspelt key under Vftrace's section name gets that section's names */
    strcpy(path, "/tmp/vftr_cfg_XXXXXX");
    write_tmp(path, "{ \"sampling\": { \"actve\": false } }\n");
    ck_assert_int_eq(vftr_config_load(&c, path, no_env, collect, &m), 0);
    ck_assert_int_eq(m.n, 1);
    ck_assert_msg(strstr(m.text[0], "sampling: \"actve\" is not a valid option, did you mean "
                         "\"active\"?") != NULL, "%s", m.text[0]);
    ck_assert(c.trace_active);
    msgs_free(&m);
    vftr_config_release(&c);
    unlink(path);

    /* Vftrace's variables */
    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env_vftrace), collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    ck_assert(!c.trace_active);
    ck_assert(c.trace_sample_interval == 2.0);
    vftr_config_release(&c);
    /* both: vftr's counts, whatever the order in the environment */
    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env_both), collect, &m), 0);
    ck_assert_int_eq(m.n, 0);
    ck_assert(c.trace_active);
    vftr_config_release(&c);
    ck_assert_int_eq(vftr_config_load(&c, NULL, ENVP(env_typo), collect, &m), 0);
    ck_assert_int_eq(m.n, 1);
    ck_assert_str_eq(m.text[0], "environment variable VFTR_TRACE_ACTVE is not a vftr option, "
                     "did you mean VFTR_TRACE_ACTIVE?");
    msgs_free(&m);
    vftr_config_release(&c);
}
END_TEST

START_TEST(names_of_columns_and_clocks)
{
    ck_assert_str_eq(vftr_sort_column_name(VFTR_SORT_TIME_EXCL), "time_excl");
    ck_assert_str_eq(vftr_sort_column_name(VFTR_SORT_COMM_TIME), "comm_time");
    ck_assert_str_eq(vftr_sort_column_name((enum vftr_sort_column)99), "?");
    ck_assert_str_eq(vftr_clock_name(VFTR_CLOCK_MONOTONIC), "monotonic");
    ck_assert_str_eq(vftr_clock_name((enum vftr_clock)7), "?");
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("capture_config");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, defaults_of_every_key);
    tcase_add_test(tc, no_file_no_environment_gives_defaults);
    tcase_add_test(tc, defaults_print_as_the_golden_file);
    tcase_add_test(tc, key_table_is_consistent);
    tcase_add_test(tc, every_key_parsed_from_a_file);
    tcase_add_test(tc, printed_config_parses_back);
    tcase_add_test(tc, vftrace_file_works_unchanged);
    tcase_add_test(tc, vftrace_sections_vftr_lacks);
    tcase_add_test(tc, key_without_effect_is_reported);
    tcase_add_test(tc, environment_overrides_the_file);
    tcase_add_test(tc, explicit_path_beats_vftr_config);
    tcase_add_test(tc, bad_environment_keeps_the_file_value);
    tcase_add_test(tc, vftr_off_switches_capture_off);
    tcase_add_test(tc, empty_variable_resets_a_nullable_key);
    tcase_add_test(tc, value_syntax_in_the_environment);
    tcase_add_test(tc, advisor_suggests_the_closest_key_at_each_level);
    tcase_add_test(tc, duplicate_keys_warn_and_the_last_counts);
    tcase_add_test(tc, each_bad_value_is_reported_and_falls_back);
    tcase_add_test(tc, malformed_file_switches_capture_off);
    tcase_add_test(tc, unusable_output_directory_switches_capture_off);
    tcase_add_test(tc, regex_search_semantics_and_filters);
    tcase_add_test(tc, regex_is_thread_safe);
    tcase_add_test(tc, names_of_columns_and_clocks);
    tcase_add_test(tc, trace_keys_by_both_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(config_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
