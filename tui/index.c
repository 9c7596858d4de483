/*
 * index.c — what makes a trace quick to browse (see index.h): an OTF2
 * archive has no time index, so it is converted once, through vftr's
 * model, into an OTF trace with snapshots and summaries (vftr-snap --all)
 * kept beside it; an OTF trace without snapshots gets them from vftr-snap
 * --all in place.  No curses here: progress goes to stderr before the
 * screen opens.
 */
#include "index.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/sink.h"
#include "model/source.h"
#include "snaprun.h"
#include "util/errmsg.h"

struct progress {
    uint64_t first, last;
    const char *name;
};

static int draw(void *arg, uint64_t time, uint64_t events)
{
    const struct progress *p = arg;
    unsigned pct = p->last > p->first && time > p->first
                   ? (unsigned)((double)(time - p->first) * 100.0 / (double)(p->last - p->first))
                   : 0;

    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\rvftr-tui: indexing %s: %3u%% %" PRIu64 " events", p->name,
                pct > 100 ? 100 : pct, events);
    return 0;
}

/* The archive's directory and anchor file. */
static int where(const char *trace, char *dir, size_t dlen, char *anchor, size_t alen)
{
    struct stat sb;

    if (stat(trace, &sb) != 0)
        return -errno;
    if (S_ISDIR(sb.st_mode)) {
        snprintf(dir, dlen, "%s", trace);
        snprintf(anchor, alen, "%s/traces.otf2", trace);
        return 0;
    }
    {
        char copy[4096];

        snprintf(copy, sizeof copy, "%s", trace);
        snprintf(dir, dlen, "%s", dirname(copy));
        snprintf(anchor, alen, "%s", trace);
    }
    return 0;
}

static int convert(const char *trace, const char *stub, char *err, size_t errlen)
{
    struct vftr_source_opts so = { stderr, "vftr-tui", 0 };
    struct vftr_sink_opts ko = { .warn = stderr, .prog = "vftr-tui" };
    struct vftr_source *src = NULL;
    struct vftr_sink *k = NULL;
    struct progress p = { 0, 0, trace };
    int rc = vftr_source_open(&src, &trace, 1, &so, err, errlen);

    if (rc < 0)
        return rc;
    p.first = vftr_source_info(src)->first;
    p.last = vftr_source_info(src)->last;
    rc = vftr_sink_open(&k, vftr_sink_format_named("otf"), stub, src, &ko, err, errlen);
    if (rc == 0) {
        rc = vftr_sink_feed(k, src, 0, UINT64_MAX, NULL, draw, &p, NULL, err, errlen);
        if (isatty(STDERR_FILENO))
            fputc('\n', stderr);
        if (rc < 0)
            vftr_sink_abort(k);
        else
            rc = vftr_sink_close(k, err, errlen);
    }
    vftr_source_free(src);
    return rc;
}

int tui_index_otf2(const char *trace, char *out, size_t outlen, char *err, size_t errlen)
{
    char dir[4096], anchor[4200], idx[4300], stamp[4400];
    struct stat a, s;
    FILE *f;
    int rc = where(trace, dir, sizeof dir, anchor, sizeof anchor);

    if (rc < 0)
        return vftr_errmsg(err, errlen, rc, "%s: %s", trace, strerror(-rc));
    if (stat(anchor, &a) != 0)
        return vftr_errmsg(err, errlen, -ENOENT, "%s: no OTF2 anchor file", trace);
    snprintf(idx, sizeof idx, "%s/vftr-tui", dir);
    snprintf(stamp, sizeof stamp, "%s/done", idx);
    snprintf(out, outlen, "%s/trace", idx);
    /* made before, and after the archive last changed: the index holds */
    if (stat(stamp, &s) == 0 && (s.st_mtim.tv_sec > a.st_mtim.tv_sec ||
                                 (s.st_mtim.tv_sec == a.st_mtim.tv_sec &&
                                  s.st_mtim.tv_nsec >= a.st_mtim.tv_nsec)))
        return 0;
    unlink(stamp);
    if (mkdir(idx, 0777) != 0 && errno != EEXIST)
        return vftr_errmsg(err, errlen, -errno, "%s: cannot keep the index beside the archive "
                           "(%s)", idx, strerror(errno));
    fprintf(stderr, "vftr-tui: %s: OTF2 has no time index: converting it once into %s.otf\n",
            trace, out);
    rc = convert(trace, out, err, errlen);
    if (rc < 0)
        return rc;
    fprintf(stderr, "vftr-tui: adding snapshots and summaries (vftr-snap --all)\n");
    rc = tui_snap_run_shown(out, err, errlen);
    if (rc < 0)
        return rc;
    f = fopen(stamp, "w");
    if (!f || fclose(f) != 0)
        return vftr_errmsg(err, errlen, -EIO, "%s: cannot mark the index done", stamp);
    return 0;
}

/* ------------------------------------------------------------ OTF */

uint64_t tui_index_event_bytes(const char *stub)
{
    char dir[4096], copy[4096];
    const char *base;
    size_t blen;
    uint64_t total = 0;
    DIR *d;
    struct dirent *e;

    snprintf(copy, sizeof copy, "%s", stub);
    snprintf(dir, sizeof dir, "%s", dirname(copy));
    base = strrchr(stub, '/') ? strrchr(stub, '/') + 1 : stub;
    blen = strlen(base);
    if (!(d = opendir(dir)))
        return 0;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name, *dot;
        char path[8300];
        struct stat sb;

        /* base.<hex stream>.events[.z] */
        if (strncmp(n, base, blen) != 0 || n[blen] != '.' ||
            !(dot = strchr(n + blen + 1, '.')) ||
            (strcmp(dot, ".events") != 0 && strcmp(dot, ".events.z") != 0))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, n);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            total += (uint64_t)sb.st_size;
    }
    closedir(d);
    return total;
}

int tui_index_wanted(enum tui_index_mode mode, size_t nsnapshots, uint64_t event_bytes)
{
    if (nsnapshots || mode == TUI_INDEX_NEVER)
        return 0;
    return mode == TUI_INDEX_ALWAYS || event_bytes >= TUI_INDEX_MIN_BYTES;
}

int tui_index_otf(const char *stub, char *err, size_t errlen)
{
    fprintf(stderr, "vftr-tui: %s.otf has no snapshots: adding snapshots and summaries "
            "(vftr-snap --all), kept beside the trace for the next time\n", stub);
    return tui_snap_run_shown(stub, err, errlen);
}
