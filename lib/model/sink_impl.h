/*
 * sink_impl.h — what the format writers of sink.h share with its front
 * (sink.c); not for tools.  A writer's open allocates its state, fills in
 * the handler (h.arg is the state) and its ops, through vftr_sink_new.
 */
#ifndef VFTR_MODEL_SINK_IMPL_H
#define VFTR_MODEL_SINK_IMPL_H

#include "sink.h"

struct vftr_sink_ops {
    /* finishes the files and frees the state; 0 or -errno with err */
    int (*close)(void *impl, char *err, size_t errlen);
    /* frees the state and removes what was written */
    void (*abort)(void *impl);
    /* why a callback failed (optional): one line naming the file, "" when
     * it knows no more than the -errno it returned */
    const char *(*why)(void *impl);
};

struct vftr_sink {
    const struct vftr_sink_ops *ops;
    void *impl;
    struct vftr_window_handler h;
};

/* A new sink for impl (NULL + errno ENOMEM). */
struct vftr_sink *vftr_sink_new(const struct vftr_sink_ops *ops, void *impl,
                                const struct vftr_window_handler *h);

/* The writers' open functions (the table of sink.c names them). */
int vftr_sink_open_otf(struct vftr_sink **out, const char *path, struct vftr_source *src,
                       const struct vftr_sink_opts *o, char *err, size_t errlen);
int vftr_sink_open_otf2(struct vftr_sink **out, const char *path, struct vftr_source *src,
                        const struct vftr_sink_opts *o, char *err, size_t errlen);
int vftr_sink_open_perfetto(struct vftr_sink **out, const char *path, struct vftr_source *src,
                            const struct vftr_sink_opts *o, char *err, size_t errlen);
int vftr_sink_open_json(struct vftr_sink **out, const char *path, struct vftr_source *src,
                        const struct vftr_sink_opts *o, char *err, size_t errlen);
int vftr_sink_open_folded(struct vftr_sink **out, const char *path, struct vftr_source *src,
                          const struct vftr_sink_opts *o, char *err, size_t errlen);

/*
 * The writers of one output file (Perfetto, JSON, folded) end it here:
 * vftr_sink_file_finish closes f and, when rc (the writer's verdict) is
 * negative, the stream had an error or the close failed, removes the file
 * and says "PATH: WHY" in err (WHY: `why` when not empty, else the error's
 * text); returns rc, or the -errno of what failed.  vftr_sink_file_drop
 * closes and removes it (an abort).
 */
int vftr_sink_file_finish(FILE *f, const char *path, int rc, const char *why, char *err,
                          size_t errlen);
void vftr_sink_file_drop(FILE *f, const char *path);

/* The name of function token f, "" when undefined (borrowed from src). */
const char *vftr_sink_func_name(const struct vftr_source *src, uint32_t f);

#endif /* VFTR_MODEL_SINK_IMPL_H */
