/*
 * sink_folded.c — folded stacks (Brendan Gregg's format, read by
 * flamegraph.pl and speedscope): one line per call path, its frames joined
 * by ';' outermost first, a space, and its weight — the exclusive time in
 * ns (or, with weight_calls, the calls) summed over the processes, or per
 * process with the process's name as the outermost frame.  Lines in path
 * order; paths of weight 0 are left out.
 *
 * The call paths come from the model's replay (replay.h), so the figures
 * are vftr-stats --callpath's.  Per process, each process's calls sit under
 * a frame of its own (a function token past the trace's: time outside any
 * function is not written).  A name's ';' and line breaks become ':' and
 * ' ' (they would split frames and lines).
 */
#include "sink_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"
#include "u64map.h"
#include "util/errmsg.h"

struct folded_sink {
    char *path;
    FILE *f;
    const struct vftr_source *src;
    struct vftr_replay *r;
    int per_process, calls;
    uint32_t base;                    /* process frames: base + process index */
    struct vftr_u64map seen;          /* processes met */
    uint64_t resolution;
    char why[VFTR_ERRMSG_MAX];
};

static int mark(struct folded_sink *k, uint32_t process, uint64_t time)
{
    size_t np;
    const struct vftr_source_proc *p = vftr_source_procs(k->src, &np);
    const struct vftr_source_proc *q = vftr_source_proc(k->src, process);

    if (!k->per_process || vftr_u64map_get(&k->seen, process) >= 0)
        return 0;
    if (vftr_u64map_put(&k->seen, process, 0) < 0)
        return -ENOMEM;
    return vftr_replay_open_call(k->r, process, k->base + (uint32_t)(q ? q - p : (long)np), time);
}

static int f_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct folded_sink *k = arg;
    int rc = mark(k, process, time);

    return rc ? rc : vftr_replay_enter(k->r, process, function, time);
}

static int f_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct folded_sink *k = arg;
    int rc = mark(k, process, time);

    return rc ? rc : vftr_replay_leave(k->r, process, function, time);
}

static void put_name(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static const char *frame_name(const struct folded_sink *k, uint32_t function)
{
    size_t np;
    const struct vftr_source_proc *p = vftr_source_procs(k->src, &np);

    if (k->per_process && function >= k->base)
        return function - k->base < np ? p[function - k->base].name : "?";
    return vftr_sink_func_name(k->src, function);
}

static void release(struct folded_sink *k)
{
    vftr_replay_free(k->r);
    vftr_u64map_release(&k->seen);
    free(k->path);
    free(k);
}

static int f_close(void *impl, char *err, size_t errlen)
{
    struct folded_sink *k = impl;
    const struct vftr_pathstat *ps;
    size_t n;
    uint32_t *chain = NULL;
    int rc = vftr_replay_finish(k->r);

    ps = vftr_replay_paths(k->r, &n);
    if (rc == 0 && !(chain = malloc((n + 1) * sizeof *chain)))
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        uint64_t w = k->calls ? ps[i].calls
                   : k->resolution == 1000000000u ? ps[i].excl
                   : (uint64_t)((double)ps[i].excl * 1e9 / (double)k->resolution + 0.5);
        size_t depth = 0;

        if (w == 0 || (k->per_process && ps[i].function >= k->base))
            continue;
        for (uint32_t id = (uint32_t)i + 1; id && depth <= n; id = ps[id - 1].parent)
            chain[depth++] = id - 1;
        while (depth-- > 0) {
            put_name(k->f, frame_name(k, ps[chain[depth]].function));
            if (depth)
                fputc(';', k->f);
        }
        fprintf(k->f, " %llu\n", (unsigned long long)w);
    }
    free(chain);
    rc = vftr_sink_file_finish(k->f, k->path, rc, NULL, err, errlen);
    release(k);
    return rc;
}

static void f_abort(void *impl)
{
    struct folded_sink *k = impl;

    vftr_sink_file_drop(k->f, k->path);
    release(k);
}

static const struct vftr_sink_ops folded_ops = { f_close, f_abort, NULL };

int vftr_sink_open_folded(struct vftr_sink **out, const char *path, struct vftr_source *src,
                          const struct vftr_sink_opts *o, char *err, size_t errlen)
{
    struct folded_sink *k = calloc(1, sizeof *k);
    const struct vftr_window_handler h = { .enter = f_enter, .leave = f_leave };
    size_t nf;
    const struct vftr_source_func *f = vftr_source_funcs(src, &nf);
    int rc;

    if (!k || !(k->path = strdup(path)) || !(k->r = vftr_replay_new(0, UINT64_MAX))) {
        if (k)
            release(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    k->src = src;
    k->per_process = o->per_process;
    k->calls = o->weight_calls;
    k->resolution = vftr_source_info(src)->resolution ? vftr_source_info(src)->resolution
                                                       : 1000000000u;
    k->base = nf ? f[nf - 1].token + 1u : 1u;
    k->f = fopen(path, "w");
    if (!k->f) {
        rc = vftr_errmsg(err, errlen, -errno, "%s: cannot open for writing (%s)", path,
                         strerror(errno));
        release(k);
        return rc;
    }
    *out = vftr_sink_new(&folded_ops, k, &h);
    if (!*out) {
        f_abort(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    return 0;
}
