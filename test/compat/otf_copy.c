/*
 * otf_copy — copies an OTF trace with the library's own copy handlers.
 *
 *   otf_copy [-f short|long] [-z LEVEL] IN OUT
 *       OTF_Reader on IN, OTF_HandlerArray_getCopyHandler into an OTF_Writer
 *       on OUT whose process-to-stream mapping is taken from IN's master
 *       file (OTF_Writer_assignProcess).
 *   otf_copy --per-stream [-f short|long] [-z LEVEL] IN OUT
 *       stream by stream: OTF_RStream on IN, OTF_HandlerArray_getCopyHandler_
 *       stream into an OTF_WStream on OUT; the master file is copied with
 *       OTF_MasterControl_read / OTF_MasterControl_write.  Exercises the
 *       low-level stream API and OTF_getFilename / OTF_fileExists.
 *
 * Built against the reference OTF and against vftr; test/integration/
 * otf_compat_copy.sh compares the copies.  Standard output is a log (records
 * copied per part) that must be identical for both builds.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf.h>

struct opts {
    uint32_t format;
    uint32_t level;
    int per_stream;
    const char *in, *out;
};

static int usage(void)
{
    fprintf(stderr, "usage: otf_copy [--per-stream] [-f short|long] [-z LEVEL] IN OUT\n");
    return 2;
}

/* Prints what one read call delivered; 1 if it failed. */
static int report(const char *what, uint32_t stream, uint64_t n)
{
    if (n == OTF_READ_ERROR) {
        printf("%s stream %" PRIu32 ": read error\n", what, stream);
        fprintf(stderr, "otf_copy: reading %s of stream %" PRIu32 " failed: %s\n", what, stream,
                otf_strerr);
        return 1;
    }
    printf("%s stream %" PRIu32 ": %" PRIu64 " records\n", what, stream, n);
    return 0;
}

static int copy_with_writer(const struct opts *o, OTF_FileManager *fm)
{
    OTF_Reader *reader = OTF_Reader_open(o->in, fm);
    OTF_HandlerArray *ha = OTF_HandlerArray_open();
    OTF_MasterControl *mc;
    OTF_Writer *w;
    uint32_t n;
    int bad = 0;

    if (reader == NULL || ha == NULL) {
        fprintf(stderr, "otf_copy: %s: cannot open trace\n", o->in);
        return 1;
    }
    mc = OTF_Reader_getMasterControl(reader);
    n = OTF_MasterControl_getCount(mc);
    w = OTF_Writer_open(o->out, n, fm);
    if (w == NULL) {
        fprintf(stderr, "otf_copy: %s: cannot open writer\n", o->out);
        return 1;
    }
    OTF_Writer_setFormat(w, o->format);
    if (o->level > 0)
        OTF_Writer_setCompression(w, o->level);
    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        for (uint32_t j = 0; e != NULL && j < e->n; j++)
            printf("assign %" PRIu32 " -> %" PRIu32 ": %" PRIu32 "\n", e->values[j], e->argument,
                   OTF_Writer_assignProcess(w, e->values[j], e->argument));
    }
    OTF_HandlerArray_getCopyHandler(ha, w);
    bad |= report("definitions", 0, OTF_Reader_readDefinitions(reader, ha));
    bad |= report("events", 0, OTF_Reader_readEvents(reader, ha));
    bad |= report("snapshots", 0, OTF_Reader_readSnapshots(reader, ha));
    bad |= report("statistics", 0, OTF_Reader_readStatistics(reader, ha));
    bad |= report("markers", 0, OTF_Reader_readMarkers(reader, ha));
    if (!OTF_Writer_close(w)) {
        fprintf(stderr, "otf_copy: %s: closing the writer failed\n", o->out);
        bad = 1;
    }
    OTF_HandlerArray_close(ha);
    OTF_Reader_close(reader);
    return bad;
}

/* Whether the file of one part of a stream exists, plain or compressed. */
static int part_exists(const char *stub, uint32_t id, OTF_FileType type)
{
    int found = 0;
    for (int z = 0; z < 2 && !found; z++) {
        char *name = OTF_getFilename(stub, id, type | (z ? OTF_FILECOMPRESSION_COMPRESSED : 0),
                                     0, NULL);
        if (name != NULL) {
            found = OTF_fileExists(name);
            free(name);
        }
    }
    return found;
}

static int copy_stream(const struct opts *o, OTF_FileManager *fm, uint32_t id)
{
    typedef uint64_t (*read_fn)(OTF_RStream *, OTF_HandlerArray *);
    static const struct { const char *what; OTF_FileType type; read_fn fn; } parts[] = {
        { "definitions", OTF_FILETYPE_DEF, OTF_RStream_readDefinitions },
        { "events", OTF_FILETYPE_EVENT, OTF_RStream_readEvents },
        { "snapshots", OTF_FILETYPE_SNAPS, OTF_RStream_readSnapshots },
        { "statistics", OTF_FILETYPE_STATS, OTF_RStream_readStatistics },
        { "markers", OTF_FILETYPE_MARKER, OTF_RStream_readMarker },
    };
    OTF_RStream *rs = OTF_RStream_open(o->in, id, fm);
    OTF_WStream *ws = OTF_WStream_open(o->out, id, fm);
    OTF_HandlerArray *ha = OTF_HandlerArray_open();
    int bad = 0;

    if (rs == NULL || ws == NULL || ha == NULL) {
        fprintf(stderr, "otf_copy: stream %" PRIu32 ": cannot open\n", id);
        return 1;
    }
    OTF_WStream_setFormat(ws, o->format);
    if (o->level > 0)
        OTF_WStream_setCompression(ws, o->level);
    OTF_HandlerArray_getCopyHandler_stream(ha, ws);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!part_exists(o->in, id, parts[i].type)) {
            printf("%s stream %" PRIu32 ": no file\n", parts[i].what, id);
            continue;
        }
        bad |= report(parts[i].what, id, parts[i].fn(rs, ha));
    }
    if (!OTF_WStream_close(ws)) {
        fprintf(stderr, "otf_copy: stream %" PRIu32 ": closing failed\n", id);
        bad = 1;
    }
    OTF_RStream_close(rs);
    OTF_HandlerArray_close(ha);
    return bad;
}

static int copy_per_stream(const struct opts *o, OTF_FileManager *fm)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(fm);
    uint32_t n;
    int bad = 0;

    if (mc == NULL || !OTF_MasterControl_read(mc, o->in)) {
        fprintf(stderr, "otf_copy: %s: cannot read the master file\n", o->in);
        return 1;
    }
    printf("master check: %d\n", OTF_MasterControl_check(mc));
    bad |= copy_stream(o, fm, 0);
    n = OTF_MasterControl_getCount(mc);
    for (uint32_t i = 0; i < n; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        if (e != NULL)
            bad |= copy_stream(o, fm, e->argument);
    }
    if (!OTF_MasterControl_write(mc, o->out)) {
        fprintf(stderr, "otf_copy: %s: cannot write the master file\n", o->out);
        bad = 1;
    }
    OTF_MasterControl_close(mc);
    return bad;
}

int main(int argc, char **argv)
{
    struct opts o = { OTF_WSTREAM_FORMAT_SHORT, 0, 0, NULL, NULL };
    OTF_FileManager *fm;
    int opt, bad;

    if (argc > 1 && strcmp(argv[1], "--per-stream") == 0) {
        o.per_stream = 1;
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    while ((opt = getopt(argc, argv, "f:z:")) != -1) {
        switch (opt) {
        case 'f':
            if (strcmp(optarg, "long") == 0)
                o.format = OTF_WSTREAM_FORMAT_LONG;
            else if (strcmp(optarg, "short") != 0)
                return usage();
            break;
        case 'z': o.level = (uint32_t)strtoul(optarg, NULL, 0); break;
        default: return usage();
        }
    }
    if (optind != argc - 2 || o.level > 9)
        return usage();
    o.in = argv[optind];
    o.out = argv[optind + 1];

    fm = OTF_FileManager_open(32);
    if (fm == NULL)
        return 1;
    bad = o.per_stream ? copy_per_stream(&o, fm) : copy_with_writer(&o, fm);
    OTF_FileManager_close(fm);
    return bad ? 1 : 0;
}
