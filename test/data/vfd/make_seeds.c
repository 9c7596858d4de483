/*
 * make_seeds.c — writes the seed corpus of test/fuzz/fuzz_vfd.c with the
 * lib/vfd writer.  Not part of the build; the seeds are committed.  Run from
 * the top directory after a build:
 *
 *   cc -D_GNU_SOURCE -std=c11 -Ilib test/data/vfd/make_seeds.c build/lib/libvftrvfd.a \
 *      -o /tmp/make_seeds && /tmp/make_seeds test/fuzz/corpus/vfd
 *
 * Seeds: a whole small file with every chunk kind (small.vfd), the same cut
 * inside a chunk and inside a chunk header, the same with one payload byte
 * flipped, and the bare chunk streams (no file header: the fuzz target puts
 * one in front) of a definitions-only and an events-only file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfd/vftr_vfd.h"

static uint8_t chunks[8192];
static size_t nchunks;
static size_t bounds[16], nbounds;

static void add(size_t len)
{
    if (!len) {
        fprintf(stderr, "make_seeds: encoder failed\n");
        exit(1);
    }
    nchunks += len;
    bounds[nbounds++] = nchunks;
}

static void save(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
        perror(path);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t cap = sizeof chunks;

    struct vftr_vfd_thread th[2] = { { 0, VFTR_VFD_NO_THREAD, 100, 1000, "main" },
                                     { 1, 0, 101, 1500, "worker" } };
    add(vftr_vfd_encode_threads(th, 2, chunks + nchunks, cap - nchunks));
    struct vftr_vfd_function fn[3] = { { 1, 0, 0x401000, "main" }, { 2, 0, 0x401100, "fib" },
                                       { 3, VFTR_VFD_FUNC_REGION, 0, "region" } };
    add(vftr_vfd_encode_functions(fn, 3, chunks + nchunks, cap - nchunks));
    struct vftr_vfd_callpath cp[4] = { { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 2, 2, 0 },
                                       { 4, 0, 3, 1 } };
    add(vftr_vfd_encode_callpaths(cp, 4, chunks + nchunks, cap - nchunks));
    size_t defs_end = nchunks;

    struct vftr_vfd_event e0[10] = {
        { 1000, VFTR_VFD_ENTER, 1 }, { 1010, VFTR_VFD_ENTER, 2 }, { 1020, VFTR_VFD_ENTER, 3 },
        { 1030, VFTR_VFD_EXIT, 3 },  { 1200, VFTR_VFD_EXIT, 2 },  { 1300, VFTR_VFD_SAMPLE, 1 },
        { 1400, VFTR_VFD_PAUSE, 0 }, { 1500, VFTR_VFD_RESUME, 0 }, { 1600, 16, 5 },
        { 0, 0, 0 },
    };
    memcpy(&e0[9], "hello", 5);
    add(vftr_vfd_encode_events(e0, 10, chunks + nchunks, cap - nchunks, 0));
    struct vftr_vfd_event e1[2] = { { 1600, VFTR_VFD_ENTER, 4 }, { 90000, VFTR_VFD_EXIT, 4 } };
    add(vftr_vfd_encode_events(e1, 2, chunks + nchunks, cap - nchunks, 1));
    struct vftr_vfd_event e2[1] = { { 100000, VFTR_VFD_EXIT, 1 } };
    add(vftr_vfd_encode_events(e2, 1, chunks + nchunks, cap - nchunks, 0));

    char path[512];
    snprintf(path, sizeof path, "%s/small.vfd", dir);
    unlink(path);
    struct vftr_vfd_info in;
    memset(&in, 0, sizeof in);
    in.pid = 100;
    in.rank = 0;
    in.size = 1;
    in.ticks_per_second = 1000000;
    in.start_ticks = 1000;
    snprintf(in.host, sizeof in.host, "seedhost");
    snprintf(in.exe, sizeof in.exe, "/seed/app");
    struct vftr_vfd_writer *w = vftr_vfd_writer_open(path, &in);
    if (!w) {
        perror(path);
        return 1;
    }
    for (size_t i = 0, start = 0; i < nbounds; start = bounds[i++])
        if (vftr_vfd_writer_put(w, chunks + start, bounds[i] - start)) {
            fprintf(stderr, "make_seeds: put failed\n");
            return 1;
        }
    in.end_ticks = 100000;
    if (vftr_vfd_writer_close(w, &in)) {
        fprintf(stderr, "make_seeds: close failed\n");
        return 1;
    }

    uint8_t file[4096 + sizeof chunks];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(file, 1, sizeof file, f) : 0;
    if (f)
        fclose(f);
    size_t ev0 = 4096 + bounds[2]; /* the first events chunk */
    save(dir, "small-cut-payload.vfd", file, ev0 + 48 + 5);
    save(dir, "small-cut-header.vfd", file, ev0 + 20);
    uint8_t bad[sizeof file];
    memcpy(bad, file, n);
    bad[ev0 + 48 + 2] ^= 0x01;
    save(dir, "small-bad-crc.vfd", bad, n);
    save(dir, "chunks-defs", chunks, defs_end);
    save(dir, "chunks-events", chunks + defs_end, nchunks - defs_end);
    return 0;
}
