/*
 * vftr-score — how large a run's trace is, or would be, per rank and for
 * the job, per function and per group (user, MPI, OpenMP), as
 * scorep-score -r tells it for Score-P; with -f the same under a filter
 * file, with --generate a filter file that brings the trace under --target.
 *
 *   vftr-score [-f FILTER] [--generate FILE --target SIZE] [--bytes] RUN...
 *
 * RUN is a directory (its .vfd files, else its <base>_<rank>.log files),
 * .vfd files or .log files: one per rank.
 *
 * The sizes are vftr's own record sizes (share/doc/vfd-format.md): an
 * ENTER or EXIT is a varint tag (call path id << 2 | code) and a varint
 * time delta; an extended event its tag, delta, length and payload.
 *   - From a .vfd every event is measured as written: the per-function
 *     bytes are exact, and what is not an event (header, chunk headers,
 *     definitions) is the "vftr" row, so the job's total is the files'
 *     size.
 *   - From a profile log (a profile-only run, sampling.active = false) the
 *     events are what the log's call paths imply: 2 per call, tags from
 *     their ids, deltas from their times.  The time a call path runs on
 *     top of its stack is cut into (calls + calls of its children)
 *     pieces, each ended by an event (a child's ENTER, its own EXIT): its
 *     EXIT's delta is the mean piece of its own, its ENTER's the mean
 *     piece of its caller's, turned into ticks with the log's clock rate.
 *     Definitions and framing are estimated from the names and the chunk
 *     size.  MPI message and OpenMP region records are not in a log: an
 *     MPI call path of a function that moves data gets one record per call
 *     (VFTR_SCORE_MPI_RECORD bytes and a delta: a documented guess), OpenMP
 *     regions their BEGIN and END records.
 * A filter removes the excluded functions' events; that the events around
 * them then carry longer deltas is not counted (a varint byte at most).
 */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/errmsg.h"
#include "util/number.h"
#include "util/opts.h"
#include "util/scorepfilter.h"
#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

/* Bytes an MPI call that moves data adds to a trace besides its ENTER and
 * EXIT, for the estimate from a log, delta aside: one message or
 * collective record (tag, length and some six bytes of varint fields). */
#define VFTR_SCORE_MPI_RECORD 8.0
/* An OpenMP region's BEGIN or END record, likewise. */
#define VFTR_SCORE_OMP_BYTES 10.0
/* capture's per-thread buffer: one EVENTS chunk (48-byte header) per this
 * many bytes of events */
#define VFTR_SCORE_CHUNK 262144.0

enum group { G_USR, G_MPI, G_OMP, G_VFTR, G_N };
static const char *const group_names[G_N] = { "USR", "MPI", "OMP", "VFTR" };

struct func {
    char *name;
    enum group group;
    uint64_t visits;
    double time;             /* exclusive seconds, summed over ranks */
    double incl;             /* inclusive seconds, summed over ranks */
    double bytes;            /* summed over ranks */
    double *rank_bytes;      /* per rank */
    bool excluded;           /* by -f, or chosen by --generate */
};

struct run {
    struct func *f;
    size_t n, cap;
    size_t nranks;
    double *rank_total;      /* per rank, before any filter */
};

static const char *filter_path, *gen_path, *target_spec;
static int bytes_only;

static const struct vftr_opt opts[] = {
    { VFTR_OPT_STRING, "filter", 'f', "FILE",
      "estimate with the Score-P filter file FILE applied", &filter_path, 0, NULL },
    { VFTR_OPT_STRING, "generate", 0, "FILE",
      "write a filter file to FILE that brings the job's trace\nunder --target", &gen_path, 0,
      NULL },
    { VFTR_OPT_STRING, "target", 0, "SIZE", "the job's trace size --generate aims at (\"1GiB\", \"500M\")",
      &target_spec, 0, NULL },
    { VFTR_OPT_FLAG, "bytes", 0, NULL, "print the job's estimated bytes alone (after -f)",
      &bytes_only, 0, NULL },
    VFTR_OPT_TABLE_END,
};

static const struct vftr_tool tool = {
    "vftr-score", VFTR_VERSION, "[OPTION]... RUN...",
    "Estimates the trace size of a run per rank and for the job, per function and group.",
    "RUN: a directory (its .vfd files, else its <base>_<rank>.log files), .vfd files or\n"
    ".log files of a profile-only run, one per rank.  MPI functions and OpenMP regions are\n"
    "never filtered.  Sizes accept units (KiB, MiB, GiB, KB, MB, GB).\n"
    "\n"
    "Exit status: 0 ok, 1 a file cannot be read or --generate cannot reach the\n"
    "target (the filter is written all the same), 2 bad command line.\n",
    opts,
};

/* ------------------------------------------------------------- helpers */

static unsigned vlen(uint64_t v)
{
    unsigned n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static enum group group_of(const char *name, bool mpi_flag)
{
    if (mpi_flag || strncmp(name, "MPI_", 4) == 0 || strncmp(name, "mpi_", 4) == 0)
        return G_MPI;
    if (strncmp(name, "omp ", 4) == 0 || strncmp(name, "omp_", 4) == 0
        || strncmp(name, "!$omp", 5) == 0)
        return G_OMP;
    if (strncmp(name, "vftr:", 5) == 0)
        return G_VFTR;
    return G_USR;
}

/* Whether an MPI function moves data, so that capture writes a message or
 * collective record per call: every MPI function but those that set up,
 * ask or end. */
static bool mpi_moves_data(const char *name)
{
    static const char *const quiet[] = {
        "MPI_Init", "MPI_Finalize", "MPI_Comm_", "MPI_Type_", "MPI_Wtime", "MPI_Wtick",
        "MPI_Get_", "MPI_Abort", "MPI_Pcontrol", "MPI_Op_", "MPI_Group_", "MPI_Query_",
        "MPI_Is_thread", "MPI_Error_", "MPI_Request_free", "MPI_Cart_", "MPI_Graph_",
        "MPI_Dims_", "MPI_Attr_", "MPI_Keyval_", "MPI_Info_", "MPI_Errhandler_",
    };
    size_t len = strlen(name);

    if (len > 5 && strcmp(name + len - 5, "_sync") == 0)
        return false;   /* mpi.show_sync_time's barrier region */
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        if (strncmp(name, quiet[i], strlen(quiet[i])) == 0)
            return false;
    return true;
}

static struct func *func_get(struct run *r, const char *name, enum group g)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->f[i].name, name) == 0)
            return &r->f[i];
    if (r->n == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 64;
        struct func *nf = realloc(r->f, ncap * sizeof *nf);

        if (nf == NULL)
            return NULL;
        r->f = nf;
        r->cap = ncap;
    }
    struct func *f = &r->f[r->n];
    memset(f, 0, sizeof *f);
    f->name = strdup(name);
    f->rank_bytes = calloc(r->nranks ? r->nranks : 1, sizeof *f->rank_bytes);
    if (f->name == NULL || f->rank_bytes == NULL) {
        free(f->name);
        free(f->rank_bytes);
        return NULL;
    }
    f->group = g;
    r->n++;
    return f;
}

static int add(struct run *r, size_t rank, const char *name, enum group g, uint64_t visits,
               double time, double incl, double bytes)
{
    struct func *f = func_get(r, name, g);

    if (f == NULL)
        return -ENOMEM;
    f->visits += visits;
    f->time += time;
    f->incl += incl;
    f->bytes += bytes;
    f->rank_bytes[rank] += bytes;
    return 0;
}

/* ---------------------------------------------------------- from a .vfd */

struct frame {
    uint32_t id;
    uint64_t start, child;
};

struct vfdstat {             /* per call path id */
    uint64_t visits, excl, incl;
    double bytes;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *np = realloc(*p, ncap * size);
    if (np == NULL)
        return -ENOMEM;
    memset((char *)np + *cap * size, 0, (ncap - *cap) * size);
    *p = np;
    *cap = ncap;
    return 0;
}

static int read_vfd(struct run *r, size_t rank, const char *path)
{
    char err[VFTR_VFD_ERR_MAX];
    struct vftr_vfd_reader *rd = vftr_vfd_reader_open_msg(path, err, sizeof err);
    struct vftr_vfd_record rec;
    struct vfdstat *st = NULL;
    size_t stcap = 0;
    /* per thread: the last chunk, its last time, its stack */
    struct thr { uint64_t offset, last; struct frame *stk; size_t depth, cap; } *th = NULL;
    size_t thcap = 0;
    double ext_bytes[G_N] = { 0 }, event_bytes = 0, tps;
    uint64_t ext_count[G_N] = { 0 };
    struct stat sb;
    int rc = 0, k;

    if (rd == NULL) {
        fprintf(stderr, "vftr-score: %s\n", err);
        return -EINVAL;
    }
    tps = (double)vftr_vfd_reader_info(rd)->ticks_per_second;
    if (!(tps > 0))
        tps = 1;
    while ((k = vftr_vfd_reader_next(rd, &rec)) != 0) {
        if (k < 0) {
            fprintf(stderr, "vftr-score: %s\n", vftr_vfd_reader_error(rd));
            rc = -EINVAL;
            break;
        }
        if (rec.type != VFTR_VFD_REC_EVENT)
            continue;
        if ((rc = grow((void **)&th, &thcap, (size_t)rec.thread + 1, sizeof *th)) < 0)
            break;
        struct thr *t = &th[rec.thread];
        uint64_t delta;
        double b;

        if (t->offset != rec.offset + 1) {   /* a new chunk: the delta base is its first time */
            t->offset = rec.offset + 1;
            t->last = rec.u.event.time;
        }
        delta = rec.u.event.time >= t->last ? rec.u.event.time - t->last : 0;
        t->last = rec.u.event.time;
        if (rec.u.event.kind >= VFTR_VFD_PAUSE) {
            enum group g = rec.u.event.kind >= VFTR_VFD_EXT_OMP_FIRST
                                   && rec.u.event.kind <= VFTR_VFD_EXT_OMP_LAST ? G_OMP
                           : rec.u.event.kind >= VFTR_VFD_EXT_MPI_FIRST
                                   && rec.u.event.kind <= VFTR_VFD_EXT_MPI_LAST ? G_MPI
                                                                                : G_VFTR;

            b = vlen((uint64_t)rec.u.event.kind << 2 | 3) + vlen(delta) + vlen(rec.u.event.id)
                + rec.u.event.id;
            ext_bytes[g] += b;
            ext_count[g]++;
            event_bytes += b;
            continue;
        }
        uint32_t id = rec.u.event.id;
        b = vlen((uint64_t)id << 2 | 1) + vlen(delta);
        event_bytes += b;
        if ((rc = grow((void **)&st, &stcap, (size_t)id + 1, sizeof *st)) < 0)
            break;
        st[id].bytes += b;
        if (rec.u.event.kind == VFTR_VFD_ENTER) {
            st[id].visits++;
            if ((rc = grow((void **)&t->stk, &t->cap, t->depth + 1, sizeof *t->stk)) < 0)
                break;
            t->stk[t->depth++] = (struct frame){ id, rec.u.event.time, 0 };
        } else if (rec.u.event.kind == VFTR_VFD_EXIT) {
            /* pop to the frame of id (a sampled trace may skip some) */
            size_t d = t->depth;

            while (d > 0 && t->stk[d - 1].id != id)
                d--;
            if (d == 0)
                continue;
            for (size_t j = t->depth; j-- > d - 1;) {
                struct frame *fr = &t->stk[j];
                uint64_t incl = rec.u.event.time - fr->start;

                st[fr->id].excl += incl > fr->child ? incl - fr->child : 0;
                st[fr->id].incl += incl;
                if (j > 0)
                    t->stk[j - 1].child += incl;
            }
            t->depth = d - 1;
        }
    }
    if (rc == 0) {
        for (size_t id = 0; id < stcap && rc == 0; id++) {
            const char *name;
            const struct vftr_vfd_callpath *cp;
            const struct vftr_vfd_function *fn;

            if (st[id].bytes == 0)
                continue;
            name = vftr_vfd_reader_callpath_name(rd, (uint32_t)id);
            cp = vftr_vfd_reader_callpath(rd, (uint32_t)id);
            fn = cp ? vftr_vfd_reader_function(rd, cp->function) : NULL;
            if (name == NULL)
                name = "?";
            rc = add(r, rank, name, group_of(name, fn && (fn->flags & VFTR_VFD_FUNC_MPI)),
                     st[id].visits, (double)st[id].excl / tps, (double)st[id].incl / tps,
                     st[id].bytes);
        }
        if (rc == 0 && ext_count[G_MPI])
            rc = add(r, rank, "MPI messages and collectives", G_MPI, 0, 0, 0, ext_bytes[G_MPI]);
        if (rc == 0 && ext_count[G_OMP])
            rc = add(r, rank, "OpenMP region records", G_OMP, 0, 0, 0, ext_bytes[G_OMP]);
        /* everything else in the file: header, chunk headers, definitions,
         * vftr's own records */
        if (rc == 0 && stat(path, &sb) == 0)
            rc = add(r, rank, "vftr: header, definitions, framing", G_VFTR, 0, 0, 0,
                     (double)sb.st_size - event_bytes + ext_bytes[G_VFTR]);
    }
    for (size_t i = 0; i < thcap; i++)
        free(th[i].stk);
    free(th);
    free(st);
    vftr_vfd_reader_close(rd);
    if (rc == -ENOMEM)
        fprintf(stderr, "vftr-score: %s: out of memory\n", path);
    return rc;
}

/* ---------------------------------------------------------- from a .log */

struct logrow {
    uint64_t calls;
    double excl, incl;
    uint32_t id;
    char *func;
    char *path;              /* from the stack list: "f<caller<..." */
    long parent;             /* index of the parent row, -1 at a root */
    uint64_t kid_calls;
};

/* Splits s at runs of blanks into at most max fields; returns the count. */
static int fields(char *s, char **v, int max)
{
    int n = 0;

    while (*s && n < max) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            *s++ = '\0';
        if (!*s)
            break;
        v[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n')
            s++;
    }
    return n;
}

static int read_log(struct run *r, size_t rank, const char *path)
{
    FILE *in = fopen(path, "r");
    char line[8192];
    struct logrow *rows = NULL;
    size_t nrows = 0, cap = 0, lineno = 0;
    double tps = 0, defs = 4096, events = 0;
    enum { HEAD, PROFILE, STACKS, OTHER } where = HEAD;
    size_t fpos = 0, cpos = 0;
    bool log_ok = false;
    int rc = 0;

    if (in == NULL) {
        fprintf(stderr, "vftr-score: %s: %s\n", path, strerror(errno));
        return -errno;
    }
    while (fgets(line, sizeof line, in)) {
        char *v[16];
        int nf;

        lineno++;
        if (lineno == 1) {
            log_ok = strncmp(line, "vftr profile log", 16) == 0;
            if (!log_ok)
                break;
            continue;
        }
        if (strncmp(line, "  clock ", 8) == 0) {
            char *p = strchr(line, ',');

            if (p)
                tps = strtod(p + 1, NULL);
            continue;
        }
        if (strncmp(line, "Profile:", 8) == 0) {
            where = PROFILE;
            continue;
        }
        if (strncmp(line, "Call paths:", 11) == 0) {
            where = STACKS;
            continue;
        }
        if (line[0] != ' ' && !(line[0] >= '0' && line[0] <= '9') && line[0] != '\n'
            && line[0] != '-' && strncmp(line, "Calls", 5) != 0 && strncmp(line, "STID", 4) != 0)
            where = OTHER;   /* a section other than the two read here */
        if (where == PROFILE && strncmp(line + strspn(line, " "), "Calls ", 6) == 0) {
            /* names may hold blanks (C++, OpenMP regions): the Function
             * column ends where the Caller column begins */
            char *f = strstr(line, " Function"), *c = strstr(line, " Caller");

            fpos = f ? (size_t)(f - line) + 1 : 0;
            cpos = c ? (size_t)(c - line) + 1 : 0;
            continue;
        }
        if (where == PROFILE) {
            char name[4096];
            size_t len = strlen(line), end;

            if (fpos == 0 || cpos <= fpos || len <= fpos)
                continue;
            end = cpos < len ? cpos : len;
            while (end > fpos && (line[end - 1] == ' ' || line[end - 1] == '\n'))
                end--;
            snprintf(name, sizeof name, "%.*s", (int)(end - fpos), line + fpos);
            line[fpos] = '\0';
            nf = fields(line, v, 16);
            /* Calls t_excl t_incl % [overhead...] STID */
            if (nf < 5 || !(v[0][0] >= '0' && v[0][0] <= '9'))
                continue;
            if ((rc = grow((void **)&rows, &cap, nrows + 1, sizeof *rows)) < 0)
                break;
            rows[nrows].calls = strtoull(v[0], NULL, 10);
            rows[nrows].excl = strtod(v[1], NULL);
            rows[nrows].incl = strtod(v[2], NULL);
            rows[nrows].id = (uint32_t)strtoul(v[nf - 1], NULL, 10);
            rows[nrows].func = strdup(name);
            rows[nrows].parent = -1;
            if (rows[nrows].func == NULL) {
                rc = -ENOMEM;
                break;
            }
            nrows++;
        } else if (where == STACKS) {
            /* "  STID  path" (the path may hold blanks) */
            char *p = line, *e;
            uint32_t id;

            while (*p == ' ')
                p++;
            if (!(*p >= '0' && *p <= '9'))
                continue;
            id = (uint32_t)strtoul(p, &p, 10);
            while (*p == ' ')
                p++;
            e = p + strlen(p);
            while (e > p && (e[-1] == '\n' || e[-1] == ' '))
                *--e = '\0';
            for (size_t i = 0; i < nrows; i++)
                if (rows[i].id == id && rows[i].path == NULL && !(rows[i].path = strdup(p)))
                    rc = -ENOMEM;
        }
    }
    fclose(in);
    if (!log_ok) {
        fprintf(stderr, "vftr-score: %s: offset 0: expected a vftr profile log (\"vftr profile "
                "log\")\n", path);
        rc = -EINVAL;
    } else if (rc == 0 && !(tps > 0)) {
        fprintf(stderr, "vftr-score: %s: no clock rate in the log (written by an older vftr): "
                "assuming 1e9 ticks/s\n", path);
        tps = 1e9;
    }
    /* parents from the call paths: the parent's path is the rest after '<' */
    for (size_t i = 0; rc == 0 && i < nrows; i++) {
        const char *lt = rows[i].path ? strchr(rows[i].path, '<') : NULL;

        if (lt == NULL)
            continue;
        for (size_t j = 0; j < nrows; j++)
            if (rows[j].path && strcmp(rows[j].path, lt + 1) == 0) {
                rows[i].parent = (long)j;
                rows[j].kid_calls += rows[i].calls;
                break;
            }
    }
    for (size_t i = 0; rc == 0 && i < nrows; i++) {
        const struct logrow *w = &rows[i];
        enum group g = group_of(w->func, false);
        /* an MPI record between its ENTER and EXIT cuts its time once more */
        uint64_t recs = g == G_MPI && mpi_moves_data(w->func) ? w->calls : 0;
        uint64_t pieces = w->calls + w->kid_calls + recs;
        double seg_own = w->excl * tps / (double)(pieces ? pieces : 1);
        double seg_up = 1;
        double b;

        if (w->parent >= 0) {
            const struct logrow *p = &rows[w->parent];

            seg_up = p->excl * tps / (double)(p->calls + p->kid_calls ? p->calls + p->kid_calls : 1);
        }
        b = (double)w->calls * (2.0 * vlen((uint64_t)w->id << 2 | 1) + vlen((uint64_t)llround(seg_own))
                                + vlen((uint64_t)llround(seg_up)));
        if (recs)
            b += (double)recs * (VFTR_SCORE_MPI_RECORD + vlen((uint64_t)llround(seg_own)));
        if (g == G_OMP)   /* BEGIN and END instead of ENTER and EXIT */
            b = (double)w->calls * 2.0 * VFTR_SCORE_OMP_BYTES;
        events += b;
        /* its definitions: the call path (4 varints) and, once per name,
         * the function (id, flags, address, name) */
        defs += 8;
        rc = add(r, rank, w->func, g, w->calls, w->excl, w->incl, b);
    }
    for (size_t i = 0; i < nrows; i++) {
        bool first = true;

        for (size_t j = 0; j < i && first; j++)
            first = strcmp(rows[j].func, rows[i].func) != 0;
        if (first)
            defs += 14 + strlen(rows[i].func);
    }
    defs += 48.0 * ceil(events / VFTR_SCORE_CHUNK) + 48.0 * 4;
    if (rc == 0)
        rc = add(r, rank, "vftr: header, definitions, framing", G_VFTR, 0, 0, 0, defs);
    for (size_t i = 0; i < nrows; i++) {
        free(rows[i].func);
        free(rows[i].path);
    }
    free(rows);
    return rc;
}

/* ------------------------------------------------------------- inputs */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);

    return a >= b && strcmp(s + a - b, suffix) == 0;
}

struct inputs {
    char **paths;
    size_t n, cap;
};

static int push(struct inputs *in, const char *dir, const char *name)
{
    if (in->n == in->cap) {
        size_t ncap = in->cap ? in->cap * 2 : 16;
        char **np = realloc(in->paths, ncap * sizeof *np);

        if (np == NULL)
            return -ENOMEM;
        in->paths = np;
        in->cap = ncap;
    }
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(len);
    if (p == NULL)
        return -ENOMEM;
    snprintf(p, len, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    in->paths[in->n++] = p;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a directory: its .vfd files, else its rank logs. */
static int expand_dir(struct inputs *in, const char *dir)
{
    size_t first = in->n;

    for (int pass = 0; pass < 2 && in->n == first; pass++) {
        DIR *d = opendir(dir);
        struct dirent *e;

        if (d == NULL)
            return -errno;
        while ((e = readdir(d)) != NULL) {
            bool want = pass == 0 ? ends_with(e->d_name, ".vfd")
                                  : ends_with(e->d_name, ".log") && !ends_with(e->d_name, "_all.log")
                                        && strstr(e->d_name, "_namegroup") == NULL
                                        && strstr(e->d_name, "_mpi.log") == NULL
                                        && strstr(e->d_name, "_minmax") == NULL;

            if (want && push(in, dir, e->d_name) < 0) {
                closedir(d);
                return -ENOMEM;
            }
        }
        closedir(d);
    }
    qsort(in->paths + first, in->n - first, sizeof *in->paths, cmp_str);
    return in->n > first ? 0 : -ENOENT;
}

/* ------------------------------------------------------------- output */

static double total_of(const struct run *r, bool filtered, size_t rank, bool per_rank)
{
    double s = 0;

    for (size_t i = 0; i < r->n; i++)
        if (!(filtered && r->f[i].excluded))
            s += per_rank ? r->f[i].rank_bytes[rank] : r->f[i].bytes;
    return s;
}

static double max_rank(const struct run *r, bool filtered, size_t *which)
{
    double best = -1;

    for (size_t k = 0; k < r->nranks; k++) {
        double s = total_of(r, filtered, k, true);

        if (s > best) {
            best = s;
            *which = k;
        }
    }
    return best;
}

static void human(double b, char *buf, size_t len)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;

    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", b, units[u]);
}

static int cmp_bytes(const void *a, const void *b)
{
    const struct func *x = a, *y = b;

    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->name, y->name);
}

static void print_table(const struct run *r, bool filtered)
{
    double time_total = 0, job = total_of(r, false, 0, false);
    double gbytes[G_N] = { 0 }, gtime[G_N] = { 0 }, fbytes[G_N] = { 0 };
    uint64_t gvisits[G_N] = { 0 };
    size_t which = 0;
    char h1[32], h2[32];

    for (size_t i = 0; i < r->n; i++) {
        const struct func *f = &r->f[i];

        time_total += f->time;
        gbytes[f->group] += f->bytes;
        gtime[f->group] += f->time;
        gvisits[f->group] += f->visits;
        if (!f->excluded)
            fbytes[f->group] += f->bytes;
    }
    human(job, h1, sizeof h1);
    human(max_rank(r, false, &which), h2, sizeof h2);
    printf("Estimated trace size: job %s (%.0f bytes, %zu rank%s), largest rank %s (rank file %zu)\n",
           h1, job, r->nranks, r->nranks == 1 ? "" : "s", h2, which);
    if (filtered) {
        human(total_of(r, true, 0, false), h1, sizeof h1);
        human(max_rank(r, true, &which), h2, sizeof h2);
        printf("With the filter %s: job %s (%.0f bytes), largest rank %s\n", filter_path ? filter_path : gen_path,
               h1, total_of(r, true, 0, false), h2);
    }
    printf("\n%-3s %-4s %14s %12s %12s %7s %12s  %s\n", "flt", "type", "bytes", "visits", "time[s]",
           "time%", "bytes/visit", "region");
    printf("%-3s %-4s %14.0f %12" PRIu64 " %12.6f %7.2f %12s  %s\n", "", "ALL", job,
           gvisits[0] + gvisits[1] + gvisits[2] + gvisits[3], time_total, 100.0, "-", "ALL");
    for (int g = 0; g < G_N; g++) {
        if (gbytes[g] == 0 && gvisits[g] == 0)
            continue;
        printf("%-3s %-4s %14.0f %12" PRIu64 " %12.6f %7.2f %12s  %s\n", "", group_names[g], gbytes[g],
               gvisits[g], gtime[g], time_total > 0 ? 100.0 * gtime[g] / time_total : 0.0, "-",
               group_names[g]);
        if (filtered && fbytes[g] != gbytes[g])
            printf("%-3s %-4s %14.0f %12s %12s %7s %12s  %s\n", "+", group_names[g], fbytes[g], "-",
                   "-", "-", "-", "(kept by the filter)");
    }
    printf("\n");
    for (size_t i = 0; i < r->n; i++) {
        const struct func *f = &r->f[i];

        printf("%-3s %-4s %14.0f %12" PRIu64 " %12.6f %7.2f %12.2f  %s\n",
               filtered ? (f->excluded ? "-" : "+") : "", group_names[f->group], f->bytes, f->visits,
               f->time, time_total > 0 ? 100.0 * f->time / time_total : 0.0,
               f->visits ? f->bytes / (double)f->visits : 0.0, f->name);
    }
    if (r->nranks > 1) {
        printf("\n%6s %14s%s\n", "rank", "bytes", filtered ? "    filtered" : "");
        for (size_t k = 0; k < r->nranks; k++) {
            printf("%6zu %14.0f", k, total_of(r, false, k, true));
            if (filtered)
                printf(" %14.0f", total_of(r, true, k, true));
            printf("\n");
        }
    }
}

/* A name as a filter pattern: shell wildcard characters, blanks and '#'
 * quoted with a backslash. */
static void put_pattern(FILE *out, const char *name)
{
    for (const char *p = name; *p; p++) {
        if (strchr("*?[]\\# \t", *p))
            fputc('\\', out);
        fputc(*p, out);
    }
}

/* Candidates of --generate: user functions, the shortest calls (inclusive time
 * per visit) first, so that tiny hot functions go and the ones whose calls
 * take the time stay, also when that time is their callees'; among calls
 * of one length the most bytes first.  main never. */
static int cmp_cost(const void *a, const void *b)
{
    const struct func *x = *(const struct func *const *)a, *y = *(const struct func *const *)b;
    double cx = x->incl / (double)(x->visits ? x->visits : 1);
    double cy = y->incl / (double)(y->visits ? y->visits : 1);

    if (cx != cy)
        return cx < cy ? -1 : 1;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->name, y->name);
}

/*
 * The excluded functions as gcc's -finstrument-functions-exclude-function-list
 * (compile-time exclusion: no hook call at all).  gcc excludes every
 * function whose name contains one of the list's names, so a name goes in
 * only when no function the filter keeps (any group) contains it; and only
 * a plain C identifier, since gcc matches the user-visible name, which for
 * C++ is not vftr's display name, and a comma would split it.  Returns the
 * flag (caller owns, free with free()) or NULL when no name qualifies;
 * *left: excluded functions not in it.
 */
static char *gcc_exclude_flag(const struct run *r, size_t *left)
{
    static const char head[] = "-finstrument-functions-exclude-function-list=";
    size_t len = sizeof head, n = 0;
    char *flag;

    *left = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->f[i].excluded)
            len += strlen(r->f[i].name) + 1;
    if ((flag = malloc(len)) == NULL)
        return NULL;
    strcpy(flag, head);
    for (size_t i = 0; i < r->n; i++) {
        const char *name = r->f[i].name;
        bool ok = r->f[i].excluded && (isalpha((unsigned char)name[0]) || name[0] == '_');

        if (!r->f[i].excluded)
            continue;
        for (const char *c = name; ok && *c; c++)
            ok = isalnum((unsigned char)*c) || *c == '_';
        for (size_t j = 0; ok && j < r->n; j++)
            ok = r->f[j].excluded || strstr(r->f[j].name, name) == NULL;
        if (!ok) {
            ++*left;
            continue;
        }
        if (n++)
            strcat(flag, ",");
        strcat(flag, name);
    }
    if (n == 0) {
        free(flag);
        return NULL;
    }
    return flag;
}

static int generate(struct run *r, uint64_t target)
{
    struct func **cand = calloc(r->n ? r->n : 1, sizeof *cand);
    size_t nc = 0, nex = 0;
    double total = total_of(r, true, 0, false);
    FILE *out;

    if (cand == NULL)
        return vftr_tool_fail(&tool, stderr, "out of memory");
    for (size_t i = 0; i < r->n; i++)
        if (r->f[i].group == G_USR && !r->f[i].excluded && strcmp(r->f[i].name, "main") != 0
            && strcmp(r->f[i].name, "MAIN__") != 0)
            cand[nc++] = &r->f[i];
    qsort(cand, nc, sizeof *cand, cmp_cost);
    for (size_t i = 0; i < nc && total > (double)target; i++) {
        cand[i]->excluded = true;
        total -= cand[i]->bytes;
    }
    /* then the ones excluded on the way that the target does not need
     * after all (a large one later made room), longest calls first */
    for (size_t i = nc; i-- > 0;)
        if (cand[i]->excluded && total + cand[i]->bytes <= (double)target) {
            cand[i]->excluded = false;
            total += cand[i]->bytes;
        }
    out = fopen(gen_path, "w");
    if (out == NULL) {
        free(cand);
        return vftr_tool_fail(&tool, stderr, "%s: %s", gen_path, strerror(errno));
    }
    fprintf(out, "# written by vftr-score --generate: estimated job trace %.0f bytes with this filter, "
            "target %" PRIu64 " bytes\n", total, target);
    fprintf(out, "SCOREP_REGION_NAMES_BEGIN\n");
    for (size_t i = 0; i < r->n; i++) {
        if (!r->f[i].excluded)
            continue;
        fprintf(out, nex++ ? "          " : "  EXCLUDE ");
        put_pattern(out, r->f[i].name);
        fputc('\n', out);
    }
    fprintf(out, "SCOREP_REGION_NAMES_END\n");
    free(cand);
    {
        size_t left;
        char *flag = gcc_exclude_flag(r, &left);

        /* a comment of the filter file and a line on stdout: the same
         * exclusion at compile time, for gcc */
        if (flag)
            fprintf(out, "# gcc, to leave them out at compile time instead: %s\n", flag);
        if (flag || left)
            printf("compile time (gcc): %s%s", flag ? flag : "no function name qualifies",
                   left ? "" : "\n");
        if (left)
            printf("%s(%zu excluded function%s left to the filter: not a C identifier, or a "
                   "part of a kept function's name, which gcc would exclude too)\n",
                   flag ? " " : " ", left, left == 1 ? "" : "s");
        free(flag);
    }
    if (fclose(out) != 0)
        return vftr_tool_fail(&tool, stderr, "%s: %s", gen_path, strerror(errno));
    if (total > (double)target) {
        fprintf(stderr, "vftr-score: %s: the target of %" PRIu64 " bytes cannot be reached: MPI, "
                "OpenMP, main and vftr's own records need %.0f bytes\n", gen_path, target, total);
        return VFTR_EXIT_ERROR;
    }
    return VFTR_EXIT_OK;
}

int main(int argc, char **argv)
{
    struct inputs in = { 0 };
    struct run r = { 0 };
    struct vftr_scorep_filter *flt = NULL;
    uint64_t target = 0;
    char err[VFTR_ERRMSG_MAX];
    int first, rc, status = VFTR_EXIT_OK;

    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc == -EINVAL)
        return VFTR_EXIT_USAGE;
    if (rc < 0)
        return VFTR_EXIT_ERROR;
    if (first >= argc)
        return vftr_tool_usage_fail(&tool, stderr, "missing RUN");
    if (gen_path && !target_spec)
        return vftr_tool_usage_fail(&tool, stderr, "--generate needs --target SIZE");
    if (target_spec && !gen_path)
        return vftr_tool_usage_fail(&tool, stderr, "--target goes with --generate FILE");
    if (target_spec && vftr_size_parse(target_spec, 0, UINT64_MAX, "--target", &target, err,
                                       sizeof err) < 0)
        return vftr_tool_usage_fail(&tool, stderr, "%s", err);
    if (filter_path && (flt = vftr_scorep_filter_load(filter_path, err, sizeof err)) == NULL)
        return vftr_tool_fail(&tool, stderr, "%s", err);

    for (int i = first; i < argc; i++) {
        struct stat sb;

        if (stat(argv[i], &sb) != 0) {
            status = vftr_tool_fail(&tool, stderr, "%s: %s", argv[i], strerror(errno));
            goto out;
        }
        if (S_ISDIR(sb.st_mode)) {
            if ((rc = expand_dir(&in, argv[i])) < 0) {
                status = vftr_tool_fail(&tool, stderr, "%s: %s", argv[i],
                                        rc == -ENOENT ? "no .vfd or .log files in this directory"
                                                      : strerror(-rc));
                goto out;
            }
        } else if (push(&in, NULL, argv[i]) < 0) {
            status = vftr_tool_fail(&tool, stderr, "out of memory");
            goto out;
        }
    }
    r.nranks = in.n;
    r.rank_total = calloc(in.n, sizeof *r.rank_total);
    for (size_t k = 0; k < in.n; k++) {
        rc = ends_with(in.paths[k], ".log") ? read_log(&r, k, in.paths[k])
                                             : read_vfd(&r, k, in.paths[k]);
        if (rc < 0) {
            status = VFTR_EXIT_ERROR;
            goto out;
        }
    }
    qsort(r.f, r.n, sizeof *r.f, cmp_bytes);
    if (flt)
        for (size_t i = 0; i < r.n; i++)
            r.f[i].excluded = r.f[i].group == G_USR
                              && vftr_scorep_filter_excludes(flt, r.f[i].name, NULL, NULL);
    if (gen_path)
        status = generate(&r, target);
    if (bytes_only)
        printf("%.0f\n", total_of(&r, flt != NULL || gen_path != NULL, 0, false));
    else
        print_table(&r, flt != NULL || gen_path != NULL);
out:
    for (size_t i = 0; i < in.n; i++)
        free(in.paths[i]);
    free(in.paths);
    for (size_t i = 0; i < r.n; i++) {
        free(r.f[i].name);
        free(r.f[i].rank_bytes);
    }
    free(r.f);
    free(r.rank_total);
    vftr_scorep_filter_free(flt);
    return status;
}
