/*
 * io.c — the state of file I/O recording (io.h): the descriptor table,
 * the file names and their ids, the excluded directories, and the record
 * itself.
 *
 * Memory comes from mmap, never from malloc: the interposed calls may run
 * in a signal handler that interrupted the program's malloc.  The tables
 * are sized once (the descriptor limit, a fixed number of file ids) and
 * mapped without reserve, so only the pages used cost memory.  File names
 * go into an arena of mapped blocks, under the names' mutex, which a
 * thread takes only while it holds its guard (so a signal handler of the
 * same thread, whose interposed call finds the guard taken, never waits
 * for it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ext.h"
#include "io.h"

/* Most descriptors followed, and most file ids. */
#define MAX_FDS (1u << 20)
#define MAX_FILES (1u << 20)
#define NAME_BUCKETS 4096u
#define ARENA_BLOCK (1u << 20)
/* Most directories of io.exclude_paths. */
#define MAX_EXCLUDES 64

struct io_file {
    struct io_file *next;           /* bucket chain */
    uint64_t hash;
    uint32_t id, iface;
    _Atomic uint32_t defined;       /* in the trace: 0 no, 2 yes */
    uint32_t len;
    char name[];                    /* NUL-terminated */
};

_Atomic bool vftr_io_enabled VFTR_HIDDEN;
_Atomic uint64_t *vftr_io_fds VFTR_HIDDEN;
uint32_t vftr_io_nfds VFTR_HIDDEN;
__thread int vftr_io_mute __attribute__((tls_model("initial-exec")));

static struct {
    pthread_mutex_t lock;           /* buckets, arena, the id array's new entries, defs */
    struct io_file **buckets;       /* NAME_BUCKETS */
    struct io_file *_Atomic *byid;  /* MAX_FILES + 1, index = id */
    _Atomic uint32_t nfiles;
    char *arena;
    size_t arena_left;
    _Atomic uint32_t next_handle;
    uint8_t *defbuf;                /* one IO_FILES chunk, under lock */
    size_t defcap;
    struct { const char *p; size_t n; } excl[MAX_EXCLUDES];
    size_t nexcl;
    char *excl_text;                /* the copy excl points into */
    uintptr_t self_lo, self_hi;
} io = { .lock = PTHREAD_MUTEX_INITIALIZER };

static VFTR_NI void *map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

/* The directories of io.exclude_paths, without trailing '/', in a copy
 * that lives as long as the process. */
static VFTR_NI int read_excludes(const char *text)
{
    size_t len;

    io.nexcl = 0;
    if (text == NULL || *text == '\0')
        return 0;
    len = strlen(text);
    if ((io.excl_text = map(len + 1)) == NULL)
        return -ENOMEM;
    memcpy(io.excl_text, text, len + 1);
    for (char *p = io.excl_text; *p && io.nexcl < MAX_EXCLUDES;) {
        char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);

        while (n > 1 && p[n - 1] == '/')
            n--;
        if (n > 0 && p[0] == '/') {
            io.excl[io.nexcl].p = p;
            io.excl[io.nexcl].n = n == 1 ? 0 : n;   /* "/" excludes everything */
            io.nexcl++;
        }
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

VFTR_NI int vftr_io_setup(void)
{
    const struct vftr_config *cfg = &vftr_proc.cfg;
    struct rlimit rl;
    uint32_t nfds = 65536;

    if (!cfg->io_active || vftr_proc.writer == NULL || !vftr_proc.set.trace)
        return 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        nfds = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > MAX_FDS ? MAX_FDS
               : rl.rlim_max < 1024 ? 1024 : (uint32_t)rl.rlim_max;
    io.buckets = map(NAME_BUCKETS * sizeof *io.buckets);
    io.byid = map((MAX_FILES + 1) * sizeof *io.byid);
    io.defcap = VFTR_VFD_CHUNK_HEADER_SIZE + VFTR_IO_PATH_MAX + 64;
    io.defbuf = map(io.defcap);
    vftr_io_fds = map((size_t)nfds * sizeof *vftr_io_fds);
    if (!io.buckets || !io.byid || !io.defbuf || !vftr_io_fds ||
        read_excludes(cfg->io_exclude_paths) < 0) {
        vftr_msg_raw("file I/O is not recorded: out of memory");
        vftr_io_fds = NULL;
        return -ENOMEM;
    }
    vftr_io_nfds = nfds;
    atomic_store_explicit(&vftr_io_enabled, true, memory_order_release);
    return 0;
}

VFTR_NI uint32_t vftr_io_new_handle(void)
{
    uint32_t h = atomic_fetch_add_explicit(&io.next_handle, 1, memory_order_relaxed) + 1;

    return h ? h : atomic_fetch_add_explicit(&io.next_handle, 1, memory_order_relaxed) + 1;
}

VFTR_NI void vftr_io_set_self(uintptr_t lo, uintptr_t hi)
{
    io.self_lo = lo;
    io.self_hi = hi;
}

VFTR_NI bool vftr_io_program_open(const void *ret)
{
    const struct vftr_thread *t = vftr_tls;
    uintptr_t r = (uintptr_t)ret;

    if (!atomic_load_explicit(&vftr_io_enabled, memory_order_acquire) || vftr_io_mute > 0)
        return false;
    if (r >= io.self_lo && r < io.self_hi)
        return false;
    if (vftr_phase_of(atomic_load_explicit(&vftr_proc.phase, memory_order_relaxed))
        == VFTR_PHASE_STOPPED)
        return false;
    /* inside a hook, finished, or the dummy state of initialization */
    return t == NULL || atomic_load_explicit(&t->guard, memory_order_relaxed) == VFTR_GUARD_FREE;
}

/* --------------------------------------------------------------- names */

/* Appends the components of s (a path) to out[*n], resolving "." and ".."
 * against what is there.  0, or -1 when it does not fit. */
static VFTR_NI int append_components(char *out, size_t size, size_t *n, const char *s)
{
    while (*s) {
        const char *c = s;
        size_t len;

        while (*s && *s != '/')
            s++;
        len = (size_t)(s - c);
        if (*s == '/')
            s++;
        if (len == 0 || (len == 1 && c[0] == '.'))
            continue;
        if (len == 2 && c[0] == '.' && c[1] == '.') {
            while (*n > 0 && out[*n - 1] != '/')
                (*n)--;
            if (*n > 0)
                (*n)--;   /* the '/' before it */
            continue;
        }
        if (*n + 1 + len + 1 > size)
            return -1;
        out[(*n)++] = '/';
        memcpy(out + *n, c, len);
        *n += len;
    }
    return 0;
}

VFTR_NI size_t vftr_io_abspath(int dirfd, const char *path, char *out, size_t size)
{
    size_t n = 0;

    if (path == NULL || size < 2)
        return 0;
    /* the directory goes into out first (getcwd and the kernel's link
     * give it absolute, without "." or ".."), the name is appended: one
     * buffer, a small stack for a signal handler's call */
    if (path[0] != '/') {
        if (dirfd == AT_FDCWD) {
            if (getcwd(out, size) == NULL || out[0] != '/')
                return 0;
            n = strlen(out);
        } else {
            /* /proc/self/fd/N names the directory the descriptor is */
            char link[40] = "/proc/self/fd/", digits[12];
            size_t d = sizeof digits, k = strlen(link);
            ssize_t r;

            if (dirfd < 0)
                return 0;
            for (unsigned v = (unsigned)dirfd; d == sizeof digits || v; v /= 10)
                digits[--d] = (char)('0' + v % 10);
            memcpy(link + k, digits + d, sizeof digits - d);
            link[k + sizeof digits - d] = '\0';
            r = readlink(link, out, size - 1);
            if (r <= 0 || (size_t)r >= size - 1 || out[0] != '/')
                return 0;
            n = (size_t)r;
        }
        if (n == 1)
            n = 0;   /* "/": the components append their own '/' */
    }
    if (append_components(out, size, &n, path) < 0)
        return 0;
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    return n;
}

VFTR_NI bool vftr_io_excluded(const char *abs, size_t len)
{
    for (size_t i = 0; i < io.nexcl; i++) {
        size_t n = io.excl[i].n;

        if (n == 0)
            return true;
        if (len >= n && memcmp(abs, io.excl[i].p, n) == 0 && (len == n || abs[n] == '/'))
            return true;
    }
    return false;
}

static VFTR_NI uint64_t name_hash(const char *s, size_t len, uint32_t iface)
{
    uint64_t h = 0xcbf29ce484222325ull ^ iface;

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* Room for an entry of name length len, from the arena (lock held). */
static VFTR_NI struct io_file *arena_entry(size_t len)
{
    size_t need = (sizeof(struct io_file) + len + 1 + 15) & ~(size_t)15;

    if (need > io.arena_left) {
        size_t block = need > ARENA_BLOCK ? need : ARENA_BLOCK;
        char *p = map(block);

        if (p == NULL)
            return NULL;
        io.arena = p;
        io.arena_left = block;
    }
    struct io_file *f = (struct io_file *)(void *)io.arena;

    io.arena += need;
    io.arena_left -= need;
    return f;
}

VFTR_NI uint32_t vftr_io_intern(const char *abs, size_t len, uint32_t iface)
{
    uint64_t h;
    struct io_file *f;
    uint32_t id = 0;

    if (!atomic_load_explicit(&vftr_io_enabled, memory_order_acquire) || len == 0 ||
        len >= VFTR_IO_PATH_MAX || vftr_io_excluded(abs, len))
        return 0;
    h = name_hash(abs, len, iface);
    pthread_mutex_lock(&io.lock);
    for (f = io.buckets[h % NAME_BUCKETS]; f; f = f->next)
        if (f->hash == h && f->iface == iface && f->len == len && memcmp(f->name, abs, len) == 0)
            break;
    if (f) {
        id = f->id;
    } else if (atomic_load_explicit(&io.nfiles, memory_order_relaxed) < MAX_FILES &&
               (f = arena_entry(len)) != NULL) {
        f->hash = h;
        f->iface = iface;
        f->len = (uint32_t)len;
        atomic_init(&f->defined, 0);
        memcpy(f->name, abs, len);
        f->name[len] = '\0';
        id = f->id = atomic_load_explicit(&io.nfiles, memory_order_relaxed) + 1;
        f->next = io.buckets[h % NAME_BUCKETS];
        io.buckets[h % NAME_BUCKETS] = f;
        atomic_store_explicit(&io.byid[id], f, memory_order_release);
        atomic_store_explicit(&io.nfiles, id, memory_order_release);
    }
    pthread_mutex_unlock(&io.lock);
    return id;
}

VFTR_NI uint32_t vftr_io_intern_path(int dirfd, const char *path, uint32_t iface)
{
    char abs[VFTR_IO_PATH_MAX];
    size_t len = vftr_io_abspath(dirfd, path, abs, sizeof abs);

    return len ? vftr_io_intern(abs, len, iface) : 0;
}

static VFTR_NI struct io_file *file_at(uint32_t id)
{
    if (id == 0 || id > atomic_load_explicit(&io.nfiles, memory_order_acquire))
        return NULL;
    return atomic_load_explicit(&io.byid[id], memory_order_acquire);
}

VFTR_NI uint32_t vftr_io_file_iface(uint32_t id)
{
    const struct io_file *f = file_at(id);

    return f ? f->iface : 0;
}

VFTR_NI const char *vftr_io_file_name(uint32_t id)
{
    const struct io_file *f = file_at(id);

    return f ? f->name : "";
}

/* Writes the IO_FILES entry of f unless the trace has it.  0 or -1. */
static VFTR_NI int define(struct io_file *f)
{
    int rc = 0;

    if (atomic_load_explicit(&f->defined, memory_order_acquire) == 2)
        return 0;
    pthread_mutex_lock(&io.lock);
    if (atomic_load_explicit(&f->defined, memory_order_relaxed) != 2) {
        struct vftr_vfd_io_file d = { f->id, f->iface, f->name };
        size_t len = vftr_vfd_encode_io_files(&d, 1, io.defbuf, io.defcap);

        if (len == 0 || vftr_ext_chunk(io.defbuf, len) < 0)
            rc = -1;
        else
            atomic_store_explicit(&f->defined, 2, memory_order_release);
    }
    pthread_mutex_unlock(&io.lock);
    return rc;
}

/* ------------------------------------------------------------- records */

VFTR_NI int vftr_io_put(struct vftr_thread *t, const struct vftr_vfd_io *rec, uint64_t now)
{
    uint8_t buf[VFTR_VFD_EXT_MAX];
    struct io_file *f;
    size_t len;

    if ((f = file_at(rec->file)) != NULL && define(f) < 0)
        return -1;
    if (rec->op == VFTR_VFD_IO_RENAME && (f = file_at((uint32_t)rec->aux)) != NULL &&
        define(f) < 0)
        return -1;
    len = vftr_vfd_io_encode(rec, now, buf);
    if (len == 0)
        return -1;
    return vftr_trace_put_ext(t, now, VFTR_VFD_IO, buf, (uint32_t)len);
}

VFTR_NI void vftr_io_record(const struct vftr_vfd_io *rec, uint64_t now)
{
    struct vftr_thread *t;

    /* enabled only once capture runs: a thread that has not met capture
     * yet is attached as a hook would attach it, nothing initializes */
    if (vftr_io_mute > 0 || !atomic_load_explicit(&vftr_io_enabled, memory_order_relaxed))
        return;
    if (!vftr_io_past_prelude())
        return;
    if ((t = vftr_hook_begin()) == NULL)
        return;
    if (t->trace)
        (void)vftr_io_put(t, rec, now);
    vftr_guard_drop(t);
}
