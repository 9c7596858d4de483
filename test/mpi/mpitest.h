/*
 * mpitest.h — what the MPI test programs share: each rank writes what it
 * did to DIR/expect_<rank>.txt, in the line format of vfdmpi (test/mpi/
 * vfdmpi.c) reduced to what a program knows:
 *
 *   send PEER TAG BYTES FLAGS      a message it sent (PEER: world rank)
 *   recv PEER TAG BYTES FLAGS      a message it received
 *   coll NAME ROOT SENT RECEIVED FLAGS
 *
 * computed from its own arguments (counts, sizes, ranks), never from what
 * vftr recorded.  test/integration/mpi_*.sh compare the two.  Thread-safe.
 */
#ifndef VFTR_TEST_MPITEST_H
#define VFTR_TEST_MPITEST_H

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Message flags of the .vfd (share/doc/vfd-format.md, MPI_SEND). */
enum { NB = 1, PERS = 2, SYNC = 4, BUF = 8, READY = 16, SR = 32 };

static FILE *expect_file;
static pthread_mutex_t expect_lock = PTHREAD_MUTEX_INITIALIZER;

static void expect_open(const char *dir)
{
    char path[4096];
    int r;

    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    snprintf(path, sizeof path, "%s/expect_%d.txt", dir, r);
    if ((expect_file = fopen(path, "w")) == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void expect_msg(const char *dir, int peer, int tag, long bytes, int flags)
{
    pthread_mutex_lock(&expect_lock);
    fprintf(expect_file, "%s %d %d %ld %d\n", dir, peer, tag, bytes, flags);
    pthread_mutex_unlock(&expect_lock);
}

static void expect_coll(const char *name, int root, long sent, long received, int flags)
{
    pthread_mutex_lock(&expect_lock);
    fprintf(expect_file, "coll %s %d %ld %ld %d\n", name, root, sent, received, flags);
    pthread_mutex_unlock(&expect_lock);
}

static void expect_close(void)
{
    fclose(expect_file);
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mpitest: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

#endif
