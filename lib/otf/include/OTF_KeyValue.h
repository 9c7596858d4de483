/*
 * OTF_KeyValue.h — key-value lists: typed values attached to OTF records.
 *
 * A record written with an OTF_Writer_write...KV() call carries a list of
 * (key, type, value) pairs; on disk they become the K lines in front of the
 * record, and the reader hands them to the record's handler in such a list.
 * Keys are numbers that a DefKeyValue record gives a name, a type and a
 * description.
 *
 * Rules of the data structure:
 *  - A key occurs at most once.  Appending a key that is already present
 *    changes nothing and returns 1.
 *  - Pairs keep the order in which their keys were first appended; index i
 *    of getKeyByIndex/getPairByIndex is the i-th key in that order.
 *    Removing a key shifts the keys behind it down by one.
 *  - A byte array holds at most OTF_KEYVALUE_MAX_ARRAY_LEN (100) bytes per
 *    pair.  A longer one is stored as several consecutive pairs with the same
 *    key, each holding the next (up to) 100 bytes and, in value.otf_byte_array
 *    .len, the number of bytes that remain from its own first byte on (so the
 *    first pair holds the total length).  This is exactly how they are
 *    written to disk (one K line per pair).  The index functions and
 *    getCount see such an array as one key; its pair is the first piece.
 *  - OTF_KeyValueList_reset() empties the list but keeps its memory: a list
 *    that is reset and refilled for every record stops allocating once it
 *    has grown to the largest record.  Appending is amortised O(1) (duplicate
 *    detection is a scan of a few keys, or a hash once a list holds many);
 *    index access is O(1).
 *
 * Return values follow OTF 1.12 (they are unusual: 0 means success):
 *  - append*:            0 ok, 1 key already present, 255 error
 *                        (NULL list, invalid argument, out of memory).
 *  - get<Type>:          0 ok, 1 key not present, 2 key holds another type,
 *                        255 error (NULL list or NULL value pointer).
 *                        *value is written only when 0 is returned.
 *  - new/clone:          the list, or NULL when out of memory.
 *  - close/reset/realloc/appendKeyValueList: 0 ok, 1 error.
 *  - hasKey/removeKey:   0 present (removed), 1 not present, 2 NULL list.
 *  - get*ByIndex:        0 ok, 1 index >= getCount(), 2 NULL argument.
 * Errors that return 255 (or 1 from close/reset/realloc/appendKeyValueList,
 * or NULL) also set otf_errno and otf_strerr.
 *
 * Ownership: a list belongs to whoever created it with _new or _clone and
 * must be released with OTF_KeyValueList_close.  Pointers returned by
 * getPairByIndex point into the list and are valid until the list is next
 * modified (append, remove, reset, realloc, close).
 *
 * Threads: a list is plain data without locks.  Different lists may be used
 * by different threads at the same time; one list must not be modified while
 * another thread uses it.
 */
#ifndef OTF_KEYVALUE_H
#define OTF_KEYVALUE_H

#include "OTF_inttypes.h"
#include "OTF_Definitions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The value types a pair can hold.  The numbers are written to disk (the Y
 * field of a K line and of DefKeyValue) and must not change. */
typedef enum OTF_Type_enum {
    OTF_UNKNOWN = -1,
    OTF_CHAR = 0,
    OTF_INT8 = 1,
    OTF_UINT8 = 2,
    OTF_INT16 = 3,
    OTF_UINT16 = 4,
    OTF_INT32 = 5,
    OTF_UINT32 = 6,
    OTF_INT64 = 7,
    OTF_UINT64 = 8,
    OTF_FLOAT = 9,
    OTF_DOUBLE = 10,
    OTF_BYTE_ARRAY = 11
} OTF_Type;

/* One piece of a byte array: up to OTF_KEYVALUE_MAX_ARRAY_LEN bytes in
 * `array`, and in `len` the number of bytes of the whole array that remain
 * from this piece's first byte on (see the rules above). */
typedef struct byte_array_struct {
    uint8_t array[OTF_KEYVALUE_MAX_ARRAY_LEN];
    uint32_t len;
} byte_array;

/* The value of a pair; the member that is valid is given by the pair's type. */
typedef union OTF_Value_union {
    char        otf_char;
    int8_t      otf_int8;
    uint8_t     otf_uint8;
    int16_t     otf_int16;
    uint16_t    otf_uint16;
    int32_t     otf_int32;
    uint32_t    otf_uint32;
    int64_t     otf_int64;
    uint64_t    otf_uint64;
    float       otf_float;
    double      otf_double;
    byte_array  otf_byte_array;
} OTF_Value;

/* One key-value pair.  Programs may read the members directly. */
struct OTF_KeyValuePair_struct {
    uint32_t key;
    OTF_Type type;
    OTF_Value value;
};
typedef struct OTF_KeyValuePair_struct OTF_KeyValuePair;

/* Where the first pair of the i-th key is stored (library internal). */
struct vftr_otf_kvindex {
    uint32_t key;
    uint32_t head;          /* position in pairs[] */
};

/* The list.  Unlike OTF 1.12, which keeps a linked list here, vftr stores
 * the pairs in an array; only the three counters below have the meaning
 * they had in OTF 1.12.  Programs should treat the structure as read-only
 * and prefer the functions.
 *
 * Inside the library the writer walks pairs[0 .. count) in order: that is
 * one K line per element, the pieces of long byte arrays included. */
struct OTF_KeyValueList_struct {
    uint32_t key_count;     /* keys in the list (= OTF_KeyValueList_getCount) */
    uint32_t count;         /* pairs in pairs[] (a long byte array has several) */
    uint32_t size;          /* capacity of pairs[] and index[] */
    OTF_KeyValuePair *pairs;            /* [0, count), in write order */
    struct vftr_otf_kvindex *index;     /* [0, key_count), in key order */
    uint32_t *hash;         /* key -> index position + 1; 0 = free slot */
    uint32_t hash_mask;     /* slots in use - 1; 0 while the hash is off */
    uint32_t hash_alloc;    /* slots allocated */
};
typedef struct OTF_KeyValueList_struct OTF_KeyValueList;

/* --- life cycle ---------------------------------------------------------- */

/* Creates an empty list with room for a few pairs.  Returns NULL (and sets
 * otf_errno) when out of memory.  Caller owns it: OTF_KeyValueList_close. */
OTF_KeyValueList *OTF_KeyValueList_new(void);

/* Frees the list and everything in it.  0 on success, 1 if list is NULL. */
uint8_t OTF_KeyValueList_close(OTF_KeyValueList *list);

/* Returns a new list with the same pairs in the same order (caller owns it),
 * or NULL when out of memory.  Like OTF 1.12, cloning NULL returns a new
 * empty list. */
OTF_KeyValueList *OTF_KeyValueList_clone(OTF_KeyValueList *list);

/* Removes all pairs; getCount() is 0 afterwards.  Keeps the memory.  O(1).
 * 0 on success, 1 if list is NULL. */
uint8_t OTF_KeyValueList_reset(OTF_KeyValueList *list);

/* Makes room for num more pairs than the list can hold now (list->size grows
 * by num), so that the next appends do not allocate.  0 on success, 1 if
 * list is NULL or memory is exhausted (the list is then unchanged). */
uint8_t OTF_KeyValueList_realloc(OTF_KeyValueList *list, uint32_t num);

/* --- appending ----------------------------------------------------------- */

/* Appends a copy of pair.  Returns 0, 1 if pair.key is already in the list,
 * 255 on error (NULL list, type outside OTF_CHAR..OTF_BYTE_ARRAY, no
 * memory).  A pair of type OTF_BYTE_ARRAY whose key is the most recently
 * appended key, itself an unfinished byte array (its last piece has len >
 * OTF_KEYVALUE_MAX_ARRAY_LEN), is taken as the next piece of that array and
 * returns 0: this is how the reader rebuilds arrays that span several K
 * lines.  The pair is stored as given (len is not checked). */
uint8_t OTF_KeyValueList_appendPair(OTF_KeyValueList *list, OTF_KeyValuePair pair);

/* Append one value of the named type under key.  0 ok, 1 key already
 * present (the list is unchanged), 255 error (NULL list, no memory). */
uint8_t OTF_KeyValueList_appendChar(OTF_KeyValueList *list, uint32_t key, char value);
uint8_t OTF_KeyValueList_appendInt8(OTF_KeyValueList *list, uint32_t key, int8_t value);
uint8_t OTF_KeyValueList_appendUint8(OTF_KeyValueList *list, uint32_t key, uint8_t value);
uint8_t OTF_KeyValueList_appendInt16(OTF_KeyValueList *list, uint32_t key, int16_t value);
uint8_t OTF_KeyValueList_appendUint16(OTF_KeyValueList *list, uint32_t key, uint16_t value);
uint8_t OTF_KeyValueList_appendInt32(OTF_KeyValueList *list, uint32_t key, int32_t value);
uint8_t OTF_KeyValueList_appendUint32(OTF_KeyValueList *list, uint32_t key, uint32_t value);
uint8_t OTF_KeyValueList_appendInt64(OTF_KeyValueList *list, uint32_t key, int64_t value);
uint8_t OTF_KeyValueList_appendUint64(OTF_KeyValueList *list, uint32_t key, uint64_t value);
uint8_t OTF_KeyValueList_appendFloat(OTF_KeyValueList *list, uint32_t key, float value);
uint8_t OTF_KeyValueList_appendDouble(OTF_KeyValueList *list, uint32_t key, double value);

/* Copies len bytes from value under key, split into pieces of at most
 * OTF_KEYVALUE_MAX_ARRAY_LEN bytes (see the rules above).  len 0 appends
 * nothing and returns 0 (as OTF 1.12 does).  0 ok, 1 key already present,
 * 255 error (NULL list, value NULL with len > 0, no memory). */
uint8_t OTF_KeyValueList_appendByteArray(OTF_KeyValueList *list, uint32_t key,
                                         uint8_t *value, uint32_t len);

/* Appends every key of source_list that dest_list does not have yet, with
 * all its pieces, in source order; keys already in dest_list keep dest's
 * value.  source_list is not changed.  0 on success (also when nothing was
 * new), 1 if either list is NULL or memory is exhausted (dest may then hold
 * some of the new keys). */
uint8_t OTF_KeyValueList_appendKeyValueList(OTF_KeyValueList *dest_list,
                                            OTF_KeyValueList *source_list);

/* --- reading ------------------------------------------------------------- */

/* Store the value of key in *value.  0 ok, 1 key not present, 2 the key
 * holds another type, 255 NULL list or value.  No conversion between types
 * takes place (an OTF_INT32 value is not returned by getUint32). */
uint8_t OTF_KeyValueList_getChar(OTF_KeyValueList *list, uint32_t key, char *value);
uint8_t OTF_KeyValueList_getInt8(OTF_KeyValueList *list, uint32_t key, int8_t *value);
uint8_t OTF_KeyValueList_getUint8(OTF_KeyValueList *list, uint32_t key, uint8_t *value);
uint8_t OTF_KeyValueList_getInt16(OTF_KeyValueList *list, uint32_t key, int16_t *value);
uint8_t OTF_KeyValueList_getUint16(OTF_KeyValueList *list, uint32_t key, uint16_t *value);
uint8_t OTF_KeyValueList_getInt32(OTF_KeyValueList *list, uint32_t key, int32_t *value);
uint8_t OTF_KeyValueList_getUint32(OTF_KeyValueList *list, uint32_t key, uint32_t *value);
uint8_t OTF_KeyValueList_getInt64(OTF_KeyValueList *list, uint32_t key, int64_t *value);
uint8_t OTF_KeyValueList_getUint64(OTF_KeyValueList *list, uint32_t key, uint64_t *value);
uint8_t OTF_KeyValueList_getFloat(OTF_KeyValueList *list, uint32_t key, float *value);
uint8_t OTF_KeyValueList_getDouble(OTF_KeyValueList *list, uint32_t key, double *value);

/* Copies the byte array of key, reassembled from its pieces, into value,
 * which has room for *len bytes.
 *  0    the whole array was copied; *len = its length.
 *  255  the buffer was too small: its *len bytes hold the start of the array
 *       (*len unchanged).  Ask getArrayLength first.
 *  1    key not present (*len = 0).
 *  2    the key holds another type (*len = 0).
 *  255  NULL list, value or len.
 * If the array ends before its announced length (a list read from a damaged
 * file), the bytes present are copied, *len says how many, and the result
 * is 1 when the array is the last key of the list, 255 otherwise (both as
 * OTF 1.12 does). */
uint8_t OTF_KeyValueList_getByteArray(OTF_KeyValueList *list, uint32_t key,
                                      uint8_t *value, uint32_t *len);

/* Stores the total length of the byte array of key in *len.  0 ok, 1 key
 * not present, 2 another type, 255 NULL list or len (*len then unchanged). */
uint8_t OTF_KeyValueList_getArrayLength(OTF_KeyValueList *list, uint32_t key, uint32_t *len);

/* Returns the type of key, or OTF_UNKNOWN if it is not present or list is NULL. */
OTF_Type OTF_KeyValueList_getTypeForKey(OTF_KeyValueList *list, uint32_t key);

/* 0 if key is present, 1 if not, 2 if list is NULL. */
uint8_t OTF_KeyValueList_hasKey(OTF_KeyValueList *list, uint32_t key);

/* Removes key and, for a byte array, all its pieces; later keys move down by
 * one index.  O(number of pairs).  0 removed, 1 not present, 2 NULL list.
 * (OTF 1.12 removes only the first piece of a long byte array and does not
 * lower getCount(); vftr does what the documentation promises.) */
uint8_t OTF_KeyValueList_removeKey(OTF_KeyValueList *list, uint32_t key);

/* Stores the key at position index (0 .. getCount()-1) in *key.  O(1).
 * 0 ok, 1 index out of range (*key unchanged), 2 NULL list or key. */
uint8_t OTF_KeyValueList_getKeyByIndex(OTF_KeyValueList *list, uint32_t index, uint32_t *key);

/* Stores a pointer to the pair at position index in *pair (for a long byte
 * array: its first piece, whose len is the total length).  The pair belongs
 * to the list and is valid until the list is modified; its value may be
 * changed in place, its key and type must not.  O(1).  0 ok, 1 index
 * out of range (*pair unchanged), 2 NULL list or pair. */
uint8_t OTF_KeyValueList_getPairByIndex(OTF_KeyValueList *list, uint32_t index,
                                        OTF_KeyValuePair **pair);

/* Returns the number of keys in the list (0 for NULL). */
uint32_t OTF_KeyValueList_getCount(OTF_KeyValueList *list);

/* --- bit-pattern conversions --------------------------------------------- */

/* Reinterpret the IEEE-754 bits of a float/double as an integer and back
 * (no numeric conversion: OTF_FloatToInt32(1.5f) is 0x3fc00000).  This is
 * how floats and doubles are written in K lines. */
float OTF_Int32ToFloat(uint32_t value);
uint32_t OTF_FloatToInt32(float value);
double OTF_Int64ToDouble(uint64_t value);
uint64_t OTF_DoubleToInt64(double value);

#ifdef __cplusplus
}
#endif

#endif /* OTF_KEYVALUE_H */
