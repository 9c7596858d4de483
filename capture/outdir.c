/*
 * outdir.c — the output directory and the files of earlier runs (policy
 * and rules in outdir.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "capture.h"
#include "outdir.h"

#define OLD_SUFFIX ".old"

int vftr_outdir_prepare(const char *dir, char *failed, size_t failed_len)
{
    char path[sizeof vftr_proc.dir];
    size_t n = strlen(dir);
    struct stat st;

    if (failed && failed_len)
        failed[0] = '\0';
    if (n == 0 || n >= sizeof path)
        return -ENAMETOOLONG;
    memcpy(path, dir, n + 1);
    /* each prefix that ends before a '/', then the whole path */
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        if (path[i - 1] == '/')
            continue;   /* "a//b" */
        char c = path[i];

        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            int e = errno;

            if (failed && failed_len)
                snprintf(failed, failed_len, "%s", path);
            return -e;
        }
        path[i] = c;
    }
    if (stat(dir, &st) != 0)
        return -errno;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The end of a run of digits at p (p itself when there is none). */
static const char *digits(const char *p)
{
    while (is_digit(*p))
        p++;
    return p;
}

/* The separate tables of a log (logfile.h: profile_table.separate). */
static const char *const sections[] = { "_namegroup", "_mpi", "_minmax" };

/* Where the main log's name ends in name (a separate table's log: before
 * its section suffix), or NULL when name is no separate table's. */
static const char *section_at(const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        size_t s = strlen(sections[i]);

        if (n > s + 4 && strcmp(name + n - 4, ".log") == 0
            && strncmp(name + n - 4 - s, sections[i], s) == 0)
            return name + n - 4 - s;
    }
    return NULL;
}

bool vftr_outdir_is_run_file(const char *name, const char *base)
{
    size_t bl = strlen(base);
    const char *p, *q;

    if (bl == 0 || strncmp(name, base, bl) != 0 || name[bl] != '_')
        return false;
    p = name + bl + 1;
    if (strncmp(p, "all", 3) == 0) {
        p += 3;
    } else {
        if ((q = digits(p)) == p)
            return false;
        p = q;
        if (strcmp(p, ".vfd") == 0)
            return true;
        if (strncmp(p, ".dump", 5) == 0 && (q = digits(p + 5)) != p + 5)
            p = q;
    }
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (strncmp(p, sections[i], strlen(sections[i])) == 0) {
            p += strlen(sections[i]);
            break;
        }
    return strcmp(p, ".log") == 0;
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The run id of the run file path into id: a .vfd's header, a log's "run
 * id" line (logfile.c), a separate table by its main log's.  false when it
 * cannot be told (then the file counts as another run's).
 */
static bool run_of(const char *path, uint8_t id[16])
{
    static const uint8_t magic[8] = { 0x89, 'V', 'F', 'D', '\r', '\n', 0x1a, '\n' };
    char buf[8192], main_log[sizeof vftr_proc.final_path];
    const char *sec = section_at(path), *p;
    ssize_t n;
    int fd;

    if (sec != NULL) {
        snprintf(main_log, sizeof main_log, "%.*s.log", (int)(sec - path), path);
        return run_of(main_log, id);
    }
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return false;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return false;
    buf[n] = '\0';
    if (n >= 40 && memcmp(buf, magic, sizeof magic) == 0) {
        memcpy(id, buf + 24, 16);
        return true;
    }
    if ((p = strstr(buf, "\n  run id")) == NULL)
        return false;
    p += strlen("\n  run id");
    while (*p == ' ')
        p++;
    for (int i = 0; i < 16; i++) {
        int hi = hex(p[2 * i]), lo = hi < 0 ? -1 : hex(p[2 * i + 1]);

        if (lo < 0)
            return false;
        id[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

/* Appends "dir/name" to buf (size bytes); false when it does not fit. */
static bool join(char *buf, size_t size, const char *dir, const char *name)
{
    int n = snprintf(buf, size, "%s/%s", dir, name);

    return n > 0 && (size_t)n < size;
}

int vftr_outdir_keep_old(const char *dir, const char *base, const uint8_t run_id[16], bool say)
{
    char path[sizeof vftr_proc.final_path], old[sizeof vftr_proc.final_path], to[sizeof path];
    char **names = NULL;
    size_t n = 0, cap = 0;
    int moved = 0, replaced = 0;
    struct dirent *e;
    DIR *d;

    if ((d = opendir(dir)) == NULL)
        return -errno;
    while ((e = readdir(d)) != NULL) {
        uint8_t id[16];
        char **nn;

        if (!vftr_outdir_is_run_file(e->d_name, base) || !join(path, sizeof path, dir, e->d_name)
            || (run_of(path, id) && memcmp(id, run_id, 16) == 0))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            if ((nn = realloc(names, cap * sizeof *names)) == NULL)
                break;
            names = nn;
        }
        if ((names[n] = strdup(e->d_name)) == NULL)
            break;
        n++;
    }
    closedir(d);
    if (n == 0) {
        free(names);
        return 0;
    }
    snprintf(path, sizeof path, "%s%s", base, OLD_SUFFIX);
    if (!join(old, sizeof old, dir, path) || (mkdir(old, 0777) != 0 && errno != EEXIST))
        goto out;
    /* the run kept there before goes */
    if ((d = opendir(old)) != NULL) {
        while ((e = readdir(d)) != NULL)
            if (vftr_outdir_is_run_file(e->d_name, base) && join(to, sizeof to, old, e->d_name)
                && unlink(to) == 0)
                replaced++;
        closedir(d);
    }
    for (size_t i = 0; i < n; i++)
        if (join(path, sizeof path, dir, names[i]) && join(to, sizeof to, old, names[i])
            && rename(path, to) == 0)
            moved++;
    if (say && moved > 0)
        vftr_msg("%s: %d file%s of an earlier run of %s moved to %s/%s", dir, moved,
                 moved == 1 ? "" : "s", base, old,
                 replaced ? " (in place of the run kept there before)" : "");
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return moved;
}

void vftr_outdir_keep_old_once(void)
{
    static _Atomic int done;

    if (!vftr_proc.recording || !vftr_proc.is_rank0 || atomic_exchange(&done, 1))
        return;
    (void)vftr_outdir_keep_old(vftr_proc.dir, vftr_proc.base, vftr_proc.run_id, true);
}

/* ------------------------------------------------- async-signal-safe part */

#define WRITTEN_MAX 8
static char written[WRITTEN_MAX][sizeof vftr_proc.final_path];
static _Atomic int nwritten;

void vftr_outdir_written(const char *path)
{
    int i = atomic_fetch_add(&nwritten, 1);
    size_t n = strlen(path);

    if (i >= WRITTEN_MAX || n >= sizeof written[0])
        return;
    memcpy(written[i], path, n + 1);
}

/* Appends s at p, bounded by end; returns the new end of the text. */
static char *put(char *p, char *end, const char *s)
{
    while (*s && p < end)
        *p++ = *s++;
    return p;
}

bool vftr_outdir_make_room(const char *path)
{
    char old[sizeof vftr_proc.final_path], to[sizeof vftr_proc.final_path];
    char *p, *end = old + sizeof old - 1;
    const char *name = strrchr(path, '/');
    struct stat st;
    int n = atomic_load(&nwritten);

    if (lstat(path, &st) != 0)
        return false;   /* nothing in the way */
    for (int i = 0; i < n && i < WRITTEN_MAX; i++)
        if (strcmp(written[i], path) == 0)
            return false;   /* this process's own: rewritten */
    name = name ? name + 1 : path;
    p = put(old, end, vftr_proc.dir);
    p = put(p, end, "/");
    p = put(p, end, vftr_proc.base);
    p = put(p, end, OLD_SUFFIX);
    if (p >= end)
        return false;
    *p = '\0';
    if (mkdir(old, 0777) != 0 && errno != EEXIST)
        return false;
    end = to + sizeof to - 1;
    p = put(to, end, old);
    p = put(p, end, "/");
    p = put(p, end, name);
    if (p >= end)
        return false;
    *p = '\0';
    return rename(path, to) == 0;
}
