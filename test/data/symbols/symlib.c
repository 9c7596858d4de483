/* symlib.c — a shared library linked by symprog: one function with two
 * aliases, a weak one with a shorter name and a hidden one (local in the
 * symbol table); the global name must win.  symlib_address() gives the
 * function's address as the library sees it: in a non-PIE program,
 * &symlib_function taken in the program is the program's PLT stub. */
int symlib_function(int x);
int sl_w(int x);
void *symlib_address(void);

int symlib_function(int x)
{
    return 3 * x + 1;
}

int sl_w(int x) __attribute__((weak, alias("symlib_function")));
extern int symlib_hidden_alias(int x) __attribute__((visibility("hidden"), alias("symlib_function")));

void *symlib_address(void)
{
    /* The hidden alias is bound inside the library: its address is the
     * code's own, never a PLT stub of the program. */
    return (void *)(unsigned long)&symlib_hidden_alias;
}
