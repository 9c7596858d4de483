/*
 * otf_rewrite — a trace written over an older one of the same name.
 *
 *   otf_rewrite STUB
 *       1. writes STUB: processes 1 and 2 on streams 1 and 2, definitions
 *          and events;
 *       2. opens a writer on STUB again, writes global definitions only (no
 *          process is ever assigned to it) and closes it;
 *       3. opens a writer on STUB once more and closes it at once;
 *       after each step it prints what the close returned, the master
 *       control file (size and content) and what a reader of STUB finds.
 *
 * Built against the reference OTF and against vftr; test/integration/
 * otf_compat_rewrite.sh compares the output and the files of both builds.
 * With the reference, closing a writer always writes the master control
 * file, so after step 2 the old event files are no longer listed.  Exit
 * status: 0 ok, 1 when the first trace cannot be written, 2 usage.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf.h>

static void show_master(const char *stub)
{
    char path[4096];
    FILE *f;
    long size = 0;
    int c;

    snprintf(path, sizeof path, "%s.otf", stub);
    f = fopen(path, "rb");
    if (f == NULL) {
        printf("  %s.otf: missing\n", "STUB");
        return;
    }
    while (fgetc(f) != EOF)
        size++;
    printf("  STUB.otf: %ld bytes:", size);
    rewind(f);
    while ((c = fgetc(f)) != EOF)
        putchar(c == '\n' ? ' ' : c);
    putchar('\n');
    fclose(f);
}

static void show_reader(const char *stub)
{
    OTF_FileManager *fm = OTF_FileManager_open(8);
    OTF_Reader *r = OTF_Reader_open(stub, fm);
    OTF_HandlerArray *ha = OTF_HandlerArray_open();

    if (r == NULL) {
        printf("  reader: does not open\n");
    } else {
        OTF_MasterControl *mc = OTF_Reader_getMasterControl(r);
        printf("  reader: %" PRIu32 " streams, definitions %" PRIu64, OTF_MasterControl_getCount(mc),
               OTF_Reader_readDefinitions(r, ha));
        printf(", events %" PRIu64 "\n", OTF_Reader_readEvents(r, ha));
        OTF_Reader_close(r);
    }
    OTF_HandlerArray_close(ha);
    OTF_FileManager_close(fm);
}

int main(int argc, char **argv)
{
    OTF_FileManager *fm;
    OTF_Writer *w;
    int ok = 1;

    if (argc != 2) {
        fprintf(stderr, "usage: otf_rewrite STUB\n");
        return 2;
    }
    fm = OTF_FileManager_open(8);

    w = OTF_Writer_open(argv[1], 2, fm);
    if (w == NULL)
        return 1;
    ok &= OTF_Writer_writeDefTimerResolution(w, 0, 1000);
    ok &= OTF_Writer_writeDefProcess(w, 0, 1, "one", 0);
    ok &= OTF_Writer_writeDefProcess(w, 0, 2, "two", 0);
    ok &= OTF_Writer_writeDefFunction(w, 0, 1, "main", 0, 0);
    for (uint32_t p = 1; p <= 2; p++) {
        ok &= OTF_Writer_writeEnter(w, 10 * p, 1, p, 0);
        ok &= OTF_Writer_writeLeave(w, 100 + p, 1, p, 0);
    }
    printf("first trace: close = %d\n", OTF_Writer_close(w));
    if (!ok) {
        fprintf(stderr, "otf_rewrite: %s: cannot write the first trace\n", argv[1]);
        return 1;
    }
    show_master(argv[1]);
    show_reader(argv[1]);

    w = OTF_Writer_open(argv[1], 2, fm);
    printf("definitions only: open %s", w ? "ok" : "failed");
    if (w != NULL) {
        printf(", timer %d", OTF_Writer_writeDefTimerResolution(w, 0, 1000000));
        printf(", function %d", OTF_Writer_writeDefFunction(w, 0, 7, "new", 0, 0));
        printf(", close = %d", OTF_Writer_close(w));
    }
    putchar('\n');
    show_master(argv[1]);
    show_reader(argv[1]);

    w = OTF_Writer_open(argv[1], 0, fm);
    printf("nothing written: open %s", w ? "ok" : "failed");
    if (w != NULL)
        printf(", close = %d", OTF_Writer_close(w));
    putchar('\n');
    show_master(argv[1]);
    show_reader(argv[1]);

    OTF_FileManager_close(fm);
    return 0;
}
