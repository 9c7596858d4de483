/*
 * errmsg.h — how lib/util reports what went wrong.
 *
 * Parsers in lib/util return 0 or -errno and, when the caller passes a
 * buffer, describe the problem in it as one lower-case line without the tool
 * name and without a trailing newline ("bad time '1.5q': unknown unit 'q'
 * (expected s, ms, us or ns)").  The tool prefixes its own name when it
 * prints the line.  VFTR_ERRMSG_MAX is a size that fits every message with
 * the quoted input cut to a sensible length.
 */
#ifndef VFTR_UTIL_ERRMSG_H
#define VFTR_UTIL_ERRMSG_H

#include <stddef.h>

#define VFTR_ERRMSG_MAX 512

#if defined(__GNUC__)
#  define VFTR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define VFTR_PRINTF(a, b)
#endif

/* Formats a message into err (at most errlen bytes, always terminated) and
 * returns rc, so that error paths read `return vftr_errmsg(err, len, -EINVAL,
 * ...)`.  err may be NULL (or errlen 0): then only rc is returned.
 * Thread-safe (touches nothing but err). */
int vftr_errmsg(char *err, size_t errlen, int rc, const char *fmt, ...) VFTR_PRINTF(4, 5);

#endif /* VFTR_UTIL_ERRMSG_H */
