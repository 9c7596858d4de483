/*
 * collate.c — the profile over ranks (collate.h), and the exported
 * vftr_ext_write_all_log() that writes it as <basename>_all.log.
 *
 * Sorting the input by (path, kind, rank) does all the grouping: the rows
 * of a call path are adjacent, within them the counter rows come first,
 * then the MPI rows ('C' < 'M' < 'P'), and the rows of one kind and rank
 * (its threads) are adjacent.
 * Because VFTR_COLLATE_SEP sorts below every character of a name, the
 * byte order of the paths is a pre-order of the call tree: "main" <
 * "main\001a" < "main\001a\001b" < "main\001b" < "mainx".
 *
 * vftr_ext_write_all_log() lives here rather than in ext.c so that only
 * libvftrcapture.so, never a program linked with libvftrcapture.a, pulls
 * in this module and the imbalance of lib/model.
 */
#include "collate.h"
#include "outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "ext.h"

/* The one definition of imbalance, lib/model/profile.h's.  That header
 * cannot be included here: its struct vftr_profile (a profile over
 * processes of the tools) has the name of logfile.h's. */
double vftr_imbalance(double max, double avg);

static int in_cmp(const void *pa, const void *pb)
{
    const struct vftr_collate_in *a = pa, *b = pb;
    int r = strcmp(a->path, b->path);

    if (r)
        return r;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* Compares the first len bytes of key, as a string, with s (strcmp's order). */
static int prefix_cmp(const char *key, size_t len, const char *s)
{
    size_t sl = strlen(s);
    int r = memcmp(key, s, len < sl ? len : sl);

    if (r)
        return r;
    return (len > sl) - (len < sl);
}

/* Index of the path key[0..len) in the sorted distinct paths, or SIZE_MAX. */
static size_t find_path(const char *const *paths, size_t n, const char *key, size_t len)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = prefix_cmp(key, len, paths[mid]);

        if (r == 0)
            return mid;
        if (r > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

/* A copy of s[0..len) kept in c->names; NULL when memory is short. */
static const char *keep(struct vftr_collated *c, const char *s, size_t len)
{
    char *copy = malloc(len + 1);

    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    c->names[c->nnames++] = copy;
    return copy;
}

void vftr_collated_release(struct vftr_collated *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nnames; i++)
        free(c->names[i]);
    free(c->names);
    free(c->rows);
    free(c->mpi);
    free(c->ctr);
    for (unsigned i = 0; i < VFTR_COLLATE_MAXCTR; i++)
        free(c->ctr_names[i]);
    memset(c, 0, sizeof *c);
}

int vftr_collate(struct vftr_collated *c, struct vftr_collate_in *in, size_t n, int nranks,
                 const double *run_times)
{
    const char **paths = NULL;
    size_t m = 0, npaths = 0, nmpi = 0, nctr = 0;

    memset(c, 0, sizeof *c);
    if (nranks < 1 || (n && !in))
        return -EINVAL;
    /* the counters' names: the first names row's */
    for (size_t i = 0; i < n && c->nctr == 0; i++)
        if (in[i].kind == VFTR_COLLATE_CTR_NAMES && in[i].path && in[i].path[0]) {
            for (const char *p = in[i].path; *p && c->nctr < VFTR_COLLATE_MAXCTR;) {
                size_t len = strcspn(p, ",");

                if ((c->ctr_names[c->nctr] = strndup(p, len)) == NULL)
                    goto nomem;
                c->nctr++;
                p += len + (p[len] == ',');
            }
        }
    /* keep the usable rows, in front */
    for (size_t i = 0; i < n; i++)
        if (in[i].rank >= 0 && in[i].rank < nranks && in[i].path && in[i].path[0] &&
            (in[i].kind == VFTR_COLLATE_PROFILE || in[i].kind == VFTR_COLLATE_MPI ||
             (in[i].kind == VFTR_COLLATE_COUNTERS && c->nctr))) {
            struct vftr_collate_in t = in[m];
            in[m++] = in[i];
            in[i] = t;
        }
    if (m > 1)
        qsort(in, m, sizeof *in, in_cmp);
    for (size_t i = 0; i < m; i++) {
        if (i == 0 || strcmp(in[i].path, in[i - 1].path) != 0)
            npaths++;
        if (in[i].kind != VFTR_COLLATE_PROFILE &&
            (i == 0 || strcmp(in[i].path, in[i - 1].path) != 0 || in[i - 1].kind != in[i].kind)) {
            if (in[i].kind == VFTR_COLLATE_MPI)
                nmpi++;
            else
                nctr++;
        }
    }
    paths = malloc((npaths ? npaths : 1) * sizeof *paths);
    c->rows = calloc(npaths ? npaths : 1, sizeof *c->rows);
    c->mpi = calloc(nmpi ? nmpi : 1, sizeof *c->mpi);
    c->names = calloc(2 * npaths + 1, sizeof *c->names);
    c->ctr = calloc(nctr ? nctr : 1, sizeof *c->ctr);
    if (!paths || !c->rows || !c->mpi || !c->names || !c->ctr)
        goto nomem;
    for (size_t i = 0, k = 0; i < m; i++)
        if (i == 0 || strcmp(in[i].path, in[i - 1].path) != 0)
            paths[k++] = in[i].path;

    size_t g = 0, mi = 0;
    for (size_t i = 0, j; i < m; i = j, g++) {
        struct vftr_profile_row *r = &c->rows[g];
        const char *path = in[i].path, *leaf = strrchr(path, VFTR_COLLATE_SEP), *up;
        double sum = 0;

        for (j = i; j < m && strcmp(in[j].path, path) == 0; j++)
            ;
        /* names: the leaf, and the component before it */
        r->callpath_id = (uint32_t)(g + 1);
        r->function = keep(c, leaf ? leaf + 1 : path, strlen(leaf ? leaf + 1 : path));
        if (leaf) {
            size_t plen = (size_t)(leaf - path), p = find_path(paths, npaths, path, plen);

            for (up = leaf; up > path && up[-1] != VFTR_COLLATE_SEP; up--)
                ;
            r->caller = keep(c, up, (size_t)(leaf - up));
            r->parent_id = p == SIZE_MAX ? 0 : (uint32_t)(p + 1);
        } else {
            r->caller = keep(c, "", 0);
        }
        if (!r->function || !r->caller)
            goto nomem;

        /* counter rows first ('C' < 'M' < 'P'), by rank: a rank's threads
         * summed, then over the ranks */
        size_t k = i;
        if (in[k].kind == VFTR_COLLATE_COUNTERS) {
            struct vftr_collate_ctr *cr = &c->ctr[c->nctr_rows++];

            cr->callpath_id = r->callpath_id;
            while (k < j && in[k].kind == VFTR_COLLATE_COUNTERS) {
                int rank = in[k].rank;
                uint64_t v[VFTR_COLLATE_MAXCTR] = { 0 };

                for (; k < j && in[k].kind == VFTR_COLLATE_COUNTERS && in[k].rank == rank; k++) {
                    cr->calls += in[k].calls;
                    for (unsigned x = 0; x < c->nctr && x < in[k].nctr; x++)
                        v[x] += in[k].ctr[x];
                }
                for (unsigned x = 0; x < c->nctr; x++) {
                    cr->sum[x] += v[x];
                    if (cr->ranks == 0 || v[x] < cr->min[x]) {
                        cr->min[x] = v[x];
                        cr->rank_min[x] = rank;
                    }
                    if (cr->ranks == 0 || v[x] > cr->max[x]) {
                        cr->max[x] = v[x];
                        cr->rank_max[x] = rank;
                    }
                }
                cr->ranks++;
            }
        }
        /* MPI rows next ('M' < 'P'), then the profile rows by rank */
        if (k < j && in[k].kind == VFTR_COLLATE_MPI) {
            struct vftr_mpi_row *mr = &c->mpi[mi++];

            mr->callpath_id = r->callpath_id;
            for (; k < j && in[k].kind == VFTR_COLLATE_MPI; k++) {
                mr->sends += in[k].sends;
                mr->recvs += in[k].recvs;
                mr->sent_bytes += in[k].sent_bytes;
                mr->recv_bytes += in[k].recv_bytes;
            }
        }
        while (k < j) {
            int rank = in[k].rank;
            double excl = 0;

            for (; k < j && in[k].rank == rank; k++) {
                r->calls += in[k].calls;
                r->time_excl += in[k].excl;
                r->time_incl += in[k].incl;
                r->overhead += in[k].overhead;
                excl += in[k].excl;
            }
            if (r->ranks == 0 || excl < r->excl_min) {
                r->excl_min = excl;
                r->rank_min = rank;
            }
            if (r->ranks == 0 || excl > r->excl_max) {
                r->excl_max = excl;
                r->rank_max = rank;
            }
            sum += excl;
            r->ranks++;
        }
        if (r->ranks)
            r->imbalance = vftr_imbalance(r->excl_max, sum / r->ranks);
    }
    free(paths);

    c->prof.rows = c->rows;
    c->prof.n = npaths;
    c->prof.nthreads = 1;
    c->prof.nranks = (uint32_t)nranks;
    c->prof.mpi = c->mpi;
    c->prof.nmpi = nmpi;
    for (int r = 0; run_times && r < nranks; r++)
        c->prof.run_time += run_times[r];
    return 0;

nomem:
    free(paths);
    vftr_collated_release(c);
    return -ENOMEM;
}

/*
 * The counter table over ranks: per counted call path (its STID in the
 * profile above), the counted calls and ranks, then per counter the sum
 * over the ranks and the smallest and largest rank's value with its rank.
 */
int vftr_collate_print_counters(FILE *out, const struct vftr_collated *c)
{
    if (c->nctr == 0 || c->nctr_rows == 0)
        return 0;
    fprintf(out, "\nCounters over %u rank%s (per call path; inclusive: summed over the ranks, "
            "min and max over the ranks that counted it, [rank]; counted calls)\n",
            c->prof.nranks, c->prof.nranks == 1 ? "" : "s");
    fprintf(out, "%8s %10s %6s", "STID", "calls", "ranks");
    for (unsigned x = 0; x < c->nctr; x++)
        fprintf(out, " %18s %24s %24s", c->ctr_names[x], "min [rank]", "max [rank]");
    fprintf(out, "  function\n");
    for (size_t i = 0; i < c->nctr_rows; i++) {
        const struct vftr_collate_ctr *r = &c->ctr[i];
        const struct vftr_profile_row *p = &c->rows[r->callpath_id - 1];
        char mn[40], mx[40];

        fprintf(out, "%8u %10llu %6u", r->callpath_id, (unsigned long long)r->calls, r->ranks);
        for (unsigned x = 0; x < c->nctr; x++) {
            snprintf(mn, sizeof mn, "%llu [%d]", (unsigned long long)r->min[x], r->rank_min[x]);
            snprintf(mx, sizeof mx, "%llu [%d]", (unsigned long long)r->max[x], r->rank_max[x]);
            fprintf(out, " %18llu %24s %24s", (unsigned long long)r->sum[x], mn, mx);
        }
        fprintf(out, "  %s\n", p->function ? p->function : "?");
    }
    return ferror(out) ? -EIO : 0;
}

/* ------------------------------------------------------ the exported writer */

VFTR_EXT_API int vftr_ext_write_all_log(struct vftr_collate_in *in, size_t n, int nranks,
                                        const double *run_times, const uint64_t *trace_bytes)
{
    struct vftr_collated c;
    struct vftr_run_info run;
    char path[1400];
    int rc;

    if (!vftr_proc.recording)
        return -EAGAIN;
    if ((size_t)snprintf(path, sizeof path, "%s/%s_all.log", vftr_proc.dir, vftr_proc.base)
        >= sizeof path)
        return -ENAMETOOLONG;
    rc = vftr_collate(&c, in, n, nranks, run_times);
    if (rc < 0)
        return rc;
    c.prof.has_mpi = true;
    vftr_run_info(&run, 0, NULL, 0, vftr_clock_realtime_ns());
    /* what the job's trace cost: the sum over the ranks and the largest */
    for (int r = 0; trace_bytes && r < nranks; r++) {
        run.job_trace_bytes += trace_bytes[r];
        if (r == 0 || trace_bytes[r] > run.job_trace_max) {
            run.job_trace_max = trace_bytes[r];
            run.job_trace_max_rank = r;
        }
    }
    (void)vftr_outdir_make_room(path);   /* an earlier run's log is kept, not overwritten */
    rc = vftr_logfile_write(path, &c.prof, &vftr_proc.cfg, &run);
    if (rc == 0 && c.nctr) {
        /* the counter table after the log's own sections, as in the
         * ranks' logs (finalize.c) */
        FILE *f = fopen(path, "a");

        rc = f == NULL ? -errno : vftr_collate_print_counters(f, &c);
        if (f && fclose(f) != 0 && rc == 0)
            rc = -EIO;
    }
    vftr_outdir_written(path);
    vftr_collated_release(&c);
    return rc;
}
