/*
 * keyvalue.c — OTF_KeyValueList: typed key-value pairs attached to records.
 *
 * Layout (see OTF_KeyValue.h): pairs[] holds the pairs in write order, one
 * per K line, so the writer walks it front to back.  index[] holds one entry
 * per key, in order of first appearance, with the position of the key's
 * first pair; this gives O(1) access by key index even when long byte arrays
 * occupy several pairs.  All pairs of one key are contiguous (appendPair
 * accepts a continuation piece only directly behind its array), so the pairs
 * of key i are pairs[index[i].head .. index[i+1].head).
 *
 * Duplicate detection needs a lookup per append.  Records carry a handful of
 * pairs, for which a linear scan of index[] (8 bytes per key) beats any
 * hashing; once a list reaches HASH_MIN keys an open-addressing table is
 * switched on, which keeps appends O(1) for large lists.  reset() just
 * switches the table off again, so resetting stays O(1) however large the
 * list once was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_KeyValue.h"
#include "otf_internal.h"

enum {
    /* Initial capacity, as OTF 1.12 (visible in list->size). */
    INITIAL_SIZE = 10,
    /* Number of keys from which lookups use the hash table. */
    HASH_MIN = 16,
    /* Smallest table; tables are kept at most half full. */
    HASH_MIN_SLOTS = 64,
};

#define ARRAY_LEN OTF_KEYVALUE_MAX_ARRAY_LEN
#define NOT_FOUND UINT32_MAX

/* --- storage ------------------------------------------------------------- */

/* Grows pairs[] and index[] to exactly `want` entries.  Returns 0 or
 * -ENOMEM (the list then keeps its contents and its size). */
static int resize(OTF_KeyValueList *list, uint32_t want)
{
    OTF_KeyValuePair *pairs = realloc(list->pairs, (size_t)want * sizeof *pairs);
    if (!pairs)
        return -ENOMEM;
    list->pairs = pairs;
    struct vftr_otf_kvindex *index = realloc(list->index, (size_t)want * sizeof *index);
    if (!index)
        return -ENOMEM;   /* pairs[] is merely larger than size says: harmless */
    list->index = index;
    list->size = want;
    return 0;
}

/* Makes room for `more` pairs behind the current ones, growing
 * geometrically so that a sequence of appends is amortised O(1). */
static int reserve(OTF_KeyValueList *list, uint32_t more)
{
    if (OTF_LIKELY(list->size - list->count >= more))
        return 0;
    if (more > UINT32_MAX - list->count)
        return -ENOMEM;
    uint64_t need = (uint64_t)list->count + more;
    uint64_t want = (uint64_t)list->size * 2;
    if (want < need)
        want = need;
    if (want < INITIAL_SIZE)
        want = INITIAL_SIZE;
    if (want > UINT32_MAX)
        want = UINT32_MAX;
    return resize(list, (uint32_t)want);
}

/* Copies n <= OTF_KEYVALUE_MAX_ARRAY_LEN bytes.  Byte-array pieces are
 * short and of varying length, the case in which compilers like to emit
 * `rep movs`, whose start-up cost dominates a 100-byte copy; fixed-size
 * chunks selected by the bits of n become plain vector moves instead. */
static inline void copy_piece(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    _Static_assert(ARRAY_LEN < 128, "copy_piece handles up to 127 bytes");
    if (n & 64) { memcpy(dst, src, 64); dst += 64; src += 64; }
    if (n & 32) { memcpy(dst, src, 32); dst += 32; src += 32; }
    if (n & 16) { memcpy(dst, src, 16); dst += 16; src += 16; }
    if (n & 8)  { memcpy(dst, src, 8);  dst += 8;  src += 8; }
    if (n & 4)  { memcpy(dst, src, 4);  dst += 4;  src += 4; }
    if (n & 2)  { memcpy(dst, src, 2);  dst += 2;  src += 2; }
    if (n & 1)
        *dst = *src;
}

/* --- key lookup ---------------------------------------------------------- */

static inline uint32_t hash_key(uint32_t key)
{
    /* Multiplicative hashing; folding the high half down keeps consecutive
     * keys (the common case) apart under a small mask. */
    uint32_t h = key * 0x9e3779b1u;
    return h ^ (h >> 15);
}

static void hash_insert(OTF_KeyValueList *list, uint32_t pos)
{
    uint32_t mask = list->hash_mask;
    uint32_t slot = hash_key(list->index[pos].key) & mask;
    while (list->hash[slot])
        slot = (slot + 1) & mask;
    list->hash[slot] = pos + 1;
}

/* (Re)builds the hash table for the current keys with `slots` slots (a
 * power of two).  Without memory the table stays off and lookups fall back
 * to scanning, which is slower but still correct. */
static void hash_build(OTF_KeyValueList *list, uint32_t slots)
{
    if (slots > list->hash_alloc) {
        uint32_t *hash = realloc(list->hash, (size_t)slots * sizeof *hash);
        if (!hash) {
            list->hash_mask = 0;
            return;
        }
        list->hash = hash;
        list->hash_alloc = slots;
    }
    memset(list->hash, 0, (size_t)slots * sizeof *list->hash);
    list->hash_mask = slots - 1;
    for (uint32_t i = 0; i < list->key_count; i++)
        hash_insert(list, i);
}

/* Called after key_count grew by one (the new key is the last index entry):
 * switches the table on at HASH_MIN keys and doubles it when half full. */
static void hash_note_new_key(OTF_KeyValueList *list)
{
    uint32_t n = list->key_count;
    if (list->hash_mask == 0) {
        if (n < HASH_MIN)
            return;
        uint32_t slots = HASH_MIN_SLOTS;
        while (slots < 2 * n && slots < (UINT32_C(1) << 31))
            slots *= 2;
        hash_build(list, slots);
        return;
    }
    uint64_t slots = (uint64_t)list->hash_mask + 1;
    if (2 * (uint64_t)n > slots && slots <= (UINT32_C(1) << 30)) {
        hash_build(list, (uint32_t)(2 * slots));
        return;
    }
    if (n < slots)
        hash_insert(list, n - 1);
    else
        list->hash_mask = 0;    /* a full table cannot probe: scan instead */
}

/* Returns the index position of key, or NOT_FOUND. */
static uint32_t find(const OTF_KeyValueList *list, uint32_t key)
{
    if (list->hash_mask == 0) {
        const struct vftr_otf_kvindex *ix = list->index;
        for (uint32_t i = 0, n = list->key_count; i < n; i++)
            if (ix[i].key == key)
                return i;
        return NOT_FOUND;
    }
    uint32_t mask = list->hash_mask;
    for (uint32_t slot = hash_key(key) & mask; list->hash[slot]; slot = (slot + 1) & mask) {
        uint32_t pos = list->hash[slot] - 1;
        if (list->index[pos].key == key)
            return pos;
    }
    return NOT_FOUND;
}

/* Number of pairs that key position `pos` occupies. */
static inline uint32_t span(const OTF_KeyValueList *list, uint32_t pos)
{
    uint32_t end = pos + 1 < list->key_count ? list->index[pos + 1].head : list->count;
    return end - list->index[pos].head;
}

/* Appends a pair for a key known to be new and registers the key.  The
 * caller fills in type and value.  NULL (errno set) without memory. */
static OTF_KeyValuePair *push_key(OTF_KeyValueList *list, uint32_t key)
{
    if (OTF_UNLIKELY(reserve(list, 1) != 0)) {
        errno = ENOMEM;
        return NULL;
    }
    OTF_KeyValuePair *p = &list->pairs[list->count];
    list->index[list->key_count].key = key;
    list->index[list->key_count].head = list->count;
    list->count++;
    list->key_count++;
    hash_note_new_key(list);
    p->key = key;
    return p;
}

/* Common front half of the typed appends: 0 with *out set, or the OTF
 * return code to pass on. */
static uint8_t begin_append(OTF_KeyValueList *list, uint32_t key, OTF_Type type,
                            OTF_KeyValuePair **out, const char *fn)
{
    if (OTF_UNLIKELY(!list)) {
        vftr_otf_seterr("%s: list is null", fn);
        return 255;
    }
    if (find(list, key) != NOT_FOUND)
        return 1;
    OTF_KeyValuePair *p = push_key(list, key);
    if (OTF_UNLIKELY(!p)) {
        vftr_otf_seterr("%s: out of memory (%u pairs)", fn, list->count);
        return 255;
    }
    p->type = type;
    /* Clear the scalar part so that a narrow value never shows stale bytes
     * to a program that looks at a wider member. */
    p->value.otf_uint64 = 0;
    *out = p;
    return 0;
}

/* One function per type; the macro only spells out the repetition. */
#define DEFINE_APPEND(Name, ctype, TYPE, member)                               \
    uint8_t OTF_KeyValueList_append##Name(OTF_KeyValueList *list, uint32_t key, \
                                          ctype value)                         \
    {                                                                          \
        OTF_KeyValuePair *p = NULL;                                            \
        uint8_t rc = begin_append(list, key, TYPE, &p,                         \
                                  "OTF_KeyValueList_append" #Name);            \
        if (rc == 0)                                                           \
            p->value.member = value;                                           \
        return rc;                                                             \
    }

DEFINE_APPEND(Char,   char,     OTF_CHAR,   otf_char)
DEFINE_APPEND(Int8,   int8_t,   OTF_INT8,   otf_int8)
DEFINE_APPEND(Uint8,  uint8_t,  OTF_UINT8,  otf_uint8)
DEFINE_APPEND(Int16,  int16_t,  OTF_INT16,  otf_int16)
DEFINE_APPEND(Uint16, uint16_t, OTF_UINT16, otf_uint16)
DEFINE_APPEND(Int32,  int32_t,  OTF_INT32,  otf_int32)
DEFINE_APPEND(Uint32, uint32_t, OTF_UINT32, otf_uint32)
DEFINE_APPEND(Int64,  int64_t,  OTF_INT64,  otf_int64)
DEFINE_APPEND(Uint64, uint64_t, OTF_UINT64, otf_uint64)
DEFINE_APPEND(Float,  float,    OTF_FLOAT,  otf_float)
DEFINE_APPEND(Double, double,   OTF_DOUBLE, otf_double)

uint8_t OTF_KeyValueList_appendByteArray(OTF_KeyValueList *list, uint32_t key,
                                         uint8_t *value, uint32_t len)
{
    static const char fn[] = "OTF_KeyValueList_appendByteArray";
    if (OTF_UNLIKELY(!list)) {
        vftr_otf_seterr("%s: list is null", fn);
        return 255;
    }
    /* OTF 1.12 stores nothing for an empty array and reports success. */
    if (len == 0)
        return 0;
    if (OTF_UNLIKELY(!value)) {
        vftr_otf_seterr("%s: value is null (len %u)", fn, len);
        return 255;
    }
    if (find(list, key) != NOT_FOUND)
        return 1;
    uint32_t pieces = len / ARRAY_LEN + (len % ARRAY_LEN != 0);
    if (OTF_UNLIKELY(reserve(list, pieces) != 0)) {
        vftr_otf_seterr("%s: out of memory (%u bytes)", fn, len);
        return 255;
    }
    OTF_KeyValuePair *p = push_key(list, key);   /* cannot fail after reserve */
    uint32_t done = 0;
    for (;;) {
        uint32_t n = len - done;
        p->key = key;
        p->type = OTF_BYTE_ARRAY;
        p->value.otf_byte_array.len = n;
        if (n >= ARRAY_LEN) {
            n = ARRAY_LEN;
            memcpy(p->value.otf_byte_array.array, value + done, ARRAY_LEN);
        } else {
            /* Zero the unused tail: clones and copies then compare equal.
             * (Copying zeros avoids the `rep stos` a memset becomes.) */
            static const uint8_t zeros[ARRAY_LEN];
            copy_piece(p->value.otf_byte_array.array, value + done, n);
            copy_piece(p->value.otf_byte_array.array + n, zeros, ARRAY_LEN - n);
        }
        done += n;
        if (done == len)
            break;
        p = &list->pairs[list->count++];
    }
    return 0;
}

uint8_t OTF_KeyValueList_appendPair(OTF_KeyValueList *list, OTF_KeyValuePair pair)
{
    static const char fn[] = "OTF_KeyValueList_appendPair";
    if (OTF_UNLIKELY(!list)) {
        vftr_otf_seterr("%s: list is null", fn);
        return 255;
    }
    if (OTF_UNLIKELY((int)pair.type < (int)OTF_CHAR || (int)pair.type > (int)OTF_BYTE_ARRAY)) {
        vftr_otf_seterr("%s: key %u: invalid type %d", fn, pair.key, (int)pair.type);
        return 255;
    }
    uint32_t pos = find(list, pair.key);
    if (pos != NOT_FOUND) {
        /* The one legitimate repeat of a key: the next piece of the byte
         * array that was appended last and is still incomplete. */
        if (pair.type != OTF_BYTE_ARRAY || pos != list->key_count - 1)
            return 1;
        const OTF_KeyValuePair *last = &list->pairs[list->count - 1];
        if (last->type != OTF_BYTE_ARRAY || last->value.otf_byte_array.len <= ARRAY_LEN)
            return 1;
        if (OTF_UNLIKELY(reserve(list, 1) != 0)) {
            vftr_otf_seterr("%s: out of memory (%u pairs)", fn, list->count);
            return 255;
        }
        list->pairs[list->count++] = pair;
        return 0;
    }
    OTF_KeyValuePair *p = push_key(list, pair.key);
    if (OTF_UNLIKELY(!p)) {
        vftr_otf_seterr("%s: out of memory (%u pairs)", fn, list->count);
        return 255;
    }
    *p = pair;
    return 0;
}

uint8_t OTF_KeyValueList_appendKeyValueList(OTF_KeyValueList *dest_list,
                                            OTF_KeyValueList *source_list)
{
    static const char fn[] = "OTF_KeyValueList_appendKeyValueList";
    if (!dest_list || !source_list) {
        vftr_otf_seterr("%s: %s list is null", fn, dest_list ? "source" : "destination");
        return 1;
    }
    /* Every key of a list is a duplicate of itself. */
    if (dest_list == source_list)
        return 0;
    if (reserve(dest_list, source_list->count) != 0) {
        vftr_otf_seterr("%s: out of memory (%u pairs)", fn,
                        dest_list->count + source_list->count);
        return 1;
    }
    for (uint32_t i = 0; i < source_list->key_count; i++) {
        uint32_t key = source_list->index[i].key;
        if (find(dest_list, key) != NOT_FOUND)
            continue;
        uint32_t head = source_list->index[i].head, n = span(source_list, i);
        OTF_KeyValuePair *p = push_key(dest_list, key);   /* room reserved */
        memcpy(p, &source_list->pairs[head], (size_t)n * sizeof *p);
        dest_list->count += n - 1;
    }
    return 0;
}

/* --- life cycle ---------------------------------------------------------- */

OTF_KeyValueList *OTF_KeyValueList_new(void)
{
    OTF_KeyValueList *list = calloc(1, sizeof *list);
    if (!list || resize(list, INITIAL_SIZE) != 0) {
        if (list) {
            free(list->pairs);
            free(list);
        }
        vftr_otf_seterr("OTF_KeyValueList_new: out of memory");
        errno = ENOMEM;
        return NULL;
    }
    return list;
}

uint8_t OTF_KeyValueList_close(OTF_KeyValueList *list)
{
    if (!list) {
        vftr_otf_seterr("OTF_KeyValueList_close: list is null");
        return 1;
    }
    free(list->pairs);
    free(list->index);
    free(list->hash);
    free(list);
    return 0;
}

OTF_KeyValueList *OTF_KeyValueList_clone(OTF_KeyValueList *list)
{
    OTF_KeyValueList *copy = OTF_KeyValueList_new();
    if (!copy || !list)
        return copy;
    if (OTF_KeyValueList_appendKeyValueList(copy, list) != 0) {
        OTF_KeyValueList_close(copy);
        vftr_otf_seterr("OTF_KeyValueList_clone: out of memory (%u pairs)", list->count);
        errno = ENOMEM;
        return NULL;
    }
    return copy;
}

uint8_t OTF_KeyValueList_reset(OTF_KeyValueList *list)
{
    if (OTF_UNLIKELY(!list)) {
        vftr_otf_seterr("OTF_KeyValueList_reset: list is null");
        return 1;
    }
    list->count = 0;
    list->key_count = 0;
    list->hash_mask = 0;
    return 0;
}

uint8_t OTF_KeyValueList_realloc(OTF_KeyValueList *list, uint32_t num)
{
    if (!list) {
        vftr_otf_seterr("OTF_KeyValueList_realloc: list is null");
        return 1;
    }
    if (num == 0)
        return 0;
    if (num > UINT32_MAX - list->size || resize(list, list->size + num) != 0) {
        vftr_otf_seterr("OTF_KeyValueList_realloc: out of memory (%u + %u pairs)",
                        list->size, num);
        return 1;
    }
    return 0;
}

/* --- reading ------------------------------------------------------------- */

/* Common front half of the typed getters: 0 with *out set to the key's
 * (first) pair, or the OTF return code to pass on. */
static uint8_t lookup(OTF_KeyValueList *list, uint32_t key, OTF_Type type,
                      const void *value, const OTF_KeyValuePair **out, const char *fn)
{
    if (OTF_UNLIKELY(!list || !value)) {
        vftr_otf_seterr("%s: %s is null", fn, list ? "value" : "list");
        return 255;
    }
    uint32_t pos = find(list, key);
    if (pos == NOT_FOUND)
        return 1;
    const OTF_KeyValuePair *p = &list->pairs[list->index[pos].head];
    if (p->type != type)
        return 2;
    *out = p;
    return 0;
}

#define DEFINE_GET(Name, ctype, TYPE, member)                                  \
    uint8_t OTF_KeyValueList_get##Name(OTF_KeyValueList *list, uint32_t key,   \
                                       ctype *value)                           \
    {                                                                          \
        const OTF_KeyValuePair *p = NULL;                                      \
        uint8_t rc = lookup(list, key, TYPE, value, &p,                        \
                            "OTF_KeyValueList_get" #Name);                     \
        if (rc == 0)                                                           \
            *value = p->value.member;                                          \
        return rc;                                                             \
    }

DEFINE_GET(Char,   char,     OTF_CHAR,   otf_char)
DEFINE_GET(Int8,   int8_t,   OTF_INT8,   otf_int8)
DEFINE_GET(Uint8,  uint8_t,  OTF_UINT8,  otf_uint8)
DEFINE_GET(Int16,  int16_t,  OTF_INT16,  otf_int16)
DEFINE_GET(Uint16, uint16_t, OTF_UINT16, otf_uint16)
DEFINE_GET(Int32,  int32_t,  OTF_INT32,  otf_int32)
DEFINE_GET(Uint32, uint32_t, OTF_UINT32, otf_uint32)
DEFINE_GET(Int64,  int64_t,  OTF_INT64,  otf_int64)
DEFINE_GET(Uint64, uint64_t, OTF_UINT64, otf_uint64)
DEFINE_GET(Float,  float,    OTF_FLOAT,  otf_float)
DEFINE_GET(Double, double,   OTF_DOUBLE, otf_double)

uint8_t OTF_KeyValueList_getByteArray(OTF_KeyValueList *list, uint32_t key,
                                      uint8_t *value, uint32_t *len)
{
    static const char fn[] = "OTF_KeyValueList_getByteArray";
    if (OTF_UNLIKELY(!list || !value || !len)) {
        vftr_otf_seterr("%s: %s is null", fn, !list ? "list" : !value ? "value" : "len");
        return 255;
    }
    uint32_t pos = find(list, key);
    if (pos == NOT_FOUND) {
        *len = 0;
        return 1;
    }
    const OTF_KeyValuePair *p = &list->pairs[list->index[pos].head];
    if (p->type != OTF_BYTE_ARRAY) {
        *len = 0;
        return 2;
    }
    uint32_t total = p->value.otf_byte_array.len;
    uint32_t room = *len;
    uint32_t pieces = span(list, pos);
    uint32_t done = 0;
    /* The k-th piece carries bytes [100k, 100k+100) of the array; copy
     * until the array, the caller's buffer or the pieces run out. */
    for (uint32_t k = 0; k < pieces && done < total && done < room; k++) {
        uint32_t n = total - done < room - done ? total - done : room - done;
        if (n >= ARRAY_LEN) {
            n = ARRAY_LEN;
            memcpy(value + done, p[k].value.otf_byte_array.array, ARRAY_LEN);
        } else {
            copy_piece(value + done, p[k].value.otf_byte_array.array, n);
        }
        done += n;
    }
    if (done == total) {
        *len = total;
        return 0;
    }
    if (done == room)
        return 255;     /* buffer too small; *len already equals what was copied */
    /* The pieces ended early (a damaged list).  OTF 1.12 answers 1 when the
     * array is the last key of the list and 255 when another key follows;
     * programs may rely on either, so keep both. */
    *len = done;
    return pos + 1 == list->key_count ? 1 : 255;
}

uint8_t OTF_KeyValueList_getArrayLength(OTF_KeyValueList *list, uint32_t key, uint32_t *len)
{
    const OTF_KeyValuePair *p = NULL;
    uint8_t rc = lookup(list, key, OTF_BYTE_ARRAY, len, &p,
                        "OTF_KeyValueList_getArrayLength");
    if (rc == 0)
        *len = p->value.otf_byte_array.len;
    return rc;
}

OTF_Type OTF_KeyValueList_getTypeForKey(OTF_KeyValueList *list, uint32_t key)
{
    if (!list)
        return OTF_UNKNOWN;
    uint32_t pos = find(list, key);
    if (pos == NOT_FOUND)
        return OTF_UNKNOWN;
    return list->pairs[list->index[pos].head].type;
}

uint8_t OTF_KeyValueList_hasKey(OTF_KeyValueList *list, uint32_t key)
{
    if (!list)
        return 2;
    return find(list, key) == NOT_FOUND ? 1 : 0;
}

uint8_t OTF_KeyValueList_removeKey(OTF_KeyValueList *list, uint32_t key)
{
    if (!list)
        return 2;
    uint32_t pos = find(list, key);
    if (pos == NOT_FOUND)
        return 1;
    uint32_t head = list->index[pos].head, n = span(list, pos);
    memmove(&list->pairs[head], &list->pairs[head + n],
            (size_t)(list->count - head - n) * sizeof *list->pairs);
    list->count -= n;
    memmove(&list->index[pos], &list->index[pos + 1],
            (size_t)(list->key_count - pos - 1) * sizeof *list->index);
    list->key_count--;
    for (uint32_t i = pos; i < list->key_count; i++)
        list->index[i].head -= n;
    /* Index positions behind pos changed: rebuild (or drop) the table. */
    if (list->hash_mask != 0) {
        if (list->key_count < HASH_MIN)
            list->hash_mask = 0;
        else
            hash_build(list, list->hash_mask + 1);
    }
    return 0;
}

uint8_t OTF_KeyValueList_getKeyByIndex(OTF_KeyValueList *list, uint32_t index, uint32_t *key)
{
    if (!list || !key)
        return 2;
    if (index >= list->key_count)
        return 1;
    *key = list->index[index].key;
    return 0;
}

uint8_t OTF_KeyValueList_getPairByIndex(OTF_KeyValueList *list, uint32_t index,
                                        OTF_KeyValuePair **pair)
{
    if (!list || !pair)
        return 2;
    if (index >= list->key_count)
        return 1;
    *pair = &list->pairs[list->index[index].head];
    return 0;
}

uint32_t OTF_KeyValueList_getCount(OTF_KeyValueList *list)
{
    return list ? list->key_count : 0;
}

/* --- bit-pattern conversions --------------------------------------------- */

/* memcpy is the defined way to reinterpret bits in C; compilers turn it
 * into a register move. */
float OTF_Int32ToFloat(uint32_t value)
{
    float f;
    memcpy(&f, &value, sizeof f);
    return f;
}

uint32_t OTF_FloatToInt32(float value)
{
    uint32_t u;
    memcpy(&u, &value, sizeof u);
    return u;
}

double OTF_Int64ToDouble(uint64_t value)
{
    double d;
    memcpy(&d, &value, sizeof d);
    return d;
}

uint64_t OTF_DoubleToInt64(double value)
{
    uint64_t u;
    memcpy(&u, &value, sizeof u);
    return u;
}
