/*
 * test_capture_rank.c — Check suite for the rank-before-MPI_Init lookup of
 * libvftrcapture (capture/rank.c): each launcher's variables, their order
 * of precedence, and values that must be ignored.
 */
#include <check.h>
#include <stdlib.h>

#include "capture.h"

struct case_ {
    const char *env[6];
    int found, rank, size;   /* expected; rank/size -7 = left unchanged */
};

static void run(const struct case_ *c)
{
    int rank = -7, size = -7;
    int found = vftr_rank_from_env((char *const *)c->env, &rank, &size);

    ck_assert_int_eq(found, c->found);
    ck_assert_int_eq(rank, c->rank);
    ck_assert_int_eq(size, c->size);
}

START_TEST(each_launcher)
{
    static const struct case_ cases[] = {
        { { "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=8", NULL }, 1, 3, 8 },
        { { "PMIX_RANK=5", "PMIX_SIZE=6", NULL }, 1, 5, 6 },
        { { "PMIX_RANK=5", NULL }, 1, 5, -7 },          /* size unknown: unchanged */
        { { "PMI_RANK=0", "PMI_SIZE=2", NULL }, 1, 0, 2 },
        { { "MV2_COMM_WORLD_RANK=1", "MV2_COMM_WORLD_SIZE=4", NULL }, 1, 1, 4 },
        { { "SLURM_PROCID=11", "SLURM_NTASKS=12", NULL }, 1, 11, 12 },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run(&cases[i]);
}
END_TEST

/* The MPI launcher's own variables beat the resource manager's (mpirun
 * inside a Slurm allocation: SLURM_PROCID describes the step). */
START_TEST(mpi_launcher_beats_slurm)
{
    static const struct case_ c = {
        { "SLURM_PROCID=0", "SLURM_NTASKS=1", "OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=4",
          NULL },
        1, 2, 4,
    };

    run(&c);
}
END_TEST

START_TEST(nothing_set_or_garbage)
{
    static const struct case_ cases[] = {
        { { "HOME=/root", "PATH=/bin", NULL }, 0, -7, -7 },
        { { "OMPI_COMM_WORLD_RANK=", NULL }, 0, -7, -7 },
        { { "OMPI_COMM_WORLD_RANK=-1", NULL }, 0, -7, -7 },
        { { "OMPI_COMM_WORLD_RANK=3x", NULL }, 0, -7, -7 },
        { { "OMPI_COMM_WORLD_RANK=99999999999", NULL }, 0, -7, -7 },
        { { "OMPI_COMM_WORLD_RANKX=3", "XPMI_RANK=1", NULL }, 0, -7, -7 },   /* near misses */
        /* a bad value of one launcher falls through to the next */
        { { "PMIX_RANK=abc", "SLURM_PROCID=4", "SLURM_NTASKS=9", NULL }, 1, 4, 9 },
        /* a size not above the rank is not believed */
        { { "PMI_RANK=4", "PMI_SIZE=4", NULL }, 1, 4, -7 },
        { { NULL }, 0, -7, -7 },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run(&cases[i]);
}
END_TEST

static Suite *rank_suite(void)
{
    Suite *s = suite_create("capture_rank");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, each_launcher);
    tcase_add_test(tc, mpi_launcher_beats_slurm);
    tcase_add_test(tc, nothing_set_or_garbage);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rank_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
