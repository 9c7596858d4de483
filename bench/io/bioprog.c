/*
 * bioprog.c — the workload of the I/O benchmark (bench/io/run.sh): lseek
 * calls (to the current position: the cheapest call that capture records,
 * so that the system's own cost and its noise stay small) on a file it
 * opens in DIR (a descriptor capture follows) and on a descriptor it did
 * not open itself (3, inherited: capture passes those straight on), in
 * BLOCKS blocks of CALLS calls each, a block on one descriptor, then one on
 * the other.  Alternating blocks see the same machine; the fastest block
 * of each descriptor is the one least disturbed by the neighbours (on a
 * shared machine the others are off by factors).  A block of the followed
 * descriptor is long enough to fill capture's thread buffer (256 KiB) at
 * least once, so that its time holds the flushes too.  Prints the least
 * ns per call over the blocks of each descriptor.
 *
 *   bioprog DIR CALLS BLOCKS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long block(int fd, long n)
{
    long long t0 = ns();

    for (long i = 0; i < n; i++)
        if (lseek(fd, 0, SEEK_CUR) < 0)
            return -1;
    return ns() - t0;
}

static int cmp(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    char path[4096];
    long n, nb;
    int fd;
    long long *t[2];

    if (argc != 4 || (n = atol(argv[2])) <= 0 || (nb = atol(argv[3])) <= 0) {
        fprintf(stderr, "usage: bioprog DIR CALLS BLOCKS\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/bio.dat", argv[1]);
    if ((fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644)) < 0) {
        perror(path);
        return 1;
    }
    t[0] = malloc((size_t)nb * sizeof *t[0]);
    t[1] = malloc((size_t)nb * sizeof *t[1]);
    if (!t[0] || !t[1])
        return 1;
    for (long b = 0; b < nb; b++) {
        t[0][b] = block(fd, n);
        t[1][b] = block(3, n);
        if (t[0][b] < 0 || t[1][b] < 0) {
            perror("lseek");
            return 1;
        }
    }
    close(fd);
    qsort(t[0], (size_t)nb, sizeof *t[0], cmp);
    qsort(t[1], (size_t)nb, sizeof *t[1], cmp);
    printf("calls %ld\nfollowed_ns %.2f\npassed_ns %.2f\n", n * nb, (double)t[0][0] / n,
           (double)t[1][0] / n);
    return 0;
}
