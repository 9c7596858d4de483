/*
 * sink_json.c — Chrome's trace-event JSON (the "JSON Object Format"), for
 * chrome://tracing and ui.perfetto.dev: {"displayTimeUnit":"ns",
 * "traceEvents":[...]}.
 *
 *   process (pid)   a rank: its index in rank order; "process_name" and
 *                   "process_sort_index" metadata;
 *   thread (tid)    a model process (the rank's own and its threads): its
 *                   token; "thread_name" metadata;
 *   B / E           Enter / Leave, "cat" the function's group;
 *   s / f           a message as a flow from the send (on the sender) to
 *                   the receive (bound to the enclosing slice, "bp":"e"),
 *                   matched per sender, receiver, communicator and tag in
 *                   order; args bytes, tag, communicator;
 *   b / e           a collective as an async slice (nonblocking collectives
 *                   of one thread may overlap), id per thread and matching
 *                   id; args bytes sent and received, root, communicator;
 *   C               a counter sample.
 * Times ("ts") are microseconds from the trace's first time stamp, with the
 * ns digits (exact for a ns timer).  Streaming: memory holds the messages
 * sent and not yet received.  A trace past json_warn_bytes (200 MiB) gets
 * one warning that points to the Perfetto format.
 */
#include "sink_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "messages.h"
#include "u64map.h"
#include "util/errmsg.h"
#include "util/json.h"

#define WARN_BYTES (200ull << 20)

struct flow { uint32_t sender, receiver, comm, tag; uint64_t id; };

struct json_sink {
    char *path;
    FILE *f;
    const struct vftr_source *src;
    uint64_t first, resolution;
    struct vftr_u64map pid;           /* process token -> rank index */
    struct flow *flows;               /* messages in flight, in send order */
    size_t nflows, capflows;
    uint64_t next_flow;
    uint64_t warn_bytes;
    int warned;
    FILE *warn;
    const char *prog;
    char why[VFTR_ERRMSG_MAX];
};

/* "ts":... in microseconds from the first time stamp */
static void put_ts(const struct json_sink *k, uint64_t time)
{
    uint64_t t = time > k->first ? time - k->first : 0;

    if (k->resolution == 1000000000u)
        fprintf(k->f, "\"ts\":%" PRIu64 ".%03u", t / 1000, (unsigned)(t % 1000));
    else
        fprintf(k->f, "\"ts\":%.3f", (double)t * 1e6 / (double)k->resolution);
}

static uint32_t pid_of(const struct json_sink *k, uint32_t process)
{
    long i = vftr_u64map_get(&k->pid, process);

    return i < 0 ? 0 : (uint32_t)i;
}

static int check(struct json_sink *k)
{
    if (ferror(k->f)) {
        snprintf(k->why, sizeof k->why, "%s: write error (%s)", k->path, strerror(errno));
        return -EIO;
    }
    if (!k->warned && k->warn && (uint64_t)ftello(k->f) > k->warn_bytes) {
        k->warned = 1;
        fprintf(k->warn, "%s: %s: warning: the JSON passed %llu MiB; viewers load it whole "
                "(--to perfetto writes a smaller trace that streams)\n", k->prog, k->path,
                (unsigned long long)(k->warn_bytes >> 20));
    }
    return 0;
}

static int slice(struct json_sink *k, char ph, uint64_t time, uint32_t process,
                 uint32_t function)
{
    const struct vftr_source_func *fn = vftr_source_func(k->src, function);
    const char *g = fn ? vftr_source_group_name(k->src, fn->group) : NULL;

    fprintf(k->f, ",\n{\"ph\":\"%c\",\"pid\":%u,\"tid\":%u,", ph, pid_of(k, process), process);
    put_ts(k, time);
    fputs(",\"name\":", k->f);
    vftr_json_string(k->f, fn ? fn->name : "?");
    if (g) {
        fputs(",\"cat\":", k->f);
        vftr_json_string(k->f, g);
    }
    fputc('}', k->f);
    return check(k);
}

static int j_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    return slice(arg, 'B', time, process, function);
}

static int j_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    return slice(arg, 'E', time, process, function);
}

static void put_comm(struct json_sink *k, uint32_t comm)
{
    const struct vftr_source_comm *c = vftr_source_comm(k->src, comm);

    fputs(",\"comm\":", k->f);
    if (c)
        vftr_json_string(k->f, c->name);
    else
        fprintf(k->f, "%u", comm);
}

static int j_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct json_sink *k = arg;

    if (vftr_reserve((void **)&k->flows, &k->capflows, k->nflows, sizeof *k->flows) < 0)
        return -ENOMEM;
    k->flows[k->nflows++] = (struct flow){ sender, receiver, comm, tag, ++k->next_flow };
    fprintf(k->f, ",\n{\"ph\":\"s\",\"pid\":%u,\"tid\":%u,", pid_of(k, sender), sender);
    put_ts(k, time);
    fprintf(k->f, ",\"name\":\"message\",\"cat\":\"MPI message\",\"id\":%" PRIu64
            ",\"args\":{\"bytes\":%u,\"tag\":%u,\"to\":%u", k->next_flow, length, tag, receiver);
    put_comm(k, comm);
    fputs("}}", k->f);
    return check(k);
}

static int j_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct json_sink *k = arg;

    (void)length;
    for (size_t i = 0; i < k->nflows; i++) {
        const struct flow *m = &k->flows[i];

        /* the oldest send of its channel that it and the send admit
         * (messages.h: a peer named by its rank stands for any thread) */
        if (m->comm == comm && m->tag == tag &&
            vftr_messages_admits(vftr_source_peer_ranks(k->src), (void *)k->src, m->receiver,
                                 receiver) &&
            vftr_messages_admits(vftr_source_peer_ranks(k->src), (void *)k->src, sender,
                                 m->sender)) {
            fprintf(k->f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":%u,\"tid\":%u,",
                    pid_of(k, receiver), receiver);
            put_ts(k, time);
            fprintf(k->f, ",\"name\":\"message\",\"cat\":\"MPI message\",\"id\":%" PRIu64 "}",
                    m->id);
            memmove(&k->flows[i], &k->flows[i + 1], (k->nflows - i - 1) * sizeof *k->flows);
            k->nflows--;
            return check(k);
        }
    }
    return 0;                         /* its send is not in the trace */
}

/* A collective's async id: thread and matching id. */
static uint64_t coll_id(uint32_t process, uint64_t match)
{
    return (uint64_t)process << 32 | (match & 0xffffffffu);
}

static int j_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t match,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct json_sink *k = arg;
    const char *name = vftr_source_collop_name(k->src, op);

    fprintf(k->f, ",\n{\"ph\":\"b\",\"pid\":%u,\"tid\":%u,", pid_of(k, process), process);
    put_ts(k, time);
    fputs(",\"name\":", k->f);
    vftr_json_string(k->f, name ? name : "collective");
    fprintf(k->f, ",\"cat\":\"MPI collective\",\"id\":%" PRIu64 ",\"args\":{\"sent\":%" PRIu64
            ",\"received\":%" PRIu64 ",\"root\":%u", coll_id(process, match), sent, received,
            root);
    put_comm(k, comm);
    fputs("}}", k->f);
    return check(k);
}

static int j_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t match)
{
    struct json_sink *k = arg;

    fprintf(k->f, ",\n{\"ph\":\"e\",\"pid\":%u,\"tid\":%u,", pid_of(k, process), process);
    put_ts(k, time);
    fprintf(k->f, ",\"name\":\"collective\",\"cat\":\"MPI collective\",\"id\":%" PRIu64 "}",
            coll_id(process, match));
    return check(k);
}

static int j_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value)
{
    struct json_sink *k = arg;
    size_t n;
    const struct vftr_source_counter *c = vftr_source_counters(k->src, &n);
    const char *name = "counter";

    for (size_t i = 0; i < n; i++)
        if (c[i].token == counter)
            name = c[i].name;
    fprintf(k->f, ",\n{\"ph\":\"C\",\"pid\":%u,\"tid\":%u,", pid_of(k, process), process);
    put_ts(k, time);
    fputs(",\"name\":", k->f);
    vftr_json_string(k->f, name);
    fprintf(k->f, ",\"args\":{\"value\":%" PRIu64 "}}", value);
    return check(k);
}

static void release(struct json_sink *k)
{
    vftr_u64map_release(&k->pid);
    free(k->flows);
    free(k->path);
    free(k);
}

static int j_close(void *impl, char *err, size_t errlen)
{
    struct json_sink *k = impl;
    int rc = 0;

    fputs("\n]}\n", k->f);
    rc = vftr_sink_file_finish(k->f, k->path, rc, NULL, err, errlen);
    release(k);
    return rc;
}

static void j_abort(void *impl)
{
    struct json_sink *k = impl;

    vftr_sink_file_drop(k->f, k->path);
    release(k);
}

static const char *j_why(void *impl)
{
    return ((struct json_sink *)impl)->why;
}

static const struct vftr_sink_ops json_ops = { j_close, j_abort, j_why };

int vftr_sink_open_json(struct vftr_sink **out, const char *path, struct vftr_source *src,
                        const struct vftr_sink_opts *o, char *err, size_t errlen)
{
    struct json_sink *k = calloc(1, sizeof *k);
    const struct vftr_window_handler h = {
        .enter = j_enter, .leave = j_leave, .send = j_send, .recv = j_recv,
        .coll_begin = j_coll_begin, .coll_end = j_coll_end, .counter = j_counter,
    };
    const struct vftr_source_info *si = vftr_source_info(src);
    size_t np;
    const struct vftr_source_proc *p = vftr_source_procs(src, &np);
    int rc;

    if (!k || !(k->path = strdup(path))) {
        free(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    k->src = src;
    k->first = si->first;
    k->resolution = si->resolution ? si->resolution : 1000000000u;
    k->warn = o->warn;
    k->prog = o->prog ? o->prog : "vftr";
    k->warn_bytes = o->json_warn_bytes ? o->json_warn_bytes : WARN_BYTES;
    k->f = fopen(path, "w");
    if (!k->f) {
        rc = vftr_errmsg(err, errlen, -errno, "%s: cannot open for writing (%s)", path,
                         strerror(errno));
        release(k);
        return rc;
    }
    setvbuf(k->f, NULL, _IOFBF, 1u << 20);
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"creator\":\"vftr\"},\"traceEvents\":[\n"
          "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"trace_start\",\"args\":{\"ticks\":", k->f);
    fprintf(k->f, "%" PRIu64 ",\"ticks_per_second\":%" PRIu64 "}}", k->first, k->resolution);
    /* a JSON process per rank (the model numbers ranks from 0) */
    for (size_t i = 0; i < np; i++) {
        if (vftr_u64map_put(&k->pid, p[i].token, p[i].rank) < 0) {
            j_abort(k);
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        }
        if (p[i].thread == 0) {
            fprintf(k->f, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_name\","
                    "\"args\":{\"name\":", p[i].rank);
            vftr_json_string(k->f, p[i].name);
            fprintf(k->f, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":"
                    "\"process_sort_index\",\"args\":{\"sort_index\":%u}}", p[i].rank, p[i].rank);
        }
        fprintf(k->f, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\","
                "\"args\":{\"name\":", p[i].rank, p[i].token);
        vftr_json_string(k->f, p[i].name);
        fputs("}}", k->f);
    }
    *out = vftr_sink_new(&json_ops, k, &h);
    if (!*out) {
        j_abort(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    return 0;
}
