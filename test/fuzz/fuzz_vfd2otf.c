/*
 * fuzz_vfd2otf.c — libFuzzer target for vfd2otf's engine (lib/model/vfdconv):
 * the definitions it merges, the MPI and OpenMP records it decodes, the
 * message matching, the call-stack repair and the merge.
 *
 * The input is the chunk stream of a rank's file: it is appended to a valid
 * header written by lib/vfd's writer (rank 0 of a one-rank run), after every
 * "VFDC" chunk header in it got its payload length clamped to the input and
 * both CRCs recomputed, so that mutated payloads reach the decoders instead
 * of being skipped as corrupt.  The engine opens the file and replays it to
 * a consumer that checks the time order.  Crashes, hangs, leaks and
 * sanitizer reports are bugs; refusals are expected.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/vfdconv.h"
#include "vfd/vftr_vfd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Makes every chunk header in buf self-consistent (see above). */
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
        abort();                /* the merge must hand out sorted events */
    last_time = e->time;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    struct vftr_vfd_info info;
    struct vftr_vfd_writer *w;
    struct vftr_vfdconv *c;
    struct vftr_vfdconv_consumer cons = { .event = check_order };
    const char *paths[1] = { path };
    uint8_t *copy;
    FILE *f;

    if (size > (1u << 20))
        return 0;
    snprintf(path, sizeof path, "/tmp/fuzz_vfd2otf.%d.vfd", (int)getpid());
    unlink(path);
    memset(&info, 0, sizeof info);
    info.rank = 0;
    info.size = 1;
    info.ticks_per_second = 1000000000;
    w = vftr_vfd_writer_open(path, &info);
    if (!w)
        return 0;
    vftr_vfd_writer_close(w, NULL);
    copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    fix_chunks(copy, size);
    f = fopen(path, "ab");
    if (f) {
        fwrite(copy, 1, size, f);
        fclose(f);
    }
    free(copy);
    if (vftr_vfdconv_open(&c, paths, 1, NULL, NULL, 0) == 0) {
        uint32_t rank0 = 0;

        last_time = 0;
        vftr_vfdconv_replay(c, &rank0, 1, &cons, NULL, NULL, 0);
        vftr_vfdconv_free(c);
    }
    unlink(path);
    return 0;
}
