/* symswap.c — two plugins of one layout, built as libsymswap_a.so
 * (-DFN=swap_alpha) and libsymswap_b.so (-DFN=swap_bravo): the loader puts
 * the second where the first was when that one was closed. */
#ifndef FN
#error "build with -DFN=name"
#endif

int FN(int x);

int FN(int x)
{
    return 3 * x + 1;
}
