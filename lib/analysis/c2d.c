/* Conversions between continuous and discrete time (MATLAB's c2d, d2c, d2d):
 * zero-order hold (block exponential), first-order (triangle) hold, and
 * Tustin's bilinear transform with optional frequency prewarping; the matrix
 * logarithm they need in reverse (inverse scaling and squaring). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

int jg_analysis_c2d_parse(const char *s, double *prewarp)
{
    *prewarp = 0;
    if (!strcmp(s, "zoh")) return JG_ANALYSIS_ZOH;
    if (!strcmp(s, "foh")) return JG_ANALYSIS_FOH;
    if (!strcmp(s, "tustin")) return JG_ANALYSIS_TUSTIN;
    if (!strncmp(s, "prewarp:", 8)) {
        char *end;
        double w = strtod(s + 8, &end);
        if (end == s + 8 || *end || !(w > 0) || !isfinite(w)) return -1;
        *prewarp = w;
        return JG_ANALYSIS_TUSTIN;
    }
    return -1;
}

const char *jg_analysis_c2d_name(jg_analysis_c2d_t m)
{
    return m == JG_ANALYSIS_ZOH ? "zoh" : m == JG_ANALYSIS_FOH ? "foh" : m == JG_ANALYSIS_TUSTIN ? "tustin" : "?";
}

/* X = A^-1 B for n x n A (copied) and n x k B (overwritten); 0, or -1
 * singular / out of memory. */
static int solve(int64_t n, const double *A, int64_t k, double *B)
{
    if (n == 0 || k == 0) return 0;
    double *F = malloc(sizeof(double) * (size_t)(n * n));
    lapack_int *piv = malloc(sizeof(lapack_int) * (size_t)n);
    int rc = -1;
    if (F && piv) {
        memcpy(F, A, sizeof(double) * (size_t)(n * n));
        rc = LAPACKE_dgesv(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)k, F, (lapack_int)n, piv, B,
                           (lapack_int)n) ? -1 : 0;
    }
    free(F);
    free(piv);
    return rc;
}

static double norm1(int64_t n, const double *M)
{
    double m = 0;
    for (int64_t j = 0; j < n; j++) {
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += fabs(M[i + j * n]);
        m = fmax(m, s);
    }
    return m;
}

static void eye(int64_t n, double *M)
{
    memset(M, 0, sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n; i++) M[i + i * n] = 1;
}

/* F = I + c A (n x n) */
static void shift(int64_t n, double c, const double *A, double *F)
{
    for (int64_t q = 0; q < n * n; q++) F[q] = c * A[q];
    for (int64_t i = 0; i < n; i++) F[i + i * n] += 1;
}

/* X = (I + c A)^-1, F n x n scratch (the bilinear maps' resolvent); 0, or
 * -1 singular / out of memory. */
static int inv_shift(int64_t n, double c, const double *A, double *F, double *X)
{
    shift(n, c, A, F);
    eye(n, X);
    return solve(n, F, n, X);
}

/* Principal square root by the Denman-Beavers iteration (Higham, "Functions
 * of Matrices", eq. 6.15): Y -> sqrt(X), Z -> its inverse.  0, -1 failure. */
static int sqrtm(int64_t n, double *X, double *w)
{
    size_t nn = (size_t)(n * n);
    double *Y = w, *Z = w + nn, *Yi = w + 2 * nn, *Zi = w + 3 * nn;
    memcpy(Y, X, sizeof(double) * nn);
    eye(n, Z);
    for (int it = 0; it < 100; it++) {
        eye(n, Yi);
        eye(n, Zi);
        if (solve(n, Y, n, Yi) || solve(n, Z, n, Zi)) return -1;
        double d = 0;
        for (size_t k = 0; k < nn; k++) {
            double y = 0.5 * (Y[k] + Zi[k]);
            d = fmax(d, fabs(y - Y[k]));
            Y[k] = y;
            Z[k] = 0.5 * (Z[k] + Yi[k]);
        }
        if (!isfinite(d)) return -1;
        if (d <= 1e-15 * fmax(1.0, norm1(n, Y))) {
            memcpy(X, Y, sizeof(double) * nn);
            return 0;
        }
    }
    return -1;
}

jg_status_t jg_analysis_logm(int64_t n, const double *M, double *L, jg_error_t *err)
{
    if (n < 0 || (n && (!M || !L))) return jg_error_set(err, JG_ARG, "jg_analysis_logm: bad argument");
    if (n == 0) return JG_OK;
    size_t nn = (size_t)(n * n);
    jg_status_t st = JG_OK;
    double *X = malloc(sizeof(double) * nn), *w = malloc(sizeof(double) * nn * 6);
    if (!X || !w) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    memcpy(X, M, sizeof(double) * nn);
    /* square roots until X is near I: log X = 2^s log X^(1/2^s) */
    int s = 0;
    for (;;) {
        for (int64_t i = 0; i < n; i++) X[i + i * n] -= 1;
        double d = norm1(n, X);
        for (int64_t i = 0; i < n; i++) X[i + i * n] += 1;
        if (d <= 0.25) break;
        if (s == 60 || sqrtm(n, X, w)) {
            st = jg_error_set(err, JG_NUMERIC,
                              "matrix logarithm: no real logarithm (an eigenvalue at 0 or on the "
                              "negative real axis)");
            goto done;
        }
        s++;
    }
    /* Gregory's series log X = 2 (Y + Y^3/3 + Y^5/5 + ...), Y = (X - I)(X + I)^-1,
     * ||Y|| <= 1/7 here: 20 terms reach round-off */
    double *Y = w, *Y2 = w + nn, *P = w + 2 * nn, *T = w + 3 * nn, *XpI = w + 4 * nn;
    memcpy(XpI, X, sizeof(double) * nn);
    memcpy(Y, X, sizeof(double) * nn);
    for (int64_t i = 0; i < n; i++) XpI[i + i * n] += 1, Y[i + i * n] -= 1;
    if (solve(n, XpI, n, Y)) {
        st = jg_error_set(err, JG_NUMERIC, "matrix logarithm: singular X + I");
        goto done;
    }
    jg__lti_gemm(0, 0, n, n, n, Y, n, Y, n, Y2, n);
    memcpy(P, Y, sizeof(double) * nn);
    memcpy(L, Y, sizeof(double) * nn);
    for (int k = 3; k < 80; k += 2) {
        jg__lti_gemm(0, 0, n, n, n, P, n, Y2, n, T, n);
        memcpy(P, T, sizeof(double) * nn);
        double mx = 0;
        for (size_t q = 0; q < nn; q++) {
            L[q] += P[q] / k;
            mx = fmax(mx, fabs(P[q] / k));
        }
        if (mx <= 1e-18 * fmax(1.0, norm1(n, L))) break;
    }
    for (size_t q = 0; q < nn; q++) L[q] *= ldexp(2.0, s);
done:
    free(X);
    free(w);
    return st;
}

/* The Tustin factor k (s = (1/k) (z - 1)/(z + 1)): T/2, or tan(w T/2)/w
 * prewarped at w rad/s (the frequency response matches at w). */
static double tustin_k(double Ts, double w, jg_error_t *err, jg_status_t *st)
{
    *st = JG_OK;
    if (w <= 0) return Ts / 2;
    if (!(w * Ts / 2 < M_PI / 2))
        *st = jg_error_set(err, JG_ARG, "prewarp frequency %g rad/s is not below the Nyquist frequency pi/Ts = %g",
                           w, M_PI / Ts);
    return tan(w * Ts / 2) / w;
}

/* The Tustin maps' work: two n x n matrices and an n x nu one (the caller
 * frees them, also on failure); 1 when out of memory. */
static int tustin_work(int64_t n, int64_t nu, double **F, double **X, double **Y)
{
    *F = malloc(sizeof(double) * (size_t)(n * n));
    *X = malloc(sizeof(double) * (size_t)(n * n));
    *Y = malloc(sizeof(double) * (size_t)(n * nu + 1));
    return !*F || !*X || !*Y;
}

static jg_status_t check(const jg_analysis_ss_t *s, double Ts, int want_discrete, jg_analysis_c2d_t m,
                         jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "no model");
    if (want_discrete ? !(s->Ts > 0) : s->Ts != 0)
        return jg_error_set(err, JG_ARG, "expected a %s-time model", want_discrete ? "discrete" : "continuous");
    if (!(Ts > 0) || !isfinite(Ts)) return jg_error_set(err, JG_ARG, "sample time must be positive, got %g", Ts);
    if (m != JG_ANALYSIS_ZOH && m != JG_ANALYSIS_FOH && m != JG_ANALYSIS_TUSTIN)
        return jg_error_set(err, JG_ARG, "unknown conversion method %d", (int)m);
    return JG_OK;
}

jg_status_t jg_analysis_c2d(const jg_analysis_ss_t *s, double Ts, jg_analysis_c2d_t m, double prewarp,
                            jg_analysis_ss_t **out, jg_error_t *err)
{
    *out = NULL;
    jg_status_t st = check(s, Ts, 0, m, err);
    if (st) return st;
    int64_t n = s->nx, nu = s->nu, ny = s->ny;
    jg_analysis_ss_t *r = NULL;
    double *E = NULL, *F = NULL, *Ad = NULL, *Bd = NULL, *Cd = NULL, *Dd = NULL;
    if ((st = jg_analysis_ss_create(n, nu, ny, s->A, s->B, s->C, s->D, Ts, &r, err))) return st;
    if (n == 0) goto ok;
    if (m == JG_ANALYSIS_ZOH || m == JG_ANALYSIS_FOH) {
        /* e^(F T) of F = [A B 0; 0 0 I/T; 0 0 0] (ZOH: without the last block
         * row and column): Phi, Gamma1 = int_0^T e^(As) ds B and
         * Gamma2 = int_0^T e^(A(T - t)) B t/T dt */
        int64_t N = n + nu * (m == JG_ANALYSIS_FOH ? 2 : 1);
        F = calloc((size_t)(N * N), sizeof(double));
        E = malloc(sizeof(double) * (size_t)(N * N));
        if (!F || !E) goto nomem;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) F[i + j * N] = s->A[i + j * n] * Ts;
        for (int64_t j = 0; j < nu; j++)
            for (int64_t i = 0; i < n; i++) F[i + (n + j) * N] = s->B[i + j * n] * Ts;
        if (m == JG_ANALYSIS_FOH)
            for (int64_t j = 0; j < nu; j++) F[n + j + (n + nu + j) * N] = 1;
        if ((st = jg_analysis_expm(N, F, E, err))) goto done;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) r->A[i + j * n] = E[i + j * N];
        for (int64_t j = 0; j < nu; j++)
            for (int64_t i = 0; i < n; i++) r->B[i + j * n] = E[i + (n + j) * N];
        if (m == JG_ANALYSIS_FOH) {
            /* x[k+1] = Phi x + (G1 - G2) u[k] + G2 u[k+1] is made causal with
             * xi = x - G2 u: B = G1 + (Phi - I) G2, D = D + C G2 */
            double *G2 = malloc(sizeof(double) * (size_t)(n * nu + 1)), *T = malloc(sizeof(double) * (size_t)(n * nu + ny * nu + 1));
            if (!G2 || !T) {
                free(G2), free(T);
                goto nomem;
            }
            for (int64_t j = 0; j < nu; j++)
                for (int64_t i = 0; i < n; i++) G2[i + j * n] = E[i + (n + nu + j) * N];
            jg__lti_gemm(0, 0, n, nu, n, r->A, n, G2, n, T, n);
            for (int64_t k = 0; k < n * nu; k++) r->B[k] += T[k] - G2[k];
            jg__lti_gemm(0, 0, ny, nu, n, s->C, ny, G2, n, T, ny);
            for (int64_t k = 0; k < ny * nu; k++) r->D[k] += T[k];
            free(G2), free(T);
        }
        goto ok;
    }
    /* Tustin: P = (I - kA)^-1, A_d = P (I + kA), B_d = 2k P B, C_d = C P,
     * D_d = D + k C P B (the same transfer function as MATLAB's balanced form) */
    double k = tustin_k(Ts, prewarp, err, &st);
    if (st) goto done;
    if (tustin_work(n, nu, &F, &E, &Bd)) goto nomem;
    if (inv_shift(n, -k, s->A, F, E)) {   /* E = P */
        st = jg_error_set(err, JG_NUMERIC, "Tustin: I - A T/2 is singular (a pole at s = %g)", 1 / k);
        goto done;
    }
    shift(n, k, s->A, F);
    jg__lti_gemm(0, 0, n, n, n, E, n, F, n, r->A, n);
    jg__lti_gemm(0, 0, n, nu, n, E, n, s->B, n, Bd, n);                /* P B */
    for (int64_t q = 0; q < n * nu; q++) r->B[q] = 2 * k * Bd[q];
    jg__lti_gemm(0, 0, ny, n, n, s->C, ny, E, n, r->C, ny);
    Dd = malloc(sizeof(double) * (size_t)(ny * nu + 1));
    if (!Dd) goto nomem;
    jg__lti_gemm(0, 0, ny, nu, n, s->C, ny, Bd, n, Dd, ny);
    for (int64_t q = 0; q < ny * nu; q++) r->D[q] += k * Dd[q];
ok:
    *out = r;
    r = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    jg_analysis_ss_free(r);
    free(E), free(F), free(Ad), free(Bd), free(Cd), free(Dd);
    return st;
}

jg_status_t jg_analysis_d2c(const jg_analysis_ss_t *s, jg_analysis_c2d_t m, double prewarp,
                            jg_analysis_ss_t **out, jg_error_t *err)
{
    *out = NULL;
    jg_status_t st = check(s, s ? s->Ts : 0, 1, m, err);
    if (st) return st;
    if (m == JG_ANALYSIS_FOH) return jg_error_set(err, JG_ARG, "d2c: foh is not supported (zoh, tustin)");
    int64_t n = s->nx, nu = s->nu, ny = s->ny;
    double Ts = s->Ts;
    jg_analysis_ss_t *r = NULL;
    double *F = NULL, *L = NULL, *Q = NULL, *T = NULL;
    if ((st = jg_analysis_ss_create(n, nu, ny, s->A, s->B, s->C, s->D, 0, &r, err))) return st;
    if (n == 0) goto ok;
    if (m == JG_ANALYSIS_ZOH) {
        /* [A B; 0 0] T = log [Ad Bd; 0 I] */
        int64_t N = n + nu;
        F = calloc((size_t)(N * N), sizeof(double));
        L = malloc(sizeof(double) * (size_t)(N * N));
        if (!F || !L) goto nomem;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) F[i + j * N] = s->A[i + j * n];
        for (int64_t j = 0; j < nu; j++) {
            for (int64_t i = 0; i < n; i++) F[i + (n + j) * N] = s->B[i + j * n];
            F[n + j + (n + j) * N] = 1;
        }
        if ((st = jg_analysis_logm(N, F, L, err))) goto done;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) r->A[i + j * n] = L[i + j * N] / Ts;
        for (int64_t j = 0; j < nu; j++)
            for (int64_t i = 0; i < n; i++) r->B[i + j * n] = L[i + (n + j) * N] / Ts;
        goto ok;
    }
    /* inverse Tustin: Q = (Ad + I)^-1, A = (I - 2Q)/k, B = Q Bd / k,
     * C = 2 Cd Q, D = Dd - Cd Q Bd */
    double k = tustin_k(Ts, prewarp, err, &st);
    if (st) goto done;
    if (tustin_work(n, nu, &F, &Q, &T)) goto nomem;
    if (inv_shift(n, 1, s->A, F, Q)) {
        st = jg_error_set(err, JG_NUMERIC, "d2c (tustin): a pole at z = -1 has no continuous equivalent");
        goto done;
    }
    for (int64_t q = 0; q < n * n; q++) r->A[q] = -2 * Q[q] / k;
    for (int64_t i = 0; i < n; i++) r->A[i + i * n] += 1 / k;
    jg__lti_gemm(0, 0, n, nu, n, Q, n, s->B, n, T, n);
    for (int64_t q = 0; q < n * nu; q++) r->B[q] = T[q] / k;
    jg__lti_gemm(0, 0, ny, n, n, s->C, ny, Q, n, r->C, ny);
    for (int64_t q = 0; q < ny * n; q++) r->C[q] *= 2;
    for (int64_t j = 0; j < nu; j++)   /* D - (Cd Q) Bd = D - (C/2) Bd */
        for (int64_t i = 0; i < ny; i++) {
            double acc = 0;
            for (int64_t l = 0; l < n; l++) acc += r->C[i + l * ny] * s->B[l + j * n];
            r->D[i + j * ny] -= acc / 2;
        }
ok:
    *out = r;
    r = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    jg_analysis_ss_free(r);
    free(F), free(L), free(Q), free(T);
    return st;
}

jg_status_t jg_analysis_d2d(const jg_analysis_ss_t *s, double Ts, jg_analysis_c2d_t m, double prewarp,
                            jg_analysis_ss_t **out, jg_error_t *err)
{
    *out = NULL;
    jg_status_t st = check(s, Ts, 1, m, err);
    if (st) return st;
    if (m == JG_ANALYSIS_FOH) return jg_error_set(err, JG_ARG, "d2d: foh is not supported (zoh, tustin)");
    int64_t n = s->nx, nu = s->nu, ny = s->ny;
    double ratio = Ts / s->Ts, N = round(ratio);
    if (m == JG_ANALYSIS_ZOH && N >= 1 && fabs(ratio - N) <= 1e-9 * ratio) {
        /* an integer multiple: the inputs held over N fast samples,
         * A^N and (I + A + ... + A^(N-1)) B, exact even with poles at 0 */
        jg_analysis_ss_t *r = NULL;
        double *P = malloc(sizeof(double) * (size_t)(n * n + 1)), *T = malloc(sizeof(double) * (size_t)(n * (n + nu) + 1));
        if (!P || !T || (st = jg_analysis_ss_create(n, nu, ny, s->A, s->B, s->C, s->D, Ts, &r, err))) {
            free(P), free(T);
            return st ? st : jg_error_set(err, JG_NOMEM, "out of memory");
        }
        for (int64_t it = 1; it < (int64_t)N; it++) {
            /* B <- A_old^0 B + ... : B_new = A B_cur + B, A_new = A A_cur */
            jg__lti_gemm(0, 0, n, nu, n, s->A, n, r->B, n, T, n);
            for (int64_t q = 0; q < n * nu; q++) r->B[q] = T[q] + s->B[q];
            jg__lti_gemm(0, 0, n, n, n, s->A, n, r->A, n, P, n);
            memcpy(r->A, P, sizeof(double) * (size_t)(n * n));
        }
        free(P), free(T);
        *out = r;
        return JG_OK;
    }
    /* otherwise through continuous time (MATLAB's d2d: d2c, then c2d) */
    jg_analysis_ss_t *c = NULL;
    if ((st = jg_analysis_d2c(s, m, prewarp, &c, err))) return st;
    st = jg_analysis_c2d(c, Ts, m, prewarp, out, err);
    jg_analysis_ss_free(c);
    return st;
}
