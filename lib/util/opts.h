/*
 * opts.h — one option table per tool: it drives getopt_long() and prints
 * --help, so that the two can never disagree.
 *
 * A tool describes itself in a struct vftr_tool and its options in an array
 * of struct vftr_opt ended by an entry of kind VFTR_OPT_END.  Each entry
 * says where its value goes (typed destinations instead of a switch over
 * option letters in every tool):
 *
 *     unsigned kinds = 0;
 *     const char *window = NULL;
 *     struct vftr_proclist procs = VFTR_PROCLIST_INIT;
 *     const struct vftr_opt opts[] = {
 *         { VFTR_OPT_BITS,     "defs", 'd', NULL,   "print definitions", &kinds, 1, NULL },
 *         { VFTR_OPT_STRING,   "time", 't', "A:B",  "time window",       &window, 0, NULL },
 *         { VFTR_OPT_CALLBACK, "process", 'p', "LIST", "processes",     &procs, 0, add_procs },
 *         VFTR_OPT_TABLE_END
 *     };
 *     const struct vftr_tool tool = { "vftr-dump", VFTR_VERSION, "[OPTION]... TRACE",
 *                                     "Prints every record of an OTF trace.", NULL, opts };
 *
 * --help (-h) and --version (-V) are added to every tool and handled here;
 * a table must not use those names or letters.
 *
 * Short letters are shared by all tools: a tool may give an option a letter
 * only as the one table of letters (vftr_optletters(), optletters.c) gives
 * it, with the same long name and the same kind of argument, and an option
 * whose long name is in that table must take its letter.  So `-j` is --jobs
 * and `-p` is --process in every tool; vftr_opts_parse() refuses a table
 * that breaks this as an internal error (tested for every tool).  Long options may be
 * abbreviated to any unique prefix (getopt_long's rule), and options and
 * operands may be mixed (argv is permuted so that the operands come last).
 *
 * Exit codes shared by all vftr tools: VFTR_EXIT_OK 0, VFTR_EXIT_ERROR 1
 * (runtime error), VFTR_EXIT_USAGE 2 (bad command line).  Every message
 * starts with the tool's name: "vftr-dump: ...".
 *
 * Threads: vftr_opts_parse() uses getopt_long(), whose state (optind,
 * optarg, ...) is global; call it from one thread, typically main().  The
 * printing functions only touch the FILE they are given.
 */
#ifndef VFTR_UTIL_OPTS_H
#define VFTR_UTIL_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "errmsg.h"

enum {
    VFTR_EXIT_OK = 0,
    VFTR_EXIT_ERROR = 1,
    VFTR_EXIT_USAGE = 2,
};

/* vftr_opts_parse() returns this when it handled --help or --version. */
#define VFTR_OPTS_DONE 1

/* Most options a table may hold (without --help and --version). */
#define VFTR_OPTS_MAX 64

enum vftr_opt_kind {
    VFTR_OPT_END = 0,     /* ends the table */
    VFTR_OPT_FLAG,        /* no argument:  *(int *)dest = (int)value (1 if value is 0) */
    VFTR_OPT_BITS,        /* no argument:  *(unsigned *)dest |= value */
    VFTR_OPT_STRING,      /* argument:     *(const char **)dest = the argument, borrowed
                           *               from argv (last occurrence wins) */
    VFTR_OPT_CALLBACK,    /* argument:     cb(dest, argument, err, errlen) */
};

/*
 * Handles the argument of a VFTR_OPT_CALLBACK option, e.g. parses it into
 * *dest.  Returns 0, or -errno with a message in err (one line, no tool
 * name, see errmsg.h); -EINVAL and -ERANGE count as usage errors.
 */
typedef int (*vftr_opt_cb)(void *dest, const char *arg, char *err, size_t errlen);

struct vftr_opt {
    enum vftr_opt_kind kind;
    const char *name;     /* long name without "--"; required */
    int letter;           /* short option letter, 0 for none */
    const char *argname;  /* the argument in --help ("A:B"); set iff the option takes one */
    const char *help;     /* one or more lines separated by '\n' */
    void *dest;           /* where the value goes (see the kinds) */
    unsigned value;       /* for FLAG and BITS */
    vftr_opt_cb cb;       /* for CALLBACK */
};

/* The entry that ends every table (spelled out so that -Wextra's
 * missing-field-initializers stays quiet). */
#define VFTR_OPT_TABLE_END { VFTR_OPT_END, NULL, 0, NULL, NULL, NULL, 0, NULL }

struct vftr_tool {
    const char *name;      /* prefix of every message, e.g. "vftr-dump" */
    const char *version;   /* printed by --version; tools pass VFTR_VERSION */
    const char *synopsis;  /* after the name in "Usage:", e.g. "[OPTION]... TRACE" */
    const char *summary;   /* one line below the usage line; may be NULL */
    const char *epilog;    /* text printed after the options; may be NULL */
    const struct vftr_opt *opts;
};

/* One entry of the table of short letters shared by all tools. */
struct vftr_optletter {
    int letter;            /* 0 ends the table */
    const char *name;      /* the long option the letter stands for, in every tool */
    int has_arg;           /* whether that option takes an argument */
    const char *meaning;   /* what it means, one line (share/doc/options.md) */
};

/* The table, sorted by letter, ended by an entry with letter 0.  Static. */
const struct vftr_optletter *vftr_optletters(void);

/* The entry of `letter` / of long option `name`, or NULL. */
const struct vftr_optletter *vftr_optletter_by_letter(int letter);
const struct vftr_optletter *vftr_optletter_by_name(const char *name);

/*
 * Parses the options in argv[1..argc-1] according to tool->opts and stores
 * their values.  getopt_long() may permute argv; afterwards the operands are
 * argv[*first_operand .. argc-1].
 *
 * Returns
 *   0               go on;
 *   VFTR_OPTS_DONE  --help or --version was given and its text printed to
 *                   `out`: the tool exits with VFTR_EXIT_OK;
 *   -EINVAL         usage error: "<tool>: <problem>" and a hint to try
 *                   --help were printed to `err`: exit with VFTR_EXIT_USAGE;
 *   other -errno    a callback failed for another reason (e.g. -ENOMEM),
 *                   "<tool>: <problem>" printed to `err`: exit with
 *                   VFTR_EXIT_ERROR.
 * A table that breaks the rules above (too long, reuses -h/-V, an argument
 * kind without argname, ...) is a bug in the tool: reported like a usage
 * error with "internal error" in the message.  Nothing is printed except
 * to `out` and `err`; getopt's own messages are suppressed.
 */
int vftr_opts_parse(const struct vftr_tool *tool, int argc, char **argv, int *first_operand,
                    FILE *out, FILE *err);

/* Prints the --help text (usage line, summary, options, epilog) to out. */
void vftr_opts_usage(const struct vftr_tool *tool, FILE *out);

/* Prints the --version text ("<tool> (vftr) <version>") to out. */
void vftr_opts_version(const struct vftr_tool *tool, FILE *out);

/*
 * Prints "<tool>: <message>\n" to err and returns VFTR_EXIT_ERROR, for
 * runtime errors: `return vftr_tool_fail(&tool, stderr, "%s: cannot open
 * trace (%s)", name, why);`.
 */
int vftr_tool_fail(const struct vftr_tool *tool, FILE *err, const char *fmt, ...)
    VFTR_PRINTF(3, 4);

/*
 * Prints "<tool>: <message>\nTry '<tool> --help' for more information.\n"
 * to err and returns VFTR_EXIT_USAGE, for command-line errors the tool finds
 * after vftr_opts_parse() (a missing operand, a bad combination).
 */
int vftr_tool_usage_fail(const struct vftr_tool *tool, FILE *err, const char *fmt, ...)
    VFTR_PRINTF(3, 4);

#endif /* VFTR_UTIL_OPTS_H */
