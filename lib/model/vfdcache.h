/*
 * vfdcache.h — the OTF trace of a run's .vfd input, made once and kept, for
 * the tools that read OTF's windows and snapshots (vftr-tui, vftr-snap):
 * every tool takes the same input kinds, and those two get from .vfd files
 * exactly the trace vfd2otf writes by default (vfdotf.h: events,
 * snapshots, summaries and thumbnail in one pass), so that what they show
 * is what they would show on `vfd2otf -o T RUN`'s output.
 *
 * Where it is kept (share/doc/vfd2otf.md, "Cached conversions"):
 *   beside the run: RUNDIR/vftr-otf/BASE/BASE.otf (and its files), RUNDIR
 *     the directory of the first .vfd file, BASE the run's basename (the
 *     file name without "_<rank>.vfd"); a run directory's <basename>.old/
 *     is a run of its own and gets its own;
 *   when RUNDIR cannot be written (read-only, someone else's): in the
 *     user's cache, CACHE/vftr/BASE-<hash of RUNDIR's real path>/, CACHE
 *     being $XDG_CACHE_HOME or ~/.cache;
 *   or in the directory opts->dir names (made if missing), as
 *     DIR/BASE-<hash>/.
 * A file "inputs" beside the trace lists the .vfd files it was made from
 * (real path, size, modification time) and vftr's version; the trace is
 * reused while they are unchanged, and made again otherwise (a new capture
 * into the same directory, a .tmpvfd that grew).  A conversion is written
 * into a temporary directory and renamed into place when complete, so an
 * interrupted one leaves nothing that would be taken for a trace.
 *
 * Errors: 0 / -errno with a message in err naming the file (vfdconv's and
 * vfdfiles.h's messages for the input).  Progress (vfd2otf's bar) on
 * stderr when opts->progress.  Not thread-safe with itself on one run (two
 * processes converting one run at once each make a copy; the last rename
 * wins, both copies are whole).
 */
#ifndef VFTR_MODEL_VFDCACHE_H
#define VFTR_MODEL_VFDCACHE_H

#include <stddef.h>
#include <stdio.h>

struct vftr_vfdcache_opts {
    const char *prog;           /* prefix of messages, e.g. "vftr-tui" */
    FILE *warn;                 /* warnings and the note that a conversion starts; NULL: none */
    int progress;               /* draw the conversion's progress bar on stderr */
    int quiet;                  /* no note that a conversion starts (warnings still go) */
    unsigned jobs;              /* threads reading the files (0, 1: one) */
    const char *dir;            /* keep the trace here instead (NULL: as above) */
    const char *cache_home;     /* the user's cache directory ($XDG_CACHE_HOME, or
                                 * ~/.cache); NULL: no fallback */
};

/*
 * The OTF trace of the .vfd operands ops[0..n) (files or a run directory,
 * as vfdfiles.h takes them): found, or made now.  Its name stub ("…/app",
 * for app.otf) goes to out; *made (may be NULL) is 1 when it was made now,
 * 0 when an earlier one was reused.
 */
int vftr_vfdcache_get(const char *const *ops, size_t n, const struct vftr_vfdcache_opts *opts,
                      char *out, size_t outlen, int *made, char *err, size_t errlen);

/* The user's cache directory from the environment: $XDG_CACHE_HOME when it
 * is an absolute path, else $HOME/.cache; NULL when neither is set.  Into
 * buf; returns buf or NULL. */
char *vftr_vfdcache_user_dir(char *buf, size_t size);

#endif /* VFTR_MODEL_VFDCACHE_H */
