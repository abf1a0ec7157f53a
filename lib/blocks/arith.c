/* Element-wise arithmetic: Bias, UnaryMinus, Polyval, Rounding and Quantizer.
 *
 * Each has one input and one output of the same width, except that a scalar
 * input expands against a vector parameter (Bias, Quantizer), as Simulink
 * does.  Rounding and Quantizer are piecewise constant: slope 0, and, as in
 * Simulink, no zero crossings (their output may jump inside a solver step).
 * Their d part is declared all the same: it records the direct feedthrough
 * that the sorted order needs.
 */
#include <math.h>
#include <string.h>
#include "block_impl.h"

/* A non-empty scalar-or-vector numeric parameter (def when absent). */
static int vec_param(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *v, double def)
{
    if (jg_setup_num_def(b, s, name, v, def) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(v) == 0)
        return jg_setup_error(b, s, JG_PARAM, name, "expected a non-empty value");
    if (v->rows != 1 && v->cols != 1)
        return jg_setup_error(b, s, JG_PARAM, name, "expected a scalar or a vector, got %lldx%lld",
                              (long long)v->rows, (long long)v->cols);
    return JG_BLOCK_DONE;
}

static int same_widths(jg_block_t *b, jg_setup_t *s)
{
    return jg__widths_param(b, s, 1, NULL, 1);
}

/* Diagonal d part, or a column for a scalar input expanded. */
static int diag_or_column(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] == b->out_w[0]) return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}



/* SaturateOnIntegerOverflow (Bias, UnaryMinus) matters for integer signals
 * only: read (not reported as unknown) and ignored. */
static int ignore_saturate(jg_block_t *b, jg_setup_t *s)
{
    return jg__param_ignore(b, s, "SaturateOnIntegerOverflow");
}

static int uminus_setup(jg_block_t *b, jg_setup_t *s)
{
    if (ignore_saturate(b, s) < 0) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

/* ------------------------------------------------------------------ Bias */

/* Bias: y = u + Bias (0), Bias a scalar or one value per element.  Affine,
 * not y = D u: linear but not pure linear. */
typedef struct {
    jg_value_t bias;
} bias_t;

static int bias_setup(jg_block_t *b, jg_setup_t *s)
{
    bias_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (vec_param(b, s, "Bias", &d->bias, 0.0) < 0) return JG_BLOCK_FAIL;
    if (ignore_saturate(b, s) < 0) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int bias_widths(jg_block_t *b, jg_setup_t *s)
{
    const bias_t *d = b->data;
    return jg__widths_param(b, s, jg_value_numel(&d->bias), "Bias", 1);
}

static int bias_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const bias_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = e->u[0][scalar_u ? 0 : i] + jg__param_at(&d->bias, i);
    return 0;
}

/* diag or expanded column: one entry per output element, each 1 */
static int ones_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[0]->x[i] = 1.0;
    return 0;
}

const jg_block_type_t jg_block_bias = {
    .name = "Bias", .flags = JG_BT_LINEAR,
    .setup = bias_setup, .widths = bias_widths, .pattern = diag_or_column,
    .outputs = bias_outputs, .jacobian = ones_jacobian,
};

/* ------------------------------------------------------------ UnaryMinus */

/* UnaryMinus: y = -u, exactly the bare product (-1) u of a pure linear block. */
static int uminus_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = -e->u[0][i];
    return 0;
}

static int uminus_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[0]->x[i] = -1.0;
    return 0;
}

const jg_block_type_t jg_block_unaryminus = {
    .name = "UnaryMinus", .flags = JG_BT_LINEAR | JG_BT_PURE_LINEAR,
    .setup = uminus_setup, .widths = same_widths, .pattern = diag_or_column,
    .outputs = uminus_outputs, .jacobian = uminus_jacobian,
};

/* --------------------------------------------------------------- Polyval */

/* Polyval (Simulink's Polynomial block): y = polyval(Coefs, u) element-wise,
 * Coefs highest power first; the default [1, 2] is Simulink's built-in
 * default (BlockParameterDefaults), not the library dialog's thermocouple
 * polynomial.  The slope is polyval(polyder(Coefs), u), by Horner's rule
 * alongside the value. */
typedef struct {
    jg_value_t c;
} polyval_t;

static int polyval_setup(jg_block_t *b, jg_setup_t *s)
{
    polyval_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    static const double def[2] = {1, 2};
    if (jg_setup_num_vec_def(b, s, "Coefs", &d->c, def, 2) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->c) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Coefs",
                              "expected a non-empty vector of coefficients, highest power first");
    if (d->c.rows != 1 && d->c.cols != 1)
        return jg_setup_error(b, s, JG_PARAM, "Coefs", "expected a vector, got %lldx%lld",
                              (long long)d->c.rows, (long long)d->c.cols);
    return jg_setup_ports(b, s, 1, 1);
}

/* p(u) and p'(u) by Horner's rule. */
static double horner(const jg_value_t *c, double u, double *dp)
{
    double p = 0, q = 0;
    for (int64_t k = 0; k < jg_value_numel(c); k++) {
        q = q * u + p;
        p = p * u + c->x[k];
    }
    if (dp) *dp = q;
    return p;
}

static int polyval_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const polyval_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = horner(&d->c, e->u[0][i], NULL);
    return 0;
}

static int polyval_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const polyval_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) horner(&d->c, e->u[0][i], &e->jac[0]->x[i]);
    return 0;
}

const jg_block_type_t jg_block_polyval = {
    .name = "Polyval", .flags = 0,
    .setup = polyval_setup, .widths = same_widths, .pattern = diag_or_column,
    .outputs = polyval_outputs, .jacobian = polyval_jacobian,
};

/* -------------------------------------------------------------- Rounding */

/* Rounding: Operator (literal) "floor" (default), "ceil", "round" (half away
 * from zero, as MATLAB) or "fix" (toward zero), element-wise.  Slope 0. */
enum { RND_FLOOR, RND_CEIL, RND_ROUND, RND_FIX };

typedef struct {
    int op;
} rounding_t;

static int rounding_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[] = {"floor", "ceil", "round", "fix"};
    rounding_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *op = NULL;
    int r = jg_setup_str(b, s, "Operator", &op);
    if (r < 0) return JG_BLOCK_FAIL;
    d->op = r == 0 ? RND_FLOOR : -1;
    for (int k = 0; r > 0 && k < 4; k++)
        if (!strcmp(op, names[k])) d->op = k;
    if (d->op < 0)
        return jg_setup_error(b, s, JG_PARAM, "Operator",
                              "expected \"floor\", \"ceil\", \"round\" or \"fix\", got \"%s\"", op);
    return jg_setup_ports(b, s, 1, 1);
}

static int rounding_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const rounding_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][i];
        e->y[0][i] = d->op == RND_FLOOR ? floor(u)
                     : d->op == RND_CEIL ? ceil(u)
                     : d->op == RND_ROUND ? round(u)
                                          : trunc(u);
    }
    return 0;
}

const jg_block_type_t jg_block_rounding = {
    .name = "Rounding", .flags = 0,
    .setup = rounding_setup, .widths = same_widths, .pattern = jg_pattern_zero_slope,
    .outputs = rounding_outputs, .jacobian = jg_jac_zero,
};

/* ------------------------------------------------------------- Quantizer */

/* Quantizer: y = q round(u / q) element-wise (round half away from zero),
 * QuantizationInterval q (0.5) > 0, a scalar or one value per element.
 * LinearizeAsGain ("on", Simulink's default; or "off"): the linearization
 * takes the staircase as the gain 1 (its average slope); simulation, and
 * "off", use the true slope 0.  The perturbation method always sees the
 * staircase. */
typedef struct {
    jg_value_t q;
    int as_gain;
} quantizer_t;

/* "on" / "off" switch parameter: 1 / 0, def when absent, -1 on error. */
static int on_off(jg_block_t *b, jg_setup_t *s, const char *name, int def)
{
    const char *v = NULL;
    int r = jg_setup_str(b, s, name, &v);
    if (r < 0) return -1;
    if (r == 0) return def;
    if (!strcmp(v, "on")) return 1;
    if (!strcmp(v, "off")) return 0;
    jg_setup_error(b, s, JG_PARAM, name, "expected \"on\" or \"off\", got \"%s\"", v);
    return -1;
}

static int quantizer_setup(jg_block_t *b, jg_setup_t *s)
{
    quantizer_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (vec_param(b, s, "QuantizationInterval", &d->q, 0.5) < 0) return JG_BLOCK_FAIL;
    for (int64_t i = 0; i < jg_value_numel(&d->q); i++)
        if (!(d->q.x[i] > 0 && isfinite(d->q.x[i])))
            return jg_setup_error(b, s, JG_PARAM, "QuantizationInterval",
                                  "element %lld is %g: expected a positive finite interval",
                                  (long long)i + 1, d->q.x[i]);
    if ((d->as_gain = on_off(b, s, "LinearizeAsGain", 1)) < 0) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int quantizer_widths(jg_block_t *b, jg_setup_t *s)
{
    const quantizer_t *d = b->data;
    return jg__widths_param(b, s, jg_value_numel(&d->q), "QuantizationInterval", 1);
}

static int quantizer_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const quantizer_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double q = jg__param_at(&d->q, i);
        e->y[0][i] = q * round(e->u[0][scalar_u ? 0 : i] / q);
    }
    return 0;
}

static int quantizer_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const quantizer_t *d = b->data;
    double slope = d->as_gain && !e->sim ? 1.0 : 0.0;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[0]->x[i] = slope;
    return 0;
}

const jg_block_type_t jg_block_quantizer = {
    .name = "Quantizer", .flags = 0,
    .setup = quantizer_setup, .widths = quantizer_widths, .pattern = diag_or_column,
    .outputs = quantizer_outputs, .jacobian = quantizer_jacobian,
};
