/* The multiplications of CSparse's left-looking sparse LU, counted from its factors (lft_internal.h). */
#include "lft_internal.h"

/* cs_lu computes column k of L and U by a sparse triangular solve with the
 * columns of L already computed: every pivot row J the solve reaches puts an
 * entry U(J, k) and subtracts L(:, J) * U(J, k) from the rest of the column,
 * one multiply-add per off-diagonal entry of L(:, J); the unit diagonal of L
 * is divided by (the solve does not know it is 1), which real work would not
 * do, so it is not counted.  Then the column below the pivot is divided by
 * the pivot: one division per off-diagonal entry of L(:, k), counted as a
 * multiplication.  Both sets are exactly the stored entries: cs_lu keeps every
 * entry its reach produces, a value that cancels to 0 included, so the count
 * is the structural one of the chosen pivot sequence.  U keeps its diagonal
 * last in each column, L first.
 *
 *   fma = sum_k [ sum_{J in U(:, k), J != k} (|L(:, J)| - 1) + (|L(:, k)| - 1) ]
 *       = sum_J (|L(:, J)| - 1) * |U(J, :)|       (|U(J, :)| counts the diagonal) */
int64_t jg__lft_lu_fma(const cs_dln *N)
{
    if (!N || !N->L || !N->U) return 0;
    const cs_dl *L = N->L, *U = N->U;
    int64_t n = U->n, fma = 0;
    for (int64_t k = 0; k < n; k++) {
        for (int64_t q = U->p[k]; q < U->p[k + 1] - 1; q++) {
            int64_t J = U->i[q];
            fma += L->p[J + 1] - L->p[J] - 1;
        }
        fma += L->p[k + 1] - L->p[k] - 1;
    }
    return fma;
}

int64_t jg__lft_lu_cost(const cs_dl *K)
{
    if (!K || K->m != K->n || K->nz != -1) return -1;
    if (K->n == 0) return 0;
    int64_t fma = -1;
    cs_dls *S = cs_dl_sqr(1, K, 0);   /* jg_lft's ordering and pivot tolerance */
    cs_dln *N = S ? cs_dl_lu(K, S, 1.0) : NULL;
    if (N) fma = jg__lft_lu_fma(N);
    cs_dl_nfree(N);
    cs_dl_sfree(S);
    return fma;
}
