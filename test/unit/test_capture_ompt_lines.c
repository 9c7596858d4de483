/*
 * test_capture_ompt_lines.c — Check suite for the source line resolver of
 * the OpenMP tool (capture/ompt_lines.c, libdw).
 *
 * Expected lines come from the compiler (__LINE__ on the line of a call
 * whose return address is resolved), not from a DWARF reader: in this
 * suite's own executable (PIE: resolved at its load bias), in a shared
 * library dlopened at an address the loader picks (test/omp/lines_lib.c,
 * built with -g by test/omp/module.mk), and in the same library built
 * without debug information (no line: -ENODATA naming the object).
 * Built without libdw the resolver must say ENOTSUP and nothing else.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompt_lines.h"

#ifndef LINES_DIR
#define LINES_DIR "."
#endif

#if defined(__has_include)
#if __has_include(<elfutils/libdwfl.h>)
#define HAVE_LIBDW 1
#endif
#endif

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && strcmp(s + n - k, suffix) == 0;
}

#ifdef HAVE_LIBDW

static __attribute__((noinline)) const void *return_address(void)
{
    return __builtin_extract_return_addr(__builtin_return_address(0));
}

typedef const void *probe_fn(int *line);

/* dlopens LINES_DIR/name and calls its lines_probe */
static const void *probe_library(const char *name, void **handle, int *line)
{
    char path[4096];
    probe_fn *probe;

    snprintf(path, sizeof path, "%s/%s", LINES_DIR, name);
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(*handle != NULL, "dlopen %s: %s", path, dlerror());
    *(void **)&probe = dlsym(*handle, "lines_probe");
    ck_assert_ptr_nonnull(probe);
    return probe(line);
}

START_TEST(own_executable)
{
    struct vftr_ompt_lines *l = vftr_ompt_lines_new();
    const char *file = NULL, *object = "x";
    uint32_t line = 0;
    int want;

    ck_assert_ptr_nonnull(l);
    const void *ra = return_address(); want = __LINE__;
    ck_assert_int_eq(vftr_ompt_lines_find(l, (uintptr_t)ra - 1, &file, &line, &object), 0);
    ck_assert_msg(ends_with(file, "/test_capture_ompt_lines.c"), "file %s", file);
    ck_assert_uint_eq(line, (uint32_t)want);
    ck_assert_ptr_null(object);
    /* asked again (the object is known now): the same answer */
    ck_assert_int_eq(vftr_ompt_lines_find(l, (uintptr_t)ra - 1, &file, &line, NULL), 0);
    ck_assert_uint_eq(line, (uint32_t)want);
    vftr_ompt_lines_free(l);
}
END_TEST

START_TEST(shared_library)
{
    struct vftr_ompt_lines *l = vftr_ompt_lines_new();
    const char *file = NULL;
    uint32_t line = 0;
    void *h;
    int want = 0;
    const void *ra = probe_library("liblines.so", &h, &want);

    ck_assert_ptr_nonnull(l);
    ck_assert_int_gt(want, 0);
    ck_assert_int_eq(vftr_ompt_lines_find(l, (uintptr_t)ra - 1, &file, &line, NULL), 0);
    ck_assert_msg(ends_with(file, "/lines_lib.c"), "file %s", file);
    ck_assert_uint_eq(line, (uint32_t)want);
    vftr_ompt_lines_free(l);
    dlclose(h);
}
END_TEST

START_TEST(no_debug_information)
{
    struct vftr_ompt_lines *l = vftr_ompt_lines_new();
    const char *file = "x", *object = NULL;
    uint32_t line = 7;
    void *h;
    int want = 0;
    const void *ra = probe_library("liblines_nodebug.so", &h, &want);

    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(vftr_ompt_lines_find(l, (uintptr_t)ra - 1, &file, &line, &object), -ENODATA);
    ck_assert_str_eq(file, "");
    ck_assert_uint_eq(line, 0);
    ck_assert_ptr_nonnull(object);
    ck_assert_msg(ends_with(object, "/liblines_nodebug.so"), "object %s", object);
    /* a second address of the same object: the same answer, no retry harm */
    ck_assert_int_eq(vftr_ompt_lines_find(l, (uintptr_t)ra - 2, &file, &line, NULL), -ENODATA);
    vftr_ompt_lines_free(l);
    dlclose(h);
}
END_TEST

START_TEST(nowhere)
{
    struct vftr_ompt_lines *l = vftr_ompt_lines_new();
    const char *file = "x";
    uint32_t line = 7;
    static const char data[] = "not code";
    uintptr_t heap = (uintptr_t)l;

    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(vftr_ompt_lines_find(l, 0, &file, &line, NULL), -ENOENT);
    ck_assert_str_eq(file, "");
    ck_assert_uint_eq(line, 0);
    /* the heap is in no loaded object */
    ck_assert_int_eq(vftr_ompt_lines_find(l, heap, &file, &line, NULL), -ENOENT);
    /* read-only data of the executable: an object, but no line there */
    ck_assert_int_lt(vftr_ompt_lines_find(l, (uintptr_t)data, &file, &line, NULL), 0);
    ck_assert_str_eq(file, "");
    ck_assert_int_eq(vftr_ompt_lines_find(NULL, 1, &file, &line, NULL), -EINVAL);
    ck_assert_int_eq(vftr_ompt_lines_find(l, 1, NULL, &line, NULL), -EINVAL);
    vftr_ompt_lines_free(l);
    vftr_ompt_lines_free(NULL);
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_test(tc, own_executable);
    tcase_add_test(tc, shared_library);
    tcase_add_test(tc, no_debug_information);
    tcase_add_test(tc, nowhere);
}

#else /* !HAVE_LIBDW */

START_TEST(without_libdw)
{
    const char *file = "x";
    uint32_t line = 7;

    errno = 0;
    ck_assert_ptr_null(vftr_ompt_lines_new());
    ck_assert_int_eq(errno, ENOTSUP);
    ck_assert_int_eq(vftr_ompt_lines_find(NULL, 1, &file, &line, NULL), -ENOTSUP);
    ck_assert_str_eq(file, "");
    ck_assert(ends_with("a.c", ".c"));
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_test(tc, without_libdw);
}

#endif

int main(void)
{
    Suite *s = suite_create("capture_ompt_lines");
    TCase *tc = tcase_create("lines");
    SRunner *sr;
    int failed;

    add_tests(tc);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
