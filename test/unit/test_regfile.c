/*
 * test_regfile.c — Check suite for lib/util/regfile.h: only regular files
 * are opened, nothing else is waited on or touched, and the refusal says
 * what the file is.  A FIFO without a writer would block open(2) for ever:
 * Check's per-test timeout turns such a hang into a failure.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/regfile.h"

static char dir[64];

static const char *path(const char *name)
{
    static char buf[128];

    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_regfile.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(regular_files_open_as_asked)
{
    const char *kind = "x";
    int fd = vftr_open_regular(path("new"), O_WRONLY | O_CREAT | O_TRUNC, 0600, &kind);

    ck_assert_int_ge(fd, 0);
    ck_assert_ptr_null(kind);
    ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);  /* as asked: blocking */
    ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    ck_assert_int_eq(write(fd, "abc", 3), 3);
    close(fd);
    fd = vftr_open_regular(path("new"), O_RDONLY, 0, NULL);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(vftr_open_regular(path("none"), O_RDONLY, 0, &kind), -ENOENT);
    ck_assert_ptr_null(kind);
}
END_TEST

START_TEST(other_kinds_are_refused_without_waiting)
{
    const char *kind = NULL;
    FILE *f;

    ck_assert_int_eq(mkfifo(path("fifo"), 0600), 0);
    ck_assert_int_eq(vftr_open_regular(path("fifo"), O_RDONLY, 0, &kind), -ENODEV);
    ck_assert_str_eq(kind, "a FIFO");
    ck_assert_int_eq(vftr_open_regular(path("fifo"), O_WRONLY | O_CREAT | O_TRUNC, 0600, &kind),
                     -ENODEV);
    ck_assert_str_eq(kind, "a FIFO");
    ck_assert_int_eq(vftr_open_regular(dir, O_RDONLY, 0, &kind), -EISDIR);
    ck_assert_str_eq(kind, "a directory");
    ck_assert_int_eq(vftr_open_regular("/dev/null", O_WRONLY, 0, &kind), -ENODEV);
    ck_assert_str_eq(kind, "a character device");
    ck_assert_int_eq(symlink("/dev/null", path("link")), 0);
    ck_assert_int_eq(vftr_open_regular(path("link"), O_RDONLY, 0, &kind), -ENODEV);
    f = vftr_fopen_regular(path("fifo"), "r", &kind);
    ck_assert_ptr_null(f);
    ck_assert_int_eq(errno, ENODEV);
    ck_assert_str_eq(kind, "a FIFO");
    f = vftr_fopen_regular(path("text"), "w", &kind);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs("hello\n", f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}
END_TEST

static Suite *regfile_suite(void)
{
    Suite *s = suite_create("regfile");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, regular_files_open_as_asked);
    tcase_add_test(tc, other_kinds_are_refused_without_waiting);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(regfile_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
