/*
 * levenshtein.h — edit distance between two strings, and the closest of a
 * set of candidates (how vftr suggests "did you mean ...?" for a misspelt
 * configuration key, option or name).
 *
 * The distance is the least number of single-byte insertions, deletions and
 * substitutions that turn one string into the other.  Bytes are compared as
 * they are (no case folding, no UTF-8 decoding).
 *
 * Threads: the functions touch nothing but their arguments.
 */
#ifndef VFTR_UTIL_LEVENSHTEIN_H
#define VFTR_UTIL_LEVENSHTEIN_H

#include <stddef.h>

/*
 * Stores the distance between a and b in *dist.  Returns 0, or -ENOMEM when
 * the strings are long enough to need a heap row and malloc fails (short
 * strings use the stack), -EINVAL if an argument is NULL.
 */
int vftr_levenshtein(const char *a, const char *b, size_t *dist);

/*
 * Finds the candidate closest to `word`: stores its index in *index and its
 * distance in *dist (the first one wins a tie; NULL candidates are skipped).
 * Returns 0; -ENOENT when there is no candidate (n == 0 or all NULL);
 * -ENOMEM as above; -EINVAL for NULL arguments.
 */
int vftr_levenshtein_closest(const char *word, const char *const *candidates, size_t n,
                             size_t *index, size_t *dist);

#endif /* VFTR_UTIL_LEVENSHTEIN_H */
