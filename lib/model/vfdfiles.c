/*
 * vfdfiles.c — see vfdfiles.h.
 */
#include "vfdfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/errmsg.h"
#include "util/regfile.h"
#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_ext.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int vftr_vfdfiles_is_trace_name(const char *name)
{
    return ends_with(name, ".vfd") || ends_with(name, ".tmpvfd");
}

static int add(struct vftr_vfdfiles *f, const char *dir, const char *name)
{
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(len);

    if (!p)
        return -ENOMEM;
    snprintf(p, len, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        char **v = realloc(f->path, cap * sizeof *v);

        if (!v) {
            free(p);
            return -ENOMEM;
        }
        f->path = v;
        f->cap = cap;
    }
    f->path[f->n++] = p;
    return 0;
}

/* The run a file belongs to (its RUN_ID chunk, else its header's) and its
 * rank.  0, or -errno when the file cannot be read as a .vfd. */
static int identify(const char *path, uint8_t run_id[16], int32_t *rank, int *have_events)
{
    struct vftr_vfd_reader *r = vftr_vfd_reader_open(path);
    struct vftr_vfd_record rec;
    int rc;

    if (!r)
        return -(errno ? errno : EBADMSG);
    memcpy(run_id, vftr_vfd_reader_info(r)->run_id, 16);
    *rank = vftr_vfd_reader_info(r)->rank;
    *have_events = 0;
    vftr_vfd_reader_whole_events(r, 1);
    while ((rc = vftr_vfd_reader_next(r, &rec)) != 0) {
        if (rc < 0)
            continue;                   /* damaged chunks: the reader goes on */
        if (rec.type != VFTR_VFD_REC_UNKNOWN)
            continue;
        if (rec.u.unknown.kind == VFTR_VFD_CHUNK_EVENTS)
            *have_events = 1;
        if (rec.u.unknown.kind == VFTR_VFD_CHUNK_RUN_ID &&
            vftr_vfd_decode_run_id(rec.u.unknown.payload, rec.u.unknown.length, run_id) == 0)
            break;
    }
    vftr_vfd_reader_close(r);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The files of directory `dir`: its .vfd files, then the .tmpvfd files of
 * the same run (see vfdfiles.h).  The run is the one of its first .vfd
 * file; without any, the .tmpvfd files themselves (which must then agree,
 * vfdconv checks that).
 */
static int collect_dir(struct vftr_vfdfiles *f, const char *dir, FILE *warn, const char *prog,
                       char *err, size_t errlen)
{
    struct vftr_vfdfiles tmp = VFTR_VFDFILES_INIT;
    size_t before = f->n;
    DIR *d = opendir(dir);
    struct dirent *e;
    uint8_t run[16];
    int have_run = 0, rc = 0;

    if (!d)
        return vftr_errmsg(err, errlen, -errno, "%s: cannot read the directory (%s)", dir,
                           strerror(errno));
    while ((e = readdir(d))) {
        int is_vfd = ends_with(e->d_name, ".vfd");
        struct stat sb;

        if (!is_vfd && !ends_with(e->d_name, ".tmpvfd"))
            continue;
        /* a FIFO or a device among the trace files would block whoever
         * opens it: a .vfd one is an error, a .tmpvfd one is skipped like
         * any unreadable .tmpvfd file */
        if (fstatat(dirfd(d), e->d_name, &sb, 0) == 0 && !S_ISREG(sb.st_mode)) {
            if (is_vfd) {
                rc = vftr_errmsg(err, errlen, S_ISDIR(sb.st_mode) ? -EISDIR : -ENODEV,
                                 "%s/%s: is %s, expected a .vfd file (a regular file)", dir,
                                 e->d_name, vftr_file_kind(sb.st_mode));
                break;
            }
            f->skipped++;
            if (warn)
                fprintf(warn, "%s: %s/%s: skipped: it is %s, not a .vfd file\n", prog, dir,
                        e->d_name, vftr_file_kind(sb.st_mode));
            continue;
        }
        rc = is_vfd ? add(f, dir, e->d_name) : add(&tmp, dir, e->d_name);
        if (rc < 0)
            break;
    }
    closedir(d);
    if (rc < 0)
        goto out;
    if (f->n > before)
        qsort(f->path + before, f->n - before, sizeof *f->path, cmp_str);
    if (tmp.n)
        qsort(tmp.path, tmp.n, sizeof *tmp.path, cmp_str);
    /* the run of the .vfd files matters only when there are .tmpvfd files
     * to judge (a tool sharing the files out must not open them all) */
    for (size_t i = before; tmp.n && i < f->n && !have_run; i++) {
        int32_t rank;
        int ev;

        have_run = identify(f->path[i], run, &rank, &ev) == 0;
    }
    for (size_t i = 0; i < tmp.n; i++) {
        uint8_t id[16];
        int32_t rank;
        int ev;
        int irc = identify(tmp.path[i], id, &rank, &ev);
        const char *why = NULL;

        if (irc < 0)
            why = "not readable as a .vfd file";
        else if (have_run && memcmp(id, run, 16) != 0)
            why = "it belongs to another run";
        else if (rank < 0 && (f->n > before || tmp.n > 1))
            why = "it names no MPI rank (its process ended before MPI_Init)";
        if (why) {
            f->skipped++;
            if (warn)
                fprintf(warn, "%s: %s: skipped: %s\n", prog, tmp.path[i], why);
            continue;
        }
        if (warn) {
            if (rank >= 0)
                fprintf(warn, "%s: %s: rank %" PRId32 " did not end normally (killed, or still "
                        "running): read up to its last whole chunk\n", prog, tmp.path[i], rank);
            else
                fprintf(warn, "%s: %s: the process did not end normally (killed, or still "
                        "running): read up to its last whole chunk\n", prog, tmp.path[i]);
        }
        if (!have_run) {
            memcpy(run, id, 16);
            have_run = 1;
        }
        rc = add(f, NULL, tmp.path[i]);
        if (rc < 0)
            goto out;
    }
    if (f->n == before)
        rc = vftr_errmsg(err, errlen, -ENOENT, "%s: no .vfd file in the directory", dir);
out:
    if (rc == -ENOMEM)
        vftr_errmsg(err, errlen, rc, "out of memory");
    vftr_vfdfiles_release(&tmp);
    return rc;
}

int vftr_vfdfiles_collect(struct vftr_vfdfiles *f, const char *const *ops, size_t n, FILE *warn,
                          const char *prog, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        int rc;

        if (stat(ops[i], &sb) != 0)
            return vftr_errmsg(err, errlen, -errno, "%s: %s", ops[i], strerror(errno));
        if (S_ISDIR(sb.st_mode))
            rc = collect_dir(f, ops[i], warn, prog, err, errlen);
        else if (!S_ISREG(sb.st_mode))
            rc = vftr_errmsg(err, errlen, -ENODEV, "%s: is %s, expected a .vfd file or a run's "
                             "directory", ops[i], vftr_file_kind(sb.st_mode));
        else if ((rc = add(f, NULL, ops[i])) < 0)
            vftr_errmsg(err, errlen, rc, "out of memory");
        if (rc < 0)
            return rc;
    }
    return 0;
}

void vftr_vfdfiles_release(struct vftr_vfdfiles *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->path[i]);
    free(f->path);
    *f = (struct vftr_vfdfiles)VFTR_VFDFILES_INIT;
}
