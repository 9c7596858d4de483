/*
 * fuzz_timespec.c — libFuzzer target for the command-line syntaxes of
 * lib/util shared by every tool: times and time ranges (timespec.h, at a
 * resolution and first time stamp taken from the input), durations,
 * process lists (proclist.h), rank lists (rangelist.h), counts and sizes
 * (number.h).  The input's first 16 bytes choose the time base and the
 * bounds; the rest, cut at NUL bytes, are the specs.
 *
 * Properties checked besides "no crash, no hang, no sanitizer report":
 *   - every parser returns 0, -EINVAL or -ERANGE (-ENOMEM for the lists),
 *     and on error leaves its output alone and writes a message (for a
 *     non-NULL buffer) that names the input's kind ("bad ...");
 *   - a parsed time is base.first + something; a range has end > start;
 *     a time that vftr_time_check refuses never parses at any resolution;
 *   - a count or size lies in [min, max], and a count's digits printed back
 *     parse to the same value;
 *   - a process or rank list printed in canonical form parses back to the
 *     same text, and contains exactly what the first parse contained at
 *     the ends of each range.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/number.h"
#include "util/proclist.h"
#include "util/rangelist.h"
#include "util/timespec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void check_rc(int rc, const char *err, int lists)
{
    if (rc != 0 && rc != -EINVAL && rc != -ERANGE && !(lists && rc == -ENOMEM))
        abort();
    if (rc != 0 && strncmp(err, "bad ", 4) != 0)
        abort();
}

static void one_spec(const char *s, uint64_t res, uint64_t first, uint64_t lo, uint64_t hi)
{
    struct vftr_timebase base = { res, first };
    char err[VFTR_ERRMSG_MAX], text[4096], text2[4096];
    uint64_t t = 42, v = 42;
    struct vftr_timerange r = { 1, 1 };
    int rc;

    err[0] = '\0';
    rc = vftr_time_parse(s, &base, &t, err, sizeof err);
    check_rc(rc, err, 0);
    if (rc == 0 && t < first)
        abort();
    if (rc != 0 && t != 42)
        abort();
    if (vftr_time_check(s, err, sizeof err) < 0 && res > 0 && rc == 0)
        abort();            /* refused for every trace, but parsed for this one */

    err[0] = '\0';
    rc = vftr_timerange_parse(s, &base, &r, err, sizeof err);
    check_rc(rc, err, 0);
    if (rc == 0 && r.end <= r.start)
        abort();
    if (rc != 0 && (r.start != 1 || r.end != 1))
        abort();
    (void)vftr_timerange_parse(s, &base, &r, NULL, 0);

    err[0] = '\0';
    rc = vftr_duration_parse(s, lo, hi, "--d", &v, err, sizeof err);
    check_rc(rc, err, 0);
    if (rc == 0 && (v < lo || v > hi))
        abort();
    vftr_duration_format(v, text, sizeof text);

    v = 42;
    err[0] = '\0';
    rc = vftr_count_parse(s, lo, hi, "--n", &v, err, sizeof err);
    check_rc(rc, err, 0);
    if (rc == 0) {
        uint64_t w;

        if (v < lo || v > hi)
            abort();
        snprintf(text, sizeof text, "%" PRIu64, v);
        if (vftr_count_parse(text, lo, hi, "--n", &w, NULL, 0) != 0 || w != v)
            abort();
    } else if (v != 42) {
        abort();
    }
    err[0] = '\0';
    rc = vftr_size_parse(s, lo, hi, "--size", &v, err, sizeof err);
    check_rc(rc, err, 0);
    if (rc == 0 && (v < lo || v > hi))
        abort();

    struct vftr_proclist pl = VFTR_PROCLIST_INIT, pl2 = VFTR_PROCLIST_INIT;

    err[0] = '\0';
    rc = vftr_proclist_parse(&pl, s, err, sizeof err);
    check_rc(rc, err, 1);
    if (rc == 0) {
        size_t n = vftr_proclist_format(&pl, text, sizeof text);

        if (n < sizeof text && text[0]) {
            if (vftr_proclist_parse(&pl2, text, NULL, 0) != 0)
                abort();
            vftr_proclist_format(&pl2, text2, sizeof text2);
            if (strcmp(text, text2) != 0)
                abort();
            for (size_t i = 0; i < pl.nranges; i++)
                if (!vftr_proclist_contains(&pl2, pl.ranges[i].first) ||
                    !vftr_proclist_contains(&pl2, pl.ranges[i].last))
                    abort();
        }
        (void)vftr_proclist_count(&pl);
    }
    vftr_proclist_release(&pl);
    vftr_proclist_release(&pl2);

    struct vftr_rangelist rl = VFTR_RANGELIST_INIT, rl2 = VFTR_RANGELIST_INIT;

    err[0] = '\0';
    rc = vftr_rangelist_parse(&rl, s, err, sizeof err);
    check_rc(rc, err, 1);
    if (rc == 0) {
        size_t n = vftr_rangelist_format(&rl, text, sizeof text);

        if (n < sizeof text) {
            if (vftr_rangelist_parse(&rl2, text, NULL, 0) != 0)
                abort();
            vftr_rangelist_format(&rl2, text2, sizeof text2);
            if (strcmp(text, text2) != 0)
                abort();
        }
    }
    vftr_rangelist_release(&rl);
    vftr_rangelist_release(&rl2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t res = 1000000000u, first = 0, lo, hi;
    char *buf;

    if (size < 16)
        return 0;
    /* resolutions of every size, 0 (unknown) included; first stamps near
     * the top of 64 bits too, where additions overflow */
    res = get64(data) >> (data[0] % 64);
    first = get64(data + 8) >> (data[8] % 64);
    lo = data[1] % 4 == 0 ? 0 : res % 1000;
    hi = data[2] % 4 == 0 ? UINT64_MAX : lo + first % 1000000007u;
    buf = malloc(size - 16 + 1);
    if (!buf)
        return 0;
    memcpy(buf, data + 16, size - 16);
    buf[size - 16] = '\0';
    /* every NUL-separated piece is a spec of its own */
    for (char *s = buf; s <= buf + (size - 16);) {
        one_spec(s, res, first, lo, hi);
        s += strlen(s) + 1;
    }
    free(buf);
    return 0;
}
