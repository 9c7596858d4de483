/*
 * otf_ties — merged reads of streams that share time stamps, the progress
 * functions after every kind of read, and a merged copy as otfmerge makes it.
 *
 *   otf_ties write STUB STREAMS [-z LEVEL]
 *       a trace whose streams (1..STREAMS, two processes each) take turns at
 *       the same time stamps: three rounds per time stamp, every process
 *       writes Enter, Leave and now and then a SendMsg at the round's time,
 *       some Enters carry key-value lists; stream 1 stops after two thirds
 *       of the rounds, the last stream starts after one third, every fourth
 *       stream lags half a step on odd time steps, and processes skip rounds
 *       in a pattern, so the merge sees streams join, leave and tie.
 *       Snapshots (EnterSnapshot) and statistics (FunctionSummary) alike.
 *   otf_ties read STUB [-k events|snaps|stats] [-u|-m] [-w A:B] [-l N]
 *                      [-d P,...] [-D P] [-p]
 *       reads one kind through OTF_Reader: sorted (default), unsorted (-u)
 *       or alternating sorted and unsorted calls on one read (-m); -w sets
 *       the time interval, -l the record limit (the kind is then read in
 *       calls until one returns 0), -d disables processes before the read
 *       (OTF_Reader_setProcessStatus), -D P disables P after the first call
 *       (OTF_Reader_disableProcess).  Every record is printed in otfprint's
 *       layout, and after every call the count and what the progress
 *       functions answer (-p: records only, nothing else, so that the output
 *       can be compared with otfprint's).
 *   otf_ties merge IN OUT
 *       what `otfmerge -n 1 --snaps --stats` does with the timed records:
 *       every process enabled, the events, snapshots and statistics of IN
 *       read in order through the stream copy handlers into stream 1 of OUT.
 *
 * Built against the reference OTF and against vftr; test/integration/
 * otf_compat_ties.sh compares both builds' output byte for byte, and with
 * the reference's own otfprint and otfmerge.  Exit status: 0 ok, 1 when a
 * call fails, 2 usage.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf.h>

#define ROUNDS 48u
#define KEY_ROUND 1u
#define KEY_PROC 2u

enum kind { K_EVENTS, K_SNAPS, K_STATS };

static int usage(void)
{
    fprintf(stderr,
            "usage: otf_ties write STUB STREAMS [-z LEVEL]\n"
            "       otf_ties read STUB [-k events|snaps|stats] [-u|-m] [-w A:B] [-l N]\n"
            "                          [-d P,...] [-D P] [-p]\n"
            "       otf_ties merge IN OUT\n");
    return 2;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;

    if (s == NULL || *s == '\0' || *s == '-')
        return -1;
    *v = strtoull(s, &end, 0);
    return *end == '\0' ? 0 : -1;
}

/* --- the trace ---------------------------------------------------------- */

static uint32_t stream_of(uint32_t p, uint32_t streams)
{
    return (p - 1) % streams + 1;
}

static uint64_t time_of(uint32_t r, uint32_t s)
{
    uint32_t step = r / 3;
    return 1000 + 16u * step + ((s % 4 == 2 && step % 2 == 1) ? 8 : 0);
}

static int active(uint32_t p, uint32_t r, uint32_t streams)
{
    uint32_t s = stream_of(p, streams);

    if (streams > 1 && s == 1 && r >= 2 * ROUNDS / 3)
        return 0;
    if (streams > 2 && s == streams && r < ROUNDS / 3)
        return 0;
    return (r * 7 + p) % 5 != 0;
}

static int write_trace(const char *stub, uint32_t streams, uint32_t level)
{
    OTF_FileManager *fm = OTF_FileManager_open(16);
    OTF_Writer *w = OTF_Writer_open(stub, streams, fm);
    OTF_KeyValueList *kv = OTF_KeyValueList_new();
    uint32_t nproc = 2 * streams;
    int ok = 1;

    if (w == NULL || kv == NULL) {
        fprintf(stderr, "otf_ties: %s: cannot open a writer\n", stub);
        return 1;
    }
    if (level > 0)
        OTF_Writer_setCompression(w, (OTF_FileCompression)level);
    for (uint32_t p = 1; p <= nproc; p++)
        ok &= OTF_Writer_assignProcess(w, p, stream_of(p, streams));
    ok &= OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
    for (uint32_t p = 1; p <= nproc; p++) {
        char name[32];
        snprintf(name, sizeof name, "process %" PRIu32, p);
        ok &= OTF_Writer_writeDefProcess(w, 0, p, name, 0);
    }
    ok &= OTF_Writer_writeDefFunctionGroup(w, 0, 1, "all");
    for (uint32_t f = 1; f <= 4; f++) {
        char name[32];
        snprintf(name, sizeof name, "f%" PRIu32, f);
        ok &= OTF_Writer_writeDefFunction(w, 0, f, name, 1, 0);
    }
    ok &= OTF_Writer_writeDefKeyValue(w, 0, KEY_ROUND, OTF_UINT32, "round", "");
    ok &= OTF_Writer_writeDefKeyValue(w, 0, KEY_PROC, OTF_UINT32, "process", "");

    for (uint32_t r = 0; r < ROUNDS; r++) {
        for (uint32_t p = 1; p <= nproc; p++) {
            uint64_t t = time_of(r, stream_of(p, streams));
            uint32_t f = 1 + (r + p) % 4;

            if (!active(p, r, streams))
                continue;
            OTF_KeyValueList_reset(kv);
            if ((r + p) % 3 == 0)
                OTF_KeyValueList_appendUint32(kv, KEY_ROUND, 1000 * r + p);
            if ((r + 2 * p) % 6 == 0)
                OTF_KeyValueList_appendUint32(kv, KEY_PROC, p);
            ok &= OTF_Writer_writeEnterKV(w, t, f, p, 0, kv);
            if (r % 4 == 0)
                ok &= OTF_Writer_writeSendMsg(w, t, p, p % nproc + 1, 0, 7, 64 * r, 0);
            ok &= OTF_Writer_writeLeave(w, t, f, p, 0);
            if (r % 6 == 0)
                ok &= OTF_Writer_writeEnterSnapshot(w, t, t - 1, f, p, 0);
            if (r % 6 == 3) {
                OTF_KeyValueList_reset(kv);
                if (p % 2 == 0)
                    OTF_KeyValueList_appendUint32(kv, KEY_PROC, p);
                ok &= OTF_Writer_writeFunctionSummaryKV(w, t, f, p, r, 10u * r, 20u * r, kv);
            }
        }
    }
    OTF_KeyValueList_close(kv);
    ok &= OTF_Writer_close(w);
    OTF_FileManager_close(fm);
    if (!ok) {
        fprintf(stderr, "otf_ties: %s: writing failed: %s\n", stub, otf_strerr);
        return 1;
    }
    return 0;
}

/* --- printing in otfprint's layout ----------------------------------------- */

static void put_kv(OTF_KeyValueList *list)
{
    uint32_t n = OTF_KeyValueList_getCount(list), key, v;

    if (n == 0) {
        putchar('\n');
        return;
    }
    fputs(", KeyValue: ", stdout);
    for (uint32_t i = 0; OTF_KeyValueList_getKeyByIndex(list, i, &key) == 0; i++) {
        if (OTF_KeyValueList_getUint32(list, key, &v) == 0)
            printf("%" PRIu32 ":%" PRIu32, key, v);
        else
            printf("%" PRIu32 ":?", key);
        if (i + 1 < n)
            fputs(", ", stdout);
    }
    putchar('\n');
}

static int on_enter(void *ud, uint64_t t, uint32_t f, uint32_t p, uint32_t src,
                    OTF_KeyValueList *kv)
{
    (void)ud;
    printf("%" PRIu64 " Enter: function %" PRIu32 ", process %" PRIu32 ", source %" PRIu32, t, f,
           p, src);
    put_kv(kv);
    return OTF_RETURN_OK;
}

static int on_leave(void *ud, uint64_t t, uint32_t f, uint32_t p, uint32_t src,
                    OTF_KeyValueList *kv)
{
    (void)ud;
    printf("%" PRIu64 " Leave: function %" PRIu32 ", process %" PRIu32 ", source %" PRIu32, t, f,
           p, src);
    put_kv(kv);
    return OTF_RETURN_OK;
}

static int on_send(void *ud, uint64_t t, uint32_t from, uint32_t to, uint32_t group,
                   uint32_t type, uint32_t len, uint32_t src, OTF_KeyValueList *kv)
{
    (void)ud;
    printf("%" PRIu64 " SendMessage: sender %" PRIu32 ", receiver %" PRIu32 ", group %" PRIu32
           ", type %" PRIu32 ", length %" PRIu32 ", source %" PRIu32,
           t, from, to, group, type, len, src);
    put_kv(kv);
    return OTF_RETURN_OK;
}

static int on_snap_enter(void *ud, uint64_t t, uint64_t ot, uint32_t f, uint32_t p, uint32_t src,
                         OTF_KeyValueList *kv)
{
    (void)ud;
    printf("%" PRIu64 " SnapEnter: otime %" PRIu64 ", process %" PRIu32 ", function %" PRIu32
           ", source %" PRIu32,
           t, ot, p, f, src);
    put_kv(kv);
    return OTF_RETURN_OK;
}

static int on_function_summary(void *ud, uint64_t t, uint32_t f, uint32_t p, uint64_t calls,
                               uint64_t excl, uint64_t incl, OTF_KeyValueList *kv)
{
    (void)ud;
    printf("%" PRIu64 " StatFunction: process %" PRIu32 ", function %" PRIu32
           ", invocations %" PRIu64 ", excltime %" PRIu64 ", incltime %" PRIu64,
           t, p, f, calls, excl, incl);
    put_kv(kv);
    return OTF_RETURN_OK;
}

/* --- reading --------------------------------------------------------------- */

/* Handlers are stored as OTF_FunctionPointer*; the cast through a plain
 * function pointer type keeps -Wcast-function-type quiet. */
#define H(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

typedef uint64_t (*read_fn)(OTF_Reader *, OTF_HandlerArray *);
typedef uint8_t (*progress_fn)(OTF_Reader *, uint64_t *, uint64_t *, uint64_t *);

struct kind_api {
    const char *name;
    read_fn sorted, unsorted;
    progress_fn plain, time, bytes;
};

static const struct kind_api kinds[] = {
    [K_EVENTS] = { "events", OTF_Reader_readEvents, OTF_Reader_readEventsUnsorted,
                   OTF_Reader_eventProgress, OTF_Reader_eventTimeProgress,
                   OTF_Reader_eventBytesProgress },
    [K_SNAPS] = { "snapshots", OTF_Reader_readSnapshots, OTF_Reader_readSnapshotsUnsorted,
                  OTF_Reader_snapshotProgress, OTF_Reader_snapshotTimeProgress,
                  OTF_Reader_snapshotBytesProgress },
    [K_STATS] = { "statistics", OTF_Reader_readStatistics, OTF_Reader_readStatisticsUnsorted,
                  OTF_Reader_statisticProgress, OTF_Reader_statisticTimeProgress,
                  OTF_Reader_statisticBytesProgress },
};

/* What a progress function answers.  The outputs start as a marker, so a
 * function that fails must leave them alone to print the same.  Byte
 * positions depend on where each library's time search lands (and the
 * reference's are not even ordered after some windowed reads), so of the
 * bytes variant only the answer is shown. */
static void show_progress(const char *what, progress_fn fn, OTF_Reader *r, int bytes)
{
    const uint64_t unset = 0x5e7u;
    uint64_t mn = unset, cur = unset, mx = unset;
    uint8_t rc = fn(r, &mn, &cur, &mx);

    if (bytes)
        printf("# %s rc=%u\n", what, (unsigned)rc);
    else
        printf("# %s rc=%u min=%" PRIu64 " cur=%" PRIu64 " max=%" PRIu64 "\n", what, (unsigned)rc,
               mn, cur, mx);
}

struct read_opts {
    enum kind kind;
    int unsorted, mixed, plain_output;
    uint64_t wmin, wmax, limit;
    int windowed, limited;
    const char *disable;
    uint64_t disable_later;
    int has_disable_later;
};

static int read_trace(const char *stub, const struct read_opts *o)
{
    const struct kind_api *api = &kinds[o->kind];
    OTF_FileManager *fm = OTF_FileManager_open(16);
    OTF_Reader *r = OTF_Reader_open(stub, fm);
    OTF_HandlerArray *ha = OTF_HandlerArray_open();
    uint64_t total = 0, got;
    unsigned call = 0;

    if (r == NULL || ha == NULL) {
        fprintf(stderr, "otf_ties: %s: cannot open the trace\n", stub);
        return 1;
    }
    OTF_HandlerArray_setHandler(ha, H(on_enter), OTF_ENTER_RECORD);
    OTF_HandlerArray_setHandler(ha, H(on_leave), OTF_LEAVE_RECORD);
    OTF_HandlerArray_setHandler(ha, H(on_send), OTF_SEND_RECORD);
    OTF_HandlerArray_setHandler(ha, H(on_snap_enter), OTF_ENTERSNAPSHOT_RECORD);
    OTF_HandlerArray_setHandler(ha, H(on_function_summary), OTF_FUNCTIONSUMMARY_RECORD);
    if (o->windowed)
        OTF_Reader_setTimeInterval(r, o->wmin, o->wmax);
    if (o->disable != NULL) {
        const char *s = o->disable;
        while (*s) {
            char *end;
            unsigned long p = strtoul(s, &end, 0);
            OTF_Reader_setProcessStatus(r, (uint32_t)p, 0);
            s = *end == ',' ? end + 1 : end;
            if (end == s && *s)
                break;
        }
    }
    if (o->limited)
        OTF_Reader_setRecordLimit(r, o->limit);
    for (;;) {
        int unsorted = o->unsorted || (o->mixed && call % 2 == 1);

        got = (unsorted ? api->unsorted : api->sorted)(r, ha);
        if (got == OTF_READ_ERROR) {
            fflush(stdout);
            fprintf(stderr, "otf_ties: %s: reading %s failed\n", stub, api->name);
            return 1;
        }
        total += got;
        if (!o->plain_output) {
            printf("# call %u %s: %" PRIu64 "\n", call, unsorted ? "unsorted" : "sorted", got);
            show_progress("progress", api->plain, r, 0);
            show_progress("time progress", api->time, r, 0);
            show_progress("bytes progress", api->bytes, r, 1);
        }
        if (call == 0 && o->has_disable_later)
            OTF_Reader_disableProcess(r, (uint32_t)o->disable_later);
        call++;
        if (!o->limited || got == 0)
            break;
    }
    if (!o->plain_output)
        printf("# %s: %" PRIu64 " records in %u calls\n", api->name, total, call);
    OTF_HandlerArray_close(ha);
    OTF_Reader_close(r);
    OTF_FileManager_close(fm);
    return 0;
}

/* --- merged copy ---------------------------------------------------------- */

static int merge_trace(const char *in, const char *out)
{
    OTF_FileManager *rfm = OTF_FileManager_open(16), *wfm = OTF_FileManager_open(16);
    OTF_Reader *r = OTF_Reader_open(in, rfm);
    OTF_WStream *ws = OTF_WStream_open(out, 1, wfm);
    OTF_HandlerArray *ha = OTF_HandlerArray_open();
    uint64_t n[3];

    if (r == NULL || ws == NULL || ha == NULL) {
        fprintf(stderr, "otf_ties: cannot open %s or %s\n", in, out);
        return 1;
    }
    OTF_HandlerArray_getCopyHandler_stream(ha, ws);
    n[0] = OTF_Reader_readEvents(r, ha);
    n[1] = OTF_Reader_readSnapshots(r, ha);
    n[2] = OTF_Reader_readStatistics(r, ha);
    printf("merged %" PRIu64 " events, %" PRIu64 " snapshots, %" PRIu64 " statistics\n", n[0],
           n[1], n[2]);
    OTF_HandlerArray_close(ha);
    OTF_Reader_close(r);
    if (!OTF_WStream_close(ws))
        n[0] = OTF_READ_ERROR;
    OTF_FileManager_close(rfm);
    OTF_FileManager_close(wfm);
    for (int i = 0; i < 3; i++)
        if (n[i] == OTF_READ_ERROR) {
            fprintf(stderr, "otf_ties: merging %s into %s failed\n", in, out);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    struct read_opts o;
    uint64_t v;
    int opt;

    if (argc < 3)
        return usage();
    if (strcmp(argv[1], "write") == 0) {
        uint64_t streams, level = 0;
        if (argc != 4 && !(argc == 6 && strcmp(argv[4], "-z") == 0))
            return usage();
        if (parse_u64(argv[3], &streams) != 0 || streams == 0 || streams > 64)
            return usage();
        if (argc == 6 && (parse_u64(argv[5], &level) != 0 || level > 9))
            return usage();
        return write_trace(argv[2], (uint32_t)streams, (uint32_t)level);
    }
    if (strcmp(argv[1], "merge") == 0)
        return argc == 4 ? merge_trace(argv[2], argv[3]) : usage();
    if (strcmp(argv[1], "read") != 0)
        return usage();

    memset(&o, 0, sizeof o);
    optind = 3;
    while ((opt = getopt(argc, argv, "k:umw:l:d:D:p")) != -1) {
        switch (opt) {
        case 'k':
            if (strcmp(optarg, "events") == 0)
                o.kind = K_EVENTS;
            else if (strcmp(optarg, "snaps") == 0)
                o.kind = K_SNAPS;
            else if (strcmp(optarg, "stats") == 0)
                o.kind = K_STATS;
            else
                return usage();
            break;
        case 'u': o.unsorted = 1; break;
        case 'm': o.mixed = 1; break;
        case 'p': o.plain_output = 1; break;
        case 'w': {
            char *colon = strchr(optarg, ':');
            if (colon == NULL)
                return usage();
            *colon = '\0';
            if (parse_u64(optarg, &o.wmin) != 0 || parse_u64(colon + 1, &o.wmax) != 0)
                return usage();
            o.windowed = 1;
            break;
        }
        case 'l':
            if (parse_u64(optarg, &o.limit) != 0)
                return usage();
            o.limited = 1;
            break;
        case 'd': o.disable = optarg; break;
        case 'D':
            if (parse_u64(optarg, &v) != 0)
                return usage();
            o.disable_later = v;
            o.has_disable_later = 1;
            break;
        default:
            return usage();
        }
    }
    if (optind != argc || (o.unsorted && o.mixed))
        return usage();
    return read_trace(argv[2], &o);
}
