/*
 * ctlproto.h — the control protocol of vftr's default External Control
 * module and vftr-ctl, version 1, and where its endpoints live.
 *
 * Endpoints.  Each captured process listens on a Unix domain socket
 * <dir>/vftr-<pid>.sock (mode 0600), never in the abstract namespace.
 * <dir> is control.socket_dir, else $XDG_RUNTIME_DIR/vftr, else
 * /tmp/vftr-<uid>; it is created with mode 0700 and accepted only when
 * lstat() shows a directory (not a symbolic link) owned by the user with no
 * permission for group or others.  The server also checks every peer with
 * SO_PEERCRED and refuses other users.
 *
 * Conversation.  On connect the server sends the banner
 *     VFTR-CTL 1 <pid>
 * then reads requests, one per line (at most VFTR_CTL_LINE_MAX bytes with
 * the newline; a trailing CR is ignored):
 *     <command>[ <argument>]
 * and answers each with zero or more data lines starting with "* ",
 * followed by exactly one final line "OK[ <text>]" or "ERR <text>".
 * Malformed lines (control characters, empty), unknown commands, missing or
 * unexpected arguments and oversized lines get ERR; an oversized line is
 * skipped up to its newline.  When the process ends the server pushes
 * "BYE exit" to every connected client and closes.
 *
 * Ownership: the command table is static; parse results point into the
 * caller's buffers.  Threads: pure functions, no state.
 */
#ifndef VFTR_CAPTURE_CTLPROTO_H
#define VFTR_CAPTURE_CTLPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define VFTR_CTL_PROTO_VERSION 1
#define VFTR_CTL_LINE_MAX 1024      /* bytes of a request, newline included */

enum vftr_ctl_kind {
    VFTR_CTL_KIND_EVENT,    /* code: enum vftr_ec_event */
    VFTR_CTL_KIND_QUERY,    /* code: enum vftr_ec_query */
    VFTR_CTL_KIND_VERSION,  /* "version": OK 1 */
    VFTR_CTL_KIND_QUIT,     /* "quit": OK bye, then the server closes */
};

struct vftr_ctl_command {
    const char *name;
    enum vftr_ctl_kind kind;
    int code;
    bool takes_arg;         /* an argument is required (and none allowed otherwise) */
    const char *args;       /* for usage texts: "DIR", "TEXT" or "" */
    const char *help;
};

/* The command table (static); *n receives its length. */
const struct vftr_ctl_command *vftr_ctlproto_commands(size_t *n);

/* The command called name (exact), or NULL. */
const struct vftr_ctl_command *vftr_ctlproto_find(const char *name);

/*
 * Parses one request line (len bytes, without its newline; a trailing CR
 * is dropped).  On success *cmd is the command and *arg points into line
 * at its argument (arg_len bytes, not terminated; NULL/0 when none) and 0
 * is returned; on failure -EINVAL and one lower-case line in err (the ERR
 * text, without "ERR ").
 */
int vftr_ctlproto_parse(const char *line, size_t len, const struct vftr_ctl_command **cmd,
                        const char **arg, size_t *arg_len, char *err, size_t errlen);

/*
 * Line assembly for a byte stream.  feed() takes any number of bytes and
 * calls fn(fnarg, line, len) for each complete line (without the newline)
 * and fn(fnarg, NULL, 0) once for each line longer than
 * VFTR_CTL_LINE_MAX - 1 bytes (the rest of that line is skipped).  fn
 * returns 0 to go on; a non-zero value stops feed, which returns it (the
 * bytes not yet looked at are dropped).  Returns 0 otherwise.
 */
struct vftr_ctl_linebuf {
    size_t n;
    bool skipping;
    char buf[VFTR_CTL_LINE_MAX];
};
typedef int vftr_ctl_line_fn(void *fnarg, const char *line, size_t len);
void vftr_ctl_linebuf_init(struct vftr_ctl_linebuf *lb);
int vftr_ctl_linebuf_feed(struct vftr_ctl_linebuf *lb, const char *data, size_t len,
                          vftr_ctl_line_fn *fn, void *fnarg);

/*
 * The endpoint directory into out (len bytes): configured when non-NULL
 * and non-empty, else $XDG_RUNTIME_DIR/vftr (xdg: that variable's value,
 * NULL or "" when unset), else /tmp/vftr-<uid>.  With create, a missing
 * directory is made (mode 0700; a missing $XDG_RUNTIME_DIR/vftr parent is
 * not).  Then the lstat checks above.  0, or -errno with one line in err:
 * -ENAMETOOLONG, -ENOTDIR / -ELOOP (not a directory / a symbolic link),
 * -EPERM (another owner, or group/other permissions), mkdir's errors.
 */
int vftr_ctl_dir(char *out, size_t len, const char *configured, const char *xdg, bool create,
                 char *err, size_t errlen);

/* <dir>/vftr-<pid>.sock into out.  0 or -ENAMETOOLONG (a socket path must
 * fit sockaddr_un). */
int vftr_ctl_endpoint(char *out, size_t len, const char *dir, pid_t pid);

/* The pid in an endpoint's file name "vftr-<pid>.sock", or -1. */
pid_t vftr_ctl_endpoint_pid(const char *name);

#endif /* VFTR_CAPTURE_CTLPROTO_H */
