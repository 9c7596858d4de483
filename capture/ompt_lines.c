/*
 * ompt_lines.c — code address -> source file:line through elfutils' libdwfl
 * (contract in ompt_lines.h).
 *
 * Which object holds an address, and where the loader put it, comes from
 * the loader itself (dladdr1 with RTLD_DL_LINKMAP: the object's path and
 * load bias), so no ELF walking happens here: capture/symbols.c already
 * reads symbol tables, libdw reads the DWARF.  Each object is reported to
 * the libdwfl session the first time one of its addresses is asked for
 * (dwfl_report_elf with the bias, so PIE executables and libraries resolve
 * at their run-time addresses); libdwfl then keeps it, and its line tables
 * once read, for the rest of the session.  An object libdw cannot open is
 * remembered (a few of them) so it is not tried again per definition.
 *
 * Separate debug files are looked up by build id only
 * (dwfl_build_id_find_debuginfo: /usr/lib/debug/.build-id), not by
 * dwfl_standard_find_debuginfo, whose last resort is a debuginfod download:
 * capture must not make the program it measures wait on the network.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "ompt_lines.h"

#if defined(__has_include)
#if __has_include(<elfutils/libdwfl.h>)
#define VFTR_HAVE_LIBDW 1
#endif
#endif

#ifndef VFTR_HAVE_LIBDW

/* Built without libdw: no file:line, and nothing links -ldw. */

struct vftr_ompt_lines *vftr_ompt_lines_new(void)
{
    errno = ENOTSUP;
    return NULL;
}

int vftr_ompt_lines_find(struct vftr_ompt_lines *l, uintptr_t addr, const char **file,
                         uint32_t *line, const char **object)
{
    (void)l;
    (void)addr;
    if (file)
        *file = "";
    if (line)
        *line = 0;
    if (object)
        *object = NULL;
    return -ENOTSUP;
}

int vftr_ompt_lines_function(struct vftr_ompt_lines *l, uintptr_t addr, char *buf, size_t size)
{
    (void)l;
    (void)addr;
    if (buf && size)
        buf[0] = '\0';
    return -ENOTSUP;
}

void vftr_ompt_lines_free(struct vftr_ompt_lines *l)
{
    (void)l;
}

#else /* VFTR_HAVE_LIBDW */

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <unistd.h>

#define FAILED_MAX 16   /* objects remembered as unreadable */

/* The address ranges of one module's compilation units, sorted by lo.
 * libdwfl finds an address's unit through .debug_aranges, which clang does
 * not emit (gcc does); for such objects the units' own ranges
 * (DW_AT_low_pc/high_pc, DW_AT_ranges) are collected once per module. */
struct cu_range {
    Dwarf_Addr lo, hi;  /* run-time addresses, hi exclusive */
    Dwarf_Addr bias;    /* DWARF address = run-time address - bias */
    Dwarf_Die cu;
};
struct mod_ranges {
    Dwfl_Module *mod;
    struct cu_range *r;
    size_t n;
    struct mod_ranges *next;
};

struct vftr_ompt_lines {
    Dwfl *dwfl;
    struct mod_ranges *ranges;  /* modules whose units were collected */
    const struct link_map *failed[FAILED_MAX];
    size_t nfailed;     /* entries of failed in use (the oldest is replaced) */
    size_t next_failed;
};

static const Dwfl_Callbacks callbacks = {
    /* not used for objects given by dwfl_report_elf, but must be set */
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_build_id_find_debuginfo,
};

struct vftr_ompt_lines *vftr_ompt_lines_new(void)
{
    struct vftr_ompt_lines *l = calloc(1, sizeof *l);

    if (l == NULL)
        return NULL;
    if ((l->dwfl = dwfl_begin(&callbacks)) == NULL) {
        free(l);
        errno = EIO;
        return NULL;
    }
    /* an empty report makes the session usable (dwfl_addrmodule) */
    dwfl_report_begin(l->dwfl);
    if (dwfl_report_end(l->dwfl, NULL, NULL) != 0) {
        dwfl_end(l->dwfl);
        free(l);
        errno = EIO;
        return NULL;
    }
    return l;
}

void vftr_ompt_lines_free(struct vftr_ompt_lines *l)
{
    if (l == NULL)
        return;
    while (l->ranges) {
        struct mod_ranges *m = l->ranges;

        l->ranges = m->next;
        free(m->r);
        free(m);
    }
    dwfl_end(l->dwfl);
    free(l);
}

static int range_cmp(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The collected unit ranges of mod (collected now if they were not),
 * NULL when out of memory. */
static struct mod_ranges *module_ranges(struct vftr_ompt_lines *l, Dwfl_Module *mod)
{
    struct mod_ranges *m;
    Dwarf_Die *cu = NULL;
    Dwarf_Addr bias = 0;
    size_t cap = 0;

    for (m = l->ranges; m; m = m->next)
        if (m->mod == mod)
            return m;
    if ((m = calloc(1, sizeof *m)) == NULL)
        return NULL;
    m->mod = mod;
    while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
        Dwarf_Addr base, lo, hi;
        ptrdiff_t off = 0;

        while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
            if (hi <= lo)
                continue;
            if (m->n == cap) {
                size_t ncap = cap ? 2 * cap : 64;
                struct cu_range *nr = realloc(m->r, ncap * sizeof *nr);

                if (nr == NULL)
                    goto out;   /* keep what was collected */
                m->r = nr;
                cap = ncap;
            }
            m->r[m->n++] = (struct cu_range){ lo + bias, hi + bias, bias, *cu };
        }
    }
out:
    if (m->n)
        qsort(m->r, m->n, sizeof *m->r, range_cmp);
    m->next = l->ranges;
    l->ranges = m;
    return m;
}

/* The unit range of mod that holds addr and has what want() asks for, by
 * the units' own ranges (see struct cu_range); NULL when none. */
static struct cu_range *range_of(struct vftr_ompt_lines *l, Dwfl_Module *mod, uintptr_t addr,
                                 bool (*want)(struct cu_range *r, uintptr_t addr, void *arg),
                                 void *arg)
{
    struct mod_ranges *m = module_ranges(l, mod);
    size_t lo = 0, hi, k;

    if (m == NULL || m->n == 0)
        return NULL;
    /* the last range starting at or below addr, then earlier ones that
     * may still reach over it (ranges of different units rarely overlap) */
    for (hi = m->n; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;

        if (m->r[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (k = lo; k-- > 0 && lo - k <= 8;) {
        struct cu_range *r = &m->r[k];

        if (addr >= r->lo && addr < r->hi && want(r, addr, arg))
            return r;
    }
    return NULL;
}

static bool has_line(struct cu_range *r, uintptr_t addr, void *arg)
{
    return (*(Dwarf_Line **)arg = dwarf_getsrc_die(&r->cu, addr - r->bias)) != NULL;
}

static bool any_unit(struct cu_range *r, uintptr_t addr, void *arg)
{
    (void)r;
    (void)addr;
    (void)arg;
    return true;
}

/* The line of addr in mod by the units' own ranges (see struct cu_range). */
static Dwarf_Line *line_by_ranges(struct vftr_ompt_lines *l, Dwfl_Module *mod, uintptr_t addr)
{
    Dwarf_Line *ln = NULL;

    return range_of(l, mod, addr, has_line, &ln) ? ln : NULL;
}

static bool failed_before(const struct vftr_ompt_lines *l, const struct link_map *lm)
{
    for (size_t i = 0; i < l->nfailed; i++)
        if (l->failed[i] == lm)
            return true;
    return false;
}

static void remember_failed(struct vftr_ompt_lines *l, const struct link_map *lm)
{
    l->failed[l->next_failed] = lm;
    l->next_failed = (l->next_failed + 1) % FAILED_MAX;
    if (l->nfailed < FAILED_MAX)
        l->nfailed++;
}

/* Reports the loaded object that holds addr to the session.  0, or -ENOENT
 * when the loader knows no object there or libdw cannot read its file. */
static int report_object(struct vftr_ompt_lines *l, uintptr_t addr)
{
    Dl_info info;
    struct link_map *lm = NULL;
    char exe[PATH_MAX];
    const char *name, *path;
    Dwfl_Module *m;

    if (dladdr1((const void *)addr, &info, (void **)&lm, RTLD_DL_LINKMAP) == 0 || lm == NULL
        || failed_before(l, lm))
        return -ENOENT;
    name = path = lm->l_name;
    if (name == NULL || name[0] == '\0') {
        /* the executable: the loader has no path for it */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

        path = "/proc/self/exe";
        name = path;
        if (n > 0) {
            exe[n] = '\0';
            name = exe;
        }
    }
    dwfl_report_begin_add(l->dwfl);
    /* l_addr is the load bias: the object's p_vaddr plus l_addr is where it
     * is (ignored for a non-PIE executable, which is where it says) */
    m = dwfl_report_elf(l->dwfl, name, path, -1, (GElf_Addr)lm->l_addr, true);
    if (dwfl_report_end(l->dwfl, NULL, NULL) != 0 || m == NULL) {
        remember_failed(l, lm);
        return -ENOENT;
    }
    return 0;
}

/* The session's module of addr, reporting its object first if needed;
 * NULL when no object holds addr or its file cannot be read. */
static Dwfl_Module *module_of(struct vftr_ompt_lines *l, uintptr_t addr)
{
    Dwfl_Module *mod = dwfl_addrmodule(l->dwfl, addr);

    if (mod == NULL && report_object(l, addr) == 0)
        mod = dwfl_addrmodule(l->dwfl, addr);
    return mod;
}

int vftr_ompt_lines_function(struct vftr_ompt_lines *l, uintptr_t addr, char *buf, size_t size)
{
    Dwfl_Module *mod;
    Dwarf_Die *cu, *scopes = NULL;
    Dwarf_Addr bias = 0;
    const char *name = NULL;
    int n;

    if (buf && size)
        buf[0] = '\0';
    if (l == NULL || buf == NULL || size == 0)
        return -EINVAL;
    if (addr == 0 || (mod = module_of(l, addr)) == NULL)
        return -ENOENT;
    if ((cu = dwfl_module_addrdie(mod, addr, &bias)) == NULL) {
        /* no .debug_aranges (clang): the units' own ranges */
        struct cu_range *r = range_of(l, mod, addr, any_unit, NULL);

        if (r == NULL)
            return -ENODATA;
        cu = &r->cu;
        bias = r->bias;
    }
    n = dwarf_getscopes(cu, addr - bias, &scopes);
    for (int i = 0; i < n && name == NULL; i++)
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
            name = dwarf_diename(&scopes[i]);
    if (name != NULL)
        snprintf(buf, size, "%s", name);
    free(scopes);
    return name != NULL && name[0] != '\0' ? 0 : -ENODATA;
}

int vftr_ompt_lines_find(struct vftr_ompt_lines *l, uintptr_t addr, const char **file,
                         uint32_t *line, const char **object)
{
    Dwfl_Module *mod;
    Dwfl_Line *dl;
    Dwarf_Line *ln;
    const char *src = NULL;
    int lineno = 0;

    if (object)
        *object = NULL;
    if (file)
        *file = "";
    if (line)
        *line = 0;
    if (l == NULL || file == NULL || line == NULL)
        return -EINVAL;
    if (addr == 0 || (mod = module_of(l, addr)) == NULL)
        return -ENOENT;
    if ((dl = dwfl_module_getsrc(mod, addr)) != NULL) {
        src = dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL);
    } else if ((ln = line_by_ranges(l, mod, addr)) != NULL) {
        src = dwarf_linesrc(ln, NULL, NULL);
        if (dwarf_lineno(ln, &lineno) != 0)
            lineno = 0;
    }
    if (src == NULL || src[0] == '\0' || lineno <= 0) {
        if (object) {
            const char *main_file = NULL;
            const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &main_file,
                                                 NULL);

            *object = main_file ? main_file : mname ? mname : "";
        }
        return -ENODATA;
    }
    *file = src;
    *line = (uint32_t)lineno;
    return 0;
}

#endif /* VFTR_HAVE_LIBDW */
