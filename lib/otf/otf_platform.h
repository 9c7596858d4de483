/*
 * otf_platform.h — small string helpers that the reference OTF exports
 * although none of its installed headers declares them.  vftr exports them
 * with the same names and signatures (found by calling the reference) so
 * that programs which declared them themselves still link.  Not installed.
 *
 * All are thread-safe (no shared state).  Where the reference misbehaves
 * (OTF_snprintf/OTF_vsnprintf with a too small buffer leave it without a
 * terminating NUL, and crash for size 0), these follow C99 snprintf instead;
 * for every input the reference handles correctly the results are equal.
 */
#ifndef VFTR_OTF_PLATFORM_H
#define VFTR_OTF_PLATFORM_H

#include <stdarg.h>
#include <stddef.h>

#include "otf_internal.h"

/* Returns a malloc'ed copy of `s` (caller frees), or NULL if `s` is NULL
 * (errno EINVAL) or memory is short (errno ENOMEM). */
char *OTF_strdup(const char *s);

/* C99 snprintf: writes at most `size` bytes including the terminating NUL
 * (nothing if size is 0; `str` may then be NULL) and returns the length the
 * full result has, or a negative value on an encoding error. */
int OTF_snprintf(char *str, size_t size, const char *format, ...)
    OTF_INTERNAL_PRINTF(3, 4);

/* As OTF_snprintf with a va_list (consumed as by vsnprintf). */
int OTF_vsnprintf(char *str, size_t size, const char *format, va_list ap)
    OTF_INTERNAL_PRINTF(3, 0);

/* Formats into a newly malloc'ed string stored in *strp (caller frees) and
 * returns its length.  On failure returns -1 and sets *strp to NULL. */
int OTF_asprintf(char **strp, const char *format, ...)
    OTF_INTERNAL_PRINTF(2, 3);

/* As OTF_asprintf with a va_list. */
int OTF_vasprintf(char **strp, const char *format, va_list ap)
    OTF_INTERNAL_PRINTF(2, 0);

/* Returns a malloc'ed copy (caller frees) of the last component of `path`;
 * `path` itself is not modified.  Rules of the reference: "" gives ".", a
 * path without '/' is returned whole, a path ending in '/' gives "/"
 * ("/a/b/" -> "/", "a/" -> "/"), otherwise the part after the last '/'
 * ("/a/b" -> "b").  Returns NULL if `path` is NULL (errno EINVAL) or memory
 * is short. */
char *OTF_basename(const char *path);

#endif /* VFTR_OTF_PLATFORM_H */
