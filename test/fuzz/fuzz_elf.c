/*
 * fuzz_elf.c — libFuzzer target for capture/symbols' ELF reader: the input
 * is taken as an ELF file, walked with vftr_elf_parse_buffer, made into a
 * table with vftr_symtab_new_buffer and looked up at a few addresses; the
 * Fortran name rules get the input's first bytes as a name, under every
 * combination of the name flags.  Any crash,
 * hang or sanitizer report is a bug; rejected files are expected.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_symbol(void *arg, const struct vftr_elf_symbol *s)
{
    /* touch what the reader promises: a terminated name */
    *(size_t *)arg += strlen(s->name);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256], name[65];
    size_t chars = 0, n;
    struct vftr_fortran_name fn;
    char *out;
    struct vftr_symtab *t;

    (void)vftr_elf_parse_buffer(data, size, count_symbol, &chars, err, sizeof err);
    t = vftr_symtab_new_buffer(data, size, 0x10000,
                               VFTR_SYMTAB_STRIP_MODULES | VFTR_SYMTAB_STRIP_UNDERSCORE, err,
                               sizeof err);
    if (t != NULL) {
        uintptr_t a;

        for (a = 0x10000; a < 0x10000 + 0x3000; a += 0x1f3)
            (void)vftr_symtab_lookup(t, a);
        (void)vftr_symtab_count(t);
        vftr_symtab_free(t);
    }
    n = size < sizeof name - 1 ? size : sizeof name - 1;
    memcpy(name, data, n);
    name[n] = '\0';
    if (vftr_demangle_fortran(name, &fn))
        for (unsigned i = 0; i < fn.n; i++)
            if (fn.piece[i].len == 0 || fn.piece[i].off > n || fn.piece[i].len > n - fn.piece[i].off)
                abort();   /* every piece non-empty and inside the name */
    for (unsigned flags = 0; flags < 16; flags++)
        if (vftr_demangle(name, flags, NULL, &out) == 0)
            free(out);
    return 0;
}
