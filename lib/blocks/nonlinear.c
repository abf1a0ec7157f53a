/* Math, Trigonometry and Saturation: element-wise nonlinear functions with
 * analytic derivatives and domain checks. */
#include <math.h>
#include <string.h>
#include "block_impl.h"

/* ---------------------------------------------- element-wise functions */

enum {
    OP_EXP, OP_LOG, OP_LOG10, OP_SQUARE, OP_SQRT, OP_POW, OP_RECIPROCAL, OP_HYPOT,
    OP_SIN, OP_COS, OP_TAN, OP_ASIN, OP_ACOS, OP_ATAN, OP_ATAN2, OP_SINH, OP_COSH, OP_TANH
};

typedef struct {
    const char *name;   /* Simulink Operator value */
    int op;
    int nin;            /* 1, or 2 with scalar expansion */
} elem_op_t;

static const elem_op_t math_ops[] = {
    {"exp", OP_EXP, 1}, {"log", OP_LOG, 1}, {"log10", OP_LOG10, 1},
    {"square", OP_SQUARE, 1}, {"sqrt", OP_SQRT, 1}, {"pow", OP_POW, 2},
    {"reciprocal", OP_RECIPROCAL, 1}, {"hypot", OP_HYPOT, 2},
};
static const char math_names[] = "exp, log, log10, square, sqrt, pow, reciprocal, hypot";

static const elem_op_t trig_ops[] = {
    {"sin", OP_SIN, 1}, {"cos", OP_COS, 1}, {"tan", OP_TAN, 1},
    {"asin", OP_ASIN, 1}, {"acos", OP_ACOS, 1}, {"atan", OP_ATAN, 1},
    {"atan2", OP_ATAN2, 2}, {"sinh", OP_SINH, 1}, {"cosh", OP_COSH, 1},
    {"tanh", OP_TANH, 1},
};
static const char trig_names[] = "sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh";

#define LN10 2.30258509299404568402

/* y = op(u1, u2) and, when d != NULL, d[0] = dy/du1, d[1] = dy/du2.  Returns
 * NULL, or why (u1, u2) is outside the domain of the function -- or of its
 * derivative when d != NULL: a point where the output exists but the slope is
 * infinite or undefined cannot be linearized, and saying so beats a NaN. */
static const char *elem_apply(int op, double u1, double u2, double *y, double *d)
{
    double t;
    switch (op) {
    case OP_EXP:
        *y = exp(u1);
        if (d) d[0] = *y;
        return NULL;
    case OP_LOG:
    case OP_LOG10:
        if (!(u1 > 0)) return "the argument must be positive";
        *y = op == OP_LOG ? log(u1) : log10(u1);
        if (d) d[0] = op == OP_LOG ? 1 / u1 : 1 / (u1 * LN10);
        return NULL;
    case OP_SQUARE:
        *y = u1 * u1;
        if (d) d[0] = 2 * u1;
        return NULL;
    case OP_SQRT:
        if (u1 < 0) return "the argument must not be negative";
        *y = sqrt(u1);
        if (d) {
            if (u1 == 0) return "the derivative is infinite at 0";
            d[0] = 0.5 / *y;
        }
        return NULL;
    case OP_POW:
        /* u1^u2 is real for u1 > 0, for u1 < 0 only at integer u2, and at u1 = 0
         * only for u2 >= 0 */
        if (u1 < 0 && u2 != floor(u2)) return "a negative base needs an integer exponent";
        if (u1 == 0 && u2 < 0) return "division by zero: zero base with a negative exponent";
        *y = pow(u1, u2);
        if (!d) return NULL;
        if (u1 == 0) {
            /* y(u1) = u1^u2 near 0: slope 0 for u2 = 0 or u2 > 1, 1 for u2 = 1,
             * infinite for 0 < u2 < 1; y(u2) = 0 for u2 > 0 */
            if (u2 > 0 && u2 < 1) return "the derivative is infinite at a zero base";
            if (u2 == 0) return "not differentiable in the exponent at 0^0";
            d[0] = u2 == 1 ? 1 : 0;
            d[1] = 0;
        } else {
            /* a negative base is defined at integer exponents only, so the
             * derivative with respect to the exponent does not exist */
            if (u1 < 0)
                return "the derivative with respect to the exponent u2 does not exist for a "
                       "negative base (use square or Product for integer powers)";
            d[0] = u2 == 0 ? 0 : u2 * pow(u1, u2 - 1);
            d[1] = *y * log(u1);
        }
        return NULL;
    case OP_RECIPROCAL:
        if (u1 == 0) return "division by zero";
        *y = 1 / u1;
        if (d) d[0] = -*y * *y;
        return NULL;
    case OP_HYPOT:
        *y = hypot(u1, u2);
        if (d) {
            if (*y == 0) return "not differentiable at u1 = u2 = 0";
            d[0] = u1 / *y;
            d[1] = u2 / *y;
        }
        return NULL;
    case OP_SIN:
        *y = sin(u1);
        if (d) d[0] = cos(u1);
        return NULL;
    case OP_COS:
        *y = cos(u1);
        if (d) d[0] = -sin(u1);
        return NULL;
    case OP_TAN:
        *y = tan(u1);
        if (d) d[0] = 1 + *y * *y;
        return NULL;
    case OP_ASIN:
    case OP_ACOS:
        if (!(fabs(u1) <= 1)) return "the argument must lie in [-1, 1]";
        *y = op == OP_ASIN ? asin(u1) : acos(u1);
        if (d) {
            if (fabs(u1) == 1) return "the derivative is infinite at -1 and 1";
            t = 1 / sqrt((1 - u1) * (1 + u1));   /* (1-u)(1+u): no cancellation near |u| = 1 */
            d[0] = op == OP_ASIN ? t : -t;
        }
        return NULL;
    case OP_ATAN:
        *y = atan(u1);
        if (d) d[0] = 1 / (1 + u1 * u1);
        return NULL;
    case OP_ATAN2:
        /* y = angle of (x = u2, y = u1).  The 2*pi jump on the negative x axis is
         * a branch choice, not a change of the angle: the slope is the smooth one. */
        *y = atan2(u1, u2);
        if (d) {
            t = hypot(u1, u2);
            if (t == 0) return "not differentiable at u1 = u2 = 0";
            d[0] = u2 / t / t;
            d[1] = -u1 / t / t;
        }
        return NULL;
    case OP_SINH:
        *y = sinh(u1);
        if (d) d[0] = cosh(u1);
        return NULL;
    case OP_COSH:
        *y = cosh(u1);
        if (d) d[0] = sinh(u1);
        return NULL;
    case OP_TANH:
        *y = tanh(u1);
        if (d) d[0] = 1 - *y * *y;
        return NULL;
    }
    return "unknown operator";   /* not reached: setup accepts table entries only */
}

typedef struct {
    const elem_op_t *op;
} elem_t;

static int elem_setup(jg_block_t *b, jg_setup_t *s, const elem_op_t *ops, size_t nops,
                      const char *names, const char *def)
{
    elem_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *name = NULL;
    int r = jg_setup_str(b, s, "Operator", &name);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0) name = def;
    for (size_t i = 0; i < nops; i++)
        if (!strcmp(ops[i].name, name)) d->op = &ops[i];
    if (!d->op)
        return jg_setup_error(b, s, JG_PARAM, "Operator", "expected one of %s, got \"%s\"",
                              names, name);
    return jg_setup_ports(b, s, d->op->nin, 1);
}

static int math_setup(jg_block_t *b, jg_setup_t *s)
{
    return elem_setup(b, s, math_ops, sizeof math_ops / sizeof *math_ops, math_names, "exp");
}

static int trig_setup(jg_block_t *b, jg_setup_t *s)
{
    return elem_setup(b, s, trig_ops, sizeof trig_ops / sizeof *trig_ops, trig_names, "sin");
}

/* One input: the output has its width.  Two inputs: Sum's rule, a scalar
 * expands to the width of the other. */
static int elem_widths(jg_block_t *b, jg_setup_t *s)
{
    const elem_op_t *op = ((const elem_t *)b->data)->op;
    int64_t w = -1;
    for (int p = 0; p < op->nin; p++) {
        if (b->in_w[p] < 0) {
            if (!s->force) return JG_BLOCK_AGAIN;
            b->in_w[p] = 1;
        }
        if (b->in_w[p] != 1) {
            if (w > 1 && b->in_w[p] != w)
                return jg_setup_error(b, s, JG_WIDTH, NULL,
                                      "input %d has width %lld but input %d has width %lld "
                                      "(only scalars expand)",
                                      p + 1, (long long)b->in_w[p], p, (long long)w);
            w = b->in_w[p];
        }
    }
    b->out_w[0] = w > 0 ? w : 1;
    return JG_BLOCK_DONE;
}

static int elem_pattern(jg_block_t *b, jg_setup_t *s)
{
    const elem_op_t *op = ((const elem_t *)b->data)->op;
    for (int p = 0; p < op->nin; p++) {
        int k = b->in_w[p] == b->out_w[0] ? jg_jac_diag(b, s, JG_JAC_D, 0, p)
                                          : jg_jac_dense(b, s, JG_JAC_D, 0, p);
        if (k < 0) return -1;
    }
    return 0;
}

/* Evaluate output element i; d != NULL also gives the partial derivatives. */
static int elem_eval(const jg_block_t *b, jg_eval_t *e, int64_t i, double *y, double *d)
{
    const elem_op_t *op = ((const elem_t *)b->data)->op;
    int64_t i1 = b->in_w[0] == 1 ? 0 : i, i2 = 0;
    double u1 = e->u[0][i1], u2 = 0;
    if (op->nin > 1) {
        i2 = b->in_w[1] == 1 ? 0 : i;
        u2 = e->u[1][i2];
    }
    const char *why = elem_apply(op->op, u1, u2, y, d);
    /* a non-finite result from finite inputs is this block's overflow (exp(1000),
     * cosh, tan near pi/2); non-finite inputs are the driver's business */
    if (!why && isfinite(u1) && isfinite(u2) &&
        !(isfinite(*y) && (!d || (isfinite(d[0]) && (op->nin < 2 || isfinite(d[1]))))))
        why = d ? "the derivative overflows" : "the result overflows";
    if (!why) return 0;
    const char *where = d ? "Jacobian of " : "";
    if (op->nin == 1)
        return jg_eval_error(b, e, "%s%s: %s, got u(%lld) = %.17g", where, op->name, why,
                             (long long)i1 + 1, u1);
    return jg_eval_error(b, e, "%s%s: %s, got u1(%lld) = %.17g and u2(%lld) = %.17g", where,
                         op->name, why, (long long)i1 + 1, u1, (long long)i2 + 1, u2);
}

static int elem_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const elem_op_t *op = ((const elem_t *)b->data)->op;
    if (op->nin == 1 && b->in_w[0] == b->out_w[0]) {
        /* the common case in a tight loop; elem_eval only for a failure, to
         * word the error (the simulation's right-hand side runs this a lot) */
        const double *u = e->u[0];
        double *y = e->y[0];
        for (int64_t i = 0; i < b->out_w[0]; i++)
            if ((elem_apply(op->op, u[i], 0, &y[i], NULL) || !isfinite(y[i])) &&
                elem_eval(b, e, i, &y[i], NULL))
                return -1;
        return 0;
    }
    for (int64_t i = 0; i < b->out_w[0]; i++)
        if (elem_eval(b, e, i, &e->y[0][i], NULL)) return -1;
    return 0;
}

static int elem_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const elem_op_t *op = ((const elem_t *)b->data)->op;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double y, d[2] = {0, 0};
        if (elem_eval(b, e, i, &y, d)) return -1;
        /* diagonal (n x n) or scalar-expanded column (n x 1): entry i either way */
        for (int p = 0; p < op->nin; p++) e->jac[p]->x[i] = d[p];
    }
    return 0;
}

static double square(double u) { return u * u; }
static double reciprocal(double u) { return 1 / u; }

/* A one-input operator as a kernel of the evaluation plan (block_impl.h):
 * elem_apply computes exactly fn(u), and every domain error it reports has a
 * NaN or Inf fn(u) (log, log10, sqrt, asin, acos of NaN or outside their
 * domain; reciprocal of 0), as does an overflow. */
static void elem_kernel(const jg_block_t *b, jg_kernel_t *k)
{
    const elem_op_t *op = ((const elem_t *)b->data)->op;
    static double (*const fn[])(double) = {
        [OP_EXP] = exp, [OP_LOG] = log, [OP_LOG10] = log10, [OP_SQUARE] = square,
        [OP_SQRT] = sqrt, [OP_RECIPROCAL] = reciprocal, [OP_SIN] = sin, [OP_COS] = cos,
        [OP_TAN] = tan, [OP_ASIN] = asin, [OP_ACOS] = acos, [OP_ATAN] = atan,
        [OP_SINH] = sinh, [OP_COSH] = cosh, [OP_TANH] = tanh,
    };
    if (op->nin != 1 || b->in_w[0] != b->out_w[0] || !fn[op->op]) return;
    k->outputs = JG_KERNEL_FN;
    k->fn = fn[op->op];
}

const jg_block_type_t jg_block_math = {
    .name = "Math", .flags = 0,
    .setup = math_setup, .widths = elem_widths, .pattern = elem_pattern,
    .outputs = elem_outputs, .jacobian = elem_jacobian, .kernel = elem_kernel,
};

const jg_block_type_t jg_block_trigonometry = {
    .name = "Trigonometry", .flags = 0,
    .setup = trig_setup, .widths = elem_widths, .pattern = elem_pattern,
    .outputs = elem_outputs, .jacobian = elem_jacobian, .kernel = elem_kernel,
};

/* ------------------------------------------------------------ Saturation */

typedef struct {
    jg_value_t hi, lo;   /* UpperLimit, LowerLimit: scalar or one per element */
} sat_t;

static int saturation_setup(jg_block_t *b, jg_setup_t *s)
{
    sat_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "UpperLimit", &d->hi, 0.5) < 0) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "LowerLimit", &d->lo, -0.5) < 0) return JG_BLOCK_FAIL;
    int64_t nh = jg_value_numel(&d->hi), nl = jg_value_numel(&d->lo);
    if (nh == 0) return jg_setup_error(b, s, JG_PARAM, "UpperLimit", "expected a non-empty value");
    if (nl == 0) return jg_setup_error(b, s, JG_PARAM, "LowerLimit", "expected a non-empty value");
    if (nh != 1 && nl != 1 && nh != nl)
        return jg_setup_error(b, s, JG_PARAM, "LowerLimit",
                              "has %lld elements but UpperLimit has %lld (only scalars expand)",
                              (long long)nl, (long long)nh);
    if (jg__param_ordered(b, s, &d->lo, &d->hi, nh > nl ? nh : nl, "LowerLimit", "UpperLimit"))
        return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int saturation_widths(jg_block_t *b, jg_setup_t *s)
{
    sat_t *d = b->data;
    int64_t nh = jg_value_numel(&d->hi), nl = jg_value_numel(&d->lo);
    int64_t nlim = nh > nl ? nh : nl;
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = nlim;   /* nothing drives the width: follow the limits */
    }
    int64_t w = b->in_w[0];
    if (nlim != 1 && w != 1 && nlim != w)
        return jg_setup_error(b, s, JG_WIDTH, nh == nlim ? "UpperLimit" : "LowerLimit",
                              "has %lld elements but the input has width %lld",
                              (long long)nlim, (long long)w);
    b->out_w[0] = nlim > w ? nlim : w;
    /* zero crossings (as in Simulink): UpperLimit - u per element, then u -
     * LowerLimit, either direction (the limit reached and left) */
    return jg_setup_zc(b, s, 2 * b->out_w[0], NULL) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int saturation_pattern(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] == b->out_w[0]) return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0; /* scalar u, vector limits */
}

static int saturation_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const sat_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo = jg__param_at(&d->lo, i), hi = jg__param_at(&d->hi, i);
        e->y[0][i] = u < lo ? lo : u > hi ? hi : u;
    }
    return 0;
}

static int saturation_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const sat_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    /* Slope 1 for lo <= u <= hi, 0 outside.  On a limit the one-sided slopes
     * are 1 (inside) and 0 (outside); we take 1 so that an operating point
     * trimmed onto a limit keeps the signal path in the linear model, as
     * small-signal analysis from inside the range expects.  Equal limits make
     * the output constant: slope 0. */
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo = jg__param_at(&d->lo, i), hi = jg__param_at(&d->hi, i);
        e->jac[0]->x[i] = lo < hi && lo <= u && u <= hi ? 1.0 : 0.0;
    }
    return 0;
}

static int saturation_zc(const jg_block_t *b, jg_eval_t *e)
{
    const sat_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    int64_t n = b->out_w[0];
    for (int64_t i = 0; i < n; i++) {
        double u = e->u[0][scalar_u ? 0 : i];
        e->zcv[i] = jg__param_at(&d->hi, i) - u;
        e->zcv[n + i] = u - jg__param_at(&d->lo, i);
    }
    return 0;
}

const jg_block_type_t jg_block_saturation = {
    .name = "Saturation", .flags = 0,
    .setup = saturation_setup, .widths = saturation_widths, .pattern = saturation_pattern,
    .outputs = saturation_outputs, .jacobian = saturation_jacobian, .zc = saturation_zc,
};
