/* sled_cdl N LIB — a C program built with -fpatchable-function-entry=5
 * that dlopens a C++ library (libsled_cxx.so) RTLD_LOCAL, so that the C++
 * runtime is in no global scope, and calls its lib_top(i % 5) N times: an
 * exception thrown i % 5 traced frames down in the library and caught
 * there (capture_patchable.sh).  Prints "count NAME N" for its own
 * function call_top and the library's, "guards N" / "cleanups N" and
 * "bad N" (wrong results: 0 expected). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static unsigned long c_call_top;

static NOINLINE long call_top(long (*top)(int), int d)
{
    c_call_top++;
    return top(d);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100, bad = 0;
    void *h = argc > 2 ? dlopen(argv[2], RTLD_NOW | RTLD_LOCAL) : NULL;
    long (*top)(int);
    unsigned long (*count)(const char *);

    if (h == NULL) {
        printf("dlopen failed: %s\n", dlerror());
        return 1;
    }
    *(void **)&top = dlsym(h, "lib_top");
    *(void **)&count = dlsym(h, "lib_count");
    if (top == NULL || count == NULL)
        return 1;
    for (long i = 0; i < n; i++)
        if (call_top(top, (int)(i % 5)) != -5)
            bad++;
    printf("count call_top %lu\ncount lib_top %lu\ncount lib_self %lu\n", c_call_top,
           count("lib_top"), count("lib_self"));
    printf("guards %lu\ncleanups %lu\nbad %ld\n", count("guards"), count("cleanups"), bad);
    return 0;
}
