/* lie: the linearly implicit Euler method with a fixed step ("Sparsing of
 * Jacobians", after its reference [8]): implicit Euler x+ = x + h f(t + h, x+)
 * with exactly one Newton step from x, i.e.
 *   x+ = x + h (I - h J)^-1 f(t, x),   J = df/dx at (t, x).
 * A-stable, order 1.  It is also a W-method: any matrix in place of J keeps
 * order 1 (W^-1 = I + O(h)), which is what makes sparsing legitimate --
 * dropping entries of J (the mask of jg_solver_set_sparsing) changes the
 * stability and error constants, not the order ("Sparsing of Jacobians",
 * section 2: the discrete evolution (I - h A) x+ = (I + h (J - A)) x of a
 * linear problem with A the sparsed J).
 *
 * Steps lie on the grid t0 + k h like the fixed-step Runge-Kutta solvers
 * (rk_fixed.c), shortened to end at the limit, and back on the grid after.
 * Each step: one evaluation of f, one Jacobian (callback, or one evaluation
 * of f per column with a kept entry), one LU of I - h J, one solve.  The
 * dense output is linear between the step's ends (order 1, the method's). */
#include <stdlib.h>
#include <string.h>
#include "implicit.h"

typedef struct lie {
    jg__implicit_t im;
    double *f0;
} lie_t;

static jg_status_t create(jg_solver_t *s, jg_error_t *err)
{
    lie_t *m = calloc(1, sizeof *m);
    double *f0 = m ? calloc(s->n ? (size_t)s->n : 1, sizeof(double)) : NULL;
    if (!f0) {
        free(m);
        return jg_error_set(err, JG_NOMEM, "solver '%s': out of memory for %lld states", s->name, (long long)s->n);
    }
    m->f0 = f0;
    jg__implicit_create(&m->im, s, 1);
    s->impl = m;
    return JG_OK;
}

static void destroy(jg_solver_t *s)
{
    lie_t *m = s->impl;
    if (!m) return;
    jg__implicit_free(&m->im);
    free(m->f0);
    free(m);
    s->impl = NULL;
}

/* init and reset: check the pattern and mask now, so that a bad one fails at init. */
static jg_status_t restart(jg_solver_t *s, jg_error_t *err)
{
    lie_t *m = s->impl;
    return jg__implicit_prepare(&m->im, s, NULL, err);
}

static jg_status_t step(jg_solver_t *s, double lim, jg_error_t *err)
{
    lie_t *m = s->impl;
    const int64_t n = s->n;
    long long grid;   /* on the grid of the fixed-step Runge-Kutta methods */
    double tnew = jg__solver_grid_next(s, lim, &grid);
    s->tprev = s->t;   /* the last step's dense output goes with xprev */
    s->hlast = 0;
    jg_status_t st = jg__implicit_prepare(&m->im, s, NULL, err);
    if (st) return st;
    const double h = tnew - s->t;
    int r = jg__rk_call(s, s->t, s->x, m->f0);
    if (r < 0) return jg__rk_rhs_error(s, s->t, r, err);
    if (r > 0)
        return jg_error_set(err, JG_NUMERIC,
                            "solver '%s': right-hand side rejected the state at t = %.17g (returned %d); "
                            "a fixed-step solver cannot shorten its step", s->name, s->t, r);
    if ((st = jg__implicit_jacobian(&m->im, s, s->t, s->x, m->f0, h, err))) return st;
    int singular;
    if ((st = jg__implicit_factor(&m->im, s, h, &singular, err))) return st;
    if (singular)
        return jg_error_set(err, JG_NUMERIC, "solver '%s': I - h J is singular at t = %.17g (h = %g); "
                            "a fixed-step solver cannot change h", s->name, s->t, h);
    double *dx = s->xnew;
    for (int64_t i = 0; i < n; i++) dx[i] = h * m->f0[i];
    jg__implicit_solve(&m->im, dx);
    for (int64_t i = 0; i < n; i++) dx[i] += s->x[i];
    s->grid = grid;
    jg__solver_accept(s, tnew, h);
    return JG_OK;
}

static jg_status_t interp(const jg_solver_t *s, double tq, double *xq)
{
    const double th = (tq - s->tprev) / s->hlast;
    for (int64_t i = 0; i < s->n; i++) xq[i] = s->xprev[i] + th * (s->x[i] - s->xprev[i]);
    return JG_OK;
}

const jg__solver_ops_t jg__lie_ops = {
    .name = "lie", .fixed = 1,
    .create = create, .free = destroy, .init = restart, .step = step, .interpolate = interp, .reset = restart,
};

int64_t jg_solver_sparsing_dropped(const jg_solver_t *s)
{
    return s && s->ops == &jg__lie_ops ? jg__implicit_dropped(s) : 0;
}
