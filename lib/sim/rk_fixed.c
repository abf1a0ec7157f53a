/* Fixed-step Runge-Kutta on the grid t0 + k h (ode1 ... ode5, discrete): Euler, Heun and classical RK4
 * tableaus, the step and the registry entries. */
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
    long long grid;
    double tnew = jg__solver_grid_next(s, lim, &grid);
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

/* ode3 and ode5 take the pairs of rk_adaptive.c and ignore their estimates;
 * "discrete" is the tableau without stages: time advances only. */
#define FIXED_RK(id, tableau) \
    const jg__solver_ops_t jg__##id##_ops = { \
        .name = #id, .fixed = 1, .tab = &tableau, .step = jg__rk_step_fixed, .interpolate = jg__rk_interpolate, \
    };
FIXED_RK(ode1, jg__rk_euler)
FIXED_RK(ode2, jg__rk_heun)
FIXED_RK(ode3, jg__rk_bs23)
FIXED_RK(ode4, jg__rk_rk4)
FIXED_RK(ode5, jg__rk_dp54)
const jg__solver_ops_t jg__discrete_ops = {
    .name = "discrete", .fixed = 1, .time_only = 1, .tab = &jg__rk_discrete,
    .step = jg__rk_step_fixed, .interpolate = jg__rk_interpolate,
};
