/*
 * test_capture_symbols.c — Check suite for capture/symbols (the ELF symbol
 * reader and the address → name table) and capture/demangle.
 *
 * Expectations are written by hand: a small ELF image is assembled here
 * byte by byte with known symbols, and the test programs of
 * test/data/symbols (built by test/symbols.mk into $BUILD/test/symbols) print
 * what they resolved for functions whose names we know.  Corrupt images are
 * derived from the hand-made one and from a real shared library.
 */
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demangle.h"
#include "symbols.h"

/* ---------------------------------------------------------------------------
 * A hand-made ELF64 shared object: sections [0] null, [1] .text (0x1000 ..
 * 0x2000), [2] .symtab, [3] .strtab, [4] .dynsym; no program headers (the
 * reader does not need them for a buffer).
 */

struct hsym {
    const char *name;
    unsigned bind, type, shndx;
    uint64_t value, size;
};

static const struct hsym symtab_syms[] = {
    { "glob_long_name", STB_GLOBAL, STT_FUNC, 1, 0x1000, 0x10 },
    { "wk", STB_WEAK, STT_FUNC, 1, 0x1000, 0x10 },
    { "l", STB_LOCAL, STT_FUNC, 1, 0x1000, 0x10 },
    { "bbb", STB_GLOBAL, STT_FUNC, 1, 0x1020, 0x10 },
    { "aaa", STB_GLOBAL, STT_FUNC, 1, 0x1020, 0x10 },
    { "short", STB_WEAK, STT_FUNC, 1, 0x1040, 0x10 },
    { "longer", STB_WEAK, STT_FUNC, 1, 0x1040, 0x10 },
    { "loc1", STB_LOCAL, STT_FUNC, 1, 0x1060, 0 },
    { "after", STB_GLOBAL, STT_FUNC, 1, 0x1080, 8 },
    { "data", STB_GLOBAL, STT_OBJECT, 1, 0x1090, 0x10 },
    { "undef", STB_GLOBAL, STT_FUNC, SHN_UNDEF, 0x10a0, 0 },
    { "ifn", STB_GLOBAL, STT_GNU_IFUNC, 1, 0x10b0, 4 },
    { "zero", STB_GLOBAL, STT_FUNC, 1, 0, 0 },
    { "_ZN2ns5klass6methodEi", STB_GLOBAL, STT_FUNC, 1, 0x10c0, 4 },
    { "__mymod_MOD_work", STB_GLOBAL, STT_FUNC, 1, 0x10d0, 4 },
    { "asm_end", STB_LOCAL, STT_FUNC, 1, 0x1f00, 0 },
};
static const struct hsym dynsym_syms[] = {
    { "glob_long_name", STB_GLOBAL, STT_FUNC, 1, 0x1000, 0x10 },
    { "ifn", STB_GLOBAL, STT_GNU_IFUNC, 1, 0x10b0, 4 },
};
#define N_SYMTAB (sizeof symtab_syms / sizeof symtab_syms[0])
#define N_DYNSYM (sizeof dynsym_syms / sizeof dynsym_syms[0])
/* Function symbols the reader must accept: 13 of .symtab (not data, undef,
 * zero), 2 of .dynsym. */
#define N_ACCEPTED 15
/* Distinct function addresses: 0x1000 0x1020 0x1040 0x1060 0x1080 0x10b0
 * 0x10c0 0x10d0 0x1f00. */
#define N_DISTINCT 9

struct image {
    unsigned char b[4096];
    size_t len;
    size_t shoff;                 /* section header table */
    size_t symoff, stroff, dynoff;
};

#define SH_AT(im, i) ((im)->shoff + (size_t)(i) * sizeof(Elf64_Shdr))

static size_t put_syms(struct image *im, size_t off, const struct hsym *s, size_t n,
                       const size_t *name_off)
{
    Elf64_Sym e;
    size_t i;

    memset(&e, 0, sizeof e);
    memcpy(im->b + off, &e, sizeof e);   /* entry 0 */
    off += sizeof e;
    for (i = 0; i < n; i++) {
        memset(&e, 0, sizeof e);
        e.st_name = (Elf64_Word)name_off[i];
        e.st_info = (unsigned char)ELF64_ST_INFO(s[i].bind, s[i].type);
        e.st_shndx = (Elf64_Section)s[i].shndx;
        e.st_value = s[i].value;
        e.st_size = s[i].size;
        memcpy(im->b + off, &e, sizeof e);
        off += sizeof e;
    }
    return off;
}

static void build_image(struct image *im)
{
    size_t sym_names[N_SYMTAB], dyn_names[N_DYNSYM];
    Elf64_Ehdr eh;
    Elf64_Shdr sh[5];
    size_t off, i, strsize;

    memset(im, 0, sizeof *im);
    /* string table right after the header */
    im->stroff = sizeof eh;
    off = im->stroff + 1;   /* index 0 is the empty name */
    for (i = 0; i < N_SYMTAB; i++) {
        sym_names[i] = off - im->stroff;
        memcpy(im->b + off, symtab_syms[i].name, strlen(symtab_syms[i].name) + 1);
        off += strlen(symtab_syms[i].name) + 1;
    }
    for (i = 0; i < N_DYNSYM; i++) {   /* the dynamic names share the entries */
        size_t j;

        for (j = 0; strcmp(symtab_syms[j].name, dynsym_syms[i].name) != 0; j++)
            ;
        dyn_names[i] = sym_names[j];
    }
    strsize = off - im->stroff;
    off = (off + 7) & ~(size_t)7;
    im->symoff = off;
    off = put_syms(im, off, symtab_syms, N_SYMTAB, sym_names);
    im->dynoff = off;
    off = put_syms(im, off, dynsym_syms, N_DYNSYM, dyn_names);
    im->shoff = off;

    memset(sh, 0, sizeof sh);
    sh[1].sh_type = SHT_PROGBITS;
    sh[1].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
    sh[1].sh_addr = 0x1000;
    sh[1].sh_size = 0x1000;
    sh[2].sh_type = SHT_SYMTAB;
    sh[2].sh_offset = im->symoff;
    sh[2].sh_size = (N_SYMTAB + 1) * sizeof(Elf64_Sym);
    sh[2].sh_link = 3;
    sh[2].sh_entsize = sizeof(Elf64_Sym);
    sh[3].sh_type = SHT_STRTAB;
    sh[3].sh_offset = im->stroff;
    sh[3].sh_size = strsize;
    sh[4].sh_type = SHT_DYNSYM;
    sh[4].sh_flags = SHF_ALLOC;
    sh[4].sh_offset = im->dynoff;
    sh[4].sh_size = (N_DYNSYM + 1) * sizeof(Elf64_Sym);
    sh[4].sh_link = 3;
    sh[4].sh_entsize = sizeof(Elf64_Sym);
    memcpy(im->b + im->shoff, sh, sizeof sh);
    im->len = im->shoff + sizeof sh;

    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_DYN;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_ehsize = sizeof eh;
    eh.e_shoff = im->shoff;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 5;
    eh.e_shstrndx = 0;
    memcpy(im->b, &eh, sizeof eh);
}

/* Parses len bytes of p from an exact-size heap copy (so that the
 * sanitizers see any read past the end). */
static int parse_copy(const void *p, size_t len, char *err, size_t errlen)
{
    void *copy = malloc(len ? len : 1);
    int rc;

    ck_assert_ptr_nonnull(copy);
    memcpy(copy, p, len);
    rc = vftr_elf_parse_buffer(copy, len, NULL, NULL, err, errlen);
    free(copy);
    return rc;
}

static void set_u16(struct image *im, size_t off, uint16_t v) { memcpy(im->b + off, &v, 2); }
static void set_u32(struct image *im, size_t off, uint32_t v) { memcpy(im->b + off, &v, 4); }
static void set_u64(struct image *im, size_t off, uint64_t v) { memcpy(im->b + off, &v, 8); }

/* Expects a -ENOEXEC with a message containing want. */
static void expect_reject(struct image *im, const char *want)
{
    char err[512];
    int rc = parse_copy(im->b, im->len, err, sizeof err);

    ck_assert_int_eq(rc, -ENOEXEC);
    ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
}

/* ---------------------------------------------------------------------------
 * Tests of the reader on the hand-made image
 */

struct seen {
    int n, dynamic, ifunc;
    char names[32][32];
};

static int note(void *arg, const struct vftr_elf_symbol *s)
{
    struct seen *sn = arg;

    if (sn->n < 32)
        snprintf(sn->names[sn->n], sizeof sn->names[0], "%s", s->name);
    sn->n++;
    sn->dynamic += s->dynamic;
    sn->ifunc += s->type == STT_GNU_IFUNC;
    return 0;
}

START_TEST(test_parse_hand_image)
{
    struct image im;
    struct seen sn = { 0 };
    char err[256];
    int i, rc;

    build_image(&im);
    rc = vftr_elf_parse_buffer(im.b, im.len, note, &sn, err, sizeof err);
    ck_assert_msg(rc == N_ACCEPTED, "rc %d (%s)", rc, err);
    ck_assert_int_eq(sn.n, N_ACCEPTED);
    ck_assert_int_eq(sn.dynamic, 2);
    ck_assert_int_eq(sn.ifunc, 2);
    for (i = 0; i < sn.n; i++) {
        ck_assert_str_ne(sn.names[i], "data");
        ck_assert_str_ne(sn.names[i], "undef");
        ck_assert_str_ne(sn.names[i], "zero");
    }
    ck_assert_str_eq(sn.names[0], "glob_long_name");
    ck_assert_str_eq(sn.names[N_ACCEPTED - 1], "ifn");
}
END_TEST

static int stop_at_third(void *arg, const struct vftr_elf_symbol *s)
{
    (void)s;
    return ++*(int *)arg == 3 ? 42 : 0;
}

START_TEST(test_parse_callback_stops)
{
    struct image im;
    int calls = 0;

    build_image(&im);
    ck_assert_int_eq(vftr_elf_parse_buffer(im.b, im.len, stop_at_third, &calls, NULL, 0), 42);
    ck_assert_int_eq(calls, 3);
}
END_TEST

#define B 0x400000u

START_TEST(test_table_hand_image)
{
    struct vftr_symbol sym;
    struct vftr_symtab *t;
    struct image im;
    char err[256];

    build_image(&im);
    t = vftr_symtab_new_buffer(im.b, im.len, B, 0, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_uint_eq(vftr_symtab_count(t), N_DISTINCT);
    /* aliases: global before weak before local, whatever the length */
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x1000), "glob_long_name");
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x100f), "glob_long_name");
    ck_assert_ptr_null(vftr_symtab_lookup(t, B + 0x1010));
    /* same binding, same length: strcmp order */
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x1020), "aaa");
    /* same binding: the shorter name */
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x1048), "short");
    /* no size: up to the next function */
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x107f), "loc1");
    ck_assert_int_eq(vftr_symtab_find(t, B + 0x1070, &sym), 0);
    ck_assert_uint_eq(sym.start, B + 0x1060);
    ck_assert_uint_eq(sym.end, B + 0x1080);
    ck_assert_str_eq(sym.raw_name, "loc1");
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x1087), "after");
    ck_assert_ptr_null(vftr_symtab_lookup(t, B + 0x1088));
    ck_assert_ptr_null(vftr_symtab_lookup(t, B + 0x1090));   /* an object */
    ck_assert_ptr_null(vftr_symtab_lookup(t, B + 0x10a0));   /* undefined */
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x10b0), "ifn");
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x10c0), "_ZN2ns5klass6methodEi");
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x10d0), "__mymod_MOD_work");
    /* no size, last of its section: up to the section's end */
    ck_assert_str_eq(vftr_symtab_lookup(t, B + 0x1fff), "asm_end");
    ck_assert_ptr_null(vftr_symtab_lookup(t, B + 0x2000));
    /* without the bias nothing is there */
    ck_assert_ptr_null(vftr_symtab_lookup(t, 0x1000));
    ck_assert_ptr_null(vftr_symtab_lookup(t, 0x1000));   /* a remembered miss */
    ck_assert_int_eq(vftr_symtab_find(t, 0x1000, &sym), -ENOENT);
    ck_assert_int_eq(vftr_symtab_find(t, B + 0x1000, NULL), -EINVAL);
    vftr_symtab_free(t);
    vftr_symtab_free(NULL);
}
END_TEST

START_TEST(test_table_flags)
{
    struct vftr_symtab *t;
    struct image im;
    const char *cxx;

    build_image(&im);
    t = vftr_symtab_new_buffer(im.b, im.len, 0, VFTR_SYMTAB_STRIP_MODULES | VFTR_SYMTAB_DEMANGLE,
                               NULL, 0);
    ck_assert_ptr_nonnull(t);
    ck_assert_str_eq(vftr_symtab_lookup(t, 0x10d0), "work");
    cxx = vftr_symtab_lookup(t, 0x10c0);
    /* This suite is C: the demangler is there only if some library brought
     * the C++ runtime in.  Either way the answer is known. */
    if (vftr_demangle_find_cxa() != NULL)
        ck_assert_str_eq(cxx, "ns::klass::method(int)");
    else
        ck_assert_str_eq(cxx, "_ZN2ns5klass6methodEi");
    /* the same string every time (computed once) */
    ck_assert_ptr_eq(vftr_symtab_lookup(t, 0x10d0), vftr_symtab_lookup(t, 0x10d2));
    vftr_symtab_free(t);
}
END_TEST

START_TEST(test_extended_section_count)
{
    struct image im;
    Elf64_Shdr sh0;

    /* e_shnum 0: the count is sh_size of section 0 */
    build_image(&im);
    set_u16(&im, offsetof(Elf64_Ehdr, e_shnum), 0);
    memcpy(&sh0, im.b + im.shoff, sizeof sh0);
    sh0.sh_size = 5;
    memcpy(im.b + im.shoff, &sh0, sizeof sh0);
    ck_assert_int_eq(parse_copy(im.b, im.len, NULL, 0), N_ACCEPTED);
    /* ... and a count beyond the file */
    sh0.sh_size = 1000000;
    memcpy(im.b + im.shoff, &sh0, sizeof sh0);
    expect_reject(&im, "offset 40: section header table (1000000 entries");
}
END_TEST

START_TEST(test_reject_headers)
{
    struct image im;

    build_image(&im);
    im.b[0] = 0x7e;
    expect_reject(&im, "offset 0: not an elf file");
    build_image(&im);
    im.b[EI_CLASS] = ELFCLASS32;
    expect_reject(&im, "offset 4: elf class 1, expected 2");
    build_image(&im);
    im.b[EI_DATA] = ELFDATA2MSB;
    expect_reject(&im, "offset 5: byte order 2");
    build_image(&im);
    set_u16(&im, offsetof(Elf64_Ehdr, e_type), ET_REL);
    expect_reject(&im, "offset 16: elf type 1");
    build_image(&im);
    set_u64(&im, offsetof(Elf64_Ehdr, e_shoff), 0);
    expect_reject(&im, "offset 40: no section header table");
    build_image(&im);
    set_u64(&im, offsetof(Elf64_Ehdr, e_shoff), im.len);
    expect_reject(&im, "offset 40: section header table (5 entries at");
    build_image(&im);
    set_u64(&im, offsetof(Elf64_Ehdr, e_shoff), UINT64_MAX - 8);
    expect_reject(&im, "beyond end of file");
    build_image(&im);
    set_u16(&im, offsetof(Elf64_Ehdr, e_shnum), 0xffff);
    expect_reject(&im, "65535 entries");
    build_image(&im);
    set_u16(&im, offsetof(Elf64_Ehdr, e_shentsize), 40);
    expect_reject(&im, "offset 58: section header size 40, expected 64");
}
END_TEST

START_TEST(test_reject_sections)
{
    struct image im;
    char want[64];

    build_image(&im);
    set_u32(&im, SH_AT(&im, 2) + offsetof(Elf64_Shdr, sh_link), 99);
    snprintf(want, sizeof want, "offset %zu: section 2: sh_link 99",
             SH_AT(&im, 2) + offsetof(Elf64_Shdr, sh_link));
    expect_reject(&im, want);
    build_image(&im);
    set_u32(&im, SH_AT(&im, 4) + offsetof(Elf64_Shdr, sh_link), 0);
    expect_reject(&im, "section 4: sh_link 0 is not a section");
    build_image(&im);
    set_u32(&im, SH_AT(&im, 2) + offsetof(Elf64_Shdr, sh_link), 1);
    expect_reject(&im, "sh_link 1 names a section of type 1, expected a string table");
    build_image(&im);
    set_u64(&im, SH_AT(&im, 2) + offsetof(Elf64_Shdr, sh_entsize), 16);
    expect_reject(&im, "section 2: symbol entry size 16, expected 24");
    build_image(&im);
    set_u64(&im, SH_AT(&im, 2) + offsetof(Elf64_Shdr, sh_size), 25);
    expect_reject(&im, "section 2: size 25 is not a multiple of 24");
    build_image(&im);
    set_u64(&im, SH_AT(&im, 2) + offsetof(Elf64_Shdr, sh_offset), UINT64_MAX - 10);
    expect_reject(&im, "section 2: symbols");
    build_image(&im);
    set_u64(&im, SH_AT(&im, 3) + offsetof(Elf64_Shdr, sh_size), 100000);
    expect_reject(&im, "section 3: string table (100000 bytes");
    /* a name index past the string table (symbol 1 of .symtab) */
    build_image(&im);
    set_u32(&im, im.symoff + sizeof(Elf64_Sym) + offsetof(Elf64_Sym, st_name), 5000);
    expect_reject(&im, "symbol 1 of section 2: name index 5000 beyond its string table");
    /* the string table's last name loses its terminator */
    {
        Elf64_Shdr st;
        size_t end;

        build_image(&im);
        memcpy(&st, im.b + SH_AT(&im, 3), sizeof st);
        end = st.sh_offset + st.sh_size - 1;
        ck_assert_int_eq(im.b[end], 0);
        im.b[end] = 'x';
        expect_reject(&im, "name not terminated inside its string table");
    }
}
END_TEST

START_TEST(test_truncated_hand_image)
{
    struct image im;
    char err[256];
    size_t n;

    build_image(&im);
    /* The section header table is last: every shorter file must be
     * rejected, each with a message. */
    for (n = 0; n < im.len; n++) {
        err[0] = '\0';
        ck_assert_int_eq(parse_copy(im.b, n, err, sizeof err), -ENOEXEC);
        ck_assert_msg(strncmp(err, "offset ", 7) == 0, "len %zu: '%s'", n, err);
    }
    ck_assert_int_eq(vftr_elf_parse_buffer(NULL, 0, NULL, NULL, NULL, 0), -ENOEXEC);
}
END_TEST

/* A small deterministic generator for the byte-flip tests. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

START_TEST(test_flipped_hand_image)
{
    uint64_t seed = 0x9e3779b97f4a7c15u;
    struct image im, ref;
    int i, k;

    build_image(&ref);
    for (i = 0; i < 20000; i++) {
        struct vftr_symtab *t;
        char err[256];

        im = ref;
        for (k = 0; k < 1 + (int)(next_rand(&seed) % 4); k++)
            im.b[next_rand(&seed) % im.len] = (unsigned char)next_rand(&seed);
        (void)parse_copy(im.b, im.len, err, sizeof err);
        t = vftr_symtab_new_buffer(im.b, im.len, B, VFTR_SYMTAB_STRIP_MODULES, err, sizeof err);
        if (t != NULL) {
            (void)vftr_symtab_lookup(t, B + 0x1000 + (uintptr_t)(next_rand(&seed) % 0x1100));
            vftr_symtab_free(t);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * Real files and the test programs
 */

static const char *build_dir(void)
{
    const char *b = getenv("BUILD");

    return b && *b ? b : "build";
}

static void prog_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/test/symbols/%s", build_dir(), name);
    ck_assert_msg(access(buf, X_OK) == 0 || access(buf, R_OK) == 0,
                  "%s missing: build it with make BUILD=%s (test/symbols.mk)", buf, build_dir());
}

static unsigned char *read_all(const char *path, size_t *len)
{
    struct stat st;
    unsigned char *p;
    int fd = open(path, O_RDONLY);

    ck_assert_msg(fd >= 0, "open %s", path);
    ck_assert_int_eq(fstat(fd, &st), 0);
    p = malloc((size_t)st.st_size);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(read(fd, p, (size_t)st.st_size), st.st_size);
    close(fd);
    *len = (size_t)st.st_size;
    return p;
}

/* Runs "path args" and returns its standard output (caller frees); the
 * program must exit 0. */
static char *run_program(const char *path, const char *arg)
{
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    ssize_t n;
    int fds[2], status;
    pid_t pid;

    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(pipe(fds), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(path, path, arg, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], out + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (cap - len < 2) {
            out = realloc(out, cap *= 2);
            ck_assert_ptr_nonnull(out);
        }
    }
    close(fds[0]);
    out[len] = '\0';
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %s failed: %s", path, arg,
                  out);
    return out;
}

/* Removes the lines starting with prefix (values that vary between runs). */
static void drop_lines(char *s, const char *prefix)
{
    char *p = s;

    while ((p = strstr(p, prefix)) != NULL) {
        if (p == s || p[-1] == '\n') {
            char *e = strchr(p, '\n');

            memmove(p, e ? e + 1 : p + strlen(p), strlen(e ? e + 1 : p + strlen(p)) + 1);
        } else {
            p++;
        }
    }
}

static const char symprog_common[] =
    "global=symprog_global_function\n"
    "local=symprog_local_function\n"
    "inside=symprog_global_function\n"
    "main=main\n"
    "lib=symlib_function\n"
    "heap=(null)\n"
    "heap_again=(null)\n"
    "zero=(null)\n"
    "plugin=symplug_function\n"
    "plugin_call=24\n"
    "plugin_after_dlclose=(null)\n";

static void check_symprog(const char *name, int pie)
{
    char path[512], plugin[512], want[1024];
    char *out;

    prog_path(path, sizeof path, name);
    prog_path(plugin, sizeof plugin, "libsymplug.so");
    out = run_program(path, plugin);
    snprintf(want, sizeof want, "pie=%d\n%s", pie, symprog_common);
    ck_assert_str_eq(out, want);
    free(out);
}

START_TEST(test_program_pie)
{
    check_symprog("symprog_pie", 1);
}
END_TEST

START_TEST(test_program_nopie)
{
    check_symprog("symprog_nopie", 0);
}
END_TEST

START_TEST(test_program_cxx)
{
    char path[512];
    char *out;

    prog_path(path, sizeof path, "symcxx");
    out = run_program(path, "demangle");
    drop_lines(out, "functions=");
    drop_lines(out, "build_ms=");
    ck_assert_str_eq(out, "smethod=ns::klass::smethod(double)\n"
                          "twice=int ns::twice<int>(int)\n"
                          "free=ns::free_function(int, char const*)\n"
                          "method=ns::klass::method(int)\n"
                          "main=main\n"
                          "call=30\n");
    free(out);
    out = run_program(path, "raw");
    drop_lines(out, "functions=");
    drop_lines(out, "build_ms=");
    ck_assert_str_eq(out, "smethod=_ZN2ns5klass7smethodEd\n"
                          "twice=_ZN2ns5twiceIiEET_S1_\n"
                          "free=_ZN2ns13free_functionEiPKc\n"
                          "method=_ZN2ns5klass6methodEi\n"
                          "main=main\n"
                          "call=30\n");
    free(out);
}
END_TEST

START_TEST(test_program_fortran)
{
    char path[512];
    char *out;

    prog_path(path, sizeof path, "symfort");
    out = run_program(path, "none");
    ck_assert_str_eq(out, "gfortran=__mymod_MOD_work\nplain=plainsub_\n"
                          "intel=intelmod_mp_compute_\nnag=nagmod_MP_solve\ncall=11\n");
    free(out);
    out = run_program(path, "strip");
    ck_assert_str_eq(out, "gfortran=work\nplain=plainsub_\nintel=compute\nnag=solve\ncall=11\n");
    free(out);
    out = run_program(path, "underscore");
    ck_assert_str_eq(out, "gfortran=work\nplain=plainsub\nintel=compute\nnag=solve\ncall=11\n");
    free(out);
}
END_TEST

static int all_dynamic(void *arg, const struct vftr_elf_symbol *s)
{
    if (!s->dynamic)
        ++*(int *)arg;
    return 0;
}

START_TEST(test_program_stripped)
{
    char path[512];
    unsigned char *file;
    size_t len;
    int not_dynamic = 0, rc;
    char *out;

    prog_path(path, sizeof path, "symstrip");
    /* it really has no .symtab left */
    file = read_all(path, &len);
    rc = vftr_elf_parse_buffer(file, len, all_dynamic, &not_dynamic, NULL, 0);
    ck_assert_int_gt(rc, 0);
    ck_assert_int_eq(not_dynamic, 0);
    free(file);
    out = run_program(path, NULL);
    ck_assert_str_eq(out, "exported=symstrip_exported\nhidden=(null)\nmain=main\ncall=16\n");
    free(out);
}
END_TEST

START_TEST(test_truncated_real_file)
{
    unsigned char *file;
    char path[512], err[256];
    size_t len, n;
    int full;

    prog_path(path, sizeof path, "libsymplug.so");
    file = read_all(path, &len);
    full = parse_copy(file, len, err, sizeof err);
    ck_assert_msg(full > 0, "%s", err);
    /* Any cut gives an error or (when the cut spares every table used) the
     * same symbols, never a crash; the sanitizers watch the reads. */
    for (n = 0; n < len; n++) {
        int rc = parse_copy(file, n, err, sizeof err);

        ck_assert_msg(rc == -ENOEXEC || rc == full, "cut at %zu: %d", n, rc);
    }
    free(file);
}
END_TEST

START_TEST(test_flipped_real_file)
{
    uint64_t seed = 12345;
    unsigned char *file, *copy;
    char path[512];
    size_t len;
    int i, k;

    prog_path(path, sizeof path, "libsymplug.so");
    file = read_all(path, &len);
    copy = malloc(len);
    ck_assert_ptr_nonnull(copy);
    for (i = 0; i < 3000; i++) {
        struct vftr_symtab *t;

        memcpy(copy, file, len);
        for (k = 0; k < 8; k++) {
            /* aim at the headers half of the time: that is where it hurts */
            size_t at = (next_rand(&seed) & 1) ? next_rand(&seed) % 64
                                               : next_rand(&seed) % len;
            copy[at] = (unsigned char)next_rand(&seed);
        }
        t = vftr_symtab_new_buffer(copy, len, 0, 0, NULL, 0);
        if (t != NULL) {
            (void)vftr_symtab_lookup(t, next_rand(&seed) % 0x4000);
            vftr_symtab_free(t);
        }
    }
    free(copy);
    free(file);
}
END_TEST

/* ---------------------------------------------------------------------------
 * The table of this very process
 */

int test_symbols_global_function(int x);

__attribute__((noinline)) int test_symbols_global_function(int x)
{
    return x * 3;
}

__attribute__((noinline)) static int test_symbols_static_function(int x)
{
    return x * 5;
}

START_TEST(test_self)
{
    struct vftr_symtab *t = vftr_symtab_new(0);
    struct vftr_symbol sym;
    const char *libc;
    void *back;
    int local = 0;

    ck_assert_ptr_nonnull(t);
    ck_assert_uint_gt(vftr_symtab_count(t), 100);
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)test_symbols_global_function),
                     "test_symbols_global_function");
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)test_symbols_static_function),
                     "test_symbols_static_function");
    ck_assert_int_eq(vftr_symtab_find(t, (uintptr_t)test_symbols_static_function + 2, &sym), 0);
    ck_assert_uint_eq(sym.start, (uintptr_t)test_symbols_static_function);
    {
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

        ck_assert_int_gt(n, 0);
        exe[n] = '\0';
        ck_assert_str_eq(sym.object, exe);
    }
    /* A libc function: whichever alias wins, the loader must agree that the
     * name means this address. */
    libc = vftr_symtab_lookup(t, (uintptr_t)getpid);
    ck_assert_ptr_nonnull(libc);
    back = dlsym(RTLD_DEFAULT, libc);
    ck_assert_ptr_eq(back, (void *)(uintptr_t)getpid);
    ck_assert_ptr_null(vftr_symtab_lookup(t, (uintptr_t)&local));
    ck_assert_ptr_null(vftr_symtab_lookup(t, (uintptr_t)&local));
    vftr_symtab_free(t);
}
END_TEST

START_TEST(test_self_dlopen)
{
    struct vftr_symtab *t = vftr_symtab_new(0);
    char path[512];
    void *h, *fn;

    ck_assert_ptr_nonnull(t);
    prog_path(path, sizeof path, "libsymplug.so");
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "%s", dlerror());
    fn = dlsym(h, "symplug_function");
    ck_assert_ptr_nonnull(fn);
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)fn), "symplug_function");
    dlclose(h);
    ck_assert_ptr_null(vftr_symtab_lookup(t, (uintptr_t)fn));
    vftr_symtab_free(t);
}
END_TEST

/* Opens DIR/name, returns its function fn (the handle in *h). */
static void *open_fn(const char *name, const char *fn, void **h)
{
    char path[512];
    void *f;

    prog_path(path, sizeof path, name);
    *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(*h != NULL, "%s", dlerror());
    f = dlsym(*h, fn);
    ck_assert_ptr_nonnull(f);
    return f;
}

/* A library closed and another of the same layout opened at its place,
 * with no lookup in between: the table reads the second one, not keep the
 * first one's names because the place and the program headers are the
 * same.  And vftr_symtab_forget retires an object at once; one that is
 * still loaded comes back at the next lookup. */
START_TEST(test_swapped_library)
{
    struct vftr_symtab *t = vftr_symtab_new(0);
    void *ha, *hb, *fa, *fb;

    ck_assert_ptr_nonnull(t);
    fa = open_fn("libsymswap_a.so", "swap_alpha", &ha);
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)fa), "swap_alpha");
    /* forgetting a loaded object: found again (the loader still lists it) */
    ck_assert_int_eq(vftr_symtab_forget(t, (uintptr_t)fa, (uintptr_t)fa + 1), 0);
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)fa), "swap_alpha");
    dlclose(ha);
    fb = open_fn("libsymswap_b.so", "swap_bravo", &hb);
    if (fb != fa)
        fprintf(stderr, "note: test_swapped_library: the loader did not reuse the address "
                        "(%p, then %p): the swap is not shown\n", fa, fb);
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)fb), "swap_bravo");
    dlclose(hb);
    /* the same with vftr_symtab_forget told of the unmapping (dlclose
     * interposed) between the two */
    fa = open_fn("libsymswap_a.so", "swap_alpha", &ha);
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)fa), "swap_alpha");
    dlclose(ha);
    ck_assert_int_eq(vftr_symtab_forget(t, (uintptr_t)fa, (uintptr_t)fa + 1), 0);
    fb = open_fn("libsymswap_b.so", "swap_bravo", &hb);
    ck_assert_str_eq(vftr_symtab_lookup(t, (uintptr_t)fb), "swap_bravo");
    dlclose(hb);
    vftr_symtab_free(t);
}
END_TEST

struct reports {
    int n;
    char last[512];
};

static void collect_report(void *arg, const char *msg)
{
    struct reports *r = arg;

    r->n++;
    snprintf(r->last, sizeof r->last, "%s", msg);
}

/* A library replaced on disk after it was loaded is skipped with a reason,
 * not given the names of the new file. */
START_TEST(test_replaced_library)
{
    struct reports rep = { 0 };
    struct vftr_symtab_opts opts = { 0, collect_report, &rep };
    char src[512], dir[] = "/tmp/vftr-symtest-XXXXXX", lib[600], tmp[600];
    struct vftr_symtab *t;
    unsigned char *bytes;
    size_t len;
    void *h, *fn;
    FILE *f;

    prog_path(src, sizeof src, "libsymplug.so");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(lib, sizeof lib, "%s/libsymplug.so", dir);
    snprintf(tmp, sizeof tmp, "%s/other", dir);
    bytes = read_all(src, &len);
    f = fopen(lib, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
    free(bytes);

    t = vftr_symtab_new_opts(&opts);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(rep.n, 0);
    h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "%s", dlerror());
    fn = dlsym(h, "symplug_function");
    f = fopen(tmp, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not an elf file\n", f);
    fclose(f);
    ck_assert_int_eq(rename(tmp, lib), 0);
    ck_assert_ptr_null(vftr_symtab_lookup(t, (uintptr_t)fn));
    ck_assert_int_eq(rep.n, 1);
    ck_assert_msg(strstr(rep.last, lib) && strstr(rep.last, "does not match the loaded image"),
                  "%s", rep.last);
    dlclose(h);
    vftr_symtab_free(t);
    unlink(lib);
    rmdir(dir);
}
END_TEST

/* Many threads look up at once (run under SANITIZE=thread too) while one
 * of them opens and closes a library. */
struct lookup_job {
    struct vftr_symtab *t;
    int id, failures;
    const char *plugin;
};

static void *lookup_thread(void *arg)
{
    struct lookup_job *j = arg;
    int i;

    for (i = 0; i < 400; i++) {
        const char *a = vftr_symtab_lookup(j->t, (uintptr_t)test_symbols_global_function + (unsigned)(i % 3));
        const char *b = vftr_symtab_lookup(j->t, (uintptr_t)test_symbols_static_function);

        if (!a || strcmp(a, "test_symbols_global_function") != 0 || !b ||
            strcmp(b, "test_symbols_static_function") != 0)
            j->failures++;
        if (j->id == 0 && i % 100 == 0) {
            void *h = dlopen(j->plugin, RTLD_NOW | RTLD_LOCAL);
            const char *c = h ? vftr_symtab_lookup(j->t, (uintptr_t)dlsym(h, "symplug_function"))
                              : NULL;

            if (!c || strcmp(c, "symplug_function") != 0)
                j->failures++;
            if (h)
                dlclose(h);
        }
    }
    return NULL;
}

START_TEST(test_threads)
{
    struct vftr_symtab *t = vftr_symtab_new(0);
    struct lookup_job jobs[8];
    pthread_t th[8];
    char plugin[512];
    int i;

    ck_assert_ptr_nonnull(t);
    prog_path(plugin, sizeof plugin, "libsymplug.so");
    for (i = 0; i < 8; i++) {
        jobs[i] = (struct lookup_job){ t, i, 0, plugin };
        ck_assert_int_eq(pthread_create(&th[i], NULL, lookup_thread, &jobs[i]), 0);
    }
    for (i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(jobs[i].failures, 0);
    }
    vftr_symtab_free(t);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Name rules (capture/demangle)
 */

static void check_fortran(const char *name, unsigned flags, const char *want)
{
    char *out = NULL;

    ck_assert_int_eq(vftr_demangle(name, flags, NULL, &out), 0);
    if (want == NULL)
        ck_assert_msg(out == NULL, "%s: changed to '%s'", name, out);
    else
        ck_assert_msg(out != NULL && strcmp(out, want) == 0, "%s: got '%s', want '%s'", name,
                      out ? out : "(unchanged)", want);
    free(out);
}

START_TEST(test_fortran_rules)
{
    const unsigned M = VFTR_SYMTAB_STRIP_MODULES, U = VFTR_SYMTAB_STRIP_UNDERSCORE;

    check_fortran("__mymod_MOD_work", M, "work");
    check_fortran("__mymod_MOD_work", 0, NULL);
    check_fortran("__a_MOD_b", M, "b");
    check_fortran("__my_mod_MOD_do_it", M, "do_it");
    check_fortran("__MOD_x", M, NULL);          /* no module */
    check_fortran("__m_MOD_", M, NULL);         /* no name */
    check_fortran("mod_mp_fn_", M, "fn");
    check_fortran("mod_mp_fn_", U, "mod_mp_fn");  /* underscore rule only */
    check_fortran("mod_mp__", M, NULL);         /* no name */
    check_fortran("_mod_mp_fn_", M, NULL);      /* a module starts with a letter */
    check_fortran("mod_mp_fn", M, NULL);        /* Intel names end in '_' */
    check_fortran("nagmod_MP_solve", M, "solve");
    check_fortran("nagmod_MP_", M, NULL);
    check_fortran("solve_", M, NULL);           /* plain names keep their '_' */
    check_fortran("solve_", M | U, "solve");
    check_fortran("solve_", U, "solve");
    check_fortran("solve__", U, NULL);
    check_fortran("_x_", U, NULL);
    check_fortran("a_", U, "a");
    check_fortran("_", U, NULL);
    check_fortran("main", M | U, NULL);
    check_fortran("", M | U, NULL);
    check_fortran("_ZN3foo3barEv", M | U, NULL);  /* C++ names are not Fortran */
}
END_TEST

/* Module procedures as "module::name" (VFTR_SYMTAB_FORTRAN_MODULES), the
 * spellings of gfortran, Intel, NAG and flang written out by hand. */
START_TEST(test_fortran_modules)
{
    const unsigned F = VFTR_SYMTAB_FORTRAN_MODULES, M = VFTR_SYMTAB_STRIP_MODULES,
                   U = VFTR_SYMTAB_STRIP_UNDERSCORE;

    check_fortran("__heat_mod_MOD_smooth", F, "heat_mod::smooth");
    check_fortran("__heat_mod_MOD_smooth", F | M, "smooth");   /* stripping wins */
    check_fortran("__a_MOD_b", F, "a::b");
    check_fortran("__MOD_x", F, NULL);
    check_fortran("__m_MOD_", F, NULL);
    check_fortran("heat_mp_smooth_", F, "heat::smooth");
    check_fortran("heat_mp_smooth_", F | U, "heat::smooth");
    check_fortran("nagmod_MP_solve", F, "nagmod::solve");
    check_fortran("_QMheatPsmooth", F, "heat::smooth");
    check_fortran("_QMheatPsmooth", M, "smooth");
    check_fortran("_QMheatPsmooth", 0, NULL);
    check_fortran("_QMmSsubFhostPinner", F, "m::sub::host::inner");
    check_fortran("_QMmSsubFhostPinner", M, "host::inner");
    check_fortran("_QPsolve", F, "solve");
    check_fortran("_QFhostPinner", F | M, "host::inner");
    check_fortran("_QQmain", F | M, NULL);       /* the main program: capture/names */
    check_fortran("_QMheat", F, NULL);           /* no procedure */
    check_fortran("_QMheatPSmooth", F, NULL);    /* flang writes lower case */
    check_fortran("_QPsolveMx", F, NULL);        /* the procedure comes last */
    check_fortran("_QX", F, NULL);
    check_fortran("_Q", F, NULL);
    check_fortran("solve_", F, NULL);            /* plain names keep their '_' */
    check_fortran("main", F, NULL);
    check_fortran("_ZN3geo5scaleEi", F | M, NULL);
}
END_TEST

static char *fake_cxa_ok(const char *mangled, char *buf, size_t *len, int *status)
{
    char *s = malloc(strlen(mangled) + 3);

    (void)buf;
    (void)len;
    sprintf(s, "<%s>", mangled);
    *status = 0;
    return s;
}

static char *fake_cxa_invalid(const char *mangled, char *buf, size_t *len, int *status)
{
    (void)mangled;
    (void)buf;
    (void)len;
    *status = -2;
    return NULL;
}

static char *fake_cxa_nomem(const char *mangled, char *buf, size_t *len, int *status)
{
    (void)mangled;
    (void)buf;
    (void)len;
    *status = -1;
    return NULL;
}

START_TEST(test_cxx_plumbing)
{
    char *out;

    ck_assert_int_eq(vftr_demangle("_Z1fv", VFTR_SYMTAB_DEMANGLE, fake_cxa_ok, &out), 0);
    ck_assert_str_eq(out, "<_Z1fv>");
    free(out);
    ck_assert_int_eq(vftr_demangle("_Z1fv", 0, fake_cxa_ok, &out), 0);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(vftr_demangle("plain", VFTR_SYMTAB_DEMANGLE, fake_cxa_ok, &out), 0);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(vftr_demangle("_Zbad", VFTR_SYMTAB_DEMANGLE, fake_cxa_invalid, &out), 0);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(vftr_demangle("_Z1fv", VFTR_SYMTAB_DEMANGLE, fake_cxa_nomem, &out), -ENOMEM);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(vftr_demangle("_Z1fv", VFTR_SYMTAB_DEMANGLE, NULL, &out), 0);
    ck_assert_ptr_null(out);
}
END_TEST

static Suite *symbols_suite(void)
{
    Suite *s = suite_create("capture_symbols");
    TCase *tc = tcase_create("reader");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_parse_hand_image);
    tcase_add_test(tc, test_parse_callback_stops);
    tcase_add_test(tc, test_table_hand_image);
    tcase_add_test(tc, test_table_flags);
    tcase_add_test(tc, test_extended_section_count);
    tcase_add_test(tc, test_reject_headers);
    tcase_add_test(tc, test_reject_sections);
    tcase_add_test(tc, test_truncated_hand_image);
    tcase_add_test(tc, test_flipped_hand_image);
    suite_add_tcase(s, tc);

    tc = tcase_create("programs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_program_pie);
    tcase_add_test(tc, test_program_nopie);
    tcase_add_test(tc, test_program_cxx);
    tcase_add_test(tc, test_program_fortran);
    tcase_add_test(tc, test_program_stripped);
    tcase_add_test(tc, test_truncated_real_file);
    tcase_add_test(tc, test_flipped_real_file);
    suite_add_tcase(s, tc);

    tc = tcase_create("process");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_self);
    tcase_add_test(tc, test_self_dlopen);
    tcase_add_test(tc, test_swapped_library);
    tcase_add_test(tc, test_replaced_library);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);

    tc = tcase_create("names");
    tcase_add_test(tc, test_fortran_rules);
    tcase_add_test(tc, test_fortran_modules);
    tcase_add_test(tc, test_cxx_plumbing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(symbols_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
