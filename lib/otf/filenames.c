/*
 * filenames.c — names of the files of a trace (OTF_getFilename and friends).
 *
 * The rules were taken from the files the reference library creates: stream
 * ids in lower-case hex, ".z" for compression levels 1..9 but never on the
 * master file, and a name cut to fit a caller's buffer rather than refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "OTF_Filenames.h"
#include "otf_internal.h"

/* One row per file type: the suffix, and whether the stream id is part of
 * the name. */
static const struct {
    OTF_FileType type;
    const char *suffix;
    int with_id;
} file_types[] = {
    {OTF_FILETYPE_MASTER, "otf", 0},
    {OTF_FILETYPE_GLOBAL_DEF, "def", 0},
    {OTF_FILETYPE_DEF, "def", 1},
    {OTF_FILETYPE_EVENT, "events", 1},
    {OTF_FILETYPE_SNAPS, "snaps", 1},
    {OTF_FILETYPE_STATS, "stats", 1},
    {OTF_FILETYPE_MARKER, "marker", 1},
};

char *OTF_getFilename(const char *namestub, uint32_t id, OTF_FileType type,
                      unsigned int l, char *ret)
{
    if (!namestub) {
        vftr_otf_seterr("getFilename: no name stub given");
        return NULL;
    }
    OTF_FileType kind = type & OTF_FILETYPE_BITS;
    size_t row = sizeof file_types / sizeof file_types[0];
    for (size_t i = 0; i < sizeof file_types / sizeof file_types[0]; i++)
        if (file_types[i].type == kind)
            row = i;
    if (row == sizeof file_types / sizeof file_types[0]) {
        if (type & (OTF_FILETYPE_IOFSL_ALL | OTF_FILETYPE_IOFSL_IDX))
            vftr_otf_seterr("getFilename: iofsl files are not supported by vftr");
        else
            vftr_otf_seterr("getFilename: illegal file type 0x%x", (unsigned)type);
        return NULL;
    }
    uint32_t level = type & OTF_FILECOMPRESSION_BITS;
    const char *z = (kind != OTF_FILETYPE_MASTER && level >= 1 && level <= 9) ? ".z" : "";

    char idbuf[16] = "";
    if (file_types[row].with_id)
        snprintf(idbuf, sizeof idbuf, ".%x", (unsigned)id);

    if (l == 0 || !ret) {
        size_t need = strlen(namestub) + strlen(idbuf) + 1 + strlen(file_types[row].suffix) +
                      strlen(z) + 1;
        ret = malloc(need);
        if (!ret) {
            vftr_otf_seterr("getFilename: out of memory");
            return NULL;
        }
        l = (unsigned int)need;
    }
    /* Cut to the caller's buffer like snprintf, as the reference does. */
    snprintf(ret, l, "%s%s.%s%s", namestub, idbuf, file_types[row].suffix, z);
    return ret;
}

char *OTF_stripFilename(const char *filename)
{
    if (!filename)
        return NULL;
    size_t n = strlen(filename);
    if (n >= 4 && memcmp(filename + n - 4, ".otf", 4) == 0)
        n -= 4;
    if (n == 0)
        return NULL;
    char *s = malloc(n + 1);
    if (!s) {
        vftr_otf_seterr("stripFilename: out of memory");
        return NULL;
    }
    memcpy(s, filename, n);
    s[n] = '\0';
    return s;
}

int OTF_fileExists(const char *filename)
{
    return filename && access(filename, F_OK) == 0;
}
