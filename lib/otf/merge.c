/*
 * merge.c — reading several trace files in time order (otf_read_internal.h).
 *
 * Each file is sorted by time on its own; a binary min-heap keyed by
 * (time of the pending line, file index) picks the next file.  A file keeps
 * the turn for as long as its time does not exceed the next file's, so in a
 * trace with long runs per stream the heap is touched once per run, not per
 * record.  Equal times go to the lower file index first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "otf_dispatch.h"
#include "otf_parsers.h"
#include "otf_kv_internal.h"
#include "otf_rbuf.h"
#include "otf_read_internal.h"

/* The rest of dispatch: comments, key-value lines, keywords glued to a tag,
 * unknown records.  Out of line: rare in event files. */
static int dispatch_slow(vftr_otf_parse* ps, OTF_HandlerArray* h, int filekind);

/* Handles the record line at ps->p (after its state lines): parses it and
 * calls its handler, or stores a key-value line, or skips a record without
 * handler, or passes an unknown record to OTF_UNKNOWN_RECORD.  The key-value
 * list is emptied after every record.  The usual records go through the
 * generated keyword switch inline; everything else through dispatch_slow. */
static inline VFTR_OTF_ALWAYS_INLINE int dispatch(vftr_otf_parse* ps, OTF_HandlerArray* h,
                                                  int filekind)
{
    char* kw = ps->p;
    if (OTF_UNLIKELY(kw == ps->end || (*kw == '\r' && kw + 1 == ps->end))) {
        vftr_otf_kv_clear(ps->kv);
        return VFTR_OTF_DISPATCH_SKIPPED;      /* empty line */
    }
    int known = dispatch_known(ps, h, filekind);
    if (OTF_LIKELY(known != DISPATCH_NOMATCH)) {
        vftr_otf_kv_clear(ps->kv);
        return known;
    }
    return dispatch_slow(ps, h, filekind);
}

static int dispatch_slow(vftr_otf_parse* ps, OTF_HandlerArray* h, int filekind)
{
    char* kw = ps->p;
    int index;
    size_t n = 0;
    if (*kw == '#') {
        /* event comment: "#"text"" or "#EVTCOMMENT "text"" */
        char* q = kw + 1;
        if (strncmp(q, "EVTCOMMENT", 10) == 0)
            q += 10;
        index = (filekind & VFTR_OTF_FILE_EVENT) ? EVENTCOMMENT_INDEX : -1;
        ps->p = q;
    } else if (kw[0] == 'K' && (!kw_upper(kw[1]) || (kw[1] == 'E' && kw[2] == 'Y' &&
                                                       !kw_upper(kw[3])))) {
        ps->p = kw + (kw_upper(kw[1]) ? 3 : 1);
        return vftr_otf_parse_kv(ps) ? VFTR_OTF_DISPATCH_KV : VFTR_OTF_PARSE_ERROR;
    } else {
        /* A short keyword may be glued to a tag ("LX3": Leave without a
         * function but with a source location). */
        index = lookup_keyword_loose(kw, filekind, &n);
        if (index >= 0)
            ps->p = kw + n;
    }
    int rc;
    if (OTF_UNLIKELY(index < 0)) {
        OTF_Handler_UnknownRecord* fn =
            VFTR_OTF_FNCAST(OTF_Handler_UnknownRecord*, h->pointer[OTF_UNKNOWN_RECORD]);
        if (fn == NULL) {
            rc = VFTR_OTF_DISPATCH_SKIPPED;
        } else {
            /* As OTF does: outside event files the record is passed without
             * the letter every record of that file starts with (D, M, T, S);
             * definitions carry time (uint64_t)-1 and process 0, markers
             * time 0 and process 0. */
            uint64_t t = ps->time;
            uint32_t p = ps->process;
            char* text = ps->line;
            char lead = 0;
            if (filekind & VFTR_OTF_FILE_DEF) {
                t = UINT64_MAX;
                p = 0;
                lead = 'D';
            } else if (filekind & VFTR_OTF_FILE_MARKER) {
                t = 0;
                p = 0;
                lead = 'M';
            } else if (filekind == VFTR_OTF_FILE_SNAP) {
                lead = 'T';
            } else if (filekind == VFTR_OTF_FILE_STAT) {
                lead = 'S';
            }
            if (lead && *text == lead)
                text++;
            *ps->end = '\0';
            rc = fn(h->firsthandlerarg[OTF_UNKNOWN_RECORD], t, p, text);
            *ps->end = '\n';
        }
    } else if (h->pointer[record_ids[index]] == NULL) {
        rc = VFTR_OTF_DISPATCH_SKIPPED;
    } else {
        rc = parsers[index](ps, h);
    }
    vftr_otf_kv_clear(ps->kv);
    return rc;
}

static int before(const vftr_otf_merge* m, uint32_t a, uint32_t b)
{
    uint64_t ta = m->cur[a].ps.time, tb = m->cur[b].ps.time;
    return ta < tb || (ta == tb && a < b);
}

static void sift_down(vftr_otf_merge* m, uint32_t i)
{
    uint32_t n = m->heapn;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < n && before(m, m->heap[l], m->heap[s]))
            s = l;
        if (r < n && before(m, m->heap[r], m->heap[s]))
            s = r;
        if (s == i)
            return;
        uint32_t t = m->heap[i];
        m->heap[i] = m->heap[s];
        m->heap[s] = t;
        i = s;
    }
}

int vftr_otf_merge_init(vftr_otf_merge* m, OTF_RBuffer** rbs, const uint32_t* streams,
                        uint32_t n, int filekind, uint64_t min, uint64_t max)
{
    memset(m, 0, sizeof *m);
    m->cur = calloc(n ? n : 1, sizeof *m->cur);
    m->heap = calloc(n ? n : 1, sizeof *m->heap);
    m->keys = calloc(n ? n : 1, sizeof *m->keys);
    if (m->cur == NULL || m->heap == NULL || m->keys == NULL) {
        free(m->cur);
        free(m->heap);
        free(m->keys);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (rbs[i] == NULL)
            continue;
        vftr_otf_cursor* c = &m->cur[m->n++];
        c->rb = rbs[i];
        c->ps.kv = rbs[i]->list;
        c->ps.stream = streams ? streams[i] : 0;
    }
    m->filekind = filekind;
    m->min = min;
    m->max = max;
    return 0;
}

void vftr_otf_merge_release(vftr_otf_merge* m)
{
    for (uint32_t i = 0; i < m->n; i++) {
        free(m->cur[i].ps.arr);
        m->cur[i].ps.arr = NULL;
    }
    free(m->cur);
    free(m->heap);
    free(m->keys);
    memset(m, 0, sizeof *m);
}

/* Fetches the next line of cursor c that is inside the window.  1 ok,
 * 0 done, -1 error. */
static inline int advance(vftr_otf_merge* m, vftr_otf_cursor* c)
{
    for (;;) {
        int r = vftr_otf_rb_next_fast(c->rb, &c->ps);
        if (r <= 0) {
            c->pending = 0;
            c->done = 1;
            return r;
        }
        if (c->ps.time >= m->max) {
            c->pending = 0;
            c->done = 1;
            return 0;
        }
        if (c->ps.time < m->min)
            continue;       /* before the window (after a time search) */
        c->pending = 1;
        return 1;
    }
}

/* With few files a scan of their times (kept together in keys[]) for the
 * two earliest is cheaper than heap upkeep; the set of active files then
 * stays unordered. */
#define MERGE_LINEAR_MAX 8

static uint64_t fail(void)
{
    return OTF_READ_ERROR;
}

static int start(vftr_otf_merge* m)
{
    m->linear = m->n <= MERGE_LINEAR_MAX;
    for (uint32_t i = 0; i < m->n; i++) {
        vftr_otf_cursor* c = &m->cur[i];
        m->keys[i] = UINT64_MAX;
        /* to the window's start, or back to the beginning of the file */
        if (!OTF_RBuffer_searchTime(c->rb, m->min))
            return -1;
        c->startpos = c->rb->base + c->rb->pos;
        int r = advance(m, c);
        if (r < 0)
            return -1;
        if (r > 0) {
            m->keys[i] = c->ps.time;
            m->heap[m->heapn++] = i;
        }
    }
    if (!m->linear)
        for (uint32_t i = m->heapn / 2; i-- > 0;)
            sift_down(m, i);
    m->started = 1;
    return 0;
}

/* Hands one record (or key-value line) of cursor c to the handlers.
 * Returns 1 for a counted record, 0 for a line that does not count, -1 to
 * stop with an error. */
static inline int deliver(vftr_otf_merge* m, vftr_otf_cursor* c, OTF_HandlerArray* h,
                          const struct vftr_otf_proclist* procs)
{
    vftr_otf_parse* ps = &c->ps;
    if (procs != NULL && vftr_otf_proclist_status(procs, ps->process) == 0) {
        vftr_otf_kv_clear(ps->kv);
        return 0;                       /* neither counted nor handled */
    }
    int rc = dispatch(ps, h, m->filekind);
    if (OTF_LIKELY(rc == OTF_RETURN_OK || rc == VFTR_OTF_DISPATCH_SKIPPED)) {
        m->lasttime = ps->time;
        return 1;
    }
    return rc == VFTR_OTF_DISPATCH_KV ? 0 : -1;
}

/* keys[i] is the time of cursor i's pending record, UINT64_MAX once it is
 * done (a pending record never has that time: it is past every window).  The
 * earliest cursor is found anew for every record by a scan without
 * branches on the data: in the usual trace the streams take turns record by
 * record, and a mispredicted "does this file keep the turn" costs more than
 * the scan.  A strict '<' keeps the lowest index among equal times. */
static uint64_t merge_linear(vftr_otf_merge* m, OTF_HandlerArray* h,
                             const struct vftr_otf_proclist* procs, uint64_t limit)
{
    uint64_t count = 0;
    uint64_t* keys = m->keys;
    uint32_t n = m->n;
    while (count < limit && m->heapn > 0) {
        uint64_t best = keys[0];
        uint32_t top = 0;
        for (uint32_t j = 1; j < n; j++) {
            uint64_t t = keys[j];
            int lt = t < best;
            best = lt ? t : best;
            top = lt ? j : top;
        }
        if (OTF_UNLIKELY(best == UINT64_MAX))
            break;
        vftr_otf_cursor* c = &m->cur[top];
        int d = deliver(m, c, h, procs);
        if (OTF_UNLIKELY(d < 0))
            return fail();
        count += (uint64_t)d;
        int r = advance(m, c);
        if (OTF_UNLIKELY(r <= 0)) {
            if (r < 0)
                return fail();
            keys[top] = UINT64_MAX;
            m->heapn--;
            continue;
        }
        keys[top] = c->ps.time;
    }
    return count;
}

uint64_t vftr_otf_merge_read(vftr_otf_merge* m, OTF_HandlerArray* h,
                             const struct vftr_otf_proclist* procs, uint64_t limit)
{
    if (!m->started && start(m) < 0)
        return fail();
    if (m->linear)
        return merge_linear(m, h, procs, limit);
    uint64_t count = 0;
    while (m->heapn > 0 && count < limit) {
        /* The earliest file (top) keeps the turn while it still sorts before
         * the best of the others (heap[1] or heap[2]), which do not move
         * meanwhile. */
        uint32_t top = m->heap[0];
        uint32_t second = top;
        if (m->heapn > 1) {
            second = m->heap[1];
            if (m->heapn > 2 && before(m, m->heap[2], second))
                second = m->heap[2];
        }
        vftr_otf_cursor* c = &m->cur[top];
        int r = 1;
        while (count < limit) {
            int d = deliver(m, c, h, procs);
            if (OTF_UNLIKELY(d < 0))
                return fail();
            count += (uint64_t)d;
            r = advance(m, c);
            if (OTF_UNLIKELY(r < 0))
                return fail();
            if (r == 0 || (second != top && before(m, second, top)))
                break;
        }
        if (r == 0)
            m->heap[0] = m->heap[--m->heapn];
        if (m->heapn > 0)
            sift_down(m, 0);
    }
    return count;
}

uint64_t vftr_otf_read_linear(OTF_RBuffer* rb, uint32_t stream, OTF_HandlerArray* h,
                              int filekind, const struct vftr_otf_proclist* procs,
                              uint64_t limit, uint64_t* done_records)
{
    uint64_t n = vftr_otf_read_window(rb, stream, h, filekind, procs, 0, UINT64_MAX, limit);
    if (done_records != NULL && n != OTF_READ_ERROR)
        *done_records += n;
    return n;
}

uint64_t vftr_otf_read_window(OTF_RBuffer* rb, uint32_t stream, OTF_HandlerArray* h,
                              int filekind, const struct vftr_otf_proclist* procs,
                              uint64_t min, uint64_t max, uint64_t limit)
{
    vftr_otf_parse ps;
    memset(&ps, 0, sizeof ps);
    ps.kv = rb->list;
    ps.stream = stream;
    uint64_t count = 0;
    int r;
    int timed = (filekind & (VFTR_OTF_FILE_EVENT | VFTR_OTF_FILE_SNAP | VFTR_OTF_FILE_STAT)) != 0;
    while (count < limit && (r = vftr_otf_rb_next_fast(rb, &ps)) > 0) {
        int rc;
        if (timed && ps.time < min) {
            OTF_KeyValueList_reset(ps.kv);
            continue;
        }
        if (timed && ps.time >= max) {
            /* past the window: leave the line unread for a later call */
            rb->pos = (uint32_t)(ps.line - rb->buffer);
            rb->time = ps.time;
            break;
        }
        if (procs != NULL && (filekind & (VFTR_OTF_FILE_EVENT | VFTR_OTF_FILE_SNAP |
                                          VFTR_OTF_FILE_STAT)) &&
            vftr_otf_proclist_status(procs, ps.process) == 0) {
            OTF_KeyValueList_reset(ps.kv);
            continue;
        }
        rc = dispatch(&ps, h, filekind);
        if (rc == VFTR_OTF_PARSE_ERROR) {
            free(ps.arr);
            return OTF_READ_ERROR;
        }
        if (rc == VFTR_OTF_DISPATCH_KV)
            continue;
        if (rc != VFTR_OTF_DISPATCH_SKIPPED && rc != OTF_RETURN_OK) {
            free(ps.arr);
            return OTF_READ_ERROR;
        }
        count++;
    }
    free(ps.arr);
    if (count < limit && rb->failed)
        return OTF_READ_ERROR;
    return count;
}
