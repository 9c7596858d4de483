/*
 * model.c — vftr-dump for traces that are not OTF (an OTF2 archive): the
 * trace as vftr's model reads it (lib/model/source.h), printed by the very
 * printers of OTF records (vftr_otf_print.h), so that a line means what it
 * means for OTF and the dump of an OTF2 archive can be compared with the
 * dump of the same trace in OTF line by line.
 *
 * Definitions come in the order vftr's OTF writer (sink_otf.c) uses: timer
 * resolution, processes by rank and thread, communicators as process
 * groups, function groups, source files and places, functions, counters,
 * collective operations, file groups and files; events in the model's time
 * order.  OTF's
 * Begin/EndProcess records are no part of the model.
 */
#include "model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf.h"
#include "vftr_otf_print.h"

#include "model/source.h"
#include "util/errmsg.h"
#include "util/timespec.h"
#include "vfd/vftr_vfd_ext.h"

/* The installed printer of record type r, called with its own first
 * argument (the generated handler's signature, cast back). */
#define PRINTER(h, r, type) ((type *)(void (*)(void))(h)->pointer[r])
#define ARG(h, r) ((h)->firsthandlerarg[r])

struct printer {
    OTF_HandlerArray *h;
    const struct vftr_source *src;
    uint32_t *scl;                    /* per function index: its place's token */
    int err;
};

static uint32_t scl_of(const struct printer *p, uint32_t function)
{
    const struct vftr_source_func *f = vftr_source_func(p->src, function);
    size_t n;
    const struct vftr_source_func *all = vftr_source_funcs(p->src, &n);

    return f ? p->scl[f - all] : 0;
}

static int m_enter(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_ENTER_RECORD, OTF_Handler_Enter)(ARG(p->h, OTF_ENTER_RECORD), time,
                                                       function, process,
                                                       scl_of(p, function), NULL);
    return 0;
}

static int m_leave(void *arg, uint64_t time, uint32_t process, uint32_t function)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_LEAVE_RECORD, OTF_Handler_Leave)(ARG(p->h, OTF_LEAVE_RECORD), time,
                                                       function, process,
                                                       scl_of(p, function), NULL);
    return 0;
}

static int m_send(void *arg, uint64_t time, uint32_t sender, uint32_t receiver, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_SEND_RECORD, OTF_Handler_SendMsg)(ARG(p->h, OTF_SEND_RECORD), time, sender,
                                                        receiver, comm, tag, length, 0, NULL);
    return 0;
}

static int m_recv(void *arg, uint64_t time, uint32_t receiver, uint32_t sender, uint32_t comm,
                  uint32_t tag, uint32_t length)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_RECEIVE_RECORD, OTF_Handler_RecvMsg)(ARG(p->h, OTF_RECEIVE_RECORD), time,
                                                           receiver, sender, comm, tag, length,
                                                           0, NULL);
    return 0;
}

static int m_coll_begin(void *arg, uint64_t time, uint32_t process, uint32_t op, uint64_t match,
                        uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_BEGINCOLLOP_RECORD, OTF_Handler_BeginCollectiveOperation)(
        ARG(p->h, OTF_BEGINCOLLOP_RECORD), time, process, op, match, comm, root, sent, received,
        0, NULL);
    return 0;
}

static int m_coll_end(void *arg, uint64_t time, uint32_t process, uint64_t match)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_ENDCOLLOP_RECORD, OTF_Handler_EndCollectiveOperation)(
        ARG(p->h, OTF_ENDCOLLOP_RECORD), time, process, match, NULL);
    return 0;
}

static int m_counter(void *arg, uint64_t time, uint32_t process, uint32_t counter,
                     uint64_t value)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_COUNTER_RECORD, OTF_Handler_Counter)(ARG(p->h, OTF_COUNTER_RECORD), time,
                                                           process, counter, value, NULL);
    return 0;
}

static int m_file_begin(void *arg, uint64_t time, uint32_t process,
                        const struct vftr_window_fileop *op)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_BEGINFILEOP_RECORD, OTF_Handler_BeginFileOperation)(
        ARG(p->h, OTF_BEGINFILEOP_RECORD), time, process, op->matching_id, 0, NULL);
    return 0;
}

static int m_file_end(void *arg, uint64_t time, uint32_t process,
                      const struct vftr_window_fileop *op)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_ENDFILEOP_RECORD, OTF_Handler_EndFileOperation)(
        ARG(p->h, OTF_ENDFILEOP_RECORD), time, process, op->file, op->matching_id, op->handle,
        op->operation, op->bytes, 0, NULL);
    return 0;
}

static int m_fileop(void *arg, uint64_t time, uint32_t process,
                    const struct vftr_window_fileop *op)
{
    struct printer *p = arg;

    PRINTER(p->h, OTF_FILEOPERATION_RECORD, OTF_Handler_FileOperation)(
        ARG(p->h, OTF_FILEOPERATION_RECORD), time, op->file, process, op->handle, op->operation,
        op->bytes, op->duration, 0, NULL);
    return 0;
}

static int m_rma(void *arg, uint64_t time, uint32_t process, const struct vftr_window_rma *r)
{
    struct printer *p = arg;
    static const uint32_t rec[] = {
        [VFTR_WINDOW_RMA_PUT] = OTF_RMAPUT_RECORD,
        [VFTR_WINDOW_RMA_PUT_REMOTE_END] = OTF_RMAPUTRE_RECORD,
        [VFTR_WINDOW_RMA_GET] = OTF_RMAGET_RECORD,
    };

    /* an end as OTF writes it (otfout.h): remote is whose transfers end */
    if (r->kind == VFTR_WINDOW_RMA_END)
        PRINTER(p->h, OTF_RMAEND_RECORD, OTF_Handler_RMAEnd)(
            ARG(p->h, OTF_RMAEND_RECORD), time, process,
            r->origin && r->origin != process ? r->origin : 0, r->comm, r->tag, 0, NULL);
    else if (r->kind >= VFTR_WINDOW_RMA_PUT && r->kind <= VFTR_WINDOW_RMA_GET)
        /* the three transfer records share one signature */
        PRINTER(p->h, rec[r->kind], OTF_Handler_RMAPut)(
            ARG(p->h, rec[r->kind]), time, process, r->origin, r->target, r->comm, r->tag,
            r->bytes, 0, NULL);
    return 0;
}

static int print_defs(struct printer *p, const struct vftr_source_scls *t)
{
    OTF_HandlerArray *h = p->h;
    const struct vftr_source *s = p->src;
    size_t np, nf, ng, nc, nk, no;
    const struct vftr_source_func *f = vftr_source_funcs(s, &nf);
    const struct vftr_source_name *g = vftr_source_groups(s, &ng);
    const struct vftr_source_comm *c = vftr_source_comms(s, &nc);
    const struct vftr_source_counter *k = vftr_source_counters(s, &nk);
    const struct vftr_source_name *ops = vftr_source_collops(s, &no);
    const struct vftr_source_proc **order = vftr_source_procs_by_rank(s, &np);

    if (!order)
        return -ENOMEM;
    PRINTER(h, OTF_DEFTIMERRESOLUTION_RECORD, OTF_Handler_DefTimerResolution)(
        ARG(h, OTF_DEFTIMERRESOLUTION_RECORD), 0, vftr_source_info(s)->resolution, NULL);
    for (size_t i = 0; i < np; i++)
        PRINTER(h, OTF_DEFPROCESS_RECORD, OTF_Handler_DefProcess)(
            ARG(h, OTF_DEFPROCESS_RECORD), 0, order[i]->token, order[i]->name, order[i]->parent,
            NULL);
    free(order);
    for (size_t i = 0; i < nc; i++)
        PRINTER(h, OTF_DEFPROCESSGROUP_RECORD, OTF_Handler_DefProcessGroup)(
            ARG(h, OTF_DEFPROCESSGROUP_RECORD), 0, c[i].token, c[i].name, c[i].n, c[i].procs,
            NULL);
    for (size_t i = 0; i < ng; i++)
        PRINTER(h, OTF_DEFFUNCTIONGROUP_RECORD, OTF_Handler_DefFunctionGroup)(
            ARG(h, OTF_DEFFUNCTIONGROUP_RECORD), 0, g[i].token, g[i].name, NULL);
    for (size_t i = 0; i < t->nfiles; i++)
        PRINTER(h, OTF_DEFSCLFILE_RECORD, OTF_Handler_DefSclFile)(
            ARG(h, OTF_DEFSCLFILE_RECORD), 0, (uint32_t)i + 1, t->files[i], NULL);
    for (size_t i = 0; i < t->nlocs; i++)
        PRINTER(h, OTF_DEFSCL_RECORD, OTF_Handler_DefScl)(
            ARG(h, OTF_DEFSCL_RECORD), 0, (uint32_t)i + 1, t->locs[i].file, t->locs[i].line,
            NULL);
    for (size_t i = 0; i < nf; i++)
        PRINTER(h, OTF_DEFFUNCTION_RECORD, OTF_Handler_DefFunction)(
            ARG(h, OTF_DEFFUNCTION_RECORD), 0, f[i].token, f[i].name, f[i].group,
            t->func_scl[i], NULL);
    for (size_t i = 0; i < nk; i++)
        PRINTER(h, OTF_DEFCOUNTER_RECORD, OTF_Handler_DefCounter)(
            ARG(h, OTF_DEFCOUNTER_RECORD), 0, k[i].token, k[i].name,
            OTF_COUNTER_TYPE_ABS | OTF_COUNTER_SCOPE_POINT, 1, k[i].unit, NULL);
    for (size_t i = 0; i < no; i++)
        PRINTER(h, OTF_DEFCOLLOP_RECORD, OTF_Handler_DefCollectiveOperation)(
            ARG(h, OTF_DEFCOLLOP_RECORD), 0, ops[i].token, ops[i].name,
            vftr_vfd_coll_class_of_name(ops[i].name), NULL);
    {
        size_t nfl, nfg;
        const struct vftr_source_file *fl = vftr_source_files(s, &nfl);
        const struct vftr_source_name *fg = vftr_source_filegroups(s, &nfg);

        for (size_t i = 0; i < nfg; i++)
            PRINTER(h, OTF_DEFFILEGROUP_RECORD, OTF_Handler_DefFileGroup)(
                ARG(h, OTF_DEFFILEGROUP_RECORD), 0, fg[i].token, fg[i].name, NULL);
        for (size_t i = 0; i < nfl; i++)
            PRINTER(h, OTF_DEFFILE_RECORD, OTF_Handler_DefFile)(
                ARG(h, OTF_DEFFILE_RECORD), 0, fl[i].token, fl[i].name, fl[i].group, NULL);
    }
    return 0;
}

int vftr_dump_model(const struct vftr_tool *tool, const struct vftr_dump_model_args *args,
                    const char *trace)
{
    struct vftr_source_opts so = { stderr, tool->name, 0 };
    struct vftr_source *src = NULL;
    struct vftr_source_scls t = { 0 };
    uint64_t counts[OTF_NRECORDS] = { 0 }, total = 0;
    char err[VFTR_ERRMSG_MAX + 512];
    struct printer p = { 0 };
    struct vftr_timerange range = { 0, UINT64_MAX };
    const struct vftr_proclist *procs = args->sel->have_procs ? &args->sel->procs : NULL;
    FILE *out = args->count_only ? NULL : stdout;
    int names_only, rc = vftr_source_open(&src, &trace, 1, &so, err, sizeof err);

    if (rc < 0)
        return rc == -EINVAL ? vftr_tool_usage_fail(tool, stderr, "%s", err)
                             : vftr_tool_fail(tool, stderr, "%s", err);
    if ((rc = vftr_source_resolve_names(src, args->sel, err, sizeof err)) < 0) {
        rc = vftr_tool_fail(tool, stderr, "%s: %s", trace, err);
        goto out;
    }
    if (args->sel->window) {
        const struct vftr_source_info *si = vftr_source_info(src);
        struct vftr_timebase base = { si->resolution, si->first };

        if (vftr_timerange_parse(args->sel->window, &base, &range, err, sizeof err) < 0) {
            rc = vftr_tool_usage_fail(tool, stderr, "%s", err);
            goto out;
        }
    }
    p.src = src;
    p.h = OTF_HandlerArray_open();
    if (!p.h || vftr_otf_print_install(p.h, out, args->kinds, counts) < 0 ||
        vftr_source_scls_init(src, &t) < 0) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    p.scl = t.func_scl;
    /* names without --defs: the definitions are handed to the printer
     * unprinted, for the names the events refer to */
    names_only = out && (args->kinds & VFTR_OTF_PRINT_NAMES) &&
                 !(args->kinds & VFTR_OTF_PRINT_DEFS);
    if (names_only)
        vftr_otf_print_select(p.h, 0);
    if ((args->kinds & VFTR_OTF_PRINT_DEFS || names_only) && print_defs(&p, &t) < 0) {
        rc = vftr_tool_fail(tool, stderr, "out of memory");
        goto out;
    }
    if (names_only)
        vftr_otf_print_select(p.h, args->kinds);
    if (args->kinds & VFTR_OTF_PRINT_EVENTS) {
        struct vftr_window_handler h = {
            .arg = &p, .enter = m_enter, .leave = m_leave, .send = m_send, .recv = m_recv,
            .coll_begin = m_coll_begin, .coll_end = m_coll_end, .counter = m_counter,
            .file_begin = m_file_begin, .file_end = m_file_end, .fileop = m_fileop,
            .rma = m_rma,
        };

        rc = vftr_source_read(src, range.start, range.end, procs, VFTR_SOURCE_EVENTS_ONLY, &h,
                              NULL, err, sizeof err);
        if (rc != 0) {
            fflush(stdout);
            rc = vftr_tool_fail(tool, stderr, "%s", err[0] ? err : strerror(rc < 0 ? -rc : EIO));
            goto out;
        }
    }
    if (args->count_only) {
        for (uint32_t r = 0; r < OTF_NRECORDS; r++)
            if (counts[r]) {
                printf("%-28s %" PRIu64 "\n", vftr_otf_record_name(r), counts[r]);
                total += counts[r];
            }
        printf("%-28s %" PRIu64 "\n", "total", total);
    }
    if (vftr_source_info(src)->skipped)
        fprintf(stderr, "%s: %s: %" PRIu64 " records of kinds vftr's model does not keep "
                "passed over\n", tool->name, vftr_source_info(src)->name,
                vftr_source_info(src)->skipped);
    rc = fflush(stdout) == 0 ? VFTR_EXIT_OK
                             : vftr_tool_fail(tool, stderr, "write error: %s", strerror(errno));
out:
    if (p.h)
        OTF_HandlerArray_close(p.h);
    vftr_source_scls_release(&t);
    vftr_source_free(src);
    return rc;
}
