/*
 * ctlproto.c — the control protocol's command table, request parser, line
 * assembly and endpoint directory (ctlproto.h).  Everything here is a pure
 * function of its arguments (plus the file system for the directory), so
 * the server inside the program, vftr-ctl and the fuzz target share it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "ctlproto.h"
#include "vftr_ec.h"

/* capture/ is never instrumented, but the rule is that every function says so. */
#define NI __attribute__((no_instrument_function))

static const struct vftr_ctl_command commands[] = {
    { "status", VFTR_CTL_KIND_QUERY, VFTR_EC_Q_STATUS, false, "",
      "state of the capture: phase, trace, rank, output directory, events" },
    { "stacks", VFTR_CTL_KIND_QUERY, VFTR_EC_Q_STACKS, false, "",
      "current call stack of every thread" },
    { "profile", VFTR_CTL_KIND_QUERY, VFTR_EC_Q_PROFILE, false, "",
      "call-path profile so far (calls, inclusive and exclusive seconds)" },
    { "messages", VFTR_CTL_KIND_QUERY, VFTR_EC_Q_MESSAGES, false, "",
      "MPI message counts so far" },
    { "throttled", VFTR_CTL_KIND_QUERY, VFTR_EC_Q_THROTTLED, false, "",
      "call paths throttling stopped tracing (still counted in the profile)" },
    { "start", VFTR_CTL_KIND_EVENT, VFTR_EC_START, false, "",
      "the trace records again (open frames get synthetic Enter records)" },
    { "stop", VFTR_CTL_KIND_EVENT, VFTR_EC_STOP, false, "",
      "the trace stops recording (open frames are closed); the profile goes on" },
    { "pause", VFTR_CTL_KIND_EVENT, VFTR_EC_PAUSE, false, "",
      "record nothing until resume (as vftr_pause)" },
    { "resume", VFTR_CTL_KIND_EVENT, VFTR_EC_RESUME, false, "", "end a pause" },
    { "attach", VFTR_CTL_KIND_EVENT, VFTR_EC_ATTACH, false, "",
      "a front-end joins (starts a stopped trace)" },
    { "detach", VFTR_CTL_KIND_EVENT, VFTR_EC_DETACH, false, "",
      "a front-end leaves (stops the trace if control.detach_stops)" },
    { "flush", VFTR_CTL_KIND_EVENT, VFTR_EC_FLUSH, false, "",
      "write every thread's buffered events to the trace file" },
    { "dump", VFTR_CTL_KIND_EVENT, VFTR_EC_DUMP, false, "", "write the profile so far as a log" },
    { "outdir", VFTR_CTL_KIND_EVENT, VFTR_EC_OUTDIR, true, "DIR",
      "move the trace and the final output to directory DIR" },
    { "custom", VFTR_CTL_KIND_EVENT, VFTR_EC_CUSTOM, true, "TEXT",
      "pass TEXT to the program's custom handler" },
    { "unthrottle", VFTR_CTL_KIND_EVENT, VFTR_EC_UNTHROTTLE, false, "",
      "trace the throttled call paths again (their counts start over)" },
    { "version", VFTR_CTL_KIND_VERSION, 0, false, "", "protocol version" },
    { "quit", VFTR_CTL_KIND_QUIT, 0, false, "", "close the connection" },
};

NI const struct vftr_ctl_command *vftr_ctlproto_commands(size_t *n)
{
    *n = sizeof commands / sizeof commands[0];
    return commands;
}

NI const struct vftr_ctl_command *vftr_ctlproto_find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

NI int vftr_ctlproto_parse(const char *line, size_t len, const struct vftr_ctl_command **cmd,
                           const char **arg, size_t *arg_len, char *err, size_t errlen)
{
    char word[16];
    size_t i, w;

    *cmd = NULL;
    *arg = NULL;
    *arg_len = 0;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len >= VFTR_CTL_LINE_MAX) {
        snprintf(err, errlen, "line too long (at most %d bytes)", VFTR_CTL_LINE_MAX - 1);
        return -EINVAL;
    }
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];

        if (c < 0x20 || c == 0x7f) {
            snprintf(err, errlen, "malformed request: control character 0x%02x at byte %zu", c, i);
            return -EINVAL;
        }
    }
    for (w = 0; w < len && line[w] != ' '; w++)
        ;
    if (w == 0) {
        snprintf(err, errlen, "malformed request: expected a command");
        return -EINVAL;
    }
    if (w >= sizeof word) {
        snprintf(err, errlen, "unknown command (too long)");
        return -EINVAL;
    }
    memcpy(word, line, w);
    word[w] = '\0';
    *cmd = vftr_ctlproto_find(word);
    if (*cmd == NULL) {
        /* the word is printable ASCII or UTF-8 bytes: safe to echo */
        snprintf(err, errlen, "unknown command \"%s\"", word);
        return -EINVAL;
    }
    i = w;
    while (i < len && line[i] == ' ')
        i++;
    if (i < len) {
        if (!(*cmd)->takes_arg) {
            snprintf(err, errlen, "%s takes no argument", (*cmd)->name);
            *cmd = NULL;
            return -EINVAL;
        }
        *arg = line + i;
        *arg_len = len - i;
    } else if ((*cmd)->takes_arg) {
        snprintf(err, errlen, "%s needs an argument (%s)", (*cmd)->name, (*cmd)->args);
        *cmd = NULL;
        return -EINVAL;
    }
    return 0;
}

NI void vftr_ctl_linebuf_init(struct vftr_ctl_linebuf *lb)
{
    lb->n = 0;
    lb->skipping = false;
}

NI int vftr_ctl_linebuf_feed(struct vftr_ctl_linebuf *lb, const char *data, size_t len,
                             vftr_ctl_line_fn *fn, void *fnarg)
{
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        int rc = 0;

        if (lb->skipping) {
            /* the rest of an oversized line */
        } else if (lb->n + take >= VFTR_CTL_LINE_MAX) {
            lb->skipping = true;
            lb->n = 0;
            rc = fn(fnarg, NULL, 0);
        } else {
            memcpy(lb->buf + lb->n, data, take);
            lb->n += take;
            if (nl) {
                size_t n = lb->n;

                lb->n = 0;
                rc = fn(fnarg, lb->buf, n);
            }
        }
        if (nl)
            lb->skipping = false;
        if (rc)
            return rc;
        take += nl ? 1 : 0;
        data += take;
        len -= take;
    }
    return 0;
}

/* The lstat checks of ctlproto.h on path. */
static NI int check_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;

    if (lstat(path, &st) != 0) {
        int e = errno;

        snprintf(err, errlen, "%s: %s", path, strerror(e));
        return -e;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "%s: is a symbolic link (refused)", path);
        return -ELOOP;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", path);
        return -ENOTDIR;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "%s: owned by uid %u, not by this user (refused)", path,
                 (unsigned)st.st_uid);
        return -EPERM;
    }
    if (st.st_mode & 077) {
        snprintf(err, errlen, "%s: mode %03o lets others in (expected 0700)", path,
                 (unsigned)(st.st_mode & 0777));
        return -EPERM;
    }
    return 0;
}

NI int vftr_ctl_dir(char *out, size_t len, const char *configured, const char *xdg, bool create,
                    char *err, size_t errlen)
{
    int n;

    if (configured && *configured)
        n = snprintf(out, len, "%s", configured);
    else if (xdg && *xdg == '/')
        n = snprintf(out, len, "%s/vftr", xdg);
    else
        n = snprintf(out, len, "/tmp/vftr-%u", (unsigned)geteuid());
    if (n < 0 || (size_t)n >= len || (size_t)n + sizeof "/vftr-4294967295.sock"
                                          > sizeof(((struct sockaddr_un *)0)->sun_path)) {
        snprintf(err, errlen, "socket directory name too long (%d bytes)", n);
        return -ENAMETOOLONG;
    }
    if (create && mkdir(out, 0700) != 0 && errno != EEXIST) {
        int e = errno;

        snprintf(err, errlen, "cannot create %s: %s", out, strerror(e));
        return -e;
    }
    return check_dir(out, err, errlen);
}

NI int vftr_ctl_endpoint(char *out, size_t len, const char *dir, pid_t pid)
{
    int n = snprintf(out, len, "%s/vftr-%ld.sock", dir, (long)pid);

    if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return -ENAMETOOLONG;
    return 0;
}

NI pid_t vftr_ctl_endpoint_pid(const char *name)
{
    char *end;
    long v;

    if (strncmp(name, "vftr-", 5) != 0 || name[5] < '1' || name[5] > '9')
        return -1;
    errno = 0;
    v = strtol(name + 5, &end, 10);
    if (errno || strcmp(end, ".sock") != 0 || v <= 0 || v > 0x3fffffff)
        return -1;
    return (pid_t)v;
}
