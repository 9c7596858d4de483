/*
 * errmsg.c — formatting of lib/util's error messages.
 */
#include <stdarg.h>
#include <stdio.h>

#include "errmsg.h"

int vftr_errmsg(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return rc;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return rc;
}
