/*
 * otf_processlist.h — the set of a trace's processes with one status byte
 * each, as the reader needs it: status 0 means "skip this process's
 * records", anything else "deliver them" (OTF_Reader_setProcessStatus).
 * Not installed.
 *
 * Rules of the data structure:
 *   - the set is fixed when the list is built (from a master control); it
 *     holds each process once; `processes` lists them in ascending order;
 *   - every process starts with status 1; a status is any uint8_t;
 *   - a process that is not in the set has status 0 and cannot be given
 *     another one: its records are skipped, as with the reference;
 *   - lookups (vftr_otf_proclist_status) are O(1): a byte array indexed by
 *     process id when the ids are dense enough (max id < max(65536, 16 * n)),
 *     otherwise an open-addressing hash table with at most 50 % load.
 *
 * Ownership: the list owns its arrays; it copies what it needs from the
 * master control and keeps no pointer to it.  Embed the struct (or allocate
 * it) and pair vftr_otf_proclist_init with vftr_otf_proclist_release.
 *
 * Threads: lookups may run concurrently; changing a status needs exclusive
 * access.
 */
#ifndef VFTR_OTF_PROCESSLIST_H
#define VFTR_OTF_PROCESSLIST_H

#include <stddef.h>
#include <stdint.h>

#include "OTF_MasterControl.h"
#include "otf_internal.h"

/* One slot of the hash table (sparse process ids). */
struct vftr_otf_proclist_slot {
    uint32_t process;
    uint8_t used;
    uint8_t status;
};

struct vftr_otf_proclist {
    uint32_t n;            /* number of processes */
    uint32_t *processes;   /* the n process ids, ascending */

    /* Dense representation (slots == NULL): status[p] for p < dense_len,
     * 0 for processes outside the set. */
    uint8_t *status;
    uint32_t dense_len;

    /* Sparse representation (slots != NULL): 1 << hash_bits slots. */
    struct vftr_otf_proclist_slot *slots;
    uint32_t hash_bits;
};

/* The reference's name for the same object (used by the OTF_ProcessList_*
 * wrappers in processlist.c). */
typedef struct vftr_otf_proclist OTF_ProcessList;

/* Builds `list` from the processes of `mc` (its rmap), all with status 1.
 * Returns 0, or -EINVAL if an argument is NULL or mc->rmap is not sorted by
 * process id, -ENOENT if `mc` has no process, -ENOMEM; on error `list` is
 * left empty (release is still allowed) and otf_strerr says why. */
int vftr_otf_proclist_init(struct vftr_otf_proclist *list,
                           const OTF_MasterControl *mc);

/* Frees what `list` owns and leaves it empty.  NULL-safe, idempotent. */
void vftr_otf_proclist_release(struct vftr_otf_proclist *list);

/* Sets the status of `process`.  Returns 0, or -ENOENT if the process is not
 * in the set (nothing changes). */
int vftr_otf_proclist_set(struct vftr_otf_proclist *list, uint32_t process,
                          uint8_t status);

/* Sets the status of every process of the set. */
void vftr_otf_proclist_set_all(struct vftr_otf_proclist *list, uint8_t status);

/* Position of `process` in list->processes, or UINT32_MAX if it is not in
 * the set.  O(log n). */
uint32_t vftr_otf_proclist_index(const struct vftr_otf_proclist *list,
                                 uint32_t process);

/* Slow path of vftr_otf_proclist_status for the sparse representation. */
uint8_t vftr_otf_proclist_hash_status(const struct vftr_otf_proclist *list,
                                      uint32_t process);

/* Status of `process`: 0 if it is not in the set.  O(1); this is called
 * once per record by the reader, so the dense case is inline. */
static inline uint8_t vftr_otf_proclist_status(const struct vftr_otf_proclist *list,
                                               uint32_t process)
{
    if (OTF_LIKELY(list->slots == NULL))
        return process < list->dense_len ? list->status[process] : 0;
    return vftr_otf_proclist_hash_status(list, process);
}

/*
 * Exports under the reference's names.  The reference exports these from
 * its reader but declares them in no installed header; the signatures were
 * inferred by calling it.  The reference's struct is 24 bytes
 * ({uint32 n; uint32 *processes; uint8 *status}); vftr's is larger, so only
 * code that gets the object from vftr (or allocates sizeof(OTF_ProcessList))
 * may use them.
 *
 * init: 1, or 0 if mc has no process or memory is short.  finalize: frees,
 * returns 1.  getStatus: status, 0 for unknown processes.  setStatus: 1, or
 * 0 for an unknown process.  setStatusAll: 1.  getIndex: position in
 * ascending order or (uint32_t)-1.
 */
int OTF_ProcessList_init(OTF_ProcessList *list, OTF_MasterControl *mc);
int OTF_ProcessList_finalize(OTF_ProcessList *list);
uint8_t OTF_ProcessList_getStatus(OTF_ProcessList *list, uint32_t process);
int OTF_ProcessList_setStatus(OTF_ProcessList *list, uint32_t process,
                              uint8_t status);
int OTF_ProcessList_setStatusAll(OTF_ProcessList *list, uint8_t status);
uint32_t OTF_ProcessList_getIndex(OTF_ProcessList *list, uint32_t process);

#endif /* VFTR_OTF_PROCESSLIST_H */
