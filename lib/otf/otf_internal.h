/*
 * otf_internal.h — what the modules of vftr's OTF library share and programs
 * never see.  Not installed.
 */
#ifndef VFTR_OTF_INTERNAL_H
#define VFTR_OTF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "OTF_Definitions.h"

#if defined(__GNUC__)
#  define OTF_INTERNAL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#  define VFTR_OTF_ALWAYS_INLINE __attribute__((always_inline))
#  define OTF_LIKELY(x)   __builtin_expect(!!(x), 1)
#  define OTF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define OTF_INTERNAL_PRINTF(a, b)
#  define VFTR_OTF_ALWAYS_INLINE
#  define OTF_LIKELY(x)   (x)
#  define OTF_UNLIKELY(x) (x)
#endif

/* Converts between function pointer types.  The OTF API stores every
 * handler as an OTF_FunctionPointer* and calls it with its real signature;
 * going through void (*)(void) says that this is intended. */
#define VFTR_OTF_FNCAST(type, fn) ((type)(void (*)(void))(fn))

/* Records an error: sets otf_errno to OTF_ERROR and formats the message into
 * otf_strerr (thread-local).  Messages are lower-case and name the file and
 * offset where there is one.  Prints only when VFTR_OTF_VERBOSE is set. */
void vftr_otf_seterr(const char *fmt, ...) OTF_INTERNAL_PRINTF(1, 2);

/* Clears otf_errno and otf_strerr. */
void vftr_otf_clearerr(void);

#endif /* VFTR_OTF_INTERNAL_H */
