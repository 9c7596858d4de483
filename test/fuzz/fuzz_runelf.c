/*
 * fuzz_runelf.c — libFuzzer target for vftr-run's own ELF check (the tool
 * capture/tools/vftr-run.c, compiled in here with its main() renamed): is
 * PROGRAM an ELF file, and does it, or a library it needs, need an MPI
 * library (program headers, the dynamic section, DT_NEEDED / DT_RUNPATH /
 * DT_RPATH through the string table, the search of the directories).  The
 * input is PROGRAM, in a memory file reached through /proc/self/fd; the
 * libraries it names are looked for as vftr-run does (LD_LIBRARY_PATH is
 * unset here, so that the search does not depend on the caller).
 *
 * Properties checked besides "no crash, no hang, no sanitizer report, no
 * leak": the answers are 0 or 1, a file shorter than the ELF magic is no
 * ELF file, and one that needs "libmpi..." directly is found to need MPI
 * (checked on a fixed program the target builds from the input's first
 * byte: a 64-bit ELF header, one PT_LOAD, one PT_DYNAMIC, DT_NEEDED).
 */
#include <stdint.h>
#include <sys/mman.h>

int vftr_run_main(int argc, char **argv);
#define main vftr_run_main
#include "../../capture/tools/vftr-run.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    unsetenv("LD_LIBRARY_PATH");
    return 0;
}

/* Writes data to a new memory file; its /proc/self/fd path in path. */
static int memfile(const void *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

    if (fd < 0)
        return -1;
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, (const char *)data + done, size - done);

        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

/* A minimal ELF file that needs `name` (and nothing else can be wrong). */
static size_t tiny_elf(unsigned char *buf, const char *name)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph[2];
    Elf64_Dyn dyn[4];
    size_t phoff = sizeof eh, dynoff = phoff + sizeof ph, stroff = dynoff + sizeof dyn;
    size_t nlen = strlen(name) + 1;

    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_phoff = phoff;
    eh.e_phentsize = sizeof ph[0];
    eh.e_phnum = 2;
    eh.e_ehsize = sizeof eh;
    memset(ph, 0, sizeof ph);
    ph[0].p_type = PT_LOAD;                 /* the whole file at 0x400000 */
    ph[0].p_vaddr = 0x400000;
    ph[0].p_filesz = stroff + 1 + nlen;
    ph[1].p_type = PT_DYNAMIC;
    ph[1].p_offset = dynoff;
    ph[1].p_filesz = sizeof dyn;
    memset(dyn, 0, sizeof dyn);
    dyn[0].d_tag = DT_STRTAB;
    dyn[0].d_un.d_ptr = 0x400000 + stroff;
    dyn[1].d_tag = DT_STRSZ;
    dyn[1].d_un.d_val = 1 + nlen;
    dyn[2].d_tag = DT_NEEDED;
    dyn[2].d_un.d_val = 1;
    dyn[3].d_tag = DT_NULL;
    memcpy(buf, &eh, sizeof eh);
    memcpy(buf + phoff, ph, sizeof ph);
    memcpy(buf + dynoff, dyn, sizeof dyn);
    buf[stroff] = '\0';
    memcpy(buf + stroff + 1, name, nlen);
    return stroff + 1 + nlen;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = memfile(data, size, path, sizeof path), elf, mpi;

    if (fd < 0)
        return 0;
    elf = is_elf(path);
    mpi = needs_mpi(path, 0);
    if ((elf != 0 && elf != 1) || (mpi != 0 && mpi != 1) || (size < SELFMAG && elf))
        abort();
    close(fd);

    if (size > 0 && data[0] == 'M') {
        /* the oracle: the fixed program needs libmpi.so.40 */
        unsigned char buf[512];
        size_t n = tiny_elf(buf, "libmpi.so.40");

        if ((fd = memfile(buf, n, path, sizeof path)) >= 0) {
            if (!is_elf(path) || !needs_mpi(path, 0))
                abort();
            close(fd);
        }
    }
    return 0;
}
