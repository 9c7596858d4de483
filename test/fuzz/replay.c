/*
 * replay.c — runs a libFuzzer target without libFuzzer, for `make check`:
 * every file named on the command line (or found in a directory named
 * there) is handed to LLVMFuzzerTestOneInput once, after
 * LLVMFuzzerInitialize when the target has one.  Linked with each target
 * and built by the project's own compiler and flags (SANITIZE builds
 * included), so that the seed corpus and the inputs that once crashed a
 * target (test/fuzz/regress/) run in every check.  A crash, an abort of a
 * property or a sanitizer report ends the run with that status; otherwise
 * the number of inputs is printed and the exit status is 0.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long inputs;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (!f) {
        perror(path);
        return 1;
    }
    do {
        if (len == cap) {
            uint8_t *b = realloc(buf, cap = cap ? 2 * cap : 65536);

            if (!b) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = b;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    /* the bytes alone, as libFuzzer hands them (a copy of exactly len) */
    uint8_t *copy = malloc(len ? len : 1);

    if (!copy) {
        free(buf);
        return 1;
    }
    memcpy(copy, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(copy, len);
    free(copy);
    inputs++;
    return 0;
}

static int run_path(const char *path)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;
    int rc = 0;

    if (stat(path, &sb) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(sb.st_mode))
        return run_file(path);
    if (!(d = opendir(path))) {
        perror(path);
        return 1;
    }
    while (!rc && (e = readdir(d))) {
        char sub[4096];

        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (stat(sub, &sb) == 0 && S_ISREG(sb.st_mode))
            rc = run_file(sub);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;

    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc && !rc; i++)
        rc = run_path(argv[i]);
    if (!rc)
        fprintf(stderr, "%s: %lu inputs\n", argv[0], inputs);
    return rc;
}
