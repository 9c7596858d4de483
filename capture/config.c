/*
 * config.c — defaults, JSON file, environment, advisor and validation of the
 * capture configuration (see config.h).
 *
 * Every value, whether a default from the key table, an environment variable
 * or a JSON value, ends up as text in parse_text(): one parser per type, so
 * the three sources cannot disagree on what a value means.  JSON values are
 * type-checked first (a string "true" is not a boolean in a JSON file) and
 * then turned into that text.
 *
 * A value is parsed into a union first and stored only when it is valid, so
 * a rejected value leaves the key as it was ("fall back").
 *
 * cJSON does not keep the positions of keys.  The file is valid JSON once
 * cJSON accepted it, so a trivial scan that records where each object key
 * starts, in document order, lines up one to one with a pre-order walk of
 * cJSON's tree (duplicates included, since cJSON keeps them in order): the
 * walk takes the next position for every key it meets, known or not.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "util/errmsg.h"
#include "util/levenshtein.h"
#include "util/number.h"

extern char **environ;

/* A configuration file is a few KiB; anything much larger is not one. */
#define MAX_FILE_SIZE (4u << 20)
#define MSG_MAX 1024
/* Longest key path that can name a key (the table's are far shorter). */
#define PATH_MAX_LEN 256
/* Longest piece of user input quoted in a message. */
#define QUOTE 64

union value {
    bool b;
    int i;
    uint64_t u;
    double d;
    char *s;
    struct vftr_rangelist r;
    struct vftr_regex *re;
    enum vftr_sort_column col;
    enum vftr_clock clk;
};

struct keypos {
    unsigned line, column;
};

struct loader {
    struct vftr_config *cfg;
    vftr_config_report_fn *report;
    void *arg;
    const char *file;           /* name for messages */
    struct keypos *pos;         /* object keys of the file in document order */
    size_t npos, next;
    unsigned *given_line;       /* per table key: line it was set in the file, 0 = not */
    const char **given_as;      /* per table key: the name the file set it by */
    unsigned char *given_env;   /* per table key: set by its environment variable, 1 by
                                   the vftr name, 2 by Vftrace's (key_name(k, given - 1)) */
    bool failed;                /* an error that switches capture off */
    bool nomem;
};

/* ------------------------------------------------------------------ messages */

static void default_report(void *arg, int severity, const char *message)
{
    (void)arg;
    fprintf(stderr, "vftr: %s: %s\n", severity == VFTR_CONFIG_ERROR ? "error" : "warning",
            message);
}

static void say(struct loader *L, int severity, const char *fmt, ...) VFTR_PRINTF(3, 4);

static void say(struct loader *L, int severity, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    (L->report ? L->report : default_report)(L->arg, severity, msg);
}

/* "FILE: line L, column C: " for a key position (line 0: "FILE: "). */
static void where(const struct loader *L, struct keypos p, char *buf, size_t len)
{
    if (p.line)
        snprintf(buf, len, "%s: line %u, column %u: ", L->file, p.line, p.column);
    else
        snprintf(buf, len, "%s: ", L->file);
}

/* ------------------------------------------------------------------ helpers */

static void *field(struct vftr_config *cfg, const struct vftr_config_key *k)
{
    return (char *)cfg + k->offset;
}

static bool nullable(const struct vftr_config_key *k)
{
    return (k->type == VFTR_CONFIG_STRING || k->type == VFTR_CONFIG_REGEX) && !k->def;
}

/* Copies s with blanks cut at both ends into buf (cut to len). */
static const char *trimmed(const char *s, char *buf, size_t len)
{
    const char *e;

    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    snprintf(buf, len, "%.*s", (int)(e - s), s);
    return buf;
}

/* Frees what the field f of a key of type `type` owns (strings, rank lists,
 * regexes); other types own nothing. */
static void release_field(void *f, enum vftr_config_type type)
{
    switch (type) {
    case VFTR_CONFIG_STRING:
    case VFTR_CONFIG_PATH:
        free(*(char **)f);
        break;
    case VFTR_CONFIG_RANKS:
        vftr_rangelist_release(f);
        break;
    case VFTR_CONFIG_REGEX:
        vftr_regex_free(*(struct vftr_regex **)f);
        break;
    default:
        break;
    }
}

/* Moves v into the field of k (freeing what was there). */
static void store(struct vftr_config *cfg, const struct vftr_config_key *k, union value *v)
{
    void *f = field(cfg, k);

    release_field(f, k->type);
    switch (k->type) {
    case VFTR_CONFIG_BOOL:   *(bool *)f = v->b; break;
    case VFTR_CONFIG_INT:    *(int *)f = v->i; break;
    case VFTR_CONFIG_UINT64:
    case VFTR_CONFIG_SIZE:   *(uint64_t *)f = v->u; break;
    case VFTR_CONFIG_DOUBLE: *(double *)f = v->d; break;
    case VFTR_CONFIG_STRING:
    case VFTR_CONFIG_PATH:   *(char **)f = v->s; break;
    case VFTR_CONFIG_RANKS:  *(struct vftr_rangelist *)f = v->r; break;
    case VFTR_CONFIG_REGEX:  *(struct vftr_regex **)f = v->re; break;
    case VFTR_CONFIG_SORT:  *(enum vftr_sort_column *)f = v->col; break;
    case VFTR_CONFIG_CLOCK: *(enum vftr_clock *)f = v->clk; break;
    }
}

/* ------------------------------------------------------------ value parsers */

static int parse_bool(const char *t, bool *out)
{
    static const char *const yes[] = { "true", "1", "yes", "on" };
    static const char *const no[] = { "false", "0", "no", "off" };

    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(t, yes[i]) == 0)
            return *out = true, 0;
        if (strcasecmp(t, no[i]) == 0)
            return *out = false, 0;
    }
    return -EINVAL;
}

/* A whole decimal number in [lo, hi]. */
static int parse_whole(const char *t, double lo, double hi, long double *out)
{
    const char *p = t;
    long double v = 0;
    bool neg = false;

    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (*p < '0' || *p > '9')
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++)
        if (v < 1e30L)                  /* far past any range; stop growing */
            v = v * 10 + (*p - '0');
    if (*p)
        return -EINVAL;
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return -ERANGE;
    *out = v;
    return 0;
}

/* "expected one of a, b, c" for a sort key, plus the closest by spelling. */
static void column_choices(const struct vftr_config_key *k, const char *got, char *msg, size_t len)
{
    const char *names[16];
    size_t n = k->nchoices < 16 ? k->nchoices : 16, best, dist, used;

    used = (size_t)snprintf(msg, len, "\"%.*s\" is not a column of this table", QUOTE, got);
    for (size_t i = 0; i < n; i++)
        names[i] = vftr_sort_column_name(k->choices[i]);
    if (vftr_levenshtein_closest(got, names, n, &best, &dist) == 0 && dist <= 3 && used < len)
        used += (size_t)snprintf(msg + used, len - used, ", did you mean \"%s\"?", names[best]);
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(msg + used, len - used, "%s%s", i ? ", " : " (expected one of: ",
                                 names[i]);
    if (used < len)
        snprintf(msg + used, len - used, ")");
}

/*
 * Parses the text form of a value of key k (NULL: null) into *v.  Returns 0,
 * -EINVAL (or -ERANGE) with what was expected in msg, or -ENOMEM.
 */
static int parse_text(const struct vftr_config_key *k, const char *text, union value *v,
                      char *msg, size_t len)
{
    char t[256];
    long double w;
    int rc;

    memset(v, 0, sizeof *v);
    if (!text) {
        if (nullable(k))
            return 0;
        snprintf(msg, len, "null is not allowed here");
        return -EINVAL;
    }
    trimmed(text, t, sizeof t);
    switch (k->type) {
    case VFTR_CONFIG_BOOL:
        if (parse_bool(t, &v->b) == 0)
            return 0;
        snprintf(msg, len, "expected true or false, got \"%.*s\"", QUOTE, t);
        return -EINVAL;
    case VFTR_CONFIG_INT:
    case VFTR_CONFIG_UINT64:
        if (parse_whole(t, k->min, k->max, &w) == 0) {
            if (k->type == VFTR_CONFIG_INT)
                v->i = (int)w;
            else
                v->u = (uint64_t)w;
            return 0;
        }
        snprintf(msg, len, "expected a whole number from %.0f to %.0f, got %.*s", k->min, k->max,
                 QUOTE, t);
        return -EINVAL;
    case VFTR_CONFIG_DOUBLE: {
        char *end;
        errno = 0;
        v->d = strtod(t, &end);
        if (end != t && !*end && isfinite(v->d) && v->d >= k->min && v->d <= k->max)
            return 0;
        snprintf(msg, len, "expected a number from %g to %g, got %.*s", k->min, k->max, QUOTE, t);
        return -EINVAL;
    }
    case VFTR_CONFIG_SIZE:
        /* The tools' own size syntax and messages (lib/util/number.h): one
         * definition of what "1.5G" means, exact and never clamped. */
        rc = vftr_size_parse(t, (uint64_t)k->min, (uint64_t)k->max, "size", &v->u, msg, len);
        return rc < 0 ? -EINVAL : 0;
    case VFTR_CONFIG_STRING:
    case VFTR_CONFIG_PATH:
        if (k->type == VFTR_CONFIG_PATH && !*text) {
            snprintf(msg, len, "expected a directory, got an empty string");
            return -EINVAL;
        }
        if (k->validate && (rc = k->validate(&text, msg, len)) < 0)
            return rc;
        if (!(v->s = strdup(text)))
            return -ENOMEM;
        return 0;
    case VFTR_CONFIG_RANKS:
        rc = vftr_rangelist_parse(&v->r, t, msg, len);
        return rc == -ENOMEM ? rc : rc < 0 ? -EINVAL : 0;
    case VFTR_CONFIG_REGEX: {
        char why[256];
        v->re = vftr_regex_new(text, why, sizeof why);
        if (v->re)
            return 0;
        if (errno == ENOMEM)
            return -ENOMEM;
        snprintf(msg, len, "regular expression \"%.*s\" does not compile: %s", QUOTE, text, why);
        return -EINVAL;
    }
    case VFTR_CONFIG_SORT:
        for (size_t i = 0; i < k->nchoices; i++)
            if (strcmp(t, vftr_sort_column_name(k->choices[i])) == 0)
                return v->col = k->choices[i], 0;
        column_choices(k, t, msg, len);
        return -EINVAL;
    case VFTR_CONFIG_CLOCK:
        if (strcmp(t, "tsc") == 0)
            return v->clk = VFTR_CLOCK_TSC, 0;
        if (strcmp(t, "monotonic") == 0)
            return v->clk = VFTR_CLOCK_MONOTONIC, 0;
        snprintf(msg, len, "expected \"tsc\" or \"monotonic\", got \"%.*s\"", QUOTE, t);
        return -EINVAL;
    }
    snprintf(msg, len, "internal error: unknown type %d", (int)k->type);
    return -EINVAL;
}

/* ------------------------------------------------------------------ defaults */

void vftr_config_release(struct vftr_config *cfg)
{
    const struct vftr_config_key *keys;
    size_t n;

    if (!cfg)
        return;
    keys = vftr_config_keys(&n);
    for (size_t i = 0; i < n; i++)
        release_field(field(cfg, &keys[i]), keys[i].type);
    memset(cfg, 0, sizeof *cfg);
}

int vftr_config_init(struct vftr_config *cfg)
{
    const struct vftr_config_key *keys;
    size_t n;

    memset(cfg, 0, sizeof *cfg);
    keys = vftr_config_keys(&n);
    for (size_t i = 0; i < n; i++) {
        char msg[MSG_MAX];
        union value v;
        int rc = parse_text(&keys[i], keys[i].def, &v, msg, sizeof msg);

        /* Only -ENOMEM can happen; a default that does not parse is a bug
         * the unit tests catch.  Either way the key table is not usable. */
        if (rc < 0) {
            vftr_config_release(cfg);
            cfg->off = true;
            return rc == -ENOMEM ? rc : -EINVAL;
        }
        store(cfg, &keys[i], &v);
    }
    return 0;
}

/* --------------------------------------------------------------- JSON file */

/* What a file of type mode is, for a message ("a FIFO"). */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a special file";
}

/* Reads the whole file into a NUL-terminated buffer.  NULL + errno; EFBIG
 * when larger than MAX_FILE_SIZE, EILSEQ when it holds a NUL byte; when
 * the file is no regular file, EINVAL and *kind says what it is (else *kind
 * is left alone).
 *
 * Only a regular file is read.  A FIFO without a writer blocks open() for
 * ever, a terminal or a pipe blocks read(): a configuration must never stop
 * the program, so the file is opened with O_NONBLOCK (which opens a FIFO
 * at once) and refused when fstat says it is anything but a regular file.
 * A socket cannot be opened at all (ENXIO); stat tells what it is. */
static char *read_file(const char *path, size_t *size, const char **kind)
{
    struct stat st;
    size_t cap = 4096, n = 0;
    char *buf = NULL;
    int e = 0, fd;

    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        e = errno;
        if (e == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            *kind = file_kind(st.st_mode);
            e = EINVAL;
        }
        errno = e;
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        *kind = file_kind(st.st_mode);
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap || !buf) {
            char *nb;
            if (buf)
                cap *= 2;
            if (!(nb = realloc(buf, cap))) {
                e = ENOMEM;
                break;
            }
            buf = nb;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            break;
        }
        n += (size_t)got;
        if (n > MAX_FILE_SIZE) {
            e = EFBIG;
            break;
        }
        if (got == 0)
            break;
    }
    close(fd);
    if (!e && memchr(buf, '\0', n))
        e = EILSEQ;
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    buf[n] = '\0';
    *size = n;
    return buf;
}

/* Line and column (both from 1, columns in bytes) of text + off. */
static struct keypos position(const char *text, size_t off)
{
    struct keypos p = { 1, 1 };

    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n')
            p.line++, p.column = 1;
        else
            p.column++;
    }
    return p;
}

/* Records the position of every object key of valid JSON, in document order. */
static int scan_keys(struct loader *L, const char *text)
{
    size_t cap = 0;
    struct keypos cur = { 1, 1 };

    for (const char *p = text; *p;) {
        if (*p != '"') {
            if (*p == '\n')
                cur.line++, cur.column = 1;
            else
                cur.column++;
            p++;
            continue;
        }
        struct keypos start = cur;
        /* A string cannot hold a raw newline in valid JSON, so only the
         * column moves inside it. */
        for (p++, cur.column++; *p && *p != '"'; p++, cur.column++)
            if (*p == '\\' && p[1])
                p++, cur.column++;
        if (*p)
            p++, cur.column++;
        const char *q = p;
        while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')
            q++;
        if (*q != ':')
            continue;
        if (L->npos == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            struct keypos *np = realloc(L->pos, ncap * sizeof *np);
            if (!np)
                return -ENOMEM;
            L->pos = np;
            cap = ncap;
        }
        L->pos[L->npos++] = start;
    }
    return 0;
}

static struct keypos next_pos(struct loader *L)
{
    struct keypos none = { 0, 0 };
    return L->next < L->npos ? L->pos[L->next++] : none;
}

/* Consumes the positions of the keys inside item (not item's own). */
static void skip_inner(struct loader *L, const cJSON *item)
{
    for (const cJSON *c = item->child; c; c = c->next) {
        if (cJSON_IsObject(item))
            next_pos(L);
        if (c->child)
            skip_inner(L, c);
    }
}

/* What a JSON value is, for messages: "the string \"8\"", "an object". */
static void describe(const cJSON *item, char *buf, size_t len)
{
    if (cJSON_IsString(item))
        snprintf(buf, len, "the string \"%.*s\"", QUOTE, item->valuestring);
    else if (cJSON_IsNumber(item))
        snprintf(buf, len, "the number %.17g", item->valuedouble);
    else if (cJSON_IsBool(item))
        snprintf(buf, len, "%s", cJSON_IsTrue(item) ? "true" : "false");
    else if (cJSON_IsNull(item))
        snprintf(buf, len, "null");
    else if (cJSON_IsArray(item))
        snprintf(buf, len, "an array");
    else if (cJSON_IsObject(item))
        snprintf(buf, len, "an object");
    else
        snprintf(buf, len, "an unknown value");
}

/*
 * The text form of a JSON value for key k, after checking its JSON type.
 * Returns 0 with *text set (NULL for null; possibly pointing into buf or
 * into item), or -EINVAL with a message.
 */
static int json_text(const struct vftr_config_key *k, const cJSON *item, char *buf, size_t len,
                     const char **text, char *msg, size_t msglen)
{
    char got[QUOTE + 32];
    const char *want;
    bool number_ok = false, string_ok = false;

    *text = NULL;
    switch (k->type) {
    case VFTR_CONFIG_BOOL:
        if (cJSON_IsBool(item)) {
            *text = cJSON_IsTrue(item) ? "true" : "false";
            return 0;
        }
        want = "true or false";
        break;
    case VFTR_CONFIG_INT:
    case VFTR_CONFIG_UINT64:
        number_ok = true;
        want = "a whole number";
        break;
    case VFTR_CONFIG_DOUBLE:
        number_ok = true;
        want = "a number";
        break;
    case VFTR_CONFIG_SIZE:
        number_ok = string_ok = true;
        want = VFTR_SIZE_SYNTAX;
        break;
    case VFTR_CONFIG_RANKS:
        number_ok = string_ok = true;
        want = "\"all\", \"none\" or a rank list such as \"0-3,7\"";
        break;
    case VFTR_CONFIG_STRING:
        string_ok = true;
        want = nullable(k) ? "a string or null" : "a string";
        break;
    case VFTR_CONFIG_PATH:
        string_ok = true;
        want = "a directory name";
        break;
    case VFTR_CONFIG_REGEX:
        string_ok = true;
        want = "a regular expression (string) or null";
        break;
    default:
        string_ok = true;
        want = "a string";
        break;
    }
    if (cJSON_IsNull(item) && nullable(k))
        return 0;
    if (string_ok && cJSON_IsString(item)) {
        *text = item->valuestring;
        return 0;
    }
    if (number_ok && cJSON_IsNumber(item)) {
        double d = item->valuedouble;
        /* Whole numbers without an exponent, so that the integer and size
         * parsers see digits; anything else as %.17g (which they reject if
         * it is not whole, and strtod reads back exactly). */
        if (d == floor(d) && fabs(d) < 1e18)
            snprintf(buf, len, "%.0f", d);
        else
            snprintf(buf, len, "%.17g", d);
        *text = buf;
        return 0;
    }
    describe(item, got, sizeof got);
    snprintf(msg, msglen, "expected %s, got %s", want, got);
    return -EINVAL;
}

/* The names of key k: its path, then its Vftrace path (NULL if none). */
static const char *key_name(const struct vftr_config_key *k, int which)
{
    return which == 0 ? k->path : k->vftrace_path;
}

/* Finds the key whose path or Vftrace path is `path`. */
static const struct vftr_config_key *find_key(const char *path)
{
    const struct vftr_config_key *keys;
    size_t n;

    keys = vftr_config_keys(&n);
    for (size_t i = 0; i < n; i++)
        for (int w = 0; w < 2; w++)
            if (key_name(&keys[i], w) && strcmp(key_name(&keys[i], w), path) == 0)
                return &keys[i];
    return NULL;
}

/* Whether some key lies below the section `path` ("profile_table.sort_table"),
 * by either of its names. */
static bool is_section(const char *path)
{
    const struct vftr_config_key *keys;
    size_t n, len = strlen(path);

    keys = vftr_config_keys(&n);
    for (size_t i = 0; i < n; i++)
        for (int w = 0; w < 2; w++) {
            const char *name = key_name(&keys[i], w);

            if (name && strncmp(name, path, len) == 0 && name[len] == '.')
                return true;
        }
    return false;
}

/* The names valid directly inside section `prefix` ("" or "sampling."):
 * keys and subsections, each once.  Returns how many were stored. */
static size_t section_names(const char *prefix, char names[][64], size_t max)
{
    const struct vftr_config_key *keys;
    size_t n, count = 0, plen = strlen(prefix);

    keys = vftr_config_keys(&n);
    for (size_t i = 0; i < 2 * n && count < max; i++) {
        const char *p = key_name(&keys[i / 2], (int)(i % 2)), *rest, *dot;
        size_t len;
        bool seen = false;

        if (p == NULL || strncmp(p, prefix, plen) != 0)
            continue;
        rest = p + plen;
        dot = strchr(rest, '.');
        len = dot ? (size_t)(dot - rest) : strlen(rest);
        if (len >= 64)
            continue;
        for (size_t j = 0; j < count; j++)
            if (strlen(names[j]) == len && strncmp(names[j], rest, len) == 0)
                seen = true;
        if (!seen) {
            memcpy(names[count], rest, len);
            names[count++][len] = '\0';
        }
    }
    return count;
}

/*
 * The advisor: `name` is not valid in section `prefix`.  Suggests the closest
 * name of that section by Levenshtein distance, or the full path of a key of
 * that name in another section ("active" at the top -> "sampling.active").
 */
static void advise(struct loader *L, struct keypos p, const char *prefix, const char *name)
{
    char names[64][64], loc[PATH_MAX_LEN + 64], section[PATH_MAX_LEN];
    const char *cand[64];
    const struct vftr_config_key *keys;
    size_t n = section_names(prefix, names, 64), nkeys, best, dist;
    const char *elsewhere = NULL;

    where(L, p, loc, sizeof loc);
    section[0] = '\0';
    if (*prefix)
        snprintf(section, sizeof section, "%.*s: ", (int)strlen(prefix) - 1, prefix);
    keys = vftr_config_keys(&nkeys);
    for (size_t i = 0; i < nkeys && !elsewhere; i++) {
        const char *leaf = strrchr(keys[i].path, '.');
        if (leaf && strcmp(leaf + 1, name) == 0)
            elsewhere = keys[i].path;
    }
    for (size_t i = 0; i < n; i++)
        cand[i] = names[i];
    if (elsewhere)
        say(L, VFTR_CONFIG_WARNING, "%s%s\"%.*s\" is not a valid option here, did you mean "
            "\"%s\"?", loc, section, QUOTE, name, elsewhere);
    else if (vftr_levenshtein_closest(name, cand, n, &best, &dist) == 0)
        say(L, VFTR_CONFIG_WARNING, "%s%s\"%.*s\" is not a valid option, did you mean \"%s\"?",
            loc, section, QUOTE, name, cand[best]);
    else
        say(L, VFTR_CONFIG_WARNING, "%s%s\"%.*s\" is not a valid option", loc, section, QUOTE,
            name);
}

/* What a Vftrace section vftr lacks is about ("CUDA profiling"), or NULL
 * when `name` is not one of them. */
static const char *unsupported_section(const char *name)
{
    const struct vftr_config_unsupported *u;
    size_t n;

    u = vftr_config_unsupported(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(u[i].section, name) == 0)
            return u[i].what;
    return NULL;
}

/* Sets key k, given as `name` (its path or Vftrace's), from JSON item
 * found at position p. */
static void apply_json(struct loader *L, const struct vftr_config_key *k, const char *name,
                       const cJSON *item, struct keypos p)
{
    const struct vftr_config_key *keys;
    char buf[64], msg[MSG_MAX], loc[PATH_MAX_LEN + 64], now[128];
    const char *text;
    union value v;
    size_t nkeys, idx;
    int rc;

    keys = vftr_config_keys(&nkeys);
    idx = (size_t)(k - keys);
    where(L, p, loc, sizeof loc);
    if (L->given_line[idx])
        say(L, VFTR_CONFIG_WARNING, "%s\"%s\" is given again (first on line %u); the last "
            "value counts", loc, name, L->given_line[idx]);
    L->given_line[idx] = p.line ? p.line : 1;

    rc = json_text(k, item, buf, sizeof buf, &text, msg, sizeof msg);
    if (rc == 0)
        rc = parse_text(k, text, &v, msg, sizeof msg);
    if (rc == -ENOMEM) {
        L->nomem = true;
        return;
    }
    if (rc < 0) {
        vftr_config_format_value(L->cfg, k, now, sizeof now);
        say(L, VFTR_CONFIG_ERROR, "%s%s: %s; using %s", loc, name, msg, now);
        return;
    }
    store(L->cfg, k, &v);
    L->given_as[idx] = name;
}

/* Applies the members of a JSON object standing for section `prefix`. */
static void walk(struct loader *L, const cJSON *obj, const char *prefix)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        struct keypos p = next_pos(L);
        char path[PATH_MAX_LEN], loc[PATH_MAX_LEN + 64];
        const struct vftr_config_key *k = NULL;
        int plen = snprintf(path, sizeof path, "%s%s", prefix, c->string);
        bool fits = plen >= 0 && (size_t)plen < sizeof path;

        if (fits)
            k = find_key(path);
        if (k) {
            apply_json(L, k, k->vftrace_path && strcmp(path, k->vftrace_path) == 0
                       ? k->vftrace_path : k->path, c, p);
            skip_inner(L, c);
        } else if (fits && is_section(path)) {
            if (cJSON_IsObject(c)) {
                char sub[PATH_MAX_LEN + 1];
                memcpy(sub, path, (size_t)plen);
                sub[plen] = '.';
                sub[plen + 1] = '\0';
                walk(L, c, sub);
            } else {
                char got[QUOTE + 32];
                describe(c, got, sizeof got);
                where(L, p, loc, sizeof loc);
                say(L, VFTR_CONFIG_ERROR, "%s%s: expected a section (an object), got %s; "
                    "ignored", loc, path, got);
                skip_inner(L, c);
            }
        } else if (!*prefix && unsupported_section(c->string)) {
            where(L, p, loc, sizeof loc);
            say(L, VFTR_CONFIG_WARNING, "%s\"%s\": %s is not supported by vftr; the section "
                "is ignored", loc, c->string, unsupported_section(c->string));
            skip_inner(L, c);
        } else {
            advise(L, p, prefix, c->string);
            skip_inner(L, c);
        }
    }
}

/* Loads the file: returns 0, or -EINVAL when it cannot be used at all. */
static int load_file(struct loader *L, const char *path)
{
    const char *end = NULL;
    const char *kind = NULL;
    size_t size = 0;
    char *text;
    cJSON *root;
    int rc = 0;

    text = read_file(path, &size, &kind);
    if (!text) {
        int e = errno;
        if (e == ENOMEM)
            return L->nomem = true, -ENOMEM;
        if (e == EFBIG)
            say(L, VFTR_CONFIG_ERROR, "%s: larger than %u bytes, not a configuration file; "
                "capture switched off", path, MAX_FILE_SIZE);
        else if (kind != NULL)
            say(L, VFTR_CONFIG_ERROR, "%s: %s, not a regular file; capture switched off", path,
                kind);
        else if (e == EILSEQ)
            say(L, VFTR_CONFIG_ERROR, "%s: holds a NUL byte, not a JSON file; capture switched "
                "off", path);
        else
            say(L, VFTR_CONFIG_ERROR, "%s: cannot read the configuration file (%s); capture "
                "switched off", path, strerror(e));
        return -EINVAL;
    }
    root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        /* cJSON's error position is approximate: often just past the token
         * at fault.  Trailing blanks mean the file ended too early; else
         * back up over blanks to the token. */
        size_t off = end && end >= text && end <= text + size ? (size_t)(end - text) : 0;
        if (text[off + strspn(text + off, " \t\r\n")] == '\0') {
            struct keypos p = position(text, size);
            say(L, VFTR_CONFIG_ERROR, "%s: line %u, column %u: not valid JSON: unexpected end "
                "of file (an unclosed '{', '[' or string?); capture switched off", path,
                p.line, p.column);
        } else {
            while (off > 0 && strchr(" \t\r\n", text[off]))
                off--;
            struct keypos p = position(text, off);
            int len = (int)strcspn(text + off, "\r\n");
            say(L, VFTR_CONFIG_ERROR, "%s: line %u, column %u: not valid JSON near '%.*s'; "
                "capture switched off", path, p.line, p.column, len < 20 ? len : 20, text + off);
        }
        free(text);
        return -EINVAL;
    }
    if (!cJSON_IsObject(root)) {
        char got[QUOTE + 32];
        describe(root, got, sizeof got);
        say(L, VFTR_CONFIG_ERROR, "%s: expected a JSON object ({ ... }) at the top, got %s; "
            "capture switched off", path, got);
        rc = -EINVAL;
    } else if (scan_keys(L, text) < 0) {
        L->nomem = true;
        rc = -ENOMEM;
    } else {
        walk(L, root, "");
    }
    cJSON_Delete(root);
    free(text);
    return rc;
}

/* ------------------------------------------------------------- environment */

/* The value of `name` in envp, or NULL. */
static const char *env_get(char *const *envp, const char *name)
{
    size_t len = strlen(name);

    for (char *const *e = envp; *e; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

static void apply_env(struct loader *L, char *const *envp)
{
    const struct vftr_config_key *keys;
    size_t n;

    keys = vftr_config_keys(&n);
    /* Vftrace's names first, so that where both are set the vftr name counts */
    for (size_t j = 0; j < 2 * n; j++) {
        size_t i = j % n;
        int which = j < n ? 1 : 0;
        const struct vftr_config_key *k = &keys[i];
        char name[PATH_MAX_LEN], msg[MSG_MAX], now[128];
        const char *value;
        union value v;
        int rc;

        if (which == 1 && !k->vftrace_path)
            continue;
        if (which == 1)
            vftr_config_vftrace_env_name(k, name, sizeof name);
        else
            vftr_config_env_name(k, name, sizeof name);
        value = env_get(envp, name);
        /* An empty variable means "not set", except that it resets a key
         * that may be null (VFTR_FILTER_INCLUDE= drops the file's filter). */
        if (!value || (!*value && !nullable(k)))
            continue;
        rc = parse_text(k, *value ? value : NULL, &v, msg, sizeof msg);
        if (rc == -ENOMEM) {
            L->nomem = true;
            return;
        }
        if (rc < 0) {
            vftr_config_format_value(L->cfg, k, now, sizeof now);
            say(L, VFTR_CONFIG_ERROR, "environment variable %s=%.*s: %s; using %s", name, QUOTE,
                value, msg, now);
            continue;
        }
        store(L->cfg, k, &v);
        L->given_env[i] = (unsigned char)(which + 1);
    }

    /* A VFTR_ variable that is almost a key's is most likely a typo.  Other
     * VFTR_ variables (VFTR_CONFIG, vftr-run's own) are left alone. */
    for (char *const *e = envp; *e; e++) {
        char name[PATH_MAX_LEN], known[PATH_MAX_LEN], best_name[PATH_MAX_LEN] = "";
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e), best = SIZE_MAX;

        if (strncmp(*e, "VFTR_", 5) != 0 || len >= sizeof name)
            continue;
        memcpy(name, *e, len);
        name[len] = '\0';
        for (size_t i = 0; i < 2 * n && best; i++) {
            size_t d;
            if (i % 2 == 0)
                vftr_config_env_name(&keys[i / 2], known, sizeof known);
            else if (vftr_config_vftrace_env_name(&keys[i / 2], known, sizeof known) == 0)
                continue;
            if (vftr_levenshtein(name, known, &d) == 0 && d < best) {
                best = d;
                snprintf(best_name, sizeof best_name, "%s", known);
            }
        }
        if (best > 0 && best <= 2)
            say(L, VFTR_CONFIG_WARNING, "environment variable %s is not a vftr option, did "
                "you mean %s?", name, best_name);
    }
}

/* -------------------------------------------------------------- validation */

/* Keys that change nothing in vftr (their no_effect text) get a warning
 * when the file or the environment gave a value other than the default. */
static void warn_no_effect(struct loader *L)
{
    const struct vftr_config_key *keys;
    struct vftr_config dflt;
    size_t n;

    if (vftr_config_init(&dflt) < 0)
        return;
    keys = vftr_config_keys(&n);
    for (size_t i = 0; i < n; i++) {
        char now[128], was[128];

        if (!keys[i].no_effect || (!L->given_line[i] && !L->given_env[i]))
            continue;
        vftr_config_format_value(L->cfg, &keys[i], now, sizeof now);
        vftr_config_format_value(&dflt, &keys[i], was, sizeof was);
        if (strcmp(now, was) == 0)
            continue;
        /* the environment overrides the file: name the source that counts */
        if (L->given_env[i]) {
            char env[PATH_MAX_LEN];
            if (L->given_env[i] == 2)
                vftr_config_vftrace_env_name(&keys[i], env, sizeof env);
            else
                vftr_config_env_name(&keys[i], env, sizeof env);
            say(L, VFTR_CONFIG_WARNING, "environment variable %s: %s = %s changes nothing in "
                "vftr: %s", env, key_name(&keys[i], L->given_env[i] - 1), now,
                keys[i].no_effect);
        } else {
            say(L, VFTR_CONFIG_WARNING, "%s: line %u: %s = %s changes nothing in vftr: %s",
                L->file, L->given_line[i], L->given_as[i] ? L->given_as[i] : keys[i].path, now,
                keys[i].no_effect);
        }
    }
    vftr_config_release(&dflt);
}

/* Checks what can only be checked once all sources are in: the output
 * directory.  Returns -EINVAL when capture must switch off. */
static int validate(struct loader *L)
{
    const char *dir = L->cfg->output_directory;
    struct stat st;

    if (stat(dir, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
        /* capture makes it, with its parents (capture/outdir.h): the
         * nearest one that exists must be a directory it may write in */
        char up[PATH_MAX_LEN * 16];
        size_t n = strlen(dir);

        if (n >= sizeof up) {
            say(L, VFTR_CONFIG_ERROR, "output_directory \"%.*s...\": longer than %zu bytes; "
                "capture switched off", QUOTE, dir, sizeof up - 1);
            return -EINVAL;
        }
        memcpy(up, dir, n + 1);
        for (;;) {
            char *slash;

            while (n > 1 && up[n - 1] == '/')
                up[--n] = '\0';
            slash = strrchr(up, '/');
            if (slash == NULL) {
                snprintf(up, sizeof up, ".");
            } else {
                slash[slash == up ? 1 : 0] = '\0';
                n = strlen(up);
            }
            if (stat(up, &st) == 0 || (errno != ENOENT && errno != ENOTDIR) || strcmp(up, ".") == 0
                || strcmp(up, "/") == 0)
                break;
        }
        if (stat(up, &st) < 0 || !S_ISDIR(st.st_mode) || access(up, W_OK | X_OK) < 0) {
            say(L, VFTR_CONFIG_ERROR, "output_directory \"%s\": does not exist and cannot be "
                "made (\"%s\" is not a directory vftr may write in); capture switched off",
                dir, up);
            return -EINVAL;
        }
        return 0;
    }
    if (stat(dir, &st) < 0) {
        int e = errno;
        say(L, VFTR_CONFIG_ERROR, "output_directory \"%s\": %s; capture switched off", dir,
            strerror(e));
        return -EINVAL;
    }
    if (!S_ISDIR(st.st_mode)) {
        say(L, VFTR_CONFIG_ERROR, "output_directory \"%s\": not a directory; capture switched "
            "off", dir);
        return -EINVAL;
    }
    if (access(dir, W_OK | X_OK) < 0) {
        say(L, VFTR_CONFIG_ERROR, "output_directory \"%s\": not writable (%s); capture "
            "switched off", dir, strerror(errno));
        return -EINVAL;
    }
    return 0;
}

int vftr_config_load(struct vftr_config *cfg, const char *path, char *const *envp,
                     vftr_config_report_fn *report, void *arg)
{
    struct loader L = { .cfg = cfg, .report = report, .arg = arg };
    size_t nkeys;
    int rc;

    if ((rc = vftr_config_init(cfg)) < 0)
        return rc;
    if (!envp)
        envp = environ;
    vftr_config_keys(&nkeys);
    L.given_line = calloc(nkeys, sizeof *L.given_line);
    L.given_env = calloc(nkeys, sizeof *L.given_env);
    L.given_as = calloc(nkeys, sizeof *L.given_as);
    if (!L.given_line || !L.given_env || !L.given_as) {
        free(L.given_line);
        free(L.given_env);
        free(L.given_as);
        cfg->off = true;
        return -ENOMEM;
    }
    if (!path)
        path = env_get(envp, "VFTR_CONFIG");
    if (path && *path) {
        L.file = path;
        if (load_file(&L, path) < 0)
            L.failed = true;
    }
    if (!L.failed && !L.nomem)
        apply_env(&L, envp);
    if (!L.failed && !L.nomem)
        warn_no_effect(&L);
    free(L.pos);
    free(L.given_line);
    free(L.given_env);
    free(L.given_as);

    if (L.nomem) {
        cfg->off = true;
        return -ENOMEM;
    }
    if (!L.failed && !cfg->off && validate(&L) < 0)
        L.failed = true;
    if (L.failed) {
        cfg->off = true;
        return -EINVAL;
    }
    return 0;
}

bool vftr_config_function_selected(const struct vftr_config *cfg, const char *name)
{
    if (cfg->filter_include && !vftr_regex_match(cfg->filter_include, name))
        return false;
    return !(cfg->filter_exclude && vftr_regex_match(cfg->filter_exclude, name));
}
