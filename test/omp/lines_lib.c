/*
 * lines_lib.c — a small shared library for the line resolver's unit suite
 * (test/unit/test_capture_ompt_lines.c): lines_probe returns a return
 * address inside this library and the source line of the call it belongs
 * to, taken from the compiler (__LINE__), not from any DWARF reader.
 * Built twice by test/omp/module.mk: with -g, and without (no line table).
 */
const void *lines_probe(int *line);

static __attribute__((noinline)) const void *return_address(void)
{
    return __builtin_extract_return_addr(__builtin_return_address(0));
}

const void *lines_probe(int *line)
{
    /* one source line: the call and the line number it reports */
    const void *ra = return_address(); *line = __LINE__; __asm__ volatile("" ::: "memory"); return ra;
}
