/*
 * otf_kv_internal.h — raw access to a key-value list for the writer and the
 * reader.  A byte array longer than OTF_KEYVALUE_MAX_ARRAY_LEN is stored as
 * several entries with the same key, each holding up to that many bytes and,
 * in value.otf_byte_array.len, the number of bytes remaining from it on (the
 * first entry: the total length).  This is also how such arrays look on disk,
 * one "K" line per entry.
 */
#ifndef VFTR_OTF_KV_INTERNAL_H
#define VFTR_OTF_KV_INTERNAL_H

#include "OTF_KeyValue.h"

/* Number of raw entries (byte-array pieces counted one by one). */
uint32_t vftr_otf_kv_raw_count(const OTF_KeyValueList* list);
/* Raw entry i < vftr_otf_kv_raw_count(list); borrowed until the list changes. */
const OTF_KeyValuePair* vftr_otf_kv_raw_pair(const OTF_KeyValueList* list, uint32_t i);
/* Appends one raw entry as read from a file (a byte-array piece stays a
 * piece).  1 ok, 0 out of memory. */
int vftr_otf_kv_raw_append(OTF_KeyValueList* list, const OTF_KeyValuePair* pair);

/* Empties a list after a record; nearly always it is empty already. */
static inline void vftr_otf_kv_clear(OTF_KeyValueList* list)
{
    if (list->count != 0)
        OTF_KeyValueList_reset(list);
}

#endif /* VFTR_OTF_KV_INTERNAL_H */
