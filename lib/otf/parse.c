/*
 * parse.c — the out-of-line parts of record parsing: arrays, the version
 * record, key-value lines and error messages.
 */
#include <stdlib.h>
#include <string.h>

#include "otf_kv_internal.h"
#include "otf_parse.h"

/* Only lower-case digits are hex in OTF files: upper-case letters are
 * keywords and tags, which is what lets the short format glue them. */
const uint8_t vftr_otf_hexval[256] = {
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 10, 11, 12, 13, 14, 15, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
};

int vftr_otf_parse_array(vftr_otf_parse* ps, uint32_t* n, const uint32_t** out)
{
    uint32_t count = 0;
    for (;;) {
        vftr_otf_parse_blanks(ps);
        if (vftr_otf_hexval[(unsigned char)*ps->p] > 15)
            break;
        uint32_t v;
        if (!vftr_otf_parse_u32(ps, &v))
            return 0;
        if (*ps->p != ',')
            return 0;
        ps->p++;
        if (count == ps->arrcap) {
            uint32_t ncap = ps->arrcap ? ps->arrcap * 2 : 64;
            uint32_t* na = realloc(ps->arr, sizeof *na * ncap);
            if (na == NULL)
                return 0;
            ps->arr = na;
            ps->arrcap = ncap;
        }
        ps->arr[count++] = v;
    }
    *n = count;
    *out = ps->arr;
    return 1;
}

int vftr_otf_parse_version(vftr_otf_parse* ps, uint8_t* major, uint8_t* minor, uint8_t* sub,
                           const char** string)
{
    uint32_t a, b, c;
    if (!vftr_otf_parse_u32(ps, &a) || *ps->p != '.')
        return 0;
    ps->p++;
    if (!vftr_otf_parse_u32(ps, &b) || *ps->p != '.')
        return 0;
    ps->p++;
    if (!vftr_otf_parse_u32(ps, &c))
        return 0;
    if (a > 255 || b > 255 || c > 255)
        return 0;
    *major = (uint8_t)a;
    *minor = (uint8_t)b;
    *sub = (uint8_t)c;
    return vftr_otf_parse_string(ps, string);
}

int vftr_otf_parse_fail(vftr_otf_parse* ps, const char* what)
{
    size_t len = (size_t)(ps->end - ps->line);
    vftr_otf_seterr("%s: offset %llu: malformed %s record at column %d: \"%.*s\"",
                    ps->file ? ps->file : "(trace)", (unsigned long long)ps->offset, what,
                    (int)(ps->p - ps->line) + 1, (int)(len > 80 ? 80 : len), ps->line);
    return VFTR_OTF_PARSE_ERROR;
}

static int type_bits_ok(OTF_Type type, uint64_t v)
{
    switch (type) {
    case OTF_CHAR: case OTF_INT8: case OTF_UINT8: return v <= 0xff;
    case OTF_INT16: case OTF_UINT16: return v <= 0xffff;
    case OTF_INT32: case OTF_UINT32: case OTF_FLOAT: return v <= 0xffffffffu;
    case OTF_INT64: case OTF_UINT64: case OTF_DOUBLE: return 1;
    default: return 0;
    }
}

/* "K<key>Y<type>V<value>" or "KEY k TYPE t VALUE v"; byte arrays carry
 * hex byte pairs and "L<remaining>" / "LEN<remaining>". */
int vftr_otf_parse_kv(vftr_otf_parse* ps)
{
    uint32_t key, type;
    if (!vftr_otf_parse_u32(ps, &key) || !vftr_otf_parse_tag(ps, "Y", 1, "TYPE", 4) ||
        !vftr_otf_parse_u32(ps, &type) || !vftr_otf_parse_tag(ps, "V", 1, "VALUE", 5))
        return vftr_otf_parse_fail(ps, "key-value") != VFTR_OTF_PARSE_ERROR;
    OTF_KeyValuePair pair;
    memset(&pair, 0, sizeof pair);
    pair.key = key;
    pair.type = (OTF_Type)type;
    vftr_otf_parse_blanks(ps);
    if (type == OTF_BYTE_ARRAY) {
        uint32_t n = 0;
        while (vftr_otf_hexval[(unsigned char)ps->p[0]] <= 15 &&
               vftr_otf_hexval[(unsigned char)ps->p[1]] <= 15) {
            if (n == OTF_KEYVALUE_MAX_ARRAY_LEN)
                return vftr_otf_parse_fail(ps, "key-value (byte array too long)") !=
                       VFTR_OTF_PARSE_ERROR;
            pair.value.otf_byte_array.array[n++] =
                (uint8_t)(vftr_otf_hexval[(unsigned char)ps->p[0]] << 4 |
                          vftr_otf_hexval[(unsigned char)ps->p[1]]);
            ps->p += 2;
        }
        uint32_t len;
        if (!vftr_otf_parse_tag(ps, "L", 1, "LEN", 3) || !vftr_otf_parse_u32(ps, &len) ||
            len < n || (len > n && n != OTF_KEYVALUE_MAX_ARRAY_LEN))
            return vftr_otf_parse_fail(ps, "key-value (byte array length)") !=
                   VFTR_OTF_PARSE_ERROR;
        pair.value.otf_byte_array.len = len;
    } else {
        uint64_t v;
        if (!vftr_otf_parse_u64(ps, &v) || !type_bits_ok(pair.type, v))
            return vftr_otf_parse_fail(ps, "key-value (value)") != VFTR_OTF_PARSE_ERROR;
        switch (pair.type) {
        case OTF_CHAR: pair.value.otf_char = (char)v; break;
        case OTF_INT8: pair.value.otf_int8 = (int8_t)v; break;
        case OTF_UINT8: pair.value.otf_uint8 = (uint8_t)v; break;
        case OTF_INT16: pair.value.otf_int16 = (int16_t)v; break;
        case OTF_UINT16: pair.value.otf_uint16 = (uint16_t)v; break;
        case OTF_INT32: pair.value.otf_int32 = (int32_t)v; break;
        case OTF_UINT32: pair.value.otf_uint32 = (uint32_t)v; break;
        case OTF_INT64: pair.value.otf_int64 = (int64_t)v; break;
        case OTF_UINT64: pair.value.otf_uint64 = v; break;
        case OTF_FLOAT: {
            uint32_t u = (uint32_t)v;
            memcpy(&pair.value.otf_float, &u, sizeof u);
            break;
        }
        case OTF_DOUBLE: memcpy(&pair.value.otf_double, &v, sizeof v); break;
        default: break;
        }
    }
    if (!vftr_otf_parse_end(ps))
        return vftr_otf_parse_fail(ps, "key-value (end of record)") != VFTR_OTF_PARSE_ERROR;
    if (!vftr_otf_kv_raw_append(ps->kv, &pair)) {
        vftr_otf_seterr("%s: out of memory for a key-value list", ps->file ? ps->file : "");
        return 0;
    }
    return 1;
}
