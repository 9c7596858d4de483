/* symplug.c — a plugin that symprog dlopens after building its table. */
int symplug_function(int x);

int symplug_function(int x)
{
    return x * x - 2;
}
