/*
 * fmt.h — how vftr's tools write figures for people (text output; CSV and
 * JSON keep plain numbers in seconds for programs):
 *
 *   times       three significant digits in the unit that fits:
 *               "1.23 ms", "45 ns", "12.3 s", "0 s"; nanoseconds are whole
 *               (no tick is shorter); 1000 s and more as whole seconds;
 *   points      in time (a cursor, a window's edges) to the precision a
 *               step resolves: "100.02 ms" at a step of 10 us;
 *   imbalance   (max - avg) / max as a percentage with one decimal: "37.5%";
 *   processes   as users know them, numbered from 0: "rank 3",
 *               "rank 3 thread 2" (OTF's process tokens stay in --raw and
 *               machine outputs);
 *   names       that do not fit a column are elided in the middle
 *               ("very_long_na...space::name"), never cut, so that both the
 *               namespace and the function stay visible.
 *
 * Every function writes a NUL-terminated text to buf (snprintf's rules:
 * cut to size - 1 bytes; nothing written when size is 0) and returns the
 * length of the full text.  Pure, thread-safe.
 */
#ifndef VFTR_UTIL_FMT_H
#define VFTR_UTIL_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Room for any text below but names: "-1.23e+300 s" and "rank 4294967295
 * thread 4294967295" fit. */
#define VFTR_FMT_MAX 48

/* Widest text vftr_fmt_seconds writes for a time under 10^6 s (11 days):
 * "1.23 ms", "999999 s" — columns of times are this wide. */
#define VFTR_FMT_SECONDS_WIDTH 9

/* Widest imbalance: "100.0%". */
#define VFTR_FMT_IMBALANCE_WIDTH 6

size_t vftr_fmt_seconds(double seconds, char *buf, size_t size);

/*
 * A point in time (a cursor, the edges of a window, counted from the trace
 * start) to the precision `step` seconds resolves (a timeline column, one
 * tick): in the unit that keeps it under 1000 (seconds from 1 s up, with no
 * switch to whole seconds), with the fewest decimals (0 to 9) whose last
 * digit is worth at most `step`.  At a step of 10 us, 100.02 ms is
 * "100.02 ms"; at 1 ms it is "100 ms".  A step that is 0, negative or not
 * finite: as vftr_fmt_seconds.
 */
size_t vftr_fmt_seconds_at(double seconds, double step, char *buf, size_t size);

/* ticks at `resolution` ticks per second; resolution 0 (the trace does not
 * say): "2500 ticks". */
size_t vftr_fmt_ticks(uint64_t ticks, uint64_t resolution, char *buf, size_t size);

/* ratio in [0, 1] (values outside are written as they are). */
size_t vftr_fmt_imbalance(double ratio, char *buf, size_t size);

/* A percentage of a total with one decimal: "12.5%". */
size_t vftr_fmt_percent(double percent, char *buf, size_t size);

/* "rank R" for thread 0, "rank R thread T" otherwise. */
size_t vftr_fmt_process(uint32_t rank, uint32_t thread, char *buf, size_t size);

/*
 * `name` in at most `width` bytes: itself when it fits, else its start and
 * its end with "..." between (the end gets the extra byte), never splitting
 * a UTF-8 sequence; a width below 5 just cuts.  Returns the length written
 * (at most width, and at most size - 1).
 */
size_t vftr_fmt_elide(const char *name, size_t width, char *buf, size_t size);

#endif /* VFTR_UTIL_FMT_H */
