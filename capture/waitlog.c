/*
 * waitlog.c — the "largest waits" section of <basename>_all.log (ext.h):
 * at MPI_Finalize, after every rank wrote out its buffered events, rank 0
 * reads the ranks' trace files as they are (.tmpvfd, up to their last
 * whole chunk) through lib/model's .vfd trace source (vfdconv: not the
 * OTF and OTF2 backends, which the library does not link) and runs the one wait
 * analysis of vftr-stats --waits (lib/model/analysis.h) on them.  The
 * section lists the MPI patterns' largest waits, per pattern and call path
 * summed over the processes.
 *
 * Only MPI patterns: the OpenMP threads' last events are still in their
 * buffers at that point, so their waits would be cut short.  The traces
 * end at MPI_Finalize, so Wait at MPI_Finalize is not there either.  A run whose trace files are
 * larger than VFTR_WAITLOG_MAX_BYTES is not read (the section says so):
 * the analysis reads every event and would delay the program's end.
 *
 * Like collate.c, only libvftrcapture.so pulls this module (and lib/model's
 * analysis) in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "ext.h"
#include "model/analysis.h"
#include "model/source.h"
#include "model/vfdconv.h"

#define VFTR_WAITLOG_MAX_BYTES (512ull << 20)
#define VFTR_WAITLOG_ROWS 10

VFTR_EXT_API const char *vftr_ext_trace_file(void)
{
    return vftr_proc.recording ? vftr_trace_path() : "";
}

struct wrow {
    unsigned pattern;
    uint32_t path;
    uint64_t time, count, max;
    uint32_t procs;
};

static int wrow_cmp(const void *x, const void *y)
{
    const struct wrow *a = x, *b = y;

    if (a->time != b->time)
        return a->time > b->time ? -1 : 1;
    if (a->pattern != b->pattern)
        return a->pattern < b->pattern ? -1 : 1;
    return (a->path > b->path) - (a->path < b->path);
}

static int by_pattern_path(const void *x, const void *y)
{
    const struct vftr_wait_row *a = x, *b = y;

    if (a->pattern != b->pattern)
        return a->pattern < b->pattern ? -1 : 1;
    return (a->path > b->path) - (a->path < b->path);
}

/* Call path `path` as vftr-stats names it: innermost function first. */
static void path_name(char *buf, size_t size, const struct vftr_source *s,
                      const struct vftr_analysis_path *paths, size_t npaths, uint32_t path)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int depth = 0; path && path <= npaths && depth < 64; depth++) {
        const struct vftr_source_func *f = vftr_source_func(s, paths[path - 1].function);
        int n = snprintf(buf + len, size - len, "%s%s", len ? "<" : "", f ? f->name : "?");

        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
        path = paths[path - 1].parent;
    }
}

static void section(FILE *f, const struct vftr_source *s, const struct vftr_analysis *a)
{
    size_t n, npaths, nout = 0;
    const struct vftr_wait_row *rows = vftr_analysis_waits(a, &n);
    const struct vftr_analysis_path *paths = vftr_analysis_paths(a, &npaths);
    const struct vftr_analysis_summary *sum = vftr_analysis_summary(a);
    const struct vftr_source_info *info = vftr_source_info(s);
    double res = info->resolution ? (double)info->resolution : 1.0, total = 0;
    struct vftr_wait_row *v = malloc((n ? n : 1) * sizeof *v);
    struct wrow *w = malloc((n ? n : 1) * sizeof *w);
    char name[1024];

    if (!v || !w) {
        fputs("  (out of memory)\n", f);
        goto out;
    }
    memcpy(v, rows, n * sizeof *v);
    qsort(v, n, sizeof *v, by_pattern_path);
    for (size_t i = 0; i < n; i++) {
        const struct vftr_wait_pattern_info *pi = vftr_wait_pattern_info(v[i].pattern);

        if (!pi || strncmp(pi->key, "omp_", 4) == 0 || !v[i].time)
            continue;
        total += (double)v[i].time;
        if (nout && w[nout - 1].pattern == v[i].pattern && w[nout - 1].path == v[i].path) {
            struct wrow *r = &w[nout - 1];

            r->time += v[i].time;
            r->count += v[i].count;
            r->procs++;
            if (v[i].max > r->max)
                r->max = v[i].max;
        } else {
            w[nout++] = (struct wrow){ v[i].pattern, v[i].path, v[i].time, v[i].count,
                                       v[i].max, 1 };
        }
    }
    qsort(w, nout, sizeof *w, wrow_cmp);
    fprintf(f, "  MPI waits: %.6f s in all, %.2f %% of the processes' %.6f s; the largest:\n\n",
            total / res, sum->proc_time ? 100.0 * total / (double)sum->proc_time : 0.0,
            (double)sum->proc_time / res);
    if (!nout) {
        fputs("  (none)\n", f);
        goto out;
    }
    fprintf(f, "  %-20s %12s %8s %10s %12s %6s  %s\n", "pattern", "time[s]", "pct", "count",
            "max[s]", "procs", "call path");
    for (size_t i = 0; i < nout && i < VFTR_WAITLOG_ROWS; i++) {
        path_name(name, sizeof name, s, paths, npaths, w[i].path);
        fprintf(f, "  %-20s %12.6f %8.2f %10llu %12.6f %6u  %s\n",
                vftr_wait_pattern_info(w[i].pattern)->key, (double)w[i].time / res,
                total > 0 ? 100.0 * (double)w[i].time / total : 0.0,
                (unsigned long long)w[i].count, (double)w[i].max / res, w[i].procs, name);
    }
out:
    free(v);
    free(w);
}

VFTR_EXT_API int vftr_ext_append_waits(const char *const *traces, size_t n)
{
    char path[1400], err[512] = "";
    struct vftr_source *src = NULL;
    struct vftr_vfdconv *conv = NULL;
    struct vftr_analysis *a = NULL;
    const struct vftr_vfdconv_opts co = { NULL, "vftr", 0, 1, NULL };
    const struct vftr_source_opts so = { NULL, "vftr", 1 };
    const struct vftr_analysis_opts ao = { 0, UINT64_MAX, VFTR_ANALYSIS_WAITS, 0, NULL, NULL };
    uint64_t bytes = 0;
    FILE *f;
    int rc = 0;

    if (!vftr_proc.recording)
        return -EAGAIN;
    if (n == 0)
        return 0;
    if ((size_t)snprintf(path, sizeof path, "%s/%s_all.log", vftr_proc.dir, vftr_proc.base)
        >= sizeof path)
        return -ENAMETOOLONG;
    for (size_t i = 0; i < n; i++) {
        struct stat st;

        if (!traces[i] || !traces[i][0] || stat(traces[i], &st) != 0)
            return 0;                   /* a rank without its trace: nothing to say */
        bytes += (uint64_t)st.st_size;
    }
    if (!(f = fopen(path, "a")))
        return -errno;
    fputs("\nLargest waits (Scalasca's MPI patterns, from the ranks' traces at MPI_Finalize;\n"
          "the whole analysis: vftr-stats --waits on the run's .vfd files)\n\n", f);
    if (bytes > VFTR_WAITLOG_MAX_BYTES)
        fprintf(f, "  (not computed: the traces hold %llu MiB, more than %llu MiB to read at "
                "the program's end)\n", (unsigned long long)(bytes >> 20),
                (unsigned long long)(VFTR_WAITLOG_MAX_BYTES >> 20));
    else if ((rc = vftr_vfdconv_open(&conv, traces, n, &co, err, sizeof err)) < 0 ||
             (rc = vftr_source_open_vfdconv(&src, conv, &so, err, sizeof err)) < 0 ||
             (rc = vftr_analysis_run(src, &ao, &a, err, sizeof err)) < 0)
        fprintf(f, "  (not computed: %s)\n", err[0] ? err : strerror(-rc));
    else
        section(f, src, a);
    vftr_analysis_free(a);
    vftr_source_free(src);
    vftr_vfdconv_free(conv);
    /* a trace it cannot read is said in the log, not an error */
    return fclose(f) != 0 ? -EIO : 0;
}
