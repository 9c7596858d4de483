/*
 * source_open.c — vftr_source_open (source.h): the operands' format decides
 * the backend; and vftr_source_resolve_names (the tools' process
 * selections).  On their own so that a program that opens only .vfd runs
 * (capture's "largest waits", through vftr_source_open_vfdconv) links
 * neither the OTF and OTF2 backends nor the OTF trace selection.
 */
#include "source_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/tracesel.h"

int vftr_source_open(struct vftr_source **out, const char *const *ops, size_t n,
                     const struct vftr_source_opts *opts, char *err, size_t errlen)
{
    return vftr_source_open_shared(out, ops, n, opts, NULL, err, errlen);
}

int vftr_source_open_shared(struct vftr_source **out, const char *const *ops, size_t n,
                            const struct vftr_source_opts *opts,
                            const struct vftr_vfdconv_share *share, char *err, size_t errlen)
{
    struct vftr_source *s;
    size_t nvfd = 0;
    int rc;

    *out = NULL;
    if (n == 0)
        return vftr_errmsg(err, errlen, -EINVAL, "no trace given");
    for (size_t i = 0; i < n; i++)
        nvfd += vftr_source_is_vfd(ops[i]) != 0;
    if (nvfd != 0 && nvfd != n)
        return vftr_errmsg(err, errlen, -EINVAL, "%s and %s: an OTF or OTF2 trace and .vfd input "
                           "cannot be read together", ops[0], ops[n - 1]);
    if (nvfd == 0 && n > 1)
        return vftr_errmsg(err, errlen, -EINVAL, "%s: one OTF or OTF2 trace at a time (several "
                           "operands only for .vfd files)", ops[1]);
    s = calloc(1, sizeof *s);
    if (!s)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    if (opts)
        s->opts = *opts;
    if (!s->opts.prog)
        s->opts.prog = "vftr";
    s->share = share;
    s->name = strdup(ops[0]);
    if (!s->name) {
        free(s);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    s->info.name = s->name;
    if (nvfd)
        rc = vftr_source_open_vfd(s, ops, n, err, errlen);
    else if (vftr_source_kind_of(ops[0]) == VFTR_SOURCE_OTF2)
        rc = vftr_source_open_otf2(s, ops[0], err, errlen);
    else
        rc = vftr_source_open_otf(s, ops[0], err, errlen);
    if (rc == 0) {
        rc = vftr_source_defs_done(s);
        if (rc < 0)
            vftr_errmsg(err, errlen, rc, "out of memory");
    }
    if (rc < 0) {
        vftr_source_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int vftr_source_resolve_names(const struct vftr_source *s, struct vftr_tracesel *sel, char *err,
                              size_t errlen)
{
    struct vftr_procid *ids;
    int rc;

    if (!sel->nranks)
        return 0;
    ids = malloc((s->nprocs ? s->nprocs : 1) * sizeof *ids);
    if (!ids)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nprocs; i++)
        ids[i] = (struct vftr_procid){ s->procs[i].token, s->procs[i].rank, s->procs[i].thread };
    rc = vftr_tracesel_resolve(sel, ids, s->nprocs, err, errlen);
    free(ids);
    return rc;
}
