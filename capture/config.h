/*
 * config.h — the run-time configuration of libvftrcapture.
 *
 * Where the values come from, later ones overriding earlier ones:
 *   1. the defaults of the key table (capture/config_keys.c);
 *   2. the JSON file named by the `path` argument or, when that is NULL, by
 *      $VFTR_CONFIG (Vftrace's files are accepted unchanged);
 *   3. environment variables, one per key, named VFTR_<PATH> where PATH is the
 *      key's JSON path upper-cased with '.' replaced by '_':
 *      "trace.active" -> VFTR_TRACE_ACTIVE, "off" -> VFTR_OFF (which is
 *      also Vftrace's switch).  A key Vftrace names otherwise ("trace.active"
 *      is Vftrace's "sampling.active") is read under that name too, in the
 *      file and as VFTR_SAMPLING_ACTIVE; where both are given, the vftr name
 *      counts.  vftr-run turns its flags into these variables,
 *      so the precedence is: vftr-run flags, environment, file, defaults.
 * Then the advisor (unknown keys and sections get a warning naming the
 * closest valid one by Levenshtein distance; a section of a Vftrace feature
 * vftr does not have, such as "cuda", gets "not supported by vftr" instead,
 * see vftr_config_unsupported()) and validation run.
 *
 * One table of keys drives everything (defaults, parser, advisor, type
 * checks, validation, environment names, printing, the default-config
 * generator and the reference page share/doc/configuration.md): adding a
 * key means one field below and one row in the table.
 *
 * Invalid input never stops the program.  A bad value gets a message and the
 * key keeps the value it had before (the default, or the file's value when a
 * bad environment variable overrides it).  When nothing sensible remains
 * (unreadable or malformed file, output directory not writable or, when
 * missing, not one that can be made)
 * capture switches off.
 *
 * Ownership: a struct vftr_config owns its strings, rank lists and regexes;
 * vftr_config_release() frees them.  After vftr_config_load() the struct is
 * meant to be read-only: reading it from any number of threads is safe, and
 * vftr_regex_match() may be called concurrently on the same regex.
 */
#ifndef VFTR_CAPTURE_CONFIG_H
#define VFTR_CAPTURE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/rangelist.h"

/* ------------------------------------------------------------------ regexes */

/*
 * A compiled PCRE2 pattern.  Matching is a search (unanchored, like grep):
 * "^MPI_" matches names that start with MPI_, "solve" any name containing
 * it.  Opaque; owned by the struct vftr_config that holds it.
 */
struct vftr_regex;

/* Compiles `pattern`.  NULL + errno (EINVAL: the pattern does not compile,
 * then, if err is not NULL, "offset N: <PCRE2's reason>" is written there;
 * ENOMEM).  Free with vftr_regex_free(). */
struct vftr_regex *vftr_regex_new(const char *pattern, char *err, size_t errlen);

/* NULL-safe. */
void vftr_regex_free(struct vftr_regex *re);

/* Whether s contains a match of re.  A NULL re matches nothing.  Thread-safe
 * (match data is per call); allocates, so call it once per function, never
 * per event.  False if PCRE2 fails (out of memory, match limit). */
bool vftr_regex_match(const struct vftr_regex *re, const char *s);

/* The source pattern, borrowed from re. */
const char *vftr_regex_pattern(const struct vftr_regex *re);

/* ------------------------------------------------------------------- values */

/* Sort columns of the log's tables.  Each table allows a subset (the key
 * table says which): profile_table: none, time_excl, time_incl, calls,
 * stack_id, overhead; name_grouped_profile_table: none, time_excl, time_incl,
 * calls; mpi: none, messages, send_size, recv_size, send_bw, recv_bw,
 * comm_time, stack_id. */
enum vftr_sort_column {
    VFTR_SORT_NONE = 0,
    VFTR_SORT_TIME_EXCL,
    VFTR_SORT_TIME_INCL,
    VFTR_SORT_CALLS,
    VFTR_SORT_STACK_ID,
    VFTR_SORT_OVERHEAD,
    VFTR_SORT_MESSAGES,
    VFTR_SORT_SEND_SIZE,
    VFTR_SORT_RECV_SIZE,
    VFTR_SORT_SEND_BW,
    VFTR_SORT_RECV_BW,
    VFTR_SORT_COMM_TIME,
};

/* The configuration's name of a column ("time_excl"), or "?" if unknown. */
const char *vftr_sort_column_name(enum vftr_sort_column c);

/* Clock of the time stamps.  TSC: the time-stamp counter (rdtsc), the
 * default; the capture core falls back to MONOTONIC (clock_gettime) where the
 * TSC is not usable (no invariant TSC, not x86) and says so. */
enum vftr_clock {
    VFTR_CLOCK_TSC = 0,
    VFTR_CLOCK_MONOTONIC,
};

/* "tsc" or "monotonic" ("?" if unknown). */
const char *vftr_clock_name(enum vftr_clock c);

/* ------------------------------------------------------------ configuration */

/*
 * One field per key, named after its JSON path ('.' -> '_').  Defaults in
 * brackets; where vftr's default differs from Vftrace's, Vftrace's follows.
 */
struct vftr_config {
    /* top level */
    bool off;                        /* [false] capture switched off */
    char *output_directory;          /* ["."] never NULL after init */
    char *outfile_basename;          /* [NULL = the executable's name]; no '/' */
    struct vftr_rangelist logfile_for_ranks;  /* ["0"; Vftrace "none"] */
    bool print_config;               /* [true] configuration appended to the log */
    bool strip_module_names;         /* [true; Vftrace false] module procedures as
                                        module::name (false: raw symbols) */
    bool demangle_cxx;               /* [false] */
    bool include_cxx_prelude;        /* [false] profile what runs before main */
    enum vftr_clock clock;           /* [tsc] (vftr) */

    /* profile_table */
    bool profile_table_show_table;                  /* [true] */
    bool profile_table_show_calltime_imbalances;    /* [true; Vftrace false] _all.log */
    bool profile_table_show_callpath;               /* [false] */
    bool profile_table_show_overhead;               /* [false] */
    bool profile_table_show_minmax_summary;         /* [true; Vftrace false] _all.log */
    bool profile_table_separate;                    /* [false] tables in files of their own */
    enum vftr_sort_column profile_table_sort_table_column;  /* [time_excl] */
    bool profile_table_sort_table_ascending;        /* [false] */

    /* name_grouped_profile_table */
    bool name_grouped_profile_table_show_table;     /* [false] */
    int name_grouped_profile_table_max_stack_ids;   /* [8] >= 0 */
    enum vftr_sort_column name_grouped_profile_table_sort_table_column; /* [time_excl] */
    bool name_grouped_profile_table_sort_table_ascending;               /* [false] */

    /* stacklist */
    bool stacklist_show_stacklist;                  /* [true] */


    /* mpi */
    bool mpi_show_table;             /* [true] */
    bool mpi_log_messages;           /* [true] */
    struct vftr_rangelist mpi_only_for_ranks;       /* ["all"] */
    bool mpi_show_sync_time;         /* [false] */
    bool mpi_show_callpath;          /* [false] */
    enum vftr_sort_column mpi_sort_table_column;    /* [none] */
    bool mpi_sort_table_ascending;   /* [false] */

    /* trace (the .vfd; Vftrace's section "sampling", whose names stay valid) */
    bool trace_active;               /* [true; Vftrace false] write the trace */
    double trace_sample_interval;    /* [0 = every event; Vftrace 0.005] seconds, >= 0 */
    uint64_t trace_outbuffer_size;   /* [8] MiB per thread buffer, >= 1 */
    struct vftr_regex *trace_precise_functions;  /* [NULL] always traced */
    uint64_t trace_max_size;         /* [1 GiB] bytes of .vfd per rank (vftr); past
                                        it tracing stops, the profile goes on.
                                        0 = no cap */
    uint64_t trace_max_job_size;     /* [64 GiB] bytes of .vfd over the ranks of a
                                        job (vftr): a rank's cap is at most this
                                        over the number of ranks.  0 = no cap */
    uint64_t trace_keep_free;        /* [256 MiB] bytes the trace leaves free on
                                        its file system: tracing stops before
                                        the free space falls below it.
                                        0 = no reserve */

    /* filter (vftr): a function is instrumented iff (include is NULL or
     * matches its name) and (exclude is NULL or does not match it); decided
     * once per function address.  See vftr_config_function_selected(). */
    struct vftr_regex *filter_include;              /* [NULL] */
    struct vftr_regex *filter_exclude;              /* [NULL] */
    char *filter_file;               /* [NULL] Score-P filter file (capture/filter.c) */
    int filter_max_depth;            /* [0 = none] deepest call path measured (hooks.c) */
    double filter_min_duration;      /* [0 = all] seconds: shorter calls not traced */
    bool filter_patch_excluded;      /* [true] excluded functions' hook calls patched out
                                        (capture/patch.c; x86-64 only) */

    bool instrument_patchable;       /* [true] -fpatchable-function-entry sleds patched
                                        into calls of capture (capture/sled.c) */

    /* throttle (vftr): TAU's rule, see capture/filter.c */
    bool throttle_active;            /* [true] */
    uint64_t throttle_calls;         /* [100000] calls before throttling may set in */
    double throttle_per_call;        /* [1e-5] seconds per call below which it does */
    bool throttle_count;             /* [true] a sled's throttled function still counted
                                        (capture/sled.c); false: its sled a nop */

    /* counters (vftr): performance counters read at region boundaries
     * (capture/counters.c) */
    char *counters_events;           /* [NULL = none] comma-separated names */
    struct vftr_regex *counters_functions;          /* [NULL = all] */
    /* sample (vftr): statistical call-stack sampling (capture/sample.c) */
    double sample_interval;          /* [0 = off] seconds of a thread's CPU time */
    bool sample_task_clock;          /* [true] from a task-clock event where the kernel
                                      * allows one; false: the CPU-time timer */
    bool sample_ring;                /* [true] the task-clock event's samples written by
                                      * the kernel into a ring, unwound by the collector;
                                      * false: signalled to the thread */

    /* control (vftr): external control and live access (capture/vftr_ec.h) */
    bool control_active;             /* [true] load the control module */
    char *control_module;            /* [NULL = the built-in default module] */
    char *control_options;           /* [NULL] passed to the module */
    char *control_socket_dir;        /* [NULL = $XDG_RUNTIME_DIR/vftr or /tmp/vftr-<uid>] */
    bool control_detach_stops;       /* [false] the last detach stops the trace */

    /* io (vftr): file I/O in the trace (capture/io.h) */
    bool io_active;                  /* [true] record file operations */
    char *io_exclude_paths;          /* [the system directories] ':'-separated absolute
                                        prefixes whose files are not recorded; NULL or
                                        "": none */
};

/* Severity of a message handed to the report callback. */
enum {
    VFTR_CONFIG_WARNING = 1,   /* something ignored or a fallback taken */
    VFTR_CONFIG_ERROR = 2,     /* a value (or the whole file) rejected */
};

/*
 * Receives each message of vftr_config_load(), one line without a trailing
 * newline and without a "vftr:" prefix, e.g.
 *   "cfg.json: line 3, column 5: \"actve\" is not a valid option, did you mean \"active\"?"
 * The message is borrowed for the duration of the call.  A NULL callback
 * means: print "vftr: warning: ..." / "vftr: error: ..." to stderr.
 */
typedef void vftr_config_report_fn(void *arg, int severity, const char *message);

/* Sets every field to its default.  0 or -ENOMEM (then the struct is released
 * and off is true). */
int vftr_config_init(struct vftr_config *cfg);

/*
 * Fills cfg (which need not be initialised): defaults, then the file, then
 * the environment, then validation (see the top of this file).
 *
 * path:  the JSON file; NULL means $VFTR_CONFIG from envp, and neither (or an
 *        empty value) means no file.
 * envp:  the environment to read ("NAME=value" strings, NULL-terminated);
 *        NULL means `environ`.  Pass an array holding only NULL to ignore the
 *        environment (vftr-config --check does).
 * report, arg: where messages go (see above).
 *
 * Returns 0 when the configuration is usable, possibly after fallbacks (the
 * user may still have asked for off = true); -EINVAL when capture must switch
 * off because of an error (cfg->off is then true); -ENOMEM likewise.  In
 * every case cfg holds a complete configuration that vftr_config_release()
 * frees.  Never exits.  Not thread-safe against concurrent changes of the
 * environment (it only reads envp).
 */
int vftr_config_load(struct vftr_config *cfg, const char *path, char *const *envp,
                     vftr_config_report_fn *report, void *arg);

/* Frees what cfg owns and leaves it zeroed.  NULL-safe, idempotent. */
void vftr_config_release(struct vftr_config *cfg);

/*
 * Writes cfg as a JSON document with every key (the form a config file takes;
 * it parses back to the same values).  Sizes are written with a binary unit
 * when they are a whole number of one ("1 GiB").  0, or -EIO if writing
 * failed.  vftr-config --default prints the defaults this way.
 */
int vftr_config_print_json(const struct vftr_config *cfg, FILE *out);

struct vftr_config_key;   /* one row of the key table, below */

/*
 * The value of one key in cfg as a JSON literal (true, 8, 0.005, "1 GiB",
 * "0-3,7", null) into buf; returns the full length (snprintf rule).  Used by
 * the printer and by messages ("...; using 0").
 */
size_t vftr_config_format_value(const struct vftr_config *cfg, const struct vftr_config_key *key,
                                char *buf, size_t size);

/* Whether the filters select the function `name` (see the filter fields). */
bool vftr_config_function_selected(const struct vftr_config *cfg, const char *name);

/* ------------------------------------------------------------ the key table */

enum vftr_config_type {
    VFTR_CONFIG_BOOL,      /* bool: JSON true/false; env 1/0, true/false, yes/no, on/off */
    VFTR_CONFIG_INT,       /* int: a whole number within [min, max] */
    VFTR_CONFIG_UINT64,    /* uint64_t: a whole number within [min, max] */
    VFTR_CONFIG_DOUBLE,    /* double: a number within [min, max] */
    VFTR_CONFIG_SIZE,      /* uint64_t bytes: a number of bytes or "512 MiB", "1.5G" */
    VFTR_CONFIG_STRING,    /* char *: a string, or null where the key allows */
    VFTR_CONFIG_PATH,      /* char *: a directory that exists and is writable, or one
                              capture can make (capture/outdir.h) */
    VFTR_CONFIG_RANKS,     /* struct vftr_rangelist: "all", "none", "0-3,7" or a number */
    VFTR_CONFIG_REGEX,     /* struct vftr_regex *: a PCRE2 pattern, or null */
    VFTR_CONFIG_SORT,      /* enum vftr_sort_column: one of the key's `choices` */
    VFTR_CONFIG_CLOCK,     /* enum vftr_clock: "tsc" or "monotonic" */
};

/*
 * A check beyond the type's own, run on a value after it was parsed and before
 * it is stored.  `value` points to a value of the field's type (for a STRING
 * key a `char *const *`).  Returns 0, or -EINVAL with one lower-case line in
 * msg saying what is expected.
 */
typedef int vftr_config_validate_fn(const void *value, char *msg, size_t len);

/* One configuration key.  The table is constant and shared. */
struct vftr_config_key {
    const char *path;          /* JSON path: "trace.sample_interval" */
    const char *vftrace_path;  /* Vftrace's path where it differs ("sampling.sample_interval"),
                                  accepted as well in files and as VFTR_<PATH>; else NULL */
    enum vftr_config_type type;
    const char *def;           /* default in the environment variables' syntax
                                  (parsed by the same code), NULL = null */
    size_t offset;             /* of the field in struct vftr_config */
    double min, max;           /* INT, UINT64, DOUBLE: allowed range */
    const enum vftr_sort_column *choices;  /* SORT: allowed columns */
    size_t nchoices;
    const char *vftrace_def;   /* Vftrace's default where it differs, else NULL;
                                  NULL with vftr_only set: a key of vftr's own */
    bool vftr_only;
    vftr_config_validate_fn *validate;     /* NULL: the type's checks only */
    const char *help;          /* what it means, one or more sentences */
    const char *no_effect;     /* non-NULL: a Vftrace key whose values other than the
                                  default change nothing in vftr, and why; a file or
                                  variable that gives one gets a warning saying so */
};

/* The table, in the order of the printed JSON (sections contiguous).
 * *n receives the number of keys.  Borrowed, static. */
const struct vftr_config_key *vftr_config_keys(size_t *n);

/* The environment variable of a key ("VFTR_TRACE_ACTIVE") into buf;
 * returns the full length (snprintf rule). */
size_t vftr_config_env_name(const struct vftr_config_key *key, char *buf, size_t size);

/* The same for the key's Vftrace name ("VFTR_SAMPLING_ACTIVE"); 0 (and buf
 * untouched) when the key has none. */
size_t vftr_config_vftrace_env_name(const struct vftr_config_key *key, char *buf, size_t size);

/* The name of a type as the reference page shows it ("boolean", "size"...). */
const char *vftr_config_type_name(enum vftr_config_type type);

/*
 * Sections of Vftrace's configuration for features vftr does not have (GPU
 * and accelerator profiling, hardware counters).  A file that has one gets
 * the warning "<name>: <what> is not supported by vftr; the section is
 * ignored" (not the advisor's guess at a misspelling) and capture goes on.
 * The table is constant; *n receives its length.
 */
struct vftr_config_unsupported {
    const char *section;       /* top-level key: "cuda" */
    const char *what;          /* the feature, for messages: "CUDA profiling (CUPTI)" */
};
const struct vftr_config_unsupported *vftr_config_unsupported(size_t *n);

#endif /* VFTR_CAPTURE_CONFIG_H */
