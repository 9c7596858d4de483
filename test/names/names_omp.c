/*
 * names_omp — OpenMP names (built with clang -fopenmp, whose libomp reports
 * the regions, and with gcc -fopenmp, whose libgomp does not): two parallel
 * regions of two threads with a serial phase between them (the worker is
 * idle there), a worksharing loop, a single with a task.  The pragmas'
 * lines are marked "L:name"; test/integration/names_golden.sh finds them
 * with grep and fills them into test/data/names/omp_clang.txt.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

NOINLINE void work(int t);
NOINLINE void work(int t)
{
    sink += t;
}

NOINLINE void serial(long n);
NOINLINE void serial(long n)
{
    for (long i = 0; i < n; i++)
        sink += 0.5 * (double)i;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    double a[256];

#pragma omp parallel num_threads(2) /* L:par1 */
    work(omp_get_thread_num());
    serial(n);
#pragma omp parallel num_threads(2) /* L:par2 */
    {
#pragma omp for /* L:loop */
        for (int i = 0; i < 256; i++)
            a[i] = i;
#pragma omp single /* L:single */
        {
#pragma omp task /* L:task */
            work(-1); /* L:taskbody */
        }
    }
    printf("a %g\n", a[255] + sink);
    return 0;
}
