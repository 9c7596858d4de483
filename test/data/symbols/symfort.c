/*
 * symfort.c — Fortran names through vftr_symtab.  The module procedure and
 * the plain subroutine come from symfort_mod.f90 (gfortran); the Intel and
 * NAG styles are C functions with those compilers' symbol names, because
 * neither compiler is installed.  Built with -DNO_GFORTRAN, this file
 * defines the gfortran names itself (same symbols, same expectations).
 * Usage: symfort none|strip|underscore
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "symbols.h"

void __mymod_MOD_work(int *n);
void plainsub_(int *n);
void intelmod_mp_compute_(int *n);
void nagmod_MP_solve(int *n);

#ifdef NO_GFORTRAN
__attribute__((noinline)) void __mymod_MOD_work(int *n)
{
    *n += 1;
}

__attribute__((noinline)) void plainsub_(int *n)
{
    *n *= 2;
}
#endif

__attribute__((noinline)) void intelmod_mp_compute_(int *n)
{
    *n += 3;
}

__attribute__((noinline)) void nagmod_MP_solve(int *n)
{
    *n += 4;
}

static void show(struct vftr_symtab *t, const char *key, void (*fn)(int *))
{
    const char *name = vftr_symtab_lookup(t, (uintptr_t)fn);

    printf("%s=%s\n", key, name ? name : "(null)");
}

int main(int argc, char **argv)
{
    unsigned flags;
    struct vftr_symtab *t;
    int n = 1;

    if (argc != 2)
        return 2;
    if (strcmp(argv[1], "none") == 0)
        flags = 0;
    else if (strcmp(argv[1], "strip") == 0)
        flags = VFTR_SYMTAB_STRIP_MODULES;
    else if (strcmp(argv[1], "underscore") == 0)
        flags = VFTR_SYMTAB_STRIP_MODULES | VFTR_SYMTAB_STRIP_UNDERSCORE;
    else
        return 2;
    t = vftr_symtab_new(flags);
    if (t == NULL) {
        perror("vftr_symtab_new");
        return 1;
    }
    show(t, "gfortran", __mymod_MOD_work);
    show(t, "plain", plainsub_);
    show(t, "intel", intelmod_mp_compute_);
    show(t, "nag", nagmod_MP_solve);
    __mymod_MOD_work(&n);
    plainsub_(&n);
    intelmod_mp_compute_(&n);
    nagmod_MP_solve(&n);
    printf("call=%d\n", n);
    vftr_symtab_free(t);
    return 0;
}
