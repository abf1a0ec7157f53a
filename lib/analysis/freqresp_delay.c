/* The exact frequency response of a linearization result with internal
 * delays (jg_lin_sys_t.ndelays > 0): the delay-free H, whose last nd inputs
 * w and outputs z are the delay channels, closed at each frequency by
 * w = E z with E = diag(e^(-jw tau_k)):
 *     G(jw) = H11 + H12 E (I - H22 E)^-1 H21       (a lower LFT),
 * H evaluated by the Hessenberg solve of freqresp.c, then one nd x nd
 * complex LU per frequency.  Also the frequency grid for such a model. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "lti_impl.h"

/* X <- M^-1 X for the n x n M (destroyed) and n x m X, Gaussian elimination
 * with partial pivoting; 1 when M is singular at working precision. */
static int csolve(int64_t n, int64_t m, double complex *M, double complex *X)
{
    double scale = 0;
    for (int64_t k = 0; k < n * n; k++) scale = fmax(scale, cabs(M[k]));
    for (int64_t k = 0; k < n; k++) {
        int64_t piv = k;
        for (int64_t i = k + 1; i < n; i++)
            if (cabs(M[i + k * n]) > cabs(M[piv + k * n])) piv = i;
        if (!(cabs(M[piv + k * n]) > (double)n * DBL_EPSILON * scale)) return 1;
        if (piv != k) {
            for (int64_t j = 0; j < n; j++) {
                double complex t = M[k + j * n];
                M[k + j * n] = M[piv + j * n], M[piv + j * n] = t;
            }
            for (int64_t j = 0; j < m; j++) {
                double complex t = X[k + j * n];
                X[k + j * n] = X[piv + j * n], X[piv + j * n] = t;
            }
        }
        for (int64_t i = k + 1; i < n; i++) {
            double complex l = M[i + k * n] / M[k + k * n];
            if (l == 0) continue;
            for (int64_t j = k + 1; j < n; j++) M[i + j * n] -= l * M[k + j * n];
            for (int64_t j = 0; j < m; j++) X[i + j * n] -= l * X[k + j * n];
        }
    }
    for (int64_t j = 0; j < m; j++)
        for (int64_t k = n - 1; k >= 0; k--) {
            double complex acc = X[k + j * n];
            for (int64_t l = k + 1; l < n; l++) acc -= M[k + l * n] * X[l + j * n];
            X[k + j * n] = acc / M[k + k * n];
        }
    return 0;
}

static jg_status_t check_sys(const jg_lin_sys_t *s, const char *fn, jg_error_t *err)
{
    if (!s) return jg_error_set(err, JG_ARG, "%s: NULL argument", fn);
    int64_t nd = s->ndelays;
    if (nd < 0 || nd > s->nu || nd > s->ny || (nd && !s->delays))
        return jg_error_set(err, JG_ARG, "%s: %lld internal delays with %lld inputs and %lld outputs", fn,
                            (long long)nd, (long long)s->nu, (long long)s->ny);
    for (int64_t k = 0; k < nd; k++)
        if (!(s->delays[k] >= 0) || !isfinite(s->delays[k]))
            return jg_error_set(err, JG_ARG, "%s: internal delay %lld is %g s", fn, (long long)k + 1, s->delays[k]);
    if (nd && s->Ts > 0)
        return jg__lti_delays_refuse(s, "internal delays are continuous-time only (the model is discrete)", err);
    return JG_OK;
}

jg_status_t jg_analysis_lin_freqresp(const jg_lin_sys_t *s, int64_t nw, const double *w, double *Gre, double *Gim,
                                     jg_error_t *err)
{
    jg_status_t st = check_sys(s, "jg_analysis_lin_freqresp", err);
    if (st) return st;
    if (nw < 0 || (nw && (!w || !Gre || !Gim)))
        return jg_error_set(err, JG_ARG, "jg_analysis_lin_freqresp: bad argument");
    int64_t nd = s->ndelays, nu = s->nu, ny = s->ny, mu = nu - nd, py = ny - nd;
    jg_analysis_ss_t *h = NULL;
    jg__lti_hess_t *hs = NULL;
    double complex *H = NULL, *M = NULL, *X = NULL, *e = NULL;
    if ((st = jg__lti_from_lin(s, s->Ts, &h, err))) return st;
    hs = jg__lti_hess_create(h);
    H = malloc(sizeof *H * (size_t)(nu * ny + 1));
    M = malloc(sizeof *M * (size_t)(nd * nd + 1));
    X = malloc(sizeof *X * (size_t)(nd * mu + 1));
    e = malloc(sizeof *e * (size_t)(nd + 1));
    if (!hs || !H || !M || !X || !e) {
        st = jg_error_set(err, JG_NOMEM, "out of memory (or Hessenberg reduction failed)");
        goto done;
    }
    for (int64_t k = 0; k < nw; k++) {
        double complex z = s->Ts > 0 ? cexp(I * w[k] * s->Ts) : I * w[k];
        /* at a pole of H (rare on a grid) the closed loop is left as +inf:
         * H is not finite there to close it */
        int sing = jg__lti_hess_eval(hs, z, H);
        if (!sing && nd) {
            for (int64_t q = 0; q < nd; q++) e[q] = cexp(-I * w[k] * s->delays[q]);
            /* M = I - H22 E, X = H21 */
            for (int64_t q = 0; q < nd; q++)
                for (int64_t i = 0; i < nd; i++)
                    M[i + q * nd] = (i == q) - H[py + i + (mu + q) * ny] * e[q];
            for (int64_t j = 0; j < mu; j++)
                for (int64_t i = 0; i < nd; i++) X[i + j * nd] = H[py + i + j * ny];
            sing = csolve(nd, mu, M, X);
            /* H11 += H12 E X */
            for (int64_t j = 0; j < mu && !sing; j++)
                for (int64_t i = 0; i < py; i++) {
                    double complex acc = 0;
                    for (int64_t q = 0; q < nd; q++) acc += H[i + (mu + q) * ny] * e[q] * X[q + j * nd];
                    H[i + j * ny] += acc;
                }
        }
        for (int64_t j = 0; j < mu; j++)
            for (int64_t i = 0; i < py; i++) {
                int64_t c = j * py + i;
                Gre[c * nw + k] = sing ? INFINITY : creal(H[i + j * ny]);
                Gim[c * nw + k] = sing ? INFINITY : cimag(H[i + j * ny]);
            }
    }
done:
    jg__lti_hess_free(hs);
    jg_analysis_ss_free(h);
    free(H), free(M), free(X), free(e);
    return st;
}

jg_status_t jg_analysis_lin_bode(const jg_lin_sys_t *s, int64_t nw, const double *w, double *mag_db,
                                 double *phase_deg, jg_error_t *err)
{
    jg_status_t st = check_sys(s, "jg_analysis_lin_bode", err);
    if (st) return st;
    if (nw < 0) return jg_error_set(err, JG_ARG, "jg_analysis_lin_bode: bad argument");
    int64_t nc = (s->nu - s->ndelays) * (s->ny - s->ndelays);
    double *re = malloc(sizeof(double) * (size_t)(nc * nw + 1)), *im = malloc(sizeof(double) * (size_t)(nc * nw + 1));
    if (!re || !im) st = jg_error_set(err, JG_NOMEM, "out of memory");
    else if (!(st = jg_analysis_lin_freqresp(s, nw, w, re, im, err)))
        jg__lti_bode_form(nc, nw, re, im, mag_db, phase_deg);
    free(re);
    free(im);
    return st;
}

jg_status_t jg_analysis_lin_freqgrid(const jg_lin_sys_t *s, int64_t n, double *w, jg_error_t *err)
{
    jg_status_t st = check_sys(s, "jg_analysis_lin_freqgrid", err);
    if (st) return st;
    if (n < 2 || !w) return jg_error_set(err, JG_ARG, "jg_analysis_lin_freqgrid: bad argument");
    int64_t nx = s->nx, nd = s->ndelays;
    jg_analysis_ss_t *h = NULL;
    double *re = malloc(sizeof(double) * (size_t)(nx + nd + 1)), *im = malloc(sizeof(double) * (size_t)(nx + nd + 1));
    if (!re || !im) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if ((st = jg__lti_from_lin(s, s->Ts, &h, err))) goto done;
    int e = jg__lti_eig(nx, h->A, re, im);
    if (e) {
        st = e < 0 ? jg_error_set(err, JG_NOMEM, "out of memory")
                   : jg_error_set(err, JG_NUMERIC, "eigenvalues of A: no convergence");
        goto done;
    }
    /* a delay's phase turns at tau rad per rad/s: its corner is 1/tau */
    int64_t nr = nx;
    double tmax = 0;
    for (int64_t k = 0; k < nd; k++) {
        tmax = fmax(tmax, s->delays[k]);
        if (s->delays[k] > 0) re[nr] = -1 / s->delays[k], im[nr++] = 0;
    }
    jg_analysis_freqgrid(nr, re, im, 0, NULL, NULL, s->Ts, n, w);
    /* the unwrapped phase needs steps below 180 degrees: end the grid where
     * the longest delay turns by more than 90 degrees between two points */
    double a = log10(w[0]), b = log10(w[n - 1]);
    while (tmax > 0 && b - a > 1) {
        double r = pow(10, (b - a) / (double)(n - 1));
        if (tmax * pow(10, b) * (r - 1) < M_PI / 2) break;
        b -= 0.25;
    }
    if (b < log10(w[n - 1]))
        for (int64_t k = 0; k < n; k++) w[k] = pow(10, a + (b - a) * (double)k / (double)(n - 1));
done:
    jg_analysis_ss_free(h);
    free(re), free(im);
    return st;
}
