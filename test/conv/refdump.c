/*
 * refdump — the tests' oracle: reads an OTF trace with the REFERENCE OTF
 * library (-lopen-trace-format) and prints one line per event, names
 * resolved, so that test scripts compare them with expectations worked out
 * by hand:
 *
 *   PROC TIME ENTER|LEAVE FUNCTION [GROUP]
 *   PROC TIME SEND|RECV PEER COMM TAG LENGTH
 *   PROC TIME COLLBEGIN OP COMM ROOT SENT RECEIVED | COLLEND
 *   PROC TIME BEGINPROC | ENDPROC
 *
 * and, on stderr-free stdout after "#defs", the definitions:
 *   PROCESS TOKEN PARENT NAME / GROUP NAME MEMBERS... / FUNCTION NAME GROUPNAME SCL / ...
 * Each stream is also read on its own (OTF_RStream): times must not
 * decrease within a stream, or refdump exits 1.
 *
 *   refdump [-d] [-e] STUB      (-d definitions only, -e events only)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf.h>

#define MAXTOK 65536

static char *fname[MAXTOK], *gname[MAXTOK], *sclfile[MAXTOK];
static uint32_t fgroup[MAXTOK];
static char *collname[MAXTOK];
static int print_defs = 1, print_events = 1;

static const char *fn(uint32_t t) { return t < MAXTOK && fname[t] ? fname[t] : "?"; }

static int def_timer(void *u, uint32_t s, uint64_t tps, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (print_defs) printf("TIMER %llu\n", (unsigned long long)tps);
    return OTF_RETURN_OK;
}

static int def_creator(void *u, uint32_t s, const char *c, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (print_defs) printf("CREATOR %s\n", c);
    return OTF_RETURN_OK;
}

static int def_comment(void *u, uint32_t s, const char *c, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (print_defs) printf("COMMENT %s\n", c);
    return OTF_RETURN_OK;
}

static int def_process(void *u, uint32_t s, uint32_t p, const char *name, uint32_t parent, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (print_defs) printf("PROCESS %u %u %s\n", p, parent, name);
    return OTF_RETURN_OK;
}

static int def_pgroup(void *u, uint32_t s, uint32_t g, const char *name, uint32_t n,
                      const uint32_t *procs, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (print_defs) {
        printf("PGROUP %u %s:", g, name);
        for (uint32_t i = 0; i < n; i++)
            printf(" %u", procs[i]);
        printf("\n");
    }
    return OTF_RETURN_OK;
}

static int def_fgroup(void *u, uint32_t s, uint32_t g, const char *name, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (g < MAXTOK) gname[g] = strdup(name);
    return OTF_RETURN_OK;
}

static int def_function(void *u, uint32_t s, uint32_t f, const char *name, uint32_t g,
                        uint32_t scl, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (f < MAXTOK) { fname[f] = strdup(name); fgroup[f] = g; }
    if (print_defs)
        printf("FUNCTION %s group=%s scl=%u\n", name, g < MAXTOK && gname[g] ? gname[g] : "?",
               scl);
    return OTF_RETURN_OK;
}

static int def_sclfile(void *u, uint32_t s, uint32_t t, const char *name, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (t < MAXTOK) sclfile[t] = strdup(name);
    return OTF_RETURN_OK;
}

static int def_scl(void *u, uint32_t s, uint32_t t, uint32_t file, uint32_t line, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (print_defs)
        printf("SCL %u %s:%u\n", t, file < MAXTOK && sclfile[file] ? sclfile[file] : "?", line);
    return OTF_RETURN_OK;
}

static int def_coll(void *u, uint32_t s, uint32_t op, const char *name, uint32_t type, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)s;
    if (op < MAXTOK) collname[op] = strdup(name);
    if (print_defs) printf("COLLOP %u %s class=%u\n", op, name, type);
    return OTF_RETURN_OK;
}

static int ev_enter(void *u, uint64_t t, uint32_t f, uint32_t p, uint32_t scl, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)scl;
    if (print_events) printf("%u %llu ENTER %s\n", p, (unsigned long long)t, fn(f));
    return OTF_RETURN_OK;
}

static int ev_leave(void *u, uint64_t t, uint32_t f, uint32_t p, uint32_t scl, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)scl;
    if (print_events) printf("%u %llu LEAVE %s\n", p, (unsigned long long)t, fn(f));
    return OTF_RETURN_OK;
}

static int ev_send(void *u, uint64_t t, uint32_t from, uint32_t to, uint32_t g, uint32_t tag,
                   uint32_t len, uint32_t scl, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)scl;
    if (print_events)
        printf("%u %llu SEND %u %u %u %u\n", from, (unsigned long long)t, to, g, tag, len);
    return OTF_RETURN_OK;
}

static int ev_recv(void *u, uint64_t t, uint32_t to, uint32_t from, uint32_t g, uint32_t tag,
                   uint32_t len, uint32_t scl, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)scl;
    if (print_events)
        printf("%u %llu RECV %u %u %u %u\n", to, (unsigned long long)t, from, g, tag, len);
    return OTF_RETURN_OK;
}

static int ev_collbegin(void *u, uint64_t t, uint32_t p, uint32_t op, uint64_t match,
                        uint32_t g, uint32_t root, uint64_t sent, uint64_t recvd, uint32_t scl,
                        OTF_KeyValueList *kv)
{
    (void)u; (void)scl; (void)kv;
    if (print_events)
        printf("%u %llu COLLBEGIN %s %llu %u %u %llu %llu\n", p, (unsigned long long)t,
               op < MAXTOK && collname[op] ? collname[op] : "?", (unsigned long long)match, g,
               root, (unsigned long long)sent, (unsigned long long)recvd);
    return OTF_RETURN_OK;
}

static int ev_collend(void *u, uint64_t t, uint32_t p, uint64_t match, OTF_KeyValueList *kv)
{
    (void)u; (void)kv;
    if (print_events)
        printf("%u %llu COLLEND %llu\n", p, (unsigned long long)t, (unsigned long long)match);
    return OTF_RETURN_OK;
}

static int ev_begin(void *u, uint64_t t, uint32_t p, OTF_KeyValueList *kv)
{
    (void)u; (void)kv;
    if (print_events) printf("%u %llu BEGINPROC\n", p, (unsigned long long)t);
    return OTF_RETURN_OK;
}

static int ev_end(void *u, uint64_t t, uint32_t p, OTF_KeyValueList *kv)
{
    (void)u; (void)kv;
    if (print_events) printf("%u %llu ENDPROC\n", p, (unsigned long long)t);
    return OTF_RETURN_OK;
}

/* Per-stream order check: any event handler records its time. */
static uint64_t last_time;
static int unsorted;

static int chk_enter(void *u, uint64_t t, uint32_t f, uint32_t p, uint32_t scl, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)f; (void)p; (void)scl;
    if (t < last_time) unsorted++;
    last_time = t;
    return OTF_RETURN_OK;
}

static int chk_msg(void *u, uint64_t t, uint32_t a, uint32_t b, uint32_t g, uint32_t tag,
                   uint32_t len, uint32_t scl, OTF_KeyValueList *kv)
{
    (void)kv;
    (void)u; (void)a; (void)b; (void)g; (void)tag; (void)len; (void)scl;
    if (t < last_time) unsorted++;
    last_time = t;
    return OTF_RETURN_OK;
}

#define H(type, fn) OTF_HandlerArray_setHandler(h, (OTF_FunctionPointer *)fn, type)

int main(int argc, char **argv)
{
    OTF_FileManager *m;
    OTF_Reader *r;
    OTF_HandlerArray *h;
    OTF_MasterControl *mc;
    const char *stub;
    int ai = 1;

    for (; ai < argc && argv[ai][0] == '-'; ai++) {
        if (strcmp(argv[ai], "-d") == 0) print_events = 0;
        if (strcmp(argv[ai], "-e") == 0) print_defs = 0;
    }
    if (ai >= argc) {
        fprintf(stderr, "usage: refdump [-d] [-e] STUB\n");
        return 2;
    }
    stub = argv[ai];
    m = OTF_FileManager_open(100);
    r = OTF_Reader_open(stub, m);
    if (!r) {
        fprintf(stderr, "refdump: cannot open %s\n", stub);
        return 1;
    }
    h = OTF_HandlerArray_open();
    H(OTF_DEFTIMERRESOLUTION_RECORD, def_timer);
    H(OTF_DEFCREATOR_RECORD, def_creator);
    H(OTF_DEFINITIONCOMMENT_RECORD, def_comment);
    H(OTF_DEFPROCESS_RECORD, def_process);
    H(OTF_DEFPROCESSGROUP_RECORD, def_pgroup);
    H(OTF_DEFFUNCTIONGROUP_RECORD, def_fgroup);
    H(OTF_DEFFUNCTION_RECORD, def_function);
    H(OTF_DEFSCLFILE_RECORD, def_sclfile);
    H(OTF_DEFSCL_RECORD, def_scl);
    H(OTF_DEFCOLLOP_RECORD, def_coll);
    H(OTF_ENTER_RECORD, ev_enter);
    H(OTF_LEAVE_RECORD, ev_leave);
    H(OTF_SEND_RECORD, ev_send);
    H(OTF_RECEIVE_RECORD, ev_recv);
    H(OTF_BEGINCOLLOP_RECORD, ev_collbegin);
    H(OTF_ENDCOLLOP_RECORD, ev_collend);
    H(OTF_BEGINPROCESS_RECORD, ev_begin);
    H(OTF_ENDPROCESS_RECORD, ev_end);
    if (OTF_Reader_readDefinitions(r, h) == OTF_READ_ERROR) {
        fprintf(stderr, "refdump: cannot read definitions\n");
        return 1;
    }
    if (print_events && OTF_Reader_readEvents(r, h) == OTF_READ_ERROR) {
        fprintf(stderr, "refdump: cannot read events\n");
        return 1;
    }
    OTF_HandlerArray_close(h);
    OTF_Reader_close(r);

    /* every stream on its own: sorted by time? */
    mc = OTF_MasterControl_new(m);
    if (!mc || OTF_MasterControl_read(mc, stub) != 1) {
        fprintf(stderr, "refdump: cannot read the master file\n");
        return 1;
    }
    h = OTF_HandlerArray_open();
    H(OTF_ENTER_RECORD, chk_enter);
    H(OTF_LEAVE_RECORD, chk_enter);
    H(OTF_SEND_RECORD, chk_msg);
    H(OTF_RECEIVE_RECORD, chk_msg);
    for (uint32_t i = 0;; i++) {
        OTF_MapEntry *e = OTF_MasterControl_getEntryByIndex(mc, i);
        OTF_RStream *rs;

        if (!e)
            break;
        rs = OTF_RStream_open(stub, e->argument, m);
        if (!rs)
            continue;
        last_time = 0;
        OTF_RStream_readEvents(rs, h);
        OTF_RStream_close(rs);
    }
    OTF_HandlerArray_close(h);
    OTF_MasterControl_close(mc);
    OTF_FileManager_close(m);
    if (unsorted) {
        fprintf(stderr, "refdump: %d events out of time order within a stream\n", unsorted);
        return 1;
    }
    return 0;
}
