/*
 * test_capture_ctl.c — Check suite for external control (capture/ctl.c,
 * ctlproto.c): the protocol parser and line assembly against hand-written
 * cases, the endpoint directory checks on a scratch directory, and the
 * events and queries of ctl.c on the capture core driven by the test (a
 * test clock, a fake module that records what capture hands it, a real
 * trace file read back through lib/vfd's reader).  Each test runs in its
 * own process (CK_FORK), so the process state starts fresh.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "ctl.h"
#include "ctlproto.h"
#include "vfd/vftr_vfd.h"

/* ------------------------------------------------------------ protocol */

struct pcase {
    const char *line;
    const char *cmd;     /* expected command, NULL: an error */
    const char *arg;     /* expected argument or the error text */
};

static const struct pcase pcases[] = {
    { "status", "status", NULL },
    { "status\r", "status", NULL },
    { "outdir /tmp/x y", "outdir", "/tmp/x y" },
    { "outdir    /a", "outdir", "/a" },
    { "custom hello world", "custom", "hello world" },
    { "quit", "quit", NULL },
    { "", NULL, "malformed request: expected a command" },
    { " status", NULL, "malformed request: expected a command" },
    { "bogus", NULL, "unknown command \"bogus\"" },
    { "statusstatusstatus", NULL, "unknown command (too long)" },
    { "Status", NULL, "unknown command \"Status\"" },
    { "pause now", NULL, "pause takes no argument" },
    { "outdir", NULL, "outdir needs an argument (DIR)" },
    { "outdir   ", NULL, "outdir needs an argument (DIR)" },
    { "stat\tus", NULL, "malformed request: control character 0x09 at byte 4" },
    { "x\x7f", NULL, "malformed request: control character 0x7f at byte 1" },
};

START_TEST(parser_cases)
{
    const struct pcase *c = &pcases[_i];
    const struct vftr_ctl_command *cmd;
    const char *arg;
    size_t alen;
    char err[256] = "";
    int rc = vftr_ctlproto_parse(c->line, strlen(c->line), &cmd, &arg, &alen, err, sizeof err);

    if (c->cmd) {
        ck_assert_msg(rc == 0, "'%s': %s", c->line, err);
        ck_assert_str_eq(cmd->name, c->cmd);
        if (c->arg) {
            ck_assert_uint_eq(alen, strlen(c->arg));
            ck_assert(memcmp(arg, c->arg, alen) == 0);
        } else {
            ck_assert_ptr_null(arg);
        }
    } else {
        ck_assert_int_eq(rc, -EINVAL);
        ck_assert_ptr_null(cmd);
        ck_assert_str_eq(err, c->arg);
    }
}
END_TEST

START_TEST(parser_refuses_oversized_and_nul)
{
    char line[VFTR_CTL_LINE_MAX + 10], err[128];
    const struct vftr_ctl_command *cmd;
    const char *arg;
    size_t alen;

    memset(line, 'a', sizeof line);
    memcpy(line, "custom ", 7);
    ck_assert_int_eq(vftr_ctlproto_parse(line, VFTR_CTL_LINE_MAX, &cmd, &arg, &alen, err,
                                         sizeof err), -EINVAL);
    ck_assert_str_eq(err, "line too long (at most 1023 bytes)");
    ck_assert_int_eq(vftr_ctlproto_parse(line, VFTR_CTL_LINE_MAX - 1, &cmd, &arg, &alen, err,
                                         sizeof err), 0);
    ck_assert_uint_eq(alen, VFTR_CTL_LINE_MAX - 1 - 7);
    ck_assert_int_eq(vftr_ctlproto_parse("sta\0tus", 7, &cmd, &arg, &alen, err, sizeof err),
                     -EINVAL);
    ck_assert_str_eq(err, "malformed request: control character 0x00 at byte 3");
}
END_TEST

START_TEST(command_table_matches_events)
{
    size_t n;
    const struct vftr_ctl_command *t = vftr_ctlproto_commands(&n);
    int events = 0;

    for (size_t i = 0; i < n; i++) {
        ck_assert_ptr_eq(vftr_ctlproto_find(t[i].name), &t[i]);
        if (t[i].kind == VFTR_CTL_KIND_EVENT) {
            ck_assert_str_eq(vftr_ec_event_name((enum vftr_ec_event)t[i].code), t[i].name);
            events++;
        }
    }
    ck_assert_int_eq(events, VFTR_EC_NEVENTS);
    ck_assert_ptr_null(vftr_ec_event_name(VFTR_EC_NEVENTS));
}
END_TEST

struct lines {
    char got[16][64];
    int n, too_long;
};

static int collect(void *arg, const char *line, size_t len)
{
    struct lines *l = arg;

    if (line == NULL) {
        snprintf(l->got[l->n++], 64, "<too long>");
        l->too_long++;
    } else {
        snprintf(l->got[l->n++], 64, "%.*s", (int)len, line);
    }
    return l->n == 16;
}

START_TEST(lines_are_assembled_across_reads)
{
    struct vftr_ctl_linebuf lb;
    struct lines l = { .n = 0 };
    char big[3000];

    vftr_ctl_linebuf_init(&lb);
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, "sta", 3, collect, &l), 0);
    ck_assert_int_eq(l.n, 0);
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, "tus\nver", 7, collect, &l), 0);
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, "sion\r\n\n", 7, collect, &l), 0);
    memset(big, 'x', sizeof big);
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, big, sizeof big, collect, &l), 0);
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, big, sizeof big, collect, &l), 0);
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, "yy\nquit\n", 8, collect, &l), 0);
    ck_assert_int_eq(l.n, 5);
    ck_assert_str_eq(l.got[0], "status");
    ck_assert_str_eq(l.got[1], "version\r");
    ck_assert_str_eq(l.got[2], "");
    ck_assert_str_eq(l.got[3], "<too long>");   /* once for the whole 6002-byte line */
    ck_assert_str_eq(l.got[4], "quit");
    /* exactly the longest line that fits: 1023 bytes */
    memset(big, 'z', VFTR_CTL_LINE_MAX - 1);
    big[VFTR_CTL_LINE_MAX - 1] = '\n';
    l.n = 0;
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, big, VFTR_CTL_LINE_MAX, collect, &l), 0);
    ck_assert_int_eq(l.n, 1);
    ck_assert_int_eq(l.too_long, 1);
    /* a non-zero callback value stops the feed and comes back */
    l.n = 15;
    ck_assert_int_eq(vftr_ctl_linebuf_feed(&lb, "a\nb\n", 4, collect, &l), 1);
}
END_TEST

/* ------------------------------------------------------------ directory */

static char scratch[64];

static void make_scratch(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/test_ctl.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
}

START_TEST(directory_checks)
{
    char dir[108], path[512], err[512];
    struct stat st;

    make_scratch();
    snprintf(path, sizeof path, "%s/d", scratch);
    ck_assert_int_eq(vftr_ctl_dir(dir, sizeof dir, path, NULL, false, err, sizeof err), -ENOENT);
    ck_assert_int_eq(vftr_ctl_dir(dir, sizeof dir, path, NULL, true, err, sizeof err), 0);
    ck_assert_str_eq(dir, path);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);
    /* the runtime directory when nothing is configured */
    ck_assert_int_eq(vftr_ctl_dir(dir, sizeof dir, NULL, scratch, true, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/vftr", scratch);
    ck_assert_str_eq(dir, path);
    /* a relative runtime directory is ignored: the fallback */
    vftr_ctl_dir(dir, sizeof dir, "", "relative", false, err, sizeof err);
    snprintf(path, sizeof path, "/tmp/vftr-%u", (unsigned)geteuid());
    ck_assert_str_eq(dir, path);
    /* open to others */
    snprintf(path, sizeof path, "%s/open", scratch);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    chmod(path, 0755);
    ck_assert_int_eq(vftr_ctl_dir(dir, sizeof dir, path, NULL, true, err, sizeof err), -EPERM);
    ck_assert_ptr_nonnull(strstr(err, "mode 755 lets others in"));
    /* a symbolic link to a good directory */
    snprintf(path, sizeof path, "%s/link", scratch);
    snprintf(dir, sizeof dir, "%s/d", scratch);
    ck_assert_int_eq(symlink(dir, path), 0);
    ck_assert_int_eq(vftr_ctl_dir(dir, sizeof dir, path, NULL, true, err, sizeof err), -ELOOP);
    ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
    /* a file */
    snprintf(path, sizeof path, "%s/file", scratch);
    fclose(fopen(path, "w"));
    ck_assert_int_eq(vftr_ctl_dir(dir, sizeof dir, path, NULL, true, err, sizeof err), -ENOTDIR);
    /* too long for a socket address */
    memset(path, 'a', 200);
    path[0] = '/';
    path[200] = '\0';
    ck_assert_int_eq(vftr_ctl_dir(dir, sizeof dir, path, NULL, true, err, sizeof err),
                     -ENAMETOOLONG);
}
END_TEST

START_TEST(endpoint_names)
{
    char p[108];

    ck_assert_int_eq(vftr_ctl_endpoint(p, sizeof p, "/run/user/1/vftr", 4242), 0);
    ck_assert_str_eq(p, "/run/user/1/vftr/vftr-4242.sock");
    ck_assert_int_eq(vftr_ctl_endpoint_pid("vftr-4242.sock"), 4242);
    ck_assert_int_eq(vftr_ctl_endpoint_pid("vftr-0.sock"), -1);
    ck_assert_int_eq(vftr_ctl_endpoint_pid("vftr-042.sock"), -1);
    ck_assert_int_eq(vftr_ctl_endpoint_pid("vftr-42.sockx"), -1);
    ck_assert_int_eq(vftr_ctl_endpoint_pid("vftr-42"), -1);
    ck_assert_int_eq(vftr_ctl_endpoint_pid("vftr--1.sock"), -1);
    ck_assert_int_eq(vftr_ctl_endpoint_pid("vftr-99999999999.sock"), -1);
    ck_assert_int_eq(vftr_ctl_endpoint_pid("other-42.sock"), -1);
}
END_TEST

/* --------------------------------------------------- events and queries */

static uint64_t now_ticks;

static uint64_t test_clock(void *arg)
{
    (void)arg;
    return now_ticks;
}

static const char *const names[] = { "main", "a", "b", "c\tx" };
#define ADDR(i) ((uintptr_t)0x1000 * ((uintptr_t)(i) + 1))

static const char *resolve(void *arg, uintptr_t addr)
{
    size_t i = addr / 0x1000 - 1;

    (void)arg;
    return addr % 0x1000 == 0 && i < sizeof names / sizeof names[0] ? names[i] : NULL;
}

/* The fake module: remembers what capture hands it. */
static struct {
    int inits, shutdowns, messages;
    unsigned version;
    char options[64];
    vftr_ec_callback_fn *cb[VFTR_EC_NEVENTS];
    vftr_ec_query_fn *query;
    char last_message[256];
} fake;

static int fake_init(const struct vftr_ec_host *h)
{
    fake.inits++;
    fake.version = h->version;
    snprintf(fake.options, sizeof fake.options, "%s", h->options);
    fake.query = h->query;
    return strcmp(h->options, "refuse") == 0 ? -EPERM : 0;
}

static int fake_register(enum vftr_ec_event ev, vftr_ec_callback_fn *cb)
{
    fake.cb[ev] = cb;
    return 0;
}

static void fake_shutdown(void)
{
    fake.shutdowns++;
}

static void fake_message(const char *text)
{
    fake.messages++;
    snprintf(fake.last_message, sizeof fake.last_message, "%s", text);
}

static const struct vftr_ec_module fake_module = {
    "fake", fake_init, fake_register, fake_shutdown, fake_message,
};

/* Capture state for the tests: a trace file in the scratch directory (when
 * trace), one registered thread (returned), the fake module loaded. */
static struct vftr_thread *setup(bool trace)
{
    struct vftr_settings s;
    struct vftr_thread *t;

    make_scratch();
    memset(&s, 0, sizeof s);
    s.prelude = true;
    s.resolve = resolve;
    s.trace = trace;
    s.buffer_bytes = 64 << 10;
    vftr_clock_set_test_source(test_clock, NULL, 1000.0);
    now_ticks = 1;
    ck_assert_int_eq(vftr_config_init(&vftr_proc.cfg), 0);
    ck_assert_int_eq(vftr_callpath_setup(&s), 0);
    vftr_proc.pid = getpid();
    vftr_proc.rank = 0;
    vftr_proc.size = 1;
    vftr_proc.is_rank0 = true;
    snprintf(vftr_proc.dir, sizeof vftr_proc.dir, "%s", scratch);
    snprintf(vftr_proc.base, sizeof vftr_proc.base, "unit");
    if (trace)
        ck_assert_int_eq(vftr_trace_open(vftr_proc.dir, vftr_proc.base), 0);
    vftr_proc.recording = true;
    t = vftr_thread_new(false);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(vftr_ctl_setup_module(&fake_module, "opt=1"), 0);
    return t;
}

static void enter(struct vftr_thread *t, int fn, uint64_t at)
{
    now_ticks = at;
    ck_assert(vftr_guard_take(t));
    vftr_enter_at(t, ADDR(fn), NULL, at);
    vftr_guard_drop(t);
}

static void leave(struct vftr_thread *t, int fn, uint64_t at)
{
    now_ticks = at;
    ck_assert(vftr_guard_take(t));
    vftr_exit_at(t, ADDR(fn), at);
    vftr_guard_drop(t);
}

static int event(enum vftr_ec_event ev, const char *arg, char *reply)
{
    ck_assert_ptr_nonnull(fake.cb[ev]);
    return fake.cb[ev](ev, arg, reply, 256);
}

struct text {
    char buf[8192];
    size_t len;
    int lines;
};

static int gather(void *arg, const char *line)
{
    struct text *t = arg;

    t->len += (size_t)snprintf(t->buf + t->len, sizeof t->buf - t->len, "%s\n", line);
    t->lines++;
    return 0;
}

START_TEST(module_gets_init_callbacks_and_shutdown)
{
    char reply[256];

    setup(false);
    ck_assert_int_eq(fake.inits, 1);
    ck_assert_uint_eq(fake.version, VFTR_EC_VERSION);
    ck_assert_str_eq(fake.options, "opt=1");
    for (int e = 0; e < VFTR_EC_NEVENTS; e++)
        ck_assert_ptr_eq(fake.cb[e], vftr_ctl_event);
    ck_assert_int_eq(vftr_ctl_setup_module(&fake_module, ""), -EBUSY);
    ck_assert_int_eq(event(VFTR_EC_CUSTOM, "x", reply), -ENOSYS);
    ck_assert_int_eq(fake.messages, 1);
    ck_assert_str_eq(fake.last_message, "custom failed: the program set no custom handler");
    vftr_ctl_shutdown();
    vftr_ctl_shutdown();
    ck_assert_int_eq(fake.shutdowns, 1);
    ck_assert_int_eq(event(VFTR_EC_PAUSE, NULL, reply), -EAGAIN);
    ck_assert_str_eq(reply, "capture is shutting down");
    ck_assert_int_eq(vftr_ctl_event(VFTR_EC_NEVENTS, NULL, reply, sizeof reply), -EINVAL);
}
END_TEST

START_TEST(refusing_module_is_dropped)
{
    make_scratch();
    vftr_proc.is_rank0 = false;   /* no message on stderr from the test */
    ck_assert_int_eq(vftr_ctl_setup_module(&fake_module, "refuse"), -EPERM);
    ck_assert_int_eq(fake.inits, 1);
    ck_assert_ptr_null(fake.cb[VFTR_EC_START]);
    /* a second try is allowed (nothing is active) */
    ck_assert_int_eq(vftr_ctl_setup_module(&fake_module, "ok"), 0);
}
END_TEST

static int custom(void *arg, const char *command, char *reply, size_t len)
{
    ++*(int *)arg;
    snprintf(reply, len, "got <%s>", command);
    return 0;
}

START_TEST(custom_handler_receives_the_text)
{
    char reply[256];
    int called = 0;

    setup(false);
    vftr_ec_set_custom_handler(custom, &called);
    ck_assert_int_eq(event(VFTR_EC_CUSTOM, "do it now", reply), 0);
    ck_assert_str_eq(reply, "got <do it now>");
    ck_assert_int_eq(called, 1);
    vftr_ec_set_custom_handler(NULL, NULL);
    ck_assert_int_eq(event(VFTR_EC_CUSTOM, "again", reply), -ENOSYS);
}
END_TEST

/* pause and resume are switches of the process: the phase word says so at
 * once, each thread applies them at its next hook (its guard is taken, the
 * shadow stack moves, nothing is counted).  main@10, pause@15, a@16 {}
 * @17 (not counted), resume@18, leave main@20: main counted 5 + 2 = 7
 * ticks in 2 calls (entered again at the resume), a has no calls. */
START_TEST(pause_and_resume_switch_the_phase)
{
    struct vftr_thread *t = setup(false);
    char reply[256];

    enter(t, 0, 10);
    now_ticks = 15;
    ck_assert_int_eq(event(VFTR_EC_PAUSE, NULL, reply), 0);
    ck_assert_str_eq(reply, "paused");
    ck_assert_int_eq(vftr_phase_of(atomic_load(&vftr_proc.phase)), VFTR_PHASE_PAUSED);
    ck_assert(!t->paused);            /* not before its next hook */
    enter(t, 1, 16);
    ck_assert(t->paused);
    leave(t, 1, 17);
    ck_assert_ptr_eq(t->cur, t->root.last_child);
    ck_assert_int_eq(event(VFTR_EC_PAUSE, NULL, reply), 0);
    ck_assert_str_eq(reply, "already paused");
    now_ticks = 18;
    ck_assert_int_eq(event(VFTR_EC_RESUME, NULL, reply), 0);
    ck_assert_str_eq(reply, "resumed");
    ck_assert_int_eq(vftr_phase_of(atomic_load(&vftr_proc.phase)), VFTR_PHASE_RUNNING);
    leave(t, 0, 20);
    ck_assert_uint_eq(t->root.last_child->calls, 2);
    ck_assert_uint_eq(t->root.last_child->time_incl, 7);
    ck_assert_uint_eq(t->root.last_child->last_child->calls, 0);
    /* a stopped capture refuses */
    atomic_store(&vftr_proc.phase, VFTR_PHASE_STOPPED);
    ck_assert_int_eq(event(VFTR_EC_PAUSE, NULL, reply), -EAGAIN);
    ck_assert_int_eq(vftr_phase_of(atomic_load(&vftr_proc.phase)), VFTR_PHASE_STOPPED);
}
END_TEST

/*
 * stop / start / pause with a real trace: main@10 { a@20 ... stop@30,
 * b@32 {} @34, start@40, pause@50, resume@60 ... } a@70 } main@80.  The
 * thread applies the stop at its hook at 32, the start, pause and resume
 * at its hook at 70, each at its own time.  The file must read
 *   ENTER main 10, ENTER a 20, EXIT a 30, EXIT main 30,
 *   ENTER main 40, ENTER a 40, EXIT a 50, EXIT main 50, PAUSE 50,
 *   RESUME 60, ENTER main 60, ENTER a 60, EXIT a 70, EXIT main 80
 * which is balanced, and the profile keeps counting while stopped.
 */
START_TEST(stop_and_start_keep_the_trace_balanced)
{
    struct vftr_thread *t = setup(true);
    struct vftr_vfd_reader *r;
    struct vftr_vfd_record rec;
    char reply[256], path[1400], err[256];
    static const struct { uint32_t kind; const char *name; uint64_t time; } want[] = {
        { VFTR_VFD_ENTER, "main", 10 }, { VFTR_VFD_ENTER, "a", 20 }, { VFTR_VFD_EXIT, "a", 30 },
        { VFTR_VFD_EXIT, "main", 30 },  { VFTR_VFD_ENTER, "main", 40 }, { VFTR_VFD_ENTER, "a", 40 },
        { VFTR_VFD_EXIT, "a", 50 },     { VFTR_VFD_EXIT, "main", 50 },  { VFTR_VFD_PAUSE, NULL, 50 },
        { VFTR_VFD_RESUME, NULL, 60 },  { VFTR_VFD_ENTER, "main", 60 }, { VFTR_VFD_ENTER, "a", 60 },
        { VFTR_VFD_EXIT, "a", 70 },     { VFTR_VFD_EXIT, "main", 80 },
    };
    size_t k = 0;
    int rc;

    enter(t, 0, 10);
    enter(t, 1, 20);
    now_ticks = 30;
    ck_assert_int_eq(event(VFTR_EC_STOP, NULL, reply), 0);
    ck_assert_str_eq(reply, "trace stopped (1 threads)");
    enter(t, 2, 32);   /* applies the stop; not traced, profiled */
    ck_assert(!t->trace);
    leave(t, 2, 34);
    now_ticks = 40;
    ck_assert_int_eq(event(VFTR_EC_START, NULL, reply), 0);
    ck_assert_str_eq(reply, "trace started (1 threads)");
    now_ticks = 50;
    ck_assert_int_eq(event(VFTR_EC_PAUSE, NULL, reply), 0);
    now_ticks = 60;
    ck_assert_int_eq(event(VFTR_EC_RESUME, NULL, reply), 0);
    leave(t, 1, 70);
    leave(t, 0, 80);
    now_ticks = 90;
    ck_assert_int_eq(event(VFTR_EC_FLUSH, NULL, reply), 0);
    ck_assert_ptr_nonnull(strstr(reply, "flushed 1 threads"));
    ck_assert_int_eq(vftr_trace_close(path, sizeof path, false, 0), 0);

    r = vftr_vfd_reader_open_msg(path, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    while ((rc = vftr_vfd_reader_next(r, &rec)) > 0) {
        if (rec.type != VFTR_VFD_REC_EVENT)
            continue;
        ck_assert_uint_lt(k, sizeof want / sizeof want[0]);
        ck_assert_uint_eq(rec.u.event.kind, want[k].kind);
        ck_assert_uint_eq(rec.u.event.time, want[k].time);
        if (want[k].name)
            ck_assert_str_eq(vftr_vfd_reader_callpath_name(r, rec.u.event.id), want[k].name);
        k++;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(k, sizeof want / sizeof want[0]);
    vftr_vfd_reader_close(r);
    /* b (in a) ran while the trace was stopped: in the profile all the
     * same; a counts its entry again at the resume */
    ck_assert_uint_eq(t->root.last_child->last_child->last_child->calls, 1);
    ck_assert_uint_eq(t->root.last_child->last_child->calls, 2);
}
END_TEST

/* The thread's next hook: it applies the switches made meanwhile. */
static void sync_thread(struct vftr_thread *t)
{
    ck_assert(vftr_guard_take(t));
    vftr_guard_drop(t);
}

START_TEST(attach_detach_follow_detach_stops)
{
    struct vftr_thread *t = setup(true);
    char reply[256];

    enter(t, 0, 10);
    ck_assert_int_eq(event(VFTR_EC_DETACH, NULL, reply), -EINVAL);
    ck_assert_int_eq(event(VFTR_EC_ATTACH, NULL, reply), 0);
    ck_assert_str_eq(reply, "attached (1 front-ends)");
    ck_assert_int_eq(event(VFTR_EC_DETACH, NULL, reply), 0);
    ck_assert_str_eq(reply, "detached (0 front-ends)");
    sync_thread(t);
    ck_assert(t->trace);   /* control.detach_stops is false by default */
    vftr_proc.cfg.control_detach_stops = true;
    event(VFTR_EC_ATTACH, NULL, reply);
    event(VFTR_EC_ATTACH, NULL, reply);
    ck_assert_str_eq(reply, "attached (2 front-ends)");
    event(VFTR_EC_DETACH, NULL, reply);
    sync_thread(t);
    ck_assert(t->trace);   /* one is still attached */
    event(VFTR_EC_DETACH, NULL, reply);
    ck_assert_str_eq(reply, "detached (0 front-ends), trace stopped");
    sync_thread(t);
    ck_assert(!t->trace);
    event(VFTR_EC_ATTACH, NULL, reply);
    sync_thread(t);
    ck_assert(t->trace);
}
END_TEST

START_TEST(outdir_moves_the_trace)
{
    char reply[256], dir[300], moved[1400];
    struct stat st;

    setup(true);
    snprintf(dir, sizeof dir, "%s/new", scratch);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    ck_assert_int_eq(event(VFTR_EC_OUTDIR, "relative", reply), -EINVAL);
    ck_assert_int_eq(event(VFTR_EC_OUTDIR, "/nonexistent/dir", reply), -ENOENT);
    ck_assert_int_eq(event(VFTR_EC_OUTDIR, dir, reply), 0);
    snprintf(moved, sizeof moved, "%s/unit_%d.tmpvfd", dir, (int)getpid());
    ck_assert_str_eq(vftr_proc.tmp_path, moved);
    ck_assert_str_eq(vftr_proc.dir, dir);
    ck_assert_int_eq(stat(moved, &st), 0);
    snprintf(moved, sizeof moved, "%s/unit_%d.tmpvfd", scratch, (int)getpid());
    ck_assert_int_eq(stat(moved, &st), -1);
    ck_assert_int_eq(event(VFTR_EC_OUTDIR, dir, reply), 0);   /* already there */
}
END_TEST

/* main@10 { a@20 } a@50, queries at 40 and 100: the stack shows main > a,
 * then main; main's open frame counts its time so far (90 ticks at 100),
 * a its finished 30; exclusive main = 90 - 30 = 60.  1 tick = 1 ms. */
START_TEST(queries_read_stacks_and_profile)
{
    struct vftr_thread *t = setup(false);
    struct text txt = { .len = 0 };
    char want[512];

    enter(t, 0, 10);
    enter(t, 1, 20);
    now_ticks = 40;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_STACKS, gather, &txt), 0);
    snprintf(want, sizeof want, "thread\t0\t%ld\t2\nframe\t0\t0\t1\tmain\nframe\t0\t1\t2\ta\n",
             (long)t->tid);
    ck_assert_str_eq(txt.buf, want);
    leave(t, 1, 50);
    now_ticks = 100;
    txt.len = 0;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_STACKS, gather, &txt), 0);
    snprintf(want, sizeof want, "thread\t0\t%ld\t1\nframe\t0\t0\t1\tmain\n", (long)t->tid);
    ck_assert_str_eq(txt.buf, want);
    txt.len = 0;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_PROFILE, gather, &txt), 0);
    ck_assert_str_eq(txt.buf, "row\t0\t1\t0\t1\t0.090000000\t0.060000000\tmain\t\n"
                              "row\t0\t2\t1\t1\t0.030000000\t0.030000000\ta\tmain\n");
    txt.len = 0;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_STATUS, gather, &txt), 0);
    snprintf(want, sizeof want, "phase=running trace=off attached=0 pid=%ld rank=0 size=1 job=",
             (long)getpid());
    ck_assert_msg(strncmp(txt.buf, want, strlen(want)) == 0, "%s", txt.buf);
    ck_assert_ptr_nonnull(strstr(txt.buf, " threads=1 "));
    ck_assert_int_eq(fake.query(VFTR_EC_Q_MESSAGES, gather, &txt), -ENOTSUP);
    ck_assert_int_eq(fake.query((enum vftr_ec_query)99, gather, &txt), -EINVAL);
}
END_TEST

/* Live profiles count no paused time (issue 14): main@10 { a@20 } @30,
 * pause@40 (the thread sleeps in main), query at 60: main has counted
 * 10..40 = 30 ms, a 10, main exclusive 20.  resume@70, query at 80 (the
 * thread has not applied the resume yet): main 30 + 10 = 40 ms in 2 calls
 * (the entry again at the resume), exclusive 30.  The stack shows main
 * throughout. */
START_TEST(queries_count_no_paused_time)
{
    struct vftr_thread *t = setup(false);
    struct text txt = { .len = 0 };
    char reply[256], want[256];

    enter(t, 0, 10);
    enter(t, 1, 20);
    leave(t, 1, 30);
    now_ticks = 40;
    ck_assert_int_eq(event(VFTR_EC_PAUSE, NULL, reply), 0);
    now_ticks = 60;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_PROFILE, gather, &txt), 0);
    ck_assert_str_eq(txt.buf, "row\t0\t1\t0\t1\t0.030000000\t0.020000000\tmain\t\n"
                              "row\t0\t2\t1\t1\t0.010000000\t0.010000000\ta\tmain\n");
    txt.len = 0;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_STACKS, gather, &txt), 0);
    snprintf(want, sizeof want, "thread\t0\t%ld\t1\nframe\t0\t0\t1\tmain\n", (long)t->tid);
    ck_assert_str_eq(txt.buf, want);
    now_ticks = 70;
    ck_assert_int_eq(event(VFTR_EC_RESUME, NULL, reply), 0);
    now_ticks = 80;
    txt.len = 0;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_PROFILE, gather, &txt), 0);
    ck_assert_str_eq(txt.buf, "row\t0\t1\t0\t2\t0.040000000\t0.030000000\tmain\t\n"
                              "row\t0\t2\t1\t1\t0.010000000\t0.010000000\ta\tmain\n");
}
END_TEST

/* A thread that keeps entering and leaving while another reads its stack
 * and profile: every stack read is a real one (main, then a or b or
 * nothing), the calls never go down.  (Run under TSan too: the readers
 * follow only published structure.) */
static atomic_int stop_hooks;

static void *hooks(void *arg)
{
    struct vftr_thread *t = vftr_thread_new(true);
    uint64_t i = 0;

    (void)arg;
    vftr_tls = t;
    vftr_guard_take(t);
    vftr_enter_at(t, ADDR(0), NULL, 1);
    vftr_guard_drop(t);
    while (!atomic_load(&stop_hooks)) {
        int f = 1 + (int)(i & 1);

        if (vftr_guard_take(t)) {
            vftr_enter_at(t, ADDR(f), NULL, 2 + i);
            vftr_exit_at(t, ADDR(f), 3 + i);
            vftr_guard_drop(t);
        }
        i++;
    }
    return NULL;
}

static int check_stack(void *arg, const char *line)
{
    int *bad = arg;

    if (strncmp(line, "frame\t", 6) == 0) {
        const char *name = strrchr(line, '\t') + 1;
        int level = atoi(line + 8);

        if (!((level == 0 && strcmp(name, "main") == 0)
              || (level == 1 && (strcmp(name, "a") == 0 || strcmp(name, "b") == 0))))
            ++*bad;
    }
    return 0;
}

struct calls {
    unsigned long long a;
};

static int profile_a(void *arg, const char *line)
{
    struct calls *c = arg;
    char fn[64];
    unsigned long long calls;

    if (sscanf(line, "row\t%*u\t%*u\t%*u\t%llu\t%*f\t%*f\t%63s", &calls, fn) == 2
        && strcmp(fn, "a") == 0)
        c->a = calls;
    return 0;
}

START_TEST(queries_while_the_program_runs)
{
    pthread_t th;
    int bad = 0;
    unsigned long long last = 0;

    setup(false);
    ck_assert_int_eq(pthread_create(&th, NULL, hooks, NULL), 0);
    for (int k = 0; k < 300; k++) {
        struct calls c = { 0 };

        ck_assert_int_eq(fake.query(VFTR_EC_Q_STACKS, check_stack, &bad), 0);
        ck_assert_int_eq(fake.query(VFTR_EC_Q_PROFILE, profile_a, &c), 0);
        ck_assert_uint_ge(c.a, last);
        last = c.a;
    }
    atomic_store(&stop_hooks, 1);
    pthread_join(th, NULL);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Stacks deeper than the reader's array on the stack (256 frames): 301
 * frames, outermost first, each at its level. */
struct deep {
    int header, frames, bad;
};

static int check_deep(void *arg, const char *line)
{
    struct deep *d = arg;
    unsigned th, level, id;
    char name[16];

    if (strncmp(line, "thread\t0\t", 9) == 0) {
        d->header = atoi(strrchr(line, '\t') + 1);
        return 0;
    }
    if (sscanf(line, "frame\t%u\t%u\t%u\t%15s", &th, &level, &id, name) != 4
        || th != 0 || level != (unsigned)d->frames || id != level + 1
        || strcmp(name, level == 0 ? "main" : "a") != 0)
        d->bad++;
    d->frames++;
    return 0;
}

START_TEST(deep_stacks_are_read_whole)
{
    struct vftr_thread *t = setup(false);
    struct deep d = { 0, 0, 0 };

    enter(t, 0, 10);
    for (int i = 0; i < 300; i++)
        enter(t, 1, 11 + (uint64_t)i);
    ck_assert_int_eq(fake.query(VFTR_EC_Q_STACKS, check_deep, &d), 0);
    ck_assert_int_eq(d.header, 301);
    ck_assert_int_eq(d.frames, 301);
    ck_assert_int_eq(d.bad, 0);
}
END_TEST

/* The hand-built rows: seconds to the nanosecond above 1 s and at 0, a
 * name's control character replaced.  1 tick = 1 ms: main@10 {c@20 ..
 * c@1234587} queried at 2000000: main 1999.990 s inclusive, 1999.990 -
 * 1234.567 = 765.423 s exclusive; c 1234.567 s both. */
START_TEST(profile_rows_are_exact)
{
    struct vftr_thread *t = setup(false);
    struct text txt = { .len = 0 };

    enter(t, 0, 10);
    enter(t, 3, 20);
    leave(t, 3, 1234587);
    enter(t, 2, 1234587);
    leave(t, 2, 1234587);
    now_ticks = 2000000;
    ck_assert_int_eq(fake.query(VFTR_EC_Q_PROFILE, gather, &txt), 0);
    ck_assert_str_eq(txt.buf, "row\t0\t1\t0\t1\t1999.990000000\t765.423000000\tmain\t\n"
                              "row\t0\t2\t1\t1\t1234.567000000\t1234.567000000\tc?x\tmain\n"
                              "row\t0\t3\t1\t1\t0.000000000\t0.000000000\tb\tmain\n");
}
END_TEST

START_TEST(dump_writes_a_log)
{
    struct vftr_thread *t = setup(false);
    char reply[256], want[400];
    FILE *f;
    char line[512];
    int found = 0;

    enter(t, 0, 10);
    enter(t, 1, 20);
    leave(t, 1, 30);
    ck_assert_int_eq(event(VFTR_EC_DUMP, NULL, reply), 0);
    snprintf(want, sizeof want, "%s/unit_0.dump1.log", scratch);
    ck_assert_str_eq(reply, want);
    ck_assert_ptr_nonnull(f = fopen(want, "r"));
    while (fgets(line, sizeof line, f))
        if (strstr(line, " a ") && strstr(line, "main"))
            found++;
    fclose(f);
    ck_assert_int_ge(found, 1);
    ck_assert_int_eq(event(VFTR_EC_DUMP, NULL, reply), 0);
    snprintf(want, sizeof want, "%s/unit_0.dump2.log", scratch);
    ck_assert_str_eq(reply, want);
}
END_TEST

Suite *ctl_suite(void);
Suite *ctl_suite(void)
{
    Suite *s = suite_create("capture_ctl");
    TCase *tc = tcase_create("ctl");

    tcase_add_loop_test(tc, parser_cases, 0, sizeof pcases / sizeof pcases[0]);
    tcase_add_test(tc, parser_refuses_oversized_and_nul);
    tcase_add_test(tc, command_table_matches_events);
    tcase_add_test(tc, lines_are_assembled_across_reads);
    tcase_add_test(tc, directory_checks);
    tcase_add_test(tc, endpoint_names);
    tcase_add_test(tc, module_gets_init_callbacks_and_shutdown);
    tcase_add_test(tc, refusing_module_is_dropped);
    tcase_add_test(tc, custom_handler_receives_the_text);
    tcase_add_test(tc, pause_and_resume_switch_the_phase);
    tcase_add_test(tc, stop_and_start_keep_the_trace_balanced);
    tcase_add_test(tc, attach_detach_follow_detach_stops);
    tcase_add_test(tc, outdir_moves_the_trace);
    tcase_add_test(tc, queries_read_stacks_and_profile);
    tcase_add_test(tc, queries_count_no_paused_time);
    tcase_add_test(tc, queries_while_the_program_runs);
    tcase_add_test(tc, deep_stacks_are_read_whole);
    tcase_add_test(tc, profile_rows_are_exact);
    tcase_add_test(tc, dump_writes_a_log);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ctl_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
