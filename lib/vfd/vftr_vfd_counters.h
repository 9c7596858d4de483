/*
 * vftr_vfd_counters.h — performance counters in the .vfd format: the
 * COUNTERS definition chunk (one entry per counter a run measured) and the
 * COUNTERS extended event (the values of a thread's counters at a region
 * boundary).  share/doc/vfd-format.md gives the bytes.
 *
 * Definitions: id (from 1, the counter's place in every event's list),
 * flags, name ("task-clock", "PAPI_TOT_CYC"), unit ("ns", "events").
 * Event payload: the call path id, the boundary (VFTR_VFD_CTR_ENTER just
 * after the ENTER of that call path, VFTR_VFD_CTR_EXIT just after its
 * EXIT), the number n of values, then n values: value i is counter i + 1's
 * count on this thread since the thread's counters were opened, scaled by
 * time enabled / time running when the kernel multiplexed it.  All fields
 * are unsigned LEB128 varints.  A decoder accepts more values than it
 * asks for (they are skipped) and refuses a payload cut short.
 *
 * Error convention as vftr_vfd_ext.h: encoders return the bytes written (0:
 * invalid or does not fit), decoders 0 or -EBADMSG.  No allocation, no
 * state: thread-safe and async-signal-safe.
 */
#ifndef VFTR_VFD_VFTR_VFD_COUNTERS_H
#define VFTR_VFD_VFTR_VFD_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "vftr_vfd.h"
#include "vftr_vfd_ext.h"

/* Most counters one event carries (its payload stays within
 * VFTR_VFD_EXT_MAX: 3 + 8 x 10 bytes at worst). */
#define VFTR_VFD_CTR_MAX 8u

enum { VFTR_VFD_CTR_ENTER = 0, VFTR_VFD_CTR_EXIT = 1 };

struct vftr_vfd_counter {
    uint32_t id;                /* from 1 */
    uint32_t flags;             /* 0 (reserved) */
    const char *name;           /* encoder: NUL-terminated; decoder: name_len bytes */
    const char *unit;
};

struct vftr_vfd_counter_view {
    struct vftr_vfd_counter c;  /* name and unit point into the payload, not terminated */
    size_t name_len, unit_len;
};

/* One COUNTERS chunk of n definitions into out (cap bytes): its size, or 0. */
size_t vftr_vfd_encode_counters(const struct vftr_vfd_counter *c, size_t n, uint8_t *out,
                                size_t cap);
size_t vftr_vfd_counters_bound(const struct vftr_vfd_counter *c, size_t n);
/* Cursor over a COUNTERS chunk's payload (vftr_vfd_cursor_init): 1, 0 at
 * the end, -EBADMSG. */
int vftr_vfd_next_counter(struct vftr_vfd_cursor *c, struct vftr_vfd_counter_view *out);

/* The event payload (n <= VFTR_VFD_CTR_MAX values). */
struct vftr_vfd_ctr_values {
    uint32_t callpath;
    uint32_t boundary;          /* VFTR_VFD_CTR_ENTER / _EXIT */
    uint32_t n;
    uint64_t v[VFTR_VFD_CTR_MAX];
};
size_t vftr_vfd_ctr_values_encode(const struct vftr_vfd_ctr_values *cv,
                                  uint8_t out[VFTR_VFD_EXT_MAX]);
/* At most VFTR_VFD_CTR_MAX values are kept (cv->n says how many). */
int vftr_vfd_ctr_values_decode(const uint8_t *data, size_t len, struct vftr_vfd_ctr_values *cv);

#endif /* VFTR_VFD_VFTR_VFD_COUNTERS_H */
