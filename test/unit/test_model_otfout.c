/*
 * test_model_otfout.c — Check suite for lib/model/otfout, the OTF 1.x
 * record writers vfd2otf and vftr-convert's OTF sink share: the layout of
 * processes on streams (worked out by hand from i * m / ranks + 1), and the
 * rules of the definitions read back through lib/otf's reader: the order of
 * the records, the sampled capture's marks on precise functions only, the
 * counters in one group, a collective's class from its name and the name of
 * one without, the processes by rank and thread number whatever order
 * they come in, and RMAEnd's remote as OTF defines it.  Both routes' output against each other and the reference
 * otfprint: test/integration/otf_routes.sh.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/otfout.h"
#include "model/vfdconv.h"

/* -------------------------------------------------------------- streams */

/* ranks 0 (two threads), 1, 2 (two threads), 3, 4: seven processes */
static const struct vftr_source_proc procs[] = {
    { 1, 0, 0, 0, 0, "Rank 0" },
    { 1048577, 1, 0, 1, 0, "Rank 0 Thread 1" },
    { 2, 0, 1, 0, 0, "Rank 1" },
    { 3, 0, 2, 0, 0, "Rank 2" },
    { 1048579, 3, 2, 1, 0, "Rank 2 Thread 1" },
    { 4, 0, 3, 0, 0, "Rank 3" },
    { 5, 0, 4, 0, 0, "Rank 4" },
};
#define NPROCS (sizeof procs / sizeof procs[0])

START_TEST(streams_two_of_five_ranks)
{
    uint32_t s[NPROCS];
    /* rank index i -> i * 2 / 5 + 1: 0, 1, 2 -> 1; 3, 4 -> 2 */
    const uint32_t want[NPROCS] = { 1, 1, 1, 1, 1, 2, 2 };

    ck_assert_uint_eq(vftr_otfout_streams(procs, NPROCS, 0, 2, s), 2);
    ck_assert_mem_eq(s, want, sizeof want);
    /* the caller's count of ranks gives the same */
    memset(s, 0, sizeof s);
    ck_assert_uint_eq(vftr_otfout_streams(procs, NPROCS, 5, 2, s), 2);
    ck_assert_mem_eq(s, want, sizeof want);
}
END_TEST

START_TEST(streams_one_per_rank)
{
    uint32_t s[NPROCS];
    const uint32_t want[NPROCS] = { 1, 1, 2, 3, 3, 4, 5 };

    /* m 0 and m above the ranks: one stream per rank, threads with it */
    ck_assert_uint_eq(vftr_otfout_streams(procs, NPROCS, 0, 0, s), 5);
    ck_assert_mem_eq(s, want, sizeof want);
    memset(s, 0, sizeof s);
    ck_assert_uint_eq(vftr_otfout_streams(procs, NPROCS, 0, 9, s), 5);
    ck_assert_mem_eq(s, want, sizeof want);
    ck_assert_uint_eq(vftr_otfout_streams(procs, 0, 0, 3, s), 0);
}
END_TEST

/* ---------------------------------------------------------- definitions */

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_otfout.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* What the reader saw: one line per record, in order. */
static char seen[4096];

static void saw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void saw(const char *fmt, ...)
{
    size_t l = strlen(seen);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(seen + l, sizeof seen - l, fmt, ap);
    va_end(ap);
}

static int precise_mark(OTF_KeyValueList *kv)
{
    uint8_t v = 0;

    return kv && OTF_KeyValueList_getUint8(kv, VFTR_VFDCONV_KEY_PRECISE, &v) == 0 ? v : 0;
}

static int on_creator(void *u, uint32_t s, const char *creator, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("creator %s\n", creator);
    return OTF_RETURN_OK;
}

static int on_comment(void *u, uint32_t s, const char *comment, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("comment %s\n", comment);
    return OTF_RETURN_OK;
}

static int on_timer(void *u, uint32_t s, uint64_t ticks, OTF_KeyValueList *kv)
{
    uint64_t interval = 0;

    (void)u, (void)s;
    if (kv)
        OTF_KeyValueList_getUint64(kv, VFTR_VFDCONV_KEY_INTERVAL, &interval);
    saw("timer %llu interval %llu\n", (unsigned long long)ticks, (unsigned long long)interval);
    return OTF_RETURN_OK;
}

static int on_process(void *u, uint32_t s, uint32_t p, const char *name, uint32_t parent,
                      OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("process %u %s %u\n", p, name, parent);
    return OTF_RETURN_OK;
}

static int on_procgroup(void *u, uint32_t s, uint32_t g, const char *name, uint32_t n,
                        const uint32_t *procs_, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("procgroup %u %s %u:%u\n", g, name, n, n ? procs_[0] : 0);
    return OTF_RETURN_OK;
}

static int on_funcgroup(void *u, uint32_t s, uint32_t g, const char *name, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("funcgroup %u %s\n", g, name);
    return OTF_RETURN_OK;
}

static int on_sclfile(void *u, uint32_t s, uint32_t f, const char *name, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("sclfile %u %s\n", f, name);
    return OTF_RETURN_OK;
}

static int on_scl(void *u, uint32_t s, uint32_t scl, uint32_t file, uint32_t line,
                  OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("scl %u %u:%u\n", scl, file, line);
    return OTF_RETURN_OK;
}

static int on_function(void *u, uint32_t s, uint32_t f, const char *name, uint32_t group,
                       uint32_t scl, OTF_KeyValueList *kv)
{
    (void)u, (void)s;
    saw("function %u %s %u %u precise %d\n", f, name, group, scl, precise_mark(kv));
    return OTF_RETURN_OK;
}

static int on_collop(void *u, uint32_t s, uint32_t op, const char *name, uint32_t type,
                     OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("collop %u %s %u\n", op, name, type);
    return OTF_RETURN_OK;
}

static int on_filegroup(void *u, uint32_t s, uint32_t g, const char *name, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("filegroup %u %s\n", g, name);
    return OTF_RETURN_OK;
}

static int on_file(void *u, uint32_t s, uint32_t f, const char *name, uint32_t group,
                   OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("file %u %s %u\n", f, name, group);
    return OTF_RETURN_OK;
}

static int on_ctrgroup(void *u, uint32_t s, uint32_t g, const char *name, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("countergroup %u %s\n", g, name);
    return OTF_RETURN_OK;
}

static int on_counter(void *u, uint32_t s, uint32_t c, const char *name, uint32_t props,
                      uint32_t group, const char *unit, OTF_KeyValueList *kv)
{
    (void)u, (void)s, (void)kv;
    saw("counter %u %s %u %u %s\n", c, name, props, group, unit);
    return OTF_RETURN_OK;
}

#define SET(h, fn, rec) \
    OTF_HandlerArray_setHandler(h, (OTF_FunctionPointer *)(void (*)(void))fn, rec)

/* Reads the definitions of dir/t.0.def into seen. */
static void read_back(void)
{
    char stub[128];
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_RStream *rs;
    OTF_HandlerArray *h = OTF_HandlerArray_open();

    snprintf(stub, sizeof stub, "%s/t", dir);
    rs = OTF_RStream_open(stub, 0, fm);
    ck_assert_ptr_nonnull(rs);
    SET(h, on_creator, OTF_DEFCREATOR_RECORD);
    SET(h, on_comment, OTF_DEFINITIONCOMMENT_RECORD);
    SET(h, on_timer, OTF_DEFTIMERRESOLUTION_RECORD);
    SET(h, on_process, OTF_DEFPROCESS_RECORD);
    SET(h, on_procgroup, OTF_DEFPROCESSGROUP_RECORD);
    SET(h, on_funcgroup, OTF_DEFFUNCTIONGROUP_RECORD);
    SET(h, on_sclfile, OTF_DEFSCLFILE_RECORD);
    SET(h, on_scl, OTF_DEFSCL_RECORD);
    SET(h, on_function, OTF_DEFFUNCTION_RECORD);
    SET(h, on_collop, OTF_DEFCOLLOP_RECORD);
    SET(h, on_filegroup, OTF_DEFFILEGROUP_RECORD);
    SET(h, on_file, OTF_DEFFILE_RECORD);
    SET(h, on_ctrgroup, OTF_DEFCOUNTERGROUP_RECORD);
    SET(h, on_counter, OTF_DEFCOUNTER_RECORD);
    seen[0] = 0;
    ck_assert_uint_ne(OTF_RStream_readDefinitions(rs, h), OTF_READ_ERROR);
    OTF_HandlerArray_close(h);
    OTF_RStream_close(rs);
    OTF_FileManager_close(fm);
}

/* Writes d as the definitions of dir/t. */
static void write_defs(const struct vftr_otfout_defs *d)
{
    char stub[128];
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_WStream *ws;

    snprintf(stub, sizeof stub, "%s/t", dir);
    ws = OTF_WStream_open(stub, 0, fm);
    ck_assert_ptr_nonnull(ws);
    vftr_otfout_setup(ws, 0, 0);
    ck_assert_int_eq(vftr_otfout_defs(ws, d), 0);
    ck_assert_int_eq(OTF_WStream_close(ws), 1);
    OTF_FileManager_close(fm);
}

static const uint32_t world[] = { 1, 2 };
static const struct vftr_source_comm comms[] = { { 1, "MPI_COMM_WORLD", 2, world } };
static const struct vftr_source_name groups[] = { { 1, "user code" }, { 2, "MPI" } };
static const char *scl_files[] = { "a.c" };
static struct { uint32_t file, line; } scl_locs[] = { { 1, 42 } };
static uint32_t func_scl[] = { 0, 1, 0 };
static const struct vftr_source_func funcs[] = {
    { .token = 1, .group = 1, .name = "main", .flags = VFTR_SOURCE_FN_PRECISE },
    { .token = 2, .group = 1, .name = "region", .flags = 0 },
    { .token = 3, .group = 2, .name = "MPI_Send", .flags = VFTR_SOURCE_FN_PRECISE },
};
/* 4: MPI_Allreduce (all-to-all); 99: no name */
static const struct vftr_source_name collops[] = { { 4, "MPI_Allreduce" }, { 99, NULL } };
static const struct vftr_source_name filegroups[] = { { 1, "POSIX I/O" } };
static const struct vftr_source_file files[] = { { 1, 1, "out.dat" } };
static const struct vftr_source_counter counters[] = {
    { 1, "page-faults", "#", OTF_COUNTER_TYPE_ACC | OTF_COUNTER_SCOPE_START },
};

static struct vftr_otfout_defs defs(double interval)
{
    static struct vftr_source_scls scls;

    scls.files = scl_files;
    scls.nfiles = 1;
    scls.locs = (void *)scl_locs;
    scls.nlocs = 1;
    scls.func_scl = func_scl;
    return (struct vftr_otfout_defs){
        .creator = "test", .comment = "a run", .resolution = 1000, .interval = interval,
        .procs = procs, .nprocs = 2, .comms = comms, .ncomms = 1, .groups = groups,
        .ngroups = 2, .scls = &scls, .funcs = funcs, .nfuncs = 3, .collops = collops,
        .ncollops = 2, .filegroups = filegroups, .nfilegroups = 1, .files = files,
        .nfiles = 1, .counters = counters, .ncounters = 1,
    };
}

START_TEST(definitions_in_order)
{
    struct vftr_otfout_defs d = defs(0);
    char want[2048];

    write_defs(&d);
    read_back();
    /* collective type 4: OTF_COLLECTIVE_TYPE_ALL2ALL; 0 for no name */
    snprintf(want, sizeof want,
             "creator test\ncomment a run\ntimer 1000 interval 0\n"
             "process 1 Rank 0 0\nprocess 1048577 Rank 0 Thread 1 1\n"
             "procgroup 1 MPI_COMM_WORLD 2:1\nfuncgroup 1 user code\nfuncgroup 2 MPI\n"
             "sclfile 1 a.c\nscl 1 1:42\n"
             "function 1 main 1 0 precise 0\nfunction 2 region 1 1 precise 0\n"
             "function 3 MPI_Send 2 0 precise 0\n"
             "collop 4 MPI_Allreduce 4\ncollop 99 collective 99 0\n"
             "filegroup 1 POSIX I/O\nfile 1 out.dat 1\n"
             "countergroup 1 counters\ncounter 1 page-faults %u 1 #\n",
             (unsigned)(OTF_COUNTER_TYPE_ACC | OTF_COUNTER_SCOPE_START));
    ck_assert_str_eq(seen, want);
}
END_TEST

/* A sampled capture: the interval (ns) on the timer record, the mark on
 * the precise functions only; no comment, no collectives, no counters
 * (and then no counter group). */
START_TEST(sampled_marks_and_optional_records)
{
    struct vftr_otfout_defs d = defs(0.0025);

    d.comment = NULL;
    d.ncollops = 0;
    d.ncounters = 0;
    write_defs(&d);
    read_back();
    ck_assert_ptr_nonnull(strstr(seen, "creator test\ntimer 1000 interval 2500000\nprocess 1 "));
    ck_assert_ptr_nonnull(strstr(seen, "function 1 main 1 0 precise 1\n"
                                       "function 2 region 1 1 precise 0\n"
                                       "function 3 MPI_Send 2 0 precise 1\n"
                                       "filegroup 1 POSIX I/O\nfile 1 out.dat 1\n"));
    ck_assert_ptr_null(strstr(seen, "comment"));
    ck_assert_ptr_null(strstr(seen, "collop"));
    ck_assert_ptr_null(strstr(seen, "counter"));
}
END_TEST

/* The processes by rank and thread number whatever order the caller's
 * list has (vfd2otf's engine lists a rank's threads as the run met them):
 * both routes write the same DefProcess records in the same order. */
START_TEST(processes_by_rank_and_thread)
{
    static const struct vftr_source_proc met[] = {
        { 3145729, 1, 0, 3, 0, "Rank 0 Thread 3" },
        { 2, 0, 1, 0, 0, "Rank 1" },
        { 1048577, 1, 0, 1, 0, "Rank 0 Thread 1" },
        { 1, 0, 0, 0, 0, "Rank 0" },
        { 2097153, 1, 0, 2, 0, "Rank 0 Thread 2" },
    };
    struct vftr_otfout_defs d = defs(0);

    d.procs = met;
    d.nprocs = sizeof met / sizeof met[0];
    write_defs(&d);
    read_back();
    ck_assert_ptr_nonnull(strstr(seen, "process 1 Rank 0 0\n"
                                       "process 1048577 Rank 0 Thread 1 1\n"
                                       "process 2097153 Rank 0 Thread 2 1\n"
                                       "process 3145729 Rank 0 Thread 3 1\n"
                                       "process 2 Rank 1 0\nprocgroup "));
}
END_TEST

/* ------------------------------------------------------------------ RMA */

/* RMAEnd's remote as OTF defines it (OTF_Writer.h: "if >0, ends RMA
 * transfers on process <remote>, instead of this <process>"): 0 for an end
 * on the process that began the transfer, that process for an end on
 * another thread; the target is the put's only.  The bytes, worked out by
 * hand from otf-format.md's short format (process 1, its thread 3). */
START_TEST(rma_end_remote_is_whose)
{
    static const struct vftr_window_rma put = { VFTR_WINDOW_RMA_PUT, 3, 2, 1, 7, 16, 5 };
    static const struct vftr_window_rma own = { VFTR_WINDOW_RMA_END, 1, 2, 1, 7, 0, 4 };
    static const struct vftr_window_rma other = { VFTR_WINDOW_RMA_END, 3, 2, 1, 7, 0, 5 };
    char stub[128], path[160], text[512] = "";
    OTF_FileManager *fm = OTF_FileManager_open(4);
    OTF_WStream *ws;
    FILE *f;
    size_t n;

    snprintf(stub, sizeof stub, "%s/t", dir);
    ws = OTF_WStream_open(stub, 1, fm);
    ck_assert_ptr_nonnull(ws);
    vftr_otfout_setup(ws, 0, 0);
    ck_assert_int_eq(vftr_otfout_rma(ws, 0x10, 3, &put), 0);
    ck_assert_int_eq(vftr_otfout_rma(ws, 0x20, 1, &own), 0);
    ck_assert_int_eq(vftr_otfout_rma(ws, 0x20, 1, &other), 0);
    ck_assert_int_eq(OTF_WStream_close(ws), 1);
    OTF_FileManager_close(fm);
    snprintf(path, sizeof path, "%s/t.1.events", dir);
    ck_assert_ptr_nonnull(f = fopen(path, "r"));
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    ck_assert_str_eq(text, "10\n*3\nK3Y8V5\nT3P2C1T7L10\n"
                           "20\n*1\nK3Y8V4\nM0C1T7\nK3Y8V5\nM3C1T7\n20\n*1\n");
}
END_TEST

static Suite *otfout_suite(void)
{
    Suite *s = suite_create("otfout");
    TCase *tc = tcase_create("streams");
    TCase *td = tcase_create("definitions");

    tcase_add_test(tc, streams_two_of_five_ranks);
    tcase_add_test(tc, streams_one_per_rank);
    suite_add_tcase(s, tc);
    tcase_add_checked_fixture(td, make_dir, remove_dir);
    tcase_add_test(td, definitions_in_order);
    tcase_add_test(td, sampled_marks_and_optional_records);
    tcase_add_test(td, rma_end_remote_is_whose);
    tcase_add_test(td, processes_by_rank_and_thread);
    suite_add_tcase(s, td);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(otfout_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
