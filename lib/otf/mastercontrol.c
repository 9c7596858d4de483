/*
 * mastercontrol.c — the stream/process map and its file "<stub>.otf"
 * (OTF_MasterControl.h).
 *
 * Both arrays of the public struct are kept sorted at all times because
 * programs read them directly.  Single appends therefore insert in place
 * (cheap when processes arrive in ascending order, which is how writers
 * produce them); reading a file, where the processes of different streams
 * interleave, collects all pairs first and sorts once, so that a master file
 * of 10^5 processes is read in O(n log n) rather than O(n^2).
 *
 * The file is small and never compressed, so it is read and written with
 * plain stdio rather than through the file manager.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_MasterControl.h"
#include "otf_internal.h"
#include "util/regfile.h"

/* The reference exports these helpers without declaring them in a header;
 * vftr keeps them with the signatures found by calling the reference. */
int OTF_MasterControl_init(OTF_MasterControl *mc);
void OTF_MasterControl_finalize(OTF_MasterControl *mc);
void OTF_MasterControl_reset(OTF_MasterControl *mc);
OTF_MapEntry *OTF_MasterControl_getMapEntry(OTF_MasterControl *mc, uint32_t argument);

#define INVALID_STREAM(a) ((a) == 0 || (a) == UINT32_MAX)

/* --- small helpers -------------------------------------------------------- */

/* Returns `array` enlarged to hold at least `need` elements of `size` bytes
 * (capacity doubles, starting at 10, never above `max`), updating *cap; or
 * NULL, leaving `array` and *cap untouched, if that is impossible. */
static void *grow(void *array, size_t *cap, size_t need, size_t size, size_t max)
{
    if (need <= *cap)
        return array;
    if (need > max || need > SIZE_MAX / size)
        return NULL;
    size_t c = *cap ? *cap : 10;
    while (c < need)
        c = c > max / 2 ? max : 2 * c;
    void *p = realloc(array, c * size);
    if (p)
        *cap = c;
    return p;
}

/* grow() for the uint32_t capacities of the public struct. */
static void *grow32(void *array, uint32_t *cap, uint64_t need, size_t size)
{
    size_t c = *cap;
    if (need > UINT32_MAX)
        return NULL;
    void *p = grow(array, &c, (size_t)need, size, UINT32_MAX);
    if (p)
        *cap = (uint32_t)c;
    return p;
}

/* First index of map whose stream id is >= argument. */
static uint32_t map_lower_bound(const OTF_MasterControl *mc, uint32_t argument)
{
    /* Ids usually arrive in ascending order: test the end first. */
    if (mc->n == 0 || mc->map[mc->n - 1].argument < argument)
        return mc->n;
    uint32_t lo = 0, hi = mc->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (mc->map[mid].argument < argument)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First index of rmap whose process id is >= process.  In rmap the process
 * is the key, so it sits in `argument` and the stream in `value`. */
static uint32_t rmap_lower_bound(const OTF_MasterControl *mc, uint32_t process)
{
    if (mc->rn == 0 || mc->rmap[mc->rn - 1].argument < process)
        return mc->rn;
    uint32_t lo = 0, hi = mc->rn;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (mc->rmap[mid].argument < process)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t values_lower_bound(const OTF_MapEntry *e, uint32_t value)
{
    if (e->n == 0 || e->values[e->n - 1] < value)
        return e->n;
    uint32_t lo = 0, hi = e->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->values[mid] < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* "<stub>.otf", malloc'ed; the stub is used as given, like the reference. */
static char *master_path(const char *namestub)
{
    size_t len = strlen(namestub);
    char *path = malloc(len + sizeof ".otf");
    if (path) {
        memcpy(path, namestub, len);
        memcpy(path + len, ".otf", sizeof ".otf");
    }
    return path;
}

/* Lower-case hex without leading zeros into out (room for 8); returns the
 * number of characters. */
static size_t put_hex(char *out, uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[8];
    size_t n = 0;
    do {
        tmp[n++] = digits[v & 0xf];
        v >>= 4;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

/* --- life cycle ----------------------------------------------------------- */

int OTF_MasterControl_init(OTF_MasterControl *mc)
{
    if (!mc) {
        vftr_otf_seterr("OTF_MasterControl_init: no master control given");
        return 0;
    }
    memset(mc, 0, sizeof *mc);
    return 1;
}

void OTF_MasterControl_reset(OTF_MasterControl *mc)
{
    if (!mc)
        return;
    for (uint32_t i = 0; i < mc->n; i++)
        free(mc->map[i].values);
    free(mc->map);
    free(mc->rmap);
    mc->map = NULL;
    mc->rmap = NULL;
    mc->n = mc->s = mc->rn = mc->rs = 0;
}

void OTF_MasterControl_finalize(OTF_MasterControl *mc)
{
    if (!mc)
        return;
    OTF_MasterControl_reset(mc);
    mc->manager = NULL;
}

OTF_MasterControl *OTF_MasterControl_new(OTF_FileManager *manager)
{
    if (!manager) {
        vftr_otf_seterr("OTF_MasterControl_new: no file manager given");
        return NULL;
    }
    OTF_MasterControl *mc = calloc(1, sizeof *mc);
    if (!mc) {
        vftr_otf_seterr("OTF_MasterControl_new: out of memory");
        return NULL;
    }
    mc->manager = manager;
    return mc;
}

void OTF_MasterControl_close(OTF_MasterControl *mc)
{
    if (!mc)
        return;
    OTF_MasterControl_finalize(mc);
    free(mc);
}

void OTF_MasterControl_finish(OTF_MasterControl *mc)
{
    OTF_MasterControl_close(mc);
}

OTF_MasterControl *OTF_MasterControl_clone(OTF_MasterControl *mc, OTF_FileManager *manager)
{
    if (!mc) {
        vftr_otf_seterr("OTF_MasterControl_clone: no master control given");
        return NULL;
    }
    OTF_MasterControl *c = OTF_MasterControl_new(manager);
    if (!c)
        return NULL;
    if (mc->n) {
        c->map = calloc(mc->n, sizeof *c->map);
        if (!c->map)
            goto oom;
        c->s = mc->n;
        for (uint32_t i = 0; i < mc->n; i++) {
            const OTF_MapEntry *e = &mc->map[i];
            OTF_MapEntry *d = &c->map[i];
            d->argument = e->argument;
            if (e->n) {
                d->values = malloc((size_t)e->n * sizeof *d->values);
                if (!d->values)
                    goto oom;
                memcpy(d->values, e->values, (size_t)e->n * sizeof *d->values);
                d->n = d->s = e->n;
            }
            /* Count entries as they become valid so that reset() frees
             * exactly what was allocated if a later one fails. */
            c->n = i + 1;
        }
    }
    if (mc->rn) {
        c->rmap = malloc((size_t)mc->rn * sizeof *c->rmap);
        if (!c->rmap)
            goto oom;
        memcpy(c->rmap, mc->rmap, (size_t)mc->rn * sizeof *c->rmap);
        c->rn = c->rs = mc->rn;
    }
    return c;
oom:
    OTF_MasterControl_close(c);
    vftr_otf_seterr("OTF_MasterControl_clone: out of memory");
    return NULL;
}

/* --- building the map ----------------------------------------------------- */

OTF_MapEntry *OTF_MasterControl_getMapEntry(OTF_MasterControl *mc, uint32_t argument)
{
    if (!mc) {
        vftr_otf_seterr("OTF_MasterControl_getMapEntry: no master control given");
        return NULL;
    }
    if (INVALID_STREAM(argument)) {
        vftr_otf_seterr("OTF_MasterControl_getMapEntry: stream id %x is reserved", argument);
        return NULL;
    }
    uint32_t m = map_lower_bound(mc, argument);
    if (m < mc->n && mc->map[m].argument == argument)
        return &mc->map[m];
    OTF_MapEntry *map = grow32(mc->map, &mc->s, (uint64_t)mc->n + 1, sizeof *map);
    if (!map) {
        vftr_otf_seterr("OTF_MasterControl_getMapEntry: out of memory");
        return NULL;
    }
    mc->map = map;
    memmove(&map[m + 1], &map[m], (size_t)(mc->n - m) * sizeof *map);
    map[m] = (OTF_MapEntry){ .argument = argument };
    mc->n++;
    return &map[m];
}

int OTF_MasterControl_append(OTF_MasterControl *mc, uint32_t argument, uint32_t value)
{
    if (!mc) {
        vftr_otf_seterr("OTF_MasterControl_append: no master control given");
        return 0;
    }
    if (INVALID_STREAM(argument)) {
        vftr_otf_seterr("OTF_MasterControl_append: stream id %x is reserved", argument);
        return 0;
    }
    uint32_t r = rmap_lower_bound(mc, value);
    if (r < mc->rn && mc->rmap[r].argument == value) {
        vftr_otf_seterr("OTF_MasterControl_append: process %x is already in stream %x",
                        value, mc->rmap[r].value);
        return 0;
    }

    /* Every allocation happens before anything is modified, so a failure
     * leaves the map exactly as it was. */
    OTF_Pair *rmap = grow32(mc->rmap, &mc->rs, (uint64_t)mc->rn + 1, sizeof *rmap);
    if (!rmap)
        goto oom;
    mc->rmap = rmap;

    uint32_t m = map_lower_bound(mc, argument);
    if (m == mc->n || mc->map[m].argument != argument) {
        uint32_t cap = 0;
        uint32_t *values = grow32(NULL, &cap, 1, sizeof *values);
        if (!values)
            goto oom;
        OTF_MapEntry *map = grow32(mc->map, &mc->s, (uint64_t)mc->n + 1, sizeof *map);
        if (!map) {
            free(values);
            goto oom;
        }
        mc->map = map;
        memmove(&map[m + 1], &map[m], (size_t)(mc->n - m) * sizeof *map);
        map[m] = (OTF_MapEntry){ .argument = argument, .s = cap, .values = values };
        mc->n++;
    } else {
        OTF_MapEntry *e = &mc->map[m];
        uint32_t *values = grow32(e->values, &e->s, (uint64_t)e->n + 1, sizeof *values);
        if (!values)
            goto oom;
        e->values = values;
    }

    OTF_MapEntry *e = &mc->map[m];
    uint32_t k = values_lower_bound(e, value);
    memmove(&e->values[k + 1], &e->values[k], (size_t)(e->n - k) * sizeof *e->values);
    e->values[k] = value;
    e->n++;

    memmove(&rmap[r + 1], &rmap[r], (size_t)(mc->rn - r) * sizeof *rmap);
    rmap[r] = (OTF_Pair){ .argument = value, .value = argument };
    mc->rn++;
    return 1;
oom:
    vftr_otf_seterr("OTF_MasterControl_append: out of memory");
    return 0;
}

int OTF_MasterControl_appendList(OTF_MasterControl *mc, uint32_t argument, uint32_t l,
                                 uint32_t *values)
{
    if (l && !values) {
        vftr_otf_seterr("OTF_MasterControl_appendList: no values given");
        return 0;
    }
    /* Like the reference: a failing value does not stop the others. */
    int ok = 1;
    for (uint32_t i = 0; i < l; i++)
        if (!OTF_MasterControl_append(mc, argument, values[i]))
            ok = 0;
    return ok;
}

/* --- queries -------------------------------------------------------------- */

uint32_t OTF_MasterControl_mapReverse(OTF_MasterControl *mc, uint32_t value)
{
    if (!mc)
        return 0;
    uint32_t r = rmap_lower_bound(mc, value);
    return r < mc->rn && mc->rmap[r].argument == value ? mc->rmap[r].value : 0;
}

OTF_MapEntry *OTF_MasterControl_getEntry(OTF_MasterControl *mc, uint32_t argument)
{
    if (!mc)
        return NULL;
    uint32_t m = map_lower_bound(mc, argument);
    return m < mc->n && mc->map[m].argument == argument ? &mc->map[m] : NULL;
}

OTF_MapEntry *OTF_MasterControl_getEntryByIndex(OTF_MasterControl *mc, uint32_t index)
{
    return mc && index < mc->n ? &mc->map[index] : NULL;
}

OTF_Pair *OTF_MasterControl_getREntryByIndex(OTF_MasterControl *mc, uint32_t index)
{
    return mc && index < mc->rn ? &mc->rmap[index] : NULL;
}

uint32_t OTF_MasterControl_getCount(OTF_MasterControl *mc)
{
    return mc ? mc->n : 0;
}

uint32_t OTF_MasterControl_getrCount(OTF_MasterControl *mc)
{
    return mc ? mc->rn : 0;
}

uint32_t OTF_MasterControl_getValueCount(OTF_MasterControl *mc, uint32_t argument)
{
    OTF_MapEntry *e = OTF_MasterControl_getEntry(mc, argument);
    return e ? e->n : 0;
}

uint32_t *OTF_MasterControl_getValues(OTF_MasterControl *mc, uint32_t argument)
{
    OTF_MapEntry *e = OTF_MasterControl_getEntry(mc, argument);
    return e && e->n ? e->values : NULL;
}

uint32_t OTF_MasterControl_getNewStreamId(OTF_MasterControl *mc)
{
    if (!mc || mc->n == 0)
        return 1;
    uint32_t last = mc->map[mc->n - 1].argument;
    if (last < UINT32_MAX - 1)
        return last + 1;
    /* The top of the id space is taken: like the reference, fall back to the
     * smallest free id, found in one pass over the sorted stream ids. */
    uint32_t want = 1;
    for (uint32_t i = 0; i < mc->n; i++) {
        uint32_t a = mc->map[i].argument;
        if (a > want)
            break;
        if (a == want)
            want++;
    }
    if (want == UINT32_MAX) {
        vftr_otf_seterr("OTF_MasterControl_getNewStreamId: every stream id is in use");
        return 0;
    }
    return want;
}

int OTF_MasterControl_check(OTF_MasterControl *mc)
{
    if (!mc) {
        vftr_otf_seterr("OTF_MasterControl_check: no master control given");
        return 0;
    }
    if ((mc->n && !mc->map) || (mc->rn && !mc->rmap) || mc->n > mc->s || mc->rn > mc->rs) {
        vftr_otf_seterr("OTF_MasterControl_check: array sizes inconsistent");
        return 0;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < mc->n; i++) {
        const OTF_MapEntry *e = &mc->map[i];
        if (INVALID_STREAM(e->argument)) {
            vftr_otf_seterr("OTF_MasterControl_check: map[%u] has reserved stream id %x",
                            i, e->argument);
            return 0;
        }
        if (i > 0 && e->argument <= mc->map[i - 1].argument) {
            vftr_otf_seterr("OTF_MasterControl_check: map not sorted at index %u", i);
            return 0;
        }
        if (e->n > e->s || (e->n && !e->values)) {
            vftr_otf_seterr("OTF_MasterControl_check: map[%u] sizes inconsistent", i);
            return 0;
        }
        for (uint32_t j = 1; j < e->n; j++) {
            if (e->values[j] <= e->values[j - 1]) {
                vftr_otf_seterr("OTF_MasterControl_check: processes of stream %x not sorted "
                                "or repeated at index %u", e->argument, j);
                return 0;
            }
        }
        total += e->n;
    }
    if (total != mc->rn) {
        vftr_otf_seterr("OTF_MasterControl_check: map holds %llu processes, rmap %u",
                        (unsigned long long)total, mc->rn);
        return 0;
    }
    for (uint32_t i = 0; i < mc->rn; i++) {
        const OTF_Pair *p = &mc->rmap[i];
        if (i > 0 && p->argument <= mc->rmap[i - 1].argument) {
            vftr_otf_seterr("OTF_MasterControl_check: rmap not sorted at index %u", i);
            return 0;
        }
        const OTF_MapEntry *e = OTF_MasterControl_getEntry(mc, p->value);
        uint32_t k = e ? values_lower_bound(e, p->argument) : 0;
        if (!e || k == e->n || e->values[k] != p->argument) {
            vftr_otf_seterr("OTF_MasterControl_check: rmap says process %x is in stream %x, "
                            "map does not", p->argument, p->value);
            return 0;
        }
    }
    /* Equal sizes, unique processes in rmap and every rmap pair present in
     * map: the two describe the same set of pairs. */
    return 1;
}

void OTF_MasterControl_print(OTF_MasterControl *mc)
{
    if (!mc)
        return;
    fputs("map:\n", stderr);
    for (uint32_t i = 0; i < mc->n; i++) {
        fprintf(stderr, "%x: ", mc->map[i].argument);
        for (uint32_t j = 0; j < mc->map[i].n; j++)
            fprintf(stderr, "%x ", mc->map[i].values[j]);
        fputc('\n', stderr);
    }
    fputs("rmap:\n", stderr);
    for (uint32_t i = 0; i < mc->rn; i++)
        fprintf(stderr, "%x: %x\n", mc->rmap[i].argument, mc->rmap[i].value);
}

/* --- writing -------------------------------------------------------------- */

int OTF_MasterControl_write(OTF_MasterControl *mc, const char *namestub)
{
    if (!mc || !namestub) {
        vftr_otf_seterr("OTF_MasterControl_write: no %s given",
                        mc ? "name stub" : "master control");
        return 0;
    }
    char *path = master_path(namestub);
    if (!path) {
        vftr_otf_seterr("OTF_MasterControl_write: out of memory");
        return 0;
    }
    const char *kind;
    FILE *fp = vftr_fopen_regular(path, "w", &kind);
    if (!fp) {
        if (kind)
            vftr_otf_seterr("%s: cannot create: it is %s, expected a regular file", path, kind);
        else
            vftr_otf_seterr("%s: cannot create: %s", path, strerror(errno));
        free(path);
        return 0;
    }

    char buf[8192];
    size_t len = 0;
    int failed = 0;
    for (uint32_t i = 0; i < mc->n && !failed; i++) {
        const OTF_MapEntry *e = &mc->map[i];
        len += put_hex(buf + len, e->argument);
        buf[len++] = ':';
        for (uint32_t j = 0; j < e->n; j++) {
            /* Room for the longest item (",ffffffff") and the newline. */
            if (len > sizeof buf - 16) {
                failed |= fwrite(buf, 1, len, fp) != len;
                len = 0;
            }
            if (j)
                buf[len++] = ',';
            len += put_hex(buf + len, e->values[j]);
        }
        buf[len++] = '\n';
        if (len > sizeof buf - 32) {
            failed |= fwrite(buf, 1, len, fp) != len;
            len = 0;
        }
    }
    if (len && !failed)
        failed = fwrite(buf, 1, len, fp) != len;
    int saved = errno;
    if (fclose(fp) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        vftr_otf_seterr("%s: write failed: %s", path, strerror(saved));
        free(path);
        return 0;
    }
    free(path);
    return 1;
}

/* --- reading -------------------------------------------------------------- */

#define MC_EOF (-1)

/* Buffered byte input that knows the file offset of the next byte. */
struct mc_input {
    FILE *fp;
    const char *path;
    uint64_t offset;
    size_t pos, len;
    int read_errno;
    unsigned char buf[16384];
};

static int peek(struct mc_input *in)
{
    if (in->pos == in->len) {
        in->pos = 0;
        in->len = fread(in->buf, 1, sizeof in->buf, in->fp);
        if (in->len == 0) {
            if (ferror(in->fp) && !in->read_errno)
                in->read_errno = errno ? errno : EIO;
            return MC_EOF;
        }
    }
    return in->buf[in->pos];
}

static void advance(struct mc_input *in)
{
    in->pos++;
    in->offset++;
}

static void skip_blanks(struct mc_input *in)
{
    int c;
    while ((c = peek(in)) == ' ' || c == '\t')
        advance(in);
}

static void parse_error(struct mc_input *in, uint64_t offset, const char *fmt, ...)
    OTF_INTERNAL_PRINTF(3, 4);

static void parse_error(struct mc_input *in, uint64_t offset, const char *fmt, ...)
{
    char msg[OTF_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (in->read_errno)
        vftr_otf_seterr("%s: offset %llu: read error: %s", in->path,
                        (unsigned long long)offset, strerror(in->read_errno));
    else
        vftr_otf_seterr("%s: offset %llu: %s", in->path, (unsigned long long)offset, msg);
}

/* Names the character c for a message. */
static const char *describe(int c, char buf[16])
{
    if (c == MC_EOF)
        return "end of file";
    if (c == '\n')
        return "end of line";
    if (c > ' ' && c < 0x7f)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", (unsigned)c);
    return buf;
}

struct hexnum {
    uint64_t offset;   /* where the number starts */
    uint32_t value;
    uint32_t digits;   /* 0: no number here */
    int overflow;      /* more than 32 bits */
};

/* Reads [0-9a-f]* — the only digits OTF writes or accepts. */
static void parse_hex(struct mc_input *in, struct hexnum *h)
{
    h->offset = in->offset;
    h->value = 0;
    h->digits = 0;
    h->overflow = 0;
    for (;;) {
        int c = peek(in), d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else
            return;
        if (h->value > 0x0fffffffu)
            h->overflow = 1;
        else
            h->value = h->value << 4 | (uint32_t)d;
        if (h->digits < UINT32_MAX)
            h->digits++;
        advance(in);
    }
}

/* Parses a required number; returns 0 or -1 after reporting `what`. */
static int expect_hex(struct mc_input *in, struct hexnum *h, const char *what)
{
    char cb[16];
    skip_blanks(in);
    parse_hex(in, h);
    if (h->digits == 0) {
        parse_error(in, in->offset, "expected %s (lower-case hex), found %s", what,
                    describe(peek(in), cb));
        return -1;
    }
    if (h->overflow) {
        parse_error(in, h->offset, "%s does not fit in 32 bits", what);
        return -1;
    }
    return 0;
}

/* Consumes optional blanks and the end of the line ("\n" or "\r\n");
 * anything else is an error reported as following `after`. */
static int expect_eol(struct mc_input *in, const char *after)
{
    char cb[16];
    skip_blanks(in);
    int c = peek(in);
    if (c == '\r') {
        advance(in);
        c = peek(in);
        if (c != '\n') {
            parse_error(in, in->offset - 1, "carriage return not followed by newline");
            return -1;
        }
    }
    if (c == '\n') {
        advance(in);
        return 0;
    }
    if (c == MC_EOF)
        parse_error(in, in->offset, "missing newline at end of file");
    else
        parse_error(in, in->offset, "unexpected %s after %s", describe(c, cb), after);
    return -1;
}

/* Skips the rest of a line that is not a stream line. */
static int skip_line(struct mc_input *in)
{
    int c;
    while ((c = peek(in)) != '\n') {
        if (c == MC_EOF) {
            parse_error(in, in->offset, "missing newline at end of file");
            return -1;
        }
        advance(in);
    }
    advance(in);
    return 0;
}

/* "i<servers>:<mode>:<bits>": the IOFSL configuration.  vftr does not
 * implement IOFSL traces, so the values are only checked (the mode must be
 * one the reference accepts) and then dropped. */
static int parse_iofsl(struct mc_input *in)
{
    struct hexnum h;
    char cb[16];
    static const char *const fields[] = { "iofsl server count", "iofsl mode", "iofsl index bits" };
    advance(in); /* 'i' */
    for (int f = 0; f < 3; f++) {
        if (f > 0) {
            skip_blanks(in);
            if (peek(in) != ':') {
                parse_error(in, in->offset, "expected ':' before %s, found %s", fields[f],
                            describe(peek(in), cb));
                return -1;
            }
            advance(in);
        }
        if (expect_hex(in, &h, fields[f]) < 0)
            return -1;
        if (f == 1 && h.value != OTF_IOFSL_MULTIFILE_SPLIT && h.value != OTF_IOFSL_MULTIFILE) {
            parse_error(in, h.offset, "invalid iofsl mode %x", h.value);
            return -1;
        }
    }
    return expect_eol(in, "iofsl index bits");
}

/* What the parser collects before the map is built. */
struct mc_pair {
    uint32_t stream;
    uint32_t process;
    uint64_t offset;   /* of the process id, for messages */
};

struct mc_lists {
    struct mc_pair *pairs;
    size_t npairs, cap_pairs;
    uint32_t *streams;   /* every stream line's id, repeats allowed */
    size_t nstreams, cap_streams;
};

static int push_pair(struct mc_input *in, struct mc_lists *l, uint32_t stream,
                     const struct hexnum *h)
{
    /* rn is a uint32_t, so more pairs could not be represented anyway. */
    struct mc_pair *p = grow(l->pairs, &l->cap_pairs, l->npairs + 1, sizeof *p, UINT32_MAX - 1);
    if (!p) {
        parse_error(in, h->offset, "too many processes (out of memory)");
        return -1;
    }
    l->pairs = p;
    p[l->npairs++] = (struct mc_pair){ stream, h->value, h->offset };
    return 0;
}

static int push_stream(struct mc_input *in, struct mc_lists *l, uint32_t stream,
                       uint64_t offset)
{
    uint32_t *s = grow(l->streams, &l->cap_streams, l->nstreams + 1, sizeof *s, SIZE_MAX / 4);
    if (!s) {
        parse_error(in, offset, "too many lines (out of memory)");
        return -1;
    }
    l->streams = s;
    s[l->nstreams++] = stream;
    return 0;
}

/* One line beginning with a (possibly empty) number.  Lines whose number is
 * not followed by ':' are ignored, as by the reference; a stream line must
 * be well formed. */
static int parse_line(struct mc_input *in, struct mc_lists *l)
{
    struct hexnum stream, proc;
    char cb[16];
    skip_blanks(in);
    parse_hex(in, &stream);
    skip_blanks(in);
    if (peek(in) != ':')
        return skip_line(in);
    if (stream.digits == 0) {
        parse_error(in, in->offset, "missing stream id before ':'");
        return -1;
    }
    if (stream.overflow) {
        parse_error(in, stream.offset, "stream id does not fit in 32 bits");
        return -1;
    }
    if (INVALID_STREAM(stream.value)) {
        parse_error(in, stream.offset, "stream id %x is reserved", stream.value);
        return -1;
    }
    advance(in); /* ':' */
    if (push_stream(in, l, stream.value, stream.offset) < 0)
        return -1;

    /* "<stream>:" alone is what a writer produces for a stream without
     * processes; the reference would invent a process 0 here. */
    skip_blanks(in);
    int c = peek(in);
    if (c == '\n' || c == '\r')
        return expect_eol(in, "':'");

    for (;;) {
        if (expect_hex(in, &proc, "a process id") < 0)
            return -1;
        if (push_pair(in, l, stream.value, &proc) < 0)
            return -1;
        skip_blanks(in);
        c = peek(in);
        if (c == ',') {
            advance(in);
            continue;
        }
        if (c == '\n' || c == '\r' || c == MC_EOF)
            return expect_eol(in, "a process id");
        parse_error(in, in->offset, "unexpected %s after a process id", describe(c, cb));
        return -1;
    }
}

static int parse_file(struct mc_input *in, struct mc_lists *l)
{
    for (;;) {
        int c = peek(in);
        if (c == MC_EOF)
            break;
        int rc;
        if (c == '\n') {
            advance(in);
            rc = 0;
        } else if (c == 'i') {
            rc = parse_iofsl(in);
        } else {
            rc = parse_line(in, l);
        }
        if (rc < 0)
            return -1;
    }
    if (in->read_errno) {
        parse_error(in, in->offset, "read error");
        return -1;
    }
    return 0;
}

static int by_process(const void *a, const void *b)
{
    const struct mc_pair *x = a, *y = b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Fills the (empty) mc from the parsed lists. */
static int build(OTF_MasterControl *mc, struct mc_lists *l, const char *path)
{
    if (l->npairs == 0) {
        vftr_otf_seterr("%s: no process listed", path);
        return -1;
    }
    qsort(l->pairs, l->npairs, sizeof *l->pairs, by_process);
    for (size_t i = 1; i < l->npairs; i++) {
        const struct mc_pair *a = &l->pairs[i - 1], *b = &l->pairs[i];
        if (a->process == b->process) {
            vftr_otf_seterr("%s: offset %llu: process %x listed again (already in stream %x "
                            "at offset %llu)", path, (unsigned long long)b->offset, b->process,
                            a->stream, (unsigned long long)a->offset);
            return -1;
        }
    }

    qsort(l->streams, l->nstreams, sizeof *l->streams, by_id);
    size_t ns = 0;
    for (size_t i = 0; i < l->nstreams; i++)
        if (ns == 0 || l->streams[i] != l->streams[ns - 1])
            l->streams[ns++] = l->streams[i];

    /* There are at most npairs + (lines without process) <= file size
     * streams; ns fits uint32_t because every stream id is distinct. */
    mc->map = calloc(ns, sizeof *mc->map);
    mc->rmap = malloc(l->npairs * sizeof *mc->rmap);
    if (!mc->map || !mc->rmap)
        goto oom;
    mc->n = mc->s = (uint32_t)ns;
    mc->rn = mc->rs = (uint32_t)l->npairs;

    /* Pairs are in process order, so filling each stream's array in that
     * order leaves it sorted.  First count, then allocate, then fill. */
    for (uint32_t i = 0; i < mc->n; i++)
        mc->map[i].argument = l->streams[i];
    for (size_t i = 0; i < l->npairs; i++)
        mc->map[map_lower_bound(mc, l->pairs[i].stream)].n++;
    for (uint32_t i = 0; i < mc->n; i++) {
        OTF_MapEntry *e = &mc->map[i];
        if (e->n) {
            e->values = malloc((size_t)e->n * sizeof *e->values);
            if (!e->values)
                goto oom;
            e->s = e->n;
            e->n = 0;
        }
    }
    for (size_t i = 0; i < l->npairs; i++) {
        const struct mc_pair *p = &l->pairs[i];
        OTF_MapEntry *e = &mc->map[map_lower_bound(mc, p->stream)];
        e->values[e->n++] = p->process;
        mc->rmap[i] = (OTF_Pair){ .argument = p->process, .value = p->stream };
    }
    return 0;
oom:
    vftr_otf_seterr("%s: out of memory for %zu processes", path, l->npairs);
    return -1;
}

int OTF_MasterControl_read(OTF_MasterControl *mc, const char *namestub)
{
    if (!mc || !namestub) {
        vftr_otf_seterr("OTF_MasterControl_read: no %s given",
                        mc ? "name stub" : "master control");
        return 0;
    }
    OTF_MasterControl_reset(mc);

    char *path = master_path(namestub);
    struct mc_input *in = malloc(sizeof *in);
    struct mc_lists lists = { 0 };
    int ok = 0;
    if (!path || !in) {
        vftr_otf_seterr("OTF_MasterControl_read: out of memory");
        goto out;
    }
    const char *kind;
    in->fp = vftr_fopen_regular(path, "r", &kind);
    if (!in->fp) {
        if (kind)
            vftr_otf_seterr("%s: cannot open for reading: it is %s, expected a regular file",
                            path, kind);
        else
            vftr_otf_seterr("%s: cannot open for reading: %s", path, strerror(errno));
        goto out;
    }
    in->path = path;
    in->offset = 0;
    in->pos = in->len = 0;
    in->read_errno = 0;
    ok = parse_file(in, &lists) == 0 && build(mc, &lists, path) == 0;
    fclose(in->fp);
out:
    if (!ok)
        OTF_MasterControl_reset(mc);
    free(lists.pairs);
    free(lists.streams);
    free(in);
    free(path);
    return ok;
}
