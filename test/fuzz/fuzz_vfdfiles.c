/*
 * fuzz_vfdfiles.c — libFuzzer target for the checks that make several .vfd
 * files one run: lib/model/vfdfiles.c (what a run directory stands for:
 * its .vfd files, and the .tmpvfd files of the same run, judged by their
 * RUN_ID chunk and rank) and the open of lib/model/vfdconv.c (one run id,
 * each rank once, ranks missing from the job's size, the files merged into
 * one numbering), then a replay of every rank.
 *
 * The input describes up to four files.  Byte 0: the number of files
 * (1 + b % 4).  Per file six bytes: rank and job size (signed bytes, -1
 * "not known"), a run id byte, a kind byte (bit 0: named .tmpvfd instead of
 * .vfd, bit 1: a RUN_ID chunk first, with the run byte xor bit 2), and the
 * length (2 bytes, little-endian) of the chunk stream that follows, which
 * is appended to a valid header written by lib/vfd's writer after every
 * "VFDC" chunk header in it got a length that fits and correct CRCs (as in
 * fuzz_vfd2otf.c), so that mutations reach the decoders.  The files go to
 * a directory of the target's own; the directory, and the files given one
 * by one, are opened as a tool would.
 *
 * Properties checked besides "no crash, no hang, no sanitizer report, no
 * leak": a collect that fails says why; every file it returns is one of the
 * directory's; an open that succeeds has as many ranks as files, distinct
 * and sorted, and its replay hands out events in time order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/vfdconv.h"
#include "model/vfdfiles.h"
#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char dir[64];
static FILE *quiet;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/fuzz_vfdfiles.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    quiet = fopen("/dev/null", "w");
    return 0;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Every chunk header in buf made self-consistent (fuzz_vfd2otf.c's rule). */
static void fix_chunks(uint8_t *buf, size_t len)
{
    const size_t H = VFTR_VFD_CHUNK_HEADER_SIZE;

    for (size_t i = 0; i + H <= len; i++) {
        if (memcmp(buf + i, "VFDC", 4) != 0)
            continue;
        uint32_t plen = rd32(buf + i + 12);
        size_t room = len - i - H;

        if (plen > room)
            plen = (uint32_t)room;
        wr32(buf + i + 12, plen);
        wr32(buf + i + 20, vftr_vfd_crc32c(0, buf + i + H, plen));
        wr32(buf + i + 44, vftr_vfd_crc32c(0, buf + i, 44));
        i += H + plen - 1;
    }
}

static uint64_t last_time;

static int check_order(void *ctx, const struct vftr_vfdconv_event *e)
{
    (void)ctx;
    if (e->time < last_time)
        abort();
    last_time = e->time;
    return 0;
}

/* Writes one file; returns its name (static storage per index) or NULL. */
static const char *write_file(int i, const uint8_t *spec, const uint8_t *chunks, size_t len)
{
    static char names[4][128];
    struct vftr_vfd_info info;
    struct vftr_vfd_writer *w;
    uint8_t buf[64], *copy;
    FILE *f;

    snprintf(names[i], sizeof names[i], "%s/r%d.%s", dir, i, spec[3] & 1 ? "tmpvfd" : "vfd");
    memset(&info, 0, sizeof info);
    info.rank = (int8_t)spec[0];
    info.size = (int8_t)spec[1];
    memset(info.run_id, spec[2], sizeof info.run_id);
    info.ticks_per_second = 1000000000u;
    info.start_ns = 1700000000000000000ull + (uint64_t)spec[2] * 1000u;
    if (!(w = vftr_vfd_writer_open(names[i], &info)))
        return NULL;
    if (spec[3] & 2) {
        uint8_t id[16];
        size_t n;

        memset(id, spec[2] ^ (spec[3] & 4), sizeof id);
        if ((n = vftr_vfd_encode_run_id(id, buf, sizeof buf)) > 0)
            vftr_vfd_writer_put(w, buf, n);
    }
    vftr_vfd_writer_close(w, NULL);
    if (!(copy = malloc(len + 1)))
        return names[i];
    memcpy(copy, chunks, len);
    fix_chunks(copy, len);
    if ((f = fopen(names[i], "ab"))) {
        fwrite(copy, 1, len, f);
        fclose(f);
    }
    free(copy);
    return names[i];
}

static void open_and_replay(const char *const *paths, size_t n)
{
    struct vftr_vfdconv_opts o = { quiet, "fuzz", 0, 1, NULL };
    struct vftr_vfdconv_consumer cons = { .event = check_order };
    struct vftr_vfdconv *c;
    char err[1024];

    if (vftr_vfdconv_open(&c, paths, n, &o, err, sizeof err) != 0)
        return;
    size_t nr = vftr_vfdconv_ranks(c);
    uint32_t ranks[4];

    if (nr != n || nr > 4)
        abort();
    for (uint32_t r = 0; r < nr; r++)
        ranks[r] = r;
    last_time = 0;
    (void)vftr_vfdconv_replay(c, ranks, nr, &cons, NULL, err, sizeof err);
    vftr_vfdconv_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *written[4];
    size_t nw = 0, off = 1;
    int nfiles;

    if (size < 1 || size > (1u << 18))
        return 0;
    nfiles = 1 + data[0] % 4;
    for (int i = 0; i < nfiles && off + 6 <= size; i++) {
        const uint8_t *spec = data + off;
        size_t len = (size_t)spec[4] | (size_t)spec[5] << 8;

        off += 6;
        if (len > size - off)
            len = size - off;
        if ((written[nw] = write_file(i, spec, data + off, len)))
            nw++;
        off += len;
    }

    /* the directory, as a tool's operand */
    struct vftr_vfdfiles files = VFTR_VFDFILES_INIT;
    char err[1024] = "";
    const char *ops[1] = { dir };

    if (vftr_vfdfiles_collect(&files, ops, 1, quiet, "fuzz", err, sizeof err) < 0) {
        if (!err[0])
            abort();
    } else {
        for (size_t i = 0; i < files.n; i++)
            if (strncmp(files.path[i], dir, strlen(dir)) != 0)
                abort();
        if (files.n <= 4)
            open_and_replay((const char *const *)files.path, files.n);
    }
    vftr_vfdfiles_release(&files);
    /* the files one by one, in the order written */
    if (nw)
        open_and_replay(written, nw);
    for (size_t i = 0; i < nw; i++)
        unlink(written[i]);
    return 0;
}
