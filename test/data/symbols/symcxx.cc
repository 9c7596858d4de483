// symcxx.cc — C++ names through vftr_symtab.  Usage: symcxx demangle|raw
// Prints key=name lines and, on the last line, the time the table took to
// build (libc, libm, libstdc++, libgcc_s and the program itself).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <string>

#include "symbols.h"

namespace ns {
struct klass {
    int method(int x);
    static double smethod(double d);
};

__attribute__((noinline)) int klass::method(int x) { return x + 1; }
__attribute__((noinline)) double klass::smethod(double d) { return d * 2; }

template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }
template int twice<int>(int);

__attribute__((noinline)) int free_function(int x, const char *s) { return x + (int)std::strlen(s); }
} // namespace ns

static void show(vftr_symtab *t, const char *key, const void *addr)
{
    const char *name = vftr_symtab_lookup(t, reinterpret_cast<uintptr_t>(addr));
    std::printf("%s=%s\n", key, name ? name : "(null)");
}

int main(int argc, char **argv)
{
    if (argc != 2 || (std::strcmp(argv[1], "demangle") != 0 && std::strcmp(argv[1], "raw") != 0)) {
        std::fprintf(stderr, "usage: symcxx demangle|raw\n");
        return 2;
    }
    unsigned flags = std::strcmp(argv[1], "demangle") == 0 ? VFTR_SYMTAB_DEMANGLE : 0;
    std::string keep("keeps libstdc++ linked");
    timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    vftr_symtab *t = vftr_symtab_new(flags);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (t == nullptr) {
        std::perror("vftr_symtab_new");
        return 1;
    }
    show(t, "smethod", reinterpret_cast<const void *>(&ns::klass::smethod));
    show(t, "twice", reinterpret_cast<const void *>(&ns::twice<int>));
    show(t, "free", reinterpret_cast<const void *>(&ns::free_function));
    // A member function has no plain address in C++: ask the loader for it
    // by its mangled name (the program is linked -rdynamic).
    show(t, "method", dlsym(RTLD_DEFAULT, "_ZN2ns5klass6methodEi"));
    show(t, "main", reinterpret_cast<const void *>(&main));
    ns::klass k;
    std::printf("call=%d\n", k.method(1) + (int)ns::klass::smethod(1) + ns::twice(2) +
                                 ns::free_function(0, keep.c_str()));
    std::printf("functions=%zu\n", vftr_symtab_count(t));
    std::printf("build_ms=%.3f\n", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    vftr_symtab_free(t);
    return 0;
}
