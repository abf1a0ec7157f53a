/* lib/core/str.h -- owned copies of strings and of string vectors (the names
 * of states, inputs and outputs that results carry).  Internal (jg__*); later
 * modules include it.  C11 has no strdup, and every module needs one. */
#ifndef JG_CORE_STR_H
#define JG_CORE_STR_H
#include <stdint.h>

/* A malloc'ed copy of s (free with free()); NULL when s is NULL or out of
 * memory.  Cost: O(strlen(s)). */
char *jg__strdup(const char *s);

/* A malloc'ed vector of n + 1 entries: copies of src[0..n-1], `missing`
 * (copied) where src or one of its entries is NULL, then a NULL entry.  NULL
 * when out of memory (nothing left allocated).  Free with jg__strv_free.
 * Cost: O(n + total length). */
char **jg__strv_dup(char *const *src, int64_t n, const char *missing);

/* Free v and its first n entries (each may be NULL); v may be NULL. */
void jg__strv_free(char **v, int64_t n);

#endif
