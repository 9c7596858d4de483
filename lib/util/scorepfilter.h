/*
 * scorepfilter.h — filter files in Score-P's syntax, read as Score-P reads
 * them, for capture (filter.file) and vftr-score (-f, -g).
 *
 * A file holds blocks of rules:
 *
 *     SCOREP_REGION_NAMES_BEGIN          # a comment runs to the line's end
 *       EXCLUDE *
 *       INCLUDE bar foo
 *               baz main
 *       EXCLUDE MANGLED _Z*Kernel*
 *     SCOREP_REGION_NAMES_END
 *     SCOREP_FILE_NAMES_BEGIN
 *       EXCLUDE /usr/include/?*
 *     SCOREP_FILE_NAMES_END
 *
 * A rule is INCLUDE or EXCLUDE followed by patterns, separated by any white
 * space (line ends included), up to the next rule or the block's end; in a
 * region block MANGLED right after the keyword makes the rule's patterns
 * match the symbol's mangled name instead of its demangled one.  Patterns
 * are shell wildcards (`*`, `?`, `[...]`; a backslash quotes the next
 * character, `\#` too), matched against the whole name (fnmatch(3)
 * without flags: `*` matches `/` as well).  Each block's rules are tried in
 * the order of the file and the last one whose pattern matches decides;
 * no match leaves the name included.  A region is excluded when its name
 * is or its source file is.  Keywords are case sensitive, as in Score-P.
 *
 * Ownership: vftr_scorep_filter_parse/_load return a filter the caller
 * owns (free with vftr_scorep_filter_free, NULL-safe).  A filter is
 * read-only after parsing: any number of threads may match with it.
 */
#ifndef VFTR_UTIL_SCOREPFILTER_H
#define VFTR_UTIL_SCOREPFILTER_H

#include <stdbool.h>
#include <stddef.h>

struct vftr_scorep_filter;

/*
 * Parses len bytes of text (NUL bytes are an error).  name is the file's
 * name for messages.  NULL + errno on failure (EINVAL: err receives
 * "<name>: line L: <what was expected>"; ENOMEM).
 */
struct vftr_scorep_filter *vftr_scorep_filter_parse(const char *text, size_t len, const char *name,
                                                    char *err, size_t errlen);

/* Reads and parses the file at path (at most 16 MiB, a regular file).
 * NULL + errno, with "<path>: ..." in err. */
struct vftr_scorep_filter *vftr_scorep_filter_load(const char *path, char *err, size_t errlen);

void vftr_scorep_filter_free(struct vftr_scorep_filter *f);

/*
 * Whether the filter excludes a region: name is its (demangled) name,
 * mangled its symbol name (NULL: the same as name), file its source file
 * (NULL: unknown, then the file rules are not asked).
 */
bool vftr_scorep_filter_excludes(const struct vftr_scorep_filter *f, const char *name,
                                 const char *mangled, const char *file);

/* Number of rules in the region block(s) and in the file block(s). */
size_t vftr_scorep_filter_region_rules(const struct vftr_scorep_filter *f);
size_t vftr_scorep_filter_file_rules(const struct vftr_scorep_filter *f);

#endif /* VFTR_UTIL_SCOREPFILTER_H */
