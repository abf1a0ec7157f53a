/* The orthogonal controllability staircase (Van Dooren, "The generalized
 * eigenstructure problem in linear system theory"; Varga's implementation
 * notes): one SVD-based row compression per step splits off the
 * controllable subspace of (A, B) without forming [B AB A^2B ...]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

/* rows k.. of an r-row matrix M (c columns) <- U' rows; U is (n-k) x (n-k) */
static void left_apply(int64_t n, int64_t k, const double *U, double *M, int64_t ld, int64_t c, double *w)
{
    int64_t m = n - k;
    for (int64_t j = 0; j < c; j++) {
        double *col = M + k + j * ld;
        for (int64_t i = 0; i < m; i++) {
            double acc = 0;
            for (int64_t l = 0; l < m; l++) acc += U[l + i * m] * col[l];
            w[i] = acc;
        }
        memcpy(col, w, sizeof(double) * (size_t)m);
    }
}

/* columns k.. of an r x n matrix M <- columns U */
static void right_apply(int64_t n, int64_t k, const double *U, double *M, int64_t r, double *w)
{
    int64_t m = n - k;
    for (int64_t i = 0; i < r; i++) {
        for (int64_t j = 0; j < m; j++) {
            double acc = 0;
            for (int64_t l = 0; l < m; l++) acc += M[i + (k + l) * r] * U[l + j * m];
            w[j] = acc;
        }
        for (int64_t j = 0; j < m; j++) M[i + (k + j) * r] = w[j];
    }
}

int64_t jg__lti_staircase(int64_t n, int64_t m, int64_t p, double *A, double *B, double *C, double tol)
{
    if (n == 0) return 0;
    int64_t k = 0, res = -1, prev = -1, width = m;   /* block to compress: B (prev < 0) or A(k:, prev:k) */
    double nrm = fmax(1, hypot(jg__lti_fnorm(n, n, A), jg__lti_fnorm(n, m, B)));
    double *U = malloc(sizeof(double) * (size_t)(n * n)), *blk = malloc(sizeof(double) * (size_t)(n * (n > m ? n : m) + 1));
    double *s = malloc(sizeof(double) * (size_t)(n + m + 1)), *w = malloc(sizeof(double) * (size_t)(n + 1));
    if (!U || !blk || !s || !w) goto done;
    while (k < n && width > 0) {
        int64_t rows = n - k;
        const double *src = prev < 0 ? B : A + prev * n;   /* columns of the block, rows k.. */
        for (int64_t j = 0; j < width; j++)
            memcpy(blk + j * rows, src + k + j * n, sizeof(double) * (size_t)rows);
        if (jg__lti_svd(rows, width, blk, s, U)) goto done;
        int64_t r = 0, mn = rows < width ? rows : width;
        while (r < mn && s[r] > tol * nrm) r++;
        if (r == 0) break;   /* the rest is uncontrollable */
        left_apply(n, k, U, A, n, n, w);
        right_apply(n, k, U, A, n, w);
        left_apply(n, k, U, B, n, m, w);
        if (C) right_apply(n, k, U, C, p, w);
        /* below the rank the block is zero up to tol: make it exact, so
         * that the uncontrollable part is exactly decoupled */
        double *dst = prev < 0 ? B : A + prev * n;
        for (int64_t j = 0; j < width; j++)
            for (int64_t i = k + r; i < n; i++) dst[i + j * n] = 0;
        prev = k;
        width = r;
        k += r;
    }
    res = k;
done:
    free(U);
    free(blk);
    free(s);
    free(w);
    return res;
}
