/*
 * vftr_vfd_ext.h — the MPI, OpenMP and file I/O records of the .vfd format:
 * extended events (kinds 16..95) and the definition chunks MPI_COMMS,
 * OMP_REGIONS, CLOCK_OFFSETS, RUN_ID and IO_FILES.  share/doc/vfd-format.md
 * gives the bytes.
 *
 * Capture encodes a record into a small buffer (at most VFTR_VFD_EXT_MAX
 * bytes for an event payload) and hands it to its event buffer or, for a
 * definition chunk, to vftr_vfd_writer_put(); readers get extended events as
 * VFTR_VFD_REC_EVENT records with kind >= 16 and `data`, and these chunks as
 * VFTR_VFD_REC_UNKNOWN records with their payload, and decode both here.
 *
 * Every record is a sequence of unsigned LEB128 varints (signed fields
 * zigzag-coded), described once in a field table in ext.c; a decoder accepts
 * a payload with more fields than it knows (later versions may append) and
 * refuses one with fewer.  Time fields of events are stored relative to the
 * event's own time stamp, so they stay small.
 *
 * Error convention: encoders return the bytes written, 0 when the input is
 * invalid or does not fit; decoders return 0 or -EBADMSG.  Nothing here
 * allocates, prints or keeps state: thread-safe and async-signal-safe.
 */
#ifndef VFTR_VFD_VFTR_VFD_EXT_H
#define VFTR_VFD_VFTR_VFD_EXT_H

#include <stddef.h>
#include <stdint.h>

#include "vftr_vfd.h"

/* Largest payload of an extended event of this header (bytes). */
#define VFTR_VFD_EXT_MAX 96

/* Extended event kinds (in VFTR_VFD_EXT_MPI_* / VFTR_VFD_EXT_OMP_* ranges). */
enum {
    VFTR_VFD_MPI_SEND = 16,     /* struct vftr_vfd_mpi_msg: a message this rank sent */
    VFTR_VFD_MPI_RECV = 17,     /* struct vftr_vfd_mpi_msg: a message this rank received */
    VFTR_VFD_MPI_COLL = 18,     /* struct vftr_vfd_mpi_coll: one collective operation */
    VFTR_VFD_MPI_RMA = 19,      /* struct vftr_vfd_mpi_rma: one one-sided data transfer */
    VFTR_VFD_MPI_RMA_SYNC = 20, /* struct vftr_vfd_mpi_rma_sync: transfers complete */
    VFTR_VFD_OMP_BEGIN = 48,    /* struct vftr_vfd_omp: an OpenMP region begins on this thread */
    VFTR_VFD_OMP_END = 49,      /* struct vftr_vfd_omp: ... and ends */
    VFTR_VFD_IO = 80,           /* struct vftr_vfd_io: one file operation, at its completion */
};

/* Function flag (vftr_vfd_function.flags) of MPI functions: capture records
 * every wrapped MPI call as ENTER/EXIT of a function with this flag (and
 * VFTR_VFD_FUNC_REGION), named by the MPI function ("MPI_Send"). */
#define VFTR_VFD_FUNC_MPI (1u << 3)
/* A frame of statistical call-stack samples (capture/sample.c): the
 * function is one of a sampled thread's call tree, whose ENTER/EXIT pairs
 * are laid out by the sampler, one pair per sample and frame, each as long
 * as the CPU time the sample stands for (share/doc/sampling.md).  Its
 * calls are samples, its times samples x interval: a statistical profile,
 * never exact counts. */
#define VFTR_VFD_FUNC_SAMPLED (1u << 4)

/* Communicator ids (vftr_vfd_mpi_msg.comm, ...): the same communicator has
 * the same id on every member rank, different communicators of a run have
 * different ids.  MPI_COMM_WORLD is 0; MPI_COMM_SELF of world rank r is
 * VFTR_VFD_COMM_SELF(r).  Other ids are chosen by capture at creation. */
#define VFTR_VFD_COMM_WORLD 0u
#define VFTR_VFD_COMM_SELF(r) (((uint64_t)1 << 62) | (uint64_t)(uint32_t)(r))

/* ---------------------------------------------------------------- MPI */

enum {                                  /* vftr_vfd_mpi_msg.flags */
    VFTR_VFD_MSG_NONBLOCKING = 1u << 0, /* Isend/Irecv (completed by a wait or test) */
    VFTR_VFD_MSG_PERSISTENT = 1u << 1,  /* a persistent request (Send_init ... Start) */
    VFTR_VFD_MSG_SYNC = 1u << 2,        /* Ssend / Issend */
    VFTR_VFD_MSG_BUFFERED = 1u << 3,    /* Bsend / Ibsend */
    VFTR_VFD_MSG_READY = 1u << 4,       /* Rsend / Irsend */
    VFTR_VFD_MSG_SENDRECV = 1u << 5,    /* half of a Sendrecv(_replace) */
};

/* A point-to-point message, recorded once by each side when its operation
 * completes: the event's time stamp is the completion, `start` the call that
 * began it (MPI_Send, MPI_Isend, MPI_Start...). */
struct vftr_vfd_mpi_msg {
    int32_t peer;               /* world rank of the other side */
    int32_t tag;
    uint64_t bytes;             /* payload bytes (count x type size; received: from the status) */
    uint64_t comm;              /* communicator id */
    uint64_t start;             /* ticks; <= the event time (encoded as the difference) */
    uint32_t flags;             /* VFTR_VFD_MSG_* */
};

/* Collective operations (vftr_vfd_mpi_coll.op); names and OTF classes in
 * vftr_vfd_coll_name() / vftr_vfd_coll_class(). */
enum vftr_vfd_coll_op {
    VFTR_VFD_COLL_BARRIER = 1,
    VFTR_VFD_COLL_BCAST,
    VFTR_VFD_COLL_REDUCE,
    VFTR_VFD_COLL_ALLREDUCE,
    VFTR_VFD_COLL_GATHER,
    VFTR_VFD_COLL_GATHERV,
    VFTR_VFD_COLL_SCATTER,
    VFTR_VFD_COLL_SCATTERV,
    VFTR_VFD_COLL_ALLGATHER,
    VFTR_VFD_COLL_ALLGATHERV,
    VFTR_VFD_COLL_ALLTOALL,
    VFTR_VFD_COLL_ALLTOALLV,
    VFTR_VFD_COLL_ALLTOALLW,
    VFTR_VFD_COLL_REDUCE_SCATTER,
    VFTR_VFD_COLL_REDUCE_SCATTER_BLOCK,
    VFTR_VFD_COLL_SCAN,
    VFTR_VFD_COLL_EXSCAN,
    VFTR_VFD_COLL_COUNT         /* number of ops + 1 */
};

/* One collective as this rank took part in it: event time = completion
 * (the blocking call's return, or the wait/test that completed the
 * nonblocking one), start = the call. */
struct vftr_vfd_mpi_coll {
    uint32_t op;                /* enum vftr_vfd_coll_op */
    uint64_t comm;              /* communicator id */
    int32_t root;               /* world rank of the root, -1 for rootless operations */
    uint64_t sent, received;    /* bytes this rank sent and received */
    uint64_t start;             /* ticks */
    uint32_t flags;             /* VFTR_VFD_MSG_NONBLOCKING, _PERSISTENT or 0 */
};

/* One-sided operations (vftr_vfd_mpi_rma.op); names in vftr_vfd_rma_name(). */
enum vftr_vfd_rma_op {
    VFTR_VFD_RMA_PUT = 1,
    VFTR_VFD_RMA_GET,
    VFTR_VFD_RMA_ACCUMULATE,
    VFTR_VFD_RMA_GET_ACCUMULATE,
    VFTR_VFD_RMA_FETCH_AND_OP,
    VFTR_VFD_RMA_COMPARE_AND_SWAP,
    VFTR_VFD_RMA_COUNT          /* number of ops + 1 */
};

/* One one-sided data transfer this rank started as origin (MPI_Put,
 * MPI_Rget, ...), recorded when the call returns (event time; the transfer
 * may complete later, at the window's synchronisation or, for the request
 * forms, at the wait or test).  Bytes are those of the origin buffers:
 * sent to the target, received back into origin memory.  With
 * VFTR_VFD_RMA_ENDS_AT_SYNC in flags, the rank's later MPI_RMA_SYNC
 * records (of any of its threads) say when it completed (without it, a file of an older capture:
 * nothing says, readers take the record's time). */
struct vftr_vfd_mpi_rma {
    uint32_t op;                /* enum vftr_vfd_rma_op */
    int32_t target;             /* world rank of the target */
    uint64_t win;               /* window id: equal on the window's members */
    uint64_t comm;              /* communicator id of the window's group */
    uint64_t sent, received;    /* bytes */
    uint64_t start;             /* ticks: the call */
    uint32_t flags;             /* VFTR_VFD_MSG_NONBLOCKING for the request forms,
                                   VFTR_VFD_RMA_ENDS_AT_SYNC */
    uint64_t request;           /* a request form's number, unique in the rank (the
                                   MPI_RMA_SYNC of its wait names it); 0: none, or
                                   a file of an earlier capture (stored only when
                                   not 0: an optional last field) */
};

/* vftr_vfd_mpi_rma.flags: the transfer's completion is recorded apart */
#define VFTR_VFD_RMA_ENDS_AT_SYNC (1u << 8)

/* The synchronisations that complete a rank's one-sided transfers as
 * origin (vftr_vfd_mpi_rma_sync.what); names in vftr_vfd_rma_sync_name(). */
enum vftr_vfd_rma_sync_kind {
    VFTR_VFD_RMA_SYNC_FENCE = 1,        /* MPI_Win_fence: all of the window's */
    VFTR_VFD_RMA_SYNC_COMPLETE,         /* MPI_Win_complete: all (the access epoch's) */
    VFTR_VFD_RMA_SYNC_UNLOCK,           /* MPI_Win_unlock: the target's */
    VFTR_VFD_RMA_SYNC_UNLOCK_ALL,       /* MPI_Win_unlock_all: all */
    VFTR_VFD_RMA_SYNC_FLUSH,            /* MPI_Win_flush: the target's */
    VFTR_VFD_RMA_SYNC_FLUSH_ALL,        /* MPI_Win_flush_all: all */
    VFTR_VFD_RMA_SYNC_FLUSH_LOCAL,      /* MPI_Win_flush_local: the target's */
    VFTR_VFD_RMA_SYNC_FLUSH_LOCAL_ALL,  /* MPI_Win_flush_local_all: all */
    VFTR_VFD_RMA_SYNC_REQUEST,          /* the wait or test that completed the request
                                           of one request-form transfer to the target */
    VFTR_VFD_RMA_SYNC_FREE,             /* MPI_Win_free: all still open (an epoch the
                                           program did not close) */
    VFTR_VFD_RMA_SYNC_COUNT             /* number of kinds + 1 */
};

/* The completion, by a call of this thread, of the one-sided transfers
 * the rank began on window win (those flagged VFTR_VFD_RMA_ENDS_AT_SYNC),
 * whatever thread began them (MPI completes the process's): all of them,
 * or those to target when target >= 0, or with what REQUEST the
 * request-form one numbered request (when 0: the oldest request-form one
 * to target not yet completed).  Event time: the return of
 * the synchronising call (the wait or test for a request). */
struct vftr_vfd_mpi_rma_sync {
    uint32_t what;              /* enum vftr_vfd_rma_sync_kind */
    int32_t target;             /* world rank of the target, -1: every target */
    uint64_t win;               /* window id (vftr_vfd_mpi_rma.win) */
    uint64_t start;             /* ticks: the synchronising call */
    uint64_t request;           /* what REQUEST: the request form's number
                                   (vftr_vfd_mpi_rma.request) that the wait or test
                                   completed; 0: not known (then the oldest) */
};

/* "MPI_Put" (the blocking name also for the request form), or NULL. */
const char *vftr_vfd_rma_name(uint32_t op);
/* "MPI_Win_fence", ... ("request" for REQUEST), or NULL. */
const char *vftr_vfd_rma_sync_name(uint32_t what);

/* "MPI_Allreduce" (the blocking name also for the nonblocking form), or
 * NULL for an unknown op. */
const char *vftr_vfd_coll_name(uint32_t op);
/* OTF collective class: 1 barrier, 2 one-to-all, 3 all-to-one, 4 all-to-all
 * (OTF_COLLECTIVE_TYPE_*); 0 for an unknown op. */
uint32_t vftr_vfd_coll_class(uint32_t op);
/* The OTF class of the collective named name ("MPI_Allreduce"), 0 when the
 * table has no such name. */
uint32_t vftr_vfd_coll_class_of_name(const char *name);

size_t vftr_vfd_mpi_msg_encode(const struct vftr_vfd_mpi_msg *m, uint64_t time,
                               uint8_t out[VFTR_VFD_EXT_MAX]);
int vftr_vfd_mpi_msg_decode(const uint8_t *data, size_t len, uint64_t time,
                            struct vftr_vfd_mpi_msg *m);
size_t vftr_vfd_mpi_coll_encode(const struct vftr_vfd_mpi_coll *c, uint64_t time,
                                uint8_t out[VFTR_VFD_EXT_MAX]);
int vftr_vfd_mpi_coll_decode(const uint8_t *data, size_t len, uint64_t time,
                             struct vftr_vfd_mpi_coll *c);
size_t vftr_vfd_mpi_rma_encode(const struct vftr_vfd_mpi_rma *a, uint64_t time,
                               uint8_t out[VFTR_VFD_EXT_MAX]);
int vftr_vfd_mpi_rma_decode(const uint8_t *data, size_t len, uint64_t time,
                            struct vftr_vfd_mpi_rma *a);
size_t vftr_vfd_mpi_rma_sync_encode(const struct vftr_vfd_mpi_rma_sync *y, uint64_t time,
                                    uint8_t out[VFTR_VFD_EXT_MAX]);
int vftr_vfd_mpi_rma_sync_decode(const uint8_t *data, size_t len, uint64_t time,
                                 struct vftr_vfd_mpi_rma_sync *y);

/* ------------------------------------------------------------- OpenMP */

/* Kinds of OpenMP regions (vftr_vfd_omp_region.kind); names in
 * vftr_vfd_omp_kind_name().  *_WAIT kinds are the time a thread waited to
 * get a mutex, the plain kinds the time it held it. */
enum vftr_vfd_omp_kind {
    VFTR_VFD_OMP_PARALLEL = 1,  /* encountering thread: parallel begin..end */
    VFTR_VFD_OMP_IMPLICIT_TASK, /* each team member's implicit task */
    VFTR_VFD_OMP_LOOP,          /* worksharing loop (value: iteration count, 0 if unknown) */
    VFTR_VFD_OMP_SECTIONS,
    VFTR_VFD_OMP_SINGLE,        /* the thread that executes the single block */
    VFTR_VFD_OMP_SINGLE_OTHER,  /* the threads that skip it */
    VFTR_VFD_OMP_WORKSHARE,
    VFTR_VFD_OMP_DISTRIBUTE,
    VFTR_VFD_OMP_TASKLOOP,
    VFTR_VFD_OMP_BARRIER,       /* implicit barrier (end of parallel / worksharing) */
    VFTR_VFD_OMP_BARRIER_EXPLICIT,
    VFTR_VFD_OMP_TASKWAIT,
    VFTR_VFD_OMP_TASKGROUP,
    VFTR_VFD_OMP_MASKED,        /* masked / master */
    VFTR_VFD_OMP_CRITICAL_WAIT,
    VFTR_VFD_OMP_CRITICAL,
    VFTR_VFD_OMP_LOCK_WAIT,     /* omp_set_lock / omp_set_nest_lock waiting */
    VFTR_VFD_OMP_LOCK,          /* lock held */
    VFTR_VFD_OMP_ORDERED_WAIT,
    VFTR_VFD_OMP_ORDERED,
    VFTR_VFD_OMP_TASK,          /* an explicit task executing */
    VFTR_VFD_OMP_PARALLEL_WORKER, /* a worker's share of a parallel region: around its
                                   * implicit task, so that its calls hang under the
                                   * region as the encountering thread's do; named as
                                   * the parallel region it is part of */
    VFTR_VFD_OMP_IDLE,          /* a worker between parallel regions, waiting for work
                                   (no code address) */
    VFTR_VFD_OMP_KIND_COUNT     /* number of kinds + 1 */
};

/* "parallel", "loop", "critical wait", ... or NULL for an unknown kind. */
const char *vftr_vfd_omp_kind_name(uint32_t kind);

/* An OpenMP region event (VFTR_VFD_OMP_BEGIN / _END) on the thread of the
 * chunk.  Begin and end of one region instance carry the same region and
 * instance; regions of one thread nest properly. */
struct vftr_vfd_omp {
    uint32_t region;            /* id of an OMP_REGIONS definition */
    uint64_t instance;          /* parallel / task / wait id (OMPT's), 0 when none */
    uint64_t value;             /* PARALLEL: team size; IMPLICIT_TASK: thread number in the
                                 * team; LOOP: iteration count; else 0 */
};

size_t vftr_vfd_omp_encode(const struct vftr_vfd_omp *o, uint8_t out[VFTR_VFD_EXT_MAX]);
int vftr_vfd_omp_decode(const uint8_t *data, size_t len, struct vftr_vfd_omp *o);

/* ----------------------------------------------------------- file I/O */

/* Operations (vftr_vfd_io.op): the numbers of OTF's OTF_FILEOP_*, so that a
 * converter passes them on as they are.  Names in vftr_vfd_io_op_name(). */
enum vftr_vfd_io_op {
    VFTR_VFD_IO_OPEN = 0,       /* open, creat, fopen, fdopen, MPI_File_open */
    VFTR_VFD_IO_CLOSE = 1,
    VFTR_VFD_IO_READ = 2,
    VFTR_VFD_IO_WRITE = 3,
    VFTR_VFD_IO_SEEK = 4,       /* lseek, fseek, MPI_File_seek(_shared) */
    VFTR_VFD_IO_UNLINK = 5,     /* unlink, MPI_File_delete */
    VFTR_VFD_IO_RENAME = 6,
    VFTR_VFD_IO_DUP = 7,        /* dup, dup2, dup3 */
    VFTR_VFD_IO_SYNC = 8,       /* fsync, fdatasync, fflush, MPI_File_sync */
    VFTR_VFD_IO_LOCK = 9,
    VFTR_VFD_IO_UNLOCK = 10,
    VFTR_VFD_IO_OTHER = 31,     /* MPI_File_set_view, ... */
};

enum {                                  /* vftr_vfd_io.flags */
    VFTR_VFD_IO_FAILED = 1u << 0,       /* the call returned an error */
    VFTR_VFD_IO_NONBLOCKING = 1u << 1,  /* MPI_File_i*: begun at the call, completed by a
                                         * wait or test */
    VFTR_VFD_IO_COLLECTIVE = 1u << 2,   /* MPI_File_*_all, _ordered, open, close, set_view... */
    VFTR_VFD_IO_SHARED = 1u << 3,       /* the shared file pointer (MPI_File_*_shared, _ordered) */
    VFTR_VFD_IO_AT = 1u << 4,           /* an explicit offset (pread, pwrite, MPI_File_*_at) */
};

/* The interface a file was used through (vftr_vfd_io_file.iface): a file
 * named the same through two interfaces is two files of the trace, as
 * functions of two groups are. */
enum vftr_vfd_io_iface {
    VFTR_VFD_IO_POSIX = 1,      /* open, read, write, ... on descriptors */
    VFTR_VFD_IO_STDIO = 2,      /* ISO C streams: fopen, fread, fwrite, fprintf, ... */
    VFTR_VFD_IO_MPI = 3,        /* MPI-IO: MPI_File_* */
    VFTR_VFD_IO_IFACE_COUNT     /* number of interfaces + 1 */
};

/* One file operation (VFTR_VFD_IO), recorded when it completes (the event's
 * time), on the thread that completed it; `start` is the call that began
 * it (the same call for everything but MPI-IO's nonblocking operations,
 * begun by MPI_File_i* and completed by a wait or test). */
struct vftr_vfd_io {
    uint32_t file;              /* id of an IO_FILES definition; 0: not known */
    uint64_t handle;            /* the open instance the call used: a number capture gives each
                                 * open (and dup), unique in the process; 0 for a call on a
                                 * name (unlink, rename, an open that failed) */
    uint32_t op;                /* enum vftr_vfd_io_op */
    uint32_t flags;             /* VFTR_VFD_IO_* */
    uint64_t bytes;             /* bytes read or written (0 for other operations) */
    uint64_t start;             /* ticks; <= the event time (encoded as the difference) */
    uint64_t offset;            /* the explicit offset (VFTR_VFD_IO_AT), the position a seek
                                 * ended at; else 0 */
    uint64_t aux;               /* open: the open(2) flags (O_*, Linux values; MPI-IO: its
                                 * amode); rename: the file id of the new name; dup: the
                                 * handle duplicated; else 0 */
};

/* "open", "close", "read", ... ("other" for an operation without a name). */
const char *vftr_vfd_io_op_name(uint32_t op);
/* "POSIX I/O", "ISO C I/O", "MPI-IO", or NULL for an unknown interface. */
const char *vftr_vfd_io_iface_name(uint32_t iface);
/* The operation as OTF's EndFileOperation carries it: op with
 * OTF_IOFLAG_IOFAILED (32), OTF_IOFLAG_ASYNC (64) and OTF_IOFLAG_COLL (128)
 * for the flags that have one. */
uint32_t vftr_vfd_io_otf_operation(uint32_t op, uint32_t flags);

size_t vftr_vfd_io_encode(const struct vftr_vfd_io *io, uint64_t time,
                          uint8_t out[VFTR_VFD_EXT_MAX]);
int vftr_vfd_io_decode(const uint8_t *data, size_t len, uint64_t time, struct vftr_vfd_io *io);

/* ------------------------------------------------------- definitions */

/* OMP_REGIONS entry: one (kind, code location) pair, defined before the
 * first event that uses its id. */
struct vftr_vfd_omp_region {
    uint32_t id;                /* from 1, unique in the file */
    uint32_t kind;              /* enum vftr_vfd_omp_kind */
    uint64_t codeptr;           /* return address OMPT gave (0 if none) */
    const char *function;       /* enclosing function's name, "" if unknown */
    const char *file;           /* source file, "" if unknown */
    uint32_t line;              /* 0 if unknown */
};

/* MPI_COMMS entry.  Encoder: `ranks` holds the size world ranks (rank i of
 * the communicator is ranks[i]).  Decoder: `ranks` is NULL and the ranks
 * are read with vftr_vfd_comm_rank() (stored as 4-byte little-endian
 * integers in the payload, which stays borrowed from the reader). */
struct vftr_vfd_comm {
    uint64_t id;
    uint32_t size;
    const int32_t *ranks;       /* encoder input */
    const uint8_t *raw_ranks;   /* decoder output */
    const char *name;           /* "MPI_COMM_WORLD", "split 3 of 0", ... ("" allowed) */
};
int32_t vftr_vfd_comm_rank(const struct vftr_vfd_comm *c, uint32_t i);

/* CLOCK_OFFSETS entry: one clock comparison with rank 0, the best (lowest
 * round trip) of several ping-pongs.  At local tick `ticks` (this file's
 * clock) rank 0's clock read `root_ticks` (in rank 0's file's ticks);
 * `rtt` is that round trip in local ticks.  A converter maps both through
 * their files' headers to nanoseconds; rank 0 records itself (root_ticks =
 * ticks, rtt 0). */
enum { VFTR_VFD_CLOCK_INIT = 0, VFTR_VFD_CLOCK_FINALIZE = 1 };
struct vftr_vfd_clock_offset {
    uint32_t phase;             /* VFTR_VFD_CLOCK_INIT or _FINALIZE */
    uint64_t ticks;
    uint64_t root_ticks;
    uint64_t rtt;
};

/* Chunk encoders (one complete chunk, as the encoders of vftr_vfd.h: the
 * size or 0 when it does not fit in cap). */
size_t vftr_vfd_encode_omp_regions(const struct vftr_vfd_omp_region *r, size_t n, uint8_t *out,
                                   size_t cap);
size_t vftr_vfd_encode_comms(const struct vftr_vfd_comm *c, size_t n, uint8_t *out, size_t cap);
size_t vftr_vfd_encode_clock_offsets(const struct vftr_vfd_clock_offset *o, size_t n,
                                     uint8_t *out, size_t cap);
size_t vftr_vfd_encode_run_id(const uint8_t run_id[16], uint8_t *out, size_t cap);
/* Worst-case sizes for the cap of the three variable ones. */
size_t vftr_vfd_omp_regions_bound(const struct vftr_vfd_omp_region *r, size_t n);
size_t vftr_vfd_comms_bound(const struct vftr_vfd_comm *c, size_t n);
size_t vftr_vfd_clock_offsets_bound(size_t n);

/* Decoding a definition chunk's payload (a VFTR_VFD_REC_UNKNOWN record of
 * kind VFTR_VFD_CHUNK_MPI_COMMS, ...): a cursor over its `count` entries.
 * next() returns 1 with *out filled (strings point into a copy-free view
 * that is NOT NUL-terminated: use the *_len fields), 0 after the last entry,
 * -EBADMSG when the payload is malformed (the cursor then stays at the
 * end). */
struct vftr_vfd_cursor {
    const uint8_t *p, *end;
    uint32_t left;
};
void vftr_vfd_cursor_init(struct vftr_vfd_cursor *c, const uint8_t *payload, size_t len,
                          uint32_t count);

struct vftr_vfd_omp_region_view {
    struct vftr_vfd_omp_region r;   /* function and file point into the payload */
    size_t function_len, file_len;
};
struct vftr_vfd_comm_view {
    struct vftr_vfd_comm c;         /* name and raw_ranks point into the payload */
    size_t name_len;
};
int vftr_vfd_next_omp_region(struct vftr_vfd_cursor *c, struct vftr_vfd_omp_region_view *out);

/*
 * The name of the function an OpenMP region stands for, the one name every
 * reader gives it (vfd2otf's and vftr-stats's function of the region, and
 * capture's profile log, so that the log and the tools agree): "omp KIND
 * @FILE:LINE" with the base name of the file when the definition has a
 * file and a line, else "omp KIND @FUNCTION" when it names its function,
 * else "omp KIND"; KIND is vftr_vfd_omp_kind_name()'s ("region" for an
 * unknown kind; "parallel" for PARALLEL_WORKER, whose regions are the
 * parallel regions of their code address), and the file's base name and the function are cut to
 * VFTR_VFD_OMP_NAME_PART bytes, so the name is shorter than
 * VFTR_VFD_OMP_NAME_MAX.  Writes the name, cut to size - 1 bytes, and a NUL
 * into buf (nothing when size is 0); returns the bytes written before the
 * NUL.  The view's strings need no NUL (their lengths are used).
 */
#define VFTR_VFD_OMP_NAME_PART 256
#define VFTR_VFD_OMP_NAME_MAX 600
size_t vftr_vfd_omp_region_name(const struct vftr_vfd_omp_region_view *v, char *buf, size_t size);
int vftr_vfd_next_comm(struct vftr_vfd_cursor *c, struct vftr_vfd_comm_view *out);
int vftr_vfd_next_clock_offset(struct vftr_vfd_cursor *c, struct vftr_vfd_clock_offset *out);
/* RUN_ID payload: 0 and the 16 bytes, or -EBADMSG. */
int vftr_vfd_decode_run_id(const uint8_t *payload, size_t len, uint8_t run_id[16]);

/* IO_FILES entry: a file as the program named it, made absolute (relative
 * names joined to the working directory at the open, "." and ".." taken
 * out, symbolic links left as they are), with the interface it was used
 * through; defined before the first event that uses its id. */
struct vftr_vfd_io_file {
    uint32_t id;                /* from 1, unique in the file */
    uint32_t iface;             /* enum vftr_vfd_io_iface */
    const char *name;           /* NUL-terminated (encoder) */
};
struct vftr_vfd_io_file_view {
    struct vftr_vfd_io_file f;  /* name points into the payload */
    size_t name_len;
};
size_t vftr_vfd_encode_io_files(const struct vftr_vfd_io_file *f, size_t n, uint8_t *out,
                                size_t cap);
size_t vftr_vfd_io_files_bound(const struct vftr_vfd_io_file *f, size_t n);
int vftr_vfd_next_io_file(struct vftr_vfd_cursor *c, struct vftr_vfd_io_file_view *out);

#endif /* VFTR_VFD_VFTR_VFD_EXT_H */
