/*
 * counters.c — vftr-stats --counters (counters.h).
 */
#include "counters.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/ctrpaths.h"

/* The path of id as "outer>...>inner" into buf (cut to len). */
static void path_name(const struct vftr_source *src, const struct vftr_ctrpath *p, uint32_t id,
                      char *buf, size_t len)
{
    const struct vftr_source_func *f = vftr_source_func(src, p[id - 1].function);
    char here[64];
    const char *name = f ? f->name : here;
    size_t used;

    if (!f)
        snprintf(here, sizeof here, "function %" PRIu32, p[id - 1].function);
    if (p[id - 1].parent) {
        path_name(src, p, p[id - 1].parent, buf, len);
        used = strlen(buf);
        snprintf(buf + used, len - used, ">%s", name);
    } else {
        snprintf(buf, len, "%s", name);
    }
}

int stats_counters(FILE *out, struct vftr_source *src, uint64_t a, uint64_t b,
                   const struct vftr_proclist *procs, int csv, char *err, size_t errlen)
{
    size_t nk, np;
    const struct vftr_source_counter *k = vftr_source_counters(src, &nk);
    uint32_t tok[VFTR_CTRPATHS_MAX];
    struct vftr_ctrpaths *c;
    struct vftr_window_handler h;
    struct vftr_window_stats st = { 0 };
    const struct vftr_ctrpath *p;
    char path[4096];
    int rc;

    if (nk == 0) {
        snprintf(err, errlen, "%s: the trace has no counters (capture's counters.events)",
                 vftr_source_info(src)->name);
        return -ENODATA;
    }
    if (nk > VFTR_CTRPATHS_MAX)
        nk = VFTR_CTRPATHS_MAX;
    for (size_t i = 0; i < nk; i++)
        tok[i] = k[i].token;
    if ((c = vftr_ctrpaths_new(tok, nk)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    h = vftr_ctrpaths_handler(c);
    err[0] = '\0';
    rc = vftr_source_read(src, a, b, procs, VFTR_SOURCE_EVENTS_ONLY, &h, &st, err, errlen);
    if (rc != 0) {
        if (!err[0])
            snprintf(err, errlen, "%s", strerror(rc < 0 ? -rc : EIO));
        vftr_ctrpaths_free(c);
        return rc < 0 ? rc : -EIO;
    }
    if ((p = vftr_ctrpaths_result(c, &np)) == NULL) {
        vftr_ctrpaths_free(c);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    if (csv) {
        fprintf(out, "calls");
        for (size_t i = 0; i < nk; i++)
            fprintf(out, ",%s,%s_excl", k[i].name, k[i].name);
        fprintf(out, ",path\n");
    } else {
        fprintf(out, "%10s", "calls");
        for (size_t i = 0; i < nk; i++)
            fprintf(out, " %18s %18s", k[i].name, "excl");
        fprintf(out, "  call path\n");
    }
    for (size_t i = 0; i < np; i++) {
        if (p[i].calls == 0)
            continue;
        path_name(src, p, (uint32_t)i + 1, path, sizeof path);
        fprintf(out, csv ? "%" PRIu64 : "%10" PRIu64, p[i].calls);
        for (size_t j = 0; j < nk; j++)
            fprintf(out, csv ? ",%" PRIu64 ",%" PRId64 : " %18" PRIu64 " %18" PRId64,
                    p[i].incl[j], p[i].excl[j]);
        if (csv && strpbrk(path, ",\"")) {
            fputs(",\"", out);
            for (const char *s = path; *s; s++)
                fprintf(out, *s == '"' ? "\"\"" : "%c", *s);
            fputs("\"\n", out);
        } else {
            fprintf(out, csv ? ",%s\n" : "  %s\n", path);
        }
    }
    vftr_ctrpaths_free(c);
    return 0;
}
