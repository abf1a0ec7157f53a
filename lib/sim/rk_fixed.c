/* Fixed-step Runge-Kutta on the grid t0 + k h: Euler, Heun and classical RK4 tableaus and the step itself. */
#include <math.h>
#include <stddef.h>
#include "solver_impl.h"

const jg_rk_tableau_t jg__rk_discrete = {0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL};

static const double euler_c[] = {0}, euler_a[] = {0}, euler_b[] = {1};
static const double euler_d[] = {1};   /* linear interpolation */
const jg_rk_tableau_t jg__rk_euler = {1, 1, 0, 1, 0, 1, euler_c, euler_a, euler_b, NULL, euler_d};

static const double heun_c[] = {0, 1};
static const double heun_a[] = {0, 0,
                                1, 0};
static const double heun_b[] = {0.5, 0.5};
static const double heun_d[] = {1, -0.5,   /* second-order: b1 = t - t^2/2, b2 = t^2/2 */
                                0, 0.5};
const jg_rk_tableau_t jg__rk_heun = {2, 2, 0, 2, 0, 2, heun_c, heun_a, heun_b, NULL, heun_d};

static const double rk4_c[] = {0, 0.5, 0.5, 1};
static const double rk4_a[] = {0,   0,   0, 0,
                               0.5, 0,   0, 0,
                               0,   0.5, 0, 0,
                               0,   0,   1, 0};
static const double rk4_b[] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
static const double rk4_d[] = {1, -1.5, 2.0 / 3,   /* third-order continuous extension */
                               0, 1,    -2.0 / 3,
                               0, 1,    -2.0 / 3,
                               0, -0.5, 2.0 / 3};
const jg_rk_tableau_t jg__rk_rk4 = {4, 4, 0, 3, 0, 3, rk4_c, rk4_a, rk4_b, NULL, rk4_d};

jg_status_t jg__rk_step_fixed(jg_solver_t *s, double lim, jg_error_t *err)
{
    /* Times come from t0 + k h rather than a running sum, so the grid does not drift. */
    const double hf = s->opts.fixed_step;
    long long grid = s->grid;
    double tg = s->t0 + (double)(grid + 1) * hf, tol = jg__rk_grid_tol(s, tg), tnew;
    if (tg >= lim - tol) {   /* the limit comes first, or the grid point is the limit */
        tnew = lim;
        if (tg <= lim + tol) grid++;
    } else {
        tnew = tg;
        grid++;
    }
    jg_status_t st = jg__rk_first_stage(s, err);
    if (st) return st;
    double tf;
    int r = jg__rk_attempt(s, tnew - s->t, tnew, &tf);
    if (r < 0) return jg__rk_rhs_error(s, tf, r, err);
    if (r > 0)
        return jg_error_set(err, JG_NUMERIC,
                            "solver '%s': right-hand side rejected a stage at t = %.17g (returned %d); "
                            "a fixed-step solver cannot shorten its step", s->name, tf, r);
    s->grid = grid;
    jg__rk_accept(s, tnew, tnew - s->t);
    return JG_OK;
}
