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

int vftr_demangle_fortran(const char *name, unsigned flags, size_t *off, size_t *len)
{
    size_t n = strlen(name);
    const char *sep;

    if (flags & VFTR_SYMTAB_STRIP_MODULES) {
        /* gfortran: "__" module "_MOD_" name; the module is at least one
         * character, so the separator is searched from index 3 on. */
        if (n > 2 && name[0] == '_' && name[1] == '_') {
            sep = strstr(name + 3, "_MOD_");
            if (sep != NULL && sep[5] != '\0') {
                *off = (size_t)(sep + 5 - name);
                *len = n - *off;
                return 1;
            }
        }
        if (is_letter(name[0])) {
            /* Intel: module "_mp_" name "_" (name non-empty). */
            sep = strstr(name + 1, "_mp_");
            if (sep != NULL && n >= 2 && name[n - 1] == '_' &&
                (size_t)(sep + 4 - name) < n - 1) {
                *off = (size_t)(sep + 4 - name);
                *len = n - 1 - *off;
                return 1;
            }
            /* NAG: module "_MP_" name. */
            sep = strstr(name + 1, "_MP_");
            if (sep != NULL && sep[4] != '\0') {
                *off = (size_t)(sep + 4 - name);
                *len = n - *off;
                return 1;
            }
        }
    }
    if ((flags & VFTR_SYMTAB_STRIP_UNDERSCORE) && n >= 2 && name[0] != '_' &&
        name[n - 1] == '_' && name[n - 2] != '_') {
        *off = 0;
        *len = n - 1;
        return 1;
    }
    return 0;
}

int vftr_demangle(const char *raw, unsigned flags, vftr_cxa_demangle_fn *cxa, char **out)
{
    size_t off, len;
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
    if (!vftr_demangle_fortran(raw, flags, &off, &len))
        return 0;
    s = malloc(len + 1);
    if (s == NULL)
        return -ENOMEM;
    memcpy(s, raw + off, len);
    s[len] = '\0';
    *out = s;
    return 0;
}
