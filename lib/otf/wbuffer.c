/*
 * wbuffer.c — OTF_WBuffer: text buffer, time/process state machine and the
 * out-of-line parts of record encoding (see otf_wbuf.h for the fast path).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "OTF_File.h"
#include "OTF_WBuffer.h"
#include "otf_internal.h"
#include "otf_kv_internal.h"
#include "otf_wbuf.h"

const char vftr_otf_hexpairs[512] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* The reference's default: 1 MiB of text per file.  For compressed files this
 * is also the size of one independently decodable segment. */
#define WBUFFER_DEFAULT_SIZE (1024u * 1024u)
#define WBUFFER_Z_SIZE       (256u * 1024u)

OTF_WBuffer* OTF_WBuffer_open_zlevel(const char* filename, OTF_FileManager* manager,
                                     OTF_FileCompression compression)
{
    OTF_WBuffer* b = calloc(1, sizeof *b);
    if (b == NULL) {
        vftr_otf_seterr("%s: out of memory", filename ? filename : "(null)");
        return NULL;
    }
    /* compressed files start with smaller segments (see wstream.c) */
    uint32_t size = compression != OTF_FILECOMPRESSION_UNCOMPRESSED ? WBUFFER_Z_SIZE
                                                                    : WBUFFER_DEFAULT_SIZE;
    b->buffer = malloc(size);
    if (b->buffer == NULL) {
        free(b);
        vftr_otf_seterr("%s: out of memory", filename ? filename : "(null)");
        return NULL;
    }
    b->size = size;
    b->process = (uint32_t)-1;
    b->time = 0;
    b->zbuffersize = OTF_ZBUFFER_DEFAULTSIZE;
    b->file = OTF_File_open_zlevel(filename, manager, OTF_FILEMODE_WRITE, compression);
    if (b->file == NULL) {
        free(b->buffer);
        free(b);
        return NULL;
    }
    return b;
}

OTF_WBuffer* OTF_WBuffer_open(const char* filename, OTF_FileManager* manager)
{
    return OTF_WBuffer_open_zlevel(filename, manager, OTF_FILECOMPRESSION_UNCOMPRESSED);
}

int OTF_WBuffer_flush(OTF_WBuffer* b)
{
    if (b == NULL)
        return 0;
    if (b->failed)
        return 0;
    if (b->pos == 0)
        return 1;
    size_t n = OTF_File_write(b->file, b->buffer, b->pos);
    if (n != b->pos) {
        b->failed = 1;
        if (otf_errno == OTF_NO_ERROR)
            vftr_otf_seterr("cannot write %u bytes of trace text", (unsigned)b->pos);
        return 0;
    }
    b->pos = 0;
    return 1;
}

int OTF_WBuffer_close(OTF_WBuffer* b)
{
    if (b == NULL)
        return 1;
    int ok = 1;
    /* Repeat the last state so that a reader finds a time stamp near the end
     * of the file without scanning backwards through many records.  It goes
     * into a segment of its own: in a compressed file the reader then finds
     * it right at the end instead of inflating a whole last segment. */
    if (b->timed && !b->failed) {
        if (!OTF_WBuffer_flush(b))
            ok = 0;
        if (vftr_otf_wb_reserve(b, 36)) {
            vftr_otf_wb_hex(b, b->time);
            vftr_otf_wb_lit(b, "\n*", 2);
            vftr_otf_wb_hex(b, b->process);
            vftr_otf_wb_char(b, '\n');
        } else {
            ok = 0;
        }
    }
    if (!OTF_WBuffer_flush(b))
        ok = 0;
    if (b->file != NULL && !OTF_File_close(b->file))
        ok = 0;
    free(b->buffer);
    free(b);
    return ok;
}

int OTF_WBuffer_setSize(OTF_WBuffer* b, size_t size)
{
    if (b == NULL)
        return 0;
    if (size <= b->size)
        return 1;
    if (size > UINT32_MAX) {
        vftr_otf_seterr("write buffer size %zu too large", size);
        return 0;
    }
    char* nb = realloc(b->buffer, size);
    if (nb == NULL) {
        vftr_otf_seterr("out of memory for a write buffer of %zu bytes", size);
        return 0;
    }
    b->buffer = nb;
    b->size = (uint32_t)size;
    return 1;
}

void OTF_WBuffer_setZBufferSize(OTF_WBuffer* b, uint32_t size)
{
    if (b == NULL)
        return;
    b->zbuffersize = size;
    if (b->file != NULL)
        OTF_File_setZBufferSize(b->file, size);
}

int vftr_otf_wb_make_room(OTF_WBuffer* b, size_t n)
{
    if (b->failed)
        return 0;
    if (!OTF_WBuffer_flush(b))
        return 0;
    if (n > b->size)
        return OTF_WBuffer_setSize(b, n);
    return 1;
}

int OTF_WBuffer_guarantee(OTF_WBuffer* b, size_t space)
{
    if (b == NULL)
        return 0;
    return vftr_otf_wb_reserve(b, space);
}

int vftr_otf_wb_state_slow(OTF_WBuffer* b, uint64_t t, uint32_t p)
{
    if (b->failed)
        return 0;
    b->timed = 1;
    if (b->time == UINT64_MAX && t != UINT64_MAX) {
        /* The file already hit a decreasing time stamp: drop silently. */
        return 0;
    }
    if (t == b->time && t != 0)
        return p == b->process || vftr_otf_wb_put_process(b, p);
    if (t > b->time || t == 0)
        return vftr_otf_wb_put_time_process(b, t, p);
    /* Time went backwards: the file cannot stay sorted.  Say so once in the
     * file itself and refuse every later timed record, as OTF readers expect
     * (their binary search relies on sorted time stamps). */
    static const char msg[] = "#\"error due to unsorted time stamp, aborted\"\n";
    if (vftr_otf_wb_reserve(b, sizeof msg - 1))
        vftr_otf_wb_lit(b, msg, sizeof msg - 1);
    vftr_otf_seterr("time stamp %llx is lower than the previous one %llx in this file",
                    (unsigned long long)t, (unsigned long long)b->time);
    b->time = UINT64_MAX;
    return 0;
}

int OTF_WBuffer_setTimeAndProcess(OTF_WBuffer* b, uint64_t t, uint32_t p)
{
    if (b == NULL)
        return 0;
    return vftr_otf_wb_state(b, t, p);
}

int vftr_otf_wb_string(OTF_WBuffer* b, const char* s)
{
    size_t n = s ? strlen(s) : 0;
    if (!vftr_otf_wb_reserve(b, n + 2))
        return 0;
    char* p = b->buffer + b->pos;
    *p++ = '"';
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        /* Strings have no escapes on disk: a quote or newline would end the
         * string or the record, so both become blanks. */
        p[i] = (c == '"' || c == '\n') ? ' ' : c;
    }
    p[n] = '"';
    b->pos += (uint32_t)(n + 2);
    return 1;
}

int vftr_otf_wb_array(OTF_WBuffer* b, const uint32_t* a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!vftr_otf_wb_reserve(b, 9))
            return 0;
        vftr_otf_wb_hex(b, a[i]);
        vftr_otf_wb_char(b, ',');
    }
    return 1;
}

void vftr_otf_kv_reset(OTF_KeyValueList* list)
{
    if (list != NULL)
        OTF_KeyValueList_reset(list);
}

/* Bit pattern of a value at the width of its type. */
static uint64_t kv_bits(const OTF_KeyValuePair* kv)
{
    switch (kv->type) {
    case OTF_CHAR:   return (uint8_t)kv->value.otf_char;
    case OTF_INT8:   return (uint8_t)kv->value.otf_int8;
    case OTF_UINT8:  return kv->value.otf_uint8;
    case OTF_INT16:  return (uint16_t)kv->value.otf_int16;
    case OTF_UINT16: return kv->value.otf_uint16;
    case OTF_INT32:  return (uint32_t)kv->value.otf_int32;
    case OTF_UINT32: return kv->value.otf_uint32;
    case OTF_INT64:  return (uint64_t)kv->value.otf_int64;
    case OTF_UINT64: return kv->value.otf_uint64;
    case OTF_FLOAT: {
        uint32_t u;
        memcpy(&u, &kv->value.otf_float, sizeof u);
        return u;
    }
    case OTF_DOUBLE: {
        uint64_t u;
        memcpy(&u, &kv->value.otf_double, sizeof u);
        return u;
    }
    default:
        return 0;
    }
}

static int kv_pair(OTF_WBuffer* b, const OTF_KeyValuePair* kv, int longfmt)
{
    /* Fixed part: tags, key, type and a 64-bit value. */
    if (!vftr_otf_wb_reserve(b, 48))
        return 0;
    if (longfmt) {
        vftr_otf_wb_lit(b, "KEY ", 4);
        vftr_otf_wb_hex(b, kv->key);
        vftr_otf_wb_lit(b, " TYPE ", 6);
        vftr_otf_wb_hex(b, (uint32_t)kv->type);
        vftr_otf_wb_lit(b, " VALUE ", 7);
    } else {
        vftr_otf_wb_char(b, 'K');
        vftr_otf_wb_hex(b, kv->key);
        vftr_otf_wb_char(b, 'Y');
        vftr_otf_wb_hex(b, (uint32_t)kv->type);
        vftr_otf_wb_char(b, 'V');
    }
    if (kv->type == OTF_BYTE_ARRAY) {
        uint32_t len = kv->value.otf_byte_array.len;
        uint32_t here = len < OTF_KEYVALUE_MAX_ARRAY_LEN ? len : OTF_KEYVALUE_MAX_ARRAY_LEN;
        if (!vftr_otf_wb_reserve(b, 2 * (size_t)here + 16))
            return 0;
        static const char digits[] = "0123456789abcdef";
        for (uint32_t i = 0; i < here; i++) {
            uint8_t c = kv->value.otf_byte_array.array[i];
            vftr_otf_wb_char(b, digits[c >> 4]);
            vftr_otf_wb_char(b, digits[c & 15]);
        }
        /* The length tag is glued to the bytes in both formats. */
        if (longfmt)
            vftr_otf_wb_lit(b, "LEN", 3);
        else
            vftr_otf_wb_char(b, 'L');
        vftr_otf_wb_hex(b, len);
    } else {
        vftr_otf_wb_hex(b, kv_bits(kv));
    }
    vftr_otf_wb_char(b, '\n');
    return 1;
}

int vftr_otf_wb_kvlist(OTF_WBuffer* b, OTF_KeyValueList* list, int longfmt)
{
    uint32_t n = vftr_otf_kv_raw_count(list);
    int ok = 1;
    for (uint32_t i = 0; i < n && ok; i++)
        ok = kv_pair(b, vftr_otf_kv_raw_pair(list, i), longfmt);
    OTF_KeyValueList_reset(list);
    return ok;
}

/* ---- the public basic appends ------------------------------------------ */

uint32_t OTF_WBuffer_writeKeyword(OTF_WBuffer* b, const char* keyword)
{
    size_t n = strlen(keyword);
    if (b == NULL || !vftr_otf_wb_reserve(b, n))
        return 0;
    vftr_otf_wb_lit(b, keyword, n);
    return (uint32_t)n;
}

uint32_t OTF_WBuffer_writeString(OTF_WBuffer* b, const char* string)
{
    if (b == NULL)
        return 0;
    uint32_t before = b->pos;
    if (!vftr_otf_wb_string(b, string))
        return 0;
    /* A flush inside may have reset pos; report the string's own length. */
    return b->pos >= before ? b->pos - before : (uint32_t)(strlen(string ? string : "") + 2);
}

uint32_t OTF_WBuffer_writeChar(OTF_WBuffer* b, const char character)
{
    if (b == NULL || !vftr_otf_wb_reserve(b, 1))
        return 0;
    vftr_otf_wb_char(b, character);
    return 1;
}

static uint32_t write_hex(OTF_WBuffer* b, uint64_t v)
{
    if (b == NULL || !vftr_otf_wb_reserve(b, 16))
        return 0;
    uint32_t before = b->pos;
    vftr_otf_wb_hex(b, v);
    return b->pos - before;
}

uint32_t OTF_WBuffer_writeUint8(OTF_WBuffer* b, uint8_t value) { return write_hex(b, value); }
uint32_t OTF_WBuffer_writeUint16(OTF_WBuffer* b, uint16_t value) { return write_hex(b, value); }
uint32_t OTF_WBuffer_writeUint32(OTF_WBuffer* b, uint32_t value) { return write_hex(b, value); }
uint32_t OTF_WBuffer_writeUint64(OTF_WBuffer* b, uint64_t value) { return write_hex(b, value); }

uint32_t OTF_WBuffer_writeNewline(OTF_WBuffer* b)
{
    return OTF_WBuffer_writeChar(b, '\n');
}

uint32_t OTF_WBuffer_writeBytes(OTF_WBuffer* b, const uint8_t* value, uint32_t len)
{
    if (b == NULL || !vftr_otf_wb_reserve(b, 2 * (size_t)len))
        return 0;
    static const char digits[] = "0123456789abcdef";
    for (uint32_t i = 0; i < len; i++) {
        vftr_otf_wb_char(b, digits[value[i] >> 4]);
        vftr_otf_wb_char(b, digits[value[i] & 15]);
    }
    return 2 * len;
}

uint32_t OTF_WBuffer_writeKeyValuePair_short(OTF_WBuffer* b, OTF_KeyValuePair* pair)
{
    if (b == NULL || pair == NULL)
        return 0;
    uint32_t before = b->pos;
    if (!kv_pair(b, pair, 0))
        return 0;
    return b->pos - before;
}

uint32_t OTF_WBuffer_writeKeyValuePair_long(OTF_WBuffer* b, OTF_KeyValuePair* pair)
{
    if (b == NULL || pair == NULL)
        return 0;
    uint32_t before = b->pos;
    if (!kv_pair(b, pair, 1))
        return 0;
    return b->pos - before;
}

uint32_t OTF_WBuffer_writeKeyValueList_short(OTF_WBuffer* b, OTF_KeyValueList* list)
{
    if (b == NULL || list == NULL)
        return 0;
    uint32_t n = vftr_otf_kv_raw_count(list);
    return vftr_otf_wb_kvlist(b, list, 0) ? n : 0;
}

uint32_t OTF_WBuffer_writeKeyValueList_long(OTF_WBuffer* b, OTF_KeyValueList* list)
{
    if (b == NULL || list == NULL)
        return 0;
    uint32_t n = vftr_otf_kv_raw_count(list);
    return vftr_otf_wb_kvlist(b, list, 1) ? n : 0;
}
