/*
 * processlist.c — per-process status for the reader (otf_processlist.h).
 *
 * The reference keeps the processes in a sorted array and binary-searches it
 * for every record it reads.  Here the lookup is a single array access for
 * the usual case of small process ids (MPI ranks + 1, threads packed into
 * modest ids) and a short probe of a hash table when ids are spread over the
 * 32-bit range (e.g. thread number in the high bits).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "otf_processlist.h"

/* Multiplicative (Fibonacci) hashing: ids that differ only in their high
 * bits or that form arithmetic progressions still spread over the table. */
static inline uint32_t slot_of(uint32_t process, uint32_t bits)
{
    return (uint32_t)(process * 2654435769u) >> (32 - bits);
}

static struct vftr_otf_proclist_slot *find_slot(const struct vftr_otf_proclist *list,
                                                uint32_t process)
{
    uint32_t mask = (uint32_t)((1ull << list->hash_bits) - 1);
    uint32_t i = slot_of(process, list->hash_bits);
    /* The table is at most half full, so an empty slot ends every probe. */
    for (;;) {
        struct vftr_otf_proclist_slot *s = &list->slots[i];
        if (!s->used || s->process == process)
            return s;
        i = (i + 1) & mask;
    }
}

uint8_t vftr_otf_proclist_hash_status(const struct vftr_otf_proclist *list,
                                      uint32_t process)
{
    const struct vftr_otf_proclist_slot *s = find_slot(list, process);
    return s->used ? s->status : 0;
}

void vftr_otf_proclist_release(struct vftr_otf_proclist *list)
{
    if (!list)
        return;
    free(list->processes);
    free(list->status);
    free(list->slots);
    memset(list, 0, sizeof *list);
}

static int build_dense(struct vftr_otf_proclist *list, uint32_t len)
{
    list->status = calloc(len, 1);
    if (!list->status)
        return -ENOMEM;
    list->dense_len = len;
    for (uint32_t i = 0; i < list->n; i++)
        list->status[list->processes[i]] = 1;
    return 0;
}

static int build_hash(struct vftr_otf_proclist *list)
{
    uint32_t bits = 1;
    while (bits < 32 && (1ull << bits) < 2ull * list->n)
        bits++;
    list->slots = calloc((size_t)1 << bits, sizeof *list->slots);
    if (!list->slots)
        return -ENOMEM;
    list->hash_bits = bits;
    for (uint32_t i = 0; i < list->n; i++) {
        struct vftr_otf_proclist_slot *s = find_slot(list, list->processes[i]);
        s->used = 1;
        s->process = list->processes[i];
        s->status = 1;
    }
    return 0;
}

int vftr_otf_proclist_init(struct vftr_otf_proclist *list,
                           const OTF_MasterControl *mc)
{
    if (!list)
        return -EINVAL;
    memset(list, 0, sizeof *list);
    if (!mc) {
        vftr_otf_seterr("process list: no master control given");
        return -EINVAL;
    }
    if (mc->rn == 0 || !mc->rmap) {
        vftr_otf_seterr("process list: the master control lists no process");
        return -ENOENT;
    }
    /* 2^30 processes would already need gigabytes elsewhere; refusing more
     * keeps the table size arithmetic below far from overflow. */
    if (mc->rn > (1u << 30)) {
        vftr_otf_seterr("process list: too many processes (%u)", mc->rn);
        return -ENOMEM;
    }

    list->processes = malloc((size_t)mc->rn * sizeof *list->processes);
    if (!list->processes) {
        vftr_otf_seterr("process list: out of memory for %u processes", mc->rn);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < mc->rn; i++) {
        uint32_t p = mc->rmap[i].argument; /* process id (the key of rmap) */
        /* Everything below (binary search, uniqueness) relies on the order
         * the master control guarantees; a program may have broken it. */
        if (i > 0 && p <= list->processes[i - 1]) {
            vftr_otf_seterr("process list: master control rmap not sorted at index %u", i);
            vftr_otf_proclist_release(list);
            return -EINVAL;
        }
        list->processes[i] = p;
    }
    list->n = mc->rn;

    uint64_t max = list->processes[list->n - 1];
    uint64_t dense_limit = 16ull * list->n;
    if (dense_limit < 65536)
        dense_limit = 65536;
    int dense = max < dense_limit && max < UINT32_MAX;
    int rc = dense ? build_dense(list, (uint32_t)(max + 1)) : build_hash(list);
    if (rc < 0) {
        vftr_otf_seterr("process list: out of memory for %u processes", list->n);
        vftr_otf_proclist_release(list);
        return rc;
    }
    return 0;
}

uint32_t vftr_otf_proclist_index(const struct vftr_otf_proclist *list,
                                 uint32_t process)
{
    uint32_t lo = 0, hi = list->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (list->processes[mid] < process)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < list->n && list->processes[lo] == process ? lo : UINT32_MAX;
}

int vftr_otf_proclist_set(struct vftr_otf_proclist *list, uint32_t process,
                          uint8_t status)
{
    if (list->slots) {
        struct vftr_otf_proclist_slot *s = find_slot(list, process);
        if (!s->used)
            return -ENOENT;
        s->status = status;
        return 0;
    }
    /* In the dense array a zero byte means both "unknown" and "disabled",
     * so membership comes from the sorted list. */
    if (vftr_otf_proclist_index(list, process) == UINT32_MAX)
        return -ENOENT;
    list->status[process] = status;
    return 0;
}

void vftr_otf_proclist_set_all(struct vftr_otf_proclist *list, uint8_t status)
{
    if (list->slots) {
        uint64_t size = 1ull << list->hash_bits;
        for (uint64_t i = 0; i < size; i++)
            if (list->slots[i].used)
                list->slots[i].status = status;
        return;
    }
    for (uint32_t i = 0; i < list->n; i++)
        list->status[list->processes[i]] = status;
}

/* --- the reference's names ------------------------------------------------ */

int OTF_ProcessList_init(OTF_ProcessList *list, OTF_MasterControl *mc)
{
    if (!list) {
        vftr_otf_seterr("OTF_ProcessList_init: no list given");
        return 0;
    }
    return vftr_otf_proclist_init(list, mc) == 0;
}

int OTF_ProcessList_finalize(OTF_ProcessList *list)
{
    vftr_otf_proclist_release(list);
    return 1;
}

uint8_t OTF_ProcessList_getStatus(OTF_ProcessList *list, uint32_t process)
{
    return list ? vftr_otf_proclist_status(list, process) : 0;
}

int OTF_ProcessList_setStatus(OTF_ProcessList *list, uint32_t process,
                              uint8_t status)
{
    return list && vftr_otf_proclist_set(list, process, status) == 0;
}

int OTF_ProcessList_setStatusAll(OTF_ProcessList *list, uint8_t status)
{
    if (!list)
        return 0;
    vftr_otf_proclist_set_all(list, status);
    return 1;
}

uint32_t OTF_ProcessList_getIndex(OTF_ProcessList *list, uint32_t process)
{
    return list ? vftr_otf_proclist_index(list, process) : UINT32_MAX;
}
