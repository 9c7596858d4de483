/*
 * names.c — names of the Fortran main program and of OpenMP outlined
 * functions (rules in names.h).
 *
 * Both need the debug information of the function (its DWARF name, the
 * line it starts at), which capture/ompt_lines.c reads through libdw.  The
 * session here is this file's own, opened at the first function that needs
 * it (a program with neither kind never opens one) and kept to the end; it
 * is used under the function table's lock, which serializes every call of
 * the resolver.  The names made are kept in a list for the life of the
 * process (function records point at them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "names.h"
#include "ompt.h"
#include "ompt_lines.h"
#include "symbols.h"

#define MAIN_PROGRAM "main program"

/* Names handed out, kept reachable for the life of the process. */
struct kept {
    struct kept *next;
    char name[];
};
static struct kept *kept;

/* The debug information, opened on first need (fn_lock held). */
static struct vftr_ompt_lines *dwarf;
static bool dwarf_tried;
static int dwarf_err;   /* -errno of the failed opening */

/* The name given to the Fortran main program (fn_lock held to set it). */
static const char *_Atomic main_name;

static VFTR_NI bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static VFTR_NI struct vftr_ompt_lines *debug_info(void)
{
    if (!dwarf_tried) {
        dwarf_tried = true;
        dwarf = vftr_ompt_lines_new();
        dwarf_err = dwarf ? 0 : -(errno ? errno : EIO);
    }
    return dwarf;
}

/* s kept for the life of the process; NULL when out of memory. */
static VFTR_NI const char *keep(const char *s)
{
    size_t len = strlen(s);
    struct kept *k = malloc(sizeof *k + len + 1);

    if (k == NULL)
        return NULL;
    memcpy(k->name, s, len + 1);
    k->next = kept;
    kept = k;
    return k->name;
}

/* The number at the end of s ("..2" -> 2, "" -> 0). */
static VFTR_NI unsigned long tail_number(const char *s)
{
    const char *p = s + strlen(s);

    while (p > s && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return strtoul(p, NULL, 10);
}

static VFTR_NI const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/* Which outlined function raw is: its kind's label ("region", "task"...),
 * or NULL for none.  *gcc_at: where gcc's "._omp_..." suffix starts. */
static VFTR_NI const char *outlined_kind(const char *raw, const char **gcc_at)
{
    const char *p;

    *gcc_at = NULL;
    if (starts(raw, ".omp_outlined."))
        return "region";
    if (starts(raw, ".omp_task_entry."))
        return "task";
    if (starts(raw, ".omp.reduction."))
        return "reduction";
    if (starts(raw, "__omp_offloading_"))
        return "target";
    if (raw[0] != '.' && (p = strstr(raw, "._omp_fn.")) != NULL && p > raw) {
        *gcc_at = p;
        return "region";
    }
    if (raw[0] != '.' && (p = strstr(raw, "._omp_cpyfn.")) != NULL && p > raw) {
        *gcc_at = p;
        return "task copy";
    }
    return NULL;
}

/* Whether raw keeps its name: hidden (names.h), so no name is made. */
static VFTR_NI bool keeps_raw(const char *raw, bool regions)
{
    return starts(raw, ".omp_outlined._debug__")
           || (regions && (starts(raw, ".omp_outlined.") || starts(raw, ".omp_task_entry.")));
}

char *vftr_names_outlined(const char *raw, const char *file, uint32_t line, bool regions)
{
    const char *gcc_at, *kind = outlined_kind(raw, &gcc_at);
    char buf[512];

    errno = 0;
    if (kind == NULL || keeps_raw(raw, regions))
        return NULL;
    if (file != NULL && file[0] != '\0' && line > 0) {
        snprintf(buf, sizeof buf, "omp %s @%s:%u", kind, base_name(file), line);
    } else if (gcc_at != NULL) {
        snprintf(buf, sizeof buf, "omp %s @%.*s #%lu", kind, (int)(gcc_at - raw), raw,
                 tail_number(raw));
    } else if (strcmp(kind, "target") == 0) {
        /* __omp_offloading_<device>_<file>_<function>_l<line> */
        const char *l = strrchr(raw, 'l'), *f = raw + strlen("__omp_offloading_");
        int skip;

        for (skip = 0; skip < 2 && (f = strchr(f, '_')) != NULL; skip++)
            f++;
        if (f != NULL && l != NULL && l > f + 1 && l[-1] == '_' && l[1] >= '0' && l[1] <= '9')
            snprintf(buf, sizeof buf, "omp target @%.*s:%lu", (int)(l - 1 - f), f,
                     strtoul(l + 1, NULL, 10));
        else
            snprintf(buf, sizeof buf, "omp target");
    } else {
        snprintf(buf, sizeof buf, "omp %s #%lu", kind, tail_number(raw));
    }
    return strdup(buf);
}

/* The name of the Fortran main program at addr (fn_lock held). */
static VFTR_NI const char *main_program(uintptr_t addr)
{
    char buf[256];
    struct vftr_ompt_lines *l = debug_info();
    const char *name;

    if (l == NULL || vftr_ompt_lines_function(l, addr, buf, sizeof buf) != 0)
        snprintf(buf, sizeof buf, MAIN_PROGRAM);
    name = keep(buf);
    if (name != NULL)
        atomic_store_explicit(&main_name, name, memory_order_release);
    return name;
}

const char *vftr_names_resolve(struct vftr_symtab *t, uintptr_t addr)
{
    struct vftr_symbol sym;
    const char *gcc_at, *file = NULL, *name;
    uint32_t line = 0;
    bool regions;
    char *out;

    if (vftr_symtab_find(t, addr, &sym) != 0)
        return NULL;
    if (strcmp(sym.raw_name, "MAIN__") == 0 || strcmp(sym.raw_name, "_QQmain") == 0) {
        name = main_program(sym.start);
        return name ? name : sym.name;
    }
    if (outlined_kind(sym.raw_name, &gcc_at) == NULL)
        return sym.name;
    regions = vftr_ompt_active();
    if (keeps_raw(sym.raw_name, regions))
        return sym.name;
    if (debug_info() != NULL)
        (void)vftr_ompt_lines_find(dwarf, sym.start, &file, &line, NULL);
    out = vftr_names_outlined(sym.raw_name, file, line, regions);
    if (out == NULL)
        return sym.name;
    name = keep(out);
    free(out);
    return name ? name : sym.name;
}

const char *vftr_names_source_file(uintptr_t addr, int *why)
{
    const char *file = NULL;
    uint32_t line = 0;
    int rc = debug_info() == NULL ? dwarf_err
                                  : vftr_ompt_lines_find(dwarf, addr, &file, &line, NULL);

    if (why)
        *why = rc;
    return rc == 0 ? file : NULL;
}

void vftr_names_forget(void)
{
    vftr_ompt_lines_free(dwarf);
    dwarf = NULL;
    dwarf_tried = false;
}

bool vftr_names_hidden(const char *name)
{
    return name != NULL && keeps_raw(name, vftr_ompt_active());
}

bool vftr_names_is_main(const char *name)
{
    const char *m = atomic_load_explicit(&main_name, memory_order_acquire);

    return m != NULL && name == m;
}
