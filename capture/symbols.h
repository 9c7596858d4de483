/*
 * symbols.h — function names for code addresses, read from the ELF symbol
 * tables of the running program and of every shared object it has loaded.
 *
 * A struct vftr_symtab holds, for each loaded object (the executable, its
 * libraries, objects opened later with dlopen), the functions of its .symtab
 * and .dynsym (STT_FUNC and STT_GNU_IFUNC, defined, with a nonzero size or
 * value), moved to run-time addresses by the object's load bias.  The files
 * are read from disk (the executable through /proc/self/exe); the vDSO and
 * objects whose file cannot be opened, or no longer matches the loaded
 * image, are skipped with a reason sent to the report callback.  No
 * libelf/libbfd: the reader is vftr's own and checks every offset, size,
 * count and string index of the file, so a corrupt or hostile file is
 * skipped, never a crash.
 *
 * Aliases (several symbols starting at one address) resolve to one name,
 * always the same: a global (or GNU unique) symbol before a weak one before
 * a local one, then the shorter name, then the name first in strcmp order.
 *
 * Names are turned into display names lazily, at the first lookup of each
 * function, by the flags given to vftr_symtab_new:
 *  - VFTR_SYMTAB_DEMANGLE: C++ names (_Z...) go through __cxa_demangle, looked
 *    up with dlsym(RTLD_DEFAULT) (it is there whenever the program is C++,
 *    which is when names are mangled); when it is absent or fails, the
 *    mangled name is kept.
 *  - VFTR_SYMTAB_FORTRAN_MODULES: Fortran module procedures are shown as
 *    C++ shows a namespace: gfortran's "__<module>_MOD_<name>", Intel's
 *    "<module>_mp_<name>_", NAG's and flang's spellings give
 *    "<module>::<name>".
 *  - VFTR_SYMTAB_STRIP_MODULES: Fortran module prefixes are dropped instead:
 *    gfortran's "__<module>_MOD_<name>" gives "<name>", the Intel/NAG style
 *    "<module>_mp_<name>_" gives "<name>".  The trailing underscore of a
 *    plain (module-less) Fortran name such as "solve_" is kept, because in
 *    the symbol table it cannot be told apart from a C function "solve_".
 *  - VFTR_SYMTAB_STRIP_UNDERSCORE: also drop one trailing underscore of a
 *    plain name ("solve_" gives "solve"; names starting with '_' or ending
 *    in "__" are left alone).  Not implied by STRIP_MODULES.
 *  See capture/demangle.h for the exact rules.
 *
 * Threads: vftr_symtab_lookup and vftr_symtab_find may be called from any
 * number of threads at once (they take the table's mutex: they run once per
 * new function, not per event).  vftr_symtab_free must not race with them.
 * Nothing here is async-signal-safe (lookup may open files and allocate).
 * The library never writes to stderr: problems go to the report callback.
 */
#ifndef VFTR_CAPTURE_SYMBOLS_H
#define VFTR_CAPTURE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VFTR_SYMTAB_DEMANGLE = 1u << 0,         /* demangle C++ names */
    VFTR_SYMTAB_STRIP_MODULES = 1u << 1,    /* drop Fortran module prefixes */
    VFTR_SYMTAB_STRIP_UNDERSCORE = 1u << 2, /* drop a plain name's trailing '_' */
    VFTR_SYMTAB_FORTRAN_MODULES = 1u << 3,  /* module procedures as "module::name" */
};

/* Receives one lower-case line without newline, e.g.
 * "symbols: /usr/lib/x/libfoo.so: offset 64: section header table (30
 * entries at 9000) beyond end of file (4096 bytes); skipped".  The message is
 * borrowed for the duration of the call.  It is called with the table's
 * mutex held: it must not call back into the table. */
typedef void vftr_symtab_report_fn(void *arg, const char *message);

struct vftr_symtab_opts {
    unsigned flags;                  /* VFTR_SYMTAB_* */
    vftr_symtab_report_fn *report;   /* NULL: problems are silently skipped */
    void *report_arg;
};

struct vftr_symtab;

/* Reads the symbols of every object loaded now.  Returns a new table (caller
 * owns, free with vftr_symtab_free) or NULL + errno (ENOMEM).  Objects that
 * cannot be read are skipped (a table with no symbols is still a table). */
struct vftr_symtab *vftr_symtab_new(unsigned flags);
struct vftr_symtab *vftr_symtab_new_opts(const struct vftr_symtab_opts *opts);

/* Display name of the function that starts at addr or contains it, or NULL
 * when no known function does.  Each call first asks the loader (one cheap
 * dl_iterate_phdr step) whether objects were loaded or unloaded since the
 * table last read the list; if so the table reads the new objects (a library
 * dlopen'ed after vftr_symtab_new) and retires the unloaded ones (their
 * addresses miss from then on).  A miss is remembered until the next such
 * change, so asking again costs a binary search.  The string is borrowed: it
 * lives as long as the table (also after its object was unloaded). */
const char *vftr_symtab_lookup(struct vftr_symtab *t, uintptr_t addr);

/* Like vftr_symtab_lookup, with the function's extent and its object. */
struct vftr_symbol {
    uintptr_t start, end;   /* run-time addresses, end exclusive */
    const char *name;       /* display name (after the flags) */
    const char *raw_name;   /* as in the symbol table */
    const char *object;     /* path of the file it was read from */
};
/* Returns 0 and fills *sym (strings borrowed, live as long as t), or -ENOENT
 * when no known function contains addr, -EINVAL when t or sym is NULL. */
int vftr_symtab_find(struct vftr_symtab *t, uintptr_t addr, struct vftr_symbol *sym);

/* The code at [lo, hi) was unmapped (the caller saw dlclose unload an
 * object there): the objects of the table that lie there retire at once
 * (their names stay valid), whatever the loader's counters say, so that an
 * object loaded later at the same addresses is read from its own file even
 * when it has the same place and size.  Lookups that missed are forgotten.
 * 0, or -ENOMEM (the table is unchanged).  NULL t: 0. */
int vftr_symtab_forget(struct vftr_symtab *t, uintptr_t lo, uintptr_t hi);

/* Number of distinct functions (after alias resolution) in the table. */
size_t vftr_symtab_count(struct vftr_symtab *t);

/* Frees the table and every string it handed out.  NULL is a no-op. */
void vftr_symtab_free(struct vftr_symtab *t);

/* ---- For tests and the fuzzer (hidden; not exported by the .so) ---- */

/* One symbol as the ELF reader reports it.  name points into the buffer and
 * is NUL-terminated inside its string table; the other fields are copied. */
struct vftr_elf_symbol {
    uint64_t value, size;
    uint64_t section_end;      /* end address of the symbol's section, 0: unknown */
    const char *name;
    unsigned char bind, type;  /* STB_*, STT_* */
    unsigned char dynamic;     /* 1: from .dynsym, 0: from .symtab */
};
/* Called for every function symbol the reader accepts; a nonzero return
 * stops the walk and becomes vftr_elf_parse_buffer's result. */
typedef int vftr_elf_symbol_fn(void *arg, const struct vftr_elf_symbol *sym);

/* Walks the function symbols of the ELF64 image buf[0..len) (a file's bytes;
 * buf needs no particular alignment).  Returns the number of symbols passed
 * to fn (>= 0), the callback's nonzero value, or -ENOEXEC for a file that is
 * not a usable ELF64 ET_EXEC/ET_DYN of this machine's byte order, with
 * "offset N: what was expected" in err (if err is not NULL). */
int vftr_elf_parse_buffer(const void *buf, size_t len, vftr_elf_symbol_fn *fn, void *arg,
                          char *err, size_t errlen);

/* A table made of one ELF image in memory, its symbols moved by bias, with
 * no loaded-object scanning (lookups outside it simply miss).  The buffer is
 * only read during the call.  NULL + errno: ENOEXEC (message in err),
 * ENOMEM. */
struct vftr_symtab *vftr_symtab_new_buffer(const void *buf, size_t len, uintptr_t bias,
                                           unsigned flags, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* VFTR_CAPTURE_SYMBOLS_H */
