/*
 * counters.c — the COUNTERS definition chunk and event (vftr_vfd_counters.h).
 */
#include <errno.h>
#include <string.h>

#include "vfd_internal.h"
#include "vftr_vfd_counters.h"

static size_t def_bound(const struct vftr_vfd_counter *c)
{
    size_t a = vfd_name_len(c->name), b = vfd_name_len(c->unit);

    return 4 * 10 + a + b;
}

size_t vftr_vfd_counters_bound(const struct vftr_vfd_counter *c, size_t n)
{
    size_t total = VFTR_VFD_CHUNK_HEADER_SIZE;

    for (size_t i = 0; i < n; i++)
        total = vfd_add_bound(total, def_bound(&c[i]));
    return total;
}

static uint8_t *put_str(uint8_t *p, const char *s)
{
    size_t len = vfd_name_len(s);

    p = vfd_put_varint(p, len);
    memcpy(p, s ? s : "", len);
    return p + len;
}

size_t vftr_vfd_encode_counters(const struct vftr_vfd_counter *c, size_t n, uint8_t *out,
                                size_t cap)
{
    uint8_t *p, *end;

    if ((n && c == NULL) || out == NULL || cap < VFTR_VFD_CHUNK_HEADER_SIZE ||
        n > UINT32_MAX)
        return 0;
    p = out + VFTR_VFD_CHUNK_HEADER_SIZE;
    end = vfd_payload_end(out, cap);
    for (size_t i = 0; i < n; i++) {
        if ((size_t)(end - p) < def_bound(&c[i]))
            return 0;
        p = vfd_put_varint(p, c[i].id);
        p = vfd_put_varint(p, c[i].flags);
        p = put_str(p, c[i].name);
        p = put_str(p, c[i].unit);
    }
    return vfd_finish_chunk(out, p, VFTR_VFD_CHUNK_COUNTERS, n);
}

static int get_u32(const uint8_t **p, const uint8_t *end, uint32_t *out)
{
    uint64_t v;

    if (vfd_get_varint(p, end, &v) < 0 || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int get_str(const uint8_t **p, const uint8_t *end, const char **s, size_t *len)
{
    uint64_t n;

    if (vfd_get_varint(p, end, &n) < 0 || n > (uint64_t)(end - *p))
        return -1;
    *s = (const char *)*p;
    *len = (size_t)n;
    *p += n;
    return 0;
}

int vftr_vfd_next_counter(struct vftr_vfd_cursor *c, struct vftr_vfd_counter_view *out)
{
    if (c->left == 0)
        return 0;
    memset(out, 0, sizeof *out);
    if (get_u32(&c->p, c->end, &out->c.id) < 0 || get_u32(&c->p, c->end, &out->c.flags) < 0 ||
        get_str(&c->p, c->end, &out->c.name, &out->name_len) < 0 ||
        get_str(&c->p, c->end, &out->c.unit, &out->unit_len) < 0 || out->c.id == 0) {
        c->p = c->end;
        c->left = 0;
        return -EBADMSG;
    }
    c->left--;
    return 1;
}

size_t vftr_vfd_ctr_values_encode(const struct vftr_vfd_ctr_values *cv,
                                  uint8_t out[VFTR_VFD_EXT_MAX])
{
    uint8_t *p = out;

    if (cv == NULL || out == NULL || cv->n > VFTR_VFD_CTR_MAX)
        return 0;
    p = vfd_put_varint(p, cv->callpath);
    p = vfd_put_varint(p, cv->boundary);
    p = vfd_put_varint(p, cv->n);
    for (uint32_t i = 0; i < cv->n; i++)
        p = vfd_put_varint(p, cv->v[i]);
    return (size_t)(p - out);
}

_Static_assert(3 * 5 + VFTR_VFD_CTR_MAX * 10 <= VFTR_VFD_EXT_MAX, "counter events fit");

int vftr_vfd_ctr_values_decode(const uint8_t *data, size_t len, struct vftr_vfd_ctr_values *cv)
{
    const uint8_t *p = data, *end = data + len;
    uint32_t n;

    if (data == NULL || cv == NULL)
        return -EBADMSG;
    memset(cv, 0, sizeof *cv);
    if (get_u32(&p, end, &cv->callpath) < 0 || get_u32(&p, end, &cv->boundary) < 0 ||
        get_u32(&p, end, &n) < 0)
        return -EBADMSG;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v;

        if (vfd_get_varint(&p, end, &v) < 0)
            return -EBADMSG;
        if (i < VFTR_VFD_CTR_MAX)
            cv->v[i] = v;
    }
    cv->n = n < VFTR_VFD_CTR_MAX ? n : VFTR_VFD_CTR_MAX;
    return 0;
}
