/*
 * symstrip.c — linked with -rdynamic and then stripped of .symtab: the
 * exported functions are still in .dynsym, the static one is in no table.
 */
#include <stdint.h>
#include <stdio.h>

#include "symbols.h"

int symstrip_exported(int x);

__attribute__((noinline)) int symstrip_exported(int x)
{
    return x * 5;
}

__attribute__((noinline)) static int symstrip_hidden(int x)
{
    return x * 11;
}

int main(void)
{
    struct vftr_symtab *t = vftr_symtab_new(0);
    const char *a, *b, *c;

    if (t == NULL) {
        perror("vftr_symtab_new");
        return 1;
    }
    a = vftr_symtab_lookup(t, (uintptr_t)symstrip_exported);
    b = vftr_symtab_lookup(t, (uintptr_t)symstrip_hidden);
    c = vftr_symtab_lookup(t, (uintptr_t)main);
    printf("exported=%s\nhidden=%s\nmain=%s\n", a ? a : "(null)", b ? b : "(null)",
           c ? c : "(null)");
    printf("call=%d\n", symstrip_exported(1) + symstrip_hidden(1));
    vftr_symtab_free(t);
    return 0;
}
