/*
 * OTF_Errno.h — error reporting of the OTF API.
 *
 * Every failing OTF call sets otf_errno to OTF_ERROR and writes a message into
 * otf_strerr (declared in OTF_Definitions.h).  In vftr both are thread-local,
 * like errno: threads that use separate readers or writers never see each
 * other's errors.  OTF_Error and OTF_Warning format a message into otf_strerr
 * (and set otf_errno); they print to stderr only when the environment variable
 * VFTR_OTF_VERBOSE is set, so a library never writes to a program's terminal
 * on its own.
 */
#ifndef OTF_ERRNO_H
#define OTF_ERRNO_H

#include "OTF_Definitions.h"

#ifdef __cplusplus
extern "C" {
#endif

void OTF_Error(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void OTF_Warning(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* OTF_ERRNO_H */
