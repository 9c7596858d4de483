/*
 * crashlog.c — the profile log written from a signal handler (crashlog.h).
 *
 * Why not logfile.c: it prints through stdio and sorts and indexes with
 * malloc'ed arrays, and a signal may arrive while the interrupted thread
 * holds the allocator's or a stream's lock (SIGTERM in the middle of a
 * malloc, a SIGSEGV from a corrupted heap): calling either would hang the
 * dying program instead of letting it die.  This file computes the same
 * figures (vftr_callpath_exclusive, the open frames counted up to now as
 * vftr_callpath_profile_at does) into pages of its own from mmap, sorts
 * them with a heap sort (no qsort: glibc's may allocate), formats numbers
 * and dates itself and writes the file with write().  The layout follows
 * logfile.c's (column heads, widths fitted to the cells, the same sort
 * column and tie order), so that what reads a log reads this one.
 *
 * Nothing here is freed or locked.  Capture's state is only read: the
 * thread list and each thread's published nodes (never moved, never
 * freed), function names (borrowed for the life of the process).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "capture.h"
#include "crashlog.h"
#include "outdir.h"

/* ------------------------------------------------------------ numbers */

VFTR_NI size_t vftr_fmt_u64(char *buf, uint64_t v)
{
    char tmp[24];
    size_t n = 0, len = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

static const uint64_t pow10_tab[] = { 1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u,
                                      10000000u, 100000000u, 1000000000u };

/*
 * The fraction f = v - trunc(v) is exact in binary: f = mant / 2^k with a
 * 53-bit mant.  f * 10^d is then mant * 10^d / 2^k, and mant * 10^d fits in
 * 128 bits, so the quotient and the remainder (which decides the rounding,
 * ties to the even last digit) are exact, as in glibc's printf.
 */
VFTR_NI size_t vftr_fmt_fixed(char *buf, double v, unsigned decimals)
{
    unsigned d = decimals > 9 ? 9 : decimals;
    uint64_t ip, q = 0;
    double frac;
    size_t len = 0;

    if (isnan(v) || fabs(v) >= 9223372036854775808.0) {
        buf[0] = '-';
        buf[1] = '\0';
        return 1;
    }
    if (signbit(v)) {
        buf[len++] = '-';
        v = -v;
    }
    ip = (uint64_t)v;
    frac = v - (double)ip;
    if (frac > 0) {
        int e;
        uint64_t mant = (uint64_t)ldexp(frexp(frac, &e), 53);   /* frac = mant / 2^k */
        int k = 53 - e;
        unsigned __int128 n = (unsigned __int128)mant * pow10_tab[d];

        if (k < 128) {
            unsigned __int128 rem = n & ((((unsigned __int128)1) << k) - 1);
            unsigned __int128 half = ((unsigned __int128)1) << (k - 1);
            bool odd;

            q = (uint64_t)(n >> k);
            odd = d ? (q & 1) : (ip & 1);
            if (rem > half || (rem == half && odd))
                q++;
        }   /* else f * 10^d < 2^-44: rounds to 0 */
        if (q >= pow10_tab[d]) {
            ip++;
            q -= pow10_tab[d];
        }
    }
    len += vftr_fmt_u64(buf + len, ip);
    if (d) {
        buf[len++] = '.';
        for (unsigned i = d; i-- > 0; q /= 10)
            buf[len + i] = (char)('0' + q % 10);
        len += d;
    }
    buf[len] = '\0';
    return len;
}

/* Puts v as exactly `width` digits (zero-padded) at p; returns p + width. */
static VFTR_NI char *put_digits(char *p, uint64_t v, int width)
{
    for (int i = width; i-- > 0; v /= 10)
        p[i] = (char)('0' + v % 10);
    return p + width;
}

/* gmtime's date without its lock (glibc's takes the time zone lock even for
 * UTC): the proleptic Gregorian calendar from days since 1970-01-01
 * (H. Hinnant's civil_from_days). */
VFTR_NI size_t vftr_fmt_utc(char *buf, uint64_t ns)
{
    uint64_t secs = ns / 1000000000u, days = secs / 86400u, sod = secs % 86400u;
    uint64_t z = days + 719468u, era = z / 146097u, doe = z - era * 146097u;
    uint64_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    uint64_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u), mp = (5u * doy + 2u) / 153u;
    uint64_t day = doy - (153u * mp + 2u) / 5u + 1u, month = mp < 10u ? mp + 3u : mp - 9u;
    uint64_t year = yoe + era * 400u + (month <= 2u);
    char *p = buf;

    p = put_digits(p, year, year > 9999u ? 5 : 4);
    *p++ = '-';
    p = put_digits(p, month, 2);
    *p++ = '-';
    p = put_digits(p, day, 2);
    *p++ = ' ';
    p = put_digits(p, sod / 3600u, 2);
    *p++ = ':';
    p = put_digits(p, sod / 60u % 60u, 2);
    *p++ = ':';
    p = put_digits(p, sod % 60u, 2);
    *p++ = '.';
    p = put_digits(p, ns % 1000000000u / 1000u, 6);
    memcpy(p, " UTC", 5);
    return (size_t)(p + 4 - buf);
}

/* ------------------------------------------------------------ output */

/* Static, not on the stack: the handler may run on a small alternate stack,
 * and only one handler at a time gets here. */
static struct {
    int fd;
    int err;                    /* first -errno of a write */
    size_t len;
    char buf[8192];
} out;

static VFTR_NI void out_flush(void)
{
    size_t off = 0;

    while (off < out.len && out.err == 0) {
        ssize_t k = write(out.fd, out.buf + off, out.len - off);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            out.err = k < 0 ? -errno : -EIO;
        else
            off += (size_t)k;
    }
    out.len = 0;
}

static VFTR_NI void put_n(const char *s, size_t n)
{
    while (n) {
        size_t k = sizeof out.buf - out.len;

        if (k == 0) {
            out_flush();
            continue;
        }
        if (k > n)
            k = n;
        memcpy(out.buf + out.len, s, k);
        out.len += k;
        s += k;
        n -= k;
    }
}

static VFTR_NI void put(const char *s)
{
    put_n(s, strlen(s));
}

static VFTR_NI void put_u64(uint64_t v)
{
    char b[24];

    put_n(b, vftr_fmt_u64(b, v));
}

static VFTR_NI void put_blanks(size_t n)
{
    static const char blanks[] = "                                ";

    for (; n > sizeof blanks - 1; n -= sizeof blanks - 1)
        put_n(blanks, sizeof blanks - 1);
    put_n(blanks, n);
}

/* A run-section line: two blanks, the label padded to 16, the value. */
static VFTR_NI void put_label(const char *label)
{
    size_t n = strlen(label);

    put("  ");
    put(label);
    put_blanks(n < 16 ? 16 - n : 0);
}

/* ------------------------------------------------------------ rows */

struct crow {
    const struct vftr_node *node;
    uint32_t thread;
    uint64_t incl;              /* ticks, open frames counted up to the signal */
    int64_t excl;
};

struct table {
    struct crow *rows;
    uint32_t *order;
    size_t n;
    double tps, run_time, hook_cost;
};

/* The profile's sort (logfile.c: vftr_logfile_sort): by col, ties by row
 * index whatever the direction. */
static VFTR_NI int row_cmp(const struct table *tb, uint32_t a, uint32_t b, int col, int sign)
{
    const struct crow *x = &tb->rows[a], *y = &tb->rows[b];
    int r = 0;

    switch (col) {
    case VFTR_SORT_TIME_EXCL: r = (x->excl > y->excl) - (x->excl < y->excl); break;
    case VFTR_SORT_TIME_INCL: r = (x->incl > y->incl) - (x->incl < y->incl); break;
    case VFTR_SORT_CALLS:
    case VFTR_SORT_OVERHEAD:  /* calls x the same cost */
        r = (x->node->calls > y->node->calls) - (x->node->calls < y->node->calls);
        break;
    case VFTR_SORT_STACK_ID:  r = (x->node->id > y->node->id) - (x->node->id < y->node->id); break;
    default: break;
    }
    if (r)
        return r * sign;
    return (a > b) - (a < b);
}

static VFTR_NI void sift(const struct table *tb, uint32_t *o, size_t i, size_t n, int col,
                         int sign)
{
    for (;;) {
        size_t c = 2 * i + 1, m = i;
        uint32_t t;

        if (c < n && row_cmp(tb, o[c], o[m], col, sign) > 0)
            m = c;
        if (c + 1 < n && row_cmp(tb, o[c + 1], o[m], col, sign) > 0)
            m = c + 1;
        if (m == i)
            return;
        t = o[i];
        o[i] = o[m];
        o[m] = t;
        i = m;
    }
}

/* Heap sort of tb->order (a total order: ties fall back to the index). */
static VFTR_NI void sort_rows(struct table *tb, int col, bool ascending)
{
    uint32_t *o = tb->order;
    int sign = ascending ? 1 : -1;
    size_t i, n = tb->n;

    for (i = 0; i < n; i++)
        o[i] = (uint32_t)i;
    for (i = n / 2; i-- > 0;)
        sift(tb, o, i, n, col, sign);
    for (i = n; i-- > 1;) {
        uint32_t t = o[0];

        o[0] = o[i];
        o[i] = t;
        sift(tb, o, 0, i, col, sign);
    }
}

/* ------------------------------------------------------------ tables */

enum col { C_CALLS, C_EXCL, C_INCL, C_PCT, C_OVERHEAD, C_STID, C_THREAD, C_FUNCTION, C_CALLER,
           C_PATH };

static const struct {
    const char *head;
    bool left;
} col_def[] = {
    [C_CALLS] = { "Calls", false },         [C_EXCL] = { "t_excl[s]", false },
    [C_INCL] = { "t_incl[s]", false },      [C_PCT] = { "%", false },
    [C_OVERHEAD] = { "overhead[s]", false }, [C_STID] = { "STID", false },
    [C_THREAD] = { "Thread", false },       [C_FUNCTION] = { "Function", true },
    [C_CALLER] = { "Caller", true },        [C_PATH] = { "Call path", true },
};

static VFTR_NI const char *name_or(const char *s, const char *dflt)
{
    return s && *s ? s : dflt;
}

/* The text of a cell (in buf, 32 bytes, or a borrowed name). */
static VFTR_NI const char *cell(const struct table *tb, const struct crow *r, enum col c,
                                char *buf)
{
    const struct vftr_node *nd = r->node;

    switch (c) {
    case C_CALLS: vftr_fmt_u64(buf, nd->calls); return buf;
    case C_EXCL: vftr_fmt_fixed(buf, (double)r->excl / tb->tps, 6); return buf;
    case C_INCL: vftr_fmt_fixed(buf, (double)r->incl / tb->tps, 6); return buf;
    case C_PCT:
        if (!(tb->run_time > 0))
            return "-";
        vftr_fmt_fixed(buf, 100.0 * ((double)r->excl / tb->tps) / tb->run_time, 2);
        return buf;
    case C_OVERHEAD: vftr_fmt_fixed(buf, (double)nd->calls * tb->hook_cost / tb->tps, 6); return buf;
    case C_STID: vftr_fmt_u64(buf, nd->id); return buf;
    case C_THREAD: vftr_fmt_u64(buf, r->thread); return buf;
    case C_FUNCTION: return name_or(nd->fn->name, "?");
    case C_CALLER: return nd->parent->fn ? name_or(nd->parent->fn->name, "-") : "-";
    default: return "";
    }
}

/* function<caller<...<outermost */
static VFTR_NI void put_path(const struct vftr_node *nd)
{
    put(name_or(nd->fn->name, "?"));
    for (nd = nd->parent; nd && nd->parent; nd = nd->parent) {
        put("<");
        put(name_or(nd->fn->name, "?"));
    }
}

/* Head, rule and rows (in tb->order) of a table of columns cols[0..nc). */
static VFTR_NI void put_table(const struct table *tb, const enum col *cols, size_t nc)
{
    size_t width[10];
    char buf[32];

    for (size_t c = 0; c < nc; c++) {
        width[c] = strlen(col_def[cols[c]].head);
        if (cols[c] == C_PATH)
            continue;
        for (size_t i = 0; i < tb->n; i++) {
            size_t w = strlen(cell(tb, &tb->rows[tb->order[i]], cols[c], buf));

            if (w > width[c])
                width[c] = w;
        }
    }
    for (int line = 0; line < 2; line++) {
        for (size_t c = 0; c < nc; c++) {
            const char *head = col_def[cols[c]].head;
            bool last = c + 1 == nc, left = col_def[cols[c]].left;
            size_t w = strlen(head);

            if (c)
                put("  ");
            if (line == 0) {
                if (!left)
                    put_blanks(width[c] - w);
                put(head);
                if (left && !last)
                    put_blanks(width[c] - w);
            } else {
                for (size_t k = 0; k < (last && cols[c] == C_PATH ? w : width[c]); k++)
                    put("-");
            }
        }
        put("\n");
    }
    for (size_t i = 0; i < tb->n; i++) {
        const struct crow *r = &tb->rows[tb->order[i]];

        for (size_t c = 0; c < nc; c++) {
            bool last = c + 1 == nc, left = col_def[cols[c]].left;
            const char *s;
            size_t w;

            if (c)
                put("  ");
            if (cols[c] == C_PATH) {
                put_path(r->node);
                continue;
            }
            s = cell(tb, r, cols[c], buf);
            w = strlen(s);
            if (!left)
                put_blanks(width[c] - w);
            put(s);
            if (left && !last)
                put_blanks(width[c] - w);
        }
        put("\n");
    }
}

static VFTR_NI const char *sort_word(int col)
{
    switch (col) {
    case VFTR_SORT_TIME_EXCL: return "time_excl";
    case VFTR_SORT_TIME_INCL: return "time_incl";
    case VFTR_SORT_CALLS:     return "calls";
    case VFTR_SORT_STACK_ID:  return "stack_id";
    case VFTR_SORT_OVERHEAD:  return "overhead";
    default:                  return "none";
    }
}

static VFTR_NI const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS:  return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGTERM: return "SIGTERM";
    case SIGINT:  return "SIGINT";
    default:      return NULL;
    }
}

/* ------------------------------------------------------------ the log */

static VFTR_NI void put_run(const struct table *tb, int rank, uint32_t nthreads, uint64_t end_ns,
                            int sig)
{
    const char *vfd = vftr_proc.tmp_path[0] ? vftr_proc.tmp_path : vftr_proc.final_path;
    const char *name = signal_name(sig);
    char buf[48];

    put("vftr profile log\n\nRun\n\n");
    put_label("program");
    put(name_or(vftr_proc.exe, "-"));
    put("\n");
    put_label("rank");
    put_u64((uint64_t)rank);
    put(" of ");
    put_u64((uint64_t)(vftr_proc.size < 1 ? 1 : vftr_proc.size));
    put("\n");
    put_label("pid");
    put_u64((uint64_t)vftr_proc.pid);
    put("\n");
    put_label("host");
    put(name_or(vftr_proc.host, "-"));
    put("\n");
    put_label("run id");
    for (int i = 0; i < 16; i++) {
        static const char hex[] = "0123456789abcdef";

        buf[2 * i] = hex[vftr_proc.run_id[i] >> 4];
        buf[2 * i + 1] = hex[vftr_proc.run_id[i] & 15];
    }
    put_n(buf, 32);
    put("\n");
    put_label("start");
    put_n(buf, vftr_fmt_utc(buf, vftr_proc.start_ns));
    put("\n");
    put_label("end");
    put_n(buf, vftr_fmt_utc(buf, end_ns));
    put("\n");
    put_label("run time");
    put_n(buf, vftr_fmt_fixed(buf, tb->run_time, 6));
    put(" s\n");
    put_label("threads");
    put_u64(nthreads);
    put("\n");
    put_label("clock");
    put(vftr_clock_kind == VFTR_CLK_TSC ? "tsc" : vftr_clock_kind == VFTR_CLK_TEST ? "test"
                                                                                   : "monotonic");
    put("\n");
    if (!vftr_hooks_seen()) {
        put_label("functions");
        put(VFTR_LOG_NO_HOOKS "\n");
    }
    put_label("trace");
    if (vftr_proc.writer != NULL && vfd[0]) {
        put(vfd);
        put("\n");
        put_label("events written");
        put_u64(atomic_load(&vftr_proc.events_written));
    } else {
        put("none");
    }
    put("\n");
    put_label("incomplete");
    put("the run was killed by signal ");
    put_u64((uint64_t)sig);
    if (name) {
        put(" (");
        put(name);
        put(")");
    }
    put(": the figures stop there\n\n");
}

/* <dir>/<base>_<rank>.log into path (size bytes); false if it does not fit. */
static VFTR_NI bool log_path(char *path, size_t size, int rank)
{
    char digits[24];
    const char *parts[] = { vftr_proc.dir, "/", vftr_proc.base, "_", digits, ".log" };
    size_t len = 0;

    vftr_fmt_u64(digits, (uint64_t)rank);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t n = strlen(parts[i]);

        if (len + n >= size)
            return false;
        memcpy(path + len, parts[i], n);
        len += n;
    }
    path[len] = '\0';
    return true;
}

/* Fills tb->rows from every thread's published nodes: incl counts the
 * frames still open up to now, excl is incl less the children's.  incl and
 * excl hold `most` nodes: a thread the stop could not wait for (still in a
 * hook) may have published more since they were counted, and those are
 * left out (a parent comes before its children, so the first `most` nodes
 * are whole paths). */
static VFTR_NI void collect(struct table *tb, uint64_t *incl, int64_t *excl, size_t most,
                            uint64_t now)
{
    const struct vftr_thread *t;
    size_t k = 0;

    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        uint32_t i, n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        struct vftr_node_walk w;
        const struct vftr_node *o;

        if (n > most)
            n = (uint32_t)most;
        w = vftr_node_walk_first(t, n);

        for (i = 0; i < n; i++)
            incl[i] = vftr_node_walk_next(&w)->time_incl;
        for (o = t->cur; o != NULL && o->parent != NULL; o = o->parent)
            if (o->idx < n && now > o->t_enter)
                incl[o->idx] += now - o->t_enter;
        vftr_callpath_exclusive(t, n, incl, excl);
        w = vftr_node_walk_first(t, n);
        for (i = 0; i < n && k < tb->n; i++) {
            const struct vftr_node *nd = vftr_node_walk_next(&w);

            if (nd->flags & VFTR_FN_EXCLUDED)
                continue;
            tb->rows[k++] = (struct crow){ nd, t->index, incl[i], excl[i] };
        }
    }
    tb->n = k;
}

VFTR_NI int vftr_crashlog_write(int sig)
{
    static char path[1400];
    const struct vftr_config *cfg = &vftr_proc.cfg;
    const struct vftr_thread *t;
    struct table tb;
    uint64_t now = vftr_clock_now(), end_ns = vftr_clock_realtime_ns();
    size_t rows = 0, most = 0, bytes;
    uint32_t nthreads = 0;
    bool threads = false;
    int rank = vftr_proc.rank < 0 ? 0 : vftr_proc.rank, rc;
    void *mem;

    if (!vftr_proc.recording || !vftr_rangelist_contains(&cfg->logfile_for_ranks, rank))
        return 0;
    if (!log_path(path, sizeof path, rank))
        return -ENAMETOOLONG;
    (void)vftr_outdir_make_room(path);   /* an earlier run's log is kept, not overwritten */
    vftr_outdir_written(path);
    for (t = atomic_load_explicit(&vftr_proc.threads, memory_order_acquire); t; t = t->next) {
        size_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire);

        rows += n;
        most = n > most ? n : most;
        threads |= t->index != 0;
        nthreads++;
    }
    threads |= nthreads > 1;
    bytes = rows * (sizeof(struct crow) + sizeof(uint32_t)) + most * (sizeof(uint64_t) * 2) + 64;
    mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return -ENOMEM;
    memset(&tb, 0, sizeof tb);
    tb.rows = mem;
    tb.order = (uint32_t *)(tb.rows + rows);
    tb.n = rows;
    tb.tps = vftr_clock_ticks_per_second(0);
    tb.run_time = (double)(now - vftr_proc.start_ticks) / tb.tps;
    tb.hook_cost = vftr_proc.hook_cost;
    {
        uint64_t *incl = (uint64_t *)(((uintptr_t)(tb.order + rows) + 7) & ~(uintptr_t)7);

        collect(&tb, incl, (int64_t *)(incl + most), most, now);
    }

    out.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out.fd < 0) {
        rc = -errno;
        munmap(mem, bytes);
        return rc;
    }
    out.err = 0;
    out.len = 0;
    put_run(&tb, rank, nthreads, end_ns, sig);
    if (cfg->profile_table_show_table) {
        enum col cols[10];
        size_t nc = 0;

        cols[nc++] = C_CALLS;
        cols[nc++] = C_EXCL;
        cols[nc++] = C_INCL;
        cols[nc++] = C_PCT;
        if (cfg->profile_table_show_overhead)
            cols[nc++] = C_OVERHEAD;
        cols[nc++] = C_STID;
        if (threads)
            cols[nc++] = C_THREAD;
        cols[nc++] = C_FUNCTION;
        cols[nc++] = C_CALLER;
        if (cfg->profile_table_show_callpath)
            cols[nc++] = C_PATH;
        sort_rows(&tb, cfg->profile_table_sort_table_column, cfg->profile_table_sort_table_ascending);
        put("Profile: ");
        put_u64(tb.n);
        put(tb.n == 1 ? " call path, sorted by " : " call paths, sorted by ");
        put(sort_word(cfg->profile_table_sort_table_column));
        put(cfg->profile_table_sort_table_ascending ? ", ascending" : ", descending");
        put("; % = exclusive time in percent of the run time\n\n");
        put_table(&tb, cols, nc);
        put("\n");
    }
    if (cfg->stacklist_show_stacklist) {
        enum col cols[3];
        size_t nc = 0;

        cols[nc++] = C_STID;
        if (threads)
            cols[nc++] = C_THREAD;
        cols[nc++] = C_PATH;
        sort_rows(&tb, VFTR_SORT_STACK_ID, true);
        put("Call paths: ");
        put_u64(tb.n);
        put(" (function<caller<...)\n\n");
        put_table(&tb, cols, nc);
        put("\n");
    }
    out_flush();
    rc = out.err;
    if (close(out.fd) < 0 && rc == 0)
        rc = -errno;
    munmap(mem, bytes);
    return rc;
}
