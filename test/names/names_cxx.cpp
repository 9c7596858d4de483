// names_cxx — C++ names demangled (built with g++ and with clang++): a
// class template's method, functions in nested namespaces, overloads, an
// operator, a static member and a lambda.  Only C headers are included, so
// that neither compiler instruments library code.
// test/integration/names_golden.sh compares the names in the log and in the
// converted trace with test/data/names/cxx.txt.
#include <cstdio>
#include <cstdlib>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

namespace geo {
namespace detail {
NOINLINE int scale(int x) { return 3 * x; }
NOINLINE double scale(double x) { return 3 * x; }
} // namespace detail

template <typename T> struct Vec {
    T x, y;
    NOINLINE T dot(const Vec &o) const { return x * o.x + y * o.y; }
    NOINLINE static Vec unit() { return Vec{ 1, 0 }; }
};

template <typename T> NOINLINE Vec<T> operator+(const Vec<T> &a, const Vec<T> &b)
{
    return Vec<T>{ a.x + b.x, a.y + b.y };
}
} // namespace geo

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 10;
    auto twice = [](double v) NOINLINE { return 2 * v; };

    for (long i = 0; i < n; i++) {
        geo::Vec<double> a{ (double)i, 1 }, b = geo::Vec<double>::unit();
        geo::Vec<int> c{ (int)i, 2 };

        sink += (a + b).dot(b) + c.dot(c) + geo::detail::scale((int)i)
                + geo::detail::scale((double)i) + twice((double)i);
    }
    std::printf("sink %g\n", (double)sink);
    return 0;
}
