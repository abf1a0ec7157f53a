/* Invariant zeros of a linear model (Emami-Naeini & Van Dooren,
 * "Computation of zeros of linear multivariable systems"): reduce the
 * system matrix by orthogonal transformations to a system with the same
 * zeros and an invertible D, compress the columns of [C D], and solve the
 * remaining n x n generalized eigenvalue problem (LAPACK dggev). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

typedef struct {
    int64_t n, m, p;
    double *A, *B, *C, *D;   /* compact column-major: lda n, ldb n, ldc p, ldd p */
} sys_t;

static void sys_clear(sys_t *s)
{
    free(s->A);
    free(s->B);
    free(s->C);
    free(s->D);
    memset(s, 0, sizeof *s);
}

static int sys_alloc(sys_t *s, int64_t n, int64_t m, int64_t p)
{
    s->n = n, s->m = m, s->p = p;
    s->A = calloc((size_t)(n * n + 1), sizeof(double));
    s->B = calloc((size_t)(n * m + 1), sizeof(double));
    s->C = calloc((size_t)(p * n + 1), sizeof(double));
    s->D = calloc((size_t)(p * m + 1), sizeof(double));
    return s->A && s->B && s->C && s->D ? 0 : -1;
}

/* (A', C', B', D'): the dual, whose zeros are the same */
static int sys_dual(const sys_t *s, sys_t *d)
{
    if (sys_alloc(d, s->n, s->p, s->m)) return -1;
    for (int64_t j = 0; j < s->n; j++)
        for (int64_t i = 0; i < s->n; i++) d->A[j + i * s->n] = s->A[i + j * s->n];
    for (int64_t j = 0; j < s->n; j++)
        for (int64_t i = 0; i < s->p; i++) d->B[j + i * s->n] = s->C[i + j * s->p];
    for (int64_t j = 0; j < s->m; j++)
        for (int64_t i = 0; i < s->n; i++) d->C[j + i * s->m] = s->B[i + j * s->n];
    for (int64_t j = 0; j < s->m; j++)
        for (int64_t i = 0; i < s->p; i++) d->D[j + i * s->m] = s->D[i + j * s->p];
    return 0;
}

/* One pass of the reduction, in place: afterwards D has full row rank (or
 * p = 0).  Each step row-compresses D (U' D = [D1; 0], sigma = rank D),
 * column-compresses the rows C2 of U' C beside D's zero rows (C2 V = [0 Cb],
 * rho = rank C2 = columns of Cb) and drops the rho states Cb pins to zero:
 *     A <- A11, B <- B1, C <- [A21; C11], D <- [B2; D1].
 * 0, or -1 out of memory / SVD failure. */
static int reduce(sys_t *s, double tol)
{
    int rc = -1;
    sys_t t = {0};
    double *U = NULL, *V = NULL, *sv = NULL, *UC = NULL, *UD = NULL, *C2 = NULL, *At = NULL, *W = NULL;
    for (;;) {
        int64_t n = s->n, m = s->m, p = s->p;
        if (p == 0) break;
        free(U), free(V), free(sv), free(UC), free(UD), free(C2), free(At), free(W);
        U = malloc(sizeof(double) * (size_t)(p * p + 1));
        V = malloc(sizeof(double) * (size_t)(n * n + 1));
        sv = malloc(sizeof(double) * (size_t)(n + m + p + 1));
        UC = malloc(sizeof(double) * (size_t)(p * n + 1));
        UD = malloc(sizeof(double) * (size_t)(p * m + 1));
        C2 = malloc(sizeof(double) * (size_t)(p * n + 1));
        At = malloc(sizeof(double) * (size_t)(n * n + 1));
        W = malloc(sizeof(double) * (size_t)(n * (n > m ? n : m) + 1));
        if (!U || !V || !sv || !UC || !UD || !C2 || !At || !W) goto done;
        if (jg__lti_svd(p, m, s->D, sv, U)) goto done;
        int64_t sigma = 0, mn = p < m ? p : m;
        while (sigma < mn && sv[sigma] > tol) sigma++;
        if (sigma == p) break;   /* D has full row rank */
        jg__lti_gemm(1, 0, p, n, p, U, p, s->C, p, UC, p);
        jg__lti_gemm(1, 0, p, m, p, U, p, s->D, p, UD, p);
        int64_t q = p - sigma;   /* rows of C2 */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < q; i++) C2[i + j * q] = UC[sigma + i + j * p];
        /* V: right singular vectors of C2 = left ones of C2', reversed so
         * that C2 V = [0 Cb] */
        double *C2t = jg__lti_transpose(q, n, C2);
        if (!C2t) goto done;
        int bad = jg__lti_svd(n, q, C2t, sv, At);   /* At: scratch for the n x n vectors */
        free(C2t);
        if (bad) goto done;
        int64_t rho = 0, mq = n < q ? n : q;
        while (rho < mq && sv[rho] > tol) rho++;
        if (rho == 0) {   /* the rows are zero: drop them, D1 has full row rank */
            sys_t r = {0};
            if (sys_alloc(&r, n, m, sigma)) goto done;
            memcpy(r.A, s->A, sizeof(double) * (size_t)(n * n));
            memcpy(r.B, s->B, sizeof(double) * (size_t)(n * m));
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < sigma; i++) r.C[i + j * sigma] = UC[i + j * p];
            for (int64_t j = 0; j < m; j++)
                for (int64_t i = 0; i < sigma; i++) r.D[i + j * sigma] = UD[i + j * p];
            sys_clear(s);
            *s = r;
            break;
        }
        for (int64_t j = 0; j < n; j++)
            memcpy(V + j * n, At + (n - 1 - j) * n, sizeof(double) * (size_t)n);
        /* At = V' A V, Bt = V' B (in W), C1 V */
        jg__lti_gemm(0, 0, n, n, n, s->A, n, V, n, W, n);
        jg__lti_gemm(1, 0, n, n, n, V, n, W, n, At, n);
        int64_t nn = n - rho, np = rho + sigma;
        if (sys_alloc(&t, nn, m, np)) goto done;
        for (int64_t j = 0; j < nn; j++)
            for (int64_t i = 0; i < nn; i++) t.A[i + j * nn] = At[i + j * n];
        for (int64_t j = 0; j < nn; j++)
            for (int64_t i = 0; i < rho; i++) t.C[i + j * np] = At[nn + i + j * n];
        jg__lti_gemm(1, 0, n, m, n, V, n, s->B, n, W, n);
        for (int64_t j = 0; j < m; j++) {
            for (int64_t i = 0; i < nn; i++) t.B[i + j * nn] = W[i + j * n];
            for (int64_t i = 0; i < rho; i++) t.D[i + j * np] = W[nn + i + j * n];
            for (int64_t i = 0; i < sigma; i++) t.D[rho + i + j * np] = UD[i + j * p];
        }
        /* C11 = (U' C)(0:sigma, :) V(:, 0:nn) */
        for (int64_t j = 0; j < nn; j++)
            for (int64_t i = 0; i < sigma; i++) {
                double acc = 0;
                for (int64_t l = 0; l < n; l++) acc += UC[i + l * p] * V[l + j * n];
                t.C[rho + i + j * np] = acc;
            }
        sys_clear(s);
        *s = t;
        memset(&t, 0, sizeof t);
    }
    rc = 0;
done:
    sys_clear(&t);
    free(U), free(V), free(sv), free(UC), free(UD), free(C2), free(At), free(W);
    return rc;
}

jg_status_t jg_analysis_zeros(const jg_analysis_ss_t *ss, int64_t *nz, double *re, double *im,
                              int *degenerate, jg_error_t *err)
{
    if (!ss || !nz || (ss->nx && (!re || !im))) return jg_error_set(err, JG_ARG, "jg_analysis_zeros: NULL argument");
    *nz = 0;
    if (degenerate) *degenerate = 0;
    jg_status_t st = JG_OK;
    sys_t s = {0}, d = {0};
    double *M = NULL, *Q = NULL, *tau = NULL, *AB = NULL, *Af = NULL, *Ef = NULL, *ar = NULL, *ai = NULL,
           *be = NULL;
    int64_t n = ss->nx, m = ss->nu, p = ss->ny;
    if (m == 0 && p == 0) return JG_OK;   /* no channel, no transmission zero (A - sI alone would give the poles) */
    if (sys_alloc(&s, n, m, p)) goto nomem;
    memcpy(s.A, ss->A, sizeof(double) * (size_t)(n * n));
    memcpy(s.B, ss->B, sizeof(double) * (size_t)(n * m));
    memcpy(s.C, ss->C, sizeof(double) * (size_t)(p * n));
    memcpy(s.D, ss->D, sizeof(double) * (size_t)(p * m));
    /* one tolerance for every rank decision, from the whole system matrix */
    double nrm = sqrt(pow(jg__lti_fnorm(n, n, s.A), 2) + pow(jg__lti_fnorm(n, m, s.B), 2) +
                      pow(jg__lti_fnorm(p, n, s.C), 2) + pow(jg__lti_fnorm(p, m, s.D), 2));
    double tol = (double)(n + (m > p ? m : p) + 1) * DBL_EPSILON * fmax(1, nrm);
    if (degenerate) {   /* normal rank: the rank at a point that is no zero (almost surely) */
        int64_t R = n + p, Cc = n + m, k = R < Cc ? R : Cc, r = 0;
        double *S = malloc(sizeof(double) * (size_t)(R * Cc + 1)), *sv = malloc(sizeof(double) * (size_t)(k + 1));
        double s0 = 0.7390851332 * (1 + nrm);
        int bad = !S || !sv;
        if (!bad) {
            for (int64_t j = 0; j < n; j++) {
                for (int64_t i = 0; i < n; i++) S[i + j * R] = s.A[i + j * n] - (i == j ? s0 : 0);
                for (int64_t i = 0; i < p; i++) S[n + i + j * R] = s.C[i + j * p];
            }
            for (int64_t j = 0; j < m; j++) {
                for (int64_t i = 0; i < n; i++) S[i + (n + j) * R] = s.B[i + j * n];
                for (int64_t i = 0; i < p; i++) S[n + i + (n + j) * R] = s.D[i + j * p];
            }
            bad = jg__lti_svd(R, Cc, S, sv, NULL) != 0;
            while (!bad && r < k && sv[r] > tol * (1 + s0 / fmax(1, nrm))) r++;
        }
        free(S);
        free(sv);
        if (bad) goto fail;
        *degenerate = r < k;
    }
    if (reduce(&s, tol) || sys_dual(&s, &d) || reduce(&d, tol)) goto fail;
    sys_clear(&s);
    if (sys_dual(&d, &s)) goto nomem;
    n = s.n, m = s.m, p = s.p;
    if (n == 0) goto done;
    if (m != p) {   /* normal rank deficient beyond what the reduction squares up */
        if (degenerate) *degenerate = 1;
        goto done;
    }
    /* [C D] Q = [R' 0]: Q from the QR factorization of [C D]' ((n+m) x p) */
    int64_t N = n + m;
    M = calloc((size_t)(N * N + 1), sizeof(double));
    tau = malloc(sizeof(double) * (size_t)(N + 1));
    AB = malloc(sizeof(double) * (size_t)(n * N + 1));
    Af = malloc(sizeof(double) * (size_t)(n * n + 1));
    Ef = malloc(sizeof(double) * (size_t)(n * n + 1));
    ar = malloc(sizeof(double) * (size_t)(n + 1));
    ai = malloc(sizeof(double) * (size_t)(n + 1));
    be = malloc(sizeof(double) * (size_t)(n + 1));
    if (!M || !tau || !AB || !Af || !Ef || !ar || !ai || !be) goto nomem;
    for (int64_t i = 0; i < p; i++) {
        for (int64_t j = 0; j < n; j++) M[j + i * N] = s.C[i + j * p];
        for (int64_t j = 0; j < m; j++) M[n + j + i * N] = s.D[i + j * p];
    }
    if (p > 0) {
        if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)p, M, (lapack_int)N, tau)) goto fail;
        if (LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)N, (lapack_int)p, M, (lapack_int)N, tau))
            goto fail;
    } else {
        for (int64_t i = 0; i < N; i++) M[i + i * N] = 1;
    }
    Q = M;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) AB[i + j * n] = s.A[i + j * n];
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < n; i++) AB[i + (n + j) * n] = s.B[i + j * n];
    /* Af = [A B] Q(:, p:), Ef = [I 0] Q(:, p:) */
    jg__lti_gemm(0, 0, n, n, N, AB, n, Q + p * N, N, Af, n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) Ef[i + j * n] = Q[i + (p + j) * N];
    lapack_int info = LAPACKE_dggev(LAPACK_COL_MAJOR, 'N', 'N', (lapack_int)n, Af, (lapack_int)n, Ef,
                                    (lapack_int)n, ar, ai, be, NULL, 1, NULL, 1);
    if (info) goto fail;
    /* infinite eigenvalues (beta ~ 0) are not zeros */
    double bmax = 0;
    for (int64_t k = 0; k < n; k++) bmax = fmax(bmax, fabs(be[k]));
    int64_t c = 0;
    for (int64_t k = 0; k < n; k++) {
        if (fabs(be[k]) <= 1e3 * DBL_EPSILON * fmax(bmax, 1) ||
            !isfinite(ar[k] / be[k]) || !isfinite(ai[k] / be[k]))
            continue;
        re[c] = ar[k] / be[k];
        im[c] = ai[k] / be[k];
        /* a zero at the origin (integral action) comes out as 1e-16 and
         * would set the frequency range: snap what is 0 at working precision */
        if (fabs(re[c]) <= tol) re[c] = 0;
        if (fabs(im[c]) <= tol) im[c] = 0;
        c++;
    }
    jg__lti_sort_roots(c, re, im, ss->Ts);
    *nz = c;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
    goto done;
fail:
    st = jg_error_set(err, JG_NUMERIC, "zeros: a LAPACK factorization failed");
done:
    sys_clear(&s);
    sys_clear(&d);
    free(M), free(tau), free(AB), free(Af), free(Ef), free(ar), free(ai), free(be);
    return st;
}
