/*
 * fuzz_config.c — libFuzzer target for the capture configuration parser.
 *
 * The first byte chooses what the rest of the input is:
 *   even: a configuration file (JSON), loaded through vftr_config_load();
 *   odd:  the value of one environment variable, the key chosen by the
 *         second byte, applied on top of the defaults.
 * Whatever loads must print as JSON that loads back without an error and
 * prints the same.  Any crash, hang, leak or sanitizer report is a bug;
 * messages and fallbacks are expected.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct counts {
    int errors;
};

static void quiet(void *arg, int severity, const char *message)
{
    struct counts *c = arg;

    if (severity == VFTR_CONFIG_ERROR)
        c->errors++;
    (void)message;
}

/* A file in memory with a name the loader can open. */
static int memfile(const void *p, size_t n, char *path, size_t len)
{
    int fd = memfd_create("vftr_fuzz_config", 0);

    if (fd < 0)
        return -1;
    if (n && write(fd, p, n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

static char *print_to_string(const struct vftr_config *cfg, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    if (!f)
        return NULL;
    vftr_config_print_json(cfg, f);
    fclose(f);
    return buf;
}

/* The printed form must load back cleanly (ignoring the user's off and the
 * directory check, which depend on the machine) and print the same. */
static void round_trip(const struct vftr_config *cfg)
{
    static char *const no_env[] = { NULL };
    struct counts c = { 0 };
    struct vftr_config back;
    size_t n1 = 0, n2 = 0;
    char *one = print_to_string(cfg, &n1), *two = NULL, path[64];
    int fd;

    if (!one)
        return;
    fd = memfile(one, n1, path, sizeof path);
    if (fd >= 0) {
        int rc = vftr_config_load(&back, path, no_env, quiet, &c);
        if (rc == 0 || rc == -EINVAL) {
            two = print_to_string(&back, &n2);
            /* Only the directory check may fail, and then off differs. */
            if (two && back.off == cfg->off && (n1 != n2 || memcmp(one, two, n1) != 0))
                abort();
        }
        vftr_config_release(&back);
        close(fd);
    }
    free(one);
    free(two);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct counts c = { 0 };
    struct vftr_config cfg;
    char path[64];

    if (size < 1)
        return 0;
    if ((data[0] & 1) == 0) {
        static char *const no_env[] = { NULL };
        int fd = memfile(data + 1, size - 1, path, sizeof path);
        if (fd < 0)
            return 0;
        vftr_config_load(&cfg, path, no_env, quiet, &c);
        close(fd);
    } else {
        const struct vftr_config_key *keys;
        size_t nkeys, vlen = size > 2 ? size - 2 : 0;
        char name[128], *var, *env[2];

        if (size < 2)
            return 0;
        keys = vftr_config_keys(&nkeys);
        vftr_config_env_name(&keys[data[1] % nkeys], name, sizeof name);
        var = malloc(strlen(name) + 1 + vlen + 1);
        if (!var)
            return 0;
        sprintf(var, "%s=", name);
        memcpy(var + strlen(var), data + 2, vlen);
        var[strlen(name) + 1 + vlen] = '\0';
        env[0] = var;
        env[1] = NULL;
        vftr_config_load(&cfg, NULL, env, quiet, &c);
        free(var);
    }
    round_trip(&cfg);
    vftr_config_release(&cfg);
    return 0;
}
