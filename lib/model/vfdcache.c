/*
 * vfdcache.c — see vfdcache.h.  The trace is vfd2otf's own (vfdotf.c with
 * vfd2otf's defaults); what this file adds is where it is kept, when it is
 * reused, and that a half-written one is never found.
 */
#include "vfdcache.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/snapshot.h"
#include "model/vfdconv.h"
#include "model/vfdfiles.h"
#include "model/vfdotf.h"
#include "util/errmsg.h"

#define PATH_ROOM 4096

/* ------------------------------------------------------------ names */

/* The run's basename: the first file's name without its directory, its
 * ending (.vfd, .tmpvfd) and its "_<rank>"; "run" when nothing is left. */
static void run_base(const char *path, char *out, size_t size)
{
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t len = strlen(name);

    if (len > 4 && strcmp(name + len - 4, ".vfd") == 0)
        len -= 4;
    else if (len > 7 && strcmp(name + len - 7, ".tmpvfd") == 0)
        len -= 7;
    {
        size_t d = len;

        while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
            d--;
        if (d > 1 && d < len && name[d - 1] == '_')
            len = d - 1;
    }
    if (len == 0 || (len == 1 && name[0] == '.'))
        snprintf(out, size, "run");
    else
        snprintf(out, size, "%.*s", (int)(len > 200 ? 200 : len), name);
}

/* FNV-1a: a short, stable name for a run directory in a shared cache. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ull;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

char *vftr_vfdcache_user_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

    if (xdg && xdg[0] == '/')
        snprintf(buf, size, "%s", xdg);
    else if (home && home[0])
        snprintf(buf, size, "%s/.cache", home);
    else
        return NULL;
    return buf;
}

/* ------------------------------------------------------------ inputs */

/* What the trace is made from, as the "inputs" file holds it: vftr's
 * version, then per file its real path, size and modification time.
 * malloc'ed, or NULL (ENOMEM, or a file that went away: errno). */
static char *inputs_text(const struct vftr_vfdfiles *files)
{
    size_t cap = 256, len;
    char *text = malloc(cap);

    if (!text)
        return NULL;
    len = (size_t)snprintf(text, cap, "vftr %s\n", VFTR_VERSION);
    for (size_t i = 0; i < files->n; i++) {
        char real[PATH_MAX], line[PATH_MAX + 96];
        struct stat sb;
        size_t l;

        if (!realpath(files->path[i], real) || stat(real, &sb) != 0) {
            free(text);
            return NULL;
        }
        l = (size_t)snprintf(line, sizeof line, "%s\t%lld\t%lld.%09ld\n", real,
                             (long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
                             (long)sb.st_mtim.tv_nsec);
        if (len + l + 1 > cap) {
            char *more;

            while (len + l + 1 > cap)
                cap *= 2;
            if (!(more = realloc(text, cap))) {
                free(text);
                return NULL;
            }
            text = more;
        }
        memcpy(text + len, line, l + 1);
        len += l;
    }
    return text;
}

/* Does dir/inputs hold exactly `want`? */
static int inputs_match(const char *dir, const char *want)
{
    char path[PATH_ROOM + 16], *have;
    size_t wlen = strlen(want), n;
    FILE *f;
    int same;

    if (snprintf(path, sizeof path, "%s/inputs", dir) >= (int)sizeof path ||
        !(f = fopen(path, "r")))
        return 0;
    if (!(have = malloc(wlen + 2))) {
        fclose(f);
        return 0;
    }
    n = fread(have, 1, wlen + 1, f);
    same = n == wlen && memcmp(have, want, wlen) == 0;
    free(have);
    fclose(f);
    return same;
}

/* ------------------------------------------------------------ the directory */

/* Removes the directory `dir` and the files in it (our directories hold
 * files only). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char path[PATH_ROOM + 300];

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* The leftovers of conversions of BASE that were killed (".BASE.tmp-PID"
 * or ".BASE.old-PID" whose process is gone) are removed. */
static void remove_leftovers(const char *parent, const char *base)
{
    DIR *d = opendir(parent);
    struct dirent *e;
    size_t blen = strlen(base);

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name, *rest;
        char path[PATH_ROOM + 300], *end;
        long pid;

        if (n[0] != '.' || strncmp(n + 1, base, blen) != 0)
            continue;
        rest = n + 1 + blen;
        if (strncmp(rest, ".tmp-", 5) != 0 && strncmp(rest, ".old-", 5) != 0)
            continue;
        pid = strtol(rest + 5, &end, 10);
        if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;           /* alive (or not ours to tell): leave it */
        snprintf(path, sizeof path, "%s/%s", parent, n);
        remove_dir(path);
    }
    closedir(d);
}

/* mkdir -p of dir (its parents made as needed). */
static int make_dirs(const char *dir)
{
    char path[PATH_ROOM];
    size_t len = (size_t)snprintf(path, sizeof path, "%s", dir);

    if (len >= sizeof path)
        return -ENAMETOOLONG;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

/* ------------------------------------------------------------ conversion */

/* vfd2otf's default conversion of the files into stub: events, and
 * snapshots, summaries and thumbnail in the same pass (without them, with
 * a warning, when vfd2otf would go without them too). */
static int convert(const struct vftr_vfdfiles *files, const char *stub,
                   const struct vftr_vfdcache_opts *o, char *err, size_t errlen)
{
    struct vftr_vfdconv_opts co = { o->warn, o->prog, 0, o->jobs, NULL };
    struct vftr_vfdotf_opts oo;
    struct vftr_vfdconv *c = NULL;
    char why[VFTR_ERRMSG_MAX];
    uint64_t events = 0;
    int rc = vftr_vfdconv_open(&c, (const char *const *)files->path, files->n, &co, err, errlen);

    if (rc < 0)
        return rc;
    memset(&oo, 0, sizeof oo);
    oo.stub = stub;
    oo.jobs = 1;
    oo.progress = o->progress;
    oo.snap_flags = VFTR_SNAP_SNAPSHOTS | VFTR_SNAP_SUMMARIES;
    rc = vftr_vfdotf_snap_check(c, &oo, why, sizeof why);
    if (rc == -ENOMEM) {
        vftr_vfdconv_free(c);
        return vftr_errmsg(err, errlen, rc, "out of memory");
    }
    if (rc < 0) {
        if (o->warn)
            fprintf(o->warn, "%s: warning: no snapshots and summaries in %s.otf: %s\n", o->prog,
                    stub, why);
        oo.snap_flags = 0;
    }
    rc = vftr_vfdotf_definitions(c, &oo, err, errlen);
    if (rc == 0 && oo.snap_flags)
        rc = vftr_vfdotf_snap_pass(c, &oo, &events, err, errlen);
    else if (rc == 0)
        rc = vftr_vfdotf_streams(c, &oo, 1, 1, &events, err, errlen);
    vftr_vfdconv_free(c);
    return rc;
}

/* Writes dir/inputs. */
static int write_inputs(const char *dir, const char *text, char *err, size_t errlen)
{
    char path[PATH_ROOM + 16];
    FILE *f;

    if (snprintf(path, sizeof path, "%s/inputs", dir) >= (int)sizeof path)
        return vftr_errmsg(err, errlen, -ENAMETOOLONG, "%s: name too long", dir);
    f = fopen(path, "w");
    if (!f)
        return vftr_errmsg(err, errlen, -errno, "%s: cannot write (%s)", path, strerror(errno));
    if (fputs(text, f) == EOF || fclose(f) != 0)
        return vftr_errmsg(err, errlen, -EIO, "%s: cannot write", path);
    return 0;
}

/*
 * Makes the trace in `final` (a directory, its stub final/BASE): written
 * into a temporary directory beside it and renamed into place.  *nowhere
 * is set when the error is that no directory could be made there (read
 * only, not ours, a file in the way: the caller tries the next place);
 * other errors are the conversion's.
 */
static int make_in(const char *final, const char *base, const struct vftr_vfdfiles *files,
                   const char *inputs, const struct vftr_vfdcache_opts *o, int *nowhere,
                   char *err, size_t errlen)
{
    char parent[PATH_ROOM], tmp[PATH_ROOM + 300], old[PATH_ROOM + 300], stub[PATH_ROOM + 600];
    const char *slash = strrchr(final, '/');
    int rc;

    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - final) : 1,
             slash ? final : ".");
    *nowhere = 1;
    if ((rc = make_dirs(parent)) < 0)
        return vftr_errmsg(err, errlen, rc, "%s: cannot make the directory (%s)", parent,
                           strerror(-rc));
    remove_leftovers(parent, base);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp-%ld", parent, base, (long)getpid());
    snprintf(old, sizeof old, "%s/.%s.old-%ld", parent, base, (long)getpid());
    if (mkdir(tmp, 0777) != 0)
        return vftr_errmsg(err, errlen, -errno, "%s: cannot make the directory (%s)", tmp,
                           strerror(errno));
    *nowhere = 0;
    snprintf(stub, sizeof stub, "%s/%s", tmp, base);
    if (o->warn && !o->quiet)
        fprintf(o->warn, "%s: converting the .vfd files once into %s/%s.otf (vfd2otf's trace, "
                "kept for the next time)\n", o->prog, final, base);
    rc = convert(files, stub, o, err, errlen);
    if (rc == 0)
        rc = write_inputs(tmp, inputs, err, errlen);
    if (rc == 0) {
        /* the old trace moves aside first: rename cannot replace a
         * directory that holds files */
        int had = rename(final, old) == 0;

        if (rename(tmp, final) != 0) {
            rc = vftr_errmsg(err, errlen, -errno, "%s: cannot rename into place (%s)", final,
                             strerror(errno));
            if (had)
                rename(old, final);
        } else if (had) {
            remove_dir(old);
        }
    }
    if (rc < 0)
        remove_dir(tmp);
    return rc;
}

int vftr_vfdcache_get(const char *const *ops, size_t n, const struct vftr_vfdcache_opts *opts,
                      char *out, size_t outlen, int *made, char *err, size_t errlen)
{
    struct vftr_vfdcache_opts o = *opts;
    struct vftr_vfdfiles files = VFTR_VFDFILES_INIT;
    char base[256], rundir[PATH_MAX], shown[PATH_MAX], where[2][PATH_ROOM];
    int len[2];
    size_t nwhere = 0;
    char *inputs = NULL, *slash;
    int rc;

    if (made)
        *made = 0;
    if (!o.prog)
        o.prog = "vftr";
    rc = vftr_vfdfiles_collect(&files, ops, n, o.warn, o.prog, err, errlen);
    if (rc < 0)
        goto out;
    if (!(inputs = inputs_text(&files)) || !realpath(files.path[0], rundir)) {
        rc = vftr_errmsg(err, errlen, -errno, "%s: %s", files.path[0], strerror(errno));
        goto out;
    }
    run_base(files.path[0], base, sizeof base);
    if ((slash = strrchr(rundir, '/')) != NULL)
        *(slash == rundir ? slash + 1 : slash) = '\0';
    /* beside the run as the user named it (messages show that name); the
     * real path names the run in a shared cache */
    if ((slash = strrchr(files.path[0], '/')) != NULL)
        snprintf(shown, sizeof shown, "%.*s", (int)(slash - files.path[0]), files.path[0]);
    else
        snprintf(shown, sizeof shown, ".");
    /* where it may be: a named directory, or beside the run and then the
     * user's cache */
    if (o.dir) {
        len[nwhere++] = snprintf(where[0], PATH_ROOM, "%s/%s-%08" PRIx32, o.dir, base,
                                 (uint32_t)fnv1a(rundir));
    } else {
        len[nwhere++] = snprintf(where[0], PATH_ROOM, "%s/vftr-otf/%s", shown, base);
        if (o.cache_home)
            len[nwhere++] = snprintf(where[1], PATH_ROOM, "%s/vftr/%s-%08" PRIx32, o.cache_home,
                                     base, (uint32_t)fnv1a(rundir));
    }
    for (size_t i = 0; i < nwhere; i++)
        if (len[i] >= PATH_ROOM - 300) {
            rc = vftr_errmsg(err, errlen, -ENAMETOOLONG, "%s: name too long", rundir);
            goto out;
        }
    for (size_t i = 0; i < nwhere; i++)
        if (inputs_match(where[i], inputs)) {
            snprintf(out, outlen, "%s/%s", where[i], base);
            goto out;
        }
    for (size_t i = 0; i < nwhere; i++) {
        int nowhere = 0;

        rc = make_in(where[i], base, &files, inputs, &o, &nowhere, err, errlen);
        if (rc == 0) {
            snprintf(out, outlen, "%s/%s", where[i], base);
            if (made)
                *made = 1;
            break;
        }
        if (!nowhere || i + 1 == nwhere)
            break;
        if (o.warn)
            fprintf(o.warn, "%s: warning: %s\n%s: the trace goes to the user's cache instead: "
                    "%s\n", o.prog, err, o.prog, where[i + 1]);
    }
out:
    free(inputs);
    vftr_vfdfiles_release(&files);
    return rc;
}
