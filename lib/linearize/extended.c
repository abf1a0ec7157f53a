/* An extended-precision reference linearization: the LFT F = P11 + P12 M
 * (I - P22 M)^-1 P21 of the block-by-block operands (matrix.c) evaluated in
 * quadruple precision (binary128, GCC's __float128: products of two doubles
 * are exact in it) or, without it, long double, with a dense LU of I - P22 M,
 * for `check` to tell which of the double-precision methods is right on a
 * small ill-conditioned model. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lin_impl.h"

#if defined(__SIZEOF_FLOAT128__) && !defined(__clang__)
typedef __float128 ld;
#define LD_EPS 0x1p-112
#else
typedef long double ld;
#define LD_EPS ((double)LDBL_EPSILON)
#endif

static ld absl(ld x) { return x < 0 ? -x : x; }

double jg_lin_extended_eps(void) { return LD_EPS; }

/* LU of the n x n column-major K with partial pivoting, in place; piv gets
 * the row swaps.  0, or 1 when a pivot is exactly zero. */
static int lu(int64_t n, ld *K, int64_t *piv)
{
    for (int64_t k = 0; k < n; k++) {
        int64_t r = k;
        for (int64_t i = k + 1; i < n; i++)
            if (absl(K[k * n + i]) > absl(K[k * n + r])) r = i;
        piv[k] = r;
        if (K[k * n + r] == 0) return 1;
        if (r != k)
            for (int64_t j = 0; j < n; j++) {
                ld t = K[j * n + k];
                K[j * n + k] = K[j * n + r];
                K[j * n + r] = t;
            }
        for (int64_t i = k + 1; i < n; i++) K[k * n + i] /= K[k * n + k];
        for (int64_t j = k + 1; j < n; j++) {
            ld a = K[j * n + k];
            if (a != 0)
                for (int64_t i = k + 1; i < n; i++) K[j * n + i] -= K[k * n + i] * a;
        }
    }
    return 0;
}

static void lu_solve(int64_t n, const ld *K, const int64_t *piv, ld *b)
{
    for (int64_t k = 0; k < n; k++) {
        ld t = b[k];
        b[k] = b[piv[k]];
        b[piv[k]] = t;
        for (int64_t i = k + 1; i < n; i++) b[i] -= K[k * n + i] * b[k];
    }
    for (int64_t k = n - 1; k >= 0; k--) {
        b[k] /= K[k * n + k];
        for (int64_t i = 0; i < k; i++) b[i] -= K[k * n + i] * b[k];
    }
}

jg_status_t jg_lin_run_extended(jg_lin_t *l, jg_lin_sys_t **out, jg_error_t *err)
{
    jg_lftops_t o = {0};
    ld *K = NULL, *x = NULL, *v = NULL, *f = NULL;
    int64_t *piv = NULL;
    cs_dl *T = NULL, *F = NULL;
    *out = NULL;
    if (l->ncut > 0)   /* the delay channels are closed after the LFT (delays.c) */
        return jg_error_set(err, JG_ARG, "the extended-precision reference does not take cut "
                                         "TransportDelays (linearize them with their Pade blocks)");
    jg_status_t st = jg__lin_eval(l, 1, err);
    if (st || (st = jg__lin_matrix_ops(l, &o, err))) goto done;
    const cs_dl *P11 = o.P11, *P12 = o.P12, *P21 = o.P21, *P22 = o.P22, *M = o.M;
    int64_t N = P22->m, U = M->m, no = P11->m, ni = P11->n;
    if (N > JG_LIN_EXTENDED_MAX) {
        st = jg_error_set(err, JG_ARG,
                          "the extended-precision reference solves at most %d algebraic "
                          "variables densely; this model has %lld",
                          JG_LIN_EXTENDED_MAX, (long long)N);
        goto done;
    }
    K = calloc((size_t)(N * N + 1), sizeof(ld));
    x = malloc(sizeof(ld) * (size_t)(N + 1));
    v = malloc(sizeof(ld) * (size_t)(U + 1));
    f = malloc(sizeof(ld) * (size_t)(no + 1));
    piv = malloc(sizeof(int64_t) * (size_t)(N + 1));
    T = cs_dl_spalloc(no, ni, P11->nzmax + 16, 1, 1);
    if (!K || !x || !v || !f || !piv || !T) goto nomem;
    /* K = I - P22 M, column by column, every product and sum in long double */
    for (int64_t k = 0; k < N; k++) {
        ld *col = K + k * N;
        col[k] = 1;
        for (int64_t q = M->p[k]; q < M->p[k + 1]; q++) {
            int64_t u = M->i[q];
            for (int64_t r = P22->p[u]; r < P22->p[u + 1]; r++)
                col[P22->i[r]] -= (ld)P22->x[r] * (ld)M->x[q];
        }
    }
    if (lu(N, K, piv)) {
        st = jg_error_set(err, JG_SINGULAR_LOOP,
                          "I - D*M is exactly singular in extended precision");
        goto done;
    }
    for (int64_t j = 0; j < ni; j++) {
        for (int64_t i = 0; i < no; i++) f[i] = 0;
        for (int64_t q = P11->p[j]; q < P11->p[j + 1]; q++) f[P11->i[q]] += (ld)P11->x[q];
        if (N > 0 && P21->p[j + 1] > P21->p[j]) {
            for (int64_t i = 0; i < N; i++) x[i] = 0;
            for (int64_t q = P21->p[j]; q < P21->p[j + 1]; q++) x[P21->i[q]] += (ld)P21->x[q];
            lu_solve(N, K, piv, x);
            for (int64_t u = 0; u < U; u++) v[u] = 0;   /* v = M x */
            for (int64_t k = 0; k < N; k++)
                for (int64_t q = M->p[k]; q < M->p[k + 1]; q++) v[M->i[q]] += (ld)M->x[q] * x[k];
            for (int64_t u = 0; u < U; u++)   /* f += P12 v */
                if (v[u] != 0)
                    for (int64_t q = P12->p[u]; q < P12->p[u + 1]; q++)
                        f[P12->i[q]] += (ld)P12->x[q] * v[u];
        }
        for (int64_t i = 0; i < no; i++)
            if (f[i] != 0 && jg__entry(T, i, j, (double)f[i])) goto nomem;
    }
    if (!(F = cs_dl_compress(T))) goto nomem;
    st = jg__lin_sys_from(l, F, out, err);
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory for the extended-precision reference");
done:
    jg__lftops_free(&o);
    free(K);
    free(x);
    free(v);
    free(f);
    free(piv);
    cs_dl_spfree(T);
    cs_dl_spfree(F);
    return st;
}
