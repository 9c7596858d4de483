/* vfdfeed.c — see vfdfeed.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "vfdfeed.h"

struct vftr_vfdfeed {
    char **names;               /* names[id - 1] */
    size_t n, cap;
    uint32_t *slots;            /* open addressing over names: id, 0 = free */
    size_t nslots;              /* power of two, > 2 n */
};

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603u;        /* FNV-1a */

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

struct vftr_vfdfeed *vftr_vfdfeed_new(void)
{
    struct vftr_vfdfeed *f = calloc(1, sizeof *f);

    if (!f)
        errno = ENOMEM;
    return f;
}

void vftr_vfdfeed_free(struct vftr_vfdfeed *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        free(f->names[i]);
    free(f->names);
    free(f->slots);
    free(f);
}

static int rehash(struct vftr_vfdfeed *f)
{
    size_t n = f->nslots ? 2 * f->nslots : 64;
    uint32_t *s = calloc(n, sizeof *s);

    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < f->n; i++) {
        size_t k = hash_name(f->names[i]) & (n - 1);

        while (s[k])
            k = (k + 1) & (n - 1);
        s[k] = (uint32_t)i + 1;
    }
    free(f->slots);
    f->slots = s;
    f->nslots = n;
    return 0;
}

/* The token of name, given out on first use.  0 on ENOMEM. */
static uint32_t intern(struct vftr_vfdfeed *f, const char *name)
{
    size_t k;

    if (2 * (f->n + 1) >= f->nslots && rehash(f) < 0)
        return 0;
    for (k = hash_name(name) & (f->nslots - 1); f->slots[k]; k = (k + 1) & (f->nslots - 1))
        if (strcmp(f->names[f->slots[k] - 1], name) == 0)
            return f->slots[k];
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        char **p = realloc(f->names, cap * sizeof *p);

        if (!p)
            return 0;
        f->names = p;
        f->cap = cap;
    }
    if (!(f->names[f->n] = strdup(name)))
        return 0;
    f->slots[k] = (uint32_t)++f->n;
    return f->slots[k];
}

uint64_t vftr_vfdfeed_time(const struct vftr_vfd_info *info, uint64_t t)
{
    uint64_t tps = info->ticks_per_second ? info->ticks_per_second : 1000000000u;
    uint64_t dt, sec, rem;

    if (t < info->start_ticks)               /* before the header's start: clamp */
        return info->start_ns;
    dt = t - info->start_ticks;
    sec = dt / tps;
    rem = dt % tps;
    /* rem * 10^9 fits in 64 bits for any clock under 18 GHz */
    return info->start_ns + sec * 1000000000u + rem * 1000000000u / tps;
}

const char *vftr_vfdfeed_name(const struct vftr_vfdfeed *f, uint32_t id)
{
    return id >= 1 && id <= f->n ? f->names[id - 1] : NULL;
}

size_t vftr_vfdfeed_nfunctions(const struct vftr_vfdfeed *f)
{
    return f->n;
}

/* The token of call path id in file r (cached per file in paths).  0 when
 * the path or its function is not defined; -ENOMEM as (uint32_t) never:
 * *rc says. */
static uint32_t path_token(struct vftr_vfdfeed *f, struct vftr_vfd_reader *r,
                           struct vftr_u64map *paths, uint32_t id, int *rc)
{
    long cached = vftr_u64map_get(paths, id);
    const char *name;
    uint32_t tok;

    if (cached >= 0)
        return (uint32_t)cached;
    name = vftr_vfd_reader_callpath_name(r, id);
    if (!name)
        return 0;
    tok = intern(f, name);
    if (tok == 0 || vftr_u64map_put(paths, id, tok) < 0)
        *rc = -ENOMEM;
    return tok;
}

int vftr_vfdfeed_file(struct vftr_vfdfeed *f, struct vftr_vfd_reader *r, int32_t rank,
                      struct vftr_replay *replay, struct vftr_vfdfeed_counts *counts)
{
    struct vftr_vfdfeed_counts scratch = { 0 };
    struct vftr_u64map paths = VFTR_U64MAP_INIT;
    struct vftr_vfd_record rec;
    const struct vftr_vfd_info *info = vftr_vfd_reader_info(r);
    int32_t rk = info->rank >= 0 ? info->rank : rank;
    int rc, got;

    if (!counts)
        counts = &scratch;
    if (rk < 0 || (uint32_t)rk + 1 >= 1u << VFTR_VFDFEED_RANK_BITS)
        return -EINVAL;
    rc = vftr_vfd_reader_scan_definitions(r);
    if (rc < 0)
        return rc;
    vftr_vfd_reader_rewind(r);
    while ((got = vftr_vfd_reader_next(r, &rec)) > 0) {
        uint32_t process, tok;

        if (rec.type != VFTR_VFD_REC_EVENT)
            continue;
        if (rec.u.event.kind != VFTR_VFD_ENTER && rec.u.event.kind != VFTR_VFD_EXIT) {
            counts->skipped++;
            continue;
        }
        tok = path_token(f, r, &paths, rec.u.event.id, &rc);
        if (rc < 0)
            break;
        if (tok == 0) {
            counts->unknown++;
            continue;
        }
        if (rec.thread >= 1u << (32 - VFTR_VFDFEED_RANK_BITS)) {
            counts->unknown++;
            continue;
        }
        process = VFTR_VFDFEED_PROCESS(rk, rec.thread);
        if (rec.u.event.kind == VFTR_VFD_ENTER) {
            counts->enters++;
            rc = vftr_replay_enter(replay, process, tok, vftr_vfdfeed_time(info, rec.u.event.time));
        } else {
            counts->exits++;
            rc = vftr_replay_leave(replay, process, tok, vftr_vfdfeed_time(info, rec.u.event.time));
        }
        if (rc < 0)
            break;
    }
    if (rc == 0 && got < 0)
        rc = got;
    vftr_u64map_release(&paths);
    return rc;
}
