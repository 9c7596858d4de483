/*
 * source_impl.h — what the format backends of source.h share with its
 * front (source.c); not for tools.
 *
 * A backend's open fills the definitions through vftr_source_add_*(), the
 * info fields it knows, and its ops; the front then sorts and indexes the
 * definitions (vftr_source_defs_done) and fills in what the trace did not
 * say (ranks and threads of processes).  Names are copied.
 */
#ifndef VFTR_MODEL_SOURCE_IMPL_H
#define VFTR_MODEL_SOURCE_IMPL_H

#include "source.h"
#include "u64map.h"

struct vftr_source_ops {
    void (*free)(struct vftr_source *s);
    /* vftr_source_read: procs NULL for all */
    int (*read)(struct vftr_source *s, uint64_t a, uint64_t b, const struct vftr_proclist *procs,
                unsigned flags, const struct vftr_window_handler *h,
                struct vftr_window_stats *stats, char *err, size_t errlen);
    /* vftr_source_profile (optional): 0, 1 when this backend has no faster
     * way for the query (the front then replays the window's events), or
     * -errno */
    int (*profile)(struct vftr_source *s, const struct vftr_profq *q,
                   struct vftr_profq_result *res, char *err, size_t errlen);
    /* vftr_source_window (optional) */
    struct vftr_window *(*window)(struct vftr_source *s);
};

struct vftr_source {
    const struct vftr_source_ops *ops;
    void *impl;                       /* the backend's state */
    struct vftr_source_opts opts;
    const struct vftr_vfdconv_share *share;   /* .vfd first pass shared (borrowed) or NULL */
    struct vftr_source_info info;
    char *name;

    struct vftr_source_proc *procs;   /* sorted by token */
    size_t nprocs, capprocs;
    struct vftr_source_func *funcs;
    size_t nfuncs, capfuncs;
    struct vftr_source_name *groups, *collops;
    size_t ngroups, capgroups, ncollops, capcollops;
    struct vftr_source_counter *counters;
    size_t ncounters, capcounters;
    struct vftr_source_comm *comms;
    size_t ncomms, capcomms;
    struct vftr_source_file *files;
    size_t nfiles, capfiles;
    struct vftr_source_name *filegroups;
    size_t nfilegroups, capfilegroups;
    struct vftr_u64map procmap, funcmap;   /* token -> index */
    int ranks_known;                  /* the backend set rank and thread */
    struct vftr_progress *progress;   /* vftr_source_set_progress; NULL: none */
};

int vftr_source_add_proc(struct vftr_source *s, uint32_t token, uint32_t parent, uint32_t rank,
                         uint32_t thread, unsigned flags, const char *name);
/* Adds or, for a token met before, replaces. */
int vftr_source_add_func(struct vftr_source *s, uint32_t token, uint32_t group, unsigned flags,
                         const char *name);
int vftr_source_add_group(struct vftr_source *s, uint32_t token, const char *name);
int vftr_source_add_collop(struct vftr_source *s, uint32_t token, const char *name);
int vftr_source_add_counter(struct vftr_source *s, uint32_t token, const char *name,
                            const char *unit, uint32_t properties);
/* procs copied; a token defined twice keeps one definition. */
int vftr_source_add_comm(struct vftr_source *s, uint32_t token, const char *name, uint32_t n,
                         const uint32_t *procs);
/* A file (a token defined twice keeps one definition) and a file group. */
int vftr_source_add_file(struct vftr_source *s, uint32_t token, uint32_t group, const char *name);
int vftr_source_add_filegroup(struct vftr_source *s, uint32_t token, const char *name);
/* The source location of function token (defined before).  0, -ENOENT, -ENOMEM. */
int vftr_source_set_func_location(struct vftr_source *s, uint32_t token, const char *file,
                                  uint32_t line);
/* Sorts, indexes, numbers ranks and threads (unless ranks_known).  0 or -ENOMEM. */
int vftr_source_defs_done(struct vftr_source *s);

/* The backends' open functions: 0 with s->ops set, or -errno with err. */
int vftr_source_open_otf(struct vftr_source *s, const char *operand, char *err, size_t errlen);
int vftr_source_open_vfd(struct vftr_source *s, const char *const *operands, size_t n,
                         char *err, size_t errlen);
int vftr_source_open_otf2(struct vftr_source *s, const char *operand, char *err, size_t errlen);

/* The number of threads for a read: opts.jobs, or the online CPUs. */
unsigned vftr_source_jobs(const struct vftr_source *s);

/* The front's replay of a profile query from h-driven reads: used by the
 * backends too, for the parts of a query they do not speed up.  Feeds a new
 * replay with the open frames at q->a and the events of [q->a, q->b). */
int vftr_source_profile_events(struct vftr_source *s, const struct vftr_profq *q,
                               struct vftr_profq_result *res, char *err, size_t errlen);

/* The replay flags of a query (VFTR_REPLAY_*). */
unsigned vftr_profq_replay_flags(const struct vftr_profq *q);

#endif /* VFTR_MODEL_SOURCE_IMPL_H */
