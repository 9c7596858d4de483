/*
 * vfdin.c — vftr-stats on a run's .vfd files: lib/vfd reads them,
 * lib/model/vfdfeed numbers functions and processes and feeds the replay.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/errmsg.h"
#include "stats.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int stats_is_vfd(const char *operand)
{
    struct stat sb;

    if (ends_with(operand, ".vfd"))
        return 1;
    return stat(operand, &sb) == 0 && S_ISDIR(sb.st_mode);
}

struct pathlist {
    char **v;
    size_t n, cap;
};

static int pathlist_add(struct pathlist *l, const char *dir, const char *name)
{
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(len);

    if (!p)
        return -ENOMEM;
    if (dir)
        snprintf(p, len, "%s/%s", dir, name);
    else
        snprintf(p, len, "%s", name);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);

        if (!v) {
            free(p);
            return -ENOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = p;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of the operands: files as given, a directory's *.vfd sorted. */
static int collect(char *const *ops, int n, struct pathlist *l, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        struct stat sb;

        if (stat(ops[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            DIR *d = opendir(ops[i]);
            struct dirent *e;
            size_t before = l->n;

            if (!d)
                return vftr_errmsg(err, errlen, -errno, "%s: %s", ops[i], strerror(errno));
            while ((e = readdir(d)))
                if (ends_with(e->d_name, ".vfd") && pathlist_add(l, ops[i], e->d_name) < 0) {
                    closedir(d);
                    return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
                }
            closedir(d);
            if (l->n == before)
                return vftr_errmsg(err, errlen, -ENOENT, "%s: no .vfd files in the directory",
                                   ops[i]);
            qsort(l->v + before, l->n - before, sizeof *l->v, cmp_str);
        } else if (pathlist_add(l, NULL, ops[i]) < 0) {
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        }
    }
    return 0;
}

int stats_vfd_read(char *const *operands, int n, const struct vftr_tracesel *sel,
                   struct vftr_vfdfeed *feed, struct vftr_replay **replay,
                   uint64_t *resolution, char *err, size_t errlen)
{
    struct pathlist files = { 0 };
    struct vftr_vfd_reader **rd = NULL;
    struct vftr_timebase base = { 1000000000u, UINT64_MAX };   /* the feed's clock: ns */
    struct vftr_timerange range = { 0, UINT64_MAX };
    int rc;

    *replay = NULL;
    rc = collect(operands, n, &files, err, errlen);
    if (rc < 0)
        goto out;
    rd = calloc(files.n ? files.n : 1, sizeof *rd);
    if (!rd) {
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < files.n; i++) {
        const struct vftr_vfd_info *info;

        rd[i] = vftr_vfd_reader_open_msg(files.v[i], err, errlen);
        if (!rd[i]) {
            rc = -(errno ? errno : EIO);
            goto out;
        }
        info = vftr_vfd_reader_info(rd[i]);
        if (info->start_ns < base.first)
            base.first = info->start_ns;
    }
    if (base.first == UINT64_MAX)
        base.first = 0;
    if (sel->window && vftr_timerange_parse(sel->window, &base, &range, err, errlen) < 0) {
        rc = -EINVAL;
        goto out;
    }
    *replay = vftr_replay_new(range.start, range.end);
    if (!*replay) {
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < files.n; i++) {
        const struct vftr_vfd_info *info = vftr_vfd_reader_info(rd[i]);
        int32_t rank = info->rank >= 0 ? info->rank : (int32_t)i;

        if (sel->have_procs && !vftr_proclist_contains(&sel->procs, (uint32_t)rank + 1))
            continue;
        rc = vftr_vfdfeed_file(feed, rd[i], rank, *replay, NULL);
        if (rc < 0) {
            const char *why = vftr_vfd_reader_error(rd[i]);

            if (why)
                vftr_errmsg(err, errlen, rc, "%s", why);
            else
                vftr_errmsg(err, errlen, rc, "%s: %s", files.v[i], strerror(-rc));
            goto out;
        }
    }
    vftr_replay_finish(*replay);
    *resolution = base.resolution;
out:
    if (rc < 0) {
        vftr_replay_free(*replay);
        *replay = NULL;
    }
    for (size_t i = 0; i < files.n; i++) {
        if (rd)
            vftr_vfd_reader_close(rd[i]);
        free(files.v[i]);
    }
    free(files.v);
    free(rd);
    return rc;
}
