/*
 * test_processlist.c — Check suite for the reader's process list
 * (lib/otf/processlist.c, otf_processlist.h).
 *
 * Values marked "reference" come from calling the reference OTF 1.12.5's
 * exported OTF_ProcessList_* functions (and OTF_Reader_get/setProcessStatus)
 * on the same master control.  The randomised tests compare both internal
 * representations (dense array, hash table) with a plain linear-search model
 * written here.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "OTF_Errno.h"
#include "OTF_FileManager.h"
#include "OTF_MasterControl.h"
#include "otf_processlist.h"

static OTF_FileManager *manager;

static void setup(void)
{
    manager = OTF_FileManager_open(4);
    ck_assert_ptr_nonnull(manager);
}

static void teardown(void)
{
    OTF_FileManager_close(manager);
}

/* A master control with the given processes, spread over three streams. */
static OTF_MasterControl *make_mc(const uint32_t *procs, size_t n)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_ptr_nonnull(mc);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(OTF_MasterControl_append(mc, (uint32_t)(i % 3) + 1, procs[i]), 1);
    return mc;
}

START_TEST(test_reference_values)
{
    /* reference: streams 1:{5,9} 2:{2} */
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 5), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 9), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 2, 2), 1);

    OTF_ProcessList list;
    ck_assert_int_eq(OTF_ProcessList_init(&list, mc), 1);
    ck_assert_uint_eq(list.n, 3);
    static const struct { uint32_t p; uint8_t status; uint32_t index; } q[] = {
        { 2, 1, 0 }, { 5, 1, 1 }, { 9, 1, 2 }, { 1, 0, UINT32_MAX }, { 3, 0, UINT32_MAX },
        { 0, 0, UINT32_MAX }, { UINT32_MAX, 0, UINT32_MAX },
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, q[i].p), q[i].status);
        ck_assert_uint_eq(OTF_ProcessList_getIndex(&list, q[i].p), q[i].index);
    }
    ck_assert_int_eq(OTF_ProcessList_setStatus(&list, 5, 0), 1);
    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, 5), 0);
    /* reference: a process that is not in the trace cannot be enabled */
    ck_assert_int_eq(OTF_ProcessList_setStatus(&list, 3, 1), 0);
    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, 3), 0);
    /* reference: statuses are stored verbatim */
    ck_assert_int_eq(OTF_ProcessList_setStatus(&list, 5, 7), 1);
    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, 5), 7);
    ck_assert_int_eq(OTF_ProcessList_setStatusAll(&list, 9), 1);
    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, 2), 9);
    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, 5), 9);
    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, 3), 0);
    ck_assert_int_eq(OTF_ProcessList_setStatusAll(&list, 0), 1);
    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, 9), 0);
    ck_assert_int_eq(OTF_ProcessList_finalize(&list), 1);
    ck_assert_uint_eq(list.n, 0);
    ck_assert_ptr_null(list.processes);
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_extreme_ids)
{
    /* reference: process ids 0 and ffffffff are ordinary processes */
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, UINT32_MAX), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 0), 1);
    struct vftr_otf_proclist list;
    ck_assert_int_eq(vftr_otf_proclist_init(&list, mc), 0);
    ck_assert_ptr_nonnull(list.slots); /* ids too far apart for an array */
    ck_assert_uint_eq(vftr_otf_proclist_index(&list, UINT32_MAX), 1);
    ck_assert_uint_eq(vftr_otf_proclist_index(&list, 0), 0);
    ck_assert_uint_eq(vftr_otf_proclist_status(&list, UINT32_MAX), 1);
    ck_assert_uint_eq(vftr_otf_proclist_status(&list, 0), 1);
    ck_assert_uint_eq(vftr_otf_proclist_status(&list, 1), 0);
    ck_assert_int_eq(vftr_otf_proclist_set(&list, UINT32_MAX, 255), 0);
    ck_assert_uint_eq(vftr_otf_proclist_status(&list, UINT32_MAX), 255);
    ck_assert_int_eq(vftr_otf_proclist_set(&list, 1, 1), -ENOENT);
    vftr_otf_proclist_release(&list);
    vftr_otf_proclist_release(&list); /* idempotent */
    vftr_otf_proclist_release(NULL);
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_errors)
{
    struct vftr_otf_proclist list;
    /* reference: a master control without processes is an error */
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    otf_errno = OTF_NO_ERROR;
    ck_assert_int_eq(vftr_otf_proclist_init(&list, mc), -ENOENT);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_uint_eq(list.n, 0);
    ck_assert_uint_eq(vftr_otf_proclist_status(&list, 1), 0);
    ck_assert_int_eq(OTF_ProcessList_init(&list, mc), 0);
    vftr_otf_proclist_release(&list);

    ck_assert_int_eq(vftr_otf_proclist_init(&list, NULL), -EINVAL);
    ck_assert_int_eq(vftr_otf_proclist_init(NULL, mc), -EINVAL);
    ck_assert_int_eq(OTF_ProcessList_init(NULL, mc), 0);

    /* a program broke the order of rmap: refuse rather than mis-answer */
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 4), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 8), 1);
    mc->rmap[0].argument = 9;
    ck_assert_int_eq(vftr_otf_proclist_init(&list, mc), -EINVAL);
    ck_assert_ptr_null(list.processes);

    ck_assert_uint_eq(OTF_ProcessList_getStatus(NULL, 1), 0);
    ck_assert_int_eq(OTF_ProcessList_setStatus(NULL, 1, 1), 0);
    ck_assert_int_eq(OTF_ProcessList_setStatusAll(NULL, 1), 0);
    ck_assert_uint_eq(OTF_ProcessList_getIndex(NULL, 1), UINT32_MAX);
    ck_assert_int_eq(OTF_ProcessList_finalize(NULL), 1);
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_representation)
{
    /* dense when the largest id is below max(65536, 16 * n) */
    static const struct { uint32_t first, step, count; int dense; } cases[] = {
        { 1, 1, 4, 1 },            /* MPI ranks */
        { 1, 1, 100000, 1 },       /* many ranks */
        { 1, 1000, 66, 1 },        /* max 65001 < 65536 */
        { 1, 1000, 67, 0 },        /* max 66001, n = 67 */
        { 1, 1 << 16, 64, 0 },     /* thread in the high half */
        { 1 << 20, 1, 70000, 1 },  /* max 1118575 < 16 * 70000 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint32_t *procs = malloc(cases[c].count * sizeof *procs);
        for (uint32_t i = 0; i < cases[c].count; i++)
            procs[i] = cases[c].first + i * cases[c].step;
        OTF_MasterControl *mc = make_mc(procs, cases[c].count);
        struct vftr_otf_proclist list;
        ck_assert_int_eq(vftr_otf_proclist_init(&list, mc), 0);
        ck_assert_msg((list.slots == NULL) == cases[c].dense, "case %zu", c);
        for (uint32_t i = 0; i < cases[c].count; i++) {
            ck_assert_uint_eq(vftr_otf_proclist_status(&list, procs[i]), 1);
            ck_assert_uint_eq(vftr_otf_proclist_index(&list, procs[i]), i);
        }
        ck_assert_uint_eq(vftr_otf_proclist_status(&list, cases[c].first - 1), 0);
        ck_assert_uint_eq(vftr_otf_proclist_status(&list, procs[cases[c].count - 1] + 1), 0);
        vftr_otf_proclist_release(&list);
        OTF_MasterControl_close(mc);
        free(procs);
    }
}
END_TEST

static uint32_t rng_state = 88172645u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* The model: unsorted arrays searched linearly. */
struct model {
    uint32_t *procs;
    uint8_t *status;
    size_t n;
};

static long model_find(const struct model *m, uint32_t p)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->procs[i] == p)
            return (long)i;
    return -1;
}

START_TEST(test_against_model)
{
    /* id layouts: small dense, clustered high bits, multiples of 2^20,
     * random 32-bit */
    for (int layout = 0; layout < 4; layout++) {
        for (int round = 0; round < 5; round++) {
            struct model m = { 0 };
            size_t want = 1 + rng() % 2000;
            m.procs = malloc(want * sizeof *m.procs);
            m.status = malloc(want);
            while (m.n < want) {
                uint32_t p;
                switch (layout) {
                case 0: p = rng() % 5000; break;
                case 1: p = (rng() % 64) << 16 | (rng() % 64); break;
                case 2: p = (rng() % 4096) << 20; break;
                default: p = rng(); break;
                }
                if (model_find(&m, p) < 0) {
                    m.procs[m.n] = p;
                    m.status[m.n++] = 1;
                }
            }
            OTF_MasterControl *mc = make_mc(m.procs, m.n);
            struct vftr_otf_proclist list;
            ck_assert_int_eq(vftr_otf_proclist_init(&list, mc), 0);
            ck_assert_uint_eq(list.n, m.n);
            for (int op = 0; op < 20000; op++) {
                /* half of the probes hit a member */
                uint32_t miss = layout == 2 ? rng() << 20 : rng() % 6000;
                uint32_t p = rng() % 2 ? m.procs[rng() % m.n] : miss;
                long at = model_find(&m, p);
                uint8_t st = (uint8_t)rng();
                switch (rng() % 8) {
                case 0:
                    ck_assert_int_eq(vftr_otf_proclist_set(&list, p, st), at < 0 ? -ENOENT : 0);
                    if (at >= 0)
                        m.status[at] = st;
                    break;
                case 1:
                    if (rng() % 64 == 0) {
                        vftr_otf_proclist_set_all(&list, st);
                        memset(m.status, st, m.n);
                    }
                    break;
                case 2: {
                    uint32_t idx = vftr_otf_proclist_index(&list, p);
                    if (at < 0) {
                        ck_assert_uint_eq(idx, UINT32_MAX);
                    } else {
                        ck_assert_uint_lt(idx, list.n);
                        ck_assert_uint_eq(list.processes[idx], p);
                    }
                    break;
                }
                default: {
                    uint8_t expect = at < 0 ? 0 : m.status[at];
                    ck_assert_uint_eq(vftr_otf_proclist_status(&list, p), expect);
                    ck_assert_uint_eq(OTF_ProcessList_getStatus(&list, p), expect);
                }
                }
            }
            for (size_t i = 1; i < list.n; i++)
                ck_assert_uint_lt(list.processes[i - 1], list.processes[i]);
            vftr_otf_proclist_release(&list);
            OTF_MasterControl_close(mc);
            free(m.procs);
            free(m.status);
        }
    }
}
END_TEST

START_TEST(test_from_read_file)
{
    /* The list sees exactly the processes of a master file: others are
     * skipped, as the reference reader skips them. */
    char dir[] = "/tmp/vftr_test_pl_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char stub[64], path[80];
    snprintf(stub, sizeof stub, "%s/t", dir);
    snprintf(path, sizeof path, "%s.otf", stub);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("1:5,9\n2:2\n", f);
    fclose(f);
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub), 1);
    struct vftr_otf_proclist list;
    ck_assert_int_eq(vftr_otf_proclist_init(&list, mc), 0);
    OTF_MasterControl_close(mc); /* the list keeps no pointer into mc */
    uint8_t seen[12] = { 0 };
    for (uint32_t p = 0; p < 12; p++)
        seen[p] = vftr_otf_proclist_status(&list, p);
    static const uint8_t expect[12] = { 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0 };
    ck_assert_int_eq(memcmp(seen, expect, sizeof seen), 0);
    vftr_otf_proclist_release(&list);
    unlink(path);
    rmdir(dir);
}
END_TEST

static Suite *processlist_suite(void)
{
    Suite *s = suite_create("processlist");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_reference_values);
    tcase_add_test(tc, test_extreme_ids);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_representation);
    tcase_add_test(tc, test_against_model);
    tcase_add_test(tc, test_from_read_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(processlist_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
