/*
 * fuzz_ctlproto.c — libFuzzer target for the control protocol's input side
 * (capture/ctlproto.c): the bytes a client sends, fed to the line assembler
 * in pieces whose sizes come from the input, every complete line handed to
 * the request parser, as the server does.
 *
 * Properties checked besides "no crash, no sanitizer report": a line handed
 * to the parser is shorter than VFTR_CTL_LINE_MAX and holds no newline; a
 * parsed request names a command of the table, its argument lies inside the
 * line, is non-empty exactly when the command takes one and starts with no
 * blank; a refused request gets a non-empty error text and no command.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctlproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_line(void *arg, const char *line, size_t len)
{
    const struct vftr_ctl_command *cmd;
    const char *a;
    size_t alen;
    char err[256] = "";

    (void)arg;
    if (line == NULL)
        return 0;   /* an oversized line: the server answers ERR */
    if (len >= VFTR_CTL_LINE_MAX || memchr(line, '\n', len))
        abort();
    if (vftr_ctlproto_parse(line, len, &cmd, &a, &alen, err, sizeof err) == 0) {
        if (cmd == NULL || vftr_ctlproto_find(cmd->name) != cmd)
            abort();
        if (cmd->takes_arg != (a != NULL) || (a && (alen == 0 || a < line || a + alen > line + len
                                                     || *a == ' ')))
            abort();
    } else if (cmd != NULL || err[0] == '\0') {
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vftr_ctl_linebuf lb;
    size_t off = 1;
    unsigned piece = size ? data[0] % 64 + 1 : 1;

    vftr_ctl_linebuf_init(&lb);
    while (off < size) {
        size_t n = size - off < piece ? size - off : piece;

        vftr_ctl_linebuf_feed(&lb, (const char *)data + off, n, on_line, NULL);
        off += n;
        piece = piece * 7 % 61 + 1;
    }
    return 0;
}
