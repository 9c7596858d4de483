/*
 * fuzz_window.c — libFuzzer target for lib/model/window.c (vftr-tui's and
 * vftr-stats' window reader): the input is split at its first two 0x00
 * bytes into a definitions file, an events file and a snapshots file of a
 * one-stream trace with processes 1 and 2 (each part may be empty), and
 * windows chosen by the first input byte are read through every entry
 * point: vftr_window_read, _samples, _summary, _snapshot_before.  Stacks
 * that never close, leaves without enters, snapshots out of order and
 * damaged records must give a result or an error, never a crash or a hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf.h>

#include "model/window.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f)
        return;
    if (n)
        fwrite(p, 1, n, f);
    fclose(f);
}

/* The next part of the input, up to a 0x00 byte or the end. */
static const uint8_t *cut(const uint8_t **p, size_t *n, size_t *len)
{
    const uint8_t *start = *p;
    const uint8_t *z = memchr(*p, 0, *n);

    if (!z) {
        *len = *n;
        *p += *n;
        *n = 0;
    } else {
        *len = (size_t)(z - *p);
        *n -= *len + 1;
        *p = z + 1;
    }
    return start;
}

static int count(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    (void)t;
    (void)p;
    (void)f;
    ++*(int *)arg;
    return 0;
}

static int frame(void *arg, uint32_t p, uint32_t f, uint64_t enter, uint32_t depth)
{
    (void)p;
    (void)f;
    (void)enter;
    (void)depth;
    ++*(int *)arg;
    return 0;
}

static int sample(void *arg, uint64_t t, uint32_t p, uint32_t f, uint64_t enter)
{
    (void)t;
    (void)p;
    (void)f;
    (void)enter;
    ++*(int *)arg;
    return 0;
}

static int summary(void *arg, uint64_t t, uint32_t p, uint32_t f, uint64_t c, uint64_t e,
                   uint64_t i)
{
    (void)t;
    (void)p;
    (void)f;
    (void)c;
    (void)e;
    (void)i;
    ++*(int *)arg;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t master[] = "1:1,2\n";
    char dir[] = "/tmp/vftr-fuzzwin-XXXXXX", stub[600], err[512];
    size_t nd, ne, ns;
    const uint8_t *d, *e, *s;
    uint8_t sel;
    int n = 0;

    if (size < 1)
        return 0;
    sel = data[0];
    data++;
    size--;
    if (!mkdtemp(dir))
        return 0;
    d = cut(&data, &size, &nd);
    e = cut(&data, &size, &ne);
    s = cut(&data, &size, &ns);
    put(dir, "t.otf", master, sizeof master - 1);
    put(dir, "t.0.def", d, nd);
    put(dir, "t.1.events", e, ne);
    put(dir, "t.1.snaps", s, ns);
    put(dir, "t.1.stats", s, ns);      /* the same bytes as statistics */
    snprintf(stub, sizeof stub, "%s/t", dir);

    struct vftr_window *w = vftr_window_open(stub, NULL, err, sizeof err);
    if (w) {
        const struct vftr_window_info *info = vftr_window_info(w);
        struct vftr_window_handler h = { .arg = &n, .open_frame = frame, .enter = count,
                                         .leave = count, .sample_frame = sample,
                                         .function_summary = summary };
        uint64_t span = info->last - info->first + 1;
        uint64_t a = info->first + span * (sel & 15) / 16;
        uint64_t b = a + span * ((sel >> 4) + 1) / 16 + 1;
        uint64_t t;

        vftr_window_read(w, a, b, &h, NULL, err, sizeof err);
        vftr_window_read(w, 0, UINT64_MAX, &h, NULL, err, sizeof err);
        vftr_window_samples(w, a, b, &h, NULL, err, sizeof err);
        vftr_window_summary(w, b, &h, &t, NULL, err, sizeof err);
        vftr_window_snapshot_before(w, a, &t, err, sizeof err);
        vftr_window_free(w);
    }
    const char *names[] = { "t.otf", "t.0.def", "t.1.events", "t.1.snaps", "t.1.stats" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[700];

        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    return 0;
}
