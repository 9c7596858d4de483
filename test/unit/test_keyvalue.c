/*
 * test_keyvalue.c — Check suite for OTF_KeyValueList (lib/otf/keyvalue.c).
 *
 * Expected values marked "reference" were established by running the same
 * calls against the reference OTF 1.12.5 (libopen-trace-format) and are
 * written here as plain numbers.  Where vftr deliberately differs (the
 * reference crashes or corrupts the list), the test says so and checks the
 * documented behaviour instead.
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_KeyValue.h"

static uint8_t pattern[1000];

static void fill_pattern(void)
{
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (uint8_t)(i * 7u + 1u);
}

/* ------------------------------------------------------------------------ */

START_TEST(test_layout)
{
    /* The pair layout is ABI: programs read the members directly.  Values of
     * the reference headers on x86-64. */
    ck_assert_uint_eq(sizeof(OTF_Type), 4);
    ck_assert_uint_eq(sizeof(OTF_Value), 104);
    ck_assert_uint_eq(sizeof(OTF_KeyValuePair), 112);
    ck_assert_uint_eq(offsetof(OTF_KeyValuePair, key), 0);
    ck_assert_uint_eq(offsetof(OTF_KeyValuePair, type), 4);
    ck_assert_uint_eq(offsetof(OTF_KeyValuePair, value), 8);
    ck_assert_uint_eq(offsetof(byte_array, len), 100);
    /* Enum values are written to disk (Y field). */
    ck_assert_int_eq(OTF_UNKNOWN, -1);
    ck_assert_int_eq(OTF_CHAR, 0);
    ck_assert_int_eq(OTF_UINT16, 4);
    ck_assert_int_eq(OTF_DOUBLE, 10);
    ck_assert_int_eq(OTF_BYTE_ARRAY, 11);
    ck_assert_int_eq(OTF_KEYVALUE_MAX_ARRAY_LEN, 100);
}
END_TEST

START_TEST(test_new_close)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    ck_assert_ptr_nonnull(l);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 0);
    ck_assert_uint_eq(l->size, 10);                 /* reference: size=10 */
    ck_assert_uint_eq(OTF_KeyValueList_close(l), 0);  /* reference: 0 */
    ck_assert_uint_eq(OTF_KeyValueList_close(NULL), 1);  /* reference: 1 */
}
END_TEST

START_TEST(test_every_type)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    ck_assert_uint_eq(OTF_KeyValueList_appendChar(l, 1, 'x'), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendInt8(l, 2, -3), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendUint8(l, 3, 250), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendInt16(l, 4, -300), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendUint16(l, 5, 65000), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendInt32(l, 6, -70000), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendUint32(l, 7, 4000000000u), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendInt64(l, 8, -5000000000LL), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendUint64(l, 9, 18000000000000000000ULL), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendFloat(l, 10, 1.5f), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendDouble(l, 11, -2.25), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 11);

    char c = 0;
    int8_t i8 = 0;
    uint8_t u8 = 0;
    int16_t i16 = 0;
    uint16_t u16 = 0;
    int32_t i32 = 0;
    uint32_t u32 = 0;
    int64_t i64 = 0;
    uint64_t u64 = 0;
    float f = 0;
    double d = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getChar(l, 1, &c), 0);
    ck_assert_int_eq(c, 'x');
    ck_assert_uint_eq(OTF_KeyValueList_getInt8(l, 2, &i8), 0);
    ck_assert_int_eq(i8, -3);
    ck_assert_uint_eq(OTF_KeyValueList_getUint8(l, 3, &u8), 0);
    ck_assert_uint_eq(u8, 250);
    ck_assert_uint_eq(OTF_KeyValueList_getInt16(l, 4, &i16), 0);
    ck_assert_int_eq(i16, -300);
    ck_assert_uint_eq(OTF_KeyValueList_getUint16(l, 5, &u16), 0);
    ck_assert_uint_eq(u16, 65000);
    ck_assert_uint_eq(OTF_KeyValueList_getInt32(l, 6, &i32), 0);
    ck_assert_int_eq(i32, -70000);
    ck_assert_uint_eq(OTF_KeyValueList_getUint32(l, 7, &u32), 0);
    ck_assert_uint_eq(u32, 4000000000u);
    ck_assert_uint_eq(OTF_KeyValueList_getInt64(l, 8, &i64), 0);
    ck_assert_int_eq(i64, -5000000000LL);
    ck_assert_uint_eq(OTF_KeyValueList_getUint64(l, 9, &u64), 0);
    ck_assert_uint_eq(u64, 18000000000000000000ULL);
    ck_assert_uint_eq(OTF_KeyValueList_getFloat(l, 10, &f), 0);
    ck_assert(f == 1.5f);
    ck_assert_uint_eq(OTF_KeyValueList_getDouble(l, 11, &d), 0);
    ck_assert(d == -2.25);

    /* Types as stored (reference: type(k) = k - 1 for this list). */
    for (uint32_t k = 1; k <= 11; k++)
        ck_assert_int_eq(OTF_KeyValueList_getTypeForKey(l, k), (int)k - 1);
    ck_assert_int_eq(OTF_KeyValueList_getTypeForKey(l, 12), OTF_UNKNOWN);

    /* The pair a program sees: a narrow value with the rest of the 8 bytes
     * zero (the reference showed otf_uint64 = 0xfd for int8 -3). */
    OTF_KeyValuePair *p = NULL;
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, 1, &p), 0);
    ck_assert_uint_eq(p->key, 2);
    ck_assert_int_eq(p->type, OTF_INT8);
    ck_assert_uint_eq(p->value.otf_uint64, 0xfd);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_missing_and_wrong_type)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    OTF_KeyValueList_appendChar(l, 1, 'x');
    OTF_KeyValueList_appendInt32(l, 6, -70000);
    OTF_KeyValueList_appendFloat(l, 10, 1.5f);
    int32_t i32 = 42;
    int8_t i8 = 42;
    uint32_t u32 = 1;
    double d = 7.0;
    /* reference: 2 for another type, 1 for a missing key, value untouched */
    ck_assert_uint_eq(OTF_KeyValueList_getInt32(l, 1, &i32), 2);
    ck_assert_int_eq(i32, 42);
    ck_assert_uint_eq(OTF_KeyValueList_getInt8(l, 1, &i8), 2);
    ck_assert_uint_eq(OTF_KeyValueList_getUint32(l, 6, &u32), 2);  /* no int32->uint32 */
    ck_assert_uint_eq(u32, 1);
    ck_assert_uint_eq(OTF_KeyValueList_getDouble(l, 10, &d), 2);   /* no float->double */
    ck_assert(d == 7.0);
    ck_assert_uint_eq(OTF_KeyValueList_getInt32(l, 99, &i32), 1);
    ck_assert_int_eq(i32, 42);
    char c = 'q';
    ck_assert_uint_eq(OTF_KeyValueList_getChar(l, 99, &c), 1);
    ck_assert_int_eq(c, 'q');
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_duplicates)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    ck_assert_uint_eq(OTF_KeyValueList_appendChar(l, 1, 'x'), 0);
    /* reference: 1 for a key already present, whatever the type */
    ck_assert_uint_eq(OTF_KeyValueList_appendChar(l, 1, 'y'), 1);
    ck_assert_uint_eq(OTF_KeyValueList_appendInt32(l, 1, 5), 1);
    ck_assert_uint_eq(OTF_KeyValueList_appendByteArray(l, 1, pattern, 5), 1);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 1);
    char c = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getChar(l, 1, &c), 0);
    ck_assert_int_eq(c, 'x');
    /* keys 0 and UINT32_MAX are ordinary keys (reference: both 0, count 3) */
    ck_assert_uint_eq(OTF_KeyValueList_appendUint8(l, 0, 1), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendUint8(l, UINT32_MAX, 2), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 3);
    ck_assert_uint_eq(OTF_KeyValueList_appendUint8(l, UINT32_MAX, 3), 1);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_null_arguments)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    OTF_KeyValueList_appendInt32(l, 1, 1);
    int32_t i32;
    uint32_t k, len = 5;
    OTF_KeyValuePair *p;
    uint8_t buf[8];
    /* reference values */
    ck_assert_uint_eq(OTF_KeyValueList_appendInt32(NULL, 1, 1), 255);
    ck_assert_uint_eq(OTF_KeyValueList_getInt32(NULL, 1, &i32), 255);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(NULL, 1), 2);
    ck_assert_int_eq(OTF_KeyValueList_getTypeForKey(NULL, 1), OTF_UNKNOWN);
    ck_assert_uint_eq(OTF_KeyValueList_removeKey(NULL, 1), 2);
    ck_assert_uint_eq(OTF_KeyValueList_reset(NULL), 1);
    ck_assert_uint_eq(OTF_KeyValueList_realloc(NULL, 5), 1);
    ck_assert_uint_eq(OTF_KeyValueList_getKeyByIndex(NULL, 0, &k), 2);
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(NULL, 0, &p), 2);
    ck_assert_uint_eq(OTF_KeyValueList_appendKeyValueList(NULL, l), 1);
    ck_assert_uint_eq(OTF_KeyValueList_appendKeyValueList(l, NULL), 1);
    /* reference: clone(NULL) is a new empty list, not NULL */
    OTF_KeyValueList *c = OTF_KeyValueList_clone(NULL);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(c), 0);
    OTF_KeyValueList_close(c);
    /* The reference crashes (SIGSEGV) on these; vftr reports an error. */
    ck_assert_uint_eq(OTF_KeyValueList_getCount(NULL), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getInt32(l, 1, NULL), 255);
    ck_assert_uint_eq(OTF_KeyValueList_appendByteArray(l, 2, NULL, 5), 255);
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 1, buf, NULL), 255);
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 1, NULL, &len), 255);
    ck_assert_uint_eq(OTF_KeyValueList_getArrayLength(l, 1, NULL), 255);
    ck_assert_uint_eq(OTF_KeyValueList_getKeyByIndex(l, 0, NULL), 2);
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, 0, NULL), 2);
    ck_assert_int_eq(otf_errno, OTF_ERROR);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 1);
    OTF_KeyValueList_close(l);
}
END_TEST

/* ------------------------------------------------------------------------ */

START_TEST(test_bytearray_split)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    OTF_KeyValueList_appendChar(l, 1, 'x');
    ck_assert_uint_eq(OTF_KeyValueList_appendByteArray(l, 3, pattern, 250), 0);
    OTF_KeyValueList_appendUint16(l, 4, 65535);
    /* reference: getCount 3, internal count 5 (pieces 250, 150, 50) */
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 3);
    ck_assert_uint_eq(l->count, 5);
    const uint32_t lens[3] = { 250, 150, 50 };
    for (uint32_t i = 0; i < 3; i++) {
        const OTF_KeyValuePair *piece = &l->pairs[1 + i];
        ck_assert_uint_eq(piece->key, 3);
        ck_assert_int_eq(piece->type, OTF_BYTE_ARRAY);
        ck_assert_uint_eq(piece->value.otf_byte_array.len, lens[i]);
        uint32_t n = lens[i] < 100 ? lens[i] : 100;
        ck_assert_mem_eq(piece->value.otf_byte_array.array, pattern + 100 * i, n);
    }
    /* The index sees one key; its pair is the first piece. */
    OTF_KeyValuePair *p = NULL;
    uint32_t key = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, 1, &p), 0);
    ck_assert_uint_eq(p->key, 3);
    ck_assert_uint_eq(p->value.otf_byte_array.len, 250);
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, 2, &p), 0);
    ck_assert_uint_eq(p->key, 4);
    ck_assert_uint_eq(OTF_KeyValueList_getKeyByIndex(l, 2, &key), 0);
    ck_assert_uint_eq(key, 4);
    ck_assert_int_eq(OTF_KeyValueList_getTypeForKey(l, 3), OTF_BYTE_ARRAY);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_bytearray_boundaries)
{
    /* reference: 100 -> 1 pair, 101 -> 2 (101, 1), 200 -> 2 (200, 100),
     * 201 -> 3; 0 appends nothing and returns 0 */
    static const struct { uint32_t len, pieces; } cases[] = {
        { 1, 1 }, { 99, 1 }, { 100, 1 }, { 101, 2 }, { 200, 2 }, { 201, 3 }, { 1000, 10 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        OTF_KeyValueList *l = OTF_KeyValueList_new();
        ck_assert_uint_eq(OTF_KeyValueList_appendByteArray(l, 9, pattern, cases[c].len), 0);
        ck_assert_uint_eq(l->count, cases[c].pieces);
        ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 1);
        for (uint32_t i = 0; i < cases[c].pieces; i++)
            ck_assert_uint_eq(l->pairs[i].value.otf_byte_array.len, cases[c].len - 100 * i);
        uint32_t len = 0;
        ck_assert_uint_eq(OTF_KeyValueList_getArrayLength(l, 9, &len), 0);
        ck_assert_uint_eq(len, cases[c].len);
        uint8_t out[1000];
        len = sizeof out;
        ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 9, out, &len), 0);
        ck_assert_uint_eq(len, cases[c].len);
        ck_assert_mem_eq(out, pattern, len);
        OTF_KeyValueList_close(l);
    }
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    ck_assert_uint_eq(OTF_KeyValueList_appendByteArray(l, 21, pattern, 0), 0);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, 21), 1);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 0);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_getbytearray_buffers)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    OTF_KeyValueList_appendInt32(l, 6, 1);
    OTF_KeyValueList_appendByteArray(l, 20, pattern, 250);
    /* reference: buffer >= 250 -> 0, len 250; smaller -> 255 with that many
     * bytes copied and len unchanged; nothing written past the buffer */
    static const struct { uint32_t in; uint8_t rc; uint32_t out; } cases[] = {
        { 400, 0, 250 }, { 250, 0, 250 }, { 249, 255, 249 }, { 150, 255, 150 },
        { 101, 255, 101 }, { 100, 255, 100 }, { 99, 255, 99 }, { 1, 255, 1 }, { 0, 255, 0 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t out[400];
        memset(out, 0xee, sizeof out);
        uint32_t len = cases[c].in;
        ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 20, out, &len), cases[c].rc);
        ck_assert_uint_eq(len, cases[c].out);
        ck_assert_mem_eq(out, pattern, cases[c].out);
        for (uint32_t i = cases[c].out; i < sizeof out; i++)
            ck_assert_uint_eq(out[i], 0xee);
    }
    /* reference: other type -> 2, missing -> 1, and len is set to 0 */
    uint8_t out[10];
    uint32_t len = 10;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 6, out, &len), 2);
    ck_assert_uint_eq(len, 0);
    len = 10;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 99, out, &len), 1);
    ck_assert_uint_eq(len, 0);
    /* reference: getArrayLength leaves len alone on failure */
    len = 77;
    ck_assert_uint_eq(OTF_KeyValueList_getArrayLength(l, 6, &len), 2);
    ck_assert_uint_eq(len, 77);
    ck_assert_uint_eq(OTF_KeyValueList_getArrayLength(l, 99, &len), 1);
    ck_assert_uint_eq(len, 77);
    OTF_KeyValueList_close(l);
}
END_TEST

/* Builds a byte-array piece as the reader does from one K line. */
static OTF_KeyValuePair piece(uint32_t key, uint32_t len, const uint8_t *bytes)
{
    OTF_KeyValuePair p;
    memset(&p, 0, sizeof p);
    p.key = key;
    p.type = OTF_BYTE_ARRAY;
    p.value.otf_byte_array.len = len;
    memcpy(p.value.otf_byte_array.array, bytes, len < 100 ? len : 100);
    return p;
}

START_TEST(test_appendpair)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    /* reference: pieces with the same key are accepted (0) and reassembled */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(5, 250, pattern)), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(5, 150, pattern + 100)), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(5, 50, pattern + 200)), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 1);
    ck_assert_uint_eq(l->count, 3);
    uint8_t out[400];
    uint32_t len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 5, out, &len), 0);
    ck_assert_uint_eq(len, 250);
    ck_assert_mem_eq(out, pattern, 250);

    /* reference: a scalar pair, then its duplicate -> 1 */
    OTF_KeyValuePair s;
    memset(&s, 0, sizeof s);
    s.key = 6;
    s.type = OTF_INT32;
    s.value.otf_int32 = 9;
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, s), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, s), 1);
    s.key = 5;   /* reference: scalar on a byte-array key -> 1 */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, s), 1);
    int32_t v = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getInt32(l, 6, &v), 0);
    ck_assert_int_eq(v, 9);

    /* vftr differs here: the reference returns 0 and stores stray pieces
     * that later get written as extra K lines; vftr refuses them. */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(6, 3, pattern)), 1);  /* int key */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(5, 3, pattern)), 1);  /* not last */
    s.key = 7;
    s.type = (OTF_Type)42;      /* invalid type: reference 0, vftr 255 */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, s), 255);
    s.type = OTF_UNKNOWN;
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, s), 255);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 2);
    ck_assert_uint_eq(l->count, 4);

    /* a completed array takes no further piece (reference: 0, ignored) */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(9, 3, pattern)), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(9, 3, pattern)), 1);
    len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 9, out, &len), 0);
    ck_assert_uint_eq(len, 3);
    /* a zero-length array can only come from appendPair (reference: stored) */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(10, 0, pattern)), 0);
    len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 10, out, &len), 0);
    ck_assert_uint_eq(len, 0);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_truncated_array)
{
    /* A list whose array stops early (damaged file: only the first K line of
     * three).  reference: getArrayLength 0 with len 250; getByteArray copies
     * the 100 bytes present and returns 1 while the array is the last key,
     * 255 once another key follows. */
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(5, 250, pattern)), 0);
    uint32_t len = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getArrayLength(l, 5, &len), 0);
    ck_assert_uint_eq(len, 250);
    uint8_t out[400];
    memset(out, 0xee, sizeof out);
    len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 5, out, &len), 1);
    ck_assert_uint_eq(len, 100);
    ck_assert_mem_eq(out, pattern, 100);
    ck_assert_uint_eq(out[100], 0xee);
    OTF_KeyValueList_appendInt32(l, 6, 1);
    memset(out, 0xee, sizeof out);
    len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(l, 5, out, &len), 255);
    ck_assert_uint_eq(len, 100);
    ck_assert_mem_eq(out, pattern, 100);
    ck_assert_uint_eq(out[100], 0xee);
    /* the interrupted array cannot be continued behind another key
     * (reference: 0, but getByteArray then fails anyway) */
    ck_assert_uint_eq(OTF_KeyValueList_appendPair(l, piece(5, 150, pattern + 100)), 1);
    OTF_KeyValueList_close(l);
}
END_TEST

/* ------------------------------------------------------------------------ */

static uint32_t key_at(OTF_KeyValueList *l, uint32_t i)
{
    uint32_t key = 0xdeadbeef;
    OTF_KeyValuePair *p = NULL;
    ck_assert_uint_eq(OTF_KeyValueList_getKeyByIndex(l, i, &key), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, i, &p), 0);
    ck_assert_uint_eq(p->key, key);
    return key;
}

START_TEST(test_index)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    OTF_KeyValueList_appendInt32(l, 30, 1);
    OTF_KeyValueList_appendByteArray(l, 10, pattern, 300);
    OTF_KeyValueList_appendInt32(l, 20, 2);
    ck_assert_uint_eq(key_at(l, 0), 30);
    ck_assert_uint_eq(key_at(l, 1), 10);
    ck_assert_uint_eq(key_at(l, 2), 20);
    /* reference: out of range -> 1, out parameters untouched */
    uint32_t key = 777;
    OTF_KeyValuePair *p = (OTF_KeyValuePair *)&key;
    ck_assert_uint_eq(OTF_KeyValueList_getKeyByIndex(l, 3, &key), 1);
    ck_assert_uint_eq(key, 777);
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, 3, &p), 1);
    ck_assert_ptr_eq(p, (OTF_KeyValuePair *)&key);
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, UINT32_MAX, &p), 1);
    /* reference: hasKey 0 when present, 1 when not */
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, 10), 0);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, 11), 1);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_remove)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    for (uint32_t k = 1; k <= 5; k++)
        OTF_KeyValueList_appendUint32(l, k, k * 10);
    OTF_KeyValueList_appendByteArray(l, 20, pattern, 250);
    OTF_KeyValueList_appendUint32(l, 6, 60);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 7);

    /* reference: removing a present key returns 0, a missing one 1 */
    ck_assert_uint_eq(OTF_KeyValueList_removeKey(l, 99), 1);
    ck_assert_uint_eq(OTF_KeyValueList_removeKey(l, 1), 0);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, 1), 1);
    /* The reference keeps getCount() at 7 here and then returns a stale pair
     * with key 0 at the last index; vftr lowers the count as documented. */
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 6);
    ck_assert_uint_eq(key_at(l, 0), 2);
    ck_assert_uint_eq(key_at(l, 4), 20);
    ck_assert_uint_eq(key_at(l, 5), 6);

    /* The reference removes only the first of the three pieces (the key then
     * still answers with a 150-byte array); vftr removes the whole array. */
    ck_assert_uint_eq(OTF_KeyValueList_removeKey(l, 20), 0);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, 20), 1);
    uint32_t len = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getArrayLength(l, 20, &len), 1);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 5);
    ck_assert_uint_eq(l->count, 5);
    ck_assert_uint_eq(key_at(l, 4), 6);
    uint32_t v = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getUint32(l, 6, &v), 0);
    ck_assert_uint_eq(v, 60);

    /* reference: a key appended again goes to the end */
    ck_assert_uint_eq(OTF_KeyValueList_appendUint32(l, 1, 11), 0);
    ck_assert_uint_eq(key_at(l, 5), 1);
    ck_assert_uint_eq(OTF_KeyValueList_getUint32(l, 1, &v), 0);
    ck_assert_uint_eq(v, 11);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_reset)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    for (uint32_t k = 0; k < 40; k++)
        OTF_KeyValueList_appendUint64(l, k, k);
    OTF_KeyValueList_appendByteArray(l, 100, pattern, 999);
    uint32_t size = l->size;
    const OTF_KeyValuePair *pairs = l->pairs;
    /* reference: reset -> 0, getCount 0, size kept, nothing found */
    ck_assert_uint_eq(OTF_KeyValueList_reset(l), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 0);
    ck_assert_uint_eq(l->size, size);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, 5), 1);
    OTF_KeyValuePair *p = (OTF_KeyValuePair *)1;
    ck_assert_uint_eq(OTF_KeyValueList_getPairByIndex(l, 0, &p), 1);
    ck_assert_ptr_eq(p, (OTF_KeyValuePair *)1);
    /* Refilling to the same extent allocates nothing. */
    for (uint32_t k = 40; k > 0; k--)
        ck_assert_uint_eq(OTF_KeyValueList_appendUint64(l, k - 1, 2 * k), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendByteArray(l, 100, pattern, 999), 0);
    ck_assert_ptr_eq(l->pairs, pairs);
    ck_assert_uint_eq(l->size, size);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 41);
    uint64_t v = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getUint64(l, 7, &v), 0);
    ck_assert_uint_eq(v, 16);
    ck_assert_uint_eq(key_at(l, 0), 39);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_realloc)
{
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    /* reference: size 10 -> 20 after realloc(10); realloc(0) -> 0, same size */
    ck_assert_uint_eq(OTF_KeyValueList_realloc(l, 10), 0);
    ck_assert_uint_eq(l->size, 20);
    ck_assert_uint_eq(OTF_KeyValueList_realloc(l, 0), 0);
    ck_assert_uint_eq(l->size, 20);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(l), 0);
    for (uint32_t k = 0; k < 20; k++)
        OTF_KeyValueList_appendInt8(l, k, (int8_t)k);
    /* (how much appending grows the list is not specified; the reference
     * adds 10 as soon as the list is full) */
    uint32_t before = l->size;
    ck_assert_uint_eq(OTF_KeyValueList_realloc(l, 5), 0);
    ck_assert_uint_eq(l->size, before + 5);
    int8_t v = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getInt8(l, 19, &v), 0);
    ck_assert_int_eq(v, 19);
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_append_list)
{
    OTF_KeyValueList *a = OTF_KeyValueList_new(), *b = OTF_KeyValueList_new();
    OTF_KeyValueList_appendInt32(a, 1, 10);
    OTF_KeyValueList_appendInt32(a, 2, 20);
    OTF_KeyValueList_appendByteArray(a, 4, pattern + 500, 5);
    OTF_KeyValueList_appendInt32(b, 2, 99);
    OTF_KeyValueList_appendDouble(b, 3, 1.0);
    OTF_KeyValueList_appendByteArray(b, 4, pattern, 150);
    OTF_KeyValueList_appendByteArray(b, 6, pattern, 250);
    OTF_KeyValueList_appendUint8(b, 5, 7);
    /* reference: 0; keys already in dest keep dest's value; the others are
     * appended in source order; the source is unchanged */
    ck_assert_uint_eq(OTF_KeyValueList_appendKeyValueList(a, b), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(a), 6);
    static const uint32_t order[] = { 1, 2, 4, 3, 6, 5 };
    for (uint32_t i = 0; i < 6; i++)
        ck_assert_uint_eq(key_at(a, i), order[i]);
    int32_t v = 0;
    ck_assert_uint_eq(OTF_KeyValueList_getInt32(a, 2, &v), 0);
    ck_assert_int_eq(v, 20);
    uint8_t out[300];
    uint32_t len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(a, 4, out, &len), 0);
    ck_assert_uint_eq(len, 5);
    ck_assert_mem_eq(out, pattern + 500, 5);
    len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(a, 6, out, &len), 0);
    ck_assert_uint_eq(len, 250);
    ck_assert_mem_eq(out, pattern, 250);
    /* The duplicate array's pieces are not copied: 1 + 1 + 1 + 1 + 3 + 1
     * pairs.  (The reference appends them as stray pieces that count as a
     * seventh key in getCount() and would be written as extra K lines.) */
    ck_assert_uint_eq(a->count, 8);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(b), 5);
    ck_assert_uint_eq(b->count, 8);

    /* reference: empty source, empty destination and self append -> 0 */
    OTF_KeyValueList *e = OTF_KeyValueList_new();
    ck_assert_uint_eq(OTF_KeyValueList_appendKeyValueList(a, e), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(a), 6);
    ck_assert_uint_eq(OTF_KeyValueList_appendKeyValueList(e, a), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(e), 6);
    ck_assert_uint_eq(e->count, 8);
    ck_assert_uint_eq(OTF_KeyValueList_appendKeyValueList(a, a), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(a), 6);
    OTF_KeyValueList_close(a);
    OTF_KeyValueList_close(b);
    OTF_KeyValueList_close(e);
}
END_TEST

START_TEST(test_clone)
{
    OTF_KeyValueList *a = OTF_KeyValueList_new();
    OTF_KeyValueList_appendInt32(a, 1, 10);
    OTF_KeyValueList_appendByteArray(a, 4, pattern, 250);
    OTF_KeyValueList_appendUint8(a, 5, 7);
    OTF_KeyValueList *c = OTF_KeyValueList_clone(a);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_ne(c, a);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(c), 3);
    ck_assert_uint_eq(c->count, a->count);
    ck_assert_mem_eq(c->pairs, a->pairs, a->count * sizeof *a->pairs);
    /* independent of the original */
    ck_assert_uint_eq(OTF_KeyValueList_removeKey(c, 1), 0);
    ck_assert_uint_eq(OTF_KeyValueList_appendInt32(c, 9, 9), 0);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(a), 3);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(a, 9), 1);
    ck_assert_uint_eq(OTF_KeyValueList_hasKey(a, 1), 0);
    uint8_t out[300];
    uint32_t len = sizeof out;
    ck_assert_uint_eq(OTF_KeyValueList_getByteArray(c, 4, out, &len), 0);
    ck_assert_uint_eq(len, 250);
    ck_assert_mem_eq(out, pattern, 250);
    ck_assert_uint_eq(OTF_KeyValueList_close(c), 0);
    /* clone of an empty list (reference: empty, size 10) */
    OTF_KeyValueList_reset(a);
    c = OTF_KeyValueList_clone(a);
    ck_assert_uint_eq(OTF_KeyValueList_getCount(c), 0);
    OTF_KeyValueList_close(c);
    OTF_KeyValueList_close(a);
}
END_TEST

START_TEST(test_conversions)
{
    /* reference: pure bit reinterpretation */
    ck_assert(OTF_Int32ToFloat(0x3fc00000u) == 1.5f);
    ck_assert_uint_eq(OTF_FloatToInt32(1.5f), 0x3fc00000u);
    ck_assert_uint_eq(OTF_FloatToInt32(-0.0f), 0x80000000u);
    ck_assert(OTF_Int64ToDouble(0x4002000000000000ULL) == 2.25);
    ck_assert_uint_eq(OTF_DoubleToInt64(2.25), 0x4002000000000000ULL);
    ck_assert_uint_eq(OTF_DoubleToInt64(-1.0), 0xbff0000000000000ULL);
    ck_assert_uint_eq(OTF_DoubleToInt64(-2.25), 0xc002000000000000ULL);
}
END_TEST

/* ------------------------------------------------------------------------ */

static uint32_t scramble(uint32_t i)
{
    return i * 2654435761u ^ 0x5bd1e995u;
}

START_TEST(test_large_list)
{
    /* Crosses the switch to hashed lookup, grows it several times, and
     * checks that duplicates, removal and reset keep working with it. */
    enum { N = 20000 };
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    for (uint32_t round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < N; i++)
            ck_assert_uint_eq(OTF_KeyValueList_appendUint32(l, scramble(i), i), 0);
        for (uint32_t i = 0; i < N; i += 97)
            ck_assert_uint_eq(OTF_KeyValueList_appendUint32(l, scramble(i), 0), 1);
        ck_assert_uint_eq(OTF_KeyValueList_getCount(l), N);
        for (uint32_t i = 0; i < N; i += 13) {
            uint32_t v = UINT32_MAX;
            ck_assert_uint_eq(OTF_KeyValueList_getUint32(l, scramble(i), &v), 0);
            ck_assert_uint_eq(v, i);
        }
        ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, scramble(N)), 1);
        /* remove every 1000th key, then look all up again */
        for (uint32_t i = 0; i < N; i += 1000)
            ck_assert_uint_eq(OTF_KeyValueList_removeKey(l, scramble(i)), 0);
        ck_assert_uint_eq(OTF_KeyValueList_getCount(l), N - N / 1000);
        for (uint32_t i = 0; i < N; i++) {
            uint32_t v = UINT32_MAX;
            uint8_t rc = OTF_KeyValueList_getUint32(l, scramble(i), &v);
            if (i % 1000 == 0) {
                ck_assert_uint_eq(rc, 1);
            } else {
                ck_assert_uint_eq(rc, 0);
                ck_assert_uint_eq(v, i);
            }
        }
        ck_assert_uint_eq(key_at(l, 0), scramble(1));
        ck_assert_uint_eq(key_at(l, N - N / 1000 - 1), scramble(N - 1));
        OTF_KeyValueList_reset(l);
        /* After reset a small list scans again and must not see old keys. */
        ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, scramble(5)), 1);
        for (uint32_t i = 0; i < 20; i++)
            ck_assert_uint_eq(OTF_KeyValueList_appendUint32(l, scramble(i + 7), i), 0);
        ck_assert_uint_eq(OTF_KeyValueList_appendUint32(l, scramble(7), 0), 1);
        ck_assert_uint_eq(OTF_KeyValueList_hasKey(l, scramble(5)), 1);
        OTF_KeyValueList_reset(l);
    }
    OTF_KeyValueList_close(l);
}
END_TEST

START_TEST(test_record_cycle)
{
    /* The reader's pattern: reset, a few appends, lookups, per record. */
    OTF_KeyValueList *l = OTF_KeyValueList_new();
    for (uint32_t rec = 0; rec < 10000; rec++) {
        OTF_KeyValueList_reset(l);
        uint32_t n = rec % 5;
        for (uint32_t k = 0; k < n; k++)
            ck_assert_uint_eq(OTF_KeyValueList_appendUint64(l, k + rec, rec), 0);
        if (rec % 7 == 0)
            ck_assert_uint_eq(OTF_KeyValueList_appendByteArray(l, 1u << 31, pattern, rec % 300 + 1), 0);
        ck_assert_uint_eq(OTF_KeyValueList_getCount(l), n + (rec % 7 == 0));
        if (n) {
            uint64_t v = 0;
            ck_assert_uint_eq(OTF_KeyValueList_getUint64(l, rec + n - 1, &v), 0);
            ck_assert_uint_eq(v, rec);
        }
    }
    ck_assert_uint_le(l->size, 16);
    OTF_KeyValueList_close(l);
}
END_TEST

static Suite *keyvalue_suite(void)
{
    Suite *s = suite_create("keyvalue");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_layout);
    tcase_add_test(tc, test_new_close);
    tcase_add_test(tc, test_every_type);
    tcase_add_test(tc, test_missing_and_wrong_type);
    tcase_add_test(tc, test_duplicates);
    tcase_add_test(tc, test_null_arguments);
    tcase_add_test(tc, test_bytearray_split);
    tcase_add_test(tc, test_bytearray_boundaries);
    tcase_add_test(tc, test_getbytearray_buffers);
    tcase_add_test(tc, test_appendpair);
    tcase_add_test(tc, test_truncated_array);
    tcase_add_test(tc, test_index);
    tcase_add_test(tc, test_remove);
    tcase_add_test(tc, test_reset);
    tcase_add_test(tc, test_realloc);
    tcase_add_test(tc, test_append_list);
    tcase_add_test(tc, test_clone);
    tcase_add_test(tc, test_conversions);
    tcase_add_test(tc, test_large_list);
    tcase_add_test(tc, test_record_cycle);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    fill_pattern();
    SRunner *sr = srunner_create(keyvalue_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
