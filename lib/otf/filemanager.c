/*
 * filemanager.c — the file manager: an LRU list of the files that hold a
 * descriptor, and a list of all files attached to the manager.
 *
 * The LRU list is doubly linked so that touching a file (done on every read
 * and write) is O(1).  The list of all files exists only so that closing a
 * manager can detach files that are still around instead of leaving them with
 * a dangling pointer.
 */
#include <stdlib.h>
#include <unistd.h>

#include "OTF_FileManager.h"
#include "otf_internal.h"
#include "otf_file_internal.h"

/* What the reference uses when asked for a limit of 0. */
#define DEFAULT_NUMBER 10

static void lru_unlink(OTF_FileManager *m, OTF_File *f)
{
    if (f->lru_prev)
        f->lru_prev->lru_next = f->lru_next;
    else
        m->lru_head = f->lru_next;
    if (f->lru_next)
        f->lru_next->lru_prev = f->lru_prev;
    else
        m->lru_tail = f->lru_prev;
    f->lru_prev = f->lru_next = NULL;
    f->in_lru = 0;
}

static void lru_push_head(OTF_FileManager *m, OTF_File *f)
{
    f->lru_prev = NULL;
    f->lru_next = m->lru_head;
    if (m->lru_head)
        m->lru_head->lru_prev = f;
    else
        m->lru_tail = f;
    m->lru_head = f;
    f->in_lru = 1;
}

OTF_FileManager *OTF_FileManager_open(uint32_t number)
{
    OTF_FileManager *m = calloc(1, sizeof *m);
    if (!m) {
        vftr_otf_seterr("file manager: out of memory");
        return NULL;
    }
    m->number = DEFAULT_NUMBER;
    /* Helper threads only pay with a second CPU; two per CPU let every
     * stream of a typical trace (4 streams on 2 CPUs) have one. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    m->max_threads = cpus <= 1 ? 0 : (uint32_t)(2 * cpus);
    if (number == 0)
        vftr_otf_seterr("file manager: a limit of 0 open files is illegal, using %u",
                        DEFAULT_NUMBER);
    else
        m->number = number;
    return m;
}

void OTF_FileManager_close(OTF_FileManager *m)
{
    if (!m)
        return;
    /* Files still attached lose their manager: suspend the open ones (their
     * data reaches the disk) and mark all of them detached, so that a later
     * access reports an error rather than using freed memory. */
    for (OTF_File *f = m->all_head; f; f = f->all_next)
        (void)vftr_file_quiesce(f);
    while (m->lru_tail)
        OTF_FileManager_suspendFile(m, m->lru_tail);
    OTF_File *f = m->all_head;
    while (f) {
        OTF_File *next = f->all_next;
        f->manager = NULL;
        f->detached = 1;
        f->all_prev = f->all_next = NULL;
        f = next;
    }
    free(m);
}

uint32_t OTF_FileManager_getCount(OTF_FileManager *m)
{
    return m ? m->count : 0;
}

uint32_t OTF_FileManager_getNumber(OTF_FileManager *m)
{
    return m ? m->number : 0;
}

uint32_t OTF_FileManager_setNumber(OTF_FileManager *m, uint32_t number)
{
    if (!m)
        return 0;
    if (number == 0) {
        vftr_otf_seterr("file manager: a limit of 0 open files is illegal, keeping %u",
                        m->number);
        return m->number;
    }
    m->number = number;
    return m->number;
}

int OTF_FileManager_guaranteeFile(OTF_FileManager *m)
{
    if (!m) {
        vftr_otf_seterr("file manager: no manager given");
        return 0;
    }
    /* A loop, not an if: the limit may have been lowered below the count. */
    /* The descriptor of a suspended file is closed even when writing its
     * pending output failed; that output stays buffered for a later try. */
    while (m->count >= m->number && m->lru_tail)
        (void)OTF_FileManager_suspendFile(m, m->lru_tail);
    return m->count < m->number;
}

int OTF_FileManager_registerFile(OTF_FileManager *m, OTF_File *file)
{
    if (!m || !file || file->in_lru || (file->manager && file->manager != m)) {
        vftr_otf_seterr("file manager: cannot register this file");
        return 0;
    }
    lru_push_head(m, file);
    m->count++;
    return 1;
}

int OTF_FileManager_touchFile(OTF_FileManager *m, OTF_File *file)
{
    if (!m || !file || !file->in_lru || file->manager != m)
        return 0;
    if (m->lru_head != file) {
        lru_unlink(m, file);
        lru_push_head(m, file);
    }
    return 1;
}

int OTF_FileManager_suspendFile(OTF_FileManager *m, OTF_File *file)
{
    if (!m || !file || !file->in_lru || file->manager != m)
        return 0;
    lru_unlink(m, file);
    m->count--;
    return vftr_file_close_fd(file) == 0;
}

int OTF_FileManager_setIofsl(OTF_FileManager *m, uint32_t server_num, char **server_list,
                             OTF_IofslMode mode, uint32_t flags,
                             uint32_t index_buffer_length, uint32_t streamid_bits)
{
    (void)m, (void)server_num, (void)server_list, (void)mode, (void)flags;
    (void)index_buffer_length, (void)streamid_bits;
    vftr_otf_seterr("file manager: iofsl is not supported by vftr");
    return 0;
}

int OTF_FileManager_getIofsl(OTF_FileManager *m, uint32_t *server_num, char ***server_list,
                             OTF_IofslMode *mode, uint32_t *flags,
                             uint32_t *index_buffer_length, uint32_t *streamid_bits)
{
    (void)m;
    if (server_num)
        *server_num = 0;
    if (server_list)
        *server_list = NULL;
    if (mode)
        *mode = OTF_IOFSL_DISABLED;
    if (flags)
        *flags = 0;
    if (index_buffer_length)
        *index_buffer_length = 0;
    if (streamid_bits)
        *streamid_bits = 0;
    return 0;
}

int OTF_FileManager_isIofsl(OTF_FileManager *m)
{
    (void)m;
    return 0;
}

void vftr_filemanager_attach(OTF_FileManager *m, OTF_File *f)
{
    f->manager = m;
    f->all_prev = NULL;
    f->all_next = m->all_head;
    if (m->all_head)
        m->all_head->all_prev = f;
    m->all_head = f;
}

void vftr_filemanager_detach(OTF_FileManager *m, OTF_File *f)
{
    if (f->in_lru) {
        lru_unlink(m, f);
        m->count--;
    }
    if (f->all_prev)
        f->all_prev->all_next = f->all_next;
    else if (m->all_head == f)
        m->all_head = f->all_next;
    if (f->all_next)
        f->all_next->all_prev = f->all_prev;
    f->all_prev = f->all_next = NULL;
    f->manager = NULL;
}

uint32_t vftr_otf_filemanager_set_threads(OTF_FileManager *m, uint32_t n)
{
    if (!m)
        return 0;
    uint32_t old = m->max_threads;
    m->max_threads = n;
    return old;
}

int vftr_filemanager_thread_acquire(OTF_FileManager *m)
{
    if (!m || m->threads >= m->max_threads)
        return 0;
    m->threads++;
    return 1;
}

void vftr_filemanager_thread_release(OTF_FileManager *m)
{
    if (m && m->threads > 0)
        m->threads--;
}

uint64_t vftr_otf_manager_bytes_read(OTF_FileManager *m)
{
    return m ? atomic_load_explicit(&m->bytes_read, memory_order_relaxed) : 0;
}

void vftr_otf_manager_set_progress(OTF_FileManager *m, int (*fn)(void *arg, uint64_t bytes),
                                   void *arg)
{
    if (!m)
        return;
    m->progress = fn;
    m->progress_arg = arg;
    m->progress_pending = 0;
    m->stopped = 0;
}

int vftr_otf_manager_stopped(OTF_FileManager *m)
{
    return m ? m->stopped : 0;
}

int vftr_file_progress(OTF_File *f, uint64_t n)
{
    OTF_FileManager *m = f->manager;

    if (!m || !m->progress)
        return 0;
    if (!m->stopped) {
        m->progress_pending += n;
        if (m->progress_pending >= VFTR_OTF_PROGRESS_STEP) {
            uint64_t done = m->progress_pending;

            m->progress_pending = 0;
            m->stopped = m->progress(m->progress_arg, done) != 0;
        }
    }
    if (m->stopped) {
        vftr_otf_seterr("%s: reading was stopped", vftr_file_name(f));
        return -1;
    }
    return 0;
}
