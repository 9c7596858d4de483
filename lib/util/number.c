/*
 * number.c — counts and sizes (syntax in number.h).
 *
 * Digits are accumulated in unsigned 128-bit integers, which no input of
 * interest overflows: a count or size beyond 2^64 - 1 is reported "too
 * large" like any other value above the caller's maximum instead of being
 * clamped (strtoull's habit, which let 99999999999999999999 through as
 * 2^64 - 1).  Digits past the 39th only make a number larger, so they are
 * counted, not accumulated.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "number.h"

typedef unsigned __int128 u128;

#define QUOTE_MAX 64
/* At most this many fraction digits are kept (1.5 = 15 / 10^1); beyond it
 * no unit leaves a whole number of bytes anyway. */
#define FRACTION_MAX 18
/* A bound for the integer part: anything above is "too large" for every
 * caller (they take uint64_t), and it leaves room for * 2^40 in 128 bits. */
#define HUGE_VALUE ((u128)1 << 80)

struct unit {
    const char *name;
    uint64_t factor;
};

static const struct unit size_units[] = {
    { "B", 1 },
    { "K", 1ull << 10 }, { "KiB", 1ull << 10 }, { "KB", 1000ull },
    { "M", 1ull << 20 }, { "MiB", 1ull << 20 }, { "MB", 1000000ull },
    { "G", 1ull << 30 }, { "GiB", 1ull << 30 }, { "GB", 1000000000ull },
    { "T", 1ull << 40 }, { "TiB", 1ull << 40 }, { "TB", 1000000000000ull },
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The quoted input of a message: at most QUOTE_MAX bytes. */
static int quote_len(const char *s)
{
    size_t n = strlen(s);

    return (int)(n > QUOTE_MAX ? QUOTE_MAX : n);
}

/* Checks v against [min, max] and stores it. */
static int in_range(const char *spec, u128 v, uint64_t min, uint64_t max, const char *what,
                    uint64_t *value, char *err, size_t errlen)
{
    if (v > max)
        return vftr_errmsg(err, errlen, -ERANGE, "bad %s '%.*s': too large (at most %" PRIu64 ")",
                           what, quote_len(spec), spec, max);
    if (v < min)
        return vftr_errmsg(err, errlen, -ERANGE, "bad %s '%.*s': too small (at least %" PRIu64
                           ")", what, quote_len(spec), spec, min);
    *value = (uint64_t)v;
    return 0;
}

/* Reads digits from *p into *v (saturating at HUGE_VALUE); returns how many. */
static size_t digits(const char **p, u128 *v)
{
    size_t n = 0;

    for (; is_digit(**p); (*p)++, n++)
        if (*v < HUGE_VALUE)
            *v = *v * 10 + (unsigned)(**p - '0');
    if (*v > HUGE_VALUE)
        *v = HUGE_VALUE;
    return n;
}

int vftr_count_parse(const char *spec, uint64_t min, uint64_t max, const char *what,
                     uint64_t *value, char *err, size_t errlen)
{
    const char *p = spec;
    u128 v = 0;

    if (!what)
        what = "number";
    if (!spec)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s: no number given", what);
    while (is_blank(*p))
        p++;
    size_t n = digits(&p, &v);
    while (is_blank(*p))
        p++;
    if (n == 0 || *p)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s '%.*s': expected a whole number from %"
                           PRIu64 " to %" PRIu64, what, quote_len(spec), spec, min, max);
    return in_range(spec, v, min, max, what, value, err, errlen);
}

int vftr_size_parse(const char *spec, uint64_t min, uint64_t max, const char *what,
                    uint64_t *value, char *err, size_t errlen)
{
    const char *p = spec, *u;
    u128 ip = 0, frac = 0, pow10 = 1;
    uint64_t factor = 0;
    size_t nd, nf = 0, ulen;

    if (!what)
        what = "size";
    if (!spec)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s: no size given", what);
    while (is_blank(*p))
        p++;
    nd = digits(&p, &ip);
    if (*p == '.') {
        p++;
        for (; is_digit(*p); p++, nf++)
            if (nf < FRACTION_MAX) {
                frac = frac * 10 + (unsigned)(*p - '0');
                pow10 *= 10;
            } else if (*p != '0') {
                frac = 1;           /* marks "not whole" below: pow10 stays */
                pow10 = 0;
            }
        if (nf == 0)
            nd = 0;
    }
    while (is_blank(*p))
        p++;
    u = p;
    ulen = strlen(u);
    while (ulen && is_blank(u[ulen - 1]))
        ulen--;
    if (ulen == 0)
        factor = 1;
    for (size_t i = 0; ulen && i < sizeof size_units / sizeof size_units[0]; i++)
        if (strlen(size_units[i].name) == ulen && strncasecmp(u, size_units[i].name, ulen) == 0)
            factor = size_units[i].factor;
    if (nd == 0 || factor == 0)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s '%.*s': expected " VFTR_SIZE_SYNTAX,
                           what, quote_len(spec), spec);
    if (nf && ulen == 0)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s '%.*s': a fraction needs a unit "
                           "(bytes are whole)", what, quote_len(spec), spec);
    /* frac / pow10 of the unit must be whole bytes */
    if (pow10 == 0 || (frac * factor) % pow10 != 0)
        return vftr_errmsg(err, errlen, -EINVAL, "bad %s '%.*s': not a whole number of bytes",
                           what, quote_len(spec), spec);
    return in_range(spec, ip * factor + frac * factor / pow10, min, max, what, value, err,
                    errlen);
}
