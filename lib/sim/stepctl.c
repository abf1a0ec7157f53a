/* Error norm and step-size control shared by the variable-step methods (ode23, ode45, ode23s).
 *
 * With k = q + 1 (q the order of the error estimate) and en the error norm of
 * a step of size hh:
 *   rejected (en > 1):  hh * max(rej_min, SAFETY en^(-1/k)); with halve_again
 *                       (MATLAB's ode23s) a second rejection in a step halves
 *   accepted:           hh * clamp(SAFETY en^(-alpha) en_prev^beta, fac_min, fac_max)
 *                       with pi, en_prev the norm of the last accepted step
 *                       (floored at 1e-4); the elementary SAFETY en^(-1/k) without
 *                       pi or without a previous norm (after init or reset).
 *                       Right after a rejection no growth: the factor is capped
 *                       at 1, or (hold_after_fail, ode23s) the step is kept.
 * Why the explicit pairs use the PI form rather than the elementary controller
 * h 0.9 en^(-1/k) of Hairer's book and SciPy: it predicts each step from the
 * last one's error, so on a problem whose error constant rises by more than
 * 0.9^-k (1.7 for k = 5) per step, as it does twice per period of Van der
 * Pol, every other step fails (ode45, rtol 1e-3, [0, 200]: 268 rejected for
 * 484 steps; SciPy's RK45 the same).  The lower safety factor (MATLAB's 0.8)
 * and the PI form (Gustafsson; Hairer & Wanner II, IV.2; DOPRI5's beta = 0.04,
 * alpha = 0.17 for k = 5, here beta = 0.2/k, alpha = 1/k - 0.75 beta) aim at
 * an error norm of 0.8^(k/0.65) in steady state (0.18 for ode45, 0.36 for
 * ode23) instead of 0.9^k (0.59, 0.73), which leaves room for that rise: 76
 * rejected for 498 steps.  On smooth problems that costs about 25% more steps
 * for a 3-4 times smaller error, the same work per accuracy; measured on Van
 * der Pol (mu 1, 5), Brusselator, Arenstorf, an oscillator and y' = -2ty at
 * rtol 1e-3 ... 1e-10 the error per evaluation stays within a few percent,
 * mostly better, and the rejections fall 2 to 30 times.  ode23s keeps
 * MATLAB's elementary rules (Shampine & Reichelt), its parameters in
 * rosenbrock.c. */
#include <float.h>
#include <math.h>
#include "solver_impl.h"

double jg__stepctl_norm(const jg_solver_t *s, const double *v, const double *x, const double *y)
{
    if (s->n == 0) return 0;
    double sum = 0;
    for (int64_t i = 0; i < s->n; i++) {
        double sc = s->atol + s->rtol * fmax(fabs(x[i]), fabs(y[i]));
        double r = v[i] / sc;
        sum += r * r;
    }
    return sqrt(sum / (double)s->n);
}

jg_status_t jg__stepctl_attempt(const jg_solver_t *s, double h, double lim, double *hh, double *tnew,
                                int *clipped, jg_error_t *err)
{
    if (!(h > 0 && h >= 16 * DBL_EPSILON * fabs(s->t)))
        return jg_error_set(err, JG_NUMERIC, "solver '%s': step size too small at t = %.17g (h = %g)", s->name,
                            s->t, h);
    *hh = h;
    *tnew = s->t + h;
    *clipped = 0;
    if (lim - s->t <= fmin(1.1 * h, s->hmax)) {   /* stretch up to 10% rather than leave a sliver */
        *hh = lim - s->t;
        *tnew = lim;
        *clipped = *hh < h;
    }
    return JG_OK;
}

void jg__stepctl_accepted(const jg__stepctl_t *c, jg_solver_t *s, double en, double h, double hh, int clipped,
                          int failed)
{
    const double k = c->k, expo = 1.0 / k;
    double hn;
    if (clipped && !failed) {
        /* Cut short to end at lim (an output time, a sample hit): not a step the
         * controller chose, so it neither shrinks the proposal h for being short
         * nor enters the PI memory.  When it is at least a quarter of h its
         * estimate still lowers h if it predicts that h would fail (the error
         * constant is rising); a shorter one's estimate is mostly rounding and
         * would leave a tiny next step after a sliver. */
        hn = hh >= 0.25 * h && en > 0 ? fmin(h, hh * c->safety * pow(en, -expo)) : h;
    } else {
        if (failed && c->hold_after_fail) {
            hn = hh;
        } else {
            const double beta = c->pi ? 0.2 / k : 0, alpha = expo - 0.75 * beta;
            double fac = en == 0                    ? c->fac_max
                         : c->pi && s->errold > 0 ? c->safety * pow(en, -alpha) * pow(s->errold, beta)
                                                  : c->safety * pow(en, -expo);
            fac = fmin(c->fac_max, fmax(c->fac_min, fac));
            if (failed) fac = fmin(fac, 1);
            hn = hh * fac;
        }
        s->errold = fmax(en, 1e-4);
    }
    s->h = fmin(hn, s->hmax);
}

double jg__stepctl_rejected(const jg__stepctl_t *c, double en, double hh, int failed)
{
    if (failed && c->halve_again) return 0.5 * hh;
    double fac = c->safety * pow(en, -1.0 / c->k);
    return hh * (fac >= c->rej_min ? fac : c->rej_min);   /* also when en is NaN */
}
