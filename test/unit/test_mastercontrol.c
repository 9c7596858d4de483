/*
 * test_mastercontrol.c — Check suite for OTF_MasterControl (lib/otf/
 * mastercontrol.c) and the string helpers of lib/otf/platform.c.
 *
 * Expected values marked "reference" were obtained by running the same calls
 * against the reference OTF 1.12.5 (libopen-trace-format): return values,
 * files written by its OTF_MasterControl_write, what its
 * OTF_MasterControl_read makes of a file, OTF_MasterControl_print's output.
 * Where vftr deliberately differs (the reference accepts malformed files
 * silently or invents process 0, write reports success on failure, the
 * printf helpers crash), the test says so and checks vftr's documented
 * behaviour; error offsets were counted by hand.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "OTF_Errno.h"
#include "OTF_FileManager.h"
#include "OTF_MasterControl.h"
#include "otf_platform.h"

/* Exported by the reference (and vftr) without a header declaration. */
int OTF_MasterControl_init(OTF_MasterControl *mc);
void OTF_MasterControl_finalize(OTF_MasterControl *mc);
void OTF_MasterControl_reset(OTF_MasterControl *mc);
OTF_MapEntry *OTF_MasterControl_getMapEntry(OTF_MasterControl *mc, uint32_t argument);

/* --- fixture: a scratch directory and a file manager ---------------------- */

static char dir[64];
static OTF_FileManager *manager;

static void setup(void)
{
    strcpy(dir, "/tmp/vftr_test_mc_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    manager = OTF_FileManager_open(4);
    ck_assert_ptr_nonnull(manager);
}

static void teardown(void)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[512];
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
    OTF_FileManager_close(manager);
}

/* Name stub inside the scratch directory (static buffer, one at a time). */
static const char *stub(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void put_file(const char *name, const char *text, size_t len)
{
    char path[300];
    snprintf(path, sizeof path, "%s.otf", stub(name));
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* Whole content of "<stub>.otf", NUL-terminated; caller frees. */
static char *get_file(const char *name, size_t *len)
{
    char path[300];
    snprintf(path, sizeof path, "%s.otf", stub(name));
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Compact text of a map, e.g. "1:1,2 2:3" (streams separated by blanks),
 * after verifying that rmap is exactly the inverse of map, sorted. */
static const char *dump(OTF_MasterControl *mc)
{
    static char buf[8192];
    size_t n = 0;
    buf[0] = '\0';
    uint32_t total = 0;
    for (uint32_t i = 0; i < mc->n; i++) {
        const OTF_MapEntry *e = &mc->map[i];
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%x:", i ? " " : "", e->argument);
        for (uint32_t j = 0; j < e->n; j++) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%x", j ? "," : "", e->values[j]);
            ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, e->values[j]), e->argument);
        }
        total += e->n;
    }
    ck_assert_uint_eq(total, mc->rn);
    for (uint32_t i = 1; i < mc->rn; i++)
        ck_assert_uint_lt(mc->rmap[i - 1].argument, mc->rmap[i].argument);
    return buf;
}

/* --- layout and life cycle ------------------------------------------------ */

START_TEST(test_layout)
{
    /* Programs read these structs directly: sizes and offsets of the
     * reference headers on x86-64. */
    ck_assert_uint_eq(sizeof(OTF_MapEntry), 24);
    ck_assert_uint_eq(sizeof(OTF_Pair), 8);
    ck_assert_uint_eq(sizeof(OTF_MasterControl), 40);
    ck_assert_uint_eq(offsetof(OTF_MasterControl, n), 0);
    ck_assert_uint_eq(offsetof(OTF_MasterControl, s), 4);
    ck_assert_uint_eq(offsetof(OTF_MasterControl, map), 8);
    ck_assert_uint_eq(offsetof(OTF_MasterControl, rn), 16);
    ck_assert_uint_eq(offsetof(OTF_MasterControl, rs), 20);
    ck_assert_uint_eq(offsetof(OTF_MasterControl, rmap), 24);
    ck_assert_uint_eq(offsetof(OTF_MasterControl, manager), 32);
    ck_assert_uint_eq(offsetof(OTF_MapEntry, argument), 0);
    ck_assert_uint_eq(offsetof(OTF_MapEntry, n), 4);
    ck_assert_uint_eq(offsetof(OTF_MapEntry, s), 8);
    ck_assert_uint_eq(offsetof(OTF_MapEntry, values), 16);
    ck_assert_uint_eq(offsetof(OTF_Pair, argument), 0);
    ck_assert_uint_eq(offsetof(OTF_Pair, value), 4);
}
END_TEST

START_TEST(test_new_close)
{
    /* reference: new(NULL) fails with an error */
    otf_errno = OTF_NO_ERROR;
    ck_assert_ptr_null(OTF_MasterControl_new(NULL));
    ck_assert_int_eq(otf_errno, OTF_ERROR);

    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_ptr_nonnull(mc);
    ck_assert_uint_eq(mc->n, 0);
    ck_assert_uint_eq(mc->rn, 0);
    ck_assert_ptr_eq(mc->manager, manager);
    ck_assert_uint_eq(OTF_MasterControl_getCount(mc), 0);
    ck_assert_uint_eq(OTF_MasterControl_getrCount(mc), 0);
    ck_assert_int_eq(OTF_MasterControl_check(mc), 1);
    OTF_MasterControl_close(mc);
    OTF_MasterControl_close(NULL);

    /* finish is the deprecated name of close (the reference frees all). */
    mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 1), 1);
    OTF_MasterControl_finish(mc);
}
END_TEST

START_TEST(test_init_reset_finalize)
{
    /* reference: init returns 1 and zeroes everything, the manager too */
    OTF_MasterControl mc;
    memset(&mc, 0xab, sizeof mc);
    ck_assert_int_eq(OTF_MasterControl_init(&mc), 1);
    ck_assert_uint_eq(mc.n + mc.s + mc.rn + mc.rs, 0);
    ck_assert_ptr_null(mc.map);
    ck_assert_ptr_null(mc.rmap);
    ck_assert_ptr_null(mc.manager);

    mc.manager = manager;
    ck_assert_int_eq(OTF_MasterControl_append(&mc, 3, 3), 1);
    /* reference: getMapEntry returns the entry, creating an empty one in
     * sorted position if the stream is new */
    OTF_MapEntry *e = OTF_MasterControl_getMapEntry(&mc, 3);
    ck_assert_ptr_eq(e, &mc.map[0]);
    e = OTF_MasterControl_getMapEntry(&mc, 2);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->argument, 2);
    ck_assert_uint_eq(e->n, 0);
    ck_assert_uint_eq(mc.n, 2);
    ck_assert_uint_eq(mc.map[0].argument, 2);
    ck_assert_uint_eq(mc.map[1].argument, 3);
    ck_assert_ptr_null(OTF_MasterControl_getValues(&mc, 2));
    ck_assert_uint_eq(OTF_MasterControl_getValueCount(&mc, 2), 0);
    ck_assert_int_eq(OTF_MasterControl_check(&mc), 1);
    /* vftr refuses reserved stream ids here too */
    ck_assert_ptr_null(OTF_MasterControl_getMapEntry(&mc, 0));
    ck_assert_ptr_null(OTF_MasterControl_getMapEntry(&mc, UINT32_MAX));

    OTF_MasterControl_reset(&mc);
    ck_assert_uint_eq(mc.n + mc.s + mc.rn + mc.rs, 0);
    ck_assert_ptr_eq(mc.manager, manager);
    ck_assert_int_eq(OTF_MasterControl_append(&mc, 1, 1), 1);
    OTF_MasterControl_finalize(&mc);
    ck_assert_ptr_null(mc.map);
    ck_assert_ptr_null(mc.manager);
}
END_TEST

/* --- append and queries --------------------------------------------------- */

START_TEST(test_append)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    /* reference return values, in this order */
    static const struct { uint32_t stream, process; int ret; } calls[] = {
        { 3, 0x10, 1 }, { 3, 2, 1 }, { 1, 5, 1 },
        { 1, 5, 0 },                 /* again, same stream */
        { 2, 5, 0 },                 /* already in stream 1 */
        { 0, 7, 0 }, { UINT32_MAX, 8, 0 },
        { 7, 0, 1 }, { 7, UINT32_MAX, 1 },
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        otf_errno = OTF_NO_ERROR;
        int ret = OTF_MasterControl_append(mc, calls[i].stream, calls[i].process);
        ck_assert_msg(ret == calls[i].ret, "call %zu", i);
        ck_assert_int_eq(otf_errno, calls[i].ret ? OTF_NO_ERROR : OTF_ERROR);
    }
    /* reference: a failed append leaves no trace (no stream 2) */
    ck_assert_str_eq(dump(mc), "1:5 3:2,10 7:0,ffffffff");
    ck_assert_uint_eq(OTF_MasterControl_getCount(mc), 3);
    ck_assert_uint_eq(OTF_MasterControl_getrCount(mc), 5);
    /* rmap: process in argument, stream in value (reference layout) */
    ck_assert_uint_eq(mc->rmap[0].argument, 0);
    ck_assert_uint_eq(mc->rmap[0].value, 7);
    ck_assert_uint_eq(mc->rmap[4].argument, UINT32_MAX);
    ck_assert_uint_eq(mc->rmap[4].value, 7);

    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 5), 1);
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 2), 3);
    /* reference: unknown process -> 0, nothing is made up */
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 99), 0);
    ck_assert_uint_eq(OTF_MasterControl_getrCount(mc), 5);

    ck_assert_ptr_null(OTF_MasterControl_getEntry(mc, 99));
    ck_assert_ptr_null(OTF_MasterControl_getEntryByIndex(mc, 3));
    ck_assert_ptr_null(OTF_MasterControl_getREntryByIndex(mc, 5));
    ck_assert_uint_eq(OTF_MasterControl_getValueCount(mc, 3), 2);
    ck_assert_uint_eq(OTF_MasterControl_getValueCount(mc, 99), 0);
    ck_assert_ptr_null(OTF_MasterControl_getValues(mc, 99));
    uint32_t *v = OTF_MasterControl_getValues(mc, 3);
    ck_assert_uint_eq(v[0], 2);
    ck_assert_uint_eq(v[1], 0x10);
    OTF_MapEntry *e = OTF_MasterControl_getEntry(mc, 7);
    ck_assert_ptr_eq(e, OTF_MasterControl_getEntryByIndex(mc, 2));
    OTF_Pair *p = OTF_MasterControl_getREntryByIndex(mc, 2);
    ck_assert_uint_eq(p->argument, 5);
    ck_assert_uint_eq(p->value, 1);
    ck_assert_int_eq(OTF_MasterControl_check(mc), 1);
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_append_list)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 8, 0x10), 1);
    /* reference: the duplicate 4 fails, the rest (9, 4, 6) is still added */
    uint32_t v[] = { 9, 4, 4, 6 };
    ck_assert_int_eq(OTF_MasterControl_appendList(mc, 4, 4, v), 0);
    ck_assert_str_eq(dump(mc), "4:4,6,9 8:10");
    /* reference: an empty list succeeds and creates no stream */
    ck_assert_int_eq(OTF_MasterControl_appendList(mc, 5, 0, v), 1);
    ck_assert_uint_eq(OTF_MasterControl_getCount(mc), 2);
    ck_assert_int_eq(OTF_MasterControl_appendList(mc, 0, 1, v), 0);
    uint32_t w[] = { 0x20, 0x11, 0x30 };
    ck_assert_int_eq(OTF_MasterControl_appendList(mc, 5, 3, w), 1);
    ck_assert_str_eq(dump(mc), "4:4,6,9 5:11,20,30 8:10");
    ck_assert_int_eq(OTF_MasterControl_appendList(mc, 5, 1, NULL), 0);
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_new_stream_id)
{
    /* reference: max + 1, or the smallest free id when max + 1 would be
     * ffffffff; nothing is reserved */
    static const struct { uint32_t streams[6]; uint32_t expect; } cases[] = {
        { { 0 }, 1 },
        { { 3, 1, 7 }, 8 },
        { { 1, 5, 0xfffffffe }, 2 },
        { { 0xfffffffd }, 0xfffffffe },
        { { 0xfffffffd, 0xfffffffe }, 1 },
        { { 0xfffffffd, 0xfffffffe, 1, 2, 4 }, 3 },
        { { 2, 3 }, 4 },
        { { 2, 3, 0xfffffffe }, 1 },
        { { 0x80000000 }, 0x80000001 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        OTF_MasterControl *mc = OTF_MasterControl_new(manager);
        for (uint32_t i = 0; i < 6 && cases[c].streams[i]; i++)
            ck_assert_int_eq(OTF_MasterControl_append(mc, cases[c].streams[i], 100 + i), 1);
        ck_assert_msg(OTF_MasterControl_getNewStreamId(mc) == cases[c].expect, "case %zu: %x", c,
                      OTF_MasterControl_getNewStreamId(mc));
        ck_assert_uint_eq(OTF_MasterControl_getNewStreamId(mc), cases[c].expect);
        OTF_MasterControl_close(mc);
    }
}
END_TEST

START_TEST(test_clone)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    uint32_t v[] = { 1, 5, 9 };
    ck_assert_int_eq(OTF_MasterControl_appendList(mc, 1, 3, v), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 2, 2), 1);
    ck_assert_ptr_nonnull(OTF_MasterControl_getMapEntry(mc, 6)); /* empty stream */

    /* reference: a clone needs a manager, like new() */
    ck_assert_ptr_null(OTF_MasterControl_clone(mc, NULL));
    OTF_MasterControl *c = OTF_MasterControl_clone(mc, manager);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(dump(c), "1:1,5,9 2:2 6:");
    ck_assert_int_eq(OTF_MasterControl_check(c), 1);
    ck_assert_ptr_ne(c->map, mc->map);
    ck_assert_ptr_ne(c->map[0].values, mc->map[0].values);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 3), 1);
    ck_assert_int_eq(OTF_MasterControl_append(c, 3, 3), 1);
    ck_assert_str_eq(dump(mc), "1:1,3,5,9 2:2 6:");
    ck_assert_str_eq(dump(c), "1:1,5,9 2:2 3:3 6:");
    OTF_MasterControl_close(mc);
    OTF_MasterControl_close(c);
}
END_TEST

START_TEST(test_check)
{
    /* map 1:{1,3} 2:{2} 4:{5}; rmap 1>1 2>2 3>1 5>4 */
    static const char *const names[] = {
        "values unsorted", "repeated value", "map unsorted", "rmap unsorted",
        "rmap repeated", "rmap longer", "stream id 0",
        /* faults only vftr detects (the reference returns 1) */
        "rmap wrong stream", "rmap shorter", "entry shorter", "process in two streams",
    };
    for (int k = -1; k < (int)(sizeof names / sizeof names[0]); k++) {
        OTF_MasterControl *mc = OTF_MasterControl_new(manager);
        ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 1), 1);
        ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 3), 1);
        ck_assert_int_eq(OTF_MasterControl_append(mc, 2, 2), 1);
        ck_assert_int_eq(OTF_MasterControl_append(mc, 4, 5), 1);
        switch (k) {
        case 0: mc->map[0].values[0] = 3; mc->map[0].values[1] = 1; break;
        case 1: mc->map[0].values[1] = 1; break;
        case 2: mc->map[0].argument = 3; break;
        case 3: mc->rmap[1].argument = 4; break;
        case 4: mc->rmap[0].argument = 2; break;
        case 5: mc->rmap[4] = (OTF_Pair){ 4, 7 }; mc->rn = 5; break;
        case 6: mc->map[0].argument = 0; mc->rmap[0].value = 0; mc->rmap[2].value = 0; break;
        case 7: mc->rmap[3].value = 9; break;
        case 8: mc->rn = 3; break;
        case 9: mc->map[0].n = 1; break;
        case 10: mc->map[1].values[0] = 1; break;
        }
        otf_errno = OTF_NO_ERROR;
        int expect = k < 0;
        ck_assert_msg(OTF_MasterControl_check(mc) == expect, "%s", k < 0 ? "valid" : names[k]);
        ck_assert_int_eq(otf_errno, expect ? OTF_NO_ERROR : OTF_ERROR);
        OTF_MasterControl_close(mc);
    }
}
END_TEST

START_TEST(test_print)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 1), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 0x3a), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 0x2b, 2), 1);
    OTF_MasterControl *empty = OTF_MasterControl_new(manager);

    char path[300];
    snprintf(path, sizeof path, "%s.otf", stub("stderr"));
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 2);
    close(fd);
    OTF_MasterControl_print(mc);
    OTF_MasterControl_print(empty);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);

    /* reference output, byte for byte */
    char *text = get_file("stderr", NULL);
    ck_assert_str_eq(text, "map:\n1: 1 3a \n2b: 2 \nrmap:\n1: 1\n2: 2b\n3a: 1\n"
                           "map:\nrmap:\n");
    free(text);
    OTF_MasterControl_close(mc);
    OTF_MasterControl_close(empty);
}
END_TEST

/* --- writing -------------------------------------------------------------- */

START_TEST(test_write_reference_files)
{
    /* 16 processes round robin on 4 streams, appended out of order */
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    static const uint32_t order[] = { 16, 3, 9, 1, 14, 7, 12, 5, 2, 11, 8, 15, 4, 13, 6, 10 };
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(OTF_MasterControl_append(mc, (order[i] - 1) % 4 + 1, order[i]), 1);
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("ga")), 1);
    char *text = get_file("ga", NULL);
    /* reference file */
    ck_assert_str_eq(text, "1:1,5,9,d\n2:2,6,a,e\n3:3,7,b,f\n4:4,8,c,10\n");
    free(text);
    OTF_MasterControl_close(mc);

    mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 3, 0x10), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 3, 2), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 0xa, 1), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 0xfffffffe, 0xffffffff), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 0xb, 0), 1);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 0x12345678, 0x9abcdef0), 1);
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("gb")), 1);
    text = get_file("gb", NULL);
    /* reference file */
    ck_assert_str_eq(text, "3:2,10\na:1\nb:0\n12345678:9abcdef0\nfffffffe:ffffffff\n");
    free(text);

    /* reference: the stub is used as given, "x.otf" -> "x.otf.otf" */
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("gc.otf")), 1);
    text = get_file("gc.otf", NULL);
    ck_assert_str_eq(text, "3:2,10\na:1\nb:0\n12345678:9abcdef0\nfffffffe:ffffffff\n");
    free(text);
    OTF_MasterControl_close(mc);

    /* reference: an empty stream is written as "<id>:" */
    mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 3, 3), 1);
    ck_assert_ptr_nonnull(OTF_MasterControl_getMapEntry(mc, 2));
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("gd")), 1);
    text = get_file("gd", NULL);
    ck_assert_str_eq(text, "2:\n3:3\n");
    free(text);
    OTF_MasterControl_close(mc);

    /* reference: an empty map gives an empty file (and replaces an old one) */
    put_file("ge", "1:1\n", 4);
    mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("ge")), 1);
    size_t len;
    text = get_file("ge", &len);
    ck_assert_uint_eq(len, 0);
    free(text);
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_write_errors)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_append(mc, 1, 1), 1);
    /* The reference returns 1 here although nothing was written; vftr
     * reports the failure. */
    otf_errno = OTF_NO_ERROR;
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("no/such/dir/x")), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_ptr_nonnull(strstr(otf_strerr, "no/such/dir/x.otf"));
    ck_assert_int_eq(OTF_MasterControl_write(mc, NULL), 0);
    ck_assert_int_eq(OTF_MasterControl_write(NULL, stub("x")), 0);
    /* A device in the master file's place is refused before it is opened
     * (a FIFO there would block the writer for ever), naming what it is. */
    if (access("/dev/full", W_OK) == 0) {
        char link[300];
        snprintf(link, sizeof link, "%s.otf", stub("dev"));
        ck_assert_int_eq(symlink("/dev/full", link), 0);
        otf_errno = OTF_NO_ERROR;
        ck_assert_int_eq(OTF_MasterControl_write(mc, stub("dev")), 0);
        ck_assert_int_eq(otf_errno, OTF_ERROR);
        ck_assert_msg(strstr(otf_strerr, "dev.otf: cannot create: it is a character device, "
                             "expected a regular file"), "%s", otf_strerr);
    }
    /* A file that stops growing (the file size limit stands in for a full
     * disk): the error shows at a flush or at close and must still be
     * reported.  Check runs each test in its own process: the ignored
     * SIGXFSZ ends with it. */
    {
        struct rlimit old, lim;
        for (uint32_t p = 2; p < 20000; p++)
            ck_assert_int_eq(OTF_MasterControl_append(mc, p % 7 + 1, p), 1);
        signal(SIGXFSZ, SIG_IGN);
        ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
        lim = old;
        lim.rlim_cur = 4096;
        ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
        otf_errno = OTF_NO_ERROR;
        int ok = OTF_MasterControl_write(mc, stub("full"));
        /* back before Check writes its results (to a file of its own) */
        ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
        ck_assert_int_eq(ok, 0);
        ck_assert_int_eq(otf_errno, OTF_ERROR);
        ck_assert_msg(strstr(otf_strerr, "full.otf: write failed"), "%s", otf_strerr);
    }
    OTF_MasterControl_close(mc);
}
END_TEST

/* --- reading -------------------------------------------------------------- */

START_TEST(test_read_reference_files)
{
    /* files as the reference writes them (see test_write_reference_files) */
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    static const char ga[] = "1:1,5,9,d\n2:2,6,a,e\n3:3,7,b,f\n4:4,8,c,10\n";
    put_file("ga", ga, sizeof ga - 1);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("ga")), 1);
    ck_assert_str_eq(dump(mc), "1:1,5,9,d 2:2,6,a,e 3:3,7,b,f 4:4,8,c,10");
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 0x10), 4);
    ck_assert_int_eq(OTF_MasterControl_check(mc), 1);

    static const char gb[] = "3:2,10\na:1\nb:0\n12345678:9abcdef0\nfffffffe:ffffffff\n";
    put_file("gb", gb, sizeof gb - 1);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("gb")), 1);
    ck_assert_str_eq(dump(mc), "3:2,10 a:1 b:0 12345678:9abcdef0 fffffffe:ffffffff");
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 0xffffffff), 0xfffffffe);
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 0), 0xb);

    /* and what vftr writes reads back the same */
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("gb2")), 1);
    char *text = get_file("gb2", NULL);
    ck_assert_str_eq(text, gb);
    free(text);
    OTF_MasterControl_close(mc);
}
END_TEST

/* Inputs the reference reads, with what it makes of them (reference dump,
 * in dump() notation). */
static const struct { const char *text; size_t len; const char *map; } accepted[] = {
#define T(s, m) { s, sizeof s - 1, m }
    T("1:1,2\n2:3\n", "1:1,2 2:3"),
    T("2:3\n1:1,2\n", "1:1,2 2:3"),
    T("1:2,1\n", "1:1,2"),
    T("1:1\n1:2\n", "1:1,2"),
    T("3:3\n1:1\n2:2\n1:4\n", "1:1,4 2:2 3:3"),
    T(" 1 : 1 , 2 \n", "1:1,2"),
    T("\t1:\t1,\t2\n", "1:1,2"),
    T("\n\n1:1\n\n", "1:1"),
    T("abc\n1:1\n", "1:1"),
    T("xyz:1\n1:1\n", "1:1"),
    T("A:1\n2:2\n", "2:2"),
    T("#1:1\n2:2\n", "2:2"),
    T("1:a\n", "1:a"),
    T("1:ffffffff\n", "1:ffffffff"),
    T("1:0\n", "1:0"),
    T("00000001:000000002\n", "1:2"),
    T("1:1\r\n2:2\r\n", "1:1 2:2"),
    T("1:1\ni2:1:4\n", "1:1"),
    T("i2:1:4\n1:1\n", "1:1"),
    T("i 2 : 2 : 0\n1:1\n", "1:1"),
    T("1:1\n\0x\n", "1:1"),
    T("1:1,2,3,4,5,6,7,8,9,a,b,c,d,e,f,10\n", "1:1,2,3,4,5,6,7,8,9,a,b,c,d,e,f,10"),
    /* vftr: a stream without processes (what write produces for one); the
     * reference invents a process 0 for "1:" */
    T("1:\n2:5\n", "1: 2:5"),
#undef T
};

START_TEST(test_read_accepts)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        put_file("acc", accepted[i].text, accepted[i].len);
        otf_errno = OTF_NO_ERROR;
        ck_assert_msg(OTF_MasterControl_read(mc, stub("acc")) == 1, "case %zu: %s", i, otf_strerr);
        ck_assert_int_eq(otf_errno, OTF_NO_ERROR);
        ck_assert_msg(strcmp(dump(mc), accepted[i].map) == 0, "case %zu: got '%s', want '%s'", i,
                      dump(mc), accepted[i].map);
        ck_assert_int_eq(OTF_MasterControl_check(mc), 1);
    }
    OTF_MasterControl_close(mc);
}
END_TEST

/* Malformed files: vftr fails with the message below (offsets counted by
 * hand).  The reference returns 1 for most of them, sometimes with a
 * message, with partial or invented content (noted per line). */
static const struct { const char *text; size_t len; const char *msg; } rejected[] = {
#define T(s, m) { s, sizeof s - 1, m }
    /* ref: keeps 1:1 */
    T("1:1\n2:1\n", "offset 6: process 1 listed again (already in stream 1 at offset 2)"),
    T("1:1,1\n", "offset 4: process 1 listed again"),
    T("5:7\n3:1,7\n", "offset 8: process 7 listed again (already in stream 5 at offset 2)"),
    /* ref: reads nothing ("file exceeded") */
    T("1:1", "offset 3: missing newline at end of file"),
    T("1:1\n2:2", "offset 7: missing newline at end of file"),
    T("1:1\nabc", "offset 7: missing newline at end of file"),
    T("1:1,", "offset 4: expected a process id (lower-case hex), found end of file"),
    /* ref: invents process 0 */
    T("1:1,\n", "offset 4: expected a process id (lower-case hex), found end of line"),
    T("1:1,,2\n", "offset 4: expected a process id (lower-case hex), found ','"),
    T("1:A\n", "offset 2: expected a process id (lower-case hex), found 'A'"),
    /* ref: silently drops the rest of the line */
    T("1:1;2\n", "offset 3: unexpected ';' after a process id"),
    T("1:1 2\n", "offset 4: unexpected '2' after a process id"),
    T("1:1\r2\n", "offset 3: carriage return not followed by newline"),
    T("1:1\x01\n", "offset 3: unexpected byte 0x01 after a process id"),
    /* ref: "appending (0,1)" error but returns 1 */
    T("0:1\n", "offset 0: stream id 0 is reserved"),
    T("ffffffff:1\n", "offset 0: stream id ffffffff is reserved"),
    T("1ffffffff:1\n", "offset 0: stream id does not fit in 32 bits"),
    T(":1\n2:2\n", "offset 0: missing stream id before ':'"),
    T("1:1\n :2\n", "offset 5: missing stream id before ':'"),
    /* ref: reads 1:ffffffff */
    T("1:1ffffffff\n", "offset 2: a process id does not fit in 32 bits"),
    T("1:2,100000000000000000000\n", "offset 4: a process id does not fit in 32 bits"),
    /* ref: fails too (return 0) */
    T("i2:3:4\n1:1\n", "offset 3: invalid iofsl mode 3"),
    T("i2:0:4\n1:1\n", "offset 3: invalid iofsl mode 0"),
    T("i\n1:1\n", "offset 1: expected iofsl server count (lower-case hex), found end of line"),
    T("i2\n1:1\n", "offset 2: expected ':' before iofsl mode, found end of line"),
    T("i2:1:4x\n1:1\n", "offset 6: unexpected 'x' after iofsl index bits"),
    /* ref: returns 1 with an empty map (the reader then fails) */
    T("", "no process listed"),
    T("\n", "no process listed"),
    T("garbage\n", "no process listed"),
    T("1:\n2:\n", "no process listed"),
#undef T
};

START_TEST(test_read_rejects)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++) {
        put_file("rej", rejected[i].text, rejected[i].len);
        ck_assert_int_eq(OTF_MasterControl_append(mc, 77, 77), 1);
        otf_errno = OTF_NO_ERROR;
        ck_assert_msg(OTF_MasterControl_read(mc, stub("rej")) == 0, "case %zu accepted", i);
        ck_assert_int_eq(otf_errno, OTF_ERROR);
        /* the message starts with the file name */
        char path[300];
        snprintf(path, sizeof path, "%s.otf: ", stub("rej"));
        ck_assert_msg(strncmp(otf_strerr, path, strlen(path)) == 0, "case %zu: '%s'", i,
                      otf_strerr);
        ck_assert_msg(strstr(otf_strerr, rejected[i].msg) != NULL, "case %zu: got '%s', want '%s'",
                      i, otf_strerr, rejected[i].msg);
        /* a failed read leaves the object empty, not half filled */
        ck_assert_uint_eq(mc->n, 0);
        ck_assert_uint_eq(mc->rn, 0);
    }
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_read_files)
{
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    /* reference: a missing file fails and names it */
    otf_errno = OTF_NO_ERROR;
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("missing")), 0);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_ptr_nonnull(strstr(otf_strerr, "missing.otf"));

    /* reference: the stub is used as given ("e.otf" reads "e.otf.otf") */
    put_file("e", "1:1\n", 4);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("e.otf")), 0);
    put_file("e.otf", "2:2\n", 4);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("e.otf")), 1);
    ck_assert_str_eq(dump(mc), "2:2");

    /* reference: read replaces what was there */
    ck_assert_int_eq(OTF_MasterControl_append(mc, 9, 9), 1);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("e")), 1);
    ck_assert_str_eq(dump(mc), "1:1");

    /* a directory cannot be read */
    char sub[300];
    snprintf(sub, sizeof sub, "%s.otf", stub("adir"));
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("adir")), 0);
    ck_assert_uint_eq(mc->rn, 0);
    rmdir(sub);

    ck_assert_int_eq(OTF_MasterControl_read(mc, NULL), 0);
    ck_assert_int_eq(OTF_MasterControl_read(NULL, stub("e")), 0);
    OTF_MasterControl_close(mc);
}
END_TEST

/* Small deterministic generator (xorshift) so that runs are repeatable. */
static uint32_t rng_state = 2463534242u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

START_TEST(test_large_roundtrip)
{
    /* 10^5 processes on 64 streams, appended in a shuffled order; the file
     * must be the canonical text (built here independently) and reading it
     * must be fast although streams interleave in process order. */
    enum { NP = 100000, NS = 64 };
    uint32_t *order = malloc(NP * sizeof *order);
    for (uint32_t i = 0; i < NP; i++)
        order[i] = i + 1;
    for (uint32_t i = NP - 1; i > 0; i--) {
        uint32_t j = rng() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    for (uint32_t i = 0; i < NP; i++)
        ck_assert_int_eq(OTF_MasterControl_append(mc, (order[i] - 1) % NS + 1, order[i]), 1);
    ck_assert_int_eq(OTF_MasterControl_check(mc), 1);
    ck_assert_int_eq(OTF_MasterControl_write(mc, stub("big")), 1);

    size_t cap = 16 * (size_t)NP, n = 0;
    char *expect = malloc(cap);
    for (uint32_t s = 1; s <= NS; s++) {
        n += (size_t)snprintf(expect + n, cap - n, "%x:", s);
        for (uint32_t p = s; p <= NP; p += NS)
            n += (size_t)snprintf(expect + n, cap - n, p == s ? "%x" : ",%x", p);
        expect[n++] = '\n';
    }
    expect[n] = '\0';
    size_t len;
    char *text = get_file("big", &len);
    ck_assert_uint_eq(len, n);
    ck_assert_int_eq(memcmp(text, expect, n), 0);
    free(text);
    free(expect);

    OTF_MasterControl *r = OTF_MasterControl_new(manager);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(OTF_MasterControl_read(r, stub("big")), 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    /* The reference needs ~1.7 s here; vftr ~0.02 s.  The bound only
     * catches a quadratic algorithm, not a slow machine. */
    ck_assert_msg(secs < 1.0, "reading 10^5 processes took %.3f s", secs);
    ck_assert_uint_eq(r->n, NS);
    ck_assert_uint_eq(r->rn, NP);
    for (uint32_t p = 1; p <= NP; p++)
        ck_assert_uint_eq(OTF_MasterControl_mapReverse(r, p), (p - 1) % NS + 1);
    for (uint32_t i = 0; i < NS; i++) {
        ck_assert_uint_eq(r->map[i].n, mc->map[i].n);
        ck_assert_int_eq(memcmp(r->map[i].values, mc->map[i].values, mc->map[i].n * 4), 0);
    }
    ck_assert_int_eq(memcmp(r->rmap, mc->rmap, NP * sizeof *r->rmap), 0);
    ck_assert_int_eq(OTF_MasterControl_check(r), 1);
    OTF_MasterControl_close(r);
    OTF_MasterControl_close(mc);
    free(order);
}
END_TEST

START_TEST(test_long_lines)
{
    /* 1 MiB of garbage without ':' is an ignored line; a stream line of
     * 10^5 processes is fine; a million leading zeros are still a number. */
    size_t cap = 4u << 20, n = 0;
    char *text = malloc(cap);
    memset(text, 'x', 1u << 20);
    n = 1u << 20;
    text[n++] = '\n';
    n += (size_t)snprintf(text + n, cap - n, "2:");
    for (uint32_t p = 100000; p >= 1; p--)
        n += (size_t)snprintf(text + n, cap - n, p == 100000 ? "%x" : ",%x", p);
    text[n++] = '\n';
    n += (size_t)snprintf(text + n, cap - n, "1:");
    memset(text + n, '0', 1u << 20);
    n += 1u << 20;
    n += (size_t)snprintf(text + n, cap - n, "186a1\n");
    put_file("long", text, n);
    free(text);

    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("long")), 1);
    ck_assert_uint_eq(mc->n, 2);
    ck_assert_uint_eq(mc->rn, 100001);
    ck_assert_uint_eq(OTF_MasterControl_getValueCount(mc, 2), 100000);
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 0x186a1), 1);
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(mc, 77), 2);
    ck_assert_int_eq(OTF_MasterControl_check(mc), 1);

    /* the same with one byte of garbage deep inside the long line */
    text = get_file("long", &n);
    text[(1u << 20) + 1 + 300000] = '+';
    put_file("long", text, n);
    free(text);
    ck_assert_int_eq(OTF_MasterControl_read(mc, stub("long")), 0);
    ck_assert_ptr_nonnull(strstr(otf_strerr, "offset 1348577: unexpected '+'"));
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_fuzz)
{
    /* Mutations of a valid file: reading must never crash; it either fails
     * with a message naming the file, leaving the object empty, or yields a
     * consistent map whose processes all appear in the text. */
    static const char base[] = "1:1,5,9,d\n2:2,6,a,e\n i2:1:4\n3:3,7,b,f\r\n4:4,8,c,10\n";
    static const char alphabet[] = "0123456789abcdefABX:,\n\r\t i;";
    OTF_MasterControl *mc = OTF_MasterControl_new(manager);
    char path[300];
    snprintf(path, sizeof path, "%s.otf: ", stub("fz"));
    for (int iter = 0; iter < 3000; iter++) {
        char buf[256];
        size_t n = sizeof base - 1;
        memcpy(buf, base, n);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = rng() % n;
            switch (rng() % 3) {
            case 0: buf[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
            case 1: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;
            default:
                if (n < sizeof buf - 1) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = alphabet[rng() % (sizeof alphabet - 1)];
                    n++;
                }
            }
        }
        put_file("fz", buf, n);
        otf_errno = OTF_NO_ERROR;
        if (OTF_MasterControl_read(mc, stub("fz"))) {
            ck_assert_int_eq(OTF_MasterControl_check(mc), 1);
            ck_assert_uint_gt(mc->rn, 0);
        } else {
            ck_assert_int_eq(otf_errno, OTF_ERROR);
            ck_assert_msg(strncmp(otf_strerr, path, strlen(path)) == 0, "%s", otf_strerr);
            ck_assert_uint_eq(mc->rn + mc->n, 0);
        }
    }
    OTF_MasterControl_close(mc);
}
END_TEST

START_TEST(test_null_arguments)
{
    ck_assert_int_eq(OTF_MasterControl_append(NULL, 1, 1), 0);
    ck_assert_int_eq(OTF_MasterControl_appendList(NULL, 1, 0, NULL), 1);
    ck_assert_uint_eq(OTF_MasterControl_mapReverse(NULL, 1), 0);
    ck_assert_ptr_null(OTF_MasterControl_getEntry(NULL, 1));
    ck_assert_ptr_null(OTF_MasterControl_getEntryByIndex(NULL, 0));
    ck_assert_ptr_null(OTF_MasterControl_getREntryByIndex(NULL, 0));
    ck_assert_uint_eq(OTF_MasterControl_getCount(NULL), 0);
    ck_assert_uint_eq(OTF_MasterControl_getrCount(NULL), 0);
    ck_assert_uint_eq(OTF_MasterControl_getValueCount(NULL, 1), 0);
    ck_assert_ptr_null(OTF_MasterControl_getValues(NULL, 1));
    ck_assert_uint_eq(OTF_MasterControl_getNewStreamId(NULL), 1);
    ck_assert_int_eq(OTF_MasterControl_check(NULL), 0);
    ck_assert_ptr_null(OTF_MasterControl_clone(NULL, manager));
    OTF_MasterControl_print(NULL);
    OTF_MasterControl_finish(NULL);
}
END_TEST

/* --- platform helpers ----------------------------------------------------- */

static int call_vsnprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int call_vsnprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = OTF_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

static int call_vasprintf(char **p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int call_vasprintf(char **p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = OTF_vasprintf(p, fmt, ap);
    va_end(ap);
    return n;
}

START_TEST(test_platform_strings)
{
    const char *s = "hello";
    char *d = OTF_strdup(s);
    ck_assert_ptr_ne(d, s);
    ck_assert_str_eq(d, "hello");
    free(d);
    d = OTF_strdup("");
    ck_assert_str_eq(d, "");
    free(d);
    errno = 0;
    ck_assert_ptr_null(OTF_strdup(NULL));
    ck_assert_int_eq(errno, EINVAL);

    /* reference results where the buffer is large enough */
    char buf[32];
    ck_assert_int_eq(OTF_snprintf(buf, sizeof buf, "%s-%d", "hello", 42), 8);
    ck_assert_str_eq(buf, "hello-42");
    ck_assert_int_eq(OTF_snprintf(buf, 9, "%s-%d", "hello", 42), 8);
    ck_assert_str_eq(buf, "hello-42");
    ck_assert_int_eq(call_vsnprintf(buf, 16, "%x|%5.2f", 255, 3.14159), 8);
    ck_assert_str_eq(buf, "ff| 3.14");
    /* Too small: the reference leaves the buffer unterminated (and crashes
     * for size 0); vftr follows C99. */
    memset(buf, 'X', sizeof buf);
    ck_assert_int_eq(OTF_snprintf(buf, 4, "%s-%d", "hello", 42), 8);
    ck_assert_str_eq(buf, "hel");
    ck_assert_int_eq(OTF_snprintf(NULL, 0, "%s", "hello"), 5);

    char *p = NULL;
    ck_assert_int_eq(OTF_asprintf(&p, "%s %u", "abc", 7u), 5);
    ck_assert_str_eq(p, "abc 7");
    free(p);
    ck_assert_int_eq(call_vasprintf(&p, "%s", ""), 0);
    ck_assert_str_eq(p, "");
    free(p);
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_eq(OTF_asprintf(&p, "%s%s", big, big), 9998);
    ck_assert_uint_eq(strlen(p), 9998);
    free(p);
}
END_TEST

START_TEST(test_platform_basename)
{
    /* reference results; the result is a new string, the input untouched */
    static const char *const cases[][2] = {
        { "/a/b/c", "c" }, { "c", "c" }, { "/a/b/", "/" }, { "/", "/" }, { "", "." },
        { "a/", "/" }, { "//", "/" }, { "a//b", "b" }, { "/a/b//", "/" }, { ".", "." },
        { "..", ".." }, { "./x.otf", "x.otf" }, { "x/.", "." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[32];
        strcpy(in, cases[i][0]);
        char *b = OTF_basename(in);
        ck_assert_ptr_nonnull(b);
        ck_assert_msg(b < in || b > in + sizeof in, "result points into the input");
        ck_assert_msg(strcmp(b, cases[i][1]) == 0, "basename('%s') = '%s', want '%s'",
                      cases[i][0], b, cases[i][1]);
        ck_assert_str_eq(in, cases[i][0]);
        free(b);
    }
    errno = 0;
    ck_assert_ptr_null(OTF_basename(NULL));
    ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *mastercontrol_suite(void)
{
    Suite *s = suite_create("mastercontrol");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_layout);
    tcase_add_test(tc, test_new_close);
    tcase_add_test(tc, test_init_reset_finalize);
    tcase_add_test(tc, test_append);
    tcase_add_test(tc, test_append_list);
    tcase_add_test(tc, test_new_stream_id);
    tcase_add_test(tc, test_clone);
    tcase_add_test(tc, test_check);
    tcase_add_test(tc, test_print);
    tcase_add_test(tc, test_write_reference_files);
    tcase_add_test(tc, test_write_errors);
    tcase_add_test(tc, test_read_reference_files);
    tcase_add_test(tc, test_read_accepts);
    tcase_add_test(tc, test_read_rejects);
    tcase_add_test(tc, test_read_files);
    tcase_add_test(tc, test_large_roundtrip);
    tcase_add_test(tc, test_long_lines);
    tcase_add_test(tc, test_fuzz);
    tcase_add_test(tc, test_null_arguments);
    suite_add_tcase(s, tc);

    TCase *tp = tcase_create("platform");
    tcase_add_test(tp, test_platform_strings);
    tcase_add_test(tp, test_platform_basename);
    suite_add_tcase(s, tp);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(mastercontrol_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
