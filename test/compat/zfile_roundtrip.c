/*
 * zfile_roundtrip.c — writes or reads one file through the OTF_File API.
 * Built against the reference OTF and against vftr (see test/module.mk); it
 * uses only functions both libraries export, so the integration script
 * test/integration/file_compat.sh can cross-check the two.
 *
 *   zfile_roundtrip write <text file> <output name> <level> <segment bytes>
 *       writes the text in segments (one OTF_File_write each); an output
 *       name ending in ".z" is compressed at <level>
 *   zfile_roundtrip read <name> <text file>
 *       reads <name> (or <name>.z, decompressed) and stores the text
 *
 * Exit status: 0 ok, 1 runtime error, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_File.h"
#include "OTF_Errno.h"

static int do_write(const char *in, const char *out, unsigned level, size_t seg)
{
    FILE *fp = fopen(in, "rb");
    if (!fp) {
        perror(in);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, fp) != (size_t)n) {
        fprintf(stderr, "%s: cannot read\n", in);
        fclose(fp);
        free(text);
        return 1;
    }
    fclose(fp);
    OTF_FileManager *m = OTF_FileManager_open(4);
    OTF_File *f = OTF_File_open_zlevel(out, m, OTF_FILEMODE_WRITE, level);
    if (!f) {
        fprintf(stderr, "%s: %s\n", out, otf_strerr);
        return 1;
    }
    /* the reference needs its compression buffer set explicitly */
    OTF_File_setZBufferSize(f, 1024 * 1024);
    int rc = 0;
    for (long p = 0; p < n; p += (long)seg) {
        size_t k = (size_t)(n - p) < seg ? (size_t)(n - p) : seg;
        if (OTF_File_write(f, text + p, k) != k) {
            fprintf(stderr, "%s: write failed: %s\n", out, otf_strerr);
            rc = 1;
            break;
        }
    }
    if (!OTF_File_close(f)) {
        fprintf(stderr, "%s: close failed: %s\n", out, otf_strerr);
        rc = 1;
    }
    OTF_FileManager_close(m);
    free(text);
    return rc;
}

static int do_read(const char *name, const char *out)
{
    OTF_FileManager *m = OTF_FileManager_open(4);
    OTF_File *f = OTF_File_open(name, m, OTF_FILEMODE_READ);
    if (!f) {
        fprintf(stderr, "%s: %s\n", name, otf_strerr);
        return 1;
    }
    OTF_File_setZBufferSize(f, 1024 * 1024);
    FILE *fp = fopen(out, "wb");
    if (!fp) {
        perror(out);
        return 1;
    }
    static char buf[1 << 20];
    size_t k;
    while ((k = OTF_File_read(f, buf, sizeof buf)) > 0)
        fwrite(buf, 1, k, fp);
    fclose(fp);
    OTF_File_close(f);
    OTF_FileManager_close(m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "write") == 0)
        return do_write(argv[2], argv[3], (unsigned)atoi(argv[4]), (size_t)atol(argv[5]));
    if (argc == 4 && strcmp(argv[1], "read") == 0)
        return do_read(argv[2], argv[3]);
    fprintf(stderr, "usage: %s write <text> <out> <level> <segment> | read <name> <out>\n",
            argv[0]);
    return 2;
}
