/* cap_dlopen LIB N — calls step() N times, then opens LIB (libcapdl.so)
 * with dlopen and calls its dl_work() N times. */
#include <dlfcn.h>

#include "calls.h"

static unsigned long long n_main, n_step;

static NOINLINE void step(void)
{
    n_step++;
    capture_sink++;
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 2, 1000);
    void *h;
    int (*work)(int);
    unsigned long long (*count)(void);

    if (argc < 2) {
        fprintf(stderr, "usage: cap_dlopen LIB [N]\n");
        return 2;
    }
    for (long i = 0; i < n; i++)
        step();
    h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "cap_dlopen: %s\n", dlerror());
        return 1;
    }
    *(void **)&work = dlsym(h, "dl_work");
    *(void **)&count = dlsym(h, "dl_count");
    if (!work || !count)
        return 1;
    for (long i = 0; i < n; i++)
        capture_sink += (unsigned long)work((int)i);
    report("main", n_main);
    report("step", n_step);
    report("dl_work", count());
    /* the library stays loaded: vftr may name its functions at exit */
    return 0;
}
