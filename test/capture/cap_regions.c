/* cap_regions N — the user API of vftr.h: a region "solver_region" opened
 * and closed N times around a call of step(), then step() called N times
 * while paused (vftr_pause) and N times after vftr_resume.  The program
 * links no vftr library: the API is declared weak, so without vftr the
 * calls are skipped, and under vftr-run the preloaded library provides it.
 * "count traced_step" is what a trace may hold: the calls made while not
 * paused. */
#include "calls.h"
#include "vftr.h"

#pragma weak vftr_region_begin
#pragma weak vftr_region_end
#pragma weak vftr_pause
#pragma weak vftr_resume

static unsigned long long n_main, n_step, n_region, n_traced;

static NOINLINE void step(void)
{
    n_step++;
    capture_sink++;
}

int main(int argc, char **argv)
{
    n_main++;
    long n = arg_long(argc, argv, 1, 100);
    int have = vftr_region_begin != 0;

    for (long i = 0; i < n; i++) {
        if (have)
            vftr_region_begin("solver_region");
        n_region++;
        step();
        if (have)
            vftr_region_end("solver_region");
    }
    n_traced = n_step;
    if (have)
        vftr_pause();
    for (long i = 0; i < n; i++)
        step();
    if (have)
        vftr_resume();
    for (long i = 0; i < n; i++)
        step();
    n_traced += (unsigned long long)n;
    report("main", n_main);
    report("step", n_step);
    report("traced_step", n_traced);
    report("solver_region", n_region);
    printf("api %s\n", have ? "yes" : "no");
    return 0;
}
