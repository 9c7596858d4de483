/* test_formats.c — lib/model's format pieces that have figures of their
 * own: otf2map (collective operations both ways, paradigms, region roles,
 * from OTF2's enum values as libotf2's headers give them) and winstate (a
 * window's state handed over, also when no event falls in the window). */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <otf2/otf2.h>

#include "model/otf2map.h"
#include "model/winstate.h"

START_TEST(collops)
{
    /* vftr's capture numbering (lib/vfd/ext.c): MPI_Barrier 1, MPI_Allreduce 4 */
    ck_assert_int_eq(vftr_otf2_collop_of_name("MPI_Barrier"), OTF2_COLLECTIVE_OP_BARRIER);
    ck_assert_int_eq(vftr_otf2_collop_of_name("mpi_allreduce"), OTF2_COLLECTIVE_OP_ALLREDUCE);
    ck_assert_int_eq(vftr_otf2_collop_of_name("Exscan"), OTF2_COLLECTIVE_OP_EXSCAN);
    ck_assert_int_eq(vftr_otf2_collop_of_name("MPI_Send"), -1);
    ck_assert_int_eq(vftr_otf2_collop_of_name(NULL), -1);
    ck_assert_uint_eq(vftr_otf2_collop_token(OTF2_COLLECTIVE_OP_BARRIER), 1);
    ck_assert_uint_eq(vftr_otf2_collop_token(OTF2_COLLECTIVE_OP_ALLREDUCE), 4);
    ck_assert_str_eq(vftr_otf2_collop_name(OTF2_COLLECTIVE_OP_ALLREDUCE), "MPI_Allreduce");
    /* operations capture never records: tokens of their own, OTF2's names */
    ck_assert_uint_eq(vftr_otf2_collop_token(OTF2_COLLECTIVE_OP_ALLOCATE), 100 + 19);
    ck_assert_str_eq(vftr_otf2_collop_name(OTF2_COLLECTIVE_OP_ALLOCATE), "OTF2 allocate");
    /* every operation both ways */
    for (int op = OTF2_COLLECTIVE_OP_BARRIER; op <= OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK; op++)
        ck_assert_int_eq(vftr_otf2_collop_of_name(vftr_otf2_collop_name(op)), op);
}
END_TEST

START_TEST(roles)
{
    ck_assert_int_eq(vftr_otf2_paradigm_of_group("MPI"), OTF2_PARADIGM_MPI);
    ck_assert_int_eq(vftr_otf2_paradigm_of_group("OpenMP"), OTF2_PARADIGM_OPENMP);
    ck_assert_int_eq(vftr_otf2_paradigm_of_group("user code"), OTF2_PARADIGM_USER);
    ck_assert_int_eq(vftr_otf2_paradigm_of_group(NULL), OTF2_PARADIGM_USER);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_OPENMP, "omp parallel @heat.c:12"),
                     OTF2_REGION_ROLE_PARALLEL);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_OPENMP, "omp barrier @heat.c:13"),
                     OTF2_REGION_ROLE_IMPLICIT_BARRIER);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_OPENMP, "omp barrier (explicit) @h.c:1"),
                     OTF2_REGION_ROLE_BARRIER);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_OPENMP, "omp taskwait"),
                     OTF2_REGION_ROLE_TASK_WAIT);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_OPENMP, "omp taskloop @x.c:3"),
                     OTF2_REGION_ROLE_LOOP);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_MPI, "MPI_Bcast"),
                     OTF2_REGION_ROLE_COLL_ONE2ALL);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_MPI, "MPI_Iallreduce"),
                     OTF2_REGION_ROLE_COLL_ALL2ALL);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_MPI, "MPI_Isend"),
                     OTF2_REGION_ROLE_POINT2POINT);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_MPI, "MPI_Init"),
                     OTF2_REGION_ROLE_FUNCTION);
    ck_assert_int_eq(vftr_otf2_region_role(OTF2_PARADIGM_USER, "MPI_Bcast"),
                     OTF2_REGION_ROLE_FUNCTION);
}
END_TEST

struct seen {
    int frames, enters;
    uint32_t fn[4];
    uint64_t enter[4];
};

static int frame(void *arg, uint32_t p, uint32_t f, uint64_t enter, uint32_t depth)
{
    struct seen *s = arg;

    (void)p;
    ck_assert_uint_eq(depth, (uint32_t)s->frames + 1);
    s->fn[s->frames] = f;
    s->enter[s->frames++] = enter;
    return 0;
}

static int enter(void *arg, uint64_t t, uint32_t p, uint32_t f)
{
    (void)t, (void)p, (void)f;
    ((struct seen *)arg)->enters++;
    return 0;
}

static int feed(struct vftr_winstate *ws)
{
    /* process 1: main 0..100 { work 10..20, work 90..95 } */
    static const struct { uint64_t t; uint32_t type, f; } ev[] = {
        { 0, VFTR_VFDCONV_ENTER, 1 }, { 10, VFTR_VFDCONV_ENTER, 2 },
        { 20, VFTR_VFDCONV_LEAVE, 2 }, { 90, VFTR_VFDCONV_ENTER, 2 },
        { 95, VFTR_VFDCONV_LEAVE, 2 }, { 100, VFTR_VFDCONV_LEAVE, 1 },
    };

    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        struct vftr_vfdconv_event e = { .time = ev[i].t, .type = ev[i].type, .process = 1,
                                        .function = ev[i].f };
        int rc = vftr_winstate_event(ws, &e);

        if (rc == VFTR_WINSTATE_STOP)
            return ws->hrc;           /* the window's end */
        if (rc)
            return rc;
    }
    return vftr_winstate_finish(ws);
}

START_TEST(window_state)
{
    struct vftr_window_handler h;
    struct vftr_window_stats st;
    struct vftr_winstate ws;
    struct seen s;

    /* [12, 18): main and work under way at 12; no event inside (the
     * state must still come: failed before end_at_b) */
    memset(&s, 0, sizeof s);
    memset(&st, 0, sizeof st);
    h = (struct vftr_window_handler){ .arg = &s, .open_frame = frame, .enter = enter };
    vftr_winstate_init(&ws, &h, NULL, 12, 18, 1, &st);
    ck_assert_int_eq(feed(&ws), 0);
    ck_assert_int_eq(s.frames, 2);
    ck_assert_uint_eq(s.fn[0], 1);
    ck_assert_uint_eq(s.enter[0], 0);
    ck_assert_uint_eq(s.fn[1], 2);
    ck_assert_uint_eq(s.enter[1], 10);
    ck_assert_int_eq(s.enters, 0);
    vftr_winstate_release(&ws);

    /* [30, 92): main alone at 30 (work left at 20), the enter at 90 inside */
    memset(&s, 0, sizeof s);
    vftr_winstate_init(&ws, &h, NULL, 30, 92, 1, &st);
    ck_assert_int_eq(feed(&ws), 0);
    ck_assert_int_eq(s.frames, 1);
    ck_assert_int_eq(s.enters, 1);
    vftr_winstate_release(&ws);

    /* after the last event: main is over, nothing under way */
    memset(&s, 0, sizeof s);
    vftr_winstate_init(&ws, &h, NULL, 200, 300, 1, &st);
    ck_assert_int_eq(feed(&ws), 0);
    ck_assert_int_eq(s.frames, 0);
    vftr_winstate_release(&ws);

    /* the events only: no state */
    memset(&s, 0, sizeof s);
    vftr_winstate_init(&ws, &h, NULL, 15, 50, 0, &st);
    ck_assert_int_eq(feed(&ws), 0);
    ck_assert_int_eq(s.frames, 0);
    vftr_winstate_release(&ws);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("formats");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, collops);
    tcase_add_test(tc, roles);
    tcase_add_test(tc, window_state);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
