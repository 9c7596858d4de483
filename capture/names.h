/*
 * names.h — the names capture gives functions where the symbol name alone
 * says nothing to the user: the Fortran main program and the functions the
 * compilers outline for OpenMP constructs.  (C++ and Fortran module names
 * are capture/demangle.h's: the symbol name is enough for them.)
 *
 *  - The Fortran main program (gfortran's and Intel's MAIN__, flang's
 *    _QQmain) is named as the program names itself: the PROGRAM name, read
 *    from the debug information (DW_AT_name of its subprogram); without
 *    debug information "main program".
 *  - OpenMP outlined functions.  LLVM's runtime reports the OpenMP regions
 *    (OMPT, capture/ompt.c), and their frames stand for the code the
 *    compiler outlined: while it does (vftr_ompt_active()), clang's
 *    .omp_outlined.* and .omp_task_entry.* functions are hidden (not
 *    measured, as filter.exclude would leave them out): their callees and
 *    time belong to the region's frame, "omp implicit task @heat.c:106"
 *    under "omp parallel @heat.c:106".  Where no runtime reports regions
 *    (GCC's libgomp, clang's code with the trace off) the outlined function
 *    is the only sign of the region, and it is named after it:
 *      "omp region @FILE:LINE"     gcc's F._omp_fn.N, clang's .omp_outlined.
 *      "omp task @FILE:LINE"       clang's .omp_task_entry.
 *      "omp task copy @FILE:LINE"  gcc's F._omp_cpyfn.N
 *      "omp reduction @FILE:LINE"  clang's .omp.reduction.reduction_func
 *      "omp target @FILE:LINE"     __omp_offloading_..._F_lLINE (host code)
 *    where FILE:LINE (file without its directories) is where the function
 *    starts, the line of the pragma; without line tables "omp region @F #N"
 *    (gcc: the enclosing function and the outlined function's number) or
 *    "omp region #N" (clang), "omp target @F:LINE" from the offloading
 *    name.  Kinds of region cannot be told apart in gcc's names, hence
 *    "region".  clang's ._debug__ bodies (-g) are always hidden: the
 *    wrapper that calls them carries the region's name and their time.
 *
 * Threads: vftr_names_resolve is called under capture's function table lock
 * (it is the settings' resolver, once per new function); the predicates are
 * pure or read constants.  Names handed out live as long as the process.
 */
#ifndef VFTR_CAPTURE_NAMES_H
#define VFTR_CAPTURE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

struct vftr_symtab;

/* The display name of the function at addr in t: the symbol table's
 * (capture/symbols.h), or one of the names above.  NULL when no known
 * function holds addr.  Borrowed; lives as long as the process. */
const char *vftr_names_resolve(struct vftr_symtab *t, uintptr_t addr)
    __attribute__((no_instrument_function));

/* The source file of the code at addr (the DWARF line table's file of its
 * first instruction: for a function's entry address, the file the function
 * is defined in), through the debug-information session this file opens
 * on first need and shares.  Borrowed until vftr_names_forget; NULL
 * when unknown (no object holds addr, no line table there, built without
 * libdw: *why, when why is not NULL, is then the -errno of
 * capture/ompt_lines.h, -ENOTSUP for no libdw).  Under the function table's
 * lock, as vftr_names_resolve. */
const char *vftr_names_source_file(uintptr_t addr, int *why)
    __attribute__((no_instrument_function));

/* Code was unmapped (dlclose): the debug-information session is closed,
 * since libdwfl would go on answering for the unmapped object at its
 * addresses; the next need opens a new one.  Names handed out stay (they
 * are copies).  Under the function table's lock. */
void vftr_names_forget(void) __attribute__((no_instrument_function));

/* Whether the function of display name `name` is hidden (see above). */
bool vftr_names_hidden(const char *name) __attribute__((no_instrument_function));

/* Whether name is the name vftr_names_resolve gave the Fortran main
 * program (the measured program's main has begun: capture.h prelude). */
bool vftr_names_is_main(const char *name) __attribute__((no_instrument_function));

/* The rule above for the outlined function of raw symbol name raw, given
 * its source position (file NULL when unknown) and whether OpenMP regions
 * are reported: a new string (caller frees), or NULL when raw is no
 * outlined function or keeps its name (errno 0), or NULL + errno ENOMEM.
 * Pure; the unit tests call it. */
char *vftr_names_outlined(const char *raw, const char *file, uint32_t line, bool regions)
    __attribute__((no_instrument_function));

#endif /* VFTR_CAPTURE_NAMES_H */
