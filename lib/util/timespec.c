/*
 * timespec.c — parsing of times and time ranges (syntax in timespec.h).
 *
 * A time with a unit is the exact fraction N / D seconds scaled by the unit,
 * where N is the digits without the decimal point and D = unit divisor *
 * 10^(decimal places).  The tick count is N * resolution / D, rounded.  To
 * keep that exact without floating point we work in unsigned 128-bit
 * integers and bound D by 10^18: then the remainder term r * resolution
 * (r < D, resolution < 2^64) stays below 2^124 and cannot overflow.  The
 * bound only limits decimal places far below a tick of any real timer (18
 * for seconds, 9 for nanoseconds).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "timespec.h"

typedef unsigned __int128 u128;

/* Longest quoted input in a message; the rest is cut. */
#define QUOTE_MAX 64

/* Largest product unit divisor * 10^places we allow (see above). */
#define DIVISOR_MAX 1000000000000000000ull

struct unit {
    const char *name;
    uint64_t    divisor;    /* units per second */
};

static const struct unit units[] = {
    { "s",  1ull },
    { "ms", 1000ull },
    { "us", 1000000ull },
    { "ns", 1000000000ull },
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Narrows [*s, *e) to its non-blank part. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && is_blank(**s))
        (*s)++;
    while (*e > *s && is_blank((*e)[-1]))
        (*e)--;
}

static const struct unit *find_unit(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == len && memcmp(units[i].name, s, len) == 0)
            return &units[i];
    return NULL;
}

/*
 * Converts the time in [s, e) (already trimmed) to a tick offset from the
 * first time stamp.  Works on a bounded span rather than a C string so that
 * the range parser can hand over either side of "A:B" without copying.
 */
static int parse_offset(const char *s, const char *e, uint64_t resolution,
                        const struct unit *bare, const char *noun, uint64_t *offset,
                        char *err, size_t errlen)
{
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
    const char *p = s;
    uint64_t ip = 0;
    u128 frac = 0;
    unsigned places = 0;
    uint64_t pow10 = 1;
    int has_point = 0;

    if (s == e)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s '': empty", noun);
    if (!is_digit(*p))
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad %s '%.*s': expected a decimal number of %s or a number "
                           "with a unit (s, ms, us or ns)", noun, len, s,
                           bare ? "seconds" : "ticks");

    for (; p < e && is_digit(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (ip > (UINT64_MAX - d) / 10)
            return vftr_errmsg(err, errlen, -ERANGE, "bad %s '%.*s': too large", noun, len, s);
        ip = ip * 10 + d;
    }

    if (p < e && *p == '.') {
        const char *digits = ++p, *last_nonzero;
        has_point = 1;
        while (p < e && is_digit(*p))
            p++;
        if (p == digits)
            return vftr_errmsg(err, errlen, -EINVAL, "bad %s '%.*s': no digits after '.'",
                               noun, len, s);
        /* Trailing zeros carry no precision: drop them before counting the
         * decimal places against the bound. */
        last_nonzero = p;
        while (last_nonzero > digits && last_nonzero[-1] == '0')
            last_nonzero--;
        for (const char *q = digits; q < last_nonzero; q++) {
            if (places == 18)
                break;      /* checked again below, with the unit known */
            frac = frac * 10 + (unsigned)(*q - '0');
            places++;
            pow10 *= 10;
        }
        if (last_nonzero - digits > 18)
            places = 19;    /* too many for any unit */
    }

    const char *u = p;
    while (u < e && is_blank(*u))
        u++;

    const struct unit *unit = bare;
    if (u == e && !bare) {
        if (has_point)
            return vftr_errmsg(err, errlen, -EINVAL,
                               "bad %s '%.*s': a fraction needs a unit (s, ms, us or ns)",
                               noun, len, s);
        *offset = ip;
        return 0;
    }

    if (u < e)
        unit = find_unit(u, (size_t)(e - u));
    if (!unit) {
        int ulen = (int)(e - u > QUOTE_MAX ? QUOTE_MAX : e - u);
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad %s '%.*s': unknown unit '%.*s' (expected s, ms, us or ns)",
                           noun, len, s, ulen, u);
    }
    if (resolution == 0)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad %s '%.*s': the timer resolution is unknown, give plain ticks",
                           noun, len, s);

    /* Decimal places allowed with this unit: 18 minus the unit's own digits. */
    unsigned max_places = 0;
    for (uint64_t d = unit->divisor; d * 10 <= DIVISOR_MAX; d *= 10)
        max_places++;
    if (places > max_places)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad %s '%.*s': too many decimal places (at most %u with '%s')",
                           noun, len, s, max_places, unit->name);

    u128 num = (u128)ip * pow10 + frac;
    u128 den = (u128)unit->divisor * pow10;
    u128 whole = num / den, rest = num % den;

    if (whole > UINT64_MAX)
        return vftr_errmsg(err, errlen, -ERANGE, "bad %s '%.*s': too large", noun, len, s);
    u128 ticks = whole * resolution;
    /* rest * resolution / den, rounded half up: (2 * rest * res + den) / (2 den). */
    ticks += (2 * rest * resolution + den) / (2 * den);
    if (ticks > UINT64_MAX)
        return vftr_errmsg(err, errlen, -ERANGE, "bad %s '%.*s': too large", noun, len, s);
    *offset = (uint64_t)ticks;
    return 0;
}

/* Parses the trimmed time in [s, e) and adds the first time stamp. */
static int parse_absolute(const char *s, const char *e, const struct vftr_timebase *base,
                          uint64_t *ticks, char *err, size_t errlen)
{
    uint64_t offset = 0;
    int rc = parse_offset(s, e, base->resolution, NULL, "time", &offset, err, errlen);

    if (rc < 0)
        return rc;
    if (offset > UINT64_MAX - base->first) {
        int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);
        return vftr_errmsg(err, errlen, -ERANGE,
                           "bad time '%.*s': too large (beyond the end of 64-bit time)", len, s);
    }
    *ticks = base->first + offset;
    return 0;
}

int vftr_time_parse(const char *spec, const struct vftr_timebase *base, uint64_t *ticks,
                    char *err, size_t errlen)
{
    if (!spec || !base || !ticks)
        return vftr_errmsg(err, errlen, -EINVAL, "bad time: no time given");

    const char *s = spec, *e = spec + strlen(spec);
    trim(&s, &e);
    return parse_absolute(s, e, base, ticks, err, errlen);
}

int vftr_time_check(const char *spec, char *err, size_t errlen)
{
    /* One tick per second is the coarsest resolution there is: what
     * overflows at it overflows at every resolution. */
    static const struct vftr_timebase coarsest = { 1, 0 };
    uint64_t t;

    return vftr_time_parse(spec, &coarsest, &t, err, errlen);
}

int vftr_timerange_parse(const char *spec, const struct vftr_timebase *base,
                         struct vftr_timerange *range, char *err, size_t errlen)
{
    if (!spec || !base || !range)
        return vftr_errmsg(err, errlen, -EINVAL, "bad time range: no range given");

    const char *end = spec + strlen(spec);
    const char *colon = strchr(spec, ':');
    int len = (int)(end - spec > QUOTE_MAX ? QUOTE_MAX : end - spec);
    struct vftr_timerange r = { 0, UINT64_MAX };
    int rc;

    if (!colon) {
        /* A lone time is most often a typo inside the time itself: report
         * that first, the missing ':' only for a time that parses. */
        const char *s = spec, *e = end;
        uint64_t ignored;
        trim(&s, &e);
        if ((rc = parse_absolute(s, e, base, &ignored, err, errlen)) < 0)
            return rc;
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad time range '%.*s': expected A:B (either side may be empty)",
                           len, spec);
    }
    if (strchr(colon + 1, ':'))
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad time range '%.*s': more than one ':'", len, spec);

    const char *as = spec, *ae = colon, *bs = colon + 1, *be = end;
    trim(&as, &ae);
    trim(&bs, &be);
    if (as < ae && (rc = parse_absolute(as, ae, base, &r.start, err, errlen)) < 0)
        return rc;
    if (bs < be && (rc = parse_absolute(bs, be, base, &r.end, err, errlen)) < 0)
        return rc;
    if (r.end <= r.start)
        return vftr_errmsg(err, errlen, -EINVAL,
                           "bad time range '%.*s': the end is not after the start", len, spec);
    *range = r;
    return 0;
}

int vftr_duration_parse(const char *spec, uint64_t min_ns, uint64_t max_ns, const char *what,
                        uint64_t *ns, char *err, size_t errlen)
{
    uint64_t v;
    int rc;

    if (!what)
        what = "duration";
    if (!spec)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s: no duration given", what);

    const char *s = spec, *e = spec + strlen(spec);
    int len = (int)(e - s > QUOTE_MAX ? QUOTE_MAX : e - s);

    trim(&s, &e);
    rc = parse_offset(s, e, 1000000000u, &units[0], what, &v, err, errlen);
    if (rc == -ERANGE)          /* beyond 64 bits of ns: say the bound too */
        v = UINT64_MAX;
    else if (rc < 0)
        return rc;
    if (v > max_ns || v < min_ns) {
        char bound[64];

        vftr_duration_format(v > max_ns ? max_ns : min_ns, bound, sizeof bound);
        return vftr_errmsg(err, errlen, -ERANGE, "bad %s '%.*s': too %s (at %s %s)", what, len,
                           spec, v > max_ns ? "long" : "short", v > max_ns ? "most" : "least",
                           bound);
    }
    *ns = v;
    return 0;
}

size_t vftr_duration_format(uint64_t ns, char *buf, size_t size)
{
    /* the largest unit that shows the value exactly */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        uint64_t per = 1000000000u / units[i].divisor;     /* ns per unit */

        if (ns % per == 0 || i + 1 == sizeof units / sizeof units[0]) {
            int n = snprintf(buf, size, "%" PRIu64 "%s", ns / per, units[i].name);
            return n < 0 ? 0 : (size_t)n;
        }
    }
    return 0;
}
