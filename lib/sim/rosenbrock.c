/* ode23s: the modified Rosenbrock 2(3) pair of Shampine & Reichelt, "The MATLAB
 * ODE Suite", SIAM J. Sci. Comput. 18 (1997), section 3, with its continuous
 * extension and step-size control (MATLAB's ode23s and ntrp23s).
 *
 * With d = 1/(2 + sqrt 2), e32 = 6 + sqrt 2, W = I - h d J, J = df/dx and
 * T = df/dt at (t, x), F0 = f(t, x):
 *   k1 = W^-1 (F0 + h d T)
 *   F1 = f(t + h/2, x + h/2 k1),      k2 = W^-1 (F1 - k1) + k1
 *   xnew = x + h k2,                  F2 = f(t + h, xnew)
 *   k3 = W^-1 (F2 - e32 (k2 - F1) - 2 (k1 - F0) + h d T)
 *   error estimate h/6 (k1 - 2 k2 + k3)
 * xnew is second order (and stays so with an approximate J: a W-method);
 * the estimate is third order.  F2 is the next step's F0 (FSAL-like), so an
 * accepted step costs 2 evaluations of f, one more for T, a Jacobian and one
 * LU of W; a rejected one re-forms W with the new h on the same J and T.
 * A new Jacobian every step, as Simulink, "Choose a Jacobian Method" says
 * of ode23s: J is evaluated at the start of each step (lazily, so not after
 * the last one).
 *
 * T by a forward difference in t (MATLAB's): the models are non-autonomous in
 * general, and a difference costs one evaluation where a check for
 * autonomy would cost the same.
 *
 * Error norm: the library's (jg__stepctl_norm, solver.h), the RMS of err_i /
 * (atol + rtol max(|x_i|, |xnew_i|)), so that a tolerance means the same for
 * every solver; MATLAB's ode23s takes the max norm of err_i / max(|x_i|,
 * |xnew_i|, atol/rtol) against rtol.  Step control is stepctl.c's with
 * MATLAB's ode23s parameters, the elementary controller with exponent 1/3:
 * after an accepted step h 0.8 en^(-1/3) (at most 5 h), no growth after a
 * rejection; the first rejection retries with h max(0.5, 0.8 en^(-1/3)),
 * later ones halve.  Clamping at the limit, the too-small test and the
 * handling of f failures are rk_adaptive.c's. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "implicit.h"

#define D_GAMMA 0.29289321881345247560   /* 1 / (2 + sqrt 2) */
#define E32 7.41421356237309504880       /* 6 + sqrt 2 */

typedef struct ode23s {
    jg__implicit_t im;
    double *f0, *f1, *f2, *T, *k1, *k2, *k3, *mem;   /* n each */
    int have_f0;    /* f0 = f(t, x) */
    int have_jac;   /* J and T at (t, x) */
} ode23s_t;

static jg_status_t create(jg_solver_t *s, jg_error_t *err)
{
    size_t len = s->n ? (size_t)s->n : 1;
    ode23s_t *m = calloc(1, sizeof *m);
    double *mem = m ? malloc(7 * len * sizeof(double)) : NULL;
    if (!mem) {
        free(m);
        return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for %lld states", s->name, (long long)s->n);
    }
    memset(mem, 0, 7 * len * sizeof(double));
    m->mem = mem;
    double **v[] = {&m->f0, &m->f1, &m->f2, &m->T, &m->k1, &m->k2, &m->k3};
    for (size_t i = 0; i < 7; i++) *v[i] = mem + i * len;
    jg__implicit_create(&m->im, s, 0);
    s->impl = m;
    return JG_OK;
}

static void destroy(jg_solver_t *s)
{
    ode23s_t *m = s->impl;
    if (!m) return;
    jg__implicit_free(&m->im);
    free(m->mem);
    free(m);
    s->impl = NULL;
}

/* A fresh point (init, reset): nothing of the old one is valid.  The
 * structure is checked here so that a bad pattern fails at init. */
static jg_status_t restart(jg_solver_t *s, jg_error_t *err)
{
    ode23s_t *m = s->impl;
    m->have_f0 = m->have_jac = 0;
    return jg__implicit_prepare(&m->im, s, NULL, err);
}

/* MATLAB's ode23s controller (stepctl.c). */
static const jg__stepctl_t ctl_ode23s = {.k = 3, .safety = 0.8, .fac_min = 0.2, .fac_max = 5, .rej_min = 0.5,
                                         .halve_again = 1, .hold_after_fail = 1};

/* J and T = df/dt at (t, x) for a step of about h.  The time increment is
 * MATLAB's, sqrt(eps) max(|t|, |t + h|) but no more than h; when f rejects
 * t + del the difference is taken backwards, and T = 0 when it rejects that
 * too (a model valid only up to t). */
static jg_status_t jacobian(jg_solver_t *s, ode23s_t *m, double h, jg_error_t *err)
{
    const int64_t n = s->n;
    const double t = s->t;
    double del = (t + fmin(sqrt(DBL_EPSILON) * fmax(fabs(t), fabs(t + h)), h)) - t;
    int r = 1;
    for (int tries = 0; tries < 2 && r > 0 && del > 0; tries++) {
        double tt = tries ? t - del : t + del;
        r = jg__rk_call(s, tt, s->x, m->f1);
        if (r < 0) return jg__rk_rhs_error(s, tt, r, err);
        if (r == 0)
            for (int64_t i = 0; i < n; i++) m->T[i] = (tries ? m->f0[i] - m->f1[i] : m->f1[i] - m->f0[i]) / del;
    }
    if (r != 0) memset(m->T, 0, sizeof(double) * (size_t)(n ? n : 1));
    jg_error_clear(err);   /* notes of rejected tries */
    jg_status_t st = jg__implicit_jacobian(&m->im, s, t, s->x, m->f0, h, err);
    if (st) return st;
    m->have_jac = 1;
    return JG_OK;
}

/* Starting step, MATLAB's ode23s: the step that keeps h |x'| within rtol^(1/3)
 * of the scale (a first-order change), then the rule of thumb that the
 * first-order Taylor error h^2/2 |x''| with x'' = T + J f0 be 0.8^2 of the
 * tolerance; in the library's norm (rtol |x_i| + atol in place of MATLAB's
 * rtol max(|x_i|, atol/rtol)).  Evaluates J and T for the first step.  Not
 * clamped to the limit (see rk_adaptive.c). */
static jg_status_t initial_step(jg_solver_t *s, ode23s_t *m, jg_error_t *err)
{
    const int64_t n = s->n;
    const double hmin = 16 * DBL_EPSILON * fabs(s->t);
    double absh = fmin(s->hmax, s->tstop - s->t);
    double rh = pow(s->rtol, 2.0 / 3) / 0.8 * jg__stepctl_norm(s, m->f0, s->x, s->x);
    if (absh * rh > 1) absh = 1 / rh;
    if (!isfinite(absh)) absh = 1e-6 * fmax(1, fabs(s->t));   /* x' = 0 on an endless run: any start */
    absh = fmax(absh, hmin);
    jg_status_t st = jacobian(s, m, absh, err);
    if (st) return st;
    double *ypp = m->k1;   /* x'' = T + J f0 */
    memcpy(ypp, m->T, sizeof(double) * (size_t)n);
    const cs_dl *J = m->im.J;
    for (int64_t j = 0; j < n; j++)
        for (int64_t k = J->p[j]; k < J->p[j + 1]; k++) ypp[J->i[k]] += J->x[k] * m->f0[j];
    rh = 1.25 * sqrt(0.5 * jg__stepctl_norm(s, ypp, s->x, s->x));
    if (absh * rh > 1) absh = 1 / rh;
    s->h = fmax(absh, hmin);
    return JG_OK;
}

static jg_status_t step(jg_solver_t *s, double lim, jg_error_t *err)
{
    ode23s_t *m = s->impl;
    const int64_t n = s->n;
    int rebuilt, r;
    jg_status_t st = jg__implicit_prepare(&m->im, s, &rebuilt, err);
    if (st) return st;
    if (rebuilt) m->have_jac = 0;   /* jg_solver_set_jacobian since: another J */
    s->tprev = s->t;   /* k1 and k2 of the last step are about to be overwritten */
    s->hlast = 0;
    if (!m->have_f0) {
        r = jg__rk_call(s, s->t, s->x, m->f0);
        if (r < 0) return jg__rk_rhs_error(s, s->t, r, err);
        if (r > 0)
            return jg_error_set(err, JG_NUMERIC,
                                "solver '%s': right-hand side rejected the current state at t = %.17g "
                                "(returned %d), no smaller step can help", s->name, s->t, r);
        m->have_f0 = 1;
    }
    if (!(s->h > 0) && (st = initial_step(s, m, err))) return st;
    double h = fmin(s->h, s->hmax);
    if (!m->have_jac && (st = jacobian(s, m, h, err))) return st;
    const double *x = s->x, *f0 = m->f0, *T = m->T;
    double *f1 = m->f1, *f2 = m->f2, *k1 = m->k1, *k2 = m->k2, *k3 = m->k3, *xs = s->xs, *xnew = s->xnew;
    int failed = 0;   /* a rejection in this step: no growth after it, and halving */
    for (;;) {
        double hh, tnew;
        int clipped;
        if ((st = jg__stepctl_attempt(s, h, lim, &hh, &tnew, &clipped, err))) return st;
        const double hd = hh * D_GAMMA;
        int singular;
        if ((st = jg__implicit_factor(&m->im, s, hd, &singular, err))) return st;
        if (singular) {   /* h d hit 1 / an eigenvalue of J: another h avoids it */
            r = 1;
            goto reject_half;
        }
        for (int64_t i = 0; i < n; i++) k1[i] = f0[i] + hd * T[i];
        jg__implicit_solve(&m->im, k1);
        for (int64_t i = 0; i < n; i++) xs[i] = x[i] + 0.5 * hh * k1[i];
        double tm = s->t + 0.5 * hh;
        if ((r = jg__rk_call(s, tm, xs, f1))) {
            if (r < 0) return jg__rk_rhs_error(s, tm, r, err);
            goto reject_half;
        }
        for (int64_t i = 0; i < n; i++) k2[i] = f1[i] - k1[i];
        jg__implicit_solve(&m->im, k2);
        for (int64_t i = 0; i < n; i++) {
            k2[i] += k1[i];
            xnew[i] = x[i] + hh * k2[i];
        }
        if ((r = jg__rk_call(s, tnew, xnew, f2))) {
            if (r < 0) return jg__rk_rhs_error(s, tnew, r, err);
            goto reject_half;
        }
        for (int64_t i = 0; i < n; i++) k3[i] = f2[i] - E32 * (k2[i] - f1[i]) - 2 * (k1[i] - f0[i]) + hd * T[i];
        jg__implicit_solve(&m->im, k3);
        for (int64_t i = 0; i < n; i++) k3[i] = hh / 6 * (k1[i] - 2 * k2[i] + k3[i]);   /* the error estimate */
        double en = jg__stepctl_norm(s, k3, x, xnew);
        if (en <= 1) {
            jg__stepctl_accepted(&ctl_ode23s, s, en, h, hh, clipped, failed);
            jg__solver_accept(s, tnew, hh);
            double *t0 = m->f0;   /* FSAL: f(tnew, xnew) starts the next step */
            m->f0 = m->f2;
            m->f2 = t0;
            m->have_jac = 0;
            return JG_OK;
        }
        s->stats.rejected++;
        h = jg__stepctl_rejected(&ctl_ode23s, en, hh, failed);
        failed = 1;
        continue;
    reject_half:   /* f rejected a stage (r > 0) or W was singular: halve */
        jg_error_clear(err);
        s->stats.rejected++;
        failed = 1;
        h = 0.5 * hh;
    }
}

/* Shampine & Reichelt's continuous extension (MATLAB's ntrp23s): with
 * theta = (tq - tprev)/h, x(tq) = xprev + h (theta (1 - theta) k1 +
 * theta (theta - 2 d) k2) / (1 - 2 d): second order, exact at both ends. */
static jg_status_t interp(const jg_solver_t *s, double tq, double *xq)
{
    const ode23s_t *m = s->impl;
    const double h = s->hlast, th = (tq - s->tprev) / h, c = h / (1 - 2 * D_GAMMA);
    const double p1 = c * th * (1 - th), p2 = c * th * (th - 2 * D_GAMMA);
    for (int64_t i = 0; i < s->n; i++) xq[i] = s->xprev[i] + p1 * m->k1[i] + p2 * m->k2[i];
    return JG_OK;
}

const jg__solver_ops_t jg__ode23s_ops = {
    .name = "ode23s", .ctl = &ctl_ode23s,
    .create = create, .free = destroy, .init = restart, .step = step, .interpolate = interp, .reset = restart,
};
