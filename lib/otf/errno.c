/*
 * errno.c — otf_errno / otf_strerr and the functions that set them.
 *
 * The reference OTF keeps these as process-wide globals; vftr makes them
 * thread-local so that independent readers in different threads cannot
 * clobber each other's messages.  They are the only mutable state of the
 * library that is not owned by an object, and they are per thread.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "OTF_Errno.h"
#include "otf_internal.h"

OTF_THREAD_LOCAL char otf_strerr[OTF_ERR_LEN];
OTF_THREAD_LOCAL int otf_errno = OTF_NO_ERROR;

static void set_message(const char *prefix, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;

static void set_message(const char *prefix, const char *fmt, va_list ap)
{
    otf_errno = OTF_ERROR;
    int n = snprintf(otf_strerr, sizeof otf_strerr, "%s", prefix);
    if (n < 0 || (size_t)n >= sizeof otf_strerr)
        n = 0;
    vsnprintf(otf_strerr + n, sizeof otf_strerr - (size_t)n, fmt, ap);
    /* Reading the environment per error is fine: errors are rare and this
     * keeps the library free of global configuration state. */
    if (getenv("VFTR_OTF_VERBOSE"))
        fprintf(stderr, "%s\n", otf_strerr);
}

void OTF_Error(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    set_message("", format, ap);
    va_end(ap);
}

void OTF_Warning(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    set_message("warning: ", format, ap);
    va_end(ap);
}

void vftr_otf_seterr(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_message("", fmt, ap);
    va_end(ap);
}

void vftr_otf_clearerr(void)
{
    otf_errno = OTF_NO_ERROR;
    otf_strerr[0] = '\0';
}
