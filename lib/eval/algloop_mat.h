/* algloop_mat.h -- the Newton matrix K = I - dG/dY of one algebraic loop,
 * factored dense (LAPACK, small or dense loops) or sparse (KLU), for the loop
 * solver (algloop.c).  Private to lib/eval. */
#ifndef JG_EVAL_ALGLOOP_MAT_H
#define JG_EVAL_ALGLOOP_MAT_H
#include <stdint.h>
#include <cs.h>

/* Loops up to this order are factored dense, and larger ones whose K has at
 * least a quarter of its entries up to JG__LOOPMAT_DENSE_MAX (measured: see
 * docs/architecture.md, "Algebraic loops"); the rest with KLU. */
#define JG__LOOPMAT_DENSE_N 64
#define JG__LOOPMAT_DENSE_MAX 2048

typedef struct jg__loopmat jg__loopmat_t;

/* A matrix holder for loops of order n; NULL when out of memory.  Nothing is
 * allocated for the factors until the first jg__loopmat_factor. */
jg__loopmat_t *jg__loopmat_new(int64_t n);
void jg__loopmat_free(jg__loopmat_t *m);

/* Factor K (n x n, compressed column, duplicates summed).  The storage (dense
 * or sparse) is chosen at the first call from K's order and fill; later calls
 * must pass the same pattern.  Rows are equilibrated (by powers of two) before
 * the pivot test, so the scale of one equation (an Algebraic Constraint's f in
 * its own units) does not make the loop look singular.  Returns 0, 1 when K is
 * singular (a pivot below 1e-14 of its equilibrated row scale), -1 when out of
 * memory. */
int jg__loopmat_factor(jg__loopmat_t *m, const cs_dl *K);

/* b := K^-1 b with the last factors. */
void jg__loopmat_solve(jg__loopmat_t *m, double *b);

/* 1 when the factors are KLU's (for tests and statistics). */
int jg__loopmat_is_sparse(const jg__loopmat_t *m);

#endif
