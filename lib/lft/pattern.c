/* The structural pattern of an LFT with M the identity: a depth-first
 * closure of P21's columns through P22 (lft_internal.h). */
#include <stdlib.h>
#include "lft_internal.h"

cs_dl *jg__lft_pattern(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22)
{
    int64_t m = P11->m, n = P11->n, nr = P22->n;
    int64_t *mark = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    int64_t *stack = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    int64_t *rmark = malloc(sizeof(int64_t) * (size_t)(m + 1));
    cs_dl *T = cs_dl_spalloc(m, n, P11->p[n] + 16, 1, 1);
    cs_dl *C = NULL;
    if (!mark || !stack || !rmark || !T) goto done;
    for (int64_t k = 0; k < nr; k++) mark[k] = -1;
    for (int64_t k = 0; k < m; k++) rmark[k] = -1;
    for (int64_t j = 0; j < n; j++) {
        for (int64_t q = P11->p[j]; q < P11->p[j + 1]; q++) {
            rmark[P11->i[q]] = j;
            if (!cs_dl_entry(T, P11->i[q], j, 0)) goto done;
        }
        int64_t top = 0;
        for (int64_t q = P21->p[j]; q < P21->p[j + 1]; q++)
            if (mark[P21->i[q]] != j) {
                mark[P21->i[q]] = j;
                stack[top++] = P21->i[q];
            }
        while (top > 0) {
            int64_t a = stack[--top];
            for (int64_t q = P22->p[a]; q < P22->p[a + 1]; q++)
                if (mark[P22->i[q]] != j) {
                    mark[P22->i[q]] = j;
                    stack[top++] = P22->i[q];
                }
            for (int64_t q = P12->p[a]; q < P12->p[a + 1]; q++)
                if (rmark[P12->i[q]] != j) {
                    rmark[P12->i[q]] = j;
                    if (!cs_dl_entry(T, P12->i[q], j, 0)) goto done;
                }
        }
    }
    C = cs_dl_compress(T);
done:
    cs_dl_spfree(T);
    free(mark);
    free(stack);
    free(rmark);
    return C;
}
