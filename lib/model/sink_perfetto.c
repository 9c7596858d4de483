/*
 * sink_perfetto.c — a Perfetto trace (protobuf, for ui.perfetto.dev and
 * trace_processor), encoded here from the field numbers of Perfetto's own
 * .proto files (protos/perfetto/trace/: trace.proto, trace_packet.proto,
 * clock_snapshot.proto, trace_packet_defaults.proto, interned_data/,
 * track_event/); no Perfetto code.
 *
 * Layout: a Trace is a sequence of field 1 (TracePacket).  Each model
 * process (a rank's own process or one of its threads) writes on a packet
 * sequence of its own (trusted_packet_sequence_id = its index + 1), which
 * starts with the incremental state cleared: TracePacketDefaults (the
 * thread's track as default track, clock 64 as the timestamp clock) and a
 * ClockSnapshot making clock 64 an incremental, sequence-scoped clock (each
 * timestamp a delta from the sequence's previous one; BOOTTIME 0 is the
 * trace's first time stamp).  Then:
 *   TrackDescriptor   a process track per rank (ProcessDescriptor pid =
 *                     rank index, its name), a thread track per process
 *                     (ThreadDescriptor pid, tid = token, name), counter
 *                     tracks (CounterDescriptor) and a "collectives" track
 *                     under a thread when it first needs them;
 *   TrackEvent        SLICE_BEGIN / SLICE_END for Enter / Leave, the
 *                     function's name interned per sequence (InternedData
 *                     event_names, iid = function token); a message as an
 *                     INSTANT "send" with a flow id and an INSTANT "recv"
 *                     that terminates it, debug annotations bytes, tag,
 *                     communicator and peer; a collective as a slice on the
 *                     thread's collectives track; counters as COUNTER events.
 * Streaming: nothing is kept but a few words per sequence, the names
 * interned so far and the messages in flight.  With compress > 0 the
 * packets go out in TracePacket.compressed_packets bundles (zlib, each
 * under Perfetto's 512 KiB limit), which trace_processor inflates.
 */
#include "sink_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "grow.h"
#include "messages.h"
#include "u64map.h"
#include "util/errmsg.h"

/* Field numbers (Perfetto's .proto files). */
enum {
    TRACE_PACKET = 1,                         /* Trace.packet */
    TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11, TP_INTERNED = 12,
    TP_SEQ_FLAGS = 13, TP_CLOCK_SNAPSHOT = 6, TP_COMPRESSED = 50, TP_DEFAULTS = 59,
    TP_TRACK_DESCRIPTOR = 60,
    TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK_UUID = 11, TE_NAME = 23, TE_COUNTER_VALUE = 30,
    TE_DEBUG = 4, TE_FLOW_IDS = 47, TE_TERMINATING_FLOW_IDS = 48, TE_CATEGORIES = 22,
    TD_UUID = 1, TD_PARENT = 5, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_COUNTER = 8,
    PD_PID = 1, PD_NAME = 6,
    THD_PID = 1, THD_TID = 2, THD_NAME = 5,
    CD_UNIT_NAME = 6,
    DEF_CLOCK_ID = 58, DEF_TRACK_EVENT = 11, TED_TRACK_UUID = 11,
    CS_CLOCKS = 1, CS_PRIMARY = 2, CL_ID = 1, CL_TIMESTAMP = 2, CL_INCREMENTAL = 3,
    ID_EVENT_NAMES = 2, EN_IID = 1, EN_NAME = 2,
    DA_NAME = 10, DA_UINT = 3, DA_STRING = 6,
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { CLOCK_BOOTTIME = 6, CLOCK_SEQ = 64 };
enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2 };

#define BUNDLE_LIMIT (384u << 10)             /* below 512 KiB compressed or not */

/* ------------------------------------------------------------ encoding */

struct pbuf {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

static void need(struct pbuf *b, size_t more)
{
    if (b->n + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;

    while (cap < b->n + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);

    if (!p) {
        b->oom = 1;
        b->n = 0;
        return;
    }
    b->p = p;
    b->cap = cap;
}

static inline void put_varint(struct pbuf *b, uint64_t v)
{
    need(b, 10);
    if (b->oom)
        return;
    while (v >= 0x80) {
        b->p[b->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->n++] = (uint8_t)v;
}

static inline void put_tag(struct pbuf *b, unsigned field, unsigned wt)
{
    put_varint(b, (uint64_t)field << 3 | wt);
}

static inline void put_uint(struct pbuf *b, unsigned field, uint64_t v)
{
    put_tag(b, field, WT_VARINT);
    put_varint(b, v);
}

static void put_bytes(struct pbuf *b, unsigned field, const void *p, size_t n)
{
    put_tag(b, field, WT_LEN);
    put_varint(b, n);
    need(b, n);
    if (!b->oom && n) {
        memcpy(b->p + b->n, p, n);
        b->n += n;
    }
}

static void put_str(struct pbuf *b, unsigned field, const char *s)
{
    put_bytes(b, field, s ? s : "", s ? strlen(s) : 0);
}

static void put_fixed64(struct pbuf *b, unsigned field, uint64_t v)
{
    put_tag(b, field, WT_FIXED64);
    need(b, 8);
    if (b->oom)
        return;
    for (int i = 0; i < 8; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

/* A nested message: its bytes from `sub`, which is then emptied. */
static void put_msg(struct pbuf *b, unsigned field, struct pbuf *sub)
{
    if (sub->oom)
        b->oom = 1;
    put_bytes(b, field, sub->p, sub->n);
    sub->n = 0;
}

/* ------------------------------------------------------------ the sink */

struct seq {
    uint32_t token;
    uint32_t id;                      /* trusted_packet_sequence_id */
    uint32_t pid;                     /* rank index */
    int started;
    int coll_track;                   /* its collectives track was described */
    uint64_t last;                    /* last timestamp (ns from the trace start) */
    struct vftr_u64map names;         /* functions interned on this sequence */
    struct vftr_u64map counters;      /* counter tracks described */
};

struct flow { uint32_t sender, receiver, comm, tag; uint64_t id; };

struct perfetto_sink {
    char *path;
    FILE *f;
    const struct vftr_source *src;
    uint64_t first, resolution;
    int compress;
    struct seq *seqs;
    size_t nseqs;
    struct vftr_u64map seqmap;        /* process token -> seq index */
    struct flow *flows;
    size_t nflows, capflows;
    uint64_t next_flow;
    struct pbuf pkt, te, sub, sub2, out;   /* scratch; out: the bundle being built */
    uint8_t *zbuf;
    size_t zcap;
    uint64_t bytes;
    char why[VFTR_ERRMSG_MAX];
};

static uint64_t ns_of(const struct perfetto_sink *k, uint64_t time)
{
    uint64_t t = time > k->first ? time - k->first : 0;

    if (k->resolution == 1000000000u)
        return t;
    return (uint64_t)((double)t * 1e9 / (double)k->resolution + 0.5);
}

static uint64_t track_process(uint32_t pid)
{
    return (1ull << 56) | pid;
}

static uint64_t track_thread(uint32_t token)
{
    return (2ull << 56) | token;
}

static uint64_t track_colls(uint32_t token)
{
    return (3ull << 56) | token;
}

static uint64_t track_counter(uint32_t token, uint32_t counter)
{
    return (4ull << 56) | ((uint64_t)token << 24) | (counter & 0xffffffu);
}

/* The varint length of v. */
static size_t varint_len(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static int flush_bundle(struct perfetto_sink *k)
{
    uLongf zl;

    if (k->out.n == 0)
        return 0;
    if (k->out.oom)
        return -ENOMEM;
    zl = compressBound((uLong)k->out.n);
    if (zl > k->zcap) {
        uint8_t *z = realloc(k->zbuf, zl);

        if (!z)
            return -ENOMEM;
        k->zbuf = z;
        k->zcap = zl;
    }
    if (compress2(k->zbuf, &zl, k->out.p, (uLong)k->out.n, k->compress) != Z_OK)
        return -EIO;
    k->out.n = 0;
    {
        struct pbuf hdr = { 0 };

        put_tag(&hdr, TRACE_PACKET, WT_LEN);
        put_varint(&hdr, varint_len((uint64_t)TP_COMPRESSED << 3 | WT_LEN) + varint_len(zl) + zl);
        put_tag(&hdr, TP_COMPRESSED, WT_LEN);
        put_varint(&hdr, zl);
        if (hdr.oom || fwrite(hdr.p, 1, hdr.n, k->f) != hdr.n ||
            fwrite(k->zbuf, 1, zl, k->f) != zl) {
            free(hdr.p);
            return -EIO;
        }
        k->bytes += hdr.n + zl;
        free(hdr.p);
    }
    return 0;
}

/* Emits k->pkt as one TracePacket. */
static int emit(struct perfetto_sink *k)
{
    struct pbuf *o = k->compress ? &k->out : NULL;
    uint8_t hdr[12];
    size_t h = 0;
    uint64_t v = k->pkt.n;

    if (k->pkt.oom)
        return -ENOMEM;
    hdr[h++] = TRACE_PACKET << 3 | WT_LEN;
    while (v >= 0x80) {
        hdr[h++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    hdr[h++] = (uint8_t)v;
    if (o) {
        if (o->n + h + k->pkt.n > BUNDLE_LIMIT) {
            int rc = flush_bundle(k);

            if (rc < 0)
                return rc;
        }
        need(o, h + k->pkt.n);
        if (o->oom)
            return -ENOMEM;
        memcpy(o->p + o->n, hdr, h);
        memcpy(o->p + o->n + h, k->pkt.p, k->pkt.n);
        o->n += h + k->pkt.n;
    } else if (fwrite(hdr, 1, h, k->f) != h || fwrite(k->pkt.p, 1, k->pkt.n, k->f) != k->pkt.n) {
        snprintf(k->why, sizeof k->why, "%s: write error (%s)", k->path, strerror(errno));
        return -EIO;
    } else {
        k->bytes += h + k->pkt.n;
    }
    k->pkt.n = 0;
    return 0;
}

/* A TrackDescriptor packet on sequence s (the descriptor is in k->sub). */
static int emit_descriptor(struct perfetto_sink *k, const struct seq *s)
{
    put_uint(&k->pkt, TP_SEQ_ID, s->id);
    put_msg(&k->pkt, TP_TRACK_DESCRIPTOR, &k->sub);
    return emit(k);
}

/* The first packets of a sequence: state cleared, defaults, the clock, the
 * thread's track (and the rank's, on the rank's own sequence). */
static int start_seq(struct perfetto_sink *k, struct seq *s)
{
    const struct vftr_source_proc *p = vftr_source_proc(k->src, s->token);
    int rc;

    s->started = 1;
    put_uint(&k->pkt, TP_SEQ_ID, s->id);
    put_uint(&k->pkt, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
    put_uint(&k->sub, DEF_CLOCK_ID, CLOCK_SEQ);
    put_uint(&k->sub2, TED_TRACK_UUID, track_thread(s->token));
    put_msg(&k->sub, DEF_TRACK_EVENT, &k->sub2);
    put_msg(&k->pkt, TP_DEFAULTS, &k->sub);
    /* ClockSnapshot: clocks { BOOTTIME 0 } clocks { 64 at 0, incremental } */
    put_uint(&k->sub2, CL_ID, CLOCK_BOOTTIME);
    put_uint(&k->sub2, CL_TIMESTAMP, 0);
    put_msg(&k->sub, CS_CLOCKS, &k->sub2);
    put_uint(&k->sub2, CL_ID, CLOCK_SEQ);
    put_uint(&k->sub2, CL_TIMESTAMP, 0);
    put_uint(&k->sub2, CL_INCREMENTAL, 1);
    put_msg(&k->sub, CS_CLOCKS, &k->sub2);
    put_msg(&k->pkt, TP_CLOCK_SNAPSHOT, &k->sub);
    if ((rc = emit(k)) < 0)
        return rc;
    s->last = 0;
    if (p && p->thread == 0) {
        put_uint(&k->sub, TD_UUID, track_process(s->pid));
        put_uint(&k->sub2, PD_PID, s->pid);
        put_str(&k->sub2, PD_NAME, p->name);
        put_msg(&k->sub, TD_PROCESS, &k->sub2);
        if ((rc = emit_descriptor(k, s)) < 0)
            return rc;
    }
    put_uint(&k->sub, TD_UUID, track_thread(s->token));
    put_uint(&k->sub, TD_PARENT, track_process(s->pid));
    put_uint(&k->sub2, THD_PID, s->pid);
    put_uint(&k->sub2, THD_TID, s->token);
    put_str(&k->sub2, THD_NAME, p ? p->name : "");
    put_msg(&k->sub, TD_THREAD, &k->sub2);
    return emit_descriptor(k, s);
}

static struct seq *seq_of(struct perfetto_sink *k, uint32_t process)
{
    long i = vftr_u64map_get(&k->seqmap, process);
    struct seq *s;

    if (i < 0)
        return NULL;
    s = &k->seqs[i];
    if (!s->started && start_seq(k, s) < 0)
        return NULL;
    return s;
}

/* The packet header of an event on s at time (k->te holds the event). */
static int emit_event(struct perfetto_sink *k, struct seq *s, uint64_t time)
{
    uint64_t t = ns_of(k, time);

    if (t < s->last)
        t = s->last;                  /* a clock that went back: held */
    put_uint(&k->pkt, TP_TIMESTAMP, t - s->last);
    s->last = t;
    put_uint(&k->pkt, TP_SEQ_ID, s->id);
    put_uint(&k->pkt, TP_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
    put_msg(&k->pkt, TP_TRACK_EVENT, &k->te);
    return emit(k);
}

static int fail_seq(struct perfetto_sink *k)
{
    if (!k->why[0])
        snprintf(k->why, sizeof k->why, "%s: cannot write a packet (out of memory or disk)",
                 k->path);
    return -EIO;
}

static int p_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct perfetto_sink *k = arg;
    struct seq *s = seq_of(k, process);

    if (!s)
        return vftr_u64map_get(&k->seqmap, process) < 0 ? 0 : fail_seq(k);
    if (vftr_u64map_get(&s->names, function) < 0) {
        /* the name, interned on this sequence with the first use */
        if (vftr_u64map_put(&s->names, function, 0) < 0)
            return -ENOMEM;
        put_uint(&k->sub2, EN_IID, function);
        put_str(&k->sub2, EN_NAME, vftr_sink_func_name(k->src, function));
        put_msg(&k->sub, ID_EVENT_NAMES, &k->sub2);
        put_msg(&k->pkt, TP_INTERNED, &k->sub);
    }
    put_uint(&k->te, TE_TYPE, TYPE_SLICE_BEGIN);
    put_uint(&k->te, TE_NAME_IID, function);
    return emit_event(k, s, time);
}

static int p_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct perfetto_sink *k = arg;
    struct seq *s = seq_of(k, process);

    (void)function;
    if (!s)
        return vftr_u64map_get(&k->seqmap, process) < 0 ? 0 : fail_seq(k);
    put_uint(&k->te, TE_TYPE, TYPE_SLICE_END);
    return emit_event(k, s, time);
}

static void annotate_uint(struct perfetto_sink *k, const char *name, uint64_t v)
{
    put_str(&k->sub, DA_NAME, name);
    put_uint(&k->sub, DA_UINT, v);
    put_msg(&k->te, TE_DEBUG, &k->sub);
}

static void annotate_comm(struct perfetto_sink *k, uint32_t comm)
{
    const struct vftr_source_comm *c = vftr_source_comm(k->src, comm);

    if (!c) {
        annotate_uint(k, "comm", comm);
        return;
    }
    put_str(&k->sub, DA_NAME, "comm");
    put_str(&k->sub, DA_STRING, c->name);
    put_msg(&k->te, TE_DEBUG, &k->sub);
}

static int p_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct perfetto_sink *k = arg;
    struct seq *s = seq_of(k, sender);

    if (!s)
        return vftr_u64map_get(&k->seqmap, sender) < 0 ? 0 : fail_seq(k);
    if (vftr_reserve((void **)&k->flows, &k->capflows, k->nflows, sizeof *k->flows) < 0)
        return -ENOMEM;
    k->flows[k->nflows++] = (struct flow){ sender, receiver, comm, tag, ++k->next_flow };
    put_uint(&k->te, TE_TYPE, TYPE_INSTANT);
    put_str(&k->te, TE_NAME, "send");
    annotate_uint(k, "bytes", length);
    annotate_uint(k, "tag", tag);
    annotate_comm(k, comm);
    annotate_uint(k, "to", receiver);
    put_fixed64(&k->te, TE_FLOW_IDS, k->next_flow);
    return emit_event(k, s, time);
}

static int p_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct perfetto_sink *k = arg;
    struct seq *s = seq_of(k, receiver);
    uint64_t id = 0;

    if (!s)
        return vftr_u64map_get(&k->seqmap, receiver) < 0 ? 0 : fail_seq(k);
    for (size_t i = 0; i < k->nflows; i++) {
        const struct flow *m = &k->flows[i];

        /* the oldest send of its channel that it and the send admit
         * (messages.h: a peer named by its rank stands for any thread) */
        if (m->comm == comm && m->tag == tag &&
            vftr_messages_admits(vftr_source_peer_ranks(k->src), (void *)k->src, m->receiver,
                                 receiver) &&
            vftr_messages_admits(vftr_source_peer_ranks(k->src), (void *)k->src, sender,
                                 m->sender)) {
            id = m->id;
            memmove(&k->flows[i], &k->flows[i + 1], (k->nflows - i - 1) * sizeof *k->flows);
            k->nflows--;
            break;
        }
    }
    put_uint(&k->te, TE_TYPE, TYPE_INSTANT);
    put_str(&k->te, TE_NAME, "recv");
    annotate_uint(k, "bytes", length);
    annotate_uint(k, "tag", tag);
    annotate_comm(k, comm);
    annotate_uint(k, "from", sender);
    if (id)
        put_fixed64(&k->te, TE_TERMINATING_FLOW_IDS, id);
    return emit_event(k, s, time);
}

static int p_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t match,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct perfetto_sink *k = arg;
    struct seq *s = seq_of(k, process);
    const char *name = vftr_source_collop_name(k->src, op);
    int rc;

    if (!s)
        return vftr_u64map_get(&k->seqmap, process) < 0 ? 0 : fail_seq(k);
    if (!s->coll_track) {
        s->coll_track = 1;
        put_uint(&k->sub, TD_UUID, track_colls(process));
        put_uint(&k->sub, TD_PARENT, track_thread(process));
        put_str(&k->sub, TD_NAME, "MPI collectives");
        if ((rc = emit_descriptor(k, s)) < 0)
            return rc;
    }
    put_uint(&k->te, TE_TYPE, TYPE_SLICE_BEGIN);
    put_uint(&k->te, TE_TRACK_UUID, track_colls(process));
    put_str(&k->te, TE_NAME, name ? name : "collective");
    annotate_uint(k, "sent", sent);
    annotate_uint(k, "received", received);
    annotate_comm(k, comm);
    if (root)
        annotate_uint(k, "root", root);
    annotate_uint(k, "match", match);
    return emit_event(k, s, time);
}

static int p_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t match)
{
    struct perfetto_sink *k = arg;
    struct seq *s = seq_of(k, process);

    (void)match;
    if (!s)
        return vftr_u64map_get(&k->seqmap, process) < 0 ? 0 : fail_seq(k);
    put_uint(&k->te, TE_TYPE, TYPE_SLICE_END);
    put_uint(&k->te, TE_TRACK_UUID, track_colls(process));
    return emit_event(k, s, time);
}

static int p_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value)
{
    struct perfetto_sink *k = arg;
    struct seq *s = seq_of(k, process);
    int rc;

    if (!s)
        return vftr_u64map_get(&k->seqmap, process) < 0 ? 0 : fail_seq(k);
    if (vftr_u64map_get(&s->counters, counter) < 0) {
        size_t n;
        const struct vftr_source_counter *c = vftr_source_counters(k->src, &n);
        const char *name = "counter", *unit = NULL;

        for (size_t i = 0; i < n; i++)
            if (c[i].token == counter) {
                name = c[i].name;
                unit = c[i].unit;
            }
        if (vftr_u64map_put(&s->counters, counter, 0) < 0)
            return -ENOMEM;
        put_uint(&k->sub, TD_UUID, track_counter(process, counter));
        put_uint(&k->sub, TD_PARENT, track_thread(process));
        put_str(&k->sub, TD_NAME, name);
        if (unit && *unit)
            put_str(&k->sub2, CD_UNIT_NAME, unit);
        put_msg(&k->sub, TD_COUNTER, &k->sub2);
        if ((rc = emit_descriptor(k, s)) < 0)
            return rc;
    }
    put_uint(&k->te, TE_TYPE, TYPE_COUNTER);
    put_uint(&k->te, TE_TRACK_UUID, track_counter(process, counter));
    put_uint(&k->te, TE_COUNTER_VALUE, value);
    return emit_event(k, s, time);
}

static void release(struct perfetto_sink *k)
{
    for (size_t i = 0; i < k->nseqs; i++) {
        vftr_u64map_release(&k->seqs[i].names);
        vftr_u64map_release(&k->seqs[i].counters);
    }
    free(k->seqs);
    vftr_u64map_release(&k->seqmap);
    free(k->flows);
    free(k->pkt.p);
    free(k->te.p);
    free(k->sub.p);
    free(k->sub2.p);
    free(k->out.p);
    free(k->zbuf);
    free(k->path);
    free(k);
}

static int p_close(void *impl, char *err, size_t errlen)
{
    struct perfetto_sink *k = impl;
    int rc = 0;

    /* every process gets its tracks, events or not */
    for (size_t i = 0; i < k->nseqs && rc == 0; i++)
        if (!k->seqs[i].started)
            rc = start_seq(k, &k->seqs[i]);
    if (rc == 0 && k->compress)
        rc = flush_bundle(k);
    rc = vftr_sink_file_finish(k->f, k->path, rc, k->why, err, errlen);
    release(k);
    return rc;
}

static void p_abort(void *impl)
{
    struct perfetto_sink *k = impl;

    vftr_sink_file_drop(k->f, k->path);
    release(k);
}

static const char *p_why(void *impl)
{
    return ((struct perfetto_sink *)impl)->why;
}

static const struct vftr_sink_ops perfetto_ops = { p_close, p_abort, p_why };

int vftr_sink_open_perfetto(struct vftr_sink **out, const char *path, struct vftr_source *src,
                            const struct vftr_sink_opts *o, char *err, size_t errlen)
{
    struct perfetto_sink *k = calloc(1, sizeof *k);
    const struct vftr_window_handler h = {
        .enter = p_enter, .leave = p_leave, .send = p_send, .recv = p_recv,
        .coll_begin = p_coll_begin, .coll_end = p_coll_end, .counter = p_counter,
    };
    const struct vftr_source_info *si = vftr_source_info(src);
    size_t np;
    const struct vftr_source_proc *p = vftr_source_procs(src, &np);
    int rc;

    if (!k || !(k->path = strdup(path)) || !(k->seqs = calloc(np ? np : 1, sizeof *k->seqs))) {
        if (k)
            release(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    k->src = src;
    k->first = si->first;
    k->resolution = si->resolution ? si->resolution : 1000000000u;
    k->compress = o->compress;
    for (size_t i = 0; i < np; i++) {
        k->seqs[i] = (struct seq){ .token = p[i].token, .id = (uint32_t)i + 1, .pid = p[i].rank };
        if (vftr_u64map_put(&k->seqmap, p[i].token, (uint32_t)i) < 0) {
            release(k);
            return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        }
    }
    k->nseqs = np;
    k->f = fopen(path, "wb");
    if (!k->f) {
        rc = vftr_errmsg(err, errlen, -errno, "%s: cannot open for writing (%s)", path,
                         strerror(errno));
        release(k);
        return rc;
    }
    setvbuf(k->f, NULL, _IOFBF, 1u << 20);
    *out = vftr_sink_new(&perfetto_ops, k, &h);
    if (!*out) {
        p_abort(k);
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    return 0;
}
