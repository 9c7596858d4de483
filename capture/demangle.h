/*
 * demangle.h — display names for raw symbol names: C++ demangling through
 * the C++ runtime's __cxa_demangle and the removal of Fortran module
 * prefixes.  Used by capture/symbols.c; pure functions, no state.
 *
 * Rules (flags are the VFTR_SYMTAB_* of symbols.h):
 *  - VFTR_SYMTAB_DEMANGLE: a name starting with "_Z" is passed to
 *    __cxa_demangle; when that fails (or no demangler is given) the name is
 *    kept as it is.
 *  - VFTR_SYMTAB_STRIP_MODULES, applied to names that are not C++:
 *      gfortran   "__<module>_MOD_<name>"  -> "<name>"
 *      Intel      "<module>_mp_<name>_"    -> "<name>"
 *      NAG        "<module>_MP_<name>"     -> "<name>"
 *    <module> and <name> must be non-empty; an Intel/NAG <module> starts with
 *    a letter.  The first "_MOD_" / "_mp_" / "_MP_" is the separator (module
 *    names rarely contain it; procedure names may).
 *  - VFTR_SYMTAB_STRIP_UNDERSCORE, applied to names no other rule changed:
 *    one trailing '_' is dropped from a name of at least two characters that
 *    does not start with '_' and does not end in "__" ("solve_" -> "solve").
 *    Without this flag the trailing underscore of plain Fortran names stays.
 *
 * Threads: every function is thread-safe (no shared state).
 */
#ifndef VFTR_CAPTURE_DEMANGLE_H
#define VFTR_CAPTURE_DEMANGLE_H

#include <stddef.h>

/* The signature of the C++ ABI's demangler (see <cxxabi.h>). */
typedef char *vftr_cxa_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

/* The program's __cxa_demangle (dlsym(RTLD_DEFAULT)), or NULL when no C++
 * runtime is loaded. */
vftr_cxa_demangle_fn *vftr_demangle_find_cxa(void);

/* The Fortran rules on name: returns 1 and sets *off, *len to the part of
 * name to keep when a rule applies, 0 when the name stays as it is. */
int vftr_demangle_fortran(const char *name, unsigned flags, size_t *off, size_t *len);

/* The display name of raw under flags.  Returns 0 with *out == NULL when the
 * name stays as it is, 0 with *out a new string (caller owns, free with
 * free()) when it changes, or -ENOMEM.  cxa may be NULL (no demangling). */
int vftr_demangle(const char *raw, unsigned flags, vftr_cxa_demangle_fn *cxa, char **out);

#endif /* VFTR_CAPTURE_DEMANGLE_H */
