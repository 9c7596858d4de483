/*
 * mpi_rt.h — the run-time side of libvftrcapture-mpi.so: what the generated
 * wrappers ($(BUILD)/gen/capture/mpi/wrappers.c, made by gen_wrappers.py
 * from mpi_functions.def) call around each PMPI call.  Internal to the MPI
 * library; nothing here is exported except the MPI_* / mpi_*_ wrappers.
 *
 * A wrapper: for a blocking collective with mpi.show_sync_time,
 * vftr_mpi_sync() (a barrier recorded as <collective>_sync); then
 * vftr_mpi_begin() (ENTER of the MPI function, start time), the table's pre
 * actions, PMPI_X, the post actions (the records below), vftr_mpi_end()
 * (EXIT; statistics per function for live queries and per call path for
 * the MPI tables of the logs).
 *
 * What is recorded (lib/vfd/vftr_vfd_ext.h has the formats):
 *  - every message once per side when it completes: blocking calls at
 *    their return, nonblocking and persistent ones at the wait or test
 *    that completed them, with the data kept for the request at its start;
 *    the peer as a world rank, MPI_ANY_SOURCE / MPI_ANY_TAG resolved from
 *    the status, received bytes from the status (MPI_Get_count in bytes);
 *    messages to or from MPI_PROC_NULL and cancelled requests are not;
 *  - every collective with its communicator, root (world rank, -1 when
 *    rootless) and the bytes this rank sent and received as its
 *    arguments describe them: a buffer that is significant at this rank
 *    counts (bcast: the root sends count, the others receive count; reduce:
 *    everybody sends count, the root receives count; allreduce, scan,
 *    exscan: count both ways; gather(v): sendcount sent, at the root the sum
 *    over ranks received; scatter(v) the mirror image; allgather(v):
 *    sendcount sent, the sum received; alltoall(v,w): the sums both ways;
 *    reduce_scatter(_block): the whole vector sent, this rank's block
 *    received); a send buffer given as MPI_IN_PLACE counts 0;
 *  - communicators: an MPI_COMMS entry when they are created (world and
 *    self at MPI_Init), with an id the members agree on (mpi_rt.c).
 *
 * Threads (MPI_THREAD_MULTIPLE): a call's state is on the wrapper's stack;
 * the request and communicator tables are behind mutexes; statistics are
 * atomic counters.  Nothing is recorded while capture is paused or off,
 * but the tables are kept up to date in any case.
 */
#ifndef VFTR_CAPTURE_MPI_RT_H
#define VFTR_CAPTURE_MPI_RT_H

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
/* Open MPI's extensions (MPIX_*): the persistent collectives of the
 * table are wrapped where the library has them */
#include <mpi-ext.h>
#endif
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define VFTR_MPI_PCOLLREQ 1
#else
#define VFTR_MPI_PCOLLREQ 0
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "ext.h"
#include "vfd/vftr_vfd_ext.h"
#include "wrappers_fn.h"   /* generated: VFTR_MPI_FN_* */

#define VFTR_MPI_API __attribute__((visibility("default"), no_instrument_function))
#define VFTR_MPI_NI __attribute__((no_instrument_function))
/* Requests and statuses a wrapper keeps on its stack before it allocates. */
#define VFTR_MPI_STACK 16

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed as int arrays");
/* Fortran MPI_STATUS_SIZE: Open MPI sizes the Fortran status to hold the C
 * one (6 INTEGERs on LP64), which MPI_Status_c2f fills. */
#define VFTR_MPI_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
/* Fortran MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE: the addresses of Open
 * MPI's common blocks, compared as its own Fortran bindings do (the C
 * variables MPI_F_STATUS(ES)_IGNORE may point at libmpi's copy while the
 * program passes its own). */
extern MPI_Fint mpi_fortran_status_ignore_[], mpi_fortran_statuses_ignore_[];
#define VFTR_MPI_F_STATUS_IGNORE (mpi_fortran_status_ignore_)
#define VFTR_MPI_F_STATUSES_IGNORE (mpi_fortran_statuses_ignore_)

struct comm_info;                       /* mpi_rt.c */

/* Names of the wrapped functions, indexed by VFTR_MPI_FN_* (generated). */
extern const char *const vftr_mpi_fn_names[VFTR_MPI_FN_COUNT];

/* A request a wait or test call was given, and its table entry, taken out
 * of the table for the call (see vftr_mpi_save). */
struct vftr_mpi_saved {
    MPI_Request req;
    void *info;                 /* struct req_info of mpi_rt.c, or NULL */
};

/* State of one wrapped call, on the wrapper's stack. */
struct vftr_mpi_call {
    int fn;                     /* VFTR_MPI_FN_* */
    int on;                     /* records are written (capture traces now) */
    int counting;               /* statistics are kept (capture records, not paused) */
    int tables;                 /* capture records: requests are tracked */
    uint64_t t0;                /* ticks at the call */
    int persistent;             /* a persistent collective's init (MPIX_*_init) */
    int nsave;                  /* requests saved by vftr_mpi_save() */
    struct vftr_mpi_saved *saved;   /* save_buf or malloc'ed */
    struct vftr_mpi_saved save_buf[VFTR_MPI_STACK];
    uint64_t msgs;              /* point-to-point messages the call completed */
    uint64_t sends, recvs;      /* messages, a collective one each way it moved data */
    uint64_t sent_bytes, recv_bytes;
    /* the call's first record, written with its exit (vftr_ext_exit_fn_rec);
     * later ones go out at once */
    uint32_t pend_kind;         /* 0: none */
    union {
        struct vftr_vfd_mpi_msg msg;
        struct vftr_vfd_mpi_coll coll;
        struct vftr_vfd_io io;
    } pend;
    /* MPI_File_close: the file and handle of the MPI_File it closes, taken
     * before the call (which sets the handle to MPI_FILE_NULL) */
    uint32_t io_file;
    uint64_t io_handle;
    MPI_File io_fh;
    /* MPI_Mrecv / MPI_Imrecv: the communicator of the matched message,
     * taken before the call (which sets the handle to MPI_MESSAGE_NULL) */
    const struct comm_info *msg_ci;
    /* a request-form RMA call: its transfer's number (vftr_mpi_rma gives
     * it, vftr_mpi_req_rma keeps it with the request), 0: none */
    uint64_t rma_req;
};

/* Whether capture records at all: -1 until the first wrapped call asks
 * (vftr_mpi_active_init), then 0 or 1 for good. */
extern _Atomic int vftr_mpi_active;
int vftr_mpi_active_init(void);
/* MPI_Pcontrol(0) .. MPI_Pcontrol(1): no statistics, no table updates. */
extern atomic_int vftr_mpi_paused;

static inline VFTR_MPI_NI int vftr_mpi_is_active(void)
{
    int on = atomic_load_explicit(&vftr_mpi_active, memory_order_relaxed);

    return on >= 0 ? on : vftr_mpi_active_init();
}

/* Statistics of a finished call: per function (live queries) and, when
 * path is not 0, its messages per call path (the MPI tables of the logs). */
void vftr_mpi_count(const struct vftr_mpi_call *c, uint64_t t1, uint32_t path);

/* The per-path statistics as struct vftr_mpi_row (logfile.h): stores up to
 * max rows and returns how many there are (ext.h's vftr_ext_mpi_paths_fn).
 * To be called when no thread makes MPI calls (MPI_Finalize, exit). */
struct vftr_mpi_row;
long vftr_mpi_path_stats(struct vftr_mpi_row *rows, size_t max);

/* mpi.show_sync_time: before blocking collective fn (named name, which
 * lives as long as the process), a PMPI_Barrier on comm recorded as a call
 * of a function "<name>_sync"; nothing when the key is off, capture does
 * not record or MPI_Pcontrol(0) paused it. */
void vftr_mpi_sync(int fn, const char *sync_name, MPI_Comm comm);

/* capture's handle of MPI function fn (vftr_ext_function), made on its
 * first call; NULL while capture is off */
extern void *_Atomic vftr_mpi_fn_handles[VFTR_MPI_FN_COUNT];
void *vftr_mpi_fn_handle_init(int fn);

static inline VFTR_MPI_NI void *vftr_mpi_fn_handle(int fn)
{
    void *h = atomic_load_explicit(&vftr_mpi_fn_handles[fn], memory_order_acquire);

    return h ? h : vftr_mpi_fn_handle_init(fn);
}

static inline VFTR_MPI_NI void vftr_mpi_begin(struct vftr_mpi_call *c, int fn)
{
    c->fn = fn;
    c->nsave = 0;
    c->saved = c->save_buf;
    c->msgs = c->sends = c->recvs = c->sent_bytes = c->recv_bytes = 0;
    c->pend_kind = 0;
    c->persistent = 0;
    c->tables = vftr_mpi_is_active();
    c->counting = c->tables && !atomic_load_explicit(&vftr_mpi_paused, memory_order_relaxed);
    c->on = c->counting && vftr_ext_tracing();
    c->t0 = c->counting ? vftr_ext_enter_fn(vftr_mpi_fn_handle(fn)) : 0;
}

void vftr_mpi_restore(struct vftr_mpi_call *c);

static inline VFTR_MPI_NI void vftr_mpi_end(struct vftr_mpi_call *c)
{
    if (c->nsave)
        vftr_mpi_restore(c);
    if (c->counting) {
        void *h = vftr_mpi_fn_handle(c->fn);
        /* the call path of a call that moved data, asked before the exit
         * closes its frame (calls and time per path are in the profile) */
        uint32_t path = c->sends || c->recvs ? vftr_ext_current_path(h) : 0;
        uint64_t t1 = vftr_ext_exit_fn_rec(h, c->pend_kind,
                                           c->pend_kind ? (const void *)&c->pend : NULL);

        vftr_mpi_count(c, t1, path);
    }
    if (c->saved != c->save_buf)
        free(c->saved);
}

/* -- init and finalize */
void vftr_mpi_after_init(struct vftr_mpi_call *c);
void vftr_mpi_before_finalize(struct vftr_mpi_call *c);

/* -- blocking messages (after the call returned) */
void vftr_mpi_sent(struct vftr_mpi_call *c, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, uint32_t flags);
void vftr_mpi_received(struct vftr_mpi_call *c, const MPI_Status *status, MPI_Comm comm,
                       uint32_t flags);

/* -- matched probes: MPI_Mprobe / MPI_Improbe hand out a message handle
 * (kept here with its communicator until the receive takes it: the
 * handle alone does not tell the communicator); MPI_Mrecv is a receive
 * like MPI_Recv, MPI_Imrecv like MPI_Irecv, with the message's source,
 * tag and bytes from the receive's status.  A message of MPI_PROC_NULL
 * (MPI_MESSAGE_NO_PROC) is no message. */
void vftr_mpi_msg_probed(struct vftr_mpi_call *c, MPI_Comm comm, int flag,
                         const MPI_Message *msg);
void vftr_mpi_msg_take(struct vftr_mpi_call *c, MPI_Message msg);      /* before the receive */
void vftr_mpi_mreceived(struct vftr_mpi_call *c, const MPI_Status *status);
void vftr_mpi_req_mrecv(struct vftr_mpi_call *c, const MPI_Request *req);

/* -- one-sided communication (RMA): each data-moving call is recorded as
 * the MPI function it is and, with the call, one MPI_RMA record
 * (lib/vfd/vftr_vfd_ext.h: op, target as a world rank, window id, the
 * window's communicator, bytes) of the bytes this rank's origin buffers
 * move: sent, what goes to the target (put, accumulate: origin count x
 * origin type size; get_accumulate, fetch_and_op: the same, 0 with
 * MPI_NO_OP; compare_and_swap: one element of the datatype), received,
 * what comes back into origin memory (get: origin count x type size;
 * get_accumulate: result count x type size; fetch_and_op,
 * compare_and_swap: one element).  The bytes count as one message each way
 * that moved data, as a collective's do, in the MPI statistics of the
 * call's path; the request forms (MPI_Rput...) count at the call, the data
 * then being in flight (flags VFTR_VFD_MSG_NONBLOCKING).  Nothing with
 * target MPI_PROC_NULL.  Windows get an id agreed by their members at
 * creation (vftr_mpi_win_new: a broadcast over the window's communicator,
 * which the creation call is collective over); a transfer on a window
 * vftr did not see made is counted but has no record. */
void vftr_mpi_win_new(struct vftr_mpi_call *c, MPI_Comm comm, const MPI_Win *win);
void vftr_mpi_win_forget(struct vftr_mpi_call *c, MPI_Win win);   /* before MPI_Win_free */
/* The completion of the transfers of the calling process on win (of any
 * of its threads: MPI completes the process's, and the readers pair them
 * per rank), recorded on the calling thread: after a synchronisation that
 * completes them at the origin (what: enum
 * vftr_vfd_rma_sync_kind), for those to target (a rank of the window's
 * group) or all (target -1), one MPI_RMA_SYNC record at the call's return;
 * MPI_Win_free gives one too (vftr_mpi_win_forget), for epochs the program
 * left open.  A request form's transfer (vftr_mpi_req_rma registers its
 * request) completes at the wait or test that completes the request.
 * Target-side synchronisation (MPI_Win_post / wait / test) and
 * MPI_Win_sync complete no transfer of this rank as origin. */
void vftr_mpi_rma_sync(struct vftr_mpi_call *c, uint32_t what, MPI_Win win, int target);
void vftr_mpi_req_rma(struct vftr_mpi_call *c, MPI_Win win, int target, const MPI_Request *req);
void vftr_mpi_rma(struct vftr_mpi_call *c, uint32_t op, uint32_t flags, MPI_Win win, int target,
                  int sent_count, MPI_Datatype sent_type, int recv_count, MPI_Datatype recv_type);

/* -- requests: registered at the call that makes them, started (persistent
 * ones), completed by the wait and test calls, forgotten at Request_free */
void vftr_mpi_req_send(struct vftr_mpi_call *c, int count, MPI_Datatype type, int dest, int tag,
                       MPI_Comm comm, uint32_t flags, const MPI_Request *req);
void vftr_mpi_req_recv(struct vftr_mpi_call *c, MPI_Comm comm, uint32_t flags,
                       const MPI_Request *req);
void vftr_mpi_req_start(struct vftr_mpi_call *c, int n, const MPI_Request *reqs);
void vftr_mpi_req_free(struct vftr_mpi_call *c, const MPI_Request *req);
/* Memory to free when the request completes (arrays a nonblocking call
 * needs until then: the Fortran wrappers' converted datatypes). */
void vftr_mpi_req_attach(MPI_Request req, void *mem);
/* Saves the n requests before a wait or test call changes them, and
 * takes their entries out of the request table: a request that completes
 * in PMPI is freed there, and its handle may come back at once from
 * another thread's MPI_Isend, whose entry must not be confused with this
 * one.  Entries of requests that did not complete go back at
 * vftr_mpi_end() (vftr_mpi_restore). */
void vftr_mpi_save(struct vftr_mpi_call *c, int n, const MPI_Request *reqs);
/* After Wait / Waitall / Test / Testall: when flag, every saved request
 * completed, statuses[i] is request i's (single-status calls: n = 1). */
void vftr_mpi_done_all(struct vftr_mpi_call *c, const MPI_Status *statuses, int flag);
/* After Waitany / Waitsome / Testany / Testsome: saved request indices[k]
 * completed with statuses[k], for k < outcount. */
void vftr_mpi_done_some(struct vftr_mpi_call *c, int outcount, const int *indices,
                        const MPI_Status *statuses);
/* An array of n statuses for a caller that passed MPI_STATUSES_IGNORE:
 * stack (n <= VFTR_MPI_STACK) or *heap (caller frees), or
 * MPI_STATUSES_IGNORE itself when memory is short. */
MPI_Status *vftr_mpi_statuses(int n, MPI_Status *stack, MPI_Status **heap);

/* -- collectives (req NULL: blocking, recorded now; else at completion;
 * with c->persistent a persistent request, recorded at the completion of
 * each MPI_Start(all) of it with VFTR_VFD_MSG_PERSISTENT) */
void vftr_mpi_coll_barrier(struct vftr_mpi_call *c, MPI_Comm comm, const MPI_Request *req);
void vftr_mpi_coll_bcast(struct vftr_mpi_call *c, int count, MPI_Datatype type, int root,
                         MPI_Comm comm, const MPI_Request *req);
void vftr_mpi_coll_reduce(struct vftr_mpi_call *c, uint32_t op, const void *sendbuf, int count,
                          MPI_Datatype type, int root, MPI_Comm comm, const MPI_Request *req);
void vftr_mpi_coll_gather(struct vftr_mpi_call *c, uint32_t op, const void *sendbuf,
                          int sendcount, MPI_Datatype sendtype, int recvcount,
                          const int *recvcounts, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          const MPI_Request *req);
void vftr_mpi_coll_scatter(struct vftr_mpi_call *c, uint32_t op, int sendcount,
                           const int *sendcounts, MPI_Datatype sendtype, const void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                           const MPI_Request *req);
void vftr_mpi_coll_alltoall(struct vftr_mpi_call *c, uint32_t op, const void *sendbuf,
                            int sendcount, const int *sendcounts, const MPI_Datatype *sendtype,
                            int recvcount, const int *recvcounts, const MPI_Datatype *recvtype,
                            MPI_Comm comm, const MPI_Request *req);
void vftr_mpi_coll_alltoallw(struct vftr_mpi_call *c, const void *sendbuf, const int *sendcounts,
                             const MPI_Datatype *sendtypes, const int *recvcounts,
                             const MPI_Datatype *recvtypes, MPI_Comm comm,
                             const MPI_Request *req);
void vftr_mpi_coll_reduce_scatter(struct vftr_mpi_call *c, uint32_t op, int recvcount,
                                  const int *recvcounts, MPI_Datatype type, MPI_Comm comm,
                                  const MPI_Request *req);

/* -- communicators
 * Each is named as the program made it: "MPI_COMM_WORLD", "MPI_COMM_SELF r"
 * (r its world rank), "<how> of <parent's name>" ("dup of MPI_COMM_WORLD",
 * "split of solver (color 1)": color >= 0 for a split), and by the name the
 * program gives it with MPI_Comm_set_name, which also names what is made
 * from it later.  A new name is written as another MPI_COMMS entry of the
 * same id (readers take the last entry of the file that defined it). */
void vftr_mpi_comm_new(struct vftr_mpi_call *c, MPI_Comm parent, const MPI_Comm *newcomm,
                       const char *how, int color);
void vftr_mpi_comm_forget(struct vftr_mpi_call *c, MPI_Comm comm);
void vftr_mpi_comm_set_name(struct vftr_mpi_call *c, MPI_Comm comm, const char *name);

/* -- MPI-IO: every MPI_File the program opened is followed (its file id
 * and a handle, vftr_ext_io_file / vftr_ext_io_handle) until it is closed;
 * each operation on it is one IO record (lib/vfd/vftr_vfd_ext.h), with
 * its bytes from the status (MPI_Get_count in MPI_BYTE), an explicit
 * offset in bytes (MPI_File_get_byte_offset: the view applied), a seek's
 * resulting position in bytes.  Blocking operations are recorded with the
 * call; nonblocking ones (MPI_File_i*) registered here and recorded by
 * the wait or test that completes them (VFTR_VFD_IO_NONBLOCKING, begun at
 * the MPI_File_i* call); split collectives (_begin/_end) at their _end,
 * begun at the _begin.  Collective operations carry
 * VFTR_VFD_IO_COLLECTIVE, those on the shared file pointer
 * VFTR_VFD_IO_SHARED, explicit offsets VFTR_VFD_IO_AT.  These are called
 * whatever the call returned (rc): a call that failed is recorded with
 * VFTR_VFD_IO_FAILED and no bytes (a failed open with handle 0, a failed
 * nonblocking call at once).  Files are recorded only under io.active. */
void vftr_mpi_io_open(struct vftr_mpi_call *c, const char *name, int amode, const MPI_File *fh,
                      int rc);
void vftr_mpi_io_take(struct vftr_mpi_call *c, MPI_File fh);    /* before MPI_File_close */
void vftr_mpi_io_close(struct vftr_mpi_call *c, int rc);
void vftr_mpi_io_delete(struct vftr_mpi_call *c, const char *name, int rc);
/* seek (the position it ended at), sync, set_size, set_view, ... */
void vftr_mpi_io_op(struct vftr_mpi_call *c, MPI_File fh, uint32_t op, uint32_t flags, int rc);
/* a blocking read or write (offset: the explicit one with VFTR_VFD_IO_AT) */
void vftr_mpi_io_data(struct vftr_mpi_call *c, MPI_File fh, uint32_t op, uint32_t flags,
                      MPI_Offset offset, const MPI_Status *st, int rc);
/* a nonblocking one, completed by a wait or test */
void vftr_mpi_io_req(struct vftr_mpi_call *c, MPI_File fh, uint32_t op, uint32_t flags,
                     MPI_Offset offset, const MPI_Request *req, int rc);
/* the _begin of a split collective; its _end is a vftr_mpi_io_data */
void vftr_mpi_io_split_begin(struct vftr_mpi_call *c, MPI_File fh);

/* -- Fortran helpers */
void *vftr_mpi_fbuf(void *buf);            /* MPI_IN_PLACE / MPI_BOTTOM of Fortran -> C */
int vftr_mpi_comm_size_any(MPI_Comm comm); /* size (remote size of an intercommunicator) */
void *vftr_mpi_falloc(int n, size_t size); /* malloc of n >= 0 elements (never 0 bytes) */
/* A Fortran string of len characters as a C string (trailing blanks
 * dropped; malloc'ed, the caller frees), or NULL when memory is short. */
char *vftr_mpi_fstr(const char *s, size_t len);

#endif /* VFTR_CAPTURE_MPI_RT_H */
