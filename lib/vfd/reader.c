/*
 * reader.c — the one .vfd reader every vftr tool uses.
 *
 * The file is mapped (or read into memory when it cannot be mapped) and
 * walked chunk by chunk.  Records are decoded lazily, one per call of
 * next(), so a tool streams through a 1 GiB trace without holding its
 * events; only definitions are kept, in id-keyed tables, for lookups.
 *
 * Damage is expected, not exceptional: capture may be killed mid-write, the
 * disk may fill, several threads' puts may leave a hole when one of them
 * dies.  So: a file that ends inside a chunk ends the data with a warning;
 * a chunk whose header or payload fails its CRC is skipped by searching the
 * following bytes for a chunk header whose own CRC holds; only when nothing
 * valid follows does next() return an error.  Nothing is allocated from a
 * size read in the file: payloads are used in place, and names are copied
 * only after their length was checked against the payload that holds them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfd_internal.h"
#include "vftr_vfd.h"
#include "util/regfile.h"

#define MSG_MAX VFTR_VFD_ERR_MAX
#if defined(__GNUC__)
#  define PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define PRINTF(a, b)
#endif
/* Largest header_size a reader accepts (a later version may grow it). */
#define HEADER_SIZE_MAX (1u << 20)

/* id -> index into items (stored as index + 1; 0 marks an empty slot),
 * open addressing with linear probing. */
struct table {
    void **items;           /* every entry ever defined, owned */
    size_t n, cap;
    uint32_t *keys, *vals;
    size_t slots, used;     /* slots is 0 or a power of two */
};

struct vftr_vfd_reader {
    const uint8_t *base;
    size_t size;
    void *map;              /* mmap'ed region, or NULL */
    uint64_t forgot;        /* where the last forget_below() stood (vfd_forget) */
    void *buf;              /* malloc'ed copy, or NULL */
    char *name;
    struct vftr_vfd_info info;
    uint64_t data_start;
    uint64_t pos;           /* offset of the next chunk to load */

    /* chunk being decoded */
    bool in_chunk;
    uint64_t c_off;
    uint16_t c_kind;
    uint32_t c_thread, c_count, c_left;
    uint64_t c_time;
    const uint8_t *c_payload, *c_p, *c_end;

    bool defs_only;         /* scan_definitions(): skip event chunks */
    bool whole_events;      /* hand event chunks over whole (whole_events()) */
    char error[MSG_MAX];
    bool has_error;
    char warning[MSG_MAX];
    bool has_warning;
    unsigned nwarnings;

    struct table functions, callpaths, threads;
    uint32_t *thread_order; /* thread ids in order of first definition */
    size_t nthread_order, thread_order_cap;
};

struct fn_entry { struct vftr_vfd_function f; char name[]; };
struct th_entry { struct vftr_vfd_thread t; char name[]; };

/* ---------------------------------------------------------------------- */
/* Tables                                                                  */

static size_t slot_of(uint32_t key, size_t slots)
{
    return (size_t)((key * 2654435761u) & (slots - 1));
}

static void *table_get(const struct table *t, uint32_t key)
{
    if (!t->slots)
        return NULL;
    for (size_t i = slot_of(key, t->slots);; i = (i + 1) & (t->slots - 1)) {
        if (!t->vals[i])
            return NULL;
        if (t->keys[i] == key)
            return t->items[t->vals[i] - 1];
    }
}

static int table_grow(struct table *t)
{
    size_t slots = t->slots ? t->slots * 2 : 64;
    uint32_t *keys = calloc(slots, sizeof *keys), *vals = calloc(slots, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -ENOMEM;
    }
    for (size_t i = 0; i < t->slots; i++) {
        if (!t->vals[i])
            continue;
        size_t j = slot_of(t->keys[i], slots);
        while (vals[j])
            j = (j + 1) & (slots - 1);
        keys[j] = t->keys[i];
        vals[j] = t->vals[i];
    }
    free(t->keys);
    free(t->vals);
    t->keys = keys;
    t->vals = vals;
    t->slots = slots;
    return 0;
}

/* Takes ownership of item (freed here on failure).  Returns 1 when key was
 * new, 0 when it replaced an entry, -ENOMEM. */
static int table_put(struct table *t, uint32_t key, void *item)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        void **items = realloc(t->items, cap * sizeof *items);
        if (!items) {
            free(item);
            return -ENOMEM;
        }
        t->items = items;
        t->cap = cap;
    }
    if ((t->used + 1) * 4 > t->slots * 3 && table_grow(t) < 0) {
        free(item);
        return -ENOMEM;
    }
    if (t->n >= UINT32_MAX) {
        free(item);
        return -ENOMEM;
    }
    t->items[t->n++] = item;
    size_t i = slot_of(key, t->slots);
    while (t->vals[i] && t->keys[i] != key)
        i = (i + 1) & (t->slots - 1);
    int fresh = !t->vals[i];
    t->keys[i] = key;
    t->vals[i] = (uint32_t)t->n;
    t->used += fresh;
    return fresh;
}

static void table_release(struct table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->items[i]);
    free(t->items);
    free(t->keys);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------- */
/* Messages                                                                */

PRINTF(4, 0)
static void fmt_msg(char *dst, const char *name, uint64_t off, const char *fmt, va_list ap)
{
    int k = snprintf(dst, MSG_MAX, "%s: offset %llu: ", name, (unsigned long long)off);
    if (k < 0 || k >= MSG_MAX)
        return;
    vsnprintf(dst + k, MSG_MAX - (size_t)k, fmt, ap);
}

PRINTF(3, 4)
static int fail(struct vftr_vfd_reader *r, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmt_msg(r->error, r->name, off, fmt, ap);
    va_end(ap);
    r->has_error = true;
    return -EBADMSG;
}

/* Keeps the first warning of a call of next(); counts all. */
PRINTF(3, 4)
static void warn(struct vftr_vfd_reader *r, uint64_t off, const char *fmt, ...)
{
    r->nwarnings++;
    if (r->has_warning)
        return;
    va_list ap;
    va_start(ap, fmt);
    fmt_msg(r->warning, r->name, off, fmt, ap);
    va_end(ap);
    r->has_warning = true;
}

/* ---------------------------------------------------------------------- */
/* Opening                                                                 */

static void header_error(char *err, size_t errlen, const char *name, uint64_t off,
                         const char *fmt, ...) PRINTF(5, 6);

static void header_error(char *err, size_t errlen, const char *name, uint64_t off,
                         const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    fmt_msg(msg, name, off, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s", msg);
}

static void copy_field(char *dst, const uint8_t *src, size_t max)
{
    size_t n = strnlen((const char *)src, max - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Checks the header of r's bytes and fills r->info.  0 or -errno. */
static int read_header(struct vftr_vfd_reader *r, char *err, size_t errlen)
{
    const uint8_t *h = r->base;
    size_t size = r->size;

    if (size < VFD_MAGIC_LEN || memcmp(h, VFD_MAGIC, VFD_MAGIC_LEN) != 0) {
        if (size < VFD_MAGIC_LEN && memcmp(h, VFD_MAGIC, size) == 0)
            header_error(err, errlen, r->name, size,
                         "truncated header (expected %u bytes, found %zu)",
                         VFTR_VFD_HEADER_SIZE, size);
        else
            header_error(err, errlen, r->name, 0,
                         "not a .vfd file (expected the magic 89 56 46 44 0d 0a 1a 0a)");
        return -EBADMSG;
    }
    if (size < VFD_H_HEADER_SIZE + 4) {
        header_error(err, errlen, r->name, size, "truncated header (expected %u bytes, found %zu)",
                     VFTR_VFD_HEADER_SIZE, size);
        return -EBADMSG;
    }
    uint32_t version = vfd_get32(h + VFD_H_VERSION);
    if (version > VFTR_VFD_VERSION) {
        header_error(err, errlen, r->name, VFD_H_VERSION,
                     "format version %u is newer than this reader's (%u): update vftr",
                     version, VFTR_VFD_VERSION);
        return -EPROTONOSUPPORT;
    }
    if (version == 0) {
        header_error(err, errlen, r->name, VFD_H_VERSION,
                     "format version 0 (expected 1 to %u)", VFTR_VFD_VERSION);
        return -EBADMSG;
    }
    uint32_t hsize = vfd_get32(h + VFD_H_HEADER_SIZE);
    if (hsize < VFTR_VFD_HEADER_SIZE || hsize > HEADER_SIZE_MAX) {
        header_error(err, errlen, r->name, VFD_H_HEADER_SIZE,
                     "header size %u (expected %u to %u)", hsize, VFTR_VFD_HEADER_SIZE,
                     HEADER_SIZE_MAX);
        return -EBADMSG;
    }
    if (size < hsize) {
        header_error(err, errlen, r->name, size,
                     "truncated header (expected %u bytes, found %zu)", hsize, size);
        return -EBADMSG;
    }
    uint8_t zero[4] = { 0, 0, 0, 0 };
    uint32_t crc = vftr_vfd_crc32c(0, h, VFD_H_CRC);
    crc = vftr_vfd_crc32c(crc, zero, 4);
    crc = vftr_vfd_crc32c(crc, h + VFD_H_CRC + 4, hsize - VFD_H_CRC - 4);
    if (crc != vfd_get32(h + VFD_H_CRC)) {
        header_error(err, errlen, r->name, VFD_H_CRC,
                     "header CRC mismatch (expected 0x%08x, computed 0x%08x)",
                     vfd_get32(h + VFD_H_CRC), crc);
        return -EBADMSG;
    }

    struct vftr_vfd_info *in = &r->info;
    uint32_t flags = vfd_get32(h + VFD_H_FLAGS);
    in->version = version;
    memcpy(in->run_id, h + VFD_H_RUN_ID, sizeof in->run_id);
    in->pid = (int64_t)vfd_get64(h + VFD_H_PID);
    in->rank = (int32_t)vfd_get32(h + VFD_H_RANK);
    in->size = (int32_t)vfd_get32(h + VFD_H_SIZE);
    in->ticks_per_second = vfd_get64(h + VFD_H_TPS);
    in->start_ns = vfd_get64(h + VFD_H_START_NS);
    in->start_ticks = vfd_get64(h + VFD_H_START_TICKS);
    in->end_ns = vfd_get64(h + VFD_H_END_NS);
    in->end_ticks = vfd_get64(h + VFD_H_END_TICKS);
    in->events = vfd_get64(h + VFD_H_EVENTS);
    in->chunks = vfd_get64(h + VFD_H_CHUNKS);
    in->bytes = vfd_get64(h + VFD_H_BYTES);
    in->events_lost = vfd_get64(h + VFD_H_EVENTS_LOST);
    in->sample_ticks = vfd_get64(h + VFD_H_SAMPLE_TICKS);
    in->signal = (int32_t)vfd_get32(h + VFD_H_SIGNAL);
    in->complete = !!(flags & VFD_FLAG_COMPLETE);
    in->capped = !!(flags & VFD_FLAG_CAPPED);
    in->abandoned = !!(flags & VFD_FLAG_ABANDONED);
    copy_field(in->host, h + VFD_H_HOST, VFTR_VFD_HOST_MAX);
    copy_field(in->exe, h + VFD_H_EXE, VFTR_VFD_EXE_MAX);
    r->data_start = r->pos = hsize;
    return 0;
}

static struct vftr_vfd_reader *reader_new(const char *name)
{
    struct vftr_vfd_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->name = strdup(name ? name : "(memory)");
    if (!r->name) {
        free(r);
        return NULL;
    }
    return r;
}

static struct vftr_vfd_reader *finish_open(struct vftr_vfd_reader *r, char *err, size_t errlen)
{
    int rc = read_header(r, err, errlen);
    if (rc < 0) {
        vftr_vfd_reader_close(r);
        errno = -rc;
        return NULL;
    }
    return r;
}

struct vftr_vfd_reader *vftr_vfd_reader_open_mem(const void *buf, size_t len, const char *name,
                                                 char *err, size_t errlen)
{
    if (!buf && len) {
        errno = EINVAL;
        return NULL;
    }
    struct vftr_vfd_reader *r = reader_new(name);
    if (!r)
        return NULL;
    r->base = buf ? buf : (const void *)"";
    r->size = len;
    return finish_open(r, err, errlen);
}

struct vftr_vfd_reader *vftr_vfd_reader_open_msg(const char *path, char *err, size_t errlen)
{
    if (!path) {
        errno = EINVAL;
        return NULL;
    }
    /* a FIFO or device named like a .vfd file is refused, never waited on */
    const char *kind;
    int fd = vftr_open_regular(path, O_RDONLY, 0, &kind);
    if (fd < 0) {
        int e = -fd;
        if (err && errlen && kind)
            snprintf(err, errlen, "%s: is %s, expected a .vfd file (a regular file)", path, kind);
        else if (err && errlen)
            snprintf(err, errlen, "%s: cannot open (%s)", path, strerror(e));
        errno = e;
        return NULL;
    }
    struct stat st;
    struct vftr_vfd_reader *r = NULL;
    int e = 0;
    if (fstat(fd, &st) < 0) {
        e = errno;
        goto out;
    }
    r = reader_new(path);
    if (!r) {
        e = errno;
        goto out;
    }
    r->size = (size_t)st.st_size;
    if (r->size) {
        r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (r->map == MAP_FAILED) {
            /* Some file systems cannot map: read the file instead. */
            r->map = NULL;
            r->buf = malloc(r->size);
            if (!r->buf) {
                e = ENOMEM;
                goto out;
            }
            size_t got = 0;
            while (got < r->size) {
                ssize_t k = pread(fd, (uint8_t *)r->buf + got, r->size - got, (off_t)got);
                if (k < 0 && errno == EINTR)
                    continue;
                if (k <= 0)
                    break;
                got += (size_t)k;
            }
            r->size = got; /* a file that shrank meanwhile reads as cut */
        }
    }
    r->base = r->map ? r->map : r->buf ? r->buf : (const void *)"";
out:
    close(fd);
    if (e) {
        vftr_vfd_reader_close(r);
        if (err && errlen && e != EINVAL)
            snprintf(err, errlen, "%s: cannot read (%s)", path, strerror(e));
        errno = e;
        return NULL;
    }
    return finish_open(r, err, errlen);
}

struct vftr_vfd_reader *vftr_vfd_reader_open(const char *path)
{
    return vftr_vfd_reader_open_msg(path, NULL, 0);
}

const struct vftr_vfd_info *vftr_vfd_reader_info(const struct vftr_vfd_reader *r)
{
    return r ? &r->info : NULL;
}

void vftr_vfd_reader_close(struct vftr_vfd_reader *r)
{
    if (!r)
        return;
    if (r->map)
        munmap(r->map, r->size);
    free(r->buf);
    free(r->name);
    table_release(&r->functions);
    table_release(&r->callpaths);
    table_release(&r->threads);
    free(r->thread_order);
    free(r);
}

/* ---------------------------------------------------------------------- */
/* Chunks                                                                  */

static const char *kind_name(uint16_t kind)
{
    switch (kind) {
    case VFTR_VFD_CHUNK_EVENTS: return "events";
    case VFTR_VFD_CHUNK_FUNCTIONS: return "functions";
    case VFTR_VFD_CHUNK_CALLPATHS: return "call paths";
    case VFTR_VFD_CHUNK_THREADS: return "threads";
    default: return "unknown";
    }
}

/* Does a plausible chunk header start at off: magic, header CRC, a payload
 * length a writer can produce?  (Whether the payload is whole is checked
 * when the chunk is loaded.) */
static bool header_ok(const struct vftr_vfd_reader *r, uint64_t off)
{
    const uint8_t *c = r->base + off;
    return r->size - off >= VFTR_VFD_CHUNK_HEADER_SIZE && memcmp(c, VFD_CHUNK_MAGIC, 4) == 0 &&
           vftr_vfd_crc32c(0, c, VFD_C_HEADER_CRC) == vfd_get32(c + VFD_C_HEADER_CRC) &&
           vfd_get32(c + VFD_C_LENGTH) <= VFTR_VFD_MAX_PAYLOAD;
}

/* Offset of the next chunk header at or after from, or the offset of a
 * magic too close to the end to hold a header (a truncated header), or
 * UINT64_MAX when neither exists. */
static uint64_t find_chunk(const struct vftr_vfd_reader *r, uint64_t from)
{
    while (from < r->size) {
        const uint8_t *p = memmem(r->base + from, r->size - from, VFD_CHUNK_MAGIC, 4);
        if (!p) {
            /* A header cut inside its magic still ends the data cleanly. */
            size_t tail = r->size - from < 3 ? r->size - from : 3;
            for (size_t k = tail; k > 0; k--)
                if (memcmp(r->base + r->size - k, VFD_CHUNK_MAGIC, k) == 0)
                    return r->size - k;
            return UINT64_MAX;
        }
        uint64_t off = (uint64_t)(p - r->base);
        if (r->size - off < VFTR_VFD_CHUNK_HEADER_SIZE || header_ok(r, off))
            return off;
        from = off + 1;
    }
    return UINT64_MAX;
}

/* The mapping's pages before the chunk at off leave the resident memory
 * (vfd_forget). */
static void forget_below(struct vftr_vfd_reader *r, uint64_t off)
{
    vfd_forget(r->map, r->size, &r->forgot, off, 0);
}

/* Makes the chunk at r->pos current, skipping damage.  Returns 1 with a
 * chunk loaded, 0 at the end of the data, -EBADMSG when damage is not
 * followed by any chunk. */
static int load_chunk(struct vftr_vfd_reader *r)
{
    forget_below(r, r->pos);
    for (;;) {
        uint64_t off = r->pos;
        if (off >= r->size)
            return 0;
        uint64_t rem = r->size - off;
        const uint8_t *c = r->base + off;
        if (rem < VFTR_VFD_CHUNK_HEADER_SIZE) {
            warn(r, off, "truncated chunk header (expected %u bytes, found %llu): end of data",
                 VFTR_VFD_CHUNK_HEADER_SIZE, (unsigned long long)rem);
            r->pos = r->size;
            return 0;
        }
        char problem[160];
        uint32_t len = vfd_get32(c + VFD_C_LENGTH);
        uint64_t retry = off + 1;
        if (memcmp(c, VFD_CHUNK_MAGIC, 4) != 0) {
            snprintf(problem, sizeof problem, "bad chunk magic (expected \"VFDC\")");
        } else if (vftr_vfd_crc32c(0, c, VFD_C_HEADER_CRC) != vfd_get32(c + VFD_C_HEADER_CRC)) {
            snprintf(problem, sizeof problem,
                     "chunk header CRC mismatch (expected 0x%08x, computed 0x%08x)",
                     vfd_get32(c + VFD_C_HEADER_CRC), vftr_vfd_crc32c(0, c, VFD_C_HEADER_CRC));
        } else if (len > VFTR_VFD_MAX_PAYLOAD) {
            snprintf(problem, sizeof problem,
                     "absurd chunk payload length %u (at most %u)", len, VFTR_VFD_MAX_PAYLOAD);
        } else if (VFTR_VFD_CHUNK_HEADER_SIZE + (uint64_t)len > rem) {
            uint16_t kind = vfd_get16(c + VFD_C_KIND);
            uint64_t found = rem - VFTR_VFD_CHUNK_HEADER_SIZE;
            if (kind == VFTR_VFD_CHUNK_EVENTS) {
                uint64_t t = vfd_get64(c + VFD_C_FIRST_TIME);
                uint64_t tps = r->info.ticks_per_second;
                char secs[64] = "";
                if (tps && t >= r->info.start_ticks)
                    snprintf(secs, sizeof secs, " (%.6f s after the start)",
                             (double)(t - r->info.start_ticks) / (double)tps);
                warn(r, off,
                     "truncated chunk (expected %u bytes of payload, found %llu): "
                     "the data of thread %u ends at tick %llu%s",
                     len, (unsigned long long)found, vfd_get32(c + VFD_C_THREAD),
                     (unsigned long long)t, secs);
            } else {
                warn(r, off,
                     "truncated %s chunk (expected %u bytes of payload, found %llu): "
                     "its definitions are lost",
                     kind_name(kind), len, (unsigned long long)found);
            }
            r->pos = r->size;
            return 0;
        } else {
            uint32_t want = vfd_get32(c + VFD_C_PAYLOAD_CRC);
            uint32_t got = vftr_vfd_crc32c(0, c + VFTR_VFD_CHUNK_HEADER_SIZE, len);
            if (want == got) {
                r->in_chunk = true;
                r->c_off = off;
                r->c_kind = vfd_get16(c + VFD_C_KIND);
                r->c_thread = vfd_get32(c + VFD_C_THREAD);
                r->c_count = r->c_left = vfd_get32(c + VFD_C_COUNT);
                r->c_time = vfd_get64(c + VFD_C_FIRST_TIME);
                r->c_payload = r->c_p = c + VFTR_VFD_CHUNK_HEADER_SIZE;
                r->c_end = r->c_p + len;
                r->pos = off + VFTR_VFD_CHUNK_HEADER_SIZE + len;
                return 1;
            }
            snprintf(problem, sizeof problem,
                     "chunk payload CRC mismatch (expected 0x%08x, computed 0x%08x)", want, got);
            /* The header is sound: the next chunk most likely follows it. */
            if (header_ok(r, off + VFTR_VFD_CHUNK_HEADER_SIZE + len) ||
                off + VFTR_VFD_CHUNK_HEADER_SIZE + len == r->size)
                retry = off + VFTR_VFD_CHUNK_HEADER_SIZE + len;
        }
        uint64_t next = retry < r->size ? find_chunk(r, retry) : retry;
        if (next == r->size) {
            warn(r, off, "%s; nothing follows it: end of data", problem);
            r->pos = r->size;
            return 0;
        }
        if (next == UINT64_MAX) {
            r->pos = r->size;
            return fail(r, off, "%s; no valid chunk follows (%llu bytes lost)", problem,
                        (unsigned long long)rem);
        }
        warn(r, off, "%s; skipped %llu bytes to the next chunk at offset %llu", problem,
             (unsigned long long)(next - off), (unsigned long long)next);
        r->pos = next;
    }
}

/* ---------------------------------------------------------------------- */
/* Records                                                                 */

static uint64_t here(const struct vftr_vfd_reader *r)
{
    return (uint64_t)(r->c_p - r->base);
}

/* A record that does not decode: the chunk is dropped (its CRC held, so the
 * writer produced it this way: a bug, not damage). */
PRINTF(3, 4)
static int bad_record(struct vftr_vfd_reader *r, uint64_t off, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->in_chunk = false;
    return fail(r, off, "%s chunk at offset %llu, record %u of %u: %s", kind_name(r->c_kind),
                (unsigned long long)r->c_off, r->c_count - r->c_left + 1, r->c_count, what);
}

static int get_u32(struct vftr_vfd_reader *r, uint32_t *v, const char *field)
{
    uint64_t x;
    uint64_t off = here(r);
    if (vfd_get_varint(&r->c_p, r->c_end, &x) < 0)
        return bad_record(r, off, "bad varint for %s", field);
    if (x > UINT32_MAX)
        return bad_record(r, off, "%s %llu (expected at most %u)", field, (unsigned long long)x,
                          UINT32_MAX);
    *v = (uint32_t)x;
    return 0;
}

static int get_u64(struct vftr_vfd_reader *r, uint64_t *v, const char *field)
{
    uint64_t off = here(r);
    if (vfd_get_varint(&r->c_p, r->c_end, v) < 0)
        return bad_record(r, off, "bad varint for %s", field);
    return 0;
}

static int get_bytes(struct vftr_vfd_reader *r, const uint8_t **data, uint32_t *len,
                     const char *field)
{
    uint64_t off = here(r);
    if (get_u32(r, len, field) < 0)
        return -EBADMSG;
    if (*len > (size_t)(r->c_end - r->c_p))
        return bad_record(r, off, "%s of %u bytes (only %zu left in the payload)", field, *len,
                          (size_t)(r->c_end - r->c_p));
    *data = r->c_p;
    r->c_p += *len;
    return 0;
}

static int decode_event(struct vftr_vfd_reader *r, struct vftr_vfd_record *rec)
{
    uint64_t off = here(r), tag, delta;
    if (get_u64(r, &tag, "event tag") < 0 || get_u64(r, &delta, "time delta") < 0)
        return -EBADMSG;
    uint64_t kind = tag >> 2;
    if (kind > UINT32_MAX)
        return bad_record(r, off, "event tag %llu (id over 32 bits)", (unsigned long long)tag);
    r->c_time += delta;
    rec->type = VFTR_VFD_REC_EVENT;
    rec->u.event.time = r->c_time;
    rec->u.event.data = NULL;
    if ((tag & 3) != VFD_CODE_EXT) {
        rec->u.event.kind = VFTR_VFD_ENTER + (uint32_t)(tag & 3);
        rec->u.event.id = (uint32_t)kind;
        return 1;
    }
    if (kind < VFTR_VFD_PAUSE)
        return bad_record(r, off, "extended event of kind %llu (expected at least %d)",
                          (unsigned long long)kind, VFTR_VFD_PAUSE);
    uint32_t len;
    const uint8_t *data;
    if (get_bytes(r, &data, &len, "event payload") < 0)
        return -EBADMSG;
    rec->u.event.kind = (uint32_t)kind;
    rec->u.event.id = len;
    rec->u.event.data = data;
    return 1;
}

static int remember_thread_order(struct vftr_vfd_reader *r, uint32_t id)
{
    if (r->nthread_order == r->thread_order_cap) {
        size_t cap = r->thread_order_cap ? r->thread_order_cap * 2 : 16;
        uint32_t *o = realloc(r->thread_order, cap * sizeof *o);
        if (!o)
            return -ENOMEM;
        r->thread_order = o;
        r->thread_order_cap = cap;
    }
    r->thread_order[r->nthread_order++] = id;
    return 0;
}

static int decode_function(struct vftr_vfd_reader *r, struct vftr_vfd_record *rec)
{
    struct vftr_vfd_function f;
    const uint8_t *name;
    uint32_t len;
    if (get_u32(r, &f.id, "function id") < 0 || get_u32(r, &f.flags, "function flags") < 0 ||
        get_u64(r, &f.address, "function address") < 0 ||
        get_bytes(r, &name, &len, "function name") < 0)
        return -EBADMSG;
    struct fn_entry *e = table_get(&r->functions, f.id);
    if (!e || e->f.flags != f.flags || e->f.address != f.address || strlen(e->name) != len ||
        memcmp(e->name, name, len) != 0) {
        e = malloc(sizeof *e + len + 1);
        if (!e)
            return -ENOMEM;
        memcpy(e->name, name, len);
        e->name[len] = '\0';
        e->f = f;
        e->f.name = e->name;
        int rc = table_put(&r->functions, f.id, e);
        if (rc < 0)
            return rc;
    }
    rec->type = VFTR_VFD_REC_FUNCTION;
    rec->u.function = e->f;
    return 1;
}

static int decode_callpath(struct vftr_vfd_reader *r, struct vftr_vfd_record *rec)
{
    struct vftr_vfd_callpath c;
    if (get_u32(r, &c.id, "call path id") < 0 || get_u32(r, &c.parent, "parent id") < 0 ||
        get_u32(r, &c.function, "function id") < 0 || get_u32(r, &c.thread, "thread") < 0)
        return -EBADMSG;
    struct vftr_vfd_callpath *e = table_get(&r->callpaths, c.id);
    if (!e || memcmp(e, &c, sizeof c) != 0) {
        e = malloc(sizeof *e);
        if (!e)
            return -ENOMEM;
        *e = c;
        int rc = table_put(&r->callpaths, c.id, e);
        if (rc < 0)
            return rc;
    }
    rec->type = VFTR_VFD_REC_CALLPATH;
    rec->u.callpath = c;
    return 1;
}

static int decode_thread(struct vftr_vfd_reader *r, struct vftr_vfd_record *rec)
{
    struct vftr_vfd_thread t;
    const uint8_t *name;
    uint32_t len;
    if (get_u32(r, &t.id, "thread id") < 0 || get_u32(r, &t.parent, "parent thread") < 0 ||
        get_u64(r, &t.os_tid, "os tid") < 0 || get_u64(r, &t.created, "creation time") < 0 ||
        get_bytes(r, &name, &len, "thread name") < 0)
        return -EBADMSG;
    struct th_entry *e = table_get(&r->threads, t.id);
    if (!e || e->t.parent != t.parent || e->t.os_tid != t.os_tid ||
        e->t.created != t.created || strlen(e->name) != len || memcmp(e->name, name, len)) {
        e = malloc(sizeof *e + len + 1);
        if (!e)
            return -ENOMEM;
        memcpy(e->name, name, len);
        e->name[len] = '\0';
        e->t = t;
        e->t.name = e->name;
        int rc = table_put(&r->threads, t.id, e);
        if (rc < 0)
            return rc;
        if (rc == 1 && remember_thread_order(r, t.id) < 0)
            return -ENOMEM;
    }
    rec->type = VFTR_VFD_REC_THREAD;
    rec->u.thread = e->t;
    return 1;
}

/* Decodes the next record of the current chunk: 1, 0 when the chunk is
 * used up, negative on a bad record. */
static int next_in_chunk(struct vftr_vfd_reader *r, struct vftr_vfd_record *rec)
{
    if (!r->c_left) {
        r->in_chunk = false;
        if (r->c_p != r->c_end && r->c_kind <= VFTR_VFD_CHUNK_THREADS)
            return fail(r, here(r), "%s chunk at offset %llu: %zu bytes after its %u records",
                        kind_name(r->c_kind), (unsigned long long)r->c_off,
                        (size_t)(r->c_end - r->c_p), r->c_count);
        return 0;
    }
    if (r->c_p >= r->c_end) {
        r->in_chunk = false;
        return fail(r, here(r), "%s chunk at offset %llu: payload ends after %u of %u records",
                    kind_name(r->c_kind), (unsigned long long)r->c_off, r->c_count - r->c_left,
                    r->c_count);
    }
    memset(rec, 0, sizeof *rec);
    rec->thread = r->c_thread;
    rec->offset = r->c_off;
    int rc;
    switch (r->c_kind) {
    case VFTR_VFD_CHUNK_EVENTS: rc = decode_event(r, rec); break;
    case VFTR_VFD_CHUNK_FUNCTIONS: rc = decode_function(r, rec); break;
    case VFTR_VFD_CHUNK_CALLPATHS: rc = decode_callpath(r, rec); break;
    case VFTR_VFD_CHUNK_THREADS: rc = decode_thread(r, rec); break;
    default: rc = 0; break;
    }
    if (rc > 0)
        r->c_left--;
    else
        r->in_chunk = false;
    return rc;
}

int vftr_vfd_reader_next(struct vftr_vfd_reader *r, struct vftr_vfd_record *rec)
{
    if (!r || !rec)
        return -EINVAL;
    r->has_warning = false;
    r->has_error = false;
    for (;;) {
        if (r->in_chunk) {
            int rc = next_in_chunk(r, rec);
            if (rc != 0)
                return rc;
            continue;
        }
        int rc = load_chunk(r);
        if (rc <= 0)
            return rc;
        uint16_t kind = r->c_kind;
        if (kind == VFTR_VFD_CHUNK_EVENTS && r->defs_only) {
            r->in_chunk = false;
            continue;
        }
        if (kind < VFTR_VFD_CHUNK_EVENTS || kind > VFTR_VFD_CHUNK_THREADS ||
            (kind == VFTR_VFD_CHUNK_EVENTS && r->whole_events)) {
            /* Unknown kinds (and events chunks in whole_events mode) are
             * handed over whole; their CRC held. */
            r->in_chunk = false;
            memset(rec, 0, sizeof *rec);
            rec->type = VFTR_VFD_REC_UNKNOWN;
            rec->thread = r->c_thread;
            rec->offset = r->c_off;
            rec->u.unknown.kind = kind;
            rec->u.unknown.length = (uint32_t)(r->c_end - r->c_payload);
            rec->u.unknown.count = r->c_count;
            rec->u.unknown.payload = r->c_payload;
            rec->u.unknown.time = r->c_time;
            return 1;
        }
    }
}

void vftr_vfd_reader_whole_events(struct vftr_vfd_reader *r, int on)
{
    if (r)
        r->whole_events = on != 0;
}

void vftr_vfd_reader_rewind(struct vftr_vfd_reader *r)
{
    if (!r)
        return;
    r->pos = r->data_start;
    r->in_chunk = false;
}

int vftr_vfd_reader_scan_definitions(struct vftr_vfd_reader *r)
{
    if (!r)
        return -EINVAL;
    /* Save the cursor, walk the file for definitions only, restore. */
    uint64_t pos = r->pos, c_off = r->c_off, c_time = r->c_time;
    bool in_chunk = r->in_chunk;
    uint16_t c_kind = r->c_kind;
    uint32_t c_thread = r->c_thread, c_count = r->c_count, c_left = r->c_left;
    const uint8_t *c_payload = r->c_payload, *c_p = r->c_p, *c_end = r->c_end;
    char warning[MSG_MAX];
    bool has_warning = false;
    int rc, result = 0;
    struct vftr_vfd_record rec;

    vftr_vfd_reader_rewind(r);
    r->defs_only = true;
    do {
        rc = vftr_vfd_reader_next(r, &rec);
        if (r->has_warning && !has_warning) {
            memcpy(warning, r->warning, sizeof warning);
            has_warning = true;
        }
        if (rc < 0 && !result)
            result = rc;
    } while (rc != 0); /* every failure moves past the chunk it met */
    r->defs_only = false;
    if (has_warning) {
        memcpy(r->warning, warning, sizeof warning);
        r->has_warning = true;
    }
    if (result < 0)
        r->has_error = true; /* r->error kept the message of the last failure */
    r->pos = pos;
    r->c_off = c_off;
    r->c_time = c_time;
    r->in_chunk = in_chunk;
    r->c_kind = c_kind;
    r->c_thread = c_thread;
    r->c_count = c_count;
    r->c_left = c_left;
    r->c_payload = c_payload;
    r->c_p = c_p;
    r->c_end = c_end;
    return result;
}

const char *vftr_vfd_reader_error(const struct vftr_vfd_reader *r)
{
    return r && r->has_error ? r->error : NULL;
}

const char *vftr_vfd_reader_warning(const struct vftr_vfd_reader *r)
{
    return r && r->has_warning ? r->warning : NULL;
}

unsigned vftr_vfd_reader_warnings(const struct vftr_vfd_reader *r)
{
    return r ? r->nwarnings : 0;
}

const struct vftr_vfd_function *vftr_vfd_reader_function(const struct vftr_vfd_reader *r,
                                                         uint32_t id)
{
    const struct fn_entry *e = r ? table_get(&r->functions, id) : NULL;
    return e ? &e->f : NULL;
}

const struct vftr_vfd_callpath *vftr_vfd_reader_callpath(const struct vftr_vfd_reader *r,
                                                         uint32_t id)
{
    return r ? table_get(&r->callpaths, id) : NULL;
}

const struct vftr_vfd_thread *vftr_vfd_reader_thread(const struct vftr_vfd_reader *r, uint32_t id)
{
    const struct th_entry *e = r ? table_get(&r->threads, id) : NULL;
    return e ? &e->t : NULL;
}

const char *vftr_vfd_reader_callpath_name(const struct vftr_vfd_reader *r, uint32_t id)
{
    const struct vftr_vfd_callpath *c = vftr_vfd_reader_callpath(r, id);
    const struct vftr_vfd_function *f = c ? vftr_vfd_reader_function(r, c->function) : NULL;
    return f ? f->name : NULL;
}

size_t vftr_vfd_reader_thread_count(const struct vftr_vfd_reader *r)
{
    return r ? r->nthread_order : 0;
}

const struct vftr_vfd_thread *vftr_vfd_reader_thread_at(const struct vftr_vfd_reader *r, size_t i)
{
    if (!r || i >= r->nthread_order)
        return NULL;
    return vftr_vfd_reader_thread(r, r->thread_order[i]);
}
