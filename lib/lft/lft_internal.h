/* lft_internal.h -- lib/lft's interface for the later stages (linearize):
 * the structural side of the LFT.  Not installed; includes only public
 * headers. */
#ifndef JG_LFT_INTERNAL_H
#define JG_LFT_INTERNAL_H
#include <cs.h>
#include "jacgraph/lft.h"

/* jg_lft with the columns of F solved on up to `threads` threads (the
 * caller's included) when their work -- the columns plus their entries in P11
 * and P21 -- is at least min_work (below, or threads <= 1: the caller's
 * thread alone, jg_lft itself).  The columns are independent: each is solved
 * with the same operations on its thread's own work arrays, and F is
 * assembled in column order afterwards, so F is jg_lft's matrix bit for bit
 * (pattern, order, values, nzmax) whatever the threads.  When a second thread's
 * work arrays cannot be had, or a thread cannot start, the others take its
 * columns.  Errors: jg_lft's.  Cost: jg_lft's; the solves' share divided
 * among the threads, plus per extra thread O(rows of P21 + rows of F) to set
 * up its arrays and O(nnz(F)) to assemble F (the threads' entries are
 * copied once). */
jg_status_t jg__lft_threads(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22,
                            const cs_dl *M, cs_dl **F, jg_lft_info_t *info, int threads,
                            int64_t min_work, jg_error_t *err);
/* The work (columns + nnz(P11) + nnz(P21)) from which a linearization's LFT
 * takes its threads: about twice the break-even (measured in columns.c). */
#define JG__LFT_PAR_WORK 8000

/* The columns of F (columns.c) from the LU N (with its ordering S; both NULL
 * when P21 has no rows) of I - P22 M, pm = P12 M: jg__lft_threads after the
 * factorization.  *F is new.  Errors: JG_NOMEM. */
jg_status_t jg__lft_columns(const cs_dl *P11, const cs_dl *P21, const cs_dl *pm, const cs_dln *N,
                            const cs_dls *S, int threads, int64_t min_work, cs_dl **F,
                            jg_error_t *err);

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

/* The multiplications (divisions included) of CSparse's left-looking LU
 * whose factors are N (lu_cost.c): sum over pivots J of (|L(:, J)| - 1)
 * |U(J, :)|, the updates L(:, J) U(J, k) and the scaling of L(:, J) by its
 * pivot, structurally (an entry that cancels to 0 still costs).  0 for NULL.
 * Cost: O(nnz(L) + nnz(U)). */
int64_t jg__lft_lu_fma(const cs_dln *N);
/* The same for K (square, compressed-column) factorized as jg_lft does it
 * (AMD on K + K', partial pivoting); -1 when K is singular or not square, or
 * out of memory.  Cost: one sparse LU of K. */
int64_t jg__lft_lu_cost(const cs_dl *K);

/* A compressed-column matrix assembled by a fixed recipe (gather.c): the
 * triplets (row[k], col[k], value src[k]) of an m x n matrix, src an index
 * into a value array or -1 for the constant 1, compressed and their
 * duplicates summed exactly as cs_compress then cs_dupl do (the same pattern,
 * the same order, the same bits).  jg__lft_gather_new: NULL when out of
 * memory; cost O(nt + m + n).  jg__lft_gather_alloc: a new matrix with the
 * pattern, zero values (cs_dl_spfree), NULL when out of memory.
 * jg__lft_gather_run: A's values (A from jg__lft_gather_alloc) from vals;
 * O(nt), allocates nothing. */
typedef struct jg__lft_gather jg__lft_gather_t;
jg__lft_gather_t *jg__lft_gather_new(int64_t m, int64_t n, int64_t nt, const int64_t *row,
                                     const int64_t *col, const int64_t *src);
cs_dl *jg__lft_gather_alloc(const jg__lft_gather_t *g);
void jg__lft_gather_run(const jg__lft_gather_t *g, const double *vals, cs_dl *A);
void jg__lft_gather_free(jg__lft_gather_t *g);

#endif
