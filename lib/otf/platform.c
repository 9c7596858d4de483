/*
 * platform.c — string helpers exported under the reference's names (see
 * otf_platform.h).  glibc provides everything needed; these wrappers only
 * pin down the behaviour at the edges (NULL, size 0, failure).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf_platform.h"

char *OTF_strdup(const char *s)
{
    if (!s) {
        errno = EINVAL;
        return NULL;
    }
    return strdup(s);
}

int OTF_vsnprintf(char *str, size_t size, const char *format, va_list ap)
{
    return vsnprintf(str, size, format, ap);
}

int OTF_snprintf(char *str, size_t size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(str, size, format, ap);
    va_end(ap);
    return n;
}

int OTF_vasprintf(char **strp, const char *format, va_list ap)
{
    char *p = NULL;
    int n = vasprintf(&p, format, ap);
    /* glibc leaves the pointer undefined on failure; callers that free it
     * unconditionally must not see garbage. */
    if (n < 0) {
        *strp = NULL;
        return -1;
    }
    *strp = p;
    return n;
}

int OTF_asprintf(char **strp, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = OTF_vasprintf(strp, format, ap);
    va_end(ap);
    return n;
}

char *OTF_basename(const char *path)
{
    if (!path) {
        errno = EINVAL;
        return NULL;
    }
    if (!*path)
        return strdup(".");
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(path);
    /* Unlike POSIX basename(), the reference does not strip trailing
     * slashes: a directory path ("a/b/") yields "/". */
    if (slash[1] == '\0')
        return strdup("/");
    return strdup(slash + 1);
}
