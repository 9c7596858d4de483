/*
 * scorepfilter.c — Score-P filter files (see scorepfilter.h).
 *
 * The file is cut into words first (white space separates them, `#` starts
 * a comment unless a backslash quotes it), each with its line for
 * messages; then a small state machine reads the words: outside a block
 * only a block's BEGIN, inside one INCLUDE / EXCLUDE (and MANGLED right
 * after either, in a region block), the block's END, or a pattern of the
 * rule under way.  Patterns keep their backslashes: fnmatch() takes them
 * as quotes, as Score-P's own matcher does.
 */
#include "scorepfilter.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errmsg.h"

struct rule {
    char *pattern;
    bool exclude;
    bool mangled;
};

struct vftr_scorep_filter {
    struct rule *regions, *files;
    size_t nregions, nfiles, cap_regions, cap_files;
};

static int add_rule(struct rule **v, size_t *n, size_t *cap, const char *word, size_t len,
                    bool exclude, bool mangled)
{
    char *p;

    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        struct rule *nv = realloc(*v, ncap * sizeof *nv);

        if (nv == NULL)
            return -ENOMEM;
        *v = nv;
        *cap = ncap;
    }
    p = malloc(len + 1);
    if (p == NULL)
        return -ENOMEM;
    memcpy(p, word, len);
    p[len] = '\0';
    (*v)[(*n)++] = (struct rule){ p, exclude, mangled };
    return 0;
}

void vftr_scorep_filter_free(struct vftr_scorep_filter *f)
{
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->nregions; i++)
        free(f->regions[i].pattern);
    for (size_t i = 0; i < f->nfiles; i++)
        free(f->files[i].pattern);
    free(f->regions);
    free(f->files);
    free(f);
}

static bool word_is(const char *w, size_t len, const char *kw)
{
    return strlen(kw) == len && memcmp(w, kw, len) == 0;
}

enum block { OUTSIDE, REGIONS, FILES };

struct vftr_scorep_filter *vftr_scorep_filter_parse(const char *text, size_t len, const char *name,
                                                    char *err, size_t errlen)
{
    struct vftr_scorep_filter *f = calloc(1, sizeof *f);
    enum block block = OUTSIDE;
    size_t i = 0, line = 1, block_line = 0;
    int rule = 0;              /* 0: none yet in the block, 1 INCLUDE, 2 EXCLUDE */
    bool mangled = false, may_mangle = false;
    int rc = 0;

    if (f == NULL)
        return NULL;
    if (name == NULL)
        name = "filter";
    while (rc == 0) {
        const char *w;
        size_t wl;

        /* white space and comments */
        while (i < len) {
            char c = text[i];

            if (c == '\n') {
                line++;
                i++;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
                i++;
            } else if (c == '#') {
                while (i < len && text[i] != '\n')
                    i++;
            } else if (c == '\0') {
                rc = vftr_errmsg(err, errlen, -EINVAL, "%s: line %zu: NUL byte (expected text)",
                                 name, line);
                break;
            } else {
                break;
            }
        }
        if (rc != 0 || i >= len)
            break;
        w = text + i;
        while (i < len && text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r'
               && text[i] != '\v' && text[i] != '\f' && text[i] != '\0' && text[i] != '#') {
            if (text[i] == '\\' && i + 1 < len && text[i + 1] != '\n')
                i++;   /* the quoted character belongs to the word */
            i++;
        }
        wl = (size_t)(text + i - w);

        if (block == OUTSIDE) {
            if (word_is(w, wl, "SCOREP_REGION_NAMES_BEGIN"))
                block = REGIONS;
            else if (word_is(w, wl, "SCOREP_FILE_NAMES_BEGIN"))
                block = FILES;
            else
                rc = vftr_errmsg(err, errlen, -EINVAL,
                                 "%s: line %zu: expected SCOREP_REGION_NAMES_BEGIN or "
                                 "SCOREP_FILE_NAMES_BEGIN, found '%.*s'",
                                 name, line, (int)(wl > 64 ? 64 : wl), w);
            block_line = line;
            rule = 0;
            continue;
        }
        if (word_is(w, wl, block == REGIONS ? "SCOREP_REGION_NAMES_END" : "SCOREP_FILE_NAMES_END")) {
            block = OUTSIDE;
            continue;
        }
        if (word_is(w, wl, "INCLUDE") || word_is(w, wl, "EXCLUDE")) {
            rule = w[0] == 'E' ? 2 : 1;
            mangled = false;
            may_mangle = block == REGIONS;
            continue;
        }
        if (may_mangle && word_is(w, wl, "MANGLED")) {
            mangled = true;
            may_mangle = false;
            continue;
        }
        may_mangle = false;
        if (word_is(w, wl, "SCOREP_REGION_NAMES_BEGIN") || word_is(w, wl, "SCOREP_FILE_NAMES_BEGIN")
            || word_is(w, wl, "SCOREP_REGION_NAMES_END") || word_is(w, wl, "SCOREP_FILE_NAMES_END")) {
            rc = vftr_errmsg(err, errlen, -EINVAL, "%s: line %zu: expected %s (the block of line "
                             "%zu), found '%.*s'", name, line,
                             block == REGIONS ? "SCOREP_REGION_NAMES_END" : "SCOREP_FILE_NAMES_END",
                             block_line, (int)wl, w);
            break;
        }
        if (rule == 0) {
            rc = vftr_errmsg(err, errlen, -EINVAL, "%s: line %zu: expected INCLUDE or EXCLUDE "
                             "before the pattern '%.*s'", name, line,
                             (int)(wl > 64 ? 64 : wl), w);
            break;
        }
        if (block == REGIONS)
            rc = add_rule(&f->regions, &f->nregions, &f->cap_regions, w, wl, rule == 2, mangled);
        else
            rc = add_rule(&f->files, &f->nfiles, &f->cap_files, w, wl, rule == 2, false);
        if (rc == -ENOMEM)
            vftr_errmsg(err, errlen, rc, "%s: out of memory", name);
    }
    if (rc == 0 && block != OUTSIDE)
        rc = vftr_errmsg(err, errlen, -EINVAL, "%s: line %zu: expected %s (the block of line %zu) "
                         "before the end of the file", name, line,
                         block == REGIONS ? "SCOREP_REGION_NAMES_END" : "SCOREP_FILE_NAMES_END",
                         block_line);
    if (rc != 0) {
        vftr_scorep_filter_free(f);
        errno = -rc;
        return NULL;
    }
    return f;
}

#define MAX_FILTER_FILE (16u << 20)

struct vftr_scorep_filter *vftr_scorep_filter_load(const char *path, char *err, size_t errlen)
{
    FILE *in = fopen(path, "rb");
    struct vftr_scorep_filter *f;
    struct stat st;
    char *buf;
    size_t n;
    int e;

    if (in == NULL) {
        e = errno;
        vftr_errmsg(err, errlen, -e, "%s: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode) || (uintmax_t)st.st_size > MAX_FILTER_FILE) {
        fclose(in);
        vftr_errmsg(err, errlen, -EINVAL, "%s: expected a regular file of at most 16 MiB", path);
        errno = EINVAL;
        return NULL;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        fclose(in);
        vftr_errmsg(err, errlen, -ENOMEM, "%s: out of memory", path);
        errno = ENOMEM;
        return NULL;
    }
    n = fread(buf, 1, (size_t)st.st_size, in);
    e = ferror(in) ? EIO : 0;
    fclose(in);
    if (e) {
        free(buf);
        vftr_errmsg(err, errlen, -EIO, "%s: read error", path);
        errno = EIO;
        return NULL;
    }
    f = vftr_scorep_filter_parse(buf, n, path, err, errlen);
    e = errno;
    free(buf);
    errno = e;
    return f;
}

/* The last rule of v[0, n) whose pattern matches s decides: 1 excluded,
 * 0 included, -1 no rule matched.  name / mangled per rule. */
static int decide(const struct rule *v, size_t n, const char *name, const char *mangled)
{
    for (size_t i = n; i-- > 0;) {
        const char *s = v[i].mangled ? mangled : name;

        if (fnmatch(v[i].pattern, s, 0) == 0)
            return v[i].exclude;
    }
    return -1;
}

bool vftr_scorep_filter_excludes(const struct vftr_scorep_filter *f, const char *name,
                                 const char *mangled, const char *file)
{
    if (f == NULL || name == NULL)
        return false;
    if (mangled == NULL)
        mangled = name;
    if (file != NULL && decide(f->files, f->nfiles, file, file) == 1)
        return true;
    return decide(f->regions, f->nregions, name, mangled) == 1;
}

size_t vftr_scorep_filter_region_rules(const struct vftr_scorep_filter *f)
{
    return f ? f->nregions : 0;
}

size_t vftr_scorep_filter_file_rules(const struct vftr_scorep_filter *f)
{
    return f ? f->nfiles : 0;
}
