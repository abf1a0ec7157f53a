/* Dense LU solves through LAPACKE with an explicit near-singularity test. */
#include <math.h>
#include <stdlib.h>
#include <lapacke.h>
#include "dense.h"

/* LAPACK's getrf only reports exact zero pivots; a loop that is singular in
 * exact arithmetic usually leaves a pivot at round-off level instead, so the
 * pivots are compared with the matrix scale. */
static int factor(int64_t n, double *A, lapack_int *ipiv)
{
    double scale = 0;
    for (int64_t k = 0; k < n * n; k++) scale = fmax(scale, fabs(A[k]));
    lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, A,
                                     (lapack_int)n, ipiv);
    if (info > 0) return (int)info;
    if (info < 0) return -1;
    for (int64_t k = 0; k < n; k++)
        if (!(fabs(A[k * n + k]) > 1e-14 * scale)) return (int)k + 1;
    return 0;
}

int jg__dense_solve(int64_t n, double *A, int64_t nrhs, double *B)
{
    if (n == 0) return 0;
    lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)n);
    if (!ipiv) return JG__DENSE_NOMEM;
    int r = factor(n, A, ipiv);
    if (!r && nrhs > 0)
        r = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n, (lapack_int)nrhs, A,
                           (lapack_int)n, ipiv, B, (lapack_int)n) ? -1 : 0;
    free(ipiv);
    return r;
}

size_t jg__dense_ipiv_bytes(int64_t n) { return sizeof(lapack_int) * (size_t)(n > 0 ? n : 1); }

int jg__dense_inverse_ws(int64_t n, double *A, void *ipiv, double *work, int64_t lwork)
{
    if (n == 0) return 0;
    int r = factor(n, A, ipiv);
    if (!r)
        r = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, (lapack_int)n, A, (lapack_int)n, ipiv, work,
                                (lapack_int)lwork) ? -1 : 0;
    return r;
}

int jg__dense_inverse(int64_t n, double *A)
{
    if (n == 0) return 0;
    /* the _work variant with our own work array: LAPACKE_dgetri would print
     * "Not enough memory" to stdout when its allocation fails */
    lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)n);
    double *work = malloc(sizeof(double) * (size_t)n * 64);
    if (!ipiv || !work) {
        free(ipiv);
        free(work);
        return JG__DENSE_NOMEM;
    }
    int r = factor(n, A, ipiv);
    if (!r)
        r = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, (lapack_int)n, A, (lapack_int)n, ipiv, work,
                                (lapack_int)n * 64) ? -1 : 0;
    free(ipiv);
    free(work);
    return r;
}
