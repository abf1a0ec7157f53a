/* Owned copies of strings and string vectors (lib/core/str.h). */
#include <stdlib.h>
#include <string.h>
#include "str.h"

char *jg__strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

char **jg__strv_dup(char *const *src, int64_t n, const char *missing)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int64_t k = 0; v && k < n; k++) {
        const char *s = src && src[k] ? src[k] : missing;
        if (s && !(v[k] = jg__strdup(s))) {
            jg__strv_free(v, k);
            return NULL;
        }
    }
    return v;
}

void jg__strv_free(char **v, int64_t n)
{
    for (int64_t k = 0; v && k < n; k++) free(v[k]);
    free(v);
}
