/* RateLimiter: the output follows the input with its slope limited, by
 * Simulink's algorithm over major steps.
 *
 * With (t_prev, y_prev) the last major step, dt = t - t_prev, R =
 * RisingSlewLimit (1) and F = FallingSlewLimit (-1), F <= R:
 *     rate = (u - y_prev)/dt;  y = y_prev + R dt if rate > R,
 *                                  y_prev + F dt if rate < F,  else u,
 * i.e. y = clamp(u, y_prev + F dt, y_prev + R dt).  The first step: with a
 * continuous sample time y = u (InitialCondition is ignored, as in
 * Simulink); with a discrete one y_prev = InitialCondition (0) and dt = the
 * period.  Minor steps apply the same formula from the last major step, so
 * the output is continuous within a solver step; the block registers no zero
 * crossings (Simulink's neither).  The discrete states are [t_prev, have]
 * and y_prev per element, set by update() at every major step (discrete: at
 * each hit).  R, F and InitialCondition are scalars or one per element.
 *
 * SampleTimeMode (literal) "continuous" (Simulink's saved default: the block
 * runs at every major step) or "inherited" (the drivers' rate).
 * Linearization, as Simulink's with LinearizeAsGain "on" (default): y = u,
 * gain 1; "off": gain 0, the output held at y_prev.  In simulation the d
 * part is the slope of the formula above: 1 while u is within the limits, 0
 * while limited. */
#include <math.h>
#include <string.h>
#include "block_impl.h"

typedef struct {
    jg_value_t p[3];   /* RisingSlewLimit, FallingSlewLimit, InitialCondition */
    int64_t n;         /* common numel */
    int which;         /* which parameter fixed n */
    int continuous;    /* SampleTimeMode "continuous" */
    int as_gain;       /* LinearizeAsGain */
} rl_t;

static const char *const rl_names[3] = {"RisingSlewLimit", "FallingSlewLimit", "InitialCondition"};

static int rl_setup(jg_block_t *b, jg_setup_t *s)
{
    static const double defs[3] = {1, -1, 0};
    rl_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->n = 1;
    for (int k = 0; k < 3; k++) {
        if (jg__param_limit(b, s, rl_names[k], defs[k], &d->p[k]) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
        int64_t m = jg_value_numel(&d->p[k]);
        if (m == 1) continue;
        if (d->n > 1 && m != d->n)
            return jg_setup_error(b, s, JG_PARAM, rl_names[k],
                                  "has %lld elements but %s has %lld (only scalars expand)",
                                  (long long)m, rl_names[d->which], (long long)d->n);
        d->n = m;
        d->which = k;
    }
    for (int64_t i = 0; i < d->n; i++) {
        if (!(jg__param_at(&d->p[1], i) <= jg__param_at(&d->p[0], i)))
            return jg_setup_error(b, s, JG_PARAM, "FallingSlewLimit",
                                  "element %lld is %g, above RisingSlewLimit %g", (long long)i + 1,
                                  jg__param_at(&d->p[1], i), jg__param_at(&d->p[0], i));
        if (!isfinite(jg__param_at(&d->p[2], i)))
            return jg_setup_error(b, s, JG_PARAM, "InitialCondition",
                                  "element %lld is not a finite number", (long long)i + 1);
    }
    const char *str = "continuous";
    if (jg_setup_str(b, s, "SampleTimeMode", &str) < 0) return JG_BLOCK_FAIL;
    if (strcmp(str, "continuous") && strcmp(str, "inherited"))
        return jg_setup_error(b, s, JG_PARAM, "SampleTimeMode",
                              "expected \"continuous\" or \"inherited\", got \"%s\"", str);
    d->continuous = !strcmp(str, "continuous");
    jg_value_t num;
    str = NULL;
    int r = jg_setup_str_or_num(b, s, "LinearizeAsGain", &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    d->as_gain = 1;
    if (r == 1 && (!strcmp(str, "on") || !strcmp(str, "off"))) d->as_gain = str[1] == 'n';
    else if (r == 2 && jg_value_numel(&num) == 1 && (num.x[0] == 0 || num.x[0] == 1)) d->as_gain = num.x[0] == 1;
    else if (r != 0)
        return jg_setup_error(b, s, JG_PARAM, "LinearizeAsGain", "expected \"on\" or \"off\" (or 1 / 0)");
    return jg_setup_ports(b, s, 1, 1);
}

static int rl_widths(jg_block_t *b, jg_setup_t *s)
{
    const rl_t *d = b->data;
    if (d->continuous && isnan(b->ts.period)) b->ts = (jg_ts_t){0, 0};
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = d->n;
    }
    int64_t w = b->in_w[0];
    if (d->n != 1 && w != 1 && d->n != w)
        return jg_setup_error(b, s, JG_WIDTH, rl_names[d->which],
                              "has %lld elements but the input has width %lld", (long long)d->n,
                              (long long)w);
    b->out_w[0] = d->n > w ? d->n : w;
    return jg_setup_dstates(b, s, 2 + b->out_w[0]) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int rl_pattern(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] == b->out_w[0]) return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int rl_init_discrete(const jg_block_t *b, double *xd0)
{
    const rl_t *d = b->data;
    xd0[0] = 0;
    xd0[1] = 0;
    for (int64_t i = 0; i < b->out_w[0]; i++) xd0[2 + i] = jg__param_at(&d->p[2], i);
    return 0;
}

/* The window [lo, hi] that y must lie in at t for element i; returns 0 when
 * there is none (the first continuous step: y = u). */
static int rl_window(const jg_block_t *b, const jg_eval_t *e, int64_t i, double *lo, double *hi)
{
    const rl_t *d = b->data;
    double dt, yp = e->xd[2 + i];
    if (e->xd[1] != 0) dt = e->t - e->xd[0];
    else if (b->ts.period > 0 && isfinite(b->ts.period)) dt = b->ts.period;   /* discrete: y(-1) = IC */
    else return 0;
    if (!(dt > 0)) dt = 0;   /* at t_prev itself: y_prev */
    /* inf * 0 is NaN: a missing limit leaves that side open */
    double R = jg__param_at(&d->p[0], i), F = jg__param_at(&d->p[1], i);
    *hi = isinf(R) ? R : yp + R * dt;
    *lo = isinf(F) ? F : yp + F * dt;
    return 1;
}

static int rl_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const rl_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo, hi;
        if (!e->sim) e->y[0][i] = d->as_gain ? u : e->xd[2 + i];
        else if (!rl_window(b, e, i, &lo, &hi)) e->y[0][i] = u;
        else e->y[0][i] = u > hi ? hi : u < lo ? lo : u;
    }
    return 0;
}

static int rl_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const rl_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    cs_dl *J = e->jac[0];
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo, hi, g;
        if (!e->sim) g = d->as_gain;
        else if (!rl_window(b, e, i, &lo, &hi)) g = 1;
        else g = u >= lo && u <= hi;
        /* diag: entry i; a column (scalar input): row i of the one column */
        J->x[i] = g;
    }
    return 0;
}

static int rl_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->xdw[2 + i] = e->y[0][i];
    e->xdw[0] = e->t;
    e->xdw[1] = 1;
    return 0;
}

const jg_block_type_t jg_block_ratelimiter = {
    .name = "RateLimiter", .flags = 0,
    .setup = rl_setup, .widths = rl_widths, .pattern = rl_pattern,
    .outputs = rl_outputs, .jacobian = rl_jacobian,
    .init_discrete = rl_init_discrete, .update = rl_update,
};
