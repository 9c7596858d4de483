/*
 * vftr-run — runs a program under libvftrcapture.
 *
 *   vftr-run [--config F] [--out DIR] [--off] [--filter F] [--depth N]
 *            [--min-duration S] [--no-throttle] [--sample INTERVAL] [--] PROGRAM [ARG]...
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
 *
 * Capture starts at PROGRAM's main, whether or not it was compiled with
 * -finstrument-functions (capture/preload/start.c): vftr-run sets
 * VFTR_RUN_PID to its own pid, which PROGRAM keeps through exec; processes
 * that inherit LD_PRELOAD from it do not match.  Only for an ELF PROGRAM: a
 * script's interpreter is not what the user wants measured.
 *
 * MPI: when PROGRAM links an MPI library (a DT_NEEDED entry named libmpi*
 * or libmpich*, in the program or, three levels deep, in the libraries it
 * needs, found as the dynamic linker would: RUNPATH/RPATH, LD_LIBRARY_PATH,
 * the system directories), libvftrcapture-mpi.so (the PMPI wrappers) is
 * preloaded too, after libvftrcapture.so.  A program without MPI never
 * loads it.  The ELF files are only read, never run.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/opts.h"
#include "util/regfile.h"
#include "util/timespec.h"

#ifndef VFTR_LIBDIR
#define VFTR_LIBDIR "/usr/local/lib"
#endif
#ifndef VFTR_SAN_RUNTIME
#define VFTR_SAN_RUNTIME ""
#endif
#ifndef VFTR_CAPTURE_SONAME
#define VFTR_CAPTURE_SONAME "libvftrcapture.so.0"
#endif
#ifndef VFTR_CAPTURE_MPI_SONAME
#define VFTR_CAPTURE_MPI_SONAME "libvftrcapture-mpi.so.0"
#endif

static const char *config_file, *out_dir, *filter_file, *max_depth, *min_duration, *sample;
static int off, no_throttle;

static const struct vftr_opt opts[] = {
    { VFTR_OPT_STRING, "config", 'c', "FILE", "configuration file (sets VFTR_CONFIG)",
      &config_file, 0, NULL },
    { VFTR_OPT_STRING, "output", 'o', "DIR",
      "directory for the .vfd and .log files, made if missing;\nan earlier run's files "
      "there move to DIR/BASE.old/\n(sets VFTR_OUTPUT_DIRECTORY)", &out_dir, 0, NULL },
    { VFTR_OPT_FLAG, "off", 0, NULL, "run with capture switched off (sets VFTR_OFF=1)", &off, 0,
      NULL },
    { VFTR_OPT_STRING, "filter", 'f', "FILE",
      "leave out what the Score-P filter file FILE excludes\n(sets VFTR_FILTER_FILE; vftr-score -g "
      "writes one)", &filter_file, 0, NULL },
    { VFTR_OPT_STRING, "depth", 0, "N",
      "measure call paths up to N frames deep (main is 1),\nas uftrace -D (sets VFTR_FILTER_MAX_DEPTH)",
      &max_depth, 0, NULL },
    { VFTR_OPT_STRING, "min-duration", 0, "SECONDS",
      "trace only calls at least this long, as uftrace -t\n(sets VFTR_FILTER_MIN_DURATION; the "
      "profile counts all)", &min_duration, 0, NULL },
    { VFTR_OPT_FLAG, "no-throttle", 0, NULL,
      "trace every call, also of tiny hot functions\n(sets VFTR_THROTTLE_ACTIVE=0)", &no_throttle,
      0, NULL },
    { VFTR_OPT_STRING, "sample", 0, "INTERVAL",
      "statistical call-stack samples every INTERVAL of each\nthread's CPU time (1ms, 500us; at "
      "least 100us), for\nprograms built without -finstrument-functions\n(sets VFTR_SAMPLE_INTERVAL)",
      &sample, 0, NULL },
    VFTR_OPT_TABLE_END,
};

static const struct vftr_tool tool = {
    "vftr-run", VFTR_VERSION, "[OPTION]... [--] PROGRAM [ARG]...",
    "Runs PROGRAM (compiled with -finstrument-functions) under libvftrcapture.",
    "Options end at PROGRAM: its own arguments are passed on untouched.\n"
    "Every configuration key can also be set as VFTR_<SECTION>_<KEY>; flags\n"
    "override the environment, which overrides the configuration file.\n"
    "\n"
    "Exit status: PROGRAM's own (vftr-run becomes PROGRAM); 1 when PROGRAM or\n"
    "the capture library cannot be found or run, 2 bad command line.",
    opts,
};

/* Whether path names an existing regular file. */
static int is_file(const char *path)
{
    return access(path, R_OK) == 0;
}

/* ------------------------------------------------ MPI programs */

/* Libraries the dynamic linker loads for everyone: never MPI, never worth
 * opening. */
static int is_system_lib(const char *name)
{
    static const char *const sys[] = { "libc.so", "libm.so", "libdl.so", "libpthread.so",
                                       "librt.so", "ld-linux", "libgcc_s.so", "libstdc++.so",
                                       "libgfortran.so", "libquadmath.so", "libz.so", NULL };

    for (int i = 0; sys[i]; i++)
        if (strncmp(name, sys[i], strlen(sys[i])) == 0)
            return 1;
    return 0;
}

static int is_mpi_lib(const char *name)
{
    return strncmp(name, "libmpi", 6) == 0;   /* libmpi.so, libmpi_mpifh, libmpich, libmpifort */
}

/* The file offset of virtual address va (a PT_LOAD segment's), or -1. */
static long va_offset(const Elf64_Phdr *ph, int n, uint64_t va)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr
            && va < ph[i].p_vaddr + ph[i].p_filesz)
            return (long)(va - ph[i].p_vaddr + ph[i].p_offset);
    return -1;
}

static int needs_mpi(const char *path, int depth);

/* Looks for name in the colon-separated dirs ($ORIGIN = origin); 1 when
 * found and it needs MPI. */
static int search_dirs(const char *dirs, const char *origin, const char *name, int depth,
                       int *found)
{
    char dir[PATH_MAX], file[PATH_MAX];

    while (dirs && *dirs && !*found) {
        size_t n = strcspn(dirs, ":");

        if (n > 0 && n < sizeof dir) {
            memcpy(dir, dirs, n);
            dir[n] = '\0';
            int len = strncmp(dir, "$ORIGIN", 7) == 0
                          ? snprintf(file, sizeof file, "%s%s/%s", origin, dir + 7, name)
                          : snprintf(file, sizeof file, "%s/%s", dir, name);

            if (len > 0 && (size_t)len < sizeof file && access(file, R_OK) == 0) {
                *found = 1;
                return needs_mpi(file, depth + 1);
            }
        }
        dirs += n;
        dirs += *dirs == ':';
    }
    return 0;
}

/* Whether the 64-bit ELF file path (or what it needs, depth < 3) needs an
 * MPI library.  Anything unreadable counts as "no". */
static int needs_mpi(const char *path, int depth)
{
    static const char sysdirs[] = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:"
                                  "/usr/lib64:/lib:/usr/lib:/usr/local/lib";
    Elf64_Ehdr eh;
    Elf64_Phdr *ph = NULL;
    Elf64_Dyn *dyn = NULL;
    char *strtab = NULL, origin[PATH_MAX];
    size_t ndyn = 0, strsz = 0;
    uint64_t strva = 0;
    long stroff;
    int fd, rc = 0;

    /* only regular files are read: a FIFO in a library's place must not
     * stop the launcher */
    if (depth > 3 || (fd = vftr_open_regular(path, O_RDONLY, 0, NULL)) < 0)
        return 0;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG)
        || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof *ph || eh.e_phnum == 0
        || eh.e_phnum > 256)
        goto out;
    ph = malloc(eh.e_phnum * sizeof *ph);
    if (!ph || pread(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff)
                   != (ssize_t)(eh.e_phnum * sizeof *ph))
        goto out;
    for (int i = 0; i < eh.e_phnum && !dyn; i++)     /* the first PT_DYNAMIC, as ld.so */
        if (ph[i].p_type == PT_DYNAMIC && ph[i].p_filesz <= (1u << 20)) {
            ndyn = ph[i].p_filesz / sizeof *dyn;
            dyn = malloc(ndyn * sizeof *dyn + 1);
            if (!dyn || pread(fd, dyn, ndyn * sizeof *dyn, (off_t)ph[i].p_offset)
                            != (ssize_t)(ndyn * sizeof *dyn))
                goto out;
        }
    for (size_t i = 0; dyn && i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag == DT_STRTAB)
            strva = dyn[i].d_un.d_ptr;
        if (dyn[i].d_tag == DT_STRSZ)
            strsz = dyn[i].d_un.d_val;
    }
    if (!dyn || strsz == 0 || strsz > (16u << 20)
        || (stroff = va_offset(ph, eh.e_phnum, strva)) < 0 || (strtab = malloc(strsz + 1)) == NULL
        || pread(fd, strtab, strsz, stroff) != (ssize_t)strsz)
        goto out;
    strtab[strsz] = '\0';
    snprintf(origin, sizeof origin, "%s", path);
    if (strrchr(origin, '/'))
        *strrchr(origin, '/') = '\0';
    else
        snprintf(origin, sizeof origin, ".");
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL && !rc; i++) {
        const char *name, *runpath = NULL;
        int found = 0;

        if (dyn[i].d_tag != DT_NEEDED || dyn[i].d_un.d_val >= strsz)
            continue;
        name = strtab + dyn[i].d_un.d_val;
        if (is_mpi_lib(name)) {
            rc = 1;
            break;
        }
        if (is_system_lib(name) || depth >= 3)
            continue;
        if (strchr(name, '/')) {
            rc = needs_mpi(name, depth + 1);
            continue;
        }
        for (size_t k = 0; k < ndyn && dyn[k].d_tag != DT_NULL; k++)
            if ((dyn[k].d_tag == DT_RUNPATH || dyn[k].d_tag == DT_RPATH)
                && dyn[k].d_un.d_val < strsz)
                runpath = strtab + dyn[k].d_un.d_val;
        rc = search_dirs(runpath, origin, name, depth, &found);
        if (!found)
            rc = search_dirs(getenv("LD_LIBRARY_PATH"), origin, name, depth, &found);
        if (!found)
            rc = search_dirs(sysdirs, origin, name, depth, &found);
    }
out:
    free(strtab);
    free(dyn);
    free(ph);
    close(fd);
    return rc;
}

/* Whether path is an ELF file (not a script run by an interpreter). */
static int is_elf(const char *path)
{
    unsigned char magic[SELFMAG];
    int fd = vftr_open_regular(path, O_RDONLY, 0, NULL), ok;

    if (fd < 0)
        return 0;
    ok = read(fd, magic, sizeof magic) == (ssize_t)sizeof magic
         && memcmp(magic, ELFMAG, SELFMAG) == 0;
    close(fd);
    return ok;
}

/* PROGRAM as execvp finds it (PATH search when it has no slash). */
static int find_program(const char *prog, char *buf, size_t size)
{
    const char *path = getenv("PATH");

    if (strchr(prog, '/'))
        return (size_t)snprintf(buf, size, "%s", prog) < size ? 0 : -ENAMETOOLONG;
    while (path && *path) {
        size_t n = strcspn(path, ":");

        if ((size_t)snprintf(buf, size, "%.*s/%s", (int)n, path, prog) < size
            && access(buf, X_OK) == 0)
            return 0;
        path += n;
        path += *path == ':';
    }
    return -ENOENT;
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
    char lib[PATH_MAX], path[PATH_MAX], mpi[PATH_MAX], pid[24];
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
    /* the MPI wrappers sit next to the capture library */
    mpi[0] = '\0';
    if (find_program(argv[first], path, sizeof path) != 0)
        path[0] = '\0';   /* execvp below says why */
    /* capture starts at main in this process only (the pid survives exec);
     * a stale value from an outer vftr-run is replaced or removed */
    if (path[0] && is_elf(path)) {
        snprintf(pid, sizeof pid, "%ld", (long)getpid());
        if ((rc = set("VFTR_RUN_PID", pid)) != 0)
            return rc;
    } else {
        unsetenv("VFTR_RUN_PID");
    }
    if (path[0] && needs_mpi(path, 0)) {
        char *slash;

        snprintf(mpi, sizeof mpi, "%s", lib);
        slash = strrchr(mpi, '/');
        if (slash == NULL || (size_t)snprintf(slash + 1, sizeof mpi - (size_t)(slash + 1 - mpi),
                                              "%s", VFTR_CAPTURE_MPI_SONAME)
                                 >= sizeof mpi - (size_t)(slash + 1 - mpi)
            || !is_file(mpi))
            mpi[0] = '\0';   /* not installed: the program runs without MPI records */
    }
    len = strlen(lib) + strlen(mpi) + strlen(VFTR_SAN_RUNTIME) + (old ? strlen(old) : 0) + 4;
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
    if (mpi[0])
        strcat(strcat(preload, ":"), mpi);
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
    if (filter_file) {
        if (realpath(filter_file, path) == NULL)
            return vftr_tool_fail(&tool, stderr, "%s: %s", filter_file, strerror(errno));
        if ((rc = set("VFTR_FILTER_FILE", path)) != 0)
            return rc;
    }
    if (no_throttle && (rc = set("VFTR_THROTTLE_ACTIVE", "0")) != 0)
        return rc;
    if (min_duration && (rc = set("VFTR_FILTER_MIN_DURATION", min_duration)) != 0)
        return rc;
    if (max_depth && (rc = set("VFTR_FILTER_MAX_DEPTH", max_depth)) != 0)
        return rc;   /* capture checks the value (and says what it expected) */
    if (sample) {
        char err[200], secs[40];
        uint64_t ns;

        if (vftr_duration_parse(sample, 100000, 10000000000ull, "--sample", &ns, err,
                                sizeof err) < 0)
            return vftr_tool_usage_fail(&tool, stderr, "%s", err);
        snprintf(secs, sizeof secs, "%.9g", (double)ns * 1e-9);
        if ((rc = set("VFTR_SAMPLE_INTERVAL", secs)) != 0)
            return rc;
    }

    execvp(argv[first], argv + first);
    return vftr_tool_fail(&tool, stderr, "cannot run %s: %s", argv[first], strerror(errno));
}
