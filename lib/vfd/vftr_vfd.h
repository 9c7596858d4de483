/*
 * vftr_vfd.h — the .vfd raw-trace format: what libvftrcapture writes while a
 * program runs, and the one reader every vftr tool uses.
 *
 * share/doc/vfd-format.md describes the bytes on disk.  In short: a fixed
 * header of VFTR_VFD_HEADER_SIZE bytes (written at open with complete = 0,
 * rewritten at close), then self-delimiting chunks, each a
 * VFTR_VFD_CHUNK_HEADER_SIZE-byte header (magic, kind, thread, payload
 * length, record count, CRC-32C of the payload, first and last time stamp,
 * CRC-32C of the header) and its payload.  A file cut anywhere (SIGKILL, full
 * disk) stays readable up to its last whole chunk.
 *
 * Writing is split in two so that capture's flush path needs no allocation
 * and no lock:
 *   1. an encoder (vftr_vfd_encode_*) turns records into one complete chunk
 *      in a buffer the caller owns;
 *   2. vftr_vfd_writer_put() appends that chunk to the file (the offset is
 *      reserved with an atomic add, then pwrite).
 * Encoders and put are thread-safe and async-signal-safe.
 *
 * Error convention: int functions return 0 (or a count) or -errno;
 * constructors return NULL and set errno.  Nothing here prints, exits or
 * aborts.
 */
#ifndef VFTR_VFD_VFTR_VFD_H
#define VFTR_VFD_VFTR_VFD_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------- */
/* Constants of the format                                                 */

#define VFTR_VFD_VERSION            1u    /* format version this code writes and reads */
#define VFTR_VFD_HEADER_SIZE        4096u /* file header; the first chunk starts here */
#define VFTR_VFD_CHUNK_HEADER_SIZE  48u
#define VFTR_VFD_MAX_PAYLOAD        (64u << 20) /* larger payload lengths are corrupt */
#define VFTR_VFD_HOST_MAX           256u  /* host name field, NUL included */
#define VFTR_VFD_EXE_MAX            2048u /* executable path field, NUL included */
#define VFTR_VFD_NO_THREAD          UINT32_MAX /* parent of the main thread */

/* Chunk kinds (uint16 on disk).  A reader skips kinds it does not know. */
enum vftr_vfd_chunk_kind {
    VFTR_VFD_CHUNK_EVENTS = 1,      /* events of one thread, in time order */
    VFTR_VFD_CHUNK_FUNCTIONS = 2,   /* function definitions */
    VFTR_VFD_CHUNK_CALLPATHS = 3,   /* call path definitions */
    VFTR_VFD_CHUNK_THREADS = 4,     /* thread definitions */
    /* 5..15 reserved for vftr's own future definition kinds */
    VFTR_VFD_CHUNK_COUNTERS = 12,   /* counter definitions (vftr_vfd_counters.h) */
    /* Reserved for issue 4 (MPI, OpenMP); payloads described in vfd-format.md */
    VFTR_VFD_CHUNK_MPI_MESSAGES = 16,
    VFTR_VFD_CHUNK_MPI_COLLECTIVES = 17,
    VFTR_VFD_CHUNK_MPI_COMMS = 18,
    VFTR_VFD_CHUNK_OMP_REGIONS = 19,
    VFTR_VFD_CHUNK_CLOCK_OFFSETS = 20,
    VFTR_VFD_CHUNK_RUN_ID = 21,
    VFTR_VFD_CHUNK_IO_FILES = 22,   /* files of file I/O records (vftr_vfd_ext.h) */
};

/* ---------------------------------------------------------------------- */
/* Events: the in-memory form the capture hot path appends to a per-thread
 * array, and what the reader gives back.                                  */

struct vftr_vfd_event {     /* 16 bytes */
    uint64_t time;          /* clock ticks (the header says ticks per second) */
    uint32_t kind;          /* VFTR_VFD_ENTER, VFTR_VFD_EXIT, ... */
    uint32_t id;            /* call path id; for kinds >= VFTR_VFD_PAUSE: payload length */
};
_Static_assert(sizeof(struct vftr_vfd_event) == 16, "struct vftr_vfd_event is 16 bytes");

/*
 * Event kinds.  ENTER, EXIT and SAMPLE carry a call path id.  Every other
 * kind is an "extended" event: its id is the length in bytes of a payload
 * that follows in the next ceil(id / 16) array slots (their 16 raw bytes
 * each, in order); PAUSE and RESUME have none (id 0).  On disk an extended
 * event is length-prefixed, so a reader that does not know its kind skips it.
 */
enum {
    VFTR_VFD_ENTER = 1,     /* the thread entered call path id */
    VFTR_VFD_EXIT = 2,      /* the thread left call path id */
    VFTR_VFD_SAMPLE = 3,    /* at this time the thread was in call path id */
    VFTR_VFD_PAUSE = 4,     /* vftr_pause(): recording stops */
    VFTR_VFD_RESUME = 5,    /* vftr_resume(): recording goes on */
    VFTR_VFD_THROTTLE = 6,  /* payload: varint call path id: from here on its calls are
                             * not traced (throttled), only counted in the profile */
    /* 7..11 and 13..15 reserved for vftr's future extended kinds */
    VFTR_VFD_COUNTERS = 12, /* counter values at a region boundary (vftr_vfd_counters.h) */
    VFTR_VFD_EXT_MPI_FIRST = 16, /* 16..47 reserved for MPI kinds (issue 4) */
    VFTR_VFD_EXT_MPI_LAST = 47,
    VFTR_VFD_EXT_OMP_FIRST = 48, /* 48..79 reserved for OpenMP kinds (issue 4) */
    VFTR_VFD_EXT_OMP_LAST = 79,
    VFTR_VFD_EXT_IO_FIRST = 80,  /* 80..95 reserved for file I/O kinds */
    VFTR_VFD_EXT_IO_LAST = 95,
};

/* ---------------------------------------------------------------------- */
/* Definitions                                                             */

enum {                                  /* vftr_vfd_function.flags */
    VFTR_VFD_FUNC_REGION = 1u << 0,     /* a user region (vftr_region_begin), not a symbol */
    VFTR_VFD_FUNC_PRECISE = 1u << 1,    /* every call recorded even when sampling */
    VFTR_VFD_FUNC_UNRESOLVED = 1u << 2, /* no symbol: name is the address in hex */
};

struct vftr_vfd_function {
    uint32_t id;
    uint32_t flags;         /* VFTR_VFD_FUNC_* */
    uint64_t address;       /* run-time address (0 for regions) */
    const char *name;       /* encoder: borrowed, NUL-terminated; reader: see below */
};

struct vftr_vfd_callpath {
    uint32_t id;            /* unique in the process (never 0) */
    uint32_t parent;        /* 0: a root of the thread's tree */
    uint32_t function;      /* function id */
    uint32_t thread;        /* thread whose call tree holds it */
};

struct vftr_vfd_thread {
    uint32_t id;            /* vftr's thread number, 0 = main thread */
    uint32_t parent;        /* creating thread, VFTR_VFD_NO_THREAD for the main thread */
    uint64_t os_tid;        /* gettid() */
    uint64_t created;       /* clock ticks */
    const char *name;       /* may be NULL or "" (encoder); reader: never NULL */
};

/* ---------------------------------------------------------------------- */
/* Encoders: each writes ONE complete chunk (header + payload) into out and
 * returns its size, or 0 when it does not fit in cap (or the input is
 * invalid: an extended event whose payload slots run past n, a payload over
 * VFTR_VFD_MAX_PAYLOAD, more than UINT32_MAX records).  No allocation, no
 * lock, no errno: thread-safe and async-signal-safe.                      */

/* Worst-case chunk size for n event slots (saturates at SIZE_MAX). */
size_t vftr_vfd_encode_bound(size_t n);

/* n slots of one thread's events.  Times should not decrease; a time lower
 * than its predecessor's is recorded as equal to it.  n may be 0 (an empty
 * chunk). */
size_t vftr_vfd_encode_events(const struct vftr_vfd_event *ev, size_t n, uint8_t *out,
                              size_t cap, uint32_t thread);

/*
 * Events encoded in place.  Capture's hot path writes each event's varints
 * (tag, then time delta; for extended events also the payload length and
 * the payload) straight into a buffer that keeps VFTR_VFD_CHUNK_HEADER_SIZE
 * bytes free at its start, so that a flush only has to fill in the header:
 *
 *   vftr_vfd_put_event() appends one ENTER/EXIT/SAMPLE event (at most
 *   VFTR_VFD_EVENT_MAX bytes) and returns the new end;
 *   vftr_vfd_events_finish() fills the header of chunk (payload_len bytes
 *   of count events already after it) and returns the chunk's size;
 *   vftr_vfd_events_prefix() finds how many whole events of such a payload
 *   fit into max bytes (for a size cap): their bytes, count and the time of
 *   the last of them, given the chunk's first time.  0 or -EBADMSG.
 */
#define VFTR_VFD_EVENT_MAX 20u     /* two varints of at most 10 bytes */

/* LEB128 with straight-line code for one and two bytes, the sizes of nearly
 * every tag and time step; larger values take the loop. */
static inline __attribute__((always_inline)) uint8_t *vftr_vfd_put_varint(uint8_t *p, uint64_t v)
{
    if (v < 0x80) {
        *p = (uint8_t)v;
        return p + 1;
    }
    if (v < 0x4000) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return p + 2;
    }
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* kind: VFTR_VFD_ENTER, _EXIT or _SAMPLE; delta: time since the previous
 * event of the chunk (0 for the first). */
static inline uint8_t *vftr_vfd_put_event(uint8_t *p, uint32_t kind, uint32_t id, uint64_t delta)
{
    p = vftr_vfd_put_varint(p, (uint64_t)id << 2 | (kind - VFTR_VFD_ENTER));
    return vftr_vfd_put_varint(p, delta);
}

size_t vftr_vfd_events_finish(uint8_t *chunk, size_t payload_len, uint32_t count, uint32_t thread,
                              uint64_t first, uint64_t last);
int vftr_vfd_events_prefix(const uint8_t *payload, size_t len, size_t max, uint64_t first,
                           size_t *bytes, uint32_t *count, uint64_t *last);

/* Worst-case chunk sizes of definition chunks: exact enough to size a
 * buffer (each name counts strlen). */
size_t vftr_vfd_functions_bound(const struct vftr_vfd_function *f, size_t n);
size_t vftr_vfd_threads_bound(const struct vftr_vfd_thread *t, size_t n);
size_t vftr_vfd_callpaths_bound(size_t n);

size_t vftr_vfd_encode_functions(const struct vftr_vfd_function *f, size_t n, uint8_t *out,
                                 size_t cap);
size_t vftr_vfd_encode_callpaths(const struct vftr_vfd_callpath *c, size_t n, uint8_t *out,
                                 size_t cap);
size_t vftr_vfd_encode_threads(const struct vftr_vfd_thread *t, size_t n, uint8_t *out,
                               size_t cap);

/* CRC-32C (Castagnoli, reflected, as used by iSCSI/ext4) of len bytes,
 * continuing from crc (start with 0).  Pure function. */
uint32_t vftr_vfd_crc32c(uint32_t crc, const void *buf, size_t len);

/* ---------------------------------------------------------------------- */
/* Header fields                                                           */

struct vftr_vfd_info {
    uint32_t version;           /* reader: the file's format version; writer: ignored */
    uint8_t  run_id[16];        /* random, the same for all ranks of one run */
    int64_t  pid;
    int32_t  rank, size;        /* -1: not known */
    uint64_t ticks_per_second;
    uint64_t start_ns, start_ticks;  /* wall clock (ns since the epoch) and ticks at open */
    uint64_t end_ns, end_ticks;      /* at close (0 while incomplete) */
    uint64_t events;            /* events in the file } filled by the writer at  */
    uint64_t chunks;            /* chunks in the file } close/abandon from what  */
    uint64_t bytes;             /* file size          } put() wrote              */
    uint64_t events_lost;       /* events not recorded (e.g. past the size cap) */
    /* sampled recording: an ENTER or EXIT was written only when this many
     * ticks had passed since the thread's last written event (or for a
     * precise function); 0: every event was written */
    uint64_t sample_ticks;
    int32_t  signal;            /* signal that ended the run, 0 if none */
    int      complete;          /* header rewritten at close */
    int      capped;            /* tracing stopped at the size cap */
    int      abandoned;         /* header rewritten by vftr_vfd_writer_abandon() */
    char     host[VFTR_VFD_HOST_MAX];  /* NUL-terminated; longer names are cut */
    char     exe[VFTR_VFD_EXE_MAX];    /* NUL-terminated; longer paths are cut */
};

/* ---------------------------------------------------------------------- */
/* Writer                                                                  */

struct vftr_vfd_writer;  /* opaque */

/* Creates path (O_CREAT|O_EXCL: never overwrites, fails with EEXIST) and
 * writes the header with what info says (complete = 0).  info is copied.
 * Returns NULL + errno.  Caller owns the writer: end it with
 * vftr_vfd_writer_close(). */
struct vftr_vfd_writer *vftr_vfd_writer_open(const char *path, const struct vftr_vfd_info *info);

/* Appends one chunk made by an encoder (len bytes; len 0 is a no-op).
 * Thread-safe and async-signal-safe: the offset is reserved with an atomic
 * add, then written with pwrite (short writes and EINTR are retried).
 * Returns 0 or -errno (-ENOSPC, -EFBIG, -EIO, -EINVAL for a buffer that is
 * not an encoded chunk).  After a failure the file holds every chunk put
 * before it, and what the failed one got onto the disk is given back: the
 * file is cut at its start when it was the last chunk reserved (the next
 * put takes its place), else its bytes become a hole (a reader skips it to
 * the next chunk header).  A file system that refuses both may keep the
 * failed chunk cut short (a reader sees it as the truncated end). */
int vftr_vfd_writer_put(struct vftr_vfd_writer *w, const uint8_t *chunk, size_t len);

/* Bytes an unprivileged writer may still put on the file system that holds
 * the file (fstatfs: available blocks times the fragment size) into
 * *avail.  0 or -errno (-ENOTSUP: the file system gives no sizes).
 * Async-signal-safe. */
int vftr_vfd_writer_space(const struct vftr_vfd_writer *w, uint64_t *avail);

/* Replaces the header fields the writer will write at close or abandon
 * (events, chunks, bytes and the flags are still the writer's own).  Call it
 * from one thread at a time; it does not write the file. */
void vftr_vfd_writer_update(struct vftr_vfd_writer *w, const struct vftr_vfd_info *info);

/* Rewrites the header now from the last info given, still incomplete
 * (complete = 0, abandoned = 0) with the counts so far: for what becomes
 * known during the run (rank, size and run id at MPI_Init), so that a file
 * whose process is killed later (SIGKILL) still names them.  pwrite only:
 * puts may run at the same time; async-signal-safe.  0 or -errno. */
int vftr_vfd_writer_sync(struct vftr_vfd_writer *w);

/* Rewrites the header from info with complete = 1 and the counts so far, and
 * keeps the file open: for a process whose image exec is about to replace
 * (its descriptor, O_CLOEXEC, closes by itself).  Puts may follow (the exec
 * failed): vftr_vfd_writer_sync then marks the file incomplete again.  No
 * put may run concurrently.  0 or -errno (the first of a put, or of the
 * rewrite). */
int vftr_vfd_writer_checkpoint(struct vftr_vfd_writer *w, const struct vftr_vfd_info *info);

/* Rewrites the header from final (or from the last info given when final is
 * NULL) with complete = 1 and the writer's counts, closes the file and frees
 * w in any case.  No put may run concurrently.  Returns 0 or the first
 * -errno met (of a put or of the rewrite).  NULL w: returns 0. */
int vftr_vfd_writer_close(struct vftr_vfd_writer *w, const struct vftr_vfd_info *final);

/* Signal path: rewrites the header best-effort from the last info given,
 * with complete = 0, abandoned = 1 and the counts so far; keeps the file
 * open and frees nothing (other threads may still be inside put).
 * Async-signal-safe.  Returns 0 or -errno. */
int vftr_vfd_writer_abandon(struct vftr_vfd_writer *w);

/* Bytes written so far, header included (for the size cap). */
uint64_t vftr_vfd_writer_bytes(const struct vftr_vfd_writer *w);

/* ---------------------------------------------------------------------- */
/* Reader (tools and tests; allocates, single-threaded per reader)         */

enum vftr_vfd_record_type {
    VFTR_VFD_REC_EVENT = 1,
    VFTR_VFD_REC_FUNCTION,
    VFTR_VFD_REC_CALLPATH,
    VFTR_VFD_REC_THREAD,
    VFTR_VFD_REC_UNKNOWN,       /* a chunk of a kind this reader does not know */
};

struct vftr_vfd_record {
    enum vftr_vfd_record_type type;
    uint32_t thread;            /* thread field of the chunk */
    uint64_t offset;            /* file offset of the chunk the record is in */
    union {
        struct {
            uint64_t time;
            uint32_t kind;      /* VFTR_VFD_ENTER, ... (any number for extended kinds) */
            uint32_t id;        /* call path id; extended kinds: payload length */
            const uint8_t *data; /* extended kinds: payload (id bytes), else NULL */
        } event;
        struct vftr_vfd_function function;
        struct vftr_vfd_callpath callpath;
        struct vftr_vfd_thread thread;
        struct {
            uint16_t kind;
            uint32_t length;    /* payload bytes */
            uint32_t count;
            const uint8_t *payload;
            uint64_t time;      /* the chunk header's first time stamp */
        } unknown;
    } u;
};
/* Pointers in a record (names, data, payload) stay valid until the reader
 * is closed. */

struct vftr_vfd_reader;  /* opaque */

/* Opens and maps path, checks the magic, the version (a newer one is
 * refused: EPROTONOSUPPORT) and the header (EBADMSG).  Returns NULL +
 * errno.  A path that is not a regular file (a directory: EISDIR; a FIFO,
 * a device, a socket: ENODEV) is refused without being opened, so that
 * nothing waits on it.  Caller owns the reader: vftr_vfd_reader_close(). */
struct vftr_vfd_reader *vftr_vfd_reader_open(const char *path);

/* The same, and when the file cannot be read as a .vfd, err (if not NULL)
 * receives "PATH: offset N: what was expected" (errlen bytes, terminated;
 * VFTR_VFD_ERR_MAX fits every message). */
#define VFTR_VFD_ERR_MAX 512
struct vftr_vfd_reader *vftr_vfd_reader_open_msg(const char *path, char *err, size_t errlen);

/* The same on len bytes in memory (borrowed until close); name is used in
 * messages. */
struct vftr_vfd_reader *vftr_vfd_reader_open_mem(const void *buf, size_t len, const char *name,
                                                 char *err, size_t errlen);

const struct vftr_vfd_info *vftr_vfd_reader_info(const struct vftr_vfd_reader *r);

/* Next record in file order.  Returns 1 (rec filled), 0 at the end of the
 * data, negative (-EBADMSG) on a corrupt chunk that cannot be skipped.
 * A truncated last chunk is the end (0) with a warning; a corrupt chunk
 * followed by a valid one is skipped with a warning and reading goes on.
 * After a negative return next() may be called again: it goes on with the
 * next valid chunk, if any.  Definition records also enter the lookup
 * tables below. */
int vftr_vfd_reader_next(struct vftr_vfd_reader *r, struct vftr_vfd_record *rec);

/* With on = 1, next() hands each sound events chunk over whole instead of
 * record by record: as a record of type VFTR_VFD_REC_UNKNOWN whose
 * u.unknown.kind is VFTR_VFD_CHUNK_EVENTS (payload CRC checked, records not
 * decoded; u.unknown.time is the time base of the first record).  For a tool
 * that decodes events itself (vftr_vfd_scan.h).  on = 0 restores records. */
void vftr_vfd_reader_whole_events(struct vftr_vfd_reader *r, int on);

/* Starts over at the first chunk (tables are kept). */
void vftr_vfd_reader_rewind(struct vftr_vfd_reader *r);

/* Reads every definition chunk of the file into the lookup tables without
 * moving the position of next().  Returns 0 or negative as next(). */
int vftr_vfd_reader_scan_definitions(struct vftr_vfd_reader *r);

/* "FILE: offset N: what was expected" of the last negative return, or NULL. */
const char *vftr_vfd_reader_error(const struct vftr_vfd_reader *r);
/* Warning raised by the last call of next() (or scan_definitions), or NULL. */
const char *vftr_vfd_reader_warning(const struct vftr_vfd_reader *r);
/* How many warnings have been raised so far. */
unsigned vftr_vfd_reader_warnings(const struct vftr_vfd_reader *r);

/* Lookups in the definitions read so far (a later definition of an id
 * replaces an earlier one).  NULL when unknown.  Borrowed until close. */
const struct vftr_vfd_function *vftr_vfd_reader_function(const struct vftr_vfd_reader *r,
                                                         uint32_t id);
const struct vftr_vfd_callpath *vftr_vfd_reader_callpath(const struct vftr_vfd_reader *r,
                                                         uint32_t id);
const struct vftr_vfd_thread *vftr_vfd_reader_thread(const struct vftr_vfd_reader *r, uint32_t id);
/* Function name of call path id, or NULL. */
const char *vftr_vfd_reader_callpath_name(const struct vftr_vfd_reader *r, uint32_t id);
/* Threads known so far, in order of first definition: index 0..count-1. */
size_t vftr_vfd_reader_thread_count(const struct vftr_vfd_reader *r);
const struct vftr_vfd_thread *vftr_vfd_reader_thread_at(const struct vftr_vfd_reader *r, size_t i);

/* Unmaps and frees.  NULL-safe. */
void vftr_vfd_reader_close(struct vftr_vfd_reader *r);

#endif /* VFTR_VFD_VFTR_VFD_H */
