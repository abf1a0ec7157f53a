/* Private helpers shared by the linear-model analyses of lib/analysis (poles,
 * zeros, staircase, frequency and time responses): dense column-major
 * matrices, element (i, j) of an r-row matrix at [i + j r]. */
#ifndef JG_LTI_IMPL_H
#define JG_LTI_IMPL_H
#include <complex.h>
#include <stdint.h>
#include "jacgraph/analysis.h"

#ifndef M_PI   /* not in strict C11 */
#define M_PI 3.14159265358979323846
#endif

/* Sort roots (re, im) for display: by natural frequency (damp's order; for
 * Ts > 0 that of log(z)/Ts), then positive imaginary part first; a
 * conjugate pair is made exactly conjugate. */
void jg__lti_sort_roots(int64_t n, double *re, double *im, double Ts);

/* Eigenvalues of the n x n matrix A (not changed) into re, im (n each),
 * unsorted.  0, or -1 out of memory, > 0 no convergence. */
int jg__lti_eig(int64_t n, const double *A, double *re, double *im);

/* Singular values of the r x c matrix M (not changed) and, when U is not
 * NULL, the r x r left singular vectors.  s holds min(r, c).  0, or != 0 on
 * failure (out of memory, no convergence). */
int jg__lti_svd(int64_t r, int64_t c, const double *M, double *s, double *U);

/* The controllability staircase (orthogonal, in place): A <- Z' A Z,
 * B <- Z' B, C <- C Z with Z orthogonal such that
 *     Z' A Z = [Ac  *  ]   Z' B = [Bc]
 *              [0   Anc]          [0 ]
 * and (Ac, Bc) controllable; returns the order of Ac (>= 0), or -1 out of
 * memory / no convergence.  A singular value counts when it exceeds
 * tol * max(1, ||[A B]||_F).  C may be NULL (p = 0). */
int64_t jg__lti_staircase(int64_t n, int64_t m, int64_t p, double *A, double *B, double *C, double tol);

/* H(s) = C (sI - A)^-1 B + D at complex points, with A reduced once to upper
 * Hessenberg form: O(n^3) once, then O(n^2 (n + nu) + ny n nu) per point. */
typedef struct jg__lti_hess jg__lti_hess_t;
jg__lti_hess_t *jg__lti_hess_create(const jg_analysis_ss_t *s);
void jg__lti_hess_free(jg__lti_hess_t *h);
/* G (ny x nu, column-major) at s; returns 1 when sI - A is singular at
 * working precision (G is then +inf), else 0. */
int jg__lti_hess_eval(jg__lti_hess_t *h, double complex s, double complex *G);

/* Magnitude (dB) and unwrapped phase (degrees) of nc channels of nw complex
 * values each (jg_analysis_bode's form); mag or ph may be NULL. */
void jg__lti_bode_form(int64_t nc, int64_t nw, const double *re, const double *im, double *mag, double *ph);

/* The dense model of a linearization result with sample time Ts, internal
 * delay channels included as plain inputs and outputs (no check). */
jg_status_t jg__lti_from_lin(const jg_lin_sys_t *ls, double Ts, jg_analysis_ss_t **out, jg_error_t *err);
/* JG_ARG "the linear model has N internal delays (NAME TAU s, ...): WHAT". */
jg_status_t jg__lti_delays_refuse(const jg_lin_sys_t *ls, const char *what, jg_error_t *err);

/* Norms and small matrix helpers. */
double jg__lti_fnorm(int64_t r, int64_t c, const double *M);
/* C = op(A) op(B) for r x k times k x c, column-major; ta/tb transpose. */
void jg__lti_gemm(int ta, int tb, int64_t r, int64_t c, int64_t k, const double *A, int64_t lda,
                  const double *B, int64_t ldb, double *C, int64_t ldc);
/* A copy of the transposed r x c matrix (c x r); NULL out of memory. */
double *jg__lti_transpose(int64_t r, int64_t c, const double *M);

#endif
