/* Step and impulse responses of a linear model, exact at the samples: the
 * zero-order-hold discretization e^([A B; 0 0] h) of a continuous model,
 * the recursion itself for a discrete one; and a horizon from the poles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

double jg_analysis_tfinal(int64_t np, const double *pre, const double *pim, double Ts)
{
    double slow = INFINITY, grow = 0, period = 0;
    for (int64_t k = 0; k < np; k++) {
        double re = pre[k], im = pim[k];
        if (Ts > 0) {   /* the continuous equivalent, log(z) / Ts */
            double r = hypot(re, im);
            if (r == 0) continue;   /* dead-beat: gone after one sample */
            double a = atan2(im, re);
            re = log(r) / Ts;
            im = a / Ts;
        }
        double wn = hypot(re, im);
        if (re < -1e-9 * fmax(wn, 1e-300)) slow = fmin(slow, -re);
        else if (re > 1e-9 * wn) grow = fmax(grow, re);
        else if (fabs(im) > 0) period = fmax(period, 2 * M_PI / fabs(im));
    }
    double tf = isfinite(slow) ? 8 / slow : 0;
    if (grow > 0) tf = tf > 0 ? fmin(tf, 5 / grow) : 5 / grow;
    if (period > 0) tf = fmax(tf, 10 * period);
    if (!(tf > 0)) tf = Ts > 0 ? 50 * Ts : 10;
    if (Ts > 0) {
        double k = ceil(tf / Ts - 1e-9);
        if (k < 10) k = 10;
        if (k > 10000) k = 10000;
        tf = k * Ts;
    }
    return tf;
}

jg_status_t jg_analysis_timeresp(const jg_analysis_ss_t *s, jg_analysis_resp_t kind, double tfinal, int64_t nt,
                                 double *t, double *Y, jg_error_t *err)
{
    if (!s || !t || !Y) return jg_error_set(err, JG_ARG, "jg_analysis_timeresp: NULL argument");
    if (nt < 2 || !(tfinal > 0) || !isfinite(tfinal))
        return jg_error_set(err, JG_ARG, "time response: need at least 2 samples and a final time > 0 (got %lld, %g)",
                            (long long)nt, tfinal);
    int64_t n = s->nx, m = s->nu, p = s->ny, N = n + m;
    jg_status_t st = JG_OK;
    double h = s->Ts > 0 ? s->Ts : tfinal / (double)(nt - 1);
    double *Ad = malloc(sizeof(double) * (size_t)(n * n + 1)), *Bd = malloc(sizeof(double) * (size_t)(n * m + 1));
    double *Mx = calloc((size_t)(N * N + 1), sizeof(double)), *E = malloc(sizeof(double) * (size_t)(N * N + 1));
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *xn = malloc(sizeof(double) * (size_t)(n + 1));
    if (!Ad || !Bd || !Mx || !E || !x || !xn) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if (s->Ts > 0) {
        memcpy(Ad, s->A, sizeof(double) * (size_t)(n * n));
        memcpy(Bd, s->B, sizeof(double) * (size_t)(n * m));
    } else {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) Mx[i + j * N] = s->A[i + j * n] * h;
        for (int64_t j = 0; j < m; j++)
            for (int64_t i = 0; i < n; i++) Mx[i + (n + j) * N] = s->B[i + j * n] * h;
        if ((st = jg_analysis_expm(N, Mx, E, err))) goto done;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) Ad[i + j * n] = E[i + j * N];
        for (int64_t j = 0; j < m; j++)
            for (int64_t i = 0; i < n; i++) Bd[i + j * n] = E[i + (n + j) * N];
    }
    for (int64_t k = 0; k < nt; k++) t[k] = (double)k * h;
    for (int64_t j = 0; j < m; j++) {
        const double *b = s->B + j * n, *bd = Bd + j * n;
        /* step: u = 1 throughout; continuous impulse: x(0+) = B, u = 0;
         * discrete impulse: u[0] = 1/Ts, then 0 */
        double u0 = kind == JG_ANALYSIS_STEP ? 1 : s->Ts > 0 ? 1 / s->Ts : 0;
        double u1 = kind == JG_ANALYSIS_STEP ? 1 : 0;
        for (int64_t l = 0; l < n; l++) x[l] = kind == JG_ANALYSIS_IMPULSE && !(s->Ts > 0) ? b[l] : 0;
        for (int64_t k = 0; k < nt; k++) {
            double u = k == 0 ? u0 : u1;
            for (int64_t i = 0; i < p; i++) {
                double acc = s->D[i + j * p] * u;
                for (int64_t l = 0; l < n; l++) acc += s->C[i + l * p] * x[l];
                Y[(j * p + i) * nt + k] = acc;
            }
            for (int64_t i = 0; i < n; i++) {
                double acc = bd[i] * u;
                for (int64_t l = 0; l < n; l++) acc += Ad[i + l * n] * x[l];
                xn[i] = acc;
            }
            memcpy(x, xn, sizeof(double) * (size_t)n);
        }
    }
done:
    free(Ad), free(Bd), free(Mx), free(E), free(x), free(xn);
    return st;
}
