/*
 * vfdcount — reads a .vfd (or a .tmpvfd left by a killed run) through
 * lib/vfd's reader and prints what the capture integration scripts check:
 *
 *   file PATH
 *   complete 0|1          header rewritten at close
 *   abandoned 0|1         header rewritten on the signal path
 *   capped 0|1            tracing stopped at the size cap
 *   signal N              signal that ended the run (0: none)
 *   rank R
 *   size S
 *   pid P
 *   ticks_per_second T
 *   header_events N       event count the header claims
 *   events N              events read (every kind)
 *   enter N / exit N / sample N / pause N / resume N / other N
 *   threads N             distinct thread ids seen in event chunks
 *   thread_defs N         thread definitions read
 *   unbalanced N          exits that do not match the innermost open enter
 *                         of their thread (0 for an unsampled trace)
 *   misparented N         enters whose call path's parent (CALLPATHS) is not
 *                         the thread's innermost open call path (0 for an
 *                         unsampled trace: no call path begins after its
 *                         parent returned)
 *   open N                enters never left (after a kill: the stack)
 *   backwards N           events earlier than their predecessor in the thread
 *   unnamed N             events whose call path has no function name
 *   warnings N            chunks the reader skipped or cut (see stderr)
 *   errors N              corrupt stretches the reader gave up on
 * then one line per function name, tab-separated:
 *   function<TAB>ENTER<TAB>EXIT<TAB>SAMPLE<TAB>NAME
 * and with --threads one line per thread:
 *   thread<TAB>ID<TAB>ENTER<TAB>EXIT
 * and with --edges one line per caller and callee of the entered call
 * paths (caller "-" for a thread's outermost function), sorted:
 *   edge<TAB>CALLER<TAB>CALLEE
 * The calls of capture's own region vftr:setup (VFTR_SETUP_REGION of
 * capture/capture.h: the time capture spent meeting a new function) are no
 * calls of the program: --threads does not count them and --edges leaves
 * them out (their "function" line is printed like any other).
 *
 * Exit status: 0 read (even if cut short), 1 not readable as a .vfd, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vfd/vftr_vfd.h"

struct idcount {          /* per call path id */
    uint32_t id;
    bool used;
    uint64_t enter, exit, sample;
};

struct thr {              /* per thread */
    uint32_t id;
    uint64_t enter, exit, last_time;
    uint32_t *stack;
    size_t depth, cap;
};

static struct idcount *ids;
static size_t ids_cap, ids_used;
static struct thr *thrs;
static size_t nthrs;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "vfdcount: out of memory\n");
        exit(1);
    }
    return p;
}

static struct idcount *id_slot(uint32_t id);

static void id_grow(void)
{
    struct idcount *old = ids;
    size_t oldcap = ids_cap;

    ids_cap = ids_cap ? ids_cap * 2 : 1024;
    ids = calloc(ids_cap, sizeof *ids);
    if (!ids) {
        fprintf(stderr, "vfdcount: out of memory\n");
        exit(1);
    }
    ids_used = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used)
            *id_slot(old[i].id) = old[i];
    free(old);
}

/* Open addressing, linear probing. */
static struct idcount *id_slot(uint32_t id)
{
    if ((ids_used + 1) * 2 > ids_cap)
        id_grow();
    size_t h = (id * 2654435761u) & (ids_cap - 1);
    while (ids[h].used && ids[h].id != id)
        h = (h + 1) & (ids_cap - 1);
    if (!ids[h].used) {
        ids[h].used = true;
        ids[h].id = id;
        ids_used++;
    }
    return &ids[h];
}

static struct thr *thread_of(uint32_t id)
{
    for (size_t i = 0; i < nthrs; i++)
        if (thrs[i].id == id)
            return &thrs[i];
    thrs = xrealloc(thrs, (nthrs + 1) * sizeof *thrs);
    memset(&thrs[nthrs], 0, sizeof thrs[nthrs]);
    thrs[nthrs].id = id;
    return &thrs[nthrs++];
}

/* Is call path id one of capture's own region (see the header)? */
static int is_setup(const struct vftr_vfd_reader *r, uint32_t id)
{
    const char *name = vftr_vfd_reader_callpath_name(r, id);

    return name && strcmp(name, "vftr:setup") == 0;
}

struct named {
    const char *name;
    uint64_t enter, exit, sample;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_thread(const void *a, const void *b)
{
    uint32_t x = ((const struct thr *)a)->id, y = ((const struct thr *)b)->id;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    char err[VFTR_VFD_ERR_MAX];
    struct vftr_vfd_reader *r;
    struct vftr_vfd_record rec;
    const struct vftr_vfd_info *info;
    uint64_t n_ev = 0, n_enter = 0, n_exit = 0, n_sample = 0, n_pause = 0, n_resume = 0;
    uint64_t n_other = 0, unbalanced = 0, backwards = 0, unnamed = 0, errors = 0;
    uint64_t thread_defs = 0, open = 0, misparented = 0;
    bool per_thread = false, edges = false;
    const char *path = NULL;
    int rc;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0)
            per_thread = true;
        else if (strcmp(argv[i], "--edges") == 0)
            edges = true;
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "usage: vfdcount [--threads] [--edges] FILE.vfd\n");
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: vfdcount [--threads] FILE.vfd\n");
        return 2;
    }
    r = vftr_vfd_reader_open_msg(path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "vfdcount: %s\n", err[0] ? err : strerror(errno));
        return 1;
    }
    info = vftr_vfd_reader_info(r);
    /* the parents of the call paths, for the check at each enter */
    if (vftr_vfd_reader_scan_definitions(r) < 0)
        errors++;

    for (;;) {
        rc = vftr_vfd_reader_next(r, &rec);
        if (vftr_vfd_reader_warning(r))
            fprintf(stderr, "vfdcount: warning: %s\n", vftr_vfd_reader_warning(r));
        if (rc == 0)
            break;
        if (rc < 0) {
            const char *e = vftr_vfd_reader_error(r);

            fprintf(stderr, "vfdcount: %s\n", e ? e : "corrupt file");
            if (++errors > 1000)
                break;
            continue;
        }
        if (rec.type == VFTR_VFD_REC_THREAD) {
            thread_defs++;
            continue;
        }
        if (rec.type != VFTR_VFD_REC_EVENT)
            continue;

        struct thr *t = thread_of(rec.thread);
        n_ev++;
        if (rec.u.event.time < t->last_time)
            backwards++;
        t->last_time = rec.u.event.time;
        switch (rec.u.event.kind) {
        case VFTR_VFD_ENTER: {
            const struct vftr_vfd_callpath *cp = vftr_vfd_reader_callpath(r, rec.u.event.id);

            n_enter++;
            t->enter += !is_setup(r, rec.u.event.id);
            id_slot(rec.u.event.id)->enter++;
            if (cp == NULL || cp->parent != (t->depth ? t->stack[t->depth - 1] : 0))
                misparented++;
            if (t->depth == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 64;
                t->stack = xrealloc(t->stack, t->cap * sizeof *t->stack);
            }
            t->stack[t->depth++] = rec.u.event.id;
            break;
        }
        case VFTR_VFD_EXIT:
            n_exit++;
            t->exit += !is_setup(r, rec.u.event.id);
            id_slot(rec.u.event.id)->exit++;
            if (t->depth && t->stack[t->depth - 1] == rec.u.event.id)
                t->depth--;
            else
                unbalanced++;
            break;
        case VFTR_VFD_SAMPLE:
            n_sample++;
            id_slot(rec.u.event.id)->sample++;
            break;
        case VFTR_VFD_PAUSE: n_pause++; break;
        case VFTR_VFD_RESUME: n_resume++; break;
        default: n_other++; break;
        }
    }

    /* Names are resolved at the end: definitions may follow the events. */
    struct named *nm = xrealloc(NULL, ids_used * sizeof *nm);
    size_t nn = 0;
    for (size_t i = 0; i < ids_cap; i++) {
        if (!ids[i].used)
            continue;
        const char *name = vftr_vfd_reader_callpath_name(r, ids[i].id);
        if (!name) {
            unnamed += ids[i].enter + ids[i].exit + ids[i].sample;
            name = "(unnamed)";
        }
        nm[nn++] = (struct named){ name, ids[i].enter, ids[i].exit, ids[i].sample };
    }
    if (nn)   /* qsort(NULL, 0, ...) is undefined behaviour */
        qsort(nm, nn, sizeof *nm, by_name);
    for (size_t i = 0; i < nthrs; i++)
        open += thrs[i].depth;

    printf("file %s\n", path);
    printf("complete %d\nabandoned %d\ncapped %d\nsignal %d\n", info->complete, info->abandoned,
           info->capped, (int)info->signal);
    printf("rank %d\nsize %d\npid %" PRId64 "\n", (int)info->rank, (int)info->size, info->pid);
    printf("ticks_per_second %" PRIu64 "\nheader_events %" PRIu64 "\n", info->ticks_per_second,
           info->events);
    printf("events %" PRIu64 "\nenter %" PRIu64 "\nexit %" PRIu64 "\nsample %" PRIu64 "\n", n_ev,
           n_enter, n_exit, n_sample);
    printf("pause %" PRIu64 "\nresume %" PRIu64 "\nother %" PRIu64 "\n", n_pause, n_resume, n_other);
    printf("threads %zu\nthread_defs %" PRIu64 "\n", nthrs, thread_defs);
    printf("unbalanced %" PRIu64 "\nopen %" PRIu64 "\nbackwards %" PRIu64 "\nunnamed %" PRIu64 "\n",
           unbalanced, open, backwards, unnamed);
    printf("misparented %" PRIu64 "\n", misparented);
    printf("warnings %u\nerrors %" PRIu64 "\n", vftr_vfd_reader_warnings(r), errors);
    for (size_t i = 0; i < nn; i++) {
        /* merge equal names (one function, several call paths) */
        uint64_t e = nm[i].enter, x = nm[i].exit, s = nm[i].sample;
        while (i + 1 < nn && strcmp(nm[i + 1].name, nm[i].name) == 0) {
            i++;
            e += nm[i].enter;
            x += nm[i].exit;
            s += nm[i].sample;
        }
        printf("function\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", e, x, s, nm[i].name);
    }
    if (per_thread) {
        if (nthrs)
            qsort(thrs, nthrs, sizeof *thrs, by_thread);
        for (size_t i = 0; i < nthrs; i++)
            printf("thread\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\n", thrs[i].id, thrs[i].enter,
                   thrs[i].exit);
    }
    if (edges) {
        char **e = xrealloc(NULL, ids_used * sizeof *e);
        size_t ne = 0;

        for (size_t i = 0; i < ids_cap; i++) {
            const struct vftr_vfd_callpath *cp;
            const char *callee, *caller;

            if (!ids[i].used || ids[i].enter == 0 || is_setup(r, ids[i].id))
                continue;
            cp = vftr_vfd_reader_callpath(r, ids[i].id);
            callee = vftr_vfd_reader_callpath_name(r, ids[i].id);
            caller = cp && cp->parent ? vftr_vfd_reader_callpath_name(r, cp->parent) : "-";
            e[ne] = xrealloc(NULL, strlen(callee ? callee : "?") + strlen(caller ? caller : "?") + 8);
            sprintf(e[ne++], "edge\t%s\t%s", caller ? caller : "?", callee ? callee : "?");
        }
        if (ne)
            qsort(e, ne, sizeof *e, by_string);
        for (size_t i = 0; i < ne; i++) {
            if (i == 0 || strcmp(e[i], e[i - 1]) != 0)
                printf("%s\n", e[i]);
        }
        for (size_t i = 0; i < ne; i++)
            free(e[i]);
        free(e);
    }
    for (size_t i = 0; i < nthrs; i++)
        free(thrs[i].stack);
    free(thrs);
    free(nm);
    free(ids);
    vftr_vfd_reader_close(r);
    return 0;
}
