/* print.c — field printers of vftr's record printer (vftr_otf_print.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf_kv_internal.h"
#include "otf_records_impl.h"

void vftr_otf_print_string(FILE* o, const char* name, const char* s)
{
    fprintf(o, " %s=\"%s\"", name, s ? s : "");
}

void vftr_otf_print_array(FILE* o, const char* name, const uint32_t* a, uint32_t n)
{
    fprintf(o, " %s=[", name);
    for (uint32_t i = 0; i < n; i++)
        fprintf(o, i ? ",%" PRIu32 : "%" PRIu32, a[i]);
    fputc(']', o);
}

void vftr_otf_print_kv(FILE* o, OTF_KeyValueList* list)
{
    uint32_t n = list ? vftr_otf_kv_raw_count(list) : 0;
    if (n == 0)
        return;
    fputs(" kv={", o);
    for (uint32_t i = 0; i < n; i++) {
        const OTF_KeyValuePair* p = vftr_otf_kv_raw_pair(list, i);
        fprintf(o, i ? ",%" PRIu32 ":" : "%" PRIu32 ":", p->key);
        switch (p->type) {
        case OTF_CHAR: fprintf(o, "%d", p->value.otf_char); break;
        case OTF_INT8: fprintf(o, "%d", p->value.otf_int8); break;
        case OTF_UINT8: fprintf(o, "%u", p->value.otf_uint8); break;
        case OTF_INT16: fprintf(o, "%d", p->value.otf_int16); break;
        case OTF_UINT16: fprintf(o, "%u", p->value.otf_uint16); break;
        case OTF_INT32: fprintf(o, "%" PRId32, p->value.otf_int32); break;
        case OTF_UINT32: fprintf(o, "%" PRIu32, p->value.otf_uint32); break;
        case OTF_INT64: fprintf(o, "%" PRId64, p->value.otf_int64); break;
        case OTF_UINT64: fprintf(o, "%" PRIu64, p->value.otf_uint64); break;
        case OTF_FLOAT: fprintf(o, "%g", (double)p->value.otf_float); break;
        case OTF_DOUBLE: fprintf(o, "%g", p->value.otf_double); break;
        case OTF_BYTE_ARRAY: {
            uint32_t len = p->value.otf_byte_array.len;
            uint32_t here = len < OTF_KEYVALUE_MAX_ARRAY_LEN ? len : OTF_KEYVALUE_MAX_ARRAY_LEN;
            fputs("0x", o);
            for (uint32_t j = 0; j < here; j++)
                fprintf(o, "%02x", p->value.otf_byte_array.array[j]);
            break;
        }
        default: fputs("?", o); break;
        }
    }
    fputc('}', o);
}

int vftr_otf_print_name_set(vftr_otf_printer* pr, unsigned kind, uint32_t id, const char* name)
{
    if (kind >= VFTR_OTF_NNAMES || id == UINT32_MAX || name == NULL || name[0] == '\0')
        return 0;
    char* copy = strdup(name);
    if (copy == NULL)
        return -ENOMEM;
    /* a token defined twice keeps its last name, as readers take it */
    free(vftr_otf_u32map_get(&pr->name[kind], id));
    if (vftr_otf_u32map_put(&pr->name[kind], id, copy) < 0) {
        free(copy);
        return -ENOMEM;
    }
    return 0;
}

int vftr_otf_print_scl_set(vftr_otf_printer* pr, uint32_t scl, uint32_t file, uint32_t line)
{
    const char* f = file != UINT32_MAX ? vftr_otf_u32map_get(&pr->name[VFTR_OTF_NAME_SCLFILE], file)
                                       : NULL;
    char buf[4096];

    if (f)
        snprintf(buf, sizeof buf, "%s:%" PRIu32, f, line);
    else
        snprintf(buf, sizeof buf, "line %" PRIu32, line);
    return vftr_otf_print_name_set(pr, VFTR_OTF_NAME_SCL, scl, buf);
}

void vftr_otf_print_ref(const vftr_otf_printer* pr, unsigned kind, uint32_t id)
{
    const char* n;

    if (kind >= VFTR_OTF_NNAMES || id == UINT32_MAX || pr->out == NULL)
        return;
    if ((n = vftr_otf_u32map_get(&pr->name[kind], id)) != NULL)
        fprintf(pr->out, " (%s)", n);
}

void vftr_otf_print_free(vftr_otf_printer* pr)
{
    if (pr == NULL)
        return;
    for (unsigned k = 0; k < VFTR_OTF_NNAMES; k++) {
        vftr_otf_u32map* m = &pr->name[k];

        for (uint32_t i = 0; i < m->cap; i++)
            if (m->keys[i] != UINT32_MAX)
                free(m->vals[i]);
        vftr_otf_u32map_release(m);
    }
    free(pr);
}
