/* cap_output N FILE BYTES — calls work() N times, then writes its result,
 * BYTES bytes, to FILE, as a program writes its results at the end of a
 * run: every write and the close are checked.  Prints "count work N" and
 * "wrote BYTES"; when the result cannot be written, says why on stderr and
 * exits with status 1 (the harm a trace that filled the disk would do). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "calls.h"

static unsigned long long n_main, n_work;

static NOINLINE void work(void)
{
    n_work++;
    capture_sink++;
}

static NOINST int write_result(const char *path, long bytes)
{
    static char block[65536];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        return -errno;
    memset(block, 'r', sizeof block);
    while (bytes > 0) {
        size_t n = bytes < (long)sizeof block ? (size_t)bytes : sizeof block;
        ssize_t k = write(fd, block, n);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = k < 0 ? errno : EIO;
            close(fd);
            return -e;
        }
        bytes -= k;
    }
    /* tmpfs and most file systems report a full disk at write; others
     * only at fsync or close */
    if (fsync(fd) != 0 && errno != EINVAL) {
        int e = errno;
        close(fd);
        return -e;
    }
    return close(fd) == 0 ? 0 : -errno;
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 1, 1000);
    long bytes = arg_long(argc, argv, 3, 1 << 20);
    int rc;

    if (argc < 3) {
        fprintf(stderr, "usage: cap_output N FILE [BYTES]\n");
        return 2;
    }
    for (long i = 0; i < n; i++)
        work();
    report("main", n_main);
    report("work", n_work);
    if ((rc = write_result(argv[2], bytes)) < 0) {
        fprintf(stderr, "cap_output: %s: %s\n", argv[2], strerror(-rc));
        return 1;
    }
    printf("wrote %ld\n", bytes);
    return 0;
}
