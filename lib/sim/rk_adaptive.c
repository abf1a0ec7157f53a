/* Embedded Runge-Kutta pairs (Bogacki-Shampine 3(2), Dormand-Prince 5(4)): ode23 and ode45 with Hairer's
 * starting step and the PI controller of stepctl.c. */
#include <float.h>
#include <math.h>
#include "solver_impl.h"

/* Bogacki & Shampine, Appl. Math. Lett. 2 (1989); dense output: the cubic
 * Hermite interpolant of x0, f0, x1, f1 (f1 is stage 4), as in MATLAB's ntrp23. */
static const double bs_c[] = {0, 0.5, 0.75, 1};
static const double bs_a[] = {0,        0,        0,        0,
                              0.5,      0,        0,        0,
                              0,        0.75,     0,        0,
                              2.0 / 9,  1.0 / 3,  4.0 / 9,  0};
static const double bs_b[] = {2.0 / 9, 1.0 / 3, 4.0 / 9, 0};
static const double bs_e[] = {-5.0 / 72, 1.0 / 12, 1.0 / 9, -1.0 / 8};
static const double bs_d[] = {1, -4.0 / 3, 5.0 / 9,
                              0, 1,        -2.0 / 3,
                              0, 4.0 / 3,  -8.0 / 9,
                              0, -1,       1};
const jg_rk_tableau_t jg__rk_bs23 = {4, 3, 2, 3, 1, 3, bs_c, bs_a, bs_b, bs_e, bs_d};

/* Dormand & Prince, J. Comput. Appl. Math. 6 (1980); dense output of
 * Shampine, Math. Comp. 46 (1986), as in MATLAB's ntrp45. */
static const double dp_c[] = {0, 0.2, 0.3, 0.8, 8.0 / 9, 1, 1};
static const double dp_a[] = {
    0,                0,                0,               0,             0,                 0,         0,
    0.2,              0,                0,               0,             0,                 0,         0,
    3.0 / 40,         9.0 / 40,         0,               0,             0,                 0,         0,
    44.0 / 45,        -56.0 / 15,       32.0 / 9,        0,             0,                 0,         0,
    19372.0 / 6561,   -25360.0 / 2187,  64448.0 / 6561,  -212.0 / 729,  0,                 0,         0,
    9017.0 / 3168,    -355.0 / 33,      46732.0 / 5247,  49.0 / 176,    -5103.0 / 18656,   0,         0,
    35.0 / 384,       0,                500.0 / 1113,    125.0 / 192,   -2187.0 / 6784,    11.0 / 84, 0};
static const double dp_b[] = {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0};
static const double dp_e[] = {71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40};
static const double dp_d[] = {1, -183.0 / 64,    37.0 / 12,     -145.0 / 128,
                              0, 0,              0,             0,
                              0, 1500.0 / 371,   -1000.0 / 159, 1000.0 / 371,
                              0, -125.0 / 32,    125.0 / 12,    -375.0 / 64,
                              0, 9477.0 / 3392,  -729.0 / 106,  25515.0 / 6784,
                              0, -11.0 / 7,      11.0 / 3,      -55.0 / 28,
                              0, 1.5,            -4,            2.5};
const jg_rk_tableau_t jg__rk_dp54 = {7, 5, 4, 4, 1, 4, dp_c, dp_a, dp_b, dp_e, dp_d};

/* Starting step, Hairer, Norsett & Wanner I, II.4 (and their HINIT): one
 * explicit Euler step of the size that changes x by 1% estimates the second
 * derivative; the step is where the local error would be 0.01.  Uses k[1] as
 * scratch; k[0] holds f(t, x). */
static jg_status_t initial_step(jg_solver_t *s, double lim, jg_error_t *err)
{
    const int64_t n = s->n;
    const double *x = s->x, *f0 = s->k[0];
    double *x1 = s->xs, *f1 = s->k[1];
    if (n == 0) {
        s->h = s->hmax;
        return JG_OK;
    }
    double d0 = 0, d1 = 0;
    for (int64_t i = 0; i < n; i++) {
        double sk = s->atol + s->rtol * fabs(x[i]);
        d0 += (x[i] / sk) * (x[i] / sk);
        d1 += (f0[i] / sk) * (f0[i] / sk);
    }
    d0 = sqrt(d0 / (double)n);
    d1 = sqrt(d1 / (double)n);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    /* not clamped to the limit: a limit just ahead (an output point, a sample
     * hit after an event) would make the estimate, and every step after it,
     * tiny; the step taken is clamped, the proposal is not */
    (void)lim;
    h0 = fmin(h0, s->hmax);
    h0 = fmax(h0, 64 * DBL_EPSILON * fmax(fabs(s->t), 1e-300));
    for (int64_t i = 0; i < n; i++) x1[i] = x[i] + h0 * f0[i];
    int r = jg__rk_call(s, s->t + h0, x1, f1);
    if (r < 0) return jg__rk_rhs_error(s, s->t + h0, r, err);
    if (r > 0) {   /* no curvature estimate: start with the cautious h0 */
        jg_error_clear(err);
        s->h = h0;
        return JG_OK;
    }
    double d2 = 0;
    for (int64_t i = 0; i < n; i++) {
        double sk = s->atol + s->rtol * fabs(x[i]);
        d2 += ((f1[i] - f0[i]) / sk) * ((f1[i] - f0[i]) / sk);
    }
    d2 = sqrt(d2 / (double)n) / h0;
    double dm = fmax(d1, d2);
    double h1 = dm <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / dm, 1.0 / (s->tab->err_order + 1));
    s->h = fmin(fmin(100 * h0, h1), s->hmax);
    return JG_OK;
}

/* The error estimate err = h sum_l e_l k_l of a step of h, into s->xs (free
 * once the stages are done), and its norm. */
static double error_norm(jg_solver_t *s, double h)
{
    const jg_rk_tableau_t *tb = s->tab;
    double *v = s->xs;
    for (int64_t j = 0; j < s->n; j++) {
        double e = 0;
        for (int l = 0; l < tb->stages; l++) e += tb->e[l] * s->k[l][j];
        v[j] = h * e;
    }
    return jg__stepctl_norm(s, v, s->x, s->xnew);
}

/* The PI controller of stepctl.c with k = 3 (ode23) and 5 (ode45). */
static const jg__stepctl_t ctl_bs23 = {.k = 3, .pi = 1, .safety = 0.8, .fac_min = 0.2, .fac_max = 5, .rej_min = 0.2};
static const jg__stepctl_t ctl_dp54 = {.k = 5, .pi = 1, .safety = 0.8, .fac_min = 0.2, .fac_max = 5, .rej_min = 0.2};

jg_status_t jg__rk_step_adaptive(jg_solver_t *s, double lim, jg_error_t *err)
{
    const jg__stepctl_t *ctl = s->ops->ctl;
    jg_status_t st = jg__rk_first_stage(s, err);
    if (st) return st;
    if (!(s->h > 0) && (st = initial_step(s, lim, err))) return st;
    double h = fmin(s->h, s->hmax);
    int failed = 0;   /* a rejection in this step: no growth after it */
    for (;;) {
        double hh, tnew, tf;
        int clipped;
        if ((st = jg__stepctl_attempt(s, h, lim, &hh, &tnew, &clipped, err))) return st;
        int r = jg__rk_attempt(s, hh, tnew, &tf);
        if (r < 0) return jg__rk_rhs_error(s, tf, r, err);
        if (r > 0) {
            jg_error_clear(err);
            s->stats.rejected++;
            failed = 1;
            h = 0.5 * hh;
            continue;
        }
        double en = error_norm(s, hh);
        if (en <= 1) {
            jg__stepctl_accepted(ctl, s, en, h, hh, clipped, failed);
            jg__rk_accept(s, tnew, hh);
            return JG_OK;
        }
        s->stats.rejected++;
        h = jg__stepctl_rejected(ctl, en, hh, failed);
        failed = 1;
    }
}

const jg__solver_ops_t jg__ode23_ops = {
    .name = "ode23", .tab = &jg__rk_bs23, .ctl = &ctl_bs23,
    .step = jg__rk_step_adaptive, .interpolate = jg__rk_interpolate,
};
const jg__solver_ops_t jg__ode45_ops = {
    .name = "ode45", .tab = &jg__rk_dp54, .ctl = &ctl_dp54,
    .step = jg__rk_step_adaptive, .interpolate = jg__rk_interpolate,
};
