/*
 * mpi_io.c — MPI-IO that counts its own operations and bytes, per file
 * and per MPI function, for test/integration/mpi_io.sh: a file shared by
 * all ranks (opened on MPI_COMM_WORLD) written and read through every
 * kind of access (individual and shared file pointers, explicit offsets,
 * collective, ordered, nonblocking completed by MPI_Wait / MPI_Test /
 * MPI_Waitall, split collectives), seeks, sync, set_size, set_view; a
 * file of each rank's own (MPI_COMM_SELF) written in MPI_INTs and read
 * past its end (fewer bytes than asked), then deleted; calls that fail (an
 * open of a missing file, a read of a write-only one); and a POSIX file
 * written by the program itself around MPI calls.  Each rank prints
 *
 *   RANK E file IFACE NAME OPS OPEN CLOSE READ WRITE SEEK SYNC OTHER FAILED BR BW
 *   RANK E func - NAME (the same columns)
 *
 * (after its rank) with what it did, from its own arguments and counts, in
 * the columns of vftr-stats --io, on standard output (descriptor 1 is not
 * one it opened: not file I/O of the trace); the I/O that the MPI library does inside its calls is
 * the MPI call's and is not counted as POSIX I/O.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPEN, CLOSE, READ, WRITE, SEEK, SYNC, OTHER, NKINDS };

struct acct {
    char kind[8], iface[8], name[512];
    unsigned long ops, k[NKINDS], failed, bread, bwritten;
};

#define MAXACCT 96
static struct acct tally[MAXACCT];
static int nacct;
static char dir[400];

static struct acct *find(const char *kind, const char *iface, const char *name)
{
    for (int i = 0; i < nacct; i++)
        if (!strcmp(tally[i].kind, kind) && !strcmp(tally[i].iface, iface) &&
            !strcmp(tally[i].name, name))
            return &tally[i];
    if (nacct == MAXACCT)
        abort();
    struct acct *a = &tally[nacct++];
    snprintf(a->kind, sizeof a->kind, "%s", kind);
    snprintf(a->iface, sizeof a->iface, "%s", iface);
    snprintf(a->name, sizeof a->name, "%s", name);
    return a;
}

static void add(struct acct *a, int kind, long bytes)
{
    a->ops++;
    a->k[kind]++;
    a->failed += bytes < 0;
    if (kind == READ && bytes > 0)
        a->bread += (unsigned long)bytes;
    if (kind == WRITE && bytes > 0)
        a->bwritten += (unsigned long)bytes;
}

/* One operation on file `file` of interface iface by function fn
 * (bytes < 0: the call failed). */
static void book(const char *iface, const char *file, const char *fn, int kind, long bytes)
{
    add(find("file", iface, file), kind, bytes);
    add(find("func", "-", fn), kind, bytes);
}

#define M(file, fn, kind, bytes) book("mpi", file, #fn, kind, bytes)

static void die(const char *what, int rc)
{
    fprintf(stderr, "mpi_io: %s failed (%d)\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define OK(call)                       \
    do {                               \
        int rc_ = (call);              \
        if (rc_ != MPI_SUCCESS)        \
            die(#call, rc_);           \
    } while (0)

static char buf[8192];

__attribute__((noinline)) static void shared_file(int rank, int size)
{
    char name[512];
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq[2];
    int n = 100 + rank, done = 0;

    snprintf(name, sizeof name, "%s/shared.bin", dir);
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    M(name, MPI_File_open, OPEN, 0);
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    M(name, MPI_File_set_view, OTHER, 0);
    OK(MPI_File_set_size(fh, 0));
    M(name, MPI_File_set_size, OTHER, 0);
    OK(MPI_File_preallocate(fh, 4096));
    M(name, MPI_File_preallocate, OTHER, 0);

    /* explicit offsets, independent and collective */
    OK(MPI_File_write_at(fh, rank * 1000, buf, n, MPI_BYTE, &st));
    M(name, MPI_File_write_at, WRITE, n);
    OK(MPI_File_write_at_all(fh, 10000 + rank * 1000, buf, 2 * n, MPI_BYTE, MPI_STATUS_IGNORE));
    M(name, MPI_File_write_at_all, WRITE, 2 * n);
    /* the individual file pointer */
    OK(MPI_File_seek(fh, 20000 + rank * 1000, MPI_SEEK_SET));
    M(name, MPI_File_seek, SEEK, 0);
    OK(MPI_File_write(fh, buf, 30, MPI_BYTE, &st));
    M(name, MPI_File_write, WRITE, 30);
    OK(MPI_File_write_all(fh, buf, 40 + rank, MPI_BYTE, &st));
    M(name, MPI_File_write_all, WRITE, 40 + rank);
    /* the shared file pointer */
    OK(MPI_File_seek_shared(fh, 40000, MPI_SEEK_SET));
    M(name, MPI_File_seek_shared, SEEK, 0);
    OK(MPI_File_write_shared(fh, buf, 11 + rank, MPI_BYTE, &st));
    M(name, MPI_File_write_shared, WRITE, 11 + rank);
    OK(MPI_File_write_ordered(fh, buf, 7 * (rank + 1), MPI_BYTE, &st));
    M(name, MPI_File_write_ordered, WRITE, 7 * (rank + 1));
    /* nonblocking, completed by MPI_Wait and by MPI_Test */
    OK(MPI_File_iwrite_at(fh, 50000 + rank * 1000, buf, 300, MPI_BYTE, &rq[0]));
    OK(MPI_Wait(&rq[0], &st));
    M(name, MPI_File_iwrite_at, WRITE, 300);
    OK(MPI_File_iwrite(fh, buf, 64, MPI_BYTE, &rq[0]));
    while (!done)
        OK(MPI_Test(&rq[0], &done, MPI_STATUS_IGNORE));
    M(name, MPI_File_iwrite, WRITE, 64);
    OK(MPI_File_iwrite_at_all(fh, 60000 + rank * 1000, buf, 128, MPI_BYTE, &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    M(name, MPI_File_iwrite_at_all, WRITE, 128);
    /* a split collective */
    OK(MPI_File_write_all_begin(fh, buf, 77, MPI_BYTE));
    OK(MPI_File_write_all_end(fh, buf, &st));
    M(name, MPI_File_write_all_begin, WRITE, 77);
    OK(MPI_File_sync(fh));
    M(name, MPI_File_sync, SYNC, 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* reads of what the others wrote */
    int peer = (rank + 1) % size;
    OK(MPI_File_read_at(fh, peer * 1000, buf, 100 + peer, MPI_BYTE, &st));
    M(name, MPI_File_read_at, READ, 100 + peer);
    OK(MPI_File_read_at_all(fh, 10000 + peer * 1000, buf, 50, MPI_BYTE, &st));
    M(name, MPI_File_read_at_all, READ, 50);
    OK(MPI_File_seek(fh, 20000 + peer * 1000, MPI_SEEK_SET));
    M(name, MPI_File_seek, SEEK, 0);
    OK(MPI_File_read(fh, buf, 20, MPI_BYTE, &st));
    M(name, MPI_File_read, READ, 20);
    OK(MPI_File_read_all(fh, buf, 10, MPI_BYTE, &st));
    M(name, MPI_File_read_all, READ, 10);
    OK(MPI_File_iread_at(fh, 50000 + peer * 1000, buf, 200, MPI_BYTE, &rq[0]));
    OK(MPI_File_iread_at(fh, 60000 + peer * 1000, buf + 4096, 100, MPI_BYTE, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    M(name, MPI_File_iread_at, READ, 200);
    M(name, MPI_File_iread_at, READ, 100);
    OK(MPI_File_close(&fh));
    M(name, MPI_File_close, CLOSE, 0);
}

/* A file of this rank's own, in MPI_INTs; read past its end. */
__attribute__((noinline)) static void own_file(int rank)
{
    char name[512];
    MPI_File fh;
    MPI_Status st;
    int ints[200] = { 0 }, got = -1;

    snprintf(name, sizeof name, "%s/rank%d.bin", dir, rank);
    OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    M(name, MPI_File_open, OPEN, 0);
    OK(MPI_File_write(fh, ints, 50, MPI_INT, &st));
    M(name, MPI_File_write, WRITE, 50 * (long)sizeof(int));
    OK(MPI_File_read_at(fh, 0, ints, 200, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &got);
    if (got != 50)
        die("reading 200 ints of 50", got);
    M(name, MPI_File_read_at, READ, 50 * (long)sizeof(int));
    OK(MPI_File_close(&fh));
    M(name, MPI_File_close, CLOSE, 0);
    OK(MPI_File_delete(name, MPI_INFO_NULL));
    M(name, MPI_File_delete, OTHER, 0);

    /* calls that fail (files return their errors: MPI_ERRORS_RETURN) */
    snprintf(name, sizeof name, "%s/missing%d.bin", dir, rank);
    if (MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS)
        die("opening a missing file", 0);
    M(name, MPI_File_open, OPEN, -1);
    snprintf(name, sizeof name, "%s/wronly%d.bin", dir, rank);
    OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    M(name, MPI_File_open, OPEN, 0);
    if (MPI_File_read(fh, ints, 10, MPI_INT, &st) == MPI_SUCCESS)
        die("reading a write-only file", 0);
    M(name, MPI_File_read, READ, -1);
    OK(MPI_File_close(&fh));
    M(name, MPI_File_close, CLOSE, 0);
}

/* The program's own POSIX I/O, between MPI calls. */
__attribute__((noinline)) static void posix_file(int rank)
{
    char name[512];
    int fd;

    snprintf(name, sizeof name, "%s/posix%d.txt", dir, rank);
    fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        die("open", fd);
    book("posix", name, "posix_file", OPEN, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (write(fd, buf, 333) != 333)
        die("write", 0);
    book("posix", name, "posix_file", WRITE, 333);
    close(fd);
    book("posix", name, "posix_file", CLOSE, 0);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || !realpath(argv[1], dir))
        die("the directory argument", 0);
    memset(buf, 'm', sizeof buf);
    shared_file(rank, size);
    own_file(rank);
    posix_file(rank);
    for (int i = 0; i < nacct; i++) {
        const struct acct *a = &tally[i];

        printf("%d E %s %s %s %lu", rank, a->kind, a->iface, a->name, a->ops);
        for (int k = 0; k < NKINDS; k++)
            printf(" %lu", a->k[k]);
        printf(" %lu %lu %lu\n", a->failed, a->bread, a->bwritten);
    }
    MPI_Finalize();
    return 0;
}
