/*
 * config_keys.c — the one table of configuration keys (see config.h).
 *
 * Every other part of the configuration walks this table: the defaults are
 * parsed from the `def` strings by the same code that parses environment
 * variables, the JSON printer and the reference page follow its order, the
 * advisor takes its candidates from it.  Adding a key: a field in struct
 * vftr_config, a row here, a line in the hand-written golden files of
 * test/data/config/ (the tests count the keys, so they notice a missing one),
 * `.vftrace_path` where Vftrace calls the key otherwise (both names are read),
 * and `vftr-config --reference > share/doc/configuration.md` (plus --man for
 * share/man/man5/vftr-config.5; a test compares both with the table).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "util/scorepfilter.h"

/*
 * offsetof() of a field, which fails to compile if the field is not of type
 * T: a table row whose type disagrees with its field cannot be built.
 */
#define FIELD(field, T) \
    (offsetof(struct vftr_config, field) + \
     0 * sizeof(char[_Generic(((struct vftr_config *)0)->field, T: 1, default: -1)]))

#define BOOL(p, d, field) .path = p, .type = VFTR_CONFIG_BOOL, .def = d, .offset = FIELD(field, bool)
#define INT(p, d, field, lo, hi) \
    .path = p, .type = VFTR_CONFIG_INT, .def = d, .offset = FIELD(field, int), .min = lo, .max = hi
#define UINT64(p, d, field, lo, hi) \
    .path = p, .type = VFTR_CONFIG_UINT64, .def = d, .offset = FIELD(field, uint64_t), \
    .min = lo, .max = hi
#define DOUBLE(p, d, field, lo, hi) \
    .path = p, .type = VFTR_CONFIG_DOUBLE, .def = d, .offset = FIELD(field, double), \
    .min = lo, .max = hi
#define SIZE(p, d, field, lo, hi) \
    .path = p, .type = VFTR_CONFIG_SIZE, .def = d, .offset = FIELD(field, uint64_t), \
    .min = lo, .max = hi
#define STRING(p, d, field) .path = p, .type = VFTR_CONFIG_STRING, .def = d, \
    .offset = FIELD(field, char *)
#define PATH(p, d, field) .path = p, .type = VFTR_CONFIG_PATH, .def = d, \
    .offset = FIELD(field, char *)
#define RANKS(p, d, field) .path = p, .type = VFTR_CONFIG_RANKS, .def = d, \
    .offset = FIELD(field, struct vftr_rangelist)
#define REGEX(p, field) .path = p, .type = VFTR_CONFIG_REGEX, .def = NULL, \
    .offset = FIELD(field, struct vftr_regex *)
#define SORT(p, d, field, set) .path = p, .type = VFTR_CONFIG_SORT, .def = d, \
    .offset = FIELD(field, enum vftr_sort_column), \
    .choices = set, .nchoices = sizeof set / sizeof set[0]
#define CLOCK(p, d, field) .path = p, .type = VFTR_CONFIG_CLOCK, .def = d, \
    .offset = FIELD(field, enum vftr_clock)

static const enum vftr_sort_column profile_columns[] = {
    VFTR_SORT_TIME_EXCL, VFTR_SORT_TIME_INCL, VFTR_SORT_CALLS, VFTR_SORT_STACK_ID,
    VFTR_SORT_OVERHEAD, VFTR_SORT_NONE,
};
static const enum vftr_sort_column grouped_columns[] = {
    VFTR_SORT_TIME_EXCL, VFTR_SORT_TIME_INCL, VFTR_SORT_CALLS, VFTR_SORT_NONE,
};
static const enum vftr_sort_column mpi_columns[] = {
    VFTR_SORT_MESSAGES, VFTR_SORT_SEND_SIZE, VFTR_SORT_RECV_SIZE, VFTR_SORT_SEND_BW,
    VFTR_SORT_RECV_BW, VFTR_SORT_COMM_TIME, VFTR_SORT_STACK_ID, VFTR_SORT_NONE,
};

/* outfile_basename: a file name, not a path (the directory has its own key). */
static int check_basename(const void *value, char *msg, size_t len)
{
    const char *s = *(char *const *)value;

    if (!s)
        return 0;
    if (!*s) {
        snprintf(msg, len, "expected a file name or null, got an empty string");
        return -EINVAL;
    }
    if (strchr(s, '/')) {
        snprintf(msg, len, "expected a file name without '/' (the directory is "
                 "output_directory), got \"%.64s\"", s);
        return -EINVAL;
    }
    return 0;
}

/* sample.interval: 0 (off) or at least 100 us, below which the timer
 * signals would cost the program more than the 2 % sampling aims at. */
static int check_sample_interval(const void *value, char *msg, size_t len)
{
    double v = *(const double *)value;

    if (v != 0 && v < 1e-4) {
        snprintf(msg, len, "expected 0 (off) or at least 0.0001 seconds, got %g", v);
        return -EINVAL;
    }
    return 0;
}

/* io.exclude_paths: absolute directory prefixes separated by ':'. */
static int check_prefixes(const void *value, char *msg, size_t len)
{
    const char *s = *(char *const *)value;

    for (const char *p = s; p && *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);

        if (n > 0 && p[0] != '/') {
            snprintf(msg, len, "expected absolute directories separated by ':', got \"%.*s\"",
                     (int)(n > 64 ? 64 : n), p);
            return -EINVAL;
        }
        if (n >= 1024) {
            snprintf(msg, len, "expected directories shorter than 1024 bytes");
            return -EINVAL;
        }
        p += n + (end != NULL);
    }
    return 0;
}

/* filter.file: a Score-P filter file that parses (its message names the
 * file and the line). */
static int check_filter_file(const void *value, char *msg, size_t len)
{
    const char *path = *(char *const *)value;
    struct vftr_scorep_filter *f;

    if (!path)
        return 0;
    f = vftr_scorep_filter_load(path, msg, len);
    if (f == NULL)
        return errno == ENOMEM ? -ENOMEM : -EINVAL;
    vftr_scorep_filter_free(f);
    return 0;
}

/* A thread buffer above 64 GiB is surely a typo. */
#define MAX_OUTBUFFER_MIB 65536.0
/* 2^63 bytes: the file offsets of the .vfd writer are signed 64-bit. */
#define MAX_TRACE_SIZE 9223372036854775807.0

static const struct vftr_config_key keys[] = {
    /* ------------------------------------------------------------ top level */
    { BOOL("off", "false", off),
      .help = "Switch capture off: the program runs as if vftr were not there. "
              "VFTR_OFF=1 does the same, as with Vftrace." },
    { PATH("output_directory", ".", output_directory),
      .help = "Directory of the .vfd trace and the .log files, made with its parents if "
              "missing (capture switches off with a message if it cannot be made or written). "
              "The files of an earlier run of the same program there are moved into "
              "<directory>/<basename>.old/ before this run writes its own, replacing the run "
              "kept there before: a run never overwrites another." },
    { STRING("outfile_basename", NULL, outfile_basename), .validate = check_basename,
      .help = "Base of the output file names: <basename>_<rank>.vfd and "
              "<basename>_<rank>.log. null: the name of the executable." },
    { RANKS("logfile_for_ranks", "0", logfile_for_ranks), .vftrace_def = "none",
      .help = "Ranks that write a profile log: \"all\", \"none\" or a list such as "
              "\"0-3,7\". A program without MPI is rank 0." },
    { BOOL("print_config", "true", print_config),
      .help = "Append the configuration in use to the log." },
    { BOOL("strip_module_names", "true", strip_module_names), .vftrace_def = "false",
      .help = "Strip the compilers' decoration from the names of Fortran module procedures, "
              "keeping the module, written as C++ writes a namespace: \"heat_mod::smooth\" "
              "for gfortran's __heat_mod_MOD_smooth, Intel's heat_mod_mp_smooth_, NAG's and "
              "flang's spellings alike. Unlike Vftrace's, the module is never dropped: "
              "procedures of one name in two modules stay apart. false: the names as the "
              "symbol table has them." },
    { BOOL("demangle_cxx", "true", demangle_cxx), .vftrace_def = "false",
      .help = "Demangle C++ function names (\"geo::scale(double)\" for _ZN3geo5scaleEd). "
              "false: the mangled names, as the symbol table has them." },
    { BOOL("include_cxx_prelude", "false", include_cxx_prelude),
      .help = "Also profile what runs before main (C++ static initialisers); otherwise "
              "measurement starts at main." },
    { CLOCK("clock", "tsc", clock), .vftr_only = true,
      .help = "Clock of the time stamps: \"tsc\" (time-stamp counter, cheapest; capture "
              "falls back to \"monotonic\" where it is not usable) or \"monotonic\" "
              "(clock_gettime)." },

    /* -------------------------------------------------------- profile_table */
    { BOOL("profile_table.show_table", "true", profile_table_show_table),
      .help = "Write the call-path profile table in each log: a rank's own in "
              "<basename>_<rank>.log, the one over the ranks (calls and times summed) in "
              "<basename>_all.log." },
    { BOOL("profile_table.show_calltime_imbalances", "true",
           profile_table_show_calltime_imbalances), .vftrace_def = "false",
      .help = "In <basename>_all.log (MPI runs), add to each call path the imbalance of its "
              "exclusive time over the ranks that ran it, (max - avg) / max in percent (the "
              "one definition every vftr tool uses; Vftrace divides the larger deviation of "
              "max or min from the average by the average), and the rank with the most "
              "time." },
    { BOOL("profile_table.show_callpath", "false", profile_table_show_callpath),
      .help = "Add the full call path of each row." },
    { BOOL("profile_table.show_overhead", "false", profile_table_show_overhead),
      .help = "Add the time spent in vftr's hooks for each row." },
    { BOOL("profile_table.show_minmax_summary", "true", profile_table_show_minmax_summary),
      .vftrace_def = "false",
      .help = "In <basename>_all.log (MPI runs), add a table of each call path's smallest, "
              "average and largest exclusive time over the ranks that ran it, with the "
              "ranks of the extremes, sorted by the largest." },
    { BOOL("profile_table.separate", "false", profile_table_separate),
      .help = "Write the name-grouped table, the MPI table and the min/max summary into files "
              "of their own beside the log, <log>_namegroup.log, <log>_mpi.log and "
              "<log>_minmax.log (<log> is the log's name without .log), instead of into the "
              "log." },
    { SORT("profile_table.sort_table.column", "time_excl", profile_table_sort_table_column,
           profile_columns),
      .help = "Column the profile table is sorted by (in <basename>_all.log: the sums over "
              "the ranks; stack_id there is the numbering of the call paths over the ranks)." },
    { BOOL("profile_table.sort_table.ascending", "false", profile_table_sort_table_ascending),
      .help = "Sort in ascending order (default: descending)." },

    /* ------------------------------------------- name_grouped_profile_table */
    { BOOL("name_grouped_profile_table.show_table", "false",
           name_grouped_profile_table_show_table),
      .help = "Write a profile table grouped by function name (all call paths of a "
              "function in one row)." },
    { INT("name_grouped_profile_table.max_stack_ids", "8",
          name_grouped_profile_table_max_stack_ids, 0, INT_MAX),
      .help = "Most call-path ids listed in a row of the grouped table." },
    { SORT("name_grouped_profile_table.sort_table.column", "time_excl",
           name_grouped_profile_table_sort_table_column, grouped_columns),
      .help = "Column the grouped table is sorted by." },
    { BOOL("name_grouped_profile_table.sort_table.ascending", "false",
           name_grouped_profile_table_sort_table_ascending),
      .help = "Sort in ascending order (default: descending)." },

    /* ------------------------------------------------------------ stacklist */
    { BOOL("stacklist.show_stacklist", "true", stacklist_show_stacklist),
      .help = "List the call paths with their ids in the log." },

    /* ------------------------------------------------------------------ mpi */
    { BOOL("mpi.show_table", "true", mpi_show_table),
      .help = "Write the MPI table in each log of an MPI run: one row per call path of an MPI "
              "function that moved data, with its calls, the messages and bytes it sent and "
              "received (a collective counts as one message each way it moved data), the "
              "bandwidths and the time in the calls; summed over the ranks in "
              "<basename>_all.log." },
    { BOOL("mpi.log_messages", "true", mpi_log_messages),
      .help = "Record MPI messages in the trace." },
    { RANKS("mpi.only_for_ranks", "all", mpi_only_for_ranks),
      .help = "Ranks whose MPI messages are recorded: \"all\", \"none\" or a list "
              "such as \"0-3,7\"." },
    { BOOL("mpi.show_sync_time", "false", mpi_show_sync_time),
      .help = "Before each blocking collective other than MPI_Barrier, wait at a barrier of "
              "its communicator, recorded as a function <collective>_sync (MPI_Allreduce_sync) "
              "called just before the collective: the time this rank waited for the others, "
              "kept out of the collective's own time. The barrier synchronises the ranks and "
              "costs time of its own (Vftrace's method)." },
    { BOOL("mpi.show_callpath", "false", mpi_show_callpath),
      .help = "Add the full call path of each row of the MPI table." },
    { SORT("mpi.sort_table.column", "none", mpi_sort_table_column, mpi_columns),
      .help = "Column the MPI table is sorted by: messages (sent and received), send_size and "
              "recv_size (average bytes per message), send_bw and recv_bw (bytes per second "
              "in the calls), comm_time (seconds in the calls), stack_id, or none (the order "
              "of the call-path ids)." },
    { BOOL("mpi.sort_table.ascending", "false", mpi_sort_table_ascending),
      .help = "Sort in ascending order (default: descending)." },

    /* ---------------------------------------------------------------- trace
     * Vftrace's section "sampling" by the name of what it is about: the
     * .vfd trace (with an interval of 0, vftr's default, nothing is
     * sampled).  Vftrace's names stay valid (`vftrace_path`). */
    { BOOL("trace.active", "true", trace_active), .vftrace_def = "false",
      .vftrace_path = "sampling.active",
      .help = "Write the .vfd trace. false: profile only (Vftrace's default)." },
    { DOUBLE("trace.sample_interval", "0", trace_sample_interval, 0, 1e9),
      .vftrace_def = "0.005", .vftrace_path = "sampling.sample_interval",
      .help = "Seconds: an enter or exit is written only if this much time has passed "
              "since the last one written (calls of precise functions always are). "
              "0: every event." },
    { UINT64("trace.outbuffer_size", "8", trace_outbuffer_size, 1, MAX_OUTBUFFER_MIB),
      .vftrace_path = "sampling.outbuffer_size",
      .help = "Vftrace's write buffer, in MiB. In vftr an upper bound of each thread's trace "
              "buffer, which is 256 KiB (small enough to stay in the CPU cache between the "
              "events going in and the buffer going out; the tuning variable VFTR_BUFFER_KIB "
              "sets it): a value other than 8 changes nothing unless VFTR_BUFFER_KIB is larger, "
              "and gets a warning saying so.",
      .no_effect = "each thread's trace buffer is 256 KiB, below any value of this key, which "
                   "only bounds the tuning variable VFTR_BUFFER_KIB" },
    { REGEX("trace.precise_functions", trace_precise_functions),
      .vftrace_path = "sampling.precise_functions",
      .help = "Regular expression (PCRE2): calls of the functions whose names match are "
              "always written, whatever the sample interval. null: none." },
    { SIZE("trace.max_size", "1 GiB", trace_max_size, 0, MAX_TRACE_SIZE), .vftr_only = true,
      .help = "Largest .vfd file per rank, in bytes or with a unit (\"512 MiB\", \"2G\"). "
              "Past it tracing stops, the profile goes on, and the log and stderr say "
              "so once. Near it (90 %) only MPI, OpenMP and vftr.h region events are traced "
              "any more (the program's functions are throttled), which stderr says once. "
              "0: no cap (trace.max_job_size may still set one)." },
    { SIZE("trace.max_job_size", "64 GiB", trace_max_job_size, 0, MAX_TRACE_SIZE),
      .vftr_only = true,
      .help = "Largest trace of a job, all its ranks together: each rank's cap is this "
              "divided by the number of ranks, where that is below trace.max_size (with the "
              "defaults: 1 GiB per rank up to 64 ranks, 64 MiB per rank with 1024). The "
              "number of ranks is the launcher's (mpirun, srun) or MPI_Comm_size of "
              "MPI_COMM_WORLD. 0: no cap per job." },
    { SIZE("trace.keep_free", "256 MiB", trace_keep_free, 0, MAX_TRACE_SIZE), .vftr_only = true,
      .help = "Free space the trace leaves on the file system of the output directory, in "
              "bytes or with a unit, for the program's own files: before a write of the trace "
              "would leave less free, tracing stops (the trace keeps what it has, the profile "
              "goes on) with one message on stderr, and the log says so. 0: no reserve (the "
              "trace may fill the disk)." },

    /* --------------------------------------------------------- filter (vftr) */
    { REGEX("filter.include", filter_include), .vftr_only = true,
      .help = "Regular expression (PCRE2): only functions whose names match are measured. "
              "null: all functions." },
    { REGEX("filter.exclude", filter_exclude), .vftr_only = true,
      .help = "Regular expression (PCRE2): functions whose names match are not measured "
              "(applied after filter.include). null: none excluded." },

    { STRING("filter.file", NULL, filter_file), .vftr_only = true,
      .validate = check_filter_file,
      .help = "Filter file in Score-P's syntax (SCOREP_REGION_NAMES_BEGIN, INCLUDE/EXCLUDE with "
              "shell wildcards, MANGLED, ... SCOREP_REGION_NAMES_END), as scorep-score -g and "
              "vftr-score --generate write them: the functions it excludes are not measured. Applied "
              "after filter.include and filter.exclude (a function any of them excludes is "
              "out). MPI functions, OpenMP regions and vftr.h regions are never filtered. "
              "SCOREP_FILE_NAMES blocks apply as in Score-P (a function is out when its name "
              "or its source file is excluded): the file is the debug information's (-g) "
              "for the function's entry, a full path as the line table has it; a function "
              "without debug information is left to the region rules. null: none." },

    { INT("filter.max_depth", "0", filter_max_depth, 0, INT_MAX), .vftr_only = true,
      .help = "Deepest call path measured, in frames from the thread's root (main is 1), as "
              "uftrace -D: the program's functions called deeper are neither traced nor "
              "profiled (their time is their caller's) and cost the hooks no clock read. "
              "MPI functions, OpenMP regions and vftr.h regions are recorded at any depth. "
              "A longjmp or a C++ exception out of calls below the limit is not seen: "
              "capture would count the frames it skipped as still open. 0: no limit." },

    { DOUBLE("filter.min_duration", "0", filter_min_duration, 0, 1e9), .vftr_only = true,
      .help = "Seconds: calls shorter than this are not traced, as uftrace -t (a call is "
              "taken back from its thread's buffer at its exit, with what it called, while "
              "they are all still there: a call that spans a buffer flush stays); the "
              "profile still counts every call. Replaces sampling.sample_interval. 0: every "
              "call." },

    { BOOL("filter.patch_excluded", "true", filter_patch_excluded), .vftr_only = true,
      .help = "Patch out the hook calls of excluded functions (x86-64): the first call of a "
              "function that filter.include, filter.exclude or filter.file excludes turns "
              "the call of the hook it came from into a short jump over it, as XRay patches "
              "its sleds, so that the function then runs at the speed of an uninstrumented one. "
              "The log says how many call sites were patched. Code that cannot be made "
              "writable (a W^X policy) is said once and left to the skip cache. false: every "
              "call of an excluded function still enters the hooks, which return at once. "
              "The same for throttled functions: once throttling stops tracing a function, "
              "its enter call is sent to a stub that counts its calls (throttle.count) and "
              "its exit calls are jumped over, as their threads come by; vftr-ctl unthrottle "
              "gives the calls back. filter.max_depth decides per call and patches nothing." },

    /* ---------------------------------------------------- instrument (vftr) */
    { BOOL("instrument.patchable", "true", instrument_patchable), .vftr_only = true,
      .help = "Trace a program built with -fpatchable-function-entry=5 (or more) instead of "
              "-finstrument-functions, as uftrace's dynamic tracing does (x86-64): at start "
              "the nop sleds the compiler listed in __patchable_function_entries become calls "
              "of capture's entry trampoline, except those of excluded functions, which stay "
              "nops and cost nothing; a throttled function's sled is sent to a stub that only "
              "counts its calls. Only in a program that has such sleds. C++ is traced too "
              "(exceptions, thread cancellation and backtrace() step over the trampolines); "
              "only a process with a C++ runtime linked in statically keeps the nops of its C++ "
              "objects, with one message (see share/doc/capture.md). "
              "false: the sleds stay nops." },

    /* ------------------------------------------------------ throttle (vftr) */
    { BOOL("throttle.active", "true", throttle_active), .vftr_only = true,
      .help = "Throttle as TAU does: a call path called more than throttle.calls times whose "
              "mean time per call is below throttle.per_call is no longer traced (its calls "
              "are still counted in the profile); the log lists it as throttled and the "
              "trace marks it with a THROTTLE event. vftr-ctl throttled lists such call "
              "paths, vftr-ctl unthrottle traces them again." },
    { UINT64("throttle.calls", "100000", throttle_calls, 1, 1e15), .vftr_only = true,
      .help = "Calls of a call path before throttling may set in (TAU_THROTTLE_NUMCALLS)." },
    { DOUBLE("throttle.per_call", "1e-05", throttle_per_call, 0, 1e9), .vftr_only = true,
      .help = "Seconds: a call path whose mean inclusive time per call stays below this after "
              "throttle.calls calls is throttled (TAU_THROTTLE_PERCALL, 10 microseconds)." },
    { BOOL("throttle.count", "true", throttle_count), .vftr_only = true,
      .help = "A throttled function goes on being counted by a stub (a call and one "
              "increment per call, a few nanoseconds): its sled calls it in a program traced "
              "through its sleds (instrument.patchable), its hook call does in one built with "
              "-finstrument-functions (filter.patch_excluded). false: its sled becomes a nop, "
              "its hook calls are jumped over, so that it then costs nothing, and its calls "
              "are counted only up to the moment it was throttled (the log says so; vftr-ctl "
              "unthrottle traces it again)." },

    /* ------------------------------------------------------- counters (vftr) */
    { STRING("counters.events", NULL, counters_events), .vftr_only = true,
      .help = "Performance counters read at the enter and exit of each measured function, "
              "per thread, comma-separated: cycles, instructions, cache-misses, "
              "branch-misses (hardware, through perf_event_open), task-clock, page-faults, "
              "context-switches, cpu-migrations (software), or, where vftr was built with "
              "PAPI, PAPI presets (PAPI_TOT_CYC) and native events (perf::TASK-CLOCK), read "
              "in one PAPI event set per thread. A counter this machine or its "
              "perf_event_paranoid setting does not allow is left out with one message "
              "naming the cause. Written to the trace, the log and the converted traces. "
              "null: none." },
    { REGEX("counters.functions", counters_functions), .vftr_only = true,
      .help = "Regular expression (PCRE2): counters are read only at the boundaries of the "
              "functions whose names match. null: all measured functions." },

    /* --------------------------------------------------------- sample (vftr) */
    { DOUBLE("sample.interval", "0", sample_interval, 0, 10), .vftr_only = true,
      .validate = check_sample_interval,
      .help = "Seconds of a thread's CPU time between two statistical call-stack samples "
              "(vftr-run --sample 1ms), for programs built without -finstrument-functions: "
              "each thread is interrupted at this interval of its CPU time (see "
              "sample.task_clock) and its stack unwound (libunwind, frame pointers as the "
              "fallback); each sample weighs the CPU time the thread used since its previous "
              "one. The samples become a statistical profile in the log, the trace and every "
              "tool, its functions in the group \"sampled (statistical)\": calls are samples, "
              "times the CPU time they weigh. MPI and OpenMP stay recorded exactly. "
              "Not Vftrace's sampling.* keys (which are the trace). At least 0.0001 (100 us). "
              "0: off." },
    { BOOL("sample.task_clock", "true", sample_task_clock), .vftr_only = true,
      .help = "Interrupt each sampled thread with a task-clock event (perf_event_open, "
              "kernel.perf_event_paranoid 2 or less): a high-resolution timer that runs while "
              "the thread runs, so samples come every interval of its CPU time even on a "
              "loaded machine. false, or where the kernel refuses the event: a POSIX timer on "
              "CLOCK_THREAD_CPUTIME_ID, which the kernel checks only at its tick and only for "
              "the thread running then, so that a thread sharing its core may go tens of "
              "milliseconds without a sample (the profile is then coarser; the log says which "
              "was used)." },
    { BOOL("sample.ring", "true", sample_ring), .vftr_only = true,
      .help = "With the task-clock event: the kernel itself writes each sample (the thread's "
              "registers and 8 KiB of its stack) into a ring buffer that the collector thread "
              "reads every 32 intervals (more often after coming late) and unwinds "
              "(libunwind's DWARF unwinder over the "
              "copy), so the thread is never interrupted by a signal: about half the cost a "
              "sample. false, or where the kernel refuses the ring (an old kernel, "
              "perf_event_mlock_kb and RLIMIT_MEMLOCK for an unprivileged user): the event "
              "signals the thread, which unwinds itself (the log's source line says which). "
              "On the ring route a sample counts as inside an exact call when one of "
              "capture's frames (a hook, an MPI wrapper) is on its stack under the program's." },

    /* -------------------------------------------------------- control (vftr) */
    { BOOL("control.active", "true", control_active), .vftr_only = true,
      .help = "Load the External Control module, which lets vftr-ctl (or another front-end) "
              "steer the running capture and read its stacks and profile. false: no control "
              "thread, no socket." },
    { STRING("control.module", NULL, control_module), .vftr_only = true,
      .help = "Shared object of an External Control module (vftr_ec(3)). null: vftr's "
              "built-in module, which serves vftr-ctl over a Unix domain socket." },
    { STRING("control.options", NULL, control_options), .vftr_only = true,
      .help = "Option string handed to the control module's init function. null: none." },
    { STRING("control.socket_dir", NULL, control_socket_dir), .vftr_only = true,
      .help = "Directory of the control sockets (created with mode 0700, must belong to "
              "the user). null: $XDG_RUNTIME_DIR/vftr, or /tmp/vftr-<uid> without it." },
    { BOOL("control.detach_stops", "false", control_detach_stops), .vftr_only = true,
      .help = "When the last front-end detaches, stop the trace (the profile goes on); "
              "otherwise capture goes on as before." },

    /* ------------------------------------------------------------- io (vftr) */
    { BOOL("io.active", "true", io_active), .vftr_only = true,
      .help = "Record file I/O in the trace: every call of the program on a file it opened "
              "through POSIX (open, read, write, pread, lseek, fsync, dup, close, ... also "
              "what Fortran's runtime calls), ISO C streams (fopen, fread, fwrite, fprintf, "
              "fseek, fflush, fclose, ...) or MPI-IO (MPI_File_*), with its file, handle, "
              "operation, bytes and duration. Needs the trace (sampling.active). false: the "
              "calls pass straight through." },
    { STRING("io.exclude_paths",
             "/proc:/sys:/dev:/run:/etc:/usr:/bin:/sbin:/lib:/lib32:/lib64:/boot:/opt:"
             "/var/lib:/var/cache:/var/log:/var/run", io_exclude_paths),
      .vftr_only = true, .validate = check_prefixes,
      .help = "Directories whose files are not recorded, absolute and separated by ':' (a "
              "directory and everything below it; names are compared after a relative name "
              "is made absolute). The default leaves out the system's directories. null or "
              "\"\": every file is recorded." },
};

/*
 * Vftrace's sections of features vftr lacks, from Vftrace's own advisor over
 * its history (configuration_advisor.c): a Vftrace user's file may hold any
 * of them.  "accprof" is the name of the OpenACC section in Vftrace's code
 * and some of its files.
 */
static const struct vftr_config_unsupported unsupported[] = {
    { "cuda", "CUDA profiling (CUPTI)" },
    { "openacc", "OpenACC profiling" },
    { "accprof", "OpenACC profiling" },
    { "veda", "VEDA (NEC Vector Engine offloading) profiling" },
    { "hwprof", "hardware counter profiling" },
    { "papi", "hardware counter profiling (PAPI)" },
    { "hardware_scenarios", "hardware counter scenarios" },
};

const struct vftr_config_unsupported *vftr_config_unsupported(size_t *n)
{
    *n = sizeof unsupported / sizeof unsupported[0];
    return unsupported;
}

const struct vftr_config_key *vftr_config_keys(size_t *n)
{
    *n = sizeof keys / sizeof keys[0];
    return keys;
}

static size_t env_name(const char *path, char *buf, size_t size)
{
    static const char prefix[] = "VFTR_";
    size_t len = sizeof prefix - 1 + strlen(path);

    if (size == 0)
        return len;
    size_t i = 0;
    for (const char *p = prefix; *p && i + 1 < size; p++)
        buf[i++] = *p;
    for (const char *p = path; *p && i + 1 < size; p++)
        buf[i++] = *p == '.' ? '_' : (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') : *p;
    buf[i] = '\0';
    return len;
}

size_t vftr_config_env_name(const struct vftr_config_key *key, char *buf, size_t size)
{
    return env_name(key->path, buf, size);
}

size_t vftr_config_vftrace_env_name(const struct vftr_config_key *key, char *buf, size_t size)
{
    return key->vftrace_path ? env_name(key->vftrace_path, buf, size) : 0;
}

const char *vftr_config_type_name(enum vftr_config_type type)
{
    switch (type) {
    case VFTR_CONFIG_BOOL:   return "boolean";
    case VFTR_CONFIG_INT:    return "integer";
    case VFTR_CONFIG_UINT64: return "integer";
    case VFTR_CONFIG_DOUBLE: return "number";
    case VFTR_CONFIG_SIZE:   return "size";
    case VFTR_CONFIG_STRING: return "string";
    case VFTR_CONFIG_PATH:   return "directory";
    case VFTR_CONFIG_RANKS:  return "rank list";
    case VFTR_CONFIG_REGEX:  return "regex";
    case VFTR_CONFIG_SORT:   return "column";
    case VFTR_CONFIG_CLOCK:  return "clock";
    }
    return "?";
}

/* Names in the order of enum vftr_sort_column. */
static const char *const column_names[] = {
    [VFTR_SORT_NONE] = "none",           [VFTR_SORT_TIME_EXCL] = "time_excl",
    [VFTR_SORT_TIME_INCL] = "time_incl", [VFTR_SORT_CALLS] = "calls",
    [VFTR_SORT_STACK_ID] = "stack_id",   [VFTR_SORT_OVERHEAD] = "overhead",
    [VFTR_SORT_MESSAGES] = "messages",   [VFTR_SORT_SEND_SIZE] = "send_size",
    [VFTR_SORT_RECV_SIZE] = "recv_size", [VFTR_SORT_SEND_BW] = "send_bw",
    [VFTR_SORT_RECV_BW] = "recv_bw",     [VFTR_SORT_COMM_TIME] = "comm_time",
};

const char *vftr_sort_column_name(enum vftr_sort_column c)
{
    if ((size_t)c < sizeof column_names / sizeof column_names[0] && column_names[c])
        return column_names[c];
    return "?";
}

const char *vftr_clock_name(enum vftr_clock c)
{
    switch (c) {
    case VFTR_CLOCK_TSC:       return "tsc";
    case VFTR_CLOCK_MONOTONIC: return "monotonic";
    }
    return "?";
}
