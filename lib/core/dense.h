/* dense.h -- small dense kernels over LAPACK(E) used by several modules (internal). */
#ifndef JG_CORE_DENSE_H
#define JG_CORE_DENSE_H
#include <stddef.h>
#include <stdint.h>

/* Solve A X = B in place; A is n x n column-major (overwritten by its LU
 * factors), B is n x nrhs column-major.  Returns 0, or > 0 when A is singular
 * (exactly, or with a pivot below 1e-14 times the largest entry of A). */
int jg__dense_solve(int64_t n, double *A, int64_t nrhs, double *B);

/* Invert A (n x n column-major) in place; same return convention.  Both
 * return JG__DENSE_NOMEM when their workspace cannot be allocated (not a
 * singularity: callers report out of memory); other negative values are
 * LAPACK argument errors. */
#define JG__DENSE_NOMEM (-2)
/* Invert A (n x n column-major) in place. */
int jg__dense_inverse(int64_t n, double *A);
/* The same without allocating: ipiv has jg__dense_ipiv_bytes(n) bytes, work
 * lwork >= n doubles (64 n lets LAPACK block). */
int jg__dense_inverse_ws(int64_t n, double *A, void *ipiv, double *work, int64_t lwork);
size_t jg__dense_ipiv_bytes(int64_t n);

#endif
