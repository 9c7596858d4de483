/*
 * ecmod — a test External Control module (vftr_ec.h), loaded through
 * control.module by test/integration/ctl_module.sh.  It logs every entry
 * point capture calls into the file named by its options ("log=PATH"),
 * and at init starts a thread that delivers the events listed in the
 * environment variable ECMOD_EVENTS (e.g. "pause,resume,flush", an
 * argument after '=') once every callback is registered and the file named
 * by ECMOD_WAIT_FILE exists (if set: the test program's "I am waiting"
 * file), logging each reply; it also runs the STATUS query and logs its
 * first line.  Everything is written with one
 * write() per line, so the log reads in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vftr_ec.h"

const unsigned vftr_ec_module_version = VFTR_EC_VERSION;

static int log_fd = -1;
/* registration comes after init, while the delivering thread runs: the
 * thread waits (under the lock) until the last event is registered */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t registered = PTHREAD_COND_INITIALIZER;
static vftr_ec_callback_fn *callbacks[VFTR_EC_NEVENTS];
static vftr_ec_query_fn *query;
static pthread_t thread;
static int have_thread;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[1400];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (log_fd >= 0 && n > 0)
        (void)!write(log_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static const char *names[] = { "start", "stop", "pause", "resume", "attach", "detach",
                               "flush", "dump", "outdir", "custom", "unthrottle" };

static int first_status(void *arg, const char *line)
{
    (void)arg;
    say("status %s\n", line);
    return 1;   /* one line is enough */
}

static void *deliver(void *arg)
{
    const char *list = getenv("ECMOD_EVENTS"), *wait = getenv("ECMOD_WAIT_FILE");
    struct timespec ts = { 0, 10000000 };
    char buf[512], *save = NULL;

    (void)arg;
    for (int i = 0; wait && i < 6000 && access(wait, F_OK) != 0; i++)
        nanosleep(&ts, NULL);
    pthread_mutex_lock(&lock);
    while (callbacks[VFTR_EC_NEVENTS - 1] == NULL)
        pthread_cond_wait(&registered, &lock);
    pthread_mutex_unlock(&lock);
    if (query)
        say("query status rc %d\n", query(VFTR_EC_Q_STATUS, first_status, NULL));
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char reply[512], *arg2 = strchr(w, '=');

        if (arg2)
            *arg2++ = '\0';
        for (int e = 0; e < VFTR_EC_NEVENTS; e++)
            if (strcmp(w, names[e]) == 0 && callbacks[e]) {
                int rc = callbacks[e]((enum vftr_ec_event)e, arg2, reply, sizeof reply);

                say("event %s rc %d reply %s\n", w, rc, reply);
            }
    }
    return NULL;
}

int vftr_ec_init(const struct vftr_ec_host *host)
{
    const char *p = strstr(host->options, "log=");
    char path[1024];

    if (p == NULL)
        return -EINVAL;
    snprintf(path, sizeof path, "%s", p + 4);
    path[strcspn(path, " ,")] = '\0';
    log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0)
        return -errno;
    if (strstr(host->options, "fail"))
        return -ENOTSUP;
    query = host->query;
    say("init version %u\n", host->version);
    say("init pid %ld\n", (long)host->pid);
    have_thread = pthread_create(&thread, NULL, deliver, NULL) == 0;
    return 0;
}

int vftr_ec_register_callback(enum vftr_ec_event event, vftr_ec_callback_fn *cb)
{
    if ((unsigned)event >= VFTR_EC_NEVENTS)
        return -EINVAL;
    say("register %s\n", names[event]);
    pthread_mutex_lock(&lock);
    callbacks[event] = cb;
    pthread_cond_broadcast(&registered);
    pthread_mutex_unlock(&lock);
    return 0;
}

void vftr_ec_process_shutdown(void)
{
    if (have_thread)
        pthread_join(thread, NULL);
    say("shutdown\n");
}

void vftr_ec_message(const char *text)
{
    say("message %s\n", text);
}
