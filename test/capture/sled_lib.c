/*
 * libsled.so — sled_prog's dlopen'd library (capture_patchable.sh): built
 * with -fpatchable-function-entry=5; sled_lib() is traced once dlopen has
 * patched its sled.
 */
long sled_lib(long x);

__attribute__((noinline)) long sled_lib(long x)
{
    return 2 * x;
}
