/*
 * patchsite.h — what filter.patch_excluded did to a program's own code,
 * seen from inside the program (cap_patch, libcappatch.so).
 *
 * The functions to watch are placed in a section of their own (SECTION),
 * whose bounds the linker gives as __start_<name> and __stop_<name>.  A
 * copy of the section is taken before any of them runs; afterwards every
 * byte that differs must be the first two of a hook call turned into a
 * short jump over it (e8 rel32 -> eb 03 .., ff 15 disp32 -> eb 04 ..) or
 * of a jump to the exit hook (a tail call) turned into a return (e9 rel32
 * -> c3 .., ff 25 disp32 -> c3 ..), with the rest of the instruction
 * unchanged; or a call whose first two bytes straddle an 8-byte boundary
 * sent to a ret of its function instead (e8 rel32 -> e8 rel32').  Counted independently of
 * capture: capture's log says how many sites it patched, this says what
 * the code holds.
 */
#ifndef VFTR_TEST_CAPTURE_PATCHSITE_H
#define VFTR_TEST_CAPTURE_PATCHSITE_H

#include <stdint.h>
#include <string.h>

#define NOINST_PS __attribute__((no_instrument_function))

struct patch_view {
    const unsigned char *lo, *hi;
    unsigned char copy[4096];
    size_t len;
};

static inline NOINST_PS void patch_view_take(struct patch_view *v, const void *lo, const void *hi)
{
    v->lo = lo;
    v->hi = hi;
    v->len = (size_t)(v->hi - v->lo);
    if (v->len > sizeof v->copy)
        v->len = sizeof v->copy;
    memcpy(v->copy, v->lo, v->len);
}

static inline NOINST_PS long rel(const unsigned char *p)
{
    int32_t v;

    memcpy(&v, p, 4);
    return v;
}

/* Whether offset o of the view holds a ret now. */
static inline NOINST_PS int ret_at(const struct patch_view *v, long o)
{
    return o >= 0 && (size_t)o < v->len && v->lo[o] == 0xc3;
}

/* The offset of the e8 of a call, sent to a ret, whose rel32 holds the
 * first difference i; 0 when there is none such. */
static inline NOINST_PS long resent(const struct patch_view *v, size_t i)
{
    for (size_t k = 1; k <= 4 && k <= i; k++) {
        size_t j = i - k;

        if (j + 5 <= v->len && v->copy[j] == 0xe8 && v->lo[j] == 0xe8
            && ret_at(v, (long)j + 5 + rel(v->lo + j + 1)) && j > 0)
            return (long)j;
    }
    return 0;
}

/* Sites patched since the copy; *bad: differences that are not a patch. */
static inline NOINST_PS int patch_view_count(const struct patch_view *v, int *bad)
{
    int sites = 0;
    long k;

    *bad = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (v->lo[i] == v->copy[i])
            continue;
        if (i + 5 <= v->len && v->copy[i] == 0xe8 && v->lo[i] == 0xeb && v->lo[i + 1] == 3
            && memcmp(v->lo + i + 2, v->copy + i + 2, 3) == 0) {
            sites++;
            i += 4;
        } else if (i + 6 <= v->len && v->copy[i] == 0xff && v->copy[i + 1] == 0x15
                   && v->lo[i] == 0xeb && v->lo[i + 1] == 4
                   && memcmp(v->lo + i + 2, v->copy + i + 2, 4) == 0) {
            sites++;
            i += 5;
        } else if ((k = resent(v, i)) > 0) {
            /* a call whose first two bytes straddle an 8-byte boundary:
             * sent to a ret of its function (its rel32 changed) */
            sites++;
            i = (size_t)k + 4;
        } else if (i + 5 <= v->len && v->copy[i] == 0xe9 && v->lo[i] == 0xc3
                   && memcmp(v->lo + i + 1, v->copy + i + 1, 4) == 0) {
            sites++;
            i += 4;
        } else if (i + 6 <= v->len && v->copy[i] == 0xff && v->copy[i + 1] == 0x25
                   && v->lo[i] == 0xc3 && memcmp(v->lo + i + 1, v->copy + i + 1, 5) == 0) {
            sites++;
            i += 5;
        } else {
            ++*bad;
        }
    }
    return sites;
}

#endif
