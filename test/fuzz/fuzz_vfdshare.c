/*
 * fuzz_vfdshare.c — libFuzzer target for the exchange between the ranks of
 * vfd2otf-mpi: lib/model/vfdconv.c's shared open (struct
 * vftr_vfdconv_share) with this process reading none of the files, so that
 * everything it learns comes from the two gathered buffers — the first
 * pass's serialized rank records (put_rank / get_rank) and the matcher's
 * result (counts and the exceptions per thread) — which the input stands
 * for.  What another rank sends is data like any file: it must be checked,
 * never trusted.
 *
 * Input: byte 0 gives the number of files (1 + b % 4), bytes 1..4 the
 * length of the first buffer (little-endian, cut to what is there), then
 * the first buffer, then the second.  Properties checked besides "no
 * crash, no hang, no sanitizer report, no leak": the open returns 0 with
 * one rank per file, or an error with a message.
 *
 * Seeds (test/fuzz/corpus/vfdshare) are real exchanges, recorded by this
 * program from .vfd files: VFTR_FUZZ_SEED_TO=FILE VFTR_FUZZ_SEED_FROM=a.vfd,b.vfd
 * runs a shared open that reads every file itself, writes what it would
 * send in the input's format to FILE and exits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vfdconv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

struct fake {
    int reads_all;              /* recording seeds: this process reads every file */
    const uint8_t *buf[2];
    size_t len[2];
    int calls;
    FILE *record;
};

static int mine(void *ctx, size_t file)
{
    (void)file;
    return ((struct fake *)ctx)->reads_all;
}

/* The "allgather": when recording, what this process sends is everything;
 * when fuzzing, the others' data comes from the input. */
static int exchange(void *ctx, const void *buf, size_t len, void **all, size_t *alllen)
{
    struct fake *f = ctx;
    const void *src = buf;
    size_t n = len;

    if (f->calls >= 2)
        return -EPROTO;
    if (!f->reads_all) {
        src = f->buf[f->calls];
        n = f->len[f->calls];
    } else if (f->record) {
        uint8_t l[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                         (uint8_t)(len >> 24) };

        if (f->calls == 0)
            fwrite(l, 1, sizeof l, f->record);
        fwrite(buf, 1, len, f->record);
    }
    f->calls++;
    *all = malloc(n ? n : 1);
    if (!*all)
        return -ENOMEM;
    if (n)
        memcpy(*all, src, n);
    *alllen = n;
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *to = getenv("VFTR_FUZZ_SEED_TO"), *from = getenv("VFTR_FUZZ_SEED_FROM");
    char *list, *paths[4];
    size_t n = 0;

    (void)argc;
    (void)argv;
    if (!to || !from)
        return 0;
    /* record a seed */
    list = strdup(from);
    for (char *p = strtok(list, ","); p && n < 4; p = strtok(NULL, ","))
        paths[n++] = p;
    struct fake f = { 1, { NULL, NULL }, { 0, 0 }, 0, fopen(to, "wb") };
    struct vftr_vfdconv_share sh = { mine, exchange, &f, 0, 0, NULL, NULL };
    struct vftr_vfdconv_opts o = { NULL, "fuzz", 0, 1, &sh };
    struct vftr_vfdconv *c;
    char err[1024];
    uint8_t nb = (uint8_t)(n - 1);

    if (!f.record || n == 0)
        exit(2);
    fwrite(&nb, 1, 1, f.record);
    if (vftr_vfdconv_open(&c, (const char *const *)paths, n, &o, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_vfdshare: %s\n", err);
        exit(1);
    }
    vftr_vfdconv_free(c);
    fclose(f.record);
    free(list);
    exit(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const paths[4] = { "/nonexistent/r0.vfd", "/nonexistent/r1.vfd",
                                          "/nonexistent/r2.vfd", "/nonexistent/r3.vfd" };
    struct fake f = { 0, { NULL, NULL }, { 0, 0 }, 0, NULL };
    struct vftr_vfdconv_share sh = { mine, exchange, &f, 0, 0, NULL, NULL };
    struct vftr_vfdconv_opts o = { NULL, "fuzz", 0, 1, &sh };
    struct vftr_vfdconv *c;
    char err[1024] = "";
    size_t n, l1;

    if (size < 5)
        return 0;
    n = 1 + data[0] % 4;
    l1 = (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16 | (size_t)data[4] << 24;
    if (l1 > size - 5)
        l1 = size - 5;
    f.buf[0] = data + 5;
    f.len[0] = l1;
    f.buf[1] = data + 5 + l1;
    f.len[1] = size - 5 - l1;
    int rc = vftr_vfdconv_open(&c, paths, n, &o, err, sizeof err);

    if (rc == 0) {
        if (vftr_vfdconv_ranks(c) != n)
            abort();
        vftr_vfdconv_free(c);
    } else if (!err[0] && rc != -ENOMEM) {
        fprintf(stderr, "fuzz_vfdshare: the open failed (%d) without a message\n", rc);
        abort();            /* a refusal must say why */
    }
    return 0;
}
