/*
 * merge.c — reading several trace files in time order (otf_read_internal.h).
 *
 * Each file is sorted by time on its own; the files are merged in the very
 * order of the reference OTF's reader, ties included (see vftr_otf_merge in
 * otf_read_internal.h): programs written for OTF print and copy the same
 * records in the same order with either library.
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

/* The reference's heap step (OTF_Heap_resort, and the loop of
 * OTF_Heap_sort), for the entry at v whose time is t: it goes down while a
 * child is not later than it, to the earlier child, the left one of two
 * equal ones.  Moving down on equal times is what makes streams with equal
 * time stamps take turns.  The entry is written once, where it stops; the
 * children it passes move up into the hole, as the reference's swaps move
 * them. */
static inline void sift(uint64_t* key, uint32_t* idx, uint32_t n, uint32_t v, uint64_t t,
                        uint32_t i)
{
    for (uint32_t w = 2 * v + 1; w < n; w = 2 * v + 1) {
        w += (w + 1 < n) & (key[w + 1] < key[w]);
        if (t < key[w])
            break;
        key[v] = key[w];
        idx[v] = idx[w];
        v = w;
    }
    key[v] = t;
    idx[v] = i;
}

/* The same step for the top entry when it has been read (its time is now
 * t), for small heaps, without branches on the times: in the usual trace
 * the streams take turns record by record, and a mispredicted "does the top
 * keep the turn" costs more than the few levels of a small heap.  The
 * entry goes down `depth` levels at most (the depth of the heap); once it
 * stops, the levels left change nothing that is not overwritten at the end.
 * Children beyond n are read but never taken (the arrays have room for
 * 2n + 1 entries). */
static inline uint32_t sift_top_small(uint64_t* key, uint32_t* idx, uint32_t n,
                                      unsigned depth, uint32_t top, uint64_t t,
                                      uint64_t* topkey)
{
    /* The first level decides the next top; it is returned (with its time
     * in *topkey) so that the next line does not wait for the others. */
    uint64_t kl = key[1], kr = key[2];
    uint32_t right = (uint32_t)(2 < n) & (uint32_t)(kr < kl);
    uint64_t rmask = (uint64_t)0 - right;
    uint64_t kw = (kr & rmask) | (kl & ~rmask);
    uint32_t w = 1 + right;
    uint32_t iw = idx[w];
    uint32_t go = (uint32_t)(n > 1) & (uint32_t)!(t < kw);
    uint64_t gmask = (uint64_t)0 - go;
    uint32_t next = (iw & (uint32_t)gmask) | (top & ~(uint32_t)gmask);
    *topkey = (kw & gmask) | (t & ~gmask);
    key[0] = *topkey;
    idx[0] = next;
    uint32_t v = w & (uint32_t)gmask;
    /* selections by masks: compilers turn ?: into branches here */
    for (unsigned k = 1; k < depth; k++) {
        w = 2 * v + 1;
        kl = key[w];
        kr = key[w + 1];
        right = (uint32_t)(w + 1 < n) & (uint32_t)(kr < kl);
        rmask = (uint64_t)0 - right;
        kw = (kr & rmask) | (kl & ~rmask);
        w += right;
        iw = idx[w];
        go &= (uint32_t)(w < n) & (uint32_t)!(t < kw);
        key[v] = kw;
        idx[v] = iw;
        v ^= (v ^ w) & (0u - go);
    }
    key[v] = t;
    idx[v] = top;
    return next;
}

/* Levels below the top of a heap of n entries. */
static inline unsigned depth_of(uint32_t n)
{
    return n > 1 ? 31u - (unsigned)__builtin_clz(n) : 0;
}

/* Heaps up to this size (four levels) take sift_top_small after every line:
 * with streams taking turns at random it is as fast as the old linear scan
 * of up to 8 streams and faster than runs (measured with 3 to 64 streams). */
#define MERGE_SMALL 16

int vftr_otf_merge_init(vftr_otf_merge* m, OTF_RBuffer** rbs, const uint32_t* ids,
                        uint32_t n, uint32_t streams, int filekind, uint64_t min,
                        uint64_t max)
{
    memset(m, 0, sizeof *m);
    m->cur = calloc(n ? n : 1, sizeof *m->cur);
    m->idx = calloc(2 * (size_t)n + 1, sizeof *m->idx);
    m->key = calloc(2 * (size_t)n + 1, sizeof *m->key);
    if (m->cur == NULL || m->idx == NULL || m->key == NULL) {
        free(m->cur);
        free(m->idx);
        free(m->key);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (rbs[i] == NULL)
            continue;
        vftr_otf_cursor* c = &m->cur[m->n++];
        c->rb = rbs[i];
        c->ps.kv = rbs[i]->list;
        c->ps.stream = ids ? ids[i] : 0;
    }
    m->streams = streams;
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
    free(m->idx);
    free(m->key);
    memset(m, 0, sizeof *m);
}

/* The next line of cursor c: 1 ok, 0 at the end of the file, -1 error. */
static inline int advance(vftr_otf_cursor* c)
{
    int r = vftr_otf_rb_next_fast(c->rb, &c->ps);
    if (OTF_UNLIKELY(r <= 0))
        c->done = 1;
    return r;
}

static uint64_t fail(void)
{
    return OTF_READ_ERROR;
}

/* Positions every file at the window's start and builds the array as the
 * reference does: files in master control order, a file without a line in
 * reach replaced by the last one (which is then positioned in its turn);
 * for a sorted read then heap-sorted.  A file whose first line lies past the
 * window stays in: the reference takes it out only when it comes to the
 * top, and until then it shapes the heap. */
static int start(vftr_otf_merge* m, int sorted)
{
    uint32_t n = m->n;
    for (uint32_t i = 0; i < n; i++)
        m->idx[i] = i;
    for (uint32_t i = 0; i < n; i++) {
        vftr_otf_cursor* c = &m->cur[m->idx[i]];
        c->done = 0;
        /* to the window's start, or back to the beginning of the file;
         * vftr's search lands a little before the window */
        if (!OTF_RBuffer_searchTime(c->rb, m->min))
            return -1;
        c->startpos = c->rb->base + c->rb->pos;
        int r;
        while ((r = advance(c)) > 0 && c->ps.time < m->min)
            ;
        if (r < 0)
            return -1;
        if (r == 0) {
            m->idx[i--] = m->idx[--n];
            continue;
        }
        m->key[i] = c->ps.time;
    }
    m->left = n;
    if (sorted && n > 0)
        for (uint32_t i = (n - 1) / 2 + 1; i-- > 0;)
            sift(m->key, m->idx, n, i, m->key[i], m->idx[i]);
    /* an unsorted start leaves the reference's initial 0 */
    m->ptime = sorted && n > 0 ? m->key[0] : 0;
    m->punsorted = 0;
    m->started = 1;
    return 0;
}

/* Hands one line of cursor c to the handlers.  Returns 1 for a counted
 * record, 0 for a line that does not count (key-value line, disabled
 * process), -1 to stop with an error. */
static inline int deliver(vftr_otf_merge* m, vftr_otf_cursor* c, OTF_HandlerArray* h,
                          const struct vftr_otf_proclist* procs)
{
    vftr_otf_parse* ps = &c->ps;
    if (procs != NULL && vftr_otf_proclist_status(procs, ps->process) == 0) {
        vftr_otf_kv_clear(ps->kv);
        return 0;                       /* neither counted nor handled */
    }
    int rc = dispatch(ps, h, m->filekind);
    if (OTF_LIKELY(rc == OTF_RETURN_OK || rc == VFTR_OTF_DISPATCH_SKIPPED))
        return 1;
    return rc == VFTR_OTF_DISPATCH_KV ? 0 : -1;
}

/* Takes the file on top out: the last one takes its place. */
static inline void drop_top(vftr_otf_merge* m, int resort)
{
    m->cur[m->idx[0]].done = 1;
    uint32_t n = --m->left;
    if (resort)
        sift(m->key, m->idx, n, 0, m->key[n], m->idx[n]);
    else {
        m->key[0] = m->key[n];
        m->idx[0] = m->idx[n];
    }
}

/*
 * The reference re-sorts after every line.  Each step here is the
 * reference's: the record limit checked first, then the progress time
 * taken, then a file past the window taken out, else one line read and the
 * heap re-sorted.
 *
 * A small heap is re-sorted after every line without branches on the times
 * (sift_top_small).  In a larger one the file on top stays there as long as
 * its time is below both children's, so it keeps the turn for a run of lines
 * earlier than the best of the others (key[1], key[2], which do not move
 * meanwhile), and the heap is touched only when the run ends: then the top
 * moves down at least to the earlier child.
 */
uint64_t vftr_otf_merge_read(vftr_otf_merge* m, OTF_HandlerArray* h,
                             const struct vftr_otf_proclist* procs, uint64_t limit)
{
    if (!m->started && start(m, 1) < 0)
        return fail();
    uint64_t* key = m->key;
    uint32_t* idx = m->idx;
    uint64_t count = 0, max = m->max;
    while (m->left > 0) {
        if (count >= limit)
            return count;
        m->punsorted = 0;
        uint32_t n = m->left;
        uint32_t top = idx[0];
        uint64_t t = key[0];
        if (n <= MERGE_SMALL) {
            unsigned depth = depth_of(n);
            for (;;) {
                vftr_otf_cursor* c = &m->cur[top];
                m->ptime = t;
                if (OTF_UNLIKELY(t >= max)) {
                    drop_top(m, 1);
                    break;
                }
                int d = deliver(m, c, h, procs);
                if (OTF_UNLIKELY(d < 0))
                    return fail();
                count += (uint64_t)d;
                int r = advance(c);
                if (OTF_UNLIKELY(r <= 0)) {
                    if (r < 0)
                        return fail();
                    drop_top(m, 1);
                    break;
                }
                top = sift_top_small(key, idx, n, depth, top, c->ps.time, &t);
                if (OTF_UNLIKELY(count >= limit))
                    return count;
            }
            continue;
        }
        /* the earlier child, the left one of equals */
        uint32_t w = 1 + (n > 2 && key[2] < key[1]);
        uint64_t second = key[w];
        vftr_otf_cursor* c = &m->cur[top];
        for (;;) {
            m->ptime = t;
            if (OTF_UNLIKELY(t >= max)) {
                drop_top(m, 1);
                break;
            }
            int d = deliver(m, c, h, procs);
            if (OTF_UNLIKELY(d < 0))
                return fail();
            count += (uint64_t)d;
            int r = advance(c);
            if (OTF_UNLIKELY(r <= 0)) {
                if (r < 0)
                    return fail();
                drop_top(m, 1);
                break;
            }
            t = c->ps.time;
            if (!(t < second)) {
                /* the child moves up, the top goes on down from its place */
                key[0] = second;
                idx[0] = idx[w];
                sift(key, idx, n, w, t, top);
                break;
            }
            if (OTF_UNLIKELY(count >= limit)) {
                key[0] = t;
                return count;
            }
        }
    }
    return count;
}

/* The reference's unsorted read: the file on top to its end (or the
 * window's), no re-sort; then the last file moves to the top. */
uint64_t vftr_otf_merge_read_unsorted(vftr_otf_merge* m, OTF_HandlerArray* h,
                                      const struct vftr_otf_proclist* procs,
                                      uint64_t limit)
{
    if (!m->started && start(m, 0) < 0)
        return fail();
    uint64_t count = 0, max = m->max;
    while (m->left > 0 && count < limit) {
        vftr_otf_cursor* c = &m->cur[m->idx[0]];
        uint64_t t = m->key[0];
        m->punsorted = 1;
        m->pleft = m->left;
        for (;;) {
            m->ptime = t;
            if (OTF_UNLIKELY(t >= max)) {
                drop_top(m, 0);
                break;
            }
            int d = deliver(m, c, h, procs);
            if (OTF_UNLIKELY(d < 0))
                return fail();
            count += (uint64_t)d;
            int r = advance(c);
            if (OTF_UNLIKELY(r <= 0)) {
                if (r < 0)
                    return fail();
                drop_top(m, 0);
                break;
            }
            t = m->key[0] = c->ps.time;
            if (count >= limit)
                break;
        }
    }
    return count;
}

/* The reference computes, at every step of an unsorted read,
 *   min + (max - min) / s * (s - n) + (time - min) / s
 * (s entries in the master control, n files left) in double precision with
 * unsigned 64-bit differences, and truncates.  The same operations in the
 * same order give the same number; nothing here depends on the step but
 * `time` and `n`, so it is computed when asked. */
uint64_t vftr_otf_merge_progress(const vftr_otf_merge* m, uint64_t lo, uint64_t hi)
{
    if (!m->punsorted)
        return m->ptime;
    double rs = 1 / (double)m->streams;
    uint64_t delta = hi - lo;
    double done = (double)delta * rs;
    double share = done * (double)(m->streams - m->pleft);
    double base = (double)lo + share;
    double cur = (double)(m->ptime - lo) * rs;
    return (uint64_t)(base + cur);
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
