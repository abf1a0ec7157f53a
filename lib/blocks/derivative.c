/* Derivative: du/dt, as a difference quotient over the last major step in
 * simulation and as s/(c s + 1) in linearization.
 *
 * Simulation (e->sim = 1), Simulink's definition: y(t) = (u(t) - u(t_prev)) /
 * (t - t_prev) with t_prev the last major step, 0 at the first one.  The
 * discrete states, per block [t_prev, have], then per element u(t_prev) and
 * the output at t_prev (returned again when asked at t_prev itself), are set
 * by update() at every major step.  Minor steps use the same formula, so the
 * output is continuous inside a solver step.
 *
 * Linearization (e->sim = 0): the derivative is improper, so, like Simulink,
 * the block linearizes the approximation s/(c s + 1), c =
 * CoefficientInTFapproximation: one continuous state per element,
 *     x' = (u - x)/c,  y = (u - x)/c,
 * i.e. a = -1/c, b = 1/c, c-part -1/c, d = 1/c.  Simulink's default c = inf
 * would make that 0 (no derivative action at all in the linear model); we
 * take c = 1e-6 instead whenever c is inf (or absent) or 0, a pole at -1e6
 * rad/s that leaves the derivative exact to about 1e5 rad/s.  These states
 * are declared for the linearization; in simulation they are held (x' = 0,
 * and a, b, c read 0 there) at their initial value 0, the equilibrium for
 * u = 0, so they cost the solver nothing (a pole at -1/c would make every
 * explicit solver crawl).  The d part in simulation is 1/(t - t_prev) (0 at
 * the first step): the true slope of the difference quotient, for algebraic
 * loops through the block. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "block_impl.h"

#define DERIV_C_DEFAULT 1e-6

typedef struct {
    double c;   /* the linearization's time constant, finite and > 0 */
} deriv_t;

/* The coefficient: a number, a workspace name, or "inf"/"Inf" (Simulink's
 * default, which JSON cannot hold as a number). */
static int deriv_setup(jg_block_t *b, jg_setup_t *s)
{
    deriv_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *str = NULL;
    jg_value_t v;
    double c = INFINITY;
    int r = jg_setup_str_or_num(b, s, "CoefficientInTFapproximation", &str, &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 1) {
        if (strcmp(str, "inf") && strcmp(str, "Inf"))
            return jg_setup_error(b, s, JG_PARAM, "CoefficientInTFapproximation",
                                  "unknown workspace name '%s' (expected a number, \"inf\" or a "
                                  "workspace parameter)",
                                  str);
    } else if (r == 2) {
        if (jg_value_numel(&v) != 1 || isnan(v.x[0]) || v.x[0] < 0)
            return jg_setup_error(b, s, JG_PARAM, "CoefficientInTFapproximation",
                                  "expected a scalar c >= 0 (or inf)");
        c = v.x[0];
    }
    d->c = c == 0 || isinf(c) ? DERIV_C_DEFAULT : c;
    if (!isfinite(1.0 / d->c) || d->c < DBL_MIN)   /* y = (u - x) / c */
        return jg_setup_error(b, s, JG_PARAM, "CoefficientInTFapproximation",
                              "is %g: too small (expected 0 for the default, inf, or at least "
                              "%g, so that its reciprocal stays finite)",
                              d->c, DBL_MIN);
    return jg_setup_ports(b, s, 1, 1);
}

static int deriv_widths(jg_block_t *b, jg_setup_t *s)
{
    /* continuous whatever drives it (the difference quotient needs every
     * major step); NAN: no SampleTime given */
    if (isnan(b->ts.period)) b->ts = (jg_ts_t){0, 0};
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;
    }
    int64_t w = b->in_w[0];
    b->out_w[0] = w;
    if (jg_setup_states(b, s, w) < 0 || jg_setup_dstates(b, s, 2 + 2 * w) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

/* a, b, c, d, all diagonal. */
static int deriv_pattern(jg_block_t *b, jg_setup_t *s)
{
    if (jg_jac_diag(b, s, JG_JAC_A, -1, -1) < 0 || jg_jac_diag(b, s, JG_JAC_B, -1, 0) < 0 ||
        jg_jac_diag(b, s, JG_JAC_C, 0, -1) < 0 || jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0)
        return -1;
    return 0;
}

static int deriv_init(const jg_block_t *b, double *x0)
{
    memset(x0, 0, sizeof(double) * (size_t)b->nx);
    return 0;
}

/* 1/(t - t_prev) in simulation, 0 before the first step or at t_prev. */
static double inv_dt(const jg_eval_t *e)
{
    return e->xd[1] != 0 && e->t > e->xd[0] ? 1 / (e->t - e->xd[0]) : 0.0;
}

static int deriv_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const deriv_t *d = b->data;
    int64_t w = b->out_w[0];
    if (!e->sim) {
        for (int64_t i = 0; i < w; i++) e->y[0][i] = (e->u[0][i] - e->x[i]) / d->c;
        return 0;
    }
    const double *uprev = e->xd + 2, *yprev = e->xd + 2 + w;
    int at_prev = e->xd[1] != 0 && !(e->t > e->xd[0]);
    double k = inv_dt(e);
    for (int64_t i = 0; i < w; i++) e->y[0][i] = at_prev ? yprev[i] : (e->u[0][i] - uprev[i]) * k;
    return 0;
}

static int deriv_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    const deriv_t *d = b->data;
    for (int64_t i = 0; i < b->nx; i++) e->dx[i] = e->sim ? 0.0 : (e->u[0][i] - e->x[i]) / d->c;
    return 0;
}

static int deriv_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const deriv_t *d = b->data;
    double g = 1 / d->c, k = e->sim ? inv_dt(e) : g;
    for (int64_t i = 0; i < b->nx; i++) {
        e->jac[0]->x[i] = e->sim ? 0.0 : -g;
        e->jac[1]->x[i] = e->sim ? 0.0 : g;
        e->jac[2]->x[i] = e->sim ? 0.0 : -g;
        e->jac[3]->x[i] = k;
    }
    return 0;
}

/* Record (t, u, y) of this major step; the outputs were computed from the
 * previous one. */
static int deriv_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    int64_t w = b->out_w[0];
    double *xd = e->xdw;
    for (int64_t i = 0; i < w; i++) {
        xd[2 + w + i] = e->y[0][i];
        xd[2 + i] = e->u[0][i];
    }
    xd[0] = e->t;
    xd[1] = 1;
    return 0;
}

const jg_block_type_t jg_block_derivative = {
    .name = "Derivative", .flags = JG_BT_LINEAR,
    .setup = deriv_setup, .widths = deriv_widths, .pattern = deriv_pattern,
    .init = deriv_init, .outputs = deriv_outputs, .derivatives = deriv_derivatives,
    .jacobian = deriv_jacobian, .update = deriv_update,
};
