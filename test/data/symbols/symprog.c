/*
 * symprog.c — resolves its own functions, a linked library's, and a
 * dlopen'ed plugin's through vftr_symtab, and prints "key=name" lines.
 * Built as PIE and as non-PIE.  Usage: symprog PLUGIN.so
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

int symlib_function(int x);
void *symlib_address(void);
int symprog_global_function(int x);

__attribute__((noinline)) int symprog_global_function(int x)
{
    return x + 7;
}

__attribute__((noinline)) static int symprog_local_function(int x)
{
    return x - 7;
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
    return 1;
}

static void show(struct vftr_symtab *t, const char *key, uintptr_t addr)
{
    const char *name = vftr_symtab_lookup(t, addr);

    printf("%s=%s\n", key, name ? name : "(null)");
}

/* A function's address as an integer (implementation-defined in ISO C,
 * plain on every ELF platform). */
#define ADDR(fn) ((uintptr_t)(fn))

int main(int argc, char **argv)
{
    struct vftr_symtab *t;
    uintptr_t bias = 0;
    int (*plug)(int);
    void *h, *sym;
    int *heap;

    if (argc != 2) {
        fprintf(stderr, "usage: symprog PLUGIN.so\n");
        return 2;
    }
    t = vftr_symtab_new(0);
    if (t == NULL) {
        perror("vftr_symtab_new");
        return 1;
    }
    dl_iterate_phdr(first_bias, &bias);
    printf("pie=%d\n", bias != 0);
    show(t, "global", ADDR(symprog_global_function));
    show(t, "local", ADDR(symprog_local_function));
    show(t, "inside", ADDR(symprog_global_function) + 1);
    show(t, "main", ADDR(main));
    show(t, "lib", (uintptr_t)symlib_address());
    heap = malloc(sizeof *heap);
    show(t, "heap", (uintptr_t)heap);
    show(t, "heap_again", (uintptr_t)heap);
    free(heap);
    show(t, "zero", 0);

    h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    sym = dlsym(h, "symplug_function");
    show(t, "plugin", (uintptr_t)sym);
    memcpy(&plug, &sym, sizeof plug);
    printf("plugin_call=%d\n", plug(5) + symprog_global_function(0) + symprog_local_function(0) +
                                   symlib_function(0));
    dlclose(h);
    show(t, "plugin_after_dlclose", (uintptr_t)sym);
    vftr_symtab_free(t);
    return 0;
}
