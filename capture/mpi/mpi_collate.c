/*
 * mpi_collate.c — <base>_all.log (mpi_collate.h).  Each rank turns its rows
 * into tab-separated text lines ("P function caller calls excl incl",
 * "M name calls msgs bytes seconds"), rank 0 gathers them (PMPI_Gather of
 * the lengths, PMPI_Gatherv of the text), sorts them by (kind, name,
 * caller, rank) and walks the groups.  Text keeps the exchange independent
 * of pointer sizes and of names' lengths.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
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

/* Names travel in tab-separated lines: tabs and newlines in them (C++
 * signatures do not have any, but a region name might) become blanks. */
static VFTR_MPI_NI void clean(char *dst, size_t cap, const char *src)
{
    size_t i;

    for (i = 0; src[i] && i + 1 < cap; i++)
        dst[i] = src[i] == '\t' || src[i] == '\n' ? ' ' : src[i];
    dst[i] = '\0';
}

static VFTR_MPI_NI void own_lines(struct text *t)
{
    struct vftr_ext_row *rows;
    long n = vftr_ext_profile(&rows);
    double tps = vftr_ext_ticks_per_second();
    char f[512], c[512];

    for (long i = 0; i < n; i++) {
        clean(f, sizeof f, rows[i].function);
        clean(c, sizeof c, rows[i].caller);
        text_add(t, "P\t%s\t%s\t%llu\t%.9g\t%.9g\n", f, c, (unsigned long long)rows[i].calls,
                 rows[i].excl, rows[i].incl);
    }
    if (n >= 0)
        vftr_ext_profile_free(rows);
    for (int fn = 0; fn < VFTR_MPI_FN_COUNT; fn++) {
        uint64_t calls, ticks, msgs, bytes;

        if (vftr_mpi_stats(fn, &calls, &ticks, &msgs, &bytes) == 0 && calls > 0)
            text_add(t, "M\t%s\t-\t%llu\t%llu\t%llu\t%.9g\n", vftr_mpi_fn_names[fn],
                     (unsigned long long)calls, (unsigned long long)msgs,
                     (unsigned long long)bytes, tps > 0 ? (double)ticks / tps : 0.0);
    }
}

struct line {
    char kind;
    const char *name, *caller;
    int rank;
    unsigned long long calls, msgs, bytes;
    double excl, seconds;
};

static VFTR_MPI_NI int line_cmp(const void *a, const void *b)
{
    const struct line *x = a, *y = b;
    int d;

    if (x->kind != y->kind)
        return x->kind - y->kind;
    if ((d = strcmp(x->name, y->name)) != 0)
        return d;
    if ((d = strcmp(x->caller, y->caller)) != 0)
        return d;
    return x->rank - y->rank;
}

/* Splits the gathered text in place into lines; returns their number. */
static VFTR_MPI_NI size_t parse(char *all, const int *lens, const int *displs, int size,
                                struct line **out)
{
    size_t n = 0, cap = 0;
    struct line *v = NULL;

    for (int r = 0; r < size; r++) {
        char *p = all + displs[r], *end = p + lens[r];

        while (p < end) {
            char *nl = memchr(p, '\n', (size_t)(end - p)), *fld[8];
            int k = 0;

            if (nl == NULL)
                break;
            *nl = '\0';
            for (char *q = p; k < 8; k++) {
                fld[k] = q;
                q = strchr(q, '\t');
                if (q == NULL) {
                    k++;
                    break;
                }
                *q++ = '\0';
            }
            if (n == cap) {
                struct line *w = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof *v);
                if (w == NULL)
                    break;
                v = w;
            }
            struct line *l = &v[n];
            memset(l, 0, sizeof *l);
            l->rank = r;
            if (fld[0][0] == 'P' && k >= 6) {
                l->kind = 'P';
                l->name = fld[1];
                l->caller = fld[2];
                l->calls = strtoull(fld[3], NULL, 10);
                l->excl = strtod(fld[4], NULL);
                n++;
            } else if (fld[0][0] == 'M' && k >= 7) {
                l->kind = 'M';
                l->name = fld[1];
                l->caller = "";
                l->calls = strtoull(fld[3], NULL, 10);
                l->msgs = strtoull(fld[4], NULL, 10);
                l->bytes = strtoull(fld[5], NULL, 10);
                l->seconds = strtod(fld[6], NULL);
                n++;
            }
            p = nl + 1;
        }
    }
    *out = v;
    return n;
}

static VFTR_MPI_NI void write_log(FILE *f, struct line *v, size_t n, int size)
{
    uint8_t id[16];

    vftr_ext_get_run_id(id);
    fprintf(f, "vftr collated profile: %d ranks, run id ", size);
    for (int i = 0; i < 16; i++)
        fprintf(f, "%02x", id[i]);
    fprintf(f, "\n\nProfile over ranks (exclusive seconds; min, avg and max over the ranks that"
               " called the function from that caller)\n");
    fprintf(f, "%12s %6s %12s %12s %12s %7s  %-32s %s\n", "Calls", "Ranks", "Min", "Avg", "Max",
            "Imbal%", "Function", "Caller");
    for (size_t i = 0, j; i < n; i = j) {
        unsigned long long calls = 0;
        double mn = 0, mx = 0, sum = 0;
        int ranks = 0;

        for (j = i; j < n && v[j].kind == v[i].kind && strcmp(v[j].name, v[i].name) == 0
                    && strcmp(v[j].caller, v[i].caller) == 0; j++) {
            double excl = v[j].excl;

            if (v[j].kind != 'P')
                continue;
            calls += v[j].calls;
            /* one row per thread: a rank's rows are adjacent, summed first */
            while (j + 1 < n && v[j + 1].kind == 'P' && v[j + 1].rank == v[j].rank
                   && strcmp(v[j + 1].name, v[j].name) == 0
                   && strcmp(v[j + 1].caller, v[j].caller) == 0) {
                j++;
                calls += v[j].calls;
                excl += v[j].excl;
            }
            if (ranks == 0 || excl < mn)
                mn = excl;
            if (ranks == 0 || excl > mx)
                mx = excl;
            sum += excl;
            ranks++;
        }
        if (v[i].kind != 'P')
            continue;
        double avg = ranks ? sum / ranks : 0;
        fprintf(f, "%12llu %6d %12.6f %12.6f %12.6f %7.2f  %-32s %s\n", calls, ranks, mn, avg, mx,
                100.0 * vftr_imbalance(mx, avg), v[i].name, v[i].caller[0] ? v[i].caller : "-");
    }
    fprintf(f, "\nMPI over ranks (summed; messages and bytes completed by the function)\n");
    fprintf(f, "%-26s %12s %12s %16s %12s %12s\n", "Function", "Calls", "Messages", "Bytes",
            "Time(s)", "MB/s");
    for (size_t i = 0, j; i < n; i = j) {
        unsigned long long calls = 0, msgs = 0, bytes = 0;
        double sec = 0;

        for (j = i; j < n && v[j].kind == v[i].kind && strcmp(v[j].name, v[i].name) == 0; j++) {
            calls += v[j].calls;
            msgs += v[j].msgs;
            bytes += v[j].bytes;
            sec += v[j].seconds;
        }
        if (v[i].kind != 'M')
            continue;
        fprintf(f, "%-26s %12llu %12llu %16llu %12.6f %12.3f\n", v[i].name, calls, msgs, bytes,
                sec, sec > 0 ? (double)bytes / sec / 1e6 : 0.0);
    }
}

VFTR_MPI_NI void vftr_mpi_collate(MPI_Comm comm, int rank, int size)
{
    struct text t = { 0 };
    int len, *lens = NULL, *displs = NULL;
    char *all = NULL;
    size_t total = 0;

    if (vftr_mpi_is_active())
        own_lines(&t);
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
        char path[4096];
        struct line *v = NULL;
        size_t n = parse(all, lens, displs, size, &v);
        FILE *f;

        qsort(v, n, sizeof *v, line_cmp);
        snprintf(path, sizeof path, "%s/%s_all.log", vftr_ext_outdir(), vftr_ext_basename());
        if ((f = fopen(path, "w")) != NULL) {
            write_log(f, v, n, size);
            fclose(f);
        }
        free(v);
    }
    free(t.s);
    free(lens);
    free(displs);
    free(all);
}
