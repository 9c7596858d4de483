/*
 * demangle.c — C++ and Fortran display names (rules in demangle.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "symbols.h"

vftr_cxa_demangle_fn *vftr_demangle_find_cxa(void)
{
    vftr_cxa_demangle_fn *fn;
    void *p = dlsym(RTLD_DEFAULT, "__cxa_demangle");

    /* ISO C has no object-to-function pointer conversion; POSIX guarantees
     * that dlsym's result can be used this way, memcpy says so portably. */
    if (p == NULL)
        return NULL;
    memcpy(&fn, &p, sizeof fn);
    return fn;
}

static int is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A character of an identifier as flang writes it (lower case). */
static int is_flang_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static void piece(struct vftr_fortran_name *fn, size_t off, size_t len, bool module)
{
    fn->piece[fn->n].off = off;
    fn->piece[fn->n].len = len;
    fn->piece[fn->n].module = module;
    fn->n++;
}

/* flang: "_Q" then tagged pieces, the last a procedure ("P"). */
static int flang_name(const char *name, struct vftr_fortran_name *fn)
{
    size_t i = 2;

    if (name[0] != '_' || name[1] != 'Q')
        return 0;
    fn->n = 0;
    while (name[i] != '\0') {
        char tag = name[i++];
        size_t start = i;

        if ((tag != 'M' && tag != 'S' && tag != 'F' && tag != 'P') || fn->n == VFTR_FORTRAN_PIECES)
            return 0;
        while (is_flang_ident(name[i]))
            i++;
        if (i == start)
            return 0;
        if (tag == 'P' && name[i] != '\0')
            return 0;   /* the procedure comes last */
        if (tag != 'P' && name[i] == '\0')
            return 0;   /* a scope without a procedure: not a procedure's name */
        piece(fn, start, i - start, tag == 'M' || tag == 'S');
    }
    return fn->n > 0;
}

int vftr_demangle_fortran(const char *name, struct vftr_fortran_name *fn)
{
    size_t n = strlen(name);
    const char *sep;

    fn->n = 0;
    /* gfortran: "__" module "_MOD_" name; the module is at least one
     * character, so the separator is searched from index 3 on. */
    if (n > 2 && name[0] == '_' && name[1] == '_') {
        sep = strstr(name + 3, "_MOD_");
        if (sep != NULL && sep[5] != '\0') {
            piece(fn, 2, (size_t)(sep - name) - 2, true);
            piece(fn, (size_t)(sep + 5 - name), n - (size_t)(sep + 5 - name), false);
            return 1;
        }
    }
    if (flang_name(name, fn))
        return 1;
    fn->n = 0;
    if (is_letter(name[0])) {
        /* Intel: module "_mp_" name "_" (name non-empty). */
        sep = strstr(name + 1, "_mp_");
        if (sep != NULL && n >= 2 && name[n - 1] == '_' && (size_t)(sep + 4 - name) < n - 1) {
            piece(fn, 0, (size_t)(sep - name), true);
            piece(fn, (size_t)(sep + 4 - name), n - 1 - (size_t)(sep + 4 - name), false);
            return 1;
        }
        /* NAG: module "_MP_" name. */
        sep = strstr(name + 1, "_MP_");
        if (sep != NULL && sep[4] != '\0') {
            piece(fn, 0, (size_t)(sep - name), true);
            piece(fn, (size_t)(sep + 4 - name), n - (size_t)(sep + 4 - name), false);
            return 1;
        }
    }
    return 0;
}

/* The Fortran display name of raw (pieces fn) under flags, or NULL with
 * *changed false when the flags ask for no change; NULL with *changed true
 * when out of memory. */
static char *fortran_display(const char *raw, const struct vftr_fortran_name *fn, unsigned flags,
                             bool *changed)
{
    bool strip = (flags & VFTR_SYMTAB_STRIP_MODULES) != 0;
    size_t len = 0, at = 0;
    char *s;

    *changed = false;
    if (!strip && !(flags & VFTR_SYMTAB_FORTRAN_MODULES))
        return NULL;
    for (unsigned i = 0; i < fn->n; i++)
        if (!(strip && fn->piece[i].module))
            len += fn->piece[i].len + 2;
    *changed = true;
    if ((s = malloc(len + 1)) == NULL)
        return NULL;
    for (unsigned i = 0; i < fn->n; i++) {
        if (strip && fn->piece[i].module)
            continue;
        if (at) {
            memcpy(s + at, "::", 2);
            at += 2;
        }
        memcpy(s + at, raw + fn->piece[i].off, fn->piece[i].len);
        at += fn->piece[i].len;
    }
    s[at] = '\0';
    return s;
}

int vftr_demangle(const char *raw, unsigned flags, vftr_cxa_demangle_fn *cxa, char **out)
{
    struct vftr_fortran_name fn;
    size_t n = strlen(raw);
    bool changed;
    char *s;

    *out = NULL;
    if (raw[0] == '_' && raw[1] == 'Z') {
        if ((flags & VFTR_SYMTAB_DEMANGLE) && cxa != NULL) {
            int status = -1;

            s = cxa(raw, NULL, NULL, &status);
            if (s != NULL && status == 0) {
                *out = s;
                return 0;
            }
            free(s);
            if (status == -1)   /* the demangler could not allocate */
                return -ENOMEM;
        }
        return 0;   /* C++ names never get the Fortran rules */
    }
    if (vftr_demangle_fortran(raw, &fn)) {
        s = fortran_display(raw, &fn, flags, &changed);
        if (changed && s == NULL)
            return -ENOMEM;
        if (changed) {
            *out = s;
            return 0;
        }
    }
    if ((flags & VFTR_SYMTAB_STRIP_UNDERSCORE) && n >= 2 && raw[0] != '_' &&
        raw[n - 1] == '_' && raw[n - 2] != '_') {
        if ((s = malloc(n)) == NULL)
            return -ENOMEM;
        memcpy(s, raw, n - 1);
        s[n - 1] = '\0';
        *out = s;
    }
    return 0;
}
