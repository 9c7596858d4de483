/*
 * levenshtein.c — edit distance (see levenshtein.h).
 *
 * The classic dynamic programme keeps one row of the table: row[j] is the
 * distance between the first i bytes of a and the first j bytes of b.  The
 * row runs over the shorter string, so memory is O(min(|a|, |b|)); rows of
 * configuration keys fit on the stack, longer ones go to the heap.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "levenshtein.h"

#define STACK_ROW 128

int vftr_levenshtein(const char *a, const char *b, size_t *dist)
{
    size_t stack_row[STACK_ROW + 1];
    size_t *row = stack_row;
    size_t la, lb;

    if (!a || !b || !dist)
        return -EINVAL;
    la = strlen(a);
    lb = strlen(b);
    if (lb > la) {                      /* the row runs over the shorter one */
        const char *t = a; a = b; b = t;
        size_t tl = la; la = lb; lb = tl;
    }
    if (lb > STACK_ROW) {
        if (lb + 1 > SIZE_MAX / sizeof *row)
            return -ENOMEM;
        row = malloc((lb + 1) * sizeof *row);
        if (!row)
            return -ENOMEM;
    }
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];           /* table[i-1][j-1] */
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];         /* table[i-1][j] */
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    *dist = row[lb];
    if (row != stack_row)
        free(row);
    return 0;
}

int vftr_levenshtein_closest(const char *word, const char *const *candidates, size_t n,
                             size_t *index, size_t *dist)
{
    size_t best = SIZE_MAX, best_i = 0;
    bool found = false;

    if (!word || (!candidates && n) || !index || !dist)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        size_t d;
        int rc;

        if (!candidates[i])
            continue;
        if ((rc = vftr_levenshtein(word, candidates[i], &d)) < 0)
            return rc;
        if (!found || d < best) {
            best = d;
            best_i = i;
            found = true;
        }
    }
    if (!found)
        return -ENOENT;
    *index = best_i;
    *dist = best;
    return 0;
}
