/*
 * config_regex.c — the compiled regexes of the configuration (see config.h).
 *
 * A pcre2_code may be used by several threads at once as long as each match
 * has its own match data, so the match data is made per call.  That costs an
 * allocation, which is fine: the filters are decided once per function
 * address and the result cached by the caller, never per event.  No JIT: it
 * would map executable memory inside the measured program for a handful of
 * matches.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

struct vftr_regex {
    pcre2_code *code;
    char *pattern;
};

struct vftr_regex *vftr_regex_new(const char *pattern, char *err, size_t errlen)
{
    struct vftr_regex *re;
    int code;
    PCRE2_SIZE offset;

    if (err && errlen)
        err[0] = '\0';
    if (!pattern) {
        errno = EINVAL;
        return NULL;
    }
    re = calloc(1, sizeof *re);
    if (!re || !(re->pattern = strdup(pattern))) {
        free(re);
        errno = ENOMEM;
        return NULL;
    }
    re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
    if (!re->code) {
        if (err && errlen) {
            PCRE2_UCHAR why[256];
            if (pcre2_get_error_message(code, why, sizeof why) < 0)
                snprintf((char *)why, sizeof why, "error %d", code);
            snprintf(err, errlen, "offset %zu: %s", (size_t)offset, (const char *)why);
        }
        free(re->pattern);
        free(re);
        /* PCRE2 reports running out of memory as an error code of its own. */
        errno = code == PCRE2_ERROR_NOMEMORY ? ENOMEM : EINVAL;
        return NULL;
    }
    return re;
}

void vftr_regex_free(struct vftr_regex *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code);
    free(re->pattern);
    free(re);
}

bool vftr_regex_match(const struct vftr_regex *re, const char *s)
{
    pcre2_match_data *md;
    int rc;

    if (!re || !s)
        return false;
    md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!md)
        return false;
    rc = pcre2_match(re->code, (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

const char *vftr_regex_pattern(const struct vftr_regex *re)
{
    return re ? re->pattern : NULL;
}
