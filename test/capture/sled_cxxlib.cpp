// libsled_cxx.so — the library sled_cxx and sled_cdl dlopen
// (capture_patchable.sh): built with -fpatchable-function-entry=5, its
// functions traced through their sleds.  lib_down(d, cb) goes d traced
// frames down and calls cb, which throws through them; lib_catch catches
// that exception here (-e).  lib_top(d) catches what lib_self throws d
// frames down, each frame with a local whose destructor counts (for a C
// program: the C++ runtime then comes with this library alone).
// lib_count(name) is each one's own count of its calls ("guards",
// "cleanups": the locals made and destroyed).
#include <atomic>
#include <cstring>

#define NOSLED __attribute__((patchable_function_entry(0, 0)))
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static std::atomic<unsigned long> c_down, c_catch, c_self, c_top, c_guards, c_cleanups;
static thread_local volatile unsigned long sink;   // per thread: no race

extern "C" {

NOINLINE long lib_down(int d, long (*cb)(int))
{
    long r;

    c_down++;
    r = d == 0 ? cb(d) : lib_down(d - 1, cb);
    sink++;   // no tail call
    return r + 1;
}

NOINLINE long lib_catch(int d, long (*cb)(int))
{
    c_catch++;
    try {
        return lib_down(d, cb);
    } catch (int e) {
        return -e;
    }
}

}

struct Guard {
    Guard() { c_guards++; }
    ~Guard() { c_cleanups++; }
};

extern "C" {

NOINLINE long lib_self(int d)
{
    Guard g;
    long r;

    c_self++;
    if (d == 0)
        throw 5;
    r = lib_self(d - 1);
    sink++;
    return r + 1;
}

NOINLINE long lib_top(int d)
{
    c_top++;
    try {
        return lib_self(d);
    } catch (int e) {
        return -e;
    }
}

NOSLED unsigned long lib_count(const char *name)
{
    static const struct {
        const char *name;
        std::atomic<unsigned long> *n;
    } counts[] = { { "lib_down", &c_down }, { "lib_catch", &c_catch }, { "lib_self", &c_self },
                   { "lib_top", &c_top }, { "guards", &c_guards }, { "cleanups", &c_cleanups } };

    for (const auto &c : counts)
        if (strcmp(name, c.name) == 0)
            return c.n->load();
    return 0;
}
}
