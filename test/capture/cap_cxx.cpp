// cap_cxx N — C++ names: a method of a class in a namespace, a virtual
// override, a function template instance and an overloaded function, each
// called N times.  Their mangled and demangled names are written out by
// hand in test/integration/capture_names.sh.
#include <cstdio>
#include <cstdlib>

#define NOINST __attribute__((no_instrument_function))
#define NOINLINE __attribute__((noinline))

static unsigned long long n_area, n_twice, n_scale_i, n_scale_d, n_main;
static volatile unsigned long sink;

namespace geo {

struct Shape {
    virtual ~Shape() {}
    virtual double area() const = 0;
};

struct Square : Shape {
    double side = 2;
    NOINLINE double area() const override
    {
        n_area++;
        return side * side;
    }
};

template <typename T> NOINLINE T twice(T x)
{
    n_twice++;
    return x + x;
}

NOINLINE int scale(int x)
{
    n_scale_i++;
    return 3 * x;
}

NOINLINE double scale(double x)
{
    n_scale_d++;
    return 3 * x;
}

} // namespace geo

static NOINST void report(const char *name, unsigned long long n)
{
    std::printf("count %s %llu\n", name, n);
}

int main(int argc, char **argv)
{
    n_main++;
    long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 100;
    geo::Square sq;
    geo::Shape *s = &sq;

    for (long i = 0; i < n; i++) {
        sink += (unsigned long)s->area();
        sink += (unsigned long)geo::twice<int>((int)i);
        sink += (unsigned long)geo::scale((int)i);
        sink += (unsigned long)geo::scale((double)i);
    }
    report("main", n_main);
    report("area", n_area);
    report("twice", n_twice);
    report("scale_int", n_scale_i);
    report("scale_double", n_scale_d);
    return 0;
}
