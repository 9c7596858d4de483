/*
 * timespec.h — the time syntax shared by every vftr tool.
 *
 * Across all vftr tools a time given on the command line is counted from the
 * trace's first time stamp and is either
 *
 *   - a bare decimal integer: a number of timer ticks ("2500"), or
 *   - a decimal number with a unit s, ms, us or ns ("2s", "1.5ms", "0.25 us"),
 *     converted to ticks with the trace's timer resolution.
 *
 * Fractions need a unit (ticks cannot be split).  A converted value that
 * falls between two ticks is rounded to the nearest tick, halves upwards.
 * Blanks around a time, and between the number and its unit, are ignored.
 * Signs, exponents and hexadecimal are not accepted.  The conversion is exact
 * integer arithmetic (no floating point); results that do not fit 64 bits
 * are reported, never wrapped.
 *
 * A time range is "A:B" and means the half-open interval [A, B) — the same
 * interval OTF_Reader_setTimeInterval() selects.  Either side may be empty:
 * an empty A is the beginning of the trace, an empty B its end ("1ms:",
 * ":500us", ":").  B must be after A.
 *
 * All functions here are pure (no global state) and thread-safe.
 */
#ifndef VFTR_UTIL_TIMESPEC_H
#define VFTR_UTIL_TIMESPEC_H

#include <stddef.h>
#include <stdint.h>

/* What a time is counted from and how long a tick is. */
struct vftr_timebase {
    uint64_t resolution;  /* ticks per second; 0 = unknown: only bare ticks are accepted */
    uint64_t first;       /* the trace's first time stamp, in ticks */
};

/* An interval [start, end) of absolute time stamps (ticks). */
struct vftr_timerange {
    uint64_t start;       /* 0 when the range is open at its start */
    uint64_t end;         /* UINT64_MAX when the range is open at its end */
};

/*
 * Parses one time `spec` (see above) and stores the absolute time stamp
 * base->first + offset in *ticks.
 *
 * Returns 0; -EINVAL for a malformed time or a unit when the resolution is
 * unknown; -ERANGE when the result does not fit 64 bits.  On error *ticks is
 * left alone and, if err is not NULL, a message such as
 * "bad time '1.5q': unknown unit 'q' (expected s, ms, us or ns)" is written
 * to err (see errmsg.h; VFTR_ERRMSG_MAX bytes are enough).
 */
int vftr_time_parse(const char *spec, const struct vftr_timebase *base, uint64_t *ticks,
                    char *err, size_t errlen);

/*
 * Parses a range "A:B" into absolute time stamps.  Same return values and
 * messages as vftr_time_parse() for either side; in addition -EINVAL with
 * "bad time range '...': ..." when the ':' is missing or appears twice, or
 * when B is not after A.  A spec without ':' that is not even a valid time
 * gets the message of the time ("bad time '1.5q': unknown unit ...").  On
 * error *range is left alone.
 */
int vftr_timerange_parse(const char *spec, const struct vftr_timebase *base,
                         struct vftr_timerange *range, char *err, size_t errlen);

/*
 * Checks the syntax of one time before the trace is known (an option's
 * argument): 0 when it may parse against some trace; -EINVAL for a
 * malformed time; -ERANGE for a number of ticks beyond 64 bits, which no
 * trace can hold.  Messages as vftr_time_parse().  A time with a unit can
 * still be too large for the trace's resolution: vftr_time_parse() says so.
 */
int vftr_time_check(const char *spec, char *err, size_t errlen);

/*
 * A duration that is not a trace's time (a timeout, an interval): the same
 * syntax, except that a bare number counts seconds and may have a fraction
 * ("5", "0.5", "250ms", "2 us").  Stores nanoseconds, rounded to the
 * nearest, in *ns.  `what` names the option in messages ("--timeout").
 *
 * Returns 0; -EINVAL for a malformed duration ("bad --timeout 'x': ...");
 * -ERANGE for one outside [min_ns, max_ns], beyond 64 bits included
 * ("bad --timeout '1e6': too long (at most 86400s)").  On error *ns is left
 * alone.
 */
int vftr_duration_parse(const char *spec, uint64_t min_ns, uint64_t max_ns, const char *what,
                        uint64_t *ns, char *err, size_t errlen);

/* Writes ns as the largest unit that shows it exactly ("86400s", "500ms",
 * "3ns") to buf (snprintf's rules); returns the length of the full text. */
size_t vftr_duration_format(uint64_t ns, char *buf, size_t size);

#endif /* VFTR_UTIL_TIMESPEC_H */
