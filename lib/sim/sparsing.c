/* Sparsing for the linearly implicit Euler method ("Sparsing of
 * Jacobians"): choose off-diagonal entries of the solver Jacobian J that may
 * be replaced by zero in I - h J without changing the dynamics much.
 *
 * The criterion is the first-order change of J's eigenvalues: for a simple
 * eigenvalue lambda_k with right eigenvector x_k and left eigenvector u_k
 * (u_k^H J = lambda_k u_k^H), zeroing J_ij changes it by about
 *     d lambda_k = -J_ij conj(u_k,i) x_k,j / (u_k^H x_k),
 * a scalar product per entry and eigenvalue ("Sparsing of Jacobians": "the
 * sparsing criterion for each element ... obtained essentially by the computation of a scalar
 * product").  Scaled by the step, h |d lambda_k| is the change of the step's
 * eigenvalue h lambda_k.  Entries are taken in increasing order of their
 * largest estimate while, for every k, the sum of the estimates of the
 * entries taken stays within tol (the "sum" bound: first-order changes add,
 * so the sum bounds their combined first-order effect).  The diagonal is never
 * dropped: it carries the stiffness the implicit step exists for.
 *
 * Written by hand (LAPACKE dgeev does the eigen-decomposition): no library
 * offers the selection.  Cost: O(n^3) for the dense eigenvectors, O(nnz n) for
 * the estimates; meant for an offline choice at the start of a run. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "sparsing.h"

typedef struct {
    double key;
    int64_t q;   /* entry index in J */
} cand_t;

static int cmp_cand(const void *a, const void *b)
{
    double x = ((const cand_t *)a)->key, y = ((const cand_t *)b)->key;
    return x < y ? -1 : x > y;
}

jg_status_t jg__sparsing_select(const cs_dl *J, double h, double tol, unsigned char *keep,
                                int64_t *ndrop, double *worst, jg_error_t *err)
{
    const int64_t n = J->n, nz = J->p[n];
    *ndrop = 0;
    *worst = 0;
    for (int64_t q = 0; q < nz; q++) keep[q] = 1;
    if (n == 0 || !(tol > 0)) return JG_OK;
    if (n > 4000)
        return jg_error_set(err, JG_ARG,
                            "sparsing needs a dense eigen-decomposition: %lld states is more than "
                            "4000", (long long)n);
    jg_status_t st = JG_OK;
    double *A = calloc((size_t)(n * n), sizeof(double));
    double *wr = malloc(sizeof(double) * (size_t)n), *wi = malloc(sizeof(double) * (size_t)n);
    double *VL = malloc(sizeof(double) * (size_t)(n * n)), *VR = malloc(sizeof(double) * (size_t)(n * n));
    double complex *den = malloc(sizeof(double complex) * (size_t)n);
    double *sum = calloc((size_t)n, sizeof(double));
    double *est = malloc(sizeof(double) * (size_t)(nz ? nz * n : 1));
    cand_t *cand = malloc(sizeof(cand_t) * (size_t)(nz ? nz : 1));
    if (!A || !wr || !wi || !VL || !VR || !den || !sum || !est || !cand) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = J->p[j]; q < J->p[j + 1]; q++) A[j * n + J->i[q]] += J->x[q];
    lapack_int info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'V', 'V', (lapack_int)n, A, (lapack_int)n, wr,
                                    wi, VL, (lapack_int)n, VR, (lapack_int)n);
    if (info != 0) {
        st = jg_error_set(err, JG_NUMERIC, "sparsing: the eigen-decomposition of J failed (dgeev %d)",
                          (int)info);
        goto done;
    }
    /* eigenvector k as a complex vector: a real one, or columns k, k+1 of a
     * conjugate pair (k first, k+1 its conjugate) */
#define VEC(V, k, i)                                                                         \
    (wi[k] == 0 ? (V)[(k) * n + (i)]                                                         \
     : wi[k] > 0 ? (V)[(k) * n + (i)] + I * (V)[((k) + 1) * n + (i)]                          \
                 : (V)[((k) - 1) * n + (i)] - I * (V)[(k) * n + (i)])
    for (int64_t k = 0; k < n; k++) {
        double complex d = 0;
        for (int64_t i = 0; i < n; i++) d += conj(VEC(VL, k, i)) * VEC(VR, k, i);
        den[k] = d;
    }
    int64_t nc = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = J->p[j]; q < J->p[j + 1]; q++) {
            int64_t i = J->i[q];
            double mx = 0;
            for (int64_t k = 0; k < n; k++) {
                /* a defective or nearly defective eigenvalue: no first-order
                 * estimate; count it as a large change (never drop there) */
                double e = cabs(den[k]) > 1e-12 ? h * fabs(J->x[q]) *
                                                      cabs(conj(VEC(VL, k, i)) * VEC(VR, k, j) / den[k])
                                                : INFINITY;
                if (i == j && J->x[q] != 0) e = INFINITY;   /* the diagonal stays */
                est[q * n + k] = e;
                mx = fmax(mx, e);
            }
            if (J->x[q] == 0 && i != j) mx = 0;   /* a structural zero costs nothing */
            if (i != j) cand[nc++] = (cand_t){mx, q};
        }
#undef VEC
    qsort(cand, (size_t)nc, sizeof *cand, cmp_cand);
    for (int64_t c = 0; c < nc; c++) {
        int64_t q = cand[c].q;
        if (!(cand[c].key <= tol)) break;
        int ok = 1;
        for (int64_t k = 0; k < n && ok; k++) ok = sum[k] + est[q * n + k] <= tol;
        if (!ok) continue;
        for (int64_t k = 0; k < n; k++) {
            sum[k] += est[q * n + k];
            *worst = fmax(*worst, sum[k]);
        }
        keep[q] = 0;
        if (J->x[q] != 0) (*ndrop)++;   /* zeros of the pattern are free to drop */
    }
done:
    free(A);
    free(wr);
    free(wi);
    free(VL);
    free(VR);
    free(den);
    free(sum);
    free(est);
    free(cand);
    return st;
}
