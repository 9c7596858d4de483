/*
 * kv_raw.c — raw entry access to key-value lists (otf_kv_internal.h) for
 * the record writer and parser.  The list keeps its pairs in write order,
 * byte-array pieces one by one, which is exactly the order of "K" lines on
 * disk.
 */
#include "OTF_KeyValue.h"
#include "otf_kv_internal.h"

uint32_t vftr_otf_kv_raw_count(const OTF_KeyValueList* list)
{
    return list ? list->count : 0;
}

const OTF_KeyValuePair* vftr_otf_kv_raw_pair(const OTF_KeyValueList* list, uint32_t i)
{
    return &list->pairs[i];
}

int vftr_otf_kv_raw_append(OTF_KeyValueList* list, const OTF_KeyValuePair* pair)
{
    /* appendPair accepts the continuation pieces of a long byte array.  A
     * repeated key (1) keeps its first value, as OTF readers do; only 255
     * (out of memory, invalid type) is an error. */
    return OTF_KeyValueList_appendPair(list, *pair) != 255;
}
