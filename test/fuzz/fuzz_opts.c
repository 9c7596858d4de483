/*
 * fuzz_opts.c — libFuzzer target for the command-line option parser every
 * tool uses (lib/util/opts.c, getopt_long underneath): the input, cut at
 * NUL bytes, is argv[1..] of a tool whose table has every kind of option
 * (flags, bits, strings, callbacks that parse a count, a time range and a
 * process list the way the tools do).  --help and --version print to a
 * scratch stream.
 *
 * Properties checked besides "no crash, no hang, no sanitizer report, no
 * leak": the parser returns 0, VFTR_OPTS_DONE, -EINVAL, -ERANGE or the
 * callback's own error; on 0 the operands start inside argv (1 <= first <=
 * argc) and every destination holds a value its option can give (a count
 * in range, a flag 0, 1 or 5, bits of the table only).  --help is printed
 * from the table after every run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/number.h"
#include "util/opts.h"
#include "util/tracesel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct dest {
    int flag;
    unsigned bits;
    const char *str;
    uint64_t count;
    struct vftr_tracesel sel;
};

static int cb_count(void *d, const char *arg, char *err, size_t errlen)
{
    return vftr_count_parse(arg, 1, 1024, "--jobs", &((struct dest *)d)->count, err, errlen);
}

static int cb_fail(void *d, const char *arg, char *err, size_t errlen)
{
    (void)d;
    /* a callback's own runtime error (not usage): passed through */
    return arg[0] == 'x' ? vftr_errmsg(err, errlen, -ENOMEM, "out of %s", arg) : 0;
}

static FILE *sink(void)
{
    static FILE *f;

    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dest d;
    char *buf, **argv;
    int argc = 1, first = -1, rc;
    size_t n = 0;

    memset(&d, 0, sizeof d);
    d.sel = (struct vftr_tracesel)VFTR_TRACESEL_INIT;
    const struct vftr_opt opts[] = {
        { VFTR_OPT_FLAG, "quiet", 'q', NULL, "a flag", &d.flag, 0, NULL },
        { VFTR_OPT_FLAG, "five", 0, NULL, "a flag set to 5", &d.flag, 5, NULL },
        { VFTR_OPT_BITS, "defs", 'd', NULL, "bit 1", &d.bits, 1, NULL },
        { VFTR_OPT_BITS, "events", 'e', NULL, "bit 2", &d.bits, 2, NULL },
        { VFTR_OPT_BITS, "events-all", 0, NULL, "bits 2 and 4", &d.bits, 6, NULL },
        { VFTR_OPT_STRING, "output", 'o', "STUB", "a string", &d.str, 0, NULL },
        { VFTR_OPT_CALLBACK, "jobs", 'j', "N", "a count\nof two lines", &d, 0, cb_count },
        { VFTR_OPT_CALLBACK, "time", 't', "A:B", "a window", &d.sel, 0, vftr_tracesel_opt_time },
        { VFTR_OPT_CALLBACK, "process", 'p', "LIST", "processes", &d.sel, 0,
          vftr_tracesel_opt_process },
        { VFTR_OPT_CALLBACK, "fail", 0, "X", "a runtime error", &d, 0, cb_fail },
        VFTR_OPT_TABLE_END
    };
    const struct vftr_tool tool = { "fuzz-tool", "1", "[OPTION]... TRACE", "A tool.",
                                    "Exit status: 0.", opts };

    /* argv[0], then the pieces; at most 64 arguments */
    buf = malloc(size + 1);
    argv = calloc(66, sizeof *argv);
    if (!buf || !argv) {
        free(buf);
        free(argv);
        return 0;
    }
    memcpy(buf, data, size);
    buf[size] = '\0';
    argv[0] = (char *)"fuzz-tool";
    while (n <= size && argc < 65) {
        argv[argc++] = buf + n;
        n += strlen(buf + n) + 1;
    }
    argv[argc] = NULL;

    rc = vftr_opts_parse(&tool, argc, argv, &first, sink(), sink());
    if (rc != 0 && rc != VFTR_OPTS_DONE && rc != -EINVAL && rc != -ERANGE && rc != -ENOMEM)
        abort();
    if (rc == 0) {
        if (first < 1 || first > argc)
            abort();
        if (d.count && (d.count < 1 || d.count > 1024))
            abort();
        if (d.flag != 0 && d.flag != 1 && d.flag != 5)
            abort();
        if (d.bits & ~7u)
            abort();
    }
    vftr_opts_usage(&tool, sink());
    vftr_tracesel_release(&d.sel);
    free(argv);
    free(buf);
    return 0;
}
