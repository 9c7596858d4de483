/*
 * ctlsrv.c — vftr's default External Control module: a shadow thread per
 * process serving the control protocol (ctlproto.h) on a Unix domain
 * socket, built on the vftr_ec.h interface like any site's module.
 *
 * The shadow thread is created by init with every signal blocked (so the
 * program's signals, SIGPROF, SIGALRM or a launcher's SIGTERM, always go to
 * the program's threads), sleeps in poll() and makes no MPI call.  It owns
 * the listening socket, up to MAX_CLIENTS connections and a wake-up pipe
 * for the shutdown.  Reading a client is non-blocking; a request is
 * answered into the client's output buffer, which is sent as the socket
 * takes it; while a reply is pending no further request of that client is
 * read, so a client that does not read its replies only ever costs one
 * reply's memory (at most MAX_OUT, else it is dropped).  Nothing a client
 * sends can block the shadow thread, and the program's threads never wait
 * for it except during an event (ctl.c).
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "capture.h"
#include "io.h"
#include "ctl.h"
#include "ctlproto.h"
#include "sample.h"

#define MAX_CLIENTS 16
#define MAX_OUT (64u << 20)

struct client {
    int fd;                       /* -1: free slot */
    bool closing;                 /* close once the output is sent */
    struct vftr_ctl_linebuf in;
    char *out;
    size_t out_len, out_pos, out_cap;
};

static struct {
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int listen_fd, wake[2];
    pthread_t thread;
    bool running;
    /* registered after init, while the thread already runs: atomic */
    vftr_ec_callback_fn *_Atomic cb[VFTR_EC_NEVENTS];
    struct client clients[MAX_CLIENTS];
} srv = { .listen_fd = -1, .wake = { -1, -1 } };

/* ------------------------------------------------------------ output */

static VFTR_NI int out_put(struct client *c, const char *a, size_t alen, const char *b, size_t blen)
{
    size_t need = c->out_len + alen + blen + 1;

    if (need > MAX_OUT)
        return -ENOBUFS;
    if (need > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 4096;
        char *p;

        while (cap < need)
            cap *= 2;
        if ((p = realloc(c->out, cap)) == NULL)
            return -ENOMEM;
        c->out = p;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, a, alen);
    memcpy(c->out + c->out_len + alen, b, blen);
    c->out_len += alen + blen;
    c->out[c->out_len++] = '\n';
    return 0;
}

static VFTR_NI int out_line(struct client *c, const char *prefix, const char *text)
{
    return out_put(c, prefix, strlen(prefix), text, strlen(text));
}

static VFTR_NI void client_close(struct client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_pos = c->out_cap = 0;
    c->closing = false;
}

/* Sends what the socket takes now; closes the client on an error, or when
 * it is closing and everything went out. */
static VFTR_NI void client_send(struct client *c)
{
    while (c->out_pos < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_pos, c->out_len - c->out_pos,
                         MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            client_close(c);
            return;
        }
        c->out_pos += (size_t)n;
    }
    c->out_len = c->out_pos = 0;
    if (c->closing)
        client_close(c);
}

/* ---------------------------------------------------------- requests */

static VFTR_NI int emit_line(void *arg, const char *line)
{
    return out_line(arg, "* ", line) < 0 ? 1 : 0;
}

/* One request line (NULL: an oversized one). */
static VFTR_NI int on_line(void *arg, const char *line, size_t len)
{
    struct client *c = arg;
    const struct vftr_ctl_command *cmd;
    const char *a;
    size_t alen;
    char err[256], reply[1100], argbuf[VFTR_CTL_LINE_MAX];
    int rc;

    if (c->closing)
        return 1;
    if (line == NULL) {
        snprintf(err, sizeof err, "line too long (at most %d bytes)", VFTR_CTL_LINE_MAX - 1);
        return out_line(c, "ERR ", err) < 0;
    }
    if (vftr_ctlproto_parse(line, len, &cmd, &a, &alen, err, sizeof err) < 0)
        return out_line(c, "ERR ", err) < 0;
    memcpy(argbuf, a ? a : "", alen);
    argbuf[alen] = '\0';
    switch (cmd->kind) {
    case VFTR_CTL_KIND_VERSION:
        snprintf(reply, sizeof reply, "%d", VFTR_CTL_PROTO_VERSION);
        return out_line(c, "OK ", reply) < 0;
    case VFTR_CTL_KIND_QUIT:
        c->closing = true;
        out_line(c, "OK ", "bye");
        return 1;
    case VFTR_CTL_KIND_QUERY:
        rc = vftr_ctl_query((enum vftr_ec_query)cmd->code, emit_line, c);
        if (rc == -ENOTSUP && cmd->code == VFTR_EC_Q_MESSAGES)
            return out_line(c, "ERR ", "unavailable: no MPI in this program (or capture's "
                                       "MPI library is not loaded)") < 0;
        if (rc < 0)
            return out_line(c, "ERR ", strerror(-rc)) < 0;
        return out_line(c, "OK", "") < 0;
    case VFTR_CTL_KIND_EVENT: {
        vftr_ec_callback_fn *cb = atomic_load(&srv.cb[cmd->code]);

        if (cb == NULL)
            return out_line(c, "ERR ", "event not accepted by this capture library") < 0;
        rc = cb((enum vftr_ec_event)cmd->code, argbuf, reply, sizeof reply);
        return out_line(c, rc < 0 ? "ERR " : "OK ", reply) < 0;
    }
    }
    return 0;
}

static VFTR_NI void client_read(struct client *c)
{
    char buf[4096];
    ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);

    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        client_close(c);
        return;
    }
    if (vftr_ctl_linebuf_feed(&c->in, buf, (size_t)n, on_line, c) != 0 && !c->closing)
        client_close(c);   /* out of memory for the reply */
    else
        client_send(c);
}

/* A new connection: only the owner of the process gets in. */
static VFTR_NI void on_accept(void)
{
    struct ucred cred;
    socklen_t clen = sizeof cred;
    char banner[64];
    int fd = accept4(srv.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    struct client *c = NULL;

    if (fd < 0)
        return;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 || cred.uid != geteuid()) {
        static const char no[] = "ERR permission denied: not the owner of this process\n";

        (void)send(fd, no, sizeof no - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        close(fd);
        return;
    }
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (srv.clients[i].fd < 0) {
            c = &srv.clients[i];
            break;
        }
    if (c == NULL) {
        static const char busy[] = "ERR busy: too many connections\n";

        (void)send(fd, busy, sizeof busy - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        close(fd);
        return;
    }
    c->fd = fd;
    vftr_ctl_linebuf_init(&c->in);
    snprintf(banner, sizeof banner, "VFTR-CTL %d %ld", VFTR_CTL_PROTO_VERSION, (long)getpid());
    out_line(c, "", banner);
    client_send(c);
}

static VFTR_NI void *serve(void *arg)
{
    struct pollfd pfd[MAX_CLIENTS + 2];
    int map[MAX_CLIENTS + 2];

    (void)arg;
    vftr_io_mute = 1;   /* this thread's I/O is capture's own, never the program's (io.h) */
    for (;;) {
        nfds_t n = 0;

        pfd[n].fd = srv.wake[0];
        pfd[n++].events = POLLIN;
        pfd[n].fd = srv.listen_fd;
        pfd[n++].events = POLLIN;
        for (int i = 0; i < MAX_CLIENTS; i++) {
            struct client *c = &srv.clients[i];

            if (c->fd < 0)
                continue;
            map[n] = i;
            pfd[n].fd = c->fd;
            /* no new request while a reply is pending */
            pfd[n++].events = c->out_len > c->out_pos ? POLLOUT : POLLIN;
        }
        if (poll(pfd, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfd[0].revents)
            break;
        if (pfd[1].revents & POLLIN)
            on_accept();
        for (nfds_t k = 2; k < n; k++) {
            struct client *c = &srv.clients[map[k]];

            if (c->fd != pfd[k].fd || pfd[k].revents == 0)
                continue;
            if (pfd[k].revents & POLLOUT)
                client_send(c);
            else if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
                client_read(c);
        }
    }
    /* the process ends: a notice to everyone, then the endpoint goes */
    for (int i = 0; i < MAX_CLIENTS; i++) {
        struct client *c = &srv.clients[i];

        if (c->fd < 0)
            continue;
        c->out_len = c->out_pos = 0;
        out_line(c, "", "BYE exit");
        client_send(c);
        client_close(c);
    }
    return NULL;
}

/* -------------------------------------------------------------- setup */

/* Removes endpoints of processes that no longer exist (or of an earlier
 * process with our pid). */
static VFTR_NI void clean_stale(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = vftr_ctl_endpoint_pid(e->d_name);
        char path[sizeof srv.path];

        if (pid <= 0 || (pid != getpid() && (kill(pid, 0) == 0 || errno != ESRCH)))
            continue;
        if (vftr_ctl_endpoint(path, sizeof path, dir, pid) == 0)
            unlink(path);
    }
    closedir(d);
}

static VFTR_NI int srv_init(const struct vftr_ec_host *host)
{
    struct sockaddr_un sa;
    char dir[sizeof srv.path], err[512];
    sigset_t all, old;
    int rc;

    rc = vftr_ctl_dir(dir, sizeof dir, host->socket_dir, getenv("XDG_RUNTIME_DIR"), true, err,
                      sizeof err);
    if (rc < 0) {
        if (vftr_proc.is_rank0)
            vftr_msg("control: %s; no control socket, the program runs on", err);
        return rc;
    }
    clean_stale(dir);
    if ((rc = vftr_ctl_endpoint(srv.path, sizeof srv.path, dir, host->pid)) < 0)
        return rc;
    for (int i = 0; i < MAX_CLIENTS; i++)
        srv.clients[i].fd = -1;
    srv.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (srv.listen_fd < 0)
        return -errno;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, srv.path, strlen(srv.path) + 1);   /* a path: never abstract */
    unlink(srv.path);
    if (bind(srv.listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0
        || chmod(srv.path, 0600) != 0 || listen(srv.listen_fd, 16) != 0
        || pipe2(srv.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        rc = -errno;
        vftr_msg("control: cannot listen on %s: %s; no control socket, the program runs on",
                 srv.path, strerror(-rc));
        goto fail;
    }
    /* the shadow thread inherits a mask with every signal blocked */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    vftr_sample_own_thread(serve);   /* capture's own thread: never sampled */
    rc = -pthread_create(&srv.thread, NULL, serve, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0) {
        vftr_msg("control: cannot start the control thread: %s", strerror(-rc));
        goto fail;
    }
    srv.running = true;
    return 0;
fail:
    if (srv.listen_fd >= 0)
        close(srv.listen_fd);
    srv.listen_fd = -1;
    unlink(srv.path);
    for (int i = 0; i < 2; i++)
        if (srv.wake[i] >= 0) {
            close(srv.wake[i]);
            srv.wake[i] = -1;
        }
    return rc;
}

static VFTR_NI int srv_register(enum vftr_ec_event event, vftr_ec_callback_fn *cb)
{
    if ((unsigned)event >= VFTR_EC_NEVENTS)
        return -EINVAL;
    atomic_store(&srv.cb[event], cb);
    return 0;
}

static VFTR_NI void srv_shutdown(void)
{
    if (!srv.running)
        return;
    srv.running = false;
    /* the endpoint goes first: no new client connects to a process that ends */
    unlink(srv.path);
    while (write(srv.wake[1], "x", 1) < 0 && errno == EINTR)
        ;
    pthread_join(srv.thread, NULL);
    close(srv.listen_fd);
    srv.listen_fd = -1;
}

static VFTR_NI void srv_message(const char *text)
{
    (void)text;   /* the client that sent the event has its ERR already */
}

const struct vftr_ec_module vftr_ctl_default_module = {
    .name = "default",
    .init = srv_init,
    .register_callback = srv_register,
    .process_shutdown = srv_shutdown,
    .message = srv_message,
};
