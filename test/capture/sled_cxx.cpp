// sled_cxx — C++ exceptions through functions traced by their sleds
// (instrument.patchable: capture/sled.c, capture/preload/unwind.c;
// capture_patchable.sh).  Built with -fpatchable-function-entry=5 and no
// hooks.  Its functions count their own calls and check what they get:
//
//   sled_cxx N THREADS [LIB]
//
// N rounds of: exceptions thrown through several traced frames (each with
// a local whose destructor, run by the unwinding, calls the traced
// cleanup()) and caught at depths 0 to 3, through a tail call too; a
// rethrow (catch (...) { throw; }) caught further up; nested try blocks
// with an exception thrown from a handler; a call that throws nothing; an
// exception thrown and caught in one frame; then a throw after 20 ms of
// work caught by a frame that works 200 ms more (slow_throw, slow_catch:
// the log's times); THREADS std::threads doing the same rounds; a thread
// that calls pthread_exit three traced frames down and one cancelled four
// frames down (their destructors run); backtrace() six frames down (it
// must reach the caller, "backtrace_ok 1");
// with LIB (libsled_cxx.so) dlopen'ed: exceptions thrown by the program
// through the library's traced frames, caught in the library and in the
// program.  Prints "count NAME N" per function (the library's too),
// "guards N" / "cleanups N" (every destructor ran: equal) and "bad N"
// (wrong results: 0 expected).  The helpers have no sled.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define NOSLED __attribute__((patchable_function_entry(0, 0)))
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else  // a clone would have a sled and a name of its own
#define NOINLINE __attribute__((noinline, noclone))
#endif

typedef std::atomic<unsigned long> counter;
static counter c_main, c_leaf, c_cleanup, c_level, c_tail, c_catcher, c_rethrower, c_outer,
    c_nested, c_self, c_slow_throw, c_slow_catch, c_worker, c_exiter, c_exit_deep, c_thrower_cb,
    c_via_lib, c_cancelled, c_cancel_deep, c_waiter, c_bt_top, c_bt_deep, guards, bad;
static std::atomic<int> waiting;
static thread_local volatile unsigned long sink;   // per thread: no race

extern "C" {

NOINLINE long leaf(long x)
{
    c_leaf++;
    return x * 3 + 1;
}

NOINLINE void cleanup(int id)
{
    c_cleanup++;
    sink += (unsigned long)id;
}
}

// A local whose destructor the unwinding runs (a cleanup landing pad).
struct Guard {
    int id;
    explicit Guard(int i) : id(i) { guards++; }
    ~Guard() { cleanup(id); }
};

extern "C" {

// d + 1 calls down; the innermost throws an int (kind 0), a
// std::runtime_error (1), or returns (2: d + 1 comes back).
NOINLINE long level(int d, int kind)
{
    Guard g(d);
    long r;

    c_level++;
    if (d == 0) {
        if (kind == 0)
            throw 42;
        if (kind == 1)
            throw std::runtime_error("deep");
        return 1;
    }
    r = level(d - 1, kind);
    sink++;   // no tail call
    return r + 1;
}

// a tail call (a jump at -O2): its frame and level's share a return slot
NOINLINE long tail(int d, int kind)
{
    c_tail++;
    return level(d, kind);
}

// the exception caught d + 1 traced frames down; a traced call after it
NOINLINE long catcher(int d, int how)
{
    c_catcher++;
    try {
        return how ? tail(d, 0) : level(d, 0);
    } catch (int e) {
        if (e != 42)
            bad++;
        return leaf(d);
    }
}

NOINLINE void rethrower(int d)
{
    Guard g(100);

    c_rethrower++;
    try {
        level(d, 1);
    } catch (...) {
        leaf(1);
        throw;
    }
}

NOINLINE int outer(int d)
{
    c_outer++;
    try {
        rethrower(d);
    } catch (const std::runtime_error &e) {
        return e.what()[0] == 'd';
    }
    return 0;
}

// nested try blocks, a second exception thrown from the inner handler,
// then a call that throws nothing: 7
NOINLINE int nested(int d)
{
    int got = 0;

    c_nested++;
    try {
        try {
            level(d, 0);
        } catch (int) {
            got += 1;
            level(1, 1);
        }
    } catch (const std::exception &) {
        got += 2;
    }
    try {
        if (level(d, 2) == d + 1)
            got += 4;
    } catch (...) {
        bad++;
    }
    return got;
}

// thrown and caught in one frame
NOINLINE int self_catch(int x)
{
    c_self++;
    try {
        if (x >= 0)
            throw x;
    } catch (int v) {
        return v + 1;
    }
    return 0;
}
}

static NOSLED double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static NOSLED void spin(double s)
{
    double t0 = now();

    while (now() - t0 < s)
        sink++;
}

extern "C" {

NOINLINE void slow_throw(void)
{
    c_slow_throw++;
    spin(0.02);
    throw 1;
}

NOINLINE void slow_catch(void)
{
    c_slow_catch++;
    try {
        slow_throw();
    } catch (int) {
        spin(0.2);
    }
}

NOINLINE void worker(int n)
{
    c_worker++;
    for (int i = 0; i < n; i++) {
        if (catcher(i % 4, i % 2) != 3 * (i % 4) + 1)
            bad++;
        if (outer(i % 3) != 1 || nested(i % 3) != 7 || self_catch(i) != i + 1)
            bad++;
    }
}

NOINLINE void exit_deep(int d)
{
    Guard g(1000 + d);

    c_exit_deep++;
    if (d < 0)
        return;
    if (d == 0)
        pthread_exit(nullptr);
    exit_deep(d - 1);
    sink++;
}

NOINLINE void *exiter(void *arg)
{
    Guard g(2000);

    (void)arg;
    c_exiter++;
    exit_deep(3);
    return nullptr;
}

NOINLINE int bt_top(void);

// blocks (a cancellation point) until the thread is cancelled: no
// destructor of its own, so the unwinding must step over its return
// address before it reaches a landing pad
NOINLINE void waiter(void)
{
    c_waiter++;
    waiting = 1;
    for (;;)
        pause();
}

NOINLINE void cancel_deep(int d)
{
    Guard g(3000 + d);

    c_cancel_deep++;
    if (d < 0)
        return;
    if (d == 0)
        waiter();
    else
        cancel_deep(d - 1);
    sink++;
}

NOINLINE void *cancelled(void *arg)
{
    Guard g(4000);

    (void)arg;
    c_cancelled++;
    cancel_deep(3);
    return nullptr;
}

// backtrace() six traced frames down: whether it reaches bt_top
NOINLINE int bt_deep(int d)
{
    int r;

    c_bt_deep++;
    if (d == 0) {
        void *pc[64];
        int n = backtrace(pc, 64);

        r = 0;
        for (int i = 0; i < n; i++)
            r |= (uintptr_t)pc[i] - (uintptr_t)&bt_top < 256;
        return r;
    }
    r = bt_deep(d - 1);
    sink++;
    return r;
}

NOINLINE int bt_top(void)
{
    int r;

    c_bt_top++;
    r = bt_deep(5);
    sink++;
    return r;
}

// called back by the library from its traced frames
NOINLINE long thrower_cb(int x)
{
    c_thrower_cb++;
    if (x >= 0)
        throw 7;
    return x;
}

typedef long lib_fn(int d, long (*cb)(int));

// the library's frames between the throw and this handler
NOINLINE long via_lib(lib_fn *down, int d)
{
    c_via_lib++;
    try {
        return down(d, thrower_cb);
    } catch (int e) {
        return e;
    }
}
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100, threads = argc > 2 ? atoi(argv[2]) : 2;
    std::vector<std::thread> pool;
    pthread_t ex;

    c_main++;
    worker(n);
    for (int t = 0; t < threads; t++)
        pool.emplace_back(worker, n);
    for (auto &t : pool)
        t.join();
    slow_catch();
    if (pthread_create(&ex, nullptr, exiter, nullptr) != 0 || pthread_join(ex, nullptr) != 0)
        bad++;
    if (pthread_create(&ex, nullptr, cancelled, nullptr) == 0) {
        void *ret = nullptr;

        while (!waiting)
            usleep(1000);
        if (pthread_cancel(ex) != 0 || pthread_join(ex, &ret) != 0 || ret != PTHREAD_CANCELED)
            bad++;
    } else {
        bad++;
    }
    printf("backtrace_ok %d\n", bt_top());
    if (argc > 3) {
        void *h = dlopen(argv[3], RTLD_NOW);
        lib_fn *down = h ? (lib_fn *)dlsym(h, "lib_down") : nullptr,
               *caught = h ? (lib_fn *)dlsym(h, "lib_catch") : nullptr;
        unsigned long (*calls)(const char *) =
            h ? (unsigned long (*)(const char *))dlsym(h, "lib_count") : nullptr;

        if (down == nullptr || caught == nullptr || calls == nullptr) {
            printf("dlopen failed: %s\n", dlerror());
            bad++;
        } else {
            for (int i = 0; i < n; i++) {
                if (via_lib(down, i % 3) != 7 || caught(i % 3, thrower_cb) != -7)
                    bad++;
            }
            printf("count lib_down %lu\ncount lib_catch %lu\n", calls("lib_down"),
                   calls("lib_catch"));
        }
    }
    printf("count main %lu\ncount leaf %lu\ncount cleanup %lu\ncount level %lu\n"
           "count tail %lu\ncount catcher %lu\ncount rethrower %lu\ncount outer %lu\n"
           "count nested %lu\ncount self_catch %lu\ncount slow_throw %lu\n"
           "count slow_catch %lu\ncount worker %lu\ncount exiter %lu\ncount exit_deep %lu\n"
           "count thrower_cb %lu\ncount via_lib %lu\ncount cancelled %lu\n"
           "count cancel_deep %lu\ncount waiter %lu\ncount bt_top %lu\ncount bt_deep %lu\n",
           c_main.load(), c_leaf.load(), c_cleanup.load(), c_level.load(), c_tail.load(),
           c_catcher.load(), c_rethrower.load(), c_outer.load(), c_nested.load(),
           c_self.load(), c_slow_throw.load(), c_slow_catch.load(), c_worker.load(),
           c_exiter.load(), c_exit_deep.load(), c_thrower_cb.load(), c_via_lib.load(),
           c_cancelled.load(), c_cancel_deep.load(), c_waiter.load(), c_bt_top.load(),
           c_bt_deep.load());
    printf("guards %lu\ncleanups %lu\nbad %lu\n", guards.load(), c_cleanup.load(), bad.load());
    return 0;
}
