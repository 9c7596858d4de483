/*
 * analysis_impl.h — what the parts of the wait analysis share (analysis.c:
 * records, matching, patterns, results; analysis_cp.c: the critical path;
 * analysis_delay.c: delays and their costs).  Not for tools.
 */
#ifndef VFTR_MODEL_ANALYSIS_IMPL_H
#define VFTR_MODEL_ANALYSIS_IMPL_H

#include <stdbool.h>

#include "analysis.h"
#include "messages.h"
#include "tally.h"
#include "u64map.h"

/* The message for rc, which stopped the analysis `when` ("reading the
 * trace", "at the trace's end"): the analysis's own account of a refused
 * record (vftr_analysis_why) if it has one, else what rc says; into err
 * (vftr_errmsg).  a may be NULL.  The serial and the parallel run
 * (analysis_run.c, analysis_par.c) say the same thing through it. */
void vftr_analysis_errmsg(const struct vftr_analysis *a, int rc, const char *when, char *err,
                          size_t errlen);

/* ------------------------------------------------------------ critical path */

/* A piece of the path: time of one process. */
struct cppiece {
    struct cppiece *next;
    uint32_t process;
    uint64_t start, end;
};

/*
 * A node of a chain: the time one process spent per (process, call path)
 * on it, after its parent's time.  refs counts who needs it: its children,
 * the process whose present it is, and the records that may continue it
 * (a message in flight, a collective or barrier under way, a lock's last
 * release).  A node needed only by its one child is folded into the child
 * (cp_compact).
 */
struct cpnode {
    struct cpnode *parent;
    struct cpnode *lprev, *lnext;     /* every live node, for the folding */
    uint32_t refs;
    uint32_t process;
    uint64_t start;                   /* its own piece began (VFTR_ANALYSIS_SEGMENTS) */
    struct vftr_tally own;            /* (process << 32 | path) -> ticks */
    struct cppiece *first, *last;     /* finished pieces, in time order */
};

/* ------------------------------------------------------------ delays */

/*
 * A block of a process's time: from a synchronisation point that some
 * later question may start at (refs counts those who hold that start: the
 * last synchronisation with a partner, a message in flight, a collective
 * under way) to the next such point.  Blocks whose start nobody holds are
 * merged into the block before, so a process has about as many blocks as
 * partners.
 */
struct dblock {
    struct dblock *prev, *next;
    uint64_t start;
    uint32_t refs;
    struct vftr_tally t;              /* path -> ticks spent (not waiting) */
    uint64_t w;                       /* ticks waited */
    struct vftr_tally g;              /* (process << 32 | path) -> cost share of its waits */
};

/* ------------------------------------------------------------ processes */

#define LSWO_BUFFER 100               /* Late Sender instances kept for "wrong order" */

struct lsent {                        /* a Late Sender instance */
    uint64_t send_t;                  /* when its late message was sent */
    uint64_t start, idle;             /* its wait */
    uint32_t path;
};

/* The MPI call a process is in, as its records tell. */
struct mcall {
    bool open;
    uint64_t enter;
    uint32_t function, path;
    uint8_t cls;                      /* enum vftr_sync_fclass */
    /* Late Sender: the largest wait of its receives (Scalasca: the latest
     * sender counts for a call completing several) and its cause */
    uint64_t ls_idle, ls_cause_time, ls_send_t;
    uint32_t ls_sender;
    struct cpnode *ls_node;
    struct dblock *ls_dfrom, *ls_dto;
    /* the senders of its receives: synchronisation partners at its end */
    uint32_t *from;
    size_t nfrom, capfrom;
    /* its sends that wait for the Late Receiver decision (message slots) */
    uint32_t *sends;
    size_t nsends, capsends;
};

struct team;

struct aproc {
    uint32_t token, rankproc, thread;
    uint32_t master;                  /* index of its rank's own process */
    bool begun, ended;
    /* another rank's (a distributed analysis, analysis_dist.c): its records
     * here are the few this rank's processes need; its own waits and counts
     * are booked by its rank */
    bool foreign;
    uint64_t first, end;
    uint32_t end_top;
    struct mcall call;
    /* a blocking receive under way: the cause of a Late Receiver */
    bool in_recv;
    uint64_t recv_enter;
    struct cpnode *recv_node;
    struct dblock *recv_bound;
    /* Late Sender instances for "wrong order": a ring */
    struct lsent *ls;
    size_t nls, headls;
    uint64_t ls_max;                  /* no instance in it was sent later (may be above) */
    /* collectives begun and not ended: matching id -> instance */
    struct opencoll { uint64_t match; uint32_t comm; uint64_t k; } *oc;
    size_t noc, capoc;
    /* OpenMP */
    struct team *team;
    bool in_itask, in_barrier;
    bool omp_worker;                  /* it took part in an OpenMP region: it can idle */
    uint64_t idle_since, barrier_k, barrier_enter, barrier_exit;
    uint32_t barrier_path;
    uint32_t idle_path;               /* the call path its idle time is spent on */
    struct dblock *bar_from, *bar_to;
    struct team *par[8];              /* the parallel regions it encountered, innermost last */
    int npar;
    /* as the rank's own process: its OpenMP state */
    int nparallel;
    struct team *cur_team;
    bool have_release;
    uint64_t release_t;
    uint32_t release_proc;
    struct cpnode *release_node;
    /* critical path: its present */
    struct cpnode *cur;
    /* delays: its blocks, first the oldest */
    struct dblock *head, *tail;
    struct dblock *dfree;             /* blocks let go, for reuse */
    struct vftr_tally p2p_bound;      /* partner process -> block of their last sync */
    struct vftr_tally coll_bound;     /* communicator -> block after its last collective */
    struct dblock *omp_bound;         /* after its last OpenMP synchronisation */
};

/* An OpenMP team: a parallel region of a rank and the implicit tasks in it. */
struct binst {                        /* the k-th barrier of a team */
    uint64_t k;
    uint32_t nbegun, nended;
    uint64_t max_enter;
    uint32_t max_proc;
    struct cpnode *max_node;
    struct dblock *max_from, *max_to;
};

struct team {
    uint64_t id;
    uint32_t master;                  /* aproc index of the encountering thread */
    uint64_t fork;
    uint32_t fork_path;
    struct cpnode *fork_node;
    struct dblock *fork_from, *fork_to;
    uint32_t members;                 /* implicit tasks begun in it */
    bool ended;                       /* its region ended (the encountering thread left it) */
    uint64_t end;
    uint32_t refs;                    /* the region open + members in it */
    struct binst *bar;                /* open barriers, k from k0 */
    size_t nbar, capbar;
    uint64_t k0;
};

/* ------------------------------------------------------------ collectives */

struct cmember {
    uint32_t proc;                    /* aproc index of the process that took part */
    uint8_t state;                    /* 0 not yet, 1 begun, 2 ended */
    bool blocking;                    /* in a blocking collective call */
    uint64_t enter, exit;
    uint32_t path;
    struct cpnode *node;              /* its chain at its enter */
    struct dblock *dfrom, *dto;       /* its interval since the last collective */
};

struct cinst {
    uint64_t k;
    uint32_t nbegun, nended;
    uint8_t oclass;
    uint32_t root;                    /* member index of the root, UINT32_MAX: none */
    struct cmember *m;
};

struct ccomm {
    uint32_t token, n;
    uint32_t *members;                /* rank processes, in communicator rank order */
    struct vftr_u64map idx;           /* rank process -> member index */
    uint64_t *count;                  /* per member: collectives begun */
    struct cinst *open;               /* instances k0, k0 + 1, ... */
    size_t nopen, capopen;
    uint64_t k0;
};

/* ------------------------------------------------------------ messages */

struct msg {
    bool used, matched, recv_done, lr_wait, lr_done;
    uint32_t sender, receiver;        /* aproc indices */
    uint64_t send_t, send_enter, bytes;
    uint32_t send_path;
    uint8_t send_cls;
    uint64_t send_call;               /* the sender's call serial */
    struct cpnode *send_node;
    struct dblock *dfrom, *dto;       /* the sender's interval with the receiver */
    /* the receive, once matched, if a blocking receive posted it */
    bool recv_blocking;
    uint64_t recv_enter;
    struct cpnode *recv_node;
    struct dblock *recv_from, *recv_bound;   /* the receiver's interval with the sender */
    uint32_t next_free;
};

/* ------------------------------------------------------------ the analysis */

struct stream {
    bool used;
    vftr_syncpath_fn *def;
    void *arg;
    uint32_t *map;                    /* local path -> global (0: not yet) */
    size_t nmap;
};

struct vftr_analysis {
    struct vftr_syncdefs defs;
    struct vftr_analysis_opts o;
    bool finished;
    struct vftr_syncrec last;         /* order check */
    bool have_last;
    char why[160];                    /* the latest refused record (vftr_analysis_why) */
    struct vftr_analysis_summary sum;

    struct stream *streams;
    size_t nstreams;
    struct vftr_analysis_path *paths;
    size_t npaths, cappaths;
    struct vftr_u64map pathmap;       /* parent << 32 | function -> index */
    uint32_t *canon;                  /* path - 1 -> the path delays compare on (dpath) */
    size_t ncanon;

    struct aproc *procs;
    size_t nprocs, capprocs;
    struct vftr_u64map procmap;       /* token -> index (large tokens) */
    uint32_t *pdirect;                /* token < 65536 -> index + 1 (0: none) */
    size_t npdirect;
    uint32_t *ranks;                  /* aproc indices of the rank processes (defs order) */
    size_t nranks;
    struct vftr_u64map rankidx;       /* rank process token -> index in ranks */

    /* messages */
    struct vftr_messages *matcher;
    struct msg *msgs;
    size_t nmsgs, capmsgs;
    uint32_t free_msg;                /* index + 1 of a free slot */
    uint32_t match_slot;              /* set by the match callback */
    uint32_t match_receiver;          /* the matched receive's process (token) */
    bool match_hit;
    uint64_t serial;                  /* call serials */

    /* collectives */
    struct ccomm *comms;
    size_t ncomms, capcomms;
    struct vftr_u64map commmap;
    /* MPI_Finalize and MPI_Init over the rank processes */
    struct cmember *fin, *init;
    uint32_t fin_begun, fin_ended, init_ended;
    uint64_t fin_max;
    uint32_t fin_last;

    uint64_t teams;

    /* results */
    struct vftr_wait_row *rows;
    size_t nrows, caprows;
    struct vftr_u64map rowmap[VFTR_WAIT_COUNT];   /* process << 32 | path -> row */
    int64_t *busy;                    /* path -> exclusive ticks less waits */
    size_t nbusy;

    /* critical path */
    struct cpnode *live;              /* list of live nodes */
    struct cpnode *cpfree;            /* nodes let go, for reuse (through parent) */
    size_t nlive, live_after;
    struct vftr_cp_row *cprows;
    size_t ncprows;
    struct vftr_cp_segment *segs;
    size_t nsegs;

    /* a distributed analysis (some processes foreign): messages sent and
     * received by this rank's processes, and matched here (on the
     * receiver's rank), for the unmatched counts */
    bool distributed;
    uint64_t nsend_mine, nrecv_mine, nmatch_mine;

    /* delays: per pattern, (process << 32 | path) -> cost */
    struct vftr_tally dshort[VFTR_WAIT_COUNT], dlong[VFTR_WAIT_COUNT];
    struct vftr_delay_row *drows;
    size_t ndrows;
};

static inline bool cp_on(const struct vftr_analysis *a)
{
    return a->o.what & VFTR_ANALYSIS_CRITPATH;
}

static inline bool delays_on(const struct vftr_analysis *a)
{
    return a->o.what & VFTR_ANALYSIS_DELAYS;
}

static inline uint64_t key2(uint32_t hi, uint32_t lo)
{
    return (uint64_t)hi << 32 | lo;
}

/* A key among a process's collective boundaries that stands for a
 * synchronisation with every process (MPI_Init's end). */
#define ALL_COMM UINT32_MAX

/* analysis.c, for the distributed analysis (analysis_dist.c): process
 * `token` is another rank's (its waits and counts are left to that rank).
 * 0, -ENOMEM. */
int an_set_foreign(struct vftr_analysis *a, uint32_t token);
/* Adds another rank's results: its wait rows (paths in its numbering,
 * paths[0..npaths) its path table) and its summary's counts.  0, -ENOMEM,
 * -EBADMSG (a row or path naming a path it does not define). */
int an_import(struct vftr_analysis *a, const struct vftr_wait_row *rows, size_t nrows,
              const struct vftr_analysis_path *paths, size_t npaths,
              const struct vftr_analysis_summary *sum);

/* Is r a send whose call may wait for its receive (Late Receiver): a send
 * in a call (function not 0; the call's end decides) of MPI_Ssend, or of
 * MPI_Send / _Sendrecv of at least the rendezvous size? */
bool an_lr_capable(const struct vftr_analysis *a, const struct vftr_syncrec *r);

/* analysis.c: is rankproc a member of communicator comm? */
bool an_comm_has(struct vftr_analysis *a, uint32_t comm, uint32_t rankproc);

/* analysis_cp.c */
struct cpnode *cp_ref(struct cpnode *n);
void cp_unref(struct vftr_analysis *a, struct cpnode *n);
int cp_begin(struct vftr_analysis *a, struct aproc *p, uint64_t t);
int cp_add(struct vftr_analysis *a, struct aproc *p, const struct vftr_syncseg *seg, uint32_t n,
           const uint32_t *gpath);
/* The process's chain at time `at` (<= now; the time since, on call path
 * `path` on top, moves to its continuation): a reference for the caller. */
struct cpnode *cp_freeze(struct vftr_analysis *a, struct aproc *p, uint64_t at, uint64_t now,
                         uint32_t path);
/* The process waited until `cause` arrived at `at`; its chain continues
 * that one, with its own time since on `path`. */
int cp_jump(struct vftr_analysis *a, struct aproc *p, struct cpnode *cause, uint64_t at,
            uint64_t now, uint32_t path);
int cp_finish(struct vftr_analysis *a);
void cp_release(struct vftr_analysis *a);

/* analysis_delay.c */
int d_begin(struct vftr_analysis *a, struct aproc *p, uint64_t t);
int d_add(struct aproc *p, const struct vftr_syncseg *seg, uint32_t n, const uint32_t *gpath);
struct dblock *d_ref(struct dblock *b);
void d_unref(struct aproc *p, struct dblock *b);
/* A new block at `at` (the time since, on `path`, moved into it): a
 * reference for the caller. */
struct dblock *d_cut(struct aproc *p, uint64_t at, uint64_t now, uint32_t path);
/* The block where p's interval with process q begins (referenced). */
struct dblock *d_since(struct vftr_analysis *a, struct aproc *p, const struct aproc *q);
/* Sets p's last synchronisation with q (p2p) to b (takes the reference). */
void d_set_p2p(struct aproc *p, uint32_t q, struct dblock *b);
/* p's block after its last collective on comm (referenced, or the head). */
struct dblock *d_since_coll(struct aproc *p, uint32_t comm);
void d_set_coll(struct aproc *p, uint32_t comm, struct dblock *b);
/*
 * The delays behind a wait of omega ticks of w on call path wpath, caused
 * by d: d's interval [dfrom, dto), w's interval [wfrom, wto) (wto NULL:
 * up to now) less wsub ticks of wpath (the part of w's interval after its
 * wait began).  Books the costs and puts the wait into w's present block.
 */
int d_wait(struct vftr_analysis *a, unsigned pattern, struct aproc *w, uint32_t wpath,
           uint64_t omega, struct aproc *d, struct dblock *dfrom, struct dblock *dto,
           struct dblock *wfrom, struct dblock *wto, uint64_t wsub);
/* A wait without a known cause still leaves the block of its process. */
int d_plain_wait(struct aproc *w, uint32_t wpath, uint64_t omega);
int d_finish(struct vftr_analysis *a);
void d_release_proc(struct aproc *p);

#endif /* VFTR_MODEL_ANALYSIS_IMPL_H */
