/*
 * otf_parse.h — parsing one record line in place.  The generated record
 * parsers call these; a line is [p, end) with *end == '\n' (the reader
 * guarantees that terminator, adding one after a last line without it).
 * Strings are NUL-terminated in place, so a line is parsed once.
 *
 * Every parse_* returns 1 on success and 0 on malformed input, leaving the
 * cursor where the problem is (for the error message).
 */
#ifndef VFTR_OTF_PARSE_H
#define VFTR_OTF_PARSE_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "OTF_HandlerArray.h"
#include "OTF_KeyValue.h"
#include "otf_internal.h"

/* Returned by a parser for a malformed record (handlers return >= 0). */
#define VFTR_OTF_PARSE_ERROR INT_MIN

typedef struct vftr_otf_parse {
    char* line;              /* start of the current line */
    char* p;                 /* cursor */
    char* end;               /* the line's '\n' */
    uint64_t time;           /* state machine */
    uint32_t process;
    uint32_t stream;         /* stream id passed to definition handlers */
    OTF_KeyValueList* kv;    /* owned by the reader; pairs of the next record */
    uint32_t* arr;           /* scratch for arrays, owned by the reader */
    uint32_t arrcap;
    const char* file;        /* for messages */
    uint64_t offset;         /* file offset of `line` (of its segment when compressed) */
} vftr_otf_parse;

/* Value of a hex digit, or 16 for anything else (only lower case counts). */
extern const uint8_t vftr_otf_hexval[256];

static inline VFTR_OTF_ALWAYS_INLINE void vftr_otf_parse_blanks(vftr_otf_parse* ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static inline VFTR_OTF_ALWAYS_INLINE int vftr_otf_parse_u64(vftr_otf_parse* ps, uint64_t* out)
{
    vftr_otf_parse_blanks(ps);
    const unsigned char* s = (const unsigned char*)ps->p;
    uint64_t v = 0;
    unsigned d = vftr_otf_hexval[*s];
    if (d > 15)
        return 0;
    /* One or two digits (most ids in a trace): chosen without a branch, as
     * the length varies from record to record.  s[1] and s[2] exist: the
     * line ends with '\n' (not a digit) and the buffer has slack after it. */
    {
        unsigned d1 = vftr_otf_hexval[s[1]];
        unsigned two = d1 <= 15;
        unsigned d2 = vftr_otf_hexval[s[1 + two]];
        if (OTF_LIKELY(d2 > 15)) {
            *out = two ? (uint64_t)(d << 4 | d1) : (uint64_t)d;
            ps->p = (char*)s + 1 + two;
            return 1;
        }
    }
    int n = 0;
    do {
        v = (v << 4) | d;
        s++;
        n++;
        d = vftr_otf_hexval[*s];
    } while (d <= 15);
    if (n > 16) {
        /* leading zeros are harmless; more significant digits are not */
        const unsigned char* q = (const unsigned char*)ps->p;
        while (*q == '0' && n > 16) {
            q++;
            n--;
        }
        if (n > 16)
            return 0;
    }
    ps->p = (char*)s;
    *out = v;
    return 1;
}

static inline VFTR_OTF_ALWAYS_INLINE int vftr_otf_parse_u32(vftr_otf_parse* ps, uint32_t* out)
{
    uint64_t v;
    char* start = ps->p;
    if (!vftr_otf_parse_u64(ps, &v))
        return 0;
    if (v > UINT32_MAX) {
        ps->p = start;
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

/* Is the next token a value (a hex digit)? */
static inline VFTR_OTF_ALWAYS_INLINE int vftr_otf_parse_at_value(vftr_otf_parse* ps)
{
    vftr_otf_parse_blanks(ps);
    return vftr_otf_hexval[(unsigned char)*ps->p] <= 15;
}

/* Consumes the field tag `s` (short) or `l` (long) if it is next.  A long
 * tag must not be followed by another upper-case letter; a short tag may be
 * (an empty array "M" directly followed by "NM"). */
static inline VFTR_OTF_ALWAYS_INLINE int vftr_otf_parse_tag(vftr_otf_parse* ps, const char* s, size_t sl,
                                     const char* l, size_t ll)
{
    vftr_otf_parse_blanks(ps);
    if ((size_t)(ps->end - ps->p) >= ll && memcmp(ps->p, l, ll) == 0 &&
        !(ps->p[ll] >= 'A' && ps->p[ll] <= 'Z')) {
        ps->p += ll;
        return 1;
    }
    if ((size_t)(ps->end - ps->p) >= sl && memcmp(ps->p, s, sl) == 0) {
        ps->p += sl;
        return 1;
    }
    return 0;
}

static inline int vftr_otf_parse_string(vftr_otf_parse* ps, const char** out)
{
    vftr_otf_parse_blanks(ps);
    if (*ps->p != '"')
        return 0;
    char* s = ps->p + 1;
    char* q = memchr(s, '"', (size_t)(ps->end - s));
    if (q == NULL)
        return 0;
    *q = '\0';
    *out = s;
    ps->p = q + 1;
    return 1;
}

static inline VFTR_OTF_ALWAYS_INLINE int vftr_otf_parse_end(vftr_otf_parse* ps)
{
    vftr_otf_parse_blanks(ps);
    return ps->p == ps->end || (*ps->p == '\r' && ps->p + 1 == ps->end);
}

/* "(hex,)*" into ps->arr.  1 ok. */
int vftr_otf_parse_array(vftr_otf_parse* ps, uint32_t* n, const uint32_t** out);
/* "<major>.<minor>.<sub>"<string>"" of DefVersion.  1 ok. */
int vftr_otf_parse_version(vftr_otf_parse* ps, uint8_t* major, uint8_t* minor, uint8_t* sub,
                           const char** string);
/* A key-value line after its "K"/"KEY": appends the pair to ps->kv.  1 ok,
 * 0 malformed (otf_errno set). */
int vftr_otf_parse_kv(vftr_otf_parse* ps);
/* Records a malformed-record error (file, offset, what) and returns
 * VFTR_OTF_PARSE_ERROR. */
int vftr_otf_parse_fail(vftr_otf_parse* ps, const char* what);

#endif /* VFTR_OTF_PARSE_H */
