/*
 * test_vfd_counters.c — Check suite for the counter records of the .vfd
 * format (lib/vfd/vftr_vfd_counters.h).  Golden bytes worked out by hand
 * from share/doc/vfd-format.md: every field an unsigned LEB128 varint,
 * strings as length + bytes.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vfd/vftr_vfd.h"
#include "vfd/vftr_vfd_counters.h"

/* Call path 300 (0xac 0x02) left, two values: 5 and 1000000 (0xc0 0x84 0x3d). */
START_TEST(values_golden)
{
    struct vftr_vfd_ctr_values cv = { 300, VFTR_VFD_CTR_EXIT, 2, { 5, 1000000 } }, back;
    static const uint8_t want[] = { 0xac, 0x02, 0x01, 0x02, 0x05, 0xc0, 0x84, 0x3d };
    uint8_t out[VFTR_VFD_EXT_MAX];
    size_t n = vftr_vfd_ctr_values_encode(&cv, out);

    ck_assert_uint_eq(n, sizeof want);
    ck_assert_mem_eq(out, want, sizeof want);
    ck_assert_int_eq(vftr_vfd_ctr_values_decode(out, n, &back), 0);
    ck_assert_uint_eq(back.callpath, 300);
    ck_assert_uint_eq(back.boundary, VFTR_VFD_CTR_EXIT);
    ck_assert_uint_eq(back.n, 2);
    ck_assert_uint_eq(back.v[0], 5);
    ck_assert_uint_eq(back.v[1], 1000000);
    /* cut anywhere: refused */
    for (size_t len = 0; len < n; len++)
        ck_assert_int_eq(vftr_vfd_ctr_values_decode(out, len, &back), -EBADMSG);
}
END_TEST

/* More values than an event of this version carries: the first
 * VFTR_VFD_CTR_MAX are kept, the rest skipped; more than MAX to encode is
 * refused. */
START_TEST(values_extra)
{
    uint8_t p[3 + 10] = { 1, 0, 10 }, out[VFTR_VFD_EXT_MAX];
    struct vftr_vfd_ctr_values cv;

    for (int i = 0; i < 10; i++)
        p[3 + i] = (uint8_t)(i + 1);
    ck_assert_int_eq(vftr_vfd_ctr_values_decode(p, sizeof p, &cv), 0);
    ck_assert_uint_eq(cv.n, VFTR_VFD_CTR_MAX);
    ck_assert_uint_eq(cv.v[VFTR_VFD_CTR_MAX - 1], VFTR_VFD_CTR_MAX);
    cv.n = VFTR_VFD_CTR_MAX + 1;
    ck_assert_uint_eq(vftr_vfd_ctr_values_encode(&cv, out), 0);
}
END_TEST

/* A chunk of two definitions: header, then 1 0 "ns" ... */
START_TEST(defs_golden)
{
    const struct vftr_vfd_counter d[2] = { { 1, 0, "task-clock", "ns" },
                                           { 2, 0, "page-faults", "faults" } };
    static const uint8_t want[] = { 1, 0, 10, 't', 'a', 's', 'k', '-', 'c', 'l', 'o', 'c', 'k',
                                    2, 'n', 's',
                                    2, 0, 11, 'p', 'a', 'g', 'e', '-', 'f', 'a', 'u', 'l', 't',
                                    's', 6, 'f', 'a', 'u', 'l', 't', 's' };
    uint8_t out[256];
    size_t n = vftr_vfd_encode_counters(d, 2, out, sizeof out);
    struct vftr_vfd_cursor c;
    struct vftr_vfd_counter_view v;
    const uint8_t *pay = out + VFTR_VFD_CHUNK_HEADER_SIZE;

    ck_assert_uint_eq(n, VFTR_VFD_CHUNK_HEADER_SIZE + sizeof want);
    ck_assert_uint_eq(out[4] | out[5] << 8, VFTR_VFD_CHUNK_COUNTERS);
    ck_assert_mem_eq(pay, want, sizeof want);
    ck_assert_uint_le(n, vftr_vfd_counters_bound(d, 2));
    ck_assert_uint_eq(vftr_vfd_encode_counters(d, 2, out, n - 1), 0);
    vftr_vfd_cursor_init(&c, pay, sizeof want, 2);
    ck_assert_int_eq(vftr_vfd_next_counter(&c, &v), 1);
    ck_assert_uint_eq(v.c.id, 1);
    ck_assert_uint_eq(v.name_len, 10);
    ck_assert_mem_eq(v.c.name, "task-clock", 10);
    ck_assert_int_eq(vftr_vfd_next_counter(&c, &v), 1);
    ck_assert_mem_eq(v.c.unit, "faults", 6);
    ck_assert_int_eq(vftr_vfd_next_counter(&c, &v), 0);
    /* a name running past the payload; id 0 */
    vftr_vfd_cursor_init(&c, pay, 12, 2);
    ck_assert_int_eq(vftr_vfd_next_counter(&c, &v), -EBADMSG);
    ck_assert_int_eq(vftr_vfd_next_counter(&c, &v), 0);
    {
        static const uint8_t zero[] = { 0, 0, 0, 0 };

        vftr_vfd_cursor_init(&c, zero, sizeof zero, 1);
        ck_assert_int_eq(vftr_vfd_next_counter(&c, &v), -EBADMSG);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vfd_counters");
    TCase *tc = tcase_create("counters");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, values_golden);
    tcase_add_test(tc, values_extra);
    tcase_add_test(tc, defs_golden);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
