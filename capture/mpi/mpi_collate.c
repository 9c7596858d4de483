/*
 * mpi_collate.c — <base>_all.log (mpi_collate.h).  Each rank turns its
 * profile and its MPI statistics per call path into tab-separated text
 * lines, a call path written as its function names from the root
 * (capture/collate.h):
 *     "R  run-seconds"
 *     "T  trace-bytes"        (the .vfd written so far)
 *     "P  path  calls  excl  incl  overhead"
 *     "M  path  sends  recvs  sent-bytes  recv-bytes"
 *     "F  trace-file"   (the .tmpvfd it writes, for the largest waits)
 *     "K  counter-names" and "C  path  calls  inclusive..." (the counter
 *                       table, vftr_ext_counter_lines: only with counters)
 * rank 0 gathers them (PMPI_Gather of the lengths, PMPI_Gatherv of the
 * text), turns them back into rows and hands them to capture, which merges
 * and prints them like its own logs (vftr_ext_write_all_log).  Text keeps
 * the exchange independent of pointer sizes and of names' lengths.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collate.h"
#include "logfile.h"
#include "mpi_collate.h"
#include "mpi_rt.h"

struct text {
    char *s;
    size_t len, cap;
    int failed;
};

static VFTR_MPI_NI void text_add(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static VFTR_MPI_NI void text_add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->failed)
        return;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)n;
        char *p = realloc(t->s, cap);
        if (p == NULL) {
            t->failed = 1;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
}

/* Names travel in tab-separated lines, a path as names separated by
 * VFTR_COLLATE_SEP: tabs, newlines and separators in a name (C++
 * signatures have none, a region name might) become blanks. */
static VFTR_MPI_NI void put_name(struct text *t, const char *name)
{
    char buf[512];
    size_t i;

    for (i = 0; name[i] && i + 1 < sizeof buf; i++)
        buf[i] = name[i] == '\t' || name[i] == '\n' || name[i] == VFTR_COLLATE_SEP ? ' ' : name[i];
    buf[i] = '\0';
    text_add(t, "%s", buf);
}

/* Row indices of the ext profile by path id, for the parent walks. */
static VFTR_MPI_NI int by_path_id(const void *a, const void *b, void *arg)
{
    const struct vftr_ext_row *rows = arg;
    uint32_t x = rows[*(const size_t *)a].path_id, y = rows[*(const size_t *)b].path_id;

    return (x > y) - (x < y);
}

static VFTR_MPI_NI size_t find_row(const struct vftr_ext_row *rows, const size_t *by_id, size_t n,
                                   uint32_t id)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (rows[by_id[mid]].path_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && rows[by_id[lo]].path_id == id ? by_id[lo] : SIZE_MAX;
}

/* The call path of row i, root first.  The walk is bounded by the number
 * of rows (a damaged parent chain ends it). */
static VFTR_MPI_NI void put_path(struct text *t, const struct vftr_ext_row *rows,
                                 const size_t *by_id, size_t n, size_t i, size_t *stack)
{
    size_t depth = 0;

    for (size_t r = i; r != SIZE_MAX && depth < n; r = find_row(rows, by_id, n, rows[r].parent_id))
        stack[depth++] = r;
    while (depth > 0) {
        put_name(t, rows[stack[--depth]].function);
        if (depth > 0)
            text_add(t, "%c", VFTR_COLLATE_SEP);
    }
}

static VFTR_MPI_NI void own_lines(struct text *t)
{
    struct vftr_ext_row *rows = NULL;
    struct vftr_mpi_row *mpi = NULL;
    long n = vftr_ext_profile(&rows), nmpi = vftr_mpi_path_stats(NULL, 0);
    size_t *by_id = NULL, *stack = NULL, nr = n > 0 ? (size_t)n : 0;

    const char *trace = vftr_ext_trace_file();

    text_add(t, "R\t%.17g\n", vftr_ext_run_time());
    text_add(t, "T\t%llu\n", (unsigned long long)vftr_ext_trace_bytes());
    if (trace[0] && !strpbrk(trace, "\t\n"))
        text_add(t, "F\t%s\n", trace);
    if (nmpi > 0 && (mpi = calloc((size_t)nmpi, sizeof *mpi)) != NULL)
        nmpi = vftr_mpi_path_stats(mpi, (size_t)nmpi);
    else
        nmpi = 0;
    by_id = malloc((nr ? nr : 1) * sizeof *by_id);
    stack = malloc((nr ? nr : 1) * sizeof *stack);
    if (by_id == NULL || stack == NULL) {
        t->failed = 1;
        goto out;
    }
    for (size_t i = 0; i < nr; i++)
        by_id[i] = i;
    qsort_r(by_id, nr, sizeof *by_id, by_path_id, rows);
    for (size_t i = 0; i < nr; i++) {
        text_add(t, "P\t");
        put_path(t, rows, by_id, nr, i, stack);
        text_add(t, "\t%llu\t%.17g\t%.17g\t%.17g\n", (unsigned long long)rows[i].calls,
                 rows[i].excl, rows[i].incl, rows[i].overhead);
    }
    for (long k = 0; k < nmpi; k++) {
        size_t i = find_row(rows, by_id, nr, mpi[k].callpath_id);

        if (i == SIZE_MAX)
            continue;   /* not in the profile: nothing names it */
        text_add(t, "M\t");
        put_path(t, rows, by_id, nr, i, stack);
        text_add(t, "\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)mpi[k].sends,
                 (unsigned long long)mpi[k].recvs, (unsigned long long)mpi[k].sent_bytes,
                 (unsigned long long)mpi[k].recv_bytes);
    }
    {
        char *ctr = vftr_ext_counter_lines();

        if (ctr)
            text_add(t, "%s", ctr);
        free(ctr);
    }
out:
    if (n >= 0)
        vftr_ext_profile_free(rows);
    free(mpi);
    free(by_id);
    free(stack);
}

/* Splits the gathered text in place into rows for the collation; the run
 * times go to run_times[rank], the trace sizes to trace_bytes[rank].
 * Returns the number of rows. */
static VFTR_MPI_NI size_t parse(char *all, const int *lens, const int *displs, int size,
                                struct vftr_collate_in **out, double *run_times,
                                uint64_t *trace_bytes, const char **traces)
{
    size_t n = 0, cap = 0;
    struct vftr_collate_in *v = NULL;

    for (int r = 0; r < size; r++) {
        char *p = all + displs[r], *end = p + lens[r];

        while (p < end) {
            char *nl = memchr(p, '\n', (size_t)(end - p)), *fld[3 + VFTR_COLLATE_MAXCTR];
            int k = 0;

            if (nl == NULL)
                break;
            *nl = '\0';
            for (char *q = p; k < 3 + VFTR_COLLATE_MAXCTR; k++) {
                fld[k] = q;
                q = strchr(q, '\t');
                if (q == NULL) {
                    k++;
                    break;
                }
                *q++ = '\0';
            }
            p = nl + 1;
            if (fld[0][0] == 'R' && k >= 2) {
                run_times[r] = strtod(fld[1], NULL);
                continue;
            }
            if (fld[0][0] == 'T' && k >= 2) {
                trace_bytes[r] = strtoull(fld[1], NULL, 10);
                continue;
            }
            if (fld[0][0] == 'F' && k >= 2) {
                traces[r] = fld[1];
                continue;
            }
            if (n == cap) {
                struct vftr_collate_in *w = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof *v);
                if (w == NULL)
                    break;
                v = w;
            }
            struct vftr_collate_in *l = &v[n];
            memset(l, 0, sizeof *l);
            l->rank = r;
            if (fld[0][0] == 'P' && k >= 6) {
                l->kind = VFTR_COLLATE_PROFILE;
                l->path = fld[1];
                l->calls = strtoull(fld[2], NULL, 10);
                l->excl = strtod(fld[3], NULL);
                l->incl = strtod(fld[4], NULL);
                l->overhead = strtod(fld[5], NULL);
                n++;
            } else if (fld[0][0] == 'M' && k >= 6) {
                l->kind = VFTR_COLLATE_MPI;
                l->path = fld[1];
                l->sends = strtoull(fld[2], NULL, 10);
                l->recvs = strtoull(fld[3], NULL, 10);
                l->sent_bytes = strtoull(fld[4], NULL, 10);
                l->recv_bytes = strtoull(fld[5], NULL, 10);
                n++;
            } else if (fld[0][0] == 'K' && k >= 2) {
                l->kind = VFTR_COLLATE_CTR_NAMES;
                l->path = fld[1];
                n++;
            } else if (fld[0][0] == 'C' && k >= 3) {
                l->kind = VFTR_COLLATE_COUNTERS;
                l->path = fld[1];
                l->calls = strtoull(fld[2], NULL, 10);
                for (l->nctr = 0; (int)l->nctr + 3 < k; l->nctr++)
                    l->ctr[l->nctr] = strtoull(fld[3 + l->nctr], NULL, 10);
                n++;
            }
        }
    }
    *out = v;
    return n;
}

VFTR_MPI_NI void vftr_mpi_collate(MPI_Comm comm, int rank, int size)
{
    struct text t = { 0 };
    int len, *lens = NULL, *displs = NULL;
    char *all = NULL;
    size_t total = 0;

    if (vftr_mpi_is_active()) {
        /* this thread's events so far into the trace file: rank 0 reads
         * them for the waits of _all.log once it has every rank's lines */
        (void)vftr_ext_flush();
        own_lines(&t);
    }
    len = t.failed || t.len > INT_MAX ? 0 : (int)t.len;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof *lens);
        displs = calloc((size_t)size, sizeof *displs);
    }
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    if (rank == 0 && lens && displs) {
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += (size_t)lens[r];
            if (total > INT_MAX) {   /* too much to gather at once: every rank's share cut */
                lens[r] = 0;
                total = (size_t)displs[r];
            }
        }
        all = malloc(total + 1);
    }
    /* every rank takes part even when rank 0 is short of memory (then it
     * receives nothing: counts of 0) */
    if (rank == 0 && (all == NULL || lens == NULL || displs == NULL)) {
        free(lens), free(displs), free(all);
        lens = calloc((size_t)size, sizeof *lens);
        displs = calloc((size_t)size, sizeof *displs);
        all = NULL;
    }
    PMPI_Gatherv(t.s ? t.s : "", len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, comm);
    if (rank == 0 && all && vftr_mpi_is_active()) {
        struct vftr_collate_in *v = NULL;
        double *run_times = calloc((size_t)size, sizeof *run_times);
        uint64_t *trace_bytes = calloc((size_t)size, sizeof *trace_bytes);
        const char **traces = calloc((size_t)size, sizeof *traces);
        size_t n = run_times && trace_bytes && traces
                   ? parse(all, lens, displs, size, &v, run_times, trace_bytes, traces) : 0;
        int rc = run_times && trace_bytes && traces
                 ? vftr_ext_write_all_log(v, n, size, run_times, trace_bytes) : -ENOMEM;
        int all_traced = rc == 0;

        for (int r = 0; all_traced && r < size; r++)
            all_traced = traces[r] != NULL;
        /* the largest waits, when every rank's trace is there to read */
        if (all_traced)
            rc = vftr_ext_append_waits(traces, (size_t)size);
        if (rc < 0 && rc != -EAGAIN)
            fprintf(stderr, "vftr: rank 0: cannot write %s/%s_all.log: %s\n", vftr_ext_outdir(),
                    vftr_ext_basename(), strerror(-rc));
        free(traces);
        free(v);
        free(run_times);
        free(trace_bytes);
    }
    free(t.s);
    free(lens);
    free(displs);
    free(all);
}
