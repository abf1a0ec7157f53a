/* Frequency responses H(s) = C (sI - A)^-1 B + D of a linear model: A
 * reduced once to upper Hessenberg form H = Q' A Q (LAPACK dgehrd/dorghr),
 * then per frequency a Hessenberg LU solve, O(n^2) per right-hand side
 * instead of the O(n^3) of a dense factorization.  Also the frequency grid
 * from the poles and zeros and the Bode form (dB, unwrapped degrees). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

struct jg__lti_hess {
    int64_t n, m, p;
    double *H, *B, *C, *D;   /* Q' A Q, Q' B, C Q, D */
    double complex *M, *X;   /* scratch: sI - H and the right-hand sides */
};

void jg__lti_hess_free(jg__lti_hess_t *h)
{
    if (!h) return;
    free(h->H), free(h->B), free(h->C), free(h->D), free(h->M), free(h->X);
    free(h);
}

jg__lti_hess_t *jg__lti_hess_create(const jg_analysis_ss_t *s)
{
    int64_t n = s->nx, m = s->nu, p = s->ny;
    jg__lti_hess_t *h = calloc(1, sizeof *h);
    double *tau = malloc(sizeof(double) * (size_t)(n + 1)), *Q = malloc(sizeof(double) * (size_t)(n * n + 1));
    if (!h || !tau || !Q) goto fail;
    h->n = n, h->m = m, h->p = p;
    h->H = malloc(sizeof(double) * (size_t)(n * n + 1));
    h->B = malloc(sizeof(double) * (size_t)(n * m + 1));
    h->C = malloc(sizeof(double) * (size_t)(p * n + 1));
    h->D = malloc(sizeof(double) * (size_t)(p * m + 1));
    h->M = malloc(sizeof(double complex) * (size_t)(n * n + 1));
    h->X = malloc(sizeof(double complex) * (size_t)(n * m + 1));
    if (!h->H || !h->B || !h->C || !h->D || !h->M || !h->X) goto fail;
    memcpy(h->H, s->A, sizeof(double) * (size_t)(n * n));
    memcpy(h->D, s->D, sizeof(double) * (size_t)(p * m));
    if (n > 0) {
        if (LAPACKE_dgehrd(LAPACK_COL_MAJOR, (lapack_int)n, 1, (lapack_int)n, h->H, (lapack_int)n, tau)) goto fail;
        memcpy(Q, h->H, sizeof(double) * (size_t)(n * n));
        if (LAPACKE_dorghr(LAPACK_COL_MAJOR, (lapack_int)n, 1, (lapack_int)n, Q, (lapack_int)n, tau)) goto fail;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j + 2; i < n; i++) h->H[i + j * n] = 0;   /* the reflectors */
        jg__lti_gemm(1, 0, n, m, n, Q, n, s->B, n, h->B, n);
        jg__lti_gemm(0, 0, p, n, n, s->C, p, Q, n, h->C, p);
    }
    free(tau);
    free(Q);
    return h;
fail:
    free(tau);
    free(Q);
    jg__lti_hess_free(h);
    return NULL;
}

int jg__lti_hess_eval(jg__lti_hess_t *h, double complex s, double complex *G)
{
    int64_t n = h->n, m = h->m, p = h->p;
    double complex *M = h->M, *X = h->X;
    double scale = cabs(s);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            M[i + j * n] = (i == j ? s : 0) - h->H[i + j * n];
            scale = fmax(scale, fabs(h->H[i + j * n]));
        }
    for (int64_t k = 0; k < n * m; k++) X[k] = h->B[k];
    /* LU with partial pivoting: only rows k and k+1 compete */
    for (int64_t k = 0; k + 1 < n; k++) {
        if (cabs(M[k + 1 + k * n]) > cabs(M[k + k * n])) {
            for (int64_t j = k; j < n; j++) {
                double complex t = M[k + j * n];
                M[k + j * n] = M[k + 1 + j * n];
                M[k + 1 + j * n] = t;
            }
            for (int64_t j = 0; j < m; j++) {
                double complex t = X[k + j * n];
                X[k + j * n] = X[k + 1 + j * n];
                X[k + 1 + j * n] = t;
            }
        }
        if (M[k + k * n] == 0) continue;
        double complex l = M[k + 1 + k * n] / M[k + k * n];
        for (int64_t j = k + 1; j < n; j++) M[k + 1 + j * n] -= l * M[k + j * n];
        for (int64_t j = 0; j < m; j++) X[k + 1 + j * n] -= l * X[k + j * n];
    }
    for (int64_t k = 0; k < n; k++)
        if (cabs(M[k + k * n]) <= (double)n * DBL_EPSILON * scale) {
            for (int64_t q = 0; q < p * m; q++) G[q] = INFINITY;
            return 1;
        }
    for (int64_t j = 0; j < m; j++)
        for (int64_t k = n - 1; k >= 0; k--) {
            double complex acc = X[k + j * n];
            for (int64_t l = k + 1; l < n; l++) acc -= M[k + l * n] * X[l + j * n];
            X[k + j * n] = acc / M[k + k * n];
        }
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < p; i++) {
            double complex acc = h->D[i + j * p];
            for (int64_t l = 0; l < n; l++) acc += h->C[i + l * p] * X[l + j * n];
            G[i + j * p] = acc;
        }
    return 0;
}

jg_status_t jg_analysis_freqresp(const jg_analysis_ss_t *s, int64_t nw, const double *w, double *Hre,
                                 double *Him, jg_error_t *err)
{
    if (!s || nw < 0 || (nw && (!w || !Hre || !Him)))
        return jg_error_set(err, JG_ARG, "jg_analysis_freqresp: bad argument");
    int64_t nc = s->nu * s->ny;
    jg__lti_hess_t *h = jg__lti_hess_create(s);
    double complex *G = malloc(sizeof(double complex) * (size_t)(nc + 1));
    jg_status_t st = JG_OK;
    if (!h || !G) {
        st = jg_error_set(err, JG_NOMEM, "out of memory (or Hessenberg reduction failed)");
        goto done;
    }
    for (int64_t k = 0; k < nw; k++) {
        double complex z = s->Ts > 0 ? cexp(I * w[k] * s->Ts) : I * w[k];
        jg__lti_hess_eval(h, z, G);
        for (int64_t c = 0; c < nc; c++) {
            Hre[c * nw + k] = creal(G[c]);
            Him[c * nw + k] = cimag(G[c]);
        }
    }
done:
    jg__lti_hess_free(h);
    free(G);
    return st;
}

jg_status_t jg_analysis_bode(const jg_analysis_ss_t *s, int64_t nw, const double *w, double *mag_db,
                             double *phase_deg, jg_error_t *err)
{
    if (!s || nw < 0) return jg_error_set(err, JG_ARG, "jg_analysis_bode: bad argument");
    int64_t nc = s->nu * s->ny;
    double *re = malloc(sizeof(double) * (size_t)(nc * nw + 1)), *im = malloc(sizeof(double) * (size_t)(nc * nw + 1));
    jg_status_t st = JG_OK;
    if (!re || !im) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if ((st = jg_analysis_freqresp(s, nw, w, re, im, err))) goto done;
    jg__lti_bode_form(nc, nw, re, im, mag_db, phase_deg);
done:
    free(re);
    free(im);
    return st;
}

void jg__lti_bode_form(int64_t nc, int64_t nw, const double *re, const double *im, double *mag, double *phase)
{
    for (int64_t c = 0; c < nc; c++) {
        double prev = NAN;
        for (int64_t k = 0; k < nw; k++) {
            double a = re[c * nw + k], b = im[c * nw + k];
            if (mag) mag[c * nw + k] = 20 * log10(hypot(a, b));
            double ph = isfinite(a) && isfinite(b) ? atan2(b, a) * (180 / M_PI) : NAN;
            if (ph == -180) ph = 180;   /* (-180, 180] */
            if (isfinite(ph) && isfinite(prev)) ph -= 360 * round((ph - prev) / 360);
            if (isfinite(ph)) prev = ph;
            if (phase) phase[c * nw + k] = ph;
        }
    }
}

/* natural frequency of a root for the grid (0: none) */
static double break_freq(double re, double im, double Ts)
{
    double wn, z;
    jg_analysis_damp(re, im, Ts, &wn, &z);
    return isfinite(wn) ? wn : 0;
}

void jg_analysis_freqgrid(int64_t np, const double *pre, const double *pim, int64_t nz, const double *zre,
                          const double *zim, double Ts, int64_t n, double *w)
{
    double lo = INFINITY, hi = 0;
    for (int64_t k = 0; k < np + nz; k++)
        hi = fmax(hi, k < np ? break_freq(pre[k], pim[k], Ts) : break_freq(zre[k - np], zim[k - np], Ts));
    for (int64_t k = 0; k < np + nz; k++) {
        double f = k < np ? break_freq(pre[k], pim[k], Ts) : break_freq(zre[k - np], zim[k - np], Ts);
        if (f > 1e-10 * hi) lo = fmin(lo, f);   /* a root at 0 (or 1e-16 from rounding) has no corner */
    }
    double a, b;   /* decades */
    if (hi > 0) {
        /* a root at exactly 1 rad/s may come out as 1 - 1e-16: no extra decade */
        a = floor(log10(lo) + 1e-9) - 1;
        b = ceil(log10(hi) - 1e-9) + 1;
    } else {
        a = -1, b = 1;
    }
    if (Ts > 0) {
        b = log10(M_PI / Ts);
        if (a > b - 2) a = floor(b) - 2;
    }
    if (b - a < 2) b = a + 2;
    if (n < 2) n = 2;
    for (int64_t k = 0; k < n; k++) w[k] = pow(10, a + (b - a) * (double)k / (double)(n - 1));
    if (Ts > 0) w[n - 1] = M_PI / Ts;   /* exactly Nyquist */
}
