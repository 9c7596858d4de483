/*
 * config_print.c — the configuration as JSON (see config.h).
 *
 * The output is what a configuration file looks like: sections as nested
 * objects, keys in the order of the key table, two spaces of indentation.
 * Whatever is printed parses back to the same values (doubles are written
 * with the fewest digits that read back exactly; sizes that are a whole
 * number of KiB, MiB, GiB or TiB with that unit).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* Appends to buf as snprintf would at buf + *used, tracking the full length. */
static void put(char *buf, size_t size, size_t *used, const char *s, size_t n)
{
    if (*used < size) {
        size_t room = size - *used - 1;
        size_t k = n < room ? n : room;
        memcpy(buf + *used, s, k);
        buf[*used + k] = '\0';
    }
    *used += n;
}

/* s as a JSON string literal. */
static size_t json_string(const char *s, char *buf, size_t size)
{
    size_t used = 0;

    if (size)
        buf[0] = '\0';
    put(buf, size, &used, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"':  put(buf, size, &used, "\\\"", 2); break;
        case '\\': put(buf, size, &used, "\\\\", 2); break;
        case '\b': put(buf, size, &used, "\\b", 2); break;
        case '\f': put(buf, size, &used, "\\f", 2); break;
        case '\n': put(buf, size, &used, "\\n", 2); break;
        case '\r': put(buf, size, &used, "\\r", 2); break;
        case '\t': put(buf, size, &used, "\\t", 2); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                put(buf, size, &used, esc, 6);
            } else {
                put(buf, size, &used, (const char *)p, 1);
            }
        }
    }
    put(buf, size, &used, "\"", 1);
    return used;
}

/* The shortest %g form that strtod reads back as d. */
static size_t shortest_double(double d, char *buf, size_t size)
{
    char tmp[40];

    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    return (size_t)snprintf(buf, size, "%s", tmp);
}

static size_t size_text(uint64_t v, char *buf, size_t size)
{
    static const struct { const char *name; unsigned shift; } units[] = {
        { "TiB", 40 }, { "GiB", 30 }, { "MiB", 20 }, { "KiB", 10 },
    };

    if (v)
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (v % (1ull << units[i].shift) == 0)
                return (size_t)snprintf(buf, size, "\"%" PRIu64 " %s\"", v >> units[i].shift,
                                        units[i].name);
    /* JSON numbers go through a double: above 2^53 write the digits as a
     * string so that no byte is lost. */
    if (v > (1ull << 53))
        return (size_t)snprintf(buf, size, "\"%" PRIu64 "\"", v);
    return (size_t)snprintf(buf, size, "%" PRIu64, v);
}

size_t vftr_config_format_value(const struct vftr_config *cfg, const struct vftr_config_key *key,
                                char *buf, size_t size)
{
    const void *f = (const char *)cfg + key->offset;

    switch (key->type) {
    case VFTR_CONFIG_BOOL:
        return (size_t)snprintf(buf, size, "%s", *(const bool *)f ? "true" : "false");
    case VFTR_CONFIG_INT:
        return (size_t)snprintf(buf, size, "%d", *(const int *)f);
    case VFTR_CONFIG_UINT64:
        return (size_t)snprintf(buf, size, "%" PRIu64, *(const uint64_t *)f);
    case VFTR_CONFIG_DOUBLE:
        return shortest_double(*(const double *)f, buf, size);
    case VFTR_CONFIG_SIZE:
        return size_text(*(const uint64_t *)f, buf, size);
    case VFTR_CONFIG_STRING:
    case VFTR_CONFIG_PATH: {
        const char *s = *(char *const *)f;
        return s ? json_string(s, buf, size) : (size_t)snprintf(buf, size, "null");
    }
    case VFTR_CONFIG_RANKS: {
        const struct vftr_rangelist *r = f;
        size_t n = vftr_rangelist_format(r, NULL, 0);
        char *text = malloc(n + 1);
        size_t len;
        if (!text)
            return (size_t)snprintf(buf, size, "\"?\"");
        vftr_rangelist_format(r, text, n + 1);
        len = json_string(text, buf, size);
        free(text);
        return len;
    }
    case VFTR_CONFIG_REGEX: {
        const struct vftr_regex *re = *(struct vftr_regex *const *)f;
        return re ? json_string(vftr_regex_pattern(re), buf, size)
                  : (size_t)snprintf(buf, size, "null");
    }
    case VFTR_CONFIG_SORT:
        return (size_t)snprintf(buf, size, "\"%s\"",
                                vftr_sort_column_name(*(const enum vftr_sort_column *)f));
    case VFTR_CONFIG_CLOCK:
        return (size_t)snprintf(buf, size, "\"%s\"", vftr_clock_name(*(const enum vftr_clock *)f));
    }
    return (size_t)snprintf(buf, size, "null");
}

/* Number of leading path components (sections) that a and b share. */
static size_t common_sections(const char *a, const char *b)
{
    size_t n = 0;

    for (;;) {
        const char *da = strchr(a, '.'), *db = strchr(b, '.');
        if (!da || !db || da - a != db - b || strncmp(a, b, (size_t)(da - a)) != 0)
            return n;
        n++;
        a = da + 1;
        b = db + 1;
    }
}

static size_t depth_of(const char *path)
{
    size_t n = 0;

    for (; *path; path++)
        n += *path == '.';
    return n;
}

int vftr_config_print_json(const struct vftr_config *cfg, FILE *out)
{
    const struct vftr_config_key *keys;
    const char *prev = "";
    size_t n, open = 0;     /* sections open now */
    bool first = true;      /* nothing printed yet in the innermost object */

    keys = vftr_config_keys(&n);
    fputs("{", out);
    for (size_t i = 0; i < n; i++) {
        const char *path = keys[i].path;
        size_t keep = common_sections(prev, path), want = depth_of(path);
        const char *leaf = path;
        char *value;
        size_t len;

        while (open > keep) {                        /* close finished sections */
            fprintf(out, "\n%*s}", (int)(2 * open), "");
            open--;
            first = false;
        }
        for (size_t d = 0; d < keep; d++)
            leaf = strchr(leaf, '.') + 1;
        while (open < want) {                        /* open new ones */
            const char *dot = strchr(leaf, '.');
            fprintf(out, "%s\n%*s\"%.*s\": {", first ? "" : ",", (int)(2 * open + 2), "",
                    (int)(dot - leaf), leaf);
            leaf = dot + 1;
            open++;
            first = true;
        }
        len = vftr_config_format_value(cfg, &keys[i], NULL, 0);
        value = malloc(len + 1);
        if (!value)
            return -ENOMEM;
        vftr_config_format_value(cfg, &keys[i], value, len + 1);
        fprintf(out, "%s\n%*s\"%s\": %s", first ? "" : ",", (int)(2 * open + 2), "", leaf, value);
        free(value);
        first = false;
        prev = path;
    }
    while (open > 0) {
        fprintf(out, "\n%*s}", (int)(2 * open), "");
        open--;
    }
    fputs("\n}\n", out);
    return ferror(out) ? -EIO : 0;
}
