/*
 * demangle.h — display names for raw symbol names: C++ demangling through
 * the C++ runtime's __cxa_demangle and the Fortran compilers' module and
 * host prefixes.  Used by capture/symbols.c; pure functions, no state.
 *
 * Rules (flags are the VFTR_SYMTAB_* of symbols.h):
 *  - VFTR_SYMTAB_DEMANGLE: a name starting with "_Z" is passed to
 *    __cxa_demangle; when that fails (or no demangler is given) the name is
 *    kept as it is.
 *  - Fortran, for names that are not C++, as the compilers spell a module
 *    procedure (<m> the module, <h> a host procedure, <p> the procedure):
 *      gfortran   "__<m>_MOD_<p>"
 *      Intel      "<m>_mp_<p>_"
 *      NAG        "<m>_MP_<p>"
 *      flang      "_Q" then pieces "M<m>", "S<submodule>", "F<h>", "P<p>"
 *                 (lower-case identifiers, the tags upper-case): "_QMheatPsmooth",
 *                 "_QMmFhostPinner", "_QPsolve" (an external procedure)
 *    VFTR_SYMTAB_FORTRAN_MODULES shows such a name as "<m>::<p>"
 *    ("heat::smooth"; flang's pieces joined with "::"), as C++ shows a
 *    namespace; VFTR_SYMTAB_STRIP_MODULES drops the module (and submodule)
 *    pieces instead ("smooth"; what Vftrace's strip_module_names does, which
 *    capture never asks for: it keeps the module, issue 16) and wins when
 *    both are given.  <m> and <p> must be non-empty; an Intel/NAG <m>
 *    starts with a letter.  The first "_MOD_" / "_mp_" / "_MP_" is the
 *    separator (module names rarely contain it; procedure names may).
 *    flang's main program "_QQmain" is not a module procedure (see
 *    capture/names.h).
 *  - VFTR_SYMTAB_STRIP_UNDERSCORE, applied to names no other rule changed:
 *    one trailing '_' is dropped from a name of at least two characters that
 *    does not start with '_' and does not end in "__" ("solve_" -> "solve").
 *    Without this flag the trailing underscore of plain Fortran names stays.
 *
 * Threads: every function is thread-safe (no shared state).
 */
#ifndef VFTR_CAPTURE_DEMANGLE_H
#define VFTR_CAPTURE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* The signature of the C++ ABI's demangler (see <cxxabi.h>). */
typedef char *vftr_cxa_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

/* The program's __cxa_demangle (dlsym(RTLD_DEFAULT)), or NULL when no C++
 * runtime is loaded. */
vftr_cxa_demangle_fn *vftr_demangle_find_cxa(void);

/* A Fortran procedure's symbol cut into its pieces: scopes (modules,
 * submodules, host procedures) from the outside in, then the procedure.
 * Offsets and lengths are into the name parsed; every piece is non-empty. */
#define VFTR_FORTRAN_PIECES 8
struct vftr_fortran_name {
    unsigned n;                 /* pieces in use; the last is the procedure */
    struct {
        size_t off, len;
        bool module;            /* a module or submodule (STRIP_MODULES drops it) */
    } piece[VFTR_FORTRAN_PIECES];
};

/* Parses name by the Fortran rules above: 1 with *fn filled when name is a
 * procedure of a module (or, for flang, any procedure it mangled), 0 when
 * no rule applies. */
int vftr_demangle_fortran(const char *name, struct vftr_fortran_name *fn);

/* The display name of raw under flags.  Returns 0 with *out == NULL when the
 * name stays as it is, 0 with *out a new string (caller owns, free with
 * free()) when it changes, or -ENOMEM.  cxa may be NULL (no demangling). */
int vftr_demangle(const char *raw, unsigned flags, vftr_cxa_demangle_fn *cxa, char **out);

#endif /* VFTR_CAPTURE_DEMANGLE_H */
