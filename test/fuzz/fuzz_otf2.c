/*
 * fuzz_otf2.c — libFuzzer target for vftr's OTF2 reader (lib/model/
 * source_otf2.c).  libotf2 parses the bytes; what vftr must survive is
 * whatever libotf2 then hands it from a damaged archive: so the input is a
 * list of damages applied to a valid archive (written once, at the first
 * call, with plain libotf2 calls: two ranks, a thread, regions, messages, a
 * collective, a metric), 6 bytes each: which file (the global
 * definitions, a location's definitions or events), an offset, a byte to
 * put there, and, with the top bit of the file byte, a truncation at that
 * offset instead.  The damaged archive is opened through vftr_source_open,
 * read whole and in a window, and profiled: every outcome must be a result
 * or an error, never a crash, a hang or a leak.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "model/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/* libotf2's own allocations that no call of its API frees after some
 * read errors: not vftr's to find here. */
const char *__lsan_default_suppressions(void)
{
    return "leak:libopen-trace-format2\n";
}

static char seed[256], work[256];
/* The anchor file comes first and is never damaged: only libotf2 parses
 * it (vftr passes its path), and libotf2 leaks the file it was opening
 * when it does not parse, which would exhaust a long fuzzing run's file
 * descriptors.  The files the damages go to follow it. */
static const char *const files[] = { "traces.otf2", "traces.def", "traces/0.def",
                                     "traces/0.evt", "traces/1.evt", "traces/2.evt" };
#define NFILES (sizeof files / sizeof files[0])

static OTF2_FlushType pre(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
    (void)u, (void)t, (void)l, (void)c, (void)f;
    return OTF2_FLUSH;
}

static void make_seed(void)
{
    OTF2_FlushCallbacks fc = { pre, NULL };
    OTF2_Archive *a;
    OTF2_EvtWriter *w[3];
    OTF2_GlobalDefWriter *g;
    uint64_t members[2] = { 0, 2 }, ranks[2] = { 0, 1 };
    OTF2_Type ty = OTF2_TYPE_UINT64;
    OTF2_MetricValue mv;
    OTF2_MetricMemberRef mm = 0;

    snprintf(seed, sizeof seed, "/tmp/fuzz_otf2.%d.seed", (int)getpid());
    snprintf(work, sizeof work, "/tmp/fuzz_otf2.%d.work", (int)getpid());
    mkdir(seed, 0777);
    a = OTF2_Archive_Open(seed, "traces", OTF2_FILEMODE_WRITE, 1u << 16, 1u << 16,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_Archive_SetFlushCallbacks(a, &fc, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    for (int i = 0; i < 3; i++)
        w[i] = OTF2_Archive_GetEvtWriter(a, (uint64_t)i);
    OTF2_EvtWriter_Enter(w[0], NULL, 10, 0);
    OTF2_EvtWriter_Enter(w[2], NULL, 10, 0);
    OTF2_EvtWriter_Enter(w[1], NULL, 20, 1);
    OTF2_EvtWriter_MpiSend(w[0], NULL, 30, 1, 0, 5, 64);
    OTF2_EvtWriter_MpiRecv(w[2], NULL, 40, 0, 0, 5, 64);
    OTF2_EvtWriter_Leave(w[1], NULL, 45, 1);
    OTF2_EvtWriter_MpiCollectiveBegin(w[0], NULL, 50);
    OTF2_EvtWriter_MpiCollectiveBegin(w[2], NULL, 51);
    OTF2_EvtWriter_MpiCollectiveEnd(w[0], NULL, 60, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 8, 0);
    OTF2_EvtWriter_MpiCollectiveEnd(w[2], NULL, 61, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 0, 8);
    mv.unsigned_int = 7;
    OTF2_EvtWriter_Metric(w[0], NULL, 65, 0, 1, &ty, &mv);
    OTF2_EvtWriter_Leave(w[0], NULL, 70, 0);
    OTF2_EvtWriter_Leave(w[2], NULL, 80, 0);
    for (int i = 0; i < 3; i++)
        OTF2_Archive_CloseEvtWriter(a, w[i]);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    for (int i = 0; i < 3; i++)
        OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, (uint64_t)i));
    OTF2_Archive_CloseDefFiles(a);
    g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000, 10, 70, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, 0, "");
    OTF2_GlobalDefWriter_WriteString(g, 1, "main");
    OTF2_GlobalDefWriter_WriteString(g, 2, "omp parallel");
    OTF2_GlobalDefWriter_WriteString(g, 3, "world");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, 1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, 1, OTF2_LOCATION_TYPE_CPU_THREAD, 7, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 1, 2, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 2, 1, OTF2_LOCATION_TYPE_CPU_THREAD, 6, 1);
    OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, 1, 2, 2, 0, OTF2_REGION_ROLE_PARALLEL,
                                     OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, 3, 4, 4);
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 3, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 3, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 3, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 3, 0, OTF2_METRIC_TYPE_OTHER,
                                           OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64,
                                           OTF2_BASE_DECIMAL, 0, 0);
    OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &mm, OTF2_METRIC_ASYNCHRONOUS,
                                          OTF2_RECORDER_KIND_ABSTRACT);
    OTF2_Archive_Close(a);
}

static void copy(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[4096];
    size_t n;

    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

static void damage(const char *path, uint32_t off, uint8_t byte, int cut)
{
    FILE *f = fopen(path, "r+b");
    long len;

    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    if (len > 0) {
        off %= (uint32_t)len;
        if (cut) {
            fclose(f);
            truncate(path, off);
            return;
        }
        fseek(f, off, SEEK_SET);
        fputc(byte, f);
    }
    fclose(f);
}

static int any4(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    (void)t, (void)p, (void)f;
    ++*(int *)arg;
    return 0;
}

static int open_frame(void *arg, uint32_t p, uint32_t f, uint64_t e, uint32_t d)
{
    (void)p, (void)f, (void)e, (void)d;
    ++*(int *)arg;
    return 0;
}

/* libotf2 keeps files of a damaged archive open after some read errors
 * (with the memory the suppression above names): the descriptors this
 * input left open are closed, or a long run would run out of them. */
static void close_leaked(int lowest)
{
    for (int fd = lowest; fd < lowest + 4096; fd++)
        if (fcntl(fd, F_GETFD) != -1)
            close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int made;
    int lowest = dup(0);
    char from[512], to[512], err[1024];
    const char *op = work;
    struct vftr_source *s = NULL;
    struct vftr_source_opts o = { NULL, "fuzz", 1 };
    int n = 0;

    if (lowest >= 0)
        close(lowest);
    if (!made) {
        make_seed();
        made = 1;
    }
    mkdir(work, 0777);
    snprintf(to, sizeof to, "%s/traces", work);
    mkdir(to, 0777);
    for (size_t i = 0; i < NFILES; i++) {
        snprintf(from, sizeof from, "%s/%s", seed, files[i]);
        snprintf(to, sizeof to, "%s/%s", work, files[i]);
        copy(from, to);
    }
    for (size_t i = 0; i + 6 <= size && i < 6 * 16; i += 6) {
        uint32_t off = (uint32_t)data[i + 1] | (uint32_t)data[i + 2] << 8 |
                       (uint32_t)data[i + 3] << 16 | (uint32_t)data[i + 4] << 24;

        snprintf(to, sizeof to, "%s/%s", work, files[1 + (data[i] & 0x7f) % (NFILES - 1)]);
        damage(to, off, data[i + 5], data[i] & 0x80);
    }
    if (vftr_source_open(&s, &op, 1, &o, err, sizeof err) == 0) {
        struct vftr_window_handler h = { .arg = &n, .open_frame = open_frame, .enter = any4,
                                         .leave = any4 };
        struct vftr_profq q = { 0, UINT64_MAX, NULL, NULL, NULL, NULL, VFTR_PROFQ_PATHS };
        struct vftr_profq_result r;
        const struct vftr_source_info *si = vftr_source_info(s);

        (void)vftr_source_read(s, 0, UINT64_MAX, NULL, 0, &h, NULL, err, sizeof err);
        if (si->last > si->first)
            (void)vftr_source_read(s, si->first + (si->last - si->first) / 2, UINT64_MAX, NULL,
                                   0, &h, NULL, err, sizeof err);
        if (vftr_source_profile(s, &q, &r, err, sizeof err) == 0)
            vftr_profq_release(&r);
        vftr_source_free(s);
    }
    if (lowest >= 0)
        close_leaked(lowest);
    return 0;
}
