/*
 * fmt.c — figures for people (see fmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

static size_t put(char *buf, size_t size, int n)
{
    (void)buf;
    (void)size;
    return n < 0 ? 0 : (size_t)n;
}

size_t vftr_fmt_seconds(double seconds, char *buf, size_t size)
{
    static const struct { double scale; const char *unit; } units[] = {
        { 1e9, "ns" }, { 1e6, "us" }, { 1e3, "ms" }, { 1, "s" },
    };
    double a = fabs(seconds);

    if (seconds == 0 || !isfinite(seconds))
        return put(buf, size, snprintf(buf, size, isfinite(seconds) ? "0 s" : "%g s", seconds));
    /* The smallest unit in which the value, rounded to three significant
     * digits, stays below 1000: 999.7 us is "1.00 ms", not "1000 us". */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        double v = a * units[i].scale, r;
        int decimals = i == 0 ? 0 : v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

        r = decimals == 2 ? round(v * 100) / 100 : decimals == 1 ? round(v * 10) / 10 : round(v);
        if (r < 1000 || i == sizeof units / sizeof units[0] - 1) {
            if (i == 0 && r == 0)      /* under half a nanosecond */
                decimals = 1;
            return put(buf, size, snprintf(buf, size, "%s%.*f %s", seconds < 0 ? "-" : "",
                                           decimals, i == 0 && r == 0 ? v : r, units[i].unit));
        }
    }
    return 0;    /* not reached: the last unit always writes */
}

size_t vftr_fmt_seconds_at(double seconds, double step, char *buf, size_t size)
{
    static const struct { double scale; const char *unit; } units[] = {
        { 1e9, "ns" }, { 1e6, "us" }, { 1e3, "ms" }, { 1, "s" },
    };
    const size_t last = sizeof units / sizeof units[0] - 1;
    double a = fabs(seconds);
    size_t i = 0;

    if (!(step > 0) || !isfinite(step) || seconds == 0 || !isfinite(seconds))
        return vftr_fmt_seconds(seconds, buf, size);
    while (i < last && a * units[i].scale >= 1000)
        i++;
    for (;; i++) {
        /* the fewest decimals whose last digit is worth at most step */
        double worth = 1 / units[i].scale, v;
        int decimals = 0;

        while (decimals < 9 && worth > step * (1 + 1e-9)) {
            worth /= 10;
            decimals++;
        }
        v = a * units[i].scale;
        /* rounding may carry into the next unit: 999.96 us at 0.1 us is
         * "1.0000 ms", not "1000.0 us" */
        if (i < last && round(v * pow(10, decimals)) >= 1000 * pow(10, decimals))
            continue;
        return put(buf, size, snprintf(buf, size, "%s%.*f %s", seconds < 0 ? "-" : "",
                                       decimals, v, units[i].unit));
    }
}

size_t vftr_fmt_ticks(uint64_t ticks, uint64_t resolution, char *buf, size_t size)
{
    if (resolution == 0)
        return put(buf, size, snprintf(buf, size, "%llu ticks", (unsigned long long)ticks));
    return vftr_fmt_seconds((double)ticks / (double)resolution, buf, size);
}

size_t vftr_fmt_imbalance(double ratio, char *buf, size_t size)
{
    return vftr_fmt_percent(100.0 * ratio, buf, size);
}

size_t vftr_fmt_percent(double percent, char *buf, size_t size)
{
    return put(buf, size, snprintf(buf, size, "%.1f%%", percent));
}

size_t vftr_fmt_process(uint32_t rank, uint32_t thread, char *buf, size_t size)
{
    if (thread == 0)
        return put(buf, size, snprintf(buf, size, "rank %lu", (unsigned long)rank));
    return put(buf, size, snprintf(buf, size, "rank %lu thread %lu", (unsigned long)rank,
                                   (unsigned long)thread));
}

/* A UTF-8 continuation byte (10xxxxxx): not a place to cut. */
static int continuation(unsigned char c)
{
    return (c & 0xc0) == 0x80;
}

size_t vftr_fmt_elide(const char *name, size_t width, char *buf, size_t size)
{
    size_t len = strlen(name), head, tail, n;

    if (size == 0)
        return 0;
    if (width > size - 1)
        width = size - 1;
    if (len <= width) {
        memcpy(buf, name, len + 1);
        return len;
    }
    if (width < 5) {
        head = width;
        while (head > 0 && continuation((unsigned char)name[head]))
            head--;
        memcpy(buf, name, head);
        buf[head] = '\0';
        return head;
    }
    head = (width - 3) / 2;
    tail = width - 3 - head;
    while (head > 0 && continuation((unsigned char)name[head]))
        head--;
    while (tail > 0 && continuation((unsigned char)name[len - tail]))
        tail--;
    memcpy(buf, name, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, name + len - tail, tail);
    n = head + 3 + tail;
    buf[n] = '\0';
    return n;
}
