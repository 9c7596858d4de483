/*
 * symbols.c — vftr's own ELF64 symbol reader and the address → name table
 * of the running process (contract in symbols.h).
 *
 * Why the files and not the memory image: .symtab (static functions, the
 * main program's functions of a non -rdynamic build) is not loaded at run
 * time, only .dynsym is.  So every object listed by dl_iterate_phdr is
 * opened, mapped read-only, parsed and unmapped; only the names of function
 * symbols are kept.  Before trusting a file we compare its PT_LOAD program
 * headers with the loaded ones, so a library replaced on disk since it was
 * loaded is skipped rather than given wrong names.
 *
 * Every read from a file goes through memcpy from a bounds-checked offset:
 * the file is hostile until proven otherwise and its offsets need not be
 * aligned.
 *
 * Layout: one struct object per loaded object with its own sorted array of
 * symbols (one per address after alias resolution) and one string arena;
 * the table keeps the active objects sorted by address.  An object that
 * disappears (dlclose) is retired, not freed, because names handed out must
 * live as long as the table.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demangle.h"
#include "symbols.h"

/* ---------------------------------------------------------------------------
 * The ELF reader
 */

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

static int elf_error(char *err, size_t errlen, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "offset N: " + message into err; returns -ENOEXEC. */
static int elf_error(char *err, size_t errlen, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (err != NULL && errlen > 0) {
        n = snprintf(err, errlen, "offset %llu: ", (unsigned long long)offset);
        if (n >= 0 && (size_t)n < errlen) {
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -ENOEXEC;
}

/* True when [off, off + size) lies inside a buffer of len bytes. */
static bool in_bounds(uint64_t off, uint64_t size, size_t len)
{
    return off <= len && size <= len - off;
}

/* The section header table: where, how many (extended numbering resolved). */
static int read_section_table(const unsigned char *p, size_t len, const Elf64_Ehdr *eh,
                              uint64_t *shnum, char *err, size_t errlen)
{
    Elf64_Shdr sh0;
    uint64_t n = eh->e_shnum;

    if (eh->e_shoff == 0)
        return elf_error(err, errlen, offsetof(Elf64_Ehdr, e_shoff),
                         "no section header table (e_shoff is 0)");
    if (eh->e_shentsize != sizeof(Elf64_Shdr))
        return elf_error(err, errlen, offsetof(Elf64_Ehdr, e_shentsize),
                         "section header size %u, expected %zu", (unsigned)eh->e_shentsize,
                         sizeof(Elf64_Shdr));
    if (n == 0) {
        /* More than SHN_LORESERVE sections: the count is in section 0. */
        if (!in_bounds(eh->e_shoff, sizeof sh0, len))
            return elf_error(err, errlen, offsetof(Elf64_Ehdr, e_shoff),
                             "section header table at %llu beyond end of file (%zu bytes)",
                             (unsigned long long)eh->e_shoff, len);
        memcpy(&sh0, p + eh->e_shoff, sizeof sh0);
        n = sh0.sh_size;
    }
    if (eh->e_shoff > len || n > (len - eh->e_shoff) / sizeof(Elf64_Shdr))
        return elf_error(err, errlen, offsetof(Elf64_Ehdr, e_shoff),
                         "section header table (%llu entries at %llu) beyond end of file "
                         "(%zu bytes)",
                         (unsigned long long)n, (unsigned long long)eh->e_shoff, len);
    *shnum = n;
    return 0;
}

/* Walks one SHT_SYMTAB / SHT_DYNSYM section. */
static int walk_symbols(const unsigned char *p, size_t len, uint64_t shoff, uint64_t shnum,
                        uint64_t idx, const Elf64_Shdr *sh, vftr_elf_symbol_fn *fn, void *arg,
                        long *count, char *err, size_t errlen)
{
    uint64_t hdr = shoff + idx * sizeof(Elf64_Shdr);
    Elf64_Shdr str;
    uint64_t nsym, i;
    const char *strtab;

    if (sh->sh_entsize != sizeof(Elf64_Sym))
        return elf_error(err, errlen, hdr + offsetof(Elf64_Shdr, sh_entsize),
                         "section %llu: symbol entry size %llu, expected %zu",
                         (unsigned long long)idx, (unsigned long long)sh->sh_entsize,
                         sizeof(Elf64_Sym));
    if (!in_bounds(sh->sh_offset, sh->sh_size, len))
        return elf_error(err, errlen, hdr + offsetof(Elf64_Shdr, sh_offset),
                         "section %llu: symbols (%llu bytes at %llu) beyond end of file "
                         "(%zu bytes)",
                         (unsigned long long)idx, (unsigned long long)sh->sh_size,
                         (unsigned long long)sh->sh_offset, len);
    if (sh->sh_size % sizeof(Elf64_Sym) != 0)
        return elf_error(err, errlen, hdr + offsetof(Elf64_Shdr, sh_size),
                         "section %llu: size %llu is not a multiple of %zu",
                         (unsigned long long)idx, (unsigned long long)sh->sh_size,
                         sizeof(Elf64_Sym));
    if (sh->sh_link == 0 || sh->sh_link >= shnum)
        return elf_error(err, errlen, hdr + offsetof(Elf64_Shdr, sh_link),
                         "section %llu: sh_link %u is not a section (expected 1..%llu)",
                         (unsigned long long)idx, (unsigned)sh->sh_link,
                         (unsigned long long)(shnum - 1));
    memcpy(&str, p + shoff + (uint64_t)sh->sh_link * sizeof(Elf64_Shdr), sizeof str);
    if (str.sh_type != SHT_STRTAB)
        return elf_error(err, errlen, hdr + offsetof(Elf64_Shdr, sh_link),
                         "section %llu: sh_link %u names a section of type %u, expected a "
                         "string table (%u)",
                         (unsigned long long)idx, (unsigned)sh->sh_link, (unsigned)str.sh_type,
                         (unsigned)SHT_STRTAB);
    if (!in_bounds(str.sh_offset, str.sh_size, len))
        return elf_error(err, errlen,
                         shoff + (uint64_t)sh->sh_link * sizeof(Elf64_Shdr) +
                             offsetof(Elf64_Shdr, sh_offset),
                         "section %u: string table (%llu bytes at %llu) beyond end of file "
                         "(%zu bytes)",
                         (unsigned)sh->sh_link, (unsigned long long)str.sh_size,
                         (unsigned long long)str.sh_offset, len);
    strtab = (const char *)p + str.sh_offset;

    nsym = sh->sh_size / sizeof(Elf64_Sym);
    for (i = 1; i < nsym; i++) {   /* entry 0 is the undefined symbol */
        uint64_t at = sh->sh_offset + i * sizeof(Elf64_Sym);
        struct vftr_elf_symbol out;
        Elf64_Sym s;
        unsigned type;
        int rc;

        memcpy(&s, p + at, sizeof s);
        type = ELF64_ST_TYPE(s.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC)
            continue;
        if (s.st_shndx == SHN_UNDEF || (s.st_value == 0 && s.st_size == 0))
            continue;
        if (s.st_name >= str.sh_size)
            return elf_error(err, errlen, at + offsetof(Elf64_Sym, st_name),
                             "symbol %llu of section %llu: name index %u beyond its string "
                             "table (%llu bytes)",
                             (unsigned long long)i, (unsigned long long)idx,
                             (unsigned)s.st_name, (unsigned long long)str.sh_size);
        if (memchr(strtab + s.st_name, '\0', str.sh_size - s.st_name) == NULL)
            return elf_error(err, errlen, str.sh_offset + s.st_name,
                             "symbol %llu of section %llu: name not terminated inside its "
                             "string table",
                             (unsigned long long)i, (unsigned long long)idx);
        if (strtab[s.st_name] == '\0')
            continue;
        out.value = s.st_value;
        out.size = s.st_size;
        out.section_end = 0;
        if (s.st_shndx < SHN_LORESERVE && s.st_shndx < shnum) {
            Elf64_Shdr in;

            memcpy(&in, p + shoff + (uint64_t)s.st_shndx * sizeof in, sizeof in);
            if ((in.sh_flags & SHF_ALLOC) && in.sh_addr <= UINT64_MAX - in.sh_size)
                out.section_end = in.sh_addr + in.sh_size;
        }
        out.name = strtab + s.st_name;
        out.bind = (unsigned char)ELF64_ST_BIND(s.st_info);
        out.type = (unsigned char)type;
        out.dynamic = sh->sh_type == SHT_DYNSYM;
        if (fn != NULL && (rc = fn(arg, &out)) != 0)
            return rc;
        if (*count < INT_MAX)
            ++*count;
    }
    return 0;
}

/* Checks the ELF header; fills *eh. */
static int read_elf_header(const unsigned char *p, size_t len, Elf64_Ehdr *eh, char *err,
                           size_t errlen)
{
    if (len < sizeof *eh)
        return elf_error(err, errlen, 0, "file too short for an elf header (%zu bytes, expected %zu)",
                         len, sizeof *eh);
    memcpy(eh, p, sizeof *eh);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return elf_error(err, errlen, 0, "not an elf file (bad magic)");
    if (eh->e_ident[EI_CLASS] != ELFCLASS64)
        return elf_error(err, errlen, EI_CLASS, "elf class %u, expected %u (64-bit)",
                         (unsigned)eh->e_ident[EI_CLASS], (unsigned)ELFCLASS64);
    if (eh->e_ident[EI_DATA] != NATIVE_DATA)
        return elf_error(err, errlen, EI_DATA, "byte order %u, expected %u (this machine's)",
                         (unsigned)eh->e_ident[EI_DATA], (unsigned)NATIVE_DATA);
    if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
        return elf_error(err, errlen, offsetof(Elf64_Ehdr, e_type),
                         "elf type %u, expected an executable (%u) or shared object (%u)",
                         (unsigned)eh->e_type, (unsigned)ET_EXEC, (unsigned)ET_DYN);
    return 0;
}

int vftr_elf_parse_buffer(const void *buf, size_t len, vftr_elf_symbol_fn *fn, void *arg,
                          char *err, size_t errlen)
{
    const unsigned char *p = buf;
    Elf64_Ehdr eh;
    uint64_t shnum = 0, i;
    long count = 0;
    int rc;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (p == NULL && len > 0)
        return elf_error(err, errlen, 0, "no buffer");
    if ((rc = read_elf_header(p, len, &eh, err, errlen)) != 0)
        return rc;
    if ((rc = read_section_table(p, len, &eh, &shnum, err, errlen)) != 0)
        return rc;
    for (i = 1; i < shnum; i++) {
        Elf64_Shdr sh;

        memcpy(&sh, p + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
            continue;
        rc = walk_symbols(p, len, eh.e_shoff, shnum, i, &sh, fn, arg, &count, err, errlen);
        if (rc != 0)
            return rc;
    }
    return (int)count;
}

/* ---------------------------------------------------------------------------
 * The table
 */

struct sym {
    uintptr_t start, end;
    const char *raw;        /* in the object's arena */
    const char *display;    /* raw, or a string owned by the symbol (owned) */
    unsigned char owned;    /* display must be freed */
    unsigned char named;    /* display has been computed */
};

struct object {
    char *path;
    uintptr_t bias;
    const void *phdr;       /* identifies the loaded instance with bias and path */
    uintptr_t lo, hi;       /* extent of its PT_LOAD segments */
    struct sym *syms;       /* sorted by start, starts distinct */
    size_t nsyms;
    char *arena;            /* raw names */
};

struct vftr_symtab {
    pthread_mutex_t lock;
    unsigned flags;
    bool scanning;          /* false: a buffer table, never rescanned */
    vftr_symtab_report_fn *report;
    void *report_arg;
    vftr_cxa_demangle_fn *cxa;

    struct object **active; /* sorted by lo, non-overlapping */
    size_t nactive, capactive;
    struct object **retired;
    size_t nretired, capretired;

    unsigned long long adds, subs;  /* dl_iterate_phdr's counters at the last scan */
    bool counters_known;

    uintptr_t *misses;      /* sorted addresses known to have no function */
    size_t nmisses, capmisses;
};

static void report(struct vftr_symtab *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void report(struct vftr_symtab *t, const char *fmt, ...)
{
    char msg[768];
    va_list ap;

    if (t->report == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    t->report(t->report_arg, msg);
}

/* Grows *arr (of elements of size sz) to hold at least need elements. */
static int grow(void **arr, size_t *cap, size_t need, size_t sz)
{
    size_t ncap;
    void *n;

    if (need <= *cap)
        return 0;
    ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / sz)
            return -ENOMEM;
        ncap *= 2;
    }
    n = realloc(*arr, ncap * sz);
    if (n == NULL)
        return -ENOMEM;
    *arr = n;
    *cap = ncap;
    return 0;
}

/* Symbols collected from a file before alias resolution. */
struct cand {
    uintptr_t start, end;   /* end 0: size unknown */
    uintptr_t limit;        /* end of its section, 0: unknown */
    const char *name;       /* in the file's buffer */
    size_t namelen;
    unsigned rank;          /* 0 global/unique, 1 weak, 2 local, 3 other */
};

struct collect {
    struct cand *c;
    size_t n, cap;
    uintptr_t bias, lo, hi;
};

static int collect_symbol(void *arg, const struct vftr_elf_symbol *s)
{
    struct collect *col = arg;
    struct cand *c;
    uintptr_t start, end = 0;

    if (s->value > UINTPTR_MAX - col->bias)
        return 0;   /* would wrap: cannot be in the image */
    start = col->bias + (uintptr_t)s->value;
    if (s->size != 0) {
        if (s->size > UINTPTR_MAX - start)
            return 0;
        end = start + (uintptr_t)s->size;
    }
    if (start < col->lo || start >= col->hi)
        return 0;   /* outside the loaded segments */
    if (grow((void **)&col->c, &col->cap, col->n + 1, sizeof *col->c) != 0)
        return -ENOMEM;
    c = &col->c[col->n++];
    c->start = start;
    c->end = end;
    c->limit = 0;
    if (s->section_end > s->value && s->section_end - s->value <= UINTPTR_MAX - start)
        c->limit = start + (uintptr_t)(s->section_end - s->value);
    c->name = s->name;
    c->namelen = strlen(s->name);
    switch (s->bind) {
    case STB_GLOBAL:
    case STB_GNU_UNIQUE:
        c->rank = 0;
        break;
    case STB_WEAK:
        c->rank = 1;
        break;
    case STB_LOCAL:
        c->rank = 2;
        break;
    default:
        c->rank = 3;
        break;
    }
    return 0;
}

/* Order of candidates: by address, then the preferred name first. */
static int cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;

    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->namelen != y->namelen)
        return x->namelen < y->namelen ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void object_free(struct object *o)
{
    size_t i;

    if (o == NULL)
        return;
    for (i = 0; i < o->nsyms; i++)
        if (o->syms[i].owned)
            free((char *)o->syms[i].display);
    free(o->syms);
    free(o->arena);
    free(o->path);
    free(o);
}

/* Builds o's symbols from the ELF image buf (o->bias, lo, hi already set).
 * 0, -ENOEXEC (message in err) or -ENOMEM. */
static int object_load(struct object *o, const void *buf, size_t len, char *err, size_t errlen)
{
    struct collect col = { NULL, 0, 0, o->bias, o->lo, o->hi };
    size_t i, n, bytes = 0, kept;
    char *q;
    int rc;

    rc = vftr_elf_parse_buffer(buf, len, collect_symbol, &col, err, errlen);
    if (rc < 0) {
        free(col.c);
        return rc;
    }
    if (col.n > 0)
        qsort(col.c, col.n, sizeof *col.c, cand_cmp);
    /* Aliases: keep the first candidate of each address. */
    for (i = n = 0; i < col.n; i++) {
        if (n > 0 && col.c[n - 1].start == col.c[i].start) {
            /* an alias without size may still give the extent */
            if (col.c[n - 1].end == 0)
                col.c[n - 1].end = col.c[i].end;
            if (col.c[n - 1].limit == 0)
                col.c[n - 1].limit = col.c[i].limit;
            continue;
        }
        col.c[n++] = col.c[i];
    }
    for (i = 0; i < n; i++)
        bytes += col.c[i].namelen + 1;
    o->syms = n ? calloc(n, sizeof *o->syms) : NULL;
    o->arena = bytes ? malloc(bytes) : NULL;
    if ((n && o->syms == NULL) || (bytes && o->arena == NULL)) {
        free(col.c);
        return -ENOMEM;
    }
    q = o->arena;
    for (i = kept = 0; i < n; i++) {
        struct sym *s = &o->syms[kept];
        uintptr_t next = i + 1 < n ? col.c[i + 1].start : o->hi;

        s->start = col.c[i].start;
        /* A symbol without size (hand-written assembly, _init) reaches the
         * next function or the end of its section, whichever comes first
         * (so _init does not swallow the PLT after it); every extent stays
         * inside the object. */
        if (col.c[i].end != 0)
            s->end = col.c[i].end;
        else if (col.c[i].limit != 0 && col.c[i].limit < next)
            s->end = col.c[i].limit;
        else
            s->end = next;
        if (s->end > o->hi)
            s->end = o->hi;
        memcpy(q, col.c[i].name, col.c[i].namelen + 1);
        s->raw = q;
        s->display = q;
        q += col.c[i].namelen + 1;
        kept++;
    }
    o->nsyms = kept;
    free(col.c);
    return 0;
}

/* The symbol of o containing addr, or NULL. */
static struct sym *object_find(struct object *o, uintptr_t addr)
{
    size_t lo = 0, hi = o->nsyms;

    while (lo < hi) {   /* first symbol starting after addr */
        size_t mid = lo + (hi - lo) / 2;

        if (o->syms[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    return addr < o->syms[lo - 1].end ? &o->syms[lo - 1] : NULL;
}

/* The active object whose segments' extent holds addr, or NULL. */
static struct object *table_object(struct vftr_symtab *t, uintptr_t addr)
{
    size_t lo = 0, hi = t->nactive;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (t->active[mid]->lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= t->active[lo - 1]->hi)
        return NULL;
    return t->active[lo - 1];
}

static int object_cmp(const void *a, const void *b)
{
    const struct object *x = *(struct object *const *)a, *y = *(struct object *const *)b;

    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return 0;
}

/* ---- reading the loaded objects ---- */

/* What dl_iterate_phdr tells about one object. */
struct loaded {
    char *name;             /* dlpi_name copy ("" for the main program) */
    uintptr_t bias;
    const ElfW(Phdr) *phdr;     /* the loader's, as an identity only: never read */
    ElfW(Phdr) *ph;             /* a copy of the headers, made in the callback */
    size_t phnum;
    bool main, vdso;
    bool seen;
};

struct scan {
    struct loaded *l;
    size_t n, cap;
    int error;
    unsigned long long adds, subs;
    bool counters_known;
};

static bool has_counters(size_t size)
{
    return size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(unsigned long long);
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct scan *sc = arg;
    struct loaded *l;
    unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
    unsigned long main_phdr = getauxval(AT_PHDR);

    if (sc->n == 0 && has_counters(size)) {
        sc->adds = info->dlpi_adds;
        sc->subs = info->dlpi_subs;
        sc->counters_known = true;
    }
    if (grow((void **)&sc->l, &sc->cap, sc->n + 1, sizeof *sc->l) != 0) {
        sc->error = -ENOMEM;
        return 1;
    }
    l = &sc->l[sc->n];
    memset(l, 0, sizeof *l);
    l->name = strdup(info->dlpi_name ? info->dlpi_name : "");
    if (l->name == NULL) {
        sc->error = -ENOMEM;
        return 1;
    }
    l->bias = (uintptr_t)info->dlpi_addr;
    l->phdr = info->dlpi_phdr;
    l->phnum = info->dlpi_phnum;
    /* copied here, under the loader's lock: after dl_iterate_phdr returns,
     * another thread may unload the object and unmap its headers (Open MPI
     * opens and closes components while the collector scans) */
    l->ph = malloc(l->phnum * sizeof *l->ph + 1);
    if (l->ph == NULL) {
        free(l->name);
        sc->error = -ENOMEM;
        return 1;
    }
    memcpy(l->ph, info->dlpi_phdr, l->phnum * sizeof *l->ph);
    l->main = main_phdr != 0 ? (uintptr_t)info->dlpi_phdr == main_phdr : sc->n == 0;
    if (vdso != 0) {
        ElfW(Ehdr) eh;

        memcpy(&eh, (const void *)vdso, sizeof eh);
        l->vdso = (uintptr_t)info->dlpi_phdr == vdso + eh.e_phoff;
    }
    sc->n++;
    return 0;
}

/* Reads only the counters (stops at the first object). */
static int counters_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct scan *sc = arg;

    if (has_counters(size)) {
        sc->adds = info->dlpi_adds;
        sc->subs = info->dlpi_subs;
        sc->counters_known = true;
    }
    return 1;
}

static void scan_release(struct scan *sc)
{
    size_t i;

    for (i = 0; i < sc->n; i++) {
        free(sc->l[i].name);
        free(sc->l[i].ph);
    }
    free(sc->l);
}

/* Does the file's program header table describe the loaded image?  Each
 * PT_LOAD must agree in order, address and size. */
static bool same_image(const unsigned char *p, size_t len, const struct loaded *l)
{
    Elf64_Ehdr eh;
    size_t i, j = 0;

    if (read_elf_header(p, len, &eh, NULL, 0) != 0 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phoff > len || eh.e_phnum > (len - eh.e_phoff) / sizeof(Elf64_Phdr))
        return false;
    for (i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;

        memcpy(&ph, p + eh.e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_LOAD)
            continue;
        while (j < l->phnum && l->ph[j].p_type != PT_LOAD)
            j++;
        if (j == l->phnum || l->ph[j].p_vaddr != ph.p_vaddr ||
            l->ph[j].p_memsz != ph.p_memsz)
            return false;
        j++;
    }
    while (j < l->phnum && l->ph[j].p_type != PT_LOAD)
        j++;
    return j == l->phnum;
}

/* Opens, maps, checks and parses one loaded object.  NULL when skipped
 * (reported) or out of memory (*nomem set). */
static struct object *load_object(struct vftr_symtab *t, const struct loaded *l, bool *nomem)
{
    char err[256], exe[PATH_MAX];
    const char *path = l->name;
    struct object *o;
    struct stat st;
    void *map;
    size_t i;
    int fd, rc;

    if (l->main && path[0] == '\0') {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

        if (n <= 0) {
            report(t, "symbols: cannot read /proc/self/exe: %s; main program skipped",
                   strerror(errno));
            return NULL;
        }
        exe[n] = '\0';
        path = exe;
    }
    o = calloc(1, sizeof *o);
    if (o == NULL || (o->path = strdup(path)) == NULL) {
        free(o);
        *nomem = true;
        return NULL;
    }
    o->bias = l->bias;
    o->phdr = l->phdr;
    o->lo = UINTPTR_MAX;
    o->hi = 0;
    for (i = 0; i < l->phnum; i++) {
        const ElfW(Phdr) *ph = &l->ph[i];

        if (ph->p_type != PT_LOAD)
            continue;
        if (l->bias + ph->p_vaddr < o->lo)
            o->lo = l->bias + ph->p_vaddr;
        if (l->bias + ph->p_vaddr + ph->p_memsz > o->hi)
            o->hi = l->bias + ph->p_vaddr + ph->p_memsz;
    }
    if (o->lo >= o->hi) {
        report(t, "symbols: %s: no loadable segment; skipped", o->path);
        object_free(o);
        return NULL;
    }
    /* A normally started program has no name in the loader's list and is
     * read through /proc/self/exe (run as "ld.so ./prog", it has a name and
     * /proc/self/exe is the loader). */
    fd = open(l->name[0] == '\0' ? "/proc/self/exe" : l->name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        report(t, "symbols: %s: cannot open: %s; skipped", o->path, strerror(errno));
        object_free(o);
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (unsigned long long)st.st_size > SIZE_MAX) {
        report(t, "symbols: %s: not a regular non-empty file; skipped", o->path);
        close(fd);
        object_free(o);
        return NULL;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        report(t, "symbols: %s: cannot map: %s; skipped", o->path, strerror(errno));
        object_free(o);
        return NULL;
    }
    if (!same_image(map, (size_t)st.st_size, l)) {
        report(t, "symbols: %s: file does not match the loaded image (replaced on disk?); "
                  "skipped", o->path);
        munmap(map, (size_t)st.st_size);
        object_free(o);
        return NULL;
    }
    rc = object_load(o, map, (size_t)st.st_size, err, sizeof err);
    munmap(map, (size_t)st.st_size);
    if (rc == -ENOMEM) {
        object_free(o);
        *nomem = true;
        return NULL;
    }
    if (rc < 0) {
        report(t, "symbols: %s: %s; skipped", o->path, err);
        object_free(o);
        return NULL;
    }
    return o;
}

static int retire(struct vftr_symtab *t, struct object *o)
{
    if (grow((void **)&t->retired, &t->capretired, t->nretired + 1, sizeof *t->retired) != 0)
        return -ENOMEM;
    t->retired[t->nretired++] = o;
    return 0;
}

/* Brings the active objects up to date with the loaded ones.  Caller holds
 * the lock (or owns t alone).  0 or -ENOMEM (the table stays usable). */
static int rescan(struct vftr_symtab *t)
{
    struct scan sc = { 0 };
    size_t i, j, n;
    int rc = 0;

    dl_iterate_phdr(scan_one, &sc);
    if (sc.error != 0) {
        scan_release(&sc);
        return sc.error;
    }
    t->adds = sc.adds;
    t->subs = sc.subs;
    t->counters_known = sc.counters_known;
    t->nmisses = 0;   /* what missed before may be found now */

    /* Objects still loaded stay; the others retire. */
    for (i = n = 0; i < t->nactive; i++) {
        struct object *o = t->active[i];
        bool keep = false;

        /* the same instance: same place, and the same file (another object
         * of the same layout may have been loaded where a closed one was) */
        for (j = 0; j < sc.n && !keep; j++) {
            if (!sc.l[j].seen && sc.l[j].bias == o->bias && (const void *)sc.l[j].phdr == o->phdr
                && (sc.l[j].main || strcmp(sc.l[j].name, o->path) == 0)) {
                sc.l[j].seen = true;
                keep = true;
            }
        }
        if (keep)
            t->active[n++] = o;
        else if (retire(t, o) != 0)
            t->active[n++] = o;   /* cannot retire: keep it rather than leak names */
    }
    t->nactive = n;

    for (j = 0; j < sc.n; j++) {
        struct object *o;
        bool nomem = false;

        if (sc.l[j].seen || sc.l[j].vdso || (!sc.l[j].main && sc.l[j].name[0] == '\0'))
            continue;
        o = load_object(t, &sc.l[j], &nomem);
        if (o == NULL) {
            if (nomem)
                rc = -ENOMEM;
            continue;
        }
        if (grow((void **)&t->active, &t->capactive, t->nactive + 1, sizeof *t->active) != 0) {
            object_free(o);
            rc = -ENOMEM;
            continue;
        }
        t->active[t->nactive++] = o;
    }
    if (t->nactive > 1)
        qsort(t->active, t->nactive, sizeof *t->active, object_cmp);
    scan_release(&sc);
    return rc;
}

/* Have objects been loaded or unloaded since the last scan? */
static bool loaded_changed(struct vftr_symtab *t)
{
    struct scan sc = { 0 };

    if (!t->counters_known)
        return true;
    dl_iterate_phdr(counters_one, &sc);
    return !sc.counters_known || sc.adds != t->adds || sc.subs != t->subs;
}

static bool is_miss(const struct vftr_symtab *t, uintptr_t addr)
{
    size_t lo = 0, hi = t->nmisses;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (t->misses[mid] == addr)
            return true;
        if (t->misses[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static void add_miss(struct vftr_symtab *t, uintptr_t addr)
{
    size_t i;

    if (grow((void **)&t->misses, &t->capmisses, t->nmisses + 1, sizeof *t->misses) != 0)
        return;   /* then the miss is simply not remembered */
    for (i = t->nmisses; i > 0 && t->misses[i - 1] > addr; i--)
        t->misses[i] = t->misses[i - 1];
    t->misses[i] = addr;
    t->nmisses++;
}

static struct vftr_symtab *table_alloc(unsigned flags)
{
    struct vftr_symtab *t = calloc(1, sizeof *t);

    if (t == NULL)
        return NULL;
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        free(t);
        errno = ENOMEM;
        return NULL;
    }
    t->flags = flags;
    return t;
}

struct vftr_symtab *vftr_symtab_new_opts(const struct vftr_symtab_opts *opts)
{
    struct vftr_symtab *t;

    t = table_alloc(opts ? opts->flags : 0);
    if (t == NULL)
        return NULL;
    t->scanning = true;
    if (opts != NULL) {
        t->report = opts->report;
        t->report_arg = opts->report_arg;
    }
    if (rescan(t) == -ENOMEM && t->nactive == 0) {
        vftr_symtab_free(t);
        errno = ENOMEM;
        return NULL;
    }
    return t;
}

struct vftr_symtab *vftr_symtab_new(unsigned flags)
{
    struct vftr_symtab_opts opts = { flags, NULL, NULL };

    return vftr_symtab_new_opts(&opts);
}

struct vftr_symtab *vftr_symtab_new_buffer(const void *buf, size_t len, uintptr_t bias,
                                           unsigned flags, char *err, size_t errlen)
{
    struct vftr_symtab *t = table_alloc(flags);
    struct object *o;
    int rc;

    if (t == NULL)
        return NULL;
    o = calloc(1, sizeof *o);
    if (o == NULL || (o->path = strdup("(buffer)")) == NULL ||
        grow((void **)&t->active, &t->capactive, 1, sizeof *t->active) != 0) {
        free(o);
        vftr_symtab_free(t);
        errno = ENOMEM;
        return NULL;
    }
    o->bias = bias;
    o->lo = 0;
    o->hi = UINTPTR_MAX;
    rc = object_load(o, buf, len, err, errlen);
    if (rc < 0) {
        object_free(o);
        vftr_symtab_free(t);
        errno = -rc;
        return NULL;
    }
    t->active[t->nactive++] = o;
    return t;
}

/* Computes s's display name once (lock held). */
static void name_symbol(struct vftr_symtab *t, struct sym *s)
{
    char *out;

    if (s->named)
        return;
    if ((t->flags & VFTR_SYMTAB_DEMANGLE) && t->cxa == NULL && s->raw[0] == '_' &&
        s->raw[1] == 'Z')
        t->cxa = vftr_demangle_find_cxa();   /* the C++ runtime may come late */
    if (vftr_demangle(s->raw, t->flags, t->cxa, &out) != 0)
        return;   /* out of memory: the raw name now, another try next time */
    if (out != NULL) {
        s->display = out;
        s->owned = 1;
    }
    s->named = 1;
}

/* The symbol containing addr (lock held).  The loader's counters are
 * checked first: one call of dl_iterate_phdr that stops at the first object,
 * affordable once per new function.  So an object dlopen'ed since the last
 * scan is read before its addresses are looked up, and one that was
 * dlclose'd no longer answers for addresses another object may now use. */
static struct sym *table_find(struct vftr_symtab *t, uintptr_t addr, struct object **obj)
{
    struct object *o;
    struct sym *s;

    if (t->scanning && loaded_changed(t))
        rescan(t);   /* forgets the misses; on ENOMEM the table stays as it was */
    if (is_miss(t, addr))
        return NULL;
    o = table_object(t, addr);
    s = o ? object_find(o, addr) : NULL;
    if (s == NULL)
        add_miss(t, addr);
    if (s != NULL) {
        name_symbol(t, s);
        *obj = o;
    }
    return s;
}

int vftr_symtab_find(struct vftr_symtab *t, uintptr_t addr, struct vftr_symbol *sym)
{
    struct object *o = NULL;
    struct sym *s;

    if (t == NULL || sym == NULL)
        return -EINVAL;
    pthread_mutex_lock(&t->lock);
    s = table_find(t, addr, &o);
    if (s != NULL) {
        sym->start = s->start;
        sym->end = s->end;
        sym->name = s->display;
        sym->raw_name = s->raw;
        sym->object = o->path;
    }
    pthread_mutex_unlock(&t->lock);
    return s ? 0 : -ENOENT;
}

const char *vftr_symtab_lookup(struct vftr_symtab *t, uintptr_t addr)
{
    struct vftr_symbol sym;

    return vftr_symtab_find(t, addr, &sym) == 0 ? sym.name : NULL;
}

int vftr_symtab_forget(struct vftr_symtab *t, uintptr_t lo, uintptr_t hi)
{
    size_t i, n;
    int rc = 0;

    if (t == NULL || !t->scanning)
        return 0;
    pthread_mutex_lock(&t->lock);
    for (i = n = 0; i < t->nactive; i++) {
        struct object *o = t->active[i];
        bool there = o->lo < hi && lo < o->hi;

        if (there && retire(t, o) == 0)
            continue;
        if (there)
            rc = -ENOMEM;   /* cannot retire: kept rather than leak names */
        t->active[n++] = o;
    }
    t->nactive = n;
    t->nmisses = 0;
    /* the next lookup reads the loader's list again (an object still there
     * comes back) */
    t->counters_known = false;
    pthread_mutex_unlock(&t->lock);
    return rc;
}

size_t vftr_symtab_count(struct vftr_symtab *t)
{
    size_t i, n = 0;

    if (t == NULL)
        return 0;
    pthread_mutex_lock(&t->lock);
    for (i = 0; i < t->nactive; i++)
        n += t->active[i]->nsyms;
    pthread_mutex_unlock(&t->lock);
    return n;
}

void vftr_symtab_free(struct vftr_symtab *t)
{
    size_t i;

    if (t == NULL)
        return;
    for (i = 0; i < t->nactive; i++)
        object_free(t->active[i]);
    for (i = 0; i < t->nretired; i++)
        object_free(t->retired[i]);
    free(t->active);
    free(t->retired);
    free(t->misses);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
