/*
 * number.h — counts and sizes given on the command line, the one parser
 * every vftr tool uses for them (times are timespec.h's).
 *
 * A count is a decimal integer: digits only, blanks around it ignored
 * ("4", " 200 ", "007").  Signs, fractions, exponents, hexadecimal and
 * suffixes are errors.  A size is a count of bytes with an optional unit,
 * blanks allowed between: "1048576", "64 MiB", "1.5G".  Units (case does not
 * matter): B; K, KiB, M, MiB, G, GiB, T, TiB (powers of 1024); KB, MB, GB,
 * TB (powers of 1000) — the syntax of the capture configuration's sizes.  A
 * fraction needs a unit and must come out as whole bytes ("1.5K" is 1536,
 * "0.0001K" is refused).
 *
 * Every value is checked against the caller's range [min, max]: a number
 * outside it, including one that does not fit 64 bits, is an error
 * (-ERANGE), never clamped or wrapped.  The arithmetic is exact (integers).
 *
 * Messages (errmsg.h style, for "<tool>: <message>"), with `what` the
 * option as the user knows it ("--jobs", "-n"):
 *     bad --jobs '0': too small (at least 1)
 *     bad --jobs '99999999999999999999': too large (at most 1024)
 *     bad --jobs '4x': expected a whole number from 1 to 1024
 * The quoted input is cut at 64 bytes.
 *
 * Pure functions (no global state), thread-safe.
 */
#ifndef VFTR_UTIL_NUMBER_H
#define VFTR_UTIL_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses the count `spec` into *value.  Returns 0; -EINVAL for a malformed
 * count (or NULL spec); -ERANGE for one outside [min, max].  On error
 * *value is left alone and, when err is not NULL, a message is written to
 * it (VFTR_ERRMSG_MAX bytes are enough).
 */
int vftr_count_parse(const char *spec, uint64_t min, uint64_t max, const char *what,
                     uint64_t *value, char *err, size_t errlen);

/* What a size looks like, for messages ("expected " VFTR_SIZE_SYNTAX): the
 * one description of the syntax above, which vftr_size_parse's own message
 * and the capture configuration's both use. */
#define VFTR_SIZE_SYNTAX "a size in bytes such as 1048576, 64MiB or 1.5G (units B, K, KiB, M, " \
    "MiB, G, GiB, T, TiB; KB, MB, GB, TB are powers of 1000)"

/* The same for a size in bytes (syntax above). */
int vftr_size_parse(const char *spec, uint64_t min, uint64_t max, const char *what,
                    uint64_t *value, char *err, size_t errlen);

#endif /* VFTR_UTIL_NUMBER_H */
