/*
 * logfile.c — the profile logs (see logfile.h for the contract).
 *
 * Every table is printed through one small engine (print_table): a list of
 * columns, each with a header, an alignment and a cell formatter, and an
 * order of rows.  Widths are fitted in a first pass over the cells and the
 * rows printed in a second, so a column is as wide as its widest cell or
 * its header, and no line carries trailing blanks.  A column that can hold
 * arbitrarily long text (the call path) is only ever the last one and is
 * printed straight to the stream instead of through a cell buffer.
 *
 * Call paths are followed through parent ids: an index of the rows sorted
 * by call-path id is built once per print and searched with bsearch.  The
 * walks are bounded by the number of rows, so a parent cycle in a damaged
 * profile ends instead of looping.
 */
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fmt.h"


#define CELL_MAX 64

/* Names of the columns the log sorts by (the configuration's words). */
static const char *sort_name(enum vftr_sort_column c)
{
    const char *s = vftr_sort_column_name(c);

    return strcmp(s, "?") ? s : "none";
}

void vftr_logfile_opts_default(struct vftr_logfile_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->show_table = true;
    opts->sort_column = VFTR_SORT_TIME_EXCL;
    opts->show_imbalances = true;
    opts->show_minmax = true;
    opts->show_stacklist = true;
    opts->grouped_sort_column = VFTR_SORT_TIME_EXCL;
    opts->grouped_max_stack_ids = 8;
    opts->show_mpi = true;
    opts->mpi_sort_column = VFTR_SORT_NONE;
}

/* ------------------------------------------------------------------ sort */

struct sort_ctx {
    const struct vftr_profile_row *rows;
    enum vftr_sort_column col;
    int sign;                       /* +1 ascending, -1 descending */
};

static int cmp_double(double a, double b)
{
    return (a > b) - (a < b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

static int sort_cmp(const void *pa, const void *pb, void *arg)
{
    const struct sort_ctx *c = arg;
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    const struct vftr_profile_row *a = &c->rows[ia], *b = &c->rows[ib];
    int r = 0;

    switch (c->col) {
    case VFTR_SORT_TIME_EXCL: r = cmp_double(a->time_excl, b->time_excl); break;
    case VFTR_SORT_TIME_INCL: r = cmp_double(a->time_incl, b->time_incl); break;
    case VFTR_SORT_CALLS:     r = cmp_u64(a->calls, b->calls); break;
    case VFTR_SORT_STACK_ID:  r = cmp_u64(a->callpath_id, b->callpath_id); break;
    case VFTR_SORT_OVERHEAD:  r = cmp_double(a->overhead, b->overhead); break;
    default:                  r = 0; break;   /* none, MPI columns */
    }
    if (r)
        return r * c->sign;
    /* Ties: the index order, whatever the direction, so that output does
     * not depend on qsort's implementation. */
    return cmp_u64(ia, ib);
}

void vftr_logfile_sort(const struct vftr_profile_row *rows, size_t *order, size_t n,
                       enum vftr_sort_column col, bool ascending)
{
    struct sort_ctx c = { rows, col, ascending ? 1 : -1 };

    if (n > 1)
        qsort_r(order, n, sizeof *order, sort_cmp, &c);
}

/* Sorting by a key computed per index (the MPI table, the min/max
 * summary): key[i] belongs to index i; ties keep the index order. */
struct key_ctx {
    const double *key;
    int sign;
};

static int key_cmp(const void *pa, const void *pb, void *arg)
{
    const struct key_ctx *c = arg;
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    int r = cmp_double(c->key[ia], c->key[ib]);

    return r ? r * c->sign : cmp_u64(ia, ib);
}

static void sort_by_key(size_t *order, size_t n, const double *key, bool ascending)
{
    struct key_ctx c = { key, ascending ? 1 : -1 };

    if (n > 1)
        qsort_r(order, n, sizeof *order, key_cmp, &c);
}

/* a / b, or 0 when b is not positive (no messages, no time). */
static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0.0;
}

/* ------------------------------------------------------------------ ids */

/* Row indices sorted by call-path id, for parent lookups. */
struct id_index {
    const struct vftr_profile_row *rows;
    size_t *by_id;
    size_t n;
};

static int id_cmp(const void *pa, const void *pb, void *arg)
{
    const struct vftr_profile_row *rows = arg;
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    int r = cmp_u64(rows[ia].callpath_id, rows[ib].callpath_id);

    return r ? r : cmp_u64(ia, ib);
}

static int id_index_init(struct id_index *x, const struct vftr_profile *p)
{
    x->rows = p->rows;
    x->n = p->n;
    x->by_id = malloc((p->n ? p->n : 1) * sizeof *x->by_id);
    if (!x->by_id)
        return -ENOMEM;
    for (size_t i = 0; i < p->n; i++)
        x->by_id[i] = i;
    if (p->n > 1)
        qsort_r(x->by_id, p->n, sizeof *x->by_id, id_cmp, (void *)p->rows);
    return 0;
}

/* Index of the row with call-path id `id`, or SIZE_MAX. */
static size_t id_index_find(const struct id_index *x, uint32_t id)
{
    size_t lo = 0, hi = x->n;

    if (id == 0)
        return SIZE_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t m = x->rows[x->by_id[mid]].callpath_id;

        if (m < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < x->n && x->rows[x->by_id[lo]].callpath_id == id)
        return x->by_id[lo];
    return SIZE_MAX;
}

/* The time in the calls of MPI row i: its call path's inclusive time (0
 * without a profile row). */
static double mpi_seconds(const struct vftr_profile *p, const struct id_index *ids, size_t i)
{
    size_t r = id_index_find(ids, p->mpi[i].callpath_id);

    return r == SIZE_MAX ? 0.0 : p->rows[r].time_incl;
}

/* The key of MPI row i for column col. */
static double mpi_key(const struct vftr_profile *p, const struct id_index *ids, size_t i,
                      enum vftr_sort_column col)
{
    const struct vftr_mpi_row *m = &p->mpi[i];
    double sec = mpi_seconds(p, ids, i);

    switch (col) {
    case VFTR_SORT_MESSAGES:  return (double)(m->sends + m->recvs);
    case VFTR_SORT_SEND_SIZE: return ratio((double)m->sent_bytes, (double)m->sends);
    case VFTR_SORT_RECV_SIZE: return ratio((double)m->recv_bytes, (double)m->recvs);
    case VFTR_SORT_SEND_BW:   return ratio((double)m->sent_bytes, sec);
    case VFTR_SORT_RECV_BW:   return ratio((double)m->recv_bytes, sec);
    case VFTR_SORT_COMM_TIME: return sec;
    default:                  return (double)m->callpath_id;   /* stack_id, none */
    }
}

static void sort_mpi(const struct vftr_profile *p, const struct id_index *ids, size_t *order,
                     size_t n, double *key, enum vftr_sort_column col, bool ascending)
{
    for (size_t k = 0; k < n; k++)
        key[order[k]] = mpi_key(p, ids, order[k], col);
    sort_by_key(order, n, key, col == VFTR_SORT_NONE ? true : ascending);
}

int vftr_logfile_sort_mpi(const struct vftr_profile *p, size_t *order, size_t n,
                          enum vftr_sort_column col, bool ascending)
{
    struct id_index ids;
    double *key;

    if (n < 2)
        return 0;
    key = malloc((p->nmpi ? p->nmpi : 1) * sizeof *key);
    if (!key || id_index_init(&ids, p) < 0) {
        free(key);
        return -ENOMEM;
    }
    sort_mpi(p, &ids, order, n, key, col, ascending);
    free(ids.by_id);
    free(key);
    return 0;
}

static const char *name_or(const char *s, const char *dflt)
{
    return s && *s ? s : dflt;
}

static bool same_name(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Prints "function<caller<...<root" of row i. */
static void print_path(FILE *out, const struct id_index *x, size_t i)
{
    size_t steps = 0;

    fputs(name_or(x->rows[i].function, "?"), out);
    for (i = id_index_find(x, x->rows[i].parent_id); i != SIZE_MAX && steps < x->n;
         i = id_index_find(x, x->rows[i].parent_id), steps++)
        fprintf(out, "<%s", name_or(x->rows[i].function, "?"));
}

/* True when a proper ancestor of row i is the same function (recursion):
 * its inclusive time is then already inside the ancestor's. */
static bool has_recursive_ancestor(const struct id_index *x, size_t i)
{
    const char *f = x->rows[i].function;
    size_t steps = 0;

    for (size_t a = id_index_find(x, x->rows[i].parent_id); a != SIZE_MAX && steps < x->n;
         a = id_index_find(x, x->rows[a].parent_id), steps++)
        if (same_name(x->rows[a].function, f))
            return true;
    return false;
}

/* ------------------------------------------------------------------ tables */

enum align { LEFT, RIGHT };

struct column {
    const char *head;
    enum align align;
    /* Returns the text of the cell of row i (in buf, or a borrowed string). */
    const char *(*cell)(const void *ctx, size_t i, char *buf);
    /* Last column only: prints the cell itself (unbounded text). */
    void (*print)(FILE *out, const void *ctx, size_t i);
};

/* Prints header, rule and the rows order[0..n) of a table. */
static void print_table(FILE *out, const void *ctx, const struct column *cols, size_t ncols,
                        const size_t *order, size_t n)
{
    size_t width[16];
    char buf[CELL_MAX];

    for (size_t c = 0; c < ncols; c++) {
        width[c] = strlen(cols[c].head);
        if (cols[c].print)
            continue;
        for (size_t r = 0; r < n; r++) {
            size_t w = strlen(cols[c].cell(ctx, order[r], buf));

            if (w > width[c])
                width[c] = w;
        }
    }
    for (int line = 0; line < 2; line++) {
        for (size_t c = 0; c < ncols; c++) {
            bool last = c + 1 == ncols;
            const char *sep = c ? "  " : "";

            if (line == 0) {
                if (last && cols[c].align == LEFT)
                    fprintf(out, "%s%s", sep, cols[c].head);
                else
                    fprintf(out, "%s%*s", sep, cols[c].align == LEFT ? -(int)width[c] : (int)width[c],
                            cols[c].head);
            } else {
                fputs(sep, out);
                for (size_t k = 0; k < (last && cols[c].print ? strlen(cols[c].head) : width[c]); k++)
                    fputc('-', out);
            }
        }
        fputc('\n', out);
    }
    for (size_t r = 0; r < n; r++) {
        for (size_t c = 0; c < ncols; c++) {
            bool last = c + 1 == ncols;
            const char *sep = c ? "  " : "";

            if (cols[c].print) {
                fputs(sep, out);
                cols[c].print(out, ctx, order[r]);
                continue;
            }
            const char *s = cols[c].cell(ctx, order[r], buf);
            if (last && cols[c].align == LEFT)
                fprintf(out, "%s%s", sep, s);
            else
                fprintf(out, "%s%*s", sep, cols[c].align == LEFT ? -(int)width[c] : (int)width[c], s);
        }
        fputc('\n', out);
    }
}

/* Context of the per-call-path table and the stack list. */
struct prof_ctx {
    const struct vftr_profile *p;
    const struct id_index *ids;
};

static const char *fmt_seconds(char *buf, double s)
{
    snprintf(buf, CELL_MAX, "%.6f", s);
    return buf;
}

static const char *fmt_percent(char *buf, double part, double whole)
{
    if (!(whole > 0))
        return "-";
    snprintf(buf, CELL_MAX, "%.2f", 100.0 * part / whole);
    return buf;
}

#define PROW(ctx, i) (&((const struct prof_ctx *)(ctx))->p->rows[i])

static const char *c_calls(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%" PRIu64, PROW(ctx, i)->calls);
    return buf;
}

static const char *c_excl(const void *ctx, size_t i, char *buf)
{
    return fmt_seconds(buf, PROW(ctx, i)->time_excl);
}

static const char *c_incl(const void *ctx, size_t i, char *buf)
{
    return fmt_seconds(buf, PROW(ctx, i)->time_incl);
}

static const char *c_pct(const void *ctx, size_t i, char *buf)
{
    return fmt_percent(buf, PROW(ctx, i)->time_excl, ((const struct prof_ctx *)ctx)->p->run_time);
}

static const char *c_overhead(const void *ctx, size_t i, char *buf)
{
    return fmt_seconds(buf, PROW(ctx, i)->overhead);
}

static const char *c_stid(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%" PRIu32, PROW(ctx, i)->callpath_id);
    return buf;
}

static const char *c_thread(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%" PRIu32, PROW(ctx, i)->thread);
    return buf;
}

static const char *c_function(const void *ctx, size_t i, char *buf)
{
    (void)buf;
    return name_or(PROW(ctx, i)->function, "?");
}

static const char *c_caller(const void *ctx, size_t i, char *buf)
{
    (void)buf;
    return name_or(PROW(ctx, i)->caller, "-");
}

static void p_path(FILE *out, const void *ctx, size_t i)
{
    print_path(out, ((const struct prof_ctx *)ctx)->ids, i);
}

/* Over ranks. */
static const char *c_ranks(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%" PRIu32, PROW(ctx, i)->ranks);
    return buf;
}

static const char *c_imbal(const void *ctx, size_t i, char *buf)
{
    /* written as every vftr tool writes an imbalance (lib/util/fmt.h) */
    vftr_fmt_imbalance(PROW(ctx, i)->imbalance, buf, CELL_MAX);
    return buf;
}

static const char *c_rank_max(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%d", PROW(ctx, i)->rank_max);
    return buf;
}

static const char *c_rank_min(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%d", PROW(ctx, i)->rank_min);
    return buf;
}

static const char *c_excl_max(const void *ctx, size_t i, char *buf)
{
    return fmt_seconds(buf, PROW(ctx, i)->excl_max);
}

static const char *c_excl_min(const void *ctx, size_t i, char *buf)
{
    return fmt_seconds(buf, PROW(ctx, i)->excl_min);
}

static const char *c_excl_avg(const void *ctx, size_t i, char *buf)
{
    const struct vftr_profile_row *r = PROW(ctx, i);

    return fmt_seconds(buf, ratio(r->time_excl, (double)r->ranks));
}

static bool several_threads(const struct vftr_profile *p)
{
    if (p->nthreads > 1)
        return true;
    for (size_t i = 0; i < p->n; i++)
        if (p->rows[i].thread != 0)
            return true;
    return false;
}

static size_t *identity(size_t n)
{
    size_t *o = malloc((n ? n : 1) * sizeof *o);

    if (o)
        for (size_t i = 0; i < n; i++)
            o[i] = i;
    return o;
}

static int print_profile(FILE *out, const struct vftr_profile *p, const struct id_index *ids,
                         const struct vftr_logfile_opts *o, bool threads)
{
    struct prof_ctx ctx = { p, ids };
    struct column cols[14];
    size_t nc = 0;
    size_t *order = identity(p->n);
    bool over = p->nranks > 0, imbal = over && o->show_imbalances;

    if (!order)
        return -ENOMEM;
    vftr_logfile_sort(p->rows, order, p->n, o->sort_column, o->sort_ascending);

    cols[nc++] = (struct column){ "Calls", RIGHT, c_calls, NULL };
    if (over)
        cols[nc++] = (struct column){ "Ranks", RIGHT, c_ranks, NULL };
    cols[nc++] = (struct column){ "t_excl[s]", RIGHT, c_excl, NULL };
    cols[nc++] = (struct column){ "t_incl[s]", RIGHT, c_incl, NULL };
    cols[nc++] = (struct column){ "%", RIGHT, c_pct, NULL };
    if (o->show_overhead)
        cols[nc++] = (struct column){ "overhead[s]", RIGHT, c_overhead, NULL };
    if (imbal) {
        cols[nc++] = (struct column){ "Imbal", RIGHT, c_imbal, NULL };
        cols[nc++] = (struct column){ "on rank", RIGHT, c_rank_max, NULL };
    }
    cols[nc++] = (struct column){ "STID", RIGHT, c_stid, NULL };
    if (threads)
        cols[nc++] = (struct column){ "Thread", RIGHT, c_thread, NULL };
    cols[nc++] = (struct column){ "Function", LEFT, c_function, NULL };
    cols[nc++] = (struct column){ "Caller", LEFT, c_caller, NULL };
    if (o->show_callpath)
        cols[nc++] = (struct column){ "Call path", LEFT, NULL, p_path };

    if (over)
        fprintf(out, "Profile over %" PRIu32 " rank%s: %zu call path%s, sorted by %s, %s; calls "
                "and times summed over the ranks, %% = exclusive time in percent of the ranks' "
                "run times summed%s\n\n", p->nranks, p->nranks == 1 ? "" : "s", p->n,
                p->n == 1 ? "" : "s", sort_name(o->sort_column),
                o->sort_ascending ? "ascending" : "descending",
                imbal ? "; Imbal = (max - avg) / max of the exclusive time over the ranks that "
                        "ran the path, on rank = the rank of the max" : "");
    else
        fprintf(out, "Profile: %zu call path%s, sorted by %s, %s; %% = exclusive time in percent "
                "of the run time\n\n", p->n, p->n == 1 ? "" : "s", sort_name(o->sort_column),
                o->sort_ascending ? "ascending" : "descending");
    print_table(out, &ctx, cols, nc, order, p->n);
    free(order);
    return 0;
}

/* Over ranks: the extremes of each call path's exclusive time, sorted by
 * the largest (Vftrace's order). */
static int print_minmax(FILE *out, const struct vftr_profile *p, const struct id_index *ids)
{
    struct prof_ctx ctx = { p, ids };
    size_t *order = identity(p->n);
    double *key = malloc((p->n ? p->n : 1) * sizeof *key);
    static const struct column cols[] = {
        { "t_max[s]", RIGHT, c_excl_max, NULL },
        { "rank", RIGHT, c_rank_max, NULL },
        { "t_min[s]", RIGHT, c_excl_min, NULL },
        { "rank", RIGHT, c_rank_min, NULL },
        { "t_avg[s]", RIGHT, c_excl_avg, NULL },
        { "Ranks", RIGHT, c_ranks, NULL },
        { "STID", RIGHT, c_stid, NULL },
        { "Function", LEFT, c_function, NULL },
        { "Caller", LEFT, c_caller, NULL },
    };

    if (!order || !key) {
        free(order);
        free(key);
        return -ENOMEM;
    }
    for (size_t i = 0; i < p->n; i++)
        key[i] = p->rows[i].excl_max;
    sort_by_key(order, p->n, key, false);
    fprintf(out, "Min/max over %" PRIu32 " rank%s: exclusive time of each call path on the ranks "
            "that ran it (t_avg: over those ranks), sorted by t_max, descending\n\n", p->nranks,
            p->nranks == 1 ? "" : "s");
    print_table(out, &ctx, cols, sizeof cols / sizeof cols[0], order, p->n);
    free(order);
    free(key);
    return 0;
}

/* ------------------------------------------------------------------ MPI */

/* The MPI rows and, for each, the index of its profile row (SIZE_MAX: none). */
struct mpi_ctx {
    const struct vftr_profile *p;
    const struct id_index *ids;
    const size_t *prow;
};

#define MROW(ctx, i) (&((const struct mpi_ctx *)(ctx))->p->mpi[i])

static const char *fmt_u64(char *buf, uint64_t v)
{
    snprintf(buf, CELL_MAX, "%" PRIu64, v);
    return buf;
}

/* Bytes per message, or "-" without messages. */
static const char *fmt_avg(char *buf, uint64_t bytes, uint64_t msgs)
{
    if (!msgs)
        return "-";
    snprintf(buf, CELL_MAX, "%.1f", (double)bytes / (double)msgs);
    return buf;
}

/* MB/s (10^6 bytes per second), or "-" without time. */
static const char *fmt_bw(char *buf, uint64_t bytes, double seconds)
{
    if (!(seconds > 0))
        return "-";
    snprintf(buf, CELL_MAX, "%.3f", (double)bytes / seconds / 1e6);
    return buf;
}

/* The profile row of MPI row i, or NULL. */
static const struct vftr_profile_row *m_prow(const void *c, size_t i)
{
    const struct mpi_ctx *m = c;

    return m->prow[i] == SIZE_MAX ? NULL : &m->p->rows[m->prow[i]];
}

static double m_seconds(const void *c, size_t i)
{
    return m_prow(c, i) ? m_prow(c, i)->time_incl : 0.0;
}

static const char *m_calls(const void *c, size_t i, char *b)
{
    return fmt_u64(b, m_prow(c, i) ? m_prow(c, i)->calls : 0);
}
static const char *m_sends(const void *c, size_t i, char *b) { return fmt_u64(b, MROW(c, i)->sends); }
static const char *m_recvs(const void *c, size_t i, char *b) { return fmt_u64(b, MROW(c, i)->recvs); }
static const char *m_sbytes(const void *c, size_t i, char *b)
{
    return fmt_u64(b, MROW(c, i)->sent_bytes);
}
static const char *m_rbytes(const void *c, size_t i, char *b)
{
    return fmt_u64(b, MROW(c, i)->recv_bytes);
}
static const char *m_savg(const void *c, size_t i, char *b)
{
    return fmt_avg(b, MROW(c, i)->sent_bytes, MROW(c, i)->sends);
}
static const char *m_ravg(const void *c, size_t i, char *b)
{
    return fmt_avg(b, MROW(c, i)->recv_bytes, MROW(c, i)->recvs);
}
static const char *m_sbw(const void *c, size_t i, char *b)
{
    return fmt_bw(b, MROW(c, i)->sent_bytes, m_seconds(c, i));
}
static const char *m_rbw(const void *c, size_t i, char *b)
{
    return fmt_bw(b, MROW(c, i)->recv_bytes, m_seconds(c, i));
}
static const char *m_time(const void *c, size_t i, char *b)
{
    return fmt_seconds(b, m_seconds(c, i));
}
static const char *m_stid(const void *c, size_t i, char *b)
{
    snprintf(b, CELL_MAX, "%" PRIu32, MROW(c, i)->callpath_id);
    return b;
}

static const char *m_thread(const void *c, size_t i, char *b)
{
    const struct vftr_profile_row *r = m_prow(c, i);

    if (!r)
        return "-";
    snprintf(b, CELL_MAX, "%" PRIu32, r->thread);
    return b;
}

static const char *m_function(const void *c, size_t i, char *b)
{
    (void)b;
    return m_prow(c, i) ? name_or(m_prow(c, i)->function, "?") : "?";
}

static const char *m_caller(const void *c, size_t i, char *b)
{
    (void)b;
    return m_prow(c, i) ? name_or(m_prow(c, i)->caller, "-") : "-";
}

static void mp_path(FILE *out, const void *c, size_t i)
{
    const struct mpi_ctx *m = c;

    if (m->prow[i] == SIZE_MAX)
        fputs("?", out);
    else
        print_path(out, m->ids, m->prow[i]);
}

static int print_mpi(FILE *out, const struct vftr_profile *p, const struct id_index *ids,
                     const struct vftr_logfile_opts *o, bool threads)
{
    size_t *order = identity(p->nmpi), *prow = malloc((p->nmpi ? p->nmpi : 1) * sizeof *prow);
    double *key = malloc((p->nmpi ? p->nmpi : 1) * sizeof *key);
    struct mpi_ctx ctx = { p, ids, prow };
    struct column cols[16];
    size_t nc = 0, n = 0;
    bool over = p->nranks > 0;

    if (!order || !prow || !key) {
        free(order);
        free(prow);
        free(key);
        return -ENOMEM;
    }
    /* the rows that moved data */
    for (size_t i = 0; i < p->nmpi; i++) {
        const struct vftr_mpi_row *m = &p->mpi[i];

        prow[i] = id_index_find(ids, m->callpath_id);
        if (m->sends || m->recvs || m->sent_bytes || m->recv_bytes)
            order[n++] = i;
    }
    sort_mpi(p, ids, order, n, key, o->mpi_sort_column, o->mpi_sort_ascending);

    cols[nc++] = (struct column){ "Calls", RIGHT, m_calls, NULL };
    cols[nc++] = (struct column){ "Sends", RIGHT, m_sends, NULL };
    cols[nc++] = (struct column){ "Recvs", RIGHT, m_recvs, NULL };
    cols[nc++] = (struct column){ "Sent[B]", RIGHT, m_sbytes, NULL };
    cols[nc++] = (struct column){ "Recvd[B]", RIGHT, m_rbytes, NULL };
    cols[nc++] = (struct column){ "avg send[B]", RIGHT, m_savg, NULL };
    cols[nc++] = (struct column){ "avg recv[B]", RIGHT, m_ravg, NULL };
    cols[nc++] = (struct column){ "send[MB/s]", RIGHT, m_sbw, NULL };
    cols[nc++] = (struct column){ "recv[MB/s]", RIGHT, m_rbw, NULL };
    cols[nc++] = (struct column){ "t[s]", RIGHT, m_time, NULL };
    cols[nc++] = (struct column){ "STID", RIGHT, m_stid, NULL };
    if (threads)
        cols[nc++] = (struct column){ "Thread", RIGHT, m_thread, NULL };
    cols[nc++] = (struct column){ "Function", LEFT, m_function, NULL };
    cols[nc++] = (struct column){ "Caller", LEFT, m_caller, NULL };
    if (o->mpi_show_callpath)
        cols[nc++] = (struct column){ "Call path", LEFT, NULL, mp_path };

    if (over)
        fprintf(out, "MPI over %" PRIu32 " rank%s", p->nranks, p->nranks == 1 ? "" : "s");
    else
        fputs("MPI", out);
    fprintf(out, ": %zu call path%s of MPI functions that moved data, sorted by %s, %s; a "
            "collective counts as one message each way it moved data, MB/s = bytes / time in "
            "the calls%s\n\n", n, n == 1 ? "" : "s", sort_name(o->mpi_sort_column),
            o->mpi_sort_ascending ? "ascending" : "descending",
            over ? ", all summed over the ranks" : "");
    print_table(out, &ctx, cols, nc, order, n);
    free(order);
    free(prow);
    free(key);
    return 0;
}

static int print_stacklist(FILE *out, const struct vftr_profile *p, const struct id_index *ids,
                           bool threads)
{
    struct prof_ctx ctx = { p, ids };
    struct column cols[3];
    size_t nc = 0;
    size_t *order = identity(p->n);

    if (!order)
        return -ENOMEM;
    vftr_logfile_sort(p->rows, order, p->n, VFTR_SORT_STACK_ID, true);
    cols[nc++] = (struct column){ "STID", RIGHT, c_stid, NULL };
    if (threads)
        cols[nc++] = (struct column){ "Thread", RIGHT, c_thread, NULL };
    cols[nc++] = (struct column){ "Call path", LEFT, NULL, p_path };
    fprintf(out, "Call paths: %zu (function<caller<...)\n\n", p->n);
    print_table(out, &ctx, cols, nc, order, p->n);
    free(order);
    return 0;
}

/* ------------------------------------------------------------------ grouped */

/* One function name: sums over its call paths.  The row form lets the
 * same sort function order the groups; callpath_id holds the smallest id. */
struct group_ctx {
    struct vftr_profile_row *g;    /* one per name */
    uint32_t **stids;              /* call-path ids per name, ascending */
    size_t *nstids;
    const struct vftr_profile *p;
    unsigned max_ids;
};

#define GROW(ctx, i) (&((const struct group_ctx *)(ctx))->g[i])

static const char *g_calls(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%" PRIu64, GROW(ctx, i)->calls);
    return buf;
}

static const char *g_excl(const void *ctx, size_t i, char *buf)
{
    return fmt_seconds(buf, GROW(ctx, i)->time_excl);
}

static const char *g_incl(const void *ctx, size_t i, char *buf)
{
    return fmt_seconds(buf, GROW(ctx, i)->time_incl);
}

static const char *g_pct(const void *ctx, size_t i, char *buf)
{
    return fmt_percent(buf, GROW(ctx, i)->time_excl, ((const struct group_ctx *)ctx)->p->run_time);
}

static const char *g_function(const void *ctx, size_t i, char *buf)
{
    (void)buf;
    return name_or(GROW(ctx, i)->function, "?");
}

static const char *g_nstids(const void *ctx, size_t i, char *buf)
{
    snprintf(buf, CELL_MAX, "%zu", ((const struct group_ctx *)ctx)->nstids[i]);
    return buf;
}

static void gp_stids(FILE *out, const void *ctx, size_t i)
{
    const struct group_ctx *c = ctx;
    size_t n = c->nstids[i];

    for (size_t k = 0; k < n && k < c->max_ids; k++)
        fprintf(out, "%s%" PRIu32, k ? "," : "", c->stids[i][k]);
    if (n > c->max_ids)
        fputs(c->max_ids ? ",..." : "...", out);
}

static int name_cmp(const void *pa, const void *pb, void *arg)
{
    const struct vftr_profile_row *rows = arg;
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    int r = strcmp(name_or(rows[ia].function, "?"), name_or(rows[ib].function, "?"));

    return r ? r : cmp_u64(rows[ia].callpath_id, rows[ib].callpath_id);
}

static int print_grouped(FILE *out, const struct vftr_profile *p, const struct id_index *ids,
                         const struct vftr_logfile_opts *o)
{
    struct group_ctx c = { 0 };
    size_t *by_name = identity(p->n), *order = NULL, ng = 0;
    size_t *first = NULL;           /* row index of each group's first appearance */
    uint32_t *stid_pool = NULL;
    int rc = -ENOMEM;

    c.p = p;
    c.max_ids = o->grouped_max_stack_ids;
    if (!by_name)
        goto out;
    c.g = calloc(p->n ? p->n : 1, sizeof *c.g);
    c.stids = calloc(p->n ? p->n : 1, sizeof *c.stids);
    c.nstids = calloc(p->n ? p->n : 1, sizeof *c.nstids);
    first = calloc(p->n ? p->n : 1, sizeof *first);
    stid_pool = calloc(p->n ? p->n : 1, sizeof *stid_pool);
    if (!c.g || !c.stids || !c.nstids || !first || !stid_pool)
        goto out;
    if (p->n > 1)
        qsort_r(by_name, p->n, sizeof *by_name, name_cmp, p->rows);

    for (size_t k = 0; k < p->n; k++) {
        const struct vftr_profile_row *r = &p->rows[by_name[k]];

        if (k == 0 || strcmp(name_or(r->function, "?"), name_or(c.g[ng - 1].function, "?")) != 0) {
            c.g[ng].function = r->function;
            c.g[ng].callpath_id = r->callpath_id;
            c.stids[ng] = &stid_pool[k];
            first[ng] = by_name[k];
            ng++;
        }
        struct vftr_profile_row *g = &c.g[ng - 1];
        g->calls += r->calls;
        g->time_excl += r->time_excl;
        g->overhead += r->overhead;
        if (!has_recursive_ancestor(ids, by_name[k]))
            g->time_incl += r->time_incl;
        if (by_name[k] < first[ng - 1])
            first[ng - 1] = by_name[k];
        c.stids[ng - 1][c.nstids[ng - 1]++] = r->callpath_id;
    }

    /* "none" keeps the order in which the names first appear in the rows:
     * renumber the groups so that the index tie-break yields it. */
    order = identity(ng);
    if (!order)
        goto out;
    if (o->grouped_sort_column == VFTR_SORT_NONE) {
        for (size_t i = 1; i < ng; i++)
            for (size_t j = i; j > 0 && first[order[j - 1]] > first[order[j]]; j--) {
                size_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
    } else {
        vftr_logfile_sort(c.g, order, ng, o->grouped_sort_column, o->grouped_sort_ascending);
    }

    struct column cols[] = {
        { "Calls", RIGHT, g_calls, NULL },
        { "t_excl[s]", RIGHT, g_excl, NULL },
        { "t_incl[s]", RIGHT, g_incl, NULL },
        { "%", RIGHT, g_pct, NULL },
        { "Function", LEFT, g_function, NULL },
        { "Paths", RIGHT, g_nstids, NULL },
        { "STIDs", LEFT, NULL, gp_stids },
    };
    fprintf(out, "Profile grouped by function name: %zu function%s, sorted by %s, %s\n\n", ng,
            ng == 1 ? "" : "s", sort_name(o->grouped_sort_column),
            o->grouped_sort_ascending ? "ascending" : "descending");
    print_table(out, &c, cols, sizeof cols / sizeof cols[0], order, ng);
    rc = 0;
out:
    free(by_name);
    free(order);
    free(first);
    free(stid_pool);
    free(c.g);
    free(c.stids);
    free(c.nstids);
    return rc;
}

/* ------------------------------------------------------------------ summary */

static void print_time(FILE *out, const char *label, const struct timespec *t)
{
    struct tm tm;
    char buf[32];
    time_t s = t->tv_sec;

    fprintf(out, "  %-16s", label);
    if ((t->tv_sec == 0 && t->tv_nsec == 0) || !gmtime_r(&s, &tm) ||
        !strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm)) {
        fputs("-\n", out);
        return;
    }
    fprintf(out, "%s.%06ld UTC\n", buf, (long)(t->tv_nsec / 1000));
}

/* Over ranks: what rank 0 knows of the run and the ranks' run times. */
static void print_summary_over(FILE *out, const struct vftr_profile *p,
                               const struct vftr_run_info *run)
{
    fprintf(out, "Run over ranks\n\n");
    fprintf(out, "  %-16s%s\n", "program", name_or(run->exe, "-"));
    fprintf(out, "  %-16s%" PRIu32 "\n", "ranks", p->nranks);
    fprintf(out, "  %-16s%s (rank 0)\n", "host", name_or(run->host, "-"));
    fprintf(out, "  %-16s", "run id");
    for (int i = 0; i < 16; i++)
        fprintf(out, "%02x", run->run_id[i]);
    fputc('\n', out);
    print_time(out, "start", &run->start);
    print_time(out, "end", &run->end);
    fprintf(out, "  %-16s%.6f s, summed over the ranks\n", "run time", p->run_time);
    fprintf(out, "  %-16s%s\n", "clock", name_or(run->clock, "-"));
    /* what the job's trace cost, and what it may cost at most */
    if (run->job_trace_bytes)
        fprintf(out, "  %-16s%" PRIu64 " bytes over the %" PRIu32 " ranks by MPI_Finalize "
                "(largest: rank %d, %" PRIu64 " bytes)\n", "trace", run->job_trace_bytes,
                p->nranks, run->job_trace_max_rank, run->job_trace_max);
    if (run->trace_cap)
        fprintf(out, "  %-16s%" PRIu64 " bytes a rank\n", "size cap", run->trace_cap);
    if (run->trace_job_cap)
        fprintf(out, "  %-16s%" PRIu64 " bytes over the job's %" PRIu32 " ranks "
                "(trace.max_job_size)\n", "job cap", run->trace_job_cap, p->nranks);
}

static void print_summary(FILE *out, const struct vftr_profile *p, const struct vftr_run_info *run,
                          uint32_t nthreads)
{
    if (p->nranks > 0) {
        print_summary_over(out, p, run);
        return;
    }
    fprintf(out, "Run\n\n");
    fprintf(out, "  %-16s%s\n", "program", name_or(run->exe, "-"));
    fprintf(out, "  %-16s%d of %d\n", "rank", run->rank, run->size);
    fprintf(out, "  %-16s%" PRId64 "\n", "pid", run->pid);
    fprintf(out, "  %-16s%s\n", "host", name_or(run->host, "-"));
    fprintf(out, "  %-16s", "run id");
    for (int i = 0; i < 16; i++)
        fprintf(out, "%02x", run->run_id[i]);
    fputc('\n', out);
    print_time(out, "start", &run->start);
    print_time(out, "end", &run->end);
    fprintf(out, "  %-16s%.6f s\n", "run time", p->run_time);
    fprintf(out, "  %-16s%" PRIu32 "\n", "threads", nthreads);
    if (run->ticks_per_second > 0)
        fprintf(out, "  %-16s%s, %.0f ticks/s\n", "clock", name_or(run->clock, "-"),
                run->ticks_per_second);
    else
        fprintf(out, "  %-16s%s\n", "clock", name_or(run->clock, "-"));
    if (run->throttled)
        fprintf(out, "  %-16s%s\n", "throttled", run->throttled);
    if (run->patched)
        fprintf(out, "  %-16s%s\n", "patched", run->patched);
    if (run->no_hooks)
        fprintf(out, "  %-16s%s\n", "functions", VFTR_LOG_NO_HOOKS);

    if (!run->vfd_path) {
        if (run->trace_message)
            fprintf(out, "  %-16soff: %s\n", "trace", run->trace_message);
        else
            fprintf(out, "  %-16snone\n", "trace");
        return;
    }
    fprintf(out, "  %-16s%s\n", "trace", name_or(run->vfd_path, "-"));
    if (run->sample_interval > 0)
        fprintf(out, "  %-16severy %g s, and every call of the precise functions\n", "sampling",
                run->sample_interval);
    else
        fprintf(out, "  %-16severy event\n", "sampling");
    fprintf(out, "  %-16s%" PRIu64 "\n", "events written", run->trace_events);
    fprintf(out, "  %-16s%" PRIu64, "bytes written", run->trace_bytes);
    if (run->trace_events)
        fprintf(out, " (%.2f per event)", (double)run->trace_bytes / (double)run->trace_events);
    fputc('\n', out);
    if (run->trace_cap)
        fprintf(out, "  %-16s%" PRIu64 " bytes, %s\n", "size cap", run->trace_cap,
                run->trace_capped ? "reached: tracing stopped there, the profile went on" :
                                    "not reached");
    else if (run->trace_capped)
        fprintf(out, "  %-16sreached: tracing stopped there, the profile went on\n", "size cap");
    /* what the job's trace may cost in all, and this rank's share of it */
    if (run->trace_job_cap)
        fprintf(out, "  %-16s%" PRIu64 " bytes over the job's %d rank%s (trace.max_job_size)\n",
                "job cap", run->trace_job_cap, run->size, run->size == 1 ? "" : "s");
    if (run->trace_message)
        fprintf(out, "  %-16s%s\n", "trace stopped", run->trace_message);
}

/* ------------------------------------------------------------------ entry */

/* The sections that may go into files of their own (profile_table.separate). */
enum { SEC_GROUPED, SEC_MINMAX, SEC_MPI, NSEC };

/* File name suffixes of those sections (Vftrace's), and their titles for
 * the line that stands in the log in their place. */
static const char *const sec_suffix[NSEC] = { "namegroup", "minmax", "mpi" };
static const char *const sec_title[NSEC] = {
    "Profile grouped by function name", "Min/max over ranks", "MPI",
};

/* Where each section goes: the log, or a file of its own (then `name` is
 * its file name without the directory, for the line in the log). */
struct outs {
    FILE *main;
    FILE *sec[NSEC];
    const char *name[NSEC];
};

/* Which of the separable sections this log has. */
static bool section_present(int sec, const struct vftr_profile *p,
                            const struct vftr_logfile_opts *o)
{
    switch (sec) {
    case SEC_GROUPED: return o->show_grouped;
    case SEC_MINMAX:  return o->show_minmax && p->nranks > 0;
    case SEC_MPI:     return o->show_mpi && p->has_mpi;
    }
    return false;
}

static int print_section(const struct outs *o, int sec, const struct vftr_profile *p,
                         const struct id_index *ids, const struct vftr_logfile_opts *opts,
                         bool threads)
{
    FILE *out = o->sec[sec];
    int rc = 0;

    if (out != o->main)
        fprintf(o->main, "%s: in %s\n\n", sec_title[sec], o->name[sec]);
    switch (sec) {
    case SEC_GROUPED: rc = print_grouped(out, p, ids, opts); break;
    case SEC_MINMAX:  rc = print_minmax(out, p, ids); break;
    case SEC_MPI:     rc = print_mpi(out, p, ids, opts, threads); break;
    }
    if (rc == 0)
        fputc('\n', out);
    return rc;
}

static int print_log(const struct outs *o, const struct vftr_profile *p,
                     const struct vftr_run_info *run, const struct vftr_logfile_opts *opts)
{
    FILE *out = o->main;
    struct id_index ids;
    bool threads;
    uint32_t nthreads;
    int rc;

    rc = id_index_init(&ids, p);
    if (rc)
        return rc;
    threads = several_threads(p);
    nthreads = p->nthreads;
    if (!nthreads) {
        for (size_t i = 0; i < p->n; i++)
            if (p->rows[i].thread + 1 > nthreads)
                nthreads = p->rows[i].thread + 1;
        if (!nthreads)
            nthreads = 1;
    }

    fprintf(out, p->nranks > 0 ? "vftr profile log over ranks\n\n" : "vftr profile log\n\n");
    if (run) {
        print_summary(out, p, run, nthreads);
        fputc('\n', out);
    }
    if (opts->show_table) {
        rc = print_profile(out, p, &ids, opts, threads);
        if (rc)
            goto out;
        fputc('\n', out);
    }
    /* the min/max summary belongs to the profile; the name-grouped and the
     * MPI table come next, as in Vftrace's logs */
    static const int order[NSEC] = { SEC_MINMAX, SEC_GROUPED, SEC_MPI };
    for (int k = 0; k < NSEC; k++) {
        if (!section_present(order[k], p, opts))
            continue;
        rc = print_section(o, order[k], p, &ids, opts, threads);
        if (rc)
            goto out;
    }
    if (opts->show_stacklist) {
        rc = print_stacklist(out, p, &ids, threads);
        if (rc)
            goto out;
        fputc('\n', out);
    }
    if (opts->config) {
        fprintf(out, "Configuration in use\n\n");
        rc = vftr_config_print_json(opts->config, out);
        if (rc)
            goto out;
        fputc('\n', out);
    }
    rc = ferror(out) ? -EIO : 0;
    for (int k = 0; k < NSEC && rc == 0; k++)
        if (o->sec[k] && ferror(o->sec[k]))
            rc = -EIO;
out:
    free(ids.by_id);
    return rc;
}

int vftr_logfile_print(FILE *out, const struct vftr_profile *p, const struct vftr_run_info *run,
                       const struct vftr_logfile_opts *opts)
{
    struct vftr_logfile_opts dflt;
    struct outs o = { .main = out };

    if (!out || !p || (p->n && !p->rows) || (p->nmpi && !p->mpi))
        return -EINVAL;
    if (!opts) {
        vftr_logfile_opts_default(&dflt);
        opts = &dflt;
    }
    for (int k = 0; k < NSEC; k++)
        o.sec[k] = out;
    return print_log(&o, p, run, opts);
}

void vftr_logfile_opts_from_config(struct vftr_logfile_opts *opts, const struct vftr_config *cfg)
{
    vftr_logfile_opts_default(opts);
    if (!cfg)
        return;
    opts->show_table = cfg->profile_table_show_table;
    opts->sort_column = cfg->profile_table_sort_table_column;
    opts->sort_ascending = cfg->profile_table_sort_table_ascending;
    opts->show_overhead = cfg->profile_table_show_overhead;
    opts->show_callpath = cfg->profile_table_show_callpath;
    opts->show_imbalances = cfg->profile_table_show_calltime_imbalances;
    opts->show_minmax = cfg->profile_table_show_minmax_summary;
    opts->separate = cfg->profile_table_separate;
    opts->show_stacklist = cfg->stacklist_show_stacklist;
    opts->show_grouped = cfg->name_grouped_profile_table_show_table;
    opts->grouped_sort_column = cfg->name_grouped_profile_table_sort_table_column;
    opts->grouped_sort_ascending = cfg->name_grouped_profile_table_sort_table_ascending;
    opts->grouped_max_stack_ids = cfg->name_grouped_profile_table_max_stack_ids > 0 ?
        (unsigned)cfg->name_grouped_profile_table_max_stack_ids : 0;
    opts->show_mpi = cfg->mpi_show_table;
    opts->mpi_sort_column = cfg->mpi_sort_table_column;
    opts->mpi_sort_ascending = cfg->mpi_sort_table_ascending;
    opts->mpi_show_callpath = cfg->mpi_show_callpath;
    if (cfg->print_config)
        opts->config = cfg;
}

/* One output file: created or truncated; *regular tells whether it may be
 * removed after a failure (a device or a pipe is not ours to unlink). */
static FILE *open_out(const char *path, bool *regular, int *err)
{
    struct stat st;
    FILE *out;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    *regular = false;
    if (fd < 0) {
        *err = -errno;
        return NULL;
    }
    *regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    out = fdopen(fd, "w");
    if (!out) {
        *err = -errno;
        close(fd);
    }
    return out;
}

/* Closes out; the first error of the writes or the close wins over rc. */
static int close_out(FILE *out, int rc)
{
    errno = 0;
    if (fclose(out) != 0 && rc == 0)
        rc = errno ? -errno : -EIO;
    return rc;
}

int vftr_logfile_write(const char *path, const struct vftr_profile *p, const struct vftr_config *cfg,
                       const struct vftr_run_info *run)
{
    struct vftr_logfile_opts opts;
    struct outs o = { 0 };
    char *sec_path[NSEC] = { NULL };
    bool regular = false, sec_regular[NSEC] = { false };
    const char *base;
    size_t stem;
    int rc = 0;

    if (!path || !p || (p->n && !p->rows) || (p->nmpi && !p->mpi))
        return -EINVAL;
    vftr_logfile_opts_from_config(&opts, cfg);
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    stem = strlen(path);
    if (stem > 4 && strcmp(path + stem - 4, ".log") == 0)
        stem -= 4;

    o.main = open_out(path, &regular, &rc);
    if (!o.main)
        return rc;
    for (int k = 0; k < NSEC; k++) {
        o.sec[k] = o.main;
        if (!opts.separate || !section_present(k, p, &opts) || rc)
            continue;
        if (asprintf(&sec_path[k], "%.*s_%s.log", (int)stem, path, sec_suffix[k]) < 0) {
            sec_path[k] = NULL;
            rc = -ENOMEM;
            continue;
        }
        o.sec[k] = open_out(sec_path[k], &sec_regular[k], &rc);
        if (!o.sec[k]) {
            free(sec_path[k]);
            sec_path[k] = NULL;
            o.sec[k] = o.main;
            continue;
        }
        o.name[k] = strrchr(sec_path[k], '/') ? strrchr(sec_path[k], '/') + 1 : sec_path[k];
        fprintf(o.sec[k], "vftr profile log: %s of %s\n\n", sec_title[k], base);
    }
    if (rc == 0) {
        /* stdio keeps the errno of a failed write: report that (ENOSPC,
         * EFBIG...) rather than print's generic -EIO. */
        errno = 0;
        rc = print_log(&o, p, run, &opts);
        if (rc == -EIO && errno)
            rc = -errno;
    }
    for (int k = 0; k < NSEC; k++) {
        if (o.sec[k] != o.main) {
            rc = close_out(o.sec[k], rc);
        }
    }
    rc = close_out(o.main, rc);
    for (int k = 0; k < NSEC; k++) {
        if (rc && sec_path[k] && sec_regular[k])
            unlink(sec_path[k]);
        free(sec_path[k]);
    }
    if (rc && regular)
        unlink(path);
    return rc;
}
