// libsled_cxx.so — the library sled_cxx dlopens (capture_patchable.sh):
// built with -fpatchable-function-entry=5, its functions traced through
// their sleds.  lib_down(d, cb) goes d traced frames down and calls cb,
// which throws through them; lib_catch catches that exception here (-e).
// lib_count(name) is each one's own count of its calls.
#include <atomic>
#include <cstring>

#define NOSLED __attribute__((patchable_function_entry(0, 0)))
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static std::atomic<unsigned long> c_down, c_catch;
static volatile unsigned long sink;

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

NOSLED unsigned long lib_count(const char *name)
{
    return strcmp(name, "lib_down") == 0 ? c_down.load() : c_catch.load();
}
}
