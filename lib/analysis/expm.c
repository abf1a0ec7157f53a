/* The matrix exponential by scaling and squaring with the degree-6 diagonal
 * Pade approximant (Golub & Van Loan, Algorithm 11.3.1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/dense.h"
#include "lti_impl.h"

jg_status_t jg_analysis_expm(int64_t n, const double *M, double *E, jg_error_t *err)
{
    if (n < 0 || (n && (!M || !E))) return jg_error_set(err, JG_ARG, "jg_analysis_expm: bad argument");
    if (n == 0) return JG_OK;
    const int q = 6;
    size_t nn = (size_t)(n * n);
    jg_status_t st = JG_OK;
    double *A = malloc(sizeof(double) * nn), *X = malloc(sizeof(double) * nn),
           *T = malloc(sizeof(double) * nn), *N = malloc(sizeof(double) * nn),
           *D = malloc(sizeof(double) * nn);
    if (!A || !X || !T || !N || !D) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    /* infinity norm decides the scaling: ||A / 2^j|| <= 1/2 bounds the
     * Pade error by 2^(3-2q) q!^2 / ((2q)! (2q+1)!) ~ 1e-16 */
    double nrm = 0;
    for (int64_t i = 0; i < n; i++) {
        double r = 0;
        for (int64_t j = 0; j < n; j++) r += fabs(M[i + j * n]);
        if (!isfinite(r)) {
            st = jg_error_set(err, JG_ARG, "expm: the matrix is not finite");
            goto done;
        }
        nrm = fmax(nrm, r);
    }
    int j = nrm > 0 ? (int)fmax(0, 1 + floor(log2(nrm))) : 0;
    double sc = ldexp(1, -j), c = 1;
    for (size_t k = 0; k < nn; k++) {
        A[k] = M[k] * sc;
        X[k] = N[k] = D[k] = 0;
    }
    for (int64_t i = 0; i < n; i++) X[i + i * n] = N[i + i * n] = D[i + i * n] = 1;
    for (int k = 1; k <= q; k++) {
        c = c * (q - k + 1) / (k * (2.0 * q - k + 1));
        jg__lti_gemm(0, 0, n, n, n, A, n, X, n, T, n);
        memcpy(X, T, sizeof(double) * nn);
        double sg = (k & 1) ? -c : c;
        for (size_t l = 0; l < nn; l++) {
            N[l] += c * X[l];
            D[l] += sg * X[l];
        }
    }
    if (jg__dense_solve(n, D, n, N)) {   /* F = D^-1 N */
        st = jg_error_set(err, JG_NUMERIC, "expm: singular Pade denominator");
        goto done;
    }
    for (int k = 0; k < j; k++) {
        jg__lti_gemm(0, 0, n, n, n, N, n, N, n, T, n);
        memcpy(N, T, sizeof(double) * nn);
    }
    memcpy(E, N, sizeof(double) * nn);
done:
    free(A);
    free(X);
    free(T);
    free(N);
    free(D);
    return st;
}
