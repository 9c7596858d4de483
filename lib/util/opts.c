/*
 * opts.c — option tables for vftr's tools (see opts.h).
 *
 * getopt_long() does the scanning, so the tools behave like every other GNU
 * command (abbreviations, "--opt=value", "--", permutation).  We switch off
 * its own messages (opterr = 0) because a library must not print on its
 * own, and because our messages carry the tool's name and end with the hint
 * to try --help.  The getopt tables are built on the stack from the tool's
 * table on every call: they are small and this needs no allocation.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "opts.h"

/* getopt_long() "val" of entries without a short letter: beyond any char. */
#define LONG_ONLY_BASE 256

/* --help and --version, handled here and listed after every tool's options. */
static const struct vftr_opt builtin[] = {
    { VFTR_OPT_FLAG, "help",    'h', NULL, "print this help and exit",        NULL, 0, NULL },
    { VFTR_OPT_FLAG, "version", 'V', NULL, "print the version and exit",      NULL, 0, NULL },
};
#define NBUILTIN (sizeof builtin / sizeof builtin[0])

/* Help column: options longer than this get their help on the next line. */
#define HELP_COLUMN_MAX 30

static int takes_argument(const struct vftr_opt *o)
{
    return o->kind == VFTR_OPT_STRING || o->kind == VFTR_OPT_CALLBACK;
}

static size_t count_opts(const struct vftr_opt *opts)
{
    size_t n = 0;

    while (opts && opts[n].kind != VFTR_OPT_END)
        n++;
    return n;
}

/* The i-th option of the tool followed by the built-ins, as one sequence. */
static const struct vftr_opt *opt_at(const struct vftr_tool *tool, size_t n, size_t i)
{
    return i < n ? &tool->opts[i] : &builtin[i - n];
}

static void vmessage(const struct vftr_tool *tool, FILE *err, const char *fmt, va_list ap)
    VFTR_PRINTF(3, 0);

static void vmessage(const struct vftr_tool *tool, FILE *err, const char *fmt, va_list ap)
{
    fprintf(err, "%s: ", tool->name);
    vfprintf(err, fmt, ap);
    fputc('\n', err);
}

int vftr_tool_fail(const struct vftr_tool *tool, FILE *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(tool, err, fmt, ap);
    va_end(ap);
    return VFTR_EXIT_ERROR;
}

int vftr_tool_usage_fail(const struct vftr_tool *tool, FILE *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(tool, err, fmt, ap);
    va_end(ap);
    fprintf(err, "Try '%s --help' for more information.\n", tool->name);
    return VFTR_EXIT_USAGE;
}

/* Usage errors found while parsing: same text, but parse returns -EINVAL. */
static int usage_error(const struct vftr_tool *tool, FILE *err, const char *fmt, ...)
    VFTR_PRINTF(3, 4);

static int usage_error(const struct vftr_tool *tool, FILE *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(tool, err, fmt, ap);
    va_end(ap);
    fprintf(err, "Try '%s --help' for more information.\n", tool->name);
    return -EINVAL;
}

/* Checks the rules of opts.h; returns NULL or what is wrong. */
static const char *check_table(const struct vftr_tool *tool, size_t n)
{
    if (!tool->name || !tool->version || !tool->synopsis)
        return "tool without name, version or synopsis";
    if (n > VFTR_OPTS_MAX)
        return "too many options";
    for (size_t i = 0; i < n; i++) {
        const struct vftr_opt *o = &tool->opts[i];
        if (!o->name || !o->name[0] || o->name[0] == '-' || strchr(o->name, '='))
            return "option without a valid long name";
        if (o->kind > VFTR_OPT_CALLBACK)
            return "option of unknown kind";
        if (takes_argument(o) != (o->argname != NULL))
            return "argname must be set exactly for options with an argument";
        if (o->kind == VFTR_OPT_CALLBACK ? !o->cb : !o->dest)
            return "option without destination or callback";
        if (o->letter && (o->letter >= 128 || strchr(":?-;", o->letter) ||
                          o->letter <= ' '))
            return "invalid short letter";
        for (size_t j = 0; j < n + NBUILTIN; j++) {
            const struct vftr_opt *p = opt_at(tool, n, j);
            if (j == i)
                continue;
            if (strcmp(o->name, p->name) == 0)
                return "duplicate long name";
            if (o->letter && o->letter == p->letter)
                return "duplicate short letter";
        }
        const struct vftr_optletter *byl = o->letter ? vftr_optletter_by_letter(o->letter) : NULL;
        const struct vftr_optletter *byn = vftr_optletter_by_name(o->name);
        if (o->letter && (!byl || strcmp(byl->name, o->name) != 0))
            return "short letter not given to this long name by the shared table (optletters.c)";
        if (byn && byn->letter != o->letter)
            return "option without the letter the shared table gives it (optletters.c)";
        if (byn && byn->has_arg != takes_argument(o))
            return "option's argument differs from the shared table's (optletters.c)";
    }
    return NULL;
}

/* Finds the option whose getopt "val" is c. */
static const struct vftr_opt *opt_by_val(const struct vftr_tool *tool, size_t n, int c)
{
    if (c >= LONG_ONLY_BASE)
        return (size_t)(c - LONG_ONLY_BASE) < n + NBUILTIN ?
               opt_at(tool, n, (size_t)(c - LONG_ONLY_BASE)) : NULL;
    for (size_t i = 0; i < n + NBUILTIN; i++)
        if (opt_at(tool, n, i)->letter == c)
            return opt_at(tool, n, i);
    return NULL;
}

/*
 * Explains a '?' from getopt_long() for the long option `arg` ("--name" or
 * "--name=value"): ambiguous prefix, unknown name, or an argument given to
 * an option that takes none.
 */
static int bad_long_option(const struct vftr_tool *tool, size_t n, FILE *err, const char *arg)
{
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    const struct vftr_opt *exact = NULL;
    size_t matches = 0;

    for (size_t i = 0; i < n + NBUILTIN; i++) {
        const struct vftr_opt *o = opt_at(tool, n, i);
        if (strncmp(o->name, name, len) != 0)
            continue;
        matches++;
        if (strlen(o->name) == len || !exact)
            exact = o;
    }
    if (matches > 1 && strlen(exact->name) != len) {
        fprintf(err, "%s: option '--%.*s' is ambiguous; possibilities:", tool->name, (int)len,
                name);
        for (size_t i = 0; i < n + NBUILTIN; i++)
            if (strncmp(opt_at(tool, n, i)->name, name, len) == 0)
                fprintf(err, " '--%s'", opt_at(tool, n, i)->name);
        fputc('\n', err);
        fprintf(err, "Try '%s --help' for more information.\n", tool->name);
        return -EINVAL;
    }
    if (exact && name[len] == '=' && !takes_argument(exact))
        return usage_error(tool, err, "option '--%s' doesn't allow an argument", exact->name);
    return usage_error(tool, err, "unrecognized option '--%.*s'", (int)len, name);
}

/* Stores the value of option o (argument arg, NULL for flags). */
static int apply(const struct vftr_tool *tool, const struct vftr_opt *o, const char *arg,
                 FILE *err)
{
    char msg[VFTR_ERRMSG_MAX];
    int rc;

    switch (o->kind) {
    case VFTR_OPT_FLAG:
        *(int *)o->dest = o->value ? (int)o->value : 1;
        return 0;
    case VFTR_OPT_BITS:
        *(unsigned *)o->dest |= o->value;
        return 0;
    case VFTR_OPT_STRING:
        *(const char **)o->dest = arg;
        return 0;
    case VFTR_OPT_CALLBACK:
        msg[0] = '\0';
        rc = o->cb(o->dest, arg, msg, sizeof msg);
        if (rc >= 0)
            return 0;
        if (!msg[0])
            snprintf(msg, sizeof msg, "--%s '%s': %s", o->name, arg, strerror(-rc));
        if (rc == -EINVAL || rc == -ERANGE)
            return usage_error(tool, err, "%s", msg);
        vftr_tool_fail(tool, err, "%s", msg);
        return rc;
    case VFTR_OPT_END:
        break;
    }
    return usage_error(tool, err, "internal error: option '--%s' of unknown kind", o->name);
}

int vftr_opts_parse(const struct vftr_tool *tool, int argc, char **argv, int *first_operand,
                    FILE *out, FILE *err)
{
    struct option longopts[VFTR_OPTS_MAX + NBUILTIN + 1];
    /* ':' first, then up to two characters per option ("t:"). */
    char shortopts[1 + 2 * (VFTR_OPTS_MAX + NBUILTIN) + 1];
    size_t n = count_opts(tool->opts), ns = 0;
    const char *problem = check_table(tool, n);
    int c;

    if (problem)
        return usage_error(tool, err, "internal error: bad option table: %s", problem);

    shortopts[ns++] = ':';      /* report a missing argument as ':' rather than '?' */
    for (size_t i = 0; i < n + NBUILTIN; i++) {
        const struct vftr_opt *o = opt_at(tool, n, i);
        longopts[i].name = o->name;
        longopts[i].has_arg = takes_argument(o) ? required_argument : no_argument;
        longopts[i].flag = NULL;
        longopts[i].val = o->letter ? o->letter : LONG_ONLY_BASE + (int)i;
        if (o->letter) {
            shortopts[ns++] = (char)o->letter;
            if (takes_argument(o))
                shortopts[ns++] = ':';
        }
    }
    memset(&longopts[n + NBUILTIN], 0, sizeof longopts[0]);
    shortopts[ns] = '\0';

    /* optind = 0 makes glibc start over, also after an earlier parse. */
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const char *bad = optind > 0 && optind <= argc ? argv[optind - 1] : "";
        int is_long = strncmp(bad, "--", 2) == 0;
        const struct vftr_opt *o;

        if (c == '?') {
            /* glibc leaves optopt 0 for unknown or ambiguous long options
             * and sets it to the option's val when a long option got an
             * argument it does not take; a bad short letter is the only
             * case where optopt names no option of ours.  (argv[optind-1]
             * alone cannot tell: inside "-xd" it is the previous word.) */
            if (is_long && (optopt == 0 || opt_by_val(tool, n, optopt)))
                return bad_long_option(tool, n, err, bad);
            if (optopt > ' ' && optopt < 127)
                return usage_error(tool, err, "invalid option -- '%c'", optopt);
            return usage_error(tool, err, "invalid option -- '\\x%02x'", optopt & 0xff);
        }
        if (c == ':') {
            o = opt_by_val(tool, n, optopt);
            if (is_long && o)
                return usage_error(tool, err, "option '--%s' requires an argument", o->name);
            return usage_error(tool, err, "option requires an argument -- '%c'", optopt);
        }
        o = opt_by_val(tool, n, c);
        if (!o)
            return usage_error(tool, err, "internal error: getopt returned %d", c);
        if (o == &builtin[0]) {
            vftr_opts_usage(tool, out);
            return VFTR_OPTS_DONE;
        }
        if (o == &builtin[1]) {
            vftr_opts_version(tool, out);
            return VFTR_OPTS_DONE;
        }
        int rc = apply(tool, o, optarg, err);
        if (rc < 0)
            return rc;
    }
    if (first_operand)
        *first_operand = optind;
    return 0;
}

/* "  -t, --time=A:B" / "      --defs": the left column of one option. */
static int format_left(const struct vftr_opt *o, char *buf, size_t size)
{
    char letter[8] = "    ";

    if (o->letter)
        snprintf(letter, sizeof letter, "-%c, ", o->letter);
    return snprintf(buf, size, "  %s--%s%s%s", letter, o->name, o->argname ? "=" : "",
                    o->argname ? o->argname : "");
}

void vftr_opts_usage(const struct vftr_tool *tool, FILE *out)
{
    size_t n = count_opts(tool->opts);
    int column = 0;
    char left[128];

    fprintf(out, "Usage: %s %s\n", tool->name, tool->synopsis);
    if (tool->summary)
        fprintf(out, "%s\n", tool->summary);

    for (size_t i = 0; i < n + NBUILTIN; i++) {
        int len = format_left(opt_at(tool, n, i), left, sizeof left);
        if (len + 2 > column && len + 2 <= HELP_COLUMN_MAX)
            column = len + 2;
    }

    fputs("\nOptions:\n", out);
    for (size_t i = 0; i < n + NBUILTIN; i++) {
        const struct vftr_opt *o = opt_at(tool, n, i);
        const char *help = o->help ? o->help : "";
        int len = format_left(o, left, sizeof left);

        fputs(left, out);
        if (len + 2 > column) {
            fputc('\n', out);
            len = 0;
        }
        /* Every line of the help text starts at the help column. */
        for (int first = 1; first || *help; first = 0) {
            size_t line = strcspn(help, "\n");
            fprintf(out, "%*s%.*s\n", first ? column - len : column, "", (int)line, help);
            help += line;
            if (*help == '\n')
                help++;
        }
    }
    if (tool->epilog) {
        size_t elen = strlen(tool->epilog);
        fprintf(out, "\n%s%s", tool->epilog, elen && tool->epilog[elen - 1] == '\n' ? "" : "\n");
    }
}

void vftr_opts_version(const struct vftr_tool *tool, FILE *out)
{
    fprintf(out, "%s (vftr) %s\n", tool->name, tool->version);
}
