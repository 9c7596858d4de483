/*
 * rbuffer.c — OTF_RBuffer: reading one trace file line by line, and time
 * search by bisection on byte offsets (see OTF_RBuffer.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "OTF_File.h"
#include "OTF_RBuffer.h"
#include "otf_file_internal.h"
#include "otf_internal.h"
#include "otf_kv_internal.h"
#include "otf_parse.h"
#include "otf_rbuf.h"


#define RB_DEFAULT_SIZE  (1024u * 1024u)
#define RB_MAX_SIZE      (100u * 1024u * 1024u)   /* longest line accepted */
#define RB_JUMP_SIZE     4096u
/* Bisection stops when the interval is this small; the rest is read. */
#define RB_SEARCH_STOP   256u
/* Bytes allocated beyond the buffer's size: room for the '\n' added to a
 * last line without one, and for the 8-byte loads of find_newline. */
#define RB_SLACK         16u
/* Plain files at least this big are mapped instead of read: no copies, and
 * a time search touches pages instead of issuing reads.  The view into the
 * mapping spans at most RB_MAP_WINDOW bytes; when it moves on, the pages
 * behind it are given back (MADV_DONTNEED), and a time search starts by
 * giving back what earlier reads touched if that spans more than
 * RB_MAP_KEEP, so that memory stays bounded, not growing with the file, as
 * with reads into a buffer. */
#define RB_MAP_MIN       4096u
#define RB_MAP_WINDOW    (1u << 20)
#define RB_MAP_WINDOW_JUMP (256u << 10) /* the same after a jump or time search */
#define RB_PAGE          4096u
/* A time search keeps the pages touched before if they span no more. */
#define RB_MAP_KEEP      (8u << 20)
/* A read going on through a mapped file gives back the pages behind it
 * once they span this much. */
#define RB_MAP_RELEASE   (1u << 20)

/*
 * What time searches have learnt.  In a compressed file decoding can only
 * start at a sync point, and inflating even a few bytes there costs a whole
 * deflate block (tens of KiB of text), so a search that probes offset c
 * pays for the block at the first sync point s >= c.  Each entry says: for
 * every offset in [lo, sync] the first sync point is `sync`, and the first
 * time line decoded from there is `time` (UINT64_MAX: none).  The search
 * then bisects without decoding wherever it has been before, and a second
 * search (a viewer scrolling about) mostly without reading.  Entries are
 * sorted by sync, at most PROBES_MAX (then forgotten all at once).  A plain
 * file's probe at c is the entry [c, c] (its "sync point" is c itself).
 */
#define PROBES_MAX 65536u

struct vftr_otf_probe {
    uint64_t lo, sync, time;
};

struct vftr_otf_probes {
    struct vftr_otf_probe* e;
    uint32_t n, cap;
};

static void probes_free(struct vftr_otf_probes* z)
{
    if (z != NULL) {
        free(z->e);
        free(z);
    }
}

/* Index of the first entry with sync >= key (n if none). */
static uint32_t probes_lower(const struct vftr_otf_probes* z, uint64_t key)
{
    uint32_t a = 0, b = z->n;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (z->e[m].sync < key)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* The entry covering offset c, or NULL. */
static const struct vftr_otf_probe* probes_find(const struct vftr_otf_probes* z, uint64_t c)
{
    if (z == NULL)
        return NULL;
    uint32_t i = probes_lower(z, c);
    return i < z->n && z->e[i].lo <= c ? &z->e[i] : NULL;
}

/* Records that [lo, sync] leads to sync with its first time; an entry for
 * the same sync point only widens.  Out of memory just means no caching. */
static void probes_add(OTF_RBuffer* rb, uint64_t lo, uint64_t sync, uint64_t time)
{
    struct vftr_otf_probes* z = rb->probes;
    if (z == NULL) {
        z = rb->probes = calloc(1, sizeof *z);
        if (z == NULL)
            return;
    }
    uint32_t i = probes_lower(z, sync);
    if (i < z->n && z->e[i].sync == sync) {
        if (lo < z->e[i].lo)
            z->e[i].lo = lo;
        return;
    }
    if (z->n == PROBES_MAX) {
        z->n = 0;
        i = 0;
    }
    if (z->n == z->cap) {
        uint32_t nc = z->cap ? z->cap * 2 : 64;
        struct vftr_otf_probe* ne = realloc(z->e, nc * sizeof *ne);
        if (ne == NULL)
            return;
        z->e = ne;
        z->cap = nc;
    }
    memmove(z->e + i + 1, z->e + i, (z->n - i) * sizeof *z->e);
    z->e[i] = (struct vftr_otf_probe){ lo, sync, time };
    z->n++;
}

static OTF_RBuffer* rb_new(OTF_File* file, const char* name)
{
    OTF_RBuffer* rb = calloc(1, sizeof *rb);
    if (rb == NULL)
        goto oom;
    rb->own = rb->buffer = malloc(RB_DEFAULT_SIZE + RB_SLACK);
    rb->list = OTF_KeyValueList_new();
    rb->filename = strdup(name ? name : "(memory)");
    if (rb->buffer == NULL || rb->list == NULL || rb->filename == NULL)
        goto oom;
    rb->file = file;
    rb->size = RB_DEFAULT_SIZE;
    rb->maxsize = RB_MAX_SIZE;
    rb->jumpsize = RB_JUMP_SIZE;
    rb->readsize = RB_DEFAULT_SIZE;
    rb->viewcap = RB_MAP_WINDOW;
    rb->process = (uint32_t)-1;
    rb->filesize = OTF_File_size(file);
    if (rb->filesize >= RB_MAP_MIN && rb->filesize != (uint64_t)-1) {
        uint64_t size = 0;
        rb->map = vftr_file_map(file, &size);
        if (rb->map != NULL) {
            rb->mapsize = size;
            rb->filesize = size;
            rb->mapped = 1;
            rb->buffer = rb->map;
        }
    }
    return rb;
oom:
    if (rb != NULL) {
        free(rb->own);
        if (rb->list)
            OTF_KeyValueList_close(rb->list);
        free(rb->filename);
        free(rb);
    }
    OTF_File_close(file);
    vftr_otf_seterr("%s: out of memory", name ? name : "(memory)");
    return NULL;
}

OTF_RBuffer* OTF_RBuffer_open(const char* filename, OTF_FileManager* manager)
{
    OTF_File* f = OTF_File_open(filename, manager, OTF_FILEMODE_READ);
    if (f == NULL)
        return NULL;
    return rb_new(f, filename);
}

OTF_RBuffer* OTF_RBuffer_open_with_external_buffer(uint32_t len, const char* buffer,
                                                   uint8_t is_compressed)
{
    OTF_File* f = OTF_File_open_with_external_buffer(len, buffer, is_compressed,
                                                     OTF_FILEMODE_READ);
    if (f == NULL)
        return NULL;
    return rb_new(f, NULL);
}

int OTF_RBuffer_close(OTF_RBuffer* rb)
{
    if (rb == NULL)
        return 0;
    int ok = OTF_File_close(rb->file);
    if (rb->map != NULL)
        munmap(rb->map, (size_t)rb->mapsize);
    probes_free(rb->probes);
    free(rb->own);
    OTF_KeyValueList_close(rb->list);
    free(rb->array);
    free(rb->filename);
    free(rb);
    return ok;
}

static int rb_resize(OTF_RBuffer* rb, size_t size)
{
    char* nb = realloc(rb->own, size + RB_SLACK);
    if (nb == NULL) {
        vftr_otf_seterr("%s: out of memory for a %zu byte read buffer", rb->filename, size);
        return 0;
    }
    if (!rb->mapped)
        rb->buffer = nb;
    rb->own = nb;
    rb->size = (uint32_t)size;
    return 1;
}

int OTF_RBuffer_setSize(OTF_RBuffer* rb, size_t size)
{
    if (rb == NULL || size < 64 || size > RB_MAX_SIZE) {
        vftr_otf_seterr("read buffer size %zu out of range", size);
        return 0;
    }
    if (size < (size_t)rb->end + rb->tail)
        return 1;
    if (!rb_resize(rb, size))
        return 0;
    rb->readsize = (uint32_t)size;
    return 1;
}

void OTF_RBuffer_setZBufferSize(OTF_RBuffer* rb, uint32_t size)
{
    if (rb != NULL)
        OTF_File_setZBufferSize(rb->file, size);
}

int OTF_RBuffer_setJumpSize(OTF_RBuffer* rb, size_t size)
{
    if (rb == NULL || size < 16 || size > rb->size)
        return 0;
    rb->jumpsize = (uint32_t)size;
    return 1;
}

/* Moves the unread text to the front and reads more.  The buffer then holds
 * complete lines in [pos, end) and the start of an unfinished line in
 * [end, end + tail); at the end of the file that last piece becomes a line of
 * its own (a '\n' is added in the spare byte).  Returns the number of bytes
 * of complete lines added, 0 at the end of the file, -1 on error. */
/* Gives back the pages of map wholly inside [from, to) that were touched. */
static void map_release(OTF_RBuffer* rb, uint64_t from, uint64_t to)
{
    if (from < rb->mlo)
        from = rb->mlo;
    if (to > rb->mhi)
        to = rb->mhi;
    from = (from + RB_PAGE - 1) & ~(uint64_t)(RB_PAGE - 1);
    to &= ~(uint64_t)(RB_PAGE - 1);
    if (to > from)
        (void)madvise(rb->map + from, (size_t)(to - from), MADV_DONTNEED);
}

/* Mapped files: moves the view to the next unread line and extends it to
 * the last newline that leaves RB_SLACK mapped bytes after it.  The last few
 * bytes of the file (or a line longer than the window) go through the copy
 * path: returns 0 after switching to it, else the bytes added. */
static long map_fill(OTF_RBuffer* rb)
{
    uint64_t done = rb->base + rb->pos;
    rb->base += rb->pos;
    rb->buffer += rb->pos;
    rb->rec = rb->rec >= rb->pos ? rb->rec - rb->pos : 0;
    rb->pos = rb->end = 0;
    uint64_t avail = rb->mapsize - rb->base;
    if (avail > RB_SLACK) {
        uint64_t room = avail - RB_SLACK;
        if (room > RB_MAP_WINDOW)
            room = RB_MAP_WINDOW;
        /* After a jump the view starts small and grows, as the copy path's
         * reads do: a time search looks at a few lines in many places, and
         * the bytes-read count should say so.  A line longer than the small
         * view gets the whole window. */
        uint64_t lim = room < rb->readsize ? room : rb->readsize;
        if (rb->readsize < rb->viewcap)
            rb->readsize = rb->readsize * 4 < rb->viewcap ? rb->readsize * 4 : rb->viewcap;
        char* nl = memrchr(rb->buffer, '\n', (size_t)lim);
        if (nl == NULL && lim < room) {
            lim = room;
            nl = memrchr(rb->buffer, '\n', (size_t)lim);
        }
        if (nl != NULL) {
            rb->end = (uint32_t)(nl - rb->buffer) + 1;
            vftr_file_count_read(rb->file, rb->end);
            if (vftr_file_progress(rb->file, rb->end) < 0) {
                rb->pos = rb->end = 0;
                rb->failed = 1;
                return -1;
            }
            /* reading on through the file: the lines before are done
             * with, their pages can go (not at its end, where a window
             * read stops: the next search may want them again) — in
             * pieces of RB_MAP_RELEASE, as every madvise costs a TLB
             * flush on all the threads' CPUs */
            if (done > rb->mlo && done - rb->mlo >= RB_MAP_RELEASE) {
                map_release(rb, 0, done);
                rb->mlo = done & ~(uint64_t)(RB_PAGE - 1);
            }
            if (rb->base < rb->mlo)
                rb->mlo = rb->base;
            if (rb->base + lim + RB_SLACK > rb->mhi)
                rb->mhi = rb->base + lim + RB_SLACK;
            return (long)rb->end;
        }
    }
    rb->mapped = 0;
    rb->buffer = rb->own;
    rb->rec = rb->tail = 0;
    rb->eof = 0;
    if (OTF_File_seek(rb->file, rb->base) != 0) {
        rb->failed = 1;
        return -1;
    }
    return 0;
}

static long rb_fill(OTF_RBuffer* rb)
{
    if (rb->mapped) {
        long got = map_fill(rb);
        if (got != 0)
            return got;
    }
    if (rb->pos > 0) {
        uint32_t keep = rb->end + rb->tail - rb->pos;
        memmove(rb->buffer, rb->buffer + rb->pos, keep);
        rb->base += rb->pos;
        rb->end -= rb->pos;
        rb->rec = rb->rec >= rb->pos ? rb->rec - rb->pos : 0;
        rb->pos = 0;
    }
    for (;;) {
        if (rb->eof) {
            if (rb->tail == 0)
                return 0;
            /* a last line without newline */
            rb->buffer[rb->end + rb->tail] = '\n';
            long added = (long)rb->tail + 1;
            rb->end += rb->tail + 1;
            rb->tail = 0;
            return added;
        }
        uint32_t have = rb->end + rb->tail;
        if (have == rb->size) {
            /* One line fills the whole buffer: grow, within reason. */
            if (rb->size >= rb->maxsize) {
                vftr_otf_seterr("%s: offset %llu: line longer than %u bytes", rb->filename,
                                (unsigned long long)rb->base, rb->maxsize);
                rb->failed = 1;
                return -1;
            }
            size_t ns = (size_t)rb->size * 2;
            if (ns > rb->maxsize)
                ns = rb->maxsize;
            if (!rb_resize(rb, ns)) {
                rb->failed = 1;
                return -1;
            }
        }
        size_t want = rb->size - have;
        if (want > rb->readsize)
            want = rb->readsize;
        size_t got = OTF_File_read(rb->file, rb->buffer + have, want);
        /* Reads after a jump start small and grow: a time search touches
         * many places briefly, a linear read wants big blocks. */
        if (rb->readsize < rb->size)
            rb->readsize = rb->readsize * 4 > rb->size ? rb->size : rb->readsize * 4;
        if (got == 0) {
            if (vftr_file_stopped(rb->file)) {      /* not the end: stopped */
                rb->failed = 1;
                return -1;
            }
            rb->eof = 1;
            continue;
        }
        /* complete lines end at the last newline of what is there now */
        char* last = memrchr(rb->buffer + have, '\n', got);
        if (last == NULL) {
            rb->tail += (uint32_t)got;
            continue;
        }
        uint32_t newend = (uint32_t)(last - rb->buffer) + 1;
        long added = (long)(newend - rb->end);
        rb->tail = have + (uint32_t)got - newend;
        rb->end = newend;
        return added;
    }
}

/* The next line [*line, *nl) with **nl == '\n'.  1, 0 at end, -1 error.
 * Every line in [pos, end) ends with a newline, so the scan needs no other
 * bound. */
static inline int rb_line(OTF_RBuffer* rb, char** line, char** nl)
{
    for (;;) {
        if (OTF_LIKELY(rb->pos < rb->end)) {
            char* s = rb->buffer + rb->pos;
            char* q = s;
            while (*q != '\n')
                q++;
            rb->rec = rb->pos;
            rb->pos = (uint32_t)(q - rb->buffer) + 1;
            *line = s;
            *nl = q;
            return 1;
        }
        long got = rb_fill(rb);
        if (got <= 0)
            return got < 0 ? -1 : 0;
    }
}

static int is_hex(char c)
{
    return vftr_otf_hexval[(unsigned char)c] <= 15;
}

/* A state line: updates time or process.  Returns 1 if it was one. */
static int rb_state(OTF_RBuffer* rb, char* line, char* nl, int* bad)
{
    char* p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (is_hex(*p)) {
        vftr_otf_parse ps = { .line = line, .p = p, .end = nl };
        uint64_t t;
        if (!vftr_otf_parse_u64(&ps, &t) || !vftr_otf_parse_end(&ps)) {
            *bad = 1;
            return 1;
        }
        rb->time = t;
        return 1;
    }
    if (*p == '*') {
        vftr_otf_parse ps = { .line = line, .p = p + 1, .end = nl };
        uint32_t pr;
        if (!vftr_otf_parse_u32(&ps, &pr) || !vftr_otf_parse_end(&ps)) {
            *bad = 1;
            return 1;
        }
        rb->process = pr;
        return 1;
    }
    return 0;
}

int vftr_otf_rb_next(OTF_RBuffer* rb, vftr_otf_parse* ps)
{
    if (OTF_UNLIKELY(rb->failed))
        return -1;
    for (;;) {
        if (OTF_UNLIKELY(rb->pos >= rb->end)) {
            long got = rb_fill(rb);
            if (got <= 0)
                return got < 0 ? -1 : 0;
        }
        char* line = rb->buffer + rb->pos;
        char c = *line;
        uint64_t v;
        const char* q;
        /* State lines are parsed where they are: no separate scan for their
         * end.  Every line in [pos, end) ends with '\n', which stops both. */
        if (vftr_otf_hexval[(unsigned char)c] <= 15) {
            if ((q = vftr_otf_hex_line(line, &v)) != NULL) {
                rb->time = v;
                rb->pos = (uint32_t)(q - rb->buffer) + 1;
                continue;
            }
        } else if (c == '*') {
            if ((q = vftr_otf_hex_line(line + 1, &v)) != NULL && v <= UINT32_MAX) {
                rb->process = (uint32_t)v;
                rb->pos = (uint32_t)(q - rb->buffer) + 1;
                continue;
            }
        }
        char* nl = vftr_otf_find_newline(line);
        rb->rec = rb->pos;
        rb->pos = (uint32_t)(nl - rb->buffer) + 1;
        /* An empty line is handed out like a record: OTF counts it as one
         * (the dispatcher skips it without a handler).  Anything else that
         * starts like a state line (blanks, odd forms) is checked slowly. */
        int bad = 0;
        if ((c == ' ' || c == '\t' || c == '*' || vftr_otf_hexval[(unsigned char)c] <= 15) &&
            rb_state(rb, line, nl, &bad)) {
            if (bad) {
                vftr_otf_seterr("%s: offset %llu: malformed time or process line \"%.*s\"",
                                rb->filename,
                                (unsigned long long)(rb->base + (uint64_t)(line - rb->buffer)),
                                (int)((nl - line) > 40 ? 40 : (nl - line)), line);
                rb->failed = 1;
                return -1;
            }
            continue;
        }
        ps->line = line;
        ps->p = line;
        while (*ps->p == ' ' || *ps->p == '\t')
            ps->p++;
        ps->end = nl;
        ps->time = rb->time;
        ps->process = rb->process;
        ps->file = rb->filename;
        ps->offset = rb->base + (uint64_t)(line - rb->buffer);
        return 1;
    }
}

char* OTF_RBuffer_getRecord(OTF_RBuffer* rb)
{
    if (rb == NULL)
        return NULL;
    vftr_otf_parse ps;
    memset(&ps, 0, sizeof ps);
    if (vftr_otf_rb_next(rb, &ps) <= 0)
        return NULL;
    /* the low-level token readers continue from the record's start */
    rb->pos = (uint32_t)(ps.p - rb->buffer);
    return ps.p;
}

int OTF_RBuffer_guaranteeRecord(OTF_RBuffer* rb)
{
    if (rb == NULL)
        return 0;
    /* every line before end is complete */
    while (rb->pos >= rb->end)
        if (rb_fill(rb) <= 0)
            return 0;
    return 1;
}

char* OTF_RBuffer_printRecord(OTF_RBuffer* rb)
{
    if (rb == NULL || rb->rec >= rb->end)
        return NULL;
    const char* s = rb->buffer + rb->rec;
    const char* q = memchr(s, '\n', rb->end - rb->rec);
    size_t n = q ? (size_t)(q - s) : rb->end - rb->rec;
    char* out = malloc(n + 1);
    if (out != NULL) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return out;
}

/* Puts the buffer at file offset `filepos` with nothing read and the state
 * machine reset: a view into the mapping, or a seek for the copy path. */
static int rb_reset_at(OTF_RBuffer* rb, uint64_t filepos)
{
    if (rb->map != NULL && !rb->probing) {
        rb->mapped = 1;
        rb->buffer = rb->map + filepos;
    } else {
        rb->mapped = 0;
        rb->buffer = rb->own;
        if (OTF_File_seek(rb->file, filepos) != 0) {
            vftr_otf_seterr("%s: cannot seek to offset %llu", rb->filename,
                            (unsigned long long)filepos);
            return 0;
        }
    }
    rb->pos = rb->end = rb->rec = rb->tail = 0;
    rb->base = filepos;
    rb->eof = 0;
    rb->failed = 0;
    rb->readsize = rb->jumpsize;
    /* a window read after a search rarely needs much: its views grow to
     * RB_MAP_WINDOW_JUMP only (the bytes-read count sees what was viewed) */
    rb->viewcap = RB_MAP_WINDOW_JUMP;
    rb->time = 0;
    rb->process = (uint32_t)-1;
    OTF_KeyValueList_reset(rb->list);
    return 1;
}

int OTF_RBuffer_jump(OTF_RBuffer* rb, uint64_t filepos)
{
    if (rb == NULL)
        return 0;
    if (filepos > rb->filesize)
        return 0;
    if (!rb_reset_at(rb, filepos))
        return 0;
    char *line, *nl;
    int r;
    if (filepos > 0) {
        /* The jump most likely landed inside a line: drop its rest. */
        if (rb_line(rb, &line, &nl) <= 0)
            return 0;
    }
    /* Resynchronise on a time line followed by a process line; whatever
     * lies before them belongs to an earlier time. */
    int have_time = 0;
    while ((r = rb_line(rb, &line, &nl)) > 0) {
        int bad = 0;
        char c = *line;
        if (is_hex(c)) {
            if (rb_state(rb, line, nl, &bad) && !bad)
                have_time = 1;
        } else if (c == '*' && have_time) {
            if (rb_state(rb, line, nl, &bad) && !bad)
                return 1;
        }
    }
    return 0;
}

/* One step of a time search: is the first time found from offset c on at
 * or after `time` (or is there none)?  Both kinds of files remember what
 * their probes found (a viewer searches about the same places again);
 * compressed files by sync point, plain files by offset.  The probes of a
 * mapped file read a few KiB instead of touching the mapping, so that a
 * search does not leave pages all over the file in memory. */
static int probe_at_or_after(OTF_RBuffer* rb, uint64_t c, uint64_t time)
{
    if (rb->map != NULL) {
        const struct vftr_otf_probe* e = probes_find(rb->probes, c);
        if (e != NULL)
            return e->time >= time;
        rb->probing = 1;
        int ok = OTF_RBuffer_jump(rb, c);
        rb->probing = 0;
        uint64_t t = ok ? rb->time : UINT64_MAX;
        if (!rb->failed)
            probes_add(rb, c, c, t);
        return t >= time;
    }
    if (rb->file != NULL && rb->file->compressed && rb->file->dec != NULL) {
        const struct vftr_otf_probe* e = probes_find(rb->probes, c);
        if (e != NULL)
            return e->time >= time;
        uint64_t sync;
        if (vftr_zfile_locate(rb->file, c, &sync) == 0) {
            uint32_t i = rb->probes ? probes_lower(rb->probes, sync) : 0;
            if (rb->probes != NULL && i < rb->probes->n && rb->probes->e[i].sync == sync) {
                uint64_t t = rb->probes->e[i].time;
                probes_add(rb, c, sync, t);
                return t >= time;
            }
            uint64_t t = OTF_RBuffer_jump(rb, c) ? rb->time : UINT64_MAX;
            if (!rb->failed)
                probes_add(rb, c, sync, t);
            return t >= time;
        }
    }
    return !OTF_RBuffer_jump(rb, c) || rb->time >= time;
}

int OTF_RBuffer_searchTime(OTF_RBuffer* rb, uint64_t time)
{
    if (rb == NULL)
        return 0;
    uint64_t a = 0, b = time == 0 ? 0 : rb->filesize;
    if (rb->map != NULL && rb->mhi > rb->mlo && rb->mhi - rb->mlo > RB_MAP_KEEP) {
        /* the last reads touched much: it goes back, the new window comes */
        map_release(rb, 0, rb->mapsize);
        rb->mlo = UINT64_MAX;
        rb->mhi = 0;
    }
    while (b - a > RB_SEARCH_STOP) {
        uint64_t c = a + (b - a) / 2;
        if (probe_at_or_after(rb, c, time))
            b = c;
        else
            a = c;
    }
    if (a == 0)
        return rb_reset_at(rb, 0);
    return OTF_RBuffer_jump(rb, a);
}

int OTF_RBuffer_getFileProperties(OTF_RBuffer* rb)
{
    if (rb == NULL)
        return 0;
    if (rb->props)
        return 1;
    if (!OTF_RBuffer_jump(rb, 0))
        return 0;
    rb->firstTime = rb->time;
    /* The writer repeats the last state at the end of every file, so the
     * last time line is near the end: step back until one is found. */
    uint64_t step = rb->jumpsize;
    uint64_t last = rb->firstTime;
    for (;;) {
        uint64_t at = rb->filesize > step ? rb->filesize - step : 0;
        if (OTF_RBuffer_jump(rb, at)) {
            last = rb->time;
            vftr_otf_parse ps;
            int r;
            while ((r = vftr_otf_rb_next(rb, &ps)) > 0)
                ;
            if (r < 0)
                return 0;
            if (rb->time > last)
                last = rb->time;
            break;
        }
        if (at == 0)
            break;
        step *= 2;
    }
    rb->lastTime = last;
    rb->props = 1;
    return OTF_File_seek(rb->file, 0) == 0 ? OTF_RBuffer_searchTime(rb, 0) : 0;
}

uint64_t OTF_RBuffer_getFileSize(OTF_RBuffer* rb)
{
    return rb ? rb->filesize : 0;
}

uint64_t OTF_RBuffer_getFilePos(OTF_RBuffer* rb)
{
    if (rb == NULL)
        return 0;
    /* a mapped file has "read" what the view covers */
    return rb->mapped ? rb->base + rb->end : OTF_File_tell(rb->file);
}

uint64_t OTF_RBuffer_getCurrentTime(OTF_RBuffer* rb) { return rb ? rb->time : 0; }
void OTF_RBuffer_setCurrentTime(OTF_RBuffer* rb, uint64_t time) { if (rb) rb->time = time; }
uint32_t OTF_RBuffer_getCurrentProcess(OTF_RBuffer* rb) { return rb ? rb->process : 0; }
void OTF_RBuffer_setCurrentProcess(OTF_RBuffer* rb, uint32_t p) { if (rb) rb->process = p; }

/* ---- OTF's low-level token API on the current position ---------------- */

static vftr_otf_parse rb_cursor(OTF_RBuffer* rb)
{
    vftr_otf_parse ps;
    memset(&ps, 0, sizeof ps);
    char* s = rb->buffer + rb->pos;
    char* q = memchr(s, '\n', rb->end - rb->pos);
    ps.line = ps.p = s;
    ps.end = q ? q : rb->buffer + rb->end;
    return ps;
}

uint64_t OTF_RBuffer_readUint64(OTF_RBuffer* rb)
{
    vftr_otf_parse ps = rb_cursor(rb);
    uint64_t v = 0;
    if (!vftr_otf_parse_u64(&ps, &v))
        return 0;
    rb->pos = (uint32_t)(ps.p - rb->buffer);
    return v;
}

uint32_t OTF_RBuffer_readUint32(OTF_RBuffer* rb)
{
    vftr_otf_parse ps = rb_cursor(rb);
    uint32_t v = 0;
    if (!vftr_otf_parse_u32(&ps, &v))
        return 0;
    rb->pos = (uint32_t)(ps.p - rb->buffer);
    return v;
}

const char* OTF_RBuffer_readString(OTF_RBuffer* rb)
{
    vftr_otf_parse ps = rb_cursor(rb);
    const char* s = NULL;
    if (!vftr_otf_parse_string(&ps, &s))
        return NULL;
    rb->pos = (uint32_t)(ps.p - rb->buffer);
    return s;
}

uint32_t OTF_RBuffer_readArray(OTF_RBuffer* rb, uint32_t** array, uint32_t* size)
{
    vftr_otf_parse ps = rb_cursor(rb);
    ps.arr = rb->array;
    ps.arrcap = rb->arraycap;
    uint32_t n = 0;
    const uint32_t* out = NULL;
    int ok = vftr_otf_parse_array(&ps, &n, &out);
    rb->array = ps.arr;
    rb->arraycap = ps.arrcap;
    if (!ok)
        return 0;
    rb->pos = (uint32_t)(ps.p - rb->buffer);
    if (array != NULL) {
        /* the caller's array is realloc'ed to fit, as OTF's API expects */
        if (size != NULL && *size < n) {
            uint32_t* na = realloc(*array, sizeof *na * n);
            if (na == NULL)
                return 0;
            *array = na;
            *size = n;
        }
        if (n)
            memcpy(*array, out, sizeof *out * n);
    }
    return n;
}

int OTF_RBuffer_testChar(OTF_RBuffer* rb, char c)
{
    vftr_otf_parse ps = rb_cursor(rb);
    vftr_otf_parse_blanks(&ps);
    if (*ps.p != c)
        return 0;
    rb->pos = (uint32_t)(ps.p + 1 - rb->buffer);
    return 1;
}

int OTF_RBuffer_testKeyword(OTF_RBuffer* rb, const char* string)
{
    vftr_otf_parse ps = rb_cursor(rb);
    vftr_otf_parse_blanks(&ps);
    size_t n = strlen(string);
    if ((size_t)(ps.end - ps.p) < n || memcmp(ps.p, string, n) != 0 ||
        (ps.p[n] >= 'A' && ps.p[n] <= 'Z'))
        return 0;
    rb->pos = (uint32_t)(ps.p + n - rb->buffer);
    return 1;
}

int OTF_RBuffer_testPrefix(OTF_RBuffer* rb, const char* string)
{
    vftr_otf_parse ps = rb_cursor(rb);
    vftr_otf_parse_blanks(&ps);
    size_t n = strlen(string);
    if ((size_t)(ps.end - ps.p) < n || memcmp(ps.p, string, n) != 0)
        return 0;
    rb->pos = (uint32_t)(ps.p + n - rb->buffer);
    return 1;
}

int OTF_RBuffer_readNewline(OTF_RBuffer* rb)
{
    vftr_otf_parse ps = rb_cursor(rb);
    if (!vftr_otf_parse_end(&ps))
        return 0;
    rb->pos = (uint32_t)(ps.end - rb->buffer) + 1;
    return 1;
}

void OTF_RBuffer_skipSpaces(OTF_RBuffer* rb)
{
    while (rb->pos < rb->end && (rb->buffer[rb->pos] == ' ' || rb->buffer[rb->pos] == '\t'))
        rb->pos++;
}

void OTF_RBuffer_skipKeyword(OTF_RBuffer* rb)
{
    while (rb->pos < rb->end && rb->buffer[rb->pos] >= 'A' && rb->buffer[rb->pos] <= 'Z')
        rb->pos++;
}

uint32_t OTF_RBuffer_readBytes(OTF_RBuffer* rb, uint8_t* array, uint32_t max_len)
{
    uint32_t n = 0;
    while (n < max_len && rb->pos + 1 < rb->end && is_hex(rb->buffer[rb->pos]) &&
           is_hex(rb->buffer[rb->pos + 1])) {
        array[n++] = (uint8_t)(vftr_otf_hexval[(unsigned char)rb->buffer[rb->pos]] << 4 |
                               vftr_otf_hexval[(unsigned char)rb->buffer[rb->pos + 1]]);
        rb->pos += 2;
    }
    return n;
}

uint32_t OTF_RBuffer_readKeyValueList(OTF_RBuffer* rb)
{
    /* Reads consecutive key-value lines into rb->list. */
    uint32_t n = 0;
    for (;;) {
        if (!OTF_RBuffer_guaranteeRecord(rb))
            return n;
        vftr_otf_parse ps = rb_cursor(rb);
        ps.kv = rb->list;
        ps.file = rb->filename;
        vftr_otf_parse_blanks(&ps);
        if (!(ps.p[0] == 'K' && (ps.p[1] < 'A' || ps.p[1] > 'Z' ||
                                 strncmp(ps.p, "KEY", 3) == 0)))
            return n;
        ps.p += strncmp(ps.p, "KEY", 3) == 0 ? 3 : 1;
        if (!vftr_otf_parse_kv(&ps))
            return n;
        rb->pos = (uint32_t)(ps.end - rb->buffer) + 1;
        n++;
    }
}
