/*
 * optletters.c — the one table of vftr's short option letters (opts.h).
 *
 * Every tool's option table is checked against this list when it is parsed
 * (vftr_opts_parse), and test/integration/option_letters.sh checks every
 * tool's --help against it, so a letter cannot come to mean two things in
 * two tools.  Keep it sorted by letter; share/doc/options.md describes it.
 * A letter is added here only for an option more than a rarely used switch:
 * letters are few, and a long name costs a user nothing to look up.
 */
#include <stddef.h>
#include <string.h>

#include "opts.h"

static const struct vftr_optletter letters[] = {
    { 'C', "callpath",     0, "the call-path tree instead of the flat profile" },
    { 'F', "fold-threads", 0, "threads booked under their rank" },
    { 'I', "io",           0, "file I/O per file and per function" },
    { 'J', "json",         0, "JSON output" },
    { 'K', "counters",     0, "the performance counters per call path" },
    { 'M', "messages",     0, "the message matrix and collective operations" },
    { 'S', "stats",        0, "statistics records (summaries)" },
    { 'T', "threads",      0, "threads kept apart, one process each" },
    { 'c', "config",       1, "the capture configuration file" },
    { 'd', "defs",         0, "definition records" },
    { 'e', "events",       0, "event records" },
    { 'f', "filter",       1, "a filter file in Score-P's syntax" },
    { 'g', "groups",       0, "function groups instead of functions" },
    { 'i', "interval",     1, "seconds between refreshes" },
    { 'j', "jobs",         1, "N threads (or N traces) at a time" },
    { 'k', "keys",         0, "the key bindings" },
    { 'l', "lines",        1, "rows shown" },
    { 'm', "match",        1, "only functions whose name matches a regular expression" },
    { 'n', "breaks",       1, "N snapshot/summary breaks evenly spread over the trace" },
    { 'o', "output",       1, "where the output goes (file, trace name or directory)" },
    { 'p', "process",      1, "only these processes (rank 3, rank 3 thread 2, tokens)" },
    { 'q', "quiet",        0, "no progress bar and no summary" },
    { 'r', "reverse",      0, "the reverse order" },
    { 's', "sort",         1, "sort by these columns" },
    { 't', "time",         1, "only the time window A:B of the trace" },
    { 'v', "verbose",      0, "say more on stderr" },
    { 'z', "compress",     1, "zlib compression level" },
    { 0, NULL, 0, NULL },
};

const struct vftr_optletter *vftr_optletters(void)
{
    return letters;
}

const struct vftr_optletter *vftr_optletter_by_letter(int letter)
{
    for (const struct vftr_optletter *l = letters; l->letter; l++)
        if (l->letter == letter)
            return l;
    return NULL;
}

const struct vftr_optletter *vftr_optletter_by_name(const char *name)
{
    for (const struct vftr_optletter *l = letters; name && l->letter; l++)
        if (strcmp(l->name, name) == 0)
            return l;
    return NULL;
}
