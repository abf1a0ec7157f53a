/* lft_internal.h -- lib/lft's interface for the later stages (linearize):
 * the structural side of the LFT.  Not installed; includes only public
 * headers. */
#ifndef JG_LFT_INTERNAL_H
#define JG_LFT_INTERNAL_H
#include <cs.h>
#include "jacgraph/lft.h"

/* The structural pattern of P11 + P12 (I - P22)^-1 P21 (M the identity):
 * column j gets P11(:, j) and the rows of P12 over every element that
 * P21(:, j) reaches through P22 (the inverse's pattern is the transitive
 * closure; cancellations are not seen).  A new compressed-column matrix with
 * zero values, rows unsorted (cs_dl_spfree), or NULL when out of memory.
 * Cost: O(sum over columns of the reached entries of P22 and P12). */
cs_dl *jg__lft_pattern(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22);

/* The condition of K = I - P22 M as the linearization sees it (condest.c):
 * the largest over the diagonal blocks of K's block triangular form (its
 * strongly connected components: the algebraic loops) of Hager's 1-norm
 * estimate of that block's condition after power-of-two row and column
 * equilibration; a single signal counts max(1, |d|) / |1 - d| for its
 * diagonal 1 - d.  *worst (may be NULL) gets a row of the worst block, -1 when
 * every block is perfectly conditioned.  Returns 1 for n == 0, INFINITY for an
 * exactly singular block, NaN when out of memory.  Cost: O(nnz(K)) for the
 * components, plus per loop of m signals one sparse LU and about a dozen
 * triangular solves of order m. */
double jg__lft_condest(const cs_dl *K, int64_t *worst);

#endif
