/*
 * vftr-run — runs a program under libvftrcapture.
 *
 *   vftr-run [--config F] [--out DIR] [--off] [--] PROGRAM [ARG]...
 *
 * Prepends libvftrcapture.so (and, when the library was built with a
 * sanitizer, that sanitizer's runtime before it) to LD_PRELOAD, turns the
 * flags into the environment variables capture reads (so flags beat the
 * environment, which beats the file), then execs PROGRAM.  Nothing stays
 * between the launcher and the program, so it works under mpirun:
 * `mpirun -np 4 vftr-run ./app`.
 *
 * The library is looked for next to the tool (<bindir>/../lib, the build
 * tree and an installed tree alike), then in the configured lib directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/opts.h"

#ifndef VFTR_LIBDIR
#define VFTR_LIBDIR "/usr/local/lib"
#endif
#ifndef VFTR_SAN_RUNTIME
#define VFTR_SAN_RUNTIME ""
#endif
#ifndef VFTR_CAPTURE_SONAME
#define VFTR_CAPTURE_SONAME "libvftrcapture.so.0"
#endif

static const char *config_file, *out_dir;
static int off;

static const struct vftr_opt opts[] = {
    { VFTR_OPT_STRING, "config", 'c', "FILE", "configuration file (sets VFTR_CONFIG)",
      &config_file, 0, NULL },
    { VFTR_OPT_STRING, "out", 'o', "DIR",
      "directory for the .vfd and .log files\n(sets VFTR_OUTPUT_DIRECTORY)", &out_dir, 0, NULL },
    { VFTR_OPT_FLAG, "off", 0, NULL, "run with capture switched off (sets VFTR_OFF=1)", &off, 0,
      NULL },
    VFTR_OPT_TABLE_END,
};

static const struct vftr_tool tool = {
    "vftr-run", VFTR_VERSION, "[OPTION]... [--] PROGRAM [ARG]...",
    "Runs PROGRAM (compiled with -finstrument-functions) under libvftrcapture.",
    "Options end at PROGRAM: its own arguments are passed on untouched.\n"
    "Every configuration key can also be set as VFTR_<SECTION>_<KEY>; flags\n"
    "override the environment, which overrides the configuration file.",
    opts,
};

/* Whether path names an existing regular file. */
static int is_file(const char *path)
{
    return access(path, R_OK) == 0;
}

/* The capture library: <dir of this program>/../lib, else VFTR_LIBDIR. */
static int find_library(char *buf, size_t size)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    if (n > 0) {
        char *slash;

        self[n] = '\0';
        slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            if ((size_t)snprintf(buf, size, "%s/../lib/%s", self, VFTR_CAPTURE_SONAME) < size
                && is_file(buf))
                return 0;
        }
    }
    if ((size_t)snprintf(buf, size, "%s/%s", VFTR_LIBDIR, VFTR_CAPTURE_SONAME) < size
        && is_file(buf))
        return 0;
    return -ENOENT;
}

/* Whether the colon/space separated list holds item. */
static int list_has(const char *list, const char *item)
{
    size_t len = strlen(item);

    while (list && *list) {
        size_t n = strcspn(list, ": ");

        if (n == len && strncmp(list, item, len) == 0)
            return 1;
        list += n;
        list += strspn(list, ": ");
    }
    return 0;
}

static int set(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0)
        return vftr_tool_fail(&tool, stderr, "cannot set %s: %s", name, strerror(errno));
    return 0;
}

int main(int argc, char **argv)
{
    char lib[PATH_MAX], path[PATH_MAX];
    const char *old = getenv("LD_PRELOAD"), *posix = getenv("POSIXLY_CORRECT");
    char *preload;
    size_t len;
    int first, rc;

    /* Options stop at PROGRAM: getopt's POSIX mode, for this parse only. */
    if (!posix)
        setenv("POSIXLY_CORRECT", "1", 1);
    rc = vftr_opts_parse(&tool, argc, argv, &first, stdout, stderr);
    if (!posix)
        unsetenv("POSIXLY_CORRECT");
    if (rc == VFTR_OPTS_DONE)
        return VFTR_EXIT_OK;
    if (rc == -EINVAL)
        return VFTR_EXIT_USAGE;
    if (rc < 0)
        return VFTR_EXIT_ERROR;
    if (first >= argc)
        return vftr_tool_usage_fail(&tool, stderr, "missing PROGRAM");

    if (find_library(lib, sizeof lib) != 0)
        return vftr_tool_fail(&tool, stderr, "cannot find %s (looked in %s/../lib and %s)",
                              VFTR_CAPTURE_SONAME, "the directory of vftr-run", VFTR_LIBDIR);
    len = strlen(lib) + strlen(VFTR_SAN_RUNTIME) + (old ? strlen(old) : 0) + 3;
    preload = malloc(len);
    if (preload == NULL)
        return vftr_tool_fail(&tool, stderr, "out of memory");
    preload[0] = '\0';
    /* A sanitized library needs its runtime first in the process;
     * -print-file-name gives back the bare name when the compiler has no
     * such runtime, which is skipped. */
    if (VFTR_SAN_RUNTIME[0] == '/' && is_file(VFTR_SAN_RUNTIME) && !list_has(old, VFTR_SAN_RUNTIME))
        strcat(strcat(preload, VFTR_SAN_RUNTIME), ":");
    strcat(preload, lib);
    if (old && *old)
        strcat(strcat(preload, ":"), old);
    if ((rc = set("LD_PRELOAD", preload)) != 0)
        return rc;
    free(preload);

    if (config_file) {
        if (realpath(config_file, path) == NULL)
            return vftr_tool_fail(&tool, stderr, "%s: %s", config_file, strerror(errno));
        if ((rc = set("VFTR_CONFIG", path)) != 0)
            return rc;
    }
    if (out_dir) {
        /* absolute, so that a program that changes directory still writes
         * where it was asked to; a missing directory is left to capture,
         * which reports it and switches off without harming the program */
        if ((rc = set("VFTR_OUTPUT_DIRECTORY", realpath(out_dir, path) ? path : out_dir)) != 0)
            return rc;
    }
    if (off && (rc = set("VFTR_OFF", "1")) != 0)
        return rc;

    execvp(argv[first], argv + first);
    return vftr_tool_fail(&tool, stderr, "cannot run %s: %s", argv[first], strerror(errno));
}
