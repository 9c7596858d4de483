/*
 * source.c — the front of source.h: format detection, the definitions every
 * backend fills in, and the one event route to a profile.
 */
#include "source_impl.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "vfdfiles.h"
#include "util/errmsg.h"
#include "util/tracesel.h"

int vftr_source_is_vfd(const char *operand)
{
    return vftr_source_kind_of(operand) == VFTR_SOURCE_VFD;
}

static int ends_with(const char *s, const char *end)
{
    size_t l = strlen(s), e = strlen(end);

    return l > e && strcmp(s + l - e, end) == 0;
}

/* Does directory dir hold an OTF2 anchor file (NAME.otf2)? */
static int dir_has_otf2(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;

    if (!d)
        return 0;
    while (!found && (e = readdir(d)) != NULL)
        found = ends_with(e->d_name, ".otf2");
    closedir(d);
    return found;
}

enum vftr_source_kind vftr_source_kind_of(const char *operand)
{
    struct stat sb;

    if (ends_with(operand, ".otf2"))
        return VFTR_SOURCE_OTF2;
    if (stat(operand, &sb) == 0 && S_ISDIR(sb.st_mode))
        return dir_has_otf2(operand) ? VFTR_SOURCE_OTF2 : VFTR_SOURCE_VFD;
    return vftr_vfdfiles_is_trace_name(operand) ? VFTR_SOURCE_VFD : VFTR_SOURCE_OTF;
}

unsigned vftr_source_jobs(const struct vftr_source *s)
{
    long n;

    if (s->opts.jobs)
        return s->opts.jobs;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* ------------------------------------------------------------ definitions */

int vftr_source_add_proc(struct vftr_source *s, uint32_t token, uint32_t parent, uint32_t rank,
                         uint32_t thread, unsigned flags, const char *name)
{
    char *copy = strdup(name ? name : "");

    if (!copy || vftr_reserve((void **)&s->procs, &s->capprocs, s->nprocs, sizeof *s->procs) < 0) {
        free(copy);
        return -ENOMEM;
    }
    s->procs[s->nprocs++] = (struct vftr_source_proc){ token, parent == token ? 0 : parent, rank,
                                                       thread, flags, copy };
    return 0;
}

int vftr_source_add_func(struct vftr_source *s, uint32_t token, uint32_t group, unsigned flags,
                         const char *name)
{
    char *copy = strdup(name ? name : "");
    long i = vftr_u64map_get(&s->funcmap, token);

    if (!copy)
        return -ENOMEM;
    if (i >= 0) {                       /* a later definition replaces */
        free((char *)s->funcs[i].name);
        free((char *)s->funcs[i].file);
        s->funcs[i] = (struct vftr_source_func){ token, group, flags, copy, NULL, 0 };
        return 0;
    }
    if (vftr_reserve((void **)&s->funcs, &s->capfuncs, s->nfuncs, sizeof *s->funcs) < 0 ||
        vftr_u64map_put(&s->funcmap, token, (uint32_t)s->nfuncs) < 0) {
        free(copy);
        return -ENOMEM;
    }
    s->funcs[s->nfuncs++] = (struct vftr_source_func){ token, group, flags, copy, NULL, 0 };
    return 0;
}

static int add_name(struct vftr_source_name **v, size_t *n, size_t *cap, uint32_t token,
                    const char *name)
{
    char *copy = strdup(name ? name : "");

    if (!copy || vftr_reserve((void **)v, cap, *n, sizeof **v) < 0) {
        free(copy);
        return -ENOMEM;
    }
    (*v)[(*n)++] = (struct vftr_source_name){ token, copy };
    return 0;
}

int vftr_source_add_group(struct vftr_source *s, uint32_t token, const char *name)
{
    return add_name(&s->groups, &s->ngroups, &s->capgroups, token, name);
}

int vftr_source_add_collop(struct vftr_source *s, uint32_t token, const char *name)
{
    return add_name(&s->collops, &s->ncollops, &s->capcollops, token, name);
}

int vftr_source_add_counter(struct vftr_source *s, uint32_t token, const char *name,
                            const char *unit, uint32_t properties)
{
    char *n = strdup(name ? name : ""), *u = strdup(unit ? unit : "");

    if (!n || !u ||
        vftr_reserve((void **)&s->counters, &s->capcounters, s->ncounters, sizeof *s->counters) < 0) {
        free(n);
        free(u);
        return -ENOMEM;
    }
    s->counters[s->ncounters++] = (struct vftr_source_counter){ token, n, u, properties };
    return 0;
}

int vftr_source_add_file(struct vftr_source *s, uint32_t token, uint32_t group, const char *name)
{
    char *copy = strdup(name ? name : "");

    if (!copy ||
        vftr_reserve((void **)&s->files, &s->capfiles, s->nfiles, sizeof *s->files) < 0) {
        free(copy);
        return -ENOMEM;
    }
    s->files[s->nfiles++] = (struct vftr_source_file){ token, group, copy };
    return 0;
}

int vftr_source_add_filegroup(struct vftr_source *s, uint32_t token, const char *name)
{
    return add_name(&s->filegroups, &s->nfilegroups, &s->capfilegroups, token, name);
}

int vftr_source_set_func_location(struct vftr_source *s, uint32_t token, const char *file,
                                  uint32_t line)
{
    long i = vftr_u64map_get(&s->funcmap, token);
    char *copy;

    if (i < 0)
        return -ENOENT;
    copy = file ? strdup(file) : NULL;
    if (file && !copy)
        return -ENOMEM;
    free((char *)s->funcs[i].file);
    s->funcs[i].file = copy;
    s->funcs[i].line = line;
    return 0;
}

int vftr_source_add_comm(struct vftr_source *s, uint32_t token, const char *name, uint32_t n,
                         const uint32_t *procs)
{
    char *copy = strdup(name ? name : "");
    uint32_t *p = malloc((n ? n : 1) * sizeof *p);

    if (!copy || !p ||
        vftr_reserve((void **)&s->comms, &s->capcomms, s->ncomms, sizeof *s->comms) < 0) {
        free(copy);
        free(p);
        return -ENOMEM;
    }
    if (n)
        memcpy(p, procs, n * sizeof *p);
    s->comms[s->ncomms++] = (struct vftr_source_comm){ token, copy, n, p };
    return 0;
}

static int cmp_comm(const void *a, const void *b)
{
    const struct vftr_source_comm *x = a, *y = b;

    return (x->token > y->token) - (x->token < y->token);
}

static int cmp_file(const void *a, const void *b)
{
    const struct vftr_source_file *x = a, *y = b;

    return (x->token > y->token) - (x->token < y->token);
}

static int cmp_counter(const void *a, const void *b)
{
    const struct vftr_source_counter *x = a, *y = b;

    return (x->token > y->token) - (x->token < y->token);
}

static int cmp_proc(const void *a, const void *b)
{
    const struct vftr_source_proc *x = a, *y = b;

    return (x->token > y->token) - (x->token < y->token);
}

static int cmp_func(const void *a, const void *b)
{
    const struct vftr_source_func *x = a, *y = b;

    return (x->token > y->token) - (x->token < y->token);
}

static int cmp_name(const void *a, const void *b)
{
    const struct vftr_source_name *x = a, *y = b;

    return (x->token > y->token) - (x->token < y->token);
}

/* The outermost ancestor of process index i (bounded: a cycle ends it). */
static size_t root_of(const struct vftr_source *s, size_t i)
{
    for (unsigned hops = 0; hops < 64 && s->procs[i].parent; hops++) {
        long j = vftr_u64map_get(&s->procmap, s->procs[i].parent);

        if (j < 0)
            break;
        i = (size_t)j;
    }
    return i;
}

int vftr_source_defs_done(struct vftr_source *s)
{
    size_t w = 0;

    if (s->nprocs)
        qsort(s->procs, s->nprocs, sizeof *s->procs, cmp_proc);
    for (size_t i = 0; i < s->nprocs; i++) {       /* a process defined twice: the first */
        if (w > 0 && s->procs[w - 1].token == s->procs[i].token) {
            free((char *)s->procs[i].name);
            continue;
        }
        s->procs[w++] = s->procs[i];
    }
    s->nprocs = w;
    if (s->nfuncs)
        qsort(s->funcs, s->nfuncs, sizeof *s->funcs, cmp_func);
    if (s->ngroups)
        qsort(s->groups, s->ngroups, sizeof *s->groups, cmp_name);
    if (s->ncollops)
        qsort(s->collops, s->ncollops, sizeof *s->collops, cmp_name);
    if (s->ncounters)
        qsort(s->counters, s->ncounters, sizeof *s->counters, cmp_counter);
    if (s->nfilegroups)
        qsort(s->filegroups, s->nfilegroups, sizeof *s->filegroups, cmp_name);
    if (s->nfiles) {                    /* a token defined twice: one of them */
        w = 0;
        qsort(s->files, s->nfiles, sizeof *s->files, cmp_file);
        for (size_t i = 0; i < s->nfiles; i++) {
            if (w > 0 && s->files[w - 1].token == s->files[i].token) {
                free((char *)s->files[i].name);
                continue;
            }
            s->files[w++] = s->files[i];
        }
        s->nfiles = w;
    }
    if (s->ncomms) {                    /* a token defined twice: one of them */
        w = 0;
        qsort(s->comms, s->ncomms, sizeof *s->comms, cmp_comm);
        for (size_t i = 0; i < s->ncomms; i++) {
            if (w > 0 && s->comms[w - 1].token == s->comms[i].token) {
                free((char *)s->comms[i].name);
                free((uint32_t *)s->comms[i].procs);
                continue;
            }
            s->comms[w++] = s->comms[i];
        }
        s->ncomms = w;
    }
    vftr_u64map_release(&s->procmap);
    vftr_u64map_release(&s->funcmap);
    for (size_t i = 0; i < s->nprocs; i++)
        if (vftr_u64map_put(&s->procmap, s->procs[i].token, (uint32_t)i) < 0)
            return -ENOMEM;
    for (size_t i = 0; i < s->nfuncs; i++)
        if (vftr_u64map_put(&s->funcmap, s->funcs[i].token, (uint32_t)i) < 0)
            return -ENOMEM;
    if (!s->ranks_known && s->nprocs) {
        /* the tools' one numbering rule (tracesel.h): ranks are the
         * processes without parent, threads the others of a rank */
        struct vftr_procid *ids = malloc(s->nprocs * sizeof *ids);
        uint32_t *parents = malloc(s->nprocs * sizeof *parents);
        int rc = ids && parents ? 0 : -ENOMEM;

        for (size_t i = 0; rc == 0 && i < s->nprocs; i++) {
            ids[i].token = s->procs[i].token;
            parents[i] = s->procs[i].parent;
        }
        if (rc == 0)
            rc = vftr_procids_number(ids, parents, s->nprocs);
        for (size_t i = 0; rc == 0 && i < s->nprocs; i++) {
            s->procs[i].rank = ids[i].rank;
            s->procs[i].thread = ids[i].thread;
        }
        free(ids);
        free(parents);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------ the object */

void vftr_source_free(struct vftr_source *s)
{
    if (!s)
        return;
    if (s->ops && s->ops->free)
        s->ops->free(s);
    for (size_t i = 0; i < s->nprocs; i++)
        free((char *)s->procs[i].name);
    for (size_t i = 0; i < s->nfuncs; i++) {
        free((char *)s->funcs[i].name);
        free((char *)s->funcs[i].file);
    }
    for (size_t i = 0; i < s->ncomms; i++) {
        free((char *)s->comms[i].name);
        free((uint32_t *)s->comms[i].procs);
    }
    free(s->comms);
    for (size_t i = 0; i < s->nfiles; i++)
        free((char *)s->files[i].name);
    free(s->files);
    for (size_t i = 0; i < s->nfilegroups; i++)
        free((char *)s->filegroups[i].name);
    free(s->filegroups);
    for (size_t i = 0; i < s->ngroups; i++)
        free((char *)s->groups[i].name);
    for (size_t i = 0; i < s->ncollops; i++)
        free((char *)s->collops[i].name);
    for (size_t i = 0; i < s->ncounters; i++) {
        free((char *)s->counters[i].name);
        free((char *)s->counters[i].unit);
    }
    free(s->counters);
    free(s->procs);
    free(s->funcs);
    free(s->groups);
    free(s->collops);
    vftr_u64map_release(&s->procmap);
    vftr_u64map_release(&s->funcmap);
    free(s->name);
    free(s);
}

const struct vftr_source_info *vftr_source_info(const struct vftr_source *s)
{
    return &s->info;
}

const struct vftr_source_proc *vftr_source_procs(const struct vftr_source *s, size_t *n)
{
    *n = s->nprocs;
    return s->procs;
}

const struct vftr_source_func *vftr_source_funcs(const struct vftr_source *s, size_t *n)
{
    *n = s->nfuncs;
    return s->funcs;
}

const struct vftr_source_name *vftr_source_groups(const struct vftr_source *s, size_t *n)
{
    *n = s->ngroups;
    return s->groups;
}

const struct vftr_source_name *vftr_source_collops(const struct vftr_source *s, size_t *n)
{
    *n = s->ncollops;
    return s->collops;
}

const struct vftr_source_counter *vftr_source_counters(const struct vftr_source *s, size_t *n)
{
    *n = s->ncounters;
    return s->counters;
}

const struct vftr_source_comm *vftr_source_comms(const struct vftr_source *s, size_t *n)
{
    *n = s->ncomms;
    return s->comms;
}

const struct vftr_source_file *vftr_source_files(const struct vftr_source *s, size_t *n)
{
    *n = s->nfiles;
    return s->files;
}

const struct vftr_source_name *vftr_source_filegroups(const struct vftr_source *s, size_t *n)
{
    *n = s->nfilegroups;
    return s->filegroups;
}

const struct vftr_source_file *vftr_source_file(const struct vftr_source *s, uint32_t token)
{
    size_t lo = 0, hi = s->nfiles;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->files[mid].token == token)
            return &s->files[mid];
        if (s->files[mid].token < token)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *vftr_source_filegroup_name(const struct vftr_source *s, uint32_t token)
{
    for (size_t i = 0; i < s->nfilegroups; i++)
        if (s->filegroups[i].token == token)
            return s->filegroups[i].name;
    return NULL;
}

const struct vftr_source_comm *vftr_source_comm(const struct vftr_source *s, uint32_t token)
{
    size_t lo = 0, hi = s->ncomms;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->comms[mid].token == token)
            return &s->comms[mid];
        if (s->comms[mid].token < token)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

struct vftr_window *vftr_source_window(struct vftr_source *s)
{
    return s->ops->window ? s->ops->window(s) : NULL;
}

const struct vftr_source_proc *vftr_source_proc(const struct vftr_source *s, uint32_t token)
{
    long i = vftr_u64map_get(&s->procmap, token);

    return i < 0 ? NULL : &s->procs[i];
}

const struct vftr_source_func *vftr_source_func(const struct vftr_source *s, uint32_t token)
{
    long i = vftr_u64map_get(&s->funcmap, token);

    return i < 0 ? NULL : &s->funcs[i];
}

int vftr_source_scls_init(const struct vftr_source *s, struct vftr_source_scls *t)
{
    size_t capf = 0, capl = 0;

    *t = (struct vftr_source_scls){ 0 };
    t->func_scl = calloc(s->nfuncs ? s->nfuncs : 1, sizeof *t->func_scl);
    if (!t->func_scl)
        return -ENOMEM;
    /* few locations in practice (one per OpenMP construct): linear lookups */
    for (size_t i = 0; i < s->nfuncs; i++) {
        const struct vftr_source_func *f = &s->funcs[i];
        size_t fi, li;

        if (!f->file)
            continue;
        for (fi = 0; fi < t->nfiles && strcmp(t->files[fi], f->file) != 0; fi++)
            ;
        if (fi == t->nfiles) {
            if (vftr_reserve((void **)&t->files, &capf, t->nfiles, sizeof *t->files) < 0)
                goto nomem;
            t->files[t->nfiles++] = f->file;
        }
        for (li = 0; li < t->nlocs && !(t->locs[li].file == fi + 1 && t->locs[li].line == f->line);
             li++)
            ;
        if (li == t->nlocs) {
            if (vftr_reserve((void **)&t->locs, &capl, t->nlocs, sizeof *t->locs) < 0)
                goto nomem;
            t->locs[t->nlocs].file = (uint32_t)fi + 1;
            t->locs[t->nlocs++].line = f->line;
        }
        t->func_scl[i] = (uint32_t)li + 1;
    }
    return 0;
nomem:
    vftr_source_scls_release(t);
    return -ENOMEM;
}

void vftr_source_scls_release(struct vftr_source_scls *t)
{
    free(t->files);
    free(t->locs);
    free(t->func_scl);
    *t = (struct vftr_source_scls){ 0 };
}

static const char *find_name(const struct vftr_source_name *v, size_t n, uint32_t token)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (v[mid].token == token)
            return v[mid].name;
        if (v[mid].token < token)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *vftr_source_group_name(const struct vftr_source *s, uint32_t token)
{
    return find_name(s->groups, s->ngroups, token);
}

const char *vftr_source_collop_name(const struct vftr_source *s, uint32_t token)
{
    return find_name(s->collops, s->ncollops, token);
}

const char *vftr_source_token_name(const struct vftr_source *s, int kind, uint32_t token,
                                   char *buf, size_t size)
{
    static const char *const prefix[] = { "function", "group", "collective" };
    const struct vftr_source_func *f;
    const char *name = NULL;

    if (kind == VFTR_SOURCE_NAME_FUNCTION && (f = vftr_source_func(s, token)))
        name = f->name;
    else if (kind == VFTR_SOURCE_NAME_GROUP)
        name = vftr_source_group_name(s, token);
    else if (kind == VFTR_SOURCE_NAME_COLLOP)
        name = vftr_source_collop_name(s, token);
    if (name)
        return name;
    snprintf(buf, size, "%s-%" PRIu32, prefix[kind], token);
    return buf;
}

static int cmp_rank(const void *x, const void *y)
{
    const struct vftr_source_proc *a = *(const struct vftr_source_proc *const *)x;
    const struct vftr_source_proc *b = *(const struct vftr_source_proc *const *)y;

    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return (a->token > b->token) - (a->token < b->token);
}

void vftr_source_set_progress(struct vftr_source *s, struct vftr_progress *p)
{
    s->progress = p;
}

const struct vftr_source_proc **vftr_source_order_by_rank(const struct vftr_source_proc *procs,
                                                           size_t n)
{
    const struct vftr_source_proc **order = malloc((n ? n : 1) * sizeof *order);

    if (!order)
        return NULL;
    for (size_t i = 0; i < n; i++)
        order[i] = &procs[i];
    if (n)
        qsort(order, n, sizeof *order, cmp_rank);
    return order;
}

const struct vftr_source_proc **vftr_source_procs_by_rank(const struct vftr_source *s, size_t *n)
{
    *n = s->nprocs;
    return vftr_source_order_by_rank(s->procs, s->nprocs);
}

uint32_t vftr_source_rank_process(void *source, uint32_t process)
{
    const struct vftr_source *s = source;
    long i = vftr_u64map_get(&s->procmap, process);

    return i < 0 ? process : s->procs[root_of(s, (size_t)i)].token;
}

vftr_procmap_fn *vftr_source_peer_ranks(const struct vftr_source *s)
{
    return vftr_source_info(s)->kind == VFTR_SOURCE_VFD ? NULL : vftr_source_rank_process;
}

int vftr_source_read(struct vftr_source *s, uint64_t a, uint64_t b,
                     const struct vftr_proclist *procs, unsigned flags,
                     const struct vftr_window_handler *h, struct vftr_window_stats *stats,
                     char *err, size_t errlen)
{
    struct vftr_window_stats dummy;

    if (b <= a)
        return vftr_errmsg(err, errlen, -EINVAL, "empty time window");
    if (err && errlen)
        err[0] = '\0';
    return s->ops->read(s, a, b, procs, flags, h, stats ? stats : &dummy, err, errlen);
}

/* ------------------------------------------------------------ profiles */

unsigned vftr_profq_replay_flags(const struct vftr_profq *q)
{
    return (q->flags & VFTR_PROFQ_INCL_ONCE ? 0 : VFTR_REPLAY_INCL_PER_CALL) |
           (q->flags & VFTR_PROFQ_PATHS ? 0 : VFTR_REPLAY_NO_PATHS);
}

struct vftr_profbuild {
    struct vftr_profq q;
    struct vftr_replay *replay;
};

struct vftr_profbuild *vftr_profbuild_new(const struct vftr_profq *q)
{
    struct vftr_profbuild *b = calloc(1, sizeof *b);

    if (!b)
        return NULL;
    b->q = *q;
    b->replay = vftr_replay_new(q->a, q->b);
    if (!b->replay || vftr_replay_set_flags(b->replay, vftr_profq_replay_flags(q)) < 0) {
        int e = b->replay ? EINVAL : errno;

        vftr_profbuild_free(b);
        errno = e;
        return NULL;
    }
    return b;
}

void vftr_profbuild_free(struct vftr_profbuild *b)
{
    if (!b)
        return;
    vftr_replay_free(b->replay);
    free(b);
}

static uint32_t mapped(const struct vftr_profbuild *b, uint32_t function)
{
    return b->q.token ? b->q.token(b->q.arg, function) : function;
}

static int wanted(const struct vftr_profbuild *b, uint32_t process)
{
    return !b->q.procs || vftr_proclist_contains(b->q.procs, process);
}

int vftr_profbuild_open_frame(struct vftr_profbuild *b, uint32_t process, uint32_t function,
                              uint64_t enter)
{
    if (!wanted(b, process))
        return 0;
    return vftr_replay_open_call(b->replay, process, mapped(b, function), enter);
}

int vftr_profbuild_enter(struct vftr_profbuild *b, uint64_t time, uint32_t process,
                         uint32_t function)
{
    if (!wanted(b, process))
        return 0;
    return vftr_replay_enter(b->replay, process, mapped(b, function), time);
}

int vftr_profbuild_leave(struct vftr_profbuild *b, uint64_t time, uint32_t process,
                         uint32_t function)
{
    if (!wanted(b, process))
        return 0;
    return vftr_replay_leave(b->replay, process, mapped(b, function), time);
}

int vftr_profbuild_finish(struct vftr_profbuild *b, struct vftr_profq_result *res)
{
    const struct vftr_funcstat *fs;
    size_t n;
    int rc;

    if (!res->acc && !(res->acc = vftr_fsacc_new()))
        return -ENOMEM;
    rc = vftr_replay_finish(b->replay);
    if (rc < 0)
        return rc;
    fs = vftr_replay_funcstats(b->replay, &n);
    rc = vftr_fsacc_add_stats(res->acc, fs, n, +1, b->q.process, b->q.arg);
    if (rc < 0)
        return rc;
    if (b->q.flags & VFTR_PROFQ_PATHS) {
        vftr_replay_free(res->paths);
        res->paths = b->replay;
        b->replay = NULL;
    }
    vftr_fsacc_result(res->acc, &n, &res->negative);
    return 0;
}

static int feed_open(void *arg, uint32_t process, uint32_t function, uint64_t enter,
                     uint32_t depth)
{
    (void)depth;
    return vftr_profbuild_open_frame(arg, process, function, enter);
}

static int feed_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    return vftr_profbuild_enter(arg, time, process, function);
}

static int feed_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    return vftr_profbuild_leave(arg, time, process, function);
}

int vftr_source_profile_events(struct vftr_source *s, const struct vftr_profq *q,
                               struct vftr_profq_result *res, char *err, size_t errlen)
{
    struct vftr_profbuild *b = vftr_profbuild_new(q);
    struct vftr_window_handler h = { .arg = b, .open_frame = feed_open, .enter = feed_enter,
                                     .leave = feed_leave };
    struct vftr_window_stats st = { 0 };
    int rc;

    if (!b)
        return vftr_errmsg(err, errlen, -errno, "%s", errno == EINVAL ? "empty time window"
                                                                      : "out of memory");
    rc = vftr_source_read(s, q->a, q->b, q->procs, 0, &h, &st, err, errlen);
    if (rc > 0 || (rc < 0 && err && !err[0]))
        rc = vftr_errmsg(err, errlen, rc > 0 ? -EIO : rc, "%s", strerror(rc > 0 ? EIO : -rc));
    res->bytes += st.bytes_read;
    res->replayed += st.replayed;
    res->delivered += st.delivered;
    if (rc == 0 && (rc = vftr_profbuild_finish(b, res)) < 0)
        vftr_errmsg(err, errlen, rc, "out of memory");
    if (!res->method)
        res->method = st.from_snapshot ? "snapshots" : "events";
    vftr_profbuild_free(b);
    return rc;
}

int vftr_source_profile(struct vftr_source *s, const struct vftr_profq *q,
                        struct vftr_profq_result *res, char *err, size_t errlen)
{
    int rc;

    *res = (struct vftr_profq_result){ 0 };
    if (q->b <= q->a)
        return vftr_errmsg(err, errlen, -EINVAL, "empty time window");
    res->acc = vftr_fsacc_new();
    if (!res->acc)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    if (err && errlen)
        err[0] = '\0';
    rc = s->ops->profile ? s->ops->profile(s, q, res, err, errlen) : 1;
    if (rc == 1)
        rc = vftr_source_profile_events(s, q, res, err, errlen);
    if (rc == 0)
        vftr_fsacc_result(res->acc, &(size_t){ 0 }, &res->negative);
    if (rc < 0)
        vftr_profq_release(res);
    return rc;
}

void vftr_profq_release(struct vftr_profq_result *res)
{
    vftr_fsacc_free(res->acc);
    vftr_replay_free(res->paths);
    *res = (struct vftr_profq_result){ 0 };
}
