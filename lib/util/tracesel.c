/*
 * tracesel.c — trace name, time base and process selection for the tools
 * (see tracesel.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>

#include <sys/stat.h>

#include "errmsg.h"
#include "regfile.h"
#include "tracesel.h"

/* The OTF library's last message as one line: the reference library spreads
 * it over several lines with a trailing newline, which would break our
 * one-line messages.  `size` must be > 0. */
static void otf_message(char *buf, size_t size)
{
    size_t n = 0;
    int pending_blank = 0;

    for (const char *s = otf_strerr; *s && n + 1 < size; s++) {
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
            pending_blank = n > 0;
            continue;
        }
        if (pending_blank) {
            if (n + 2 >= size)
                break;
            buf[n++] = ' ';
            pending_blank = 0;
        }
        buf[n++] = *s;
    }
    buf[n] = '\0';
    if (n == 0)
        snprintf(buf, size, "unknown error");
}

char *vftr_trace_namestub(const char *arg)
{
    size_t len = strlen(arg);
    char *stub;

    if (len > 4 && strcmp(arg + len - 4, ".otf") == 0)
        len -= 4;
    stub = malloc(len + 1);
    if (!stub) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(stub, arg, len);
    stub[len] = '\0';
    return stub;
}

/*
 * The files of every stream the master control lists (and of stream 0):
 * each one that exists must be a regular file — a FIFO or a device there
 * would leave the reader waiting or reading nothing — and at least one
 * definitions file must exist: without one the trace has no timer
 * resolution and no names, and a tool would only find out later and
 * misleadingly (a time with a unit "cannot be converted").  0, or -errno
 * with the file named in msg.
 */
static int check_files(const char *namestub, OTF_Reader *reader, char *msg, size_t len)
{
    static const OTF_FileType types[] = { OTF_FILETYPE_DEF, OTF_FILETYPE_EVENT,
                                          OTF_FILETYPE_SNAPS, OTF_FILETYPE_STATS,
                                          OTF_FILETYPE_MARKER };
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(reader);
    uint32_t n = mc ? OTF_MasterControl_getCount(mc) : 0;
    char name[4096];
    int have_defs = 0;

    for (uint32_t i = 0; i <= n; i++) {
        OTF_MapEntry *entry = i ? OTF_MasterControl_getEntryByIndex(mc, i - 1) : NULL;
        uint32_t id = entry ? entry->argument : 0;

        if (i && !entry)
            continue;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (int z = 0; z < 2; z++) {
                struct stat sb;

                if (!OTF_getFilename(namestub, id, types[t] | (z ? OTF_FILECOMPRESSION_COMPRESSED
                                                                 : 0), sizeof name, name) ||
                    stat(name, &sb) != 0)
                    continue;
                if (!S_ISREG(sb.st_mode)) {
                    snprintf(msg, len, "%.400s: is %s, expected a regular file", name,
                             vftr_file_kind(sb.st_mode));
                    return S_ISDIR(sb.st_mode) ? -EISDIR : -ENODEV;
                }
                have_defs |= types[t] == OTF_FILETYPE_DEF;
            }
    }
    if (!have_defs) {
        OTF_getFilename(namestub, 0, OTF_FILETYPE_DEF, sizeof name, name);
        snprintf(msg, len, "%.200s: no such file (nor %.200s.z): the trace's definitions "
                 "are missing", name, name);
        return -ENOENT;
    }
    return 0;
}

OTF_Reader *vftr_trace_open(const char *namestub, OTF_FileManager *manager, char *err,
                            size_t errlen)
{
    char msg[VFTR_ERRMSG_MAX];
    OTF_Reader *reader = OTF_Reader_open(namestub, manager);
    int rc;

    if (reader && (rc = check_files(namestub, reader, msg, sizeof msg)) < 0) {
        OTF_Reader_close(reader);
        vftr_errmsg(err, errlen, 0, "cannot open trace (%s)", msg);
        errno = -rc;
        return NULL;
    }
    if (reader)
        return reader;
    /* The commonest cause is a wrong name; say so plainly instead of
     * passing on the library's account of its master-file parser. */
    size_t len = strlen(namestub);
    char *master = malloc(len + 5);
    if (master) {
        memcpy(master, namestub, len);
        memcpy(master + len, ".otf", 5);
        if (access(master, R_OK) != 0)
            snprintf(msg, sizeof msg, "%s", strerror(errno));
        else
            otf_message(msg, sizeof msg);
        free(master);
    } else {
        otf_message(msg, sizeof msg);
    }
    vftr_errmsg(err, errlen, 0, "cannot open trace (%s)", msg);
    errno = EIO;
    return NULL;
}

struct defs_seen {
    uint64_t resolution;
    uint64_t first;
    int have_resolution;
    int have_range;
};

static int on_resolution(void *user, uint32_t stream, uint64_t ticks_per_second,
                         OTF_KeyValueList *kv)
{
    struct defs_seen *seen = user;

    (void)stream;
    (void)kv;
    /* Global definitions come first; a local redefinition does not win. */
    if (!seen->have_resolution) {
        seen->resolution = ticks_per_second;
        seen->have_resolution = 1;
    }
    return OTF_RETURN_OK;
}

static int on_timerange(void *user, uint32_t stream, uint64_t min_time, uint64_t max_time,
                        OTF_KeyValueList *kv)
{
    struct defs_seen *seen = user;

    (void)stream;
    (void)max_time;
    (void)kv;
    /* Streams may each declare their own range: the trace starts at the
     * earliest of them. */
    if (!seen->have_range || min_time < seen->first)
        seen->first = min_time;
    seen->have_range = 1;
    return OTF_RETURN_OK;
}

/*
 * The earliest time stamp of all event files, or 0 if there are none.  Each
 * stream's event buffer knows the first time stamp of its file (the reader
 * needs it for its binary search); opening the streams one by one and asking
 * them costs one small read per stream and needs no handler for every event
 * type.  Streams whose file is missing or unreadable are skipped: their
 * events cannot be read either.
 */
int vftr_trace_event_span(const char *namestub, OTF_FileManager *manager, OTF_Reader *reader,
                          uint64_t *first, uint64_t *last)
{
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(reader);
    uint32_t nstreams = mc ? OTF_MasterControl_getCount(mc) : 0;
    int found = 0;

    *first = *last = 0;
    for (uint32_t i = 0; i < nstreams; i++) {
        OTF_MapEntry *entry = OTF_MasterControl_getEntryByIndex(mc, i);
        OTF_RStream *stream;
        OTF_RBuffer *events;

        if (!entry || !(stream = OTF_RStream_open(namestub, entry->argument, manager)))
            continue;
        events = OTF_RStream_getEventBuffer(stream);
        if (events && OTF_RBuffer_getFileProperties(events)) {
            if (!found || events->firstTime < *first)
                *first = events->firstTime;
            if (!found || events->lastTime > *last)
                *last = events->lastTime;
            found = 1;
        }
        OTF_RStream_close(stream);
    }
    return found;
}

/*
 * OTF stores every handler as OTF_FunctionPointer and calls it with its real
 * type.  Going through void (*)(void) states that the conversion is meant
 * (and keeps gcc's -Wcast-function-type quiet).
 */
#define HANDLER(fn) ((OTF_FunctionPointer *)(void (*)(void))(fn))

int vftr_trace_timebase(const char *namestub, OTF_FileManager *manager,
                        struct vftr_timebase *base, char *err, size_t errlen)
{
    struct defs_seen seen = { 0, 0, 0, 0 };
    char msg[VFTR_ERRMSG_MAX];
    OTF_HandlerArray *handlers = NULL;
    OTF_Reader *reader;
    int rc = 0;

    reader = vftr_trace_open(namestub, manager, err, errlen);
    if (!reader)
        return -EIO;
    handlers = OTF_HandlerArray_open();
    if (!handlers) {
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        goto out;
    }
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_resolution), OTF_DEFTIMERRESOLUTION_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &seen, OTF_DEFTIMERRESOLUTION_RECORD);
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_timerange), OTF_DEFTIMERANGE_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &seen, OTF_DEFTIMERANGE_RECORD);

    if (OTF_Reader_readDefinitions(reader, handlers) == OTF_READ_ERROR) {
        otf_message(msg, sizeof msg);
        rc = vftr_errmsg(err, errlen, -EIO, "cannot read definitions (%s)", msg);
        goto out;
    }

    if (!seen.have_range) {
        uint64_t last;

        (void)vftr_trace_event_span(namestub, manager, reader, &seen.first, &last);
    }
    base->resolution = seen.resolution;
    base->first = seen.first;

out:
    if (handlers)
        OTF_HandlerArray_close(handlers);
    OTF_Reader_close(reader);
    return rc;
}

long vftr_trace_select_processes(OTF_Reader *reader, const struct vftr_proclist *list,
                                 char *err, size_t errlen)
{
    OTF_MasterControl *mc = OTF_Reader_getMasterControl(reader);
    char msg[VFTR_ERRMSG_MAX];
    long enabled = 0;

    if (!mc || !OTF_Reader_setProcessStatusAll(reader, 0)) {
        otf_message(msg, sizeof msg);
        return vftr_errmsg(err, errlen, -EIO, "cannot select processes (%s)", msg);
    }
    /* Walk the processes the trace has rather than the list: a list such as
     * 1-4000000000 must not turn into four billion calls. */
    uint32_t nstreams = OTF_MasterControl_getCount(mc);
    for (uint32_t i = 0; i < nstreams; i++) {
        OTF_MapEntry *entry = OTF_MasterControl_getEntryByIndex(mc, i);
        if (!entry)
            continue;
        for (uint32_t k = 0; k < entry->n; k++) {
            uint32_t process = entry->values[k];
            if (!vftr_proclist_contains(list, process))
                continue;
            if (!OTF_Reader_setProcessStatus(reader, process, 1)) {
                otf_message(msg, sizeof msg);
                return vftr_errmsg(err, errlen, -EIO, "cannot enable process %u (%s)",
                                   (unsigned)process, msg);
            }
            enabled++;
        }
    }
    if (enabled == 0) {
        char procs[128];
        size_t len = vftr_proclist_format(list, procs, sizeof procs);
        vftr_errmsg(err, errlen, 0, "none of the processes %s%s is in the trace", procs,
                    len >= sizeof procs ? "..." : "");
    }
    return enabled;
}

/* Skips blanks. */
static const char *blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A decimal number below 2^32 at *s; advances *s.  0 or -1. */
static int number(const char **s, uint32_t *v)
{
    uint64_t x = 0;
    const char *p = *s;

    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((x = x * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
            return -1;
    *v = (uint32_t)x;
    *s = p;
    return 0;
}

/* "N" or "N-M" at *s (blanks allowed around '-'). */
static int number_range(const char **s, uint32_t *first, uint32_t *last)
{
    const char *p = *s;

    if (number(&p, first) < 0)
        return -1;
    *last = *first;
    if (*blanks(p) == '-') {
        p = blanks(blanks(p) + 1);
        if (number(&p, last) < 0 || *last < *first)
            return -1;
    }
    *s = p;
    return 0;
}

/* Does the word `w` (case ignored) start s, followed by a blank or a digit? */
static int word(const char **s, const char *w)
{
    size_t n = strlen(w);

    if (strncasecmp(*s, w, n) != 0 || !(*s)[n] ||
        !((*s)[n] == ' ' || (*s)[n] == '\t' || ((*s)[n] >= '0' && (*s)[n] <= '9')))
        return 0;
    *s = blanks(*s + n);
    return 1;
}

/* One item "rank A[-B] [thread C[-D]]" (item is NUL-terminated, trimmed). */
static int parse_rank_item(const char *item, struct vftr_ranksel *r, char *err, size_t errlen)
{
    const char *p = item;

    memset(r, 0, sizeof *r);
    snprintf(r->text, sizeof r->text, "%s", item);
    r->thread_last = UINT32_MAX;
    if (!word(&p, "rank") || number_range(&p, &r->rank_first, &r->rank_last) < 0)
        goto bad;
    p = blanks(p);
    if (*p) {
        if (!word(&p, "thread") || number_range(&p, &r->thread_first, &r->thread_last) < 0 ||
            *blanks(p))
            goto bad;
    }
    return 0;
bad:
    return vftr_errmsg(err, errlen, -EINVAL, "bad process '%.64s': expected 'rank N' or "
                       "'rank N thread T' (numbers from 0, N-M for a range) or process "
                       "tokens such as 1-4,9", item);
}

int vftr_tracesel_opt_process(void *dest, const char *arg, char *err, size_t errlen)
{
    struct vftr_tracesel *sel = dest;
    struct vftr_proclist tokens = VFTR_PROCLIST_INIT;
    struct vftr_ranksel *ranks = NULL;
    size_t nranks = 0, len = strlen(arg);
    char *copy = malloc(len + 1), *tok, *save = NULL;
    int rc = 0, any_token = 0;

    if (!copy)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    /* Rank names and tokens may be mixed: each comma-separated item is
     * one or the other; tokens go through proclist's parser one by one so
     * that its messages stay the same. */
    memcpy(copy, arg, len + 1);
    for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        char *item = (char *)blanks(tok), *end = item + strlen(item);

        while (end > item && (end[-1] == ' ' || end[-1] == '\t'))
            *--end = '\0';
        if (strncasecmp(item, "rank", 4) == 0) {
            struct vftr_ranksel *v = realloc(ranks, (nranks + 1) * sizeof *v);

            if (!v) {
                rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
                break;
            }
            ranks = v;
            rc = parse_rank_item(item, &ranks[nranks], err, errlen);
            if (!rc)
                nranks++;
        } else {
            any_token = 1;
        }
    }
    /* tokens: the whole list when it has no rank names (the messages of
     * proclist.h quote it whole), else item by item */
    if (!rc && any_token && nranks == 0) {
        rc = vftr_proclist_parse(&tokens, arg, err, errlen);
    } else if (!rc && any_token) {
        memcpy(copy, arg, len + 1);
        save = NULL;
        for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
            if (strncasecmp(blanks(tok), "rank", 4) != 0)
                rc = vftr_proclist_parse(&tokens, tok, err, errlen);
    } else if (!rc && nranks == 0) {
        rc = vftr_proclist_parse(&tokens, arg, err, errlen);    /* "", ",": its message */
    }
    free(copy);
    if (!rc && tokens.nranges) {
        for (size_t i = 0; i < tokens.nranges && !rc; i++)
            rc = vftr_proclist_add(&sel->procs, tokens.ranges[i].first, tokens.ranges[i].last);
        if (rc)
            rc = vftr_errmsg(err, errlen, rc, "out of memory");
    }
    if (!rc && nranks) {
        struct vftr_ranksel *v = realloc(sel->ranks, (sel->nranks + nranks) * sizeof *v);

        if (!v) {
            rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        } else {
            memcpy(v + sel->nranks, ranks, nranks * sizeof *v);
            sel->ranks = v;
            sel->nranks += nranks;
        }
    }
    vftr_proclist_release(&tokens);
    free(ranks);
    if (rc == 0)
        sel->have_procs = 1;
    return rc;
}

int vftr_tracesel_resolve(struct vftr_tracesel *sel, const struct vftr_procid *ids, size_t n,
                          char *err, size_t errlen)
{
    uint32_t maxrank = 0;

    for (size_t i = 0; i < n; i++)
        if (ids[i].rank > maxrank)
            maxrank = ids[i].rank;
    for (size_t k = 0; k < sel->nranks; k++) {
        const struct vftr_ranksel *r = &sel->ranks[k];
        size_t hits = 0;

        for (size_t i = 0; i < n; i++) {
            if (ids[i].rank < r->rank_first || ids[i].rank > r->rank_last ||
                ids[i].thread < r->thread_first || ids[i].thread > r->thread_last)
                continue;
            if (vftr_proclist_add(&sel->procs, ids[i].token, ids[i].token) < 0)
                return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
            hits++;
        }
        if (hits == 0) {
            if (n == 0)
                return vftr_errmsg(err, errlen, -ENOENT, "no %s in the trace (it has no "
                                   "processes)", r->text);
            return vftr_errmsg(err, errlen, -ENOENT, "no %s in the trace (it has rank%s 0%s%lu)",
                               r->text, maxrank ? "s" : "", maxrank ? "-" : "",
                               maxrank ? (unsigned long)maxrank : 0ul);
        }
    }
    free(sel->ranks);
    sel->ranks = NULL;
    sel->nranks = 0;
    return 0;
}

int vftr_tracesel_names_match(const struct vftr_tracesel *sel, uint32_t rank, uint32_t thread)
{
    for (size_t k = 0; k < sel->nranks; k++) {
        const struct vftr_ranksel *r = &sel->ranks[k];

        if (rank >= r->rank_first && rank <= r->rank_last && thread >= r->thread_first &&
            thread <= r->thread_last)
            return 1;
    }
    return 0;
}

int vftr_tracesel_opt_time(void *dest, const char *arg, char *err, size_t errlen)
{
    /* any resolution will do for the syntax; overflow depends on the real one */
    static const struct vftr_timebase any = { 1000000000u, 0 };
    struct vftr_tracesel *sel = dest;
    struct vftr_timerange range;
    int rc = vftr_timerange_parse(arg, &any, &range, err, errlen);

    if (rc == -ERANGE)
        rc = 0;
    if (rc == 0)
        sel->window = arg;
    return rc;
}

/* The processes of a trace's definitions, for rank names. */
struct procdefs {
    struct vftr_procid *ids;
    uint32_t *parents;
    size_t n, cap;
    int nomem;
};

static int on_process(void *user, uint32_t stream, uint32_t process, const char *name,
                      uint32_t parent, OTF_KeyValueList *kv)
{
    struct procdefs *d = user;

    (void)stream;
    (void)name;
    (void)kv;
    for (size_t i = 0; i < d->n; i++)
        if (d->ids[i].token == process)
            return OTF_RETURN_OK;        /* a local redefinition */
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        struct vftr_procid *ids = realloc(d->ids, cap * sizeof *ids);
        uint32_t *parents = ids ? realloc(d->parents, cap * sizeof *parents) : NULL;

        if (ids)
            d->ids = ids;
        if (!ids || !parents) {
            d->nomem = 1;
            return OTF_RETURN_ABORT;
        }
        d->parents = parents;
        d->cap = cap;
    }
    d->ids[d->n] = (struct vftr_procid){ process, 0, 0 };
    d->parents[d->n++] = parent;
    return OTF_RETURN_OK;
}

/* Turns the rank names of sel into tokens of *procs (a copy of sel's),
 * reading the trace's DefProcess records. */
static int resolve_from_defs(const struct vftr_tracesel *sel, const char *namestub,
                             OTF_FileManager *manager, struct vftr_tracesel *out, char *err,
                             size_t errlen)
{
    struct procdefs d = { NULL, NULL, 0, 0, 0 };
    OTF_HandlerArray *handlers = OTF_HandlerArray_open();
    OTF_Reader *reader = NULL;
    char msg[VFTR_ERRMSG_MAX];
    int rc = 0;

    if (!handlers)
        return vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    reader = vftr_trace_open(namestub, manager, err, errlen);
    if (!reader) {
        OTF_HandlerArray_close(handlers);
        return -EIO;
    }
    OTF_HandlerArray_setHandler(handlers, HANDLER(on_process), OTF_DEFPROCESS_RECORD);
    OTF_HandlerArray_setFirstHandlerArg(handlers, &d, OTF_DEFPROCESS_RECORD);
    if (OTF_Reader_readDefinitions(reader, handlers) == OTF_READ_ERROR && !d.nomem) {
        otf_message(msg, sizeof msg);
        rc = vftr_errmsg(err, errlen, -EIO, "cannot read definitions (%s)", msg);
    } else if (d.nomem || vftr_procids_number(d.ids, d.parents, d.n) < 0) {
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    }
    OTF_HandlerArray_close(handlers);
    OTF_Reader_close(reader);
    if (!rc && vftr_proclist_copy(&out->procs, &sel->procs) < 0)
        rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
    if (!rc) {
        out->ranks = malloc(sel->nranks * sizeof *out->ranks);
        if (!out->ranks) {
            rc = vftr_errmsg(err, errlen, -ENOMEM, "out of memory");
        } else {
            memcpy(out->ranks, sel->ranks, sel->nranks * sizeof *out->ranks);
            out->nranks = sel->nranks;
            rc = vftr_tracesel_resolve(out, d.ids, d.n, err, errlen);
        }
    }
    free(d.ids);
    free(d.parents);
    return rc;
}

int vftr_tracesel_apply(const struct vftr_tracesel *sel, const char *namestub,
                        OTF_FileManager *manager, OTF_Reader *reader,
                        struct vftr_timerange *range, char *err, size_t errlen)
{
    struct vftr_timerange r = { 0, UINT64_MAX };
    struct vftr_tracesel named = VFTR_TRACESEL_INIT;

    if (sel->nranks) {
        int rc = resolve_from_defs(sel, namestub, manager, &named, err, errlen);

        if (rc < 0) {
            vftr_tracesel_release(&named);
            return rc;
        }
        named.have_procs = 1;
        named.window = sel->window;
        sel = &named;
    }

    if (sel->window) {
        struct vftr_timebase base;
        int rc = vftr_trace_timebase(namestub, manager, &base, err, errlen);

        if (rc < 0) {
            vftr_tracesel_release(&named);
            return rc == -EINVAL ? -EIO : rc;
        }
        if (vftr_timerange_parse(sel->window, &base, &r, err, errlen) < 0) {
            vftr_tracesel_release(&named);
            return -EINVAL;
        }
        OTF_Reader_setTimeInterval(reader, r.start, r.end);
    }
    if (sel->have_procs) {
        long n = vftr_trace_select_processes(reader, &sel->procs, err, errlen);

        vftr_tracesel_release(&named);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return -ENOENT;
    }
    if (range)
        *range = r;
    return 0;
}

void vftr_tracesel_release(struct vftr_tracesel *sel)
{
    if (sel) {
        vftr_proclist_release(&sel->procs);
        free(sel->ranks);
        sel->ranks = NULL;
        sel->nranks = 0;
        sel->have_procs = 0;
        sel->window = NULL;
    }
}

const char *vftr_trace_otf_reason(char *buf, size_t size)
{
    size_t n = 0;

    if (size == 0)
        return "unknown error";
    for (const char *s = otf_strerr; *s && n + 1 < size; s++) {
        char c = (*s == '\n' || *s == '\t') ? ' ' : *s;
        if (c == ' ' && (n == 0 || buf[n - 1] == ' '))
            continue;
        buf[n++] = c;
    }
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    return n ? buf : "unknown error";
}
