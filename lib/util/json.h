/*
 * json.h — JSON output shared by the tools' --json modes and the JSON
 * trace writer: one escaping rule for every string vftr writes as JSON.
 */
#ifndef VFTR_UTIL_JSON_H
#define VFTR_UTIL_JSON_H

#include <stdio.h>

/* Writes s (NULL: "") as a JSON string with its quotes: '"' and '\' are
 * escaped, control characters written as \u00XX, other bytes (UTF-8
 * included) as they are. */
void vftr_json_string(FILE *f, const char *s);

#endif /* VFTR_UTIL_JSON_H */
