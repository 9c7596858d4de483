/*
 * operand.c — what a trace operand is, and a message that says so when a
 * tool cannot take it (see vftr_source_check_operand in source.h).
 *
 * Only what the command line names is looked at: the operand itself, NAME.otf
 * beside it, a directory's listing and a file's first bytes.  Whatever this
 * cannot tell (a FIFO, an unreadable file) is left to the opener, whose
 * messages already say why.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"
#include "vfdfiles.h"
#include "util/errmsg.h"
#include "util/opts.h"

/* The first bytes of a .vfd file (lib/vfd/vfd_internal.h, VFD_MAGIC). */
static const char vfd_magic[8] = "\x89VFD\r\n\x1a\n";

static int ends_with(const char *s, const char *end)
{
    size_t l = strlen(s), e = strlen(end);

    return l > e && strcmp(s + l - e, end) == 0;
}

enum kind { K_UNKNOWN, K_OTF, K_OTF2, K_VFD, K_RUNDIR, K_NOTRACE };

/* A directory: an OTF2 archive, a run directory, or neither. */
static enum kind dir_kind(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int otf2 = 0, vfd = 0;

    if (!d)
        return K_UNKNOWN;
    /* as vftr_source_kind_of decides: an archive anchor first, then .vfd
     * files; an OTF trace inside a directory is named by its stub instead */
    while ((e = readdir(d)) != NULL) {
        otf2 |= ends_with(e->d_name, ".otf2");
        vfd |= vftr_vfdfiles_is_trace_name(e->d_name);
    }
    closedir(d);
    return otf2 ? K_OTF2 : vfd ? K_RUNDIR : K_NOTRACE;
}

/* A regular file by its name and first bytes; *what describes one that is
 * no trace ("a text file (its first line: 'hello')"). */
static enum kind file_kind(const char *path, off_t size, char *what, size_t wsize)
{
    unsigned char head[160];
    ssize_t n = 0;
    int fd;

    if (ends_with(path, ".otf2"))
        return K_OTF2;
    if (ends_with(path, ".otf"))
        return K_OTF;
    if (size == 0) {
        snprintf(what, wsize, "an empty file");
        return K_NOTRACE;
    }
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return K_UNKNOWN;
    n = read(fd, head, sizeof head);
    close(fd);
    if (n <= 0)
        return K_UNKNOWN;
    if ((size_t)n >= sizeof vfd_magic && memcmp(head, vfd_magic, sizeof vfd_magic) == 0)
        return K_VFD;
    if (vftr_vfdfiles_is_trace_name(path))
        return K_VFD;            /* a damaged .vfd: the reader says what is wrong */
    if (n >= 4 && memcmp(head, "\x7f" "ELF", 4) == 0) {
        snprintf(what, wsize, "a program or library (ELF)");
        return K_NOTRACE;
    }
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
        snprintf(what, wsize, "a gzip-compressed file");
        return K_NOTRACE;
    }
    size_t text = 0, line = 0;

    for (ssize_t i = 0; i < n; i++)
        text += head[i] == '\n' || head[i] == '\t' || head[i] == '\r' ||
                (head[i] >= ' ' && head[i] != 0x7f);
    if (text * 10 >= (size_t)n * 9) {
        while (line < (size_t)n && line < 48 && head[line] != '\n' && head[line] != '\r')
            line++;
        snprintf(what, wsize, "a text file (its first line: '%.*s%s')", (int)line,
                 (const char *)head, line == 48 ? "..." : "");
    } else {
        snprintf(what, wsize, "a file of unknown format (%u bytes or more, not text)",
                 (unsigned)n);
    }
    return K_NOTRACE;
}

/* "an OTF trace (foo or foo.otf), an OTF2 archive or .vfd files or a run
 * directory": what the tool takes, for messages. */
static void expected(unsigned takes, char *buf, size_t size)
{
    const char *w[3];
    size_t n = 0, len = 0;

    if (takes & VFTR_TAKES_OTF)
        w[n++] = "an OTF trace (foo or foo.otf)";
    if (takes & VFTR_TAKES_OTF2)
        w[n++] = "an OTF2 archive (traces.otf2 or its directory)";
    if (takes & VFTR_TAKES_VFD)
        w[n++] = ".vfd files or a run directory of vftr's capture";
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i == 0 ? "" :
                                i + 1 == n ? " or " : ", ", w[i]);
}

int vftr_source_check_operand(const char *operand, unsigned takes, char *err, size_t errlen)
{
    char what[160] = "", want[200], otf[4096];
    struct stat sb;
    enum kind k;

    expected(takes, want, sizeof want);
    if (stat(operand, &sb) != 0) {
        /* "foo" names the OTF trace foo.otf */
        snprintf(otf, sizeof otf, "%s.otf", operand);
        if (errno == ENOENT && access(otf, F_OK) == 0)
            k = K_OTF;
        else
            return 0;            /* missing: the opener's message names it */
    } else if (S_ISDIR(sb.st_mode)) {
        k = dir_kind(operand);
        if (k == K_NOTRACE)
            snprintf(what, sizeof what, "a directory with no .vfd file, OTF2 archive or "
                     "OTF trace in it");
    } else if (S_ISREG(sb.st_mode)) {
        snprintf(otf, sizeof otf, "%s.otf", operand);
        k = access(otf, F_OK) == 0 ? K_OTF : file_kind(operand, sb.st_size, what, sizeof what);
    } else {
        return 0;                /* FIFOs and devices: regfile.h's messages */
    }

    switch (k) {
    case K_UNKNOWN:
        return 0;
    case K_NOTRACE:
        return vftr_errmsg(err, errlen, -EBADMSG, "%s: %s, not a trace: expected %s", operand,
                           what, want);
    case K_OTF:
        if (takes & VFTR_TAKES_OTF)
            return 0;
        return vftr_errmsg(err, errlen, -EINVAL, "%s: an OTF trace, where %s was expected "
                           "(it is converted already; vftr-convert writes other formats)",
                           operand, want);
    case K_OTF2:
        if (takes & VFTR_TAKES_OTF2)
            return 0;
        return vftr_errmsg(err, errlen, -EINVAL, "%s: an OTF2 archive, where %s was expected; "
                           "convert it first: vftr-convert -o TRACE.otf %s", operand, want,
                           operand);
    case K_VFD:
    case K_RUNDIR:
        if (takes & VFTR_TAKES_VFD)
            return 0;
        return vftr_errmsg(err, errlen, -EINVAL, "%s: %s of vftr's capture, where %s was "
                           "expected; convert it first: vfd2otf -o TRACE %s", operand,
                           k == K_VFD ? "a .vfd file" : "a run directory of .vfd files", want,
                           operand);
    }
    return 0;
}

int vftr_source_check_operands(const struct vftr_tool *tool, char *const *ops, int n,
                               unsigned takes)
{
    char err[VFTR_ERRMSG_MAX + 512];

    for (int i = 0; i < n; i++) {
        int rc = vftr_source_check_operand(ops[i], takes, err, sizeof err);

        if (rc == -EINVAL)
            return vftr_tool_usage_fail(tool, stderr, "%s", err);
        if (rc < 0)
            return vftr_tool_fail(tool, stderr, "%s", err);
    }
    return VFTR_EXIT_OK;
}
