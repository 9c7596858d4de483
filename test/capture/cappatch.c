/* libcappatch.so — opened and closed in rounds by cap_patch: lib_work()
 * (measured) calls lib_hot() (to be excluded; in the section vftr_hotl)
 * N times; lib_snapshot() and lib_patched_sites() look at the section
 * (patchsite.h). */
#include "calls.h"
#include "patchsite.h"

#define HOTL static __attribute__((section("vftr_hotl"), noinline))
extern const unsigned char __start_vftr_hotl[], __stop_vftr_hotl[];

unsigned long long lib_work(long n);
void lib_snapshot(void);
int lib_patched_sites(int *bad);

static struct patch_view view;
static unsigned long long n_hot;

HOTL void lib_hot(unsigned long k)
{
    n_hot++;
    capture_sink += k;
}

NOINLINE unsigned long long lib_work(long n)
{
    n_hot = 0;
    for (long k = 0; k < n; k++)
        lib_hot((unsigned long)k);
    return n_hot;
}

NOINST void lib_snapshot(void)
{
    patch_view_take(&view, __start_vftr_hotl, __stop_vftr_hotl);
}

NOINST int lib_patched_sites(int *bad)
{
    return patch_view_count(&view, bad);
}
