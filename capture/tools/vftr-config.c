/*
 * vftr-config — prints the default configuration, checks configuration
 * files, and prints the configuration reference generated from the key table
 * (share/doc/configuration.md and share/man/man5/vftr-config.5 are its
 * output; a test keeps them equal).  See share/man/man1/vftr-config.1.
 *
 * Everything it knows about keys comes from capture/config.h: the tool only
 * walks the table and formats.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/opts.h"
#include "util/regfile.h"

#define TOOL "vftr-config"

/* ------------------------------------------------------------------ --check */

struct check_counts {
    unsigned errors, warnings;
};

static void check_report(void *arg, int severity, const char *message)
{
    struct check_counts *c = arg;

    if (severity == VFTR_CONFIG_ERROR)
        c->errors++;
    else
        c->warnings++;
    fprintf(stderr, TOOL ": %s: %s\n", severity == VFTR_CONFIG_ERROR ? "error" : "warning",
            message);
}

/* What path is when it exists and is not a regular file (a FIFO, a device,
 * a directory), else NULL.  stat() does not block: the loader's open of a
 * FIFO would wait for a writer for ever. */
static const char *special_file(const char *path)
{
    struct stat sb;

    return path && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) ? vftr_file_kind(sb.st_mode)
                                                               : NULL;
}

/* Checks one file on its own (the environment is ignored).  Returns the
 * exit status for it. */
static int check_file(const char *path, int strict)
{
    static char *const no_env[] = { NULL };
    struct check_counts c = { 0, 0 };
    struct vftr_config cfg;
    const char *kind = special_file(path);

    if (kind) {
        fprintf(stderr, TOOL ": %s: is %s, expected a JSON configuration file (a regular "
                "file)\n", path, kind);
        return VFTR_EXIT_ERROR;
    }
    int rc = vftr_config_load(&cfg, path, no_env, check_report, &c);

    vftr_config_release(&cfg);
    if (rc == -ENOMEM) {
        fprintf(stderr, TOOL ": %s: out of memory\n", path);
        return VFTR_EXIT_ERROR;
    }
    if (c.errors || (strict && c.warnings)) {
        printf("%s: invalid (%u error%s, %u warning%s)\n", path, c.errors,
               c.errors == 1 ? "" : "s", c.warnings, c.warnings == 1 ? "" : "s");
        return VFTR_EXIT_ERROR;
    }
    if (c.warnings)
        printf("%s: valid, %u warning%s\n", path, c.warnings, c.warnings == 1 ? "" : "s");
    else
        printf("%s: valid\n", path);
    return VFTR_EXIT_OK;
}

/* ---------------------------------------------------------------- reference */

/* What the values of each type look like (reference page). */
static const char *const type_syntax[] = {
    [VFTR_CONFIG_BOOL] = "JSON `true` or `false`; in the environment also 1/0, yes/no, on/off "
                         "(any case).",
    [VFTR_CONFIG_INT] = "A whole number within the range given.",
    [VFTR_CONFIG_UINT64] = "A whole number within the range given.",
    [VFTR_CONFIG_DOUBLE] = "A number within the range given.",
    [VFTR_CONFIG_SIZE] = "A number of bytes, or a string with a unit: \"512 MiB\", \"1.5G\". "
                         "B; K, KiB, M, MiB, G, GiB, T, TiB are powers of 1024; KB, MB, GB, "
                         "TB powers of 1000 (units in any case). A fraction needs a unit and "
                         "must come to whole bytes (\"1.5K\", not \"1.1K\"); a size out of "
                         "range is refused, never cut. The same syntax as the sizes of every "
                         "vftr tool (lib/util/number.h).",
    [VFTR_CONFIG_STRING] = "A string, or null where the default is null.",
    [VFTR_CONFIG_PATH] = "A directory name. Capture makes it (and its parents) when it "
                         "starts; if it cannot be made or written, capture switches off.",
    [VFTR_CONFIG_RANKS] = "\"all\", \"none\", or a comma-separated list of ranks and "
                          "inclusive ranges such as \"0-3,7,15-23\" (a JSON number is one "
                          "rank).",
    [VFTR_CONFIG_REGEX] = "A PCRE2 regular expression, matched anywhere in the function name "
                          "(anchor with ^ and $), or null. In the environment an empty value "
                          "is null.",
    [VFTR_CONFIG_SORT] = "One of the column names listed with the key.",
    [VFTR_CONFIG_CLOCK] = "\"tsc\" or \"monotonic\".",
};

/* Text of the allowed values of k ("0 to 2147483647", "time_excl, ..."). */
static void allowed(const struct vftr_config_key *k, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    switch (k->type) {
    case VFTR_CONFIG_INT:
    case VFTR_CONFIG_UINT64:
        snprintf(buf, len, "%.0f to %.0f", k->min, k->max);
        break;
    case VFTR_CONFIG_DOUBLE:
        snprintf(buf, len, "%g to %g", k->min, k->max);
        break;
    case VFTR_CONFIG_SIZE:
        snprintf(buf, len, "%.0f to %.0f bytes", k->min, k->max);
        break;
    case VFTR_CONFIG_SORT:
        for (size_t i = 0; i < k->nchoices && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                     vftr_sort_column_name(k->choices[i]));
        break;
    case VFTR_CONFIG_CLOCK:
        snprintf(buf, len, "tsc, monotonic");
        break;
    default:
        break;
    }
}

/* The section of a key ("profile_table.sort_table"; "" at the top). */
static void section_of(const char *path, char *buf, size_t len)
{
    const char *dot = strrchr(path, '.');
    snprintf(buf, len, "%.*s", dot ? (int)(dot - path) : 0, path);
}

static const char intro[] =
    "libvftrcapture reads its configuration once, when the measured program makes its first "
    "instrumented call. Each key takes its value from, in this order of precedence: the flags "
    "of vftr-run (which set the environment variables below), the environment variable of the "
    "key, the JSON file named by VFTR_CONFIG, the default. A Vftrace configuration file works "
    "unchanged; keys marked (vftr) are vftr's own.";

static const char intro2[] =
    "A key's environment variable is VFTR_ followed by its JSON path in upper case with dots "
    "replaced by underscores. An empty environment variable counts as not set, except for "
    "keys that may be null, which it resets to null.";

static const char intro3[] =
    "An unknown key or section gets a warning that names the closest valid one; a section of a "
    "Vftrace feature vftr does not have (listed below) gets a warning that it is not supported "
    "by vftr instead, and is ignored. A value that is invalid gets a message and the key keeps its previous value (the default, or the "
    "file's value when an environment variable is invalid). When the file cannot be read, "
    "is no regular file (a FIFO, a device or a directory is refused at once, never waited "
    "for) or is not valid JSON, or the output directory is missing or not writable, capture "
    "switches off and the program runs unmeasured. Nothing in the configuration ever stops "
    "the program.";

/* "`cuda` (CUDA profiling (CUPTI)), ..." of the Vftrace sections vftr lacks;
 * `code` marks are dropped by the man page. */
static void unsupported_list(char *buf, size_t len)
{
    const struct vftr_config_unsupported *u;
    size_t n, used = 0;

    u = vftr_config_unsupported(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s`%s` (%s)", i ? ", " : "",
                                 u[i].section, u[i].what);
}

static const char unsupported_intro[] =
    "Sections of Vftrace's configuration that vftr does not support (each gets the warning "
    "\"not supported by vftr\", capture goes on): ";

/* One key as both page formats show it. */
struct key_text {
    const struct vftr_config_key *key;
    char env[256];              /* its environment variable */
    char range[256];            /* allowed values, "" when the type says all */
    char def[256];              /* default value */
};

/*
 * A page format of the reference.  print_reference() walks the type list and
 * the key table once and calls these in order: head, type for each value
 * type, then for each key section (when the section changes; "" is the top
 * level) and key, and tail (may be NULL).
 */
struct ref_format {
    void (*head)(FILE *out);
    void (*type)(FILE *out, const char *name, const char *syntax);
    void (*section)(FILE *out, const char *sect);
    void (*key)(FILE *out, const struct key_text *kt);
    void (*tail)(FILE *out);
};

static int print_reference(FILE *out, const struct ref_format *fmt)
{
    const struct vftr_config_key *keys;
    struct vftr_config cfg;
    char prev[128] = "?";
    size_t n;

    if (vftr_config_init(&cfg) < 0)
        return -ENOMEM;
    keys = vftr_config_keys(&n);
    fmt->head(out);
    for (size_t t = 0; t < sizeof type_syntax / sizeof type_syntax[0]; t++) {
        if (t == VFTR_CONFIG_UINT64)       /* shown as "integer" like INT */
            continue;
        fmt->type(out, vftr_config_type_name((enum vftr_config_type)t), type_syntax[t]);
    }
    for (size_t i = 0; i < n; i++) {
        struct key_text kt = { .key = &keys[i] };
        char sect[128];

        section_of(kt.key->path, sect, sizeof sect);
        if (strcmp(sect, prev) != 0) {
            fmt->section(out, sect);
            snprintf(prev, sizeof prev, "%s", sect);
        }
        vftr_config_env_name(kt.key, kt.env, sizeof kt.env);
        allowed(kt.key, kt.range, sizeof kt.range);
        vftr_config_format_value(&cfg, kt.key, kt.def, sizeof kt.def);
        fmt->key(out, &kt);
    }
    if (fmt->tail)
        fmt->tail(out);
    vftr_config_release(&cfg);
    return ferror(out) ? -EIO : 0;
}

/* ---------------------------------------------------- Markdown (--reference) */

static void md_head(FILE *out)
{
    char list[1024];

    unsupported_list(list, sizeof list);
    fprintf(out, "# vftr configuration reference\n\n"
            "<!-- Generated by `vftr-config --reference` from the key table in "
            "capture/config_keys.c. Do not edit; regenerate. -->\n\n"
            "%s\n\n%s\n\n%s\n\n%s%s.\n\n"
            "`vftr-config --default` prints the defaults as a configuration file; "
            "`vftr-config --check FILE` checks a file.\n\n"
            "## Value types\n\n", intro, intro2, intro3, unsupported_intro, list);
}

static void md_type(FILE *out, const char *name, const char *syntax)
{
    fprintf(out, "- **%s**: %s\n", name, syntax);
}

static void md_section(FILE *out, const char *sect)
{
    if (*sect)
        fprintf(out, "\n## Section `%s`\n", sect);
    else
        fprintf(out, "\n## Top level\n");
}

static void md_key(FILE *out, const struct key_text *kt)
{
    const struct vftr_config_key *k = kt->key;
    bool ranged = kt->range[0] != '\0';

    fprintf(out, "\n### `%s`%s\n\n", k->path, k->vftr_only ? " (vftr)" : "");
    fprintf(out, "- type: %s%s%s%s\n", vftr_config_type_name(k->type), ranged ? " (" : "",
            kt->range, ranged ? ")" : "");
    fprintf(out, "- default: `%s`", kt->def);
    if (k->vftrace_def)
        fprintf(out, " (Vftrace: `%s`)", k->vftrace_def);
    fprintf(out, "\n- environment: `%s`\n", kt->env);
    if (k->vftrace_path) {
        char env[256];

        vftr_config_vftrace_env_name(k, env, sizeof env);
        fprintf(out, "- Vftrace's name, read as well: `%s` (`%s`)\n", k->vftrace_path, env);
    }
    fprintf(out, "\n%s\n", k->help);
}

static const struct ref_format markdown = { md_head, md_type, md_section, md_key, NULL };

/* --------------------------------------------------------- man page (--man) */

/* Writes s for roff: backslashes escaped, a leading '.' or '\'' protected. */
static void roff(FILE *out, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
    }
}

/* Markdown's `code` marks dropped for the man page. */
static void roff_plain(FILE *out, const char *s)
{
    char buf[1024];
    size_t j = 0;

    for (; *s && j + 1 < sizeof buf; s++)
        if (*s != '`' && *s != '*')
            buf[j++] = *s;
    buf[j] = '\0';
    roff(out, buf);
}

static void man_head(FILE *out)
{
    fprintf(out, ".\\\" Generated by vftr-config --man from the key table in "
            "capture/config_keys.c; do not edit.\n"
            ".TH VFTR-CONFIG 5 \"2024\" \"vftr " VFTR_VERSION "\" \"vftr manual\"\n"
            ".SH NAME\nvftr-config \\- configuration of libvftrcapture (JSON file and "
            "VFTR_* environment variables)\n.SH DESCRIPTION\n");
    roff(out, intro);
    fputs("\n.PP\n", out);
    roff(out, intro2);
    fputs("\n.PP\n", out);
    roff(out, intro3);
    fputs("\n.PP\n", out);
    {
        char list[1024];

        unsupported_list(list, sizeof list);
        roff(out, unsupported_intro);
        roff_plain(out, list);
        fputs(".\n", out);
    }
    fputs(".PP\n.B vftr-config \\-\\-default\nprints the defaults as a configuration file;\n"
          ".B vftr-config \\-\\-check\n.I FILE\nchecks a file.\n.SH VALUE TYPES\n", out);
}

static void man_type(FILE *out, const char *name, const char *syntax)
{
    fprintf(out, ".TP\n.B %s\n", name);
    roff_plain(out, syntax);
    fputc('\n', out);
}

static void man_section(FILE *out, const char *sect)
{
    if (*sect)
        fprintf(out, ".SH SECTION %s\n", sect);
    else
        fprintf(out, ".SH TOP LEVEL KEYS\n");
}

static void man_key(FILE *out, const struct key_text *kt)
{
    const struct vftr_config_key *k = kt->key;
    bool ranged = kt->range[0] != '\0';

    fprintf(out, ".TP\n.B %s%s\n", k->path, k->vftr_only ? " (vftr)" : "");
    fprintf(out, "Type: %s%s", vftr_config_type_name(k->type), ranged ? " (" : "");
    roff(out, kt->range);
    fprintf(out, "%s.\nDefault: \\fB", ranged ? ")" : "");
    roff(out, kt->def);
    fputs("\\fR", out);
    if (k->vftrace_def) {
        fputs(" (Vftrace: ", out);
        roff(out, k->vftrace_def);
        fputs(")", out);
    }
    fprintf(out, ".\nEnvironment: \\fB%s\\fR.\n", kt->env);
    if (k->vftrace_path) {
        char env[256];

        vftr_config_vftrace_env_name(k, env, sizeof env);
        fputs("Vftrace's name, read as well: \\fB", out);
        roff(out, k->vftrace_path);
        fprintf(out, "\\fR (\\fB%s\\fR).\n", env);
    }
    fputs(".br\n", out);
    roff(out, k->help);
    fputc('\n', out);
}

static void man_tail(FILE *out)
{
    fputs(".SH SEE ALSO\n.BR vftr-config (1),\n.BR vftr-run (1)\n", out);
}

static const struct ref_format man = { man_head, man_type, man_section, man_key, man_tail };

/* --------------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    int want_default = 0, want_check = 0, want_reference = 0, want_man = 0, want_effective = 0;
    int strict = 0;
    const struct vftr_opt opts[] = {
        { VFTR_OPT_FLAG, "default", 0, NULL,
          "print the default configuration as a JSON file", &want_default, 1, NULL },
        { VFTR_OPT_FLAG, "check", 0, NULL,
          "check the configuration files FILE... (ignoring the\nenvironment): advisor "
          "suggestions and errors with\nfile and line", &want_check, 1, NULL },
        { VFTR_OPT_FLAG, "strict", 0, NULL, "with --check: warnings make a file invalid too",
          &strict, 1, NULL },
        { VFTR_OPT_FLAG, "effective", 0, NULL,
          "print the configuration capture would use here\n($VFTR_CONFIG and VFTR_* variables)",
          &want_effective, 1, NULL },
        { VFTR_OPT_FLAG, "reference", 0, NULL,
          "print the reference of every key (Markdown)", &want_reference, 1, NULL },
        { VFTR_OPT_FLAG, "man", 0, NULL, "print the reference as a man page (section 5)",
          &want_man, 1, NULL },
        VFTR_OPT_TABLE_END,
    };
    const struct vftr_tool tool = {
        TOOL, VFTR_VERSION, "MODE [FILE]...",
        "Print, check and document the configuration of vftr's capture library.",
        "Exactly one of --default, --check, --effective, --reference, --man.\n"
        "\n"
        "Exit status: 0 ok (--check: every file valid, warnings allowed),\n"
        "1 a file is invalid or output failed, 2 bad command line.\n",
        opts,
    };
    int first, rc, modes;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc < 0)
        return rc == -EINVAL ? VFTR_EXIT_USAGE : VFTR_EXIT_ERROR;
    modes = want_default + want_check + want_reference + want_man + want_effective;
    if (modes != 1)
        return vftr_tool_usage_fail(&tool, stderr, modes ? "give only one of --default, "
                                    "--check, --effective, --reference, --man"
                                    : "give one of --default, --check, --effective, "
                                    "--reference, --man");
    if (strict && !want_check)
        return vftr_tool_usage_fail(&tool, stderr, "--strict goes with --check");
    if (want_check && first >= argc)
        return vftr_tool_usage_fail(&tool, stderr, "--check needs at least one FILE");
    if (!want_check && first < argc)
        return vftr_tool_usage_fail(&tool, stderr, "extra operand '%s'", argv[first]);

    if (want_check) {
        int status = VFTR_EXIT_OK;
        for (int i = first; i < argc; i++)
            if (check_file(argv[i], strict) != VFTR_EXIT_OK)
                status = VFTR_EXIT_ERROR;
        return fflush(stdout) == 0 ? status : VFTR_EXIT_ERROR;
    }

    struct vftr_config cfg;
    if (want_effective && special_file(getenv("VFTR_CONFIG")))
        return vftr_tool_fail(&tool, stderr, "VFTR_CONFIG=%s: is %s, expected a JSON "
                              "configuration file (a regular file)", getenv("VFTR_CONFIG"),
                              special_file(getenv("VFTR_CONFIG")));
    if (want_default || want_effective) {
        rc = want_default ? vftr_config_init(&cfg)
                          : vftr_config_load(&cfg, NULL, NULL, NULL, NULL);
        if (rc == -ENOMEM)
            return vftr_tool_fail(&tool, stderr, "out of memory");
        rc = vftr_config_print_json(&cfg, stdout);
        vftr_config_release(&cfg);
    } else if (want_reference) {
        rc = print_reference(stdout, &markdown);
    } else {
        rc = print_reference(stdout, &man);
    }
    if (rc == 0 && fflush(stdout) != 0)
        rc = -EIO;
    if (rc < 0)
        return vftr_tool_fail(&tool, stderr, "cannot write the output (%s)", strerror(-rc));
    return VFTR_EXIT_OK;
}
